/*
 * ICMPv4 (RFC 792) message header codec: echo request/reply and the error
 * messages the stack sends and receives.
 */
#ifndef MOTEIP_WIRE_ICMPV4_H
#define MOTEIP_WIRE_ICMPV4_H

#include <stdint.h>
#include <stddef.h>
#include "moteip/status.h"

#define MIP_ICMPV4_HDR_LEN 8u

#define MIP_ICMPV4_ECHO_REPLY     0u
#define MIP_ICMPV4_DEST_UNREACH   3u
#define MIP_ICMPV4_ECHO_REQUEST   8u
#define MIP_ICMPV4_TIME_EXCEEDED  11u
#define MIP_ICMPV4_PARAM_PROBLEM  12u

/* Destination unreachable codes */
#define MIP_ICMPV4_UNREACH_NET       0u
#define MIP_ICMPV4_UNREACH_HOST      1u
#define MIP_ICMPV4_UNREACH_PROTOCOL  2u
#define MIP_ICMPV4_UNREACH_PORT      3u
#define MIP_ICMPV4_UNREACH_FRAG_NEEDED 4u
/* Time exceeded codes */
#define MIP_ICMPV4_TE_TTL    0u
#define MIP_ICMPV4_TE_REASS  1u

struct mip_icmpv4_hdr {
    uint8_t  type;
    uint8_t  code;
    uint16_t checksum;
    /* The 4 bytes after the checksum, by type: echo id/seq; parameter
     * problem pointer in the top byte; frag-needed next-hop MTU in the
     * low 16 bits; zero otherwise. */
    uint32_t rest;
};

/* TRUNCATED if len < 8. The checksum is not verified here; over a whole
 * message, mip_cksum_finish(mip_cksum_add(0, buf, len)) == 0 verifies it. */
mip_status mip_icmpv4_parse(const uint8_t *buf, size_t len, struct mip_icmpv4_hdr *out);

/* Writes the 8-byte header with the checksum field as given in h (NOSPACE
 * if cap < 8). To
 * finish a message, emit with checksum 0, write the body after it, then
 * store mip_cksum_finish() over the whole message at offset 2. */
mip_status mip_icmpv4_emit(const struct mip_icmpv4_hdr *h, uint8_t *buf, size_t cap);

#endif
