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

/* An ND message from PEER_MAC into netif eth: to dst's group MAC when dst
 * is multicast, else to OUR_MAC; with a link-layer option of opt_type
 * carrying PEER_MAC (none when opt_type is 0). */
static void input_nd(struct fixture *f, uint8_t eth, const char *src, const char *dst,
                     uint8_t hop, uint8_t type, uint8_t flags, const char *target,
                     uint8_t opt_type)
{
    uint8_t frame[128], group_mac[6];
    const uint8_t *eth_dst = OUR_MAC;
    size_t len;
    if (strncmp(dst, "ff", 2) == 0) {
        mac_of_group6(group_mac, dst);
        eth_dst = group_mac;
    }
    len = build_nd_frame(frame, eth_dst, PEER_MAC, src, dst, hop, type, flags, target, opt_type,
                         opt_type != 0 ? PEER_MAC : NULL);
    fixture_input(f, eth, frame, len);
}

/* fr is an echo reply from src to dst in an Ethernet frame to PEER_MAC
 * (its Ethernet header is stripped for the check). */
static void check_echo_reply_frame(struct fixture_frame *r, const char *src, const char *dst,
                                   uint16_t seq)
{
    CHECK_MEM(r->data, PEER_MAC, 6);
    CHECK_MEM(r->data + 6, OUR_MAC, 6);
    CHECK_EQ(mip_rd16(r->data + 12), 0x86DD);
    memmove(r->data, r->data + 14, r->len - 14);
    r->len -= 14;
    CHECK_ECHO_REPLY(r, src, dst, 0x4E44, seq, 8);
}

static void test_ns_for_our_address_answered_with_solicited_na(void)
{
    struct fixture f;
    uint8_t eth, frame[128];
    size_t len;
    struct mip_neigh *e;
    eth_nd_fixture(&f, &eth);
    input_nd(&f, eth, "fd00::1", "ff02::1:ff00:2", 255, 135, 0, "fd00::2", 1);
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
    check_echo_reply_frame(&f.tx[0], "fd00::2", "fd00::1", 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_nd_ns_tx), 1);
    fixture_free(&f);
}

/* Solicitations for an address of ours: from a neighbor (its SLLA is
 * confirmed with a unicast NS, then the solicited NA goes to it), and from
 * :: in Duplicate Address Detection (RFC 4861 7.2.4: answered to ff02::1
 * with S clear, nobody cached). */
static void test_ns_for_our_addresses_answered(void)
{
    static const struct {
        const char *src, *group, *target;
        bool dad;
    } rows[] = {
        {"fe80::1", "ff02::1:ff00:10", LL_US, false},   /* from the link-local */
        {"::", "ff02::1:ff00:2", "fd00::2", true},
    };
    unsigned i;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct fixture f;
        uint8_t eth, all_nodes_mac[6];
        eth_nd_fixture(&f, &eth);
        mac_of_group6(all_nodes_mac, "ff02::1");
        input_nd(&f, eth, rows[i].src, rows[i].group, 255, 135, 0, rows[i].target,
                 rows[i].dad ? 0 : 1);
        if (rows[i].dad) {
            CHECK_EQ(f.ntx, 1);
            CHECK_ND_FRAME(&f.tx[0], all_nodes_mac, rows[i].target, "ff02::1", 136, NA_O,
                           rows[i].target, 2);
            CHECK_EQ(test_neigh_count(&f), 0);
        } else {
            CHECK_EQ(f.ntx, 2);
            CHECK_ND_FRAME(&f.tx[0], PEER_MAC, rows[i].target, rows[i].src, 135, 0, rows[i].src,
                           1);
            CHECK_ND_FRAME(&f.tx[1], PEER_MAC, rows[i].target, rows[i].src, 136, NA_S | NA_O,
                           rows[i].target, 2);
        }
        fixture_free(&f);
    }
}

/* ND messages that are refused or need no answer: none is answered and
 * none makes a neighbor entry (RFC 4861 7.1.1, 7.1.2, 7.2.5). nd_rx -1:
 * not checked. */
static void test_nd_messages_refused_or_unanswered(void)
{
    static const struct {
        const char *what, *src, *dst;
        uint8_t hop, type, flags;
        const char *target;
        uint8_t opt;
        int malformed, nd_rx;
    } rows[] = {
        {"NS with hop limit 254", "fd00::1", "ff02::1:ff00:2", 254, 135, 0, "fd00::2", 1, 1, 0},
        /* fd00::1:0:0:2 shares our solicited-node group, so the frame is
         * accepted, but the target is not ours */
        {"NS for an address not ours", "fd00::1", "ff02::1:ff00:2", 255, 135, 0,
         "fd00::1:0:0:2", 1, 0, 1},
        /* from :: there must be no SLLA option */
        {"DAD probe with an SLLA", "::", "ff02::1:ff00:2", 255, 135, 0, "fd00::2", 1, 1, -1},
        {"unsolicited NA", "fd00::1", "ff02::1", 255, 136, NA_O, "fd00::1", 2, 0, 1},
        {"solicited NA to a group", "fd00::1", "ff02::1", 255, 136, NA_S | NA_O, "fd00::1", 2, 1,
         1},
    };
    unsigned i;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct fixture f;
        uint8_t eth;
        eth_nd_fixture(&f, &eth);
        input_nd(&f, eth, rows[i].src, rows[i].dst, rows[i].hop, rows[i].type, rows[i].flags,
                 rows[i].target, rows[i].opt);
        if (f.ntx != 0 || test_neigh_count(&f) != 0)
            fprintf(stderr, "row %u (%s): %u frames, %u neighbors\n", i, rows[i].what, f.ntx,
                    (unsigned)test_neigh_count(&f));
        CHECK_EQ(f.ntx, 0);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_nd_malformed), rows[i].malformed);
        if (rows[i].nd_rx >= 0)
            CHECK_EQ(fixture_stat(&f, MIP_STAT_nd_rx), rows[i].nd_rx);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_nd_na_tx), 0);
        CHECK_EQ(test_neigh_count(&f), 0);
        fixture_free(&f);
    }
}

static void test_unresolved_next_hop_solicited_then_released_by_na(void)
{
    struct fixture f;
    uint8_t eth, group_mac[6];
    static const uint8_t data[6] = {'n', 'd', '-', 'q', 'u', 'e'};
    struct mip_addr dst = fixture_addr("fd00::1");
    struct mip_neigh *e;
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
    input_nd(&f, eth, "fd00::1", "fd00::2", 255, 136, NA_S | NA_O, "fd00::1", 2);
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
    input_nd(&f, eth, "fe80::1", LL_US, 255, 136, NA_S | NA_O, "fe80::1", 2);
    CHECK_EQ(f.ntx, 1);
    check_echo_reply_frame(&f.tx[0], LL_US, "fe80::1", 3);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 1);
    CHECK_EQ(f.s->pool.in_use, 0);
    fixture_free(&f);
}

#endif /* MIP_CONF_ETHERNET && MIP_CONF_IPV6 */

int main(void)
{
#if MIP_CONF_ETHERNET && MIP_CONF_IPV6
    RUN(test_ns_for_our_address_answered_with_solicited_na);
    RUN(test_ns_for_our_addresses_answered);
    RUN(test_nd_messages_refused_or_unanswered);
    RUN(test_unresolved_next_hop_solicited_then_released_by_na);
    RUN(test_router_solicitation_and_advertisement_unhandled);
    RUN(test_link_local_from_mac_answers_echo);
#endif
    return TESTING_DONE();
}
