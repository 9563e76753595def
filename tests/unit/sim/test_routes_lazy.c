/*
 * The shortest arm's lazy route search (sim/routes.c: a destination's
 * search runs only until each flow's source is settled, resumed by the
 * next flow, at most 8 kept) installs exactly the paths of the full trees
 * (sim_route_tree): on random topologies, by hops and by ETX under a bit
 * error rate, with flows to many destinations in an order that evicts and
 * restarts searches, every flow's installed path is the full tree's hop
 * by hop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "testing.h"

/* The next hop of a's installed route to b (UINT32_MAX: none). */
static uint32_t installed_next(struct sim *sim, uint32_t a, uint32_t b)
{
    struct mip_addr d, nh;
    uint8_t idx;
    sim_node_address(sim, b, &d);
    if (mip_route_lookup(&sim->node[a].stack, &d, &idx, &nh) != MIP_OK)
        return UINT32_MAX;
    return sim_node_of_iid(sim, nh.bytes);
}

static unsigned paths_match(const char *medium, const char *metric, unsigned seed)
{
    char text[8192];
    size_t off;
    unsigned f, hops_total = 0;
    struct sim_scenario sc;
    struct sim sim;
    char err[256] = "";
    uint32_t *ref;
    double *dist;
    bool *done;
    /* 40 UDP flows from scattered sources to 12 destinations, the
     * destinations cycling so the 8 kept searches are evicted and redone */
    off = (size_t)snprintf(text, sizeof(text),
                           "{\"seed\": %u, \"duration_s\": 1, \"medium\": %s, \"routing\": "
                           "{\"type\": \"shortest\", \"metric\": \"%s\"}, \"topology\": "
                           "{\"type\": \"random\", \"nodes\": 300, \"width_m\": 500, "
                           "\"height_m\": 500}, \"flows\": [",
                           seed, medium, metric);
    for (f = 0; f < 40u; f++)
        off += (size_t)snprintf(text + off, sizeof(text) - off,
                                "%s{\"type\": \"udp\", \"src\": %u, \"dst\": %u, "
                                "\"interval_s\": 10, \"start_s\": 5}",
                                f ? ", " : "", 100u + 5u * f, 20u * (f % 12u));
    snprintf(text + off, sizeof(text) - off, "]}");
    CHECK(sim_scenario_parse(text, strlen(text), "s.json", &sc, err, sizeof(err)));
    if (err[0] != '\0')
        fprintf(stderr, "%s\n", err);
    if (!sim_build(&sim, &sc)) {
        fprintf(stderr, "%s\n", sim.err);
        CHECK(false);
        sim_free(&sim);
        sim_scenario_free(&sc);
        return 0;
    }
    ref = malloc(sim.n * sizeof(*ref));
    dist = malloc(sim.n * sizeof(*dist));
    done = malloc(sim.n * sizeof(*done));
    for (f = 0; f < sc.n_flows; f++) {
        const struct sim_flow_spec *fs = &sc.flows[f];
        uint32_t x = fs->src, hops = 0;
        sim_route_tree(&sim, fs->dst, ref, dist, done);
        CHECK(ref[fs->src] != UINT32_MAX);
        while (x != fs->dst && x != UINT32_MAX && hops++ < sim.n) {
            uint32_t nx = installed_next(&sim, x, fs->dst);
            CHECK_EQ(nx, ref[x]);
            x = nx;
        }
        CHECK(x == fs->dst);
        hops_total += hops;
    }
    free(ref);
    free(dist);
    free(done);
    sim_free(&sim);
    sim_scenario_free(&sc);
    return hops_total;
}

static void test_hops(void)
{
    unsigned seed;
    for (seed = 1; seed <= 3; seed++)
        CHECK(paths_match("{\"range_m\": 60, \"interference_range_m\": 100}", "hops", seed) >
              100u);
}

static void test_etx_under_bit_errors(void)
{
    unsigned seed;
    for (seed = 1; seed <= 3; seed++)
        CHECK(paths_match("{\"range_m\": 60, \"interference_range_m\": 100, \"ber\": 3e-5}",
                          "etx", seed) > 100u);
    CHECK(paths_match("{\"model\": \"log_distance\", \"exponent\": 2.8}", "etx", 4) > 40u);
}

int main(void)
{
    RUN(test_hops);
    RUN(test_etx_under_bit_errors);
    return TESTING_DONE();
}
