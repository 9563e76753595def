/*
 * src/relay/: in-network TCP support (TSS, DTC, cctrl), beside tcp/ on
 * the same floor and not joined to it: it may include core/, mac/, wire/
 * and base/ headers and config.h, never tcp/ (TCP headers are read with
 * wire/tcp.h) or apps/. The stack reaches it through the forward and local
 * hooks it registers; its owner feeds it overheard frames and link reports.
 *
 * The relay's public face: configuration, and the entry points of the
 * stack (the forward and local hooks), of the owner (overheard frames, link
 * reports, poll) and of tests (backlog, counters). Each parses what it is
 * given with the services in core.c and hands the segment to the
 * mechanism of the configured mode through its table of operations
 * (struct rly_ops: tss.c, dtc.c, cctrl.c). Design: docs/RELAY.md.
 */
#include "relay_internal.h"

#if MIP_CONF_FORWARD

#include <string.h>

/* The mechanism of each mode compiled in (MIP_CONF_RELAY_MODES); check_config
 * refuses the others. */
static const struct rly_ops *const mode_ops[] = {
    NULL,                                   /* MIP_RELAY_OFF */
#if MIP_RELAY_HAS_TSS
    &rly_tss_ops,
#else
    NULL,
#endif
#if MIP_RELAY_HAS_DTC
    &rly_dtc_ops,
#else
    NULL,
#endif
#if MIP_RELAY_HAS_CCTRL
    &rly_cctrl_ops,
#else
    NULL,
#endif
};

static const struct rly_ops *ops_of(const struct mip_relay *r)
{
    return r->cfg.mode < sizeof mode_ops / sizeof mode_ops[0] ? mode_ops[r->cfg.mode] : NULL;
}

static unsigned events_of(const struct mip_relay *r, const struct rly_ops *o)
{
    return o != NULL && o->events != NULL ? o->events(&r->cfg) : 0u;
}

/* What differs between the modes' defaults; 0 keeps the common value set
 * in mip_relay_config_default. Indexed by mode (a table, not a switch:
 * DESIGN.md); OFF takes TSS's. */
struct mode_defaults {
    uint8_t  max_local_rexmit;
    uint16_t rto_mult_q8;
    uint8_t  alpha_q8;
    uint16_t rtt_init_ms;
    bool     dtc_sack;
};

static const struct mode_defaults mode_defaults[] = {
    [MIP_RELAY_OFF]   = { 4u, 384u, 0u, 0u, false },
    /* [T] III.A.2: four local retransmissions, beta = 1.5 */
    [MIP_RELAY_TSS]   = { 4u, 384u, 0u, 0u, false },
    /* [D] gives no limit: TSS's; 1.5 * rtt ([T] II.A); SACK between caches
     * (the Med-Hoc-Net version, [B] 3.1.2) */
    [MIP_RELAY_DTC]   = { 4u, 384u, 0u, 0u, true },
    /* [B] 4.1.3: one local retransmission (keep: 3); n = 3; alpha 0.25;
     * first RTO 3 * 667 = 2 s */
    [MIP_RELAY_CCTRL] = { 1u, 768u, 64u, 667u, false },
};

/* --- configuration -------------------------------------------------------- */

void mip_relay_config_default(struct mip_relay_config *cfg, uint8_t mode)
{
    const struct mode_defaults *d;

    memset(cfg, 0, sizeof(*cfg));
    cfg->mode = mode;
    cfg->rto_min_ms = 10u;
    cfg->idle_timeout_s = 60u;
    cfg->alpha_q8 = 32u;              /* 0.125: TSS and DTC leave alpha unstated */
    cfg->rtt_init_ms = 1000u;
    cfg->ack_gamma_q8 = 512u;         /* [T] III.A.3: twice the average */
    cfg->forward_delay_ms = 35u;      /* two 1416-bit frames at 100 kb/s and their backoff: docs/RELAY.md */
    cfg->tss_backpressure = true;
    cfg->cc_hop_beta_q8 = 320u;
    cfg->cc_hop_max = 6u;
    /* an unknown mode gets TSS's values; check_config refuses it anyway */
    d = &mode_defaults[mode <= MIP_RELAY_CCTRL ? mode : MIP_RELAY_TSS];
    cfg->max_local_rexmit = d->max_local_rexmit;
    cfg->rto_mult_q8 = d->rto_mult_q8;
    if (d->alpha_q8 != 0u)
        cfg->alpha_q8 = d->alpha_q8;
    if (d->rtt_init_ms != 0u)
        cfg->rtt_init_ms = d->rtt_init_ms;
    cfg->dtc_sack = d->dtc_sack;
}

static mip_status check_config(const struct mip_relay_config *c)
{
    if (c->mode > MIP_RELAY_CCTRL)
        return MIP_ERR_INVALID;
    if (c->mode == MIP_RELAY_OFF)
        return MIP_OK;
    if (mode_ops[c->mode] == NULL)
        return MIP_ERR_UNSUPPORTED;       /* left out of this build */
    if (c->rto_mult_q8 == 0u || c->alpha_q8 == 0u ||
        c->ack_gamma_q8 == 0u || c->rtt_init_ms == 0u || c->idle_timeout_s == 0u)
        return MIP_ERR_INVALID;
    return MIP_OK;
}

static void note_ts(struct mip_relay *r, const struct rly_seg *seg)
{
    int fi;
    if (!seg->has_ts || seg->seg_len == 0u || (fi = rly_flow_of(r, seg)) < 0)
        return;
    if (!(r->flows[fi].flags & MIP_RELAY_F_TS) || rly_seq_gt(seg->ts_val, r->flows[fi].ts_latest)) {
        r->flows[fi].ts_latest = seg->ts_val;
        r->flows[fi].flags |= MIP_RELAY_F_TS;
    }
}

/* --- ack_repair_wait ---------------------------------------------------------- */

static bool pure_ack(const struct rly_seg *seg)
{
    return seg->payload_len == 0u &&
           (seg->flags & (MIP_TCP_ACK | MIP_TCP_SYN | MIP_TCP_FIN | MIP_TCP_RST)) == MIP_TCP_ACK;
}

/* What a repair waits for: new data of flow f, ending beyond what has
 * passed here (`transmitted`), or beyond the ACK number before any has. */
static uint32_t new_data_mark(const struct mip_relay_flow *f, uint32_t ack)
{
    return (f->flags & MIP_RELAY_F_SEQ) ? f->transmitted : ack;
}

/* Watches the segments passing for ack_repair_wait, before the mode sees
 * them: a pure ACK starts timing its data flow's upstream turnaround; new
 * data of a flow ends that timing (a sample) and drops a repair waiting for
 * the flow's ACK, which then evidently reached the sender. */
static void repair_watch(struct mip_relay *r, const struct rly_seg *seg)
{
    struct mip_relay_flow *f;
    int fi;
    if (!r->cfg.ack_repair || !r->cfg.ack_repair_wait)
        return;
    if (pure_ack(seg)) {
        fi = rly_flow_rev(r, seg);
        if (fi >= 0 && !(r->flows[fi].repair_flags & MIP_RELAY_R_UP_ON)) {
            f = &r->flows[fi];
            f->up_at = r->now;
            f->up_mark = new_data_mark(f, seg->ack);
            f->repair_flags |= MIP_RELAY_R_UP_ON;
        }
        return;
    }
    fi = rly_flow_of(r, seg);
    if (fi < 0 || seg->seg_len == 0u)
        return;
    f = &r->flows[fi];
    if ((f->repair_flags & MIP_RELAY_R_UP_ON) &&
        rly_seq_gt(seg->seq + seg->seg_len, f->up_mark)) {
        f->repair_flags &= (uint8_t)~MIP_RELAY_R_UP_ON;
        if (r->now - f->up_at <= RLY_TIME_MAX_MS)
            rly_up_sample(r, f, r->now - f->up_at);
    }
    if ((f->repair_flags & MIP_RELAY_R_DUE) &&
        rly_seq_gt(seg->seq + seg->seg_len, f->repair_mark)) {
        f->repair_flags &= (uint8_t)~MIP_RELAY_R_DUE;
        RSTAT(r, repairs_cancelled);
    }
}

/* The poll's part: a waiting repair that is due goes, and a turnaround
 * timed longer than any sample could be is given up (its stamp is never
 * kept long: DESIGN.md's rule on stored time). */
static uint32_t repair_poll(struct mip_relay *r, struct mip_relay_flow *f, int fi, uint32_t next)
{
    if ((f->repair_flags & MIP_RELAY_R_UP_ON) && r->now - f->up_at > RLY_TIME_MAX_MS)
        f->repair_flags &= (uint8_t)~MIP_RELAY_R_UP_ON;
    if (f->repair_flags & MIP_RELAY_R_DUE) {
        if (mip_time_reached(r->now, f->repair_at)) {
            f->repair_flags &= (uint8_t)~MIP_RELAY_R_DUE;
            if (rly_send_ack(r, fi) == MIP_OK)
                RSTAT(r, acks_repaired);
        } else {
            next = mip_next_delay(next, r->now, f->repair_at);
        }
    }
    if (f->repair_flags & MIP_RELAY_R_UP_ON)
        next = mip_next_delay(next, r->now, f->up_at + RLY_TIME_MAX_MS + 1u);
    return next;
}

static enum mip_fwd_verdict relay_hook(void *ctx, struct mip_stack *s, uint8_t in_netif,
                                       uint8_t out_netif, uint8_t *pkt, size_t len)
{
    struct mip_relay *r = ctx;
    const struct rly_ops *o;
    struct rly_seg seg;
    enum mip_fwd_verdict v;
    (void)in_netif;
    (void)out_netif;
    if (r == NULL || s == NULL || s != r->stack)
        return MIP_FWD_PASS;
    r->now = s->now;
    if (rly_parse(pkt, len, 0, true, &seg) != MIP_OK) {
        RSTAT(r, ignored);
        return MIP_FWD_PASS;
    }
    o = ops_of(r);
    if (o == NULL) {
        RSTAT(r, ignored);
        return MIP_FWD_PASS;
    }
    repair_watch(r, &seg);
    v = o->forward(r, &seg, pkt);
    note_ts(r, &seg);
    return v;
}

static enum mip_fwd_verdict local_hook(void *ctx, struct mip_stack *s, bool out, uint8_t netif,
                                       const uint8_t *pkt, size_t len)
{
    struct mip_relay *r = ctx;
    const struct rly_ops *o;
    struct rly_seg seg;
    (void)netif;
    if (r == NULL || s == NULL || s != r->stack)
        return MIP_FWD_PASS;
    o = ops_of(r);
    if (!(events_of(r, o) & RLY_EV_LOCAL))
        return MIP_FWD_PASS;
    r->now = s->now;
    /* own datagrams are trusted; received ones must have a right checksum */
    if (rly_parse(pkt, len, 0, !out, &seg) != MIP_OK)
        return MIP_FWD_PASS;
    repair_watch(r, &seg);
    if (out)
        return o->local_out(r, &seg, pkt);
    o->local_in(r, &seg);
    return MIP_FWD_PASS;
}

mip_status mip_relay_init(struct mip_relay *r, struct mip_stack *stack,
                          const struct mip_relay_config *cfg, uint32_t now_ms)
{
    struct mip_relay_config def;
    mip_status st;
    if (r == NULL || stack == NULL)
        return MIP_ERR_INVALID;
    if (cfg == NULL) {
        mip_relay_config_default(&def, MIP_RELAY_TSS);
        cfg = &def;
    }
    st = check_config(cfg);
    if (st != MIP_OK)
        return st;
    memset(r, 0, sizeof(*r));
    r->stack = stack;
    r->cfg = *cfg;
    r->now = now_ms;
    if (cfg->mode == MIP_RELAY_OFF) {
        mip_ip_set_forward_hook(stack, NULL, NULL);
        mip_ip_set_local_hook(stack, NULL, NULL);
    } else {
        mip_ip_set_forward_hook(stack, relay_hook, r);
        mip_ip_set_local_hook(stack, local_hook, r);
    }
    return MIP_OK;
}

void mip_relay_overheard(struct mip_relay *r, uint8_t netif, const uint8_t *frame,
                         size_t len, uint32_t now_ms)
{
    const struct rly_ops *o;

    if (r == NULL || r->stack == NULL || frame == NULL)
        return;
    r->now = now_ms;
    o = ops_of(r);
    if (events_of(r, o) & RLY_EV_OVERHEARD)
        o->overheard(r, netif, frame, len);
}

/* ack_repair: seg, a pure ACK, was lost on the way to this node's
 * neighbour. Only the latest ACK of its flow is worth sending again (an
 * older one is overtaken), and only a few times. With ack_repair_wait the
 * repair waits (repair_watch, repair_poll): the report may follow a lost
 * link ACK of a frame that arrived. */
static void ack_repair(struct mip_relay *r, const struct rly_seg *seg)
{
    struct mip_relay_flow *f;
    int fi = rly_flow_rev(r, seg);
    if (fi < 0)
        return;
    f = &r->flows[fi];
    if (!(f->flags & MIP_RELAY_F_ACKED) || seg->ack != f->acked)
        return;
    if (f->ack_repair_no != f->acked) {
        f->ack_repair_no = f->acked;
        f->ack_repairs = 0;
    }
    if (f->ack_repairs >= r->cfg.max_local_rexmit || (f->repair_flags & MIP_RELAY_R_DUE))
        return;
    f->ack_repairs++;
    if (r->cfg.ack_repair_wait) {
        f->repair_at = r->now + rly_repair_wait(r, f);
        f->repair_mark = new_data_mark(f, f->acked);
        f->repair_flags |= MIP_RELAY_R_DUE;
        return;
    }
    if (rly_send_ack(r, fi) == MIP_OK)
        RSTAT(r, acks_repaired);
}

void mip_relay_link_status(struct mip_relay *r, uint8_t netif, const uint8_t *frame,
                           size_t len, bool ok, uint32_t now_ms)
{
    const struct rly_ops *o;
    struct rly_seg seg;
    if (r == NULL || r->stack == NULL || frame == NULL)
        return;
    r->now = now_ms;
    o = ops_of(r);
    if (!(events_of(r, o) & RLY_EV_LINK))
        return;
    if (rly_peek_seg(r, netif, frame, len, &seg, NULL) != MIP_OK)
        return;
    if (!ok && r->cfg.ack_repair && seg.payload_len == 0u &&
        (seg.flags & (MIP_TCP_ACK | MIP_TCP_SYN | MIP_TCP_FIN | MIP_TCP_RST)) == MIP_TCP_ACK) {
        ack_repair(r, &seg);
        return;
    }
    o->link_status(r, &seg, ok);
}

uint32_t mip_relay_poll(struct mip_relay *r, uint32_t now_ms)
{
    const struct rly_ops *o;
    uint32_t next, idle_ms;
    unsigned i;
    if (r == NULL || r->stack == NULL)
        return MIP_POLL_IDLE;
    r->now = now_ms;
    o = ops_of(r);
    if (o == NULL)
        return MIP_POLL_IDLE;
    next = o->poll(r, now_ms);
    /* Idle flows, and closed ones once nothing of theirs is cached. */
    idle_ms = (uint32_t)r->cfg.idle_timeout_s * 1000u;
    for (i = 0; i < MIP_RELAY_FLOWS; i++) {
        struct mip_relay_flow *f = &r->flows[i];
        if (!f->used)
            continue;
        if (mip_time_reached(now_ms, f->last_used + idle_ms) ||
            ((f->flags & MIP_RELAY_F_CLOSING) && rly_slot_of(r, (int)i, MIP_RELAY_SLOT_CACHE) < 0 &&
             rly_slot_of(r, (int)i, MIP_RELAY_SLOT_BUFFER) < 0 &&
             rly_slot_of(r, (int)i, MIP_RELAY_SLOT_QUEUE) < 0)) {
            rly_flow_evict(r, (int)i);
            continue;
        }
        next = repair_poll(r, f, (int)i, next);
        next = mip_next_delay(next, now_ms, f->last_used + idle_ms);
    }
    return next;
}

uint8_t mip_relay_backlog(const struct mip_relay *r, const struct mip_addr *src,
                          const struct mip_addr *dst, uint16_t sport, uint16_t dport)
{
    unsigned i, n = 0;
    int fi;
    if (r == NULL || src == NULL || dst == NULL)
        return 0;
    fi = rly_flow_find(r, src, dst, sport, dport);
    if (fi < 0)
        return 0;
    for (i = 0; i < MIP_RELAY_SLOTS; i++) {
        const struct mip_relay_slot *sl = &r->slots[i];
        if (sl->flow == (uint8_t)fi && (sl->used == MIP_RELAY_SLOT_QUEUE ||
                                        (sl->used == MIP_RELAY_SLOT_CACHE && sl->unsent)))
            n++;
    }
    return (uint8_t)(n > 255u ? 255u : n);
}

uint32_t mip_relay_stat(const struct mip_relay *r, enum mip_relay_stat which)
{
    return r != NULL && (unsigned)which < MIP_RELAY_STAT_COUNT ? r->stats[which] : 0u;
}

#if MIP_CONF_STAT_NAMES
/* Fixed-width rows, not pointers: see src/core/stats.c. */
static const char relay_stat_names[MIP_RELAY_STAT_COUNT][20] = {
#define MIP_RELAY_STAT_NAME(n) #n,
    MIP_RELAY_STATS_LIST(MIP_RELAY_STAT_NAME)
#undef MIP_RELAY_STAT_NAME
};

const char *mip_relay_stat_name(unsigned which)
{
    return which < MIP_RELAY_STAT_COUNT ? relay_stat_names[which] : NULL;
}
#else
const char *mip_relay_stat_name(unsigned which)
{
    (void)which;
    return NULL;
}
#endif

#endif /* MIP_CONF_FORWARD */
