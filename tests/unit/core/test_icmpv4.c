/* ICMPv4: echo (every size up to the MTU), checksum and broadcast drops,
 * errors about our own datagrams handed to the transport, and the error
 * rate limiter. */
#include "iptest.h"
#include "moteip/wire/icmpv4.h"

#if MIP_CONF_IPV4

#define PROTO_TEST 253u

static void test_echo_every_size_up_to_mtu_answered_exactly(void)
{
    struct fixture f;
    static uint8_t icmp[1500], pkt[1600];
    size_t n, len, size;
    unsigned bad = 0;
    fixture_init(&f, false);
    for (size = 0; size <= FIXTURE_MTU - 28; size++) {
        const uint8_t *r;
        n = build_echo(icmp, 8, (uint16_t)(0x8000u + size), (uint16_t)size, size);
        len = build_ipv4(pkt, "192.0.2.1", "192.0.2.2", 1, 64, (uint16_t)size, 0, 0, icmp, n);
        fixture_clear(&f);
        fixture_input(&f, 0, pkt, len);
        r = f.tx[0].data;
        if (f.ntx != 1 || f.tx[0].len != len || ip4_total(r) != len || !ip4_hdr_ok(r) ||
            !icmp4_ok(r) || r[9] != 1 || r[20] != 0 || r[21] != 0 ||
            memcmp(r + 12, pkt + 16, 4) != 0 || memcmp(r + 16, pkt + 12, 4) != 0 ||
            memcmp(r + 24, icmp + 4, n - 4) != 0 || ip4_mf(r) || ip4_off(r) != 0) {
            if (bad++ < 5)
                fprintf(stderr, "  echo payload %zu: bad reply (ntx %u len %zu)\n",
                        size, f.ntx, f.tx[0].len);
        }
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), FIXTURE_MTU - 28 + 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_rx), FIXTURE_MTU - 28 + 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_tx), 0);
    fixture_free(&f);
}

static void test_echo_bad_checksum_counted_not_answered(void)
{
    struct fixture f;
    uint8_t icmp[64], pkt[128];
    size_t n, len;
    fixture_init(&f, false);
    n = build_echo(icmp, 8, 1, 1, 20);
    icmp[20] ^= 0x01;                               /* payload changed after the checksum */
    len = build_ipv4(pkt, "192.0.2.1", "192.0.2.2", 1, 64, 1, 0, 0, icmp, n);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_icmp_bad_checksum), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_rx), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 0);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

static void test_icmp_shorter_than_header_counted_truncated(void)
{
    struct fixture f;
    uint8_t icmp[8] = {8, 0, 0xF7, 0xFF, 0, 0, 0, 0}, pkt[64];
    size_t len, n;
    fixture_init(&f, false);
    for (n = 0; n < 8; n++) {
        len = build_ipv4(pkt, "192.0.2.1", "192.0.2.2", 1, 64, 1, 0, 0, icmp, n);
        fixture_input(&f, 0, pkt, len);
    }
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_icmp_truncated), 8);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

static void test_broadcast_ping_not_answered(void)
{
    static const char *const dsts[] = {"192.0.2.255", "255.255.255.255", "224.0.0.1"};
    struct fixture f;
    uint8_t icmp[64], pkt[128];
    size_t n, len;
    unsigned i;
    fixture_init(&f, false);
    n = build_echo(icmp, 8, 1, 1, 16);
    for (i = 0; i < 3; i++) {
        len = build_ipv4(pkt, "192.0.2.1", dsts[i], 1, 64, 1, 0, 0, icmp, n);
        fixture_input(&f, 0, pkt, len);
    }
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_rx), 3);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_icmp_unhandled), 3);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 0);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

static void test_unhandled_types_counted(void)
{
    static const uint8_t types[] = {0 /* reply nobody waits for */, 13 /* timestamp */,
                                    17 /* mask request */, 42, 255};
    struct fixture f;
    uint8_t icmp[16], pkt[64];
    size_t len;
    unsigned i;
    fixture_init(&f, false);
    for (i = 0; i < sizeof(types); i++) {
        memset(icmp, 0, sizeof(icmp));
        icmp[0] = types[i];
        mip_wr16(icmp + 2, mip_cksum_finish(mip_cksum_add(0, icmp, 16)));
        len = build_ipv4(pkt, "192.0.2.1", "192.0.2.2", 1, 64, 1, 0, 0, icmp, 16);
        fixture_input(&f, 0, pkt, len);
    }
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_icmp_unhandled), sizeof(types));
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_rx), sizeof(types));
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

/* --- errors about our own datagrams ---------------------------------- */

struct err_log {
    unsigned calls;
    struct mip_ip_error err;
    uint8_t quoted[600];
    struct mip_stack *s;
};

static bool test_proto_input(void *ctx, struct mip_stack *s, const struct mip_ip_rx *rx,
                             const uint8_t *l4, size_t len)
{
    (void)ctx; (void)s; (void)rx; (void)l4; (void)len;
    return true;
}

static void test_proto_error(void *ctx, struct mip_stack *s, const struct mip_ip_error *err)
{
    struct err_log *log = ctx;
    log->calls++;
    log->s = s;
    log->err = *err;
    if (err->quoted_len <= sizeof(log->quoted))
        memcpy(log->quoted, err->quoted, err->quoted_len);
}

/* An ICMP error of `type`/`code`/`rest` from `from` to 192.0.2.2 quoting a
 * datagram 192.0.2.2 -> `qdst` of protocol `qproto` with `qn` bytes of
 * upper-layer data (pattern) after a header of `ihl` bytes. */
static size_t build_error_about(uint8_t *pkt, const char *from, uint8_t type, uint8_t code,
                                uint32_t rest, const char *qsrc, const char *qdst,
                                uint8_t qproto, unsigned ihl, size_t qn)
{
    uint8_t icmp[700], upper[600];
    size_t qlen;
    fill_pattern(upper, sizeof(upper), 9);
    memset(icmp, 0, sizeof(icmp));
    icmp[0] = type;
    icmp[1] = code;
    mip_wr32(icmp + 4, rest);
    qlen = build_ipv4(icmp + 8, qsrc, qdst, qproto, 64, 0x5555, 0, 0, upper, 600);
    (void)qlen;
    if (ihl > 20) {                                 /* options: NOPs after the fixed header */
        memset(icmp + 8 + 20, 1, ihl - 20);
        icmp[8] = (uint8_t)(0x40 | (ihl / 4));
    }
    memcpy(icmp + 8 + ihl, upper, qn);
    mip_wr16(icmp + 2, mip_cksum_finish(mip_cksum_add(0, icmp, 8 + ihl + qn)));
    return build_ipv4(pkt, from, "192.0.2.2", 1, 64, 1, 0, 0, icmp, 8 + ihl + qn);
}

static void test_error_about_our_datagram_reaches_proto_error_callback(void)
{
    struct fixture f;
    struct err_log log;
    uint8_t pkt[800], upper[600];
    size_t len;
    fixture_init(&f, false);
    memset(&log, 0, sizeof(log));
    fill_pattern(upper, sizeof(upper), 9);
    CHECK_EQ(mip_ip_register_proto(f.s, PROTO_TEST, test_proto_input, test_proto_error, &log),
             MIP_OK);
    /* fragmentation needed from a router, next-hop MTU 1280 */
    len = build_error_about(pkt, "192.0.2.254", 3, 4, 1280, "192.0.2.2", "203.0.113.9",
                            PROTO_TEST, 20, 8);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(log.calls, 1);
    CHECK(log.s == f.s);
    CHECK_EQ(log.err.family, MIP_AF_INET);
    CHECK_EQ(log.err.type, 3);
    CHECK_EQ(log.err.code, 4);
    CHECK_EQ(log.err.info, 1280);
    CHECK_EQ(log.err.src.family, MIP_AF_INET);
    {
        struct mip_addr me = fixture_addr("192.0.2.2"), peer = fixture_addr("203.0.113.9");
        CHECK(mip_addr_eq(&log.err.src, &me));
        CHECK(mip_addr_eq(&log.err.dst, &peer));
    }
    CHECK_EQ(log.err.quoted_len, 8);
    CHECK_MEM(log.quoted, upper, 8);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_rx), 1);
    CHECK_EQ(f.ntx, 0);                             /* no answer to an error */

    /* time exceeded, with a longer quote */
    len = build_error_about(pkt, "192.0.2.254", 11, 0, 0, "192.0.2.2", "203.0.113.9",
                            PROTO_TEST, 20, 100);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(log.calls, 2);
    CHECK_EQ(log.err.type, 11);
    CHECK_EQ(log.err.code, 0);
    CHECK_EQ(log.err.info, 0);
    CHECK_EQ(log.err.quoted_len, 100);
    CHECK_MEM(log.quoted, upper, 100);

    /* parameter problem, pointer in the top byte; quoted header with options */
    len = build_error_about(pkt, "192.0.2.254", 12, 0, 0x14000000u, "192.0.2.2",
                            "203.0.113.9", PROTO_TEST, 28, 8);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(log.calls, 3);
    CHECK_EQ(log.err.type, 12);
    CHECK_EQ(log.err.info, 0x14000000u);
    CHECK_EQ(log.err.quoted_len, 8);
    CHECK_MEM(log.quoted, upper, 8);                /* after the 28-byte header */
    fixture_free(&f);
}

static void test_error_not_about_us_or_truncated_not_passed_on(void)
{
    struct fixture f;
    struct err_log log;
    uint8_t pkt[800];
    size_t len;
    fixture_init(&f, false);
    memset(&log, 0, sizeof(log));
    CHECK_EQ(mip_ip_register_proto(f.s, PROTO_TEST, test_proto_input, test_proto_error, &log),
             MIP_OK);
    /* about a datagram someone else sent */
    len = build_error_about(pkt, "192.0.2.254", 3, 1, 0, "192.0.2.77", "203.0.113.9",
                            PROTO_TEST, 20, 8);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_icmp_unhandled), 1);
    /* quote of header + 7 bytes: shorter than RFC 792 requires */
    len = build_error_about(pkt, "192.0.2.254", 3, 1, 0, "192.0.2.2", "203.0.113.9",
                            PROTO_TEST, 20, 7);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_icmp_truncated), 1);
    /* a header with options whose 8 bytes are cut short */
    len = build_error_about(pkt, "192.0.2.254", 3, 1, 0, "192.0.2.2", "203.0.113.9",
                            PROTO_TEST, 28, 4);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_icmp_truncated), 2);
    CHECK_EQ(log.calls, 0);
    CHECK_EQ(f.ntx, 0);
    /* about a protocol with no handler: nobody to tell, nothing sent */
    len = build_error_about(pkt, "192.0.2.254", 3, 3, 0, "192.0.2.2", "203.0.113.9",
                            17, 20, 8);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(log.calls, 0);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

static void test_error_with_null_error_callback_is_ignored(void)
{
    struct fixture f;
    uint8_t pkt[800];
    size_t len;
    fixture_init(&f, false);
    CHECK_EQ(mip_ip_register_proto(f.s, PROTO_TEST, test_proto_input, NULL, NULL), MIP_OK);
    len = build_error_about(pkt, "192.0.2.254", 3, 4, 576, "192.0.2.2", "203.0.113.9",
                            PROTO_TEST, 20, 8);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_rx), 1);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

/* --- rate limiting --------------------------------------------------- */

/* Sends `count` UDP datagrams to the closed port 9 at the current time;
 * returns how many ICMP errors went out. */
static unsigned blast_closed_port(struct fixture *f, unsigned count)
{
    uint8_t udp[32], pkt[64];
    size_t n, len;
    unsigned i, errors = 0;
    n = build_udp(udp, false, "192.0.2.1", "192.0.2.2", 4000, 9, (const uint8_t *)"x", 1);
    len = build_ipv4(pkt, "192.0.2.1", "192.0.2.2", 17, 64, 1, 0, 0, udp, n);
    for (i = 0; i < count; i++) {
        fixture_clear(f);
        fixture_input(f, 0, pkt, len);
        if (f->ntx == 1 && f->tx[0].data[20] == 3 && f->tx[0].data[21] == 3)
            errors++;
    }
    return errors;
}

static void test_error_burst_limited_to_bucket(void)
{
    struct fixture f;
    fixture_init(&f, false);
    CHECK_EQ(blast_closed_port(&f, 50), MIP_ICMP_RATE_BURST);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), MIP_ICMP_RATE_BURST);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_icmp_rate_limited), 50 - MIP_ICMP_RATE_BURST);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_udp_no_port), 50);
    fixture_free(&f);
}

/* Issue 24 (5): the bucket's stamp was compared with mip_time_before, so
 * after 2^31 ms (24.9 days) without an error it read as the future, the
 * elapsed time as 0, and the empty bucket never refilled. */
static void test_error_bucket_refills_after_half_the_wrap(void)
{
    struct fixture f;
    fixture_init(&f, false);
    CHECK_EQ(blast_closed_port(&f, 50), MIP_ICMP_RATE_BURST);
    fixture_idle(&f, 0x80000000u + 1000u);     /* 24.9 days and a second */
    CHECK_EQ(blast_closed_port(&f, 50), MIP_ICMP_RATE_BURST);
    fixture_idle(&f, 0xFFFFFFFFu);             /* and a whole wrap */
    CHECK_EQ(blast_closed_port(&f, 50), MIP_ICMP_RATE_BURST);
    fixture_free(&f);
}

static void test_error_tokens_refill_one_per_interval(void)
{
    struct fixture f;
    unsigned k;
    uint32_t limited;
    fixture_init(&f, false);
    CHECK_EQ(blast_closed_port(&f, 50), MIP_ICMP_RATE_BURST);
    limited = fixture_stat(&f, MIP_STAT_drop_icmp_rate_limited);
    for (k = 1; k <= 4; k++) {
        f.now += k * MIP_ICMP_RATE_INTERVAL_MS;
        CHECK_EQ(blast_closed_port(&f, 50), k);
        limited += 50 - k;
        CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_icmp_rate_limited), limited);
    }
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), MIP_ICMP_RATE_BURST + 1 + 2 + 3 + 4);
    fixture_free(&f);
}

static void test_error_tokens_accumulate_partial_intervals(void)
{
    struct fixture f;
    fixture_init(&f, false);
    CHECK_EQ(blast_closed_port(&f, MIP_ICMP_RATE_BURST + 1), MIP_ICMP_RATE_BURST);
    f.now += MIP_ICMP_RATE_INTERVAL_MS / 2;
    CHECK_EQ(blast_closed_port(&f, 5), 0);
    f.now += MIP_ICMP_RATE_INTERVAL_MS - MIP_ICMP_RATE_INTERVAL_MS / 2 - 1;
    CHECK_EQ(blast_closed_port(&f, 5), 0);          /* one ms short of a full interval */
    f.now += 1;
    CHECK_EQ(blast_closed_port(&f, 5), 1);          /* the halves added up */
    fixture_free(&f);
}

static void test_error_bucket_never_exceeds_burst(void)
{
    struct fixture f;
    fixture_init(&f, false);
    CHECK_EQ(blast_closed_port(&f, 50), MIP_ICMP_RATE_BURST);
    f.now += 1000u * MIP_ICMP_RATE_INTERVAL_MS;
    CHECK_EQ(blast_closed_port(&f, 50), MIP_ICMP_RATE_BURST);
    /* a clock far in the future (but < 2^31 ms away) still caps */
    f.now += 0x40000000u;
    CHECK_EQ(blast_closed_port(&f, 50), MIP_ICMP_RATE_BURST);
    fixture_free(&f);
}

static void test_echo_replies_not_rate_limited(void)
{
    struct fixture f;
    uint8_t icmp[32], pkt[64];
    size_t n, len;
    unsigned i, replies = 0;
    fixture_init(&f, false);
    n = build_echo(icmp, 8, 1, 1, 8);
    len = build_ipv4(pkt, "192.0.2.1", "192.0.2.2", 1, 64, 1, 0, 0, icmp, n);
    for (i = 0; i < 50; i++) {
        fixture_clear(&f);
        fixture_input(&f, 0, pkt, len);
        replies += f.ntx == 1 && f.tx[0].data[20] == 0;
    }
    CHECK_EQ(replies, 50);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_icmp_rate_limited), 0);
    fixture_free(&f);
}

#endif /* MIP_CONF_IPV4 */

int main(void)
{
#if MIP_CONF_IPV4
    RUN(test_echo_every_size_up_to_mtu_answered_exactly);
    RUN(test_echo_bad_checksum_counted_not_answered);
    RUN(test_icmp_shorter_than_header_counted_truncated);
    RUN(test_broadcast_ping_not_answered);
    RUN(test_unhandled_types_counted);
    RUN(test_error_about_our_datagram_reaches_proto_error_callback);
    RUN(test_error_not_about_us_or_truncated_not_passed_on);
    RUN(test_error_with_null_error_callback_is_ignored);
    RUN(test_error_burst_limited_to_bucket);
    RUN(test_error_tokens_refill_one_per_interval);
    RUN(test_error_bucket_refills_after_half_the_wrap);
    RUN(test_error_tokens_accumulate_partial_intervals);
    RUN(test_error_bucket_never_exceeds_burst);
    RUN(test_echo_replies_not_rate_limited);
#endif
    return TESTING_DONE();
}
