/*
 * The 8-byte message header ICMPv4 (RFC 792) and ICMPv6 (RFC 4443 s.2.1)
 * share: type, code, checksum and four bytes whose meaning the type gives.
 * One codec serves both; the versions differ only in their type numbers
 * (icmpv4.h, icmpv6.h) and in what the checksum covers (ICMPv6 adds the
 * IPv6 pseudo header).
 */
#ifndef MOTEIP_WIRE_ICMP_H
#define MOTEIP_WIRE_ICMP_H

#include <stdint.h>
#include <stddef.h>
#include "moteip/status.h"

#define MIP_ICMP_HDR_LEN 8u

struct mip_icmp_hdr {
    uint8_t  type;
    uint8_t  code;
    uint16_t checksum;
    /* The 4 bytes after the checksum, by type: echo id/seq; a parameter
     * problem's pointer (ICMPv4: in the top byte; ICMPv6: all 32 bits);
     * ICMPv4 frag-needed next-hop MTU in the low 16 bits; ICMPv6 packet
     * too big MTU; zero otherwise. */
    uint32_t rest;
};

/* TRUNCATED if len < 8. The checksum is not verified here: over a whole
 * ICMPv4 message mip_cksum_finish(mip_cksum_add(0, buf, len)) == 0
 * verifies it; ICMPv6 needs the pseudo header as well. */
mip_status mip_icmp_parse(const uint8_t *buf, size_t len, struct mip_icmp_hdr *out);

/* Writes the 8-byte header with the checksum field as given in h (NOSPACE
 * if cap < 8). To finish a message, emit with checksum 0, write the body
 * after it, then store mip_cksum_finish() over the whole message (and, for
 * ICMPv6, the pseudo header) at offset 2. */
mip_status mip_icmp_emit(const struct mip_icmp_hdr *h, uint8_t *buf, size_t cap);

#endif
