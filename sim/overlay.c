/*
 * The application overlay on simulated nodes (scenario key "overlay";
 * apps/overlay.h, docs/OVERLAY.md): the library of apps/ started on every
 * node's stack at build, the same code moteip-host runs. Every node but
 * the sink has a sensor whose reading is its node id (so the sink's sum is
 * known); the sink subscribes at time 0.
 *
 * Metrics: rounds reported by the sink; readings delivered (the sum of
 * their counts) against readings taken by the sensors; exact rounds (every
 * sensor counted, the right sum, min and max); and the latency of a
 * reading, from its taking to the sink's report of its round (the mean
 * over the readings taken since the previous report: a round's readings
 * are taken within its schedule, before the next round's, when
 * depth * slot_ms < interval).
 */
#include "sim.h"
#include "overlay.h"
#include "json.h"
#include <stdlib.h>
#include <string.h>

struct sim_overlay {
    struct sim *sim;
    struct mip_overlay *node;       /* one per node */
    uint32_t sensors;               /* nodes with a sensor */
    int64_t  want_sum;              /* the sum of their readings, */
    int16_t  expect_min, expect_max;    /* the smallest and largest */
    uint64_t rounds, rounds_exact, readings, taken;
    uint64_t taken_since;           /* readings taken since the last report ... */
    double   taken_us_sum;          /* ... and the sum of their times */
    double   latency_sum_ms;
    uint64_t latency_n;
};

/* A node's reading: its id, kept in int16. */
static int16_t reading_of(uint32_t id)
{
    return (int16_t)(id % 30000u);
}

static bool read_value(void *ctx, uint8_t attr, mip_time_t now, int16_t *v)
{
    struct sim_node *nd = ctx;
    struct sim_overlay *ov = nd->sim->overlay;
    (void)now;
    if (nd->id == nd->sim->sc->overlay.sink || attr != nd->sim->sc->overlay.attr)
        return false;
    *v = reading_of(nd->id);
    ov->taken++;
    ov->taken_since++;
    ov->taken_us_sum += (double)nd->sim->now_us;
    return true;
}

static void on_result(void *ctx, uint8_t attr, uint16_t epoch, const struct mip_ovl_agg *agg,
                      mip_time_t now)
{
    struct sim_node *nd = ctx;
    struct sim_overlay *ov = nd->sim->overlay;
    (void)attr;
    (void)epoch;
    (void)now;
    ov->rounds++;
    ov->readings += agg->count;
    if (agg->count == ov->sensors && agg->sum == ov->want_sum && agg->min == ov->expect_min &&
        agg->max == ov->expect_max)
        ov->rounds_exact++;
    if (ov->taken_since > 0u && agg->count > 0u) {
        double mean_taken = ov->taken_us_sum / (double)ov->taken_since;
        ov->latency_sum_ms += ((double)nd->sim->now_us - mean_taken) / 1e3 * agg->count;
        ov->latency_n += agg->count;
    }
    ov->taken_since = 0;
    ov->taken_us_sum = 0;
}

bool sim_overlay_build(struct sim *sim, char *err, size_t errlen)
{
    const struct sim_overlay_spec *sp = &sim->sc->overlay;
    struct sim_overlay *ov;
    uint32_t i;
    if (!sp->on)
        return true;
    ov = calloc(1, sizeof(*ov));
    if (ov != NULL)
        ov->node = calloc(sim->n, sizeof(*ov->node));
    if (ov == NULL || ov->node == NULL) {
        free(ov);
        snprintf(err, errlen, "out of memory for the overlay");
        return false;
    }
    sim->overlay = ov;
    ov->sim = sim;
    ov->expect_min = INT16_MAX;
    ov->expect_max = INT16_MIN;
    for (i = 0; i < sim->n; i++) {
        struct sim_node *nd = &sim->node[i];
        struct mip_overlay_cfg cfg;
        mip_status st;
        int16_t v = reading_of(i);
        if (i != sp->sink) {
            ov->sensors++;
            ov->want_sum += v;
            if (v < ov->expect_min)
                ov->expect_min = v;
            if (v > ov->expect_max)
                ov->expect_max = v;
        }
        memset(&cfg, 0, sizeof(cfg));
        cfg.id = (uint16_t)i;
        cfg.netif = nd->netif;
        cfg.read = read_value;
        cfg.result = on_result;
        cfg.ctx = nd;
        st = mip_overlay_start(&ov->node[i], &nd->stack, &cfg);
        if (st != MIP_OK) {
            snprintf(err, errlen, "overlay: node %u cannot start it: %s%s", i, mip_status_name(st),
                     st == MIP_ERR_INUSE ? " (a flow or service has UDP port 7480)"
                     : st == MIP_ERR_NOBUFS ? " (the stack's pollers are taken: TCP and CoAP)" : "");
            return false;
        }
    }
    if (sim->n > 65535u) {
        snprintf(err, errlen, "overlay: at most 65535 nodes (16-bit overlay ids)");
        return false;
    }
    {
        struct sim_node *snk = &sim->node[sp->sink];
        mip_status st = mip_overlay_subscribe(&ov->node[sp->sink], sp->attr,
                                              (uint32_t)(sp->interval_s * 1000.0 + 0.5), sp->depth,
                                              sp->slot_ms, (uint32_t)(sp->lifetime_s * 1000.0 + 0.5),
                                              sim_ms(sim));
        if (st != MIP_OK) {
            snprintf(err, errlen, "overlay: the sink cannot subscribe: %s", mip_status_name(st));
            return false;
        }
        sim_node_schedule(sim, snk);
    }
    return true;
}

void sim_overlay_write(struct sim *sim, struct sj_writer *w)
{
    const struct sim_overlay *ov = sim->overlay;
    uint64_t itx = 0, dtx = 0, drops[MIP_OVL_DROP_COUNT_] = { 0 }, late = 0;
    uint32_t i, d;
    if (ov == NULL)
        return;
    for (i = 0; i < sim->n; i++) {
        const struct mip_overlay *o = &ov->node[i];
        itx += o->interests_tx;
        dtx += o->data_tx;
        late += o->late_readings;
        for (d = 0; d < MIP_OVL_DROP_COUNT_; d++)
            drops[d] += o->drops[d];
    }
    sj_w_key(w, "overlay");
    sj_w_begin_object(w);
    sj_w_member_uint(w, "sensors", ov->sensors);
    sj_w_member_uint(w, "rounds", ov->rounds);
    sj_w_member_uint(w, "rounds_exact", ov->rounds_exact);
    sj_w_member_uint(w, "readings_taken", ov->taken);
    sj_w_member_uint(w, "readings_delivered", ov->readings);
    sj_w_member_uint(w, "late_readings", late);
    sj_w_member_double(w, "delivery_ratio", ov->taken ? (double)ov->readings / (double)ov->taken : 0.0);
    sj_w_member_double(w, "latency_mean_ms", ov->latency_n ? ov->latency_sum_ms / (double)ov->latency_n : 0.0);
    sj_w_member_uint(w, "interests_tx", itx);
    sj_w_member_uint(w, "data_tx", dtx);
    sj_w_key(w, "drops");
    sj_w_begin_object(w);
    for (d = 0; d < MIP_OVL_DROP_COUNT_; d++)
        sj_w_member_uint(w, mip_overlay_drop_name((enum mip_overlay_drop)d), drops[d]);
    sj_w_end_object(w);
    sj_w_end_object(w);
}

void sim_overlay_free(struct sim *sim)
{
    if (sim->overlay == NULL)
        return;
    free(sim->overlay->node);
    free(sim->overlay);
    sim->overlay = NULL;
}
