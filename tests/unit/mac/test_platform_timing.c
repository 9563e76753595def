/*
 * The platform's costs in the MAC engine (radio.h, docs/SIMULATOR.md
 * "platform"): a frame is loaded into the radio (frame_host_us + its length
 * byte and MPDU over the bus) before its channel access begins, once per
 * frame, not per retry; with the ideal defaults it goes at once.
 */
#include "mac_fixture.h"

static void test_ideal_host_sends_at_once(void)
{
    struct node n;
    node_init(&n, MIP_MAC_NULLMAC);
    node_send(&n, PEER, false, 1);
    (void)mip_mac_poll(&n.mac, n.now);
    CHECK_EQ(n.ntx, 1);
    CHECK_EQ(n.tx[0].t, T0);
    CHECK_EQ(mip_radio_load_time(&n.cfg.timing, 127), 0);
}

static void test_each_frame_waits_for_its_load(void)
{
    struct node n;
    uint32_t load;
    unsigned i;
    node_config(&n, MIP_MAC_NULLMAC);
    n.cfg.timing.frame_host_us = 1000;
    n.cfg.timing.bus_bps = 100000;          /* 80 us a byte */
    node_start(&n);
    node_send(&n, PEER, false, 1);
    node_send(&n, PEER, false, 2);
    /* the MPDU of node_send: 9-byte MHR + 8 + tag + FCS = 20 bytes, and
     * the length byte: 21 x 80 us on the bus */
    load = mip_radio_load_time(&n.cfg.timing, n.mac.q[n.mac.q_head].len + MIP_802154_FCS_LEN);
    CHECK_EQ(load, 1000 + 21 * 80);
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), load);
    CHECK_EQ(n.ntx, 0);
    node_run_all(&n);
    CHECK_EQ(n.ntx, 2);
    CHECK_EQ(n.tx[0].t, T0 + load);
    /* the second is loaded after the first is gone (one host, one buffer) */
    CHECK_EQ(n.tx[1].t, n.done[0].t + load);
    for (i = 0; i < 2; i++)
        CHECK_EQ(n.done[i].st, MIP_MAC_TX_OK);
}

static void test_a_retry_reuses_the_loaded_frame(void)
{
    struct node n;
    uint32_t load;
    node_config(&n, MIP_MAC_CSMA_CA);
    n.cfg.timing.frame_host_us = 5000;
    n.cfg.max_retries = 1;
    node_start(&n);
    node_send(&n, PEER, true, 1);           /* no ACK will come */
    load = mip_radio_load_time(&n.cfg.timing, n.mac.q[n.mac.q_head].len + MIP_802154_FCS_LEN);
    CHECK_EQ(load, 5000);
    node_run_all(&n);
    CHECK_EQ(n.ntx, 2);
    CHECK_EQ(n.ndone, 1);
    CHECK_EQ(n.done[0].st, MIP_MAC_TX_NOACK);
    /* the first attempt after the load and a backoff of at most 7 periods,
     * the retry within the ACK wait and one more backoff: no second load */
    CHECK(n.tx[0].t >= T0 + load);
    CHECK(n.tx[1].t - (n.tx[0].t + airtime(&n, n.tx[0].len)) <
          (uint32_t)n.cfg.timing.ack_wait_us + 7u * 320u + 128u + 192u + 1u);
}

int main(void)
{
    RUN(test_ideal_host_sends_at_once);
    RUN(test_each_frame_waits_for_its_load);
    RUN(test_a_retry_reuses_the_loaded_frame);
    return TESTING_DONE();
}
