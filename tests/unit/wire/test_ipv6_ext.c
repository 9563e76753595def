/*
 * IPv6 extension-header walk (RFC 8200 4) and Fragment header emit.
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/wire/ipv6.h"
#include "exact.h"
#include "testing.h"

#define NH_UDP  17u
#define NH_ICMP 58u

/* A packet under construction: fixed header, then extension headers; nh_at
 * is the Next Header byte that the next header appended will be named by. */
struct chain {
    uint8_t b[2048];
    size_t len;
    size_t nh_at;
};

static void chain_init(struct chain *c)
{
    memset(c, 0, sizeof(*c));
    c->b[0] = 0x60;
    c->b[7] = 64;
    c->len = 40;
    c->nh_at = 6;
}

/* Appends a header with a 2-byte nh/len prefix; 2 + body_len is a
 * multiple of 8. Returns its offset. */
static size_t chain_add(struct chain *c, uint8_t type, const uint8_t *body, size_t body_len)
{
    size_t at = c->len;

    c->b[c->nh_at] = type;
    c->b[at + 1] = (uint8_t)((body_len + 2u) / 8u - 1u);
    memcpy(c->b + at + 2, body, body_len);
    c->nh_at = at;
    c->len += body_len + 2u;
    return at;
}

static size_t chain_add_frag(struct chain *c, uint16_t off, bool more, uint32_t id)
{
    size_t at = c->len;

    c->b[c->nh_at] = MIP_IPV6_NH_FRAGMENT;
    CHECK_EQ(mip_ipv6_frag_emit(0, off, more, id, c->b + at, 8), MIP_OK);
    c->nh_at = at;
    c->len += 8u;
    return at;
}

static void chain_end(struct chain *c, uint8_t upper, size_t upper_bytes)
{
    size_t payload;

    c->b[c->nh_at] = upper;
    c->len += upper_bytes;
    payload = c->len - 40u;
    c->b[4] = (uint8_t)(payload >> 8);
    c->b[5] = (uint8_t)payload;
}

static const uint8_t pad6[6] = {1, 4, 0, 0, 0, 0};          /* PadN, 4 bytes */
static const uint8_t pad1x6[6] = {0, 0, 0, 0, 0, 0};        /* six Pad1 */
static const uint8_t rt0_body[6] = {3, 0, 0, 0, 0, 0};      /* RPL SRH, segments left 0 */

static mip_status walk(const struct chain *c, struct mip_ipv6_walk *w)
{
    return mip_ipv6_walk_ext(c->b, c->len, c->b[6], 40, true, w);
}

static void test_ext_none_upper_follows_fixed_header(void)
{
    struct chain c;
    struct mip_ipv6_walk w;

    chain_init(&c);
    chain_end(&c, NH_ICMP, 8);
    CHECK_EQ(walk(&c, &w), MIP_OK);
    CHECK_EQ(w.upper_proto, NH_ICMP);
    CHECK_EQ(w.upper_offset, 40);
    CHECK_EQ(w.upper_nh_offset, 6);
    CHECK(!w.has_frag);
    CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_NONE);
}

static void test_ext_chain_hbh_dst_routing_dst_reaches_udp(void)
{
    uint8_t dst_big[14] = {1, 12, 0};   /* 16-byte header, one PadN */
    struct chain c;
    struct mip_ipv6_walk w;
    size_t last;

    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_HOPOPTS, pad6, sizeof(pad6));
    chain_add(&c, MIP_IPV6_NH_DSTOPTS, dst_big, sizeof(dst_big));
    chain_add(&c, MIP_IPV6_NH_ROUTING, rt0_body, sizeof(rt0_body));
    last = chain_add(&c, MIP_IPV6_NH_DSTOPTS, pad1x6, sizeof(pad1x6));
    chain_end(&c, NH_UDP, 8);

    CHECK_EQ(walk(&c, &w), MIP_OK);
    CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_NONE);
    CHECK_EQ(w.upper_proto, NH_UDP);
    CHECK_EQ(w.upper_offset, 40 + 8 + 16 + 8 + 8);
    CHECK_EQ(w.upper_nh_offset, last);
    CHECK(!w.has_frag);
}

static void test_ext_no_next_header_ends_walk(void)
{
    struct chain c;
    struct mip_ipv6_walk w;

    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_DSTOPTS, pad6, sizeof(pad6));
    chain_end(&c, MIP_IPV6_NH_NONE, 0);
    CHECK_EQ(walk(&c, &w), MIP_OK);
    CHECK_EQ(w.upper_proto, MIP_IPV6_NH_NONE);
    CHECK_EQ(w.upper_offset, 48);
    CHECK_EQ(w.upper_nh_offset, 40);
}

static void test_ext_unknown_header_is_reported_as_upper_proto(void)
{
    struct chain c;
    struct mip_ipv6_walk w;

    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_HOPOPTS, pad6, sizeof(pad6));
    chain_end(&c, 51 /* AH: not walked */, 16);
    CHECK_EQ(walk(&c, &w), MIP_OK);
    CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_NONE);
    CHECK_EQ(w.upper_proto, 51);
    CHECK_EQ(w.upper_offset, 48);
    CHECK_EQ(w.upper_nh_offset, 40);
}

static void test_ext_hbh_not_first_is_next_header_problem(void)
{
    struct chain c;
    struct mip_ipv6_walk w;
    size_t dst;

    chain_init(&c);
    dst = chain_add(&c, MIP_IPV6_NH_DSTOPTS, pad6, sizeof(pad6));
    chain_add(&c, MIP_IPV6_NH_HOPOPTS, pad6, sizeof(pad6));
    chain_end(&c, NH_UDP, 8);
    CHECK_EQ(walk(&c, &w), MIP_OK);
    CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_NEXT_HEADER);
    CHECK_EQ(w.problem_pointer, dst);   /* the Next Header byte naming it */
    CHECK_EQ(w.upper_proto, MIP_IPV6_NH_HOPOPTS);
    CHECK_EQ(w.upper_offset, 48);
}

static void test_ext_second_hbh_is_next_header_problem(void)
{
    struct chain c;
    struct mip_ipv6_walk w;

    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_HOPOPTS, pad6, sizeof(pad6));
    chain_add(&c, MIP_IPV6_NH_HOPOPTS, pad6, sizeof(pad6));
    chain_end(&c, NH_UDP, 8);
    CHECK_EQ(walk(&c, &w), MIP_OK);
    CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_NEXT_HEADER);
    CHECK_EQ(w.problem_pointer, 40);
}

static void test_ext_hbh_when_not_allowed_is_next_header_problem(void)
{
    struct chain c;
    struct mip_ipv6_walk w;

    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_HOPOPTS, pad6, sizeof(pad6));
    chain_end(&c, NH_UDP, 8);
    CHECK_EQ(mip_ipv6_walk_ext(c.b, c.len, 0, 40, false, &w), MIP_OK);
    CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_NEXT_HEADER);
    CHECK_EQ(w.problem_pointer, 6);
}

/* One Destination Options (or HBH) header: PadN(2), option `type` with 2
 * data bytes at offset 44. */
static void chain_with_option(struct chain *c, uint8_t hdr, uint8_t type)
{
    const uint8_t body[6] = {1, 0, type, 2, 0xAA, 0xBB};

    chain_init(c);
    chain_add(c, hdr, body, sizeof(body));
    chain_end(c, NH_UDP, 8);
}

static void test_ext_unknown_option_action_00_is_skipped(void)
{
    static const uint8_t hdrs[2] = {MIP_IPV6_NH_HOPOPTS, MIP_IPV6_NH_DSTOPTS};
    struct chain c;
    struct mip_ipv6_walk w;
    size_t i;

    for (i = 0; i < 2; i++) {
        chain_with_option(&c, hdrs[i], 0x05); /* Router Alert: not acted on */
        CHECK_EQ(walk(&c, &w), MIP_OK);
        CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_NONE);
        CHECK_EQ(w.upper_proto, NH_UDP);
        CHECK_EQ(w.upper_offset, 48);
        chain_with_option(&c, hdrs[i], 0x3E);
        CHECK_EQ(walk(&c, &w), MIP_OK);
        CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_NONE);
    }
}

static void test_ext_unknown_option_action_01_is_silent_drop(void)
{
    static const uint8_t hdrs[2] = {MIP_IPV6_NH_HOPOPTS, MIP_IPV6_NH_DSTOPTS};
    struct chain c;
    struct mip_ipv6_walk w;
    size_t i;

    for (i = 0; i < 2; i++) {
        chain_with_option(&c, hdrs[i], 0x5E);
        CHECK_EQ(walk(&c, &w), MIP_OK);
        CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_OPTION_SILENT);
        CHECK_EQ(w.problem_pointer, 44);
        CHECK(!w.problem_icmp_unless_multicast);
    }
}

/* The RPL Option (0x63 of RFC 6553, 0x23 of RFC 9008) in a Hop-by-Hop
 * header is reported and skipped, whatever its action bits: the caller
 * decides whether it is understood. In a Destination Options header it is
 * just an unknown option (0x63: action 01). */
static void test_ext_rpl_option_reported_in_hbh_only(void)
{
    static const uint8_t types[2] = {0x63, 0x23};
    struct chain c;
    struct mip_ipv6_walk w;
    size_t i;

    for (i = 0; i < 2; i++) {
        chain_with_option(&c, MIP_IPV6_NH_HOPOPTS, types[i]);
        CHECK_EQ(walk(&c, &w), MIP_OK);
        CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_NONE);
        CHECK_EQ(w.rpl_opt_offset, 44);
        CHECK_EQ(w.upper_proto, NH_UDP);
        CHECK_EQ(w.upper_offset, 48);
    }
    chain_with_option(&c, MIP_IPV6_NH_DSTOPTS, 0x63);
    CHECK_EQ(walk(&c, &w), MIP_OK);
    CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_OPTION_SILENT);
    CHECK_EQ(w.rpl_opt_offset, 0);
}

static void test_ext_unknown_option_action_10_is_option_problem(void)
{
    static const uint8_t hdrs[2] = {MIP_IPV6_NH_HOPOPTS, MIP_IPV6_NH_DSTOPTS};
    struct chain c;
    struct mip_ipv6_walk w;
    size_t i;

    for (i = 0; i < 2; i++) {
        chain_with_option(&c, hdrs[i], 0x9E);
        CHECK_EQ(walk(&c, &w), MIP_OK);
        CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_OPTION);
        CHECK_EQ(w.problem_pointer, 44);
        CHECK(!w.problem_icmp_unless_multicast);
    }
}

static void test_ext_unknown_option_action_11_is_problem_unless_multicast(void)
{
    static const uint8_t hdrs[2] = {MIP_IPV6_NH_HOPOPTS, MIP_IPV6_NH_DSTOPTS};
    struct chain c;
    struct mip_ipv6_walk w;
    size_t i;

    for (i = 0; i < 2; i++) {
        chain_with_option(&c, hdrs[i], 0xDE);
        CHECK_EQ(walk(&c, &w), MIP_OK);
        CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_OPTION);
        CHECK_EQ(w.problem_pointer, 44);
        CHECK(w.problem_icmp_unless_multicast);
    }
}

static void test_ext_first_unknown_option_wins(void)
{
    /* action-00 option, then action-10, then action-01 */
    static const uint8_t body[14] = {0x1E, 0, 0x80, 1, 0xAA, 0x40, 0, 0, 1, 3, 0, 0, 0};
    struct chain c;
    struct mip_ipv6_walk w;

    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_DSTOPTS, body, sizeof(body));
    chain_end(&c, NH_UDP, 8);
    CHECK_EQ(walk(&c, &w), MIP_OK);
    CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_OPTION);
    CHECK_EQ(w.problem_pointer, 44);
}

static void test_ext_option_in_later_header_points_into_it(void)
{
    const uint8_t body[6] = {0, 0, 0, 0, 0xC2, 0}; /* Pad1 x4, Jumbo (11) len 0 */
    struct chain c;
    struct mip_ipv6_walk w;

    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_HOPOPTS, pad6, sizeof(pad6));
    chain_add(&c, MIP_IPV6_NH_ROUTING, rt0_body, sizeof(rt0_body));
    chain_add(&c, MIP_IPV6_NH_DSTOPTS, body, sizeof(body));
    chain_end(&c, NH_UDP, 8);
    CHECK_EQ(walk(&c, &w), MIP_OK);
    CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_OPTION);
    CHECK_EQ(w.problem_pointer, 56 + 6);
    CHECK(w.problem_icmp_unless_multicast);
}

static void test_ext_option_overrunning_header_is_malformed(void)
{
    const uint8_t overrun[6] = {1, 5, 0, 0, 0, 0};   /* PadN claims 5, 4 left */
    const uint8_t no_len[6] = {0, 0, 0, 0, 0, 0x1E}; /* type in last byte */
    const uint8_t unk_over[6] = {0x1E, 9, 0, 0, 0, 0};
    struct chain c;
    struct mip_ipv6_walk w;

    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_HOPOPTS, overrun, sizeof(overrun));
    chain_end(&c, NH_UDP, 8);
    CHECK_EQ(walk(&c, &w), MIP_ERR_MALFORMED);

    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_DSTOPTS, no_len, sizeof(no_len));
    chain_end(&c, NH_UDP, 8);
    CHECK_EQ(walk(&c, &w), MIP_ERR_MALFORMED);

    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_DSTOPTS, unk_over, sizeof(unk_over));
    chain_end(&c, NH_UDP, 8);
    CHECK_EQ(walk(&c, &w), MIP_ERR_MALFORMED);
}

static void test_ext_routing_segments_left_zero_is_skipped(void)
{
    static const uint8_t types[] = {0, 2, 3, 4, 253};
    uint8_t body[6] = {0};
    struct chain c;
    struct mip_ipv6_walk w;
    size_t i;

    for (i = 0; i < sizeof(types); i++) {
        body[0] = types[i];
        chain_init(&c);
        chain_add(&c, MIP_IPV6_NH_ROUTING, body, sizeof(body));
        chain_end(&c, NH_ICMP, 8);
        CHECK_EQ(walk(&c, &w), MIP_OK);
        CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_NONE);
        CHECK_EQ(w.upper_proto, NH_ICMP);
        CHECK_EQ(w.upper_offset, 48);
    }
}

static void test_ext_routing_segments_left_nonzero_is_hdr_field_problem(void)
{
    uint8_t body[22] = {3, 1};   /* RPL SRH, one segment left */
    struct chain c;
    struct mip_ipv6_walk w;
    size_t rt;

    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_HOPOPTS, pad6, sizeof(pad6));
    rt = chain_add(&c, MIP_IPV6_NH_ROUTING, body, sizeof(body));
    chain_end(&c, NH_UDP, 8);
    CHECK_EQ(walk(&c, &w), MIP_OK);
    CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_HDR_FIELD);
    CHECK_EQ(w.problem_pointer, rt + 2);
    CHECK_EQ(w.upper_proto, MIP_IPV6_NH_ROUTING);
    CHECK_EQ(w.upper_offset, rt);
    CHECK_EQ(w.srh_offset, rt);
    /* another routing type is refused the same, and is no SRH */
    c.b[rt + 2] = 4;
    CHECK_EQ(walk(&c, &w), MIP_OK);
    CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_HDR_FIELD);
    CHECK_EQ(w.srh_offset, 0);
}

static void test_ext_fragment_header_stops_walk_with_fields(void)
{
    struct chain c;
    struct mip_ipv6_walk w;
    size_t fr;

    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_HOPOPTS, pad6, sizeof(pad6));
    fr = chain_add_frag(&c, 1232, true, 0xDEADBEEFu);
    chain_end(&c, NH_UDP, 64);
    CHECK_EQ(walk(&c, &w), MIP_OK);
    CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_NONE);
    CHECK(w.has_frag);
    CHECK_EQ(w.upper_proto, MIP_IPV6_NH_FRAGMENT);
    CHECK_EQ(w.upper_offset, fr);
    CHECK_EQ(w.upper_nh_offset, 40);
    CHECK_EQ(w.frag_next, NH_UDP);
    CHECK_EQ(w.frag_offset, 1232);
    CHECK(w.frag_more);
    CHECK_EQ(w.frag_id, 0xDEADBEEFu);
    CHECK_EQ(w.frag_data_offset, fr + 8);
}

static void test_ext_frag_emit_known_bytes_and_round_trip(void)
{
    static const uint8_t want[8] = {0x11, 0x00, 0xFF, 0xF9, 0x01, 0x02, 0x03, 0x04};
    static const uint16_t offs[] = {0, 8, 1280, 0xFFF8u};
    uint8_t buf[8];
    struct mip_ipv6_walk w;
    size_t i, m;

    CHECK_EQ(mip_ipv6_frag_emit(17, 0xFFF8u, true, 0x01020304u, buf, sizeof(buf)), MIP_OK);
    CHECK_MEM(buf, want, 8);

    for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
        for (m = 0; m < 2; m++) {
            CHECK_EQ(mip_ipv6_frag_emit(58, offs[i], m != 0, (uint32_t)i * 0x01010101u,
                                        buf, sizeof(buf)), MIP_OK);
            CHECK_EQ(mip_ipv6_walk_ext(buf, sizeof(buf), MIP_IPV6_NH_FRAGMENT, 0,
                                       false, &w), MIP_OK);
            CHECK(w.has_frag);
            CHECK_EQ(w.frag_next, 58);
            CHECK_EQ(w.frag_offset, offs[i]);
            CHECK_EQ(w.frag_more, m != 0);
            CHECK_EQ(w.frag_id, (uint32_t)i * 0x01010101u);
            CHECK_EQ(w.frag_data_offset, 8);
        }
    }
}

static void test_ext_frag_emit_rejects_bad_args(void)
{
    uint8_t buf[8];
    size_t cap;

    for (cap = 0; cap < 8; cap++)
        CHECK_EQ(mip_ipv6_frag_emit(17, 0, false, 1, buf, cap), MIP_ERR_NOSPACE);
    CHECK_EQ(mip_ipv6_frag_emit(17, 7, false, 1, buf, sizeof(buf)), MIP_ERR_INVALID);
    CHECK_EQ(mip_ipv6_frag_emit(17, 1, true, 1, buf, sizeof(buf)), MIP_ERR_INVALID);
}

static void test_ext_chain_of_max_headers_is_walked(void)
{
    struct chain c;
    struct mip_ipv6_walk w;
    size_t i;

    chain_init(&c);
    for (i = 0; i < MIP_IPV6_EXT_MAX; i++)
        chain_add(&c, MIP_IPV6_NH_DSTOPTS, pad6, sizeof(pad6));
    chain_end(&c, NH_UDP, 8);
    CHECK_EQ(walk(&c, &w), MIP_OK);
    CHECK_EQ(w.upper_proto, NH_UDP);
    CHECK_EQ(w.upper_offset, 40 + 8 * MIP_IPV6_EXT_MAX);
}

static void test_ext_chain_longer_than_max_is_malformed(void)
{
    struct chain c;
    struct mip_ipv6_walk w;
    size_t i;

    chain_init(&c);
    for (i = 0; i < MIP_IPV6_EXT_MAX + 1u; i++)
        chain_add(&c, MIP_IPV6_NH_DSTOPTS, pad6, sizeof(pad6));
    chain_end(&c, NH_UDP, 8);
    CHECK_EQ(walk(&c, &w), MIP_ERR_MALFORMED);

    /* the same with a Fragment header as the one too many */
    chain_init(&c);
    for (i = 0; i < MIP_IPV6_EXT_MAX; i++)
        chain_add(&c, MIP_IPV6_NH_ROUTING, rt0_body, sizeof(rt0_body));
    chain_add_frag(&c, 0, true, 7);
    chain_end(&c, NH_UDP, 8);
    CHECK_EQ(walk(&c, &w), MIP_ERR_MALFORMED);
}

static void test_ext_walk_from_inner_offset(void)
{
    struct chain c;
    struct mip_ipv6_walk w;
    size_t fr, dst;

    /* As after reassembly: start after the Fragment header, HBH forbidden. */
    chain_init(&c);
    fr = chain_add_frag(&c, 0, false, 9);
    dst = chain_add(&c, MIP_IPV6_NH_DSTOPTS, pad6, sizeof(pad6));
    chain_end(&c, NH_ICMP, 8);
    CHECK_EQ(mip_ipv6_walk_ext(c.b, c.len, c.b[fr], fr + 8, false, &w), MIP_OK);
    CHECK(!w.has_frag);
    CHECK_EQ(w.upper_proto, NH_ICMP);
    CHECK_EQ(w.upper_offset, dst + 8);
    CHECK_EQ(w.upper_nh_offset, dst);
}

static void test_ext_offset_past_len_is_truncated(void)
{
    uint8_t buf[40] = {0x60};
    struct mip_ipv6_walk w;

    CHECK_EQ(mip_ipv6_walk_ext(buf, 39, NH_UDP, 40, true, &w), MIP_ERR_TRUNCATED);
    CHECK_EQ(mip_ipv6_walk_ext(buf, 40, NH_UDP, 40, true, &w), MIP_OK);
    CHECK_EQ(w.upper_offset, 40);
}

/* Every prefix of a chain that ends in an extension header is short. */
static void check_every_truncation(const struct chain *c)
{
    struct mip_ipv6_walk w;
    size_t n;

    for (n = 0; n < c->len; n++) {
        uint8_t *p = dup_exact(c->b, n);
        CHECK(n == 0 || p != NULL);
        CHECK_EQ(mip_ipv6_walk_ext(p, n, c->b[6], 40, true, &w), MIP_ERR_TRUNCATED);
        free(p);
    }
    CHECK_EQ(mip_ipv6_walk_ext(c->b, c->len, c->b[6], 40, true, &w), MIP_OK);
}

static void test_ext_every_truncation_of_each_header_type_fails(void)
{
    const uint8_t opts[14] = {0, 1, 2, 0, 0, 0x05, 2, 0, 0, 1, 1, 0, 0, 0};
    struct chain c;

    /* HBH -> DST -> Routing -> Fragment (ends the walk) */
    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_HOPOPTS, opts, sizeof(opts));
    chain_add(&c, MIP_IPV6_NH_DSTOPTS, pad6, sizeof(pad6));
    chain_add(&c, MIP_IPV6_NH_ROUTING, rt0_body, sizeof(rt0_body));
    chain_add_frag(&c, 8, false, 1);
    chain_end(&c, NH_UDP, 0);
    check_every_truncation(&c);

    /* each type last */
    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_HOPOPTS, opts, sizeof(opts));
    chain_end(&c, MIP_IPV6_NH_NONE, 0);
    check_every_truncation(&c);

    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_ROUTING, rt0_body, sizeof(rt0_body));
    chain_add(&c, MIP_IPV6_NH_DSTOPTS, opts, sizeof(opts));
    chain_end(&c, MIP_IPV6_NH_NONE, 0);
    check_every_truncation(&c);

    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_DSTOPTS, pad6, sizeof(pad6));
    chain_add(&c, MIP_IPV6_NH_ROUTING, rt0_body, sizeof(rt0_body));
    chain_end(&c, MIP_IPV6_NH_NONE, 0);
    check_every_truncation(&c);
}

/* mip_ipv6_routing_offset: a Routing header right after the fixed header
 * or the Hop-by-Hop header, whole 8 bytes present; not behind another
 * header, not cut short. */
static void test_routing_offset(void)
{
    struct chain c;

    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_ROUTING, rt0_body, sizeof(rt0_body));
    chain_end(&c, NH_UDP, 8);
    CHECK_EQ(mip_ipv6_routing_offset(c.b, c.len), 40);
    CHECK_EQ(mip_ipv6_routing_offset(c.b, 47), 0);          /* 7 of its 8 bytes */
    CHECK_EQ(mip_ipv6_routing_offset(c.b, 39), 0);          /* no fixed header */
    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_HOPOPTS, pad6, sizeof(pad6));
    chain_add(&c, MIP_IPV6_NH_ROUTING, rt0_body, sizeof(rt0_body));
    chain_end(&c, NH_UDP, 8);
    CHECK_EQ(mip_ipv6_routing_offset(c.b, c.len), 48);
    CHECK_EQ(mip_ipv6_routing_offset(c.b, 41), 0);          /* the HbH cut short */
    chain_init(&c);
    chain_add(&c, MIP_IPV6_NH_DSTOPTS, pad6, sizeof(pad6));
    chain_add(&c, MIP_IPV6_NH_ROUTING, rt0_body, sizeof(rt0_body));
    chain_end(&c, NH_UDP, 8);
    CHECK_EQ(mip_ipv6_routing_offset(c.b, c.len), 0);       /* behind Destination Options */
    chain_init(&c);
    chain_end(&c, NH_UDP, 8);
    CHECK_EQ(mip_ipv6_routing_offset(c.b, c.len), 0);
}

int main(void)
{
    RUN(test_ext_none_upper_follows_fixed_header);
    RUN(test_routing_offset);
    RUN(test_ext_chain_hbh_dst_routing_dst_reaches_udp);
    RUN(test_ext_no_next_header_ends_walk);
    RUN(test_ext_unknown_header_is_reported_as_upper_proto);
    RUN(test_ext_hbh_not_first_is_next_header_problem);
    RUN(test_ext_second_hbh_is_next_header_problem);
    RUN(test_ext_hbh_when_not_allowed_is_next_header_problem);
    RUN(test_ext_unknown_option_action_00_is_skipped);
    RUN(test_ext_unknown_option_action_01_is_silent_drop);
    RUN(test_ext_unknown_option_action_10_is_option_problem);
    RUN(test_ext_unknown_option_action_11_is_problem_unless_multicast);
    RUN(test_ext_first_unknown_option_wins);
    RUN(test_ext_option_in_later_header_points_into_it);
    RUN(test_ext_option_overrunning_header_is_malformed);
    RUN(test_ext_rpl_option_reported_in_hbh_only);
    RUN(test_ext_routing_segments_left_zero_is_skipped);
    RUN(test_ext_routing_segments_left_nonzero_is_hdr_field_problem);
    RUN(test_ext_fragment_header_stops_walk_with_fields);
    RUN(test_ext_frag_emit_known_bytes_and_round_trip);
    RUN(test_ext_frag_emit_rejects_bad_args);
    RUN(test_ext_chain_of_max_headers_is_walked);
    RUN(test_ext_chain_longer_than_max_is_malformed);
    RUN(test_ext_walk_from_inner_offset);
    RUN(test_ext_offset_past_len_is_truncated);
    RUN(test_ext_every_truncation_of_each_header_type_fails);
    return TESTING_DONE();
}
