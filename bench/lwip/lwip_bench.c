/*
 * lwip_bench: bench/tcp_bench.c's transfer with lwIP 2.1.3 (NO_SYS, raw
 * API) for bench/lwip-cost. Two netifs of one lwIP instance, fd00::1 (the
 * sender) and fd00::2 (the receiver), joined in memory: a netif's output
 * copies the packet into the queue of the netif that owns its destination.
 * 1 MiB of the same pattern over IPv6 with MTU 1280, 16 KB windows,
 * timestamps; the receiving application copies every segment out in
 * 1,024-byte pieces (pbuf_copy_partial), checks them, tells lwIP
 * (tcp_recved) and frees the pbuf. One round delivers every queued frame,
 * advances the clock by 1 ms and runs lwIP's timers, as tcp_bench does.
 *
 * Counted by callgrind (--toggle-collect=bench_receiver_input
 * --toggle-collect=bench_verify): the receiver's whole input path from
 * netif->input (IPv6, TCP, the ACKs it sends, the application's copy and
 * pbuf_free), not the pattern check. The frame is put into a pool pbuf
 * before, as a driver would: moteip reads it from the caller's buffer.
 *
 * The send path (bench/lwip-cost counts it too): the sender's input
 * through bench_sender_input() (the ACKs, the writes its callbacks make,
 * tcp_output) and lwIP's timers through bench_timers() (one lwIP instance
 * runs both ends' timers there: the receiver's share is counted with the
 * sender's), with the application's pattern (bench_pattern) and the link's
 * copy of each frame the sender sends (bench_sender_link_out) toggled off,
 * as bench_tcp's.
 *
 * Usage: lwip_bench [BYTES] (default 1048576); exits 1 unless every byte
 * arrived right and the connection closed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lwip/init.h"
#include "lwip/ip6.h"
#include "lwip/ip6_addr.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/stats.h"
#include "lwip/tcp.h"
#include "lwip/timeouts.h"

#define QMAX 256
#define FRAME 1280

struct frame { size_t len; uint8_t data[FRAME]; };
struct queue { struct frame q[QMAX]; unsigned head, len; };

struct bench {
    struct netif a, b;                 /* sender, receiver */
    ip6_addr_t addr_a, addr_b;
    struct queue to_a, to_b;
    struct tcp_pcb *cli;
    unsigned long long to_send, sent, received, bad;
    unsigned long rx_frames;           /* delivered to the receiver */
    int peer_closed, cli_closed;
    u32_t now;
    unsigned rng;
};

static struct bench bn;                /* lwIP itself is a global instance */

u32_t sys_now(void) { return bn.now; }

unsigned bench_lwip_rand(void)
{
    bn.rng = bn.rng * 1103515245u + 12345u;
    return bn.rng >> 8;
}

static uint8_t pattern(unsigned long long i) { return (uint8_t)(i * 7u + (i >> 8)); }

static err_t link_out(struct netif *netif, struct pbuf *p, const ip6_addr_t *dst)
{
    struct queue *q;
    struct frame *f;
    (void)netif;
    if (ip6_addr_cmp_zoneless(dst, &bn.addr_a))
        q = &bn.to_a;
    else if (ip6_addr_cmp_zoneless(dst, &bn.addr_b))
        q = &bn.to_b;
    else
        return ERR_OK;                 /* nobody there */
    if (q->len >= QMAX || p->tot_len > FRAME)
        return ERR_MEM;
    f = &q->q[(q->head + q->len++) % QMAX];
    f->len = pbuf_copy_partial(p, f->data, p->tot_len, 0);
    return ERR_OK;
}

/* The sender's link: the driver's copy of each frame, not the stack's cost. */
__attribute__((noinline)) err_t bench_sender_link_out(struct netif *netif, struct pbuf *p,
                                                      const ip6_addr_t *dst);
__attribute__((noinline)) err_t bench_sender_link_out(struct netif *netif, struct pbuf *p,
                                                      const ip6_addr_t *dst)
{
    return link_out(netif, p, dst);
}

static err_t netif_setup(struct netif *n)
{
    n->output_ip6 = n == &bn.a ? bench_sender_link_out : link_out;
    n->mtu = FRAME;
    n->name[0] = 'm';
    n->name[1] = n == &bn.a ? 'a' : 'b';
    return ERR_OK;
}

static void add_netif(struct netif *n, ip6_addr_t *addr, const char *text)
{
    netif_add_noaddr(n, NULL, netif_setup, ip6_input);
    ip6addr_aton(text, addr);
    netif_ip6_addr_set(n, 0, addr);
    netif_ip6_addr_set_state(n, 0, IP6_ADDR_PREFERRED);
    netif_set_up(n);
    netif_set_link_up(n);
}

/* --- the sender (fd00::1) ----------------------------------------------- */

/* The application's data: not the stack's cost (toggled off). */
__attribute__((noinline)) void bench_pattern(uint8_t *buf, unsigned long long off, size_t n);
__attribute__((noinline)) void bench_pattern(uint8_t *buf, unsigned long long off, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        buf[i] = pattern(off + i);
}

static void fill(void)
{
    uint8_t buf[1024];
    while (bn.sent < bn.to_send) {
        size_t n = sizeof(buf);
        if (bn.to_send - bn.sent < n)
            n = (size_t)(bn.to_send - bn.sent);
        if (tcp_sndbuf(bn.cli) < n || tcp_sndqueuelen(bn.cli) >= TCP_SND_QUEUELEN - 1)
            break;
        bench_pattern(buf, bn.sent, n);
        if (tcp_write(bn.cli, buf, (u16_t)n, TCP_WRITE_FLAG_COPY) != ERR_OK)
            break;
        bn.sent += n;
    }
    if (bn.sent == bn.to_send && !bn.cli_closed) {
        bn.cli_closed = tcp_close(bn.cli) == ERR_OK;
    }
    (void)tcp_output(bn.cli);
}

static err_t cli_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
    (void)arg; (void)pcb; (void)len;
    if (!bn.cli_closed)
        fill();
    return ERR_OK;
}

static err_t cli_connected(void *arg, struct tcp_pcb *pcb, err_t err)
{
    (void)arg; (void)pcb;
    if (err == ERR_OK)
        fill();
    return ERR_OK;
}

static err_t cli_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    (void)arg; (void)err;
    if (p != NULL) {
        tcp_recved(pcb, p->tot_len);
        pbuf_free(p);
    }
    return ERR_OK;
}

/* --- the receiver (fd00::2) ---------------------------------------------- */

/* The application's check of every byte: not the stack's cost, so
 * bench/lwip-cost toggles collection off inside it (as bench_tcp's). */
__attribute__((noinline)) void bench_verify(const uint8_t *buf, size_t k);
__attribute__((noinline)) void bench_verify(const uint8_t *buf, size_t k)
{
    size_t i;
    for (i = 0; i < k; i++)
        bn.bad += buf[i] != pattern(bn.received + i);
    bn.received += k;
}

static err_t srv_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    uint8_t buf[1024];
    u16_t off, k;
    (void)arg; (void)err;
    if (p == NULL) {
        bn.peer_closed = 1;
        tcp_close(pcb);
        return ERR_OK;
    }
    for (off = 0; off < p->tot_len; off = (u16_t)(off + k)) {
        k = pbuf_copy_partial(p, buf, sizeof(buf), off);
        bench_verify(buf, k);
    }
    tcp_recved(pcb, p->tot_len);
    pbuf_free(p);
    return ERR_OK;
}

static err_t srv_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    (void)arg;
    if (err != ERR_OK || pcb == NULL)
        return ERR_VAL;
    tcp_recv(pcb, srv_recv);
    return ERR_OK;
}

/* The receiver's whole input path; callgrind counts inside it only. */
__attribute__((noinline)) void bench_receiver_input(struct pbuf *p);
__attribute__((noinline)) void bench_receiver_input(struct pbuf *p)
{
    if (bn.b.input(p, &bn.b) != ERR_OK)
        pbuf_free(p);
}

/* The sender's input and lwIP's timers: the send path. */
__attribute__((noinline)) void bench_sender_input(struct pbuf *p);
__attribute__((noinline)) void bench_sender_input(struct pbuf *p)
{
    if (bn.a.input(p, &bn.a) != ERR_OK)
        pbuf_free(p);
}
__attribute__((noinline)) void bench_timers(void);
__attribute__((noinline)) void bench_timers(void)
{
    sys_check_timeouts();
}

/* A frame into a pool pbuf, as a driver would (not counted). */
static struct pbuf *driver_rx(const struct frame *f)
{
    struct pbuf *p = pbuf_alloc(PBUF_RAW, (u16_t)f->len, PBUF_POOL);
    if (p != NULL)
        pbuf_take(p, f->data, (u16_t)f->len);
    return p;
}

/* Delivers every frame queued for netif n, the receiver's through
 * bench_receiver_input; 0 when no pool pbuf was free. */
static int deliver(struct queue *q, struct netif *n)
{
    while (q->len > 0) {
        struct frame *f = &q->q[q->head];
        struct pbuf *p;
        q->head = (q->head + 1) % QMAX;
        q->len--;
        if ((p = driver_rx(f)) == NULL)
            return 0;
        if (n == &bn.b) {
            bn.rx_frames++;
            bench_receiver_input(p);
        } else {
            bench_sender_input(p);
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    struct tcp_pcb *l;
    unsigned long rounds = 0;
    bn.to_send = argc > 1 ? strtoull(argv[1], NULL, 10) : 1048576ull;
    bn.now = 1000;
    bn.rng = 1;
    lwip_init();
    add_netif(&bn.a, &bn.addr_a, "fd00::1");
    add_netif(&bn.b, &bn.addr_b, "fd00::2");

    l = tcp_new_ip_type(IPADDR_TYPE_V6);
    if (l == NULL || tcp_bind(l, IP6_ADDR_ANY, 80) != ERR_OK)
        return 1;
    l = tcp_listen(l);
    tcp_accept(l, srv_accept);

    bn.cli = tcp_new_ip_type(IPADDR_TYPE_V6);
    if (bn.cli == NULL)
        return 1;
    {
        ip_addr_t src, dst;
        ip_addr_copy_from_ip6(src, bn.addr_a);
        ip_addr_copy_from_ip6(dst, bn.addr_b);
        if (tcp_bind(bn.cli, &src, 0) != ERR_OK)
            return 1;
        tcp_sent(bn.cli, cli_sent);
        tcp_recv(bn.cli, cli_recv);
        if (tcp_connect(bn.cli, &dst, 80, cli_connected) != ERR_OK)
            return 1;
    }
    /* until the receiver has the FIN and both queues are empty */
    while (!(bn.peer_closed && bn.to_a.len == 0 && bn.to_b.len == 0) && rounds++ < 10000000ul) {
        if (!deliver(&bn.to_b, &bn.b) || !deliver(&bn.to_a, &bn.a))
            return 1;
        bn.now += 1;
        bench_timers();
    }
    printf("lwip_bench: %llu of %llu bytes received, %llu wrong, %u ms simulated\n",
           bn.received, bn.to_send, bn.bad, (unsigned)(bn.now - 1000));
    printf("lwip_bench: frames rx %lu (receiver), tcp segments sent %u, dropped %u (both ends)\n",
           bn.rx_frames, (unsigned)lwip_stats.tcp.xmit, (unsigned)lwip_stats.tcp.drop);
    return (bn.received == bn.to_send && bn.bad == 0 && bn.peer_closed) ? 0 : 1;
}
