/*
 * IPv4 and IPv6 fragment reassembly.
 *
 * Each slot reassembles one datagram in place into its own buffer, tracking
 * received 8-byte blocks in a bitmap (the uIP approach), so memory is fixed:
 * MIP_REASS_SLOTS * (MIP_REASS_SIZE + MIP_REASS_SIZE/64 + header) bytes.
 * Several datagrams reassemble at once; each times out after
 * MIP_REASS_TIMEOUT_MS. A fragment that overlaps data already received
 * drops the whole datagram (RFC 5722 for IPv6, and the same for IPv4, where
 * overlaps are only ever an attack or a bug).
 *
 * Slots are shared by both families and every source, so a few bogus
 * fragments (from invented sources, which cost nothing) must not hold them
 * for the whole timeout. A new datagram takes, in order:
 *   - a free slot, unless its source (family + address) already holds
 *     MIP_REASS_PER_SRC slots; at that share it may only take over one of
 *     its own (drop_frag_src_limit when it cannot);
 *   - else the slot whose last fragment is the oldest, if that was at least
 *     MIP_REASS_PROTECT_MS ago (the datagram in it is dropped and counted
 *     in drop_frag_evicted); otherwise the new fragment is dropped
 *     (drop_frag_no_slot).
 * So a datagram whose fragments keep coming, gaps below
 * MIP_REASS_PROTECT_MS, is never evicted, however many fragments a flood
 * sends; a stalled one (a lost fragment, a forged first fragment) gives its
 * slot up after MIP_REASS_PROTECT_MS instead of MIP_REASS_TIMEOUT_MS. What
 * remains: a flood of new datagrams faster than MIP_REASS_SLOTS per
 * MIP_REASS_PROTECT_MS keeps every slot young, and new datagrams then wait
 * until it stops.
 */
#ifndef MOTEIP_REASS_H
#define MOTEIP_REASS_H

#include <stdint.h>
#include "moteip/config.h"
#include "moteip/timer.h"

struct mip_reass_slot {
    uint8_t    used;
    uint8_t    family;
    uint8_t    proto;        /* IPv4 protocol / IPv6 next header of the payload */
    uint8_t    netif;
    uint8_t    ttl;          /* of the first fragment (offset 0) */
    uint8_t    have_first;   /* offset-0 fragment seen: its header is in hdr[] */
    uint8_t    group;        /* a fragment came to a group address (IP or link):
                                no ICMP error may answer it */
    uint8_t    hdr_len;      /* bytes in hdr[] */
    uint8_t    src[16];
    uint8_t    dst[16];
    uint32_t   id;
    uint16_t   total;        /* payload bytes once the last fragment came, else 0 */
    mip_time_t deadline;     /* first fragment + MIP_REASS_TIMEOUT_MS */
    mip_time_t last;         /* when the latest fragment came */
    /* The first fragment's IP header (IPv4 with options, or the IPv6 fixed
     * header), quoted in a "reassembly time exceeded" error. */
    uint8_t    hdr[60];
    uint8_t    bitmap[MIP_REASS_SIZE / 64];
    uint8_t    data[MIP_REASS_SIZE];
};

#if MIP_CONF_LOWPAN
/* Largest datagram 6LoWPAN reassembles: the IPHC netif's MTU (netif.h). */
#define MIP_LOWPAN_DGRAM_MAX 1280u

/* One 6LoWPAN datagram being reassembled from FRAG1/FRAGN fragments
 * (RFC 4944 s.5.3), uncompressed in place: the first fragment's IPHC header
 * is expanded into data[0..40/48) as it arrives, so data[] holds the IPv6
 * datagram the fragment offsets describe. Blocks of 8 bytes received are
 * marked in bitmap.
 *
 * A datagram is known by (netif, link source, link destination, tag); a
 * fragment announcing another size under the same key ends the old
 * datagram. The slots follow the rules of the IP slots above, with their
 * own MIP_LOWPAN_REASS_PER_SRC share per link source and
 * MIP_LOWPAN_REASS_PROTECT_MS, plus one: a neighbour's new datagram (a
 * newer tag) that finds no slot its share allows supersedes that
 * neighbour's own incomplete one at once (drop_lowpan_frag_superseded),
 * because fragments of one datagram come back to back over an in-order
 * MAC, so the older one has lost a fragment. */
struct mip_lowpan_reass_slot {
    uint8_t    used;
    uint8_t    netif;
    uint8_t    src_mode;     /* link source: enum mip_802154_addr_mode */
    uint8_t    dst_mode;     /* link destination: broadcast, our short or our extended */
    uint8_t    src[8];       /* short address big-endian in src[0..2), or extended */
    uint16_t   dst_short;    /* the destination when short (0xFFFF broadcast), else 0 */
    uint16_t   tag;          /* datagram_tag */
    uint16_t   size;         /* datagram_size: uncompressed bytes */
    uint16_t   received;     /* bytes in place; complete when == size */
    mip_time_t deadline;     /* first fragment + MIP_LOWPAN_REASS_TIMEOUT_MS */
    mip_time_t last;         /* when the latest new bytes came */
    uint8_t    bitmap[MIP_LOWPAN_DGRAM_MAX / 64];
    uint8_t    data[MIP_LOWPAN_DGRAM_MAX];
};
#endif

#endif
