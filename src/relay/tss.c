/*
 * TSS: TCP Support for Sensor networks (Braun, Voigt, Dunkels, WONS 2007,
 * section III). The decisions of the paper's pseudo-code (III.C), in its
 * numbering:
 *
 *   1   ACK timeout: send the ACK again with the highest ACK number seen.
 *   2   retransmission timeout: send the cached segment again unless it is
 *       confirmed; give up after max_local_rexmit.
 *   3a  a datagram this node forwards: an ACK (update what dst acknowledged,
 *       release the buffered segment, end an RTT measurement, drop it if an
 *       ACK at least as high was already seen forwarded upstream, else
 *       forward it and start the ACK timer), or data (drop it beyond what
 *       this node transmitted, hold it in the buffer while the segment
 *       before it is unconfirmed, answer it with a regenerated ACK when all
 *       of it is acknowledged, forward and cache it when it is the next in
 *       sequence and everything before is confirmed, else drop it; here an
 *       end-to-end retransmission of confirmed data also passes).
 *   3b  an overheard frame from a neighbour: an ACK forwarded on upstream
 *       (measure the ACK forwarding time, stop the ACK timer, raise
 *       ack_forwarded) or data forwarded on by the successor (implicit ACK:
 *       free the cache, raise confirmed, forward the buffered segment after
 *       forward_delay_ms).
 *
 * The paper counts sequence numbers of bytes (inclusive ends); here every
 * value is a "next byte" (exclusive end): the paper's `x + 1` is our `x`.
 * Where the pseudo-code is silent, the choices are marked "Interpretation"
 * and listed in docs/RELAY.md.
 */
#include "relay_internal.h"

#if MIP_CONF_FORWARD && MIP_RELAY_HAS_TSS

#include <string.h>
#include "moteip/netif.h"
#include "moteip/route.h"
#include "moteip/wire/tcp.h"

static uint32_t seg_end(const struct rly_seg *seg)
{
    return seg->seq + seg->seg_len;
}

static uint32_t slot_end(const struct mip_relay_slot *sl)
{
    return sl->seq + sl->seg_len;
}

/* Karn's rule (an interpretation: the pseudo-code has none). A measurement
 * whose segment is sent again, by this node or end to end, is abandoned:
 * the ACK that ends it may answer the copy, after a recovery of seconds,
 * and one such sample inflates every RTO on the path. */
static void rtt_abandon_if(struct mip_relay_flow *f, uint32_t seq, uint32_t end)
{
    if ((f->flags & MIP_RELAY_F_RTT_ON) && rly_seq_leq(seq, f->rtt_seq) &&
        rly_seq_lt(f->rtt_seq, end))
        f->flags &= (uint16_t)~MIP_RELAY_F_RTT_ON;
}

static void arm_rexmit(struct mip_relay *r, struct mip_relay_slot *sl,
                       const struct mip_relay_flow *f)
{
    sl->deadline = r->now + rly_rto(r, f);
    sl->timer_on = 1;
}

/* The ACK recovery timer, for an ACK just sent towards the flow's src.
 * Interpretation: not when src is this node's next hop. The source consumes
 * the ACK and forwards nothing, so there would never be anything to
 * overhear, and every ACK would be recovered in vain. */
static void arm_ack_timer(struct mip_relay *r, struct mip_relay_flow *f)
{
    if (rly_next_hop_is_dst(r, &f->src)) {
        f->flags &= (uint16_t)~MIP_RELAY_F_ACKTIMER;
        return;
    }
    f->ack_deadline = r->now + rly_ack_timeout(r, f);
    f->flags |= MIP_RELAY_F_ACKTIMER;
    f->ack_attempts = 1;
}

/* Sends the cached-but-unsent slot now and starts its retransmission timer. */
static void send_cached(struct mip_relay *r, int si)
{
    struct mip_relay_slot *sl = &r->slots[si];
    struct mip_relay_flow *f = &r->flows[sl->flow];
    if (!(f->flags & MIP_RELAY_F_RTT_ON)) {
        /* time it like a segment forwarded at once (step 5) */
        f->flags |= MIP_RELAY_F_RTT_ON;
        f->rtt_seq = sl->seq;
        f->rtt_start = r->now;
    }
    (void)rly_send(r, sl->dgram, sl->dgram_len);
    sl->unsent = 0;
    arm_rexmit(r, sl, f);
}

/* The lowest-sequence QUEUE slot of flow fi (the source's FIFO), -1: none. */
static int queue_head(const struct mip_relay *r, int fi)
{
    unsigned i;
    int best = -1;
    for (i = 0; i < MIP_RELAY_SLOTS; i++) {
        const struct mip_relay_slot *sl = &r->slots[i];
        if (sl->used == MIP_RELAY_SLOT_QUEUE && sl->flow == (uint8_t)fi &&
            (best < 0 || rly_seq_lt(sl->seq, r->slots[best].seq)))
            best = (int)i;
    }
    return best;
}

/*
 * The buffered segment of flow fi (at the source: the head of its queue)
 * moves to the cache and goes out when it holds the next unconfirmed byte
 * and nothing is cached ("if byte[confirmed + 1] in buffered packet").
 * delay 0: now (3a); else after `delay` ms (3b, forward_delayed). A
 * buffered or queued segment that is wholly confirmed already is dropped.
 */
static void release_buffer(struct mip_relay *r, int fi, uint16_t delay)
{
    struct mip_relay_flow *f = &r->flows[fi];
    struct mip_relay_slot *sl;
    uint32_t end;
    int bi;
    for (;;) {
        /* a forwarding node's buffer, or the head of the source's queue */
        bi = rly_slot_of(r, fi, MIP_RELAY_SLOT_BUFFER);
        if (bi < 0)
            bi = queue_head(r, fi);
        if (bi < 0 || rly_slot_of(r, fi, MIP_RELAY_SLOT_CACHE) >= 0)
            return;
        sl = &r->slots[bi];
        end = slot_end(sl);
        if (!rly_seq_leq(end, f->confirmed))
            break;
        rly_slot_free(r, bi);
    }
    if (rly_seq_gt(sl->seq, f->confirmed))
        return;
    /* tss_ack_release: only the ACK of everything before it releases it (a
     * late ACK of older data, after the implicit ACK, does not) */
    if (r->cfg.tss_ack_release &&
        (!(f->flags & MIP_RELAY_F_ACKED) || rly_seq_lt(f->acked, sl->seq)))
        return;
    sl->used = MIP_RELAY_SLOT_CACHE;
    sl->rexmits = 0;
    if (rly_seq_gt(end, f->transmitted))
        f->transmitted = end;
    {
        /* forwarded now (or about to be): into the history like the rest */
        struct rly_seg held;
        if (rly_parse(sl->dgram, sl->dgram_len, 0, false, &held) == MIP_OK)
            rly_hist_add(r, &held);
    }
    if (delay == 0u) {
        RSTAT(r, delayed_forwards);
        send_cached(r, bi);
    } else {
        sl->unsent = 1;
        sl->timer_on = 1;
        sl->deadline = r->now + delay;
    }
}

/* The cache is confirmed: freed. Got through without a local
 * retransmission, it ends the RTO backoff. */
static void cache_done(struct mip_relay *r, struct mip_relay_flow *f, int ci)
{
    if (r->slots[ci].rexmits == 0u)
        f->rto_shift = 0;
    rly_slot_free(r, ci);
}

/* Bytes up to `upto` are known received downstream (a TCP ACK from dst or
 * an implicit ACK): raise confirmed, free a cache they cover. Returns true
 * when a cache was freed. */
static bool confirm(struct mip_relay *r, int fi, uint32_t upto)
{
    struct mip_relay_flow *f = &r->flows[fi];
    int ci;
    if (!(f->flags & MIP_RELAY_F_SEQ) || !rly_seq_gt(upto, f->confirmed))
        return false;
    f->confirmed = upto;
    if (rly_seq_gt(upto, f->transmitted))
        f->transmitted = upto;
    ci = rly_slot_of(r, fi, MIP_RELAY_SLOT_CACHE);
    if (ci >= 0 && rly_seq_leq(slot_end(&r->slots[ci]), upto)) {
        cache_done(r, f, ci);
        return true;
    }
    return false;
}

/* 3a, the ACK part of a segment from the destination of flow fi (a pure
 * ACK, or data of the other direction carrying an ACK). */
static void ack_info(struct mip_relay *r, int fi, const struct rly_seg *seg)
{
    struct mip_relay_flow *f = &r->flows[fi];
    (void)rly_learn_ack(r, fi, seg);
    /* acknowledged = max(ack no - 1, acknowledged): done by rly_learn_ack.
     * Interpretation: an ACK beyond `confirmed` confirms those bytes even
     * when no segment is buffered (the paper moves `confirmed` only inside
     * the buffer branch, which would leave acknowledged data to be
     * retransmitted locally). */
    if (confirm(r, fi, f->acked))
        RSTAT(r, tcp_acks_cleared);
    release_buffer(r, fi, 0);
    if ((f->flags & MIP_RELAY_F_RTT_ON) && rly_seq_gt(seg->ack, f->rtt_seq)) {
        bool hs = (f->flags & MIP_RELAY_F_RTT_HS) != 0u;
        /* Interpretation: the handshake's sample (small frames) only
         * stands in until the first data sample, which replaces it. */
        if (!hs && (f->flags & MIP_RELAY_F_RTT_SYN))
            f->flags &= (uint16_t)~(MIP_RELAY_F_RTT_OK | MIP_RELAY_F_RTT_SYN);
        rly_rtt_sample(r, f, r->now - f->rtt_start);
        if (hs)
            f->flags |= MIP_RELAY_F_RTT_SYN;
        f->flags &= (uint16_t)~(MIP_RELAY_F_RTT_ON | MIP_RELAY_F_RTT_HS);
        f->rto_shift = 0;
    }
}

/* 3a step 5: seg holds the next unconfirmed byte and nothing is
 * outstanding: it goes now, cached, with its retransmission timer. */
static enum mip_fwd_verdict forward_cached(struct mip_relay *r, int fi, const struct rly_seg *seg,
                                           const uint8_t *pkt)
{
    struct mip_relay_flow *f = &r->flows[fi];
    uint32_t end = seg_end(seg);
    int ci;
    if (!(f->flags & MIP_RELAY_F_RTT_ON)) {
        f->flags |= MIP_RELAY_F_RTT_ON;
        f->rtt_seq = seg->seq;
        f->rtt_start = r->now;
    }
    f->transmitted = end;
    rly_hist_add(r, seg);
    ci = rly_slot_of(r, fi, MIP_RELAY_SLOT_CACHE);
    if (ci >= 0)
        rly_slot_free(r, ci);       /* confirmed already (transmitted == confirmed) */
    ci = rly_slot_store(r, fi, MIP_RELAY_SLOT_CACHE, seg, pkt, seg->dgram_len);
    if (ci >= 0) {
        RSTAT(r, cached);
        arm_rexmit(r, &r->slots[ci], f);
    } else {
        /* Interpretation: too big or no slot: forwarded unprotected,
         * and not waited for (no backpressure on what cannot be
         * retransmitted here). */
        RSTAT(r, not_cached);
        f->confirmed = end;
    }
    return MIP_FWD_PASS;
}

/* 3a, data (payload and/or FIN) of flow fi. */
static enum mip_fwd_verdict data_in(struct mip_relay *r, int fi, const struct rly_seg *seg,
                                    const uint8_t *pkt)
{
    struct mip_relay_flow *f = &r->flows[fi];
    uint32_t end = seg_end(seg);
    int bi;

    if (rly_hist_has(r, seg)) {
        RSTAT(r, dup_dropped);          /* a copy of a local retransmission */
        return MIP_FWD_DROP;
    }
    if (!(f->flags & MIP_RELAY_F_SEQ)) {
        /* first data of a flow whose SYN this node did not see */
        f->transmitted = seg->seq;
        f->confirmed = seg->seq;
        f->flags |= MIP_RELAY_F_SEQ;
    }
    if (rly_seq_gt(seg->seq, f->transmitted)) {
        RSTAT(r, gap_dropped);
        return MIP_FWD_DROP;
    }
    bi = rly_slot_of(r, fi, MIP_RELAY_SLOT_BUFFER);
    if (rly_seq_gt(seg->seq, f->confirmed) &&
        (bi < 0 || rly_seq_lt(seg->seq, r->slots[bi].seq))) {
        if (!r->cfg.tss_backpressure) {
            /* no holding back: forwarded uncached */
            if (rly_seq_gt(end, f->transmitted))
                f->transmitted = end;
            rly_hist_add(r, seg);
            RSTAT(r, not_cached);
            return MIP_FWD_PASS;
        }
        if (bi >= 0)
            rly_slot_free(r, bi);       /* keep the lower sequence number */
        if (rly_slot_store(r, fi, MIP_RELAY_SLOT_BUFFER, seg, pkt, seg->dgram_len) < 0) {
            /* Interpretation: nowhere to hold it. Forwarding it would only
             * make the successor drop it (a gap beyond what it transmitted). */
            RSTAT(r, not_cached);
            return MIP_FWD_DROP;
        }
        RSTAT(r, buffered);
        return MIP_FWD_TAKEN;
    }
    if ((f->flags & MIP_RELAY_F_ACKED) && rly_seq_leq(end, f->acked)) {
        /* all of it acknowledged by dst: answer in dst's name */
        if (rly_send_ack(r, fi) != MIP_ERR_NOTFOUND) {
            RSTAT(r, acks_regenerated);
            arm_ack_timer(r, f);
        }
        return MIP_FWD_TAKEN;
    }
    if (f->transmitted == f->confirmed && rly_seq_leq(seg->seq, f->confirmed) &&
        rly_seq_lt(f->confirmed, end))
        return forward_cached(r, fi, seg, pkt);
    if (rly_seq_leq(end, f->confirmed)) {
        /* Interpretation: an end-to-end retransmission (a copy of a local
         * one would have been in the history) of data the next hop had, but
         * that dst has not acknowledged: lost further on, perhaps after a
         * node there gave up. The pseudo-code drops it, so the connection
         * could never recover; [T] III.A.2 wants end-to-end retransmissions
         * to pass. Forwarded uncached, the flow's state unchanged. */
        rly_hist_add(r, seg);
        rtt_abandon_if(f, seg->seq, end);
        RSTAT(r, e2e_forwarded);
        return MIP_FWD_PASS;
    }
    RSTAT(r, dup_dropped);              /* being recovered here, or held back */
    return MIP_FWD_DROP;
}

/* A SYN: a connection direction starts, with its sequence space from the
 * ISN and an RTT measurement that the SYN-ACK (or the handshake's ACK)
 * ends, which gives TSS its initial rtt ([T] IV.B.3). A SYN sent again
 * with the same ISN keeps the flow (and its measurement). */
static void syn_start(struct mip_relay *r, const struct rly_seg *seg, int fi, int ri)
{
    struct mip_relay_flow *f;
    bool fresh;
    fi = rly_flow_syn(r, seg, fi, ri, &fresh);
    if (fi < 0 || !fresh)
        return;
    f = &r->flows[fi];
    f->confirmed = seg_end(seg);
    f->flags |= MIP_RELAY_F_RTT_ON | MIP_RELAY_F_RTT_HS;
    f->rtt_seq = seg->seq;
    f->rtt_start = r->now;
}

/* Some CACHE or QUEUE slot of flow fi holds all of [seq, end). */
static bool held_here(const struct mip_relay *r, int fi, uint32_t seq, uint32_t end)
{
    unsigned i;
    for (i = 0; i < MIP_RELAY_SLOTS; i++) {
        const struct mip_relay_slot *sl = &r->slots[i];
        if ((sl->used == MIP_RELAY_SLOT_CACHE || sl->used == MIP_RELAY_SLOT_QUEUE) &&
            sl->flow == (uint8_t)fi && rly_seq_leq(sl->seq, seq) &&
            rly_seq_leq(end, slot_end(sl)))
            return true;
    }
    return false;
}

/*
 * This node's own TCP segment leaves (the local hook): TSS at the sender end
 * point ([T] III.A.4). The segment goes through the rules of a forwarding
 * node, with a queue instead of the single buffer: it goes now and is cached
 * when everything before it is confirmed (by overhearing node 1 forward, or
 * by a TCP ACK), else it waits in the flow's queue and is released in
 * sequence order like a buffered segment. It is never dropped: TCP sent it
 * in order. Without a free slot it goes out unchanged (not_cached).
 */
enum mip_fwd_verdict tss_local_out(struct mip_relay *r, const struct rly_seg *seg,
                                   const uint8_t *pkt)
{
    struct mip_relay_flow *f;
    int fi = rly_flow_of(r, seg), ri = rly_flow_rev(r, seg);
    uint32_t end = seg_end(seg);

    if (seg->flags & MIP_TCP_RST) {
        rly_flow_evict(r, fi);
        rly_flow_evict(r, ri);
        return MIP_FWD_PASS;
    }
    /* Pure ACKs pass. So does everything sent straight to its destination:
     * there is no forwarding to overhear (as for the ACK timer). */
    if (seg->seg_len == 0u || rly_seg_next_hop_is_dst(r, seg))
        return MIP_FWD_PASS;
    if (seg->flags & MIP_TCP_SYN) {
        syn_start(r, seg, fi, ri);
        return MIP_FWD_PASS;
    }
    if (fi < 0) {
        fi = rly_flow_new(r, seg, ri);
        if (fi < 0)
            return MIP_FWD_PASS;
    }
    f = &r->flows[fi];
    f->last_used = r->now;
    if (seg->flags & MIP_TCP_FIN)
        f->flags |= MIP_RELAY_F_FIN;
    if (!(f->flags & MIP_RELAY_F_SEQ)) {
        f->transmitted = seg->seq;
        f->confirmed = seg->seq;
        f->flags |= MIP_RELAY_F_SEQ;
    }
    if (rly_seq_leq(end, f->confirmed)) {
        /* an end-to-end retransmission of data node 1 had (step 6) */
        rtt_abandon_if(f, seg->seq, end);
        RSTAT(r, e2e_forwarded);
        return MIP_FWD_PASS;
    }
    if (f->transmitted == f->confirmed && rly_seq_leq(seg->seq, f->confirmed))
        return forward_cached(r, fi, seg, pkt);
    if (held_here(r, fi, seg->seq, end)) {
        /* TCP sent again what waits here or is being recovered here */
        RSTAT(r, dup_dropped);
        return MIP_FWD_TAKEN;
    }
    if (rly_slot_store(r, fi, MIP_RELAY_SLOT_QUEUE, seg, pkt, seg->dgram_len) >= 0) {
        RSTAT(r, src_held);
        return MIP_FWD_TAKEN;
    }
    RSTAT(r, not_cached);               /* no room: better sent than lost */
    return MIP_FWD_PASS;
}

/* A datagram for this node: the ACKs of its own flows confirm and release
 * like TCP ACKs seen on the forward path (3a), and give RTT samples. */
void tss_local_in(struct mip_relay *r, const struct rly_seg *seg)
{
    int ri = rly_flow_rev(r, seg);
    if (ri < 0)
        return;
    if (seg->flags & MIP_TCP_RST) {
        rly_flow_evict(r, ri);
        rly_flow_evict(r, rly_flow_of(r, seg));
        return;
    }
    if (seg->flags & MIP_TCP_ACK)
        ack_info(r, ri, seg);
}

enum mip_fwd_verdict tss_forward(struct mip_relay *r, const struct rly_seg *seg,
                                 const uint8_t *pkt)
{
    struct mip_relay_flow *f;
    int fi, ri;

    fi = rly_flow_of(r, seg);
    ri = rly_flow_rev(r, seg);
    if (seg->flags & MIP_TCP_RST) {
        /* the connection is over, both directions */
        rly_flow_evict(r, fi);
        rly_flow_evict(r, ri);
        RSTAT(r, ignored);
        return MIP_FWD_PASS;
    }
    if (ri >= 0 && (seg->flags & MIP_TCP_ACK))
        ack_info(r, ri, seg);

    if (seg->seg_len == 0u) {
        /* a pure ACK (or a bare segment without ACK: nothing to do) */
        if (ri < 0 || !(seg->flags & MIP_TCP_ACK)) {
            RSTAT(r, ignored);
            return MIP_FWD_PASS;
        }
        RSTAT(r, acks_seen);
        f = &r->flows[ri];
        if ((f->flags & MIP_RELAY_F_ACKFWD) && rly_seq_leq(seg->ack, f->ack_forwarded)) {
            RSTAT(r, acks_dropped);
            return MIP_FWD_DROP;
        }
        /* The forwarding time of an ACK number counts from its first
         * transmission here: a copy forwarded again while the first is
         * pending does not restart the measurement (interpretation of
         * [T] 3b "transmission_time(ack_no)"). */
        if (!(f->flags & MIP_RELAY_F_ACKSENT) || !(f->flags & MIP_RELAY_F_ACKTIMER) ||
            f->ack_sent_no != seg->ack)
            f->ack_sent_at = r->now;
        f->ack_sent_no = seg->ack;
        f->flags |= MIP_RELAY_F_ACKSENT;
        arm_ack_timer(r, f);
        return MIP_FWD_PASS;
    }

    if (seg->flags & MIP_TCP_SYN) {
        syn_start(r, seg, fi, ri);
        return MIP_FWD_PASS;
    }

    RSTAT(r, data_seen);
    fi = rly_flow_data(r, seg, fi, ri);
    if (fi < 0)
        return MIP_FWD_PASS;
    return data_in(r, fi, seg, pkt);
}

void tss_overheard(struct mip_relay *r, const struct rly_seg *seg)
{
    struct mip_relay_flow *f;
    int fi, ci;

    if (seg->seg_len > 0u && !(seg->flags & MIP_TCP_SYN)) {
        /* 3b data: the successor forwarded it */
        fi = rly_flow_of(r, seg);
        if (fi < 0)
            return;
        RSTAT(r, overheard);
        f = &r->flows[fi];
        if (!(f->flags & MIP_RELAY_F_SEQ) || !rly_seq_gt(seg_end(seg), f->confirmed))
            return;
        ci = rly_slot_of(r, fi, MIP_RELAY_SLOT_CACHE);
        if (ci >= 0 && !r->slots[ci].unsent) {
            cache_done(r, f, ci);
            RSTAT(r, implicit_acks);
        }
        f->confirmed = seg_end(seg);
        if (rly_seq_gt(f->confirmed, f->transmitted))
            f->transmitted = f->confirmed;
        /* tss_ack_release: forward_delayed with a delay that lasts until
         * the segment's ACK is back here (3a releases the buffer then) */
        if (!r->cfg.tss_ack_release)
            release_buffer(r, fi, r->cfg.forward_delay_ms);
        return;
    }
    if (seg->seg_len == 0u && (seg->flags & MIP_TCP_ACK)) {
        /* 3b ACK: the upstream neighbour forwarded it on towards the source */
        fi = rly_flow_rev(r, seg);
        if (fi < 0)
            return;
        RSTAT(r, overheard);
        f = &r->flows[fi];
        if ((f->flags & MIP_RELAY_F_ACKSENT) && rly_seq_geq(seg->ack, f->ack_sent_no)) {
            /* Interpretation (Karn): no sample once the ACK was
             * recovered, since the forward heard may answer either copy */
            if ((f->flags & MIP_RELAY_F_ACKTIMER) && f->ack_attempts <= 1u) {
                rly_ackfwd_sample(r, f, r->now - f->ack_sent_at);
                f->ack_shift = 0;
            }
            f->flags &= (uint16_t)~MIP_RELAY_F_ACKTIMER;
        }
        if (!(f->flags & MIP_RELAY_F_ACKFWD) || rly_seq_gt(seg->ack, f->ack_forwarded))
            f->ack_forwarded = seg->ack;
        f->flags |= MIP_RELAY_F_ACKFWD;
    }
}

uint32_t tss_poll(struct mip_relay *r, uint32_t now)
{
    uint32_t next = MIP_POLL_IDLE;
    unsigned i;

    for (i = 0; i < MIP_RELAY_SLOTS; i++) {
        struct mip_relay_slot *sl = &r->slots[i];
        struct mip_relay_flow *f;
        if (sl->used != MIP_RELAY_SLOT_CACHE || !sl->timer_on)
            continue;
        if (!mip_time_reached(now, sl->deadline)) {
            next = mip_next_delay(next, now, sl->deadline);
            continue;
        }
        f = &r->flows[sl->flow];
        if (sl->unsent) {
            /* forward_delayed: its first transmission */
            RSTAT(r, delayed_forwards);
            send_cached(r, (int)i);
        } else if (!rly_seq_gt(slot_end(sl), f->confirmed)) {
            rly_slot_free(r, (int)i);   /* confirmed meanwhile */
            continue;
        } else if (sl->rexmits < r->cfg.max_local_rexmit) {
            /* 2: retransmission timeout */
            sl->rexmits++;
            if (f->rto_shift < 1u)
                f->rto_shift++;
            rtt_abandon_if(f, sl->seq, slot_end(sl));
            (void)rly_slot_resend(r, (int)i);
            arm_rexmit(r, sl, f);
        } else {
            /* Given up. Interpretation: the flow goes back to its last
             * confirmed byte, so the end-to-end retransmission of the lost
             * data is forwarded (and cached) again instead of being dropped
             * as already transmitted. */
            RSTAT(r, rexmit_gave_up);
            rtt_abandon_if(f, sl->seq, slot_end(sl));
            rly_slot_free(r, (int)i);
            f->transmitted = f->confirmed;
            continue;
        }
        next = mip_next_delay(next, now, sl->deadline);
    }
    for (i = 0; i < MIP_RELAY_FLOWS; i++) {
        struct mip_relay_flow *f = &r->flows[i];
        if (!f->used || !(f->flags & MIP_RELAY_F_ACKTIMER))
            continue;
        if (mip_time_reached(now, f->ack_deadline)) {
            /* 1: the upstream neighbour was not heard forwarding our ACK.
             * [T] part 1 recovers it once and does not restart the timer:
             * a recovered ACK that is lost too is left to the next ACK
             * (they are cumulative) or to the source's RTO. */
            f->flags &= (uint16_t)~MIP_RELAY_F_ACKTIMER;
            f->ack_attempts = (uint8_t)(f->ack_attempts + 1u);
            if (f->ack_shift < 2u)
                f->ack_shift++;
            if (rly_send_ack(r, (int)i) != MIP_ERR_NOTFOUND)
                RSTAT(r, acks_recovered);
            continue;
        }
        next = mip_next_delay(next, now, f->ack_deadline);
    }
    return next;
}

#if MIP_CONF_LOWPAN
/* True when the frame's MAC source is the link address this node would
 * send seg's datagram to (its next hop towards seg's IP destination) on
 * radio netif `netif`. */
static bool from_next_hop(const struct mip_relay *r, uint8_t netif, const struct rly_seg *seg,
                          const struct mip_802154_addr *link_src)
{
    struct mip_addr nexthop;
    struct mip_802154_addr want;
    uint8_t idx;
    if (seg->routed) {
        /* On a source route (RFC 6554) the routes do not name the next
         * hop (a non-storing RPL node has none down): the frame's sender
         * is the router that last worked on the route, and it is ours
         * when it had the datagram from this node. */
        const struct mip_netif *nif = mip_netif_get(r->stack, netif);
        struct mip_addr from;
        mip_addr_set6(&from, seg->route_from);
        if (nif == NULL || !mip_netif_has_addr(nif, &from))
            return false;
        mip_addr_set6(&nexthop, seg->route_by);
    } else if (mip_route_lookup(r->stack, &seg->dst, &idx, &nexthop) != MIP_OK || idx != netif) {
        return false;
    }
    if (mip_lowpan_link_addr_of(r->stack, netif, &nexthop, &want) != MIP_OK)
        return false;
    if (want.mode != link_src->mode)
        return false;
    if (want.mode == MIP_802154_ADDR_SHORT)
        return want.short_addr == link_src->short_addr &&
               want.short_addr != MIP_802154_BROADCAST;
    if (want.mode == MIP_802154_ADDR_EXT)
        return memcmp(want.ext, link_src->ext, 8) == 0;
    return false;
}

static void overheard_frame(struct mip_relay *r, uint8_t netif, const uint8_t *frame, size_t len)
{
    struct mip_802154_addr link_src;
    struct rly_seg seg;

    if (rly_peek_seg(r, netif, frame, len, &seg, &link_src) != MIP_OK)
        return;
    if (!from_next_hop(r, netif, &seg, &link_src))
        return;
    tss_overheard(r, &seg);
}
#else
/* Without an 802.15.4 netif no frame is overheard (implicit ACKs, 3b). */
#define overheard_frame NULL
#endif

static unsigned events(const struct mip_relay_config *c)
{
    (void)c;
    return RLY_EV_LOCAL | (MIP_CONF_LOWPAN ? RLY_EV_OVERHEARD : 0u);
}

const struct rly_ops rly_tss_ops = {
    events, tss_forward, tss_local_out, tss_local_in, NULL, overheard_frame, tss_poll
};

#endif /* MIP_CONF_FORWARD */
