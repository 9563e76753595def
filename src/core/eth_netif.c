/* Ethernet adaptation: frame demultiplexing, multicast/broadcast mapping,
 * and unicast resolution through the neighbor cache (ARP / ND). */
#include "core.h"
#include "moteip/wire/ethernet.h"
#include <string.h>

#if MIP_CONF_ETHERNET

static const uint8_t eth_broadcast[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

static void eth_input(struct mip_stack *s, struct mip_netif *nif,
                      const uint8_t *frame, size_t len)
{
    struct mip_eth_hdr eh;
    bool group;
    const uint8_t *payload = frame + MIP_ETH_HDR_LEN;
    size_t plen;
    if (mip_eth_parse(frame, len, &eh) != MIP_OK) {
        STAT(s, drop_link_truncated);
        return;
    }
    plen = len - MIP_ETH_HDR_LEN;
    group = (eh.dst[0] & 1u) != 0;
    if (!group && memcmp(eh.dst, nif->hwaddr, 6) != 0) {
        STAT(s, drop_link_not_for_us);
        return;
    }
    switch (eh.ethertype) {
#if MIP_CONF_IPV4
    case MIP_ETHERTYPE_IPV4:
        ipv4_input(s, nif, payload, plen, group);
        return;
    case MIP_ETHERTYPE_ARP:
        arp_input(s, nif, payload, plen);
        return;
#endif
#if MIP_CONF_IPV6
    case MIP_ETHERTYPE_IPV6:
        ipv6_input(s, nif, payload, plen, group);
        return;
#endif
    default:
        STAT(s, drop_link_unsupported);
        return;
    }
}

mip_status eth_send(struct mip_stack *s, struct mip_netif *nif, struct mip_pbuf *p,
                    const uint8_t dst[6], uint16_t ethertype)
{
    struct mip_eth_hdr eh;
    uint8_t *h = mip_pbuf_push(p, MIP_ETH_HDR_LEN);
    if (h == NULL) {
        mip_pbuf_free(&s->pool, p);
        return MIP_ERR_NOSPACE;
    }
    memcpy(eh.dst, dst, 6);
    memcpy(eh.src, nif->hwaddr, 6);
    eh.ethertype = ethertype;
    (void)mip_eth_emit(&eh, h, MIP_ETH_HDR_LEN);
    return netif_transmit(s, nif, p);
}

static mip_status eth_output(struct mip_stack *s, struct mip_netif *nif,
                             struct mip_pbuf *p, const struct mip_addr *nexthop)
{
    uint8_t mac[6];
    const uint8_t *a = nexthop->bytes;
#if MIP_CONF_IPV4
    if (nexthop->family == MIP_AF_INET) {
        bool bcast = false;
        if (ip4_is_multicast(a)) {
            /* RFC 1112 6.4: 01:00:5e + the low 23 bits of the group */
            mac[0] = 0x01; mac[1] = 0x00; mac[2] = 0x5E;
            mac[3] = (uint8_t)(a[1] & 0x7Fu); mac[4] = a[2]; mac[5] = a[3];
            return eth_send(s, nif, p, mac, MIP_ETHERTYPE_IPV4);
        }
        if (netif_accepts4(nif, a, &bcast) && bcast)
            return eth_send(s, nif, p, eth_broadcast, MIP_ETHERTYPE_IPV4);
    }
#endif
#if MIP_CONF_IPV6
    if (nexthop->family == MIP_AF_INET6 && ip6_is_multicast(a)) {
        /* RFC 2464 7: 33:33 + the low 32 bits of the group */
        mac[0] = 0x33; mac[1] = 0x33;
        memcpy(mac + 2, a + 12, 4);
        return eth_send(s, nif, p, mac, MIP_ETHERTYPE_IPV6);
    }
#endif
    return neigh_output(s, nif, p, nexthop);
}

static const struct mip_netif_ops eth_ops = {
    eth_input,
    eth_output,
    MIP_ETH_HDR_LEN,
};

mip_status mip_netif_add_ethernet(struct mip_stack *s, const uint8_t mac[6],
                                  const struct mip_netif_driver *drv, void *drv_ctx,
                                  uint8_t *index)
{
    struct mip_netif *nif;
    uint8_t iid[8];
    if (drv == NULL || drv->transmit == NULL || (mac[0] & 1u) != 0)
        return MIP_ERR_INVALID;
    nif = netif_alloc(s);
    if (nif == NULL)
        return MIP_ERR_NOBUFS;
    nif->ops = &eth_ops;
    nif->drv = drv;
    nif->drv_ctx = drv_ctx;
    nif->mtu = 1500;
    nif->hwaddr_len = 6;
    memcpy(nif->hwaddr, mac, 6);
    /* modified EUI-64 (RFC 4291 appendix A) */
    iid[0] = (uint8_t)(mac[0] ^ 0x02u); iid[1] = mac[1]; iid[2] = mac[2];
    iid[3] = 0xFF; iid[4] = 0xFE;
    iid[5] = mac[3]; iid[6] = mac[4]; iid[7] = mac[5];
    netif_set_linklocal(nif, iid);
#if MIP_CONF_IPV6
    {
        struct mip_addr ll;
        mip_addr_set6(&ll, nif->addr6[0].addr);
        (void)mip_route_add(s, &ll, 64, NULL, nif->index);
    }
#endif
    if (index != NULL)
        *index = nif->index;
    return MIP_OK;
}

#endif /* MIP_CONF_ETHERNET */
