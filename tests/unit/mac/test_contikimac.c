/* ContikiMAC (rdc.h) against the fake radio: channel check timing, fast
 * sleep, unicast repeated until its ACK, broadcast for a whole interval,
 * phase lock and its table, bursts, repeats dropped. The MAC protocol under
 * it is NullMAC (no backoff, no retries), so every time below is the RDC's. */
#include "rdc_frames.h"
#include "../../../src/mac/mac_proto.h"   /* engine states */

#if MIP_RDC_HAS_CONTIKIMAC

#define T        125000u        /* 8 Hz */
#define TR       192u
#define TC       500u
#define TI       400u
#define CHECK_US (2u * TR + TC) /* one channel check: 884 */
#define ACK_AIR  352u           /* (6 + 5) * 32 */

static void cm_config(struct node *n)
{
    node_config(n, MIP_MAC_NULLMAC);
    n->cfg.rdc.kind = MIP_RDC_CONTIKIMAC;
}

/* Starts a ContikiMAC node and runs it through its first channel check;
 * returns when that check started. Counters of the fake radio are reset. */
static mip_utime_t cm_start(struct node *n)
{
    mip_utime_t s0;
    node_start(n);
    CHECK(!n->radio_on);
    node_run(n, T0 + T);
    CHECK_EQ(n->ncca, 2);
    s0 = n->cca_at[0] - TR;
    n->ncca = 0;
    n->on_us = 0;
    return s0;
}

/* Runs until transmission number `k` is on air; returns k. */
static unsigned run_to_copy(struct node *n, unsigned k)
{
    unsigned i;
    for (i = 0; i < 100000u && n->ntx <= k; i++)
        CHECK(node_step(n, n->now + 10u * T));
    return k;
}

/* The receiver's ACK for the copy on air: the MAC sees the channel busy at
 * the end of the copy gap, then the ACK frame ends turnaround + its airtime
 * after the copy. */
static void ack_copy(struct node *n, unsigned k)
{
    uint8_t ack[MIP_802154_ACK_LEN];
    mip_utime_t end;
    (void)run_to_copy(n, k);
    end = n->tx[k].t + airtime(n, n->tx[k].len);
    node_run(n, end + TI - 1u);
    CHECK_EQ(n->mac.state, MIP_MAC_ST_ACK_WAIT);
    n->chan_busy = true;
    node_run(n, end + TI);
    n->chan_busy = false;
    CHECK_EQ(n->mac.state, MIP_MAC_ST_ACK_WAIT);     /* stretched for the ACK */
    n->now = end + 192u + ACK_AIR;
    mip_ieee802154_emit_ack(n->tx[k].data[2], false, ack);
    (void)node_rx(n, ack, sizeof(ack));
}

static void test_channel_check_timing_and_idle_radio_time(void)
{
    struct node n;
    mip_utime_t s0;
    unsigned k, checks = 0;
    cm_config(&n);
    s0 = cm_start(&n);
    CHECK(s0 >= T0 && s0 < T0 + T);
    node_run(&n, s0 + 8u * T + CHECK_US);
    for (k = 0; k + 1u < n.ncca; k += 2u, checks++) {
        /* each check: CCA, radio off Tc, CCA; checks T apart */
        CHECK_EQ(n.cca_at[k], s0 + (checks + 1u) * T + TR);
        CHECK_EQ(n.cca_at[k + 1u] - n.cca_at[k], TC + TR);
    }
    CHECK_EQ(checks, 8);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_checks), 9);
    /* idle radio time: 2 Tr per interval, 0.31 % at 8 Hz */
    CHECK_EQ(on_time(&n), 8u * 2u * TR);
    CHECK(!n.radio_on);
    CHECK_EQ(n.ntx, 0);
}

static void test_busy_cca_listens_then_fast_sleeps(void)
{
    static const struct {
        const char *script;     /* CCAs from the check that finds energy on */
        unsigned first_busy;    /* which CCA of the check saw it */
        unsigned samples;       /* CCAs until two clear ones in a row */
    } rows[] = {
        { "b", 0, 2 },          /* energy, then silence */
        { ".b", 1, 2 },         /* the second CCA catches it */
        { "bbb.b", 0, 6 },      /* a clear sample alone does not end it */
    };
    struct node n;
    unsigned r;
    for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
        mip_utime_t s0, start;
        cm_config(&n);
        s0 = cm_start(&n);
        n.cca_script = rows[r].script;
        node_run(&n, s0 + 2u * T - 1u);
        start = s0 + T;
        CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_detections), 1);
        CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_fast_sleeps), 1);
        CHECK_EQ(n.ncca, rows[r].first_busy + 1u + rows[r].samples);
        /* samples every Tr + Tc while listening */
        CHECK_EQ(n.cca_at[n.ncca - 1u], n.cca_at[rows[r].first_busy] + rows[r].samples * (TR + TC));
        /* on from the busy CCA's window to the last sample */
        CHECK_EQ(on_time(&n), rows[r].first_busy * TR + TR + rows[r].samples * (TR + TC));
        CHECK(!n.radio_on);
        (void)start;
    }
}

static void test_noise_listens_at_most_listen_max(void)
{
    struct node n;
    mip_utime_t s0;
    cm_config(&n);
    s0 = cm_start(&n);
    n.chan_busy = true;
    node_run(&n, s0 + 2u * T - 1u);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_fast_sleeps), 1);
    CHECK_EQ(on_time(&n), TR + 12500u);
    CHECK(!n.radio_on);
}

static void test_unicast_repeats_until_ack(void)
{
    struct node n;
    mip_utime_t s0, a;
    unsigned k;
    cm_config(&n);
    s0 = cm_start(&n);
    n.now = s0 + T / 2u;
    CHECK_EQ(node_send(&n, PEER, true, 7), MIP_OK);
    k = run_to_copy(&n, 0);
    CHECK_EQ(on_time(&n), 2u * TR);     /* its own check: two CCA windows */
    /* its own channel check first: two CCAs, then the first copy */
    CHECK_EQ(n.ncca, 2);
    CHECK_EQ(n.cca_at[0], s0 + T / 2u + TR);
    CHECK_EQ(n.tx[k].t, s0 + T / 2u + CHECK_US);
    a = airtime(&n, n.tx[0].len);
    ack_copy(&n, 3);
    /* copies Ti apart, the same frame each time */
    CHECK_EQ(n.ntx, 4);
    for (k = 1; k < 4; k++) {
        CHECK_EQ(n.tx[k].t - n.tx[k - 1u].t, a + TI);
        CHECK_EQ(n.tx[k].len, n.tx[0].len);
        CHECK_MEM(n.tx[k].data, n.tx[0].data, n.tx[0].len);
    }
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_OK);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_copies), 3);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_acks_rx), 1);
    /* the frame is not a burst: no pending bit */
    CHECK_EQ(n.tx[0].data[0] & 0x10, 0);
    node_run(&n, n.now + 1u);
    CHECK(!n.radio_on);
}

static void test_unicast_without_ack_strobes_a_whole_interval(void)
{
    struct node n;
    mip_utime_t s0, a, limit = T + 2u * CHECK_US;
    unsigned expect;
    cm_config(&n);
    s0 = cm_start(&n);
    n.now = s0 + T / 2u;
    CHECK_EQ(node_send(&n, PEER, true, 7), MIP_OK);
    node_run(&n, s0 + 3u * T);
    a = airtime(&n, n.tx[0].len);
    /* a copy starts while less than the limit has passed */
    expect = (unsigned)((limit + a + TI - 1u) / (a + TI));
    CHECK_EQ(n.ntx, expect);
    CHECK(n.tx[NODE_TX_MAX - 1u].t - n.tx[0].t == (NODE_TX_MAX - 1u) * (a + TI));
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_NOACK);
    CHECK_EQ(n.done[0].t, n.tx[0].t + (expect - 1u) * (a + TI) + a + TI);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_phase_locked), 0);
}

static void test_broadcast_repeats_for_an_interval_radio_off_between(void)
{
    struct node n;
    mip_utime_t s0, a, limit = T + 2u * CHECK_US;
    unsigned expect;
    uint64_t on;
    cm_config(&n);
    s0 = cm_start(&n);
    n.now = s0 + 2000u;
    CHECK_EQ(node_send(&n, 0xFFFF, false, 9), MIP_OK);
    node_run(&n, s0 + 3u * T);
    a = airtime(&n, n.tx[0].len);
    expect = (unsigned)((limit + a + TI - 1u) / (a + TI));
    CHECK_EQ(n.ntx, expect);
    CHECK(expect * (a + TI) >= T);          /* the whole interval is covered */
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_OK);
    /* receiver on for its own two CCAs and while sending, off in the gaps
     * (the node's own checks in the train: at most two more) */
    on = on_time(&n);
    CHECK(on >= 2u * TR + (uint64_t)expect * a);
    CHECK(on <= 2u * TR + (uint64_t)expect * a + 3u * 2u * TR);
}

static void test_busy_channel_before_the_train_is_a_collision(void)
{
    struct node n;
    mip_utime_t s0;
    cm_config(&n);
    s0 = cm_start(&n);
    n.now = s0 + T / 2u;
    n.cca_script = ".b";
    CHECK_EQ(node_send(&n, PEER, true, 7), MIP_OK);
    node_run(&n, s0 + T / 2u + 5000u);
    CHECK_EQ(n.ntx, 0);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_collisions), 1);
    CHECK_EQ(n.ndone, 1);                   /* NullMAC does not retry */
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_NOACK);
}

static void test_phase_lock_starts_at_the_learned_phase(void)
{
    struct node n;
    mip_utime_t s0, a, t2, t;
    unsigned k;
    cm_config(&n);
    s0 = cm_start(&n);
    n.now = s0 + T / 2u;
    node_send(&n, PEER, true, 1);
    k = run_to_copy(&n, 0);
    a = airtime(&n, n.tx[k].len);
    ack_copy(&n, 3);
    /* the receiver woke within copy 2, which caught it */
    t2 = n.tx[2].t;
    CHECK_EQ(n.tx[3].t - t2, a + TI);
    /* the next unicast, sent 2.5 intervals later, starts its CCAs one check
     * before t2 + 3 T; its first copy goes out at t2 + 3 T */
    n.now = t2 + 2u * T + T / 2u;
    node_send(&n, PEER, true, 2);
    k = run_to_copy(&n, 4);
    CHECK_EQ(n.tx[k].t, t2 + 3u * T);
    CHECK_EQ(n.cca_at[n.ncca - 2u], t2 + 3u * T - CHECK_US + TR);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_phase_locked), 1);
    /* ACKed at its first copy: the receiver was listening when it began */
    ack_copy(&n, k);
    CHECK_EQ(n.done[1].st, MIP_MAC_TX_OK);
    t = n.tx[k].t;
    n.now = t + T + 1000u;
    node_send(&n, PEER, true, 3);
    k = run_to_copy(&n, 5);
    CHECK_EQ(n.tx[k].t, t + 2u * T);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_phase_locked), 2);
}

static void test_phase_miss_gives_up_early_then_full_train(void)
{
    struct node n;
    mip_utime_t s0, a, t;
    unsigned k, before, full, aimed;
    cm_config(&n);
    n.cfg.rdc.phase_max_misses = 2;
    s0 = cm_start(&n);
    n.now = s0 + T / 2u;
    node_send(&n, PEER, true, 1);
    k = run_to_copy(&n, 0);
    a = airtime(&n, n.tx[k].len);
    ack_copy(&n, 1);
    aimed = (16667u + a + TI - 1u) / (a + TI);
    full = (T + 2u * CHECK_US + a + TI - 1u) / (a + TI);
    /* a miss ends a train aimed at the phase after phase_strobe_us ... */
    before = n.ntx;
    node_send(&n, PEER, true, 10);
    node_run(&n, n.now + 3u * T);
    CHECK_EQ(n.ntx - before, aimed);
    CHECK_EQ(n.done[1].st, MIP_MAC_TX_NOACK);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_phase_misses), 1);
    /* ... and puts the phase in doubt: the next attempt is a full train,
     * at once; without an ACK it is the second miss in a row, which drops
     * the phase (phase_max_misses 2) */
    n.ntx = 0;
    n.ncca = 0;
    t = n.now;
    node_send(&n, PEER, true, 11);
    k = run_to_copy(&n, 0);
    CHECK_EQ(n.cca_at[0], t + TR);
    node_run(&n, n.now + 3u * T);
    CHECK_EQ(n.ntx, full);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_phase_locked), 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_phase_evicted), 1);
    /* gone: a full train again, whose ACK at its third copy teaches the
     * phase anew; the next attempt is aimed */
    n.ntx = 0;
    node_send(&n, PEER, true, 20);
    k = run_to_copy(&n, n.ntx);
    ack_copy(&n, k + 2u);
    node_run(&n, n.now + 10u);
    node_send(&n, PEER, true, 21);
    k = run_to_copy(&n, n.ntx);
    CHECK_EQ(n.tx[k].t, n.tx[k - 2u].t + T);     /* where copy 2 - 1 began, an interval on */
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_phase_locked), 2);
}

static void test_first_copy_acked_teaches_nothing_unless_aimed(void)
{
    struct node n;
    mip_utime_t s0;
    unsigned k;
    cm_config(&n);
    s0 = cm_start(&n);
    n.now = s0 + T / 2u;
    /* the receiver was awake anyway: ACK for the first copy of a full train */
    node_send(&n, PEER, true, 1);
    k = run_to_copy(&n, 0);
    ack_copy(&n, k);
    node_run(&n, n.now + 10u);
    node_send(&n, PEER, true, 2);
    k = run_to_copy(&n, n.ntx);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_phase_locked), 0);
    CHECK_EQ(n.tx[k].t, n.done[0].t + CHECK_US);    /* at once, no wait */
}

static void test_phase_table_evicts_least_recently_used(void)
{
    struct node n;
    unsigned i, k;
    cm_config(&n);
    (void)cm_start(&n);
    /* one more neighbour than the table holds, each ACKed at its second copy */
    for (i = 0; i <= MIP_RDC_PHASES; i++) {
        node_send(&n, (uint16_t)(0x100u + i), true, (uint8_t)i);
        k = run_to_copy(&n, n.ntx);
        ack_copy(&n, k + 1u);
        node_run(&n, n.now + 10u);
    }
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_phase_evicted), 1);
    /* the first neighbour was the least recently used: no phase left */
    node_send(&n, 0x100u, true, 50);
    k = run_to_copy(&n, n.ntx);
    ack_copy(&n, k + 1u);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_phase_locked), 0);
    /* the last one still has its phase */
    node_send(&n, (uint16_t)(0x100u + MIP_RDC_PHASES), true, 51);
    k = run_to_copy(&n, n.ntx);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_phase_locked), 1);
}

static void test_burst_sets_pending_and_sends_the_next_at_once(void)
{
    struct node n;
    mip_utime_t s0;
    unsigned k, ncca;
    cm_config(&n);
    s0 = cm_start(&n);
    n.now = s0 + T / 2u;
    CHECK_EQ(node_send(&n, PEER, true, 1), MIP_OK);
    CHECK_EQ(node_send(&n, PEER, true, 2), MIP_OK);
    k = run_to_copy(&n, 0);
    CHECK(n.tx[k].data[0] & 0x10);          /* frame pending: another follows */
    ack_copy(&n, 1);
    ncca = n.ncca;
    /* the next frame goes out at once: no phase wait, no CCAs */
    k = run_to_copy(&n, 2);
    CHECK_EQ(n.tx[k].t, n.done[0].t);
    CHECK_EQ(n.ncca, ncca);
    CHECK_EQ(n.tx[k].data[0] & 0x10, 0);    /* the last of the burst */
    CHECK_EQ(n.tx[k].data[n.tx[k].len - 1u], 2);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_bursts), 1);
    ack_copy(&n, k);
    CHECK_EQ(n.done[1].st, MIP_MAC_TX_OK);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_phase_locked), 0);
}

/* A frame from PEER for us, with the frame pending bit as asked. */
static size_t peer_frame(uint8_t *f, uint8_t seq, bool pending, uint8_t tag)
{
    size_t len = build_data(f, ME, PEER, PAN, true, seq, tag, 20);
    if (pending)
        f[0] |= 0x10;
    return len;
}

static void test_burst_keeps_the_receiver_awake(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    mip_utime_t s0, t;
    cm_config(&n);
    s0 = cm_start(&n);
    /* a frame with the pending bit during a check: awake for 31.25 ms */
    n.now = s0 + T + 100u;
    node_run(&n, n.now);
    len = peer_frame(f, 1, true, 1);
    t = s0 + T + 1500u;
    n.now = t;
    (void)node_rx(&n, f, len);
    node_run(&n, t + 31250u - 1u);
    CHECK(n.radio_on);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_acks_tx), 1);
    /* our own frame waits for the burst to end */
    node_send(&n, PEER, true, 9);
    node_run(&n, t + 20000u);
    CHECK_EQ(n.ntx, 1);                     /* only the ACK */
    /* the last frame of the burst: ACK, then asleep and our frame goes */
    len = peer_frame(f, 2, false, 2);
    n.now = t + 20000u;
    (void)node_rx(&n, f, len);
    CHECK_EQ(n.ninput, 2);
    node_run(&n, t + 20000u + 192u + ACK_AIR + 2u * CHECK_US + 10u);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_acks_tx), 2);
    CHECK(n.ntx >= 3u);                     /* our data frame is on its way */
    CHECK_EQ(n.tx[2].data[n.tx[2].len - 1u], 9);
    /* without a next frame the burst times out */
    node_run(&n, n.now + 2u * T);
    cm_config(&n);
    s0 = cm_start(&n);
    n.now = s0 + T + 50u;
    len = peer_frame(f, 3, true, 3);
    (void)node_rx(&n, f, len);
    node_run(&n, n.now + 31250u + 1000u);
    CHECK(!n.radio_on);
}

static void test_repeats_are_acked_but_passed_up_once(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    mip_utime_t s0;
    unsigned i;
    cm_config(&n);
    s0 = cm_start(&n);
    /* the sender missed our ACK and repeats its copy: ACK again, pass up once */
    len = peer_frame(f, 7, false, 1);
    for (i = 0; i < 3u; i++) {
        n.now = s0 + T / 2u + i * 3000u;
        (void)node_rx(&n, f, len);
        node_run(&n, n.now + 1000u);
    }
    CHECK_EQ(n.ninput, 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_duplicates), 2);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_acks_tx), 3);
    /* broadcast copies heard in two checks */
    len = build_data(f, 0xFFFF, PEER, PAN, false, 8, 2, 20);
    n.now = s0 + 2u * T + 500u;
    (void)node_rx(&n, f, len);
    n.now = s0 + 3u * T + 500u;
    (void)node_rx(&n, f, len);
    CHECK_EQ(n.ninput, 2);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_duplicates), 3);
    /* back to sleep after each (after its ACK for the unicast) */
    node_run(&n, n.now + 10u);
    CHECK(!n.radio_on);
}

/* Energy, a pause, energy again when listen_max_us is up: a train's copy
 * under way (docs/MAC.md "Denial of sleep": copies before it lost to
 * collisions). The receiver stays one longest frame more, once, and gets
 * it; before, it slept at listen_max_us in the middle of the copy and the
 * sender had to try again. */
static void test_listen_stays_for_a_copy_under_way(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    mip_utime_t s0, busy;
    uint32_t longest;
    cm_config(&n);
    longest = airtime(&n, MIP_MAC_FRAME_MAX);
    s0 = cm_start(&n);
    n.cca_script = "bb.";       /* the check's busy CCA, a sample, the gap */
    n.chan_busy = true;
    busy = s0 + T + TR;         /* the listen starts at the busy CCA */
    node_run(&n, busy + 12500u + longest / 2u);
    CHECK(n.radio_on);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_fast_sleeps), 0);
    n.chan_busy = false;
    len = peer_frame(f, 1, false, 1);
    (void)node_rx(&n, f, len);
    CHECK_EQ(n.ninput, 1);
    node_run(&n, n.now + 192u + ACK_AIR + 10u);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_acks_tx), 1);
    CHECK(!n.radio_on);
    /* no frame comes: off one longest frame after listen_max_us, once */
    cm_config(&n);
    s0 = cm_start(&n);
    n.cca_script = "bb.";
    n.chan_busy = true;
    node_run(&n, s0 + 2u * T - 1u);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_fast_sleeps), 1);
    CHECK_EQ(on_time(&n), TR + 12500u + longest);
    CHECK(!n.radio_on);
}

/* Denial of sleep (issue 24, docs/MAC.md): a pending bit holds the radio
 * only from a new frame to our own address, for at most burst_max_us per
 * burst and burst_budget_us per burst_window_us per neighbour
 * (rdc_frames.h). Before the fix each attack kept the radio on 2 s of 2. */
static void test_pending_bits_are_earned_and_bounded(void)
{
    check_pending_bounds(cm_config, cm_start, T + 100u, 40000u);
}

/* The table of burst senders (MIP_RDC_BURSTERS, 2) evicts no neighbour
 * whose budget window still counts: a third sender gets no burst until a
 * window ends (else invented source addresses would each bring a fresh
 * budget). */
static void test_burst_table_protects_counting_neighbours(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    mip_utime_t s0;
    const uint16_t from[3] = { PEER, OTHER, 0x0004u };
    unsigned i;
    cm_config(&n);
    s0 = cm_start(&n);
    n.now = s0 + T + 100u;
    for (i = 0; i < 3u; i++) {
        len = build_data(f, ME, from[i], PAN, true, 1, 1, 20);
        f[0] |= 0x10;
        (void)node_rx(&n, f, len);
        n.now += 2000u;
    }
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_bursts_rx), 2);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_burst_refused), 1);
    /* a window (1 s) later both have ended: the third sender is heard */
    n.now = s0 + 10u * T + 100u;
    node_run(&n, n.now);
    len = build_data(f, ME, from[2], PAN, true, 2, 1, 20);
    f[0] |= 0x10;
    (void)node_rx(&n, f, len);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_bursts_rx), 3);
    CHECK(n.radio_on);
}

static void test_rejects_parameters_that_break_the_timing(void)
{
    static const struct {
        uint16_t rate, cca_gap, copy_gap;
        uint8_t cca_count;
        mip_status want;
    } rows[] = {
        { 8, 500, 400, 2, MIP_OK },
        { 0, 500, 400, 2, MIP_ERR_INVALID },        /* no checks */
        { 8, 500, 500, 2, MIP_ERR_INVALID },        /* Ti < Tc */
        { 8, 500, 300, 2, MIP_ERR_INVALID },        /* ACK not seen by Ti */
        { 8, 500, 400, 0, MIP_ERR_INVALID },
        { 1000, 500, 400, 2, MIP_ERR_INVALID },     /* checks overlap */
        { 500, 500, 400, 2, MIP_OK },
    };
    struct mip_mac_callbacks cb = { cb_input, cb_tx_done, cb_overheard, NULL };
    struct node n;
    unsigned r;
    for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
        cm_config(&n);
        n.cfg.rdc.check_rate_hz = rows[r].rate;
        n.cfg.rdc.cca_gap_us = rows[r].cca_gap;
        n.cfg.rdc.copy_gap_us = rows[r].copy_gap;
        n.cfg.rdc.cca_count = rows[r].cca_count;
        cb.ctx = &n;
        CHECK_EQ(mip_mac_init(&n.mac, &n.cfg, &fake_radio, &n, &cb, NULL, 0, n.now),
                 rows[r].want);
    }
    /* the burst bounds (rdc.h): a length, a budget within its window, a
     * window whose stamps stay within half the clock's wrap */
    {
        static const struct {
            uint32_t max, budget, window;
            enum mip_rdc_check want;
        } b[] = {
            { 252000u, 187500u, 1000000u, MIP_RDC_OK },
            { 0u, 187500u, 1000000u, MIP_RDC_BAD_BURST_MAX },
            { 252000u, 1000001u, 1000000u, MIP_RDC_BAD_BURST_BUDGET },
            { 252000u, 0u, 1000000u, MIP_RDC_OK },      /* no idle at all */
            { 252000u, 187500u, 0u, MIP_RDC_BAD_BURST_BUDGET },
            { 252000u, 187500u, MIP_RDC_BURST_WINDOW_MAX + 1u, MIP_RDC_BAD_BURST_BUDGET },
        };
        for (r = 0; r < sizeof(b) / sizeof(b[0]); r++) {
            cm_config(&n);
            n.cfg.rdc.burst_max_us = b[r].max;
            n.cfg.rdc.burst_budget_us = b[r].budget;
            n.cfg.rdc.burst_window_us = b[r].window;
            CHECK_EQ(mip_mac_rdc_check(&n.cfg), b[r].want);
        }
    }
    /* a radio that cannot switch off cannot duty cycle */
    {
        static const struct mip_radio_driver always_on = { fake_transmit, fake_cca, NULL, NULL };
        cm_config(&n);
        cb.ctx = &n;
        CHECK_EQ(mip_mac_init(&n.mac, &n.cfg, &always_on, &n, &cb, NULL, 0, n.now),
                 MIP_ERR_INVALID);
    }
}

int main(void)
{
    RUN(test_channel_check_timing_and_idle_radio_time);
    RUN(test_busy_cca_listens_then_fast_sleeps);
    RUN(test_noise_listens_at_most_listen_max);
    RUN(test_listen_stays_for_a_copy_under_way);
    RUN(test_unicast_repeats_until_ack);
    RUN(test_unicast_without_ack_strobes_a_whole_interval);
    RUN(test_broadcast_repeats_for_an_interval_radio_off_between);
    RUN(test_busy_channel_before_the_train_is_a_collision);
    RUN(test_phase_lock_starts_at_the_learned_phase);
    RUN(test_phase_miss_gives_up_early_then_full_train);
    RUN(test_first_copy_acked_teaches_nothing_unless_aimed);
    RUN(test_phase_table_evicts_least_recently_used);
    RUN(test_burst_sets_pending_and_sends_the_next_at_once);
    RUN(test_burst_keeps_the_receiver_awake);
    RUN(test_repeats_are_acked_but_passed_up_once);
    RUN(test_pending_bits_are_earned_and_bounded);
    RUN(test_burst_table_protects_counting_neighbours);
    RUN(test_rejects_parameters_that_break_the_timing);
    return TESTING_DONE();
}

#else

int main(void)
{
    printf("ContikiMAC left out of this build (MIP_CONF_RDC)\n");
    return 0;
}

#endif
