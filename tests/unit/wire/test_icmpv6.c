/*
 * ICMPv6 common header codec (RFC 4443).
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/wire/icmpv6.h"
#include "exact.h"
#include "testing.h"

/* Echo request, id 0x1234 seq 1, as sent by ping(8), payload elided. */
static const uint8_t echo_req[8] = {0x80, 0x00, 0x4b, 0x9e, 0x12, 0x34, 0x00, 0x01};

static void test_icmpv6_parse_known_echo_request(void)
{
    struct mip_icmp_hdr h;
    uint8_t out[8];

    CHECK_EQ(mip_icmp_parse(echo_req, sizeof(echo_req), &h), MIP_OK);
    CHECK_EQ(h.type, MIP_ICMPV6_ECHO_REQUEST);
    CHECK_EQ(h.code, 0);
    CHECK_EQ(h.checksum, 0x4b9e);
    CHECK_EQ(h.rest, 0x12340001u);
    CHECK_EQ(mip_icmp_emit(&h, out, sizeof(out)), MIP_OK);
    CHECK_MEM(out, echo_req, 8);
}

static void test_icmpv6_emit_parse_round_trip(void)
{
    static const struct mip_icmp_hdr cases[] = {
        {MIP_ICMPV6_ECHO_REPLY, 0, 0x0000, 0xFFFF0000u},
        {MIP_ICMPV6_PACKET_TOO_BIG, 0, 0xFFFF, 1280u},
        {MIP_ICMPV6_PARAM_PROBLEM, 2, 0x8001, 46u},
        {MIP_ICMPV6_DEST_UNREACH, MIP_ICMPV6_UNREACH_PORT, 0x1234, 0u},
        {MIP_ICMPV6_TIME_EXCEEDED, MIP_ICMPV6_TE_REASS, 0xABCD, 0x80000001u},
        {255, 255, 0xFFFF, 0xFFFFFFFFu},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct mip_icmp_hdr got;
        uint8_t buf[12];

        memset(&got, 0, sizeof(got));
        CHECK_EQ(mip_icmp_emit(&cases[i], buf, sizeof(buf)), MIP_OK);
        CHECK_EQ(mip_icmp_parse(buf, sizeof(buf), &got), MIP_OK);
        CHECK_EQ(got.type, cases[i].type);
        CHECK_EQ(got.code, cases[i].code);
        CHECK_EQ(got.checksum, cases[i].checksum);
        CHECK_EQ(got.rest, cases[i].rest);
    }
}

static void test_icmpv6_rest_is_big_endian(void)
{
    static const uint8_t want[8] = {4, 0, 0, 0, 0x00, 0x00, 0x00, 0x2C};
    struct mip_icmp_hdr h = {MIP_ICMPV6_PARAM_PROBLEM, 0, 0, 44u};
    uint8_t buf[8];

    CHECK_EQ(mip_icmp_emit(&h, buf, sizeof(buf)), MIP_OK);
    CHECK_MEM(buf, want, 8);
}

static void test_icmpv6_parse_every_truncation_fails(void)
{
    struct mip_icmp_hdr h;
    size_t n;

    for (n = 0; n < sizeof(echo_req); n++) {
        uint8_t *p = dup_exact(echo_req, n);
        CHECK(n == 0 || p != NULL);
        CHECK_EQ(mip_icmp_parse(p, n, &h), MIP_ERR_TRUNCATED);
        free(p);
    }
}

static void test_icmpv6_emit_short_cap_is_nospace(void)
{
    struct mip_icmp_hdr h = {MIP_ICMPV6_ECHO_REQUEST, 0, 0, 1u};
    uint8_t buf[8];
    size_t cap;

    for (cap = 0; cap < 8; cap++) {
        memset(buf, 0xEE, sizeof(buf));
        CHECK_EQ(mip_icmp_emit(&h, buf, cap), MIP_ERR_NOSPACE);
        CHECK_EQ(buf[0], 0xEE);
    }
}

int main(void)
{
    RUN(test_icmpv6_parse_known_echo_request);
    RUN(test_icmpv6_emit_parse_round_trip);
    RUN(test_icmpv6_rest_is_big_endian);
    RUN(test_icmpv6_parse_every_truncation_fails);
    RUN(test_icmpv6_emit_short_cap_is_nospace);
    return TESTING_DONE();
}
