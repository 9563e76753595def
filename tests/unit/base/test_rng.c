/* The instance PRNG (src/base/rng.c): xoshiro128** known answers,
 * determinism per seed, seed sensitivity, and mip_rng_below bounds. The
 * stack's use of it: tests/unit/core/test_stack_seed.c. */
#include "testing.h"
#include "moteip/rng.h"

#define N_DRAWS 1000u

static void test_next_matches_xoshiro128starstar_reference(void)
{
    /* Reference output of xoshiro128** (Blackman & Vigna) from the state
     * {1, 2, 3, 4}, computed independently of this implementation. */
    static const uint32_t want[6] = {0x00002d00u, 0x00000000u, 0x005a7080u,
                                     0x04389d80u, 0x79199d9bu, 0x61963b24u};
    struct mip_rng r;
    unsigned i;
    r.s[0] = 1; r.s[1] = 2; r.s[2] = 3; r.s[3] = 4;
    for (i = 0; i < 6; i++)
        CHECK_EQ(mip_rng_next(&r), want[i]);
}

static void test_same_seed_gives_same_sequence(void)
{
    static const uint8_t seed[16] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6};
    struct mip_rng a, b;
    unsigned i, same = 0;
    mip_rng_seed(&a, seed, sizeof(seed));
    mip_rng_seed(&b, seed, sizeof(seed));
    for (i = 0; i < N_DRAWS; i++)
        same += mip_rng_next(&a) == mip_rng_next(&b);
    CHECK_EQ(same, N_DRAWS);
}

/* How many of N_DRAWS outputs of two generators differ position by position. */
static unsigned count_differences(const uint8_t *s1, size_t l1, const uint8_t *s2, size_t l2)
{
    struct mip_rng a, b;
    unsigned i, diff = 0;
    mip_rng_seed(&a, s1, l1);
    mip_rng_seed(&b, s2, l2);
    for (i = 0; i < N_DRAWS; i++)
        diff += mip_rng_next(&a) != mip_rng_next(&b);
    return diff;
}

static void test_different_seed_gives_different_sequence(void)
{
    uint8_t s1[16], s2[16];
    unsigned byte, bit;
    memset(s1, 0x5A, sizeof(s1));
    /* Flipping any single bit of the seed changes (practically) every
     * output: two independent 32-bit streams agree at a position with
     * probability 2^-32, so more than 2 agreements in 1000 means the seed
     * byte was ignored or poorly mixed. */
    for (byte = 0; byte < sizeof(s1); byte++) {
        for (bit = 0; bit < 8; bit++) {
            memcpy(s2, s1, sizeof(s1));
            s2[byte] ^= (uint8_t)(1u << bit);
            CHECK(count_differences(s1, sizeof(s1), s2, sizeof(s2)) >= N_DRAWS - 2u);
        }
    }
    /* the length takes part too: "\0" and "\0\0" are different seeds */
    {
        static const uint8_t z[2] = {0, 0};
        CHECK(count_differences(z, 1, z, 2) >= N_DRAWS - 2u);
        CHECK(count_differences(z, 0, z, 1) >= N_DRAWS - 2u);
    }
}

static void test_all_zero_seed_does_not_stick_at_zero(void)
{
    static const uint8_t zero[16] = {0};
    struct mip_rng r;
    unsigned i, zeros = 0;
    mip_rng_seed(&r, zero, sizeof(zero));
    CHECK((r.s[0] | r.s[1] | r.s[2] | r.s[3]) != 0);
    for (i = 0; i < N_DRAWS; i++)
        zeros += mip_rng_next(&r) == 0;
    CHECK(zeros <= 1u);
}

static void test_below_stays_in_bounds_and_covers_range(void)
{
    static const uint8_t seed[4] = {1, 2, 3, 4};
    static const uint32_t bounds[] = {1u, 2u, 3u, 7u, 10u, 1000u, 0x80000001u, 0xFFFFFFFFu};
    struct mip_rng r;
    unsigned bi, i;
    mip_rng_seed(&r, seed, sizeof(seed));
    for (bi = 0; bi < sizeof(bounds) / sizeof(bounds[0]); bi++) {
        uint32_t max = 0;
        for (i = 0; i < 10000u; i++) {
            uint32_t v = mip_rng_below(&r, bounds[bi]);
            if (v >= bounds[bi]) {
                CHECK(v < bounds[bi]);
                break;
            }
            if (v > max)
                max = v;
        }
        if (bounds[bi] == 1u)
            CHECK_EQ(max, 0);
        if (bounds[bi] >= 0x80000001u)
            CHECK(max >= bounds[bi] / 2u);    /* the upper half is reached */
    }
}

static void test_below_hits_every_value_of_a_small_range(void)
{
    static const uint8_t seed[4] = {4, 3, 2, 1};
    struct mip_rng r;
    unsigned hist[7] = {0};
    unsigned i;
    mip_rng_seed(&r, seed, sizeof(seed));
    for (i = 0; i < 7000u; i++)
        hist[mip_rng_below(&r, 7)]++;
    /* roughly uniform: expectation 1000 each, sd ~30 */
    for (i = 0; i < 7; i++)
        CHECK(hist[i] > 850u && hist[i] < 1150u);
}

static void test_below_zero_bound_gives_zero(void)
{
    static const uint8_t seed[4] = {4, 3, 2, 1};
    struct mip_rng r;
    unsigned i;
    mip_rng_seed(&r, seed, sizeof(seed));
    for (i = 0; i < 100; i++)
        CHECK_EQ(mip_rng_below(&r, 0), 0);
}

int main(void)
{
    RUN(test_next_matches_xoshiro128starstar_reference);
    RUN(test_same_seed_gives_same_sequence);
    RUN(test_different_seed_gives_different_sequence);
    RUN(test_all_zero_seed_does_not_stick_at_zero);
    RUN(test_below_stays_in_bounds_and_covers_range);
    RUN(test_below_hits_every_value_of_a_small_range);
    RUN(test_below_zero_bound_gives_zero);
    return TESTING_DONE();
}
