/*
 * IPv6 fixed header codec: round trips, a captured Neighbor Solicitation,
 * and every truncation (run under ASan: each prefix is copied into a buffer
 * of exactly that size so a read past len is caught).
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/wire/ipv6.h"
#include "exact.h"
#include "ns_pkt.h"
#include "testing.h"


static void fill_hdr(struct mip_ipv6_hdr *h)
{
    size_t i;
    memset(h, 0, sizeof(*h));
    h->traffic_class = 0xB8;
    h->flow_label = 0xABCDEu;
    h->payload_len = 8;
    h->next_header = 17;
    h->hop_limit = 64;
    for (i = 0; i < 16; i++) {
        h->src[i] = (uint8_t)(0x10 + i);
        h->dst[i] = (uint8_t)(0xF0 - i);
    }
}

static void check_hdr_eq(const struct mip_ipv6_hdr *a, const struct mip_ipv6_hdr *b)
{
    CHECK_EQ(a->traffic_class, b->traffic_class);
    CHECK_EQ(a->flow_label, b->flow_label);
    CHECK_EQ(a->payload_len, b->payload_len);
    CHECK_EQ(a->next_header, b->next_header);
    CHECK_EQ(a->hop_limit, b->hop_limit);
    CHECK_MEM(a->src, b->src, 16);
    CHECK_MEM(a->dst, b->dst, 16);
}

static void test_ipv6_emit_parse_round_trip(void)
{
    struct mip_ipv6_hdr h, got;
    uint8_t buf[48] = {0};

    fill_hdr(&h);
    CHECK_EQ(mip_ipv6_emit(&h, buf, sizeof(buf)), MIP_OK);
    CHECK_EQ(mip_ipv6_parse(buf, sizeof(buf), &got), MIP_OK);
    check_hdr_eq(&h, &got);
}

static void test_ipv6_round_trip_extreme_field_values(void)
{
    static const uint8_t tcs[] = {0x00, 0x01, 0x0F, 0x10, 0xF0, 0xFF};
    static const uint32_t flows[] = {0u, 1u, 0xFFFFu, 0x10000u, 0xF0000u, 0xFFFFFu};
    struct mip_ipv6_hdr h, got;
    static uint8_t buf[40 + 65535u];
    size_t i, j;

    for (i = 0; i < sizeof(tcs); i++) {
        for (j = 0; j < sizeof(flows) / sizeof(flows[0]); j++) {
            fill_hdr(&h);
            h.traffic_class = tcs[i];
            h.flow_label = flows[j];
            h.payload_len = 0xFFFFu;
            h.hop_limit = 255;
            CHECK_EQ(mip_ipv6_emit(&h, buf, sizeof(buf)), MIP_OK);
            CHECK_EQ(buf[0] >> 4, 6);
            CHECK_EQ(mip_ipv6_parse(buf, sizeof(buf), &got), MIP_OK);
            check_hdr_eq(&h, &got);
        }
    }
}

/* mip_ipv6_emit_fields writes every byte of the 40 (over buffers dirty in
 * two ways) as mip_ipv6_emit does with flow label 0. */
static void test_ipv6_emit_fields_matches_emit(void)
{
    static const uint8_t tcs[] = {0x00, 0x0F, 0xB8, 0xFF};
    struct mip_ipv6_hdr h;
    uint8_t a[40], b[40];
    size_t i;

    for (i = 0; i < sizeof(tcs); i++) {
        fill_hdr(&h);
        h.flow_label = 0;
        h.traffic_class = tcs[i];
        h.payload_len = (uint16_t)(0x1234u + i);
        memset(a, 0xA5, sizeof(a));
        memset(b, 0x5A, sizeof(b));
        CHECK_EQ(mip_ipv6_emit(&h, a, sizeof(a)), MIP_OK);
        mip_ipv6_emit_fields(b, h.traffic_class, h.payload_len, h.next_header, h.hop_limit,
                             h.src, h.dst);
        CHECK_MEM(a, b, 40);
    }
}

static void test_ipv6_parse_captured_ns_header(void)
{
    static const uint8_t src[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0,
                                    0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};
    static const uint8_t dst[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0,
                                    0, 0, 0, 0x01, 0xff, 0x66, 0x77, 0x88};
    struct mip_ipv6_hdr h;
    uint8_t out[40];

    CHECK_EQ(mip_ipv6_parse(ns_pkt, sizeof(ns_pkt), &h), MIP_OK);
    CHECK_EQ(h.traffic_class, 0);
    CHECK_EQ(h.flow_label, 0);
    CHECK_EQ(h.payload_len, 32);
    CHECK_EQ(h.next_header, 58);
    CHECK_EQ(h.hop_limit, 255);
    CHECK_MEM(h.src, src, 16);
    CHECK_MEM(h.dst, dst, 16);

    CHECK_EQ(mip_ipv6_emit(&h, out, sizeof(out)), MIP_OK);
    CHECK_MEM(out, ns_pkt, 40);
}

static void test_ipv6_traffic_class_and_flow_label_bit_positions(void)
{
    /* version 6, TC 0xA5, flow 0x3C7E1 */
    static const uint8_t want[4] = {0x6A, 0x53, 0xC7, 0xE1};
    struct mip_ipv6_hdr h, got;
    uint8_t buf[41] = {0};

    fill_hdr(&h);
    h.traffic_class = 0xA5;
    h.flow_label = 0x3C7E1u;
    h.payload_len = 1;
    CHECK_EQ(mip_ipv6_emit(&h, buf, sizeof(buf)), MIP_OK);
    CHECK_MEM(buf, want, 4);
    CHECK_EQ(mip_ipv6_parse(buf, sizeof(buf), &got), MIP_OK);
    CHECK_EQ(got.traffic_class, 0xA5);
    CHECK_EQ(got.flow_label, 0x3C7E1u);
}

static void test_ipv6_parse_every_truncation_fails(void)
{
    struct mip_ipv6_hdr h;
    size_t n;

    for (n = 0; n < sizeof(ns_pkt); n++) {
        uint8_t *p = dup_exact(ns_pkt, n);
        CHECK(n == 0 || p != NULL);
        CHECK_EQ(mip_ipv6_parse(p, n, &h), MIP_ERR_TRUNCATED);
        free(p);
    }
}

static void test_ipv6_parse_bad_version_is_malformed(void)
{
    static const uint8_t versions[] = {0, 4, 5, 7, 15};
    uint8_t buf[72];
    struct mip_ipv6_hdr h;
    size_t i;

    for (i = 0; i < sizeof(versions); i++) {
        memcpy(buf, ns_pkt, sizeof(buf));
        buf[0] = (uint8_t)((versions[i] << 4) | (buf[0] & 0x0F));
        CHECK_EQ(mip_ipv6_parse(buf, sizeof(buf), &h), MIP_ERR_MALFORMED);
    }
}

static void test_ipv6_parse_zero_payload_len_is_unsupported(void)
{
    uint8_t buf[72];
    struct mip_ipv6_hdr h;

    memcpy(buf, ns_pkt, sizeof(buf));
    buf[4] = 0;
    buf[5] = 0;
    CHECK_EQ(mip_ipv6_parse(buf, sizeof(buf), &h), MIP_ERR_UNSUPPORTED);
    CHECK_EQ(mip_ipv6_parse(buf, 40, &h), MIP_ERR_UNSUPPORTED);
}

static void test_ipv6_parse_accepts_trailing_link_padding(void)
{
    uint8_t buf[80] = {0};
    struct mip_ipv6_hdr h;

    memcpy(buf, ns_pkt, sizeof(ns_pkt));
    CHECK_EQ(mip_ipv6_parse(buf, sizeof(buf), &h), MIP_OK);
    CHECK_EQ(h.payload_len, 32);
}

static void test_ipv6_emit_short_cap_is_nospace(void)
{
    struct mip_ipv6_hdr h;
    uint8_t buf[40];
    size_t cap;

    fill_hdr(&h);
    for (cap = 0; cap < 40; cap++) {
        memset(buf, 0xEE, sizeof(buf));
        CHECK_EQ(mip_ipv6_emit(&h, buf, cap), MIP_ERR_NOSPACE);
        CHECK_EQ(buf[0], 0xEE);
    }
}

static void test_ipv6_emit_flow_label_over_20_bits_is_invalid(void)
{
    struct mip_ipv6_hdr h;
    uint8_t buf[40];

    fill_hdr(&h);
    h.flow_label = 0x100000u;
    CHECK_EQ(mip_ipv6_emit(&h, buf, sizeof(buf)), MIP_ERR_INVALID);
}

int main(void)
{
    RUN(test_ipv6_emit_parse_round_trip);
    RUN(test_ipv6_round_trip_extreme_field_values);
    RUN(test_ipv6_emit_fields_matches_emit);
    RUN(test_ipv6_parse_captured_ns_header);
    RUN(test_ipv6_traffic_class_and_flow_label_bit_positions);
    RUN(test_ipv6_parse_every_truncation_fails);
    RUN(test_ipv6_parse_bad_version_is_malformed);
    RUN(test_ipv6_parse_zero_payload_len_is_unsupported);
    RUN(test_ipv6_parse_accepts_trailing_link_padding);
    RUN(test_ipv6_emit_short_cap_is_nospace);
    RUN(test_ipv6_emit_flow_label_over_20_bits_is_invalid);
    return TESTING_DONE();
}
