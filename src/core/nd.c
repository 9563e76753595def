/* IPv6 Neighbor Discovery (RFC 4861): answer solicitations for our
 * addresses, learn link addresses, and resolve next hops for neigh.c.
 * Router and prefix discovery, redirects and DAD are not done here. */
#include "core.h"
#include "moteip/wire/icmpv6.h"
#include "moteip/wire/ipv4.h"
#include <string.h>

#if MIP_CONF_IPV6

mip_status nd_send(struct mip_stack *s, struct mip_netif *nif, const struct mip_addr *src,
                          const struct mip_addr *dst, uint8_t *msg, size_t len)
{
    struct mip_ip_tx tx;
    memset(&tx, 0, sizeof(tx));
    if (src != NULL)
        tx.src = *src;
    tx.dst = *dst;
    tx.proto = MIP_IPPROTO_ICMPV6;
    tx.ttl = 255;               /* RFC 4861 7.1: receivers check it */
    tx.netif = nif->index;
    return icmpv6_output(s, &tx, msg, len, NULL, 0);
}

static void nd_handle_ns(struct mip_stack *s, struct mip_netif *nif, const struct mip_ip_rx *rx,
                         const struct mip_nd_msg *m, const uint8_t *slla)
{
    struct mip_addr target, dst;
    uint8_t buf[MIP_ND_NA_LEN + 16];
    size_t len;
    uint8_t flags = MIP_ND_NA_FLAG_OVERRIDE;
    bool from_unspecified = ip6_is_unspecified(rx->src.bytes);
    mip_addr_set6(&target, m->target);
    if (ip6_is_multicast(m->target) || (from_unspecified && slla != NULL) ||
        (from_unspecified && !ip6_is_multicast(rx->dst.bytes))) {
        STAT(s, drop_nd_malformed);
        return;
    }
    if (!mip_netif_has_addr(nif, &target))
        return;   /* not ours: nothing to do (counted in nd_rx) */
#if MIP_CONF_ETHERNET
    if (slla != NULL && nif->hwaddr_len == 6)
        neigh_learn(s, nif, MIP_AF_INET6, rx->src.bytes, slla, true, false);
#endif
    if (from_unspecified) {
        /* A DAD probe for our address: tell all nodes it is taken. */
        static const uint8_t all_nodes[16] = {0xFF, 0x02, 0, 0, 0, 0, 0, 0,
                                              0, 0, 0, 0, 0, 0, 0, 1};
        mip_addr_set6(&dst, all_nodes);
    } else {
        dst = rx->src;
        flags |= MIP_ND_NA_FLAG_SOLICITED;
    }
    if (mip_nd_emit_na(m->target, flags, nif->hwaddr, nif->hwaddr_len, buf, sizeof(buf),
                       &len) != MIP_OK)
        return;
    if (nd_send(s, nif, &target, &dst, buf, len) == MIP_OK)
        STAT(s, nd_na_tx);
}

static void nd_handle_na(struct mip_stack *s, struct mip_netif *nif, const struct mip_ip_rx *rx,
                         const struct mip_nd_msg *m, const uint8_t *tlla)
{
    if (ip6_is_multicast(m->target) ||
        (rx->dst_multicast && (m->na_flags & MIP_ND_NA_FLAG_SOLICITED))) {
        STAT(s, drop_nd_malformed);
        return;
    }
#if MIP_CONF_ETHERNET
    if (tlla != NULL && nif->hwaddr_len == 6)
        neigh_learn(s, nif, MIP_AF_INET6, m->target, tlla, false,
                    (m->na_flags & MIP_ND_NA_FLAG_SOLICITED) != 0);
#else
    (void)s; (void)nif; (void)tlla;
#endif
}

void nd_input(struct mip_stack *s, struct mip_netif *nif, const struct mip_ip_rx *rx,
              const uint8_t *msg, size_t len)
{
    struct mip_nd_msg m;
    struct mip_nd_opt_iter it;
    struct mip_nd_opt opt;
    const uint8_t *lladdr = NULL;
    /* RFC 4861 7.1.1/7.1.2: hop limit 255 proves the sender is on-link. */
    if (rx->ttl != 255 || mip_nd_parse(msg, len, &m) != MIP_OK) {
        STAT(s, drop_nd_malformed);
        return;
    }
    STAT(s, nd_rx);
#if MIP_CONF_ND6LO
    if (nd6lo_input(s, nif, rx, &m))
        return;
#endif
    mip_nd_opt_iter_init(&it, m.opts, m.opts_len);
    while (mip_nd_opt_next(&it, &opt) == MIP_OK) {
        bool want = (m.type == MIP_ICMPV6_NS && opt.type == MIP_ND_OPT_SLLA) ||
                    (m.type == MIP_ICMPV6_NA && opt.type == MIP_ND_OPT_TLLA);
        if (want && opt.len >= 6)
            lladdr = opt.data;
    }
    switch (m.type) {
    case MIP_ICMPV6_NS:
        nd_handle_ns(s, nif, rx, &m, lladdr);
        break;
    case MIP_ICMPV6_NA:
        nd_handle_na(s, nif, rx, &m, lladdr);
        break;
    default:
        STAT(s, drop_icmp_unhandled);   /* RS, RA, Redirect: no router support */
        break;
    }
}

mip_status nd_solicit(struct mip_stack *s, struct mip_netif *nif, const uint8_t target[16],
                      const uint8_t *dst_hw)
{
    struct mip_addr dst, t, src;
    uint8_t buf[MIP_ND_NS_LEN + 16];
    size_t len;
    mip_status st;
    mip_addr_set6(&t, target);
    if (dst_hw != NULL) {
        dst = t;     /* unicast re-confirmation: neigh.c sends to its entry */
    } else {
        uint8_t group[16] = {0xFF, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xFF, 0, 0, 0};
        memcpy(group + 13, target + 13, 3);
        mip_addr_set6(&dst, group);
    }
    st = mip_ip_select_src(s, &t, nif->index, &src);
    if (st != MIP_OK)
        return st;
    st = mip_nd_emit_ns(target, nif->hwaddr, nif->hwaddr_len, buf, sizeof(buf), &len);
    if (st != MIP_OK)
        return st;
    st = nd_send(s, nif, &src, &dst, buf, len);
    if (st == MIP_OK || st == MIP_ERR_PENDING)
        STAT(s, nd_ns_tx);
    return st;
}

#endif
