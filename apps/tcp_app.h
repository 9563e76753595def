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
 *
 * So one full-profile app takes about 8 x (4096 + 4096 + 512 + sizeof(struct
 * mip_tcp_conn)) = ~72 KB; a tiny one about 1.3 KB.
 */
#ifndef MOTEIP_APPS_TCP_APP_H
#define MOTEIP_APPS_TCP_APP_H

#include <stdbool.h>
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

#if MIP_TCP_APP_TX_SIZE > 65535 || MIP_TCP_APP_RX_SIZE > 65535
#error "TCP rings are at most 65535 bytes"
#endif

/* One connection's memory. */
struct mip_tcp_app_slot {
    struct mip_tcp_conn conn;
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

#endif
