/*
 * The cctrl tunnel's opening header (include/moteip/wire/cctrl_tunnel.h):
 * what emit writes parses back to the same fields and length, every
 * prefix shorter than the header is TRUNCATED, and each field outside its
 * range is refused both ways (MALFORMED to parse, INVALID to emit).
 */
#include <string.h>

#include "moteip/wire/cctrl_tunnel.h"
#include "testing.h"

static struct mip_cctrl_tunnel_hdr hdr(uint8_t family)
{
    struct mip_cctrl_tunnel_hdr h;
    unsigned i;
    memset(&h, 0, sizeof(h));
    h.n = 2;
    h.index = 1;
    h.stream = 0xBEEF;
    h.port = 5000;
    h.family = family;
    for (i = 0; i < (family == 4u ? 4u : 16u); i++)
        h.target[i] = (uint8_t)(0xC0 + i);
    return h;
}

static void test_round_trip_both_families(void)
{
    uint8_t fam[2] = { 4, 6 }, b[32];
    unsigned k;
    for (k = 0; k < 2; k++) {
        struct mip_cctrl_tunnel_hdr h = hdr(fam[k]), g;
        size_t used = 0, used2 = 0, cut;
        CHECK_EQ(mip_cctrl_tunnel_emit(&h, b, sizeof(b), &used), MIP_OK);
        CHECK_EQ(used, fam[k] == 4u ? 11u : 23u);
        CHECK_EQ(used, mip_cctrl_tunnel_hdr_len(fam[k]));
        CHECK_EQ(b[0], 0xC1);
        CHECK_EQ(b[1], 0x21);
        CHECK_EQ(mip_cctrl_tunnel_parse(b, used, &g, &used2), MIP_OK);
        CHECK_EQ(used2, used);
        CHECK(memcmp(&g, &h, sizeof(g)) == 0);
        /* bytes after the header are not its business */
        CHECK_EQ(mip_cctrl_tunnel_parse(b, sizeof(b), &g, &used2), MIP_OK);
        CHECK_EQ(used2, used);
        for (cut = 0; cut < used; cut++)
            CHECK_EQ(mip_cctrl_tunnel_parse(b, cut, &g, &used2), MIP_ERR_TRUNCATED);
        CHECK_EQ(mip_cctrl_tunnel_emit(&h, b, used - 1u, &used2), MIP_ERR_NOSPACE);
    }
}

static void test_out_of_range_fields_are_refused_both_ways(void)
{
    struct mip_cctrl_tunnel_hdr h = hdr(4), g;
    uint8_t b[32];
    size_t used = 0, u2;
    CHECK_EQ(mip_cctrl_tunnel_emit(&h, b, sizeof(b), &used), MIP_OK);
    {
        uint8_t c[32];
        memcpy(c, b, used);
        c[0] = 0xC2;                                 /* another version */
        CHECK_EQ(mip_cctrl_tunnel_parse(c, used, &g, &u2), MIP_ERR_MALFORMED);
        CHECK_EQ(mip_cctrl_tunnel_parse(c, 1, &g, &u2), MIP_ERR_MALFORMED);
        memcpy(c, b, used);
        c[1] = 0x22;                                 /* index 2 of 2 */
        CHECK_EQ(mip_cctrl_tunnel_parse(c, used, &g, &u2), MIP_ERR_MALFORMED);
        c[1] = 0x50;                                 /* n 5 */
        CHECK_EQ(mip_cctrl_tunnel_parse(c, used, &g, &u2), MIP_ERR_MALFORMED);
        c[1] = 0x00;                                 /* n 0 */
        CHECK_EQ(mip_cctrl_tunnel_parse(c, used, &g, &u2), MIP_ERR_MALFORMED);
        memcpy(c, b, used);
        c[4] = c[5] = 0;                             /* port 0 */
        CHECK_EQ(mip_cctrl_tunnel_parse(c, used, &g, &u2), MIP_ERR_MALFORMED);
        memcpy(c, b, used);
        c[6] = 5;                                    /* family 5 */
        CHECK_EQ(mip_cctrl_tunnel_parse(c, used, &g, &u2), MIP_ERR_MALFORMED);
    }
    g = h;
    g.index = 2;
    CHECK_EQ(mip_cctrl_tunnel_emit(&g, b, sizeof(b), &u2), MIP_ERR_INVALID);
    g = h;
    g.n = 5;
    g.index = 0;
    CHECK_EQ(mip_cctrl_tunnel_emit(&g, b, sizeof(b), &u2), MIP_ERR_INVALID);
    g = h;
    g.port = 0;
    CHECK_EQ(mip_cctrl_tunnel_emit(&g, b, sizeof(b), &u2), MIP_ERR_INVALID);
    g = h;
    g.family = 0;
    CHECK_EQ(mip_cctrl_tunnel_emit(&g, b, sizeof(b), &u2), MIP_ERR_INVALID);
    CHECK_EQ(mip_cctrl_tunnel_hdr_len(5), 0u);
}

int main(void)
{
    RUN(test_round_trip_both_families);
    RUN(test_out_of_range_fields_are_refused_both_ways);
    return TESTING_DONE();
}
