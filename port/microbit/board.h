/*
 * The micro:bit's drivers, as main.c uses them: a millisecond clock and
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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "moteip/byte_ring.h"
#include "moteip/status.h"
#include "moteip/timer.h"

/* The reset handler fills unused RAM with this word (startup.c). */
#define STACK_PAINT 0xA5C3A5C3u

/* Bytes of the UART receive ring: a power of two. */
#ifndef BOARD_UART_RX_RING
#define BOARD_UART_RX_RING 256u
#endif

/* Milliseconds from TIMER0 (1 MHz, 32 bits): the chip's ticks extended to
 * a millisecond count that wraps at 2^32 like mip_time_t. Read it at least
 * once an hour (board_sleep never sleeps longer than a minute). */
struct board_clock {
    uint32_t last_ticks;   /* counter at the previous read */
    uint32_t rem_us;       /* microseconds not yet counted as a millisecond */
    mip_time_t ms;
};

/* Starts TIMER0 and the UART (receive interrupt on). */
void board_init(struct board_clock *c);

mip_time_t board_now(struct board_clock *c);

/* Sleeps (WFI) until `ms` have passed or an interrupt arrived; returns at
 * once when received bytes wait in the ring. ms 0: returns at once. */
void board_sleep(struct board_clock *c, uint32_t ms);

/* n bytes from the RNG peripheral (bias correction on). If the RNG gives
 * no value within its bound (it always does, on silicon and in QEMU), the
 * rest comes from the chip's FICR DEVICEID and the timer: documented in
 * docs/PORTING.md as the fallback seed. Returns false when it fell back. */
bool board_entropy(uint8_t *out, size_t n);

/* The SLIP netif's sink: sends bytes on the UART, one at a time, waiting
 * for each (bounded; NOBUFS when the UART does not take a byte). */
mip_status board_uart_write(void *ctx, const uint8_t *bytes, size_t len);

/* The receive ring the UART interrupt fills. Read it with
 * mip_byte_ring_peek/consume, then call board_uart_rx_resume(): a full
 * ring stops the interrupt (the UART holds further bytes, and QEMU holds
 * them in its serial backend, as RTS/CTS flow control would on silicon). */
struct mip_byte_ring *board_uart_rx(void);
void board_uart_rx_resume(void);

/* Bytes the UART reported lost (overrun, framing, break). */
uint32_t board_uart_errors(void);

#endif
