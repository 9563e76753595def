/* The MAC engine's receive side: address and PAN filtering, link ACKs sent
 * turnaround_us after a frame, duplicate detection, overhearing, malformed
 * frames; plus radio timing and airtime. */
#include "mac_fixture.h"

static void test_timing_defaults_and_airtime(void)
{
    struct mip_radio_timing t;
    mip_radio_timing_default(&t);
    CHECK_EQ(t.bitrate, 250000);
    CHECK_EQ(t.phy_hdr_bytes, 6);
    CHECK_EQ(t.turnaround_us, 192);
    CHECK_EQ(t.cca_us, 128);
    CHECK_EQ(t.backoff_us, 320);
    CHECK_EQ(t.ack_wait_us, 864);
    /* (6 + 127) bytes * 8 bits / 250 kb/s */
    CHECK_EQ(mip_radio_airtime(&t, 127), 4256);
    CHECK_EQ(mip_radio_airtime(&t, 5), 352);    /* an ACK */
    CHECK_EQ(mip_radio_airtime(&t, 0), 192);
    /* rounded up */
    t.bitrate = 100000;
    t.phy_hdr_bytes = 0;
    CHECK_EQ(mip_radio_airtime(&t, 1), 80);
    t.bitrate = 300000;
    CHECK_EQ(mip_radio_airtime(&t, 1), 27);     /* 26.67 */
    /* the TSS paper's 177-byte frames at 100 kb/s */
    t.bitrate = 100000;
    t.phy_hdr_bytes = 6;
    CHECK_EQ(mip_radio_airtime(&t, 177), 14640);
    /* no overflow at 1 b/s, no division by zero */
    t.bitrate = 1;
    CHECK_EQ(mip_radio_airtime(&t, 127), 1064000000u);
    t.bitrate = 0;
    CHECK_EQ(mip_radio_airtime(&t, 127), UINT32_MAX);
}

static void test_init_validates_and_turns_radio_on(void)
{
    struct node n;
    struct mip_radio_driver no_cca = { fake_transmit, NULL, NULL, NULL };
    struct mip_radio_driver no_tx = { NULL, fake_cca, NULL, NULL };
    node_config(&n, MIP_MAC_CSMA_CA);
    n.cfg.kind = 3;
    CHECK_EQ(mip_mac_init(&n.mac, &n.cfg, &fake_radio, &n, NULL, NULL, 0, 0), MIP_ERR_INVALID);
    node_config(&n, MIP_MAC_CSMA_CA);
    n.cfg.min_be = 6;
    CHECK_EQ(mip_mac_init(&n.mac, &n.cfg, &fake_radio, &n, NULL, NULL, 0, 0), MIP_ERR_INVALID);
    node_config(&n, MIP_MAC_CSMA_CA);
    n.cfg.max_be = 9;
    CHECK_EQ(mip_mac_init(&n.mac, &n.cfg, &fake_radio, &n, NULL, NULL, 0, 0), MIP_ERR_INVALID);
    node_config(&n, MIP_MAC_CSMA);
    n.cfg.csma_min_periods = 4;
    CHECK_EQ(mip_mac_init(&n.mac, &n.cfg, &fake_radio, &n, NULL, NULL, 0, 0), MIP_ERR_INVALID);
    node_config(&n, MIP_MAC_CSMA);
    CHECK_EQ(mip_mac_init(&n.mac, &n.cfg, &no_cca, &n, NULL, NULL, 0, 0), MIP_ERR_INVALID);
    CHECK_EQ(mip_mac_init(&n.mac, &n.cfg, &no_tx, &n, NULL, NULL, 0, 0), MIP_ERR_INVALID);
    CHECK_EQ(mip_mac_init(&n.mac, &n.cfg, &fake_radio, &n, NULL, NULL, 4, 0), MIP_ERR_INVALID);
    CHECK(!n.radio_on);
    /* NullMAC needs no CCA; callbacks and seed may be absent */
    node_config(&n, MIP_MAC_NULLMAC);
    CHECK_EQ(mip_mac_init(&n.mac, &n.cfg, &no_cca, &n, NULL, NULL, 0, 0), MIP_OK);
    node_config(&n, MIP_MAC_CSMA_CA);
    CHECK_EQ(n.cfg.min_be, 3);
    CHECK_EQ(n.cfg.max_be, 5);
    CHECK_EQ(n.cfg.max_backoffs, 4);
    CHECK_EQ(n.cfg.max_retries, 3);
    CHECK_EQ(n.cfg.retry_delay_max_us, 0);
    CHECK_EQ(n.cfg.csma_min_periods, 1);
    CHECK_EQ(n.cfg.csma_max_periods, 3);
    CHECK(!n.cfg.csma_sense_first && !n.cfg.csma_continuous);
    node_start(&n);
    CHECK(n.radio_on);
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), UINT32_MAX);
}

static void test_ack_sent_turnaround_after_unicast(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    mip_utime_t end;
    node_init(&n, MIP_MAC_CSMA_CA);
    len = build_data(f, ME, PEER, PAN, true, 77, 1, 10);
    CHECK_EQ(node_rx(&n, f, len), 192);
    end = n.now;
    CHECK_EQ(n.ninput, 1);
    CHECK_EQ(n.input_tag[0], 1);
    CHECK_EQ(n.ntx, 0);
    /* polling early does nothing and reports the exact remainder */
    n.now += 100;
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), 92);
    CHECK_EQ(n.ntx, 0);
    node_run_all(&n);
    CHECK_EQ(n.ntx, 1);
    CHECK_EQ(n.tx[0].t, end + 192);
    CHECK_EQ(n.tx[0].len, 3);
    CHECK_EQ(n.tx[0].data[0], MIP_802154_ACK);
    CHECK_EQ(n.tx[0].data[1], 0);
    CHECK_EQ(n.tx[0].data[2], 77);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_acks_tx), 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_frames), 1);
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), UINT32_MAX);
    CHECK_EQ(n.ndone, 0);       /* an ACK is not a frame of the netif's */
}

static void test_no_ack_for_broadcast_or_without_request(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    node_init(&n, MIP_MAC_CSMA_CA);
    /* nothing due but the sender's duplicate entry ageing out */
    len = build_data(f, MIP_802154_BROADCAST, PEER, PAN, true, 1, 1, 0);
    CHECK_EQ(node_rx(&n, f, len), MIP_MAC_DUP_AGE_US);
    len = build_data(f, ME, PEER, PAN, false, 2, 2, 0);
    CHECK_EQ(node_rx(&n, f, len), MIP_MAC_DUP_AGE_US);
    node_run_all(&n);
    CHECK_EQ(n.ntx, 0);
    CHECK_EQ(n.ninput, 2);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_acks_tx), 0);
}

static void test_duplicates_acked_not_delivered(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    node_init(&n, MIP_MAC_CSMA_CA);
    len = build_data(f, ME, PEER, PAN, true, 9, 1, 0);
    node_rx(&n, f, len);
    node_run(&n, n.now + 10000u);   /* (not to the entry's age) */
    node_rx(&n, f, len);            /* the sender missed our ACK */
    node_run(&n, n.now + 10000u);
    CHECK_EQ(n.ninput, 1);
    CHECK_EQ(n.ntx, 2);
    CHECK_EQ(n.tx[1].data[2], 9);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_duplicates), 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_acks_tx), 2);
    /* a new sequence number from the same sender is new */
    len = build_data(f, ME, PEER, PAN, true, 10, 2, 0);
    node_rx(&n, f, len);
    /* the same number from another sender is new too */
    len = build_data(f, ME, OTHER, PAN, true, 10, 3, 0);
    node_run(&n, n.now + 10000u);
    node_rx(&n, f, len);
    node_run(&n, n.now + 10000u);
    CHECK_EQ(n.ninput, 3);
    CHECK_EQ(n.input_tag[2], 3);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_duplicates), 1);
    /* broadcast duplicates are dropped too (no ACK) */
    len = build_data(f, MIP_802154_BROADCAST, OTHER, PAN, false, 11, 4, 0);
    node_rx(&n, f, len);
    node_rx(&n, f, len);
    CHECK_EQ(n.ninput, 4);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_duplicates), 2);
}

static void test_duplicate_table_is_bounded(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    unsigned i;
    node_init(&n, MIP_MAC_CSMA_CA);
    for (i = 0; i <= MIP_MAC_DUP_ENTRIES; i++) {
        len = build_data(f, ME, (uint16_t)(0x100 + i), PAN, false, 5, 1, 0);
        node_rx(&n, f, len);
    }
    /* the first sender was evicted by the newest: its repeat passes */
    len = build_data(f, ME, 0x100, PAN, false, 5, 1, 0);
    node_rx(&n, f, len);
    CHECK_EQ(n.ninput, MIP_MAC_DUP_ENTRIES + 2);
    /* the newest is still remembered */
    len = build_data(f, ME, (uint16_t)(0x100 + MIP_MAC_DUP_ENTRIES), PAN, false, 5, 1, 0);
    node_rx(&n, f, len);
    CHECK_EQ(n.ninput, MIP_MAC_DUP_ENTRIES + 2);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_duplicates), 1);
}

/* Issue 24 (4): an entry never aged, so a neighbour whose 8-bit DSN wrapped
 * while it talked to others had its next new frame ACKed and dropped. An
 * entry now ages out MIP_MAC_DUP_AGE_US (20 s, Contiki-NG's SEQNO_MAX_AGE)
 * after its frame, swept by poll at that deadline, so no stamp outlives
 * half the µs wrap (35.8 min) either. Rows: the gap before the same DSN
 * comes again from the same sender, and whether it is delivered. */
static void test_duplicate_entries_age_out(void)
{
    static const struct {
        uint32_t gap_ms;
        bool delivered;
    } rows[] = {
        { 1000u, false },       /* a retransmission */
        { 19000u, false },      /* still within the age */
        { 25000u, true },       /* its DSN went round: a new frame */
        { 2147484u, true },     /* past half the wrap (2^31 µs) */
        { 4294968u, true },     /* past the whole wrap (2^32 µs) */
        { 4294967u + 10000u, true },
    };
    struct node n;
    uint8_t f[64];
    size_t len;
    unsigned r;
    uint32_t left, step;
    mip_utime_t to;
    for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
        node_init(&n, MIP_MAC_CSMA_CA);
        len = build_data(f, ME, PEER, PAN, true, 9, 1, 0);
        node_rx(&n, f, len);
        node_run(&n, n.now + 10000u);
        /* idle, polled at every deadline (in steps under half the wrap) */
        for (left = rows[r].gap_ms; left > 0u; left -= step) {
            step = left < 600000u ? left : 600000u;
            to = n.now + step * 1000u;
            node_run(&n, to);
            n.now = to;
        }
        len = build_data(f, ME, PEER, PAN, true, 9, 2, 0);
        node_rx(&n, f, len);
        node_run(&n, n.now + 10000u);
        CHECK_EQ(n.ninput, rows[r].delivered ? 2u : 1u);
        CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_duplicates), rows[r].delivered ? 0u : 1u);
        CHECK_EQ(node_stat(&n, MIP_MAC_STAT_acks_tx), 2);   /* ACKed either way */
    }
}

/* A poll that carries an earlier time than the last frame (an RDC timer run
 * late) must not read the fresh entry as 2^32 µs old and forget it: the
 * retransmission that follows is still a duplicate (found by fuzz_mac_input,
 * regress-dup-stamp-after-now). */
static void test_an_earlier_poll_does_not_age_a_fresh_entry(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    node_init(&n, MIP_MAC_CSMA_CA);
    len = build_data(f, ME, PEER, PAN, true, 9, 1, 0);
    node_rx(&n, f, len);
    node_run(&n, n.now + 10000u);
    (void)mip_mac_poll(&n.mac, n.now - 5000u);
    node_rx(&n, f, len);
    node_run(&n, n.now + 10000u);
    CHECK_EQ(n.ninput, 1u);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_duplicates), 1u);
}

static void test_other_addresses_overheard(void)
{
    struct node n;
    struct mip_mac_callbacks cb = { cb_input, cb_tx_done, NULL, NULL };
    uint8_t f[64];
    size_t len;
    node_init(&n, MIP_MAC_CSMA_CA);
    len = build_data(f, OTHER, PEER, PAN, true, 1, 1, 0);      /* another node */
    CHECK_EQ(node_rx(&n, f, len), UINT32_MAX);                 /* and no ACK */
    len = build_data(f, ME, PEER, 0x1234, true, 2, 1, 0);      /* another PAN */
    CHECK_EQ(node_rx(&n, f, len), UINT32_MAX);
    len = build_data(f, MIP_802154_BROADCAST, PEER, 0x1234, false, 3, 1, 0);
    CHECK_EQ(node_rx(&n, f, len), UINT32_MAX);
    CHECK_EQ(n.ninput, 0);
    CHECK_EQ(n.noverheard, 3);
    CHECK_EQ(n.ntx, 0);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_not_for_us), 3);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_overheard), 3);
    /* the broadcast PAN matches every PAN */
    len = build_data(f, ME, PEER, MIP_802154_PAN_NONE, false, 4, 1, 0);
    node_rx(&n, f, len);
    CHECK_EQ(n.ninput, 1);
    /* without a listener: counted, not handed on */
    cb.ctx = &n;
    node_config(&n, MIP_MAC_CSMA_CA);
    CHECK_EQ(mip_mac_init(&n.mac, &n.cfg, &fake_radio, &n, &cb, NULL, 0, n.now), MIP_OK);
    len = build_data(f, OTHER, PEER, PAN, true, 1, 1, 0);
    node_rx(&n, f, len);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_not_for_us), 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_overheard), 0);
}

static void test_extended_destination(void)
{
    struct node n;
    struct mip_802154_hdr h;
    uint8_t f[64];
    size_t len;
    node_init(&n, MIP_MAC_CSMA_CA);
    memset(&h, 0, sizeof(h));
    h.type = MIP_802154_DATA;
    h.ack_request = true;
    h.pan_id_compress = true;
    h.seq = 3;
    h.dst_pan = PAN;
    h.dst.mode = MIP_802154_ADDR_EXT;
    memcpy(h.dst.ext, n.cfg.ext_addr, 8);
    h.src.mode = MIP_802154_ADDR_EXT;
    h.src.ext[7] = 1;
    CHECK_EQ(mip_ieee802154_emit(&h, f, sizeof(f), &len), MIP_OK);
    f[len++] = 0x41;
    CHECK_EQ(node_rx(&n, f, len), 192);
    CHECK_EQ(n.ninput, 1);
    h.dst.ext[0] ^= 1;
    CHECK_EQ(mip_ieee802154_emit(&h, f, sizeof(f), &len), MIP_OK);
    f[len++] = 0x41;
    node_rx(&n, f, len);
    CHECK_EQ(n.ninput, 1);
    CHECK_EQ(n.noverheard, 1);
    /* no destination at all: we are no PAN coordinator */
    h.dst.mode = MIP_802154_ADDR_NONE;
    h.pan_id_compress = false;
    h.src_pan = PAN;
    CHECK_EQ(mip_ieee802154_emit(&h, f, sizeof(f), &len), MIP_OK);
    node_rx(&n, f, len);
    CHECK_EQ(n.ninput, 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_not_for_us), 2);
}

static void test_malformed_counted(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    uint8_t big[MIP_MAC_FRAME_MAX + 1];
    node_init(&n, MIP_MAC_CSMA_CA);
    len = build_data(f, ME, PEER, PAN, true, 1, 1, 0);
    node_rx(&n, f, 2);                  /* shorter than any MHR */
    node_rx(&n, f, 7);                  /* addresses cut off */
    node_rx(&n, NULL, 0);
    f[0] |= 0x08;                       /* security enabled */
    node_rx(&n, f, len);
    memset(big, 0, sizeof(big));
    big[0] = 0x41;
    big[1] = 0x88;
    node_rx(&n, big, sizeof(big));      /* longer than any frame */
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_malformed), 5);
    CHECK_EQ(n.ninput, 0);
    CHECK_EQ(n.ntx, 0);
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), UINT32_MAX);
}

static void test_stray_acks_ignored(void)
{
    struct node n;
    uint8_t ack[3];
    node_init(&n, MIP_MAC_CSMA_CA);
    mip_ieee802154_emit_ack(5, false, ack);
    CHECK_EQ(node_rx(&n, ack, 3), UINT32_MAX);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_not_for_us), 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_acks_rx), 0);
    CHECK_EQ(n.ndone, 0);
}

static void test_ack_refused_by_radio_dropped(void)
{
    struct node n;
    uint8_t f[64];
    size_t len;
    node_init(&n, MIP_MAC_CSMA_CA);
    n.refuse = MIP_ERR_INUSE;
    len = build_data(f, ME, PEER, PAN, true, 1, 1, 0);
    node_rx(&n, f, len);
    node_run_all(&n);
    CHECK_EQ(n.refusals, 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_radio_error), 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_acks_tx), 0);
    CHECK_EQ(mip_mac_poll(&n.mac, n.now), UINT32_MAX);
    CHECK_EQ(n.ninput, 1);
}

static void test_stat_names(void)
{
#if MIP_CONF_STAT_NAMES
    CHECK(strcmp(mip_mac_stat_name(MIP_MAC_STAT_tx_frames), "tx_frames") == 0);
    CHECK(strcmp(mip_mac_stat_name(MIP_MAC_STAT_overheard), "overheard") == 0);
    CHECK(strcmp(mip_mac_stat_name(MIP_MAC_STAT_tx_channel_busy), "tx_channel_busy") == 0);
    /* every list in enum order: the security counters sit between the base
     * and the RDC's (a name table without them named rx_sec_mic rdc_copies) */
    CHECK(strcmp(mip_mac_stat_name(MIP_MAC_STAT_rx_sec_mic), "rx_sec_mic") == 0);
    CHECK(strcmp(mip_mac_stat_name(MIP_MAC_STAT_tx_sec_failed), "tx_sec_failed") == 0);
    CHECK(strcmp(mip_mac_stat_name(MIP_MAC_STAT_rdc_copies), "rdc_copies") == 0);
#endif
    CHECK(mip_mac_stat_name(MIP_MAC_STAT_COUNT) == NULL);
    CHECK(mip_mac_stat_name((enum mip_mac_stat)200) == NULL);
}

int main(void)
{
    RUN(test_timing_defaults_and_airtime);
    RUN(test_init_validates_and_turns_radio_on);
    RUN(test_ack_sent_turnaround_after_unicast);
    RUN(test_no_ack_for_broadcast_or_without_request);
    RUN(test_duplicates_acked_not_delivered);
    RUN(test_duplicate_table_is_bounded);
    RUN(test_duplicate_entries_age_out);
    RUN(test_an_earlier_poll_does_not_age_a_fresh_entry);
    RUN(test_other_addresses_overheard);
    RUN(test_extended_destination);
    RUN(test_malformed_counted);
    RUN(test_stray_acks_ignored);
    RUN(test_ack_refused_by_radio_dropped);
    RUN(test_stat_names);
    return TESTING_DONE();
}
