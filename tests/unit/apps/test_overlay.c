/*
 * The overlay library (apps/overlay.h) on a few nodes joined by a medium of
 * this file: a message to ff02::1 reaches every neighbour, one to fe80::<id>
 * that neighbour, 1 ms later. Each node has its own stack (for the port,
 * the poller slot and the random stream); the test drives time and calls
 * mip_overlay_poll itself.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "moteip/stack.h"
#include "moteip/udp.h"
#include "overlay.h"
#include "testing.h"

#define N 6
#define QMAX 256
#define ATTR 3

struct msg {
    unsigned from, to;          /* to N: every neighbour */
    mip_time_t at;
    size_t len;
    uint8_t buf[32];
};

struct node {
    struct mip_stack s;
    struct mip_overlay o;
    unsigned id;
    bool sensor;
    int16_t value;
};

struct result {
    uint16_t epoch;
    struct mip_ovl_agg agg;
};

static struct node nodes[N];
static bool link_up[N][N];
static struct msg q[QMAX];
static unsigned qn;
static mip_time_t now;
static struct result results[64];
static unsigned n_results;
static unsigned unicasts, broadcasts;

static void addr_of(unsigned id, struct mip_addr *a)
{
    uint8_t b[16] = { 0xfe, 0x80 };
    b[15] = (uint8_t)(id + 1u);
    mip_addr_set6(a, b);
}

static mip_status medium_tx(void *ctx, struct mip_stack *s, const struct mip_addr *dst,
                            uint8_t zone, const uint8_t *buf, size_t len)
{
    struct node *nd = ctx;
    struct msg *m;
    (void)s;
    (void)zone;
    if (qn >= QMAX || len > sizeof(q[0].buf))
        return MIP_ERR_NOBUFS;
    m = &q[qn++];
    m->from = nd->id;
    m->to = dst->bytes[0] == 0xff ? N : (unsigned)dst->bytes[15] - 1u;
    m->at = now + 1u;
    m->len = len;
    memcpy(m->buf, buf, len);
    if (m->to == N)
        broadcasts++;
    else
        unicasts++;
    return MIP_OK;
}

static bool read_value(void *ctx, uint8_t attr, mip_time_t t, int16_t *v)
{
    struct node *nd = ctx;
    (void)t;
    if (!nd->sensor || attr != ATTR)
        return false;
    *v = nd->value;
    return true;
}

static void on_result(void *ctx, uint8_t attr, uint16_t epoch, const struct mip_ovl_agg *agg,
                      mip_time_t t)
{
    (void)ctx;
    (void)attr;
    (void)t;
    if (n_results < 64u) {
        results[n_results].epoch = epoch;
        results[n_results].agg = *agg;
        n_results++;
    }
}

static void setup(unsigned n)
{
    static const uint8_t entropy[16] = { 9, 8, 7, 6, 5, 4, 3, 2, 1 };
    unsigned i;
    memset(link_up, 0, sizeof(link_up));
    qn = 0;
    n_results = 0;
    unicasts = broadcasts = 0;
    now = testing_start(5000);
    for (i = 0; i < n; i++) {
        struct mip_stack_config sc;
        struct mip_overlay_cfg oc;
        struct node *nd = &nodes[i];
        uint8_t ent[16];
        memset(nd, 0, sizeof(*nd));
        memcpy(ent, entropy, sizeof(ent));
        ent[15] = (uint8_t)i;
        memset(&sc, 0, sizeof(sc));
        sc.entropy = ent;
        sc.entropy_len = sizeof(ent);
        mip_stack_init(&nd->s, &sc, now);
        nd->id = i;
        nd->sensor = i != 0;
        nd->value = (int16_t)(10 * (int)i);
        memset(&oc, 0, sizeof(oc));
        oc.id = (uint16_t)(100u + i);
        oc.read = read_value;
        oc.result = on_result;
        oc.tx = medium_tx;
        oc.ctx = nd;
        CHECK_EQ(mip_overlay_start(&nd->o, &nd->s, &oc), MIP_OK);
    }
}

static void link2(unsigned a, unsigned b)
{
    link_up[a][b] = link_up[b][a] = true;
}

static void deliver_one(const struct msg *m, unsigned to)
{
    struct mip_addr src;
    addr_of(m->from, &src);
    mip_overlay_input(&nodes[to].o, &src, 0, m->buf, m->len, now);
}

/* Runs the network until `end` (ms after now), in steps to the next
 * deadline or delivery. */
static void run(unsigned n, uint32_t ms)
{
    mip_time_t end = now + ms;
    while (mip_time_before(now, end)) {
        uint32_t next = end - now;
        unsigned i, k;
        for (i = 0; i < n; i++) {
            uint32_t d = mip_overlay_poll(&nodes[i].o, now);
            if (d < next)
                next = d;
        }
        /* deliver what is due; keep the rest in order */
        for (k = 0; k < qn;) {
            struct msg m = q[k];
            if (mip_time_before(now, m.at)) {
                uint32_t d = m.at - now;
                if (d < next)
                    next = d;
                k++;
                continue;
            }
            memmove(&q[k], &q[k + 1], (qn - k - 1u) * sizeof(q[0]));
            qn--;
            for (i = 0; i < n; i++)
                if (link_up[m.from][i] && (m.to == N || m.to == i))
                    deliver_one(&m, i);
            next = 0;
        }
        if (next == 0)
            continue;
        now += next;
    }
}

/* 0 - 1 - 2 - 3, sink 0 without a sensor: every round counts the three
 * readings once, and each relay sends one aggregate a round (3 messages,
 * where per-node reports would take 1 + 2 + 3). */
static void test_chain_aggregates_every_round(void)
{
    unsigned r, u0;
    setup(4);
    link2(0, 1);
    link2(1, 2);
    link2(2, 3);
    CHECK_EQ(mip_overlay_subscribe(&nodes[0].o, ATTR, 10000, 4, 200, 60000, now), MIP_OK);
    run(4, 500);
    CHECK_EQ(mip_overlay_hops(&nodes[3].o, 100, ATTR), 3);
    CHECK_EQ(mip_overlay_hops(&nodes[0].o, 100, ATTR), 0);
    u0 = unicasts;
    run(4, 41000);
    CHECK(n_results >= 4u);
    for (r = 0; r < n_results; r++) {
        CHECK_EQ(results[r].epoch, r);
        CHECK_EQ(results[r].agg.count, 3);
        CHECK_EQ(results[r].agg.min, 10);
        CHECK_EQ(results[r].agg.max, 30);
        CHECK_EQ(results[r].agg.sum, 60);
    }
    CHECK_EQ(unicasts - u0, 3u * n_results);
    CHECK_EQ(nodes[0].o.late_readings, 0u);
    CHECK_EQ(nodes[1].o.drops[MIP_OVL_DROP_LATE], 0u);
}

/* A tree: 0-1, 0-2, 1-3, 1-4, 2-5. */
static void test_tree_aggregates_min_max_mean(void)
{
    setup(6);
    link2(0, 1);
    link2(0, 2);
    link2(1, 3);
    link2(1, 4);
    link2(2, 5);
    nodes[4].value = -7;
    CHECK_EQ(mip_overlay_subscribe(&nodes[0].o, ATTR, 5000, 3, 100, 30000, now), MIP_OK);
    run(6, 16000);
    CHECK(n_results >= 3u);
    if (n_results >= 3u) {
        const struct mip_ovl_agg *a = &results[2].agg;
        CHECK_EQ(a->count, 5);
        CHECK_EQ(a->min, -7);
        CHECK_EQ(a->max, 50);
        CHECK_EQ(a->sum, 10 + 20 + 30 - 7 + 50);
    }
}

/* Refreshes keep the state; after an unsubscribe every relay forgets the
 * interest within a lifetime, and nothing is left to time. */
static void test_state_ends_after_unsubscribe(void)
{
    unsigned i;
    setup(3);
    link2(0, 1);
    link2(1, 2);
    CHECK_EQ(mip_overlay_subscribe(&nodes[0].o, ATTR, 2000, 2, 100, 9000, now), MIP_OK);
    CHECK_EQ(mip_overlay_subscribe(&nodes[0].o, ATTR, 2000, 2, 100, 9000, now), MIP_ERR_INUSE);
    run(3, 30000);              /* three lifetimes: refreshes kept it */
    CHECK_EQ(mip_overlay_hops(&nodes[2].o, 100, ATTR), 2);
    CHECK_EQ(mip_overlay_unsubscribe(&nodes[0].o, ATTR), MIP_OK);
    CHECK_EQ(mip_overlay_unsubscribe(&nodes[0].o, ATTR), MIP_ERR_NOTFOUND);
    run(3, 9001);
    for (i = 0; i < 3; i++) {
        CHECK_EQ(mip_overlay_hops(&nodes[i].o, 100, ATTR), -1);
        CHECK_EQ(mip_overlay_poll(&nodes[i].o, now), MIP_POLL_IDLE);
    }
}

/* A relay's interest table: a new interest evicts the relayed one closest
 * to expiry; a node whose slots hold its own subscriptions refuses more. */
static void test_interest_table_is_bounded(void)
{
    unsigned a;
    setup(2);
    link2(0, 1);
    for (a = 0; a < MIP_OVERLAY_INTERESTS; a++)
        CHECK_EQ(mip_overlay_subscribe(&nodes[0].o, (uint8_t)a, 60000, 1, 10, 60000u + a, now),
                 MIP_OK);
    CHECK_EQ(mip_overlay_subscribe(&nodes[0].o, 200, 60000, 1, 10, 60000, now), MIP_ERR_NOBUFS);
    run(2, 100);
    CHECK_EQ(mip_overlay_hops(&nodes[1].o, 100, 0), 1);
    /* node 1 subscribes too: its own needs a slot, the relayed interest
     * closest to expiry (attr 0, the shortest lifetime) gives way */
    CHECK_EQ(mip_overlay_subscribe(&nodes[1].o, 9, 60000, 1, 10, 60000, now), MIP_OK);
    CHECK_EQ(mip_overlay_hops(&nodes[1].o, 100, 0), -1);
    CHECK_EQ(mip_overlay_hops(&nodes[1].o, 100, 1), 1);
    /* node 0's slots are all its own: node 1's interest is refused */
    run(2, 100);
    CHECK(nodes[0].o.drops[MIP_OVL_DROP_INTERESTS_FULL] >= 1u);
    CHECK_EQ(mip_overlay_hops(&nodes[0].o, 101, 9), -1);
}

/* Data the library cannot use is counted by reason, never held. */
static void test_data_drops_by_reason(void)
{
    struct mip_ovl_data d;
    struct mip_addr src;
    uint8_t buf[MIP_OVL_DATA_LEN];
    size_t n;
    uint16_t round;
    unsigned k;
    setup(2);
    link2(0, 1);
    CHECK_EQ(mip_overlay_subscribe(&nodes[0].o, ATTR, 10000, 2, 100, 60000, now), MIP_OK);
    run(2, 100);
    addr_of(1, &src);
    memset(&d, 0, sizeof(d));
    d.attr = ATTR;
    d.sink = 100;
    d.agg.count = 2;
    d.agg.min = d.agg.max = 1;
    d.agg.sum = 2;
    round = nodes[0].o.interest[0].round;
    /* no such interest */
    d.sink = 77;
    CHECK_EQ(mip_ovl_data_emit(&d, buf, sizeof(buf), &n), MIP_OK);
    mip_overlay_input(&nodes[0].o, &src, 0, buf, n, now);
    CHECK_EQ(nodes[0].o.drops[MIP_OVL_DROP_NO_INTEREST], 1u);
    d.sink = 100;
    /* too far ahead */
    d.epoch = (uint16_t)(round + MIP_OVERLAY_AHEAD_MAX + 1u);
    CHECK_EQ(mip_ovl_data_emit(&d, buf, sizeof(buf), &n), MIP_OK);
    mip_overlay_input(&nodes[0].o, &src, 0, buf, n, now);
    CHECK_EQ(nodes[0].o.drops[MIP_OVL_DROP_AHEAD], 1u);
    /* a round the sink reported already: late readings */
    d.epoch = (uint16_t)(round - 1u);
    CHECK_EQ(mip_ovl_data_emit(&d, buf, sizeof(buf), &n), MIP_OK);
    mip_overlay_input(&nodes[0].o, &src, 0, buf, n, now);
    CHECK_EQ(nodes[0].o.late_readings, 2u);
    /* malformed: one byte short */
    mip_overlay_input(&nodes[0].o, &src, 0, buf, n - 1u, now);
    CHECK_EQ(nodes[0].o.drops[MIP_OVL_DROP_MALFORMED], 1u);
    /* the pending table: rounds ahead fill at most AHEAD + 1 slots per interest */
    for (k = 0; k <= MIP_OVERLAY_AHEAD_MAX; k++) {
        d.epoch = (uint16_t)(round + k);
        CHECK_EQ(mip_ovl_data_emit(&d, buf, sizeof(buf), &n), MIP_OK);
        mip_overlay_input(&nodes[0].o, &src, 0, buf, n, now);
    }
    CHECK_EQ(nodes[0].o.drops[MIP_OVL_DROP_PENDING_FULL], 0u);
    n_results = 0;
    run(2, 10500);
    CHECK(n_results >= 1u);
    CHECK_EQ(results[0].epoch, round);
    CHECK_EQ(results[0].agg.count, 3);     /* node 1's reading + the 2 injected */
}

/* An older refresh is stale: it neither moves the schedule nor adds a gradient. */
static void test_stale_refresh_is_refused(void)
{
    struct mip_ovl_interest m;
    struct mip_addr src;
    uint8_t buf[MIP_OVL_INTEREST_LEN];
    size_t n;
    setup(2);
    link2(0, 1);
    CHECK_EQ(mip_overlay_subscribe(&nodes[0].o, ATTR, 10000, 2, 100, 60000, now), MIP_OK);
    run(2, 100);
    memset(&m, 0, sizeof(m));
    m.attr = ATTR;
    m.sink = 100;
    m.seq = (uint16_t)(nodes[1].o.interest[0].seq - 1u);
    m.hops = 0;
    m.depth = 2;
    m.slot_ms = 100;
    m.interval_ms = 10000;
    m.due_ms = 5;
    m.lifetime_ms = 60000;
    CHECK_EQ(mip_ovl_interest_emit(&m, buf, sizeof(buf), &n), MIP_OK);
    addr_of(5, &src);
    mip_overlay_input(&nodes[1].o, &src, 0, buf, n, now);
    CHECK_EQ(nodes[1].o.drops[MIP_OVL_DROP_STALE], 1u);
    CHECK(!nodes[1].o.interest[0].grad[1].used);
    /* our own interest echoed back */
    m.seq = nodes[0].o.interest[0].seq;
    CHECK_EQ(mip_ovl_interest_emit(&m, buf, sizeof(buf), &n), MIP_OK);
    mip_overlay_input(&nodes[0].o, &src, 0, buf, n, now);
    CHECK(nodes[0].o.drops[MIP_OVL_DROP_OWN] >= 1u);
}

/* When the best gradient's neighbour goes silent, its gradient expires
 * and data takes the other one. 0-1-3 and 0-2-3; node 1 stops hearing. */
static void test_gradient_fails_over(void)
{
    unsigned r0;
    setup(4);
    link2(0, 1);
    link2(0, 2);
    link2(1, 3);
    link2(2, 3);
    nodes[1].sensor = nodes[2].sensor = false;
    CHECK_EQ(mip_overlay_subscribe(&nodes[0].o, ATTR, 3000, 2, 100, 6000, now), MIP_OK);
    run(4, 7000);
    link_up[1][3] = link_up[3][1] = false;
    run(4, 12000);               /* the gradient via 1 has expired */
    r0 = n_results;
    run(4, 9000);
    CHECK(n_results >= r0 + 2u);
    for (; r0 < n_results; r0++)
        CHECK_EQ(results[r0].agg.count, 1);
}

int main(void)
{
    RUN(test_chain_aggregates_every_round);
    RUN(test_tree_aggregates_min_max_mean);
    RUN(test_state_ends_after_unsubscribe);
    RUN(test_interest_table_is_bounded);
    RUN(test_data_drops_by_reason);
    RUN(test_stale_refresh_is_refused);
    RUN(test_gradient_fails_over);
    return TESTING_DONE();
}
