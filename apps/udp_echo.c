/*
 * UDP echo service (RFC 862). See udp_echo.h.
 */
#include "udp_echo.h"

#include "moteip/netif.h"
#include "moteip/udp.h"

static void sat_add(uint32_t *c, uint32_t n)
{
    *c = (UINT32_MAX - *c < n) ? UINT32_MAX : *c + n;
}

/* Source ports whose datagrams we do not answer (see the header). */
static int loop_prone_port(uint16_t port)
{
    switch (port) {
    case 0u:   /* no reply possible */
    case 7u:   /* echo */
    case 13u:  /* daytime */
    case 17u:  /* qotd */
    case 19u:  /* chargen */
    case 37u:  /* time */
        return 1;
    default:
        return 0;
    }
}

static void echo_recv(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                      const uint8_t *data, size_t len)
{
    struct mip_udp_echo *e = ctx;
    const struct mip_addr *src = m->dst_multicast ? NULL : &m->dst;
    mip_status st;

    if (loop_prone_port(m->src_port)) {
        sat_add(&e->ignored, 1u);
        return;
    }
    /* Reply from the address the request was sent to, unless that was a
     * group address (multicast, broadcast): then the stack chooses. The
     * arrival netif is the zone of a link-local requester. */
    st = mip_udp_sendto(s, src, m->dst_port, &m->src, m->src_port, m->netif, data, len);
    /* PENDING: queued while the sender's link address is resolved; it
     * leaves later (or is dropped and counted by the stack). */
    if (st == MIP_OK || st == MIP_ERR_PENDING) {
        sat_add(&e->datagrams, 1u);
        sat_add(&e->bytes, (uint32_t)len);
    } else {
        sat_add(&e->send_errors, 1u);
        e->last_error = st;
    }
}

mip_status mip_udp_echo_start(struct mip_udp_echo *e, struct mip_stack *s, uint16_t port)
{
    mip_status st;

    if (e == NULL || s == NULL)
        return MIP_ERR_INVALID;
    e->port = 0;
    e->datagrams = 0;
    e->bytes = 0;
    e->ignored = 0;
    e->send_errors = 0;
    e->last_error = MIP_OK;
    st = mip_udp_bind(s, port, echo_recv, e);
    if (st == MIP_OK)
        e->port = port;
    return st;
}

mip_status mip_udp_echo_stop(struct mip_udp_echo *e, struct mip_stack *s)
{
    mip_status st;

    if (e == NULL || s == NULL)
        return MIP_ERR_INVALID;
    if (e->port == 0)
        return MIP_ERR_NOTFOUND;
    st = mip_udp_unbind(s, e->port);
    e->port = 0;
    return st;
}
