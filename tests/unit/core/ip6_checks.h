/*
 * IPv6 helpers for the core tests: building ICMPv6 packets (with extension
 * headers and fragments) and checking what the stack sent. Checks are
 * macros so a failure reports the caller's line.
 */
#ifndef MOTEIP_TEST_IP6_CHECKS_H
#define MOTEIP_TEST_IP6_CHECKS_H

#include "fixture.h"

#if MIP_CONF_IPV6

/* True when the upper-layer message of the IPv6 packet pkt (fixed header
 * directly followed by it) verifies with the pseudo header for `proto`. */
static inline bool ip6_l4_cksum_ok(const uint8_t *pkt, size_t len, uint8_t proto)
{
    size_t plen;
    if (len < 40)
        return false;
    plen = mip_rd16(pkt + 4);
    if (len < 40 + plen)
        return false;
    return mip_cksum_finish(mip_cksum_add(mip_cksum_pseudo6(pkt + 8, pkt + 24, proto,
                                                             (uint32_t)plen),
                                          pkt + 40, plen)) == 0;
}

/* Checks the fixed header of the IPv6 packet at pkt. */
#define CHECK_IP6(pkt, src, dst, nh, hop, plen)                                \
    do {                                                                       \
        struct mip_addr ck_s_ = fixture_addr(src), ck_d_ = fixture_addr(dst);  \
        CHECK_EQ((pkt)[0] >> 4, 6);                                            \
        CHECK_EQ(mip_rd16((pkt) + 4), (plen));                                 \
        CHECK_EQ((pkt)[6], (nh));                                              \
        CHECK_EQ((pkt)[7], (hop));                                             \
        CHECK_MEM((pkt) + 8, ck_s_.bytes, 16);                                 \
        CHECK_MEM((pkt) + 24, ck_d_.bytes, 16);                                \
    } while (0)

/* Checks that the frame fr (raw IP) is an ICMPv6 Parameter Problem from
 * `src` to `dst` with code and pointer, quoting orig[0..olen) whole. */
#define CHECK_PARAM_PROBLEM(fr, src, dst, code, ptr, orig, olen)               \
    do {                                                                       \
        CHECK_EQ((fr)->len, 48u + (olen));                                     \
        CHECK_IP6((fr)->data, src, dst, 58, 64, 8u + (olen));                  \
        CHECK_EQ((fr)->data[40], 4);                                           \
        CHECK_EQ((fr)->data[41], (code));                                      \
        CHECK_EQ(mip_rd32((fr)->data + 44), (ptr));                            \
        CHECK(ip6_l4_cksum_ok((fr)->data, (fr)->len, 58));                     \
        CHECK_MEM((fr)->data + 48, (orig), (olen));                            \
    } while (0)

/* Checks that fr (raw IP) is an unfragmented echo reply from src to dst
 * answering the request built by build_echo(.., id, seq, n). */
#define CHECK_ECHO_REPLY(fr, src, dst, id, seq, n)                             \
    do {                                                                       \
        size_t ck_i_;                                                          \
        int ck_bad_ = 0;                                                       \
        CHECK_EQ((fr)->len, 48u + (n));                                        \
        CHECK_IP6((fr)->data, src, dst, 58, 64, 8u + (n));                     \
        CHECK_EQ((fr)->data[40], 129);                                         \
        CHECK_EQ((fr)->data[41], 0);                                           \
        CHECK_EQ(mip_rd16((fr)->data + 44), (id));                             \
        CHECK_EQ(mip_rd16((fr)->data + 46), (seq));                            \
        for (ck_i_ = 0; ck_i_ < (size_t)(n) && 48u + ck_i_ < (fr)->len; ck_i_++) \
            if ((fr)->data[48 + ck_i_] != (uint8_t)(ck_i_ * 7u))              \
                ck_bad_ = 1;                                                   \
        CHECK_EQ(ck_bad_, 0);                                                  \
        CHECK(ip6_l4_cksum_ok((fr)->data, (fr)->len, 58));                     \
    } while (0)

/* An ICMPv6 echo request from src to dst with n data bytes, checksum set,
 * as a whole IPv6 packet; returns its length. */
static inline size_t build_echo6(uint8_t *pkt, const char *src, const char *dst, uint8_t hop,
                                 uint16_t id, uint16_t seq, size_t n)
{
    uint8_t *icmp = malloc(8 + n);
    size_t len, k = build_echo(icmp, 128, id, seq, n);
    fix_l4_checksum6(icmp, k, 2, 58, src, dst);
    len = build_ipv6(pkt, src, dst, 58, hop, icmp, k);
    free(icmp);
    return len;
}

/* An IPv6 packet whose payload is ext[0..ext_len) (extension headers,
 * written by the test with their Next Header fields) followed by the ICMPv6
 * message icmp[0..n), whose checksum is filled in here. first_nh goes in
 * the fixed header. */
static inline size_t build_ext6(uint8_t *pkt, const char *src, const char *dst, uint8_t first_nh,
                                const uint8_t *ext, size_t ext_len, uint8_t *icmp, size_t n)
{
    uint8_t *payload = malloc(ext_len + n + 1);
    size_t len;
    if (n >= 4)
        fix_l4_checksum6(icmp, n, 2, 58, src, dst);
    if (ext_len > 0)
        memcpy(payload, ext, ext_len);
    memcpy(payload + ext_len, icmp, n);
    len = build_ipv6(pkt, src, dst, first_nh, 64, payload, ext_len + n);
    free(payload);
    return len;
}

/* An 8-byte Fragment header. */
static inline void build_frag_hdr(uint8_t *w, uint8_t nh, uint16_t offset, bool more, uint32_t id)
{
    w[0] = nh;
    w[1] = 0;
    mip_wr16(w + 2, (uint16_t)(offset | (more ? 1u : 0u)));
    mip_wr32(w + 4, id);
}

/* One fragment: IPv6 header (next header 44), Fragment header, then
 * data[0..n) (bytes offset.. of the fragmentable part). */
static inline size_t build_frag6(uint8_t *pkt, const char *src, const char *dst, uint8_t nh,
                                 uint32_t id, uint16_t offset, bool more,
                                 const uint8_t *data, size_t n)
{
    uint8_t *payload = malloc(8 + n);
    size_t len;
    build_frag_hdr(payload, nh, offset, more, id);
    memcpy(payload + 8, data, n);
    len = build_ipv6(pkt, src, dst, 44, 64, payload, 8 + n);
    free(payload);
    return len;
}

#endif /* MIP_CONF_IPV6 */
#endif
