/*
 * ICMPv6 (RFC 4443) and Neighbor Discovery (RFC 4861) message codecs.
 *
 * The common 8-byte header (type, code, checksum, 4 bytes of "rest") is
 * shared by echo and the error messages, and with ICMPv4 (icmp.h); ND
 * messages have their own fixed parts followed by TLV options, read through
 * a bounded iterator.
 */
#ifndef MOTEIP_WIRE_ICMPV6_H
#define MOTEIP_WIRE_ICMPV6_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"
#include "moteip/wire/icmp.h"

#define MIP_ICMPV6_HDR_LEN MIP_ICMP_HDR_LEN

#define MIP_ICMPV6_DEST_UNREACH   1u
#define MIP_ICMPV6_PACKET_TOO_BIG 2u
#define MIP_ICMPV6_TIME_EXCEEDED  3u
#define MIP_ICMPV6_PARAM_PROBLEM  4u
#define MIP_ICMPV6_ECHO_REQUEST   128u
#define MIP_ICMPV6_ECHO_REPLY     129u
#define MIP_ICMPV6_RS             133u
#define MIP_ICMPV6_RA             134u
#define MIP_ICMPV6_NS             135u
#define MIP_ICMPV6_NA             136u
#define MIP_ICMPV6_REDIRECT       137u
#define MIP_ICMPV6_RPL            155u   /* RPL control (RFC 6550 6) */

#define MIP_ICMPV6_UNREACH_NOROUTE 0u
#define MIP_ICMPV6_UNREACH_ADDR    3u
#define MIP_ICMPV6_UNREACH_PORT    4u
#define MIP_ICMPV6_TE_HOPLIMIT     0u
#define MIP_ICMPV6_TE_REASS        1u

/* --- Neighbor Discovery -------------------------------------------------- */

#define MIP_ND_NS_LEN 24u   /* header + target, before options */
#define MIP_ND_NA_LEN 24u
#define MIP_ND_RS_LEN 8u
#define MIP_ND_RA_LEN 16u
#define MIP_ND_REDIRECT_LEN 40u

#define MIP_ND_NA_FLAG_ROUTER    0x80u
#define MIP_ND_NA_FLAG_SOLICITED 0x40u
#define MIP_ND_NA_FLAG_OVERRIDE  0x20u

#define MIP_ND_OPT_SLLA     1u
#define MIP_ND_OPT_TLLA     2u
#define MIP_ND_OPT_PREFIX   3u
#define MIP_ND_OPT_REDIRECT 4u
#define MIP_ND_OPT_MTU      5u

/* NS, NA and Redirect share a 16-byte target; RA and RS do not. */
struct mip_nd_msg {
    uint8_t  type;            /* NS, NA, RS, RA or REDIRECT */
    uint8_t  code;
    uint8_t  na_flags;        /* NA: R/S/O in the top bits; reserved bits cleared */
    uint8_t  target[16];      /* NS, NA, REDIRECT */
    uint8_t  redirect_dst[16];/* REDIRECT */
    uint8_t  ra_hop_limit;    /* RA */
    uint8_t  ra_flags;        /* RA: the whole flags byte (M/O, and RFC 4191 Prf) */
    uint16_t ra_router_lifetime; /* RA, seconds */
    uint32_t ra_reachable_ms; /* RA */
    uint32_t ra_retrans_ms;   /* RA */
    const uint8_t *opts;      /* options, inside the parsed buffer */
    size_t   opts_len;
};

/* Decodes an ND message (ICMPv6 header included) of `len` bytes. TRUNCATED
 * if empty or shorter than its type's fixed part; UNSUPPORTED for a non-ND
 * type; MALFORMED for code != 0, for a multicast NS/NA target or Redirect
 * destination (RFC 4861 7.1.1, 7.1.2, 8.1), or for options that do not walk
 * cleanly: a zero length, or an option running past len (RFC 4861 says such
 * messages are discarded, so parse walks them all once). Checks that need
 * the IP header (hop limit 255, source address) are the caller's. Option
 * bodies are not validated: their consumer checks the length it needs. */
mip_status mip_nd_parse(const uint8_t *buf, size_t len, struct mip_nd_msg *out);

struct mip_nd_opt {
    uint8_t        type;
    const uint8_t *data;   /* the option body after type and length */
    size_t         len;    /* body length in bytes (8 * length - 2) */
};

struct mip_nd_opt_iter {
    const uint8_t *p;
    size_t         left;
};

void mip_nd_opt_iter_init(struct mip_nd_opt_iter *it, const uint8_t *opts, size_t len);
/* OK and *out filled; END when no option is left; TRUNCATED when an
 * option's length runs past the end; MALFORMED for a zero length field.
 * After an error the iterator stays at the error. */
mip_status mip_nd_opt_next(struct mip_nd_opt_iter *it, struct mip_nd_opt *out);

/* Emits a Neighbor Solicitation / Advertisement (ICMPv6 header included,
 * checksum 0: the caller sums it with the pseudo header) with an optional
 * source/target link-layer address option of `lladdr_len` bytes (0 = none),
 * zero-padded to a multiple of 8: 8 bytes for a 6-byte Ethernet address,
 * 16 for an 8-byte IEEE 802.15.4 EUI-64 (RFC 4944 8). Returns the length
 * written in *written (if not NULL; 0 on error). INVALID for lladdr_len >
 * 14, a NULL address with lladdr_len > 0, or na_flags outside R/S/O;
 * NOSPACE if cap is short. */
mip_status mip_nd_emit_ns(const uint8_t target[16], const uint8_t *slla, size_t lladdr_len,
                          uint8_t *buf, size_t cap, size_t *written);
mip_status mip_nd_emit_na(const uint8_t target[16], uint8_t na_flags,
                          const uint8_t *tlla, size_t lladdr_len,
                          uint8_t *buf, size_t cap, size_t *written);

#endif
