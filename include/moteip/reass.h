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
 * Slots are shared by both families and every source, so bogus fragments
 * (from invented sources, which cost nothing) must not hold them. A
 * datagram is *progressing* while it has had two fragments or more and the
 * latest came less than MIP_REASS_PROTECT_MS ago; *stalled* once no
 * fragment came for MIP_REASS_PROTECT_MS; *unproven* while it has had a
 * single fragment. A new datagram takes, in order:
 *   - a free slot, unless its source (family + address) already holds
 *     MIP_REASS_PER_SRC slots; at that share it may only take over one of
 *     its own (drop_frag_src_limit when it cannot);
 *   - else the slot of the datagram stalled longest;
 *   - else the slot of the newest unproven datagram (both drop the datagram
 *     in it, counted in drop_frag_evicted);
 *   - else nothing: every candidate is progressing, and the new fragment is
 *     dropped (drop_frag_no_slot).
 * A forged first fragment never progresses, so it holds a slot only until
 * a newer datagram comes (if it is the newest) or MIP_REASS_PROTECT_MS
 * (if not): a flood of them from invented sources, or from a real
 * sender's own address, churns one slot and cannot keep a real datagram
 * out; the real one, taking the newest slot, needs its second fragment
 * before the flood's next datagram (back to back on a LAN: 100 % of the
 * datagrams of a fragmented ping complete under 10 forged first fragments
 * a second, docs/BENCHMARKS.md). A real datagram older than the newest is
 * protected for MIP_REASS_PROTECT_MS after each fragment however many
 * come. What remains: two real datagrams that begin in the same instant
 * while a flood holds the other slots (a host pinging over IPv4 and IPv6
 * at once) evict each other, the second taking the first's slot as the
 * newest unproven one: in the interop test started together, 11 of 20 of
 * one family's pings came back (tests/interop/test_reass_flood.py starts
 * them 0.25 s apart); with a single slot (tiny profile) a datagram whose
 * fragments come slower than the flood's is always the newest and loses
 * its slot; and a forger that sends two fragments per datagram makes them
 * progress, holding a slot MIP_REASS_PROTECT_MS per fragment (up to
 * MIP_REASS_TIMEOUT_MS); only link or network security tells those apart.
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
    uint8_t    frags;        /* fragments placed (saturating): 1 = unproven */
    uint8_t    age;          /* datagrams that took a slot after this one
                                (saturating): 0 = the newest */
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
#if MIP_BUFS_OWN
    uint8_t    data[MIP_REASS_SIZE];
#else
    uint8_t   *data;         /* MIP_REASS_SIZE bytes: mip_stack_config.reass_mem */
#endif
};

#if MIP_CONF_LOWPAN
/* Largest datagram 6LoWPAN reassembles: the IPHC netif's MTU (netif.h). */
#define MIP_LOWPAN_DGRAM_MAX 1280u

/* A 6LoWPAN datagram arriving in FRAG1/FRAGN fragments (RFC 4944 s.5.3),
 * as both tables that hold one see it: the reassembly slots below and the
 * virtual reassembly buffer (VRB) of fragment forwarding. It is known by
 * (netif, link source, link destination, tag); a fragment announcing
 * another size under the same key ends the old datagram. Blocks of 8
 * uncompressed bytes received are marked in the record's bitmap.
 *
 * Both tables follow the rules of the IP slots above, each with its own
 * share per link source and protection time, plus two:
 *   - a neighbour's new datagram (a newer tag) that finds no slot its share
 *     allows supersedes that neighbour's own oldest incomplete one at once
 *     (drop_lowpan_frag_superseded / drop_lowpan_vrb_superseded): the
 *     fragments of a neighbour's datagrams come in order over an in-order
 *     MAC, so beyond its share an older one has lost a fragment;
 *   - a known neighbour (a link source that recently completed a datagram
 *     here, struct mip_lowpan_known) may take the slot of an unknown
 *     source's datagram however recently that one received. A flood of
 *     fragments from invented link sources, which never complete a
 *     datagram, so holds only what the real neighbours leave free. */
/* A link neighbour: the netif a frame came on and its link source. Bytes
 * only, so two compare with memcmp. */
struct mip_lowpan_sender {
    uint8_t    netif;
    uint8_t    mode;         /* enum mip_802154_addr_mode */
    uint8_t    addr[8];      /* short address big-endian in addr[0..2), or extended */
};

struct mip_lowpan_dgram {
    uint8_t    used;
    uint8_t    abandoned;    /* VRB: the next hop will not get the rest (a full
                                queue, a refused frame): later fragments are
                                dropped (drop_lowpan_vrb_abandoned), and the
                                entry goes to the first new datagram that needs it */
    struct mip_lowpan_sender from;
    uint8_t    dst_mode;     /* link destination: broadcast, our short or our extended */
    uint16_t   dst_short;    /* the destination when short (0xFFFF broadcast), else 0 */
    uint16_t   tag;          /* datagram_tag */
    uint16_t   size;         /* datagram_size: uncompressed bytes */
    uint16_t   received;     /* bytes in place (or forwarded); complete when == size */
    mip_time_t deadline;     /* first fragment + MIP_LOWPAN_REASS_TIMEOUT_MS */
    mip_time_t last;         /* when the latest new bytes came */
    uint8_t    bitmap[MIP_LOWPAN_DGRAM_MAX / 64];
};

/* One datagram being reassembled, uncompressed in place: the first
 * fragment's IPHC header is expanded into data[0..40/48) as it arrives, so
 * data[] holds the IPv6 datagram the fragment offsets describe. */
struct mip_lowpan_reass_slot {
    struct mip_lowpan_dgram d;
    uint8_t    data[MIP_LOWPAN_DGRAM_MAX];
};

#if MIP_LOWPAN_VRB_SLOTS > 0
/* RFC 8930: a datagram this node forwards fragment by fragment, without
 * its bytes. The first fragment made it (its header decompressed, routed,
 * recompressed for the next hop); every later fragment of the datagram is
 * sent on at once under out_tag. */
struct mip_lowpan_vrb {
    struct mip_lowpan_dgram d;
    uint8_t    out_netif;
    uint8_t    paced;        /* the next hop is not the destination: frag_gap_us */
    uint8_t    next_mode;    /* the next hop's link address */
    uint16_t   out_tag;
    uint16_t   next_short;
    uint8_t    next_ext[8];
};
#endif

/* A link source that completed a datagram here (reassembled, or forwarded
 * to its last byte): the slot rules prefer it to strangers. Most recent
 * first. */
struct mip_lowpan_known {
    uint8_t    used;
    struct mip_lowpan_sender who;
};
#endif

#endif
