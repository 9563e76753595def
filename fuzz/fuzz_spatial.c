/*
 * libFuzzer harness over the spatial address, geo beacon and perimeter
 * option codecs (src/wire/spatial.c).
 *
 * Input: byte 0 picks the codec (mod 3), byte 1 the map (XY or Morton),
 * the rest is the codec's input: an address (prefix fd00::/64 or the
 * input's own first 8 bytes), a beacon payload, or a Hop-by-Hop header.
 * Whatever parses is built again by the builder and must give the same
 * bytes (an address: all 16; a beacon: its 4; the option: its 10): a
 * decoder accepts nothing its encoder would not produce. Every parse works
 * on an exact heap copy, so ASan sees a byte read too far.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/wire/spatial.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void address(const struct mip_spatial_map *m, const uint8_t *in, size_t n)
{
    uint8_t prefix[8] = { 0xFD }, again[16], form, d;
    uint16_t code;
    uint8_t *a;
    if (n < 16u)
        return;
    if (n >= 24u) {               /* the input's prefix, then its address */
        memcpy(prefix, in, 8);
        in += 8;
    }
    a = fuzz_dup_exact(in, 16);
    if (mip_spatial_parse(prefix, a, &form, &code, &d) == MIP_OK) {
        struct mip_spatial_pos p = mip_spatial_decode(m, code);
        CHECKF(mip_spatial_code(m, p) == code);
        if (form == MIP_SPATIAL_UNICAST) {
            CHECKF(mip_spatial_addr(prefix, m, p, d, again) == MIP_OK);
        } else {
            CHECKF(mip_spatial_region_addr(prefix, m, p, d, again) == MIP_OK);
            CHECKF(mip_spatial_in_region(m, p, code, d));
        }
        CHECKF(memcmp(again, a, 16) == 0);
    }
    free(a);
}

static void beacon(const uint8_t *in, size_t n)
{
    struct mip_geo_beacon b;
    uint8_t again[MIP_GEO_BEACON_LEN];
    size_t w = 0;
    uint8_t *c = fuzz_dup_exact(in, n);
    if (mip_geo_beacon_parse(c, n, &b) == MIP_OK) {
        CHECKF(mip_geo_beacon_emit(&b, again, sizeof(again), &w) == MIP_OK);
        CHECKF(w == MIP_GEO_BEACON_LEN && memcmp(again, c, w) == 0);
    }
    free(c);
}

static void option(const uint8_t *in, size_t n)
{
    struct mip_geo_perim o;
    uint8_t again[MIP_GEO_HBH_LEN];
    size_t off = 0;
    uint8_t *c = fuzz_dup_exact(in, n);
    if (mip_geo_hbh_find(c, n, &off, &o) == MIP_OK) {
        CHECKF(off + 2u + MIP_GEO_OPT_DATA_LEN <= n);
        CHECKF(mip_geo_hbh_emit(c[0], &o, again, sizeof(again)) == MIP_OK);
        CHECKF(memcmp(again + 2, c + off, 2u + MIP_GEO_OPT_DATA_LEN) == 0);
    }
    free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mip_spatial_map m;
    if (size < 2u)
        return 0;
    memset(&m, 0, sizeof(m));
    m.kind = (uint8_t)(data[1] & 1u);
    m.cell_cm = 100u;
    switch (data[0] % 3u) {
    case 0:
        address(&m, data + 2, size - 2);
        break;
    case 1:
        beacon(data + 2, size - 2);
        break;
    default:
        option(data + 2, size - 2);
        break;
    }
    return 0;
}
