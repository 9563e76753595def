/* IPv4 input: validation, local delivery, reassembly, forwarding. */
#include "core.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/icmpv4.h"
#include <string.h>

#if MIP_CONF_IPV4

/* A source that names no single host: multicast, broadcast (limited or
 * one of our subnets'), loopback, or "this network" 0/8 (RFC 1122 3.2.1.3;
 * we do not run DHCP, the one user of 0.0.0.0). */
static bool bad_source(const struct mip_stack *s, const uint8_t *src)
{
    return ip4_is_multicast(src) || ip4_is_limited_bcast(src) || src[0] == 127 ||
           src[0] == 0 || stack_is_bcast4(s, src);
}

#if MIP_CONF_FORWARD
static void ipv4_forward(struct mip_stack *s, struct mip_netif *in, const uint8_t *pkt,
                         const struct mip_ipv4_hdr *h)
{
    struct mip_addr dst, nexthop;
    struct mip_netif *out;
    struct mip_pbuf *p;
    uint8_t idx, *w;
    const uint8_t *l4 = pkt + h->hdr_len;
    size_t l4_len = (size_t)h->total_len - h->hdr_len;
    mip_addr_set4(&dst, h->dst);
    /* Directed broadcasts are not forwarded (RFC 2644), nor answered. */
    if (stack_is_bcast4(s, h->dst)) {
        STAT(s, drop_ipv4_not_for_us);
        return;
    }
    /* Destinations no router forwards to (RFC 1812 5.3.7): "this network"
     * 0/8, loopback 127/8 and reserved 240/4 (multicast and broadcast
     * never reach here). */
    if (h->dst[0] == 0 || h->dst[0] == 127 || h->dst[0] >= 240) {
        STAT(s, drop_ip_martian);
        return;
    }
    if (h->ttl <= 1) {
        STAT(s, drop_ipv4_ttl_expired);
        icmpv4_send_error(s, MIP_ICMPV4_TIME_EXCEEDED, MIP_ICMPV4_TE_TTL, 0,
                          pkt, h->hdr_len, l4, l4_len);
        return;
    }
    if (mip_route_lookup(s, &dst, &idx, &nexthop) != MIP_OK ||
        (out = mip_netif_get(s, idx)) == NULL) {
        STAT(s, drop_ip_no_route);
        icmpv4_send_error(s, MIP_ICMPV4_DEST_UNREACH, MIP_ICMPV4_UNREACH_NET, 0,
                          pkt, h->hdr_len, l4, l4_len);
        return;
    }
    if (h->total_len > out->mtu && (h->flags & MIP_IPV4_FLAG_DF)) {
        STAT(s, drop_ip_too_big);
        icmpv4_send_error(s, MIP_ICMPV4_DEST_UNREACH, MIP_ICMPV4_UNREACH_FRAG_NEEDED,
                          out->mtu, pkt, h->hdr_len, l4, l4_len);
        return;
    }
    p = ip_forward_copy(s, out, pkt, h->total_len);
    if (p == NULL)
        return;
    w = mip_pbuf_payload(p);
    /* TTL shares a 16-bit word with the protocol; RFC 1624 update. */
    w[8] = (uint8_t)(h->ttl - 1u);
    mip_wr16(w + 10, mip_cksum_update16(mip_rd16(w + 10),
                                        (uint16_t)(((uint16_t)h->ttl << 8) | h->proto),
                                        (uint16_t)(((uint16_t)w[8] << 8) | h->proto)));
    (void)ip_forward_send(s, in->index, out, &nexthop, p);
}
#endif

void ipv4_input(struct mip_stack *s, struct mip_netif *nif, const uint8_t *pkt, size_t len,
                bool link_bcast)
{
    struct mip_ipv4_hdr h;
    struct mip_ip_rx rx;
    struct mip_addr dst;
    bool bcast = false, local;
    mip_status st;
    STAT(s, rx_ipv4);
    st = mip_ipv4_parse(pkt, len, &h);
    if (st != MIP_OK) {
        if (st == MIP_ERR_TRUNCATED)
            STAT(s, drop_ipv4_truncated);
        else
            STAT(s, drop_ipv4_malformed);
        return;
    }
    if (!MIP_CKSUM_OK(mip_ipv4_checksum_ok(pkt, h.hdr_len))) {
        STAT(s, drop_ipv4_bad_checksum);
        return;
    }
    if (bad_source(s, h.src)) {
        STAT(s, drop_ipv4_bad_src);
        return;
    }
    if (h.hdr_len > MIP_IPV4_HDR_LEN) {
        uint8_t at = 0;
        st = mip_ipv4_options_check(pkt, h.hdr_len, &at);
        /* RFC 7126 4.3, 4.4: source-routed datagrams are dropped, silently
         * (an error would only reflect spoofed traffic). */
        if (st == MIP_ERR_UNSUPPORTED) {
            STAT(s, drop_ipv4_source_route);
            return;
        }
        /* RFC 791 / RFC 1122 3.2.2.5: a header we cannot process is
         * dropped, and a host SHOULD say so with a Parameter Problem
         * pointing at the bad octet (subject to the rules and the rate
         * limit of every ICMP error; never for a link broadcast). */
        if (st != MIP_OK) {
            STAT(s, drop_ipv4_bad_option);
            if (!link_bcast)
                icmpv4_send_error(s, MIP_ICMPV4_PARAM_PROBLEM, 0, (uint32_t)at << 24, pkt,
                                  h.hdr_len, pkt + h.hdr_len, (size_t)h.total_len - h.hdr_len);
            return;
        }
    }
    mip_addr_set4(&dst, h.dst);
    /* netif_accepts4 leaves bcast set when it says no: a unicast to an
     * address of another netif is not a broadcast. */
    local = netif_accepts4(nif, h.dst, &bcast);
    if (!local) {
        bcast = false;
        local = stack_is_own_addr(s, &dst);
    }
    if (!local) {
#if MIP_CONF_FORWARD
        if (s->forwarding && !link_bcast && !ip4_is_multicast(h.dst)) {
            ipv4_forward(s, nif, pkt, &h);
            return;
        }
#endif
        STAT(s, drop_ipv4_not_for_us);
        return;
    }
    memset(&rx, 0, sizeof(rx));
    mip_addr_set4(&rx.src, h.src);
    rx.dst = dst;
    rx.proto = h.proto;
    rx.ttl = h.ttl;
    rx.netif = nif->index;
    rx.dst_multicast = bcast || link_bcast || ip4_is_multicast(h.dst);
    rx.quote = pkt;
    rx.quote_len = h.hdr_len;
    if ((h.flags & MIP_IPV4_FLAG_MF) || h.frag_offset != 0) {
        struct mip_reass_frag f;
        struct mip_reass_slot *r;
        size_t dlen = (size_t)h.total_len - h.hdr_len;
        if (((h.flags & MIP_IPV4_FLAG_MF) && (dlen % 8u != 0 || dlen == 0)) ||
            (size_t)h.frag_offset + dlen > 65515u) {
            STAT(s, drop_frag_malformed);
            return;
        }
        memset(&f, 0, sizeof(f));
        f.family = MIP_AF_INET;
        f.proto = h.proto;
        f.netif = nif->index;
        f.ttl = h.ttl;
        f.src = h.src;
        f.dst = h.dst;
        f.id = h.id;
        f.offset = h.frag_offset;
        f.more = (h.flags & MIP_IPV4_FLAG_MF) != 0;
        f.group = rx.dst_multicast;
        f.data = pkt + h.hdr_len;
        f.len = (uint16_t)dlen;
        f.hdr = pkt;
        f.hdr_len = h.hdr_len;
        r = reass_add(s, &f);
        if (r == NULL)
            return;
        rx.ttl = r->ttl;
        rx.quote = r->hdr;
        rx.quote_len = r->hdr_len;
        ip_deliver(s, &rx, r->data, r->total, 0);
        reass_free(r);
        return;
    }
    ip_deliver(s, &rx, pkt + h.hdr_len, (size_t)h.total_len - h.hdr_len, 0);
}

#endif
