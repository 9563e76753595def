/*
 * The opening bytes of a cctrl split-and-merge tunnel connection ([B] =
 * Buergi's MSc thesis, seeds/001, s.4.5.1; apps/cctrl_proxy.h): a pure
 * codec, no state.
 *
 * The cctrl node that took over a client's SYN opens n TCP connections (the
 * subflows) to the cctrl node of the server's end target. [B] leaves open
 * how that node learns which connections belong together and where the
 * real server is; each subflow starts with this header (big-endian):
 *
 *   0: 0xC1 (cctrl tunnel, version 1)
 *   1: n << 4 | index          n 1..MIP_CCTRL_SUBFLOWS_MAX, index < n
 *   2-3: stream id             chosen by the opener, unique among its streams
 *   4-5: target port           the client SYN's destination port, nonzero
 *   6: family                  4 or 6
 *   7..: target address        4 or 16 bytes: the client SYN's destination
 *
 * 11 bytes for IPv4, 23 for IPv6. The answer on every subflow is one status
 * byte, MIP_CCTRL_TUNNEL_READY once the real connection is established
 * (anything else, or a reset, means it is not).
 */
#ifndef MOTEIP_WIRE_CCTRL_TUNNEL_H
#define MOTEIP_WIRE_CCTRL_TUNNEL_H

#include <stddef.h>
#include <stdint.h>
#include "moteip/status.h"

#define MIP_CCTRL_TUNNEL_MAGIC 0xC1u
#define MIP_CCTRL_TUNNEL_HDR4  11u
#define MIP_CCTRL_TUNNEL_HDR6  23u
#define MIP_CCTRL_TUNNEL_HDR_MAX MIP_CCTRL_TUNNEL_HDR6
#define MIP_CCTRL_TUNNEL_READY 0x00u
/* The codec's own bound on n (the rules' MIP_CCTRL_SUBFLOWS_MAX is 4). */
#define MIP_CCTRL_TUNNEL_N_MAX 4u

struct mip_cctrl_tunnel_hdr {
    uint8_t  n;                 /* subflows of the stream, 1..MIP_CCTRL_TUNNEL_N_MAX */
    uint8_t  index;             /* this subflow, < n */
    uint16_t stream;
    uint16_t port;              /* nonzero */
    uint8_t  family;            /* 4 or 6 */
    uint8_t  target[16];        /* the first 4 for IPv4 */
};

/* The header's length for an address family: 11, 23, or 0 for another. */
size_t mip_cctrl_tunnel_hdr_len(uint8_t family);

/* Decodes the header at the start of buf; *used = its length. TRUNCATED
 * while fewer bytes than the header (so far) needs; MALFORMED for a wrong
 * magic byte, n outside 1..4, index >= n, port 0 or a family byte other
 * than 4 or 6. */
mip_status mip_cctrl_tunnel_parse(const uint8_t *buf, size_t len,
                                  struct mip_cctrl_tunnel_hdr *out, size_t *used);

/* Encodes h; *used = its length. INVALID for what parse would call
 * MALFORMED, NOSPACE when cap is too small. */
mip_status mip_cctrl_tunnel_emit(const struct mip_cctrl_tunnel_hdr *h, uint8_t *buf,
                                 size_t cap, size_t *used);

#endif
