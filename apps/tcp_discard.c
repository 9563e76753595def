/* TCP discard service (RFC 863). See tcp_discard.h. */
#include "tcp_discard.h"

#include <string.h>

#include "moteip/stack.h"

static void discard_readable(void *ctx, struct mip_tcp_conn *c)
{
    struct mip_tcp_discard_conn *dc = ctx;
    struct mip_tcp_discard *d = dc->app;
    uint8_t buf[MIP_TCP_APP_CHUNK];
    size_t n;

    while ((n = mip_tcp_read(d->srv.tcp, c, buf, sizeof(buf))) > 0) {
        dc->mem.moved = d->srv.tcp->stack->now;
        dc->bytes += n;
        d->bytes += n;
        dc->crc = mip_crc32_update(dc->crc, buf, n);
    }
    if (mip_tcp_peer_closed(c) && !dc->done) {
        /* The stream is complete: record it now (the connection itself
         * may linger in LAST_ACK for a while). */
        dc->done = true;
        d->last_bytes = dc->bytes;
        d->last_crc32 = dc->crc;
        (void)mip_tcp_close(d->srv.tcp, c);
    }
}

static void discard_error(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why)
{
    struct mip_tcp_discard_conn *dc = ctx;

    (void)c;
    (void)why;
    dc->app->srv.errors++;
}

static void discard_closed(void *ctx, struct mip_tcp_conn *c)
{
    struct mip_tcp_discard_conn *dc = ctx;
    struct mip_tcp_discard *d = dc->app;

    (void)c;
    if (!dc->done) {          /* ended without the peer's FIN (reset, abort) */
        d->last_bytes = dc->bytes;
        d->last_crc32 = dc->crc;
    }
    mip_tcp_server_closed(&d->srv, &dc->mem);
}

static const struct mip_tcp_callbacks discard_cb = {
    .readable = discard_readable,
    .closed = discard_closed,
    .error = discard_error,
};

static struct mip_tcp_conn *discard_accept(struct mip_tcp_listener *l, struct mip_tcp *tcp,
                                           uint16_t port)
{
    struct mip_tcp_discard *d = MIP_CONTAINER_OF(l, struct mip_tcp_discard, srv.listener);
    struct mip_tcp_app_slot *m =
        mip_tcp_server_free_slot(&d->srv, &d->conns[0].mem, sizeof(d->conns[0]),
                                 MIP_TCP_APP_IDLE_MS);
    struct mip_tcp_discard_conn *dc;

    (void)tcp;
    (void)port;
    if (m == NULL)
        return NULL;
    dc = MIP_CONTAINER_OF(m, struct mip_tcp_discard_conn, mem);
    dc->app = d;
    dc->bytes = 0;
    dc->crc = 0;
    dc->done = false;
    return mip_tcp_app_slot_take(&dc->mem, &discard_cb, dc);
}

mip_status mip_tcp_discard_start(struct mip_tcp_discard *d, struct mip_tcp *tcp, uint16_t port)
{
    if (d == NULL || tcp == NULL)
        return MIP_ERR_INVALID;
    memset(d, 0, sizeof(*d));
    return mip_tcp_server_listen(&d->srv, tcp, port, discard_accept);
}

void mip_tcp_discard_stop(struct mip_tcp_discard *d)
{
    if (d != NULL)
        mip_tcp_server_stop(&d->srv, &d->conns[0].mem, sizeof(d->conns[0]));
}
