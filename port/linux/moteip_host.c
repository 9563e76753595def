/*
 * port/linux/: the Linux host port on the top floor: moteip-host (this
 * file: the full stack on a TAP), micro_host.c (the micro profile on a TUN),
 * the TAP/TUN driver (linux_tap.c, also the simulator's border router's
 * device) and the link impairment (impair.c). It may include any public
 * header and apps/; nothing under src/ or apps/ includes it.
 *
 * moteip-host: runs one moteip stack on a Linux TAP device.
 *
 *   moteip-host --tap NAME --addr 192.0.2.2/24 --addr fd00::2/64
 *               [--route PREFIX via GATEWAY]... [--stats-json FILE]
 *               [--mac MAC] [--forward] [--profile tiny|full]
 *               [--echo PORT] [--discard PORT] [--chargen PORT] [--http PORT]
 *               [--tcp-client ADDR:PORT [--client-send N] [--client-expect N]
 *                [--client-timeout SECONDS] [--client-keepalive MS]
 *                [--client-idle SECONDS] [--client-rx-ring BYTES]] [--tcp-max-retries N]
 *               [--impair SPEC]
 *               [--os [--sensor ADDR:PORT [--sensor-every MS] [--sensor-batch N]]]
 *
 * The command line is a contract (tests/interop/test_cli.py): a bad or
 * missing argument prints ONE line on stderr naming the argument and what
 * is wrong, and exits 2. The program runs until SIGINT, SIGTERM or SIGHUP (taken
 * through a signalfd, no global flag), then writes the stack's counters to
 * --stats-json and exits 0. Runtime failures (the TAP cannot be opened or
 * disappears) exit 1.
 *
 * TCP services (apps/tcp_*.h, apps/http_server.h) run on the ports given.
 * With --os, echo and discard (TCP and UDP on their ports), HTTP, CoAP and
 * the sensor run instead as processes of the kernel (apps/os_apps.h, docs/OS.md).
 * With --tcp-client the program is instead a one-shot TCP client test: it
 * connects, optionally holds the connection idle for a while (with TCP
 * keepalive when asked), sends N bytes of the HTTP body pattern
 * (http_server.h), half-closes, checks that exactly M pattern bytes arrive
 * before the peer's FIN, prints one result line, writes --stats-json and
 * exits 0 on success, 1 on failure (or on the timeout).
 *
 * This file and linux_tap.c are the only places that read a clock or
 * randomness: CLOCK_MONOTONIC milliseconds are passed to the stack as `now`,
 * getrandom() seeds its PRNG (and the MAC when --mac is not given).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "moteip/ping.h"
#include "moteip/stack.h"
#include "moteip/tcp.h"
#include "impair.h"
#include "linux_tap.h"
#include "zep_radio.h"
#include "coap_demo.h"
#include "os_apps.h"
#include "http_server.h"
#include "tcp_app.h"
#include "tcp_chargen.h"
#include "tcp_discard.h"
#include "tcp_echo.h"
#include "udp_discard.h"
#include "overlay.h"
#include "udp_echo.h"

#if !MIP_CONF_ETHERNET || !MIP_CONF_IPV4
#error "moteip-host needs Ethernet and IPv4: build the full profile (MOTEIP_PROFILE=full)"
#endif

#define PROG "moteip-host"
#define EXIT_USAGE 2
#define EXIT_RUNTIME 1

#define MAX_ADDRS 16
#define MAX_ROUTES 32
#define RX_BUF_SIZE 65600u        /* larger than any frame a TAP delivers */
#define RX_BUDGET 256             /* frames read before timers run again */
#define PING_MAX 1000u            /* --ping-count's largest */
#define PING_INTERVAL_MS 1000u   /* as ping(8) */
#define PING_WAIT_MS 10000u       /* after the last request */
#define ZEP_ACK_WAIT_US 20000u    /* --zep: how long the MAC waits for a link ACK */
#define ZEP_CM_COPY_GAP_US 4000u  /* --zep --rdc contikimac: Ti, between copies */
#define ZEP_CM_CCA_GAP_US 5000u   /* ... and Tc, between the two CCAs (> Ti) */

struct host_addr {
    struct mip_addr addr;
    uint8_t prefix_len;
    const char *text;
};

struct host_route {
    struct mip_addr prefix;
    uint8_t prefix_len;
    struct mip_addr gateway;
    const char *prefix_text;
    const char *gateway_text;
};

/* TCP services: the option and its port (0: off). */
enum { SVC_ECHO = 0, SVC_DISCARD, SVC_CHARGEN, SVC_HTTP, SVC_COUNT };
static const char svc_opt[SVC_COUNT][10] = { "--echo", "--discard", "--chargen", "--http" };

#if defined(MOTEIP_PROFILE_TINY)
#define BUILD_PROFILE "tiny"
#else
#define BUILD_PROFILE "full"
#endif

#define MAX_OPTIONS 48            /* rows of `options` (checked below it) */

/* --overlay-rounds: the sink's subscription. Rounds of 1 s, a schedule for
 * 4 hops of 100 ms (a ZEP hop on loopback takes milliseconds), interests
 * living three rounds. */
#define HOST_OVL_INTERVAL_MS 1000u
#define HOST_OVL_DEPTH       4u
#define HOST_OVL_SLOT_MS     100u
#define HOST_OVL_LIFETIME_MS 3000u

/* --rdc: the duty cycling of a ZEP node's MAC (rdc.h) */
static const char rdc_names[][12] = { "nullrdc", "contikimac", "xmac", "lpp" };

struct host_opts {
    const char *tap;
    const char *zep;                  /* --zep LOCAL,REMOTE[,REMOTE...] */
    const char *ping_text;            /* --ping ADDR */
    struct mip_addr ping_addr;
    uint64_t ping_count, ping_size;
    uint64_t zep_short, zep_pan, zep_channel;
    uint8_t zep_rdc;                  /* enum mip_rdc_kind */
    uint16_t svc_port[SVC_COUNT];
    const char *profile;
    const char *client_text;          /* --tcp-client ADDR:PORT */
    struct mip_addr client_addr;
    uint16_t client_port;
    uint64_t client_send, client_expect;
    uint64_t client_timeout_s;        /* 0 until given: then 30 + --client-idle */
    uint64_t client_idle_s;           /* --client-idle: idle time after connecting */
    uint64_t client_keepalive_ms;     /* --client-keepalive (0: off) */
    uint64_t client_rx_ring;          /* --client-rx-ring (0: the app slot's ring) */
    uint64_t tcp_max_retries;         /* --tcp-max-retries (0: the default) */
    uint16_t coap_port;               /* --coap PORT (0: off) */
    bool os;                          /* --os: services as kernel processes */
    const char *sensor_text;          /* --sensor ADDR:PORT */
    struct mip_addr sensor_addr;
    uint16_t sensor_port;
    uint64_t sensor_every_ms, sensor_batch;
    uint64_t overlay_id;              /* --overlay ID */
    uint64_t overlay_reading;         /* --overlay-reading V */
    uint64_t overlay_rounds;          /* --overlay-rounds N (a sink) */
    const char *impair_text;          /* --impair SPEC (impair.h) */
    struct impair_spec impair;
    const char *stats_json;
    const char *mac_text;
    uint8_t mac[6];
    bool have_mac;
    bool forward;
    bool given[MAX_OPTIONS];          /* by row of `options` */
    size_t n_addrs;
    struct host_addr addrs[MAX_ADDRS];
    size_t n_routes;
    struct host_route routes[MAX_ROUTES];
};

/* Prints "moteip-host: OPT: message" and exits 2. */
static void bad_arg(const char *opt, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
static void bad_arg(const char *opt, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, PROG ": %s: %s\n", opt, msg);
    exit(EXIT_USAGE);
}

static void fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, PROG ": %s\n", msg);
    exit(EXIT_RUNTIME);
}

/* Parses "ADDR" or "ADDR/LEN" strictly (inet_pton forms only, decimal
 * prefix length without sign or spaces). Without "/LEN" the prefix is the
 * full address length. Returns 0, or -1. */
static int parse_prefix(const char *text, struct mip_addr *a, uint8_t *plen)
{
    char buf[INET6_ADDRSTRLEN + 8];
    const char *slash = strchr(text, '/');
    size_t alen = slash ? (size_t)(slash - text) : strlen(text);
    unsigned long n;
    uint8_t raw[16];
    unsigned max;
    char *end;

    if (alen == 0 || alen >= sizeof(buf))
        return -1;
    memcpy(buf, text, alen);
    buf[alen] = '\0';
    memset(a, 0, sizeof(*a));
    if (strchr(buf, ':') != NULL) {
        if (inet_pton(AF_INET6, buf, raw) != 1)
            return -1;
        mip_addr_set6(a, raw);
        max = 128;
    } else {
        if (inet_pton(AF_INET, buf, raw) != 1)
            return -1;
        mip_addr_set4(a, raw);
        max = 32;
    }
    if (slash == NULL) {
        *plen = (uint8_t)max;
        return 0;
    }
    if (slash[1] < '0' || slash[1] > '9' || strlen(slash + 1) > 3)
        return -1;
    errno = 0;
    n = strtoul(slash + 1, &end, 10);
    if (errno != 0 || *end != '\0' || n > max)
        return -1;
    *plen = (uint8_t)n;
    return 0;
}

static bool is_unicast(const struct mip_addr *a)
{
    static const uint8_t zero[16];

    if (a->family == MIP_AF_INET) {
        if (a->bytes[0] == 0 || a->bytes[0] == 127 || a->bytes[0] >= 224)
            return false;   /* "this network", loopback, multicast, reserved/broadcast */
        return true;
    }
    if (a->bytes[0] == 0xff)
        return false;       /* multicast */
    if (memcmp(a->bytes, zero, 16) == 0)
        return false;       /* unspecified */
    if (memcmp(a->bytes, zero, 15) == 0 && a->bytes[15] == 1)
        return false;       /* loopback */
    return true;
}

/* True when no bit past prefix_len is set. */
static bool host_bits_clear(const struct mip_addr *a, uint8_t prefix_len)
{
    size_t len = mip_addr_len(a->family), i;

    for (i = 0; i < len; i++) {
        unsigned bit0 = (unsigned)i * 8u;
        uint8_t mask;

        if (bit0 + 8u <= prefix_len)
            continue;
        mask = bit0 >= prefix_len ? 0xFFu : (uint8_t)(0xFFu >> (prefix_len - bit0));
        if (a->bytes[i] & mask)
            return false;
    }
    return true;
}

static bool valid_ifname(const char *n)
{
    size_t len = strlen(n), i;

    if (len == 0 || len >= IFNAMSIZ || strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
        return false;
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)n[i];
        if (c == '/' || c == ':' || c <= ' ' || c >= 0x7f)
            return false;
    }
    return true;
}

/* A decimal port 1..65535, strictly. Returns 0 when bad. */
static uint16_t parse_port(const char *v)
{
    unsigned long n;
    char *end;

    if (v[0] < '0' || v[0] > '9' || strlen(v) > 5)
        return 0;
    errno = 0;
    n = strtoul(v, &end, 10);
    if (errno != 0 || *end != '\0' || n == 0 || n > 65535u)
        return 0;
    return (uint16_t)n;
}

/* A decimal byte count up to 2^64 - 1, strictly. */
static int parse_count(const char *v, uint64_t *out)
{
    unsigned long long n;
    char *end;

    if (v[0] < '0' || v[0] > '9' || strlen(v) > 20)
        return -1;
    errno = 0;
    n = strtoull(v, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = (uint64_t)n;
    return 0;
}

/* "ADDR:PORT" (IPv4) or "[ADDR]:PORT" (IPv6). */
static int parse_endpoint(const char *v, struct mip_addr *a, uint16_t *port)
{
    char buf[INET6_ADDRSTRLEN + 2];
    const char *colon, *host = v;
    size_t hlen;
    uint8_t raw[16];

    memset(a, 0, sizeof(*a));
    if (v[0] == '[') {
        const char *close = strchr(v, ']');
        if (close == NULL || close[1] != ':')
            return -1;
        host = v + 1;
        hlen = (size_t)(close - host);
        colon = close + 1;
    } else {
        colon = strrchr(v, ':');
        if (colon == NULL)
            return -1;
        hlen = (size_t)(colon - v);
    }
    if (hlen == 0 || hlen >= sizeof(buf))
        return -1;
    memcpy(buf, host, hlen);
    buf[hlen] = '\0';
    if (v[0] == '[') {
        if (inet_pton(AF_INET6, buf, raw) != 1)
            return -1;
        mip_addr_set6(a, raw);
    } else {
        if (inet_pton(AF_INET, buf, raw) != 1)
            return -1;
        mip_addr_set4(a, raw);
    }
    *port = parse_port(colon + 1);
    return *port == 0 ? -1 : 0;
}

/* --- the command line: one table parses it and prints --help --------------- */

struct host_option;
/* Checks the row's values (v[0..nargs-1]) and stores them in `o`; a bad
 * one ends the program through bad_arg (exit 2, one line naming the row). */
typedef void (*opt_parse_fn)(const struct host_option *opt, char **v, struct host_opts *o);

enum {
    OPT_ONCE = 1u,        /* a second one is "given more than once" */
    OPT_CLIENT = 2u,      /* "only with --tcp-client" */
    OPT_REPEAT = 4u,      /* "[...]..." in the synopsis */
    OPT_REQUIRED = 8u,    /* no brackets in the synopsis (checked by finish_args) */
};

struct host_option {
    const char *name;             /* "--tap" */
    const char *arg;              /* its values in --help; NULL: a flag */
    uint8_t nargs;                /* values taken after the name: 0, 1 or 3 */
    uint8_t flags;                /* OPT_* */
    opt_parse_fn parse;
    size_t field;                 /* offsetof(struct host_opts, what `parse` fills) */
    uint64_t min, max;            /* opt_number's range */
    const char *what;             /* opt_number: "'V' is not <what>", may print min and max */
    const char *section;          /* --help: a heading before this row */
    const char *help;             /* --help text; a '\n' starts an indented line */
    unsigned long hv[3];          /* numbers that `section` and `help` print (%lu) */
};

static void usage(FILE *f);

static void *opt_field(const struct host_option *opt, struct host_opts *o)
{
    return (char *)o + opt->field;
}

static void opt_help(const struct host_option *opt, char **v, struct host_opts *o)
{
    (void)opt;
    (void)v;
    (void)o;
    usage(stdout);
    fflush(stdout);
    exit(0);
}

static void opt_tap(const struct host_option *opt, char **v, struct host_opts *o)
{
    if (!valid_ifname(v[0]))
        bad_arg(opt->name, "'%s' is not a valid interface name (1..%d characters, "
                "no '/', ':' or spaces)", v[0], IFNAMSIZ - 1);
    o->tap = v[0];
}

static void opt_addr(const struct host_option *opt, char **v, struct host_opts *o)
{
    struct host_addr *h;

    if (o->n_addrs >= MAX_ADDRS)
        bad_arg(opt->name, "more than %d addresses", MAX_ADDRS);
    h = &o->addrs[o->n_addrs];
    if (parse_prefix(v[0], &h->addr, &h->prefix_len) != 0)
        bad_arg(opt->name, "'%s' is not an IP address/prefix", v[0]);
    if (!is_unicast(&h->addr))
        bad_arg(opt->name, "'%s' is not a unicast address", v[0]);
    h->text = v[0];
    o->n_addrs++;
}

static void opt_route(const struct host_option *opt, char **v, struct host_opts *o)
{
    const char *arg = opt->name;
    struct host_route *r;
    uint8_t gw_len;

    if (o->n_routes >= MAX_ROUTES)
        bad_arg(arg, "more than %d routes", MAX_ROUTES);
    r = &o->routes[o->n_routes];
    r->prefix_text = v[0];
    if (parse_prefix(r->prefix_text, &r->prefix, &r->prefix_len) != 0)
        bad_arg(arg, "'%s' is not an IP prefix", r->prefix_text);
    if (strcmp(v[1], "via") != 0)
        bad_arg(arg, "expected 'via' after '%s', got '%s'", r->prefix_text, v[1]);
    r->gateway_text = v[2];
    if (strchr(r->gateway_text, '/') != NULL ||
        parse_prefix(r->gateway_text, &r->gateway, &gw_len) != 0)
        bad_arg(arg, "gateway '%s' is not an IP address", r->gateway_text);
    if (r->gateway.family != r->prefix.family)
        bad_arg(arg, "gateway '%s' and prefix '%s' are of different IP versions",
                r->gateway_text, r->prefix_text);
    if (!host_bits_clear(&r->prefix, r->prefix_len))
        bad_arg(arg, "'%s' has bits set past its prefix length", r->prefix_text);
    if (!is_unicast(&r->gateway))
        bad_arg(arg, "gateway '%s' is not a unicast address", r->gateway_text);
    o->n_routes++;
}

/* A file name: not empty (the directory is checked once all is parsed). */
static void opt_file(const struct host_option *opt, char **v, struct host_opts *o)
{
    if (v[0][0] == '\0')
        bad_arg(opt->name, "empty file name");
    *(const char **)opt_field(opt, o) = v[0];
}

static void opt_mac(const struct host_option *opt, char **v, struct host_opts *o)
{
    static const uint8_t zero[6];

    if (mip_mac_parse(v[0], o->mac) != 0)
        bad_arg(opt->name, "'%s' is not a MAC address (like 02:00:00:00:00:02)", v[0]);
    if (o->mac[0] & 0x01u)
        bad_arg(opt->name, "'%s' is a multicast address; the stack needs a unicast one", v[0]);
    if (memcmp(o->mac, zero, 6) == 0)
        bad_arg(opt->name, "'%s' is the all-zero address", v[0]);
    o->mac_text = v[0];
    o->have_mac = true;
}

static void opt_flag(const struct host_option *opt, char **v, struct host_opts *o)
{
    (void)v;
    *(bool *)opt_field(opt, o) = true;
}

static void opt_profile(const struct host_option *opt, char **v, struct host_opts *o)
{
    if (strcmp(v[0], "tiny") != 0 && strcmp(v[0], "full") != 0)
        bad_arg(opt->name, "'%s' is not a profile (tiny or full)", v[0]);
    if (strcmp(v[0], BUILD_PROFILE) != 0)
        bad_arg(opt->name, "this moteip-host is built with the " BUILD_PROFILE
                " profile, not '%s'", v[0]);
    o->profile = v[0];
}

/* A TCP service's port: no port twice, among the services. */
static void opt_service(const struct host_option *opt, char **v, struct host_opts *o)
{
    uint16_t port = parse_port(v[0]);
    unsigned k;

    if (port == 0)
        bad_arg(opt->name, "'%s' is not a port number (1..65535)", v[0]);
    for (k = 0; k < SVC_COUNT; k++)
        if (o->svc_port[k] == port)
            bad_arg(opt->name, "port %u is already used by %s", (unsigned)port, svc_opt[k]);
    *(uint16_t *)opt_field(opt, o) = port;
}

static void opt_coap(const struct host_option *opt, char **v, struct host_opts *o)
{
    o->coap_port = parse_port(v[0]);
    if (o->coap_port == 0 || o->coap_port == MIP_UDP_ECHO_PORT ||
        o->coap_port == MIP_UDP_DISCARD_PORT)
        bad_arg(opt->name, "'%s' is not a free UDP port (1..65535, not 7 or 9)", v[0]);
}

static void opt_client(const struct host_option *opt, char **v, struct host_opts *o)
{
    if (parse_endpoint(v[0], &o->client_addr, &o->client_port) != 0)
        bad_arg(opt->name, "'%s' is not ADDR:PORT (IPv6: [ADDR]:PORT)", v[0]);
    if (!is_unicast(&o->client_addr))
        bad_arg(opt->name, "'%s' is not a unicast address", v[0]);
    o->client_text = v[0];
}

/* A decimal number in [min, max] into a uint64_t field. */
static void opt_sensor(const struct host_option *opt, char **v, struct host_opts *o)
{
    if (parse_endpoint(v[0], &o->sensor_addr, &o->sensor_port) != 0)
        bad_arg(opt->name, "'%s' is not ADDR:PORT (IPv6: [ADDR]:PORT)", v[0]);
    if (!is_unicast(&o->sensor_addr))
        bad_arg(opt->name, "'%s' is not a unicast address", v[0]);
    o->sensor_text = v[0];
}

static void opt_number(const struct host_option *opt, char **v, struct host_opts *o)
{
    char what[128];
    uint64_t t;

    if (parse_count(v[0], &t) != 0 || t < opt->min || t > opt->max) {
        snprintf(what, sizeof(what), opt->what, (unsigned long long)opt->min,
                 (unsigned long long)opt->max);
        bad_arg(opt->name, "'%s' is not %s", v[0], what);
    }
    *(uint64_t *)opt_field(opt, o) = t;
}

static void opt_zep(const struct host_option *opt, char **v, struct host_opts *o)
{
    struct zep_radio probe;
    struct mip_radio_timing t;
    char err[160];

    /* the syntax now (a usage error); the socket is bound after parsing */
    mip_radio_timing_default(&t);
    if (zep_radio_open(&probe, v[0], 26, 0, &t, err, sizeof(err)) != 0 &&
        strncmp(err, "cannot bind", 11) != 0 && strncmp(err, "socket:", 7) != 0)
        bad_arg(opt->name, "%s", err);
    zep_radio_close(&probe);
    o->zep = v[0];
}

static void opt_ping(const struct host_option *opt, char **v, struct host_opts *o)
{
    uint8_t plen;

    if (parse_prefix(v[0], &o->ping_addr, &plen) != 0 || plen != (o->ping_addr.family ==
                                                                 MIP_AF_INET ? 32 : 128) ||
        strchr(v[0], '/') != NULL || !is_unicast(&o->ping_addr))
        bad_arg(opt->name, "'%s' is not a unicast address", v[0]);
    o->ping_text = v[0];
}

static void opt_rdc(const struct host_option *opt, char **v, struct host_opts *o)
{
    uint8_t k;

    for (k = 0; k < sizeof(rdc_names) / sizeof(rdc_names[0]); k++)
        if (strcmp(v[0], rdc_names[k]) == 0) {
            o->zep_rdc = k;             /* the table is in enum mip_rdc_kind order */
            return;
        }
    bad_arg(opt->name, "'%s' is not nullrdc, contikimac, xmac or lpp", v[0]);
}

static void opt_impair(const struct host_option *opt, char **v, struct host_opts *o)
{
    char err[160];

    if (impair_parse(v[0], &o->impair, err, sizeof(err)) != 0)
        bad_arg(opt->name, "'%s': %s", v[0], err);
    o->impair_text = v[0];
}

#define F(member) offsetof(struct host_opts, member)
#define SECONDS_MAX 86400u

/* The command line, in --help order. */
static const struct host_option options[] = {
    { "--tap", "NAME", 1, OPT_ONCE, opt_tap, F(tap), 0, 0, NULL, NULL,
      "TAP device to attach to (this or --zep is required)", { 0 } },
    { "--addr", "ADDR/PREFIX", 1, OPT_REPEAT, opt_addr, F(addrs), 0, 0, NULL, NULL,
      "an IPv4 or IPv6 address with its prefix length,\n"
      "e.g. 192.0.2.2/24 or fd00::2/64 (repeatable)", { 0 } },
    { "--route", "PREFIX via GATEWAY", 3, OPT_REPEAT, opt_route, F(routes), 0, 0, NULL, NULL,
      "a static route, e.g. --route 0.0.0.0/0 via 192.0.2.1\n"
      "or --route ::/0 via fd00::1 (repeatable)", { 0 } },
    { "--stats-json", "FILE", 1, OPT_ONCE, opt_file, F(stats_json), 0, 0, NULL, NULL,
      "on exit, write the stack's counters to FILE as\n"
      "{\"counters\": {...}, \"pbuf_high_water\": N, ...}", { 0 } },
    { "--mac", "MAC", 1, OPT_ONCE, opt_mac, F(mac), 0, 0, NULL, NULL,
      "the stack's MAC address (default: random\n02:00:00:xx:xx:xx)", { 0 } },
    { "--forward", NULL, 0, 0, opt_flag, F(forward), 0, 0, NULL, NULL,
      "forward datagrams not addressed to the stack", { 0 } },
    { "--profile", "tiny|full", 1, 0, opt_profile, F(profile), 0, 0, NULL, NULL,
      "refuse to run unless the stack was built with this\n"
      "profile (this one: " BUILD_PROFILE ")", { 0 } },
    { "--echo", "PORT", 1, OPT_ONCE, opt_service, F(svc_port[SVC_ECHO]), 0, 0, NULL,
      "TCP services (each off unless given; %lu connections each, with a %lu-byte\n"
      "send ring and a %lu-byte receive ring per connection):",
      "echo (RFC 862)",
      { MIP_TCP_APP_CONNS, MIP_TCP_APP_TX_SIZE, MIP_TCP_APP_RX_SIZE } },
    { "--discard", "PORT", 1, OPT_ONCE, opt_service, F(svc_port[SVC_DISCARD]), 0, 0, NULL,
      NULL, "discard (RFC 863); counts bytes and the CRC-32 of\n"
      "the last connection (stats JSON apps.tcp_discard)", { 0 } },
    { "--chargen", "PORT", 1, OPT_ONCE, opt_service, F(svc_port[SVC_CHARGEN]), 0, 0, NULL,
      NULL, "character generator (RFC 864)", { 0 } },
    { "--http", "PORT", 1, OPT_ONCE, opt_service, F(svc_port[SVC_HTTP]), 0, 0, NULL, NULL,
      "HTTP/1.1: GET /bytes/N answers N bytes of the pattern\n"
      "(7*i + (i>>8) + (i>>16)) & 0xFF; other paths 404", { 0 } },
    { "--coap", "PORT", 1, OPT_ONCE, opt_coap, F(coap_port), 0, 0, NULL, NULL,
      "CoAP over UDP (5683 is the standard port): /hello,\n"
      "/bytes?n=N (the pattern, block-wise), /sink (POST/PUT,\n"
      "Block1; answers \"length crc32\"), /.well-known/core", { 0 } },
    { "--tcp-client", "ADDR:PORT", 1, OPT_ONCE, opt_client, F(client_text), 0, 0, NULL,
      "TCP client test (instead of running until a signal):",
      "connect to ADDR:PORT (IPv6 as [ADDR]:PORT), send the\n"
      "--client-send bytes, then half-close; check that\n"
      "exactly --client-expect bytes arrive before the\n"
      "peer closes, all equal to the same pattern; print\n"
      "one result line and exit 0 (ok) or 1 (failed)", { 0 } },
    { "--client-send", "N", 1, OPT_ONCE | OPT_CLIENT, opt_number, F(client_send),
      0, UINT64_MAX, "a byte count (a decimal number)", NULL, "bytes to send (default 0)",
      { 0 } },
    { "--client-expect", "N", 1, OPT_ONCE | OPT_CLIENT, opt_number, F(client_expect),
      0, UINT64_MAX, "a byte count (a decimal number)", NULL,
      "bytes to receive (default 0)", { 0 } },
    { "--client-timeout", "S", 1, OPT_ONCE | OPT_CLIENT, opt_number, F(client_timeout_s),
      1, SECONDS_MAX, "a number of seconds (%llu..%llu)", NULL,
      "give up after S seconds, counted from the start\n"
      "(default 30 plus --client-idle; must be longer\n"
      "than --client-idle)", { 0 } },
    { "--client-keepalive", "MS", 1, OPT_ONCE | OPT_CLIENT, opt_number,
      F(client_keepalive_ms), 1, SECONDS_MAX * 1000u,
      "a number of milliseconds (%llu..%llu)", NULL,
      "TCP keepalive: probe after MS milliseconds without\n"
      "a segment from the peer, then every MS/4 (at least\n"
      "500 ms); 4 unanswered probes end the connection\n"
      "(\"connection failed: keepalive\"). 1..86400000", { 0 } },
    { "--client-idle", "S", 1, OPT_ONCE | OPT_CLIENT, opt_number, F(client_idle_s),
      0, SECONDS_MAX, "a number of seconds (%llu..%llu)", NULL,
      "after connecting, keep the connection idle for S\n"
      "seconds (0..86400, default 0) before sending and\n"
      "half-closing", { 0 } },
    { "--client-rx-ring", "BYTES", 1, OPT_ONCE | OPT_CLIENT, opt_number, F(client_rx_ring),
      1, MIP_TCP_RX_SIZE_MAX, "a ring size (%llu..%llu bytes)", NULL,
      "the client connection's receive ring (default %lu;\n"
      "1..%lu): above 65535 the window is offered with\n"
      "a window scale (RFC 7323)", { MIP_TCP_APP_RX_SIZE, MIP_TCP_RX_SIZE_MAX } },
    { "--ping", "ADDR", 1, OPT_ONCE, opt_ping, F(ping_text), 0, 0, NULL,
      "Ping test (instead of running until a signal):",
      "send --ping-count echo requests of --ping-size data\n"
      "bytes to ADDR, 1 s apart; print how many came\n"
      "back intact and exit 0 (all) or 1 (not all within\n"
      "10 s of the last)", { 0 } },
    { "--ping-count", "N", 1, OPT_ONCE, opt_number, F(ping_count), 1, PING_MAX,
      "a count (%llu..%llu)", NULL, "echo requests (default 3)", { 0 } },
    { "--ping-size", "BYTES", 1, OPT_ONCE, opt_number, F(ping_size), 0, 1232,
      "a size (%llu..%llu bytes)", NULL,
      "data bytes per request (default 1000: a fragmented\n"
      "datagram over 6LoWPAN)", { 0 } },
    { "--tcp-max-retries", "N", 1, OPT_ONCE, opt_number, F(tcp_max_retries), 1, 255,
      "a retry count (%llu..%llu, 255 = never give up)",
      "TCP settings (services and client):",
      "retransmission timeouts in a row before an\n"
      "established connection gives up (\"connection\n"
      "failed: timeout\"); 1..255 (default %lu); 255 = never,\n"
      "the handshake included (else it gives up after %lu)",
      { MIP_TCP_MAX_RETRIES, MIP_TCP_SYN_RETRIES } },
    { "--overlay", "ID", 1, OPT_ONCE, opt_number, F(overlay_id), 0, 65535,
      "an overlay id (%llu..%llu)", "Application overlay (apps/overlay.h, docs/OVERLAY.md):",
      "run the overlay as node ID on UDP port %lu:\n"
      "relay interests and aggregates of attribute 1", { MIP_OVERLAY_PORT } },
    { "--overlay-reading", "V", 1, OPT_ONCE, opt_number, F(overlay_reading), 0, 32767,
      "a reading (%llu..%llu)", NULL,
      "with --overlay: this node's sensor reads V", { 0 } },
    { "--overlay-rounds", "N", 1, OPT_ONCE, opt_number, F(overlay_rounds), 1, 1000,
      "a count (%llu..%llu)", NULL,
      "with --overlay: subscribe as the sink (rounds of\n"
      "%lu ms, %lu hops of %lu ms slots), print each round's\n"
      "aggregate, exit 0 after N rounds",
      { HOST_OVL_INTERVAL_MS, HOST_OVL_DEPTH, HOST_OVL_SLOT_MS } },
    { "--zep", "LOCAL,REMOTE[,REMOTE...]", 1, OPT_ONCE, opt_zep, F(zep), 0, 0, NULL,
      "An 802.15.4 radio instead of the TAP (docs/ZEP.md):",
      "a ZEP radio: 802.15.4 frames in UDP datagrams\n"
      "from LOCAL to each REMOTE (address:port, IPv6 as\n"
      "[address]:port; 17754 is ZEP's port), through\n"
      "moteip's 802.15.4 MAC and 6LoWPAN", { 0 } },
    { "--short", "ADDR", 1, OPT_ONCE, opt_number, F(zep_short), 0, 0xFFFD,
      "a short address (%llu..%llu)", NULL,
      "with --zep: the node's 802.15.4 short address\n"
      "(required); its link-local address is\n"
      "fe80::ff:fe00:ADDR (RFC 4944)", { 0 } },
    { "--pan", "ID", 1, OPT_ONCE, opt_number, F(zep_pan), 0, 0xFFFE,
      "a PAN ID (%llu..%llu)", NULL, "with --zep: the PAN ID (default 43981, 0xABCD)", { 0 } },
    { "--channel", "N", 1, OPT_ONCE, opt_number, F(zep_channel), 11, 26,
      "a 2.4 GHz channel (%llu..%llu)", NULL,
      "with --zep: the channel (default 26); frames of\n"
      "other channels are not heard", { 0 } },
    { "--rdc", "KIND", 1, OPT_ONCE, opt_rdc, F(zep_rdc), 0, 0, NULL, NULL,
      "with --zep: radio duty cycling: nullrdc (default),\n"
      "contikimac, xmac or lpp, at its defaults (rdc.h)", { 0 } },
    { "--os", NULL, 0, 0, opt_flag, F(os), 0, 0, NULL,
      "The runtime (docs/OS.md):",
      "run --echo and --discard (each on TCP and UDP\n"
      "at its port), --http, --coap and --sensor as\n"
      "processes of the process kernel instead of\n"
      "callback apps (no UDP echo on 7 and discard on\n"
      "9 then; --chargen stays a callback app)", { 0 } },
    { "--sensor", "ADDR:PORT", 1, OPT_ONCE, opt_sensor, F(sensor_text), 0, 0, NULL, NULL,
      "with --os: the sensor process sends each batch of\n"
      "readings to ADDR:PORT in a datagram: 2 bytes of\n"
      "sequence, then 2 bytes a reading (big-endian; the\n"
      "host has no sensor: reading k is k mod 65536)", { 0 } },
    { "--sensor-every", "MS", 1, OPT_ONCE, opt_number, F(sensor_every_ms), 1, 86400000u,
      "a number of milliseconds (%llu..%llu)", NULL,
      "a reading every MS milliseconds (default 1000)", { 0 } },
    { "--sensor-batch", "N", 1, OPT_ONCE, opt_number, F(sensor_batch), 1,
      MIP_OS_SENSOR_BATCH_MAX, "a batch size (%llu..%llu)", NULL,
      "readings per datagram (default 4; 1..%lu)", { MIP_OS_SENSOR_BATCH_MAX } },
    { "--impair", "SPEC", 1, OPT_ONCE, opt_impair, F(impair), 0, 0, NULL, "Testing:",
      "impair the link in both directions, like netem:\n"
      "comma-separated loss=P, dup=P (percent), delay=MS,\n"
      "reorder=P (that share of frames skips the delay),\n"
      "seed=N; e.g. --impair loss=5 or delay=10,reorder=25", { 0 } },
    { "--help", NULL, 0, 0, opt_help, 0, 0, 0, NULL, NULL, "print this help and exit",
      { 0 } },
};
static const size_t n_options = sizeof(options) / sizeof(options[0]);
_Static_assert(sizeof(options) / sizeof(options[0]) <= MAX_OPTIONS, "raise MAX_OPTIONS");

#undef F

#define HELP_COLUMN 23           /* where an option's help text starts */

/* Prints `text` (a format over the row's hv[]) with every line after a
 * '\n' indented by `indent` spaces. */
static void print_indented(FILE *f, const char *text, const unsigned long hv[3], int indent)
{
    char buf[1024];
    const char *p = buf;

    snprintf(buf, sizeof(buf), text, hv[0], hv[1], hv[2]);
    for (;;) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(f, "%.*s\n", len, p);
        if (nl == NULL)
            return;
        p = nl + 1;
        fprintf(f, "%*s", indent, "");
    }
}

/* "usage: moteip-host --tap NAME [--addr ADDR/PREFIX]... ...", wrapped. */
static void print_synopsis(FILE *f)
{
    static const char head[] = "usage: " PROG;
    size_t col = sizeof(head) - 1, k;

    fputs(head, f);
    for (k = 0; k < n_options; k++) {
        const struct host_option *opt = &options[k];
        char item[64];
        bool req = (opt->flags & OPT_REQUIRED) != 0;
        size_t len = (size_t)snprintf(item, sizeof(item), "%s%s%s%s%s%s", req ? "" : "[",
                                      opt->name, opt->arg ? " " : "", opt->arg ? opt->arg : "",
                                      req ? "" : "]", (opt->flags & OPT_REPEAT) ? "..." : "");
        if (col + 1 + len > 78) {
            fprintf(f, "\n%*s", (int)(sizeof(head) - 1), "");
            col = sizeof(head) - 1;
        }
        fprintf(f, " %s", item);
        col += 1 + len;
    }
    fputc('\n', f);
}

static void usage(FILE *f)
{
    size_t k;

    print_synopsis(f);
    fputs("\n"
          "Runs a moteip stack as its own Ethernet station on the TAP device NAME\n"
          "(attached, or created when it does not exist), with UDP echo on port 7\n"
          "and UDP discard on port 9, until SIGINT, SIGTERM or SIGHUP.\n"
          "\n", f);
    for (k = 0; k < n_options; k++) {
        const struct host_option *opt = &options[k];
        int len;

        if (opt->section != NULL) {
            fputc('\n', f);
            print_indented(f, opt->section, opt->hv, 0);
        }
        len = fprintf(f, "  %s%s%s", opt->name, opt->arg ? " " : "", opt->arg ? opt->arg : "");
        if (len > HELP_COLUMN - 2)
            fprintf(f, "\n%*s", HELP_COLUMN, "");
        else
            fprintf(f, "%*s", HELP_COLUMN - len, "");
        print_indented(f, opt->help, opt->hv, HELP_COLUMN);
    }
    fputs("\n"
          "Exit status: 0 after SIGINT/SIGTERM/SIGHUP, 1 on a runtime failure, 2 for a\n"
          "bad command line. With --tcp-client: 0 when the test passed, else 1.\n", f);
}

static const struct host_option *find_option(const char *arg)
{
    size_t k;

    if (strcmp(arg, "-h") == 0)
        arg = "--help";
    for (k = 0; k < n_options; k++)
        if (strcmp(arg, options[k].name) == 0)
            return &options[k];
    return NULL;
}

/* Whether the option named `name` was on the command line. */
static bool given(const struct host_opts *o, const char *name)
{
    const struct host_option *opt = find_option(name);
    return opt != NULL && o->given[opt - options];
}

/* Checks that need the whole command line, in the order of their messages. */
static void finish_args(struct host_opts *o)
{
    size_t k;

    if (o->tap == NULL && o->zep == NULL)
        bad_arg("--tap", "missing (required): the TAP device to attach to");
    if (o->tap != NULL && o->zep != NULL)
        bad_arg("--zep", "not with --tap: the stack has one link, a TAP or a ZEP radio");
    if (o->zep == NULL) {
        static const char zep_only[][10] = { "--short", "--pan", "--channel", "--rdc" };
        for (k = 0; k < sizeof(zep_only) / sizeof(zep_only[0]); k++)
            if (given(o, zep_only[k]))
                bad_arg(zep_only[k], "only with --zep");
    }
    if (!given(o, "--overlay") && (given(o, "--overlay-reading") || given(o, "--overlay-rounds")))
        bad_arg(given(o, "--overlay-reading") ? "--overlay-reading" : "--overlay-rounds",
                "only with --overlay");
    if (given(o, "--overlay") && o->coap_port != 0)
        bad_arg("--overlay", "not with --coap (the stack's two timer slots are TCP's and CoAP's)");
    if (o->ping_text == NULL && (given(o, "--ping-count") || given(o, "--ping-size")))
        bad_arg(given(o, "--ping-count") ? "--ping-count" : "--ping-size", "only with --ping");
    if (o->ping_text != NULL && o->client_text != NULL)
        bad_arg("--ping", "not with --tcp-client: one test at a time");
    if (o->ping_text != NULL) {
        if (!given(o, "--ping-count"))
            o->ping_count = 3;
        if (!given(o, "--ping-size"))
            o->ping_size = 1000;
    }
    if (o->zep != NULL) {
        if (!given(o, "--short"))
            bad_arg("--short", "missing (required with --zep): the node's short address");
        if (o->impair_text != NULL)
            bad_arg("--impair", "not with --zep (it impairs the TAP's Ethernet link)");
        if (o->have_mac)
            bad_arg("--mac", "not with --zep (the radio's addresses come from --short)");
        if (!given(o, "--pan"))
            o->zep_pan = 0xABCD;
        if (o->zep_channel == 0)
            o->zep_channel = 26;
    }
    for (k = 0; k < n_options && o->client_text == NULL; k++)
        if ((options[k].flags & OPT_CLIENT) && o->given[k])
            bad_arg(options[k].name, "only with --tcp-client");
    if (o->client_timeout_s == 0)
        o->client_timeout_s = 30u + o->client_idle_s;
    else if (o->client_timeout_s <= o->client_idle_s)
        bad_arg("--client-timeout", "%u s is not longer than --client-idle (%u s)",
                (unsigned)o->client_timeout_s, (unsigned)o->client_idle_s);
    if (o->sensor_text != NULL && !o->os)
        bad_arg("--sensor", "only with --os (the sensor is a process of the kernel)");
    if (o->sensor_text == NULL && (given(o, "--sensor-every") || given(o, "--sensor-batch")))
        bad_arg(given(o, "--sensor-every") ? "--sensor-every" : "--sensor-batch",
                "only with --sensor");
    if (o->sensor_every_ms == 0)
        o->sensor_every_ms = 1000;
    if (o->sensor_batch == 0)
        o->sensor_batch = 4;
#if !MIP_CONF_FORWARD
    if (o->forward)
        bad_arg("--forward", "this build has no forwarding (MIP_CONF_FORWARD=0)");
#endif
}

/* Fail now rather than after a long run: the stats file's directory. */
static void check_stats_dir(const char *path)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');

    if (slash == NULL) {
        snprintf(dir, sizeof(dir), ".");
    } else if (slash == path) {
        snprintf(dir, sizeof(dir), "/");
    } else {
        size_t n = (size_t)(slash - path);
        if (n >= sizeof(dir))
            bad_arg("--stats-json", "path too long");
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    if (access(dir, W_OK | X_OK) != 0)
        bad_arg("--stats-json", "cannot write into directory '%s': %s", dir, strerror(errno));
}

static void parse_args(int argc, char **argv, struct host_opts *o)
{
    static const char count[][6] = { "no", "one", "two", "three" };
    int i;

    memset(o, 0, sizeof(*o));
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const struct host_option *opt = find_option(arg);
        size_t row;

        if (opt == NULL)
            bad_arg(arg, arg[0] == '-' ? "unknown option (see --help)"
                                       : "unexpected argument (see --help)");
        if (i + opt->nargs >= argc && opt->nargs == 1)
            bad_arg(arg, "missing value");
        if (i + opt->nargs >= argc)
            bad_arg(arg, "needs %s arguments: %s %s", count[opt->nargs], opt->name, opt->arg);
        row = (size_t)(opt - options);
        if ((opt->flags & OPT_ONCE) && o->given[row])
            bad_arg(arg, "given more than once");
        opt->parse(opt, argv + i + 1, o);
        o->given[row] = true;
        i += opt->nargs;
    }
    finish_args(o);
    if (o->stats_json != NULL)
        check_stats_dir(o->stats_json);
}

static mip_time_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (mip_time_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

static int fill_random(uint8_t *buf, size_t len)
{
    size_t got = 0;

    while (got < len) {
        ssize_t n = getrandom(buf + got, len - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        got += (size_t)n;
    }
    return 0;
}

static void format_addr(const struct mip_addr *a, char *buf, size_t cap)
{
    if (inet_ntop(a->family == MIP_AF_INET6 ? AF_INET6 : AF_INET, a->bytes, buf,
                  (socklen_t)cap) == NULL)
        snprintf(buf, cap, "?");
}

/* --- the link: the TAP, optionally through the impairment (--impair) ------- */

struct host_link {
    struct mip_stack *s;
    uint8_t nif;
    struct mip_tap *tap;
    bool impaired;
    struct impair im;
};

static void link_deliver_rx(void *ctx, const uint8_t *frame, size_t len)
{
    struct host_link *l = ctx;

    mip_stack_input(l->s, l->nif, frame, len, now_ms());
}

static void link_deliver_tx(void *ctx, const uint8_t *frame, size_t len)
{
    struct host_link *l = ctx;

    (void)mip_tap_transmit(l->tap, frame, len);
}

static mip_status link_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct host_link *l = ctx;

    impair_frame(&l->im, IMPAIR_TX, frame, len, now_ms());
    return MIP_OK;
}

static const struct mip_netif_driver impaired_driver = { link_transmit, NULL, NULL };

/* --- the TCP client test (--tcp-client) ------------------------------------ */

struct host_client {
    struct mip_tcp_app_slot mem;
    struct mip_tcp *tcp;
    uint64_t to_send, to_expect;
    uint64_t sent, received;
    uint32_t idle_ms;          /* --client-idle, in ms */
    uint8_t *rx_ring, *rx_bitmap;  /* --client-rx-ring (heap), else NULL */
    mip_time_t idle_until;     /* while idling: when to start sending */
    bool idling;               /* connected, holding the connection idle */
    bool shut;                 /* our FIN is queued */
    bool done;                 /* the connection is over */
    bool failed;
    char why[160];
};

static void client_fail(struct host_client *hc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void client_fail(struct host_client *hc, const char *fmt, ...)
{
    va_list ap;

    if (hc->failed)
        return;
    hc->failed = true;
    va_start(ap, fmt);
    vsnprintf(hc->why, sizeof(hc->why), fmt, ap);
    va_end(ap);
}

static void client_send(struct host_client *hc)
{
    struct mip_tcp_conn *c = &hc->mem.conn;
    uint8_t buf[MIP_TCP_APP_CHUNK];

    if (hc->idling || c->state == MIP_TCP_CLOSED)
        return;
    while (hc->sent < hc->to_send) {
        size_t n = mip_tcp_writable(c), put;
        if (n == 0)
            return;
        if (n > sizeof(buf))
            n = sizeof(buf);
        if ((uint64_t)n > hc->to_send - hc->sent)
            n = (size_t)(hc->to_send - hc->sent);
        mip_http_body_fill(hc->sent, buf, n);
        put = mip_tcp_write(hc->tcp, c, buf, n);
        hc->sent += put;
        if (put < n)
            return;
    }
    if (!hc->shut) {
        hc->shut = true;
        (void)mip_tcp_shutdown(hc->tcp, c);
    }
}

static void client_connected(void *ctx, struct mip_tcp_conn *c)
{
    struct host_client *hc = ctx;

    (void)c;
    if (hc->idle_ms != 0) {
        hc->idling = true;
        hc->idle_until = now_ms() + hc->idle_ms;
        return;
    }
    client_send(hc);
}

static void client_writable(void *ctx, struct mip_tcp_conn *c)
{
    (void)c;
    client_send(ctx);
}

static void client_readable(void *ctx, struct mip_tcp_conn *c)
{
    struct host_client *hc = ctx;
    uint8_t buf[MIP_TCP_APP_CHUNK], want[MIP_TCP_APP_CHUNK];
    size_t n, k;

    while ((n = mip_tcp_read(hc->tcp, c, buf, sizeof(buf))) > 0) {
        mip_http_body_fill(hc->received, want, n);
        for (k = 0; k < n && !hc->failed; k++)
            if (buf[k] != want[k])
                client_fail(hc, "byte %llu is 0x%02x, want 0x%02x",
                            (unsigned long long)(hc->received + k), buf[k], want[k]);
        hc->received += n;
    }
    if (hc->received > hc->to_expect)
        client_fail(hc, "received %llu bytes, more than the %llu expected",
                    (unsigned long long)hc->received, (unsigned long long)hc->to_expect);
}

static void client_error(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why)
{
    static const char names[][12] = { "none", "reset", "refused", "timeout", "keepalive",
                                       "unreachable", "aborted" };

    (void)c;
    client_fail(ctx, "connection failed: %s",
                (unsigned)why < sizeof(names) / sizeof(names[0]) ? names[why] : "?");
}

static void client_closed(void *ctx, struct mip_tcp_conn *c)
{
    struct host_client *hc = ctx;

    (void)c;
    hc->done = true;
    hc->mem.used = false;
    if (hc->sent != hc->to_send)
        client_fail(hc, "sent only %llu of %llu bytes", (unsigned long long)hc->sent,
                    (unsigned long long)hc->to_send);
    if (hc->received != hc->to_expect)
        client_fail(hc, "received %llu bytes, expected %llu",
                    (unsigned long long)hc->received, (unsigned long long)hc->to_expect);
}

static const struct mip_tcp_callbacks client_cb = {
    .connected = client_connected,
    .readable = client_readable,
    .writable = client_writable,
    .closed = client_closed,
    .error = client_error,
};

/* Everything the TCP side of the host runs. */
struct host_tcp {
    struct mip_tcp tcp;
    struct mip_tcp_echo echo;
    struct mip_tcp_discard discard;
    struct mip_tcp_chargen chargen;
    struct mip_http_server http;
    struct host_client client;
    struct mip_coap_demo coap;
};

/* Everything the program keeps, about 1 MB with the TCP apps' rings: one
 * local in main, on the 8 MB main-thread stack, so the host needs neither
 * heap nor mutable globals. */
struct host {
    struct host_opts o;
    struct mip_stack s;
    struct host_tcp t;
    struct host_link link;
    struct mip_udp_echo echo;
    struct mip_udp_discard discard;
    struct {                          /* --os: the kernel and its processes */
        struct mip_os k;
        struct mip_os_echo echo;
        struct mip_os_discard discard;
        struct mip_os_sensor sensor;
        struct mip_os_coap coap;
        struct mip_os_http http;
        uint16_t next_reading;
    } os;
    struct mip_overlay ovl;           /* --overlay */
    uint32_t ovl_rounds;              /* rounds the sink reported */
    struct mip_tap tap;
    struct zep_radio zep;             /* --zep: the radio, under ... */
    struct mip_mac mac;               /* ... the 802.15.4 MAC */
    int sfd;                          /* SIGINT and SIGTERM, read with the TAP */
    uint8_t nif;
    mip_time_t client_deadline;       /* --tcp-client: when the test gives up */
    struct {                          /* --ping */
        uint32_t sent, replied;
        mip_time_t next;              /* when the next request goes */
        mip_time_t deadline;          /* set when the last one went */
        bool done;
        uint8_t got[PING_MAX];        /* a reply came for this sequence number */
    } ping;
    uint8_t rxbuf[RX_BUF_SIZE];
};

static void stats_counters(FILE *f, const struct mip_stack *s)
{
    int i, first = 1;

    fprintf(f, "{\n  \"counters\": {");
    for (i = 0; i < (int)MIP_STAT_COUNT; i++) {
        const char *name = mip_stat_name((enum mip_stat)i);
        if (name == NULL)
            continue;
        fprintf(f, "%s\n    \"%s\": %lu", first ? "" : ",", name,
                (unsigned long)mip_stack_stat(s, (enum mip_stat)i));
        first = 0;
    }
    fprintf(f, "\n  },\n");
    fprintf(f, "  \"pbuf_high_water\": %u,\n", (unsigned)s->pool.high_water);
}

static void stats_udp_apps(FILE *f, const struct host *h)
{
    fprintf(f, "  \"apps\": {\n");
    fprintf(f, "    \"udp_echo\": {\"datagrams\": %lu, \"bytes\": %lu, \"ignored\": %lu, "
            "\"send_errors\": %lu},\n",
            (unsigned long)h->echo.datagrams, (unsigned long)h->echo.bytes,
            (unsigned long)h->echo.ignored, (unsigned long)h->echo.send_errors);
    fprintf(f, "    \"udp_discard\": {\"datagrams\": %lu, \"bytes\": %lu},\n",
            (unsigned long)h->discard.datagrams, (unsigned long)h->discard.bytes);
    if (given(&h->o, "--overlay")) {
        unsigned d;
        fprintf(f, "    \"overlay\": {\"interests_tx\": %lu, \"interests_rx\": %lu, "
                "\"data_tx\": %lu, \"data_rx\": %lu, \"readings_taken\": %lu, "
                "\"late_readings\": %lu", (unsigned long)h->ovl.interests_tx,
                (unsigned long)h->ovl.interests_rx, (unsigned long)h->ovl.data_tx,
                (unsigned long)h->ovl.data_rx, (unsigned long)h->ovl.readings_taken,
                (unsigned long)h->ovl.late_readings);
        for (d = 0; d < MIP_OVL_DROP_COUNT_; d++)
            fprintf(f, ", \"drop_%s\": %lu", mip_overlay_drop_name((enum mip_overlay_drop)d),
                    (unsigned long)h->ovl.drops[d]);
        fprintf(f, "},\n");
    }
}

/* A TCP server app's shared counters: the start of its object, which the
 * caller ends with the app's own counters. */
static void stats_tcp_server(FILE *f, const char *name, const struct mip_tcp_server *s)
{
    fprintf(f, "    \"%s\": {\"port\": %u, \"accepted\": %lu, \"refused\": %lu, "
            "\"errors\": %lu, \"evicted\": %lu, \"active\": %lu, ", name, (unsigned)s->port,
            (unsigned long)s->accepted, (unsigned long)s->refused, (unsigned long)s->errors,
            (unsigned long)s->evicted, (unsigned long)s->active);
}

static void stats_tcp_apps(FILE *f, const struct host_tcp *t)
{
    stats_tcp_server(f, "tcp_echo", &t->echo.srv);
    fprintf(f, "\"bytes\": %llu},\n", (unsigned long long)t->echo.bytes);
    stats_tcp_server(f, "tcp_discard", &t->discard.srv);
    fprintf(f, "\"bytes\": %llu, \"last_bytes\": %llu, \"last_crc32\": %lu},\n",
            (unsigned long long)t->discard.bytes, (unsigned long long)t->discard.last_bytes,
            (unsigned long)t->discard.last_crc32);
    stats_tcp_server(f, "tcp_chargen", &t->chargen.srv);
    fprintf(f, "\"bytes\": %llu},\n", (unsigned long long)t->chargen.bytes);
    stats_tcp_server(f, "http", &t->http.srv);
    fprintf(f, "\"requests\": %lu, \"status_2xx\": %lu, \"status_4xx\": %lu, "
            "\"status_5xx\": %lu, \"body_bytes\": %llu, \"timeouts\": %lu}\n",
            (unsigned long)t->http.requests, (unsigned long)t->http.status_2xx,
            (unsigned long)t->http.status_4xx, (unsigned long)t->http.status_5xx,
            (unsigned long long)t->http.body_bytes, (unsigned long)t->http.timeouts);
    fprintf(f, "  },\n");
}

/* CoAP: the callback app's endpoint, or with --os the process's. */
static void stats_coap_tcp(FILE *f, const struct host *h)
{
    const struct host_tcp *t = &h->t;
    const struct mip_coap_demo *d = h->o.os ? &h->os.coap.demo : &t->coap;
    int i, first = 1;

    fprintf(f, "  \"coap\": {\"port\": %u, \"bodies\": %lu",
            (unsigned)d->ep.port, (unsigned long)d->sink_bodies);
    for (i = 0; i < (int)MIP_COAP_STAT_COUNT; i++)
        fprintf(f, ", \"%s\": %lu", mip_coap_stat_name((enum mip_coap_stat)i),
                (unsigned long)mip_coap_stat(&d->ep, (enum mip_coap_stat)i));
    fprintf(f, "},\n");
    fprintf(f, "  \"tcp\": {");
    for (i = 0; i < (int)MIP_TCP_STAT_COUNT; i++) {
        const char *name = mip_tcp_stat_name((enum mip_tcp_stat)i);
        if (name == NULL)
            continue;
        fprintf(f, "%s\n    \"%s\": %lu", first ? "" : ",", name,
                (unsigned long)mip_tcp_stat(&t->tcp, (enum mip_tcp_stat)i));
        first = 0;
    }
    fprintf(f, "\n  },\n");
}

static void stats_link(FILE *f, const struct host *h)
{
    if (h->link.impaired) {
        const struct impair *im = &h->link.im;
        fprintf(f, "  \"impair\": {\"rx_frames\": %llu, \"rx_dropped\": %llu, "
                "\"rx_duplicated\": %llu, \"rx_delayed\": %llu, \"rx_overflow\": %llu, "
                "\"tx_frames\": %llu, \"tx_dropped\": %llu, \"tx_duplicated\": %llu, "
                "\"tx_delayed\": %llu, \"tx_overflow\": %llu},\n",
                (unsigned long long)im->frames[0], (unsigned long long)im->dropped[0],
                (unsigned long long)im->duplicated[0], (unsigned long long)im->delayed[0],
                (unsigned long long)im->overflow[0], (unsigned long long)im->frames[1],
                (unsigned long long)im->dropped[1], (unsigned long long)im->duplicated[1],
                (unsigned long long)im->delayed[1], (unsigned long long)im->overflow[1]);
    }
    if (h->o.zep != NULL) {
        const struct zep_radio_stats *z = &h->zep.st;
        fprintf(f, "  \"mac\": {\"tx_frames\": %lu, \"tx_ok\": %lu, \"tx_noack\": %lu, "
                "\"tx_retries\": %lu, \"rx_frames\": %lu, \"rx_duplicates\": %lu},\n",
                (unsigned long)mip_mac_stat(&h->mac, MIP_MAC_STAT_tx_frames),
                (unsigned long)mip_mac_stat(&h->mac, MIP_MAC_STAT_tx_ok),
                (unsigned long)mip_mac_stat(&h->mac, MIP_MAC_STAT_tx_noack),
                (unsigned long)mip_mac_stat(&h->mac, MIP_MAC_STAT_tx_retries),
                (unsigned long)mip_mac_stat(&h->mac, MIP_MAC_STAT_rx_frames),
                (unsigned long)mip_mac_stat(&h->mac, MIP_MAC_STAT_rx_duplicates));
        fprintf(f, "  \"zep\": {\"tx_frames\": %llu, \"tx_errors\": %llu, \"rx_datagrams\": %llu, "
                "\"rx_frames\": %llu, \"drop_malformed\": %llu, \"drop_fcs\": %llu, "
                "\"drop_channel\": %llu, \"drop_off\": %llu, \"drop_tx\": %llu, "
                "\"drop_collision\": %llu}\n}\n",
                (unsigned long long)z->tx_frames, (unsigned long long)z->tx_errors,
                (unsigned long long)z->rx_datagrams, (unsigned long long)z->rx_frames,
                (unsigned long long)z->drop_malformed, (unsigned long long)z->drop_fcs,
                (unsigned long long)z->drop_channel, (unsigned long long)z->drop_off,
                (unsigned long long)z->drop_tx, (unsigned long long)z->drop_collision);
        return;
    }
    fprintf(f, "  \"tap\": {\"tx_errors\": %lu}\n}\n",
            (unsigned long)(h->tap.tx_errors + h->tap.tx_short));
}

static void stats_os(FILE *f, const struct host *h)
{
    if (!h->o.os)
        return;
    fprintf(f, "  \"os\": {\"dispatched\": %lu, \"queue_full\": %lu,\n",
            (unsigned long)mip_os_stat(&h->os.k, MIP_OS_STAT_dispatched),
            (unsigned long)mip_os_stat(&h->os.k, MIP_OS_STAT_queue_full));
    fprintf(f, "    \"echo\": {\"datagrams\": %lu, \"connections\": %lu, \"bytes\": %lu, "
            "\"bind_failed\": %lu},\n", (unsigned long)h->os.echo.datagrams,
            (unsigned long)h->os.echo.connections, (unsigned long)h->os.echo.bytes,
            (unsigned long)h->os.echo.bind_failed);
    fprintf(f, "    \"discard\": {\"datagrams\": %lu, \"connections\": %lu, \"bytes\": %llu, "
            "\"crc32\": %lu, \"bind_failed\": %lu},\n", (unsigned long)h->os.discard.datagrams,
            (unsigned long)h->os.discard.connections, (unsigned long long)h->os.discard.bytes,
            (unsigned long)h->os.discard.crc, (unsigned long)h->os.discard.bind_failed);
    fprintf(f, "    \"http\": {\"requests\": %lu, \"status_2xx\": %lu, \"status_4xx\": %lu, "
            "\"status_5xx\": %lu, \"body_bytes\": %llu, \"timeouts\": %lu},\n",
            (unsigned long)h->os.http.requests, (unsigned long)h->os.http.status_2xx,
            (unsigned long)h->os.http.status_4xx, (unsigned long)h->os.http.status_5xx,
            (unsigned long long)h->os.http.body_bytes, (unsigned long)h->os.http.timeouts);
    fprintf(f, "    \"coap\": {\"datagrams\": %lu, \"bodies\": %lu},\n",
            (unsigned long)h->os.coap.datagrams, (unsigned long)h->os.coap.demo.sink_bodies);
    fprintf(f, "    \"sensor\": {\"samples\": %lu, \"sent\": %lu, \"send_failed\": %lu}\n  },\n",
            (unsigned long)h->os.sensor.samples, (unsigned long)h->os.sensor.sent,
            (unsigned long)h->os.sensor.send_failed);
}

/* Writes the counters to `path` atomically (a temporary file renamed over
 * it). Returns 0 or -errno. */
static int write_stats_json(const char *path, const struct host *h)
{
    char tmp[PATH_MAX];
    FILE *f;
    int e;

    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= sizeof(tmp))
        return -ENAMETOOLONG;
    f = fopen(tmp, "w");
    if (f == NULL)
        return -errno;
    stats_counters(f, &h->s);
    stats_udp_apps(f, h);
    stats_tcp_apps(f, &h->t);
    stats_os(f, h);
    stats_coap_tcp(f, h);
    stats_link(f, h);
    if (ferror(f) || fflush(f) != 0 || fsync(fileno(f)) != 0) {
        e = errno ? errno : EIO;
        fclose(f);
        unlink(tmp);
        return -e;
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        e = errno;
        unlink(tmp);
        return -e;
    }
    return 0;
}

/* Signals arrive through a descriptor, polled with the TAP. */
static void setup_signals(struct host *h)
{
    sigset_t sigs;

    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP);
    if (sigprocmask(SIG_BLOCK, &sigs, NULL) != 0)
        fail("sigprocmask: %s", strerror(errno));
    h->sfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
    if (h->sfd < 0)
        fail("signalfd: %s", strerror(errno));
    signal(SIGPIPE, SIG_IGN);
}

/* The lowpan netif's frames go to the MAC's queue (mac.h: the owner builds
 * this table, the mac floor does not include netif.h). */
static const struct mip_netif_driver zep_netif_driver = {
    mip_mac_netif_transmit, mip_mac_netif_room, mip_mac_netif_transmit_gap
};

/* The MAC hands a frame for us to the lowpan netif. */
static void zep_mac_input(void *ctx, const uint8_t *frame, size_t len, size_t hdr_len,
                          const struct mip_802154_hdr *hdr, mip_utime_t now)
{
    struct host *h = ctx;
    (void)hdr_len;
    (void)hdr;
    (void)now;
    mip_stack_input(&h->s, h->nif, frame, len, now_ms());
}

/* --zep: a lowpan netif (IPHC; context 0 = the first IPv6 --addr's /64) on
 * the 802.15.4 MAC (CSMA-CA with link ACKs, --rdc) on the ZEP radio. The
 * extended address is 02:00:00:00:00:00:ADDR, ADDR the short address. */
static void setup_zep(struct host *h, const uint8_t *seed, size_t seed_len)
{
    const struct host_opts *o = &h->o;
    struct mip_lowpan_config lc;
    struct mip_mac_config mc;
    struct mip_mac_callbacks cb;
    struct mip_radio_timing timing;
    uint8_t ext[8] = { 0x02, 0, 0, 0, 0, 0, 0, 0 };
    char err[200];
    mip_status st;
    size_t i;

    ext[6] = (uint8_t)(o->zep_short >> 8);
    ext[7] = (uint8_t)o->zep_short;
    mip_radio_timing_default(&timing);
    /* A datagram through the host's scheduler and loopback takes far longer
     * than the 192 µs turnaround a radio has: give the ACK 20 ms. */
    timing.ack_wait_us = ZEP_ACK_WAIT_US;
    if (zep_radio_open(&h->zep, o->zep, (uint8_t)o->zep_channel, (uint16_t)o->zep_short, &timing,
                       err, sizeof(err)) != 0)
        fail("--zep: %s", err);
    memset(&lc, 0, sizeof(lc));
    lc.mode = MIP_LOWPAN_IPHC;
    lc.pan_id = (uint16_t)o->zep_pan;
    lc.short_addr = (uint16_t)o->zep_short;
    memcpy(lc.ext_addr, ext, 8);
    lc.frame_max = 127;
    lc.ack_request = true;
    for (i = 0; i < o->n_addrs; i++)
        if (o->addrs[i].addr.family == MIP_AF_INET6 && o->addrs[i].prefix_len <= 64) {
            lc.has_context0 = true;
            memcpy(lc.ctx0_prefix, o->addrs[i].addr.bytes, 8);
            break;
        }
    st = mip_netif_add_lowpan(&h->s, &lc, &zep_netif_driver, &h->mac, &h->nif);
    if (st != MIP_OK)
        fail("--zep: cannot add the 6LoWPAN netif: %s", mip_status_name(st));
    mip_mac_config_default(&mc, MIP_MAC_CSMA_CA, lc.pan_id, lc.short_addr, ext);
    mc.timing = timing;
    mip_rdc_config_default(&mc.rdc, o->zep_rdc);
    if (o->zep_rdc == MIP_RDC_CONTIKIMAC) {
        /* ContikiMAC listens for the ACK of each copy only for the gap
         * between copies (Ti, 400 µs on a radio), shorter than the gap
         * between two CCAs (Tc): a ZEP ACK crosses the host's scheduler and
         * loopback twice. Both gaps scaled for that (docs/ZEP.md). */
        mc.rdc.copy_gap_us = ZEP_CM_COPY_GAP_US;
        mc.rdc.cca_gap_us = ZEP_CM_CCA_GAP_US;
    }
    memset(&cb, 0, sizeof(cb));
    cb.input = zep_mac_input;
    cb.ctx = h;
    st = mip_mac_init(&h->mac, &mc, &zep_radio_driver, &h->zep, &cb, seed, seed_len,
                      zep_now_us());
    if (st != MIP_OK)
        fail("--zep: the MAC refused its configuration: %s", mip_status_name(st));
    zep_radio_attach(&h->zep, &h->mac);
}

/* The stack on the TAP: entropy, the device, the Ethernet netif (through
 * the impairment with --impair). */
static void setup_netif(struct host *h)
{
    struct host_opts *o = &h->o;
    struct mip_stack_config cfg;
    uint8_t entropy[32];
    char err[256];
    int rc;

    rc = fill_random(entropy, sizeof(entropy));
    if (rc < 0)
        fail("getrandom: %s", strerror(-rc));
    if (o->zep == NULL && !o->have_mac && (rc = mip_mac_random(o->mac)) < 0)
        fail("getrandom: %s", strerror(-rc));
    if (o->zep == NULL && mip_tap_open(&h->tap, o->tap, err, sizeof(err)) != 0)
        fail("--tap: %s", err);
    h->tap.fd = o->zep == NULL ? h->tap.fd : -1;
    memset(&cfg, 0, sizeof(cfg));
    cfg.entropy = entropy;
    cfg.entropy_len = sizeof(entropy);
    cfg.forwarding = o->forward;
    mip_stack_init(&h->s, &cfg, now_ms());
    if (o->zep != NULL) {
        setup_zep(h, entropy + 16, 16);
        memset(entropy, 0, sizeof(entropy));
        return;
    }
    memset(entropy, 0, sizeof(entropy));

    h->link.s = &h->s;
    h->link.tap = &h->tap;
    if (o->impair_text != NULL) {
        if (!o->impair.have_seed &&
            (rc = fill_random((uint8_t *)&o->impair.seed, sizeof(o->impair.seed))) < 0)
            fail("getrandom: %s", strerror(-rc));
        impair_init(&h->link.im, &o->impair, link_deliver_rx, &h->link, link_deliver_tx,
                    &h->link);
        h->link.impaired = true;
        rc = (int)mip_netif_add_ethernet(&h->s, o->mac, &impaired_driver, &h->link, &h->nif);
    } else {
        rc = (int)mip_netif_add_ethernet(&h->s, o->mac, &mip_tap_driver, &h->tap, &h->nif);
    }
    h->link.nif = h->nif;
    if (rc != MIP_OK)
        fail("cannot add the Ethernet netif: %s", mip_status_name((mip_status)rc));
}

/* --addr and --route; what the stack refuses is still a usage error. */
static void setup_addrs_routes(struct host *h)
{
    const struct host_opts *o = &h->o;
    size_t i;

    for (i = 0; i < o->n_addrs; i++) {
        mip_status st = mip_netif_add_addr(&h->s, h->nif, &o->addrs[i].addr,
                                           o->addrs[i].prefix_len);
        if (st == MIP_ERR_NOBUFS)
            bad_arg("--addr", "'%s': too many addresses of this family (at most %d IPv4, %d IPv6)",
                    o->addrs[i].text, MIP_CONF_IPV4 ? MIP_NETIF_ADDR4_MAX : 0,
                    MIP_NETIF_ADDR6_MAX);
        if (st != MIP_OK)
            bad_arg("--addr", "'%s' cannot be added: %s", o->addrs[i].text,
                    mip_status_name(st));
    }
    for (i = 0; i < o->n_routes; i++) {
        const struct host_route *r = &o->routes[i];
        mip_status st = mip_route_add(&h->s, &r->prefix, r->prefix_len, &r->gateway, h->nif);
        if (st != MIP_OK)
            bad_arg("--route", "'%s via %s' cannot be added: %s", r->prefix_text,
                    r->gateway_text, st == MIP_ERR_NOBUFS ? "route table full" :
                    mip_status_name(st));
    }
}

static mip_status start_service(struct host_tcp *t, unsigned svc, uint16_t port)
{
    switch (svc) {
    case SVC_ECHO:    return mip_tcp_echo_start(&t->echo, &t->tcp, port);
    case SVC_DISCARD: return mip_tcp_discard_start(&t->discard, &t->tcp, port);
    case SVC_CHARGEN: return mip_tcp_chargen_start(&t->chargen, &t->tcp, port);
    default:          return mip_http_server_start(&t->http, &t->tcp, port);
    }
}

static uint16_t host_reading(void *ctx)
{
    uint16_t *next = ctx;
    return (*next)++;
}

/* --os: the kernel, and echo, discard and the sensor as its processes. */
static void setup_os(struct host *h)
{
    const struct host_opts *o = &h->o;
    mip_status st;

    mip_os_init(&h->os.k, now_ms());
    if (o->svc_port[SVC_ECHO] != 0) {
        mip_os_echo_prepare(&h->os.echo, &h->s, &h->t.tcp, o->svc_port[SVC_ECHO]);
        (void)mip_os_start(&h->os.k, &h->os.echo.proc, "echo", mip_os_echo_thread, &h->os.echo,
                           NULL);
        if (h->os.echo.bind_failed != 0)
            fail("--echo: cannot bind port %u", (unsigned)o->svc_port[SVC_ECHO]);
    }
    if (o->svc_port[SVC_DISCARD] != 0) {
        mip_os_discard_prepare(&h->os.discard, &h->s, &h->t.tcp, o->svc_port[SVC_DISCARD]);
        (void)mip_os_start(&h->os.k, &h->os.discard.proc, "discard", mip_os_discard_thread,
                           &h->os.discard, NULL);
        if (h->os.discard.bind_failed != 0)
            fail("--discard: cannot bind port %u", (unsigned)o->svc_port[SVC_DISCARD]);
    }
    if (o->svc_port[SVC_HTTP] != 0) {
        mip_os_http_prepare(&h->os.http, &h->s, &h->t.tcp, o->svc_port[SVC_HTTP]);
        (void)mip_os_start(&h->os.k, &h->os.http.proc, "http", mip_os_http_thread, &h->os.http,
                           NULL);
        if (h->os.http.bind_failed != 0)
            fail("--http: cannot listen on TCP port %u", (unsigned)o->svc_port[SVC_HTTP]);
    }
    if (o->coap_port != 0) {
        mip_os_coap_prepare(&h->os.coap, &h->s, o->coap_port);
        (void)mip_os_start(&h->os.k, &h->os.coap.proc, "coap", mip_os_coap_thread, &h->os.coap,
                           NULL);
        if (h->os.coap.bind_failed != 0)
            fail("--coap: cannot start CoAP on UDP port %u", (unsigned)o->coap_port);
    }
    if (o->sensor_text != NULL) {
        st = mip_os_sensor_prepare(&h->os.sensor, &h->s, &o->sensor_addr, o->sensor_port,
                                   49152u, (uint32_t)o->sensor_every_ms,
                                   (uint8_t)o->sensor_batch, host_reading, &h->os.next_reading);
        if (st == MIP_OK)
            st = mip_os_start(&h->os.k, &h->os.sensor.proc, "sensor", mip_os_sensor_thread,
                              &h->os.sensor, NULL);
        if (st != MIP_OK)
            fail("--sensor: cannot start: %s", mip_status_name(st));
    }
}

static bool ovl_read(void *ctx, uint8_t attr, mip_time_t now, int16_t *v)
{
    const struct host *h = ctx;
    (void)now;
    if (attr != 1u || !given(&h->o, "--overlay-reading"))
        return false;
    *v = (int16_t)h->o.overlay_reading;
    return true;
}

static void ovl_result(void *ctx, uint8_t attr, uint16_t epoch, const struct mip_ovl_agg *agg,
                       mip_time_t now)
{
    struct host *h = ctx;
    (void)now;
    printf(PROG ": overlay: attr %u round %u count %u min %d max %d sum %ld\n", (unsigned)attr,
           (unsigned)epoch, (unsigned)agg->count, agg->count ? agg->min : 0,
           agg->count ? agg->max : 0, (long)agg->sum);
    fflush(stdout);
    h->ovl_rounds++;
}

/* --overlay: the library on this stack's link; a sink subscribes. */
static void setup_overlay(struct host *h)
{
    struct mip_overlay_cfg cfg;
    mip_status st;

    memset(&cfg, 0, sizeof(cfg));
    cfg.id = (uint16_t)h->o.overlay_id;
    cfg.netif = h->nif;
    cfg.read = ovl_read;
    cfg.result = ovl_result;
    cfg.ctx = h;
    st = mip_overlay_start(&h->ovl, &h->s, &cfg);
    if (st != MIP_OK)
        fail("--overlay: cannot start on UDP port %u: %s", MIP_OVERLAY_PORT, mip_status_name(st));
    if (h->o.overlay_rounds == 0)
        return;
    st = mip_overlay_subscribe(&h->ovl, 1, HOST_OVL_INTERVAL_MS, HOST_OVL_DEPTH, HOST_OVL_SLOT_MS,
                               HOST_OVL_LIFETIME_MS, now_ms());
    if (st != MIP_OK)
        fail("--overlay-rounds: cannot subscribe: %s", mip_status_name(st));
}

/* UDP echo and discard (always, but with --os), CoAP, TCP and its services. */
static void setup_apps(struct host *h)
{
    const struct host_opts *o = &h->o;
    struct host_tcp *t = &h->t;
    unsigned i;
    int rc;

    if (o->os)
        goto coap;
    rc = (int)mip_udp_echo_start(&h->echo, &h->s, MIP_UDP_ECHO_PORT);
    if (rc != MIP_OK)
        fail("cannot start UDP echo on port %u: %s", MIP_UDP_ECHO_PORT,
             mip_status_name((mip_status)rc));
    rc = (int)mip_udp_discard_start(&h->discard, &h->s, MIP_UDP_DISCARD_PORT);
    if (rc != MIP_OK)
        fail("cannot start UDP discard on port %u: %s", MIP_UDP_DISCARD_PORT,
             mip_status_name((mip_status)rc));
coap:
    if (o->coap_port != 0 && !o->os &&
        (rc = (int)mip_coap_demo_start(&t->coap, &h->s, o->coap_port, false)) != MIP_OK)
        fail("--coap: cannot start CoAP on UDP port %u: %s", (unsigned)o->coap_port,
             mip_status_name((mip_status)rc));
    rc = (int)mip_tcp_init(&t->tcp, &h->s);
    if (rc != MIP_OK)
        fail("cannot start TCP: %s", mip_status_name((mip_status)rc));
    if (given(o, "--overlay"))
        setup_overlay(h);
    if (o->tcp_max_retries != 0)
        t->tcp.max_retries = (uint8_t)o->tcp_max_retries;
    for (i = 0; i < SVC_COUNT; i++) {
        mip_status st;
        if (o->svc_port[i] == 0 || (o->os && i != SVC_CHARGEN))
            continue;
        st = start_service(t, i, o->svc_port[i]);
        if (st != MIP_OK)
            fail("%s: cannot listen on TCP port %u: %s", svc_opt[i], (unsigned)o->svc_port[i],
                 mip_status_name(st));
    }
    if (o->os)
        setup_os(h);
}

/* "moteip-host: TAP up, ADDR/LEN ..." on stdout: the tests wait for it. */
static void print_ready(const struct host *h)
{
    char line[1024], text[MIP_ADDR_TEXT_MAX];
    size_t i, used;

    if (h->o.zep != NULL)
        used = (size_t)snprintf(line, sizeof(line), PROG ": zep %s short 0x%04x pan 0x%04x "
                                "channel %u up,", h->o.zep, (unsigned)h->o.zep_short,
                                (unsigned)h->o.zep_pan, (unsigned)h->o.zep_channel);
    else
        used = (size_t)snprintf(line, sizeof(line), PROG ": %s up,", h->tap.name);
    for (i = 0; i < h->o.n_addrs && used < sizeof(line); i++) {
        format_addr(&h->o.addrs[i].addr, text, sizeof(text));
        used += (size_t)snprintf(line + used, sizeof(line) - used, " %s/%u", text,
                                 (unsigned)h->o.addrs[i].prefix_len);
    }
    if (h->o.n_addrs == 0 && used < sizeof(line))
        snprintf(line + used, sizeof(line) - used, " link-local only");
    printf("%s\n", line);
    fflush(stdout);
}

static void start_client(struct host *h)
{
    const struct host_opts *o = &h->o;
    struct host_client *hc = &h->t.client;
    struct mip_tcp_conn *conn;
    mip_status st;

    hc->tcp = &h->t.tcp;
    hc->to_send = o->client_send;
    hc->to_expect = o->client_expect;
    hc->idle_ms = (uint32_t)o->client_idle_s * 1000u;
    conn = mip_tcp_app_slot_take(&hc->mem, &client_cb, hc);
    if (o->client_rx_ring != 0) {
        /* The port may allocate: a ring of the size asked for, with
         * its reassembly bitmap, in place of the slot's. */
        hc->rx_ring = calloc(1, o->client_rx_ring);
        hc->rx_bitmap = calloc(1, (o->client_rx_ring + 7u) / 8u);
        if (hc->rx_ring == NULL || hc->rx_bitmap == NULL)
            fail("--client-rx-ring: out of memory for %u bytes", (unsigned)o->client_rx_ring);
        mip_tcp_conn_init(conn, &client_cb, hc, hc->mem.tx, (uint16_t)sizeof(hc->mem.tx),
                          hc->rx_ring, hc->rx_bitmap, (mip_tcp_rxsize_t)o->client_rx_ring);
    }
    conn->cfg.keepalive_ms = (uint32_t)o->client_keepalive_ms;
    st = mip_tcp_connect(&h->t.tcp, conn, &o->client_addr, o->client_port);
    if (st != MIP_OK) {
        client_fail(hc, "connect: %s", mip_status_name(st));
        hc->done = true;
    }
    h->client_deadline = now_ms() + (mip_time_t)(o->client_timeout_s * 1000u);
}

/* True when the client test is over: done, or out of time (then failed). */
static bool client_over(struct host *h)
{
    struct host_client *hc = &h->t.client;

    if (h->o.client_text == NULL)
        return false;
    if (hc->done)
        return true;
    if (!mip_time_before(now_ms(), h->client_deadline)) {
        client_fail(hc, "timed out after %u s (state %s, sent %llu, received %llu)",
                    (unsigned)h->o.client_timeout_s, mip_tcp_state_name(hc->mem.conn.state),
                    (unsigned long long)hc->sent, (unsigned long long)hc->received);
        return true;
    }
    return false;
}

/* Ends --client-idle when its time has come; returns the stack's delay. */
static uint32_t client_wake(struct host *h, uint32_t delay)
{
    struct host_client *hc = &h->t.client;
    mip_time_t now = now_ms();

    if (h->o.client_text == NULL || !hc->idling || mip_time_before(now, hc->idle_until))
        return delay;
    /* Writing outside a stack callback: the stack's clock must be
     * current (the RTO is armed from it), so poll first. */
    hc->idling = false;
    (void)mip_stack_poll(&h->s, now);
    client_send(hc);
    return mip_stack_poll(&h->s, now);
}

/* The poll timeout: the stack's delay, cut by the impairment's next frame,
 * the client's deadline and the end of its idle time; -1 for none. */
static int poll_timeout(struct host *h, uint32_t delay)
{
    if (h->link.impaired) {
        uint32_t d2 = impair_run(&h->link.im, now_ms());
        if (d2 < delay)
            delay = d2;
    }
    if (h->o.client_text != NULL) {
        const struct host_client *hc = &h->t.client;
        mip_time_t now = now_ms();
        uint32_t left = mip_time_before(now, h->client_deadline) ?
                        (uint32_t)(h->client_deadline - now) : 0u;
        if (hc->idling) {
            uint32_t idle_left = mip_time_before(now, hc->idle_until) ?
                                 (uint32_t)(hc->idle_until - now) : 0u;
            if (idle_left < left)
                left = idle_left;
        }
        if (delay == MIP_POLL_IDLE || delay > left)
            delay = left;
    }
    return delay == MIP_POLL_IDLE ? -1 : (delay > (uint32_t)INT_MAX ? INT_MAX : (int)delay);
}

/* Up to RX_BUDGET frames from the TAP into the stack. Returns 0, or -1
 * when the device failed. */
static int read_frames(struct host *h)
{
    int k;

    for (k = 0; k < RX_BUDGET; k++) {
        ssize_t len = mip_tap_read(&h->tap, h->rxbuf, RX_BUF_SIZE);
        if (len == 0)
            break;
        if (len < 0) {
            fprintf(stderr, PROG ": reading %s: %s\n", h->tap.name, strerror((int)-len));
            return -1;
        }
        if (h->link.impaired)
            impair_frame(&h->link.im, IMPAIR_RX, h->rxbuf, (size_t)len, now_ms());
        else
            mip_stack_input(&h->s, h->nif, h->rxbuf, (size_t)len, now_ms());
    }
    return 0;
}

static bool stop_signal(struct host *h)
{
    struct signalfd_siginfo si;
    ssize_t r = read(h->sfd, &si, sizeof(si));

    return r == (ssize_t)sizeof(si) && (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM ||
                                         si.ssi_signo == SIGHUP);
}

/* Until a signal, a device failure or the end of the client test. Returns
 * the exit status so far. */
/* The data of request `seq`: a pattern, so a reply's bytes can be checked. */
static void ping_data(uint8_t *buf, size_t n, uint16_t seq)
{
    size_t i;
    for (i = 0; i < n; i++)
        buf[i] = (uint8_t)(i * 7u + seq);
}

static void on_ping_reply(void *ctx, struct mip_stack *s, const struct mip_addr *from, uint16_t id,
                          uint16_t seq, const uint8_t *data, size_t len)
{
    struct host *h = ctx;
    uint8_t want[1232];
    (void)s;
    if (id != 0x4d49 || seq >= h->ping.sent || len != h->o.ping_size || h->ping.got[seq] ||
        !mip_addr_eq(from, &h->o.ping_addr))
        return;
    ping_data(want, len, seq);
    if (memcmp(want, data, len) != 0)
        return;
    h->ping.got[seq] = 1;
    h->ping.replied++;
}

/* Sends the requests that are due; returns the ms to the next thing the
 * ping test waits for. */
static uint32_t ping_step(struct host *h)
{
    uint8_t data[1232];
    mip_time_t now = now_ms();

    if (h->ping.replied == h->o.ping_count) {
        h->ping.done = true;
        return 0;
    }
    if (h->ping.sent < h->o.ping_count && !mip_time_before(now, h->ping.next)) {
        ping_data(data, (size_t)h->o.ping_size, (uint16_t)h->ping.sent);
        (void)mip_stack_poll(&h->s, now);
        (void)mip_ping_send(&h->s, &h->o.ping_addr, 0x4d49, (uint16_t)h->ping.sent, data,
                            (size_t)h->o.ping_size);
        h->ping.sent++;
        h->ping.next = now + PING_INTERVAL_MS;
        if (h->ping.sent == h->o.ping_count)
            h->ping.deadline = now + PING_WAIT_MS;
    }
    if (h->ping.sent < h->o.ping_count)
        return h->ping.next - now;
    if (!mip_time_before(now, h->ping.deadline)) {
        h->ping.done = true;
        return 0;
    }
    return h->ping.deadline - now;
}

/* --zep: runs the radio's and the MAC's timers; returns the µs to the next
 * (UINT32_MAX: none). */
static uint32_t zep_timers(struct host *h)
{
    uint32_t r = zep_radio_poll(&h->zep);
    uint32_t m = mip_mac_poll(&h->mac, zep_now_us());
    uint32_t r2 = zep_radio_poll(&h->zep);     /* the MAC may have sent */
    if (r2 < r)
        r = r2;
    return m < r ? m : r;
}

static int run_loop(struct host *h)
{
    int exit_code = 0;
    bool running = true;
    bool zep = h->o.zep != NULL;

    while (running) {
        struct pollfd pfd[2] = { { zep ? h->zep.fd : h->tap.fd, POLLIN, 0 }, { h->sfd, POLLIN, 0 } };
        struct timespec ts;
        uint32_t delay, mac_us = UINT32_MAX;
        int ms;

        if (client_over(h))
            break;
        delay = client_wake(h, mip_stack_poll(&h->s, now_ms()));
        if (h->o.os) {
            /* what the processes sent goes out with the stack's next poll */
            uint32_t od = mip_os_run(&h->os.k, now_ms());
            uint32_t sd = mip_stack_poll(&h->s, now_ms());
            delay = od < sd ? od : sd;    /* 0 while events wait */
        }
        if (h->o.ping_text != NULL) {
            uint32_t pd = ping_step(h);
            if (h->ping.done)
                break;
            if (delay == MIP_POLL_IDLE || pd < delay)
                delay = pd;
        }
        if (zep)
            mac_us = zep_timers(h);
        if (h->o.client_text != NULL && h->t.client.done)
            break;            /* ended by a timer (retry limit, keepalive) */
        if (h->o.overlay_rounds != 0 && h->ovl_rounds >= h->o.overlay_rounds)
            break;            /* the sink's rounds are done */
        ms = poll_timeout(h, delay);
        if (mac_us != UINT32_MAX && (ms < 0 || (uint64_t)ms * 1000u > mac_us)) {
            ts.tv_sec = (time_t)(mac_us / 1000000u);
            ts.tv_nsec = (long)(mac_us % 1000000u) * 1000L;
        } else if (ms >= 0) {
            ts.tv_sec = ms / 1000;
            ts.tv_nsec = (long)(ms % 1000) * 1000000L;
        }
        if (ppoll(pfd, 2, (ms < 0 && mac_us == UINT32_MAX) ? NULL : &ts, NULL) < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
            return EXIT_RUNTIME;
        }
        if (zep && (pfd[0].revents & POLLIN))
            zep_radio_receive(&h->zep);
        else if ((pfd[0].revents & (POLLIN | POLLERR | POLLHUP | POLLNVAL)) && read_frames(h) != 0) {
            exit_code = EXIT_RUNTIME;
            running = false;
        }
        if ((pfd[1].revents & POLLIN) && stop_signal(h))
            running = false;
    }
    return exit_code;
}

/* The client's result line and the stats file; returns the exit status. */
static int finish(struct host *h, int exit_code)
{
    int rc;

    if (h->o.client_text != NULL) {
        const struct host_client *hc = &h->t.client;
        if (!hc->done || hc->failed) {
            printf(PROG ": tcp-client: FAILED: %s\n", hc->failed ? hc->why : "interrupted");
            if (exit_code == 0)
                exit_code = EXIT_RUNTIME;
        } else {
            printf(PROG ": tcp-client: ok, sent %llu bytes, received %llu bytes\n",
                   (unsigned long long)hc->sent, (unsigned long long)hc->received);
        }
        fflush(stdout);
    }
    if (h->o.ping_text != NULL) {
        printf(PROG ": ping: %u/%u replies of %u data bytes from %s\n", (unsigned)h->ping.replied,
               (unsigned)h->o.ping_count, (unsigned)h->o.ping_size, h->o.ping_text);
        fflush(stdout);
        if (h->ping.replied != h->o.ping_count && exit_code == 0)
            exit_code = EXIT_RUNTIME;
    }
    if (h->o.overlay_rounds != 0) {
        printf(PROG ": overlay: %u/%u rounds\n", (unsigned)h->ovl_rounds,
               (unsigned)h->o.overlay_rounds);
        fflush(stdout);
        if (h->ovl_rounds < h->o.overlay_rounds && exit_code == 0)
            exit_code = EXIT_RUNTIME;
    }
    if (h->o.stats_json != NULL && (rc = write_stats_json(h->o.stats_json, h)) < 0) {
        fprintf(stderr, PROG ": --stats-json: cannot write '%s': %s\n", h->o.stats_json,
                strerror(-rc));
        exit_code = EXIT_RUNTIME;
    }
    if (h->o.zep != NULL)
        zep_radio_close(&h->zep);
    else
        mip_tap_close(&h->tap);
    close(h->sfd);
    return exit_code;
}

int main(int argc, char **argv)
{
    struct host h;

    memset(&h, 0, sizeof(h));
    parse_args(argc, argv, &h.o);
    setup_signals(&h);
    setup_netif(&h);
    setup_addrs_routes(&h);
    setup_apps(&h);
    print_ready(&h);
    if (h.o.client_text != NULL)
        start_client(&h);
    if (h.o.ping_text != NULL)
        mip_ping_set_handler(&h.s, on_ping_reply, &h);
    return finish(&h, run_loop(&h));
}
