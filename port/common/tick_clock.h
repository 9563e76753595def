/*
 * A millisecond clock from a free-running hardware tick counter, for
 * board_now(): the counter's ticks since the previous read are counted into
 * milliseconds with the remainder carried, so mip_time_t advances exactly
 * and wraps at 2^32 like it. The micro:bit (TIMER0, 1 MHz), the ATmega1284P
 * (Timer1 extended to 32 bits, F_CPU / 64) and the MPS2 (CMSDK timer,
 * 25 MHz) use it.
 *
 * The counter must be read (tick_clock_advance) before it wraps once: at
 * least every 2^32 ticks.
 */
#ifndef MOTEIP_PORT_COMMON_TICK_CLOCK_H
#define MOTEIP_PORT_COMMON_TICK_CLOCK_H

#include <stdint.h>
#include "moteip/timer.h"

struct board_clock {
    uint32_t last_ticks;   /* counter at the previous read (counting up) */
    uint32_t rem_ticks;    /* ticks not yet counted as a millisecond */
    mip_time_t ms;
};

static inline void tick_clock_start(struct board_clock *c, uint32_t ticks)
{
    c->last_ticks = ticks;
    c->rem_ticks = 0;
    c->ms = 0;
}

/* The clock at counter value `ticks` (ticks_per_ms per millisecond). The
 * division is skipped under a millisecond: on an 8-bit CPU it is the
 * dearest part. */
static inline mip_time_t tick_clock_advance(struct board_clock *c, uint32_t ticks,
                                            uint32_t ticks_per_ms)
{
    c->rem_ticks += ticks - c->last_ticks;
    c->last_ticks = ticks;
    if (c->rem_ticks >= ticks_per_ms) {
        c->ms += c->rem_ticks / ticks_per_ms;
        c->rem_ticks %= ticks_per_ms;
    }
    return c->ms;
}

/* The counter value `ms` milliseconds after the last read, `ms` capped at
 * max_ms (a sleep that long ends in time to read the counter before it
 * wraps). */
static inline uint32_t tick_clock_deadline(const struct board_clock *c, uint32_t ms,
                                           uint32_t max_ms, uint32_t ticks_per_ms)
{
    if (ms > max_ms)
        ms = max_ms;
    return c->last_ticks + ms * ticks_per_ms - c->rem_ticks;
}

#endif
