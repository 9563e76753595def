/*
 * RPL's pure rules (rpl.h, "Rules"): lollipop sequence comparison (RFC 6550
 * 7.2), DAGRank, OF0 (RFC 6552) and MRHOF (RFC 6719) rank and path cost,
 * the ETX estimator, and Trickle (RFC 6206). No state but what the caller
 * passes in; rpl.c applies them.
 */
#include "moteip/rpl.h"
#include "moteip/rng.h"

#define SEQ_WINDOW 16u     /* RFC 6550 7.2 SEQUENCE_WINDOW */

bool mip_rpl_seq_newer(uint8_t a, uint8_t b)
{
    if (a == b)
        return false;
    if (a > 127u && b <= 127u)
        return 256u + b - a > SEQ_WINDOW;
    if (a <= 127u && b > 127u)
        return 256u + a - b <= SEQ_WINDOW;
    if (a > 127u)                       /* both in the linear part */
        return a > b;
    /* both in the circular part, 7 bits */
    return (uint8_t)((a - b) & 0x7Fu) < 64u;
}

uint8_t mip_rpl_seq_next(uint8_t v)
{
    if (v >= 128u)
        return (uint8_t)(v == 255u ? 0u : v + 1u);
    return (uint8_t)((v + 1u) & 0x7Fu);
}

uint16_t mip_rpl_dag_rank(uint16_t rank, uint16_t min_hop)
{
    return min_hop == 0u ? rank : (uint16_t)(rank / min_hop);
}

static uint16_t sat16(uint32_t v)
{
    return v >= MIP_RPL_INFINITE_RANK ? (uint16_t)MIP_RPL_INFINITE_RANK : (uint16_t)v;
}

uint8_t mip_rpl_of0_step(uint16_t etx)
{
    /* RFC 6552 leaves step_of_rank's link input open: 2 * ETX - 1,
     * clamped to 1..9 (MINIMUM/MAXIMUM_STEP_OF_RANK) gives the default
     * step 3 at ETX 2 (the estimate of an unmeasured link) and 1 for a
     * perfect link. */
    uint32_t step = (2u * (uint32_t)etx + MIP_RPL_ETX_ONE / 2u) / MIP_RPL_ETX_ONE;
    step = step > 1u ? step - 1u : 1u;
    return (uint8_t)(step > 9u ? 9u : step);
}

uint16_t mip_rpl_of0_rank(uint16_t parent_rank, uint16_t etx, uint16_t min_hop)
{
    /* RFC 6552 4.1: R(N) = R(P) + rank_increase, rank_increase =
     * (Rf * Sp + Sr) * MinHopRankIncrease with Rf = 1 and Sr = 0
     * (DEFAULT_RANK_FACTOR, DEFAULT_RANK_STRETCH). */
    if (parent_rank == MIP_RPL_INFINITE_RANK)
        return MIP_RPL_INFINITE_RANK;
    return sat16((uint32_t)parent_rank + (uint32_t)mip_rpl_of0_step(etx) * min_hop);
}

uint16_t mip_rpl_mrhof_path_cost(uint16_t parent_rank, uint16_t etx)
{
    /* RFC 6719 3.1 without a metric container: the neighbour's rank
     * stands for its path cost; the link's ETX is added. */
    uint32_t c;
    if (parent_rank == MIP_RPL_INFINITE_RANK || etx > MIP_RPL_MRHOF_MAX_LINK_METRIC)
        return MIP_RPL_INFINITE_RANK;
    c = (uint32_t)parent_rank + etx;
    return c > MIP_RPL_MRHOF_MAX_PATH_COST ? (uint16_t)MIP_RPL_INFINITE_RANK : (uint16_t)c;
}

uint16_t mip_rpl_mrhof_rank(uint16_t parent_rank, uint16_t etx, uint16_t min_hop)
{
    /* RFC 6719 3.3: the rank is the path cost, but never less than one
     * whole rank step above the parent (RFC 6550 8.2.1: a parent's
     * DAGRank is below ours), or an ETX under MinHopRankIncrease would
     * give parent and child the same DAGRank. */
    uint16_t cost = mip_rpl_mrhof_path_cost(parent_rank, etx);
    uint32_t floor_rank;
    if (cost == MIP_RPL_INFINITE_RANK || min_hop == 0u)
        return cost;
    floor_rank = ((uint32_t)mip_rpl_dag_rank(parent_rank, min_hop) + 1u) * min_hop;
    return sat16(cost > floor_rank ? cost : floor_rank);
}

uint16_t mip_rpl_etx_update(uint16_t etx, uint8_t samples, bool acked, uint8_t retries)
{
    /* Not specified by RFC 6719 (it takes ETX from "the link layer"):
     * the frame's own ETX is its transmissions when ACKed, twice that when
     * every one went unanswered (it would have needed more); an
     * exponentially weighted average with weight 1/8 (as TCP's SRTT)
     * smooths it, the first sample replacing the initial guess. */
    uint32_t tx = (uint32_t)retries + 1u;
    uint32_t pkt = (acked ? tx : 2u * tx) * MIP_RPL_ETX_ONE;
    uint32_t v;
    if (pkt > 0xFFFFu)
        pkt = 0xFFFFu;
    if (samples == 0u)
        return (uint16_t)pkt;
    v = ((uint32_t)etx * 7u + pkt + 4u) / 8u;
    return (uint16_t)(v > 0xFFFFu ? 0xFFFFu : v);
}

/* --- Trickle (RFC 6206 4.2) ---------------------------------------------- */

static uint32_t trickle_imax(uint8_t imin_log, uint8_t doublings)
{
    unsigned e = (unsigned)imin_log + doublings;
    /* 2^30 ms (12 days): below half the 32-bit ms clock's wrap */
    return (uint32_t)1u << (e > 30u ? 30u : e);
}

/* Rule 4.2.1/4.2.4 start of an interval: c = 0, t in [I/2, I). */
static void trickle_begin(struct mip_rpl_trickle *t, struct mip_rng *rng, mip_time_t now)
{
    uint32_t half = t->i_ms / 2u;
    t->start = now;
    t->c = 0;
    t->sent = false;
    t->t_at = now + half + (half > 0u ? mip_rng_below(rng, half) : 0u);
}

void mip_rpl_trickle_start(struct mip_rpl_trickle *t, uint8_t imin_log, struct mip_rng *rng,
                           mip_time_t now)
{
    t->i_ms = (uint32_t)1u << (imin_log > 30u ? 30u : imin_log);
    trickle_begin(t, rng, now);
}

bool mip_rpl_trickle_reset(struct mip_rpl_trickle *t, uint8_t imin_log, struct mip_rng *rng,
                           mip_time_t now)
{
    /* 4.2.6: only when I > Imin */
    if (t->i_ms <= ((uint32_t)1u << (imin_log > 30u ? 30u : imin_log)))
        return false;
    mip_rpl_trickle_start(t, imin_log, rng, now);
    return true;
}

int mip_rpl_trickle_poll(struct mip_rpl_trickle *t, uint8_t imin_log, uint8_t doublings,
                         uint8_t k, struct mip_rng *rng, mip_time_t now, uint32_t *next)
{
    int fire = 0;
    if (!t->sent && mip_time_reached(now, t->t_at)) {
        t->sent = true;
        /* 4.2.4: transmit only if c < k; k = 0 never suppresses (RFC 6550
         * 8.3.1 "a value of 0 ... disables suppression") */
        fire = (k == 0u || t->c < k) ? 1 : -1;
    }
    if (mip_time_reached(now, t->start + t->i_ms)) {
        /* 4.2.5: the interval ends: double I, at most Imax */
        uint32_t imax = trickle_imax(imin_log, doublings);
        t->i_ms = t->i_ms >= imax / 2u ? imax : t->i_ms * 2u;
        trickle_begin(t, rng, now);
    }
    *next = mip_next_delay(*next, now, t->sent ? t->start + t->i_ms : t->t_at);
    return fire;
}
