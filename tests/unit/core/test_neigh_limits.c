/* The neighbor cache against scans of invented on-link sources. An outside
 * run showed 16 echo requests from made-up addresses evict the real peer
 * and empty the packet pool, because every reply started a resolution that
 * held a buffer and could not be evicted. Now new resolutions are
 * rate-limited, resolutions hold at most MIP_NEIGH_QUEUE_MAX buffers (the
 * oldest packet dropped first), and incomplete entries are reused before
 * resolved ones (neigh.h, config.h). */
#include "eth_builders.h"

#if MIP_CONF_ETHERNET && MIP_CONF_IPV4

#define US4 "192.0.2.2"
#define US6 "fd00::2"
#define PEER4 "192.0.2.1"
#define PEER6 "fd00::1"

static const uint8_t ZERO_MAC[6] = {0, 0, 0, 0, 0, 0};

/* Scan address i: "192.0.2.<100+i>" or "fd00::<100+i>". */
static const char *scan_addr(uint8_t family, unsigned i, char *buf)
{
    if (family == MIP_AF_INET)
        snprintf(buf, 40, "192.0.2.%u", 100u + i);
    else
        snprintf(buf, 40, "fd00::%u", 100u + i);
    return buf;
}

static void both_families_fixture(struct fixture *f, uint8_t *eth)
{
#if MIP_CONF_IPV6
    eth_fixture_init(f, eth, US4, US6);
#else
    eth_fixture_init(f, eth, US4, NULL);
#endif
}

/* An echo request to us from src, in a frame from a MAC nobody owns. */
static void inject_echo(struct fixture *f, uint8_t eth, uint8_t family, const char *src)
{
    static const uint8_t invented_mac[6] = {0x02, 0xAA, 0, 0, 0, 0x01};
    uint8_t ip[128], frame[160], icmp[16];
    size_t len;
    if (family == MIP_AF_INET) {
        len = build_echo(icmp, 8, 0x5343, 1, 8);
        len = build_ipv4(ip, src, US4, 1, 64, 1, 0, 0, icmp, len);
        len = build_eth(frame, OUR_MAC, invented_mac, 0x0800, ip, len);
    } else {
#if MIP_CONF_IPV6
        len = build_echo6(ip, src, US6, 64, 0x5343, 1, 8);
        len = build_eth(frame, OUR_MAC, invented_mac, 0x86DD, ip, len);
#else
        return;
#endif
    }
    fixture_input(f, eth, frame, len);
}

/* The peer resolves us (ARP request / NS with its link address): a
 * resolved (STALE) entry, learnt without a resolution of our own. */
static void peer_resolves_us(struct fixture *f, uint8_t eth, uint8_t family)
{
    uint8_t frame[128];
    size_t len;
    if (family == MIP_AF_INET) {
        len = build_arp_frame(frame, ETH_BCAST, 1, PEER_MAC, PEER4, ZERO_MAC, US4);
    } else {
#if MIP_CONF_IPV6
        uint8_t group_mac[6];
        mac_of_group6(group_mac, "ff02::1:ff00:2");
        len = build_nd_frame(frame, group_mac, PEER_MAC, PEER6, "ff02::1:ff00:2", 255,
                             135, 0, US6, 1, PEER_MAC);
#else
        return;
#endif
    }
    fixture_input(f, eth, frame, len);
}

static mip_status send_to(struct fixture *f, const char *dst)
{
    static const uint8_t data[6] = {'s', 'e', 'n', 's', 'o', 'r'};
    struct mip_addr d = fixture_addr(dst);
    (void)mip_stack_poll(f->s, f->now);
    return mip_udp_sendto(f->s, NULL, 5000, &d, 7, MIP_NETIF_ANY, data, sizeof(data));
}

/* Lets every resolution run out (one probe per poll), then checks the
 * pool and frees the fixture. */
static void finish(struct fixture *f)
{
    unsigned i;
    for (i = 0; i < MIP_NEIGH_MAX_PROBES; i++)
        (void)fixture_advance(f, MIP_NEIGH_RETRANS_MS);
    fixture_free(f);
}

/* --- a scan changes nothing for a resolved peer ---------------------------- */

struct scan_case {
    const char *name;
    uint8_t  family;
    uint32_t spacing_ms;   /* between scan packets: 0 = one burst */
};

static const struct scan_case scan_cases[] = {
    {"v4 burst", MIP_AF_INET, 0},
    {"v4 paced at the resolution rate", MIP_AF_INET, MIP_NEIGH_RESOLVE_INTERVAL_MS},
    {"v4 paced faster", MIP_AF_INET, 7},
#if MIP_CONF_IPV6
    {"v6 burst", MIP_AF_INET6, 0},
    {"v6 paced at the resolution rate", MIP_AF_INET6, MIP_NEIGH_RESOLVE_INTERVAL_MS},
    {"v6 paced faster", MIP_AF_INET6, 7},
#endif
};

static void test_scan_of_invented_sources_changes_nothing_for_resolved_peer(void)
{
    unsigned c, i, n = 2u * MIP_NEIGH_MAX + 4u;
    for (c = 0; c < sizeof(scan_cases) / sizeof(scan_cases[0]); c++) {
        const struct scan_case *k = &scan_cases[c];
        const char *peer = k->family == MIP_AF_INET ? PEER4 : PEER6;
        struct fixture f;
        struct mip_neigh *e;
        uint8_t eth;
        char ip[40];
        unsigned peer_sent = 0, peer_failed = 0, queued;
        both_families_fixture(&f, &eth);
        peer_resolves_us(&f, eth, k->family);
        CHECK(test_neigh(&f, eth, peer) != NULL);
        for (i = 0; i < n; i++) {
            f.now += k->spacing_ms;
            inject_echo(&f, eth, k->family, scan_addr(k->family, i, ip));
            if (i % 4u == 3u) {
                /* the peer's traffic goes on throughout, never queued */
                fixture_clear(&f);
                peer_sent++;
                if (send_to(&f, peer) != MIP_OK || f.ntx == 0 ||
                    memcmp(f.tx[f.ntx - 1].data, PEER_MAC, 6) != 0)
                    peer_failed++;
            }
        }
        if (peer_failed != 0)
            fprintf(stderr, "case '%s': %u of %u sends to the peer failed\n", k->name,
                    peer_failed, peer_sent);
        CHECK_EQ(peer_failed, 0);
        e = test_neigh(&f, eth, peer);
        CHECK(e != NULL && e->state != MIP_NEIGH_INCOMPLETE);
        if (e != NULL)
            CHECK_MEM(e->hw, PEER_MAC, 6);
        /* the scan holds at most its share of the pool ... */
        queued = f.s->pool.in_use;
        CHECK(queued <= MIP_NEIGH_QUEUE_MAX);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_tx_no_pbuf), 0);
        /* ... and every reply to it is either queued or counted once */
        CHECK_EQ(queued + fixture_stat(&f, MIP_STAT_drop_neigh_evicted) +
                     fixture_stat(&f, MIP_STAT_drop_neigh_rate_limited) +
                     fixture_stat(&f, MIP_STAT_drop_neigh_unresolved),
                 n);
        if (k->spacing_ms == 0)   /* one burst: only the bucket's tokens start resolutions */
            CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_neigh_rate_limited),
                     n - MIP_NEIGH_RESOLVE_BURST);
        finish(&f);
    }
}

/* --- what resolutions may hold ------------------------------------------- */

static void test_resolutions_hold_at_most_queue_max_buffers_oldest_dropped_first(void)
{
    struct fixture f;
    uint8_t eth, frame[64], mac[6] = {0x02, 0, 0, 0, 3, 0};
    char ip[40];
    unsigned i;
    size_t len;
    struct mip_neigh *e;
    both_families_fixture(&f, &eth);
    for (i = 0; i <= MIP_NEIGH_QUEUE_MAX; i++) {
        f.now += MIP_NEIGH_RESOLVE_INTERVAL_MS;   /* a token for each */
        CHECK_EQ(send_to(&f, scan_addr(MIP_AF_INET, i, ip)), MIP_ERR_PENDING);
    }
    CHECK_EQ(f.s->pool.in_use, MIP_NEIGH_QUEUE_MAX);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_neigh_evicted), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_arp_requests_tx), MIP_NEIGH_QUEUE_MAX + 1);
    /* the first resolution lost its packet but goes on */
    e = test_neigh(&f, eth, scan_addr(MIP_AF_INET, 0, ip));
    CHECK(e != NULL && e->state == MIP_NEIGH_INCOMPLETE && e->pending == MIP_PBUF_NONE);
    for (i = 1; i <= MIP_NEIGH_QUEUE_MAX; i++) {
        e = test_neigh(&f, eth, scan_addr(MIP_AF_INET, i, ip));
        CHECK(e != NULL && e->pending != MIP_PBUF_NONE);
    }
    /* the answers: nothing waits for neighbor 0, neighbor 1's packet leaves */
    for (i = 0; i < 2; i++) {
        fixture_clear(&f);
        mac[5] = (uint8_t)i;
        len = build_arp_frame(frame, OUR_MAC, 2, mac, scan_addr(MIP_AF_INET, i, ip), OUR_MAC,
                              US4);
        fixture_input(&f, eth, frame, len);
        CHECK_EQ(f.ntx, i);
        if (f.ntx == 1)
            CHECK_MEM(f.tx[0].data, mac, 6);
        e = test_neigh(&f, eth, scan_addr(MIP_AF_INET, i, ip));
        CHECK(e != NULL && e->state == MIP_NEIGH_REACHABLE);
    }
    CHECK_EQ(f.s->pool.in_use, MIP_NEIGH_QUEUE_MAX - 1);
    finish(&f);
}

/* --- which entry a new neighbor takes ------------------------------------- */

/* Makes neighbor i known (STALE) by an ARP request from it for us. */
static void learn_neighbor(struct fixture *f, uint8_t eth, unsigned i)
{
    uint8_t frame[64], mac[6] = {0x02, 0, 0, 0, 1, 0};
    char ip[40];
    size_t len;
    mac[5] = (uint8_t)i;
    len = build_arp_frame(frame, ETH_BCAST, 1, mac, scan_addr(MIP_AF_INET, i, ip), ZERO_MAC,
                          US4);
    fixture_input(f, eth, frame, len);
}

static void test_full_cache_reuses_incomplete_entries_before_resolved_ones(void)
{
    /* MIP_NEIGH_MAX - 2 resolved neighbors (0..), resolutions A then B in
     * progress. New neighbors take A's, B's, then the newer resolution's
     * entries; only then the least recently used resolved one. */
    struct fixture f;
    uint8_t eth;
    char ip[40];
    unsigned i, resolved = MIP_NEIGH_MAX - 2u;
    enum { A = 120, B, C, D, E2, F };
    both_families_fixture(&f, &eth);
    for (i = 0; i < resolved; i++) {
        f.now += 10;
        learn_neighbor(&f, eth, i);
    }
    f.now += MIP_NEIGH_RESOLVE_INTERVAL_MS;
    CHECK_EQ(send_to(&f, scan_addr(MIP_AF_INET, A, ip)), MIP_ERR_PENDING);
    f.now += MIP_NEIGH_RESOLVE_INTERVAL_MS;
    CHECK_EQ(send_to(&f, scan_addr(MIP_AF_INET, B, ip)), MIP_ERR_PENDING);
    CHECK_EQ(test_neigh_count(&f), MIP_NEIGH_MAX);
    /* a third resolution takes the oldest one's entry, and its packet */
    f.now += MIP_NEIGH_RESOLVE_INTERVAL_MS;
    CHECK_EQ(send_to(&f, scan_addr(MIP_AF_INET, C, ip)), MIP_ERR_PENDING);
    CHECK(test_neigh(&f, eth, scan_addr(MIP_AF_INET, A, ip)) == NULL);
    CHECK(test_neigh(&f, eth, scan_addr(MIP_AF_INET, B, ip)) != NULL);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_neigh_evicted), 1);
    CHECK_EQ(f.s->pool.in_use, 2);
    /* neighbors that resolve us take B's, then C's entry */
    f.now += 10;
    learn_neighbor(&f, eth, D);
    CHECK(test_neigh(&f, eth, scan_addr(MIP_AF_INET, B, ip)) == NULL);
    f.now += 10;
    learn_neighbor(&f, eth, E2);
    CHECK(test_neigh(&f, eth, scan_addr(MIP_AF_INET, C, ip)) == NULL);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_neigh_evicted), 3);
    CHECK_EQ(f.s->pool.in_use, 0);
    for (i = 0; i < resolved; i++)
        CHECK(test_neigh(&f, eth, scan_addr(MIP_AF_INET, i, ip)) != NULL);
    /* nothing in progress: the least recently used resolved entry goes */
    f.now += 10;
    learn_neighbor(&f, eth, F);
    CHECK(test_neigh(&f, eth, scan_addr(MIP_AF_INET, 0, ip)) == NULL);
    CHECK(test_neigh(&f, eth, scan_addr(MIP_AF_INET, 1, ip)) != NULL);
    CHECK(test_neigh(&f, eth, scan_addr(MIP_AF_INET, F, ip)) != NULL);
    CHECK_EQ(test_neigh_count(&f), MIP_NEIGH_MAX);
    finish(&f);
}

/* --- the resolution budget ---------------------------------------------- */

static void test_new_resolutions_are_rate_limited_learning_is_not(void)
{
    struct fixture f;
    uint8_t eth;
    char ip[40];
    unsigned i;
    both_families_fixture(&f, &eth);
    for (i = 0; i < MIP_NEIGH_RESOLVE_BURST; i++)
        CHECK_EQ(send_to(&f, scan_addr(MIP_AF_INET, i, ip)), MIP_ERR_PENDING);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_arp_requests_tx), MIP_NEIGH_RESOLVE_BURST);
    /* the bucket is empty: no request, no entry, the packet counted */
    fixture_clear(&f);
    CHECK_EQ(send_to(&f, scan_addr(MIP_AF_INET, 50, ip)), MIP_ERR_NOBUFS);
    CHECK_EQ(f.ntx, 0);
    CHECK(test_neigh(&f, eth, ip) == NULL);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_neigh_rate_limited), 1);
    /* a resolution already running takes more packets without a token */
    CHECK_EQ(send_to(&f, scan_addr(MIP_AF_INET, 0, ip)), MIP_ERR_PENDING);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_neigh_queue_replaced), 1);
    /* a neighbor that resolves us is learnt, and answered */
    learn_neighbor(&f, eth, 60);
    CHECK(test_neigh(&f, eth, scan_addr(MIP_AF_INET, 60, ip)) != NULL);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(send_to(&f, ip), MIP_OK);
    /* one token per interval */
    f.now += MIP_NEIGH_RESOLVE_INTERVAL_MS - 1;
    CHECK_EQ(send_to(&f, scan_addr(MIP_AF_INET, 50, ip)), MIP_ERR_NOBUFS);
    f.now += 1;
    CHECK_EQ(send_to(&f, scan_addr(MIP_AF_INET, 50, ip)), MIP_ERR_PENDING);
    CHECK_EQ(send_to(&f, scan_addr(MIP_AF_INET, 51, ip)), MIP_ERR_NOBUFS);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_neigh_rate_limited), 3);
    finish(&f);
}

/* A neighbour asks for us (ARP request from 192.0.2.<200+i>, its own MAC):
 * learnt as a resolved (STALE) entry. */
static void arp_from(struct fixture *f, uint8_t eth, unsigned i)
{
    uint8_t frame[128], mac[6] = {0x02, 0xBB, 0, 0, 0, 0};
    char ip[40];
    size_t len;
    mac[5] = (uint8_t)i;
    snprintf(ip, sizeof ip, "192.0.2.%u", 200u + i);
    len = build_arp_frame(frame, ETH_BCAST, 1, mac, ip, ZERO_MAC, US4);
    fixture_input(f, eth, frame, len);
}

/* Issue 24: a STALE entry has no timer, so its last use could grow older
 * than 2^31 ms; the LRU order then read it as the newest and a full cache
 * evicted a neighbour just heard from instead. Its stamp is now held
 * within MIP_TIME_HORIZON_MS by poll. */
static void test_lru_survives_half_the_wrap(void)
{
    struct fixture f;
    uint8_t eth;
    unsigned i;
    char ip[40];
    both_families_fixture(&f, &eth);
    arp_from(&f, eth, 0);                       /* the long unused one */
    fixture_idle(&f, 0x80000000u + 60000u);     /* 24.9 days and a minute */
    for (i = 1; i < MIP_NEIGH_MAX; i++) {
        fixture_idle(&f, 1000u);
        arp_from(&f, eth, i);
    }
    fixture_idle(&f, 1000u);
    arp_from(&f, eth, MIP_NEIGH_MAX);           /* full: one must go */
    CHECK(test_neigh(&f, eth, "192.0.2.200") == NULL);
    for (i = 1; i <= MIP_NEIGH_MAX; i++) {
        snprintf(ip, sizeof ip, "192.0.2.%u", 200u + i);
        CHECK(test_neigh(&f, eth, ip) != NULL);
    }
    fixture_free(&f);
}

#endif /* MIP_CONF_ETHERNET && MIP_CONF_IPV4 */

int main(void)
{
#if MIP_CONF_ETHERNET && MIP_CONF_IPV4
    RUN(test_scan_of_invented_sources_changes_nothing_for_resolved_peer);
    RUN(test_resolutions_hold_at_most_queue_max_buffers_oldest_dropped_first);
    RUN(test_full_cache_reuses_incomplete_entries_before_resolved_ones);
    RUN(test_new_resolutions_are_rate_limited_learning_is_not);
    RUN(test_lru_survives_half_the_wrap);
#endif
    return TESTING_DONE();
}
