/*
 * ARP (RFC 826) for IPv4 over Ethernet only: htype 1, ptype 0x0800,
 * hlen 6, plen 4. Anything else parses as UNSUPPORTED.
 */
#ifndef MOTEIP_WIRE_ARP_H
#define MOTEIP_WIRE_ARP_H

#include <stdint.h>
#include <stddef.h>
#include "moteip/status.h"

#define MIP_ARP_LEN        28u
#define MIP_ARP_OP_REQUEST 1u
#define MIP_ARP_OP_REPLY   2u

struct mip_arp {
    uint16_t op;
    uint8_t  sha[6];
    uint8_t  spa[4];
    uint8_t  tha[6];
    uint8_t  tpa[4];
};

/* Checks, in order: len >= 28 (TRUNCATED; bytes past 28 are link padding);
 * htype 1, ptype 0x0800, hlen 6, plen 4 (UNSUPPORTED); op request or reply
 * (MALFORMED). */
mip_status mip_arp_parse(const uint8_t *buf, size_t len, struct mip_arp *out);
/* Writes exactly MIP_ARP_LEN bytes, op as given; NOSPACE if cap is smaller. */
mip_status mip_arp_emit(const struct mip_arp *a, uint8_t *buf, size_t cap);

#endif
