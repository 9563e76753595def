/*
 * libFuzzer harness over the pure wire codecs (src/wire/).
 *
 * Input: [selector byte][packet bytes]. The selector picks a codec; the rest
 * is parsed. When parsing succeeds, what was parsed is emitted again and the
 * emitted bytes are parsed a second time: the harness traps if the round
 * trip changes a field that emit is defined to reproduce, or if a codec
 * breaks a documented invariant (an offset past the buffer, an iterator that
 * does not end, a checksum that disagrees with a reference implementation).
 *
 * Every parse works on a heap copy of exactly the bytes it is given, so
 * AddressSanitizer catches a codec reading one byte too far.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/wire/arp.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/ethernet.h"
#include "moteip/wire/icmpv4.h"
#include "moteip/wire/icmpv6.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/rpl_ext.h"
#include "moteip/wire/sixlowpan.h"
#include "moteip/wire/tcp.h"
#include "moteip/wire/udp.h"

#define FAIL(...)                                                      \
    do {                                                               \
        fprintf(stderr, "fuzz_wire: CHECK FAILED (%s:%d): ", __FILE__, \
                __LINE__);                                             \
        fprintf(stderr, __VA_ARGS__);                                  \
        fputc('\n', stderr);                                           \
        __builtin_trap();                                              \
    } while (0)

#define CHECK(cond)                         \
    do {                                    \
        if (!(cond))                        \
            FAIL("%s", #cond);              \
    } while (0)

/* Heap copy of exactly n bytes (malloc(1) for n == 0 so the pointer is
 * valid; a codec given length 0 must not read it anyway). */
static uint8_t *dup_exact(const uint8_t *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    if (c == NULL)
        abort();
    if (n)
        memcpy(c, p, n);
    return c;
}

/* --- ethernet ------------------------------------------------------------ */

static void fz_eth(const uint8_t *d, size_t n)
{
    struct mip_eth_hdr h, h2;
    uint8_t out[MIP_ETH_HDR_LEN];
    mip_status st = mip_eth_parse(d, n, &h);

    if (n < MIP_ETH_HDR_LEN) {
        CHECK(st == MIP_ERR_TRUNCATED);
        return;
    }
    CHECK(st == MIP_OK);
    CHECK(mip_eth_emit(&h, out, sizeof out - 1) == MIP_ERR_NOSPACE);
    CHECK(mip_eth_emit(&h, out, sizeof out) == MIP_OK);
    CHECK(memcmp(out, d, MIP_ETH_HDR_LEN) == 0);
    CHECK(mip_eth_parse(out, sizeof out, &h2) == MIP_OK);
    CHECK(memcmp(h.dst, h2.dst, 6) == 0 && memcmp(h.src, h2.src, 6) == 0);
    CHECK(h.ethertype == h2.ethertype);
}

/* --- arp ----------------------------------------------------------------- */

static void fz_arp(const uint8_t *d, size_t n)
{
    struct mip_arp a, a2;
    uint8_t out[MIP_ARP_LEN];
    mip_status st = mip_arp_parse(d, n, &a);

    if (n < MIP_ARP_LEN) {
        CHECK(st == MIP_ERR_TRUNCATED);
        return;
    }
    if (st != MIP_OK) {
        CHECK(st == MIP_ERR_UNSUPPORTED || st == MIP_ERR_MALFORMED);
        return;
    }
    CHECK(a.op == MIP_ARP_OP_REQUEST || a.op == MIP_ARP_OP_REPLY);
    CHECK(mip_arp_emit(&a, out, sizeof out - 1) == MIP_ERR_NOSPACE);
    CHECK(mip_arp_emit(&a, out, sizeof out) == MIP_OK);
    CHECK(memcmp(out, d, MIP_ARP_LEN) == 0);
    CHECK(mip_arp_parse(out, sizeof out, &a2) == MIP_OK);
    CHECK(a.op == a2.op);
    CHECK(memcmp(a.sha, a2.sha, 6) == 0 && memcmp(a.spa, a2.spa, 4) == 0);
    CHECK(memcmp(a.tha, a2.tha, 6) == 0 && memcmp(a.tpa, a2.tpa, 4) == 0);
}

/* --- ipv4 ---------------------------------------------------------------- */

/* The option walk on a parsed header: its verdict agrees with a walk
 * written here (TLVs of length 2.. what remains, NOP and EOL one byte,
 * LSRR/SSRR refused), and an error names an octet of the options. */
static void fz_ipv4_options(const uint8_t *d, size_t hl)
{
    mip_status want = MIP_OK, st;
    size_t at = 20;
    uint8_t where = 0xFF;
    while (at < hl && d[at] != MIP_IPV4_OPT_EOL && want == MIP_OK) {
        size_t left = hl - at;
        if (d[at] == MIP_IPV4_OPT_NOP) {
            at++;
        } else if (left < 2 || d[at + 1] < 2 || d[at + 1] > left) {
            want = MIP_ERR_MALFORMED;
        } else if (d[at] == MIP_IPV4_OPT_LSRR || d[at] == MIP_IPV4_OPT_SSRR) {
            want = MIP_ERR_UNSUPPORTED;
        } else {
            at += d[at + 1];
        }
    }
    st = mip_ipv4_options_check(d, hl, &where);
    CHECK(st == want);
    if (st != MIP_OK)
        CHECK(where >= 20 && where < hl && (where == at || where == at + 1));
}

static void fz_ipv4(const uint8_t *d, size_t n)
{
    struct mip_ipv4_hdr h, h2;
    uint8_t *out;
    size_t outlen;
    mip_status st = mip_ipv4_parse(d, n, &h);

    if (st != MIP_OK) {
        CHECK(st == MIP_ERR_TRUNCATED || st == MIP_ERR_MALFORMED);
        return;
    }
    CHECK(h.hdr_len >= 20 && h.hdr_len <= 60 && h.hdr_len % 4 == 0);
    CHECK(h.hdr_len <= h.total_len && h.total_len <= n);
    CHECK((h.flags & ~(MIP_IPV4_FLAG_DF | MIP_IPV4_FLAG_MF)) == 0);
    CHECK(h.frag_offset % 8 == 0);
    /* checksum_ok must agree with a plain recomputation */
    CHECK(mip_ipv4_checksum_ok(d, h.hdr_len) ==
          (mip_cksum_finish(mip_cksum_add(0, d, h.hdr_len)) == 0));
    CHECK(!mip_ipv4_checksum_ok(d, 19));
    fz_ipv4_options(d, h.hdr_len);

    /* emit writes 20 bytes without options; a parsed header is always
     * emittable */
    outlen = h.total_len > 20 ? h.total_len : 20;
    out = calloc(1, outlen);
    if (out == NULL)
        abort();
    CHECK(mip_ipv4_emit(&h, out, 19) == MIP_ERR_NOSPACE);
    st = mip_ipv4_emit(&h, out, outlen);
    CHECK(st == MIP_OK);
    CHECK(mip_ipv4_checksum_ok(out, 20));
    CHECK(mip_ipv4_parse(out, outlen, &h2) == MIP_OK);
    CHECK(h2.hdr_len == 20);
    CHECK(h.tos == h2.tos && h.total_len == h2.total_len && h.id == h2.id);
    CHECK(h.flags == h2.flags && h.frag_offset == h2.frag_offset);
    CHECK(h.ttl == h2.ttl && h.proto == h2.proto);
    CHECK(memcmp(h.src, h2.src, 4) == 0 && memcmp(h.dst, h2.dst, 4) == 0);
    /* for an option-less input the emitted header is the input header,
     * except possibly the checksum field */
    if (h.hdr_len == 20) {
        CHECK(memcmp(out, d, 10) == 0 && memcmp(out + 12, d + 12, 8) == 0);
        if (mip_ipv4_checksum_ok(d, 20) && h.checksum != 0 && h.checksum != 0xFFFF)
            CHECK(h.checksum == h2.checksum);
    }
    free(out);
}

/* --- ipv6 ---------------------------------------------------------------- */

static void check_walk(const uint8_t *buf, size_t len, size_t offset, mip_status st,
                       const struct mip_ipv6_walk *w)
{
    if (st != MIP_OK) {
        CHECK(st == MIP_ERR_TRUNCATED || st == MIP_ERR_MALFORMED ||
              st == MIP_ERR_UNSUPPORTED);
        return;
    }
    (void)buf;
    CHECK(w->upper_offset >= offset || offset > 0xFFFF);
    CHECK(w->upper_offset <= len);
    CHECK(w->upper_nh_offset < len || w->upper_nh_offset == 6);
    if (w->problem != MIP_IPV6_PROBLEM_NONE) {
        CHECK(w->problem <= MIP_IPV6_PROBLEM_OPTION_SILENT);
        CHECK(w->problem_pointer < len);
        CHECK(!w->has_frag);
    } else {
        CHECK(!w->problem_icmp_unless_multicast);
    }
    if (w->has_frag) {
        CHECK(w->upper_proto == MIP_IPV6_NH_FRAGMENT);
        CHECK(w->frag_offset % 8 == 0);
        CHECK(w->frag_data_offset == w->upper_offset + MIP_IPV6_FRAG_HDR_LEN);
        CHECK(w->frag_data_offset <= len);
    } else if (w->problem == MIP_IPV6_PROBLEM_NONE) {
        /* a clean walk stops at a header that is not an extension header */
        CHECK(w->upper_proto != MIP_IPV6_NH_HOPOPTS &&
              w->upper_proto != MIP_IPV6_NH_ROUTING &&
              w->upper_proto != MIP_IPV6_NH_FRAGMENT &&
              w->upper_proto != MIP_IPV6_NH_DSTOPTS);
    }
}

static void fz_ipv6(const uint8_t *d, size_t n)
{
    struct mip_ipv6_hdr h, h2;
    struct mip_ipv6_walk w, w2;
    uint8_t out[MIP_IPV6_HDR_LEN + MIP_IPV6_FRAG_HDR_LEN + 8];
    uint8_t *pkt;
    size_t plen;
    mip_status st = mip_ipv6_parse(d, n, &h);

    if (n >= 41) {
        /* Walk from an arbitrary start too: the walk must be safe for any
         * (first_nh, offset) a caller could pass, e.g. after reassembly. */
        uint8_t *c = dup_exact(d + 1, n - 1);
        size_t off = d[0] % (n - 1 + 2); /* may exceed len by one */
        st = mip_ipv6_walk_ext(c, n - 1, c[0], off, (d[0] & 0x80) != 0, &w);
        check_walk(c, n - 1, off, st, &w);
        free(c);
        st = mip_ipv6_parse(d, n, &h);
    }
    if (st != MIP_OK) {
        CHECK(st == MIP_ERR_TRUNCATED || st == MIP_ERR_MALFORMED ||
              st == MIP_ERR_UNSUPPORTED);
        return;
    }
    CHECK(h.payload_len > 0 && (size_t)h.payload_len + 40 <= n);
    CHECK(h.flow_label <= 0xFFFFF);

    CHECK(mip_ipv6_emit(&h, out, 39) == MIP_ERR_NOSPACE);
    CHECK(mip_ipv6_emit(&h, out, sizeof out) == MIP_OK);
    CHECK(memcmp(out, d, 40) == 0);
    /* payload_len is at most 8 in the buffer we give it; reparse over a
     * buffer sized to what the header claims */
    plen = 40u + h.payload_len;
    pkt = calloc(1, plen);
    if (pkt == NULL)
        abort();
    memcpy(pkt, out, 40);
    CHECK(mip_ipv6_parse(pkt, plen, &h2) == MIP_OK);
    CHECK(h.traffic_class == h2.traffic_class && h.flow_label == h2.flow_label);
    CHECK(h.payload_len == h2.payload_len && h.next_header == h2.next_header);
    CHECK(h.hop_limit == h2.hop_limit);
    CHECK(memcmp(h.src, h2.src, 16) == 0 && memcmp(h.dst, h2.dst, 16) == 0);
    free(pkt);

    /* The extension-header walk of the packet as received. */
    pkt = dup_exact(d, plen);
    st = mip_ipv6_walk_ext(pkt, plen, h.next_header, 40, true, &w);
    check_walk(pkt, plen, 40, st, &w);
    /* Determinism: walking again gives the same answer. */
    CHECK(mip_ipv6_walk_ext(pkt, plen, h.next_header, 40, true, &w2) == st);
    CHECK(memcmp(&w, &w2, sizeof w) == 0);
    free(pkt);

    if (st == MIP_OK && w.has_frag) {
        /* Fragment header round trip through mip_ipv6_frag_emit. */
        uint8_t fb[MIP_IPV6_HDR_LEN + MIP_IPV6_FRAG_HDR_LEN];
        memset(fb, 0, sizeof fb);
        CHECK(mip_ipv6_frag_emit(w.frag_next, w.frag_offset, w.frag_more, w.frag_id,
                                 fb + 40, 7) == MIP_ERR_NOSPACE);
        CHECK(mip_ipv6_frag_emit(w.frag_next, w.frag_offset, w.frag_more, w.frag_id,
                                 fb + 40, 8) == MIP_OK);
        CHECK(mip_ipv6_walk_ext(fb, sizeof fb, MIP_IPV6_NH_FRAGMENT, 40, true, &w2) ==
              MIP_OK);
        CHECK(w2.has_frag && w2.frag_next == w.frag_next);
        CHECK(w2.frag_offset == w.frag_offset && w2.frag_more == w.frag_more);
        CHECK(w2.frag_id == w.frag_id && w2.frag_data_offset == 48);
        CHECK(w2.upper_offset == 40);
    }
}

/* --- icmp: the header icmpv4 and icmpv6 share ------------------------------ */

static void fz_icmp(const uint8_t *d, size_t n)
{
    struct mip_icmp_hdr h, h2;
    uint8_t out[8];
    mip_status st = mip_icmp_parse(d, n, &h);

    if (n < 8) {
        CHECK(st == MIP_ERR_TRUNCATED);
        return;
    }
    CHECK(st == MIP_OK);
    CHECK(mip_icmp_emit(&h, out, 7) == MIP_ERR_NOSPACE);
    CHECK(mip_icmp_emit(&h, out, 8) == MIP_OK);
    CHECK(memcmp(out, d, 8) == 0);
    CHECK(mip_icmp_parse(out, 8, &h2) == MIP_OK);
    CHECK(h.type == h2.type && h.code == h2.code && h.checksum == h2.checksum &&
          h.rest == h2.rest);
}

/* --- neighbor discovery -------------------------------------------------- */

static size_t nd_fixed(uint8_t type)
{
    switch (type) {
    case MIP_ICMPV6_RS: return MIP_ND_RS_LEN;
    case MIP_ICMPV6_RA: return MIP_ND_RA_LEN;
    case MIP_ICMPV6_NS: return MIP_ND_NS_LEN;
    case MIP_ICMPV6_NA: return MIP_ND_NA_LEN;
    case MIP_ICMPV6_REDIRECT: return MIP_ND_REDIRECT_LEN;
    default: return 0;
    }
}

/* Walks the options of a parsed message; they must walk cleanly (parse
 * guarantees it) and exactly cover opts_len. Returns the first SLLA/TLLA
 * option of type want (or NULL). */
static bool walk_nd_opts(const struct mip_nd_msg *m, const uint8_t *buf, size_t n,
                         uint8_t want, struct mip_nd_opt *found)
{
    struct mip_nd_opt_iter it;
    struct mip_nd_opt o;
    size_t covered = 0, count = 0;
    bool have = false;
    mip_status st;

    mip_nd_opt_iter_init(&it, m->opts, m->opts_len);
    while ((st = mip_nd_opt_next(&it, &o)) == MIP_OK) {
        CHECK(o.data >= buf && o.data + o.len <= buf + n);
        CHECK((o.len + 2) % 8 == 0 && o.len >= 6);
        CHECK(o.data == m->opts + covered + 2);
        covered += o.len + 2;
        CHECK(++count <= n / 8);
        if (!have && o.type == want) {
            *found = o;
            have = true;
        }
    }
    CHECK(st == MIP_ERR_END);
    CHECK(covered == m->opts_len);
    /* END is sticky */
    CHECK(mip_nd_opt_next(&it, &o) == MIP_ERR_END);
    return have;
}

static void fz_nd(const uint8_t *d, size_t n)
{
    struct mip_nd_msg m, m2;
    struct mip_nd_opt lla;
    uint8_t out[MIP_ND_NS_LEN + 16];
    size_t written = 0, fixed;
    mip_status st;
    bool have;

    /* The option iterator over raw bytes: must terminate and stay in
     * bounds whatever it is given. */
    {
        struct mip_nd_opt_iter it;
        struct mip_nd_opt o;
        size_t steps = 0;
        mip_nd_opt_iter_init(&it, d, n);
        while ((st = mip_nd_opt_next(&it, &o)) == MIP_OK) {
            CHECK(o.data >= d + 2 && o.data + o.len <= d + n);
            CHECK(++steps <= n / 8);
        }
        CHECK(st == MIP_ERR_END || st == MIP_ERR_TRUNCATED || st == MIP_ERR_MALFORMED);
        /* errors are sticky */
        CHECK(mip_nd_opt_next(&it, &o) == st);
    }

    st = mip_nd_parse(d, n, &m);
    if (st != MIP_OK) {
        CHECK(st == MIP_ERR_TRUNCATED || st == MIP_ERR_MALFORMED ||
              st == MIP_ERR_UNSUPPORTED);
        return;
    }
    fixed = nd_fixed(d[0]);
    CHECK(fixed != 0 && n >= fixed);
    CHECK(m.type == d[0] && m.code == 0);
    CHECK(m.opts == d + fixed && m.opts_len == n - fixed);

    if (m.type != MIP_ICMPV6_NS && m.type != MIP_ICMPV6_NA) {
        walk_nd_opts(&m, d, n, 0xFF, &lla);
        return;
    }
    CHECK(m.target[0] != 0xFF);
    have = walk_nd_opts(&m, d, n, m.type == MIP_ICMPV6_NS ? MIP_ND_OPT_SLLA : MIP_ND_OPT_TLLA,
                        &lla);
    /* Round trip: re-emit the message with its first link-layer option
     * (when it fits the emitter's 14-byte limit). */
    if (have && lla.len > 14)
        have = false;
    if (m.type == MIP_ICMPV6_NS)
        st = mip_nd_emit_ns(m.target, have ? lla.data : NULL, have ? lla.len : 0, out,
                            sizeof out, &written);
    else
        st = mip_nd_emit_na(m.target, m.na_flags, have ? lla.data : NULL,
                            have ? lla.len : 0, out, sizeof out, &written);
    CHECK(st == MIP_OK);
    CHECK(written == MIP_ND_NS_LEN + (have ? lla.len + 2 : 0));
    CHECK(mip_nd_parse(out, written, &m2) == MIP_OK);
    CHECK(m2.type == m.type && m2.code == 0 && m2.na_flags == m.na_flags);
    CHECK(memcmp(m2.target, m.target, 16) == 0);
    CHECK(m2.opts == out + MIP_ND_NS_LEN && m2.opts_len == written - MIP_ND_NS_LEN);
    if (have) {
        struct mip_nd_opt o2;
        CHECK(walk_nd_opts(&m2, out, written, m.type == MIP_ICMPV6_NS ? 1 : 2, &o2));
        CHECK(o2.len == lla.len && memcmp(o2.data, lla.data, lla.len) == 0);
    } else {
        CHECK(m2.opts_len == 0);
    }
    /* cap one short must be refused */
    if (m.type == MIP_ICMPV6_NS)
        CHECK(mip_nd_emit_ns(m.target, have ? lla.data : NULL, have ? lla.len : 0, out,
                             written - 1, &written) == MIP_ERR_NOSPACE);
}

/* --- udp ----------------------------------------------------------------- */

static void fz_udp(const uint8_t *d, size_t n)
{
    struct mip_udp_hdr h, h2;
    uint8_t out[8];
    mip_status st = mip_udp_parse(d, n, &h);

    if (st != MIP_OK) {
        CHECK(st == MIP_ERR_TRUNCATED || st == MIP_ERR_MALFORMED);
        return;
    }
    CHECK(h.length >= 8 && h.length <= n);
    CHECK(mip_udp_emit(&h, out, 7) == MIP_ERR_NOSPACE);
    CHECK(mip_udp_emit(&h, out, 8) == MIP_OK);
    CHECK(memcmp(out, d, 8) == 0);
    /* reparse needs `length` bytes */
    {
        uint8_t *b = calloc(1, h.length);
        if (b == NULL)
            abort();
        memcpy(b, out, 8);
        CHECK(mip_udp_parse(b, h.length, &h2) == MIP_OK);
        free(b);
    }
    CHECK(h.src_port == h2.src_port && h.dst_port == h2.dst_port &&
          h.length == h2.length && h.checksum == h2.checksum);
}

/* --- tcp ----------------------------------------------------------------- */

/* SACK blocks mip_tcp_opts_emit keeps for o (its documented layout). */
static size_t expected_sack(const struct mip_tcp_opts *o)
{
    size_t base = 0, fit, cnt;

    if (!(o->present & MIP_TCP_HAS_SACK))
        return 0;
    if (o->present & MIP_TCP_HAS_MSS)
        base += 4;
    if (o->present & MIP_TCP_HAS_WSCALE)
        base += 4;
    if (o->present & MIP_TCP_HAS_TIMESTAMP)
        base += 12;
    else if (o->present & MIP_TCP_HAS_SACK_PERM)
        base += 4;
    if (base + 12 > 40)
        return 0;
    fit = (40 - base - 4) / 8;
    cnt = o->sack_count < MIP_TCP_SACK_MAX ? o->sack_count : MIP_TCP_SACK_MAX;
    return cnt < fit ? cnt : fit;
}

static void check_opts_equal(const struct mip_tcp_opts *a, const struct mip_tcp_opts *b,
                             size_t nsack)
{
    uint8_t pa = a->present, pb = b->present;

    if (nsack == 0)
        pa &= (uint8_t)~MIP_TCP_HAS_SACK;
    CHECK(pa == pb);
    if (pa & MIP_TCP_HAS_MSS)
        CHECK(a->mss == b->mss);
    if (pa & MIP_TCP_HAS_WSCALE)
        CHECK(a->wscale == b->wscale);
    if (pa & MIP_TCP_HAS_TIMESTAMP)
        CHECK(a->ts_val == b->ts_val && a->ts_ecr == b->ts_ecr);
    if (pa & MIP_TCP_HAS_SACK) {
        size_t i;
        CHECK(b->sack_count == nsack);
        for (i = 0; i < nsack; i++)
            CHECK(a->sack[i].left == b->sack[i].left && a->sack[i].right == b->sack[i].right);
    }
}

static void fz_tcp(const uint8_t *d, size_t n)
{
    struct mip_tcp_hdr h, h2;
    struct mip_tcp_opts o, o2, o3;
    uint8_t hdr[MIP_TCP_HDR_MAX], ob[40], ob2[40];
    size_t w = 0, w2 = 0, nsack;
    uint8_t *c;
    mip_status st;

    /* The option parser on raw bytes, with the fuzzer choosing the length
     * (including > 40, which must be refused, not read). */
    if (n > 0) {
        size_t olen = n - 1 < 48 ? n - 1 : 48;
        c = dup_exact(d + 1, olen);
        st = mip_tcp_opts_parse(c, olen, &o);
        if (olen > 40)
            CHECK(st == MIP_ERR_INVALID);
        else
            CHECK(st == MIP_OK || st == MIP_ERR_MALFORMED);
        if (st == MIP_OK && (o.present & MIP_TCP_HAS_SACK))
            CHECK(o.sack_count >= 1 && o.sack_count <= MIP_TCP_SACK_MAX);
        free(c);
    }

    st = mip_tcp_parse(d, n, &h);
    if (st != MIP_OK) {
        CHECK(st == MIP_ERR_TRUNCATED || st == MIP_ERR_MALFORMED);
        return;
    }
    CHECK(h.hdr_len >= 20 && h.hdr_len <= 60 && h.hdr_len % 4 == 0 && h.hdr_len <= n);

    /* fixed header round trip */
    CHECK(mip_tcp_emit(&h, hdr, 19) == MIP_ERR_NOSPACE);
    CHECK(mip_tcp_emit(&h, hdr, sizeof hdr) == MIP_OK);
    CHECK(memcmp(hdr, d, 12) == 0 && (hdr[12] & 0xF0) == (d[12] & 0xF0));
    CHECK(memcmp(hdr + 13, d + 13, 7) == 0);

    /* options */
    c = dup_exact(d + 20, h.hdr_len - 20u);
    st = mip_tcp_opts_parse(c, h.hdr_len - 20u, &o);
    free(c);
    if (st != MIP_OK) {
        CHECK(st == MIP_ERR_MALFORMED);
        return;
    }
    nsack = expected_sack(&o);
    CHECK(mip_tcp_opts_len(&o) <= 40 && mip_tcp_opts_len(&o) % 4 == 0);
    CHECK(mip_tcp_opts_emit(&o, ob, sizeof ob, &w) == MIP_OK);
    CHECK(w == mip_tcp_opts_len(&o));
    if (w > 0)
        CHECK(mip_tcp_opts_emit(&o, ob2, w - 1, &w2) == MIP_ERR_NOSPACE);

    /* emit -> parse gives the same options (SACK blocks beyond what fits
     * in 40 bytes are dropped by design) */
    c = dup_exact(ob, w);
    CHECK(mip_tcp_opts_parse(c, w, &o2) == MIP_OK);
    free(c);
    check_opts_equal(&o, &o2, nsack);

    /* emit is a fixed point after one round */
    CHECK(mip_tcp_opts_emit(&o2, ob2, sizeof ob2, &w2) == MIP_OK);
    CHECK(w2 == w && memcmp(ob, ob2, w) == 0);

    /* and a whole header with those options parses back */
    h.hdr_len = (uint8_t)(20u + w);
    CHECK(mip_tcp_emit(&h, hdr, sizeof hdr) == MIP_OK);
    memcpy(hdr + 20, ob, w);
    c = dup_exact(hdr, 20u + w);
    CHECK(mip_tcp_parse(c, 20u + w, &h2) == MIP_OK);
    CHECK(h2.hdr_len == 20u + w && h2.src_port == h.src_port && h2.dst_port == h.dst_port);
    CHECK(h2.seq == h.seq && h2.ack == h.ack && h2.flags == h.flags);
    CHECK(h2.window == h.window && h2.checksum == h.checksum && h2.urgent == h.urgent);
    CHECK(mip_tcp_opts_parse(c + 20, w, &o3) == MIP_OK);
    check_opts_equal(&o2, &o3, o2.present & MIP_TCP_HAS_SACK ? o2.sack_count : 0);
    free(c);
}

/* --- checksum: against a plain reference --------------------------------- */

static uint16_t ref_fold(uint64_t s)
{
    while (s >> 16)
        s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)s;
}

static uint64_t ref_sum(uint64_t s, const uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i + 1 < n; i += 2)
        s += (uint32_t)((p[i] << 8) | p[i + 1]);
    if (n & 1)
        s += (uint32_t)p[n - 1] << 8;
    return s;
}

static bool all_zero(const uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

static void fz_checksum(const uint8_t *d, size_t n)
{
    uint32_t init;
    uint8_t *c;
    size_t split;
    uint16_t full, ref;

    if (n < 6)
        return;
    init = mip_rd32(d);
    split = (size_t)(d[4] * 2u);
    d += 5;
    n -= 5;
    c = dup_exact(d, n);

    /* any starting sum, any length */
    ref = (uint16_t)~ref_fold(ref_sum(init, c, n));
    full = mip_cksum_finish(mip_cksum_add(init, c, n));
    CHECK(full == ref);
    /* split at an even point */
    if (split <= n)
        CHECK(mip_cksum_finish(mip_cksum_add(mip_cksum_add(init, c, split), c + split,
                                             n - split)) == full);
    /* inserting the checksum makes the data verify (even-length data) */
    if (n >= 4 && n % 2 == 0) {
        size_t at = (split % n) & ~(size_t)1;
        uint16_t ck, old = mip_rd16(c + at);
        mip_wr16(c + at, 0);
        ck = mip_cksum_finish(mip_cksum_add(0, c, n));
        mip_wr16(c + at, ck);
        CHECK(mip_cksum_finish(mip_cksum_add(0, c, n)) == 0);
        mip_wr16(c + at, old);
    }
    /* incremental updates agree with recomputation (documented exception:
     * the covered data becoming all zero) */
    if (n >= 8 && n % 2 == 0) {
        size_t at = (split % (n - 2)) & ~(size_t)1;
        uint16_t ck = mip_cksum_finish(mip_cksum_add(0, c, n));
        uint16_t o16 = mip_rd16(c + at), n16 = (uint16_t)(init ^ 0x5A5A);
        uint16_t upd = mip_cksum_update16(ck, o16, n16), re;
        mip_wr16(c + at, n16);
        re = mip_cksum_finish(mip_cksum_add(0, c, n));
        if (upd != re)
            CHECK(all_zero(c, n) && upd == 0 && re == 0xFFFF);
        ck = re;
        at = (split % (n - 4)) & ~(size_t)1;
        {
            uint32_t o32 = mip_rd32(c + at);
            upd = mip_cksum_update32(ck, o32, init);
            mip_wr32(c + at, init);
            re = mip_cksum_finish(mip_cksum_add(0, c, n));
            if (upd != re)
                CHECK(all_zero(c, n) && upd == 0 && re == 0xFFFF);
        }
    }
    /* pseudo headers against their wire layout */
    if (n >= 32) {
        uint8_t ph[40];
        uint16_t l4 = mip_rd16(d);
        uint32_t l6 = mip_rd32(d) ;
        memcpy(ph, d, 4);
        memcpy(ph + 4, d + 4, 4);
        ph[8] = 0;
        ph[9] = d[8];
        mip_wr16(ph + 10, l4);
        CHECK(mip_cksum_finish(mip_cksum_pseudo4(d, d + 4, d[8], l4)) ==
              (uint16_t)~ref_fold(ref_sum(0, ph, 12)));
        memcpy(ph, d, 32);
        mip_wr32(ph + 32, l6);
        ph[36] = ph[37] = ph[38] = 0;
        ph[39] = d[8];
        {
            uint8_t full6[40];
            memcpy(full6, ph, 40);
            CHECK(mip_cksum_finish(mip_cksum_pseudo6(d, d + 16, d[8], l6)) ==
                  (uint16_t)~ref_fold(ref_sum(0, full6, 40)));
        }
    }
    free(c);
}

/* --- IEEE 802.15.4 MHR and FCS ----------------------------------------- */

static void fz_ieee802154(const uint8_t *d, size_t n)
{
    struct mip_802154_hdr h, g;
    uint8_t buf[32], *c;
    size_t hl = 0, hl2 = 0, out = 0;
    uint16_t fcs;

    if (mip_ieee802154_parse(d, n, &h, &hl) == MIP_OK) {
        CHECK(hl >= 3 && hl <= n && hl <= 23);
        CHECK(hl == mip_ieee802154_hdr_len(&h));
        CHECK(mip_ieee802154_emit(&h, buf, sizeof buf, &out) == MIP_OK);
        CHECK(out == hl);
        /* everything but the reserved frame control bits (7-9) comes back */
        CHECK((buf[0] & 0x7Fu) == (d[0] & 0x7Fu) && (buf[1] & 0xFCu) == (d[1] & 0xFCu));
        CHECK((buf[0] & 0x80u) == 0 && (buf[1] & 0x03u) == 0);
        CHECK(memcmp(buf + 2, d + 2, hl - 2) == 0);
        c = dup_exact(buf, out);
        CHECK(mip_ieee802154_parse(c, out, &g, &hl2) == MIP_OK && hl2 == hl);
        free(c);
        CHECK(g.type == h.type && g.seq == h.seq && g.dst.mode == h.dst.mode &&
              g.src.mode == h.src.mode && g.dst_pan == h.dst_pan && g.src_pan == h.src_pan);
        CHECK(mip_ieee802154_emit(&h, buf, hl - 1, &out) == MIP_ERR_NOSPACE);
    }
    /* a secured frame: the MHR with the security bit, then the aux header
     * (802.15.4-2015 s.9.4) round-trips byte for byte */
    if (mip_ieee802154_parse_mhr(d, n, &h, &hl) == MIP_OK && h.security) {
        struct mip_802154_sec s, t;
        size_t al = 0, al2 = 0;
        CHECK(h.version == 1 && hl <= n);
        CHECK(mip_ieee802154_parse(d, n, &g, &hl2) == MIP_ERR_UNSUPPORTED);
        if (mip_ieee802154_sec_parse(d + hl, n - hl, &s, &al) == MIP_OK) {
            CHECK(al >= 5 && al <= MIP_802154_SEC_LEN_MAX && hl + al <= n);
            CHECK(al == mip_ieee802154_sec_len(&s) && s.level <= 7 && s.key_id_mode <= 3);
            CHECK(mip_ieee802154_sec_emit(&s, buf, sizeof buf, &out) == MIP_OK && out == al);
            CHECK(memcmp(buf, d + hl, al) == 0);
            c = dup_exact(buf, out);
            CHECK(mip_ieee802154_sec_parse(c, out, &t, &al2) == MIP_OK && al2 == al);
            /* field by field: the struct has padding */
            CHECK(s.level == t.level && s.key_id_mode == t.key_id_mode &&
                  s.frame_counter == t.frame_counter && s.key_index == t.key_index &&
                  memcmp(s.key_source, t.key_source, sizeof s.key_source) == 0);
            free(c);
            CHECK(mip_ieee802154_sec_emit(&s, buf, al - 1, &out) == MIP_ERR_NOSPACE);
        }
    }
    /* an MPDU with its FCS appended checks to a zero residue */
    c = malloc(n + 2);
    if (c == NULL)
        abort();
    if (n)
        memcpy(c, d, n);
    fcs = mip_ieee802154_fcs(d, n);
    c[n] = (uint8_t)fcs;
    c[n + 1] = (uint8_t)(fcs >> 8);
    CHECK(mip_ieee802154_fcs(c, n + 2) == 0);
    free(c);
}

/* --- 6LoWPAN ---------------------------------------------------------------- */

static void fz_link(uint8_t mode, const uint8_t *b, struct mip_802154_addr *a)
{
    memset(a, 0, sizeof *a);
    a->mode = (uint8_t)(mode == 1 ? MIP_802154_ADDR_SHORT
                                  : mode == 2 ? MIP_802154_ADDR_EXT : MIP_802154_ADDR_NONE);
    a->short_addr = mip_rd16(b);
    memcpy(a->ext, b, 8);
}

/* Whether compressing ip[0..n) under env elided a UDP checksum: the
 * header came out shorter than without the link's authorisation. */
static bool fz_udp_elided(const uint8_t *ip, size_t n, const struct mip_lowpan_env *env,
                          size_t hlen)
{
    struct mip_lowpan_env e = *env;
    uint8_t hc[MIP_LOWPAN_IPHC_MAX];
    size_t consumed = 0, h2 = 0;
    if (!env->udp_cksum_elide)
        return false;
    e.udp_cksum_elide = false;
    return mip_lowpan_iphc_compress(ip, n, &e, hc, sizeof hc, &consumed, &h2) == MIP_OK &&
           h2 != hlen;
}

/* The other direction, on the same bytes read as an IPv6 datagram (IPHC
 * dispatches 0x60-0x7F and IPv6 version 6 share 0x60-0x6F): what the
 * compressor accepts, the decompressor takes back unchanged, told the
 * datagram's size (a FRAG1) or given the whole datagram as one frame. */
static void fz_iphc_compress_first(const uint8_t *ip, size_t n,
                                   const struct mip_lowpan_env *env)
{
    uint8_t hc[MIP_LOWPAN_IPHC_MAX], out[MIP_LOWPAN_UNCOMP_MAX], frame[MIP_LOWPAN_IPHC_MAX + 2048];
    uint8_t *c;
    size_t consumed = 0, hlen = 0, consumed2 = 0, olen = 0, size;
    if (mip_lowpan_iphc_compress(ip, n, env, hc, sizeof hc, &consumed, &hlen) != MIP_OK)
        return;
    CHECK(n >= 40 && hlen >= 2 && hlen <= MIP_LOWPAN_IPHC_MAX && consumed <= n);
    size = 40u + mip_rd16(ip + 4);
    CHECK(n <= size);
    /* an elided UDP checksum comes back only from the whole datagram */
    if (!fz_udp_elided(ip, n, env, hlen)) {
        c = dup_exact(hc, hlen);
        CHECK(mip_lowpan_iphc_decompress(c, hlen, env, size, out, sizeof out, &consumed2,
                                         &olen) == MIP_OK);
        free(c);
        CHECK(consumed2 == hlen && olen == consumed && memcmp(out, ip, olen) == 0);
    }
    if (n == size && n - consumed <= sizeof frame - hlen) {
        memcpy(frame, hc, hlen);
        memcpy(frame + hlen, ip + consumed, n - consumed);
        c = dup_exact(frame, hlen + n - consumed);
        CHECK(mip_lowpan_iphc_decompress(c, hlen + n - consumed, env, 0, out, sizeof out,
                                         &consumed2, &olen) == MIP_OK);
        CHECK(consumed2 == hlen && olen == consumed && memcmp(out, ip, olen) == 0);
        free(c);
    }
}

/* Input: [modes][8 src][8 dst][4 x 8 contexts] then a 6LoWPAN payload.
 * modes: bits 0-1 link source (none, short, extended), 2-3 destination,
 * 4-6 context count (0..4), 7 the payload is a FRAG1 datagram_size (u16
 * next). The last context's last byte doubles as the shared-context
 * switches: bit 0 the UDP checksum may be elided, bit 1 a shared port
 * pair (the last context's first 4 bytes). What decompresses must compress back to the same header, and to
 * no more bytes than it came in (the compressor picks the shortest form);
 * fragment headers re-emit byte for byte. */
static void fz_sixlowpan(const uint8_t *d, size_t n)
{
    static const uint8_t zero[49];
    uint8_t ctx[4][8], out[MIP_LOWPAN_UNCOMP_MAX + 1], hc[MIP_LOWPAN_IPHC_MAX];
    uint8_t dgram[64 + 2048], out2[MIP_LOWPAN_UNCOMP_MAX], fbuf[8], *c;
    const uint8_t *hdr = n >= 49 ? d : zero;
    struct mip_802154_addr ls, ld, back;
    struct mip_lowpan_env env;
    struct mip_lowpan_frag f;
    size_t consumed = 0, olen = 0, consumed2 = 0, hlen = 0, consumed3 = 0, olen3 = 0, fl = 0;
    size_t dsize = 0, rest;
    uint8_t iid[8];
    unsigned i;

    fz_link(hdr[0] & 3u, hdr + 1, &ls);
    fz_link((hdr[0] >> 2) & 3u, hdr + 9, &ld);
    for (i = 0; i < 4; i++)
        memcpy(ctx[i], hdr + 17 + 8 * i, 8);
    memset(&env, 0, sizeof env);
    env.src = &ls;
    env.dst = &ld;
    env.ctx = ctx;
    env.ctx_count = (uint8_t)((hdr[0] >> 4) & 7u);
    if (env.ctx_count > 4)
        env.ctx_count = 4;
    env.udp_cksum_elide = (hdr[48] & 1u) != 0u;
    env.has_udp_ports = (hdr[48] & 2u) != 0u;
    env.udp_ports[0] = mip_rd16(hdr + 41);
    env.udp_ports[1] = mip_rd16(hdr + 43);
    if (n >= 49) {
        d += 49;
        n -= 49;
    }
    if ((hdr[0] & 0x80u) && n >= 2) {
        dsize = mip_rd16(d) & 0x07FFu;
        d += 2;
        n -= 2;
    }
    c = dup_exact(d, n);

    /* the IID mapping is its own inverse for stations it names (except
     * extended addresses 02:00:00:ff:fe:00:XX:XX, whose IID is the short
     * address form) */
    if (mip_lowpan_iid_from_link(&ls, iid) == MIP_OK &&
        mip_lowpan_link_from_iid(iid, &back) == MIP_OK &&
        !(ls.mode == MIP_802154_ADDR_EXT && iid[3] == 0xFFu && iid[4] == 0xFEu &&
          iid[0] == 0 && iid[1] == 0 && iid[2] == 0 && iid[5] == 0))
        CHECK(back.mode == ls.mode &&
              (ls.mode == MIP_802154_ADDR_SHORT ? back.short_addr == ls.short_addr
                                                : memcmp(back.ext, ls.ext, 8) == 0));
    if (n >= 1)
        (void)mip_lowpan_dispatch_of(c[0]);

    if (mip_lowpan_frag_parse(c, n, &f, &fl) == MIP_OK) {
        size_t fo = 0;
        CHECK(fl == (f.first ? 4u : 5u) && fl <= n && f.size <= 2047u && f.offset % 8u == 0);
        CHECK(mip_lowpan_frag_emit(&f, fbuf, sizeof fbuf, &fo) == MIP_OK && fo == fl);
        CHECK(memcmp(fbuf, c, fl) == 0);
    }

    if (mip_lowpan_iphc_decompress(c, n, &env, dsize, out, sizeof out, &consumed, &olen) ==
        MIP_OK) {
        CHECK(consumed >= 2 && consumed <= n && (olen == 40 || olen == 48));
        rest = n - consumed;
        CHECK(dsize == 0 || dsize >= olen);
        memcpy(dgram, out, olen);
        memcpy(dgram + olen, c + consumed, rest);
        if (dsize == 0)
            CHECK(mip_rd16(dgram + 4) == olen - 40 + rest);
        else
            CHECK(mip_rd16(dgram + 4) == dsize - 40);
        /* re-compress what came out (with the payload that is present,
         * up to the datagram's end) */
        if (dsize != 0 && olen + rest > dsize)
            rest = dsize - olen;
        if (mip_lowpan_iphc_compress(dgram, olen + rest, &env, hc, sizeof hc, &consumed2,
                                     &hlen) == MIP_OK) {
            uint8_t *c2;
            CHECK(hlen <= MIP_LOWPAN_IPHC_MAX && consumed2 <= olen + rest);
            /* (a context with a multicast prefix, or an inline multicast
             * address under M=0, decodes to what the compressor must carry
             * in a multicast form or inline: not comparable) */
            if (dsize == 0 && consumed2 == olen && dgram[8] != 0xFFu &&
                (dgram[24] == 0xFFu) == ((c[1] & 0x08u) != 0))
                CHECK(hlen <= consumed);
            if (fz_udp_elided(dgram, olen + rest, &env, hlen)) {
                /* only the whole datagram gives an elided checksum back. The
                 * compressor may take in more than the decompressor gave
                 * out: a UDP header that came inline (olen 40) is compressed
                 * by NHC now (consumed2 48); the rest follows it. */
                uint8_t whole[MIP_LOWPAN_IPHC_MAX + 2048];
                size_t tail;
                CHECK(consumed2 >= olen && consumed2 <= olen + rest);
                tail = olen + rest - consumed2;
                memcpy(whole, hc, hlen);
                memcpy(whole + hlen, dgram + consumed2, tail);
                c2 = dup_exact(whole, hlen + tail);
                CHECK(mip_lowpan_iphc_decompress(c2, hlen + tail, &env, 0, out2, sizeof out2,
                                                 &consumed3, &olen3) == MIP_OK);
            } else {
                c2 = dup_exact(hc, hlen);
                CHECK(mip_lowpan_iphc_decompress(c2, hlen, &env,
                                                 dsize ? dsize : olen + rest, out2, sizeof out2,
                                                 &consumed3, &olen3) == MIP_OK);
            }
            free(c2);
            CHECK(consumed3 == hlen && olen3 == consumed2);
            CHECK(memcmp(out2, dgram, olen3) == 0);
        } else {
            FAIL("a decompressed header does not compress again");
        }
    }
    fz_iphc_compress_first(c, n, &env);
    free(c);
}

/* --- RPL's data-plane headers (RFC 6554 SRH, RFC 6553 RPL Option) ----------- */

/* Input: [16 bytes: the packet's Destination Address][an SRH, or an RPL
 * Option when the first header byte is odd ... both are tried]. Parsed
 * headers are expanded, emitted again from their addresses and parsed
 * back: the same route must come out. A router's swap must keep the
 * header parsable with one segment fewer and its length unchanged. */
static void fz_srh(const uint8_t *dst, const uint8_t *d, size_t n)
{
    struct mip_srh h, h2;
    uint8_t (*route)[16];
    uint8_t *re, *c, cur[16], back[16];
    size_t len = 0;
    uint16_t i, idx = 0;
    mip_status st = mip_srh_parse(d, n, &h);

    if (st != MIP_OK) {
        CHECK(st == MIP_ERR_TRUNCATED || st == MIP_ERR_MALFORMED);
        return;
    }
    CHECK(h.len <= n && h.len % 8 == 0 && h.len <= MIP_SRH_LEN_MAX);
    CHECK(h.n >= 1 && h.cmpr_i <= 15 && h.cmpr_e <= 15 && h.pad <= 15);
    CHECK(MIP_SRH_FIXED_LEN + (size_t)(h.n - 1) * (16u - h.cmpr_i) + (16u - h.cmpr_e) +
          h.pad == h.len);
    route = malloc((size_t)h.n * 16u);
    if (route == NULL)
        abort();
    for (i = 1; i <= h.n; i++)
        CHECK(mip_srh_addr(&h, i, dst, route[i - 1]) == MIP_OK);
    CHECK(mip_srh_addr(&h, 0, dst, cur) == MIP_ERR_INVALID);
    if (h.n <= 255) {
        size_t want = mip_srh_emit_len(dst, (const uint8_t (*)[16])route, h.n);
        re = malloc(want);
        if (re == NULL)
            abort();
        st = mip_srh_emit(h.next_header, dst, (const uint8_t (*)[16])route, h.n, re, want,
                          &len);
        CHECK(st == MIP_OK || (st == MIP_ERR_INVALID && want > MIP_SRH_LEN_MAX));
        if (st == MIP_OK) {
            CHECK(len == want);
            CHECK(mip_srh_parse(re, len, &h2) == MIP_OK);
            CHECK(h2.n == h.n && h2.next_header == h.next_header && h2.segments_left == h.n);
            for (i = 1; i <= h2.n; i++) {
                CHECK(mip_srh_addr(&h2, i, dst, cur) == MIP_OK);
                CHECK(memcmp(cur, route[i - 1], 16) == 0);
            }
        }
        free(re);
    }
    /* the router's step, on an exact copy */
    c = dup_exact(d, h.len);
    CHECK(mip_srh_parse(c, h.len, &h2) == MIP_OK);
    memcpy(cur, dst, 16);
    st = mip_srh_swap(c, &h2, cur, &idx);
    if (h.segments_left == 0 || h.segments_left > h.n) {
        CHECK(st == MIP_ERR_INVALID && memcmp(c, d, h.len) == 0);
    } else {
        CHECK(st == MIP_OK && idx == h.n - h.segments_left + 1);
        CHECK(memcmp(cur, route[idx - 1], 16) == 0);
        CHECK(mip_srh_parse(c, h.len, &h2) == MIP_OK);
        CHECK(h2.n == h.n && h2.segments_left == h.segments_left - 1 && h2.len == h.len);
        /* the old destination is in slot idx */
        CHECK(mip_srh_addr(&h2, idx, cur, back) == MIP_OK);
        CHECK(memcmp(back, dst, 16) == 0);
    }
    free(c);
    free(route);
}

static void fz_rpi(const uint8_t *d, size_t n)
{
    struct mip_rpi o, o2;
    uint8_t hbh[MIP_RPI_HBH_LEN];
    size_t off = 0;
    mip_status st = mip_rpi_parse(d, n, &o);

    if (st != MIP_OK) {
        CHECK(st == MIP_ERR_TRUNCATED || st == MIP_ERR_MALFORMED);
        return;
    }
    CHECK(mip_rpi_type_is(d[0]) && n >= 6u && d[1] >= 4u && (size_t)d[1] + 2u <= n);
    CHECK(mip_rpi_hbh_emit(d[0], d[0], &o, hbh, sizeof hbh) == MIP_OK);
    CHECK(mip_rpi_parse(hbh + 2, 6, &o2) == MIP_OK);
    CHECK(o.down == o2.down && o.rank_error == o2.rank_error && o.fwd_error == o2.fwd_error);
    CHECK(o.instance == o2.instance && o.sender_rank == o2.sender_rank);
    CHECK(hbh[0] == d[0] && hbh[1] == 0 && hbh[3] == 4);
    CHECK(mip_rpi_find(hbh, sizeof hbh, &off) == MIP_OK && off == 2u);
}

/* The bytes as a Hop-by-Hop Options header, on an exact copy: an RPL Option
 * found lies inside the header, after its two fixed bytes, and parses
 * (Opt Data Len < 4 is MALFORMED, never TRUNCATED: the header holds it);
 * a header longer than the bytes is TRUNCATED. mip_rpi_find had run under
 * no harness before session 16 (the RPL Option was parsed only from a
 * known offset). */
static void fz_rpi_find(const uint8_t *d, size_t n)
{
    uint8_t *c = dup_exact(d, n);
    struct mip_rpi o;
    size_t off = 0, end;
    mip_status st = mip_rpi_find(c, n, &off);

    if (n < 2u || ((size_t)d[1] + 1u) * 8u > n) {
        CHECK(st == MIP_ERR_TRUNCATED);
    } else {
        end = ((size_t)d[1] + 1u) * 8u;
        CHECK(st == MIP_OK || st == MIP_ERR_NOTFOUND || st == MIP_ERR_MALFORMED);
        if (st == MIP_OK) {
            CHECK(off >= 2u && off + 2u <= end && mip_rpi_type_is(d[off]));
            CHECK(off + 2u + d[off + 1u] <= end);
            st = mip_rpi_parse(c + off, end - off, &o);
            CHECK(st == MIP_OK || (st == MIP_ERR_MALFORMED && d[off + 1u] < 4u));
        }
    }
    free(c);
}

static void fz_rpl_ext(const uint8_t *d, size_t n)
{
    uint8_t dst[16];

    if (n < 16)
        return;
    memcpy(dst, d, 16);
    fz_srh(dst, d + 16, n - 16);
    fz_rpi(d + 16, n - 16);
    fz_rpi_find(d + 16, n - 16);
}

/* --- dispatch ------------------------------------------------------------ */

typedef void (*codec_fn)(const uint8_t *, size_t);

/* fz_icmp twice: it had a slot per IP version, and the corpora's first
 * bytes still pick the codecs after it by these positions. */
static const codec_fn codecs[] = {
    fz_eth, fz_arp, fz_ipv4, fz_ipv6, fz_icmp, fz_icmp, fz_nd, fz_udp, fz_tcp,
    fz_checksum, fz_ieee802154, fz_sixlowpan, fz_rpl_ext,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *c;

    if (size < 1)
        return 0;
    /* an exact heap copy so that over-reads past the end are caught */
    c = dup_exact(data + 1, size - 1);
    codecs[data[0] % (sizeof codecs / sizeof codecs[0])](c, size - 1);
    free(c);
    return 0;
}
