/*
 * 6LoWPAN shared-context UDP compression (seed 000 s.9.3, RFC 6282
 * s.4.3.2): the checksum elided only with the link's authorisation, for a
 * whole datagram, and only when it is correct; the shared-port form
 * (MIP_LOWPAN_NHC_UDP_SHARED) only when both ends hold the port pair. One
 * row per case; every encoding the compressor emits is decompressed from
 * an exact-size copy and must give back the datagram byte for byte, and
 * every encoding the decompressor refuses names its reason.
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/config.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/sixlowpan.h"
#include "exact.h"
#include "testing.h"

#if MIP_CONF_LOWPAN_HC
static const uint8_t prefix[1][8] = {{0xFD, 0, 0, 0, 0, 0, 0, 0}};

/* fd00::ff:fe00:SRC -> fd00::ff:fe00:DST, UDP sport -> dport, a 4-byte
 * reading; the checksum correct unless bad_cksum. Returns its length. */
static size_t reading(uint8_t *ip, uint16_t src, uint16_t dst, uint16_t sport, uint16_t dport,
                      bool bad_cksum)
{
    static const uint8_t iid_head[6] = {0, 0, 0, 0xFF, 0xFE, 0};
    uint32_t sum;
    uint16_t c;
    memset(ip, 0, 52);
    ip[0] = 0x60;
    mip_wr16(ip + 4, 12);
    ip[6] = 17;
    ip[7] = 64;
    memcpy(ip + 8, prefix[0], 8);
    memcpy(ip + 16, iid_head, 6);
    mip_wr16(ip + 22, src);
    memcpy(ip + 24, prefix[0], 8);
    memcpy(ip + 32, iid_head, 6);
    mip_wr16(ip + 38, dst);
    mip_wr16(ip + 40, sport);
    mip_wr16(ip + 42, dport);
    mip_wr16(ip + 44, 12);
    mip_wr32(ip + 48, 0x00170042u);   /* 23.0 C, reading 0x42 */
    sum = mip_cksum_pseudo6(ip + 8, ip + 24, 17, 12);
    c = mip_cksum_finish(mip_cksum_add(sum, ip + 40, 12));
    mip_wr16(ip + 46, (uint16_t)((c != 0u ? c : 0xFFFFu) ^ (bad_cksum ? 0x0101u : 0u)));
    return 52;
}

static struct mip_802154_addr short_addr(uint16_t a)
{
    struct mip_802154_addr l;
    memset(&l, 0, sizeof l);
    l.mode = MIP_802154_ADDR_SHORT;
    l.short_addr = a;
    return l;
}

struct row {
    const char *what;
    bool elide;            /* env.udp_cksum_elide */
    bool ports;            /* env.has_udp_ports = {61617, 5683} */
    uint16_t link_src;     /* frame's link source (1: the originator) */
    uint16_t sport, dport;
    bool bad_cksum;
    size_t hc_len;         /* the compressed header's bytes */
    uint8_t nhc;           /* its NHC byte */
};

static const struct row rows[] = {
    {"plain IPHC, 4-bit ports, checksum carried", false, false, 1, 0xF0B1, 0xF0B2, false, 6, 0xF3},
    {"checksum elided: 4 bytes", true, false, 1, 0xF0B1, 0xF0B2, false, 4, 0xF7},
    {"shared ports and elided checksum: 3 bytes", true, true, 1, 61617, 5683, false, 3, 0xFC},
    {"shared ports reversed", true, true, 1, 5683, 61617, false, 3, 0xFD},
    {"shared ports, checksum carried", false, true, 1, 61617, 5683, false, 5, 0xF8},
    {"other ports fall back to RFC 6282", true, true, 1, 61617, 7000, false, 6, 0xF6},
    {"a wrong checksum is never elided", true, true, 1, 61617, 5683, true, 5, 0xF8},
    {"a forwarded reading: 16-bit source", true, true, 7, 61617, 5683, false, 5, 0xFC},
};

static void test_rows(void)
{
    size_t k;
    for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        const struct row *r = &rows[k];
        uint8_t ip[52], hc[MIP_LOWPAN_IPHC_MAX], frame[64], out[64];
        struct mip_802154_addr ls = short_addr(r->link_src), ld = short_addr(2);
        struct mip_lowpan_env env;
        size_t len = reading(ip, 1, 2, r->sport, r->dport, r->bad_cksum), consumed, n, c2, ol;
        uint8_t *exact;
        memset(&env, 0, sizeof env);
        env.src = &ls;
        env.dst = &ld;
        env.ctx = prefix;
        env.ctx_count = 1;
        env.udp_cksum_elide = r->elide;
        env.has_udp_ports = r->ports;
        env.udp_ports[0] = 61617;
        env.udp_ports[1] = 5683;
        CHECK_EQ(mip_lowpan_iphc_compress(ip, len, &env, hc, sizeof hc, &consumed, &n), MIP_OK);
        CHECK_EQ(consumed, 48u);
        if (n != r->hc_len)
            fprintf(stderr, "row %zu (%s): %zu bytes\n", k, r->what, n);
        CHECK_EQ(n, r->hc_len);
        memcpy(frame, hc, n);
        memcpy(frame + n, ip + consumed, len - consumed);
        exact = dup_exact(frame, n + len - consumed);
        CHECK(exact != NULL);
        if (exact == NULL)
            continue;
        CHECK_EQ(mip_lowpan_iphc_decompress(exact, n + len - consumed, &env, 0, out, sizeof out,
                                            &c2, &ol),
                 MIP_OK);
        CHECK_EQ(c2, n);
        CHECK_EQ(ol, 48u);
        memcpy(out + ol, exact + c2, len - consumed);
        CHECK(memcmp(out, ip, len) == 0);
        free(exact);
    }
}

/* The NHC byte of each row's encoding, checked directly. */
static void test_nhc_bytes(void)
{
    size_t k;
    for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        const struct row *r = &rows[k];
        uint8_t ip[52], hc[MIP_LOWPAN_IPHC_MAX];
        struct mip_802154_addr ls = short_addr(r->link_src), ld = short_addr(2);
        struct mip_lowpan_env env;
        size_t len = reading(ip, 1, 2, r->sport, r->dport, r->bad_cksum), consumed, n, at;
        memset(&env, 0, sizeof env);
        env.src = &ls;
        env.dst = &ld;
        env.ctx = prefix;
        env.ctx_count = 1;
        env.udp_cksum_elide = r->elide;
        env.has_udp_ports = r->ports;
        env.udp_ports[0] = 61617;
        env.udp_ports[1] = 5683;
        CHECK_EQ(mip_lowpan_iphc_compress(ip, len, &env, hc, sizeof hc, &consumed, &n), MIP_OK);
        at = r->link_src == 1 ? 2u : 4u;   /* after IPHC (and a 16-bit source) */
        CHECK_EQ(hc[at], r->nhc);
    }
}

/* What the decompressor refuses: an elided checksum without the link's
 * authorisation or in a fragment, the shared-port form without the port
 * context, its reserved bit, and D set when it names the same ports. */
static void test_refusals(void)
{
    static const struct {
        const char *what;
        bool elide, ports;
        uint16_t p0, p1;
        uint8_t nhc;
        size_t dgram;   /* datagram_size passed: 0 whole, else a FRAG1's */
        mip_status want;
    } cases[] = {
        {"elided checksum, not authorised", false, true, 61617, 5683, 0xFC, 0, MIP_ERR_UNSUPPORTED},
        {"elided checksum in a first fragment", true, true, 61617, 5683, 0xFC, 52,
         MIP_ERR_UNSUPPORTED},
        {"RFC form, elided, not authorised", false, false, 0, 0, 0xF7, 0, MIP_ERR_UNSUPPORTED},
        {"shared form without the port context", true, false, 0, 0, 0xFC, 0, MIP_ERR_UNSUPPORTED},
        {"shared form, reserved bit", true, true, 61617, 5683, 0xFE, 0, MIP_ERR_MALFORMED},
        {"shared form, D with equal ports", true, true, 61617, 61617, 0xFD, 0, MIP_ERR_MALFORMED},
        {"accepted: the same frame authorised", true, true, 61617, 5683, 0xFC, 0, MIP_OK},
    };
    size_t k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        /* IPHC: TF=11 NH=1 HLIM=10, SAC=1 SAM=11 DAC=1 DAM=11; NHC; 4
         * bytes of reading (the elided 0xF7 form then 1 port byte) */
        uint8_t f[8] = {0x7E, 0x77, cases[k].nhc, 0x12, 0x00, 0x17, 0x00, 0x42};
        struct mip_802154_addr ls = short_addr(1), ld = short_addr(2);
        struct mip_lowpan_env env;
        uint8_t out[64];
        size_t c2, ol;
        memset(&env, 0, sizeof env);
        env.src = &ls;
        env.dst = &ld;
        env.ctx = prefix;
        env.ctx_count = 1;
        env.udp_cksum_elide = cases[k].elide;
        env.has_udp_ports = cases[k].ports;
        env.udp_ports[0] = cases[k].p0;
        env.udp_ports[1] = cases[k].p1;
        if (mip_lowpan_iphc_decompress(f, sizeof f, &env, cases[k].dgram, out, sizeof out, &c2,
                                       &ol) != cases[k].want)
            fprintf(stderr, "case %zu (%s)\n", k, cases[k].what);
        CHECK_EQ(mip_lowpan_iphc_decompress(f, sizeof f, &env, cases[k].dgram, out, sizeof out,
                                            &c2, &ol),
                 cases[k].want);
    }
}

/* A first fragment is never compressed with the checksum elided: the
 * receiver could not compute it back before the datagram is whole. */
static void test_fragment_keeps_checksum(void)
{
    uint8_t ip[52], hc[MIP_LOWPAN_IPHC_MAX];
    struct mip_802154_addr ls = short_addr(1), ld = short_addr(2);
    struct mip_lowpan_env env;
    size_t consumed, n;
    reading(ip, 1, 2, 61617, 5683, false);
    memset(&env, 0, sizeof env);
    env.src = &ls;
    env.dst = &ld;
    env.ctx = prefix;
    env.ctx_count = 1;
    env.udp_cksum_elide = true;
    env.has_udp_ports = true;
    env.udp_ports[0] = 61617;
    env.udp_ports[1] = 5683;
    CHECK_EQ(mip_lowpan_iphc_compress(ip, 50, &env, hc, sizeof hc, &consumed, &n), MIP_OK);
    CHECK_EQ(n, 5u);
    CHECK_EQ(hc[2], 0xF8u);
}

int main(void)
{
    RUN(test_rows);
    RUN(test_nhc_bytes);
    RUN(test_refusals);
    RUN(test_fragment_keeps_checksum);
    return TESTING_DONE();
}
#else
int main(void)
{
    return 77;   /* MIP_CONF_LOWPAN_HC off: the forms are refused (skipped) */
}
#endif
