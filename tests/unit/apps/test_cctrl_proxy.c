/*
 * The split-and-merge proxy's client side (apps/cctrl_proxy.h) on the relay
 * fixture's forwarding node R (tests/unit/relay/relay_fixture.h): S's SYN
 * to D's port 80 is held and R opens two subflows to the peer; S's
 * retransmitted SYN is dropped meanwhile; when the setup timer ends
 * without the peer's READY the held SYN goes on exactly as it came and the
 * pair is left alone; SYNs to other ports, and SYNs that find the table
 * full of streams being set up, pass untouched; a passed pair is the one a
 * new SYN may evict. The whole path (server side, merge, NAT) runs in
 * tests/sim/test_cctrl_proxy.py.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "relay/relay_fixture.h"
#include "cctrl_proxy.h"
#include "testing.h"

#if MIP_CCTRL_PROXY && MIP_CONF_LOWPAN && MIP_CONF_IPV4 && MIP_CONF_IPV6

#define PEER "10.0.2.1"
#define TUNNEL 6100u

struct rig {
    struct node n;
    struct mip_tcp tcp;
    struct mip_cctrl_proxy *p;
    struct mip_cctrl_proxy_cfg cfg;
};

static void rig_init(struct rig *g)
{
    struct mip_relay_config rc;
    mip_relay_config_default(&rc, MIP_RELAY_CCTRL);
    node_init_cfg(&g->n, &rc);
    CHECK_EQ(mip_tcp_init(&g->tcp, g->n.f.s), MIP_OK);
    g->p = calloc(1, sizeof(*g->p));
    mip_cctrl_proxy_cfg_default(&g->cfg);
    g->cfg.port = DPORT;
    g->cfg.peer = fixture_addr(PEER);
    g->cfg.tunnel_port = TUNNEL;
    CHECK_EQ(mip_cctrl_proxy_init(g->p, g->n.f.s, &g->tcp, &g->cfg), MIP_OK);
}

static void rig_free(struct rig *g)
{
    node_free(&g->n);
    free(g->p);
}

static uint32_t pstat(const struct rig *g, enum mip_cctrl_proxy_stat w)
{
    return g->p->stat[w];
}

static struct tseg syn_from(uint16_t sport)
{
    struct tseg t;
    memset(&t, 0, sizeof(t));
    t.flags = MIP_TCP_SYN;
    t.seq = 7000u + sport;
    t.sport = sport;
    return t;
}

/* Frames R sent from `from` on: SYNs to the peer's tunnel port, and
 * segments to D's port 80. */
static void count_sent(const struct rig *g, unsigned from, unsigned *to_peer, unsigned *to_d)
{
    struct mip_addr peer = fixture_addr(PEER), d = fixture_addr(addr_d(false));
    unsigned i;
    struct sent s;
    *to_peer = *to_d = 0;
    for (i = from; i < g->n.f.ntx; i++) {
        if (!sent_at(&g->n, i, &s))
            continue;
        if (mip_addr_eq(&s.dst, &peer) && s.h.dst_port == TUNNEL && s.h.flags == MIP_TCP_SYN)
            (*to_peer)++;
        if (mip_addr_eq(&s.dst, &d) && s.h.dst_port == DPORT)
            (*to_d)++;
    }
}

/* The last frame R sent carries exactly t, one hop older. */
static void last_is(const struct rig *g, const struct tseg *t)
{
    uint8_t want[300];
    struct tseg u = *t;
    struct sent s;
    size_t len;
    u.ttl = 63;
    len = mk(want, &u);
    CHECK(sent_at(&g->n, g->n.f.ntx - 1u, &s));
    CHECK_EQ(s.ip_len, len);
    CHECK(memcmp(s.ip, want, len) == 0);
}

static void test_init_refuses_a_bad_configuration(void)
{
    struct rig g;
    struct mip_cctrl_proxy q;
    struct mip_cctrl_proxy_cfg c;
    rig_init(&g);
    c = g.cfg;
    c.subflows = 0;
    CHECK_EQ(mip_cctrl_proxy_init(&q, g.n.f.s, &g.tcp, &c), MIP_ERR_INVALID);
    c = g.cfg;
    c.subflows = MIP_CCTRL_SUBFLOWS_MAX + 1u;
    CHECK_EQ(mip_cctrl_proxy_init(&q, g.n.f.s, &g.tcp, &c), MIP_ERR_INVALID);
    c = g.cfg;
    c.hold = MIP_CCTRL_PROXY_HOLD + 1u;
    CHECK_EQ(mip_cctrl_proxy_init(&q, g.n.f.s, &g.tcp, &c), MIP_ERR_INVALID);
    c = g.cfg;
    c.peer.family = MIP_AF_NONE;
    CHECK_EQ(mip_cctrl_proxy_init(&q, g.n.f.s, &g.tcp, &c), MIP_ERR_INVALID);
    c = g.cfg;
    c.port = 0;                           /* neither a port nor a tunnel end */
    CHECK_EQ(mip_cctrl_proxy_init(&q, g.n.f.s, &g.tcp, &c), MIP_ERR_INVALID);
    c = g.cfg;
    c.setup_ms = 0;
    CHECK_EQ(mip_cctrl_proxy_init(&q, g.n.f.s, &g.tcp, &c), MIP_ERR_INVALID);
    c = g.cfg;                            /* port 80 is listened on already */
    CHECK_EQ(mip_cctrl_proxy_init(&q, g.n.f.s, &g.tcp, &c), MIP_ERR_INUSE);
    rig_free(&g);
}

static void test_a_syn_to_the_port_is_held_and_two_subflows_open(void)
{
    struct rig g;
    struct tseg t = syn_from(SPORT);
    unsigned peer, d;
    rig_init(&g);
    fixture_clear(&g.n.f);
    feed_seg(&g.n, &t);
    count_sent(&g, 0, &peer, &d);
    CHECK_EQ(peer, 2u);                   /* the subflows' SYNs */
    CHECK_EQ(d, 0u);                      /* the client's SYN stays */
    CHECK_EQ(pstat(&g, MIP_CCTRL_PROXY_STAT_syn_taken), 1u);
    CHECK_EQ(mip_cctrl_proxy_streams(g.p), 1u);
    /* the client retransmits: dropped while the subflows are set up */
    fixture_clear(&g.n.f);
    feed_seg(&g.n, &t);
    count_sent(&g, 0, &peer, &d);
    CHECK_EQ(d, 0u);
    CHECK_EQ(pstat(&g, MIP_CCTRL_PROXY_STAT_syn_dup), 1u);
    rig_free(&g);
}

static void test_without_ready_the_held_syn_goes_on_as_it_came(void)
{
    struct rig g;
    struct tseg t = syn_from(SPORT);
    unsigned peer, d, ms;
    rig_init(&g);
    feed_seg(&g.n, &t);
    for (ms = 0; ms + 1000u < g.cfg.setup_ms; ms += 1000u)
        advance(&g.n, 1000);
    CHECK_EQ(pstat(&g, MIP_CCTRL_PROXY_STAT_fallback), 0u);
    fixture_clear(&g.n.f);
    advance(&g.n, 1000);
    CHECK_EQ(pstat(&g, MIP_CCTRL_PROXY_STAT_fallback), 1u);
    count_sent(&g, 0, &peer, &d);
    CHECK_EQ(d, 1u);
    last_is(&g, &t);
    /* the passed pair holds no connection: every slot is free again */
    {
        unsigned k, held = 0;
        for (k = 0; k < MIP_CCTRL_PROXY_CONNS; k++)
            held += g.p->conn[k].open || g.p->conn[k].stream != 0xFFu;
        CHECK_EQ(held, 0u);
    }
    /* the pair is left alone now: its next SYN is forwarded at once */
    fixture_clear(&g.n.f);
    feed_seg(&g.n, &t);
    count_sent(&g, 0, &peer, &d);
    CHECK_EQ(d, 1u);
    CHECK_EQ(peer, 0u);
    last_is(&g, &t);
    CHECK_EQ(pstat(&g, MIP_CCTRL_PROXY_STAT_syn_taken), 1u);
    /* until pass_ms ends: then the slot is free again */
    advance(&g.n, g.cfg.pass_ms);
    CHECK_EQ(mip_cctrl_proxy_streams(g.p), 0u);
    rig_free(&g);
}

static void test_other_ports_and_a_full_table_pass_untouched(void)
{
    struct rig g;
    struct tseg t = syn_from(SPORT), a = syn_from(1001), b = syn_from(1002), c = syn_from(1003);
    unsigned peer, d, k;
    rig_init(&g);
    /* a SYN to another port of D */
    t.flags = MIP_TCP_SYN;
    fixture_clear(&g.n.f);
    {
        uint8_t pkt[300];
        size_t len = mk(pkt, &t);
        struct sent s;
        struct mip_tcp_hdr h;
        /* port 80 -> 81: the TCP header is at 20, its checksum done again */
        mip_wr16(pkt + 22, 81);
        CHECK_EQ(mip_tcp_parse(pkt + 20, len - 20, &h), MIP_OK);
        pkt[36] = pkt[37] = 0;
        {
            struct mip_addr sa = fixture_addr(addr_s(false)), da = fixture_addr(addr_d(false));
            uint32_t sum = mip_cksum_pseudo4(sa.bytes, da.bytes, MIP_IPPROTO_TCP,
                                             (uint16_t)(len - 20));
            mip_wr16(pkt + 36, mip_cksum_finish(mip_cksum_add(sum, pkt + 20, len - 20)));
        }
        feed(&g.n, SHORT_U, pkt, len);
        CHECK(sent_at(&g.n, g.n.f.ntx - 1u, &s));
        CHECK_EQ(s.h.dst_port, 81u);
        CHECK_EQ(s.h.seq, t.seq);
        CHECK_EQ(pstat(&g, MIP_CCTRL_PROXY_STAT_syn_taken), 0u);
    }
    /* MIP_CCTRL_PROXY_STREAMS pairs being set up fill the table ... */
    {
        struct tseg more[MIP_CCTRL_PROXY_STREAMS];
        for (k = 0; k < MIP_CCTRL_PROXY_STREAMS; k++) {
            more[k] = k == 0 ? a : b;
            more[k].sport = (uint16_t)(1001u + k);
            more[k].seq = 9000u + k;
            feed_seg(&g.n, &more[k]);
        }
    }
    CHECK_EQ(pstat(&g, MIP_CCTRL_PROXY_STAT_syn_taken), MIP_CCTRL_PROXY_STREAMS);
    /* ... and the next SYN is forwarded as it came, counted */
    c.sport = (uint16_t)(1001u + MIP_CCTRL_PROXY_STREAMS);
    fixture_clear(&g.n.f);
    feed_seg(&g.n, &c);
    count_sent(&g, 0, &peer, &d);
    CHECK_EQ(d, 1u);
    CHECK_EQ(peer, 0u);
    last_is(&g, &c);
    CHECK_EQ(pstat(&g, MIP_CCTRL_PROXY_STAT_pass_full), 1u);
    rig_free(&g);
}

static void test_a_new_syn_evicts_a_passed_pair_never_one_in_progress(void)
{
    struct rig g;
    struct tseg a = syn_from(1001), b = syn_from(1002), c = syn_from(1003);
    unsigned ms;
    rig_init(&g);
    feed_seg(&g.n, &a);                   /* a: set up fails, passed */
    for (ms = 0; ms < g.cfg.setup_ms; ms += 1000u)
        advance(&g.n, 1000);
    CHECK_EQ(pstat(&g, MIP_CCTRL_PROXY_STAT_fallback), 1u);
    feed_seg(&g.n, &b);                   /* b: being set up */
#if MIP_CCTRL_PROXY_STREAMS == 2
    CHECK_EQ(mip_cctrl_proxy_streams(g.p), 2u);
    feed_seg(&g.n, &c);                   /* c takes a's slot, not b's */
    CHECK_EQ(pstat(&g, MIP_CCTRL_PROXY_STAT_syn_taken), 3u);
    CHECK_EQ(pstat(&g, MIP_CCTRL_PROXY_STAT_pass_full), 0u);
    CHECK_EQ(mip_cctrl_proxy_streams(g.p), 2u);
    feed_seg(&g.n, &b);                   /* b is still held */
    CHECK_EQ(pstat(&g, MIP_CCTRL_PROXY_STAT_syn_dup), 1u);
#else
    (void)c;
#endif
    rig_free(&g);
}

int main(void)
{
    RUN(test_init_refuses_a_bad_configuration);
    RUN(test_a_syn_to_the_port_is_held_and_two_subflows_open);
    RUN(test_without_ready_the_held_syn_goes_on_as_it_came);
    RUN(test_other_ports_and_a_full_table_pass_untouched);
    RUN(test_a_new_syn_evicts_a_passed_pair_never_one_in_progress);
    return TESTING_DONE();
}

#else

int main(void)
{
    return 0;   /* no cctrl in this profile */
}

#endif
