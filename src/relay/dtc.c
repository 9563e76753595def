/*
 * DTC: Distributed TCP Caching (Dunkels et al.; thesis ch. 9.6, [B] 3.1.2,
 * [T] II.A; docs/relay-papers.md section 1 has the reading this follows).
 */
#include "relay_internal.h"

#if MIP_CONF_FORWARD

enum mip_fwd_verdict dtc_forward(struct mip_relay *r, const struct rly_seg *seg,
                                 const uint8_t *pkt)
{
    (void)seg;
    (void)pkt;
    RSTAT(r, ignored);
    return MIP_FWD_PASS;
}

void dtc_link_status(struct mip_relay *r, const struct rly_seg *seg, bool ok)
{
    (void)r;
    (void)seg;
    (void)ok;
}

uint32_t dtc_poll(struct mip_relay *r, uint32_t now)
{
    (void)r;
    (void)now;
    return MIP_POLL_IDLE;
}

#endif /* MIP_CONF_FORWARD */
