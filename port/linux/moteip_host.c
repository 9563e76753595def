/*
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
 *
 * The command line is a contract (tests/interop/test_cli.py): a bad or
 * missing argument prints ONE line on stderr naming the argument and what
 * is wrong, and exits 2. The program runs until SIGINT or SIGTERM (taken
 * through a signalfd, no global flag), then writes the stack's counters to
 * --stats-json and exits 0. Runtime failures (the TAP cannot be opened or
 * disappears) exit 1.
 *
 * TCP services (apps/tcp_*.h, apps/http_server.h) run on the ports given.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "moteip/stack.h"
#include "moteip/tcp.h"
#include "impair.h"
#include "linux_tap.h"
#include "coap_demo.h"
#include "http_server.h"
#include "tcp_app.h"
#include "tcp_chargen.h"
#include "tcp_discard.h"
#include "tcp_echo.h"
#include "udp_discard.h"
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

struct host_opts {
    const char *tap;
    uint16_t svc_port[SVC_COUNT];
    const char *profile;
    const char *client_text;          /* --tcp-client ADDR:PORT */
    struct mip_addr client_addr;
    uint16_t client_port;
    uint64_t client_send, client_expect;
    bool have_send, have_expect;
    unsigned client_timeout_s;
    unsigned client_idle_s;           /* --client-idle: idle time after connecting */
    bool have_idle;
    uint32_t client_keepalive_ms;     /* --client-keepalive (0: off) */
    uint32_t client_rx_ring;          /* --client-rx-ring (0: the app slot's ring) */
    unsigned tcp_max_retries;         /* --tcp-max-retries (0: the default) */
    uint16_t coap_port;               /* --coap PORT (0: off) */
    const char *impair_text;          /* --impair SPEC (impair.h) */
    struct impair_spec impair;
    const char *stats_json;
    const char *mac_text;
    uint8_t mac[6];
    bool have_mac;
    bool forward;
    size_t n_addrs;
    struct host_addr addrs[MAX_ADDRS];
    size_t n_routes;
    struct host_route routes[MAX_ROUTES];
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " --tap NAME --addr ADDR/PREFIX [--addr ADDR/PREFIX]...\n"
            "                   [--route PREFIX via GATEWAY]... [--stats-json FILE]\n"
            "                   [--mac MAC] [--forward] [--profile tiny|full]\n"
            "                   [--echo PORT] [--discard PORT] [--chargen PORT] [--http PORT]\n"
            "                   [--coap PORT]\n"
            "                   [--tcp-client ADDR:PORT [--client-send N] [--client-expect N]\n"
            "                    [--client-timeout SECONDS] [--client-keepalive MS]\n"
            "                    [--client-idle SECONDS] [--client-rx-ring BYTES]]\n"
            "                   [--tcp-max-retries N]\n"
            "                   [--impair SPEC]\n"
            "\n"
            "Runs a moteip stack as its own Ethernet station on the TAP device NAME\n"
            "(attached, or created when it does not exist), with UDP echo on port 7\n"
            "and UDP discard on port 9, until SIGINT or SIGTERM.\n"
            "\n"
            "  --tap NAME           TAP device to attach to (required)\n"
            "  --addr ADDR/PREFIX   an IPv4 or IPv6 address with its prefix length,\n"
            "                       e.g. 192.0.2.2/24 or fd00::2/64 (repeatable)\n"
            "  --route PREFIX via GATEWAY\n"
            "                       a static route, e.g. --route 0.0.0.0/0 via 192.0.2.1\n"
            "                       or --route ::/0 via fd00::1 (repeatable)\n"
            "  --stats-json FILE    on exit, write the stack's counters to FILE as\n"
            "                       {\"counters\": {...}, \"pbuf_high_water\": N, ...}\n"
            "  --mac MAC            the stack's MAC address (default: random\n"
            "                       02:00:00:xx:xx:xx)\n"
            "  --forward            forward datagrams not addressed to the stack\n"
            "  --profile tiny|full  refuse to run unless the stack was built with this\n"
            "                       profile (this one: " BUILD_PROFILE ")\n"
            "\n"
            "TCP services (each off unless given; %u connections each, with a %u-byte\n"
            "send ring and a %u-byte receive ring per connection):\n"
            "  --echo PORT          echo (RFC 862)\n"
            "  --discard PORT       discard (RFC 863); counts bytes and the CRC-32 of\n"
            "                       the last connection (stats JSON apps.tcp_discard)\n"
            "  --chargen PORT       character generator (RFC 864)\n"
            "  --http PORT          HTTP/1.1: GET /bytes/N answers N bytes of the pattern\n"
            "                       (7*i + (i>>8) + (i>>16)) & 0xFF; other paths 404\n"
            "  --coap PORT          CoAP over UDP (5683 is the standard port): /hello,\n"
            "                       /bytes?n=N (the pattern, block-wise), /sink (POST/PUT,\n"
            "                       Block1; answers \"length crc32\"), /.well-known/core\n"
            "\n"
            "TCP client test (instead of running until a signal):\n"
            "  --tcp-client ADDR:PORT\n"
            "                       connect to ADDR:PORT (IPv6 as [ADDR]:PORT), send the\n"
            "                       --client-send bytes, then half-close; check that\n"
            "                       exactly --client-expect bytes arrive before the\n"
            "                       peer closes, all equal to the same pattern; print\n"
            "                       one result line and exit 0 (ok) or 1 (failed)\n"
            "  --client-send N      bytes to send (default 0)\n"
            "  --client-expect N    bytes to receive (default 0)\n"
            "  --client-timeout S   give up after S seconds, counted from the start\n"
            "                       (default 30 plus --client-idle; must be longer\n"
            "                       than --client-idle)\n"
            "  --client-keepalive MS\n"
            "                       TCP keepalive: probe after MS milliseconds without\n"
            "                       a segment from the peer, then every MS/4 (at least\n"
            "                       500 ms); 4 unanswered probes end the connection\n"
            "                       (\"connection failed: keepalive\"). 1..86400000\n"
            "  --client-idle S      after connecting, keep the connection idle for S\n"
            "                       seconds (0..86400, default 0) before sending and\n"
            "                       half-closing\n"
            "  --client-rx-ring BYTES\n"
            "                       the client connection's receive ring (default %u;\n"
            "                       1..%lu): above 65535 the window is offered with\n"
            "                       a window scale (RFC 7323)\n"
            "\n"
            "TCP settings (services and client):\n"
            "  --tcp-max-retries N  retransmission timeouts in a row before an\n"
            "                       established connection gives up (\"connection\n"
            "                       failed: timeout\"); 1..255 (default %u); 255 = never,\n"
            "                       the handshake included (else it gives up after %u)\n"
            "\n"
            "Testing:\n"
            "  --impair SPEC        impair the link in both directions, like netem:\n"
            "                       comma-separated loss=P, dup=P (percent), delay=MS,\n"
            "                       reorder=P (that share of frames skips the delay),\n"
            "                       seed=N; e.g. --impair loss=5 or delay=10,reorder=25\n"
            "  --help               print this help and exit\n"
            "\n"
            "Exit status: 0 after SIGINT/SIGTERM, 1 on a runtime failure, 2 for a\n"
            "bad command line. With --tcp-client: 0 when the test passed, else 1.\n",
            (unsigned)MIP_TCP_APP_CONNS, (unsigned)MIP_TCP_APP_TX_SIZE,
            (unsigned)MIP_TCP_APP_RX_SIZE, (unsigned)MIP_TCP_APP_RX_SIZE,
            (unsigned long)MIP_TCP_RX_SIZE_MAX, (unsigned)MIP_TCP_MAX_RETRIES,
            (unsigned)MIP_TCP_SYN_RETRIES);
}

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

/* The value of an option taking one argument. */
static const char *opt_value(int argc, char **argv, int *i)
{
    const char *opt = argv[*i];

    if (*i + 1 >= argc)
        bad_arg(opt, "missing value");
    (*i)++;
    return argv[*i];
}

static void parse_args(int argc, char **argv, struct host_opts *o)
{
    int i;

    memset(o, 0, sizeof(*o));
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];

        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            fflush(stdout);
            exit(0);
        } else if (strcmp(arg, "--tap") == 0) {
            const char *v = opt_value(argc, argv, &i);
            if (o->tap != NULL)
                bad_arg(arg, "given more than once");
            if (!valid_ifname(v))
                bad_arg(arg, "'%s' is not a valid interface name (1..%d characters, "
                        "no '/', ':' or spaces)", v, IFNAMSIZ - 1);
            o->tap = v;
        } else if (strcmp(arg, "--addr") == 0) {
            const char *v = opt_value(argc, argv, &i);
            struct host_addr *h;

            if (o->n_addrs >= MAX_ADDRS)
                bad_arg(arg, "more than %d addresses", MAX_ADDRS);
            h = &o->addrs[o->n_addrs];
            if (parse_prefix(v, &h->addr, &h->prefix_len) != 0)
                bad_arg(arg, "'%s' is not an IP address/prefix", v);
            if (!is_unicast(&h->addr))
                bad_arg(arg, "'%s' is not a unicast address", v);
            h->text = v;
            o->n_addrs++;
        } else if (strcmp(arg, "--route") == 0) {
            struct host_route *r;
            uint8_t gw_len;

            if (i + 3 >= argc)
                bad_arg(arg, "needs three arguments: --route PREFIX via GATEWAY");
            if (o->n_routes >= MAX_ROUTES)
                bad_arg(arg, "more than %d routes", MAX_ROUTES);
            r = &o->routes[o->n_routes];
            r->prefix_text = argv[i + 1];
            if (parse_prefix(r->prefix_text, &r->prefix, &r->prefix_len) != 0)
                bad_arg(arg, "'%s' is not an IP prefix", r->prefix_text);
            if (strcmp(argv[i + 2], "via") != 0)
                bad_arg(arg, "expected 'via' after '%s', got '%s'", r->prefix_text, argv[i + 2]);
            r->gateway_text = argv[i + 3];
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
            i += 3;
        } else if (strcmp(arg, "--stats-json") == 0) {
            const char *v = opt_value(argc, argv, &i);
            if (o->stats_json != NULL)
                bad_arg(arg, "given more than once");
            if (v[0] == '\0')
                bad_arg(arg, "empty file name");
            o->stats_json = v;
        } else if (strcmp(arg, "--mac") == 0) {
            const char *v = opt_value(argc, argv, &i);
            static const uint8_t zero[6];
            if (o->have_mac)
                bad_arg(arg, "given more than once");
            if (mip_mac_parse(v, o->mac) != 0)
                bad_arg(arg, "'%s' is not a MAC address (like 02:00:00:00:00:02)", v);
            if (o->mac[0] & 0x01u)
                bad_arg(arg, "'%s' is a multicast address; the stack needs a unicast one", v);
            if (memcmp(o->mac, zero, 6) == 0)
                bad_arg(arg, "'%s' is the all-zero address", v);
            o->mac_text = v;
            o->have_mac = true;
        } else if (strcmp(arg, "--forward") == 0) {
            o->forward = true;
        } else if (strcmp(arg, "--profile") == 0) {
            const char *v = opt_value(argc, argv, &i);
            if (strcmp(v, "tiny") != 0 && strcmp(v, "full") != 0)
                bad_arg(arg, "'%s' is not a profile (tiny or full)", v);
            if (strcmp(v, BUILD_PROFILE) != 0)
                bad_arg(arg, "this moteip-host is built with the " BUILD_PROFILE
                        " profile, not '%s'", v);
            o->profile = v;
        } else if (strcmp(arg, "--echo") == 0 || strcmp(arg, "--discard") == 0 ||
                   strcmp(arg, "--chargen") == 0 || strcmp(arg, "--http") == 0) {
            const char *v = opt_value(argc, argv, &i);
            unsigned k, svc = 0;
            uint16_t port;
            for (k = 0; k < SVC_COUNT; k++)
                if (strcmp(arg, svc_opt[k]) == 0)
                    svc = k;
            if (o->svc_port[svc] != 0)
                bad_arg(arg, "given more than once");
            port = parse_port(v);
            if (port == 0)
                bad_arg(arg, "'%s' is not a port number (1..65535)", v);
            for (k = 0; k < SVC_COUNT; k++)
                if (o->svc_port[k] == port)
                    bad_arg(arg, "port %u is already used by %s", (unsigned)port, svc_opt[k]);
            o->svc_port[svc] = port;
        } else if (strcmp(arg, "--coap") == 0) {
            const char *v = opt_value(argc, argv, &i);
            if (o->coap_port != 0)
                bad_arg(arg, "given more than once");
            o->coap_port = parse_port(v);
            if (o->coap_port == 0 || o->coap_port == MIP_UDP_ECHO_PORT ||
                o->coap_port == MIP_UDP_DISCARD_PORT)
                bad_arg(arg, "'%s' is not a free UDP port (1..65535, not 7 or 9)", v);
        } else if (strcmp(arg, "--tcp-client") == 0) {
            const char *v = opt_value(argc, argv, &i);
            if (o->client_text != NULL)
                bad_arg(arg, "given more than once");
            if (parse_endpoint(v, &o->client_addr, &o->client_port) != 0)
                bad_arg(arg, "'%s' is not ADDR:PORT (IPv6: [ADDR]:PORT)", v);
            if (!is_unicast(&o->client_addr))
                bad_arg(arg, "'%s' is not a unicast address", v);
            o->client_text = v;
        } else if (strcmp(arg, "--client-send") == 0 || strcmp(arg, "--client-expect") == 0) {
            const char *v = opt_value(argc, argv, &i);
            bool send = strcmp(arg, "--client-send") == 0;
            if (send ? o->have_send : o->have_expect)
                bad_arg(arg, "given more than once");
            if (parse_count(v, send ? &o->client_send : &o->client_expect) != 0)
                bad_arg(arg, "'%s' is not a byte count (a decimal number)", v);
            if (send)
                o->have_send = true;
            else
                o->have_expect = true;
        } else if (strcmp(arg, "--client-timeout") == 0) {
            const char *v = opt_value(argc, argv, &i);
            uint64_t t;
            if (o->client_timeout_s != 0)
                bad_arg(arg, "given more than once");
            if (parse_count(v, &t) != 0 || t == 0 || t > 86400u)
                bad_arg(arg, "'%s' is not a number of seconds (1..86400)", v);
            o->client_timeout_s = (unsigned)t;
        } else if (strcmp(arg, "--client-keepalive") == 0) {
            const char *v = opt_value(argc, argv, &i);
            uint64_t t;
            if (o->client_keepalive_ms != 0)
                bad_arg(arg, "given more than once");
            if (parse_count(v, &t) != 0 || t == 0 || t > 86400000u)
                bad_arg(arg, "'%s' is not a number of milliseconds (1..86400000)", v);
            o->client_keepalive_ms = (uint32_t)t;
        } else if (strcmp(arg, "--client-rx-ring") == 0) {
            const char *v = opt_value(argc, argv, &i);
            uint64_t t;
            if (o->client_rx_ring != 0)
                bad_arg(arg, "given more than once");
            if (parse_count(v, &t) != 0 || t == 0 || t > MIP_TCP_RX_SIZE_MAX)
                bad_arg(arg, "'%s' is not a ring size (1..%lu bytes)", v,
                        (unsigned long)MIP_TCP_RX_SIZE_MAX);
            o->client_rx_ring = (uint32_t)t;
        } else if (strcmp(arg, "--client-idle") == 0) {
            const char *v = opt_value(argc, argv, &i);
            uint64_t t;
            if (o->have_idle)
                bad_arg(arg, "given more than once");
            if (parse_count(v, &t) != 0 || t > 86400u)
                bad_arg(arg, "'%s' is not a number of seconds (0..86400)", v);
            o->client_idle_s = (unsigned)t;
            o->have_idle = true;
        } else if (strcmp(arg, "--tcp-max-retries") == 0) {
            const char *v = opt_value(argc, argv, &i);
            uint64_t t;
            if (o->tcp_max_retries != 0)
                bad_arg(arg, "given more than once");
            if (parse_count(v, &t) != 0 || t == 0 || t > 255u)
                bad_arg(arg, "'%s' is not a retry count (1..255, 255 = never give up)", v);
            o->tcp_max_retries = (unsigned)t;
        } else if (strcmp(arg, "--impair") == 0) {
            const char *v = opt_value(argc, argv, &i);
            char err[160];
            if (o->impair_text != NULL)
                bad_arg(arg, "given more than once");
            if (impair_parse(v, &o->impair, err, sizeof(err)) != 0)
                bad_arg(arg, "'%s': %s", v, err);
            o->impair_text = v;
        } else if (arg[0] == '-') {
            bad_arg(arg, "unknown option (see --help)");
        } else {
            bad_arg(arg, "unexpected argument (see --help)");
        }
    }
    if (o->tap == NULL)
        bad_arg("--tap", "missing (required): the TAP device to attach to");
    if (o->client_text == NULL) {
        if (o->have_send)
            bad_arg("--client-send", "only with --tcp-client");
        if (o->have_expect)
            bad_arg("--client-expect", "only with --tcp-client");
        if (o->client_timeout_s != 0)
            bad_arg("--client-timeout", "only with --tcp-client");
        if (o->client_keepalive_ms != 0)
            bad_arg("--client-keepalive", "only with --tcp-client");
        if (o->have_idle)
            bad_arg("--client-idle", "only with --tcp-client");
        if (o->client_rx_ring != 0)
            bad_arg("--client-rx-ring", "only with --tcp-client");
    }
    if (o->client_timeout_s == 0)
        o->client_timeout_s = 30u + o->client_idle_s;
    else if (o->client_timeout_s <= o->client_idle_s)
        bad_arg("--client-timeout", "%u s is not longer than --client-idle (%u s)",
                o->client_timeout_s, o->client_idle_s);
#if !MIP_CONF_FORWARD
    if (o->forward)
        bad_arg("--forward", "this build has no forwarding (MIP_CONF_FORWARD=0)");
#endif
    if (o->stats_json != NULL) {
        /* Fail now rather than after a long run. */
        char dir[PATH_MAX];
        const char *slash = strrchr(o->stats_json, '/');
        if (slash == NULL) {
            snprintf(dir, sizeof(dir), ".");
        } else if (slash == o->stats_json) {
            snprintf(dir, sizeof(dir), "/");
        } else {
            size_t n = (size_t)(slash - o->stats_json);
            if (n >= sizeof(dir))
                bad_arg("--stats-json", "path too long");
            memcpy(dir, o->stats_json, n);
            dir[n] = '\0';
        }
        if (access(dir, W_OK | X_OK) != 0)
            bad_arg("--stats-json", "cannot write into directory '%s': %s", dir,
                    strerror(errno));
    }
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

static int write_stats_json(const char *path, const struct mip_stack *s,
                            const struct mip_udp_echo *echo,
                            const struct mip_udp_discard *discard,
                            const struct host_tcp *t,
                            const struct host_link *link,
                            const struct mip_tap *tap)
{
    char tmp[PATH_MAX];
    FILE *f;
    int i, first = 1;

    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= sizeof(tmp))
        return -ENAMETOOLONG;
    f = fopen(tmp, "w");
    if (f == NULL)
        return -errno;
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
    fprintf(f, "  \"apps\": {\n");
    fprintf(f, "    \"udp_echo\": {\"datagrams\": %lu, \"bytes\": %lu, \"ignored\": %lu, "
            "\"send_errors\": %lu},\n",
            (unsigned long)echo->datagrams, (unsigned long)echo->bytes,
            (unsigned long)echo->ignored, (unsigned long)echo->send_errors);
    fprintf(f, "    \"udp_discard\": {\"datagrams\": %lu, \"bytes\": %lu},\n",
            (unsigned long)discard->datagrams, (unsigned long)discard->bytes);
    fprintf(f, "    \"tcp_echo\": {\"port\": %u, \"accepted\": %lu, \"refused\": %lu, "
            "\"errors\": %lu, \"active\": %lu, \"bytes\": %llu},\n",
            (unsigned)t->echo.port, (unsigned long)t->echo.accepted,
            (unsigned long)t->echo.refused, (unsigned long)t->echo.errors,
            (unsigned long)t->echo.active, (unsigned long long)t->echo.bytes);
    fprintf(f, "    \"tcp_discard\": {\"port\": %u, \"accepted\": %lu, \"refused\": %lu, "
            "\"errors\": %lu, \"active\": %lu, \"bytes\": %llu, \"last_bytes\": %llu, "
            "\"last_crc32\": %lu},\n",
            (unsigned)t->discard.port, (unsigned long)t->discard.accepted,
            (unsigned long)t->discard.refused, (unsigned long)t->discard.errors,
            (unsigned long)t->discard.active, (unsigned long long)t->discard.bytes,
            (unsigned long long)t->discard.last_bytes, (unsigned long)t->discard.last_crc32);
    fprintf(f, "    \"tcp_chargen\": {\"port\": %u, \"accepted\": %lu, \"refused\": %lu, "
            "\"errors\": %lu, \"active\": %lu, \"bytes\": %llu},\n",
            (unsigned)t->chargen.port, (unsigned long)t->chargen.accepted,
            (unsigned long)t->chargen.refused, (unsigned long)t->chargen.errors,
            (unsigned long)t->chargen.active, (unsigned long long)t->chargen.bytes);
    fprintf(f, "    \"http\": {\"port\": %u, \"accepted\": %lu, \"refused\": %lu, "
            "\"errors\": %lu, \"active\": %lu, \"requests\": %lu, \"status_2xx\": %lu, "
            "\"status_4xx\": %lu, \"status_5xx\": %lu, \"body_bytes\": %llu}\n",
            (unsigned)t->http.port, (unsigned long)t->http.accepted,
            (unsigned long)t->http.refused, (unsigned long)t->http.errors,
            (unsigned long)t->http.active, (unsigned long)t->http.requests,
            (unsigned long)t->http.status_2xx, (unsigned long)t->http.status_4xx,
            (unsigned long)t->http.status_5xx, (unsigned long long)t->http.body_bytes);
    fprintf(f, "  },\n");
    fprintf(f, "  \"coap\": {\"port\": %u, \"bodies\": %lu",
            (unsigned)t->coap.ep.port, (unsigned long)t->coap.sink_bodies);
    for (i = 0; i < (int)MIP_COAP_STAT_COUNT; i++)
        fprintf(f, ", \"%s\": %lu", mip_coap_stat_name((enum mip_coap_stat)i),
                (unsigned long)mip_coap_stat(&t->coap.ep, (enum mip_coap_stat)i));
    fprintf(f, "},\n");
    fprintf(f, "  \"tcp\": {");
    first = 1;
    for (i = 0; i < (int)MIP_TCP_STAT_COUNT; i++) {
        const char *name = mip_tcp_stat_name((enum mip_tcp_stat)i);
        if (name == NULL)
            continue;
        fprintf(f, "%s\n    \"%s\": %lu", first ? "" : ",", name,
                (unsigned long)mip_tcp_stat(&t->tcp, (enum mip_tcp_stat)i));
        first = 0;
    }
    fprintf(f, "\n  },\n");
    if (link->impaired) {
        const struct impair *im = &link->im;
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
    fprintf(f, "  \"tap\": {\"tx_errors\": %lu}\n}\n",
            (unsigned long)(tap->tx_errors + tap->tx_short));
    if (ferror(f) || fflush(f) != 0 || fsync(fileno(f)) != 0) {
        int e = errno ? errno : EIO;
        fclose(f);
        unlink(tmp);
        return -e;
    }
    if (fclose(f) != 0) {
        int e = errno;
        unlink(tmp);
        return -e;
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return -e;
    }
    return 0;
}

/* Everything the program keeps, about 1 MB with the TCP apps' rings: one
 * local in main, on the 8 MB main-thread stack, so the host needs neither
 * heap nor mutable globals. */
struct host_mem {
    struct host_opts o;
    struct mip_stack s;
    struct host_tcp t;
    struct host_link link;
    uint8_t rxbuf[RX_BUF_SIZE];
};

int main(int argc, char **argv)
{
    struct host_mem mem;
    struct host_opts *o;
    struct mip_stack *s;
    struct mip_stack_config cfg;
    struct mip_udp_echo echo;
    struct mip_udp_discard discard;
    struct mip_tap tap;
    struct host_tcp *t;
    struct host_link *link;
    mip_time_t client_deadline = 0;
    uint8_t entropy[32];
    uint8_t *rxbuf;
    uint8_t nif = 0;
    sigset_t sigs;
    int sfd, rc, exit_code = 0;
    char err[256], line[1024], text[MIP_ADDR_TEXT_MAX];
    size_t i, used;
    bool running = true;

    memset(&mem, 0, sizeof(mem));
    o = &mem.o;
    s = &mem.s;
    t = &mem.t;
    link = &mem.link;
    rxbuf = mem.rxbuf;
    parse_args(argc, argv, o);

    /* Signals arrive through a descriptor, polled with the TAP. */
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    if (sigprocmask(SIG_BLOCK, &sigs, NULL) != 0)
        fail("sigprocmask: %s", strerror(errno));
    sfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sfd < 0)
        fail("signalfd: %s", strerror(errno));
    signal(SIGPIPE, SIG_IGN);

    rc = fill_random(entropy, sizeof(entropy));
    if (rc < 0)
        fail("getrandom: %s", strerror(-rc));
    if (!o->have_mac) {
        rc = mip_mac_random(o->mac);
        if (rc < 0)
            fail("getrandom: %s", strerror(-rc));
    }

    if (mip_tap_open(&tap, o->tap, err, sizeof(err)) != 0)
        fail("--tap: %s", err);

    memset(&cfg, 0, sizeof(cfg));
    cfg.entropy = entropy;
    cfg.entropy_len = sizeof(entropy);
    cfg.forwarding = o->forward;
    mip_stack_init(s, &cfg, now_ms());
    memset(entropy, 0, sizeof(entropy));

    link->s = s;
    link->tap = &tap;
    if (o->impair_text != NULL) {
        if (!o->impair.have_seed) {
            rc = fill_random((uint8_t *)&o->impair.seed, sizeof(o->impair.seed));
            if (rc < 0)
                fail("getrandom: %s", strerror(-rc));
        }
        impair_init(&link->im, &o->impair, link_deliver_rx, link, link_deliver_tx, link);
        link->impaired = true;
        rc = (int)mip_netif_add_ethernet(s, o->mac, &impaired_driver, link, &nif);
    } else {
        rc = (int)mip_netif_add_ethernet(s, o->mac, &mip_tap_driver, &tap, &nif);
    }
    link->nif = nif;
    if (rc != MIP_OK)
        fail("cannot add the Ethernet netif: %s", mip_status_name((mip_status)rc));
    for (i = 0; i < o->n_addrs; i++) {
        mip_status st = mip_netif_add_addr(s, nif, &o->addrs[i].addr, o->addrs[i].prefix_len);
        if (st == MIP_ERR_NOBUFS)
            bad_arg("--addr", "'%s': too many addresses of this family (at most %d IPv4, %d IPv6)",
                    o->addrs[i].text, MIP_CONF_IPV4 ? MIP_NETIF_ADDR4_MAX : 0,
                    MIP_NETIF_ADDR6_MAX);
        if (st != MIP_OK)
            bad_arg("--addr", "'%s' cannot be added: %s", o->addrs[i].text,
                    mip_status_name(st));
    }
    for (i = 0; i < o->n_routes; i++) {
        struct host_route *r = &o->routes[i];
        mip_status st = mip_route_add(s, &r->prefix, r->prefix_len, &r->gateway, nif);
        if (st != MIP_OK)
            bad_arg("--route", "'%s via %s' cannot be added: %s", r->prefix_text,
                    r->gateway_text, st == MIP_ERR_NOBUFS ? "route table full" :
                    mip_status_name(st));
    }
    rc = (int)mip_udp_echo_start(&echo, s, MIP_UDP_ECHO_PORT);
    if (rc != MIP_OK)
        fail("cannot start UDP echo on port %u: %s", MIP_UDP_ECHO_PORT,
             mip_status_name((mip_status)rc));
    rc = (int)mip_udp_discard_start(&discard, s, MIP_UDP_DISCARD_PORT);
    if (rc != MIP_OK)
        fail("cannot start UDP discard on port %u: %s", MIP_UDP_DISCARD_PORT,
             mip_status_name((mip_status)rc));

    if (o->coap_port != 0) {
        rc = (int)mip_coap_demo_start(&t->coap, s, o->coap_port, false);
        if (rc != MIP_OK)
            fail("--coap: cannot start CoAP on UDP port %u: %s", (unsigned)o->coap_port,
                 mip_status_name((mip_status)rc));
    }
    rc = (int)mip_tcp_init(&t->tcp, s);
    if (rc != MIP_OK)
        fail("cannot start TCP: %s", mip_status_name((mip_status)rc));
    if (o->tcp_max_retries != 0)
        t->tcp.max_retries = (uint8_t)o->tcp_max_retries;
    for (i = 0; i < SVC_COUNT; i++) {
        uint16_t port = o->svc_port[i];
        mip_status st = MIP_OK;
        if (port == 0)
            continue;
        switch (i) {
        case SVC_ECHO:    st = mip_tcp_echo_start(&t->echo, &t->tcp, port); break;
        case SVC_DISCARD: st = mip_tcp_discard_start(&t->discard, &t->tcp, port); break;
        case SVC_CHARGEN: st = mip_tcp_chargen_start(&t->chargen, &t->tcp, port); break;
        default:          st = mip_http_server_start(&t->http, &t->tcp, port); break;
        }
        if (st != MIP_OK)
            fail("%s: cannot listen on TCP port %u: %s", svc_opt[i], (unsigned)port,
                 mip_status_name(st));
    }

    used = (size_t)snprintf(line, sizeof(line), PROG ": %s up,", tap.name);
    for (i = 0; i < o->n_addrs && used < sizeof(line); i++) {
        format_addr(&o->addrs[i].addr, text, sizeof(text));
        used += (size_t)snprintf(line + used, sizeof(line) - used, " %s/%u", text,
                                 (unsigned)o->addrs[i].prefix_len);
    }
    if (o->n_addrs == 0 && used < sizeof(line))
        snprintf(line + used, sizeof(line) - used, " link-local only");
    printf("%s\n", line);
    fflush(stdout);

    if (o->client_text != NULL) {
        struct host_client *hc = &t->client;
        struct mip_tcp_conn *conn;
        mip_status st;

        hc->tcp = &t->tcp;
        hc->to_send = o->client_send;
        hc->to_expect = o->client_expect;
        hc->idle_ms = o->client_idle_s * 1000u;
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
        conn->cfg.keepalive_ms = o->client_keepalive_ms;
        st = mip_tcp_connect(&t->tcp, conn, &o->client_addr, o->client_port);
        if (st != MIP_OK) {
            client_fail(hc, "connect: %s", mip_status_name(st));
            hc->done = true;
        }
        client_deadline = now_ms() + (mip_time_t)(o->client_timeout_s * 1000u);
    }

    while (running) {
        struct pollfd pfd[2];
        uint32_t delay;
        int n;

        if (o->client_text != NULL) {
            mip_time_t now = now_ms();
            if (t->client.done)
                break;
            if (!mip_time_before(now, client_deadline)) {
                client_fail(&t->client, "timed out after %u s (state %s, sent %llu, "
                            "received %llu)", o->client_timeout_s,
                            mip_tcp_state_name(t->client.mem.conn.state),
                            (unsigned long long)t->client.sent,
                            (unsigned long long)t->client.received);
                break;
            }
        }
        delay = mip_stack_poll(s, now_ms());
        if (o->client_text != NULL && t->client.idling) {
            mip_time_t now = now_ms();
            if (!mip_time_before(now, t->client.idle_until)) {
                /* Writing outside a stack callback: the stack's clock must be
                 * current (the RTO is armed from it), so poll first. */
                t->client.idling = false;
                (void)mip_stack_poll(s, now);
                client_send(&t->client);
                delay = mip_stack_poll(s, now);
            }
        }
        if (o->client_text != NULL && t->client.done)
            break;            /* ended by a timer (retry limit, keepalive) */
        if (link->impaired) {
            uint32_t d2 = impair_run(&link->im, now_ms());
            if (d2 < delay)
                delay = d2;
        }
        if (o->client_text != NULL) {
            mip_time_t now = now_ms();
            uint32_t left = mip_time_before(now, client_deadline) ?
                            (uint32_t)(client_deadline - now) : 0u;
            if (t->client.idling) {
                uint32_t idle_left = mip_time_before(now, t->client.idle_until) ?
                                     (uint32_t)(t->client.idle_until - now) : 0u;
                if (idle_left < left)
                    left = idle_left;
            }
            if (delay == MIP_POLL_IDLE || delay > left)
                delay = left;
        }
        int timeout = delay == MIP_POLL_IDLE ? -1 : (delay > (uint32_t)INT_MAX ? INT_MAX : (int)delay);

        pfd[0].fd = tap.fd;
        pfd[0].events = POLLIN;
        pfd[0].revents = 0;
        pfd[1].fd = sfd;
        pfd[1].events = POLLIN;
        pfd[1].revents = 0;
        n = poll(pfd, 2, timeout);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
            exit_code = EXIT_RUNTIME;
            break;
        }
        if (pfd[0].revents & (POLLIN | POLLERR | POLLHUP | POLLNVAL)) {
            int k;

            for (k = 0; k < RX_BUDGET; k++) {
                ssize_t len = mip_tap_read(&tap, rxbuf, RX_BUF_SIZE);
                if (len == 0)
                    break;
                if (len < 0) {
                    fprintf(stderr, PROG ": reading %s: %s\n", tap.name, strerror((int)-len));
                    exit_code = EXIT_RUNTIME;
                    running = false;
                    break;
                }
                if (link->impaired)
                    impair_frame(&link->im, IMPAIR_RX, rxbuf, (size_t)len, now_ms());
                else
                    mip_stack_input(s, nif, rxbuf, (size_t)len, now_ms());
            }
        }
        if (pfd[1].revents & POLLIN) {
            struct signalfd_siginfo si;
            ssize_t r = read(sfd, &si, sizeof(si));
            if (r == (ssize_t)sizeof(si) && (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM))
                running = false;
        }
    }

    if (o->client_text != NULL) {
        struct host_client *hc = &t->client;
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
    if (o->stats_json != NULL) {
        rc = write_stats_json(o->stats_json, s, &echo, &discard, t, link, &tap);
        if (rc < 0) {
            fprintf(stderr, PROG ": --stats-json: cannot write '%s': %s\n", o->stats_json,
                    strerror(-rc));
            exit_code = EXIT_RUNTIME;
        }
    }
    mip_tap_close(&tap);
    close(sfd);
    return exit_code;
}
