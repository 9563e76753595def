/*
 * port/avr/: the ATmega1284P port (under simavr), top floor: board.h and
 * this file implement port/common/board_api.h for the shared SLIP node
 * (port/common/). It may include public headers, apps/ and port/common/;
 * nothing includes it but port/common's "board.h" in its own build.
 *
 * The ATmega1284P's drivers: Timer1 clock and sleep, EEPROM seed, USART0,
 * stack painting. See board.h.
 */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#include "board.h"
#include "moteip/wire/slip.h"

#define TICKS_PER_MS (F_CPU / 64000ul)      /* Timer1 at F_CPU / 64 */
#if F_CPU % 64000ul != 0
#error "port/avr: F_CPU must be a multiple of 64 kHz (a whole number of Timer1 ticks per ms)"
#endif
#define SLEEP_MAX_MS 60000u
/* Wake-ups the transmitter sleeps through for one byte before it gives up:
 * each is an interrupt (a received byte, a timer); one byte's time at any
 * rate holds far fewer. */
#define TX_WAKE_MAX 1024u

#define UBRR_VALUE ((F_CPU + 4ul * BOARD_BAUD) / (8ul * BOARD_BAUD) - 1ul)
#if UBRR_VALUE > 4095
#error "port/avr: BOARD_BAUD is too low for USART0 at this F_CPU"
#endif

static uint8_t uart_rx_buf[BOARD_UART_RX_RING];
static struct mip_byte_ring uart_rx;
static volatile uint8_t uart_rx_stalled;
static volatile uint8_t uart_rx_wake;      /* a SLIP END or half a ring arrived */
static volatile uint32_t uart_errors;
static volatile uint16_t clock_hi;
static volatile uint8_t clock_wake;       /* a Timer1 interrupt came: look at the time */
#if BOARD_RADIO
volatile uint8_t board_radio_irq;         /* the transceiver's IRQ pin rose (INT0) */
#define RADIO_WAKE board_radio_irq
#else
#define RADIO_WAKE 0                      /* the SLIP firmware has no radio */
#endif

/* Paints the RAM between the end of .bss (__heap_start: there is no heap)
 * and 16 bytes below the initial stack with STACK_PAINT, before .data and
 * .bss are set up (.init4) and main runs (.init9). Naked and in assembly:
 * no C frame exists yet. */
void board_paint_stack(void) __attribute__((naked, used, section(".init3")));
void board_paint_stack(void)
{
    __asm volatile(
        "    ldi r30, lo8(__heap_start)\n"
        "    ldi r31, hi8(__heap_start)\n"
        "    ldi r24, %[paint]\n"
        "    ldi r26, lo8(__stack - 16)\n"
        "    ldi r27, hi8(__stack - 16)\n"
        "1:  cp r30, r26\n"
        "    cpc r31, r27\n"
        "    brsh 2f\n"
        "    st Z+, r24\n"
        "    rjmp 1b\n"
        "2:\n"
        :: [paint] "M" (STACK_PAINT) : "r24", "r26", "r27", "r30", "r31", "memory");
}

/* The 32-bit tick count: the overflow count and TCNT1 read together (an
 * overflow that happened but whose interrupt has not run yet counts). */
static uint32_t timer_ticks(void)
{
    uint8_t sreg = SREG;
    uint16_t lo, hi;

    cli();
    lo = TCNT1;
    hi = clock_hi;
    if ((TIFR1 & _BV(TOV1)) && lo < 0x8000u)
        hi++;
    SREG = sreg;
    return ((uint32_t)hi << 16) | lo;
}

ISR(TIMER1_OVF_vect)
{
    clock_hi = (uint16_t)(clock_hi + 1u);
    clock_wake = 1;
}

/* The compare match only ends a sleep; it disarms itself. */
ISR(TIMER1_COMPA_vect)
{
    TIMSK1 &= (uint8_t)~_BV(OCIE1A);
    clock_wake = 1;
}

void board_init(struct board_clock *c)
{
    /* Timer1: normal mode, F_CPU / 64, overflow interrupt on. */
    TCCR1A = 0;
    TCCR1B = _BV(CS11) | _BV(CS10);
    TIMSK1 = _BV(TOIE1);
    tick_clock_start(c, timer_ticks());

    (void)mip_byte_ring_init(&uart_rx, uart_rx_buf, sizeof uart_rx_buf);
    UBRR0 = (uint16_t)UBRR_VALUE;
    UCSR0A = _BV(U2X0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);               /* 8N1 */
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    set_sleep_mode(SLEEP_MODE_IDLE);                   /* Timer1 and USART0 keep running */
    sei();
}

mip_time_t board_now(struct board_clock *c)
{
    return tick_clock_advance(c, timer_ticks(), TICKS_PER_MS);
}

void board_sleep(struct board_clock *c, uint32_t ms)
{
    uint32_t target;

    if (ms == 0)
        return;
    (void)board_now(c);
    target = tick_clock_deadline(c, ms, SLEEP_MAX_MS, TICKS_PER_MS);
    /* Every received byte wakes the CPU for its interrupt; sleep again
     * unless it ended a frame. The time is looked at only when a Timer1
     * interrupt came (clock_wake), not once per byte. */
    clock_wake = 1;
    for (;;) {
        cli();
        if (uart_rx_wake || uart_rx_stalled || RADIO_WAKE)
            break;
        if (clock_wake) {
            uint32_t left = target - timer_ticks();
            clock_wake = 0;
            if ((int32_t)left <= 0)
                break;
            /* A deadline within the 16-bit counter's reach arms the
             * compare match; a later one is reached through the overflows
             * (every 262 ms at 16 MHz). */
            if (left < 0xFF00u) {
                OCR1A = (uint16_t)target;
                TIFR1 = _BV(OCF1A);
                TIMSK1 |= _BV(OCIE1A);
                /* It may have matched before its flag was cleared. */
                if ((int32_t)(target - timer_ticks()) <= 0)
                    break;
            }
        }
        sleep_enable();
        sei();                           /* the next instruction runs first */
        sleep_cpu();
        sleep_disable();
    }
    sei();
}

#if BOARD_RADIO
mip_utime_t board_now_us(void)
{
    /* a tick is 64 cycles; the product wraps as mip_utime_t does, at 2^32 us */
    return (mip_utime_t)(timer_ticks() * (64000000ul / F_CPU));
}
#endif

bool board_entropy(uint8_t *out, size_t n)
{
    uint8_t seed[BOARD_EEPROM_SEED_LEN];
    uint32_t boots;
    bool provisioned = false;
    size_t i;

    /* The ATmega1284P has no RNG. The seed is 16 bytes written into EEPROM
     * when the board is provisioned (unique per board; the simavr runner
     * writes fresh ones at every start), and a boot counter in EEPROM makes
     * each start of the same board differ. An erased EEPROM (all 0xFF) is
     * an unprovisioned board: the counter alone is all there is. */
    eeprom_read_block(seed, (const void *)BOARD_EEPROM_SEED, sizeof seed);
    boots = eeprom_read_dword((const uint32_t *)BOARD_EEPROM_BOOTS) + 1u;
    eeprom_update_dword((uint32_t *)BOARD_EEPROM_BOOTS, boots);
    for (i = 0; i < sizeof seed; i++)
        provisioned |= seed[i] != 0xFFu;
    for (i = 0; i < n; i++)
        out[i] = (uint8_t)(seed[i % sizeof seed] ^ (uint8_t)(boots >> (8u * (i & 3u))));
    return provisioned;
}

/* The transmitter's sleep ends with this interrupt; it disarms itself. */
ISR(USART0_UDRE_vect)
{
    UCSR0B &= (uint8_t)~_BV(UDRIE0);
}

mip_status board_uart_write(void *ctx, const uint8_t *bytes, size_t len)
{
    size_t i;
    (void)ctx;
    for (i = 0; i < len; i++) {
        unsigned wakes = 0;
        /* Sleep, not spin, while the byte before goes out: the CPU is free
         * for the receive interrupt, and the cycles counted are work. */
        while (!(UCSR0A & _BV(UDRE0))) {
            if (++wakes > TX_WAKE_MAX)
                return MIP_ERR_NOBUFS;
            cli();
            if (UCSR0A & _BV(UDRE0)) {
                sei();
                break;
            }
            UCSR0B |= _BV(UDRIE0);
            sleep_enable();
            sei();
            sleep_cpu();
            sleep_disable();
        }
        UDR0 = bytes[i];
    }
    return MIP_OK;
}

/* Moves received bytes into the ring while the USART holds any, and wakes
 * the main loop only at a SLIP frame's end or when half the ring is used:
 * a wake-up per byte would run the main loop (and mip_stack_poll) a
 * thousand times per KB. A full ring stops this interrupt and leaves the
 * byte in the USART: board_uart_rx_resume takes over once the main loop
 * made room. */
ISR(USART0_RX_vect)
{
    do {
        uint8_t st, b;
        if (mip_byte_ring_count(&uart_rx) > uart_rx.mask) {
            UCSR0B &= (uint8_t)~_BV(RXCIE0);
            uart_rx_stalled = 1;
            return;
        }
        st = UCSR0A;                      /* the error flags belong to UDR0's byte */
        b = UDR0;
        if (st & (_BV(FE0) | _BV(DOR0) | _BV(UPE0)))
            uart_errors = uart_errors + 1u;
        (void)mip_byte_ring_put(&uart_rx, b);
        if (b == MIP_SLIP_END || mip_byte_ring_count(&uart_rx) > uart_rx.mask / 2u)
            uart_rx_wake = 1;
    } while (UCSR0A & _BV(RXC0));
}

struct mip_byte_ring *board_uart_rx(void)
{
    uart_rx_wake = 0;                     /* before the caller drains the ring */
    return &uart_rx;
}

void board_uart_rx_resume(void)
{
    if (!uart_rx_stalled)
        return;
    /* Drain what waits in the USART, then let the interrupt take over: its
     * flag stays set while a byte waits, so no byte is left behind. */
    cli();
    while ((UCSR0A & _BV(RXC0)) && mip_byte_ring_count(&uart_rx) <= uart_rx.mask)
        (void)mip_byte_ring_put(&uart_rx, UDR0);
    if (mip_byte_ring_count(&uart_rx) <= uart_rx.mask) {
        uart_rx_stalled = 0;
        UCSR0B |= _BV(RXCIE0);
    }
    sei();
}

uint32_t board_uart_errors(void)
{
    uint32_t e;
    cli();
    e = uart_errors;
    sei();
    return e;
}
