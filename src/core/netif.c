/* Netif table, addresses, and "is this datagram for us" predicates. */
#include "core.h"
#include "moteip/wire/bytes.h"
#include <string.h>

struct mip_netif *netif_alloc(struct mip_stack *s)
{
    uint8_t i;
    for (i = 0; i < MIP_NETIF_MAX; i++) {
        struct mip_netif *nif = &s->netif[i];
        if (nif->ops == NULL) {
            memset(nif, 0, sizeof(*nif));
            nif->index = i;
            return nif;
        }
    }
    return NULL;
}

struct mip_netif *mip_netif_get(struct mip_stack *s, uint8_t index)
{
    if (index >= MIP_NETIF_MAX || s->netif[index].ops == NULL)
        return NULL;
    return &s->netif[index];
}

void netif_set_linklocal(struct mip_netif *nif, const uint8_t iid[8])
{
#if MIP_CONF_IPV6
    struct mip_netif_addr6 *ll = &nif->addr6[0];
    memset(ll->addr, 0, 16);
    ll->addr[0] = 0xFE;
    ll->addr[1] = 0x80;
    memcpy(ll->addr + 8, iid, 8);
    ll->prefix_len = 64;
    ll->used = 1;
#else
    (void)nif;
    (void)iid;
#endif
}

mip_status mip_netif_add_addr(struct mip_stack *s, uint8_t index,
                              const struct mip_addr *addr, uint8_t prefix_len)
{
    struct mip_netif *nif = mip_netif_get(s, index);
    unsigned i;
    if (nif == NULL)
        return MIP_ERR_INVALID;
#if MIP_CONF_IPV4
    if (addr->family == MIP_AF_INET) {
        if (prefix_len > 32 || ip4_is_multicast(addr->bytes) || ip4_is_limited_bcast(addr->bytes))
            return MIP_ERR_INVALID;
        for (i = 0; i < MIP_NETIF_ADDR4_MAX; i++) {
            struct mip_netif_addr4 *a = &nif->addr4[i];
            if (a->used)
                continue;
            memcpy(a->addr, addr->bytes, 4);
            a->prefix_len = prefix_len;
            a->used = 1;
            return mip_route_add(s, addr, prefix_len, NULL, index);
        }
        return MIP_ERR_NOBUFS;
    }
#endif
#if MIP_CONF_IPV6
    if (addr->family == MIP_AF_INET6) {
        if (prefix_len > 128 || ip6_is_multicast(addr->bytes) || ip6_is_unspecified(addr->bytes))
            return MIP_ERR_INVALID;
        if (netif_put_addr6(nif, addr->bytes, prefix_len) == 0)
            return MIP_ERR_NOBUFS;
        return mip_route_add(s, addr, prefix_len, NULL, index);
    }
#endif
    (void)i;
    return MIP_ERR_INVALID;
}

#if MIP_CONF_IPV6
uint8_t netif_put_addr6(struct mip_netif *nif, const uint8_t addr[16], uint8_t prefix_len)
{
    uint8_t i;
    for (i = 1; i <= MIP_NETIF_ADDR6_MAX; i++) {
        struct mip_netif_addr6 *a = &nif->addr6[i];
        if (a->used)
            continue;
        memcpy(a->addr, addr, 16);
        a->prefix_len = prefix_len;
        a->used = 1;
        return i;
    }
    return 0;
}
#endif

bool ip6_is_unspecified(const uint8_t *a)
{
    unsigned i;
    for (i = 0; i < 16; i++)
        if (a[i] != 0)
            return false;
    return true;
}

bool ip6_is_loopback(const uint8_t *a)
{
    unsigned i;
    for (i = 0; i < 15; i++)
        if (a[i] != 0)
            return false;
    return a[15] == 1;
}

bool netif_accepts4(const struct mip_netif *nif, const uint8_t dst[4], bool *bcast)
{
#if MIP_CONF_IPV4
    unsigned i;
    *bcast = true;
    if (ip4_is_limited_bcast(dst))
        return true;
    /* 224.0.0.1, all systems: every host is a member (RFC 1112) */
    if (dst[0] == 224 && dst[1] == 0 && dst[2] == 0 && dst[3] == 1)
        return true;
    for (i = 0; i < MIP_NETIF_ADDR4_MAX; i++) {
        const struct mip_netif_addr4 *a = &nif->addr4[i];
        uint32_t addr, d, host;
        if (!a->used)
            continue;
        addr = mip_rd32(a->addr);
        d = mip_rd32(dst);
        if (addr == d) {
            *bcast = false;
            return true;
        }
        host = a->prefix_len >= 31 ? 0 : (0xFFFFFFFFu >> a->prefix_len);
        if (host != 0 && (d & ~host) == (addr & ~host) && (d & host) == host)
            return true;
    }
#else
    (void)nif; (void)dst; (void)bcast;
#endif
    return false;
}

bool netif_accepts6(const struct mip_netif *nif, const uint8_t dst[16], bool *mcast)
{
#if MIP_CONF_IPV6
    static const uint8_t all_nodes[16] = {0xFF, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    static const uint8_t solicited[13] = {0xFF, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xFF};
    unsigned i;
    *mcast = ip6_is_multicast(dst);
    /* all-nodes, and all-RPL-nodes (ff02::1a, RFC 6550 20.19): a node
     * without a RPL driver counts what comes there as unhandled ICMPv6 */
    if (*mcast && memcmp(dst, all_nodes, 15) == 0 && (dst[15] == 1 || dst[15] == 0x1A))
        return true;
#if MIP_CONF_ND6LO
    /* ff02::2, all routers: a 6LoWPAN-ND router's radio netif */
    if (*mcast && nif->lowpan.nd_router && memcmp(dst, all_nodes, 15) == 0 && dst[15] == 2)
        return true;
#endif
    for (i = 0; i <= MIP_NETIF_ADDR6_MAX; i++) {
        const struct mip_netif_addr6 *a = &nif->addr6[i];
        if (!a->used)
            continue;
        if (!*mcast && memcmp(a->addr, dst, 16) == 0)
            return true;
        if (*mcast && memcmp(dst, solicited, 13) == 0 && memcmp(dst + 13, a->addr + 13, 3) == 0)
            return true;
    }
#else
    (void)nif; (void)dst; (void)mcast;
#endif
    return false;
}

bool mip_netif_has_addr(const struct mip_netif *nif, const struct mip_addr *addr)
{
    unsigned i;
#if MIP_CONF_IPV4
    if (addr->family == MIP_AF_INET)
        for (i = 0; i < MIP_NETIF_ADDR4_MAX; i++)
            if (nif->addr4[i].used && memcmp(nif->addr4[i].addr, addr->bytes, 4) == 0)
                return true;
#endif
#if MIP_CONF_IPV6
    if (addr->family == MIP_AF_INET6)
        for (i = 0; i <= MIP_NETIF_ADDR6_MAX; i++)
            if (nif->addr6[i].used && memcmp(nif->addr6[i].addr, addr->bytes, 16) == 0)
                return true;
#endif
    (void)i;
    return false;
}

bool stack_is_own_addr(const struct mip_stack *s, const struct mip_addr *a)
{
    unsigned i;
    for (i = 0; i < MIP_NETIF_MAX; i++)
        if (s->netif[i].ops != NULL && mip_netif_has_addr(&s->netif[i], a))
            return true;
    return false;
}

#if MIP_CONF_IPV4
bool stack_is_bcast4(const struct mip_stack *s, const uint8_t dst[4])
{
    unsigned i;
    bool bcast;
    for (i = 0; i < MIP_NETIF_MAX; i++)
        if (s->netif[i].ops != NULL && netif_accepts4(&s->netif[i], dst, &bcast) && bcast &&
            !ip4_is_multicast(dst))
            return true;
    return false;
}
#endif

mip_status netif_transmit(struct mip_stack *s, struct mip_netif *nif, struct mip_pbuf *p)
{
    mip_status st = nif->drv->transmit(nif->drv_ctx, mip_pbuf_payload(p), p->len);
    if (st == MIP_OK)
        STAT(s, tx_frames);
    else
        STAT(s, drop_tx_driver);
    mip_pbuf_free(&s->pool, p);
    return st;
}
