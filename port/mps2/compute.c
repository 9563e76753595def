/* The computation service (compute.h). */
#include "compute.h"

#include "cortexm_mt.h"
#include "moteip/dec.h"
#include "mps2.h"

#define EV_DONE 1u                  /* the thread ended (a user event) */

/* The free-running timer 0 (25 MHz, counts down): read directly, so the
 * thread shares no state with the kernel's clock (board.c). */
static uint32_t ticks(void)
{
    return ~TIMER_VALUE(TIMER0_BASE);
}

/* Multiplications and additions until `ms` have passed. */
static void work(struct compute *c)
{
    uint32_t start = ticks(), span = c->ms * (MPS2_PCLK_HZ / 1000u), x = 1u, acc = 0, i = 0;
    while (ticks() - start < span) {
        uint32_t k;
        for (k = 0; k < 64u; k++) {
            x = x * 1103515245u + 12345u;
            acc += x >> 16;
        }
        i += 64u;
    }
    c->iterations = i;
    c->acc = acc;
}

static void thread_fn(struct mip_mt_thread *self, void *arg)
{
    (void)self;
    work(arg);
}

void compute_prepare(struct compute *c, struct mip_stack *s)
{
    c->s = s;
    c->mode = 0;
}

static void answer(struct compute *c, const uint8_t *text, size_t n)
{
    (void)mip_udp_sendto(c->s, NULL, COMPUTE_PORT, &c->peer, c->peer_port, c->netif, text, n);
}

static void answer_done(struct compute *c)
{
    char msg[64] = "done ";
    size_t n = 5;
    msg[n++] = c->mode;
    msg[n++] = ' ';
    n += mip_dec_u32(c->ms, msg + n);
    msg[n++] = ' ';
    n += mip_dec_u32(c->iterations, msg + n);
    msg[n++] = ' ';
    n += mip_dec_u32(cortexm_mt_preemptions() - c->preempt0, msg + n);
    answer(c, (const uint8_t *)msg, n);
    c->mode = 0;
}

char compute_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev, void *data)
{
    struct compute *c = p->ctx;
    MIP_PROCESS_BEGIN();
    (void)mip_os_udp_bind(os, p, &c->udp, c->s, COMPUTE_PORT);
    for (;;) {
        MIP_PROCESS_WAIT_EVENT_UNTIL(ev == MIP_OS_EV_UDP || ev == EV_DONE);
        if (ev == EV_DONE) {
            answer_done(c);
            continue;
        }
        {
            const struct mip_os_udp_event *u = data;
            uint32_t ms = 0;
            size_t i;
            if (c->mode != 0) {
                struct mip_addr a = u->meta->src;
                uint16_t port = c->peer_port;
                struct mip_addr keep = c->peer;
                c->peer = a;
                c->peer_port = u->meta->src_port;
                answer(c, (const uint8_t *)"busy", 4);
                c->peer = keep;
                c->peer_port = port;
                continue;
            }
            for (i = 1; i < u->len && i < 7u && u->data[i] >= '0' && u->data[i] <= '9'; i++)
                ms = ms * 10u + (uint32_t)(u->data[i] - '0');
            if (u->len < 2 || (u->data[0] != 'T' && u->data[0] != 'B') || ms == 0 ||
                ms > 60000u)
                continue;
            c->peer = u->meta->src;
            c->peer_port = u->meta->src_port;
            c->netif = u->meta->netif;
            c->ms = ms;
            c->mode = (char)u->data[0];
            c->preempt0 = cortexm_mt_preemptions();
            if (c->mode == 'B') {
                work(c);            /* to completion: nothing else runs meanwhile */
                answer_done(c);
            } else {
                mip_mt_start(&c->t, thread_fn, c, c->stack, COMPUTE_STACK_WORDS);
            }
        }
    }
    MIP_PROCESS_END();
}

bool compute_turn(struct compute *c, struct mip_os *os)
{
    if (c->t.state == MIP_MT_READY) {
        if (mip_mt_exec(&c->t) == MIP_MT_EXITED) {
            c->t.state = MIP_MT_EMPTY;
            (void)mip_os_post(os, &c->proc, EV_DONE, NULL);
        }
        return true;
    }
    return false;
}
