/*
 * Link-layer security in the MAC engine (src/mac/llsec.c; docs/MAC.md
 * "Link-layer security"): a sender's frames go out secured and a receiver
 * with the key gets the plaintext, trusted; unsecured, wrong-level,
 * wrong-key, tampered and replayed frames are dropped and counted before
 * they are acknowledged or passed up; retries share one counter; the
 * counter's reservation survives a reboot; the replay table's floor.
 * Two MACs over fake radios: what one transmits is handed to the other.
 */
#include "llsec_fixture.h"

#if !MIP_CONF_LLSEC
int main(void)
{
    printf("built without MIP_CONF_LLSEC\n");
    return 77;
}
#else

/* persist hook: remembers the bounds it was asked to store */
struct store {
    uint32_t bound;
    unsigned writes;
    bool fail;
};

static bool persist(void *ctx, uint32_t upto)
{
    struct store *s = ctx;
    if (s->fail)
        return false;
    s->bound = upto;
    s->writes++;
    return true;
}

static void sec_config(struct node *n, uint16_t short_addr, uint8_t level)
{
    llsec_config(n, MIP_MAC_CSMA_CA, MIP_RDC_NULLRDC, short_addr, level);
}

static void sec_node(struct node *n, uint16_t short_addr, uint8_t level)
{
    sec_config(n, short_addr, level);
    node_start(n);
}

/* n sends a frame tagged `tag` to dst (ACK asked when unicast) and runs
 * until it is out; returns the index of its first transmission. */
static unsigned send_one(struct node *n, uint16_t dst, uint8_t tag)
{
    uint8_t f[64];
    unsigned first = n->ntx;
    size_t len = build_data(f, dst, n->cfg.short_addr, PAN, dst != 0xFFFFu, 0, tag, 8);
    CHECK_EQ(mip_mac_send(&n->mac, f, len, n->now), MIP_OK);
    node_run(n, n->now + 50000u);
    return first;
}

/* n queues a frame tagged `tag` to dst asking for an ACK and runs until
 * its first transmission has ended (its ACK wait under way); returns the
 * index of that transmission. */
static unsigned send_first(struct node *n, uint16_t dst, uint8_t tag)
{
    uint8_t f[64];
    unsigned first = n->ntx, i;
    size_t len = build_data(f, dst, n->cfg.short_addr, PAN, true, 0, tag, 8);
    CHECK_EQ(mip_mac_send(&n->mac, f, len, n->now), MIP_OK);
    for (i = 0; i < 100u && (n->ntx == first || n->busy); i++)
        CHECK(node_step(n, n->now + 50000u));
    return first;
}

/* Hands transmission k of `from` to `to` at to's time; polls. */
static void deliver(struct node *from, unsigned k, struct node *to)
{
    node_rx(to, from->tx[k].data, from->tx[k].len);
}

static void test_secured_frame_reaches_the_keyholder_in_plaintext(void)
{
    static struct node a, b;
    struct mip_802154_hdr h;
    size_t hl;
    unsigned k;
    sec_node(&a, PEER, MIP_802154_SEC_ENC_MIC32);
    sec_node(&b, ME, MIP_802154_SEC_ENC_MIC32);
    CHECK_EQ(mip_mac_sec_overhead(&a.cfg), 6 + 4);
    k = send_first(&a, ME, 0x77);
    /* on air: security bit, 2006 version, aux header, MIC: 10 bytes more
     * than the 16-byte plain frame; the payload encrypted */
    CHECK_EQ(a.tx[k].len, 9 + 9 + 10);
    CHECK_EQ(mip_ieee802154_parse_mhr(a.tx[k].data, a.tx[k].len, &h, &hl), MIP_OK);
    CHECK(h.security);
    CHECK_EQ(h.version, 1);
    CHECK_EQ(a.tx[k].data[hl], 0x05 | 0x08);        /* level 5, key id mode 1 */
    CHECK_EQ(a.tx[k].data[hl + 5], 1);              /* key index */
    CHECK(a.tx[k].data[a.tx[k].len - 5] != 0x77);   /* the tag is ciphertext */
    CHECK_EQ(mip_mac_sec_counter(&a.mac), 1);
    deliver(&a, k, &b);
    CHECK_EQ(b.ninput, 1);
    CHECK_EQ(b.input_tag[0], 0x77);
    CHECK_EQ(node_stat(&b, MIP_MAC_STAT_rx_frames), 1);
    node_run(&b, b.now + 10000u);
    CHECK_EQ(b.ntx, 1);                             /* the link ACK */
    CHECK_EQ(b.tx[0].len, MIP_802154_ACK_LEN);
    /* the sender's outcome reports the frame as it was queued */
    deliver(&b, 0, &a);
    node_run(&a, a.now + 10000u);
    CHECK_EQ(a.ndone, 1);
    CHECK_EQ(a.done[0].st, MIP_MAC_TX_OK);
    CHECK_EQ(a.done[0].first, 0x77);
}

/* What the receiver's input callback sees: the level in the header. */
static uint8_t seen_level;
static bool seen_trusted;
static struct node *seen_node;
static void cb_input_level(void *ctx, const uint8_t *frame, size_t len, size_t hdr_len,
                           const struct mip_802154_hdr *hdr, mip_utime_t now)
{
    (void)frame; (void)len; (void)hdr_len; (void)now; (void)ctx;
    seen_level = hdr->sec_level;
    seen_trusted = mip_mac_rx_trusted(&seen_node->mac, hdr);
}

static void test_input_says_trusted_and_acks_are_not(void)
{
    static struct node a, b;
    struct mip_mac_callbacks cb = {cb_input_level, NULL, NULL, NULL};
    struct mip_802154_hdr ack;
    uint8_t s[4] = {1, 0, 0, 0};
    unsigned k;
    sec_node(&a, PEER, MIP_802154_SEC_MIC64);
    sec_config(&b, ME, MIP_802154_SEC_MIC64);
    CHECK_EQ(mip_mac_init(&b.mac, &b.cfg, &fake_radio, &b, &cb, s, sizeof(s), b.now), MIP_OK);
    seen_node = &b;
    k = send_one(&a, ME, 0x42);
    deliver(&a, k, &b);
    CHECK_EQ(seen_level, MIP_802154_SEC_MIC64);
    CHECK(seen_trusted);
    memset(&ack, 0, sizeof(ack));
    ack.type = MIP_802154_ACK;
    CHECK(!mip_mac_rx_trusted(&b.mac, &ack));
    /* without security everything is trusted: nothing could be checked */
    node_init(&a, MIP_MAC_CSMA_CA);
    CHECK(mip_mac_rx_trusted(&a.mac, &ack));
    CHECK_EQ(mip_mac_sec_overhead(&a.cfg), 0);
}

/* Each bad frame: dropped, counted under its reason, not ACKed, not up. */
static void test_bad_frames_dropped_and_counted(void)
{
    static struct node a, b, x, y;
    uint8_t f[64];
    size_t len;
    unsigned k;
    sec_node(&a, PEER, MIP_802154_SEC_ENC_MIC32);
    sec_node(&b, ME, MIP_802154_SEC_ENC_MIC32);
    /* unsecured */
    len = build_data(f, ME, PEER, PAN, true, 9, 0x01, 8);
    node_rx(&b, f, len);
    CHECK_EQ(node_stat(&b, MIP_MAC_STAT_rx_sec_none), 1);
    /* another level (a node configured with MIC-64) */
    sec_node(&x, OTHER, MIP_802154_SEC_MIC64);
    k = send_one(&x, ME, 0x02);
    deliver(&x, k, &b);
    CHECK_EQ(node_stat(&b, MIP_MAC_STAT_rx_sec_policy), 1);
    /* the right level with another key: the MIC fails */
    sec_config(&y, OTHER, MIP_802154_SEC_ENC_MIC32);
    y.cfg.sec.key[0] ^= 1u;
    node_start(&y);
    k = send_one(&y, ME, 0x03);
    deliver(&y, k, &b);
    CHECK_EQ(node_stat(&b, MIP_MAC_STAT_rx_sec_mic), 1);
    /* a good frame with one bit flipped anywhere after the MHR */
    k = send_one(&a, ME, 0x04);
    memcpy(f, a.tx[k].data, a.tx[k].len);
    f[a.tx[k].len - 7] ^= 0x10u;
    node_rx(&b, f, a.tx[k].len);
    CHECK_EQ(node_stat(&b, MIP_MAC_STAT_rx_sec_mic), 2);
    /* a short source whose extended address is unknown */
    b.mac.cfg.sec.ext_of = NULL;
    deliver(&a, k, &b);
    CHECK_EQ(node_stat(&b, MIP_MAC_STAT_rx_sec_no_addr), 1);
    b.mac.cfg.sec.ext_of = llsec_ext_of;
    CHECK_EQ(b.ninput, 0);
    CHECK_EQ(node_stat(&b, MIP_MAC_STAT_acks_tx) + b.mac.ack_pending_tx, 0);
    /* and the good frame itself still passes */
    deliver(&a, k, &b);
    CHECK_EQ(b.ninput, 1);
    CHECK_EQ(b.input_tag[0], 0x04);
}

static void test_replay_dropped_repeat_acked_once(void)
{
    static struct node a, b;
    unsigned k1, k2;
    sec_node(&a, PEER, MIP_802154_SEC_ENC_MIC32);
    sec_node(&b, ME, MIP_802154_SEC_ENC_MIC32);
    k1 = send_one(&a, 0xFFFFu, 0x11);
    k2 = send_one(&a, 0xFFFFu, 0x12);
    deliver(&a, k1, &b);
    deliver(&a, k2, &b);
    CHECK_EQ(b.ninput, 2);
    /* the older frame again: a replay */
    deliver(&a, k1, &b);
    CHECK_EQ(node_stat(&b, MIP_MAC_STAT_rx_sec_replay), 1);
    /* the last frame again: the same frame (a retry, a copy): a duplicate,
     * even after the (source, DSN) table forgot it */
    memset(b.mac.dup, 0, sizeof(b.mac.dup));
    deliver(&a, k2, &b);
    CHECK_EQ(node_stat(&b, MIP_MAC_STAT_rx_duplicates), 1);
    CHECK_EQ(b.ninput, 2);
}

/* A unicast that is never ACKed: every retry is the same secured bytes,
 * one counter. */
static void test_retries_share_one_counter(void)
{
    static struct node a;
    unsigned k, i;
    sec_node(&a, PEER, MIP_802154_SEC_ENC_MIC64);
    k = send_one(&a, ME, 0x21);
    node_run_all(&a);
    CHECK_EQ(a.ntx - k, 1u + a.cfg.max_retries);
    for (i = k + 1u; i < a.ntx; i++) {
        CHECK_EQ(a.tx[i].len, a.tx[k].len);
        CHECK_MEM(a.tx[i].data, a.tx[k].data, a.tx[k].len);
    }
    CHECK_EQ(mip_mac_sec_counter(&a.mac), 1);
    CHECK_EQ(a.done[0].st, MIP_MAC_TX_NOACK);
    CHECK_EQ(a.done[0].first, 0x21);
}

static void test_counter_reservation_survives_reboot(void)
{
    static struct node a, b;
    struct store st = {0, 0, false};
    unsigned i, k = 0;
    sec_config(&a, PEER, MIP_802154_SEC_ENC_MIC32);
    a.cfg.sec.reserve = 10;
    a.cfg.sec.persist = persist;
    a.cfg.sec.persist_ctx = &st;
    node_start(&a);
    sec_node(&b, ME, MIP_802154_SEC_ENC_MIC32);
    for (i = 0; i < 25u; i++)
        k = send_one(&a, 0xFFFFu, (uint8_t)i);
    deliver(&a, k, &b);                 /* counter 24 */
    CHECK_EQ(st.writes, 3);             /* 10, 20, 30: one write per 10 frames */
    CHECK_EQ(st.bound, 30);
    /* reboot: the port passes the stored bound; the next counter is above
     * every one used, and the receiver takes it */
    a.cfg.sec.counter = st.bound;
    a.radio_on = false;
    node_start(&a);
    CHECK_EQ(mip_mac_sec_counter(&a.mac), 30);
    k = send_one(&a, 0xFFFFu, 0x99);
    deliver(&a, k, &b);
    CHECK_EQ(b.ninput, 2);
    CHECK_EQ(node_stat(&b, MIP_MAC_STAT_rx_sec_replay), 0);
    CHECK_EQ(st.bound, 40);
    /* a store that fails: the frame is not sent */
    st.fail = true;
    a.mac.sec.counter = 40;
    k = a.ntx;
    (void)send_one(&a, ME, 0x55);
    CHECK_EQ(a.ntx, k);
    CHECK_EQ(a.done[a.ndone - 1u].st, MIP_MAC_TX_SECURITY);
    CHECK_EQ(node_stat(&a, MIP_MAC_STAT_tx_sec_failed), 1);
    /* nor past the last counter */
    st.fail = false;
    a.mac.sec.counter = UINT32_MAX;
    (void)send_one(&a, ME, 0x56);
    CHECK_EQ(a.ntx, k);
    CHECK_EQ(node_stat(&a, MIP_MAC_STAT_tx_sec_failed), 2);
}

/* A full replay table evicts its least recent sender and raises the
 * floor above that sender's counter: the evicted sender's old frames stay
 * refused; its new ones pass. */
static void test_replay_table_floor(void)
{
    static struct node b, s[MIP_LLSEC_NEIGHBORS + 2u];
    unsigned i, old;
    sec_node(&b, ME, MIP_802154_SEC_MIC32);
    sec_config(&s[0], 0x100u, MIP_802154_SEC_MIC32);
    s[0].cfg.sec.counter = 1000;
    node_start(&s[0]);
    old = send_one(&s[0], 0xFFFFu, 1);
    (void)send_one(&s[0], 0xFFFFu, 2);
    deliver(&s[0], old, &b);
    for (i = 1; i <= MIP_LLSEC_NEIGHBORS; i++) {
        sec_config(&s[i], (uint16_t)(0x100u + i), MIP_802154_SEC_MIC32);
        s[i].cfg.sec.counter = 2000;
        node_start(&s[i]);
        deliver(&s[i], send_one(&s[i], 0xFFFFu, (uint8_t)i), &b);
    }
    CHECK_EQ(b.ninput, 1u + MIP_LLSEC_NEIGHBORS);
    CHECK_EQ(node_stat(&b, MIP_MAC_STAT_sec_nbr_evicted), 1);
    /* s[0] is out of the table: its frame 1000 again is refused ... */
    deliver(&s[0], old, &b);
    CHECK_EQ(node_stat(&b, MIP_MAC_STAT_rx_sec_replay), 1);
    /* ... its next one (1001) passes */
    deliver(&s[0], old + 1u, &b);
    CHECK_EQ(b.ninput, 2u + MIP_LLSEC_NEIGHBORS);
    /* the price: a new sender below the floor waits until it passes it */
    sec_config(&s[MIP_LLSEC_NEIGHBORS + 1u], 0x200u, MIP_802154_SEC_MIC32);
    node_start(&s[MIP_LLSEC_NEIGHBORS + 1u]);
    deliver(&s[MIP_LLSEC_NEIGHBORS + 1u], send_one(&s[MIP_LLSEC_NEIGHBORS + 1u], 0xFFFFu, 9), &b);
    CHECK_EQ(node_stat(&b, MIP_MAC_STAT_rx_sec_replay), 2);
}

static void test_config_refusals_and_long_frames(void)
{
    static struct node n;
    struct mip_mac_callbacks cb = {cb_input, cb_tx_done, NULL, NULL};
    uint8_t f[MIP_MAC_FRAME_MAX], seed[1] = {1};
    size_t len;
    static const struct { uint8_t level, mode, index; uint32_t reserve; } bad[] = {
        {4, 1, 1, 1}, {8, 1, 1, 1}, {5, 4, 1, 1}, {5, 1, 0, 1}, {5, 1, 1, 0},
    };
    unsigned i;
    cb.ctx = &n;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        sec_config(&n, ME, bad[i].level);
        n.cfg.sec.key_id_mode = bad[i].mode;
        n.cfg.sec.key_index = bad[i].index;
        n.cfg.sec.reserve = bad[i].reserve;
        CHECK_EQ(mip_mac_init(&n.mac, &n.cfg, &fake_radio, &n, &cb, seed, 1, n.now),
                 MIP_ERR_INVALID);
    }
    /* implicit key mode needs no index */
    sec_config(&n, ME, 7);
    n.cfg.sec.key_id_mode = 0;
    n.cfg.sec.key_index = 0;
    CHECK_EQ(mip_mac_init(&n.mac, &n.cfg, &fake_radio, &n, &cb, seed, 1, n.now), MIP_OK);
    CHECK_EQ(mip_mac_sec_overhead(&n.cfg), 5 + 16);
    /* a frame that would not fit once secured is refused at the queue */
    len = build_data(f, PEER, ME, PAN, true, 0, 1, MIP_MAC_FRAME_MAX - 9 - 1);
    CHECK_EQ(len, MIP_MAC_FRAME_MAX);
    CHECK_EQ(mip_mac_send(&n.mac, f, len, n.now), MIP_ERR_INVALID);
    len = build_data(f, PEER, ME, PAN, true, 0, 1, MIP_MAC_FRAME_MAX - 9 - 1 - 21);
    CHECK_EQ(mip_mac_send(&n.mac, f, len, n.now), MIP_OK);
}

int main(void)
{
    RUN(test_secured_frame_reaches_the_keyholder_in_plaintext);
    RUN(test_input_says_trusted_and_acks_are_not);
    RUN(test_bad_frames_dropped_and_counted);
    RUN(test_replay_dropped_repeat_acked_once);
    RUN(test_retries_share_one_counter);
    RUN(test_counter_reservation_survives_reboot);
    RUN(test_replay_table_floor);
    RUN(test_config_refusals_and_long_frames);
    return TESTING_DONE();
}
#endif
