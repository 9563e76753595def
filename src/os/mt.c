/*
 * Threads, the platform-independent part (include/moteip/mt.h): the states
 * and the entry; the stack switching is the port's (mip_mt_arch_*).
 */
#include "moteip/mt.h"

void mip_mt_start(struct mip_mt_thread *t, void (*fn)(struct mip_mt_thread *, void *), void *arg,
                  uint32_t *stack, size_t words)
{
    t->fn = fn;
    t->arg = arg;
    t->execs = 0;
    t->yields = 0;
    mip_mt_arch_init(t, stack, words);
    t->state = MIP_MT_READY;
}

enum mip_mt_state mip_mt_exec(struct mip_mt_thread *t)
{
    if (t->state != MIP_MT_READY)
        return (enum mip_mt_state)t->state;
    t->state = MIP_MT_RUNNING;
    t->execs++;
    mip_mt_arch_exec(t);
    /* back: yielded or preempted (still RUNNING), or ended */
    if (t->state == MIP_MT_RUNNING)
        t->state = MIP_MT_READY;
    return (enum mip_mt_state)t->state;
}

void mip_mt_yield(struct mip_mt_thread *self)
{
    self->yields++;
    mip_mt_arch_yield();
}

void mip_mt_exit(struct mip_mt_thread *self)
{
    self->state = MIP_MT_EXITED;
    for (;;)
        mip_mt_arch_yield();        /* never resumed: exec runs only READY threads */
}

void mip_mt_thread_main(struct mip_mt_thread *t)
{
    t->fn(t, t->arg);
    mip_mt_exit(t);
}
