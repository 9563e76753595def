/* TCP echo service (RFC 862). See tcp_echo.h. */
#include "tcp_echo.h"

#include <string.h>

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
        got = mip_tcp_read(e->tcp, c, buf, n);
        if (got == 0)
            break;
        put = mip_tcp_write(e->tcp, c, buf, got);
        e->bytes += put;
        if (put < got)   /* cannot happen: `room` was checked */
            break;
    }
    if (ec->mem.used && mip_tcp_peer_closed(c))
        (void)mip_tcp_close(e->tcp, c);
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
    ec->app->errors++;
}

static void echo_closed(void *ctx, struct mip_tcp_conn *c)
{
    struct mip_tcp_echo_conn *ec = ctx;

    (void)c;
    ec->mem.used = false;
    ec->app->active--;
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
    struct mip_tcp_echo *e = MIP_CONTAINER_OF(l, struct mip_tcp_echo, listener);
    unsigned i;

    (void)tcp;
    (void)port;
    for (i = 0; i < MIP_TCP_APP_CONNS; i++) {
        struct mip_tcp_echo_conn *ec = &e->conns[i];
        if (!ec->mem.used) {
            ec->app = e;
            e->accepted++;
            e->active++;
            return mip_tcp_app_slot_take(&ec->mem, &echo_cb, ec);
        }
    }
    e->refused++;
    return NULL;
}

mip_status mip_tcp_echo_start(struct mip_tcp_echo *e, struct mip_tcp *tcp, uint16_t port)
{
    mip_status st;

    if (e == NULL || tcp == NULL)
        return MIP_ERR_INVALID;
    memset(e, 0, sizeof(*e));
    e->tcp = tcp;
    st = mip_tcp_listen(tcp, &e->listener, port, MIP_TCP_APP_RX_SIZE, echo_accept);
    if (st == MIP_OK)
        e->port = port;
    return st;
}

void mip_tcp_echo_stop(struct mip_tcp_echo *e)
{
    unsigned i;

    if (e == NULL || e->tcp == NULL)
        return;
    if (e->port != 0)
        mip_tcp_unlisten(e->tcp, &e->listener);
    e->port = 0;
    for (i = 0; i < MIP_TCP_APP_CONNS; i++)
        if (e->conns[i].mem.used)
            mip_tcp_abort(e->tcp, &e->conns[i].mem.conn);
}
