/*
 * The parent of sleepy leaves (include/moteip/rdc.h): IEEE 802.15.4
 * indirect transmission seen from the always-on side, as a Thread router
 * serves its sleepy end devices.
 *
 * The radio is always on. A unicast to a child that is not listening just
 * now is held (copied out of the queue) until the child's data request;
 * the ACK of that request carries the frame pending bit, and the child's
 * oldest held frame goes to the front of the queue (with the pending bit
 * set when more wait), through the protocol's channel access and retries.
 * Bounded: MIP_RDC_CHILDREN children, MIP_RDC_INDIRECT held frames; a child
 * silent for child_timeout_us and a frame held that long are dropped; a
 * frame sent back after failed attempts more than max_retries times is
 * dropped. Every drop is reported MIP_MAC_TX_NOACK and counted.
 *
 * Each child has a share of the held frames (MIP_RDC_INDIRECT / children
 * known, at least 1). A full table takes a frame from the child most over
 * its share, else from the new frame's own child; never from a child being
 * served (its frames go out now), and never from a child within its share
 * for another's frame: one child's downlink cannot starve another's.
 *
 * A child heard polling twice (or added by the owner) is settled: a data
 * request from a node not yet a child never evicts it, so data requests
 * forged from invented addresses cannot push real children out. Without
 * link-layer security a forger repeating each address can still fill the
 * free entries; with it, take() is where only authenticated requests may
 * add or refresh a child.
 */
#include <string.h>

#include "mac_rdc.h"

#if MIP_RDC_HAS_PARENT

#define CMD_DATA_REQUEST 0x04u
#define NO_CHILD 0xFFu

static struct mip_parent *pa(struct mip_mac *m)
{
    return &m->rdc.parent;
}

static enum mip_rdc_check check(const struct mip_mac_config *cfg)
{
    const struct mip_rdc_config *p = &cfg->rdc;
    if (p->child_timeout_us < 1000u || p->child_timeout_us > MIP_RDC_TIME_MAX)
        return MIP_RDC_BAD_CHILD_TIMEOUT;
    if (p->wait_us == 0u)
        return MIP_RDC_BAD_WAIT;
    /* always on: no interval to stretch */
    return p->adapt_max_us != 0u ? MIP_RDC_BAD_ADAPT_MAX : MIP_RDC_OK;
}

/* --- children and held frames ----------------------------------------------- */

static unsigned child_find(struct mip_mac *m, const struct mip_802154_addr *a)
{
    unsigned i;
    for (i = 0; i < MIP_RDC_CHILDREN; i++)
        if (pa(m)->child[i].valid && mip_mac_addr_equal(&pa(m)->child[i].addr, a))
            return i;
    return NO_CHILD;
}

static bool awake(const struct mip_mac *m, unsigned i)
{
    return mip_utime_before(m->now, m->rdc.parent.child[i].awake_until);
}

/* Child i was heard from now. awake_until is kept no earlier than seen, and
 * seen no older than child_timeout_us (<= MIP_RDC_TIME_MAX, under half the
 * µs wrap): a passed stamp moves up with seen, so it never ages into the
 * half of the clock that reads as the future (issue 24). */
static void heard(struct mip_mac *m, unsigned i)
{
    struct mip_rdc_child *ch = &pa(m)->child[i];
    if (!awake(m, i))
        ch->awake_until = m->now;
    ch->seen = m->now;
}

/* The oldest frame held for child i (NULL: none); *n counts them. */
static struct mip_rdc_held *oldest_for(struct mip_mac *m, unsigned i, unsigned *n)
{
    struct mip_rdc_held *best = NULL, *s;
    unsigned k;
    *n = 0;
    for (k = 0; k < MIP_RDC_INDIRECT; k++) {
        s = &pa(m)->held[k];
        if (!s->used || s->child != i)
            continue;
        (*n)++;
        if (best == NULL || (int32_t)(s->order - best->order) < 0)
            best = s;
    }
    return best;
}

/* A frame for child i is in the queue from position `from` on (released, or
 * new while it listened). */
static bool queued_for(struct mip_mac *m, unsigned i, unsigned from)
{
    unsigned k;
    for (k = from; k < m->q_count; k++) {
        const struct mip_mac_qframe *q = &m->q[(m->q_head + k) % MIP_MAC_QUEUE];
        if (mip_mac_frame_to(q->data, q->len, &pa(m)->child[i].addr))
            return true;
    }
    return false;
}

static void drop_held(struct mip_mac *m, struct mip_rdc_held *s, enum mip_mac_stat why)
{
    s->used = 0;
    mip_rdc_count(m, why);
    mip_mac_report(m, s->data, s->len, MIP_MAC_TX_NOACK, s->returns);
}

/* Child i is forgotten, with every frame held for it. */
static void forget(struct mip_mac *m, unsigned i, enum mip_mac_stat why)
{
    unsigned k;
    pa(m)->child[i].valid = 0;
    mip_rdc_count(m, MIP_MAC_STAT_rdc_child_evicted);
    for (k = 0; k < MIP_RDC_INDIRECT; k++)
        if (pa(m)->held[k].used && pa(m)->held[k].child == i)
            drop_held(m, &pa(m)->held[k], why);
}

/* Nothing held for child k, none of its frames in the queue, not served. */
static bool idle(struct mip_mac *m, unsigned k)
{
    unsigned n;
    return oldest_for(m, k, &n) == NULL && !awake(m, k) && !queued_for(m, k, 0);
}

/* The entry of child `a`: its own, a free one, or else the one heard from
 * least recently, an idle one before any other (its frames dropped). A
 * node learned from the air (owner false) takes only an entry that is not
 * settled; NO_CHILD when every one is. */
static unsigned child_get(struct mip_mac *m, const struct mip_802154_addr *a, bool owner)
{
    struct mip_parent *c = pa(m);
    unsigned i = child_find(m, a), k, pick = NO_CHILD;
    bool pick_idle = false, k_idle;
    if (i != NO_CHILD)
        return i;
    for (k = 0; k < MIP_RDC_CHILDREN && pick == NO_CHILD; k++)
        if (!c->child[k].valid)
            pick = k;
    if (pick == NO_CHILD) {
        for (k = 0; k < MIP_RDC_CHILDREN; k++) {
            if (!owner && c->child[k].settled)
                continue;
            k_idle = idle(m, k);
            if (pick == NO_CHILD || (k_idle && !pick_idle) ||
                (k_idle == pick_idle && (int32_t)(c->child[k].seen - c->child[pick].seen) < 0)) {
                pick = k;
                pick_idle = k_idle;
            }
        }
        if (pick == NO_CHILD)
            return NO_CHILD;
        forget(m, pick, MIP_MAC_STAT_rdc_ind_evicted);
    }
    memset(&c->child[pick], 0, sizeof(c->child[pick]));
    c->child[pick].addr = *a;
    c->child[pick].valid = 1;
    c->child[pick].settled = owner ? 1u : 0u;
    c->child[pick].seen = m->now;
    c->child[pick].awake_until = m->now;
    return pick;
}

/* The RDC timer at the first child or held frame to time out. */
static void arm(struct mip_mac *m)
{
    struct mip_parent *c = pa(m);
    uint32_t t = mip_rdc_par(m)->child_timeout_us, d = UINT32_MAX, left;
    unsigned k;
    for (k = 0; k < MIP_RDC_CHILDREN; k++) {
        if (!c->child[k].valid)
            continue;
        left = m->now - c->child[k].seen < t ? t - (m->now - c->child[k].seen) : 0u;
        d = left < d ? left : d;
    }
    for (k = 0; k < MIP_RDC_INDIRECT; k++) {
        if (!c->held[k].used)
            continue;
        left = m->now - c->held[k].since < t ? t - (m->now - c->held[k].since) : 0u;
        d = left < d ? left : d;
    }
    if (d == UINT32_MAX)
        m->rdc_armed = false;
    else
        mip_mac_rdc_timer(m, d);
}

static void timer(struct mip_mac *m)
{
    struct mip_parent *c = pa(m);
    uint32_t t = mip_rdc_par(m)->child_timeout_us;
    unsigned k;
    for (k = 0; k < MIP_RDC_CHILDREN; k++)
        if (c->child[k].valid && m->now - c->child[k].seen >= t)
            forget(m, k, MIP_MAC_STAT_rdc_ind_expired);
    for (k = 0; k < MIP_RDC_INDIRECT; k++)
        if (c->held[k].used && m->now - c->held[k].since >= t)
            drop_held(m, &c->held[k], MIP_MAC_STAT_rdc_ind_expired);
    arm(m);
}

/* Child i listens: its oldest held frame to the front of the queue, with
 * the pending bit when more wait. */
static void release(struct mip_mac *m, unsigned i)
{
    struct mip_rdc_child *ch = &pa(m)->child[i];
    struct mip_rdc_held *s;
    uint8_t f[MIP_MAC_FRAME_MAX];
    unsigned n;
    s = oldest_for(m, i, &n);
    if (s == NULL)
        return;
    memcpy(f, s->data, s->len);
    /* (a head in progress is the frame before this one, not one after) */
    if (n > 1u || queued_for(m, i, m->state == MIP_MAC_ST_IDLE ? 0u : 1u))
        f[0] |= MIP_RDC_FRAME_PENDING;
    if (mip_mac_push_front(m, f, s->len) != MIP_OK)
        return;                 /* the queue is full: it waits for the next poll */
    ch->out = 1;
    ch->out_seq = s->data[2];
    ch->out_returns = s->returns;
    s->used = 0;
    arm(m);
}

/* Each child's share of the held frames: the table over the children
 * known, at least one frame. */
static unsigned share(struct mip_mac *m)
{
    unsigned k, n = 0;
    for (k = 0; k < MIP_RDC_CHILDREN; k++)
        n += pa(m)->child[k].valid;
    if (n <= 1u)
        return MIP_RDC_INDIRECT;
    return MIP_RDC_INDIRECT / n > 0u ? MIP_RDC_INDIRECT / n : 1u;
}

/* The held frame a full table gives up for a new frame of child i: the
 * oldest of the child most over its share, else child i's own oldest;
 * never one of a child being served (NULL: none may go). */
static struct mip_rdc_held *victim(struct mip_mac *m, unsigned i)
{
    struct mip_rdc_held *best = NULL, *s;
    unsigned k, n, most = share(m);
    for (k = 0; k < MIP_RDC_CHILDREN; k++) {
        if (k == i || !pa(m)->child[k].valid || awake(m, k))
            continue;
        s = oldest_for(m, k, &n);
        if (s != NULL && n > most) {
            most = n;
            best = s;
        }
    }
    if (best == NULL && !awake(m, i))
        best = oldest_for(m, i, &n);
    return best;
}

/* A frame for child i, at the head of the queue, while it sleeps: copied
 * into the table and out of the queue. */
static void hold(struct mip_mac *m, unsigned i)
{
    struct mip_parent *c = pa(m);
    struct mip_mac_qframe *q = mip_mac_head(m);
    struct mip_rdc_child *ch = &c->child[i];
    struct mip_rdc_held *s = NULL, *old = NULL;
    uint8_t returns = 0;
    unsigned k;
    if (ch->out && ch->out_seq == q->data[2]) {
        /* it came back after a failed attempt */
        ch->out = 0;
        returns = (uint8_t)(ch->out_returns + 1u);
        if (returns > m->cfg.max_retries) {
            mip_rdc_count(m, MIP_MAC_STAT_rdc_ind_evicted);
            mip_mac_finish(m, MIP_MAC_TX_NOACK);
            return;
        }
    }
    for (k = 0; k < MIP_RDC_INDIRECT && s == NULL; k++)
        if (!c->held[k].used)
            s = &c->held[k];
    if (s == NULL)
        old = victim(m, i);
    if (s == NULL && old == NULL) {
        /* the others' frames are within their shares or being served, and
         * so are child i's: this one cannot wait */
        mip_rdc_count(m, MIP_MAC_STAT_rdc_ind_evicted);
        mip_mac_finish(m, MIP_MAC_TX_NOACK);
        return;
    }
    if (s == NULL) {
        drop_held(m, old, MIP_MAC_STAT_rdc_ind_evicted);
        s = old;
    }
    mip_mac_head_plain(m);
    s->used = 1;
    s->child = (uint8_t)i;
    s->returns = returns;
    s->len = q->len;
    s->since = m->now;
    s->order = ++c->order;
    memcpy(s->data, q->data, q->len);
    s->data[0] &= (uint8_t)~MIP_RDC_FRAME_PENDING;
    mip_rdc_count(m, MIP_MAC_STAT_rdc_ind_held);
    mip_mac_handoff(m);
    arm(m);
}

/* --- the RDC's rows ----------------------------------------------------------- */

/* A frame to a listening child goes out at once unless older ones of it are
 * held (they go first: 6LoWPAN fragments must arrive in order), or it is the
 * held frame already released. Its pending bit tells the child whether to
 * listen on for more; one without it sends the child back to sleep (the
 * leaf's rx), so the child counts as asleep after its ACK (acked). */
static void send(struct mip_mac *m)
{
    struct mip_mac_qframe *q = mip_mac_head(m);
    struct mip_rdc_child *ch;
    struct mip_802154_hdr h;
    size_t hl;
    unsigned i = NO_CHILD, n = 0;
    if (mip_ieee802154_parse_mhr(q->data, q->len, &h, &hl) == MIP_OK)
        i = child_find(m, &h.dst);
    if (i == NO_CHILD) {
        mip_mac_transmit(m);
        return;
    }
    ch = &pa(m)->child[i];
    if (awake(m, i) && (oldest_for(m, i, &n) == NULL || (ch->out && ch->out_seq == q->data[2]))) {
        if (n > 0u || queued_for(m, i, 1))
            q->data[0] |= MIP_RDC_FRAME_PENDING;
        mip_mac_transmit(m);
        return;
    }
    hold(m, i);
    if (awake(m, i) && !queued_for(m, i, 0))
        release(m, i);
}

/* A data request from a child (or a node that becomes one). */
static bool take(struct mip_mac *m, const uint8_t *frame, size_t len, size_t hdr_len,
                 const struct mip_802154_hdr *h)
{
    struct mip_rdc_child *ch;
    unsigned i, n;
    bool pending, known;
    uint32_t ack_end;
    if (h->type != MIP_802154_CMD || len != hdr_len + 1u || frame[hdr_len] != CMD_DATA_REQUEST)
        return false;
    if (!mip_rdc_to_us(m, h) || h->src.mode == MIP_802154_ADDR_NONE)
        return true;            /* another node's child */
    if (!mip_mac_rx_trusted(m, h))
        return true;            /* no child is learned, or served, from it */
    mip_rdc_count(m, MIP_MAC_STAT_rdc_polls);
    /* The one place a child is learned from the air: link-layer security's
     * mip_mac_rx_trusted() gates it here once it exists (an unauthenticated
     * request then neither adds a child nor refreshes one). */
    known = child_find(m, &h->src) != NO_CHILD;
    i = child_get(m, &h->src, false);
    if (i == NO_CHILD) {
        /* every entry a settled child: no frames will be held for it */
        mip_rdc_count(m, MIP_MAC_STAT_rdc_child_refused);
        if (h->ack_request)
            mip_mac_ack(m, h->seq, false);
        return true;
    }
    ch = &pa(m)->child[i];
    if (known)
        ch->settled = 1;        /* its second request: a child, not a passer-by */
    heard(m, i);
    pending = oldest_for(m, i, &n) != NULL || queued_for(m, i, 0);
    if (h->ack_request)
        mip_mac_ack(m, h->seq, pending);
    if (pending) {
        mip_rdc_count(m, MIP_MAC_STAT_rdc_polls_pending);
        ack_end = (uint32_t)m->cfg.timing.turnaround_us +
                  mip_radio_airtime(&m->cfg.timing, MIP_802154_ACK_LEN + MIP_802154_FCS_LEN);
        ch->awake_until = m->now + ack_end + mip_rdc_par(m)->wait_us;
        if (!queued_for(m, i, 0))
            release(m, i);
    }
    arm(m);
    return true;
}

/* A held frame got through; with the pending bit, the child listens on
 * (wait_us from the end of the frame, which ended an ACK ago). */
static void acked(struct mip_mac *m, const struct mip_802154_hdr *h)
{
    struct mip_mac_qframe *q = mip_mac_head(m);
    struct mip_802154_hdr fh;
    struct mip_rdc_child *ch;
    size_t hl;
    unsigned i;
    uint32_t ack = (uint32_t)m->cfg.timing.turnaround_us +
                   mip_radio_airtime(&m->cfg.timing, MIP_802154_ACK_LEN + MIP_802154_FCS_LEN);
    (void)h;
    if (mip_ieee802154_parse_mhr(q->data, q->len, &fh, &hl) != MIP_OK)
        return;
    i = child_find(m, &fh.dst);
    if (i == NO_CHILD)
        return;
    ch = &pa(m)->child[i];
    if (ch->out && ch->out_seq == q->data[2])
        ch->out = 0;
    if (fh.frame_pending && mip_rdc_par(m)->wait_us > ack) {
        ch->awake_until = m->now + mip_rdc_par(m)->wait_us - ack;
        release(m, i);
    } else if (!fh.frame_pending) {
        ch->awake_until = m->now;   /* the last one: the child sleeps again */
    }
}

static bool always_on(const struct mip_mac *m)
{
    (void)m;
    return true;
}

static void rx(struct mip_mac *m, const struct mip_802154_hdr *h, enum mip_rdc_rx what)
{
    (void)m;
    (void)h;
    (void)what;
}

mip_status mip_mac_add_child(struct mip_mac *m, const struct mip_802154_addr *child,
                             mip_utime_t now)
{
    unsigned i;
    if (m == NULL || child == NULL)
        return MIP_ERR_INVALID;
    if (m->cfg.rdc.kind != MIP_RDC_PARENT)
        return MIP_ERR_UNSUPPORTED;
    if (child->mode == MIP_802154_ADDR_NONE ||
        (child->mode == MIP_802154_ADDR_SHORT && child->short_addr >= 0xFFFEu))
        return MIP_ERR_INVALID;
    m->now = now;
    i = child_get(m, child, true);
    heard(m, i);
    pa(m)->child[i].settled = 1;
    arm(m);
    return MIP_OK;
}

/* The held frames: the MAC's own (cleared with it), or the caller's. */
static void init(struct mip_mac *m)
{
#if !MIP_BUFS_OWN
    pa(m)->held = m->cfg.rdc.held;
    memset(pa(m)->held, 0, MIP_RDC_INDIRECT * sizeof(*pa(m)->held));
#else
    (void)m;
#endif
}

static const struct mip_rdc_ops ops = {
    check, init, send, mip_rdc_sent_plain, mip_rdc_nothing, mip_mac_noack, acked,
    take, rx, timer, always_on, mip_rdc_nothing
};

const struct mip_rdc_ops *mip_rdc_parent(void)
{
    return &ops;
}

#endif
