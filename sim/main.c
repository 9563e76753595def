/*
 * sim/: moteip-sim, the discrete-event simulator of multi-hop 802.15.4
 * networks that runs the real stack on every node (docs/SIMULATOR.md,
 * the map in docs/ARCHITECTURE.md). It sits on the top floor: it may
 * include every floor of the stack (src/ through include/moteip), apps/
 * (the services it runs on nodes) and, for the border router only,
 * port/linux's TUN/TAP driver; nothing below includes sim/.
 *
 * moteip-sim SCENARIO.json [--out RESULT.json] [--pcap FILE] [--pcap-view auto|radio|ip]
 *            [--pcap-node N] [--trace FILE [--trace-radio]] [--seed N] [--perf] [--check] [--strict]
 *            [--realtime [--speed X]]
 *
 * --realtime paces the run to the wall clock (realtime.h) and attaches the
 * scenario's border router to its host device (border.h) and its external
 * nodes to their ZEP sockets (external.h); a scenario with either runs
 * only so.
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
#include "external.h"
#include "capture.h"
#include "realtime.h"
#include "zep_mirror.h"
#include <math.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct sim_args {
    const char *scen, *out, *pcap_path, *trace_path, *zep_mirror;
    bool perf, seed_given, check_only, strict, realtime, help, trace_radio;
    double speed;                       /* --speed; 0: not given */
    unsigned long long seed;
    enum sim_capture_view pcap_view;
    uint32_t pcap_node;
};

/* --- the command line: one table parses it and prints the usage --------- */

struct sim_option;
/* Checks `v` (NULL for a flag) into `a`; false with a message in err. */
typedef bool (*sim_opt_fn)(const struct sim_option *opt, const char *v, struct sim_args *a,
                           char *err, size_t cap);

struct sim_option {
    const char *name;          /* "--out" */
    const char *arg;           /* its value in the usage; NULL: a flag */
    sim_opt_fn parse;
    size_t field;              /* offsetof(struct sim_args, what `parse` fills) */
    bool inside_prev;          /* usage: "[--realtime [--speed X]]" */
    const char *help;          /* --help: what it does (at most two lines) */
};

static void *opt_field(const struct sim_option *opt, struct sim_args *a)
{
    return (char *)a + opt->field;
}

static bool opt_path(const struct sim_option *opt, const char *v, struct sim_args *a,
                     char *err, size_t cap)
{
    (void)err;
    (void)cap;
    *(const char **)opt_field(opt, a) = v;
    return true;
}

static bool opt_flag(const struct sim_option *opt, const char *v, struct sim_args *a,
                     char *err, size_t cap)
{
    (void)v;
    (void)err;
    (void)cap;
    *(bool *)opt_field(opt, a) = true;
    return true;
}

static bool opt_view(const struct sim_option *opt, const char *v, struct sim_args *a,
                     char *err, size_t cap)
{
    static const char names[][6] = { "auto", "radio", "ip" };
    static const enum sim_capture_view views[] = { SIM_CAPTURE_AUTO, SIM_CAPTURE_RADIO,
                                                   SIM_CAPTURE_IP };
    size_t k;

    (void)opt;
    for (k = 0; k < sizeof(views) / sizeof(views[0]); k++) {
        if (strcmp(v, names[k]) == 0) {
            a->pcap_view = views[k];
            return true;
        }
    }
    snprintf(err, cap, "--pcap-view: expected auto, radio or ip, got '%s'", v);
    return false;
}

static bool opt_node(const struct sim_option *opt, const char *v, struct sim_args *a,
                     char *err, size_t cap)
{
    char *end;
    unsigned long n;

    (void)opt;
    errno = 0;
    n = strtoul(v, &end, 10);
    if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0 || n >= SIM_CAPTURE_ALL) {
        snprintf(err, cap, "--pcap-node: expected a node id, got '%s'", v);
        return false;
    }
    a->pcap_node = (uint32_t)n;
    return true;
}

static bool opt_seed(const struct sim_option *opt, const char *v, struct sim_args *a,
                     char *err, size_t cap)
{
    char *end;

    (void)opt;
    errno = 0;
    a->seed = strtoull(v, &end, 10);
    /* t1 fix: strtoull skips leading blanks and accepts a sign, so " -5"
     * used to become 2^64 - 5: insist on a leading digit. */
    /* the scenario's seed key has the same range (K_INT "seed", sim/scenario.c) */
    if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0 || a->seed > (uint64_t)INT64_MAX) {
        snprintf(err, cap, "--seed: expected an integer in [0, %lld], got '%s'",
                 (long long)INT64_MAX, v);
        return false;
    }
    a->seed_given = true;
    return true;
}

static bool opt_speed(const struct sim_option *opt, const char *v, struct sim_args *a,
                      char *err, size_t cap)
{
    char *end;

    (void)opt;
    errno = 0;
    a->speed = strtod(v, &end);
    if (end == v || *end != '\0' || errno != 0 || !isfinite(a->speed) ||
        !(a->speed >= 1e-3 && a->speed <= 1e6)) {
        snprintf(err, cap, "--speed: expected simulated seconds per wall "
                 "second in [0.001, 1e6], got '%s'", v);
        return false;
    }
    return true;
}

#define F(member) offsetof(struct sim_args, member)

/* The command line, in usage order; --help is last and not in the usage. */
static const struct sim_option options[] = {
    { "--out", "RESULT.json", opt_path, F(out), false,
      "write the result JSON there (default: stdout)" },
    { "--pcap", "FILE", opt_path, F(pcap_path), false,
      "every frame on the air at its start time (pcap)" },
    { "--pcap-view", "auto|radio|ip", opt_view, F(pcap_view), false,
      "radio: 802.15.4 frames; ip: IP datagrams (link mode raw, or\n"
      "each iphc frame as its receiver decompresses it);\n"
      "auto (default): ip for link mode raw, else radio" },
    { "--pcap-node", "N", opt_node, F(pcap_node), false,
      "what node N's own interface sees, not the whole medium" },
    { "--trace", "FILE", opt_path, F(trace_path), false,
      "JSON lines: the network, then its events" },
    { "--trace-radio", NULL, opt_flag, F(trace_radio), true,
      "with --trace: every radio state change (off, listen, rx, tx)" },
    { "--zep-mirror", "ADDR:PORT", opt_path, F(zep_mirror), false,
      "every frame on the air also as a ZEP datagram to ADDR:PORT\n"
      "(live capture: tshark -i lo -f 'udp port PORT')" },
    { "--seed", "N", opt_seed, F(seed), false, "overrides the scenario's seed" },
    { "--perf", NULL, opt_flag, F(perf), false,
      "events/s, simulated s per wall s, bytes per node (stderr)" },
    { "--check", NULL, opt_flag, F(check_only), false,
      "validate the scenario and build the network; no run" },
    { "--strict", NULL, opt_flag, F(strict), false, "warnings are errors (exit 2)" },
    { "--realtime", NULL, opt_flag, F(realtime), false,
      "run on the wall clock, with the scenario's border router" },
    { "--speed", "X", opt_speed, F(speed), true,
      "with --realtime: simulated s per wall s, 0.001..1e6 (default 1)" },
    { "--help", NULL, opt_flag, F(help), false, "print this help and exit" },
};

#undef F

#define N_OPTIONS (sizeof(options) / sizeof(options[0]))

static void print_synopsis(FILE *f)
{
    size_t k;

    fputs("usage: moteip-sim SCENARIO.json", f);
    for (k = 0; k + 1 < N_OPTIONS; k++) {          /* all but --help */
        const struct sim_option *opt = &options[k];
        fprintf(f, " [%s%s%s", opt->name, opt->arg ? " " : "", opt->arg ? opt->arg : "");
        if (options[k + 1].inside_prev)
            continue;                      /* closed after the one inside it */
        fputs(opt->inside_prev ? "]]" : "]", f);
    }
    fputc('\n', f);
}

/* The message (if any) and the usage line on stderr; exit status 2. */
static int usage(const char *msg)
{
    if (msg != NULL)
        fprintf(stderr, "moteip-sim: %s\n", msg);
    print_synopsis(stderr);
    return 2;
}

static void help(void)
{
    size_t k;

    print_synopsis(stderr);
    for (k = 0; k < N_OPTIONS; k++) {
        char label[40];
        const char *h = options[k].help, *nl = strchr(h, '\n');
        snprintf(label, sizeof(label), "%s%s%s", options[k].name, options[k].arg ? " " : "",
                 options[k].arg ? options[k].arg : "");
        fprintf(stderr, "  %-26s %.*s\n", label, nl ? (int)(nl - h) : (int)strlen(h), h);
        if (nl != NULL)
            fprintf(stderr, "  %-26s %s\n", "", nl + 1);
    }
}

static const struct sim_option *find_option(const char *arg)
{
    size_t k;

    if (strcmp(arg, "-h") == 0)
        arg = "--help";
    for (k = 0; k < N_OPTIONS; k++)
        if (strcmp(arg, options[k].name) == 0)
            return &options[k];
    return NULL;
}

/* A word that names no option: the scenario, unless it looks like an
 * option or a scenario was named already. */
static bool take_scenario(const char *arg, struct sim_args *a, char *err, size_t cap)
{
    if (arg[0] == '-' && arg[1] != '\0') {
        snprintf(err, cap, "unknown option '%s'", arg);
        return false;
    }
    if (a->scen != NULL) {
        snprintf(err, cap, "more than one scenario ('%s', '%s')", a->scen, arg);
        return false;
    }
    a->scen = arg;
    return true;
}

/* Checks that need the whole command line. */
static bool finish_args(const struct sim_args *a, char *err, size_t cap)
{
    if (a->scen == NULL) {
        snprintf(err, cap, "no scenario file");
        return false;
    }
    if (a->speed != 0.0 && !a->realtime) {
        snprintf(err, cap, "--speed needs --realtime");
        return false;
    }
    return true;
}

/* Returns false with a message in err; a->help when --help came first. */
static bool parse_args(int argc, char **argv, struct sim_args *a, char *err, size_t cap)
{
    int i;

    memset(a, 0, sizeof(*a));
    a->pcap_view = SIM_CAPTURE_AUTO;
    a->pcap_node = SIM_CAPTURE_ALL;
    for (i = 1; i < argc && !a->help; i++) {
        const struct sim_option *opt = find_option(argv[i]);

        if (opt == NULL) {
            if (!take_scenario(argv[i], a, err, cap))
                return false;
            continue;
        }
        if (opt->arg != NULL && i + 1 >= argc) {
            snprintf(err, cap, "%s needs a value", argv[i]);
            return false;
        }
        if (!opt->parse(opt, opt->arg != NULL ? argv[++i] : NULL, a, err, cap))
            return false;
    }
    return a->help || finish_args(a, err, cap);
}

/* --- the run ------------------------------------------------------------- */

struct sim_main {
    struct sim_args a;
    struct sim_scenario sc;
    struct sim sim;
    struct sim_realtime rt;
    struct sim_capture capture;
    struct sim_zep_mirror zep_mirror;
    FILE *of;                           /* the result: stdout or --out */
    double load_s, build_s;             /* --perf: wall time of the set-up parts */
    double setup_cpu_s;                 /* ... and the CPU time of the whole set-up */
    char err[512];
};

/* CPU seconds of this process (--perf: on a loaded machine, wall time
 * also counts the other processes' turns). */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The network from the scenario; 0, or 2 for a bad scenario or --strict. */
static int build_network(struct sim_main *m)
{
    if (!sim_build(&m->sim, &m->sc)) {
        fprintf(stderr, "moteip-sim: %s: %s\n", m->a.scen, m->sim.err);
        return 2;
    }
    if (m->a.strict && m->sim.warnings > 0) {
        fprintf(stderr, "moteip-sim: %s: %u warning%s, and --strict makes them errors\n",
                m->a.scen, m->sim.warnings, m->sim.warnings == 1 ? "" : "s");
        return 2;
    }
    return 0;
}

/* The border router's device and the wall-clock pacing (--realtime). */
static int attach_host(struct sim_main *m)
{
    if (m->sc.border.on && !m->a.realtime) {
        fprintf(stderr, "moteip-sim: %s: border: a border router runs only with --realtime "
                        "(the host's programs live on the wall clock)\n", m->a.scen);
        return 2;
    }
    if (m->sc.n_external > 0u && !m->a.realtime) {
        fprintf(stderr, "moteip-sim: %s: external: external nodes run only with --realtime "
                        "(they live on the wall clock)\n", m->a.scen);
        return 2;
    }
    if (m->sc.n_external > 0u && !sim_external_open(&m->sim, m->err, sizeof(m->err))) {
        fprintf(stderr, "moteip-sim: %s: %s\n", m->a.scen, m->err);
        return 2;
    }
    if (m->sc.border.on && !sim_border_open(&m->sim, m->err, sizeof(m->err))) {
        fprintf(stderr, "moteip-sim: %s: %s\n", m->a.scen, m->err);
        return 2;
    }
    if (m->a.realtime && !sim_realtime_init(&m->rt, m->a.speed != 0.0 ? m->a.speed : 1.0,
                                            m->err, sizeof(m->err))) {
        fprintf(stderr, "moteip-sim: %s\n", m->err);
        return 1;
    }
    if (m->a.realtime)
        m->sim.rt = &m->rt;
    return 0;
}

/* --pcap, --trace (and the network into it), --out. */
static int open_outputs(struct sim_main *m)
{
    int rc = 0;

    if (m->a.pcap_path != NULL) {
        struct pcap_status ps = sim_capture_open(&m->sim, &m->capture, m->a.pcap_path,
                                                 m->a.pcap_view, m->a.pcap_node);
        if (ps.code != 0) {
            fprintf(stderr, "moteip-sim: --pcap: %s\n", ps.text);
            rc = ps.code == EINVAL ? 2 : 1;
        }
    } else if (m->a.pcap_view != SIM_CAPTURE_AUTO || m->a.pcap_node != SIM_CAPTURE_ALL) {
        fprintf(stderr, "moteip-sim: --pcap-view and --pcap-node need --pcap FILE\n");
        rc = 2;
    }
    if (rc == 0 && m->a.trace_path != NULL &&
        (m->sim.trace = fopen(m->a.trace_path, "w")) == NULL) {
        fprintf(stderr, "moteip-sim: --trace %s: %s\n", m->a.trace_path, strerror(errno));
        rc = 1;
    }
    if (rc == 0 && m->a.zep_mirror != NULL) {
        if (!sim_zep_mirror_open(&m->zep_mirror, m->a.zep_mirror, m->err, sizeof(m->err))) {
            fprintf(stderr, "moteip-sim: %s\n", m->err);
            rc = 2;
        } else {
            m->sim.zep_mirror = &m->zep_mirror;
        }
    }
    /* In real time a reader follows the trace as it grows (moteip run --view):
     * a line reaches the file when it happens, not when a 4 KB buffer fills. */
    if (m->sim.trace != NULL && m->a.realtime)
        (void)setvbuf(m->sim.trace, NULL, _IOLBF, 0);
    if (m->a.trace_radio && m->sim.trace == NULL && rc == 0) {
        fprintf(stderr, "moteip-sim: --trace-radio needs --trace FILE\n");
        rc = 2;
    }
    m->sim.trace_radio = m->a.trace_radio && m->sim.trace != NULL;
    sim_trace_network(&m->sim);
    sim_radio_trace_start(&m->sim);
    if (rc == 0 && m->a.out != NULL && (m->of = fopen(m->a.out, "w")) == NULL) {
        fprintf(stderr, "moteip-sim: --out %s: %s\n", m->a.out, strerror(errno));
        m->of = stdout;
        rc = 1;
    }
    return rc;
}

/* The line a script waits for before it talks to the network. */
static void announce_realtime(const struct sim_main *m)
{
    const struct sim_border_spec *b = &m->sc.border;
    char addr[64] = "";

    if (b->on)
        (void)mip_addr_format(&b->addr, addr, sizeof(addr));
    fprintf(stderr, "moteip-sim: realtime: running %u nodes for %.3f simulated s at "
                    "speed %g", m->sim.n, (double)m->sim.end_us / 1e6, m->rt.speed);
    if (b->on)
        fprintf(stderr, "; border router node %u on %s '%s' as %s/%u", b->node,
                b->kind == SIM_BORDER_TUN ? "tun" : "tap", b->device, addr, b->addr_len);
    for (size_t i = 0; i < m->sc.n_external; i++)
        fprintf(stderr, "; external node %u on zep %s,%s", m->sc.external[i].node,
                m->sc.external[i].local, m->sc.external[i].remote);
    fputc('\n', stderr);
}

static int run_and_write(struct sim_main *m, double t0)
{
    struct sim *sim = &m->sim;
    double t1, w;
    int rc = 0;

    if (sim->rt != NULL)
        sim_realtime_run(sim, sim->rt);
    else
        sim_run(sim);
    t1 = wall_s();
    sim_write_result(sim, m->of);
    /* t1 fix: a result that could not be written (e.g. stdout on a full disk)
     * is exit 1 as documented, not 0; sim_write_result has said why. */
    if (fflush(m->of) != 0 || ferror(m->of))
        rc = 1;
    if (m->a.perf) {
        w = t1 - t0;
        fprintf(stderr, "moteip-sim: %u nodes, %.3f simulated s, %llu events, %.3f wall s, "
                        "%.0f events/s, %.1f simulated s per wall s, %zu bytes per node\n",
                sim->n, (double)sim->now_us / 1e6, (unsigned long long)sim->events, w,
                w > 0 ? (double)sim->events / w : 0.0,
                w > 0 ? ((double)sim->now_us / 1e6) / w : 0.0, sizeof(struct sim_node));
        {
            /* what a node has besides its struct: its buffers (one zeroed
             * arena, a page resident once used) and its role's tables */
            size_t role = 0;
            uint32_t i;
            for (i = 0; i < sim->n; i++) {
                const struct sim_node *nd = &sim->node[i];
                role += (nd->relay != NULL ? sizeof(*nd->relay) : 0u) +
                        (nd->rpl != NULL ? sizeof(*nd->rpl) : 0u) +
                        (nd->geo != NULL ? sizeof(*nd->geo) : 0u) +
                        (nd->rdc_held != NULL ? MIP_RDC_INDIRECT * sizeof(*nd->rdc_held) : 0u);
            }
            fprintf(stderr, "moteip-sim: per node besides: %zu bytes of buffers reserved "
                            "(resident once used), %.0f bytes of role tables on average\n",
                    (size_t)SIM_NODE_BUF_BYTES, sim->n > 0 ? (double)role / sim->n : 0.0);
        }
        /* set-up apart from the run (bench/sim-speed --scale) */
        fprintf(stderr, "moteip-sim: set-up %.3f s (load %.3f s, build %.3f s), run %.3f s; "
                        "CPU: set-up %.3f s, run %.3f s\n",
                m->load_s + m->build_s, m->load_s, m->build_s, w - m->build_s, m->setup_cpu_s,
                cpu_s() - m->setup_cpu_s);
    }
    return rc;
}

static int close_outputs(struct sim_main *m, int rc)
{
    if (m->of != stdout && fclose(m->of) != 0) {
        fprintf(stderr, "moteip-sim: --out %s: %s\n", m->a.out, strerror(errno));
        rc = 1;
    }
    if (m->sim.trace != NULL && fclose(m->sim.trace) != 0) {
        fprintf(stderr, "moteip-sim: --trace %s: %s\n", m->a.trace_path, strerror(errno));
        rc = 1;
    }
    if (m->sim.capture != NULL) {
        struct pcap_status ps = sim_capture_close(&m->sim);
        if (ps.code != 0) {
            fprintf(stderr, "moteip-sim: --pcap: %s\n", ps.text);
            rc = 1;
        }
    }
    if (m->sim.rt != NULL)
        sim_realtime_close(m->sim.rt);
    if (m->sim.zep_mirror != NULL)
        sim_zep_mirror_close(m->sim.zep_mirror);
    return rc;
}

/* Load, build, (--check stops here), attach, open outputs, run, close. */
static int sim_main_run(struct sim_main *m)
{
    double t0;
    int rc;

    t0 = wall_s();
    if (!sim_scenario_load(m->a.scen, &m->sc, m->err, sizeof(m->err))) {
        fprintf(stderr, "moteip-sim: %s\n", m->err);
        return 2;
    }
    if (m->a.seed_given)
        m->sc.seed = m->a.seed;
    m->load_s = wall_s() - t0;
    t0 = wall_s();
    rc = build_network(m);
    m->build_s = wall_s() - t0;
    m->setup_cpu_s = cpu_s();
    if (rc == 0 && !m->a.check_only)
        rc = attach_host(m);
    if (rc == 0 && !m->a.check_only) {
        rc = open_outputs(m);
        if (rc == 0 && m->sim.rt != NULL)
            announce_realtime(m);
        if (rc == 0)
            rc = run_and_write(m, t0);
        rc = close_outputs(m, rc);
    }
    sim_free(&m->sim);
    sim_scenario_free(&m->sc);
    return rc;
}

int main(int argc, char **argv)
{
    struct sim_main m;

    memset(&m, 0, sizeof(m));
    m.of = stdout;
    if (!parse_args(argc, argv, &m.a, m.err, sizeof(m.err)))
        return usage(m.err);
    if (m.a.help) {
        help();
        return 0;
    }
    return sim_main_run(&m);
}
