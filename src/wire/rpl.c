/*
 * RPL control messages and options (RFC 6550 6): pure codecs.
 */
#include "moteip/wire/rpl.h"
#include "moteip/wire/icmpv6.h"
#include "moteip/wire/bytes.h"

#include <string.h>

#define RPL_HDR 4u                 /* ICMPv6 type, code, checksum */
#define DIO_G   0x80u
#define DAO_K   0x80u
#define DAO_D   0x40u
#define ACK_D   0x80u

/* --- options -------------------------------------------------------------- */

mip_status mip_rpl_opt_next(const uint8_t *opts, size_t len, size_t *off,
                            struct mip_rpl_opt *out)
{
    size_t o = *off;
    if (o >= len)
        return MIP_ERR_END;
    out->type = opts[o];
    if (out->type == MIP_RPL_OPT_PAD1) {
        out->body = NULL;
        out->len = 0;
        *off = o + 1u;
        return MIP_OK;
    }
    if (len - o < 2u || (size_t)opts[o + 1u] > len - o - 2u)
        return MIP_ERR_TRUNCATED;
    out->len = opts[o + 1u];
    out->body = opts + o + 2u;
    *off = o + 2u + out->len;
    return MIP_OK;
}

static mip_status opts_check(const uint8_t *opts, size_t len)
{
    size_t off = 0;
    struct mip_rpl_opt o;
    mip_status st;
    while ((st = mip_rpl_opt_next(opts, len, &off, &o)) == MIP_OK)
        ;
    return st == MIP_ERR_END ? MIP_OK : MIP_ERR_MALFORMED;
}

/* Bytes a prefix of plen bits takes. */
static size_t prefix_bytes(uint8_t plen)
{
    return ((size_t)plen + 7u) / 8u;
}

/* Copies a prefix of plen bits from the wire (n bytes there, n >= its
 * bytes) into out[16], clearing the bits past plen. */
static void prefix_read(uint8_t out[16], const uint8_t *p, uint8_t plen)
{
    size_t n = prefix_bytes(plen);
    memset(out, 0, 16);
    memcpy(out, p, n);
    if (plen % 8u != 0u)
        out[n - 1u] &= (uint8_t)(0xFFu << (8u - plen % 8u));
}

mip_status mip_rpl_opt_dodag_conf(const struct mip_rpl_opt *o, struct mip_rpl_dodag_conf *out)
{
    const uint8_t *b = o->body;
    if (o->type != MIP_RPL_OPT_DODAG_CONF || o->len != MIP_RPL_DODAG_CONF_LEN)
        return MIP_ERR_MALFORMED;
    out->auth = (b[0] & 0x08u) != 0;
    out->pcs = b[0] & 0x07u;
    out->dio_int_doublings = b[1];
    out->dio_int_min = b[2];
    out->dio_redundancy = b[3];
    out->max_rank_inc = mip_rd16(b + 4);
    out->min_hop_rank_inc = mip_rd16(b + 6);
    out->ocp = mip_rd16(b + 8);
    /* b[10]: reserved */
    out->def_lifetime = b[11];
    out->lifetime_unit = mip_rd16(b + 12);
    return MIP_OK;
}

mip_status mip_rpl_opt_prefix_info(const struct mip_rpl_opt *o, struct mip_rpl_prefix_info *out)
{
    const uint8_t *b = o->body;
    if (o->type != MIP_RPL_OPT_PREFIX_INFO || o->len != MIP_RPL_PREFIX_INFO_LEN || b[0] > 128u)
        return MIP_ERR_MALFORMED;
    out->prefix_len = b[0];
    out->flags = b[1] & (MIP_RPL_PIO_L | MIP_RPL_PIO_A | MIP_RPL_PIO_R);
    out->valid_s = mip_rd32(b + 2);
    out->preferred_s = mip_rd32(b + 6);
    /* b[10..13]: reserved2. With R set the field is the sender's whole
     * address (RFC 6550 6.7.10), so it is kept whole. */
    memcpy(out->prefix, b + 14, 16);
    return MIP_OK;
}

mip_status mip_rpl_opt_route_info(const struct mip_rpl_opt *o, struct mip_rpl_route_info *out)
{
    const uint8_t *b = o->body;
    if (o->type != MIP_RPL_OPT_ROUTE_INFO || o->len < 6u || b[0] > 128u ||
        (size_t)o->len - 6u < prefix_bytes(b[0]) || o->len > 6u + 16u)
        return MIP_ERR_MALFORMED;
    out->prefix_len = b[0];
    out->prf = (uint8_t)((b[1] >> 3) & 0x03u);
    out->lifetime_s = mip_rd32(b + 2);
    prefix_read(out->prefix, b + 6, b[0]);
    return MIP_OK;
}

mip_status mip_rpl_opt_target(const struct mip_rpl_opt *o, struct mip_rpl_target *out)
{
    const uint8_t *b = o->body;
    if (o->type != MIP_RPL_OPT_TARGET || o->len < 2u || b[1] > 128u ||
        (size_t)o->len - 2u < prefix_bytes(b[1]) || o->len > 2u + 16u)
        return MIP_ERR_MALFORMED;
    out->flags = b[0];
    out->prefix_len = b[1];
    prefix_read(out->prefix, b + 2, b[1]);
    return MIP_OK;
}

mip_status mip_rpl_opt_transit(const struct mip_rpl_opt *o, struct mip_rpl_transit *out)
{
    const uint8_t *b = o->body;
    if (o->type != MIP_RPL_OPT_TRANSIT ||
        (o->len != MIP_RPL_TRANSIT_LEN && o->len != MIP_RPL_TRANSIT_LEN + 16u))
        return MIP_ERR_MALFORMED;
    out->external = (b[0] & 0x80u) != 0;
    out->path_control = b[1];
    out->path_seq = b[2];
    out->path_lifetime = b[3];
    out->has_parent = o->len > MIP_RPL_TRANSIT_LEN;
    if (out->has_parent)
        memcpy(out->parent, b + 4, 16);
    else
        memset(out->parent, 0, 16);
    return MIP_OK;
}

mip_status mip_rpl_opt_solicited(const struct mip_rpl_opt *o, struct mip_rpl_solicited *out)
{
    const uint8_t *b = o->body;
    if (o->type != MIP_RPL_OPT_SOLICITED || o->len != MIP_RPL_SOLICITED_LEN)
        return MIP_ERR_MALFORMED;
    out->instance = b[0];
    out->flags = b[1] & (MIP_RPL_SOL_V | MIP_RPL_SOL_I | MIP_RPL_SOL_D);
    memcpy(out->dodagid, b + 2, 16);
    out->version = b[18];
    return MIP_OK;
}

/* --- messages ------------------------------------------------------------- */

mip_status mip_rpl_parse(const uint8_t *buf, size_t len, struct mip_rpl_msg *out)
{
    const uint8_t *b;
    size_t base;
    memset(out, 0, sizeof(*out));
    if (len < RPL_HDR)
        return MIP_ERR_TRUNCATED;
    if (buf[0] != MIP_ICMPV6_RPL)
        return MIP_ERR_UNSUPPORTED;
    out->code = buf[1];
    b = buf + RPL_HDR;
    switch (out->code) {
    case MIP_RPL_CODE_DIS:
        base = MIP_RPL_DIS_LEN;
        if (len < base)
            return MIP_ERR_TRUNCATED;
        out->u.dis.flags = b[0];
        break;
    case MIP_RPL_CODE_DIO:
        base = MIP_RPL_DIO_LEN;
        if (len < base)
            return MIP_ERR_TRUNCATED;
        out->u.dio.instance = b[0];
        out->u.dio.version = b[1];
        out->u.dio.rank = mip_rd16(b + 2);
        out->u.dio.grounded = (b[4] & DIO_G) != 0;
        out->u.dio.mop = (uint8_t)((b[4] >> 3) & 0x07u);
        out->u.dio.prf = b[4] & 0x07u;
        out->u.dio.dtsn = b[5];
        out->u.dio.flags = b[6];
        memcpy(out->u.dio.dodagid, b + 8, 16);
        break;
    case MIP_RPL_CODE_DAO:
        base = MIP_RPL_DAO_LEN;
        if (len < base)
            return MIP_ERR_TRUNCATED;
        out->u.dao.instance = b[0];
        out->u.dao.k = (b[1] & DAO_K) != 0;
        out->u.dao.d = (b[1] & DAO_D) != 0;
        out->u.dao.seq = b[3];
        if (out->u.dao.d) {
            base += 16u;
            if (len < base)
                return MIP_ERR_TRUNCATED;
            memcpy(out->u.dao.dodagid, b + 4, 16);
        }
        break;
    case MIP_RPL_CODE_DAO_ACK:
        base = MIP_RPL_DAO_ACK_LEN;
        if (len < base)
            return MIP_ERR_TRUNCATED;
        out->u.dao_ack.instance = b[0];
        out->u.dao_ack.d = (b[1] & ACK_D) != 0;
        out->u.dao_ack.seq = b[2];
        out->u.dao_ack.status = b[3];
        if (out->u.dao_ack.d) {
            base += 16u;
            if (len < base)
                return MIP_ERR_TRUNCATED;
            memcpy(out->u.dao_ack.dodagid, b + 4, 16);
        }
        break;
    default:
        return MIP_ERR_UNSUPPORTED;   /* secure variants, CC, unknown */
    }
    out->opts = buf + base;
    out->opts_len = len - base;
    return opts_check(out->opts, out->opts_len);
}

static mip_status need(size_t n, size_t cap, size_t *written)
{
    *written = 0;
    return n > cap ? MIP_ERR_NOSPACE : MIP_OK;
}

static void icmp_hdr(uint8_t *buf, uint8_t code)
{
    buf[0] = MIP_ICMPV6_RPL;
    buf[1] = code;
    buf[2] = 0;
    buf[3] = 0;
}

mip_status mip_rpl_emit_dis(const struct mip_rpl_dis *m, uint8_t *buf, size_t cap,
                            size_t *written)
{
    if (need(MIP_RPL_DIS_LEN, cap, written) != MIP_OK)
        return MIP_ERR_NOSPACE;
    icmp_hdr(buf, MIP_RPL_CODE_DIS);
    buf[4] = m->flags;
    buf[5] = 0;
    *written = MIP_RPL_DIS_LEN;
    return MIP_OK;
}

mip_status mip_rpl_emit_dio(const struct mip_rpl_dio *m, uint8_t *buf, size_t cap,
                            size_t *written)
{
    uint8_t *b = buf + RPL_HDR;
    *written = 0;
    if (m->mop > 7u || m->prf > 7u)
        return MIP_ERR_INVALID;
    if (need(MIP_RPL_DIO_LEN, cap, written) != MIP_OK)
        return MIP_ERR_NOSPACE;
    icmp_hdr(buf, MIP_RPL_CODE_DIO);
    b[0] = m->instance;
    b[1] = m->version;
    mip_wr16(b + 2, m->rank);
    b[4] = (uint8_t)((m->grounded ? DIO_G : 0u) | (uint8_t)(m->mop << 3) | m->prf);
    b[5] = m->dtsn;
    b[6] = m->flags;
    b[7] = 0;
    memcpy(b + 8, m->dodagid, 16);
    *written = MIP_RPL_DIO_LEN;
    return MIP_OK;
}

mip_status mip_rpl_emit_dao(const struct mip_rpl_dao *m, uint8_t *buf, size_t cap,
                            size_t *written)
{
    size_t n = MIP_RPL_DAO_LEN + (m->d ? 16u : 0u);
    uint8_t *b = buf + RPL_HDR;
    if (need(n, cap, written) != MIP_OK)
        return MIP_ERR_NOSPACE;
    icmp_hdr(buf, MIP_RPL_CODE_DAO);
    b[0] = m->instance;
    b[1] = (uint8_t)((m->k ? DAO_K : 0u) | (m->d ? DAO_D : 0u));
    b[2] = 0;
    b[3] = m->seq;
    if (m->d)
        memcpy(b + 4, m->dodagid, 16);
    *written = n;
    return MIP_OK;
}

mip_status mip_rpl_emit_dao_ack(const struct mip_rpl_dao_ack *m, uint8_t *buf, size_t cap,
                                size_t *written)
{
    size_t n = MIP_RPL_DAO_ACK_LEN + (m->d ? 16u : 0u);
    uint8_t *b = buf + RPL_HDR;
    if (need(n, cap, written) != MIP_OK)
        return MIP_ERR_NOSPACE;
    icmp_hdr(buf, MIP_RPL_CODE_DAO_ACK);
    b[0] = m->instance;
    b[1] = m->d ? ACK_D : 0u;
    b[2] = m->seq;
    b[3] = m->status;
    if (m->d)
        memcpy(b + 4, m->dodagid, 16);
    *written = n;
    return MIP_OK;
}

mip_status mip_rpl_emit_pad(uint8_t n, uint8_t *buf, size_t cap, size_t *written)
{
    *written = 0;
    if (n == 0u || n > 7u)
        return MIP_ERR_INVALID;
    if (n > cap)
        return MIP_ERR_NOSPACE;
    memset(buf, 0, n);
    if (n > 1u) {
        buf[0] = MIP_RPL_OPT_PADN;
        buf[1] = (uint8_t)(n - 2u);
    }
    *written = n;
    return MIP_OK;
}

/* Type, length, and room for a body of len bytes. */
static uint8_t *opt_start(uint8_t type, size_t len, uint8_t *buf, size_t cap, size_t *written)
{
    *written = 0;
    if (len + 2u > cap)
        return NULL;
    buf[0] = type;
    buf[1] = (uint8_t)len;
    memset(buf + 2, 0, len);
    *written = len + 2u;
    return buf + 2;
}

mip_status mip_rpl_emit_dodag_conf(const struct mip_rpl_dodag_conf *o, uint8_t *buf,
                                   size_t cap, size_t *written)
{
    uint8_t *b;
    *written = 0;
    if (o->pcs > 7u)
        return MIP_ERR_INVALID;
    b = opt_start(MIP_RPL_OPT_DODAG_CONF, MIP_RPL_DODAG_CONF_LEN, buf, cap, written);
    if (b == NULL)
        return MIP_ERR_NOSPACE;
    b[0] = (uint8_t)((o->auth ? 0x08u : 0u) | o->pcs);
    b[1] = o->dio_int_doublings;
    b[2] = o->dio_int_min;
    b[3] = o->dio_redundancy;
    mip_wr16(b + 4, o->max_rank_inc);
    mip_wr16(b + 6, o->min_hop_rank_inc);
    mip_wr16(b + 8, o->ocp);
    b[11] = o->def_lifetime;
    mip_wr16(b + 12, o->lifetime_unit);
    return MIP_OK;
}

mip_status mip_rpl_emit_prefix_info(const struct mip_rpl_prefix_info *o, uint8_t *buf,
                                    size_t cap, size_t *written)
{
    uint8_t *b;
    *written = 0;
    if (o->prefix_len > 128u)
        return MIP_ERR_INVALID;
    b = opt_start(MIP_RPL_OPT_PREFIX_INFO, MIP_RPL_PREFIX_INFO_LEN, buf, cap, written);
    if (b == NULL)
        return MIP_ERR_NOSPACE;
    b[0] = o->prefix_len;
    b[1] = o->flags & (MIP_RPL_PIO_L | MIP_RPL_PIO_A | MIP_RPL_PIO_R);
    mip_wr32(b + 2, o->valid_s);
    mip_wr32(b + 6, o->preferred_s);
    memcpy(b + 14, o->prefix, 16);
    return MIP_OK;
}

mip_status mip_rpl_emit_route_info(const struct mip_rpl_route_info *o, uint8_t *buf,
                                   size_t cap, size_t *written)
{
    uint8_t *b;
    uint8_t tmp[16];
    *written = 0;
    if (o->prefix_len > 128u || o->prf > 3u)
        return MIP_ERR_INVALID;
    b = opt_start(MIP_RPL_OPT_ROUTE_INFO, 6u + prefix_bytes(o->prefix_len), buf, cap, written);
    if (b == NULL)
        return MIP_ERR_NOSPACE;
    b[0] = o->prefix_len;
    b[1] = (uint8_t)(o->prf << 3);
    mip_wr32(b + 2, o->lifetime_s);
    prefix_read(tmp, o->prefix, o->prefix_len);
    memcpy(b + 6, tmp, prefix_bytes(o->prefix_len));
    return MIP_OK;
}

mip_status mip_rpl_emit_target(const struct mip_rpl_target *o, uint8_t *buf, size_t cap,
                               size_t *written)
{
    uint8_t *b;
    uint8_t tmp[16];
    *written = 0;
    if (o->prefix_len > 128u)
        return MIP_ERR_INVALID;
    b = opt_start(MIP_RPL_OPT_TARGET, 2u + prefix_bytes(o->prefix_len), buf, cap, written);
    if (b == NULL)
        return MIP_ERR_NOSPACE;
    b[0] = o->flags;
    b[1] = o->prefix_len;
    prefix_read(tmp, o->prefix, o->prefix_len);
    memcpy(b + 2, tmp, prefix_bytes(o->prefix_len));
    return MIP_OK;
}

mip_status mip_rpl_emit_transit(const struct mip_rpl_transit *o, uint8_t *buf, size_t cap,
                                size_t *written)
{
    uint8_t *b = opt_start(MIP_RPL_OPT_TRANSIT,
                           MIP_RPL_TRANSIT_LEN + (o->has_parent ? 16u : 0u), buf, cap, written);
    if (b == NULL)
        return MIP_ERR_NOSPACE;
    b[0] = o->external ? 0x80u : 0u;
    b[1] = o->path_control;
    b[2] = o->path_seq;
    b[3] = o->path_lifetime;
    if (o->has_parent)
        memcpy(b + 4, o->parent, 16);
    return MIP_OK;
}

mip_status mip_rpl_emit_solicited(const struct mip_rpl_solicited *o, uint8_t *buf,
                                  size_t cap, size_t *written)
{
    uint8_t *b = opt_start(MIP_RPL_OPT_SOLICITED, MIP_RPL_SOLICITED_LEN, buf, cap, written);
    if (b == NULL)
        return MIP_ERR_NOSPACE;
    b[0] = o->instance;
    b[1] = o->flags & (MIP_RPL_SOL_V | MIP_RPL_SOL_I | MIP_RPL_SOL_D);
    memcpy(b + 2, o->dodagid, 16);
    b[18] = o->version;
    return MIP_OK;
}
