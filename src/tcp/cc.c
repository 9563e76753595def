/* Congestion control: RFC 5681 slow start and congestion avoidance with
 * appropriate byte counting (RFC 3465, L = 1 SMSS), RFC 6582 NewReno fast
 * retransmit / fast recovery, RFC 3042 limited transmit, the congestion
 * response to a loss a tail loss probe repaired, and an optional cap
 * on the window in segments.
 *
 * All additions saturate at UINT32_MAX; nothing here can wrap. */
#include "moteip/tcp_parts.h"

#define CC_SSTHRESH_INITIAL 0xFFFFFFFFu

static uint32_t sat_add(uint32_t a, uint32_t b)
{
    return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

static uint32_t cap_bytes(const struct mip_tcp_cc *cc)
{
    return (uint32_t)cc->cap_segments * (uint32_t)cc->mss;
}

/* Limits cwnd to the cap outside recovery, so it does not grow without
 * bound while the cap holds the window down. */
static void apply_cap(struct mip_tcp_cc *cc)
{
    if (cc->cap_segments != 0 && cc->cwnd > cap_bytes(cc))
        cc->cwnd = cap_bytes(cc);
}

/* RFC 5681 eqn 4: max(FlightSize / 2, 2 * SMSS). */
static uint32_t half_flight(const struct mip_tcp_cc *cc, uint32_t flight)
{
    uint32_t two = (uint32_t)cc->mss * 2u;
    uint32_t half = flight / 2u;
    return half > two ? half : two;
}

void tcp_cc_init(struct mip_tcp_cc *cc, uint16_t mss, uint8_t cap_segments)
{
    uint32_t m;
    if (mss == 0)
        mss = 1;
    m = mss;
    cc->mss = mss;
    cc->cap_segments = cap_segments;
    if (m > 2190u)
        cc->cwnd = 2u * m;
    else if (m > 1095u)
        cc->cwnd = 3u * m;
    else
        cc->cwnd = 4u * m;
    apply_cap(cc);
    cc->ssthresh = CC_SSTHRESH_INITIAL;
    cc->recover = 0;
    cc->acked = 0;
    cc->dupacks = 0;
    cc->timed_out = 0;
    cc->in_recovery = 0;
}

void tcp_cc_on_ack(struct mip_tcp_cc *cc, uint32_t acked)
{
    cc->dupacks = 0;
    if (acked == 0)
        return;
    if (cc->cwnd < cc->ssthresh) {
        /* Slow start, RFC 5681 eqn 2: cwnd += min(N, SMSS). */
        cc->cwnd = sat_add(cc->cwnd, acked < cc->mss ? acked : (uint32_t)cc->mss);
        cc->acked = 0;
    } else {
        /* Congestion avoidance, RFC 3465: one SMSS per cwnd bytes
         * acknowledged. */
        cc->acked = sat_add(cc->acked, acked);
        if (cc->acked >= cc->cwnd) {
            cc->acked -= cc->cwnd;
            cc->cwnd = sat_add(cc->cwnd, cc->mss);
        }
    }
    apply_cap(cc);
}

bool tcp_cc_on_dupack(struct mip_tcp_cc *cc, uint32_t flight, uint32_t snd_max, uint8_t thresh)
{
    if (cc->in_recovery) {
        /* RFC 5681 3.2 step 4: each further duplicate inflates cwnd. */
        cc->cwnd = sat_add(cc->cwnd, cc->mss);
        return false;
    }
    if (cc->dupacks < 63u)
        cc->dupacks++;
    if (cc->dupacks != thresh)
        return false;
    /* RFC 6582 3.2 step 2: not when the ACK lies below recover as a
     * timeout set it (duplicates of the data sent before it; RFC 6675 5.1
     * likewise). snd_una = snd_max - flight; a recover outside
     * (snd_una, snd_max] holds nothing back. */
    if (cc->timed_out && cc->recover - (snd_max - flight) - 1u < flight)
        return false;
    /* RFC 5681 3.2 steps 2-3 with RFC 6582's recover: fast retransmit,
     * then fast recovery. */
    cc->ssthresh = half_flight(cc, flight);
    cc->cwnd = sat_add(cc->ssthresh, 3u * (uint32_t)cc->mss);
    cc->recover = snd_max;
    cc->in_recovery = 1;
    cc->acked = 0;
    return true;
}

bool tcp_cc_on_recovery_ack(struct mip_tcp_cc *cc, uint32_t ack, uint32_t acked,
                            uint32_t flight)
{
    if (MIP_SEQ_GEQ(ack, cc->recover)) {
        /* RFC 6582 3.2 "Full acknowledgments", option (1):
         * cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS). */
        uint32_t f = flight > cc->mss ? flight : (uint32_t)cc->mss;
        f = sat_add(f, cc->mss);
        cc->cwnd = f < cc->ssthresh ? f : cc->ssthresh;
        cc->in_recovery = 0;
        cc->dupacks = 0;
        cc->acked = 0;
        return false;
    }
    /* RFC 6582 3.2 "Partial acknowledgments": deflate by the newly
     * acknowledged bytes, add back one SMSS if at least one SMSS was
     * acknowledged. Not below one SMSS (the RFC leaves that case open). */
    cc->cwnd = cc->cwnd > acked ? cc->cwnd - acked : 0u;
    if (acked >= cc->mss)
        cc->cwnd = sat_add(cc->cwnd, cc->mss);
    if (cc->cwnd < cc->mss)
        cc->cwnd = cc->mss;
    return true;
}

void tcp_cc_on_tail_loss(struct mip_tcp_cc *cc, uint32_t flight)
{
    cc->ssthresh = half_flight(cc, flight);
    cc->cwnd = cc->ssthresh;
    cc->acked = 0;
    apply_cap(cc);
}

void tcp_cc_on_timeout(struct mip_tcp_cc *cc, uint32_t flight, uint32_t snd_max)
{
    cc->ssthresh = half_flight(cc, flight);
    cc->recover = snd_max;
    cc->timed_out = 1;
    cc->cwnd = cc->mss;         /* loss window: one segment */
    cc->in_recovery = 0;
    cc->dupacks = 0;
    cc->acked = 0;
}

uint32_t tcp_cc_window(const struct mip_tcp_cc *cc)
{
    if (cc->cap_segments != 0 && cc->cwnd > cap_bytes(cc))
        return cap_bytes(cc);
    return cc->cwnd;
}

uint32_t tcp_cc_window_limited(const struct mip_tcp_cc *cc)
{
    uint32_t w = sat_add(cc->cwnd, (uint32_t)cc->dupacks * cc->mss);
    if (cc->in_recovery || cc->dupacks == 0u || cc->dupacks > 2u)
        return tcp_cc_window(cc);
    if (cc->cap_segments != 0 && w > cap_bytes(cc))
        w = cap_bytes(cc);
    return w;       /* outside recovery cwnd <= the cap: w >= cwnd */
}
