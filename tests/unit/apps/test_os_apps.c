/* The apps as kernel processes (apps/os_apps.h) on two stacks joined in
 * memory (tcp/tcp_pair.h): discard takes a stream whose CRC-32 it must
 * match, and the sensor samples at its period and sends batches that a
 * sink process checks reading by reading. Echo is in tests/unit/os/test_net.c. */
#include <string.h>

#include "testing.h"
#include "tcp/tcp_pair.h"
#include "moteip/os_net.h"
#include "os_apps.h"
#include "os_loader.h"
#include "tcp_discard.h"

#define TOTAL 4000u
#define RING 512u

static uint8_t pattern(unsigned i)
{
    return (uint8_t)(i * 7u + (i >> 9));
}

/* Node A: one datagram to port 9, then TOTAL bytes over TCP, then close. */
struct sender {
    struct mip_os_tcp conn;
    uint8_t tx[RING], rx[RING];
    struct mip_stack *s;
    struct mip_tcp *tcp;
    struct mip_addr peer;
    unsigned sent;
    bool closed;
};

static void sender_pump(struct sender *c)
{
    uint8_t buf[100];
    size_t n, i;
    while (c->sent < TOTAL && mip_tcp_writable(&c->conn.conn) > 0) {
        n = TOTAL - c->sent < sizeof buf ? TOTAL - c->sent : sizeof buf;
        for (i = 0; i < n; i++)
            buf[i] = pattern(c->sent + (unsigned)i);
        n = mip_tcp_write(c->tcp, &c->conn.conn, buf, n);
        if (n == 0)
            break;
        c->sent += (unsigned)n;
    }
}

static char sender_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                          void *data)
{
    struct sender *c = p->ctx;
    MIP_PROCESS_BEGIN();
    (void)mip_udp_sendto(c->s, NULL, 4000, &c->peer, 9, MIP_NETIF_ANY,
                         (const uint8_t *)"twelve bytes", 12);
    mip_os_tcp_init(os, p, &c->conn, c->tcp, c->tx, RING, c->rx, NULL, RING);
    (void)mip_os_tcp_connect(&c->conn, &c->peer, 9);
    MIP_PROCESS_WAIT_EVENT_UNTIL(ev == MIP_OS_EV_TCP &&
                                 ((const struct mip_os_tcp_event *)data)->what ==
                                     MIP_OS_TCP_CONNECTED);
    sender_pump(c);
    while (c->sent < TOTAL) {
        MIP_PROCESS_WAIT_EVENT_UNTIL(ev == MIP_OS_EV_TCP);
        if (((const struct mip_os_tcp_event *)data)->what >= MIP_OS_TCP_CLOSED)
            MIP_PROCESS_EXIT();
        sender_pump(c);
    }
    (void)mip_tcp_close(c->tcp, &c->conn.conn);
    MIP_PROCESS_WAIT_EVENT_UNTIL(ev == MIP_OS_EV_TCP &&
                                 ((const struct mip_os_tcp_event *)data)->what ==
                                     MIP_OS_TCP_CLOSED);
    c->closed = true;
    MIP_PROCESS_END();
}

static void run_both(struct pair *pr, struct mip_os *a, struct mip_os *b, unsigned rounds)
{
    unsigned r;
    for (r = 0; r < rounds; r++) {
        pair_run(pr, 1, 20);
        (void)mip_os_run(a, pr->now);
        (void)mip_os_run(b, pr->now);
    }
}

static void test_discard_process_takes_every_byte_and_its_crc_matches(void)
{
    static struct pair pr;
    static struct mip_os osa, osb;
    static struct mip_os_process ps;
    static struct sender c;
    static struct mip_os_discard d;
    uint8_t all[TOTAL], plen;
    unsigned i;

    pair_init(&pr, true);
    mip_os_init(&osa, pr.now);
    mip_os_init(&osb, pr.now);
    mip_os_discard_prepare(&d, pr.side[1].s, &pr.side[1].tcp, 9);
    CHECK_EQ(mip_os_start(&osb, &d.proc, "discard", mip_os_discard_thread, &d, NULL), MIP_OK);
    memset(&c, 0, sizeof(c));
    c.s = pr.side[0].s;
    c.tcp = &pr.side[0].tcp;
    CHECK_EQ(mip_addr_parse("fd00::2", &c.peer, &plen), MIP_OK);
    CHECK_EQ(mip_os_start(&osa, &ps, "sender", sender_thread, &c, NULL), MIP_OK);
    run_both(&pr, &osa, &osb, 1000);
    pair_run(&pr, 1, 5000);
    for (i = 0; i < TOTAL; i++)
        all[i] = pattern(i);
    CHECK(c.closed);
    CHECK_EQ(d.bind_failed, 0u);
    CHECK_EQ(d.datagrams, 1u);
    CHECK_EQ(d.connections, 1u);
    CHECK_EQ(d.bytes, (uint64_t)TOTAL + 12u);      /* the datagram's bytes count too */
    CHECK_EQ(d.crc, mip_crc32_update(0, all, TOTAL));
    CHECK(!d.t.conn[0].in_use && !d.t.conn[1].in_use);
    pair_free(&pr);
}

/* The sink: every datagram on port 5000, copied for the checks below. */
struct sink {
    struct mip_os_udp udp;
    struct mip_stack *s;
    const mip_time_t *clock;    /* the pair's: a datagram arrives inside its input */
    unsigned n;
    size_t len[8];
    uint8_t msg[8][40];
    mip_time_t at[8];
};

static char sink_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                        void *data)
{
    struct sink *k = p->ctx;
    MIP_PROCESS_BEGIN();
    (void)mip_os_udp_bind(os, p, &k->udp, k->s, 5000);
    for (;;) {
        MIP_PROCESS_WAIT_EVENT_UNTIL(ev == MIP_OS_EV_UDP);
        if (k->n < 8u) {
            const struct mip_os_udp_event *u = data;
            k->len[k->n] = u->len < 40u ? u->len : 40u;
            memcpy(k->msg[k->n], u->data, k->len[k->n]);
            k->at[k->n] = *k->clock;
        }
        k->n++;
    }
    MIP_PROCESS_END();
}

static uint16_t counter_sample(void *ctx)
{
    uint16_t *next = ctx;
    return (uint16_t)(1000u + (*next)++);
}

static void test_sensor_samples_at_its_period_and_sends_batches(void)
{
    static struct pair pr;
    static struct mip_os osa, osb;
    static struct mip_os_process pk;
    static struct mip_os_sensor n;
    static struct sink k;
    struct mip_addr sink_addr;
    uint16_t next = 0;
    uint8_t plen;
    mip_time_t t0;
    unsigned i, j;

    pair_init(&pr, true);
    mip_os_init(&osa, pr.now);
    mip_os_init(&osb, pr.now);
    memset(&k, 0, sizeof(k));
    k.s = pr.side[1].s;
    k.clock = &pr.now;
    CHECK_EQ(mip_os_start(&osb, &pk, "sink", sink_thread, &k, NULL), MIP_OK);
    CHECK_EQ(mip_addr_parse("fd00::2", &sink_addr, &plen), MIP_OK);
    CHECK_EQ(mip_os_sensor_prepare(&n, pr.side[0].s, &sink_addr, 5000, 5001, 100, 4,
                                   counter_sample, &next), MIP_OK);
    t0 = pr.now;
    CHECK_EQ(mip_os_start(&osa, &n.proc, "sensor", mip_os_sensor_thread, &n, NULL), MIP_OK);
    /* 2,050 ms in 1-ms steps: readings at 100, 200, ..., 2,000 ms */
    for (i = 0; i < 2050u; i++) {
        pr.now++;
        (void)mip_os_run(&osa, pr.now);
        pair_run(&pr, 1, 1);
        (void)mip_os_run(&osb, pr.now);
    }
    CHECK_EQ(n.samples, 20u);
    CHECK_EQ(n.sent, 5u);
    CHECK_EQ(n.send_failed, 0u);
    CHECK_EQ(k.n, 5u);
    for (i = 0; i < 5u && i < k.n; i++) {
        CHECK_EQ(k.len[i], 10u);                        /* sequence + 4 readings */
        CHECK_EQ(((unsigned)k.msg[i][0] << 8) | k.msg[i][1], i);
        for (j = 0; j < 4u; j++)
            CHECK_EQ(((unsigned)k.msg[i][2u + 2u * j] << 8) | k.msg[i][3u + 2u * j],
                     1000u + 4u * i + j);
        /* the batch leaves with its fourth reading: 400 ms apart, no drift */
        CHECK_EQ(k.at[i] - t0, 400u * (i + 1u));
    }
    mip_os_exit(&osa, &n.proc);
    CHECK(!mip_os_running(&n.proc));
    pair_free(&pr);
}

static uint16_t zero_sample(void *ctx)
{
    (void)ctx;
    return 0;
}

static void test_sensor_refuses_a_config_it_cannot_run(void)
{
    struct mip_os_sensor n;
    struct mip_addr a;
    uint8_t plen;
    CHECK_EQ(mip_addr_parse("fd00::2", &a, &plen), MIP_OK);
    CHECK_EQ(mip_os_sensor_prepare(&n, NULL, &a, 1, 2, 100, 0, zero_sample, NULL),
             MIP_ERR_INVALID);
    CHECK_EQ(mip_os_sensor_prepare(&n, NULL, &a, 1, 2, 100, MIP_OS_SENSOR_BATCH_MAX + 1u,
                                   zero_sample, NULL), MIP_ERR_INVALID);
    CHECK_EQ(mip_os_sensor_prepare(&n, NULL, &a, 1, 2, 0, 4, zero_sample, NULL),
             MIP_ERR_INVALID);
    CHECK_EQ(mip_os_sensor_prepare(&n, NULL, &a, 1, 2, MIP_TIME_HORIZON_MS + 1u, 4, zero_sample,
                                   NULL), MIP_ERR_INVALID);
    CHECK_EQ(mip_os_sensor_prepare(&n, NULL, &a, 1, 2, 100, 4, NULL, NULL), MIP_ERR_INVALID);
    CHECK_EQ(mip_os_sensor_prepare(&n, NULL, &a, 1, 2, 100, MIP_OS_SENSOR_BATCH_MAX, zero_sample,
                                   NULL), MIP_OK);
}

/* A client that connects and then says nothing (or only `request`), and
 * never reads. */
struct silent {
    struct mip_os_tcp conn;
    uint8_t tx[64], rx[64];
    struct mip_tcp *tcp;
    struct mip_addr peer;
    uint16_t port;              /* 0: 80 */
    const char *request;
    bool connected, ended;
};

static char silent_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                          void *data)
{
    struct silent *c = p->ctx;
    MIP_PROCESS_BEGIN();
    mip_os_tcp_init(os, p, &c->conn, c->tcp, c->tx, sizeof c->tx, c->rx, NULL, sizeof c->rx);
    (void)mip_os_tcp_connect(&c->conn, &c->peer, c->port != 0 ? c->port : 80);
    for (;;) {
        MIP_PROCESS_WAIT_EVENT_UNTIL(ev == MIP_OS_EV_TCP);
        if (((const struct mip_os_tcp_event *)data)->what == MIP_OS_TCP_CONNECTED) {
            c->connected = true;
            if (c->request != NULL)
                (void)mip_tcp_write(c->tcp, &c->conn.conn, (const uint8_t *)c->request,
                                    strlen(c->request));
        }
        if (((const struct mip_os_tcp_event *)data)->what == MIP_OS_TCP_CLOSED)
            c->ended = true;
    }
    MIP_PROCESS_END();
}

/* Runs both kernels for ms of simulated time, 10 ms a step. */
static void run_kernels(struct pair *pr, struct mip_os *a, struct mip_os *b, unsigned ms)
{
    unsigned t;
    for (t = 0; t < ms; t += 10u) {
        pr->now += 10u;                         /* pair_run alone stops when idle */
        pair_run(pr, 1, 1);
        (void)mip_os_run(a, pr->now);
        (void)mip_os_run(b, pr->now);
    }
}

/* The HTTP process and one client (a silent one, or one that sends
 * `request` and never reads) for `before` ms, then 3 s more: held until
 * then, reset after it. */
static void http_process_resets(const char *request, unsigned before)
{
    static struct pair pr;
    static struct mip_os osa, osb;
    static struct mip_os_process pc;
    static struct silent c;
    static struct mip_os_http h;
    uint8_t plen;

    pair_init(&pr, true);
    mip_os_init(&osa, pr.now);
    mip_os_init(&osb, pr.now);
    mip_os_http_prepare(&h, pr.side[1].s, &pr.side[1].tcp, 80);
    CHECK_EQ(mip_os_start(&osb, &h.proc, "http", mip_os_http_thread, &h, NULL), MIP_OK);
    memset(&c, 0, sizeof(c));
    c.tcp = &pr.side[0].tcp;
    c.request = request;
    CHECK_EQ(mip_addr_parse("fd00::2", &c.peer, &plen), MIP_OK);
    CHECK_EQ(mip_os_start(&osa, &pc, "silent", silent_thread, &c, NULL), MIP_OK);
    run_kernels(&pr, &osa, &osb, before);
    CHECK(c.connected && !c.ended);            /* held, not yet too long */
    CHECK_EQ(h.timeouts, 0u);
    CHECK_EQ(h.requests, request != NULL ? 1u : 0u);
    run_kernels(&pr, &osa, &osb, 3000u);
    CHECK_EQ(h.timeouts, 1u);                  /* then reset: the slot is free again */
    CHECK(c.ended);                            /* the client saw the RST */
    CHECK(!h.t.conn[0].in_use && !h.t.conn[1].in_use);
    pair_free(&pr);
}

static void test_http_process_resets_a_connection_that_sends_no_request(void)
{
    http_process_resets(NULL, MIP_HTTP_REQUEST_TIMEOUT_MS - 1000u);
}

/* A client that asks for a long body and never reads: its zero window
 * holds the response (TCP keeps probing it for good), until the response
 * has waited MIP_HTTP_SEND_TIMEOUT_MS for it to take a byte. */
static void test_http_process_resets_a_response_its_client_never_takes(void)
{
    http_process_resets("GET /bytes/1000000 HTTP/1.1\r\nHost: a\r\n\r\n",
                        MIP_HTTP_SEND_TIMEOUT_MS - 1000u);
}

/* The echo process's two connections held by clients that say nothing: a
 * third is refused until the first has been silent MIP_OS_TCP_IDLE_MS,
 * then takes its entry (before, the two held the port for good). */
static void test_a_kernel_listener_gives_a_silent_clients_entry_to_a_new_one(void)
{
    static struct pair pr;
    static struct mip_os osa, osb;
    static struct mip_os_process pc[4];
    static struct silent c[4];
    static struct mip_os_echo e;
    mip_time_t t0;
    unsigned i;
    uint8_t plen;

    pair_init(&pr, true);
    mip_os_init(&osa, pr.now);
    mip_os_init(&osb, pr.now);
    mip_os_echo_prepare(&e, pr.side[1].s, &pr.side[1].tcp, 7);
    CHECK_EQ(mip_os_start(&osb, &e.proc, "echo", mip_os_echo_thread, &e, NULL), MIP_OK);
    memset(c, 0, sizeof(c));
    for (i = 0; i < 4; i++) {
        c[i].tcp = &pr.side[0].tcp;
        c[i].port = 7;
        CHECK_EQ(mip_addr_parse("fd00::2", &c[i].peer, &plen), MIP_OK);
    }
    t0 = pr.now;
    for (i = 0; i < MIP_OS_APP_CONNS; i++) {
        CHECK_EQ(mip_os_start(&osa, &pc[i], "silent", silent_thread, &c[i], NULL), MIP_OK);
        run_kernels(&pr, &osa, &osb, 1000u);
        CHECK(c[i].connected);
    }
    run_kernels(&pr, &osa, &osb, MIP_OS_TCP_IDLE_MS - 2000u - (unsigned)(pr.now - t0));
    CHECK_EQ(mip_os_start(&osa, &pc[2], "silent", silent_thread, &c[2], NULL), MIP_OK);
    run_kernels(&pr, &osa, &osb, 500u);
    CHECK(!c[2].connected || c[2].ended);      /* refused: RST */
    CHECK_EQ(e.t.ls.refused, 1u);
    CHECK_EQ(e.t.ls.evicted, 0u);
    run_kernels(&pr, &osa, &osb, 3000u);
    CHECK_EQ(mip_os_start(&osa, &pc[3], "silent", silent_thread, &c[3], NULL), MIP_OK);
    run_kernels(&pr, &osa, &osb, 500u);
    CHECK(c[3].connected && !c[3].ended);
    CHECK_EQ(e.t.ls.evicted, 1u);
    CHECK(c[0].ended && !c[1].ended);          /* the stalest, reset */
    pair_free(&pr);
}

/* mip_loader_symbol bisects the table: out of order, a name is not found. */
static void test_the_loader_symbol_table_is_sorted_and_found(void)
{
    struct mip_loader l;
    size_t i;
    mip_loader_init(&l, NULL, 0, mip_os_loader_symbols, mip_os_loader_n_symbols,
                    MIP_MODULE_ARCH_NONE);
    for (i = 0; i + 1u < mip_os_loader_n_symbols; i++)
        CHECK(strcmp(mip_os_loader_symbols[i].name, mip_os_loader_symbols[i + 1u].name) < 0);
    for (i = 0; i < mip_os_loader_n_symbols; i++)
        CHECK(mip_loader_symbol(&l, mip_os_loader_symbols[i].name, 64) ==
              mip_os_loader_symbols[i].addr);
}

int main(void)
{
    RUN(test_the_loader_symbol_table_is_sorted_and_found);
    RUN(test_http_process_resets_a_connection_that_sends_no_request);
    RUN(test_http_process_resets_a_response_its_client_never_takes);
    RUN(test_a_kernel_listener_gives_a_silent_clients_entry_to_a_new_one);
    RUN(test_discard_process_takes_every_byte_and_its_crc_matches);
    RUN(test_sensor_samples_at_its_period_and_sends_batches);
    RUN(test_sensor_refuses_a_config_it_cannot_run);
    return TESTING_DONE();
}
