/*
 * The bookkeeping every TCP server app shares (apps/tcp_app.h): a free
 * slot is found and counted as accepted and active, a full table refuses
 * and counts it, a closed slot is free again, and stop on a server that
 * never listened does nothing. The slots sit inside a larger connection
 * struct, not at its start, as the helpers must not assume either.
 */
#include <string.h>

#include "moteip/stack.h"
#include "tcp_app.h"
#include "testing.h"

struct test_conn {
    uint32_t before;                /* puts the slot at an offset */
    struct mip_tcp_app_slot mem;
    uint32_t after;
};

struct test_app {
    struct mip_tcp_server srv;
    struct test_conn conns[MIP_TCP_APP_CONNS];
};

/* The clock free_slot reads (srv.tcp->stack->now); no connection is ever
 * opened on it. */
static struct mip_stack clock_stack;
static struct mip_tcp clock_tcp;

static void app_clear(struct test_app *a)
{
    memset(a, 0, sizeof(*a));
    clock_stack.now = 12345u;
    clock_tcp.stack = &clock_stack;
    a->srv.tcp = &clock_tcp;
}

static struct mip_tcp_app_slot *take(struct test_app *a)
{
    struct mip_tcp_app_slot *m =
        mip_tcp_server_free_slot(&a->srv, &a->conns[0].mem, sizeof(a->conns[0]), 0u);
    if (m != NULL)
        m->used = true;             /* as mip_tcp_app_slot_take does */
    return m;
}

static void test_slots_are_taken_in_order_then_refused(void)
{
    static struct test_app a;
    unsigned i;

    app_clear(&a);
    for (i = 0; i < MIP_TCP_APP_CONNS; i++) {
        CHECK(take(&a) == &a.conns[i].mem);
        CHECK_EQ(a.conns[i].mem.moved, 12345u);   /* accepted now */
    }
    CHECK_EQ(a.srv.accepted, MIP_TCP_APP_CONNS);
    CHECK_EQ(a.srv.active, MIP_TCP_APP_CONNS);
    CHECK_EQ(a.srv.refused, 0);
    CHECK(take(&a) == NULL);
    CHECK(take(&a) == NULL);
    CHECK_EQ(a.srv.refused, 2);
    CHECK_EQ(a.srv.accepted, MIP_TCP_APP_CONNS);
    CHECK_EQ(a.srv.active, MIP_TCP_APP_CONNS);
}

static void test_closed_slot_is_free_again(void)
{
    static struct test_app a;
    unsigned i, last = MIP_TCP_APP_CONNS - 1u;

    app_clear(&a);
    for (i = 0; i < MIP_TCP_APP_CONNS; i++)
        (void)take(&a);
    mip_tcp_server_closed(&a.srv, &a.conns[last].mem);
    CHECK(!a.conns[last].mem.used);
    CHECK_EQ(a.srv.active, MIP_TCP_APP_CONNS - 1u);
    CHECK(take(&a) == &a.conns[last].mem);
    CHECK_EQ(a.srv.accepted, MIP_TCP_APP_CONNS + 1u);
    CHECK_EQ(a.srv.refused, 0);
    for (i = 0; i < MIP_TCP_APP_CONNS; i++) {
        CHECK_EQ(a.conns[i].before, 0);     /* nothing written outside the slots */
        CHECK_EQ(a.conns[i].after, 0);
    }
}

static void test_stop_before_start_does_nothing(void)
{
    static struct test_app a;

    memset(&a, 0, sizeof(a));
    a.conns[0].mem.used = true;             /* no TCP to abort it on */
    mip_tcp_server_stop(&a.srv, &a.conns[0].mem, sizeof(a.conns[0]));
    CHECK(a.conns[0].mem.used);
    CHECK_EQ(a.srv.port, 0);
}

int main(void)
{
    RUN(test_slots_are_taken_in_order_then_refused);
    RUN(test_closed_slot_is_free_again);
    RUN(test_stop_before_start_does_nothing);
    return TESTING_DONE();
}
