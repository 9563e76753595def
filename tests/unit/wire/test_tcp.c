/*
 * TCP fixed header codec (RFC 9293 3.1).
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/wire/tcp.h"
#include "exact.h"
#include "testing.h"

/* A SYN from Linux 6.x (curl to port 80): MSS 1460, SACK_PERM, TS, NOP,
 * WSCALE 7. */
static const uint8_t linux_syn[40] = {
    0xc6, 0x9e, 0x00, 0x50, 0x3b, 0x4f, 0x1a, 0x2c,
    0x00, 0x00, 0x00, 0x00, 0xa0, 0x02, 0xfa, 0xf0,
    0x5d, 0x3e, 0x00, 0x00,
    0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a,
    0x9c, 0x3d, 0x7e, 0x11, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x03, 0x03, 0x07,
};

static void test_tcp_parse_linux_syn(void)
{
    struct mip_tcp_hdr h;
    uint8_t out[20];

    CHECK_EQ(mip_tcp_parse(linux_syn, sizeof(linux_syn), &h), MIP_OK);
    CHECK_EQ(h.src_port, 50846);
    CHECK_EQ(h.dst_port, 80);
    CHECK_EQ(h.seq, 0x3b4f1a2cu);
    CHECK_EQ(h.ack, 0);
    CHECK_EQ(h.hdr_len, 40);
    CHECK_EQ(h.flags, MIP_TCP_SYN);
    CHECK_EQ(h.window, 64240);
    CHECK_EQ(h.checksum, 0x5d3e);
    CHECK_EQ(h.urgent, 0);

    CHECK_EQ(mip_tcp_emit(&h, out, sizeof(out)), MIP_OK);
    CHECK_MEM(out, linux_syn, 20);
}

static void test_tcp_emit_parse_round_trip_every_hdr_len_and_flag(void)
{
    struct mip_tcp_hdr h, got;
    uint8_t buf[60];
    unsigned hl, f;

    for (hl = 20; hl <= 60; hl += 4) {
        for (f = 0; f < 256; f++) {
            h.src_port = (uint16_t)(0xFFFF - f);
            h.dst_port = (uint16_t)(f << 8 | hl);
            h.seq = 0xFFFFFFFFu - f;
            h.ack = 0x80000000u | f;
            h.hdr_len = (uint8_t)hl;
            h.flags = (uint8_t)f;
            h.window = (uint16_t)(f * 257u);
            h.checksum = 0xBEEF;
            h.urgent = (uint16_t)(0x8000u | f);
            memset(&got, 0, sizeof(got));
            CHECK_EQ(mip_tcp_emit(&h, buf, sizeof(buf)), MIP_OK);
            CHECK_EQ(mip_tcp_parse(buf, hl, &got), MIP_OK);
            CHECK_EQ(got.src_port, h.src_port);
            CHECK_EQ(got.dst_port, h.dst_port);
            CHECK_EQ(got.seq, h.seq);
            CHECK_EQ(got.ack, h.ack);
            CHECK_EQ(got.hdr_len, h.hdr_len);
            CHECK_EQ(got.flags, h.flags);
            CHECK_EQ(got.window, h.window);
            CHECK_EQ(got.checksum, h.checksum);
            CHECK_EQ(got.urgent, h.urgent);
        }
    }
}

static void test_tcp_parse_every_truncation_fails(void)
{
    struct mip_tcp_hdr h;
    size_t n;

    for (n = 0; n < sizeof(linux_syn); n++) {
        uint8_t *p = dup_exact(linux_syn, n);
        CHECK(n == 0 || p != NULL);
        CHECK_EQ(mip_tcp_parse(p, n, &h), MIP_ERR_TRUNCATED);
        free(p);
    }
}

static void test_tcp_parse_data_offset_below_5_is_malformed(void)
{
    uint8_t buf[40];
    struct mip_tcp_hdr h;
    unsigned doff;

    for (doff = 0; doff < 5; doff++) {
        memcpy(buf, linux_syn, sizeof(buf));
        buf[12] = (uint8_t)(doff << 4);
        CHECK_EQ(mip_tcp_parse(buf, sizeof(buf), &h), MIP_ERR_MALFORMED);
    }
}

static void test_tcp_parse_ignores_reserved_bits(void)
{
    uint8_t buf[40];
    struct mip_tcp_hdr h;

    memcpy(buf, linux_syn, sizeof(buf));
    buf[12] |= 0x0F;
    CHECK_EQ(mip_tcp_parse(buf, sizeof(buf), &h), MIP_OK);
    CHECK_EQ(h.hdr_len, 40);
    CHECK_EQ(h.flags, MIP_TCP_SYN);
}

static void test_tcp_parse_accepts_payload_after_header(void)
{
    uint8_t buf[100] = {0};
    struct mip_tcp_hdr h;

    memcpy(buf, linux_syn, sizeof(linux_syn));
    CHECK_EQ(mip_tcp_parse(buf, sizeof(buf), &h), MIP_OK);
    CHECK_EQ(h.hdr_len, 40);
}

static void test_tcp_emit_short_cap_is_nospace(void)
{
    struct mip_tcp_hdr h = {1, 2, 3, 4, 20, MIP_TCP_ACK, 5, 0, 0};
    uint8_t buf[20];
    size_t cap;

    for (cap = 0; cap < 20; cap++) {
        memset(buf, 0xEE, sizeof(buf));
        CHECK_EQ(mip_tcp_emit(&h, buf, cap), MIP_ERR_NOSPACE);
        CHECK_EQ(buf[0], 0xEE);
    }
}

static void test_tcp_emit_bad_hdr_len_is_invalid(void)
{
    static const uint8_t bad[] = {0, 4, 16, 19, 21, 22, 23, 58, 61, 64, 255};
    struct mip_tcp_hdr h = {1, 2, 3, 4, 20, MIP_TCP_ACK, 5, 0, 0};
    uint8_t buf[60];
    size_t i;

    for (i = 0; i < sizeof(bad); i++) {
        h.hdr_len = bad[i];
        CHECK_EQ(mip_tcp_emit(&h, buf, sizeof(buf)), MIP_ERR_INVALID);
    }
}

int main(void)
{
    RUN(test_tcp_parse_linux_syn);
    RUN(test_tcp_emit_parse_round_trip_every_hdr_len_and_flag);
    RUN(test_tcp_parse_every_truncation_fails);
    RUN(test_tcp_parse_data_offset_below_5_is_malformed);
    RUN(test_tcp_parse_ignores_reserved_bits);
    RUN(test_tcp_parse_accepts_payload_after_header);
    RUN(test_tcp_emit_short_cap_is_nospace);
    RUN(test_tcp_emit_bad_hdr_len_is_invalid);
    return TESTING_DONE();
}
