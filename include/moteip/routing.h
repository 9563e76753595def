/*
 * The routing driver: how IP picks a next hop, picked at init.
 *
 * Core asks one small table of operations, struct mip_routing_ops, for
 * every routing decision, so that "static" (the route table, route.h),
 * "rpl" (src/route/rpl*.c, rpl.h) and later protocols plug in the same way.
 * The table lives on the core floor; a protocol above core (src/route/)
 * fills one in and registers it with mip_routing_set(): core never includes
 * a routing protocol's header (the floors: calls go up only through this
 * table).
 *
 *   next_hop      every route lookup (mip_route_lookup: IP output,
 *                 forwarding, TCP's MSS, the relay) asks it
 *   poll          run by mip_stack_poll; returns ms to its next deadline
 *   link_report   the outcome of each unicast frame sent to a neighbour
 *                 (ACKed, unACKed, retries), which the owner of the MAC
 *                 passes on from its tx_done (mip_routing_link_report*)
 *   icmp_input    ICMPv6 type 155 (RPL control, RFC 6550 6) from core's
 *                 ICMPv6 handler, checksum verified
 *   rx_hook       each received IPv6 datagram (header parsed, before core
 *                 decides between local delivery and forwarding), read-only:
 *                 a hop-by-hop RPL Option (RFC 6553) or a Source Routing
 *                 Header (RFC 6554) addressed to this node; a driver that
 *                 sends it on does so from a copy (mip_ip_send_raw) and
 *                 answers TAKEN
 *   forward_hook  each datagram this node forwards, after the hop-limit
 *                 decrement and routing, before the link send
 *   output_hook   each datagram this node originates, after routing,
 *                 before the local hook and the link send
 *   accepts       a destination address delivered here that is none of
 *                 the node's own (geo's regional broadcast)
 *
 * Every operation may be NULL: "no opinion" (next_hop NULL: the route
 * table; a NULL hook: PASS). Hooks run in the caller's stack frame and must
 * not re-enter IP output for the packet they were handed.
 */
#ifndef MOTEIP_ROUTING_H
#define MOTEIP_ROUTING_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"
#include "moteip/timer.h"
#include "moteip/addr.h"

struct mip_stack;
struct mip_pbuf;
struct mip_ip_rx;

/* What a unicast frame's transmission says about the neighbour. */
enum mip_link_outcome {
    MIP_LINK_TX_OK = 0,      /* acknowledged (or sent, on a link without ACKs) */
    MIP_LINK_TX_NOACK,       /* every retry went unacknowledged */
    MIP_LINK_TX_OTHER        /* channel busy, radio error: says nothing of
                                the neighbour (RFC 6719 3.1: not counted) */
};

/* One transmission's outcome towards one neighbour. */
struct mip_link_report {
    uint8_t netif;
    uint8_t iid[8];          /* the neighbour's interface identifier: its
                                link-local address is fe80::iid (from an
                                802.15.4 address: mip_lowpan_iid_from_link,
                                RFC 4944 6 / RFC 6282 3.2.2) */
    uint8_t outcome;         /* enum mip_link_outcome */
    uint8_t retries;         /* link retries the frame took (attempts - 1) */
};

/* A datagram passing a packet hook. The hook may rewrite p's bytes, grow
 * it (mip_pbuf_push / mip_pbuf_put, then move the IPv6 header: headers are
 * inserted after it) or shrink it, and may change *nexthop and out_netif
 * (a source route's next address). Offsets are from the IPv6 header's
 * first byte, 0 when the header is absent; the hook keeps them true when
 * it moves things. */
struct mip_routing_pkt {
    struct mip_pbuf *p;      /* the whole IPv6 datagram (payload = header) */
    uint8_t  in_netif;       /* MIP_NETIF_ANY for an originated datagram */
    uint8_t  out_netif;      /* rx_hook: MIP_NETIF_ANY (not routed yet) */
    uint16_t hbh_off;        /* hop-by-hop options header, 0: none */
    uint16_t rh_off;         /* routing header, 0: none */
    struct mip_addr *nexthop;/* rx_hook: NULL */
    /* MIP_ROUTING_ICMP: the ICMPv6 error core sends back to the source
     * (RFC 6554 4.2: Parameter Problem pointing at the bad field; RFC
     * 6550 11.2.2.3: Destination Unreachable). */
    uint8_t  icmp_type;
    uint8_t  icmp_code;
    uint32_t icmp_pointer;
};

enum mip_routing_verdict {
    MIP_ROUTING_PASS = 0,    /* go on (possibly edited) */
    MIP_ROUTING_DROP,        /* drop silently; the driver counted its reason,
                                core counts drop_routing */
    MIP_ROUTING_ICMP,        /* drop and send the error in icmp_*; counted
                                the same */
    MIP_ROUTING_TAKEN        /* the driver consumed or re-sent the
                                datagram (rx: a source route's next hop;
                                output and forward: the root's tunnel,
                                fragmented); core frees it, counts no drop
                                and does nothing more */
};

typedef enum mip_routing_verdict (*mip_routing_hook_fn)(void *ctx, struct mip_stack *s,
                                                        struct mip_routing_pkt *pkt,
                                                        mip_time_t now);
/* rx_hook: pkt[0..len) the datagram as received (IPv6 header first, len
 * its header's length), in_netif where it came in, `local` whether it is
 * addressed to this node. PASS lets core go on; DROP and ICMP (with
 * icmp_* in *err, whose p is NULL) end it; TAKEN: handled. */
typedef enum mip_routing_verdict (*mip_routing_rx_fn)(void *ctx, struct mip_stack *s,
                                                      uint8_t in_netif, const uint8_t *pkt,
                                                      size_t len, bool local,
                                                      struct mip_routing_pkt *err,
                                                      mip_time_t now);

struct mip_routing_ops {
    const char *name;        /* "static", "rpl", "geo" */
    /* The next hop towards dst: *netif and *nexthop (dst itself when
     * on-link). NOROUTE when none. A driver that keeps routes of its own
     * still answers connected and static routes (mip_route_table_lookup). */
    mip_status (*next_hop)(void *ctx, const struct mip_stack *s, const struct mip_addr *dst,
                           uint8_t *netif, struct mip_addr *nexthop);
    /* Timers due at now; ms to the next deadline or MIP_POLL_IDLE. */
    uint32_t (*poll)(void *ctx, struct mip_stack *s, mip_time_t now);
    void (*link_report)(void *ctx, struct mip_stack *s, const struct mip_link_report *r,
                        mip_time_t now);
    /* ICMPv6 type 155: msg[0..len) from the ICMPv6 type on (checksum
     * verified). The driver counts what it drops. */
    void (*icmp_input)(void *ctx, struct mip_stack *s, const struct mip_ip_rx *rx,
                       const uint8_t *msg, size_t len);
    mip_routing_rx_fn   rx_hook;
    mip_routing_hook_fn forward_hook;
    mip_routing_hook_fn output_hook;
    /* MIP_ROUTING_RPL_EXT: core processes RPL's data-plane headers
     * (wire/rpl_ext.h): a Source Routing Header addressed to this router
     * is sent on to its next address (RFC 6554 4.2), an RPL Option of
     * type 0x63 is accepted rather than dropped as unknown, and
     * IPv6-in-IPv6 addressed here is unwrapped once (RFC 9008 7). */
    uint8_t flags;
    /* Appended (geo): true when dst, not one of this node's addresses, is
     * still delivered here, as a regional broadcast address of a region
     * that holds this node (geo.h). Core asks it for each received unicast
     * destination it does not own; NULL: none. */
    bool (*accepts)(void *ctx, const struct mip_stack *s, const uint8_t dst[16]);
};
#define MIP_ROUTING_RPL_EXT 0x01u

/* The instance's driver (inside struct mip_stack). */
struct mip_routing {
    const struct mip_routing_ops *ops;   /* &mip_routing_static after init */
    void *ctx;
};

/* The route table alone, as a driver: next_hop = mip_route_table_lookup,
 * nothing else. mip_stack_init picks it. */
extern const struct mip_routing_ops mip_routing_static;

/* Picks the driver (ops NULL: back to static). ctx is the driver's state,
 * owned by the caller (a struct mip_rpl) and kept alive while registered. */
void mip_routing_set(struct mip_stack *s, const struct mip_routing_ops *ops, void *ctx);

/* Passes one link outcome to the driver (no-op without link_report). */
void mip_routing_link_report(struct mip_stack *s, const struct mip_link_report *r,
                             mip_time_t now);

/* The same from an 802.15.4 frame as the MAC reports it in tx_done
 * (frame as sent, without FCS): the destination address is read from the
 * MAC header; broadcast and unparsable frames report nothing. `acked`
 * false with `noack` false is MIP_LINK_TX_OTHER. */
void mip_routing_link_report_frame(struct mip_stack *s, uint8_t netif, const uint8_t *frame,
                                   size_t len, bool acked, bool noack, uint8_t retries,
                                   mip_time_t now);

#endif
