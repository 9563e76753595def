/*
 * Networks without 16-bit short addresses (sim.h): above 65534 nodes, or
 * with link.short_addresses false, every node sends with its extended
 * address and its IID derives from it. Traffic still flows (UDP to node
 * 0, whose IID would be all zeros without the 02:00:00:01 prefix, and TCP
 * both ways over several hops); what needs short addresses is refused
 * with a message that names the limit.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "sim.h"
#include "testing.h"

static struct sj_doc *run(const char *text)
{
    struct sim_scenario sc;
    struct sim sim;
    char err[256] = "", *buf = NULL;
    size_t len = 0;
    FILE *f;
    struct sj_doc *doc;
    struct sj_error jerr;
    CHECK(sim_scenario_parse(text, strlen(text), "s.json", &sc, err, sizeof(err)));
    CHECK(!sc.short_addresses);
    CHECK(sim_build(&sim, &sc));
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

static void test_udp_and_tcp_flow_on_extended_addresses(void)
{
    struct sj_doc *doc = run(
        "{\"duration_s\": 60, \"stop_when_done\": false, \"link\": {\"short_addresses\": false},"
        " \"topology\": {\"type\": \"chain\", \"nodes\": 5, \"spacing_m\": 10},"
        " \"medium\": {\"range_m\": 12, \"interference_range_m\": 22},"
        " \"flows\": [{\"type\": \"udp\", \"src\": 4, \"dst\": 0, \"interval_s\": 5,"
        " \"payload_bytes\": 32, \"start_s\": 1},"
        " {\"type\": \"tcp\", \"src\": 1, \"dst\": 4, \"bytes\": 3000, \"start_s\": 2}]}");
    const struct sj_value *flows = sj_get(sj_doc_root(doc), "flows");
    const struct sj_value *udp = sj_at(flows, 0), *tcp = sj_at(flows, 1);
    CHECK(num(sj_get(udp, "hops")) == 4.0);
    CHECK(num(sj_get(udp, "sent")) >= 11.0);
    CHECK(num(sj_get(udp, "received")) == num(sj_get(udp, "sent")));
    bool complete = false;
    CHECK(sj_as_bool(sj_get(tcp, "complete"), &complete) && complete);
    CHECK(num(sj_get(tcp, "hops")) == 3.0);
    sj_doc_free(doc);
}

static void refused(const char *text, const char *needle)
{
    struct sim_scenario sc;
    char err[512] = "";
    CHECK(!sim_scenario_parse(text, strlen(text), "s.json", &sc, err, sizeof(err)));
    if (strstr(err, needle) == NULL)
        fprintf(stderr, "expected \"%s\" in: %s\n", needle, err);
    CHECK(strstr(err, needle) != NULL);
}

static void test_what_needs_short_addresses_is_refused(void)
{
    refused("{\"topology\": {\"type\": \"random\", \"nodes\": 70000, \"width_m\": 9000, "
            "\"height_m\": 9000}, \"link\": {\"mode\": \"raw\", \"ip\": \"ipv4\"}}",
            "topology.nodes: expected at most 65534 nodes (802.15.4 short addresses are 16-bit");
    refused("{\"topology\": {\"type\": \"random\", \"nodes\": 70000, \"width_m\": 9000, "
            "\"height_m\": 9000}, \"link\": {\"short_addresses\": true}}",
            "link.short_addresses: expected false above 65534 nodes");
    refused("{\"topology\": {\"type\": \"chain\", \"nodes\": 3, \"spacing_m\": 10}, "
            "\"link\": {\"short_addresses\": false, \"mode\": \"raw\", \"ip\": \"ipv4\"}}",
            "expected link.short_addresses true");
}

static void test_above_65534_nodes_no_short_addresses(void)
{
    struct sim_scenario sc;
    char err[256] = "";
    const char *t = "{\"topology\": {\"type\": \"random\", \"nodes\": 65535, \"width_m\": 9000, "
                    "\"height_m\": 9000}}";
    CHECK(sim_scenario_parse(t, strlen(t), "s.json", &sc, err, sizeof(err)));
    CHECK(!sc.short_addresses);
    sim_scenario_free(&sc);
    t = "{\"topology\": {\"type\": \"random\", \"nodes\": 65534, \"width_m\": 9000, "
        "\"height_m\": 9000}}";
    CHECK(sim_scenario_parse(t, strlen(t), "s.json", &sc, err, sizeof(err)));
    CHECK(sc.short_addresses);
    sim_scenario_free(&sc);
}

int main(void)
{
    RUN(test_udp_and_tcp_flow_on_extended_addresses);
    RUN(test_what_needs_short_addresses_is_refused);
    RUN(test_above_65534_nodes_no_short_addresses);
    return TESTING_DONE();
}
