/*
 * moteip-sim SCENARIO.json [--out RESULT.json] [--pcap FILE] [--trace FILE]
 *            [--seed N] [--perf] [--check]
 *
 * --check validates the scenario (and builds the network) without running it,
 * so front ends can report a bad scenario before starting a sweep.
 *
 * Exit status: 0 after a run (whatever the flows achieved: the result says),
 * 2 for a bad command line or scenario (the message names the key), 1 when
 * an output file cannot be written.
 */
#include "sim.h"
#include "pcap.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int usage(const char *msg)
{
    if (msg != NULL)
        fprintf(stderr, "moteip-sim: %s\n", msg);
    fprintf(stderr, "usage: moteip-sim SCENARIO.json [--out RESULT.json] [--pcap FILE] "
                    "[--trace FILE] [--seed N] [--perf] [--check]\n");
    return 2;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    const char *scen = NULL, *out = NULL, *pcap_path = NULL, *trace_path = NULL;
    bool perf = false, seed_given = false, check_only = false;
    unsigned long long seed = 0;
    struct sim_scenario sc;
    struct sim sim;
    char err[512];
    int i, rc = 0;
    double t0, t1;
    FILE *of = stdout;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--out") == 0 || strcmp(a, "--pcap") == 0 || strcmp(a, "--trace") == 0 ||
            strcmp(a, "--seed") == 0) {
            if (i + 1 >= argc) {
                snprintf(err, sizeof(err), "%s needs a value", a);
                return usage(err);
            }
            if (strcmp(a, "--out") == 0) {
                out = argv[++i];
            } else if (strcmp(a, "--pcap") == 0) {
                pcap_path = argv[++i];
            } else if (strcmp(a, "--trace") == 0) {
                trace_path = argv[++i];
            } else {
                char *end;
                const char *v = argv[++i];
                errno = 0;
                seed = strtoull(v, &end, 10);
                /* t1 fix: strtoull skips leading blanks and accepts a sign, so " -5"
                 * used to become 2^64 - 5: insist on a leading digit. */
                if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0) {
                    snprintf(err, sizeof(err), "--seed: expected a non-negative integer, got '%s'", v);
                    return usage(err);
                }
                seed_given = true;
            }
        } else if (strcmp(a, "--perf") == 0) {
            perf = true;
        } else if (strcmp(a, "--check") == 0) {
            check_only = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(NULL);
            return 0;
        } else if (a[0] == '-' && a[1] != '\0') {
            snprintf(err, sizeof(err), "unknown option '%s'", a);
            return usage(err);
        } else if (scen == NULL) {
            scen = a;
        } else {
            snprintf(err, sizeof(err), "more than one scenario ('%s', '%s')", scen, a);
            return usage(err);
        }
    }
    if (scen == NULL)
        return usage("no scenario file");
    if (!sim_scenario_load(scen, &sc, err, sizeof(err))) {
        fprintf(stderr, "moteip-sim: %s\n", err);
        return 2;
    }
    if (seed_given)
        sc.seed = seed;
    t0 = wall_s();
    if (!sim_build(&sim, &sc)) {
        fprintf(stderr, "moteip-sim: %s: %s\n", scen, sim.err);
        sim_free(&sim);
        sim_scenario_free(&sc);
        return 2;
    }
    if (check_only) {
        sim_free(&sim);
        sim_scenario_free(&sc);
        return 0;
    }
    if (pcap_path != NULL) {
        struct pcap_status ps = pcap_open(&sim.pcap, pcap_path, PCAP_LINKTYPE_IEEE802_15_4_WITHFCS);
        if (ps.code != 0) {
            fprintf(stderr, "moteip-sim: --pcap: %s\n", ps.text);
            rc = 1;
        }
    }
    if (rc == 0 && trace_path != NULL && (sim.trace = fopen(trace_path, "w")) == NULL) {
        fprintf(stderr, "moteip-sim: --trace %s: %s\n", trace_path, strerror(errno));
        rc = 1;
    }
    if (rc == 0 && out != NULL && (of = fopen(out, "w")) == NULL) {
        fprintf(stderr, "moteip-sim: --out %s: %s\n", out, strerror(errno));
        of = stdout;
        rc = 1;
    }
    if (rc == 0) {
        sim_run(&sim);
        t1 = wall_s();
        sim_write_result(&sim, of);
        /* t1 fix: a result that could not be written (e.g. stdout on a full disk)
         * is exit 1 as documented, not 0; sim_write_result has said why. */
        if (fflush(of) != 0 || ferror(of))
            rc = 1;
        if (perf) {
            double w = t1 - t0;
            fprintf(stderr, "moteip-sim: %u nodes, %.3f simulated s, %llu events, %.3f wall s, "
                            "%.0f events/s, %.1f simulated s per wall s, %zu bytes per node\n",
                    sim.n, (double)sim.now_us / 1e6, (unsigned long long)sim.events, w,
                    w > 0 ? (double)sim.events / w : 0.0,
                    w > 0 ? ((double)sim.now_us / 1e6) / w : 0.0, sizeof(struct sim_node));
        }
    }
    if (of != stdout && fclose(of) != 0) {
        fprintf(stderr, "moteip-sim: --out %s: %s\n", out, strerror(errno));
        rc = 1;
    }
    if (sim.trace != NULL && fclose(sim.trace) != 0) {
        fprintf(stderr, "moteip-sim: --trace %s: %s\n", trace_path, strerror(errno));
        rc = 1;
    }
    if (sim.pcap != NULL) {
        struct pcap_status ps = pcap_close(sim.pcap);
        if (ps.code != 0) {
            fprintf(stderr, "moteip-sim: --pcap: %s\n", ps.text);
            rc = 1;
        }
    }
    sim_free(&sim);
    sim_scenario_free(&sc);
    return rc;
}
