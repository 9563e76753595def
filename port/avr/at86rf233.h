/*
 * AT86RF233 (Atmel/Microchip 2.4 GHz IEEE 802.15.4 transceiver, TCPlp's
 * radio on the Hamilton/Firestorm boards) behind include/moteip/radio.h,
 * over SPI. Written against the AT86RF233 datasheet (Atmel-8351): the SPI
 * protocol (sec. 6.3), the basic operating mode's state machine (sec. 7.1),
 * the frame buffer (sec. 11.7), CCA (sec. 9.5) and the register summary
 * (sec. 14). docs/PORTING.md, "Boards with an 802.15.4 radio", says how it
 * meets the MAC's deadlines.
 *
 * Choices:
 *   - basic operating mode (TRX_OFF / RX_ON / PLL_ON / BUSY_RX / BUSY_TX):
 *     moteip's MAC does CSMA-CA, retries, link ACKs and the RDCs itself,
 *     so they run the same on every radio; the extended mode's
 *     RX_AACK_ON / TX_ARET_ON (the chip's ACKs and CSMA) are not used;
 *   - TX_AUTO_CRC_ON: the chip appends the FCS (radio.h: frames cross the
 *     interface without it); a received frame is taken only when
 *     PHY_RSSI.RX_CRC_VALID says its FCS was good;
 *   - RX_SAFE_MODE: a received frame stays in the frame buffer until it has
 *     been read, so a second frame cannot overwrite it mid-read;
 *   - one interrupt, TRX_END; the interrupt only sets a flag
 *     (at86_radio_irq), the main loop reads IRQ_STATUS in at86_radio_poll;
 *   - CCA: the chip's CCA mode 1 (energy above threshold), requested in
 *     cca() and waited for (8 symbols, 128 us).
 *
 * The board supplies the SPI bus and the µs clock through the four
 * at86_board_* functions (one board per firmware; `bus` tells chips apart
 * on a board with several, and the unit test's two models).
 */
#ifndef MOTEIP_PORT_AVR_AT86RF233_H
#define MOTEIP_PORT_AVR_AT86RF233_H

#include <stdbool.h>
#include <stdint.h>

#include "moteip/mac.h"
#include "moteip/radio.h"

/* SPI command bytes (sec. 6.3): the first byte of each access. */
#define AT86_CMD_REG_READ   0x80u       /* | address (6 bits) */
#define AT86_CMD_REG_WRITE  0xC0u       /* | address */
#define AT86_CMD_FB_READ    0x20u
#define AT86_CMD_FB_WRITE   0x60u
#define AT86_CMD_SRAM_READ  0x00u
#define AT86_CMD_SRAM_WRITE 0x40u

/* Registers (sec. 14) the driver uses. */
#define AT86_TRX_STATUS     0x01u       /* 7 CCA_DONE, 6 CCA_STATUS, 4:0 TRX_STATUS */
#define AT86_TRX_STATE      0x02u       /* 7:5 TRAC_STATUS, 4:0 TRX_CMD */
#define AT86_TRX_CTRL_1     0x04u       /* 5 TX_AUTO_CRC_ON */
#define AT86_PHY_RSSI       0x06u       /* 7 RX_CRC_VALID, 4:0 RSSI */
#define AT86_PHY_CC_CCA     0x08u       /* 7 CCA_REQUEST, 6:5 CCA_MODE, 4:0 CHANNEL */
#define AT86_TRX_CTRL_2     0x0Cu       /* 7 RX_SAFE_MODE, 2:0 OQPSK_DATA_RATE */
#define AT86_IRQ_MASK       0x0Eu
#define AT86_IRQ_STATUS     0x0Fu       /* cleared by reading it */
#define AT86_PART_NUM       0x1Cu       /* 0x0B: AT86RF233 */
#define AT86_VERSION_NUM    0x1Du
#define AT86_MAN_ID_0       0x1Eu       /* 0x1F: Atmel's JEDEC id */
#define AT86_SHORT_ADDR_0   0x20u
#define AT86_PAN_ID_0       0x22u
#define AT86_IEEE_ADDR_0    0x24u       /* ... 0x2B */

#define AT86_PART_NUM_233   0x0Bu
#define AT86_MAN_ID_ATMEL   0x1Fu

/* TRX_STATUS values (sec. 7.1.5): states of the basic mode, and the
 * extended mode's (which this driver does not enter). */
#define AT86_P_ON           0x00u
#define AT86_BUSY_RX        0x01u
#define AT86_BUSY_TX        0x02u
#define AT86_RX_ON          0x06u
#define AT86_TRX_OFF        0x08u
#define AT86_PLL_ON         0x09u
#define AT86_SLEEP          0x0Fu
#define AT86_BUSY_RX_AACK   0x11u
#define AT86_BUSY_TX_ARET   0x12u
#define AT86_RX_AACK_ON     0x16u
#define AT86_TX_ARET_ON     0x19u
#define AT86_IN_TRANSITION  0x1Fu       /* STATE_TRANSITION_IN_PROGRESS */

/* TRX_CMD values written to TRX_STATE. */
#define AT86_CMD_NOP        0x00u
#define AT86_CMD_TX_START   0x02u
#define AT86_CMD_FORCE_TRX_OFF 0x03u
#define AT86_CMD_FORCE_PLL_ON  0x04u
#define AT86_CMD_RX_ON      0x06u
#define AT86_CMD_TRX_OFF    0x08u
#define AT86_CMD_PLL_ON     0x09u

/* Bits. */
#define AT86_CCA_DONE       0x80u       /* TRX_STATUS */
#define AT86_CCA_STATUS     0x40u       /* TRX_STATUS: 1 idle */
#define AT86_TX_AUTO_CRC_ON 0x20u       /* TRX_CTRL_1 */
#define AT86_RX_CRC_VALID   0x80u       /* PHY_RSSI */
#define AT86_CCA_REQUEST    0x80u       /* PHY_CC_CCA */
#define AT86_CCA_MODE_1     0x20u       /* PHY_CC_CCA 6:5 = 1: energy above threshold */
#define AT86_RX_SAFE_MODE   0x80u       /* TRX_CTRL_2 */
#define AT86_IRQ_TRX_END    0x08u       /* IRQ_MASK, IRQ_STATUS */
#define AT86_IRQ_RX_START   0x04u
#define AT86_IRQ_PLL_LOCK   0x01u

/* Timing the driver waits for (datasheet sec. 7.1.7, state transition
 * timing): TRX_OFF -> PLL_ON or RX_ON takes tTR4/tTR6 (80 us typ.); the
 * driver allows twice that before it gives up; a CCA lasts 8 symbols. */
#define AT86_T_PLL_US       160u
#define AT86_T_CCA_US       140u        /* 128 us measurement + margin */

struct at86_stats {
    uint32_t rx_frames;         /* handed to the MAC */
    uint32_t drop_crc;          /* RX_CRC_VALID clear: a bad FCS */
    uint32_t drop_len;          /* a PHR under 5 or over 127 */
    uint32_t tx_frames;         /* TX_START given */
    uint32_t tx_state_errors;   /* PLL_ON not reached: the frame was refused */
    uint32_t cca_timeouts;      /* CCA_DONE never came: read as busy */
    uint32_t irqs;              /* TRX_END interrupts taken in poll */
};

struct at86_radio {
    void *bus;                  /* the board's (at86_board_*) */
    struct mip_mac *mac;
    volatile uint8_t irq;       /* set by the board's interrupt handler only */
    bool on;                    /* the receiver state the MAC last asked for */
    bool sending;
    uint8_t channel;            /* 11..26 */
    struct at86_stats st;
    uint8_t buf[127];           /* one received PSDU (aMaxPHYPacketSize) */
};

/* The board's side (implemented by the board or the unit test). */
void at86_board_select(void *bus, bool selected);      /* /SEL low while true */
uint8_t at86_board_xfer(void *bus, uint8_t out);       /* one SPI byte each way */
mip_utime_t at86_board_now_us(void *bus);
void at86_board_delay_us(void *bus, uint16_t us);      /* a busy wait */

/* The driver table (radio.h); its ctx is a struct at86_radio. */
extern const struct mip_radio_driver at86_radio_driver;

/* Checks the chip's identity (PART_NUM, MAN_ID_0), forces TRX_OFF and
 * sets it up: automatic FCS, RX_SAFE_MODE, the TRX_END interrupt, the
 * channel and the address filter registers (unused in basic mode; set so
 * a later extended mode finds them). NOTFOUND when no AT86RF233 answers,
 * INVALID for a channel outside 11..26. */
mip_status at86_radio_init(struct at86_radio *r, void *bus, uint8_t channel, uint16_t pan_id,
                           uint16_t short_addr, const uint8_t ext_addr[8]);
/* The MAC told of frames and of transmissions' ends: set before mip_mac_init. */
void at86_radio_attach(struct at86_radio *r, struct mip_mac *mac);

/* The interrupt handler's whole job (the IRQ pin rose). */
static inline void at86_radio_irq(struct at86_radio *r)
{
    r->irq = 1u;
}

/* From the main loop: when the flag is set, reads IRQ_STATUS and ends a
 * transmission (mip_mac_radio_tx_done) or reads a received frame
 * (mip_mac_radio_rx). Returns whether it did anything (then poll the MAC). */
bool at86_radio_poll(struct at86_radio *r);

#endif
