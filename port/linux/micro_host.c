/*
 * moteip-micro / moteip-micro6: the micro profile (include/moteip/micro.h)
 * on a Linux TUN device, the raw-IP link a SLIP line also gives. The IP
 * version is the build's (moteip-micro: IPv4, moteip-micro6: IPv6;
 * moteip-micro-reass: IPv4 with MIP_MICRO_CONF_REASS and a 4,096-byte
 * buffer, CMakeLists.txt).
 *
 *   moteip-micro --tun NAME --addr ADDR [--echo P] [--discard P] [--http P]
 *                [--udp-echo P] [--stats-json FILE]
 *
 * Services, written in uIP's style (nothing is buffered for retransmission
 * by the stack: each service produces its bytes again on EV_REXMIT):
 *   echo     RFC 862 (bytes held until echoed; a full buffer stops the window)
 *   discard  RFC 863
 *   http     GET /bytes/N: N bytes of the pattern of apps/http_server.h,
 *            byte i = (7 i + (i >> 8) + (i >> 16)) & 0xFF, then close
 *   udp-echo RFC 862 over UDP
 * Prints "moteip-micro ready" on stdout once the device is up; SIGINT or
 * SIGTERM ends it, writing the counters to --stats-json.
 *
 * This file is the port: the clock (CLOCK_MONOTONIC, read only here), the
 * entropy (getrandom) and the driver. The stack reads neither.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "moteip/micro.h"

#define ECHO_BUF 8192u

enum { SVC_NONE, SVC_ECHO, SVC_DISCARD, SVC_HTTP };

/* Per connection: what the service has in flight (to produce again) and
 * what it still has to send. */
struct app {
    uint8_t svc;
    uint16_t olen;              /* bytes in flight */
    /* echo: bytes received, not yet acknowledged by the peer */
    uint8_t ebuf[ECHO_BUF];
    uint32_t elen;
    /* http: the request, the response's header and body */
    char req[512];
    uint16_t rlen;
    char hdr[160];
    uint32_t hlen, total, off; /* header + body bytes, acknowledged so far */
    int responding;
};

struct host {
    struct mip_micro m;
    struct app app[MIP_MICRO_CONNS];
    uint16_t echo_port, discard_port, http_port, udp_port;
    uint64_t discarded;
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static uint8_t pattern(uint32_t i)
{
    return (uint8_t)(7u * i + (i >> 8) + (i >> 16));
}

/* Byte `pos` of the HTTP response stream: header, then body. */
static void http_fill(const struct app *a, uint8_t *dst, uint32_t pos, uint16_t n)
{
    for (uint16_t k = 0; k < n; k++, pos++)
        dst[k] = pos < a->hlen ? (uint8_t)a->hdr[pos] : pattern(pos - a->hlen);
}

static void http_request(struct app *a)
{
    unsigned long n = 0;
    char *end;
    int ok = strncmp(a->req, "GET /bytes/", 11) == 0;

    if (ok) {
        n = strtoul(a->req + 11, &end, 10);
        ok = end != a->req + 11 && (*end == ' ' || *end == '?') && n <= 100ul * 1024 * 1024;
    }
    if (ok)
        a->hlen = (uint32_t)snprintf(a->hdr, sizeof a->hdr,
                                     "HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\n"
                                     "Content-Length: %lu\r\nConnection: close\r\n\r\n", n);
    else
        a->hlen = (uint32_t)snprintf(a->hdr, sizeof a->hdr,
                                     "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n"
                                     "Connection: close\r\n\r\n");
    a->total = a->hlen + (ok ? (uint32_t)n : 0);
    a->off = 0;
    a->responding = 1;
}

static void tcp_app(struct mip_micro *m, struct mip_micro_conn *c, uint8_t ev)
{
    struct host *h = m->ctx;
    struct app *a = &h->app[c - m->conn];
    uint16_t n;

    if (ev & MIP_MICRO_EV_CONNECTED) {
        memset(a, 0, sizeof *a);
        a->svc = c->lport == h->echo_port ? SVC_ECHO : c->lport == h->discard_port ? SVC_DISCARD
               : c->lport == h->http_port ? SVC_HTTP : SVC_NONE;
    }
    if (ev & (MIP_MICRO_EV_CLOSED | MIP_MICRO_EV_ABORTED | MIP_MICRO_EV_TIMEDOUT)) {
        if (ev & MIP_MICRO_EV_NEWDATA && a->svc == SVC_DISCARD)
            h->discarded += m->dlen;
        a->svc = SVC_NONE;
        return;
    }
    if (ev & MIP_MICRO_EV_ACKED) {
        if (a->svc == SVC_ECHO) {
            memmove(a->ebuf, a->ebuf + a->olen, a->elen - a->olen);
            a->elen -= a->olen;
        } else if (a->svc == SVC_HTTP) {
            a->off += a->olen;
        }
        a->olen = 0;
    }
    if (ev & MIP_MICRO_EV_NEWDATA) {
        if (a->svc == SVC_DISCARD) {
            h->discarded += m->dlen;
        } else if (a->svc == SVC_ECHO) {
            n = m->dlen;                /* the window keeps it within ebuf */
            if (n > ECHO_BUF - a->elen)
                n = (uint16_t)(ECHO_BUF - a->elen);
            memcpy(a->ebuf + a->elen, m->appdata, n);
            a->elen += n;
        } else if (a->svc == SVC_HTTP && !a->responding) {
            n = m->dlen;
            if (n > sizeof a->req - 1 - a->rlen)
                n = (uint16_t)(sizeof a->req - 1 - a->rlen);
            memcpy(a->req + a->rlen, m->appdata, n);
            a->rlen += n;
            a->req[a->rlen] = 0;
            if (strstr(a->req, "\r\n\r\n") || a->rlen == sizeof a->req - 1)
                http_request(a);
        }
    }
    if (a->svc == SVC_ECHO) {
        /* Room for another full segment, or the window closes. */
        if (ECHO_BUF - a->elen < MIP_MICRO_MSS)
            mip_micro_stop(c);
        else
            mip_micro_restart(c);
    }
    /* Send: the same bytes again on EV_REXMIT, else the next ones. */
    if (!(ev & MIP_MICRO_EV_REXMIT)) {
        if (c->len)
            return;
        n = mip_micro_mss(c);
        if (a->svc == SVC_ECHO)
            a->olen = (uint16_t)(a->elen < n ? a->elen : n);
        else if (a->svc == SVC_HTTP && a->responding)
            a->olen = (uint16_t)(a->total - a->off < n ? a->total - a->off : n);
        else
            a->olen = 0;
    }
    if (a->olen) {
        if (a->svc == SVC_ECHO)
            memcpy(mip_micro_sdata(m), a->ebuf, a->olen);
        else
            http_fill(a, mip_micro_sdata(m), a->off, a->olen);
        mip_micro_send(m, a->olen);
    } else if (a->svc == SVC_HTTP && a->responding && a->off == a->total) {
        mip_micro_close(m);
    }
}

static void udp_app(struct mip_micro *m, uint16_t lport)
{
    (void)lport;
    memmove(mip_micro_udp_sdata(m), m->appdata, m->dlen);
    mip_micro_send(m, m->dlen);
}

static int tun_open(const char *name)
{
    struct ifreq ifr;
    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

    if (fd < 0)
        return -1;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static uint64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static const char stat_names[][24] = {
#define X(n) #n,
    MIP_MICRO_STATS(X)
#undef X
};

static int write_stats(const struct host *h, const char *path)
{
    FILE *f = fopen(path, "w");

    if (!f)
        return -1;
    fprintf(f, "{\"counters\": {");
    for (unsigned i = 0; i < MIP_MICRO_STAT_COUNT; i++)
        fprintf(f, "%s\"%s\": %u", i ? ", " : "", stat_names[i], h->m.stat[i]);
    fprintf(f, "}, \"discarded\": %llu}\n", (unsigned long long)h->discarded);
    return fclose(f);
}

static void send_out(int fd, const struct host *h, uint16_t n)
{
    if (n && write(fd, h->m.buf, n) < 0 && errno != EAGAIN)
        perror("moteip-micro: write");
}

static int usage(void)
{
    fprintf(stderr, "usage: moteip-micro --tun NAME --addr ADDR [--echo P] [--discard P] "
                    "[--http P] [--udp-echo P] [--stats-json FILE]\n");
    return 2;
}

int main(int argc, char **argv)
{
    static struct host h;
    const char *tun = NULL, *addr = NULL, *stats = NULL;
    uint8_t ip[MIP_MICRO_ADDR_LEN], seed[8];
    uint64_t next;
    int fd;

    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return usage();
        if (!strcmp(argv[i], "--tun"))
            tun = v;
        else if (!strcmp(argv[i], "--addr"))
            addr = v;
        else if (!strcmp(argv[i], "--stats-json"))
            stats = v;
        else if (!strcmp(argv[i], "--echo"))
            h.echo_port = (uint16_t)atoi(v);
        else if (!strcmp(argv[i], "--discard"))
            h.discard_port = (uint16_t)atoi(v);
        else if (!strcmp(argv[i], "--http"))
            h.http_port = (uint16_t)atoi(v);
        else if (!strcmp(argv[i], "--udp-echo"))
            h.udp_port = (uint16_t)atoi(v);
        else
            return usage();
        i++;
    }
    if (!tun || !addr)
        return usage();
    if (inet_pton(MIP_CONF_IPV6 ? AF_INET6 : AF_INET, addr, ip) != 1) {
        fprintf(stderr, "moteip-micro: --addr %s: not an IPv%d address\n", addr,
                MIP_CONF_IPV6 ? 6 : 4);
        return 2;
    }
    if (getrandom(seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
        perror("moteip-micro: getrandom");
        return 1;
    }
    fd = tun_open(tun);
    if (fd < 0) {
        perror("moteip-micro: TUN");
        return 1;
    }
    mip_micro_init(&h.m, ip, seed, tcp_app, &h);
    h.m.udp_app = udp_app;
    if ((h.echo_port && mip_micro_listen(&h.m, h.echo_port)) ||
        (h.discard_port && mip_micro_listen(&h.m, h.discard_port)) ||
        (h.http_port && mip_micro_listen(&h.m, h.http_port)) ||
        (h.udp_port && mip_micro_udp_bind(&h.m, h.udp_port))) {
        fprintf(stderr, "moteip-micro: too many ports\n");
        return 2;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    printf("moteip-micro ready: %s on %s, IPv%d, MSS %u\n", addr, tun, MIP_CONF_IPV6 ? 6 : 4,
           (unsigned)MIP_MICRO_MSS);
    fflush(stdout);

    next = now_ms() + MIP_MICRO_TICK_MS;
    while (!stop_flag) {
        uint64_t t = now_ms();
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int r;

        if (t >= next) {
            for (uint8_t i = 0; i < MIP_MICRO_CONNS; i++)
                send_out(fd, &h, mip_micro_periodic(&h.m, i));
            next += MIP_MICRO_TICK_MS;
            if (next < t)
                next = t + MIP_MICRO_TICK_MS;
            continue;
        }
        r = poll(&pfd, 1, (int)(next - t));
        if (r < 0 && errno != EINTR) {
            perror("moteip-micro: poll");
            break;
        }
        if (r > 0 && (pfd.revents & POLLIN)) {
            ssize_t n = read(fd, h.m.buf, sizeof h.m.buf);
            if (n > 0)
                send_out(fd, &h, mip_micro_input(&h.m, (uint16_t)n));
        }
    }
    if (stats && write_stats(&h, stats) != 0) {
        perror("moteip-micro: --stats-json");
        return 1;
    }
    return 0;
}
