/*
 * Reset and interrupt vectors of the MPS2 AN385 (Cortex-M3): the reset
 * handler is port/common/cortexm.h's (copy .data, zero .bss, paint the
 * stack, main). Every interrupt without a handler of its own, and every
 * fault, resets the chip, as a watchdog would.
 */
#include <stdint.h>
#include "board.h"
#include "mps2.h"

void Reset_Handler(void);
void Default_Handler(void);
void TIMER1_IRQHandler(void);
void ETH_IRQHandler(void);
/* The thread library's (port/common/cortexm_mt.c) when a firmware links it. */
void PendSV_Handler(void) __attribute__((weak, alias("Default_Handler")));
void SysTick_Handler(void) __attribute__((weak, alias("Default_Handler")));

void Default_Handler(void)
{
    cortexm_reset_chip();
}

void Reset_Handler(void)
{
    cortexm_start(STACK_PAINT);
}

/* The vector table: initial stack pointer, 15 system exceptions, 32 IRQs
 * (AN385 table 4-1: timer 0 is IRQ 8, timer 1 IRQ 9, Ethernet IRQ 13). */
typedef void (*vector_fn)(void);

#define D Default_Handler
__attribute__((section(".vectors"), used))
static const vector_fn vectors[16 + 32] = {
    (vector_fn)(uintptr_t)_stack_top, Reset_Handler,
    D, D, D, D, D, D, D, D, D, D, D, D,        /* NMI, HardFault, ..., SVC, DebugMon, - */
    PendSV_Handler, SysTick_Handler,
    D, D, D, D, D, D, D, D,                    /* IRQ 0-7: UARTs */
    D, TIMER1_IRQHandler, D, D, D, ETH_IRQHandler, D, D,   /* IRQ 8-15 */
    D, D, D, D, D, D, D, D, D, D, D, D, D, D, D, D,
};
#undef D
