/* The adaptive interval of TCPlp Appendix C (rdc.h), shared by every
 * duty-cycled RDC: doubling while nothing arrives, clamped at the longest
 * (a multiple of the shortest), back to the shortest after a frame. */
#include "testing.h"
#include "moteip/rdc.h"

#if MIP_CONF_RDC != 0

static void test_intervals_double_clamp_and_reset(void)
{
    static const struct {
        uint32_t base, max;
        const char *heard;      /* per wake-up: 'h' a frame came before it */
        uint32_t want[8];       /* intervals returned, in units of base (max for -1) */
    } rows[] = {
        { 100, 0, "....", { 1, 1, 1, 1 } },                    /* fixed */
        { 100, 800, ".......", { 2, 4, 8, 8, 8, 8, 8 } },
        { 100, 650, "......", { 2, 4, 6, 6, 6, 6 } },          /* 650 -> 600 */
        { 100, 800, "..h..h", { 2, 4, 1, 2, 4, 1 } },
        { 100, 50, "...", { 1, 1, 1 } },                       /* max below base: fixed */
        { 20000, 5000000, "........", { 2, 4, 8, 16, 32, 64, 128, 250 } },
    };
    unsigned r, k;
    for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
        struct mip_rdc_adapt a = { 0, false };
        for (k = 0; rows[r].heard[k] != '\0'; k++) {
            if (rows[r].heard[k] == 'h')
                mip_rdc_adapt_heard(&a);
            CHECK_EQ(mip_rdc_adapt_next(&a, rows[r].base, rows[r].max),
                     rows[r].want[k] * rows[r].base);
        }
    }
}

static void test_longest_is_a_multiple_of_the_shortest(void)
{
    CHECK_EQ(mip_rdc_adapt_longest(125000, 0), 125000);
    CHECK_EQ(mip_rdc_adapt_longest(125000, 1000000), 1000000);
    CHECK_EQ(mip_rdc_adapt_longest(125000, 1100000), 1000000);
    CHECK_EQ(mip_rdc_adapt_longest(125000, 100000), 125000);
    CHECK_EQ(mip_rdc_adapt_longest(1, MIP_RDC_TIME_MAX), MIP_RDC_TIME_MAX);
}

int main(void)
{
    RUN(test_intervals_double_clamp_and_reset);
    RUN(test_longest_is_a_multiple_of_the_shortest);
    return TESTING_DONE();
}

#else

int main(void)
{
    printf("no duty cycling in this build (MIP_CONF_RDC)\n");
    return 0;
}

#endif
