/*
 * RPL's data-plane headers: the Source Routing Header (RFC 6554) and the
 * RPL Option (RFC 6553, RFC 9008): known bytes, round trips, every
 * truncation, the RFC's length rules, and the swap a router does.
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/wire/rpl_ext.h"
#include "exact.h"
#include "testing.h"

/* fd00::1..fd00::n under one /64, and a node in another prefix. */
static void addr_of(uint8_t a[16], uint8_t prefix_byte, uint16_t id)
{
    memset(a, 0, 16);
    a[0] = 0xfd;
    a[1] = prefix_byte;
    a[14] = (uint8_t)(id >> 8);
    a[15] = (uint8_t)id;
}

/* RFC 6554 3 by hand: dst fd00::1, route fd00::2, fd00::3 (n = 2). All
 * share 15 octets: CmprI = CmprE = 15, one byte each, Pad 6. */
static const uint8_t srh_two[16] = {
    17, 1, 3, 2,          /* UDP, Hdr Ext Len 1 (16 bytes), type 3, SL 2 */
    0xFF, 0x60, 0, 0,     /* CmprI 15, CmprE 15, Pad 6 */
    0x02, 0x03, 0, 0, 0, 0, 0, 0,
};

static void test_srh_emit_known_bytes(void)
{
    uint8_t dst[16], route[2][16], buf[64];
    size_t len = 0;

    addr_of(dst, 0, 1);
    addr_of(route[0], 0, 2);
    addr_of(route[1], 0, 3);
    CHECK_EQ(mip_srh_emit_len(dst, (const uint8_t (*)[16])route, 2), 16);
    CHECK_EQ(mip_srh_emit(17, dst, (const uint8_t (*)[16])route, 2, buf, sizeof buf, &len),
             MIP_OK);
    CHECK_EQ(len, 16);
    CHECK_MEM(buf, srh_two, 16);
}

static void test_srh_parse_known_bytes(void)
{
    struct mip_srh h;
    uint8_t dst[16], a[16], want[16];

    CHECK_EQ(mip_srh_parse(srh_two, sizeof srh_two, &h), MIP_OK);
    CHECK_EQ(h.next_header, 17);
    CHECK_EQ(h.segments_left, 2);
    CHECK_EQ(h.cmpr_i, 15);
    CHECK_EQ(h.cmpr_e, 15);
    CHECK_EQ(h.pad, 6);
    CHECK_EQ(h.n, 2);
    CHECK_EQ(h.len, 16);
    addr_of(dst, 0, 1);
    CHECK_EQ(mip_srh_addr(&h, 1, dst, a), MIP_OK);
    addr_of(want, 0, 2);
    CHECK_MEM(a, want, 16);
    CHECK_EQ(mip_srh_addr(&h, 2, dst, a), MIP_OK);
    addr_of(want, 0, 3);
    CHECK_MEM(a, want, 16);
    CHECK_EQ(mip_srh_addr(&h, 0, dst, a), MIP_ERR_INVALID);
    CHECK_EQ(mip_srh_addr(&h, 3, dst, a), MIP_ERR_INVALID);
}

/* Every shorter buffer is TRUNCATED, read from an exact heap copy. */
static void test_srh_every_truncation(void)
{
    struct mip_srh h;
    size_t k;

    for (k = 0; k < sizeof srh_two; k++) {
        uint8_t *c = dup_exact(srh_two, k);
        CHECK_EQ(mip_srh_parse(c, k, &h), MIP_ERR_TRUNCATED);
        free(c);
    }
}

/* RFC 6554 3's arithmetic: a header whose sizes leave a remainder, or
 * too little room for Addresses[n] and Pad, is malformed. */
static void test_srh_length_rules(void)
{
    static const struct {
        uint8_t ext_len, cmpr, pad;
        mip_status want;
        uint16_t n;
    } rows[] = {
        {1, 0xFF, 6, MIP_OK, 2},            /* the known header */
        {1, 0xFF, 0, MIP_OK, 8},            /* 8 one-byte addresses */
        {1, 0xFF, 7, MIP_OK, 1},            /* one address, 7 of padding */
        {0, 0x00, 0, MIP_ERR_MALFORMED, 0}, /* no room for 16 bytes */
        {1, 0x00, 0, MIP_ERR_MALFORMED, 0},
        {2, 0x00, 8, MIP_ERR_MALFORMED, 0}, /* 16 + 8 of Pad in 16 */
        {2, 0x80, 0, MIP_OK, 1},            /* only Addresses[n], uncompressed */
        {3, 0x88, 0, MIP_OK, 3},            /* 24 bytes of 8-byte addresses */
        {3, 0x8F, 7, MIP_OK, 3},            /* two of 8 + one of 1, Pad 7 */
        {3, 0x8F, 6, MIP_ERR_MALFORMED, 0}, /* a byte left over */
        {4, 0x10, 0, MIP_ERR_MALFORMED, 0}, /* 16 left for 15-byte addresses */
        {4, 0x11, 2, MIP_OK, 2},            /* 2 * 15 + Pad 2 = 32 */
    };
    size_t r;

    for (r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        uint8_t buf[64] = {0};
        struct mip_srh h;
        mip_status st;

        buf[1] = rows[r].ext_len;
        buf[2] = MIP_SRH_TYPE;
        buf[3] = 1;
        buf[4] = rows[r].cmpr;
        buf[5] = (uint8_t)(rows[r].pad << 4);
        st = mip_srh_parse(buf, sizeof buf, &h);
        CHECK_EQ(st, rows[r].want);
        if (st == MIP_OK)
            CHECK_EQ(h.n, rows[r].n);
    }
}

static void test_srh_wrong_type_malformed(void)
{
    uint8_t buf[16];
    struct mip_srh h;

    memcpy(buf, srh_two, 16);
    buf[2] = 0;
    CHECK_EQ(mip_srh_parse(buf, sizeof buf, &h), MIP_ERR_MALFORMED);
}

/* A route across two prefixes compresses only what all share, and a
 * router's swaps walk it to the end, leaving the visited hops behind in
 * reverse (RFC 6554 4.2). */
static void test_srh_swaps_walk_the_route(void)
{
    uint8_t dst[16], route[4][16], buf[128], want[16];
    size_t len = 0;
    struct mip_srh h;
    uint16_t i, idx = 0;

    addr_of(dst, 0, 1);
    addr_of(route[0], 0, 0x102);
    addr_of(route[1], 0, 3);
    addr_of(route[2], 0, 4);
    addr_of(route[3], 0, 5);
    CHECK_EQ(mip_srh_emit(58, dst, (const uint8_t (*)[16])route, 4, buf, sizeof buf, &len),
             MIP_OK);
    CHECK_EQ(mip_srh_parse(buf, len, &h), MIP_OK);
    CHECK_EQ(h.cmpr_i, 14);
    CHECK_EQ(h.n, 4);
    CHECK_EQ(len, 16);
    for (i = 1; i <= 4; i++) {
        CHECK_EQ(mip_srh_parse(buf, len, &h), MIP_OK);
        CHECK_EQ(h.segments_left, 5 - i);
        CHECK_EQ(mip_srh_swap(buf, &h, dst, &idx), MIP_OK);
        CHECK_EQ(idx, i);
        CHECK_MEM(dst, route[i - 1], 16);
    }
    CHECK_EQ(mip_srh_parse(buf, len, &h), MIP_OK);
    CHECK_EQ(h.segments_left, 0);
    CHECK_EQ(mip_srh_swap(buf, &h, dst, &idx), MIP_ERR_INVALID);
    /* Slot 1 now holds the first destination, slot 4 the route's third. */
    CHECK_EQ(mip_srh_addr(&h, 1, dst, want), MIP_OK);
    addr_of(route[0], 0, 1);
    CHECK_MEM(want, route[0], 16);
    CHECK_EQ(mip_srh_addr(&h, 4, dst, want), MIP_OK);
    CHECK_MEM(want, route[2], 16);
}

static void test_srh_no_common_prefix(void)
{
    uint8_t dst[16], route[2][16], buf[64];
    size_t len = 0;
    struct mip_srh h;

    addr_of(dst, 0, 1);
    addr_of(route[0], 0, 2);
    addr_of(route[1], 0, 3);
    route[1][0] = 0x20;    /* 2000::/... shares nothing with fd00:: */
    CHECK_EQ(mip_srh_emit(17, dst, (const uint8_t (*)[16])route, 2, buf, sizeof buf, &len),
             MIP_OK);
    CHECK_EQ(len, 40);
    CHECK_EQ(mip_srh_parse(buf, len, &h), MIP_OK);
    CHECK_EQ(h.cmpr_i, 0);
    CHECK_EQ(h.cmpr_e, 0);
    CHECK_EQ(h.n, 2);
    CHECK_EQ(mip_srh_emit(17, dst, (const uint8_t (*)[16])route, 2, buf, 39, &len),
             MIP_ERR_NOSPACE);
    CHECK_EQ(mip_srh_emit(17, dst, (const uint8_t (*)[16])route, 0, buf, 64, &len),
             MIP_ERR_INVALID);
}

/* Segments Left above n: the swap refuses (the router answers with an ICMP
 * error before it gets there). */
static void test_srh_segments_left_above_n(void)
{
    uint8_t buf[16], dst[16];
    struct mip_srh h;
    uint16_t idx;

    memcpy(buf, srh_two, 16);
    buf[3] = 3;
    addr_of(dst, 0, 1);
    CHECK_EQ(mip_srh_parse(buf, sizeof buf, &h), MIP_OK);
    CHECK_EQ(mip_srh_swap(buf, &h, dst, &idx), MIP_ERR_INVALID);
    CHECK_EQ(buf[3], 3);
}

/* --- RPL Option ------------------------------------------------------------ */

static void test_rpl_hbh_known_bytes(void)
{
    static const uint8_t want[8] = {58, 0, 0x23, 4, 0x80, 30, 0x02, 0x00};
    struct mip_rpi o = {true, false, false, 30, 512};
    struct mip_rpi back;
    uint8_t buf[8];

    CHECK_EQ(mip_rpi_hbh_emit(58, MIP_RPI_TYPE, &o, buf, sizeof buf), MIP_OK);
    CHECK_MEM(buf, want, 8);
    CHECK_EQ(mip_rpi_parse(buf + 2, 6, &back), MIP_OK);
    CHECK(back.down && !back.rank_error && !back.fwd_error);
    CHECK_EQ(back.instance, 30);
    CHECK_EQ(back.sender_rank, 512);
    CHECK_EQ(mip_rpi_hbh_emit(58, 0x22, &o, buf, sizeof buf), MIP_ERR_INVALID);
    CHECK_EQ(mip_rpi_hbh_emit(58, MIP_RPI_TYPE, &o, buf, 7), MIP_ERR_NOSPACE);
}

static void test_rpl_opt_flags_round_trip(void)
{
    unsigned bits;

    for (bits = 0; bits < 8; bits++) {
        struct mip_rpi o = {(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0, 1, 0xFFFF};
        struct mip_rpi back;
        uint8_t buf[8];

        CHECK_EQ(mip_rpi_hbh_emit(17, MIP_RPI_TYPE_6553, &o, buf, sizeof buf), MIP_OK);
        CHECK_EQ(mip_rpi_parse(buf + 2, 6, &back), MIP_OK);
        CHECK_EQ(back.down, o.down);
        CHECK_EQ(back.rank_error, o.rank_error);
        CHECK_EQ(back.fwd_error, o.fwd_error);
        CHECK_EQ(back.sender_rank, 0xFFFF);
    }
}

/* Unassigned flags are ignored and kept; sub-TLVs after the four bytes
 * are skipped; fewer than four bytes are malformed. */
static void test_rpl_opt_lengths_and_reserved(void)
{
    uint8_t opt[10] = {0x63, 8, 0x1F, 7, 0x01, 0x00, 1, 2, 3, 4};
    struct mip_rpi o;
    size_t k;

    CHECK_EQ(mip_rpi_parse(opt, sizeof opt, &o), MIP_OK);
    CHECK(!o.down && !o.rank_error && !o.fwd_error);
    CHECK_EQ(o.instance, 7);
    CHECK_EQ(o.sender_rank, 256);
    o.rank_error = true;
    mip_rpi_update(opt, &o);
    CHECK_EQ(opt[2], 0x5F);
    for (k = 0; k < sizeof opt; k++) {
        uint8_t *c = dup_exact(opt, k);
        CHECK_EQ(mip_rpi_parse(c, k, &o), MIP_ERR_TRUNCATED);
        free(c);
    }
    opt[1] = 3;
    CHECK_EQ(mip_rpi_parse(opt, sizeof opt, &o), MIP_ERR_MALFORMED);
    opt[1] = 4;
    opt[0] = 0x24;
    CHECK_EQ(mip_rpi_parse(opt, sizeof opt, &o), MIP_ERR_MALFORMED);
}

int main(void)
{
    RUN(test_srh_emit_known_bytes);
    RUN(test_srh_parse_known_bytes);
    RUN(test_srh_every_truncation);
    RUN(test_srh_length_rules);
    RUN(test_srh_wrong_type_malformed);
    RUN(test_srh_swaps_walk_the_route);
    RUN(test_srh_no_common_prefix);
    RUN(test_srh_segments_left_above_n);
    RUN(test_rpl_hbh_known_bytes);
    RUN(test_rpl_opt_flags_round_trip);
    RUN(test_rpl_opt_lengths_and_reserved);
    return TESTING_DONE();
}
