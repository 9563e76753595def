/*
 * UDP header codec (RFC 768).
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/udp.h"
#include "exact.h"
#include "testing.h"

/* 192.168.0.1:1024 -> 192.168.0.199:53, payload "moteip!", checksum
 * computed independently (Python). */
static const uint8_t ip_src[4] = { 192, 168, 0, 1 };
static const uint8_t ip_dst[4] = { 192, 168, 0, 199 };
static const uint8_t datagram[15] = {
    0x04, 0x00, 0x00, 0x35, 0x00, 0x0f, 0x0d, 0x3d,
    'm', 'o', 't', 'e', 'i', 'p', '!',
};

static mip_status parse_exact(const uint8_t *buf, size_t len, struct mip_udp_hdr *out)
{
    uint8_t *copy = dup_exact(buf, len);
    mip_status st = copy != NULL ? mip_udp_parse(copy, len, out) : MIP_ERR_NOBUFS;

    free(copy);
    return st;
}

static void test_udp_parses_known_datagram(void)
{
    struct mip_udp_hdr h;
    uint32_t ph;

    CHECK_EQ(parse_exact(datagram, sizeof datagram, &h), MIP_OK);
    CHECK_EQ(h.src_port, 1024);
    CHECK_EQ(h.dst_port, 53);
    CHECK_EQ(h.length, sizeof datagram);
    CHECK_EQ(h.checksum, 0x0d3d);
    ph = mip_cksum_pseudo4(ip_src, ip_dst, 17, h.length);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(ph, datagram, h.length)), 0);
}

static void test_udp_emit_reproduces_known_datagram(void)
{
    struct mip_udp_hdr h = { 1024, 53, sizeof datagram, 0 };
    uint8_t buf[sizeof datagram];
    uint32_t ph;

    CHECK_EQ(mip_udp_emit(&h, buf, sizeof buf), MIP_OK);
    memcpy(buf + MIP_UDP_HDR_LEN, datagram + MIP_UDP_HDR_LEN, sizeof buf - MIP_UDP_HDR_LEN);
    ph = mip_cksum_pseudo4(ip_src, ip_dst, 17, h.length);
    mip_wr16(buf + 6, mip_cksum_finish(mip_cksum_add(ph, buf, sizeof buf)));
    CHECK_MEM(buf, datagram, sizeof buf);
}

static void test_udp_emit_parse_round_trip(void)
{
    static const struct mip_udp_hdr cases[] = {
        { 5683, 5683, 8, 0 },
        { 0xffff, 1, 0xffff, 0xffff },
        { 0, 0, 12, 0x8001 },
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct mip_udp_hdr out;
        size_t n = cases[i].length;
        uint8_t *buf = calloc(n + 1u, 1);

        CHECK(buf != NULL);
        if (buf == NULL)
            return;
        buf[MIP_UDP_HDR_LEN] = 0xEE;
        CHECK_EQ(mip_udp_emit(&cases[i], buf, n), MIP_OK);
        CHECK_EQ(buf[MIP_UDP_HDR_LEN], 0xEE);
        CHECK_EQ(mip_udp_parse(buf, n, &out), MIP_OK);
        CHECK_EQ(out.src_port, cases[i].src_port);
        CHECK_EQ(out.dst_port, cases[i].dst_port);
        CHECK_EQ(out.length, cases[i].length);
        CHECK_EQ(out.checksum, cases[i].checksum);
        free(buf);
    }
}

static void test_udp_rejects_every_truncation(void)
{
    struct mip_udp_hdr h;
    size_t len;

    for (len = 0; len < sizeof datagram; len++)
        CHECK_EQ(parse_exact(datagram, len, &h), MIP_ERR_TRUNCATED);
}

static void test_udp_rejects_length_below_header(void)
{
    uint8_t buf[sizeof datagram];
    struct mip_udp_hdr h;
    uint16_t length;

    memcpy(buf, datagram, sizeof buf);
    for (length = 0; length < MIP_UDP_HDR_LEN; length++) {
        mip_wr16(buf + 4, length);
        CHECK_EQ(parse_exact(buf, sizeof buf, &h), MIP_ERR_MALFORMED);
        CHECK_EQ(parse_exact(buf, MIP_UDP_HDR_LEN, &h), MIP_ERR_MALFORMED);
        CHECK_EQ(parse_exact(buf, MIP_UDP_HDR_LEN - 1u, &h), MIP_ERR_TRUNCATED);
    }
}

static void test_udp_rejects_length_beyond_buffer(void)
{
    uint8_t buf[sizeof datagram];
    struct mip_udp_hdr h;

    memcpy(buf, datagram, sizeof buf);
    mip_wr16(buf + 4, sizeof datagram + 1u);
    CHECK_EQ(parse_exact(buf, sizeof buf, &h), MIP_ERR_TRUNCATED);
    mip_wr16(buf + 4, 0xffff);
    CHECK_EQ(parse_exact(buf, sizeof buf, &h), MIP_ERR_TRUNCATED);
}

static void test_udp_accepts_trailing_padding(void)
{
    uint8_t buf[26];
    struct mip_udp_hdr h;

    memset(buf, 0, sizeof buf);
    memcpy(buf, datagram, sizeof datagram);
    CHECK_EQ(parse_exact(buf, sizeof buf, &h), MIP_OK);
    CHECK_EQ(h.length, sizeof datagram);
}

static void test_udp_emit_nospace_for_every_short_cap(void)
{
    struct mip_udp_hdr h = { 1, 2, 8, 0 };
    size_t cap;

    for (cap = 0; cap < MIP_UDP_HDR_LEN; cap++) {
        uint8_t *buf = malloc(cap ? cap : 1u);

        CHECK(buf != NULL);
        if (buf == NULL)
            return;
        CHECK_EQ(mip_udp_emit(&h, buf, cap), MIP_ERR_NOSPACE);
        free(buf);
    }
}

int main(void)
{
    RUN(test_udp_parses_known_datagram);
    RUN(test_udp_emit_reproduces_known_datagram);
    RUN(test_udp_emit_parse_round_trip);
    RUN(test_udp_rejects_every_truncation);
    RUN(test_udp_rejects_length_below_header);
    RUN(test_udp_rejects_length_beyond_buffer);
    RUN(test_udp_accepts_trailing_padding);
    RUN(test_udp_emit_nospace_for_every_short_cap);
    return TESTING_DONE();
}
