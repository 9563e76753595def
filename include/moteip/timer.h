/*
 * Time: the stack never reads a clock. Callers pass `now`, a millisecond
 * count from any origin that wraps at 2^32 (49.7 days); comparisons are
 * wrap-safe as long as deadlines are less than 2^31 ms apart.
 *
 * Each module keeps its own deadlines; mip_stack_poll() runs the due ones
 * and reports the time to the earliest remaining one (tickless).
 */
#ifndef MOTEIP_TIMER_H
#define MOTEIP_TIMER_H

#include <stdint.h>
#include <stdbool.h>

typedef uint32_t mip_time_t;

/* How old a stored stamp may grow before the module that keeps it must
 * refresh, invalidate or age it: a quarter of the wrap (2^30 ms, 12.4
 * days), half the 2^31 ms the comparisons allow, so a stamp is never
 * compared across half the wrap even when a poll comes late. A module
 * whose stamp would otherwise outlive it reports a deadline by then. */
#define MIP_TIME_HORIZON_MS 0x40000000u

/* "No deadline": the value mip_stack_poll() returns when nothing is due. */
#define MIP_POLL_IDLE UINT32_MAX

/*
 * The debug check of the rule above (MIP_TIME_CHECK, on in the sanitized
 * test builds, MOTEIP_SANITIZE=ON; never in a release or firmware build):
 * every wrap-safe comparison, of either clock, asserts that its two times
 * are less than MIP_TIME_CHECK_FAR apart. Two values alone cannot tell a
 * stamp kept past half the wrap from a far deadline, so the check is a
 * tripwire band: no legitimate deadline is that far (the longest are
 * MIP_RDC_TIME_MAX = 30 min on the 35.8 min µs half-wrap, and TCP's PAWS
 * idle timer, MIP_TCP_PAWS_IDLE_MS = 24 days, on the 24.9-day ms one), and
 * a stale stamp that is compared as it ages (at every poll, as most are)
 * is compared inside the band, the last 2^26 ticks (67 s of µs, 18.6 h of
 * ms) before half the wrap, before it flips. docs/ARCHITECTURE.md "Time"
 * lists every stamp and what keeps it young.
 */
#ifndef MIP_TIME_CHECK
#define MIP_TIME_CHECK 0
#endif
#define MIP_TIME_CHECK_FAR 0x7C000000u
#if MIP_TIME_CHECK
#include <assert.h>
#define MIP_TIME_ASSERT_NEAR(d) \
    assert((int32_t)(d) > -(int32_t)MIP_TIME_CHECK_FAR && (int32_t)(d) < (int32_t)MIP_TIME_CHECK_FAR)
#else
#define MIP_TIME_ASSERT_NEAR(d) ((void)0)
#endif

/* True when a is strictly before b. */
static inline bool mip_time_before(mip_time_t a, mip_time_t b)
{
    MIP_TIME_ASSERT_NEAR(a - b);
    return (int32_t)(a - b) < 0;
}

/* True when deadline has been reached at now. */
static inline bool mip_time_reached(mip_time_t now, mip_time_t deadline)
{
    return !mip_time_before(now, deadline);
}

/* For a stamp with no timer of its own (a last use kept for an LRU order):
 * holds it at most MIP_TIME_HORIZON_MS before now, and returns when it must
 * be held again (at least half a horizon away), for the caller's poll to
 * fold into its deadline. A held stamp reads as "a horizon ago", older
 * than any stamp refreshed since, so orders and ages stay right. */
static inline uint32_t mip_time_hold(mip_time_t *stamp, mip_time_t now)
{
    uint32_t age = (uint32_t)(now - *stamp);
    if (age >= MIP_TIME_HORIZON_MS) {
        *stamp = now - MIP_TIME_HORIZON_MS;
        age = MIP_TIME_HORIZON_MS;
    }
    age = MIP_TIME_HORIZON_MS - age;
    return age > MIP_TIME_HORIZON_MS / 2u ? age : MIP_TIME_HORIZON_MS / 2u;
}

/* Folds a deadline into a running "milliseconds until the next one" value
 * (start with MIP_POLL_IDLE). A reached deadline gives 0. */
static inline uint32_t mip_next_delay(uint32_t delay, mip_time_t now, mip_time_t deadline)
{
    uint32_t d = mip_time_reached(now, deadline) ? 0u : (uint32_t)(deadline - now);
    return d < delay ? d : delay;
}

#endif
