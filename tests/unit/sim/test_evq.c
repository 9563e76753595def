/*
 * The simulator's event queue (sim/evq.h): pops in (time, insertion) order,
 * and peek shows the event pop would return without taking it (the
 * real-time loop waits for the earliest event and may schedule earlier ones
 * meanwhile, so it must look before it takes).
 */
#include "evq.h"
#include "testing.h"

static void test_pop_order_is_time_then_insertion(void)
{
    /* (time, arg) in the order pushed; pops sort by time, ties by push order */
    static const struct { uint64_t t; uint32_t arg; } pushed[] = {
        { 50, 0 }, { 10, 1 }, { 50, 2 }, { 0, 3 }, { 10, 4 }, { 50, 5 }, { 7, 6 },
    };
    static const uint32_t want[] = { 3, 6, 1, 4, 0, 2, 5 };
    struct sim_evq q;
    struct sim_event ev;
    size_t i;
    sim_evq_init(&q);
    for (i = 0; i < sizeof(pushed) / sizeof(pushed[0]); i++)
        CHECK(sim_evq_push(&q, pushed[i].t, SIM_EV_APP, 0, pushed[i].arg));
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        CHECK(sim_evq_pop(&q, &ev));
        CHECK_EQ(ev.arg, want[i]);
    }
    CHECK(!sim_evq_pop(&q, &ev));
    sim_evq_free(&q);
}

static void test_peek_shows_the_next_pop_and_leaves_it(void)
{
    struct sim_evq q;
    struct sim_event ev;
    const struct sim_event *p;
    sim_evq_init(&q);
    CHECK(sim_evq_peek(&q) == NULL);
    CHECK(sim_evq_push(&q, 100, SIM_EV_TX_END, 2, 7));
    CHECK(sim_evq_push(&q, 40, SIM_EV_MAC_POLL, 1, 8));
    p = sim_evq_peek(&q);
    CHECK(p != NULL);
    if (p == NULL)
        return;
    CHECK_EQ(p->time_us, 40);
    CHECK_EQ(p->arg, 8);
    CHECK_EQ(q.count, 2);               /* nothing taken */
    /* an earlier event scheduled after the peek comes first */
    CHECK(sim_evq_push(&q, 20, SIM_EV_APP, 0, 9));
    CHECK_EQ(sim_evq_peek(&q)->arg, 9);
    CHECK(sim_evq_pop(&q, &ev));
    CHECK_EQ(ev.arg, 9);
    CHECK_EQ(sim_evq_peek(&q)->arg, 8);
    CHECK(sim_evq_pop(&q, &ev));
    CHECK(sim_evq_pop(&q, &ev));
    CHECK_EQ(ev.arg, 7);
    CHECK(sim_evq_peek(&q) == NULL);
    sim_evq_free(&q);
}

int main(void)
{
    RUN(test_pop_order_is_time_then_insertion);
    RUN(test_peek_shows_the_next_pop_and_leaves_it);
    return TESTING_DONE();
}
