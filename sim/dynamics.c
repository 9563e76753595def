/*
 * Dynamics: the scenario's "events" (node down, node up = a reboot, link
 * quality, move), applied at their times, and the metrics that show what
 * they did: per event and flow the window until the next event (bytes,
 * the longest stall, the time until the flow delivered again, RTOs,
 * losses), each flow's path stretch against the shortest path on the
 * connectivity graph, and route-table occupancy.
 *
 * With routing "shortest" the simulator is the routing protocol, an
 * omniscient one: routing.repair_delay_s after each event it computes
 * every flow's routes again from the network as it is then (sim/routes.c,
 * sim_routes_rebuild). That is the "ideal routing" arm a real protocol
 * (RPL) is compared with: until the delay has passed, packets follow the
 * old routes and those through a dead node are lost. "static" routes
 * never change (a rebooted node gets its scenario routes back).
 *
 * A routing arm that nodes join (RPL) gives its view of a node
 * (sim_dyn_set_joined): a probe asks it about every node that is up every
 * 100 ms until all have joined (the convergence time) and again after
 * each event (the time to rejoin).
 *
 * Nothing here runs per frame or per timer: events, route rebuilds and
 * probes cost O(n + links) each (probes only while some node is out),
 * deliveries O(1).
 */
#include "sim.h"
#include "json.h"
#include <stdlib.h>
#include <string.h>

struct dyn_flow {
    /* path stretch: hops of delivered datagrams and, at each delivery,
     * the shortest path's hops on the connectivity graph of that moment */
    uint64_t hops_n, hops_sum, short_sum;
    uint32_t hops_max;
    uint32_t short_hops;            /* now; 0: no path */
    /* the open window (the latest event's) */
    bool     active;                /* started and not done at its start */
    struct sim_flow_counts c0;
    uint64_t last_us, stall_us;
    uint64_t stall_end_us;          /* the delivery that ended the longest
                                       stall; UINT64_MAX: it never ended */
};

struct dyn_rec {                    /* one flow over one event's window, closed */
    bool     active;
    bool     done;                  /* the flow ended inside the window */
    uint64_t bytes, stall_us, resume_us;    /* resume UINT64_MAX: never */
    uint32_t timeouts, rexmits;
    uint64_t seg_tx, seg_rx;
    uint32_t sent, received;
};

struct sim_dyn {
    /* convergence (sim->joined): the first time every node that is up had
     * joined, and per event the time from it until they had again */
    uint64_t converged_us;          /* UINT64_MAX: not yet */
    uint64_t *reconverged_us;       /* per event; UINT64_MAX: not (yet) */
    bool     probing;               /* a probe is in the queue */
    uint64_t probe_from_us;         /* when the network was last known broken */
    size_t   awaiting;              /* the event whose rejoining is timed; SIZE_MAX: none */
    struct dyn_flow *flow;
    struct dyn_rec *rec;            /* n_events x n_flows */
    uint64_t *routes_us;            /* per event: when the shortest arm recomputed (or MAX) */
    bool     *applied;              /* per event: the run got that far */
    size_t   cur;                   /* the event whose window is open; SIZE_MAX: none */
    uint32_t *dist, *queue;         /* BFS scratch */
    uint32_t *next, *stack;         /* the RPL view's scratch */
    uint8_t  *memo, *joined;
    uint64_t end_us;                /* the last window closed at (for the writer) */
    uint32_t root_nodes_peak;       /* RPL non-storing: the root's table, most in use */
};

static const char *const dyn_names[SIM_DYN_KINDS] = { "node_down", "node_up", "link", "move" };

/* A usable link both ways: what routing can use (sim/routes.c's rule
 * without the sleepy-leaf refinement, which never shortens a path). */
static bool usable(struct sim *sim, uint32_t a, const struct sim_neighbor *e)
{
    uint16_t fb = sim->sc->frame_max;
    return e->decodable && !sim->node[e->node].down &&
           sim_link_prr(sim, a, e->node, fb) > 0.0 && sim_link_prr(sim, e->node, a, fb) > 0.0;
}

/* Hop counts from root over usable links (BFS); UINT32_MAX: unreached.
 * A node's count is final when it is found, so the search stops once
 * `target` has one and goes on from there for the next target (the
 * queue's head and tail are the caller's): a sink's reporters cost the
 * area they span, not the whole network each. */
static void bfs_start(struct sim *sim, uint32_t root, uint32_t *dist, uint32_t *queue,
                      uint32_t *head, uint32_t *tail)
{
    uint32_t i;
    *head = *tail = 0;
    for (i = 0; i < sim->n; i++)
        dist[i] = UINT32_MAX;
    if (sim->node[root].down)
        return;
    dist[root] = 0;
    queue[(*tail)++] = root;
}

static void bfs_until(struct sim *sim, uint32_t target, uint32_t *dist, uint32_t *queue,
                      uint32_t *head, uint32_t *tail)
{
    while (*head < *tail && dist[target] == UINT32_MAX) {
        uint32_t u = queue[(*head)++];
        size_t k;
        for (k = 0; k < sim->node[u].n_nbr; k++) {
            const struct sim_neighbor *e = &sim->node[u].nbr[k];
            if (dist[e->node] == UINT32_MAX && usable(sim, u, e)) {
                dist[e->node] = dist[u] + 1u;
                queue[(*tail)++] = e->node;
            }
        }
    }
}

/* Every flow's shortest hop count now (one BFS per destination, as far
 * as its sources). */
static void shortest_hops(struct sim *sim)
{
    struct sim_dyn *d = sim->dyn;
    uint32_t root = UINT32_MAX, head = 0, tail = 0;
    size_t k;
    for (k = 0; k < sim->n_flows; k++) {
        const struct sim_flow_spec *fs = &sim->sc->flows[k];
        if (fs->dst != root) {
            bfs_start(sim, fs->dst, d->dist, d->queue, &head, &tail);
            root = fs->dst;
        }
        bfs_until(sim, fs->src, d->dist, d->queue, &head, &tail);
        d->flow[k].short_hops = d->dist[fs->src] == UINT32_MAX ? 0u : d->dist[fs->src];
    }
}

static uint32_t rpl_root_nodes(const struct sim *sim);
static void rpl_joined_view(struct sim *sim, uint8_t *joined);

/* Routes a node's table holds that lead through a gateway (connected
 * prefixes left out), and the most it held at any sample. */
uint32_t sim_node_routes(const struct sim_node *nd)
{
    uint32_t n = 0, i;
    for (i = 0; i < MIP_ROUTE_MAX; i++)
        if (nd->stack.route[i].prefix.family != MIP_AF_NONE &&
            nd->stack.route[i].gateway.family != MIP_AF_NONE)
            n++;
    return n;
}

static void sample_routes(struct sim *sim)
{
    uint32_t i;
    if (sim->sc->routing == SIM_ROUTING_RPL) {
        uint32_t r = rpl_root_nodes(sim);
        if (r > sim->dyn->root_nodes_peak)
            sim->dyn->root_nodes_peak = r;
    }
    for (i = 0; i < sim->n; i++) {
        uint32_t r = sim_node_routes(&sim->node[i]);
        if (r > sim->node[i].route_peak)
            sim->node[i].route_peak = (uint8_t)r;
    }
}

bool sim_dyn_build(struct sim *sim, char *err, size_t errlen)
{
    const struct sim_scenario *sc = sim->sc;
    struct sim_dyn *d = calloc(1, sizeof(*d));
    size_t k;
    if (d == NULL)
        goto oom;
    sim->dyn = d;
    d->cur = SIZE_MAX;
    d->flow = calloc(sim->n_flows ? sim->n_flows : 1u, sizeof(*d->flow));
    d->rec = calloc(sc->n_events * sim->n_flows + 1u, sizeof(*d->rec));
    d->routes_us = calloc(sc->n_events + 1u, sizeof(*d->routes_us));
    d->applied = calloc(sc->n_events + 1u, sizeof(*d->applied));
    d->reconverged_us = calloc(sc->n_events + 1u, sizeof(*d->reconverged_us));
    d->converged_us = UINT64_MAX;
    d->awaiting = SIZE_MAX;
    d->dist = malloc(sim->n * sizeof(*d->dist));
    d->queue = malloc(sim->n * sizeof(*d->queue));
    d->next = malloc(sim->n * sizeof(*d->next));
    d->stack = malloc(sim->n * sizeof(*d->stack));
    d->memo = malloc(sim->n);
    d->joined = malloc(sim->n);
    if (d->flow == NULL || d->rec == NULL || d->routes_us == NULL || d->applied == NULL ||
        d->reconverged_us == NULL || d->dist == NULL || d->queue == NULL || d->next == NULL ||
        d->stack == NULL || d->memo == NULL || d->joined == NULL)
        goto oom;
    shortest_hops(sim);
    sample_routes(sim);
    if (sc->routing == SIM_ROUTING_RPL)
        sim_dyn_set_joined(sim, rpl_joined_view);
    for (k = 0; k < sc->n_events; k++) {
        d->routes_us[k] = UINT64_MAX;
        d->reconverged_us[k] = UINT64_MAX;
        if (!sim_evq_push(&sim->q, sc->events[k].at_us, SIM_EV_DYN, sc->events[k].node,
                          (uint32_t)k))
            goto oom;
    }
    return true;
oom:
    snprintf(err, errlen, "out of memory for the events");
    return false;
}

void sim_dyn_free(struct sim *sim)
{
    struct sim_dyn *d = sim->dyn;
    free(sim->routes_made);
    sim->routes_made = NULL;
    if (d == NULL)
        return;
    free(d->flow);
    free(d->rec);
    free(d->routes_us);
    free(d->applied);
    free(d->reconverged_us);
    free(d->dist);
    free(d->queue);
    free(d->next);
    free(d->stack);
    free(d->memo);
    free(d->joined);
    free(d);
    sim->dyn = NULL;
}

/* --- the window of each event -------------------------------------------------- */

static void window_open(struct sim *sim)
{
    struct sim_dyn *d = sim->dyn;
    size_t k;
    for (k = 0; k < sim->n_flows; k++) {
        struct dyn_flow *f = &d->flow[k];
        sim_apps_flow_counts(sim, (uint32_t)k, &f->c0);
        f->active = f->c0.started && !f->c0.done;
        /* the stall around the event runs from the last delivery before it */
        f->last_us = f->c0.delivered > 0u ? f->c0.last_rx_us : sim->now_us;
        f->stall_us = 0;
        f->stall_end_us = UINT64_MAX;
    }
}

static uint64_t minus(uint64_t now, uint64_t then)
{
    return now > then ? now - then : 0u;    /* a reboot reset the counter */
}

static void window_close(struct sim *sim, uint64_t t)
{
    struct sim_dyn *d = sim->dyn;
    size_t k;
    if (d->cur == SIZE_MAX)
        return;
    for (k = 0; k < sim->n_flows; k++) {
        struct dyn_flow *f = &d->flow[k];
        struct dyn_rec *r = &d->rec[d->cur * sim->n_flows + k];
        struct sim_flow_counts c;
        sim_apps_flow_counts(sim, (uint32_t)k, &c);
        r->active = f->active;
        if (!f->active)
            continue;
        /* a flow still waiting at the window's end, or one that gave up
         * waiting inside it, stalled until then and did not resume */
        if (!c.complete) {
            uint64_t until = c.done ? c.done_us : t;
            if (until >= f->last_us && until - f->last_us >= f->stall_us) {
                f->stall_us = until - f->last_us;
                f->stall_end_us = UINT64_MAX;
            }
        }
        r->done = c.done;
        r->bytes = minus(c.delivered, f->c0.delivered);
        r->stall_us = f->stall_us;
        r->resume_us = f->stall_end_us == UINT64_MAX ? UINT64_MAX
                                                     : f->stall_end_us - sim->sc->events[d->cur].at_us;
        r->timeouts = (uint32_t)minus(c.timeouts, f->c0.timeouts);
        r->rexmits = (uint32_t)minus(c.rexmits, f->c0.rexmits);
        r->seg_tx = minus(c.data_tx, f->c0.data_tx);
        r->seg_rx = minus(c.data_rx, f->c0.data_rx);
        r->sent = (uint32_t)minus(c.sent, f->c0.sent);
        r->received = (uint32_t)minus(c.received, f->c0.received);
    }
    d->cur = SIZE_MAX;
    d->end_us = t;
}

void sim_dyn_delivered(struct sim *sim, uint32_t flow)
{
    struct sim_dyn *d = sim->dyn;
    struct dyn_flow *f = &d->flow[flow];
    if (d->cur == SIZE_MAX || !f->active)
        return;
    if (sim->now_us - f->last_us > f->stall_us) {
        f->stall_us = sim->now_us - f->last_us;
        f->stall_end_us = sim->now_us;
    }
    f->last_us = sim->now_us;
}

void sim_dyn_hops(struct sim *sim, uint32_t flow, uint32_t hops)
{
    struct dyn_flow *f = &sim->dyn->flow[flow];
    f->hops_n++;
    f->hops_sum += hops;
    f->short_sum += f->short_hops;
    if (hops > f->hops_max)
        f->hops_max = hops;
}

/* --- convergence ------------------------------------------------------------------ */

static void probe_soon(struct sim *sim, uint64_t at)
{
    if (sim->joined == NULL || sim->dyn->probing)
        return;
    sim->dyn->probing = sim_evq_push(&sim->q, at, SIM_EV_PROBE, 0, 0);
}

void sim_dyn_set_joined(struct sim *sim, sim_joined_fn joined)
{
    sim->joined = joined;
    sim->dyn->probe_from_us = sim->now_us;
    probe_soon(sim, sim->now_us);
}

/* Every node that is up has joined: the network has (re)converged. */
static void probe(struct sim *sim)
{
    struct sim_dyn *d = sim->dyn;
    uint32_t i;
    d->probing = false;
    sample_routes(sim);
    sim->joined(sim, d->joined);
    for (i = 0; i < sim->n; i++)
        if (!sim->node[i].down && !d->joined[i])
            break;
    if (i < sim->n) {
        /* every 100 ms, and at least every 1 % of the time waited so far:
         * a network that never converges costs a few hundred probes an hour */
        uint64_t gap = (sim->now_us - d->probe_from_us) / 100u;
        probe_soon(sim, sim->now_us + (gap > SIM_PROBE_US ? gap : SIM_PROBE_US));
        return;
    }
    if (d->converged_us == UINT64_MAX)
        d->converged_us = sim->now_us;
    if (d->awaiting != SIZE_MAX) {
        d->reconverged_us[d->awaiting] = sim->now_us - sim->sc->events[d->awaiting].at_us;
        d->awaiting = SIZE_MAX;
    }
}

/* --- the RPL arm's view ------------------------------------------------------------ */

/* The node whose sim address (or link-local form of it) a is: the IID's
 * last two bytes are the short address (sim.h: four bytes of the extended
 * one without short addresses). UINT32_MAX: none of ours. */
static uint32_t node_of(const struct sim *sim, const uint8_t a[16])
{
    uint32_t id = sim_node_of_iid(sim, a);
    if (!sim->sc->short_addresses)
        return id < sim->n && a[8] == 0u && a[9] == 0u && a[10] == 0u && a[11] == 1u
                   ? id : UINT32_MAX;
    return id < sim->n && a[11] == 0xffu && a[12] == 0xfeu ? id : UINT32_MAX;
}

enum { MEMO_UNKNOWN = 0, MEMO_YES, MEMO_NO, MEMO_VISITING };

/* Whether the chain next[] leads from each node to the root through nodes
 * that are up, without a loop: memo[] (MEMO_*) filled for every node in
 * O(n) (each node is walked once; stack is n entries of scratch). */
static void chains_to_root(struct sim *sim, const uint32_t *next, uint8_t *memo, uint32_t *stack)
{
    uint32_t root = sim->sc->rpl_root, i;
    memset(memo, MEMO_UNKNOWN, sim->n);
    memo[root] = sim->node[root].down ? MEMO_NO : MEMO_YES;
    for (i = 0; i < sim->n; i++) {
        uint32_t x = i, top = 0;
        bool dead_end = false;
        uint8_t verdict;
        while (memo[x] == MEMO_UNKNOWN) {
            memo[x] = MEMO_VISITING;
            stack[top++] = x;
            if (sim->node[x].down || next[x] == UINT32_MAX) {
                dead_end = true;
                break;
            }
            x = next[x];
        }
        /* the walk met a known node (its verdict), itself (a loop) or an
         * end that is not the root */
        verdict = !dead_end && memo[x] == MEMO_YES ? MEMO_YES : MEMO_NO;
        while (top > 0)
            memo[stack[--top]] = verdict;
    }
}

#if MIP_RPL_DOWN_MAX > 0
/* Node r's live downward route to target t: the node it goes through
 * (storing: the child; non-storing root: t's DAO parent); UINT32_MAX: none. */
static uint32_t down_via(const struct sim *sim, uint32_t r, uint32_t t)
{
    const struct mip_rpl_down *dn = &sim->node[r].rpl->down;
    mip_time_t now = sim_ms(sim);
    unsigned k;
    for (k = 0; k < MIP_RPL_DOWN_MAX; k++) {
        const struct mip_rpl_node *e = &dn->node[k];
        if (e->used && mip_time_before(now, e->expires) && node_of(sim, e->target) == t)
            return node_of(sim, e->parent);
    }
    return UINT32_MAX;
}
#endif

/*
 * The RPL arm's view: upward, each node's preferred parents lead to the
 * root through nodes that are up, without a loop; downward, in
 * non-storing mode the root's node table chains the node back the same
 * way (the source route it would build), in storing mode the routers'
 * routes lead from the root down to it (each hop's next hop up, at most
 * n hops), entries whose lifetime has not run out. Non-storing: O(n + the
 * root's table); storing: O(n x depth x a router's table).
 */
static void rpl_joined_view(struct sim *sim, uint8_t *joined)
{
    struct sim_dyn *d = sim->dyn;
    uint32_t i, root = sim->sc->rpl_root;
    for (i = 0; i < sim->n; i++) {
        uint8_t pa[16];
        const struct sim_node *nd = &sim->node[i];
        d->next[i] = mip_rpl_joined(nd->rpl) && mip_rpl_parent(nd->rpl, pa) ? node_of(sim, pa)
                                                                              : UINT32_MAX;
    }
    chains_to_root(sim, d->next, joined, d->stack);
    for (i = 0; i < sim->n; i++)
        joined[i] = joined[i] == MEMO_YES;
#if MIP_RPL_DOWN_MAX > 0
    if (sim->sc->rpl_mode != SIM_RPL_STORING) {
        for (i = 0; i < sim->n; i++)
            d->next[i] = UINT32_MAX;
        {
            const struct mip_rpl_down *dn = &sim->node[root].rpl->down;
            mip_time_t now = sim_ms(sim);
            unsigned k;
            for (k = 0; k < MIP_RPL_DOWN_MAX; k++) {
                const struct mip_rpl_node *e = &dn->node[k];
                uint32_t t = node_of(sim, e->target);
                if (e->used && mip_time_before(now, e->expires) && t != UINT32_MAX)
                    d->next[t] = node_of(sim, e->parent);
            }
        }
        chains_to_root(sim, d->next, d->memo, d->stack);
        for (i = 0; i < sim->n; i++)
            joined[i] = joined[i] && d->memo[i] == MEMO_YES;
        return;
    }
    for (i = 0; i < sim->n; i++) {
        uint32_t x = root, hops;
        if (!joined[i] || i == root)
            continue;
        for (hops = 0; hops <= sim->n && x != i && x != UINT32_MAX && !sim->node[x].down; hops++)
            x = down_via(sim, x, i);
        joined[i] = x == i;
    }
#else
    (void)root;
#endif
}

/* The root's node table entries in use (non-storing). */
static uint32_t rpl_root_nodes(const struct sim *sim)
{
    uint32_t n = 0;
#if MIP_RPL_DOWN_MAX > 0
    const struct mip_rpl *root = sim->node[sim->sc->rpl_root].rpl;
    unsigned i;
    for (i = 0; i < MIP_RPL_DOWN_MAX; i++)
        if (root->down.node[i].used && mip_time_before(sim_ms(sim), root->down.node[i].expires))
            n++;
#else
    (void)sim;
#endif
    return n;
}

/* --- applying an event ------------------------------------------------------------ */

static bool apply(struct sim *sim, const struct sim_event_spec *e)
{
    struct sim_node *nd = &sim->node[e->node];
    switch (e->kind) {
    case SIM_DYN_NODE_DOWN:
        sim_trace(sim, "node_down", e->node, NULL);
        sim_node_down(sim, nd);
        return true;
    case SIM_DYN_NODE_UP:
        sim_trace(sim, "node_up", e->node, "\"boot\":%u", nd->boots + 1u);
        return sim_node_up(sim, nd);
    case SIM_DYN_LINK:
        sim_trace(sim, "link_change", e->node, "\"to\":%u,\"prr\":%.4f,\"symmetric\":%s", e->to,
                  e->prr, e->symmetric ? "true" : "false");
        return sim_medium_set_link(sim, e->node, e->to, e->prr) &&
               (!e->symmetric || sim_medium_set_link(sim, e->to, e->node, e->prr));
    default:
        sim_trace(sim, "move", e->node, "\"x\":%.3f,\"y\":%.3f", e->x, e->y);
        return sim_medium_move(sim, e->node, e->x, e->y);
    }
}

void sim_dyn_event(struct sim *sim, uint8_t kind, uint32_t arg)
{
    struct sim_dyn *d = sim->dyn;
    const struct sim_scenario *sc = sim->sc;
    if (kind == SIM_EV_PROBE) {
        probe(sim);
        return;
    }
    if (kind == SIM_EV_ROUTES) {
        if (!sim_routes_rebuild(sim))
            sim_warn(sim, "events[%u]: out of memory computing the routes again",
                     sc->events[arg].index);
        d->routes_us[arg] = sim->now_us;
        sim_trace(sim, "routes", 0, "\"event\":%u", sc->events[arg].index);
        sample_routes(sim);
        return;
    }
    window_close(sim, sim->now_us);
    d->applied[arg] = true;
    if (!apply(sim, &sc->events[arg]))
        sim_warn(sim, "events[%u]: %s", sc->events[arg].index,
                 sim->err[0] ? sim->err : "out of memory");
    shortest_hops(sim);
    if (sc->routing == SIM_ROUTING_SHORTEST)
        (void)sim_evq_push(&sim->q, sim->now_us + (uint64_t)(sc->repair_delay_s * 1e6),
                           SIM_EV_ROUTES, 0, arg);
    d->cur = arg;
    window_open(sim);
    /* a network that had converged is timed until it has again (one that
     * had not yet keeps its first convergence running) */
    if (d->converged_us != UINT64_MAX) {
        d->awaiting = arg;
        d->probe_from_us = sim->now_us;
        probe_soon(sim, sim->now_us);
    }
}

/* --- the result ------------------------------------------------------------------- */

static void member_s_or_null(struct sj_writer *w, const char *key, uint64_t us)
{
    sj_w_key(w, key);
    if (us == UINT64_MAX)
        sj_w_null(w);
    else
        sj_w_double(w, (double)us / 1e6);
}

static void write_event(struct sim *sim, struct sj_writer *w, size_t i)
{
    const struct sim_event_spec *e = &sim->sc->events[i];
    struct sim_dyn *d = sim->dyn;
    size_t k;
    sj_w_begin_object(w);
    sj_w_member_uint(w, "index", e->index);
    sj_w_key(w, "type");
    sj_w_string(w, dyn_names[e->kind]);
    sj_w_member_double(w, "at_s", (double)e->at_us / 1e6);
    sj_w_member_uint(w, "node", e->node);
    sj_w_key(w, "applied");             /* false: the run ended before it */
    sj_w_bool(w, d->applied[i]);
    if (e->kind == SIM_DYN_LINK) {
        sj_w_member_uint(w, "to", e->to);
        sj_w_member_double(w, "prr", e->prr);
    } else if (e->kind == SIM_DYN_MOVE) {
        sj_w_member_double(w, "x", e->x);
        sj_w_member_double(w, "y", e->y);
    }
    if (sim->sc->routing == SIM_ROUTING_SHORTEST)
        member_s_or_null(w, "routes_at_s", d->routes_us[i]);
    if (sim->joined != NULL)
        member_s_or_null(w, "reconverged_after_s", d->reconverged_us[i]);
    sj_w_key(w, "flows");
    sj_w_begin_array(w);
    for (k = 0; k < sim->n_flows; k++) {
        const struct dyn_rec *r = &d->rec[i * sim->n_flows + k];
        const struct sim_flow_spec *fs = &sim->sc->flows[k];
        if (!r->active)
            continue;
        sj_w_begin_object(w);
        sj_w_member_uint(w, "flow", k);
        sj_w_key(w, "ended");
        sj_w_bool(w, r->done);
        if (fs->kind == SIM_FLOW_TCP) {
            sj_w_member_uint(w, "bytes_delivered", r->bytes);
            sj_w_member_double(w, "stall_s", (double)r->stall_us / 1e6);
            member_s_or_null(w, "resumed_after_s", r->resume_us);
            sj_w_member_uint(w, "rto_timeouts", r->timeouts);
            sj_w_member_uint(w, "e2e_retransmissions", r->rexmits);
            sj_w_member_uint(w, "data_segments_sent", r->seg_tx);
            sj_w_member_uint(w, "data_segments_arrived", r->seg_rx);
        } else if (fs->kind == SIM_FLOW_UDP) {
            sj_w_member_uint(w, "sent", r->sent);
            sj_w_member_uint(w, "received", r->received);
            sj_w_member_uint(w, "lost", r->sent > r->received ? r->sent - r->received : 0u);
        }
        sj_w_end_object(w);
    }
    sj_w_end_array(w);
    sj_w_end_object(w);
}

/* "scenario_events" (only when the scenario has some) and "routing": per flow the
 * hops its delivered datagrams took against the shortest path's. */
void sim_dyn_write(struct sim *sim, struct sj_writer *w)
{
    struct sim_dyn *d = sim->dyn;
    size_t i;
    uint32_t n;
    uint64_t peak = 0, sum = 0;
    if (d == NULL)
        return;
    window_close(sim, sim->now_us);
    if (sim->sc->n_events > 0u) {
        sj_w_key(w, "scenario_events");
        sj_w_begin_array(w);
        for (i = 0; i < sim->sc->n_events; i++)
            write_event(sim, w, i);
        sj_w_end_array(w);
    }
    sj_w_key(w, "routing");
    sj_w_begin_object(w);
    sj_w_key(w, "type");
    sj_w_string(w, sim->sc->routing == SIM_ROUTING_STATIC ? "static"
                   : sim->sc->routing == SIM_ROUTING_RPL ? "rpl"
                   : sim->sc->routing == SIM_ROUTING_GEO ? "geo" : "shortest");
    sample_routes(sim);
    for (n = 0; n < sim->n; n++) {
        sum += sim_node_routes(&sim->node[n]);
        if (sim->node[n].route_peak > peak)
            peak = sim->node[n].route_peak;
    }
    if (sim->joined != NULL) {
        uint32_t joined = 0;
        member_s_or_null(w, "convergence_s", d->converged_us);
        sim->joined(sim, d->joined);
        for (n = 0; n < sim->n; n++)
            joined += !sim->node[n].down && d->joined[n];
        sj_w_member_uint(w, "joined_at_end", joined);
    }
    if (sim->sc->routing == SIM_ROUTING_RPL) {
        uint64_t changes = 0;
        for (n = 0; n < sim->n; n++)
            changes += mip_rpl_stat(sim->node[n].rpl, MIP_RPL_STAT_parent_changes);
        sj_w_member_uint(w, "parent_changes", changes);
        sj_w_member_uint(w, "root_table_max", MIP_RPL_DOWN_MAX);
        sj_w_member_uint(w, "root_table", rpl_root_nodes(sim));
        sj_w_member_uint(w, "root_table_peak", d->root_nodes_peak);
    }
    /* the RAM the routing state takes on a node: the driver's struct
     * (its tables are fixed arrays) and a route entry's size, for the
     * routes above (spatial-routing) */
    sj_w_member_uint(w, "driver_bytes", sim->sc->routing == SIM_ROUTING_RPL ? sizeof(struct mip_rpl)
                                        : sim->sc->routing == SIM_ROUTING_GEO ? sizeof(struct mip_geo)
                                        : 0u);
    sj_w_member_uint(w, "route_entry_bytes", sizeof(struct mip_route));
    sj_w_member_uint(w, "route_table_max", MIP_ROUTE_MAX);
    sj_w_member_uint(w, "routes_peak", peak);
    sj_w_member_double(w, "routes_mean", sim->n ? (double)sum / (double)sim->n : 0.0);
    sj_w_key(w, "flows");
    sj_w_begin_array(w);
    for (i = 0; i < sim->n_flows; i++) {
        const struct dyn_flow *f = &d->flow[i];
        sj_w_begin_object(w);
        sj_w_member_uint(w, "flow", i);
        sj_w_member_uint(w, "datagrams", f->hops_n);
        sj_w_key(w, "hops_mean");
        if (f->hops_n)
            sj_w_double(w, (double)f->hops_sum / (double)f->hops_n);
        else
            sj_w_null(w);
        sj_w_member_uint(w, "hops_max", f->hops_max);
        sj_w_key(w, "shortest_hops_mean");
        if (f->hops_n)
            sj_w_double(w, (double)f->short_sum / (double)f->hops_n);
        else
            sj_w_null(w);
        sj_w_key(w, "path_stretch");
        if (f->short_sum > 0u)
            sj_w_double(w, (double)f->hops_sum / (double)f->short_sum);
        else
            sj_w_null(w);
        sj_w_end_object(w);
    }
    sj_w_end_array(w);
    sj_w_end_object(w);
}
