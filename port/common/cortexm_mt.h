/*
 * The ARMv7-M platform part of the thread library (include/moteip/mt.h,
 * cortexm_mt.c): PendSV switches stacks, SysTick slices time, and a port's
 * device interrupt may end a thread's turn at once (cortexm_mt_preempt), so
 * the kernel handles the device without waiting for the slice.
 * The board's vector table points PendSV and SysTick at
 * PendSV_Handler and SysTick_Handler.
 */
#ifndef MOTEIP_PORT_COMMON_CORTEXM_MT_H
#define MOTEIP_PORT_COMMON_CORTEXM_MT_H

#include <stdint.h>

#include "cortexm.h"

/* Priorities (PendSV and SysTick lowest) and the slice: SysTick every
 * `systick_reload` CPU cycles (0: no slicing, only cortexm_mt_preempt). */
void cortexm_mt_init(uint32_t systick_reload);

/* From an interrupt handler: if a thread is on the CPU, the kernel gets it
 * back when the handler returns. Counts a preemption. */
void cortexm_mt_preempt(void);

/* Preemptions so far (slices and device interrupts). */
uint32_t cortexm_mt_preemptions(void);

#endif
