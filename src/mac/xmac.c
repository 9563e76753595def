/*
 * X-MAC (include/moteip/rdc.h; Buettner, Yee, Anderson and Han, "X-MAC: a
 * short preamble MAC protocol for duty-cycled wireless sensor networks",
 * SenSys 2006) with the defaults of Contiki 2.5's xmac.c, the X-MAC of
 * Buergi's experiments (seeds/001 s.3.3.1).
 *
 * Two machines share m->rdc.xm:
 *   receiver  (xm.rx, on the RDC timer) sleep -> on for on_us every T ->
 *             sleep; a strobe for us -> strobe ACK -> wait for the data
 *             frame; a strobe for another -> sleep at once; a frame for us
 *             with the pending bit -> awake burst_wait_us;
 *   sender    (xm.tx, while the engine is in state RDC) [wait for the
 *             receiver's expected wake-up] -> listen strobe_wait_us ->
 *             strobe, radio off, listen ... -> strobe ACK -> turnaround ->
 *             the data frame (its 802.15.4 ACK, when it asks, is the
 *             engine's); broadcast: the data frame itself every
 *             strobe_wait_us, radio off between.
 */
#include "mac_rdc.h"

#if MIP_RDC_HAS_XMAC

enum { RX_SLEEP = 0, RX_ON, RX_WAIT, RX_BURST };
enum { TX_PHASE_WAIT = 0, TX_LISTEN, TX_STROBE, TX_GAP, TX_TURN, TX_DATA, TX_COPY,
       TX_COPY_GAP, TX_LAST };

#define TYPE_STROBE     0x10u
#define TYPE_STROBE_ACK 0x13u
/* A strobe between short addresses: MHR 9 + { 0x00, type }. */
#define STROBE_LEN 11u

static struct mip_xmac *xm(struct mip_mac *m)
{
    return &m->rdc.xm;
}

/* Contiki's strobe time, 4 on + off: an interval and three wake-ups, the
 * longest interval when receivers stretch theirs. */
static uint32_t strobe_time(const struct mip_mac *m)
{
    const struct mip_rdc_config *p = mip_rdc_par(m);
    return mip_rdc_adapt_longest(m->rdc.xm.grid.period, p->adapt_max_us) + 3u * p->on_us;
}

/* --- parameters ------------------------------------------------------------ */

static enum mip_rdc_check check(const struct mip_mac_config *cfg)
{
    const struct mip_rdc_config *p = &cfg->rdc;
    uint32_t period = mip_rdc_period_us(p);
    /* a secured strobe carries the aux header and MIC too (llsec) */
    uint32_t strobe = mip_rdc_airtime(&cfg->timing, STROBE_LEN + mip_mac_sec_overhead(cfg));
    if (p->check_rate_hz == 0u || p->check_rate_hz > 1000u)
        return MIP_RDC_BAD_CHECK_RATE;
    /* A strobe starting anywhere in the first strobe_wait_us of a wake-up
     * ends inside it: one of every strobe_wait_us is heard whole. */
    if (p->on_us == 0u || p->on_us >= period || (uint32_t)p->strobe_wait_us + strobe > p->on_us)
        return MIP_RDC_BAD_ON;
    if (p->strobe_ack_delay_us > 10000u)
        return MIP_RDC_BAD_STROBE_ACK_DELAY;
    /* The strobe, the receiver's delay and turnaround, and its strobe ACK
     * fit before the next strobe. */
    if ((uint32_t)p->strobe_wait_us < 2u * strobe + p->strobe_ack_delay_us + cfg->timing.turnaround_us)
        return MIP_RDC_BAD_STROBE_WAIT;
    if (p->burst_wait_us == 0u)
        return MIP_RDC_BAD_BURST_WAIT;
    if (mip_rdc_check_burst(p) != MIP_RDC_OK)
        return mip_rdc_check_burst(p);
    return mip_rdc_check_adapt(p, period);
}

/* --- the receiver ------------------------------------------------------------ */

static void cycle_now(struct mip_mac *m)
{
    mip_rdc_cycle_now(&xm(m)->grid.cycle, xm(m)->grid.period, m->now);
}

static void sleep_until_wake(struct mip_mac *m)
{
    struct mip_xmac *c = xm(m);
    c->rx = RX_SLEEP;
    mip_mac_rdc_timer(m, mip_rdc_grid_next(m, &c->grid));
}

/* The receiver listens until now + us (its wake-up, a wait, a burst). */
static void listen_for(struct mip_mac *m, uint8_t state, uint32_t us)
{
    struct mip_xmac *c = xm(m);
    c->rx = state;
    c->until = m->now + us;
    c->extended = false;
    mip_mac_rdc_timer(m, us);
}

static void init(struct mip_mac *m)
{
    struct mip_xmac *c = xm(m);
    c->rx = RX_SLEEP;
    mip_mac_rdc_timer(m, mip_rdc_grid_start(m, &c->grid));
}

static void wake(struct mip_mac *m)
{
    struct mip_xmac *c = xm(m);
    mip_rdc_grid_adapt(m, &c->grid, &c->adapt);
    mip_rdc_earned_age(m, c->earned);
    mip_rdc_count(m, MIP_MAC_STAT_rdc_checks);
    listen_for(m, RX_ON, mip_mac_rx_start(m) + mip_rdc_par(m)->on_us);
}

/* A listen ends. One that ends with the channel busy stays on for one
 * longest frame, once, so a frame under way is not cut off. */
static void listen_end(struct mip_mac *m)
{
    struct mip_xmac *c = xm(m);
    uint32_t longest = mip_rdc_airtime(&m->cfg.timing, MIP_MAC_FRAME_MAX);
    if (!c->extended && m->radio_on && m->radio_tx == MIP_MAC_RADIO_IDLE &&
        !m->radio->cca(m->radio_ctx)) {
        c->extended = true;
        c->until = m->now + longest;
        mip_mac_rdc_timer(m, longest);
        return;
    }
    if (c->rx == RX_WAIT)
        mip_rdc_count(m, MIP_MAC_STAT_rdc_fast_sleeps);    /* the data frame never came */
    sleep_until_wake(m);
}

static void timer(struct mip_mac *m)
{
    if (xm(m)->rx == RX_SLEEP)
        wake(m);
    else
        listen_end(m);
}

/* --- the sender: helpers --------------------------------------------------------- */

static bool sender_listening(const struct mip_mac *m)
{
    return m->state == MIP_MAC_ST_RDC && m->rdc.xm.tx == TX_LISTEN;
}

/* Listen-before-strobe heard something: another sender is at work. */
static void collision(struct mip_mac *m)
{
    xm(m)->radio = false;
    mip_rdc_count(m, MIP_MAC_STAT_rdc_collisions);
    mip_mac_noack(m);
}

/* A strobe for us: answer it after the time Contiki's sender leaves for
 * that, and listen until the data frame has begun: the sender sends it a
 * turnaround after our strobe ACK (got_strobe_ack), so its start is heard
 * by then, and a wait that ends on a busy channel runs one longest frame
 * longer (listen_end). Contiki listened two whole intervals; a strobe every
 * 200 ms then kept a receiver awake for good (issue 24). The wait comes out
 * of the strober's budget (mip_rdc_budget_take): a strobe beyond it is not
 * answered. */
static void strobe_for_us(struct mip_mac *m, const struct mip_802154_hdr *h)
{
    struct mip_xmac *c = xm(m);
    const struct mip_rdc_config *p = mip_rdc_par(m);
    static const uint8_t payload[2] = { 0x00u, TYPE_STROBE_ACK };
    uint8_t f[MIP_RDC_CTL_MAX];
    size_t len;
    uint32_t delay = (uint32_t)p->strobe_ack_delay_us + m->cfg.timing.turnaround_us;
    uint32_t wait;
    len = mip_rdc_build(m, MIP_802154_DATA, false, &h->src, h->seq, payload, 2, f);
    if (len == 0u)
        return;
    wait = delay + mip_rdc_airtime(&m->cfg.timing, len) + 2u * m->cfg.timing.turnaround_us +
           m->cfg.timing.cca_us;
    if (mip_rdc_budget_take(m, c->earned, &h->src, wait) < wait) {
        mip_rdc_count(m, MIP_MAC_STAT_rdc_burst_refused);
        if (c->rx == RX_ON)
            sleep_until_wake(m);
        return;
    }
    /* Our own attempt yields: its protocol tries again later. */
    if (m->state == MIP_MAC_ST_RDC)
        collision(m);
    mip_mac_ctl(m, f, len, delay);
    mip_rdc_count(m, MIP_MAC_STAT_rdc_strobe_acks);
    /* the strobe ACK as it goes on air (the MAC secures it then: link-layer
     * security's header and MIC make it longer) */
    wait += mip_rdc_airtime(&m->cfg.timing, len + mip_mac_sec_overhead(&m->cfg)) -
            mip_rdc_airtime(&m->cfg.timing, len);
    listen_for(m, RX_WAIT, wait);
}

/* The phase table: where in our own interval the receiver was found awake. */
static void phase_learn(struct mip_mac *m)
{
    struct mip_xmac *c = xm(m);
    struct mip_rdc_phase *e;
    if (!mip_rdc_par(m)->phase_lock)
        return;
    e = mip_rdc_phase_get(m, c->phase, &c->dst);
    cycle_now(m);
    e->offset = mip_rdc_offset(m->now, c->grid.cycle, c->grid.period);
    e->used = ++c->lru;
}

static void got_strobe_ack(struct mip_mac *m)
{
    struct mip_xmac *c = xm(m);
    phase_learn(m);
    c->radio = false;
    c->tx = TX_TURN;
    mip_mac_rdc_wait(m, m->cfg.timing.turnaround_us);
}

/* --- frames from the radio ---------------------------------------------------------- */

static bool take(struct mip_mac *m, const uint8_t *frame, size_t len, size_t hdr_len,
                 const struct mip_802154_hdr *h)
{
    struct mip_xmac *c = xm(m);
    int type = mip_rdc_ctl_type(frame, len, hdr_len, h);
    bool mine;
    if (type != (int)TYPE_STROBE && type != (int)TYPE_STROBE_ACK)
        return false;
    mine = mip_rdc_to_us(m, h) && mip_mac_rx_trusted(m, h);
    if (type == (int)TYPE_STROBE_ACK) {
        if (mine && sender_listening(m) && c->strobes > 0u && mip_mac_addr_equal(&h->src, &c->dst))
            got_strobe_ack(m);
        return true;            /* someone else's handshake */
    }
    if (mine) {
        strobe_for_us(m, h);
    } else if (sender_listening(m)) {
        collision(m);           /* another strobe train is under way */
    } else if (c->rx == RX_ON) {
        mip_rdc_count(m, MIP_MAC_STAT_rdc_fast_sleeps);
        sleep_until_wake(m);    /* X-MAC: the strobe names someone else */
    }
    return true;
}

static void rx(struct mip_mac *m, const struct mip_802154_hdr *h, enum mip_rdc_rx what)
{
    struct mip_xmac *c = xm(m);
    uint32_t grant;
    if (what == MIP_RDC_RX_ACK)
        return;
    if (sender_listening(m)) {
        collision(m);           /* Contiki: any frame but our strobe ACK */
        if (what == MIP_RDC_RX_OTHER)
            return;
    }
    if (what == MIP_RDC_RX_OTHER)
        return;
    if (what == MIP_RDC_RX_OURS) {
        mip_rdc_adapt_heard(&c->adapt);
        c->grid.skip = 1;
    }
    grant = mip_rdc_burst_grant(m, c->earned, h, what, mip_rdc_par(m)->burst_wait_us);
    if (grant > 0u) {
        listen_for(m, RX_BURST, grant);
        return;
    }
    if (c->rx == RX_BURST && what == MIP_RDC_RX_DUP)
        return;                 /* a repeat does not end the burst */
    /* The data frame came (its ACK keeps the radio on until sent). */
    if (c->rx != RX_SLEEP)
        sleep_until_wake(m);
}

/* --- the sender ---------------------------------------------------------------------- */

static void listen_first(struct mip_mac *m)
{
    struct mip_xmac *c = xm(m);
    c->tx = TX_LISTEN;
    c->radio = true;
    c->t0 = m->now;
    c->strobe_at = m->now;
    c->strobes = 0;
    mip_mac_rdc_wait(m, mip_mac_rx_start(m) + mip_rdc_par(m)->strobe_wait_us);
}

/* µs until the strobes should start: 2 on_us before the instant of our
 * interval at which the receiver was last found awake (Contiki's encounter
 * optimisation); 0 when that is already past. */
static uint32_t phase_wait(struct mip_mac *m, struct mip_rdc_phase *e)
{
    struct mip_xmac *c = xm(m);
    mip_utime_t t, start;
    cycle_now(m);
    t = c->grid.cycle + e->offset;
    if (mip_utime_before(t, m->now))
        t += c->grid.period;
    e->used = ++c->lru;
    start = t - 2u * mip_rdc_par(m)->on_us;
    return mip_utime_before(m->now, start) ? start - m->now : 0u;
}

static void send(struct mip_mac *m)
{
    struct mip_xmac *c = xm(m);
    struct mip_rdc_phase *e;
    uint32_t wait;
    c->radio = false;
    if (!mip_rdc_head_dst(m, &c->dst))
        return;
    if (!mip_rdc_is_broadcast(&c->dst)) {
        if (m->ack_wanted)
            mip_rdc_mark_burst(m, &c->burst, &c->dst);
        if (mip_rdc_burst_open(m, &c->burst, &c->dst)) {
            mip_rdc_count(m, MIP_MAC_STAT_rdc_bursts);
            c->tx = TX_DATA;
            mip_mac_transmit(m);
            return;
        }
        e = mip_rdc_par(m)->phase_lock ? mip_rdc_phase_find(c->phase, &c->dst) : NULL;
        if (e != NULL) {
            mip_rdc_count(m, MIP_MAC_STAT_rdc_phase_locked);
            wait = phase_wait(m, e);
            if (wait > 0u) {
                c->tx = TX_PHASE_WAIT;
                mip_mac_rdc_wait(m, wait);
                return;
            }
        }
    }
    listen_first(m);
}

/* One more strobe (unicast) or copy of the data frame (broadcast). */
static void strobe(struct mip_mac *m)
{
    struct mip_xmac *c = xm(m);
    static const uint8_t payload[2] = { 0x00u, TYPE_STROBE };
    uint8_t f[MIP_RDC_CTL_MAX];
    size_t len;
    c->strobe_at = m->now;
    if (c->strobes < UINT16_MAX)
        c->strobes++;
    if (mip_rdc_is_broadcast(&c->dst)) {
        c->radio = false;
        if (c->strobes > 1u)
            mip_rdc_count(m, MIP_MAC_STAT_rdc_copies);
        if (mip_mac_defer_if_busy(m))
            return;
        c->tx = TX_COPY;
        mip_mac_transmit(m);
        return;
    }
    len = mip_rdc_build(m, MIP_802154_DATA, false, &c->dst, mip_mac_head(m)->data[2], payload, 2, f);
    if (len == 0u) {
        mip_mac_finish(m, MIP_MAC_TX_RADIO_ERROR);
        return;
    }
    c->tx = TX_STROBE;
    mip_rdc_count(m, MIP_MAC_STAT_rdc_strobes);
    mip_mac_ctl(m, f, len, 0);
    /* ctl_sent moves on; this deadline only ends a strobe the radio never
     * got out */
    mip_mac_rdc_wait(m, mip_rdc_par(m)->strobe_wait_us);
}

/* The wait before the next strobe (or copy) ended. */
static void next_strobe(struct mip_mac *m)
{
    struct mip_xmac *c = xm(m);
    if (m->now - c->t0 < strobe_time(m)) {
        strobe(m);
        return;
    }
    c->radio = false;
    if (mip_rdc_is_broadcast(&c->dst)) {
        /* Contiki sends the frame once more after the strobe time */
        if (mip_mac_defer_if_busy(m))
            return;
        c->tx = TX_LAST;
        mip_mac_transmit(m);
        return;
    }
    mip_mac_noack(m);           /* no strobe ACK: the receiver did not wake */
}

static void ctl_sent(struct mip_mac *m)
{
    struct mip_xmac *c = xm(m);
    if (m->state != MIP_MAC_ST_RDC || c->tx != TX_STROBE)
        return;                 /* a strobe ACK of the receiver side */
    c->tx = TX_GAP;
    c->radio = false;
    mip_mac_rdc_wait(m, mip_rdc_par(m)->strobe_ack_delay_us);
}

static uint32_t to_next_strobe(const struct mip_mac *m)
{
    mip_utime_t next = m->rdc.xm.strobe_at + mip_rdc_par(m)->strobe_wait_us;
    return mip_utime_before(m->now, next) ? next - m->now : 0u;
}

static void step(struct mip_mac *m)
{
    struct mip_xmac *c = xm(m);
    switch (c->tx) {
    case TX_PHASE_WAIT:
        listen_first(m);
        break;
    case TX_GAP:
        /* back on for the strobe ACK, until the next strobe is due */
        c->tx = TX_LISTEN;
        c->radio = true;
        mip_mac_rdc_wait(m, to_next_strobe(m));
        break;
    case TX_TURN:
        if (mip_mac_defer_if_busy(m))
            break;
        c->tx = TX_DATA;
        mip_mac_transmit(m);
        break;
    default:                    /* TX_LISTEN, TX_STROBE, TX_COPY_GAP */
        next_strobe(m);
        break;
    }
}

/* A transmission of the head frame ended: a broadcast copy or the data. */
static void sent(struct mip_mac *m)
{
    struct mip_xmac *c = xm(m);
    if (c->tx == TX_COPY) {
        c->tx = TX_COPY_GAP;
        mip_mac_rdc_wait(m, to_next_strobe(m));
        return;
    }
    if (c->tx == TX_LAST) {
        mip_mac_finish(m, MIP_MAC_TX_OK);
        return;
    }
    mip_rdc_sent_plain(m);      /* the data frame: its ACK, when it asks */
}

static void ack_timeout(struct mip_mac *m)
{
    xm(m)->burst.on = false;
    mip_mac_noack(m);
}

static void acked(struct mip_mac *m, const struct mip_802154_hdr *h)
{
    struct mip_xmac *c = xm(m);
    (void)h;
    mip_rdc_acked(m, &c->adapt, &c->burst, &c->dst);
    c->grid.skip = 1;
}

static bool radio_wanted(const struct mip_mac *m)
{
    const struct mip_xmac *c = &m->rdc.xm;
    return mip_mac_radio_needed(m) || c->radio || c->rx != RX_SLEEP;
}

static const struct mip_rdc_ops ops = {
    check, init, send, sent, step, ack_timeout, acked, take, rx, timer, radio_wanted, ctl_sent
};

const struct mip_rdc_ops *mip_rdc_xmac(void)
{
    return &ops;
}

#endif
