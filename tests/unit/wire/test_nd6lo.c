/*
 * 6LoWPAN-ND option codecs (RFC 6775 / RFC 8505): EARO, 6CO, ABRO, the PIO,
 * 802.15.4 link-layer address options, RS/RA fixed parts. Each option is
 * checked against bytes written out by hand from the RFC figures, parsed
 * from an exact heap copy, emitted again to the same bytes, and refused at
 * every wrong length and for every out-of-range field.
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/wire/nd6lo.h"
#include "exact.h"
#include "testing.h"

/* Parses the single option at bytes[0..len) through the ND iterator. */
static mip_status one_opt(const uint8_t *bytes, size_t len, struct mip_nd_opt *o)
{
    struct mip_nd_opt_iter it;
    mip_nd_opt_iter_init(&it, bytes, len);
    return mip_nd_opt_next(&it, o);
}

/* EARO: status 0, opaque 7, P=1 I=2 R T, TID 0x2a, lifetime 0x0102 min,
 * ROVR 16 bytes 0xa0..0xaf: length 3. */
static const uint8_t earo16[24] = {
    33, 3, 0, 7, 0x1B, 0x2a, 0x01, 0x02,
    0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
    0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
};

/* RFC 6775 ARO: status 1 (duplicate), lifetime 60 min, EUI-64. */
static const uint8_t aro8[16] = {
    33, 2, 1, 0, 0, 0, 0x00, 0x3c,
    0x00, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04,
};

static void test_earo(void)
{
    struct mip_nd_opt o;
    struct mip_nd_earo e;
    uint8_t out[40];
    size_t w;
    uint8_t *c = dup_exact(earo16, sizeof earo16);
    CHECK_EQ(one_opt(c, sizeof earo16, &o), MIP_OK);
    CHECK_EQ(mip_nd_earo_parse(&o, &e), MIP_OK);
    CHECK_EQ(e.status, 0);
    CHECK_EQ(e.opaque, 7);
    CHECK_EQ(e.p, 1);
    CHECK_EQ(e.i, 2);
    CHECK(e.r && e.t);
    CHECK_EQ(e.tid, 0x2a);
    CHECK_EQ(e.lifetime_min, 0x0102);
    CHECK_EQ(e.rovr_len, 16);
    CHECK_EQ(e.rovr[15], 0xaf);
    free(c);
    CHECK_EQ(mip_nd_earo_len(16), 24);
    CHECK_EQ(mip_nd_earo_emit(&e, out, sizeof out, &w), MIP_OK);
    CHECK_EQ(w, 24);
    CHECK_MEM(out, earo16, 24);
    CHECK_EQ(mip_nd_earo_emit(&e, out, 23, &w), MIP_ERR_NOSPACE);
    CHECK_EQ(w, 0);

    c = dup_exact(aro8, sizeof aro8);
    CHECK_EQ(one_opt(c, sizeof aro8, &o), MIP_OK);
    CHECK_EQ(mip_nd_earo_parse(&o, &e), MIP_OK);
    CHECK_EQ(e.status, MIP_ARO_DUPLICATE);
    CHECK(!e.t && !e.r);
    CHECK_EQ(e.lifetime_min, 60);
    CHECK_EQ(e.rovr_len, 8);
    CHECK_EQ(e.rovr[0], 0x00);
    CHECK_EQ(e.rovr[7], 0x04);
    free(c);
    CHECK_EQ(mip_nd_earo_emit(&e, out, sizeof out, &w), MIP_OK);
    CHECK_EQ(w, 16);
    CHECK_MEM(out, aro8, 16);

    /* emit refuses what has no encoding */
    e.rovr_len = 12;
    CHECK_EQ(mip_nd_earo_emit(&e, out, sizeof out, &w), MIP_ERR_INVALID);
    e.rovr_len = 40;
    CHECK_EQ(mip_nd_earo_emit(&e, out, sizeof out, &w), MIP_ERR_INVALID);
    e.rovr_len = 8;
    e.p = 4;
    CHECK_EQ(mip_nd_earo_emit(&e, out, sizeof out, &w), MIP_ERR_INVALID);
    e.p = 0;
    e.i = 4;
    CHECK_EQ(mip_nd_earo_emit(&e, out, sizeof out, &w), MIP_ERR_INVALID);
}

/* Every length an (E)ARO may not have: 1 unit (no ROVR), 6 and more units
 * (ROVR above 32 bytes). 2..5 are the legal ones. */
static void test_earo_lengths(void)
{
    uint8_t buf[64];
    unsigned units;
    for (units = 1; units <= 7; units++) {
        struct mip_nd_opt o;
        struct mip_nd_earo e;
        uint8_t *c;
        memset(buf, 0, sizeof buf);
        buf[0] = 33;
        buf[1] = (uint8_t)units;
        c = dup_exact(buf, units * 8u);
        CHECK_EQ(one_opt(c, units * 8u, &o), MIP_OK);
        CHECK_EQ(mip_nd_earo_parse(&o, &e),
                 units >= 2 && units <= 5 ? MIP_OK : MIP_ERR_MALFORMED);
        free(c);
    }
}

/* 6CO: context 2001:db8:1::/48, C set, CID 3, 10 min; length 2. */
static const uint8_t sixco2[16] = {
    34, 2, 48, 0x13, 0, 0, 0, 10,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0, 0,
};
/* 6CO: a /96 context, C clear, CID 15; length 3. */
static const uint8_t sixco3[24] = {
    34, 3, 96, 0x0F, 0, 0, 0x12, 0x34,
    0xfd, 0, 0, 0, 0, 0, 0, 1,
    0, 0, 0, 2, 0, 0, 0, 0,
};

static void test_6co(void)
{
    struct mip_nd_opt o;
    struct mip_nd_6co x;
    uint8_t out[24];
    size_t w;
    uint8_t *c = dup_exact(sixco2, sizeof sixco2);
    CHECK_EQ(one_opt(c, sizeof sixco2, &o), MIP_OK);
    CHECK_EQ(mip_nd_6co_parse(&o, &x), MIP_OK);
    CHECK_EQ(x.ctx_len, 48);
    CHECK(x.c);
    CHECK_EQ(x.cid, 3);
    CHECK_EQ(x.lifetime_min, 10);
    CHECK_EQ(x.prefix[5], 0x01);
    free(c);
    CHECK_EQ(mip_nd_6co_emit(&x, out, sizeof out, &w), MIP_OK);
    CHECK_EQ(w, 16);
    CHECK_MEM(out, sixco2, 16);

    c = dup_exact(sixco3, sizeof sixco3);
    CHECK_EQ(one_opt(c, sizeof sixco3, &o), MIP_OK);
    CHECK_EQ(mip_nd_6co_parse(&o, &x), MIP_OK);
    CHECK_EQ(x.ctx_len, 96);
    CHECK(!x.c);
    CHECK_EQ(x.cid, 15);
    CHECK_EQ(x.lifetime_min, 0x1234);
    CHECK_EQ(x.prefix[11], 2);
    free(c);
    CHECK_EQ(mip_nd_6co_emit(&x, out, sizeof out, &w), MIP_OK);
    CHECK_EQ(w, 24);
    CHECK_MEM(out, sixco3, 24);
    CHECK_EQ(mip_nd_6co_emit(&x, out, 23, &w), MIP_ERR_NOSPACE);

    x.cid = 16;
    CHECK_EQ(mip_nd_6co_emit(&x, out, sizeof out, &w), MIP_ERR_INVALID);
    x.cid = 1;
    x.ctx_len = 129;
    CHECK_EQ(mip_nd_6co_emit(&x, out, sizeof out, &w), MIP_ERR_INVALID);
}

static void test_6co_malformed(void)
{
    uint8_t buf[32];
    struct mip_nd_opt o;
    struct mip_nd_6co x;
    uint8_t *c;
    unsigned units;
    /* lengths other than 2 and 3 */
    for (units = 1; units <= 4; units++) {
        memset(buf, 0, sizeof buf);
        buf[0] = 34;
        buf[1] = (uint8_t)units;
        c = dup_exact(buf, units * 8u);
        CHECK_EQ(one_opt(c, units * 8u, &o), MIP_OK);
        CHECK_EQ(mip_nd_6co_parse(&o, &x),
                 units == 2 || units == 3 ? MIP_OK : MIP_ERR_MALFORMED);
        free(c);
    }
    /* a /65 context in a length-2 option; a /129 one in length 3 */
    memcpy(buf, sixco2, 16);
    buf[2] = 65;
    c = dup_exact(buf, 16);
    CHECK_EQ(one_opt(c, 16, &o), MIP_OK);
    CHECK_EQ(mip_nd_6co_parse(&o, &x), MIP_ERR_MALFORMED);
    free(c);
    memcpy(buf, sixco3, 24);
    buf[2] = 129;
    c = dup_exact(buf, 24);
    CHECK_EQ(one_opt(c, 24, &o), MIP_OK);
    CHECK_EQ(mip_nd_6co_parse(&o, &x), MIP_ERR_MALFORMED);
    free(c);
    /* another option type */
    c = dup_exact(earo16, sizeof earo16);
    CHECK_EQ(one_opt(c, sizeof earo16, &o), MIP_OK);
    CHECK_EQ(mip_nd_6co_parse(&o, &x), MIP_ERR_UNSUPPORTED);
    free(c);
}

/* ABRO: version 0x00020001 (low 1, high 2), lifetime 0 (default), 6LBR
 * fd00::1. */
static const uint8_t abro[24] = {
    35, 3, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00,
    0xfd, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 1,
};

static void test_abro(void)
{
    struct mip_nd_opt o;
    struct mip_nd_abro a;
    uint8_t out[24], buf[32];
    size_t w;
    uint8_t *c = dup_exact(abro, sizeof abro);
    CHECK_EQ(one_opt(c, sizeof abro, &o), MIP_OK);
    CHECK_EQ(mip_nd_abro_parse(&o, &a), MIP_OK);
    CHECK_EQ(a.version, 0x00020001u);
    CHECK_EQ(a.lifetime_min, 0);
    CHECK_EQ(a.addr[0], 0xfd);
    CHECK_EQ(a.addr[15], 1);
    free(c);
    CHECK_EQ(mip_nd_abro_emit(&a, out, sizeof out, &w), MIP_OK);
    CHECK_EQ(w, MIP_ND_ABRO_LEN);
    CHECK_MEM(out, abro, 24);
    CHECK_EQ(mip_nd_abro_emit(&a, out, 23, &w), MIP_ERR_NOSPACE);
    /* length 2 and 4 */
    memset(buf, 0, sizeof buf);
    buf[0] = 35;
    buf[1] = 2;
    c = dup_exact(buf, 16);
    CHECK_EQ(one_opt(c, 16, &o), MIP_OK);
    CHECK_EQ(mip_nd_abro_parse(&o, &a), MIP_ERR_MALFORMED);
    free(c);
    buf[1] = 4;
    c = dup_exact(buf, 32);
    CHECK_EQ(one_opt(c, 32, &o), MIP_OK);
    CHECK_EQ(mip_nd_abro_parse(&o, &a), MIP_ERR_MALFORMED);
    free(c);
}

/* PIO: 2001:db8:1::/64, L=0 A=1, valid 86400, preferred 14400, reserved
 * bits set (ignored). */
static const uint8_t pio[32] = {
    3, 4, 64, 0x5F, 0x00, 0x01, 0x51, 0x80,
    0x00, 0x00, 0x38, 0x40, 0xde, 0xad, 0xbe, 0xef,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0,
};

static void test_pio(void)
{
    struct mip_nd_opt o;
    struct mip_nd_pio p;
    uint8_t out[32], want[32];
    size_t w;
    uint8_t *c = dup_exact(pio, sizeof pio);
    CHECK_EQ(one_opt(c, sizeof pio, &o), MIP_OK);
    CHECK_EQ(mip_nd_pio_parse(&o, &p), MIP_OK);
    CHECK_EQ(p.prefix_len, 64);
    CHECK_EQ(p.flags, MIP_PIO_FLAG_A);
    CHECK_EQ(p.valid_s, 86400);
    CHECK_EQ(p.preferred_s, 14400);
    CHECK_EQ(p.prefix[5], 1);
    free(c);
    CHECK_EQ(mip_nd_pio_emit(&p, out, sizeof out, &w), MIP_OK);
    CHECK_EQ(w, 32);
    /* emitted with reserved bits and Reserved2 zero */
    memcpy(want, pio, 32);
    want[3] = 0x40;
    memset(want + 12, 0, 4);
    CHECK_MEM(out, want, 32);
    p.prefix_len = 129;
    CHECK_EQ(mip_nd_pio_emit(&p, out, sizeof out, &w), MIP_ERR_INVALID);
    memcpy(want, pio, 32);
    want[2] = 129;
    c = dup_exact(want, 32);
    CHECK_EQ(one_opt(c, 32, &o), MIP_OK);
    CHECK_EQ(mip_nd_pio_parse(&o, &p), MIP_ERR_MALFORMED);
    free(c);
    want[1] = 3;
    want[2] = 64;
    c = dup_exact(want, 24);
    CHECK_EQ(one_opt(c, 24, &o), MIP_OK);
    CHECK_EQ(mip_nd_pio_parse(&o, &p), MIP_ERR_MALFORMED);
    free(c);
}

static void test_lla(void)
{
    static const uint8_t sh[8] = {1, 1, 0x12, 0x34, 0, 0, 0, 0};
    static const uint8_t ex[16] = {2, 2, 0x00, 0x12, 0x4b, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0};
    struct mip_nd_opt o;
    struct mip_802154_addr a;
    uint8_t out[16], bad[24] = {1, 3};
    size_t w;
    uint8_t *c = dup_exact(sh, sizeof sh);
    CHECK_EQ(one_opt(c, sizeof sh, &o), MIP_OK);
    CHECK_EQ(mip_nd_lla_802154_parse(&o, &a), MIP_OK);
    CHECK_EQ(a.mode, MIP_802154_ADDR_SHORT);
    CHECK_EQ(a.short_addr, 0x1234);
    free(c);
    CHECK_EQ(mip_nd_lla_802154_emit(MIP_ND_OPT_SLLA, &a, out, sizeof out, &w), MIP_OK);
    CHECK_EQ(w, 8);
    CHECK_MEM(out, sh, 8);
    c = dup_exact(ex, sizeof ex);
    CHECK_EQ(one_opt(c, sizeof ex, &o), MIP_OK);
    CHECK_EQ(mip_nd_lla_802154_parse(&o, &a), MIP_OK);
    CHECK_EQ(a.mode, MIP_802154_ADDR_EXT);
    CHECK_EQ(a.ext[7], 4);
    free(c);
    CHECK_EQ(mip_nd_lla_802154_emit(MIP_ND_OPT_TLLA, &a, out, sizeof out, &w), MIP_OK);
    CHECK_EQ(w, 16);
    CHECK_MEM(out, ex, 16);
    CHECK_EQ(mip_nd_lla_802154_emit(MIP_ND_OPT_TLLA, &a, out, 15, &w), MIP_ERR_NOSPACE);
    CHECK_EQ(mip_nd_lla_802154_emit(3, &a, out, sizeof out, &w), MIP_ERR_INVALID);
    a.mode = MIP_802154_ADDR_NONE;
    CHECK_EQ(mip_nd_lla_802154_emit(MIP_ND_OPT_SLLA, &a, out, sizeof out, &w), MIP_ERR_INVALID);
    c = dup_exact(bad, sizeof bad);
    CHECK_EQ(one_opt(c, sizeof bad, &o), MIP_OK);
    CHECK_EQ(mip_nd_lla_802154_parse(&o, &a), MIP_ERR_MALFORMED);
    free(c);
}

static void test_rs_ra(void)
{
    uint8_t buf[16];
    size_t w;
    struct mip_nd_msg m, m2;
    CHECK_EQ(mip_nd_emit_rs(buf, 7, &w), MIP_ERR_NOSPACE);
    CHECK_EQ(mip_nd_emit_rs(buf, sizeof buf, &w), MIP_OK);
    CHECK_EQ(w, 8);
    CHECK_EQ(mip_nd_parse(buf, w, &m), MIP_OK);
    CHECK_EQ(m.type, MIP_ICMPV6_RS);
    memset(&m, 0, sizeof m);
    m.ra_hop_limit = 64;
    m.ra_flags = 0x40;
    m.ra_router_lifetime = 1800;
    m.ra_reachable_ms = 30000;
    m.ra_retrans_ms = 1000;
    CHECK_EQ(mip_nd_emit_ra(&m, buf, 15, &w), MIP_ERR_NOSPACE);
    CHECK_EQ(mip_nd_emit_ra(&m, buf, sizeof buf, &w), MIP_OK);
    CHECK_EQ(w, 16);
    CHECK_EQ(mip_nd_parse(buf, w, &m2), MIP_OK);
    CHECK_EQ(m2.type, MIP_ICMPV6_RA);
    CHECK_EQ(m2.ra_hop_limit, 64);
    CHECK_EQ(m2.ra_flags, 0x40);
    CHECK_EQ(m2.ra_router_lifetime, 1800);
    CHECK_EQ(m2.ra_reachable_ms, 30000);
    CHECK_EQ(m2.ra_retrans_ms, 1000);
}

int main(void)
{
    RUN(test_earo);
    RUN(test_earo_lengths);
    RUN(test_6co);
    RUN(test_6co_malformed);
    RUN(test_abro);
    RUN(test_pio);
    RUN(test_lla);
    RUN(test_rs_ra);
    return TESTING_DONE();
}
