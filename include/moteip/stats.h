/*
 * Counters of a stack instance: events (frames in and out, datagrams
 * delivered, echo replies sent...) and drops, one counter per reason.
 * Every packet the stack discards increments exactly one drop_* counter.
 *
 * The list is an X-macro so the enum and the names used in JSON output
 * cannot drift apart. Counters saturate at UINT32_MAX rather than wrap.
 */
#ifndef MOTEIP_STATS_H
#define MOTEIP_STATS_H

#include <stdint.h>

#define MIP_STATS_LIST(X)                                                     \
    /* events */                                                              \
    X(rx_frames)            X(tx_frames)                                      \
    X(rx_ipv4)              X(rx_ipv6)                                        \
    X(tx_ipv4)              X(tx_ipv6)                                        \
    X(ip_delivered)         X(ip_forwarded)                                   \
    X(frag_rx)              X(frag_reassembled)     X(frag_tx)                \
    X(icmp_echo_replied)    X(icmp_errors_tx)       X(icmp_rx)                \
    X(icmp_echo_reply_rx)   /* echo replies handed to the ping handler */     \
    X(udp_rx)               X(udp_tx)                                         \
    X(arp_rx)               X(arp_requests_tx)      X(arp_replies_tx)         \
    X(nd_rx)                X(nd_ns_tx)             X(nd_na_tx)               \
    X(neigh_resolved)                                                         \
    X(lowpan_frag_tx)       /* 6LoWPAN fragments sent (FRAG1 + FRAGN) */      \
    X(lowpan_frag_rx)       /* 6LoWPAN fragments received */                  \
    X(lowpan_reassembled)   /* 6LoWPAN datagrams rebuilt from fragments */    \
    X(lowpan_frag_forwarded)/* fragments sent on by fragment forwarding */    \
    X(lowpan_vrb_completed) /* datagrams forwarded to their last fragment */  \
    X(lowpan_iphc_tx)       /* datagrams IPHC-compressed to send (each hop) */ \
    X(lowpan_hc_bytes_tx)   /* their IPv6 + UDP/TCP header bytes as sent */   \
    X(lowpan_tcphc_tx)      /* TCP segments sent with a TCP NHC (docs/LOWPAN.md) */ \
    X(lowpan_tcphc_full_tx) /* of them with a FULL header */                  \
    X(lowpan_tcphc_refresh_rx) /* refresh requests (R) a neighbour sent */   \
    X(slaac_added)          /* addresses autoconfigured (slaac.h) */          \
    X(slaac_expired)        /* autoconfigured addresses whose valid lifetime ended */ \
    X(slaac_full)           /* a prefix refused: SLAAC table or netif addresses full */ \
    /* 6LoWPAN-ND (nd6lo.h) */                                                \
    X(nd6lo_rs_tx)          X(nd6lo_ra_tx)          X(nd6lo_ra_rx)            \
    X(nd6lo_reg_tx)         /* host: NS-EARO sent (first tries and retries) */ \
    X(nd6lo_reg_ok)         /* host: a registration granted */                \
    X(nd6lo_reg_dup)        /* host: status 1, the address was removed */     \
    X(nd6lo_reg_refused)    /* host: another status; retried later */         \
    X(nd6lo_reg_timeout)    /* host: no answer to MAX_UNICAST_SOLICIT NSs */  \
    X(nd6lo_abro_old)       /* host: an RA with an older ABRO version, ignored */ \
    X(nd6lo_ctx_refused)    /* host: a 6CO not /64 or beyond MIP_LOWPAN_CTX_IDS */ \
    X(nd6lo_reg_accepted)   /* router: registrations granted or renewed */    \
    X(nd6lo_reg_answered)   /* router: NA-EARO sent */                        \
    X(nd6lo_reg_dup_tx)     /* router: status 1, address held by another ROVR */ \
    X(nd6lo_reg_full)       /* router: status 2, table or per-source share full */ \
    X(nd6lo_reg_expired)    /* router: registrations whose lifetime ended */  \
    /* drops, by reason */                                                    \
    X(drop_link_truncated)      /* shorter than its link header */            \
    X(drop_link_not_for_us)     /* another station's unicast frame */        \
    X(drop_link_unsupported)    /* ethertype, VLAN, IP version, 802.15.4 frame type or security */ \
    X(drop_arp_malformed)                                                     \
    X(drop_arp_unsupported)                                                   \
    X(drop_ipv4_truncated)                                                    \
    X(drop_ipv4_malformed)                                                    \
    X(drop_ipv4_bad_checksum)                                                 \
    X(drop_ipv4_bad_src)        /* broadcast / multicast / loopback source */ \
    X(drop_ipv4_bad_option)     /* an option's length is 0, 1, missing or past the header */ \
    X(drop_ipv4_source_route)   /* LSRR / SSRR option (RFC 7126) */          \
    X(drop_ipv4_not_for_us)     /* not ours and not forwarding */             \
    X(drop_ipv4_ttl_expired)                                                  \
    X(drop_ipv6_truncated)                                                    \
    X(drop_ipv6_malformed)                                                    \
    X(drop_ipv6_bad_src)                                                      \
    X(drop_ipv6_not_for_us)                                                   \
    X(drop_ipv6_hop_limit_expired)                                            \
    X(drop_ipv6_ext_header)     /* extension header problem (RFC 8200) */     \
    X(drop_ip_unknown_proto)    /* no handler for the upper protocol */       \
    X(drop_ip_no_route)                                                       \
    X(drop_ip_too_big)          /* over the MTU and must not fragment */      \
    X(drop_fwd_hook)            /* the forward hook (relay) said DROP */      \
    X(drop_routing)             /* the routing driver's packet hook dropped it (its own counters say why) */ \
    X(drop_ip_martian)          /* to/from 0/8, 127/8, ::, ::1: never sent on */ \
    X(drop_frag_malformed)      /* bad fragment length or offset */           \
    X(drop_frag_overlap)        /* RFC 5722: whole datagram dropped */        \
    X(drop_frag_too_big)        /* larger than MIP_REASS_SIZE */              \
    X(drop_frag_no_slot)        /* all reassembly slots busy (receiving) */   \
    X(drop_frag_src_limit)      /* its source holds MIP_REASS_PER_SRC, all busy */ \
    X(drop_frag_evicted)        /* idle, its slot went to a new datagram */   \
    X(drop_frag_timeout)        /* incomplete when its timer ran out */       \
    X(drop_icmp_truncated)                                                    \
    X(drop_icmp_bad_checksum)                                                 \
    X(drop_icmp_unhandled)      /* a type this stack does not act on */       \
    X(drop_icmp_rate_limited)   /* an error we would have sent */            \
    X(drop_nd_malformed)                                                      \
    X(drop_nd6lo_bad)           /* 6LoWPAN-ND rules: RA not from link-local, NS-EARO without SLLAO, an NA-EARO we did not ask for */ \
    X(drop_udp_truncated)                                                     \
    X(drop_udp_bad_checksum)                                                  \
    X(drop_udp_no_port)                                                       \
    X(drop_neigh_evicted)       /* queued packet pushed out by a newer resolution */ \
    X(drop_neigh_rate_limited)  /* resolution not started: MIP_NEIGH_RESOLVE_* spent */ \
    X(drop_neigh_unresolved)    /* queued packet dropped: no answer */        \
    X(drop_neigh_queue_replaced)/* newer packet took the queue slot */        \
    /* 802.15.4 radio netif (netif.h, wire/sixlowpan.h) */                     \
    X(drop_lowpan_malformed)    /* bad MHR/6LoWPAN field, length, truncation */ \
    X(drop_lowpan_unsupported)  /* dispatch, NHC or IP family not handled */  \
    X(drop_lowpan_unknown_context) /* IPHC names a context not configured */ \
    X(drop_lowpan_tcphc_mismatch) /* TCP NHC without its context, or the TCP checksum failed after it */ \
    X(drop_lowpan_no_l2addr)    /* next hop maps to no link address */        \
    X(drop_lowpan_too_big)      /* frame/datagram larger than the link takes */ \
    X(drop_lowpan_frag_duplicate)    /* fragment already received (tolerated) */ \
    X(drop_lowpan_frag_inconsistent) /* overlap / size change: datagram dropped */ \
    X(drop_lowpan_frag_no_slot) /* all 6LoWPAN reassembly slots busy (receiving) */ \
    X(drop_lowpan_frag_src_limit) /* its link source holds its share, all busy */ \
    X(drop_lowpan_frag_evicted) /* idle, its slot went to a new datagram */   \
    X(drop_lowpan_frag_timeout) /* incomplete when its timer ran out */   \
    X(drop_lowpan_frag_superseded) /* its sender moved on to a new datagram */ \
    X(drop_lowpan_queue_full)   /* the driver lacked room for all of a datagram's frames */ \
    X(drop_lowpan_frag_no_first)/* FORWARD mode: a later fragment without state (RFC 8930) */ \
    X(drop_lowpan_vrb_no_slot)  /* fragment forwarding: all VRB entries busy */ \
    X(drop_lowpan_vrb_src_limit)/* its link source holds its VRB share, all busy */ \
    X(drop_lowpan_vrb_evicted)  /* idle, its VRB entry went to a new datagram */ \
    X(drop_lowpan_vrb_superseded) /* its sender moved on to a new datagram */ \
    X(drop_lowpan_vrb_timeout)  /* incomplete when its VRB timer ran out */    \
    X(drop_lowpan_vrb_inconsistent) /* overlap / size change: rest not sent on */ \
    X(drop_lowpan_vrb_abandoned) /* a fragment of a datagram no longer sent on */ \
    /* RPL's data-plane headers (wire/rpl_ext.h, core/ipv6_rpl.c) */          \
    X(srh_forwarded)            /* RFC 6554 4.2: swapped, handed to forwarding */ \
    X(rx_ipv6_decap)            /* IPv6-in-IPv6 unwrapped (RFC 9008 7) */      \
    X(drop_srh_bad)             /* SRH lengths, or segments left > n (RFC 6554 4.2) */ \
    X(drop_srh_multicast)       /* its next address or destination is multicast */ \
    X(drop_srh_loop)            /* two of our addresses with another between */ \
    /* SLIP netif (netif.h, wire/slip.h) */                                  \
    X(drop_slip_too_big)        /* a frame over the MTU */                    \
    X(drop_slip_bad_escape)     /* ESC followed by other than ESC_END/ESC_ESC */ \
    X(drop_tx_no_pbuf)          /* packet buffer pool exhausted */            \
    X(drop_tx_driver)           /* the driver refused a frame */

enum mip_stat {
#define MIP_STAT_ENUM(name) MIP_STAT_##name,
    MIP_STATS_LIST(MIP_STAT_ENUM)
#undef MIP_STAT_ENUM
    MIP_STAT_COUNT
};

struct mip_stats {
    uint32_t count[MIP_STAT_COUNT];
};

/* Name of a counter as used in JSON ("drop_ipv4_bad_checksum"); NULL when
 * out of range or when built without MIP_CONF_STAT_NAMES. */
const char *mip_stat_name(enum mip_stat which);

static inline void mip_stat_inc(struct mip_stats *st, enum mip_stat which)
{
    if (st->count[which] != UINT32_MAX)
        st->count[which]++;
}

/* Adds n, saturating at UINT32_MAX as mip_stat_inc does. */
static inline void mip_stat_add(struct mip_stats *st, enum mip_stat which, uint32_t n)
{
    st->count[which] = st->count[which] > UINT32_MAX - n ? UINT32_MAX : st->count[which] + n;
}

#endif
