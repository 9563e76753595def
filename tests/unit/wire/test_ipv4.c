/*
 * IPv4 header codec (RFC 791).
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/wire/bytes.h"
#include "moteip/wire/ipv4.h"
#include "exact.h"
#include "testing.h"

/* The classic example header: UDP, 192.168.0.1 -> 192.168.0.199, DF,
 * total length 0x73 = 115, checksum 0xb861. */
static const uint8_t classic_hdr[20] = {
    0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
    0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
};
#define CLASSIC_TOTAL 115u

/* The classic header followed by a zero payload up to its total length. */
static void classic_packet(uint8_t pkt[CLASSIC_TOTAL])
{
    memset(pkt, 0, CLASSIC_TOTAL);
    memcpy(pkt, classic_hdr, sizeof classic_hdr);
}

/* Parses a copy of buf[0..len) in an exactly-sized heap block, so ASan
 * reports any read past len. */
static mip_status parse_exact(const uint8_t *buf, size_t len, struct mip_ipv4_hdr *out)
{
    uint8_t *copy = dup_exact(buf, len);
    mip_status st = copy != NULL ? mip_ipv4_parse(copy, len, out) : MIP_ERR_NOBUFS;

    free(copy);
    return st;
}

static void test_ipv4_parses_classic_header(void)
{
    static const uint8_t src[4] = { 192, 168, 0, 1 };
    static const uint8_t dst[4] = { 192, 168, 0, 199 };
    uint8_t pkt[CLASSIC_TOTAL];
    struct mip_ipv4_hdr h;

    classic_packet(pkt);
    CHECK_EQ(parse_exact(pkt, sizeof pkt, &h), MIP_OK);
    CHECK_EQ(h.hdr_len, 20);
    CHECK_EQ(h.tos, 0);
    CHECK_EQ(h.total_len, CLASSIC_TOTAL);
    CHECK_EQ(h.id, 0);
    CHECK_EQ(h.flags, MIP_IPV4_FLAG_DF);
    CHECK_EQ(h.frag_offset, 0);
    CHECK_EQ(h.ttl, 64);
    CHECK_EQ(h.proto, MIP_IPPROTO_UDP);
    CHECK_EQ(h.checksum, 0xb861);
    CHECK_MEM(h.src, src, 4);
    CHECK_MEM(h.dst, dst, 4);
    CHECK(mip_ipv4_checksum_ok(pkt, h.hdr_len));
}

static void test_ipv4_emit_reproduces_classic_header(void)
{
    struct mip_ipv4_hdr h;
    uint8_t pkt[CLASSIC_TOTAL];
    uint8_t buf[MIP_IPV4_HDR_LEN + 1];

    classic_packet(pkt);
    CHECK_EQ(mip_ipv4_parse(pkt, sizeof pkt, &h), MIP_OK);
    h.checksum = 0x1234; /* ignored: emit computes it */
    h.hdr_len = 44;      /* ignored: emit writes no options */
    memset(buf, 0xEE, sizeof buf);
    CHECK_EQ(mip_ipv4_emit(&h, buf, sizeof buf), MIP_OK);
    CHECK_MEM(buf, classic_hdr, MIP_IPV4_HDR_LEN);
    CHECK_EQ(buf[MIP_IPV4_HDR_LEN], 0xEE);
}

static void test_ipv4_emit_parse_round_trip_fragment(void)
{
    struct mip_ipv4_hdr in = {
        0, 0xb8, 1500, 0xbeef, MIP_IPV4_FLAG_MF, 1480, 1, MIP_IPPROTO_ICMP, 0,
        { 10, 1, 2, 3 }, { 255, 255, 255, 255 },
    };
    struct mip_ipv4_hdr out;
    uint8_t *pkt = calloc(1500, 1);

    CHECK(pkt != NULL);
    if (pkt == NULL)
        return;
    CHECK_EQ(mip_ipv4_emit(&in, pkt, 1500), MIP_OK);
    CHECK_EQ(mip_rd16(pkt + 6), 0x2000u | (1480u / 8u));
    CHECK_EQ(mip_ipv4_parse(pkt, 1500, &out), MIP_OK);
    CHECK_EQ(out.hdr_len, 20);
    CHECK_EQ(out.tos, in.tos);
    CHECK_EQ(out.total_len, in.total_len);
    CHECK_EQ(out.id, in.id);
    CHECK_EQ(out.flags, in.flags);
    CHECK_EQ(out.frag_offset, in.frag_offset);
    CHECK_EQ(out.ttl, in.ttl);
    CHECK_EQ(out.proto, in.proto);
    CHECK_EQ(out.checksum, mip_rd16(pkt + 10));
    CHECK_MEM(out.src, in.src, 4);
    CHECK_MEM(out.dst, in.dst, 4);
    CHECK(mip_ipv4_checksum_ok(pkt, out.hdr_len));
    free(pkt);
}

static void test_ipv4_round_trips_extreme_fields(void)
{
    struct mip_ipv4_hdr in = {
        0, 0xff, 0xffff, 0xffff, MIP_IPV4_FLAG_DF | MIP_IPV4_FLAG_MF, 0xfff8,
        0xff, 0xff, 0, { 255, 255, 255, 255 }, { 0, 0, 0, 0 },
    };
    struct mip_ipv4_hdr out;
    uint8_t *pkt = calloc(0xffff, 1);

    CHECK(pkt != NULL);
    if (pkt == NULL)
        return;
    CHECK_EQ(mip_ipv4_emit(&in, pkt, 0xffff), MIP_OK);
    CHECK_EQ(mip_ipv4_parse(pkt, 0xffff, &out), MIP_OK);
    CHECK_EQ(out.total_len, 0xffff);
    CHECK_EQ(out.flags, MIP_IPV4_FLAG_DF | MIP_IPV4_FLAG_MF);
    CHECK_EQ(out.frag_offset, 0xfff8);
    CHECK(mip_ipv4_checksum_ok(pkt, 20));
    free(pkt);
}

static void test_ipv4_rejects_every_truncation(void)
{
    uint8_t pkt[CLASSIC_TOTAL];
    struct mip_ipv4_hdr h;
    size_t len;

    classic_packet(pkt);
    for (len = 0; len < CLASSIC_TOTAL; len++)
        CHECK_EQ(parse_exact(pkt, len, &h), MIP_ERR_TRUNCATED);
}

static void test_ipv4_rejects_truncated_options(void)
{
    /* IHL 15: 60-byte header, total length 60 */
    uint8_t pkt[60];
    struct mip_ipv4_hdr h;
    size_t len;

    memset(pkt, 0x01, sizeof pkt); /* NOP options */
    memcpy(pkt, classic_hdr, 20);
    pkt[0] = 0x4f;
    mip_wr16(pkt + 2, 60);
    for (len = 0; len < sizeof pkt; len++)
        CHECK_EQ(parse_exact(pkt, len, &h), MIP_ERR_TRUNCATED);
    CHECK_EQ(parse_exact(pkt, sizeof pkt, &h), MIP_OK);
    CHECK_EQ(h.hdr_len, 60);
}

static void test_ipv4_accepts_link_padding(void)
{
    /* a 28-byte datagram in a 46-byte minimum Ethernet payload */
    uint8_t pkt[46];
    struct mip_ipv4_hdr h;

    memset(pkt, 0, sizeof pkt);
    memcpy(pkt, classic_hdr, 20);
    mip_wr16(pkt + 2, 28);
    CHECK_EQ(parse_exact(pkt, sizeof pkt, &h), MIP_OK);
    CHECK_EQ(h.total_len, 28);
}

/* Classic packet with one byte replaced, parsed at full length. */
static mip_status parse_with_byte(size_t off, uint8_t val)
{
    uint8_t pkt[CLASSIC_TOTAL];
    struct mip_ipv4_hdr h;

    classic_packet(pkt);
    pkt[off] = val;
    return parse_exact(pkt, sizeof pkt, &h);
}

static void test_ipv4_rejects_bad_version(void)
{
    CHECK_EQ(parse_with_byte(0, 0x65), MIP_ERR_MALFORMED);
    CHECK_EQ(parse_with_byte(0, 0x05), MIP_ERR_MALFORMED);
    CHECK_EQ(parse_with_byte(0, 0xf5), MIP_ERR_MALFORMED);
}

static void test_ipv4_rejects_ihl_below_5(void)
{
    uint8_t ihl;

    for (ihl = 0; ihl < 5; ihl++)
        CHECK_EQ(parse_with_byte(0, (uint8_t)(0x40u | ihl)), MIP_ERR_MALFORMED);
}

static void test_ipv4_rejects_total_len_below_header(void)
{
    uint8_t pkt[60];
    struct mip_ipv4_hdr h;
    uint16_t tl;

    memset(pkt, 0, sizeof pkt);
    memcpy(pkt, classic_hdr, 20);
    for (tl = 0; tl < 20; tl++) {
        mip_wr16(pkt + 2, tl);
        CHECK_EQ(parse_exact(pkt, 20, &h), MIP_ERR_MALFORMED);
    }
    pkt[0] = 0x46; /* 24-byte header */
    mip_wr16(pkt + 2, 23);
    CHECK_EQ(parse_exact(pkt, sizeof pkt, &h), MIP_ERR_MALFORMED);
    mip_wr16(pkt + 2, 24);
    CHECK_EQ(parse_exact(pkt, sizeof pkt, &h), MIP_OK);
}

static void test_ipv4_rejects_reserved_flag(void)
{
    CHECK_EQ(parse_with_byte(6, 0x80), MIP_ERR_MALFORMED);
    CHECK_EQ(parse_with_byte(6, 0xc0), MIP_ERR_MALFORMED);
    CHECK_EQ(parse_with_byte(6, 0x60), MIP_OK);
}

static void test_ipv4_checks_in_documented_order(void)
{
    uint8_t pkt[CLASSIC_TOTAL];
    struct mip_ipv4_hdr h;

    classic_packet(pkt);
    pkt[0] = 0x65;                                      /* bad version ... */
    CHECK_EQ(parse_exact(pkt, 19, &h), MIP_ERR_TRUNCATED); /* ... but short */
    CHECK_EQ(parse_exact(pkt, 20, &h), MIP_ERR_MALFORMED);
    classic_packet(pkt);
    pkt[0] = 0x4f;                                      /* IHL beyond len ... */
    mip_wr16(pkt + 2, 10);                              /* ... and bad total */
    CHECK_EQ(parse_exact(pkt, 40, &h), MIP_ERR_TRUNCATED);
    CHECK_EQ(parse_exact(pkt, 60, &h), MIP_ERR_MALFORMED);
    classic_packet(pkt);
    pkt[6] = 0x80;                                      /* reserved flag ... */
    CHECK_EQ(parse_exact(pkt, 100, &h), MIP_ERR_TRUNCATED); /* ... but short */
}

/* Options, one row per case: the option bytes after the fixed header
 * (IHL covers exactly them), the verdict and the octet it points at
 * (offset from the start of the header). */
static void test_ipv4_options_check_table(void)
{
    static const struct {
        const char *what;
        uint8_t len;
        uint8_t opt[40];
        mip_status want;
        uint8_t where;
    } rows[] = {
        {"padding", 4, {1, 1, 1, 0}, MIP_OK, 0},
        {"bytes after EOL are not looked at", 4, {0, 7, 0, 0}, MIP_OK, 0},
        {"record route", 8, {7, 7, 4, 0, 0, 0, 0, 1}, MIP_OK, 0},
        {"router alert", 4, {0x94, 4, 0, 0}, MIP_OK, 0},
        {"unknown option, ignored", 4, {0x9e, 4, 0xab, 0xcd}, MIP_OK, 0},
        {"one option filling 40 bytes", 40, {68, 40, 5, 0}, MIP_OK, 0},
        {"40 NOPs", 40, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                         1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
         MIP_OK, 0},
        {"length 0", 4, {68, 0, 0, 0}, MIP_ERR_MALFORMED, 21},
        {"length 1", 4, {7, 1, 0, 0}, MIP_ERR_MALFORMED, 21},
        {"length past the header", 8, {7, 9, 4, 0, 0, 0, 0, 0}, MIP_ERR_MALFORMED, 21},
        {"length 41 of 40", 40, {68, 41, 5, 0}, MIP_ERR_MALFORMED, 21},
        {"no length byte", 4, {1, 1, 1, 7}, MIP_ERR_MALFORMED, 23},
        {"bad after good", 8, {0x94, 4, 0, 0, 7, 0, 0, 0}, MIP_ERR_MALFORMED, 25},
        {"loose source route", 8, {0x83, 7, 4, 192, 0, 2, 1, 0}, MIP_ERR_UNSUPPORTED, 20},
        {"strict source route", 8, {0x89, 7, 4, 192, 0, 2, 1, 0}, MIP_ERR_UNSUPPORTED, 20},
        {"source route after NOP", 4, {1, 0x83, 3, 4}, MIP_ERR_UNSUPPORTED, 21},
        {"source route, bad length", 4, {0x83, 1, 0, 0}, MIP_ERR_MALFORMED, 21},
        {"source route past the header", 4, {0x89, 7, 4, 0}, MIP_ERR_MALFORMED, 21},
    };
    unsigned i;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        size_t hl = 20u + rows[i].len;
        uint8_t *h = malloc(hl), where = 0;
        mip_status st;
        struct mip_ipv4_hdr parsed;
        memcpy(h, classic_hdr, 20);
        h[0] = (uint8_t)(0x40u | (hl / 4u));
        mip_wr16(h + 2, (uint16_t)hl);
        memcpy(h + 20, rows[i].opt, rows[i].len);
        CHECK_EQ(mip_ipv4_parse(h, hl, &parsed), MIP_OK);
        st = mip_ipv4_options_check(h, parsed.hdr_len, &where);
        if (st == MIP_OK)
            where = 0;   /* meaningless then */
        if (st != rows[i].want || where != rows[i].where)
            fprintf(stderr, "row '%s': status %d at %u\n", rows[i].what, (int)st, where);
        CHECK_EQ(st, rows[i].want);
        CHECK_EQ(where, rows[i].where);
        free(h);
    }
}

static void test_ipv4_checksum_ok_detects_corruption(void)
{
    uint8_t hdr[20];
    size_t i;

    for (i = 0; i < sizeof hdr; i++) {
        memcpy(hdr, classic_hdr, sizeof hdr);
        hdr[i] ^= 0x04;
        CHECK(!mip_ipv4_checksum_ok(hdr, sizeof hdr));
    }
    CHECK(mip_ipv4_checksum_ok(classic_hdr, sizeof classic_hdr));
    CHECK(!mip_ipv4_checksum_ok(classic_hdr, 0));
    CHECK(!mip_ipv4_checksum_ok(classic_hdr, 19));
}

static void test_ipv4_emit_nospace_for_every_short_cap(void)
{
    struct mip_ipv4_hdr h;
    size_t cap;

    memset(&h, 0, sizeof h);
    h.total_len = 20;
    for (cap = 0; cap < MIP_IPV4_HDR_LEN; cap++) {
        uint8_t *buf = malloc(cap ? cap : 1u);

        CHECK(buf != NULL);
        if (buf == NULL)
            return;
        CHECK_EQ(mip_ipv4_emit(&h, buf, cap), MIP_ERR_NOSPACE);
        free(buf);
    }
}

static void test_ipv4_emit_refuses_unencodable_fields(void)
{
    struct mip_ipv4_hdr h;
    uint8_t buf[MIP_IPV4_HDR_LEN];

    memset(&h, 0, sizeof h);
    h.total_len = 20;
    CHECK_EQ(mip_ipv4_emit(&h, buf, sizeof buf), MIP_OK);
    h.frag_offset = 12; /* not a multiple of 8 */
    CHECK_EQ(mip_ipv4_emit(&h, buf, sizeof buf), MIP_ERR_INVALID);
    h.frag_offset = 0;
    h.flags = 0x4; /* the reserved bit */
    CHECK_EQ(mip_ipv4_emit(&h, buf, sizeof buf), MIP_ERR_INVALID);
    h.flags = 0;
    h.total_len = 19;
    CHECK_EQ(mip_ipv4_emit(&h, buf, sizeof buf), MIP_ERR_INVALID);
    /* cap is checked first */
    CHECK_EQ(mip_ipv4_emit(&h, buf, 4), MIP_ERR_NOSPACE);
}

int main(void)
{
    RUN(test_ipv4_parses_classic_header);
    RUN(test_ipv4_emit_reproduces_classic_header);
    RUN(test_ipv4_emit_parse_round_trip_fragment);
    RUN(test_ipv4_round_trips_extreme_fields);
    RUN(test_ipv4_rejects_every_truncation);
    RUN(test_ipv4_rejects_truncated_options);
    RUN(test_ipv4_accepts_link_padding);
    RUN(test_ipv4_rejects_bad_version);
    RUN(test_ipv4_rejects_ihl_below_5);
    RUN(test_ipv4_rejects_total_len_below_header);
    RUN(test_ipv4_rejects_reserved_flag);
    RUN(test_ipv4_checks_in_documented_order);
    RUN(test_ipv4_options_check_table);
    RUN(test_ipv4_checksum_ok_detects_corruption);
    RUN(test_ipv4_emit_nospace_for_every_short_cap);
    RUN(test_ipv4_emit_refuses_unencodable_fields);
    return TESTING_DONE();
}
