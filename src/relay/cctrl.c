/*
 * CCTRL: Buergi's cache-and-control module for Contiki ([B] chapter 4;
 * docs/relay-papers.md section 2 has the reading this follows).
 */
#include "relay_internal.h"

#if MIP_CONF_FORWARD

enum mip_fwd_verdict cctrl_forward(struct mip_relay *r, const struct rly_seg *seg,
                                   const uint8_t *pkt)
{
    (void)seg;
    (void)pkt;
    RSTAT(r, ignored);
    return MIP_FWD_PASS;
}

void cctrl_overheard_frame(struct mip_relay *r, uint32_t now)
{
    (void)r;
    (void)now;
}

uint32_t cctrl_poll(struct mip_relay *r, uint32_t now)
{
    (void)r;
    (void)now;
    return MIP_POLL_IDLE;
}

#endif /* MIP_CONF_FORWARD */
