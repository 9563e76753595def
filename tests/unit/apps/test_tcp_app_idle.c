/*
 * Echo, discard and chargen against clients that hold their slots
 * (apps/tcp_app.h, MIP_TCP_APP_IDLE_MS). Before, MIP_TCP_APP_CONNS clients
 * that connected and said nothing (1 on the tiny profile), or a chargen
 * client that stopped reading, refused every later client for as long as
 * they stayed: no timer ends an idle connection whose peer is alive. Now a
 * new client takes the slot of the connection that moved no byte for the
 * longest, once that is MIP_TCP_APP_IDLE_MS; one that moves bytes keeps
 * its slot. Two stacks in memory (../tcp/tcp_pair.h): side 0 the clients,
 * side 1 the services.
 */
#include "../tcp/tcp_pair.h"
#include "tcp_chargen.h"
#include "tcp_discard.h"
#include "tcp_echo.h"

#define CLIENTS (MIP_TCP_APP_CONNS + 1u)
#define NEW (CLIENTS - 1u)              /* the client that arrives later */

struct client {
    struct mip_tcp_conn conn;
    uint8_t tx[256], rx[256];
    bool reads;                         /* reads what arrives */
    bool failed, closed;
    size_t got;
};

static struct mip_tcp *client_tcp;

static void cl_read(void *ctx, struct mip_tcp_conn *c)
{
    struct client *k = ctx;
    uint8_t buf[256];
    size_t n;
    if (!k->reads)
        return;
    while ((n = mip_tcp_read(client_tcp, c, buf, sizeof(buf))) > 0)
        k->got += n;
}

static void cl_error(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why)
{
    struct client *k = ctx;
    (void)c;
    (void)why;
    k->failed = true;
}

static void cl_closed(void *ctx, struct mip_tcp_conn *c)
{
    struct client *k = ctx;
    (void)c;
    k->closed = true;
}

static const struct mip_tcp_callbacks cl_cb = {
    .readable = cl_read, .closed = cl_closed, .error = cl_error,
};

struct world {
    struct pair p;
    struct mip_tcp_echo echo;
    struct mip_tcp_discard discard;
    struct mip_tcp_chargen chargen;
    struct client cl[CLIENTS];
};

static void world_init(struct world *w)
{
    pair_init(&w->p, true);
    client_tcp = &w->p.side[0].tcp;
    memset(w->cl, 0, sizeof(w->cl));
    CHECK_EQ(mip_tcp_echo_start(&w->echo, &w->p.side[1].tcp, MIP_TCP_ECHO_PORT), MIP_OK);
    CHECK_EQ(mip_tcp_discard_start(&w->discard, &w->p.side[1].tcp, MIP_TCP_DISCARD_PORT),
             MIP_OK);
    CHECK_EQ(mip_tcp_chargen_start(&w->chargen, &w->p.side[1].tcp, MIP_TCP_CHARGEN_PORT),
             MIP_OK);
}

static const struct mip_tcp_server *server_of(const struct world *w, uint16_t port)
{
    return port == MIP_TCP_ECHO_PORT      ? &w->echo.srv
           : port == MIP_TCP_DISCARD_PORT ? &w->discard.srv
                                          : &w->chargen.srv;
}

/* Runs both stacks until `end` (pair_run stops early when the next timer
 * is further away). */
static void run_until(struct world *w, mip_time_t end)
{
    pair_run(&w->p, 100, end - w->p.now);
    if (mip_time_before(w->p.now, end))
        w->p.now = end;
}

static void connect_client(struct world *w, unsigned i, uint16_t port, bool reads)
{
    struct client *k = &w->cl[i];
    struct mip_addr dst;
    uint8_t plen;
    if (k->conn.state != MIP_TCP_CLOSED)
        mip_tcp_abort(client_tcp, &k->conn);
    memset(k, 0, sizeof(*k));
    k->reads = reads;
    mip_tcp_conn_init(&k->conn, &cl_cb, k, k->tx, sizeof(k->tx), k->rx, NULL, sizeof(k->rx));
    CHECK_EQ(mip_addr_parse("fd00::2", &dst, &plen), MIP_OK);
    CHECK_EQ(mip_tcp_connect(client_tcp, &k->conn, &dst, port), MIP_OK);
    pair_run(&w->p, 1, 200);
}

static void world_free(struct world *w)
{
    unsigned i;
    mip_tcp_echo_stop(&w->echo);
    mip_tcp_discard_stop(&w->discard);
    mip_tcp_chargen_stop(&w->chargen);
    for (i = 0; i < CLIENTS; i++)
        if (w->cl[i].conn.state != MIP_TCP_CLOSED)
            mip_tcp_abort(client_tcp, &w->cl[i].conn);
    pair_run(&w->p, 1, 100);
    pair_free(&w->p);
}

/* Every slot of the service at `port` held by a client that says nothing
 * (echo, discard; client 0 the first) or stops reading (chargen: its
 * stream stalls when the windows close); a new client is refused while
 * none has moved no byte for MIP_TCP_APP_IDLE_MS, then takes the slot of
 * the stalest. */
static void silent_clients_give_way(uint16_t port)
{
    static struct world w;
    const struct mip_tcp_server *srv;
    mip_time_t t;
    unsigned i, reset = 0;
    world_init(&w);
    srv = server_of(&w, port);
    t = w.p.now;                        /* echo, discard: client 0's accept */
    for (i = 0; i < MIP_TCP_APP_CONNS; i++) {
        connect_client(&w, i, port, port == MIP_TCP_CHARGEN_PORT);
        w.p.now += 1000u;               /* client 0 is the stalest */
    }
    CHECK_EQ(srv->active, MIP_TCP_APP_CONNS);
    for (i = 0; i < MIP_TCP_APP_CONNS; i++)
        w.cl[i].reads = false;
    if (port == MIP_TCP_CHARGEN_PORT)
        t = w.p.now;                    /* the streams stall soon after this */
    run_until(&w, t + MIP_TCP_APP_IDLE_MS - 2000u);
    connect_client(&w, NEW, port, false);
    CHECK(w.cl[NEW].failed);            /* refused: RST */
    CHECK_EQ(srv->refused, 1);
    CHECK_EQ(srv->evicted, 0);
    run_until(&w, t + MIP_TCP_APP_IDLE_MS + 5000u);
    connect_client(&w, NEW, port, false);
    CHECK(!w.cl[NEW].failed && w.cl[NEW].conn.state == MIP_TCP_ESTABLISHED);
    CHECK_EQ(srv->evicted, 1);
    for (i = 0; i < MIP_TCP_APP_CONNS; i++)
        reset += w.cl[i].failed;
    CHECK_EQ(reset, 1);                 /* the stalest, one only */
    if (port != MIP_TCP_CHARGEN_PORT)
        CHECK(w.cl[0].failed);
    CHECK_EQ(srv->active, MIP_TCP_APP_CONNS);
    world_free(&w);
}

static void test_silent_echo_clients_give_way_after_the_idle_time(void)
{
    silent_clients_give_way(MIP_TCP_ECHO_PORT);
}

static void test_silent_discard_clients_give_way_after_the_idle_time(void)
{
    silent_clients_give_way(MIP_TCP_DISCARD_PORT);
}

static void test_chargen_clients_that_stop_reading_give_way_after_the_idle_time(void)
{
    silent_clients_give_way(MIP_TCP_CHARGEN_PORT);
}

/* Client 0 echoes a byte every 20 s; the others in the table say nothing.
 * For five minutes a new client comes every 30 s: it takes a silent one's
 * slot once that has been idle a minute (or is refused), never client 0's. */
static void test_an_echo_client_that_moves_bytes_keeps_its_slot(void)
{
    static struct world w;
    unsigned i, round;
    world_init(&w);
    for (i = 0; i < MIP_TCP_APP_CONNS; i++)
        connect_client(&w, i, MIP_TCP_ECHO_PORT, true);
    for (round = 0; round < 10; round++) {
        CHECK_EQ(mip_tcp_write(client_tcp, &w.cl[0].conn, (const uint8_t *)"x", 1), 1);
        run_until(&w, w.p.now + 20000u);
        CHECK_EQ(w.cl[0].got, round + 1u);          /* echoed */
        run_until(&w, w.p.now + 10000u);
        connect_client(&w, NEW, MIP_TCP_ECHO_PORT, true);
    }
    CHECK(!w.cl[0].failed);
    CHECK_EQ(w.cl[0].conn.state, MIP_TCP_ESTABLISHED);
    if (MIP_TCP_APP_CONNS == 1u) {
        CHECK_EQ(w.echo.srv.refused, 10u);
        CHECK_EQ(w.echo.srv.evicted, 0);
    } else {
        CHECK(w.echo.srv.evicted >= 1u);        /* silent ones went */
    }
    world_free(&w);
}

/* A silent echo client left alone for 30 days (past half the ms clock's
 * wrap) with no other client meanwhile: the next arrival still reads its
 * stamp as old (held within the horizon), not as one from the future. */
static void test_a_client_silent_past_half_the_wrap_gives_way(void)
{
    static struct world w;
    unsigned i;
    world_init(&w);
    for (i = 0; i < MIP_TCP_APP_CONNS; i++)
        connect_client(&w, i, MIP_TCP_ECHO_PORT, true);
    w.p.now += 30u * 86400000u;
    connect_client(&w, NEW, MIP_TCP_ECHO_PORT, false);
    CHECK(!w.cl[NEW].failed && w.cl[NEW].conn.state == MIP_TCP_ESTABLISHED);
    CHECK_EQ(w.echo.srv.evicted, 1);
    world_free(&w);
}

int main(void)
{
    RUN(test_silent_echo_clients_give_way_after_the_idle_time);
    RUN(test_silent_discard_clients_give_way_after_the_idle_time);
    RUN(test_chargen_clients_that_stop_reading_give_way_after_the_idle_time);
    RUN(test_an_echo_client_that_moves_bytes_keeps_its_slot);
    RUN(test_a_client_silent_past_half_the_wrap_gives_way);
    return TESTING_DONE();
}
