/*
 * The ATmega1284P's side of the AT86RF233 (the radio firmware only,
 * port/avr/radio_node.c): SPI master, the IRQ pin on INT0, the driver's
 * at86_board_* functions (at86rf233.h). board.h says which pins.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

#include "at86rf233.h"
#include "board.h"

/* The AT86RF233's IRQ pin on INT0 (PD2), rising edge: the flag, nothing more
 * (docs/PORTING.md, "Boards with an 802.15.4 radio"). */
ISR(INT0_vect)
{
    board_radio_irq = 1;
}

void board_radio_init(void)
{
    /* SPI master at F_CPU / 2, mode 0: /SEL (PB4, the SS pin) high, MOSI
     * (PB5) and SCK (PB7) outputs, MISO (PB6) input */
    PORTB |= _BV(PB4);
    DDRB |= _BV(PB4) | _BV(PB5) | _BV(PB7);
    SPCR = _BV(SPE) | _BV(MSTR);
    SPSR = _BV(SPI2X);
    EICRA |= _BV(ISC01) | _BV(ISC00);
    EIFR = _BV(INTF0);
    EIMSK |= _BV(INT0);
}

void at86_board_select(void *bus, bool selected)
{
    (void)bus;
    if (selected)
        PORTB &= (uint8_t)~_BV(PB4);
    else
        PORTB |= _BV(PB4);
}

uint8_t at86_board_xfer(void *bus, uint8_t out)
{
    (void)bus;
    SPDR = out;
    while (!(SPSR & _BV(SPIF))) {
    }
    return SPDR;
}

mip_utime_t at86_board_now_us(void *bus)
{
    (void)bus;
    return board_now_us();
}

void at86_board_delay_us(void *bus, uint16_t us)
{
    mip_utime_t start = board_now_us();
    (void)bus;
    while ((mip_utime_t)(board_now_us() - start) < us) {
    }
}

