/*
 * ContikiMAC (include/moteip/rdc.h; Dunkels, SICS T2011:13): periodic
 * two-CCA channel checks, fast sleep, unicast as the data frame repeated
 * until its ACK, broadcast repeated for a whole wake-up interval, phase lock
 * learned from ACKs, bursts through the frame pending bit.
 *
 * Two machines share the state in m->rdc.cm:
 *   receiver  (cm.rx, on the RDC timer) sleep -> CCA [-> gap -> CCA] ->
 *             sleep, or -> listen after a busy CCA -> sleep; burst after a
 *             frame for us with the pending bit;
 *   sender    (cm.tx, while the engine is in state RDC, ACK_WAIT or TX)
 *             [wait for the receiver's phase | for a burst we receive]
 *             -> own CCAs -> copy, gap, copy, ... until ACK or the train's
 *             limit.
 */
#include "mac_rdc.h"

#if MIP_RDC_HAS_CONTIKIMAC

enum { RX_SLEEP = 0, RX_CCA, RX_GAP, RX_LISTEN, RX_BURST };
enum { TX_PHASE_WAIT = 0, TX_CCA, TX_CCA_GAP, TX_COPY_GAP, TX_BURST_WAIT };

/* Two clear samples in a row while listening end it: they lie
 * cca_on_us + cca_gap_us apart, longer than a gap between copies. */
#define SILENT_SAMPLES 2u

static struct mip_contikimac *cm(struct mip_mac *m)
{
    return &m->rdc.cm;
}

static uint32_t airtime(const struct mip_mac *m, size_t len_no_fcs)
{
    return mip_radio_airtime(&m->cfg.timing, len_no_fcs + MIP_802154_FCS_LEN);
}

/* Duration of one channel check: cca_count windows, gaps between them. */
static uint32_t check_us(const struct mip_rdc_config *p)
{
    return (uint32_t)p->cca_count * p->cca_on_us + (uint32_t)(p->cca_count - 1u) * p->cca_gap_us;
}

/* Duration of the sender's own check before a train: each CCA window
 * starts with the receiver's start-up (the radio is off between them). */
static uint32_t own_check_us(const struct mip_mac *m)
{
    const struct mip_rdc_config *p = &m->cfg.rdc;
    return check_us(p) + (uint32_t)p->cca_count * m->cfg.timing.rx_on_us;
}

/* Moves cm.cycle to the start of the wake-up interval holding now. The RDC
 * timer runs at least once an interval, so the gap stays small. */
static void cycle_now(struct mip_mac *m)
{
    mip_rdc_cycle_now(&cm(m)->grid.cycle, cm(m)->grid.period, m->now);
}

/* --- parameters -------------------------------------------------------------- */

static enum mip_rdc_check check(const struct mip_mac_config *cfg)
{
    const struct mip_rdc_config *p = &cfg->rdc;
    uint32_t ack_seen = (uint32_t)cfg->timing.turnaround_us +
                        mip_radio_airtime(&cfg->timing, 0);   /* SHR + PHR */
    if (p->cca_count == 0u || p->cca_count > 8u)
        return MIP_RDC_BAD_CCA_COUNT;
    if (p->cca_on_us == 0u)
        return MIP_RDC_BAD_CCA_ON;
    /* Checks do not overlap. */
    if (p->check_rate_hz == 0u || p->check_rate_hz > 1000u ||
        2u * check_us(p) >= mip_rdc_period_us(p))
        return MIP_RDC_BAD_CHECK_RATE;
    /* The report's constraints: an ACK is detected before the next copy
     * (Ta + Td < Ti) and two CCAs cannot both fall into one gap (Ti < Tc). */
    if (ack_seen >= p->copy_gap_us || p->copy_gap_us >= p->cca_gap_us)
        return MIP_RDC_BAD_COPY_GAP;
    if (mip_rdc_check_adapt(p, mip_rdc_period_us(p)) != MIP_RDC_OK)
        return MIP_RDC_BAD_ADAPT_MAX;
    if (p->listen_max_us == 0u)
        return MIP_RDC_BAD_LISTEN_MAX;
    if (p->burst_wait_us == 0u)
        return MIP_RDC_BAD_BURST_WAIT;
    if (mip_rdc_check_burst(p) != MIP_RDC_OK)
        return mip_rdc_check_burst(p);
    if (p->phase_strobe_us == 0u)
        return MIP_RDC_BAD_PHASE_STROBE;
    return p->phase_max_misses == 0u ? MIP_RDC_BAD_PHASE_MISSES : MIP_RDC_OK;
}

/* --- the receiver -------------------------------------------------------------- */

static void sleep_until_next_check(struct mip_mac *m)
{
    struct mip_contikimac *c = cm(m);
    c->rx = RX_SLEEP;
    mip_mac_rdc_timer(m, mip_rdc_grid_next(m, &c->grid));
}

static void init(struct mip_mac *m)
{
    struct mip_contikimac *c = cm(m);
    c->rx = RX_SLEEP;
    mip_mac_rdc_timer(m, mip_rdc_grid_start(m, &c->grid));
}

/* The radio is on and free to read the channel. */
static bool can_sample(const struct mip_mac *m)
{
    return m->radio_on && m->radio_tx == MIP_MAC_RADIO_IDLE;
}

static void check_start(struct mip_mac *m)
{
    struct mip_contikimac *c = cm(m);
    mip_rdc_grid_adapt(m, &c->grid, &c->adapt);
    mip_rdc_earned_age(m, c->earned);
    /* While the sender side has the radio, it hears whatever comes. */
    if (mip_mac_radio_needed(m) || c->radio) {
        sleep_until_next_check(m);
        return;
    }
    mip_rdc_count(m, MIP_MAC_STAT_rdc_checks);
    c->rx = RX_CCA;
    c->n = 0;
    mip_mac_rdc_timer(m, mip_mac_rx_start(m) + mip_rdc_par(m)->cca_on_us);
}

static void listen_from_now(struct mip_mac *m)
{
    struct mip_contikimac *c = cm(m);
    const struct mip_rdc_config *p = mip_rdc_par(m);
    mip_rdc_count(m, MIP_MAC_STAT_rdc_detections);
    c->rx = RX_LISTEN;
    c->since = m->now;
    c->silence = 0;
    c->paused = false;
    c->extended = false;
    mip_mac_rdc_timer(m, (uint32_t)p->cca_on_us + p->cca_gap_us);
}

static void cca_done(struct mip_mac *m)
{
    struct mip_contikimac *c = cm(m);
    const struct mip_rdc_config *p = mip_rdc_par(m);
    if (!can_sample(m)) {
        sleep_until_next_check(m);
        return;
    }
    if (!m->radio->cca(m->radio_ctx)) {
        listen_from_now(m);
        return;
    }
    if (++c->n < p->cca_count) {
        c->rx = RX_GAP;
        mip_mac_rdc_timer(m, p->cca_gap_us);
        return;
    }
    sleep_until_next_check(m);
}

static void listen_sample(struct mip_mac *m)
{
    struct mip_contikimac *c = cm(m);
    const struct mip_rdc_config *p = mip_rdc_par(m);
    uint32_t left, step = (uint32_t)p->cca_on_us + p->cca_gap_us;
    uint32_t heard = m->now - c->since;
    if (heard >= p->listen_max_us) {
        /* The listen ends with the channel busy after a clear sample: a
         * copy of a train may be under way (one after copies lost to
         * collisions); stay for one longest frame, once, as X-MAC does,
         * rather than cut it off and have the sender try again. Energy
         * that never paused is noise: the listen ends on time. */
        if (!c->extended && c->paused && can_sample(m) && !m->radio->cca(m->radio_ctx)) {
            uint32_t longest = mip_rdc_airtime(&m->cfg.timing, MIP_MAC_FRAME_MAX);
            c->extended = true;
            c->since = m->now + longest - p->listen_max_us;     /* ends `longest` from now */
            mip_mac_rdc_timer(m, longest);
            return;
        }
        mip_rdc_count(m, MIP_MAC_STAT_rdc_fast_sleeps);
        sleep_until_next_check(m);
        return;
    }
    if (!can_sample(m) || !m->radio->cca(m->radio_ctx)) {
        c->silence = 0;
    } else {
        c->paused = true;
        if (++c->silence >= SILENT_SAMPLES) {
            mip_rdc_count(m, MIP_MAC_STAT_rdc_fast_sleeps);
            sleep_until_next_check(m);
            return;
        }
    }
    left = p->listen_max_us - heard;
    mip_mac_rdc_timer(m, step < left ? step : left);
}

static void timer(struct mip_mac *m)
{
    struct mip_contikimac *c = cm(m);
    switch (c->rx) {
    case RX_SLEEP:
        check_start(m);
        break;
    case RX_CCA:
        cca_done(m);
        break;
    case RX_GAP:
        c->rx = RX_CCA;
        mip_mac_rdc_timer(m, mip_mac_rx_start(m) + mip_rdc_par(m)->cca_on_us);
        break;
    case RX_LISTEN:
        listen_sample(m);
        break;
    default:                    /* RX_BURST: no next frame came */
        sleep_until_next_check(m);
        break;
    }
}

static void rx(struct mip_mac *m, const struct mip_802154_hdr *h, enum mip_rdc_rx what)
{
    struct mip_contikimac *c = cm(m);
    uint32_t grant;
    if (what == MIP_RDC_RX_ACK)
        return;                 /* the sender side's business */
    if (what == MIP_RDC_RX_OURS) {
        mip_rdc_adapt_heard(&c->adapt);
        c->grid.skip = 1;
    }
    if (what != MIP_RDC_RX_OTHER &&
        (grant = mip_rdc_burst_grant(m, c->earned, h, what, mip_rdc_par(m)->burst_wait_us)) > 0u) {
        /* More frames follow: stay awake for the next one (as long as the
         * sender's budget allows: docs/MAC.md "Denial of sleep"). */
        c->rx = RX_BURST;
        c->since = m->now + grant;
        mip_mac_rdc_timer(m, grant);
        return;
    }
    /* someone else's frame, or a repeat, does not end our burst */
    if (c->rx == RX_BURST && (what == MIP_RDC_RX_OTHER || what == MIP_RDC_RX_DUP))
        return;
    if (c->rx == RX_BURST && m->state == MIP_MAC_ST_RDC && c->tx == TX_BURST_WAIT)
        mip_mac_rdc_wait(m, 0);     /* the burst is over: our own frame may go */
    /* A frame for us, new or a repeat (its ACK keeps the radio on until
     * sent), or a frame not for us after a wake-up: back to sleep. */
    if (c->rx != RX_SLEEP || what != MIP_RDC_RX_OTHER)
        sleep_until_next_check(m);
}

/* --- the phase table ------------------------------------------------------------- */

static struct mip_rdc_phase *phase_find(struct mip_mac *m, const struct mip_802154_addr *a)
{
    return mip_rdc_phase_find(cm(m)->phase, a);
}

/* The ACKed copy started at cm.copy_start. The receiver's check caught the
 * copy before it (or this one, when it was the first): a first copy sent at
 * that instant of the interval reaches it next time. */
static void phase_learn(struct mip_mac *m)
{
    struct mip_contikimac *c = cm(m);
    struct mip_rdc_phase *e = mip_rdc_phase_get(m, c->phase, &c->dst);
    mip_utime_t target = c->copy_start;
    if (c->copies > 1u)
        target -= airtime(m, mip_mac_head(m)->len) + mip_rdc_par(m)->copy_gap_us;
    cycle_now(m);
    e->offset = mip_rdc_offset(target, c->grid.cycle, c->grid.period);
    e->misses = 0;
    e->used = ++c->lru;
}

/* No ACK for an attempt to a neighbour with a phase (aimed at it, or a full
 * train after an earlier miss). */
static void phase_miss(struct mip_mac *m)
{
    struct mip_rdc_phase *e = phase_find(m, &cm(m)->dst);
    if (cm(m)->known)
        mip_rdc_count(m, MIP_MAC_STAT_rdc_phase_misses);
    if (e != NULL && ++e->misses >= mip_rdc_par(m)->phase_max_misses) {
        e->valid = 0;
        mip_rdc_count(m, MIP_MAC_STAT_rdc_phase_evicted);
    }
}

/* µs until the sender's own CCAs start, so that the first copy goes out at
 * the learned instant of the receiver's interval. */
static uint32_t phase_wait(struct mip_mac *m, struct mip_rdc_phase *e)
{
    struct mip_contikimac *c = cm(m);
    const struct mip_rdc_config *p = mip_rdc_par(m);
    mip_utime_t start;
    int32_t ahead;
    cycle_now(m);
    start = c->grid.cycle + e->offset - p->phase_guard_us - own_check_us(m);
    ahead = (int32_t)(start - m->now);
    if (ahead < 0)
        start += ((uint32_t)-ahead + c->grid.period - 1u) / c->grid.period * c->grid.period;
    e->used = ++c->lru;
    return start - m->now;
}

/* --- the sender -------------------------------------------------------------------- */

static uint32_t train_limit(const struct mip_mac *m)
{
    const struct mip_contikimac *c = &m->rdc.cm;
    const struct mip_rdc_config *p = mip_rdc_par(m);
    if (c->known || c->awake)
        return p->phase_strobe_us;
    /* The whole interval and two checks: every check of the receiver's
     * falls inside the train, whatever its phase (Contiki's STROBE_TIME);
     * the longest interval when the receiver may have stretched its own. */
    return mip_rdc_adapt_longest(c->grid.period, p->adapt_max_us) + 2u * check_us(p);
}

/* Another copy fits: it would start copy_gap_us from now. */
static bool train_left(const struct mip_mac *m)
{
    const struct mip_contikimac *c = &m->rdc.cm;
    return m->now + mip_rdc_par(m)->copy_gap_us - c->train < train_limit(m);
}

static void copy(struct mip_mac *m)
{
    struct mip_contikimac *c = cm(m);
    if (mip_mac_defer_if_busy(m))
        return;
    if (c->copies > 0u)
        mip_rdc_count(m, MIP_MAC_STAT_rdc_copies);
    if (c->copies < UINT16_MAX)
        c->copies++;
    c->copy_start = m->now;
    c->ack_stretched = false;
    mip_mac_transmit(m);
}

static void train_start(struct mip_mac *m)
{
    struct mip_contikimac *c = cm(m);
    /* A sending node does not check the channel for others meanwhile; its
     * radio hears what comes while it waits for ACKs. */
    if (c->rx != RX_SLEEP)
        sleep_until_next_check(m);
    c->train = m->now;
    c->copies = 0;
    copy(m);
}

static void cca_window(struct mip_mac *m)
{
    struct mip_contikimac *c = cm(m);
    c->tx = TX_CCA;
    c->radio = true;
    mip_mac_rdc_wait(m, mip_mac_rx_start(m) + mip_rdc_par(m)->cca_on_us);
}

static void own_check(struct mip_mac *m)
{
    if (mip_mac_defer_if_busy(m))
        return;
    cm(m)->n = 0;
    cca_window(m);
}

static void own_check_next(struct mip_mac *m)
{
    if (!mip_mac_defer_if_busy(m))
        cca_window(m);
}

static void own_cca_done(struct mip_mac *m)
{
    struct mip_contikimac *c = cm(m);
    bool clear;
    c->radio = false;
    /* Our ACK for someone else went out meanwhile: the CCA tells nothing;
     * the protocol's resume starts the attempt over once it is sent. */
    if (mip_mac_defer_if_busy(m))
        return;
    clear = m->radio_on && m->radio->cca(m->radio_ctx);
    if (!clear) {
        /* Someone is sending: the protocol retries later. */
        mip_rdc_count(m, MIP_MAC_STAT_rdc_collisions);
        mip_mac_noack(m);
        return;
    }
    if (++c->n < mip_rdc_par(m)->cca_count) {
        c->tx = TX_CCA_GAP;
        mip_mac_rdc_wait(m, mip_rdc_par(m)->cca_gap_us);
        return;
    }
    train_start(m);
}

static void send(struct mip_mac *m)
{
    struct mip_contikimac *c = cm(m);
    struct mip_rdc_phase *e;
    c->known = false;
    c->awake = false;
    c->radio = false;
    if (c->rx == RX_BURST) {
        /* We are receiving a burst: our frame waits for its end. */
        c->tx = TX_BURST_WAIT;
        mip_mac_rdc_wait(m, c->since - m->now);
        return;
    }
    if (!mip_rdc_head_dst(m, &c->dst))
        return;
    if (m->ack_wanted) {
        mip_rdc_mark_burst(m, &c->burst, &c->dst);
        if (mip_rdc_burst_open(m, &c->burst, &c->dst)) {
            c->awake = true;
            mip_rdc_count(m, MIP_MAC_STAT_rdc_bursts);
            train_start(m);
            return;
        }
        e = mip_rdc_par(m)->phase_lock ? phase_find(m, &c->dst) : NULL;
        /* After a miss the phase is in doubt: a full train finds the
         * receiver wherever it wakes, and its ACK sets the phase again. */
        if (e != NULL && e->misses == 0u) {
            c->known = true;
            mip_rdc_count(m, MIP_MAC_STAT_rdc_phase_locked);
            c->tx = TX_PHASE_WAIT;
            mip_mac_rdc_wait(m, phase_wait(m, e));
            return;
        }
    }
    own_check(m);
}

static void step(struct mip_mac *m)
{
    struct mip_contikimac *c = cm(m);
    switch (c->tx) {
    case TX_PHASE_WAIT:
        own_check(m);
        break;
    case TX_CCA:
        own_cca_done(m);
        break;
    case TX_CCA_GAP:
        own_check_next(m);
        break;
    case TX_COPY_GAP:
        copy(m);
        break;
    default:                    /* TX_BURST_WAIT */
        send(m);
        break;
    }
}

/* A copy left the radio. */
static void sent(struct mip_mac *m)
{
    struct mip_contikimac *c = cm(m);
    c->copy_end = m->now;
    if (m->ack_wanted) {
        mip_mac_await_ack(m, mip_rdc_par(m)->copy_gap_us);
        return;
    }
    /* No ACK will stop it: the train runs its whole length, the radio off
     * between copies. */
    if (train_left(m)) {
        c->tx = TX_COPY_GAP;
        mip_mac_rdc_wait(m, mip_rdc_par(m)->copy_gap_us);
        return;
    }
    mip_mac_finish(m, MIP_MAC_TX_OK);
}

static void ack_timeout(struct mip_mac *m)
{
    struct mip_contikimac *c = cm(m);
    mip_utime_t ack_end;
    if (!c->ack_stretched && can_sample(m) && !m->radio->cca(m->radio_ctx)) {
        /* Something is arriving: an ACK that started on time ends then. */
        ack_end = c->copy_end + m->cfg.timing.turnaround_us + airtime(m, MIP_802154_ACK_LEN);
        ack_end += mip_mac_clock_slack(m, ack_end - c->copy_end);
        if (mip_utime_before(m->now, ack_end)) {
            c->ack_stretched = true;
            mip_mac_await_ack(m, ack_end - m->now);
            return;
        }
    }
    if (train_left(m)) {
        copy(m);
        return;
    }
    if (!c->awake)
        phase_miss(m);
    else
        c->burst.on = false;
    mip_mac_noack(m);
}

static void acked(struct mip_mac *m, const struct mip_802154_hdr *h)
{
    struct mip_contikimac *c = cm(m);
    (void)h;
    mip_rdc_acked(m, &c->adapt, &c->burst, &c->dst);
    c->grid.skip = 1;
    /* A first copy ACKed without a phase to aim at says only that the
     * receiver was awake then, perhaps for another reason (its own sending,
     * a burst, a listen): nothing to learn. Aimed at its phase, it confirms
     * the phase. */
    if (!c->awake && mip_rdc_par(m)->phase_lock && (c->copies > 1u || c->known))
        phase_learn(m);
}

static bool radio_wanted(const struct mip_mac *m)
{
    const struct mip_contikimac *c = &m->rdc.cm;
    return mip_mac_radio_needed(m) || c->radio ||
           (c->rx != RX_SLEEP && c->rx != RX_GAP);
}

static const struct mip_rdc_ops ops = {
    check, init, send, sent, step, ack_timeout, acked, mip_rdc_take_none, rx, timer,
    radio_wanted, mip_rdc_nothing
};

const struct mip_rdc_ops *mip_rdc_contikimac(void)
{
    return &ops;
}

#endif
