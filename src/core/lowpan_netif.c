/* The IEEE 802.15.4 radio netif (netif.h): 6LoWPAN IPHC with RFC 4944
 * fragmentation and reassembly, or raw IP behind a fixed-size header. */
#include "core.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/sixlowpan.h"
#include <string.h>

#if MIP_CONF_LOWPAN

static const struct mip_netif_ops lowpan_ops;

/* RAW_IP layout: MHR with short addresses and PAN ID compression. */
#define RAW_MHR_LEN        9u
#define RAW_DISPATCH_IPV4  0x3Fu   /* from the NALP range: no LoWPAN node parses it */
#define RAW_HDR_MIN        12u
#define RAW_HDR_MAX        64u
#define FCS_LEN            MIP_802154_FCS_LEN
#define FRAME_MAX_MIN      32u

void lowpan_our_link_addr(const struct mip_netif_lowpan *lp, struct mip_802154_addr *a)
{
    memset(a, 0, sizeof(*a));
    if (lp->short_addr >= 0xFFFEu) {
        a->mode = MIP_802154_ADDR_EXT;
        memcpy(a->ext, lp->ext_addr, 8);
    } else {
        a->mode = MIP_802154_ADDR_SHORT;
        a->short_addr = lp->short_addr;
    }
}

static bool is_bcast(const struct mip_802154_addr *a)
{
    return a->mode == MIP_802154_ADDR_SHORT && a->short_addr == MIP_802154_BROADCAST;
}

void lowpan_env(const struct mip_netif_lowpan *lp, const struct mip_802154_addr *src,
                       const struct mip_802154_addr *dst, struct mip_lowpan_env *env)
{
    env->src = src;
    env->dst = dst;
#if MIP_CONF_ND6LO
    env->ctx = lp->ctx_prefix;
    env->ctx_count = MIP_LOWPAN_CTX_IDS;
    env->ctx_absent = (uint16_t)~lp->ctx_valid;
    env->ctx_nocomp = (uint16_t)~lp->ctx_comp;
#else
    env->ctx = &lp->ctx0_prefix;
    env->ctx_count = lp->has_context0 ? 1u : 0u;
    env->ctx_absent = 0;
    env->ctx_nocomp = 0;
#endif
    env->udp_cksum_elide = lp->udp_cksum_elide;
    env->has_udp_ports = lp->has_udp_ports;
    env->udp_ports[0] = lp->udp_ports[0];
    env->udp_ports[1] = lp->udp_ports[1];
    env->tcp_nhc = false;   /* set by the TCP paths that handle it */
}

/* Counts a codec error the way the stats list names it. */
void lowpan_count_codec_error(struct mip_stack *s, mip_status st)
{
    if (st == MIP_ERR_NOTFOUND)
        STAT(s, drop_lowpan_unknown_context);
    else if (st == MIP_ERR_UNSUPPORTED)
        STAT(s, drop_lowpan_unsupported);
    else
        STAT(s, drop_lowpan_malformed);
}

/* --- output ---------------------------------------------------------------- */

/* The link address frames towards nexthop go to (netif.h). */
mip_status lowpan_link_dst(const struct mip_netif *nif, const struct mip_addr *nexthop,
                           struct mip_802154_addr *out)
{
    memset(out, 0, sizeof(*out));
    out->mode = MIP_802154_ADDR_SHORT;
    out->short_addr = MIP_802154_BROADCAST;
#if MIP_CONF_IPV6
    if (nexthop->family == MIP_AF_INET6) {
        if (ip6_is_multicast(nexthop->bytes))
            return MIP_OK;
        return mip_lowpan_link_from_iid(nexthop->bytes + 8, out);
    }
#endif
#if MIP_CONF_IPV4
    if (nexthop->family == MIP_AF_INET) {
        bool bcast;
        uint16_t sa = mip_rd16(nexthop->bytes + 2);
        if (ip4_is_multicast(nexthop->bytes) ||
            (netif_accepts4(nif, nexthop->bytes, &bcast) && bcast))
            return MIP_OK;
        if (sa >= 0xFFFEu)
            return MIP_ERR_NOTFOUND;
        out->short_addr = sa;
        return MIP_OK;
    }
#endif
    (void)nif;
    return MIP_ERR_NOTFOUND;
}

static void mhr_of(const struct mip_netif_lowpan *lp, const struct mip_802154_addr *dst,
                   struct mip_802154_hdr *h)
{
    memset(h, 0, sizeof(*h));
    h->type = MIP_802154_DATA;
    h->pan_id_compress = true;
    h->ack_request = lp->ack_request && !is_bcast(dst);
    h->dst_pan = lp->pan_id;
    h->src_pan = lp->pan_id;
    h->dst = *dst;
    lowpan_our_link_addr(lp, &h->src);
}

size_t lowpan_put_mhr(const struct mip_netif_lowpan *lp, const struct mip_802154_addr *dst,
                      uint8_t *frame, size_t cap)
{
    struct mip_802154_hdr h;
    size_t n = 0;
    mhr_of(lp, dst, &h);
    /* cap is a whole frame buffer and an MHR at most 23 bytes */
    (void)mip_ieee802154_emit(&h, frame, cap, &n);
    return n;
}

size_t lowpan_mhr_len(const struct mip_netif_lowpan *lp, const struct mip_802154_addr *dst)
{
    struct mip_802154_hdr h;
    mhr_of(lp, dst, &h);
    return mip_ieee802154_hdr_len(&h);
}

bool lowpan_is_iphc(const struct mip_netif *nif)
{
    return nif->ops == &lowpan_ops && nif->lowpan.mode == MIP_LOWPAN_IPHC;
}

size_t lowpan_room(const struct mip_netif *nif)
{
    return nif->drv->room != NULL ? nif->drv->room(nif->drv_ctx) : SIZE_MAX;
}

mip_status lowpan_send_frame(struct mip_stack *s, struct mip_netif *nif, const uint8_t *frame,
                             size_t len, unsigned how)
{
    const struct mip_netif_lowpan *lp = &nif->lowpan;
    mip_status st;
    if ((how & LOWPAN_TX_PACED) && lp->frag_gap_us != 0u && nif->drv->transmit_gap != NULL)
        st = nif->drv->transmit_gap(nif->drv_ctx, frame, len, lp->frag_gap_us);
    else
        st = nif->drv->transmit(nif->drv_ctx, frame, len);
    if (st != MIP_OK) {
        STAT(s, drop_tx_driver);
        return st;
    }
    STAT(s, tx_frames);
    if (how & LOWPAN_TX_FRAG)
        STAT(s, lowpan_frag_tx);
    return MIP_OK;
}

/* IPHC, in one frame when it fits, else FRAG1 + FRAGNs (RFC 4944 s.5.3):
 * size and offsets count uncompressed bytes, the compressed header goes in
 * the first fragment, and every fragment but the last covers a multiple of
 * 8 uncompressed bytes. */
#if MIP_CONF_LOWPAN_HC
/* The whole TCP datagram with a TCP NHC after its IPHC header, in one
 * frame (docs/LOWPAN.md): MIP_OK when it went (or the driver refused it),
 * NOTFOUND when it does not fit one frame or cannot be compressed so (the
 * caller sends it with standard IPHC; nothing changed). */
static mip_status tcphc_send(struct mip_stack *s, struct mip_netif *nif, const uint8_t *ip,
                             size_t len, const struct mip_802154_addr *dst, mip_status *sent)
{
    struct mip_netif_lowpan *lp = &nif->lowpan;
    uint8_t frame[MIP_RADIO_FRAME_MAX];
    struct mip_802154_addr src;
    struct mip_lowpan_env env;
    struct mip_lowpan_tcphc_pending pend;
    size_t fmax = (size_t)lp->frame_max - FCS_LEN, mhr, hc_len, consumed, tl, tcp_hl;
    if (!lowpan_tcphc_wanted(lp, dst, ip, len))
        return MIP_ERR_NOTFOUND;
    lowpan_our_link_addr(lp, &src);
    lowpan_env(lp, &src, dst, &env);
    env.tcp_nhc = true;
    mhr = lowpan_put_mhr(lp, dst, frame, sizeof(frame));
    if (mip_lowpan_iphc_compress(ip, len, &env, frame + mhr, fmax - mhr, &consumed, &hc_len) !=
            MIP_OK || consumed != 40u)
        return MIP_ERR_NOTFOUND;
    tl = lowpan_tcphc_compress(s, lp, dst, ip, len, frame + mhr + hc_len, fmax - mhr - hc_len,
                               &tcp_hl, &pend);
    if (tl == 0u)
        return MIP_ERR_NOTFOUND;
    if (mhr + hc_len + tl + (len - 40u - tcp_hl) > fmax) {
        lowpan_tcphc_abort(&pend);
        return MIP_ERR_NOTFOUND;
    }
    memcpy(frame + mhr + hc_len + tl, ip + 40u + tcp_hl, len - 40u - tcp_hl);
    *sent = lowpan_send_frame(s, nif, frame, mhr + hc_len + tl + (len - 40u - tcp_hl), 0);
    /* a frame the driver refused changes no context: the next one must
     * decode against what the neighbour holds */
    if (*sent != MIP_OK) {
        lowpan_tcphc_abort(&pend);
        return MIP_OK;
    }
    lowpan_tcphc_commit(s, lp, dst, ip, &pend);
    STAT(s, lowpan_iphc_tx);
    mip_stat_add(&s->stats, MIP_STAT_lowpan_hc_bytes_tx, (uint32_t)(hc_len + tl));
    return MIP_OK;
}
#endif

/* IPHC, in one frame when it fits, else FRAG1 + FRAGNs (RFC 4944 s.5.3):
 * size and offsets count uncompressed bytes, the compressed header goes in
 * the first fragment, and every fragment but the last covers a multiple of
 * 8 uncompressed bytes. */
static mip_status iphc_send(struct mip_stack *s, struct mip_netif *nif, const uint8_t *ip,
                            size_t len, const struct mip_802154_addr *dst, unsigned frag)
{
    const struct mip_netif_lowpan *lp = &nif->lowpan;
    uint8_t frame[MIP_RADIO_FRAME_MAX];
    uint8_t hc[MIP_LOWPAN_IPHC_MAX];
    struct mip_802154_addr src;
    struct mip_lowpan_env env;
    struct mip_lowpan_frag fh;
    size_t fmax = (size_t)lp->frame_max - FCS_LEN, mhr, hc_len, consumed, room, chunk, off, n;
    mip_status st;

#if MIP_CONF_LOWPAN_HC
    if (tcphc_send(s, nif, ip, len, dst, &st) == MIP_OK)
        return st;
#endif
    lowpan_our_link_addr(lp, &src);
    lowpan_env(lp, &src, dst, &env);
    st = mip_lowpan_iphc_compress(ip, len, &env, hc, sizeof(hc), &consumed, &hc_len);
    if (st != MIP_OK) {
        STAT(s, drop_lowpan_malformed);
        return st;
    }
    mhr = lowpan_put_mhr(lp, dst, frame, sizeof(frame));
    if (MIP_CONF_LOWPAN_HC && mhr + hc_len + (len - consumed) > fmax && env.udp_cksum_elide) {
        /* in fragments: the receiver computes no checksum back before the
         * datagram is whole, so it travels with the datagram */
        env.udp_cksum_elide = false;
        st = mip_lowpan_iphc_compress(ip, len, &env, hc, sizeof(hc), &consumed, &hc_len);
        if (st != MIP_OK) {
            STAT(s, drop_lowpan_malformed);
            return st;
        }
    }
    STAT(s, lowpan_iphc_tx);
    /* a TCP header IPHC leaves inline counts as header bytes too */
    mip_stat_add(&s->stats, MIP_STAT_lowpan_hc_bytes_tx,
                 (uint32_t)(hc_len + (ip[6] == 6u && consumed == 40u && len >= 60u
                                          ? (size_t)(ip[52] >> 4) * 4u : 0u)));
    if (mhr + hc_len + (len - consumed) <= fmax) {
        memcpy(frame + mhr, hc, hc_len);
        memcpy(frame + mhr + hc_len, ip + consumed, len - consumed);
        return lowpan_send_frame(s, nif, frame, mhr + hc_len + (len - consumed), 0);
    }
    /* Both kinds of fragment must carry something: the first its whole
     * compressed header, the others at least one 8-byte block. */
    if (mhr + MIP_LOWPAN_FRAG1_LEN + hc_len > fmax ||
        mhr + MIP_LOWPAN_FRAGN_LEN + 8u > fmax || len > MIP_LOWPAN_SIZE_MAX) {
        STAT(s, drop_lowpan_too_big);
        return MIP_ERR_NOSPACE;
    }
    /* All the frames or none: half a datagram would only hold a slot of
     * the next hop's reassembly in vain. */
    room = ((fmax - mhr - MIP_LOWPAN_FRAGN_LEN) / 8u) * 8u;
    off = ((consumed + fmax - mhr - MIP_LOWPAN_FRAG1_LEN - hc_len) / 8u) * 8u;  /* FRAG1's end */
    if (lowpan_room(nif) < 1u + (len - off + room - 1u) / room) {
        STAT(s, drop_lowpan_queue_full);
        return MIP_ERR_NOBUFS;
    }
    fh.first = true;
    fh.size = (uint16_t)len;
    fh.tag = nif->lowpan.next_tag++;
    fh.offset = 0;
    (void)mip_lowpan_frag_emit(&fh, frame + mhr, fmax - mhr, &n);
    /* consumed (40 or 48) is a multiple of 8, so this chunk ends on an
     * 8-byte boundary of the uncompressed datagram */
    room = fmax - mhr - MIP_LOWPAN_FRAG1_LEN - hc_len;
    chunk = ((consumed + room) / 8u) * 8u - consumed;
    memcpy(frame + mhr + n, hc, hc_len);
    memcpy(frame + mhr + n + hc_len, ip + consumed, chunk);
    st = lowpan_send_frame(s, nif, frame, mhr + n + hc_len + chunk, frag);
    if (st != MIP_OK)
        return st;
    fh.first = false;
    room = ((fmax - mhr - MIP_LOWPAN_FRAGN_LEN) / 8u) * 8u;
    for (off = consumed + chunk; off < len; off += chunk) {
        chunk = len - off < room ? len - off : room;
        fh.offset = (uint16_t)off;
        (void)mip_lowpan_frag_emit(&fh, frame + mhr, fmax - mhr, &n);
        memcpy(frame + mhr + n, ip + off, chunk);
        st = lowpan_send_frame(s, nif, frame, mhr + n + chunk, frag);
        if (st != MIP_OK)
            return st;
    }
    return MIP_OK;
}

/* RAW_IP: MHR, zero padding, dispatch byte, datagram; one frame. */
static mip_status raw_send(struct mip_stack *s, struct mip_netif *nif, const uint8_t *ip,
                           size_t len, uint8_t family, const struct mip_802154_addr *dst)
{
    const struct mip_netif_lowpan *lp = &nif->lowpan;
    uint8_t frame[MIP_RADIO_FRAME_MAX];
    size_t hdr = (size_t)lp->raw_link_hdr_len - FCS_LEN, mhr;
    if (dst->mode != MIP_802154_ADDR_SHORT) {
        STAT(s, drop_lowpan_no_l2addr);
        return MIP_ERR_NOROUTE;
    }
    if (hdr + len > (size_t)lp->frame_max - FCS_LEN) {
        STAT(s, drop_lowpan_too_big);
        return MIP_ERR_NOSPACE;
    }
    mhr = lowpan_put_mhr(lp, dst, frame, sizeof(frame));
    memset(frame + mhr, 0, hdr - 1u - mhr);
    frame[hdr - 1u] = family == MIP_AF_INET ? RAW_DISPATCH_IPV4 : MIP_LOWPAN_DISPATCH_IPV6;
    memcpy(frame + hdr, ip, len);
    return lowpan_send_frame(s, nif, frame, hdr + len, 0);
}

static mip_status lowpan_output(struct mip_stack *s, struct mip_netif *nif,
                                struct mip_pbuf *p, const struct mip_addr *nexthop)
{
    struct mip_802154_addr dst;
    const uint8_t *ip = mip_pbuf_payload(p);
    size_t len = p->len;
    uint8_t family = len > 0u ? (uint8_t)(ip[0] >> 4) : 0u;
    mip_status st;
    /* The datagram's own version decides the dispatch; a next hop of the
     * other family (never produced by ip_output) is refused with it. */
    if ((family != MIP_AF_INET6 && family != MIP_AF_INET) || family != nexthop->family ||
        (family == MIP_AF_INET && nif->lowpan.mode == MIP_LOWPAN_IPHC)) {
        STAT(s, drop_lowpan_unsupported);
        st = MIP_ERR_UNSUPPORTED;
    } else if (len > nif->mtu) {
        STAT(s, drop_lowpan_too_big);
        st = MIP_ERR_NOSPACE;
    } else if (lowpan_link_dst(nif, nexthop, &dst) != MIP_OK) {
        STAT(s, drop_lowpan_no_l2addr);
        st = MIP_ERR_NOROUTE;
    } else if (nif->lowpan.mode == MIP_LOWPAN_IPHC) {
        /* RFC 8930's gap lets a fragment move on beyond the next hop: not
         * needed when the next hop is the datagram's destination */
        st = iphc_send(s, nif, ip, len, &dst,
                       LOWPAN_TX_FRAG | (len >= 40u && memcmp(nexthop->bytes, ip + 24, 16) != 0
                                             ? LOWPAN_TX_PACED : 0u));
    } else {
        st = raw_send(s, nif, ip, len, family, &dst);
    }
    mip_pbuf_free(&s->pool, p);
    return st;
}

/* --- input ------------------------------------------------------------------- */

static bool frame_for_us(const struct mip_netif_lowpan *lp, const struct mip_802154_hdr *h)
{
    if (h->dst_pan != lp->pan_id && h->dst_pan != MIP_802154_PAN_NONE)
        return false;
    if (h->dst.mode == MIP_802154_ADDR_SHORT)
        return h->dst.short_addr == MIP_802154_BROADCAST ||
               (h->dst.short_addr == lp->short_addr && lp->short_addr < 0xFFFEu);
    if (h->dst.mode == MIP_802154_ADDR_EXT)
        return memcmp(h->dst.ext, lp->ext_addr, 8) == 0;
    return false;
}

static void iphc_input(struct mip_stack *s, struct mip_netif *nif,
                       const struct mip_802154_hdr *h, const uint8_t *pl, size_t n, bool bcast)
{
    switch (mip_lowpan_dispatch_of(pl[0])) {
    case MIP_LOWPAN_D_IPV6:
        ipv6_input(s, nif, pl + 1, n - 1u, bcast);
        return;
    case MIP_LOWPAN_D_IPHC: {
        /* with a TCP NHC, a compressed header of 6 bytes can become 60 */
        uint8_t buf[MIP_RADIO_FRAME_MAX + MIP_LOWPAN_UNCOMP_MAX +
                    (MIP_CONF_LOWPAN_HC ? MIP_LOWPAN_TCPHC_MAX : 0)];
        struct mip_lowpan_env env;
        size_t consumed, hl;
        mip_status st;
        lowpan_env(&nif->lowpan, &h->src, &h->dst, &env);
#if MIP_CONF_LOWPAN_HC
        env.tcp_nhc = nif->lowpan.tcp_hc;
#endif
        st = mip_lowpan_iphc_decompress(pl, n, &env, 0, buf, sizeof(buf), &consumed, &hl);
        if (st != MIP_OK) {
            lowpan_count_codec_error(s, st);
            return;
        }
#if MIP_CONF_LOWPAN_HC
        if ((pl[0] & 0x04u) != 0u && buf[6] == 6u) {
            /* NH with Next Header TCP: a TCP NHC follows */
            size_t len = lowpan_tcphc_expand(s, &nif->lowpan, &h->src, buf, sizeof(buf),
                                             pl + consumed, n - consumed);
            if (len != 0u)
                ipv6_input(s, nif, buf, len, bcast);
            return;
        }
#endif
        /* n <= MIP_RADIO_FRAME_MAX (checked by the caller): it fits */
        memcpy(buf + hl, pl + consumed, n - consumed);
        ipv6_input(s, nif, buf, hl + (n - consumed), bcast);
        return;
    }
    case MIP_LOWPAN_D_FRAG1:
    case MIP_LOWPAN_D_FRAGN:
        lowpan_frag_input(s, nif, h, pl, n);
        return;
    default:
        STAT(s, drop_lowpan_unsupported);
        return;
    }
}

static void raw_input(struct mip_stack *s, struct mip_netif *nif, const uint8_t *frame,
                      size_t len, size_t mhr, bool bcast)
{
    size_t hdr = (size_t)nif->lowpan.raw_link_hdr_len - FCS_LEN;
    if (len < hdr) {
        STAT(s, drop_link_truncated);
        return;
    }
    if (mhr >= hdr) {
        /* longer addressing than the fixed header leaves room for */
        STAT(s, drop_lowpan_malformed);
        return;
    }
    switch (frame[hdr - 1u]) {
    case MIP_LOWPAN_DISPATCH_IPV6:
        ipv6_input(s, nif, frame + hdr, len - hdr, bcast);
        return;
#if MIP_CONF_IPV4
    case RAW_DISPATCH_IPV4:
        ipv4_input(s, nif, frame + hdr, len - hdr, bcast);
        return;
#endif
    default:
        STAT(s, drop_lowpan_unsupported);
        return;
    }
}

static void lowpan_input(struct mip_stack *s, struct mip_netif *nif,
                         const uint8_t *frame, size_t len)
{
    const struct mip_netif_lowpan *lp = &nif->lowpan;
    struct mip_802154_hdr h;
    size_t mhr;
    bool bcast;
    mip_status st = mip_ieee802154_parse(frame, len, &h, &mhr);
    if (st != MIP_OK) {
        if (st == MIP_ERR_TRUNCATED)
            STAT(s, drop_link_truncated);
        else if (st == MIP_ERR_UNSUPPORTED)
            STAT(s, drop_link_unsupported);
        else
            STAT(s, drop_lowpan_malformed);
        return;
    }
    if (h.type != MIP_802154_DATA) {
        STAT(s, drop_link_unsupported);
        return;
    }
    if (!frame_for_us(lp, &h)) {
        STAT(s, drop_link_not_for_us);
        return;
    }
    if (len > (size_t)lp->frame_max - FCS_LEN) {
        STAT(s, drop_lowpan_too_big);
        return;
    }
    bcast = is_bcast(&h.dst);
    if (lp->mode == MIP_LOWPAN_RAW_IP) {
        raw_input(s, nif, frame, len, mhr, bcast);
        return;
    }
    if (len == mhr) {
        STAT(s, drop_lowpan_malformed);
        return;
    }
    iphc_input(s, nif, &h, frame + mhr, len - mhr, bcast);
}

/* --- looking into frames (relays) -------------------------------------------- */

#if MIP_CONF_FORWARD

static const struct mip_netif *radio_netif(const struct mip_stack *s, uint8_t netif)
{
    const struct mip_netif *nif = mip_netif_get((struct mip_stack *)s, netif);
    return nif != NULL && nif->ops == &lowpan_ops ? nif : NULL;
}

static mip_status peek_copy(const uint8_t *ip, size_t n, size_t dgram_len, uint8_t *buf,
                            size_t cap, struct mip_lowpan_peek *out)
{
    size_t k = n < cap ? n : cap;
    if (n == 0u)
        return MIP_ERR_TRUNCATED;       /* a dispatch and nothing after it */
    if (cap == 0u)
        return MIP_ERR_NOSPACE;
    memcpy(buf, ip, k);
    out->ip_len = k;
    out->dgram_len = dgram_len;
    return MIP_OK;
}

/* The datagram length an IP header announces (0 when it does not parse). */
static size_t ip_announced_len(const uint8_t *ip, size_t n)
{
    if (n >= 20u && (ip[0] >> 4) == 4u)
        return mip_rd16(ip + 2);
    if (n >= 40u && (ip[0] >> 4) == 6u)
        return 40u + mip_rd16(ip + 4);
    return 0;
}

mip_status mip_lowpan_peek_frame(const struct mip_stack *s, uint8_t netif,
                                 const uint8_t *frame, size_t len,
                                 uint8_t *buf, size_t cap, struct mip_lowpan_peek *out)
{
    const struct mip_netif *nif = radio_netif(s, netif);
    struct mip_802154_hdr h;
    struct mip_lowpan_env env;
    struct mip_lowpan_frag f;
    const uint8_t *pl;
    size_t mhr, n, fl = 0, consumed, hl, dgram = 0;
    mip_status st;

    if (nif == NULL)
        return MIP_ERR_INVALID;
    memset(out, 0, sizeof(*out));
    st = mip_ieee802154_parse(frame, len, &h, &mhr);
    if (st != MIP_OK)
        return st;
    if (h.type != MIP_802154_DATA)
        return MIP_ERR_NOTFOUND;
    out->link_src = h.src;
    out->link_dst = h.dst;
    if (nif->lowpan.mode == MIP_LOWPAN_RAW_IP) {
        size_t hdr = (size_t)nif->lowpan.raw_link_hdr_len - FCS_LEN;
        if (len < hdr || mhr >= hdr)
            return MIP_ERR_TRUNCATED;
        if (frame[hdr - 1u] != MIP_LOWPAN_DISPATCH_IPV6 && frame[hdr - 1u] != RAW_DISPATCH_IPV4)
            return MIP_ERR_NOTFOUND;
        return peek_copy(frame + hdr, len - hdr, ip_announced_len(frame + hdr, len - hdr),
                         buf, cap, out);
    }
    pl = frame + mhr;
    n = len - mhr;
    if (n == 0u)
        return MIP_ERR_TRUNCATED;
    switch (mip_lowpan_dispatch_of(pl[0])) {
    case MIP_LOWPAN_D_FRAG1:
        st = mip_lowpan_frag_parse(pl, n, &f, &fl);
        if (st != MIP_OK)
            return st;
        dgram = f.size;
        pl += fl;
        n -= fl;
        if (n == 0u)
            return MIP_ERR_TRUNCATED;
        break;
    case MIP_LOWPAN_D_IPHC:
    case MIP_LOWPAN_D_IPV6:
        break;
    default:
        return MIP_ERR_NOTFOUND;   /* FRAGN and anything else: no IP header here */
    }
    if (mip_lowpan_dispatch_of(pl[0]) == MIP_LOWPAN_D_IPV6)
        return peek_copy(pl + 1, n - 1u, dgram ? dgram : ip_announced_len(pl + 1, n - 1u),
                         buf, cap, out);
    if (mip_lowpan_dispatch_of(pl[0]) != MIP_LOWPAN_D_IPHC)
        return MIP_ERR_NOTFOUND;
    lowpan_env(&nif->lowpan, &h.src, &h.dst, &env);
#if MIP_CONF_LOWPAN_HC
    env.tcp_nhc = nif->lowpan.tcp_hc && frame_for_us(&nif->lowpan, &h);
#endif
    st = mip_lowpan_iphc_decompress(pl, n, &env, dgram, buf, cap, &consumed, &hl);
    if (st != MIP_OK)
        return st;
#if MIP_CONF_LOWPAN_HC
    if ((pl[0] & 0x04u) != 0u && hl == 40u && buf[6] == 6u) {
        size_t dl = lowpan_tcphc_peek(&nif->lowpan, &h.src, buf, cap, pl + consumed,
                                       n - consumed);
        if (dl == 0u)
            return MIP_ERR_NOTFOUND;
        out->ip_len = dl;
        out->dgram_len = dl;
        return MIP_OK;
    }
#endif
    n -= consumed;
    if (n > cap - hl)
        n = cap - hl;
    memcpy(buf + hl, pl + consumed, n);
    out->ip_len = hl + n;
    out->dgram_len = dgram ? dgram : ip_announced_len(buf, hl);
    return MIP_OK;
}

mip_status mip_lowpan_link_addr_of(const struct mip_stack *s, uint8_t netif,
                                   const struct mip_addr *nexthop,
                                   struct mip_802154_addr *out)
{
    const struct mip_netif *nif = radio_netif(s, netif);
    if (nif == NULL)
        return MIP_ERR_INVALID;
    return lowpan_link_dst(nif, nexthop, out);
}
#endif /* MIP_CONF_FORWARD */

static const struct mip_netif_ops lowpan_ops = {
    lowpan_input,
    lowpan_output,
    0,   /* frames are built in a local buffer, not in the pbuf's headroom */
};

mip_status mip_netif_add_lowpan(struct mip_stack *s, const struct mip_lowpan_config *cfg,
                                const struct mip_netif_driver *drv, void *drv_ctx,
                                uint8_t *index)
{
    struct mip_netif *nif;
    struct mip_netif_lowpan *lp;
    uint16_t mtu;
    uint32_t frame_max;
    if (cfg == NULL || drv == NULL || drv->transmit == NULL)
        return MIP_ERR_INVALID;
    /* 32 bits: MIP_RADIO_FRAME_MAX + 2 may be the largest uint8_t */
    frame_max = cfg->frame_max;
    if (frame_max < FRAME_MAX_MIN || frame_max > MIP_RADIO_FRAME_MAX + FCS_LEN)
        return MIP_ERR_INVALID;
    if (cfg->mode == MIP_LOWPAN_IPHC) {
        mtu = MIP_LOWPAN_DGRAM_MAX;
        if (cfg->frag_mode > MIP_LOWPAN_FRAG_FORWARD)
            return MIP_ERR_INVALID;
        if (cfg->frag_mode == MIP_LOWPAN_FRAG_FORWARD && MIP_LOWPAN_VRB_SLOTS == 0)
            return MIP_ERR_UNSUPPORTED;
    } else if (cfg->mode == MIP_LOWPAN_RAW_IP) {
        if (cfg->raw_link_hdr_len < RAW_HDR_MIN || cfg->raw_link_hdr_len > RAW_HDR_MAX ||
            cfg->frame_max < cfg->raw_link_hdr_len + 68u || cfg->short_addr >= 0xFFFEu)
            return MIP_ERR_INVALID;
        mtu = (uint16_t)(cfg->frame_max - cfg->raw_link_hdr_len);
    } else {
        return MIP_ERR_INVALID;
    }
    if (!MIP_CONF_LOWPAN_HC && (cfg->udp_cksum_elide || cfg->has_udp_ports || cfg->tcp_hc))
        return MIP_ERR_UNSUPPORTED;
    nif = netif_alloc(s);
    if (nif == NULL)
        return MIP_ERR_NOBUFS;
    nif->ops = &lowpan_ops;
    nif->drv = drv;
    nif->drv_ctx = drv_ctx;
    nif->mtu = mtu;
    lp = &nif->lowpan;
    lp->mode = cfg->mode;
    lp->frame_max = cfg->frame_max;
    lp->raw_link_hdr_len = cfg->raw_link_hdr_len;
    lp->ack_request = cfg->ack_request;
    lp->has_context0 = cfg->has_context0;
    lp->frag_mode = cfg->mode == MIP_LOWPAN_IPHC ? cfg->frag_mode : 0u;
    lp->frag_gap_us = lp->frag_mode == MIP_LOWPAN_FRAG_FORWARD ? cfg->frag_gap_us : 0u;
    lp->pan_id = cfg->pan_id;
    lp->short_addr = cfg->short_addr;
    memcpy(lp->ext_addr, cfg->ext_addr, 8);
    memcpy(lp->ctx0_prefix, cfg->ctx0_prefix, 8);
    lp->udp_cksum_elide = cfg->mode == MIP_LOWPAN_IPHC && cfg->udp_cksum_elide;
    lp->has_udp_ports = cfg->mode == MIP_LOWPAN_IPHC && cfg->has_udp_ports;
    lp->udp_ports[0] = cfg->udp_ports[0];
    lp->udp_ports[1] = cfg->udp_ports[1];
#if MIP_CONF_LOWPAN_HC
    lp->tcp_hc = cfg->mode == MIP_LOWPAN_IPHC && cfg->tcp_hc;
    lp->tcp_hc_peer = cfg->tcp_hc_peer;
    lp->tcp_hc_peer_ctx = cfg->tcp_hc_peer_ctx;
#endif
#if MIP_CONF_ND6LO
    if (cfg->has_context0) {
        memcpy(lp->ctx_prefix[0], cfg->ctx0_prefix, 8);
        lp->ctx_valid = lp->ctx_comp = lp->ctx_static = 1u;
    }
#endif
    /* A random first tag, so a rebooted node does not reuse the tags of
     * fragments a neighbor still holds. */
    lp->next_tag = (uint16_t)mip_rng_next(&s->rng);
#if MIP_CONF_IPV6
    {
        struct mip_802154_addr me;
        struct mip_addr ll;
        uint8_t iid[8];
        lowpan_our_link_addr(lp, &me);
        (void)mip_lowpan_iid_from_link(&me, iid);
        netif_set_linklocal(nif, iid);
        mip_addr_set6(&ll, nif->addr6[0].addr);
        (void)mip_route_add(s, &ll, 64, NULL, nif->index);
    }
#endif
    if (index != NULL)
        *index = nif->index;
    return MIP_OK;
}

#endif
