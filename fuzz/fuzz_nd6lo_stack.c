/*
 * libFuzzer harness: whole 6LoWPAN-ND messages into a stack
 * (src/core/nd6lo.c behind the IPHC radio netif).
 *
 * Input: one role byte (bit 0: router, else host), then records
 *   [step: 1 byte, time advanced by step * 250 ms]
 *   [addr: 1 byte: bits 0-1 the link source (short 2..5), bit 2 a
 *    link-local IPv6 source (else ::), bits 3-4 the IPv6 destination
 *    (ours, ff02::1, ff02::2, fd00::1)]
 *   [len: 1 byte][len bytes: the ICMPv6 message, checksum ignored in
 *    fuzzing builds]
 * each sent as an uncompressed IPv6 datagram (dispatch 0x41, hop limit
 * 255) in an 802.15.4 data frame to us. The router announces fd00::/64 with
 * context 1; the host starts soliciting at once. A host's record with addr
 * bit 7 set is instead the router's answer to one of the host's
 * registrations (since session 15: host_na was 30 % covered, the fuzzer
 * rarely guessing the TID): its bytes [k][status][tid flip][lifetime],
 * registration k % slots, EARO status, a wrong TID when bit 0 of the third
 * is set, the lifetime in minutes; an NA (S) whose target is that address
 * and whose EARO carries the host's TID and EUI-64.
 *
 * Invariants: every frame the stack sends parses as 802.15.4; a registration
 * entry never holds an address with a lifetime above the router's cap; the
 * host never registers more than its address slots; a host answered with
 * its own TID: SUCCESS registers the address for what the router granted,
 * DUPLICATE removes it, any other status makes it wait to try again, and
 * an answer with another TID changes nothing; at the end, after the
 * timers ran out, the packet buffer pool is whole, and the stack awaits no
 * reply (mip_stack_awaits_reply, which a sleepy host reads to poll fast:
 * a silent network must not keep it polling; since session 16).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/stack.h"
#include "moteip/nd6lo.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/nd6lo.h"
#include "fuzz_check.h"

#define PAN 0xABCDu
#define OUR_SHORT 1u

static unsigned sent;

static mip_status tx(void *ctx, const uint8_t *frame, size_t len)
{
    struct mip_802154_hdr h;
    size_t hl;
    (void)ctx;
    CHECKF(mip_ieee802154_parse(frame, len, &h, &hl) == MIP_OK);
    sent++;
    return MIP_OK;
}

static const struct mip_netif_driver drv = { tx, NULL, NULL };

static void input_record(struct mip_stack *s, mip_time_t now, uint8_t addr, const uint8_t *msg,
                         size_t n)
{
    uint8_t frame[MIP_RADIO_FRAME_MAX];
    struct mip_802154_hdr h;
    struct mip_ipv6_hdr ip;
    size_t hl = 0;
    static const uint8_t dsts[4][16] = {
        {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 0, 0, 1},
        {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
        {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2},
        {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 0, 0, 1},
    };
    uint16_t from = (uint16_t)(2u + (addr & 3u));
    memset(&h, 0, sizeof h);
    h.type = MIP_802154_DATA;
    h.pan_id_compress = true;
    h.dst_pan = h.src_pan = PAN;
    h.dst.mode = MIP_802154_ADDR_SHORT;
    h.dst.short_addr = (addr & 0x18u) == 0x08u || (addr & 0x18u) == 0x10u ? 0xFFFFu : OUR_SHORT;
    h.src.mode = MIP_802154_ADDR_SHORT;
    h.src.short_addr = from;
    if (mip_ieee802154_emit(&h, frame, sizeof frame, &hl) != MIP_OK ||
        hl + 1u + 40u + n > MIP_RADIO_FRAME_MAX)
        return;
    frame[hl] = 0x41;
    memset(&ip, 0, sizeof ip);
    ip.payload_len = (uint16_t)n;
    ip.next_header = 58;
    ip.hop_limit = 255;
    if (addr & 4u) {
        ip.src[0] = 0xfe;
        ip.src[1] = 0x80;
        ip.src[11] = 0xff;
        ip.src[12] = 0xfe;
        ip.src[15] = (uint8_t)from;
    }
    memcpy(ip.dst, dsts[(addr >> 3) & 3u], 16);
    if (mip_ipv6_emit(&ip, frame + hl + 1u, 40) != MIP_OK)
        return;
    memcpy(frame + hl + 41u, msg, n);
    mip_stack_input(s, 0, frame, hl + 41u + n, now);
}

/* The router's NA answering the host's registration (the record's bytes
 * as the header says), input from short 2 to the address registered, then
 * checked against what the host must have done with it. */
static void answer_registration(struct mip_stack *s, mip_time_t now, const uint8_t *b,
                                size_t n)
{
    struct mip_nd6lo_hreg *h, before;
    struct mip_netif *nif = mip_netif_get(s, 0);
    struct mip_nd_earo e;
    uint8_t msg[64], target[16], st;
    size_t w = 0;
    bool own_tid, had;
    h = &s->nd6lo.hreg[(n > 0 ? b[0] : 0u) % MIP_NETIF_ADDR6_MAX];
    if (h->slot == 0u || !nif->addr6[h->slot].used)
        return;
    memcpy(target, nif->addr6[h->slot].addr, 16);
    memset(&e, 0, sizeof e);
    e.status = st = n > 1 ? b[1] % 10u : 0u;
    e.t = true;
    own_tid = !(n > 2 && (b[2] & 1u));
    e.tid = (uint8_t)(h->tid ^ (own_tid ? 0u : 1u));
    e.lifetime_min = n > 3 ? b[3] : 5u;
    e.rovr_len = 8;
    memcpy(e.rovr, nif->lowpan.ext_addr, 8);
    memset(msg, 0, 24);
    msg[0] = 136;                       /* NA */
    msg[4] = 0x40;                      /* S */
    memcpy(msg + 8, target, 16);
    CHECKF(mip_nd_earo_emit(&e, msg + 24, sizeof msg - 24, &w) == MIP_OK);
    before = *h;
    had = before.state == MIP_ND6LO_H_REGISTERING;
    /* from the router's link-local address (short 2) to ours: a solicited
     * NA (S) may not go to a multicast group (RFC 4861 7.1.2) */
    input_record(s, now, 4u, msg, 24 + w);
    if (!had || !own_tid) {
        CHECKF(memcmp(h, &before, sizeof before) == 0);   /* not an answer */
        return;
    }
    if (st == MIP_ARO_SUCCESS) {
        CHECKF(h->state == MIP_ND6LO_H_REGISTERED && h->granted_min == e.lifetime_min);
    } else if (st == MIP_ARO_DUPLICATE) {
        CHECKF(h->slot == 0u && !nif->addr6[before.slot].used);
    } else {
        CHECKF(h->state == MIP_ND6LO_H_WAIT && h->left_ms > 0u);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct mip_stack s;
    static struct mip_nd6lo_router_config rc;
    struct mip_lowpan_config c;
    struct mip_addr me;
    mip_time_t now = 1000;
    size_t i = 1;
    unsigned k;
    uint8_t idx;
    bool router;
    if (size < 1)
        return 0;
    router = (data[0] & 1u) != 0;
    sent = 0;
    mip_stack_init(&s, NULL, now);
    memset(&c, 0, sizeof c);
    c.mode = MIP_LOWPAN_IPHC;
    c.pan_id = PAN;
    c.short_addr = OUR_SHORT;
    c.ext_addr[7] = 1;
    c.frame_max = 127;
    CHECKF(mip_netif_add_lowpan(&s, &c, &drv, NULL, &idx) == MIP_OK);
    if (router) {
        memset(&rc, 0, sizeof rc);
        rc.prefix[0] = 0xfd;
        rc.prefix_len = 64;
        rc.valid_s = 3600;
        rc.preferred_s = 1800;
        rc.router_lifetime_s = 600;
        rc.abro_version = 1;
        rc.max_reg_lifetime_min = 10;
        rc.ctx_count = 1;
        rc.ctx[0].cid = 1;
        rc.ctx[0].compress = true;
        rc.ctx[0].lifetime_min = 5;
        rc.ctx[0].prefix[0] = 0xfd;
        memset(&me, 0, sizeof me);
        me.family = MIP_AF_INET6;
        me.bytes[0] = 0xfd;
        me.bytes[11] = 0xff;
        me.bytes[12] = 0xfe;
        me.bytes[15] = 1;
        CHECKF(mip_netif_add_addr(&s, 0, &me, 64) == MIP_OK);
        CHECKF(mip_nd6lo_router_start(&s, 0, &rc) == MIP_OK);
    } else {
        CHECKF(mip_nd6lo_host_start(&s, 0, now) == MIP_OK);
    }
    while (i + 3u <= size) {
        uint8_t step = data[i], addr = data[i + 1], n = data[i + 2];
        i += 3u;
        if (n > size - i)
            n = (uint8_t)(size - i);
        now += (mip_time_t)step * 250u;
        (void)mip_stack_poll(&s, now);
        if (!router && (addr & 0x80u))
            answer_registration(&s, now, data + i, n);
        else
            input_record(&s, now, addr, data + i, n);
        i += n;
        if (router) {
            for (k = 0; k < MIP_ND6LO_REG_MAX; k++) {
                const struct mip_nd6lo_reg *r = &s.nd6lo.reg[k];
                CHECKF(r->state <= MIP_ND6LO_REG_REGISTERED);
                CHECKF(r->left_ms <= 10u * 60000u);
            }
        }
    }
    /* every timer runs out: two days in hourly polls */
    for (k = 0; k < 48; k++) {
        now += 3600u * 1000u;
        (void)mip_stack_poll(&s, now);
    }
    CHECKF(s.pool.in_use == 0);
    CHECKF(!mip_stack_awaits_reply(&s));
    return 0;
}
