/*
 * The platform part of the thread library (include/moteip/mt.h) for ARMv7-M
 * (Cortex-M3/M4; ARMv6-M lacks the STMDB/LDMIA of r8-r11 used here). Every
 * switch goes through PendSV, the lowest-priority exception, as an RTOS
 * does: the kernel runs on MSP, a thread on PSP (its own stack).
 *
 *   kernel -> thread   mip_mt_arch_exec pends PendSV; the handler pushes the
 *                      kernel's r4-r11 on MSP, keeps MSP, pops the thread's
 *                      r4-r11 from its stack and returns to it on PSP.
 *   thread -> kernel   a yield, or a preemption (cortexm_mt_preempt from
 *                      an interrupt: the SysTick slice, or a port's device
 *                      interrupt), pends PendSV; the handler pushes the
 *                      thread's r4-r11 on PSP, stores PSP in thread->sp,
 *                      pops the kernel's and returns on MSP, just after the
 *                      kernel's own PendSV request in mip_mt_arch_exec.
 *
 * The hardware stacks r0-r3, r12, lr, pc and xPSR itself on whichever stack
 * was in use, so a thread preempted anywhere resumes exactly there. State
 * an interrupt needs (the running thread, the kernel's MSP) is the port's:
 * one static struct here, as the board's other interrupt state is (src/
 * holds none).
 */
#include "cortexm_mt.h"

#include "moteip/mt.h"

#define SCB_ICSR            CM_REG(0xE000ED04u)
#define SCB_ICSR_PENDSVSET  (1u << 28)
#define SCB_SHPR3           CM_REG(0xE000ED20u)     /* PendSV [23:16], SysTick [31:24] */
#define SYST_CSR            CM_REG(0xE000E010u)
#define SYST_RVR            CM_REG(0xE000E014u)
#define SYST_CVR            CM_REG(0xE000E018u)

void PendSV_Handler(void);
void SysTick_Handler(void);

/* Read by PendSV_Handler's assembly at these offsets: keep the order. */
static struct {
    struct mip_mt_thread *current;  /* 0: the thread on the CPU, NULL: the kernel */
    uint32_t kernel_sp;             /* 4: MSP with the kernel's r4-r11 on it */
    uint32_t preemptions;           /* 8 */
} cpu;

void cortexm_mt_init(uint32_t systick_reload)
{
    /* PendSV and SysTick at the lowest priority: device interrupts first */
    SCB_SHPR3 |= 0xFFFF0000u;
    if (systick_reload != 0u) {
        SYST_RVR = systick_reload - 1u;
        SYST_CVR = 0;
        SYST_CSR = 7u;              /* processor clock, interrupt, enabled */
    }
}

uint32_t cortexm_mt_preemptions(void)
{
    return cpu.preemptions;
}

void cortexm_mt_preempt(void)
{
    if (cpu.current != NULL) {
        cpu.preemptions++;
        SCB_ICSR = SCB_ICSR_PENDSVSET;
    }
}

void SysTick_Handler(void)
{
    cortexm_mt_preempt();           /* the time slice ended */
}

void mip_mt_arch_init(struct mip_mt_thread *t, uint32_t *stack, size_t words)
{
    uint32_t *sp = stack + (words & ~(size_t)1);        /* 8-byte aligned top */
    *--sp = 0x01000000u;                                 /* xPSR: Thumb */
    *--sp = (uint32_t)(uintptr_t)mip_mt_thread_main & ~1u; /* pc */
    *--sp = 0xFFFFFFFFu;                                 /* lr: never returns */
    *--sp = 0;                                           /* r12 */
    *--sp = 0;                                           /* r3 */
    *--sp = 0;                                           /* r2 */
    *--sp = 0;                                           /* r1 */
    *--sp = (uint32_t)(uintptr_t)t;                      /* r0: the argument */
    sp -= 8;                                             /* r4-r11 */
    t->sp = sp;
}

static void pend_switch(void)
{
    SCB_ICSR = SCB_ICSR_PENDSVSET;
    __asm volatile ("dsb\n isb" ::: "memory");
}

void mip_mt_arch_exec(struct mip_mt_thread *t)
{
    cpu.current = t;
    pend_switch();                  /* returns when the thread switched back */
}

void mip_mt_arch_yield(void)
{
    pend_switch();
}

/* lr holds EXC_RETURN: bit 2 set when the interrupted code ran on PSP (a
 * thread). */
__attribute__((naked)) void PendSV_Handler(void)
{
    __asm volatile(
        "    ldr   r2, =%c[cpu]\n"
        "    tst   lr, #4\n"
        "    bne   1f\n"
        /* from the kernel: save it on MSP, resume the thread */
        "    push  {r4-r11}\n"
        "    str   sp, [r2, #4]\n"
        "    ldr   r1, [r2, #0]\n"
        "    ldr   r0, [r1, #0]\n"
        "    ldmia r0!, {r4-r11}\n"
        "    msr   psp, r0\n"
        "    ldr   lr, =0xFFFFFFFD\n"
        "    bx    lr\n"
        /* from a thread: save it on its stack, resume the kernel */
        "1:  mrs   r0, psp\n"
        "    stmdb r0!, {r4-r11}\n"
        "    ldr   r1, [r2, #0]\n"
        "    str   r0, [r1, #0]\n"
        "    movs  r1, #0\n"
        "    str   r1, [r2, #0]\n"
        "    ldr   r0, [r2, #4]\n"
        "    ldmia r0!, {r4-r11}\n"
        "    msr   msp, r0\n"
        "    ldr   lr, =0xFFFFFFF9\n"
        "    bx    lr\n"
        "    .ltorg\n"
        :
        : [cpu] "i" (&cpu));
}
