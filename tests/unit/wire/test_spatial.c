/*
 * Spatial addresses (seed 000 9.2): the position mapping both ways, the
 * address forms, regions and their boxes; the geo beacon and the perimeter
 * option, round trips and refusals.
 */
#include "moteip/wire/spatial.h"
#include "moteip/wire/ipv6.h"
#include "testing.h"
#include <string.h>

static const uint8_t prefix[8] = { 0xFD, 0, 0, 0, 0, 0, 0, 0 };

static struct mip_spatial_map map_of(uint8_t kind)
{
    struct mip_spatial_map m;
    memset(&m, 0, sizeof(m));
    m.kind = kind;
    m.cell_cm = 100;
    return m;
}

static void test_cells_quantise_and_clamp(void)
{
    struct mip_spatial_map m = map_of(MIP_SPATIAL_XY);
    struct mip_spatial_pos p;
    m.origin_x_cm = -500;
    p = mip_spatial_cell(&m, 1250, 399);       /* (17.5 m from origin, 3.99 m) */
    CHECK_EQ(p.x, 17);
    CHECK_EQ(p.y, 3);
    p = mip_spatial_cell(&m, -900, 1000000);   /* below the origin, past 255 cells */
    CHECK_EQ(p.x, 0);
    CHECK_EQ(p.y, 255);
    m.cell_cm = 0;                              /* read as 1 cm, no division by zero */
    p = mip_spatial_cell(&m, -400, 7);
    CHECK_EQ(p.x, 100);
    CHECK_EQ(p.y, 7);
}

static void test_codes_round_trip_every_cell(void)
{
    unsigned kind, c;
    for (kind = 0; kind < 2; kind++) {
        struct mip_spatial_map m = map_of((uint8_t)kind);
        for (c = 0; c < 65536u; c++) {
            struct mip_spatial_pos p = mip_spatial_decode(&m, (uint16_t)c);
            if (mip_spatial_code(&m, p) != c) {
                CHECK_EQ(mip_spatial_code(&m, p), c);
                return;
            }
        }
    }
    /* the thesis's octets: (x, y) are the two low octets, in order */
    {
        struct mip_spatial_map m = map_of(MIP_SPATIAL_XY);
        struct mip_spatial_pos p = { 12, 34 };
        CHECK_EQ(mip_spatial_code(&m, p), 12u << 8 | 34u);
    }
    /* Morton: x's bit first, then y's */
    {
        struct mip_spatial_map m = map_of(MIP_SPATIAL_MORTON);
        struct mip_spatial_pos p = { 1, 0 };
        CHECK_EQ(mip_spatial_code(&m, p), 2u);
        p.x = 0;
        p.y = 1;
        CHECK_EQ(mip_spatial_code(&m, p), 1u);
        p.x = 0x80;
        p.y = 0;
        CHECK_EQ(mip_spatial_code(&m, p), 0x8000u);
    }
}

static void test_unicast_address_form_and_parse(void)
{
    struct mip_spatial_map m = map_of(MIP_SPATIAL_XY);
    struct mip_spatial_pos p = { 3, 5 };
    static const uint8_t want[16] = { 0xFD, 0, 0, 0, 0, 0, 0, 0,
                                      0, 0, 0, 0xFF, 0xFE, 0, 3, 5 };
    uint8_t a[16], form = 9, d = 9;
    uint16_t code = 0;
    CHECK_EQ(mip_spatial_addr(prefix, &m, p, 0, a), MIP_OK);
    CHECK_MEM(a, want, 16);      /* the 16-bit IID form IPHC sends in 2 bytes */
    CHECK_EQ(mip_spatial_parse(prefix, a, &form, &code, &d), MIP_OK);
    CHECK_EQ(form, MIP_SPATIAL_UNICAST);
    CHECK_EQ(code, 0x0305u);
    CHECK_EQ(d, 0);
    CHECK_EQ(mip_spatial_addr(prefix, &m, p, 7, a), MIP_OK);
    CHECK_EQ(a[13], 7);
    CHECK_EQ(mip_spatial_addr(prefix, &m, p, 128, a), MIP_ERR_INVALID);
    /* another prefix, another IID form: not spatial */
    a[13] = 0;
    a[0] = 0xFC;
    CHECK_EQ(mip_spatial_parse(prefix, a, &form, &code, &d), MIP_ERR_NOTFOUND);
    a[0] = 0xFD;
    a[11] = 0;
    CHECK_EQ(mip_spatial_parse(prefix, a, &form, &code, &d), MIP_ERR_NOTFOUND);
}

static void test_regional_broadcast_address(void)
{
    struct mip_spatial_map m = map_of(MIP_SPATIAL_MORTON);
    struct mip_spatial_pos p = { 5, 6 }, q, lo, hi;
    uint8_t a[16], form, len;
    uint16_t code;
    unsigned x, y, inside = 0;
    /* the region of 12 code bits = the 4x4 quadtree square holding (5, 6) */
    CHECK_EQ(mip_spatial_region_addr(prefix, &m, p, 12, a), MIP_OK);
    CHECK_EQ(a[13], 0x80 | 12);
    CHECK_EQ(a[15] & 0x0F, 0x0F);
    CHECK_EQ(mip_spatial_parse(prefix, a, &form, &code, &len), MIP_OK);
    CHECK_EQ(form, MIP_SPATIAL_BROADCAST);
    CHECK_EQ(len, 12);
    mip_spatial_region_box(&m, code, len, &lo, &hi);
    CHECK_EQ(lo.x, 4);
    CHECK_EQ(lo.y, 4);
    CHECK_EQ(hi.x, 7);
    CHECK_EQ(hi.y, 7);
    for (x = 0; x < 16; x++)
        for (y = 0; y < 16; y++) {
            q.x = (uint8_t)x;
            q.y = (uint8_t)y;
            if (mip_spatial_in_region(&m, q, code, len)) {
                inside++;
                CHECK(x >= 4 && x <= 7 && y >= 4 && y <= 7);
            }
        }
    CHECK_EQ(inside, 16);
    /* XY, 8 bits: the column x = 5 */
    m = map_of(MIP_SPATIAL_XY);
    CHECK_EQ(mip_spatial_region_addr(prefix, &m, p, 8, a), MIP_OK);
    CHECK_EQ(mip_spatial_parse(prefix, a, &form, &code, &len), MIP_OK);
    mip_spatial_region_box(&m, code, len, &lo, &hi);
    CHECK(lo.x == 5 && hi.x == 5 && lo.y == 0 && hi.y == 255);
    /* length 0: everyone; 16: the cell alone */
    CHECK_EQ(mip_spatial_region_addr(prefix, &m, p, 0, a), MIP_OK);
    CHECK_EQ(a[14], 0xFF);
    CHECK_EQ(a[15], 0xFF);
    CHECK_EQ(mip_spatial_region_addr(prefix, &m, p, 17, a), MIP_ERR_INVALID);
    /* what the builder never makes is refused: L > 16, low bits not ones */
    CHECK_EQ(mip_spatial_region_addr(prefix, &m, p, 8, a), MIP_OK);
    a[15] = 0xFE;
    CHECK_EQ(mip_spatial_parse(prefix, a, &form, &code, &len), MIP_ERR_MALFORMED);
    a[15] = 0xFF;
    a[13] = 0x80 | 17;
    CHECK_EQ(mip_spatial_parse(prefix, a, &form, &code, &len), MIP_ERR_MALFORMED);
}

static void test_beacon_round_trip_and_refusals(void)
{
    struct mip_geo_beacon b = { 3, { 200, 17 } }, o;
    uint8_t buf[8];
    size_t n = 0;
    CHECK_EQ(mip_geo_beacon_emit(&b, buf, sizeof(buf), &n), MIP_OK);
    CHECK_EQ(n, MIP_GEO_BEACON_LEN);
    CHECK_EQ(mip_geo_beacon_parse(buf, n, &o), MIP_OK);
    CHECK(o.disc == 3 && o.pos.x == 200 && o.pos.y == 17);
    CHECK_EQ(mip_geo_beacon_emit(&b, buf, 3, &n), MIP_ERR_NOSPACE);
    CHECK_EQ(mip_geo_beacon_parse(buf, 3, &o), MIP_ERR_TRUNCATED);
    buf[0] = 2;
    CHECK_EQ(mip_geo_beacon_parse(buf, 4, &o), MIP_ERR_UNSUPPORTED);
    buf[0] = 1;
    buf[1] = 0x80;
    CHECK_EQ(mip_geo_beacon_parse(buf, 4, &o), MIP_ERR_MALFORMED);
    b.disc = 0x80;
    CHECK_EQ(mip_geo_beacon_emit(&b, buf, sizeof(buf), &n), MIP_ERR_INVALID);
}

static void test_perimeter_option_round_trip(void)
{
    struct mip_geo_perim o = { { 1, 2 }, { 3, 4 }, { 5, 6 }, { 7, 8 }, 0x1234 }, r;
    uint8_t h[MIP_GEO_HBH_LEN];
    size_t off = 99;
    memset(&r, 0, sizeof(r));
    CHECK_EQ(mip_geo_hbh_emit(17, &o, h, sizeof(h)), MIP_OK);
    CHECK_EQ(h[0], 17);
    CHECK_EQ(h[1], 1);                       /* 16 bytes */
    CHECK_EQ(mip_geo_hbh_find(h, sizeof(h), &off, &r), MIP_OK);
    CHECK_EQ(off, 2);
    CHECK_EQ(h[12], 0x12);
    CHECK_EQ(h[13], 0x34);
    CHECK_EQ(h[14], 1);                      /* PadN, no data */
    CHECK_EQ(h[15], 0);
    CHECK_MEM(&r, &o, sizeof(o));
    o.prev.x = 42;
    mip_geo_perim_update(h + off, &o);
    CHECK_EQ(mip_geo_hbh_find(h, sizeof(h), &off, &r), MIP_OK);
    CHECK_EQ(r.prev.x, 42);
    CHECK_EQ(mip_geo_hbh_emit(17, &o, h, 15), MIP_ERR_NOSPACE);
    CHECK_EQ(mip_geo_hbh_find(h, 15, &off, &r), MIP_ERR_TRUNCATED);
    CHECK_EQ(mip_geo_hbh_find(h, 1, &off, &r), MIP_ERR_TRUNCATED);
    /* a wrong data length, an option past the header, or only padding */
    h[3] = 7;
    CHECK_EQ(mip_geo_hbh_find(h, sizeof(h), &off, &r), MIP_ERR_MALFORMED);
    h[3] = 30;
    CHECK_EQ(mip_geo_hbh_find(h, sizeof(h), &off, &r), MIP_ERR_MALFORMED);
    memset(h + 2, 0, 14);
    CHECK_EQ(mip_geo_hbh_find(h, sizeof(h), &off, &r), MIP_ERR_NOTFOUND);
}

int main(void)
{
    RUN(test_cells_quantise_and_clamp);
    RUN(test_codes_round_trip_every_cell);
    RUN(test_unicast_address_form_and_parse);
    RUN(test_regional_broadcast_address);
    RUN(test_beacon_round_trip_and_refusals);
    RUN(test_perimeter_option_round_trip);
    return TESTING_DONE();
}
