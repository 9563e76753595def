/*
 * ICMPv4 (RFC 792) message header codec.
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/icmpv4.h"
#include "exact.h"
#include "testing.h"

/* A captured Windows "ping": echo request id 1 seq 1, 32-byte payload. */
static const uint8_t echo_request[40] = {
    0x08, 0x00, 0x4d, 0x5a, 0x00, 0x01, 0x00, 0x01,
    'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p',
    'q', 'r', 's', 't', 'u', 'v', 'w', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i',
};

static mip_status parse_exact(const uint8_t *buf, size_t len, struct mip_icmp_hdr *out)
{
    uint8_t *copy = dup_exact(buf, len);
    mip_status st = copy != NULL ? mip_icmp_parse(copy, len, out) : MIP_ERR_NOBUFS;

    free(copy);
    return st;
}

static void test_icmpv4_parses_captured_echo_request(void)
{
    struct mip_icmp_hdr h;

    CHECK_EQ(parse_exact(echo_request, sizeof echo_request, &h), MIP_OK);
    CHECK_EQ(h.type, MIP_ICMPV4_ECHO_REQUEST);
    CHECK_EQ(h.code, 0);
    CHECK_EQ(h.checksum, 0x4d5a);
    CHECK_EQ(h.rest, 0x00010001u); /* id 1, seq 1 */
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, echo_request, sizeof echo_request)), 0);
}

static void test_icmpv4_emit_and_finish_rebuild_captured_echo(void)
{
    struct mip_icmp_hdr h = { MIP_ICMPV4_ECHO_REQUEST, 0, 0, 0x00010001u };
    uint8_t msg[sizeof echo_request];

    CHECK_EQ(mip_icmp_emit(&h, msg, sizeof msg), MIP_OK);
    memcpy(msg + MIP_ICMPV4_HDR_LEN, echo_request + MIP_ICMPV4_HDR_LEN,
           sizeof msg - MIP_ICMPV4_HDR_LEN);
    mip_wr16(msg + 2, mip_cksum_finish(mip_cksum_add(0, msg, sizeof msg)));
    CHECK_MEM(msg, echo_request, sizeof msg);
}

static void test_icmpv4_echo_reply_from_request_keeps_checksum_valid(void)
{
    uint8_t msg[sizeof echo_request];

    memcpy(msg, echo_request, sizeof msg);
    msg[0] = MIP_ICMPV4_ECHO_REPLY;
    mip_wr16(msg + 2, mip_cksum_update16(mip_rd16(echo_request + 2), 0x0800, 0x0000));
    CHECK_EQ(mip_rd16(msg + 2), 0x555a);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, msg, sizeof msg)), 0);
}

static void test_icmpv4_emit_parse_round_trip(void)
{
    static const struct mip_icmp_hdr cases[] = {
        { MIP_ICMPV4_DEST_UNREACH, MIP_ICMPV4_UNREACH_FRAG_NEEDED, 0xabcd, 1280u },
        { MIP_ICMPV4_PARAM_PROBLEM, 0, 0x0001, 9u << 24 },
        { MIP_ICMPV4_TIME_EXCEEDED, MIP_ICMPV4_TE_REASS, 0xffff, 0 },
        { 0xff, 0xff, 0x8000, 0xffffffffu },
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct mip_icmp_hdr out;
        uint8_t buf[MIP_ICMPV4_HDR_LEN + 1];

        buf[MIP_ICMPV4_HDR_LEN] = 0xEE;
        CHECK_EQ(mip_icmp_emit(&cases[i], buf, sizeof buf), MIP_OK);
        CHECK_EQ(buf[MIP_ICMPV4_HDR_LEN], 0xEE);
        CHECK_EQ(mip_icmp_parse(buf, MIP_ICMPV4_HDR_LEN, &out), MIP_OK);
        CHECK_EQ(out.type, cases[i].type);
        CHECK_EQ(out.code, cases[i].code);
        CHECK_EQ(out.checksum, cases[i].checksum);
        CHECK_EQ(out.rest, cases[i].rest);
    }
}

static void test_icmpv4_rest_field_layout(void)
{
    /* frag-needed MTU sits in the last two bytes; param-problem pointer in
     * the first */
    struct mip_icmp_hdr fn = { MIP_ICMPV4_DEST_UNREACH, MIP_ICMPV4_UNREACH_FRAG_NEEDED, 0, 1280u };
    struct mip_icmp_hdr pp = { MIP_ICMPV4_PARAM_PROBLEM, 0, 0, 9u << 24 };
    uint8_t buf[MIP_ICMPV4_HDR_LEN];

    CHECK_EQ(mip_icmp_emit(&fn, buf, sizeof buf), MIP_OK);
    CHECK_MEM(buf, "\x03\x04\x00\x00\x00\x00\x05\x00", 8);
    CHECK_EQ(mip_icmp_emit(&pp, buf, sizeof buf), MIP_OK);
    CHECK_MEM(buf, "\x0c\x00\x00\x00\x09\x00\x00\x00", 8);
}

static void test_icmpv4_rejects_every_truncation(void)
{
    struct mip_icmp_hdr h;
    size_t len;

    for (len = 0; len < MIP_ICMPV4_HDR_LEN; len++)
        CHECK_EQ(parse_exact(echo_request, len, &h), MIP_ERR_TRUNCATED);
    CHECK_EQ(parse_exact(echo_request, MIP_ICMPV4_HDR_LEN, &h), MIP_OK);
}

static void test_icmpv4_emit_nospace_for_every_short_cap(void)
{
    struct mip_icmp_hdr h = { MIP_ICMPV4_ECHO_REQUEST, 0, 0, 0 };
    size_t cap;

    for (cap = 0; cap < MIP_ICMPV4_HDR_LEN; cap++) {
        uint8_t *buf = malloc(cap ? cap : 1u);

        CHECK(buf != NULL);
        if (buf == NULL)
            return;
        CHECK_EQ(mip_icmp_emit(&h, buf, cap), MIP_ERR_NOSPACE);
        free(buf);
    }
}

int main(void)
{
    RUN(test_icmpv4_parses_captured_echo_request);
    RUN(test_icmpv4_emit_and_finish_rebuild_captured_echo);
    RUN(test_icmpv4_echo_reply_from_request_keeps_checksum_valid);
    RUN(test_icmpv4_emit_parse_round_trip);
    RUN(test_icmpv4_rest_field_layout);
    RUN(test_icmpv4_rejects_every_truncation);
    RUN(test_icmpv4_emit_nospace_for_every_short_cap);
    return TESTING_DONE();
}
