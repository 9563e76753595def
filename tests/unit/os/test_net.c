/* The stack as a service (include/moteip/os_net.h): processes on two stacks
 * joined in memory. Node B runs the echo app's process (apps/os_apps.h: UDP
 * and a TCP listener with a pool of two connections); node A's client process
 * sends a datagram and 3,000 bytes over TCP, in a loop of WAIT_EVENTs with
 * no callback of its own, and checks every byte that comes back. */
#include <string.h>

#include "testing.h"
#include "tcp/tcp_pair.h"
#include "moteip/os_net.h"
#include "os_apps.h"

#define RING 512
#define TOTAL 3000u

struct client_proc {                /* node A */
    struct mip_os_udp udp;
    struct mip_os_tcp conn;
    uint8_t tx[RING], rx[RING];
    struct mip_tcp *tcp;
    struct mip_stack *s;
    struct mip_addr peer;
    unsigned sent, got, bad, udp_ok;
    bool closed, error;
};

static uint8_t pattern(unsigned i)
{
    return (uint8_t)(i * 13u + (i >> 8));
}

static void client_pump(struct client_proc *c)
{
    struct mip_tcp_conn *k = &c->conn.conn;
    uint8_t buf[128];
    size_t n, i;
    while (c->sent < TOTAL && mip_tcp_writable(k) > 0) {
        n = TOTAL - c->sent < sizeof buf ? TOTAL - c->sent : sizeof buf;
        for (i = 0; i < n; i++)
            buf[i] = pattern(c->sent + (unsigned)i);
        n = mip_tcp_write(c->tcp, k, buf, n);
        if (n == 0)
            break;
        c->sent += (unsigned)n;
    }
    while ((n = mip_tcp_read(c->tcp, k, buf, sizeof buf)) > 0)
        for (i = 0; i < n; i++, c->got++)
            c->bad += buf[i] != pattern(c->got);
}

static char client_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                          void *data)
{
    struct client_proc *c = p->ctx;
    MIP_PROCESS_BEGIN();
    (void)mip_os_udp_bind(os, p, &c->udp, c->s, 4000);
    (void)mip_udp_sendto(c->s, NULL, 4000, &c->peer, 7, MIP_NETIF_ANY,
                         (const uint8_t *)"hello", 5);
    MIP_PROCESS_WAIT_EVENT_UNTIL(ev == MIP_OS_EV_UDP);
    {
        const struct mip_os_udp_event *u = data;
        c->udp_ok = u->len == 5 && memcmp(u->data, "hello", 5) == 0;
    }
    mip_os_tcp_init(os, p, &c->conn, c->tcp, c->tx, RING, c->rx, NULL, RING);
    (void)mip_os_tcp_connect(&c->conn, &c->peer, 7);
    MIP_PROCESS_WAIT_EVENT_UNTIL(ev == MIP_OS_EV_TCP &&
                                 ((const struct mip_os_tcp_event *)data)->what ==
                                     MIP_OS_TCP_CONNECTED);
    client_pump(c);
    while (c->got < TOTAL) {
        MIP_PROCESS_WAIT_EVENT_UNTIL(ev == MIP_OS_EV_TCP);
        if (((const struct mip_os_tcp_event *)data)->what >= MIP_OS_TCP_CLOSED) {
            c->error = true;
            MIP_PROCESS_EXIT();
        }
        client_pump(c);
    }
    (void)mip_tcp_close(c->tcp, &c->conn.conn);
    MIP_PROCESS_WAIT_EVENT_UNTIL(ev == MIP_OS_EV_TCP &&
                                 ((const struct mip_os_tcp_event *)data)->what ==
                                     MIP_OS_TCP_CLOSED);
    c->closed = true;
    MIP_PROCESS_END();
}

static void test_processes_talk_udp_and_tcp_through_the_service(void)
{
    static struct pair pr;
    static struct mip_os osa, osb;
    static struct mip_os_process pc;
    static struct client_proc c;
    static struct mip_os_echo e;
    uint8_t plen;
    int round;

    pair_init(&pr, true);
    mip_os_init(&osa, pr.now);
    mip_os_init(&osb, pr.now);
    mip_os_echo_prepare(&e, pr.side[1].s, &pr.side[1].tcp, 7);
    CHECK_EQ(mip_os_start(&osb, &e.proc, "echo", mip_os_echo_thread, &e, NULL), MIP_OK);
    memset(&c, 0, sizeof(c));
    c.s = pr.side[0].s;
    c.tcp = &pr.side[0].tcp;
    CHECK_EQ(mip_addr_parse("fd00::2", &c.peer, &plen), MIP_OK);
    CHECK_EQ(mip_os_start(&osa, &pc, "client", client_thread, &c, NULL), MIP_OK);
    for (round = 0; round < 2000 && mip_os_running(&pc); round++) {
        pair_run(&pr, 1, 20);
        (void)mip_os_run(&osa, pr.now);
        (void)mip_os_run(&osb, pr.now);
    }
    pair_run(&pr, 1, 5000);          /* the last ACKs and TIME_WAIT go by */
    CHECK(!mip_os_running(&pc));     /* the client ended by itself */
    CHECK(c.udp_ok);
    CHECK_EQ(e.datagrams, 1u);
    CHECK_EQ(c.sent, TOTAL);
    CHECK_EQ(c.got, TOTAL);
    CHECK_EQ(c.bad, 0u);
    CHECK(c.closed && !c.error);
    CHECK_EQ(e.connections, 1u);
    CHECK_EQ(e.bytes, TOTAL);
    CHECK_EQ(e.bind_failed, 0u);
    CHECK(!e.t.conn[0].in_use && !e.t.conn[1].in_use);   /* closed: back in the pool */
    CHECK(mip_os_running(&e.proc));
    CHECK_EQ(mip_os_stat(&osb, MIP_OS_STAT_sync_refused), 0u);
    pair_free(&pr);
}

int main(void)
{
    RUN(test_processes_talk_udp_and_tcp_through_the_service);
    return TESTING_DONE();
}
