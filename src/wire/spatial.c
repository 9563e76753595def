/* Spatial addresses, the geo beacon and the perimeter option (wire/spatial.h). */
#include "moteip/wire/spatial.h"
#include <string.h>

static const uint8_t iid_form[5] = { 0, 0, 0, 0xFF, 0xFE };

static uint8_t clamp_cell(int32_t v_cm, int32_t origin_cm, uint32_t cell_cm)
{
    int64_t c;
    if (cell_cm == 0u)
        cell_cm = 1u;
    if (v_cm < origin_cm)
        return 0u;
    c = ((int64_t)v_cm - origin_cm) / (int64_t)cell_cm;
    return c > 255 ? 255u : (uint8_t)c;
}

struct mip_spatial_pos mip_spatial_cell(const struct mip_spatial_map *m, int32_t x_cm,
                                        int32_t y_cm)
{
    struct mip_spatial_pos p;
    p.x = clamp_cell(x_cm, m->origin_x_cm, m->cell_cm);
    p.y = clamp_cell(y_cm, m->origin_y_cm, m->cell_cm);
    return p;
}

uint16_t mip_spatial_code(const struct mip_spatial_map *m, struct mip_spatial_pos p)
{
    uint16_t c = 0;
    unsigned i;
    if (m->kind != MIP_SPATIAL_MORTON)
        return (uint16_t)(p.x << 8 | p.y);
    for (i = 0; i < 8u; i++) {
        c |= (uint16_t)(((p.x >> i) & 1u) << (2u * i + 1u));
        c |= (uint16_t)(((p.y >> i) & 1u) << (2u * i));
    }
    return c;
}

struct mip_spatial_pos mip_spatial_decode(const struct mip_spatial_map *m, uint16_t code)
{
    struct mip_spatial_pos p = { 0, 0 };
    unsigned i;
    if (m->kind != MIP_SPATIAL_MORTON) {
        p.x = (uint8_t)(code >> 8);
        p.y = (uint8_t)code;
        return p;
    }
    for (i = 0; i < 8u; i++) {
        p.x = (uint8_t)(p.x | ((code >> (2u * i + 1u)) & 1u) << i);
        p.y = (uint8_t)(p.y | ((code >> (2u * i)) & 1u) << i);
    }
    return p;
}

static void put(const uint8_t prefix[8], uint8_t d, uint16_t code, uint8_t out[16])
{
    memcpy(out, prefix, 8);
    memcpy(out + 8, iid_form, 5);
    out[13] = d;
    out[14] = (uint8_t)(code >> 8);
    out[15] = (uint8_t)code;
}

static uint16_t low_mask(uint8_t region_len)
{
    return region_len >= 16u ? 0u : (uint16_t)(0xFFFFu >> region_len);
}

mip_status mip_spatial_addr(const uint8_t prefix[8], const struct mip_spatial_map *m,
                            struct mip_spatial_pos p, uint8_t disc, uint8_t out[16])
{
    if (disc > MIP_SPATIAL_DISC_MAX)
        return MIP_ERR_INVALID;
    put(prefix, disc, mip_spatial_code(m, p), out);
    return MIP_OK;
}

mip_status mip_spatial_region_addr(const uint8_t prefix[8], const struct mip_spatial_map *m,
                                   struct mip_spatial_pos p, uint8_t region_len,
                                   uint8_t out[16])
{
    if (region_len > MIP_SPATIAL_CODE_BITS)
        return MIP_ERR_INVALID;
    put(prefix, (uint8_t)(MIP_SPATIAL_REGION | region_len),
        (uint16_t)(mip_spatial_code(m, p) | low_mask(region_len)), out);
    return MIP_OK;
}

mip_status mip_spatial_parse(const uint8_t prefix[8], const uint8_t addr[16], uint8_t *form,
                             uint16_t *code, uint8_t *disc_or_len)
{
    uint8_t d = addr[13];
    uint16_t c = (uint16_t)(addr[14] << 8 | addr[15]);
    if (memcmp(addr, prefix, 8) != 0 || memcmp(addr + 8, iid_form, 5) != 0)
        return MIP_ERR_NOTFOUND;
    if ((d & MIP_SPATIAL_REGION) == 0u) {
        *form = MIP_SPATIAL_UNICAST;
        *code = c;
        *disc_or_len = d;
        return MIP_OK;
    }
    d = (uint8_t)(d & 0x7Fu);
    /* a decompressor never accepts what the builder would not produce */
    if (d > MIP_SPATIAL_CODE_BITS || (c & low_mask(d)) != low_mask(d))
        return MIP_ERR_MALFORMED;
    *form = MIP_SPATIAL_BROADCAST;
    *code = c;
    *disc_or_len = d;
    return MIP_OK;
}

bool mip_spatial_in_region(const struct mip_spatial_map *m, struct mip_spatial_pos p,
                           uint16_t code, uint8_t region_len)
{
    uint16_t keep = (uint16_t)~low_mask(region_len > 16u ? 16u : region_len);
    return (mip_spatial_code(m, p) & keep) == (code & keep);
}

void mip_spatial_region_box(const struct mip_spatial_map *m, uint16_t code, uint8_t region_len,
                            struct mip_spatial_pos *lo, struct mip_spatial_pos *hi)
{
    uint16_t mask = low_mask(region_len > 16u ? 16u : region_len);
    /* both mappings keep each axis's bits in order within the code, so the
     * lowest and highest codes of a prefix are the box's opposite corners */
    *lo = mip_spatial_decode(m, (uint16_t)(code & ~mask));
    *hi = mip_spatial_decode(m, (uint16_t)(code | mask));
}

uint32_t mip_spatial_dist2(struct mip_spatial_pos a, struct mip_spatial_pos b)
{
    int32_t dx = (int32_t)a.x - b.x, dy = (int32_t)a.y - b.y;
    return (uint32_t)(dx * dx + dy * dy);
}

/* --- beacon ------------------------------------------------------------------ */

mip_status mip_geo_beacon_emit(const struct mip_geo_beacon *b, uint8_t *buf, size_t cap,
                               size_t *len)
{
    if (b->disc > MIP_SPATIAL_DISC_MAX)
        return MIP_ERR_INVALID;
    if (cap < MIP_GEO_BEACON_LEN)
        return MIP_ERR_NOSPACE;
    buf[0] = MIP_GEO_BEACON_VERSION;
    buf[1] = b->disc;
    buf[2] = b->pos.x;
    buf[3] = b->pos.y;
    *len = MIP_GEO_BEACON_LEN;
    return MIP_OK;
}

mip_status mip_geo_beacon_parse(const uint8_t *buf, size_t len, struct mip_geo_beacon *out)
{
    if (len < MIP_GEO_BEACON_LEN)
        return MIP_ERR_TRUNCATED;
    if (buf[0] != MIP_GEO_BEACON_VERSION)
        return MIP_ERR_UNSUPPORTED;
    if (buf[1] > MIP_SPATIAL_DISC_MAX)
        return MIP_ERR_MALFORMED;
    out->disc = buf[1];
    out->pos.x = buf[2];
    out->pos.y = buf[3];
    return MIP_OK;
}

/* --- perimeter option ------------------------------------------------------------ */

static void put_pos(uint8_t *b, struct mip_spatial_pos p)
{
    b[0] = p.x;
    b[1] = p.y;
}

static struct mip_spatial_pos get_pos(const uint8_t *b)
{
    struct mip_spatial_pos p;
    p.x = b[0];
    p.y = b[1];
    return p;
}

void mip_geo_perim_update(uint8_t *opt, const struct mip_geo_perim *o)
{
    put_pos(opt + 2, o->lp);
    put_pos(opt + 4, o->e0a);
    put_pos(opt + 6, o->e0b);
    put_pos(opt + 8, o->prev);
    opt[10] = (uint8_t)(o->lf >> 8);
    opt[11] = (uint8_t)o->lf;
}

mip_status mip_geo_hbh_emit(uint8_t next_header, const struct mip_geo_perim *o, uint8_t *buf,
                            size_t cap)
{
    if (cap < MIP_GEO_HBH_LEN)
        return MIP_ERR_NOSPACE;
    buf[0] = next_header;
    buf[1] = (uint8_t)(MIP_GEO_HBH_LEN / 8u - 1u);
    buf[2] = MIP_GEO_OPT_TYPE;
    buf[3] = MIP_GEO_OPT_DATA_LEN;
    mip_geo_perim_update(buf + 2, o);
    buf[14] = 1u;       /* PadN of no data bytes (RFC 8200 4.2) */
    buf[15] = 0u;
    return MIP_OK;
}

mip_status mip_geo_hbh_find(const uint8_t *hbh, size_t avail, size_t *off,
                            struct mip_geo_perim *out)
{
    size_t hl, i = 2;
    if (avail < 2u)
        return MIP_ERR_TRUNCATED;
    hl = ((size_t)hbh[1] + 1u) * 8u;
    if (hl > avail)
        return MIP_ERR_TRUNCATED;
    while (i < hl) {
        size_t ol;
        if (hbh[i] == 0u) {             /* Pad1 */
            i++;
            continue;
        }
        if (i + 2u > hl)
            return MIP_ERR_MALFORMED;
        ol = 2u + hbh[i + 1];
        if (i + ol > hl)
            return MIP_ERR_MALFORMED;
        if (hbh[i] == MIP_GEO_OPT_TYPE) {
            if (hbh[i + 1] != MIP_GEO_OPT_DATA_LEN)
                return MIP_ERR_MALFORMED;
            out->lp = get_pos(hbh + i + 2);
            out->e0a = get_pos(hbh + i + 4);
            out->e0b = get_pos(hbh + i + 6);
            out->prev = get_pos(hbh + i + 8);
            out->lf = (uint16_t)(hbh[i + 10] << 8 | hbh[i + 11]);
            *off = i;
            return MIP_OK;
        }
        i += ol;
    }
    return MIP_ERR_NOTFOUND;
}
