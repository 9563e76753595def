/*
 * Each node's own clock (scenario key radio.drift_ppm, docs/SIMULATOR.md
 * "Platform timing"): a crystal runs fast or slow by a fixed fraction, so a
 * node whose rate error is e ppb reads local(t) = t + floor(t e / 10^9) at
 * the simulator's time t. Its MAC plans in local time (wake-up grids, phase
 * locks, timeouts); the simulator converts each deadline back.
 */
#include "sim.h"

#define PPB 1000000000

/* floor(a / PPB) for a signed a */
static int64_t floor_div(int64_t a)
{
    return a >= 0 ? a / PPB : -((-a + PPB - 1) / PPB);
}

int32_t sim_clock_drift_ppb(double drift_ppm, const uint8_t seed[16])
{
    struct mip_rng r;
    uint32_t span;
    if (!(drift_ppm > 0.0))
        return 0;
    span = (uint32_t)(drift_ppm * 1000.0 + 0.5);
    mip_rng_seed(&r, seed, 16);
    /* uniform in [-span, +span] ppb, fixed for the run */
    return (int32_t)mip_rng_below(&r, 2u * span + 1u) - (int32_t)span;
}

uint64_t sim_clock_local(int32_t drift_ppb, uint64_t t_us)
{
    /* split t so the products stay in 64 bits for any run (t < 2^63) */
    int64_t q = (int64_t)(t_us / PPB), r = (int64_t)(t_us % PPB);
    int64_t off = q * drift_ppb + floor_div(r * drift_ppb);
    return (uint64_t)((int64_t)t_us + off);
}

/* The first simulator instant at which the clock reads local_us or more
 * (local time is monotonic: |drift| < 10^9 ppb). */
uint64_t sim_clock_global(int32_t drift_ppb, uint64_t local_us)
{
    uint64_t t = (uint64_t)((double)local_us * (double)PPB / ((double)PPB + (double)drift_ppb));
    while (t > 0u && sim_clock_local(drift_ppb, t - 1u) >= local_us)
        t--;
    while (sim_clock_local(drift_ppb, t) < local_us)
        t++;
    return t;
}
