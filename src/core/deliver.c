/* Local delivery: the demultiplexer between IP and the upper layers. */
#include "core.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/icmpv4.h"
#include "moteip/wire/icmpv6.h"

static struct mip_proto_handler *find_handler(struct mip_stack *s, uint8_t proto)
{
    unsigned i;
    for (i = 0; i < MIP_PROTO_HANDLERS_MAX; i++)
        if (s->proto[i].proto == proto && proto != 0)
            return &s->proto[i];
    return NULL;
}

void ip_deliver(struct mip_stack *s, const struct mip_ip_rx *rx, const uint8_t *l4,
                size_t len, uint16_t ptr_nh)
{
    struct mip_proto_handler *h;
    STAT(s, ip_delivered);
#if MIP_CONF_FORWARD
    /* the local hook sees whole datagrams only: header and upper layer
     * in one piece (not a reassembled one) */
    if (s->local_hook != NULL && rx->quote != NULL && rx->quote + rx->quote_len == l4)
        (void)s->local_hook(s->local_hook_ctx, s, false, rx->netif, rx->quote,
                            rx->quote_len + len);
#endif
    switch (rx->proto) {
#if MIP_CONF_IPV4
    case MIP_IPPROTO_ICMP:
        if (rx->src.family == MIP_AF_INET) {
            icmpv4_input(s, rx, l4, len);
            return;
        }
        break;
#endif
#if MIP_CONF_IPV6
    case MIP_IPPROTO_ICMPV6:
        if (rx->src.family == MIP_AF_INET6) {
            icmpv6_input(s, rx, l4, len);
            return;
        }
        break;
    case MIP_IPV6_NH_NONE:
        if (rx->src.family == MIP_AF_INET6)
            return;   /* "no next header": nothing to deliver, not an error */
        break;
#endif
    case MIP_IPPROTO_UDP:
        udp_input(s, rx, l4, len);
        return;
    default:
        break;
    }
    h = find_handler(s, rx->proto);
    if (h != NULL && h->input(h->ctx, s, rx, l4, len))
        return;
    STAT(s, drop_ip_unknown_proto);
    if (rx->dst_multicast)
        return;
#if MIP_CONF_IPV4
    if (rx->src.family == MIP_AF_INET)
        icmpv4_send_error(s, MIP_ICMPV4_DEST_UNREACH, MIP_ICMPV4_UNREACH_PROTOCOL, 0,
                          rx->quote, rx->quote_len, l4, len);
#endif
#if MIP_CONF_IPV6
    if (rx->src.family == MIP_AF_INET6)
        icmpv6_send_error(s, rx->netif, MIP_ICMPV6_PARAM_PROBLEM, 1, ptr_nh,
                          rx->quote, rx->quote_len, l4, len, false);
#endif
    (void)ptr_nh;
}

void ip_deliver_error(struct mip_stack *s, const struct mip_ip_error *err, uint8_t proto)
{
    struct mip_proto_handler *h = find_handler(s, proto);
    if (h != NULL && h->error != NULL)
        h->error(h->ctx, s, err);
}
