/*
 * Link-layer security under each RDC (docs/MAC.md "Link-layer security",
 * what each RDC's frames carry): ContikiMAC's copies share one counter;
 * X-MAC's strobes and strobe ACKs are secured, and a forged (unsecured)
 * strobe wakes no one; LPP's probes are secured and a forged probe draws no
 * frame; a sleepy leaf's data requests are secured (the Command ID in the
 * clear), and its parent releases nothing for a forged data request. The
 * peer's frames are secured by a second MAC with the same key
 * (mip_llsec_secure), as the peer's own MAC would.
 */
#include "rdc_frames.h"
#include "llsec_fixture.h"
#include "../../../src/mac/mac_proto.h"
#include "../../../src/mac/mac_rdc.h"      /* mip_mac_ctl */

#if !MIP_CONF_LLSEC || !MIP_RDC_HAS_CONTIKIMAC || !MIP_RDC_HAS_XMAC || !MIP_RDC_HAS_LPP || \
    !MIP_RDC_HAS_LEAF || !MIP_RDC_HAS_PARENT
int main(void)
{
    printf("built without MIP_CONF_LLSEC or an RDC\n");
    return 77;
}
#else

#define T       125000u
#define LEVEL   MIP_802154_SEC_ENC_MIC32
#define MHR     9u              /* intra-PAN, short addresses */
#define AUX     6u              /* key id mode 1 */
#define MIC     4u
#define MS      1000u

static void sec_config(struct node *n, uint8_t kind, uint8_t rdc, uint16_t me)
{
    llsec_config(n, kind, rdc, me, LEVEL);
}

/* A MAC that only secures frames as PEER would (never polled). */
static void peer_mac(struct node *p)
{
    sec_config(p, MIP_MAC_NULLMAC, MIP_RDC_NULLRDC, PEER);
    node_start(p);
}

static size_t secure_as(struct node *p, uint8_t *f, size_t len)
{
    size_t n = mip_llsec_secure(&p->mac, f, len, 64);
    CHECK_EQ(n, len + AUX + MIC);
    return n;
}

static bool secured(const struct node_tx *t)
{
    return (t->data[0] & 0x08u) != 0u && t->len >= MHR + AUX + MIC;
}

static uint32_t counter_of(const struct node_tx *t)
{
    return (uint32_t)t->data[MHR + 1u] | (uint32_t)t->data[MHR + 2u] << 8 |
           (uint32_t)t->data[MHR + 3u] << 16 | (uint32_t)t->data[MHR + 4u] << 24;
}

static void test_contikimac_copies_share_one_counter(void)
{
    static struct node n;
    unsigned k;
    sec_config(&n, MIP_MAC_NULLMAC, MIP_RDC_CONTIKIMAC, ME);
    node_start(&n);
    node_run(&n, T0 + T);
    CHECK_EQ(node_send(&n, 0xFFFF, false, 9), MIP_OK);
    node_run(&n, n.now + 3u * T);
    CHECK(n.ntx > 10u);             /* a train over a whole interval */
    for (k = 0; k < n.ntx && k < NODE_TX_MAX; k++) {
        CHECK(secured(&n.tx[k]));
        CHECK_EQ(n.tx[k].len, n.tx[0].len);
        CHECK_MEM(n.tx[k].data, n.tx[0].data, n.tx[0].len);
    }
    CHECK_EQ(mip_mac_sec_counter(&n.mac), 1);
    CHECK_EQ(n.done[0].first, 9);   /* reported in plaintext */
}

/* An X-MAC receiver at the start of a wake-up. */
static void xm_config(struct node *n)
{
    sec_config(n, MIP_MAC_NULLMAC, MIP_RDC_XMAC, ME);
    /* the default wake-up (6,250 µs) hears a whole strobe after
     * strobe_wait_us (5,468) only without security: 10 bytes more here */
    CHECK_EQ(mip_mac_rdc_check(&n->cfg), MIP_RDC_BAD_ON);
    n->cfg.rdc.on_us = 6500;
    CHECK_EQ(mip_mac_rdc_check(&n->cfg), MIP_RDC_OK);
}

static mip_utime_t xm_awake(struct node *n)
{
    xm_config(n);
    node_start(n);
    node_run(n, T0 + T);
    node_run(n, n->on_since + T + 1000u);     /* into the next wake-up */
    CHECK(n->radio_on);
    return n->now;
}

static void test_xmac_strobes_are_secured_and_forged_ones_wake_no_one(void)
{
    static struct node n, p;
    uint8_t f[64];
    size_t len;
    unsigned k;
    peer_mac(&p);
    /* a sender's strobes: each secured, each with a counter of its own */
    xm_config(&n);
    node_start(&n);
    node_run(&n, T0 + T);
    CHECK_EQ(node_send(&n, PEER, true, 5), MIP_OK);
    node_run(&n, n.now + T / 2u);
    CHECK(node_stat(&n, MIP_MAC_STAT_rdc_strobes) >= 3u);
    for (k = 0; k < n.ntx && k < NODE_TX_MAX; k++) {
        CHECK(secured(&n.tx[k]));
        CHECK_EQ(n.tx[k].len, MHR + AUX + 2u + MIC);
        if (k > 0u)
            CHECK_EQ(counter_of(&n.tx[k]), counter_of(&n.tx[k - 1u]) + 1u);
    }
    /* a receiver: a forged strobe (no security) is dropped and answered
     * by nothing ... */
    (void)xm_awake(&n);
    n.ntx = 0;
    len = ctl_frame(f, ME, PEER, 0x42, 0x10);
    (void)node_rx(&n, f, len);
    node_run(&n, n.now + 3000u);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_sec_none), 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_strobe_acks), 0);
    CHECK_EQ(n.ntx, 0);
    /* ... the same strobe secured by the peer is answered, secured */
    len = secure_as(&p, f, len);
    (void)node_rx(&n, f, len);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_strobe_acks), 1);
    run_to_tx(&n, 0, 5000u);
    CHECK(secured(&n.tx[0]));
    CHECK_EQ(n.tx[0].data[2], 0x42);
}

static void test_lpp_probes_are_secured_and_forged_ones_draw_nothing(void)
{
    static struct node n, p;
    uint8_t f[64];
    size_t len;
    mip_utime_t s0;
    peer_mac(&p);
    sec_config(&n, MIP_MAC_NULLMAC, MIP_RDC_LPP, ME);
    n.cfg.rdc.probe_jitter_us = 0;
    node_start(&n);
    node_run(&n, T0 + T);
    CHECK_EQ(n.ntx, 1);                 /* our own first probe: secured */
    CHECK(secured(&n.tx[0]));
    CHECK_EQ(n.tx[0].len, MHR + AUX + 2u + MIC);
    s0 = n.on_since;
    /* after our listen, a frame for PEER waits for PEER's probe */
    n.now = s0 + 192u + 192u + 608u + 7812u + 100u + 400u;
    node_run(&n, n.now);
    n.ntx = 0;
    CHECK_EQ(node_send(&n, PEER, true, 7), MIP_OK);
    (void)mip_mac_poll(&n.mac, n.now);
    node_run(&n, n.now + 10000u);
    len = ctl_frame(f, 0xFFFF, PEER, 5, 0x20);
    (void)node_rx(&n, f, len);          /* forged: no security */
    node_run(&n, n.now + 10000u);
    CHECK_EQ(n.ntx, 0);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_sec_none), 1);
    len = secure_as(&p, f, len);
    (void)node_rx(&n, f, len);
    run_to_tx(&n, 0, 5000u);
    CHECK(secured(&n.tx[0]));
    CHECK_EQ(n.tx[0].len, MHR + AUX + 9u + MIC);  /* our data frame, not a probe */
}

static void test_leaf_data_requests_are_secured_with_the_command_id_in_the_clear(void)
{
    static struct node n;
    struct mip_802154_hdr h;
    size_t hl;
    sec_config(&n, MIP_MAC_CSMA_CA, MIP_RDC_LEAF, ME);
    n.cfg.rdc.parent = PEER;
    n.cfg.rdc.poll_us = 100u * MS;
    node_start(&n);
    run_to_tx(&n, 0, 200u * MS);
    CHECK(secured(&n.tx[0]));
    CHECK_EQ(mip_ieee802154_parse_mhr(n.tx[0].data, n.tx[0].len, &h, &hl), MIP_OK);
    CHECK_EQ(h.type, MIP_802154_CMD);
    CHECK_EQ(n.tx[0].len, hl + AUX + 1u + MIC);
    CHECK_EQ(n.tx[0].data[hl + AUX], 0x04);    /* Data Request, authenticated in the clear */
}

static bool is_ack(const struct node_tx *t, uint8_t seq, bool pending)
{
    return t->len == MIP_802154_ACK_LEN && (t->data[0] & 0x07u) == MIP_802154_ACK &&
           t->data[2] == seq && ((t->data[0] & 0x10u) != 0u) == pending;
}

static void test_parent_releases_nothing_for_a_forged_data_request(void)
{
    static struct node n, p;
    struct mip_802154_addr child = {MIP_802154_ADDR_SHORT, PEER, {0}};
    uint8_t f[64];
    size_t len;
    peer_mac(&p);
    sec_config(&n, MIP_MAC_CSMA_CA, MIP_RDC_PARENT, ME);
    node_start(&n);
    CHECK_EQ(mip_mac_add_child(&n.mac, &child, n.now), MIP_OK);
    CHECK_EQ(node_send(&n, PEER, true, 1), MIP_OK);
    node_run(&n, n.now + 10u * MS);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_ind_held), 1);
    CHECK_EQ(n.ntx, 0);
    /* forged: no ACK, nothing released */
    len = data_request(f, ME, PEER, 0x33);
    (void)node_rx(&n, f, len);
    node_run(&n, n.now + 20u * MS);
    CHECK_EQ(n.ntx, 0);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rx_sec_none), 1);
    CHECK_EQ(node_stat(&n, MIP_MAC_STAT_rdc_polls), 0);
    /* the child's own (secured): ACK with the pending bit, then the frame,
     * secured with a counter of its own */
    len = secure_as(&p, f, len);
    (void)node_rx(&n, f, len);
    run_to_tx(&n, 1, 20u * MS);
    CHECK(is_ack(&n.tx[0], 0x33, true));
    CHECK(secured(&n.tx[1]));
    CHECK_EQ(counter_of(&n.tx[1]), 0);
}

/* X-MAC under CSMA-CA: the data frame after a strobe ACK is lost, so the
 * frame is retried after a new strobe train. Each strobe reaches PEER (an
 * X-MAC with the key, handed everything), whose replay table then holds
 * the newest strobe's counter: the retry must carry a counter above it, or
 * PEER drops it as a replay and every link-layer retry is lost. */
static void test_xmac_retry_after_new_strobes_is_not_a_replay(void)
{
    static struct node n, p, q;
    uint8_t f[64];
    size_t len;
    unsigned k, data = 0, i;
    uint32_t newest = 0;
    mip_utime_t end;
    peer_mac(&q);                       /* secures PEER's strobe ACKs */
    sec_config(&p, MIP_MAC_NULLMAC, MIP_RDC_XMAC, PEER);
    p.cfg.rdc.on_us = 6500;             /* (xm_config) */
    node_start(&p);
    xm_config(&n);
    n.cfg.kind = MIP_MAC_CSMA_CA;
    n.cfg.max_retries = 2;
    node_start(&n);
    node_run(&n, T0 + T);
    CHECK_EQ(node_send(&n, PEER, true, 7), MIP_OK);
    for (k = 0, i = 0; i < 200u && data < 2u; i++) {
        run_to_tx(&n, k, 4u * T);
        CHECK(secured(&n.tx[k]));
        end = n.tx[k].t + airtime(&n, n.tx[k].len);
        if (n.tx[k].len == MHR + AUX + 2u + MIC) {
            /* a strobe: PEER hears it and answers after 1 ms */
            CHECK(counter_of(&n.tx[k]) >= newest);
            newest = counter_of(&n.tx[k]);
            p.now = n.now;
            (void)node_rx(&p, n.tx[k].data, n.tx[k].len);
            node_run(&n, end + 1000u + 192u);
            n.now = end + 1000u + 192u + airtime(&n, MHR + AUX + 2u + MIC);
            len = secure_as(&q, f, ctl_frame(f, ME, PEER, n.tx[k].data[2], 0x13));
            (void)node_rx(&n, f, len);
        } else {
            /* the data frame: lost the first time, then heard */
            data++;
            if (data == 2u) {
                CHECK(counter_of(&n.tx[k]) > newest);
                p.now = n.now;
                (void)node_rx(&p, n.tx[k].data, n.tx[k].len);
            }
            node_run(&n, end);
        }
        k++;
    }
    CHECK_EQ(data, 2);
    CHECK_EQ(p.ninput, 1);
    CHECK_EQ(p.input_tag[0], 7);
    CHECK_EQ(node_stat(&p, MIP_MAC_STAT_rx_sec_replay), 0);
}

/* Counters in air order: each frame on air carries a counter above every
 * frame before it, or the last one again on the same bytes (a copy). */
static void check_air_order(const struct node *n)
{
    unsigned k;
    for (k = 1; k < n->ntx && k < NODE_TX_MAX; k++) {
        CHECK(secured(&n->tx[k]));
        if (counter_of(&n->tx[k]) == counter_of(&n->tx[k - 1u])) {
            CHECK_EQ(n->tx[k].len, n->tx[k - 1u].len);
            CHECK_MEM(n->tx[k].data, n->tx[k - 1u].data, n->tx[k].len);
        } else {
            CHECK(counter_of(&n->tx[k]) > counter_of(&n->tx[k - 1u]));
        }
    }
}

/* A strobe ACK waits out its delay in the control slot while X-MAC sends
 * the copies of a broadcast: it takes its counter as it goes on air.
 * Secured when asked for, it went out after a copy secured afresh with a
 * newer counter, and the strober, which hears our copies, dropped it as a
 * replay. With one counter left, the copy takes it and the strobe ACK is
 * not sent (nothing unsecured goes out). */
static void test_control_frame_takes_its_counter_on_air(void)
{
    static struct node n;
    uint8_t f[64];
    size_t len;
    unsigned r;
    for (r = 0; r < 2u; r++) {
        xm_config(&n);
        if (r == 1u)
            n.cfg.sec.counter = UINT32_MAX - 1u;    /* one counter left */
        node_start(&n);
        node_run(&n, T0 + T);
        CHECK_EQ(node_send(&n, 0xFFFF, false, 9), MIP_OK);
        run_to_tx(&n, 0, 2u * T);
        len = ctl_frame(f, PEER, ME, 0x51, 0x13);
        mip_mac_ctl(&n.mac, f, len, 7000u);   /* after the next copy */
        node_run(&n, n.now + T / 4u);
        CHECK(n.ntx > 2u);
        check_air_order(&n);
        if (r == 0u) {
            CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_sec_failed), 0);
            CHECK(counter_of(&n.tx[n.ntx - 1u]) >= 1u);   /* the strobe ACK went */
        } else {
            CHECK_EQ(node_stat(&n, MIP_MAC_STAT_tx_sec_failed), 1);
            CHECK_EQ(mip_mac_sec_counter(&n.mac), UINT32_MAX);
        }
    }
}

int main(void)
{
    RUN(test_contikimac_copies_share_one_counter);
    RUN(test_xmac_retry_after_new_strobes_is_not_a_replay);
    RUN(test_control_frame_takes_its_counter_on_air);
    RUN(test_xmac_strobes_are_secured_and_forged_ones_wake_no_one);
    RUN(test_lpp_probes_are_secured_and_forged_ones_draw_nothing);
    RUN(test_leaf_data_requests_are_secured_with_the_command_id_in_the_clear);
    RUN(test_parent_releases_nothing_for_a_forged_data_request);
    return TESTING_DONE();
}
#endif
