/*
 * UDP discard service (RFC 863). See udp_discard.h.
 */
#include "udp_discard.h"

#include "moteip/udp.h"

static void sat_add(uint32_t *c, uint32_t n)
{
    *c = (UINT32_MAX - *c < n) ? UINT32_MAX : *c + n;
}

static void discard_recv(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                         const uint8_t *data, size_t len)
{
    struct mip_udp_discard *d = ctx;

    (void)s;
    (void)m;
    (void)data;
    sat_add(&d->datagrams, 1u);
    sat_add(&d->bytes, (uint32_t)len);
}

mip_status mip_udp_discard_start(struct mip_udp_discard *d, struct mip_stack *s,
                                 uint16_t port)
{
    mip_status st;

    if (d == NULL || s == NULL)
        return MIP_ERR_INVALID;
    d->port = 0;
    d->datagrams = 0;
    d->bytes = 0;
    st = mip_udp_bind(s, port, discard_recv, d);
    if (st == MIP_OK)
        d->port = port;
    return st;
}

mip_status mip_udp_discard_stop(struct mip_udp_discard *d, struct mip_stack *s)
{
    mip_status st;

    if (d == NULL || s == NULL)
        return MIP_ERR_INVALID;
    if (d->port == 0)
        return MIP_ERR_NOTFOUND;
    st = mip_udp_unbind(s, d->port);
    d->port = 0;
    return st;
}
