/*
 * Sleepy leaf (include/moteip/rdc.h): IEEE 802.15.4 indirect transmission
 * seen from the child, as Thread's sleepy end devices run it (OpenThread's
 * defaults; TCPlp s.9 and Appendix C).
 *
 * The radio is off but for what the engine needs to send (CCA, frame, ACK
 * wait). Every poll interval the leaf puts a data request (MAC command
 * 0x04, ACK requested) to its parent at the front of its queue; it goes
 * through the protocol's channel access and retries like any frame. An ACK
 * with the frame pending bit keeps the radio on wait_us for the parent's
 * frame, and a frame with the pending bit for the next. The interval is
 * poll_us, or poll_fast_us while the owner expects a reply
 * (mip_mac_expect_reply), or the adaptive one (adapt_max_us).
 */
#include "mac_rdc.h"

#if MIP_RDC_HAS_LEAF

#define CMD_DATA_REQUEST 0x04u

static struct mip_leaf *lf(struct mip_mac *m)
{
    return &m->rdc.leaf;
}

static enum mip_rdc_check check(const struct mip_mac_config *cfg)
{
    const struct mip_rdc_config *p = &cfg->rdc;
    /* the pending bit comes in the ACK of a data request: a protocol that
     * waits for ACKs */
    if (cfg->kind != MIP_MAC_CSMA_CA)
        return MIP_RDC_BAD_PROTOCOL;
    if (p->parent >= 0xFFFEu)
        return MIP_RDC_BAD_PARENT;
    if (p->poll_us < 1000u || p->poll_us > MIP_RDC_TIME_MAX)
        return MIP_RDC_BAD_POLL;
    /* (one longer than poll_us never makes a difference: no error) */
    if (p->poll_fast_us != 0u && (p->poll_fast_us < 1000u || p->poll_fast_us > MIP_RDC_TIME_MAX))
        return MIP_RDC_BAD_POLL_FAST;
    if (p->wait_us == 0u)
        return MIP_RDC_BAD_WAIT;
    if (mip_rdc_check_burst(p) != MIP_RDC_OK)
        return mip_rdc_check_burst(p);
    return mip_rdc_check_adapt(p, p->poll_us);
}

/* The RDC timer at the next poll, or at the end of the current wait: while
 * the leaf listens for a frame its parent announced, a data request would
 * only take the channel from that frame (the poll due meanwhile goes out
 * when the wait ends). */
static void arm(struct mip_mac *m)
{
    struct mip_leaf *c = lf(m);
    mip_utime_t at = c->waiting ? c->until : c->poll_due;
    mip_mac_rdc_timer(m, mip_utime_before(m->now, at) ? at - m->now : 0u);
}

static void init(struct mip_mac *m)
{
    struct mip_leaf *c = lf(m);
    /* A node that boots at a random moment of its interval. */
    c->poll_due = m->now + mip_rng_below(&m->rng, mip_rdc_par(m)->poll_us);
    arm(m);
}

static bool data_request_queued(const struct mip_mac *m)
{
    unsigned k;
    for (k = 0; k < m->q_count; k++)
        if ((m->q[(m->q_head + k) % MIP_MAC_QUEUE].data[0] & 0x07u) == (uint8_t)MIP_802154_CMD)
            return true;
    return false;
}

/* The next interval: adaptive or fixed, the fast one while a reply is due. */
static uint32_t interval(struct mip_mac *m)
{
    const struct mip_rdc_config *p = mip_rdc_par(m);
    uint32_t iv = mip_rdc_adapt_next(&lf(m)->adapt, p->poll_us, p->adapt_max_us);
    if (lf(m)->expecting && p->poll_fast_us != 0u && p->poll_fast_us < iv)
        iv = p->poll_fast_us;
    return iv;
}

static void poll(struct mip_mac *m)
{
    static const uint8_t payload[1] = { CMD_DATA_REQUEST };
    struct mip_802154_addr parent;
    uint8_t f[MIP_RDC_CTL_MAX];
    size_t len;
    lf(m)->poll_due = m->now + interval(m);
    if (data_request_queued(m))
        return;                 /* the last one is still on its way */
    parent.mode = MIP_802154_ADDR_SHORT;
    parent.short_addr = mip_rdc_par(m)->parent;
    len = mip_rdc_build(m, MIP_802154_CMD, true, &parent, m->next_seq, payload, 1, f);
    if (len == 0u || mip_mac_push_front(m, f, len) != MIP_OK) {
        m->stats[MIP_MAC_STAT_rdc_polls_skipped]++;     /* the queue is full */
        return;
    }
    m->next_seq++;
    m->stats[MIP_MAC_STAT_rdc_polls]++;
}

static void timer(struct mip_mac *m)
{
    struct mip_leaf *c = lf(m);
    mip_rdc_earned_age(m, c->earned);
    if (c->waiting && !mip_utime_before(m->now, c->until)) {
        c->waiting = false;
        if (!c->got)
            m->stats[MIP_MAC_STAT_rdc_poll_timeouts]++;
    }
    if (!c->waiting && !mip_utime_before(m->now, c->poll_due))
        poll(m);
    arm(m);
}

static void wait_for_frame(struct mip_mac *m)
{
    struct mip_leaf *c = lf(m);
    c->waiting = true;
    c->until = m->now + mip_rdc_par(m)->wait_us;
    arm(m);
}

/* The ACK of our data request says whether the parent holds a frame. Any
 * ACK of ours (it comes from the parent: a leaf sends only to it) renews
 * the parent's burst: the exchange goes both ways, as TCP's does, which
 * an impostor's frames cannot make happen. */
static void acked(struct mip_mac *m, const struct mip_802154_hdr *h)
{
    struct mip_802154_addr parent;
    parent.mode = MIP_802154_ADDR_SHORT;
    parent.short_addr = mip_rdc_par(m)->parent;
    if (h != NULL)
        mip_rdc_burst_renew(m, lf(m)->earned, &parent);
    if ((mip_mac_head(m)->data[0] & 0x07u) != (uint8_t)MIP_802154_CMD || h == NULL ||
        !h->frame_pending)
        return;
    m->stats[MIP_MAC_STAT_rdc_polls_pending]++;
    lf(m)->got = false;
    wait_for_frame(m);
}

/* The frame comes from our parent (the only node a leaf listens on for). */
static bool from_parent(const struct mip_mac *m, const struct mip_802154_hdr *h)
{
    return h->src.mode == MIP_802154_ADDR_SHORT && h->src.short_addr == mip_rdc_par(m)->parent;
}

static void rx(struct mip_mac *m, const struct mip_802154_hdr *h, enum mip_rdc_rx what)
{
    struct mip_leaf *c = lf(m);
    uint32_t grant = 0;
    if (what != MIP_RDC_RX_OURS && what != MIP_RDC_RX_DUP)
        return;
    if (what == MIP_RDC_RX_OURS) {
        mip_rdc_adapt_heard(&c->adapt);
        c->got = true;
        /* Appendix C: a frame brings the interval to the shortest at once */
        if (mip_rdc_par(m)->adapt_max_us != 0u &&
            mip_utime_before(m->now + mip_rdc_par(m)->poll_us, c->poll_due))
            c->poll_due = m->now + mip_rdc_par(m)->poll_us;
    }
    /* Only the parent's frames announce more, and only within its budget
     * (docs/MAC.md "Denial of sleep"); a repeat or another node's frame
     * neither extends nor ends the wait. */
    if (!from_parent(m, h)) {
        if (h->frame_pending)
            mip_rdc_count(m, MIP_MAC_STAT_rdc_burst_refused);
        return;
    }
    grant = mip_rdc_burst_grant(m, c->earned, h, what, mip_rdc_par(m)->wait_us);
    /* A burst cut short (its length, its budget) while the parent holds
     * more: ask for the rest with a data request as soon as this wait
     * ends; the parent answers it, an impostor's pending bits cannot. */
    if (h->frame_pending && what == MIP_RDC_RX_OURS && grant < mip_rdc_par(m)->wait_us)
        c->poll_due = m->now;
    if (grant > 0u) {
        c->waiting = true;      /* more are coming */
        c->until = m->now + grant;
        arm(m);
        return;
    }
    if (what == MIP_RDC_RX_DUP)
        return;
    c->waiting = false;         /* its ACK still goes out: the engine wants it */
    arm(m);
}

static bool radio_wanted(const struct mip_mac *m)
{
    return mip_mac_radio_needed(m) || m->rdc.leaf.waiting;
}

void mip_mac_expect_reply(struct mip_mac *m, bool expecting, mip_utime_t now)
{
    struct mip_leaf *c;
    uint32_t fast;
    if (m == NULL || m->cfg.rdc.kind != MIP_RDC_LEAF)
        return;
    c = lf(m);
    c->expecting = expecting;
    fast = mip_rdc_par(m)->poll_fast_us;
    if (!expecting || fast == 0u)
        return;
    m->now = now;
    if (mip_utime_before(now + fast, c->poll_due)) {
        c->poll_due = now + fast;
        arm(m);
    }
}

static const struct mip_rdc_ops ops = {
    check, init, mip_mac_transmit, mip_rdc_sent_plain, mip_rdc_nothing, mip_mac_noack, acked,
    mip_rdc_take_none, rx, timer, radio_wanted, mip_rdc_nothing
};

const struct mip_rdc_ops *mip_rdc_leaf(void)
{
    return &ops;
}

#endif
