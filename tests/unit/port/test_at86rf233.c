/*
 * The AT86RF233 driver (port/avr/at86rf233.c) against the register-level
 * model of the chip (tools/moteip-simavr/at86rf233_model.c): two boards,
 * each a moteip MAC on the driver on a model, their air joined. Time is a
 * scripted clock: each SPI byte takes 1 us (an 8 MHz SPI clock), a busy
 * wait takes what it asks, the MAC's code takes none (the cycle-accurate
 * figures come from the AVR, docs/BENCHMARKS.md). The model's IRQ pin
 * calls at86_radio_irq as the board's interrupt would.
 */
#include "testing.h"

#include <string.h>

#include "at86rf233.h"
#include "at86rf233_model.h"
#include "moteip/mac.h"

#define PAN 0xABCDu
#define LOG_MAX 64

struct board {
    struct at86m m;
    struct at86_radio r;
    struct mip_mac mac;
    unsigned nin;
    size_t in_len;
    uint8_t in_last;            /* the last payload byte of the last frame in */
    unsigned ndone;
    uint8_t st, retries;
};

struct air_log {
    uint64_t at;                /* the SHR's start */
    unsigned from;
    uint8_t len;
};

static struct board B[2];
static uint64_t now_us;
static bool corrupt_next;
static struct air_log air[LOG_MAX];
static unsigned nair;

static void world_to(uint64_t t)
{
    for (;;) {
        uint64_t d0 = at86m_next_due(&B[0].m), d1 = at86m_next_due(&B[1].m);
        uint64_t d = d0 < d1 ? d0 : d1;
        if (d > t)
            break;
        at86m_advance(&B[0].m, d);
        at86m_advance(&B[1].m, d);
    }
    at86m_advance(&B[0].m, t);
    at86m_advance(&B[1].m, t);
    now_us = t;
}

static void air_tx(void *ctx, const uint8_t *psdu, uint8_t len, uint8_t ch, uint64_t at)
{
    struct board *b = ctx, *peer = &B[b == &B[0] ? 1 : 0];
    uint8_t copy[AT86M_PSDU_MAX];
    if (nair < LOG_MAX)
        air[nair++] = (struct air_log){ at, (unsigned)(b - B), len };
    memcpy(copy, psdu, len);
    if (corrupt_next) {
        copy[len / 2u] ^= 0x10u;        /* a bit error: the FCS no longer checks */
        corrupt_next = false;
    }
    at86m_advance(&peer->m, at);
    at86m_air_rx(&peer->m, copy, len, ch);
}

static void irq_changed(void *ctx, bool level)
{
    struct board *b = ctx;
    if (level)
        at86_radio_irq(&b->r);          /* the board's ISR, all of it */
}

void at86_board_select(void *bus, bool selected)
{
    at86m_select(&((struct board *)bus)->m, selected);
}

uint8_t at86_board_xfer(void *bus, uint8_t out)
{
    world_to(now_us + 1u);
    return at86m_xfer(&((struct board *)bus)->m, out);
}

mip_utime_t at86_board_now_us(void *bus)
{
    (void)bus;
    return (mip_utime_t)now_us;
}

void at86_board_delay_us(void *bus, uint16_t us)
{
    (void)bus;
    world_to(now_us + us);
}

static void mac_input(void *ctx, const uint8_t *frame, size_t len, size_t hdr_len,
                      const struct mip_802154_hdr *hdr, mip_utime_t t)
{
    struct board *b = ctx;
    (void)hdr_len;
    (void)hdr;
    (void)t;
    b->nin++;
    b->in_len = len;
    b->in_last = frame[len - 1u];
}

static void mac_tx_done(void *ctx, const uint8_t *frame, size_t len, enum mip_mac_tx_status st,
                        uint8_t retries, mip_utime_t t)
{
    struct board *b = ctx;
    (void)frame;
    (void)len;
    (void)t;
    b->ndone++;
    b->st = (uint8_t)st;
    b->retries = retries;
}

static void setup(void)
{
    unsigned i;
    memset(B, 0, sizeof(B));
    now_us = 1000;
    nair = 0;
    corrupt_next = false;
    for (i = 0; i < 2u; i++) {
        struct board *b = &B[i];
        struct mip_mac_config cfg;
        struct mip_mac_callbacks cb = { mac_input, mac_tx_done, NULL, b };
        uint8_t ext[8] = { 2, 0, 0, 0, 0, 0, 0, (uint8_t)(i + 1u) }, seed[16] = { (uint8_t)i };
        b->m.air_tx = air_tx;
        b->m.irq_changed = irq_changed;
        at86m_init(&b->m, b);
        CHECK_EQ(at86_radio_init(&b->r, b, 26, PAN, (uint16_t)(i + 1u), ext), MIP_OK);
        at86_radio_attach(&b->r, &b->mac);
        mip_mac_config_default(&cfg, MIP_MAC_CSMA_CA, PAN, (uint16_t)(i + 1u), ext);
        CHECK_EQ(mip_mac_init(&b->mac, &cfg, &at86_radio_driver, &b->r, &cb, seed, sizeof(seed),
                              (mip_utime_t)now_us), MIP_OK);
    }
}

/* Runs both boards (driver poll, MAC poll) until `until` µs from now. */
static void run_for(uint64_t span)
{
    uint64_t end = now_us + span;
    while (now_us < end) {
        uint64_t next = end;
        unsigned i;
        for (i = 0; i < 2u; i++) {
            uint32_t d;
            (void)at86_radio_poll(&B[i].r);
            d = mip_mac_poll(&B[i].mac, (mip_utime_t)now_us);
            if (d != UINT32_MAX && now_us + d < next)
                next = now_us + d;
            if (at86m_next_due(&B[i].m) < next)
                next = at86m_next_due(&B[i].m);
        }
        if (B[0].r.irq || B[1].r.irq)
            continue;                   /* an interrupt came: poll at once */
        world_to(next > now_us ? next : now_us + 1u);
    }
}

/* A data frame from short address src to dst (0xFFFF: broadcast), with an
 * ACK request when unicast, `n` payload bytes ending with `tag`. */
static size_t data_frame(uint8_t *f, uint16_t src, uint16_t dst, size_t n, uint8_t tag)
{
    size_t i = 0, k;
    f[i++] = (uint8_t)(0x41u | (dst != 0xFFFFu ? 0x20u : 0u));   /* data, PAN compressed */
    f[i++] = 0x88u;                                              /* short dst and src */
    f[i++] = 0;                                                  /* the MAC's DSN */
    f[i++] = (uint8_t)PAN;
    f[i++] = (uint8_t)(PAN >> 8);
    f[i++] = (uint8_t)dst;
    f[i++] = (uint8_t)(dst >> 8);
    f[i++] = (uint8_t)src;
    f[i++] = (uint8_t)(src >> 8);
    for (k = 0; k + 1u < n; k++)
        f[i++] = (uint8_t)k;
    f[i++] = tag;
    return i;
}

static void test_init_finds_the_chip_and_sets_it_up(void)
{
    setup();
    CHECK_EQ(B[0].m.reg[AT86_TRX_CTRL_1] & AT86_TX_AUTO_CRC_ON, AT86_TX_AUTO_CRC_ON);
    CHECK_EQ(B[0].m.reg[AT86_TRX_CTRL_2] & AT86_RX_SAFE_MODE, AT86_RX_SAFE_MODE);
    CHECK_EQ(B[0].m.reg[AT86_PHY_CC_CCA] & 0x1Fu, 26);
    CHECK_EQ(B[0].m.reg[AT86_IRQ_MASK], AT86_IRQ_TRX_END);
    CHECK_EQ(B[1].m.reg[AT86_SHORT_ADDR_0], 2);
    CHECK_EQ(B[1].m.reg[AT86_IEEE_ADDR_0], 2);          /* least significant first */
    CHECK_EQ(B[1].m.reg[AT86_IEEE_ADDR_0 + 7u], 2);
    /* NullRDC: the MAC turned the receiver on; RX_ON 80 us after TRX_OFF */
    CHECK_EQ(B[0].m.state, AT86_IN_TRANSITION);
    world_to(now_us + 80u);
    CHECK_EQ(B[0].m.state, AT86_RX_ON);
    /* another chip (an AT86RF231's PART_NUM 0x03) is not taken for one */
    at86m_init(&B[0].m, &B[0]);
    B[0].m.reg[AT86_PART_NUM] = 0x03u;
    CHECK_EQ(at86_radio_init(&B[0].r, &B[0], 26, PAN, 1, (const uint8_t[8]){ 0 }),
             MIP_ERR_NOTFOUND);
    CHECK_EQ(at86_radio_init(&B[0].r, &B[0], 27, PAN, 1, (const uint8_t[8]){ 0 }),
             MIP_ERR_INVALID);
}

static void test_a_unicast_frame_is_acknowledged_by_the_software_mac(void)
{
    uint8_t f[64];
    size_t n;
    uint64_t data_end, ack_at;
    setup();
    run_for(200);
    n = data_frame(f, 1, 2, 40, 0x5A);
    CHECK_EQ(mip_mac_send(&B[0].mac, f, n, (mip_utime_t)now_us), MIP_OK);
    run_for(20000);
    CHECK_EQ(B[1].nin, 1);
    CHECK_EQ(B[1].in_len, n);
    CHECK_EQ(B[1].in_last, 0x5A);
    CHECK_EQ(B[0].ndone, 1);
    CHECK_EQ(B[0].st, MIP_MAC_TX_OK);
    CHECK_EQ(B[0].retries, 0);
    CHECK_EQ(B[0].r.st.tx_frames, 1);
    CHECK_EQ(B[1].r.st.tx_frames, 1);           /* the ACK */
    CHECK_EQ(B[1].r.st.rx_frames, 1);
    CHECK_EQ(B[0].r.st.rx_frames, 1);           /* the ACK, to A's MAC */
    CHECK_EQ(nair, 2);
    CHECK_EQ(air[0].from, 0);
    CHECK_EQ(air[1].from, 1);
    CHECK_EQ(air[1].len, 5);                    /* FCF, DSN, FCS */
    /* the ACK went out within the sender's wait (864 us after its frame);
     * its SHR after the frame's end (no overlap) */
    data_end = air[0].at + at86m_airtime(air[0].len);
    ack_at = air[1].at;
    CHECK(ack_at > data_end);
    CHECK(ack_at - data_end < 864u);
    fprintf(stderr, "  data frame end -> ACK SHR: %llu us (SPI at 1 us/byte, no CPU time)\n",
            (unsigned long long)(ack_at - data_end));
}

static void test_a_corrupted_frame_is_dropped_and_the_mac_retries(void)
{
    uint8_t f[64];
    size_t n;
    setup();
    run_for(200);
    corrupt_next = true;
    n = data_frame(f, 1, 2, 20, 0x33);
    CHECK_EQ(mip_mac_send(&B[0].mac, f, n, (mip_utime_t)now_us), MIP_OK);
    run_for(50000);
    CHECK_EQ(B[1].r.st.drop_crc, 1);            /* RX_CRC_VALID clear */
    CHECK_EQ(B[1].nin, 1);                      /* the retry */
    CHECK_EQ(B[0].st, MIP_MAC_TX_OK);
    CHECK_EQ(B[0].retries, 1);
}

static void test_cca_reads_busy_while_a_frame_is_on_the_air(void)
{
    uint8_t f[128];
    size_t n;
    setup();
    run_for(200);
    CHECK(at86_radio_driver.cca(&B[1].r));      /* quiet */
    n = data_frame(f, 1, 0xFFFF, 100, 1);
    CHECK_EQ(at86_radio_driver.transmit(&B[0].r, f, n), MIP_OK);
    CHECK_EQ(at86_radio_driver.transmit(&B[0].r, f, n), MIP_ERR_INUSE);
    world_to(now_us + 500u);
    CHECK_EQ(B[1].m.state, AT86_BUSY_RX);
    CHECK(!at86_radio_driver.cca(&B[1].r));     /* receiving */
    /* a receiver that woke mid-frame does not lock onto it, and its CCA
     * (the chip's 128 us energy measurement) still finds the channel busy */
    at86_radio_driver.off(&B[1].r);
    at86_radio_driver.on(&B[1].r);
    world_to(now_us + 100u);
    CHECK_EQ(B[1].m.state, AT86_RX_ON);
    CHECK(!at86_radio_driver.cca(&B[1].r));
    run_for(5000);
    CHECK_EQ(B[0].r.sending, false);
    CHECK(at86_radio_driver.cca(&B[1].r));      /* the frame ended */
    CHECK_EQ(B[1].nin, 0);
}

static void test_a_receiver_that_is_off_hears_nothing(void)
{
    uint8_t f[64];
    size_t n;
    setup();
    run_for(200);
    at86_radio_driver.off(&B[1].r);
    CHECK_EQ(B[1].m.state, AT86_TRX_OFF);
    n = data_frame(f, 1, 0xFFFF, 10, 7);
    CHECK_EQ(mip_mac_send(&B[0].mac, f, n, (mip_utime_t)now_us), MIP_OK);
    run_for(10000);
    CHECK_EQ(B[0].ndone, 1);
    CHECK_EQ(B[1].nin, 0);
    CHECK_EQ(B[1].m.st.rx_missed_state, 1);
    /* on again: the next one is heard */
    at86_radio_driver.on(&B[1].r);
    n = data_frame(f, 1, 0xFFFF, 10, 8);
    CHECK_EQ(mip_mac_send(&B[0].mac, f, n, (mip_utime_t)now_us), MIP_OK);
    run_for(10000);
    CHECK_EQ(B[1].nin, 1);
    CHECK_EQ(B[1].in_last, 8);
}

int main(void)
{
    RUN(test_init_finds_the_chip_and_sets_it_up);
    RUN(test_a_unicast_frame_is_acknowledged_by_the_software_mac);
    RUN(test_a_corrupted_frame_is_dropped_and_the_mac_retries);
    RUN(test_cca_reads_busy_while_a_frame_is_on_the_air);
    RUN(test_a_receiver_that_is_off_hears_nothing);
    TESTING_DONE();
}
