/* IP output for both families: route and source selection, header
 * construction, and fragmentation of datagrams larger than the link MTU. */
#include "core.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/bytes.h"
#include <string.h>

mip_status ip_send_datagram(struct mip_stack *s, struct mip_netif *nif, struct mip_pbuf *p,
                            const struct mip_addr *nexthop)
{
    if (nexthop->family == MIP_AF_INET)
        STAT(s, tx_ipv4);
    else
        STAT(s, tx_ipv6);
    return nif->ops->output(s, nif, p, nexthop);
}

/* Offers an IPv6 datagram in p to a routing driver's packet hook
 * (routing.h), which may edit it, its next hop and its netif. False when
 * the hook dropped it: p is freed (an ICMP error sent when asked). */
static bool ip_routing_hook(struct mip_stack *s, mip_routing_hook_fn fn, uint8_t in_netif,
                            struct mip_netif **nif, struct mip_addr *nexthop, struct mip_pbuf *p)
{
    struct mip_routing_pkt rp;
    enum mip_routing_verdict v;
    const uint8_t *pkt = mip_pbuf_payload(p);
    if (fn == NULL || p->len < MIP_IPV6_HDR_LEN || (pkt[0] >> 4) != 6u)
        return true;
    memset(&rp, 0, sizeof(rp));
    rp.p = p;
    rp.in_netif = in_netif;
    rp.out_netif = (*nif)->index;
    rp.nexthop = nexthop;
    if (pkt[6] == MIP_IPV6_NH_HOPOPTS)
        rp.hbh_off = MIP_IPV6_HDR_LEN;
    v = routing_hook(s, fn, &rp);
    if (v == MIP_ROUTING_PASS && (*nif = mip_netif_get(s, rp.out_netif)) != NULL)
        return true;
#if MIP_CONF_IPV6
    pkt = mip_pbuf_payload(p);
    if (v == MIP_ROUTING_ICMP && in_netif != MIP_NETIF_ANY && p->len >= MIP_IPV6_HDR_LEN)
        icmpv6_send_error(s, in_netif, rp.icmp_type, rp.icmp_code, rp.icmp_pointer, pkt,
                          MIP_IPV6_HDR_LEN, pkt + MIP_IPV6_HDR_LEN, p->len - MIP_IPV6_HDR_LEN,
                          false);
#endif
    mip_pbuf_free(&s->pool, p);
    return false;
}

/* A whole datagram this node originates leaves: the routing driver's
 * output hook, then the local hook see it first and may keep it
 * (mip_ip_set_local_hook). */
static mip_status ip_send_local(struct mip_stack *s, struct mip_netif *nif, struct mip_pbuf *p,
                                const struct mip_addr *nexthop_in)
{
    struct mip_addr nh = *nexthop_in;
    const struct mip_addr *nexthop = &nh;
    if (!ip_routing_hook(s, s->routing.ops->output_hook, MIP_NETIF_ANY, &nif, &nh, p))
        return MIP_OK;
#if MIP_CONF_FORWARD
    if (s->local_hook != NULL &&
        s->local_hook(s->local_hook_ctx, s, true, nif->index, mip_pbuf_payload(p), p->len) !=
            MIP_FWD_PASS) {
        mip_pbuf_free(&s->pool, p);
        return MIP_OK;
    }
#endif
    return ip_send_datagram(s, nif, p, nexthop);
}

/* Picks the outgoing netif and next hop. An explicit netif wins over the
 * route table (link-local and multicast destinations need one). */
static mip_status ip_route(struct mip_stack *s, const struct mip_addr *dst, uint8_t want,
                           struct mip_netif **nif, struct mip_addr *nexthop)
{
    uint8_t idx;
    mip_status st = route_lookup_out(s, dst, &idx, nexthop);
    if (want != MIP_NETIF_ANY) {
        if (st != MIP_OK || idx != want)
            *nexthop = *dst;
        idx = want;
    } else if (st != MIP_OK) {
        return MIP_ERR_NOROUTE;
    }
    /* A group is reached on-link, never through a gateway; so is a
     * link-local unicast address, all of fe80::/10 (RFC 4291 2.5.6: a
     * router may not forward it), not only the fe80::/64 a route may
     * cover (fuzz_lowpan_input: an echo reply to fe80:0:ff02::.. went to
     * the default router's link address). */
    if ((dst->family == MIP_AF_INET6 &&
         (ip6_is_multicast(dst->bytes) || ip6_is_linklocal(dst->bytes))) ||
        (dst->family == MIP_AF_INET &&
         (ip4_is_multicast(dst->bytes) || ip4_is_limited_bcast(dst->bytes))))
        *nexthop = *dst;
    *nif = mip_netif_get(s, idx);
    return *nif != NULL ? MIP_OK : MIP_ERR_NOROUTE;
}

static mip_status select_src_on(const struct mip_netif *nif, const struct mip_addr *dst,
                                struct mip_addr *src)
{
    unsigned i;
#if MIP_CONF_IPV4
    if (dst->family == MIP_AF_INET) {
        const struct mip_netif_addr4 *first = NULL;
        for (i = 0; i < MIP_NETIF_ADDR4_MAX; i++) {
            const struct mip_netif_addr4 *a = &nif->addr4[i];
            if (!a->used)
                continue;
            if (first == NULL)
                first = a;
            if (mip_addr_prefix_eq(a->addr, dst->bytes, a->prefix_len)) {
                first = a;
                break;
            }
        }
        if (first == NULL)
            return MIP_ERR_NOROUTE;
        mip_addr_set4(src, first->addr);
        return MIP_OK;
    }
#endif
#if MIP_CONF_IPV6
    if (dst->family == MIP_AF_INET6) {
        const struct mip_netif_addr6 *pick = NULL;
        if (!ip6_is_link_scoped(dst->bytes)) {
            for (i = 1; i <= MIP_NETIF_ADDR6_MAX; i++) {
                const struct mip_netif_addr6 *a = &nif->addr6[i];
                bool a_dep = (a->used & MIP_NETIF_ADDR_DEPRECATED) != 0;
                bool p_dep = pick != NULL && (pick->used & MIP_NETIF_ADDR_DEPRECATED) != 0;
                if (!a->used)
                    continue;
                /* RFC 6724: avoid deprecated addresses (rule 3) before
                 * matching the prefix (rule 8). */
                if (pick == NULL || (p_dep && !a_dep) ||
                    (p_dep == a_dep && mip_addr_prefix_eq(a->addr, dst->bytes, a->prefix_len)))
                    pick = a;
            }
        }
        if (pick == NULL && nif->addr6[0].used)
            pick = &nif->addr6[0];
        if (pick == NULL)
            return MIP_ERR_NOROUTE;
        mip_addr_set6(src, pick->addr);
        return MIP_OK;
    }
#endif
    (void)i; (void)nif; (void)src;
    return MIP_ERR_NOROUTE;
}

mip_status mip_ip_select_src(struct mip_stack *s, const struct mip_addr *dst,
                             uint8_t netif, struct mip_addr *src)
{
    struct mip_netif *nif;
    struct mip_addr nexthop;
    mip_status st = ip_route(s, dst, netif, &nif, &nexthop);
    if (st != MIP_OK)
        return st;
    return select_src_on(nif, dst, src);
}

/* Everything needed to emit the IP header(s) of one datagram. */
struct ip_plan {
    struct mip_netif *nif;
    struct mip_addr nexthop;
    struct mip_addr src;
    struct mip_addr dst;
    uint8_t  proto;
    uint8_t  ttl;
    uint8_t  tos;
    bool     df;
    uint16_t id4;
    uint32_t id6;
    uint16_t frag_base;   /* offset of this datagram's data (re-fragmenting) */
    bool     more_after;  /* MF of the datagram being re-fragmented */
};

/* Writes the IP header (and IPv6 fragment header when fragmenting) for a
 * piece of `len` upper-layer bytes at `offset`; returns its length. */
static size_t plan_header(const struct ip_plan *pl, uint8_t *buf, size_t cap, size_t len,
                          uint16_t offset, bool more, bool fragmented)
{
#if MIP_CONF_IPV4
    if (pl->dst.family == MIP_AF_INET) {
        struct mip_ipv4_hdr h;
        memset(&h, 0, sizeof(h));
        h.tos = pl->tos;
        h.total_len = (uint16_t)(MIP_IPV4_HDR_LEN + len);
        h.id = pl->id4;
        h.flags = (uint8_t)((pl->df ? MIP_IPV4_FLAG_DF : 0u) | (more ? MIP_IPV4_FLAG_MF : 0u));
        h.frag_offset = offset;
        h.ttl = pl->ttl;
        h.proto = pl->proto;
        memcpy(h.src, pl->src.bytes, 4);
        memcpy(h.dst, pl->dst.bytes, 4);
        return mip_ipv4_emit(&h, buf, cap) == MIP_OK ? MIP_IPV4_HDR_LEN : 0;
    }
#endif
#if MIP_CONF_IPV6
    {
        struct mip_ipv6_hdr h;
        size_t extra = fragmented ? MIP_IPV6_FRAG_HDR_LEN : 0;
        memset(&h, 0, sizeof(h));
        h.traffic_class = pl->tos;
        h.payload_len = (uint16_t)(extra + len);
        h.next_header = fragmented ? MIP_IPV6_NH_FRAGMENT : pl->proto;
        h.hop_limit = pl->ttl;
        memcpy(h.src, pl->src.bytes, 16);
        memcpy(h.dst, pl->dst.bytes, 16);
        if (mip_ipv6_emit(&h, buf, cap) != MIP_OK)
            return 0;
        if (fragmented &&
            mip_ipv6_frag_emit(pl->proto, offset, more, pl->id6, buf + MIP_IPV6_HDR_LEN,
                               cap - MIP_IPV6_HDR_LEN) != MIP_OK)
            return 0;
        return MIP_IPV6_HDR_LEN + extra;
    }
#else
    (void)fragmented;
    return 0;
#endif
}

/* Copies bytes [off, off+n) of the concatenation a|b to dst. */
static void copy_range(uint8_t *dst, const uint8_t *a, size_t alen,
                       const uint8_t *b, size_t off, size_t n)
{
    if (off < alen) {
        size_t k = alen - off < n ? alen - off : n;
        memcpy(dst, a + off, k);
        dst += k;
        n -= k;
        off = alen;
    }
    if (n > 0)
        memcpy(dst, b + (off - alen), n);
}

/* Sends the upper-layer bytes a|b as one datagram or as fragments. */
static mip_status plan_send(struct mip_stack *s, const struct ip_plan *pl,
                            const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t total = alen + blen;
    size_t hdr = pl->dst.family == MIP_AF_INET ? MIP_IPV4_HDR_LEN : MIP_IPV6_HDR_LEN;
    size_t mtu = pl->nif->mtu, chunk, off;
    uint16_t headroom = pl->nif->ops->link_hdr_len;
    bool fragmented = pl->frag_base != 0 || pl->more_after || hdr + total > mtu;
    mip_status first = MIP_OK;
    if (!fragmented) {
        chunk = total;
    } else {
        if (pl->df) {
            STAT(s, drop_ip_too_big);
            return MIP_ERR_NOSPACE;
        }
        if (pl->dst.family == MIP_AF_INET6)
            hdr += MIP_IPV6_FRAG_HDR_LEN;
        chunk = ((mtu - hdr) / 8u) * 8u;
    }
    if ((size_t)pl->frag_base + total > 65535u) {
        STAT(s, drop_ip_too_big);
        return MIP_ERR_INVALID;
    }
    off = 0;
    do {
        size_t n = total - off < chunk ? total - off : chunk;
        bool more = off + n < total || pl->more_after;
        struct mip_pbuf *p = mip_pbuf_alloc(&s->pool, headroom);
        uint8_t *w;
        size_t h;
        mip_status st;
        if (p == NULL || (w = mip_pbuf_put(p, (uint16_t)(hdr + n))) == NULL) {
            mip_pbuf_free(&s->pool, p);
            STAT(s, drop_tx_no_pbuf);
            return off == 0 ? MIP_ERR_NOBUFS : first;
        }
        h = plan_header(pl, w, hdr + n, n, (uint16_t)(pl->frag_base + off), more, fragmented);
        copy_range(w + h, a, alen, b, off, n);
        if (fragmented)
            STAT(s, frag_tx);
        /* unfragmented here means originated here: forwarded datagrams
         * come through plan_send only to be re-fragmented */
        st = fragmented ? ip_send_datagram(s, pl->nif, p, &pl->nexthop)
                        : ip_send_local(s, pl->nif, p, &pl->nexthop);
        if (off == 0)
            first = st;
        off += n;
    } while (off < total);
    return first;
}

static mip_status plan_init(struct mip_stack *s, const struct mip_ip_tx *tx, struct ip_plan *pl)
{
    mip_status st;
    memset(pl, 0, sizeof(*pl));
    if ((tx->dst.family == MIP_AF_INET && !MIP_CONF_IPV4) ||
        (tx->dst.family == MIP_AF_INET6 && !MIP_CONF_IPV6) ||
        (tx->dst.family != MIP_AF_INET && tx->dst.family != MIP_AF_INET6))
        return MIP_ERR_INVALID;
    /* The unspecified address names no destination (RFC 4291 2.5.2,
     * RFC 1122 3.2.1.3): e.g. an echo request from :: gets no reply. */
    if ((tx->dst.family == MIP_AF_INET6 && ip6_is_unspecified(tx->dst.bytes)) ||
        (tx->dst.family == MIP_AF_INET && tx->dst.bytes[0] == 0 && tx->dst.bytes[1] == 0 &&
         tx->dst.bytes[2] == 0 && tx->dst.bytes[3] == 0)) {
        STAT(s, drop_ip_martian);
        return MIP_ERR_INVALID;
    }
    st = ip_route(s, &tx->dst, tx->netif, &pl->nif, &pl->nexthop);
    if (st != MIP_OK) {
        STAT(s, drop_ip_no_route);
        return st;
    }
    if (tx->src.family == MIP_AF_NONE) {
        st = select_src_on(pl->nif, &tx->dst, &pl->src);
        if (st != MIP_OK) {
            STAT(s, drop_ip_no_route);
            return st;
        }
    } else if (tx->src.family != tx->dst.family) {
        return MIP_ERR_INVALID;
    } else {
        pl->src = tx->src;
    }
    pl->dst = tx->dst;
    pl->proto = tx->proto;
    pl->ttl = tx->ttl != 0 ? tx->ttl : s->default_ttl;
    pl->tos = tx->tos;
    pl->df = tx->dont_fragment;
    pl->id4 = s->ipv4_next_id++;
    pl->id6 = s->ipv6_next_frag_id++;
    return MIP_OK;
}

static mip_status ip_output_chunks(struct mip_stack *s, const struct mip_ip_tx *tx,
                                   const uint8_t *a, size_t alen,
                                   const uint8_t *b, size_t blen)
{
    struct ip_plan pl;
    mip_status st = plan_init(s, tx, &pl);
    if (st != MIP_OK)
        return st;
    return plan_send(s, &pl, a, alen, b, blen);
}

mip_status mip_ip_output_copy(struct mip_stack *s, const struct mip_ip_tx *tx,
                              const uint8_t *l4, size_t len)
{
    return ip_output_chunks(s, tx, l4, len, NULL, 0);
}

mip_status ip_output_gather(struct mip_stack *s, const struct mip_ip_tx *tx,
                            const uint8_t *hdr, size_t hdr_len,
                            const uint8_t *data, size_t data_len)
{
    return ip_output_chunks(s, tx, hdr, hdr_len, data, data_len);
}

mip_status mip_ip_output(struct mip_stack *s, const struct mip_ip_tx *tx, struct mip_pbuf *p)
{
    struct ip_plan pl;
    size_t hdr;
    uint8_t *w;
    mip_status st;
#if MIP_CONF_IPV6
    /* The common case (TCP's segments and ACKs, UDP with a bound source):
     * IPv6 with the source given, fitting the MTU and the headroom. The
     * same checks, route, ids and header as the plan below, without the
     * plan's copies of the addresses and header. */
    if (tx->dst.family == MIP_AF_INET6 && tx->src.family == MIP_AF_INET6 &&
        tx->netif == MIP_NETIF_ANY && !ip6_is_multicast(tx->dst.bytes) &&
        !ip6_is_linklocal(tx->dst.bytes) &&
        (tx->dst.bytes[0] != 0 || !ip6_is_unspecified(tx->dst.bytes))) {
        /* ip_route's work for a routed unicast destination */
        struct mip_netif *nif;
        struct mip_addr nexthop;
        size_t len = p->len;
        uint8_t idx;
        if (route_lookup_out(s, &tx->dst, &idx, &nexthop) == MIP_OK &&
            (nif = mip_netif_get(s, idx)) != NULL &&
            MIP_IPV6_HDR_LEN + len <= nif->mtu &&
            p->off >= MIP_IPV6_HDR_LEN + nif->ops->link_hdr_len) {
            s->ipv4_next_id++;          /* as plan_init: every datagram takes both */
            s->ipv6_next_frag_id++;
            w = mip_pbuf_push(p, MIP_IPV6_HDR_LEN);
            mip_ipv6_emit_fields(w, tx->tos, (uint16_t)len, tx->proto,
                                 tx->ttl != 0 ? tx->ttl : s->default_ttl, tx->src.bytes,
                                 tx->dst.bytes);
            return ip_send_local(s, nif, p, &nexthop);
        }
    }
#endif
    st = plan_init(s, tx, &pl);
    if (st != MIP_OK) {
        mip_pbuf_free(&s->pool, p);
        return st;
    }
    hdr = pl.dst.family == MIP_AF_INET ? MIP_IPV4_HDR_LEN : MIP_IPV6_HDR_LEN;
    /* In place when it fits the MTU and the headroom; otherwise through the
     * copying path, which fragments. */
    if (hdr + p->len <= pl.nif->mtu && p->off >= hdr + pl.nif->ops->link_hdr_len) {
        size_t len = p->len;
        w = mip_pbuf_push(p, (uint16_t)hdr);
        (void)plan_header(&pl, w, hdr, len, 0, false, false);
        return ip_send_local(s, pl.nif, p, &pl.nexthop);
    }
    st = plan_send(s, &pl, mip_pbuf_payload(p), p->len, NULL, 0);
    mip_pbuf_free(&s->pool, p);
    return st;
}

#if MIP_CONF_FORWARD
struct mip_pbuf *ip_forward_copy(struct mip_stack *s, struct mip_netif *out,
                                 const uint8_t *pkt, size_t len)
{
    struct mip_pbuf *p = mip_pbuf_alloc(&s->pool, out->ops->link_hdr_len);
    uint8_t *w;
    if (p == NULL || len > 0xFFFFu || (w = mip_pbuf_put(p, (uint16_t)len)) == NULL) {
        mip_pbuf_free(&s->pool, p);
        STAT(s, drop_tx_no_pbuf);
        return NULL;
    }
    memcpy(w, pkt, len);
    return p;
}

mip_status mip_ip_send_raw(struct mip_stack *s, const uint8_t *pkt, size_t len)
{
    struct mip_addr dst, nexthop;
    struct mip_netif *nif;
    struct mip_pbuf *p;
    mip_status st;

    memset(&dst, 0, sizeof(dst));
#if MIP_CONF_IPV4
    if (len >= MIP_IPV4_HDR_LEN && (pkt[0] >> 4) == 4u) {
        struct mip_ipv4_hdr h;
        if (mip_ipv4_parse(pkt, len, &h) != MIP_OK || h.total_len != len)
            return MIP_ERR_INVALID;
        mip_addr_set4(&dst, h.dst);
    } else
#endif
#if MIP_CONF_IPV6
    if (len >= MIP_IPV6_HDR_LEN && (pkt[0] >> 4) == 6u) {
        if ((size_t)mip_rd16(pkt + 4) + MIP_IPV6_HDR_LEN != len)
            return MIP_ERR_INVALID;
        mip_addr_set6(&dst, pkt + 24);
    } else
#endif
    {
        return MIP_ERR_INVALID;
    }
    st = ip_route(s, &dst, MIP_NETIF_ANY, &nif, &nexthop);
    if (st != MIP_OK)
        return st;
#if MIP_CONF_IPV6
    /* A source-routed datagram (a relay's copy of one that passed here on
     * an RPL source route, RFC 6554 4.2) names its next hop itself: the
     * Destination Address is the route's next address, a neighbour on
     * the link (strict source routing). The routes would send it up to
     * the parent instead: a non-storing node has no route down. */
    if (dst.family == MIP_AF_INET6 && mip_ipv6_routing_offset(pkt, len) != 0u)
        nexthop = dst;
#endif
    if (len > nif->mtu)
        return MIP_ERR_NOSPACE;
    p = ip_forward_copy(s, nif, pkt, len);
    if (p == NULL)
        return MIP_ERR_NOBUFS;
    return ip_send_datagram(s, nif, p, &nexthop);
}

mip_status ip_forward_send(struct mip_stack *s, uint8_t in_netif, struct mip_netif *out,
                           const struct mip_addr *nexthop, struct mip_pbuf *p)
{
    struct ip_plan pl;
    const uint8_t *pkt = mip_pbuf_payload(p);
    mip_status st;
    struct mip_addr nh = *nexthop;
    if (!ip_routing_hook(s, s->routing.ops->forward_hook, in_netif, &out, &nh, p))
        return MIP_OK;
    nexthop = &nh;
    pkt = mip_pbuf_payload(p);
    if (s->fwd_hook != NULL) {
        enum mip_fwd_verdict v = s->fwd_hook(s->fwd_hook_ctx, s, in_netif, out->index,
                                             mip_pbuf_payload(p), p->len);
        if (v != MIP_FWD_PASS) {
            if (v == MIP_FWD_DROP)
                STAT(s, drop_fwd_hook);
            mip_pbuf_free(&s->pool, p);
            return MIP_OK;
        }
    }
    STAT(s, ip_forwarded);
    if (p->len <= out->mtu)
        return ip_send_datagram(s, out, p, nexthop);
#if MIP_CONF_IPV4
    if ((pkt[0] >> 4) == 4) {
        /* Re-fragment: the header was validated on input; options are not
         * copied into the fragments (RFC 791 allows that for most). */
        struct mip_ipv4_hdr h;
        if (mip_ipv4_parse(pkt, p->len, &h) == MIP_OK && !(h.flags & MIP_IPV4_FLAG_DF)) {
            memset(&pl, 0, sizeof(pl));
            pl.nif = out;
            pl.nexthop = *nexthop;
            mip_addr_set4(&pl.src, h.src);
            mip_addr_set4(&pl.dst, h.dst);
            pl.proto = h.proto;
            pl.ttl = h.ttl;
            pl.tos = h.tos;
            pl.id4 = h.id;
            pl.frag_base = h.frag_offset;
            pl.more_after = (h.flags & MIP_IPV4_FLAG_MF) != 0;
            st = plan_send(s, &pl, pkt + h.hdr_len, (size_t)h.total_len - h.hdr_len, NULL, 0);
            mip_pbuf_free(&s->pool, p);
            return st;
        }
    }
#endif
    (void)pl; (void)st;
    mip_pbuf_free(&s->pool, p);
    STAT(s, drop_ip_too_big);
    return MIP_ERR_NOSPACE;
}
#endif
