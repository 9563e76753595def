/* RDC parameters shared by every kind (rdc.h). */
#include <string.h>

#include "moteip/rdc.h"

void mip_rdc_config_default(struct mip_rdc_config *c, uint8_t kind)
{
    memset(c, 0, sizeof(*c));
    c->kind = kind;
    /* ContikiMAC: the report's 802.15.4 timing (Tr, Tc, Ti) and Contiki
     * 2.5's channel check rate and limits. */
    c->check_rate_hz = 8;
    c->cca_count = 2;
    c->cca_on_us = 192;
    c->cca_gap_us = 500;
    c->copy_gap_us = 400;
    c->listen_max_us = 12500;
    c->burst_wait_us = 31250;
    c->phase_lock = true;
    c->phase_strobe_us = 16667;
    c->phase_guard_us = 0;
    c->phase_max_misses = 16;
}

uint32_t mip_rdc_period_us(const struct mip_rdc_config *c)
{
    return c->check_rate_hz != 0u ? 1000000u / c->check_rate_hz : 0u;
}
