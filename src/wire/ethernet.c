/*
 * Ethernet II header codec.
 */
#include <string.h>

#include "moteip/wire/ethernet.h"
#include "moteip/wire/bytes.h"

mip_status mip_eth_parse(const uint8_t *buf, size_t len, struct mip_eth_hdr *out)
{
    if (len < MIP_ETH_HDR_LEN)
        return MIP_ERR_TRUNCATED;
    memcpy(out->dst, buf, MIP_ETH_ADDR_LEN);
    memcpy(out->src, buf + 6, MIP_ETH_ADDR_LEN);
    out->ethertype = mip_rd16(buf + 12);
    return MIP_OK;
}

mip_status mip_eth_emit(const struct mip_eth_hdr *h, uint8_t *buf, size_t cap)
{
    if (cap < MIP_ETH_HDR_LEN)
        return MIP_ERR_NOSPACE;
    memcpy(buf, h->dst, MIP_ETH_ADDR_LEN);
    memcpy(buf + 6, h->src, MIP_ETH_ADDR_LEN);
    mip_wr16(buf + 12, h->ethertype);
    return MIP_OK;
}
