/* Ping (include/moteip/ping.h): echo requests sent for the application and
 * the echo replies handed back to it. Answering requests from others is
 * icmpv4.c / icmpv6.c's job. */
#include "core.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/icmpv4.h"
#include "moteip/wire/icmpv6.h"
#include "moteip/wire/bytes.h"
#include <string.h>

mip_status mip_ping_send(struct mip_stack *s, const struct mip_addr *dst, uint16_t id,
                         uint16_t seq, const uint8_t *data, size_t len)
{
    struct mip_ip_tx tx;
    /* ICMPv4 and ICMPv6 echo share the 8-byte header layout. */
    uint8_t hdr[MIP_ICMPV6_HDR_LEN];
    if (dst == NULL || (data == NULL && len > 0))
        return MIP_ERR_INVALID;
    memset(&tx, 0, sizeof(tx));
    tx.dst = *dst;
    tx.netif = MIP_NETIF_ANY;
    hdr[1] = 0;
    mip_wr16(hdr + 4, id);
    mip_wr16(hdr + 6, seq);
    switch (dst->family) {
#if MIP_CONF_IPV4
    case MIP_AF_INET:
        /* The reassembled datagram must fit the 16-bit total length;
         * fragmentation alone only checks the upper-layer size. */
        if (len > 65535u - MIP_IPV4_HDR_LEN - MIP_ICMPV4_HDR_LEN)
            return MIP_ERR_INVALID;
        hdr[0] = MIP_ICMPV4_ECHO_REQUEST;
        return icmpv4_output(s, &tx, hdr, sizeof(hdr), data, len);
#endif
#if MIP_CONF_IPV6
    case MIP_AF_INET6:
        if (len > 65535u - MIP_ICMPV6_HDR_LEN)
            return MIP_ERR_INVALID;
        hdr[0] = MIP_ICMPV6_ECHO_REQUEST;
        return icmpv6_output(s, &tx, hdr, sizeof(hdr), data, len);
#endif
    default:
        return MIP_ERR_INVALID;
    }
}

void mip_ping_set_handler(struct mip_stack *s, mip_echo_reply_fn fn, void *ctx)
{
    s->echo_reply_fn = fn;
    s->echo_reply_ctx = fn != NULL ? ctx : NULL;
}

void ping_reply_input(struct mip_stack *s, const struct mip_ip_rx *rx, const uint8_t *msg,
                      size_t len)
{
    /* Without a handler nobody waits for replies: the same counter as any
     * other ICMP type this stack does not act on. */
    if (s->echo_reply_fn == NULL) {
        STAT(s, drop_icmp_unhandled);
        return;
    }
    STAT(s, icmp_echo_reply_rx);
    s->echo_reply_fn(s->echo_reply_ctx, s, &rx->src, mip_rd16(msg + 4), mip_rd16(msg + 6),
                     msg + MIP_ICMPV6_HDR_LEN, len - MIP_ICMPV6_HDR_LEN);
}
