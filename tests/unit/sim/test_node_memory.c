/*
 * Memory per simulated node (docs/SIMULATOR.md, "Scale"): the node struct
 * stays within 24 KB in the default build, and the tables whose size
 * depends on the node's role are given only to the nodes that have it: a
 * parent RDC's held frames to parents, the relay's, RPL's and geo routing's
 * instances where the scenario runs them. The simulator's stack build has no
 * big buffers of its own (MIP_BUFS_OWN 0): a stack without the caller's
 * storage is refused, and with it gets the full profile's capacity.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "testing.h"

static void test_node_within_24_kb(void)
{
    printf("  sizeof(struct sim_node) = %zu B\n", sizeof(struct sim_node));
    CHECK(sizeof(struct sim_node) <= 24u * 1024u);
    CHECK_EQ(MIP_BUFS_OWN, 0);
}

static void test_stack_needs_the_callers_buffers(void)
{
    struct mip_stack *s = calloc(1, sizeof(*s));
    struct mip_pbuf hdr[MIP_PBUF_COUNT];
    uint8_t *mem = calloc(1, SIM_NODE_BUF_BYTES);
    struct mip_pbuf_storage st = { hdr, mem, MIP_PBUF_COUNT, MIP_PBUF_SIZE };
    struct mip_stack_config cfg;
    unsigned i;
    CHECK(s != NULL && mem != NULL);
    memset(&cfg, 0, sizeof(cfg));
    CHECK_EQ(mip_stack_init(s, &cfg, 0), MIP_ERR_INVALID);       /* neither */
    cfg.pbufs = &st;
    CHECK_EQ(mip_stack_init(s, &cfg, 0), MIP_ERR_INVALID);       /* no reassembly buffers */
    cfg.pbufs = NULL;
    cfg.reass_mem = mem + SIM_PBUF_BYTES;
    CHECK_EQ(mip_stack_init(s, &cfg, 0), MIP_ERR_INVALID);       /* no packet buffers */
    cfg.pbufs = &st;
    CHECK_EQ(mip_stack_init(s, &cfg, 0), MIP_OK);
    CHECK_EQ(s->pool.count, MIP_PBUF_COUNT);
    CHECK_EQ(s->pool.size, MIP_PBUF_SIZE);
    for (i = 0; i < MIP_PBUF_COUNT; i++)
        CHECK(mip_pbuf_alloc(&s->pool, 0) != NULL);
    CHECK(mip_pbuf_alloc(&s->pool, 0) == NULL);
    for (i = 0; i < MIP_REASS_SLOTS; i++)
        CHECK(s->reass[i].data == mem + SIM_PBUF_BYTES + i * MIP_REASS_SIZE);
    free(mem);
    free(s);
}

static void build(struct sim *sim, struct sim_scenario *sc, const char *text)
{
    char err[512] = "";
    if (!sim_scenario_parse(text, strlen(text), "s.json", sc, err, sizeof(err)))
        printf("  %s\n", err);
    CHECK(err[0] == '\0');
    CHECK(sim_build(sim, sc));
}

static void test_role_tables_only_where_the_role_is(void)
{
    struct sim_scenario sc;
    struct sim sim;
    uint32_t i;
    /* node 0 a parent, node 1 its sleepy leaf, node 2 on NullRDC */
    build(&sim, &sc,
          "{\"duration_s\": 5,"
          " \"topology\": {\"type\": \"chain\", \"nodes\": 3, \"spacing_m\": 10},"
          " \"medium\": {\"range_m\": 12}, \"mac\": {\"type\": \"csma_ca\", \"nodes\": ["
          " {\"ids\": [0], \"rdc\": {\"type\": \"parent\"}},"
          " {\"ids\": [1], \"rdc\": {\"type\": \"leaf\", \"parent\": 0}}]}}");
    CHECK(sim.node[0].rdc_held != NULL);
    CHECK(sim.node[1].rdc_held == NULL);
    CHECK(sim.node[2].rdc_held == NULL);
    for (i = 0; i < sim.n; i++)
        CHECK(sim.node[i].relay == NULL && sim.node[i].rpl == NULL && sim.node[i].geo == NULL);
    sim_run(&sim);
    sim_free(&sim);
    sim_scenario_free(&sc);

    build(&sim, &sc,
          "{\"duration_s\": 5,"
          " \"topology\": {\"type\": \"chain\", \"nodes\": 3, \"spacing_m\": 10},"
          " \"medium\": {\"range_m\": 12}, \"routing\": {\"type\": \"rpl\"},"
          " \"relay\": {\"mode\": \"dtc\"}}");
    for (i = 0; i < sim.n; i++) {
        CHECK(sim.node[i].relay != NULL && sim.node[i].rpl != NULL);
        CHECK(sim.node[i].geo == NULL && sim.node[i].rdc_held == NULL);
    }
    sim_run(&sim);
    sim_free(&sim);
    sim_scenario_free(&sc);
}

int main(void)
{
    RUN(test_node_within_24_kb);
    RUN(test_stack_needs_the_callers_buffers);
    RUN(test_role_tables_only_where_the_role_is);
    return TESTING_DONE();
}
