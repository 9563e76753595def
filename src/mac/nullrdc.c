/*
 * NullRDC: the radio is always on and every attempt is one transmission
 * (mac_rdc.h). Its rows are exactly what the engine did before it had an
 * RDC layer, so CSMA-CA, CSMA and NullMAC behave as plain 802.15.4.
 */
#include "mac_rdc.h"

static enum mip_rdc_check check(const struct mip_mac_config *cfg)
{
    (void)cfg;
    return MIP_RDC_OK;
}

/* Hooks with nothing to do: NullRDC keeps no timer, never enters state
 * RDC, learns nothing from frames and sends none of its own. Other RDCs
 * reuse these rows. */
void mip_rdc_nothing(struct mip_mac *m)
{
    (void)m;
}

bool mip_rdc_take_none(struct mip_mac *m, const uint8_t *frame, size_t len, size_t hdr_len,
                       const struct mip_802154_hdr *h)
{
    (void)m;
    (void)frame;
    (void)len;
    (void)hdr_len;
    (void)h;
    return false;
}

static void acked(struct mip_mac *m, const struct mip_802154_hdr *h)
{
    (void)m;
    (void)h;
}

static void rx(struct mip_mac *m, const struct mip_802154_hdr *h, enum mip_rdc_rx what)
{
    (void)m;
    (void)h;
    (void)what;
}

static bool always_on(const struct mip_mac *m)
{
    (void)m;
    return true;
}

static const struct mip_rdc_ops ops = {
    check, mip_rdc_nothing, mip_mac_transmit, mip_rdc_sent_plain, mip_rdc_nothing,
    mip_mac_noack, acked, mip_rdc_take_none, rx, mip_rdc_nothing, always_on, mip_rdc_nothing
};

const struct mip_rdc_ops *mip_rdc_nullrdc(void)
{
    return &ops;
}
