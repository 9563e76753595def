/*
 * Real-time mode: sim_run's loop paced by the wall clock (realtime.h has
 * the contract). Between events the loop sleeps in ppoll on the border
 * router's device and a signalfd, so a frame from the host is taken as
 * soon as it arrives; when the simulation is late it does not sleep, and
 * looks at the descriptors once per millisecond of wall time.
 */
#define _GNU_SOURCE
#include "realtime.h"
#include "border.h"
#include "external.h"
#include "json.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_MS 1000000ull
#define LATE_NS (1ull * NS_PER_MS)          /* an event this late counts as late */
#define LOOK_NS (1ull * NS_PER_MS)          /* look at the host this often when late */
#define WARN_LAG_NS (100ull * NS_PER_MS)    /* warn when this far behind ... */
#define WARN_EVERY_NS (5000ull * NS_PER_MS) /* ... at most this often */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The wall clock (ns) at which simulated time t_us falls due. */
static uint64_t wall_of(const struct sim_realtime *rt, uint64_t t_us)
{
    return rt->start_ns + (uint64_t)((double)t_us * 1000.0 / rt->speed);
}

/* Simulated time (µs) the wall clock `ns` stands for, within [lo, hi]. */
static uint64_t sim_of(const struct sim_realtime *rt, uint64_t ns, uint64_t lo, uint64_t hi)
{
    uint64_t t = ns > rt->start_ns ? (uint64_t)((double)(ns - rt->start_ns) * rt->speed / 1000.0)
                                   : 0u;
    return t < lo ? lo : t > hi ? hi : t;
}

bool sim_realtime_init(struct sim_realtime *rt, double speed, char *err, size_t errlen)
{
    sigset_t set;
    memset(rt, 0, sizeof(*rt));
    rt->speed = speed;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);    /* the terminal went away: end as on SIGTERM */
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0 ||
        (rt->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
        snprintf(err, errlen, "--realtime: cannot take SIGINT/SIGTERM/SIGHUP: %s", strerror(errno));
        rt->sigfd = -1;
        return false;
    }
    return true;
}

void sim_realtime_close(struct sim_realtime *rt)
{
    if (rt->sigfd >= 0)
        close(rt->sigfd);
    rt->sigfd = -1;
}

enum rt_wake { RT_DUE, RT_INPUT, RT_STOP };

/* Waits until simulated time `due` falls due on the wall clock, unless a
 * frame from the host (taken in at once: RT_INPUT, the caller looks at
 * the queue again) or a signal (RT_STOP) comes first. */
static enum rt_wake rt_wait(struct sim *sim, struct sim_realtime *rt, uint64_t due)
{
    for (;;) {
        uint64_t now = mono_ns(), deadline = wall_of(rt, due);
        bool late = now >= deadline;
        /* the signals, the border router's device, the external nodes */
        struct pollfd pfd[2 + SIM_EXTERNAL_MAX];
        struct timespec ts = { 0, 0 };
        nfds_t nfds = 1, n_ext, k;
        int border = -1, n;
        if (late && now - rt->look_ns < LOOK_NS)
            return RT_DUE;
        if (!late) {
            ts.tv_sec = (time_t)((deadline - now) / 1000000000ull);
            ts.tv_nsec = (long)((deadline - now) % 1000000000ull);
        }
        rt->look_ns = now;
        pfd[0].fd = rt->sigfd;
        pfd[0].events = POLLIN;
        pfd[0].revents = 0;
        if (sim_border_fd(sim) >= 0) {
            border = (int)nfds;
            pfd[nfds].fd = sim_border_fd(sim);
            pfd[nfds].events = POLLIN;
            pfd[nfds].revents = 0;
            nfds++;
        }
        n_ext = sim_external_fds(sim, &pfd[nfds], SIM_EXTERNAL_MAX);
        nfds += n_ext;
        n = ppoll(pfd, nfds, &ts, NULL);
        if (n < 0 && errno != EINTR) {
            /* cannot watch the descriptors: still never run ahead */
            struct timespec at = { (time_t)(deadline / 1000000000ull),
                                   (long)(deadline % 1000000000ull) };
            while (!late && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR) {
            }
            return RT_DUE;
        }
        if (n <= 0) {
            if (late)
                return RT_DUE;
            continue;                   /* the clock decides */
        }
        if (pfd[0].revents & POLLIN) {
            struct signalfd_siginfo si;
            if (read(rt->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
                rt->stopped = true;
                return RT_STOP;
            }
        }
        if ((border >= 0 && pfd[border].revents != 0) || n > (pfd[0].revents != 0)) {
            /* the frame arrived now: at this simulated time, but never
             * before the last event run nor after the next one */
            sim->now_us = sim_of(rt, mono_ns(), sim->now_us, due);
            rt->host_wakeups++;
            if (border >= 0 && pfd[border].revents != 0)
                sim_border_input(sim);
            for (k = 0; k < n_ext; k++)
                if (pfd[nfds - n_ext + k].revents != 0)
                    sim_external_input(sim, (size_t)k);
            return RT_INPUT;
        }
    }
}

static void account_lag(struct sim_realtime *rt, uint64_t t_us)
{
    uint64_t now = mono_ns(), due = wall_of(rt, t_us);
    uint64_t lag = now > due ? now - due : 0u;
    if (lag > rt->max_lag_ns)
        rt->max_lag_ns = lag;
    rt->end_lag_ns = lag;
    if (lag > LATE_NS)
        rt->late_events++;
    if (lag > WARN_LAG_NS && now >= rt->warn_ns) {
        fprintf(stderr, "moteip-sim: warning: realtime: %.3f s behind the wall clock at "
                "simulated %.3f s: the host cannot keep up; events run back to back until "
                "the simulation catches up\n", (double)lag / 1e9, (double)t_us / 1e6);
        rt->warn_ns = now + WARN_EVERY_NS;
    }
}

void sim_realtime_run(struct sim *sim, struct sim_realtime *rt)
{
    struct sim_event ev;
    rt->start_ns = mono_ns();
    rt->look_ns = rt->start_ns;
    rt->warn_ns = rt->start_ns;
    for (;;) {
        const struct sim_event *next = sim_evq_peek(&sim->q);
        bool have = next != NULL && next->time_us <= sim->end_us;
        uint64_t due = have ? next->time_us : sim->end_us;
        enum rt_wake wake = rt_wait(sim, rt, due);
        if (wake == RT_STOP) {
            /* the run ends here: sim_run_end keeps this time */
            sim->now_us = sim_of(rt, mono_ns(), sim->now_us, due);
            sim->end_us = sim->now_us;
            break;
        }
        if (wake == RT_INPUT)
            continue;
        if (!have)
            break;                      /* the end time has come */
        (void)sim_evq_pop(&sim->q, &ev);
        {
            uint64_t before = sim->events;
            sim_event_run(sim, &ev);
            if (sim->events != before)
                account_lag(rt, ev.time_us);
        }
        if (sim_flows_finished(sim))
            break;
    }
    rt->wall_ns = mono_ns() - rt->start_ns;
    sim_run_end(sim);
}

void sim_realtime_write(const struct sim_realtime *rt, struct sj_writer *w)
{
    sj_w_begin_object(w);
    sj_w_member_double(w, "speed", rt->speed);
    sj_w_member_double(w, "wall_s", (double)rt->wall_ns / 1e9);
    sj_w_member_double(w, "max_lag_ms", (double)rt->max_lag_ns / 1e6);
    sj_w_member_double(w, "end_lag_ms", (double)rt->end_lag_ns / 1e6);
    sj_w_member_uint(w, "late_events", rt->late_events);
    sj_w_member_uint(w, "host_wakeups", rt->host_wakeups);
    sj_w_key(w, "stopped_by_signal");
    sj_w_bool(w, rt->stopped);
    sj_w_end_object(w);
}
