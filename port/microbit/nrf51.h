/*
 * The few nRF51822 registers the micro:bit port uses (nRF51 Series
 * Reference Manual v3.0, chapters 18 TIMER, 21 RNG, 29 UART), and the
 * Cortex-M0 NVIC and SCB (port/common/cortexm.h). Peripheral IRQ numbers are the peripheral's
 * base address bits 12..16 (ID = (base >> 12) & 0x1F).
 */
#ifndef MOTEIP_PORT_NRF51_H
#define MOTEIP_PORT_NRF51_H

#include <stdint.h>
#include "cortexm.h"               /* NVIC, SCB, interrupt mask, WFI */

#define NRF_REG(base, off) (*(volatile uint32_t *)((uintptr_t)(base) + (off)))

/* UART0 */
#define UART0_BASE          0x40002000u
#define UART0_IRQ           2u
#define UART_TASKS_STARTRX  NRF_REG(UART0_BASE, 0x000)
#define UART_TASKS_STARTTX  NRF_REG(UART0_BASE, 0x008)
#define UART_EVENTS_RXDRDY  NRF_REG(UART0_BASE, 0x108)
#define UART_EVENTS_TXDRDY  NRF_REG(UART0_BASE, 0x11C)
#define UART_EVENTS_ERROR   NRF_REG(UART0_BASE, 0x124)
#define UART_INTENSET       NRF_REG(UART0_BASE, 0x304)
#define UART_INTENCLR       NRF_REG(UART0_BASE, 0x308)
#define UART_ERRORSRC       NRF_REG(UART0_BASE, 0x480)
#define UART_ENABLE         NRF_REG(UART0_BASE, 0x500)
#define UART_PSELTXD        NRF_REG(UART0_BASE, 0x50C)
#define UART_PSELRXD        NRF_REG(UART0_BASE, 0x514)
#define UART_RXD            NRF_REG(UART0_BASE, 0x518)
#define UART_TXD            NRF_REG(UART0_BASE, 0x51C)
#define UART_BAUDRATE       NRF_REG(UART0_BASE, 0x524)
#define UART_INT_RXDRDY     (1u << 2)
#define UART_INT_ERROR      (1u << 9)
#define UART_ENABLE_ON      4u
#define UART_BAUD_115200    0x01D7E000u
#define MICROBIT_PIN_TX     24u           /* the interface chip's USB serial */
#define MICROBIT_PIN_RX     25u

/* TIMER0 */
#define TIMER0_BASE         0x40008000u
#define TIMER0_IRQ          8u
#define TIMER_TASKS_START   NRF_REG(TIMER0_BASE, 0x000)
#define TIMER_TASKS_CLEAR   NRF_REG(TIMER0_BASE, 0x00C)
#define TIMER_TASKS_CAPTURE(n) NRF_REG(TIMER0_BASE, 0x040 + 4u * (n))
#define TIMER_EVENTS_COMPARE(n) NRF_REG(TIMER0_BASE, 0x140 + 4u * (n))
#define TIMER_INTENSET      NRF_REG(TIMER0_BASE, 0x304)
#define TIMER_INTENCLR      NRF_REG(TIMER0_BASE, 0x308)
#define TIMER_MODE          NRF_REG(TIMER0_BASE, 0x504)
#define TIMER_BITMODE       NRF_REG(TIMER0_BASE, 0x508)
#define TIMER_PRESCALER     NRF_REG(TIMER0_BASE, 0x510)
#define TIMER_CC(n)         NRF_REG(TIMER0_BASE, 0x540 + 4u * (n))
#define TIMER_INT_COMPARE(n) (1u << (16u + (n)))
#define TIMER_BITMODE_32    3u

/* RNG */
#define RNG_BASE            0x4000D000u
#define RNG_TASKS_START     NRF_REG(RNG_BASE, 0x000)
#define RNG_TASKS_STOP      NRF_REG(RNG_BASE, 0x004)
#define RNG_EVENTS_VALRDY   NRF_REG(RNG_BASE, 0x100)
#define RNG_SHORTS          NRF_REG(RNG_BASE, 0x200)
#define RNG_SHORTS_VALRDY_STOP 1u
#define RNG_CONFIG          NRF_REG(RNG_BASE, 0x504)
#define RNG_VALUE           NRF_REG(RNG_BASE, 0x508)
#define RNG_CONFIG_DERCEN   1u                /* bias correction */

/* FICR: a number unique to each chip */
#define FICR_DEVICEID(n)    NRF_REG(0x10000000u, 0x060 + 4u * (n))

#endif
