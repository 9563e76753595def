/* IPv6 input: validation, extension headers (RFC 8200 4), local delivery,
 * reassembly, forwarding. */
#include "core.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/icmpv6.h"
#include "moteip/wire/rpl_ext.h"
#include <string.h>

#if MIP_CONF_IPV6

#if MIP_CONF_FORWARD
static void ipv6_forward(struct mip_stack *s, struct mip_netif *in, const uint8_t *pkt,
                         size_t len, const struct mip_ipv6_hdr *h)
{
    struct mip_addr dst, nexthop;
    struct mip_netif *out;
    struct mip_pbuf *p;
    uint8_t idx, *w;
    const uint8_t *rest = pkt + MIP_IPV6_HDR_LEN;
    size_t rest_len = len - MIP_IPV6_HDR_LEN;
    /* Link-local traffic never leaves its link (RFC 4291 2.5.6). */
    if (ip6_is_linklocal(h->src) || ip6_is_linklocal(h->dst)) {
        STAT(s, drop_ipv6_not_for_us);
        return;
    }
    /* The unspecified and loopback addresses never cross a router
     * (RFC 4291 2.5.2, 2.5.3). */
    if (ip6_is_unspecified(h->src) || ip6_is_unspecified(h->dst) ||
        ip6_is_loopback(h->src) || ip6_is_loopback(h->dst)) {
        STAT(s, drop_ip_martian);
        return;
    }
    mip_addr_set6(&dst, h->dst);
    if (h->hop_limit <= 1) {
        STAT(s, drop_ipv6_hop_limit_expired);
        icmpv6_send_error(s, in->index, MIP_ICMPV6_TIME_EXCEEDED, MIP_ICMPV6_TE_HOPLIMIT, 0,
                          pkt, MIP_IPV6_HDR_LEN, rest, rest_len, false);
        return;
    }
    if (mip_route_lookup(s, &dst, &idx, &nexthop) != MIP_OK ||
        (out = mip_netif_get(s, idx)) == NULL) {
        STAT(s, drop_ip_no_route);
        icmpv6_send_error(s, in->index, MIP_ICMPV6_DEST_UNREACH, MIP_ICMPV6_UNREACH_NOROUTE, 0,
                          pkt, MIP_IPV6_HDR_LEN, rest, rest_len, false);
        return;
    }
    if (len > out->mtu) {
        STAT(s, drop_ip_too_big);
        icmpv6_send_error(s, in->index, MIP_ICMPV6_PACKET_TOO_BIG, 0, out->mtu,
                          pkt, MIP_IPV6_HDR_LEN, rest, rest_len, true);
        return;
    }
    p = ip_forward_copy(s, out, pkt, len);
    if (p == NULL)
        return;
    w = mip_pbuf_payload(p);
    w[7] = (uint8_t)(h->hop_limit - 1u);
    (void)ip_forward_send(s, in->index, out, &nexthop, p);
}
#endif

/* Acts on an extension-header problem; true when the packet must go. */
static bool ext_problem(struct mip_stack *s, uint8_t netif, const struct mip_ipv6_walk *w, const uint8_t *pkt,
                        size_t len, bool dst_mcast)
{
    uint8_t code;
    if (w->problem == MIP_IPV6_PROBLEM_NONE)
        return false;
    STAT(s, drop_ipv6_ext_header);
    switch (w->problem) {
    case MIP_IPV6_PROBLEM_HDR_FIELD:   code = 0; break;
    case MIP_IPV6_PROBLEM_NEXT_HEADER: code = 1; break;
    case MIP_IPV6_PROBLEM_OPTION:      code = 2; break;
    default:                           return true;   /* action 01: silent */
    }
    /* Only an unrecognized option of action 10 may answer multicast
     * (RFC 8200 4.2, RFC 4443 2.4(e)). */
    if (dst_mcast && (code != 2 || w->problem_icmp_unless_multicast))
        return true;
    icmpv6_send_error(s, netif, MIP_ICMPV6_PARAM_PROBLEM, code, w->problem_pointer,
                      pkt, MIP_IPV6_HDR_LEN, pkt + MIP_IPV6_HDR_LEN, len - MIP_IPV6_HDR_LEN,
                      code == 2 && !w->problem_icmp_unless_multicast);
    return true;
}

static bool walk_failed(struct mip_stack *s, mip_status st)
{
    if (st == MIP_OK)
        return false;
    if (st == MIP_ERR_TRUNCATED)
        STAT(s, drop_ipv6_truncated);
    else
        STAT(s, drop_ipv6_malformed);
    return true;
}

static void ipv6_input_at(struct mip_stack *s, struct mip_netif *nif, const uint8_t *pkt,
                          size_t len, bool link_mcast, bool inner);

static void ipv6_fragment(struct mip_stack *s, struct mip_netif *nif, struct mip_ip_rx *rx,
                          const uint8_t *pkt, size_t len, const struct mip_ipv6_walk *w)
{
    struct mip_reass_frag f;
    struct mip_reass_slot *r;
    struct mip_ipv6_walk inner;
    uint8_t fhdr[MIP_IPV6_HDR_LEN + MIP_IPV6_FRAG_HDR_LEN];
    size_t dlen = len - w->frag_data_offset;
    if ((w->frag_more && (dlen % 8u != 0 || dlen == 0))) {
        /* RFC 8200 4.5: point at the payload length field */
        STAT(s, drop_frag_malformed);
        if (!rx->dst_multicast)
            icmpv6_send_error(s, nif->index, MIP_ICMPV6_PARAM_PROBLEM, 0, 4, pkt,
                              MIP_IPV6_HDR_LEN, pkt + MIP_IPV6_HDR_LEN,
                              len - MIP_IPV6_HDR_LEN, false);
        return;
    }
    if ((size_t)w->frag_offset + dlen > 65535u) {
        STAT(s, drop_frag_malformed);
        if (!rx->dst_multicast)
            icmpv6_send_error(s, nif->index, MIP_ICMPV6_PARAM_PROBLEM, 0,
                          (uint32_t)(w->frag_data_offset - MIP_IPV6_FRAG_HDR_LEN + 2u),
                          pkt, MIP_IPV6_HDR_LEN, pkt + MIP_IPV6_HDR_LEN,
                          len - MIP_IPV6_HDR_LEN, false);
        return;
    }
    if (w->frag_offset == 0 && !w->frag_more) {
        /* An atomic fragment (RFC 6946): process it on its own. */
        uint16_t frag_nh = (uint16_t)(w->frag_data_offset - MIP_IPV6_FRAG_HDR_LEN);
        mip_status st = mip_ipv6_walk_ext(pkt, len, w->frag_next, w->frag_data_offset,
                                          false, &inner);
        /* A walk started past the Fragment header reports the fixed header's
         * Next Header (6) for the protocol it started with; that one was
         * named by the Fragment header's Next Header byte. */
        if (inner.upper_nh_offset < w->frag_data_offset)
            inner.upper_nh_offset = frag_nh;
        if (inner.problem == MIP_IPV6_PROBLEM_NEXT_HEADER &&
            inner.problem_pointer < w->frag_data_offset)
            inner.problem_pointer = frag_nh;
        if (walk_failed(s, st) || ext_problem(s, nif->index, &inner, pkt, len, rx->dst_multicast))
            return;
        rx->proto = inner.upper_proto;
        rx->quote_len = inner.upper_offset;
        ip_deliver(s, rx, pkt + inner.upper_offset, len - inner.upper_offset,
                   inner.upper_nh_offset);
        return;
    }
    memset(&f, 0, sizeof(f));
    f.family = MIP_AF_INET6;
    f.proto = w->frag_next;
    f.netif = nif->index;
    f.ttl = rx->ttl;
    f.src = rx->src.bytes;
    f.dst = rx->dst.bytes;
    f.id = w->frag_id;
    f.offset = w->frag_offset;
    f.more = w->frag_more;
    f.group = rx->dst_multicast;
    f.data = pkt + w->frag_data_offset;
    f.len = (uint16_t)dlen;
    /* Keep the headers through the Fragment header: errors about this
     * datagram (reassembly time exceeded, port unreachable) quote them
     * before the data, and the source parses the quote by following the
     * Next Header chain. When they exceed the slot's copy, keep the fixed
     * header pointed straight at the Fragment header. */
    if (w->frag_data_offset <= sizeof(s->reass[0].hdr)) {
        f.hdr = pkt;
        f.hdr_len = (uint8_t)w->frag_data_offset;
    } else {
        memcpy(fhdr, pkt, MIP_IPV6_HDR_LEN);
        fhdr[6] = MIP_IPV6_NH_FRAGMENT;
        memcpy(fhdr + MIP_IPV6_HDR_LEN, pkt + w->frag_data_offset - MIP_IPV6_FRAG_HDR_LEN,
               MIP_IPV6_FRAG_HDR_LEN);
        f.hdr = fhdr;
        f.hdr_len = (uint8_t)sizeof(fhdr);
    }
    r = reass_add(s, &f);
    if (r == NULL)
        return;
    /* The fragmentable part may start with more extension headers. */
    if (walk_failed(s, mip_ipv6_walk_ext(r->data, r->total, r->proto, 0, false, &inner))) {
        /* counted */
    } else if (inner.problem != MIP_IPV6_PROBLEM_NONE ||
               inner.upper_proto == MIP_IPV6_NH_FRAGMENT) {
        STAT(s, drop_ipv6_ext_header);
    } else if (inner.upper_proto == MIP_IPV6_NH_IPV6 && ipv6_rpl_ext_on(s)) {
        /* the root fragments its tunnel's outer datagram when the inner
         * one fills the MTU (RFC 9008 7, RFC 2473 7.1) */
        STAT(s, rx_ipv6_decap);
        ipv6_input_at(s, nif, r->data + inner.upper_offset, r->total - inner.upper_offset,
                      false, true);
    } else {
        rx->proto = inner.upper_proto;
        rx->quote = r->hdr;
        rx->quote_len = r->hdr_len;
        /* The Next Header byte that named the upper protocol, counted in
         * the reassembled packet (headers through the Fragment header,
         * then the fragmentable part): for "unrecognized next header". */
        ip_deliver(s, rx, r->data + inner.upper_offset, r->total - inner.upper_offset,
                   (uint16_t)(inner.upper_offset == 0
                                  ? r->hdr_len - MIP_IPV6_FRAG_HDR_LEN
                                  : r->hdr_len + inner.upper_nh_offset));
    }
    reass_free(r);
}

void ipv6_input(struct mip_stack *s, struct mip_netif *nif, const uint8_t *pkt, size_t len,
                bool link_mcast)
{
    ipv6_input_at(s, nif, pkt, len, link_mcast, false);
}

/* `inner`: pkt came out of an IPv6-in-IPv6 tunnel ending here; one more
 * is not unwrapped. */
static void ipv6_input_at(struct mip_stack *s, struct mip_netif *nif, const uint8_t *pkt,
                          size_t len, bool link_mcast, bool inner)
{
    struct mip_ipv6_hdr h;
    struct mip_ipv6_walk w;
    struct mip_ip_rx rx;
    bool mcast = false, local, region = false;
    mip_status st;
    STAT(s, rx_ipv6);
    st = mip_ipv6_parse(pkt, len, &h);
    if (st != MIP_OK) {
        if (st == MIP_ERR_TRUNCATED)
            STAT(s, drop_ipv6_truncated);
        else
            STAT(s, drop_ipv6_malformed);
        return;
    }
    len = MIP_IPV6_HDR_LEN + (size_t)h.payload_len;
    if (ip6_is_multicast(h.src)) {
        STAT(s, drop_ipv6_bad_src);
        return;
    }
    memset(&rx, 0, sizeof(rx));
    /* mip_addr_set6's work in place (every datagram received) */
    rx.src.family = MIP_AF_INET6;
    memcpy(rx.src.bytes, h.src, 16);
    rx.dst.family = MIP_AF_INET6;
    memcpy(rx.dst.bytes, h.dst, 16);
    local = netif_accepts6(nif, h.dst, &mcast) || (!mcast && stack_is_own_addr(s, &rx.dst));
    /* a regional broadcast (geo.h) is delivered here and, like a
     * multicast, draws no ICMPv6 error */
    if (!local && !mcast && s->routing.ops->accepts != NULL &&
        s->routing.ops->accepts(s->routing.ctx, s, h.dst))
        local = region = true;
    if (s->routing.ops->rx_hook != NULL) {
        struct mip_routing_pkt err;
        enum mip_routing_verdict v;
        memset(&err, 0, sizeof(err));
        v = s->routing.ops->rx_hook(s->routing.ctx, s, nif->index, pkt, len, local, &err,
                                    s->now);
        if (v == MIP_ROUTING_DROP || v == MIP_ROUTING_ICMP)
            STAT(s, drop_routing);
        if (v == MIP_ROUTING_ICMP && !mcast && !link_mcast)
            icmpv6_send_error(s, nif->index, err.icmp_type, err.icmp_code, err.icmp_pointer,
                              pkt, MIP_IPV6_HDR_LEN, pkt + MIP_IPV6_HDR_LEN,
                              len - MIP_IPV6_HDR_LEN, false);
        if (v != MIP_ROUTING_PASS)
            return;
    }
    if (!local) {
#if MIP_CONF_FORWARD
        if (s->forwarding && !mcast && !link_mcast) {
            ipv6_forward(s, nif, pkt, len, &h);
            return;
        }
#endif
        (void)link_mcast;
        STAT(s, drop_ipv6_not_for_us);
        return;
    }
    rx.ttl = h.hop_limit;
    rx.netif = nif->index;
    /* RFC 4443 2.4(e.3): a link-layer multicast frame counts as multicast
     * for what errors it may draw. */
    rx.dst_multicast = mcast || link_mcast || region;
    rx.quote = pkt;
    /* No extension header (a TCP, UDP or ICMPv6 datagram as most are): the
     * walk would stop where it starts, with nothing to check. */
    if (!mip_ipv6_is_ext(h.next_header) && h.next_header != MIP_IPV6_NH_IPV6 &&
        len <= 0xFFFFu) {
        rx.proto = h.next_header;
        rx.quote_len = MIP_IPV6_HDR_LEN;
        ip_deliver(s, &rx, pkt + MIP_IPV6_HDR_LEN, len - MIP_IPV6_HDR_LEN, 6u);
        return;
    }
    st = mip_ipv6_walk_ext(pkt, len, h.next_header, MIP_IPV6_HDR_LEN, true, &w);
#if MIP_CONF_FORWARD && MIP_CONF_RPL_NON_STORING
    if (st == MIP_OK && w.srh_offset != 0u &&
        ipv6_srh_input(s, nif, pkt, len, &w, rx.dst_multicast))
        return;
#endif
    if (walk_failed(s, st) || ext_problem(s, nif->index, &w, pkt, len, rx.dst_multicast))
        return;
    if (ipv6_rpl_opt_refused(s, pkt, &w)) {
        STAT(s, drop_ipv6_ext_header);    /* as an unknown option, action 01 */
        return;
    }
    if (w.upper_proto == MIP_IPV6_NH_IPV6 && !inner && ipv6_rpl_ext_on(s)) {
        /* RFC 9008 7: the root tunnels to the node that ends a source
         * route; the inner datagram is processed as received here. */
        STAT(s, rx_ipv6_decap);
        ipv6_input_at(s, nif, pkt + w.upper_offset, len - w.upper_offset, false, true);
        return;
    }
    if (w.upper_proto == MIP_IPV6_NH_FRAGMENT) {
        rx.quote_len = MIP_IPV6_HDR_LEN;
        ipv6_fragment(s, nif, &rx, pkt, len, &w);
        return;
    }
    rx.proto = w.upper_proto;
    rx.quote_len = w.upper_offset;
    ip_deliver(s, &rx, pkt + w.upper_offset, len - w.upper_offset, w.upper_nh_offset);
}

#endif
