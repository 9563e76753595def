/*
 * fuzz_http.c's second mode: the callback HTTP server (apps/http_server.h)
 * on one stack and its clients on another, joined by an in-memory raw-IP
 * link. What it checks is in fuzz_http.c's header; the operations are at
 * hw_run below.
 */
#ifndef MOTEIP_FUZZ_HTTP_WORLD_H
#define MOTEIP_FUZZ_HTTP_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "moteip/moteip.h"
#include "moteip/tcp.h"
#include "http_server.h"
#include "fuzz_check.h"

#define HW_OP_CLIENTS (MIP_TCP_APP_CONNS + 1u)  /* one more than the slots */
#define HW_CLIENTS (HW_OP_CLIENTS + 1u)         /* the last: the end's new client */
#define HW_QMAX 64u
#define HW_FRAME 1300u
#define HW_SENT_MAX 4096u
#define HW_STEP_MS 5u                 /* the link's latency: one delivery round */
#define HW_RUN_BUDGET_MS 10000u       /* link time per input; then time only jumps */

struct hw_frame {
    uint16_t len;
    uint8_t data[HW_FRAME];
};

/* Frames one side sent, oldest first; `drop` more are lost as they go. */
struct hw_link {
    struct hw_frame q[HW_QMAX];
    unsigned head, len, drop;
};

struct hw_client {
    struct mip_tcp_conn conn;
    uint8_t tx[512], rx[256];
    bool open;                  /* connected or connecting: conn is the stack's */
    bool stuck;                 /* does not read what arrives */
    uint8_t sent[HW_SENT_MAX];  /* every byte it wrote, for the model */
    size_t nsent;
    /* the response being read */
    uint8_t head[MIP_HTTP_HEAD_MAX];
    size_t hlen;
    bool in_body, pattern;
    uint64_t body_left, body_off;
    unsigned nresp;             /* responses whose head came */
    bool ended;                 /* a response that closes came: nothing may follow */
    uint16_t last_status;
};

struct hw_world {
    struct mip_stack stack[2];  /* 0: the clients, 1: the server */
    struct mip_tcp tcp[2];
    struct hw_link link[2];     /* frames sent by side i */
    struct mip_http_server http;
    struct hw_client cl[HW_CLIENTS];
    struct mip_addr server_addr;
    mip_time_t now;
    uint32_t run_left;          /* of HW_RUN_BUDGET_MS */
    uint8_t scratch[HW_FRAME];
};

static struct hw_world hw;

static mip_status hw_tx(void *ctx, const uint8_t *frame, size_t len)
{
    struct hw_link *l = ctx;
    struct hw_frame *f;
    if (l->drop > 0) {
        l->drop--;
        return MIP_OK;          /* lost on the way */
    }
    if (l->len >= HW_QMAX || len > HW_FRAME)
        return MIP_ERR_NOBUFS;
    f = &l->q[(l->head + l->len++) % HW_QMAX];
    f->len = (uint16_t)len;
    memcpy(f->data, frame, len);
    return MIP_OK;
}

static const struct mip_netif_driver hw_driver = { hw_tx, NULL, NULL };

/* --- the model: what a client's bytes ask of the server ------------------- */

struct hw_expect {
    uint16_t status;
    bool with_body, keep_alive;
    uint64_t body_len;          /* 200 with a body: N of /bytes/N */
};

/* The response number idx to what the client sent, as the server reads a
 * stream (mip_http_take: each head within MIP_HTTP_REQ_MAX, a body of
 * Content-Length dropped, nothing after a response that closes). False
 * when the bytes sent ask for no such response (yet). */
static bool hw_model(const struct hw_client *k, unsigned idx, struct hw_expect *e)
{
    size_t pos = 0;
    uint64_t skip = 0;
    unsigned i;
    for (i = 0;; i++) {
        struct mip_http_request r;
        enum mip_http_parse_result res;
        uint64_t n = 0;
        if (skip > (uint64_t)(k->nsent - pos))
            return false;
        pos += (size_t)skip;
        res = mip_http_parse_request(k->sent + pos, k->nsent - pos, MIP_HTTP_REQ_MAX, &r);
        if (res == MIP_HTTP_INCOMPLETE)
            return false;
        memset(e, 0, sizeof(*e));
        if (res == MIP_HTTP_INVALID) {
            e->status = r.status;
            e->with_body = true;
        } else if (r.method == MIP_HTTP_OTHER) {
            e->status = 501;
            e->with_body = true;
        } else {
            bool bytes = mip_http_route_bytes(k->sent + pos + r.target_off, r.target_len, &n);
            e->status = bytes ? 200u : 404u;
            e->body_len = bytes ? n : 0u;
            e->with_body = r.method == MIP_HTTP_GET;
            e->keep_alive = r.keep_alive;
        }
        if (i == idx)
            return true;
        if (!e->keep_alive)
            return false;
        pos += r.consumed;
        skip = r.content_length;
    }
}

static const char *hw_find(const uint8_t *h, size_t n, const char *s)
{
    size_t sl = strlen(s), i;
    for (i = 0; i + sl <= n; i++)
        if (memcmp(h + i, s, sl) == 0)
            return (const char *)h + i;
    return NULL;
}

/* A response head arrived whole: the one the model expects next. */
static void hw_head(struct hw_client *k)
{
    struct hw_expect e;
    const char *cl;
    uint64_t len = 0;
    size_t i;
    unsigned status;
    CHECKF(hw_model(k, k->nresp, &e));          /* a response some request asked for */
    CHECKF(k->hlen > 13 && memcmp(k->head, "HTTP/1.1 ", 9) == 0);
    status = (unsigned)(k->head[9] - '0') * 100u + (unsigned)(k->head[10] - '0') * 10u +
             (unsigned)(k->head[11] - '0');
    CHECKF(status == e.status);
    cl = hw_find(k->head, k->hlen, "\r\nContent-Length: ");
    CHECKF(cl != NULL);
    for (i = (size_t)(cl - (const char *)k->head) + 18u; k->head[i] >= '0' && k->head[i] <= '9';
         i++) {
        CHECKF(len <= (UINT64_MAX - 9u) / 10u);
        len = len * 10u + (uint64_t)(k->head[i] - '0');
    }
    if (status == 200)
        CHECKF(len == e.body_len);
    CHECKF((hw_find(k->head, k->hlen, "\r\nConnection: close\r\n") != NULL) == !e.keep_alive);
    k->body_left = e.with_body ? len : 0u;
    k->body_off = 0;
    k->pattern = status == 200;
    k->in_body = k->body_left > 0;
    k->ended = !e.keep_alive;
    k->last_status = (uint16_t)status;
    k->nresp++;
    k->hlen = 0;
}

/* Every byte a client reads, in order. */
static void hw_feed(struct hw_client *k, const uint8_t *p, size_t n)
{
    size_t j;
    for (j = 0; j < n; j++) {
        if (k->in_body) {
            if (k->pattern)
                CHECKF(p[j] == mip_http_body_byte(k->body_off));
            k->body_off++;
            if (--k->body_left == 0)
                k->in_body = false;
            continue;
        }
        CHECKF(!k->ended);                      /* nothing after a response that closed */
        CHECKF(k->hlen < sizeof(k->head));      /* a head within MIP_HTTP_HEAD_MAX */
        k->head[k->hlen++] = p[j];
        if (k->hlen >= 4 && memcmp(k->head + k->hlen - 4, "\r\n\r\n", 4) == 0)
            hw_head(k);
    }
}

static void hw_read(struct hw_client *k, size_t max)
{
    uint8_t buf[256];
    size_t got;
    while (max > 0) {
        got = mip_tcp_read(&hw.tcp[0], &k->conn, buf, max < sizeof(buf) ? max : sizeof(buf));
        if (got == 0)
            break;
        hw_feed(k, buf, got);
        max -= got;
    }
}

static void hw_readable(void *ctx, struct mip_tcp_conn *c)
{
    struct hw_client *k = ctx;
    (void)c;
    if (!k->stuck)
        hw_read(k, SIZE_MAX);
}

static void hw_closed(void *ctx, struct mip_tcp_conn *c)
{
    struct hw_client *k = ctx;
    (void)c;
    k->open = false;
}

static const struct mip_tcp_callbacks hw_client_cb = {
    .readable = hw_readable, .closed = hw_closed,
};

/* --- the world -------------------------------------------------------------- */

static void hw_init(uint8_t cfg)
{
    static const uint32_t starts[4] = { 1000u, 0x7FFFFFFFu - 40000u, 0xFFFFFFFFu - 40000u, 0 };
    static const char *addr6[2] = { "fd00::1", "fd00::2" };
    static const char *addr4[2] = { "192.0.2.1", "192.0.2.2" };
    bool v4 = (cfg & 4u) != 0;
    int i;
    memset(&hw, 0, sizeof(hw));
    hw.now = (cfg & 3u) == 3u ? (mip_time_t)cfg << 24 : starts[cfg & 3u];
    hw.run_left = HW_RUN_BUDGET_MS;
    for (i = 0; i < 2; i++) {
        struct mip_stack_config sc;
        uint8_t seed[16], idx, plen;
        struct mip_addr a;
        memset(seed, 0x31 + i, sizeof(seed));
        memset(&sc, 0, sizeof(sc));
        sc.entropy = seed;
        sc.entropy_len = sizeof(seed);
        CHECKF(mip_stack_init(&hw.stack[i], &sc, hw.now) == MIP_OK);
        CHECKF(mip_netif_add_rawip(&hw.stack[i], 1280, NULL, &hw_driver, &hw.link[i], &idx) ==
               MIP_OK);
        CHECKF(mip_addr_parse(v4 ? addr4[i] : addr6[i], &a, &plen) == MIP_OK);
        CHECKF(mip_netif_add_addr(&hw.stack[i], 0, &a, v4 ? 24 : 64) == MIP_OK);
        CHECKF(mip_tcp_init(&hw.tcp[i], &hw.stack[i]) == MIP_OK);
        if (i == 1)
            hw.server_addr = a;
    }
    CHECKF(mip_http_server_start(&hw.http, &hw.tcp[1], MIP_HTTP_PORT) == MIP_OK);
}

/* One delivery round: what each side had sent arrives at the other. */
static bool hw_deliver(void)
{
    bool moved = false;
    int i;
    for (i = 0; i < 2; i++) {
        struct hw_link *l = &hw.link[i];
        unsigned n = l->len;
        while (n-- > 0 && l->len > 0) {
            uint16_t len = l->q[l->head].len;
            memcpy(hw.scratch, l->q[l->head].data, len);
            l->head = (l->head + 1u) % HW_QMAX;
            l->len--;
            mip_stack_input(&hw.stack[1 - i], 0, hw.scratch, len, hw.now);
            moved = true;
        }
    }
    return moved;
}

static void hw_poll(void)
{
    (void)mip_stack_poll(&hw.stack[0], hw.now);
    (void)mip_stack_poll(&hw.stack[1], hw.now);
}

/* Both stacks and the link until `end`: a round each HW_STEP_MS while
 * frames move, else straight to the next deadline. */
static void hw_run_until(mip_time_t end)
{
    while (mip_time_before(hw.now, end)) {
        uint32_t d0, d1, d, left = end - hw.now;
        if (hw_deliver() || hw.link[0].len || hw.link[1].len) {
            hw_poll();
            hw.now += left < HW_STEP_MS ? left : HW_STEP_MS;
            continue;
        }
        d0 = mip_stack_poll(&hw.stack[0], hw.now);
        d1 = mip_stack_poll(&hw.stack[1], hw.now);
        if (hw.link[0].len || hw.link[1].len)
            continue;
        d = d0 < d1 ? d0 : d1;
        hw.now += d == 0 ? 1u : d > left ? left : d;
    }
    hw_poll();
}

/* Link time while the budget lasts; after it the clock jumps (frames wait
 * in the link for the next round). */
static void hw_time(uint32_t ms)
{
    uint32_t run = ms < hw.run_left ? ms : hw.run_left;
    hw.run_left -= run;
    hw_run_until(hw.now + run);
    hw.now += ms - run;
    hw_poll();
}

static void hw_connect(struct hw_client *k)
{
    memset(k, 0, sizeof(*k));
    mip_tcp_conn_init(&k->conn, &hw_client_cb, k, k->tx, sizeof(k->tx), k->rx, NULL,
                      sizeof(k->rx));
    if (mip_tcp_connect(&hw.tcp[0], &k->conn, &hw.server_addr, MIP_HTTP_PORT) == MIP_OK)
        k->open = true;
}

static void hw_write(struct hw_client *k, const uint8_t *p, size_t n)
{
    size_t put;
    if (!k->open)
        return;
    if (n > HW_SENT_MAX - k->nsent)
        n = HW_SENT_MAX - k->nsent;
    put = mip_tcp_write(&hw.tcp[0], &k->conn, p, n);
    memcpy(k->sent + k->nsent, p, put);
    k->nsent += put;
}

/* A well-formed request: GET/HEAD/POST (with a body), /bytes/N or
 * another path, HTTP/1.0 or 1.1, kept alive or not. */
static void hw_request(struct hw_client *k, uint8_t sel, uint16_t n)
{
    static const char *methods[4] = { "GET", "HEAD", "POST", "GET" };
    char req[160];
    int len = snprintf(req, sizeof(req), "%s %s%u HTTP/1.%c\r\nHost: m\r\n%s%s\r\n%s",
                       methods[sel & 3u], (sel & 4u) ? "/x/" : "/bytes/", (unsigned)n,
                       (sel & 8u) ? '0' : '1',
                       (sel & 16u) ? "Connection: close\r\n" : "",
                       (sel & 3u) == 2u ? "Content-Length: 5\r\n" : "",
                       (sel & 3u) == 2u ? "hello" : "");
    CHECKF(len > 0 && (size_t)len < sizeof(req));
    hw_write(k, (const uint8_t *)req, (size_t)len);
}

/* The end: nobody reads and the link loses nothing. The clients' TCPs
 * still take what their rings hold, at the latest with a retransmission
 * one backed-off RTO away (MIP_TCP_RTO_MAX_MS: after losses and a jump of
 * days the response's last bytes may wait that long); then nothing moves,
 * and after the send timeout a new client must be served. Then every
 * client and the server go, and every packet buffer is back. */
static void hw_end(void)
{
    struct hw_client *f = &hw.cl[HW_CLIENTS - 1u];
    unsigned i;
    hw.link[0].drop = hw.link[1].drop = 0;
    for (i = 0; i < HW_OP_CLIENTS; i++)
        hw.cl[i].stuck = true;
    hw_run_until(hw.now + MIP_TCP_RTO_MAX_MS + MIP_HTTP_SEND_TIMEOUT_MS + 10000u);
    hw_connect(f);
    hw_run_until(hw.now + 1000u);
    hw_request(f, 16u, 10u);            /* GET /bytes/10, Connection: close */
    hw_run_until(hw.now + 2000u);
    CHECKF(f->nresp == 1u && f->last_status == 200u && !f->in_body);
    for (i = 0; i < HW_CLIENTS; i++)
        if (hw.cl[i].open)
            mip_tcp_abort(&hw.tcp[0], &hw.cl[i].conn);
    mip_http_server_stop(&hw.http);
    CHECKF(hw.http.srv.active == 0);
    hw_run_until(hw.now + 1000u);
    for (i = 0; i < HW_CLIENTS; i++)
        CHECKF(!hw.cl[i].open);
    CHECKF(hw.stack[0].pool.in_use == 0 && hw.stack[1].pool.in_use == 0);
}

/* Input: a config byte (bits 0-1 the clock's start: 1 s, 2^31 - 40 s,
 * 2^32 - 40 s, or the byte << 24; bit 2 IPv4), then operations of one
 * byte, op & 7, client (op >> 3) % HW_OP_CLIENTS, and their arguments. */
static void hw_run(const uint8_t *p, size_t n)
{
    size_t pos = 1;
    unsigned ops = 0;
#define ARG() (pos < n ? p[pos++] : 0u)
    if (n < 1)
        return;
    hw_init(p[0]);
    while (pos < n && ops++ < 400u) {
        uint8_t op = p[pos++], a;
        struct hw_client *k = &hw.cl[(op >> 3) % HW_OP_CLIENTS];
        switch (op & 7u) {
        case 0:                                 /* connect */
            if (!k->open)
                hw_connect(k);
            break;
        case 1: {                               /* write raw bytes */
            size_t len = (size_t)ARG() + 1u;
            if (len > n - pos)
                len = n - pos;
            hw_write(k, p + pos, len);
            pos += len;
            break;
        }
        case 2: {                               /* write a request */
            uint16_t num;
            a = ARG();
            num = (uint16_t)(ARG() << 8);
            num = (uint16_t)(num | ARG());
            hw_request(k, a, num);
            break;
        }
        case 3:                                 /* read some, stop or resume reading */
            a = ARG();
            if (a & 1u)
                k->stuck = !k->stuck;
            if (k->open)
                hw_read(k, (size_t)(a >> 1) * 16u + 1u);
            break;
        case 4:                                 /* end it */
            a = ARG();
            if (!k->open)
                break;
            if ((a & 3u) == 0)
                (void)mip_tcp_shutdown(&hw.tcp[0], &k->conn);
            else if ((a & 3u) == 1)
                (void)mip_tcp_close(&hw.tcp[0], &k->conn);
            else
                mip_tcp_abort(&hw.tcp[0], &k->conn);
            break;
        case 5:                                 /* lose the next frames of a side */
            a = ARG();
            hw.link[a & 1u].drop += (unsigned)(a >> 1) & 7u;
            break;
        case 6:                                 /* time: up to 65 s */
            a = ARG();
            hw_time((uint32_t)a * a + 1u);
            break;
        default:                                /* time: hours to days */
            a = ARG();
            hw_time((uint32_t)(a & 63u) * 3600000u + 1u);
            break;
        }
        CHECKF(hw.http.srv.active <= MIP_TCP_APP_CONNS);
    }
#undef ARG
    hw_end();
}

#endif
