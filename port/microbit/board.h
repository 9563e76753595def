/*
 * The micro:bit's drivers, as the shared SLIP node (port/common/slip_node.c)
 * uses them (port/common/board_api.h): a millisecond clock and
 * a sleep on TIMER0, entropy from the RNG, the UART (115200 8N1 on the
 * interface chip's USB serial) with interrupt-driven receive into a ring.
 *
 * What runs in interrupt context: UART0_IRQHandler (moves received bytes
 * into the ring) and TIMER0_IRQHandler (clears the compare event that ends
 * a sleep). Nothing else: the stack runs in the main loop only.
 *
 * The port's globals (docs/PORTING.md): the vector table (const, flash),
 * and the receive ring with its buffer and its stalled flag, shared with
 * the UART interrupt.
 */
#ifndef MOTEIP_PORT_MICROBIT_BOARD_H
#define MOTEIP_PORT_MICROBIT_BOARD_H

#include <stdint.h>
#include "moteip/timer.h"

/* The reset handler fills unused RAM with this word (startup.c). */
#define STACK_PAINT 0xA5C3A5C3u

/* Bytes of the UART receive ring: a power of two. */
#ifndef BOARD_UART_RX_RING
#define BOARD_UART_RX_RING 256u
#endif

/* Milliseconds from TIMER0 (1 MHz, 32 bits; port/common/tick_clock.h).
 * Read it at least once an hour (the counter wraps after 71 minutes;
 * board_sleep never sleeps longer than a minute). */
#include "tick_clock.h"

#include "board_api.h"

#endif
