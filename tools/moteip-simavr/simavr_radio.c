/*
 * The AT86RF233 model on the emulated board (simavr_radio.h).
 */
#define _GNU_SOURCE
#include "simavr_radio.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <avr_ioport.h>
#include <avr_spi.h>
#include <sim_cycle_timers.h>
#include <sim_io.h>

#include "moteip/wire/ieee802154.h"
#include "moteip/wire/zep.h"
#include "zep_radio.h"

#define SPDR_ADDR 0x4Eu                 /* ATmega1284P: SPDR at I/O 0x2E */
#define NTP_UNIX_OFFSET 2208988800u

static uint64_t now_us(const struct simavr_radio *sr)
{
    return (uint64_t)sr->avr->cycle * 1000000u / sr->avr->frequency;
}

static avr_cycle_count_t on_due(avr_t *avr, avr_cycle_count_t when, void *param);

/* The model's next timed change as a cycle timer. */
static void arm(struct simavr_radio *sr)
{
    uint64_t due = at86m_next_due(&sr->m), now = now_us(sr);
    avr_cycle_timer_cancel(sr->avr, on_due, sr);
    if (due == AT86M_NEVER)
        return;
    avr_cycle_timer_register(sr->avr,
                             due > now ? (avr_cycle_count_t)((due - now) * sr->avr->frequency /
                                                             1000000u) + 1u
                                       : 1u,
                             on_due, sr);
}

static avr_cycle_count_t on_due(avr_t *avr, avr_cycle_count_t when, void *param)
{
    struct simavr_radio *sr = param;
    (void)avr;
    (void)when;
    at86m_advance(&sr->m, now_us(sr));
    arm(sr);
    return 0;
}

static void spdr_written(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
    struct simavr_radio *sr = param;
    uint8_t miso;
    (void)avr;
    (void)addr;
    at86m_advance(&sr->m, now_us(sr));
    miso = at86m_xfer(&sr->m, v);
    avr_raise_irq(sr->spi_in, miso);    /* SPDR holds MISO, SPIF set */
    arm(sr);
}

static void sel_changed(avr_irq_t *irq, uint32_t value, void *param)
{
    struct simavr_radio *sr = param;
    (void)irq;
    at86m_advance(&sr->m, now_us(sr));
    at86m_select(&sr->m, value == 0u);  /* /SEL is active low */
    arm(sr);
}

static void irq_changed(void *ctx, bool level)
{
    struct simavr_radio *sr = ctx;
    avr_raise_irq(sr->irq_pin, level ? 1u : 0u);
}

static void air_tx(void *ctx, const uint8_t *psdu, uint8_t len, uint8_t ch, uint64_t at)
{
    struct simavr_radio *sr = ctx;
    struct mip_zep_hdr h;
    uint8_t d[MIP_ZEP_V2_HDR_LEN + MIP_ZEP_FRAME_MAX];
    size_t n;
    if (len < 2u)
        return;
    memset(&h, 0, sizeof(h));
    h.channel = ch;
    h.device_id = (uint16_t)(sr->m.reg[0x20] | sr->m.reg[0x21] << 8);   /* SHORT_ADDR */
    h.crc_mode = true;
    h.lqi = 0xFF;
    h.ntp_seconds = (uint32_t)(NTP_UNIX_OFFSET + at / 1000000u);       /* emulated time */
    h.ntp_fraction = (uint32_t)(((at % 1000000u) << 32) / 1000000u);
    h.seq = sr->seq++;
    if (mip_zep_emit(&h, psdu, (size_t)len - 2u, d, sizeof(d), &n) != MIP_OK)
        return;
    if (sendto(sr->fd, d, n, 0, (struct sockaddr *)&sr->remote, sr->remote_len) < 0)
        sr->zep_send_errors++;
    else
        sr->zep_out++;
}

int simavr_radio_open(struct simavr_radio *sr, avr_t *avr, const char *spec, char *err,
                      size_t errlen)
{
    const char *comma = strchr(spec, ',');
    struct sockaddr_storage local;
    socklen_t ll;
    memset(sr, 0, sizeof(*sr));
    sr->fd = -1;
    sr->avr = avr;
    if (comma == NULL) {
        snprintf(err, errlen, "--at86rf233 takes LOCAL,REMOTE, not '%s'", spec);
        return -1;
    }
    if (zep_parse_endpoint(spec, (size_t)(comma - spec), &local, &ll, err, errlen) != 0 ||
        zep_parse_endpoint(comma + 1, strlen(comma + 1), &sr->remote, &sr->remote_len, err,
                           errlen) != 0)
        return -1;
    sr->fd = socket(local.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (sr->fd < 0 || bind(sr->fd, (struct sockaddr *)&local, ll) != 0) {
        snprintf(err, errlen, "--at86rf233: bind %.*s: %s", (int)(comma - spec), spec,
                 strerror(errno));
        return -1;
    }
    sr->m.air_tx = air_tx;
    sr->m.irq_changed = irq_changed;
    at86m_init(&sr->m, sr);
    sr->irq_pin = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), 2);
    sr->spi_in = avr_io_getirq(avr, AVR_IOCTL_SPI_GETIRQ(0), SPI_IRQ_INPUT);
    if (sr->irq_pin == NULL || sr->spi_in == NULL) {
        snprintf(err, errlen, "--at86rf233: this MCU has no SPI or no port B");
        return -1;
    }
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 4), sel_changed, sr);
    avr_register_io_write(avr, SPDR_ADDR, spdr_written, sr);
    return 0;
}

void simavr_radio_input(struct simavr_radio *sr)
{
    uint8_t d[512];
    ssize_t got;
    while (sr->fd >= 0 && (got = recv(sr->fd, d, sizeof(d), 0)) >= 0) {
        struct mip_zep_hdr h;
        const uint8_t *frame;
        uint8_t psdu[AT86M_PSDU_MAX];
        if (mip_zep_parse(d, (size_t)got, &h, &frame) != MIP_OK || frame == NULL ||
            !zep_frame_ok(&h, frame) || h.frame_len > AT86M_PSDU_MAX) {
            sr->zep_drop++;
            continue;
        }
        memcpy(psdu, frame, h.frame_len);
        if (!h.crc_mode) {
            /* LQI mode: the status bytes stand where the FCS was */
            uint16_t fcs = mip_ieee802154_fcs(psdu, (size_t)h.frame_len - 2u);
            psdu[h.frame_len - 2u] = (uint8_t)fcs;
            psdu[h.frame_len - 1u] = (uint8_t)(fcs >> 8);
        }
        sr->zep_in++;
        at86m_advance(&sr->m, now_us(sr));
        at86m_air_rx(&sr->m, psdu, h.frame_len, h.channel);
        arm(sr);
    }
}

static int span_json(char *s, size_t cap, const char *name, const struct at86m_span *v)
{
    return snprintf(s, cap, ", \"%s\": {\"n\": %" PRIu64 ", \"min_us\": %" PRIu64
                    ", \"max_us\": %" PRIu64 ", \"mean_us\": %.1f}", name, v->n, v->min, v->max,
                    v->n ? (double)v->sum / (double)v->n : 0.0);
}

int simavr_radio_stats(const struct simavr_radio *sr, char *s, size_t cap)
{
    const struct at86m_stats *st = &sr->m.st;
    const struct at86m_timing *tm = &sr->m.tm;
    int n = 0, k;
    k = snprintf(s, cap,
                    ", \"radio\": {\"zep_in\": %" PRIu64 ", \"zep_out\": %" PRIu64
                    ", \"zep_drop\": %" PRIu64 ", \"zep_send_errors\": %" PRIu64
                    ", \"spi_bytes\": %" PRIu64 ", \"tx_frames\": %" PRIu64
                    ", \"rx_frames\": %" PRIu64 ", \"rx_collided\": %" PRIu64
                    ", \"rx_missed_state\": %" PRIu64 ", \"rx_missed_locked\": %" PRIu64
                    ", \"bad_commands\": %" PRIu64 "}",
                    sr->zep_in, sr->zep_out, sr->zep_drop, sr->zep_send_errors, st->spi_bytes,
                    st->tx_frames, st->rx_frames, st->rx_collided, st->rx_missed_state,
                    st->rx_missed_locked, st->bad_commands);
    if (k < 0 || (size_t)k >= cap)
        return 0;
    n = k - 1;                          /* the object stays open for the spans */
    n += span_json(s + n, cap - (size_t)n, "ack_turnaround", &tm->ack_turnaround);
    n += span_json(s + n, cap - (size_t)n, "cca_to_tx", &tm->cca_to_tx);
    n += span_json(s + n, cap - (size_t)n, "tx_to_rx_on", &tm->tx_to_rx_on);
    n += span_json(s + n, cap - (size_t)n, "rx_on_periods", &tm->rx_on_periods);
    n += snprintf(s + n, cap - (size_t)n, "}");
    return n;
}
