/*
 * TCP discard service (RFC 863): bytes received are thrown away and
 * counted. Each connection also keeps the CRC-32 (the IEEE 802.3 / zlib
 * CRC, as Python's zlib.crc32) of its byte stream, and when a stream ends
 * (the peer's FIN, or else the end of the connection) its byte count and
 * CRC are kept as `last_bytes` / `last_crc32`, so a test can check that an
 * upload arrived intact. When the peer closes, the service closes too.
 *
 * All state, including the memory of MIP_TCP_APP_CONNS connections (see
 * tcp_app.h), lives in the caller's struct; only the public TCP API is
 * used. A connection beyond MIP_TCP_APP_CONNS is refused (RST).
 */
#ifndef MOTEIP_APPS_TCP_DISCARD_H
#define MOTEIP_APPS_TCP_DISCARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "moteip/crc32.h"   /* mip_crc32_update, which the apps use */
#include "moteip/tcp.h"
#include "tcp_app.h"

#define MIP_TCP_DISCARD_PORT 9u

struct mip_tcp_discard;

struct mip_tcp_discard_conn {
    struct mip_tcp_app_slot mem;
    struct mip_tcp_discard *app;
    uint64_t bytes;            /* received on this connection */
    uint32_t crc;              /* running CRC-32 of the stream so far */
    bool done;                 /* the peer's FIN arrived: stream recorded */
};

struct mip_tcp_discard {
    struct mip_tcp_server srv;   /* listener, port, accepted, refused, errors, active */
    uint64_t bytes;            /* bytes received, all connections */
    uint64_t last_bytes;       /* bytes of the last connection that ended */
    uint32_t last_crc32;       /* CRC-32 of the last connection that ended */
    struct mip_tcp_discard_conn conns[MIP_TCP_APP_CONNS];
};

/* Clears *d and listens on `port`. Returns what mip_tcp_listen returns. */
mip_status mip_tcp_discard_start(struct mip_tcp_discard *d, struct mip_tcp *tcp, uint16_t port);
/* Stops listening and aborts the open connections; counters are kept. */
void mip_tcp_discard_stop(struct mip_tcp_discard *d);

#endif
