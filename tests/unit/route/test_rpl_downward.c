/*
 * Downward routes end to end on small networks of real stacks over
 * 6LoWPAN (rplnet.h), in both modes. Every node's DAO is acknowledged and
 * the root reaches every node: in non-storing mode by a source route
 * (RFC 6554) that each router on the way sends on (core/ipv6_rpl.c), in
 * storing mode through each router's table (RFC 6550 9.8). A datagram
 * between two nodes goes up to the root and down in a tunnel (non-storing,
 * RFC 9008 7) or turns at their common parent (storing). A node that
 * changes parent is reached on its new path (storing: its old parent gets
 * a No-Path DAO).
 */
#include "moteip/config.h"
#include "moteip/rpl_down.h"

/* rplnet.h needs a root (mip_rpl_root_start) */
#if MIP_CONF_RPL_ROOT && MIP_RPL_DOWN_MAX > 0
#include "rplnet.h"
#include "moteip/udp.h"
#include "../../../src/route/rpl_down.h"

static struct mip_rpl_config cfg_of(uint8_t mop)
{
    struct mip_rpl_config c;
    mip_rpl_config_default(&c);
    c.mop = mop;
    return c;
}

static mip_status udp_to(struct net *nt, unsigned i, unsigned j)
{
    struct mip_addr d = net_global(j);
    static const uint8_t data[24] = "rpl downward route";
    (void)mip_stack_poll(nt->s[i], nt->now);
    return mip_udp_sendto(nt->s[i], NULL, NET_PORT, &d, NET_PORT, MIP_NETIF_ANY, data,
                          sizeof(data));
}

static uint32_t down_stat(const struct net *nt, unsigned i, enum mip_rpl_down_stat which)
{
    return nt->rpl[i].down.stats[which];
}

/* Root 0 .. node 6 in a line: node i is i hops down. */
static void check_line(uint8_t mop)
{
    struct mip_rpl_config c = cfg_of(mop);
    struct net *nt = net_new(7, &c);
    bool ns = mop == MIP_RPL_MOP_NON_STORING;
    unsigned i, acked = 0;

    net_line(nt);
    net_root(nt);
    net_run(nt, 30000);
    CHECK(net_all_joined(nt));
    for (i = 1; i < nt->n; i++)
        acked += down_stat(nt, i, MIP_RPL_DOWN_STAT_dao_acked);
    CHECK_EQ(acked, nt->n - 1u);
    CHECK_EQ(down_stat(nt, 0, MIP_RPL_DOWN_STAT_nodes_added), nt->n - 1u);
    /* storing: node 1 routes to the 5 below it, learnt from DAOs sent on */
    CHECK_EQ(down_stat(nt, 1, MIP_RPL_DOWN_STAT_nodes_added), ns ? 0 : nt->n - 2u);
    CHECK(ns || down_stat(nt, 1, MIP_RPL_DOWN_STAT_dao_forwarded) >= nt->n - 2u);
    for (i = 1; i < nt->n; i++) {
        CHECK_EQ(udp_to(nt, 0, i), MIP_OK);
        net_run(nt, 200);
        if (nt->got[i] != 1u)
            fprintf(stderr, "mop %u: node %u got %u\n", mop, i, nt->got[i]);
        CHECK_EQ(nt->got[i], 1);
    }
    if (ns) {
        /* nodes 2..6 by a source route; routers 1..5 each sent them on */
        CHECK(down_stat(nt, 0, MIP_RPL_DOWN_STAT_srh_inserted) >= nt->n - 2u);
        CHECK(mip_stack_stat(nt->s[1], MIP_STAT_srh_forwarded) >= nt->n - 2u);
        CHECK(mip_stack_stat(nt->s[nt->n - 2], MIP_STAT_srh_forwarded) >= 1u);
    } else {
        CHECK_EQ(down_stat(nt, 0, MIP_RPL_DOWN_STAT_srh_inserted), 0);
        CHECK_EQ(mip_stack_stat(nt->s[1], MIP_STAT_srh_forwarded), 0);
    }
    net_free(nt);
}

/* Root 0, 1 below it with children 2 and 3; 3 -> 2 */
static void check_node_to_node(uint8_t mop)
{
    struct mip_rpl_config c = cfg_of(mop);
    struct net *nt = net_new(4, &c);

    net_link(nt, 0, 1, true);
    net_link(nt, 1, 2, true);
    net_link(nt, 1, 3, true);
    net_root(nt);
    net_run(nt, 30000);
    CHECK(net_all_joined(nt));
    CHECK_EQ(udp_to(nt, 3, 2), MIP_OK);
    net_run(nt, 500);
    CHECK_EQ(nt->got[2], 1);
    if (mop == MIP_RPL_MOP_NON_STORING) {
        CHECK_EQ(down_stat(nt, 0, MIP_RPL_DOWN_STAT_tunnelled), 1);
        CHECK_EQ(mip_stack_stat(nt->s[2], MIP_STAT_rx_ipv6_decap), 1);
    } else {
        CHECK_EQ(mip_stack_stat(nt->s[0], MIP_STAT_ip_forwarded), 0);   /* turned at 1 */
    }
    net_free(nt);
}

/* Root 0; 1 and 2 hear it; 3 hears 1 and 2. Node 3 loses its link to its
 * parent (both ways: a storing No-Path DAO is lost on it, and the old
 * route ends with its lifetime): it moves, its new DAO moves its route,
 * and the root reaches it again. */
static void check_parent_change(uint8_t mop)
{
    struct mip_rpl_config c = cfg_of(mop);
    struct net *nt = net_new(4, &c);
    int p, other, k;

    net_link(nt, 0, 1, true);
    net_link(nt, 0, 2, true);
    net_link(nt, 1, 3, true);
    net_link(nt, 2, 3, true);
    net_root(nt);
    net_run(nt, 30000);
    CHECK(net_all_joined(nt));
    p = net_parent(nt, 3);
    CHECK(p == 1 || p == 2);
    other = p == 1 ? 2 : 1;
    CHECK_EQ(udp_to(nt, 0, 3), MIP_OK);
    net_run(nt, 300);
    CHECK_EQ(nt->got[3], 1);
    net_link(nt, (unsigned)p, 3, false);
    /* traffic up finds the dead link (each frame unacknowledged after its
     * retries): its ETX grows until the other parent is better */
    for (k = 0; k < 20 && net_parent(nt, 3) == p; k++) {
        CHECK_EQ(udp_to(nt, 3, 0), MIP_OK);
        net_run(nt, 1000);
    }
    net_run(nt, 10000);
    CHECK_EQ(net_parent(nt, 3), other);
    CHECK_EQ(down_stat(nt, 3, MIP_RPL_DOWN_STAT_no_path_tx),
             mop == MIP_RPL_MOP_STORING ? 1 : 0);
    CHECK_EQ(udp_to(nt, 0, 3), MIP_OK);
    net_run(nt, 300);
    CHECK_EQ(nt->got[3], 2);
    net_free(nt);
}

/* RFC 6550 9.6: the root increments its DTSN (and resets its DIO timer);
 * every node of a 4-node line hears its parent's DTSN go up, sends a new
 * DAO (acknowledged: two each) and increments its own, so the sub-DODAG
 * below it does the same. Before: nodes ignored the DTSN (one DAO each). */
static void check_dtsn_asks_for_daos(uint8_t mop)
{
    struct mip_rpl_config c = cfg_of(mop);
    struct net *nt = net_new(4, &c);
    struct mip_rpl *root = &nt->rpl[0];
    unsigned i;

    net_line(nt);
    net_root(nt);
    net_run(nt, 30000);
    CHECK(net_all_joined(nt));
    for (i = 1; i < nt->n; i++)
        CHECK_EQ(down_stat(nt, i, MIP_RPL_DOWN_STAT_dao_acked), 1);
    root->dtsn = mip_rpl_seq_next(root->dtsn);
    (void)mip_rpl_trickle_reset(&root->trickle, root->conf.dio_int_min, &nt->s[0]->rng,
                                nt->now);
    net_run(nt, 30000);
    for (i = 1; i < nt->n; i++) {
        CHECK_EQ(down_stat(nt, i, MIP_RPL_DOWN_STAT_dtsn_triggered), 1);
        CHECK_EQ(down_stat(nt, i, MIP_RPL_DOWN_STAT_dao_acked), 2);
        CHECK(mip_rpl_seq_newer(nt->rpl[i].dtsn, 0));
    }
    net_free(nt);
}

/* Storing: a router acknowledges a child's DAO only when its own parent
 * acknowledged the DAO it sent on, so a loss above it is the child's to
 * retry. Line 0-1-2-3; the link 0-1 goes down while node 3's new DAO
 * travels: node 3 is not acknowledged and retries; with the link back its
 * retry is acknowledged through 2 and 1 (each relays the DAO-ACK). Before:
 * node 2 acknowledged at once, and the route above it was simply lost. */
#if MIP_CONF_RPL_STORING
static void test_storing_dao_ack_comes_from_the_root(void)
{
    struct mip_rpl_config c = cfg_of(MIP_RPL_MOP_STORING);
    struct net *nt = net_new(4, &c);

    net_line(nt);
    net_root(nt);
    net_run(nt, 30000);
    CHECK(net_all_joined(nt));
    CHECK_EQ(down_stat(nt, 3, MIP_RPL_DOWN_STAT_dao_acked), 1);
    CHECK(down_stat(nt, 1, MIP_RPL_DOWN_STAT_dao_ack_relayed) >= 2u);
    net_link(nt, 0, 1, false);
    rpl_down_parent_changed(&nt->rpl[3], nt->now);
    net_run(nt, MIP_RPL_DAO_DELAY_MS + MIP_RPL_DAO_ACK_TIMEOUT_MS + 100u);
    CHECK_EQ(down_stat(nt, 3, MIP_RPL_DOWN_STAT_dao_acked), 1);
    CHECK(down_stat(nt, 3, MIP_RPL_DOWN_STAT_dao_retries) >= 1u);
    net_link(nt, 0, 1, true);
    net_run(nt, 30000);
    CHECK_EQ(down_stat(nt, 3, MIP_RPL_DOWN_STAT_dao_acked), 2);
    CHECK_EQ(udp_to(nt, 0, 3), MIP_OK);
    net_run(nt, 300);
    CHECK_EQ(nt->got[3], 1);
    net_free(nt);
}
#endif

/* A border router's root holds the mesh prefix on-link on the radio (an
 * address that has no DAO goes out there, never back to the host): a
 * DAO's /128 still decides, so node 3, three hops down, gets the datagram
 * (in storing mode the table's on-link route sent it straight to node 3's
 * link address, which only node 1 hears, before rpl_next_hop asked the
 * DAO routes first). */
static void check_on_link_prefix_at_the_root(uint8_t mop)
{
    struct mip_rpl_config c = cfg_of(mop);
    struct net *nt = net_new(4, &c);
    struct mip_addr mesh;

    memset(&mesh, 0, sizeof(mesh));
    mesh.family = MIP_AF_INET6;
    memcpy(mesh.bytes, net_prefix, 8);
    net_line(nt);
    net_root(nt);
    CHECK_EQ(mip_route_add(nt->s[0], &mesh, 64, NULL, 0), MIP_OK);
    net_run(nt, 30000);
    CHECK(net_all_joined(nt));
    CHECK_EQ(udp_to(nt, 0, 3), MIP_OK);
    net_run(nt, 200);
    CHECK_EQ(nt->got[3], 1);
    net_free(nt);
}

#if MIP_CONF_RPL_NON_STORING
static void test_line_non_storing(void) { check_line(MIP_RPL_MOP_NON_STORING); }
static void test_dtsn_non_storing(void) { check_dtsn_asks_for_daos(MIP_RPL_MOP_NON_STORING); }
static void test_on_link_prefix_non_storing(void)
{
    check_on_link_prefix_at_the_root(MIP_RPL_MOP_NON_STORING);
}
static void test_node_to_node_non_storing(void) { check_node_to_node(MIP_RPL_MOP_NON_STORING); }
static void test_parent_change_non_storing(void) { check_parent_change(MIP_RPL_MOP_NON_STORING); }
#endif
#if MIP_CONF_RPL_STORING
static void test_line_storing(void) { check_line(MIP_RPL_MOP_STORING); }
static void test_dtsn_storing(void) { check_dtsn_asks_for_daos(MIP_RPL_MOP_STORING); }
static void test_on_link_prefix_storing(void)
{
    check_on_link_prefix_at_the_root(MIP_RPL_MOP_STORING);
}
static void test_node_to_node_storing(void) { check_node_to_node(MIP_RPL_MOP_STORING); }
static void test_parent_change_storing(void) { check_parent_change(MIP_RPL_MOP_STORING); }
#endif

int main(void)
{
#if MIP_CONF_RPL_NON_STORING
    RUN(test_line_non_storing);
    RUN(test_dtsn_non_storing);
    RUN(test_on_link_prefix_non_storing);
    RUN(test_node_to_node_non_storing);
    RUN(test_parent_change_non_storing);
#endif
#if MIP_CONF_RPL_STORING
    RUN(test_line_storing);
    RUN(test_dtsn_storing);
    RUN(test_storing_dao_ack_comes_from_the_root);
    RUN(test_on_link_prefix_storing);
    RUN(test_node_to_node_storing);
    RUN(test_parent_change_storing);
#endif
    return TESTING_DONE();
}

#else

int main(void)
{
    return 77;
}

#endif
