/* LPP (rdc.h) against the fake radio: the probe cycle and its idle radio
 * time, a busy channel before the probe, the sender waiting for its
 * receiver's probe and answering it after a backoff and CCA, the unicast
 * timeout, broadcast after every probe for an interval, the receiver's
 * listen ending at a frame (or held by the pending bit), parameters. The
 * protocol under it is NullMAC. */
#include "rdc_frames.h"
#include "../../../src/mac/mac_proto.h"

#if MIP_RDC_HAS_LPP

#define T       125000u
#define TR      192u            /* cca_on_us before the probe's CCA */
#define TA      192u
#define LISTEN  7812u
#define BACKOFF 2240u
#define CCA     128u
#define PROBE   0x20u

/* Contiki's exact intervals (no jitter) unless a test says otherwise. */
static void lpp_config(struct node *n)
{
    node_config(n, MIP_MAC_NULLMAC);
    n->cfg.rdc.kind = MIP_RDC_LPP;
    n->cfg.rdc.probe_jitter_us = 0;
}

/* Starts an LPP node and runs its first probe cycle; returns its wake-up. */
static mip_utime_t lpp_start(struct node *n)
{
    node_start(n);
    node_run(n, T0 + T);
    CHECK_EQ(n->n_on, 1);
    CHECK_EQ(n->ntx, 1);
    n->on_us = 0;
    n->ntx = 0;
    n->ncca = 0;
    return n->on_since;
}

static void test_probe_cycle_and_idle_radio_time(void)
{
    struct node n;
    mip_utime_t s0, a;
    unsigned k;
    struct mip_802154_hdr h;
    lpp_config(&n);
    s0 = lpp_start(&n);
    node_run(&n, s0 + 8u * T + T / 2u);
    CHECK_EQ(n.ntx, 8);
    for (k = 0; k < 8u; k++) {
        /* radio on, CCA after Tr, probe a turnaround later */
        CHECK_EQ(n.tx[k].t, s0 + (k + 1u) * T + TR + TA);
        CHECK_EQ(ctl_type_of(&n.tx[k]), PROBE);
        h = hdr_of(&n.tx[k]);
        CHECK_EQ(h.dst.short_addr, 0xFFFF);
        CHECK_EQ(h.src.short_addr, ME);
        CHECK(!h.ack_request);
    }
    a = airtime(&n, n.tx[0].len);
    CHECK_EQ(a, 608u);
    /* idle radio time per interval: Tr + turnaround + probe + listen */
    CHECK_EQ(on_time(&n), 8u * (TR + TA + a + LISTEN));
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_probes), 9);
    CHECK(!n.radio_on);
}

static void test_jitter_varies_the_interval_around_t(void)
{
    struct node n;
    mip_utime_t s0;
    unsigned k, distinct = 0;
    uint64_t sum = 0;
    lpp_config(&n);
    n.cfg.rdc.probe_jitter_us = LISTEN;
    s0 = lpp_start(&n);
    (void)s0;
    node_run(&n, n.now + 40u * T);
    CHECK(n.ntx >= 38u);
    for (k = 1; k < n.ntx && k < NODE_TX_MAX; k++) {
        mip_utime_t iv = n.tx[k].t - n.tx[k - 1u].t;
        CHECK(iv >= T - LISTEN / 2u && iv <= T + LISTEN / 2u);
        distinct += iv != T;
        sum += iv;
    }
    CHECK(distinct > 30u);
    /* centred: the mean stays within a few hundred µs of T */
    CHECK(sum / (n.ntx - 1u) + 800u >= T && sum / (n.ntx - 1u) <= T + 800u);
}

static void test_busy_channel_skips_the_probe_and_wakes_earlier(void)
{
    struct node n;
    mip_utime_t s0;
    lpp_config(&n);
    s0 = lpp_start(&n);
    n.chan_busy = true;
    node_run(&n, s0 + T + TR + LISTEN + 4400u);     /* listened, stretched once */
    CHECK_EQ(n.ntx, 0);
    n.chan_busy = false;
    node_run(&n, s0 + 2u * T - 1u);
    /* the next probe comes earlier than a whole interval */
    CHECK_EQ(n.ntx, 1);
    CHECK(n.tx[0].t < s0 + 2u * T);
}

/* Queues a unicast to PEER after a probe cycle; the radio listens. */
static mip_utime_t queue_after_cycle(struct node *n, mip_utime_t s0, uint8_t tag)
{
    n->now = s0 + TR + TA + 608u + LISTEN + 100u;
    node_run(n, n->now);
    n->ncca = 0;                /* the end of our own listen was one */
    CHECK_EQ(node_send(n, PEER, true, tag), MIP_OK);
    (void)mip_mac_poll(&n->mac, n->now);
    CHECK(n->radio_on);
    return n->now;
}

static void probe_from(struct node *n, uint16_t who, mip_utime_t at)
{
    uint8_t f[64];
    size_t len;
    node_run(n, at);
    n->now = at;
    len = ctl_frame(f, 0xFFFF, who, 5, PROBE);
    (void)node_rx(n, f, len);
    CHECK_EQ(n->ninput, 0);
}

static void test_sender_answers_its_receivers_probe(void)
{
    struct node n;
    mip_utime_t s0, t0, tp;
    unsigned seed;
    for (seed = 1; seed <= 8u; seed++) {
        lpp_config(&n);
        node_start_seed(&n, seed);
        node_run(&n, T0 + T);
        s0 = n.on_since;
        n.ntx = 0;
        n.ncca = 0;
        t0 = queue_after_cycle(&n, s0, 7);
        probe_from(&n, OTHER, t0 + 10000u);  /* someone else's: ignored */
        node_run(&n, t0 + 20000u);
        CHECK_EQ(n.ntx, 0);
        tp = t0 + 30000u;
        probe_from(&n, PEER, tp);
        run_to_tx(&n, 0, 5000u);
        CHECK_EQ(n.tx[0].data[n.tx[0].len - 1u], 7);
        CHECK(n.tx[0].t >= tp + CCA + TA && n.tx[0].t <= tp + BACKOFF + CCA + TA);
        CHECK_EQ(n.ncca, 1);
        node_run(&n, n.tx[0].t + airtime(&n, n.tx[0].len));
        CHECK_EQ(n.ndone, 1);
        CHECK_EQ(n.done[0].st, MIP_MAC_TX_OK);
    }
}

static void test_no_probe_times_out_after_one_and_a_half_intervals(void)
{
    struct node n;
    mip_utime_t s0, t0;
    lpp_config(&n);
    s0 = lpp_start(&n);
    t0 = queue_after_cycle(&n, s0, 7);
    node_run(&n, t0 + 2u * T);
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_NOACK);
    CHECK_EQ(n.done[0].t, t0 + T + T / 2u);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_probe_timeouts), 1);
}

static void test_busy_after_the_probe_waits_for_the_next(void)
{
    struct node n;
    mip_utime_t s0, t0;
    lpp_config(&n);
    s0 = lpp_start(&n);
    t0 = queue_after_cycle(&n, s0, 7);
    n.cca_script = "b";
    probe_from(&n, PEER, t0 + 1000u);
    node_run(&n, t0 + 1000u + BACKOFF + CCA + TA + 10u);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_collisions), 1);
    CHECK_EQ(n.ndone, 0);
    probe_from(&n, PEER, t0 + 50000u);
    run_to_tx(&n, 0, 5000u);
    CHECK_EQ(n.tx[0].data[n.tx[0].len - 1u], 7);
}

static void test_broadcast_answers_every_probe_for_an_interval(void)
{
    struct node n;
    mip_utime_t s0, t0;
    unsigned k, copies = 0;
    lpp_config(&n);
    s0 = lpp_start(&n);
    n.now = s0 + TR + TA + 608u + LISTEN + 100u;
    node_run(&n, n.now);
    CHECK_EQ(node_send(&n, 0xFFFF, false, 9), MIP_OK);
    t0 = n.now;
    (void)mip_mac_poll(&n.mac, n.now);
    for (k = 0; k < 3u; k++)
        probe_from(&n, (uint16_t)(PEER + 10u * k), t0 + 20000u + 30000u * k);
    node_run(&n, t0 + T + 1u);
    for (k = 0; k < n.ntx; k++)     /* our own probe may be among them */
        copies += n.tx[k].data[n.tx[k].len - 1u] == 9;
    CHECK_EQ(copies, 3);
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_OK);
    CHECK_EQ(n.done[0].t, t0 + T);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_copies), 2);
}

static void test_receiver_sleeps_after_a_frame_unless_pending(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    mip_utime_t s0, t;
    unsigned r;
    for (r = 0; r < 2u; r++) {
        lpp_config(&n);
        s0 = lpp_start(&n);
        n.ntx = 0;
        t = s0 + T + TR + TA + 608u + 2000u;     /* in the listen after the probe */
        node_run(&n, t);
        n.now = t;
        len = build_data(f, ME, PEER, PAN, true, 9, 3, 20);
        if (r == 1u)
            f[0] |= 0x10;       /* frame pending */
        (void)node_rx(&n, f, len);
        CHECK_EQ(n.ninput, 1);
        node_run(&n, t + TA + 352u + 1u);
        CHECK_EQ(node_stat(&n, MIP_MAC_STAT_acks_tx), 1);
        CHECK_EQ(n.radio_on, r == 1u);
        if (r == 1u) {
            node_run(&n, t + 31250u - 1u);
            CHECK(n.radio_on);
            node_run(&n, t + 31250u + 1u);
            CHECK(!n.radio_on);
        }
    }
}

static void test_rejects_parameters_that_break_the_timing(void)
{
    static const struct {
        uint16_t rate, listen, backoff, cca_on, jitter;
        mip_status want;
    } rows[] = {
        { 8, LISTEN, BACKOFF, TR, LISTEN, MIP_OK },
        { 0, LISTEN, BACKOFF, TR, LISTEN, MIP_ERR_INVALID },
        { 8, 2000, BACKOFF, TR, LISTEN, MIP_ERR_INVALID },  /* a sender's frame would start too late */
        { 8, LISTEN, 20000, TR, LISTEN, MIP_ERR_INVALID },
        { 8, LISTEN, BACKOFF, 0, LISTEN, MIP_ERR_INVALID },
        { 200, LISTEN, BACKOFF, TR, 0, MIP_ERR_INVALID },   /* the wake-up outlasts the interval */
        { 64, LISTEN, BACKOFF, TR, LISTEN, MIP_OK },
        { 64, LISTEN, BACKOFF, TR, 14000, MIP_ERR_INVALID },/* the next wake-up before this one ends */
    };
    struct mip_mac_callbacks cb = { cb_input, cb_tx_done, cb_overheard, NULL };
    struct node n;
    unsigned r;
    for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
        lpp_config(&n);
        n.cfg.rdc.check_rate_hz = rows[r].rate;
        n.cfg.rdc.listen_us = rows[r].listen;
        n.cfg.rdc.probe_backoff_us = rows[r].backoff;
        n.cfg.rdc.cca_on_us = rows[r].cca_on;
        n.cfg.rdc.probe_jitter_us = rows[r].jitter;
        cb.ctx = &n;
        CHECK_EQ(mip_mac_init(&n.mac, &n.cfg, &fake_radio, &n, &cb, NULL, 0, n.now),
                 rows[r].want);
    }
}

/* Denial of sleep (issue 24, docs/MAC.md): a pending bit holds the radio
 * only from a new frame to our own address, for at most burst_max_us per
 * burst and burst_budget_us per burst_window_us per neighbour
 * (rdc_frames.h). Before the fix each attack kept the radio on 2 s of 2. */
static void test_pending_bits_are_earned_and_bounded(void)
{
    check_pending_bounds(lpp_config, lpp_start, T + TR + TA + 1000u, 180000u);
}

int main(void)
{
    RUN(test_probe_cycle_and_idle_radio_time);
    RUN(test_jitter_varies_the_interval_around_t);
    RUN(test_busy_channel_skips_the_probe_and_wakes_earlier);
    RUN(test_sender_answers_its_receivers_probe);
    RUN(test_no_probe_times_out_after_one_and_a_half_intervals);
    RUN(test_busy_after_the_probe_waits_for_the_next);
    RUN(test_broadcast_answers_every_probe_for_an_interval);
    RUN(test_receiver_sleeps_after_a_frame_unless_pending);
    RUN(test_rejects_parameters_that_break_the_timing);
    RUN(test_pending_bits_are_earned_and_bounded);
    return TESTING_DONE();
}

#else

int main(void)
{
    printf("LPP left out of this build (MIP_CONF_RDC)\n");
    return 0;
}

#endif
