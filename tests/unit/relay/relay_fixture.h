/* Shared by the relay unit tests: one forwarding node R driven through its
 * stack, hand-built TCP/IP datagrams, and a decoder of what R sent.
 *
 * The node R (short address 5, 10.0.0.5 / fd00::ff:fe00:5) has one RAW_IP
 * radio netif and sits in a chain: the source S (10.0.1.10 / fd01::10) is
 * reached through the upstream neighbour U (short 6), the destination D
 * (10.0.2.10 / fd02::10) through the successor N (short 4). Segments S -> D
 * come in as frames from U, ACKs D -> S as frames from N; what R sends is
 * captured by the fixture's driver. Overheard frames (N forwarding data on
 * to short 3, U forwarding an ACK on to short 7) go to mip_relay_overheard.
 * Time moves with mip_stack_poll + mip_relay_poll. */
#ifndef MOTEIP_TEST_RELAY_FIXTURE_H
#define MOTEIP_TEST_RELAY_FIXTURE_H

#include "core/fixture.h"
#include "moteip/relay.h"
#include "moteip/wire/tcp.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/sixlowpan.h"

#if MIP_CONF_FORWARD && MIP_CONF_LOWPAN && MIP_CONF_IPV4 && MIP_CONF_IPV6

#define SHORT_R 5u
#define SHORT_U 6u
#define SHORT_N 4u
#define RAW_HDR 12u            /* MHR 9 + dispatch 1 + FCS 2 */
#define FRAME_MAX 180u
#define SPORT 1000u
#define DPORT 80u

struct node {
    struct fixture f;
    struct mip_relay *r;
};

/* f->s, a new forwarding stack at time `now`. */
static inline void stack_new(struct fixture *f, const uint8_t *seed, uint32_t now)
{
    struct mip_stack_config sc;
    f->s = calloc(1, sizeof(struct mip_stack));
    f->now = testing_start(now);     /* (MOTEIP_TEST_START: both callers agree) */
    memset(&sc, 0, sizeof(sc));
    sc.entropy = seed;
    sc.entropy_len = 16;
    sc.forwarding = true;
    mip_stack_init(f->s, &sc, f->now);
}

/* R's radio netif (short SHORT_R, PAN 0xABCD) on the fixture's port 0;
 * returns its index. */
static inline uint8_t radio_add(struct fixture *f, enum mip_lowpan_mode mode, uint16_t frame_max,
                         uint8_t raw_link_hdr_len)
{
    struct mip_lowpan_config lc;
    uint8_t idx = 0xEE;
    memset(&lc, 0, sizeof(lc));
    lc.mode = mode;
    lc.pan_id = 0xABCD;
    lc.short_addr = SHORT_R;
    lc.frame_max = frame_max;
    lc.raw_link_hdr_len = raw_link_hdr_len;
    f->port[0].f = f;
    f->port[0].netif = 0;
    f->port[0].reply = MIP_OK;
    CHECK_EQ(mip_netif_add_lowpan(f->s, &lc, &fixture_driver, &f->port[0], &idx), MIP_OK);
    return idx;
}

static inline void addr_add(struct fixture *f, const char *addr, uint8_t plen)
{
    struct mip_addr a = fixture_addr(addr);
    CHECK_EQ(mip_netif_add_addr(f->s, 0, &a, plen), MIP_OK);
}

static inline void route_add(struct fixture *f, const char *prefix, uint8_t plen, const char *gw)
{
    struct mip_addr a = fixture_addr(prefix), g = fixture_addr(gw);
    CHECK_EQ(mip_route_add(f->s, &a, plen, &g, 0), MIP_OK);
}

static inline void node_init_cfg(struct node *n, const struct mip_relay_config *cfg)
{
    static const uint8_t seed[16] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6};
    memset(n, 0, sizeof(*n));
    n->r = calloc(1, sizeof(struct mip_relay));
    stack_new(&n->f, seed, 5000);
    CHECK_EQ(radio_add(&n->f, MIP_LOWPAN_RAW_IP, FRAME_MAX, RAW_HDR), 0);
#if MIP_CONF_IPV4
    addr_add(&n->f, "10.0.0.5", 24);
    route_add(&n->f, "10.0.2.0", 24, "10.0.0.4");
    route_add(&n->f, "10.0.1.0", 24, "10.0.0.6");
#endif
    addr_add(&n->f, "fd00::ff:fe00:5", 64);
    route_add(&n->f, "fd02::", 64, "fd00::ff:fe00:4");
    route_add(&n->f, "fd01::", 64, "fd00::ff:fe00:6");
    CHECK_EQ(mip_relay_init(n->r, n->f.s, cfg, n->f.now), MIP_OK);
}

static inline void node_init(struct node *n)
{
    struct mip_relay_config cfg;
    mip_relay_config_default(&cfg, MIP_RELAY_TSS);
    node_init_cfg(n, &cfg);
}

static inline void node_free(struct node *n)
{
    fixture_free(&n->f);
    free(n->r);
}

static inline uint32_t rstat(const struct node *n, enum mip_relay_stat w)
{
    return mip_relay_stat(n->r, w);
}

static inline unsigned slots_used(const struct node *n, uint8_t kind)
{
    unsigned i, c = 0;
    for (i = 0; i < MIP_RELAY_SLOTS; i++)
        c += n->r->slots[i].used == kind;
    return c;
}

static inline unsigned flows_used(const struct node *n)
{
    unsigned i, c = 0;
    for (i = 0; i < MIP_RELAY_FLOWS; i++)
        c += n->r->flows[i].used != 0;
    return c;
}

/* --- segments -------------------------------------------------------------- */

struct tseg {
    bool v6;
    bool rev;              /* D -> S (an ACK) instead of S -> D */
    uint32_t seq, ack;
    uint8_t flags;         /* 0: ACK */
    uint16_t len;          /* payload bytes */
    uint16_t id;           /* IPv4 ID */
    uint32_t label;        /* IPv6 flow label */
    uint8_t ttl;           /* 0: 64 */
    uint16_t win;          /* 0: 4096 */
    bool ts;
    uint32_t tsval, tsecr;
    uint16_t sport;        /* 0: SPORT */
    bool sack_perm;        /* SACK-permitted option */
    uint8_t nsack;         /* SACK blocks in sack[] */
    struct mip_tcp_sack_block sack[MIP_TCP_SACK_MAX];
};

/* Non-NULL: S is R itself (tests of TSS at the source end point). */
static const char *src_is_r;
static inline const char *addr_s(bool v6) { return src_is_r ? src_is_r : v6 ? "fd01::10" : "10.0.1.10"; }
static inline const char *addr_d(bool v6) { return v6 ? "fd02::10" : "10.0.2.10"; }

/* R's flow of the connection SPORT <-> DPORT in direction S -> D, or
 * D -> S when `rev`; NULL: not tracked. */
static inline struct mip_relay_flow *flow_dir(const struct node *n, bool v6, bool rev)
{
    struct mip_addr from = fixture_addr(rev ? addr_d(v6) : addr_s(v6));
    unsigned i;
    for (i = 0; i < MIP_RELAY_FLOWS; i++) {
        struct mip_relay_flow *f = &n->r->flows[i];
        if (f->used && mip_addr_eq(&f->src, &from) && f->sport == (rev ? DPORT : SPORT))
            return f;
    }
    return NULL;
}

/* An IP datagram with a TCP segment and a correct checksum. */
static inline size_t mk(uint8_t *pkt, const struct tseg *t)
{
    uint8_t l4[400];
    struct mip_tcp_hdr h;
    struct mip_tcp_opts o;
    size_t optlen, total, i;
    const char *src = t->rev ? addr_d(t->v6) : addr_s(t->v6);
    const char *dst = t->rev ? addr_s(t->v6) : addr_d(t->v6);
    uint16_t sp = t->sport ? t->sport : SPORT;
    memset(&o, 0, sizeof(o));
    if (t->ts) {
        o.present = MIP_TCP_HAS_TIMESTAMP;
        o.ts_val = t->tsval;
        o.ts_ecr = t->tsecr;
    }
    if (t->sack_perm)
        o.present |= MIP_TCP_HAS_SACK_PERM;
    if (t->nsack) {
        o.present |= MIP_TCP_HAS_SACK;
        o.sack_count = t->nsack;
        memcpy(o.sack, t->sack, sizeof(o.sack));
    }
    optlen = mip_tcp_opts_len(&o);
    memset(&h, 0, sizeof(h));
    h.src_port = t->rev ? DPORT : sp;
    h.dst_port = t->rev ? sp : DPORT;
    h.seq = t->seq;
    h.ack = t->ack;
    h.flags = t->flags ? t->flags : MIP_TCP_ACK;
    h.window = t->win ? t->win : 4096;
    h.hdr_len = (uint8_t)(MIP_TCP_HDR_LEN + optlen);
    CHECK_EQ(mip_tcp_emit(&h, l4, sizeof(l4)), MIP_OK);
    if (optlen)
        CHECK_EQ(mip_tcp_opts_emit(&o, l4 + 20, optlen, NULL), MIP_OK);
    for (i = 0; i < t->len; i++)
        l4[h.hdr_len + i] = (uint8_t)(t->seq + i);
    total = h.hdr_len + t->len;
    if (t->v6) {
        struct mip_ipv6_hdr ip;
        struct mip_addr a = fixture_addr(src), b = fixture_addr(dst);
        fix_l4_checksum6(l4, total, 16, MIP_IPPROTO_TCP, src, dst);
        memset(&ip, 0, sizeof(ip));
        ip.flow_label = t->label;
        ip.payload_len = (uint16_t)total;
        ip.next_header = MIP_IPPROTO_TCP;
        ip.hop_limit = t->ttl ? t->ttl : 64;
        memcpy(ip.src, a.bytes, 16);
        memcpy(ip.dst, b.bytes, 16);
        CHECK_EQ(mip_ipv6_emit(&ip, pkt, 40), MIP_OK);
        memcpy(pkt + 40, l4, total);
        return 40 + total;
    }
    fix_l4_checksum4(l4, total, 16, MIP_IPPROTO_TCP, src, dst);
    return build_ipv4(pkt, src, dst, MIP_IPPROTO_TCP, t->ttl ? t->ttl : 64, t->id, 0, 0, l4,
                      total);
}

/* Recomputes the IPv4 header checksum of ip after an edit. */
static inline void ip4_fix_hdr_cksum(uint8_t *ip)
{
    ip[10] = ip[11] = 0;
    mip_wr16(ip + 10, mip_cksum_finish(mip_cksum_add(0, ip, 20)));
}

/* An 802.15.4 data frame header (PAN 0xABCD, compressed) from short
 * `from` to short `to`. */
static inline void mhr_short(struct mip_802154_hdr *h, uint16_t from, uint16_t to)
{
    memset(h, 0, sizeof(*h));
    h->type = MIP_802154_DATA;
    h->pan_id_compress = true;
    h->dst_pan = h->src_pan = 0xABCD;
    h->dst.mode = h->src.mode = MIP_802154_ADDR_SHORT;
    h->dst.short_addr = to;
    h->src.short_addr = from;
}

/* A RAW_IP frame from short `from` to short `to` carrying pkt. */
static inline size_t frame(uint8_t *out, uint16_t from, uint16_t to, const uint8_t *pkt, size_t len)
{
    struct mip_802154_hdr h;
    size_t hl = 0;
    mhr_short(&h, from, to);
    CHECK_EQ(mip_ieee802154_emit(&h, out, 64, &hl), MIP_OK);
    CHECK_EQ(hl, 9);
    out[9] = (pkt[0] >> 4) == 4 ? 0x3F : 0x41;
    memcpy(out + 10, pkt, len);
    return 10 + len;
}

/* A datagram arrives at R from short `from` (the stack forwards it). */
static inline void feed(struct node *n, uint16_t from, const uint8_t *pkt, size_t len)
{
    uint8_t fr[400];
    size_t fl = frame(fr, from, SHORT_R, pkt, len);
    fixture_input(&n->f, 0, fr, fl);
}

static inline void feed_seg(struct node *n, const struct tseg *t)
{
    uint8_t pkt[300];
    size_t len = mk(pkt, t);
    feed(n, t->rev ? SHORT_N : SHORT_U, pkt, len);
}

/* R overhears `from` sending pkt (TTL one lower than R sent it) to `to`. */
static inline void overhear(struct node *n, uint16_t from, uint16_t to, const uint8_t *pkt, size_t len)
{
    uint8_t fr[400], copy[300];
    size_t fl;
    memcpy(copy, pkt, len);
    if ((copy[0] >> 4) == 4) {
        copy[8]--;
        ip4_fix_hdr_cksum(copy);
    } else {
        copy[7]--;
    }
    fl = frame(fr, from, to, copy, len);
    mip_relay_overheard(n->r, 0, fr, fl, n->f.now);
}

/* The next hop forwards t on: N towards D (data, an implicit ACK for R,
 * or an ACK from S), U towards S (an ACK from D). */
static inline void overhear_fwd(struct node *n, const struct tseg *t)
{
    uint8_t pkt[300];
    struct tseg u = *t;
    size_t len;
    u.ttl = (uint8_t)((t->ttl ? t->ttl : 64) - 1);
    len = mk(pkt, &u);
    overhear(n, t->rev ? SHORT_U : SHORT_N, t->rev ? 7 : 3, pkt, len);
}

static inline void advance(struct node *n, uint32_t ms)
{
    n->f.now += ms;
    (void)mip_stack_poll(n->f.s, n->f.now);
    (void)mip_relay_poll(n->r, n->f.now);
}

/* --- what R sent ------------------------------------------------------------ */

struct sent {
    uint16_t to;               /* MAC destination */
    bool v6;
    uint8_t ttl;
    uint16_t id;
    uint32_t label;
    struct mip_addr src, dst;
    struct mip_tcp_hdr h;
    struct mip_tcp_opts o;
    size_t len;                /* payload */
    const uint8_t *ip;
    size_t ip_len;
};

/* Decodes f.tx[i] and checks its IP and TCP checksums. */
static inline bool sent_at(const struct node *n, unsigned i, struct sent *s)
{
    const struct fixture_frame *fr = &n->f.tx[i];
    const uint8_t *ip, *l4;
    size_t iplen, l4len;
    uint32_t sum;
    memset(s, 0, sizeof(*s));
    if (i >= n->f.ntx || fr->len < 11)
        return false;
    s->to = (uint16_t)(fr->data[5] | (fr->data[6] << 8));
    ip = fr->data + 10;
    iplen = fr->len - 10;
    s->ip = ip;
    if ((ip[0] >> 4) == 4) {
        struct mip_ipv4_hdr h;
        if (mip_ipv4_parse(ip, iplen, &h) != MIP_OK || h.proto != MIP_IPPROTO_TCP)
            return false;
        CHECK(mip_ipv4_checksum_ok(ip, h.hdr_len));
        mip_addr_set4(&s->src, h.src);
        mip_addr_set4(&s->dst, h.dst);
        s->ttl = h.ttl;
        s->id = h.id;
        l4 = ip + h.hdr_len;
        l4len = h.total_len - h.hdr_len;
        s->ip_len = h.total_len;
        sum = mip_cksum_pseudo4(h.src, h.dst, MIP_IPPROTO_TCP, (uint16_t)l4len);
    } else {
        struct mip_ipv6_hdr h;
        if (mip_ipv6_parse(ip, iplen, &h) != MIP_OK || h.next_header != MIP_IPPROTO_TCP)
            return false;
        s->v6 = true;
        mip_addr_set6(&s->src, h.src);
        mip_addr_set6(&s->dst, h.dst);
        s->ttl = h.hop_limit;
        s->label = h.flow_label;
        l4 = ip + 40;
        l4len = h.payload_len;
        s->ip_len = 40u + h.payload_len;
        sum = mip_cksum_pseudo6(h.src, h.dst, MIP_IPPROTO_TCP, (uint32_t)l4len);
    }
    if (mip_tcp_parse(l4, l4len, &s->h) != MIP_OK)
        return false;
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(sum, l4, l4len)), 0);
    CHECK_EQ(mip_tcp_opts_parse(l4 + 20, (size_t)s->h.hdr_len - 20, &s->o), MIP_OK);
    s->len = l4len - s->h.hdr_len;
    return true;
}

/* The link layer's report on a frame R sent carrying t: to N for S -> D,
 * to U for D -> S; ok: the neighbour ACKed it. */
static inline void link_report_seg(struct node *n, const struct tseg *t, bool ok)
{
    uint8_t pkt[300], fr[400];
    size_t pl = mk(pkt, t), fl = frame(fr, SHORT_R, t->rev ? SHORT_U : SHORT_N, pkt, pl);
    mip_relay_link_status(n->r, 0, fr, fl, ok, n->f.now);
}

/* R's own datagram leaving (out) or delivered to R (in), through the hook
 * (set src_is_r so that S is R). */
static inline enum mip_fwd_verdict local(struct node *n, bool out, const struct tseg *t)
{
    uint8_t pkt[300];
    size_t len = mk(pkt, t);
    CHECK(n->f.s->local_hook != NULL);
    n->f.s->now = n->f.now;
    return n->f.s->local_hook(n->f.s->local_hook_ctx, n->f.s, out, 0, pkt, len);
}

/* A connection S -> D through R: SYN at t, SYN-ACK `rtt` ms later, then the
 * handshake's ACK. The relay learns rtt from it. ISNs 999 and 5000; both
 * SYNs offer SACK when `sack`. */
static inline void handshake_sack(struct node *n, bool v6, uint32_t rtt, bool sack)
{
    struct tseg t;
    memset(&t, 0, sizeof(t));
    t.v6 = v6;
    t.seq = 999;
    t.flags = MIP_TCP_SYN;
    t.sack_perm = sack;
    t.id = 1;
    feed_seg(n, &t);
    n->f.now += rtt;
    memset(&t, 0, sizeof(t));
    t.v6 = v6;
    t.rev = true;
    t.seq = 5000;
    t.ack = 1000;
    t.flags = MIP_TCP_SYN | MIP_TCP_ACK;
    t.sack_perm = sack;
    t.id = 1;
    feed_seg(n, &t);
    memset(&t, 0, sizeof(t));
    t.v6 = v6;
    t.seq = 1000;
    t.ack = 5001;
    t.id = 2;
    feed_seg(n, &t);
    overhear_fwd(n, &t);         /* N forwards it on: no ACK recovery */
    fixture_clear(&n->f);
}

static inline void handshake(struct node *n, bool v6, uint32_t rtt)
{
    handshake_sack(n, v6, rtt, false);
}

static inline struct tseg data(bool v6, uint32_t seq, uint16_t len, uint16_t id)
{
    struct tseg t;
    memset(&t, 0, sizeof(t));
    t.v6 = v6;
    t.seq = seq;
    t.ack = 5001;
    t.flags = MIP_TCP_ACK | MIP_TCP_PSH;
    t.len = len;
    t.id = id;
    t.label = v6 ? id : 0;
    return t;
}

static inline struct tseg ackseg(bool v6, uint32_t ack, uint16_t id)
{
    struct tseg t;
    memset(&t, 0, sizeof(t));
    t.v6 = v6;
    t.rev = true;
    t.seq = 5001;
    t.ack = ack;
    t.id = id;
    t.label = v6 ? 0x12345 : 0;
    return t;
}

/* data() / ackseg() arriving at R (from U / from N); returns the segment. */
static inline struct tseg feed_data(struct node *n, bool v6, uint32_t seq, uint16_t len, uint16_t id)
{
    struct tseg t = data(v6, seq, len, id);
    feed_seg(n, &t);
    return t;
}

static inline struct tseg feed_ack(struct node *n, bool v6, uint32_t ack, uint16_t id)
{
    struct tseg t = ackseg(v6, ack, id);
    feed_seg(n, &t);
    return t;
}

/* A fresh node that has seen a connection's handshake (rtt 100 ms). */
static inline void node_init_connected(struct node *n, bool v6)
{
    node_init(n);
    handshake(n, v6, 100);
}

/* A timer edge: R sends nothing more for `ms` - 1 ms (ntx stays `ntx`),
 * then one frame at `ms`. */
static inline void check_one_sent_after(struct node *n, uint32_t ms, unsigned ntx)
{
    advance(n, ms - 1u);
    CHECK_EQ(n->f.ntx, ntx);
    advance(n, 1);
    CHECK_EQ(n->f.ntx, ntx + 1u);
}


#endif
#endif
