/*
 * Real-time mode (moteip-sim --realtime, sim/realtime.c): the same events
 * as sim_run, each run when the wall clock (CLOCK_MONOTONIC) reaches its
 * simulated time, so the network can talk to real programs on the host
 * through the border router (border.h).
 *
 * Contract:
 *   - simulated time never runs ahead of the wall clock: an event at
 *     simulated t runs no earlier than start + t / speed;
 *   - events run in the order and with the outcome of sim_run (nothing is
 *     skipped, merged or reordered), so a run without host traffic gives
 *     the result of the same run without --realtime;
 *   - a frame from the host enters the border router (a datagram from an
 *     external node, external.h, the medium) at the simulated time of its
 *     arrival (the wall clock, or the time of the next event when the
 *     simulation is late), never before the last event run;
 *   - when the host cannot keep up, events run late, back to back, until
 *     the simulation catches up; it is never made to jump. How late is
 *     measured (max_lag_ms, late_events in the result) and a warning goes
 *     to stderr at most every 5 s while more than 100 ms behind;
 *   - SIGINT and SIGTERM end the run at the current simulated time; the
 *     result is written as for a run that reached its end.
 */
#ifndef MOTEIP_SIM_REALTIME_H
#define MOTEIP_SIM_REALTIME_H

#include "sim.h"

struct sj_writer;

struct sim_realtime {
    double   speed;             /* simulated seconds per wall second (1: real time) */
    int      sigfd;             /* signalfd of SIGINT and SIGTERM */
    uint64_t start_ns;          /* CLOCK_MONOTONIC at simulated time 0 */
    uint64_t look_ns;           /* last look at the descriptors */
    uint64_t warn_ns;           /* no lag warning before this */
    bool     stopped;           /* a signal ended the run */
    /* how late events ran, in wall time */
    uint64_t late_events;       /* events run more than 1 ms after their time */
    uint64_t max_lag_ns;
    uint64_t end_lag_ns;        /* of the last event run */
    uint64_t host_wakeups;      /* waits a frame from the host ended */
    uint64_t wall_ns;           /* the run's length on the wall clock */
};

/* Prepares a real-time run at `speed` (> 0): blocks SIGINT and SIGTERM and
 * takes them through a signalfd. False with a message in err. */
bool sim_realtime_init(struct sim_realtime *rt, double speed, char *err, size_t errlen);
/* Runs sim to its end paced by the wall clock (the contract above); the
 * border router's device, if open, is read as frames arrive. */
void sim_realtime_run(struct sim *sim, struct sim_realtime *rt);
/* The "realtime" object of the result (wall-clock figures: not
 * reproducible, and absent from runs without --realtime). */
void sim_realtime_write(const struct sim_realtime *rt, struct sj_writer *w);
void sim_realtime_close(struct sim_realtime *rt);

#endif
