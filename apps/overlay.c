/*
 * Application overlay routing: interests, gradients, aggregation. See
 * overlay.h and docs/OVERLAY.md.
 */
#include "overlay.h"

#include <string.h>

#include "moteip/udp.h"

/* ff02::1, the link-local all-nodes group (RFC 4291 2.7.1). */
static const uint8_t all_nodes[16] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };

static const char *const drop_names[MIP_OVL_DROP_COUNT_] = {
    "malformed", "own", "interests_full", "gradient_worse", "stale", "no_interest", "late",
    "ahead", "pending_full", "no_gradient", "count_full", "tx",
};

const char *mip_overlay_drop_name(enum mip_overlay_drop d)
{
    return (unsigned)d < MIP_OVL_DROP_COUNT_ ? drop_names[d] : "?";
}

static void inc(uint32_t *c)
{
    if (*c != UINT32_MAX)
        (*c)++;
}

static void drop(struct mip_overlay *o, enum mip_overlay_drop d)
{
    inc(&o->drops[d]);
}

static mip_status udp_tx(void *ctx, struct mip_stack *s, const struct mip_addr *dst, uint8_t zone,
                         const uint8_t *buf, size_t len)
{
    (void)ctx;
    return mip_udp_sendto(s, NULL, MIP_OVERLAY_PORT, dst, MIP_OVERLAY_PORT, zone, buf, len);
}

static void send_msg(struct mip_overlay *o, const struct mip_addr *dst, uint8_t zone,
                     const uint8_t *buf, size_t len)
{
    mip_overlay_tx_fn tx = o->cfg.tx != NULL ? o->cfg.tx : udp_tx;
    mip_status st = tx(o->cfg.ctx, o->stack, dst, zone, buf, len);

    /* PENDING: queued while the neighbour's link address is resolved */
    if (st != MIP_OK && st != MIP_ERR_PENDING)
        drop(o, MIP_OVL_DROP_TX);
}

/* --- interests and gradients ------------------------------------------------ */

static struct mip_overlay_interest *find_interest(struct mip_overlay *o, uint16_t sink,
                                                  uint8_t attr)
{
    unsigned i;
    for (i = 0; i < MIP_OVERLAY_INTERESTS; i++)
        if (o->interest[i].used && o->interest[i].sink == sink && o->interest[i].attr == attr)
            return &o->interest[i];
    return NULL;
}

static unsigned index_of(const struct mip_overlay *o, const struct mip_overlay_interest *in)
{
    return (unsigned)(in - o->interest);
}

static void free_pending_of(struct mip_overlay *o, unsigned idx)
{
    unsigned k;
    for (k = 0; k < MIP_OVERLAY_PENDING; k++)
        if (o->pending[k].used && o->pending[k].interest == idx)
            o->pending[k].used = false;
}

static void free_interest(struct mip_overlay *o, struct mip_overlay_interest *in)
{
    free_pending_of(o, index_of(o, in));
    memset(in, 0, sizeof(*in));
}

/* A free slot, or the relayed interest closest to expiry (own
 * subscriptions are never evicted); NULL when all are own. */
static struct mip_overlay_interest *alloc_interest(struct mip_overlay *o, mip_time_t now)
{
    struct mip_overlay_interest *victim = NULL;
    unsigned i;
    for (i = 0; i < MIP_OVERLAY_INTERESTS; i++) {
        struct mip_overlay_interest *in = &o->interest[i];
        if (!in->used)
            return in;
        if (!in->own && (victim == NULL || mip_time_before(in->expires, victim->expires)))
            victim = in;
    }
    (void)now;
    if (victim != NULL)
        free_interest(o, victim);
    return victim;
}

static bool grad_live(const struct mip_overlay_gradient *g, mip_time_t now)
{
    return g->used && mip_time_before(now, g->expires);
}

/* Better: fewer hops, then longer-lived. */
static bool grad_better(const struct mip_overlay_gradient *a, const struct mip_overlay_gradient *b)
{
    if (a->hops != b->hops)
        return a->hops < b->hops;
    return mip_time_before(b->expires, a->expires);
}

static const struct mip_overlay_gradient *best_gradient(const struct mip_overlay_interest *in,
                                                        mip_time_t now)
{
    const struct mip_overlay_gradient *best = NULL;
    unsigned g;
    for (g = 0; g < MIP_OVERLAY_GRADIENTS; g++)
        if (grad_live(&in->grad[g], now) && (best == NULL || grad_better(&in->grad[g], best)))
            best = &in->grad[g];
    return best;
}

static void update_hops(struct mip_overlay_interest *in, mip_time_t now)
{
    const struct mip_overlay_gradient *b;
    if (in->own) {
        in->hops = 0;
        return;
    }
    b = best_gradient(in, now);
    if (b != NULL)
        in->hops = b->hops == UINT8_MAX ? UINT8_MAX : (uint8_t)(b->hops + 1u);
}

/* Records (or refreshes) the gradient towards src; false when the table
 * holds only better live ones. */
static bool put_gradient(struct mip_overlay_interest *in, const struct mip_addr *src, uint8_t zone,
                         uint8_t hops, mip_time_t expires, mip_time_t now)
{
    struct mip_overlay_gradient cand, *slot = NULL;
    unsigned g;
    cand.addr = *src;
    cand.zone = zone;
    cand.hops = hops;
    cand.expires = expires;
    cand.used = true;
    for (g = 0; g < MIP_OVERLAY_GRADIENTS; g++) {
        struct mip_overlay_gradient *e = &in->grad[g];
        if (e->used && e->zone == zone && mip_addr_eq(&e->addr, src)) {
            slot = e;
            break;
        }
        if (!grad_live(e, now)) {
            if (slot == NULL || grad_live(slot, now))
                slot = e;
        } else if (slot == NULL || (grad_live(slot, now) && grad_better(slot, e))) {
            slot = e;       /* the worst live one so far */
        }
    }
    if (slot == NULL)
        return false;
    if (grad_live(slot, now) && !(slot->zone == zone && mip_addr_eq(&slot->addr, src)) &&
        !grad_better(&cand, slot))
        return false;
    *slot = cand;
    return true;
}

/* --- timing ------------------------------------------------------------------ */

/* When this node sends (a sink: reports) its current round. */
static mip_time_t send_at(const struct mip_overlay_interest *in)
{
    uint32_t off = in->hops >= in->depth ? 0u : (uint32_t)(in->depth - in->hops) * in->slot_ms;
    return in->round_end + off + (in->own ? 0u : in->jitter_ms);
}

static void flood(struct mip_overlay *o, struct mip_overlay_interest *in, mip_time_t now)
{
    struct mip_ovl_interest m;
    struct mip_addr dst;
    uint8_t buf[MIP_OVL_INTEREST_LEN];
    size_t n;
    uint16_t e = in->round;
    mip_time_t end = in->round_end;
    unsigned k;

    /* the round whose end is next, less than one interval away */
    for (k = 0; k < 2u && !mip_time_before(now, end); k++) {
        e++;
        end += in->interval_ms;
    }
    /* a round held ahead of the sink's (<= MIP_OVERLAY_AHEAD_MAX) is told
     * as the one before it; a round ending exactly one interval from now
     * (the sink's first) is told 1 ms early, as due_ms < interval_ms */
    for (k = 0; k < MIP_OVERLAY_AHEAD_MAX + 1u && (uint32_t)(end - now) > in->interval_ms; k++) {
        e--;
        end -= in->interval_ms;
    }
    memset(&m, 0, sizeof(m));
    m.attr = in->attr;
    m.sink = in->sink;
    m.seq = in->seq;
    m.hops = in->hops;
    m.depth = in->depth;
    m.epoch = e;
    m.slot_ms = in->slot_ms;
    m.interval_ms = in->interval_ms;
    m.due_ms = mip_time_before(now, end) ? (uint32_t)(end - now) : 0u;
    if (m.due_ms >= in->interval_ms)
        m.due_ms = in->interval_ms - 1u;
    m.lifetime_ms = in->own ? in->lifetime_ms
                  : (mip_time_before(now, in->expires) ? (uint32_t)(in->expires - now) : 1u);
    if (mip_ovl_interest_emit(&m, buf, sizeof(buf), &n) != MIP_OK)
        return;
    mip_addr_set6(&dst, all_nodes);
    inc(&o->interests_tx);
    send_msg(o, &dst, o->cfg.netif, buf, n);
}

static struct mip_overlay_pending *find_pending(struct mip_overlay *o, unsigned idx, uint16_t epoch)
{
    unsigned k;
    for (k = 0; k < MIP_OVERLAY_PENDING; k++)
        if (o->pending[k].used && o->pending[k].interest == idx && o->pending[k].epoch == epoch)
            return &o->pending[k];
    return NULL;
}

/* The end of the current round: own reading, children's aggregates, sent
 * up the best gradient (or reported, at the sink). */
static void do_round(struct mip_overlay *o, struct mip_overlay_interest *in, mip_time_t now)
{
    unsigned idx = index_of(o, in);
    struct mip_overlay_pending *p = find_pending(o, idx, in->round);
    struct mip_ovl_agg agg = { 0, 0, 0, 0 };
    int16_t v;

    if (p != NULL) {
        agg = p->agg;
        p->used = false;
    }
    if (o->cfg.read != NULL && o->cfg.read(o->cfg.ctx, in->attr, now, &v)) {
        if (mip_ovl_agg_add(&agg, v))
            inc(&o->readings_taken);
        else
            drop(o, MIP_OVL_DROP_COUNT_FULL);
    }
    if (in->own) {
        if (o->cfg.result != NULL)
            o->cfg.result(o->cfg.ctx, in->attr, in->round, &agg, now);
    } else if (agg.count > 0u) {
        const struct mip_overlay_gradient *g = best_gradient(in, now);
        struct mip_ovl_data d;
        uint8_t buf[MIP_OVL_DATA_LEN];
        size_t n;
        if (g == NULL) {
            drop(o, MIP_OVL_DROP_NO_GRADIENT);
            return;
        }
        d.attr = in->attr;
        d.sink = in->sink;
        d.epoch = in->round;
        d.agg = agg;
        if (mip_ovl_data_emit(&d, buf, sizeof(buf), &n) == MIP_OK) {
            inc(&o->data_tx);
            send_msg(o, &g->addr, g->zone, buf, n);
        }
    }
}

/* Pending aggregates outside the rounds this interest now accepts, after
 * a jump of its round: behind it (their send time has passed) or, when a
 * sink's refresh moved it back, too far ahead. */
static void drop_outside(struct mip_overlay *o, const struct mip_overlay_interest *in)
{
    unsigned k, idx = index_of(o, in);
    for (k = 0; k < MIP_OVERLAY_PENDING; k++) {
        struct mip_overlay_pending *p = &o->pending[k];
        int16_t d = (int16_t)(uint16_t)(p->epoch - in->round);
        if (p->used && p->interest == idx && (d < 0 || d > (int16_t)MIP_OVERLAY_AHEAD_MAX)) {
            p->used = false;
            drop(o, MIP_OVL_DROP_LATE);
        }
    }
}

static void run_rounds(struct mip_overlay *o, struct mip_overlay_interest *in, mip_time_t now)
{
    uint32_t behind;
    if (!mip_time_reached(now, send_at(in)))
        return;
    do_round(o, in, now);
    in->round++;
    in->round_end += in->interval_ms;
    in->jitter_ms = (uint16_t)mip_rng_below(&o->rng, in->slot_ms / 2u + 1u);
    if (mip_time_reached(now, send_at(in))) {
        /* a poll came rounds late: skip them (their send times passed) */
        behind = (uint32_t)(now - send_at(in)) / in->interval_ms + 1u;
        in->round = (uint16_t)(in->round + behind);
        in->round_end += behind * in->interval_ms;
    }
    drop_outside(o, in);
}

static void fold(uint32_t *next, mip_time_t now, mip_time_t at)
{
    uint32_t d = mip_time_before(now, at) ? (uint32_t)(at - now) : 0u;
    if (d < *next)
        *next = d;
}

uint32_t mip_overlay_poll(struct mip_overlay *o, mip_time_t now)
{
    uint32_t next = MIP_POLL_IDLE;
    unsigned i, g;

    if (o == NULL || !o->running)
        return MIP_POLL_IDLE;
    for (i = 0; i < MIP_OVERLAY_INTERESTS; i++) {
        struct mip_overlay_interest *in = &o->interest[i];
        if (!in->used)
            continue;
        if (!in->own && mip_time_reached(now, in->expires)) {
            free_interest(o, in);
            continue;
        }
        for (g = 0; g < MIP_OVERLAY_GRADIENTS; g++) {
            if (in->grad[g].used && !grad_live(&in->grad[g], now))
                in->grad[g].used = false;
            if (in->grad[g].used)
                fold(&next, now, in->grad[g].expires);
        }
        update_hops(in, now);
        /* the sink refreshes outside its rounds' data phase (from a
         * round's end to its report), so floods and aggregates do not
         * contend: a refresh due inside one waits for the report */
        if (in->own && mip_time_reached(now, in->refresh_at) &&
            mip_time_before(now, in->round_end)) {
            in->seq++;
            flood(o, in, now);
            in->refresh_at = now + (in->lifetime_ms / 3u ? in->lifetime_ms / 3u : 1u);
        }
        if (in->fwd_due && mip_time_reached(now, in->fwd_at)) {
            in->fwd_due = false;
            flood(o, in, now);
        }
        run_rounds(o, in, now);
        fold(&next, now, send_at(in));
        if (!in->own)
            fold(&next, now, in->expires);
        else if (mip_time_before(now, in->round_end))
            fold(&next, now, in->refresh_at);
        if (in->fwd_due)
            fold(&next, now, in->fwd_at);
    }
    return next;
}

/* --- input ------------------------------------------------------------------- */

static void interest_in(struct mip_overlay *o, const struct mip_addr *src, uint8_t zone,
                        const struct mip_ovl_interest *m, mip_time_t now)
{
    struct mip_overlay_interest *in;
    mip_time_t end = now + m->due_ms;
    bool fresh = false;

    if (m->sink == o->cfg.id) {
        drop(o, MIP_OVL_DROP_OWN);
        return;
    }
    in = find_interest(o, m->sink, m->attr);
    if (in == NULL) {
        in = alloc_interest(o, now);
        if (in == NULL) {
            drop(o, MIP_OVL_DROP_INTERESTS_FULL);
            return;
        }
        in->used = true;
        in->attr = m->attr;
        in->sink = m->sink;
        in->hops = UINT8_MAX;
        in->round = m->epoch;
        in->round_end = end;
        fresh = true;
    } else {
        int16_t d = (int16_t)(uint16_t)(m->seq - in->seq);
        if (d < 0) {
            drop(o, MIP_OVL_DROP_STALE);
            return;
        }
        if (d > 0) {
            /* keep our round, re-timed by the sink's newer reference; one
             * round behind is the round that just ended, whose send time
             * (after its end) has not come yet */
            int16_t ahead = (int16_t)(uint16_t)(in->round - m->epoch);
            fresh = true;
            if (ahead < -1 || ahead > (int16_t)MIP_OVERLAY_AHEAD_MAX) {
                in->round = m->epoch;
                in->round_end = end;
            } else {
                in->round_end = end + (uint32_t)(int32_t)ahead * m->interval_ms;
            }
        }
    }
    if (m->hops == UINT8_MAX || !put_gradient(in, src, zone, m->hops, now + m->lifetime_ms, now))
        drop(o, MIP_OVL_DROP_GRADIENT_WORSE);
    if (fresh) {
        in->seq = m->seq;
        in->depth = m->depth;
        in->slot_ms = m->slot_ms;
        in->interval_ms = m->interval_ms;
        in->lifetime_ms = m->lifetime_ms;
        in->expires = now + m->lifetime_ms;
        in->fwd_due = true;
        in->fwd_at = now + mip_rng_below(&o->rng, m->slot_ms / 2u + 1u);
        drop_outside(o, in);
    }
    update_hops(in, now);
}

static void data_in(struct mip_overlay *o, const struct mip_ovl_data *m)
{
    struct mip_overlay_interest *in = find_interest(o, m->sink, m->attr);
    struct mip_overlay_pending *p;
    unsigned idx, k;
    int16_t d;

    if (in == NULL) {
        drop(o, MIP_OVL_DROP_NO_INTEREST);
        return;
    }
    idx = index_of(o, in);
    d = (int16_t)(uint16_t)(m->epoch - in->round);
    if (d < 0) {
        if (in->own)
            o->late_readings = (UINT32_MAX - o->late_readings < m->agg.count)
                               ? UINT32_MAX : o->late_readings + m->agg.count;
        else
            drop(o, MIP_OVL_DROP_LATE);
        return;
    }
    if (d > (int16_t)MIP_OVERLAY_AHEAD_MAX) {
        drop(o, MIP_OVL_DROP_AHEAD);
        return;
    }
    p = find_pending(o, idx, m->epoch);
    for (k = 0; p == NULL && k < MIP_OVERLAY_PENDING; k++) {
        if (!o->pending[k].used) {
            p = &o->pending[k];
            memset(p, 0, sizeof(*p));
            p->used = true;
            p->interest = (uint8_t)idx;
            p->epoch = m->epoch;
        }
    }
    if (p == NULL) {
        drop(o, MIP_OVL_DROP_PENDING_FULL);
        return;
    }
    if (!mip_ovl_agg_merge(&p->agg, &m->agg))
        drop(o, MIP_OVL_DROP_COUNT_FULL);
}

void mip_overlay_input(struct mip_overlay *o, const struct mip_addr *src, uint8_t zone,
                       const uint8_t *buf, size_t len, mip_time_t now)
{
    uint8_t type = 0;

    if (o == NULL || !o->running)
        return;
    if (mip_ovl_type(buf, len, &type) != MIP_OK) {
        drop(o, MIP_OVL_DROP_MALFORMED);
        return;
    }
    if (type == MIP_OVL_TYPE_INTEREST) {
        struct mip_ovl_interest m;
        if (mip_ovl_interest_parse(buf, len, &m) != MIP_OK) {
            drop(o, MIP_OVL_DROP_MALFORMED);
            return;
        }
        inc(&o->interests_rx);
        interest_in(o, src, zone, &m, now);
    } else {
        struct mip_ovl_data m;
        if (mip_ovl_data_parse(buf, len, &m) != MIP_OK) {
            drop(o, MIP_OVL_DROP_MALFORMED);
            return;
        }
        inc(&o->data_rx);
        data_in(o, &m);
    }
}

/* --- API --------------------------------------------------------------------- */

static void udp_recv(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                     const uint8_t *data, size_t len)
{
    (void)s;
    mip_overlay_input(ctx, &m->src, m->netif, data, len, s->now);
}

static uint32_t overlay_poll(void *ctx, struct mip_stack *s, mip_time_t now)
{
    (void)s;
    return mip_overlay_poll(ctx, now);
}

mip_status mip_overlay_start(struct mip_overlay *o, struct mip_stack *s,
                             const struct mip_overlay_cfg *cfg)
{
    uint8_t seed[8];
    unsigned k;
    mip_status st;

    if (o == NULL || s == NULL || cfg == NULL)
        return MIP_ERR_INVALID;
    memset(o, 0, sizeof(*o));
    o->cfg = *cfg;
    o->stack = s;
    for (k = 0; k < sizeof(seed); k += 4u) {
        uint32_t r = mip_rng_next(&s->rng);
        memcpy(seed + k, &r, 4u);
    }
    mip_rng_seed(&o->rng, seed, sizeof(seed));
    st = mip_udp_bind(s, MIP_OVERLAY_PORT, udp_recv, o);
    if (st != MIP_OK)
        return st;
    st = mip_stack_add_poller(s, overlay_poll, NULL, o);
    if (st != MIP_OK) {
        (void)mip_udp_unbind(s, MIP_OVERLAY_PORT);
        return st;
    }
    o->running = true;
    return MIP_OK;
}

void mip_overlay_stop(struct mip_overlay *o)
{
    if (o == NULL || !o->running)
        return;
    (void)mip_udp_unbind(o->stack, MIP_OVERLAY_PORT);
    o->running = false;
    memset(o->interest, 0, sizeof(o->interest));
    memset(o->pending, 0, sizeof(o->pending));
}

mip_status mip_overlay_subscribe(struct mip_overlay *o, uint8_t attr, uint32_t interval_ms,
                                 uint8_t depth, uint16_t slot_ms, uint32_t lifetime_ms,
                                 mip_time_t now)
{
    struct mip_ovl_interest chk;
    struct mip_overlay_interest *in;

    if (o == NULL || !o->running)
        return MIP_ERR_INVALID;
    memset(&chk, 0, sizeof(chk));
    chk.depth = depth;
    chk.slot_ms = slot_ms;
    chk.interval_ms = interval_ms;
    chk.lifetime_ms = lifetime_ms;
    if (!mip_ovl_interest_valid(&chk))
        return MIP_ERR_INVALID;
    in = find_interest(o, o->cfg.id, attr);
    if (in != NULL)
        return MIP_ERR_INUSE;
    in = alloc_interest(o, now);
    if (in == NULL)
        return MIP_ERR_NOBUFS;
    in->used = true;
    in->own = true;
    in->attr = attr;
    in->sink = o->cfg.id;
    in->depth = depth;
    in->slot_ms = slot_ms;
    in->interval_ms = interval_ms;
    in->lifetime_ms = lifetime_ms;
    in->round_end = now + interval_ms;
    in->refresh_at = now;       /* the first flood at the next poll */
    in->seq = (uint16_t)mip_rng_next(&o->rng);
    return MIP_OK;
}

mip_status mip_overlay_unsubscribe(struct mip_overlay *o, uint8_t attr)
{
    struct mip_overlay_interest *in;
    if (o == NULL)
        return MIP_ERR_INVALID;
    in = find_interest(o, o->cfg.id, attr);
    if (in == NULL || !in->own)
        return MIP_ERR_NOTFOUND;
    free_interest(o, in);
    return MIP_OK;
}

int mip_overlay_hops(const struct mip_overlay *o, uint16_t sink, uint8_t attr)
{
    unsigned i;
    for (i = 0; i < MIP_OVERLAY_INTERESTS; i++)
        if (o->interest[i].used && o->interest[i].sink == sink && o->interest[i].attr == attr)
            return o->interest[i].hops;
    return -1;
}
