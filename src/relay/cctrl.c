/*
 * CCTRL: Buergi's cache-and-control module for Contiki ([B] chapter 4;
 * docs/relay-papers.md section 2 has the reading this follows).
 *
 * The basic module ([B] 4.1), for every TCP datagram this node forwards:
 *
 *   - its ACK part removes the cached segment of the opposite direction
 *     when it acknowledges all of it (ack >= seq + len), and gives an RTT
 *     sample (caching -> ACK) when that segment was never sent again;
 *   - data that the destination has already acknowledged (an ACK was lost
 *     further on towards the sender) is not forwarded: the relay answers
 *     with a regenerated ACK, dst's latest ACK sent again ([B] 4.1.3);
 *   - data with payload is cached when its direction has no cached segment
 *     (one per connection direction, [B] 4.1.1), with a retransmission
 *     timer at t_r = n * rtt (Eq. 4.2; rtt an EWMA with alpha, Eq. 4.1);
 *   - at t_r the segment is sent again and released: one local
 *     retransmission per segment;
 *   - a FIN or an RST ends both directions ([B] 4.1.4); idle directions
 *     are forgotten after idle_timeout_s (relay.c).
 *
 * Extensions ([B] 4.2 - 4.4), each a flag of the configuration:
 *
 *   keep      after a retransmission the segment stays cached and the timer
 *             is re-armed at t_r; max_local_rexmit retransmissions (3 when
 *             it is left at the basic module's 1), then the copy is kept
 *             until one more t_r has passed and freed.
 *   drop      a received copy of the cached segment (same direction, same
 *             sequence number) is dropped.
 *   hop       t_r = min(h, hop_max) * hop_beta * rtt, h the hop distance to
 *             the receiver, from the TTL of its datagrams (Eq. 4.3).
 *   activity  the first timer runs out at 2/3 t_r: the segment is sent
 *             again at once when no frame was overheard within the last
 *             rtt, else after the remaining 1/3 t_r (Listing 4.2).
 *
 * cctrl takes no feedback from the MAC ([B] ch. 4): no overhearing of
 * what a frame carries, no link status. The activity extension only counts
 * overheard frames.
 *
 * Ours, off in [B]'s configurations:
 *
 *   link      where the MAC does report (link ACKs), a cached segment whose
 *             frame it reports lost is sent again at once, one of its
 *             retransmissions, instead of t_r later.
 */
#include "relay_internal.h"

#if MIP_CONF_FORWARD && MIP_RELAY_HAS_CCTRL

#include "moteip/wire/tcp.h"

/* [B] 4.2: "keep" allows three retransmissions per segment. */
#define CC_KEEP_RETRIES 3u

/* Values of mip_relay_slot.timer_on for a cached segment: the timer runs
 * for the whole t_r, or (activity) for its first 2/3, at whose end the
 * channel's activity decides. */
#define CC_TIMER_FULL  1u
#define CC_TIMER_EARLY 2u

static uint32_t slot_end(const struct mip_relay_slot *sl)
{
    return sl->seq + sl->seg_len;
}

/* Eq. 4.1, rtt = alpha * sample + (1 - alpha) * rtt, in ms * 256. The first
 * sample replaces rtt_init_ms ([B] gives only the initial RTO; starting an
 * average at 0 would make the first RTO a quarter of a sample). Unlike the
 * TSS core helper, a sample is not capped: [B] states none. */
static void cc_rtt_sample(struct mip_relay *r, struct mip_relay_flow *f, uint32_t ms)
{
    uint32_t s_q8 = (ms > RLY_TIME_MAX_MS ? RLY_TIME_MAX_MS : ms) << 8;
    uint32_t a = r->cfg.alpha_q8;
    if (f->flags & MIP_RELAY_F_RTT_OK) {
        uint32_t avg = f->rtt_q8 > (RLY_TIME_MAX_MS << 8) ? RLY_TIME_MAX_MS << 8 : f->rtt_q8;
        /* both products <= 30000 * 256 * 256 < 2^31 */
        f->rtt_q8 = (avg * (256u - a) + s_q8 * a) >> 8;
    } else {
        f->rtt_q8 = s_q8;
        f->flags |= MIP_RELAY_F_RTT_OK;
    }
}

/* t_r of flow f, in ms: n * rtt (Eq. 4.2), or with hop and a known hop
 * distance min(h, hop_max) * beta * rtt (Eq. 4.3). At least rto_min_ms, at
 * most 60 s. No backoff: [B] re-arms with the current t_r. */
static uint32_t cc_rto(const struct mip_relay *r, const struct mip_relay_flow *f)
{
    uint32_t rtt = rly_rtt_ms(r, f), t;
    if (r->cfg.cc_hop && (f->flags & MIP_RELAY_F_HOPS)) {
        uint32_t h = f->hops;
        if (r->cfg.cc_hop_max != 0u && h > r->cfg.cc_hop_max)
            h = r->cfg.cc_hop_max;
        /* (30000 * 65535) >> 8 < 2^23, times h <= 255 < 2^31 */
        t = ((rtt * (uint32_t)r->cfg.cc_hop_beta_q8) >> 8) * h;
    } else {
        t = (rtt * (uint32_t)r->cfg.rto_mult_q8) >> 8;
    }
    if (t < r->cfg.rto_min_ms)
        t = r->cfg.rto_min_ms;
    if (t > 2u * RLY_TIME_MAX_MS)
        t = 2u * RLY_TIME_MAX_MS;
    return t == 0u ? 1u : t;
}

/* How many retransmissions a cached segment gets. keep with the basic
 * module's 1 (the default) means [B]'s three; any other value is taken as
 * configured. Without keep the segment leaves the cache with its first
 * retransmission, so more than one is never reached. */
static uint8_t cc_retries(const struct mip_relay *r)
{
    if (r->cfg.cc_keep && r->cfg.max_local_rexmit == 1u)
        return (uint8_t)CC_KEEP_RETRIES;
    return r->cfg.max_local_rexmit;
}

/* The activity level ([B] 4.4.2): overheard frames among the last
 * MIP_RELAY_ACTIVITY within the flow's rtt before now. */
static unsigned activity_level(const struct mip_relay *r, const struct mip_relay_flow *f,
                               uint32_t now)
{
    uint32_t window = rly_rtt_ms(r, f);
    unsigned i, n = 0;
    for (i = 0; i < r->activity_count && i < MIP_RELAY_ACTIVITY; i++)
        if (now - r->activity[i] < window)       /* wrap-safe age */
            n++;
    return n;
}

/* The timer of a cached segment: its first run (activity: 2/3 of t_r, then
 * a look at the channel), or a later one (the full t_r). */
static void arm_timer(struct mip_relay *r, struct mip_relay_slot *sl,
                      const struct mip_relay_flow *f, bool first)
{
    uint32_t t = cc_rto(r, f);
    if (first && r->cfg.cc_activity) {
        sl->deadline = r->now + (2u * t) / 3u;
        sl->timer_on = CC_TIMER_EARLY;
    } else {
        sl->deadline = r->now + t;
        sl->timer_on = CC_TIMER_FULL;
    }
}

/* The running RTT measurement of flow f is abandoned when it times the
 * segment starting at seq (Karn: an ACK may now answer a copy). */
static void rtt_abandon(struct mip_relay_flow *f, uint32_t seq)
{
    if ((f->flags & MIP_RELAY_F_RTT_ON) && f->rtt_seq == seq)
        f->flags &= (uint16_t)~MIP_RELAY_F_RTT_ON;
}

/* The ACK part of seg, which the dst of flow fi sent: learn the ACK number
 * (and the template of a regenerated ACK), the hop distance to dst, and
 * free fi's cached segment when the ACK covers it. */
static void ack_part(struct mip_relay *r, int fi, const struct rly_seg *seg)
{
    struct mip_relay_flow *f = &r->flows[fi];
    int ci;

    f->last_used = r->now;
    /* hop: dst sent with MIP_DEFAULT_TTL (Contiki's 64, [B] 4.3) and this
     * hook runs after this node's decrement, so the TTL seen here is
     * 64 - h. A larger initial TTL cannot be read this way: ignored. */
    if (seg->ttl < MIP_DEFAULT_TTL) {
        f->hops = (uint8_t)(MIP_DEFAULT_TTL - seg->ttl);
        f->flags |= MIP_RELAY_F_HOPS;
    }
    if (!(seg->flags & MIP_TCP_ACK))
        return;
    (void)rly_learn_ack(r, fi, seg);
    ci = rly_slot_of(r, fi, MIP_RELAY_SLOT_CACHE);
    /* "ack > seq" of [B] 4.1.2 with whole segments: all of it covered */
    if (ci < 0 || !rly_seq_geq(seg->ack, slot_end(&r->slots[ci])))
        return;
    /* the measurement is off when the segment was sent again (Karn) */
    if ((f->flags & MIP_RELAY_F_RTT_ON) && f->rtt_seq == r->slots[ci].seq)
        cc_rtt_sample(r, f, r->now - f->rtt_start);
    f->flags &= (uint16_t)~MIP_RELAY_F_RTT_ON;
    rly_slot_free(r, ci);
    RSTAT(r, tcp_acks_cleared);
}


/* Data (payload) of flow fi: answered, dropped, or forwarded and perhaps
 * cached. */
static enum mip_fwd_verdict data_part(struct mip_relay *r, int fi, const struct rly_seg *seg,
                                      const uint8_t *pkt)
{
    struct mip_relay_flow *f = &r->flows[fi];
    uint32_t end = seg->seq + seg->seg_len;
    bool fresh;
    int ci;

    if ((f->flags & MIP_RELAY_F_ACKED) && rly_seq_leq(end, f->acked)) {
        /* [B] 4.1.2: a retransmission of acknowledged data: the ACK was
         * lost between here and the sender. Answered in dst's name with
         * the highest ACK number seen, the data goes no further. */
        if (rly_send_ack(r, fi) != MIP_ERR_NOTFOUND) {
            RSTAT(r, acks_regenerated);
            return MIP_FWD_TAKEN;
        }
    }
    ci = rly_slot_of(r, fi, MIP_RELAY_SLOT_CACHE);
    if (ci >= 0 && r->slots[ci].seq == seg->seq) {
        if (r->cfg.cc_drop) {
            /* [B] 4.2 drop: this node is repairing that segment already */
            RSTAT(r, dup_dropped);
            return MIP_FWD_DROP;
        }
        /* a copy goes on: the ACK may answer it, not what was cached */
        rtt_abandon(f, seg->seq);
    }
    /* The connection state follows in-sequence data only ([B] 4.1.2):
     * `transmitted` is the end of the highest data seen in order. Data
     * below it is a retransmission, end to end or by a node upstream. */
    fresh = !(f->flags & MIP_RELAY_F_SEQ) || rly_seq_gt(end, f->transmitted);
    if (!(f->flags & MIP_RELAY_F_SEQ)) {
        f->transmitted = end;
        f->flags |= MIP_RELAY_F_SEQ;
    } else if (rly_seq_leq(seg->seq, f->transmitted) && rly_seq_gt(end, f->transmitted)) {
        f->transmitted = end;
    }
    if (ci >= 0) {
        RSTAT(r, not_cached);           /* one cached segment per direction */
        return MIP_FWD_PASS;
    }
    ci = rly_slot_store(r, fi, MIP_RELAY_SLOT_CACHE, seg, pkt, seg->dgram_len);
    if (ci < 0) {
        RSTAT(r, not_cached);           /* too big, or every slot taken */
        return MIP_FWD_PASS;
    }
    r->slots[ci].stored_at = r->now;
    if (fresh) {
        /* [B] 4.1.3 samples segments never sent again; a retransmission
         * cached here may be answered by an ACK for an earlier copy */
        f->flags |= MIP_RELAY_F_RTT_ON;
        f->rtt_seq = seg->seq;
        f->rtt_start = r->now;
    } else {
        f->flags &= (uint16_t)~MIP_RELAY_F_RTT_ON;
    }
    arm_timer(r, &r->slots[ci], f, true);
    RSTAT(r, cached);
    return MIP_FWD_PASS;
}

enum mip_fwd_verdict cctrl_forward(struct mip_relay *r, const struct rly_seg *seg,
                                   const uint8_t *pkt)
{
    int fi = rly_flow_of(r, seg), ri = rly_flow_rev(r, seg);
    bool fresh;

    if (seg->flags & MIP_TCP_RST) {
        rly_flow_evict(r, fi);
        rly_flow_evict(r, ri);
        RSTAT(r, ignored);
        return MIP_FWD_PASS;
    }
    if (ri >= 0)
        ack_part(r, ri, seg);
    if (seg->flags & MIP_TCP_FIN) {
        /* [B] 4.1.4: the connection ends, both directions and their
         * caches; the FIN itself goes on */
        if (seg->payload_len > 0u)
            RSTAT(r, data_seen);
        rly_flow_evict(r, fi);
        rly_flow_evict(r, ri);
        return MIP_FWD_PASS;
    }
    if (seg->flags & MIP_TCP_SYN) {
        /* a direction starts (a SYN sent again keeps it); no RTT
         * measurement: the first t_r comes from rtt_init_ms ([B] 4.1.3) */
        (void)rly_flow_syn(r, seg, fi, ri, &fresh);
        return MIP_FWD_PASS;
    }
    if (seg->payload_len == 0u) {
        /* a pure ACK: all there is to learn is in ack_part */
        if (ri < 0 || !(seg->flags & MIP_TCP_ACK)) {
            RSTAT(r, ignored);
            return MIP_FWD_PASS;
        }
        if (fi >= 0)
            r->flows[fi].last_used = r->now;
        RSTAT(r, acks_seen);
        return MIP_FWD_PASS;
    }
    RSTAT(r, data_seen);
    fi = rly_flow_data(r, seg, fi, ri);   /* a FIN never gets here ([B] 4.1.4) */
    if (fi < 0)
        return MIP_FWD_PASS;
    return data_part(r, fi, seg, pkt);
}

void cctrl_overheard_frame(struct mip_relay *r, uint32_t now)
{
    if (!r->cfg.cc_activity)
        return;
    /* [B] 4.4.2: the times of the latest MIP_RELAY_ACTIVITY frames */
    if (r->activity_next >= MIP_RELAY_ACTIVITY)
        r->activity_next = 0;
    r->activity[r->activity_next] = now;
    r->activity_next = (uint8_t)((r->activity_next + 1u) % MIP_RELAY_ACTIVITY);
    if (r->activity_count < MIP_RELAY_ACTIVITY)
        r->activity_count++;
    RSTAT(r, activity_frames);
}

/* A cached segment's timer ran out: send it again, or give it up. Returns
 * true when the slot is still in use (its timer re-armed). */
static bool expire(struct mip_relay *r, int si, uint32_t now)
{
    struct mip_relay_slot *sl = &r->slots[si];
    struct mip_relay_flow *f = &r->flows[sl->flow];
    bool early = false;

    if (sl->timer_on == CC_TIMER_EARLY) {
        /* Listing 4.2: at 2/3 t_r a quiet channel means the segment or its
         * ACK is lost, not under way: send now; else wait the last third */
        if (activity_level(r, f, now) != 0u) {
            uint32_t t = cc_rto(r, f);
            sl->deadline = now + (t - (2u * t) / 3u);
            sl->timer_on = CC_TIMER_FULL;
            return true;
        }
        early = true;
    }
    if (sl->rexmits >= cc_retries(r)) {
        /* keep: the copy stayed one more t_r after its last retransmission
         * so that drop still knew it (docs/relay-papers.md 2(g) 5) */
        RSTAT(r, rexmit_gave_up);
        rtt_abandon(f, sl->seq);
        rly_slot_free(r, si);
        return false;
    }
    sl->rexmits++;
    if (early)
        RSTAT(r, early_rexmits);
    rtt_abandon(f, sl->seq);
    (void)rly_slot_resend(r, si);
    if (!r->cfg.cc_keep) {
        /* basic: "released from the cache and sent again" ([B] 4.1.2) */
        rly_slot_free(r, si);
        return false;
    }
    arm_timer(r, sl, f, false);
    return true;
}

void cctrl_link_status(struct mip_relay *r, const struct rly_seg *seg, bool ok)
{
    struct mip_relay_slot *sl;
    uint32_t sent;
    int fi, si;
    if (ok || !r->cfg.cc_link || seg->payload_len == 0u || (seg->flags & MIP_TCP_SYN))
        return;
    fi = rly_flow_of(r, seg);
    if (fi < 0 || (si = rly_slot_of(r, fi, MIP_RELAY_SLOT_CACHE)) < 0)
        return;
    sl = &r->slots[si];
    if (sl->seq != seg->seq || !sl->timer_on)
        return;                       /* not the segment cached here */
    /* its timer runs out now: the same retransmission, without the wait
     * (and without the activity look: the MAC has said the frame is lost) */
    sent = r->stats[MIP_RELAY_STAT_local_rexmits];
    sl->timer_on = CC_TIMER_FULL;
    sl->deadline = r->now;
    (void)expire(r, si, r->now);
    if (r->stats[MIP_RELAY_STAT_local_rexmits] != sent)
        RSTAT(r, link_rexmits);
}

uint32_t cctrl_poll(struct mip_relay *r, uint32_t now)
{
    uint32_t next = MIP_POLL_IDLE;
    unsigned i;

    r->now = now;
    for (i = 0; i < MIP_RELAY_SLOTS; i++) {
        struct mip_relay_slot *sl = &r->slots[i];
        if (sl->used != MIP_RELAY_SLOT_CACHE || !sl->timer_on)
            continue;
        if (mip_time_reached(now, sl->deadline) && !expire(r, (int)i, now))
            continue;
        next = mip_next_delay(next, now, sl->deadline);
    }
    return next;
}

static void overheard(struct mip_relay *r, uint8_t netif, const uint8_t *frame, size_t len)
{
    (void)netif;
    (void)frame;
    (void)len;
    cctrl_overheard_frame(r, r->now);
}

static unsigned events(const struct mip_relay_config *c)
{
    return RLY_EV_OVERHEARD | (c->cc_link || c->ack_repair ? RLY_EV_LINK : 0u);
}

const struct rly_ops rly_cctrl_ops = {
    events, cctrl_forward, NULL, NULL, cctrl_link_status, overheard, cctrl_poll
};

#endif /* MIP_CONF_FORWARD */
