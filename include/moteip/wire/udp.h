/*
 * UDP header codec (RFC 768).
 */
#ifndef MOTEIP_WIRE_UDP_H
#define MOTEIP_WIRE_UDP_H

#include <stdint.h>
#include <stddef.h>
#include "moteip/status.h"

#define MIP_UDP_HDR_LEN 8u

struct mip_udp_hdr {
    uint16_t src_port;
    uint16_t dst_port;
    uint16_t length;    /* bytes, header + payload, >= 8 */
    uint16_t checksum;  /* as on the wire; 0 means "none" (IPv4 only) */
};

/* Checks, in order: len >= 8 (TRUNCATED), length >= 8 (MALFORMED; this
 * includes the IPv6 jumbogram length 0, which is not supported), length <=
 * len (TRUNCATED). Bytes past length are padding for the caller to ignore. The
 * checksum is not verified here (it needs the pseudo header): the caller
 * checks mip_cksum_finish(pseudo + mip_cksum_add(0, buf, length)) == 0. */
mip_status mip_udp_parse(const uint8_t *buf, size_t len, struct mip_udp_hdr *out);

/* Writes exactly 8 bytes, checksum field as given in h; NOSPACE if cap < 8. */
mip_status mip_udp_emit(const struct mip_udp_hdr *h, uint8_t *buf, size_t cap);

#endif
