/*
 * TCP character generator (RFC 864): on each connection the service sends
 * lines of 72 printable ASCII characters followed by CR LF, as fast as the
 * send window allows (refilled from the `writable` callback), until the
 * peer closes or resets the connection. Anything received is discarded.
 *
 * The stream is the RFC 864 example pattern: the 95 printable characters
 * 0x20..0x7E form a ring; line k (from 0) holds the 72 characters starting
 * at ring position (k + 1) mod 95, so the first line starts with '!':
 *
 *   byte p of the stream, with L = p / 74 and j = p % 74:
 *     j < 72:  0x20 + (L + 1 + j) % 95
 *     j == 72: '\r'       j == 73: '\n'
 *
 * In Python: b"".join(bytes(0x20 + (k + 1 + j) % 95 for j in range(72)) +
 *            b"\r\n" for k in range(lines))
 *
 * All state, including the memory of MIP_TCP_APP_CONNS connections (see
 * tcp_app.h), lives in the caller's struct; only the public TCP API is
 * used. A connection beyond MIP_TCP_APP_CONNS is refused (RST).
 */
#ifndef MOTEIP_APPS_TCP_CHARGEN_H
#define MOTEIP_APPS_TCP_CHARGEN_H

#include <stddef.h>
#include <stdint.h>
#include "moteip/tcp.h"
#include "tcp_app.h"

#define MIP_TCP_CHARGEN_PORT 19u
#define MIP_CHARGEN_LINE_CHARS 72u
#define MIP_CHARGEN_LINE_BYTES 74u   /* with CR LF */

struct mip_tcp_chargen;

struct mip_tcp_chargen_conn {
    struct mip_tcp_app_slot mem;
    struct mip_tcp_chargen *app;
    uint64_t sent;             /* stream offset of the next byte to queue */
};

struct mip_tcp_chargen {
    struct mip_tcp_server srv;   /* listener, port, accepted, refused, errors, active */
    uint64_t bytes;            /* bytes queued for sending, all connections */
    uint64_t discarded;        /* bytes received and dropped */
    struct mip_tcp_chargen_conn conns[MIP_TCP_APP_CONNS];
};

/* Clears *g and listens on `port`. Returns what mip_tcp_listen returns. */
mip_status mip_tcp_chargen_start(struct mip_tcp_chargen *g, struct mip_tcp *tcp, uint16_t port);
/* Stops listening and aborts the open connections; counters are kept. */
void mip_tcp_chargen_stop(struct mip_tcp_chargen *g);

/* Writes bytes [offset, offset + n) of the chargen stream into out. */
void mip_chargen_fill(uint64_t offset, uint8_t *out, size_t n);

#endif
