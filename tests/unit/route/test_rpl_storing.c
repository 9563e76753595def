/*
 * Storing mode end to end on small networks of real stacks over 6LoWPAN
 * (rplnet.h): each router keeps routes to the nodes below it from its
 * children's DAOs (acknowledged hop by hop) and sends them on to its
 * parent, so the root reaches every node without source routes; traffic
 * between two nodes turns down at their common ancestor; a node that
 * changes parent tells the old one with a No-Path DAO (RFC 6550 9.8).
 */
#include "moteip/config.h"
#include "moteip/rpl_down.h"

/* rplnet.h needs a root (mip_rpl_root_start) */
#if MIP_CONF_RPL_ROOT && MIP_CONF_RPL_STORING
#include "rplnet.h"
#include "moteip/udp.h"
#else
#include "testing.h"
#endif

#if MIP_CONF_RPL_ROOT && MIP_CONF_RPL_STORING && MIP_RPL_DOWN_MAX > 0

static struct mip_rpl_config storing(void)
{
    struct mip_rpl_config c;
    mip_rpl_config_default(&c);
    c.mop = MIP_RPL_MOP_STORING;
    return c;
}

static mip_status udp_to(struct net *nt, unsigned i, unsigned j)
{
    struct mip_addr d = net_global(j);
    static const uint8_t data[24] = "rpl storing route";
    (void)mip_stack_poll(nt->s[i], nt->now);
    return mip_udp_sendto(nt->s[i], NULL, NET_PORT, &d, NET_PORT, MIP_NETIF_ANY, data,
                          sizeof(data));
}

static uint32_t down_stat(const struct net *nt, unsigned i, enum mip_rpl_down_stat which)
{
    return nt->rpl[i].down.stats[which];
}

static void test_line_root_reaches_every_node(void)
{
    struct mip_rpl_config c = storing();
    struct net *nt = net_new(7, &c);
    unsigned i, acked = 0;

    net_line(nt);
    net_root(nt);
    net_run(nt, 30000);
    CHECK(net_all_joined(nt));
    for (i = 1; i < nt->n; i++)
        acked += down_stat(nt, i, MIP_RPL_DOWN_STAT_dao_acked);
    CHECK_EQ(acked, nt->n - 1u);
    /* every node's route reached the root through the routers between */
    CHECK_EQ(down_stat(nt, 0, MIP_RPL_DOWN_STAT_nodes_added), nt->n - 1u);
    CHECK_EQ(down_stat(nt, 1, MIP_RPL_DOWN_STAT_nodes_added), nt->n - 2u);
    CHECK(down_stat(nt, 1, MIP_RPL_DOWN_STAT_dao_forwarded) >= nt->n - 2u);
    for (i = 1; i < nt->n; i++) {
        CHECK_EQ(udp_to(nt, 0, i), MIP_OK);
        net_run(nt, 200);
        if (nt->got[i] != 1u)
            fprintf(stderr, "node %u got %u\n", i, nt->got[i]);
        CHECK_EQ(nt->got[i], 1);
    }
    CHECK_EQ(down_stat(nt, 0, MIP_RPL_DOWN_STAT_srh_inserted), 0);
    CHECK_EQ(mip_stack_stat(nt->s[1], MIP_STAT_srh_forwarded), 0);
    net_free(nt);
}

/* Root 0, 1 below it with children 2 and 3: 2 -> 3 turns at node 1. */
static void test_node_to_node_turns_at_the_common_parent(void)
{
    struct mip_rpl_config c = storing();
    struct net *nt = net_new(4, &c);

    net_link(nt, 0, 1, true);
    net_link(nt, 1, 2, true);
    net_link(nt, 1, 3, true);
    net_root(nt);
    net_run(nt, 30000);
    CHECK(net_all_joined(nt));
    CHECK_EQ(udp_to(nt, 2, 3), MIP_OK);
    net_run(nt, 500);
    CHECK_EQ(nt->got[3], 1);
    CHECK_EQ(mip_stack_stat(nt->s[0], MIP_STAT_ip_forwarded), 0);
    net_free(nt);
}

/* Root 0; 1 and 2 hear it; 3 hears 1 and 2. Node 3 loses its parent's
 * link, moves, sends the old parent a No-Path DAO and is reached anew. */
static void test_parent_change_no_path(void)
{
    struct mip_rpl_config c = storing();
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
    /* the link breaks (both ways: the No-Path DAO is lost on it, and p's
     * route ends with its lifetime; on a link that fails one way it
     * arrives) */
    net_link(nt, (unsigned)p, 3, false);
    for (k = 0; k < 20 && net_parent(nt, 3) == p; k++) {
        CHECK_EQ(udp_to(nt, 3, 0), MIP_OK);
        net_run(nt, 1000);
    }
    net_run(nt, 10000);
    CHECK_EQ(net_parent(nt, 3), other);
    CHECK_EQ(down_stat(nt, 3, MIP_RPL_DOWN_STAT_no_path_tx), 1);
    CHECK_EQ(udp_to(nt, 0, 3), MIP_OK);
    net_run(nt, 300);
    CHECK_EQ(nt->got[3], 2);
    net_free(nt);
}

int main(void)
{
    RUN(test_line_root_reaches_every_node);
    RUN(test_node_to_node_turns_at_the_common_parent);
    RUN(test_parent_change_no_path);
    return TESTING_DONE();
}

#else

int main(void)
{
    return 77;
}

#endif
