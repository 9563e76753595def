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
    return TESTING_DONE();
}
