/* Connection memory for the TCP apps. See tcp_app.h. */
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
