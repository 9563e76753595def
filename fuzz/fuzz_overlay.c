/*
 * libFuzzer harness for the application overlay (wire/overlay.h and
 * apps/overlay.h).
 *
 * Input: a mode byte (bit 0: the node subscribes as a sink to attr 1;
 * bit 1: it has a sensor), then records
 *
 *     [1 byte  time step, units of 50 ms; 255: a jump of one hour]
 *     [1 byte  neighbour: the low 3 bits pick fe80::1..8]
 *     [1 byte  length]
 *     [length bytes: one message from that neighbour]
 *
 * Every record's bytes first go through the codec alone: what parses is
 * emitted again to the same bytes, and its fields obey the rules the
 * emitter checks. Then they are given to a node running the library (its
 * sends captured by the tx hook, no stack traffic).
 *
 * Checked: every message the node sends parses (an INTEREST to ff02::1,
 * DATA to one of the eight neighbours); its tables stay within their
 * rules (pending aggregates only for held interests, at most
 * MIP_OVERLAY_AHEAD_MAX + 1 per interest, within the rounds allowed);
 * after the last record the clock runs a day and a round past every
 * lifetime: then only the node's own subscription is left, nothing is
 * pending for a relayed interest, and without a subscription the poll
 * reports no deadline.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "moteip/moteip.h"
#include "overlay.h"

#include "fuzz_check.h"

static struct mip_stack stack;
static struct mip_overlay ovl;
static bool sensor;

static void codec_round_trip(const uint8_t *data, size_t len)
{
    uint8_t *c = fuzz_dup_exact(data, len);
    uint8_t out[32];
    size_t n = 0;
    struct mip_ovl_interest i;
    struct mip_ovl_data d;

    if (mip_ovl_interest_parse(c, len, &i) == MIP_OK) {
        CHECKF(mip_ovl_interest_valid(&i));
        CHECKF(mip_ovl_interest_emit(&i, out, sizeof(out), &n) == MIP_OK);
        CHECKF(n == len && memcmp(out, c, len) == 0);
    }
    if (mip_ovl_data_parse(c, len, &d) == MIP_OK) {
        CHECKF(mip_ovl_agg_valid(&d.agg));
        CHECKF(mip_ovl_data_emit(&d, out, sizeof(out), &n) == MIP_OK);
        CHECKF(n == len && memcmp(out, c, len) == 0);
    }
    free(c);
}

static mip_status tx(void *ctx, struct mip_stack *s, const struct mip_addr *dst, uint8_t zone,
                     const uint8_t *buf, size_t len)
{
    uint8_t type = 0;
    (void)ctx;
    (void)s;
    (void)zone;
    CHECKF(mip_ovl_type(buf, len, &type) == MIP_OK);
    if (type == MIP_OVL_TYPE_INTEREST) {
        struct mip_ovl_interest i;
        CHECKF(mip_ovl_interest_parse(buf, len, &i) == MIP_OK);
        CHECKF(dst->bytes[0] == 0xff && dst->bytes[1] == 0x02 && dst->bytes[15] == 1);
    } else {
        struct mip_ovl_data d;
        CHECKF(mip_ovl_data_parse(buf, len, &d) == MIP_OK);
        CHECKF(dst->bytes[0] == 0xfe && dst->bytes[15] >= 1 && dst->bytes[15] <= 8);
    }
    return MIP_OK;
}

static bool read_value(void *ctx, uint8_t attr, mip_time_t now, int16_t *v)
{
    (void)ctx;
    *v = (int16_t)(attr * 100 - (int)(now % 7u));
    return sensor;
}

static void check_tables(void)
{
    unsigned k, j, per[MIP_OVERLAY_INTERESTS] = { 0 };
    for (k = 0; k < MIP_OVERLAY_PENDING; k++) {
        const struct mip_overlay_pending *p = &ovl.pending[k];
        const struct mip_overlay_interest *in;
        int16_t d;
        if (!p->used)
            continue;
        CHECKF(p->interest < MIP_OVERLAY_INTERESTS);
        in = &ovl.interest[p->interest];
        CHECKF(in->used);
        d = (int16_t)(uint16_t)(p->epoch - in->round);
        CHECKF(d >= 0 && d <= (int16_t)MIP_OVERLAY_AHEAD_MAX);
        CHECKF(mip_ovl_agg_valid(&p->agg));
        per[p->interest]++;
        for (j = 0; j < k; j++)
            CHECKF(!ovl.pending[j].used || ovl.pending[j].interest != p->interest ||
                   ovl.pending[j].epoch != p->epoch);
    }
    for (k = 0; k < MIP_OVERLAY_INTERESTS; k++)
        CHECKF(per[k] <= MIP_OVERLAY_AHEAD_MAX + 1u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t entropy[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    struct mip_stack_config sc;
    struct mip_overlay_cfg oc;
    mip_time_t now = 0xFFFF0000u;   /* the clock wraps during the run */
    size_t pos = 1;
    bool sink;
    unsigned k;

    if (size < 1)
        return 0;
    sink = (data[0] & 1u) != 0;
    sensor = (data[0] & 2u) != 0;
    memset(&sc, 0, sizeof(sc));
    sc.entropy = entropy;
    sc.entropy_len = sizeof(entropy);
    mip_stack_init(&stack, &sc, now);
    memset(&oc, 0, sizeof(oc));
    oc.id = 0x0101;
    oc.read = read_value;
    oc.tx = tx;
    CHECKF(mip_overlay_start(&ovl, &stack, &oc) == MIP_OK);
    if (sink)
        CHECKF(mip_overlay_subscribe(&ovl, 1, 1000, 3, 100, 30000, now) == MIP_OK);
    while (pos + 3u <= size) {
        uint8_t step = data[pos], who = data[pos + 1];
        size_t len = data[pos + 2];
        struct mip_addr src;
        uint8_t a[16] = { 0xfe, 0x80 };
        pos += 3u;
        if (len > size - pos)
            len = size - pos;
        now += step == 255u ? 3600000u : (uint32_t)step * 50u;
        (void)mip_overlay_poll(&ovl, now);
        codec_round_trip(data + pos, len);
        a[15] = (uint8_t)((who & 7u) + 1u);
        mip_addr_set6(&src, a);
        mip_overlay_input(&ovl, &src, 0, data + pos, len, now);
        check_tables();
        (void)mip_overlay_poll(&ovl, now);
        check_tables();
        pos += len;
    }
    now += MIP_OVL_LIFETIME_MAX_MS + MIP_OVL_INTERVAL_MAX_MS + 1u;
    (void)mip_overlay_poll(&ovl, now);
    for (k = 0; k < MIP_OVERLAY_INTERESTS; k++)
        CHECKF(!ovl.interest[k].used || ovl.interest[k].own);
    for (k = 0; k < MIP_OVERLAY_PENDING; k++)
        CHECKF(!ovl.pending[k].used || ovl.interest[ovl.pending[k].interest].own);
    if (!sink)
        CHECKF(mip_overlay_poll(&ovl, now) == MIP_POLL_IDLE);
    return 0;
}
