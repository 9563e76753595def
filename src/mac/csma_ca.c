/*
 * Unslotted CSMA-CA (IEEE 802.15.4-2006 s.7.5.1.4) with link ACKs, retries
 * and TCPlp's random delay between retries (TCPlp s.7.1: back-to-back
 * retries of a hidden terminal's victims collide again).
 */
#include "mac_proto.h"

static void backoff(struct mip_mac *m)
{
    uint32_t periods = mip_rng_below(&m->rng, (uint32_t)1u << m->be);
    mip_mac_timer(m, MIP_MAC_STEP_BACKOFF, periods * m->cfg.timing.backoff_us);
}

static void begin(struct mip_mac *m)
{
    m->nb = 0;
    m->be = m->cfg.min_be;
    backoff(m);
}

/* A busy CCA: back off again with a larger exponent, until NB runs out;
 * then the frame starts over (retry_on_busy) or fails. */
static void channel_busy(struct mip_mac *m)
{
    /* NB > macMaxCSMABackoffs fails; tested before the increment so an
     * 8-bit NB cannot wrap with max_backoffs = 255. */
    if (m->nb >= m->cfg.max_backoffs) {
        if (m->cfg.retry_on_busy && m->retries < m->cfg.max_retries) {
            m->retries++;
            m->stats[MIP_MAC_STAT_busy_retries]++;
            begin(m);
            return;
        }
        mip_mac_finish(m, MIP_MAC_TX_CHANNEL_BUSY);
        return;
    }
    m->nb++;
    if (m->be < m->cfg.max_be)
        m->be++;
    backoff(m);
}

static void step(struct mip_mac *m)
{
    if (m->step == MIP_MAC_STEP_RETRY_DELAY)
        begin(m);
    else
        mip_mac_csma_step(m, channel_busy);
}

static bool wait_ack(const struct mip_mac *m)
{
    (void)m;
    return true;
}

static void noack(struct mip_mac *m)
{
    uint32_t max = m->cfg.retry_delay_max_us, delay = 0;
    if (m->retries >= m->cfg.max_retries) {
        mip_mac_finish(m, MIP_MAC_TX_NOACK);
        return;
    }
    m->retries++;
    m->stats[MIP_MAC_STAT_tx_retries]++;
    if (max != 0u)
        delay = mip_rng_below(&m->rng, max + 1u);
    mip_mac_timer(m, MIP_MAC_STEP_RETRY_DELAY, delay);
}

static const struct mip_mac_proto proto = { begin, step, mip_mac_resume_cca, wait_ack, noack };

const struct mip_mac_proto *mip_mac_proto_csma_ca(void)
{
    return &proto;
}
