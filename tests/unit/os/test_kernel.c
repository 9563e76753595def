/* The process kernel (include/moteip/os.h): events in order, synchronous
 * events at once, a full queue refused, polls before queued events, timers
 * on time (and across the clock's wrap), a process that ends or is stopped
 * leaving nothing behind, and the idle time the CPU may sleep. */
#include <string.h>

#include "testing.h"
#include "moteip/os.h"

#define LOG_MAX 64

/* Each test process records what it got. */
struct rec {
    mip_os_event_t ev[LOG_MAX];
    void *data[LOG_MAX];
    int n;
    int stop_after;                 /* end after this many events (0: never) */
    struct mip_os_etimer timer;
    uint32_t period;                /* > 0: a periodic timer, reset at each TIMER */
    mip_time_t fired_at[LOG_MAX];
    int fired;
    struct mip_os_process *post_to; /* on a USER event: post the same there, async */
};

static char recorder(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev, void *data)
{
    struct rec *r = p->ctx;
    MIP_PROCESS_BEGIN();
    for (;;) {
        if (r->n < LOG_MAX) {
            r->ev[r->n] = ev;
            r->data[r->n] = data;
            r->n++;
        }
        if (ev == MIP_OS_EV_INIT && r->period > 0)
            mip_os_etimer_set(os, &r->timer, p, r->period);
        if (ev == MIP_OS_EV_TIMER && r->fired < LOG_MAX) {
            r->fired_at[r->fired++] = os->now;
            if (r->period > 0)
                mip_os_etimer_reset(os, &r->timer);
        }
        if (ev < MIP_OS_EV_INIT && r->post_to != NULL)
            (void)mip_os_post(os, r->post_to, ev, NULL);
        if (r->stop_after > 0 && r->n >= r->stop_after)
            MIP_PROCESS_EXIT();
        MIP_PROCESS_WAIT_EVENT();
    }
    MIP_PROCESS_END();
}

static void test_a_started_process_gets_init_then_its_events_in_order(void)
{
    static struct mip_os os;
    static struct mip_os_process pa;
    static struct rec a;
    int x;
    memset(&a, 0, sizeof(a));
    mip_os_init(&os, 0);
    CHECK_EQ(mip_os_start(&os, &pa, "a", recorder, &a, &x), MIP_OK);
    CHECK_EQ(a.n, 1);
    CHECK_EQ(a.ev[0], MIP_OS_EV_INIT);
    CHECK(a.data[0] == &x);
    CHECK_EQ(mip_os_start(&os, &pa, "a", recorder, &a, NULL), MIP_ERR_INUSE);
    CHECK_EQ(mip_os_post(&os, &pa, 5, NULL), MIP_OK);
    CHECK_EQ(mip_os_post(&os, &pa, 6, NULL), MIP_OK);
    CHECK_EQ(a.n, 1);                             /* asynchronous: nothing yet */
    CHECK_EQ(mip_os_run(&os, 1), MIP_POLL_IDLE);  /* nothing left, no timer */
    CHECK_EQ(a.n, 3);
    CHECK_EQ(a.ev[1], 5);
    CHECK_EQ(a.ev[2], 6);
    CHECK_EQ(mip_os_post_sync(&os, &pa, 7, &x), MIP_OK);
    CHECK_EQ(a.n, 4);                             /* synchronous: already handled */
    CHECK_EQ(a.ev[3], 7);
}

static void test_a_full_queue_refuses_and_counts(void)
{
    static struct mip_os os;
    static struct mip_os_process pa;
    static struct rec a;
    unsigned i;
    memset(&a, 0, sizeof(a));
    mip_os_init(&os, 0);
    (void)mip_os_start(&os, &pa, "a", recorder, &a, NULL);
    for (i = 0; i < MIP_OS_EVENTS; i++)
        CHECK_EQ(mip_os_post(&os, &pa, (mip_os_event_t)(i % 100), NULL), MIP_OK);
    CHECK_EQ(mip_os_post(&os, &pa, 1, NULL), MIP_ERR_NOBUFS);
    CHECK_EQ(mip_os_stat(&os, MIP_OS_STAT_queue_full), 1u);
    CHECK_EQ(mip_os_run(&os, 0), MIP_POLL_IDLE);
    CHECK_EQ(a.n, 1 + (int)MIP_OS_EVENTS);
}

static void test_events_posted_while_running_wait_for_the_next_run(void)
{
    /* a process that answers every event with one to itself would keep a
     * naive kernel here forever: each run handles what was queued before it */
    static struct mip_os os;
    static struct mip_os_process pa;
    static struct rec a;
    int k;
    memset(&a, 0, sizeof(a));
    mip_os_init(&os, 0);
    (void)mip_os_start(&os, &pa, "a", recorder, &a, NULL);
    a.post_to = &pa;
    (void)mip_os_post(&os, &pa, 1, NULL);
    for (k = 1; k <= 5; k++) {
        CHECK_EQ(mip_os_run(&os, 0), 0u);         /* its own event waits: sleep 0 */
        CHECK_EQ(a.n, 1 + k);
    }
}

static void test_broadcast_reaches_every_process(void)
{
    static struct mip_os os;
    static struct mip_os_process pa, pb;
    static struct rec a, b;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    mip_os_init(&os, 0);
    (void)mip_os_start(&os, &pa, "a", recorder, &a, NULL);
    (void)mip_os_start(&os, &pb, "b", recorder, &b, NULL);
    CHECK_EQ(mip_os_post(&os, NULL, 9, NULL), MIP_OK);
    (void)mip_os_run(&os, 0);
    CHECK(a.n == 2 && a.ev[1] == 9 && b.n == 2 && b.ev[1] == 9);
}

static void test_a_poll_request_comes_before_queued_events(void)
{
    static struct mip_os os;
    static struct mip_os_process pa, pb;
    static struct rec a, b;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    mip_os_init(&os, 0);
    (void)mip_os_start(&os, &pa, "a", recorder, &a, NULL);
    (void)mip_os_start(&os, &pb, "b", recorder, &b, NULL);
    (void)mip_os_post(&os, &pa, 3, NULL);
    mip_os_poll_request(&os, &pb);                /* as an interrupt would */
    CHECK_EQ(mip_os_run(&os, 0), MIP_POLL_IDLE);
    CHECK(b.n == 2 && b.ev[1] == MIP_OS_EV_POLL);
    CHECK(a.n == 2 && a.ev[1] == 3);
    CHECK_EQ(mip_os_stat(&os, MIP_OS_STAT_polls), 1u);
    (void)mip_os_run(&os, 1);                     /* one request, one POLL */
    CHECK_EQ(b.n, 2);
}

static void test_periodic_timers_fire_on_time_without_drift(void)
{
    static struct mip_os os;
    static struct mip_os_process pa;
    static struct rec a;
    mip_time_t t;
    memset(&a, 0, sizeof(a));
    a.period = 100;
    mip_os_init(&os, 1000);
    (void)mip_os_start(&os, &pa, "a", recorder, &a, NULL);
    CHECK_EQ(mip_os_run(&os, 1000), 100u);        /* the CPU may sleep 100 ms */
    CHECK_EQ(mip_os_run(&os, 1099), 1u);
    CHECK_EQ(a.fired, 0);
    /* late wake-ups (the TIMER is queued, handled at the next run) */
    for (t = 1103; t < 1500; t += 103) {
        (void)mip_os_run(&os, t);
        (void)mip_os_run(&os, t);
    }
    CHECK_EQ(a.fired, 4);
    CHECK_EQ(a.fired_at[0], 1103u);
    /* reset counts from each expiry, not from the late handling: the 5th is
     * due at 1500 */
    CHECK_EQ(mip_os_run(&os, 1499), 1u);
    CHECK_EQ(mip_os_stat(&os, MIP_OS_STAT_timers_fired), 4u);
}

static void test_timers_work_across_the_clock_wrap(void)
{
    static struct mip_os os;
    static struct mip_os_process pa;
    static struct rec a;
    mip_time_t t0 = 0xFFFFFF00u, t;
    memset(&a, 0, sizeof(a));
    a.period = 200;
    mip_os_init(&os, t0);
    (void)mip_os_start(&os, &pa, "a", recorder, &a, NULL);
    for (t = t0; t != t0 + 1000; t += 50)         /* crosses 2^32 */
        (void)mip_os_run(&os, t);
    CHECK_EQ(a.fired, 4);                         /* at t0 + 200, 400, 600, 800 */
    CHECK_EQ(a.fired_at[1], t0 + 400);
}

static int calls;

static void count_call(void *ctx)
{
    (void)ctx;
    calls++;
}

static void test_callback_timers_and_the_idle_hook(void)
{
    static struct mip_os os;
    static struct mip_os_etimer ct;
    mip_os_init(&os, 0);
    calls = 0;
    mip_os_ctimer_set(&os, &ct, 30, count_call, NULL);
    CHECK(!mip_os_etimer_expired(&ct));
    CHECK_EQ(mip_os_run(&os, 10), 20u);
    CHECK_EQ(mip_os_run(&os, 30), MIP_POLL_IDLE);
    CHECK_EQ(calls, 1);
    CHECK(mip_os_etimer_expired(&ct));
    mip_os_ctimer_set(&os, &ct, 5, count_call, NULL);
    mip_os_etimer_stop(&os, &ct);
    CHECK_EQ(mip_os_run(&os, 100), MIP_POLL_IDLE);
    CHECK_EQ(calls, 1);
}

static void test_a_stopped_process_leaves_nothing_behind(void)
{
    static struct mip_os os;
    static struct mip_os_process pa, pb;
    static struct rec a, b;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    a.period = 10;
    mip_os_init(&os, 0);
    (void)mip_os_start(&os, &pa, "a", recorder, &a, NULL);
    (void)mip_os_start(&os, &pb, "b", recorder, &b, NULL);
    (void)mip_os_post(&os, &pa, 4, NULL);
    mip_os_exit(&os, &pa);
    CHECK(!mip_os_running(&pa));
    CHECK_EQ(a.ev[a.n - 1], MIP_OS_EV_EXIT);      /* its last event */
    CHECK(b.ev[b.n - 1] == MIP_OS_EV_EXITED && b.data[b.n - 1] == &pa);
    CHECK_EQ(mip_os_run(&os, 50), MIP_POLL_IDLE); /* its timer is gone */
    CHECK_EQ(a.fired, 0);
    CHECK_EQ(mip_os_stat(&os, MIP_OS_STAT_dropped_dead), 1u);
    CHECK_EQ(mip_os_post_sync(&os, &pa, 1, NULL), MIP_ERR_INVALID);
    /* a process that ends by itself is removed too, and may start again */
    b.stop_after = b.n + 1;
    (void)mip_os_post(&os, &pb, 8, NULL);
    (void)mip_os_run(&os, 60);
    CHECK(!mip_os_running(&pb));
    memset(&b, 0, sizeof(b));
    CHECK_EQ(mip_os_start(&os, &pb, "b", recorder, &b, NULL), MIP_OK);
    CHECK_EQ(b.ev[0], MIP_OS_EV_INIT);
}

/* A process that posts synchronously to itself is refused, not re-entered. */
static char self_caller(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev, void *data)
{
    int *result = p->ctx;
    (void)data;
    MIP_PROCESS_BEGIN();
    for (;;) {
        if (ev == 1)
            *result = (int)mip_os_post_sync(os, p, 2, NULL);
        MIP_PROCESS_WAIT_EVENT();
    }
    MIP_PROCESS_END();
}

static void test_a_process_is_never_entered_twice(void)
{
    static struct mip_os os;
    static struct mip_os_process pa;
    int result = -1;
    mip_os_init(&os, 0);
    (void)mip_os_start(&os, &pa, "self", self_caller, &result, NULL);
    CHECK_EQ(mip_os_post_sync(&os, &pa, 1, NULL), MIP_OK);
    CHECK_EQ(result, MIP_ERR_INUSE);
    CHECK_EQ(mip_os_stat(&os, MIP_OS_STAT_sync_refused), 1u);
}

int main(void)
{
    RUN(test_a_started_process_gets_init_then_its_events_in_order);
    RUN(test_a_full_queue_refuses_and_counts);
    RUN(test_events_posted_while_running_wait_for_the_next_run);
    RUN(test_broadcast_reaches_every_process);
    RUN(test_a_poll_request_comes_before_queued_events);
    RUN(test_periodic_timers_fire_on_time_without_drift);
    RUN(test_timers_work_across_the_clock_wrap);
    RUN(test_callback_timers_and_the_idle_hook);
    RUN(test_a_stopped_process_leaves_nothing_behind);
    RUN(test_a_process_is_never_entered_twice);
    return TESTING_DONE();
}
