/* TCP character generator (RFC 864). See tcp_chargen.h. */
#include "tcp_chargen.h"

#include <string.h>

#include "moteip/stack.h"

void mip_chargen_fill(uint64_t offset, uint8_t *out, size_t n)
{
    uint32_t line = (uint32_t)((offset / MIP_CHARGEN_LINE_BYTES) % 95u);
    uint32_t col = (uint32_t)(offset % MIP_CHARGEN_LINE_BYTES);
    size_t i;

    for (i = 0; i < n; i++) {
        if (col < MIP_CHARGEN_LINE_CHARS)
            out[i] = (uint8_t)(0x20u + (line + 1u + col) % 95u);
        else
            out[i] = col == MIP_CHARGEN_LINE_CHARS ? '\r' : '\n';
        if (++col == MIP_CHARGEN_LINE_BYTES) {
            col = 0;
            line = line == 94u ? 0u : line + 1u;
        }
    }
}

static void chargen_fill_ring(struct mip_tcp_chargen_conn *gc)
{
    struct mip_tcp_chargen *g = gc->app;
    struct mip_tcp_conn *c = &gc->mem.conn;
    uint8_t buf[MIP_TCP_APP_CHUNK];
    size_t room;

    while ((room = mip_tcp_writable(c)) > 0) {
        size_t n = room < sizeof(buf) ? room : sizeof(buf), put;

        mip_chargen_fill(gc->sent, buf, n);
        put = mip_tcp_write(g->srv.tcp, c, buf, n);
        if (put > 0)
            gc->mem.moved = g->srv.tcp->stack->now;
        gc->sent += put;
        g->bytes += put;
        if (put < n || !gc->mem.used)
            break;
    }
}

static void chargen_connected(void *ctx, struct mip_tcp_conn *c)
{
    (void)c;
    chargen_fill_ring(ctx);
}

static void chargen_writable(void *ctx, struct mip_tcp_conn *c)
{
    (void)c;
    chargen_fill_ring(ctx);
}

static void chargen_readable(void *ctx, struct mip_tcp_conn *c)
{
    struct mip_tcp_chargen_conn *gc = ctx;
    struct mip_tcp_chargen *g = gc->app;
    uint8_t buf[MIP_TCP_APP_CHUNK];
    size_t n;

    while ((n = mip_tcp_read(g->srv.tcp, c, buf, sizeof(buf))) > 0)
        g->discarded += n;
    if (mip_tcp_peer_closed(c))
        (void)mip_tcp_close(g->srv.tcp, c);
}

static void chargen_error(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why)
{
    struct mip_tcp_chargen_conn *gc = ctx;

    (void)c;
    (void)why;
    gc->app->srv.errors++;
}

static void chargen_closed(void *ctx, struct mip_tcp_conn *c)
{
    struct mip_tcp_chargen_conn *gc = ctx;

    (void)c;
    mip_tcp_server_closed(&gc->app->srv, &gc->mem);
}

static const struct mip_tcp_callbacks chargen_cb = {
    .connected = chargen_connected,
    .readable = chargen_readable,
    .writable = chargen_writable,
    .closed = chargen_closed,
    .error = chargen_error,
};

static struct mip_tcp_conn *chargen_accept(struct mip_tcp_listener *l, struct mip_tcp *tcp,
                                           uint16_t port)
{
    struct mip_tcp_chargen *g = MIP_CONTAINER_OF(l, struct mip_tcp_chargen, srv.listener);
    struct mip_tcp_app_slot *m =
        mip_tcp_server_free_slot(&g->srv, &g->conns[0].mem, sizeof(g->conns[0]),
                                 MIP_TCP_APP_IDLE_MS);
    struct mip_tcp_chargen_conn *gc;

    (void)tcp;
    (void)port;
    if (m == NULL)
        return NULL;
    gc = MIP_CONTAINER_OF(m, struct mip_tcp_chargen_conn, mem);
    gc->app = g;
    gc->sent = 0;
    return mip_tcp_app_slot_take(&gc->mem, &chargen_cb, gc);
}

mip_status mip_tcp_chargen_start(struct mip_tcp_chargen *g, struct mip_tcp *tcp, uint16_t port)
{
    if (g == NULL || tcp == NULL)
        return MIP_ERR_INVALID;
    memset(g, 0, sizeof(*g));
    return mip_tcp_server_listen(&g->srv, tcp, port, chargen_accept);
}

void mip_tcp_chargen_stop(struct mip_tcp_chargen *g)
{
    if (g != NULL)
        mip_tcp_server_stop(&g->srv, &g->conns[0].mem, sizeof(g->conns[0]));
}
