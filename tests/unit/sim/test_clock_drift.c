/*
 * Each node's own clock (sim/platform.c): local(t) = t + floor(t e / 10^9)
 * for a rate error of e ppb; sim_clock_global is its inverse (the first
 * instant the clock reads a value), exact over ten years of simulated time;
 * the drawn error stays within the crystal's +/- bound and is fixed by the
 * seed.
 */
#include "sim.h"
#include "testing.h"

static void test_local_time_runs_at_the_clock_rate(void)
{
    CHECK_EQ(sim_clock_local(0, 123456789u), 123456789u);
    /* +40 ppm: 40 us fast per second; -40 ppm: 40 us slow */
    CHECK_EQ(sim_clock_local(40000, 1000000u), 1000040u);
    CHECK_EQ(sim_clock_local(-40000, 1000000u), 999960u);
    /* a part of a microsecond is not yet a microsecond (floor, both ways) */
    CHECK_EQ(sim_clock_local(40000, 24u), 24u);
    CHECK_EQ(sim_clock_local(-40000, 24u), 23u);
    /* ten years at 100 ppm: no overflow in the products */
    CHECK_EQ(sim_clock_local(100000, 315360000000000ull), 315360000000000ull + 31536000000ull);
}

static void test_global_is_the_first_instant_the_clock_reads_a_value(void)
{
    static const int32_t rates[] = { 0, 1, -1, 40000, -40000, 500000, -500000 };
    static const uint64_t locals[] = { 0, 1, 999, 1000000, 4294967295ull, 315360000000000ull };
    size_t i, j;
    for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
        for (j = 0; j < sizeof(locals) / sizeof(locals[0]); j++) {
            uint64_t t = sim_clock_global(rates[i], locals[j]);
            CHECK(sim_clock_local(rates[i], t) >= locals[j]);
            CHECK(t == 0u || sim_clock_local(rates[i], t - 1u) < locals[j]);
        }
    }
}

static void test_drawn_error_is_within_the_bound_and_fixed_by_the_seed(void)
{
    uint8_t seed[16] = { 0 };
    int32_t lo = 0, hi = 0, e;
    unsigned i;
    CHECK_EQ(sim_clock_drift_ppb(0.0, seed), 0);
    for (i = 0; i < 2000u; i++) {
        seed[0] = (uint8_t)i;
        seed[1] = (uint8_t)(i >> 8);
        e = sim_clock_drift_ppb(40.0, seed);
        CHECK(e >= -40000 && e <= 40000);
        CHECK_EQ(sim_clock_drift_ppb(40.0, seed), e);
        lo = e < lo ? e : lo;
        hi = e > hi ? e : hi;
    }
    /* uniform over the range: 2000 draws reach near both ends */
    CHECK(lo < -38000 && hi > 38000);
}

int main(void)
{
    RUN(test_local_time_runs_at_the_clock_rate);
    RUN(test_global_is_the_first_instant_the_clock_reads_a_value);
    RUN(test_drawn_error_is_within_the_bound_and_fixed_by_the_seed);
    return TESTING_DONE();
}
