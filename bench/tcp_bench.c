/*
 * bench_tcp: a deterministic bulk TCP transfer between two moteip stacks
 * over an in-memory raw-IP link (MTU 1280, IPv6, full profile), for
 * instruction counts under callgrind. The receiver's input goes through
 * bench_receiver_input() alone, so
 *
 *   valgrind --tool=callgrind --toggle-collect=bench_receiver_input bench_tcp N
 *
 * counts what receiving N bytes costs (IP + TCP input, reassembly ring,
 * ACK generation). Run by bench/tcp-cost, which divides by N / 1024.
 * The sender's side goes through bench_sender_input() (the ACKs it
 * receives, the writes its callbacks make and the segments they send) and
 * bench_sender_poll() (its timers); bench/lwip-cost counts the send path
 * there, with the application's pattern (bench_pattern) and the link's copy
 * of each frame (bench_sender_link_tx, the driver's work) toggled off.
 *
 * Usage: bench_tcp [BYTES] (default 1048576). Prints the transfer's
 * outcome and the sizes of TCP's state structs; exits 1 if any byte
 * arrived wrong or the transfer did not finish.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "moteip/stack.h"
#include "moteip/tcp.h"

#define RING 16384
#define QMAX 256

struct frame { size_t len; uint8_t data[1280]; };

struct side {
    struct mip_stack s;
    struct mip_tcp tcp;
    struct frame q[QMAX];
    unsigned head, len;
};

struct bench {
    struct side a, b;
    struct mip_tcp_conn cli, srv;
    struct mip_tcp_listener listener;
    uint8_t ctx_ring[RING], crx_ring[RING], cbm[RING / 8];
    uint8_t stx_ring[RING], srx_ring[RING], sbm[RING / 8];
    unsigned long long to_send, sent, received, bad;
    int done;
};

static uint8_t pattern(unsigned long long i) { return (uint8_t)(i * 7u + (i >> 8)); }

static mip_status link_tx(void *ctx, const uint8_t *frame, size_t len)
{
    struct side *sd = ctx;
    struct frame *f;
    if (sd->len >= QMAX || len > sizeof(f->data))
        return MIP_ERR_NOBUFS;
    f = &sd->q[(sd->head + sd->len++) % QMAX];
    f->len = len;
    memcpy(f->data, frame, len);
    return MIP_OK;
}

/* The sender's link: the driver's copy of each frame, not the stack's cost. */
__attribute__((noinline)) mip_status bench_sender_link_tx(void *ctx, const uint8_t *frame, size_t len);
__attribute__((noinline)) mip_status bench_sender_link_tx(void *ctx, const uint8_t *frame, size_t len)
{
    return link_tx(ctx, frame, len);
}

static const struct mip_netif_driver link_drv = { link_tx, NULL, NULL };
static const struct mip_netif_driver sender_link_drv = { bench_sender_link_tx, NULL, NULL };

/* The application's data: not the stack's cost (toggled off). */
__attribute__((noinline)) void bench_pattern(uint8_t *buf, unsigned long long off, size_t n);
__attribute__((noinline)) void bench_pattern(uint8_t *buf, unsigned long long off, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        buf[i] = pattern(off + i);
}

static void fill(struct bench *bn)
{
    uint8_t buf[1024];
    while (bn->sent < bn->to_send) {
        size_t n = sizeof(buf), k;
        if (bn->to_send - bn->sent < n)
            n = (size_t)(bn->to_send - bn->sent);
        bench_pattern(buf, bn->sent, n);
        k = mip_tcp_write(&bn->a.tcp, &bn->cli, buf, n);
        bn->sent += k;
        if (k < n)
            return;
    }
    (void)mip_tcp_shutdown(&bn->a.tcp, &bn->cli);
}

static void on_connected(void *ctx, struct mip_tcp_conn *c) { if (c == &((struct bench *)ctx)->cli) fill(ctx); }
static void on_writable(void *ctx, struct mip_tcp_conn *c) { if (c == &((struct bench *)ctx)->cli) fill(ctx); }
/* The application's check of every byte: not the stack's cost, so
 * bench/tcp-cost toggles collection off inside it. */
__attribute__((noinline)) void bench_verify(struct bench *bn, const uint8_t *buf, size_t k);
__attribute__((noinline)) void bench_verify(struct bench *bn, const uint8_t *buf, size_t k)
{
    size_t i;
    for (i = 0; i < k; i++)
        bn->bad += buf[i] != pattern(bn->received + i);
    bn->received += k;
}

static void on_readable(void *ctx, struct mip_tcp_conn *c)
{
    struct bench *bn = ctx;
    uint8_t buf[1024];
    size_t k;
    if (c != &bn->srv)
        return;
    while ((k = mip_tcp_read(&bn->b.tcp, c, buf, sizeof(buf))) > 0)
        bench_verify(bn, buf, k);
    if (mip_tcp_peer_closed(c))
        (void)mip_tcp_close(&bn->b.tcp, c);
}
static void on_closed(void *ctx, struct mip_tcp_conn *c) { if (c == &((struct bench *)ctx)->srv) ((struct bench *)ctx)->done = 1; }

static const struct mip_tcp_callbacks cbs = { on_connected, on_readable, on_writable, on_closed, NULL };

static struct mip_tcp_conn *on_accept(struct mip_tcp_listener *l, struct mip_tcp *tcp,
                                      uint16_t port)
{
    struct bench *bn = MIP_CONTAINER_OF(l, struct bench, listener);
    (void)tcp; (void)port;
    mip_tcp_conn_init(&bn->srv, &cbs, bn, bn->stx_ring, RING, bn->srx_ring, bn->sbm, RING);
    return &bn->srv;
}

/* The receiver's whole input path; callgrind counts inside it only. */
__attribute__((noinline)) void bench_receiver_input(struct mip_stack *s, const uint8_t *f,
                                                    size_t len, mip_time_t now);
__attribute__((noinline)) void bench_receiver_input(struct mip_stack *s, const uint8_t *f,
                                                    size_t len, mip_time_t now)
{
    mip_stack_input(s, 0, f, len, now);
}

/* The sender's input and timers; bench/lwip-cost counts the send path here. */
__attribute__((noinline)) void bench_sender_input(struct mip_stack *s, const uint8_t *f,
                                                  size_t len, mip_time_t now);
__attribute__((noinline)) void bench_sender_input(struct mip_stack *s, const uint8_t *f,
                                                  size_t len, mip_time_t now)
{
    mip_stack_input(s, 0, f, len, now);
}
__attribute__((noinline)) void bench_sender_poll(struct mip_stack *s, mip_time_t now);
__attribute__((noinline)) void bench_sender_poll(struct mip_stack *s, mip_time_t now)
{
    (void)mip_stack_poll(s, now);
}

static void side_init(struct side *sd, const char *addr, uint8_t seed,
                      const struct mip_netif_driver *drv)
{
    uint8_t entropy[16];
    struct mip_stack_config cfg;
    struct mip_addr a;
    uint8_t plen, idx;
    memset(entropy, seed, sizeof(entropy));
    memset(&cfg, 0, sizeof(cfg));
    cfg.entropy = entropy;
    cfg.entropy_len = sizeof(entropy);
    mip_stack_init(&sd->s, &cfg, 1000);
    (void)mip_netif_add_rawip(&sd->s, 1280, NULL, drv, sd, &idx);
    (void)mip_addr_parse(addr, &a, &plen);
    (void)mip_netif_add_addr(&sd->s, 0, &a, 64);
    (void)mip_tcp_init(&sd->tcp, &sd->s);
}

int main(int argc, char **argv)
{
    struct bench *bn = calloc(1, sizeof(*bn));
    struct mip_addr dst;
    mip_time_t now = 1000;
    uint8_t plen;
    unsigned long rounds = 0;
    if (bn == NULL)
        return 1;
    bn->to_send = argc > 1 ? strtoull(argv[1], NULL, 10) : 1048576ull;
    side_init(&bn->a, "fd00::1", 1, &sender_link_drv);
    side_init(&bn->b, "fd00::2", 2, &link_drv);
    (void)mip_tcp_listen(&bn->b.tcp, &bn->listener, 80, RING, on_accept);
    mip_tcp_conn_init(&bn->cli, &cbs, bn, bn->ctx_ring, RING, bn->crx_ring, bn->cbm, RING);
    (void)mip_addr_parse("fd00::2", &dst, &plen);
    if (mip_tcp_connect(&bn->a.tcp, &bn->cli, &dst, 80) != MIP_OK)
        return 1;
    while (!bn->done && rounds++ < 10000000ul) {
        while (bn->a.len > 0) {
            struct frame *f = &bn->a.q[bn->a.head];
            bn->a.head = (bn->a.head + 1) % QMAX;
            bn->a.len--;
            bench_receiver_input(&bn->b.s, f->data, f->len, now);
        }
        while (bn->b.len > 0) {
            struct frame *f = &bn->b.q[bn->b.head];
            bn->b.head = (bn->b.head + 1) % QMAX;
            bn->b.len--;
            bench_sender_input(&bn->a.s, f->data, f->len, now);
        }
        now += 1;
        bench_sender_poll(&bn->a.s, now);
        (void)mip_stack_poll(&bn->b.s, now);
    }
    printf("bench_tcp: %llu of %llu bytes received, %llu wrong, %u ms simulated\n",
           bn->received, bn->to_send, bn->bad, (unsigned)(now - 1000));
    printf("bench_tcp: segments rx %u tx %u (receiver), rexmits %u (sender)\n",
           mip_tcp_stat(&bn->b.tcp, MIP_TCP_STAT_segs_rx), mip_tcp_stat(&bn->b.tcp, MIP_TCP_STAT_segs_tx),
           mip_tcp_stat(&bn->a.tcp, MIP_TCP_STAT_rexmits));
    printf("sizeof: mip_tcp_conn %zu, mip_tcp_listener %zu, mip_tcp_syn %zu, mip_tcp_tw %zu, "
           "mip_tcp %zu (host build)\n", sizeof(struct mip_tcp_conn), sizeof(struct mip_tcp_listener),
           sizeof(struct mip_tcp_syn), sizeof(struct mip_tcp_tw), sizeof(struct mip_tcp));
    return (bn->received == bn->to_send && bn->bad == 0 && bn->done) ? 0 : 1;
}
