/*
 * DTC: Distributed TCP Caching (Dunkels et al.; [D] thesis ch. 9.6, with
 * the SACK version as summarised by [B] 3.1.2 and [T] II.A). The reading
 * followed here, and every interpretation, is docs/relay-papers.md section
 * 1; docs/RELAY.md lists the choices. In short, per forwarding node:
 *
 *   one cached segment    the data segment with the highest sequence number
 *                         seen ([D] 9.6.1); a later, higher one replaces it
 *                         unless it is locked.
 *   lock                  the link layer reported no ACK for the frame that
 *                         carried it: it may be lost, so it stays until a
 *                         TCP ACK covers it or it has been sent again
 *                         max_local_rexmit times; a locked segment is resent
 *                         when its timer (rto_mult * rtt to the receiver)
 *                         expires.
 *   an ACK covering it    clears it; the ACK goes on unchanged.
 *   an ACK showing it     (ack == its first byte after a duplicate or one
 *   missing               rtt after it went, or SACK blocks above it and
 *                         none covering it): it is resent from here. With
 *                         dtc_sack (and both ends SACK-permitted) the node
 *                         adds the segment to the ACK's SACK option, so
 *                         nodes upstream holding a copy clear theirs instead
 *                         of resending it too, and drops the ACK when no gap
 *                         is left ([B] Fig. 3.2); without SACK an ACK whose
 *                         number is the resent segment is dropped ([D] Fig.
 *                         9.2: the sender need not hear of a repaired loss).
 *   data already ACKed    an end-to-end retransmission of data the
 *                         destination acknowledged: dropped and answered
 *                         with a regenerated ACK ([T] II.A).
 *
 * Sequence values are "next byte" (exclusive ends), compared modulo 2^32.
 */
#include "relay_internal.h"

#if MIP_CONF_FORWARD && MIP_RELAY_HAS_DTC

#include <string.h>
#include "moteip/wire/ipv4.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"

/* mip_relay_slot.locked */
#define DTC_UNLOCKED 0u   /* the next hop ACKed its frame */
#define DTC_LOCKED   1u   /* the link layer reported no ACK */
#define DTC_PENDING  2u   /* sent to the MAC, no report yet */

static uint32_t slot_end(const struct mip_relay_slot *sl)
{
    return sl->seq + sl->seg_len;
}

/* The node's one cached segment (any flow), or -1. */
static int cache_slot(const struct mip_relay *r)
{
    unsigned i;
    for (i = 0; i < MIP_RELAY_SLOTS; i++)
        if (r->slots[i].used == MIP_RELAY_SLOT_CACHE)
            return (int)i;
    return -1;
}

static void arm(struct mip_relay *r, struct mip_relay_slot *sl, const struct mip_relay_flow *f)
{
    sl->deadline = r->now + rly_rto(r, f);
    sl->timer_on = 1;
}

/* Karn's rule: a measurement whose segment is sent again is abandoned. */
static void rtt_abandon_if(struct mip_relay_flow *f, const struct mip_relay_slot *sl)
{
    if ((f->flags & MIP_RELAY_F_RTT_ON) && rly_seq_leq(sl->seq, f->rtt_seq) &&
        rly_seq_lt(f->rtt_seq, slot_end(sl)))
        f->flags &= (uint16_t)~MIP_RELAY_F_RTT_ON;
}

/* Sends the cached segment again. False (and the slot freed) once it has
 * been sent max_local_rexmit times already. */
static bool resend(struct mip_relay *r, int si)
{
    struct mip_relay_slot *sl = &r->slots[si];
    struct mip_relay_flow *f = &r->flows[sl->flow];
    if (sl->rexmits >= r->cfg.max_local_rexmit) {
        RSTAT(r, rexmit_gave_up);
        rly_slot_free(r, si);
        return false;
    }
    sl->rexmits++;
    sl->stored_at = r->now;
    rtt_abandon_if(f, sl);
    if (f->rto_shift < 8u)
        f->rto_shift++;
    (void)rly_slot_resend(r, si);
    if (sl->locked == DTC_LOCKED)
        arm(r, sl, f);
    return true;
}

/* --- SACK signalling ---------------------------------------------------- */

/* Merges the blocks of seg above its ACK number with [s, e) (first, as the
 * most recent, RFC 2018), joining overlapping and adjacent ones. Writes at
 * most `max` blocks to out (ordered by their left edge, except that the one
 * holding [s, e) comes first); *gapless is set when the merged blocks leave
 * no hole in [ack, highest right edge). Returns the count written. */
static uint8_t merge_blocks(const struct rly_seg *seg, uint32_t s, uint32_t e, uint8_t max,
                            struct mip_tcp_sack_block *out, bool *gapless)
{
    struct mip_tcp_sack_block b[MIP_TCP_SACK_MAX + 1u], t;
    unsigned n = 0, i, j, k, first = 0;

    b[n].left = s;
    b[n].right = e;
    n++;
    for (i = 0; i < seg->sack_count && i < MIP_TCP_SACK_MAX; i++) {
        if (!rly_seq_lt(seg->sack[i].left, seg->sack[i].right) ||
            rly_seq_leq(seg->sack[i].right, seg->ack))
            continue;                 /* empty, or a D-SACK below the ACK */
        b[n++] = seg->sack[i];
    }
    /* insertion sort by left edge, relative to the ACK number */
    for (i = 1; i < n; i++) {
        t = b[i];
        for (j = i; j > 0 && rly_seq_lt(t.left, b[j - 1].left); j--)
            b[j] = b[j - 1];
        b[j] = t;
    }
    /* join overlapping or touching blocks */
    for (i = 0, k = 0; i < n; i++) {
        if (k > 0 && rly_seq_leq(b[i].left, b[k - 1].right)) {
            if (rly_seq_gt(b[i].right, b[k - 1].right))
                b[k - 1].right = b[i].right;
        } else {
            b[k++] = b[i];
        }
    }
    *gapless = k == 1u && rly_seq_leq(b[0].left, seg->ack);
    for (i = 0; i < k; i++)
        if (rly_seq_leq(b[i].left, s) && rly_seq_leq(e, b[i].right))
            first = i;
    n = 0;
    out[n++] = b[first];
    for (i = 0; i < k && n < max; i++)
        if (i != first)
            out[n++] = b[i];
    return (uint8_t)n;
}

/*
 * Sends the ACK seg (the pure ACK datagram pkt) on with [s, e) added to its
 * SACK option: the options are rebuilt (timestamps kept, then SACK), the
 * IP length, IPv4 header checksum and TCP checksum rewritten. Sets
 * *dropped instead of sending when the blocks leave no gap. False when the
 * ACK cannot be rewritten (it carries data or options the codec does not
 * keep, or is too big): the caller forwards it unchanged.
 */
static bool ack_with_block(struct mip_relay *r, const struct rly_seg *seg, const uint8_t *pkt,
                           uint32_t s, uint32_t e, bool *dropped)
{
    /* an IPv4 header with options, or IPv6 with the extension headers a
     * template keeps (RPL's) */
    uint8_t out[40u + MIP_RELAY_TMPL_EXT_MAX + MIP_TCP_HDR_LEN + 40u];
    struct mip_tcp_opts o;
    size_t l3 = seg->l3_len, optlen, tcp_len, total;
    bool gapless;

    *dropped = false;
    if (seg->payload_len != 0u || !seg->opts_known || l3 > 40u + MIP_RELAY_TMPL_EXT_MAX)
        return false;
    memset(&o, 0, sizeof(o));
    if (seg->has_ts) {
        o.present = MIP_TCP_HAS_TIMESTAMP;
        o.ts_val = seg->ts_val;
        o.ts_ecr = seg->ts_ecr;
    }
    o.present |= MIP_TCP_HAS_SACK;
    o.sack_count = merge_blocks(seg, s, e, seg->has_ts ? 3u : 4u, o.sack, &gapless);
    if (gapless) {
        *dropped = true;
        return true;
    }
    optlen = mip_tcp_opts_len(&o);
    tcp_len = MIP_TCP_HDR_LEN + optlen;
    total = l3 + tcp_len;
    memcpy(out, pkt, l3 + MIP_TCP_HDR_LEN);
    if (mip_tcp_opts_emit(&o, out + l3 + MIP_TCP_HDR_LEN, sizeof(out) - l3 - MIP_TCP_HDR_LEN,
                          NULL) != MIP_OK)
        return false;
    out[l3 + 12] = (uint8_t)((tcp_len / 4u) << 4 | (out[l3 + 12] & 0x0Fu));
    if (seg->src.family == MIP_AF_INET) {
        mip_wr16(out + 2, (uint16_t)total);
        mip_wr16(out + 10, 0);
        mip_wr16(out + 10, mip_cksum_finish(mip_cksum_add(0, out, l3)));
    } else {
        mip_wr16(out + 4, (uint16_t)(total - MIP_IPV6_HDR_LEN));
    }
    /* seg's addresses: a source route's last, not the next hop */
    rly_tcp_cksum(out, total, seg);
    RSTAT(r, sack_added);
    (void)rly_send(r, out, total);
    return true;
}

/* --- events --------------------------------------------------------------- */

/* True when the ACK's SACK blocks hold all of [s, e). */
static bool sacked(const struct rly_seg *seg, uint32_t s, uint32_t e)
{
    unsigned i;
    for (i = 0; i < seg->sack_count && i < MIP_TCP_SACK_MAX; i++)
        if (rly_seq_leq(seg->sack[i].left, s) && rly_seq_leq(e, seg->sack[i].right))
            return true;
    return false;
}

/* True when the ACK's SACK blocks report data at or beyond e. */
static bool sacked_above(const struct rly_seg *seg, uint32_t e)
{
    unsigned i;
    for (i = 0; i < seg->sack_count && i < MIP_TCP_SACK_MAX; i++)
        if (rly_seq_geq(seg->sack[i].left, e))
            return true;
    return false;
}

/* The ACK part of seg, from the destination of data flow fi: learnt (the
 * template for regenerated ACKs), an RTT sample, and the
 * cached segment cleared when the ACK or its SACK blocks hold it. Returns
 * the slot of the flow's cached segment still missing at the receiver, or
 * -1. */
static int ack_learn(struct mip_relay *r, int fi, const struct rly_seg *seg)
{
    struct mip_relay_flow *f = &r->flows[fi];
    struct mip_relay_slot *sl;
    int si;

    (void)rly_learn_ack(r, fi, seg);
    if ((f->flags & MIP_RELAY_F_RTT_ON) && rly_seq_gt(seg->ack, f->rtt_seq)) {
        rly_rtt_sample(r, f, r->now - f->rtt_start);
        f->flags &= (uint16_t)~MIP_RELAY_F_RTT_ON;
        f->rto_shift = 0;
    }
    si = cache_slot(r);
    if (si < 0 || r->slots[si].flow != (uint8_t)fi)
        return -1;
    sl = &r->slots[si];
    if (rly_seq_geq(seg->ack, slot_end(sl)) || sacked(seg, sl->seq, slot_end(sl))) {
        /* received (or being resent nearer the receiver): not ours to keep */
        RSTAT(r, tcp_acks_cleared);
        rly_slot_free(r, si);
        f->dupacks = 0;
        return -1;
    }
    return si;
}

/* An ACK (seg, from the destination of data flow fi) passing upstream. */
static enum mip_fwd_verdict on_ack(struct mip_relay *r, int fi, const struct rly_seg *seg,
                                   const uint8_t *pkt)
{
    struct mip_relay_flow *f = &r->flows[fi];
    struct mip_relay_slot *sl;
    uint32_t a = seg->ack, s, e, since;
    bool dup, loss, dropped;
    int si, ri;

    dup = seg->payload_len == 0u;
    si = ack_learn(r, fi, seg);
    if (si < 0) {
        f->dupacks = 0;
        return MIP_FWD_PASS;
    }
    sl = &r->slots[si];
    s = sl->seq;
    e = slot_end(sl);
    /* f->dupacks counts the pure ACKs with ack == s since the segment
     * was cached (on_data clears it), not the ACK of s that passed before:
     * that one made the sender send [s, e), and a copy of it (an ACK
     * repaired after a lost link ACK, or regenerated for a retransmission
     * of old data) says nothing of [s, e). */
    if (a != s || !dup)
        f->dupacks = 0;
    else if (f->dupacks < 255u)
        f->dupacks++;
    /* Evidence that the receiver lacks [s, e) (a <= s here): ack == s
     * repeated, or SACKed data beyond it. The first ACK with ack == s may answer the segment
     * before, with ours still on its way ([D] Fig. 9.2, right): alone it
     * counts only once an rtt has passed since ours went. */
    since = r->now - sl->stored_at;
    loss = (a == s && (f->dupacks > 1u || since >= rly_rtt_ms(r, f))) ||
           sacked_above(seg, e);
    if (!loss)
        return MIP_FWD_PASS;
    /* Resend unless a copy sent from here less than an rtt ago may still
     * be on its way; either way this node is repairing the hole. */
    if ((sl->rexmits == 0u || since >= rly_rtt_ms(r, f)) && !resend(r, si))
        return MIP_FWD_PASS;          /* gave up: the end points recover */
    ri = rly_flow_rev(r, seg);
    if (r->cfg.dtc_sack && (f->flags & MIP_RELAY_F_SACKOK) && ri >= 0 &&
        (r->flows[ri].flags & MIP_RELAY_F_SACKOK)) {
        if (ack_with_block(r, seg, pkt, s, e, &dropped)) {
            if (dropped)
                RSTAT(r, acks_dropped);
            return dropped ? MIP_FWD_DROP : MIP_FWD_TAKEN;
        }
        return MIP_FWD_PASS;
    }
    if (a == s) {
        RSTAT(r, acks_dropped);       /* [D]: the repair is this node's */
        return MIP_FWD_DROP;
    }
    return MIP_FWD_PASS;
}

/* Data (payload and/or FIN) of flow fi going downstream. */
static enum mip_fwd_verdict on_data(struct mip_relay *r, int fi, const struct rly_seg *seg,
                                    const uint8_t *pkt, bool own)
{
    struct mip_relay_flow *f = &r->flows[fi];
    uint32_t end = seg->seq + seg->seg_len;
    int si;

    RSTAT(r, data_seen);
    if (!own && (f->flags & MIP_RELAY_F_ACKED) && rly_seq_leq(end, f->acked) &&
        rly_send_ack(r, fi) == MIP_OK) {
        /* the destination has it: the sender missed the ACK ([T] II.A) */
        RSTAT(r, dup_dropped);
        RSTAT(r, acks_regenerated);
        return MIP_FWD_DROP;
    }
    if (!(f->flags & MIP_RELAY_F_SEQ) || rly_seq_gt(end, f->transmitted)) {
        if (!(f->flags & MIP_RELAY_F_RTT_ON)) {
            f->flags |= MIP_RELAY_F_RTT_ON;
            f->rtt_seq = seg->seq;
            f->rtt_start = r->now;
        }
        f->transmitted = end;
        f->flags |= MIP_RELAY_F_SEQ;
    } else {
        /* an end-to-end retransmission: not the highest, not cached */
        if ((f->flags & MIP_RELAY_F_RTT_ON) && rly_seq_leq(seg->seq, f->rtt_seq) &&
            rly_seq_lt(f->rtt_seq, end))
            f->flags &= (uint16_t)~MIP_RELAY_F_RTT_ON;
        return MIP_FWD_PASS;
    }
    si = cache_slot(r);
    if (si >= 0) {
        struct mip_relay_slot *sl = &r->slots[si];
        /* A locked segment is never replaced. Neither is one whose frame
         * is still with the MAC (ours: a window of several segments brings
         * the next one before the link layer has reported on the last, and
         * the report would then find nothing to lock), unless the report is
         * overdue: a frame the MAC never sent gives none. */
        if (sl->locked == DTC_LOCKED ||
            (sl->locked == DTC_PENDING && r->now - sl->stored_at < rly_rtt_ms(r, &r->flows[sl->flow]))) {
            RSTAT(r, not_cached);
            return MIP_FWD_PASS;
        }
        RSTAT(r, replaced);
        rly_slot_free(r, si);
    }
    si = rly_slot_store(r, fi, MIP_RELAY_SLOT_CACHE, seg, pkt, seg->dgram_len);
    if (si < 0) {
        RSTAT(r, not_cached);
        return MIP_FWD_PASS;
    }
    r->slots[si].stored_at = r->now;
    r->slots[si].locked = DTC_PENDING;
    f->dupacks = 0;
    RSTAT(r, cached);
    return MIP_FWD_PASS;
}



/* RST and SYN, the same for forwarded and own datagrams. True when seg
 * needs nothing more. */
static bool control(struct mip_relay *r, const struct rly_seg *seg, int fi, int ri)
{
    bool fresh;
    if (seg->flags & MIP_TCP_RST) {
        rly_flow_evict(r, fi);
        rly_flow_evict(r, ri);
        return true;
    }
    if (seg->flags & MIP_TCP_SYN) {
        (void)rly_flow_syn(r, seg, fi, ri, &fresh);   /* and whether it offers SACK */
        return true;
    }
    return false;
}

enum mip_fwd_verdict dtc_forward(struct mip_relay *r, const struct rly_seg *seg,
                                 const uint8_t *pkt)
{
    int fi = rly_flow_of(r, seg), ri = rly_flow_rev(r, seg);
    enum mip_fwd_verdict v;

    if (control(r, seg, fi, ri)) {
        if (seg->flags & MIP_TCP_RST)
            RSTAT(r, ignored);
        return MIP_FWD_PASS;
    }
    /* the ACK part first: it may clear the cache the data part refills */
    if ((seg->flags & MIP_TCP_ACK) && ri >= 0) {
        if (seg->payload_len == 0u)
            RSTAT(r, acks_seen);
        v = on_ack(r, ri, seg, pkt);
        if (v != MIP_FWD_PASS)
            return v;
    }
    if (seg->payload_len == 0u && !(seg->flags & MIP_TCP_FIN)) {
        if (ri < 0)
            RSTAT(r, ignored);
        return MIP_FWD_PASS;
    }
    fi = rly_flow_data(r, seg, fi, ri);
    if (fi < 0)
        return MIP_FWD_PASS;
    return on_data(r, fi, seg, pkt, false);
}

/*
 * dtc_endpoints (ours). At the sender its own data segments are cached and
 * locked like forwarded ones, so a segment lost on the first hop is resent
 * from here before TCP's RTO; ACKs arriving for them only clear and time
 * (TCP itself reads their loss signals).
 */
void dtc_local_out(struct mip_relay *r, const struct rly_seg *seg, const uint8_t *pkt)
{
    int fi = rly_flow_of(r, seg), ri = rly_flow_rev(r, seg);
    if (control(r, seg, fi, ri))
        return;
    if ((seg->flags & MIP_TCP_ACK) && ri >= 0)
        (void)ack_learn(r, ri, seg);
    if (seg->payload_len == 0u && !(seg->flags & MIP_TCP_FIN))
        return;
    fi = rly_flow_data(r, seg, fi, ri);
    if (fi >= 0)
        (void)on_data(r, fi, seg, pkt, true);
}

void dtc_local_in(struct mip_relay *r, const struct rly_seg *seg)
{
    int fi = rly_flow_of(r, seg), ri = rly_flow_rev(r, seg);
    if (control(r, seg, fi, ri))
        return;
    if ((seg->flags & MIP_TCP_ACK) && ri >= 0)
        (void)ack_learn(r, ri, seg);
}

void dtc_link_status(struct mip_relay *r, const struct rly_seg *seg, bool ok)
{
    struct mip_relay_slot *sl;
    int fi, si;
    if (seg->flags & (MIP_TCP_SYN | MIP_TCP_RST))
        return;
    if (seg->seg_len == 0u)
        return;
    fi = rly_flow_of(r, seg);
    si = cache_slot(r);
    if (fi < 0 || si < 0)
        return;
    sl = &r->slots[si];
    if (sl->flow != (uint8_t)fi || sl->seq != seg->seq)
        return;                       /* not the segment cached here (any more) */
    if (ok) {
        if (sl->locked == DTC_PENDING)
            sl->locked = DTC_UNLOCKED;
        return;
    }
    if (sl->locked != DTC_LOCKED) {
        sl->locked = DTC_LOCKED;
        RSTAT(r, locked);
    }
    if (!sl->timer_on)
        arm(r, sl, &r->flows[fi]);
}

uint32_t dtc_poll(struct mip_relay *r, uint32_t now)
{
    uint32_t next = MIP_POLL_IDLE;
    unsigned i;
    for (i = 0; i < MIP_RELAY_SLOTS; i++) {
        struct mip_relay_slot *sl = &r->slots[i];
        if (sl->used != MIP_RELAY_SLOT_CACHE || !sl->timer_on)
            continue;
        if (mip_time_reached(now, sl->deadline)) {
            sl->timer_on = 0;
            if (!resend(r, (int)i))
                continue;             /* freed */
        }
        next = mip_next_delay(next, now, sl->deadline);
    }
    return next;
}

static enum mip_fwd_verdict local_out(struct mip_relay *r, const struct rly_seg *seg,
                                      const uint8_t *pkt)
{
    dtc_local_out(r, seg, pkt);
    return MIP_FWD_PASS;                /* own segments go on unchanged */
}

static unsigned events(const struct mip_relay_config *c)
{
    return RLY_EV_LINK | (c->dtc_endpoints ? RLY_EV_LOCAL : 0u);
}

const struct rly_ops rly_dtc_ops = {
    events, dtc_forward, local_out, dtc_local_in, dtc_link_status, NULL, dtc_poll
};

#endif /* MIP_CONF_FORWARD */
