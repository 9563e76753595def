/*
 * ARP (RFC 826), Ethernet/IPv4 only.
 */
#include <string.h>

#include "moteip/wire/arp.h"
#include "moteip/wire/bytes.h"

#define ARP_HTYPE_ETHERNET 1u
#define ARP_PTYPE_IPV4     0x0800u
#define ARP_HLEN           6u
#define ARP_PLEN           4u

/* Offsets of the fields after the fixed 8-byte preamble. */
#define OFF_SHA 8
#define OFF_SPA 14
#define OFF_THA 18
#define OFF_TPA 24

mip_status mip_arp_parse(const uint8_t *buf, size_t len, struct mip_arp *out)
{
    uint16_t op;

    /* Frames are usually padded to the Ethernet minimum: len > 28 is fine. */
    if (len < MIP_ARP_LEN)
        return MIP_ERR_TRUNCATED;
    if (mip_rd16(buf) != ARP_HTYPE_ETHERNET || mip_rd16(buf + 2) != ARP_PTYPE_IPV4 ||
        buf[4] != ARP_HLEN || buf[5] != ARP_PLEN)
        return MIP_ERR_UNSUPPORTED;
    op = mip_rd16(buf + 6);
    if (op != MIP_ARP_OP_REQUEST && op != MIP_ARP_OP_REPLY)
        return MIP_ERR_MALFORMED;
    out->op = op;
    memcpy(out->sha, buf + OFF_SHA, ARP_HLEN);
    memcpy(out->spa, buf + OFF_SPA, ARP_PLEN);
    memcpy(out->tha, buf + OFF_THA, ARP_HLEN);
    memcpy(out->tpa, buf + OFF_TPA, ARP_PLEN);
    return MIP_OK;
}

mip_status mip_arp_emit(const struct mip_arp *a, uint8_t *buf, size_t cap)
{
    if (cap < MIP_ARP_LEN)
        return MIP_ERR_NOSPACE;
    mip_wr16(buf, ARP_HTYPE_ETHERNET);
    mip_wr16(buf + 2, ARP_PTYPE_IPV4);
    buf[4] = ARP_HLEN;
    buf[5] = ARP_PLEN;
    mip_wr16(buf + 6, a->op);
    memcpy(buf + OFF_SHA, a->sha, ARP_HLEN);
    memcpy(buf + OFF_SPA, a->spa, ARP_PLEN);
    memcpy(buf + OFF_THA, a->tha, ARP_HLEN);
    memcpy(buf + OFF_TPA, a->tpa, ARP_PLEN);
    return MIP_OK;
}
