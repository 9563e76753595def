/*
 * Connection memory for the TCP apps (echo, discard, chargen, HTTP).
 *
 * The stack owns no connection memory (include/moteip/tcp.h): each app keeps
 * a fixed array of MIP_TCP_APP_CONNS slots inside its own state struct, and
 * each slot holds one struct mip_tcp_conn with its send ring, receive ring
 * and the receive ring's reassembly bitmap. The accept callback hands out a
 * free slot; the `closed` callback frees it. No heap, no globals: the RAM an
 * app needs is sizeof() its struct.
 *
 * Sizes (override with -D when building the apps):
 *
 *   MIP_TCP_APP_CONNS     connections per app         tiny 1     full 8
 *   MIP_TCP_APP_TX_SIZE   send ring per connection    tiny 512   full 4096
 *   MIP_TCP_APP_RX_SIZE   receive ring per connection tiny 512   full 4096
 *   MIP_TCP_APP_OOO       keep out-of-order bytes     tiny 0     full 1
 *                         (a bitmap of RX_SIZE / 8 bytes per connection;
 *                         without it out-of-order segments are dropped)
 *   MIP_TCP_APP_CHUNK     bytes copied per read/write call, on the C stack
 *                         of the callback             tiny 64    full 1460
 *   MIP_TCP_APP_IDLE_MS   a connection that moved no byte this long may be
 *                         reset for a new one         60 s
 *
 * So one full-profile app takes about 8 x (4096 + 4096 + 512 + sizeof(struct
 * mip_tcp_conn)) = ~72 KB; a tiny one about 1.3 KB.
 */
#ifndef MOTEIP_APPS_TCP_APP_H
#define MOTEIP_APPS_TCP_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "moteip/tcp.h"

#ifndef MIP_TCP_APP_CONNS
#define MIP_TCP_APP_CONNS MIP_PROFILE_DEFAULT(1, 8)
#endif
#ifndef MIP_TCP_APP_TX_SIZE
#define MIP_TCP_APP_TX_SIZE MIP_PROFILE_DEFAULT(512, 4096)
#endif
#ifndef MIP_TCP_APP_RX_SIZE
#define MIP_TCP_APP_RX_SIZE MIP_PROFILE_DEFAULT(512, 4096)
#endif
#ifndef MIP_TCP_APP_OOO
#define MIP_TCP_APP_OOO MIP_PROFILE_DEFAULT(0, 1)
#endif
#ifndef MIP_TCP_APP_CHUNK
#define MIP_TCP_APP_CHUNK MIP_PROFILE_DEFAULT(64, 1460)
#endif

/* Echo, discard and chargen give a new client the slot of the connection
 * that moved no byte for the longest, once that is this long (nginx's
 * send_timeout and Apache httpd's Timeout are 60 s): a client that is silent,
 * or never opens its window, holds a slot no longer than a new client's
 * arrival after it; one that moves bytes keeps it. HTTP has its own rules
 * (http_server.h). */
#ifndef MIP_TCP_APP_IDLE_MS
#define MIP_TCP_APP_IDLE_MS 60000u
#endif

#if MIP_TCP_APP_TX_SIZE > 65535 || MIP_TCP_APP_RX_SIZE > 65535
#error "TCP rings are at most 65535 bytes"
#endif

/* One connection's memory. */
struct mip_tcp_app_slot {
    struct mip_tcp_conn conn;
    mip_time_t moved;          /* accepted, or the app last read or wrote a
                                  byte on it: stack ms (the app sets it) */
    bool used;
    uint8_t tx[MIP_TCP_APP_TX_SIZE];
    uint8_t rx[MIP_TCP_APP_RX_SIZE];
#if MIP_TCP_APP_OOO
    uint8_t bitmap[(MIP_TCP_APP_RX_SIZE + 7) / 8];
#endif
};

/* Marks a slot used and prepares its connection with its rings. */
struct mip_tcp_conn *mip_tcp_app_slot_take(struct mip_tcp_app_slot *s,
                                           const struct mip_tcp_callbacks *cb, void *ctx);

/*
 * What every TCP server app (echo, discard, chargen, HTTP) has: its listener
 * and the counters moteip-host's stats and the simulator report. Embedded in
 * the app's struct as `srv`; the app's accept function finds its struct
 * with MIP_CONTAINER_OF(l, struct app, srv.listener).
 *
 * The helpers below do the bookkeeping around the app's slots: the app keeps
 * MIP_TCP_APP_CONNS connection structs in an array, each holding a struct
 * mip_tcp_app_slot; the helpers take the first slot (&conns[0].mem) and the
 * array's stride (sizeof(conns[0])).
 */
struct mip_tcp_server {
    struct mip_tcp *tcp;
    struct mip_tcp_listener listener;
    uint16_t port;             /* 0 when stopped */
    uint32_t accepted;         /* connections accepted */
    uint32_t refused;          /* connections refused: no free slot (RST) */
    uint32_t errors;           /* connections ended by an error (reset, timeout) */
    uint32_t evicted;          /* connections reset for a new one: idle too
                                  long (mip_tcp_server_free_slot), or by
                                  HTTP's rules (http_server.h) */
    uint32_t active;           /* connections open now */
};

/* Listens on `port` with `accept` (the receive window offered is
 * MIP_TCP_APP_RX_SIZE); s was cleared by the caller. Sets s->tcp, and
 * s->port once listening. Returns what mip_tcp_listen returns. */
mip_status mip_tcp_server_listen(struct mip_tcp_server *s, struct mip_tcp *tcp, uint16_t port,
                                 mip_tcp_accept_fn accept);

/* For the app's accept function: the first free slot of the
 * MIP_TCP_APP_CONNS slots, counted as accepted and active, its `moved` set
 * to now (the app then resets its connection state and calls
 * mip_tcp_app_slot_take), or NULL, counted as refused. With idle_ms not 0
 * and every slot used, the connection that moved no byte for the longest
 * is reset for the new one (counted as evicted) when that is at least
 * idle_ms; connections that moved a byte within idle_ms keep their slots.
 * The server has no timer: its stamps are read only here, held within the
 * clock's horizon first (timer.h). */
struct mip_tcp_app_slot *mip_tcp_server_free_slot(struct mip_tcp_server *s,
                                                  struct mip_tcp_app_slot *first, size_t stride,
                                                  uint32_t idle_ms);

/* For the app's `closed` callback: the slot is free again. */
void mip_tcp_server_closed(struct mip_tcp_server *s, struct mip_tcp_app_slot *m);

/* Stops listening and aborts the open connections (each one's `closed`
 * callback frees its slot); counters are kept. Safe on a server never
 * started (s->tcp NULL) or already stopped. */
void mip_tcp_server_stop(struct mip_tcp_server *s, struct mip_tcp_app_slot *first, size_t stride);

#endif
