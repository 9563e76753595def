/* SLIP netif (RFC 1055): a raw-IP netif (rawip_netif.c) whose driver is
 * the SLIP encoder, fed by an incremental decoder. See netif.h. */
#include "core.h"

static mip_status slip_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    const struct mip_slip *sl = ctx;
    return mip_slip_encode(frame, len, sl->write, sl->write_ctx);
}

static const struct mip_netif_driver slip_driver = { slip_transmit, NULL, NULL };

mip_status mip_netif_add_slip(struct mip_stack *s, struct mip_slip *sl,
                              const struct mip_slip_config *cfg, uint8_t *index)
{
    mip_status st;
    uint8_t idx;

    if (sl == NULL || cfg == NULL || cfg->rx_buf == NULL || cfg->write == NULL)
        return MIP_ERR_INVALID;
    /* mip_netif_add_rawip checks the MTU */
    st = mip_netif_add_rawip(s, cfg->mtu, cfg->iid, &slip_driver, sl, &idx);
    if (st != MIP_OK)
        return st;
    mip_slip_dec_init(&sl->dec, cfg->rx_buf, cfg->mtu);
    sl->write = cfg->write;
    sl->write_ctx = cfg->write_ctx;
    sl->netif = idx;
    if (index != NULL)
        *index = idx;
    return MIP_OK;
}

void mip_slip_input(struct mip_stack *s, struct mip_slip *sl, const uint8_t *bytes,
                    size_t n, mip_time_t now)
{
    while (n > 0) {
        enum mip_slip_event ev;
        size_t used = mip_slip_decode(&sl->dec, bytes, n, &ev);
        bytes += used;
        n -= used;
        if (ev == MIP_SLIP_FRAME)
            mip_stack_input(s, sl->netif, sl->dec.buf, sl->dec.len, now);
        else if (ev == MIP_SLIP_TOO_BIG)
            STAT(s, drop_slip_too_big);
        else if (ev == MIP_SLIP_BAD_ESCAPE)
            STAT(s, drop_slip_bad_escape);
    }
}
