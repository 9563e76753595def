/*
 * The AT86RF233 model (at86rf233_model.h says what it models and what it
 * leaves out). Register addresses and values come from the driver's
 * transcription of the datasheet (port/avr/at86rf233.h), so both read one
 * register map.
 */
#include "at86rf233_model.h"

#include <string.h>

#include "at86rf233.h"
#include "moteip/wire/ieee802154.h"

#define T_TRX_OFF_TO_ON 80u     /* tTR4 (PLL_ON), tTR6 (RX_ON) */
#define T_TX_START 16u          /* tTR10: TX_START to the SHR */
#define T_CCA 128u              /* 8 symbols */
#define US_PER_BYTE 32u         /* 250 kb/s */
#define IRQ_CCA_ED_DONE 0x10u

static void span_add(struct at86m_span *s, uint64_t v)
{
    if (s->n == 0u || v < s->min)
        s->min = v;
    if (v > s->max)
        s->max = v;
    s->n++;
    s->sum += v;
}

/* The receiver's on-periods: from RX_ON (asked) to TRX_OFF. */
static void note_state(struct at86m *m, bool on)
{
    if (on && !m->on) {
        m->on = true;
        m->on_since = m->now;
        m->rx_in_on = false;
    } else if (!on && m->on) {
        m->on = false;
        if (!m->rx_in_on)
            span_add(&m->tm.rx_on_periods, m->now - m->on_since);
    }
}

uint64_t at86m_airtime(uint8_t len)
{
    return (uint64_t)(6u + len) * US_PER_BYTE;
}

static void irq_update(struct at86m *m)
{
    bool level = (m->irq_status & m->reg[AT86_IRQ_MASK]) != 0u;
    if (level != m->irq_pin) {
        m->irq_pin = level;
        if (m->irq_changed != NULL)
            m->irq_changed(m->ctx, level);
    }
}

static void irq_raise(struct at86m *m, uint8_t bit)
{
    m->irq_status |= bit;
    irq_update(m);
}

void at86m_init(struct at86m *m, void *ctx)
{
    void (*air_tx)(void *, const uint8_t *, uint8_t, uint8_t, uint64_t) = m->air_tx;
    void (*irq_changed)(void *, bool) = m->irq_changed;
    memset(m, 0, sizeof(*m));
    m->air_tx = air_tx;
    m->irq_changed = irq_changed;
    m->ctx = ctx;
    m->state = AT86_P_ON;
    m->reg[AT86_PART_NUM] = AT86_PART_NUM_233;
    m->reg[AT86_VERSION_NUM] = 0x01u;
    m->reg[AT86_MAN_ID_0] = AT86_MAN_ID_ATMEL;
    m->reg[AT86_PHY_CC_CCA] = (uint8_t)(AT86_CCA_MODE_1 | 11u);
    m->trans_due = m->shr_due = m->tx_end = m->rx_end = m->cca_due = AT86M_NEVER;
}

static uint8_t channel(const struct at86m *m)
{
    return (uint8_t)(m->reg[AT86_PHY_CC_CCA] & 0x1Fu);
}

/* A state change that takes no time, or 80 us out of TRX_OFF. */
static void go(struct at86m *m, uint8_t to)
{
    if (m->state == AT86_TRX_OFF && (to == AT86_PLL_ON || to == AT86_RX_ON)) {
        m->state = AT86_IN_TRANSITION;
        m->trans_to = to;
        m->trans_due = m->now + T_TRX_OFF_TO_ON;
        return;
    }
    m->state = to;
    if (to == AT86_PLL_ON)
        irq_raise(m, AT86_IRQ_PLL_LOCK);
}

/* A reception or transmission ends now or is cut off. */
static void abort_busy(struct at86m *m)
{
    m->rx_end = m->tx_end = m->shr_due = AT86M_NEVER;
    m->after_busy = 0;
}

static void command(struct at86m *m, uint8_t cmd)
{
    bool busy = m->state == AT86_BUSY_RX || m->state == AT86_BUSY_TX;
    switch (cmd) {
    case AT86_CMD_NOP:
        return;
    case AT86_CMD_FORCE_TRX_OFF:
    case AT86_CMD_TRX_OFF:
        /* the model takes TRX_OFF as FORCE_TRX_OFF in every state */
        note_state(m, false);
        abort_busy(m);
        m->trans_due = AT86M_NEVER;
        m->cca_due = AT86M_NEVER;
        m->state = AT86_TRX_OFF;
        return;
    case AT86_CMD_FORCE_PLL_ON:
        if (m->state == AT86_BUSY_RX || m->state == AT86_RX_ON || m->state == AT86_PLL_ON) {
            if (m->state == AT86_BUSY_RX)
                abort_busy(m);
            m->cca_due = AT86M_NEVER;
            go(m, AT86_PLL_ON);
            return;
        }
        if (m->state == AT86_TRX_OFF) {
            go(m, AT86_PLL_ON);
            return;
        }
        break;
    case AT86_CMD_PLL_ON:
    case AT86_CMD_RX_ON:
        if (busy) {
            m->after_busy = cmd;        /* after the frame (7.1.3, 7.1.4) */
            return;
        }
        if (m->state == AT86_TRX_OFF || m->state == AT86_PLL_ON || m->state == AT86_RX_ON ||
            m->state == AT86_P_ON) {
            if (m->state == AT86_P_ON)
                m->state = AT86_TRX_OFF;
            m->cca_due = AT86M_NEVER;
            if (cmd == AT86_CMD_RX_ON) {
                note_state(m, true);
                if (m->tx_ended) {
                    span_add(&m->tm.tx_to_rx_on, m->now - m->last_tx_end);
                    m->tx_ended = false;
                }
            }
            go(m, cmd == AT86_CMD_PLL_ON ? AT86_PLL_ON : AT86_RX_ON);
            return;
        }
        break;
    case AT86_CMD_TX_START:
        if (m->state == AT86_PLL_ON) {
            m->state = AT86_BUSY_TX;
            m->shr_due = m->now + T_TX_START;
            return;
        }
        break;
    default:
        break;
    }
    m->st.bad_commands++;
}

static uint8_t trx_status(const struct at86m *m)
{
    return (uint8_t)((m->reg[AT86_TRX_STATUS] & (AT86_CCA_DONE | AT86_CCA_STATUS)) | m->state);
}

static uint8_t reg_read(struct at86m *m, uint8_t a)
{
    uint8_t v;
    switch (a) {
    case AT86_TRX_STATUS:
        return trx_status(m);
    case AT86_IRQ_STATUS:
        v = m->irq_status;
        m->irq_status = 0;
        irq_update(m);
        return v;
    case AT86_PHY_RSSI:
        return m->fb_crc_ok ? AT86_RX_CRC_VALID : 0u;
    default:
        return m->reg[a & 0x3Fu];
    }
}

static void reg_write(struct at86m *m, uint8_t a, uint8_t v)
{
    a &= 0x3Fu;
    switch (a) {
    case AT86_TRX_STATUS:
    case AT86_PART_NUM:
    case AT86_VERSION_NUM:
    case AT86_MAN_ID_0:
    case AT86_MAN_ID_0 + 1u:
    case AT86_IRQ_STATUS:
    case AT86_PHY_RSSI:
        return;                         /* read-only */
    case AT86_TRX_STATE:
        m->reg[a] = (uint8_t)(v & 0x1Fu);
        command(m, (uint8_t)(v & 0x1Fu));
        return;
    case AT86_PHY_CC_CCA:
        m->reg[a] = (uint8_t)(v & 0x7Fu);
        if ((v & AT86_CCA_REQUEST) && m->state == AT86_RX_ON) {
            m->reg[AT86_TRX_STATUS] &= (uint8_t)~(AT86_CCA_DONE | AT86_CCA_STATUS);
            m->cca_start = m->now;
            m->cca_due = m->now + T_CCA;
            m->last_cca = m->now;
            m->cca_seen = true;
        }
        return;
    case AT86_IRQ_MASK:
        m->reg[a] = v;
        irq_update(m);
        return;
    default:
        m->reg[a] = v;
        return;
    }
}

void at86m_select(struct at86m *m, bool selected)
{
    if (!selected && m->selected && m->fb_read)
        m->fb_locked = false;           /* RX_SAFE_MODE: the frame was read */
    m->selected = selected;
    m->pos = 0;
    m->fb_read = false;
}

uint8_t at86m_xfer(struct at86m *m, uint8_t mosi)
{
    uint16_t p = m->pos++;
    m->st.spi_bytes++;
    if (!m->selected)
        return 0xFFu;                   /* MISO floats: nothing listens */
    if (p == 0u) {
        m->cmd = mosi;
        if ((mosi & 0xE0u) == AT86_CMD_FB_READ)
            m->fb_read = true;
        return trx_status(m);           /* PHY_STATUS, SPI_CMD_MODE 0 */
    }
    if ((m->cmd & 0xC0u) == AT86_CMD_REG_READ)
        return p == 1u ? reg_read(m, (uint8_t)(m->cmd & 0x3Fu)) : 0u;
    if ((m->cmd & 0xC0u) == AT86_CMD_REG_WRITE) {
        if (p == 1u)
            reg_write(m, (uint8_t)(m->cmd & 0x3Fu), mosi);
        return 0u;
    }
    if ((m->cmd & 0xE0u) == AT86_CMD_FB_READ) {
        /* PHR, PSDU, then LQI, ED, RX_STATUS (bit 7: CRC valid) */
        if (p == 1u)
            return m->fb_len;
        if (p - 2u < m->fb_len)
            return m->fb[p - 2u];
        if (p - 2u == m->fb_len)
            return 0xFFu;
        if (p - 2u == m->fb_len + 2u)
            return m->fb_crc_ok ? 0x80u : 0u;
        return 0u;
    }
    if ((m->cmd & 0xE0u) == AT86_CMD_FB_WRITE) {
        if (p == 1u)
            m->fb_len = (uint8_t)(mosi & 0x7Fu);
        else if (p - 2u < AT86M_PSDU_MAX)
            m->fb[p - 2u] = mosi;
        return 0u;
    }
    return 0u;                          /* SRAM access: not modelled */
}

/* The end of BUSY_RX / BUSY_TX: back to the state the chip returns to, or
 * the command that waited for it. */
static void busy_over(struct at86m *m, uint8_t back)
{
    uint8_t cmd = m->after_busy;
    m->after_busy = 0;
    m->state = back;
    if (cmd != 0u)
        command(m, cmd);
}

static void shr_start(struct at86m *m)
{
    uint8_t psdu[AT86M_PSDU_MAX];
    uint8_t n = m->fb_len;
    m->shr_due = AT86M_NEVER;
    if (n < 2u || n > AT86M_PSDU_MAX)
        n = n < 2u ? 2u : AT86M_PSDU_MAX;
    memcpy(psdu, m->fb, n);
    if (m->reg[AT86_TRX_CTRL_1] & AT86_TX_AUTO_CRC_ON) {
        uint16_t fcs = mip_ieee802154_fcs(psdu, (size_t)n - 2u);
        psdu[n - 2u] = (uint8_t)fcs;
        psdu[n - 1u] = (uint8_t)(fcs >> 8);
    }
    m->tx_end = m->now + at86m_airtime(n);
    m->st.tx_frames++;
    if (n == 5u && m->ack_due)
        span_add(&m->tm.ack_turnaround, m->now - m->last_rx_end);
    else if (n > 5u && m->cca_seen)
        span_add(&m->tm.cca_to_tx, m->now - m->last_cca);
    m->ack_due = false;
    m->cca_seen = false;
    if (m->air_tx != NULL)
        m->air_tx(m->ctx, psdu, n, channel(m), m->now);
}

static void rx_over(struct at86m *m)
{
    m->rx_end = AT86M_NEVER;
    busy_over(m, AT86_RX_ON);
    if (m->rx_corrupt)
        return;                         /* lost in a collision: no TRX_END */
    memcpy(m->fb, m->rx_buf, m->rx_len);
    m->fb_len = m->rx_len;
    m->fb_crc_ok = m->rx_len >= 2u &&
                   mip_ieee802154_fcs(m->rx_buf, (size_t)m->rx_len - 2u) ==
                       (uint16_t)(m->rx_buf[m->rx_len - 2u] | m->rx_buf[m->rx_len - 1u] << 8);
    m->fb_locked = (m->reg[AT86_TRX_CTRL_2] & AT86_RX_SAFE_MODE) != 0u;
    m->st.rx_frames++;
    m->last_rx_end = m->now;
    m->ack_due = m->fb_crc_ok && m->rx_len > 5u && (m->rx_buf[0] & 0x20u) != 0u;
    m->rx_in_on = true;
    irq_raise(m, AT86_IRQ_TRX_END);
}

uint64_t at86m_next_due(const struct at86m *m)
{
    uint64_t d = m->trans_due;
    if (m->shr_due < d)
        d = m->shr_due;
    if (m->tx_end < d)
        d = m->tx_end;
    if (m->rx_end < d)
        d = m->rx_end;
    if (m->cca_due < d)
        d = m->cca_due;
    return d;
}

void at86m_advance(struct at86m *m, uint64_t now)
{
    uint64_t d;
    while ((d = at86m_next_due(m)) <= now) {
        m->now = d;
        if (d == m->trans_due) {
            m->trans_due = AT86M_NEVER;
            m->state = m->trans_to;
            if (m->state == AT86_PLL_ON)
                irq_raise(m, AT86_IRQ_PLL_LOCK);
        } else if (d == m->shr_due) {
            shr_start(m);
        } else if (d == m->tx_end) {
            m->tx_end = AT86M_NEVER;
            m->last_tx_end = d;
            m->tx_ended = true;
            busy_over(m, AT86_PLL_ON);
            irq_raise(m, AT86_IRQ_TRX_END);
        } else if (d == m->rx_end) {
            rx_over(m);
        } else {
            bool busy = m->air_until > m->cca_start || m->state == AT86_BUSY_RX;
            m->cca_due = AT86M_NEVER;
            m->reg[AT86_TRX_STATUS] = (uint8_t)(AT86_CCA_DONE | (busy ? 0u : AT86_CCA_STATUS));
            irq_raise(m, IRQ_CCA_ED_DONE);
        }
    }
    if (now > m->now)
        m->now = now;
}

void at86m_air_rx(struct at86m *m, const uint8_t *psdu, uint8_t len, uint8_t ch)
{
    uint64_t end = m->now + at86m_airtime(len);
    if (ch != channel(m))
        return;                         /* another channel: not even energy */
    if (end > m->air_until)
        m->air_until = end;
    if (m->state == AT86_BUSY_RX) {
        m->rx_corrupt = true;           /* overlapped: no capture */
        m->st.rx_collided++;
        if (end > m->rx_end)
            m->rx_end = end;
        return;
    }
    if (m->state != AT86_RX_ON || len > AT86M_PSDU_MAX) {
        m->st.rx_missed_state++;
        return;
    }
    if (m->fb_locked) {
        m->st.rx_missed_locked++;
        return;
    }
    m->state = AT86_BUSY_RX;
    m->rx_corrupt = false;
    m->rx_len = len;
    memcpy(m->rx_buf, psdu, len);
    m->rx_end = end;
    irq_raise(m, AT86_IRQ_RX_START);
}
