/*
 * The run: sim_build makes the nodes (node.c), the medium, the routes, the
 * apps and the rest, and hands node.c what it needs from them as a table
 * of hooks (struct sim_node_env), so node.c calls no module back; the
 * event loop hands each event to its module.
 */
#include "sim.h"
#include "border.h"
#include "external.h"
#include <stdlib.h>
#include <string.h>

/* After a reboot: the node's static routes from the scenario again, and
 * the apps restart what runs at boot. */
static void node_rebooted(struct sim *sim, struct sim_node *nd)
{
    sim_routes_node_static(sim, nd->id);
    sim_apps_node_reboot(sim, nd);
}

static void node_record(struct sim *sim, struct sim_node *nd)
{
    if (sim->record != NULL)
        sim_record_node(sim, nd);
}

static bool attach_leaves(struct sim *sim)
{
    uint32_t i, p;
    for (i = 0; i < sim->n; i++) {
        if (sim->node[i].mac.cfg.rdc.kind != MIP_RDC_LEAF)
            continue;
        p = sim->node[i].mac.cfg.rdc.parent;
        if (sim_link_prr(sim, i, p, sim->sc->frame_max) <= 0.0 ||
            sim_link_prr(sim, p, i, sim->sc->frame_max) <= 0.0) {
            snprintf(sim->err, sizeof(sim->err), "mac: leaf %u's rdc.parent %u is not in its "
                     "radio range both ways", i, p);
            return false;
        }
        if (!sim_node_attach_leaf(sim, i, p))
            return false;
    }
    return true;
}

/* link.addressing "6lowpan-nd": node 0 is the 6LBR (its address static,
 * announcing link.prefix as the PIO and as context 0, compression on);
 * every other node is a host. Lifetimes: RFC 4861's defaults for the PIO
 * (30 days valid, 7 preferred would outlast any run: a day and half a day
 * here), 30 min router lifetime, contexts for an hour. */
static bool nd6lo_start(struct sim *sim)
{
    struct mip_nd6lo_router_config *c = &sim->node[0].nd_router;
    struct mip_addr a;
    uint32_t i;
    mip_status st;
    memset(c, 0, sizeof(*c));
    memcpy(c->prefix, sim->sc->prefix, 8);
    c->prefix_len = 64;
    c->valid_s = 86400;
    c->preferred_s = 43200;
    c->router_lifetime_s = 1800;
    c->abro_version = 1;
    sim_node_address(sim, 0, &a);
    memcpy(c->lbr, a.bytes, 16);
    c->max_reg_lifetime_min = 60;
    c->ctx_count = 1;
    c->ctx[0].cid = 0;
    c->ctx[0].compress = true;
    c->ctx[0].lifetime_min = 60;
    memcpy(c->ctx[0].prefix, sim->sc->prefix, 8);
    for (i = 0; i < sim->n; i++) {
        struct sim_node *nd = &sim->node[i];
        st = i == 0 ? mip_nd6lo_router_start(&nd->stack, nd->netif, c)
                    : mip_nd6lo_host_start(&nd->stack, nd->netif, sim_ms(sim));
        if (st != MIP_OK) {
            snprintf(sim->err, sizeof(sim->err), "node %u: 6lowpan-nd: %s", i,
                     mip_status_name(st));
            return false;
        }
    }
    return true;
}

bool sim_build(struct sim *sim, struct sim_scenario *sc)
{
    uint32_t i;
    memset(sim, 0, sizeof(*sim));
    sim->sc = sc;
    sim_evq_init(&sim->q);
    sim->end_us = (uint64_t)(sc->duration_s * 1e6);
    sim->n = sc->n_nodes;
    sim->node = calloc(sim->n, sizeof(*sim->node));
    sim->buf_mem = calloc(sim->n, SIM_NODE_BUF_BYTES);
    sim->tx_cap = 64;
    sim->tx = calloc(sim->tx_cap, sizeof(*sim->tx));
    if (sim->node == NULL || sim->buf_mem == NULL || sim->tx == NULL) {
        snprintf(sim->err, sizeof(sim->err), "out of memory for %u nodes", sim->n);
        return false;
    }
    sim->env.radio = &sim_radio_driver;
    sim->env.frame_out = sim_apps_frame_out;
    sim->env.datagram_in = sim_apps_datagram_in;
    sim->env.sample_cc = sim_apps_sample_cc;
    sim->env.record = node_record;
    sim->env.rebooted = node_rebooted;
    for (i = 0; i < sim->n; i++)
        if (!sim_node_init(sim, &sim->node[i], i, sim->err, sizeof(sim->err)))
            return false;
    if (!sim_medium_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (!sim_external_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (!attach_leaves(sim))
        return false;
    if (!sim_routes_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (!sim_apps_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (!sim_services_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (!sim_dyn_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (sc->border.on && !sim_border_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (!sim_misbehave_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (!sim_overlay_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (!sim_proxy_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (!sim_record_init(sim)) {
        snprintf(sim->err, sizeof(sim->err), "out of memory for the records");
        return false;
    }
    if (sc->addressing == SIM_ADDR_ND6LO && !nd6lo_start(sim))
        return false;
    /* A duty-cycling MAC has deadlines from the start (its channel checks);
     * NullRDC nodes wait for their first frame or app event as before
     * (6LoWPAN-ND's first solicitation is one). */
    for (i = 0; i < sim->n; i++)
        if (sim->node[i].mac.cfg.rdc.kind != MIP_RDC_NULLRDC || sc->routing == SIM_ROUTING_RPL ||
            sc->routing == SIM_ROUTING_GEO ||
            sc->addressing == SIM_ADDR_ND6LO)
            sim_node_schedule(sim, &sim->node[i]);
    return true;
}

void sim_event_run(struct sim *sim, const struct sim_event *ev)
{
    struct sim_node *nd = &sim->node[ev->node];
    sim->now_us = ev->time_us;
    switch (ev->kind) {
    case SIM_EV_STACK_POLL:
        if (ev->time_us != nd->stack_due)
            return;                     /* stale */
        nd->stack_due = UINT64_MAX;
        sim->events++;
        sim_node_schedule(sim, nd);
        break;
    case SIM_EV_MAC_POLL:
        if (ev->time_us != nd->mac_due)
            return;
        nd->mac_due = UINT64_MAX;
        sim->events++;
        sim_node_schedule(sim, nd);
        break;
    case SIM_EV_TX_END:
        sim->events++;
        sim_medium_tx_end(sim, ev->arg);
        break;
    case SIM_EV_APP:
        sim->events++;
        sim_app_event(sim, ev->arg);
        break;
    case SIM_EV_MISBEHAVE:
        sim->events++;
        sim_misbehave_event(sim, ev->arg);
        break;
    case SIM_EV_DYN:
    case SIM_EV_ROUTES:
    case SIM_EV_PROBE:
        sim->events++;
        sim_dyn_event(sim, ev->kind, ev->arg);
        break;
    default:
        break;
    }
}

bool sim_flows_finished(const struct sim *sim)
{
    return sim->n_flows > 0 && sim->flows_done == sim->n_flows && sim->sc->stop_when_done;
}

void sim_run_end(struct sim *sim)
{
    if (sim->now_us < sim->end_us && !sim_flows_finished(sim))
        sim->now_us = sim->end_us;      /* nothing left to happen: the run lasts its time */
    /* close the energy books at the final time */
    for (uint32_t i = 0; i < sim->n; i++)
        sim_radio_account(sim, &sim->node[i]);
}

void sim_run(struct sim *sim)
{
    struct sim_event ev;
    while (sim_evq_pop(&sim->q, &ev)) {
        if (ev.time_us > sim->end_us)
            break;
        sim_event_run(sim, &ev);
        if (sim_flows_finished(sim))
            break;
    }
    sim_run_end(sim);
}

void sim_free(struct sim *sim)
{
    uint32_t i;
    if (sim->node != NULL)
        for (i = 0; i < sim->n; i++) {
            free(sim->node[i].nbr);
            free(sim->node[i].coap);    /* a sensor flow's (sensor.c) */
            free(sim->node[i].relay);
            free(sim->node[i].rpl);
            free(sim->node[i].geo);
            free(sim->node[i].rdc_held);
        }
    free(sim->node);
    free(sim->buf_mem);
    free(sim->tx);
    sim_apps_free(sim);
    sim_services_free(sim);
    sim_border_free(sim);
    sim_external_free(sim);
    sim_record_free(sim);
    sim_misbehave_free(sim);
    sim_overlay_free(sim);
    sim_proxy_free(sim);
    sim_dyn_free(sim);
    sim_evq_free(&sim->q);
}
