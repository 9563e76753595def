/* mip_stack_poll(): the tickless timer service. It returns the exact time
 * to the earliest deadline, runs due timers, and survives the 2^32 ms
 * wrap of `now`. */
#include "eth_builders.h"

/* Sends the first fragment (offset 0, M=1) of datagram `id`: starts a
 * reassembly timer. */
static void start_reassembly(struct fixture *f, uint32_t id)
{
    uint8_t pkt[128], data[16];
    size_t len;
    memset(data, 0x21, sizeof(data));
    data[0] = 128;
    len = build_frag6(pkt, "fd00::1", "fd00::2", 58, id, 0, true, data, sizeof(data));
    fixture_input(f, 0, pkt, len);
}

static void test_poll_idle_when_nothing_pending(void)
{
    struct fixture f;
    uint8_t pkt[128];
    size_t len;
    fixture_init(&f, false);
    CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_POLL_IDLE);
    /* a finished exchange leaves no timer behind */
    len = build_echo6(pkt, "fd00::1", "fd00::2", 64, 1, 1, 8);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_POLL_IDLE);
    CHECK_EQ(fixture_advance(&f, 123456), MIP_POLL_IDLE);
    fixture_free(&f);
}

static void test_poll_reports_exact_reassembly_deadline(void)
{
    struct fixture f;
    fixture_init(&f, false);
    start_reassembly(&f, 1);
    CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_REASS_TIMEOUT_MS);
    CHECK_EQ(fixture_advance(&f, 1), MIP_REASS_TIMEOUT_MS - 1);
    CHECK_EQ(fixture_advance(&f, 12345), MIP_REASS_TIMEOUT_MS - 12346);
    CHECK_EQ(fixture_advance(&f, MIP_REASS_TIMEOUT_MS - 12347), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 0);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_advance(&f, 1), MIP_TIME_HORIZON_MS);   /* the ICMP bucket's (issue 24) */
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 1);
    /* RFC 8200 4.5: the first fragment came, so Time Exceeded code 1 */
    CHECK_EQ(f.ntx, 1);
    CHECK_IP6(f.tx[0].data, "fd00::2", "fd00::1", 58, 64, mip_rd16(f.tx[0].data + 4));
    CHECK_EQ(f.tx[0].data[40], 3);
    CHECK_EQ(f.tx[0].data[41], 1);
    CHECK(ip6_l4_cksum_ok(f.tx[0].data, f.tx[0].len, 58));
    fixture_free(&f);
}

static void test_poll_early_calls_are_harmless(void)
{
    struct fixture f;
    unsigned i;
    fixture_init(&f, false);
    start_reassembly(&f, 2);
    for (i = 0; i < 5; i++)
        CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_REASS_TIMEOUT_MS);
    CHECK_EQ(fixture_advance(&f, 100), MIP_REASS_TIMEOUT_MS - 100);
    CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_REASS_TIMEOUT_MS - 100);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 0);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

static void test_poll_reports_earliest_of_several_reassemblies(void)
{
#if MIP_REASS_SLOTS >= 2
    struct fixture f;
    fixture_init(&f, false);
    start_reassembly(&f, 10);
    f.now += 5000;
    start_reassembly(&f, 11);
    CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_REASS_TIMEOUT_MS - 5000);
    CHECK_EQ(fixture_advance(&f, MIP_REASS_TIMEOUT_MS - 5000), 5000);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 1);
    CHECK_EQ(fixture_advance(&f, 4999), 1);
    CHECK_EQ(fixture_advance(&f, 1), MIP_TIME_HORIZON_MS);   /* the ICMP bucket's (issue 24) */
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 2);
    fixture_free(&f);
#else
    SKIP("needs two IPv4 reassembly slots");
#endif
}

static void test_poll_reports_neighbor_retransmission_before_reassembly(void)
{
#if MIP_CONF_ETHERNET && MIP_CONF_IPV4
    struct fixture f;
    uint8_t eth;
    struct mip_addr dst = fixture_addr("192.0.2.1");
    static const uint8_t data[2] = {1, 2};
    unsigned i;
    eth_fixture_init(&f, &eth, "192.0.2.2", NULL);
    start_reassembly(&f, 3);
    /* sends take the stack's time from the last input/poll call */
    CHECK_EQ(fixture_advance(&f, 100), MIP_REASS_TIMEOUT_MS - 100);
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 5000, &dst, 7, MIP_NETIF_ANY,
                            data, sizeof(data)), MIP_ERR_PENDING);
    CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_NEIGH_RETRANS_MS);
    CHECK_EQ(fixture_advance(&f, 250), MIP_NEIGH_RETRANS_MS - 250);
    CHECK_EQ(fixture_advance(&f, MIP_NEIGH_RETRANS_MS - 250), MIP_NEIGH_RETRANS_MS);
    for (i = 2; i < MIP_NEIGH_MAX_PROBES; i++)
        CHECK_EQ(fixture_advance(&f, MIP_NEIGH_RETRANS_MS), MIP_NEIGH_RETRANS_MS);
    /* the resolution gives up: the reassembly deadline is next */
    CHECK_EQ(fixture_advance(&f, MIP_NEIGH_RETRANS_MS),
             MIP_REASS_TIMEOUT_MS - 100 - MIP_NEIGH_MAX_PROBES * MIP_NEIGH_RETRANS_MS);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_neigh_unresolved), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_arp_requests_tx), MIP_NEIGH_MAX_PROBES);
    fixture_free(&f);
#else
    SKIP("no Ethernet or IPv4 in this profile");
#endif
}

static void test_poll_reassembly_timer_survives_clock_wrap(void)
{
    struct fixture f;
    fixture_init(&f, false);
    f.now = UINT32_MAX - 999u;                  /* 1000 ms before the wrap */
    start_reassembly(&f, 4);
    CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_REASS_TIMEOUT_MS);
    CHECK_EQ(fixture_advance(&f, 999), MIP_REASS_TIMEOUT_MS - 999);   /* now = UINT32_MAX */
    CHECK_EQ(fixture_advance(&f, 1), MIP_REASS_TIMEOUT_MS - 1000);    /* now = 0 */
    CHECK_EQ(f.now, 0);
    CHECK_EQ(fixture_advance(&f, MIP_REASS_TIMEOUT_MS - 1001), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 0);
    CHECK_EQ(fixture_advance(&f, 1), MIP_TIME_HORIZON_MS);   /* the ICMP bucket's (issue 24) */
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 1);
    fixture_free(&f);
}

static void test_poll_deadline_landing_on_zero_after_wrap(void)
{
    struct fixture f;
    fixture_init(&f, false);
    f.now = (mip_time_t)(0u - MIP_REASS_TIMEOUT_MS);   /* deadline == 0 */
    start_reassembly(&f, 5);
    CHECK_EQ(fixture_advance(&f, MIP_REASS_TIMEOUT_MS - 1), 1);
    CHECK_EQ(f.now, UINT32_MAX);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 0);
    CHECK_EQ(fixture_advance(&f, 1), MIP_TIME_HORIZON_MS);   /* the ICMP bucket's (issue 24) */
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 1);
    fixture_free(&f);
}

static void test_poll_neighbor_retries_survive_clock_wrap(void)
{
#if MIP_CONF_ETHERNET && MIP_CONF_IPV4
    struct fixture f;
    uint8_t eth;
    struct mip_addr dst = fixture_addr("192.0.2.1");
    static const uint8_t data[2] = {1, 2};
    eth_fixture_init(&f, &eth, "192.0.2.2", NULL);
    f.now = UINT32_MAX - 499u;
    /* hand the stack the new time (a 2^32 - 1000 ms jump looks like going
     * back 1000 ms, which is harmless here), then send */
    CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_POLL_IDLE);
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 5000, &dst, 7, MIP_NETIF_ANY,
                            data, sizeof(data)), MIP_ERR_PENDING);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(fixture_advance(&f, 600), MIP_NEIGH_RETRANS_MS - 600);   /* across the wrap */
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(fixture_advance(&f, MIP_NEIGH_RETRANS_MS - 600), MIP_NEIGH_RETRANS_MS);
    CHECK_EQ(f.ntx, 2);
    CHECK_EQ(fixture_advance(&f, MIP_NEIGH_RETRANS_MS), MIP_NEIGH_RETRANS_MS);
    CHECK_EQ(f.ntx, MIP_NEIGH_MAX_PROBES);
    CHECK_EQ(fixture_advance(&f, MIP_NEIGH_RETRANS_MS), MIP_POLL_IDLE);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_neigh_unresolved), 1);
    fixture_free(&f);
#else
    SKIP("no Ethernet or IPv4 in this profile");
#endif
}

int main(void)
{
    RUN(test_poll_idle_when_nothing_pending);
    RUN(test_poll_reports_exact_reassembly_deadline);
    RUN(test_poll_early_calls_are_harmless);
    RUN(test_poll_reports_earliest_of_several_reassemblies);
    RUN(test_poll_reports_neighbor_retransmission_before_reassembly);
    RUN(test_poll_reassembly_timer_survives_clock_wrap);
    RUN(test_poll_deadline_landing_on_zero_after_wrap);
    RUN(test_poll_neighbor_retries_survive_clock_wrap);
    return TESTING_DONE();
}
