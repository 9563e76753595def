/* IPv6 Neighbor Discovery over Ethernet (RFC 4861): answering
 * solicitations, resolving next hops, and what is refused. */
#include "eth_builders.h"

#if MIP_CONF_ETHERNET && MIP_CONF_IPV6

#define LL_US "fe80::ff:fe00:10"   /* modified EUI-64 of 02:00:00:00:00:10 */
#define NA_S 0x40u
#define NA_O 0x20u

/* Checks that fr is an ICMPv6 ND message (NS or NA) in an Ethernet frame
 * to eth_dst from OUR_MAC: IPv6 src -> dst, hop limit 255, the flags byte,
 * target, and a link-layer option of opt_type carrying OUR_MAC. */
#define CHECK_ND_FRAME(fr, eth_dst, src, dst, type, flags, target, opt_type)   \
    do {                                                                       \
        struct mip_addr ck_t_ = fixture_addr(target);                          \
        CHECK_EQ((fr)->len, 14u + 40u + 32u);                                  \
        CHECK_MEM((fr)->data, (eth_dst), 6);                                   \
        CHECK_MEM((fr)->data + 6, OUR_MAC, 6);                                 \
        CHECK_EQ(mip_rd16((fr)->data + 12), 0x86DD);                           \
        CHECK_IP6((fr)->data + 14, src, dst, 58, 255, 32);                     \
        CHECK_EQ((fr)->data[54], (type));                                      \
        CHECK_EQ((fr)->data[55], 0);                                           \
        CHECK_EQ((fr)->data[58], (flags));                                     \
        CHECK_EQ((fr)->data[59] | (fr)->data[60] | (fr)->data[61], 0);         \
        CHECK_MEM((fr)->data + 62, ck_t_.bytes, 16);                           \
        CHECK_EQ((fr)->data[78], (opt_type));                                  \
        CHECK_EQ((fr)->data[79], 1);                                           \
        CHECK_MEM((fr)->data + 80, OUR_MAC, 6);                                \
        CHECK(ip6_l4_cksum_ok((fr)->data + 14, (fr)->len - 14, 58));           \
    } while (0)

static void eth_nd_fixture(struct fixture *f, uint8_t *eth)
{
    eth_fixture_init(f, eth, NULL, "fd00::2");
}

/* An echo request from src to dst in a frame to eth_dst from PEER_MAC. */
static size_t build_echo_frame(uint8_t *buf, const uint8_t eth_dst[6], const char *src,
                               const char *dst, uint16_t seq)
{
    uint8_t ip[128];
    size_t len = build_echo6(ip, src, dst, 64, 0x4E44, seq, 8);
    return build_eth(buf, eth_dst, PEER_MAC, 0x86DD, ip, len);
}

static void test_ns_for_our_address_answered_with_solicited_na(void)
{
    struct fixture f;
    uint8_t eth, frame[128], group_mac[6];
    size_t len;
    struct mip_neigh *e;
    eth_nd_fixture(&f, &eth);
    mac_of_group6(group_mac, "ff02::1:ff00:2");
    len = build_nd_frame(frame, group_mac, PEER_MAC, "fd00::1", "ff02::1:ff00:2", 255,
                         135, 0, "fd00::2", 1, PEER_MAC);
    fixture_input(&f, eth, frame, len);
    /* The sender is cached STALE from its SLLA (RFC 4861 7.2.3); using a
     * STALE entry re-confirms it at once with one unicast NS (neigh.c:
     * 7.3.3 without the DELAY state), then the NA goes out. */
    CHECK_EQ(f.ntx, 2);
    CHECK_ND_FRAME(&f.tx[0], PEER_MAC, "fd00::2", "fd00::1", 135, 0, "fd00::1", 1);
    CHECK_ND_FRAME(&f.tx[1], PEER_MAC, "fd00::2", "fd00::1", 136, NA_S | NA_O, "fd00::2", 2);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_nd_rx), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_nd_na_tx), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_nd_ns_tx), 1);
    e = test_neigh(&f, eth, "fd00::1");
    CHECK(e != NULL);
    if (e != NULL) {
        CHECK_EQ(e->state, MIP_NEIGH_STALE);
        CHECK_MEM(e->hw, PEER_MAC, 6);
    }

    /* cached: an echo reply goes straight to the sender's MAC */
    fixture_clear(&f);
    len = build_echo_frame(frame, OUR_MAC, "fd00::1", "fd00::2", 1);
    fixture_input(&f, eth, frame, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_MEM(f.tx[0].data, PEER_MAC, 6);
    CHECK_MEM(f.tx[0].data + 6, OUR_MAC, 6);
    CHECK_EQ(mip_rd16(f.tx[0].data + 12), 0x86DD);
    {
        struct fixture_frame *r = &f.tx[0];
        memmove(r->data, r->data + 14, r->len - 14);
        r->len -= 14;
        CHECK_ECHO_REPLY(r, "fd00::2", "fd00::1", 0x4E44, 1, 8);
    }
    CHECK_EQ(fixture_stat(&f, MIP_STAT_nd_ns_tx), 1);
    fixture_free(&f);
}

static void test_ns_for_link_local_answered_from_link_local(void)
{
    struct fixture f;
    uint8_t eth, frame[128], group_mac[6];
    size_t len;
    eth_nd_fixture(&f, &eth);
    mac_of_group6(group_mac, "ff02::1:ff00:10");
    len = build_nd_frame(frame, group_mac, PEER_MAC, "fe80::1", "ff02::1:ff00:10", 255,
                         135, 0, LL_US, 1, PEER_MAC);
    fixture_input(&f, eth, frame, len);
    CHECK_EQ(f.ntx, 2);
    CHECK_ND_FRAME(&f.tx[0], PEER_MAC, LL_US, "fe80::1", 135, 0, "fe80::1", 1);
    CHECK_ND_FRAME(&f.tx[1], PEER_MAC, LL_US, "fe80::1", 136, NA_S | NA_O, LL_US, 2);
    fixture_free(&f);
}

static void test_ns_with_hop_limit_below_255_dropped(void)
{
    struct fixture f;
    uint8_t eth, frame[128], group_mac[6];
    size_t len;
    eth_nd_fixture(&f, &eth);
    mac_of_group6(group_mac, "ff02::1:ff00:2");
    len = build_nd_frame(frame, group_mac, PEER_MAC, "fd00::1", "ff02::1:ff00:2", 254,
                         135, 0, "fd00::2", 1, PEER_MAC);
    fixture_input(&f, eth, frame, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_nd_malformed), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_nd_rx), 0);
    CHECK_EQ(test_neigh_count(&f), 0);
    fixture_free(&f);
}

static void test_ns_for_address_not_ours_not_answered(void)
{
    /* fd00::1:0:0:2 shares our solicited-node group, so the frame is
     * accepted, but the target is not ours. */
    struct fixture f;
    uint8_t eth, frame[128], group_mac[6];
    size_t len;
    eth_nd_fixture(&f, &eth);
    mac_of_group6(group_mac, "ff02::1:ff00:2");
    len = build_nd_frame(frame, group_mac, PEER_MAC, "fd00::1", "ff02::1:ff00:2", 255,
                         135, 0, "fd00::1:0:0:2", 1, PEER_MAC);
    fixture_input(&f, eth, frame, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_nd_rx), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_nd_na_tx), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_nd_malformed), 0);
    CHECK_EQ(test_neigh_count(&f), 0);
    fixture_free(&f);
}

static void test_dad_probe_for_our_address_answered_to_all_nodes(void)
{
    /* RFC 4861 7.2.4: a solicitation from :: is answered to ff02::1 with
     * S clear. */
    struct fixture f;
    uint8_t eth, frame[128], group_mac[6], all_nodes_mac[6];
    size_t len;
    eth_nd_fixture(&f, &eth);
    mac_of_group6(group_mac, "ff02::1:ff00:2");
    mac_of_group6(all_nodes_mac, "ff02::1");
    len = build_nd_frame(frame, group_mac, PEER_MAC, "::", "ff02::1:ff00:2", 255,
                         135, 0, "fd00::2", 0, NULL);
    fixture_input(&f, eth, frame, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_ND_FRAME(&f.tx[0], all_nodes_mac, "fd00::2", "ff02::1", 136, NA_O, "fd00::2", 2);
    CHECK_EQ(test_neigh_count(&f), 0);
    fixture_free(&f);
}

static void test_dad_probe_with_source_link_address_dropped(void)
{
    /* RFC 4861 7.1.1: from :: there must be no SLLA option. */
    struct fixture f;
    uint8_t eth, frame[128], group_mac[6];
    size_t len;
    eth_nd_fixture(&f, &eth);
    mac_of_group6(group_mac, "ff02::1:ff00:2");
    len = build_nd_frame(frame, group_mac, PEER_MAC, "::", "ff02::1:ff00:2", 255,
                         135, 0, "fd00::2", 1, PEER_MAC);
    fixture_input(&f, eth, frame, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_nd_malformed), 1);
    CHECK_EQ(test_neigh_count(&f), 0);
    fixture_free(&f);
}

static void test_unresolved_next_hop_solicited_then_released_by_na(void)
{
    struct fixture f;
    uint8_t eth, frame[128], group_mac[6];
    static const uint8_t data[6] = {'n', 'd', '-', 'q', 'u', 'e'};
    struct mip_addr dst = fixture_addr("fd00::1");
    struct mip_neigh *e;
    size_t len;
    eth_nd_fixture(&f, &eth);
    mac_of_group6(group_mac, "ff02::1:ff00:1");
    CHECK_EQ(group_mac[2], 0xFF);
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 5000, &dst, 7, MIP_NETIF_ANY,
                            data, sizeof(data)), MIP_ERR_PENDING);
    CHECK_EQ(f.ntx, 1);
    CHECK_ND_FRAME(&f.tx[0], group_mac, "fd00::2", "ff02::1:ff00:1", 135, 0, "fd00::1", 1);
    CHECK_EQ(f.s->pool.in_use, 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_nd_ns_tx), 1);

    fixture_clear(&f);
    len = build_nd_frame(frame, OUR_MAC, PEER_MAC, "fd00::1", "fd00::2", 255,
                         136, NA_S | NA_O, "fd00::1", 2, PEER_MAC);
    fixture_input(&f, eth, frame, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].len, 14u + 40u + 8u + sizeof(data));
    CHECK_MEM(f.tx[0].data, PEER_MAC, 6);
    CHECK_MEM(f.tx[0].data + 6, OUR_MAC, 6);
    CHECK_EQ(mip_rd16(f.tx[0].data + 12), 0x86DD);
    CHECK_IP6(f.tx[0].data + 14, "fd00::2", "fd00::1", 17, 64, 8 + sizeof(data));
    CHECK_EQ(mip_rd16(f.tx[0].data + 54), 5000);
    CHECK_EQ(mip_rd16(f.tx[0].data + 56), 7);
    CHECK(ip6_l4_cksum_ok(f.tx[0].data + 14, f.tx[0].len - 14, 17));
    CHECK_MEM(f.tx[0].data + 62, data, sizeof(data));
    CHECK_EQ(f.s->pool.in_use, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_neigh_resolved), 1);
    e = test_neigh(&f, eth, "fd00::1");
    CHECK(e != NULL && e->state == MIP_NEIGH_REACHABLE);
    if (e != NULL)
        CHECK_MEM(e->hw, PEER_MAC, 6);
    fixture_free(&f);
}

static void test_unsolicited_na_does_not_create_entry(void)
{
    struct fixture f;
    uint8_t eth, frame[128], all_nodes_mac[6];
    size_t len;
    eth_nd_fixture(&f, &eth);
    mac_of_group6(all_nodes_mac, "ff02::1");
    len = build_nd_frame(frame, all_nodes_mac, PEER_MAC, "fd00::1", "ff02::1", 255,
                         136, NA_O, "fd00::1", 2, PEER_MAC);
    fixture_input(&f, eth, frame, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_nd_rx), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_nd_malformed), 0);
    CHECK_EQ(test_neigh_count(&f), 0);
    fixture_free(&f);
}

static void test_solicited_na_to_multicast_dropped(void)
{
    struct fixture f;
    uint8_t eth, frame[128], all_nodes_mac[6];
    size_t len;
    eth_nd_fixture(&f, &eth);
    mac_of_group6(all_nodes_mac, "ff02::1");
    len = build_nd_frame(frame, all_nodes_mac, PEER_MAC, "fd00::1", "ff02::1", 255,
                         136, NA_S | NA_O, "fd00::1", 2, PEER_MAC);
    fixture_input(&f, eth, frame, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_nd_malformed), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_nd_rx), 1);
    CHECK_EQ(test_neigh_count(&f), 0);
    fixture_free(&f);
}

static void test_router_solicitation_and_advertisement_unhandled(void)
{
    struct fixture f;
    uint8_t eth, frame[128], ip[128], msg[16], all_nodes_mac[6];
    size_t len;
    eth_nd_fixture(&f, &eth);
    mac_of_group6(all_nodes_mac, "ff02::1");
    memset(msg, 0, sizeof(msg));
    msg[0] = 133;                                  /* RS, 8 bytes */
    fix_l4_checksum6(msg, 8, 2, 58, "fe80::1", LL_US);
    len = build_ipv6(ip, "fe80::1", LL_US, 58, 255, msg, 8);
    len = build_eth(frame, OUR_MAC, PEER_MAC, 0x86DD, ip, len);
    fixture_input(&f, eth, frame, len);
    memset(msg, 0, sizeof(msg));
    msg[0] = 134;                                  /* RA, 16 bytes */
    msg[4] = 64;
    mip_wr16(msg + 6, 1800);
    fix_l4_checksum6(msg, 16, 2, 58, "fe80::1", "ff02::1");
    len = build_ipv6(ip, "fe80::1", "ff02::1", 58, 255, msg, 16);
    len = build_eth(frame, all_nodes_mac, PEER_MAC, 0x86DD, ip, len);
    fixture_input(&f, eth, frame, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_nd_rx), 2);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_icmp_unhandled), 2);
    CHECK_EQ(test_neigh_count(&f), 0);
    fixture_free(&f);
}

static void test_link_local_from_mac_answers_echo(void)
{
    struct fixture f;
    uint8_t eth, frame[128], group_mac[6];
    struct mip_addr ll = fixture_addr(LL_US);
    struct mip_netif *nif;
    size_t len;
    eth_nd_fixture(&f, &eth);
    nif = mip_netif_get(f.s, eth);
    CHECK(nif != NULL && nif->addr6[0].used);
    if (nif != NULL)
        CHECK_MEM(nif->addr6[0].addr, ll.bytes, 16);

    len = build_echo_frame(frame, OUR_MAC, "fe80::1", LL_US, 3);
    fixture_input(&f, eth, frame, len);
    /* the requester is unknown: solicit it, keep the reply */
    mac_of_group6(group_mac, "ff02::1:ff00:1");
    CHECK_EQ(f.ntx, 1);
    CHECK_ND_FRAME(&f.tx[0], group_mac, LL_US, "ff02::1:ff00:1", 135, 0, "fe80::1", 1);
    CHECK_EQ(f.s->pool.in_use, 1);

    fixture_clear(&f);
    len = build_nd_frame(frame, OUR_MAC, PEER_MAC, "fe80::1", LL_US, 255,
                         136, NA_S | NA_O, "fe80::1", 2, PEER_MAC);
    fixture_input(&f, eth, frame, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_MEM(f.tx[0].data, PEER_MAC, 6);
    {
        struct fixture_frame *r = &f.tx[0];
        memmove(r->data, r->data + 14, r->len - 14);
        r->len -= 14;
        CHECK_ECHO_REPLY(r, LL_US, "fe80::1", 0x4E44, 3, 8);
    }
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 1);
    CHECK_EQ(f.s->pool.in_use, 0);
    fixture_free(&f);
}

#endif /* MIP_CONF_ETHERNET && MIP_CONF_IPV6 */

int main(void)
{
#if MIP_CONF_ETHERNET && MIP_CONF_IPV6
    RUN(test_ns_for_our_address_answered_with_solicited_na);
    RUN(test_ns_for_link_local_answered_from_link_local);
    RUN(test_ns_with_hop_limit_below_255_dropped);
    RUN(test_ns_for_address_not_ours_not_answered);
    RUN(test_dad_probe_for_our_address_answered_to_all_nodes);
    RUN(test_dad_probe_with_source_link_address_dropped);
    RUN(test_unresolved_next_hop_solicited_then_released_by_na);
    RUN(test_unsolicited_na_does_not_create_entry);
    RUN(test_solicited_na_to_multicast_dropped);
    RUN(test_router_solicitation_and_advertisement_unhandled);
    RUN(test_link_local_from_mac_answers_echo);
#endif
    return TESTING_DONE();
}
