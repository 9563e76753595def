/*
 * A small blocking, BSD-style socket layer over moteip's TCP event API, for
 * host programs and tests that prefer connect / send / recv / close.
 *
 * Blocking is cooperative and single-threaded: a call that has to wait runs
 * the caller's `step` function, which moves the network along (a TAP poll
 * loop on a host, an in-memory link or a simulator tick in a test), until
 * its condition holds or its timeout passes. Nothing here reads a clock:
 * elapsed time comes from the caller's `now` function.
 *
 * Memory: MIP_BSD_SOCKETS sockets live in struct mip_bsd, each with the
 * connection rings of apps/tcp_app.h. No heap, no globals.
 *
 * Errors are negative return values (enum mip_bsd_err); 0 from recv is
 * end of stream, as in BSD.
 */
#ifndef MOTEIP_APPS_BSD_SOCKET_H
#define MOTEIP_APPS_BSD_SOCKET_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "moteip/tcp.h"
#include "tcp_app.h"

#ifndef MIP_BSD_SOCKETS
#define MIP_BSD_SOCKETS 4
#endif

enum mip_bsd_err {
    MIP_BSD_EINVAL = -1,        /* bad socket number, address or state */
    MIP_BSD_ENOMEM = -2,        /* no free socket */
    MIP_BSD_ETIMEDOUT = -3,     /* the call's timeout, or TCP gave up */
    MIP_BSD_ECONNREFUSED = -4,
    MIP_BSD_ECONNRESET = -5,
    MIP_BSD_ENOTCONN = -6,
    MIP_BSD_EADDRINUSE = -7,
    MIP_BSD_EPIPE = -8          /* send after shutdown, or the connection ended */
};

struct mip_bsd;

struct mip_bsd_sock {
    struct mip_bsd *owner;
    struct mip_tcp_app_slot slot;      /* the connection and its rings */
    struct mip_tcp_listener listener;
    uint8_t kind;                      /* free, listening, stream */
    bool    connected;
    bool    done;                      /* TCP has released the connection */
    bool    accepted;                  /* handed out by mip_bsd_accept */
    bool    release_on_done;           /* closed by the application */
    int8_t  parent;                    /* listening socket of a pending stream */
    int     err;                       /* first error, an enum mip_bsd_err */
};

struct mip_bsd {
    struct mip_tcp *tcp;
    /* Moves the network along for at most `max_ms` (it may return early). */
    void (*step)(void *ctx, uint32_t max_ms);
    /* Milliseconds, any origin. */
    uint32_t (*now)(void *ctx);
    void *ctx;
    struct mip_bsd_sock sock[MIP_BSD_SOCKETS];
};

void mip_bsd_init(struct mip_bsd *b, struct mip_tcp *tcp,
                  void (*step)(void *ctx, uint32_t max_ms), uint32_t (*now)(void *ctx),
                  void *ctx);

/* Opens a connection and waits for it; returns a socket number. */
int mip_bsd_connect(struct mip_bsd *b, const struct mip_addr *dst, uint16_t port,
                    uint32_t timeout_ms);
/* A listening socket on `port`. */
int mip_bsd_listen(struct mip_bsd *b, uint16_t port);
/* Waits for a completed handshake on listening socket `ls`. */
int mip_bsd_accept(struct mip_bsd *b, int ls, uint32_t timeout_ms);
/* Queues all n bytes, waiting for ring space; returns n or an error. */
long mip_bsd_send(struct mip_bsd *b, int s, const void *buf, size_t n, uint32_t timeout_ms);
/* Waits for at least one byte; returns the count, 0 at end of stream, or
 * an error. */
long mip_bsd_recv(struct mip_bsd *b, int s, void *buf, size_t n, uint32_t timeout_ms);
/* Half-close: FIN after the queued data; recv goes on. */
int mip_bsd_shutdown(struct mip_bsd *b, int s);
/* Closes (FIN) and gives the socket up; its memory is reused once TCP has
 * finished with the connection. A listening socket stops listening. */
int mip_bsd_close(struct mip_bsd *b, int s);

#endif
