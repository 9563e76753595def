/*
 * Low Power Probing (include/moteip/rdc.h; Musaloiu-E., Liang and Terzis,
 * "Koala: ultra-low power data retrieval in wireless sensor networks",
 * IPSN 2008) with the defaults of Contiki 2.5's lpp.c, the receiver-
 * initiated MAC of Buergi's experiments (seeds/001 s.3.3.3).
 *
 * Two machines share m->rdc.lpp:
 *   receiver  (lpp.rx, on the RDC timer) sleep -> radio on, CCA after
 *             cca_on_us -> turnaround -> probe -> listen listen_us ->
 *             sleep; a frame for us ends the listen (with the pending bit:
 *             awake burst_wait_us for the next);
 *   sender    (lpp.tx, while the engine is in state RDC) listen for the
 *             receiver's probe -> random backoff -> CCA -> turnaround -> the
 *             data frame (its 802.15.4 ACK, when it asks, is the engine's).
 *             A broadcast goes after every probe heard for T_max.
 */
#include "mac_rdc.h"

#if MIP_RDC_HAS_LPP

enum { RX_SLEEP = 0, RX_CCA, RX_TURN, RX_PROBE, RX_LISTEN, RX_BURST };
enum { TX_WAIT = 0, TX_BACKOFF, TX_CCA, TX_TURN, TX_DATA };

#define TYPE_PROBE 0x20u
/* A probe from a short address: MHR 9 + { 0x00, type }. */
#define PROBE_LEN 11u

static struct mip_lpp *lp(struct mip_mac *m)
{
    return &m->rdc.lpp;
}

static uint32_t longest(const struct mip_mac *m)
{
    return mip_rdc_adapt_longest(m->rdc.lpp.period, mip_rdc_par(m)->adapt_max_us);
}

/* --- parameters ------------------------------------------------------------ */

static enum mip_rdc_check check(const struct mip_mac_config *cfg)
{
    const struct mip_rdc_config *p = &cfg->rdc;
    uint32_t period = mip_rdc_period_us(p);
    uint32_t awake = (uint32_t)p->cca_on_us + cfg->timing.turnaround_us +
                     mip_rdc_airtime(&cfg->timing, PROBE_LEN + mip_mac_sec_overhead(cfg)) +
                     p->listen_us;
    if (p->check_rate_hz == 0u || p->check_rate_hz > 1000u || awake >= period)
        return MIP_RDC_BAD_CHECK_RATE;
    if (p->cca_on_us == 0u)
        return MIP_RDC_BAD_CCA_ON;
    if (p->probe_backoff_us > 10000u)
        return MIP_RDC_BAD_PROBE_BACKOFF;
    /* a wake-up moved earlier by half the jitter still follows the last */
    if (awake + p->probe_jitter_us / 2u >= period)
        return MIP_RDC_BAD_PROBE_JITTER;
    /* A sender's frame starts while the prober still listens. */
    if ((uint32_t)p->listen_us <= (uint32_t)p->probe_backoff_us + cfg->timing.cca_us +
                                  cfg->timing.turnaround_us)
        return MIP_RDC_BAD_LISTEN;
    if (p->burst_wait_us == 0u)
        return MIP_RDC_BAD_BURST_WAIT;
    if (mip_rdc_check_burst(p) != MIP_RDC_OK)
        return mip_rdc_check_burst(p);
    return mip_rdc_check_adapt(p, period);
}

/* --- the receiver ------------------------------------------------------------ */

static void sleep_until_wake(struct mip_mac *m)
{
    struct mip_lpp *c = lp(m);
    uint32_t j = mip_rdc_par(m)->probe_jitter_us;
    mip_utime_t next = c->wake + c->iv - c->adjust;
    c->adjust = 0;
    /* Two probers out of each other's range that wake together collide at
     * every receiver between them; real clocks drift them apart, exact
     * ones need the jitter (0..j, centred: the mean interval stays T). */
    if (j != 0u)
        next += mip_rng_below(&m->rng, j + 1u) - j / 2u;
    c->rx = RX_SLEEP;
    /* Contiki sleeps at least two listens after one */
    if (mip_utime_before(next, m->now + 2u * mip_rdc_par(m)->listen_us))
        next = m->now + 2u * mip_rdc_par(m)->listen_us;
    c->wake = next;
    mip_mac_rdc_timer(m, next - m->now);
}

static void listen_for(struct mip_mac *m, uint8_t state, uint32_t us)
{
    struct mip_lpp *c = lp(m);
    c->rx = state;
    c->until = m->now + us;
    c->extended = false;
    mip_mac_rdc_timer(m, us);
}

static void init(struct mip_mac *m)
{
    struct mip_lpp *c = lp(m);
    uint32_t first;
    c->period = mip_rdc_period_us(mip_rdc_par(m));
    c->iv = c->period;
    /* Each node probes at a phase of its own. */
    first = mip_rng_below(&m->rng, c->period);
    c->wake = m->now + first;
    c->rx = RX_SLEEP;
    mip_mac_rdc_timer(m, first);
}

static bool can_sample(const struct mip_mac *m)
{
    return m->radio_on && m->radio_tx == MIP_MAC_RADIO_IDLE;
}

static void wake(struct mip_mac *m)
{
    struct mip_lpp *c = lp(m);
    c->wake = m->now;
    mip_rdc_earned_age(m, c->earned);
    c->iv = mip_rdc_adapt_next(&c->adapt, c->period, mip_rdc_par(m)->adapt_max_us);
    mip_rdc_count(m, MIP_MAC_STAT_rdc_checks);
    c->rx = RX_CCA;
    mip_mac_rdc_timer(m, mip_mac_rx_start(m) + mip_rdc_par(m)->cca_on_us);
}

/* No probe this round (the channel was busy): listen anyway, and wake up
 * a share of half the off time, drawn from the instance's generator,
 * earlier next round (Contiki's off_time_adjustment), so two probers that
 * collided fall apart. */
static void skip_probe(struct mip_mac *m)
{
    struct mip_lpp *c = lp(m);
    c->adjust = mip_rng_below(&m->rng, (c->period - mip_rdc_par(m)->listen_us) / 2u);
    listen_for(m, RX_LISTEN, mip_rdc_par(m)->listen_us);
}

static void probe(struct mip_mac *m)
{
    struct mip_lpp *c = lp(m);
    static const uint8_t payload[2] = { 0x00u, TYPE_PROBE };
    static const struct mip_802154_addr bcast = { MIP_802154_ADDR_SHORT, MIP_802154_BROADCAST,
                                                  { 0 } };
    uint8_t f[MIP_RDC_CTL_MAX];
    size_t len;
    if (m->radio_tx != MIP_MAC_RADIO_IDLE) {
        skip_probe(m);
        return;
    }
    len = mip_rdc_build(m, MIP_802154_DATA, false, &bcast, m->next_seq++, payload, 2, f);
    mip_mac_ctl(m, f, len, 0);
    mip_rdc_count(m, MIP_MAC_STAT_rdc_probes);
    c->rx = RX_PROBE;
    /* ctl_sent starts the listen; this only ends a probe never sent */
    mip_mac_rdc_timer(m, mip_rdc_airtime(&m->cfg.timing, MIP_RDC_CTL_MAX +
                                         mip_mac_sec_overhead(&m->cfg)) +
                             mip_rdc_par(m)->listen_us);
}

/* A listen ends; one that ends with the channel busy stays on for one
 * longest frame, once. */
static void listen_end(struct mip_mac *m)
{
    struct mip_lpp *c = lp(m);
    uint32_t frame = mip_rdc_airtime(&m->cfg.timing, MIP_MAC_FRAME_MAX);
    if (!c->extended && can_sample(m) && !m->radio->cca(m->radio_ctx)) {
        c->extended = true;
        c->until = m->now + frame;
        mip_mac_rdc_timer(m, frame);
        return;
    }
    sleep_until_wake(m);
}

static void timer(struct mip_mac *m)
{
    struct mip_lpp *c = lp(m);
    switch (c->rx) {
    case RX_SLEEP:
        wake(m);
        break;
    case RX_CCA:
        if (can_sample(m) && m->radio->cca(m->radio_ctx)) {
            c->rx = RX_TURN;
            mip_mac_rdc_timer(m, m->cfg.timing.turnaround_us);
        } else {
            skip_probe(m);
        }
        break;
    case RX_TURN:
        probe(m);
        break;
    case RX_PROBE:
        listen_for(m, RX_LISTEN, mip_rdc_par(m)->listen_us);
        break;
    default:                    /* RX_LISTEN, RX_BURST */
        listen_end(m);
        break;
    }
}

static void ctl_sent(struct mip_mac *m)
{
    if (lp(m)->rx == RX_PROBE)
        listen_for(m, RX_LISTEN, mip_rdc_par(m)->listen_us);
}

static void rx(struct mip_mac *m, const struct mip_802154_hdr *h, enum mip_rdc_rx what)
{
    struct mip_lpp *c = lp(m);
    uint32_t grant;
    if (what != MIP_RDC_RX_OURS && what != MIP_RDC_RX_DUP)
        return;
    if (what == MIP_RDC_RX_OURS) {
        mip_rdc_adapt_heard(&c->adapt);
        c->iv = c->period;
    }
    grant = mip_rdc_burst_grant(m, c->earned, h, what, mip_rdc_par(m)->burst_wait_us);
    if (grant > 0u) {
        listen_for(m, RX_BURST, grant);
        return;
    }
    if (c->rx == RX_BURST && what == MIP_RDC_RX_DUP)
        return;                 /* a repeat does not end the burst */
    /* Contiki turns the radio off once the frame is in (its ACK still goes
     * out: the engine wants the radio for it). */
    if (c->rx == RX_LISTEN || c->rx == RX_BURST)
        sleep_until_wake(m);
}

/* --- the sender ---------------------------------------------------------------- */

/* Contiki's UNICAST_TIMEOUT (1.5 intervals) and PACKET_LIFETIME (one). */
static uint32_t wait_limit(const struct mip_mac *m)
{
    return m->rdc.lpp.bcast ? longest(m) : longest(m) + longest(m) / 2u;
}

static void wait_probe(struct mip_mac *m)
{
    struct mip_lpp *c = lp(m);
    mip_utime_t end = c->t0 + wait_limit(m);
    c->tx = TX_WAIT;
    c->radio = true;
    mip_mac_rdc_wait(m, mip_utime_before(m->now, end) ? end - m->now : 0u);
}

static bool take(struct mip_mac *m, const uint8_t *frame, size_t len, size_t hdr_len,
                 const struct mip_802154_hdr *h)
{
    struct mip_lpp *c = lp(m);
    if (mip_rdc_ctl_type(frame, len, hdr_len, h) != (int)TYPE_PROBE)
        return false;
    if (m->state == MIP_MAC_ST_RDC && c->tx == TX_WAIT &&
        (c->bcast || mip_mac_addr_equal(&h->src, &c->dst))) {
        /* The receiver listens now: after a random backoff, our frame. */
        c->tx = TX_BACKOFF;
        mip_mac_rdc_wait(m, mip_rng_below(&m->rng, (uint32_t)mip_rdc_par(m)->probe_backoff_us + 1u));
    }
    return true;
}

static void send(struct mip_mac *m)
{
    struct mip_lpp *c = lp(m);
    c->radio = false;
    if (!mip_rdc_head_dst(m, &c->dst))
        return;
    c->bcast = mip_rdc_is_broadcast(&c->dst);
    c->copies = 0;
    if (!c->bcast && m->ack_wanted) {
        mip_rdc_mark_burst(m, &c->burst, &c->dst);
        if (mip_rdc_burst_open(m, &c->burst, &c->dst)) {
            mip_rdc_count(m, MIP_MAC_STAT_rdc_bursts);
            c->tx = TX_DATA;
            mip_mac_transmit(m);
            return;
        }
    }
    c->t0 = m->now;
    wait_probe(m);
}

static void step(struct mip_mac *m)
{
    struct mip_lpp *c = lp(m);
    switch (c->tx) {
    case TX_WAIT:
        /* no probe (from the receiver, for a unicast) in time */
        c->radio = false;
        if (c->bcast && c->copies > 0u) {
            mip_mac_finish(m, MIP_MAC_TX_OK);
            return;
        }
        mip_rdc_count(m, MIP_MAC_STAT_rdc_probe_timeouts);
        mip_mac_noack(m);
        break;
    case TX_BACKOFF:
        c->tx = TX_CCA;
        mip_mac_rdc_wait(m, mip_mac_rx_start(m) + m->cfg.timing.cca_us);
        break;
    case TX_CCA:
        if (!can_sample(m) || !m->radio->cca(m->radio_ctx)) {
            mip_rdc_count(m, MIP_MAC_STAT_rdc_collisions);
            wait_probe(m);      /* someone else answered the probe */
            break;
        }
        c->tx = TX_TURN;
        mip_mac_rdc_wait(m, m->cfg.timing.turnaround_us);
        break;
    default:                    /* TX_TURN */
        if (mip_mac_defer_if_busy(m))
            break;
        c->tx = TX_DATA;
        c->radio = false;       /* the transmission holds the radio now */
        mip_mac_transmit(m);
        break;
    }
}

static void sent(struct mip_mac *m)
{
    struct mip_lpp *c = lp(m);
    if (c->bcast) {
        /* a broadcast answers every probe for a whole interval */
        if (c->copies > 0u)
            mip_rdc_count(m, MIP_MAC_STAT_rdc_copies);
        if (c->copies < UINT16_MAX)
            c->copies++;
        wait_probe(m);
        return;
    }
    c->radio = false;
    mip_rdc_sent_plain(m);
}

static void ack_timeout(struct mip_mac *m)
{
    lp(m)->burst.on = false;
    mip_mac_noack(m);
}

static void acked(struct mip_mac *m, const struct mip_802154_hdr *h)
{
    struct mip_lpp *c = lp(m);
    (void)h;
    mip_rdc_acked(m, &c->adapt, &c->burst, &c->dst);
    c->iv = c->period;
}

static bool radio_wanted(const struct mip_mac *m)
{
    const struct mip_lpp *c = &m->rdc.lpp;
    /* The sender's listen belongs to a frame under way: a frame that ended
     * on another path (a radio that refused the transmission, a frame
     * llsec could not secure) leaves `radio` set, and an idle MAC must not
     * keep its receiver on for it. */
    return mip_mac_radio_needed(m) || (c->radio && m->state != MIP_MAC_ST_IDLE) ||
           c->rx != RX_SLEEP;
}

static const struct mip_rdc_ops ops = {
    check, init, send, sent, step, ack_timeout, acked, take, rx, timer, radio_wanted, ctl_sent
};

const struct mip_rdc_ops *mip_rdc_lpp(void)
{
    return &ops;
}

#endif
