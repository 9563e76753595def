/*
 * What every Cortex-M port (M0, M0+, M3) shares: the system control space
 * registers it touches (NVIC, SCB; ARMv6-M / ARMv7-M Architecture Reference
 * Manuals, B3), the interrupt mask and WFI, and the reset handler's body.
 * port/microbit/ and port/mps2/ use it; the vector tables are the boards'.
 */
#ifndef MOTEIP_PORT_COMMON_CORTEXM_H
#define MOTEIP_PORT_COMMON_CORTEXM_H

#include <stdint.h>

#define CM_REG(addr)        (*(volatile uint32_t *)(uintptr_t)(addr))
#define NVIC_ISER           CM_REG(0xE000E100u)
#define NVIC_ICER           CM_REG(0xE000E180u)
#define NVIC_ICPR           CM_REG(0xE000E280u)
#define SCB_AIRCR           CM_REG(0xE000ED0Cu)
#define SCB_AIRCR_RESET     0x05FA0004u       /* VECTKEY | SYSRESETREQ */

static inline void irq_disable(void) { __asm volatile ("cpsid i" ::: "memory"); }
static inline void irq_enable(void)  { __asm volatile ("cpsie i" ::: "memory"); }
static inline void cpu_wfi(void)     { __asm volatile ("wfi" ::: "memory"); }

/* The linker script's symbols (port/<board>/<board>.ld). */
extern uint32_t _data_load[], _data_start[], _data_end[], _bss_start[], _bss_end[];
extern uint32_t _stack_top[];

int main(void);

/* Resets the chip (SYSRESETREQ), as a watchdog would: what an unhandled
 * interrupt or a fault does, so the node comes back rather than hang. */
static inline void __attribute__((noreturn)) cortexm_reset_chip(void)
{
    SCB_AIRCR = SCB_AIRCR_RESET;
    for (;;)
        ;
}

/* The reset handler's work: copies .data from flash, zeroes .bss, paints
 * the free RAM and the stack below the caller's frame with `paint` (so the
 * deepest the stack went can be read from a RAM dump later), runs main()
 * and resets the chip if it returns. */
static inline void __attribute__((noreturn)) cortexm_start(uint32_t paint)
{
    uint32_t *p, *sp;

    for (p = _data_start; p < _data_end; p++)
        *p = _data_load[p - _data_start];
    for (p = _bss_start; p < _bss_end; p++)
        *p = 0;
    __asm volatile ("mov %0, sp" : "=r" (sp));
    for (p = _bss_end; p < sp - 16; p++)     /* 64 bytes below our frame */
        *p = paint;
    (void)main();
    cortexm_reset_chip();
}

#endif
