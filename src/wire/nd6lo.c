/*
 * 6LoWPAN-ND options (RFC 6775, RFC 8505), the PIO (RFC 4861 s.4.6.2),
 * 802.15.4 link-layer address options (RFC 4944 s.8), RS and RA fixed parts.
 */
#include "moteip/wire/nd6lo.h"
#include "moteip/wire/bytes.h"

#include <string.h>

#define UNIT 8u
#define EARO_FIXED 6u   /* status, opaque, flags, TID, lifetime */
#define SIXCO_FIXED 6u  /* ctx len, C|CID, reserved(2), lifetime */
#define PIO_BODY 30u
#define ABRO_BODY 22u

static mip_status opt_check(const struct mip_nd_opt *opt, uint8_t type)
{
    if (opt == NULL || opt->data == NULL)
        return MIP_ERR_INVALID;
    if (opt->type != type)
        return MIP_ERR_UNSUPPORTED;
    return MIP_OK;
}

/* Checks room for an option of len bytes and writes its type and length;
 * the body is zeroed. */
static mip_status opt_begin(uint8_t type, size_t len, uint8_t *buf, size_t cap, size_t *written)
{
    if (written != NULL)
        *written = 0;
    if (buf == NULL || cap < len)
        return MIP_ERR_NOSPACE;
    memset(buf, 0, len);
    buf[0] = type;
    buf[1] = (uint8_t)(len / UNIT);
    if (written != NULL)
        *written = len;
    return MIP_OK;
}

/* --- EARO ----------------------------------------------------------------- */

size_t mip_nd_earo_len(uint8_t rovr_len)
{
    if (rovr_len < MIP_EARO_ROVR_MIN || rovr_len > MIP_EARO_ROVR_MAX || rovr_len % UNIT != 0u)
        return 0;
    return 2u + EARO_FIXED + rovr_len;
}

mip_status mip_nd_earo_parse(const struct mip_nd_opt *opt, struct mip_nd_earo *out)
{
    const uint8_t *b;
    size_t rovr;
    mip_status st = opt_check(opt, MIP_ND_OPT_ARO);
    if (st != MIP_OK)
        return st;
    memset(out, 0, sizeof(*out));
    if (opt->len < EARO_FIXED + MIP_EARO_ROVR_MIN)
        return MIP_ERR_MALFORMED;
    rovr = opt->len - EARO_FIXED;
    if (rovr > MIP_EARO_ROVR_MAX || rovr % UNIT != 0u)
        return MIP_ERR_MALFORMED;
    b = opt->data;
    out->status = b[0];
    out->opaque = b[1];
    out->p = (uint8_t)((b[2] >> MIP_EARO_P_SHIFT) & 3u);
    out->i = (uint8_t)((b[2] >> MIP_EARO_I_SHIFT) & 3u);
    out->r = (b[2] & MIP_EARO_FLAG_R) != 0u;
    out->t = (b[2] & MIP_EARO_FLAG_T) != 0u;
    out->tid = b[3];
    out->lifetime_min = mip_rd16(b + 4);
    out->rovr_len = (uint8_t)rovr;
    memcpy(out->rovr, b + EARO_FIXED, rovr);
    return MIP_OK;
}

mip_status mip_nd_earo_emit(const struct mip_nd_earo *e, uint8_t *buf, size_t cap,
                            size_t *written)
{
    size_t len = mip_nd_earo_len(e->rovr_len);
    mip_status st;
    if (written != NULL)
        *written = 0;
    if (len == 0u || e->p > 3u || e->i > 3u)
        return MIP_ERR_INVALID;
    st = opt_begin(MIP_ND_OPT_ARO, len, buf, cap, written);
    if (st != MIP_OK)
        return st;
    buf[2] = e->status;
    buf[3] = e->opaque;
    buf[4] = (uint8_t)((e->p << MIP_EARO_P_SHIFT) | (e->i << MIP_EARO_I_SHIFT) |
                       (e->r ? MIP_EARO_FLAG_R : 0u) | (e->t ? MIP_EARO_FLAG_T : 0u));
    buf[5] = e->tid;
    mip_wr16(buf + 6, e->lifetime_min);
    memcpy(buf + 8, e->rovr, e->rovr_len);
    return MIP_OK;
}

/* --- 6CO ------------------------------------------------------------------ */

size_t mip_nd_6co_len(uint8_t ctx_len)
{
    return ctx_len > 64u ? 24u : 16u;
}

mip_status mip_nd_6co_parse(const struct mip_nd_opt *opt, struct mip_nd_6co *out)
{
    const uint8_t *b;
    size_t plen;
    mip_status st = opt_check(opt, MIP_ND_OPT_6CO);
    if (st != MIP_OK)
        return st;
    memset(out, 0, sizeof(*out));
    if (opt->len != 14u && opt->len != 22u)
        return MIP_ERR_MALFORMED;
    b = opt->data;
    plen = opt->len - SIXCO_FIXED;
    if (b[0] > 128u || b[0] > plen * 8u)
        return MIP_ERR_MALFORMED;
    out->ctx_len = b[0];
    out->c = (b[1] & 0x10u) != 0u;
    out->cid = (uint8_t)(b[1] & 0x0Fu);
    out->lifetime_min = mip_rd16(b + 4);
    memcpy(out->prefix, b + SIXCO_FIXED, plen);
    return MIP_OK;
}

mip_status mip_nd_6co_emit(const struct mip_nd_6co *c, uint8_t *buf, size_t cap,
                           size_t *written)
{
    size_t len;
    mip_status st;
    if (written != NULL)
        *written = 0;
    if (c->ctx_len > 128u || c->cid > 15u)
        return MIP_ERR_INVALID;
    len = mip_nd_6co_len(c->ctx_len);
    st = opt_begin(MIP_ND_OPT_6CO, len, buf, cap, written);
    if (st != MIP_OK)
        return st;
    buf[2] = c->ctx_len;
    buf[3] = (uint8_t)((c->c ? 0x10u : 0u) | c->cid);
    mip_wr16(buf + 6, c->lifetime_min);
    memcpy(buf + 8, c->prefix, len - 8u);
    return MIP_OK;
}

/* --- ABRO ----------------------------------------------------------------- */

mip_status mip_nd_abro_parse(const struct mip_nd_opt *opt, struct mip_nd_abro *out)
{
    const uint8_t *b;
    mip_status st = opt_check(opt, MIP_ND_OPT_ABRO);
    if (st != MIP_OK)
        return st;
    memset(out, 0, sizeof(*out));
    if (opt->len != ABRO_BODY)
        return MIP_ERR_MALFORMED;
    b = opt->data;
    out->version = (uint32_t)mip_rd16(b + 2) << 16 | mip_rd16(b);
    out->lifetime_min = mip_rd16(b + 4);
    memcpy(out->addr, b + 6, 16);
    return MIP_OK;
}

mip_status mip_nd_abro_emit(const struct mip_nd_abro *a, uint8_t *buf, size_t cap,
                            size_t *written)
{
    mip_status st = opt_begin(MIP_ND_OPT_ABRO, MIP_ND_ABRO_LEN, buf, cap, written);
    if (st != MIP_OK)
        return st;
    mip_wr16(buf + 2, (uint16_t)(a->version & 0xFFFFu));
    mip_wr16(buf + 4, (uint16_t)(a->version >> 16));
    mip_wr16(buf + 6, a->lifetime_min);
    memcpy(buf + 8, a->addr, 16);
    return MIP_OK;
}

/* --- PIO ------------------------------------------------------------------ */

mip_status mip_nd_pio_parse(const struct mip_nd_opt *opt, struct mip_nd_pio *out)
{
    const uint8_t *b;
    mip_status st = opt_check(opt, MIP_ND_OPT_PREFIX);
    if (st != MIP_OK)
        return st;
    memset(out, 0, sizeof(*out));
    if (opt->len != PIO_BODY)
        return MIP_ERR_MALFORMED;
    b = opt->data;
    if (b[0] > 128u)
        return MIP_ERR_MALFORMED;
    out->prefix_len = b[0];
    out->flags = (uint8_t)(b[1] & (MIP_PIO_FLAG_L | MIP_PIO_FLAG_A | MIP_PIO_FLAG_R));
    out->valid_s = mip_rd32(b + 2);
    out->preferred_s = mip_rd32(b + 6);
    memcpy(out->prefix, b + 14, 16);
    return MIP_OK;
}

mip_status mip_nd_pio_emit(const struct mip_nd_pio *p, uint8_t *buf, size_t cap,
                           size_t *written)
{
    mip_status st;
    if (written != NULL)
        *written = 0;
    if (p->prefix_len > 128u)
        return MIP_ERR_INVALID;
    st = opt_begin(MIP_ND_OPT_PREFIX, MIP_ND_PIO_LEN, buf, cap, written);
    if (st != MIP_OK)
        return st;
    buf[2] = p->prefix_len;
    buf[3] = (uint8_t)(p->flags & (MIP_PIO_FLAG_L | MIP_PIO_FLAG_A | MIP_PIO_FLAG_R));
    mip_wr32(buf + 4, p->valid_s);
    mip_wr32(buf + 8, p->preferred_s);
    memcpy(buf + 16, p->prefix, 16);
    return MIP_OK;
}

/* --- 802.15.4 link-layer address options ------------------------------------ */

mip_status mip_nd_lla_802154_parse(const struct mip_nd_opt *opt, struct mip_802154_addr *out)
{
    if (opt == NULL || opt->data == NULL)
        return MIP_ERR_INVALID;
    if (opt->type != MIP_ND_OPT_SLLA && opt->type != MIP_ND_OPT_TLLA)
        return MIP_ERR_UNSUPPORTED;
    memset(out, 0, sizeof(*out));
    if (opt->len == 6u) {
        out->mode = MIP_802154_ADDR_SHORT;
        out->short_addr = mip_rd16(opt->data);
        return MIP_OK;
    }
    if (opt->len == 14u) {
        out->mode = MIP_802154_ADDR_EXT;
        memcpy(out->ext, opt->data, 8);
        return MIP_OK;
    }
    return MIP_ERR_MALFORMED;
}

mip_status mip_nd_lla_802154_emit(uint8_t type, const struct mip_802154_addr *a, uint8_t *buf,
                                  size_t cap, size_t *written)
{
    mip_status st;
    if (written != NULL)
        *written = 0;
    if (type != MIP_ND_OPT_SLLA && type != MIP_ND_OPT_TLLA)
        return MIP_ERR_INVALID;
    if (a->mode == MIP_802154_ADDR_SHORT) {
        st = opt_begin(type, 8u, buf, cap, written);
        if (st == MIP_OK)
            mip_wr16(buf + 2, a->short_addr);
        return st;
    }
    if (a->mode == MIP_802154_ADDR_EXT) {
        st = opt_begin(type, 16u, buf, cap, written);
        if (st == MIP_OK)
            memcpy(buf + 2, a->ext, 8);
        return st;
    }
    return MIP_ERR_INVALID;
}

/* --- RS / RA ---------------------------------------------------------------- */

mip_status mip_nd_emit_rs(uint8_t *buf, size_t cap, size_t *written)
{
    if (written != NULL)
        *written = 0;
    if (buf == NULL || cap < MIP_ND_RS_LEN)
        return MIP_ERR_NOSPACE;
    memset(buf, 0, MIP_ND_RS_LEN);
    buf[0] = MIP_ICMPV6_RS;
    if (written != NULL)
        *written = MIP_ND_RS_LEN;
    return MIP_OK;
}

mip_status mip_nd_emit_ra(const struct mip_nd_msg *m, uint8_t *buf, size_t cap,
                          size_t *written)
{
    if (written != NULL)
        *written = 0;
    if (buf == NULL || cap < MIP_ND_RA_LEN)
        return MIP_ERR_NOSPACE;
    memset(buf, 0, MIP_ND_RA_LEN);
    buf[0] = MIP_ICMPV6_RA;
    buf[4] = m->ra_hop_limit;
    buf[5] = m->ra_flags;
    mip_wr16(buf + 6, m->ra_router_lifetime);
    mip_wr32(buf + 8, m->ra_reachable_ms);
    mip_wr32(buf + 12, m->ra_retrans_ms);
    if (written != NULL)
        *written = MIP_ND_RA_LEN;
    return MIP_OK;
}
