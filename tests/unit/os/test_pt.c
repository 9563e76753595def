/* Protothreads (include/moteip/pt.h): a thread resumes where it waited,
 * yields once, spawns and waits for a child, ends and restarts, and two
 * threads share a bounded buffer through semaphores. */
#include "testing.h"
#include "moteip/pt.h"

struct waiter {
    struct mip_pt pt;
    int flag, steps;
};

static MIP_PT_THREAD(wait_twice(struct waiter *w))
{
    MIP_PT_BEGIN(&w->pt);
    w->steps = 1;
    MIP_PT_WAIT_UNTIL(&w->pt, w->flag == 1);
    w->steps = 2;
    MIP_PT_WAIT_WHILE(&w->pt, w->flag == 1);
    w->steps = 3;
    MIP_PT_END(&w->pt);
}

static void test_a_thread_resumes_where_it_waited(void)
{
    struct waiter w = {{0}, 0, 0};
    MIP_PT_INIT(&w.pt);
    CHECK_EQ(wait_twice(&w), MIP_PT_WAITING);
    CHECK_EQ(w.steps, 1);
    CHECK_EQ(wait_twice(&w), MIP_PT_WAITING);     /* the condition is still false */
    CHECK_EQ(w.steps, 1);
    w.flag = 1;
    CHECK_EQ(wait_twice(&w), MIP_PT_WAITING);
    CHECK_EQ(w.steps, 2);
    w.flag = 2;
    CHECK_EQ(wait_twice(&w), MIP_PT_ENDED);
    CHECK_EQ(w.steps, 3);
    CHECK_EQ(w.pt.lc, 0);                         /* ended: back at its start */
    CHECK(!MIP_PT_SCHEDULE(MIP_PT_ENDED) && MIP_PT_SCHEDULE(MIP_PT_YIELDED));
}

static MIP_PT_THREAD(yielder(struct waiter *w))
{
    MIP_PT_BEGIN(&w->pt);
    for (;;) {
        w->steps++;
        MIP_PT_YIELD(&w->pt);
        if (w->steps == 3)
            MIP_PT_EXIT(&w->pt);
        MIP_PT_YIELD_UNTIL(&w->pt, w->flag);
    }
    MIP_PT_END(&w->pt);
}

static void test_yield_gives_way_once_and_exit_ends(void)
{
    struct waiter w = {{0}, 1, 0};
    CHECK_EQ(yielder(&w), MIP_PT_YIELDED);
    CHECK_EQ(w.steps, 1);
    CHECK_EQ(yielder(&w), MIP_PT_YIELDED);        /* YIELD_UNTIL yields at least once */
    CHECK_EQ(w.steps, 1);
    CHECK_EQ(yielder(&w), MIP_PT_YIELDED);        /* flag set: on to the next round's yield */
    CHECK_EQ(w.steps, 2);
    w.flag = 0;
    CHECK_EQ(yielder(&w), MIP_PT_YIELDED);
    CHECK_EQ(yielder(&w), MIP_PT_YIELDED);        /* flag clear: still waiting */
    CHECK_EQ(w.steps, 2);
    w.flag = 1;
    CHECK_EQ(yielder(&w), MIP_PT_YIELDED);
    CHECK_EQ(w.steps, 3);
    CHECK_EQ(yielder(&w), MIP_PT_EXITED);
    CHECK_EQ(w.pt.lc, 0);
}

struct parent {
    struct mip_pt pt, child_pt;
    int child_runs, ticks, done;
};

static MIP_PT_THREAD(child(struct mip_pt *pt, struct parent *p))
{
    MIP_PT_BEGIN(pt);
    p->child_runs++;
    MIP_PT_WAIT_UNTIL(pt, p->ticks >= 2);
    MIP_PT_END(pt);
}

static MIP_PT_THREAD(parent_thread(struct parent *p))
{
    MIP_PT_BEGIN(&p->pt);
    MIP_PT_SPAWN(&p->pt, &p->child_pt, child(&p->child_pt, p));
    p->done++;
    MIP_PT_SPAWN(&p->pt, &p->child_pt, child(&p->child_pt, p));   /* a second, fresh child */
    p->done++;
    MIP_PT_END(&p->pt);
}

static void test_spawn_waits_for_the_child(void)
{
    struct parent p = {{0}, {0}, 0, 0, 0};
    CHECK_EQ(parent_thread(&p), MIP_PT_WAITING);
    CHECK_EQ(p.child_runs, 1);
    CHECK_EQ(p.done, 0);
    p.ticks = 1;
    CHECK_EQ(parent_thread(&p), MIP_PT_WAITING);
    CHECK_EQ(p.done, 0);
    p.ticks = 2;                                  /* the first child ends, the second runs */
    CHECK_EQ(parent_thread(&p), MIP_PT_ENDED);    /* ...and ends at once: ticks >= 2 */
    CHECK_EQ(p.child_runs, 2);
    CHECK_EQ(p.done, 2);
}

/* A producer and a consumer over a ring of 3, with the chapter's two
 * semaphores: free slots and full slots. */
struct ring {
    struct mip_pt prod, cons;
    struct mip_pt_sem empty, full;
    int buf[3], head, tail, produced, consumed, sum;
};

static MIP_PT_THREAD(producer(struct ring *r))
{
    MIP_PT_BEGIN(&r->prod);
    while (r->produced < 10) {
        MIP_PT_SEM_WAIT(&r->prod, &r->empty);
        r->buf[r->head] = ++r->produced;
        r->head = (r->head + 1) % 3;
        MIP_PT_SEM_SIGNAL(&r->full);
    }
    MIP_PT_END(&r->prod);
}

static MIP_PT_THREAD(consumer(struct ring *r))
{
    MIP_PT_BEGIN(&r->cons);
    while (r->consumed < 10) {
        MIP_PT_SEM_WAIT(&r->cons, &r->full);
        r->sum += r->buf[r->tail];
        r->tail = (r->tail + 1) % 3;
        r->consumed++;
        MIP_PT_SEM_SIGNAL(&r->empty);
        MIP_PT_YIELD(&r->cons);
    }
    MIP_PT_END(&r->cons);
}

static void test_semaphores_share_a_bounded_buffer(void)
{
    struct ring r = {0};
    int rounds = 0, most = 0;
    MIP_PT_SEM_INIT(&r.empty, 3);
    MIP_PT_SEM_INIT(&r.full, 0);
    for (;;) {
        char a = producer(&r), b = consumer(&r);
        int in_ring = r.produced - r.consumed;
        most = in_ring > most ? in_ring : most;
        rounds++;
        if (!MIP_PT_SCHEDULE(a) && !MIP_PT_SCHEDULE(b))
            break;
        CHECK(rounds < 100);
        if (rounds >= 100)
            break;
    }
    CHECK_EQ(r.consumed, 10);
    CHECK_EQ(r.sum, 55);
    CHECK(most <= 3);                             /* never more than the ring holds */
    CHECK_EQ(r.empty.count, 3u);
}

int main(void)
{
    RUN(test_a_thread_resumes_where_it_waited);
    RUN(test_yield_gives_way_once_and_exit_ends);
    RUN(test_spawn_waits_for_the_child);
    RUN(test_semaphores_share_a_bounded_buffer);
    return TESTING_DONE();
}
