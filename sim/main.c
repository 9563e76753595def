/*
 * moteip-sim SCENARIO.json [--out RESULT.json] [--pcap FILE] [--pcap-view auto|radio|ip]
 *            [--pcap-node N] [--trace FILE] [--seed N] [--perf] [--check] [--strict]
 *            [--realtime [--speed X]]
 *
 * --realtime paces the run to the wall clock (realtime.h) and attaches the
 * scenario's border router to its host device (border.h); a scenario with
 * a border router runs only so.
 *
 * --check validates the scenario (and builds the network) without running it,
 * so front ends can report a bad scenario before starting a sweep.
 * --strict turns warnings (a static route out of radio range) into exit 2.
 *
 * Exit status: 0 after a run (whatever the flows achieved: the result says),
 * 2 for a bad command line or scenario (the message names the key), 1 when
 * an output file cannot be written.
 */
#include "sim.h"
#include "border.h"
#include "capture.h"
#include "realtime.h"
#include <math.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int usage(const char *msg)
{
    if (msg != NULL)
        fprintf(stderr, "moteip-sim: %s\n", msg);
    fprintf(stderr, "usage: moteip-sim SCENARIO.json [--out RESULT.json] [--pcap FILE] "
                    "[--pcap-view auto|radio|ip] [--pcap-node N] [--trace FILE] [--seed N] "
                    "[--perf] [--check] [--strict] [--realtime [--speed X]]\n");
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
    bool perf = false, seed_given = false, check_only = false, strict = false;
    bool realtime = false;
    double speed = 0.0;                 /* --speed; 0: not given */
    struct sim_realtime rt;
    unsigned long long seed = 0;
    enum sim_capture_view pcap_view = SIM_CAPTURE_AUTO;
    uint32_t pcap_node = SIM_CAPTURE_ALL;
    struct sim_capture capture;
    struct sim_scenario sc;
    struct sim sim;
    char err[512];
    int i, rc = 0;
    double t0, t1;
    FILE *of = stdout;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--out") == 0 || strcmp(a, "--pcap") == 0 || strcmp(a, "--trace") == 0 ||
            strcmp(a, "--seed") == 0 || strcmp(a, "--pcap-view") == 0 ||
            strcmp(a, "--pcap-node") == 0 || strcmp(a, "--speed") == 0) {
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
            } else if (strcmp(a, "--pcap-view") == 0) {
                const char *v = argv[++i];
                if (strcmp(v, "auto") == 0) {
                    pcap_view = SIM_CAPTURE_AUTO;
                } else if (strcmp(v, "radio") == 0) {
                    pcap_view = SIM_CAPTURE_RADIO;
                } else if (strcmp(v, "ip") == 0) {
                    pcap_view = SIM_CAPTURE_IP;
                } else {
                    snprintf(err, sizeof(err), "--pcap-view: expected auto, radio or ip, got '%s'", v);
                    return usage(err);
                }
            } else if (strcmp(a, "--speed") == 0) {
                char *end;
                const char *v = argv[++i];
                errno = 0;
                speed = strtod(v, &end);
                if (end == v || *end != '\0' || errno != 0 || !isfinite(speed) ||
                    !(speed >= 1e-3 && speed <= 1e6)) {
                    snprintf(err, sizeof(err), "--speed: expected simulated seconds per wall "
                             "second in [0.001, 1e6], got '%s'", v);
                    return usage(err);
                }
            } else if (strcmp(a, "--pcap-node") == 0) {
                char *end;
                const char *v = argv[++i];
                unsigned long n;
                errno = 0;
                n = strtoul(v, &end, 10);
                if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0 || n >= SIM_CAPTURE_ALL) {
                    snprintf(err, sizeof(err), "--pcap-node: expected a node id, got '%s'", v);
                    return usage(err);
                }
                pcap_node = (uint32_t)n;
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
        } else if (strcmp(a, "--strict") == 0) {
            strict = true;
        } else if (strcmp(a, "--realtime") == 0) {
            realtime = true;
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
    if (speed != 0.0 && !realtime)
        return usage("--speed needs --realtime");
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
    if (strict && sim.warnings > 0) {
        fprintf(stderr, "moteip-sim: %s: %u warning%s, and --strict makes them errors\n", scen,
                sim.warnings, sim.warnings == 1 ? "" : "s");
        sim_free(&sim);
        sim_scenario_free(&sc);
        return 2;
    }
    if (check_only) {
        sim_free(&sim);
        sim_scenario_free(&sc);
        return 0;
    }
    if (sc.border.on && !realtime) {
        fprintf(stderr, "moteip-sim: %s: border: a border router runs only with --realtime "
                        "(the host's programs live on the wall clock)\n", scen);
        rc = 2;
    } else if (sc.border.on && !sim_border_open(&sim, err, sizeof(err))) {
        fprintf(stderr, "moteip-sim: %s: %s\n", scen, err);
        rc = 2;
    } else if (realtime && !sim_realtime_init(&rt, speed != 0.0 ? speed : 1.0, err, sizeof(err))) {
        fprintf(stderr, "moteip-sim: %s\n", err);
        rc = 1;
    } else if (realtime) {
        sim.rt = &rt;
    }
    if (rc != 0) {
        sim_free(&sim);
        sim_scenario_free(&sc);
        return rc;
    }
    if (pcap_path != NULL) {
        struct pcap_status ps = sim_capture_open(&sim, &capture, pcap_path, pcap_view, pcap_node);
        if (ps.code != 0) {
            fprintf(stderr, "moteip-sim: --pcap: %s\n", ps.text);
            rc = ps.code == EINVAL ? 2 : 1;
        }
    } else if (pcap_view != SIM_CAPTURE_AUTO || pcap_node != SIM_CAPTURE_ALL) {
        fprintf(stderr, "moteip-sim: --pcap-view and --pcap-node need --pcap FILE\n");
        rc = 2;
    }
    if (rc == 0 && trace_path != NULL && (sim.trace = fopen(trace_path, "w")) == NULL) {
        fprintf(stderr, "moteip-sim: --trace %s: %s\n", trace_path, strerror(errno));
        rc = 1;
    }
    sim_trace_network(&sim);
    if (rc == 0 && out != NULL && (of = fopen(out, "w")) == NULL) {
        fprintf(stderr, "moteip-sim: --out %s: %s\n", out, strerror(errno));
        of = stdout;
        rc = 1;
    }
    if (rc == 0 && sim.rt != NULL) {
        char addr[64] = "";
        if (sc.border.on)
            (void)mip_addr_format(&sc.border.addr, addr, sizeof(addr));
        /* the line a script waits for before it talks to the network */
        fprintf(stderr, "moteip-sim: realtime: running %u nodes for %.3f simulated s at "
                        "speed %g", sim.n, (double)sim.end_us / 1e6, rt.speed);
        if (sc.border.on)
            fprintf(stderr, "; border router node %u on %s '%s' as %s/%u", sc.border.node,
                    sc.border.kind == SIM_BORDER_TUN ? "tun" : "tap", sc.border.device, addr,
                    sc.border.addr_len);
        fputc('\n', stderr);
    }
    if (rc == 0) {
        if (sim.rt != NULL)
            sim_realtime_run(&sim, sim.rt);
        else
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
    if (sim.capture != NULL) {
        struct pcap_status ps = sim_capture_close(&sim);
        if (ps.code != 0) {
            fprintf(stderr, "moteip-sim: --pcap: %s\n", ps.text);
            rc = 1;
        }
    }
    if (sim.rt != NULL)
        sim_realtime_close(sim.rt);
    sim_free(&sim);
    sim_scenario_free(&sc);
    return rc;
}
