/* What ICMPv4 and ICMPv6 share: error rate limiting and the building of
 * error messages. */
#include "core.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include <string.h>

/* RFC 4443 2.4(f). Echo replies are not limited: they answer a request
 * one for one. */
bool icmp_rate_allow(struct mip_stack *s)
{
    if (rate_take(&s->icmp_limit, s->now, MIP_ICMP_RATE_BURST, MIP_ICMP_RATE_INTERVAL_MS))
        return true;
    STAT(s, drop_icmp_rate_limited);
    return false;
}

struct mip_pbuf *icmp_error_build(struct mip_stack *s, uint16_t ip_hdr_len, size_t max,
                                  uint8_t type, uint8_t code, uint32_t rest,
                                  const uint8_t *hdr, size_t hdr_len,
                                  const uint8_t *l4, size_t l4_len)
{
    struct mip_pbuf *p = mip_pbuf_alloc(&s->pool, (uint16_t)(MIP_LINK_HDR_MAX + ip_hdr_len));
    size_t room, qlen;
    uint8_t *w;
    if (p == NULL) {
        STAT(s, drop_tx_no_pbuf);
        return NULL;
    }
    /* ICMPv4 and ICMPv6 share the 8-byte header layout. */
    room = mip_pbuf_tailroom(p) < max ? mip_pbuf_tailroom(p) : max;
    qlen = hdr_len + l4_len;
    if (8u + qlen > room)
        qlen = room - 8u;
    w = mip_pbuf_put(p, (uint16_t)(8u + qlen));
    w[0] = type;
    w[1] = code;
    w[2] = 0;
    w[3] = 0;
    mip_wr32(w + 4, rest);
    memcpy(w + 8, hdr, hdr_len < qlen ? hdr_len : qlen);
    if (qlen > hdr_len)
        memcpy(w + 8 + hdr_len, l4, qlen - hdr_len);
    return p;
}

void icmp_error_send(struct mip_stack *s, const struct mip_ip_tx *tx, struct mip_pbuf *p,
                     uint32_t pseudo_sum)
{
    uint8_t *w = mip_pbuf_payload(p);
    mip_status st;
    mip_wr16(w + 2, mip_cksum_finish(mip_cksum_add(pseudo_sum, w, p->len)));
    st = mip_ip_output(s, tx, p);
    if (st == MIP_OK || st == MIP_ERR_PENDING)
        STAT(s, icmp_errors_tx);
}
