/*
 * RPL's pure rules: lollipop counters (RFC 6550 7.2), DAGRank, OF0 (RFC
 * 6552) and MRHOF (RFC 6719) ranks, the ETX estimator, Trickle (RFC 6206).
 */
#include "moteip/rpl.h"
#include "moteip/rng.h"
#include "testing.h"

static void test_lollipop_order(void)
{
    /* linear part */
    CHECK(mip_rpl_seq_newer(241, 240));
    CHECK(!mip_rpl_seq_newer(240, 241));
    CHECK(!mip_rpl_seq_newer(240, 240));
    /* circular part wraps at 127 */
    CHECK(mip_rpl_seq_newer(0, 127));
    CHECK(mip_rpl_seq_newer(5, 120));
    CHECK(!mip_rpl_seq_newer(120, 5));
    /* leaving the lollipop's stick: 0..15 after 255 are newer, a far
     * circular value is older than a fresh restart (240) */
    CHECK(mip_rpl_seq_newer(0, 255));
    CHECK(mip_rpl_seq_newer(3, 250));
    CHECK(!mip_rpl_seq_newer(100, 240));
    CHECK(mip_rpl_seq_newer(240, 100));
    /* increments */
    CHECK_EQ(mip_rpl_seq_next(240), 241);
    CHECK_EQ(mip_rpl_seq_next(255), 0);
    CHECK_EQ(mip_rpl_seq_next(127), 0);
    CHECK_EQ(mip_rpl_seq_next(5), 6);
}

static void test_dag_rank(void)
{
    CHECK_EQ(mip_rpl_dag_rank(256, 256), 1);
    CHECK_EQ(mip_rpl_dag_rank(511, 256), 1);
    CHECK_EQ(mip_rpl_dag_rank(512, 256), 2);
    CHECK_EQ(mip_rpl_dag_rank(0xFFFF, 256), 255);
}

static void test_of0_rank(void)
{
    /* RFC 6552: default step 3 at the unmeasured guess ETX 2, so a child
     * of the root (256) has rank 256 + 3 * 256 */
    CHECK_EQ(mip_rpl_of0_step(MIP_RPL_ETX_GUESS), 3);
    CHECK_EQ(mip_rpl_of0_rank(256, MIP_RPL_ETX_GUESS, 256), 1024);
    CHECK_EQ(mip_rpl_of0_step(MIP_RPL_ETX_ONE), 1);      /* perfect link */
    CHECK_EQ(mip_rpl_of0_step(20 * MIP_RPL_ETX_ONE), 9);  /* MAXIMUM_STEP_OF_RANK */
    CHECK_EQ(mip_rpl_of0_rank(0xFF00, MIP_RPL_ETX_GUESS, 256), 0xFFFF);   /* saturates */
    CHECK_EQ(mip_rpl_of0_rank(0xFFFF, MIP_RPL_ETX_ONE, 256), 0xFFFF);
}

static void test_mrhof_rank_and_cost(void)
{
    /* path cost = neighbour rank + link ETX (RFC 6719 3.1) */
    CHECK_EQ(mip_rpl_mrhof_path_cost(256, 300), 556);
    /* links past MAX_LINK_METRIC and paths past MAX_PATH_COST are no paths */
    CHECK_EQ(mip_rpl_mrhof_path_cost(256, 513), 0xFFFF);
    CHECK_EQ(mip_rpl_mrhof_path_cost(256, 512), 768);
    CHECK_EQ(mip_rpl_mrhof_path_cost(32700, 200), 0xFFFF);
    /* rank: the path cost, but at least one DAGRank step above the parent */
    CHECK_EQ(mip_rpl_mrhof_rank(256, 128, 256), 512);
    CHECK_EQ(mip_rpl_mrhof_rank(256, 400, 256), 656);
    CHECK(mip_rpl_dag_rank(mip_rpl_mrhof_rank(700, 128, 256), 256) >
          mip_rpl_dag_rank(700, 256));
}

static void test_etx_estimator(void)
{
    uint16_t e = MIP_RPL_ETX_GUESS;
    unsigned i;
    /* the first report replaces the guess */
    e = mip_rpl_etx_update(e, 0, true, 0);
    CHECK_EQ(e, 128);
    /* a run of failures pushes it past MAX_LINK_METRIC within a few frames */
    for (i = 0; i < 6; i++)
        e = mip_rpl_etx_update(e, 1, false, 3);
    CHECK(e > MIP_RPL_MRHOF_MAX_LINK_METRIC);
    /* and successes bring it back down */
    for (i = 0; i < 40; i++)
        e = mip_rpl_etx_update(e, 1, true, 0);
    CHECK(e < 2 * MIP_RPL_ETX_ONE);
    /* one retry before the ACK: ETX 2 */
    CHECK_EQ(mip_rpl_etx_update(0, 0, true, 1), 256);
}

static void test_trickle_interval_doubles_to_imax(void)
{
    struct mip_rpl_trickle t;
    struct mip_rng rng;
    mip_time_t now = 1000;
    uint32_t next, prev_i;
    unsigned fired = 0, k;
    mip_rng_seed(&rng, (const uint8_t *)"trickle", 7);
    /* Imin 2^3 = 8 ms, 4 doublings: Imax 128 ms */
    mip_rpl_trickle_start(&t, 3, &rng, now);
    CHECK_EQ(t.i_ms, 8);
    CHECK(t.t_at >= now + 4 && t.t_at < now + 8);
    prev_i = t.i_ms;
    for (k = 0; k < 2000; k++) {
        mip_time_t start = t.start;
        next = MIP_POLL_IDLE;
        if (mip_rpl_trickle_poll(&t, 3, 4, 10, &rng, now, &next) > 0)
            fired++;
        if (t.start != start) {
            /* a new interval: doubled (capped), t in [I/2, I) */
            CHECK(t.i_ms == prev_i * 2u || t.i_ms == 128u);
            CHECK(t.t_at >= t.start + t.i_ms / 2u && t.t_at < t.start + t.i_ms);
            prev_i = t.i_ms;
        }
        CHECK(next != MIP_POLL_IDLE);
        now += next == 0 ? 1 : next;
        if (now > 1000 + 2000)
            break;
    }
    CHECK_EQ(t.i_ms, 128);
    /* one transmission per interval: 8+16+32+64 ms, then ~ (2000-120)/128 */
    CHECK(fired >= 15 && fired <= 20);
}

static void test_trickle_suppression_and_reset(void)
{
    struct mip_rpl_trickle t;
    struct mip_rng rng;
    mip_time_t now = 0;
    uint32_t next = MIP_POLL_IDLE;
    mip_rng_seed(&rng, (const uint8_t *)"k", 1);
    mip_rpl_trickle_start(&t, 3, &rng, now);
    /* grow I to 64 ms */
    while (t.i_ms < 64) {
        now += 1;
        next = MIP_POLL_IDLE;
        (void)mip_rpl_trickle_poll(&t, 3, 20, 2, &rng, now, &next);
    }
    /* two consistent messages (k = 2) before t: suppressed */
    t.c = 2;
    while (!t.sent) {
        int f;
        now += 1;
        next = MIP_POLL_IDLE;
        f = mip_rpl_trickle_poll(&t, 3, 20, 2, &rng, now, &next);
        if (t.sent)
            CHECK_EQ(f, -1);
    }
    /* k = 0: never suppressed */
    mip_rpl_trickle_start(&t, 3, &rng, now);
    t.c = 200;
    while (!t.sent) {
        int f;
        now += 1;
        next = MIP_POLL_IDLE;
        f = mip_rpl_trickle_poll(&t, 3, 20, 0, &rng, now, &next);
        if (t.sent)
            CHECK_EQ(f, 1);
    }
    /* reset: I back to Imin only when larger */
    t.i_ms = 512;
    CHECK(mip_rpl_trickle_reset(&t, 3, &rng, now));
    CHECK_EQ(t.i_ms, 8);
    CHECK_EQ(t.c, 0);
    CHECK(!mip_rpl_trickle_reset(&t, 3, &rng, now));
}

static void test_trickle_imax_is_bounded(void)
{
    struct mip_rpl_trickle t;
    struct mip_rng rng;
    uint32_t next = MIP_POLL_IDLE;
    mip_rng_seed(&rng, (const uint8_t *)"x", 1);
    /* RFC 6550 defaults: 8 ms * 2^20 = 8,388,608 ms */
    mip_rpl_trickle_start(&t, 3, &rng, 0);
    t.i_ms = 1u << 22;
    t.start = 0;
    (void)mip_rpl_trickle_poll(&t, 3, 20, 10, &rng, 1u << 22, &next);
    CHECK_EQ(t.i_ms, 1u << 23);
    (void)mip_rpl_trickle_poll(&t, 3, 20, 10, &rng, (1u << 22) + (1u << 23), &next);
    CHECK_EQ(t.i_ms, 1u << 23);
    /* an absurd configuration stays under half the ms clock's wrap */
    mip_rpl_trickle_start(&t, 25, &rng, 0);
    t.start = 0;
    (void)mip_rpl_trickle_poll(&t, 25, 200, 10, &rng, t.i_ms, &next);
    CHECK(t.i_ms <= (1u << 30));
}

int main(void)
{
    RUN(test_lollipop_order);
    RUN(test_dag_rank);
    RUN(test_of0_rank);
    RUN(test_mrhof_rank_and_cost);
    RUN(test_etx_estimator);
    RUN(test_trickle_interval_doubles_to_imax);
    RUN(test_trickle_suppression_and_reset);
    RUN(test_trickle_imax_is_bounded);
    return TESTING_DONE();
}
