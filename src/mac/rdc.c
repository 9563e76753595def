/* RDC parameters shared by every kind (rdc.h), and the helpers the
 * duty-cycling RDCs share (mac_rdc.h): frames of their own, bursts, the
 * adaptive interval. */
#include <string.h>

#include "mac_rdc.h"

void mip_rdc_config_default(struct mip_rdc_config *c, uint8_t kind)
{
    memset(c, 0, sizeof(*c));
    c->kind = kind;
    /* ContikiMAC: the report's 802.15.4 timing (Tr, Tc, Ti) and Contiki
     * 2.5's channel check rate and limits. */
    c->check_rate_hz = 8;
    c->cca_count = 2;
    c->cca_on_us = 192;
    c->cca_gap_us = 500;
    c->copy_gap_us = 400;
    c->listen_max_us = 12500;
    c->burst_wait_us = 31250;
    /* rdc.h: a TCPlp window of 30 frames at 7360 µs and one burst_wait_us;
     * a wait no frame ended for each of the window's six segments, a
     * window a second from each neighbour */
    c->burst_max_us = 30u * 7360u + 31250u - 50u;  /* 252000 (to the ms) */
    c->burst_budget_us = 6u * 31250u;
    c->burst_window_us = 1000000u;
    c->phase_lock = true;
    c->phase_strobe_us = 16667;
    c->phase_guard_us = 0;
    c->phase_max_misses = 16;
    /* X-MAC: Contiki 2.5 xmac.c, DEFAULT_ON_TIME 1/160 s, strobe wait 7/8
     * of it, WAIT_TIME_BEFORE_STROBE_ACK 1/1000 s. */
    c->on_us = 6250;
    c->strobe_wait_us = 6250u * 7u / 8u;
    c->strobe_ack_delay_us = 1000;
    /* LPP: Contiki 2.5 lpp.c, LISTEN_TIME 1/128 s; the first 802.15.4
     * backoff window after a probe. */
    c->listen_us = 7812;
    c->probe_backoff_us = 7u * 320u;
    c->probe_jitter_us = 7812;
    /* Sleepy leaf and parent: OpenThread's poll interval, TCPlp s.9's fast
     * one, 802.15.4-2006's macMaxFrameTotalWaitTime with macMinBE 3,
     * macMaxBE 5, macMaxCSMABackoffs 4: (8 + 16 + 31 x 2) x 20 symbols +
     * phyMaxFrameDuration 266 symbols = 1986 x 16 µs. */
    c->parent = 0xFFFFu;
    c->wait_us = 31776;
    c->poll_us = 240000000u;
    c->poll_fast_us = 100000u;
    c->child_timeout_us = 480000000u;
    c->adapt_max_us = 0;
}

uint32_t mip_rdc_period_us(const struct mip_rdc_config *c)
{
    return c->check_rate_hz != 0u ? 1000000u / c->check_rate_hz : 0u;
}

#if MIP_RDC_DUTY_CYCLING

/* --- the adaptive interval (TCPlp Appendix C) ----------------------------- */

uint32_t mip_rdc_adapt_longest(uint32_t base_us, uint32_t max_us)
{
    if (base_us == 0u || max_us <= base_us)
        return base_us;
    return max_us / base_us * base_us;
}

uint32_t mip_rdc_adapt_next(struct mip_rdc_adapt *a, uint32_t base_us, uint32_t max_us)
{
    uint32_t longest = mip_rdc_adapt_longest(base_us, max_us);
    uint32_t iv;
    if (a->heard)
        a->level = 0;
    else if (a->level < 31u && (base_us << a->level) < longest)
        a->level++;
    a->heard = false;
    /* base << level, stopping short of an overflow: clamped anyway */
    iv = a->level >= 31u || base_us > (longest >> a->level) ? longest : base_us << a->level;
    return iv < longest ? iv : longest;
}

void mip_rdc_adapt_heard(struct mip_rdc_adapt *a)
{
    a->heard = true;
    a->level = 0;
}


/* --- frames of our own ---------------------------------------------------- */

#if MIP_RDC_HAS_XMAC || MIP_RDC_HAS_LPP || MIP_RDC_HAS_LEAF
void mip_mac_own_addr(const struct mip_mac *m, struct mip_802154_addr *out)
{
    memset(out, 0, sizeof(*out));
    if (m->cfg.short_addr < 0xFFFEu) {
        out->mode = MIP_802154_ADDR_SHORT;
        out->short_addr = m->cfg.short_addr;
    } else {
        out->mode = MIP_802154_ADDR_EXT;
        memcpy(out->ext, m->cfg.ext_addr, 8);
    }
}

size_t mip_rdc_build(const struct mip_mac *m, uint8_t type, bool ack_request,
                     const struct mip_802154_addr *dst, uint8_t seq,
                     const uint8_t *payload, size_t plen, uint8_t *out)
{
    struct mip_802154_hdr h;
    size_t hl;
    memset(&h, 0, sizeof(h));
    h.type = type;
    h.ack_request = ack_request;
    h.pan_id_compress = true;
    h.version = 1;
    h.seq = seq;
    h.dst_pan = m->cfg.pan_id;
    h.src_pan = m->cfg.pan_id;
    h.dst = *dst;
    mip_mac_own_addr(m, &h.src);
    if (mip_ieee802154_emit(&h, out, MIP_RDC_CTL_MAX, &hl) != MIP_OK ||
        hl + plen > MIP_RDC_CTL_MAX)
        return 0;
    memcpy(out + hl, payload, plen);
    return hl + plen;
}
#endif

#if MIP_RDC_CTL
int mip_rdc_ctl_type(const uint8_t *frame, size_t len, size_t hdr_len,
                     const struct mip_802154_hdr *h)
{
    if (h->type != MIP_802154_DATA || h->ack_request || len != hdr_len + 2u ||
        frame[hdr_len] != 0x00u)
        return -1;
    return frame[hdr_len + 1u];
}
#endif

#if MIP_RDC_HAS_XMAC || MIP_RDC_HAS_PARENT || MIP_RDC_BURSTS
bool mip_rdc_to_us(const struct mip_mac *m, const struct mip_802154_hdr *h)
{
    if (h->dst_pan != m->cfg.pan_id && h->dst_pan != MIP_802154_PAN_NONE)
        return false;
    if (h->dst.mode == MIP_802154_ADDR_EXT)
        return memcmp(h->dst.ext, m->cfg.ext_addr, 8) == 0;
    return h->dst.mode == MIP_802154_ADDR_SHORT && h->dst.short_addr == m->cfg.short_addr;
}

#endif

#if MIP_RDC_HAS_PARENT
bool mip_mac_frame_to(const uint8_t *frame, size_t len, const struct mip_802154_addr *a)
{
    struct mip_802154_hdr h;
    size_t hl;
    return mip_ieee802154_parse_mhr(frame, len, &h, &hl) == MIP_OK && mip_mac_addr_equal(&h.dst, a);
}
#endif

/* --- bounded, earned bursts (docs/MAC.md "Denial of sleep") ---------------- */

#if MIP_RDC_BURSTS
enum mip_rdc_check mip_rdc_check_burst(const struct mip_rdc_config *p)
{
    if (p->burst_max_us == 0u || p->burst_max_us > MIP_RDC_TIME_MAX)
        return MIP_RDC_BAD_BURST_MAX;
    if (p->burst_budget_us > p->burst_window_us || p->burst_window_us == 0u ||
        p->burst_window_us > MIP_RDC_BURST_WINDOW_MAX)
        return MIP_RDC_BAD_BURST_BUDGET;
    return MIP_RDC_OK;
}

static bool window_over(const struct mip_mac *m, const struct mip_rdc_earned *e)
{
    return m->now - e->window >= mip_rdc_par(m)->burst_window_us;
}

static bool idle_entry(const struct mip_mac *m, const struct mip_rdc_earned *e)
{
    return !e->valid || (window_over(m, e) && !mip_utime_before(m->now, e->until));
}

void mip_rdc_earned_age(struct mip_mac *m, struct mip_rdc_earned *tab)
{
    unsigned i;
    for (i = 0; i < MIP_RDC_BURSTERS; i++)
        if (idle_entry(m, &tab[i]))
            tab[i].valid = 0;
}

/* src's entry, with its window current; NULL when the table is full of
 * windows still counting (their budgets protected until they end). */
static struct mip_rdc_earned *earned_get(struct mip_mac *m, struct mip_rdc_earned *tab,
                                         const struct mip_802154_addr *src)
{
    struct mip_rdc_earned *e = NULL;
    unsigned i;
    for (i = 0; i < MIP_RDC_BURSTERS && e == NULL; i++)
        if (tab[i].valid && mip_mac_addr_equal(&tab[i].src, src))
            e = &tab[i];
    for (i = 0; i < MIP_RDC_BURSTERS && e == NULL; i++)
        if (idle_entry(m, &tab[i])) {
            e = &tab[i];
            e->valid = 0;
        }
    if (e == NULL)
        return NULL;
    if (!e->valid) {
        e->src = *src;
        e->valid = 1;
        e->window = e->start = e->until = e->last = m->now;
        e->used_us = 0;
    } else if (window_over(m, e)) {
        e->window = m->now;
        e->used_us = 0;
    }
    return e;
}

/* Spends `us` of e's budget; false (nothing spent) when it has not that
 * much left. */
static bool spend(struct mip_mac *m, struct mip_rdc_earned *e, uint32_t us)
{
    uint32_t budget = mip_rdc_par(m)->burst_budget_us;
    if (us > budget - e->used_us)
        return false;
    e->used_us += us;
    return true;
}

/* A neighbour pays for the time it held us awake without sending: from
 * its last frame to this one (or to the end of the wait it was given),
 * less what a frame of a dense burst takes anyway (MIP_RDC_DENSE_US). A
 * burst of frames back to back, which is what the pending bit is for,
 * costs nothing; a pending bit every 20 ms costs 12.6 ms a frame, a wait
 * that no frame ends the whole wait less 7.36 ms. What it cannot pay
 * empties its budget. */
#define MIP_RDC_DENSE_US 7360u      /* rdc.h: one frame of a TCPlp window */

static void pay_idle(struct mip_mac *m, struct mip_rdc_earned *e)
{
    mip_utime_t to = mip_utime_before(m->now, e->until) ? m->now : e->until;
    uint32_t idle = mip_utime_before(e->last, to) ? to - e->last : 0u;
    uint32_t cost = idle > MIP_RDC_DENSE_US ? idle - MIP_RDC_DENSE_US : 0u;
    if (!spend(m, e, cost))
        e->used_us = mip_rdc_par(m)->burst_budget_us;
    e->last = m->now;
}

/* Awake wait_us from now for e (no longer than its burst may last):
 * how long from now. */
static uint32_t extend(struct mip_mac *m, struct mip_rdc_earned *e, uint32_t wait_us)
{
    mip_utime_t end = m->now + wait_us, cap = e->start + mip_rdc_par(m)->burst_max_us;
    if (mip_utime_before(cap, end))
        end = cap;
    if (mip_utime_before(e->until, end))
        e->until = end;
    return mip_utime_before(m->now, e->until) ? e->until - m->now : 0u;
}

#if MIP_RDC_HAS_XMAC
uint32_t mip_rdc_budget_take(struct mip_mac *m, struct mip_rdc_earned *tab,
                             const struct mip_802154_addr *src, uint32_t wait_us)
{
    struct mip_rdc_earned *e = earned_get(m, tab, src);
    if (e == NULL)
        return 0;
    pay_idle(m, e);
    /* a wait no frame of the neighbour's has paid for: all of it, now */
    if (!spend(m, e, wait_us))
        return 0;
    if (!mip_utime_before(m->now, e->until))
        e->start = m->now;
    e->last = m->now + wait_us;
    return extend(m, e, wait_us);
}

#endif

#if MIP_RDC_HAS_LEAF
void mip_rdc_burst_renew(struct mip_mac *m, struct mip_rdc_earned *tab,
                         const struct mip_802154_addr *src)
{
    unsigned i;
    for (i = 0; i < MIP_RDC_BURSTERS; i++)
        if (tab[i].valid && mip_mac_addr_equal(&tab[i].src, src) &&
            mip_utime_before(m->now, tab[i].until))
            tab[i].start = m->now;
}
#endif

uint32_t mip_rdc_burst_grant(struct mip_mac *m, struct mip_rdc_earned *tab,
                             const struct mip_802154_hdr *h, enum mip_rdc_rx what,
                             uint32_t wait_us)
{
    struct mip_rdc_earned *e;
    uint32_t granted = 0;
    if (!h->frame_pending)
        return 0;
    if (what == MIP_RDC_RX_OURS && mip_rdc_to_us(m, h) && mip_mac_rx_trusted(m, h) &&
        h->src.mode != MIP_802154_ADDR_NONE && (e = earned_get(m, tab, &h->src)) != NULL) {
        pay_idle(m, e);
        if (e->used_us < mip_rdc_par(m)->burst_budget_us) {
            if (!mip_utime_before(m->now, e->until)) {
                e->start = m->now;      /* a new burst */
                mip_rdc_count(m, MIP_MAC_STAT_rdc_bursts_rx);
            }
            granted = extend(m, e, wait_us);
        }
    }
    if (granted < wait_us)
        mip_rdc_count(m, MIP_MAC_STAT_rdc_burst_refused);
    return granted;
}
#endif

/* --- phases and wake-up grids (ContikiMAC, X-MAC) ------------------------- */

#if MIP_RDC_HAS_CONTIKIMAC || MIP_RDC_HAS_XMAC
void mip_rdc_cycle_now(mip_utime_t *cycle, uint32_t period, mip_utime_t now)
{
    uint32_t elapsed = now - *cycle;
    if (elapsed >= period)
        *cycle += elapsed / period * period;
}

uint32_t mip_rdc_grid_start(struct mip_mac *m, struct mip_rdc_grid *g)
{
    uint32_t first;
    g->period = mip_rdc_period_us(mip_rdc_par(m));
    g->skip = 1;
    /* Each node wakes at a phase of its own. */
    first = mip_rng_below(&m->rng, g->period);
    g->cycle = m->now + first - g->period;
    return first;
}

void mip_rdc_grid_adapt(struct mip_mac *m, struct mip_rdc_grid *g,
                        struct mip_rdc_adapt *a)
{
    mip_rdc_cycle_now(&g->cycle, g->period, m->now);
    /* The adaptive interval: wake-ups on the grid of T, skipping more of
     * its points while nothing arrives (rdc.h). */
    g->skip = mip_rdc_adapt_next(a, g->period, mip_rdc_par(m)->adapt_max_us) / g->period;
}




uint32_t mip_rdc_offset(mip_utime_t t, mip_utime_t cycle, uint32_t period)
{
    int32_t off = (int32_t)(t - cycle) % (int32_t)period;
    return (uint32_t)(off < 0 ? off + (int32_t)period : off);
}

struct mip_rdc_phase *mip_rdc_phase_find(struct mip_rdc_phase *tab,
                                         const struct mip_802154_addr *a)
{
    unsigned i;
    for (i = 0; i < MIP_RDC_PHASES; i++)
        if (tab[i].valid && mip_mac_addr_equal(&tab[i].addr, a))
            return &tab[i];
    return NULL;
}

struct mip_rdc_phase *mip_rdc_phase_get(struct mip_mac *m, struct mip_rdc_phase *tab,
                                        const struct mip_802154_addr *a)
{
    struct mip_rdc_phase *e = mip_rdc_phase_find(tab, a), *old = &tab[0];
    unsigned i;
    if (e != NULL)
        return e;
    for (i = 0; i < MIP_RDC_PHASES && e == NULL; i++) {
        if (!tab[i].valid)
            e = &tab[i];
        else if ((int32_t)(tab[i].used - old->used) < 0)
            old = &tab[i];
    }
    if (e == NULL) {
        m->stats[MIP_MAC_STAT_rdc_phase_evicted]++;
        e = old;
    }
    e->addr = *a;
    e->valid = 1;
    return e;
}
#endif

#if MIP_RDC_HAS_CONTIKIMAC || MIP_RDC_HAS_XMAC || MIP_RDC_HAS_LPP
void mip_rdc_mark_burst(struct mip_mac *m, const struct mip_rdc_burst *b,
                        const struct mip_802154_addr *dst)
{
    const struct mip_rdc_config *p = mip_rdc_par(m);
    struct mip_802154_hdr h;
    const struct mip_mac_qframe *next;
    size_t hl;
    if (m->q_count < 2u)
        return;
    /* the receiver ends a burst burst_max_us after its first frame: the
     * frame after that one goes the long way */
    if (mip_rdc_burst_open(m, b, dst) &&
        m->now - b->start + p->burst_wait_us > p->burst_max_us)
        return;
    next = &m->q[(m->q_head + 1u) % MIP_MAC_QUEUE];
    if (mip_ieee802154_parse(next->data, next->len, &h, &hl) == MIP_OK &&
        h.type == MIP_802154_DATA && h.ack_request && mip_mac_addr_equal(&h.dst, dst))
        mip_mac_head(m)->data[0] |= MIP_RDC_FRAME_PENDING;
}

bool mip_rdc_head_dst(struct mip_mac *m, struct mip_802154_addr *dst)
{
    const struct mip_mac_qframe *q = mip_mac_head(m);
    struct mip_802154_hdr h;
    size_t hl;
    if (mip_ieee802154_parse_mhr(q->data, q->len, &h, &hl) != MIP_OK) {
        mip_mac_finish(m, MIP_MAC_TX_RADIO_ERROR);  /* mip_mac_send checked it */
        return false;
    }
    *dst = h.dst;
    return true;
}

void mip_rdc_acked(struct mip_mac *m, struct mip_rdc_adapt *a,
                   struct mip_rdc_burst *b, const struct mip_802154_addr *dst)
{
    /* TCPlp's footnote to Appendix C: a node that forwards (or sends)
     * expects the reply through it: its interval back to the shortest */
    mip_rdc_adapt_heard(a);
    /* A frame sent with the pending bit keeps its receiver awake. */
    if (!mip_rdc_burst_open(m, b, dst))
        b->start = m->now;
    b->on = (mip_mac_head(m)->data[0] & MIP_RDC_FRAME_PENDING) != 0u;
    b->dst = *dst;
    b->until = m->now + mip_rdc_par(m)->burst_wait_us;
}




#endif

#endif

/* The sleepy-leaf and parent entry points of a build without them. */
#if !MIP_RDC_HAS_LEAF
void mip_mac_expect_reply(struct mip_mac *m, bool expecting, mip_utime_t now)
{
    (void)m;
    (void)expecting;
    (void)now;
}
#endif

#if !MIP_RDC_HAS_PARENT
mip_status mip_mac_add_child(struct mip_mac *m, const struct mip_802154_addr *child,
                             mip_utime_t now)
{
    (void)m;
    (void)child;
    (void)now;
    return MIP_ERR_UNSUPPORTED;
}
#endif
