/*
 * TCP options codec: MSS (RFC 9293), WSCALE and TIMESTAMP (RFC 7323),
 * SACK_PERM and SACK (RFC 2018).
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/wire/tcp.h"
#include "exact.h"
#include "testing.h"

/* Option area of a Linux SYN: MSS 1460, SACK_PERM, TS, NOP, WSCALE 7. */
static const uint8_t linux_syn_opts[20] = {
    0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a,
    0x9c, 0x3d, 0x7e, 0x11, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x03, 0x03, 0x07,
};
/* Offsets where an option (or NOP) ends: valid shorter option areas. */
static const size_t linux_syn_bounds[] = {0, 4, 6, 16, 17, 20};

static void test_tcp_opts_parse_linux_syn(void)
{
    struct mip_tcp_opts o;

    CHECK_EQ(mip_tcp_opts_parse(linux_syn_opts, sizeof(linux_syn_opts), &o), MIP_OK);
    CHECK_EQ(o.present, MIP_TCP_HAS_MSS | MIP_TCP_HAS_SACK_PERM | MIP_TCP_HAS_TIMESTAMP |
                        MIP_TCP_HAS_WSCALE);
    CHECK_EQ(o.mss, 1460);
    CHECK_EQ(o.wscale, 7);
    CHECK_EQ(o.ts_val, 0x9c3d7e11u);
    CHECK_EQ(o.ts_ecr, 0);
    CHECK_EQ(o.sack_count, 0);
}

static void test_tcp_opts_emit_syn_known_bytes(void)
{
    static const uint8_t want[20] = {
        0x02, 0x04, 0x05, 0xb4, 0x01, 0x03, 0x03, 0x07,
        0x04, 0x02, 0x08, 0x0a, 0x9c, 0x3d, 0x7e, 0x11,
        0x00, 0x00, 0x00, 0x00,
    };
    struct mip_tcp_opts o;
    uint8_t buf[40];
    size_t n = 0;

    CHECK_EQ(mip_tcp_opts_parse(linux_syn_opts, sizeof(linux_syn_opts), &o), MIP_OK);
    CHECK_EQ(mip_tcp_opts_len(&o), 20);
    CHECK_EQ(mip_tcp_opts_emit(&o, buf, sizeof(buf), &n), MIP_OK);
    CHECK_EQ(n, 20);
    CHECK_MEM(buf, want, 20);
}

static void test_tcp_opts_emit_ack_with_ts_and_sack_known_bytes(void)
{
    static const uint8_t want[28] = {
        0x01, 0x01, 0x08, 0x0a, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,
        0x01, 0x01, 0x05, 0x0a, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x20, 0x00,
        /* padding check: nothing more */
        0xEE, 0xEE, 0xEE, 0xEE,
    };
    struct mip_tcp_opts o;
    uint8_t buf[28];
    size_t n = 0;

    memset(&o, 0, sizeof(o));
    memset(buf, 0xEE, sizeof(buf));
    o.present = MIP_TCP_HAS_TIMESTAMP | MIP_TCP_HAS_SACK;
    o.ts_val = 1;
    o.ts_ecr = 2;
    o.sack_count = 1;
    o.sack[0].left = 0x1000;
    o.sack[0].right = 0x2000;
    CHECK_EQ(mip_tcp_opts_emit(&o, buf, sizeof(buf), &n), MIP_OK);
    CHECK_EQ(n, 24);
    CHECK_MEM(buf, want, 28);
}

static size_t sack_fit(uint8_t present)
{
    size_t used = 0;

    if (present & MIP_TCP_HAS_MSS)
        used += 4;
    if (present & MIP_TCP_HAS_WSCALE)
        used += 4;
    if (present & MIP_TCP_HAS_TIMESTAMP)
        used += 12;
    else if (present & MIP_TCP_HAS_SACK_PERM)
        used += 4;
    return used + 12 > 40 ? 0 : (40 - used - 4) / 8;
}

static void check_round_trip(uint8_t present, uint8_t sack_count)
{
    struct mip_tcp_opts o, got;
    uint8_t buf[40];
    size_t n = 0, want_sack, i;

    memset(&o, 0, sizeof(o));
    o.present = present;
    o.mss = (uint16_t)(536u + present);
    o.wscale = (uint8_t)(present & 0x0F);
    o.ts_val = 0xA1B2C3D4u ^ present;
    o.ts_ecr = 0x01020304u + sack_count;
    o.sack_count = sack_count;
    for (i = 0; i < MIP_TCP_SACK_MAX; i++) {
        o.sack[i].left = 0x10000000u * (uint32_t)(i + 1) + present;
        o.sack[i].right = o.sack[i].left + 1460u;
    }

    CHECK_EQ(mip_tcp_opts_emit(&o, buf, sizeof(buf), &n), MIP_OK);
    CHECK_EQ(n, mip_tcp_opts_len(&o));
    CHECK_EQ(n % 4, 0);
    CHECK(n <= 40);
    CHECK_EQ(mip_tcp_opts_parse(buf, n, &got), MIP_OK);

    want_sack = (present & MIP_TCP_HAS_SACK) ? sack_count : 0;
    if (want_sack > sack_fit(present))
        want_sack = sack_fit(present);
    CHECK_EQ(got.sack_count, want_sack);
    CHECK_EQ(got.present, want_sack ? present : (present & (uint8_t)~MIP_TCP_HAS_SACK));
    if (present & MIP_TCP_HAS_MSS)
        CHECK_EQ(got.mss, o.mss);
    if (present & MIP_TCP_HAS_WSCALE)
        CHECK_EQ(got.wscale, o.wscale);
    if (present & MIP_TCP_HAS_TIMESTAMP) {
        CHECK_EQ(got.ts_val, o.ts_val);
        CHECK_EQ(got.ts_ecr, o.ts_ecr);
    }
    for (i = 0; i < want_sack; i++) {
        CHECK_EQ(got.sack[i].left, o.sack[i].left);
        CHECK_EQ(got.sack[i].right, o.sack[i].right);
    }
}

static void test_tcp_opts_round_trip_every_combination(void)
{
    unsigned present, sc;

    for (present = 0; present < 32; present++) {
        if (present & MIP_TCP_HAS_SACK) {
            for (sc = 1; sc <= MIP_TCP_SACK_MAX; sc++)
                check_round_trip((uint8_t)present, (uint8_t)sc);
        } else {
            check_round_trip((uint8_t)present, 0);
        }
    }
}

static void test_tcp_opts_emit_drops_sack_blocks_that_do_not_fit(void)
{
    struct mip_tcp_opts o;

    memset(&o, 0, sizeof(o));
    o.present = MIP_TCP_HAS_SACK;
    o.sack_count = 4;
    CHECK_EQ(mip_tcp_opts_len(&o), 36);
    o.present |= MIP_TCP_HAS_TIMESTAMP;
    CHECK_EQ(mip_tcp_opts_len(&o), 12 + 4 + 3 * 8);
    o.present = 0x1F;
    CHECK_EQ(mip_tcp_opts_len(&o), 4 + 4 + 12 + 4 + 2 * 8);
    o.present = MIP_TCP_HAS_SACK;
    o.sack_count = 0;
    CHECK_EQ(mip_tcp_opts_len(&o), 0);
    o.sack_count = 200;   /* out of contract: clamped, never read past sack[] */
    CHECK_EQ(mip_tcp_opts_len(&o), 36);
}

static void test_tcp_opts_emit_nothing(void)
{
    struct mip_tcp_opts o;
    uint8_t buf[1];
    size_t n = 99;

    memset(&o, 0, sizeof(o));
    CHECK_EQ(mip_tcp_opts_len(&o), 0);
    CHECK_EQ(mip_tcp_opts_emit(&o, buf, 0, &n), MIP_OK);
    CHECK_EQ(n, 0);
}

static void test_tcp_opts_emit_short_cap_is_nospace(void)
{
    struct mip_tcp_opts o;
    uint8_t buf[40];
    size_t cap, n;

    memset(&o, 0, sizeof(o));
    o.present = MIP_TCP_HAS_MSS | MIP_TCP_HAS_WSCALE | MIP_TCP_HAS_SACK_PERM |
                MIP_TCP_HAS_TIMESTAMP;
    for (cap = 0; cap < mip_tcp_opts_len(&o); cap++) {
        memset(buf, 0xEE, sizeof(buf));
        n = 99;
        CHECK_EQ(mip_tcp_opts_emit(&o, buf, cap, &n), MIP_ERR_NOSPACE);
        CHECK_EQ(n, 0);
        CHECK_EQ(buf[0], 0xEE);
    }
}

static void test_tcp_opts_eol_ends_parsing(void)
{
    static const uint8_t opts[12] = {0x02, 0x04, 0x05, 0xb4, 0x00,
                                     0x03, 0x00, 0xFF, 0x08, 0x00, 0x00, 0x00};
    struct mip_tcp_opts o;

    CHECK_EQ(mip_tcp_opts_parse(opts, sizeof(opts), &o), MIP_OK);
    CHECK_EQ(o.present, MIP_TCP_HAS_MSS);
    CHECK_EQ(o.mss, 1460);
}

static void test_tcp_opts_nops_are_skipped(void)
{
    static const uint8_t opts[12] = {1, 1, 1, 0x03, 0x03, 0x0e, 1, 1, 1, 1, 1, 1};
    struct mip_tcp_opts o;

    CHECK_EQ(mip_tcp_opts_parse(opts, sizeof(opts), &o), MIP_OK);
    CHECK_EQ(o.present, MIP_TCP_HAS_WSCALE);
    CHECK_EQ(o.wscale, 14);
}

static void test_tcp_opts_unknown_are_skipped_by_length(void)
{
    /* MPTCP MP_CAPABLE (30, len 4), TFO cookie (34, len 10), kind 254 len 2 */
    static const uint8_t opts[24] = {30, 4, 0x01, 0x81, 34, 10, 1, 2, 3, 4, 5, 6, 7, 8,
                                     254, 2, 0x02, 0x04, 0x02, 0x18, 1, 1, 1, 0};
    struct mip_tcp_opts o;

    CHECK_EQ(mip_tcp_opts_parse(opts, sizeof(opts), &o), MIP_OK);
    CHECK_EQ(o.present, MIP_TCP_HAS_MSS);
    CHECK_EQ(o.mss, 536);
}

/* An option length of 0 or 1 cannot cover its own kind and length bytes
 * (RFC 9293 s.3.1): malformed for every kind with a length byte. */
static void test_tcp_opts_length_below_two_is_malformed(void)
{
    static const uint8_t kinds[] = {2, 3, 4, 5, 8, 30, 254};
    uint8_t opts[8], len;
    struct mip_tcp_opts o;
    size_t i;

    for (len = 0; len < 2; len++) {
        for (i = 0; i < sizeof(kinds); i++) {
            memset(opts, 1, sizeof(opts));
            opts[2] = kinds[i];
            opts[3] = len;
            CHECK_EQ(mip_tcp_opts_parse(opts, sizeof(opts), &o), MIP_ERR_MALFORMED);
        }
    }
}

static void test_tcp_opts_overlong_length_is_malformed(void)
{
    static const uint8_t kinds[] = {2, 3, 4, 5, 8, 30, 254};
    uint8_t opts[8];
    struct mip_tcp_opts o;
    size_t i;

    for (i = 0; i < sizeof(kinds); i++) {
        memset(opts, 1, sizeof(opts));
        opts[4] = kinds[i];
        opts[5] = 5;   /* 4 bytes left */
        CHECK_EQ(mip_tcp_opts_parse(opts, sizeof(opts), &o), MIP_ERR_MALFORMED);
        opts[5] = 255;
        CHECK_EQ(mip_tcp_opts_parse(opts, sizeof(opts), &o), MIP_ERR_MALFORMED);
        /* kind in the last byte, no room for its length */
        memset(opts, 1, sizeof(opts));
        opts[7] = kinds[i];
        CHECK_EQ(mip_tcp_opts_parse(opts, sizeof(opts), &o), MIP_ERR_MALFORMED);
    }
}

static void test_tcp_opts_known_option_wrong_length_is_malformed(void)
{
    static const struct { uint8_t kind, len; } bad[] = {
        {2, 2}, {2, 3}, {2, 5}, {2, 6}, {3, 2}, {3, 4}, {4, 3}, {4, 4},
        {8, 2}, {8, 8}, {8, 11}, {8, 12},
    };
    uint8_t opts[40];
    struct mip_tcp_opts o;
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memset(opts, 0, sizeof(opts));
        opts[0] = bad[i].kind;
        opts[1] = bad[i].len;
        CHECK_EQ(mip_tcp_opts_parse(opts, sizeof(opts), &o), MIP_ERR_MALFORMED);
    }
}

static void test_tcp_opts_bad_sack_lengths_are_malformed(void)
{
    uint8_t opts[40];
    struct mip_tcp_opts o;
    unsigned l;

    for (l = 2; l <= 40; l++) {
        mip_status want = ((l - 2) % 8 == 0 && l >= 10) ? MIP_OK : MIP_ERR_MALFORMED;
        memset(opts, 0, sizeof(opts));
        opts[0] = MIP_TCP_OPT_SACK;
        opts[1] = (uint8_t)l;
        CHECK_EQ(mip_tcp_opts_parse(opts, sizeof(opts), &o), want);
        if (want == MIP_OK)
            CHECK_EQ(o.sack_count, (l - 2) / 8);
    }
}

static void test_tcp_opts_area_over_40_is_invalid(void)
{
    uint8_t opts[44];
    struct mip_tcp_opts o;

    memset(opts, 1, sizeof(opts));
    CHECK_EQ(mip_tcp_opts_parse(opts, 40, &o), MIP_OK);
    CHECK_EQ(mip_tcp_opts_parse(opts, 41, &o), MIP_ERR_INVALID);
}

/* Cut inside an option: MALFORMED; cut at an option boundary: a valid,
 * shorter option area. Copies make ASan catch any read past len. */
static void test_tcp_opts_every_truncation_of_linux_syn(void)
{
    struct mip_tcp_opts o;
    size_t n, b;

    for (n = 0; n < sizeof(linux_syn_opts); n++) {
        uint8_t *p = dup_exact(linux_syn_opts, n);
        bool boundary = false;

        for (b = 0; b < sizeof(linux_syn_bounds) / sizeof(linux_syn_bounds[0]); b++)
            boundary = boundary || linux_syn_bounds[b] == n;
        CHECK_EQ(mip_tcp_opts_parse(p, n, &o), boundary ? MIP_OK : MIP_ERR_MALFORMED);
        free(p);
    }
}

static void test_tcp_opts_every_truncation_of_each_option(void)
{
    struct mip_tcp_opts full, o;
    uint8_t buf[40];
    size_t n, len, cut;

    /* One option at a time, emitted without its NOP padding. */
    memset(&full, 0, sizeof(full));
    full.present = MIP_TCP_HAS_SACK;
    full.sack_count = 4;
    CHECK_EQ(mip_tcp_opts_emit(&full, buf, sizeof(buf), &len), MIP_OK);
    {
        static const uint8_t mss[4] = {2, 4, 0x05, 0xb4};
        static const uint8_t ws[3] = {3, 3, 7};
        static const uint8_t sp[2] = {4, 2};
        static const uint8_t ts[10] = {8, 10, 1, 2, 3, 4, 5, 6, 7, 8};
        const uint8_t *opts[5] = {mss, ws, sp, ts, buf + 2};
        const size_t lens[5] = {4, 3, 2, 10, 34};

        for (n = 0; n < 5; n++) {
            CHECK_EQ(mip_tcp_opts_parse(opts[n], lens[n], &o), MIP_OK);
            CHECK(o.present != 0);
            for (cut = 1; cut < lens[n]; cut++) {
                uint8_t *p = dup_exact(opts[n], cut);
                CHECK_EQ(mip_tcp_opts_parse(p, cut, &o), MIP_ERR_MALFORMED);
                free(p);
            }
        }
    }
}

static void test_tcp_opts_wscale_any_value_round_trips(void)
{
    struct mip_tcp_opts o, got;
    uint8_t buf[4];
    size_t n;
    unsigned v;

    for (v = 0; v < 256; v++) {
        memset(&o, 0, sizeof(o));
        o.present = MIP_TCP_HAS_WSCALE;
        o.wscale = (uint8_t)v;
        CHECK_EQ(mip_tcp_opts_emit(&o, buf, sizeof(buf), &n), MIP_OK);
        CHECK_EQ(mip_tcp_opts_parse(buf, n, &got), MIP_OK);
        CHECK_EQ(got.wscale, v);
    }
}

/* The timestamp-only area (RFC 7323 appendix A: NOP NOP TIMESTAMP), which
 * parse and emit take in one step, gives what the walk gives for the same
 * option laid out otherwise; emitted, it is exactly those 12 bytes, and 11
 * bytes of room are too few. */
static void test_tcp_opts_timestamp_only_layout(void)
{
    static const uint8_t appx_a[12] = { 0x01, 0x01, 0x08, 0x0a, 0x12, 0x34, 0x56, 0x78,
                                        0x9a, 0xbc, 0xde, 0xf0 };
    static const uint8_t trailing[12] = { 0x08, 0x0a, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc,
                                          0xde, 0xf0, 0x01, 0x01 };
    struct mip_tcp_opts a, b;
    uint8_t buf[12];
    size_t n = 0;

    CHECK_EQ(mip_tcp_opts_parse(appx_a, sizeof appx_a, &a), MIP_OK);
    CHECK_EQ(mip_tcp_opts_parse(trailing, sizeof trailing, &b), MIP_OK);
    CHECK_EQ(a.present, MIP_TCP_HAS_TIMESTAMP);
    CHECK_EQ(a.ts_val, 0x12345678u);
    CHECK_EQ(a.ts_ecr, 0x9abcdef0u);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    /* the same lead with one byte more or less is walked, not taken whole */
    CHECK_EQ(mip_tcp_opts_parse(appx_a, 11, &b), MIP_ERR_MALFORMED);
    CHECK_EQ(mip_tcp_opts_emit(&a, buf, sizeof buf, &n), MIP_OK);
    CHECK_EQ(n, 12);
    CHECK(memcmp(buf, appx_a, sizeof buf) == 0);
    n = 99;
    CHECK_EQ(mip_tcp_opts_emit(&a, buf, 11, &n), MIP_ERR_NOSPACE);
    CHECK_EQ(n, 0);
}

int main(void)
{
    RUN(test_tcp_opts_parse_linux_syn);
    RUN(test_tcp_opts_emit_syn_known_bytes);
    RUN(test_tcp_opts_emit_ack_with_ts_and_sack_known_bytes);
    RUN(test_tcp_opts_round_trip_every_combination);
    RUN(test_tcp_opts_emit_drops_sack_blocks_that_do_not_fit);
    RUN(test_tcp_opts_emit_nothing);
    RUN(test_tcp_opts_emit_short_cap_is_nospace);
    RUN(test_tcp_opts_eol_ends_parsing);
    RUN(test_tcp_opts_nops_are_skipped);
    RUN(test_tcp_opts_unknown_are_skipped_by_length);
    RUN(test_tcp_opts_length_below_two_is_malformed);
    RUN(test_tcp_opts_overlong_length_is_malformed);
    RUN(test_tcp_opts_known_option_wrong_length_is_malformed);
    RUN(test_tcp_opts_bad_sack_lengths_are_malformed);
    RUN(test_tcp_opts_area_over_40_is_invalid);
    RUN(test_tcp_opts_every_truncation_of_linux_syn);
    RUN(test_tcp_opts_every_truncation_of_each_option);
    RUN(test_tcp_opts_wscale_any_value_round_trips);
    RUN(test_tcp_opts_timestamp_only_layout);
    return TESTING_DONE();
}
