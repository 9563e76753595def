/* RTT estimation and the retransmission timeout, RFC 6298.
 *
 * Fixed point as in Van Jacobson's and BSD's code: srtt_x8 = 8 * SRTT and
 * rttvar_x4 = 4 * RTTVAR, both in milliseconds, so alpha = 1/8 and
 * beta = 1/4 become shifts:
 *
 *   first sample R:  srtt_x8 = 8R, rttvar_x4 = 2R     (SRTT = R, RTTVAR = R/2)
 *   later samples:   d = |srtt_x8 - 8R| >> 3           (|SRTT - R|, truncated)
 *                    rttvar_x4 += d - (rttvar_x4 >> 2) (RTTVAR = 3/4 RTTVAR + 1/4 d)
 *                    srtt_x8   += R - (srtt_x8 >> 3)   (SRTT = 7/8 SRTT + 1/8 R)
 *   RTO = (srtt_x8 >> 3) + max(G, rttvar_x4), G = 1 ms (K * RTTVAR = rttvar_x4)
 *
 * clamped to [MIP_TCP_RTO_MIN_MS, MIP_TCP_RTO_MAX_MS]. */
#include "moteip/tcp_parts.h"

/* Samples above this are clamped so srtt_x8 and the sums above cannot
 * overflow 32 bits; such an RTT gives the maximal RTO anyway. */
#define RTT_SAMPLE_MAX_MS ((uint32_t)1 << 24)

static uint32_t clamp_rto(uint32_t v)
{
    if (v < MIP_TCP_RTO_MIN_MS)
        return MIP_TCP_RTO_MIN_MS;
    if (v > MIP_TCP_RTO_MAX_MS)
        return MIP_TCP_RTO_MAX_MS;
    return v;
}

/* Before the first sample srtt_x8 is 0 and rttvar_x4 holds the RTO, so
 * the formula of tcp_rtt_rto gives it without a case of its own. */
static void rtt_unsampled(struct mip_tcp_rtt *r, uint16_t rto)
{
    r->srtt_x8 = 0;
    r->rttvar_x4 = rto;
    r->backoff = 0;
}

void tcp_rtt_init(struct mip_tcp_rtt *r)
{
    rtt_unsampled(r, MIP_TCP_RTO_INITIAL_MS);
}

void tcp_rtt_fallback(struct mip_tcp_rtt *r)
{
    rtt_unsampled(r, MIP_TCP_RTO_FALLBACK_MS);
}

void tcp_rtt_sample(struct mip_tcp_rtt *r, uint32_t rtt_ms)
{
    uint32_t var;

    if (rtt_ms == 0)
        rtt_ms = 1;     /* below the 1 ms granularity; keeps srtt_x8 != 0 */
    if (rtt_ms > RTT_SAMPLE_MAX_MS)
        rtt_ms = RTT_SAMPLE_MAX_MS;

    if (r->srtt_x8 == 0) {
        r->srtt_x8 = rtt_ms << 3;
        var = rtt_ms << 1;
    } else {
        uint32_t r8 = rtt_ms << 3;
        uint32_t d = (r->srtt_x8 > r8 ? r->srtt_x8 - r8 : r8 - r->srtt_x8) >> 3;
        var = (uint32_t)r->rttvar_x4 - (r->rttvar_x4 >> 2) + d;
        r->srtt_x8 = r->srtt_x8 - (r->srtt_x8 >> 3) + rtt_ms;
    }
    /* Saturates: 4 * RTTVAR >= 65535 ms gives the maximal RTO anyway. */
    r->rttvar_x4 = (uint16_t)(var > 0xFFFFu ? 0xFFFFu : var);
    r->backoff = 0;
}

uint32_t tcp_rtt_rto(const struct mip_tcp_rtt *r)
{
    /* max(G, K * RTTVAR), G = 1 ms; before the first sample this is the
     * initial or the fallback RTO (rtt_unsampled) */
    uint32_t base = clamp_rto((r->srtt_x8 >> 3) + (r->rttvar_x4 > 1u ? r->rttvar_x4 : 1u));
    /* base <= MAX < 2^16, so a shift below 16 cannot overflow 32 bits. */
    if (r->backoff >= 16u || (base << r->backoff) > MIP_TCP_RTO_MAX_MS)
        return MIP_TCP_RTO_MAX_MS;
    return base << r->backoff;
}

void tcp_rtt_backoff(struct mip_tcp_rtt *r)
{
    /* Saturates once the backed-off RTO has reached the maximum. */
    if (tcp_rtt_rto(r) < MIP_TCP_RTO_MAX_MS)
        r->backoff++;
}
