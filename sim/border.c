/*
 * The border router: one node (border.node) with a second netif on a host
 * TUN or TAP device, the simulator's equivalent of Contiki's tunslip6 +
 * rpl-border-router in Cooja, ns-3's TapBridge and OTNS's real-time mode.
 * It is the "TCP/IP in the sensor network" architecture of Dunkels et al.
 * (WWIC 2004, the seeds' ch. 8): no proxy, the host's IP packets travel
 * unchanged to the node that answers them.
 *
 * What is built (sim_border_build, at sim_build):
 *   - the host netif: raw IP (TUN, MTU 1280) or Ethernet with ND (TAP),
 *     with border.address on it (its prefix is on-link there);
 *   - routes from a shortest-path tree rooted at the border router
 *     (routing.metric; sim_route_tree): host routes down the tree to every
 *     node of border.reach (default: every node with a path), and a
 *     default route up the tree on each of those nodes and their ancestors;
 *     a node that already has a route to a destination (a flow's, a static
 *     one) keeps it; with routing.type "rpl" none of these: the border
 *     router is the DODAG root and announces link.prefix (node.c), the
 *     nodes that joined are reached by their DAOs;
 *   - on the border router: the mesh prefix on-link on the radio (an
 *     address it has no host route to goes out on the radio, never back
 *     to the host) and border.routes towards the host (default ::/0).
 * The device is attached only for a run (sim_border_open): --check builds
 * the same network without touching the host.
 */
#define _GNU_SOURCE
#include "border.h"
#include "json.h"
#include "linux_tap.h"
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

enum { BORDER_READ_BUDGET = 64 };   /* frames per sim_border_input call */

struct sim_border_counters {
    uint64_t frames_from_host, bytes_from_host;
    uint64_t frames_to_host, bytes_to_host;
    uint64_t drop_to_host_no_device;    /* sent before the device was open */
    uint64_t drop_to_host_write;        /* the device refused a frame */
    uint64_t drop_from_host_too_long;   /* a frame filled the whole buffer */
    uint64_t read_errors;
};

struct sim_border {
    struct sim *sim;
    struct mip_tap dev;                 /* fd -1 until sim_border_open */
    struct mip_netif_driver drv;
    uint8_t  netif;                     /* the border node's host netif */
    struct sim_border_counters c;
    uint8_t  buf[65536];                /* one frame read from the device */
};

static mip_status border_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct sim_border *b = ctx;
    mip_status st;
    if (b->dev.fd < 0) {
        b->c.drop_to_host_no_device++;
        return MIP_ERR_NOBUFS;
    }
    st = mip_tap_transmit(&b->dev, frame, len);
    if (st != MIP_OK) {
        b->c.drop_to_host_write++;
        return st;
    }
    b->c.frames_to_host++;
    b->c.bytes_to_host += len;
    sim_trace(b->sim, "host_tx", b->sim->sc->border.node, "\"len\":%zu", len);
    return MIP_OK;
}

static bool route_full(char *err, size_t errlen, uint32_t node)
{
    snprintf(err, errlen, "border: node %u's route table is full (MIP_ROUTE_MAX %u) with the "
             "routes to the nodes behind it: name fewer nodes in border.reach", node,
             (unsigned)MIP_ROUTE_MAX);
    return false;
}

/* At node y: a host route to node x via node via, unless y has one. */
static bool host_route(struct sim *sim, uint32_t y, uint32_t x, uint32_t via, char *err,
                       size_t errlen)
{
    struct sim_node *nd = &sim->node[y];
    struct mip_addr dst, gw, nh;
    uint8_t idx;
    sim_node_address(sim, x, &dst);
    /* Only host routes and the node's own address exist yet (the defaults
     * and prefixes come after), so a match is a route to x: keep it. */
    if (mip_route_lookup(&nd->stack, &dst, &idx, &nh) == MIP_OK)
        return true;
    sim_node_address(sim, via, &gw);
    if (mip_route_add(&nd->stack, &dst, 128, &gw, nd->netif) != MIP_OK)
        return route_full(err, errlen, y);
    return true;
}

/* Routes along the tree rooted at the border router: down to every node
 * the host reaches, and a default route up from it and its ancestors. */
static bool tree_routes(struct sim *sim, char *err, size_t errlen)
{
    const struct sim_border_spec *bs = &sim->sc->border;
    uint32_t n = sim->n, root = bs->node, x;
    uint32_t *next = malloc(n * sizeof(*next));
    double *dist = malloc(n * sizeof(*dist));
    bool *done = malloc(n * sizeof(*done)), ok = true;
    size_t k, count = bs->reach != NULL ? bs->n_reach : n;
    struct mip_addr any;
    uint8_t zero[16] = { 0 };
    mip_addr_set6(&any, zero);
    if (next == NULL || dist == NULL || done == NULL) {
        snprintf(err, errlen, "out of memory computing the border router's routes");
        ok = false;
    }
    if (ok)
        sim_route_tree(sim, root, next, dist, done);
    for (int pass = 0; ok && pass < 2; pass++) {
        for (k = 0; ok && k < count; k++) {
            uint32_t prev, y, hops = 0;
            x = bs->reach != NULL ? bs->reach[k] : (uint32_t)k;
            if (x == root || (bs->reach == NULL && next[x] == UINT32_MAX))
                continue;
            if (next[x] == UINT32_MAX) {
                snprintf(err, errlen, "border.reach[%zu]: node %u has no path to the border "
                         "router, node %u", k, x, root);
                ok = false;
                break;
            }
            if (pass == 0) {            /* down: each ancestor routes to x */
                for (prev = x, y = next[x]; ok && hops++ <= n; prev = y, y = next[y]) {
                    ok = host_route(sim, y, x, prev, err, errlen);
                    if (y == root)
                        break;
                }
            } else {                    /* up: x and its ancestors default to the root */
                for (y = x; ok && y != root && hops++ <= n; y = next[y]) {
                    struct sim_node *nd = &sim->node[y];
                    struct mip_addr gw;
                    sim_node_address(sim, next[y], &gw);
                    if (mip_route_add(&nd->stack, &any, 0, &gw, nd->netif) != MIP_OK)
                        ok = route_full(err, errlen, y);
                }
            }
        }
    }
    free(next);
    free(dist);
    free(done);
    return ok;
}

bool sim_border_build(struct sim *sim, char *err, size_t errlen)
{
    const struct sim_border_spec *bs = &sim->sc->border;
    struct sim_node *nd = &sim->node[bs->node];
    struct sim_border *b;
    struct mip_addr mesh;
    uint8_t mesh16[16] = { 0 };
    mip_status st;
    unsigned k;
    b = calloc(1, sizeof(*b));
    if (b == NULL) {
        snprintf(err, errlen, "out of memory for the border router");
        return false;
    }
    sim->border = b;
    b->sim = sim;
    b->dev.fd = -1;
    b->drv.transmit = border_transmit;
    if (bs->kind == SIM_BORDER_TUN) {
        /* the link-local address's IID: the node's short address, U/L set */
        uint8_t iid[8] = { 0x02, 0, 0, 0xff, 0xfe, 0, (uint8_t)(bs->node >> 8),
                           (uint8_t)bs->node };
        st = mip_netif_add_rawip(&nd->stack, 1280, iid, &b->drv, b, &b->netif);
    } else {
        uint8_t mac[6] = { 0x02, 0, 0, 0, (uint8_t)(bs->node >> 8), (uint8_t)bs->node };
        st = mip_netif_add_ethernet(&nd->stack, mac, &b->drv, b, &b->netif);
    }
    if (st != MIP_OK) {
        snprintf(err, errlen, "border.node: node %u cannot take a host netif: %s", bs->node,
                 mip_status_name(st));
        return false;
    }
    /* host routes first: until the prefixes below exist, a route lookup
     * that succeeds is a host route (tree_routes). With RPL the border
     * router is the DODAG root (the scenario put rpl_root there): its
     * DAOs route down, the nodes' preferred parents up, and nothing is
     * computed from the simulator's knowledge. */
    if (sim->sc->routing != SIM_ROUTING_RPL && !tree_routes(sim, err, errlen))
        return false;
    st = mip_netif_add_addr(&nd->stack, b->netif, &bs->addr, bs->addr_len);
    if (st != MIP_OK) {
        snprintf(err, errlen, "border.address: node %u cannot take it: %s", bs->node,
                 mip_status_name(st));
        return false;
    }
    memcpy(mesh16, sim->sc->prefix, 8);
    mip_addr_set6(&mesh, mesh16);
    if (mip_route_add(&nd->stack, &mesh, 64, NULL, nd->netif) != MIP_OK)
        return route_full(err, errlen, bs->node);
    for (k = 0; k < bs->n_routes; k++) {
        const struct sim_border_route *r = &bs->routes[k];
        st = mip_route_add(&nd->stack, &r->prefix, r->prefix_len, r->has_via ? &r->via : NULL,
                           b->netif);
        if (st != MIP_OK) {
            snprintf(err, errlen, "border.routes[%u]: node %u cannot take the route: %s", k,
                     bs->node, mip_status_name(st));
            return false;
        }
    }
    return true;
}

bool sim_border_open(struct sim *sim, char *err, size_t errlen)
{
    const struct sim_border_spec *bs = &sim->sc->border;
    struct sim_border *b = sim->border;
    const char *kind = bs->kind == SIM_BORDER_TUN ? "tun" : "tap";
    char why[200];
    int rc;
    if (if_nametoindex(bs->device) == 0) {
        snprintf(err, errlen, "border.device: no interface '%s' in this network namespace: "
                 "create it first (ip tuntap add dev %s mode %s)", bs->device, bs->device, kind);
        return false;
    }
    rc = bs->kind == SIM_BORDER_TUN ? mip_tun_open(&b->dev, bs->device, why, sizeof(why))
                                    : mip_tap_open(&b->dev, bs->device, why, sizeof(why));
    if (rc == -EPERM || rc == -EACCES)
        snprintf(err, errlen, "border.device: %s (needs CAP_NET_ADMIN, or a device made for "
                 "this user: ip tuntap add dev %s mode %s user UID)", why, bs->device, kind);
    else if (rc == -EINVAL)
        snprintf(err, errlen, "border.device: '%s' is not a %s device (border.type \"%s\")",
                 bs->device, bs->kind == SIM_BORDER_TUN ? "TUN" : "TAP", kind);
    else if (rc < 0)
        snprintf(err, errlen, "border.device: %s", why);
    return rc == 0;
}

int sim_border_fd(const struct sim *sim)
{
    return sim->border != NULL ? sim->border->dev.fd : -1;
}

void sim_border_input(struct sim *sim)
{
    struct sim_border *b = sim->border;
    struct sim_node *nd = &sim->node[sim->sc->border.node];
    int k;
    for (k = 0; k < BORDER_READ_BUDGET && b->dev.fd >= 0; k++) {
        ssize_t n = mip_tap_read(&b->dev, b->buf, sizeof(b->buf));
        if (n == 0)
            break;
        if (n < 0) {
            b->c.read_errors++;
            fprintf(stderr, "moteip-sim: warning: border.device: reading '%s': %s: the host "
                    "side is gone, the border router carries on without it\n", b->dev.name,
                    strerror((int)-n));
            mip_tap_close(&b->dev);
            break;
        }
        if ((size_t)n == sizeof(b->buf)) {
            b->c.drop_from_host_too_long++;
            continue;
        }
        b->c.frames_from_host++;
        b->c.bytes_from_host += (uint64_t)n;
        sim_trace(sim, "host_rx", nd->id, "\"len\":%zd", n);
        mip_stack_input(&nd->stack, b->netif, b->buf, (size_t)n, sim_ms(sim));
    }
    sim_node_schedule(sim, nd);
}

void sim_border_write(struct sim *sim, struct sj_writer *w)
{
    const struct sim_border *b = sim->border;
    const struct sim_border_spec *bs = &sim->sc->border;
    sj_w_begin_object(w);
    sj_w_member_uint(w, "node", bs->node);
    sj_w_key(w, "device");
    sj_w_string(w, bs->device);
    sj_w_key(w, "type");
    sj_w_string(w, bs->kind == SIM_BORDER_TUN ? "tun" : "tap");
    sj_w_member_uint(w, "frames_from_host", b->c.frames_from_host);
    sj_w_member_uint(w, "bytes_from_host", b->c.bytes_from_host);
    sj_w_member_uint(w, "frames_to_host", b->c.frames_to_host);
    sj_w_member_uint(w, "bytes_to_host", b->c.bytes_to_host);
    sj_w_member_uint(w, "drop_to_host_no_device", b->c.drop_to_host_no_device);
    sj_w_member_uint(w, "drop_to_host_write", b->c.drop_to_host_write);
    sj_w_member_uint(w, "drop_from_host_too_long", b->c.drop_from_host_too_long);
    sj_w_member_uint(w, "read_errors", b->c.read_errors);
    sj_w_end_object(w);
}

void sim_border_free(struct sim *sim)
{
    if (sim->border == NULL)
        return;
    mip_tap_close(&sim->border->dev);
    free(sim->border);
    sim->border = NULL;
}
