/*
 * src/os/: the runtime above the stack (DESIGN.md's "os" floor): the process
 * kernel (this file), the stack as a service (net.c). It may include the
 * public headers of every floor below (core, tcp, relay, route); apps and
 * ports sit above it.
 *
 * The kernel (include/moteip/os.h): a list of processes, a ring of queued
 * events, a list of armed timers, and one entry point, mip_os_run.
 */
#include <string.h>

#include "moteip/os.h"

#define INTERVAL_MAX 0x7FFFFFFFu

void mip_os_init(struct mip_os *os, mip_time_t now)
{
    memset(os, 0, sizeof(*os));
    os->now = now;
}

uint32_t mip_os_stat(const struct mip_os *os, enum mip_os_stat which)
{
    return (unsigned)which < MIP_OS_STAT_COUNT ? os->stats[which] : 0u;
}

bool mip_os_running(const struct mip_os_process *p)
{
    return p->running;
}

static void unlink_process(struct mip_os *os, struct mip_os_process *p)
{
    struct mip_os_process **pp;
    for (pp = &os->procs; *pp != NULL; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    p->next = NULL;
}

static void unlink_timer(struct mip_os *os, struct mip_os_etimer *t)
{
    struct mip_os_etimer **tp;
    for (tp = &os->timers; *tp != NULL; tp = &(*tp)->next)
        if (*tp == t) {
            *tp = t->next;
            break;
        }
    t->next = NULL;
    t->armed = false;
    t->due = false;
}

static void stop_timers_of(struct mip_os *os, struct mip_os_process *p)
{
    struct mip_os_etimer **tp = &os->timers;
    while (*tp != NULL) {
        struct mip_os_etimer *t = *tp;
        if (t->p == p) {
            *tp = t->next;
            t->next = NULL;
            t->armed = false;
        } else {
            tp = &t->next;
        }
    }
}

/* The process is gone: out of the list, its timers stopped; the others are
 * told (EXITED, synchronously: the process struct may be reused after). */
static void finish(struct mip_os *os, struct mip_os_process *p)
{
    struct mip_os_process *q;
    unlink_process(os, p);
    stop_timers_of(os, p);
    p->running = false;
    for (q = os->procs; q != NULL; q = q->next)
        if (!q->in_call)
            (void)mip_os_post_sync(os, q, MIP_OS_EV_EXITED, p);
}

/* One call of p's thread; ends p when the thread has ended. */
static void call(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev, void *data)
{
    char r;
    p->in_call = true;
    os->stats[MIP_OS_STAT_dispatched]++;
    r = p->thread(os, p, ev, data);
    p->in_call = false;
    if ((r == MIP_PT_ENDED || r == MIP_PT_EXITED) && p->running)
        finish(os, p);
}

mip_status mip_os_start(struct mip_os *os, struct mip_os_process *p, const char *name,
                        mip_os_thread_fn thread, void *ctx, void *data)
{
    struct mip_os_process *q;
    for (q = os->procs; q != NULL; q = q->next)
        if (q == p)
            return MIP_ERR_INUSE;
    if (thread == NULL)
        return MIP_ERR_INVALID;
    memset(p, 0, sizeof(*p));
    p->name = name;
    p->thread = thread;
    p->ctx = ctx;
    p->running = true;
    p->next = os->procs;
    os->procs = p;
    call(os, p, MIP_OS_EV_INIT, data);
    return MIP_OK;
}

void mip_os_exit(struct mip_os *os, struct mip_os_process *p)
{
    if (!p->running)
        return;
    if (!p->in_call)
        call(os, p, MIP_OS_EV_EXIT, NULL);     /* its last event: let it clean up */
    if (p->running)
        finish(os, p);
}

mip_status mip_os_post(struct mip_os *os, struct mip_os_process *to, mip_os_event_t ev,
                       void *data)
{
    struct mip_os_slot *s;
    if (os->q_count >= MIP_OS_EVENTS) {
        os->stats[MIP_OS_STAT_queue_full]++;
        return MIP_ERR_NOBUFS;
    }
    s = &os->q[(os->q_head + os->q_count) % MIP_OS_EVENTS];
    s->to = to;
    s->ev = ev;
    s->data = data;
    os->q_count++;
    os->stats[MIP_OS_STAT_posted]++;
    return MIP_OK;
}

mip_status mip_os_post_sync(struct mip_os *os, struct mip_os_process *to, mip_os_event_t ev,
                            void *data)
{
    if (to == NULL || !to->running)
        return MIP_ERR_INVALID;
    if (to->in_call) {              /* a protothread cannot be entered twice */
        os->stats[MIP_OS_STAT_sync_refused]++;
        return MIP_ERR_INUSE;
    }
    call(os, to, ev, data);
    return MIP_OK;
}

void mip_os_poll_request(struct mip_os *os, struct mip_os_process *p)
{
    p->poll_requested = 1;
    os->poll_pending = 1;
}

static void run_polls(struct mip_os *os)
{
    struct mip_os_process *p, *next;
    if (!os->poll_pending)
        return;
    /* Cleared before the handlers run: a request made meanwhile (by an
     * interrupt) is kept for the next run, not lost. */
    os->poll_pending = 0;
    for (p = os->procs; p != NULL; p = next) {
        next = p->next;
        if (p->poll_requested) {
            p->poll_requested = 0;
            os->stats[MIP_OS_STAT_polls]++;
            call(os, p, MIP_OS_EV_POLL, NULL);
        }
    }
}

static bool expired_at(const struct mip_os_etimer *t, mip_time_t now)
{
    return mip_time_reached(now, t->start + t->interval);
}

static void run_timers(struct mip_os *os, mip_time_t now)
{
    struct mip_os_etimer *t;

    /* Mark the expired ones first: what their handlers arm (a periodic timer
     * reset, even to 0 ms) is not marked and waits for the next run. Each is
     * disarmed before it is handled, so a stored stamp is never read after
     * its timer fired (time safety), and handlers may arm or stop any timer. */
    for (t = os->timers; t != NULL; t = t->next)
        t->due = expired_at(t, now);
    for (;;) {
        for (t = os->timers; t != NULL && !t->due; t = t->next)
            ;
        if (t == NULL)
            return;
        unlink_timer(os, t);
        if (t->p != NULL && t->p->running &&
            mip_os_post(os, t->p, MIP_OS_EV_TIMER, t) != MIP_OK) {
            /* the queue is full: still due, at the next run */
            t->armed = true;
            t->next = os->timers;
            os->timers = t;
            return;
        }
        os->stats[MIP_OS_STAT_timers_fired]++;
        if (t->p == NULL && t->fn != NULL)
            t->fn(t->fn_ctx);
    }
}

static void run_events(struct mip_os *os)
{
    uint8_t n = os->q_count;         /* only those queued before this run */
    while (n-- > 0 && os->q_count > 0) {
        struct mip_os_slot s = os->q[os->q_head];
        os->q_head = (uint8_t)((os->q_head + 1u) % MIP_OS_EVENTS);
        os->q_count--;
        if (s.to == NULL) {
            struct mip_os_process *p, *next;
            for (p = os->procs; p != NULL; p = next) {
                next = p->next;
                if (!p->in_call)
                    call(os, p, s.ev, s.data);
            }
        } else if (s.to->running) {
            call(os, s.to, s.ev, s.data);
        } else {
            os->stats[MIP_OS_STAT_dropped_dead]++;
        }
        run_polls(os);                  /* polls go between events */
    }
}

uint32_t mip_os_run(struct mip_os *os, mip_time_t now)
{
    struct mip_os_etimer *t;
    uint32_t delay = MIP_POLL_IDLE;

    os->now = now;
    run_polls(os);
    run_timers(os, now);
    run_events(os);
    if (os->q_count > 0 || os->poll_pending)
        return 0;
    for (t = os->timers; t != NULL; t = t->next)
        delay = mip_next_delay(delay, now, t->start + t->interval);
    return delay;
}

static void arm(struct mip_os *os, struct mip_os_etimer *t, mip_time_t start)
{
    if (t->armed)
        unlink_timer(os, t);
    t->start = start;
    t->armed = true;
    t->due = false;
    t->next = os->timers;
    os->timers = t;
}

void mip_os_etimer_set(struct mip_os *os, struct mip_os_etimer *t, struct mip_os_process *p,
                       uint32_t interval_ms)
{
    if (t->armed)
        unlink_timer(os, t);
    t->interval = interval_ms > INTERVAL_MAX ? INTERVAL_MAX : interval_ms;
    t->p = p;
    t->fn = NULL;
    t->fn_ctx = NULL;
    arm(os, t, os->now);
}

void mip_os_etimer_reset(struct mip_os *os, struct mip_os_etimer *t)
{
    /* From its last expiry, unless that is so far back that the timer would
     * fire at once again and again (a node asleep for longer than the
     * period): then from now. */
    mip_time_t from = t->start + t->interval;
    if (mip_time_reached(os->now, from + t->interval))
        from = os->now;
    arm(os, t, from);
}

void mip_os_etimer_restart(struct mip_os *os, struct mip_os_etimer *t)
{
    arm(os, t, os->now);
}

void mip_os_etimer_stop(struct mip_os *os, struct mip_os_etimer *t)
{
    if (t->armed)
        unlink_timer(os, t);
}

bool mip_os_etimer_expired(const struct mip_os_etimer *t)
{
    return !t->armed;
}

void mip_os_ctimer_set(struct mip_os *os, struct mip_os_etimer *t, uint32_t interval_ms,
                       void (*fn)(void *ctx), void *ctx)
{
    mip_os_etimer_set(os, t, NULL, interval_ms);
    t->fn = fn;
    t->fn_ctx = ctx;
}
