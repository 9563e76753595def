/*
 * The ATmega1284P's drivers, as the shared SLIP node (port/common/slip_node.c)
 * uses them (port/common/board_api.h): a millisecond clock and a sleep on
 * Timer1, a seed from EEPROM, USART0 with interrupt-driven receive into a
 * ring and a transmit that sleeps while each byte goes out.
 *
 * What runs in interrupt context: USART0_RX_vect (moves received bytes into
 * the ring), USART0_UDRE_vect (ends a sleep of the transmitter),
 * TIMER1_OVF_vect (extends the counter) and TIMER1_COMPA_vect (ends a
 * sleep). Nothing else: the stack runs in the main loop only.
 *
 * The port's globals (docs/PORTING.md): the receive ring with its buffer,
 * its stalled flag and error count, shared with the receive interrupt, and
 * the counter's high word, shared with the overflow interrupt; in the radio
 * firmware (BOARD_RADIO), board_radio_irq, shared with INT0's interrupt. The vector
 * table is avr-libc's (flash).
 */
#ifndef MOTEIP_PORT_AVR_BOARD_H
#define MOTEIP_PORT_AVR_BOARD_H

#include <stdint.h>
#include "moteip/timer.h"

/* The startup code fills free RAM with this byte (board.c, .init3), so a
 * RAM dump shows the deepest the stack went. */
#define STACK_PAINT 0xA5u

/* Bytes of the UART receive ring: a power of two; at most 128, the ring's
 * indices are 8 bits on AVR (include/moteip/byte_ring.h). */
#ifndef BOARD_UART_RX_RING
#define BOARD_UART_RX_RING 128u
#endif

/* USART0's bit rate (8N1, U2X). At F_CPU 16 MHz: 115200 (UBRR 16, 2.1 %
 * off) and the exact 250000, 500000 and 1000000. */
#ifndef BOARD_BAUD
#define BOARD_BAUD 115200ul
#endif

/* EEPROM layout of the seed (docs/PORTING.md "Randomness"): 16 bytes
 * written once per board when it is provisioned, and a boot counter the
 * firmware increments at every start. */
#define BOARD_EEPROM_SEED 0u
#define BOARD_EEPROM_SEED_LEN 16u
#define BOARD_EEPROM_BOOTS 16u

/* Milliseconds from Timer1 (F_CPU / 64: 4 us at 16 MHz), its 16 bits
 * extended to 32 by the overflow interrupt (port/common/tick_clock.h).
 * Read it at least every 4 hours (the 32-bit tick count wraps after 4.77 h
 * at 16 MHz; board_sleep never sleeps longer than a minute). */
#include "tick_clock.h"

#include "board_api.h"

/* The transceiver, in the radio firmware (BOARD_RADIO 1; port/avr/
 * radio_node.c, board_radio.c, at86rf233.h): SPI master on PB4-PB7 (/SEL
 * on PB4), its IRQ pin on INT0 (PD2), whose interrupt sets board_radio_irq
 * (and ends a board_sleep); the main loop clears it and hands it to the
 * driver. The µs clock is Timer1's (4 us at 16 MHz). */
#if BOARD_RADIO
#include "moteip/radio.h"
extern volatile uint8_t board_radio_irq;
void board_radio_init(void);
mip_utime_t board_now_us(void);
#endif

#endif
