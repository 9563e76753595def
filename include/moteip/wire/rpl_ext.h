/*
 * The IPv6 extension headers RPL puts on data packets: the Source Routing
 * Header (RFC 6554, Routing Type 3) and the RPL Option (RFC 6553 as updated
 * by RFC 9008) in a Hop-by-Hop Options header.
 *
 * Pure codecs: they parse, emit and rewrite bytes with every length checked
 * and decide nothing. What a router does with them (RFC 6554 4.2, RFC 6550
 * 11.2) is src/core's (ipv6.c) and the routing driver's.
 *
 * Source Routing Header, as on the wire:
 *
 *   Next Header | Hdr Ext Len | Routing Type (3) | Segments Left
 *   CmprI (4 bits) | CmprE (4 bits) | Pad (4 bits) | Reserved (20 bits)
 *   Addresses[1..n]: n-1 addresses of 16 - CmprI bytes, then Addresses[n]
 *   of 16 - CmprE bytes, then Pad bytes of zero
 *
 * CmprI / CmprE octets of each address are elided: they are the first
 * octets of the packet's IPv6 Destination Address. Because a router swaps
 * the Destination Address with the next address at every hop, every
 * address of the route and the Destination Address must share those
 * octets: mip_srh_emit() chooses the elision so that they do.
 */
#ifndef MOTEIP_WIRE_RPL_EXT_H
#define MOTEIP_WIRE_RPL_EXT_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"

#define MIP_SRH_TYPE          3u     /* Routing Type of the RPL SRH (RFC 6554 3) */
#define MIP_SRH_FIXED_LEN     8u     /* the four words before Addresses[1] */
#define MIP_SRH_SL_OFFSET     3u     /* Segments Left, from the header's start */
#define MIP_SRH_LEN_MAX       2048u  /* (255 + 1) * 8: Hdr Ext Len is one byte */
/* ICMPv6 Destination Unreachable code 7 (RFC 6554 4.2, 6.2): a next hop
 * named by an SRH is not on link. */
#define MIP_ICMPV6_UNREACH_SRH 7u
/* IPv6-in-IPv6 (RFC 2473): the Next Header value of an inner IPv6 header. */
#define MIP_IPV6_NH_IPV6      41u

/* A parsed SRH. addrs points into the buffer given to mip_srh_parse() and
 * is only valid while that buffer is. */
struct mip_srh {
    uint8_t  next_header;
    uint8_t  segments_left;
    uint8_t  cmpr_i;        /* octets elided from Addresses[1..n-1], 0..15 */
    uint8_t  cmpr_e;        /* octets elided from Addresses[n], 0..15 */
    uint8_t  pad;           /* octets of padding after Addresses[n], 0..15 */
    uint16_t n;             /* number of addresses, >= 1 */
    uint16_t len;           /* bytes of the whole header: (Hdr Ext Len + 1) * 8 */
    const uint8_t *addrs;   /* Addresses[1] */
};

/*
 * The SRH functions exist in builds with non-storing mode
 * (MIP_CONF_RPL_NON_STORING, config.h), the RPL Option's in every build.
 *
 * Parses the SRH at buf[0..avail). TRUNCATED when avail is shorter than 8
 * or than the header's length; MALFORMED when the Routing Type is not 3,
 * or when Hdr Ext Len, Pad, CmprI and CmprE do not describe a whole number
 * n >= 1 of addresses (RFC 6554 3: n = ((HdrExtLen * 8 - Pad - (16 -
 * CmprE)) / (16 - CmprI)) + 1; a remainder is malformed). Segments Left is
 * returned as found: whether it exceeds n is for the processing rules
 * to judge (RFC 6554 4.2 answers that with an ICMP error, not a silent
 * drop). Reserved bits are ignored.
 */
mip_status mip_srh_parse(const uint8_t *buf, size_t avail, struct mip_srh *out);

/* Addresses[i] (1 <= i <= n) in full, its elided octets taken from ref
 * (the packet's current IPv6 Destination Address). INVALID for i out of
 * range. */
mip_status mip_srh_addr(const struct mip_srh *h, uint16_t i, const uint8_t ref[16],
                        uint8_t out[16]);

/*
 * The RFC 6554 4.2 step on the header at hdr (a writable copy of the bytes
 * parsed into *h) and the packet's Destination Address dst: decrements
 * Segments Left, finds i = n - Segments Left, and swaps dst with
 * Addresses[i]: dst becomes Addresses[i] and the old dst is stored,
 * compressed, in its slot. *index gets i.
 * The slot keeps the elided octets' count: the old dst expands back from
 * the new one, whose elided octets it was expanded from. (A sender whose
 * CmprE exceeds CmprI and whose addresses do not share CmprE octets with
 * every Destination on the way gets wrong addresses, never an overrun.)
 * INVALID when Segments Left is 0 or above n (the caller checks first);
 * nothing is written then.
 */
mip_status mip_srh_swap(uint8_t *hdr, const struct mip_srh *h, uint8_t dst[16],
                        uint16_t *index);

/*
 * Writes an SRH for a packet whose IPv6 Destination Address is dst (the
 * first hop) and which then visits addrs[0..n) in order (addrs[n-1] is the
 * final destination), with Segments Left = n. CmprI = CmprE = the octets
 * all of dst and addrs share (at most 15), so every swap on the way stays
 * valid. *out_len gets the header's length (a multiple of 8).
 * INVALID for n == 0 or a header longer than MIP_SRH_LEN_MAX; NOSPACE when
 * cap is short. mip_srh_emit_len() gives the length without writing.
 */
mip_status mip_srh_emit(uint8_t next_header, const uint8_t dst[16],
                        const uint8_t (*addrs)[16], uint16_t n,
                        uint8_t *buf, size_t cap, size_t *out_len);
size_t mip_srh_emit_len(const uint8_t dst[16], const uint8_t (*addrs)[16], uint16_t n);

/* --- RPL Option, the RPI (RFC 6553, RFC 9008 4.1.1) -------------------- */

/* Option Type: RFC 9008 changed it from 0x63 (action 01: drop if
 * unrecognized) to 0x23 (action 00: skip), so that a packet leaving the
 * RPL domain is not dropped by a router that does not know it. Both are
 * parsed; which one a node sends is the DODAG Configuration option's
 * flag's to say (RFC 9008 4.1.3). */
#define MIP_RPI_TYPE      0x23u
#define MIP_RPI_TYPE_6553 0x63u
#define MIP_RPI_DATA_LEN  4u     /* Opt Data Len without sub-TLVs */
#define MIP_RPI_OPT_LEN   6u     /* type, length and the four bytes */
#define MIP_RPI_HBH_LEN   8u     /* a Hop-by-Hop header holding only it */

#define MIP_RPI_O 0x80u          /* Down: expected to go down the DODAG */
#define MIP_RPI_R 0x40u          /* Rank-Error */
#define MIP_RPI_F 0x20u          /* Forwarding-Error */

/* The RPL Option's contents: RFC 9008 calls them the RPL Packet
 * Information (RPI). */
struct mip_rpi {
    bool     down;          /* O */
    bool     rank_error;    /* R */
    bool     fwd_error;     /* F */
    uint8_t  instance;      /* RPLInstanceID */
    uint16_t sender_rank;
};

static inline bool mip_rpi_type_is(uint8_t type)
{
    return type == MIP_RPI_TYPE || type == MIP_RPI_TYPE_6553;
}

/* Parses the option whose Type byte is opt[0], with avail bytes present
 * from there. TRUNCATED when the option runs past avail; MALFORMED when
 * its type is not an RPL Option type or Opt Data Len < 4 (sub-TLVs beyond
 * the four bytes are skipped: none is defined). Unassigned flag bits are
 * ignored (RFC 6553 3). */
mip_status mip_rpi_parse(const uint8_t *opt, size_t avail, struct mip_rpi *out);

/* Finds the first RPL Option in the Hop-by-Hop Options header at
 * hbh[0..avail): *off gets the offset of its Type byte from hbh. NOTFOUND
 * when the header holds none; TRUNCATED when the header runs past avail;
 * MALFORMED when an option runs past the header. */
mip_status mip_rpi_find(const uint8_t *hbh, size_t avail, size_t *off);

/* Writes the option's four data bytes in place (opt[0] is its Type byte,
 * already parsed): the forwarding rules of RFC 6550 11.2 change flags and
 * SenderRank hop by hop without moving anything. */
void mip_rpi_update(uint8_t *opt, const struct mip_rpi *o);

/* Writes a Hop-by-Hop Options header of 8 bytes holding only the RPL
 * Option (type 0x23 or 0x63): next_header, length 0, the option. NOSPACE
 * when cap < 8; INVALID for another type. */
mip_status mip_rpi_hbh_emit(uint8_t next_header, uint8_t type, const struct mip_rpi *o,
                            uint8_t *buf, size_t cap);

#endif
