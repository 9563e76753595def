/*
 * libFuzzer harness: RFC 8930 fragment forwarding (src/core/lowpan_frag.c)
 * on one forwarding node, with reassembly behind it for what fragment
 * forwarding leaves to the full path.
 *
 * The node: one IPHC radio netif in MIP_LOWPAN_FRAG_FORWARD mode, PAN
 * 0xABCD, short address 0x0002, fd00::ff:fe00:2/64 (context 0 fd00::/64),
 * frames of at most 127 bytes; fd00::ff:fe00:9 is reached through short 3
 * (a host route), the rest of fd00::/64 on-link, everything else through
 * fd00::ff:fe00:1. Forwarding on, a UDP sink on port 7, no forward hook.
 *
 * Input: at most 256 records
 *     [1 byte  time step: t < 200: t * 5 ms, else (t - 199) s]
 *     [2 bytes big-endian: bit 15 = the driver has no room while this
 *              record is processed, bit 14 = it refuses every frame;
 *              bits 0..13 = length]
 *     [length bytes: a frame (no FCS) handed to mip_stack_input]
 *
 * What traps, besides ASan/UBSan:
 *  - a frame sent longer than 125 bytes, with an MHR that does not parse,
 *    not from our short address, or a fragment to the broadcast address;
 *  - fragment forwarding that is not faithful: every fragment the VRB sends
 *    (lowpan_frag_forwarded counts them; one input sends VRB frames only or
 *    none) must carry exactly the uncompressed bytes the input fragment
 *    carried, at the same offsets under the same datagram_size, the hop
 *    limit one lower in a first fragment; a first fragment's header must
 *    decompress for the next hop; no 8-byte block of one outgoing datagram
 *    (our tag) is sent twice;
 *  - after every record: every used reassembly slot and VRB entry within
 *    its lifetime, its bitmap covering exactly `received` bytes, fewer
 *    than `size`; VRB entries sending on a radio netif to a unicast
 *    address;
 *  - at the end, after every timer ran out: no slot, no entry, no packet
 *    buffer left.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "moteip/stack.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/sixlowpan.h"

#if MIP_LOWPAN_VRB_SLOTS > 0

#define MAX_RECORDS 256
#define OUT_TAGS 32
#define T0 (0xFFFFFFFFu - 20000u)     /* the clock wraps during the run */
#define ME 0x0002u

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "CHECK FAILED: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

#define CHECK(cond, ...)              \
    do {                              \
        if (!(cond))                  \
            fail(__VA_ARGS__);        \
    } while (0)

/* The uncompressed bytes a fragment carries: span[0..len) at offset off of
 * a datagram of `size` bytes. */
struct span {
    bool     first;
    uint16_t size, tag, off;
    size_t   len;
    uint8_t  bytes[MIP_RADIO_FRAME_MAX + MIP_LOWPAN_UNCOMP_MAX];
};

/* Blocks of one outgoing datagram already sent. */
struct out_dgram {
    bool     used;
    uint16_t tag;
    uint8_t  blocks[MIP_LOWPAN_DGRAM_MAX / 64];
};

static struct {
    struct mip_stack s;
    uint32_t now;
    bool no_room, refuse;
    /* the current input, decoded (valid when in_ok) */
    bool in_ok;
    struct span in;
    /* frames sent during the current input */
    struct span sent[4];
    unsigned nsent, nframes;
    struct out_dgram out[OUT_TAGS];
    unsigned out_next;
} H;

static const uint8_t ctx0[8] = { 0xfd, 0, 0, 0, 0, 0, 0, 0 };

static void env_of(const struct mip_802154_addr *src, const struct mip_802154_addr *dst,
                   struct mip_lowpan_env *env)
{
    memset(env, 0, sizeof *env);   /* the switches added later stay off */
    env->src = src;
    env->dst = dst;
    env->ctx = &ctx0;
    env->ctx_count = 1;
    env->ctx_absent = 0;
    env->ctx_nocomp = 0;
}

/* Decodes a FRAG1/FRAGN frame into its uncompressed span; false for
 * anything else or what does not decode. */
static bool span_of(const uint8_t *frame, size_t len, struct mip_802154_hdr *h, struct span *sp)
{
    struct mip_lowpan_frag f;
    struct mip_lowpan_env env;
    size_t hl, fl, consumed, ul;
    if (mip_ieee802154_parse(frame, len, h, &hl) != MIP_OK || hl >= len)
        return false;
    if (mip_lowpan_frag_parse(frame + hl, len - hl, &f, &fl) != MIP_OK)
        return false;
    sp->first = f.first;
    sp->size = f.size;
    sp->tag = f.tag;
    sp->off = f.offset;
    frame += hl + fl;
    len -= hl + fl;
    if (len > MIP_RADIO_FRAME_MAX)
        return false;     /* longer than any frame the netif takes */
    if (!f.first) {
        memcpy(sp->bytes, frame, len);
        sp->len = len;
        return true;
    }
    if (len == 0 || mip_lowpan_dispatch_of(frame[0]) != MIP_LOWPAN_D_IPHC)
        return false;
    env_of(&h->src, &h->dst, &env);
    if (mip_lowpan_iphc_decompress(frame, len, &env, f.size, sp->bytes, sizeof sp->bytes,
                                   &consumed, &ul) != MIP_OK)
        return false;
    memcpy(sp->bytes + ul, frame + consumed, len - consumed);
    sp->len = ul + len - consumed;
    return true;
}

static struct out_dgram *out_of(uint16_t tag)
{
    struct out_dgram *o;
    unsigned i;
    for (i = 0; i < OUT_TAGS; i++)
        if (H.out[i].used && H.out[i].tag == tag)
            return &H.out[i];
    o = &H.out[H.out_next++ % OUT_TAGS];
    memset(o, 0, sizeof(*o));
    o->used = true;
    o->tag = tag;
    return o;
}

static mip_status drv_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct mip_802154_hdr h;
    size_t hl;
    (void)ctx;
    CHECK(frame != NULL && len <= 125u, "frame of %zu bytes", len);
    CHECK(mip_ieee802154_parse(frame, len, &h, &hl) == MIP_OK, "MHR sent that does not parse");
    CHECK(h.src.mode == MIP_802154_ADDR_SHORT && h.src.short_addr == ME,
          "frame not from our short address");
    if (H.refuse)
        return MIP_ERR_NOBUFS;
    H.nframes++;
    if (H.nsent < 4u) {
        struct span *sp = &H.sent[H.nsent];
        if (span_of(frame, len, &h, sp))
            H.nsent++;
        else
            sp->len = (size_t)-1;   /* not a fragment */
    }
    return MIP_OK;
}

static size_t drv_room(void *ctx)
{
    (void)ctx;
    return H.no_room ? 0u : 64u;
}

static const struct mip_netif_driver drv = { drv_transmit, drv_room, NULL };

static void sink(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                 const uint8_t *data, size_t len)
{
    volatile uint8_t x = 0;
    size_t i;
    (void)ctx;
    (void)s;
    (void)m;
    for (i = 0; i < len; i++)
        x ^= data[i];
    (void)x;
}

static void addr6(const char *text, struct mip_addr *a)
{
    CHECK(mip_addr_parse(text, a, NULL) == MIP_OK, "address %s", text);
}

static void node_init(void)
{
    struct mip_stack_config sc;
    struct mip_lowpan_config c;
    struct mip_addr a, gw;
    uint8_t idx, seed[4] = { 1, 2, 3, 4 };
    memset(&H, 0, sizeof(H));
    H.now = T0;
    memset(&sc, 0, sizeof sc);
    sc.entropy = seed;
    sc.entropy_len = sizeof seed;
    sc.forwarding = true;
    mip_stack_init(&H.s, &sc, H.now);
    memset(&c, 0, sizeof c);
    c.mode = MIP_LOWPAN_IPHC;
    c.pan_id = 0xABCD;
    c.short_addr = ME;
    c.ext_addr[0] = 0x02;
    c.ext_addr[7] = 0x02;
    c.frame_max = 127;
    c.ack_request = true;
    c.has_context0 = true;
    memcpy(c.ctx0_prefix, ctx0, 8);
    c.frag_mode = MIP_LOWPAN_FRAG_FORWARD;
    CHECK(mip_netif_add_lowpan(&H.s, &c, &drv, NULL, &idx) == MIP_OK, "netif");
    addr6("fd00::ff:fe00:2", &a);
    CHECK(mip_netif_add_addr(&H.s, idx, &a, 64) == MIP_OK, "address");
    addr6("fd00::ff:fe00:9", &a);
    addr6("fd00::ff:fe00:3", &gw);
    CHECK(mip_route_add(&H.s, &a, 128, &gw, idx) == MIP_OK, "host route");
    addr6("::", &a);
    addr6("fd00::ff:fe00:1", &gw);
    CHECK(mip_route_add(&H.s, &a, 0, &gw, idx) == MIP_OK, "default route");
    CHECK(mip_udp_bind(&H.s, 7, sink, NULL) == MIP_OK, "udp");
}

static void check_records(void)
{
    unsigned i, b;
    for (i = 0; i < MIP_LOWPAN_REASS_SLOTS + MIP_LOWPAN_VRB_SLOTS; i++) {
        const struct mip_lowpan_dgram *r = i < MIP_LOWPAN_REASS_SLOTS
                                               ? &H.s.lowpan_reass[i].d
                                               : &H.s.lowpan_vrb[i - MIP_LOWPAN_REASS_SLOTS].d;
        unsigned bytes = 0;
        if (!r->used)
            continue;
        CHECK(r->size >= 1u && r->size <= MIP_LOWPAN_DGRAM_MAX, "record %u size %u", i, r->size);
        CHECK(r->received < r->size, "record %u holds %u of %u bytes", i, r->received, r->size);
        CHECK(!mip_time_before(H.s.now, r->last) &&
                  !mip_time_before(r->last, r->deadline - MIP_LOWPAN_REASS_TIMEOUT_MS),
              "record %u: last fragment outside its lifetime", i);
        for (b = 0; b < MIP_LOWPAN_DGRAM_MAX / 8u; b++)
            if (r->bitmap[b / 8u] & (1u << (b % 8u)))
                bytes += 8u * b + 8u <= r->size ? 8u : r->size - 8u * b;
        CHECK(bytes == r->received, "record %u: bitmap %u bytes, received %u", i, bytes,
              r->received);
        if (i >= MIP_LOWPAN_REASS_SLOTS) {
            const struct mip_lowpan_vrb *v = &H.s.lowpan_vrb[i - MIP_LOWPAN_REASS_SLOTS];
            CHECK(v->out_netif == 0, "VRB entry %u sends on netif %u", i, v->out_netif);
            CHECK(!(v->next_mode == MIP_802154_ADDR_SHORT && v->next_short == 0xFFFFu),
                  "VRB entry %u forwards to the broadcast address", i);
        }
    }
}

/* The frames the VRB sent for the current input carry its bytes. */
static void check_forwarded(unsigned fwd)
{
    size_t covered = 0;
    unsigned i;
    CHECK(fwd == 0 || fwd == H.nframes, "%u of %u frames sent were forwarded fragments", fwd,
          H.nframes);
    if (fwd == 0)
        return;
    CHECK(H.in_ok, "fragments forwarded for an input that is not one");
    CHECK(H.nsent == fwd, "forwarded %u frames, %u of them fragments", fwd, H.nsent);
    CHECK(fwd <= (H.in.first ? 2u : 1u), "one input forwarded as %u frames", fwd);
    for (i = 0; i < H.nsent; i++) {
        const struct span *o = &H.sent[i];
        struct out_dgram *od = out_of(o->tag);
        size_t at, b;
        CHECK(o->size == H.in.size, "forwarded under size %u, came with %u", o->size, H.in.size);
        CHECK(o->first == (H.in.first && i == 0), "first fragment flag");
        CHECK(o->off == H.in.off + covered, "forwarded at offset %u, expected %zu", o->off,
              H.in.off + covered);
        CHECK(covered + o->len <= H.in.len, "forwarded more bytes than came");
        for (at = 0; at < o->len; at++) {
            uint8_t want = H.in.bytes[covered + at];
            if (H.in.first && covered + at == 7u)
                want = (uint8_t)(want - 1u);
            CHECK(o->bytes[at] == want, "forwarded byte %zu differs", covered + at);
        }
        for (b = o->off / 8u; b < (o->off + o->len + 7u) / 8u; b++) {
            CHECK(!(od->blocks[b / 8u] & (1u << (b % 8u))), "block %zu of tag %u sent twice", b,
                  o->tag);
            od->blocks[b / 8u] |= (uint8_t)(1u << (b % 8u));
        }
        covered += o->len;
    }
    CHECK(covered == H.in.len, "forwarded %zu of %zu bytes", covered, H.in.len);
}

static void advance(uint32_t ms)
{
    uint32_t end = H.now + ms, d;
    unsigned guard;
    for (guard = 0; guard < 1000u; guard++) {
        d = mip_stack_poll(&H.s, H.now);
        if (d == MIP_POLL_IDLE || (uint32_t)(end - H.now) < (d ? d : 1u) ||
            (int32_t)(end - H.now) <= 0)
            break;
        H.now += d ? d : 1u;
    }
    H.now = end;
    (void)mip_stack_poll(&H.s, H.now);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t pos = 0;
    unsigned nrec = 0;
    node_init();
    while (pos + 3u <= size && nrec++ < MAX_RECORDS) {
        uint8_t t = data[pos];
        uint16_t w = mip_rd16(data + pos + 1u);
        size_t len = w & 0x3FFFu;
        uint32_t before;
        uint8_t *frame;
        struct mip_802154_hdr h;
        pos += 3u;
        if (len > size - pos)
            len = size - pos;
        advance(t < 200u ? t * 5u : (t - 199u) * 1000u);
        H.no_room = (w & 0x8000u) != 0;
        H.refuse = (w & 0x4000u) != 0;
        H.nsent = H.nframes = 0;
        H.in_ok = span_of(data + pos, len, &h, &H.in);
        frame = malloc(len ? len : 1u);
        memcpy(frame, data + pos, len);
        before = mip_stack_stat(&H.s, MIP_STAT_lowpan_frag_forwarded);
        mip_stack_input(&H.s, 0, frame, len, H.now);
        free(frame);
        if (!H.refuse)
            check_forwarded(mip_stack_stat(&H.s, MIP_STAT_lowpan_frag_forwarded) - before);
        H.no_room = H.refuse = false;
        check_records();
        pos += len;
    }
    advance(10u * 60u * 1000u);
    check_records();
    {
        unsigned i;
        for (i = 0; i < MIP_LOWPAN_REASS_SLOTS; i++)
            CHECK(!H.s.lowpan_reass[i].d.used, "reassembly slot %u still used", i);
        for (i = 0; i < MIP_LOWPAN_VRB_SLOTS; i++)
            CHECK(!H.s.lowpan_vrb[i].d.used, "VRB entry %u still used", i);
    }
    CHECK(H.s.pool.in_use == 0, "%u packet buffers still in use", H.s.pool.in_use);
    return 0;
}

#else
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)data;
    (void)size;
    return 0;
}
#endif
