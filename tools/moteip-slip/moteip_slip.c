/*
 * tools/: host programs beside the stack, top floor. They may include
 * public headers (moteip-slip uses the SLIP codec, wire/slip.h); nothing
 * includes tools/.
 *
 * moteip-slip: a bridge between SLIP (RFC 1055) on a serial byte stream and
 * a Linux TUN device, so Linux talks IP to a board (real, or emulated by
 * QEMU or simavr) over its UART. Contiki's tunslip does the same job.
 *
 *   moteip-slip --serial SPEC [--tun NAME] [--mtu BYTES] [--baud N]
 *               [--retry-ms MS] [--once] [--stats-json PATH] [--quiet]
 *
 * SPEC, the serial side:
 *   pty[:LINK]            a new pseudo-terminal; its slave's path is printed
 *                         (and symlinked at LINK): QEMU -serial /dev/pts/N
 *   tty:PATH              a serial device, raw, at --baud (a board's USB UART)
 *   tcp:HOST:PORT         connect there: QEMU -serial tcp::PORT,server=on,wait=off
 *   tcp-listen:HOST:PORT  wait for the peer there: QEMU -serial tcp:HOST:PORT
 *   unix:PATH             connect: QEMU -serial unix:PATH,server=on,wait=off
 *   unix-listen:PATH      wait for the peer: QEMU -serial unix:PATH
 *   fd:N                  an inherited descriptor (a socketpair, a pipe pair)
 *
 * Frames from the serial side go to the TUN, one IP datagram per write;
 * datagrams from the TUN are SLIP-encoded to the serial side (END first and
 * last). Bad input is dropped and counted, never fatal: a frame over --mtu,
 * a bad escape, a frame that is not IPv4 or IPv6, one shorter than its IP
 * header (IPv4: 20 bytes and its IHL; IPv6: 40), a frame cut short when
 * the peer went away; datagrams that arrive from the TUN while no peer is
 * there, or while the serial side is not taking bytes (8 frames queued).
 * A peer that vanishes (EOF, reset, hangup) is waited for: connecting
 * kinds retry every --retry-ms, listening kinds accept the next peer (a new
 * peer also replaces a connected one), a pty keeps its slave open itself so
 * QEMU may come and go, a tty is reopened. fd:N and --once exit 0 instead.
 *
 * The command line is a contract (tests/interop/test_slip_bridge.py): a bad
 * or missing argument prints ONE line on stderr naming the argument, and
 * exits 2. Runtime failures (no TUN, a serial device that cannot be opened
 * at start) exit 1. SIGINT/SIGTERM/SIGHUP end the bridge (exit 0) after writing
 * --stats-json; SIGUSR1 writes it without stopping. Once the TUN is up the
 * bridge prints one line on stdout:
 *     ready tun=NAME mtu=N serial=SPEC [pty=/dev/pts/N]
 * Addresses and routes on the TUN are the caller's (ip addr add ...).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "moteip/wire/slip.h"

#define PROG "moteip-slip"
#define EXIT_USAGE 2
#define EXIT_RUNTIME 1
#define OUT_FRAMES 8            /* encoded frames the serial side may lag behind */
#define SERIAL_READ 4096

/* --- options: one table gives parsing, ranges, defaults and --help ------- */

struct opts {
    const char *serial;
    const char *tun;
    const char *stats_json;
    unsigned long mtu;
    unsigned long baud;
    unsigned long retry_ms;
    bool once;
    bool quiet;
    bool help;
};

enum opt_kind { OPT_STR, OPT_UINT, OPT_FLAG };

struct opt_def {
    const char *name;
    char short_name;
    enum opt_kind kind;
    size_t field;               /* offsetof(struct opts, ...) */
    unsigned long min, max;     /* OPT_UINT */
    const char *def;            /* default, as text (NULL: none) */
    const char *arg;
    const char *help;
};

#define F(x) offsetof(struct opts, x)
static const struct opt_def opt_table[] = {
    { "serial", 's', OPT_STR, F(serial), 0, 0, NULL, "SPEC",
      "serial side (required): pty[:LINK] tty:PATH tcp:HOST:PORT tcp-listen:HOST:PORT "
      "unix:PATH unix-listen:PATH fd:N" },
    { "tun", 't', OPT_STR, F(tun), 0, 0, "slip0", "NAME",
      "TUN device to create, or to attach to if it exists" },
    { "mtu", 'm', OPT_UINT, F(mtu), 68, 65535, "1280", "BYTES",
      "largest datagram either way (set on the TUN); longer SLIP frames are dropped" },
    { "baud", 0, OPT_UINT, F(baud), 1200, 4000000, "115200", "N", "line speed of tty:PATH" },
    { "retry-ms", 0, OPT_UINT, F(retry_ms), 10, 60000, "200", "MS",
      "wait between attempts to reach a serial peer that is not there" },
    { "once", 0, OPT_FLAG, F(once), 0, 0, NULL, NULL,
      "exit 0 when the serial peer goes away, instead of waiting for it" },
    { "stats-json", 0, OPT_STR, F(stats_json), 0, 0, NULL, "PATH",
      "write the counters here at exit and on SIGUSR1" },
    { "quiet", 'q', OPT_FLAG, F(quiet), 0, 0, NULL, NULL, "no progress lines on stderr" },
    { "help", 'h', OPT_FLAG, F(help), 0, 0, NULL, NULL, "this text" },
};
#undef F
#define N_OPTS (sizeof opt_table / sizeof opt_table[0])

/* Line speeds termios knows (--baud must be one). */
static const struct { unsigned long baud; speed_t code; } speeds[] = {
    { 1200, B1200 }, { 2400, B2400 }, { 4800, B4800 }, { 9600, B9600 },
    { 19200, B19200 }, { 38400, B38400 }, { 57600, B57600 }, { 115200, B115200 },
    { 230400, B230400 }, { 460800, B460800 }, { 921600, B921600 },
    { 1000000, B1000000 }, { 2000000, B2000000 }, { 4000000, B4000000 },
};

/* One line on stderr: "moteip-slip: " message tail. */
static void vline(const char *tail, const char *fmt, va_list ap)
{
    fputs(PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(tail, stderr);
}

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(" (see --help)\n", fmt, ap);
    va_end(ap);
    exit(EXIT_USAGE);
}

static void print_help(void)
{
    size_t i;
    printf("usage: " PROG " --serial SPEC [options]\n"
           "Bridges SLIP (RFC 1055) on a serial byte stream to a TUN device.\n\n");
    for (i = 0; i < N_OPTS; i++) {
        const struct opt_def *d = &opt_table[i];
        char left[48];
        if (d->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s%s", d->short_name, d->name,
                     d->arg ? " " : "", d->arg ? d->arg : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", d->name, d->arg ? " " : "",
                     d->arg ? d->arg : "");
        printf("  %-26s %s", left, d->help);
        if (d->kind == OPT_UINT)
            printf(" (%lu..%lu", d->min, d->max);
        if (d->def != NULL)
            printf("%sdefault %s", d->kind == OPT_UINT ? ", " : " (", d->def);
        if (d->kind == OPT_UINT || d->def != NULL)
            printf(")");
        printf("\n");
    }
    printf("\nExit status: 0 on SIGINT/SIGTERM/SIGHUP (or a peer gone with --once, fd:N), "
           "1 on a runtime failure, 2 on a bad argument.\n");
}

static void set_opt(struct opts *o, const struct opt_def *d, const char *v)
{
    char *p = (char *)o + d->field;
    if (d->kind == OPT_FLAG) {
        *(bool *)p = true;
    } else if (d->kind == OPT_STR) {
        if (*v == '\0')
            usage_error("--%s: empty value", d->name);
        *(const char **)p = v;
    } else {
        char *end;
        unsigned long x;
        errno = 0;
        x = strtoul(v, &end, 10);
        if (*v < '0' || *v > '9' || *end != '\0' || errno != 0)
            usage_error("--%s: '%s' is not a whole number", d->name, v);
        if (x < d->min || x > d->max)
            usage_error("--%s: %lu is out of range %lu..%lu", d->name, x, d->min, d->max);
        *(unsigned long *)p = x;
    }
}

static const struct opt_def *find_opt(const char *name, size_t len, char short_name)
{
    size_t i;
    for (i = 0; i < N_OPTS; i++) {
        const struct opt_def *d = &opt_table[i];
        if (short_name != 0 ? d->short_name == short_name
                            : strlen(d->name) == len && strncmp(d->name, name, len) == 0)
            return d;
    }
    return NULL;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
    bool seen[N_OPTS] = { false };
    size_t i;
    int a;

    memset(o, 0, sizeof *o);
    for (i = 0; i < N_OPTS; i++)
        if (opt_table[i].def != NULL)
            set_opt(o, &opt_table[i], opt_table[i].def);
    for (a = 1; a < argc; a++) {
        const char *arg = argv[a], *val = NULL, *eq;
        const struct opt_def *d;
        if (arg[0] == '-' && arg[1] == '-' && arg[2] != '\0') {
            eq = strchr(arg + 2, '=');
            d = find_opt(arg + 2, eq ? (size_t)(eq - arg - 2) : strlen(arg + 2), 0);
            if (eq != NULL)
                val = eq + 1;
        } else if (arg[0] == '-' && arg[1] != '\0' && arg[2] == '\0') {
            d = find_opt(NULL, 0, arg[1]);
        } else {
            usage_error("unexpected argument '%s'", arg);
        }
        if (d == NULL)
            usage_error("unknown option '%s'", arg);
        if (d->kind == OPT_FLAG) {
            if (val != NULL)
                usage_error("--%s takes no value", d->name);
        } else if (val == NULL) {
            if (a + 1 >= argc)
                usage_error("--%s needs a value (%s)", d->name, d->arg);
            val = argv[++a];
        }
        if (seen[d - opt_table] && d->kind != OPT_FLAG)
            usage_error("--%s given twice", d->name);
        seen[d - opt_table] = true;
        set_opt(o, d, val);
    }
    if (o->help)
        return;
    if (o->serial == NULL)
        usage_error("--serial is required");
    if (o->stats_json != NULL) {
        /* its directory must exist now, not only when the bridge stops */
        char dir[PATH_MAX];
        const char *slash = strrchr(o->stats_json, '/');
        struct stat sb;
        size_t n = slash == NULL ? 1 : slash == o->stats_json ? 1 : (size_t)(slash - o->stats_json);
        if (n >= sizeof dir)
            usage_error("--stats-json: '%s' is too long", o->stats_json);
        memcpy(dir, slash == NULL ? "." : o->stats_json, n);
        dir[n] = '\0';
        if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
            usage_error("--stats-json: no directory '%s' for '%s'", dir, o->stats_json);
    }
    for (i = 0; i < sizeof speeds / sizeof speeds[0] && speeds[i].baud != o->baud; i++)
        ;
    if (i == sizeof speeds / sizeof speeds[0])
        usage_error("--baud: %lu is not a standard line speed (9600, 115200, 1000000, ...)",
                    o->baud);
    if (strlen(o->tun) >= IFNAMSIZ)
        usage_error("--tun: '%s' is longer than %d characters", o->tun, IFNAMSIZ - 1);
}

/* --- the serial side -------------------------------------------------------- */

enum serial_kind { S_PTY, S_TTY, S_TCP, S_TCP_LISTEN, S_UNIX, S_UNIX_LISTEN, S_FD };

struct serial_spec {
    enum serial_kind kind;
    const char *path;                /* tty, unix: the path; pty: the link or NULL */
    struct sockaddr_storage addr;    /* tcp, unix */
    socklen_t addr_len;
    int fd;                          /* fd:N */
};

static void parse_serial(const char *spec, struct serial_spec *s)
{
    static const struct { const char *prefix; enum serial_kind kind; } kinds[] = {
        { "tcp-listen:", S_TCP_LISTEN }, { "unix-listen:", S_UNIX_LISTEN },
        { "tcp:", S_TCP }, { "unix:", S_UNIX }, { "tty:", S_TTY }, { "fd:", S_FD },
        { "pty:", S_PTY },
    };
    const char *rest = NULL;
    size_t i;

    memset(s, 0, sizeof *s);
    s->fd = -1;
    if (strcmp(spec, "pty") == 0) {
        s->kind = S_PTY;
        return;
    }
    for (i = 0; i < sizeof kinds / sizeof kinds[0] && rest == NULL; i++)
        if (strncmp(spec, kinds[i].prefix, strlen(kinds[i].prefix)) == 0) {
            s->kind = kinds[i].kind;
            rest = spec + strlen(kinds[i].prefix);
        }
    if (rest == NULL)
        usage_error("--serial: '%s' is not pty, tty:, tcp:, tcp-listen:, unix:, "
                    "unix-listen: or fd:", spec);
    if (*rest == '\0')
        usage_error("--serial: '%s' lacks what follows the colon", spec);
    if (s->kind == S_TCP || s->kind == S_TCP_LISTEN) {
        const char *colon = strrchr(rest, ':');
        char host[256];
        struct addrinfo hints, *res = NULL;
        size_t hl;
        int rc;
        if (colon == NULL || colon[1] == '\0')
            usage_error("--serial: '%s' needs HOST:PORT", spec);
        hl = (size_t)(colon - rest);
        if (hl >= sizeof host)
            usage_error("--serial: host in '%s' is too long", spec);
        memcpy(host, rest, hl);
        host[hl] = '\0';
        if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
            memmove(host, host + 1, hl - 2);
            host[hl - 2] = '\0';
        }
        memset(&hints, 0, sizeof hints);
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_NUMERICSERV;
        rc = getaddrinfo(host, colon + 1, &hints, &res);
        if (rc != 0 || res == NULL)
            usage_error("--serial: cannot resolve '%s': %s", spec, gai_strerror(rc));
        memcpy(&s->addr, res->ai_addr, res->ai_addrlen);
        s->addr_len = res->ai_addrlen;
        freeaddrinfo(res);
    } else if (s->kind == S_UNIX || s->kind == S_UNIX_LISTEN) {
        struct sockaddr_un *un = (struct sockaddr_un *)&s->addr;
        if (strlen(rest) >= sizeof un->sun_path)
            usage_error("--serial: socket path in '%s' is longer than %zu bytes", spec,
                        sizeof un->sun_path - 1);
        un->sun_family = AF_UNIX;
        strcpy(un->sun_path, rest);
        s->addr_len = (socklen_t)sizeof *un;
        s->path = rest;
    } else if (s->kind == S_FD) {
        char *end;
        long n;
        errno = 0;
        n = strtol(rest, &end, 10);
        if (*end != '\0' || errno != 0 || n < 0 || n > INT_MAX || fcntl((int)n, F_GETFD) < 0)
            usage_error("--serial: '%s' names no open file descriptor", spec);
        s->fd = (int)n;
    } else {
        s->path = rest;                  /* tty:PATH, pty:LINK */
    }
}

/* --- counters ------------------------------------------------------------- */

#define BRIDGE_STATS(X)                                                       \
    X(serial_rx_bytes)      X(serial_tx_bytes)                                \
    X(frames_to_tun)        /* SLIP frames written to the TUN */              \
    X(frames_from_tun)      /* datagrams queued for the serial side */        \
    X(peer_connects)        X(peer_losses)                                    \
    X(drop_too_big)         /* a SLIP frame over the MTU */                   \
    X(drop_bad_escape)      /* ESC followed by other than ESC_END/ESC_ESC */  \
    X(drop_not_ip)          /* a frame that is not IPv4 or IPv6 */            \
    X(drop_ip_runt)         /* a frame shorter than its IP header */          \
    X(drop_cut_short)       /* a frame unfinished when its peer went away */  \
    X(drop_tun_write)       /* the TUN refused a frame */                     \
    X(drop_tun_too_big)     /* a TUN datagram over the MTU */                 \
    X(drop_no_peer)         /* a TUN datagram while no serial peer was there */ \
    X(drop_serial_busy)     /* a TUN datagram while 8 frames waited already */ \
    X(drop_tx_unsent)       /* frames queued for a peer that went away */

struct bridge_stats {
#define STAT_FIELD(n) uint64_t n;
    BRIDGE_STATS(STAT_FIELD)
#undef STAT_FIELD
};

static int write_stats(const char *path, const struct bridge_stats *st)
{
    char tmp[PATH_MAX];
    FILE *f;
    const char *sep = "";
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return -1;
    f = fopen(tmp, "w");
    if (f == NULL)
        return -1;
    fputc('{', f);
#define STAT_JSON(n) fprintf(f, "%s\"" #n "\": %llu", sep, (unsigned long long)st->n), sep = ", ";
    BRIDGE_STATS(STAT_JSON)
#undef STAT_JSON
    fputs("}\n", f);
    if (fclose(f) != 0)
        return -1;
    return rename(tmp, path);
}

/* --- the bridge ------------------------------------------------------------- */

struct bridge {
    const struct opts *o;
    struct serial_spec spec;
    int tun;
    int listen_fd;          /* listening kinds */
    int fd;                 /* the serial peer; -1 while there is none */
    int pty_slave;          /* held open so the pty never hangs up */
    char pty_path[64];
    uint64_t retry_at_ms;   /* connecting kinds: next attempt */
    struct mip_slip_dec dec;
    enum mip_slip_event last_ev; /* of the latest byte decoded */
    uint8_t *frame;         /* the decoder's buffer: mtu bytes */
    uint8_t *out;           /* encoded bytes waiting for the serial side */
    size_t out_len, out_off, out_cap;
    unsigned out_frames;    /* frames in out (the last may be partly sent) */
    size_t out_ends[OUT_FRAMES]; /* end offset of each queued frame */
    struct bridge_stats st;
};

static void note(const struct bridge *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(const struct bridge *b, const char *fmt, ...)
{
    va_list ap;
    if (b->o->quiet)
        return;
    va_start(ap, fmt);
    vline("\n", fmt, ap);
    va_end(ap);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline("\n", fmt, ap);
    va_end(ap);
    exit(EXIT_RUNTIME);
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int set_raw(int fd, unsigned long baud)
{
    struct termios t;
    size_t i;
    if (tcgetattr(fd, &t) != 0)
        return -1;
    cfmakeraw(&t);
    for (i = 0; baud != 0 && i < sizeof speeds / sizeof speeds[0]; i++)
        if (speeds[i].baud == baud) {
            cfsetispeed(&t, speeds[i].code);
            cfsetospeed(&t, speeds[i].code);
        }
    t.c_cflag |= CLOCAL | CREAD;
    return tcsetattr(fd, TCSANOW, &t);
}

static int tun_open(const char *name, unsigned long mtu)
{
    struct ifreq ifr;
    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC), s;
    if (fd < 0)
        die("cannot open /dev/net/tun: %s", strerror(errno));
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
    if (ioctl(fd, TUNSETIFF, &ifr) != 0)
        die("--tun %s: TUNSETIFF: %s", name, strerror(errno));
    s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        die("socket: %s", strerror(errno));
    ifr.ifr_mtu = (int)mtu;
    if (ioctl(s, SIOCSIFMTU, &ifr) != 0)
        die("--tun %s: cannot set MTU %lu: %s", name, mtu, strerror(errno));
    if (ioctl(s, SIOCGIFFLAGS, &ifr) != 0)
        die("--tun %s: SIOCGIFFLAGS: %s", name, strerror(errno));
    ifr.ifr_flags |= IFF_UP;
    if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0)
        die("--tun %s: cannot bring it up: %s", name, strerror(errno));
    close(s);
    set_nonblock(fd);
    return fd;
}

static void peer_attach(struct bridge *b, int fd)
{
    set_nonblock(fd);
    b->fd = fd;
    mip_slip_dec_init(&b->dec, b->frame, (uint16_t)b->o->mtu);
    b->st.peer_connects++;
    note(b, "serial peer connected");
}

/* The peer went away: its half-received frame and the bytes queued for it
 * are lost and counted. */
static void peer_lost(struct bridge *b, const char *why)
{
    if (b->last_ev == MIP_SLIP_MORE && b->dec.len > 0)
        b->st.drop_cut_short++;
    b->last_ev = MIP_SLIP_MORE;
    mip_slip_dec_init(&b->dec, b->frame, (uint16_t)b->o->mtu);
    b->st.drop_tx_unsent += b->out_frames;
    b->out_len = b->out_off = 0;
    b->out_frames = 0;
    b->st.peer_losses++;
    note(b, "serial peer gone (%s)%s", why,
         b->o->once || b->spec.kind == S_FD ? "" : "; waiting for it");
    if (b->fd >= 0 && b->spec.kind != S_PTY)
        close(b->fd);
    if (b->spec.kind != S_PTY)
        b->fd = -1;
    b->retry_at_ms = now_ms() + b->o->retry_ms;
}

/* Connecting kinds and tty: one attempt; listening kinds: the socket. */
static void serial_try(struct bridge *b)
{
    const struct serial_spec *s = &b->spec;
    int fd;

    if (s->kind == S_TCP || s->kind == S_UNIX) {
        fd = socket(s->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            die("socket: %s", strerror(errno));
        if (connect(fd, (const struct sockaddr *)&s->addr, s->addr_len) == 0) {
            peer_attach(b, fd);
            return;
        }
        close(fd);
        b->retry_at_ms = now_ms() + b->o->retry_ms;
    } else if (s->kind == S_TTY) {
        fd = open(s->path, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (fd >= 0 && set_raw(fd, b->o->baud) == 0) {
            peer_attach(b, fd);
            return;
        }
        if (fd >= 0)
            close(fd);
        b->retry_at_ms = now_ms() + b->o->retry_ms;
    }
}

static void serial_open(struct bridge *b)
{
    struct serial_spec *s = &b->spec;
    b->fd = b->listen_fd = b->pty_slave = -1;
    switch (s->kind) {
    case S_PTY: {
        int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        const char *name;
        if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0 || (name = ptsname(m)) == NULL)
            die("cannot create a pty: %s", strerror(errno));
        snprintf(b->pty_path, sizeof b->pty_path, "%s", name);
        b->pty_slave = open(b->pty_path, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (b->pty_slave < 0 || set_raw(b->pty_slave, 0) != 0 || set_raw(m, 0) != 0)
            die("cannot set up %s: %s", b->pty_path, strerror(errno));
        if (s->path != NULL) {
            (void)unlink(s->path);
            if (symlink(b->pty_path, s->path) != 0)
                die("--serial: cannot link %s to %s: %s", s->path, b->pty_path,
                    strerror(errno));
        }
        peer_attach(b, m);
        break;
    }
    case S_TTY: {
        int fd = open(s->path, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
            die("--serial tty:%s: %s", s->path, strerror(errno));
        if (set_raw(fd, b->o->baud) != 0)
            die("--serial tty:%s: not a terminal: %s", s->path, strerror(errno));
        peer_attach(b, fd);
        break;
    }
    case S_FD:
        peer_attach(b, s->fd);
        break;
    case S_TCP_LISTEN:
    case S_UNIX_LISTEN: {
        int one = 1;
        b->listen_fd = socket(s->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (b->listen_fd < 0)
            die("socket: %s", strerror(errno));
        (void)setsockopt(b->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (s->kind == S_UNIX_LISTEN)
            (void)unlink(s->path);
        if (bind(b->listen_fd, (const struct sockaddr *)&s->addr, s->addr_len) != 0 ||
            listen(b->listen_fd, 2) != 0)
            die("--serial %s: cannot listen: %s", b->o->serial, strerror(errno));
        set_nonblock(b->listen_fd);
        break;
    }
    case S_TCP:
    case S_UNIX:
        serial_try(b);
        break;
    }
}

static void serial_accept(struct bridge *b)
{
    int fd = accept4(b->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    if (b->fd >= 0)
        peer_lost(b, "replaced by a new peer");
    peer_attach(b, fd);
}

/* The IP header of frame f (len >= 1 bytes, version 4 or 6) fits in it:
 * IPv4 20 bytes and IHL words of at least 5, IPv6 40. The kernel would drop
 * a runt too, but only after the bridge counted it as written. */
static bool ip_header_fits(const uint8_t *f, size_t len)
{
    size_t ihl = (size_t)(f[0] & 0x0Fu) * 4u;

    if (f[0] >> 4 == 4)
        return len >= 20u && ihl >= 20u && ihl <= len;
    return len >= 40u;
}

/* Bytes from the serial side: decode, and write each IP frame to the TUN. */
static void serial_input(struct bridge *b)
{
    uint8_t buf[SERIAL_READ];
    ssize_t n = read(b->fd, buf, sizeof buf);
    size_t pos = 0;

    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        if (b->spec.kind == S_PTY)
            return;   /* never: we hold the slave open */
        peer_lost(b, n == 0 ? "end of stream" : strerror(errno));
        return;
    }
    if (n < 0)
        return;
    b->st.serial_rx_bytes += (uint64_t)n;
    while (pos < (size_t)n) {
        enum mip_slip_event ev;
        pos += mip_slip_decode(&b->dec, buf + pos, (size_t)n - pos, &ev);
        b->last_ev = ev;
        if (ev == MIP_SLIP_TOO_BIG) {
            b->st.drop_too_big++;
        } else if (ev == MIP_SLIP_BAD_ESCAPE) {
            b->st.drop_bad_escape++;
        } else if (ev == MIP_SLIP_FRAME) {
            uint8_t v = b->dec.buf[0] >> 4;
            if (v != 4 && v != 6)
                b->st.drop_not_ip++;
            else if (!ip_header_fits(b->dec.buf, b->dec.len))
                b->st.drop_ip_runt++;
            else if (write(b->tun, b->dec.buf, b->dec.len) != (ssize_t)b->dec.len)
                b->st.drop_tun_write++;
            else
                b->st.frames_to_tun++;
        }
    }
}

static mip_status out_write(void *ctx, const uint8_t *bytes, size_t len)
{
    struct bridge *b = ctx;
    memcpy(b->out + b->out_len, bytes, len);   /* room checked by the caller */
    b->out_len += len;
    return MIP_OK;
}

/* Writes what the serial side takes now; drops finished frames' records. */
static void serial_flush(struct bridge *b)
{
    while (b->fd >= 0 && b->out_off < b->out_len) {
        ssize_t n = write(b->fd, b->out + b->out_off, b->out_len - b->out_off);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                return;
            peer_lost(b, strerror(errno));
            return;
        }
        b->out_off += (size_t)n;
        b->st.serial_tx_bytes += (uint64_t)n;
        while (b->out_frames > 0 && b->out_ends[0] <= b->out_off) {
            memmove(b->out_ends, b->out_ends + 1, (b->out_frames - 1) * sizeof b->out_ends[0]);
            b->out_frames--;
        }
    }
    if (b->out_off == b->out_len) {
        b->out_off = b->out_len = 0;
        b->out_frames = 0;
    }
}

/* One datagram from the TUN. */
static void tun_input(struct bridge *b)
{
    uint8_t buf[65536];
    ssize_t n = read(b->tun, buf, sizeof buf);
    size_t need;

    if (n <= 0)
        return;
    if ((size_t)n > b->o->mtu) {
        b->st.drop_tun_too_big++;
        return;
    }
    if (b->fd < 0) {
        b->st.drop_no_peer++;
        return;
    }
    need = mip_slip_encoded_len(buf, (size_t)n);
    if (b->out_frames == OUT_FRAMES || b->out_len + need > b->out_cap) {
        b->st.drop_serial_busy++;
        return;
    }
    (void)mip_slip_encode(buf, (size_t)n, out_write, b);
    b->out_ends[b->out_frames++] = b->out_len;
    b->st.frames_from_tun++;
    serial_flush(b);
}

static int signals_fd(void)
{
    sigset_t set;
    int fd;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGUSR1);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
        die("sigprocmask: %s", strerror(errno));
    fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (fd < 0)
        die("signalfd: %s", strerror(errno));
    signal(SIGPIPE, SIG_IGN);
    return fd;
}

static void save_stats(const struct bridge *b)
{
    if (b->o->stats_json != NULL && write_stats(b->o->stats_json, &b->st) != 0)
        fprintf(stderr, PROG ": --stats-json: cannot write '%s': %s\n", b->o->stats_json,
                strerror(errno));
}

int main(int argc, char **argv)
{
    static struct bridge br;
    struct bridge *b = &br;
    struct opts o;
    int sfd;

    parse_args(argc, argv, &o);
    if (o.help) {
        print_help();
        return 0;
    }
    b->o = &o;
    parse_serial(o.serial, &b->spec);
    b->frame = malloc(o.mtu);
    b->out_cap = OUT_FRAMES * (2 * o.mtu + 2);
    b->out = malloc(b->out_cap);
    if (b->frame == NULL || b->out == NULL)
        die("out of memory");
    mip_slip_dec_init(&b->dec, b->frame, (uint16_t)o.mtu);
    sfd = signals_fd();
    b->tun = tun_open(o.tun, o.mtu);
    serial_open(b);
    printf("ready tun=%s mtu=%lu serial=%s%s%s\n", o.tun, o.mtu, o.serial,
           b->pty_path[0] ? " pty=" : "", b->pty_path);
    fflush(stdout);

    for (;;) {
        struct pollfd p[4];
        int np = 0, timeout = -1, i_tun, i_sig, i_ser = -1, i_lis = -1;
        uint64_t t = now_ms();

        if (b->fd < 0 && (b->spec.kind == S_TCP || b->spec.kind == S_UNIX ||
                          b->spec.kind == S_TTY)) {
            if (t >= b->retry_at_ms)
                serial_try(b);
            if (b->fd < 0)
                timeout = (int)(b->retry_at_ms > t ? b->retry_at_ms - t : 0);
        }
        i_sig = np;
        p[np++] = (struct pollfd){ sfd, POLLIN, 0 };
        i_tun = np;
        p[np++] = (struct pollfd){ b->tun, POLLIN, 0 };
        if (b->fd >= 0) {
            i_ser = np;
            p[np++] = (struct pollfd){ b->fd, (short)(POLLIN | (b->out_len > b->out_off ?
                                                                 POLLOUT : 0)), 0 };
        }
        if (b->listen_fd >= 0) {
            i_lis = np;
            p[np++] = (struct pollfd){ b->listen_fd, POLLIN, 0 };
        }
        if (poll(p, (nfds_t)np, timeout) < 0) {
            if (errno == EINTR)
                continue;
            die("poll: %s", strerror(errno));
        }
        if (p[i_sig].revents & POLLIN) {
            struct signalfd_siginfo si;
            if (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
                save_stats(b);
                if (si.ssi_signo != SIGUSR1)
                    break;
            }
        }
        if (i_ser >= 0 && b->fd >= 0) {
            if (p[i_ser].revents & (POLLIN | POLLHUP | POLLERR))
                serial_input(b);
            if (b->fd >= 0 && (p[i_ser].revents & POLLOUT))
                serial_flush(b);
        }
        if (i_lis >= 0 && (p[i_lis].revents & POLLIN))
            serial_accept(b);
        if (p[i_tun].revents & POLLIN)
            tun_input(b);
        /* a read or a write may have found the peer gone */
        if (b->fd < 0 && b->st.peer_losses > 0 && (o.once || b->spec.kind == S_FD)) {
            save_stats(b);
            break;
        }
    }
    if (b->spec.kind == S_PTY && b->spec.path != NULL)
        (void)unlink(b->spec.path);
    if (b->spec.kind == S_UNIX_LISTEN)
        (void)unlink(b->spec.path);
    return 0;
}
