/*
 * qemu_cortexm.h: what a bare-metal bench program needs to run on an
 * emulated Cortex-M board under qemu-system-arm with -semihosting-config
 * enable=on (the MPS2 boards, the micro:bit): the reset handler (copies
 * .data, zeroes .bss, runs main() and exits through semihosting with its
 * status), a vector table whose faults print QEMU_FAULT_MSG and exit, and
 * ARM semihosting output, and SysTick's registers. Include it once, from the program's only .c file
 * (it defines Reset_Handler, Fault_Handler and the table), after defining
 * QEMU_FAULT_MSG; the linker script (port/mps2/mps2.ld,
 * port/microbit/microbit.ld) provides the symbols below.
 */
#ifndef MOTEIP_BENCH_QEMU_CORTEXM_H
#define MOTEIP_BENCH_QEMU_CORTEXM_H

#include <stdint.h>

#ifndef QEMU_FAULT_MSG
#error "define QEMU_FAULT_MSG (the line a fault prints) before including qemu_cortexm.h"
#endif

/* SysTick (every Cortex-M): control, reload and current value */
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)

int main(void);
void Reset_Handler(void);
void Fault_Handler(void);
extern uint32_t _stack_top[], _data_start[], _data_end[], _data_load[], _bss_start[], _bss_end[];

static inline int semihost(int op, const void *arg)
{
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

/* SYS_WRITE0: a NUL-terminated string; SYS_WRITEC: one character */
static inline void semihost_puts(const char *s) { (void)semihost(0x04, s); }
static inline void semihost_putc(char ch) { (void)semihost(0x03, &ch); }

static inline void semihost_quit(int ok)
{
    /* SYS_EXIT; on AArch32 r1 is the reason itself: ApplicationExit is
     * status 0, RunTimeErrorUnknown status 1 */
    (void)semihost(0x18, (const void *)(uintptr_t)(ok ? 0x20026u : 0x20023u));
    for (;;) {
    }
}

void Fault_Handler(void)
{
    semihost_puts(QEMU_FAULT_MSG);
    semihost_quit(0);
}

void Reset_Handler(void)
{
    uint32_t *s = _data_load, *d = _data_start;
    while (d < _data_end)
        *d++ = *s++;
    for (d = _bss_start; d < _bss_end; d++)
        *d = 0;
    semihost_quit(main() == 0);
}

typedef void (*vector_fn)(void);
__attribute__((section(".vectors"), used))
static const vector_fn vectors[16] = {
    (vector_fn)(uintptr_t)_stack_top, Reset_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler,
};

#endif
