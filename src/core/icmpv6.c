/* ICMPv6 (RFC 4443): echo, errors sent and received, and the entry to
 * Neighbor Discovery. */
#include "core.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/icmpv6.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include <string.h>

#if MIP_CONF_IPV6

/* RFC 4443 2.4(c): as much of the packet as fits in the minimum MTU. */
#define ICMPV6_ERROR_MAX (1280u - MIP_IPV6_HDR_LEN)

static bool sent_ok(mip_status st)
{
    return st == MIP_OK || st == MIP_ERR_PENDING;
}

static uint32_t icmpv6_pseudo(const struct mip_addr *src, const struct mip_addr *dst, size_t len)
{
    return mip_cksum_pseudo6(src->bytes, dst->bytes, MIP_IPPROTO_ICMPV6, (uint32_t)len);
}

mip_status icmpv6_output(struct mip_stack *s, struct mip_ip_tx *tx, uint8_t *hdr,
                         size_t hdr_len, const uint8_t *data, size_t data_len)
{
    uint32_t sum;
    if (tx->src.family == MIP_AF_NONE) {
        mip_status st = mip_ip_select_src(s, &tx->dst, tx->netif, &tx->src);
        if (st != MIP_OK) {
            STAT(s, drop_ip_no_route);
            return st;
        }
    }
    hdr[2] = 0;
    hdr[3] = 0;
    sum = icmpv6_pseudo(&tx->src, &tx->dst, hdr_len + data_len);
    sum = mip_cksum_add(sum, hdr, hdr_len);
    sum = mip_cksum_add(sum, data, data_len);
    mip_wr16(hdr + 2, mip_cksum_finish(sum));
    tx->proto = MIP_IPPROTO_ICMPV6;
    return ip_output_gather(s, tx, hdr, hdr_len, data, data_len);
}

static void icmpv6_echo(struct mip_stack *s, const struct mip_ip_rx *rx, const uint8_t *msg,
                        size_t len)
{
    struct mip_ip_tx tx;
    uint8_t hdr[MIP_ICMPV6_HDR_LEN];
    memcpy(hdr, msg, sizeof(hdr));
    hdr[0] = MIP_ICMPV6_ECHO_REPLY;
    hdr[1] = 0;
    memset(&tx, 0, sizeof(tx));
    /* A reply to a multicast echo comes from one of our unicast addresses
     * (RFC 4443 4.2). */
    if (!rx->dst_multicast)
        tx.src = rx->dst;
    tx.dst = rx->src;
    tx.netif = ip6_is_linklocal(rx->src.bytes) ? rx->netif : MIP_NETIF_ANY;
    if (sent_ok(icmpv6_output(s, &tx, hdr, sizeof(hdr), msg + MIP_ICMPV6_HDR_LEN,
                              len - MIP_ICMPV6_HDR_LEN)))
        STAT(s, icmp_echo_replied);
}

static void icmpv6_error_in(struct mip_stack *s, const struct mip_icmp_hdr *ih,
                            const uint8_t *msg, size_t len)
{
    struct mip_ip_error err;
    const uint8_t *quote = msg + MIP_ICMPV6_HDR_LEN;
    size_t qlen = len - MIP_ICMPV6_HDR_LEN;
    if (qlen < MIP_IPV6_HDR_LEN + 8u || (quote[0] >> 4) != 6) {
        STAT(s, drop_icmp_truncated);
        return;
    }
    memset(&err, 0, sizeof(err));
    err.family = MIP_AF_INET6;
    err.type = ih->type;
    err.code = ih->code;
    err.info = ih->rest;
    mip_addr_set6(&err.src, quote + 8);
    mip_addr_set6(&err.dst, quote + 24);
    if (!stack_is_own_addr(s, &err.src)) {
        STAT(s, drop_icmp_unhandled);
        return;
    }
    /* Our own datagrams carry no extension headers before the transport
     * header, except a fragment header. */
    if (quote[6] == MIP_IPV6_NH_FRAGMENT) {
        if (qlen < MIP_IPV6_HDR_LEN + MIP_IPV6_FRAG_HDR_LEN + 8u) {
            STAT(s, drop_icmp_truncated);
            return;
        }
        err.quoted = quote + MIP_IPV6_HDR_LEN + MIP_IPV6_FRAG_HDR_LEN;
        err.quoted_len = qlen - MIP_IPV6_HDR_LEN - MIP_IPV6_FRAG_HDR_LEN;
        ip_deliver_error(s, &err, quote[MIP_IPV6_HDR_LEN]);
        return;
    }
    err.quoted = quote + MIP_IPV6_HDR_LEN;
    err.quoted_len = qlen - MIP_IPV6_HDR_LEN;
    ip_deliver_error(s, &err, quote[6]);
}

void icmpv6_input(struct mip_stack *s, const struct mip_ip_rx *rx, const uint8_t *msg, size_t len)
{
    struct mip_icmp_hdr ih;
    struct mip_netif *nif;
    uint32_t sum;
    /* A RPL DIS is 6 bytes (RFC 6550 6.2.1), shorter than the 8 the
     * shared header parse wants; its own codec checks its length. */
    if (len >= 4u && msg[0] == MIP_ICMPV6_RPL) {
        memset(&ih, 0, sizeof(ih));
        ih.type = msg[0];
    } else if (mip_icmp_parse(msg, len, &ih) != MIP_OK) {
        STAT(s, drop_icmp_truncated);
        return;
    }
    sum = icmpv6_pseudo(&rx->src, &rx->dst, len);
    if (!MIP_CKSUM_OK(mip_cksum_finish(mip_cksum_add(sum, msg, len)) == 0)) {
        STAT(s, drop_icmp_bad_checksum);
        return;
    }
    STAT(s, icmp_rx);
    switch (ih.type) {
    case MIP_ICMPV6_ECHO_REQUEST:
        icmpv6_echo(s, rx, msg, len);
        break;
    case MIP_ICMPV6_ECHO_REPLY:
        ping_reply_input(s, rx, msg, len);
        break;
    case MIP_ICMPV6_DEST_UNREACH:
    case MIP_ICMPV6_PACKET_TOO_BIG:
    case MIP_ICMPV6_TIME_EXCEEDED:
    case MIP_ICMPV6_PARAM_PROBLEM:
        icmpv6_error_in(s, &ih, msg, len);
        break;
    case MIP_ICMPV6_RS:
    case MIP_ICMPV6_RA:
    case MIP_ICMPV6_NS:
    case MIP_ICMPV6_NA:
    case MIP_ICMPV6_REDIRECT:
        nif = mip_netif_get(s, rx->netif);
        if (nif != NULL)
            nd_input(s, nif, rx, msg, len);
        break;
    case MIP_ICMPV6_RPL:
        if (routing_icmp_input(s, rx, msg, len))
            break;
        STAT(s, drop_icmp_unhandled);
        break;
    default:
        /* RFC 4443 2.4(a)/(b): unknown types are discarded silently. */
        STAT(s, drop_icmp_unhandled);
        break;
    }
}

/* Byte i of the concatenation a|b, or -1 past its end. */
static int byte_at(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, size_t i)
{
    if (i < alen)
        return a[i];
    i -= alen;
    return i < blen ? b[i] : -1;
}

/* RFC 4443 2.4(e.1): true when the packet hdr|l4 is an ICMPv6 error message
 * (or may be one: its type was cut off), looking past extension headers and
 * into a first fragment. A later fragment has no upper header to look at. */
static bool carries_icmpv6_error(const uint8_t *hdr, size_t hdr_len, const uint8_t *l4,
                                 size_t l4_len)
{
    size_t off = MIP_IPV6_HDR_LEN;
    int nh = hdr[6], b, len;
    unsigned n;
    for (n = 0; n <= MIP_IPV6_EXT_MAX; n++) {
        switch (nh) {
        case MIP_IPPROTO_ICMPV6:
            b = byte_at(hdr, hdr_len, l4, l4_len, off);
            return b < 128;
        case MIP_IPV6_NH_FRAGMENT:
            b = byte_at(hdr, hdr_len, l4, l4_len, off + 2u);
            len = byte_at(hdr, hdr_len, l4, l4_len, off + 3u);
            if (b < 0 || len < 0 || (((b << 8) | len) & 0xFFF8) != 0)
                return false;
            len = 0;
            break;
        case MIP_IPV6_NH_HOPOPTS:
        case MIP_IPV6_NH_ROUTING:
        case MIP_IPV6_NH_DSTOPTS:
            len = byte_at(hdr, hdr_len, l4, l4_len, off + 1u);
            if (len < 0)
                return false;
            break;
        default:
            return false;
        }
        nh = byte_at(hdr, hdr_len, l4, l4_len, off);
        off += ((size_t)len + 1u) * 8u;
    }
    return false;
}

void icmpv6_send_error(struct mip_stack *s, uint8_t netif, uint8_t type, uint8_t code,
                       uint32_t rest,
                       const uint8_t *hdr, size_t hdr_len, const uint8_t *l4, size_t l4_len,
                       bool allow_mcast)
{
    struct mip_ip_tx tx;
    struct mip_addr orig_src, orig_dst;
    struct mip_pbuf *p;
    if (hdr_len < MIP_IPV6_HDR_LEN || (hdr[0] >> 4) != 6)
        return;
    mip_addr_set6(&orig_src, hdr + 8);
    mip_addr_set6(&orig_dst, hdr + 24);
    /* RFC 4443 2.4(e): not about an ICMPv6 error (even behind extension
     * headers), not to a multicast destination unless allowed, not to a
     * source that names no single node. */
    if (carries_icmpv6_error(hdr, hdr_len, l4, l4_len))
        return;
    if ((ip6_is_multicast(orig_dst.bytes) && !allow_mcast) ||
        ip6_is_multicast(orig_src.bytes) || ip6_is_unspecified(orig_src.bytes))
        return;
    if (!icmp_rate_allow(s))
        return;
    memset(&tx, 0, sizeof(tx));
    tx.dst = orig_src;
    tx.netif = ip6_is_linklocal(orig_src.bytes) ? netif : MIP_NETIF_ANY;
    if (!ip6_is_multicast(orig_dst.bytes) && stack_is_own_addr(s, &orig_dst))
        tx.src = orig_dst;
    else if (mip_ip_select_src(s, &tx.dst, tx.netif, &tx.src) != MIP_OK)
        return;
    /* No room for a fragment header: an error of at most 1280 bytes is
     * never fragmented, and on small pbufs those 8 bytes would be quote. */
    p = icmp_error_build(s, MIP_IPV6_HDR_LEN, ICMPV6_ERROR_MAX, type, code, rest,
                         hdr, hdr_len, l4, l4_len);
    if (p == NULL)
        return;
    tx.proto = MIP_IPPROTO_ICMPV6;
    icmp_error_send(s, &tx, p, icmpv6_pseudo(&tx.src, &tx.dst, p->len));
}

#endif
