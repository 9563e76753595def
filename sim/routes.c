/*
 * Routes, computed at start (and, for "shortest", again after each of the
 * scenario's events: sim_routes_rebuild, the ideal-routing arm of
 * sim/dynamics.c) and installed as host routes (/128 or /32) in every
 * node's real route table.
 *
 * "shortest": for each destination that some flow uses, a shortest-path
 * tree rooted at it (hop count, or ETX = 1 / (PRR(a->b) * PRR(b->a)) from
 * the channel model without interference), ties broken by lower node id so
 * the tree is deterministic. The tree is searched lazily, only as far as
 * the flows' sources (struct trees), so set-up stays near O(n log n) in
 * networks of 100,000 nodes with many sinks. A flow's forward path follows the tree of its
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
    if (nh.family == MIP_AF_INET)
        return (uint32_t)nh.bytes[2] << 8 | nh.bytes[3];
    return sim_node_of_iid(sim, nh.bytes);
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

/* The frontier of tree(): a binary min-heap of (dist, node), ordered by
 * distance and then by node id, so it pops exactly the node the old
 * linear scan picked (the lowest id among equal distances). An entry whose
 * distance is no longer its node's is stale and skipped when popped. */
struct heap_ent {
    double   dist;
    uint32_t node;
};

struct heap {
    struct heap_ent *e;
    size_t n, cap;
};

static bool heap_less(const struct heap_ent *a, const struct heap_ent *b)
{
    return a->dist < b->dist || (a->dist == b->dist && a->node < b->node);
}

static bool heap_push(struct heap *h, double dist, uint32_t node)
{
    size_t i;
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2u : 256u;
        struct heap_ent *n = realloc(h->e, cap * sizeof(*n));
        if (n == NULL)
            return false;
        h->e = n;
        h->cap = cap;
    }
    i = h->n++;
    h->e[i].dist = dist;
    h->e[i].node = node;
    while (i > 0u && heap_less(&h->e[i], &h->e[(i - 1u) / 2u])) {
        struct heap_ent t = h->e[i];
        h->e[i] = h->e[(i - 1u) / 2u];
        h->e[(i - 1u) / 2u] = t;
        i = (i - 1u) / 2u;
    }
    return true;
}

static struct heap_ent heap_pop(struct heap *h)
{
    struct heap_ent top = h->e[0];
    size_t i = 0;
    h->e[0] = h->e[--h->n];
    for (;;) {
        size_t l = 2u * i + 1u, r = l + 1u, m = i;
        struct heap_ent t;
        if (l < h->n && heap_less(&h->e[l], &h->e[m]))
            m = l;
        if (r < h->n && heap_less(&h->e[r], &h->e[m]))
            m = r;
        if (m == i)
            break;
        t = h->e[i];
        h->e[i] = h->e[m];
        h->e[m] = t;
        i = m;
    }
    return top;
}

/*
 * Dijkstra from root over links with cost 1 (hops) or ETX: next[x] = the
 * neighbour of x on its path to root (UINT32_MAX: none). O((n + links)
 * log n) with the heap. It can stop early and go on later (dij_until): a
 * node's next hop is final once the node is done (it is never relaxed
 * again), and the nodes of its path were done before it, so a flow's
 * path is the whole tree's as soon as its source is done, and the search
 * covers only the nodes nearer the root than the source.
 */
struct dij {
    uint32_t  root;
    uint32_t *next;
    double   *dist;
    bool     *done;
    struct heap h;
    bool      ok;               /* false: out of memory on the way */
};

static void dij_start(struct sim *sim, struct dij *d, uint32_t root)
{
    uint32_t i;
    d->root = root;
    d->h.n = 0;
    d->ok = true;
    for (i = 0; i < sim->n; i++) {
        d->next[i] = UINT32_MAX;
        d->dist[i] = 1e300;
        d->done[i] = false;
    }
    if (sim->node[root].down)
        return;                     /* nobody reaches a node that is down */
    d->dist[root] = 0.0;
    d->next[root] = root;
    d->ok = heap_push(&d->h, 0.0, root);
}

/* Runs until target is done (UINT32_MAX: until every reachable node is). */
static bool dij_until(struct sim *sim, struct dij *d, uint32_t target)
{
    uint16_t bytes = sim->sc->frame_max;
    uint32_t *next = d->next;
    double *dist = d->dist;
    bool *done = d->done;
    while (d->ok && d->h.n > 0u && (target == UINT32_MAX || !done[target])) {
        struct heap_ent top = heap_pop(&d->h);
        uint32_t u = top.node;
        size_t k;
        if (done[u] || top.dist != dist[u])
            continue;               /* stale */
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
                if (dist[v] < 1e299 && !heap_push(&d->h, dist[v], v))
                    d->ok = false;
            }
        }
    }
    return d->ok;
}

/* The whole tree into the caller's arrays; false when out of memory. */
static bool tree(struct sim *sim, uint32_t root, uint32_t *next, double *dist, bool *done)
{
    struct dij d;
    bool ok;
    memset(&d, 0, sizeof(d));
    d.next = next;
    d.dist = dist;
    d.done = done;
    dij_start(sim, &d, root);
    ok = dij_until(sim, &d, UINT32_MAX);
    free(d.h.e);
    return ok;
}

void sim_route_tree(struct sim *sim, uint32_t root, uint32_t *next, double *dist, bool *done)
{
    (void)tree(sim, root, next, dist, done);
}

/* Host routes between a and b both ways along b's shortest-path tree (the
 * "shortest" arm's rule for a flow), for traffic between nodes that no flow
 * names (the proxies' subflows, sim/proxy.c). Nothing under other routing
 * arms. False when b cannot be reached or a table is full. */
bool sim_routes_pair(struct sim *sim, uint32_t a, uint32_t b)
{
    uint32_t *next, x, prev = UINT32_MAX, hops = 0;
    double *dist;
    bool *done, ok = true;
    if (sim->sc->routing != SIM_ROUTING_SHORTEST || a == b)
        return true;
    next = calloc(sim->n, sizeof(*next));
    dist = calloc(sim->n, sizeof(*dist));
    done = calloc(sim->n, sizeof(*done));
    ok = next != NULL && dist != NULL && done != NULL && tree(sim, b, next, dist, done) &&
         next[a] != UINT32_MAX;
    for (x = a; ok && x != b && hops++ <= sim->n; x = next[x]) {
        ok = add_route(sim, x, b, next[x]) == MIP_OK &&
             (prev == UINT32_MAX || add_route(sim, x, a, prev) == MIP_OK);
        prev = x;
    }
    if (ok && prev != UINT32_MAX)
        ok = add_route(sim, b, a, prev) == MIP_OK;
    free(next);
    free(dist);
    free(done);
    return ok;
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

/*
 * The trees of one install_shortest, made lazily: a destination's search
 * starts on the first flow that needs it and runs only until that flow's
 * source is done; later flows to the same destination resume it (the
 * network does not change while routes are installed). At most TREES_MAX
 * searches are kept, the least recently used one started again when
 * evicted, so memory stays TREES_MAX * n entries however many
 * destinations the flows name, and flows to nearby sinks cost set-up in
 * proportion to the area they span, not to n per destination.
 */
#define TREES_MAX 8u

struct trees {
    struct dij d[TREES_MAX];
    uint64_t used[TREES_MAX];
    uint64_t tick;
    uint8_t  count;
};

static void trees_init(struct trees *t)
{
    memset(t, 0, sizeof(*t));
}

/* The next hops towards root, final at least for target's path; NULL
 * when out of memory. */
static const uint32_t *trees_path(struct sim *sim, struct trees *t, uint32_t root,
                                  uint32_t target)
{
    unsigned i, slot = 0;
    struct dij *d;
    for (i = 0; i < t->count; i++)
        if (t->d[i].root == root)
            break;
    if (i < t->count) {
        slot = i;
    } else if (t->count < TREES_MAX) {
        size_t n = sim->n ? sim->n : 1u;
        slot = t->count++;
        d = &t->d[slot];
        d->next = malloc(n * sizeof(*d->next));
        d->dist = malloc(n * sizeof(*d->dist));
        d->done = malloc(n * sizeof(*d->done));
        if (d->next == NULL || d->dist == NULL || d->done == NULL)
            return NULL;
        dij_start(sim, d, root);
    } else {
        for (i = 1; i < TREES_MAX; i++)
            if (t->used[i] < t->used[slot])
                slot = i;
        dij_start(sim, &t->d[slot], root);
    }
    d = &t->d[slot];
    t->used[slot] = ++t->tick;
    return dij_until(sim, d, target) ? d->next : NULL;
}

static void trees_free(struct trees *t)
{
    unsigned i;
    for (i = 0; i < t->count; i++) {
        free(t->d[i].next);
        free(t->d[i].dist);
        free(t->d[i].done);
        free(t->d[i].h.e);
    }
}

/* Shortest-path host routes along every flow's path. At build a flow
 * without a path is an error; after an event (some node is down) it just
 * gets no routes. */
static bool install_shortest(struct sim *sim, char *err, size_t errlen)
{
    const struct sim_scenario *sc = sim->sc;
    uint32_t n = sim->n;
    const uint32_t *next, *rnext;
    struct trees tc;
    bool ok = true;
    bool built = sim->dyn != NULL;      /* after an event */
    size_t f;
    trees_init(&tc);
    for (f = 0; ok && f < sc->n_flows; f++) {
        const struct sim_flow_spec *fs = &sc->flows[f];
        uint32_t x, prev, hops = 0;
        /* UDP reports need no way back; TCP ACKs and echo replies do */
        bool both = fs->kind != SIM_FLOW_UDP;
        next = trees_path(sim, &tc, fs->dst, fs->src);
        if (next == NULL) {
            snprintf(err, errlen, "out of memory computing routes");
            ok = false;
            break;
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
            rnext = trees_path(sim, &tc, fs->src, fs->dst);
            if (rnext == NULL) {
                snprintf(err, errlen, "out of memory computing routes");
                ok = false;
                break;
            }
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
    trees_free(&tc);
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
