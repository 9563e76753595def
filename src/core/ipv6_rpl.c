/*
 * RPL's data-plane headers in IPv6 input (wire/rpl_ext.h): a Source
 * Routing Header addressed to this node (RFC 6554 4.2), the RPL Option of
 * a datagram delivered here (RFC 6553), and IPv6-in-IPv6 from the root
 * (RFC 9008 7, RFC 2473). They are processed only while the routing
 * driver says it speaks them (MIP_ROUTING_RPL_EXT, routing.h): elsewhere a
 * Routing Type 3 with work left is refused as before (RFC 8200 4.4), an
 * RPL Option of type 0x63 dropped as an unknown option with action 01,
 * and IPv6-in-IPv6 answered as an unknown protocol. A router at the edge
 * of an RPL domain must not let source routes in from outside (RFC 6554
 * 4.2 / 5): the driver sees every datagram first (its rx hook) and drops
 * those.
 */
#include "core.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/icmpv6.h"
#include "moteip/wire/rpl_ext.h"
#include <string.h>

#if MIP_CONF_IPV6

bool ipv6_rpl_ext_on(const struct mip_stack *s)
{
    return (s->routing.ops->flags & MIP_ROUTING_RPL_EXT) != 0u;
}

bool ipv6_rpl_opt_refused(const struct mip_stack *s, const uint8_t *pkt,
                          const struct mip_ipv6_walk *w)
{
    /* 0x23 skips when unknown (action 00); 0x63 drops (action 01). */
    return w->rpl_opt_offset != 0u && pkt[w->rpl_opt_offset] == MIP_RPI_TYPE_6553 &&
           !ipv6_rpl_ext_on(s);
}

/* A router's SRH step: non-storing mode's (RFC 6554); without it an SRH
 * with segments left is refused as an unknown routing type would be. */
#if MIP_CONF_FORWARD && MIP_CONF_RPL_NON_STORING
static void srh_error(struct mip_stack *s, uint8_t netif, const uint8_t *pkt, size_t len,
                      uint8_t type, uint8_t code, uint32_t ptr, bool mcast)
{
    if (!mcast)
        icmpv6_send_error(s, netif, type, code, ptr, pkt, MIP_IPV6_HDR_LEN,
                          pkt + MIP_IPV6_HDR_LEN, len - MIP_IPV6_HDR_LEN, false);
}

/* RFC 6554 4.2: two or more of Addresses[1..n] ours, with one that is not
 * between them, is a loop through this node. Returns the index of the
 * address that closes it, 0 when there is none. n is at most 2040, each
 * test a walk over our addresses: bounded. */
static uint16_t srh_loop(const struct mip_stack *s, const struct mip_srh *h,
                         const uint8_t dst[16])
{
    bool seen_ours = false, gap = false;
    uint16_t i;

    for (i = 1; i <= h->n; i++) {
        struct mip_addr a;
        uint8_t full[16];

        (void)mip_srh_addr(h, i, dst, full);
        mip_addr_set6(&a, full);
        if (stack_is_own_addr(s, &a)) {
            if (seen_ours && gap)
                return i;
            seen_ours = true;
            gap = false;
        } else if (seen_ours) {
            gap = true;
        }
    }
    return 0;
}

bool ipv6_srh_input(struct mip_stack *s, struct mip_netif *nif, const uint8_t *pkt, size_t len,
                    const struct mip_ipv6_walk *w, bool mcast)
{
    struct mip_srh h;
    struct mip_addr nexthop;
    struct mip_pbuf *p;
    uint8_t next[16], *b;
    uint16_t off = w->srh_offset, loop, idx;

    if (!s->forwarding || !ipv6_rpl_ext_on(s))
        return false;
    if (mip_srh_parse(pkt + off, len - off, &h) != MIP_OK) {
        /* Its lengths do not add up: point at Hdr Ext Len. */
        STAT(s, drop_srh_bad);
        srh_error(s, nif->index, pkt, len, MIP_ICMPV6_PARAM_PROBLEM, 0, off + 1u, mcast);
        return true;
    }
    if (h.segments_left > h.n) {
        STAT(s, drop_srh_bad);
        srh_error(s, nif->index, pkt, len, MIP_ICMPV6_PARAM_PROBLEM, 0,
                  off + MIP_SRH_SL_OFFSET, mcast);
        return true;
    }
    (void)mip_srh_addr(&h, (uint16_t)(h.n - h.segments_left + 1u), pkt + 24, next);
    if (mcast || ip6_is_multicast(next)) {
        STAT(s, drop_srh_multicast);
        return true;
    }
    loop = srh_loop(s, &h, pkt + 24);
    if (loop != 0u) {
        STAT(s, drop_srh_loop);
        srh_error(s, nif->index, pkt, len, MIP_ICMPV6_PARAM_PROBLEM, 0,
                  off + MIP_SRH_FIXED_LEN + (uint32_t)(loop - 1u) * (16u - h.cmpr_i), mcast);
        return true;
    }
    if (pkt[7] <= 1u) {
        STAT(s, drop_ipv6_hop_limit_expired);
        srh_error(s, nif->index, pkt, len, MIP_ICMPV6_TIME_EXCEEDED, MIP_ICMPV6_TE_HOPLIMIT,
                  0, mcast);
        return true;
    }
    /* A strict source route: the next address is a neighbour on the link
     * the route runs over, which is the one it came in on. */
    if (len > nif->mtu) {
        STAT(s, drop_ip_too_big);
        icmpv6_send_error(s, nif->index, MIP_ICMPV6_PACKET_TOO_BIG, 0, nif->mtu, pkt,
                          MIP_IPV6_HDR_LEN, pkt + MIP_IPV6_HDR_LEN, len - MIP_IPV6_HDR_LEN,
                          true);
        return true;
    }
    p = ip_forward_copy(s, nif, pkt, len);
    if (p == NULL)
        return true;
    b = mip_pbuf_payload(p);
    (void)mip_srh_parse(b + off, len - off, &h);
    (void)mip_srh_swap(b + off, &h, b + 24, &idx);
    b[7] = (uint8_t)(b[7] - 1u);
    STAT(s, srh_forwarded);
    mip_addr_set6(&nexthop, b + 24);
    (void)ip_forward_send(s, nif->index, nif, &nexthop, p);
    return true;
}
#endif

#endif
