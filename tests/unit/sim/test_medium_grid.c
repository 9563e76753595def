/*
 * The medium's neighbour lists through the spatial grid (sim/medium.c,
 * geo_grid) against the all-pairs build they replace: on random
 * topologies of both geometric models, a chain, nodes piled on one spot
 * and a sparse area that makes the cells grow, every node's list is the
 * same, entry by entry, in the same order. A pair the grid misses, or one
 * it adds, fails here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "testing.h"

/* Builds `text`, keeps its grid lists, rebuilds them all-pairs and
 * compares; returns the number of entries (so a test knows it had some). */
static size_t same_lists(const char *text)
{
    struct sim_scenario sc;
    struct sim sim;
    char err[256] = "";
    struct sim_neighbor **grid;
    size_t *n_grid, total = 0;
    uint32_t i;
    CHECK(sim_scenario_parse(text, strlen(text), "s.json", &sc, err, sizeof(err)));
    if (err[0] != '\0')
        fprintf(stderr, "%s\n", err);
    CHECK(sim_build(&sim, &sc));
    grid = calloc(sim.n, sizeof(*grid));
    n_grid = calloc(sim.n, sizeof(*n_grid));
    for (i = 0; i < sim.n; i++) {
        n_grid[i] = sim.node[i].n_nbr;
        grid[i] = malloc((n_grid[i] + 1u) * sizeof(**grid));
        if (n_grid[i] > 0u)     /* an isolated node's list is NULL */
            memcpy(grid[i], sim.node[i].nbr, n_grid[i] * sizeof(**grid));
    }
    CHECK(sim_medium_neighbors(&sim, true, err, sizeof(err)));
    for (i = 0; i < sim.n; i++) {
        size_t k;
        CHECK_EQ(n_grid[i], sim.node[i].n_nbr);
        for (k = 0; k < n_grid[i] && k < sim.node[i].n_nbr; k++) {
            const struct sim_neighbor *a = &grid[i][k], *b = &sim.node[i].nbr[k];
            CHECK(a->node == b->node && a->rx_dbm == b->rx_dbm && a->prr == b->prr &&
                  a->decodable == b->decodable && a->interferes == b->interferes &&
                  a->sensed == b->sensed);
        }
        total += n_grid[i];
        free(grid[i]);
    }
    free(grid);
    free(n_grid);
    sim_free(&sim);
    sim_scenario_free(&sc);
    return total;
}

static void test_random_unit_disk(void)
{
    char text[512];
    unsigned seed;
    for (seed = 1; seed <= 6; seed++) {
        snprintf(text, sizeof(text),
                 "{\"seed\": %u, \"duration_s\": 1, \"medium\": {\"model\": \"unit_disk\", "
                 "\"range_m\": %u, \"interference_range_m\": %u}, \"topology\": {\"type\": "
                 "\"random\", \"nodes\": %u, \"width_m\": %u, \"height_m\": %u}}",
                 seed, 30u + 10u * seed, 50u + 20u * seed, 200u + 50u * seed, 400u + 60u * seed,
                 300u + 90u * seed);
        CHECK(same_lists(text) > 1000u);
    }
}

static void test_random_log_distance(void)
{
    char text[512];
    unsigned seed;
    for (seed = 1; seed <= 4; seed++) {
        snprintf(text, sizeof(text),
                 "{\"seed\": %u, \"duration_s\": 1, \"medium\": {\"model\": \"log_distance\", "
                 "\"exponent\": %u.%u}, \"topology\": {\"type\": \"random\", \"nodes\": 300, "
                 "\"width_m\": %u, \"height_m\": 700}}",
                 seed, 2u + seed / 2u, 5u * seed, 800u + 200u * seed);
        CHECK(same_lists(text) > 1000u);
    }
}

/* Degenerate layouts: a chain (one row of cells), every node on one spot
 * (one cell), and nodes far apart in a large area (the cells grow). */
static void test_chain_pile_and_sparse(void)
{
    CHECK(same_lists("{\"duration_s\": 1, \"medium\": {\"model\": \"unit_disk\", \"range_m\": "
                     "20, \"interference_range_m\": 45}, \"topology\": {\"type\": \"chain\", "
                     "\"nodes\": 60, \"spacing_m\": 10}}") > 100u);
    CHECK(same_lists("{\"duration_s\": 1, \"topology\": {\"type\": \"positions\", "
                     "\"positions\": [[5, 5], [5, 5], [5, 5], [5, 5.5], [400, 5]]}}") == 12u);
    (void)same_lists("{\"seed\": 3, \"duration_s\": 1, \"medium\": {\"model\": \"unit_disk\", "
                     "\"range_m\": 10, \"interference_range_m\": 10}, \"topology\": {\"type\": "
                     "\"random\", \"nodes\": 50, \"width_m\": 100000, \"height_m\": 100000}}");
}

int main(void)
{
    RUN(test_random_unit_disk);
    RUN(test_random_log_distance);
    RUN(test_chain_pile_and_sparse);
    return TESTING_DONE();
}
