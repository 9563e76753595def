/* The MPS2 board: timer 0 clock, timer 1 sleep, seed. See board.h. */
#include "board.h"

#include "lan9118.h"
#include "mps2.h"
#if NODE_OS
#include "cortexm_mt.h"
#endif

#define TICKS_PER_MS (MPS2_PCLK_HZ / 1000u)
#define SLEEP_MAX_MS 60000u

void TIMER1_IRQHandler(void);
void ETH_IRQHandler(void);

static uint32_t timer_ticks(void)
{
    return ~TIMER_VALUE(TIMER0_BASE);       /* counts down from 0xFFFFFFFF */
}

void board_init(struct board_clock *c)
{
    TIMER_CTRL(TIMER0_BASE) = 0;
    TIMER_RELOAD(TIMER0_BASE) = 0xFFFFFFFFu;  /* a period of 2^32 ticks */
    TIMER_VALUE(TIMER0_BASE) = 0xFFFFFFFFu;
    TIMER_CTRL(TIMER0_BASE) = TIMER_CTRL_EN;
    TIMER_CTRL(TIMER1_BASE) = 0;
    TIMER_INTCLEAR(TIMER1_BASE) = 1;
    tick_clock_start(c, timer_ticks());
    NVIC_ISER = 1u << TIMER1_IRQ;        /* the LAN9118's: lan9118_init */
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
    /* Timer 1 counts the sleep down and interrupts at zero (one shot: its
     * handler stops it). With interrupts masked, one that arrives after
     * the checks still ends the WFI. */
    irq_disable();
    if (!lan9118_rx_waiting() && (int32_t)(target - timer_ticks()) > 0) {
        TIMER_CTRL(TIMER1_BASE) = 0;
        TIMER_INTCLEAR(TIMER1_BASE) = 1;
        TIMER_RELOAD(TIMER1_BASE) = 0;
        TIMER_VALUE(TIMER1_BASE) = target - timer_ticks();
        TIMER_CTRL(TIMER1_BASE) = TIMER_CTRL_EN | TIMER_CTRL_IRQ_EN;
        cpu_wfi();
    }
    irq_enable();
}

void TIMER1_IRQHandler(void)
{
    TIMER_CTRL(TIMER1_BASE) = 0;
    TIMER_INTCLEAR(TIMER1_BASE) = 1;
}

void ETH_IRQHandler(void)
{
    lan9118_irq();
#if NODE_OS
    cortexm_mt_preempt();           /* a frame: the kernel's turn, now (mt.h) */
#endif
}

bool board_entropy(uint8_t *out, size_t n)
{
    const volatile uint8_t *block = (const volatile uint8_t *)MPS2_SEED_ADDR;
    bool provisioned = false;
    size_t i;

    for (i = 0; i < 16u; i++)
        provisioned |= block[i] != 0;
    for (i = 0; i < n; i++) {
        /* Blank: the ticks since boot, which vary from run to run only
         * because QEMU times the timer by the host's clock. */
        uint32_t fallback = provisioned ? 0u : timer_ticks() * 2654435761u;
        out[i] = (uint8_t)(block[i % 16u] ^ (uint8_t)(fallback >> (8u * (i & 3u))));
    }
    return provisioned;
}
