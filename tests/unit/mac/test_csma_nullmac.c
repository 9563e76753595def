/* The TSS paper's plain CSMA (backoff of 1..3 periods, no link ACKs) and
 * NullMAC (no carrier sense at all). */
#include "mac_fixture.h"

static void test_csma_backoff_range_and_no_ack_wait(void)
{
    uint32_t seen[4] = { 0, 0, 0, 0 }, seed, gap;
    struct node n;
    for (seed = 0; seed < 100; seed++) {
        node_config(&n, MIP_MAC_CSMA);
        node_start_seed(&n, seed);
        CHECK_EQ(node_send(&n, PEER, true, 1), MIP_OK);
        node_run_all(&n);
        CHECK_EQ(n.ncca, 1);
        gap = n.cca_at[0] - T0 - 128u;
        CHECK_EQ(gap % 320u, 0);
        CHECK(gap / 320u >= 1u && gap / 320u <= 3u);
        if (gap / 320u <= 3u)
            seen[gap / 320u]++;
        CHECK_EQ(n.ntx, 1);
        CHECK_EQ(n.tx[0].t, n.cca_at[0] + 192);
        /* asked for an ACK, but CSMA never waits for one */
        CHECK_EQ(n.ndone, 1);
        CHECK_EQ(n.done[0].st, MIP_MAC_TX_OK);
        CHECK_EQ(n.done[0].t, n.tx[0].t + airtime(&n, n.tx[0].len));
        CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_retries), 0);
    }
    CHECK_EQ(seen[0], 0);
    CHECK(seen[1] > 0 && seen[2] > 0 && seen[3] > 0);
}

static void test_csma_tau_and_period_settings(void)
{
    struct node n;
    /* the TSS paper's tau, a fixed 2 periods */
    node_config(&n, MIP_MAC_CSMA);
    n.cfg.timing.backoff_us = 1000;
    n.cfg.csma_min_periods = 2;
    n.cfg.csma_max_periods = 2;
    node_start(&n);
    node_send(&n, PEER, false, 1);
    node_run_all(&n);
    CHECK_EQ(n.cca_at[0], T0 + 2000 + 128);
}

/* The TSS paper's reading (section IV.A): sense first, send at once on a
 * clear channel, back off only after a busy one; with csma_continuous the
 * backoff is any µs in [1, 3] tau. Rows: (sense_first, continuous). */
static void test_csma_sense_first_and_continuous_backoff(void)
{
    static const struct { bool sense_first, continuous; } rows[] = {
        { true, false }, { true, true }, { false, true },
    };
    unsigned r;
    for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
        uint32_t seed, gap, lo = UINT32_MAX, hi = 0, off_grid = 0;
        for (seed = 0; seed < 200; seed++) {
            struct node n;
            node_config(&n, MIP_MAC_CSMA);
            n.cfg.timing.backoff_us = 10000;            /* tau = 10 ms */
            n.cfg.csma_sense_first = rows[r].sense_first;
            n.cfg.csma_continuous = rows[r].continuous;
            node_start_seed(&n, seed);
            /* sense first: busy once, then clear; else clear at once */
            n.cca_script = rows[r].sense_first ? "bc" : "c";
            CHECK_EQ(node_send(&n, PEER, false, 1), MIP_OK);
            node_run_all(&n);
            CHECK_EQ(n.ntx, 1);
            CHECK_EQ(n.done[0].st, MIP_MAC_TX_OK);
            if (rows[r].sense_first) {
                /* the first CCA comes without any backoff */
                CHECK_EQ(n.ncca, 2);
                CHECK_EQ(n.cca_at[0], T0 + 128u);
                gap = n.cca_at[1] - n.cca_at[0] - 128u;
            } else {
                CHECK_EQ(n.ncca, 1);
                gap = n.cca_at[0] - T0 - 128u;
            }
            CHECK_EQ(n.tx[0].t, n.cca_at[n.ncca - 1] + 192);
            CHECK(gap >= 10000u && gap <= 30000u);
            if (gap % 10000u != 0u)
                off_grid++;
            if (gap < lo)
                lo = gap;
            if (gap > hi)
                hi = gap;
        }
        if (rows[r].continuous) {
            /* spread over the interval, not on the period grid */
            CHECK(off_grid > 190u);
            CHECK(lo < 11000u && hi > 29000u);
        } else {
            CHECK_EQ(off_grid, 0);
        }
    }
    {
        /* sense first on a clear channel: no backoff at all */
        struct node n;
        node_config(&n, MIP_MAC_CSMA);
        n.cfg.csma_sense_first = true;
        node_start(&n);
        node_send(&n, PEER, false, 1);
        node_run_all(&n);
        CHECK_EQ(n.ncca, 1);
        CHECK_EQ(n.tx[0].t, T0 + 128u + 192u);
    }
}

static void test_csma_busy_redraws_then_gives_up(void)
{
    struct node n;
    unsigned i;
    uint32_t gap;
    node_init(&n, MIP_MAC_CSMA);
    n.cca_script = "bbbbbbbb";
    node_send(&n, PEER, false, 1);
    node_run_all(&n);
    /* max_backoffs (4) busy CCAs */
    CHECK_EQ(n.ncca, 4);
    for (i = 1; i < 4; i++) {
        gap = n.cca_at[i] - n.cca_at[i - 1] - 128u;
        CHECK(gap == 320u || gap == 640u || gap == 960u);
    }
    CHECK_EQ(n.ntx, 0);
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_CHANNEL_BUSY);
    CHECK_EQ(n.done[0].t, n.cca_at[3]);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_cca_busy), 4);
    /* busy twice, then clear */
    node_init(&n, MIP_MAC_CSMA);
    n.cca_script = "bbc";
    node_send(&n, PEER, false, 1);
    node_run_all(&n);
    CHECK_EQ(n.ncca, 3);
    CHECK_EQ(n.ntx, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_OK);
    /* max_backoffs 0: the first busy CCA ends it */
    node_config(&n, MIP_MAC_CSMA);
    n.cfg.max_backoffs = 0;
    node_start(&n);
    n.cca_script = "b";
    node_send(&n, PEER, false, 1);
    node_run_all(&n);
    CHECK_EQ(n.ncca, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_CHANNEL_BUSY);
}

static void test_csma_receiver_still_acks(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    node_init(&n, MIP_MAC_CSMA);
    len = build_data(f, ME, PEER, PAN, true, 5, 1, 0);
    CHECK_EQ(node_rx(&n, f, len), 192);
    node_run_all(&n);
    CHECK_EQ(n.ntx, 1);
    CHECK_EQ(n.tx[0].len, 3);
    len = build_data(f, ME, PEER, PAN, false, 6, 1, 0);
    node_rx(&n, f, len);
    node_run_all(&n);
    CHECK_EQ(n.ntx, 1);
    CHECK_EQ(n.ninput, 2);
}

static void test_nullmac_sends_at_once(void)
{
    struct node n;
    unsigned i;
    node_init(&n, MIP_MAC_NULLMAC);
    node_send(&n, PEER, true, 1);
    node_send(&n, MIP_802154_BROADCAST, false, 2);
    node_send(&n, PEER, false, 3);
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), UINT32_MAX);
    CHECK_EQ(n.ntx, 1);
    CHECK_EQ(n.tx[0].t, T0);
    node_run_all(&n);
    CHECK_EQ(n.ncca, 0);
    CHECK_EQ(n.ntx, 3);
    CHECK_EQ(n.ndone, 3);
    for (i = 0; i < 3; i++) {
        /* back to back: each goes the instant the previous one ended */
        CHECK_EQ(n.done[i].t, n.tx[i].t + airtime(&n, n.tx[i].len));
        if (i > 0)
            CHECK_EQ(n.tx[i].t, n.done[i - 1].t);
        CHECK_EQ(n.done[i].st, MIP_MAC_TX_OK);
        CHECK_EQ(n.done[i].first, i + 1);
        CHECK_EQ(n.done[i].retries, 0);
    }
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), UINT32_MAX);
}

static void test_nullmac_waits_for_ack_on_air(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    mip_utime_t t;
    node_init(&n, MIP_MAC_NULLMAC);
    len = build_data(f, ME, PEER, PAN, true, 5, 1, 0);
    CHECK_EQ(node_rx(&n, f, len), 192);
    t = n.now + 192;
    n.now = t;
    /* ACK on air: nothing due but the sender's duplicate entry ageing out */
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), MIP_MAC_DUP_AGE_US - 192u);
    CHECK_EQ(n.ntx, 1);
    node_send(&n, PEER, false, 2);
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), MIP_MAC_DUP_AGE_US - 192u);
    CHECK_EQ(n.ntx, 1);
    node_run_all(&n);
    CHECK_EQ(n.ntx, 2);
    CHECK_EQ(n.tx[1].t, t + 352);
    CHECK_EQ(n.ndone, 1);
}

static void test_nullmac_ack_first_when_both_due(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    node_init(&n, MIP_MAC_NULLMAC);
    len = build_data(f, ME, PEER, PAN, true, 5, 1, 0);
    node_rx(&n, f, len);
    n.now += 192;
    node_send(&n, PEER, false, 2);
    node_run_all(&n);
    CHECK_EQ(n.ntx, 2);
    CHECK_EQ(n.tx[0].len, 3);
    CHECK_EQ(n.tx[1].t, n.tx[0].t + 352);
}

static void test_nullmac_radio_error(void)
{
    struct node n;
    node_init(&n, MIP_MAC_NULLMAC);
    n.refuse = MIP_ERR_INUSE;
    node_send(&n, PEER, false, 1);
    node_send(&n, PEER, false, 2);
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), UINT32_MAX);
    CHECK_EQ(n.ndone, 2);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_RADIO_ERROR);
    CHECK_EQ(n.done[1].st, MIP_MAC_TX_RADIO_ERROR);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_radio_error), 2);
}

int main(void)
{
    RUN(test_csma_backoff_range_and_no_ack_wait);
    RUN(test_csma_tau_and_period_settings);
    RUN(test_csma_sense_first_and_continuous_backoff);
    RUN(test_csma_busy_redraws_then_gives_up);
    RUN(test_csma_receiver_still_acks);
    RUN(test_nullmac_sends_at_once);
    RUN(test_nullmac_waits_for_ack_on_air);
    RUN(test_nullmac_ack_first_when_both_due);
    RUN(test_nullmac_radio_error);
    return TESTING_DONE();
}
