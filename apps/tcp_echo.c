/* TCP echo service (RFC 862). See tcp_echo.h. */
#include "tcp_echo.h"

#include <string.h>

#include "moteip/stack.h"

/* Moves as much as fits from the receive ring to the send ring; closes once
 * the peer has closed and everything was queued. */
static void echo_pump(struct mip_tcp_echo_conn *ec)
{
    struct mip_tcp_echo *e = ec->app;
    struct mip_tcp_conn *c = &ec->mem.conn;
    uint8_t buf[MIP_TCP_APP_CHUNK];

    for (;;) {
        size_t n = mip_tcp_readable(c), room = mip_tcp_writable(c), got, put;

        if (n > room)
            n = room;
        if (n > sizeof(buf))
            n = sizeof(buf);
        if (n == 0)
            break;
        got = mip_tcp_read(e->srv.tcp, c, buf, n);
        if (got == 0)
            break;
        ec->mem.moved = e->srv.tcp->stack->now;
        put = mip_tcp_write(e->srv.tcp, c, buf, got);
        e->bytes += put;
        if (put < got)   /* cannot happen: `room` was checked */
            break;
    }
    if (ec->mem.used && mip_tcp_peer_closed(c))
        (void)mip_tcp_close(e->srv.tcp, c);
}

static void echo_readable(void *ctx, struct mip_tcp_conn *c)
{
    (void)c;
    echo_pump(ctx);
}

static void echo_writable(void *ctx, struct mip_tcp_conn *c)
{
    (void)c;
    echo_pump(ctx);
}

static void echo_error(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why)
{
    struct mip_tcp_echo_conn *ec = ctx;

    (void)c;
    (void)why;
    ec->app->srv.errors++;
}

static void echo_closed(void *ctx, struct mip_tcp_conn *c)
{
    struct mip_tcp_echo_conn *ec = ctx;

    (void)c;
    mip_tcp_server_closed(&ec->app->srv, &ec->mem);
}

static const struct mip_tcp_callbacks echo_cb = {
    .readable = echo_readable,
    .writable = echo_writable,
    .closed = echo_closed,
    .error = echo_error,
};

static struct mip_tcp_conn *echo_accept(struct mip_tcp_listener *l, struct mip_tcp *tcp,
                                        uint16_t port)
{
    struct mip_tcp_echo *e = MIP_CONTAINER_OF(l, struct mip_tcp_echo, srv.listener);
    struct mip_tcp_app_slot *m =
        mip_tcp_server_free_slot(&e->srv, &e->conns[0].mem, sizeof(e->conns[0]),
                                 MIP_TCP_APP_IDLE_MS);
    struct mip_tcp_echo_conn *ec;

    (void)tcp;
    (void)port;
    if (m == NULL)
        return NULL;
    ec = MIP_CONTAINER_OF(m, struct mip_tcp_echo_conn, mem);
    ec->app = e;
    return mip_tcp_app_slot_take(&ec->mem, &echo_cb, ec);
}

mip_status mip_tcp_echo_start(struct mip_tcp_echo *e, struct mip_tcp *tcp, uint16_t port)
{
    if (e == NULL || tcp == NULL)
        return MIP_ERR_INVALID;
    memset(e, 0, sizeof(*e));
    return mip_tcp_server_listen(&e->srv, tcp, port, echo_accept);
}

void mip_tcp_echo_stop(struct mip_tcp_echo *e)
{
    if (e != NULL)
        mip_tcp_server_stop(&e->srv, &e->conns[0].mem, sizeof(e->conns[0]));
}
