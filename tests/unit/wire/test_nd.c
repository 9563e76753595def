/*
 * Neighbor Discovery codec (RFC 4861): message parse, option iterator,
 * NS/NA emitters.
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/wire/icmpv6.h"
#include "exact.h"
#include "ns_pkt.h"
#include "testing.h"

#define NS_ICMP (ns_pkt + 40)
#define NS_ICMP_LEN 32u

static const uint8_t ns_target[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0,
                                      0x02, 0xaa, 0xbb, 0xff, 0xfe, 0x66, 0x77, 0x88};
static const uint8_t mac[6] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55};

/* RA from fe80::211:22ff:fe33:4455: hop limit 64, M+O, lifetime 1800 s,
 * reachable 30 s, retrans 1 s; SLLA, MTU 1500, prefix 2001:db8:1::/64. */
static const uint8_t ra_msg[64] = {
    0x86, 0x00, 0xa7, 0xdf, 0x40, 0xc0, 0x07, 0x08,
    0x00, 0x00, 0x75, 0x30, 0x00, 0x00, 0x03, 0xe8,
    0x01, 0x01, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
    0x05, 0x01, 0x00, 0x00, 0x00, 0x00, 0x05, 0xdc,
    0x03, 0x04, 0x40, 0xc0, 0x00, 0x27, 0x8d, 0x00,
    0x00, 0x09, 0x3a, 0x80, 0x00, 0x00, 0x00, 0x00,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
static const size_t ra_bounds[] = {16, 24, 32, 64};

static const uint8_t rs_msg[16] = {
    0x85, 0x00, 0x46, 0x63, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x01, 0x00, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
};
static const size_t rs_bounds[] = {8, 16};

/* Redirect to fe80::1 for 2001:db8::99, TLLA, Redirected Header option. */
static const uint8_t redirect_msg[64] = {
    0x89, 0x00, 0x6b, 0x03, 0x00, 0x00, 0x00, 0x00,
    0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x99,
    0x02, 0x01, 0x00, 0x11, 0x22, 0x33, 0x44, 0x66,
    0x04, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0xff,
};
static const size_t redirect_bounds[] = {40, 48, 64};
static const size_t ns_bounds[] = {24, 32};

/* RFC 4443 2.3 checksum of an ICMPv6 message between src and dst. */
static uint16_t icmpv6_sum(const uint8_t src[16], const uint8_t dst[16],
                           const uint8_t *msg, size_t len)
{
    uint32_t s = 0;
    size_t i;

    for (i = 0; i < 16; i += 2) {
        s += (uint32_t)(src[i] << 8 | src[i + 1]);
        s += (uint32_t)(dst[i] << 8 | dst[i + 1]);
    }
    s += (uint32_t)len + 58u;
    for (i = 0; i + 1 < len; i += 2)
        s += (uint32_t)(msg[i] << 8 | msg[i + 1]);
    if (len & 1u)
        s += (uint32_t)msg[len - 1] << 8;
    while (s >> 16)
        s = (s & 0xFFFFu) + (s >> 16);
    return (uint16_t)~s;
}

static void test_nd_captured_ns_checksum_is_valid(void)
{
    /* Guards the vector itself: summed with its checksum it comes to 0. */
    CHECK_EQ(icmpv6_sum(ns_pkt + 8, ns_pkt + 24, NS_ICMP, NS_ICMP_LEN), 0);
}

static void test_nd_parse_captured_ns_with_slla(void)
{
    struct mip_nd_msg m;
    struct mip_nd_opt_iter it;
    struct mip_nd_opt o;

    CHECK_EQ(mip_nd_parse(NS_ICMP, NS_ICMP_LEN, &m), MIP_OK);
    CHECK_EQ(m.type, MIP_ICMPV6_NS);
    CHECK_EQ(m.code, 0);
    CHECK_MEM(m.target, ns_target, 16);
    CHECK(m.opts == NS_ICMP + 24);
    CHECK_EQ(m.opts_len, 8);

    mip_nd_opt_iter_init(&it, m.opts, m.opts_len);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_OK);
    CHECK_EQ(o.type, MIP_ND_OPT_SLLA);
    CHECK_EQ(o.len, 6);
    CHECK_MEM(o.data, mac, 6);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_ERR_END);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_ERR_END);
}

static void test_nd_emit_ns_matches_capture(void)
{
    uint8_t buf[64];
    size_t n = 0;

    CHECK_EQ(mip_nd_emit_ns(ns_target, mac, 6, buf, sizeof(buf), &n), MIP_OK);
    CHECK_EQ(n, NS_ICMP_LEN);
    CHECK_EQ(buf[2], 0);
    CHECK_EQ(buf[3], 0);
    CHECK_EQ(icmpv6_sum(ns_pkt + 8, ns_pkt + 24, buf, n), 0x01e3);
    buf[2] = 0x01;
    buf[3] = 0xe3;
    CHECK_MEM(buf, NS_ICMP, NS_ICMP_LEN);
}

static void test_nd_emit_na_known_bytes(void)
{
    static const uint8_t want[32] = {
        0x88, 0x00, 0x00, 0x00, 0x60, 0x00, 0x00, 0x00,
        0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x02, 0xaa, 0xbb, 0xff, 0xfe, 0x66, 0x77, 0x88,
        0x02, 0x01, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
    };
    uint8_t buf[32];
    size_t n = 0;

    CHECK_EQ(mip_nd_emit_na(ns_target, MIP_ND_NA_FLAG_SOLICITED | MIP_ND_NA_FLAG_OVERRIDE,
                            mac, 6, buf, sizeof(buf), &n), MIP_OK);
    CHECK_EQ(n, 32);
    CHECK_MEM(buf, want, 32);
}

static size_t lla_opt_len(size_t l)
{
    return l == 0 ? 0 : (l + 2 + 7) / 8 * 8;
}

static void check_lla_round_trip(uint8_t type, uint8_t flags, size_t l)
{
    uint8_t lla[14], buf[48];
    struct mip_nd_msg m;
    struct mip_nd_opt_iter it;
    struct mip_nd_opt o;
    size_t n = 0, i;
    mip_status st;

    for (i = 0; i < sizeof(lla); i++)
        lla[i] = (uint8_t)(0xA0 + i);
    memset(buf, 0xEE, sizeof(buf));
    if (type == MIP_ICMPV6_NS)
        st = mip_nd_emit_ns(ns_target, l ? lla : NULL, l, buf, sizeof(buf), &n);
    else
        st = mip_nd_emit_na(ns_target, flags, l ? lla : NULL, l, buf, sizeof(buf), &n);
    CHECK_EQ(st, MIP_OK);
    CHECK_EQ(n, 24 + lla_opt_len(l));
    CHECK_EQ(buf[n], 0xEE);   /* nothing written past *written */

    CHECK_EQ(mip_nd_parse(buf, n, &m), MIP_OK);
    CHECK_EQ(m.type, type);
    CHECK_EQ(m.na_flags, type == MIP_ICMPV6_NA ? flags : 0);
    CHECK_MEM(m.target, ns_target, 16);
    CHECK_EQ(m.opts_len, lla_opt_len(l));
    mip_nd_opt_iter_init(&it, m.opts, m.opts_len);
    if (l != 0) {
        CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_OK);
        CHECK_EQ(o.type, type == MIP_ICMPV6_NS ? MIP_ND_OPT_SLLA : MIP_ND_OPT_TLLA);
        CHECK_EQ(o.len, lla_opt_len(l) - 2);
        CHECK_MEM(o.data, lla, l);
        for (i = l; i < o.len; i++)
            CHECK_EQ(o.data[i], 0);   /* padding is zero */
    }
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_ERR_END);
}

static void test_nd_emit_ns_na_every_lladdr_len_round_trips(void)
{
    static const uint8_t flags[] = {0, MIP_ND_NA_FLAG_ROUTER, MIP_ND_NA_FLAG_SOLICITED,
                                    MIP_ND_NA_FLAG_OVERRIDE, 0xE0};
    size_t l, f;

    for (l = 0; l <= 14; l++) {
        check_lla_round_trip(MIP_ICMPV6_NS, 0, l);
        for (f = 0; f < sizeof(flags); f++)
            check_lla_round_trip(MIP_ICMPV6_NA, flags[f], l);
    }
}

static void test_nd_emit_eui64_option_is_16_bytes(void)
{
    static const uint8_t eui64[8] = {0x02, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04};
    uint8_t buf[40];
    size_t n = 0;

    CHECK_EQ(mip_nd_emit_ns(ns_target, eui64, 8, buf, sizeof(buf), &n), MIP_OK);
    CHECK_EQ(n, 40);
    CHECK_EQ(buf[24], MIP_ND_OPT_SLLA);
    CHECK_EQ(buf[25], 2);
    CHECK_MEM(buf + 26, eui64, 8);
    CHECK_EQ(buf[34] | buf[35] | buf[36] | buf[37] | buf[38] | buf[39], 0);
}

static void test_nd_emit_short_cap_is_nospace(void)
{
    uint8_t buf[40];
    size_t cap, n;

    for (cap = 0; cap < 32; cap++) {
        n = 99;
        CHECK_EQ(mip_nd_emit_ns(ns_target, mac, 6, buf, cap, &n), MIP_ERR_NOSPACE);
        CHECK_EQ(n, 0);
        CHECK_EQ(mip_nd_emit_na(ns_target, 0, mac, 6, buf, cap, &n), MIP_ERR_NOSPACE);
    }
    for (cap = 0; cap < 24; cap++)
        CHECK_EQ(mip_nd_emit_ns(ns_target, NULL, 0, buf, cap, &n), MIP_ERR_NOSPACE);
    CHECK_EQ(mip_nd_emit_ns(ns_target, NULL, 0, buf, 24, &n), MIP_OK);
    CHECK_EQ(n, 24);
}

static void test_nd_emit_bad_args_are_invalid(void)
{
    uint8_t lla[15] = {0};
    uint8_t buf[64];
    size_t n;

    CHECK_EQ(mip_nd_emit_ns(ns_target, lla, 15, buf, sizeof(buf), &n), MIP_ERR_INVALID);
    CHECK_EQ(mip_nd_emit_ns(ns_target, NULL, 6, buf, sizeof(buf), &n), MIP_ERR_INVALID);
    CHECK_EQ(mip_nd_emit_na(ns_target, 0x10, NULL, 0, buf, sizeof(buf), &n), MIP_ERR_INVALID);
    CHECK_EQ(mip_nd_emit_na(ns_target, 0, lla, 15, buf, sizeof(buf), &n), MIP_ERR_INVALID);
}

static void test_nd_parse_ra_fields_and_options(void)
{
    static const uint8_t prefix[16] = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01};
    struct mip_nd_msg m;
    struct mip_nd_opt_iter it;
    struct mip_nd_opt o;

    CHECK_EQ(mip_nd_parse(ra_msg, sizeof(ra_msg), &m), MIP_OK);
    CHECK_EQ(m.type, MIP_ICMPV6_RA);
    CHECK_EQ(m.ra_hop_limit, 64);
    CHECK_EQ(m.ra_flags, 0xC0);
    CHECK_EQ(m.ra_router_lifetime, 1800);
    CHECK_EQ(m.ra_reachable_ms, 30000u);
    CHECK_EQ(m.ra_retrans_ms, 1000u);
    CHECK_EQ(m.opts_len, 48);

    mip_nd_opt_iter_init(&it, m.opts, m.opts_len);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_OK);
    CHECK_EQ(o.type, MIP_ND_OPT_SLLA);
    CHECK_MEM(o.data, mac, 6);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_OK);
    CHECK_EQ(o.type, MIP_ND_OPT_MTU);
    CHECK_EQ(o.len, 6);
    CHECK_EQ(o.data[5], 0xdc);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_OK);
    CHECK_EQ(o.type, MIP_ND_OPT_PREFIX);
    CHECK_EQ(o.len, 30);
    CHECK_EQ(o.data[0], 64);
    CHECK_MEM(o.data + 14, prefix, 16);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_ERR_END);
}

static void test_nd_parse_rs_with_slla(void)
{
    static const uint8_t lla[6] = {0x00, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
    struct mip_nd_msg m;
    struct mip_nd_opt_iter it;
    struct mip_nd_opt o;

    CHECK_EQ(mip_nd_parse(rs_msg, sizeof(rs_msg), &m), MIP_OK);
    CHECK_EQ(m.type, MIP_ICMPV6_RS);
    CHECK_EQ(m.opts_len, 8);
    mip_nd_opt_iter_init(&it, m.opts, m.opts_len);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_OK);
    CHECK_EQ(o.type, MIP_ND_OPT_SLLA);
    CHECK_MEM(o.data, lla, 6);
}

static void test_nd_parse_redirect(void)
{
    static const uint8_t dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
                                    0, 0, 0, 0, 0, 0, 0, 0x99};
    struct mip_nd_msg m;
    struct mip_nd_opt_iter it;
    struct mip_nd_opt o;

    CHECK_EQ(mip_nd_parse(redirect_msg, sizeof(redirect_msg), &m), MIP_OK);
    CHECK_EQ(m.type, MIP_ICMPV6_REDIRECT);
    CHECK_MEM(m.target, redirect_msg + 8, 16);
    CHECK_MEM(m.redirect_dst, dst, 16);
    CHECK_EQ(m.opts_len, 24);
    mip_nd_opt_iter_init(&it, m.opts, m.opts_len);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_OK);
    CHECK_EQ(o.type, MIP_ND_OPT_TLLA);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_OK);
    CHECK_EQ(o.type, MIP_ND_OPT_REDIRECT);
    CHECK_EQ(o.len, 14);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_ERR_END);
}

/* Every prefix: shorter than the fixed part is TRUNCATED; a prefix that
 * ends between options is a valid shorter message; any other cut leaves a
 * partial option and is refused. */
static void check_every_truncation(const uint8_t *msg, size_t len,
                                   const size_t *bounds, size_t nbounds)
{
    struct mip_nd_msg m;
    size_t n, b;

    for (n = 0; n < len; n++) {
        uint8_t *p = dup_exact(msg, n);
        bool boundary = false;
        mip_status st;

        for (b = 0; b < nbounds; b++)
            boundary = boundary || bounds[b] == n;
        CHECK(n == 0 || p != NULL);
        st = mip_nd_parse(p, n, &m);
        if (n < bounds[0])
            CHECK_EQ(st, MIP_ERR_TRUNCATED);
        else if (boundary)
            CHECK_EQ(st, MIP_OK);
        else
            CHECK_EQ(st, MIP_ERR_MALFORMED);
        free(p);
    }
    CHECK_EQ(mip_nd_parse(msg, len, &m), MIP_OK);
}

static void test_nd_parse_every_truncation_of_each_message(void)
{
    check_every_truncation(NS_ICMP, NS_ICMP_LEN, ns_bounds, 2);
    check_every_truncation(ra_msg, sizeof(ra_msg), ra_bounds, 4);
    check_every_truncation(rs_msg, sizeof(rs_msg), rs_bounds, 2);
    check_every_truncation(redirect_msg, sizeof(redirect_msg), redirect_bounds, 3);
}

static void test_nd_parse_na_every_truncation(void)
{
    static const size_t bounds[] = {24, 40};
    static const uint8_t eui64[8] = {0x02, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04};
    uint8_t buf[40];
    size_t n = 0;

    CHECK_EQ(mip_nd_emit_na(ns_target, MIP_ND_NA_FLAG_ROUTER, eui64, 8, buf, sizeof(buf), &n),
             MIP_OK);
    CHECK_EQ(n, 40);
    check_every_truncation(buf, n, bounds, 2);
}

static void test_nd_option_zero_length_is_malformed(void)
{
    uint8_t buf[40];
    struct mip_nd_msg m;

    memcpy(buf, NS_ICMP, NS_ICMP_LEN);
    buf[25] = 0;
    CHECK_EQ(mip_nd_parse(buf, NS_ICMP_LEN, &m), MIP_ERR_MALFORMED);

    /* a zero length after a good option */
    memcpy(buf, NS_ICMP, NS_ICMP_LEN);
    memset(buf + 32, 0, 8);
    buf[32] = 14;
    CHECK_EQ(mip_nd_parse(buf, 40, &m), MIP_ERR_MALFORMED);
}

static void test_nd_option_overrun_is_malformed(void)
{
    uint8_t buf[32];
    struct mip_nd_msg m;

    memcpy(buf, NS_ICMP, NS_ICMP_LEN);
    buf[25] = 2;   /* 16 bytes claimed, 8 present */
    CHECK_EQ(mip_nd_parse(buf, NS_ICMP_LEN, &m), MIP_ERR_MALFORMED);
    buf[25] = 255;
    CHECK_EQ(mip_nd_parse(buf, NS_ICMP_LEN, &m), MIP_ERR_MALFORMED);
}

static void test_nd_unknown_option_is_walked_over(void)
{
    uint8_t buf[40];
    struct mip_nd_msg m;

    memcpy(buf, NS_ICMP, NS_ICMP_LEN);
    memset(buf + 32, 0, 8);
    buf[32] = 200;
    buf[33] = 1;
    CHECK_EQ(mip_nd_parse(buf, 40, &m), MIP_OK);
    CHECK_EQ(m.opts_len, 16);
}

static void test_nd_opt_iter_errors_are_sticky(void)
{
    static const uint8_t zero[16] = {1, 1, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t over[10] = {1, 2, 0, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t lone[9] = {1, 1, 0, 0, 0, 0, 0, 0, 5};
    struct mip_nd_opt_iter it;
    struct mip_nd_opt o;

    mip_nd_opt_iter_init(&it, zero, sizeof(zero));
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_OK);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_ERR_MALFORMED);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_ERR_MALFORMED);
    CHECK(it.p == zero + 8);

    mip_nd_opt_iter_init(&it, over, sizeof(over));
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_ERR_TRUNCATED);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_ERR_TRUNCATED);

    mip_nd_opt_iter_init(&it, lone, sizeof(lone));
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_OK);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_ERR_TRUNCATED);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_ERR_TRUNCATED);

    mip_nd_opt_iter_init(&it, NULL, 0);
    CHECK_EQ(mip_nd_opt_next(&it, &o), MIP_ERR_END);
}

static void test_nd_opt_iter_reads_only_what_is_given(void)
{
    static const uint8_t two_opts[16] = {1, 1, 1, 2, 3, 4, 5, 6, 2, 1, 7, 7, 7, 7, 7, 7};
    struct mip_nd_opt_iter it;
    struct mip_nd_opt o;
    size_t n;

    for (n = 0; n <= sizeof(two_opts); n++) {
        uint8_t *p = dup_exact(two_opts, n);
        size_t ok = 0;
        mip_status st;

        mip_nd_opt_iter_init(&it, p, n);
        while ((st = mip_nd_opt_next(&it, &o)) == MIP_OK)
            ok++;
        CHECK_EQ(ok, n / 8);
        CHECK_EQ(st, n % 8 == 0 ? MIP_ERR_END : MIP_ERR_TRUNCATED);
        free(p);
    }
}

static void test_nd_parse_nonzero_code_is_malformed(void)
{
    uint8_t buf[64];
    struct mip_nd_msg m;

    memcpy(buf, NS_ICMP, NS_ICMP_LEN);
    buf[1] = 1;
    CHECK_EQ(mip_nd_parse(buf, NS_ICMP_LEN, &m), MIP_ERR_MALFORMED);
    memcpy(buf, ra_msg, sizeof(ra_msg));
    buf[1] = 255;
    CHECK_EQ(mip_nd_parse(buf, sizeof(ra_msg), &m), MIP_ERR_MALFORMED);
}

static void test_nd_parse_non_nd_type_is_unsupported(void)
{
    static const uint8_t types[] = {0, 1, 128, 129, 132, 138, 255};
    uint8_t buf[64] = {0};
    struct mip_nd_msg m;
    size_t i;

    for (i = 0; i < sizeof(types); i++) {
        buf[0] = types[i];
        CHECK_EQ(mip_nd_parse(buf, sizeof(buf), &m), MIP_ERR_UNSUPPORTED);
    }
}

static void test_nd_parse_multicast_target_is_malformed(void)
{
    uint8_t buf[64];
    struct mip_nd_msg m;
    size_t n = 0;

    memcpy(buf, NS_ICMP, NS_ICMP_LEN);
    buf[8] = 0xFF;
    CHECK_EQ(mip_nd_parse(buf, NS_ICMP_LEN, &m), MIP_ERR_MALFORMED);

    CHECK_EQ(mip_nd_emit_na(ns_target, 0, NULL, 0, buf, sizeof(buf), &n), MIP_OK);
    buf[8] = 0xFF;
    CHECK_EQ(mip_nd_parse(buf, n, &m), MIP_ERR_MALFORMED);

    memcpy(buf, redirect_msg, sizeof(redirect_msg));
    buf[24] = 0xFF;
    CHECK_EQ(mip_nd_parse(buf, sizeof(redirect_msg), &m), MIP_ERR_MALFORMED);
}

int main(void)
{
    RUN(test_nd_captured_ns_checksum_is_valid);
    RUN(test_nd_parse_captured_ns_with_slla);
    RUN(test_nd_emit_ns_matches_capture);
    RUN(test_nd_emit_na_known_bytes);
    RUN(test_nd_emit_ns_na_every_lladdr_len_round_trips);
    RUN(test_nd_emit_eui64_option_is_16_bytes);
    RUN(test_nd_emit_short_cap_is_nospace);
    RUN(test_nd_emit_bad_args_are_invalid);
    RUN(test_nd_parse_ra_fields_and_options);
    RUN(test_nd_parse_rs_with_slla);
    RUN(test_nd_parse_redirect);
    RUN(test_nd_parse_every_truncation_of_each_message);
    RUN(test_nd_parse_na_every_truncation);
    RUN(test_nd_option_zero_length_is_malformed);
    RUN(test_nd_option_overrun_is_malformed);
    RUN(test_nd_unknown_option_is_walked_over);
    RUN(test_nd_opt_iter_errors_are_sticky);
    RUN(test_nd_opt_iter_reads_only_what_is_given);
    RUN(test_nd_parse_nonzero_code_is_malformed);
    RUN(test_nd_parse_non_nd_type_is_unsupported);
    RUN(test_nd_parse_multicast_target_is_malformed);
    return TESTING_DONE();
}
