/*
 * Reset and interrupt vectors of the micro:bit (nRF51822, Cortex-M0).
 *
 * The reset handler copies .data from flash, zeroes .bss, paints the free
 * RAM and the stack below its own frame with STACK_PAINT (so the deepest
 * the stack went can be read from a RAM dump later), and calls main().
 * Every interrupt without a handler of its own, and every fault, resets the
 * chip, as a watchdog would: the node comes back rather than hang.
 */
#include <stdint.h>
#include "board.h"
#include "nrf51.h"

void Reset_Handler(void);
void Default_Handler(void);
void UART0_IRQHandler(void);
void TIMER0_IRQHandler(void);

void Default_Handler(void)
{
    cortexm_reset_chip();
}

void Reset_Handler(void)
{
    cortexm_start(STACK_PAINT);
}

/* The vector table: initial stack pointer, 15 system exceptions, 32 IRQs
 * (nRF51 Reference Manual, table 16: UART0 is IRQ 2, TIMER0 IRQ 8). */
typedef void (*vector_fn)(void);

#define D Default_Handler
__attribute__((section(".vectors"), used))
static const vector_fn vectors[16 + 32] = {
    (vector_fn)(uintptr_t)_stack_top, Reset_Handler,
    D, D, D, D, D, D, D, D, D, D, D, D, D, D,  /* NMI, HardFault, ..., SVC, PendSV, SysTick */
    D, D, UART0_IRQHandler, D, D, D, D, D,     /* IRQ 0-7: POWER_CLOCK, RADIO, UART0, ... */
    TIMER0_IRQHandler, D, D, D, D, D, D, D,    /* IRQ 8-15: TIMER0, TIMER1, ... RNG (13) */
    D, D, D, D, D, D, D, D, D, D, D, D, D, D, D, D,
};
#undef D
