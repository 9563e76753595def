/* TCP header compression on the IPHC radio netif (netif.h tcp_hc;
 * docs/LOWPAN.md "TCP header compression"): the per-link contexts around
 * the pure codec wire/lowpan_tcp.c, the checksum check that detects a
 * mismatch at every hop, and the refresh request (R) that repairs it. */
#include "core.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/lowpan_tcp.h"
#include <string.h>

#if MIP_CONF_LOWPAN && MIP_CONF_LOWPAN_HC

#if MIP_LOWPAN_TCPHC_SLOTS < 1 || MIP_LOWPAN_TCPHC_SLOTS > 8
#error "MIP_LOWPAN_TCPHC_SLOTS must be 1..8 (owe_r_used is a byte of bits)"
#endif

#define IPV6_HDR  40u
#define TCP_MIN   20u
#define PROTO_TCP 6u

static bool same_peer(const struct mip_802154_addr *a, const struct mip_802154_addr *b)
{
    if (a->mode != b->mode)
        return false;
    if (a->mode == MIP_802154_ADDR_SHORT)
        return a->short_addr == b->short_addr;
    return memcmp(a->ext, b->ext, 8) == 0;
}

/* Tells a compressor's flows apart (a collision only costs compression:
 * both ends follow the CID, not the flow). */
static uint16_t addr_hash(const uint8_t *ip)
{
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 8; i < 40u; i++)
        h = (h ^ ip[i]) * 16777619u;
    return (uint16_t)(h ^ (h >> 16));
}

/* The slot to reuse: a free one, else the least recently used. */
static struct mip_lowpan_tcphc_slot *victim(struct mip_lowpan_tcphc_slot *t)
{
    struct mip_lowpan_tcphc_slot *v = &t[0];
    unsigned i;
    for (i = 0; i < MIP_LOWPAN_TCPHC_SLOTS; i++) {
        if (t[i].state == 0u)
            return &t[i];
        if (t[i].lru < v->lru)
            v = &t[i];
    }
    return v;
}

static bool take_owed_r(struct mip_lowpan_tcphc *hc, const struct mip_802154_addr *peer)
{
    unsigned i;
    for (i = 0; i < MIP_LOWPAN_TCPHC_SLOTS; i++) {
        if ((hc->owe_r_used & (1u << i)) != 0u && same_peer(&hc->owe_r[i], peer)) {
            hc->owe_r_used = (uint8_t)(hc->owe_r_used & ~(1u << i));
            return true;
        }
    }
    return false;
}

/* Remembers to ask `peer` for a refresh (bounded: the oldest request goes
 * when all are taken; the neighbour's next mismatch asks again). */
static void owe_r(struct mip_lowpan_tcphc *hc, const struct mip_802154_addr *peer)
{
    unsigned i, free_i = 0;
    for (i = 0; i < MIP_LOWPAN_TCPHC_SLOTS; i++)
        if ((hc->owe_r_used & (1u << i)) != 0u && same_peer(&hc->owe_r[i], peer))
            return;
    for (i = 0; i < MIP_LOWPAN_TCPHC_SLOTS; i++) {
        if ((hc->owe_r_used & (1u << i)) == 0u) {
            free_i = i;
            break;
        }
    }
    hc->owe_r[free_i] = *peer;
    hc->owe_r_used = (uint8_t)(hc->owe_r_used | (1u << free_i));
}

bool lowpan_tcphc_wanted(const struct mip_netif_lowpan *lp, const struct mip_802154_addr *peer,
                         const uint8_t *ip, size_t len)
{
    return lp->tcp_hc && len >= IPV6_HDR + TCP_MIN && ip[6] == PROTO_TCP &&
           len == IPV6_HDR + (size_t)mip_rd16(ip + 4) && peer->mode != MIP_802154_ADDR_NONE &&
           !(peer->mode == MIP_802154_ADDR_SHORT && peer->short_addr == MIP_802154_BROADCAST) &&
           (lp->tcp_hc_peer == NULL || lp->tcp_hc_peer(lp->tcp_hc_peer_ctx, peer));
}

/* The compressor's slot for this flow to peer: found, or taken (its CID
 * one this peer has free, else the peer's least recently used). */
static struct mip_lowpan_tcphc_slot *tx_slot(struct mip_lowpan_tcphc *hc,
                                             const struct mip_802154_addr *peer,
                                             const uint8_t *ip, bool *fresh)
{
    uint16_t h = addr_hash(ip);
    uint16_t sp = mip_rd16(ip + IPV6_HDR), dp = mip_rd16(ip + IPV6_HDR + 2);
    struct mip_lowpan_tcphc_slot *v = NULL, *t = hc->tx;
    uint8_t cids = 0;
    unsigned i;
    for (i = 0; i < MIP_LOWPAN_TCPHC_SLOTS; i++) {
        if (t[i].state == 0u || !same_peer(&t[i].peer, peer))
            continue;
        if (t[i].addr_hash == h && t[i].ctx.sport == sp && t[i].ctx.dport == dp) {
            *fresh = false;
            return &t[i];
        }
        cids = (uint8_t)(cids | (1u << t[i].cid));
        if (v == NULL || t[i].lru < v->lru)
            v = &t[i];
    }
    *fresh = true;
    if (cids != (1u << MIP_LOWPAN_TCPHC_CIDS) - 1u) {
        uint8_t c = 0;
        while ((cids & (1u << c)) != 0u)
            c++;
        v = victim(t);
        v->cid = c;
    }
    /* else: all four CIDs to this peer in use, v its least recently used */
    v->peer = *peer;
    v->addr_hash = h;
    v->state = 2;
    return v;
}

size_t lowpan_tcphc_compress(struct mip_stack *s, struct mip_netif_lowpan *lp,
                             const struct mip_802154_addr *peer, const uint8_t *ip, size_t len,
                             uint8_t *out, size_t cap, size_t *consumed,
                             struct mip_lowpan_tcphc_pending *pend)
{
    struct mip_lowpan_tcphc *hc = &lp->tcphc;
    struct mip_lowpan_tcphc_slot *sl;
    struct mip_lowpan_tcp_nhc nhc;
    size_t n;
    bool fresh, full;
    (void)s;
    sl = tx_slot(hc, peer, ip, &fresh);
    nhc.cid = sl->cid;
    nhc.full = sl->state == 2u;
    nhc.refresh = false;
    for (n = 0; n < MIP_LOWPAN_TCPHC_SLOTS; n++)
        if ((hc->owe_r_used & (1u << n)) != 0u && same_peer(&hc->owe_r[n], peer))
            nhc.refresh = true;
    if (mip_lowpan_tcp_compress(ip + IPV6_HDR, len - IPV6_HDR, &nhc, nhc.full ? NULL : &sl->ctx,
                                out, cap, consumed, &n, &full) != MIP_OK) {
        if (fresh)
            sl->state = 0;
        return 0;
    }
    pend->slot = sl;
    pend->full = full;
    pend->refresh = nhc.refresh;
    pend->fresh = fresh;
    return n;
}

void lowpan_tcphc_commit(struct mip_stack *s, struct mip_netif_lowpan *lp,
                         const struct mip_802154_addr *peer, const uint8_t *ip,
                         const struct mip_lowpan_tcphc_pending *pend)
{
    struct mip_lowpan_tcphc *hc = &lp->tcphc;
    struct mip_lowpan_tcphc_slot *sl = pend->slot;
    mip_lowpan_tcp_ctx_update(&sl->ctx, ip + IPV6_HDR, pend->full);
    sl->state = 1;
    sl->lru = ++hc->uses;
    if (pend->refresh)
        (void)take_owed_r(hc, peer);
    STAT(s, lowpan_tcphc_tx);
    if (pend->full)
        STAT(s, lowpan_tcphc_full_tx);
}

void lowpan_tcphc_abort(const struct mip_lowpan_tcphc_pending *pend)
{
    if (pend->fresh)
        pend->slot->state = 0;
}

static struct mip_lowpan_tcphc_slot *rx_find(const struct mip_lowpan_tcphc *hc,
                                             const struct mip_802154_addr *peer, uint8_t cid)
{
    unsigned i;
    for (i = 0; i < MIP_LOWPAN_TCPHC_SLOTS; i++)
        if (hc->rx[i].state != 0u && hc->rx[i].cid == cid && same_peer(&hc->rx[i].peer, peer))
            return (struct mip_lowpan_tcphc_slot *)&hc->rx[i];
    return NULL;
}

/* The TCP header from in[0..n) behind the IPv6 header at buf, then the
 * payload, Payload Length set: the datagram's length, 0 when it cannot. */
static size_t rebuild(const struct mip_lowpan_tcp_ctx *ctx, uint8_t *buf, size_t cap,
                      const uint8_t *in, size_t n, struct mip_lowpan_tcp_nhc *nhc,
                      mip_status *st)
{
    size_t consumed, hl, total;
    *st = mip_lowpan_tcp_decompress(in, n, ctx, buf + IPV6_HDR, cap - IPV6_HDR, nhc, &consumed,
                                    &hl);
    if (*st != MIP_OK)
        return 0;
    total = IPV6_HDR + hl + (n - consumed);
    if (total > cap || total - IPV6_HDR > 0xFFFFu) {
        *st = MIP_ERR_NOSPACE;
        return 0;
    }
    memcpy(buf + IPV6_HDR + hl, in + consumed, n - consumed);
    mip_wr16(buf + 4, (uint16_t)(total - IPV6_HDR));
    return total;
}

size_t lowpan_tcphc_peek(const struct mip_netif_lowpan *lp, const struct mip_802154_addr *peer,
                         uint8_t *buf, size_t cap, const uint8_t *in, size_t n)
{
    const struct mip_lowpan_tcphc_slot *sl;
    struct mip_lowpan_tcp_nhc nhc;
    mip_status st;
    if (n < 1u || cap < IPV6_HDR || mip_lowpan_tcp_nhc_of(in[0], &nhc) != MIP_OK)
        return 0;
    sl = rx_find(&lp->tcphc, peer, nhc.cid);
    n = rebuild(sl != NULL && !nhc.full ? &sl->ctx : NULL, buf, cap, in, n, &nhc, &st);
    if (n != 0u && !nhc.full && sl != NULL && addr_hash(buf) != sl->addr_hash)
        return 0;                     /* another flow's context (lowpan_tcphc_expand) */
    return n;
}

/* The peer asked for a refresh: every context we compress towards it
 * sends FULL next. */
static void refresh_towards(struct mip_lowpan_tcphc *hc, const struct mip_802154_addr *peer)
{
    unsigned i;
    for (i = 0; i < MIP_LOWPAN_TCPHC_SLOTS; i++)
        if (hc->tx[i].state == 1u && same_peer(&hc->tx[i].peer, peer))
            hc->tx[i].state = 2;
}

/* The context went wrong or is missing: drop it, ask the peer again. */
static size_t mismatch(struct mip_stack *s, struct mip_lowpan_tcphc *hc,
                       struct mip_lowpan_tcphc_slot *sl, const struct mip_802154_addr *peer)
{
    if (sl != NULL)
        sl->state = 0;
    owe_r(hc, peer);
    STAT(s, drop_lowpan_tcphc_mismatch);
    return 0;
}

size_t lowpan_tcphc_expand(struct mip_stack *s, struct mip_netif_lowpan *lp,
                           const struct mip_802154_addr *peer, uint8_t *buf, size_t cap,
                           const uint8_t *in, size_t n)
{
    struct mip_lowpan_tcphc *hc = &lp->tcphc;
    struct mip_lowpan_tcphc_slot *sl;
    struct mip_lowpan_tcp_nhc nhc;
    size_t total;
    uint32_t sum;
    mip_status st;
    if (n < 1u || cap < IPV6_HDR || mip_lowpan_tcp_nhc_of(in[0], &nhc) != MIP_OK) {
        STAT(s, drop_lowpan_malformed);
        return 0;
    }
    sl = rx_find(hc, peer, nhc.cid);
    total = rebuild(sl != NULL && !nhc.full ? &sl->ctx : NULL, buf, cap, in, n, &nhc, &st);
    if (st == MIP_ERR_NOTFOUND)
        return mismatch(s, hc, sl, peer);
    if (st == MIP_ERR_NOSPACE) {
        STAT(s, drop_lowpan_too_big);
        return 0;
    }
    if (st != MIP_OK) {
        lowpan_count_codec_error(s, st);
        return 0;
    }
    /* A compressor uses a context id for one flow (its addresses and
     * ports) at a time, and says FULL when it gives the id to another.
     * If that FULL was lost, our context is the old flow's: other
     * addresses show it here. The checksum would miss it when the two
     * flows' ports are each other's swapped (a swap of 16-bit words
     * keeps a ones' complement sum), and deliver the segment with the
     * wrong ports. */
    if (!nhc.full && sl != NULL && addr_hash(buf) != sl->addr_hash)
        return mismatch(s, hc, sl, peer);
    /* The end-to-end checksum, checked at every hop: a context that went
     * wrong rebuilds another header than was sent. */
    sum = mip_cksum_pseudo6(buf + 8, buf + 24, PROTO_TCP, (uint32_t)(total - IPV6_HDR));
    if (!MIP_CKSUM_OK(mip_cksum_finish(mip_cksum_add(sum, buf + IPV6_HDR,
                                                     total - IPV6_HDR)) == 0u))
        return mismatch(s, hc, sl, peer);
    if (sl == NULL) {
        /* only a FULL header gets here without a context */
        sl = victim(hc->rx);
        sl->peer = *peer;
        sl->cid = nhc.cid;
    }
    mip_lowpan_tcp_ctx_update(&sl->ctx, buf + IPV6_HDR, nhc.full);
    if (nhc.full)
        sl->addr_hash = addr_hash(buf);
    sl->state = 1;
    sl->lru = ++hc->uses;
    if (nhc.refresh) {
        refresh_towards(hc, peer);
        STAT(s, lowpan_tcphc_refresh_rx);
    }
    return total;
}

#endif
