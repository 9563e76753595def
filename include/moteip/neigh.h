/*
 * The neighbor cache, shared by ARP (IPv4) and Neighbor Discovery (IPv6):
 * IP address -> link address on a netif, with a one-packet queue per entry
 * for the datagram that triggered resolution (RFC 1122 2.3.2.2, RFC 4861
 * 7.2.2).
 *
 * Bounded against scans of invented on-link addresses (config.h), so that
 * they change nothing for traffic to resolved neighbors:
 *  - a new resolution needs a token (MIP_NEIGH_RESOLVE_BURST, one more
 *    every MIP_NEIGH_RESOLVE_INTERVAL_MS); without one the packet is
 *    dropped (drop_neigh_rate_limited) and nothing is evicted;
 *  - resolutions hold at most MIP_NEIGH_QUEUE_MAX packet buffers together;
 *    past that the packet that waited longest is dropped
 *    (drop_neigh_evicted);
 *  - when the cache is full, the oldest INCOMPLETE entry is reused first
 *    (its packet counted in drop_neigh_evicted), and only when none is
 *    left the least recently used resolved one.
 * Learning a neighbor that resolves us (ARP request, NS with a link-layer
 * option) needs no token.
 *
 * States follow RFC 4861 in simplified form: INCOMPLETE (solicitations
 * sent every MIP_NEIGH_RETRANS_MS, at most MIP_NEIGH_MAX_PROBES), REACHABLE
 * (for MIP_NEIGH_REACHABLE_MS after a confirmation) and STALE (still used;
 * using it sends one unicast re-solicitation).
 */
#ifndef MOTEIP_NEIGH_H
#define MOTEIP_NEIGH_H

#include <stdint.h>
#include "moteip/timer.h"

enum mip_neigh_state {
    MIP_NEIGH_FREE = 0,
    MIP_NEIGH_INCOMPLETE,
    MIP_NEIGH_REACHABLE,
    MIP_NEIGH_STALE
};

struct mip_neigh {
    uint8_t    state;       /* enum mip_neigh_state */
    uint8_t    family;      /* MIP_AF_INET (ARP) or MIP_AF_INET6 (ND) */
    uint8_t    netif;
    uint8_t    probes;      /* solicitations sent in this state */
    uint8_t    pending;     /* queued pbuf index, MIP_PBUF_NONE */
    uint8_t    ip[16];
    uint8_t    hw[6];
    mip_time_t deadline;    /* next retransmission or end of REACHABLE */
    mip_time_t used;        /* last use, or (INCOMPLETE) when the last
                               packet was queued: for replacement */
};

#endif
