/*
 * libFuzzer harness for moteip's TCP header compression on the IPHC radio
 * netif (src/core/lowpan_tcphc.c over wire/lowpan_tcp.c; docs/LOWPAN.md
 * "TCP header compression"): the per-link contexts, their CIDs and
 * eviction, the checksum check that catches a context gone wrong, and the
 * refresh (R) that repairs it.
 *
 * Two stacks, each with one IPHC netif with tcp_hc on, joined by an air
 * queue the input drives. No TCP layer: the nodes send whole TCP/IPv6
 * datagrams the input builds (mip_ip_send_raw, right checksums), on six
 * flows over four contexts (link-local and context-0 addresses), and the
 * local hook sees what each node receives.
 *
 * Input: byte 0 picks the frame size (127, or 64 to 127, so that some
 * segments go in fragments, without compression); then operations:
 *
 *   send      from, flow, how SEQ and ACK move (with the segment before,
 *             small steps, back for a retransmission, anywhere), flags,
 *             window, options (none, MSS, timestamps, SACK, raw bytes),
 *             payload length; hop limit and traffic class vary too
 *   deliver   the frame at the head of the air, or all of them
 *   drop      the head frame (lost)
 *   duplicate the head frame (delivered, and left at the head)
 *   swap      the first two frames (reordered)
 *   inject    a frame from the other node's link address that the node did
 *             not send: the other node's last frame with one byte changed,
 *             or its link header with the input's bytes after it
 *   time      1 ms to 4 min, then both stacks are polled
 *
 * Checked:
 *   - every frame a node sends is a whole 802.15.4 frame within frame_max;
 *   - a TCP datagram a node receives with a right checksum is, byte for
 *     byte, one the other node sent, or differs from one only in what the
 *     decompressor takes from a context (ports, numbers, flags, window)
 *     with the same ones' complement sum: a context error no checksum can
 *     see (docs/LOWPAN.md). This holds until an injected frame reaches the
 *     node: after one, an attacker's context or fragment may make another
 *     datagram whose checksum adds up (TCP's checksum is no MIC). A wrong
 *     checksum is what TCP drops, and is not held against the compression;
 *   - without injections, no datagram received is longer than the longest
 *     built;
 *   - every frame is read first as a capture reads it, on the receiver's
 *     netif (mip_lowpan_peek_frame, twice, the same both times: it reads
 *     the receive contexts and changes nothing); when the frame then
 *     brings up a whole datagram, that datagram is byte for byte what the
 *     capture read (since session 16: the TCP NHC branch of the peek,
 *     lowpan_tcphc_peek, had never run under any harness);
 *   - at the end, losses and injections stop and four flows (as many as
 *     there are contexts) carry four rounds both ways. The last round of
 *     each arrives in both directions, exactly as sent or as one of those
 *     variants: a mismatch asks for a refresh, and the refresh repairs
 *     whatever the input did to the contexts (an error the checksum cannot
 *     see lasts while the numbers stay where it hides them; TCP's
 *     retransmission, which goes FULL, ends it, and this harness does not
 *     retransmit). Then every packet buffer is back and no reassembly is
 *     left.
 *
 * The stacks here are a copy of the library built without MOTEIP_FUZZING
 * (CMakeLists.txt, moteip_checked): the checksum check is the mechanism
 * under test, so it must run.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/moteip.h"
#include "moteip/ip.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/lowpan_tcp.h"

#include "fuzz_check.h"
#include "lowpan_peek_check.h"

#ifdef MOTEIP_FUZZING
#error "fuzz_lowpan_tcphc needs the stack's checksum checks: link moteip_checked"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NODES    2
#define QMAX     64
#define FLOWS    6
#define SENT_MAX 512          /* more than the sends of 400 ops and the settle: every one kept */
#define DG_MAX   400          /* the largest datagram built: 40 + 60 + 255 */
#define PAN      0xABCDu
#define SETTLE_FLOWS (MIP_LOWPAN_TCPHC_SLOTS < FLOWS ? MIP_LOWPAN_TCPHC_SLOTS : FLOWS)

struct frame {
    uint8_t  from;
    uint8_t  injected;
    uint16_t len;
    uint8_t  data[MIP_RADIO_FRAME_MAX];
};

struct dgram {
    uint16_t len;
    uint8_t  data[DG_MAX];
};

/* One direction of a flow: what the next segment continues from. */
struct half {
    uint32_t seq, ack, last_len;
    uint32_t tsval;
};

struct world {
    struct mip_stack s[NODES];
    uint8_t idx[NODES];
    uint8_t frame_max;
    struct frame q[QMAX];
    unsigned nq;
    struct frame last[NODES];     /* each node's last frame, for injections */
    bool has_last[NODES];
    struct dgram sent[NODES][SENT_MAX];
    unsigned nsent[NODES];
    struct half flow[FLOWS][NODES];
    bool poisoned[NODES];         /* an injected frame reached this node */
    /* what the local hook saw during the current delivery */
    unsigned got;
    bool got_exact;               /* the last one equalled `expect` */
    unsigned blind;               /* context errors the checksum could not see */
    bool got_blind;               /* the last one was such an error */
    const struct dgram *expect;
    struct dgram in_last;         /* the last datagram the local hook saw */
    mip_time_t now;
};

static struct world W;

struct cursor {
    const uint8_t *p;
    size_t n;
};

static uint8_t take(struct cursor *c)
{
    if (c->n == 0)
        return 0;
    c->n--;
    return *c->p++;
}

static uint32_t take32(struct cursor *c)
{
    uint32_t v = take(c);
    v = v << 8 | take(c);
    v = v << 8 | take(c);
    return v << 8 | take(c);
}

/* --- the air ------------------------------------------------------------ */

static mip_status air_tx(void *ctx, const uint8_t *frame, size_t len)
{
    unsigned from = (unsigned)(uintptr_t)ctx;
    struct mip_802154_hdr h;
    size_t hl;
    CHECKF(len <= (size_t)W.frame_max - 2u && len <= MIP_RADIO_FRAME_MAX);
    CHECKF(mip_ieee802154_parse(frame, len, &h, &hl) == MIP_OK);
    W.last[from].from = (uint8_t)from;
    W.last[from].injected = 0;
    W.last[from].len = (uint16_t)len;
    memcpy(W.last[from].data, frame, len);
    W.has_last[from] = true;
    if (W.nq == QMAX)
        return MIP_ERR_NOBUFS;
    W.q[W.nq] = W.last[from];
    W.nq++;
    return MIP_OK;
}

static size_t air_room(void *ctx)
{
    (void)ctx;
    return QMAX - W.nq;
}

static const struct mip_netif_driver air_driver = { air_tx, air_room, NULL };

static bool tcp_checksum_ok(const uint8_t *pkt, size_t len)
{
    uint32_t sum = mip_cksum_pseudo6(pkt + 8, pkt + 24, 6, (uint32_t)(len - 40u));
    return mip_cksum_finish(mip_cksum_add(sum, pkt + 40, len - 40u)) == 0u;
}

static bool was_sent(unsigned by, const uint8_t *pkt, size_t len)
{
    unsigned i, n = W.nsent[by];
    for (i = 0; i < n; i++)
        if (W.sent[by][i].len == len && memcmp(W.sent[by][i].data, pkt, len) == 0)
            return true;
    return false;
}

/* pkt differs from a datagram `by` sent only in TCP header fields the
 * decompressor takes from a context (ports, numbers, flags, window), and
 * its checksum still adds up: a context error that TCP's checksum cannot
 * see (the compression's documented limit: it is no CRC; docs/LOWPAN.md). */
static bool checksum_blind_variant(unsigned by, const uint8_t *pkt, size_t len)
{
    unsigned i, n = W.nsent[by];
    for (i = 0; i < n; i++) {
        const struct dgram *d = &W.sent[by][i];
        if (d->len == len && memcmp(d->data, pkt, 40) == 0 &&
            d->data[52] == pkt[52] && memcmp(d->data + 56, pkt + 56, len - 56u) == 0)
            return true;
    }
    return false;
}

static enum mip_fwd_verdict on_local(void *ctx, struct mip_stack *s, bool out, uint8_t netif,
                                     const uint8_t *pkt, size_t len)
{
    unsigned to = (unsigned)(uintptr_t)ctx;
    (void)s;
    (void)netif;
    if (out || len < 60u || pkt[6] != 6u)
        return MIP_FWD_PASS;           /* ICMP errors and the like */
    CHECKF(len <= sizeof W.in_last.data);
    W.in_last.len = (uint16_t)len;
    memcpy(W.in_last.data, pkt, len);
    W.got++;
    W.got_exact = W.expect != NULL && W.expect->len == len &&
                  memcmp(W.expect->data, pkt, len) == 0;
    W.got_blind = false;
    if (W.poisoned[to])
        return MIP_FWD_PASS;
    CHECKF(len <= DG_MAX);             /* never more than was ever built */
    if (!tcp_checksum_ok(pkt, len))
        return MIP_FWD_PASS;
    /* a right checksum: it must be what the other node sent, or a variant
     * of it that no checksum can tell apart */
    if (!was_sent(1u - to, pkt, len)) {
        CHECKF(checksum_blind_variant(1u - to, pkt, len));
        W.blind++;
        W.got_blind = true;
    }
    return MIP_FWD_PASS;
}

static void input(unsigned to, const struct frame *f)
{
    uint8_t *copy = fuzz_dup_exact(f->data, f->len);
    static uint8_t seen[DG_MAX], again[DG_MAX];
    struct mip_lowpan_peek pk;
    mip_status st;
    bool alike;
    unsigned got = W.got;
    if (f->injected)
        W.poisoned[to] = true;
    st = fuzz_lowpan_peek_twice(&W.s[to], W.idx[to], copy, f->len, seen, again, DG_MAX, &pk,
                                &alike);
    CHECKF(alike);
    mip_stack_input(&W.s[to], W.idx[to], copy, f->len, W.now);
    /* a whole datagram from this one frame: what the capture read */
    if (W.got == got + 1u && st == MIP_OK && pk.ip_len == pk.dgram_len)
        CHECKF(W.in_last.len == pk.ip_len && memcmp(W.in_last.data, seen, pk.ip_len) == 0);
    free(copy);
}

static void deliver_head(bool keep)
{
    struct frame f;
    if (W.nq == 0)
        return;
    f = W.q[0];
    if (!keep) {
        memmove(&W.q[0], &W.q[1], (W.nq - 1u) * sizeof W.q[0]);
        W.nq--;
    }
    input(1u - f.from, &f);
}

static void deliver_all(void)
{
    unsigned guard = 0;
    while (W.nq > 0 && guard++ < 4u * QMAX)
        deliver_head(false);
    W.nq = 0;
}

static void advance(uint32_t ms)
{
    unsigned i;
    W.now += ms;
    for (i = 0; i < NODES; i++)
        (void)mip_stack_poll(&W.s[i], W.now);
}

/* --- the flows ------------------------------------------------------------ */

/* Flow f between node 0 and node 1: its ports and whether it uses the
 * link-local addresses or the context-0 ones. */
static const struct {
    uint16_t port0, port1;
    bool link_local;
} FLOW[FLOWS] = {
    { 61616, 80, false }, { 61617, 80, false }, { 5000, 5001, true },
    { 80, 61616, true }, { 443, 50000, false }, { 7, 7, true },
};

static void node_addr(unsigned node, bool link_local, uint8_t out[16])
{
    memset(out, 0, 16);
    if (link_local) {
        out[0] = 0xfe;
        out[1] = 0x80;
    } else {
        out[0] = 0xfd;
    }
    out[11] = 0xff;
    out[12] = 0xfe;
    out[15] = (uint8_t)(node + 1u);
}

static uint32_t move(struct cursor *c, unsigned how, uint32_t v, uint32_t last_len)
{
    switch (how & 3u) {
    case 0:  return v + last_len;
    case 1:  return v + take(c);
    case 2:  return v - take(c);
    default: return take32(c);
    }
}

/* Builds a TCP/IPv6 datagram of flow f from node `from` with what the input
 * says, into d. */
static void build(struct cursor *c, unsigned from, unsigned f, struct dgram *d)
{
    struct half *h = &W.flow[f][from];
    struct half *o = &W.flow[f][1u - from];
    uint8_t how = take(c), flags = take(c), optk = take(c), plen = take(c);
    uint8_t *ip = d->data, *tcp = ip + 40;
    size_t ol = 0, i, tl;
    uint16_t win = (uint16_t)(take(c) << 8 | take(c));

    memset(ip, 0, 40u + 60u);      /* the headers and every option byte */
    ip[0] = 0x60;
    if (how & 0x40u) {                 /* traffic class and flow label */
        ip[1] = take(c);
        ip[2] = take(c);
        ip[3] = take(c);
    }
    ip[6] = 6;
    ip[7] = (how & 0x80u) ? take(c) : 64u;
    node_addr(from, FLOW[f].link_local, ip + 8);
    node_addr(1u - from, FLOW[f].link_local, ip + 24);
    mip_wr16(tcp, from == 0 ? FLOW[f].port0 : FLOW[f].port1);
    mip_wr16(tcp + 2, from == 0 ? FLOW[f].port1 : FLOW[f].port0);
    h->seq = move(c, how, h->seq, h->last_len);
    h->ack = move(c, how >> 2, h->ack, o->last_len);
    mip_wr32(tcp + 4, h->seq);
    mip_wr32(tcp + 8, h->ack);
    switch (optk % 6u) {
    case 1:                            /* MSS */
        tcp[20] = 2; tcp[21] = 4;
        mip_wr16(tcp + 22, 96);
        ol = 4;
        break;
    case 2:                            /* NOP NOP timestamps */
        h->tsval += take(c);
        tcp[20] = 1; tcp[21] = 1; tcp[22] = 8; tcp[23] = 10;
        mip_wr32(tcp + 24, h->tsval);
        mip_wr32(tcp + 28, o->tsval);
        ol = 12;
        break;
    case 3: {                          /* NOP NOP SACK, 1 to 3 blocks */
        unsigned b, nb = 1u + take(c) % 3u;
        tcp[20] = 1; tcp[21] = 1; tcp[22] = 5; tcp[23] = (uint8_t)(2u + 8u * nb);
        for (b = 0; b < nb; b++) {
            uint32_t l = h->ack + take(c) * 16u;
            mip_wr32(tcp + 24 + 8 * b, l);
            mip_wr32(tcp + 28 + 8 * b, l + 1u + take(c));
        }
        ol = 4u + 8u * nb;
        break;
    }
    case 4: {                          /* raw option bytes, padded with EOL */
        size_t k = take(c) % 41u;
        for (i = 0; i < k; i++)
            tcp[20 + i] = take(c);
        ol = (k + 3u) & ~3u;
        break;
    }
    default:
        break;
    }
    tcp[12] = (uint8_t)((5u + ol / 4u) << 4);
    tcp[13] = flags;
    mip_wr16(tcp + 14, win);
    if (flags & 0x20u)
        mip_wr16(tcp + 18, (uint16_t)(take(c) << 8 | take(c)));
    tl = 20u + ol + plen;
    for (i = 0; i < plen; i++)
        tcp[20 + ol + i] = (uint8_t)(h->seq + i * 7u);
    mip_wr16(ip + 4, (uint16_t)tl);
    mip_wr16(tcp + 16, 0);
    mip_wr16(tcp + 16, mip_cksum_finish(mip_cksum_add(
                           mip_cksum_pseudo6(ip + 8, ip + 24, 6, (uint32_t)tl), tcp, tl)));
    d->len = (uint16_t)(40u + tl);
    h->last_len = plen;
}

static void send_dgram(unsigned from, const struct dgram *d)
{
    CHECKF(W.nsent[from] < SENT_MAX);
    W.sent[from][W.nsent[from]] = *d;
    W.nsent[from]++;
    (void)mip_ip_send_raw(&W.s[from], d->data, d->len);
}

static void inject(struct cursor *c)
{
    unsigned by = take(c) & 1u;        /* the node whose address it bears */
    uint8_t mode = take(c);
    struct frame f;
    struct mip_802154_hdr h;
    size_t hl, i, n;
    if (!W.has_last[by])
        return;
    f = W.last[by];
    f.injected = 1;
    if (mode & 1u) {                   /* one byte changed */
        i = take(c) % f.len;
        f.data[i] = (uint8_t)(f.data[i] ^ (take(c) | 1u));
    } else {                           /* its link header, then our bytes */
        if (mip_ieee802154_parse(f.data, f.len, &h, &hl) != MIP_OK)
            return;
        n = take(c);
        if (n > (size_t)W.frame_max - 2u - hl)
            n = (size_t)W.frame_max - 2u - hl;
        for (i = 0; i < n; i++)
            f.data[hl + i] = take(c);
        f.len = (uint16_t)(hl + n);
    }
    input(1u - by, &f);
}

/* --- setup and the end ------------------------------------------------------ */

static void setup(uint8_t frame_max)
{
    unsigned i;
    memset(&W, 0, sizeof W);
    W.frame_max = frame_max;
    W.now = 1000;
    for (i = 0; i < NODES; i++) {
        struct mip_stack_config sc;
        struct mip_lowpan_config lc;
        uint8_t seed[4] = { 9, 8, 7, (uint8_t)i };
        uint8_t a[16];
        struct mip_addr ad;
        memset(&sc, 0, sizeof sc);
        sc.entropy = seed;
        sc.entropy_len = sizeof seed;
        mip_stack_init(&W.s[i], &sc, W.now);
        memset(&lc, 0, sizeof lc);
        lc.mode = MIP_LOWPAN_IPHC;
        lc.pan_id = PAN;
        lc.short_addr = (uint16_t)(i + 1u);
        lc.ext_addr[0] = 0x02;
        lc.ext_addr[7] = (uint8_t)(i + 1u);
        lc.frame_max = frame_max;
        lc.ack_request = true;
        lc.has_context0 = true;
        lc.ctx0_prefix[0] = 0xfd;
        lc.tcp_hc = true;
        CHECKF(mip_netif_add_lowpan(&W.s[i], &lc, &air_driver, (void *)(uintptr_t)i,
                                    &W.idx[i]) == MIP_OK);
        node_addr(i, false, a);
        mip_addr_set6(&ad, a);
        CHECKF(mip_netif_add_addr(&W.s[i], W.idx[i], &ad, 64) == MIP_OK);
        mip_ip_set_local_hook(&W.s[i], on_local, (void *)(uintptr_t)i);
    }
}

static void dump_stats(void)
{
    unsigned n, k;
    for (n = 0; n < NODES; n++)
        for (k = 0; k < MIP_STAT_COUNT; k++)
            if (mip_stack_stat(&W.s[n], (enum mip_stat)k) != 0u)
                fprintf(stderr, "  node %u %s %u\n", n, mip_stat_name((enum mip_stat)k),
                        (unsigned)mip_stack_stat(&W.s[n], (enum mip_stat)k));
}

/* Losses and injections over: four rounds both ways on as many flows as
 * there are contexts (more would evict one another, and every segment
 * would go FULL: nothing would need the refresh); the last round must
 * arrive exactly as sent. */
static void settle(void)
{
    static const uint8_t plain[] = { 0x00, 0x10, 0x00, 20, 0x10, 0x00 };
    unsigned round, f, from, k;
    deliver_all();
    advance(10u * 60u * 1000u);        /* past every reassembly */
    W.poisoned[0] = W.poisoned[1] = false;
    for (round = 0; round < 4u; round++) {
        for (f = 0; f < SETTLE_FLOWS; f++) {
            for (from = 0; from < NODES; from++) {
                struct cursor c = { plain, sizeof plain };
                struct dgram d;
                build(&c, from, f, &d);
                send_dgram(from, &d);
                W.expect = &d;
                W.got = 0;
                W.got_exact = false;
                for (k = 0; W.nq > 0 && k < 4u * QMAX; k++)
                    deliver_head(false);
                W.expect = NULL;
                if (round == 3u && !(W.got == 1u && (W.got_exact || W.got_blind))) {
                    fprintf(stderr, "flow %u from node %u: got %u, exact %d\n", f, from,
                            W.got, (int)W.got_exact);
                    dump_stats();
                }
                CHECKF(round < 3u || (W.got == 1u && (W.got_exact || W.got_blind)));
            }
        }
    }
    advance(10u * 60u * 1000u);
    for (k = 0; k < NODES; k++) {
        unsigned r;
        CHECKF(W.s[k].pool.in_use == 0);
        for (r = 0; r < MIP_LOWPAN_REASS_SLOTS; r++)
            CHECKF(!W.s[k].lowpan_reass[r].d.used);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cursor c = { data, size };
    uint8_t fm = take(&c);
    unsigned ops = 0;

    setup(fm < 0x80u ? 127u : (uint8_t)(64u + (fm & 63u)));
    while (c.n > 0 && ops++ < 400u) {
        uint8_t op = take(&c);
        switch (op % 9u) {
        case 0:
        case 1: {
            unsigned from = (op >> 4) & 1u, f = take(&c) % FLOWS;
            struct dgram d;
            build(&c, from, f, &d);
            send_dgram(from, &d);
            break;
        }
        case 2: deliver_head(false); break;
        case 3: deliver_all(); break;
        case 4:
            if (W.nq > 0) {
                memmove(&W.q[0], &W.q[1], (W.nq - 1u) * sizeof W.q[0]);
                W.nq--;
            }
            break;
        case 5: deliver_head(true); break;
        case 6:
            if (W.nq >= 2u) {
                struct frame t = W.q[0];
                W.q[0] = W.q[1];
                W.q[1] = t;
            }
            break;
        case 7: inject(&c); break;
        default: {
            uint8_t t = take(&c);
            advance(t < 200u ? 1u + t * 5u : (uint32_t)(t - 199u) * 4000u);
            break;
        }
        }
    }
    settle();
    return 0;
}
