/* IPv4 input: every validation drop counted by its own counter with nothing
 * sent, link padding, not-for-us, and the protocol-unreachable error with
 * the RFC 1122 3.2.2 cases where no error may be sent. */
#include "iptest.h"
#include "moteip/wire/icmpv4.h"

#if MIP_CONF_IPV4

#define PROTO_UNKNOWN 253u

/* Sums every drop_* counter: an input that is dropped must raise exactly
 * one of them (stats.h). */
static uint32_t drops_total(const struct fixture *f)
{
    uint32_t n = 0;
    int i;
    for (i = MIP_STAT_drop_link_truncated; i <= MIP_STAT_drop_tx_driver; i++)
        n += fixture_stat(f, (enum mip_stat)i);
    return n;
}

/* Feeds pkt and checks it was dropped by `why` alone and nothing was sent. */
static void expect_drop(struct fixture *f, const uint8_t *pkt, size_t len, enum mip_stat why)
{
    uint32_t before = fixture_stat(f, why), total = drops_total(f);
    uint32_t delivered = fixture_stat(f, MIP_STAT_ip_delivered);
    fixture_clear(f);
    fixture_input(f, 0, pkt, len);
    CHECK_EQ(fixture_stat(f, why), before + 1);
    CHECK_EQ(drops_total(f), total + 1);
    CHECK_EQ(fixture_stat(f, MIP_STAT_ip_delivered), delivered);
    CHECK_EQ(f->ntx, 0);
}

/* A valid echo request to 192.0.2.2 (36 bytes: 20 + 8 + 8). */
static size_t good_ping(uint8_t *pkt)
{
    uint8_t icmp[16];
    size_t n = build_echo(icmp, 8, 0x4242, 1, 8);
    return build_ipv4(pkt, "192.0.2.1", "192.0.2.2", 1, 64, 99, 0, 0, icmp, n);
}

static void refresh_cksum(uint8_t *pkt)
{
    size_t ihl = (size_t)(pkt[0] & 0x0Fu) * 4u;
    pkt[10] = 0;
    pkt[11] = 0;
    mip_wr16(pkt + 10, mip_cksum_finish(mip_cksum_add(0, pkt, ihl)));
}

static void test_truncated_datagrams_counted(void)
{
    struct fixture f;
    uint8_t pkt[64], bad[64];
    size_t len, i;
    fixture_init(&f, false);
    len = good_ping(pkt);
    /* every cut inside the fixed header */
    for (i = 1; i < 20; i++)
        expect_drop(&f, pkt, i, MIP_STAT_drop_ipv4_truncated);
    /* total length claims more than the frame holds */
    for (i = 20; i < len; i++)
        expect_drop(&f, pkt, i, MIP_STAT_drop_ipv4_truncated);
    /* IHL says 24 bytes of header but only 20 arrived */
    memcpy(bad, pkt, 20);
    bad[0] = 0x46;
    mip_wr16(bad + 2, 24);
    refresh_cksum(bad);
    expect_drop(&f, bad, 20, MIP_STAT_drop_ipv4_truncated);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv4_truncated), 19 + (len - 20) + 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_rx_ipv4), 19 + (len - 20) + 1);
    fixture_free(&f);
}

static void test_malformed_headers_counted(void)
{
    struct fixture f;
    uint8_t pkt[64], bad[64];
    size_t len;
    unsigned ihl;
    fixture_init(&f, false);
    len = good_ping(pkt);
    for (ihl = 0; ihl < 5; ihl++) {                 /* IHL below 5 */
        memcpy(bad, pkt, len);
        bad[0] = (uint8_t)(0x40 | ihl);
        expect_drop(&f, bad, len, MIP_STAT_drop_ipv4_malformed);
    }
    memcpy(bad, pkt, len);                          /* total length < header length */
    mip_wr16(bad + 2, 19);
    refresh_cksum(bad);
    expect_drop(&f, bad, len, MIP_STAT_drop_ipv4_malformed);
    memcpy(bad, pkt, len);                          /* reserved flag bit set */
    bad[6] |= 0x80;
    refresh_cksum(bad);
    expect_drop(&f, bad, len, MIP_STAT_drop_ipv4_malformed);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv4_malformed), 7);
    fixture_free(&f);
}

static void test_unknown_ip_version_counted_as_link_unsupported(void)
{
    struct fixture f;
    uint8_t pkt[64];
    size_t len;
    fixture_init(&f, false);
    len = good_ping(pkt);
    pkt[0] = 0x55;
    expect_drop(&f, pkt, len, MIP_STAT_drop_link_unsupported);
    expect_drop(&f, pkt, 0, MIP_STAT_drop_link_truncated);
    fixture_free(&f);
}

static void test_bad_header_checksum_counted(void)
{
    struct fixture f;
    uint8_t pkt[64];
    size_t len;
    unsigned bit;
    fixture_init(&f, false);
    len = good_ping(pkt);
    /* any single flipped bit of the checksum field */
    for (bit = 0; bit < 16; bit++) {
        uint8_t bad[64];
        memcpy(bad, pkt, len);
        bad[10 + bit / 8] ^= (uint8_t)(1u << (bit % 8));
        expect_drop(&f, bad, len, MIP_STAT_drop_ipv4_bad_checksum);
    }
    pkt[8] = 63;                                    /* TTL changed, checksum not */
    expect_drop(&f, pkt, len, MIP_STAT_drop_ipv4_bad_checksum);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv4_bad_checksum), 17);
    fixture_free(&f);
}

static void test_bad_sources_counted(void)
{
    static const char *const srcs[] = {"224.0.0.5", "239.255.255.255", "255.255.255.255",
                                       "127.0.0.1"};
    struct fixture f;
    uint8_t icmp[16], pkt[64];
    size_t n, len;
    unsigned i;
    fixture_init(&f, false);
    n = build_echo(icmp, 8, 1, 1, 8);
    for (i = 0; i < 4; i++) {
        len = build_ipv4(pkt, srcs[i], "192.0.2.2", 1, 64, 1, 0, 0, icmp, n);
        expect_drop(&f, pkt, len, MIP_STAT_drop_ipv4_bad_src);
    }
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv4_bad_src), 4);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 0);
    fixture_free(&f);
}

static void test_trailing_link_padding_ignored(void)
{
    struct fixture f;
    uint8_t pkt[128];
    size_t len;
    fixture_init(&f, false);
    len = good_ping(pkt);
    memset(pkt + len, 0xAB, 30);                    /* Ethernet-style padding */
    fixture_input(&f, 0, pkt, len + 30);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].len, len);                     /* reply covers total_len only */
    CHECK_EQ(ip4_total(f.tx[0].data), len);
    CHECK_EQ(f.tx[0].data[20], 0);
    CHECK(icmp4_ok(f.tx[0].data));
    CHECK_MEM(f.tx[0].data + 28, pkt + 28, len - 28);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 1);
    CHECK_EQ(drops_total(&f), 0);
    fixture_free(&f);
}

static void test_trailing_padding_not_in_udp_payload(void)
{
    struct fixture f;
    struct udp_sink sink;
    uint8_t udp[64], pkt[128];
    size_t n, len;
    fixture_init(&f, false);
    memset(&sink, 0, sizeof(sink));
    CHECK_EQ(mip_udp_bind(f.s, 7000, udp_sink_recv, &sink), MIP_OK);
    n = build_udp(udp, false, "192.0.2.1", "192.0.2.2", 5000, 7000, (const uint8_t *)"hello", 5);
    len = build_ipv4(pkt, "192.0.2.1", "192.0.2.2", 17, 64, 1, 0, 0, udp, n);
    memset(pkt + len, 0, 13);
    fixture_input(&f, 0, pkt, len + 13);
    CHECK_EQ(sink.calls, 1);
    CHECK_EQ(sink.len, 5);
    CHECK_MEM(sink.data, "hello", 5);
    fixture_free(&f);
}

static void test_not_for_us_dropped_when_not_forwarding(void)
{
    struct fixture f;
    uint8_t icmp[16], pkt[64];
    size_t n, len;
    fixture_init(&f, false);
    n = build_echo(icmp, 8, 1, 1, 8);
    len = build_ipv4(pkt, "192.0.2.1", "198.51.100.7", 1, 64, 1, 0, 0, icmp, n);
    expect_drop(&f, pkt, len, MIP_STAT_drop_ipv4_not_for_us);
    len = build_ipv4(pkt, "192.0.2.1", "192.0.2.3", 1, 64, 1, 0, 0, icmp, n);   /* a neighbour */
    expect_drop(&f, pkt, len, MIP_STAT_drop_ipv4_not_for_us);
    len = build_ipv4(pkt, "192.0.2.1", "224.0.0.9", 1, 64, 1, 0, 0, icmp, n);   /* a group we are not in */
    expect_drop(&f, pkt, len, MIP_STAT_drop_ipv4_not_for_us);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv4_not_for_us), 3);
    fixture_free(&f);
}

static void test_unknown_protocol_gets_protocol_unreachable(void)
{
    struct fixture f;
    uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8}, pkt[64];
    const uint8_t *r;
    size_t len;
    fixture_init(&f, false);
    len = build_ipv4(pkt, "192.0.2.1", "192.0.2.2", PROTO_UNKNOWN, 64, 0x1234, 0, 0, data, 8);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ip_unknown_proto), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), 1);
    CHECK_EQ(drops_total(&f), 1);
    CHECK_EQ(f.ntx, 1);
    r = f.tx[0].data;
    CHECK_EQ(f.tx[0].len, 20 + 8 + 28);             /* IP + ICMP + header and 8 bytes */
    CHECK_EQ(ip4_total(r), 56);
    CHECK(ip4_hdr_ok(r));
    CHECK_EQ(r[9], 1);                              /* ICMP */
    CHECK_EQ(r[8], MIP_DEFAULT_TTL);
    CHECK_MEM(r + 12, pkt + 16, 4);                 /* from the address it was sent to */
    CHECK_MEM(r + 16, pkt + 12, 4);                 /* back to its source */
    CHECK_EQ(r[20], 3);                             /* destination unreachable */
    CHECK_EQ(r[21], 2);                             /* protocol unreachable */
    CHECK_EQ(mip_rd32(r + 24), 0);                  /* unused */
    CHECK(icmp4_ok(r));
    CHECK_MEM(r + 28, pkt, 28);                     /* the header + 8 bytes, verbatim */
    fixture_free(&f);
}

static void test_protocol_unreachable_quotes_up_to_576_bytes(void)
{
    /* RFC 1122 3.2.2 asks for the header and at least 8 data bytes; this
     * stack quotes as much as keeps the error within 576 bytes (RFC 1812
     * 4.3.2.3). */
    struct fixture f;
    uint8_t data[1200], pkt[1300];
    size_t len;
    fixture_init(&f, false);
    fill_pattern(data, sizeof(data), 3);
    len = build_ipv4(pkt, "192.0.2.1", "192.0.2.2", PROTO_UNKNOWN, 64, 1, 0, 0, data, 100);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].len, 20 + 8 + 120);
    CHECK_MEM(f.tx[0].data + 28, pkt, 120);
    CHECK(icmp4_ok(f.tx[0].data));
    fixture_clear(&f);
    len = build_ipv4(pkt, "192.0.2.1", "192.0.2.2", PROTO_UNKNOWN, 64, 2, 0, 0, data, 1200);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].len, 576);
    CHECK_EQ(ip4_total(f.tx[0].data), 576);
    CHECK_MEM(f.tx[0].data + 28, pkt, 576 - 28);
    CHECK(icmp4_ok(f.tx[0].data));
    CHECK(ip4_hdr_ok(f.tx[0].data));
    fixture_free(&f);
}

static void test_no_protocol_unreachable_for_broadcast_destinations(void)
{
    static const char *const dsts[] = {"192.0.2.255", "255.255.255.255", "224.0.0.1"};
    struct fixture f;
    uint8_t data[8] = {0}, pkt[64];
    size_t len;
    unsigned i;
    fixture_init(&f, false);
    for (i = 0; i < 3; i++) {
        len = build_ipv4(pkt, "192.0.2.1", dsts[i], PROTO_UNKNOWN, 64, 1, 0, 0, data, 8);
        fixture_input(&f, 0, pkt, len);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ip_unknown_proto), i + 1);
        CHECK_EQ(drops_total(&f), i + 1);
        CHECK_EQ(f.ntx, 0);
    }
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_delivered), 3);
    fixture_free(&f);
}

/* Sources that name no single host are dropped before delivery, and
 * never answered: 0/8 (RFC 1122 3.2.1.3) and a subnet broadcast (3.2.2). */
static void test_source_naming_no_host_is_dropped_as_bad_src(void)
{
    static const char *const srcs[] = {"0.0.0.0", "192.0.2.255"};
    unsigned i;
    for (i = 0; i < 2; i++) {
        struct fixture f;
        uint8_t data[8] = {0}, pkt[64];
        size_t len;
        fixture_init(&f, false);
        len = build_ipv4(pkt, srcs[i], "192.0.2.2", PROTO_UNKNOWN, 64, 1, 0, 0, data, 8);
        fixture_input(&f, 0, pkt, len);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv4_bad_src), 1);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_delivered), 0);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), 0);
        CHECK_EQ(f.ntx, 0);
        fixture_free(&f);
    }
}

static bool refuse_input(void *ctx, struct mip_stack *s, const struct mip_ip_rx *rx,
                         const uint8_t *l4, size_t len)
{
    unsigned *calls = ctx;
    (void)s; (void)rx; (void)l4; (void)len;
    (*calls)++;
    return false;
}

static bool take_input(void *ctx, struct mip_stack *s, const struct mip_ip_rx *rx,
                       const uint8_t *l4, size_t len)
{
    unsigned *calls = ctx;
    (void)s; (void)l4;
    (*calls)++;
    CHECK_EQ(rx->proto, PROTO_UNKNOWN);
    CHECK_EQ(rx->ttl, 64);
    CHECK_EQ(rx->netif, 0);
    CHECK(!rx->dst_multicast);
    CHECK_EQ(rx->quote_len, 20);
    CHECK_EQ(len, 8);
    return true;
}

static void test_registered_handler_decides_protocol_unreachable(void)
{
    struct fixture f;
    uint8_t data[8] = {0}, pkt[64];
    size_t len;
    unsigned calls = 0;
    fixture_init(&f, false);
    CHECK_EQ(mip_ip_register_proto(f.s, PROTO_UNKNOWN, refuse_input, NULL, &calls), MIP_OK);
    len = build_ipv4(pkt, "192.0.2.1", "192.0.2.2", PROTO_UNKNOWN, 64, 1, 0, 0, data, 8);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(calls, 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ip_unknown_proto), 1);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].data[20], 3);
    CHECK_EQ(f.tx[0].data[21], 2);
    fixture_free(&f);

    fixture_init(&f, false);
    calls = 0;
    CHECK_EQ(mip_ip_register_proto(f.s, PROTO_UNKNOWN, take_input, NULL, &calls), MIP_OK);
    CHECK_EQ(mip_ip_register_proto(f.s, PROTO_UNKNOWN, take_input, NULL, &calls), MIP_ERR_INUSE);
    CHECK_EQ(mip_ip_register_proto(f.s, 0, take_input, NULL, &calls), MIP_ERR_INVALID);
    CHECK_EQ(mip_ip_register_proto(f.s, 200, NULL, NULL, &calls), MIP_ERR_INVALID);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(calls, 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ip_unknown_proto), 0);
    CHECK_EQ(drops_total(&f), 0);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

static void test_proto_handler_table_full_gives_nobufs(void)
{
    struct fixture f;
    unsigned calls = 0, i;
    fixture_init(&f, false);
    for (i = 0; i < MIP_PROTO_HANDLERS_MAX; i++)
        CHECK_EQ(mip_ip_register_proto(f.s, (uint8_t)(200 + i), take_input, NULL, &calls), MIP_OK);
    CHECK_EQ(mip_ip_register_proto(f.s, 250, take_input, NULL, &calls), MIP_ERR_NOBUFS);
    fixture_free(&f);
}

static void test_no_error_about_icmp_error_or_later_fragment(void)
{
    /* A fragmented datagram that never completes triggers "reassembly time
     * exceeded" only for ordinary payloads: not when it carries an ICMP
     * error (RFC 1122 3.2.2), and not when its first fragment is missing
     * (no header to quote; RFC 792). */
    struct fixture f;
    uint8_t l4[64], pkt[128];
    size_t len;
    fixture_init(&f, false);
    memset(l4, 0, sizeof(l4));
    l4[0] = 3;                                      /* an ICMP destination unreachable */
    len = build_frag4(pkt, "192.0.2.1", "192.0.2.2", 1, 0x77, 0, true, l4, 16);
    fixture_input(&f, 0, pkt, len);
    l4[0] = 8;                                      /* a later fragment of a ping */
    len = build_frag4(pkt, "192.0.2.1", "192.0.2.2", 1, 0x78, 16, true, l4, 16);
    fixture_input(&f, 0, pkt, len);
    fixture_advance(&f, MIP_REASS_TIMEOUT_MS);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), MIP_REASS_SLOTS >= 2 ? 2 : 1);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), 0);
    /* the contrast: a first fragment of a ping does get the error */
    len = build_frag4(pkt, "192.0.2.1", "192.0.2.2", 1, 0x79, 0, true, l4, 16);
    fixture_input(&f, 0, pkt, len);
    fixture_advance(&f, MIP_REASS_TIMEOUT_MS);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].data[20], 11);
    CHECK_EQ(f.tx[0].data[21], 1);
    fixture_free(&f);
}

#if MIP_CONF_FORWARD
/* With forwarding on, TTL 1 gives "time exceeded" except about ICMP errors
 * and non-first fragments. */
static void test_no_time_exceeded_about_icmp_error_or_later_fragment(void)
{
    struct fixture f;
    uint8_t l4[64], pkt[128];
    size_t len;
    unsigned type;
    static const uint8_t err_types[] = {3, 4, 5, 11, 12};
    fixture_init(&f, true);
    memset(l4, 0, sizeof(l4));
    for (type = 0; type < sizeof(err_types); type++) {
        l4[0] = err_types[type];
        len = build_ipv4(pkt, "192.0.2.1", "192.0.2.99", 1, 1, 1, 0, 0, l4, 36);
        fixture_input(&f, 0, pkt, len);
    }
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv4_ttl_expired), 5);
    CHECK_EQ(f.ntx, 0);
    l4[0] = 8;                                      /* a non-first fragment of a ping */
    len = build_ipv4(pkt, "192.0.2.1", "192.0.2.99", 1, 1, 1, MIP_IPV4_FLAG_MF, 64, l4, 16);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv4_ttl_expired), 6);
    CHECK_EQ(f.ntx, 0);
    /* the contrast: echo request (not an error) with TTL 1 */
    len = build_ipv4(pkt, "192.0.2.1", "192.0.2.99", 1, 1, 1, 0, 0, l4, 16);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].data[20], 11);
    CHECK_EQ(f.tx[0].data[21], 0);
    fixture_free(&f);
}
#endif

/* good_ping() with `olen` option bytes after the fixed header. */
static size_t ping_with_options(uint8_t *pkt, const uint8_t *opts, size_t olen)
{
    uint8_t plain[64];
    size_t n = good_ping(plain);
    memcpy(pkt, plain, 20);
    memcpy(pkt + 20, opts, olen);
    memcpy(pkt + 20 + olen, plain + 20, n - 20);
    pkt[0] = (uint8_t)(0x40u | ((20u + olen) / 4u));
    mip_wr16(pkt + 2, (uint16_t)(n + olen));
    refresh_cksum(pkt);
    return n + olen;
}

/* What a dropped ping with options must leave: its counter up by one,
 * no echo reply, and a Parameter Problem pointing at `pointer` (none when
 * 0) that quotes the header and 8 bytes. */
static void check_option_drop(struct fixture *f, const uint8_t *pkt, size_t olen,
                              enum mip_stat why, uint32_t before, uint8_t pointer,
                              uint32_t replied, uint32_t total)
{
    const uint8_t *r = f->tx[0].data;
    CHECK_EQ(fixture_stat(f, MIP_STAT_icmp_echo_replied), replied);
    CHECK_EQ(drops_total(f), total + 1);
    CHECK_EQ(fixture_stat(f, why) - before, 1);
    CHECK_EQ(f->ntx, pointer != 0 ? 1u : 0u);
    if (f->ntx != 1)
        return;
    CHECK(ip4_hdr_ok(r));
    CHECK_EQ(r[9], 1);
    CHECK_MEM(r + 16, pkt + 12, 4);                  /* to the source */
    CHECK_EQ(r[20], MIP_ICMPV4_PARAM_PROBLEM);
    CHECK_EQ(r[21], 0);
    CHECK_EQ(r[24], pointer);
    CHECK(icmp4_ok(r));
    CHECK_MEM(r + 28, pkt, 20u + olen + 8u);
}

/* Issue 12: options with a length of 0, 1, or past the header were
 * answered, and source routes accepted. Now each is dropped and counted;
 * a malformed one is reported with a Parameter Problem pointing at the bad
 * octet (RFC 1122 3.2.2.5), a source route silently (RFC 7126). */
static void test_ipv4_options_checked_before_any_answer(void)
{
    static const struct {
        const char *what;
        uint8_t olen;
        uint8_t opt[8];
        int why;             /* the drop counter, or -1: answered */
        uint8_t pointer;     /* of the Parameter Problem; 0: no error sent */
    } rows[] = {
        {"record route", 8, {7, 7, 4, 0, 0, 0, 0, 1}, -1, 0},
        {"NOPs and EOL", 4, {1, 1, 1, 0}, -1, 0},
        {"length 0", 4, {68, 0, 0, 0}, MIP_STAT_drop_ipv4_bad_option, 21},
        {"length 1", 4, {7, 1, 0, 0}, MIP_STAT_drop_ipv4_bad_option, 21},
        {"length past the header", 8, {7, 9, 4, 0, 0, 0, 0, 0}, MIP_STAT_drop_ipv4_bad_option, 21},
        {"type without a length", 4, {1, 1, 1, 0x94}, MIP_STAT_drop_ipv4_bad_option, 23},
        {"loose source route", 8, {0x83, 7, 4, 192, 0, 2, 3, 0}, MIP_STAT_drop_ipv4_source_route, 0},
        {"strict source route", 8, {0x89, 7, 8, 192, 0, 2, 3, 0}, MIP_STAT_drop_ipv4_source_route, 0},
    };
    struct fixture f;
    uint8_t pkt[96];
    unsigned i;
    fixture_init(&f, false);
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        size_t len = ping_with_options(pkt, rows[i].opt, rows[i].olen);
        uint32_t replied = fixture_stat(&f, MIP_STAT_icmp_echo_replied);
        uint32_t total = drops_total(&f);
        uint32_t why_before = rows[i].why < 0 ? 0 : fixture_stat(&f, (enum mip_stat)rows[i].why);
        int failures = testing_failures;
        fixture_clear(&f);
        fixture_input(&f, 0, pkt, len);
        if (rows[i].why < 0) {
            CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), replied + 1);
            CHECK_EQ(drops_total(&f), total);
        } else {
            check_option_drop(&f, pkt, rows[i].olen, (enum mip_stat)rows[i].why, why_before,
                              rows[i].pointer, replied, total);
        }
        if (testing_failures != failures)
            fprintf(stderr, "  in row '%s'\n", rows[i].what);
    }
    fixture_free(&f);
}

static void test_valid_datagram_counts_no_drop(void)
{
    struct fixture f;
    uint8_t pkt[64];
    size_t len;
    fixture_init(&f, false);
    len = good_ping(pkt);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_rx_frames), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_rx_ipv4), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_delivered), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_tx_ipv4), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_tx_frames), 1);
    CHECK_EQ(drops_total(&f), 0);
    CHECK_EQ(f.ntx, 1);
    fixture_free(&f);
}

static void test_input_on_missing_netif_ignored(void)
{
    struct fixture f;
    uint8_t pkt[64];
    size_t len;
    fixture_init(&f, false);
    len = good_ping(pkt);
    mip_stack_input(f.s, MIP_NETIF_MAX, pkt, len, f.now);
    mip_stack_input(f.s, 0, NULL, len, f.now);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_rx_frames), 0);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

#endif /* MIP_CONF_IPV4 */

int main(void)
{
#if MIP_CONF_IPV4
    RUN(test_truncated_datagrams_counted);
    RUN(test_malformed_headers_counted);
    RUN(test_unknown_ip_version_counted_as_link_unsupported);
    RUN(test_bad_header_checksum_counted);
    RUN(test_bad_sources_counted);
    RUN(test_trailing_link_padding_ignored);
    RUN(test_trailing_padding_not_in_udp_payload);
    RUN(test_not_for_us_dropped_when_not_forwarding);
    RUN(test_unknown_protocol_gets_protocol_unreachable);
    RUN(test_protocol_unreachable_quotes_up_to_576_bytes);
    RUN(test_no_protocol_unreachable_for_broadcast_destinations);
    RUN(test_source_naming_no_host_is_dropped_as_bad_src);
    RUN(test_registered_handler_decides_protocol_unreachable);
    RUN(test_proto_handler_table_full_gives_nobufs);
    RUN(test_no_error_about_icmp_error_or_later_fragment);
#if MIP_CONF_FORWARD
    RUN(test_no_time_exceeded_about_icmp_error_or_later_fragment);
#endif
    RUN(test_ipv4_options_checked_before_any_answer);
    RUN(test_valid_datagram_counts_no_drop);
    RUN(test_input_on_missing_netif_ignored);
#endif
    return TESTING_DONE();
}
