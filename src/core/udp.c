/* UDP (RFC 768): port table, checksum, delivery, and sending. */
#include "core.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/icmpv4.h"
#include "moteip/wire/icmpv6.h"
#include "moteip/wire/udp.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include <string.h>

static uint32_t udp_pseudo(const struct mip_addr *src, const struct mip_addr *dst, size_t len)
{
    if (src->family == MIP_AF_INET)
        return mip_cksum_pseudo4(src->bytes, dst->bytes, MIP_IPPROTO_UDP, (uint16_t)len);
    return mip_cksum_pseudo6(src->bytes, dst->bytes, MIP_IPPROTO_UDP, (uint32_t)len);
}

static struct mip_udp_sock *udp_find(struct mip_stack *s, uint16_t port)
{
    unsigned i;
    for (i = 0; i < MIP_UDP_MAX; i++)
        if (s->udp[i].port == port && port != 0)
            return &s->udp[i];
    return NULL;
}

mip_status mip_udp_bind(struct mip_stack *s, uint16_t port, mip_udp_recv_fn fn, void *ctx)
{
    unsigned i;
    if (port == 0 || fn == NULL)
        return MIP_ERR_INVALID;
    if (udp_find(s, port) != NULL)
        return MIP_ERR_INUSE;
    for (i = 0; i < MIP_UDP_MAX; i++) {
        struct mip_udp_sock *u = &s->udp[i];
        if (u->port == 0) {
            u->port = port;
            u->recv = fn;
            u->ctx = ctx;
            return MIP_OK;
        }
    }
    return MIP_ERR_NOBUFS;
}

mip_status mip_udp_unbind(struct mip_stack *s, uint16_t port)
{
    struct mip_udp_sock *u = udp_find(s, port);
    if (u == NULL)
        return MIP_ERR_NOTFOUND;
    memset(u, 0, sizeof(*u));
    return MIP_OK;
}

static void udp_port_unreachable(struct mip_stack *s, const struct mip_ip_rx *rx,
                                 const uint8_t *l4, size_t len)
{
    if (rx->dst_multicast)
        return;
#if MIP_CONF_IPV4
    if (rx->src.family == MIP_AF_INET)
        icmpv4_send_error(s, MIP_ICMPV4_DEST_UNREACH, MIP_ICMPV4_UNREACH_PORT, 0,
                          rx->quote, rx->quote_len, l4, len);
#endif
#if MIP_CONF_IPV6
    if (rx->src.family == MIP_AF_INET6)
        icmpv6_send_error(s, rx->netif, MIP_ICMPV6_DEST_UNREACH, MIP_ICMPV6_UNREACH_PORT, 0,
                          rx->quote, rx->quote_len, l4, len, false);
#endif
}

void udp_input(struct mip_stack *s, const struct mip_ip_rx *rx, const uint8_t *l4, size_t len)
{
    struct mip_udp_hdr h;
    struct mip_udp_meta m;
    struct mip_udp_sock *u;
    if (mip_udp_parse(l4, len, &h) != MIP_OK) {
        STAT(s, drop_udp_truncated);
        return;
    }
    /* IPv6 forbids a zero checksum (RFC 8200 8.1); IPv4 makes it "none". */
    if (h.checksum == 0 ? rx->src.family == MIP_AF_INET6
                        : !MIP_CKSUM_OK(mip_cksum_finish(mip_cksum_add(
                              udp_pseudo(&rx->src, &rx->dst, h.length), l4, h.length)) == 0)) {
        STAT(s, drop_udp_bad_checksum);
        return;
    }
    STAT(s, udp_rx);
    u = udp_find(s, h.dst_port);
    if (u == NULL) {
        STAT(s, drop_udp_no_port);
        udp_port_unreachable(s, rx, l4, h.length);
        return;
    }
    memset(&m, 0, sizeof(m));
    m.src = rx->src;
    m.dst = rx->dst;
    m.src_port = h.src_port;
    m.dst_port = h.dst_port;
    m.netif = rx->netif;
    m.dst_multicast = rx->dst_multicast;
    u->recv(u->ctx, s, &m, l4 + MIP_UDP_HDR_LEN, (size_t)h.length - MIP_UDP_HDR_LEN);
}

mip_status mip_udp_sendto(struct mip_stack *s, const struct mip_addr *src,
                          uint16_t src_port, const struct mip_addr *dst,
                          uint16_t dst_port, uint8_t zone, const uint8_t *data, size_t len)
{
    struct mip_ip_tx tx;
    struct mip_udp_hdr h;
    uint8_t hdr[MIP_UDP_HDR_LEN];
    uint32_t sum;
    mip_status st;
    if (dst == NULL || dst_port == 0 || (data == NULL && len > 0) ||
        len > 65535u - MIP_UDP_HDR_LEN - MIP_IPV4_HDR_LEN)
        return MIP_ERR_INVALID;
    memset(&tx, 0, sizeof(tx));
    tx.dst = *dst;
    tx.proto = MIP_IPPROTO_UDP;
    tx.netif = dst->family == MIP_AF_INET6 && ip6_is_link_scoped(dst->bytes) ? zone
                                                                            : MIP_NETIF_ANY;
    if (src != NULL && src->family != MIP_AF_NONE) {
        if (src->family != dst->family)
            return MIP_ERR_INVALID;
        tx.src = *src;
    } else {
        st = mip_ip_select_src(s, dst, tx.netif, &tx.src);
        if (st != MIP_OK) {
            STAT(s, drop_ip_no_route);
            return st;
        }
    }
    h.src_port = src_port;
    h.dst_port = dst_port;
    h.length = (uint16_t)(MIP_UDP_HDR_LEN + len);
    h.checksum = 0;
    (void)mip_udp_emit(&h, hdr, sizeof(hdr));
    sum = udp_pseudo(&tx.src, &tx.dst, h.length);
    sum = mip_cksum_add(sum, hdr, sizeof(hdr));
    sum = mip_cksum_add(sum, data, len);
    h.checksum = mip_cksum_finish(sum);
    mip_wr16(hdr + 6, h.checksum == 0 ? 0xFFFFu : h.checksum);   /* 0 means "none" */
    st = ip_output_gather(s, &tx, hdr, sizeof(hdr), data, len);
    if (st == MIP_OK || st == MIP_ERR_PENDING)
        STAT(s, udp_tx);
    return st;
}
