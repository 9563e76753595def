/*
 * port/microbit/: the micro:bit port (nRF51822 under QEMU), top floor:
 * board.h and this file implement port/common/board_api.h for the shared
 * SLIP node (port/common/). It may include public headers, apps/ and
 * port/common/; nothing includes it but port/common's "board.h" in its own
 * build.
 *
 * The micro:bit's drivers: TIMER0 clock and sleep, RNG, UART. See board.h.
 */
#include "board.h"
#include "nrf51.h"
#include "moteip/wire/slip.h"

#define SPIN_MAX (1u << 20)           /* bound on every wait for a peripheral */
#define SLEEP_MAX_MS 60000u

static uint8_t uart_rx_buf[BOARD_UART_RX_RING];
static struct mip_byte_ring uart_rx;
static volatile uint8_t uart_rx_stalled;
static volatile uint8_t uart_rx_wake;      /* a SLIP END or half a ring arrived */
static volatile uint32_t uart_errors;

void UART0_IRQHandler(void);
void TIMER0_IRQHandler(void);

static uint32_t timer_ticks(void)
{
    TIMER_TASKS_CAPTURE(1) = 1;
    return TIMER_CC(1);
}

void board_init(struct board_clock *c)
{
    /* TIMER0: 16 MHz / 2^4 = 1 MHz, 32 bits, free running. On silicon an
     * RTC (32.768 kHz, LFCLK) would let the HF clock stop during sleep;
     * QEMU 7.2's microbit machine has no RTC (docs/PORTING.md). */
    TIMER_MODE = 0;
    TIMER_BITMODE = TIMER_BITMODE_32;
    TIMER_PRESCALER = 4;
    TIMER_TASKS_CLEAR = 1;
    TIMER_TASKS_START = 1;
    TIMER_INTENSET = TIMER_INT_COMPARE(0);
    tick_clock_start(c, timer_ticks());

    (void)mip_byte_ring_init(&uart_rx, uart_rx_buf, sizeof uart_rx_buf);
    UART_PSELTXD = MICROBIT_PIN_TX;
    UART_PSELRXD = MICROBIT_PIN_RX;
    UART_BAUDRATE = UART_BAUD_115200;
    UART_ENABLE = UART_ENABLE_ON;
    UART_EVENTS_RXDRDY = 0;
    UART_EVENTS_TXDRDY = 0;
    UART_TASKS_STARTRX = 1;
    UART_TASKS_STARTTX = 1;
    UART_INTENSET = UART_INT_RXDRDY | UART_INT_ERROR;
    NVIC_ISER = (1u << UART0_IRQ) | (1u << TIMER0_IRQ);
}

mip_time_t board_now(struct board_clock *c)
{
    return tick_clock_advance(c, timer_ticks(), 1000u);
}

void board_sleep(struct board_clock *c, uint32_t ms)
{
    uint32_t target;

    if (ms == 0)
        return;
    (void)board_now(c);
    target = tick_clock_deadline(c, ms, SLEEP_MAX_MS, 1000u);
    TIMER_EVENTS_COMPARE(0) = 0;
    TIMER_CC(0) = target;
    /* With interrupts masked, an interrupt that arrives after the checks
     * still ends the WFI; it is taken once they are unmasked. Every
     * received byte wakes the core for its interrupt: sleep again unless
     * it ended a frame (or the deadline came). */
    for (;;) {
        irq_disable();
        if (uart_rx_wake || uart_rx_stalled || (int32_t)(timer_ticks() - target) >= 0)
            break;
        cpu_wfi();
        irq_enable();
    }
    irq_enable();
}

void TIMER0_IRQHandler(void)
{
    TIMER_EVENTS_COMPARE(0) = 0;
    (void)TIMER_EVENTS_COMPARE(0);    /* the write lands before the return */
}

bool board_entropy(uint8_t *out, size_t n)
{
    size_t i;
    bool ok = true;

    /* One value per START: the generator stops after each (the shortcut),
     * so no value is overwritten before it is read. */
    RNG_CONFIG = RNG_CONFIG_DERCEN;
    RNG_SHORTS = RNG_SHORTS_VALRDY_STOP;
    for (i = 0; i < n; i++) {
        uint32_t spin = 0;
        RNG_EVENTS_VALRDY = 0;
        RNG_TASKS_START = 1;
        while (RNG_EVENTS_VALRDY == 0 && ++spin < SPIN_MAX)
            ;
        if (spin == SPIN_MAX) {
            ok = false;
            break;
        }
        out[i] = (uint8_t)RNG_VALUE;
    }
    RNG_TASKS_STOP = 1;
    /* Fallback seed: the chip's unique id and the time so far. Unique per
     * board, but guessable: only for a chip whose RNG fails. */
    for (; i < n; i++) {
        uint32_t x = FICR_DEVICEID(i & 1u) ^ (timer_ticks() << (i & 7u));
        out[i] = (uint8_t)(x >> (8u * (i & 3u)));
    }
    return ok;
}

mip_status board_uart_write(void *ctx, const uint8_t *bytes, size_t len)
{
    size_t i;
    (void)ctx;
    for (i = 0; i < len; i++) {
        uint32_t spin = 0;
        UART_TXD = bytes[i];
        while (UART_EVENTS_TXDRDY == 0 && ++spin < SPIN_MAX)
            ;
        if (spin == SPIN_MAX)
            return MIP_ERR_NOBUFS;
        UART_EVENTS_TXDRDY = 0;
    }
    return MIP_OK;
}

void UART0_IRQHandler(void)
{
    uint8_t b;

    if (UART_EVENTS_ERROR) {
        UART_EVENTS_ERROR = 0;
        UART_ERRORSRC = UART_ERRORSRC;    /* write ones to clear */
        uart_errors = uart_errors + 1u;
    }
    /* The RXDRDY event is cleared before RXD is read: reading RXD raises it
     * again when the FIFO holds more (nRF51 RM 29.6). */
    while (UART_EVENTS_RXDRDY) {
        if (mip_byte_ring_count(&uart_rx) > uart_rx.mask) {
            UART_INTENCLR = UART_INT_RXDRDY;   /* leave it in the UART */
            uart_rx_stalled = 1;
            return;
        }
        UART_EVENTS_RXDRDY = 0;
        b = (uint8_t)UART_RXD;
        (void)mip_byte_ring_put(&uart_rx, b);
        if (b == MIP_SLIP_END || mip_byte_ring_count(&uart_rx) > uart_rx.mask / 2u)
            uart_rx_wake = 1;
    }
}

struct mip_byte_ring *board_uart_rx(void)
{
    uart_rx_wake = 0;                     /* before the caller drains the ring */
    return &uart_rx;
}

void board_uart_rx_resume(void)
{
    if (uart_rx_stalled && mip_byte_ring_count(&uart_rx) <= uart_rx.mask) {
        uart_rx_stalled = 0;
        UART_INTENSET = UART_INT_RXDRDY;
    }
}

uint32_t board_uart_errors(void)
{
    return uart_errors;
}
