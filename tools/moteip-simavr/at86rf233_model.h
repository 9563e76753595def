/*
 * A register-level model of the AT86RF233 transceiver, as a test fixture:
 * what port/avr/at86rf233.c (and any driver written against the
 * datasheet, Atmel-8351) sees through SPI and the IRQ pin. The model is
 * plain C with time passed in (µs), so the unit test drives it from a
 * scripted clock and a simavr SPI peripheral can drive it from the AVR's
 * cycle count. Its air side is a callback (a frame whose SHR starts now)
 * and at86m_air_rx (a frame arriving): ZEP datagrams in moteip-simavr.
 *
 * Modelled (datasheet section):
 *   - SPI (6.3): register read/write with PHY_STATUS as the first byte
 *     back (SPI_CMD_MODE 0), frame buffer read (PHR, PSDU, LQI, ED,
 *     RX_STATUS) and write (PHR, PSDU); /SEL frames each access;
 *   - basic-mode states (7.1): P_ON, TRX_OFF, PLL_ON, RX_ON, BUSY_RX,
 *     BUSY_TX, with STATE_TRANSITION_IN_PROGRESS for the 80 us of
 *     TRX_OFF -> PLL_ON/RX_ON (tTR4, tTR6), 1 us RX_ON <-> PLL_ON taken
 *     as instant, 16 us from TX_START to the SHR (tTR10), airtime
 *     32 us per byte of SHR, PHR and PSDU; FORCE_TRX_OFF and FORCE_PLL_ON
 *     abort a reception; PLL_ON or RX_ON given while BUSY_RX waits for the
 *     frame's end, while BUSY_TX for the transmission's;
 *   - TX_AUTO_CRC_ON (TRX_CTRL_1): the last two PSDU bytes sent are the
 *     FCS the model computes; off, they are sent as written;
 *   - reception: only in RX_ON, on the channel of PHY_CC_CCA; a frame that
 *     starts while another is being received corrupts it (no capture) and
 *     is not received; PHY_RSSI.RX_CRC_VALID and RX_STATUS say whether the
 *     FCS checked; RX_SAFE_MODE (TRX_CTRL_2) keeps a received frame until
 *     the frame buffer is read (later frames are not received meanwhile);
 *   - IRQ_STATUS (TRX_END, RX_START, CCA_ED_DONE, PLL_LOCK) cleared by
 *     reading it; the IRQ pin high while a bit of IRQ_MASK is pending
 *     (IRQ_POLARITY 0);
 *   - CCA (9.5) on CCA_REQUEST in RX_ON: 128 us; busy when a frame was on
 *     the air (being received, or heard at all on the channel) during the
 *     window; CCA_DONE and CCA_STATUS in TRX_STATUS; any CCA mode reads
 *     as energy detection.
 *
 * Left out (a driver that needs them would find the model silent):
 *   - the extended operating mode (RX_AACK_ON, TX_ARET_ON: automatic ACK,
 *     CSMA-CA and retries), frame filtering, TRAC_STATUS;
 *   - SLEEP and DEEP_SLEEP (the SLP_TR pin), RESET's pin, CLKM;
 *   - SRAM access commands (0x00 / 0x40), the frame buffer underrun
 *     (TRX_UR), AMI, BAT_LOW, PLL_UNLOCK, antenna diversity, the random
 *     number generator, AES, high data rates (OQPSK_DATA_RATE > 0);
 *   - RSSI, ED and LQI values (read as 0, 0 and 0xFF), transmit power;
 *   - TRX_OFF given while busy is taken as FORCE_TRX_OFF (the frame is
 *     cut off); this driver sends FORCE_TRX_OFF anyway;
 *   - reset values of registers other than the identity, PHY_CC_CCA
 *     (channel 11, CCA mode 1) and TRX_CTRL_1 (0): they read 0.
 */
#ifndef MOTEIP_TOOLS_SIMAVR_AT86RF233_MODEL_H
#define MOTEIP_TOOLS_SIMAVR_AT86RF233_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AT86M_NEVER UINT64_MAX
#define AT86M_PSDU_MAX 127u

struct at86m_stats {
    uint64_t spi_bytes;
    uint64_t tx_frames;         /* frames put on the air */
    uint64_t rx_frames;         /* frames received into the buffer (good FCS or not) */
    uint64_t rx_collided;       /* a second frame overlapped: both lost */
    uint64_t rx_missed_state;   /* arrived while not in RX_ON */
    uint64_t rx_missed_locked;  /* arrived while RX_SAFE_MODE held the last frame */
    uint64_t bad_commands;      /* a TRX_CMD its state does not take */
};

/* A duration's count, least, greatest and sum, µs. */
struct at86m_span {
    uint64_t n, min, max, sum;
};

/* What the driver and the MAC above it did, timed at the chip's pins:
 * the figures docs/BENCHMARKS.md reports for the emulated AVR. */
struct at86m_timing {
    struct at86m_span ack_turnaround;   /* a frame received (TRX_END) -> the SHR of
                                           the 5-byte frame (an ACK) sent next */
    struct at86m_span cca_to_tx;        /* a CCA requested -> the SHR of the next
                                           data frame (CCA, turnaround, driver) */
    struct at86m_span tx_to_rx_on;      /* a transmission's end -> RX_ON again */
    struct at86m_span rx_on_periods;    /* RX_ON (or its transition) -> TRX_OFF,
                                           without a frame received: a duty-cycled
                                           MAC's channel checks */
};

struct at86m {
    uint64_t now;               /* µs, set by at86m_advance */
    uint8_t reg[64];
    uint8_t state;              /* TRX_STATUS 4:0 */
    uint8_t irq_status;
    bool irq_pin;
    /* the SPI access in progress */
    bool selected;
    uint16_t pos;               /* bytes of this access so far */
    uint8_t cmd;
    bool fb_read;               /* this access read the frame buffer */
    /* the frame buffer: PHR, PSDU */
    uint8_t fb_len;
    uint8_t fb[AT86M_PSDU_MAX];
    bool fb_locked;             /* RX_SAFE_MODE: a received frame not yet read */
    bool fb_crc_ok;
    /* timed changes (AT86M_NEVER: none) */
    uint64_t trans_due;         /* end of STATE_TRANSITION_IN_PROGRESS ... */
    uint8_t trans_to;           /* ... into this state */
    uint8_t after_busy;         /* a TRX_CMD waiting for BUSY_RX/BUSY_TX to end (0: none) */
    uint64_t shr_due;           /* TX_START -> the SHR goes on the air */
    uint64_t tx_end;
    uint64_t rx_end;
    bool rx_corrupt;
    uint8_t rx_len;
    uint8_t rx_buf[AT86M_PSDU_MAX];
    uint64_t cca_due;
    uint64_t cca_start;
    uint64_t air_until;         /* the channel carries a frame until then */
    /* the air side and the pin */
    void (*air_tx)(void *ctx, const uint8_t *psdu, uint8_t len, uint8_t channel, uint64_t now);
    void (*irq_changed)(void *ctx, bool level);
    void *ctx;
    struct at86m_stats st;
    struct at86m_timing tm;
    uint64_t last_rx_end, last_cca, last_tx_end, on_since;
    bool ack_due, cca_seen, tx_ended, on, rx_in_on;
};

/* Power-on: P_ON, identity registers (PART_NUM 0x0B, VERSION_NUM 0x01,
 * MAN_ID 0x001F), PHY_CC_CCA at channel 11, CCA mode 1. */
void at86m_init(struct at86m *m, void *ctx);
/* Runs every timed change due at or before now (transitions, the SHR, a
 * frame's end, a CCA's end), in time order. Call before each SPI access
 * and whenever at86m_next_due falls due. */
void at86m_advance(struct at86m *m, uint64_t now);
uint64_t at86m_next_due(const struct at86m *m);
/* /SEL low (true) starts an access, high ends it. */
void at86m_select(struct at86m *m, bool selected);
/* One SPI byte: MOSI in, MISO returned. */
uint8_t at86m_xfer(struct at86m *m, uint8_t mosi);
/* A frame from the air whose SHR starts now (psdu with its FCS). */
void at86m_air_rx(struct at86m *m, const uint8_t *psdu, uint8_t len, uint8_t channel);
/* Air time of a PSDU of len bytes with its 6-byte SHR + PHR, µs. */
uint64_t at86m_airtime(uint8_t len);

#endif
