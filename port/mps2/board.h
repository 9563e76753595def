/*
 * The MPS2 (AN385) board's clock, sleep and seed, for port/mps2/main.c.
 *
 * What runs in interrupt context: TIMER1_IRQHandler (ends a sleep) and
 * ETH_IRQHandler (acknowledges the LAN9118's receive interrupt, which ends
 * a sleep). Nothing else: the stack runs in the main loop only.
 */
#ifndef MOTEIP_PORT_MPS2_BOARD_H
#define MOTEIP_PORT_MPS2_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "moteip/timer.h"

/* The reset handler fills unused RAM with this word (startup.c). */
#define STACK_PAINT 0xA5C3A5C3u

/* Milliseconds from timer 0 (25 MHz, 32 bits, counting down, free
 * running; port/common/tick_clock.h). Read it at least every 171 s (the
 * counter's wrap; board_sleep never sleeps longer than a minute). */
#include "tick_clock.h"

/* Starts timer 0 and enables the timer 1 interrupt. */
void board_init(struct board_clock *c);

mip_time_t board_now(struct board_clock *c);

/* Sleeps (WFI) until `ms` have passed or a frame waits in the LAN9118;
 * returns at once if one does. ms 0: returns at once. */
void board_sleep(struct board_clock *c, uint32_t ms);

/* n bytes of seed: the 16-byte provisioning block at MPS2_SEED_ADDR
 * (written by QEMU's loader, as a production line would write a board's
 * flash; the board has no RNG). Returns false when the block is blank (all
 * zero): the seed is then the timer's ticks since boot, which differ from
 * run to run under QEMU but are guessable. */
bool board_entropy(uint8_t *out, size_t n);

#endif
