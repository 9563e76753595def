/* Raw-IP adaptation (TUN, SLIP, a radio carrying bare IP): a frame is one
 * IP datagram, the version nibble says which family. */
#include "core.h"
#include <string.h>

static void rawip_input(struct mip_stack *s, struct mip_netif *nif,
                        const uint8_t *frame, size_t len)
{
    if (len < 1) {
        STAT(s, drop_link_truncated);
        return;
    }
    switch (frame[0] >> 4) {
#if MIP_CONF_IPV4
    case 4:
        ipv4_input(s, nif, frame, len, false);
        return;
#endif
#if MIP_CONF_IPV6
    case 6:
        ipv6_input(s, nif, frame, len, false);
        return;
#endif
    default:
        STAT(s, drop_link_unsupported);
        return;
    }
}

static mip_status rawip_output(struct mip_stack *s, struct mip_netif *nif,
                               struct mip_pbuf *p, const struct mip_addr *nexthop)
{
    (void)nexthop;
    return netif_transmit(s, nif, p);
}

static const struct mip_netif_ops rawip_ops = {
    rawip_input,
    rawip_output,
    0,
};

mip_status mip_netif_add_rawip(struct mip_stack *s, uint16_t mtu, const uint8_t *iid,
                               const struct mip_netif_driver *drv, void *drv_ctx,
                               uint8_t *index)
{
    struct mip_netif *nif;
    if (drv == NULL || drv->transmit == NULL || mtu < 68 ||
        mtu > s->pool.size - MIP_LINK_HDR_MAX)
        return MIP_ERR_INVALID;
    nif = netif_alloc(s);
    if (nif == NULL)
        return MIP_ERR_NOBUFS;
    nif->ops = &rawip_ops;
    nif->drv = drv;
    nif->drv_ctx = drv_ctx;
    nif->mtu = mtu;
#if MIP_CONF_IPV6
    if (iid != NULL) {
        struct mip_addr ll;
        netif_set_linklocal(nif, iid);
        mip_addr_set6(&ll, nif->addr6[0].addr);
        (void)mip_route_add(s, &ll, 64, NULL, nif->index);
    }
#else
    (void)iid;
#endif
    if (index != NULL)
        *index = nif->index;
    return MIP_OK;
}
