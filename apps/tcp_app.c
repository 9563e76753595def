/*
 * apps/: small applications on the public API (UDP echo and discard, TCP
 * echo, discard and chargen, an HTTP server, CoAP, a BSD-like socket
 * wrapper), one floor above tcp/ and relay/. They may include
 * include/moteip/ and each other, never sim/, port/ or tools/: a program
 * (moteip-host, a board's firmware, the simulator) starts them and owns
 * their memory. This file: the connection memory and the server bookkeeping
 * (listen, accept, close, stop) the TCP apps share.
 *
 * Connection memory for the TCP apps. See tcp_app.h.
 */
#include "tcp_app.h"

#include "moteip/stack.h"
#include "moteip/timer.h"

struct mip_tcp_conn *mip_tcp_app_slot_take(struct mip_tcp_app_slot *s,
                                           const struct mip_tcp_callbacks *cb, void *ctx)
{
    s->used = true;
    mip_tcp_conn_init(&s->conn, cb, ctx, s->tx, (uint16_t)sizeof(s->tx), s->rx,
#if MIP_TCP_APP_OOO
                      s->bitmap,
#else
                      NULL,
#endif
                      (uint16_t)sizeof(s->rx));
    return &s->conn;
}

/* Slot i of the app's connection array (the slots sit `stride` bytes apart). */
static struct mip_tcp_app_slot *slot_at(struct mip_tcp_app_slot *first, size_t stride, unsigned i)
{
    return (struct mip_tcp_app_slot *)(void *)((uint8_t *)first + (size_t)i * stride);
}

mip_status mip_tcp_server_listen(struct mip_tcp_server *s, struct mip_tcp *tcp, uint16_t port,
                                 mip_tcp_accept_fn accept)
{
    mip_status st;

    s->tcp = tcp;
    st = mip_tcp_listen(tcp, &s->listener, port, MIP_TCP_APP_RX_SIZE, accept);
    if (st == MIP_OK)
        s->port = port;
    return st;
}

struct mip_tcp_app_slot *mip_tcp_server_free_slot(struct mip_tcp_server *s,
                                                  struct mip_tcp_app_slot *first, size_t stride,
                                                  uint32_t idle_ms)
{
    mip_time_t now = s->tcp->stack->now;
    struct mip_tcp_app_slot *stalest = NULL, *m = NULL;
    unsigned i;

    for (i = 0; i < MIP_TCP_APP_CONNS && m == NULL; i++) {
        struct mip_tcp_app_slot *t = slot_at(first, stride, i);
        if (!t->used) {
            m = t;
        } else if (idle_ms != 0u) {
            (void)mip_time_hold(&t->moved, now);
            if (mip_time_reached(now, t->moved + idle_ms) &&
                (stalest == NULL || mip_time_before(t->moved, stalest->moved)))
                stalest = t;
        }
    }
    if (m == NULL && stalest != NULL) {
        /* Its `closed` callback frees the slot at once. */
        s->evicted++;
        mip_tcp_abort(s->tcp, &stalest->conn);
        if (!stalest->used)
            m = stalest;
    }
    if (m == NULL) {
        s->refused++;
        return NULL;
    }
    s->accepted++;
    s->active++;
    m->moved = now;
    return m;
}

void mip_tcp_server_closed(struct mip_tcp_server *s, struct mip_tcp_app_slot *m)
{
    m->used = false;
    s->active--;
}

void mip_tcp_server_stop(struct mip_tcp_server *s, struct mip_tcp_app_slot *first, size_t stride)
{
    unsigned i;

    if (s->tcp == NULL)
        return;
    if (s->port != 0)
        mip_tcp_unlisten(s->tcp, &s->listener);
    s->port = 0;
    for (i = 0; i < MIP_TCP_APP_CONNS; i++) {
        struct mip_tcp_app_slot *m = slot_at(first, stride, i);
        if (m->used)
            mip_tcp_abort(s->tcp, &m->conn);
    }
}
