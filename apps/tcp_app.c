/*
 * apps/: small applications on the public API (UDP echo and discard, TCP
 * echo, discard and chargen, an HTTP server, CoAP, a BSD-like socket
 * wrapper), one floor above tcp/ and relay/. They may include
 * include/moteip/ and each other, never sim/, port/ or tools/: a program
 * (moteip-host, a board's firmware, the simulator) starts them and owns
 * their memory. This file: the connection memory the TCP apps share.
 *
 * Connection memory for the TCP apps. See tcp_app.h.
 */
#include "tcp_app.h"

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
