/*
 * IPv6 header (RFC 8200) and extension-header chain codec.
 *
 * The chain walk is bounded by the bytes present and by the number of
 * headers (MIP_IPV6_EXT_MAX); it never loops. It stops at the first header
 * that is not an extension header this codec knows, or at a Fragment
 * header, and reports what the caller must act on: the upper-layer protocol
 * and where its bytes start, the fragment header's fields, and the first
 * problem RFC 8200 tells a node to answer with an ICMPv6 Parameter Problem.
 */
#ifndef MOTEIP_WIRE_IPV6_H
#define MOTEIP_WIRE_IPV6_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"

#define MIP_IPV6_HDR_LEN    40u
#define MIP_IPV6_FRAG_HDR_LEN 8u
#define MIP_IPV6_EXT_MAX    8u   /* extension headers walked before giving up */

#define MIP_IPV6_NH_HOPOPTS   0u
#define MIP_IPV6_NH_ROUTING   43u
#define MIP_IPV6_NH_FRAGMENT  44u
#define MIP_IPV6_NH_NONE      59u
#define MIP_IPV6_NH_DSTOPTS   60u

/* True for the Next Header values mip_ipv6_walk_ext walks (Hop-by-Hop,
 * Routing, Fragment, Destination Options); any other ends the walk where
 * it starts. */
static inline bool mip_ipv6_is_ext(uint8_t nh)
{
    return nh == MIP_IPV6_NH_HOPOPTS || nh == MIP_IPV6_NH_ROUTING ||
           nh == MIP_IPV6_NH_FRAGMENT || nh == MIP_IPV6_NH_DSTOPTS;
}

struct mip_ipv6_hdr {
    uint8_t  traffic_class;
    uint32_t flow_label;    /* 20 bits */
    uint16_t payload_len;   /* bytes after the fixed header */
    uint8_t  next_header;
    uint8_t  hop_limit;
    uint8_t  src[16];
    uint8_t  dst[16];
};

/* Checks: len >= 40 (TRUNCATED), version 6 (MALFORMED), payload_len == 0
 * (jumbogram: UNSUPPORTED), 40 + payload_len <= len (TRUNCATED). Bytes past
 * 40 + payload_len are link padding for the caller to ignore. */
mip_status mip_ipv6_parse(const uint8_t *buf, size_t len, struct mip_ipv6_hdr *out);

/* Writes the 40-byte fixed header (version 6). INVALID if flow_label has
 * bits above the low 20. */
mip_status mip_ipv6_emit(const struct mip_ipv6_hdr *h, uint8_t *buf, size_t cap);

/* The same header with flow label 0 from its fields, without a struct to
 * fill first (IP output's common case, every datagram sent): buf holds at
 * least MIP_IPV6_HDR_LEN bytes, which the caller has checked. */
void mip_ipv6_emit_fields(uint8_t *buf, uint8_t traffic_class, uint16_t payload_len,
                          uint8_t next_header, uint8_t hop_limit, const uint8_t src[16],
                          const uint8_t dst[16]);

/* What the walk found that RFC 8200 says to answer with ICMPv6 Parameter
 * Problem (or to drop silently). */
enum mip_ipv6_problem {
    MIP_IPV6_PROBLEM_NONE = 0,
    MIP_IPV6_PROBLEM_HDR_FIELD,     /* code 0: erroneous header field (pointer) */
    MIP_IPV6_PROBLEM_NEXT_HEADER,   /* code 1: unrecognized next header (pointer) */
    MIP_IPV6_PROBLEM_OPTION,        /* code 2: unrecognized option, action 10 or 11 */
    MIP_IPV6_PROBLEM_OPTION_SILENT  /* unrecognized option, action 01: drop, no ICMP */
};

struct mip_ipv6_walk {
    /* The protocol after the last extension header walked (e.g. 58, 17, 6,
     * 59 = no next header), and where it starts, from buf[0]. When the walk
     * stopped at a Fragment header, upper_proto is MIP_IPV6_NH_FRAGMENT. */
    uint8_t  upper_proto;
    uint16_t upper_offset;
    /* Offset of the byte that named upper_proto (a Next Header field); the
     * pointer for "unrecognized next header". When the walk stopped before
     * any extension header it cannot know where first_nh was read and
     * reports 6, the fixed header's Next Header (right for a received
     * packet); a caller that took first_nh from elsewhere uses its own. */
    uint16_t upper_nh_offset;

    /* Fragment header, valid when has_frag. */
    bool     has_frag;
    bool     frag_more;       /* M flag */
    uint16_t frag_offset;     /* bytes */
    uint32_t frag_id;
    uint8_t  frag_next;       /* Next Header inside the fragment header */
    uint16_t frag_data_offset;/* where fragment data starts, from buf[0] */

    enum mip_ipv6_problem problem;
    uint16_t problem_pointer; /* offset from buf[0] of the offending byte:
                               * the Next Header byte naming a misplaced
                               * Hop-by-Hop, an option's type byte, or a
                               * Routing header's type byte */
    bool     problem_icmp_unless_multicast; /* option action 11 */

    /* RPL's headers (wire/rpl_ext.h), found for the caller to act on:
     * the Type byte of an RPL Option (0x23 or 0x63) in the Hop-by-Hop
     * header, which the walk skips whatever its action bits say (whether
     * this node understands it is the caller's to decide); and a Source
     * Routing Header (Routing Type 3) with Segments Left > 0, where the
     * walk stops with the HDR_FIELD problem any routing type with work
     * left gets, so a caller that does not process it need not know it.
     * 0: none (neither can start at offset 0). */
    uint16_t rpl_opt_offset;
    uint16_t srh_offset;
};

/*
 * Walks the extension headers of a packet whose bytes are buf[0..len) (len
 * is 40 + payload_len for a packet as received). `first_nh` is the Next
 * Header value naming the header at `offset` (for a received packet: the
 * fixed header's next_header and 40; for a reassembled fragmentable part:
 * the fragment header's next and the offset where it starts).
 * `hbh_allowed` is true only for the header right after the fixed header.
 *
 * Handling per RFC 8200 4: Hop-by-Hop and Destination options are walked
 * TLV by TLV (Pad1, PadN skipped; unknown types by their action bits: 00
 * skip, 01 drop silently, 10 problem, 11 problem unless multicast dst).
 * A Hop-by-Hop header anywhere but first is a NEXT_HEADER problem. A Routing
 * header with segments left 0 is skipped; with segments left > 0 the walk
 * does not process it: a HDR_FIELD problem pointing at the routing type
 * (for type 3, srh_offset says where it is: core may process it). An RPL
 * Option in the Hop-by-Hop header is skipped and its offset reported.
 *
 * The walk stops at the first problem (options are acted on in order, as
 * RFC 8200 4.2 processes them); upper_proto/upper_offset then name the
 * header it stopped in. The Fragment header's reserved fields are ignored
 * and whether a non-final fragment's length is a multiple of 8 (RFC 8200
 * 4.5) is left to reassembly, which knows the payload length.
 *
 * Returns TRUNCATED when offset > len or a header runs past len (options
 * are only read inside a header whose bytes are all present), MALFORMED
 * for an option that overruns its header or for a chain with more than
 * MIP_IPV6_EXT_MAX extension headers, UNSUPPORTED if len exceeds 65535
 * (offsets are uint16_t), OK otherwise (check out->problem). On an error
 * *out is partly filled and meaningless.
 */
mip_status mip_ipv6_walk_ext(const uint8_t *buf, size_t len, uint8_t first_nh,
                             size_t offset, bool hbh_allowed,
                             struct mip_ipv6_walk *out);

/* The offset of a Routing header right after the fixed header or its
 * Hop-by-Hop Options header (where RFC 8200 4.1 puts it) in the datagram
 * buf[0..len), whose fixed header is present; 0 when there is none or its
 * first 8 bytes are not all in len. Its type and length are the caller's
 * to check. */
size_t mip_ipv6_routing_offset(const uint8_t *buf, size_t len);

/* Writes an 8-byte Fragment header. INVALID unless frag_offset_bytes is a
 * multiple of 8 (the field counts 8-byte units). */
mip_status mip_ipv6_frag_emit(uint8_t next_header, uint16_t frag_offset_bytes,
                              bool more, uint32_t id, uint8_t *buf, size_t cap);

#endif
