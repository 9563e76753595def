/* The blocking BSD-style layer over two stacks joined in memory: the
 * `step` function moves frames and time, so blocking calls on either side
 * make progress. */
#include "tcp/tcp_pair.h"
#include "bsd_socket.h"

static void pair_step(void *ctx, uint32_t max_ms)
{
    struct pair *p = ctx;
    pair_run(p, 1, max_ms < 5u ? max_ms : 5u);
    if (max_ms > 0 && p->side[0].qlen == 0 && p->side[1].qlen == 0)
        p->now += 1;    /* nothing moved: let time pass towards timeouts */
}

static uint32_t pair_now(void *ctx)
{
    return ((struct pair *)ctx)->now;
}

static struct pair p;
static struct mip_bsd b0, b1;

static void setup(void)
{
    pair_init(&p, true);
    mip_bsd_init(&b0, &p.side[0].tcp, pair_step, pair_now, &p);
    mip_bsd_init(&b1, &p.side[1].tcp, pair_step, pair_now, &p);
}

static bool drop_all(struct pair *pp, int from, unsigned n, const uint8_t *f, size_t len)
{
    (void)pp; (void)from; (void)n; (void)f; (void)len;
    return true;
}

static void test_connect_send_recv_close(void)
{
    struct mip_addr dst;
    /* No more than the send ring holds: a single thread cannot block in
     * send while the peer is not yet reading. */
    enum { N = MIP_TCP_APP_TX_SIZE < 3000 ? MIP_TCP_APP_TX_SIZE : 3000 };
    uint8_t out[N], in[N];
    long got = 0, k;
    int ls, c, a;
    size_t i;
    setup();
    CHECK_EQ(mip_addr_parse("fd00::2", &dst, NULL), MIP_OK);
    ls = mip_bsd_listen(&b1, 80);
    CHECK(ls >= 0);
    c = mip_bsd_connect(&b0, &dst, 80, 5000);
    CHECK(c >= 0);
    a = mip_bsd_accept(&b1, ls, 5000);
    CHECK(a >= 0);
    for (i = 0; i < sizeof(out); i++)
        out[i] = (uint8_t)(i * 13u);
    CHECK_EQ(mip_bsd_send(&b0, c, out, sizeof(out), 5000), (long)sizeof(out));
    while (got < (long)sizeof(in) && (k = mip_bsd_recv(&b1, a, in + got, sizeof(in) - (size_t)got, 5000)) > 0)
        got += k;
    CHECK_EQ(got, (long)sizeof(in));
    CHECK_MEM(in, out, sizeof(out));
    /* The reply travels back; then orderly close from both ends. */
    CHECK_EQ(mip_bsd_send(&b1, a, "pong", 4, 5000), 4);
    CHECK_EQ(mip_bsd_recv(&b0, c, in, sizeof(in), 5000), 4);
    CHECK_MEM(in, "pong", 4);
    CHECK_EQ(mip_bsd_close(&b0, c), 0);
    CHECK_EQ(mip_bsd_recv(&b1, a, in, sizeof(in), 5000), 0);     /* end of stream */
    CHECK_EQ(mip_bsd_close(&b1, a), 0);
    CHECK_EQ(mip_bsd_close(&b1, ls), 0);
    pair_run(&p, 1, 3u * MIP_TCP_MSL_MS);
    CHECK_EQ(b0.sock[c].kind, 0);                /* memory given back */
    CHECK_EQ(b1.sock[a].kind, 0);
    pair_free(&p);
}

static void test_connect_to_closed_port_is_refused(void)
{
    struct mip_addr dst;
    setup();
    CHECK_EQ(mip_addr_parse("fd00::2", &dst, NULL), MIP_OK);
    CHECK_EQ(mip_bsd_connect(&b0, &dst, 81, 5000), MIP_BSD_ECONNREFUSED);
    CHECK_EQ(b0.sock[0].kind, 0);
    pair_free(&p);
}

static void test_connect_to_black_hole_times_out(void)
{
    struct mip_addr dst;
    uint32_t t0;
    setup();
    t0 = p.now;
    p.drop = drop_all;
    CHECK_EQ(mip_addr_parse("fd00::2", &dst, NULL), MIP_OK);
    CHECK_EQ(mip_bsd_connect(&b0, &dst, 80, 3000), MIP_BSD_ETIMEDOUT);
    CHECK(p.now - t0 >= 3000u);   /* (relative: the clock may start anywhere) */
    CHECK(p.side[0].tcp.conns == NULL);          /* aborted, not left behind */
    pair_free(&p);
}

static void test_bad_arguments(void)
{
    uint8_t buf[4];
    setup();
    CHECK_EQ(mip_bsd_send(&b0, -1, buf, 1, 10), MIP_BSD_EINVAL);
    CHECK_EQ(mip_bsd_recv(&b0, MIP_BSD_SOCKETS, buf, 1, 10), MIP_BSD_EINVAL);
    CHECK_EQ(mip_bsd_accept(&b0, 0, 10), MIP_BSD_EINVAL);   /* not listening */
    CHECK_EQ(mip_bsd_close(&b0, 2), MIP_BSD_EINVAL);
    CHECK(mip_bsd_listen(&b0, 80) >= 0);
    CHECK_EQ(mip_bsd_listen(&b0, 80), MIP_BSD_EADDRINUSE);
    pair_free(&p);
}

int main(void)
{
#if MIP_CONF_IPV6
    RUN(test_connect_send_recv_close);
    RUN(test_connect_to_closed_port_is_refused);
    RUN(test_connect_to_black_hole_times_out);
    RUN(test_bad_arguments);
#endif
    return TESTING_DONE();
}
