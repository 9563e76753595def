/*
 * Records of a run, when the scenario asks for them (scenario key "record";
 * docs/SIMULATOR.md): what the TSS paper plots in its figures 7-13 and the
 * result's counters cannot show.
 *
 *   relay_rtt   every change of each relay's rtt estimate (EWMA) for the data
 *               direction of flow 0: [t_ms, node, rtt_ms] ([T] Figs. 7-10)
 *   cache_hold  every time a segment sat in a relay's cache after it was
 *               sent, until the next hop was heard forwarding it, a TCP ACK
 *               covered it or its retransmission timer ran out:
 *               [node, hold_ms, how] ([T] Fig. 11)
 *   in_flight   at each new segment the source puts on the air, how many of
 *               flow 0's segments have not reached the receiver
 *               ([T] Figs. 12-13; written with the flow, apps.c)
 *
 * The relay is observed from outside, after every touch of a node
 * (sim_node_schedule): its state is public (relay.h) and nothing in src/
 * changes for a measurement. Records grow on the heap (the simulator's own
 * memory, never the stack's).
 */
#include "sim.h"
#include "json.h"
#include <stdlib.h>
#include <string.h>

enum { HOLD_SENT = 1 };

struct rec_slot {               /* what a relay slot held at the last look */
    uint8_t  cached;            /* a CACHE slot that was sent */
    uint8_t  rexmits;
    uint32_t seq;
    uint64_t since_us;
};

struct rec_node {
    uint32_t rtt_q8[MIP_RELAY_FLOWS];
    struct rec_slot slot[MIP_RELAY_SLOTS];
    uint32_t implicit, acks_cleared;    /* relay counters at the last look */
};

struct rec_rtt { uint64_t t_us; uint32_t node; uint32_t rtt_q8; };
struct rec_hold { uint32_t node; uint64_t us; uint8_t how; };

enum { HOW_OVERHEARD = 0, HOW_ACK, HOW_TIMEOUT, HOW_OTHER };
static const char how_names[][10] = { "overheard", "ack", "timeout", "other" };

struct sim_record {
    struct rec_node *node;
    struct rec_rtt *rtt;
    size_t n_rtt, cap_rtt;
    struct rec_hold *hold;
    size_t n_hold, cap_hold;
    struct mip_addr src;        /* flow 0's end points: its data direction */
    struct mip_addr dst;
};

static bool grow(void **arr, size_t *cap, size_t n, size_t size)
{
    void *p;
    size_t ncap;
    if (n < *cap)
        return true;
    ncap = *cap ? *cap * 2u : 1024u;
    p = realloc(*arr, ncap * size);
    if (p == NULL)
        return false;
    *arr = p;
    *cap = ncap;
    return true;
}

bool sim_record_init(struct sim *sim)
{
    const struct sim_scenario *sc = sim->sc;
    struct sim_record *r;
    if (!sc->record_relay_rtt && !sc->record_cache_hold)
        return true;            /* in_flight lives in apps.c */
    r = calloc(1, sizeof(*r));
    if (r == NULL)
        return false;
    r->node = calloc(sim->n, sizeof(*r->node));
    if (r->node == NULL) {
        free(r);
        return false;
    }
    if (sc->n_flows > 0) {
        sim_node_address(sim, sc->flows[0].src, &r->src);
        sim_node_address(sim, sc->flows[0].dst, &r->dst);
    }
    sim->record = r;
    return true;
}

void sim_record_free(struct sim *sim)
{
    struct sim_record *r = sim->record;
    if (r == NULL)
        return;
    free(r->node);
    free(r->rtt);
    free(r->hold);
    free(r);
    sim->record = NULL;
}

static void add_hold(struct sim *sim, uint32_t node, uint64_t us, uint8_t how)
{
    struct sim_record *r = sim->record;
    if (!grow((void **)&r->hold, &r->cap_hold, r->n_hold, sizeof(*r->hold)))
        return;
    r->hold[r->n_hold].node = node;
    r->hold[r->n_hold].us = us;
    r->hold[r->n_hold].how = how;
    r->n_hold++;
}

static void look_rtt(struct sim *sim, const struct sim_node *nd, struct rec_node *rn)
{
    struct sim_record *r = sim->record;
    unsigned i;
    for (i = 0; i < MIP_RELAY_FLOWS; i++) {
        const struct mip_relay_flow *f = &nd->relay->flows[i];
        if (!f->used || !(f->flags & MIP_RELAY_F_RTT_OK) || !mip_addr_eq(&f->src, &r->src) ||
            !mip_addr_eq(&f->dst, &r->dst) || f->rtt_q8 == rn->rtt_q8[i])
            continue;
        rn->rtt_q8[i] = f->rtt_q8;
        if (!grow((void **)&r->rtt, &r->cap_rtt, r->n_rtt, sizeof(*r->rtt)))
            return;
        r->rtt[r->n_rtt].t_us = sim->now_us;
        r->rtt[r->n_rtt].node = nd->id;
        r->rtt[r->n_rtt].rtt_q8 = f->rtt_q8;
        r->n_rtt++;
    }
}

/* A sent cache slot's life: from the moment the relay handed its segment on
 * (forwarded, released or resent) to the end of that wait. */
static void look_slots(struct sim *sim, const struct sim_node *nd, struct rec_node *rn)
{
    uint32_t implicit = mip_relay_stat(nd->relay, MIP_RELAY_STAT_implicit_acks);
    uint32_t cleared = mip_relay_stat(nd->relay, MIP_RELAY_STAT_tcp_acks_cleared);
    unsigned i;
    for (i = 0; i < MIP_RELAY_SLOTS; i++) {
        const struct mip_relay_slot *sl = &nd->relay->slots[i];
        struct rec_slot *o = &rn->slot[i];
        bool now_cached = sl->used == MIP_RELAY_SLOT_CACHE && !sl->unsent;
        if (o->cached && (!now_cached || sl->seq != o->seq)) {
            uint8_t how = implicit != rn->implicit ? HOW_OVERHEARD :
                          cleared != rn->acks_cleared ? HOW_ACK : HOW_OTHER;
            add_hold(sim, nd->id, sim->now_us - o->since_us, how);
            o->cached = 0;
        } else if (o->cached && sl->rexmits != o->rexmits) {
            /* the timer ran out and the segment went again: a new wait */
            add_hold(sim, nd->id, sim->now_us - o->since_us, HOW_TIMEOUT);
            o->cached = 0;
        }
        if (now_cached && !o->cached) {
            o->cached = HOLD_SENT;
            o->seq = sl->seq;
            o->rexmits = sl->rexmits;
            o->since_us = sim->now_us;
        }
    }
    rn->implicit = implicit;
    rn->acks_cleared = cleared;
}

void sim_record_node(struct sim *sim, struct sim_node *nd)
{
    struct sim_record *r = sim->record;
    struct rec_node *rn;
    if (r == NULL || sim->sc->relay.mode == MIP_RELAY_OFF)
        return;
    rn = &r->node[nd->id];
    if (sim->sc->record_relay_rtt)
        look_rtt(sim, nd, rn);
    if (sim->sc->record_cache_hold)
        look_slots(sim, nd, rn);
}

void sim_record_write(struct sim *sim, struct sj_writer *w)
{
    struct sim_record *r = sim->record;
    size_t k;
    if (r == NULL)
        return;
    sj_w_key(w, "records");
    sj_w_begin_object(w);
    if (sim->sc->record_relay_rtt) {
        sj_w_key(w, "relay_rtt");
        sj_w_begin_array(w);
        for (k = 0; k < r->n_rtt; k++) {
            sj_w_begin_array(w);
            sj_w_double(w, (double)r->rtt[k].t_us / 1e3);
            sj_w_uint(w, r->rtt[k].node);
            sj_w_double(w, (double)r->rtt[k].rtt_q8 / 256.0);
            sj_w_end_array(w);
        }
        sj_w_end_array(w);
    }
    if (sim->sc->record_cache_hold) {
        sj_w_key(w, "cache_hold");
        sj_w_begin_array(w);
        for (k = 0; k < r->n_hold; k++) {
            sj_w_begin_array(w);
            sj_w_uint(w, r->hold[k].node);
            sj_w_double(w, (double)r->hold[k].us / 1e3);
            sj_w_string(w, how_names[r->hold[k].how]);
            sj_w_end_array(w);
        }
        sj_w_end_array(w);
    }
    sj_w_end_object(w);
}
