/* Forwarding between two raw-IP netifs: TTL/hop-limit decrement with the
 * RFC 1624 checksum update, ICMP errors (time exceeded, unreachable, frag
 * needed / packet too big), IPv4 re-fragmentation, link-local and
 * broadcast scoping, forwarding off, the forward hook's verdicts, and the
 * local hook (own datagrams out, delivered ones in). */
#include "iptest.h"
#include "moteip/wire/icmpv4.h"

#if MIP_CONF_FORWARD

/* netif 0: 192.0.2.2/24, fd00::2/64 (the fixture); netif 1: 198.51.100.1/24,
 * fd01::1/64 with the given MTU. */
static void init_fwd(struct fixture *f, bool forwarding, uint16_t mtu1)
{
    static const uint8_t iid1[8] = {0x02, 0, 0, 0xFF, 0xFE, 0, 1, 1};
    struct mip_addr a;
    uint8_t idx = 0xEE;
    fixture_init(f, forwarding);
    f->port[1].f = f;
    f->port[1].netif = 1;
    f->port[1].reply = MIP_OK;
    CHECK_EQ(mip_netif_add_rawip(f->s, mtu1, iid1, &fixture_driver, &f->port[1], &idx), MIP_OK);
    CHECK_EQ(idx, 1);
#if MIP_CONF_IPV4
    a = fixture_addr("198.51.100.1");
    CHECK_EQ(mip_netif_add_addr(f->s, 1, &a, 24), MIP_OK);
#endif
    a = fixture_addr("fd01::1");
    CHECK_EQ(mip_netif_add_addr(f->s, 1, &a, 64), MIP_OK);
}

static uint32_t drops_total(const struct fixture *f)
{
    uint32_t n = 0;
    int i;
    for (i = MIP_STAT_drop_link_truncated; i <= MIP_STAT_drop_tx_driver; i++)
        n += fixture_stat(f, (enum mip_stat)i);
    return n;
}

#if MIP_CONF_IPV4
/* A UDP datagram 192.0.2.1 -> dst with n payload bytes. */
static size_t udp4(uint8_t *pkt, const char *dst, uint8_t ttl, uint8_t flags, uint16_t id,
                   size_t n)
{
    static uint8_t data[2000], udp[2100];
    size_t l;
    fill_pattern(data, n, 11);
    l = build_udp(udp, false, "192.0.2.1", dst, 3333, 4444, data, n);
    return build_ipv4(pkt, "192.0.2.1", dst, 17, ttl, id, flags, 0, udp, l);
}

static void test_ipv4_forwarded_with_ttl_decrement_and_valid_checksum(void)
{
    struct fixture f;
    uint8_t pkt[256], want[256];
    size_t len;
    init_fwd(&f, true, 1500);
    len = udp4(pkt, "198.51.100.9", 64, 0, 0x1234, 100);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].netif, 1);
    CHECK_EQ(f.tx[0].len, len);
    CHECK(ip4_hdr_ok(f.tx[0].data));
    /* the same bytes but the TTL and a header checksum equal to a full
     * recomputation */
    memcpy(want, pkt, len);
    want[8] = 63;
    want[10] = 0;
    want[11] = 0;
    mip_wr16(want + 10, mip_cksum_finish(mip_cksum_add(0, want, 20)));
    CHECK_MEM(f.tx[0].data, want, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_forwarded), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_delivered), 0);
    CHECK_EQ(drops_total(&f), 0);
    fixture_free(&f);
}

static void test_ipv4_checksum_update_matches_recompute_for_every_id(void)
{
    /* RFC 1624 eqn. 3 against a full recomputation over all 65536 IDs,
     * with TTLs cycling through 2..255: covers original checksums of
     * 0x0000 and every carry case of the incremental update. */
    struct fixture f;
    uint8_t pkt[64];
    size_t len;
    uint32_t id;
    unsigned bad = 0;
    init_fwd(&f, true, 1500);
    for (id = 0; id <= 0xFFFF; id++) {
        uint16_t want;
        const uint8_t *r;
        uint8_t copy[20];
        len = udp4(pkt, "198.51.100.9", (uint8_t)(2 + id % 254), 0, (uint16_t)id, 4);
        fixture_clear(&f);
        fixture_input(&f, 0, pkt, len);
        r = f.tx[0].data;
        memcpy(copy, r, 20);
        copy[10] = 0;
        copy[11] = 0;
        want = mip_cksum_finish(mip_cksum_add(0, copy, 20));
        if (f.ntx != 1 || r[8] != pkt[8] - 1 || mip_rd16(r + 10) != want || !ip4_hdr_ok(r)) {
            if (bad++ < 5)
                fprintf(stderr, "  id %u ttl %u: checksum %04x, want %04x (was %04x)\n",
                        (unsigned)id, pkt[8], mip_rd16(r + 10), want, mip_rd16(pkt + 10));
        }
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_forwarded), 65536);
    fixture_free(&f);
}

static void test_ipv4_ttl_expired_gets_time_exceeded(void)
{
    struct fixture f;
    uint8_t pkt[256];
    const uint8_t *r;
    size_t len;
    uint8_t ttl;
    init_fwd(&f, true, 1500);
    for (ttl = 0; ttl <= 1; ttl++) {
        fixture_clear(&f);
        len = udp4(pkt, "198.51.100.9", ttl, 0, 1, 20);
        fixture_input(&f, 0, pkt, len);
        CHECK_EQ(f.ntx, 1);
        r = f.tx[0].data;
        CHECK_EQ(f.tx[0].netif, 0);
        CHECK(ip4_hdr_ok(r));
        CHECK_MEM(r + 12, fixture_addr("192.0.2.2").bytes, 4);
        CHECK_MEM(r + 16, pkt + 12, 4);
        CHECK_EQ(r[20], 11);
        CHECK_EQ(r[21], 0);
        CHECK(icmp4_ok(r));
        CHECK_EQ(f.tx[0].len, 28 + len);
        CHECK_MEM(r + 28, pkt, len);                /* as received, TTL untouched */
    }
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv4_ttl_expired), 2);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_forwarded), 0);
    fixture_free(&f);
}

static void test_ipv4_no_route_gets_net_unreachable(void)
{
    struct fixture f;
    uint8_t pkt[256];
    const uint8_t *r;
    size_t len;
    init_fwd(&f, true, 1500);
    len = udp4(pkt, "203.0.113.5", 64, 0, 1, 20);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ip_no_route), 1);
    CHECK_EQ(drops_total(&f), 1);
    CHECK_EQ(f.ntx, 1);
    r = f.tx[0].data;
    CHECK_EQ(f.tx[0].netif, 0);
    CHECK_MEM(r + 16, pkt + 12, 4);
    CHECK_EQ(r[20], 3);
    CHECK_EQ(r[21], 0);
    CHECK(icmp4_ok(r));
    CHECK_MEM(r + 28, pkt, len);
    fixture_free(&f);
}

static void test_ipv4_default_route_via_gateway(void)
{
    struct fixture f;
    struct mip_addr p = fixture_addr("0.0.0.0"), gw = fixture_addr("198.51.100.254");
    uint8_t pkt[256];
    size_t len;
    init_fwd(&f, true, 1500);
    CHECK_EQ(mip_route_add(f.s, &p, 0, &gw, 1), MIP_OK);
    len = udp4(pkt, "203.0.113.5", 64, 0, 1, 20);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].netif, 1);
    CHECK_EQ(f.tx[0].data[8], 63);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_forwarded), 1);
    fixture_free(&f);
}

static void test_ipv4_refragmented_for_smaller_mtu(void)
{
    static uint8_t pkt[1600], out[2000];
    struct fixture f;
    unsigned count = 0;
    long n;
    size_t len;
    init_fwd(&f, true, 600);
    len = udp4(pkt, "198.51.100.9", 64, 0, 0x4321, 1000);  /* 1028 bytes, no DF */
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_forwarded), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_tx), 2);
    CHECK_EQ(f.ntx, 2);
    /* (600 - 20) rounded down to 8 = 576 bytes of data per piece */
    CHECK_EQ(f.tx[0].netif, 1);
    CHECK_EQ(f.tx[1].netif, 1);
    CHECK_EQ(ip4_total(f.tx[0].data), 596);
    CHECK_EQ(ip4_off(f.tx[0].data), 0);
    CHECK(ip4_mf(f.tx[0].data));
    CHECK_EQ(ip4_total(f.tx[1].data), 20 + 1008 - 576);
    CHECK_EQ(ip4_off(f.tx[1].data), 576);
    CHECK(!ip4_mf(f.tx[1].data));
    CHECK_EQ(ip4_id(f.tx[0].data), 0x4321);     /* the original identification */
    CHECK_EQ(ip4_id(f.tx[1].data), 0x4321);
    CHECK_EQ(f.tx[0].data[8], 63);
    CHECK_EQ(f.tx[1].data[8], 63);
    CHECK(ip4_hdr_ok(f.tx[0].data));
    CHECK(ip4_hdr_ok(f.tx[1].data));
    CHECK_MEM(f.tx[0].data + 12, pkt + 12, 8);
    n = reasm4(&f, 0, 0x4321, out, sizeof(out), &count);
    CHECK_EQ(n, 1008);
    CHECK_EQ(count, 2);
    CHECK_MEM(out, pkt + 20, 1008);
    fixture_free(&f);
}

static void test_ipv4_fragment_refragmented_keeps_offset_and_mf(void)
{
    static uint8_t data[1000], pkt[1200];
    struct fixture f;
    size_t len;
    bool last;
    init_fwd(&f, true, 600);
    fill_pattern(data, sizeof(data), 12);
    for (last = false; ; last = true) {
        fixture_clear(&f);
        /* a middle (then last) fragment of someone else's datagram */
        len = build_ipv4(pkt, "192.0.2.1", "198.51.100.9", 17, 64, 0x99,
                         last ? 0 : MIP_IPV4_FLAG_MF, 1480, data, sizeof(data));
        fixture_input(&f, 0, pkt, len);
        CHECK_EQ(f.ntx, 2);
        CHECK_EQ(ip4_off(f.tx[0].data), 1480);
        CHECK(ip4_mf(f.tx[0].data));
        CHECK_EQ(ip4_total(f.tx[0].data), 596);
        CHECK_EQ(ip4_off(f.tx[1].data), 1480 + 576);
        CHECK_EQ(ip4_mf(f.tx[1].data), !last);
        CHECK_EQ(ip4_total(f.tx[1].data), 20 + 1000 - 576);
        CHECK_MEM(f.tx[0].data + 20, data, 576);
        CHECK_MEM(f.tx[1].data + 20, data + 576, 1000 - 576);
        CHECK(ip4_hdr_ok(f.tx[0].data));
        CHECK(ip4_hdr_ok(f.tx[1].data));
        if (last)
            break;
    }
    fixture_free(&f);
}

static void test_ipv4_df_too_big_gets_frag_needed_with_mtu(void)
{
    static uint8_t pkt[1600];
    struct fixture f;
    const uint8_t *r;
    size_t len;
    init_fwd(&f, true, 600);
    len = udp4(pkt, "198.51.100.9", 64, MIP_IPV4_FLAG_DF, 1, 1000);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ip_too_big), 1);
    CHECK_EQ(drops_total(&f), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_forwarded), 0);
    CHECK_EQ(f.ntx, 1);
    r = f.tx[0].data;
    CHECK_EQ(f.tx[0].netif, 0);
    CHECK_EQ(r[20], 3);
    CHECK_EQ(r[21], 4);
    CHECK_EQ(mip_rd16(r + 24), 0);              /* unused */
    CHECK_EQ(mip_rd16(r + 26), 600);            /* next-hop MTU (RFC 1191) */
    CHECK(icmp4_ok(r));
    CHECK_MEM(r + 28, pkt, 576 - 28);           /* as much as fits in 576 */
    CHECK_EQ(f.tx[0].len, 576);
    /* exactly the MTU passes, DF or not */
    fixture_clear(&f);
    len = udp4(pkt, "198.51.100.9", 64, MIP_IPV4_FLAG_DF, 2, 600 - 28);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].netif, 1);
    CHECK_EQ(f.tx[0].len, 600);
    CHECK(ip4_df(f.tx[0].data));
    fixture_free(&f);
}

static void test_ipv4_not_forwarded_when_forwarding_off(void)
{
    struct fixture f;
    uint8_t pkt[256];
    size_t len;
    init_fwd(&f, false, 1500);
    len = udp4(pkt, "198.51.100.9", 64, 0, 1, 20);
    fixture_input(&f, 0, pkt, len);
    len = udp4(pkt, "203.0.113.5", 1, 0, 1, 20);  /* not even an error */
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv4_not_for_us), 2);
    CHECK_EQ(drops_total(&f), 2);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

static void test_ipv4_source_routed_or_bad_options_not_forwarded(void)
{
    /* RFC 7126 4.3, 4.4: a router drops source-routed datagrams; one with a
     * malformed option is dropped with a Parameter Problem (issue 12). A
     * well-formed Record Route still passes. */
    static const struct {
        uint8_t opt[8];
        enum mip_stat why;
        bool forwarded;
    } rows[] = {
        {{7, 7, 4, 0, 0, 0, 0, 1}, MIP_STAT_ip_forwarded, true},
        {{0x83, 7, 4, 198, 51, 100, 7, 0}, MIP_STAT_drop_ipv4_source_route, false},
        {{0x89, 7, 4, 198, 51, 100, 7, 0}, MIP_STAT_drop_ipv4_source_route, false},
        {{7, 0, 0, 0, 0, 0, 0, 0}, MIP_STAT_drop_ipv4_bad_option, false},
    };
    struct fixture f;
    uint8_t plain[256], pkt[264];
    size_t len;
    unsigned i;
    init_fwd(&f, true, 1500);
    len = udp4(plain, "198.51.100.9", 64, 0, 1, 20);
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        memcpy(pkt, plain, 20);
        memcpy(pkt + 20, rows[i].opt, 8);
        memcpy(pkt + 28, plain + 20, len - 20);
        pkt[0] = 0x47;
        mip_wr16(pkt + 2, (uint16_t)(len + 8));
        pkt[10] = 0;
        pkt[11] = 0;
        mip_wr16(pkt + 10, mip_cksum_finish(mip_cksum_add(0, pkt, 28)));
        fixture_clear(&f);
        fixture_input(&f, 0, pkt, len + 8);
        CHECK_EQ(fixture_stat(&f, rows[i].why), i == 2 ? 2u : 1u);
        CHECK_EQ(f.ntx, rows[i].why == MIP_STAT_drop_ipv4_source_route ? 0u : 1u);
        if (f.ntx == 1 && rows[i].forwarded)
            CHECK_EQ(f.tx[0].netif, 1);
        if (f.ntx == 1 && !rows[i].forwarded)
            CHECK_EQ(f.tx[0].data[20], MIP_ICMPV4_PARAM_PROBLEM);
    }
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_forwarded), 1);
    fixture_free(&f);
}

static void test_ipv4_multicast_and_broadcast_not_forwarded(void)
{
    static const char *const dsts[] = {"224.0.0.9", "239.1.2.3", "198.51.100.255"};
    struct fixture f;
    uint8_t pkt[256];
    size_t len;
    unsigned i;
    init_fwd(&f, true, 1500);
    for (i = 0; i < 3; i++) {
        len = udp4(pkt, dsts[i], 64, 0, 1, 20);
        fixture_input(&f, 0, pkt, len);
    }
    /* group traffic is not routed; a directed broadcast to another
     * netif's subnet is not forwarded (RFC 2644) */
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv4_not_for_us), 3);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_forwarded), 0);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

static void test_ipv4_to_other_netif_address_delivered_locally(void)
{
    struct fixture f;
    uint8_t icmp[64], pkt[128];
    size_t n, len;
    init_fwd(&f, true, 1500);
    n = build_echo(icmp, 8, 7, 7, 16);
    len = build_ipv4(pkt, "192.0.2.1", "198.51.100.1", 1, 64, 1, 0, 0, icmp, n);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_forwarded), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 1);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].netif, 0);
    CHECK_MEM(f.tx[0].data + 12, pkt + 16, 4);  /* from 198.51.100.1 */
    fixture_free(&f);
}
#endif /* MIP_CONF_IPV4 */

/* --- IPv6 ------------------------------------------------------------ */

static size_t udp6(uint8_t *pkt, const char *src, const char *dst, uint8_t hops, size_t n)
{
    static uint8_t data[2000], udp[2100];
    size_t l;
    fill_pattern(data, n, 13);
    l = build_udp(udp, true, src, dst, 3333, 4444, data, n);
    return build_ipv6(pkt, src, dst, 17, hops, udp, l);
}

static void test_ipv6_forwarded_with_hop_limit_decrement(void)
{
    struct fixture f;
    uint8_t pkt[256], want[256];
    size_t len;
    init_fwd(&f, true, 1500);
    len = udp6(pkt, "fd00::1", "fd01::9", 64, 100);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].netif, 1);
    CHECK_EQ(f.tx[0].len, len);
    memcpy(want, pkt, len);
    want[7] = 63;
    CHECK_MEM(f.tx[0].data, want, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_forwarded), 1);
    CHECK_EQ(drops_total(&f), 0);
    fixture_free(&f);
}

static void test_ipv6_hop_limit_expired_gets_time_exceeded(void)
{
    struct fixture f;
    uint8_t pkt[256];
    const uint8_t *r;
    size_t len;
    uint8_t hops;
    init_fwd(&f, true, 1500);
    for (hops = 0; hops <= 1; hops++) {
        fixture_clear(&f);
        len = udp6(pkt, "fd00::1", "fd01::9", hops, 20);
        fixture_input(&f, 0, pkt, len);
        CHECK_EQ(f.ntx, 1);
        r = f.tx[0].data;
        CHECK_EQ(f.tx[0].netif, 0);
        CHECK_EQ(r[6], 58);
        CHECK_MEM(r + 24, pkt + 8, 16);
        CHECK_EQ(r[40], 3);
        CHECK_EQ(r[41], 0);
        CHECK(ip6_l4_ok(r));
        CHECK_MEM(r + 48, pkt, len);
    }
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_hop_limit_expired), 2);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_forwarded), 0);
    fixture_free(&f);
}

static void test_ipv6_no_route_gets_destination_unreachable(void)
{
    struct fixture f;
    uint8_t pkt[256];
    const uint8_t *r;
    size_t len;
    init_fwd(&f, true, 1500);
    len = udp6(pkt, "fd00::1", "fd02::9", 64, 20);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ip_no_route), 1);
    CHECK_EQ(f.ntx, 1);
    r = f.tx[0].data;
    CHECK_EQ(r[40], 1);
    CHECK_EQ(r[41], 0);
    CHECK(ip6_l4_ok(r));
    fixture_free(&f);
}

static void test_ipv6_too_big_gets_packet_too_big_with_mtu(void)
{
    static uint8_t pkt[1600];
    struct fixture f;
    const uint8_t *r;
    size_t len;
    init_fwd(&f, true, 600);
    len = udp6(pkt, "fd00::1", "fd01::9", 64, 1000);     /* 1048 bytes */
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ip_too_big), 1);
    CHECK_EQ(drops_total(&f), 1);
    CHECK_EQ(f.ntx, 1);
    r = f.tx[0].data;
    CHECK_EQ(f.tx[0].netif, 0);
    CHECK_MEM(r + 24, pkt + 8, 16);
    CHECK_EQ(r[40], 2);
    CHECK_EQ(r[41], 0);
    CHECK_EQ(mip_rd32(r + 44), 600);
    CHECK(ip6_l4_ok(r));
    CHECK_EQ(f.tx[0].len, 48 + len);            /* the whole packet fits in 1280 */
    CHECK_MEM(r + 48, pkt, len);
    /* exactly the MTU passes */
    fixture_clear(&f);
    len = udp6(pkt, "fd00::1", "fd01::9", 64, 600 - 48);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].netif, 1);
    CHECK_EQ(f.tx[0].len, 600);
    fixture_free(&f);
}

/* IPv6 datagrams a router never forwards: link-local sources and
 * destinations (even with the hop limit run out, no error), multicast,
 * and anything while forwarding is off. Each row's datagrams into one
 * fixture: all dropped as not for us, nothing sent. */
static void test_ipv6_not_forwarded(void)
{
    static const struct {
        bool forwarding;
        unsigned n;
        struct { const char *src, *dst; uint8_t hop; } pkt[3];
    } rows[] = {
        {true, 3, {{"fe80::1", "fd01::9", 64},      /* link-local source */
                   {"fd00::1", "fe80::9", 64},      /* link-local destination */
                   {"fe80::1", "fd01::9", 1}}},     /* not even an error */
        {true, 1, {{"fd00::1", "ff05::1:3", 64}}},
        {false, 1, {{"fd00::1", "fd01::9", 64}}},
    };
    unsigned i, k;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct fixture f;
        uint8_t pkt[256];
        init_fwd(&f, rows[i].forwarding, 1500);
        for (k = 0; k < rows[i].n; k++)
            fixture_input(&f, 0, pkt, udp6(pkt, rows[i].pkt[k].src, rows[i].pkt[k].dst,
                                           rows[i].pkt[k].hop, 20));
        CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_not_for_us), rows[i].n);
        CHECK_EQ(drops_total(&f), rows[i].n);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_forwarded), 0);
        CHECK_EQ(f.ntx, 0);
        fixture_free(&f);
    }
}

/* --- the forward hook ------------------------------------------------ */

/* The hook tests' datagrams, IPv4 or IPv6 (IPv6 only without IPv4): 50
 * bytes of UDP from behind netif 0 to a host behind netif 1 (forwarded,
 * IPv4 ID 1) or to this node's netif 0 address (TTL 64). */
static size_t udp_through(uint8_t *pkt, bool v6, uint8_t ttl)
{
#if MIP_CONF_IPV4
    if (!v6)
        return udp4(pkt, "198.51.100.9", ttl, 0, 1, 50);
#else
    (void)v6;
#endif
    return udp6(pkt, "fd00::1", "fd01::9", ttl, 50);
}

static size_t udp_to_node(uint8_t *pkt, bool v6, uint16_t id)
{
#if MIP_CONF_IPV4
    if (!v6)
        return udp4(pkt, "192.0.2.2", 64, 0, id, 50);
#else
    (void)v6;
    (void)id;
#endif
    return udp6(pkt, "fd00::1", "fd00::2", 64, 50);
}

struct hook_log {
    unsigned calls;
    enum mip_fwd_verdict verdict;
    uint8_t in, out;
    size_t len;
    uint8_t ttl;
    bool hdr_ok;
    bool edit;                  /* overwrite the last byte before passing */
    struct mip_stack *s;
};

static enum mip_fwd_verdict hook(void *ctx, struct mip_stack *s, uint8_t in_netif,
                                 uint8_t out_netif, uint8_t *pkt, size_t len)
{
    struct hook_log *h = ctx;
    h->calls++;
    h->s = s;
    h->in = in_netif;
    h->out = out_netif;
    h->len = len;
    h->ttl = (pkt[0] >> 4) == 4 ? pkt[8] : pkt[7];
    h->hdr_ok = (pkt[0] >> 4) != 4 || ip4_hdr_ok(pkt);
    if (h->edit)
        pkt[len - 1] = 0xEE;
    return h->verdict;
}

static void check_hook_verdicts(bool v6)
{
    struct fixture f;
    struct hook_log h;
    uint8_t pkt[256];
    size_t len;
    uint32_t drops;
    init_fwd(&f, true, 1500);
    memset(&h, 0, sizeof(h));
    mip_ip_set_forward_hook(f.s, hook, &h);
    len = udp_through(pkt, v6, 64);

    h.verdict = MIP_FWD_PASS;                   /* sees it after the decrement */
    h.edit = true;
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(h.calls, 1);
    CHECK(h.s == f.s);
    CHECK_EQ(h.in, 0);
    CHECK_EQ(h.out, 1);
    CHECK_EQ(h.len, len);
    CHECK_EQ(h.ttl, 63);
    CHECK(h.hdr_ok);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].netif, 1);
    CHECK_EQ(f.tx[0].data[len - 1], 0xEE);      /* the hook's edit went out */
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_forwarded), 1);

    h.edit = false;
    h.verdict = MIP_FWD_TAKEN;
    fixture_clear(&f);
    drops = drops_total(&f);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(h.calls, 2);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_forwarded), 1);
    CHECK_EQ(drops_total(&f), drops);           /* taken is not a drop */

    h.verdict = MIP_FWD_DROP;
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(h.calls, 3);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_forwarded), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_fwd_hook), 1);
    CHECK_EQ(drops_total(&f), drops + 1);       /* a drop, counted once */
    CHECK_EQ(f.s->pool.in_use, 0);

    /* not called for what is not forwarded: TTL 1, local delivery */
    h.verdict = MIP_FWD_PASS;
    len = udp_through(pkt, v6, 1);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(h.calls, 3);
    len = udp_to_node(pkt, v6, 1);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(h.calls, 3);

    /* removed */
    mip_ip_set_forward_hook(f.s, NULL, NULL);
    len = udp_through(pkt, v6, 64);
    fixture_clear(&f);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(h.calls, 3);
    CHECK_EQ(f.ntx, 1);
    fixture_free(&f);
}

static void test_forward_hook_verdicts_honoured(void)
{
#if MIP_CONF_IPV4
    check_hook_verdicts(false);
#endif
    check_hook_verdicts(true);
}

/* --- local hook ----------------------------------------------------- */

struct local_log {
    int calls, outs, ins;
    bool out;
    uint8_t netif;
    size_t len;
    uint8_t pkt[2048];
    size_t in_len;                 /* the last inbound one */
    uint8_t in_netif;
    uint8_t in_pkt[2048];
    enum mip_fwd_verdict verdict;
};

static enum mip_fwd_verdict local_hook(void *ctx, struct mip_stack *s, bool out, uint8_t netif,
                                       const uint8_t *pkt, size_t len)
{
    struct local_log *h = ctx;
    (void)s;
    h->calls++;
    if (out)
        h->outs++;
    else
        h->ins++;
    h->out = out;
    h->netif = netif;
    h->len = len;
    if (len <= sizeof(h->pkt))
        memcpy(out ? h->pkt : h->in_pkt, pkt, len);
    if (!out) {
        h->in_len = len;
        h->in_netif = netif;
    }
    return h->verdict;
}

static void check_local_hook(bool v6)
{
    struct fixture f;
    struct local_log h;
    struct mip_ip_tx tx;
    uint8_t l4[1000], pkt[256], kept[2048];
    size_t len, kept_len;
    init_fwd(&f, true, 600);
    memset(&h, 0, sizeof(h));
    memset(&tx, 0, sizeof(tx));
    fill_pattern(l4, sizeof(l4), 3);
    tx.dst = fixture_addr(v6 ? "fd01::9" : "198.51.100.9");
    tx.proto = 253;
    tx.netif = MIP_NETIF_ANY;
    mip_ip_set_local_hook(f.s, local_hook, &h);

    /* PASS: seen whole, after routing, then sent */
    h.verdict = MIP_FWD_PASS;
    CHECK_EQ(mip_ip_output_copy(f.s, &tx, l4, 100), MIP_OK);
    CHECK_EQ(h.calls, 1);
    CHECK(h.out);
    CHECK_EQ(h.netif, 1);
    CHECK_EQ(h.len, (v6 ? 40u : 20u) + 100u);
    CHECK_EQ(h.pkt[0] >> 4, v6 ? 6 : 4);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].len, h.len);
    CHECK_MEM(f.tx[0].data, h.pkt, h.len);

    /* TAKEN: not sent, success, the buffer freed; sent later with
     * mip_ip_send_raw, which does not call the hook again */
    h.verdict = MIP_FWD_TAKEN;
    fixture_clear(&f);
    CHECK_EQ(mip_ip_output_copy(f.s, &tx, l4, 100), MIP_OK);
    CHECK_EQ(h.calls, 2);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(f.s->pool.in_use, 0);
    kept_len = h.len;
    memcpy(kept, h.pkt, kept_len);
    CHECK_EQ(mip_ip_send_raw(f.s, kept, kept_len), MIP_OK);
    CHECK_EQ(h.calls, 2);
    CHECK_EQ(f.ntx, 1);
    CHECK_MEM(f.tx[0].data, kept, kept_len);

    /* a datagram IP fragments is not offered (only whole ones are) */
    fixture_clear(&f);
    CHECK_EQ(mip_ip_output_copy(f.s, &tx, l4, 1000), MIP_OK);
    CHECK_EQ(h.calls, 2);
    CHECK(f.ntx >= 2);

    /* forwarded datagrams are not local */
    h.verdict = MIP_FWD_PASS;
    fixture_clear(&f);
    len = udp_through(pkt, v6, 64);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(h.calls, 2);

    /* delivered to this node: seen inbound, whole, verdict ignored */
    h.verdict = MIP_FWD_TAKEN;
    len = udp_to_node(pkt, v6, 2);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(h.ins, 1);
    CHECK_EQ(h.in_netif, 0);
    CHECK_EQ(h.in_len, len);
    CHECK_MEM(h.in_pkt, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_delivered), 1);
    /* no socket on that port: the ICMP error is this node's own datagram,
     * offered outbound (and taken by the hook here) */
    CHECK_EQ(h.calls, 4);
    CHECK_EQ(h.outs, 3);
    CHECK(h.out);
    CHECK_EQ(h.pkt[v6 ? 6 : 9], v6 ? 58 : 1);

    /* removed */
    mip_ip_set_local_hook(f.s, NULL, NULL);
    CHECK_EQ(mip_ip_output_copy(f.s, &tx, l4, 100), MIP_OK);
    CHECK_EQ(h.calls, 4);
    CHECK_EQ(f.s->pool.in_use, 0);
    fixture_free(&f);
}

static void test_local_hook_sees_own_and_delivered_datagrams(void)
{
#if MIP_CONF_IPV4
    check_local_hook(false);
#endif
    check_local_hook(true);
}

#endif /* MIP_CONF_FORWARD */

int main(void)
{
#if MIP_CONF_FORWARD
#if MIP_CONF_IPV4
    RUN(test_ipv4_forwarded_with_ttl_decrement_and_valid_checksum);
    RUN(test_ipv4_checksum_update_matches_recompute_for_every_id);
    RUN(test_ipv4_ttl_expired_gets_time_exceeded);
    RUN(test_ipv4_no_route_gets_net_unreachable);
    RUN(test_ipv4_default_route_via_gateway);
    RUN(test_ipv4_refragmented_for_smaller_mtu);
    RUN(test_ipv4_fragment_refragmented_keeps_offset_and_mf);
    RUN(test_ipv4_df_too_big_gets_frag_needed_with_mtu);
    RUN(test_ipv4_not_forwarded_when_forwarding_off);
    RUN(test_ipv4_source_routed_or_bad_options_not_forwarded);
    RUN(test_ipv4_multicast_and_broadcast_not_forwarded);
    RUN(test_ipv4_to_other_netif_address_delivered_locally);
#endif
    RUN(test_ipv6_forwarded_with_hop_limit_decrement);
    RUN(test_ipv6_hop_limit_expired_gets_time_exceeded);
    RUN(test_ipv6_no_route_gets_destination_unreachable);
    RUN(test_ipv6_too_big_gets_packet_too_big_with_mtu);
    RUN(test_ipv6_not_forwarded);
    RUN(test_forward_hook_verdicts_honoured);
    RUN(test_local_hook_sees_own_and_delivered_datagrams);
#endif
    return TESTING_DONE();
}
