/*
 * The AT86RF233 driver (at86rf233.h has the choices and the datasheet's
 * sections). Every access is one SPI transaction: /SEL low, a command byte,
 * the data, /SEL high. The chip's first byte back is PHY_STATUS (the
 * default SPI_CMD_MODE 0), which the driver does not use.
 */
#include "at86rf233.h"

#include <string.h>

static uint8_t reg_read(void *bus, uint8_t addr)
{
    uint8_t v;
    at86_board_select(bus, true);
    (void)at86_board_xfer(bus, (uint8_t)(AT86_CMD_REG_READ | addr));
    v = at86_board_xfer(bus, 0);
    at86_board_select(bus, false);
    return v;
}

static void reg_write(void *bus, uint8_t addr, uint8_t v)
{
    at86_board_select(bus, true);
    (void)at86_board_xfer(bus, (uint8_t)(AT86_CMD_REG_WRITE | addr));
    (void)at86_board_xfer(bus, v);
    at86_board_select(bus, false);
}

static uint8_t status(void *bus)
{
    return (uint8_t)(reg_read(bus, AT86_TRX_STATUS) & 0x1Fu);
}

/* Waits (a busy wait, bounded by `us`) until TRX_STATUS reads `want`. */
static bool wait_state(void *bus, uint8_t want, uint16_t us)
{
    mip_utime_t start = at86_board_now_us(bus);
    for (;;) {
        if (status(bus) == want)
            return true;
        if ((mip_utime_t)(at86_board_now_us(bus) - start) > us)
            return false;
        at86_board_delay_us(bus, 4);
    }
}

/* The receiver state the MAC asked for, after a transmission or at on/off:
 * RX_ON from PLL_ON takes 1 us (tTR8), TRX_OFF is immediate. */
static void settle(struct at86_radio *r)
{
    reg_write(r->bus, AT86_TRX_STATE, r->on ? AT86_CMD_RX_ON : AT86_CMD_FORCE_TRX_OFF);
}

mip_status at86_radio_init(struct at86_radio *r, void *bus, uint8_t channel, uint16_t pan_id,
                           uint16_t short_addr, const uint8_t ext_addr[8])
{
    uint8_t i;
    memset(r, 0, sizeof(*r));
    r->bus = bus;
    if (channel < 11u || channel > 26u)
        return MIP_ERR_INVALID;
    r->channel = channel;
    if (reg_read(bus, AT86_PART_NUM) != AT86_PART_NUM_233 ||
        reg_read(bus, AT86_MAN_ID_0) != AT86_MAN_ID_ATMEL)
        return MIP_ERR_NOTFOUND;
    reg_write(bus, AT86_TRX_STATE, AT86_CMD_FORCE_TRX_OFF);
    if (!wait_state(bus, AT86_TRX_OFF, AT86_T_PLL_US))
        return MIP_ERR_NOTFOUND;
    reg_write(bus, AT86_TRX_CTRL_1, AT86_TX_AUTO_CRC_ON);
    reg_write(bus, AT86_TRX_CTRL_2, AT86_RX_SAFE_MODE);        /* 250 kb/s */
    reg_write(bus, AT86_PHY_CC_CCA, (uint8_t)(AT86_CCA_MODE_1 | channel));
    reg_write(bus, AT86_SHORT_ADDR_0, (uint8_t)short_addr);
    reg_write(bus, AT86_SHORT_ADDR_0 + 1u, (uint8_t)(short_addr >> 8));
    reg_write(bus, AT86_PAN_ID_0, (uint8_t)pan_id);
    reg_write(bus, AT86_PAN_ID_0 + 1u, (uint8_t)(pan_id >> 8));
    /* IEEE_ADDR_0 is the least significant byte; ext_addr is as written
     * (most significant first) */
    for (i = 0; i < 8u; i++)
        reg_write(bus, (uint8_t)(AT86_IEEE_ADDR_0 + i), ext_addr[7u - i]);
    reg_write(bus, AT86_IRQ_MASK, AT86_IRQ_TRX_END);
    (void)reg_read(bus, AT86_IRQ_STATUS);                      /* clear what was pending */
    return MIP_OK;
}

void at86_radio_attach(struct at86_radio *r, struct mip_mac *mac)
{
    r->mac = mac;
}

static mip_status at86_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct at86_radio *r = ctx;
    void *bus = r->bus;
    size_t i;
    if (r->sending)
        return MIP_ERR_INUSE;
    if (len + 2u > sizeof(r->buf))
        return MIP_ERR_INVALID;
    /* FORCE_PLL_ON cuts a reception off (radio.h: a transmission does);
     * from RX_ON it takes 1 us, from TRX_OFF the PLL locks in tTR4 */
    reg_write(bus, AT86_TRX_STATE, AT86_CMD_FORCE_PLL_ON);
    if (!wait_state(bus, AT86_PLL_ON, AT86_T_PLL_US)) {
        r->st.tx_state_errors++;
        settle(r);
        return MIP_ERR_INUSE;
    }
    /* the frame buffer: PHR (the PSDU's length, FCS included), the MPDU;
     * the chip fills in the FCS (TX_AUTO_CRC_ON) */
    at86_board_select(bus, true);
    (void)at86_board_xfer(bus, AT86_CMD_FB_WRITE);
    (void)at86_board_xfer(bus, (uint8_t)(len + 2u));
    for (i = 0; i < len; i++)
        (void)at86_board_xfer(bus, frame[i]);
    at86_board_select(bus, false);
    reg_write(bus, AT86_TRX_STATE, AT86_CMD_TX_START);
    r->sending = true;
    r->st.tx_frames++;
    return MIP_OK;
}

static bool at86_cca(void *ctx)
{
    struct at86_radio *r = ctx;
    void *bus = r->bus;
    mip_utime_t start;
    uint8_t s = reg_read(bus, AT86_TRX_STATUS);
    if ((s & 0x1Fu) == AT86_BUSY_RX)
        return false;           /* a frame is coming in */
    if ((s & 0x1Fu) != AT86_RX_ON)
        return true;            /* radio.h: asked only while on; nothing heard */
    reg_write(bus, AT86_PHY_CC_CCA, (uint8_t)(AT86_CCA_REQUEST | AT86_CCA_MODE_1 | r->channel));
    start = at86_board_now_us(bus);
    for (;;) {
        at86_board_delay_us(bus, 16);
        s = reg_read(bus, AT86_TRX_STATUS);
        if (s & AT86_CCA_DONE)
            return (s & AT86_CCA_STATUS) != 0u;
        if ((mip_utime_t)(at86_board_now_us(bus) - start) > AT86_T_CCA_US) {
            r->st.cca_timeouts++;
            return false;
        }
    }
}

static void at86_on(void *ctx)
{
    struct at86_radio *r = ctx;
    r->on = true;
    if (!r->sending)
        settle(r);              /* TRX_OFF -> RX_ON: listening after tTR6 */
}

static void at86_off(void *ctx)
{
    struct at86_radio *r = ctx;
    r->on = false;
    if (!r->sending)
        settle(r);
}

const struct mip_radio_driver at86_radio_driver = { at86_transmit, at86_cca, at86_on, at86_off };

/* The frame that ended: PHR, PSDU, then (not read) LQI, ED and RX_STATUS. */
static void take_frame(struct at86_radio *r, mip_utime_t now)
{
    void *bus = r->bus;
    uint8_t n, i;
    bool crc_ok = (reg_read(bus, AT86_PHY_RSSI) & AT86_RX_CRC_VALID) != 0u;
    at86_board_select(bus, true);
    (void)at86_board_xfer(bus, AT86_CMD_FB_READ);
    n = at86_board_xfer(bus, 0);
    if (n < 5u || n > sizeof(r->buf)) {
        /* shortest MPDU: an ACK, 3 bytes and the FCS */
        at86_board_select(bus, false);
        r->st.drop_len++;
        return;
    }
    for (i = 0; i < n; i++)
        r->buf[i] = at86_board_xfer(bus, 0);
    /* raising /SEL ends the read and, in RX_SAFE_MODE, frees the buffer */
    at86_board_select(bus, false);
    if (!crc_ok) {
        r->st.drop_crc++;
        return;
    }
    r->st.rx_frames++;
    mip_mac_radio_rx(r->mac, r->buf, (size_t)n - 2u, now);
}

bool at86_radio_poll(struct at86_radio *r)
{
    uint8_t irq;
    mip_utime_t now;
    if (!r->irq)
        return false;
    r->irq = 0u;                /* before the read: a later edge sets it again */
    irq = reg_read(r->bus, AT86_IRQ_STATUS);
    if (!(irq & AT86_IRQ_TRX_END))
        return false;
    r->st.irqs++;
    now = at86_board_now_us(r->bus);
    if (r->sending) {
        /* the chip is back in PLL_ON: to the state the MAC asked for */
        r->sending = false;
        settle(r);
        mip_mac_radio_tx_done(r->mac, now);
    } else {
        take_frame(r, now);
    }
    return true;
}
