/*
 * The HTTP server against idle connections (apps/http_server.h): a client
 * that connects while every slot holds a connection that sent nothing is
 * served (the idlest is reset), connections waiting past
 * MIP_HTTP_REQUEST_TIMEOUT_MS are reset when a new one comes, and a
 * connection sending a response is not reset for a new one while its
 * client takes bytes. Before, MIP_TCP_APP_CONNS idle connections refused
 * every client (issue 24: eight locked clients out for >= 75 s), and
 * clients that asked for a long body and never opened their window did so
 * for good; now they are reset once their response has stalled for
 * MIP_HTTP_SEND_TIMEOUT_MS. Two stacks in memory (../tcp/tcp_pair.h):
 * side 0 the clients, side 1 the server.
 */
#include "../tcp/tcp_pair.h"
#include "http_server.h"

#define CLIENTS (MIP_TCP_APP_CONNS + 1u)

struct client {
    struct mip_tcp_conn conn;
    uint8_t tx[256];
    uint8_t rx[512];
    size_t got;             /* bytes read */
    bool ok_seen;           /* "HTTP/1.1 200" at the start */
    bool closed, failed;
    uint8_t head[16];       /* the first bytes read */
};

static struct mip_tcp *client_tcp;  /* the clients' TCP, for reads in callbacks */

static void cl_read(void *ctx, struct mip_tcp_conn *c)
{
    struct client *k = ctx;
    uint8_t buf[512];
    size_t n;
    while ((n = mip_tcp_read(client_tcp, c, buf, sizeof(buf))) > 0) {
        size_t i;
        for (i = 0; i < n && k->got + i < sizeof(k->head); i++)
            k->head[k->got + i] = buf[i];
        k->got += n;
        if (k->got >= 12 && memcmp(k->head, "HTTP/1.1 200", 12) == 0)
            k->ok_seen = true;
    }
}

static void cl_closed(void *ctx, struct mip_tcp_conn *c)
{
    struct client *k = ctx;
    (void)c;
    k->closed = true;
}

static void cl_error(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why)
{
    struct client *k = ctx;
    (void)c;
    (void)why;
    k->failed = true;
}

static const struct mip_tcp_callbacks cl_cb = {
    .readable = cl_read, .closed = cl_closed, .error = cl_error,
};

/* A client that does not read: the server's response stalls on its
 * window, so the server stays mid-response. */
static const struct mip_tcp_callbacks cl_cb_stuck = {
    .closed = cl_closed, .error = cl_error,
};

struct world {
    struct pair p;
    struct mip_http_server http;
    struct client cl[CLIENTS];
};

static void world_init(struct world *w)
{
    pair_init(&w->p, true);        /* IPv6: every profile has it */
    client_tcp = &w->p.side[0].tcp;
    memset(&w->http, 0, sizeof(w->http));
    memset(w->cl, 0, sizeof(w->cl));
    CHECK_EQ(mip_http_server_start(&w->http, &w->p.side[1].tcp, 80), MIP_OK);
}

static void connect_client(struct world *w, unsigned i, const struct mip_tcp_callbacks *cb)
{
    struct client *k = &w->cl[i];
    struct mip_addr dst;
    uint8_t plen;
    memset(k, 0, sizeof(*k));
    mip_tcp_conn_init(&k->conn, cb, k, k->tx, sizeof(k->tx), k->rx, NULL, sizeof(k->rx));
    CHECK_EQ(mip_addr_parse("fd00::2", &dst, &plen), MIP_OK);
    CHECK_EQ(mip_tcp_connect(&w->p.side[0].tcp, &k->conn, &dst, 80), MIP_OK);
    pair_run(&w->p, 1, 200);
}

static void request(struct world *w, unsigned i, const char *path)
{
    char req[96];
    int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: m\r\n\r\n", path);
    CHECK_EQ(mip_tcp_write(&w->p.side[0].tcp, &w->cl[i].conn, (const uint8_t *)req, (size_t)n),
             (size_t)n);
    pair_run(&w->p, 1, 500);
}

static void world_free(struct world *w)
{
    unsigned i;
    mip_http_server_stop(&w->http);
    for (i = 0; i < CLIENTS; i++)
        if (w->cl[i].conn.state != MIP_TCP_CLOSED)
            mip_tcp_abort(&w->p.side[0].tcp, &w->cl[i].conn);
    pair_run(&w->p, 1, 100);
    pair_free(&w->p);
}

static void test_idle_connections_do_not_lock_a_client_out(void)
{
    static struct world w;
    unsigned i;
    world_init(&w);
    for (i = 0; i < MIP_TCP_APP_CONNS; i++) {
        connect_client(&w, i, &cl_cb);
        w.p.now += 10;      /* client 0 is the idlest */
    }
    CHECK_EQ(w.http.srv.active, MIP_TCP_APP_CONNS);
    connect_client(&w, CLIENTS - 1u, &cl_cb);
    CHECK_EQ(w.http.srv.refused, 0);
    CHECK_EQ(w.http.srv.evicted, 1);
    CHECK(w.cl[0].failed);                  /* reset */
    for (i = 1; i < MIP_TCP_APP_CONNS; i++)
        CHECK(!w.cl[i].failed);
    request(&w, CLIENTS - 1u, "/bytes/100");
    CHECK(w.cl[CLIENTS - 1u].ok_seen);
    CHECK_EQ(w.http.status_2xx, 1);
    world_free(&w);
}

static void test_connections_waiting_past_the_timeout_are_reset(void)
{
    static struct world w;
    if (MIP_TCP_APP_CONNS < 4) {
        SKIP("needs four connections at once");
        return;
    }
    world_init(&w);
    connect_client(&w, 0, &cl_cb);
    connect_client(&w, 1, &cl_cb);
    request(&w, 1, "/bytes/10");            /* answered: waits for the next */
    CHECK(w.cl[1].ok_seen);
    w.p.now += MIP_HTTP_REQUEST_TIMEOUT_MS - 1000u;
    connect_client(&w, 2, &cl_cb);          /* not yet */
    CHECK_EQ(w.http.timeouts, 0);
    w.p.now += 1100u;
    connect_client(&w, 3, &cl_cb);
    CHECK_EQ(w.http.timeouts, 2);           /* clients 0 and 1 */
    CHECK(w.cl[0].failed && w.cl[1].failed);
    CHECK(!w.cl[2].failed && !w.cl[3].failed);
    CHECK_EQ(w.http.srv.evicted, 0);
    world_free(&w);
}

/* A connection left waiting for 30 days (past half the ms clock's wrap) with
 * no other client meanwhile: the next client's arrival still reads it as
 * long idle and resets it, rather than comparing a stale stamp (issue 24). */
static void test_a_connection_idle_past_half_the_wrap_is_reset(void)
{
    static struct world w;
    world_init(&w);
    connect_client(&w, 0, &cl_cb);
    w.p.now += 30u * 86400000u;
    connect_client(&w, 1, &cl_cb);
    CHECK_EQ(w.http.timeouts, 1);
    CHECK(w.cl[0].failed && !w.cl[1].failed);
    world_free(&w);
}

/* Runs both stacks for ms of simulated time (pair_run stops early when
 * the next timer, a backed-off window probe, is due later than that). */
static void run_until(struct world *w, mip_time_t end)
{
    pair_run(&w->p, 100, end - w->p.now);
    if (mip_time_before(w->p.now, end))
        w->p.now = end;
}

/* Fills every slot with a client that asks for a long body and does not
 * read it: the server's response stalls on the client's window. */
static void fill_with_stuck_readers(struct world *w)
{
    unsigned i;
    for (i = 0; i < MIP_TCP_APP_CONNS; i++) {
        connect_client(w, i, &cl_cb_stuck);
        request(w, i, "/bytes/1000000");
    }
}

static void test_a_response_in_progress_is_not_reset_before_the_send_timeout(void)
{
    static struct world w;
    unsigned i;
    mip_time_t t0;
    world_init(&w);
    t0 = w.p.now;           /* no response moved before */
    fill_with_stuck_readers(&w);
    /* past the request timeout twice, one second short of the send timeout */
    run_until(&w, t0 + MIP_HTTP_SEND_TIMEOUT_MS - 1500u);
    connect_client(&w, CLIENTS - 1u, &cl_cb);
    CHECK(MIP_HTTP_SEND_TIMEOUT_MS - 1500u > 2u * MIP_HTTP_REQUEST_TIMEOUT_MS);
    CHECK_EQ(w.http.srv.evicted, 0);
    CHECK_EQ(w.http.timeouts, 0);
    CHECK_EQ(w.http.srv.refused, 1);
    for (i = 0; i < MIP_TCP_APP_CONNS; i++)
        CHECK(!w.cl[i].failed);
    CHECK(w.cl[CLIENTS - 1u].failed);       /* refused: RST */
    world_free(&w);
}

/* A client that never opens its window held its slot for good (TCP must
 * keep a connection whose peer answers its window probes): MIP_TCP_APP_CONNS
 * such clients locked every other one out (1 on the tiny profile). */
static void test_a_response_stalled_past_the_send_timeout_is_reset_for_a_new_client(void)
{
    static struct world w;
    unsigned i;
    world_init(&w);
    fill_with_stuck_readers(&w);
    run_until(&w, w.p.now + MIP_HTTP_SEND_TIMEOUT_MS + 1000u);
    connect_client(&w, CLIENTS - 1u, &cl_cb);
    CHECK_EQ(w.http.srv.refused, 0);
    CHECK_EQ(w.http.timeouts, MIP_TCP_APP_CONNS);
    CHECK_EQ(w.http.srv.evicted, 0);
    for (i = 0; i < MIP_TCP_APP_CONNS; i++)
        CHECK(w.cl[i].failed);              /* reset */
    request(&w, CLIENTS - 1u, "/bytes/100");
    CHECK(w.cl[CLIENTS - 1u].ok_seen);
    world_free(&w);
}

/* A slow reader whose response moves (it reads every 30 s) keeps its slot
 * for minutes, however many clients come; once it stops, a minute later
 * the next client gets the slot. */
static void test_a_slow_reader_keeps_its_slot_while_it_takes_bytes(void)
{
    static struct world w;
    uint8_t buf[512];
    unsigned i, round;
    world_init(&w);
    fill_with_stuck_readers(&w);
    for (round = 0; round < 10; round++) {
        run_until(&w, w.p.now + 30000u);
        for (i = 0; i < MIP_TCP_APP_CONNS; i++)
            while (mip_tcp_read(&w.p.side[0].tcp, &w.cl[i].conn, buf, sizeof(buf)) > 0)
                ;
        pair_run(&w.p, 1, 500);
        connect_client(&w, CLIENTS - 1u, &cl_cb);
        CHECK(w.cl[CLIENTS - 1u].failed);   /* refused */
    }
    CHECK_EQ(w.http.srv.refused, 10);
    CHECK_EQ(w.http.timeouts, 0);
    for (i = 0; i < MIP_TCP_APP_CONNS; i++)
        CHECK(!w.cl[i].failed);
    run_until(&w, w.p.now + MIP_HTTP_SEND_TIMEOUT_MS + 1000u);
    connect_client(&w, CLIENTS - 1u, &cl_cb);
    CHECK(!w.cl[CLIENTS - 1u].failed);
    CHECK_EQ(w.http.timeouts, MIP_TCP_APP_CONNS);
    world_free(&w);
}

/* Responses stalled for 30 days (past half the ms clock's wrap) with no
 * client meanwhile: the send clock (the slot's `moved`) is held within the
 * horizon, so the next client still finds them stalled and is served. */
static void test_a_response_stalled_past_half_the_wrap_is_reset(void)
{
    static struct world w;
    world_init(&w);
    fill_with_stuck_readers(&w);
    run_until(&w, w.p.now + 5000u);
    w.p.now += 30u * 86400000u;
    connect_client(&w, CLIENTS - 1u, &cl_cb);
    CHECK_EQ(w.http.srv.refused, 0);
    CHECK_EQ(w.http.timeouts, MIP_TCP_APP_CONNS);
    world_free(&w);
}

int main(void)
{
    RUN(test_idle_connections_do_not_lock_a_client_out);
    RUN(test_connections_waiting_past_the_timeout_are_reset);
    RUN(test_a_connection_idle_past_half_the_wrap_is_reset);
    RUN(test_a_response_in_progress_is_not_reset_before_the_send_timeout);
    RUN(test_a_response_stalled_past_the_send_timeout_is_reset_for_a_new_client);
    RUN(test_a_slow_reader_keeps_its_slot_while_it_takes_bytes);
    RUN(test_a_response_stalled_past_half_the_wrap_is_reset);
    return TESTING_DONE();
}
