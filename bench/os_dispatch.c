/*
 * bench/os_dispatch.c -- the ATmega1284P firmware behind bench/os-dispatch:
 * what the process kernel (src/os/os.c, docs/OS.md) costs per event, in CPU
 * cycles, measured by the chip itself with Timer3 at F_CPU (one count a
 * cycle) and printed on USART0 as "name cycles-per-event" lines, then "done".
 *
 * Each figure is the mean over ROUNDS x BATCH operations, each timed alone,
 * less the cost of reading the timer (measured around nothing). The
 * receiving process is the smallest possible: a protothread that counts the
 * event and waits again, so the figure is the kernel's work plus one call.
 *   post+run   an asynchronous event: mip_os_post, then its dispatch by
 *              mip_os_run (the queue's FIFO, the process lookup)
 *   sync       a synchronous event: mip_os_post_sync (the thread runs now)
 *   poll       mip_os_poll_request (the interrupt's call) and the POLL
 *              event mip_os_run gives
 *   timer      an event timer that expired: mip_os_run finds it, posts
 *              TIMER and dispatches it
 *   run-idle   mip_os_run with nothing to do (the main loop's cost per turn)
 *   nop        one single-cycle NOP: the calibration (must print 1.00)
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "moteip/os.h"

#define BATCH 8u
#define ROUNDS 64u

struct bench {
    struct board_clock clock;
    struct mip_os os;
    struct mip_os_process p;
    struct mip_os_etimer t[BATCH];
    uint32_t events;
    uint16_t overhead;
};

static struct bench bench;

static char sink_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                        void *data)
{
    struct bench *b = p->ctx;
    (void)os;
    (void)data;
    (void)ev;
    MIP_PROCESS_BEGIN();
    for (;;) {
        b->events++;
        MIP_PROCESS_WAIT_EVENT();
    }
    MIP_PROCESS_END();
}

static inline uint16_t cycles(void)
{
    return TCNT3;
}

static void print(const char *name, uint32_t total, uint32_t n)
{
    /* "name X.YY\n" with two decimals, no printf (no float in the image) */
    char line[40];
    size_t k = strlen(name);
    uint32_t v = (total * 100u + n / 2u) / n, div = 1000000u;
    int started = 0;
    memcpy(line, name, k);
    line[k++] = ' ';
    for (; div >= 100u; div /= 10u) {
        uint8_t d = (uint8_t)(v / div % 10u);
        if (d != 0u || started || div == 100u) {
            line[k++] = (char)('0' + d);
            started = 1;
        }
    }
    line[k++] = '.';
    line[k++] = (char)('0' + v / 10u % 10u);
    line[k++] = (char)('0' + v % 10u);
    line[k++] = '\n';
    (void)board_uart_write(NULL, (const uint8_t *)line, k);
}

/* Cycles of one operation, summed over ROUNDS x BATCH: each timed alone,
 * between two reads of Timer3, less what the two reads cost. */
#define MEASURE(total, setup, op)                                                 \
    do {                                                                          \
        uint16_t r_;                                                              \
        (total) = 0;                                                              \
        for (r_ = 0; r_ < ROUNDS * BATCH; r_++) {                                 \
            uint16_t t0_, t1_;                                                    \
            if (r_ % BATCH == 0u) {                                               \
                setup;                                                            \
            }                                                                     \
            cli();                                                                \
            t0_ = cycles();                                                       \
            op;                                                                   \
            t1_ = cycles();                                                       \
            sei();                                                                \
            (total) += (uint16_t)(t1_ - t0_ - b->overhead);                       \
        }                                                                         \
    } while (0)

int main(void)
{
    struct bench *b = &bench;
    uint32_t total;
    mip_time_t now;

    board_init(&b->clock);
    TCCR3A = 0;
    TCCR3B = _BV(CS30);                 /* Timer3 counts every CPU cycle */
    b->overhead = 0;
    {
        uint16_t t0, t1;
        cli();
        t0 = cycles();
        t1 = cycles();
        sei();
        b->overhead = (uint16_t)(t1 - t0);
    }
    /* start when the bench's peer is there (it sends one byte) */
    for (;;) {
        size_t n;
        (void)mip_byte_ring_peek(board_uart_rx(), &n);
        if (n > 0)
            break;
        board_sleep(&b->clock, 10);
    }
    now = board_now(&b->clock);
    mip_os_init(&b->os, now);
    (void)mip_os_start(&b->os, &b->p, "sink", sink_thread, b, NULL);

    {
        MEASURE(total, (void)0, __asm__ __volatile__("nop"));
        print("nop", total, ROUNDS * BATCH);
        /* the queue (MIP_OS_EVENTS) is emptied before each BATCH posts */
        MEASURE(total, (void)mip_os_run(&b->os, now),
                (void)mip_os_post(&b->os, &b->p, 1, NULL));
        (void)mip_os_run(&b->os, now);
        print("post", total, ROUNDS * BATCH);
        /* BATCH posts outside the timing, then the run that dispatches them */
        {
            uint32_t run = 0;
            uint8_t r;
            for (r = 0; r < ROUNDS; r++) {
                uint8_t i;
                uint16_t t0, t1;
                for (i = 0; i < BATCH; i++)
                    (void)mip_os_post(&b->os, &b->p, 1, NULL);
                cli();
                t0 = cycles();
                (void)mip_os_run(&b->os, now);
                t1 = cycles();
                sei();
                run += (uint16_t)(t1 - t0 - b->overhead);
            }
            print("dispatch", run, ROUNDS * BATCH);
        }
        MEASURE(total, (void)0, (void)mip_os_post_sync(&b->os, &b->p, 2, NULL));
        print("sync", total, ROUNDS * BATCH);
        MEASURE(total, (void)0,
                (mip_os_poll_request(&b->os, &b->p), (void)mip_os_run(&b->os, now)));
        print("poll+run", total, ROUNDS * BATCH);
        MEASURE(total, (void)0, (void)mip_os_run(&b->os, now));
        print("run-idle", total, ROUNDS * BATCH);
        /* one expired timer per run: set for 1 ms, run 1 ms later */
        {
            uint32_t tt = 0;
            mip_time_t clk = now;
            uint8_t r;
            for (r = 0; r < ROUNDS; r++) {
                uint8_t i;
                uint16_t t0, t1;
                for (i = 0; i < BATCH; i++) {
                    (void)mip_os_run(&b->os, clk);
                    mip_os_etimer_set(&b->os, &b->t[i], &b->p, 1);
                    clk++;
                    cli();
                    t0 = cycles();
                    (void)mip_os_run(&b->os, clk);
                    t1 = cycles();
                    sei();
                    tt += (uint16_t)(t1 - t0 - b->overhead);
                }
            }
            print("timer", tt, ROUNDS * BATCH);
        }
    }
    print("events", b->events, 1);
    (void)board_uart_write(NULL, (const uint8_t *)"done\n", 5);
    board_sleep(&b->clock, 20);         /* the UART shifts the last bytes out */
    /* stop: the runner reports it and exits */
    cli();
    sleep_cpu();
    for (;;) {
    }
}
