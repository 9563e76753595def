/*
 * IPv4 header codec (RFC 791).
 */
#include <string.h>

#include "moteip/wire/ipv4.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"

#define FLAG_RESERVED   0x4u      /* the flag bit above DF */
#define FRAG_FIELD_MASK 0x1FFFu   /* offset in 8-byte units */

mip_status mip_ipv4_parse(const uint8_t *buf, size_t len, struct mip_ipv4_hdr *out)
{
    uint16_t hdr_len, total_len, frag;

    if (len < MIP_IPV4_HDR_LEN)
        return MIP_ERR_TRUNCATED;
    hdr_len = (uint16_t)((uint16_t)(buf[0] & 0x0Fu) * 4u);
    if ((buf[0] >> 4) != 4u || hdr_len < MIP_IPV4_HDR_LEN)
        return MIP_ERR_MALFORMED;
    if (hdr_len > len)
        return MIP_ERR_TRUNCATED;
    total_len = mip_rd16(buf + 2);
    if (total_len < hdr_len)
        return MIP_ERR_MALFORMED;
    if (total_len > len)
        return MIP_ERR_TRUNCATED;
    frag = mip_rd16(buf + 6);
    if ((frag >> 13) & FLAG_RESERVED)
        return MIP_ERR_MALFORMED;

    out->hdr_len = (uint8_t)hdr_len;
    out->tos = buf[1];
    out->total_len = total_len;
    out->id = mip_rd16(buf + 4);
    out->flags = (uint8_t)(frag >> 13);
    out->frag_offset = (uint16_t)((frag & FRAG_FIELD_MASK) * 8u);
    out->ttl = buf[8];
    out->proto = buf[9];
    out->checksum = mip_rd16(buf + 10);
    memcpy(out->src, buf + 12, 4);
    memcpy(out->dst, buf + 16, 4);
    return MIP_OK;
}

mip_status mip_ipv4_options_check(const uint8_t *buf, size_t hdr_len, uint8_t *where)
{
    size_t i = MIP_IPV4_HDR_LEN;
    while (i < hdr_len && buf[i] != MIP_IPV4_OPT_EOL) {
        uint8_t type = buf[i];
        if (type == MIP_IPV4_OPT_NOP) {
            i++;
            continue;
        }
        /* the length byte, or the type byte when there is none */
        *where = (uint8_t)(i + 1u < hdr_len ? i + 1u : i);
        if (i + 1u >= hdr_len || buf[i + 1u] < 2u || buf[i + 1u] > hdr_len - i)
            return MIP_ERR_MALFORMED;
        if (type == MIP_IPV4_OPT_LSRR || type == MIP_IPV4_OPT_SSRR) {
            *where = (uint8_t)i;
            return MIP_ERR_UNSUPPORTED;
        }
        i += buf[i + 1u];
    }
    return MIP_OK;
}

bool mip_ipv4_checksum_ok(const uint8_t *buf, size_t hdr_len)
{
    if (hdr_len < MIP_IPV4_HDR_LEN)
        return false;
    return mip_cksum_finish(mip_cksum_add(0, buf, hdr_len)) == 0u;
}

mip_status mip_ipv4_emit(const struct mip_ipv4_hdr *h, uint8_t *buf, size_t cap)
{
    if (cap < MIP_IPV4_HDR_LEN)
        return MIP_ERR_NOSPACE;
    /* Refuse what the wire cannot carry rather than silently truncating it,
     * and a total length no parser would accept. */
    if ((h->flags & ~(MIP_IPV4_FLAG_DF | MIP_IPV4_FLAG_MF)) != 0u ||
        (h->frag_offset & 7u) != 0u || h->total_len < MIP_IPV4_HDR_LEN)
        return MIP_ERR_INVALID;

    buf[0] = 0x45u;
    buf[1] = h->tos;
    mip_wr16(buf + 2, h->total_len);
    mip_wr16(buf + 4, h->id);
    mip_wr16(buf + 6, (uint16_t)(((uint16_t)h->flags << 13) | (uint16_t)(h->frag_offset >> 3)));
    buf[8] = h->ttl;
    buf[9] = h->proto;
    mip_wr16(buf + 10, 0);
    memcpy(buf + 12, h->src, 4);
    memcpy(buf + 16, h->dst, 4);
    mip_wr16(buf + 10, mip_cksum_finish(mip_cksum_add(0, buf, MIP_IPV4_HDR_LEN)));
    return MIP_OK;
}
