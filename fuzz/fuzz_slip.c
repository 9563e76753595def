/*
 * libFuzzer harness: SLIP (wire/slip.h) and the SLIP netif (netif.h).
 *
 * Input: [0] bits 0-1: the codec part's buffer size (1, 7, 64 or 1280
 *            bytes); [1] seed of the chunk sizes; then the bytes of a
 *            serial line.
 *
 * 1. The codec: the line is decoded in chunks of 1..32 bytes (from the
 *    seed), each an exact-size heap copy, and the events must equal those
 *    of a byte-at-a-time reference decoder written here from RFC 1055 and
 *    the header's rules. Every call consumes 1..n bytes, MORE only when it
 *    consumed all; every frame is 1..cap bytes and survives encode ->
 *    decode unchanged, with mip_slip_encoded_len right.
 * 2. The netif: the same line, chunked the same way, goes to a stack
 *    (full profile, SLIP netif with MTU 1280, fd00::2/64 and 192.0.2.2/24,
 *    forwarding off). Its counters must agree with the reference decoder
 *    at 1280 bytes (rx_frames = frames, drop_slip_too_big, drop_slip_bad_escape);
 *    what it writes to the line must decode without any error into IPv4 or
 *    IPv6 datagrams of at most 1280 bytes, one per tx_frames; and after the
 *    timers run out every packet buffer is back.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/moteip.h"
#include "moteip/wire/slip.h"

#include "fuzz_check.h"

#define MTU      1280u
#define OUT_MAX  (3u * 65536u)
#define LINE_OUT (1u << 20)

/* Events as bytes: 'F' + 2-byte length + frame, 'T', 'E'. */
struct events {
    uint8_t b[OUT_MAX];
    size_t  len;
    unsigned frames, too_big, bad_escape;
};

static void ev_frame(struct events *e, const uint8_t *f, size_t n)
{
    CHECKF(e->len + 3 + n <= sizeof e->b);
    e->b[e->len++] = 'F';
    e->b[e->len++] = (uint8_t)(n >> 8);
    e->b[e->len++] = (uint8_t)n;
    memcpy(e->b + e->len, f, n);
    e->len += n;
    e->frames++;
}

static void ev_mark(struct events *e, uint8_t m)
{
    CHECKF(e->len < sizeof e->b);
    e->b[e->len++] = m;
    if (m == 'T')
        e->too_big++;
    else
        e->bad_escape++;
}

/* The reference: one byte at a time, states as booleans. */
static void ref_decode(const uint8_t *in, size_t n, size_t cap, struct events *e)
{
    static uint8_t frame[MTU];
    size_t len = 0, i;
    bool esc = false, skip = false;

    for (i = 0; i < n; i++) {
        uint8_t b = in[i], c;
        if (skip) {
            skip = b != 0xC0;
            continue;
        }
        if (esc) {
            esc = false;
            if (b == 0xDC) {
                c = 0xC0;
            } else if (b == 0xDD) {
                c = 0xDB;
            } else {
                ev_mark(e, 'E');
                len = 0;
                skip = b != 0xC0;
                continue;
            }
        } else if (b == 0xC0) {
            if (len > 0)
                ev_frame(e, frame, len);
            len = 0;
            continue;
        } else if (b == 0xDB) {
            esc = true;
            continue;
        } else {
            c = b;
        }
        if (len == cap) {
            ev_mark(e, 'T');
            len = 0;
            skip = true;
            continue;
        }
        frame[len++] = c;
    }
}

struct chunker {
    uint32_t x;
};

static size_t next_chunk(struct chunker *c, size_t left)
{
    size_t k;
    c->x = c->x * 1103515245u + 12345u;
    k = 1 + (c->x >> 16) % 32;
    return k < left ? k : left;
}

struct buf_sink {
    uint8_t *p;
    size_t len, cap;
};

static mip_status buf_write(void *ctx, const uint8_t *bytes, size_t len)
{
    struct buf_sink *b = ctx;
    CHECKF(len > 0);
    if (b->len + len > b->cap)
        return MIP_ERR_NOSPACE;
    memcpy(b->p + b->len, bytes, len);
    b->len += len;
    return MIP_OK;
}

static void check_round_trip(const uint8_t *f, size_t n)
{
    static uint8_t enc[2 * MTU + 2], dec[MTU];
    struct buf_sink b = { enc, 0, sizeof enc };
    struct mip_slip_dec d;
    enum mip_slip_event ev;
    size_t used;

    CHECKF(mip_slip_encode(f, n, buf_write, &b) == MIP_OK);
    CHECKF(b.len == mip_slip_encoded_len(f, n));
    mip_slip_dec_init(&d, dec, (uint16_t)n);
    used = mip_slip_decode(&d, enc, b.len, &ev);
    CHECKF(ev == MIP_SLIP_FRAME && used == b.len);
    CHECKF(d.len == n && memcmp(dec, f, n) == 0);
}

static void codec_part(const uint8_t *line, size_t n, uint16_t cap, uint8_t seed)
{
    static struct events got, want;
    static uint8_t buf[MTU];
    struct mip_slip_dec d;
    struct chunker ch = { seed };
    size_t pos = 0;

    memset(&got, 0, sizeof got);
    memset(&want, 0, sizeof want);
    ref_decode(line, n, cap, &want);
    mip_slip_dec_init(&d, buf, cap);
    while (pos < n) {
        size_t k = next_chunk(&ch, n - pos), off = 0;
        uint8_t *copy = malloc(k);
        memcpy(copy, line + pos, k);
        while (off < k) {
            enum mip_slip_event ev;
            size_t used = mip_slip_decode(&d, copy + off, k - off, &ev);
            CHECKF(used >= 1 && used <= k - off);
            off += used;
            if (ev == MIP_SLIP_MORE) {
                CHECKF(off == k);
            } else if (ev == MIP_SLIP_FRAME) {
                CHECKF(d.len >= 1 && d.len <= cap && d.buf == buf);
                ev_frame(&got, d.buf, d.len);
                check_round_trip(d.buf, d.len);
            } else {
                CHECKF(ev == MIP_SLIP_TOO_BIG || ev == MIP_SLIP_BAD_ESCAPE);
                ev_mark(&got, ev == MIP_SLIP_TOO_BIG ? 'T' : 'E');
            }
        }
        free(copy);
        pos += k;
    }
    CHECKF(got.len == want.len && memcmp(got.b, want.b, got.len) == 0);
}

static void netif_part(const uint8_t *line, size_t n, uint8_t seed)
{
    static const uint8_t iid[8] = {0x02, 0, 0, 0xFF, 0xFE, 0, 0, 2};
    static struct mip_stack s;
    static struct mip_slip sl;
    static uint8_t rx[MTU], out[LINE_OUT];
    static struct events want, sent;
    struct buf_sink line_out = { out, 0, sizeof out };
    struct mip_slip_config cfg = { rx, MTU, iid, buf_write, &line_out };
    struct chunker ch = { seed };
    struct mip_addr a;
    uint8_t plen;
    mip_time_t now = 0xFFFFFFFFu - 20000u;   /* the clock wraps during the run */
    size_t pos = 0, i;

    memset(&want, 0, sizeof want);
    memset(&sent, 0, sizeof sent);
    ref_decode(line, n, MTU, &want);
    mip_stack_init(&s, NULL, now);
    CHECKF(mip_netif_add_slip(&s, &sl, &cfg, NULL) == MIP_OK);
    CHECKF(mip_addr_parse("fd00::2", &a, &plen) == MIP_OK);
    CHECKF(mip_netif_add_addr(&s, sl.netif, &a, 64) == MIP_OK);
    CHECKF(mip_addr_parse("192.0.2.2", &a, &plen) == MIP_OK);
    CHECKF(mip_netif_add_addr(&s, sl.netif, &a, 24) == MIP_OK);
    while (pos < n) {
        size_t k = next_chunk(&ch, n - pos);
        uint8_t *copy = malloc(k);
        memcpy(copy, line + pos, k);
        now += 7;
        (void)mip_stack_poll(&s, now);
        mip_slip_input(&s, &sl, copy, k, now);
        free(copy);
        pos += k;
    }
    for (i = 0; i < 8; i++)
        (void)mip_stack_poll(&s, now += 60000u);
    CHECKF(s.pool.in_use == 0);
    CHECKF(mip_stack_stat(&s, MIP_STAT_rx_frames) == want.frames);
    CHECKF(mip_stack_stat(&s, MIP_STAT_drop_slip_too_big) == want.too_big);
    CHECKF(mip_stack_stat(&s, MIP_STAT_drop_slip_bad_escape) == want.bad_escape);

    /* what the stack wrote: whole frames, IP, at most the MTU */
    if (line_out.len < sizeof out) {
        ref_decode(out, line_out.len, MTU, &sent);
        CHECKF(sent.too_big == 0 && sent.bad_escape == 0);
        CHECKF(sent.frames == mip_stack_stat(&s, MIP_STAT_tx_frames));
        CHECKF(line_out.len == 0 || out[line_out.len - 1] == 0xC0);
        for (i = 0; i < sent.len;) {
            size_t fl = ((size_t)sent.b[i + 1] << 8) | sent.b[i + 2];
            uint8_t v = sent.b[i + 3] >> 4;
            CHECKF(sent.b[i] == 'F' && fl >= 20 && fl <= MTU && (v == 4 || v == 6));
            i += 3 + fl;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint16_t caps[4] = { 1, 7, 64, MTU };
    if (size < 2)
        return 0;
    codec_part(data + 2, size - 2, caps[data[0] & 3], data[1]);
    netif_part(data + 2, size - 2, data[1]);
    return 0;
}
