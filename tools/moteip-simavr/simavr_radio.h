/*
 * moteip-simavr --at86rf233 LOCAL,REMOTE: the AT86RF233 model
 * (at86rf233_model.h) on the emulated ATmega1284P's SPI (SPDR), /SEL on PB4
 * and its IRQ pin on PD2 (INT0), its air on ZEP datagrams between LOCAL
 * (bound) and REMOTE (docs/ZEP.md). The pins are the radio firmware's
 * (port/avr/board.h).
 *
 * SPI: simavr 1.6 completes a master's byte 100 us after SPDR is written;
 * the model answers at once instead (a byte takes 0 cycles where the
 * firmware's F_CPU / 2 SPI takes 16): the firmware's SPI time is
 * under-counted by 1 us per byte.
 */
#ifndef MOTEIP_TOOLS_SIMAVR_RADIO_H
#define MOTEIP_TOOLS_SIMAVR_RADIO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <sim_avr.h>

#include "at86rf233_model.h"

struct simavr_radio {
    avr_t *avr;
    struct at86m m;
    int fd;                             /* -1: no radio */
    struct sockaddr_storage remote;
    socklen_t remote_len;
    uint32_t seq;
    avr_irq_t *irq_pin;                 /* PD2 (INT0) */
    avr_irq_t *spi_in;                  /* SPI_IRQ_INPUT: MISO into SPDR */
    uint64_t zep_in, zep_out, zep_drop, zep_send_errors;
};

/* Attaches the model to avr; spec "LOCAL,REMOTE" (address:port each).
 * 0, or -1 with a message in err. */
int simavr_radio_open(struct simavr_radio *sr, avr_t *avr, const char *spec, char *err,
                      size_t errlen);
/* Reads the ZEP datagrams waiting into the model's air. */
void simavr_radio_input(struct simavr_radio *sr);
/* ", \"radio\": {...}" for the runner's stats JSON into s (cap bytes). */
int simavr_radio_stats(const struct simavr_radio *sr, char *s, size_t cap);

#endif
