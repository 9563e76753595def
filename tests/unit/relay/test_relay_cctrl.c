/* CCTRL ([B] ch. 4) on one forwarding node, driven through its stack.
 *
 * The node R (short address 5, 10.0.0.5 / fd00::ff:fe00:5) has one RAW_IP
 * radio netif. The client S (10.0.1.10 / fd01::10) is behind the upstream
 * neighbour U (short 6), the server D (10.0.2.10 / fd02::10) behind the
 * successor N (short 4). Segments S -> D arrive as frames from U, segments
 * D -> S as frames from N; the fixture's driver captures what R sends.
 * Time moves with mip_stack_poll + mip_relay_poll. With the defaults the
 * first t_r is 3 * 667 = 2001 ms (no sample yet). */
#include "core/fixture.h"
#include "moteip/relay.h"
#include "moteip/wire/tcp.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/sixlowpan.h"

#if MIP_CONF_FORWARD && MIP_CONF_LOWPAN && MIP_CONF_IPV4 && MIP_CONF_IPV6

#define SHORT_R 5u
#define SHORT_U 6u
#define SHORT_N 4u
#define PORT_S 1000u
#define PORT_D 80u
#define ISN_S 999u
#define ISN_D 5000u
#define FIRST_RTO 2001u        /* 3 * 667 ms */

struct node {
    struct fixture f;
    struct mip_relay *r;
};

/* R: forwarding stack, RAW_IP radio (12-byte link header, 180-byte frames),
 * routes to S's and D's prefixes, and a relay with cfg. */
static void node_init_cfg(struct node *n, const struct mip_relay_config *cfg)
{
    static const uint8_t seed[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
    static const char *const addrs[] = { "10.0.0.5", "fd00::ff:fe00:5" };
    static const uint8_t plens[] = { 24, 64 };
    static const char *const routes[][2] = {
        { "10.0.2.0", "10.0.0.4" }, { "10.0.1.0", "10.0.0.6" },
        { "fd02::", "fd00::ff:fe00:4" }, { "fd01::", "fd00::ff:fe00:6" },
    };
    struct mip_stack_config sc;
    struct mip_lowpan_config lc;
    uint8_t idx = 0xEE;
    unsigned i;

    memset(n, 0, sizeof(*n));
    n->r = calloc(1, sizeof(struct mip_relay));
    n->f.s = calloc(1, sizeof(struct mip_stack));
    n->f.now = 7000;
    memset(&sc, 0, sizeof(sc));
    sc.entropy = seed;
    sc.entropy_len = sizeof(seed);
    sc.forwarding = true;
    mip_stack_init(n->f.s, &sc, n->f.now);
    memset(&lc, 0, sizeof(lc));
    lc.mode = MIP_LOWPAN_RAW_IP;
    lc.pan_id = 0xABCD;
    lc.short_addr = SHORT_R;
    lc.frame_max = 180;
    lc.raw_link_hdr_len = 12;
    n->f.port[0].f = &n->f;
    n->f.port[0].reply = MIP_OK;
    CHECK_EQ(mip_netif_add_lowpan(n->f.s, &lc, &fixture_driver, &n->f.port[0], &idx), MIP_OK);
    CHECK_EQ(idx, 0);
    for (i = 0; i < 2; i++) {
        struct mip_addr a = fixture_addr(addrs[i]);
        CHECK_EQ(mip_netif_add_addr(n->f.s, 0, &a, plens[i]), MIP_OK);
    }
    for (i = 0; i < 4; i++) {
        struct mip_addr p = fixture_addr(routes[i][0]), g = fixture_addr(routes[i][1]);
        CHECK_EQ(mip_route_add(n->f.s, &p, i < 2 ? 24 : 64, &g, 0), MIP_OK);
    }
    CHECK_EQ(mip_relay_init(n->r, n->f.s, cfg, n->f.now), MIP_OK);
}

/* cctrl defaults plus the extensions named. */
static void node_init_cc(struct node *n, bool keep, bool drop, bool hop, bool activity)
{
    struct mip_relay_config c;
    mip_relay_config_default(&c, MIP_RELAY_CCTRL);
    c.cc_keep = keep;
    c.cc_drop = drop;
    c.cc_hop = hop;
    c.cc_activity = activity;
    node_init_cfg(n, &c);
}

static void node_free(struct node *n)
{
    fixture_free(&n->f);
    free(n->r);
}

static uint32_t rstat(const struct node *n, enum mip_relay_stat w)
{
    return mip_relay_stat(n->r, w);
}

static unsigned cached_slots(const struct node *n)
{
    unsigned i, c = 0;
    for (i = 0; i < MIP_RELAY_SLOTS; i++)
        c += n->r->slots[i].used == MIP_RELAY_SLOT_CACHE;
    return c;
}

static unsigned flows_used(const struct node *n)
{
    unsigned i, c = 0;
    for (i = 0; i < MIP_RELAY_FLOWS; i++)
        c += n->r->flows[i].used != 0;
    return c;
}

/* The flow of direction S -> D (to_s false) or D -> S; NULL: not tracked. */
static struct mip_relay_flow *flow(const struct node *n, bool v6, bool to_s)
{
    struct mip_addr s = fixture_addr(v6 ? "fd01::10" : "10.0.1.10");
    struct mip_addr d = fixture_addr(v6 ? "fd02::10" : "10.0.2.10");
    unsigned i;
    for (i = 0; i < MIP_RELAY_FLOWS; i++) {
        struct mip_relay_flow *f = &n->r->flows[i];
        if (f->used && mip_addr_eq(&f->src, to_s ? &d : &s) &&
            f->sport == (to_s ? PORT_D : PORT_S))
            return f;
    }
    return NULL;
}

/* --- segments ------------------------------------------------------------ */

struct tseg {
    bool v6;
    bool to_s;             /* D -> S instead of S -> D */
    uint32_t seq, ack;
    uint8_t flags;         /* 0: ACK */
    uint16_t len;          /* payload bytes */
    uint16_t id;           /* IPv4 ID */
    uint32_t label;        /* IPv6 flow label */
    uint8_t ttl;           /* 0: 64 */
    uint16_t win;          /* 0: 2048 */
    bool ts;
    uint32_t tsval, tsecr;
};

/* t as an IP datagram with right checksums; returns its length. */
static size_t mk(uint8_t *pkt, const struct tseg *t)
{
    uint8_t l4[300];
    struct mip_tcp_hdr h;
    struct mip_tcp_opts o;
    const char *s = t->v6 ? "fd01::10" : "10.0.1.10";
    const char *d = t->v6 ? "fd02::10" : "10.0.2.10";
    const char *src = t->to_s ? d : s, *dst = t->to_s ? s : d;
    size_t optlen, total, i;
    uint8_t ttl = t->ttl ? t->ttl : 64;

    memset(&o, 0, sizeof(o));
    if (t->ts) {
        o.present = MIP_TCP_HAS_TIMESTAMP;
        o.ts_val = t->tsval;
        o.ts_ecr = t->tsecr;
    }
    optlen = mip_tcp_opts_len(&o);
    memset(&h, 0, sizeof(h));
    h.src_port = t->to_s ? PORT_D : PORT_S;
    h.dst_port = t->to_s ? PORT_S : PORT_D;
    h.seq = t->seq;
    h.ack = t->ack;
    h.flags = t->flags ? t->flags : MIP_TCP_ACK;
    h.window = t->win ? t->win : 2048;
    h.hdr_len = (uint8_t)(MIP_TCP_HDR_LEN + optlen);
    CHECK_EQ(mip_tcp_emit(&h, l4, sizeof(l4)), MIP_OK);
    if (optlen)
        CHECK_EQ(mip_tcp_opts_emit(&o, l4 + MIP_TCP_HDR_LEN, optlen, NULL), MIP_OK);
    for (i = 0; i < t->len; i++)
        l4[h.hdr_len + i] = (uint8_t)(t->seq * 3u + i);
    total = h.hdr_len + t->len;
    if (t->v6) {
        size_t n;
        fix_l4_checksum6(l4, total, 16, MIP_IPPROTO_TCP, src, dst);
        n = build_ipv6(pkt, src, dst, MIP_IPPROTO_TCP, ttl, l4, total);
        /* flow label: version 6, traffic class 0, then 20 bits */
        pkt[1] = (uint8_t)((t->label >> 16) & 0x0Fu);
        pkt[2] = (uint8_t)(t->label >> 8);
        pkt[3] = (uint8_t)t->label;
        return n;
    }
    fix_l4_checksum4(l4, total, 16, MIP_IPPROTO_TCP, src, dst);
    return build_ipv4(pkt, src, dst, MIP_IPPROTO_TCP, ttl, t->id, 0, 0, l4, total);
}

/* A RAW_IP frame from short `from` to short `to` holding pkt. */
static size_t frame(uint8_t *out, uint16_t from, uint16_t to, const uint8_t *pkt, size_t len)
{
    struct mip_802154_hdr h;
    size_t hl = 0;
    memset(&h, 0, sizeof(h));
    h.type = MIP_802154_DATA;
    h.pan_id_compress = true;
    h.dst_pan = h.src_pan = 0xABCD;
    h.dst.mode = h.src.mode = MIP_802154_ADDR_SHORT;
    h.dst.short_addr = to;
    h.src.short_addr = from;
    CHECK_EQ(mip_ieee802154_emit(&h, out, 64, &hl), MIP_OK);
    CHECK_EQ(hl, 9);
    out[9] = (pkt[0] >> 4) == 4 ? 0x3F : 0x41;
    memcpy(out + 10, pkt, len);
    return 10 + len;
}

/* t arrives at R: from U when it goes to D, from N when it goes to S. */
static void feed(struct node *n, const struct tseg *t)
{
    uint8_t pkt[300], fr[400];
    size_t len = mk(pkt, t);
    size_t fl = frame(fr, t->to_s ? SHORT_N : SHORT_U, SHORT_R, pkt, len);
    fixture_input(&n->f, 0, fr, fl);
}

static struct tseg data_seg(bool v6, uint32_t seq, uint16_t len, uint16_t id)
{
    struct tseg t;
    memset(&t, 0, sizeof(t));
    t.v6 = v6;
    t.seq = seq;
    t.ack = ISN_D + 1u;
    t.flags = MIP_TCP_ACK | MIP_TCP_PSH;
    t.len = len;
    t.id = id;
    t.label = v6 ? id : 0u;
    return t;
}

static struct tseg ack_seg(bool v6, uint32_t ack, uint16_t id)
{
    struct tseg t;
    memset(&t, 0, sizeof(t));
    t.v6 = v6;
    t.to_s = true;
    t.seq = ISN_D + 1u;
    t.ack = ack;
    t.id = id;
    t.label = v6 ? 0x2468Au : 0u;
    return t;
}

static void feed_data(struct node *n, bool v6, uint32_t seq, uint16_t len, uint16_t id)
{
    struct tseg t = data_seg(v6, seq, len, id);
    feed(n, &t);
}

static void feed_ack(struct node *n, bool v6, uint32_t ack, uint16_t id)
{
    struct tseg t = ack_seg(v6, ack, id);
    feed(n, &t);
}

/* The three-way handshake S <-> D through R; the SYN-ACK arrives with
 * TTL syn_ack_ttl (0: 64). Leaves nothing captured. */
static void handshake(struct node *n, bool v6, uint8_t syn_ack_ttl)
{
    struct tseg t;
    memset(&t, 0, sizeof(t));
    t.v6 = v6;
    t.seq = ISN_S;
    t.flags = MIP_TCP_SYN;
    t.id = 1;
    feed(n, &t);
    n->f.now += 50;
    memset(&t, 0, sizeof(t));
    t.v6 = v6;
    t.to_s = true;
    t.seq = ISN_D;
    t.ack = ISN_S + 1u;
    t.flags = MIP_TCP_SYN | MIP_TCP_ACK;
    t.ttl = syn_ack_ttl;
    t.id = 1;
    feed(n, &t);
    memset(&t, 0, sizeof(t));
    t.v6 = v6;
    t.seq = ISN_S + 1u;
    t.ack = ISN_D + 1u;
    t.id = 2;
    feed(n, &t);
    CHECK_EQ(n->f.ntx, 3);
    fixture_clear(&n->f);
}

static void advance(struct node *n, uint32_t ms)
{
    n->f.now += ms;
    (void)mip_stack_poll(n->f.s, n->f.now);
    (void)mip_relay_poll(n->r, n->f.now);
}

/* R stays silent for ms - 1 ms, then sends one frame at ms. */
static void check_one_sent_after(struct node *n, uint32_t ms)
{
    unsigned before = n->f.ntx;
    advance(n, ms - 1u);
    CHECK_EQ(n->f.ntx, before);
    advance(n, 1);
    CHECK_EQ(n->f.ntx, before + 1u);
}

/* The MAC destination (short) of captured frame i. */
static uint16_t sent_to(const struct node *n, unsigned i)
{
    return (uint16_t)(n->f.tx[i].data[5] | (n->f.tx[i].data[6] << 8));
}

/* Decodes captured frame i as a TCP segment, checking both checksums. */
struct sent {
    uint8_t ttl;
    uint16_t id;
    uint32_t label;
    struct mip_addr src, dst;
    struct mip_tcp_hdr h;
    struct mip_tcp_opts o;
    size_t payload;
};

static void decode(const struct node *n, unsigned i, struct sent *s)
{
    const uint8_t *ip = n->f.tx[i].data + 10, *l4;
    size_t l4len;
    uint32_t sum;
    memset(s, 0, sizeof(*s));
    CHECK(i < n->f.ntx);
    if ((ip[0] >> 4) == 4) {
        struct mip_ipv4_hdr h;
        CHECK_EQ(mip_ipv4_parse(ip, n->f.tx[i].len - 10, &h), MIP_OK);
        CHECK(mip_ipv4_checksum_ok(ip, h.hdr_len));
        mip_addr_set4(&s->src, h.src);
        mip_addr_set4(&s->dst, h.dst);
        s->ttl = h.ttl;
        s->id = h.id;
        l4 = ip + h.hdr_len;
        l4len = (size_t)h.total_len - h.hdr_len;
        sum = mip_cksum_pseudo4(h.src, h.dst, MIP_IPPROTO_TCP, (uint16_t)l4len);
    } else {
        struct mip_ipv6_hdr h;
        CHECK_EQ(mip_ipv6_parse(ip, n->f.tx[i].len - 10, &h), MIP_OK);
        mip_addr_set6(&s->src, h.src);
        mip_addr_set6(&s->dst, h.dst);
        s->ttl = h.hop_limit;
        s->label = h.flow_label;
        l4 = ip + 40;
        l4len = h.payload_len;
        sum = mip_cksum_pseudo6(h.src, h.dst, MIP_IPPROTO_TCP, (uint32_t)l4len);
    }
    CHECK_EQ(mip_tcp_parse(l4, l4len, &s->h), MIP_OK);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(sum, l4, l4len)), 0);
    CHECK_EQ(mip_tcp_opts_parse(l4 + 20, (size_t)s->h.hdr_len - 20, &s->o), MIP_OK);
    s->payload = l4len - s->h.hdr_len;
}

/* --- tests ----------------------------------------------------------------- */

static void test_defaults_and_init(void)
{
    struct node n;
    struct mip_relay_config c;
    mip_relay_config_default(&c, MIP_RELAY_CCTRL);
    CHECK_EQ(c.mode, MIP_RELAY_CCTRL);
    CHECK_EQ(c.max_local_rexmit, 1);
    CHECK_EQ(c.rto_mult_q8, 768);
    CHECK_EQ(c.alpha_q8, 64);
    CHECK_EQ(c.rtt_init_ms, 667);
    CHECK_EQ(c.idle_timeout_s, 60);
    CHECK_EQ(c.cc_hop_beta_q8, 320);
    CHECK_EQ(c.cc_hop_max, 6);
    CHECK(!c.cc_keep && !c.cc_drop && !c.cc_hop && !c.cc_activity);
    node_init_cfg(&n, &c);
    CHECK(n.f.s->fwd_hook != NULL);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), MIP_POLL_IDLE);
    node_free(&n);
}

/* A SYN starts a direction without an RTT measurement; forwarded data is
 * cached with t_r = 3 * 667 ms; a partial ACK keeps it, a covering one frees
 * it and gives the first sample (which replaces rtt_init), later ones
 * average with alpha 0.25 (Eq. 4.1) and set t_r = 3 * rtt (Eq. 4.2). */
static void test_cache_cleared_by_ack_with_rtt_samples(void)
{
    struct node n;
    struct mip_relay_flow *f;
    struct sent s;
    node_init_cc(&n, false, false, false, false);
    handshake(&n, false, 0);
    CHECK_EQ(flows_used(&n), 2);
    f = flow(&n, false, false);
    CHECK(f != NULL);
    CHECK_EQ(f->transmitted, ISN_S + 1u);
    CHECK_EQ(f->acked, ISN_S + 1u);                /* from the SYN-ACK */
    CHECK(!(f->flags & (MIP_RELAY_F_RTT_OK | MIP_RELAY_F_RTT_ON)));
    CHECK_EQ(cached_slots(&n), 0);                 /* SYNs have no payload */

    feed_data(&n, false, 1000, 40, 10);
    CHECK_EQ(n.f.ntx, 1);
    CHECK_EQ(sent_to(&n, 0), SHORT_N);
    decode(&n, 0, &s);
    CHECK_EQ(s.ttl, 63);
    CHECK_EQ(s.h.seq, 1000);
    CHECK_EQ(s.payload, 40);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_data_seen), 1);
    CHECK_EQ(cached_slots(&n), 1);
    CHECK_EQ(f->transmitted, 1040);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), FIRST_RTO);

    n.f.now += 50;
    feed_ack(&n, false, 1020, 20);                 /* partial: kept */
    CHECK_EQ(cached_slots(&n), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 0);
    n.f.now += 70;
    feed_ack(&n, false, 1040, 21);
    CHECK_EQ(n.f.ntx, 3);                          /* both ACKs went on to U */
    CHECK_EQ(sent_to(&n, 2), SHORT_U);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_seen), 3);   /* and the handshake's */
    CHECK_EQ(cached_slots(&n), 0);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 1);
    CHECK(f->flags & MIP_RELAY_F_RTT_OK);
    CHECK_EQ(f->rtt_q8, 120u * 256u);              /* the first sample as it is */

    feed_data(&n, false, 1040, 40, 11);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), 360);   /* 3 * 120 */
    n.f.now += 200;
    feed_ack(&n, false, 1080, 22);
    CHECK_EQ(f->rtt_q8, 140u * 256u);              /* 0.75 * 120 + 0.25 * 200 */
    feed_data(&n, false, 1080, 40, 12);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), 420);
    check_one_sent_after(&n, 420);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 1);
    node_free(&n);
}

/* Basic module: one local retransmission at t_r, the datagram exactly as
 * forwarded, and the segment leaves the cache with it. An ACK then gives
 * no sample; the sender's own retransmission is cached again but not timed
 * (Karn). */
static void test_basic_one_rexmit_then_released(void)
{
    struct node n;
    struct mip_relay_flow *f;
    node_init_cc(&n, false, false, false, false);
    handshake(&n, false, 0);
    f = flow(&n, false, false);
    feed_data(&n, false, 1000, 40, 10);
    check_one_sent_after(&n, FIRST_RTO);
    CHECK_EQ(n.f.tx[1].len, n.f.tx[0].len);
    CHECK_MEM(n.f.tx[1].data, n.f.tx[0].data, n.f.tx[0].len);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_early_rexmits), 0);
    CHECK_EQ(cached_slots(&n), 0);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now) > 50000u, true);   /* only the idle timer */
    advance(&n, 20000);
    CHECK_EQ(n.f.ntx, 2);

    feed_data(&n, false, 1000, 40, 30);            /* S's RTO: a new IP ID */
    CHECK_EQ(n.f.ntx, 3);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 2);
    CHECK(!(f->flags & MIP_RELAY_F_RTT_ON));
    n.f.now += 80;
    feed_ack(&n, false, 1040, 40);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 1);
    CHECK(!(f->flags & MIP_RELAY_F_RTT_OK));       /* still rtt_init */
    CHECK_EQ(cached_slots(&n), 0);
    node_free(&n);
}

/* keep: three retransmissions t_r apart (no backoff), the copy kept one
 * more t_r, then freed; max_local_rexmit 2 with keep gives two. */
static void keep_retries(uint8_t max_local_rexmit, unsigned expect)
{
    struct node n;
    struct mip_relay_config c;
    unsigned k;
    mip_relay_config_default(&c, MIP_RELAY_CCTRL);
    c.cc_keep = true;
    c.max_local_rexmit = max_local_rexmit;
    node_init_cfg(&n, &c);
    handshake(&n, false, 0);
    feed_data(&n, false, 1000, 40, 10);
    for (k = 1; k <= expect; k++) {
        check_one_sent_after(&n, FIRST_RTO);
        CHECK_MEM(n.f.tx[k].data, n.f.tx[0].data, n.f.tx[0].len);
        CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), k);
        CHECK_EQ(cached_slots(&n), 1);
    }
    advance(&n, FIRST_RTO - 1u);
    CHECK_EQ(cached_slots(&n), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_rexmit_gave_up), 0);
    advance(&n, 1);
    CHECK_EQ(cached_slots(&n), 0);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_rexmit_gave_up), 1);
    advance(&n, 10000);
    CHECK_EQ(n.f.ntx, expect + 1u);
    node_free(&n);
}

static void test_keep_three_rexmits_then_freed(void) { keep_retries(1, 3); }
static void test_keep_with_two_rexmits(void) { keep_retries(2, 2); }

/* keep: an ACK after a local retransmission frees the copy without a
 * sample (Karn). */
static void test_keep_ack_after_rexmit_no_sample(void)
{
    struct node n;
    struct mip_relay_flow *f;
    node_init_cc(&n, true, false, false, false);
    handshake(&n, false, 0);
    f = flow(&n, false, false);
    feed_data(&n, false, 1000, 40, 10);
    check_one_sent_after(&n, FIRST_RTO);
    n.f.now += 30;
    feed_ack(&n, false, 1040, 20);
    CHECK_EQ(cached_slots(&n), 0);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 1);
    CHECK(!(f->flags & MIP_RELAY_F_RTT_OK));
    node_free(&n);
}

/* drop: a received copy of the cached segment is dropped (the stack counts
 * the hook's DROP); the next segment still passes, uncached (one cache per
 * direction). */
static void test_drop_copy_of_cached_segment(void)
{
    struct node n;
    node_init_cc(&n, true, true, false, false);
    handshake(&n, false, 0);
    feed_data(&n, false, 1000, 40, 10);
    CHECK_EQ(n.f.ntx, 1);
    feed_data(&n, false, 1000, 40, 11);            /* a copy from upstream */
    CHECK_EQ(n.f.ntx, 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_dup_dropped), 1);
    CHECK_EQ(fixture_stat(&n.f, MIP_STAT_drop_fwd_hook), 1);
    feed_data(&n, false, 1040, 40, 12);
    CHECK_EQ(n.f.ntx, 2);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_not_cached), 1);
    CHECK_EQ(cached_slots(&n), 1);
    CHECK_EQ(n.r->slots[0].seq + 0u, 1000u);
    node_free(&n);
}

/* Without drop a copy of the cached segment goes on, and the ACK, which
 * may answer the copy, gives no sample. */
static void test_copy_passes_without_drop(void)
{
    struct node n;
    struct mip_relay_flow *f;
    node_init_cc(&n, false, false, false, false);
    handshake(&n, false, 0);
    f = flow(&n, false, false);
    feed_data(&n, false, 1000, 40, 10);
    n.f.now += 500;
    feed_data(&n, false, 1000, 40, 11);
    CHECK_EQ(n.f.ntx, 2);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_dup_dropped), 0);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_not_cached), 1);
    n.f.now += 50;
    feed_ack(&n, false, 1040, 20);
    CHECK_EQ(cached_slots(&n), 0);
    CHECK(!(f->flags & MIP_RELAY_F_RTT_OK));
    node_free(&n);
}

/* Data already acknowledged (the ACK was lost between R and S) is not
 * forwarded: R answers with D's latest ACK, byte for byte the one it
 * forwarded (ack = the highest seen, an overtaken older ACK does not lower
 * it; addresses, ports, TTL, ID or flow label, window, timestamps). */
static void regenerated_ack(bool v6)
{
    struct node n;
    struct tseg a;
    struct sent s;
    struct mip_addr src = fixture_addr(v6 ? "fd01::10" : "10.0.1.10");
    struct mip_addr d = fixture_addr(v6 ? "fd02::10" : "10.0.2.10");
    uint8_t fwd[FIXTURE_FRAME_MAX];
    size_t fwd_len;
    node_init_cc(&n, false, false, false, false);
    handshake(&n, v6, 0);
    feed_data(&n, v6, 1000, 40, 10);
    a = ack_seg(v6, 1040, 77);
    a.ts = true;
    a.tsval = 123456;
    a.tsecr = 654321;
    a.win = 1500;
    n.f.now += 40;
    feed(&n, &a);
    CHECK_EQ(n.f.ntx, 2);
    fwd_len = n.f.tx[1].len;
    memcpy(fwd, n.f.tx[1].data, fwd_len);
    a = ack_seg(v6, 1020, 76);                     /* overtaken */
    feed(&n, &a);
    CHECK_EQ(n.f.ntx, 3);
    fixture_clear(&n.f);

    feed_data(&n, v6, 1000, 40, 31);
    CHECK_EQ(n.f.ntx, 1);
    CHECK_EQ(sent_to(&n, 0), SHORT_U);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_regenerated), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 1);
    decode(&n, 0, &s);
    CHECK(mip_addr_eq(&s.src, &d));
    CHECK(mip_addr_eq(&s.dst, &src));
    CHECK_EQ(s.h.src_port, PORT_D);
    CHECK_EQ(s.h.dst_port, PORT_S);
    CHECK_EQ(s.h.seq, ISN_D + 1u);
    CHECK_EQ(s.h.ack, 1040);
    CHECK_EQ(s.h.flags, MIP_TCP_ACK);
    CHECK_EQ(s.h.window, 1500);
    CHECK_EQ(s.ttl, 63);
    CHECK(s.o.present & MIP_TCP_HAS_TIMESTAMP);
    CHECK_EQ(s.o.ts_val, 123456);
    CHECK_EQ(s.o.ts_ecr, 654321);
    if (v6)
        CHECK_EQ(s.label, 0x2468A);
    else
        CHECK_EQ(s.id, 77);
    CHECK_EQ(n.f.tx[0].len, fwd_len);
    CHECK_MEM(n.f.tx[0].data + 9, fwd + 9, fwd_len - 9);   /* after the MHR (its seq no differs) */
    node_free(&n);
}

static void test_regenerated_ack_v4(void) { regenerated_ack(false); }
static void test_regenerated_ack_v6(void) { regenerated_ack(true); }

/* hop: t_r = min(h, 6) * 1.25 * rtt, h = 64 - the TTL D's datagrams have
 * here (after R's decrement); basic 3 * rtt until h is known. */
static void test_hop_rto(void)
{
    struct node n;
    struct mip_relay_flow *f;
    struct tseg a;
    node_init_cc(&n, false, false, true, false);
    handshake(&n, false, 62);                      /* seen 61: h = 3 */
    f = flow(&n, false, false);
    CHECK(f->flags & MIP_RELAY_F_HOPS);
    CHECK_EQ(f->hops, 3);
    feed_data(&n, false, 1000, 40, 10);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), 2499); /* 3 * (667 * 1.25 = 833) */
    n.f.now += 100;
    a = ack_seg(false, 1040, 20);
    a.ttl = 62;
    feed(&n, &a);
    CHECK_EQ(f->rtt_q8 >> 8, 100);
    feed_data(&n, false, 1040, 40, 11);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), 375);  /* 3 * 125 */
    n.f.now += 100;
    a = ack_seg(false, 1080, 21);
    a.ttl = 55;                                    /* h = 10: capped at 6 */
    feed(&n, &a);
    CHECK_EQ(f->hops, 10);
    feed_data(&n, false, 1080, 40, 12);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), 750);
    n.f.now += 100;
    a = ack_seg(false, 1120, 22);                  /* D is R's neighbour */
    feed(&n, &a);
    CHECK_EQ(f->hops, 1);
    feed_data(&n, false, 1120, 40, 13);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), 125);
    check_one_sent_after(&n, 125);
    node_free(&n);
}

static void test_hop_unknown_and_off(void)
{
    struct node n;
    /* hop on, but no datagram from D seen with a readable TTL (its TTL
     * above 64): 3 * rtt */
    node_init_cc(&n, false, false, true, false);
    handshake(&n, false, 200);
    CHECK(!(flow(&n, false, false)->flags & MIP_RELAY_F_HOPS));
    feed_data(&n, false, 1000, 40, 10);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), FIRST_RTO);
    node_free(&n);
    /* hop off: the distance is learnt but not used */
    node_init_cc(&n, false, false, false, false);
    handshake(&n, false, 60);
    CHECK_EQ(flow(&n, false, false)->hops, 5);
    feed_data(&n, false, 1000, 40, 10);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), FIRST_RTO);
    node_free(&n);
}

/* A node with activity whose flow has rtt 300 ms (t_r 900 ms). */
static void activity_node(struct node *n, bool keep)
{
    node_init_cc(n, keep, false, false, true);
    handshake(n, false, 0);
    feed_data(n, false, 1000, 40, 10);
    n->f.now += 300;
    feed_ack(n, false, 1040, 20);
    CHECK_EQ(flow(n, false, false)->rtt_q8 >> 8, 300);
    fixture_clear(&n->f);
}

static void overhear_any(struct node *n)
{
    static const uint8_t junk[] = { 0x41, 0x88, 0x01, 0xCD, 0xAB, 0x03, 0x00, 0x07, 0x00, 0x99 };
    mip_relay_overheard(n->r, 0, junk, sizeof(junk), n->f.now);
}

/* activity (Listing 4.2): at 2/3 t_r a quiet channel (no frame overheard
 * within the last rtt) means retransmit at once; a busy one waits the
 * remaining third. */
static void test_activity_quiet_early_busy_late(void)
{
    struct node n;
    activity_node(&n, false);
    /* quiet: at 600 ms */
    feed_data(&n, false, 1040, 40, 11);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), 600);
    check_one_sent_after(&n, 600);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_early_rexmits), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 1);
    CHECK_EQ(cached_slots(&n), 0);                 /* basic: released */
    /* busy: a frame 200 ms before the check (inside the 300 ms window) */
    feed_data(&n, false, 1080, 40, 12);
    advance(&n, 400);
    overhear_any(&n);
    advance(&n, 200);
    CHECK_EQ(n.f.ntx, 3);                          /* forwarded + 1 rexmit so far */
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), 300);
    check_one_sent_after(&n, 300);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_early_rexmits), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 2);
    /* a frame older than the rtt does not count */
    feed_data(&n, false, 1120, 40, 13);
    advance(&n, 250);
    overhear_any(&n);
    check_one_sent_after(&n, 350);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_early_rexmits), 2);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_activity_frames), 2);
    node_free(&n);
}

/* activity + keep: only the first timer is split; later ones run the
 * full t_r. */
static void test_activity_keep_later_attempts_full(void)
{
    struct node n;
    activity_node(&n, true);
    feed_data(&n, false, 1040, 40, 11);
    check_one_sent_after(&n, 600);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_early_rexmits), 1);
    check_one_sent_after(&n, 900);
    check_one_sent_after(&n, 900);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 3);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_early_rexmits), 1);
    node_free(&n);
}

/* The ring keeps the latest MIP_RELAY_ACTIVITY frame times; without
 * activity nothing is counted. */
static void test_activity_ring_bound(void)
{
    struct node n;
    unsigned i;
    node_init_cc(&n, false, false, false, true);
    for (i = 0; i < MIP_RELAY_ACTIVITY + 5u; i++) {
        n.f.now += 1;
        overhear_any(&n);
    }
    CHECK_EQ(n.r->activity_count, MIP_RELAY_ACTIVITY);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_activity_frames), MIP_RELAY_ACTIVITY + 5u);
    CHECK_EQ(n.r->activity[(n.r->activity_next + MIP_RELAY_ACTIVITY - 1u) % MIP_RELAY_ACTIVITY],
             n.f.now);
    node_free(&n);
    node_init_cc(&n, false, false, false, false);
    overhear_any(&n);
    CHECK_EQ(n.r->activity_count, 0);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_activity_frames), 0);
    node_free(&n);
}

/* One cache per direction; D's data is cached in its own direction and
 * the ACK it carries frees S's cached segment. */
static void test_directions_cache_separately(void)
{
    struct node n;
    struct tseg t;
    node_init_cc(&n, false, false, false, false);
    handshake(&n, true, 0);
    feed_data(&n, true, 1000, 40, 10);
    feed_data(&n, true, 1040, 40, 11);
    CHECK_EQ(n.f.ntx, 2);
    CHECK_EQ(cached_slots(&n), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_not_cached), 1);
    t = ack_seg(true, 1040, 0);
    t.flags = MIP_TCP_ACK | MIP_TCP_PSH;
    t.len = 30;
    n.f.now += 60;
    feed(&n, &t);
    CHECK_EQ(n.f.ntx, 3);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 2);
    CHECK_EQ(cached_slots(&n), 1);
    CHECK_EQ(flow(&n, true, true)->transmitted, ISN_D + 31u);
    t = data_seg(true, 1080, 40, 12);
    t.ack = ISN_D + 31u;
    n.f.now += 45;
    feed(&n, &t);                                  /* frees D's, is cached */
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 2);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 3);
    CHECK_EQ(cached_slots(&n), 1);
    CHECK_EQ(flow(&n, true, true)->rtt_q8, 45u * 256u);
    CHECK_EQ(flow(&n, true, false)->rtt_q8, 60u * 256u);
    node_free(&n);
}

/* [B] 4.1.4: a FIN or an RST ends both directions and their caches; the
 * segment itself goes on. */
static void test_fin_and_rst_end_both_directions(void)
{
    struct node n;
    struct tseg t;
    node_init_cc(&n, true, false, false, false);
    handshake(&n, false, 0);
    feed_data(&n, false, 1000, 40, 10);
    t = data_seg(false, 1040, 0, 11);
    t.flags = MIP_TCP_FIN | MIP_TCP_ACK;
    feed(&n, &t);
    CHECK_EQ(n.f.ntx, 2);
    CHECK_EQ(flows_used(&n), 0);
    CHECK_EQ(cached_slots(&n), 0);
    advance(&n, 5000);
    CHECK_EQ(n.f.ntx, 2);                          /* nothing left to resend */

    fixture_clear(&n.f);
    handshake(&n, false, 0);
    feed_data(&n, false, 1000, 40, 12);
    t = ack_seg(false, 1000, 0);
    t.len = 20;
    t.flags = MIP_TCP_ACK | MIP_TCP_PSH;
    feed(&n, &t);
    CHECK_EQ(cached_slots(&n), 2);
    t = ack_seg(false, 1000, 0);
    t.seq = ISN_D + 21u;
    t.flags = MIP_TCP_RST | MIP_TCP_ACK;
    feed(&n, &t);
    CHECK_EQ(n.f.ntx, 3);
    CHECK_EQ(flows_used(&n), 0);
    CHECK_EQ(cached_slots(&n), 0);
    node_free(&n);
}

/* Pure ACKs of unknown connections and non-TCP datagrams pass untouched
 * and create nothing; an idle connection is forgotten after 60 s. */
static void test_untracked_passes_and_idle_timeout(void)
{
    struct node n;
    uint8_t pkt[300], fr[400], udp[64];
    size_t len, fl;
    node_init_cc(&n, false, false, false, false);
    feed_ack(&n, false, 1234, 5);
    CHECK_EQ(n.f.ntx, 1);
    CHECK_EQ(flows_used(&n), 0);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_ignored), 1);
    len = build_udp(udp, false, "10.0.1.10", "10.0.2.10", 7, 9, (const uint8_t *)"abc", 3);
    len = build_ipv4(pkt, "10.0.1.10", "10.0.2.10", MIP_IPPROTO_UDP, 64, 3, 0, 0, udp, len);
    fl = frame(fr, SHORT_U, SHORT_R, pkt, len);
    fixture_input(&n.f, 0, fr, fl);
    CHECK_EQ(n.f.ntx, 2);
    CHECK_EQ(n.f.tx[1].len, fl);
    CHECK_MEM(n.f.tx[1].data + 10 + 9, pkt + 9, 1);   /* TTL aside, the same datagram */
    CHECK_MEM(n.f.tx[1].data + 10 + 12, pkt + 12, len - 12);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_ignored), 2);

    fixture_clear(&n.f);
    handshake(&n, false, 0);
    feed_data(&n, false, 1000, 40, 10);
    advance(&n, 59999);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 1);
    CHECK_EQ(flows_used(&n), 2);
    advance(&n, 1);
    CHECK_EQ(flows_used(&n), 0);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), MIP_POLL_IDLE);
    node_free(&n);
}

int main(void)
{
    RUN(test_defaults_and_init);
    RUN(test_cache_cleared_by_ack_with_rtt_samples);
    RUN(test_basic_one_rexmit_then_released);
    RUN(test_keep_three_rexmits_then_freed);
    RUN(test_keep_with_two_rexmits);
    RUN(test_keep_ack_after_rexmit_no_sample);
    RUN(test_drop_copy_of_cached_segment);
    RUN(test_copy_passes_without_drop);
    RUN(test_regenerated_ack_v4);
    RUN(test_regenerated_ack_v6);
    RUN(test_hop_rto);
    RUN(test_hop_unknown_and_off);
    RUN(test_activity_quiet_early_busy_late);
    RUN(test_activity_keep_later_attempts_full);
    RUN(test_activity_ring_bound);
    RUN(test_directions_cache_separately);
    RUN(test_fin_and_rst_end_both_directions);
    RUN(test_untracked_passes_and_idle_timeout);
    return TESTING_DONE();
}

#else

int main(void)
{
    printf("relay cctrl: not in this profile (MIP_CONF_FORWARD)\n");
    return 0;
}

#endif
