/*
 * Ethernet II header codec. 802.1Q tags are not decoded: a tagged frame
 * parses with ethertype 0x8100 and the stack drops it as unsupported.
 */
#ifndef MOTEIP_WIRE_ETHERNET_H
#define MOTEIP_WIRE_ETHERNET_H

#include <stdint.h>
#include <stddef.h>
#include "moteip/status.h"

#define MIP_ETH_HDR_LEN   14u
#define MIP_ETH_ADDR_LEN  6u
#define MIP_ETHERTYPE_IPV4 0x0800u
#define MIP_ETHERTYPE_ARP  0x0806u
#define MIP_ETHERTYPE_IPV6 0x86DDu

struct mip_eth_hdr {
    uint8_t  dst[MIP_ETH_ADDR_LEN];
    uint8_t  src[MIP_ETH_ADDR_LEN];
    uint16_t ethertype;
};

/* TRUNCATED if len < 14. The payload starts at buf + MIP_ETH_HDR_LEN. */
mip_status mip_eth_parse(const uint8_t *buf, size_t len, struct mip_eth_hdr *out);
/* Writes exactly MIP_ETH_HDR_LEN bytes; NOSPACE if cap is smaller. */
mip_status mip_eth_emit(const struct mip_eth_hdr *h, uint8_t *buf, size_t cap);

#endif
