/*
 * IPv4 header codec (RFC 791). Options are not interpreted: parse validates
 * IHL and exposes the header length so the caller skips them;
 * mip_ipv4_options_check() walks them for well-formedness and source
 * routes; emit writes a 20-byte header without options.
 */
#ifndef MOTEIP_WIRE_IPV4_H
#define MOTEIP_WIRE_IPV4_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"

#define MIP_IPV4_HDR_LEN 20u   /* without options */
#define MIP_IPV4_HDR_MAX 60u
#define MIP_IPV4_FLAG_DF 0x2u
#define MIP_IPV4_FLAG_MF 0x1u

/* Option types (RFC 791). */
#define MIP_IPV4_OPT_EOL   0u     /* End of Option List */
#define MIP_IPV4_OPT_NOP   1u
#define MIP_IPV4_OPT_RR    7u     /* Record Route */
#define MIP_IPV4_OPT_TS    68u    /* Timestamp */
#define MIP_IPV4_OPT_LSRR  131u   /* Loose Source and Record Route */
#define MIP_IPV4_OPT_SSRR  137u   /* Strict Source and Record Route */

#define MIP_IPPROTO_ICMP   1u
#define MIP_IPPROTO_TCP    6u
#define MIP_IPPROTO_UDP    17u
#define MIP_IPPROTO_ICMPV6 58u

struct mip_ipv4_hdr {
    uint8_t  hdr_len;     /* bytes, 20..60, a multiple of 4 */
    uint8_t  tos;
    uint16_t total_len;   /* bytes, header + payload */
    uint16_t id;
    uint8_t  flags;       /* MIP_IPV4_FLAG_DF | MIP_IPV4_FLAG_MF */
    uint16_t frag_offset; /* bytes (the wire field times 8) */
    uint8_t  ttl;
    uint8_t  proto;
    uint16_t checksum;    /* as on the wire; emit computes it */
    uint8_t  src[4];
    uint8_t  dst[4];
};

/*
 * Validates and decodes the header at buf. Checks, in order: len >= 20
 * (TRUNCATED), version 4 and IHL >= 5 (MALFORMED), IHL*4 <= len (TRUNCATED),
 * total_len >= IHL*4 (MALFORMED), total_len <= len (TRUNCATED), the reserved
 * flag bit clear (MALFORMED). Bytes past total_len are link padding for the
 * caller to ignore. The header checksum is NOT verified here: see
 * mip_ipv4_checksum_ok().
 */
mip_status mip_ipv4_parse(const uint8_t *buf, size_t len, struct mip_ipv4_hdr *out);

/* True when the header checksum over buf[0..hdr_len) is correct; false for
 * hdr_len < 20. Pass the hdr_len from a successful parse. */
bool mip_ipv4_checksum_ok(const uint8_t *buf, size_t hdr_len);

/*
 * Walks the options of the header at buf[20..hdr_len) (hdr_len from a
 * successful parse: at most 60, all present), up to End of Option List.
 * Pure and bounded: every step moves forward, at most 40 of them.
 *
 * MALFORMED when an option other than End of Option List and No Operation
 * has no length byte (its type is the header's last byte), or a length
 * below 2 or running past the header. UNSUPPORTED for a Loose or Strict
 * Source and Record Route (RFC 7126 4.3, 4.4 advise dropping them). OK
 * otherwise: what other options hold is not looked at (a host implements
 * none of them; RFC 1122 3.2.1.8 has them ignored). The first problem
 * decides; *where gets the offset from buf of the octet in error (the
 * pointer of an ICMP Parameter Problem: the length byte, or the type byte
 * when the length is missing), or of the source route's type byte; on OK
 * it means nothing.
 */
mip_status mip_ipv4_options_check(const uint8_t *buf, size_t hdr_len, uint8_t *where);

/* Writes a 20-byte header (hdr_len and checksum in h are ignored) with a
 * computed checksum. NOSPACE if cap < 20; INVALID if flags has bits other
 * than DF|MF, frag_offset is not a multiple of 8, or total_len < 20. */
mip_status mip_ipv4_emit(const struct mip_ipv4_hdr *h, uint8_t *buf, size_t cap);

#endif
