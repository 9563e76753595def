/*
 * Routes, computed at start (and, for "shortest", again after each of the
 * scenario's events: sim_routes_rebuild, the ideal-routing arm of
 * sim/dynamics.c) and installed as host routes (/128 or /32) in every
 * node's real route table.
 *
 * "shortest": for each destination that some flow uses, a shortest-path
 * tree rooted at it (hop count, or ETX = 1 / (PRR(a->b) * PRR(b->a)) from
 * the channel model without interference), ties broken by lower node id so
 * the tree is deterministic. A flow's forward path follows the tree of its
 * destination; with symmetric routes (the default) the reverse direction
 * retraces the same path, otherwise it follows the source's own tree.
 * Only nodes on a flow's path get routes, so tables stay small even in
 * 1000-node networks. "static": the scenario's own (node, dst, via) list,
 * installed exactly as written, with a warning (sim_warn) for a next hop
 * out of radio range and for a flow the routes do not carry to its end.
 * A node that already has a route to a destination keeps the first one.
 *
 * sim_trace_network writes what the trace's readers (moteip view) need to
 * draw the network: node positions, links and each flow's path.
 */
#include "sim.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_warn(struct sim *sim, const char *fmt, ...)
{
    va_list ap;
    sim->warnings++;
    fputs("moteip-sim: warning: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* The next hop of a's installed route to b; UINT32_MAX when there is none. */
static uint32_t next_hop(struct sim *sim, uint32_t a, uint32_t b)
{
    struct mip_addr d, nh;
    uint8_t idx;
    sim_node_address(sim, b, &d);
    if (mip_route_lookup(&sim->node[a].stack, &d, &idx, &nh) != MIP_OK)
        return UINT32_MAX;
    return (uint32_t)nh.bytes[nh.family == MIP_AF_INET ? 2 : 14] << 8 |
           nh.bytes[nh.family == MIP_AF_INET ? 3 : 15];
}

uint32_t sim_route_hops(struct sim *sim, uint32_t a, uint32_t b);
static bool install_shortest(struct sim *sim, char *err, size_t errlen);
static void trace_path(struct sim *sim, size_t flow, uint32_t a, uint32_t b, bool back);

/* A sleepy leaf (mac rdc "leaf") talks to its parent only: it sleeps
 * through everyone else's frames and forwards nothing. */
static bool leaf_link(const struct sim *sim, uint32_t a, uint32_t b)
{
    const struct mip_rdc_config *ra = &sim->node[a].mac.cfg.rdc, *rb = &sim->node[b].mac.cfg.rdc;
    return (ra->kind != MIP_RDC_LEAF || ra->parent == b) &&
           (rb->kind != MIP_RDC_LEAF || rb->parent == a);
}

/* Static routes: each next hop must be in radio range, and every flow must
 * get to its end (and back, for TCP and ping). Delivery 0 with no word
 * was what a typo in a route cost before. */
static void check_static_routes(struct sim *sim)
{
    const struct sim_scenario *sc = sim->sc;
    size_t k;
    for (k = 0; k < sc->n_routes; k++) {
        const struct sim_static_route *r = &sc->routes[k];
        if (r->via >= sim->n || r->node == r->via ||
            sim_link_prr(sim, r->node, r->via, sc->frame_max) <= 0.0)
            sim_warn(sim, "routing.routes[%zu]: node %u cannot reach its next hop %u "
                          "(not in radio range): traffic to %u through it is lost",
                     k, r->node, r->via, r->dst);
        else if (!leaf_link(sim, r->node, r->via))
            sim_warn(sim, "routing.routes[%zu]: a sleepy leaf talks to its parent only: "
                          "traffic from %u to %u through %u is lost", k, r->node, r->dst, r->via);
    }
    for (k = 0; k < sc->n_flows; k++) {
        const struct sim_flow_spec *fs = &sc->flows[k];
        bool both = fs->kind != SIM_FLOW_UDP;
        if (fs->src != fs->dst && sim_route_hops(sim, fs->src, fs->dst) == 0)
            sim_warn(sim, "flows[%zu]: the static routes do not lead from node %u to node %u",
                     k, fs->src, fs->dst);
        else if (both && fs->src != fs->dst && sim_route_hops(sim, fs->dst, fs->src) == 0)
            sim_warn(sim, "flows[%zu]: the static routes do not lead back from node %u to "
                          "node %u", k, fs->dst, fs->src);
    }
}

/* The routes the shortest arm installed, (node, dst) pairs, kept when
 * events may make it compute them again (sim_routes_rebuild removes
 * exactly these: the border router's routes stay). */
struct sim_route_made {
    uint32_t node, dst;
};

static bool made_push(struct sim *sim, uint32_t node, uint32_t dst)
{
    if (sim->routes_made_n == sim->routes_made_cap) {
        size_t cap = sim->routes_made_cap ? sim->routes_made_cap * 2u : 64u;
        struct sim_route_made *n = realloc(sim->routes_made, cap * sizeof(*n));
        if (n == NULL)
            return false;
        sim->routes_made = n;
        sim->routes_made_cap = cap;
    }
    sim->routes_made[sim->routes_made_n].node = node;
    sim->routes_made[sim->routes_made_n].dst = dst;
    sim->routes_made_n++;
    return true;
}

static mip_status add_route(struct sim *sim, uint32_t node, uint32_t dst, uint32_t via)
{
    struct mip_addr d, gw;
    struct mip_addr nh;
    uint8_t idx;
    struct sim_node *nd = &sim->node[node];
    sim_node_address(sim, dst, &d);
    sim_node_address(sim, via, &gw);
    mip_status st;
    if (mip_route_lookup(&nd->stack, &d, &idx, &nh) == MIP_OK)
        return MIP_OK;      /* first route wins */
    st = mip_route_add(&nd->stack, &d, d.family == MIP_AF_INET ? 32 : 128, &gw, nd->netif);
    if (st == MIP_OK && sim->sc->n_events > 0u && sim->sc->routing == SIM_ROUTING_SHORTEST &&
        !made_push(sim, node, dst))
        return MIP_ERR_NOBUFS;
    return st;
}

/* Dijkstra from root over links with cost 1 (hops) or ETX; fills
 * next[x] = the neighbour of x on its path to root (UINT32_MAX: none). */
static bool tree(struct sim *sim, uint32_t root, uint32_t *next, double *dist, bool *done)
{
    uint32_t n = sim->n, i;
    uint16_t bytes = sim->sc->frame_max;
    for (i = 0; i < n; i++) {
        next[i] = UINT32_MAX;
        dist[i] = 1e300;
        done[i] = false;
    }
    if (sim->node[root].down)
        return true;                /* nobody reaches a node that is down */
    dist[root] = 0.0;
    next[root] = root;
    for (;;) {
        uint32_t u = UINT32_MAX;
        size_t k;
        for (i = 0; i < n; i++)     /* O(n^2): fine for a few trees at start */
            if (!done[i] && dist[i] < 1e299 && (u == UINT32_MAX || dist[i] < dist[u]))
                u = i;
        if (u == UINT32_MAX)
            break;
        done[u] = true;
        for (k = 0; k < sim->node[u].n_nbr; k++) {
            uint32_t v = sim->node[u].nbr[k].node;
            double p1, p2, cost;
            if (done[v] || !sim->node[u].nbr[k].decodable || !leaf_link(sim, u, v) ||
                sim->node[v].down)
                continue;
            /* v sends to u towards the root: both directions must work */
            p1 = sim_link_prr(sim, v, u, bytes);
            p2 = sim_link_prr(sim, u, v, bytes);
            if (p1 <= 0.0 || p2 <= 0.0)
                continue;
            cost = sim->sc->metric == SIM_METRIC_ETX ? 1.0 / (p1 * p2) : 1.0;
            if (dist[u] + cost < dist[v] - 1e-12 ||
                (dist[u] + cost <= dist[v] + 1e-12 && next[v] != UINT32_MAX && u < next[v])) {
                dist[v] = dist[u] + cost;
                next[v] = u;
            }
        }
    }
    return true;
}

void sim_route_tree(struct sim *sim, uint32_t root, uint32_t *next, double *dist, bool *done)
{
    (void)tree(sim, root, next, dist, done);
}

bool sim_routes_build(struct sim *sim, char *err, size_t errlen)
{
    const struct sim_scenario *sc = sim->sc;
    size_t k;
    if (sc->routing == SIM_ROUTING_RPL || sc->routing == SIM_ROUTING_GEO)
        return true;        /* the nodes find their routes themselves */
    if (sc->routing == SIM_ROUTING_STATIC) {
        for (k = 0; k < sc->n_routes; k++) {
            const struct sim_static_route *r = &sc->routes[k];
            mip_status st = add_route(sim, r->node, r->dst, r->via);
            if (st != MIP_OK) {
                snprintf(err, errlen, "routing.routes[%zu]: node %u cannot take the route: %s",
                         k, r->node, mip_status_name(st));
                return false;
            }
        }
        check_static_routes(sim);
        return true;
    }
    return install_shortest(sim, err, errlen);
}

/* A rebooted node's static routes: its firmware's configuration. */
void sim_routes_node_static(struct sim *sim, uint32_t node)
{
    const struct sim_scenario *sc = sim->sc;
    size_t k;
    if (sc->routing != SIM_ROUTING_STATIC)
        return;
    for (k = 0; k < sc->n_routes; k++)
        if (sc->routes[k].node == node)
            (void)add_route(sim, node, sc->routes[k].dst, sc->routes[k].via);
}

/* The shortest arm after an event: the routes it installed go, and
 * they are computed again on the network as it is now (nodes that are
 * down left out, links and positions as changed). A flow that has no
 * path now gets none (its packets are dropped for want of a route) and
 * a warning-free "unreachable" line in the trace; the trace gets the new
 * paths. Routes are kept only on the nodes of the paths, as at build. */
bool sim_routes_rebuild(struct sim *sim)
{
    size_t k;
    char err[160];
    for (k = 0; k < sim->routes_made_n; k++) {
        struct sim_node *nd = &sim->node[sim->routes_made[k].node];
        struct mip_addr d;
        sim_node_address(sim, sim->routes_made[k].dst, &d);
        (void)mip_route_remove(&nd->stack, &d, d.family == MIP_AF_INET ? 32 : 128);
    }
    sim->routes_made_n = 0;
    if (!install_shortest(sim, err, sizeof(err)))
        return false;
    if (sim->trace != NULL)
        for (k = 0; k < sim->sc->n_flows; k++) {
            const struct sim_flow_spec *fs = &sim->sc->flows[k];
            trace_path(sim, k, fs->src, fs->dst, false);
            if (fs->kind != SIM_FLOW_UDP)
                trace_path(sim, k, fs->dst, fs->src, true);
        }
    return true;
}

/* Shortest-path host routes along every flow's path. At build a flow
 * without a path is an error; after an event (some node is down) it just
 * gets no routes. */
static bool install_shortest(struct sim *sim, char *err, size_t errlen)
{
    const struct sim_scenario *sc = sim->sc;
    uint32_t n = sim->n;
    uint32_t *next = NULL, *rnext = NULL;
    double *dist = NULL;
    bool *done = NULL, ok = true;
    bool built = sim->dyn != NULL;      /* after an event */
    size_t f;
    uint32_t tree_root = UINT32_MAX;
    next = malloc(n * sizeof(*next));
    rnext = malloc(n * sizeof(*rnext));
    dist = malloc(n * sizeof(*dist));
    done = malloc(n * sizeof(*done));
    if (next == NULL || rnext == NULL || dist == NULL || done == NULL) {
        snprintf(err, errlen, "out of memory computing routes");
        ok = false;
    }
    for (f = 0; ok && f < sc->n_flows; f++) {
        const struct sim_flow_spec *fs = &sc->flows[f];
        uint32_t x, prev, hops = 0;
        /* UDP reports need no way back; TCP ACKs and echo replies do */
        bool both = fs->kind != SIM_FLOW_UDP;
        if (f == 0 || fs->dst != tree_root) {   /* many reporters share one sink */
            tree(sim, fs->dst, next, dist, done);
            tree_root = fs->dst;
        }
        if (next[fs->src] == UINT32_MAX || sim->node[fs->src].down) {
            if (built) {
                sim_trace(sim, "unreachable", fs->src, "\"flow\":%zu,\"to\":%u", f, fs->dst);
                continue;
            }
            snprintf(err, errlen, "flows[%zu]: node %u cannot reach node %u", f, fs->src, fs->dst);
            ok = false;
            break;
        }
        prev = UINT32_MAX;
        for (x = fs->src; x != fs->dst && ok; x = next[x]) {
            mip_status st = add_route(sim, x, fs->dst, next[x]);
            if (st == MIP_OK && both && sc->routes_symmetric && prev != UINT32_MAX)
                st = add_route(sim, x, fs->src, prev);
            if (st != MIP_OK) {
                snprintf(err, errlen, "flows[%zu]: node %u route table full (MIP_ROUTE_MAX %u)",
                         f, x, (unsigned)MIP_ROUTE_MAX);
                ok = false;
            }
            prev = x;
            if (++hops > n)
                break;
        }
        if (ok && both && sc->routes_symmetric && prev != UINT32_MAX) {
            mip_status st = add_route(sim, fs->dst, fs->src, prev);
            if (st != MIP_OK) {
                snprintf(err, errlen, "flows[%zu]: node %u route table full", f, fs->dst);
                ok = false;
            }
        }
        if (ok && both && !sc->routes_symmetric) {
            tree(sim, fs->src, rnext, dist, done);  /* dist/done are scratch */
            if (rnext[fs->dst] == UINT32_MAX && built) {
                sim_trace(sim, "unreachable", fs->dst, "\"flow\":%zu,\"to\":%u", f, fs->src);
                continue;
            }
            if (rnext[fs->dst] == UINT32_MAX) {
                snprintf(err, errlen, "flows[%zu]: node %u cannot reach node %u", f, fs->dst,
                         fs->src);
                ok = false;
            }
            for (x = fs->dst, hops = 0; ok && x != fs->src; x = rnext[x]) {
                if (add_route(sim, x, fs->src, rnext[x]) != MIP_OK) {
                    snprintf(err, errlen, "flows[%zu]: node %u route table full", f, x);
                    ok = false;
                }
                if (++hops > n)
                    break;
            }
        }
    }
    free(next);
    free(rnext);
    free(dist);
    free(done);
    return ok;
}

/* Hop count of the installed route from a to b (for results); 0 if none. */
uint32_t sim_route_hops(struct sim *sim, uint32_t a, uint32_t b)
{
    uint32_t hops = 0, x = a;
    while (x != b && x < sim->n && hops <= sim->n) {
        x = next_hop(sim, x, b);
        hops++;
    }
    return x == b ? hops : 0;
}

/* One "hop" event per node of a flow's path (node -> to), `back` for the
 * way back; at most n hops, so a routing loop ends. */
static void trace_path(struct sim *sim, size_t flow, uint32_t a, uint32_t b, bool back)
{
    uint32_t x = a, hops = 0;
    while (x != b && x < sim->n && hops++ <= sim->n) {
        uint32_t nx = next_hop(sim, x, b);
        if (nx == UINT32_MAX)
            break;
        sim_trace(sim, "hop", x, "\"flow\":%zu,\"to\":%u,\"back\":%s", flow, nx,
                  back ? "true" : "false");
        x = nx;
    }
}

void sim_trace_network(struct sim *sim)
{
    const struct sim_scenario *sc = sim->sc;
    uint32_t i;
    size_t k;
    if (sim->trace == NULL)
        return;
    for (i = 0; i < sim->n; i++) {
        if (sc->pos != NULL)
            sim_trace(sim, "node", i, "\"x\":%.3f,\"y\":%.3f", sc->pos[i][0], sc->pos[i][1]);
        else
            sim_trace(sim, "node", i, NULL);
    }
    for (i = 0; i < sim->n; i++) {
        for (k = 0; k < sim->node[i].n_nbr; k++) {
            uint32_t v = sim->node[i].nbr[k].node;
            double prr = sim_link_prr(sim, i, v, sc->frame_max);
            if (prr > 0.0)
                sim_trace(sim, "link", i, "\"to\":%u,\"prr\":%.4f", v, prr);
        }
    }
    for (k = 0; k < sc->n_flows; k++) {
        const struct sim_flow_spec *fs = &sc->flows[k];
        trace_path(sim, k, fs->src, fs->dst, false);
        if (fs->kind != SIM_FLOW_UDP)
            trace_path(sim, k, fs->dst, fs->src, true);
    }
}
