/*
 * libFuzzer harness: the relay (src/relay/: TSS, DTC, CCTRL) on one
 * forwarding node.
 *
 * The node (short address 5, 10.0.0.5 / fd00::ff:fe00:5) has one RAW_IP
 * radio netif with a 12-byte link header; 10.0.2.0/24 and fd02::/64 are
 * reached through short 4 (the successor), 10.0.1.0/24 and fd01::/64
 * through short 6 (the upstream neighbour). A struct mip_relay (mode and
 * config from the first two input bytes) sits on its forward hook.
 *
 * Input: [config byte][mode byte] then at most 64 operations, `op % 7`:
 *   0  [sel][len16][bytes]   bytes as an IP datagram in a frame from short 4
 *                            (sel bit 0) or 6 to us: the forward hook path
 *   1  [sel][len16][bytes]   the same, overheard: from short 4 / 6 / 9 to 3
 *   2  [len16][bytes]        a raw frame, overheard
 *   3  [t]                   time passes (t < 200: t * 5 ms, else (t - 199) s),
 *                            the node polled at every deadline on the way
 *   4  [7 bytes]             a well-formed TCP segment (fields below), input
 *   5  [7 bytes]             the same, overheard from the next hop it names
 *   6  [7 bytes][ok]         the same segment, as a frame this node sent to
 *                            the next hop it names, reported by the link
 *                            layer as ACKed (ok bit 0) or not
 * Segment bytes: b0 bit 0 IPv6, bit 1 D -> S, bits 2-3 source port
 * 1000 + n, bits 4-7 flags (table `seg_flags`); b1-b2 seq offset, b3-b4
 * ack offset (from 1000 / 5000); b5 payload length (& 63), bits 6-7 the
 * overheard sender (next hop / other); b6 IP ID / flow label, bit 7 adds
 * a timestamps option, bit 6 SACK: SACK-permitted on a SYN, else one block
 * [ack + 16 * (b6 & 7), + 16 * (1 + (b6 >> 3 & 7))).
 *
 * Config byte: bits 0-2 max_local_rexmit (0..7), bit 3 no backpressure,
 * bit 4 forward_delay 0, bit 5 alpha 1/4, bit 6 rto_min 1 ms, bit 7: op 0
 * with sel bit 1 offers its bytes to the local hook as the node's own
 * outbound datagram instead (TSS at the source), and op 4 makes the node
 * S: S's segments go to the local hook as the node's own, outbound, D's as
 * delivered to it (since session 16: the relay's path for segments
 * delivered to its node, tss_local_in, matched no flow in any run, since
 * that needs the 16-bit ports of an outbound flow reversed, and libFuzzer
 * keeps no 16-bit comparison operands).
 * Mode byte: bits 0-1 mode (1 DTC, 2 CCTRL, else TSS), bit 2 DTC without
 * SACK signalling, bits 3-6 the CCTRL extensions keep, drop, hop, activity
 * (bit 3 in TSS: tss_ack_release; in DTC: ack_repair_wait, with bit 7),
 * bit 7 our extensions (DTC endpoints, ack_repair, CCTRL link).
 * MOTEIP_FUZZ_VERBOSE=1 prints the relay's counters at the end of a run.
 *
 * What traps, besides ASan/UBSan:
 *  - every TCP segment the node sends carries an ACK number that a datagram
 *    given to the forward hook path carried for the same connection
 *    direction (a regenerated ACK never acknowledges what dst did not);
 *    its TCP checksum is right unless it copies an input whose checksum
 *    was wrong (the fuzz build does not verify received checksums);
 *  - after every operation: slots and flows within their bounds, each slot
 *    naming a used flow, at most one cache and one buffer per flow, slot
 *    lengths within MIP_RELAY_DGRAM_MAX; DTC holds at most one segment;
 *    poll's delay is not 0 twice in a row at the same time;
 *  - at the end, after every timer ran out: no flow, no slot, no packet
 *    buffer left.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "moteip/stack.h"
#include "moteip/relay.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/tcp.h"

#define MAX_OPS 64
#define MAX_ACKS 256
#define T0 (0xFFFFFFFFu - 20000u)     /* the clock wraps during the run */

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

/* A connection direction and an ACK number seen in input. */
struct seen_ack {
    uint8_t family;
    uint8_t src[16], dst[16];
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t cksum_ok;
};

static struct {
    struct mip_stack s;
    struct mip_relay r;
    struct seen_ack acks[MAX_ACKS];
    unsigned nacks;
    uint32_t now;
} H;

/* A TCP segment in an IP datagram, read with the wire codecs (lenient: no
 * option, fragment or checksum checks beyond what is said). */
struct tseg {
    uint8_t family;
    uint8_t src[16], dst[16];
    struct mip_tcp_hdr h;
    uint8_t cksum_ok;
};

static int read_tcp(const uint8_t *ip, size_t len, struct tseg *t)
{
    size_t l3, l4len;
    uint32_t sum;
    memset(t, 0, sizeof(*t));
    if (len < 1)
        return 0;
    if ((ip[0] >> 4) == 4) {
        struct mip_ipv4_hdr h;
        if (mip_ipv4_parse(ip, len, &h) != MIP_OK || h.proto != MIP_IPPROTO_TCP)
            return 0;
        t->family = 4;
        memcpy(t->src, h.src, 4);
        memcpy(t->dst, h.dst, 4);
        l3 = h.hdr_len;
        l4len = (size_t)h.total_len - l3;
        sum = mip_cksum_pseudo4(h.src, h.dst, MIP_IPPROTO_TCP, (uint16_t)l4len);
    } else if ((ip[0] >> 4) == 6) {
        struct mip_ipv6_hdr h;
        struct mip_ipv6_walk w;
        if (mip_ipv6_parse(ip, len, &h) != MIP_OK)
            return 0;
        if (mip_ipv6_walk_ext(ip, 40u + h.payload_len, h.next_header, 40, true, &w) != MIP_OK ||
            w.upper_proto != MIP_IPPROTO_TCP || w.upper_offset > 40u + h.payload_len)
            return 0;
        t->family = 6;
        memcpy(t->src, h.src, 16);
        memcpy(t->dst, h.dst, 16);
        l3 = w.upper_offset;
        l4len = 40u + h.payload_len - l3;
        sum = mip_cksum_pseudo6(h.src, h.dst, MIP_IPPROTO_TCP, (uint32_t)l4len);
    } else {
        return 0;
    }
    if (mip_tcp_parse(ip + l3, l4len, &t->h) != MIP_OK)
        return 0;
    t->cksum_ok = mip_cksum_finish(mip_cksum_add(sum, ip + l3, l4len)) == 0;
    return 1;
}

static void note_input(const uint8_t *ip, size_t len)
{
    struct tseg t;
    struct seen_ack *a;
    if (!read_tcp(ip, len, &t) || !(t.h.flags & MIP_TCP_ACK) || H.nacks >= MAX_ACKS)
        return;
    a = &H.acks[H.nacks++];
    a->family = t.family;
    memcpy(a->src, t.src, 16);
    memcpy(a->dst, t.dst, 16);
    a->sport = t.h.src_port;
    a->dport = t.h.dst_port;
    a->seq = t.h.seq;
    a->ack = t.h.ack;
    a->cksum_ok = t.cksum_ok;
}

static mip_status drv_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct tseg t;
    unsigned i;
    int found = 0, bad_copy = 0;
    (void)ctx;
    CHECK(len >= 10, "frame of %zu bytes", len);
    if (!read_tcp(frame + 10, len - 10, &t) || !(t.h.flags & MIP_TCP_ACK))
        return MIP_OK;
    for (i = 0; i < H.nacks; i++) {
        const struct seen_ack *a = &H.acks[i];
        if (a->family != t.family || a->sport != t.h.src_port || a->dport != t.h.dst_port ||
            memcmp(a->src, t.src, 16) != 0 || memcmp(a->dst, t.dst, 16) != 0 ||
            a->ack != t.h.ack)
            continue;
        found = 1;
        if (!a->cksum_ok && a->seq == t.h.seq)
            bad_copy = 1;
    }
    CHECK(found, "sent a TCP segment with ACK %u never seen from its source (ports %u -> %u)",
          (unsigned)t.h.ack, t.h.src_port, t.h.dst_port);
    CHECK(t.cksum_ok || bad_copy, "sent a TCP segment (ack %u) with a wrong checksum",
          (unsigned)t.h.ack);
    return MIP_OK;
}

static const struct mip_netif_driver drv = { drv_transmit, NULL, NULL };

static void check_relay(void)
{
    unsigned i, j;
    for (i = 0; i < MIP_RELAY_SLOTS; i++) {
        const struct mip_relay_slot *sl = &H.r.slots[i];
        if (sl->used == MIP_RELAY_SLOT_FREE)
            continue;
        CHECK(sl->used == MIP_RELAY_SLOT_CACHE || sl->used == MIP_RELAY_SLOT_BUFFER ||
                  sl->used == MIP_RELAY_SLOT_QUEUE,
              "slot %u kind %u", i, sl->used);
        CHECK(sl->flow < MIP_RELAY_FLOWS && H.r.flows[sl->flow].used,
              "slot %u names flow %u, unused", i, sl->flow);
        CHECK(sl->dgram_len <= MIP_RELAY_DGRAM_MAX && sl->dgram_len >= 40u,
              "slot %u holds %u bytes", i, sl->dgram_len);
        for (j = i + 1; j < MIP_RELAY_SLOTS && sl->used != MIP_RELAY_SLOT_QUEUE; j++)
            CHECK(!(H.r.slots[j].used == sl->used && H.r.slots[j].flow == sl->flow),
                  "flow %u has two slots of kind %u", sl->flow, sl->used);
    }
    for (i = 0; i < MIP_RELAY_FLOWS; i++) {
        const struct mip_relay_flow *f = &H.r.flows[i];
        if (!f->used)
            continue;
        CHECK(f->tmpl_len <= MIP_RELAY_TMPL_MAX, "template of %u bytes", f->tmpl_len);
        CHECK(f->src.family == MIP_AF_INET || f->src.family == MIP_AF_INET6, "flow family");
        for (j = i + 1; j < MIP_RELAY_FLOWS; j++)
            CHECK(!(H.r.flows[j].used && H.r.flows[j].sport == f->sport &&
                    H.r.flows[j].dport == f->dport && mip_addr_eq(&H.r.flows[j].src, &f->src) &&
                    mip_addr_eq(&H.r.flows[j].dst, &f->dst)),
                  "flows %u and %u are the same direction", i, j);
    }
    CHECK(H.r.hist_next < MIP_RELAY_HISTORY, "history index %u", H.r.hist_next);
    if (H.r.cfg.mode == MIP_RELAY_DTC) {
        for (i = 0, j = 0; i < MIP_RELAY_SLOTS; i++)
            j += H.r.slots[i].used != MIP_RELAY_SLOT_FREE;
        CHECK(j <= 1u, "DTC holds %u segments", j);
    }
    CHECK(H.r.activity_count <= MIP_RELAY_ACTIVITY && H.r.activity_next < MIP_RELAY_ACTIVITY,
          "activity ring %u/%u", H.r.activity_count, H.r.activity_next);
}

static uint32_t poll_checked(void)
{
    uint32_t d = mip_stack_poll(&H.s, H.now), dr = mip_relay_poll(&H.r, H.now);
    check_relay();
    if (dr == 0) {
        dr = mip_relay_poll(&H.r, H.now);
        CHECK(dr != 0, "relay poll twice at the same time still reports a due timer");
    }
    return d < dr ? d : dr;
}

static size_t mk_frame(uint8_t *out, size_t cap, uint16_t from, uint16_t to, const uint8_t *ip,
                       size_t len)
{
    struct mip_802154_hdr h;
    size_t hl = 0;
    if (len + 10 > cap)
        len = cap - 10;
    memset(&h, 0, sizeof(h));
    h.type = MIP_802154_DATA;
    h.pan_id_compress = true;
    h.dst_pan = h.src_pan = 0xABCD;
    h.dst.mode = h.src.mode = MIP_802154_ADDR_SHORT;
    h.dst.short_addr = to;
    h.src.short_addr = from;
    (void)mip_ieee802154_emit(&h, out, cap, &hl);
    out[9] = len >= 1 && (ip[0] >> 4) == 6 ? 0x41 : 0x3F;
    memcpy(out + 10, ip, len);
    return 10 + len;
}

static const uint8_t seg_flags[16] = {
    MIP_TCP_ACK, MIP_TCP_ACK | MIP_TCP_PSH, MIP_TCP_ACK, MIP_TCP_ACK | MIP_TCP_PSH,
    MIP_TCP_SYN, MIP_TCP_SYN | MIP_TCP_ACK, MIP_TCP_FIN | MIP_TCP_ACK, MIP_TCP_RST,
    MIP_TCP_RST | MIP_TCP_ACK, 0, MIP_TCP_ACK | MIP_TCP_URG, MIP_TCP_ACK,
    MIP_TCP_ACK, MIP_TCP_ACK | MIP_TCP_PSH, MIP_TCP_ACK | MIP_TCP_ECE, MIP_TCP_ACK,
};

static const uint8_t addr_s4[4] = {10, 0, 1, 10}, addr_d4[4] = {10, 0, 2, 10};
static const uint8_t addr_s6[16] = {0xfd, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10};
static const uint8_t addr_d6[16] = {0xfd, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10};

/* A well-formed segment from 7 bytes; ttl as given. */
static size_t mk_seg(uint8_t *pkt, const uint8_t *b, uint8_t ttl, int *rev_out)
{
    uint8_t l4[128];
    struct mip_tcp_hdr h;
    struct mip_tcp_opts o;
    int v6 = b[0] & 1, rev = (b[0] >> 1) & 1;
    uint16_t port = (uint16_t)(1000u + ((b[0] >> 2) & 3u));
    size_t optlen, total, i;
    const uint8_t *src, *dst;
    uint32_t sum;
    memset(&o, 0, sizeof(o));
    memset(&h, 0, sizeof(h));
    if (b[6] & 0x80) {
        o.present = MIP_TCP_HAS_TIMESTAMP;
        o.ts_val = b[1];
        o.ts_ecr = b[3];
    }
    h.flags = seg_flags[b[0] >> 4];
    h.seq = (rev ? 5000u : 1000u) + mip_rd16(b + 1);
    h.ack = (rev ? 1000u : 5000u) + mip_rd16(b + 3);
    if ((b[6] & 0x40) && (h.flags & MIP_TCP_SYN)) {
        o.present |= MIP_TCP_HAS_SACK_PERM;
    } else if (b[6] & 0x40) {
        /* one block above the ACK: over, or beyond, what a relay holds */
        uint32_t left = h.ack + 16u * (b[6] & 7u);
        o.present |= MIP_TCP_HAS_SACK;
        o.sack_count = 1;
        o.sack[0].left = left;
        o.sack[0].right = left + 16u + 16u * ((b[6] >> 3) & 7u);
    }
    optlen = mip_tcp_opts_len(&o);
    h.src_port = rev ? 80 : port;
    h.dst_port = rev ? port : 80;
    h.window = 2048;
    h.hdr_len = (uint8_t)(20 + optlen);
    (void)mip_tcp_emit(&h, l4, sizeof(l4));
    if (optlen)
        (void)mip_tcp_opts_emit(&o, l4 + 20, optlen, NULL);
    for (i = 0; i < (size_t)(b[5] & 63u); i++)
        l4[h.hdr_len + i] = (uint8_t)(h.seq + i);
    total = h.hdr_len + (b[5] & 63u);
    *rev_out = rev;
    if (v6) {
        struct mip_ipv6_hdr ip;
        src = rev ? addr_d6 : addr_s6;
        dst = rev ? addr_s6 : addr_d6;
        sum = mip_cksum_pseudo6(src, dst, MIP_IPPROTO_TCP, (uint32_t)total);
        mip_wr16(l4 + 16, mip_cksum_finish(mip_cksum_add(sum, l4, total)));
        memset(&ip, 0, sizeof(ip));
        ip.flow_label = b[6] & 0x7Fu;
        ip.payload_len = (uint16_t)total;
        ip.next_header = MIP_IPPROTO_TCP;
        ip.hop_limit = ttl;
        memcpy(ip.src, src, 16);
        memcpy(ip.dst, dst, 16);
        (void)mip_ipv6_emit(&ip, pkt, 40);
        memcpy(pkt + 40, l4, total);
        return 40 + total;
    } else {
        struct mip_ipv4_hdr ip;
        src = rev ? addr_d4 : addr_s4;
        dst = rev ? addr_s4 : addr_d4;
        sum = mip_cksum_pseudo4(src, dst, MIP_IPPROTO_TCP, (uint16_t)total);
        mip_wr16(l4 + 16, mip_cksum_finish(mip_cksum_add(sum, l4, total)));
        memset(&ip, 0, sizeof(ip));
        ip.total_len = (uint16_t)(20 + total);
        ip.id = b[6] & 0x7Fu;
        ip.ttl = ttl;
        ip.proto = MIP_IPPROTO_TCP;
        memcpy(ip.src, src, 4);
        memcpy(ip.dst, dst, 4);
        (void)mip_ipv4_emit(&ip, pkt, 20);
        memcpy(pkt + 20, l4, total);
        return 20 + total;
    }
}

static void input_frame(const uint8_t *fr, size_t fl)
{
    uint8_t *copy = malloc(fl ? fl : 1);
    memcpy(copy, fr, fl);
    mip_stack_input(&H.s, 0, copy, fl, H.now);
    free(copy);
    check_relay();
}

static void overhear_frame(const uint8_t *fr, size_t fl)
{
    uint8_t *copy = malloc(fl ? fl : 1);
    memcpy(copy, fr, fl);
    mip_relay_overheard(&H.r, 0, copy, fl, H.now);
    free(copy);
    check_relay();
}

static void add_route(const char *prefix, uint8_t plen, const char *gw)
{
    struct mip_addr p, g;
    CHECK(mip_addr_parse(prefix, &p, NULL) == MIP_OK && mip_addr_parse(gw, &g, NULL) == MIP_OK,
          "route parse");
    CHECK(mip_route_add(&H.s, &p, plen, &g, 0) == MIP_OK, "route add %s", prefix);
}

static void setup(uint8_t cfgb, uint8_t modeb)
{
    static const uint8_t seed[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    struct mip_stack_config sc;
    struct mip_lowpan_config lc;
    struct mip_relay_config rc;
    struct mip_addr a;
    uint8_t idx;
    memset(&sc, 0, sizeof(sc));
    sc.entropy = seed;
    sc.entropy_len = sizeof(seed);
    sc.forwarding = true;
    H.now = T0;
    mip_stack_init(&H.s, &sc, H.now);
    memset(&lc, 0, sizeof(lc));
    lc.mode = MIP_LOWPAN_RAW_IP;
    lc.pan_id = 0xABCD;
    lc.short_addr = 5;
    lc.frame_max = 180;
    lc.raw_link_hdr_len = 12;
    CHECK(mip_netif_add_lowpan(&H.s, &lc, &drv, NULL, &idx) == MIP_OK && idx == 0, "netif");
    CHECK(mip_addr_parse("10.0.0.5", &a, NULL) == MIP_OK, "addr");
    CHECK(mip_netif_add_addr(&H.s, 0, &a, 24) == MIP_OK, "addr4");
    CHECK(mip_addr_parse("fd00::ff:fe00:5", &a, NULL) == MIP_OK, "addr6");
    CHECK(mip_netif_add_addr(&H.s, 0, &a, 64) == MIP_OK, "addr6 add");
    add_route("10.0.2.0", 24, "10.0.0.4");
    add_route("10.0.1.0", 24, "10.0.0.6");
    add_route("fd02::", 64, "fd00::ff:fe00:4");
    add_route("fd01::", 64, "fd00::ff:fe00:6");
    mip_relay_config_default(&rc, (modeb & 3u) == 1u ? MIP_RELAY_DTC :
                                  (modeb & 3u) == 2u ? MIP_RELAY_CCTRL : MIP_RELAY_TSS);
    rc.dtc_sack = rc.mode == MIP_RELAY_DTC && !(modeb & 4u);
    rc.cc_keep = (modeb & 8u) != 0u;
    rc.tss_ack_release = rc.mode == MIP_RELAY_TSS && (modeb & 8u) != 0u;
    rc.cc_drop = (modeb & 0x10u) != 0u;
    rc.cc_hop = (modeb & 0x20u) != 0u;
    rc.cc_activity = (modeb & 0x40u) != 0u;
    rc.dtc_endpoints = rc.ack_repair = rc.cc_link = (modeb & 0x80u) != 0u;
    rc.ack_repair_wait = rc.ack_repair && rc.mode == MIP_RELAY_DTC && (modeb & 8u) != 0u;
    rc.max_local_rexmit = cfgb & 7u;
    rc.tss_backpressure = !(cfgb & 8u);
    if (cfgb & 0x10u)
        rc.forward_delay_ms = 0;
    if (cfgb & 0x20u)
        rc.alpha_q8 = 64;
    if (cfgb & 0x40u)
        rc.rto_min_ms = 1;
    CHECK(mip_relay_init(&H.r, &H.s, &rc, H.now) == MIP_OK, "relay init");
    H.nacks = 0;
}

static void time_passes(uint32_t ms)
{
    uint32_t end = H.now + ms;
    unsigned polls = 0;
    while (polls++ < 64) {
        uint32_t d = poll_checked();
        if (d == MIP_POLL_IDLE || (int32_t)(end - H.now) <= 0 || d > end - H.now)
            break;
        H.now += d ? d : 1u;
    }
    H.now = end;
    (void)poll_checked();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t fr[400], pkt[300];
    size_t pos = 2, fl, len;
    unsigned ops = 0, i;
    if (size < 2)
        return 0;
    setup(data[0], data[1]);
    while (pos < size && ops++ < MAX_OPS) {
        uint8_t op = data[pos++] % 7u;
        uint8_t b[7] = {0};
        int rev;
        switch (op) {
        case 0:
        case 1: {
            uint8_t sel;
            if (size - pos < 3)
                return 0;
            sel = data[pos];
            len = mip_rd16(data + pos + 1) & 0x1FFu;
            pos += 3;
            if (len > size - pos)
                len = size - pos;
            if (op == 0 && (data[0] & 0x80u) && (sel & 2u)) {
                /* the node's own datagram leaving: what the relay holds
                 * goes out later with this ACK number */
                note_input(data + pos, len);
                memcpy(pkt, data + pos, len < sizeof(pkt) ? len : sizeof(pkt));
                if (H.s.local_hook != NULL)
                    (void)H.s.local_hook(H.s.local_hook_ctx, &H.s, true, 0, pkt,
                                         len < sizeof(pkt) ? len : sizeof(pkt));
            } else if (op == 0) {
                note_input(data + pos, len);
                fl = mk_frame(fr, sizeof(fr), (sel & 1) ? 4 : 6, 5, data + pos, len);
                input_frame(fr, fl);
            } else {
                static const uint16_t from[4] = {4, 6, 9, 4};
                fl = mk_frame(fr, sizeof(fr), from[sel & 3], (sel & 4) ? 7 : 3, data + pos, len);
                overhear_frame(fr, fl);
            }
            pos += len;
            break;
        }
        case 2:
            if (size - pos < 2)
                return 0;
            len = mip_rd16(data + pos) & 0x1FFu;
            pos += 2;
            if (len > size - pos)
                len = size - pos;
            overhear_frame(data + pos, len);
            pos += len;
            break;
        case 3: {
            uint8_t t = pos < size ? data[pos++] : 0;
            time_passes(t < 200 ? (uint32_t)t * 5u : (uint32_t)(t - 199u) * 1000u);
            break;
        }
        default:
            for (i = 0; i < 7 && pos < size; i++)
                b[i] = data[pos++];
            if (op == 4) {
                len = mk_seg(pkt, b, 64, &rev);
                note_input(pkt, len);
                if (data[0] & 0x80u) {
                    /* the node is S: its own segment leaves, or D's arrives */
                    if (H.s.local_hook != NULL)
                        (void)H.s.local_hook(H.s.local_hook_ctx, &H.s, rev == 0, 0, pkt, len);
                    check_relay();
                } else {
                    fl = mk_frame(fr, sizeof(fr), rev ? 4 : 6, 5, pkt, len);
                    input_frame(fr, fl);
                }
            } else if (op == 6) {
                /* this node sent it to the next hop; the link layer reports */
                uint8_t ok = pos < size ? data[pos++] : 0;
                len = mk_seg(pkt, b, 63, &rev);
                fl = mk_frame(fr, sizeof(fr), 5, rev ? 6 : 4, pkt, len);
                mip_relay_link_status(&H.r, 0, fr, fl, (ok & 1u) != 0u, H.now);
                check_relay();
            } else {
                /* the next hop forwards it on: towards D it is 4, towards S 6 */
                uint16_t who;
                len = mk_seg(pkt, b, 62, &rev);
                who = (b[5] & 0x40) ? 9 : (rev ? 6 : 4);
                fl = mk_frame(fr, sizeof(fr), who, rev ? 7 : 3, pkt, len);
                overhear_frame(fr, fl);
            }
            break;
        }
    }
    /* every timer runs out, and then the idle timeout */
    for (i = 0; i < 200; i++) {
        uint32_t d = poll_checked();
        if (d == MIP_POLL_IDLE)
            break;
        H.now += d ? d : 1u;
    }
    H.now += 10u * 60u * 1000u;
    (void)poll_checked();
    for (i = 0; i < MIP_RELAY_FLOWS; i++)
        CHECK(!H.r.flows[i].used, "flow %u still tracked after the idle timeout", i);
    for (i = 0; i < MIP_RELAY_SLOTS; i++)
        CHECK(H.r.slots[i].used == MIP_RELAY_SLOT_FREE, "slot %u still used at the end", i);
    CHECK(H.s.pool.in_use == 0, "%u packet buffers in use at the end", H.s.pool.in_use);
    if (getenv("MOTEIP_FUZZ_VERBOSE") != NULL) {
        for (i = 0; i < MIP_RELAY_STAT_COUNT; i++)
            if (mip_relay_stat(&H.r, (enum mip_relay_stat)i) != 0)
                fprintf(stderr, "  %s %u\n", mip_relay_stat_name(i),
                        (unsigned)mip_relay_stat(&H.r, (enum mip_relay_stat)i));
    }
    return 0;
}
