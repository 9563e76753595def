/* The routing driver table (routing.h): the static driver over the route
 * table, the driver's registration, and link reports from the MAC's
 * tx_done. A protocol above core registers its table here; core only
 * calls through it. */
#include "core.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/sixlowpan.h"
#include <string.h>

static mip_status static_next_hop(void *ctx, const struct mip_stack *s,
                                  const struct mip_addr *dst, uint8_t *netif,
                                  struct mip_addr *nexthop)
{
    (void)ctx;
    return mip_route_table_lookup(s, dst, netif, nexthop);
}

const struct mip_routing_ops mip_routing_static = {
    "static", static_next_hop, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL
};

void mip_routing_set(struct mip_stack *s, const struct mip_routing_ops *ops, void *ctx)
{
    s->routing.ops = ops != NULL ? ops : &mip_routing_static;
    s->routing.ctx = ops != NULL ? ctx : NULL;
}

mip_status mip_route_lookup(const struct mip_stack *s, const struct mip_addr *dst,
                            uint8_t *netif, struct mip_addr *nexthop)
{
    const struct mip_routing_ops *o = s->routing.ops;
    if (o == NULL || o->next_hop == NULL)
        return mip_route_table_lookup(s, dst, netif, nexthop);
    return o->next_hop(s->routing.ctx, s, dst, netif, nexthop);
}

void mip_routing_link_report(struct mip_stack *s, const struct mip_link_report *r,
                             mip_time_t now)
{
    if (s->routing.ops != NULL && s->routing.ops->link_report != NULL)
        s->routing.ops->link_report(s->routing.ctx, s, r, now);
}

void mip_routing_link_report_frame(struct mip_stack *s, uint8_t netif, const uint8_t *frame,
                                   size_t len, bool acked, bool noack, uint8_t retries,
                                   mip_time_t now)
{
    struct mip_802154_hdr h;
    struct mip_link_report r;
    size_t hl;
    /* parse_mhr: a frame sent secured (llsec) still names its destination */
    if (s->routing.ops == NULL || s->routing.ops->link_report == NULL ||
        mip_ieee802154_parse_mhr(frame, len, &h, &hl) != MIP_OK ||
        h.dst.mode == MIP_802154_ADDR_NONE ||
        (h.dst.mode == MIP_802154_ADDR_SHORT && h.dst.short_addr == 0xFFFFu))
        return;
    memset(&r, 0, sizeof(r));
    if (mip_lowpan_iid_from_link(&h.dst, r.iid) != MIP_OK)
        return;
    r.netif = netif;
    r.outcome = acked ? MIP_LINK_TX_OK : noack ? MIP_LINK_TX_NOACK : MIP_LINK_TX_OTHER;
    r.retries = retries;
    s->routing.ops->link_report(s->routing.ctx, s, &r, now);
}

uint32_t routing_poll(struct mip_stack *s, mip_time_t now)
{
    if (s->routing.ops == NULL || s->routing.ops->poll == NULL)
        return MIP_POLL_IDLE;
    return s->routing.ops->poll(s->routing.ctx, s, now);
}

bool routing_icmp_input(struct mip_stack *s, const struct mip_ip_rx *rx, const uint8_t *msg,
                        size_t len)
{
    if (s->routing.ops == NULL || s->routing.ops->icmp_input == NULL)
        return false;
    s->routing.ops->icmp_input(s->routing.ctx, s, rx, msg, len);
    return true;
}

enum mip_routing_verdict routing_hook(struct mip_stack *s, mip_routing_hook_fn fn,
                                      struct mip_routing_pkt *pkt)
{
    enum mip_routing_verdict v;
    if (fn == NULL)
        return MIP_ROUTING_PASS;
    pkt->icmp_type = 0;
    v = fn(s->routing.ctx, s, pkt, s->now);
    /* TAKEN: the driver sent it on itself (rpl's tunnel) */
    if (v != MIP_ROUTING_PASS && v != MIP_ROUTING_TAKEN)
        STAT(s, drop_routing);
    return v;
}
