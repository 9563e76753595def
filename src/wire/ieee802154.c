/* IEEE 802.15.4-2006 MHR codec and FCS (see wire/ieee802154.h). */
#include <string.h>

#include "moteip/config.h"
#include "moteip/wire/ieee802154.h"

/* Frame control field bits (802.15.4-2006 s.7.2.1.1), little-endian. */
#define FCF_TYPE_MASK      0x0007u
#define FCF_SECURITY       0x0008u
#define FCF_PENDING        0x0010u
#define FCF_ACK_REQ        0x0020u
#define FCF_PANID_COMP     0x0040u
#define FCF_DST_MODE_SHIFT 10
#define FCF_VERSION_SHIFT  12
#define FCF_SRC_MODE_SHIFT 14

static size_t addr_len(uint8_t mode)
{
    return mode == MIP_802154_ADDR_SHORT ? 2u : mode == MIP_802154_ADDR_EXT ? 8u : 0u;
}

static uint16_t rd16le(const uint8_t *p)
{
    return (uint16_t)((uint16_t)p[0] | ((uint16_t)p[1] << 8));
}

static void wr16le(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void rd_addr(const uint8_t *p, struct mip_802154_addr *a)
{
    unsigned i;
    if (a->mode == MIP_802154_ADDR_SHORT) {
        a->short_addr = rd16le(p);
    } else if (a->mode == MIP_802154_ADDR_EXT) {
        for (i = 0; i < 8u; i++)
            a->ext[i] = p[7u - i];   /* wire order is little-endian */
    }
}

static void wr_addr(uint8_t *p, const struct mip_802154_addr *a)
{
    unsigned i;
    if (a->mode == MIP_802154_ADDR_SHORT) {
        wr16le(p, a->short_addr);
    } else if (a->mode == MIP_802154_ADDR_EXT) {
        for (i = 0; i < 8u; i++)
            p[i] = a->ext[7u - i];
    }
}

size_t mip_ieee802154_hdr_len(const struct mip_802154_hdr *h)
{
    size_t n = 3u;
    if (h->dst.mode != MIP_802154_ADDR_NONE)
        n += 2u + addr_len(h->dst.mode);
    if (h->src.mode != MIP_802154_ADDR_NONE)
        n += (h->pan_id_compress ? 0u : 2u) + addr_len(h->src.mode);
    return n;
}

mip_status mip_ieee802154_parse(const uint8_t *frame, size_t len,
                                struct mip_802154_hdr *out, size_t *hdr_len)
{
    mip_status st = mip_ieee802154_parse_mhr(frame, len, out, hdr_len);
    return st == MIP_OK && out->security ? MIP_ERR_UNSUPPORTED : st;
}

mip_status mip_ieee802154_parse_mhr(const uint8_t *frame, size_t len,
                                    struct mip_802154_hdr *out, size_t *hdr_len)
{
    uint16_t fcf;
    size_t n = 3u;
    if (len < 3u)
        return MIP_ERR_TRUNCATED;
    fcf = rd16le(frame);
    out->type = (uint8_t)(fcf & FCF_TYPE_MASK);
    out->frame_pending = (fcf & FCF_PENDING) != 0u;
    out->ack_request = (fcf & FCF_ACK_REQ) != 0u;
    out->pan_id_compress = (fcf & FCF_PANID_COMP) != 0u;
    out->version = (uint8_t)((fcf >> FCF_VERSION_SHIFT) & 3u);
    out->dst.mode = (uint8_t)((fcf >> FCF_DST_MODE_SHIFT) & 3u);
    out->src.mode = (uint8_t)((fcf >> FCF_SRC_MODE_SHIFT) & 3u);
    out->seq = frame[2];
    out->dst_pan = MIP_802154_PAN_NONE;
    out->src_pan = MIP_802154_PAN_NONE;
    out->dst.short_addr = 0;
    out->src.short_addr = 0;
    out->security = (fcf & FCF_SECURITY) != 0u;
    out->sec_level = 0;
    if ((out->security && out->version != 1u) || out->version > 1u || out->type > MIP_802154_CMD ||
        out->dst.mode == 1u || out->src.mode == 1u)
        return MIP_ERR_UNSUPPORTED;
    if (out->pan_id_compress &&
        (out->dst.mode == MIP_802154_ADDR_NONE || out->src.mode == MIP_802154_ADDR_NONE))
        return MIP_ERR_MALFORMED;
    if (len < mip_ieee802154_hdr_len(out))
        return MIP_ERR_TRUNCATED;
    if (out->dst.mode != MIP_802154_ADDR_NONE) {
        out->dst_pan = rd16le(frame + n);
        n += 2u;
        rd_addr(frame + n, &out->dst);
        n += addr_len(out->dst.mode);
    }
    if (out->src.mode != MIP_802154_ADDR_NONE) {
        if (out->pan_id_compress) {
            out->src_pan = out->dst_pan;
        } else {
            out->src_pan = rd16le(frame + n);
            n += 2u;
        }
        rd_addr(frame + n, &out->src);
        n += addr_len(out->src.mode);
    }
    *hdr_len = n;
    return MIP_OK;
}

mip_status mip_ieee802154_emit(const struct mip_802154_hdr *h, uint8_t *buf, size_t cap,
                               size_t *out_len)
{
    size_t n = 3u, need;
    uint16_t fcf;
    if (h->type > MIP_802154_CMD || h->version > 1u || h->dst.mode == 1u ||
        h->src.mode == 1u || h->dst.mode > 3u || h->src.mode > 3u)
        return MIP_ERR_INVALID;
    if (h->pan_id_compress &&
        (h->dst.mode == MIP_802154_ADDR_NONE || h->src.mode == MIP_802154_ADDR_NONE))
        return MIP_ERR_INVALID;
    if (h->security && h->version != 1u)
        return MIP_ERR_INVALID;
    need = mip_ieee802154_hdr_len(h);
    if (cap < need)
        return MIP_ERR_NOSPACE;
    fcf = (uint16_t)(h->type & FCF_TYPE_MASK);
    if (h->frame_pending)
        fcf |= FCF_PENDING;
    if (h->ack_request)
        fcf |= FCF_ACK_REQ;
    if (h->pan_id_compress)
        fcf |= FCF_PANID_COMP;
    if (h->security)
        fcf |= FCF_SECURITY;
    fcf |= (uint16_t)((uint16_t)h->dst.mode << FCF_DST_MODE_SHIFT);
    fcf |= (uint16_t)((uint16_t)h->version << FCF_VERSION_SHIFT);
    fcf |= (uint16_t)((uint16_t)h->src.mode << FCF_SRC_MODE_SHIFT);
    wr16le(buf, fcf);
    buf[2] = h->seq;
    if (h->dst.mode != MIP_802154_ADDR_NONE) {
        wr16le(buf + n, h->dst_pan);
        n += 2u;
        wr_addr(buf + n, &h->dst);
        n += addr_len(h->dst.mode);
    }
    if (h->src.mode != MIP_802154_ADDR_NONE) {
        if (!h->pan_id_compress) {
            wr16le(buf + n, h->src_pan);
            n += 2u;
        }
        wr_addr(buf + n, &h->src);
        n += addr_len(h->src.mode);
    }
    *out_len = n;
    return MIP_OK;
}

uint16_t mip_ieee802154_fcs(const uint8_t *frame, size_t len)
{
    /* CRC-16/KERMIT: reflected 0x1021 (0x8408), init 0, no final xor. */
    uint16_t crc = 0;
    size_t i;
    unsigned b;
    for (i = 0; i < len; i++) {
        crc ^= frame[i];
        for (b = 0; b < 8u; b++)
            crc = (crc & 1u) ? (uint16_t)((crc >> 1) ^ 0x8408u) : (uint16_t)(crc >> 1);
    }
    return crc;
}

void mip_ieee802154_emit_ack(uint8_t seq, bool frame_pending, uint8_t out[MIP_802154_ACK_LEN])
{
    uint16_t fcf = MIP_802154_ACK;
    if (frame_pending)
        fcf |= FCF_PENDING;
    wr16le(out, fcf);
    out[2] = seq;
}

/* --- auxiliary security header ------------------------------------------ */

/* Only link-layer security reads or writes it (MIP_CONF_LLSEC). */
#if MIP_CONF_LLSEC

/* Security control (802.15.4-2015 Figure 9-6). */
#define SEC_LEVEL_MASK   0x07u
#define SEC_KEY_SHIFT    3
#define SEC_UNSUPPORTED  0xE0u  /* counter suppression, ASN in nonce, reserved */

static size_t key_id_len(uint8_t mode)
{
    static const uint8_t lens[4] = {0, 1, 5, 9};
    return lens[mode & 3u];
}

size_t mip_ieee802154_sec_len(const struct mip_802154_sec *s)
{
    return 5u + key_id_len(s->key_id_mode);
}

mip_status mip_ieee802154_sec_parse(const uint8_t *p, size_t len, struct mip_802154_sec *out,
                                    size_t *aux_len)
{
    size_t n, src;
    if (len < 5u)
        return MIP_ERR_TRUNCATED;
    if ((p[0] & SEC_UNSUPPORTED) != 0u)
        return MIP_ERR_UNSUPPORTED;
    out->level = (uint8_t)(p[0] & SEC_LEVEL_MASK);
    out->key_id_mode = (uint8_t)((p[0] >> SEC_KEY_SHIFT) & 3u);
    n = mip_ieee802154_sec_len(out);
    if (len < n)
        return MIP_ERR_TRUNCATED;
    out->frame_counter = 0;
    for (src = 4; src > 0u; src--)          /* little-endian */
        out->frame_counter = out->frame_counter << 8 | p[src];
    memset(out->key_source, 0, sizeof(out->key_source));
    out->key_index = 0;
    if (out->key_id_mode != MIP_802154_KEY_IMPLICIT) {
        memcpy(out->key_source, p + 5, n - 6u);   /* 0, 4 or 8 bytes of key source */
        out->key_index = p[n - 1u];
    }
    *aux_len = n;
    return MIP_OK;
}

mip_status mip_ieee802154_sec_emit(const struct mip_802154_sec *s, uint8_t *buf, size_t cap,
                                   size_t *out_len)
{
    size_t n, i;
    if (s->level > 7u || s->key_id_mode > 3u)
        return MIP_ERR_INVALID;
    n = mip_ieee802154_sec_len(s);
    if (cap < n)
        return MIP_ERR_NOSPACE;
    buf[0] = (uint8_t)(s->level | (s->key_id_mode << SEC_KEY_SHIFT));
    for (i = 0; i < 4u; i++)
        buf[1u + i] = (uint8_t)(s->frame_counter >> (8u * i));
    if (s->key_id_mode != MIP_802154_KEY_IMPLICIT) {
        memcpy(buf + 5, s->key_source, n - 6u);
        buf[n - 1u] = s->key_index;
    }
    *out_len = n;
    return MIP_OK;
}

void mip_ieee802154_nonce(const uint8_t src_ext[8], uint32_t frame_counter, uint8_t level,
                          uint8_t out[13])
{
    unsigned i;
    memcpy(out, src_ext, 8);
    for (i = 0; i < 4u; i++)                /* big-endian */
        out[8u + i] = (uint8_t)(frame_counter >> (24u - 8u * i));
    out[12] = level;
}
#endif
