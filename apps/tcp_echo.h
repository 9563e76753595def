/*
 * TCP echo service (RFC 862): every byte received on a connection is sent
 * back on it. When the peer closes its side, the service sends what is left
 * and closes too.
 *
 * Flow control end to end: bytes are taken from the receive ring only as
 * fast as the send ring takes them, so a peer that does not read its echo
 * sees the window close.
 *
 * All state, including the memory of MIP_TCP_APP_CONNS connections (see
 * tcp_app.h for the sizes), lives in the caller's struct; only the public
 * TCP API is used. A connection beyond MIP_TCP_APP_CONNS is refused (RST).
 */
#ifndef MOTEIP_APPS_TCP_ECHO_H
#define MOTEIP_APPS_TCP_ECHO_H

#include <stdint.h>
#include "moteip/tcp.h"
#include "tcp_app.h"

#define MIP_TCP_ECHO_PORT 7u

struct mip_tcp_echo;

struct mip_tcp_echo_conn {
    struct mip_tcp_app_slot mem;
    struct mip_tcp_echo *app;
};

struct mip_tcp_echo {
    struct mip_tcp_server srv;   /* listener, port, accepted, refused, errors, active */
    uint64_t bytes;            /* bytes echoed (queued for sending) */
    struct mip_tcp_echo_conn conns[MIP_TCP_APP_CONNS];
};

/* Clears *e and listens on `port`. Returns what mip_tcp_listen returns.
 * *e must stay valid (and in place) until stopped. */
mip_status mip_tcp_echo_start(struct mip_tcp_echo *e, struct mip_tcp *tcp, uint16_t port);
/* Stops listening and aborts the open connections; counters are kept. */
void mip_tcp_echo_stop(struct mip_tcp_echo *e);

#endif
