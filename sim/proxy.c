/*
 * cctrl's split-and-merge proxies on simulated nodes (scenario key "proxy";
 * apps/cctrl_proxy.h, docs/RELAY.md "cctrl split and merge"): the code of
 * apps/ started at build on the takeover nodes (client side) and on the
 * peer (server side), after the flows and the relay, so its hooks chain in
 * front of the relay's and its TCP has the flows' node settings.
 *
 * A reboot starts the node's stack, TCP and relay again, not its proxy: a
 * rebooted proxy node forwards SYNs untouched from then on.
 */
#include "sim.h"
#include "cctrl_proxy.h"
#include "json.h"
#include <stdlib.h>
#include <string.h>

struct sim_proxy {
    uint32_t n;                     /* proxies */
    uint32_t id[SIM_PROXY_NODES_MAX + 1u];
    struct mip_cctrl_proxy *p;      /* n of them */
};

#if MIP_CCTRL_PROXY

static bool start(struct sim *sim, struct sim_proxy *px, uint32_t id, bool client, char *err,
                  size_t errlen)
{
    const struct sim_proxy_spec *sp = &sim->sc->proxy;
    struct sim_node *nd = &sim->node[id];
    struct mip_cctrl_proxy_cfg cfg;
    struct mip_addr peer;
    mip_status st;
    uint32_t i;
    for (i = 0; i < px->n; i++)
        if (px->id[i] == id)
            return true;            /* listed twice */
    if (client && !sim_routes_pair(sim, id, sp->peer)) {
        snprintf(err, errlen, "proxy: no route from node %u to the peer %u", id, sp->peer);
        return false;
    }
    if (!nd->tcp_on) {
        (void)mip_tcp_init(&nd->tcp, &nd->stack);
        nd->tcp_on = true;
    }
    if (sp->max_retries != 0u)
        nd->tcp.max_retries = sp->max_retries;
    mip_cctrl_proxy_cfg_default(&cfg);
    sim_node_address(sim, sp->peer, &peer);
    cfg.port = client ? sp->port : 0u;
    cfg.peer = peer;
    cfg.tunnel_port = sp->tunnel_port;
    cfg.tunnel_end = !client;
    cfg.subflows = sp->subflows;
    cfg.chunk = sp->chunk;
    cfg.hold = sp->hold;
    cfg.setup_ms = (uint32_t)(sp->setup_s * 1000.0 + 0.5);
    cfg.idle_ms = (uint32_t)(sp->idle_s * 1000.0 + 0.5);
    cfg.setup_ms = cfg.setup_ms == 0u ? 1u : cfg.setup_ms;
    cfg.idle_ms = cfg.idle_ms == 0u ? 1u : cfg.idle_ms;
    cfg.tcp.cwnd_cap = sp->cwnd_cap;
    if (!sp->delayed_ack)
        cfg.tcp.delack_ms = 0;
    cfg.tcp.sack = cfg.tcp.sack && sp->options;
    cfg.tcp.timestamps = cfg.tcp.timestamps && sp->options;
    cfg.tcp.limited_transmit = sp->limited_transmit;
    cfg.tcp.dsack = sp->dsack;
    cfg.tcp.early_retransmit = sp->early_retransmit;
    cfg.tcp.tlp = sp->tlp;
    st = mip_cctrl_proxy_init(&px->p[px->n], &nd->stack, &nd->tcp, &cfg);
    if (st != MIP_OK) {
        snprintf(err, errlen, "proxy: node %u cannot start it: %s%s", id, mip_status_name(st),
                 st == MIP_ERR_INUSE ? " (a flow listens on its port there)" : "");
        return false;
    }
    px->id[px->n++] = id;
    return true;
}

bool sim_proxy_build(struct sim *sim, char *err, size_t errlen)
{
    const struct sim_proxy_spec *sp = &sim->sc->proxy;
    struct sim_proxy *px;
    uint32_t i;
    if (!sp->on)
        return true;
    px = calloc(1, sizeof(*px));
    if (px != NULL)
        px->p = calloc(sp->n_nodes + 1u, sizeof(*px->p));
    if (px == NULL || px->p == NULL) {
        free(px);
        snprintf(err, errlen, "out of memory for the proxies");
        return false;
    }
    sim->proxy = px;
    for (i = 0; i < sp->n_nodes; i++)
        if (!start(sim, px, sp->nodes[i], true, err, errlen))
            return false;
    /* the peer opens the real connections to the flows' servers */
    for (i = 0; i < sim->sc->n_flows; i++) {
        const struct sim_flow_spec *fs = &sim->sc->flows[i];
        if (fs->kind == SIM_FLOW_TCP && fs->port == sp->port &&
            !sim_routes_pair(sim, sp->peer, fs->dst)) {
            snprintf(err, errlen, "proxy: no route from the peer %u to node %u", sp->peer, fs->dst);
            return false;
        }
    }
    return start(sim, px, sp->peer, false, err, errlen);
}

void sim_proxy_write(struct sim *sim, struct sj_writer *w)
{
    const struct sim_proxy *px = sim->proxy;
    uint32_t i, k;
    if (px == NULL)
        return;
    sj_w_key(w, "proxy");
    sj_w_begin_object(w);
    sj_w_key(w, "nodes");
    sj_w_begin_array(w);
    for (i = 0; i < px->n; i++) {
        sj_w_begin_object(w);
        sj_w_member_uint(w, "node", px->id[i]);
        sj_w_member_uint(w, "streams_open", mip_cctrl_proxy_streams(&px->p[i]));
        for (k = 0; k < MIP_CCTRL_PROXY_STAT_COUNT; k++)
            sj_w_member_uint(w, mip_cctrl_proxy_stat_name((enum mip_cctrl_proxy_stat)k),
                             px->p[i].stat[k]);
        sj_w_end_object(w);
    }
    sj_w_end_array(w);
    sj_w_end_object(w);
}

#else

bool sim_proxy_build(struct sim *sim, char *err, size_t errlen)
{
    if (!sim->sc->proxy.on)
        return true;
    snprintf(err, errlen, "proxy: this build has no cctrl (MIP_CONF_FORWARD, MIP_CONF_RELAY_MODES)");
    return false;
}

void sim_proxy_write(struct sim *sim, struct sj_writer *w)
{
    (void)sim;
    (void)w;
}

#endif

void sim_proxy_free(struct sim *sim)
{
    if (sim->proxy == NULL)
        return;
    free(sim->proxy->p);
    free(sim->proxy);
    sim->proxy = NULL;
}
