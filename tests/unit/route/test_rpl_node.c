/*
 * The RPL node (src/route/rpl.c) on small networks of real stacks
 * (rplnet.h): joining, the upward route, parent choice with hysteresis, the
 * rank rule, global and local repair, the neighbour table's eviction rule,
 * and bad messages dropped and counted.
 */
#include "rplnet.h"
#include "moteip/wire/icmpv6.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/bytes.h"

static struct mip_rpl_config cfg_of(uint8_t ocp)
{
    struct mip_rpl_config c;
    mip_rpl_config_default(&c);
    c.ocp = ocp;
    return c;
}

/* Sends one UDP datagram from node i to node j's global address. */
static mip_status udp_to(struct net *nt, unsigned i, unsigned j)
{
    struct mip_addr d = net_global(j);
    static const uint8_t data[20] = "rpl upward route";
    (void)mip_stack_poll(nt->s[i], nt->now);
    return mip_udp_sendto(nt->s[i], NULL, NET_PORT, &d, NET_PORT, MIP_NETIF_ANY, data,
                          sizeof(data));
}

#if MIP_CONF_RPL_ROOT
static void check_line_converges(uint8_t ocp)
{
    struct mip_rpl_config c = cfg_of(ocp);
    struct net *nt = net_new(5, &c);
    unsigned i;
    net_line(nt);
    net_root(nt);
    net_run(nt, 20000);
    CHECK(net_all_joined(nt));
    for (i = 1; i < nt->n; i++) {
        struct mip_addr a = net_global(i);
        /* parent is the neighbour towards the root, rank grows by hop */
        CHECK_EQ(net_parent(nt, i), (int)i - 1);
        CHECK(mip_rpl_dag_rank(nt->rpl[i].rank, 256) > mip_rpl_dag_rank(nt->rpl[i - 1].rank, 256));
        /* the address came from the root's PIO (SLAAC, the link IID) */
        CHECK(mip_netif_has_addr(&nt->s[i]->netif[0], &a));
    }
    /* the upward default route: every node reaches the root */
    for (i = 1; i < nt->n; i++)
        CHECK_EQ(udp_to(nt, i, 0), MIP_OK);
    net_run(nt, 100);
    CHECK_EQ(nt->got[0], nt->n - 1u);
    /* Trickle quietened down: after convergence the intervals grew */
    CHECK(nt->rpl[0].trickle.i_ms >= 4096u);
    net_free(nt);
}

static void test_line_converges_mrhof(void) { check_line_converges(MIP_RPL_OCP_MRHOF); }
static void test_line_converges_of0(void) { check_line_converges(MIP_RPL_OCP_OF0); }

static void test_detached_node_solicits_boundedly(void)
{
    struct mip_rpl_config c = cfg_of(MIP_RPL_OCP_MRHOF);
    struct net *nt = net_new(1, &c);
    net_run(nt, 3600000u);
    /* alone: DIS at most dis_max times, then silence */
    CHECK_EQ(mip_rpl_stat(&nt->rpl[0], MIP_RPL_STAT_dis_tx), c.dis_max);
    CHECK(!mip_rpl_joined(&nt->rpl[0]));
    net_free(nt);
}

static void test_dis_brings_a_quick_dio(void)
{
    /* A node switched on late: its DIS resets the root's grown Trickle
     * timer, so it joins long before the root's next scheduled DIO. */
    struct mip_rpl_config c = cfg_of(MIP_RPL_OCP_MRHOF);
    struct net *nt = net_new(2, &c);
    net_root(nt);
    net_run(nt, 600000u);     /* root's I has grown to minutes */
    CHECK(nt->rpl[0].trickle.i_ms > 60000u);
    CHECK_EQ(mip_rpl_init(&nt->rpl[1], nt->s[1], 0, &c, nt->now), MIP_OK);
    net_link(nt, 0, 1, true);
    net_run(nt, 3000);
    CHECK(mip_rpl_joined(&nt->rpl[1]));
    CHECK(mip_rpl_stat(&nt->rpl[0], MIP_RPL_STAT_dis_rx) >= 1u);
    CHECK(mip_rpl_stat(&nt->rpl[0], MIP_RPL_STAT_trickle_resets) >= 1u);
    net_free(nt);
}

/* Root 0, node 1 and node 2 both hear the root; node 3 hears 1 and 2. */
static struct net *diamond(uint8_t ocp)
{
    struct mip_rpl_config c = cfg_of(ocp);
    struct net *nt = net_new(4, &c);
    net_link(nt, 0, 1, true);
    net_link(nt, 0, 2, true);
    net_link(nt, 1, 3, true);
    net_link(nt, 2, 3, true);
    net_root(nt);
    net_run(nt, 20000);
    return nt;
}

static void test_mrhof_hysteresis(void)
{
    struct net *nt = diamond(MIP_RPL_OCP_MRHOF);
    struct mip_rpl *r = &nt->rpl[3];
    int p, other, k;
    struct mip_link_report lr;
    CHECK(net_all_joined(nt));
    p = net_parent(nt, 3);
    CHECK(p == 1 || p == 2);
    other = p == 1 ? 2 : 1;
    memset(&lr, 0, sizeof(lr));
    lr.netif = 0;
    lr.iid[3] = 0xff;
    lr.iid[4] = 0xfe;
    /* the other link measured perfect */
    lr.iid[7] = (uint8_t)(other + 1);
    lr.outcome = MIP_LINK_TX_OK;
    mip_routing_link_report(nt->s[3], &lr, nt->now);
    /* the parent's link a little worse (ETX 2: one retry each): within
     * PARENT_SWITCH_THRESHOLD (ETX 1.5) of the other, so no switch */
    lr.iid[7] = (uint8_t)(p + 1);
    lr.retries = 1;
    for (k = 0; k < 30; k++)
        mip_routing_link_report(nt->s[3], &lr, nt->now);
    CHECK_EQ(net_parent(nt, 3), p);
    /* ETX 3 (two retries): 2.0 worse than the other, past the threshold */
    lr.retries = 2;
    for (k = 0; k < 30; k++)
        mip_routing_link_report(nt->s[3], &lr, nt->now);
    CHECK_EQ(net_parent(nt, 3), other);
    CHECK(mip_rpl_stat(r, MIP_RPL_STAT_parent_changes) >= 2u);
    net_free(nt);
}

/* A node that detaches forgets its neighbours' measured ETX with their
 * epoch: a link it once measured dead (collisions while the parent was
 * failing) gets a fresh start when that neighbour's next DIO comes, as a
 * link never measured does. Node 3 of the diamond saw both links fail;
 * only its parent's link is really gone. Before: the other link stayed
 * past MAX_LINK_METRIC, no DIO could make it a parent again (nothing is
 * sent to a neighbour that is not one, so nothing re-measures it) and
 * node 3 stayed detached (rpl-repair, storing, 2 runs of 10 lost the flow). */
static void test_a_detached_node_gives_measured_links_a_fresh_start(void)
{
    struct net *nt = diamond(MIP_RPL_OCP_MRHOF);
    struct mip_link_report lr;
    int p, other, k;
    CHECK(net_all_joined(nt));
    p = net_parent(nt, 3);
    CHECK(p == 1 || p == 2);
    other = p == 1 ? 2 : 1;
    memset(&lr, 0, sizeof(lr));
    lr.netif = 0;
    lr.iid[3] = 0xff;
    lr.iid[4] = 0xfe;
    lr.outcome = MIP_LINK_TX_NOACK;
    lr.retries = 3;
    lr.iid[7] = (uint8_t)(other + 1);
    for (k = 0; k < 30; k++)
        mip_routing_link_report(nt->s[3], &lr, nt->now);
    net_link(nt, (unsigned)p, 3, false);
    lr.iid[7] = (uint8_t)(p + 1);
    for (k = 0; k < 30; k++)
        mip_routing_link_report(nt->s[3], &lr, nt->now);
    CHECK(!mip_rpl_joined(&nt->rpl[3]));
    net_run(nt, 60000);
    CHECK(mip_rpl_joined(&nt->rpl[3]));
    CHECK_EQ(net_parent(nt, 3), other);
    net_free(nt);
}

static void test_of0_keeps_parent_on_ties(void)
{
    struct net *nt = diamond(MIP_RPL_OCP_OF0);
    int p;
    unsigned changes;
    CHECK(net_all_joined(nt));
    p = net_parent(nt, 3);
    changes = (unsigned)mip_rpl_stat(&nt->rpl[3], MIP_RPL_STAT_parent_changes);
    net_run(nt, 60000);
    CHECK_EQ(net_parent(nt, 3), p);
    CHECK_EQ(mip_rpl_stat(&nt->rpl[3], MIP_RPL_STAT_parent_changes), changes);
    net_free(nt);
}

/* OF0's rank is a hop count (MIP_RPL_OF0_LINK_ETX): the parent link's ETX
 * wobbling between 1 and 2.5 (a retry now and then, as collisions do)
 * moves neither node 3's rank nor its parent, and resets no Trickle timer.
 * Before: each ETX step moved its rank by MinHopRankIncrease and reset
 * Trickle, a cascade down the DODAG in a 100-node network. */
static void test_of0_rank_ignores_etx_wobble(void)
{
    struct net *nt = diamond(MIP_RPL_OCP_OF0);
    struct mip_rpl *r = &nt->rpl[3];
    struct mip_link_report lr;
    uint16_t rank;
    uint32_t resets;
    int p, k;
    CHECK(net_all_joined(nt));
    p = net_parent(nt, 3);
    rank = r->rank;
    resets = mip_rpl_stat(r, MIP_RPL_STAT_trickle_resets);
    CHECK_EQ(rank, 256u + 2u * 3u * 256u);   /* root 256 + 2 hops of 3 x 256 */
    memset(&lr, 0, sizeof(lr));
    lr.netif = 0;
    lr.iid[3] = 0xff;
    lr.iid[4] = 0xfe;
    lr.iid[7] = (uint8_t)(p + 1);
    for (k = 0; k < 60; k++) {
        lr.outcome = MIP_LINK_TX_OK;
        lr.retries = (uint8_t)(k % 8 == 0 ? 3 : 0);
        mip_routing_link_report(nt->s[3], &lr, nt->now);
        CHECK_EQ(r->rank, rank);
    }
    CHECK_EQ(net_parent(nt, 3), p);
    CHECK_EQ(mip_rpl_stat(r, MIP_RPL_STAT_trickle_resets), resets);
    net_free(nt);
}

#endif

/* Builds a DIO from fe80::ff:fe00:<from+1> with `rank` of node 0's DODAG
 * and feeds it to node `to` as a received IPv6 packet over the lowpan. */
/* With `pio`, the DIO carries node 0's PIO instead of its DODAG
 * Configuration (both do not fit an uncompressed frame). */
static void inject_dio_opts(struct net *nt, unsigned from_short, unsigned to, uint16_t rank,
                            uint8_t version, size_t cut, bool pio)
{
    uint8_t pkt[40 + 128];
    uint8_t *m = pkt + 40;
    struct mip_rpl_dio d;
    size_t n, w;
    const struct mip_rpl *root = &nt->rpl[0];
    uint8_t frame[127];
    memset(pkt, 0, sizeof(pkt));
    memset(&d, 0, sizeof(d));
    d.instance = root->instance;
    d.version = version;
    d.rank = rank;
    d.grounded = true;
    d.mop = root->mop;
    memcpy(d.dodagid, root->dodagid, 16);
    (void)mip_rpl_emit_dio(&d, m, 128, &n);
    if (pio)
        (void)mip_rpl_emit_prefix_info(&root->pio, m + n, 128 - n, &w);
    else
        (void)mip_rpl_emit_dodag_conf(&root->conf, m + n, 128 - n, &w);
    n += w;
    if (cut)
        n = cut;
    pkt[0] = 0x60;
    mip_wr16(pkt + 4, (uint16_t)n);
    pkt[6] = 58;
    pkt[7] = 255;
    pkt[8] = 0xfe; pkt[9] = 0x80;
    pkt[19] = 0xff; pkt[20] = 0xfe;
    mip_wr16(pkt + 22, (uint16_t)from_short);
    pkt[24] = 0xff; pkt[25] = 0x02; pkt[39] = 0x1a;
    mip_wr16(m + 2, mip_cksum_finish(mip_cksum_add(mip_cksum_pseudo6(pkt + 8, pkt + 24, 58,
                                                                     (uint32_t)n), m, n)));
    {
        /* 802.15.4: data frame, PAN ID compression, short addresses both
         * ways (frame control 0x8841), to the broadcast address; then the
         * 6LoWPAN dispatch for an uncompressed IPv6 header (RFC 4944 5.1) */
        size_t fl = 0;
        frame[fl++] = 0x41;
        frame[fl++] = 0x88;
        frame[fl++] = 0x01;
        frame[fl++] = NET_PAN & 0xFF;
        frame[fl++] = NET_PAN >> 8;
        frame[fl++] = 0xFF;
        frame[fl++] = 0xFF;
        frame[fl++] = (uint8_t)from_short;
        frame[fl++] = (uint8_t)(from_short >> 8);
        frame[fl++] = 0x41;
        memcpy(frame + fl, pkt, 40 + n);
        fl += 40 + n;
        mip_stack_input(nt->s[to], 0, frame, fl, nt->now);
    }
}

static void inject_dio(struct net *nt, unsigned from_short, unsigned to, uint16_t rank,
                       uint8_t version, size_t cut)
{
    inject_dio_opts(nt, from_short, to, rank, version, cut, false);
}

/* A leaf (every node of the tiny profile, which does not forward; in the
 * full profile cfg.leaf) joins from a DIO of a DODAG whose root is not in
 * the test (node 0's struct mip_rpl only holds the DODAG the DIO carries),
 * forms its address from the PIO, routes upward through its parent and
 * never sends a DIO. */
static void test_leaf_joins_from_a_dio(void)
{
    struct mip_rpl_config c = cfg_of(MIP_RPL_OCP_MRHOF);
    struct net *nt;
    struct mip_rpl *fake;
    struct mip_addr a = net_global(1);
    unsigned k;
    bool upward = false;
    c.leaf = true;
    nt = net_new(2, &c);
    fake = &nt->rpl[0];
    fake->instance = 0;
    fake->mop = c.mop;          /* the mode the node runs (either build) */
    fake->dodagid[0] = 0xfd;
    fake->dodagid[15] = 1;
    fake->conf.min_hop_rank_inc = 256;
    fake->conf.ocp = MIP_RPL_OCP_MRHOF;
    fake->conf.dio_int_min = 3;
    fake->conf.dio_int_doublings = 20;
    fake->conf.dio_redundancy = 10;
    fake->has_pio = true;
    fake->pio.prefix_len = 64;
    fake->pio.flags = MIP_RPL_PIO_A;
    fake->pio.valid_s = fake->pio.preferred_s = 0xFFFFFFFFu;
    fake->pio.prefix[0] = 0xfd;
    /* linked: the leaf's DAOs to its parent are acknowledged (unlinked,
     * they would raise the parent's ETX until the leaf detaches) */
    net_link(nt, 0, 1, true);
    inject_dio_opts(nt, 1, 1, 256, 240, 0, true);
    CHECK(mip_rpl_joined(&nt->rpl[1]));
    CHECK_EQ(net_parent(nt, 1), 0);
    CHECK_EQ(nt->rpl[1].rank, MIP_RPL_INFINITE_RANK);       /* a leaf advertises none */
    CHECK(mip_netif_has_addr(&nt->s[1]->netif[0], &a));
    net_run(nt, 60000);
    CHECK_EQ(mip_rpl_stat(&nt->rpl[1], MIP_RPL_STAT_dio_tx), 0u);
    /* upward: the datagram leaves for the parent's link address (short 1) */
    nt->nq = 0;
    CHECK_EQ(udp_to(nt, 1, 0), MIP_OK);
    for (k = 0; k < nt->nq; k++) {
        struct mip_802154_hdr h;
        size_t hl;
        if (nt->q[k].from == 1 &&
            mip_ieee802154_parse(nt->q[k].data, nt->q[k].len, &h, &hl) == MIP_OK &&
            h.dst.mode == MIP_802154_ADDR_SHORT && h.dst.short_addr == 1)
            upward = true;
    }
    CHECK(upward);
    net_free(nt);
}

#if MIP_CONF_RPL_ROOT
static void test_no_parent_with_greater_rank(void)
{
    /* 0 - 1 - 2 line; node 1 hears a DIO from a stranger (short 9) whose
     * DAGRank is above its own: never a parent, whatever happens */
    struct mip_rpl_config c = cfg_of(MIP_RPL_OCP_MRHOF);
    struct net *nt = net_new(3, &c);
    uint16_t r1;
    net_line(nt);
    net_root(nt);
    net_run(nt, 20000);
    CHECK(net_all_joined(nt));
    r1 = nt->rpl[1].rank;
    inject_dio(nt, 9, 1, (uint16_t)(r1 + 256u), nt->rpl[0].version, 0);
    CHECK_EQ(net_parent(nt, 1), 0);
    /* the root's link dies: node 1 may not fall back on the deeper node
     * (nor on its child 2): it detaches and poisons instead */
    net_link(nt, 0, 1, false);
    {
        unsigned k;
        for (k = 0; k < 10; k++) {
            (void)udp_to(nt, 1, 0);
            net_run(nt, 200);
        }
    }
    CHECK(!mip_rpl_joined(&nt->rpl[1]));
    CHECK(mip_rpl_stat(&nt->rpl[1], MIP_RPL_STAT_detaches) >= 1u);
    /* node 2 heard the poison and let go of node 1 */
    CHECK(net_parent(nt, 2) != 1);
    /* a DIO of the version it left, from deeper than its lowest rank plus
     * MaxRankIncrease (7 x 256): not joined, counted, no new DIS round */
    {
        uint32_t joins = mip_rpl_stat(&nt->rpl[1], MIP_RPL_STAT_joins);
        uint32_t drops = mip_rpl_stat(&nt->rpl[1], MIP_RPL_STAT_drop_rank);
        inject_dio(nt, 9, 1, (uint16_t)(r1 + 8u * 256u), nt->rpl[0].version, 0);
        CHECK_EQ(mip_rpl_stat(&nt->rpl[1], MIP_RPL_STAT_joins), joins);
        CHECK_EQ(mip_rpl_stat(&nt->rpl[1], MIP_RPL_STAT_drop_rank), drops + 1u);
        CHECK(!mip_rpl_joined(&nt->rpl[1]));
        /* within the limit it rejoins */
        inject_dio(nt, 9, 1, (uint16_t)(r1 + 2u * 256u), nt->rpl[0].version, 0);
        CHECK(mip_rpl_joined(&nt->rpl[1]));
    }
    net_free(nt);
}

static void test_local_repair_switches_to_the_other_parent(void)
{
    struct net *nt = diamond(MIP_RPL_OCP_MRHOF);
    int p, other;
    unsigned k;
    CHECK(net_all_joined(nt));
    p = net_parent(nt, 3);
    other = p == 1 ? 2 : 1;
    /* the parent dies: frames to it go unacknowledged */
    net_link(nt, 3, (unsigned)p, false);
    for (k = 0; k < 20 && net_parent(nt, 3) == p; k++) {
        (void)udp_to(nt, 3, 0);
        net_run(nt, 100);
    }
    CHECK_EQ(net_parent(nt, 3), other);
    /* and traffic flows again */
    nt->got[0] = 0;
    (void)udp_to(nt, 3, 0);
    net_run(nt, 100);
    CHECK_EQ(nt->got[0], 1u);
    net_free(nt);
}

static void test_silent_parent_times_out(void)
{
    /* 0 - 1 - 2 with parent_timeout_ms 10 s: node 2's parent (1) goes
     * silent (its links cut, no traffic to report on): after the timeout
     * node 2 forgets it and, with no other candidate, detaches */
    struct mip_rpl_config c = cfg_of(MIP_RPL_OCP_MRHOF);
    struct net *nt;
    c.parent_timeout_ms = 10000;
    nt = net_new(3, &c);
    net_line(nt);
    net_root(nt);
    net_run(nt, 5000);
    CHECK_EQ(net_parent(nt, 2), 1);
    net_link(nt, 1, 2, false);
    net_run(nt, 9000);
    CHECK(nt->rpl[2].state != MIP_RPL_JOINED || net_parent(nt, 2) == 1);
    net_run(nt, 30000);
    CHECK(!mip_rpl_joined(&nt->rpl[2]));
    CHECK(mip_rpl_stat(&nt->rpl[2], MIP_RPL_STAT_detaches) >= 1u);
    /* times beyond half the ms clock's wrap are refused */
    c.parent_timeout_ms = MIP_RPL_TIME_MAX_MS + 1u;
    CHECK_EQ(mip_rpl_init(&nt->rpl[2], nt->s[2], 0, &c, nt->now), MIP_ERR_INVALID);
    net_free(nt);
}

static void test_global_repair_new_version(void)
{
    struct mip_rpl_config c = cfg_of(MIP_RPL_OCP_MRHOF);
    struct net *nt = net_new(4, &c);
    unsigned i;
    uint8_t v0;
    net_line(nt);
    net_root(nt);
    net_run(nt, 20000);
    CHECK(net_all_joined(nt));
    v0 = nt->rpl[0].version;
    CHECK_EQ(mip_rpl_global_repair(&nt->rpl[0], nt->now), MIP_OK);
    CHECK_EQ(mip_rpl_global_repair(&nt->rpl[1], nt->now), MIP_ERR_INVALID);
    net_run(nt, 5000);
    for (i = 0; i < nt->n; i++) {
        CHECK_EQ(nt->rpl[i].version, mip_rpl_seq_next(v0));
        CHECK(mip_rpl_joined(&nt->rpl[i]));
    }
    for (i = 1; i < nt->n; i++)
        CHECK(mip_rpl_stat(&nt->rpl[i], MIP_RPL_STAT_global_repairs) == 1u);
    /* a DIO of the old version is refused */
    inject_dio(nt, 1, 2, 512, v0, 0);
    CHECK_EQ(mip_rpl_stat(&nt->rpl[2], MIP_RPL_STAT_drop_old_version), 1u);
    net_free(nt);
}

static void test_forged_dio_flood_keeps_the_parent(void)
{
    /* Node 1 (child of the root) is flooded with DIOs from 50 strangers
     * at a rank near its own: they fill the free slots, push out only one
     * another, and never the preferred parent (the root). */
    struct mip_rpl_config c = cfg_of(MIP_RPL_OCP_MRHOF);
    struct net *nt = net_new(2, &c);
    unsigned k;
    net_line(nt);
    net_root(nt);
    net_run(nt, 20000);
    CHECK_EQ(net_parent(nt, 1), 0);
    for (k = 0; k < 50; k++)
        inject_dio(nt, 100 + k, 1, 256 + 128, nt->rpl[0].version, 0);
    CHECK_EQ(net_parent(nt, 1), 0);
    /* strangers of equal rank cannot evict one another: counted drops */
    CHECK(mip_rpl_stat(&nt->rpl[1], MIP_RPL_STAT_drop_neigh_full) >= 50u - MIP_RPL_NEIGH_MAX);
    /* and the upward route still works */
    CHECK_EQ(udp_to(nt, 1, 0), MIP_OK);
    net_run(nt, 100);
    CHECK_EQ(nt->got[0], 1u);
    net_free(nt);
}

/* RFC 6550 8.3: a DIO of our DODAG version that changes nothing is
 * consistent, also from a neighbour the full table has no room for: it
 * counts for Trickle's suppression (c). Before: refused DIOs were not
 * counted, and a neighbourhood larger than the table sent more DIOs than
 * RFC 6206's k per interval (rpl-convergence's second hour: 1.26x). */
static void test_a_dio_refused_for_room_is_consistent(void)
{
    struct mip_rpl_config c = cfg_of(MIP_RPL_OCP_MRHOF);
    struct net *nt = net_new(2, &c);
    unsigned k;
    uint8_t before;
    net_line(nt);
    net_root(nt);
    net_run(nt, 20000);
    CHECK_EQ(net_parent(nt, 1), 0);
    /* the root and NEIGH_MAX - 1 strangers fill the table */
    for (k = 0; k + 1u < MIP_RPL_NEIGH_MAX; k++)
        inject_dio(nt, 100 + k, 1, 256 + 128, nt->rpl[0].version, 0);
    CHECK_EQ(mip_rpl_stat(&nt->rpl[1], MIP_RPL_STAT_drop_neigh_full), 0);
    before = nt->rpl[1].trickle.c;
    inject_dio(nt, 200, 1, 256 + 128, nt->rpl[0].version, 0);
    CHECK_EQ(mip_rpl_stat(&nt->rpl[1], MIP_RPL_STAT_drop_neigh_full), 1);
    CHECK_EQ(nt->rpl[1].trickle.c, (uint8_t)(before + 1u));
    net_free(nt);
}

static void test_bad_messages_are_counted(void)
{
    struct mip_rpl_config c = cfg_of(MIP_RPL_OCP_MRHOF);
    struct net *nt = net_new(2, &c);
    net_line(nt);
    net_root(nt);
    net_run(nt, 20000);
    /* a DIO cut inside its option */
    inject_dio(nt, 7, 1, 512, nt->rpl[0].version, MIP_RPL_DIO_LEN + 3u);
    CHECK_EQ(mip_rpl_stat(&nt->rpl[1], MIP_RPL_STAT_drop_malformed), 1u);
    /* a rank below the root's (0 and 255) */
    inject_dio(nt, 7, 1, 0, nt->rpl[0].version, 0);
    inject_dio(nt, 7, 1, 255, nt->rpl[0].version, 0);
    CHECK_EQ(mip_rpl_stat(&nt->rpl[1], MIP_RPL_STAT_drop_rank), 2u);
    CHECK_EQ(net_parent(nt, 1), 0);
    net_free(nt);
}

#endif

int main(void)
{
    RUN(test_leaf_joins_from_a_dio);
#if MIP_CONF_RPL_ROOT
    RUN(test_line_converges_mrhof);
    RUN(test_line_converges_of0);
    RUN(test_detached_node_solicits_boundedly);
    RUN(test_dis_brings_a_quick_dio);
    RUN(test_mrhof_hysteresis);
    RUN(test_of0_keeps_parent_on_ties);
    RUN(test_a_detached_node_gives_measured_links_a_fresh_start);
    RUN(test_of0_rank_ignores_etx_wobble);
    RUN(test_no_parent_with_greater_rank);
    RUN(test_local_repair_switches_to_the_other_parent);
    RUN(test_silent_parent_times_out);
    RUN(test_global_repair_new_version);
    RUN(test_forged_dio_flood_keeps_the_parent);
    RUN(test_a_dio_refused_for_room_is_consistent);
    RUN(test_bad_messages_are_counted);
#endif
    return TESTING_DONE();
}
