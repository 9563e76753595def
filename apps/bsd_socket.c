/* Blocking BSD-style sockets over the TCP event API. See bsd_socket.h. */
#include "bsd_socket.h"
#include <string.h>

enum { SOCK_FREE = 0, SOCK_LISTEN, SOCK_STREAM };

static void on_connected(void *ctx, struct mip_tcp_conn *c)
{
    struct mip_bsd_sock *k = ctx;
    (void)c;
    k->connected = true;
}

static void on_closed(void *ctx, struct mip_tcp_conn *c)
{
    struct mip_bsd_sock *k = ctx;
    (void)c;
    k->done = true;
    if (k->release_on_done)
        k->kind = SOCK_FREE;
}

static void on_error(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why)
{
    struct mip_bsd_sock *k = ctx;
    (void)c;
    if (k->err != 0)
        return;
    switch (why) {
    case MIP_TCP_ERR_REFUSED: k->err = MIP_BSD_ECONNREFUSED; break;
    case MIP_TCP_ERR_RESET:   k->err = MIP_BSD_ECONNRESET; break;
    case MIP_TCP_ERR_TIMEOUT:
    case MIP_TCP_ERR_KEEPALIVE:
    case MIP_TCP_ERR_UNREACHABLE: k->err = MIP_BSD_ETIMEDOUT; break;
    default:                  k->err = MIP_BSD_EPIPE; break;
    }
}

static const struct mip_tcp_callbacks bsd_cb = { on_connected, NULL, NULL, on_closed, on_error };

void mip_bsd_init(struct mip_bsd *b, struct mip_tcp *tcp,
                  void (*step)(void *ctx, uint32_t max_ms), uint32_t (*now)(void *ctx),
                  void *ctx)
{
    unsigned i;
    memset(b, 0, sizeof(*b));
    b->tcp = tcp;
    b->step = step;
    b->now = now;
    b->ctx = ctx;
    for (i = 0; i < MIP_BSD_SOCKETS; i++) {
        b->sock[i].owner = b;
        b->sock[i].parent = -1;
    }
}

static int sock_alloc(struct mip_bsd *b, uint8_t kind)
{
    int i;
    for (i = 0; i < MIP_BSD_SOCKETS; i++) {
        struct mip_bsd_sock *k = &b->sock[i];
        if (k->kind == SOCK_FREE) {
            struct mip_bsd *owner = k->owner;
            memset(k, 0, sizeof(*k));
            k->owner = owner;
            k->parent = -1;
            k->kind = kind;
            return i;
        }
    }
    return MIP_BSD_ENOMEM;
}

static struct mip_bsd_sock *sock_get(struct mip_bsd *b, int s, uint8_t kind)
{
    if (s < 0 || s >= MIP_BSD_SOCKETS || b->sock[s].kind != kind)
        return NULL;
    return &b->sock[s];
}

/* Runs the network until cond(k) holds; false when the timeout passed. */
static bool wait_for(struct mip_bsd *b, struct mip_bsd_sock *k,
                     bool (*cond)(const struct mip_bsd_sock *k), uint32_t timeout_ms)
{
    uint32_t start = b->now(b->ctx);
    while (!cond(k)) {
        uint32_t spent = b->now(b->ctx) - start;
        if (spent >= timeout_ms)
            return false;
        b->step(b->ctx, timeout_ms - spent);
    }
    return true;
}

static bool is_open_or_failed(const struct mip_bsd_sock *k)
{
    return k->connected || k->done || k->err != 0;
}

int mip_bsd_connect(struct mip_bsd *b, const struct mip_addr *dst, uint16_t port,
                    uint32_t timeout_ms)
{
    int s = sock_alloc(b, SOCK_STREAM);
    struct mip_bsd_sock *k;
    if (s < 0)
        return s;
    k = &b->sock[s];
    (void)mip_tcp_app_slot_take(&k->slot, &bsd_cb, k);
    if (mip_tcp_connect(b->tcp, &k->slot.conn, dst, port) != MIP_OK) {
        k->kind = SOCK_FREE;
        return MIP_BSD_EINVAL;
    }
    if (!wait_for(b, k, is_open_or_failed, timeout_ms)) {
        mip_tcp_abort(b->tcp, &k->slot.conn);
        k->kind = SOCK_FREE;
        return MIP_BSD_ETIMEDOUT;
    }
    if (!k->connected || k->done) {
        int err = k->err != 0 ? k->err : MIP_BSD_ECONNREFUSED;
        k->kind = SOCK_FREE;
        return err;
    }
    return s;
}

static struct mip_tcp_conn *on_accept(struct mip_tcp_listener *tl, struct mip_tcp *tcp,
                                      uint16_t port)
{
    struct mip_bsd_sock *l = MIP_CONTAINER_OF(tl, struct mip_bsd_sock, listener);
    struct mip_bsd *b = l->owner;
    int s = sock_alloc(b, SOCK_STREAM);
    (void)tcp;
    (void)port;
    if (s < 0)
        return NULL;    /* no socket free: the peer gets RST */
    b->sock[s].parent = (int8_t)(l - b->sock);
    b->sock[s].connected = true;
    return mip_tcp_app_slot_take(&b->sock[s].slot, &bsd_cb, &b->sock[s]);
}

int mip_bsd_listen(struct mip_bsd *b, uint16_t port)
{
    int s = sock_alloc(b, SOCK_LISTEN);
    mip_status st;
    if (s < 0)
        return s;
    st = mip_tcp_listen(b->tcp, &b->sock[s].listener, port, MIP_TCP_APP_RX_SIZE, on_accept);
    if (st != MIP_OK) {
        b->sock[s].kind = SOCK_FREE;
        return st == MIP_ERR_INUSE ? MIP_BSD_EADDRINUSE : MIP_BSD_EINVAL;
    }
    return s;
}

/* A pending connection of listening socket k, or -1. */
static int pending_of(const struct mip_bsd_sock *k)
{
    const struct mip_bsd *b = k->owner;
    int i;
    for (i = 0; i < MIP_BSD_SOCKETS; i++)
        if (b->sock[i].kind == SOCK_STREAM && b->sock[i].parent == (int8_t)(k - b->sock) &&
            !b->sock[i].accepted)
            return i;
    return -1;
}

static bool has_pending(const struct mip_bsd_sock *k)
{
    return pending_of(k) >= 0;
}

int mip_bsd_accept(struct mip_bsd *b, int ls, uint32_t timeout_ms)
{
    struct mip_bsd_sock *l = sock_get(b, ls, SOCK_LISTEN);
    int s;
    if (l == NULL)
        return MIP_BSD_EINVAL;
    if (!wait_for(b, l, has_pending, timeout_ms))
        return MIP_BSD_ETIMEDOUT;
    s = pending_of(l);
    b->sock[s].accepted = true;
    return s;
}

static bool can_write(const struct mip_bsd_sock *k)
{
    return k->done || k->err != 0 || mip_tcp_writable(&k->slot.conn) > 0;
}

long mip_bsd_send(struct mip_bsd *b, int s, const void *buf, size_t n, uint32_t timeout_ms)
{
    struct mip_bsd_sock *k = sock_get(b, s, SOCK_STREAM);
    const uint8_t *p = buf;
    size_t done = 0;
    if (k == NULL || (n > 0 && buf == NULL))
        return MIP_BSD_EINVAL;
    while (done < n) {
        if (k->err != 0)
            return k->err;
        if (k->done || (mip_tcp_writable(&k->slot.conn) == 0 &&
                        k->slot.conn.state != MIP_TCP_ESTABLISHED &&
                        k->slot.conn.state != MIP_TCP_CLOSE_WAIT))
            return MIP_BSD_EPIPE;
        done += mip_tcp_write(b->tcp, &k->slot.conn, p + done, n - done);
        if (done < n && !wait_for(b, k, can_write, timeout_ms))
            return MIP_BSD_ETIMEDOUT;
    }
    return (long)n;
}

static bool can_read(const struct mip_bsd_sock *k)
{
    return k->done || k->err != 0 || mip_tcp_readable(&k->slot.conn) > 0 ||
           mip_tcp_peer_closed(&k->slot.conn);
}

long mip_bsd_recv(struct mip_bsd *b, int s, void *buf, size_t n, uint32_t timeout_ms)
{
    struct mip_bsd_sock *k = sock_get(b, s, SOCK_STREAM);
    size_t got;
    if (k == NULL || (n > 0 && buf == NULL))
        return MIP_BSD_EINVAL;
    if (!wait_for(b, k, can_read, timeout_ms))
        return MIP_BSD_ETIMEDOUT;
    got = mip_tcp_read(b->tcp, &k->slot.conn, buf, n);
    if (got > 0)
        return (long)got;
    if (k->err != 0 && k->err != MIP_BSD_EPIPE)
        return k->err;
    return 0;    /* end of stream */
}

int mip_bsd_shutdown(struct mip_bsd *b, int s)
{
    struct mip_bsd_sock *k = sock_get(b, s, SOCK_STREAM);
    if (k == NULL)
        return MIP_BSD_EINVAL;
    if (k->done)
        return MIP_BSD_ENOTCONN;
    return mip_tcp_shutdown(b->tcp, &k->slot.conn) == MIP_OK ? 0 : MIP_BSD_ENOTCONN;
}

int mip_bsd_close(struct mip_bsd *b, int s)
{
    struct mip_bsd_sock *k;
    if (s < 0 || s >= MIP_BSD_SOCKETS || b->sock[s].kind == SOCK_FREE)
        return MIP_BSD_EINVAL;
    k = &b->sock[s];
    if (k->kind == SOCK_LISTEN) {
        mip_tcp_unlisten(b->tcp, &k->listener);
        k->kind = SOCK_FREE;
        return 0;
    }
    if (k->done) {
        k->kind = SOCK_FREE;
        return 0;
    }
    k->release_on_done = true;
    if (mip_tcp_close(b->tcp, &k->slot.conn) != MIP_OK)
        k->kind = SOCK_FREE;
    return 0;
}
