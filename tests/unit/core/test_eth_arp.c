/* Ethernet framing and ARP (RFC 826) with the neighbor cache: answering,
 * resolving, queueing, retrying, aging and replacement. */
#include "eth_builders.h"

#if MIP_CONF_ETHERNET && MIP_CONF_IPV4

#define US "192.0.2.2"
#define PEER "192.0.2.1"

static const uint8_t ZERO_MAC[6] = {0, 0, 0, 0, 0, 0};

/* Checks that fr is the UDP datagram from US:5000 to dst:7 carrying
 * body[0..n), in an Ethernet frame to eth_dst. */
#define CHECK_UDP4_FRAME(fr, eth_dst, dst, body, n)                            \
    do {                                                                       \
        struct mip_addr ck_d_ = fixture_addr(dst), ck_s_ = fixture_addr(US);   \
        CHECK_EQ((fr)->len, 14u + 28u + (n));                                  \
        CHECK_MEM((fr)->data, (eth_dst), 6);                                   \
        CHECK_MEM((fr)->data + 6, OUR_MAC, 6);                                 \
        CHECK_EQ(mip_rd16((fr)->data + 12), 0x0800);                           \
        CHECK_EQ((fr)->data[14], 0x45);                                        \
        CHECK_EQ(mip_rd16((fr)->data + 16), 28u + (n));                        \
        CHECK_EQ((fr)->data[23], 17);                                          \
        CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, (fr)->data + 14, 20)), 0);  \
        CHECK_MEM((fr)->data + 26, ck_s_.bytes, 4);                            \
        CHECK_MEM((fr)->data + 30, ck_d_.bytes, 4);                            \
        CHECK_EQ(mip_rd16((fr)->data + 34), 5000);                             \
        CHECK_EQ(mip_rd16((fr)->data + 36), 7);                                \
        CHECK_MEM((fr)->data + 42, (body), (n));                               \
    } while (0)

/* Sends from the application. The stack learns the time only from
 * input and poll calls, so poll first, as an application's loop would. */
static mip_status send_udp(struct fixture *f, const char *dst, const uint8_t *data, size_t n)
{
    struct mip_addr d = fixture_addr(dst);
    (void)mip_stack_poll(f->s, f->now);
    return mip_udp_sendto(f->s, NULL, 5000, &d, 7, MIP_NETIF_ANY, data, n);
}

/* --- answering ----------------------------------------------------------- */

static void test_arp_request_for_us_gets_exactly_one_reply(void)
{
    struct fixture f;
    uint8_t eth, frame[64];
    size_t len;
    struct mip_neigh *e;
    eth_fixture_init(&f, &eth, US, NULL);
    len = build_arp_frame(frame, ETH_BCAST, 1, PEER_MAC, PEER, ZERO_MAC, US);
    fixture_input(&f, eth, frame, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].netif, eth);
    CHECK_ARP_FRAME(&f.tx[0], PEER_MAC, 2, OUR_MAC, US, PEER_MAC, PEER);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_arp_rx), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_arp_replies_tx), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_arp_requests_tx), 0);
    /* the requester is cached (not confirmed: STALE) */
    e = test_neigh(&f, eth, PEER);
    CHECK(e != NULL);
    if (e != NULL) {
        CHECK_EQ(e->state, MIP_NEIGH_STALE);
        CHECK_MEM(e->hw, PEER_MAC, 6);
    }
    CHECK_EQ(test_neigh_count(&f), 1);
    fixture_free(&f);
}

static void test_padded_arp_request_answered(void)
{
    /* Minimum-size Ethernet frames carry 18 bytes of padding after ARP. */
    struct fixture f;
    uint8_t eth, frame[64];
    size_t len;
    eth_fixture_init(&f, &eth, US, NULL);
    len = build_arp_frame(frame, ETH_BCAST, 1, PEER_MAC, PEER, ZERO_MAC, US);
    memset(frame + len, 0, 60 - len);
    fixture_input(&f, eth, frame, 60);
    CHECK_EQ(f.ntx, 1);
    CHECK_ARP_FRAME(&f.tx[0], PEER_MAC, 2, OUR_MAC, US, PEER_MAC, PEER);
    fixture_free(&f);
}

static void test_arp_probe_for_our_address_answered_without_caching(void)
{
    /* RFC 5227: a probe has sender 0.0.0.0; the reply tells the prober the
     * address is taken, and 0.0.0.0 is no mapping to learn. */
    struct fixture f;
    uint8_t eth, frame[64];
    size_t len;
    eth_fixture_init(&f, &eth, US, NULL);
    len = build_arp_frame(frame, ETH_BCAST, 1, PEER_MAC, "0.0.0.0", ZERO_MAC, US);
    fixture_input(&f, eth, frame, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_ARP_FRAME(&f.tx[0], PEER_MAC, 2, OUR_MAC, US, PEER_MAC, "0.0.0.0");
    CHECK_EQ(test_neigh_count(&f), 0);
    fixture_free(&f);
}

/* ARP messages that earn no reply and teach no mapping: a request for an
 * address not ours; a gratuitous reply about a stranger (RFC 826 merges
 * only known senders); a sender MAC that is a group address (malformed).
 * */
static void test_arp_unanswered_and_not_cached(void)
{
    static const uint8_t group_mac[6] = {0x01, 0, 0x5E, 0, 0, 1};
    static const struct {
        const char *what;
        uint16_t op;
        const uint8_t *sha;
        const char *spa;
        const uint8_t *tha;
        const char *tpa;
        int malformed, arp_rx;
    } rows[] = {
        {"request for another address", 1, PEER_MAC, PEER, ZERO_MAC, "192.0.2.77", 0, 1},
        {"unsolicited reply", 2, PEER_MAC, PEER, ETH_BCAST, PEER, 0, 1},
        {"multicast sender MAC", 1, group_mac, PEER, ZERO_MAC, US, 1, 0},
    };
    unsigned i;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct fixture f;
        uint8_t eth, frame[64];
        size_t len;
        eth_fixture_init(&f, &eth, US, NULL);
        len = build_arp_frame(frame, ETH_BCAST, rows[i].op, rows[i].sha, rows[i].spa,
                              rows[i].tha, rows[i].tpa);
        fixture_input(&f, eth, frame, len);
        if (f.ntx != 0 || test_neigh_count(&f) != 0)
            fprintf(stderr, "row %u (%s): %u frames, %u neighbors\n", i, rows[i].what, f.ntx,
                    (unsigned)test_neigh_count(&f));
        CHECK_EQ(f.ntx, 0);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_arp_malformed), rows[i].malformed);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_arp_rx), rows[i].arp_rx);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_arp_replies_tx), 0);
        CHECK_EQ(test_neigh_count(&f), 0);
        fixture_free(&f);
    }
}

/* --- Ethernet demultiplexing --------------------------------------------- */

static void test_frame_to_another_unicast_mac_dropped(void)
{
    struct fixture f;
    uint8_t eth, frame[128], ip[64], icmp[32];
    static const uint8_t other[6] = {0x02, 0, 0, 0, 0, 0x99};
    size_t n, len;
    eth_fixture_init(&f, &eth, US, NULL);
    n = build_echo(icmp, 8, 1, 1, 8);
    len = build_ipv4(ip, PEER, US, 1, 64, 1, 0, 0, icmp, n);
    len = build_eth(frame, other, PEER_MAC, 0x0800, ip, len);
    fixture_input(&f, eth, frame, len);
    len = build_arp_frame(frame, other, 1, PEER_MAC, PEER, ZERO_MAC, US);
    fixture_input(&f, eth, frame, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_link_not_for_us), 2);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_rx_ipv4), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_arp_rx), 0);
    fixture_free(&f);
}

static void test_unknown_ethertype_and_vlan_dropped_unsupported(void)
{
    struct fixture f;
    uint8_t eth, frame[64], payload[46];
    size_t len;
    eth_fixture_init(&f, &eth, US, NULL);
    memset(payload, 0, sizeof(payload));
    len = build_eth(frame, OUR_MAC, PEER_MAC, 0x88B5, payload, sizeof(payload));
    fixture_input(&f, eth, frame, len);
    len = build_eth(frame, ETH_BCAST, PEER_MAC, 0x8100, payload, sizeof(payload));   /* VLAN */
    fixture_input(&f, eth, frame, len);
    len = build_eth(frame, OUR_MAC, PEER_MAC, 0x88A8, payload, sizeof(payload));     /* QinQ */
    fixture_input(&f, eth, frame, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_rx_frames), 3);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_link_unsupported), 3);
    fixture_free(&f);
}

static void test_truncated_ethernet_dropped(void)
{
    struct fixture f;
    uint8_t eth, frame[64];
    size_t len;
    eth_fixture_init(&f, &eth, US, NULL);
    len = build_arp_frame(frame, ETH_BCAST, 1, PEER_MAC, PEER, ZERO_MAC, US);
    fixture_input(&f, eth, frame, 13);
    fixture_input(&f, eth, frame, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_link_truncated), 2);
    /* a whole header with a cut ARP body is ARP's problem */
    fixture_input(&f, eth, frame, len - 1);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_link_truncated), 2);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_arp_malformed), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_rx_frames), 3);
    fixture_free(&f);
}

/* --- resolution ------------------------------------------------------------ */

/* PEER's ARP reply to us arrives: the datagram queued for it (data, n
 * bytes) goes out to PEER_MAC, and its buffer is free again. */
static void peer_answers_queued_goes_out(struct fixture *f, uint8_t eth, const uint8_t *data,
                                         size_t n)
{
    uint8_t frame[64];
    size_t len = build_arp_frame(frame, OUR_MAC, 2, PEER_MAC, PEER, OUR_MAC, US);
    fixture_input(f, eth, frame, len);
    CHECK_EQ(f->ntx, 1);
    CHECK_UDP4_FRAME(&f->tx[0], PEER_MAC, PEER, data, n);
    CHECK_EQ(f->s->pool.in_use, 0);
}

static void test_send_to_unresolved_neighbor_queued_until_arp_reply(void)
{
    struct fixture f;
    uint8_t eth;
    static const uint8_t data[10] = {'h', 'e', 'l', 'l', 'o', '-', 'a', 'r', 'p', '!'};
    struct mip_neigh *e;
    eth_fixture_init(&f, &eth, US, NULL);
    CHECK_EQ(send_udp(&f, PEER, data, sizeof(data)), MIP_ERR_PENDING);
    CHECK_EQ(f.ntx, 1);
    CHECK_ARP_FRAME(&f.tx[0], ETH_BCAST, 1, OUR_MAC, US, ZERO_MAC, PEER);
    CHECK_EQ(f.tx[0].netif, eth);
    CHECK_EQ(f.s->pool.in_use, 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_arp_requests_tx), 1);
    e = test_neigh(&f, eth, PEER);
    CHECK(e != NULL && e->state == MIP_NEIGH_INCOMPLETE);

    fixture_clear(&f);
    f.now += 20;
    peer_answers_queued_goes_out(&f, eth, data, sizeof(data));
    CHECK_EQ(fixture_stat(&f, MIP_STAT_neigh_resolved), 1);
    e = test_neigh(&f, eth, PEER);
    CHECK(e != NULL && e->state == MIP_NEIGH_REACHABLE);

    /* resolved: the next datagram goes straight out */
    fixture_clear(&f);
    CHECK_EQ(send_udp(&f, PEER, data, 3), MIP_OK);
    CHECK_EQ(f.ntx, 1);
    CHECK_UDP4_FRAME(&f.tx[0], PEER_MAC, PEER, data, 3);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_arp_requests_tx), 1);
    fixture_free(&f);
}

static void test_learning_a_new_neighbor_keeps_another_queued_packet(void)
{
    /* A new cache entry must not touch packet buffers: the one queued for
     * PEER stays queued while 192.0.2.9 is learnt, and goes out intact. */
    struct fixture f;
    uint8_t eth, frame[64];
    static const uint8_t data[8] = {'q', 'u', 'e', 'u', 'e', 'd', '!', '!'};
    static const uint8_t other_mac[6] = {0x02, 0, 0, 0, 0, 0x09};
    size_t len;
    eth_fixture_init(&f, &eth, US, NULL);
    CHECK_EQ(send_udp(&f, PEER, data, sizeof(data)), MIP_ERR_PENDING);
    CHECK_EQ(f.s->pool.in_use, 1);
    len = build_arp_frame(frame, ETH_BCAST, 1, other_mac, "192.0.2.9", ZERO_MAC, US);
    fixture_input(&f, eth, frame, len);
    CHECK(test_neigh(&f, eth, "192.0.2.9") != NULL);
    CHECK_EQ(f.s->pool.in_use, 1);
    fixture_clear(&f);
    peer_answers_queued_goes_out(&f, eth, data, sizeof(data));
    fixture_free(&f);
}

static void test_second_send_while_incomplete_replaces_queued_packet(void)
{
    struct fixture f;
    uint8_t eth;
    static const uint8_t first[4] = {1, 1, 1, 1}, second[6] = {2, 2, 2, 2, 2, 2};
    eth_fixture_init(&f, &eth, US, NULL);
    CHECK_EQ(send_udp(&f, PEER, first, sizeof(first)), MIP_ERR_PENDING);
    CHECK_EQ(send_udp(&f, PEER, second, sizeof(second)), MIP_ERR_PENDING);
    CHECK_EQ(f.ntx, 1);                          /* one request only */
    CHECK_EQ(f.s->pool.in_use, 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_neigh_queue_replaced), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_arp_requests_tx), 1);
    fixture_clear(&f);
    peer_answers_queued_goes_out(&f, eth, second, sizeof(second));
    fixture_free(&f);
}

static void test_unanswered_resolution_retries_then_drops(void)
{
    struct fixture f;
    uint8_t eth;
    static const uint8_t data[4] = {9, 9, 9, 9};
    unsigned probe;
    eth_fixture_init(&f, &eth, US, NULL);
    CHECK_EQ(send_udp(&f, PEER, data, sizeof(data)), MIP_ERR_PENDING);
    /* probe 1 went out with the send; each poll reports the exact wait */
    CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_NEIGH_RETRANS_MS);
    CHECK_EQ(fixture_advance(&f, 1), MIP_NEIGH_RETRANS_MS - 1);
    CHECK_EQ(fixture_advance(&f, MIP_NEIGH_RETRANS_MS - 2), 1);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(fixture_advance(&f, 1), MIP_NEIGH_RETRANS_MS);          /* probe 2 */
    for (probe = 3; probe <= MIP_NEIGH_MAX_PROBES; probe++)
        CHECK_EQ(fixture_advance(&f, MIP_NEIGH_RETRANS_MS), MIP_NEIGH_RETRANS_MS);
    CHECK_EQ(f.ntx, MIP_NEIGH_MAX_PROBES);
    for (probe = 0; probe < f.ntx; probe++)
        CHECK_ARP_FRAME(&f.tx[probe], ETH_BCAST, 1, OUR_MAC, US, ZERO_MAC, PEER);
    CHECK_EQ(f.s->pool.in_use, 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_neigh_unresolved), 0);
    CHECK_EQ(fixture_advance(&f, MIP_NEIGH_RETRANS_MS - 1), 1);
    CHECK_EQ(fixture_advance(&f, 1), MIP_POLL_IDLE);
    CHECK_EQ(f.ntx, MIP_NEIGH_MAX_PROBES);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_arp_requests_tx), MIP_NEIGH_MAX_PROBES);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_neigh_unresolved), 1);
    CHECK_EQ(f.s->pool.in_use, 0);
    CHECK_EQ(test_neigh_count(&f), 0);
    fixture_free(&f);
}

static void test_reachable_turns_stale_and_next_use_sends_one_unicast_request(void)
{
    struct fixture f;
    uint8_t eth, frame[64];
    static const uint8_t data[5] = {5, 4, 3, 2, 1};
    size_t len;
    struct mip_neigh *e;
    eth_fixture_init(&f, &eth, US, NULL);
    CHECK_EQ(send_udp(&f, PEER, data, sizeof(data)), MIP_ERR_PENDING);
    len = build_arp_frame(frame, OUR_MAC, 2, PEER_MAC, PEER, OUR_MAC, US);
    fixture_input(&f, eth, frame, len);
    e = test_neigh(&f, eth, PEER);
    CHECK(e != NULL && e->state == MIP_NEIGH_REACHABLE);
    CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_NEIGH_REACHABLE_MS);
    CHECK_EQ(fixture_advance(&f, MIP_NEIGH_REACHABLE_MS - 1), 1);
    CHECK(e != NULL && e->state == MIP_NEIGH_REACHABLE);
    /* STALE: no timer but the horizon of its last use (issue 24) */
    CHECK_EQ(fixture_advance(&f, 1), MIP_TIME_HORIZON_MS - MIP_NEIGH_REACHABLE_MS);
    CHECK(e != NULL && e->state == MIP_NEIGH_STALE);

    fixture_clear(&f);
    CHECK_EQ(send_udp(&f, PEER, data, sizeof(data)), MIP_OK);
    CHECK_EQ(f.ntx, 2);
    CHECK_ARP_FRAME(&f.tx[0], PEER_MAC, 1, OUR_MAC, US, ZERO_MAC, PEER);
    CHECK_UDP4_FRAME(&f.tx[1], PEER_MAC, PEER, data, sizeof(data));
    /* one probe per staleness, not one per packet */
    CHECK_EQ(send_udp(&f, PEER, data, 2), MIP_OK);
    CHECK_EQ(f.ntx, 3);
    CHECK_UDP4_FRAME(&f.tx[2], PEER_MAC, PEER, data, 2);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_arp_requests_tx), 2);
    CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_NEIGH_RETRANS_MS);

    /* the unicast reply confirms it again */
    fixture_clear(&f);
    fixture_input(&f, eth, frame, len);
    CHECK(e != NULL && e->state == MIP_NEIGH_REACHABLE);
    CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_NEIGH_REACHABLE_MS);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

/* --- replacement ------------------------------------------------------------ */

/* "192.0.2.<100+i>" */
static const char *nb_addr(unsigned i, char *buf)
{
    snprintf(buf, 16, "192.0.2.%u", 100u + i);
    return buf;
}

/* Makes neighbor i known (STALE) by an ARP request from it for us. */
static void learn_neighbor(struct fixture *f, uint8_t eth, unsigned i)
{
    uint8_t frame[64], mac[6] = {0x02, 0, 0, 0, 1, 0};
    char ip[16];
    size_t len;
    mac[5] = (uint8_t)i;
    len = build_arp_frame(frame, ETH_BCAST, 1, mac, nb_addr(i, ip), ZERO_MAC, US);
    fixture_input(f, eth, frame, len);
}

static void test_full_cache_replaces_least_recently_used(void)
{
    struct fixture f;
    uint8_t eth;
    char ip[16];
    unsigned i;
    static const uint8_t data[2] = {1, 2};
    eth_fixture_init(&f, &eth, US, NULL);
    for (i = 0; i < MIP_NEIGH_MAX; i++) {
        f.now += 10;
        learn_neighbor(&f, eth, i);
    }
    CHECK_EQ(test_neigh_count(&f), MIP_NEIGH_MAX);
    /* using neighbor 0 makes neighbor 1 the least recently used */
    f.now += 10;
    CHECK_EQ(send_udp(&f, nb_addr(0, ip), data, sizeof(data)), MIP_OK);
    f.now += 10;
    learn_neighbor(&f, eth, MIP_NEIGH_MAX);
    CHECK_EQ(test_neigh_count(&f), MIP_NEIGH_MAX);
    CHECK(test_neigh(&f, eth, nb_addr(1, ip)) == NULL);
    CHECK(test_neigh(&f, eth, nb_addr(0, ip)) != NULL);
    CHECK(test_neigh(&f, eth, nb_addr(2, ip)) != NULL);
    CHECK(test_neigh(&f, eth, nb_addr(MIP_NEIGH_MAX, ip)) != NULL);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_neigh_evicted), 0);
    fixture_free(&f);
}

/* Incomplete entries and scans: test_neigh_limits.c. */

/* --- group addresses ------------------------------------------------------- */

static mip_status send_ip_on(struct fixture *f, uint8_t netif, const char *dst)
{
    struct mip_ip_tx tx;
    static const uint8_t payload[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    memset(&tx, 0, sizeof(tx));
    tx.dst = fixture_addr(dst);
    tx.proto = 253;
    tx.netif = netif;
    return mip_ip_output_copy(f->s, &tx, payload, sizeof(payload));
}

static void test_ipv4_broadcast_and_multicast_use_group_macs(void)
{
    struct fixture f;
    uint8_t eth;
    static const uint8_t mdns_mac[6] = {0x01, 0x00, 0x5E, 0x00, 0x00, 0xFB};
    static const uint8_t high_mac[6] = {0x01, 0x00, 0x5E, 0x01, 0x02, 0x03};
    static const uint8_t data[3] = {7, 7, 7};
    eth_fixture_init(&f, &eth, US, NULL);
    CHECK_EQ(send_udp(&f, "192.0.2.255", data, sizeof(data)), MIP_OK);
    CHECK_EQ(send_ip_on(&f, eth, "255.255.255.255"), MIP_OK);
    CHECK_EQ(send_ip_on(&f, eth, "224.0.0.251"), MIP_OK);
    CHECK_EQ(send_ip_on(&f, eth, "239.129.2.3"), MIP_OK);   /* top bit of 129 dropped */
    CHECK_EQ(f.ntx, 4);
    CHECK_UDP4_FRAME(&f.tx[0], ETH_BCAST, "192.0.2.255", data, sizeof(data));
    CHECK_MEM(f.tx[1].data, ETH_BCAST, 6);
    CHECK_MEM(f.tx[2].data, mdns_mac, 6);
    CHECK_MEM(f.tx[3].data, high_mac, 6);
    CHECK_EQ(mip_rd16(f.tx[1].data + 12), 0x0800);
    CHECK_EQ(mip_rd16(f.tx[2].data + 12), 0x0800);
    CHECK_EQ(mip_rd16(f.tx[3].data + 12), 0x0800);
    CHECK_MEM(f.tx[3].data + 6, OUR_MAC, 6);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_arp_requests_tx), 0);
    CHECK_EQ(test_neigh_count(&f), 0);
    fixture_free(&f);
}

#endif /* MIP_CONF_ETHERNET && MIP_CONF_IPV4 */

int main(void)
{
#if MIP_CONF_ETHERNET && MIP_CONF_IPV4
    RUN(test_arp_request_for_us_gets_exactly_one_reply);
    RUN(test_padded_arp_request_answered);
    RUN(test_arp_probe_for_our_address_answered_without_caching);
    RUN(test_arp_unanswered_and_not_cached);
    RUN(test_frame_to_another_unicast_mac_dropped);
    RUN(test_unknown_ethertype_and_vlan_dropped_unsupported);
    RUN(test_truncated_ethernet_dropped);
    RUN(test_send_to_unresolved_neighbor_queued_until_arp_reply);
    RUN(test_learning_a_new_neighbor_keeps_another_queued_packet);
    RUN(test_second_send_while_incomplete_replaces_queued_packet);
    RUN(test_unanswered_resolution_retries_then_drops);
    RUN(test_reachable_turns_stale_and_next_use_sends_one_unicast_request);
    RUN(test_full_cache_replaces_least_recently_used);
    RUN(test_ipv4_broadcast_and_multicast_use_group_macs);
#endif
    return TESTING_DONE();
}
