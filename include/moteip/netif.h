/*
 * Network interfaces.
 *
 * A netif joins an adaptation (how IP datagrams become link frames: Ethernet
 * with ARP/ND, raw IP for TUN, SLIP over a serial line, or an 802.15.4 radio) to a driver (how frames
 * leave the node). The adaptation is a const table of functions chosen when
 * the netif is added; the driver is a caller-supplied table plus an opaque
 * context, so a real radio, a TAP device and the simulated medium are
 * interchangeable.
 *
 * Frames arrive through mip_stack_input() (stack.h).
 */
#ifndef MOTEIP_NETIF_H
#define MOTEIP_NETIF_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/config.h"
#include "moteip/status.h"
#include "moteip/addr.h"
#include "moteip/timer.h"
#include "moteip/wire/slip.h"
#if MIP_CONF_LOWPAN
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/lowpan_tcp.h"
#endif

struct mip_stack;
struct mip_netif;
struct mip_pbuf;

/* What the stack needs from a driver. */
struct mip_netif_driver {
    /* Sends one link frame of `len` bytes. The memory is the stack's and
     * valid only during the call: copy or transmit before returning.
     * Return MIP_OK, or an error (counted as drop_tx_driver). */
    mip_status (*transmit)(void *ctx, const uint8_t *frame, size_t len);
    /* Optional (NULL: unknown, every frame is offered): how many frames
     * transmit() would accept now. The radio netif sends a fragmented
     * datagram only when all its frames fit (else none of them,
     * drop_lowpan_queue_full and NOBUFS to the caller, which for TCP means
     * "try again"), so a full queue never sends half a datagram that the
     * next hop would hold in a reassembly slot in vain. */
    size_t (*room)(void *ctx);
    /* Optional (NULL: transmit() without a gap): transmit() of a frame whose
     * channel access waits gap_us after the previous frame's outcome; the
     * radio netif paces fragments with it (frag_gap_us below). */
    mip_status (*transmit_gap)(void *ctx, const uint8_t *frame, size_t len, uint16_t gap_us);
};

/* An adaptation layer's functions (internal to src/core). */
struct mip_netif_ops {
    /* Handles one received link frame. */
    void (*input)(struct mip_stack *s, struct mip_netif *nif,
                  const uint8_t *frame, size_t len);
    /* Sends the IP datagram in p to `nexthop` (an on-link address, or the
     * destination itself for multicast). Takes ownership of p. */
    mip_status (*output)(struct mip_stack *s, struct mip_netif *nif,
                         struct mip_pbuf *p, const struct mip_addr *nexthop);
    /* Bytes of link header that output prepends. */
    uint8_t link_hdr_len;
};

struct mip_netif_addr4 {
    uint8_t addr[4];
    uint8_t prefix_len;
    uint8_t used;
};

/* `used` of an IPv6 address: 0 free; bit 0 set in use; MIP_NETIF_ADDR_DEPRECATED
 * added when its preferred lifetime has run out (slaac.h): it still
 * receives, and is a source only when no preferred address fits. */
#define MIP_NETIF_ADDR_DEPRECATED 0x02u

struct mip_netif_addr6 {
    uint8_t addr[16];
    uint8_t prefix_len;
    uint8_t used;
};

#if MIP_CONF_LOWPAN
#if MIP_CONF_LOWPAN_HC
/* One TCP header compression context of a radio netif (docs/LOWPAN.md
 * "TCP header compression"): one direction of one connection on the link
 * to `peer`, under context id `cid`. */
struct mip_lowpan_tcphc_slot {
    struct mip_lowpan_tcp_ctx ctx;
    struct mip_802154_addr peer;
    uint32_t lru;          /* the netif's use counter when last used (no clock) */
    uint16_t addr_hash;    /* of the IPv6 source and destination (decompressor:
                              of its last FULL's, checked on every compressed one) */
    uint8_t  cid;
    uint8_t  state;        /* 0 free, 1 in use, 2 in use and FULL next (compressor) */
};
struct mip_lowpan_tcphc {
    struct mip_lowpan_tcphc_slot tx[MIP_LOWPAN_TCPHC_SLOTS];   /* what we compress */
    struct mip_lowpan_tcphc_slot rx[MIP_LOWPAN_TCPHC_SLOTS];   /* what we decompress */
    /* neighbours owed a refresh request (R) on our next TCP NHC frame */
    struct mip_802154_addr owe_r[MIP_LOWPAN_TCPHC_SLOTS];
    uint8_t  owe_r_used;   /* bit i: owe_r[i] holds one */
    uint32_t uses;         /* the use counter */
};
#endif

/* A radio netif's copy of its mip_lowpan_config (below) and its fragment
 * tag counter; unused (zero) on other netifs. */
struct mip_netif_lowpan {
    uint8_t  mode;               /* enum mip_lowpan_mode */
    uint8_t  frame_max;          /* MPDU incl. FCS */
    uint8_t  raw_link_hdr_len;
    bool     ack_request;
    bool     has_context0;
    uint16_t pan_id;
    uint16_t short_addr;
    uint16_t next_tag;           /* datagram_tag of the next fragmented datagram */
    uint8_t  frag_mode;          /* enum mip_lowpan_frag_mode */
    uint16_t frag_gap_us;
    uint8_t  ext_addr[8];
    uint8_t  ctx0_prefix[8];
    bool     udp_cksum_elide;    /* mip_lowpan_config's, below */
    bool     has_udp_ports;
    uint16_t udp_ports[2];
#if MIP_CONF_LOWPAN_HC
    bool     tcp_hc;
    bool   (*tcp_hc_peer)(void *ctx, const struct mip_802154_addr *peer);
    void    *tcp_hc_peer_ctx;
    struct mip_lowpan_tcphc tcphc;
#endif
#if MIP_CONF_ND6LO
    /* IPHC contexts by CID (RFC 6282 s.3.1.2): bit i of ctx_valid says
     * context i exists, of ctx_comp that it may compress (6CO C flag; else
     * decompression only), of ctx_static that it is configured (context 0
     * from has_context0) and not learnt. */
    uint16_t ctx_valid;
    uint16_t ctx_comp;
    uint16_t ctx_static;
    bool     nd_router;          /* 6LoWPAN-ND router: listens to ff02::2 */
    uint8_t  ctx_prefix[MIP_LOWPAN_CTX_IDS][8];
#endif
};
#endif

struct mip_netif {
    const struct mip_netif_ops *ops;          /* NULL: slot unused */
    const struct mip_netif_driver *drv;
    void    *drv_ctx;
    uint16_t mtu;                             /* largest IP datagram, bytes */
    uint8_t  index;
    uint8_t  hwaddr_len;                      /* 6 for Ethernet, 0 raw IP */
    uint8_t  hwaddr[8];
#if MIP_CONF_IPV4
    struct mip_netif_addr4 addr4[MIP_NETIF_ADDR4_MAX];
#endif
#if MIP_CONF_IPV6
    /* addr6[0] is the link-local address (fe80::/64 + interface id). */
    struct mip_netif_addr6 addr6[MIP_NETIF_ADDR6_MAX + 1];
#endif
#if MIP_CONF_LOWPAN
    struct mip_netif_lowpan lowpan;
#endif
};

#if MIP_CONF_ETHERNET
/* Adds an Ethernet netif (MTU 1500) with MAC address `mac`; its IPv6
 * link-local address is derived from the MAC (modified EUI-64). *index gets
 * the netif's number. NOBUFS when all MIP_NETIF_MAX slots are used. */
mip_status mip_netif_add_ethernet(struct mip_stack *s, const uint8_t mac[6],
                                  const struct mip_netif_driver *drv, void *drv_ctx,
                                  uint8_t *index);
#endif

/* Adds a raw-IP netif (TUN, SLIP, a radio carrying bare IP): frames are IP
 * datagrams. `iid` (8 bytes, may be NULL for none) makes its IPv6
 * link-local address. */
mip_status mip_netif_add_rawip(struct mip_stack *s, uint16_t mtu, const uint8_t *iid,
                               const struct mip_netif_driver *drv, void *drv_ctx,
                               uint8_t *index);

/* A SLIP netif (RFC 1055): raw IP (the version nibble says IPv4 or IPv6)
 * over a serial byte stream, a UART on a board or a pty on a host.
 *
 * It is a raw-IP netif whose driver is the SLIP encoder: what the stack
 * sends is encoded (wire/slip.h) and goes to cfg->write in runs of bytes,
 * END first and last; a write error drops the datagram (drop_tx_driver).
 * What arrives is fed to mip_slip_input() in chunks of any size, as the
 * port reads them (from the ring a receive interrupt fills,
 * moteip/byte_ring.h, or from read()); each complete frame goes to
 * mip_stack_input() from the decoder's buffer. A frame longer than the MTU
 * is dropped (drop_slip_too_big), one with an escape other than ESC
 * ESC_END / ESC ESC_ESC too (drop_slip_bad_escape); the decoder skips to
 * the next END and carries on. Empty frames are separators, not drops.
 *
 * Memory: *sl and the receive buffer (cfg->mtu bytes) are the caller's and
 * must outlive the stack; nothing is copied into struct mip_stack but the
 * netif. Neither mip_slip_input() nor anything of the stack may run in an
 * interrupt handler: the port's interrupt only moves bytes into a ring. */
struct mip_slip {
    struct mip_slip_dec dec;
    mip_slip_write_fn write;
    void    *write_ctx;
    uint8_t  netif;             /* index of the netif (mip_netif_add_slip) */
};

struct mip_slip_config {
    uint8_t *rx_buf;            /* mtu bytes: the frame being received */
    uint16_t mtu;               /* 68 .. MIP_PBUF_SIZE - MIP_LINK_HDR_MAX */
    const uint8_t *iid;         /* 8 bytes for the IPv6 link-local address, or NULL */
    mip_slip_write_fn write;    /* the serial line (wire/slip.h) */
    void    *write_ctx;
};

/* Adds a SLIP netif; *index gets its number (index may be NULL). INVALID
 * for a missing buffer or write function, or an MTU out of range; NOBUFS
 * when all MIP_NETIF_MAX slots are used. */
mip_status mip_netif_add_slip(struct mip_stack *s, struct mip_slip *sl,
                              const struct mip_slip_config *cfg, uint8_t *index);

/* Feeds bytes[0..n) received on the serial line to the netif: every frame
 * they complete is processed now (replies may be written before this
 * returns). The bytes are only read during the call. */
void mip_slip_input(struct mip_stack *s, struct mip_slip *sl, const uint8_t *bytes,
                    size_t n, mip_time_t now);

#if MIP_CONF_LOWPAN
/* A radio netif over IEEE 802.15.4 frames (wire/ieee802154.h). Frames the
 * driver gets are MAC frames WITHOUT FCS (the MAC, mac.h, queues them; the
 * radio adds the FCS); frames given to mip_stack_input() are the same: MHR +
 * payload, no FCS.
 *
 *   MIP_LOWPAN_IPHC    6LoWPAN: RFC 6282 IPHC header compression
 *                      (stateless, and context 0 when configured), NHC for
 *                      UDP, RFC 4944 FRAG1/FRAGN fragmentation and
 *                      reassembly. IPv6 only; MTU 1280.
 *   MIP_LOWPAN_RAW_IP  uncompressed IPv4 or IPv6 behind a fixed-size link
 *                      header, so simulated frames have the bit counts of
 *                      published experiments (TSS: 12-byte header, cctrl:
 *                      23). Layout: MHR (intra-PAN, short addresses, 9 bytes),
 *                      zero padding, one dispatch byte (0x41: IPv6, RFC 4944;
 *                      0x3F: IPv4, from the "not a LoWPAN frame" range), the
 *                      datagram. raw_link_hdr_len counts all of it plus the
 *                      2-byte FCS, so it is >= 12. MTU = frame_max -
 *                      raw_link_hdr_len; no link fragmentation (IP
 *                      fragments instead).
 *
 * Link addresses of next hops: IPv6 multicast and IPv4 broadcast go to
 * 0xFFFF; an IPv6 interface identifier 0000:00ff:fe00:XXXX maps to short
 * address XXXX (RFC 4944 s.6), any other IID to the extended address it
 * was derived from (U/L bit flipped); an IPv4 next hop maps to the short
 * address made of its last two bytes. The link-local address is made from
 * the short address (fe80::ff:fe00:XXXX); with short_addr 0xFFFE or 0xFFFF
 * ("no short address", IPHC mode only) frames carry the extended source
 * address and the link-local address is made from it (modified EUI-64).
 *
 * Next hops that map to no link address are dropped and counted
 * (drop_lowpan_no_l2addr): IIDs naming no single station (all zeros, the
 * reserved subnet anycast IIDs, short 0xFFFE/0xFFFF: wire/sixlowpan.h), and
 * in RAW_IP mode any next hop without a short address (the fixed header has
 * room for short addresses only).
 *
 * Frames sent: data frames, 802.15.4-2003 version, intra-PAN (PAN ID
 * compression, destination PAN = pan_id), sequence number 0 (the MAC numbers
 * them), ack-request on unicast when configured; at most frame_max - 2 bytes.
 * A fragmented datagram goes to the driver as consecutive transmit() calls;
 * the first refusal stops the rest. Frames received are accepted when they
 * are data frames for pan_id (or the broadcast PAN) and our short address,
 * our extended address or 0xFFFF, and at most frame_max - 2 bytes long.
 *
 * Reassembly (IPHC mode): MIP_LOWPAN_REASS_SLOTS datagrams of up to 1280
 * bytes at once, keyed by (netif, link source, link destination,
 * datagram_tag); each slot times out MIP_LOWPAN_REASS_TIMEOUT_MS after its
 * first fragment; the slot rules are in reass.h. A fragment already
 * received is dropped alone (drop_lowpan_frag_duplicate); a partly
 * overlapping one, or one announcing another datagram_size, ends the whole
 * datagram (drop_lowpan_frag_inconsistent; after a size change the new
 * fragment starts a fresh datagram, RFC 4944 s.5.3).
 *
 * Forwarding fragmented datagrams, by frag_mode:
 *   MIP_LOWPAN_FRAG_REASSEMBLE  every hop reassembles the datagram and
 *                               fragments it again (RFC 4944 alone).
 *   MIP_LOWPAN_FRAG_FORWARD     RFC 8930 minimal fragment forwarding: the
 *                               first fragment is decompressed, routed and
 *                               recompressed for the next hop (hop limit - 1,
 *                               a tag of ours), and each later fragment is
 *                               sent on as it comes, under that tag, through a
 *                               virtual reassembly buffer entry
 *                               (MIP_LOWPAN_VRB_SLOTS, reass.h) that holds
 *                               no bytes. When the recompressed header makes
 *                               the first fragment too long for the frame,
 *                               its tail goes on in a FRAGN of its own.
 *                               Anything but the plain case is reassembled
 *                               as before, so the full IP path judges it:
 *                               a destination of ours, multicast, link-local
 *                               or martian addresses, hop limit 1, no route,
 *                               a next hop not on a 6LoWPAN IPHC netif, a
 *                               forward hook (relays see whole datagrams).
 *                               A FRAGN that finds no state (no entry, no
 *                               slot) lost its FRAG1, which RFC 8930 has
 *                               sent first: it is dropped
 *                               (drop_lowpan_frag_no_first), also where
 *                               this node is the destination.
 *                               The mode of the netif a fragment arrives on
 *                               decides. Needs MIP_LOWPAN_VRB_SLOTS > 0.
 *                               RFC 8930 s.5 asks for a gap between the
 *                               fragments of a datagram, so that one moves
 *                               beyond the next hop and its interference
 *                               before the next comes (the hidden terminal
 *                               of a pipeline): with frag_gap_us, each
 *                               fragment this netif sends or forwards waits
 *                               that long after the driver's previous frame
 *                               (transmit_gap), the next datagram's first
 *                               fragment too (it meets the previous one's
 *                               last just the same), unless the next hop
 *                               is the datagram's destination (there is no
 *                               hop beyond it to move on to).
 *
 * Stack use: input of an unfragmented IPHC frame rebuilds the datagram in a
 * local buffer of MIP_RADIO_FRAME_MAX + 48 bytes (+ 61 with
 * MIP_CONF_LOWPAN_HC); output builds frames in
 * one of MIP_RADIO_FRAME_MAX bytes. */
enum mip_lowpan_mode {
    MIP_LOWPAN_IPHC   = 0,
    MIP_LOWPAN_RAW_IP = 1
};

enum mip_lowpan_frag_mode {
    MIP_LOWPAN_FRAG_REASSEMBLE = 0,
    MIP_LOWPAN_FRAG_FORWARD    = 1
};

struct mip_lowpan_config {
    uint8_t  mode;               /* enum mip_lowpan_mode */
    uint16_t pan_id;
    uint16_t short_addr;         /* also the source address of frames */
    uint8_t  ext_addr[8];        /* most significant byte first, as in
                                    struct mip_802154_addr */
    uint8_t  frame_max;          /* largest MPDU incl. FCS: 127 for 802.15.4 */
    uint8_t  raw_link_hdr_len;   /* RAW_IP only: 12..64 bytes */
    bool     ack_request;        /* set the ack-request bit on unicast frames */
    bool     has_context0;       /* IPHC context 0 = ctx0_prefix/64 */
    uint8_t  ctx0_prefix[8];
    uint8_t  frag_mode;          /* IPHC: enum mip_lowpan_frag_mode (0: reassemble) */
    uint16_t frag_gap_us;        /* FORWARD: the gap before each fragment sent or
                                    forwarded (driver transmit_gap), 0: none */
    /* IPHC: the upper layer's authorisation to elide UDP checksums (RFC
     * 6282 s.4.3.2; docs/LOWPAN.md "Eliding the UDP checksum"). Set it
     * only when every frame on this link is authenticated by a link-layer
     * MIC (mac.h cfg.sec.level 1-3 or 5-7 on every node): the MIC then
     * covers everything the checksum would. Frames that elide a checksum
     * are refused (drop_lowpan_unsupported) without it. A datagram sent
     * in fragments keeps its checksum. */
    bool     udp_cksum_elide;
    /* IPHC: a shared UDP port context (seed 000 s.9.3, moteip's own NHC
     * form, wire/sixlowpan.h): datagrams from udp_ports[0] to udp_ports[1]
     * (or back) carry no port byte. Every node of the link needs the same
     * pair; a node without it drops them (drop_lowpan_unsupported). */
    bool     has_udp_ports;
    uint16_t udp_ports[2];
    /* IPHC: moteip's TCP header compression (docs/LOWPAN.md "TCP header
     * compression", wire/lowpan_tcp.h): TCP segments sent whole in one frame
     * to a neighbour that tcp_hc_peer accepts (NULL: every neighbour) carry
     * a compressed TCP header; other neighbours get standard IPHC. The
     * receiving netif decompresses with per-link contexts, checks the TCP
     * checksum at every hop (a mismatch drops the segment, counted
     * drop_lowpan_tcphc_mismatch, and asks the neighbour for a FULL header)
     * and refuses TCP NHC frames without tcp_hc (drop_lowpan_unsupported).
     * The callback is called from the output path with the stack's state
     * as it is; it must not call into the stack. */
    bool     tcp_hc;
    bool   (*tcp_hc_peer)(void *ctx, const struct mip_802154_addr *peer);
    void    *tcp_hc_peer_ctx;
};

/* Adds a radio netif; *index gets its number (index may be NULL). INVALID
 * for a bad mode, frame_max < 32 or above MIP_RADIO_FRAME_MAX + 2, a raw
 * header length out of range or leaving an MTU (frame_max -
 * raw_link_hdr_len) below 68, RAW_IP without a short address (0xFFFE,
 * 0xFFFF), a driver without transmit, or an unknown frag_mode;
 * UNSUPPORTED for MIP_LOWPAN_FRAG_FORWARD in a build without it
 * (MIP_LOWPAN_VRB_SLOTS 0), and for udp_cksum_elide, has_udp_ports or
 * tcp_hc in a build without MIP_CONF_LOWPAN_HC. NOBUFS when all MIP_NETIF_MAX
 * slots are used. */
mip_status mip_netif_add_lowpan(struct mip_stack *s, const struct mip_lowpan_config *cfg,
                                const struct mip_netif_driver *drv, void *drv_ctx,
                                uint8_t *index);

#if MIP_CONF_FORWARD
/* What a radio frame carries, for relays watching their neighbours forward
 * (implicit acknowledgements, overheard TCP ACKs). Forwarding builds only. */
struct mip_lowpan_peek {
    struct mip_802154_addr link_src;   /* the frame's MAC source and destination */
    struct mip_802154_addr link_dst;
    size_t ip_len;       /* bytes of the datagram's start written to the buffer:
                            the IP header and what the frame carries after it */
    size_t dgram_len;    /* the whole datagram's length (FRAG1: its size field) */
};

/*
 * Decodes the start of the IP datagram in a frame (an MPDU without FCS, as a
 * MAC hands it up) the way the radio netif `netif` would: an unfragmented
 * IPHC or uncompressed IPv6 frame, a FRAG1, or a RAW_IP frame (IPv4/IPv6).
 * The datagram's first bytes go to buf (IPHC decompressed), at most cap.
 * Reads nothing but the frame and the netif's configuration: no state, no
 * counters; but a TCP NHC (tcp_hc) in a frame addressed to this netif is
 * expanded with the netif's receive contexts as they stand (read only,
 * checksum unchecked: a capture's view of what the netif will rebuild); in
 * any other frame it is UNSUPPORTED (the contexts belong to the link's two
 * ends). NOTFOUND for a FRAGN (no header), a non-data frame or another
 * dispatch; INVALID for a netif that is not a radio; the codecs' errors
 * (TRUNCATED, MALFORMED, NOSPACE) otherwise, TRUNCATED too for a frame
 * with no IP byte after its dispatch (OK means ip_len >= 1).
 */
mip_status mip_lowpan_peek_frame(const struct mip_stack *s, uint8_t netif,
                                 const uint8_t *frame, size_t len,
                                 uint8_t *buf, size_t cap, struct mip_lowpan_peek *out);

/* The link address frames towards `nexthop` on radio netif `netif` go to
 * (the mapping of the netif.h comment above). NOTFOUND when none. */
mip_status mip_lowpan_link_addr_of(const struct mip_stack *s, uint8_t netif,
                                   const struct mip_addr *nexthop,
                                   struct mip_802154_addr *out);
#endif /* MIP_CONF_FORWARD */
#endif

/* Adds an address with its prefix length and the connected route of that
 * prefix. INVALID for a bad family or prefix; NOBUFS when full. */
mip_status mip_netif_add_addr(struct mip_stack *s, uint8_t index,
                              const struct mip_addr *addr, uint8_t prefix_len);

struct mip_netif *mip_netif_get(struct mip_stack *s, uint8_t index);

/* True when addr is one of this netif's unicast addresses. */
bool mip_netif_has_addr(const struct mip_netif *nif, const struct mip_addr *addr);

#endif
