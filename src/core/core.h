/*
 * Internal interfaces between the files of src/core. Not part of the public
 * API: the headers in include/moteip/ are.
 */
#ifndef MOTEIP_CORE_INTERNAL_H
#define MOTEIP_CORE_INTERNAL_H

#include "moteip/stack.h"
#if MIP_CONF_LOWPAN
#include "moteip/wire/sixlowpan.h"
#endif

#define STAT(s, name) mip_stat_inc(&(s)->stats, MIP_STAT_##name)

/* Checksum verification, bypassed in fuzzing builds only (config.h). */
#ifdef MOTEIP_FUZZING
#define MIP_CKSUM_OK(expr) ((void)(expr), 1)
#else
#define MIP_CKSUM_OK(expr) (expr)
#endif

/* --- netif.c --------------------------------------------------------- */
struct mip_netif *netif_alloc(struct mip_stack *s);
void netif_set_linklocal(struct mip_netif *nif, const uint8_t iid[8]);
/* True when dst (4 bytes) is one of nif's addresses, or a broadcast
 * address of one of its prefixes, or 255.255.255.255. *bcast says which. */
bool netif_accepts4(const struct mip_netif *nif, const uint8_t dst[4], bool *bcast);
/* True when dst (16 bytes) is one of nif's unicast addresses, or a
 * multicast group it listens to (all-nodes, solicited-node of its addresses). */
bool netif_accepts6(const struct mip_netif *nif, const uint8_t dst[16], bool *mcast);
/* True when addr (any family) is an address of any netif of s. */
bool stack_is_own_addr(const struct mip_stack *s, const struct mip_addr *a);
#if MIP_CONF_IPV4
/* True when dst (4 bytes) is the broadcast address of a prefix of any
 * netif of s (a directed broadcast), or 255.255.255.255. */
bool stack_is_bcast4(const struct mip_stack *s, const uint8_t dst[4]);
#endif
/* Hands the frame in p to the driver, counts the outcome, frees p. */
mip_status netif_transmit(struct mip_stack *s, struct mip_netif *nif, struct mip_pbuf *p);

#if MIP_CONF_IPV6
/* Puts addr/prefix_len into a free slot of nif's addr6[1..] without any
 * route; returns the slot (1..MIP_NETIF_ADDR6_MAX), or 0 when all are used. */
uint8_t netif_put_addr6(struct mip_netif *nif, const uint8_t addr[16], uint8_t prefix_len);
#endif

/* --- slaac.c --------------------------------------------------------- */
#if MIP_CONF_SLAAC
/* Counts lifetimes down, deprecates and removes addresses; returns the
 * delay to the next change (at most MIP_SLAAC_REFRESH_MS while any exists). */
uint32_t slaac_poll(struct mip_stack *s, mip_time_t now);
#endif

/* --- nd6lo.c -------------------------------------------------------- */
#if MIP_CONF_ND6LO
struct mip_nd_msg;
/* Takes the ND message m received on nif when 6LoWPAN-ND handles it (RS,
 * RA, NS/NA with an EARO on its netif); false leaves it to nd.c. */
bool nd6lo_input(struct mip_stack *s, struct mip_netif *nif, const struct mip_ip_rx *rx,
                 const struct mip_nd_msg *m);
uint32_t nd6lo_poll(struct mip_stack *s, mip_time_t now);
/* True while the host waits for a router's answer (an RS among the first
 * MAX_RTR_SOLICITATIONS, an NS-EARO): a sleepy leaf polls its parent fast
 * meanwhile (mip_stack_awaits_reply). */
bool nd6lo_awaits_reply(const struct mip_stack *s);
#endif

/* --- stack.c --------------------------------------------------------- */
/* Takes one token from the bucket l (at most `burst` tokens, one more
 * every `interval` ms); false when it is empty. */
bool rate_take(struct mip_rate_limiter *l, mip_time_t now, uint16_t burst, uint32_t interval);

/* --- neigh.c --------------------------------------------------------- */
struct mip_neigh *neigh_find(struct mip_stack *s, uint8_t family, uint8_t netif,
                             const uint8_t *ip);
/* Records a link address learnt for ip. `create` makes a new entry when none
 * exists; `confirmed` moves it to REACHABLE (else STALE when the address
 * changed or the entry is new). Sends a queued packet if one waited. */
void neigh_learn(struct mip_stack *s, struct mip_netif *nif, uint8_t family,
                 const uint8_t *ip, const uint8_t hw[6], bool create, bool confirmed);
/* Resolves `nexthop` and sends p (an IP datagram) to it as an Ethernet
 * frame; queues p while resolution runs. Takes ownership of p. */
mip_status neigh_output(struct mip_stack *s, struct mip_netif *nif,
                        struct mip_pbuf *p, const struct mip_addr *nexthop);
uint32_t neigh_poll(struct mip_stack *s, mip_time_t now);

/* --- eth_netif.c ----------------------------------------------------- */
/* Prepends an Ethernet header to p and transmits it; frees p. */
mip_status eth_send(struct mip_stack *s, struct mip_netif *nif, struct mip_pbuf *p,
                    const uint8_t dst[6], uint16_t ethertype);

/* --- arp.c ----------------------------------------------------------- */
void arp_input(struct mip_stack *s, struct mip_netif *nif, const uint8_t *pkt, size_t len);
mip_status arp_request(struct mip_stack *s, struct mip_netif *nif, const uint8_t target[4],
                       const uint8_t *dst_hw);

/* --- nd.c ------------------------------------------------------------ */
/* Sends an ND message msg[0..len) (checksum filled in here) with hop limit
 * 255 from src (NULL: chosen) to dst on nif. */
mip_status nd_send(struct mip_stack *s, struct mip_netif *nif, const struct mip_addr *src,
                   const struct mip_addr *dst, uint8_t *msg, size_t len);
void nd_input(struct mip_stack *s, struct mip_netif *nif, const struct mip_ip_rx *rx,
              const uint8_t *msg, size_t len);
/* Sends a Neighbor Solicitation for target: multicast to its
 * solicited-node group, or unicast to dst_hw when given. */
mip_status nd_solicit(struct mip_stack *s, struct mip_netif *nif, const uint8_t target[16],
                      const uint8_t *dst_hw);

/* --- ipv4.c / ipv6.c ------------------------------------------------- */
/* `link_bcast`: the frame was link-layer broadcast/multicast. */
void ipv4_input(struct mip_stack *s, struct mip_netif *nif, const uint8_t *pkt, size_t len,
                bool link_bcast);
void ipv6_input(struct mip_stack *s, struct mip_netif *nif, const uint8_t *pkt, size_t len,
                bool link_mcast);

/* --- ipv6_rpl.c: RPL's data-plane headers in input -------------------- */
#if MIP_CONF_IPV6
struct mip_ipv6_walk;
/* The routing driver speaks RPL's headers (MIP_ROUTING_RPL_EXT). */
bool ipv6_rpl_ext_on(const struct mip_stack *s);
/* An RPL Option of type 0x63 that this node does not understand: drop it
 * as RFC 8200 4.2 says for an unknown option with action 01. */
bool ipv6_rpl_opt_refused(const struct mip_stack *s, const uint8_t *pkt,
                          const struct mip_ipv6_walk *w);
#if MIP_CONF_FORWARD && MIP_CONF_RPL_NON_STORING
/* A Source Routing Header with segments left at w->srh_offset of a
 * datagram addressed to us (RFC 6554 4.2): sent on to its next address,
 * or dropped and counted (with the ICMPv6 error the RFC names). False when
 * this node does not process SRHs (not a router, or no RPL): the caller
 * answers the walk's problem. */
bool ipv6_srh_input(struct mip_stack *s, struct mip_netif *nif, const uint8_t *pkt, size_t len,
                    const struct mip_ipv6_walk *w, bool mcast);
#endif
#endif

/* --- ip_output.c ----------------------------------------------------- */
/* Hands a complete IP datagram in p to the netif towards nexthop. */
/* mip_route_lookup for what this stack sends (ip_output.c): the same
 * answer; the route table's (no driver, or one without next_hop) through a
 * one-entry cache of the last destination and its route slot, which
 * mip_route_add and mip_route_remove empty. Only the table is cached, so a
 * driver set or unset later needs nothing; the netif is looked up each
 * time (ip_route). */
mip_status route_lookup_out(struct mip_stack *s, const struct mip_addr *dst, uint8_t *netif,
                            struct mip_addr *nexthop);

mip_status ip_send_datagram(struct mip_stack *s, struct mip_netif *nif, struct mip_pbuf *p,
                            const struct mip_addr *nexthop);
/* Sends the upper-layer bytes hdr|data (two chunks, e.g. a rebuilt
 * header and the caller's payload) as one datagram, fragmenting. */
mip_status ip_output_gather(struct mip_stack *s, const struct mip_ip_tx *tx,
                            const uint8_t *hdr, size_t hdr_len,
                            const uint8_t *data, size_t data_len);
/* Copies a datagram being forwarded into a packet buffer for `out`;
 * NULL (and counted) when the pool is empty or it does not fit. */
struct mip_pbuf *ip_forward_copy(struct mip_stack *s, struct mip_netif *out,
                                 const uint8_t *pkt, size_t len);
/* Offers the forwarded datagram in p (TTL already decremented) to the
 * forward hook, then sends it on `out`, re-fragmenting IPv4 without DF when
 * it exceeds the MTU (else it is dropped: the caller has sent the ICMP
 * error). Frees p. */
mip_status ip_forward_send(struct mip_stack *s, uint8_t in_netif, struct mip_netif *out,
                           const struct mip_addr *nexthop, struct mip_pbuf *p);

/* --- routing.c ------------------------------------------------------ */
/* The driver's timers (MIP_POLL_IDLE without a poll). */
uint32_t routing_poll(struct mip_stack *s, mip_time_t now);
/* ICMPv6 type 155 to the driver; false when it takes none. */
bool routing_icmp_input(struct mip_stack *s, const struct mip_ip_rx *rx, const uint8_t *msg,
                        size_t len);
/* Runs a packet hook (NULL: PASS); a verdict other than PASS is counted
 * drop_routing (the driver counts its own reason). */
enum mip_routing_verdict routing_hook(struct mip_stack *s, mip_routing_hook_fn fn,
                                      struct mip_routing_pkt *pkt);

/* --- deliver.c ------------------------------------------------------- */
/* Hands a datagram addressed to us to ICMP, UDP or a registered handler;
 * answers unknown protocols. `ptr_nh` (IPv6) is the offset of the Next
 * Header byte that named the protocol, for the parameter problem pointer. */
void ip_deliver(struct mip_stack *s, const struct mip_ip_rx *rx, const uint8_t *l4,
                size_t len, uint16_t ptr_nh);
/* Passes an ICMP error about one of our datagrams to its transport. */
void ip_deliver_error(struct mip_stack *s, const struct mip_ip_error *err, uint8_t proto);

/* --- reass.c --------------------------------------------------------- */
struct mip_reass_frag {
    uint8_t  family;
    uint8_t  proto;
    uint8_t  netif;
    uint8_t  ttl;
    const uint8_t *src;
    const uint8_t *dst;
    uint32_t id;
    uint16_t offset;      /* bytes */
    bool     more;
    bool     group;       /* sent to a multicast/broadcast IP or link address */
    const uint8_t *data;
    uint16_t len;
    const uint8_t *hdr;   /* the IP header, kept when offset == 0 */
    uint8_t  hdr_len;
};
/* Adds one fragment. Returns the slot when the datagram is complete (the
 * caller delivers data[0..total) then calls reass_free), else NULL. Drops
 * and counts bad fragments. */
struct mip_reass_slot *reass_add(struct mip_stack *s, const struct mip_reass_frag *f);
void reass_free(struct mip_reass_slot *slot);
uint32_t reass_poll(struct mip_stack *s, mip_time_t now);

/* --- lowpan_netif.c ---------------------------------------------------- */
#if MIP_CONF_LOWPAN
/* The frame-building pieces lowpan_frag.c shares (lowpan_netif.c). */
void lowpan_our_link_addr(const struct mip_netif_lowpan *lp, struct mip_802154_addr *a);
void lowpan_env(const struct mip_netif_lowpan *lp, const struct mip_802154_addr *src,
                const struct mip_802154_addr *dst, struct mip_lowpan_env *env);
/* Writes the MHR of a data frame to dst; returns its length. */
size_t lowpan_put_mhr(const struct mip_netif_lowpan *lp, const struct mip_802154_addr *dst,
                      uint8_t *frame, size_t cap);
size_t lowpan_mhr_len(const struct mip_netif_lowpan *lp, const struct mip_802154_addr *dst);
/* Hands one frame to nif's driver, counting it (and its refusal). `how`:
 * LOWPAN_TX_FRAG for a fragment, with LOWPAN_TX_PACED when it waits the
 * netif's frag_gap_us (its datagram goes on beyond the next hop). */
#define LOWPAN_TX_FRAG  1u
#define LOWPAN_TX_PACED 2u
mip_status lowpan_send_frame(struct mip_stack *s, struct mip_netif *nif, const uint8_t *frame,
                             size_t len, unsigned how);
/* Frames nif's driver takes now (SIZE_MAX when it does not say). */
size_t lowpan_room(const struct mip_netif *nif);
/* True for a radio netif in IPHC mode. */
bool lowpan_is_iphc(const struct mip_netif *nif);
/* The link address frames towards nexthop go to (netif.h). */
mip_status lowpan_link_dst(const struct mip_netif *nif, const struct mip_addr *nexthop,
                           struct mip_802154_addr *out);
void lowpan_count_codec_error(struct mip_stack *s, mip_status st);
#if MIP_CONF_LOWPAN_HC
/* TCP header compression (lowpan_tcphc.c, docs/LOWPAN.md). */
struct mip_lowpan_tcphc_pending {
    struct mip_lowpan_tcphc_slot *slot;
    bool full, refresh, fresh;
};
/* Whether the whole TCP datagram ip[0..len) to peer gets a TCP NHC. */
bool lowpan_tcphc_wanted(const struct mip_netif_lowpan *lp, const struct mip_802154_addr *peer,
                         const uint8_t *ip, size_t len);
/* Its TCP NHC into out (cap bytes): the bytes written, 0 when it cannot
 * (then nothing changed). *consumed: the TCP header's length. Then either
 * lowpan_tcphc_commit (the frame goes out) or lowpan_tcphc_abort. */
size_t lowpan_tcphc_compress(struct mip_stack *s, struct mip_netif_lowpan *lp,
                             const struct mip_802154_addr *peer, const uint8_t *ip, size_t len,
                             uint8_t *out, size_t cap, size_t *consumed,
                             struct mip_lowpan_tcphc_pending *pend);
void lowpan_tcphc_commit(struct mip_stack *s, struct mip_netif_lowpan *lp,
                         const struct mip_802154_addr *peer, const uint8_t *ip,
                         const struct mip_lowpan_tcphc_pending *pend);
void lowpan_tcphc_abort(const struct mip_lowpan_tcphc_pending *pend);
/* Expands the TCP NHC in[0..n) from peer behind the 40-byte IPv6 header at
 * buf (cap bytes) into the whole datagram, checking the TCP checksum: its
 * length, or 0 when dropped (counted). */
size_t lowpan_tcphc_expand(struct mip_stack *s, struct mip_netif_lowpan *lp,
                           const struct mip_802154_addr *peer, uint8_t *buf, size_t cap,
                           const uint8_t *in, size_t n);
/* The same without checking or changing anything (mip_lowpan_peek_frame):
 * the datagram's length, 0 when the context is missing or it does not fit. */
size_t lowpan_tcphc_peek(const struct mip_netif_lowpan *lp, const struct mip_802154_addr *peer,
                         uint8_t *buf, size_t cap, const uint8_t *in, size_t n);
#endif
/* A FRAG1 or FRAGN payload pl[0..n) from link header h (lowpan_frag.c):
 * reassembled, or forwarded by fragment forwarding. */
void lowpan_frag_input(struct mip_stack *s, struct mip_netif *nif,
                       const struct mip_802154_hdr *h, const uint8_t *pl, size_t n);
/* Expires 6LoWPAN reassembly slots and VRB entries; returns the delay to
 * the next expiry. */
uint32_t lowpan_poll(struct mip_stack *s, mip_time_t now);
#endif

/* --- icmp: icmp_rate.c, icmpv4.c, icmpv6.c --------------------------- */
bool icmp_rate_allow(struct mip_stack *s);
/* A packet buffer holding an ICMP error message (checksum 0) quoting
 * hdr|l4, at most `max` bytes, with headroom for an IP header of
 * ip_hdr_len; NULL (counted) when the pool is empty. */
struct mip_pbuf *icmp_error_build(struct mip_stack *s, uint16_t ip_hdr_len, size_t max,
                                  uint8_t type, uint8_t code, uint32_t rest,
                                  const uint8_t *hdr, size_t hdr_len,
                                  const uint8_t *l4, size_t l4_len);
/* Fills in the checksum (over pseudo_sum + the message) and sends it. */
void icmp_error_send(struct mip_stack *s, const struct mip_ip_tx *tx, struct mip_pbuf *p,
                     uint32_t pseudo_sum);
/* Sends an ICMP message hdr|data (hdr_len even), filling in tx->src when
 * unset and the checksum at hdr[2..3]. */
mip_status icmpv4_output(struct mip_stack *s, struct mip_ip_tx *tx, uint8_t *hdr,
                         size_t hdr_len, const uint8_t *data, size_t data_len);
mip_status icmpv6_output(struct mip_stack *s, struct mip_ip_tx *tx, uint8_t *hdr,
                         size_t hdr_len, const uint8_t *data, size_t data_len);
void icmpv4_input(struct mip_stack *s, const struct mip_ip_rx *rx, const uint8_t *msg, size_t len);
/* Sends an ICMPv4 error about a received datagram whose IP header is
 * hdr[0..hdr_len) and whose upper-layer bytes are l4[0..l4_len), following
 * RFC 1122 3.2.2 on when not to (errors, broadcasts, later fragments...). */
void icmpv4_send_error(struct mip_stack *s, uint8_t type, uint8_t code, uint32_t rest,
                       const uint8_t *hdr, size_t hdr_len, const uint8_t *l4, size_t l4_len);
void icmpv6_input(struct mip_stack *s, const struct mip_ip_rx *rx, const uint8_t *msg, size_t len);
/* The same for ICMPv6 (RFC 4443 2.4(e)): hdr is the IPv6 header and any
 * extension headers, l4 what follows; `netif` is where the datagram
 * arrived (errors to a link-local source must leave there). `allow_mcast` for the kinds that may
 * answer a multicast destination (Packet Too Big, option action 10). */
void icmpv6_send_error(struct mip_stack *s, uint8_t netif, uint8_t type, uint8_t code,
                       uint32_t rest,
                       const uint8_t *hdr, size_t hdr_len, const uint8_t *l4, size_t l4_len,
                       bool allow_mcast);

/* --- ping.c ---------------------------------------------------------- */
/* An echo reply (ICMPv4 type 0 or ICMPv6 type 129) whose checksum was
 * verified and which holds at least its 8-byte header: to the ping handler,
 * or counted as unhandled when there is none. */
void ping_reply_input(struct mip_stack *s, const struct mip_ip_rx *rx, const uint8_t *msg,
                      size_t len);

/* --- udp.c ----------------------------------------------------------- */
void udp_input(struct mip_stack *s, const struct mip_ip_rx *rx, const uint8_t *l4, size_t len);

/* --- small address predicates --------------------------------------- */
static inline bool ip6_is_multicast(const uint8_t *a) { return a[0] == 0xFF; }
static inline bool ip6_is_linklocal(const uint8_t *a) { return a[0] == 0xFE && (a[1] & 0xC0) == 0x80; }
/* A link-local unicast address or a multicast group of interface or link
 * scope: it means something only together with a netif (RFC 4007). */
static inline bool ip6_is_link_scoped(const uint8_t *a)
{
    return ip6_is_linklocal(a) || (ip6_is_multicast(a) && (a[1] & 0x0Fu) <= 2u);
}
bool ip6_is_unspecified(const uint8_t *a);
bool ip6_is_loopback(const uint8_t *a);
static inline bool ip4_is_multicast(const uint8_t *a) { return (a[0] & 0xF0) == 0xE0; }
static inline bool ip4_is_limited_bcast(const uint8_t *a)
{
    return a[0] == 255 && a[1] == 255 && a[2] == 255 && a[3] == 255;
}

#endif
