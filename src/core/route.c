/* Longest-prefix-match route table: a linear scan over a small array. */
#include "core.h"
#include <string.h>

static bool prefix_valid(const struct mip_addr *prefix, uint8_t prefix_len)
{
    return (prefix->family == MIP_AF_INET && prefix_len <= 32) ||
           (prefix->family == MIP_AF_INET6 && prefix_len <= 128);
}

static struct mip_route *route_find_exact(struct mip_stack *s, const struct mip_addr *prefix,
                                          uint8_t prefix_len)
{
    unsigned i;
    for (i = 0; i < MIP_ROUTE_MAX; i++) {
        struct mip_route *r = &s->route[i];
        if (r->prefix.family == prefix->family && r->prefix_len == prefix_len &&
            mip_addr_prefix_eq(r->prefix.bytes, prefix->bytes, prefix_len))
            return r;
    }
    return NULL;
}

mip_status mip_route_add(struct mip_stack *s, const struct mip_addr *prefix,
                         uint8_t prefix_len, const struct mip_addr *gateway, uint8_t netif)
{
    struct mip_route *r;
    unsigned i;
    if (!prefix_valid(prefix, prefix_len) || netif >= MIP_NETIF_MAX ||
        s->netif[netif].ops == NULL ||
        (gateway != NULL && gateway->family != prefix->family))
        return MIP_ERR_INVALID;
    r = route_find_exact(s, prefix, prefix_len);
    for (i = 0; r == NULL && i < MIP_ROUTE_MAX; i++)
        if (s->route[i].prefix.family == MIP_AF_NONE)
            r = &s->route[i];
    if (r == NULL)
        return MIP_ERR_NOBUFS;
    s->route_hit_dst.family = MIP_AF_NONE;
    if ((unsigned)(r - s->route) >= s->route_end)
        s->route_end = (uint8_t)(r - s->route + 1);
    memset(r, 0, sizeof(*r));
    r->prefix = *prefix;
    /* Store the prefix with host bits cleared so lookups and equality
     * compare only what matters. */
    for (i = prefix_len; i < mip_addr_len(prefix->family) * 8u; i++)
        r->prefix.bytes[i / 8u] &= (uint8_t)~(0x80u >> (i % 8u));
    r->prefix_len = prefix_len;
    if (gateway != NULL)
        r->gateway = *gateway;
    r->netif = netif;
    return MIP_OK;
}

mip_status mip_route_remove(struct mip_stack *s, const struct mip_addr *prefix,
                            uint8_t prefix_len)
{
    struct mip_route *r = route_find_exact(s, prefix, prefix_len);
    if (r == NULL)
        return MIP_ERR_NOTFOUND;
    memset(r, 0, sizeof(*r));
    s->route_hit_dst.family = MIP_AF_NONE;
    while (s->route_end > 0u && s->route[s->route_end - 1u].prefix.family == MIP_AF_NONE)
        s->route_end--;
    return MIP_OK;
}

/* The longest matching route's slot, or NULL. */
static const struct mip_route *route_best(const struct mip_stack *s, const struct mip_addr *dst)
{
    const struct mip_route *best = NULL;
    unsigned i;
    /* Only up to the last entry in use: every datagram sent comes here, and
     * a table mostly holds a few routes at its start. */
    for (i = 0; i < s->route_end && i < MIP_ROUTE_MAX; i++) {
        const struct mip_route *r = &s->route[i];
        if (r->prefix.family != dst->family ||
            !mip_addr_prefix_eq(r->prefix.bytes, dst->bytes, r->prefix_len))
            continue;
        if (best == NULL || r->prefix_len > best->prefix_len)
            best = r;
    }
    return best;
}

static mip_status route_answer(const struct mip_route *r, const struct mip_addr *dst,
                               uint8_t *netif, struct mip_addr *nexthop)
{
    if (r == NULL)
        return MIP_ERR_NOROUTE;
    *netif = r->netif;
    *nexthop = r->gateway.family != MIP_AF_NONE ? r->gateway : *dst;
    return MIP_OK;
}

mip_status mip_route_table_lookup(const struct mip_stack *s, const struct mip_addr *dst,
                            uint8_t *netif, struct mip_addr *nexthop)
{
    return route_answer(route_best(s, dst), dst, netif, nexthop);
}

mip_status route_lookup_out(struct mip_stack *s, const struct mip_addr *dst, uint8_t *netif,
                            struct mip_addr *nexthop)
{
    const struct mip_routing_ops *o = s->routing.ops;
    const struct mip_route *r;
    /* Only the table's answer is kept: a routing driver's depends on state
     * of its own that changes without telling core. */
    if (o != NULL && o->next_hop != NULL && o != &mip_routing_static)
        return mip_route_lookup(s, dst, netif, nexthop);
    /* compared in place: every datagram sent comes here */
    if (s->route_hit_dst.family == dst->family && dst->family != MIP_AF_NONE &&
        memcmp(s->route_hit_dst.bytes, dst->bytes, 16) == 0) {
        r = &s->route[s->route_hit];
    } else {
        r = route_best(s, dst);
        if (r != NULL) {
            s->route_hit = (uint8_t)(r - s->route);
            s->route_hit_dst = *dst;
        }
    }
    return route_answer(r, dst, netif, nexthop);
}
