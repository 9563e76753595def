/*
 * The ATmega1284P radio node (issue 27): moteip's 802.15.4 MAC (CSMA-CA,
 * NullRDC) and 6LoWPAN on an AT86RF233 over SPI (at86rf233.h), IPv6 with
 * ICMPv6 echo: the node answers pings. Under moteip-simavr the chip is its
 * register-level model (tools/moteip-simavr/at86rf233_model.h), whose air
 * is ZEP, so the emulated board joins a ZEP network of moteip-hosts.
 *
 * Identity (as moteip-host --zep and the simulator give it): short address
 * RADIO_SHORT (2), extended 02:00:00:00:00:00:00:02, PAN 0xABCD, channel
 * 26, fd00::ff:fe00:2 with fd00::/64 as IPHC context 0.
 *
 * The main loop: the radio's flag first (a received frame's ACK is due
 * 192 us after it is handed to the MAC), then the MAC and the stack; it
 * sleeps only when the MAC's next deadline is a millisecond or more away
 * (board_sleep has millisecond resolution; INT0 ends it), and spins on the
 * µs clock otherwise.
 */
#include <string.h>

#include "at86rf233.h"
#include "board.h"
#include "moteip/mac.h"
#include "moteip/ping.h"
#include "moteip/rdc.h"
#include "moteip/stack.h"

#ifndef RADIO_SHORT
#define RADIO_SHORT 2u
#endif
#define RADIO_PAN 0xABCDu
#define RADIO_CHANNEL 26u
/* The node pings its peer fd00::ff:fe00:1 once a second (not in the
 * ContikiMAC measurement build, which stays idle). */
#ifndef RADIO_CONTIKIMAC
#define RADIO_CONTIKIMAC 0
#endif
#ifndef RADIO_PING_MS
#if RADIO_CONTIKIMAC
#define RADIO_PING_MS 0u
#else
#define RADIO_PING_MS 1000u
#endif
#endif
#define RADIO_PING_ID 0x4D49u

/* The link ACK wait: a moteip-host on ZEP answers through its scheduler
 * and loopback (docs/ZEP.md, ZEP_ACK_WAIT_US), not within 864 us. */
#define RADIO_ACK_WAIT_US 20000u

/* Everything the node owns: sizeof(struct node) is its RAM. */
struct node {
    struct mip_stack stack;
    struct board_clock clock;
    struct mip_mac mac;
    struct at86_radio radio;
    struct mip_netif_driver drv;
    uint8_t netif;
    /* A frame the MAC passed up, held until the MAC's next poll has sent
     * its link ACK (see mac_input). */
    uint8_t in_len;
    uint8_t in[MIP_MAC_FRAME_MAX];
};

static struct node node;
/* Echo replies from the peer: a port global, so a test finds it by its
 * symbol in the RAM dump (tests/interop/test_avr_radio.py). */
volatile uint16_t radio_ping_replies;

static void ping_reply(void *ctx, struct mip_stack *s, const struct mip_addr *from, uint16_t id,
                       uint16_t seq, const uint8_t *data, size_t len)
{
    (void)ctx;
    (void)s;
    (void)from;
    (void)seq;
    (void)data;
    (void)len;
    if (id == RADIO_PING_ID)
        radio_ping_replies = (uint16_t)(radio_ping_replies + 1u);
}

static mip_status drv_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct node *n = ctx;
    return mip_mac_send(&n->mac, frame, len, board_now_us());
}

static size_t drv_room(void *ctx)
{
    return mip_mac_netif_room(&((struct node *)ctx)->mac);
}

/* The MAC queues the link ACK 192 us after it was handed the frame, and
 * sends it from its next poll. Running the stack here (6LoWPAN, ICMPv6, an
 * echo reply built and queued) delays that poll: 982 us mean, 1,381 us at
 * worst from the frame's end to the ACK's SHR on the emulated 16 MHz AVR,
 * past the ~512 us the sender's 864 us wait leaves. So the frame is copied
 * and given to the stack once the MAC's poll has sent the ACK
 * (docs/BENCHMARKS.md). A frame
 * that comes while one waits is dropped: the stack never saw it, and the
 * sender retries only if it asked for an ACK and got none. */
static void mac_input(void *ctx, const uint8_t *frame, size_t len, size_t hdr_len,
                      const struct mip_802154_hdr *hdr, mip_utime_t now)
{
    struct node *n = ctx;
    (void)hdr_len;
    (void)hdr;
    (void)now;
    if (n->in_len != 0u || len > sizeof n->in)
        return;
    memcpy(n->in, frame, len);
    n->in_len = (uint8_t)len;
}

static void node_start(struct node *n)
{
    static const uint8_t ext[8] = { 2, 0, 0, 0, 0, 0, 0, RADIO_SHORT };
    static const uint8_t addr6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
                                       0, 0, 0, 0xff, 0xfe, 0, 0, RADIO_SHORT };
    uint8_t seed[16];
    struct mip_stack_config cfg;
    struct mip_lowpan_config lc;
    struct mip_mac_config mc;
    struct mip_mac_callbacks cb;
    struct mip_addr a;

    (void)board_entropy(seed, sizeof seed);
    memset(&cfg, 0, sizeof cfg);
    cfg.entropy = seed;
    cfg.entropy_len = sizeof seed;
    mip_stack_init(&n->stack, &cfg, board_now(&n->clock));

    memset(&lc, 0, sizeof lc);
    lc.mode = MIP_LOWPAN_IPHC;
    lc.pan_id = RADIO_PAN;
    lc.short_addr = RADIO_SHORT;
    memcpy(lc.ext_addr, ext, sizeof ext);
    lc.frame_max = 127;
    lc.ack_request = true;
    lc.has_context0 = true;
    lc.ctx0_prefix[0] = 0xfd;
    n->drv.transmit = drv_transmit;
    n->drv.room = drv_room;
    (void)mip_netif_add_lowpan(&n->stack, &lc, &n->drv, n, &n->netif);
    mip_addr_set6(&a, addr6);
    (void)mip_netif_add_addr(&n->stack, n->netif, &a, 64);
    mip_ping_set_handler(&n->stack, ping_reply, n);

    board_radio_init();
    (void)at86_radio_init(&n->radio, NULL, RADIO_CHANNEL, RADIO_PAN, RADIO_SHORT, ext);
    at86_radio_attach(&n->radio, &n->mac);
    mip_mac_config_default(&mc, MIP_MAC_CSMA_CA, RADIO_PAN, RADIO_SHORT, ext);
    mc.timing.ack_wait_us = RADIO_ACK_WAIT_US;
#if RADIO_CONTIKIMAC
    /* the measurement build (moteip-avr-radio-cm): ContikiMAC at Contiki
     * 2.5's defaults, to time its channel checks on the cycle-accurate CPU */
    mip_rdc_config_default(&mc.rdc, MIP_RDC_CONTIKIMAC);
#endif
    memset(&cb, 0, sizeof cb);
    cb.input = mac_input;
    cb.ctx = n;
    (void)mip_mac_init(&n->mac, &mc, &at86_radio_driver, &n->radio, &cb, seed, sizeof seed,
                       board_now_us());
}

/* The next echo request to the peer, when its time has come. */
static uint32_t ping_peer(struct node *n, mip_time_t now, mip_time_t *next, uint16_t *seq)
{
    static const uint8_t peer6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
                                       0, 0, 0, 0xff, 0xfe, 0, 0, 1 };
    static const uint8_t data[8] = { 'm', 'o', 't', 'e', 'i', 'p', 'a', 'v' };
    struct mip_addr peer;
    if (RADIO_PING_MS == 0u)
        return MIP_POLL_IDLE;
    if (!mip_time_before(now, *next)) {
        mip_addr_set6(&peer, peer6);
        (void)mip_ping_send(&n->stack, &peer, RADIO_PING_ID, (*seq)++, data, sizeof data);
        *next = now + RADIO_PING_MS;
    }
    return (uint32_t)(*next - now);
}

int main(void)
{
    struct node *n = &node;
    mip_time_t next_ping;
    uint16_t seq = 0;

    board_init(&n->clock);
    node_start(n);
    next_ping = board_now(&n->clock) + RADIO_PING_MS;
    for (;;) {
        uint32_t ms, us, pm;
        if (board_radio_irq) {
            board_radio_irq = 0;
            at86_radio_irq(&n->radio);
        }
        (void)at86_radio_poll(&n->radio);
        us = mip_mac_poll(&n->mac, board_now_us());     /* an ACK due goes first */
        /* the stack's turn once the ACK is out (mac.h: ack_pending_tx) and
         * off the air, the chip listening again (else it sits in PLL_ON,
         * deaf, for the stack's millisecond) */
        if (n->in_len != 0u && !n->mac.ack_pending_tx && !n->radio.sending) {
            mip_stack_input(&n->stack, n->netif, n->in, n->in_len, board_now(&n->clock));
            n->in_len = 0;
            us = mip_mac_poll(&n->mac, board_now_us()); /* what the stack sent */
        }
        pm = ping_peer(n, board_now(&n->clock), &next_ping, &seq);
        ms = mip_stack_poll(&n->stack, board_now(&n->clock));
        if (pm < ms)
            ms = pm;
        if (board_radio_irq || us < 1000u || ms == 0u)
            continue;
        if (us != UINT32_MAX && us / 1000u < ms)
            ms = us / 1000u;
        board_sleep(&n->clock, ms == MIP_POLL_IDLE ? 60000u : ms);
    }
}
