/*
 * Preemptive threads as a library on top of the event kernel (seeds/000
 * s.7.8, Fig 7.4): a thread runs on a stack of its own until it yields, ends,
 * or is preempted by an interrupt, and then the kernel's loop goes on where
 * it called mip_mt_exec. Only code that needs a long computation pays for a
 * stack; every process stays a protothread on the one stack.
 *
 * The library has the paper's two parts: this platform-independent one
 * (src/os/mt.c) and a platform part that switches stacks and preempts
 * (the mip_mt_arch_* functions below; port/common/cortexm_mt.c for ARMv7-M,
 * which preempts on its SysTick and on any interrupt the port marks). A
 * thread never calls the kernel or the stack: it hands results back through
 * its own memory, which the process that started it reads once the thread
 * has ended (mip_mt_exec returns MIP_MT_EXITED), as Contiki's threads post
 * events rather than call services.
 *
 * No heap: the thread struct and its stack are the caller's memory.
 */
#ifndef MOTEIP_MT_H
#define MOTEIP_MT_H

#include <stddef.h>
#include <stdint.h>

enum mip_mt_state {
    MIP_MT_EMPTY = 0,           /* never started, or ended and collected */
    MIP_MT_READY,               /* started, or yielded/preempted: exec runs it */
    MIP_MT_RUNNING,             /* on the CPU now (inside mip_mt_exec) */
    MIP_MT_EXITED               /* its function returned or it called exit */
};

struct mip_mt_thread {
    void *sp;                   /* saved stack pointer: the platform part's (first field) */
    void (*fn)(struct mip_mt_thread *self, void *arg);
    void *arg;
    volatile uint8_t state;     /* enum mip_mt_state */
    uint32_t execs;             /* mip_mt_exec calls that ran it */
    uint32_t yields;            /* mip_mt_yield calls */
};

/* Prepares t to run fn(t, arg) on `stack` (words, 8-byte aligned, at least
 * MIP_MT_STACK_MIN of them): READY. */
#define MIP_MT_STACK_MIN 64u
void mip_mt_start(struct mip_mt_thread *t, void (*fn)(struct mip_mt_thread *, void *), void *arg,
                  uint32_t *stack, size_t words);

/* Runs t until it yields, is preempted or ends; returns its state then
 * (READY or EXITED). Called from the kernel's loop or a process, never from
 * a thread or an interrupt. A thread not READY is not run. */
enum mip_mt_state mip_mt_exec(struct mip_mt_thread *t);

/* From the running thread: back to the kernel; mip_mt_exec resumes it here. */
void mip_mt_yield(struct mip_mt_thread *self);
/* From the running thread: ends it (as returning from its function). */
void mip_mt_exit(struct mip_mt_thread *self) __attribute__((noreturn));

/* The platform part (a port implements these):
 * init: lays out `stack` so that the first switch to t starts
 *   mip_mt_thread_main(t); stores the stack pointer in t->sp.
 * exec: switches to t's stack and returns when the thread switches back
 *   (yield, exit, preemption).
 * yield: from the thread, switches back to the kernel's stack. */
void mip_mt_arch_init(struct mip_mt_thread *t, uint32_t *stack, size_t words);
void mip_mt_arch_exec(struct mip_mt_thread *t);
void mip_mt_arch_yield(void);

/* Where a thread starts (the platform's first switch enters it). */
void mip_mt_thread_main(struct mip_mt_thread *t) __attribute__((noreturn));

#endif
