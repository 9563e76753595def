/*
 * moteip-host: runs one moteip stack on a Linux TAP device.
 *
 *   moteip-host --tap NAME --addr 192.0.2.2/24 --addr fd00::2/64
 *               [--route PREFIX via GATEWAY]... [--stats-json FILE]
 *               [--mac MAC] [--forward]
 *
 * The command line is a contract (tests/interop/test_cli.py): a bad or
 * missing argument prints ONE line on stderr naming the argument and what
 * is wrong, and exits 2. The program runs until SIGINT or SIGTERM (taken
 * through a signalfd, no global flag), then writes the stack's counters to
 * --stats-json and exits 0. Runtime failures (the TAP cannot be opened or
 * disappears) exit 1.
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
#include "linux_tap.h"
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

struct host_opts {
    const char *tap;
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
            "                   [--mac MAC] [--forward]\n"
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
            "  --help               print this help and exit\n"
            "\n"
            "Exit status: 0 after SIGINT/SIGTERM, 1 on a runtime failure, 2 for a\n"
            "bad command line.\n");
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
        } else if (arg[0] == '-') {
            bad_arg(arg, "unknown option (see --help)");
        } else {
            bad_arg(arg, "unexpected argument (see --help)");
        }
    }
    if (o->tap == NULL)
        bad_arg("--tap", "missing (required): the TAP device to attach to");
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

static int write_stats_json(const char *path, const struct mip_stack *s,
                            const struct mip_udp_echo *echo,
                            const struct mip_udp_discard *discard,
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
    fprintf(f, "    \"udp_discard\": {\"datagrams\": %lu, \"bytes\": %lu}\n",
            (unsigned long)discard->datagrams, (unsigned long)discard->bytes);
    fprintf(f, "  },\n");
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

int main(int argc, char **argv)
{
    struct host_opts *o;
    struct mip_stack *s;
    struct mip_stack_config cfg;
    struct mip_udp_echo echo;
    struct mip_udp_discard discard;
    struct mip_tap tap;
    uint8_t entropy[32];
    uint8_t *rxbuf;
    uint8_t nif = 0;
    sigset_t sigs;
    int sfd, rc, exit_code = 0;
    char err[256], line[1024], text[MIP_ADDR_TEXT_MAX];
    size_t i, used;
    bool running = true;

    o = calloc(1, sizeof(*o));
    s = calloc(1, sizeof(*s));
    rxbuf = malloc(RX_BUF_SIZE);
    if (o == NULL || s == NULL || rxbuf == NULL)
        fail("out of memory");
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

    rc = (int)mip_netif_add_ethernet(s, o->mac, &mip_tap_driver, &tap, &nif);
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

    while (running) {
        struct pollfd pfd[2];
        uint32_t delay = mip_stack_poll(s, now_ms());
        int timeout = delay == MIP_POLL_IDLE ? -1 : (delay > (uint32_t)INT_MAX ? INT_MAX : (int)delay);
        int n;

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

    if (o->stats_json != NULL) {
        rc = write_stats_json(o->stats_json, s, &echo, &discard, &tap);
        if (rc < 0) {
            fprintf(stderr, PROG ": --stats-json: cannot write '%s': %s\n", o->stats_json,
                    strerror(-rc));
            exit_code = EXIT_RUNTIME;
        }
    }
    mip_tap_close(&tap);
    close(sfd);
    free(rxbuf);
    free(s);
    free(o);
    return exit_code;
}
