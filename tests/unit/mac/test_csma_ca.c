/* Unslotted CSMA-CA (802.15.4-2006 s.7.5.1.4) with link ACKs and retries,
 * the queue, sequence numbers and the exactness of mip_mac_poll's
 * deadlines. */
#include "mac_fixture.h"

#define SEEDS 200u

/* The ACK a peer returns for the frame tx[i]. */
static uint32_t ack_for(struct node *n, unsigned i)
{
    uint8_t ack[3];
    mip_ieee802154_emit_ack(n->tx[i].data[2], false, ack);
    return node_rx(n, ack, 3);
}

static void test_backoff_draws_and_be_growth(void)
{
    /* Five busy CCAs per frame: the k-th backoff (k = 0..4) is drawn with
     * BE = 3, 4, 5, 5, 5, so it lies in [0, 2^BE - 1] periods; over many
     * seeds each range is used up to its top. */
    static const uint32_t top[5] = { 7, 15, 31, 31, 31 };
    uint32_t seen[5] = { 0, 0, 0, 0, 0 };
    struct node n;
    uint32_t seed, gap, k;
    unsigned i;
    for (seed = 0; seed < SEEDS; seed++) {
        node_config(&n, MIP_MAC_CSMA_CA);
        node_start_seed(&n, seed);
        n.cca_script = "bbbbbbbbbb";
        CHECK_EQ(node_send(&n, PEER, true, 1), MIP_OK);
        node_run_all(&n);
        CHECK_EQ(n.ncca, 5);
        for (i = 0; i < 5 && i < n.ncca; i++) {
            gap = n.cca_at[i] - (i == 0 ? T0 : n.cca_at[i - 1]) - 128u;
            CHECK_EQ(gap % 320u, 0);
            k = gap / 320u;
            CHECK(k <= top[i]);
            if (k > seen[i])
                seen[i] = k;
        }
        /* channel access failure after exactly 5 busy CCAs, nothing sent */
        CHECK_EQ(n.ntx, 0);
        CHECK_EQ(n.ndone, 1);
        CHECK_EQ(n.done[0].st, MIP_MAC_TX_CHANNEL_BUSY);
        CHECK_EQ(n.done[0].t, n.cca_at[4]);
        CHECK_EQ(node_stat(&n, MIP_MAC_STAT_cca_busy), 5);
        CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_channel_busy), 1);
        CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_attempts), 0);
        CHECK_EQ(mip_mac_poll(&n.mac, n.now), UINT32_MAX);
    }
    for (i = 0; i < 5; i++)
        CHECK_EQ(seen[i], top[i]);
}

static void test_max_backoffs_and_be_settings(void)
{
    struct node n;
    /* macMaxCSMABackoffs 0: one CCA; BE 0: no backoff at all */
    node_config(&n, MIP_MAC_CSMA_CA);
    n.cfg.max_backoffs = 0;
    n.cfg.min_be = 0;
    n.cfg.max_be = 0;
    node_start(&n);
    n.cca_script = "bbbb";
    node_send(&n, PEER, false, 1);
    node_run_all(&n);
    CHECK_EQ(n.ncca, 1);
    CHECK_EQ(n.cca_at[0], T0 + 128);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_CHANNEL_BUSY);
    /* 255 backoffs: NB does not wrap */
    node_config(&n, MIP_MAC_CSMA_CA);
    n.cfg.max_backoffs = 255;
    n.cfg.min_be = 0;
    n.cfg.max_be = 0;
    node_start(&n);
    {
        static char busy[300];
        memset(busy, 'b', 299);
        busy[299] = 0;
        n.cca_script = busy;
        node_send(&n, PEER, false, 1);
        node_run_all(&n);
    }
    CHECK_EQ(n.ncca, 256);
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_CHANNEL_BUSY);
    /* busy, busy, clear: sent after the third CCA + turnaround */
    node_init(&n, MIP_MAC_CSMA_CA);
    n.cca_script = "bbc";
    node_send(&n, MIP_802154_BROADCAST, false, 1);
    node_run_all(&n);
    CHECK_EQ(n.ncca, 3);
    CHECK_EQ(n.ntx, 1);
    CHECK_EQ(n.tx[0].t, n.cca_at[2] + 192);
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_OK);
    CHECK_EQ(n.done[0].t, n.tx[0].t + airtime(&n, n.tx[0].len));
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_cca_busy), 2);
}

static void test_noack_after_three_retries(void)
{
    struct node n;
    mip_utime_t end, gap;
    unsigned i;
    node_init(&n, MIP_MAC_CSMA_CA);
    CHECK_EQ(node_send(&n, PEER, true, 7), MIP_OK);
    node_run_all(&n);
    CHECK_EQ(n.ntx, 4);         /* 1 + macMaxFrameRetries */
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_NOACK);
    CHECK_EQ(n.done[0].retries, 3);
    CHECK_EQ(n.done[0].first, 7);
    end = n.tx[3].t + airtime(&n, n.tx[3].len);
    CHECK_EQ(n.done[0].t, end + 864);
    for (i = 1; i < 4; i++) {
        /* same frame, same DSN */
        CHECK_EQ(n.tx[i].len, n.tx[0].len);
        CHECK_MEM(n.tx[i].data, n.tx[0].data, n.tx[0].len);
        /* the ACK wait, then a whole new CSMA-CA (BE back to 3) */
        end = n.tx[i - 1].t + airtime(&n, n.tx[i - 1].len);
        gap = n.tx[i].t - end - 864u - 128u - 192u;
        CHECK_EQ(gap % 320u, 0);
        CHECK(gap / 320u <= 7u);
    }
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_attempts), 4);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_retries), 3);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_noack), 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_ok), 0);
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), UINT32_MAX);
}

static void test_retry_on_busy(void)
{
    /* OpenThread's SubMac retries a frame after a channel access failure as
     * after a missing ACK (cfg.retry_on_busy): the failure costs one of
     * max_retries and CSMA-CA starts again at once, BE back to min_be,
     * without the retry delay (which separates hidden terminals' retries,
     * not carrier-sensed ones). */
    static const struct {
        const char *script;     /* 'b': busy CCA, anything else clear */
        bool on;
        unsigned ncca, ntx, retries, busy_retries;
        enum mip_mac_tx_status st;
    } rows[] = {
        { "bbbbbbbbbbbbbbbbbbbbbbbbb", false, 5, 0, 0, 0, MIP_MAC_TX_CHANNEL_BUSY },
        { "bbbbbbbbbbbbbbbbbbbbbbbbb", true, 20, 0, 3, 3, MIP_MAC_TX_CHANNEL_BUSY },
        { "bbbbb", true, 6, 1, 1, 1, MIP_MAC_TX_OK },
        { "bbbbbbbbbbbbbbb", true, 16, 1, 3, 3, MIP_MAC_TX_OK },
        { "bbbb", true, 5, 1, 0, 0, MIP_MAC_TX_OK },
    };
    unsigned r, i;
    for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
        struct node n;
        node_config(&n, MIP_MAC_CSMA_CA);
        n.cfg.retry_on_busy = rows[r].on;
        n.cfg.retry_delay_max_us = 40000;
        node_start(&n);
        n.cca_script = rows[r].script;
        CHECK_EQ(node_send(&n, MIP_802154_BROADCAST, false, 1), MIP_OK);
        node_run_all(&n);
        CHECK_EQ(n.ncca, rows[r].ncca);
        CHECK_EQ(n.ntx, rows[r].ntx);
        CHECK_EQ(n.ndone, 1);
        CHECK_EQ(n.done[0].st, rows[r].st);
        CHECK_EQ(n.done[0].retries, rows[r].retries);
        CHECK_EQ(node_stat(&n, MIP_MAC_STAT_busy_retries), rows[r].busy_retries);
        CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_channel_busy),
                 rows[r].st == MIP_MAC_TX_CHANNEL_BUSY ? 1u : 0u);
        /* a new round begins with a BE-3 backoff, never the retry delay */
        for (i = 5; i < n.ncca && i < NODE_CCA_MAX; i += 5)
            CHECK(n.cca_at[i] - n.cca_at[i - 1] - 128u <= 7u * 320u);
    }
}

static void test_gap_after_previous_outcome(void)
{
    /* mip_mac_send_gap: a frame's channel access waits its gap after the
     * previous frame's outcome; a frame behind it in the queue waits with
     * it; a gap that has passed already costs nothing; gap 0 is
     * mip_mac_send. Broadcasts: the outcome is the end of the frame. */
    static const struct { uint16_t gap1, gap2; bool wait_before_second; } rows[] = {
        { 0, 0, false },
        { 0, 5000, true },
        { 0, 65535, true },
        { 5000, 0, false },
    };
    unsigned r;
    for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
        struct node n;
        uint8_t f[64];
        size_t len = build_data(f, MIP_802154_BROADCAST, ME, PAN, false, 0, 1, 8);
        mip_utime_t first_end;
        node_init(&n, MIP_MAC_CSMA_CA);
        /* a fresh MAC never waits, whatever the gap */
        CHECK_EQ(mip_mac_send_gap(&n.mac, f, len, rows[r].gap1, n.now), MIP_OK);
        CHECK_EQ(mip_mac_send_gap(&n.mac, f, len, rows[r].gap2, n.now), MIP_OK);
        CHECK_EQ(node_send(&n, MIP_802154_BROADCAST, false, 3), MIP_OK);
        node_run_all(&n);
        CHECK_EQ(n.ntx, 3);
        CHECK_EQ(n.ndone, 3);
        CHECK(n.tx[0].t - T0 <= 7u * 320u + 128u + 192u);
        first_end = n.done[0].t;
        if (rows[r].wait_before_second)
            CHECK(n.cca_at[1] - first_end >= rows[r].gap2 + 128u);
        else
            CHECK(n.cca_at[1] - first_end <= 7u * 320u + 128u);
        /* the third (gap 0) follows the second without a wait */
        CHECK(n.cca_at[2] - n.done[1].t <= 7u * 320u + 128u);
    }
    {
        /* a gap after a long idle time: nothing to wait for */
        struct node n;
        uint8_t f[64];
        size_t len = build_data(f, MIP_802154_BROADCAST, ME, PAN, false, 0, 1, 8);
        node_init(&n, MIP_MAC_CSMA_CA);
        CHECK_EQ(node_send(&n, MIP_802154_BROADCAST, false, 1), MIP_OK);
        node_run_all(&n);
        n.now += 40000u;
        CHECK_EQ(mip_mac_send_gap(&n.mac, f, len, 30000, n.now), MIP_OK);
        CHECK(mip_mac_poll(&n.mac, n.now) <= 7u * 320u);
    }
}

static void test_ack_first_try(void)
{
    struct node n;
    node_init(&n, MIP_MAC_CSMA_CA);
    node_send(&n, PEER, true, 1);
    while (n.ntx == 0)
        CHECK(node_step(&n, T0 + 100000u));
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), UINT32_MAX);     /* on air */
    n.now = n.tx_end;
    node_tx_done(&n);
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), 864);
    /* the ACK ends turnaround + its airtime after our frame */
    n.now += 192 + 352;
    CHECK_EQ(ack_for(&n, 0), UINT32_MAX);
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_OK);
    CHECK_EQ(n.done[0].retries, 0);
    CHECK_EQ(n.done[0].t, n.now);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_acks_rx), 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_ok), 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_retries), 0);
    node_run_all(&n);
    CHECK_EQ(n.ntx, 1);
    CHECK_EQ(n.ndone, 1);
}

static void test_ack_on_second_try_and_wrong_acks(void)
{
    struct node n;
    mip_utime_t end;
    uint8_t ack[3];
    node_init(&n, MIP_MAC_CSMA_CA);
    node_send(&n, PEER, true, 1);
    while (n.ntx == 0)
        CHECK(node_step(&n, T0 + 100000u));
    n.now = n.tx_end;
    end = n.now;
    node_tx_done(&n);
    /* wrong sequence number: not ours */
    n.now += 500;
    mip_ieee802154_emit_ack((uint8_t)(n.tx[0].data[2] + 1u), false, ack);
    CHECK_EQ(node_rx(&n, ack, 3), 364);
    CHECK_EQ(n.ndone, 0);
    /* right number, one µs too late */
    n.now = end + 865;
    ack_for(&n, 0);
    CHECK_EQ(n.ndone, 0);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_not_for_us), 2);
    /* the retry, ACKed at the last µs of the wait */
    while (n.ntx == 1)
        CHECK(node_step(&n, T0 + 100000u));
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_retries), 1);
    n.now = n.tx_end;
    end = n.now;
    node_tx_done(&n);
    n.now = end + 864;
    CHECK_EQ(ack_for(&n, 1), UINT32_MAX);
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_OK);
    CHECK_EQ(n.done[0].retries, 1);
    /* an ACK after the frame is done is stray */
    CHECK_EQ(ack_for(&n, 1), UINT32_MAX);
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_acks_rx), 1);
}

/* The time between the end of the ACK wait and the next transmission,
 * less the CCA and the turnaround: retry delay + backoff. */
static void retry_gaps(uint32_t max, uint32_t seed, uint32_t out[3])
{
    struct node n;
    unsigned i;
    node_config(&n, MIP_MAC_CSMA_CA);
    n.cfg.retry_delay_max_us = max;
    node_start_seed(&n, seed);
    node_send(&n, PEER, true, 1);
    node_run_all(&n);
    CHECK_EQ(n.ntx, 4);
    for (i = 1; i < 4; i++)
        out[i - 1] = n.tx[i].t - (n.tx[i - 1].t + airtime(&n, n.tx[i - 1].len)) - 864u -
                     128u - 192u;
}

static void test_retry_delay_bounds(void)
{
    uint32_t g[3], seed, over = 0, odd = 0;
    unsigned i;
    for (seed = 0; seed < SEEDS; seed++) {
        retry_gaps(0, seed, g);
        for (i = 0; i < 3; i++) {
            /* no extra delay: only a BE = 3 backoff */
            CHECK_EQ(g[i] % 320u, 0);
            CHECK(g[i] <= 7u * 320u);
        }
        retry_gaps(10000, seed, g);
        for (i = 0; i < 3; i++) {
            CHECK(g[i] <= 10000u + 7u * 320u);
            if (g[i] > 7u * 320u)
                over++;
            if (g[i] % 320u != 0)
                odd++;
        }
    }
    /* the delay is really drawn, and not in whole periods */
    CHECK(over > SEEDS);
    CHECK(odd > SEEDS);
}

static void test_broadcast_ok_at_tx_done(void)
{
    struct node n;
    node_init(&n, MIP_MAC_CSMA_CA);
    node_send(&n, MIP_802154_BROADCAST, true, 1);  /* ack request ignored */
    node_run_all(&n);
    CHECK_EQ(n.ntx, 1);
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_OK);
    CHECK_EQ(n.done[0].t, n.tx[0].t + airtime(&n, n.tx[0].len));
    /* a unicast frame without ack request is done at tx_done too */
    node_send(&n, PEER, false, 2);
    node_run_all(&n);
    CHECK_EQ(n.ntx, 2);
    CHECK_EQ(n.ndone, 2);
    CHECK_EQ(n.done[1].t, n.tx[1].t + airtime(&n, n.tx[1].len));
}

static void test_tx_done_once_in_fifo_order(void)
{
    struct node n;
    unsigned i, nframes = MIP_MAC_QUEUE < 6u ? MIP_MAC_QUEUE : 6u;
    node_init(&n, MIP_MAC_CSMA_CA);
    n.cca_script = "cbbbbbcccccccccc";     /* the second frame fails */
    for (i = 0; i < nframes; i++)
        CHECK_EQ(node_send(&n, i % 2u ? MIP_802154_BROADCAST : PEER, i == 2, (uint8_t)(10 + i)),
                 MIP_OK);
    node_run_all(&n);
    CHECK_EQ(n.ndone, nframes);
    for (i = 0; i < nframes && i < NODE_DONE_MAX; i++) {
        CHECK_EQ(n.done[i].first, 10 + i);
        CHECK_EQ((uint8_t)(n.done[i].seq - n.done[0].seq), i);
        if (i > 0)
            CHECK(!mip_utime_before(n.done[i].t, n.done[i - 1].t));
    }
    CHECK_EQ(n.done[1].st, MIP_MAC_TX_CHANNEL_BUSY);
    if (nframes > 2)
        CHECK_EQ(n.done[2].st, MIP_MAC_TX_NOACK);
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), UINT32_MAX);
}

static void test_queue_full_and_bad_frames(void)
{
    struct node n;
    uint8_t f[MIP_MAC_FRAME_MAX + 1];
    size_t len;
    unsigned i;
    node_init(&n, MIP_MAC_CSMA_CA);
    for (i = 0; i < MIP_MAC_QUEUE; i++)
        CHECK_EQ(node_send(&n, PEER, false, (uint8_t)i), MIP_OK);
    CHECK_EQ(node_send(&n, PEER, false, 99), MIP_ERR_NOBUFS);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_queue_full), 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_frames), MIP_MAC_QUEUE);
    /* room again once the head is done */
    node_run(&n, T0);
    while (n.ndone == 0)
        CHECK(node_step(&n, T0 + 100000u));
    CHECK_EQ(node_send(&n, PEER, false, 100), MIP_OK);
    node_run_all(&n);
    CHECK_EQ(n.ndone, MIP_MAC_QUEUE + 1);
    CHECK_EQ(n.done[MIP_MAC_QUEUE].first, 100);
    /* bad frames */
    len = build_data(f, PEER, ME, PAN, false, 0, 1, 0);
    CHECK_EQ(mip_mac_send(&n.mac, f, 2, n.now), MIP_ERR_INVALID);
    CHECK_EQ(mip_mac_send(&n.mac, f, 6, n.now), MIP_ERR_INVALID);     /* MHR cut */
    CHECK_EQ(mip_mac_send(&n.mac, NULL, len, n.now), MIP_ERR_INVALID);
    memset(f + len, 0, sizeof(f) - len);
    CHECK_EQ(mip_mac_send(&n.mac, f, MIP_MAC_FRAME_MAX, n.now), MIP_OK);
    CHECK_EQ(mip_mac_send(&n.mac, f, MIP_MAC_FRAME_MAX + 1, n.now), MIP_ERR_INVALID);
    mip_ieee802154_emit_ack(1, false, f);
    CHECK_EQ(mip_mac_send(&n.mac, f, 3, n.now), MIP_ERR_INVALID);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_frames), MIP_MAC_QUEUE + 2);
}

static void test_dsn_increments_per_frame(void)
{
    struct node n;
    uint8_t f[32];
    size_t len;
    unsigned i;
    node_init(&n, MIP_MAC_CSMA_CA);
    for (i = 0; i < 3; i++) {
        len = build_data(f, MIP_802154_BROADCAST, ME, PAN, false, 0xEE, (uint8_t)i, 0);
        CHECK_EQ(mip_mac_send(&n.mac, f, len, n.now), MIP_OK);
    }
    node_run_all(&n);
    CHECK_EQ(n.ntx, 3);
    CHECK_EQ((uint8_t)(n.tx[1].data[2] - n.tx[0].data[2]), 1);
    CHECK_EQ((uint8_t)(n.tx[2].data[2] - n.tx[1].data[2]), 1);
    /* and carries on across the 8-bit wrap */
    for (i = 0; i < 300; i++) {
        node_send(&n, MIP_802154_BROADCAST, false, 0);
        node_run_all(&n);
    }
    CHECK_EQ(n.ntx, 303);
    CHECK_EQ(n.ndone, 303);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_ok), 303);
    /* another seed starts elsewhere (802.15.4: macDSN random at start) */
    {
        struct node o;
        unsigned differ = 0;
        uint32_t seed;
        for (seed = 0; seed < 8; seed++) {
            node_config(&o, MIP_MAC_CSMA_CA);
            node_start_seed(&o, 1000 + seed);
            node_send(&o, MIP_802154_BROADCAST, false, 0);
            node_run_all(&o);
            differ += o.tx[0].data[2] != n.tx[0].data[2];
        }
        CHECK(differ >= 6);
    }
}

static void test_poll_deadlines_exact(void)
{
    struct node n;
    uint32_t d, d2;
    unsigned events = 0;
    node_init(&n, MIP_MAC_CSMA_CA);
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), UINT32_MAX);
    n.now += 5000;
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), UINT32_MAX);
    node_send(&n, PEER, true, 1);
    /* at each deadline something happens; one µs before, nothing does */
    for (;;) {
        unsigned ncca = n.ncca, ntx = n.ntx, ndone = n.ndone;
        d = mip_mac_poll(&n.mac, n.now);
        if (d == UINT32_MAX) {
            if (!n.busy)
                break;
            n.now = n.tx_end;
            node_tx_done(&n);
            continue;
        }
        CHECK(d > 0);
        if (d > 1) {
            d2 = mip_mac_poll(&n.mac, n.now + d - 1u);
            CHECK_EQ(d2, 1);
            CHECK_EQ(n.ncca, ncca);
            CHECK_EQ(n.ntx, ntx);
            CHECK_EQ(n.ndone, ndone);
        }
        n.now += d;
        (void)mip_mac_poll(&n.mac, n.now);
        events++;
        CHECK(events < 100);
        if (events >= 100)
            break;
    }
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_NOACK);
    CHECK_EQ(n.ntx, 4);
}

/* The transmit times of a run with some busy CCAs and lost ACKs. */
static void schedule(uint32_t seed, mip_utime_t out[16])
{
    struct node n;
    unsigned i;
    node_config(&n, MIP_MAC_CSMA_CA);
    n.cfg.retry_delay_max_us = 3000;
    node_start_seed(&n, seed);
    n.cca_script = "cbcbbcbbbcbc";
    for (i = 0; i < 4; i++)
        node_send(&n, i % 2u ? PEER : MIP_802154_BROADCAST, true, (uint8_t)i);
    node_run_all(&n);
    memset(out, 0, 16 * sizeof(out[0]));
    for (i = 0; i < 16 && i < n.ntx; i++)
        out[i] = n.tx[i].t;
    CHECK(n.ntx >= 6);
}

static void test_same_seed_same_schedule(void)
{
    mip_utime_t a[16], b[16], c[16];
    schedule(42, a);
    schedule(42, b);
    schedule(43, c);
    CHECK_MEM(a, b, sizeof(a));
    CHECK(memcmp(a, c, sizeof(a)) != 0);
}

static void test_radio_error(void)
{
    struct node n;
    node_init(&n, MIP_MAC_CSMA_CA);
    n.refuse = MIP_ERR_INUSE;
    node_send(&n, PEER, true, 1);
    node_send(&n, PEER, true, 2);
    while (n.ndone == 0)
        CHECK(node_step(&n, T0 + 100000u));
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_RADIO_ERROR);
    CHECK_EQ(n.done[0].retries, 0);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_radio_error), 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_attempts), 0);
    /* the next frame goes on */
    n.refuse = MIP_OK;
    node_run_all(&n);
    CHECK_EQ(n.ndone, 2);
    CHECK_EQ(n.done[1].st, MIP_MAC_TX_NOACK);
    CHECK_EQ(n.ntx, 4);
}

static void test_ack_goes_before_own_frame(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    mip_utime_t t;
    node_init(&n, MIP_MAC_CSMA_CA);
    node_send(&n, MIP_802154_BROADCAST, false, 1);
    while (n.ncca == 0)
        CHECK(node_step(&n, T0 + 100000u));
    /* the CCA said clear at t: our frame is due at t + 192, and so is the
     * ACK of a frame that ends now */
    t = n.now;
    len = build_data(f, ME, PEER, PAN, true, 33, 1, 0);
    CHECK_EQ(node_rx(&n, f, len), 192);
    node_run_all(&n);
    CHECK_EQ(n.ntx, 2);
    CHECK_EQ(n.tx[0].t, t + 192);
    CHECK_EQ(n.tx[0].len, 3);
    CHECK_EQ(n.tx[0].data[2], 33);
    /* then a new CCA after the ACK and the turnaround back to RX */
    CHECK_EQ(n.ncca, 2);
    CHECK_EQ(n.cca_at[1], t + 192 + 352 + 192 + 128);
    CHECK_EQ(n.tx[1].t, n.cca_at[1] + 192);
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_OK);
}

static void test_ack_during_cca_voids_it(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    uint32_t seed, d = 0;
    mip_utime_t cca_start;
    /* a seed whose first backoff is at least one period */
    for (seed = 0; seed < 100 && d < 320; seed++) {
        node_config(&n, MIP_MAC_CSMA_CA);
        node_start_seed(&n, seed);
        node_send(&n, MIP_802154_BROADCAST, false, 1);
        d = mip_mac_poll(&n.mac, n.now);
    }
    CHECK(d >= 320);
    cca_start = n.now + d;
    /* a frame ends 100 µs before the CCA window opens: its ACK starts
     * 92 µs into the window */
    n.now = cca_start - 100;
    len = build_data(f, ME, PEER, PAN, true, 34, 1, 0);
    node_rx(&n, f, len);
    node_run_all(&n);
    CHECK_EQ(n.ntx, 2);
    CHECK_EQ(n.tx[0].len, 3);
    CHECK_EQ(n.tx[0].t, cca_start + 92);
    /* the spoiled CCA was not asked; a new one follows the ACK */
    CHECK_EQ(n.ncca, 1);
    CHECK_EQ(n.cca_at[0], cca_start + 92 + 352 + 192 + 128);
    CHECK_EQ(n.tx[1].t, n.cca_at[0] + 192);
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_cca_busy), 0);
}

static void test_netif_transmit_queues_at_mac_time(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    node_init(&n, MIP_MAC_NULLMAC);
    n.now += 777;
    mip_mac_poll(&n.mac, n.now);
    len = build_data(f, PEER, ME, PAN, false, 0, 1, 0);
    CHECK_EQ(mip_mac_netif_transmit(&n.mac, f, len), MIP_OK);
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), UINT32_MAX);
    CHECK_EQ(n.ntx, 1);
    CHECK_EQ(n.tx[0].t, T0 + 777);
    CHECK_EQ(mip_mac_netif_transmit(&n.mac, f, 1), MIP_ERR_INVALID);
}

static void test_spurious_tx_done_ignored(void)
{
    struct node n;
    node_init(&n, MIP_MAC_CSMA_CA);
    mip_mac_radio_tx_done(&n.mac, n.now);
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), UINT32_MAX);
    node_send(&n, PEER, false, 1);
    mip_mac_poll(&n.mac, n.now);
    mip_mac_radio_tx_done(&n.mac, n.now);      /* during the backoff */
    node_run_all(&n);
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_OK);
    CHECK_EQ(n.ntx, 1);
}

/* A tx_done callback that queues frames until the queue is full and polls:
 * the poll does nothing, the reported frame stays intact, and the new
 * frames follow in order. */
static unsigned resend_left;

static void cb_tx_done_resend(void *ctx, const uint8_t *frame, size_t len,
                              enum mip_mac_tx_status st, uint8_t retries, mip_utime_t now)
{
    struct node *n = ctx;
    uint8_t copy[MIP_MAC_FRAME_MAX];
    memcpy(copy, frame, len);
    cb_tx_done(ctx, frame, len, st, retries, now);
    CHECK_EQ(mip_mac_poll(&n->mac, now), 0);
    CHECK_EQ(n->ntx, n->ndone);         /* nothing started from inside */
    while (resend_left > 0 && node_send(n, MIP_802154_BROADCAST, false,
                                        (uint8_t)(100 + resend_left)) == MIP_OK)
        resend_left--;
    CHECK_MEM(frame, copy, len);
}

static void test_callback_queues_and_polls(void)
{
    struct node n;
    struct mip_mac_callbacks cb;
    unsigned i;
    node_config(&n, MIP_MAC_CSMA_CA);
    cb.input = cb_input;
    cb.tx_done = cb_tx_done_resend;
    cb.overheard = NULL;
    cb.ctx = &n;
    CHECK_EQ(mip_mac_init(&n.mac, &n.cfg, &fake_radio, &n, &cb, NULL, 0, n.now), MIP_OK);
    resend_left = MIP_MAC_QUEUE + 3u;
    node_send(&n, MIP_802154_BROADCAST, false, 1);
    node_run_all(&n);
    CHECK_EQ(resend_left, 0);
    CHECK_EQ(n.ndone, MIP_MAC_QUEUE + 4u);
    CHECK_EQ(n.done[0].first, 1);
    for (i = 1; i < n.ndone && i < NODE_DONE_MAX; i++) {
        CHECK_EQ(n.done[i].first, 100 + MIP_MAC_QUEUE + 4u - i);
        CHECK_EQ(n.done[i].st, MIP_MAC_TX_OK);
    }
    /* the first callback found the queue full after Q - 1 frames */
    CHECK(node_stat(&n, MIP_MAC_STAT_tx_queue_full) >= 1);
}

int main(void)
{
    RUN(test_backoff_draws_and_be_growth);
    RUN(test_max_backoffs_and_be_settings);
    RUN(test_noack_after_three_retries);
    RUN(test_retry_on_busy);
    RUN(test_gap_after_previous_outcome);
    RUN(test_ack_first_try);
    RUN(test_ack_on_second_try_and_wrong_acks);
    RUN(test_retry_delay_bounds);
    RUN(test_broadcast_ok_at_tx_done);
    RUN(test_tx_done_once_in_fifo_order);
    RUN(test_queue_full_and_bad_frames);
    RUN(test_dsn_increments_per_frame);
    RUN(test_poll_deadlines_exact);
    RUN(test_same_seed_same_schedule);
    RUN(test_radio_error);
    RUN(test_ack_goes_before_own_frame);
    RUN(test_ack_during_cca_voids_it);
    RUN(test_netif_transmit_queues_at_mac_time);
    RUN(test_spurious_tx_done_ignored);
    RUN(test_callback_queues_and_polls);
    return TESTING_DONE();
}
