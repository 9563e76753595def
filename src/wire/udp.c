/*
 * UDP header codec (RFC 768).
 */
#include "moteip/wire/udp.h"
#include "moteip/wire/bytes.h"

mip_status mip_udp_parse(const uint8_t *buf, size_t len, struct mip_udp_hdr *out)
{
    uint16_t length;

    if (len < MIP_UDP_HDR_LEN)
        return MIP_ERR_TRUNCATED;
    length = mip_rd16(buf + 4);
    if (length < MIP_UDP_HDR_LEN)
        return MIP_ERR_MALFORMED;
    if (length > len)
        return MIP_ERR_TRUNCATED;
    out->src_port = mip_rd16(buf);
    out->dst_port = mip_rd16(buf + 2);
    out->length = length;
    out->checksum = mip_rd16(buf + 6);
    return MIP_OK;
}

mip_status mip_udp_emit(const struct mip_udp_hdr *h, uint8_t *buf, size_t cap)
{
    if (cap < MIP_UDP_HDR_LEN)
        return MIP_ERR_NOSPACE;
    mip_wr16(buf, h->src_port);
    mip_wr16(buf + 2, h->dst_port);
    mip_wr16(buf + 4, h->length);
    mip_wr16(buf + 6, h->checksum);
    return MIP_OK;
}
