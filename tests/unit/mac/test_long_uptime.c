/*
 * Long uptime (issue 24): the MAC and every RDC driven across the 2^31 and
 * 2^32 boundaries of their 32-bit µs clock (35.8 and 71.6 min). Each row is
 * an RDC; each starts a node just below a boundary (and, for comparison,
 * at the fixture's usual T0) and asserts that it still behaves across it:
 *  - idle, its radio wakes as often as it does anywhere else (the same
 *    number of switch-ons over the same window, NullRDC and the parent
 *    always on);
 *  - a unicast it sends ends on time (ACKed for the always-on kinds; for
 *    the duty-cycled ones, given up after the RDC's own attempts, within
 *    the same time as at T0: no deadline computed across the wrap waits a
 *    whole wrap);
 *  - a frame for it that arrives while it listens is delivered once, and
 *    the same DSN again 25 s later (past MIP_MAC_DUP_AGE_US) too.
 * A sleepy leaf's polls and its parent's held frames have rows of their own.
 */
#include "rdc_frames.h"

#define MS        1000u
#define B31       0x80000000u
#define B32       0x00000000u   /* 2^32 wraps to 0 */
#define BEFORE    3000000u      /* start this long before the boundary */
#define WINDOW    6000000u      /* and watch this long (across it) */

struct row {
    const char *name;
    uint8_t proto;
    uint8_t rdc;
};

static const struct row rows[] = {
    { "csma-ca/nullrdc", MIP_MAC_CSMA_CA, MIP_RDC_NULLRDC },
#if MIP_RDC_HAS_CONTIKIMAC
    { "nullmac/contikimac", MIP_MAC_NULLMAC, MIP_RDC_CONTIKIMAC },
#endif
#if MIP_RDC_HAS_XMAC
    { "nullmac/xmac", MIP_MAC_NULLMAC, MIP_RDC_XMAC },
#endif
#if MIP_RDC_HAS_LPP
    { "nullmac/lpp", MIP_MAC_NULLMAC, MIP_RDC_LPP },
#endif
#if MIP_RDC_HAS_PARENT
    { "csma-ca/parent", MIP_MAC_CSMA_CA, MIP_RDC_PARENT },
#endif
};

static void start_at(struct node *n, const struct row *r, mip_utime_t t)
{
    node_config(n, r->proto);
    n->cfg.rdc.kind = r->rdc;
    n->now = t;
    node_start(n);
}

/* Switch-ons of the radio over WINDOW from t, idle. */
static unsigned idle_wakeups(const struct row *r, mip_utime_t t)
{
    struct node n;
    unsigned on0;
    start_at(&n, r, t);
    node_run(&n, t + WINDOW / 6u);  /* settled */
    on0 = n.n_on;
    node_run(&n, t + WINDOW / 6u + WINDOW);
    CHECK(n.now - t <= WINDOW / 6u + WINDOW);
    return n.n_on - on0;
}

/* Sends one unicast at t, answers nothing but ACKs the always-on kinds'
 * first copy; returns how long until its outcome (UINT32_MAX: none). */
static uint32_t send_outcome(const struct row *r, mip_utime_t t, uint8_t *st)
{
    struct node n;
    mip_utime_t sent;
    unsigned i;
    start_at(&n, r, t);
    node_run(&n, t + 200u * MS);
    sent = n.now;
    CHECK_EQ(node_send(&n, OTHER, true, 7), MIP_OK);
    if (r->rdc == MIP_RDC_NULLRDC || r->rdc == MIP_RDC_PARENT) {
        run_to_tx(&n, 0, 100u * MS);
        if (n.ntx > 0u) {
            mip_utime_t end = n.tx[0].t + airtime(&n, n.tx[0].len);
            node_run(&n, end + 192u);
            n.now = end + 192u + 352u;
            deliver_ack(&n, n.tx[0].data[2], false);
        }
    }
    for (i = 0; i < 100u && n.ndone == 0u; i++) {
        mip_utime_t to = n.now + 100u * MS;
        node_run(&n, to);
        n.now = to;
    }
    *st = n.ndone > 0u ? n.done[0].st : 0xFFu;
    return n.ndone > 0u ? (uint32_t)(n.done[0].t - sent) : UINT32_MAX;
}

/* A frame from PEER arriving when the radio is next on after t + d; true
 * when it was delivered. */
static bool rx_when_on(struct node *n, mip_utime_t at, uint8_t seq, uint8_t tag)
{
    uint8_t f[64];
    size_t len;
    unsigned before = n->ninput, i;
    node_run(n, at);
    for (i = 0; i < 100000u && !n->radio_on; i++)
        CHECK(node_step(n, n->now + 10000u * MS));
    len = build_data(f, ME, PEER, PAN, false, seq, tag, 4);
    (void)node_rx(n, f, len);
    return n->ninput == before + 1u;
}

static void test_each_rdc_behaves_across_the_us_wrap(void)
{
    static const mip_utime_t bounds[] = { B31, B32 };
    unsigned r, b, idle0, idle1;
    uint32_t d0, d1;
    uint8_t st0, st1;
    struct node n;
    for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
        idle0 = idle_wakeups(&rows[r], T0);
        d0 = send_outcome(&rows[r], T0, &st0);
        if (d0 == UINT32_MAX)
            printf("%s: no outcome at T0\n", rows[r].name);
        CHECK(d0 != UINT32_MAX);
        for (b = 0; b < 2u; b++) {
            mip_utime_t t = bounds[b] - BEFORE;
            idle1 = idle_wakeups(&rows[r], t);
            if (idle1 + 1u < idle0 || idle1 > idle0 + 1u)
                printf("%s at 2^%u: %u wake-ups, %u at T0\n", rows[r].name, 31u + b, idle1, idle0);
            CHECK(idle1 + 1u >= idle0 && idle1 <= idle0 + 1u);
            /* sent just before the boundary, ended across it as at T0
             * (the draws differ: within the RDC's own bounds) */
            d1 = send_outcome(&rows[r], bounds[b] - 250u * MS, &st1);
            CHECK_EQ(st1, st0);
            CHECK(d1 != UINT32_MAX && d1 <= 2u * d0 + 10u * MS);
            /* heard before, the same DSN a second later: a duplicate; 25 s
             * later a new frame */
            start_at(&n, &rows[r], t);
            CHECK(rx_when_on(&n, bounds[b] - 500u * MS, 0x42, 1));
            CHECK(!rx_when_on(&n, bounds[b] + 500u * MS, 0x42, 2));
            CHECK(rx_when_on(&n, bounds[b] + 25500u * MS, 0x42, 3));
            CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_duplicates), 1);
        }
    }
}

#if MIP_RDC_HAS_LEAF
/* A sleepy leaf polls every poll_us across the boundary. */
static void test_leaf_polls_on_time_across_the_wrap(void)
{
    static const mip_utime_t starts[] = { T0, B31 - BEFORE, B32 - BEFORE };
    struct node n;
    unsigned s, p0;
    for (s = 0; s < 3u; s++) {
        node_config(&n, MIP_MAC_CSMA_CA);
        n.cfg.rdc.kind = MIP_RDC_LEAF;
        n.cfg.rdc.parent = PEER;
        n.cfg.rdc.poll_us = 1000u * MS;
        n.now = starts[s];
        node_start(&n);
        node_run(&n, starts[s] + 500u * MS);
        p0 = node_stat(&n, MIP_MAC_STAT_rdc_polls);
        node_run(&n, starts[s] + 500u * MS + WINDOW);
        CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_polls) - p0, WINDOW / (1000u * MS));
        CHECK(!n.radio_on);
    }
}
#endif

#if MIP_RDC_HAS_PARENT
/* A parent holds a frame for its child across the boundary and sends it
 * when the child polls after it. */
static void test_parent_holds_across_the_wrap(void)
{
    static const mip_utime_t bounds[] = { B31, B32 };
    struct mip_802154_addr a = { MIP_802154_ADDR_SHORT, 0, { 0 } };
    struct node n;
    uint8_t f[64];
    size_t len;
    unsigned b;
    for (b = 0; b < 2u; b++) {
        node_config(&n, MIP_MAC_CSMA_CA);
        n.cfg.rdc.kind = MIP_RDC_PARENT;
        n.now = bounds[b] - BEFORE;
        node_start(&n);
        a.short_addr = PEER;
        CHECK_EQ(mip_mac_add_child(&n.mac, &a, n.now), MIP_OK);
        CHECK_EQ(node_send(&n, PEER, true, 5), MIP_OK);
        node_run(&n, bounds[b] + BEFORE);
        CHECK_EQ(n.ntx, 0);             /* held */
        CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_ind_held), 1);
        len = data_request(f, ME, PEER, 0x21);
        (void)node_rx(&n, f, len);
        run_to_tx(&n, 1, 20u * MS);     /* its ACK, then the frame */
        CHECK(n.ntx >= 2u && n.tx[1].data[n.tx[1].len - 1u] == 5);
        CHECK_EQ(n.ndone, 0);
    }
}
#endif

int main(void)
{
    RUN(test_each_rdc_behaves_across_the_us_wrap);
#if MIP_RDC_HAS_LEAF
    RUN(test_leaf_polls_on_time_across_the_wrap);
#endif
#if MIP_RDC_HAS_PARENT
    RUN(test_parent_holds_across_the_wrap);
#endif
    return TESTING_DONE();
}
