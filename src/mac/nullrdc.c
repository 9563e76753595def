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
 * RDC and learns nothing from frames. */
static void nothing(struct mip_mac *m)
{
    (void)m;
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
    check, nothing, mip_mac_transmit, mip_rdc_sent_plain, nothing, mip_mac_noack,
    nothing, rx, nothing, always_on
};

const struct mip_rdc_ops *mip_rdc_nullrdc(void)
{
    return &ops;
}
