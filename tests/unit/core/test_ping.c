/* Ping (include/moteip/ping.h) between two stacks joined by an in-memory
 * raw-IP link: requests answered by the peer's own echo code, replies
 * handed to the sender's handler intact, over IPv6 and IPv4, fragmented
 * both ways when large; replies nobody waits for and truncated replies are
 * dropped with exactly one counter each. */
#include "fixture.h"
#include "moteip/ping.h"

#define LINK_QMAX 16

/* Node 0 is A (192.0.2.1, fd00::1), node 1 is B (192.0.2.2, fd00::2). */
struct node {
    struct mip_stack *s;
    struct fixture_frame q[LINK_QMAX];   /* frames sent, not yet delivered */
    unsigned nq;
    unsigned sent;
};

struct reply {
    unsigned calls;
    struct mip_addr from;
    uint16_t id, seq;
    size_t len;
    uint8_t data[4096];
    bool truncated;                      /* longer than data[] */
};

struct net {
    struct node n[2];
    mip_time_t now;
    struct reply got;
    uint16_t resend_until;               /* handler: send seq+1 while below */
};

static mip_status link_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct node *nd = ctx;
    struct fixture_frame *fr;
    nd->sent++;
    if (nd->nq >= LINK_QMAX || len > FIXTURE_FRAME_MAX)
        return MIP_ERR_NOBUFS;
    fr = &nd->q[nd->nq++];
    fr->netif = 0;
    fr->len = len;
    memcpy(fr->data, frame, len);
    return MIP_OK;
}

static const struct mip_netif_driver link_driver = { link_transmit, NULL, NULL };

static void net_init(struct net *w)
{
    static const char *const addr4[2] = {"192.0.2.1", "192.0.2.2"};
    static const char *const addr6[2] = {"fd00::1", "fd00::2"};
    int i;
    memset(w, 0, sizeof(*w));
    w->now = 1000;
    for (i = 0; i < 2; i++) {
        uint8_t seed[16], iid[8] = {0x02, 0, 0, 0xFF, 0xFE, 0, 0, 0};
        struct mip_stack_config cfg;
        struct mip_addr a;
        uint8_t idx = 0xEE;
        memset(seed, 0x30 + i, sizeof(seed));
        iid[7] = (uint8_t)(i + 1);
        memset(&cfg, 0, sizeof(cfg));
        cfg.entropy = seed;
        cfg.entropy_len = sizeof(seed);
        w->n[i].s = calloc(1, sizeof(struct mip_stack));
        mip_stack_init(w->n[i].s, &cfg, w->now);
        CHECK_EQ(mip_netif_add_rawip(w->n[i].s, FIXTURE_MTU, iid, &link_driver, &w->n[i], &idx),
                 MIP_OK);
        CHECK_EQ(idx, 0);
#if MIP_CONF_IPV4
        a = fixture_addr(addr4[i]);
        CHECK_EQ(mip_netif_add_addr(w->n[i].s, 0, &a, 24), MIP_OK);
#endif
        a = fixture_addr(addr6[i]);
        CHECK_EQ(mip_netif_add_addr(w->n[i].s, 0, &a, 64), MIP_OK);
    }
    (void)addr4;
}

/* Delivers every queued frame to the other side (exact-size heap copies,
 * so ASan sees any read past a frame), including frames sent while
 * delivering, until both queues are empty. Returns the frames moved. */
static unsigned net_pump(struct net *w)
{
    unsigned moved = 0;
    bool any = true;
    while (any) {
        int i;
        any = false;
        for (i = 0; i < 2; i++) {
            struct node *from = &w->n[i];
            struct fixture_frame batch[LINK_QMAX];
            unsigned k, n = from->nq;
            memcpy(batch, from->q, n * sizeof(batch[0]));
            from->nq = 0;
            for (k = 0; k < n; k++) {
                uint8_t *copy = malloc(batch[k].len);
                memcpy(copy, batch[k].data, batch[k].len);
                mip_stack_input(w->n[1 - i].s, 0, copy, batch[k].len, w->now);
                free(copy);
                moved++;
                any = true;
            }
        }
    }
    return moved;
}

static uint32_t stat_of(const struct net *w, int i, enum mip_stat which)
{
    return mip_stack_stat(w->n[i].s, which);
}

static uint32_t drops_total(const struct net *w, int i)
{
    uint32_t n = 0;
    int k;
    for (k = MIP_STAT_drop_link_truncated; k <= MIP_STAT_drop_tx_driver; k++)
        n += stat_of(w, i, (enum mip_stat)k);
    return n;
}

static void net_free(struct net *w)
{
    int i;
    w->now += 10u * 60u * 1000u;       /* every timer out (reassembly slots) */
    for (i = 0; i < 2; i++) {
        (void)mip_stack_poll(w->n[i].s, w->now);
        CHECK_EQ(w->n[i].s->pool.in_use, 0);
        free(w->n[i].s);
    }
}

static void on_reply(void *ctx, struct mip_stack *s, const struct mip_addr *from, uint16_t id,
                     uint16_t seq, const uint8_t *data, size_t len)
{
    struct net *w = ctx;
    struct reply *r = &w->got;
    CHECK(s == w->n[0].s);
    r->calls++;
    r->from = *from;
    r->id = id;
    r->seq = seq;
    r->len = len;
    r->truncated = len > sizeof(r->data);
    memcpy(r->data, data, r->truncated ? sizeof(r->data) : len);
    /* Sending from inside the handler is allowed (the next echo). */
    if (seq < w->resend_until)
        CHECK_EQ(mip_ping_send(s, from, id, (uint16_t)(seq + 1u), data, len), MIP_OK);
}

static void fill(uint8_t *buf, size_t n, unsigned salt)
{
    size_t i;
    for (i = 0; i < n; i++)
        buf[i] = (uint8_t)(i * 13u + salt + (i >> 8));
}

/* The request A sent: one unfragmented datagram of the given type whose
 * ICMP checksum verifies, carrying id, seq and data. */
static void check_request(const struct fixture_frame *fr, bool v6, uint16_t id, uint16_t seq,
                          const uint8_t *data, size_t n)
{
    const uint8_t *pkt = fr->data;
    size_t ihl = v6 ? 40u : 20u;
    const uint8_t *m = pkt + ihl;
    CHECK_EQ(fr->len, ihl + 8u + n);
    if (fr->len != ihl + 8u + n)
        return;
    if (v6) {
        CHECK_EQ(pkt[0] >> 4, 6);
        CHECK_EQ(pkt[6], 58);
        CHECK_EQ(m[0], 128);
        CHECK_EQ(mip_cksum_finish(mip_cksum_add(
                     mip_cksum_pseudo6(pkt + 8, pkt + 24, 58, (uint32_t)(8u + n)), m, 8u + n)),
                 0);
    } else {
        CHECK_EQ(pkt[0], 0x45);
        CHECK_EQ(pkt[9], 1);
        CHECK_EQ(m[0], 8);
        CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, pkt, 20)), 0);
        CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, m, 8u + n)), 0);
    }
    CHECK_EQ(m[1], 0);
    CHECK_EQ(mip_rd16(m + 4), id);
    CHECK_EQ(mip_rd16(m + 6), seq);
    CHECK_MEM(m + 8, data, n);
}

static void check_reply(const struct net *w, const char *from, uint16_t id, uint16_t seq,
                        const uint8_t *data, size_t n)
{
    struct mip_addr a = fixture_addr(from);
    CHECK_EQ(w->got.calls, 1);
    CHECK(mip_addr_eq(&w->got.from, &a));
    CHECK_EQ(w->got.id, id);
    CHECK_EQ(w->got.seq, seq);
    CHECK_EQ(w->got.len, n);
    CHECK(!w->got.truncated);
    if (w->got.len == n && !w->got.truncated)
        CHECK_MEM(w->got.data, data, n);
}

static void ping_once(bool v6)
{
    struct net w;
    struct mip_addr dst;
    uint8_t data[56];
    net_init(&w);
    fill(data, sizeof(data), v6 ? 1u : 2u);
    mip_ping_set_handler(w.n[0].s, on_reply, &w);
    dst = fixture_addr(v6 ? "fd00::2" : "192.0.2.2");
    CHECK_EQ(mip_ping_send(w.n[0].s, &dst, 0xBEEF, 0x0102, data, sizeof(data)), MIP_OK);
    CHECK_EQ(w.n[0].nq, 1);
    check_request(&w.n[0].q[0], v6, 0xBEEF, 0x0102, data, sizeof(data));
    CHECK_EQ(net_pump(&w), 2);
    check_reply(&w, v6 ? "fd00::2" : "192.0.2.2", 0xBEEF, 0x0102, data, sizeof(data));
    CHECK_EQ(stat_of(&w, 1, MIP_STAT_icmp_echo_replied), 1);
    CHECK_EQ(stat_of(&w, 0, MIP_STAT_icmp_echo_reply_rx), 1);
    CHECK_EQ(stat_of(&w, 0, MIP_STAT_icmp_rx), 1);
    CHECK_EQ(drops_total(&w, 0), 0);
    CHECK_EQ(drops_total(&w, 1), 0);
    net_free(&w);
}

static void test_ping6_answered_and_delivered(void)
{
    ping_once(true);
}

#if MIP_CONF_IPV4
static void test_ping4_answered_and_delivered(void)
{
    ping_once(false);
}
#endif

static void test_empty_payload(void)
{
    struct net w;
    struct mip_addr dst = fixture_addr("fd00::2");
    uint8_t none[1] = {0};
    net_init(&w);
    mip_ping_set_handler(w.n[0].s, on_reply, &w);
    CHECK_EQ(mip_ping_send(w.n[0].s, &dst, 1, 0, NULL, 0), MIP_OK);
    CHECK_EQ(w.n[0].nq, 1);
    check_request(&w.n[0].q[0], true, 1, 0, none, 0);
    CHECK_EQ(net_pump(&w), 2);
    check_reply(&w, "fd00::2", 1, 0, none, 0);
    net_free(&w);
}

static void test_handler_may_send_the_next_echo(void)
{
    struct net w;
    struct mip_addr dst = fixture_addr("fd00::2");
    uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    net_init(&w);
    w.resend_until = 5;
    mip_ping_set_handler(w.n[0].s, on_reply, &w);
    CHECK_EQ(mip_ping_send(w.n[0].s, &dst, 9, 1, data, sizeof(data)), MIP_OK);
    CHECK_EQ(net_pump(&w), 10);
    CHECK_EQ(w.got.calls, 5);
    CHECK_EQ(w.got.seq, 5);
    CHECK_EQ(stat_of(&w, 0, MIP_STAT_icmp_echo_reply_rx), 5);
    CHECK_EQ(stat_of(&w, 1, MIP_STAT_icmp_echo_replied), 5);
    net_free(&w);
}

static void no_handler(bool v6)
{
    struct net w;
    struct mip_addr dst = fixture_addr(v6 ? "fd00::2" : "192.0.2.2");
    uint8_t data[16];
    net_init(&w);
    fill(data, sizeof(data), 3);
    CHECK_EQ(mip_ping_send(w.n[0].s, &dst, 7, 1, data, sizeof(data)), MIP_OK);
    CHECK_EQ(net_pump(&w), 2);
    CHECK_EQ(stat_of(&w, 0, MIP_STAT_drop_icmp_unhandled), 1);
    CHECK_EQ(drops_total(&w, 0), 1);
    CHECK_EQ(stat_of(&w, 0, MIP_STAT_icmp_echo_reply_rx), 0);
    /* A handler set and removed again leaves the same behaviour. */
    mip_ping_set_handler(w.n[0].s, on_reply, &w);
    mip_ping_set_handler(w.n[0].s, NULL, &w);
    CHECK_EQ(mip_ping_send(w.n[0].s, &dst, 7, 2, data, sizeof(data)), MIP_OK);
    CHECK_EQ(net_pump(&w), 2);
    CHECK_EQ(stat_of(&w, 0, MIP_STAT_drop_icmp_unhandled), 2);
    CHECK_EQ(drops_total(&w, 0), 2);
    CHECK_EQ(stat_of(&w, 0, MIP_STAT_icmp_echo_reply_rx), 0);
    CHECK_EQ(w.got.calls, 0);
    CHECK_EQ(drops_total(&w, 1), 0);
    net_free(&w);
}

static void test_reply_without_handler_counted_v6(void)
{
    no_handler(true);
}

#if MIP_CONF_IPV4
static void test_reply_without_handler_counted_v4(void)
{
    no_handler(false);
}
#endif

/* Larger than the MTU, within what the peer reassembles (the tiny
 * profile's one slot holds 1280 bytes of ICMP message). */
#define PING_BIG MIP_PROFILE_DEFAULT(1250u, 3000u)

static void large_ping(bool v6)
{
    static uint8_t data[PING_BIG];
    struct net w;
    struct mip_addr dst = fixture_addr(v6 ? "fd00::2" : "192.0.2.2");
    net_init(&w);
    fill(data, sizeof(data), 4);
    mip_ping_set_handler(w.n[0].s, on_reply, &w);
    CHECK_EQ(mip_ping_send(w.n[0].s, &dst, 0x4242, 77, data, sizeof(data)), MIP_OK);
    CHECK(w.n[0].nq >= 2);
    CHECK_EQ(stat_of(&w, 0, MIP_STAT_frag_tx), w.n[0].nq);
    net_pump(&w);
    CHECK_EQ(stat_of(&w, 1, MIP_STAT_frag_reassembled), 1);
    CHECK_EQ(stat_of(&w, 1, MIP_STAT_icmp_echo_replied), 1);
    CHECK(stat_of(&w, 1, MIP_STAT_frag_tx) >= 2);        /* the reply too */
    CHECK_EQ(stat_of(&w, 0, MIP_STAT_frag_reassembled), 1);
    check_reply(&w, v6 ? "fd00::2" : "192.0.2.2", 0x4242, 77, data, sizeof(data));
    CHECK_EQ(drops_total(&w, 0), 0);
    CHECK_EQ(drops_total(&w, 1), 0);
    net_free(&w);
}

static void test_large_ping6_fragments(void)
{
    large_ping(true);
}

#if MIP_CONF_IPV4
static void test_large_ping4_fragments(void)
{
    large_ping(false);
}
#endif

/* B's reply, captured instead of delivered. */
static size_t capture_reply(struct net *w, bool v6, uint8_t *out, size_t n)
{
    struct mip_addr dst = fixture_addr(v6 ? "fd00::2" : "192.0.2.2");
    uint8_t data[32];
    size_t len;
    fill(data, n, 5);
    CHECK_EQ(mip_ping_send(w->n[0].s, &dst, 3, 4, data, n), MIP_OK);
    CHECK_EQ(w->n[0].nq, 1);
    w->n[0].nq = 0;
    mip_stack_input(w->n[1].s, 0, w->n[0].q[0].data, w->n[0].q[0].len, w->now);
    CHECK_EQ(w->n[1].nq, 1);
    w->n[1].nq = 0;
    len = w->n[1].q[0].len;
    memcpy(out, w->n[1].q[0].data, len);
    return len;
}

static void truncated_reply(bool v6)
{
    const char *us = v6 ? "fd00::1" : "192.0.2.1", *peer = v6 ? "fd00::2" : "192.0.2.2";
    struct net w;
    uint8_t reply[128], pkt[128], icmp[8];
    size_t len, cut, l4;
    uint32_t before;
    enum mip_stat ip_trunc = v6 ? MIP_STAT_drop_ipv6_truncated : MIP_STAT_drop_ipv4_truncated;
    net_init(&w);
    mip_ping_set_handler(w.n[0].s, on_reply, &w);
    len = capture_reply(&w, v6, reply, 24);
    /* Cut short by the link: the IP length claims more than arrived. */
    for (cut = 1; cut < len; cut++) {
        uint8_t *copy = malloc(len - cut);
        memcpy(copy, reply, len - cut);
        before = drops_total(&w, 0);
        mip_stack_input(w.n[0].s, 0, copy, len - cut, w.now);
        free(copy);
        CHECK_EQ(drops_total(&w, 0), before + 1);
    }
    CHECK(stat_of(&w, 0, ip_trunc) > 0);
    CHECK_EQ(w.got.calls, 0);
    /* An echo reply shorter than its 8-byte header, in a well-formed
     * datagram with a valid ICMP checksum (from 1 byte: an IPv6 payload
     * length of 0 announces a jumbogram, another drop). */
    for (l4 = 1; l4 < 8; l4++) {
        memset(icmp, 0, sizeof(icmp));
        icmp[0] = v6 ? 129 : 0;
        if (v6) {
            if (l4 >= 4)
                fix_l4_checksum6(icmp, l4, 2, 58, peer, us);
            len = build_ipv6(pkt, peer, us, 58, 64, icmp, l4);
        } else {
            if (l4 >= 4)
                mip_wr16(icmp + 2, mip_cksum_finish(mip_cksum_add(0, icmp, l4)));
            len = build_ipv4(pkt, peer, us, 1, 64, 9, 0, 0, icmp, l4);
        }
        before = drops_total(&w, 0);
        {
            uint8_t *copy = malloc(len);
            memcpy(copy, pkt, len);
            mip_stack_input(w.n[0].s, 0, copy, len, w.now);
            free(copy);
        }
        CHECK_EQ(drops_total(&w, 0), before + 1);
    }
    CHECK_EQ(stat_of(&w, 0, MIP_STAT_drop_icmp_truncated), 7);
    CHECK_EQ(w.got.calls, 0);
    CHECK_EQ(stat_of(&w, 0, MIP_STAT_icmp_echo_reply_rx), 0);
    /* The whole reply still gets through afterwards. */
    mip_stack_input(w.n[0].s, 0, reply, capture_reply(&w, v6, reply, 24), w.now);
    CHECK_EQ(w.got.calls, 1);
    CHECK_EQ(stat_of(&w, 0, MIP_STAT_icmp_echo_reply_rx), 1);
    net_free(&w);
}

static void test_truncated_reply_dropped_v6(void)
{
    truncated_reply(true);
}

#if MIP_CONF_IPV4
static void test_truncated_reply_dropped_v4(void)
{
    truncated_reply(false);
}
#endif

static void test_bad_arguments(void)
{
    struct net w;
    struct mip_addr none, off_link = fixture_addr("2001:db8::1");
    uint8_t data[4] = {0};
    net_init(&w);
    memset(&none, 0, sizeof(none));
    CHECK_EQ(mip_ping_send(w.n[0].s, NULL, 1, 1, data, 4), MIP_ERR_INVALID);
    CHECK_EQ(mip_ping_send(w.n[0].s, &none, 1, 1, data, 4), MIP_ERR_INVALID);
    CHECK_EQ(mip_ping_send(w.n[0].s, &off_link, 1, 1, NULL, 4), MIP_ERR_INVALID);
    CHECK_EQ(mip_ping_send(w.n[0].s, &off_link, 1, 1, data, 65528u), MIP_ERR_INVALID);
#if MIP_CONF_IPV4
    {
        struct mip_addr v4 = fixture_addr("192.0.2.2");
        CHECK_EQ(mip_ping_send(w.n[0].s, &v4, 1, 1, data, 65508u), MIP_ERR_INVALID);
    }
#endif
    CHECK_EQ(w.n[0].nq, 0);
    CHECK_EQ(drops_total(&w, 0), 0);
    /* No route: the request is dropped and counted, like a UDP send. */
    CHECK_EQ(mip_ping_send(w.n[0].s, &off_link, 1, 1, data, 4), MIP_ERR_NOROUTE);
    CHECK_EQ(stat_of(&w, 0, MIP_STAT_drop_ip_no_route), 1);
    CHECK_EQ(drops_total(&w, 0), 1);
    CHECK_EQ(w.n[0].nq, 0);
    net_free(&w);
}

int main(void)
{
    RUN(test_ping6_answered_and_delivered);
    RUN(test_empty_payload);
    RUN(test_handler_may_send_the_next_echo);
    RUN(test_reply_without_handler_counted_v6);
    RUN(test_large_ping6_fragments);
    RUN(test_truncated_reply_dropped_v6);
    RUN(test_bad_arguments);
#if MIP_CONF_IPV4
    RUN(test_ping4_answered_and_delivered);
    RUN(test_reply_without_handler_counted_v4);
    RUN(test_large_ping4_fragments);
    RUN(test_truncated_reply_dropped_v4);
#endif
    return TESTING_DONE();
}
