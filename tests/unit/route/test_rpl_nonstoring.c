/*
 * Non-storing mode end to end on small networks of real stacks over
 * 6LoWPAN (rplnet.h): every node's DAO reaches the root and is
 * acknowledged; the root then reaches every node, the far ones by a source
 * route (RFC 6554) that each router on the way sends on (core/ipv6_rpl.c);
 * a datagram between two nodes goes up to the root and down in a tunnel
 * (RFC 9008 7); a node that changes parent is found on its new path.
 */
#include "moteip/config.h"
#include "moteip/rpl_down.h"

/* rplnet.h needs a root (mip_rpl_root_start) */
#if MIP_CONF_RPL_ROOT
#include "rplnet.h"
#include "moteip/udp.h"
#else
#include "testing.h"
#endif

#if MIP_CONF_RPL_ROOT && MIP_RPL_DOWN_MAX > 0

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

/* Root 0 .. node n-1 in a line: node i is i hops down. */
static void test_line_root_reaches_every_node(void)
{
    struct net *nt = net_new(7, NULL);
    unsigned i, acked = 0;

    net_line(nt);
    net_root(nt);
    net_run(nt, 30000);
    CHECK(net_all_joined(nt));
    for (i = 1; i < nt->n; i++)
        acked += down_stat(nt, i, MIP_RPL_DOWN_STAT_dao_acked);
    CHECK_EQ(acked, nt->n - 1u);
    CHECK_EQ(down_stat(nt, 0, MIP_RPL_DOWN_STAT_nodes_added), nt->n - 1u);
    for (i = 1; i < nt->n; i++) {
        CHECK_EQ(udp_to(nt, 0, i), MIP_OK);
        net_run(nt, 200);
        if (nt->got[i] != 1u)
            fprintf(stderr, "node %u got %u\n", i, nt->got[i]);
        CHECK_EQ(nt->got[i], 1);
    }
    /* nodes 2..6 by a source route; routers 1..5 each sent one on */
    CHECK(down_stat(nt, 0, MIP_RPL_DOWN_STAT_srh_inserted) >= nt->n - 2u);
    CHECK(mip_stack_stat(nt->s[1], MIP_STAT_srh_forwarded) >= nt->n - 2u);
    CHECK(mip_stack_stat(nt->s[nt->n - 2], MIP_STAT_srh_forwarded) >= 1u);
    net_free(nt);
}

/* Node 3 to node 6 in a line: up to the root, down in a tunnel. */
static void test_node_to_node_through_the_root(void)
{
    struct net *nt = net_new(7, NULL);

    net_line(nt);
    net_root(nt);
    net_run(nt, 30000);
    CHECK(net_all_joined(nt));
    CHECK_EQ(udp_to(nt, 3, 6), MIP_OK);
    net_run(nt, 500);
    CHECK_EQ(nt->got[6], 1);
    CHECK_EQ(down_stat(nt, 0, MIP_RPL_DOWN_STAT_tunnelled), 1);
    CHECK_EQ(mip_stack_stat(nt->s[6], MIP_STAT_rx_ipv6_decap), 1);
    net_free(nt);
}

/* Root 0; 1 and 2 hear it; 3 hears 1 and 2. Node 3 loses its link to its
 * parent: it moves to the other, its new DAO moves its route at the root,
 * and the root reaches it again. */
static void test_parent_change_moves_the_route(void)
{
    struct net *nt = net_new(4, NULL);
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
    /* traffic up finds the dead link (each frame unacknowledged after
     * its retries): its ETX grows until the other parent is better */
    for (k = 0; k < 20 && net_parent(nt, 3) == p; k++) {
        CHECK_EQ(udp_to(nt, 3, 0), MIP_OK);
        net_run(nt, 1000);
    }
    net_run(nt, 10000);
    CHECK_EQ(net_parent(nt, 3), other);
    CHECK_EQ(udp_to(nt, 0, 3), MIP_OK);
    net_run(nt, 300);
    CHECK_EQ(nt->got[3], 2);
    net_free(nt);
}

int main(void)
{
    RUN(test_line_root_reaches_every_node);
    RUN(test_node_to_node_through_the_root);
    RUN(test_parent_change_moves_the_route);
    return TESTING_DONE();
}

#else

int main(void)
{
    return 77;
}

#endif
