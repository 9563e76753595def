/*
 * RPL's data-plane extension headers: the Source Routing Header (RFC 6554)
 * and the RPL Option (RFC 6553, RFC 9008). Contract in
 * include/moteip/wire/rpl_ext.h.
 */
#include "moteip/config.h"
#include "moteip/wire/rpl_ext.h"
#include "moteip/wire/bytes.h"

#include <string.h>

/* The SRH is non-storing mode's alone (RFC 6554): a storing-only build
 * (MIP_CONF_RPL_NON_STORING 0, config.h) leaves it out. */
#if MIP_CONF_RPL_NON_STORING
#define SRH_ADDR_LEN   16u
#define SRH_CMPR_MAX   15u   /* a 4-bit field */

/* The stored length of Addresses[i]. */
static size_t srh_slot_len(const struct mip_srh *h, uint16_t i)
{
    return SRH_ADDR_LEN - (i == h->n ? h->cmpr_e : h->cmpr_i);
}

static size_t srh_slot_off(const struct mip_srh *h, uint16_t i)
{
    return (size_t)(i - 1u) * (SRH_ADDR_LEN - h->cmpr_i);
}

mip_status mip_srh_parse(const uint8_t *buf, size_t avail, struct mip_srh *out)
{
    size_t len, body, last, per;

    if (avail < MIP_SRH_FIXED_LEN)
        return MIP_ERR_TRUNCATED;
    len = ((size_t)buf[1] + 1u) * 8u;
    if (len > avail)
        return MIP_ERR_TRUNCATED;
    if (buf[2] != MIP_SRH_TYPE)
        return MIP_ERR_MALFORMED;

    out->next_header = buf[0];
    out->segments_left = buf[3];
    out->cmpr_i = (uint8_t)(buf[4] >> 4);
    out->cmpr_e = (uint8_t)(buf[4] & 0x0Fu);
    out->pad = (uint8_t)(buf[5] >> 4);
    out->len = (uint16_t)len;
    out->addrs = buf + MIP_SRH_FIXED_LEN;

    /* RFC 6554 3: the address bytes are the header's after the fixed
     * part, less Pad; Addresses[n] takes 16 - CmprE of them and each
     * earlier one 16 - CmprI. Anything that does not divide is malformed. */
    body = len - MIP_SRH_FIXED_LEN;
    last = SRH_ADDR_LEN - out->cmpr_e;
    per = SRH_ADDR_LEN - out->cmpr_i;
    if (body < (size_t)out->pad + last)
        return MIP_ERR_MALFORMED;
    body -= (size_t)out->pad + last;
    if (body % per != 0u)
        return MIP_ERR_MALFORMED;
    out->n = (uint16_t)(body / per + 1u);
    return MIP_OK;
}

mip_status mip_srh_addr(const struct mip_srh *h, uint16_t i, const uint8_t ref[16],
                        uint8_t out[16])
{
    size_t keep;

    if (i == 0u || i > h->n)
        return MIP_ERR_INVALID;
    keep = srh_slot_len(h, i);
    memcpy(out, ref, SRH_ADDR_LEN - keep);
    memcpy(out + SRH_ADDR_LEN - keep, h->addrs + srh_slot_off(h, i), keep);
    return MIP_OK;
}

mip_status mip_srh_swap(uint8_t *hdr, const struct mip_srh *h, uint8_t dst[16],
                        uint16_t *index)
{
    uint8_t next[16];
    uint16_t sl, i;
    size_t keep;
    uint8_t *slot;

    if (h->segments_left == 0u || h->segments_left > h->n)
        return MIP_ERR_INVALID;
    sl = (uint16_t)(h->segments_left - 1u);
    i = (uint16_t)(h->n - sl);
    (void)mip_srh_addr(h, i, dst, next);
    keep = srh_slot_len(h, i);
    /* The old destination goes into slot i with the same octets elided:
     * next was expanded from dst, so they are equal in both and the slot
     * expands back to the old destination against the new one. */
    slot = hdr + MIP_SRH_FIXED_LEN + srh_slot_off(h, i);
    memcpy(slot, dst + SRH_ADDR_LEN - keep, keep);
    memcpy(dst, next, SRH_ADDR_LEN);
    hdr[MIP_SRH_SL_OFFSET] = (uint8_t)sl;
    *index = i;
    return MIP_OK;
}

/* Octets a and b share from the start, at most SRH_CMPR_MAX. */
static uint8_t common_prefix(const uint8_t *a, const uint8_t *b, uint8_t upto)
{
    uint8_t k = 0u;

    while (k < upto && a[k] == b[k])
        k++;
    return k;
}

static uint8_t srh_cmpr(const uint8_t dst[16], const uint8_t (*addrs)[16], uint16_t n)
{
    uint8_t c = SRH_CMPR_MAX;
    uint16_t k;

    for (k = 0u; k < n && c > 0u; k++)
        c = common_prefix(dst, addrs[k], c);
    return c;
}

size_t mip_srh_emit_len(const uint8_t dst[16], const uint8_t (*addrs)[16], uint16_t n)
{
    size_t bytes;

    if (n == 0u)
        return 0u;
    bytes = (size_t)n * (SRH_ADDR_LEN - srh_cmpr(dst, addrs, n));
    return MIP_SRH_FIXED_LEN + (bytes + 7u) / 8u * 8u;
}

mip_status mip_srh_emit(uint8_t next_header, const uint8_t dst[16],
                        const uint8_t (*addrs)[16], uint16_t n,
                        uint8_t *buf, size_t cap, size_t *out_len)
{
    uint8_t c;
    size_t per, len, at;
    uint16_t k;

    if (n == 0u || n > 255u)
        return MIP_ERR_INVALID;
    c = srh_cmpr(dst, addrs, n);
    per = SRH_ADDR_LEN - c;
    len = mip_srh_emit_len(dst, addrs, n);
    if (len > MIP_SRH_LEN_MAX)
        return MIP_ERR_INVALID;
    if (cap < len)
        return MIP_ERR_NOSPACE;

    memset(buf, 0, len);
    buf[0] = next_header;
    buf[1] = (uint8_t)(len / 8u - 1u);
    buf[2] = MIP_SRH_TYPE;
    buf[3] = (uint8_t)n;
    buf[4] = (uint8_t)((c << 4) | c);
    buf[5] = (uint8_t)((len - MIP_SRH_FIXED_LEN - (size_t)n * per) << 4);
    at = MIP_SRH_FIXED_LEN;
    for (k = 0u; k < n; k++, at += per)
        memcpy(buf + at, addrs[k] + c, per);
    *out_len = len;
    return MIP_OK;
}

#endif

/* --- RPL Option ----------------------------------------------------------- */

mip_status mip_rpi_parse(const uint8_t *opt, size_t avail, struct mip_rpi *out)
{
    if (avail < 2u)
        return MIP_ERR_TRUNCATED;
    if (!mip_rpi_type_is(opt[0]))
        return MIP_ERR_MALFORMED;
    if ((size_t)opt[1] + 2u > avail)
        return MIP_ERR_TRUNCATED;
    if (opt[1] < MIP_RPI_DATA_LEN)
        return MIP_ERR_MALFORMED;
    out->down = (opt[2] & MIP_RPI_O) != 0u;
    out->rank_error = (opt[2] & MIP_RPI_R) != 0u;
    out->fwd_error = (opt[2] & MIP_RPI_F) != 0u;
    out->instance = opt[3];
    out->sender_rank = mip_rd16(opt + 4);
    return MIP_OK;
}

mip_status mip_rpi_find(const uint8_t *hbh, size_t avail, size_t *off)
{
    size_t end, i = 2u;

    if (avail < 2u)
        return MIP_ERR_TRUNCATED;
    end = ((size_t)hbh[1] + 1u) * 8u;
    if (end > avail)
        return MIP_ERR_TRUNCATED;
    while (i < end) {
        if (hbh[i] == 0u) {          /* Pad1 */
            i++;
            continue;
        }
        if (end - i < 2u || (size_t)hbh[i + 1u] > end - i - 2u)
            return MIP_ERR_MALFORMED;
        if (mip_rpi_type_is(hbh[i])) {
            *off = i;
            return MIP_OK;
        }
        i += 2u + hbh[i + 1u];
    }
    return MIP_ERR_NOTFOUND;
}

void mip_rpi_update(uint8_t *opt, const struct mip_rpi *o)
{
    /* The unassigned flag bits are kept as they came (RFC 6553 3: ignored
     * on reception; a forwarder has no reason to change them). */
    opt[2] = (uint8_t)((opt[2] & 0x1Fu) | (o->down ? MIP_RPI_O : 0u) |
                       (o->rank_error ? MIP_RPI_R : 0u) |
                       (o->fwd_error ? MIP_RPI_F : 0u));
    opt[3] = o->instance;
    mip_wr16(opt + 4, o->sender_rank);
}

mip_status mip_rpi_hbh_emit(uint8_t next_header, uint8_t type, const struct mip_rpi *o,
                            uint8_t *buf, size_t cap)
{
    if (!mip_rpi_type_is(type))
        return MIP_ERR_INVALID;
    if (cap < MIP_RPI_HBH_LEN)
        return MIP_ERR_NOSPACE;
    buf[0] = next_header;
    buf[1] = 0u;                    /* (0 + 1) * 8 bytes */
    buf[2] = type;
    buf[3] = MIP_RPI_DATA_LEN;
    buf[4] = 0u;
    mip_rpi_update(buf + 2, o);
    return MIP_OK;
}
