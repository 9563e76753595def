/*
 * Plain CSMA without link ACKs, as the TSS paper simulates it (TSS leans on
 * its own implicit and transport-level acknowledgements instead): wait a
 * random number of unit backoff periods tau in [csma_min_periods,
 * csma_max_periods], send if the channel is clear, else draw again.
 * csma_sense_first skips the first wait (sense, and back off only after a
 * busy channel); csma_continuous draws the wait to the microsecond.
 */
#include "mac_proto.h"

static void backoff(struct mip_mac *m)
{
    uint32_t tau = m->cfg.timing.backoff_us, delay;
    if (m->cfg.csma_continuous) {
        /* [min, max] tau, inclusive, in µs: 255 periods of 65535 µs fit */
        uint32_t span = ((uint32_t)m->cfg.csma_max_periods - m->cfg.csma_min_periods) * tau;
        delay = m->cfg.csma_min_periods * tau + mip_rng_below(&m->rng, span + 1u);
    } else {
        uint32_t span = (uint32_t)m->cfg.csma_max_periods - m->cfg.csma_min_periods + 1u;
        delay = (m->cfg.csma_min_periods + mip_rng_below(&m->rng, span)) * tau;
    }
    mip_mac_timer(m, MIP_MAC_STEP_BACKOFF, delay);
}

static void begin(struct mip_mac *m)
{
    m->nb = 0;
    if (m->cfg.csma_sense_first)
        mip_mac_timer(m, MIP_MAC_STEP_BACKOFF, 0);      /* straight to the CCA */
    else
        backoff(m);
}

/* A busy CCA: gives up at the max_backoffs-th (the first when it is 0);
 * NB stops there, so it cannot wrap. */
static void channel_busy(struct mip_mac *m)
{
    m->nb++;
    if (m->nb >= m->cfg.max_backoffs) {
        mip_mac_finish(m, MIP_MAC_TX_CHANNEL_BUSY);
        return;
    }
    backoff(m);
}

static void step(struct mip_mac *m)
{
    mip_mac_csma_step(m, channel_busy);
}

static const struct mip_mac_proto proto = {
    begin, step, mip_mac_resume_cca, mip_mac_wait_ack_never, mip_mac_noack_finish
};

const struct mip_mac_proto *mip_mac_proto_csma(void)
{
    return &proto;
}
