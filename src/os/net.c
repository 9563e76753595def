/*
 * The stack as a service (include/moteip/os_net.h): the stack's callbacks,
 * turned into synchronous events to the owning process.
 */
#include <string.h>

#include "moteip/os_net.h"
#include "moteip/stack.h"
#include "moteip/timer.h"

static void udp_in(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                   const uint8_t *data, size_t len)
{
    struct mip_os_udp *u = ctx;
    struct mip_os_udp_event e;
    (void)s;
    e.meta = m;
    e.data = data;
    e.len = len;
    /* INUSE: the process sent this datagram's cause from its own thread
     * (e.g. to itself over loopback) and is on the stack now */
    if (mip_os_post_sync(u->os, u->p, MIP_OS_EV_UDP, &e) != MIP_OK)
        u->refused++;
}

mip_status mip_os_udp_bind(struct mip_os *os, struct mip_os_process *p, struct mip_os_udp *u,
                           struct mip_stack *s, uint16_t port)
{
    memset(u, 0, sizeof(*u));
    u->os = os;
    u->p = p;
    u->s = s;
    u->port = port;
    return mip_udp_bind(s, port, udp_in, u);
}

mip_status mip_os_udp_unbind(struct mip_os_udp *u)
{
    return mip_udp_unbind(u->s, u->port);
}

static void tell(struct mip_os_tcp *c, uint8_t what, uint8_t error)
{
    struct mip_os_tcp_event e;
    e.c = c;
    e.what = what;
    e.error = error;
    (void)mip_os_post_sync(c->os, c->p, MIP_OS_EV_TCP, &e);
}

static void tcp_connected(void *ctx, struct mip_tcp_conn *conn)
{
    (void)conn;
    tell(ctx, MIP_OS_TCP_CONNECTED, 0);
}

static void tcp_readable(void *ctx, struct mip_tcp_conn *conn)
{
    struct mip_os_tcp *c = ctx;
    (void)conn;
    c->moved = c->tcp->stack->now;
    tell(c, MIP_OS_TCP_READABLE, 0);
}

static void tcp_writable(void *ctx, struct mip_tcp_conn *conn)
{
    struct mip_os_tcp *c = ctx;
    (void)conn;
    c->moved = c->tcp->stack->now;
    tell(c, MIP_OS_TCP_WRITABLE, 0);
}

static void tcp_closed(void *ctx, struct mip_tcp_conn *conn)
{
    struct mip_os_tcp *c = ctx;
    (void)conn;
    c->in_use = false;
    tell(c, MIP_OS_TCP_CLOSED, 0);
}

static void tcp_error(void *ctx, struct mip_tcp_conn *conn, enum mip_tcp_error why)
{
    (void)conn;
    tell(ctx, MIP_OS_TCP_ERROR, (uint8_t)why);
}

static const struct mip_tcp_callbacks os_tcp_cb = {
    tcp_connected, tcp_readable, tcp_writable, tcp_closed, tcp_error
};

void mip_os_tcp_init(struct mip_os *os, struct mip_os_process *p, struct mip_os_tcp *c,
                     struct mip_tcp *tcp, uint8_t *tx, uint16_t tx_size, uint8_t *rx,
                     uint8_t *rx_bitmap, mip_tcp_rxsize_t rx_size)
{
    c->os = os;
    c->p = p;
    c->tcp = tcp;
    c->in_use = false;
    mip_tcp_conn_init(&c->conn, &os_tcp_cb, c, tx, tx_size, rx, rx_bitmap, rx_size);
}

mip_status mip_os_tcp_connect(struct mip_os_tcp *c, const struct mip_addr *dst, uint16_t port)
{
    mip_status st;
    if (c->in_use)
        return MIP_ERR_INUSE;
    st = mip_tcp_connect(c->tcp, &c->conn, dst, port);
    if (st == MIP_OK)
        c->in_use = true;
    return st;
}

static struct mip_tcp_conn *accept_one(struct mip_tcp_listener *l, struct mip_tcp *tcp,
                                       uint16_t port)
{
    struct mip_os_listener *ls = MIP_CONTAINER_OF(l, struct mip_os_listener, l);
    mip_time_t now = tcp->stack->now;
    struct mip_os_tcp *stalest = NULL, *c = NULL;
    size_t i;
    (void)port;
    for (i = 0; i < ls->n && c == NULL; i++) {
        struct mip_os_tcp *t = &ls->pool[i];
        if (!t->in_use) {
            c = t;
        } else if (ls->idle_ms != 0u) {
            /* no timer reads these stamps: held within the horizon first */
            (void)mip_time_hold(&t->moved, now);
            if (mip_time_reached(now, t->moved + ls->idle_ms) &&
                (stalest == NULL || mip_time_before(t->moved, stalest->moved)))
                stalest = t;
        }
    }
    if (c == NULL && stalest != NULL) {
        ls->evicted++;
        mip_tcp_abort(tcp, &stalest->conn);     /* its `closed` frees it */
        if (!stalest->in_use)
            c = stalest;
    }
    if (c == NULL) {
        ls->refused++;
        return NULL;
    }
    c->in_use = true;
    c->moved = now;
    return &c->conn;
}

mip_status mip_os_tcp_listen(struct mip_os *os, struct mip_os_process *p,
                             struct mip_os_listener *ls, struct mip_tcp *tcp, uint16_t port,
                             struct mip_os_tcp *pool, size_t n, mip_tcp_rxsize_t rx_size)
{
    ls->os = os;
    ls->p = p;
    ls->pool = pool;
    ls->n = n;
    ls->idle_ms = MIP_OS_TCP_IDLE_MS;
    ls->refused = 0;
    ls->evicted = 0;
    return mip_tcp_listen(tcp, &ls->l, port, rx_size, accept_one);
}
