/* End-to-end TCP between two stacks over an in-memory link: handshake,
 * bulk transfer with every byte checked, orderly close, and the same under
 * loss. */
#include "tcp_pair.h"

#define RING_MAX 16384
static uint16_t ring = 4096;   /* ring size of the current test */

struct endpoint {
    struct mip_tcp *tcp;
    struct mip_tcp_conn conn;
    uint8_t tx[RING_MAX], rx[RING_MAX], bitmap[RING_MAX / 8];
    uint64_t to_send, sent, received, bad;
    bool connected, closed, peer_closed;
    int error;
    struct mip_tcp_listener listener;
};

static uint8_t pattern(uint64_t i) { return (uint8_t)(i * 7u + (i >> 8)); }

static void ep_fill(struct endpoint *e)
{
    uint8_t buf[512];
    while (e->sent < e->to_send) {
        size_t n = sizeof(buf), k, i;
        if (e->to_send - e->sent < n)
            n = (size_t)(e->to_send - e->sent);
        for (i = 0; i < n; i++)
            buf[i] = pattern(e->sent + i);
        k = mip_tcp_write(e->tcp, &e->conn, buf, n);
        e->sent += k;
        if (k < n)
            break;
    }
    if (e->sent == e->to_send && e->to_send > 0)
        (void)mip_tcp_shutdown(e->tcp, &e->conn);
}

static void cb_connected(void *ctx, struct mip_tcp_conn *c) { struct endpoint *e = ctx; (void)c; e->connected = true; ep_fill(e); }
static void cb_writable(void *ctx, struct mip_tcp_conn *c) { (void)c; ep_fill(ctx); }
static void cb_readable(void *ctx, struct mip_tcp_conn *c)
{
    struct endpoint *e = ctx;
    uint8_t buf[700];
    size_t k, i;
    while ((k = mip_tcp_read(e->tcp, c, buf, sizeof(buf))) > 0) {
        for (i = 0; i < k; i++)
            if (buf[i] != pattern(e->received + i))
                e->bad++;
        e->received += k;
    }
    if (mip_tcp_peer_closed(c) && !e->peer_closed) {
        e->peer_closed = true;
        if (e->to_send == 0)
            (void)mip_tcp_close(e->tcp, c);
    }
}
static void cb_closed(void *ctx, struct mip_tcp_conn *c) { struct endpoint *e = ctx; (void)c; e->closed = true; }
static void cb_error(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why) { struct endpoint *e = ctx; (void)c; e->error = (int)why; }

static const struct mip_tcp_callbacks ep_cb = {
    cb_connected, cb_readable, cb_writable, cb_closed, cb_error
};

static struct mip_tcp_conn *ep_accept(struct mip_tcp_listener *l, struct mip_tcp *tcp,
                                      uint16_t port)
{
    struct endpoint *e = MIP_CONTAINER_OF(l, struct endpoint, listener);
    (void)tcp; (void)port;
    if (e->conn.state != MIP_TCP_CLOSED || e->connected)
        return NULL;
    mip_tcp_conn_init(&e->conn, &ep_cb, e, e->tx, ring, e->rx, e->bitmap, ring);
    e->connected = true;
    return &e->conn;
}

static unsigned drop_period;
static bool drop_every_nth(struct pair *p, int from, unsigned n, const uint8_t *f, size_t len)
{
    (void)p; (void)from; (void)f;
    return drop_period != 0 && len > 100 && n % drop_period == drop_period - 1;
}

static void transfer(bool v6, uint64_t bytes, unsigned drop, bool upload_only)
{
    static struct pair p;
    static struct endpoint cli, srv;
    struct mip_addr dst;
    uint8_t plen;
    pair_init(&p, v6);
    memset(&cli, 0, sizeof(cli));
    memset(&srv, 0, sizeof(srv));
    cli.tcp = &p.side[0].tcp;
    srv.tcp = &p.side[1].tcp;
    cli.to_send = bytes;
    srv.to_send = upload_only ? 0 : bytes / 2;
    drop_period = drop;
    p.drop = drop ? drop_every_nth : NULL;
    CHECK_EQ(mip_tcp_listen(srv.tcp, &srv.listener, 80, ring, ep_accept), MIP_OK);
    mip_tcp_conn_init(&cli.conn, &ep_cb, &cli, cli.tx, ring, cli.rx, cli.bitmap, ring);
    CHECK_EQ(mip_addr_parse(v6 ? "fd00::2" : "192.0.2.2", &dst, &plen), MIP_OK);
    CHECK_EQ(mip_tcp_connect(cli.tcp, &cli.conn, &dst, 80), MIP_OK);
    pair_run(&p, 1, 600000);
    if (!upload_only)
        ep_fill(&srv);
    pair_run(&p, 1, 600000);
    CHECK(cli.connected);
    CHECK(srv.connected);
    CHECK_EQ(srv.received, bytes);
    CHECK_EQ(srv.bad, 0);
    CHECK_EQ(cli.received, upload_only ? 0 : bytes / 2);
    CHECK_EQ(cli.bad, 0);
    CHECK(cli.closed);
    CHECK(srv.closed);
    CHECK_EQ(cli.error, 0);
    CHECK_EQ(srv.error, 0);
    CHECK(cli.tcp->conns == NULL);
    CHECK(srv.tcp->conns == NULL);
    if (drop)
        CHECK(mip_tcp_stat(cli.tcp, MIP_TCP_STAT_rexmits) > 0);
    if (drop && ring >= 16384) {
        CHECK(mip_tcp_stat(cli.tcp, MIP_TCP_STAT_fast_rexmits) > 0);
        /* most losses are repaired without waiting for the timer */
        CHECK(mip_tcp_stat(cli.tcp, MIP_TCP_STAT_timeouts) * 2u <
              mip_tcp_stat(cli.tcp, MIP_TCP_STAT_rexmits));
#if MIP_TCP_SACK
        CHECK(mip_tcp_stat(cli.tcp, MIP_TCP_STAT_sack_rexmits) > 0);
#endif
    }
    fprintf(stderr, "  %s %llu bytes drop 1/%u: %u ms simulated, %u frames lost, "
            "rexmits %u/%u fast %u/%u timeouts %u/%u\n", v6 ? "v6" : "v4",
            (unsigned long long)bytes, drop, (unsigned)(p.now - 5000), p.dropped,
            mip_tcp_stat(cli.tcp, MIP_TCP_STAT_rexmits), mip_tcp_stat(srv.tcp, MIP_TCP_STAT_rexmits),
            mip_tcp_stat(cli.tcp, MIP_TCP_STAT_fast_rexmits), mip_tcp_stat(srv.tcp, MIP_TCP_STAT_fast_rexmits),
            mip_tcp_stat(cli.tcp, MIP_TCP_STAT_timeouts), mip_tcp_stat(srv.tcp, MIP_TCP_STAT_timeouts));
    pair_free(&p);
}

static void test_ipv4_upload_delivers_every_byte(void) { transfer(false, 100000, 0, true); }
static void test_ipv6_upload_delivers_every_byte(void) { transfer(true, 100000, 0, true); }
static void test_both_directions_then_close(void) { transfer(false, 60000, 0, false); }
static void test_upload_under_loss(void) { transfer(false, 100000, 9, true); }
static void test_both_directions_under_loss_v6(void) { transfer(true, 80000, 5, false); }

/* With a window of a dozen segments, a lost segment is repaired by fast
 * retransmit (and SACK where compiled in) rather than by the timer. */
static void test_large_window_loss_uses_fast_retransmit(void)
{
    ring = 16384;
    transfer(true, 400000, 23, true);
    ring = 4096;
}

/* In-order data that reaches an empty ring is read in place during
 * `readable` (struct mip_tcp direct); what the callback leaves is stored
 * in the ring when it returns. Readers that take none, a byte, part or all
 * of each segment in the callback, and the rest later from outside, get
 * every byte in order; the ring counts the segment while the callback
 * runs; nothing is left pending after it. */
struct budget_reader {
    struct endpoint e;
    size_t budget;           /* bytes read per callback; SIZE_MAX: all */
    size_t chunk;
    unsigned in_cb_reads, bad_readable;
    bool close_in_cb;        /* mip_tcp_close after the callback's reads */
};

static void br_take(struct budget_reader *r, struct mip_tcp_conn *c, size_t max)
{
    uint8_t buf[1500];
    size_t k, i;
    while (max > 0) {
        size_t want = max < r->chunk ? max : r->chunk;
        if ((k = mip_tcp_read(r->e.tcp, c, buf, want)) == 0)
            break;
        for (i = 0; i < k; i++)
            r->e.bad += buf[i] != pattern(r->e.received + i);
        r->e.received += k;
        max -= k;
    }
}

static void br_readable(void *ctx, struct mip_tcp_conn *c)
{
    struct budget_reader *r = ctx;
    /* the segment's bytes count as held while read in place */
    if (r->e.tcp->direct_conn == c && mip_tcp_readable(c) == 0)
        r->bad_readable++;
    if (r->budget > 0)
        r->in_cb_reads++;
    br_take(r, c, r->budget);
    if (r->close_in_cb && c->state != MIP_TCP_CLOSED)
        (void)mip_tcp_close(r->e.tcp, c);
}

static void br_closed(void *ctx, struct mip_tcp_conn *c) { struct budget_reader *r = ctx; (void)c; r->e.closed = true; }

static const struct mip_tcp_callbacks br_cb = { NULL, br_readable, NULL, br_closed, cb_error };

static struct mip_tcp_conn *br_accept(struct mip_tcp_listener *l, struct mip_tcp *tcp, uint16_t port)
{
    struct budget_reader *r = MIP_CONTAINER_OF(l, struct budget_reader, e.listener);
    (void)tcp; (void)port;
    mip_tcp_conn_init(&r->e.conn, &br_cb, r, r->e.tx, ring, r->e.rx, r->e.bitmap, ring);
    return &r->e.conn;
}

static void test_partial_reads_in_callback_keep_every_byte(void)
{
    static const struct { size_t budget, chunk; } rows[] = {
        {0, 512},           /* nothing in the callback: all stored, read later */
        {1, 1},             /* one byte, the rest stored */
        {300, 97},          /* part, in odd pieces */
        {SIZE_MAX, 700},    /* everything, never stored */
        {SIZE_MAX, 1500},
    };
    static struct pair p;
    static struct endpoint cli;
    static struct budget_reader srv;
    unsigned i;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const uint64_t bytes = 50000;
        struct mip_addr dst;
        uint8_t plen;
        unsigned rounds;
        pair_init(&p, true);
        memset(&cli, 0, sizeof(cli));
        memset(&srv, 0, sizeof(srv));
        cli.tcp = &p.side[0].tcp;
        srv.e.tcp = &p.side[1].tcp;
        srv.budget = rows[i].budget;
        srv.chunk = rows[i].chunk;
        cli.to_send = bytes;
        CHECK_EQ(mip_tcp_listen(srv.e.tcp, &srv.e.listener, 80, ring, br_accept), MIP_OK);
        mip_tcp_conn_init(&cli.conn, &ep_cb, &cli, cli.tx, ring, cli.rx, cli.bitmap, ring);
        CHECK_EQ(mip_addr_parse("fd00::2", &dst, &plen), MIP_OK);
        CHECK_EQ(mip_tcp_connect(cli.tcp, &cli.conn, &dst, 80), MIP_OK);
        for (rounds = 0; rounds < 2000 && !srv.e.closed; rounds++) {
            mip_time_t end = p.now + 20;
            pair_run(&p, 1, 20);
            if (mip_time_before(p.now, end))
                p.now = end;     /* a delayed ACK or a timer further off */
            CHECK(srv.e.tcp->direct_conn == NULL);
            /* the rest from outside any callback, from the ring */
            if (srv.e.conn.state != MIP_TCP_CLOSED) {
                br_take(&srv, &srv.e.conn, 1000);
                if (mip_tcp_peer_closed(&srv.e.conn))
                    (void)mip_tcp_close(srv.e.tcp, &srv.e.conn);
            }
        }
        pair_run(&p, 1, 5000);
        CHECK_EQ(srv.e.received, bytes);
        CHECK_EQ(srv.e.bad, 0);
        CHECK_EQ(srv.bad_readable, 0);
        CHECK(srv.e.closed);
        CHECK(cli.closed);
        CHECK_EQ(srv.e.error, 0);
        CHECK(rows[i].budget == 0 || srv.in_cb_reads > 0);
        pair_free(&p);
    }
}

/* An application that closes inside `readable` with part of the segment
 * unread aborts the connection (RST, RFC 1122 4.2.2.13); the bytes it left
 * are still in the ring afterwards, as they were before in-place reads
 * (fuzz_tcp reads them after `closed`). */
static void test_close_in_callback_leaves_unread_bytes_readable(void)
{
    static struct pair p;
    static struct endpoint cli;
    static struct budget_reader srv;
    struct mip_addr dst;
    uint8_t plen;
    uint8_t buf[2000];
    size_t k, i, bad = 0;
    pair_init(&p, true);
    memset(&cli, 0, sizeof(cli));
    memset(&srv, 0, sizeof(srv));
    cli.tcp = &p.side[0].tcp;
    srv.e.tcp = &p.side[1].tcp;
    srv.budget = 100;
    srv.chunk = 100;
    srv.close_in_cb = true;
    cli.to_send = 512;               /* one segment */
    CHECK_EQ(mip_tcp_listen(srv.e.tcp, &srv.e.listener, 80, ring, br_accept), MIP_OK);
    mip_tcp_conn_init(&cli.conn, &ep_cb, &cli, cli.tx, ring, cli.rx, cli.bitmap, ring);
    CHECK_EQ(mip_addr_parse("fd00::2", &dst, &plen), MIP_OK);
    CHECK_EQ(mip_tcp_connect(cli.tcp, &cli.conn, &dst, 80), MIP_OK);
    pair_run(&p, 1, 2000);
    CHECK(srv.e.closed);
    CHECK_EQ(srv.e.error, MIP_TCP_ERR_ABORTED);
    CHECK_EQ(srv.e.received, 100);
    CHECK(srv.e.tcp->direct_conn == NULL);
    CHECK_EQ(mip_tcp_readable(&srv.e.conn), 412);
    k = mip_tcp_read(srv.e.tcp, &srv.e.conn, buf, sizeof(buf));
    CHECK_EQ(k, 412);
    for (i = 0; i < k; i++)
        bad += buf[i] != pattern(100 + i);
    CHECK_EQ(bad, 0);
    pair_free(&p);
}

int main(void)
{
#if MIP_CONF_IPV4
    RUN(test_ipv4_upload_delivers_every_byte);
    RUN(test_both_directions_then_close);
    RUN(test_upload_under_loss);
#endif
    RUN(test_ipv6_upload_delivers_every_byte);
    RUN(test_both_directions_under_loss_v6);
    RUN(test_large_window_loss_uses_fast_retransmit);
    RUN(test_partial_reads_in_callback_keep_every_byte);
    RUN(test_close_in_callback_leaves_unread_bytes_readable);
    return TESTING_DONE();
}
