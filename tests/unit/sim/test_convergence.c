/*
 * The convergence metric (sim/dynamics.c): a routing arm that nodes join
 * gives the simulator its view of each node (sim_dyn_set_joined); a probe
 * every 100 ms finds the first time every node that is up has joined
 * ("routing.convergence_s") and, after each scenario event, the time until
 * they have again ("reconverged_after_s"). A fake arm here: node i joins at
 * i seconds, and node 3 is out between 6 and 7.25 s (the death of node 2 at
 * 6 s; node 2 itself, down, is not asked).
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "sim.h"
#include "testing.h"

static void fake_joined(struct sim *sim, uint8_t *joined)
{
    uint32_t node;
    for (node = 0; node < sim->n; node++)
        joined[node] = sim->now_us >= (uint64_t)node * 1000000u &&
                       !(node == 3u && sim->now_us >= 6000000u && sim->now_us < 7250000u);
}

/* Runs `text` with the fake arm (or none) and returns the result's root. */
static struct sj_doc *run(const char *text, bool arm)
{
    struct sim_scenario sc;
    struct sim sim;
    char err[256] = "", *buf = NULL;
    size_t len = 0;
    FILE *f;
    struct sj_doc *doc;
    struct sj_error jerr;
    CHECK(sim_scenario_parse(text, strlen(text), "s.json", &sc, err, sizeof(err)));
    CHECK(sim_build(&sim, &sc));
    if (arm)
        sim_dyn_set_joined(&sim, fake_joined);
    sim_run(&sim);
    f = open_memstream(&buf, &len);
    sim_write_result(&sim, f);
    fclose(f);
    sim_free(&sim);
    sim_scenario_free(&sc);
    doc = sj_parse(buf, len, NULL, &jerr);
    free(buf);
    CHECK(doc != NULL);
    return doc;
}

static double num(const struct sj_value *v)
{
    double d = -1.0;
    CHECK(v != NULL && sj_as_double(v, &d));
    return d;
}

#define SCEN(events) \
    "{\"duration_s\": 10, \"stop_when_done\": false, " \
    "\"topology\": {\"type\": \"chain\", \"nodes\": 5, \"spacing_m\": 10}" events "}"

static void test_first_convergence_and_rejoining_after_an_event(void)
{
    struct sj_doc *doc = run(SCEN(", \"events\": [{\"type\": \"node_down\", \"at_s\": 6, "
                                  "\"node\": 2}]"), true);
    const struct sj_value *root = sj_doc_root(doc);
    const struct sj_value *ev = sj_at(sj_get(root, "scenario_events"), 0);
    /* node 4 joins at 4 s: the probe at 4.0 s sees everyone */
    CHECK(num(sj_get(sj_get(root, "routing"), "convergence_s")) == 4.0);
    /* node 3 is back at 7.25 s: the probe at 7.3 s */
    CHECK(num(sj_get(ev, "reconverged_after_s")) > 1.299 &&
          num(sj_get(ev, "reconverged_after_s")) < 1.301);
    sj_doc_free(doc);
}

static void test_an_event_that_breaks_nothing_rejoins_at_once(void)
{
    struct sj_doc *doc = run(SCEN(", \"events\": [{\"type\": \"link\", \"at_s\": 5, "
                                  "\"node\": 0, \"to\": 1, \"prr\": 0.5}]"), true);
    const struct sj_value *ev = sj_at(sj_get(sj_doc_root(doc), "scenario_events"), 0);
    CHECK(num(sj_get(ev, "reconverged_after_s")) == 0.0);
    sj_doc_free(doc);
}

static void test_no_arm_no_metric(void)
{
    struct sj_doc *doc = run(SCEN(""), false);
    CHECK(sj_get(sj_get(sj_doc_root(doc), "routing"), "convergence_s") == NULL);
    sj_doc_free(doc);
}

int main(void)
{
    RUN(test_first_convergence_and_rejoining_after_an_event);
    RUN(test_an_event_that_breaks_nothing_rejoins_at_once);
    RUN(test_no_arm_no_metric);
    return TESTING_DONE();
}
