/* ICMPv4 (RFC 792, RFC 1122 3.2.2): echo, errors sent and received. */
#include "core.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/icmpv4.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include <string.h>

#if MIP_CONF_IPV4

/* Error quotes stay within the 576-byte datagram every host accepts. */
#define ICMPV4_ERROR_MAX (576u - MIP_IPV4_HDR_LEN)

static bool is_error_type(uint8_t type)
{
    return type == MIP_ICMPV4_DEST_UNREACH || type == MIP_ICMPV4_TIME_EXCEEDED ||
           type == MIP_ICMPV4_PARAM_PROBLEM || type == 4u /* source quench */ ||
           type == 5u /* redirect */;
}

mip_status icmpv4_output(struct mip_stack *s, struct mip_ip_tx *tx, uint8_t *hdr,
                         size_t hdr_len, const uint8_t *data, size_t data_len)
{
    uint32_t sum;
    hdr[2] = 0;
    hdr[3] = 0;
    sum = mip_cksum_add(0, hdr, hdr_len);
    sum = mip_cksum_add(sum, data, data_len);
    mip_wr16(hdr + 2, mip_cksum_finish(sum));
    tx->proto = MIP_IPPROTO_ICMP;
    return ip_output_gather(s, tx, hdr, hdr_len, data, data_len);
}

static void icmpv4_echo(struct mip_stack *s, const struct mip_ip_rx *rx, const uint8_t *msg,
                        size_t len)
{
    struct mip_ip_tx tx;
    uint8_t hdr[MIP_ICMPV4_HDR_LEN];
    mip_status st;
    if (rx->dst_multicast) {
        /* No answers to broadcast pings: they amplify (RFC 1122 leaves it
         * to the host). */
        STAT(s, drop_icmp_unhandled);
        return;
    }
    memcpy(hdr, msg, sizeof(hdr));
    hdr[0] = MIP_ICMPV4_ECHO_REPLY;
    hdr[1] = 0;
    memset(&tx, 0, sizeof(tx));
    tx.src = rx->dst;
    tx.dst = rx->src;
    tx.netif = MIP_NETIF_ANY;
    st = icmpv4_output(s, &tx, hdr, sizeof(hdr), msg + MIP_ICMPV4_HDR_LEN,
                       len - MIP_ICMPV4_HDR_LEN);
    if (st == MIP_OK || st == MIP_ERR_PENDING)
        STAT(s, icmp_echo_replied);
}

/* An error about a datagram we sent: hand the quoted header to its
 * transport (RFC 1122 3.2.2.1 and friends: MUST pass to the transport). */
static void icmpv4_error_in(struct mip_stack *s, const struct mip_icmp_hdr *ih,
                            const uint8_t *msg, size_t len)
{
    struct mip_ipv4_hdr q;
    struct mip_ip_error err;
    const uint8_t *quote = msg + MIP_ICMPV4_HDR_LEN;
    size_t qlen = len - MIP_ICMPV4_HDR_LEN;
    /* The quote may be cut short, so parse it with its own length claim
     * ignored: only the fixed header and 8 bytes are needed. */
    if (qlen < MIP_IPV4_HDR_LEN || (quote[0] >> 4) != 4 ||
        (size_t)((quote[0] & 0x0Fu) * 4u) + 8u > qlen) {
        STAT(s, drop_icmp_truncated);
        return;
    }
    memset(&q, 0, sizeof(q));
    q.hdr_len = (uint8_t)((quote[0] & 0x0Fu) * 4u);
    if (q.hdr_len < MIP_IPV4_HDR_LEN) {
        STAT(s, drop_icmp_truncated);
        return;
    }
    memset(&err, 0, sizeof(err));
    err.family = MIP_AF_INET;
    err.type = ih->type;
    err.code = ih->code;
    err.info = ih->rest;
    mip_addr_set4(&err.src, quote + 12);
    mip_addr_set4(&err.dst, quote + 16);
    if (!stack_is_own_addr(s, &err.src)) {
        STAT(s, drop_icmp_unhandled);
        return;
    }
    err.quoted = quote + q.hdr_len;
    err.quoted_len = qlen - q.hdr_len;
    ip_deliver_error(s, &err, quote[9]);
}

void icmpv4_input(struct mip_stack *s, const struct mip_ip_rx *rx, const uint8_t *msg, size_t len)
{
    struct mip_icmp_hdr ih;
    if (mip_icmp_parse(msg, len, &ih) != MIP_OK) {
        STAT(s, drop_icmp_truncated);
        return;
    }
    if (!MIP_CKSUM_OK(mip_cksum_finish(mip_cksum_add(0, msg, len)) == 0)) {
        STAT(s, drop_icmp_bad_checksum);
        return;
    }
    STAT(s, icmp_rx);
    switch (ih.type) {
    case MIP_ICMPV4_ECHO_REQUEST:
        icmpv4_echo(s, rx, msg, len);
        break;
    case MIP_ICMPV4_ECHO_REPLY:
        ping_reply_input(s, rx, msg, len);
        break;
    case MIP_ICMPV4_DEST_UNREACH:
    case MIP_ICMPV4_TIME_EXCEEDED:
    case MIP_ICMPV4_PARAM_PROBLEM:
        icmpv4_error_in(s, &ih, msg, len);
        break;
    default:
        STAT(s, drop_icmp_unhandled);
        break;
    }
}

void icmpv4_send_error(struct mip_stack *s, uint8_t type, uint8_t code, uint32_t rest,
                       const uint8_t *hdr, size_t hdr_len, const uint8_t *l4, size_t l4_len)
{
    struct mip_ipv4_hdr h;
    struct mip_ip_tx tx;
    struct mip_pbuf *p;
    /* Only the header's fixed fields matter; hdr_len bounds the parse. */
    if (hdr_len < MIP_IPV4_HDR_LEN || (hdr[0] >> 4) != 4)
        return;
    memset(&h, 0, sizeof(h));
    h.hdr_len = (uint8_t)((hdr[0] & 0x0Fu) * 4u);
    h.frag_offset = (uint16_t)((mip_rd16(hdr + 6) & 0x1FFFu) * 8u);
    memcpy(h.src, hdr + 12, 4);
    memcpy(h.dst, hdr + 16, 4);
    /* RFC 1122 3.2.2: never about an ICMP error, a later fragment, a
     * broadcast or multicast, or a source that names no single host. */
    if ((hdr[9] == MIP_IPPROTO_ICMP && (l4_len < 1 || is_error_type(l4[0]))) ||
        h.frag_offset != 0 || ip4_is_multicast(h.dst) || ip4_is_limited_bcast(h.dst) ||
        ip4_is_multicast(h.src) || ip4_is_limited_bcast(h.src) ||
        (h.src[0] == 0 && h.src[1] == 0 && h.src[2] == 0 && h.src[3] == 0) ||
        stack_is_bcast4(s, h.dst) || stack_is_bcast4(s, h.src))
        return;
    if (!icmp_rate_allow(s))
        return;
    p = icmp_error_build(s, MIP_IPV4_HDR_LEN, ICMPV4_ERROR_MAX, type, code, rest,
                         hdr, hdr_len, l4, l4_len);
    if (p == NULL)
        return;
    memset(&tx, 0, sizeof(tx));
    mip_addr_set4(&tx.dst, h.src);
    tx.proto = MIP_IPPROTO_ICMP;
    tx.netif = MIP_NETIF_ANY;
    {
        struct mip_addr orig_dst;
        mip_addr_set4(&orig_dst, h.dst);
        if (stack_is_own_addr(s, &orig_dst))
            tx.src = orig_dst;
    }
    icmp_error_send(s, &tx, p, 0);
}

#endif
