/* ARP (RFC 826) over Ethernet: answer requests for our addresses, learn
 * senders, resolve next hops for neigh.c. */
#include "core.h"
#include "moteip/wire/arp.h"
#include "moteip/wire/ethernet.h"
#include <string.h>

#if MIP_CONF_ETHERNET && MIP_CONF_IPV4

static const uint8_t eth_bcast[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

static mip_status arp_send(struct mip_stack *s, struct mip_netif *nif, const struct mip_arp *a,
                           const uint8_t dst_hw[6])
{
    struct mip_pbuf *p = mip_pbuf_alloc(&s->pool, MIP_ETH_HDR_LEN);
    uint8_t *w;
    if (p == NULL || (w = mip_pbuf_put(p, MIP_ARP_LEN)) == NULL) {
        mip_pbuf_free(&s->pool, p);
        STAT(s, drop_tx_no_pbuf);
        return MIP_ERR_NOBUFS;
    }
    (void)mip_arp_emit(a, w, MIP_ARP_LEN);
    return eth_send(s, nif, p, dst_hw, MIP_ETHERTYPE_ARP);
}

void arp_input(struct mip_stack *s, struct mip_netif *nif, const uint8_t *pkt, size_t len)
{
    struct mip_arp a, reply;
    struct mip_addr target;
    bool for_us;
    mip_status st = mip_arp_parse(pkt, len, &a);
    if (st == MIP_ERR_UNSUPPORTED) {
        STAT(s, drop_arp_unsupported);
        return;
    }
    if (st != MIP_OK || (a.sha[0] & 1u) != 0) {
        STAT(s, drop_arp_malformed);
        return;
    }
    STAT(s, arp_rx);
    mip_addr_set4(&target, a.tpa);
    for_us = mip_netif_has_addr(nif, &target);
    /* RFC 826 "merge": refresh a known sender; add it when it talks to us.
     * A sender of 0.0.0.0 is an address probe (RFC 5227), not a mapping. */
    if (a.spa[0] != 0 || a.spa[1] != 0 || a.spa[2] != 0 || a.spa[3] != 0)
        neigh_learn(s, nif, MIP_AF_INET, a.spa, a.sha, for_us, for_us && a.op == MIP_ARP_OP_REPLY);
    if (!for_us || a.op != MIP_ARP_OP_REQUEST)
        return;
    reply.op = MIP_ARP_OP_REPLY;
    memcpy(reply.sha, nif->hwaddr, 6);
    memcpy(reply.spa, a.tpa, 4);
    memcpy(reply.tha, a.sha, 6);
    memcpy(reply.tpa, a.spa, 4);
    if (arp_send(s, nif, &reply, a.sha) == MIP_OK)
        STAT(s, arp_replies_tx);
}

mip_status arp_request(struct mip_stack *s, struct mip_netif *nif, const uint8_t target[4],
                       const uint8_t *dst_hw)
{
    struct mip_arp req;
    struct mip_addr t, src;
    mip_status st;
    mip_addr_set4(&t, target);
    st = mip_ip_select_src(s, &t, nif->index, &src);
    if (st != MIP_OK)
        return st;
    req.op = MIP_ARP_OP_REQUEST;
    memcpy(req.sha, nif->hwaddr, 6);
    memcpy(req.spa, src.bytes, 4);
    memset(req.tha, 0, 6);
    memcpy(req.tpa, target, 4);
    st = arp_send(s, nif, &req, dst_hw != NULL ? dst_hw : eth_bcast);
    if (st == MIP_OK)
        STAT(s, arp_requests_tx);
    return st;
}

#endif
