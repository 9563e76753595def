/*
 * The board interface of the shared SLIP node (slip_node.c): what a port
 * whose only link is a serial line provides. Each such port has a board.h
 * that defines `struct board_clock` (its tick counter extended to
 * milliseconds), BOARD_UART_RX_RING, STACK_PAINT, and then includes this
 * file; slip_node.c includes the port's board.h.
 *
 * Interrupt context: only the port's UART and timer interrupts, which move
 * bytes into the receive ring or end a sleep (docs/PORTING.md). Everything
 * declared here is called from the main loop.
 */
#ifndef MOTEIP_PORT_COMMON_BOARD_API_H
#define MOTEIP_PORT_COMMON_BOARD_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "moteip/byte_ring.h"
#include "moteip/status.h"
#include "moteip/timer.h"

struct board_clock;

/* Starts the clock and the UART (receive interrupt on). */
void board_init(struct board_clock *c);

/* Milliseconds since board_init, wrapping at 2^32 like mip_time_t. Each
 * port says how often it must be read at least (its counter's wrap). */
mip_time_t board_now(struct board_clock *c);

/* Sleeps until `ms` have passed or the UART has something for the main
 * loop: a SLIP frame's end (MIP_SLIP_END), a half-full ring, or a stalled
 * one; returns at once if that is already so. Bytes of a frame still
 * arriving do not wake the loop (the receive interrupt keeps taking them):
 * a wake-up per byte would run mip_stack_poll a thousand times per KB.
 * ms 0: returns at once. A port may cap the sleep (so its clock extension
 * stays in step). */
void board_sleep(struct board_clock *c, uint32_t ms);

/* n bytes of seed for mip_stack_init: from the chip's RNG, or the port's
 * documented seed source. Returns false when it fell back to a weaker one. */
bool board_entropy(uint8_t *out, size_t n);

/* The SLIP netif's sink: sends bytes on the UART, waiting for each
 * (bounded; MIP_ERR_NOBUFS when the UART does not take a byte). */
mip_status board_uart_write(void *ctx, const uint8_t *bytes, size_t len);

/* The receive ring the UART interrupt fills; asking for it re-arms the
 * wake-up of board_sleep, so drain it after. Read it with
 * mip_byte_ring_peek/consume, then call board_uart_rx_resume(): a full ring
 * stops the interrupt, and the UART (or the emulator behind it) holds the
 * further bytes, as RTS/CTS flow control would on silicon. */
struct mip_byte_ring *board_uart_rx(void);
void board_uart_rx_resume(void);

/* Bytes the UART reported lost (overrun, framing, parity, break). */
uint32_t board_uart_errors(void);

#endif
