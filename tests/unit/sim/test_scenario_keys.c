/*
 * The scenario key tables (sim/scenario.c): the defaults each object gets
 * when its keys are left out, the unknown-key list built from the tables,
 * and docs/SIMULATOR.md holding the tables exactly as sim_scenario_keys_md()
 * prints them. MOTEIP_UPDATE_DOCS=1 rewrites that section of the docs
 * instead of failing.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "testing.h"

#define BEGIN_MARK "<!-- scenario-keys: begin -->\n"
#define END_MARK "<!-- scenario-keys: end -->\n"

static bool parse(const char *text, struct sim_scenario *sc, char *err, size_t errlen)
{
    return sim_scenario_parse(text, strlen(text), "s.json", sc, err, errlen);
}

#define TOPO "\"topology\": {\"type\": \"chain\", \"nodes\": 3, \"spacing_m\": 10}"

/* A flow of each type with only its required keys gets its type's defaults. */
static void test_flows_get_their_types_defaults(void)
{
    static const char text[] =
        "{" TOPO ", \"flows\": ["
        "{\"type\": \"tcp\", \"src\": 0, \"dst\": 2, \"bytes\": 1000},"
        "{\"type\": \"udp\", \"src\": 0, \"dst\": 2},"
        "{\"type\": \"ping\", \"src\": 0, \"dst\": 2},"
        "{\"type\": \"sensor\", \"src\": 0, \"dst\": 2},"
        "{\"type\": \"sensor\", \"src\": 1, \"dst\": 2, \"transport\": \"coap\"}]}";
    struct sim_scenario sc;
    char err[256] = "";
    CHECK(parse(text, &sc, err, sizeof(err)));
    if (sc.n_flows != 5u) {
        CHECK_EQ(sc.n_flows, 5u);
        return;
    }
    CHECK_EQ(sc.flows[0].port, 7400u);
    CHECK_EQ(sc.flows[0].tx_buffer, 2048u);
    CHECK_EQ(sc.flows[0].mss, 0u);
    CHECK(sc.flows[0].sender.sack && sc.flows[0].receiver.timestamps);
    CHECK_EQ(sc.flows[0].sender.max_retries, 0u);
    CHECK_EQ(sc.flows[1].port, 6000u);
    CHECK_EQ(sc.flows[1].payload_bytes, 32u);
    CHECK(sc.flows[1].interval_s == 1.0);
    CHECK_EQ(sc.flows[2].port, 0u);
    CHECK_EQ(sc.flows[2].count, 10u);
    CHECK_EQ(sc.flows[2].payload_bytes, 16u);
    CHECK_EQ(sc.flows[3].port, 7403u);
    CHECK_EQ(sc.flows[3].queue, 64u);
    CHECK_EQ(sc.flows[3].mss, 408u);
    CHECK_EQ(sc.flows[3].tx_buffer, 40u * 82u);
    CHECK_EQ(sc.flows[3].sender.max_retries, 12u);
    CHECK(sc.flows[3].drain_s == 120.0);
    CHECK_EQ(sc.flows[4].queue, 104u);
    sim_scenario_free(&sc);
}

/* Keys that default to other keys follow them. */
static void test_derived_defaults_follow_their_keys(void)
{
    static const char text[] =
        "{" TOPO ", \"phy\": {\"bitrate\": 100000},"
        "\"medium\": {\"range_m\": 70}, \"radio\": {\"rx_ma\": 20}}";
    struct sim_scenario sc;
    char err[256] = "";
    CHECK(parse(text, &sc, err, sizeof(err)));
    CHECK_EQ(sc.timing.ack_wait_us, 2160u);     /* 864 us at 250 kb/s, scaled */
    CHECK(sc.interference_range_m == 70.0 && sc.cs_range_m == 70.0);
    CHECK(sc.radio.listen_ma == 20.0);
    CHECK(sc.radio.tx_ma == 17.4);              /* the cc2420 profile's */
    sim_scenario_free(&sc);
}

/* The error for an unknown key lists every key of the object once, in the
 * order of its tables. */
static void test_unknown_key_lists_the_objects_keys(void)
{
    static const struct {
        const char *text, *err;
    } cases[] = {
        { "{" TOPO ", \"record\": {\"rtt\": true}}",
          "s.json: record.rtt: unknown key; known keys here: relay_rtt, cache_hold, in_flight" },
        { "{" TOPO ", \"flows\": [{\"type\": \"udp\", \"src\": 0, \"dst\": 1, \"rate\": 1}]}",
          "s.json: flows[0].rate: unknown key; known keys here: type, src, dst, port, start_s, "
          "bytes, segments, segment_bytes, duration_s, mss, tx_buffer, rx_buffer, merge_group, "
          "merge_buffer, sender, receiver, interval_s, count, payload_bytes, region_bits, transport, "
          "reading_bytes, batch, queue, "
          "coap_payload, coap_ack_timeout_ms, loss, drain_s" },
        { "{" TOPO ", \"relay\": {}}", "s.json: relay.mode: missing; expected one of \"off\", "
          "\"tss\", \"dtc\", \"cctrl\"" },
        { "{" TOPO ", \"relay\": {\"mode\": \"cctrl\", \"alpha\": 0}}",
          "s.json: relay.alpha: expected a number in [0.00390625, 1], got 0" },
    };
    size_t i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sim_scenario sc;
        char err[512] = "";
        CHECK(!parse(cases[i].text, &sc, err, sizeof(err)));
        if (strcmp(err, cases[i].err) != 0) {
            fprintf(stderr, "case %zu:\n  got  %s\n  want %s\n", i, err, cases[i].err);
            CHECK(false);
        }
    }
}

static char *read_all(FILE *f, size_t *len)
{
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    do {
        if (n + 4096u + 1u > cap) {
            char *nb;
            cap = (n + 4096u + 1u) * 2u;
            nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, 4096u, f);
        n += got;
    } while (got > 0u);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* docs/SIMULATOR.md, from this file's path (tests/unit/sim/ in the tree). */
static void docs_path(char *out, size_t size)
{
    const char *me = __FILE__, *cut = strstr(me, "tests/unit/sim/");
    int n = cut != NULL ? (int)(cut - me) : 0;
    snprintf(out, size, "%.*sdocs/SIMULATOR.md", n, me);
}

static void test_docs_list_the_key_tables(void)
{
    char path[1024], *gen = NULL, *doc, *b, *e;
    size_t gen_len = 0, doc_len;
    FILE *f, *m = open_memstream(&gen, &gen_len);
    CHECK(m != NULL);
    if (m == NULL)
        return;
    sim_scenario_keys_md(m);
    fclose(m);
    docs_path(path, sizeof(path));
    f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f == NULL) {
        free(gen);
        return;
    }
    doc = read_all(f, &doc_len);
    fclose(f);
    CHECK(doc != NULL);
    b = doc != NULL ? strstr(doc, BEGIN_MARK) : NULL;
    e = b != NULL ? strstr(b, END_MARK) : NULL;
    CHECK(b != NULL && e != NULL);
    if (b != NULL && e != NULL) {
        b += strlen(BEGIN_MARK);
        if ((size_t)(e - b) == gen_len && memcmp(b, gen, gen_len) == 0) {
            CHECK(true);
        } else if (getenv("MOTEIP_UPDATE_DOCS") != NULL && (f = fopen(path, "wb")) != NULL) {
            fwrite(doc, 1, (size_t)(b - doc), f);
            fwrite(gen, 1, gen_len, f);
            fwrite(e, 1, strlen(e), f);
            fclose(f);
            fprintf(stderr, "rewrote the key tables in %s\n", path);
        } else {
            fprintf(stderr, "%s does not hold the key tables of sim/scenario.c; run this test "
                    "with MOTEIP_UPDATE_DOCS=1 to rewrite them. They are:\n%s", path, gen);
            CHECK(false);
        }
    }
    free(doc);
    free(gen);
}

int main(void)
{
    RUN(test_flows_get_their_types_defaults);
    RUN(test_derived_defaults_follow_their_keys);
    RUN(test_unknown_key_lists_the_objects_keys);
    RUN(test_docs_list_the_key_tables);
    return TESTING_DONE();
}
