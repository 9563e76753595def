/*
 * 6LoWPAN codec: IPHC known encodings (OpenThread's RFC 6282 test vectors
 * and frames captured from Zephyr's 802.15.4 L2), compress/decompress round
 * trips over many header shapes, every truncation of compressed input, the
 * reserved and unsupported encodings, fragment headers and dispatch values.
 * Parsers run on exact-size heap copies so ASan sees any read past len.
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/addr.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/sixlowpan.h"
#include "exact.h"
#include "testing.h"

static void parse6(const char *text, uint8_t out[16])
{
    struct mip_addr a;
    CHECK_EQ(mip_addr_parse(text, &a, NULL), MIP_OK);
    memcpy(out, a.bytes, 16);
}

/* --- link addresses and contexts of the vectors ------------------------- */

static struct mip_802154_addr link_short(uint16_t a)
{
    struct mip_802154_addr l;
    memset(&l, 0, sizeof l);
    l.mode = MIP_802154_ADDR_SHORT;
    l.short_addr = a;
    return l;
}

static struct mip_802154_addr link_ext(const uint8_t e[8])
{
    struct mip_802154_addr l;
    memset(&l, 0, sizeof l);
    l.mode = MIP_802154_ADDR_EXT;
    memcpy(l.ext, e, 8);
    return l;
}

static const uint8_t ot_src_long[8] = {0x00, 0x00, 0x5e, 0xef, 0x10, 0x22, 0x11, 0x00};
static const uint8_t ot_dst_long[8] = {0x00, 0x00, 0x5e, 0xef, 0x10, 0xaa, 0xbb, 0xcc};
static const uint8_t ot_ctx[2][8] = {
    {0xfd, 0x00, 0xca, 0xfe, 0xfa, 0xce, 0x12, 0x34},   /* context 0 */
    {0x20, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01},   /* context 1 */
};

enum { LS = 1, LL = 2, LB = 3 };   /* short default, long default, broadcast */

static struct mip_802154_addr vec_link(int kind, bool src)
{
    if (kind == LL)
        return link_ext(src ? ot_src_long : ot_dst_long);
    if (kind == LB)
        return link_short(0xFFFF);
    return link_short(src ? 0x0000 : 0xC003);
}

/* --- known encodings -------------------------------------------------------- */

/* OpenThread tests/unit/test_lowpan.cpp: IPv6 header fields, link
 * addresses, and the IPHC (+NHC) bytes RFC 6282 gives for them. Payload: 8
 * bytes (an ICMPv6 echo request start) after the headers. */
struct iphc_vec {
    const char *name;
    int lsrc, ldst;
    uint32_t vtcfl;
    uint8_t nh, hlim;
    const char *src, *dst;
    bool udp;
    uint16_t sport, dport, csum;
    bool compress, decompress;
    size_t len;
    uint8_t iphc[48];
};

static const struct iphc_vec vecs[] = {
    {"long addresses fully elided", LL, LL, 0x60000000, 58, 64,
     "fe80::200:5eef:1022:1100", "fe80::200:5eef:10aa:bbcc", false, 0, 0, 0, true, true,
     3, {0x7a, 0x33, 0x3a}},
    {"short addresses fully elided", LS, LS, 0x60000000, 58, 64,
     "fe80::ff:fe00:0", "fe80::ff:fe00:c003", false, 0, 0, 0, true, true,
     3, {0x7a, 0x33, 0x3a}},
    {"short src long dst elided", LS, LL, 0x60000000, 58, 64,
     "fe80::ff:fe00:0", "fe80::200:5eef:10aa:bbcc", false, 0, 0, 0, true, true,
     3, {0x7a, 0x33, 0x3a}},
    {"unspecified source", LL, LS, 0x60000000, 58, 64,
     "::", "fe80::ff:fe00:c003", false, 0, 0, 0, true, true,
     3, {0x7a, 0x43, 0x3a}},
    {"addresses inline", LL, LS, 0x60000000, 58, 64,
     "2001:2:0:3:aaaa:bbbb:cccc:dddd", "2001:2:0:4::", false, 0, 0, 0, true, true,
     35, {0x7a, 0x00, 0x3a, 0x20, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 0xaa,
          0xaa, 0xbb, 0xbb, 0xcc, 0xcc, 0xdd, 0xdd, 0x20, 0x01, 0x00, 0x02, 0x00,
          0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},
    {"64-bit IIDs, long link", LL, LL, 0x60000000, 58, 64,
     "fe80::200:5eef:1022:1101", "fe80::200:5eef:10aa:bbcd", false, 0, 0, 0, true, true,
     19, {0x7a, 0x11, 0x3a, 0x02, 0x00, 0x5e, 0xef, 0x10, 0x22, 0x11,
          0x01, 0x02, 0x00, 0x5e, 0xef, 0x10, 0xaa, 0xbb, 0xcd}},
    {"64-bit IIDs, short link", LS, LS, 0x60000000, 58, 64,
     "fe80::200:5eef:1022:1101", "fe80::200:5eef:10aa:bbcd", false, 0, 0, 0, true, true,
     19, {0x7a, 0x11, 0x3a, 0x02, 0x00, 0x5e, 0xef, 0x10, 0x22, 0x11,
          0x01, 0x02, 0x00, 0x5e, 0xef, 0x10, 0xaa, 0xbb, 0xcd}},
    {"16-bit IIDs", LS, LS, 0x60000000, 58, 64,
     "fe80::ff:fe00:1", "fe80::ff:fe00:c004", false, 0, 0, 0, true, true,
     7, {0x7a, 0x22, 0x3a, 0x00, 0x01, 0xc0, 0x04}},
    {"source elided, destination 16-bit", LL, LL, 0x60000000, 58, 64,
     "fe80::200:5eef:1022:1100", "fe80::ff:fe00:beaf", false, 0, 0, 0, true, true,
     5, {0x7a, 0x32, 0x3a, 0xbe, 0xaf}},
    {"source elided, destination inline", LL, LL, 0x60000000, 58, 64,
     "fe80::200:5eef:1022:1100", "2001:2:0:4::", false, 0, 0, 0, true, true,
     19, {0x7a, 0x30, 0x3a, 0x20, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00,
          0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},
    {"multicast inline", LL, LB, 0x60000000, 58, 64,
     "fe80::200:5eef:1022:1100", "ff05::100:30:1", false, 0, 0, 0, true, true,
     19, {0x7a, 0x38, 0x3a, 0xff, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00,
          0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x30, 0x00, 0x01}},
    {"multicast 48-bit", LL, LB, 0x60000000, 58, 64,
     "fe80::200:5eef:1022:1100", "ff05::1:30:1", false, 0, 0, 0, true, true,
     9, {0x7a, 0x39, 0x3a, 0x05, 0x01, 0x00, 0x30, 0x00, 0x01}},
    {"multicast 32-bit", LS, LB, 0x60000000, 58, 64,
     "fe80::200:5eef:1022:1100", "ff03::fc", false, 0, 0, 0, true, true,
     15, {0x7a, 0x1a, 0x3a, 0x02, 0x00, 0x5e, 0xef, 0x10, 0x22, 0x11, 0x00,
          0x03, 0x00, 0x00, 0xfc}},
    {"multicast 8-bit", LL, LB, 0x60000000, 58, 64,
     "fe80::200:5eef:1022:1100", "ff02::2", false, 0, 0, 0, true, true,
     4, {0x7a, 0x3b, 0x3a, 0x02}},
    {"context 0, 64-bit IIDs", LS, LS, 0x60000000, 58, 64,
     "fd00:cafe:face:1234:abcd:ef01:2345:6789", "fd00:cafe:face:1234:c31d:a702:d41:beef",
     false, 0, 0, 0, true, true,
     19, {0x7a, 0x55, 0x3a, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67,
          0x89, 0xc3, 0x1d, 0xa7, 0x02, 0x0d, 0x41, 0xbe, 0xef}},
    {"context 0 named by a CID byte", LS, LS, 0x60000000, 58, 64,
     "fd00:cafe:face:1234:abcd:ef01:2345:6789", "fd00:cafe:face:1234:c31d:a702:d41:beef",
     false, 0, 0, 0, false, true,
     20, {0x7a, 0xd5, 0x00, 0x3a, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45,
          0x67, 0x89, 0xc3, 0x1d, 0xa7, 0x02, 0x0d, 0x41, 0xbe, 0xef}},
    {"context 0, 16-bit IIDs", LS, LS, 0x60000000, 58, 64,
     "fd00:cafe:face:1234::ff:fe00:fffc", "fd00:cafe:face:1234::ff:fe00:fffe",
     false, 0, 0, 0, true, true,
     7, {0x7a, 0x66, 0x3a, 0xff, 0xfc, 0xff, 0xfe}},
    {"context 0, long link IIDs elided", LL, LL, 0x60000000, 58, 64,
     "fd00:cafe:face:1234:200:5eef:1022:1100", "fd00:cafe:face:1234:200:5eef:10aa:bbcc",
     false, 0, 0, 0, true, true,
     3, {0x7a, 0x77, 0x3a}},
    {"context 0, short link IIDs elided", LS, LS, 0x60000000, 58, 64,
     "fd00:cafe:face:1234::ff:fe00:0", "fd00:cafe:face:1234::ff:fe00:c003",
     false, 0, 0, 0, true, true,
     3, {0x7a, 0x77, 0x3a}},
    {"context 1 source, destination inline", LS, LS, 0x60000000, 58, 64,
     "2001:2:0:1:abcd:ef01:2345:6789", "2001:2:0:3:c31d:a702:d41:beef",
     false, 0, 0, 0, true, true,
     28, {0x7a, 0xd0, 0x10, 0x3a, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89,
          0x20, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 0xc3, 0x1d, 0xa7, 0x02,
          0x0d, 0x41, 0xbe, 0xef}},
    {"context 1, 64-bit IIDs", LS, LS, 0x60000000, 58, 64,
     "2001:2:0:1:abcd:ef01:2345:6789", "2001:2:0:1:c31d:a702:d41:beef",
     false, 0, 0, 0, true, true,
     20, {0x7a, 0xd5, 0x11, 0x3a, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45,
          0x67, 0x89, 0xc3, 0x1d, 0xa7, 0x02, 0x0d, 0x41, 0xbe, 0xef}},
    {"multicast from context 0 (RFC 3306)", LL, LS, 0x60000000, 58, 64,
     "fd00:cafe:face:1234:200:5eef:1022:1100", "ff33:40:fd00:cafe:face:1234:0:1",
     false, 0, 0, 0, true, true,
     9, {0x7a, 0x7c, 0x3a, 0x33, 0x00, 0x00, 0x00, 0x00, 0x01}},
    {"ECN + flow label, 3 bytes", LL, LL, 0x6011ac59, 58, 64,
     "fe80::200:5eef:1022:1100", "fe80::200:5eef:10aa:bbcc", false, 0, 0, 0, true, true,
     6, {0x6a, 0x33, 0x41, 0xac, 0x59, 0x3a}},
    {"traffic class, 1 byte", LL, LL, 0x60d00000, 58, 64,
     "fe80::200:5eef:1022:1100", "fe80::200:5eef:10aa:bbcc", false, 0, 0, 0, true, true,
     4, {0x72, 0x33, 0x43, 0x3a}},
    {"ECN only, 1 byte", LL, LL, 0x60100000, 58, 64,
     "fe80::200:5eef:1022:1100", "fe80::200:5eef:10aa:bbcc", false, 0, 0, 0, true, true,
     4, {0x72, 0x33, 0x40, 0x3a}},
    {"traffic class + flow label inline", LL, LL, 0x6ea12345, 58, 64,
     "fe80::200:5eef:1022:1100", "fe80::200:5eef:10aa:bbcc", false, 0, 0, 0, true, true,
     7, {0x62, 0x33, 0xba, 0x01, 0x23, 0x45, 0x3a}},
    {"hop limit 1", LS, LS, 0x60000000, 58, 1,
     "fe80::ff:fe00:0", "fe80::ff:fe00:c003", false, 0, 0, 0, true, true,
     3, {0x79, 0x33, 0x3a}},
    {"hop limit 255", LS, LS, 0x60000000, 58, 255,
     "fe80::ff:fe00:0", "fe80::ff:fe00:c003", false, 0, 0, 0, true, true,
     3, {0x7b, 0x33, 0x3a}},
    {"hop limit inline", LS, LS, 0x60000000, 58, 63,
     "fe80::ff:fe00:0", "fe80::ff:fe00:c003", false, 0, 0, 0, true, true,
     4, {0x78, 0x33, 0x3a, 0x3f}},
    {"UDP ports inline", LL, LL, 0x60000000, 17, 64,
     "fe80::200:5eef:1022:1100", "fe80::200:5eef:10aa:bbcc", true, 5683, 5684, 0xbeef,
     true, true, 9, {0x7e, 0x33, 0xf0, 0x16, 0x33, 0x16, 0x34, 0xbe, 0xef}},
    {"UDP destination 8-bit", LL, LL, 0x60000000, 17, 64,
     "fe80::200:5eef:1022:1100", "fe80::200:5eef:10aa:bbcc", true, 5683, 61441, 0xbeef,
     true, true, 8, {0x7e, 0x33, 0xf1, 0x16, 0x33, 0x01, 0xbe, 0xef}},
    {"UDP source 8-bit", LL, LL, 0x60000000, 17, 64,
     "fe80::200:5eef:1022:1100", "fe80::200:5eef:10aa:bbcc", true, 61695, 5683, 0xbeef,
     true, true, 8, {0x7e, 0x33, 0xf2, 0xff, 0x16, 0x33, 0xbe, 0xef}},
    {"UDP ports 4-bit", LL, LL, 0x60000000, 17, 64,
     "fe80::200:5eef:1022:1100", "fe80::200:5eef:10aa:bbcc", true, 61616, 61631, 0xface,
     true, true, 6, {0x7e, 0x33, 0xf3, 0x0f, 0xfa, 0xce}},
    {"UDP ports 4-bit, multicast", LL, LL, 0x60000000, 17, 64,
     "fe80::200:5eef:1022:1100", "ff02::1", true, 61616, 61631, 0xface,
     true, true, 7, {0x7e, 0x3b, 0x01, 0xf3, 0x0f, 0xfa, 0xce}},
    {"UDP without NHC", LS, LS, 0x60000000, 17, 64,
     "fe80::ff:fe00:0", "fe80::ff:fe00:c003", false, 0, 0, 0, false, true,
     3, {0x7a, 0x33, 0x11}},
};

static const uint8_t payload8[8] = {0x80, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06};

/* The uncompressed datagram of a vector: IPv6 (+UDP) header + payload8. */
static size_t vec_datagram(const struct iphc_vec *v, uint8_t *buf)
{
    size_t hl = v->udp ? 48u : 40u, plen = hl - 40u + sizeof payload8;
    mip_wr32(buf, v->vtcfl);
    mip_wr16(buf + 4, (uint16_t)plen);
    buf[6] = v->nh;
    buf[7] = v->hlim;
    parse6(v->src, buf + 8);
    parse6(v->dst, buf + 24);
    if (v->udp) {
        mip_wr16(buf + 40, v->sport);
        mip_wr16(buf + 42, v->dport);
        mip_wr16(buf + 44, (uint16_t)plen);
        mip_wr16(buf + 46, v->csum);
    }
    memcpy(buf + hl, payload8, sizeof payload8);
    return hl + sizeof payload8;
}

static void vec_env(const struct iphc_vec *v, struct mip_802154_addr *ls,
                    struct mip_802154_addr *ld, struct mip_lowpan_env *env)
{
    memset(env, 0, sizeof *env);    /* every context present and usable */
    *ls = vec_link(v->lsrc, true);
    *ld = vec_link(v->ldst, false);
    env->src = ls;
    env->dst = ld;
    env->ctx = ot_ctx;
    env->ctx_count = 2;
}

static void test_known_encodings(void)
{
    size_t i;
    for (i = 0; i < sizeof vecs / sizeof vecs[0]; i++) {
        const struct iphc_vec *v = &vecs[i];
        struct mip_802154_addr ls, ld;
        struct mip_lowpan_env env;
        uint8_t dgram[64], out[64], frame[64], *c;
        size_t dlen = vec_datagram(v, dgram), consumed = 0, n = 0, flen;
        int before = testing_failures;
        vec_env(v, &ls, &ld, &env);
        if (v->compress) {
            c = dup_exact(dgram, dlen);
            CHECK_EQ(mip_lowpan_iphc_compress(c, dlen, &env, out, sizeof out, &consumed, &n),
                     MIP_OK);
            free(c);
            CHECK_EQ(consumed, v->udp ? 48 : 40);
            CHECK_EQ(n, v->len);
            CHECK_MEM(out, v->iphc, v->len);
        }
        if (v->decompress) {
            memcpy(frame, v->iphc, v->len);
            memcpy(frame + v->len, payload8, sizeof payload8);
            flen = v->len + sizeof payload8;
            c = dup_exact(frame, flen);
            CHECK_EQ(mip_lowpan_iphc_decompress(c, flen, &env, 0, out, sizeof out, &consumed, &n),
                     MIP_OK);
            free(c);
            CHECK_EQ(consumed, v->len);
            CHECK_EQ(n, v->udp ? 48 : 40);
            CHECK_MEM(out, dgram, n);
            /* with the size a FRAG1 would announce: the same header */
            c = dup_exact(frame, v->len);
            CHECK_EQ(mip_lowpan_iphc_decompress(c, v->len, &env, dlen, out, sizeof out,
                                                &consumed, &n), MIP_OK);
            free(c);
            CHECK_MEM(out, dgram, n);
        }
        if (testing_failures != before)
            fprintf(stderr, "  (vector: %s)\n", v->name);
    }
}

/* Zephyr tests/net/ieee802154/l2: two Neighbor Solicitations as its L2
 * sends and receives them (MHR + IPHC + ICMPv6). The ICMPv6 checksums in
 * them only verify if decompression rebuilt the addresses and length. */
static const uint8_t zephyr_ns[80] = {
    0x41, 0xd8, 0x45, 0xcd, 0xab, 0xff, 0xff,
    0xc2, 0xa3, 0x9e, 0x00, 0x00, 0x4b, 0x12, 0x00,
    0x7b, 0x09, 0x3a,
    0x20, 0x01, 0xdb, 0x08, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x02, 0x01, 0xff, 0x00, 0x00, 0x01,
    0x87, 0x00, 0x91, 0x11, 0x00, 0x00, 0x00, 0x00,
    0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x01, 0xff, 0x00, 0x00, 0x01,
    0x01, 0x02, 0x00, 0x12, 0x4b, 0x00, 0x00, 0x9e, 0xa3, 0xc2,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const uint8_t zephyr_ns_ar[64] = {
    0x61, 0xd8, 0x16, 0xcd, 0xab, 0x78, 0x56,
    0xc2, 0xa3, 0x9e, 0x00, 0x00, 0x4b, 0x12, 0x00,
    0x7b, 0x39, 0x3a,
    0x02, 0x01, 0xff, 0x4b, 0x12, 0x00,
    0x87, 0x00, 0xb7, 0x45, 0x00, 0x00, 0x00, 0x00,
    0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x70, 0x14, 0xa6, 0x1c, 0x00, 0x4b, 0x12, 0x00,
    0x01, 0x02, 0xe5, 0xac, 0xa1, 0x1c, 0x00, 0x4b, 0x12, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void check_zephyr_frame(const uint8_t *f, size_t flen, const char *src, const char *dst)
{
    struct mip_802154_hdr h;
    struct mip_lowpan_env env;
    uint8_t ip[128], want[16], hc[64], *c;
    size_t hl = 0, consumed = 0, n = 0, plen, n2 = 0, consumed2 = 0;
    CHECK_EQ(mip_ieee802154_parse(f, flen, &h, &hl), MIP_OK);
    memset(&env, 0, sizeof env);
    env.src = &h.src;
    env.dst = &h.dst;
    c = dup_exact(f + hl, flen - hl);
    CHECK_EQ(mip_lowpan_iphc_decompress(c, flen - hl, &env, 0, ip, sizeof ip, &consumed, &n),
             MIP_OK);
    CHECK_EQ(n, 40);
    plen = flen - hl - consumed;
    memcpy(ip + 40, c + consumed, plen);
    free(c);
    CHECK_EQ(mip_rd16(ip + 4), plen);
    CHECK_EQ(ip[6], 58);
    CHECK_EQ(ip[7], 255);
    parse6(src, want);
    CHECK_MEM(ip + 8, want, 16);
    parse6(dst, want);
    CHECK_MEM(ip + 24, want, 16);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(mip_cksum_pseudo6(ip + 8, ip + 24, 58,
                                                              (uint32_t)plen),
                                            ip + 40, plen)), 0);
    /* compressing it again gives the bytes the other stack sent */
    CHECK_EQ(mip_lowpan_iphc_compress(ip, 40 + plen, &env, hc, sizeof hc, &consumed2, &n2),
             MIP_OK);
    CHECK_EQ(consumed2, 40);
    CHECK_EQ(n2, consumed);
    CHECK_MEM(hc, f + hl, consumed);
}

static void test_zephyr_frames(void)
{
    check_zephyr_frame(zephyr_ns, sizeof zephyr_ns, "2001:db08::1", "ff02::1:ff00:1");
    check_zephyr_frame(zephyr_ns_ar, sizeof zephyr_ns_ar, "fe80::212:4b00:9e:a3c2",
                       "ff02::1:ff4b:1200");
}

/* --- round trips over many shapes ------------------------------------------ */

static uint32_t rng_state = 12345u;

static uint32_t rnd(void)
{
    /* xorshift32: deterministic, so failures reproduce */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static void rnd_bytes(uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)rnd();
}

static const uint8_t rt_ctx[4][8] = {
    {0xfd, 0x00, 0, 0, 0, 0, 0, 0},
    {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1},
    {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 2},
    {0xfe, 0x80, 0, 0, 0, 0, 0, 0},   /* shadows link-local: stateless must still win */
};

static void rnd_link(struct mip_802154_addr *l)
{
    memset(l, 0, sizeof *l);
    switch (rnd() % 4u) {
    case 0:
        l->mode = MIP_802154_ADDR_NONE;
        break;
    case 1:
        l->mode = MIP_802154_ADDR_SHORT;
        l->short_addr = (uint16_t)rnd();
        break;
    case 2:
        l->mode = MIP_802154_ADDR_SHORT;
        l->short_addr = 0xFFFF;
        break;
    default:
        l->mode = MIP_802154_ADDR_EXT;
        rnd_bytes(l->ext, 8);
        break;
    }
}

/* A unicast address in one of the shapes IPHC treats differently. */
static void rnd_unicast(uint8_t *a, const struct mip_802154_addr *link, uint8_t nctx)
{
    uint32_t k = rnd() % 8u;
    memset(a, 0, 16);
    if (k < 4u) {
        a[0] = 0xfe;
        a[1] = 0x80;
    } else if (k < 6u && nctx > 0u) {
        memcpy(a, rt_ctx[rnd() % nctx], 8);
    } else {
        rnd_bytes(a, 8);
        a[0] = (uint8_t)(a[0] & 0x7Fu);   /* not multicast */
    }
    switch (rnd() % 4u) {
    case 0:
        if (mip_lowpan_iid_from_link(link, a + 8) != MIP_OK)
            rnd_bytes(a + 8, 8);
        break;
    case 1:
        a[11] = 0xff;
        a[12] = 0xfe;
        a[14] = (uint8_t)rnd();
        a[15] = (uint8_t)rnd();
        break;
    case 2:
        rnd_bytes(a + 8, 8);
        break;
    default:
        a[15] = (uint8_t)rnd();   /* ::XX, a zero-ish IID */
        break;
    }
}

static void rnd_multicast(uint8_t *a, uint8_t nctx)
{
    memset(a, 0, 16);
    a[0] = 0xff;
    a[1] = (uint8_t)rnd();
    switch (rnd() % 5u) {
    case 0:
        a[1] = 0x02;
        a[15] = (uint8_t)rnd();
        break;
    case 1:
        rnd_bytes(a + 13, 3);
        break;
    case 2:
        rnd_bytes(a + 11, 5);
        break;
    case 3:
        a[2] = (uint8_t)rnd();
        a[3] = 64;
        memcpy(a + 4, rt_ctx[nctx > 0u ? rnd() % nctx : 0u], 8);
        rnd_bytes(a + 12, 4);
        break;
    default:
        rnd_bytes(a + 1, 15);
        break;
    }
}

static void test_round_trips_many_shapes(void)
{
    unsigned iter, ok = 0, with_udp = 0, with_cid = 0, tiny = 0;
    for (iter = 0; iter < 20000u; iter++) {
        struct mip_802154_addr ls, ld;
        struct mip_lowpan_env env;
        uint8_t ip[128], hc[MIP_LOWPAN_IPHC_MAX], frame[192], out[64], *c;
        size_t plen = rnd() % 40u, dlen, consumed = 0, n = 0, consumed2 = 0, n2 = 0;
        uint8_t tc = 0, hlims[4] = {1, 64, 255, 0};
        uint32_t flow = 0, k = rnd() % 5u;
        bool udp;
        rnd_link(&ls);
        rnd_link(&ld);
        memset(&env, 0, sizeof env);
        env.src = &ls;
        env.dst = &ld;
        env.ctx = rt_ctx;
        env.ctx_count = (uint8_t)(rnd() % 5u);
        if (k == 1u)
            tc = (uint8_t)(rnd() & 3u);
        else if (k == 2u)
            tc = (uint8_t)(rnd() & 0xFCu);
        else if (k >= 3u)
            tc = (uint8_t)rnd();
        if (k == 3u || k == 4u)
            flow = rnd() & 0xFFFFFu;
        if (k == 4u && (rnd() & 1u))
            tc = (uint8_t)(tc & 3u);
        mip_wr32(ip, (6ul << 28) | ((uint32_t)tc << 20) | flow);
        hlims[3] = (uint8_t)rnd();
        ip[7] = hlims[rnd() % 4u];
        udp = (rnd() % 3u) != 0u;
        ip[6] = udp ? 17u : (uint8_t)rnd();
        rnd_unicast(ip + 8, &ls, env.ctx_count);
        if (rnd() % 6u == 0u)
            memset(ip + 8, 0, 16);   /* unspecified source */
        if (rnd() & 1u)
            rnd_multicast(ip + 24, env.ctx_count);
        else
            rnd_unicast(ip + 24, &ld, env.ctx_count);
        if (udp) {
            static const uint16_t ports[6] = {0xF0B3, 0xF0BF, 0xF012, 0xF0FF, 5683, 0};
            uint16_t sp = ports[rnd() % 6u], dp = ports[rnd() % 6u];
            plen += 8u;
            mip_wr16(ip + 40, sp ? sp : (uint16_t)rnd());
            mip_wr16(ip + 42, dp ? dp : (uint16_t)rnd());
            /* a UDP Length that disagrees must stop NHC, not be lost */
            mip_wr16(ip + 44, (uint16_t)(rnd() % 8u == 0u ? plen + 1u : plen));
            mip_wr16(ip + 46, (uint16_t)rnd());
            rnd_bytes(ip + 48, plen - 8u);
        } else {
            rnd_bytes(ip + 40, plen);
        }
        mip_wr16(ip + 4, (uint16_t)plen);
        dlen = 40u + plen;

        c = dup_exact(ip, dlen);
        CHECK_EQ(mip_lowpan_iphc_compress(c, dlen, &env, hc, sizeof hc, &consumed, &n), MIP_OK);
        free(c);
        CHECK(n <= MIP_LOWPAN_IPHC_MAX && n >= 2u);
        CHECK(consumed == 40u || consumed == 48u);
        if (consumed == 48u)
            with_udp++;
        if (n >= 3u && (hc[1] & 0x80u))
            with_cid++;
        if ((hc[1] & 0x33u) == 0x33u)
            tiny++;   /* both addresses elided */
        memcpy(frame, hc, n);
        memcpy(frame + n, ip + consumed, dlen - consumed);
        c = dup_exact(frame, n + dlen - consumed);
        CHECK_EQ(mip_lowpan_iphc_decompress(c, n + dlen - consumed, &env, 0, out, sizeof out,
                                            &consumed2, &n2), MIP_OK);
        free(c);
        CHECK_EQ(consumed2, n);
        CHECK_EQ(n2, consumed);
        if (memcmp(out, ip, n2) == 0)
            ok++;
        else
            CHECK_MEM(out, ip, n2);
        /* a FRAG1 announcing the size decompresses the same */
        c = dup_exact(hc, n);
        CHECK_EQ(mip_lowpan_iphc_decompress(c, n, &env, dlen, out, sizeof out, &consumed2, &n2),
                 MIP_OK);
        free(c);
        CHECK_MEM(out, ip, n2);
    }
    CHECK_EQ(ok, 20000u);
    /* the generator reached the interesting shapes */
    CHECK(with_udp > 5000u);
    CHECK(with_cid > 500u);
    CHECK(tiny > 100u);
}

/* Context-based compression wins only when it is shorter: one CID byte is
 * not worth it for an address stateless compression already elides. */
/* fe80::ff:fe00:1 -> 2001:db8:0:1::ff:fe00:2 (no next header) between
 * short addresses 1 and 2, with the contexts rt_ctx[0..ctx_count). */
static void ll_to_ctx1(uint8_t ip[40], struct mip_lowpan_env *env,
                       const struct mip_802154_addr *ls, const struct mip_802154_addr *ld,
                       uint8_t ctx_count)
{
    memset(ip, 0, 40);
    mip_wr32(ip, 0x60000000u);
    ip[6] = 59;
    ip[7] = 64;
    parse6("fe80::ff:fe00:1", ip + 8);
    parse6("2001:db8:0:1::ff:fe00:2", ip + 24);
    memset(env, 0, sizeof *env);
    env->src = ls;
    env->dst = ld;
    env->ctx = rt_ctx;
    env->ctx_count = ctx_count;
}

static void test_cid_only_when_shorter(void)
{
    uint8_t ip[40], hc[64];
    struct mip_802154_addr ls = link_short(0x0001), ld = link_short(0x0002);
    struct mip_lowpan_env env;
    size_t consumed, n;
    ll_to_ctx1(ip, &env, &ls, &ld, 1);
    /* no context covers the destination: inline */
    CHECK_EQ(mip_lowpan_iphc_compress(ip, 40, &env, hc, sizeof hc, &consumed, &n), MIP_OK);
    CHECK_EQ(n, 3u + 16u);
    env.ctx_count = 3;   /* context 1 = 2001:db8:0:1::/64 */
    CHECK_EQ(mip_lowpan_iphc_compress(ip, 40, &env, hc, sizeof hc, &consumed, &n), MIP_OK);
    CHECK_EQ(n, 4u);
    CHECK_EQ(hc[1], 0x80 | 0x30 | 0x07);   /* CID, SAM=11, DAC=1 DAM=11 */
    CHECK_EQ(hc[2], 0x01);                  /* SCI 0 (unused), DCI 1 */
    /* NOSPACE one byte short */
    CHECK_EQ(mip_lowpan_iphc_compress(ip, 40, &env, hc, 3, &consumed, &n), MIP_ERR_NOSPACE);
    CHECK_EQ(mip_lowpan_iphc_compress(ip, 39, &env, hc, sizeof hc, &consumed, &n),
             MIP_ERR_TRUNCATED);
    ip[0] = 0x40;
    CHECK_EQ(mip_lowpan_iphc_compress(ip, 40, &env, hc, sizeof hc, &consumed, &n),
             MIP_ERR_MALFORMED);
    /* no env at all: everything inline but still decodable */
    ip[0] = 0x60;
    CHECK_EQ(mip_lowpan_iphc_compress(ip, 40, NULL, hc, sizeof hc, &consumed, &n), MIP_OK);
    CHECK_EQ(n, 3u + 2u + 16u);   /* source IID in the 16-bit form */
}

/* The context masks (6LoWPAN-ND, RFC 6775 s.4.2): a context marked absent
 * is neither used nor decoded (NOTFOUND); one marked decompression-only
 * (6CO C clear) decodes but is never used to compress. */
static void test_context_masks(void)
{
    uint8_t ip[40], hc[64], out[48];
    struct mip_802154_addr ls = link_short(0x0001), ld = link_short(0x0002);
    struct mip_lowpan_env env;
    size_t consumed, n, c2, ol;
    ll_to_ctx1(ip, &env, &ls, &ld, 3);
    CHECK_EQ(mip_lowpan_iphc_compress(ip, 40, &env, hc, sizeof hc, &consumed, &n), MIP_OK);
    CHECK_EQ(n, 4u);                        /* context 1 used */
    env.ctx_nocomp = 1u << 1;
    CHECK_EQ(mip_lowpan_iphc_compress(ip, 40, &env, out, sizeof out, &consumed, &n), MIP_OK);
    CHECK_EQ(n, 3u + 16u);                  /* decompression only: inline */
    /* ... but what names it still decodes */
    CHECK_EQ(mip_lowpan_iphc_decompress(hc, 4, &env, 0, out, sizeof out, &c2, &ol), MIP_OK);
    CHECK_MEM(out + 24, ip + 24, 16);
    env.ctx_nocomp = 0;
    env.ctx_absent = 1u << 1;
    CHECK_EQ(mip_lowpan_iphc_compress(ip, 40, &env, out, sizeof out, &consumed, &n), MIP_OK);
    CHECK_EQ(n, 3u + 16u);
    CHECK_EQ(mip_lowpan_iphc_decompress(hc, 4, &env, 0, out, sizeof out, &c2, &ol),
             MIP_ERR_NOTFOUND);
}

/* What the compressor accepts, the decompressor takes back: issue 12 found
 * a UDP header with Length 1 (= Payload Length, so NHC was chosen) lying
 * past the datagram's declared end, whose compressed form no receiver
 * could expand. Each row is a datagram of ip_len bytes whose header says
 * Payload Length plen; the UDP header, when there is room, carries
 * udp_len. */
static void test_compress_accepts_only_what_decompresses(void)
{
    static const struct {
        uint16_t plen, ip_len, udp_len;
        mip_status want;
        bool nhc;
    } rows[] = {
        {1, 48, 1, MIP_ERR_MALFORMED, false},     /* the review's input */
        {0, 48, 0, MIP_ERR_MALFORMED, false},     /* 8 bytes past the end */
        {20, 61, 20, MIP_ERR_MALFORMED, false},   /* one byte past the end */
        {1, 41, 0, MIP_OK, false},                /* too short for UDP: inline */
        {7, 47, 0, MIP_OK, false},
        {0, 40, 0, MIP_OK, false},
        {8, 48, 8, MIP_OK, true},                 /* an empty UDP datagram */
        {100, 48, 100, MIP_OK, true},             /* a first fragment */
        {100, 48, 8, MIP_OK, false},              /* Length disagrees: inline */
        {100, 140, 100, MIP_OK, true},
    };
    struct mip_802154_addr ls = link_short(1), ld = link_short(2);
    struct mip_lowpan_env env;
    unsigned i;
    memset(&env, 0, sizeof env);
    env.src = &ls;
    env.dst = &ld;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint8_t ip[160], hc[MIP_LOWPAN_IPHC_MAX], out[64], *c;
        size_t consumed = 0, n = 0, consumed2 = 0, n2 = 0;
        mip_status st;
        memset(ip, 0xA5, sizeof ip);
        mip_wr32(ip, 0x60000000u);
        mip_wr16(ip + 4, rows[i].plen);
        ip[6] = 17;
        ip[7] = 64;
        parse6("fe80::ff:fe00:1", ip + 8);
        parse6("fe80::ff:fe00:2", ip + 24);
        if (rows[i].ip_len >= 48u)
            mip_wr16(ip + 44, rows[i].udp_len);
        c = dup_exact(ip, rows[i].ip_len);
        st = mip_lowpan_iphc_compress(c, rows[i].ip_len, &env, hc, sizeof hc, &consumed, &n);
        free(c);
        CHECK_EQ(st, rows[i].want);
        if (st != MIP_OK)
            continue;
        CHECK_EQ(consumed, rows[i].nhc ? 48u : 40u);
        c = dup_exact(hc, n);
        CHECK_EQ(mip_lowpan_iphc_decompress(c, n, &env, 40u + rows[i].plen, out, sizeof out,
                                            &consumed2, &n2), MIP_OK);
        free(c);
        CHECK_EQ(consumed2, n);
        CHECK_EQ(n2, consumed);
        CHECK_MEM(out, ip, n2);
    }
}

/* --- truncations and bad encodings --------------------------------------- */

static void test_every_truncation_rejected(void)
{
    size_t i, len, consumed, n;
    for (i = 0; i < sizeof vecs / sizeof vecs[0]; i++) {
        const struct iphc_vec *v = &vecs[i];
        struct mip_802154_addr ls, ld;
        struct mip_lowpan_env env;
        uint8_t out[64];
        vec_env(v, &ls, &ld, &env);
        for (len = 0; len < v->len; len++) {
            uint8_t *c = dup_exact(v->iphc, len);
            CHECK_EQ(mip_lowpan_iphc_decompress(c, len, &env, 0, out, sizeof out, &consumed, &n),
                     MIP_ERR_TRUNCATED);
            free(c);
        }
    }
    /* the Zephyr frames too, payload included */
    for (len = 15; len < 15u + 24u; len++) {
        struct mip_802154_hdr h;
        struct mip_lowpan_env env;
        uint8_t out[64], *c;
        size_t hl;
        CHECK_EQ(mip_ieee802154_parse(zephyr_ns, sizeof zephyr_ns, &h, &hl), MIP_OK);
        memset(&env, 0, sizeof env);
        env.src = &h.src;
        env.dst = &h.dst;
        c = dup_exact(zephyr_ns + 15, len - 15u);
        CHECK_EQ(mip_lowpan_iphc_decompress(c, len - 15u, &env, 0, out, sizeof out, &consumed,
                                            &n), MIP_ERR_TRUNCATED);
        free(c);
    }
}

static mip_status dec(const uint8_t *in, size_t len, const struct mip_lowpan_env *env,
                      size_t dsize, size_t cap)
{
    uint8_t out[64], *c = dup_exact(in, len);
    size_t consumed, n;
    mip_status st = mip_lowpan_iphc_decompress(c, len, env, dsize, out, cap, &consumed, &n);
    free(c);
    return st;
}

static void test_bad_and_unsupported_encodings(void)
{
    struct mip_802154_addr ls = link_short(1), ld = link_short(2), none;
    struct mip_lowpan_env env, env_none;
    uint8_t b[64];
    memset(&none, 0, sizeof none);
    memset(&env, 0, sizeof env);
    env.src = &ls;
    env.dst = &ld;
    env.ctx = ot_ctx;
    env.ctx_count = 1;
    memset(b, 0, sizeof b);
    /* not IPHC */
    b[0] = 0x41;
    CHECK_EQ(dec(b, 40, &env, 0, 64), MIP_ERR_MALFORMED);
    /* M=0 DAC=1 DAM=00: reserved */
    b[0] = 0x7a; b[1] = 0x34; b[2] = 0x3a;
    CHECK_EQ(dec(b, 40, &env, 0, 64), MIP_ERR_MALFORMED);
    /* M=1 DAC=1 DAM=01..11: reserved */
    b[1] = 0x3d;
    CHECK_EQ(dec(b, 40, &env, 0, 64), MIP_ERR_MALFORMED);
    b[1] = 0x3f;
    CHECK_EQ(dec(b, 40, &env, 0, 64), MIP_ERR_MALFORMED);
    /* a context beyond those configured: SAC=1 SAM=11 with CID SCI=1 */
    b[1] = (uint8_t)(0x80 | 0x70 | 0x03); b[2] = 0x10; b[3] = 0x3a;
    CHECK_EQ(dec(b, 40, &env, 0, 64), MIP_ERR_NOTFOUND);
    env.ctx_count = 0;
    b[1] = 0x73; b[2] = 0x3a;   /* context 0, not configured */
    CHECK_EQ(dec(b, 40, &env, 0, 64), MIP_ERR_NOTFOUND);
    env.ctx_count = 1;
    CHECK_EQ(dec(b, 40, &env, 0, 64), MIP_OK);
    /* an elided address with no link address to derive it from */
    env_none = env;
    env_none.src = &none;
    b[1] = 0x33;
    CHECK_EQ(dec(b, 40, &env_none, 0, 64), MIP_ERR_MALFORMED);
    CHECK_EQ(dec(b, 40, NULL, 0, 64), MIP_ERR_MALFORMED);
    /* NHC: extension header (1110xxxx), UDP with elided checksum */
    b[0] = 0x7e; b[1] = 0x33; b[2] = 0xe0;
    CHECK_EQ(dec(b, 40, &env, 0, 64), MIP_ERR_UNSUPPORTED);
    b[2] = 0xf7;
    CHECK_EQ(dec(b, 40, &env, 0, 64), MIP_ERR_UNSUPPORTED);
    b[2] = 0xf3;
    CHECK_EQ(dec(b, 40, &env, 0, 64), MIP_OK);
    /* output space: 40 without NHC, 48 with */
    CHECK_EQ(dec(b, 40, &env, 0, 47), MIP_ERR_NOSPACE);
    CHECK_EQ(dec(b, 40, &env, 0, 48), MIP_OK);
    b[0] = 0x7a; b[2] = 0x3a;
    CHECK_EQ(dec(b, 40, &env, 0, 39), MIP_ERR_NOSPACE);
    /* a FRAG1 size smaller than the header it carries */
    CHECK_EQ(dec(b, 3, &env, 39, 64), MIP_ERR_MALFORMED);
    CHECK_EQ(dec(b, 3, &env, 40, 64), MIP_OK);
}

/* --- link addresses <-> IIDs -------------------------------------------------- */

static void test_iid_link_mapping(void)
{
    static const uint8_t ext[8] = {0x00, 0x12, 0x4b, 0x00, 0x00, 0x9e, 0xa3, 0xc2};
    static const uint8_t iid_ext[8] = {0x02, 0x12, 0x4b, 0x00, 0x00, 0x9e, 0xa3, 0xc2};
    static const uint8_t iid_short[8] = {0, 0, 0, 0xff, 0xfe, 0, 0xbe, 0xef};
    struct mip_802154_addr a = link_ext(ext), b, none;
    uint8_t iid[8];
    memset(&none, 0, sizeof none);
    CHECK_EQ(mip_lowpan_iid_from_link(&a, iid), MIP_OK);
    CHECK_MEM(iid, iid_ext, 8);
    CHECK_EQ(mip_lowpan_link_from_iid(iid, &b), MIP_OK);
    CHECK_EQ(b.mode, MIP_802154_ADDR_EXT);
    CHECK_MEM(b.ext, ext, 8);
    a = link_short(0xbeef);
    CHECK_EQ(mip_lowpan_iid_from_link(&a, iid), MIP_OK);
    CHECK_MEM(iid, iid_short, 8);
    CHECK_EQ(mip_lowpan_link_from_iid(iid, &b), MIP_OK);
    CHECK_EQ(b.mode, MIP_802154_ADDR_SHORT);
    CHECK_EQ(b.short_addr, 0xbeef);
    CHECK_EQ(mip_lowpan_iid_from_link(&none, iid), MIP_ERR_INVALID);
    /* IIDs that name no single station */
    memset(iid, 0, 8);
    CHECK_EQ(mip_lowpan_link_from_iid(iid, &b), MIP_ERR_NOTFOUND);
    memcpy(iid, "\xfd\xff\xff\xff\xff\xff\xff\x80", 8);
    CHECK_EQ(mip_lowpan_link_from_iid(iid, &b), MIP_ERR_NOTFOUND);
    iid[7] = 0x7f;
    CHECK_EQ(mip_lowpan_link_from_iid(iid, &b), MIP_OK);
    memcpy(iid, iid_short, 6);
    iid[6] = 0xff;
    iid[7] = 0xff;
    CHECK_EQ(mip_lowpan_link_from_iid(iid, &b), MIP_ERR_NOTFOUND);
    iid[7] = 0xfe;
    CHECK_EQ(mip_lowpan_link_from_iid(iid, &b), MIP_ERR_NOTFOUND);
    /* ::1 is an extended address, 02:00:..:01 */
    memset(iid, 0, 8);
    iid[7] = 1;
    CHECK_EQ(mip_lowpan_link_from_iid(iid, &b), MIP_OK);
    CHECK_EQ(b.mode, MIP_802154_ADDR_EXT);
    CHECK_EQ(b.ext[0], 0x02);
    CHECK_EQ(b.ext[7], 0x01);
}

/* --- fragment headers and dispatch ----------------------------------------- */

static void test_frag_headers(void)
{
    /* NuttX's documented transfer: FRAG1 then FRAGN at offset 13 * 8 */
    static const uint8_t frag1[4] = {0xc5, 0x0e, 0x00, 0x0b};
    static const uint8_t fragn[5] = {0xe5, 0x0e, 0x00, 0x0b, 0x0d};
    struct mip_lowpan_frag f;
    uint8_t buf[8], *c;
    size_t hl = 0, n = 0, len;

    c = dup_exact(frag1, 4);
    CHECK_EQ(mip_lowpan_frag_parse(c, 4, &f, &hl), MIP_OK);
    free(c);
    CHECK(f.first);
    CHECK_EQ(hl, 4);
    CHECK_EQ(f.size, 1294);
    CHECK_EQ(f.tag, 0x000b);
    CHECK_EQ(f.offset, 0);
    CHECK_EQ(mip_lowpan_frag_emit(&f, buf, sizeof buf, &n), MIP_OK);
    CHECK_EQ(n, 4);
    CHECK_MEM(buf, frag1, 4);

    c = dup_exact(fragn, 5);
    CHECK_EQ(mip_lowpan_frag_parse(c, 5, &f, &hl), MIP_OK);
    free(c);
    CHECK(!f.first);
    CHECK_EQ(hl, 5);
    CHECK_EQ(f.size, 1294);
    CHECK_EQ(f.tag, 0x000b);
    CHECK_EQ(f.offset, 104);
    CHECK_EQ(mip_lowpan_frag_emit(&f, buf, sizeof buf, &n), MIP_OK);
    CHECK_EQ(n, 5);
    CHECK_MEM(buf, fragn, 5);

    for (len = 0; len < 4; len++) {
        c = dup_exact(frag1, len);
        CHECK_EQ(mip_lowpan_frag_parse(c, len, &f, &hl), MIP_ERR_TRUNCATED);
        free(c);
    }
    for (len = 0; len < 5; len++) {
        c = dup_exact(fragn, len);
        CHECK_EQ(mip_lowpan_frag_parse(c, len, &f, &hl), MIP_ERR_TRUNCATED);
        free(c);
    }
    buf[0] = 0x7a;
    CHECK_EQ(mip_lowpan_frag_parse(buf, 5, &f, &hl), MIP_ERR_MALFORMED);

    /* extremes round trip */
    f.first = false;
    f.size = 2047;
    f.tag = 0xFFFF;
    f.offset = 2040;
    CHECK_EQ(mip_lowpan_frag_emit(&f, buf, sizeof buf, &n), MIP_OK);
    CHECK_MEM(buf, "\xe7\xff\xff\xff\xff", 5);
    CHECK_EQ(mip_lowpan_frag_parse(buf, 5, &f, &hl), MIP_OK);
    CHECK_EQ(f.size, 2047);
    CHECK_EQ(f.offset, 2040);
    /* what emit refuses */
    f.size = 2048;
    CHECK_EQ(mip_lowpan_frag_emit(&f, buf, sizeof buf, &n), MIP_ERR_INVALID);
    f.size = 100;
    f.offset = 12;
    CHECK_EQ(mip_lowpan_frag_emit(&f, buf, sizeof buf, &n), MIP_ERR_INVALID);
    f.offset = 2048;
    CHECK_EQ(mip_lowpan_frag_emit(&f, buf, sizeof buf, &n), MIP_ERR_INVALID);
    f.first = true;
    f.offset = 8;
    CHECK_EQ(mip_lowpan_frag_emit(&f, buf, sizeof buf, &n), MIP_ERR_INVALID);
    f.offset = 0;
    CHECK_EQ(mip_lowpan_frag_emit(&f, buf, 3, &n), MIP_ERR_NOSPACE);
    f.first = false;
    CHECK_EQ(mip_lowpan_frag_emit(&f, buf, 4, &n), MIP_ERR_NOSPACE);
}

static void test_dispatch_values(void)
{
    unsigned b, iphc = 0, frag1 = 0, fragn = 0, mesh = 0, nalp = 0;
    for (b = 0; b < 256u; b++) {
        enum mip_lowpan_dispatch d = mip_lowpan_dispatch_of((uint8_t)b);
        iphc += d == MIP_LOWPAN_D_IPHC;
        frag1 += d == MIP_LOWPAN_D_FRAG1;
        fragn += d == MIP_LOWPAN_D_FRAGN;
        mesh += d == MIP_LOWPAN_D_MESH;
        nalp += d == MIP_LOWPAN_D_NALP;
    }
    CHECK_EQ(iphc, 32);
    CHECK_EQ(frag1, 8);
    CHECK_EQ(fragn, 8);
    CHECK_EQ(mesh, 64);
    CHECK_EQ(nalp, 64);
    CHECK_EQ(mip_lowpan_dispatch_of(0x41), MIP_LOWPAN_D_IPV6);
    CHECK_EQ(mip_lowpan_dispatch_of(0x42), MIP_LOWPAN_D_OTHER);   /* HC1 */
    CHECK_EQ(mip_lowpan_dispatch_of(0x50), MIP_LOWPAN_D_OTHER);   /* BC0 */
    CHECK_EQ(mip_lowpan_dispatch_of(0x3F), MIP_LOWPAN_D_NALP);    /* raw-IP IPv4 */
    CHECK_EQ(mip_lowpan_dispatch_of(0x60), MIP_LOWPAN_D_IPHC);
    CHECK_EQ(mip_lowpan_dispatch_of(0x7F), MIP_LOWPAN_D_IPHC);
    CHECK_EQ(mip_lowpan_dispatch_of(0xC7), MIP_LOWPAN_D_FRAG1);
    CHECK_EQ(mip_lowpan_dispatch_of(0xE7), MIP_LOWPAN_D_FRAGN);
    CHECK_EQ(mip_lowpan_dispatch_of(0xD0), MIP_LOWPAN_D_OTHER);
}

int main(void)
{
    RUN(test_known_encodings);
    RUN(test_zephyr_frames);
    RUN(test_round_trips_many_shapes);
    RUN(test_cid_only_when_shorter);
    RUN(test_context_masks);
    RUN(test_compress_accepts_only_what_decompresses);
    RUN(test_every_truncation_rejected);
    RUN(test_bad_and_unsupported_encodings);
    RUN(test_iid_link_mapping);
    RUN(test_frag_headers);
    RUN(test_dispatch_values);
    return TESTING_DONE();
}
