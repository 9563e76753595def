/*
 * The header ICMPv4 (RFC 792) and ICMPv6 (RFC 4443) share.
 */
#include "moteip/wire/icmp.h"
#include "moteip/wire/bytes.h"

mip_status mip_icmp_parse(const uint8_t *buf, size_t len, struct mip_icmp_hdr *out)
{
    if (len < MIP_ICMP_HDR_LEN)
        return MIP_ERR_TRUNCATED;
    out->type = buf[0];
    out->code = buf[1];
    out->checksum = mip_rd16(buf + 2);
    out->rest = mip_rd32(buf + 4);
    return MIP_OK;
}

mip_status mip_icmp_emit(const struct mip_icmp_hdr *h, uint8_t *buf, size_t cap)
{
    if (cap < MIP_ICMP_HDR_LEN)
        return MIP_ERR_NOSPACE;
    buf[0] = h->type;
    buf[1] = h->code;
    mip_wr16(buf + 2, h->checksum);
    mip_wr32(buf + 4, h->rest);
    return MIP_OK;
}
