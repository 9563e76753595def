/*
 * Protothreads: sequential code in an event-driven program, without a
 * stack per thread (Dunkels et al.; Contiki's process model, seeds/000
 * ch. 7). A protothread is a function that returns whenever it must wait
 * and is called again later; it resumes at the statement where it
 * stopped, because it records that statement's line number (its local
 * continuation, two bytes) and jumps back there through a `switch`.
 *
 *     static MIP_PT_THREAD(blink(struct mip_pt *pt, struct led *l))
 *     {
 *         MIP_PT_BEGIN(pt);
 *         for (;;) {
 *             MIP_PT_WAIT_UNTIL(pt, timer_expired(&l->t));
 *             led_toggle(l);
 *         }
 *         MIP_PT_END(pt);
 *     }
 *
 * The caller schedules it: `while (MIP_PT_SCHEDULE(blink(&pt, &led))) ...`.
 *
 * The rules, which the compiler does not check:
 * - Local variables do not survive a wait: the function returned. Keep
 *   what must survive in a struct the caller owns (here `l`).
 * - No `switch` of your own around a wait inside the thread: the waits are
 *   `case` labels of the thread's own switch, and an inner switch would take
 *   them. (`switch` with no wait inside is fine.)
 * - At most one wait per source line (the line is the continuation).
 * - Only the thread's own function may wait; to wait in a callee, make the
 *   callee a protothread and MIP_PT_SPAWN it.
 *
 * Header only, no state but the struct the caller owns; the continuation is
 * a `switch`, so this works with any C compiler (no GCC extension).
 */
#ifndef MOTEIP_PT_H
#define MOTEIP_PT_H

/* A protothread's whole state: the line to resume at, 0 = the beginning. */
struct mip_pt {
    unsigned short lc;
};

/* What a protothread function returns. WAITING and YIELDED: call it again
 * later; EXITED and ENDED: it has finished (and is reset to its start). */
enum {
    MIP_PT_WAITING = 0,
    MIP_PT_YIELDED = 1,
    MIP_PT_EXITED = 2,
    MIP_PT_ENDED = 3
};

/* Declares a protothread function: it returns one of the values above. */
#define MIP_PT_THREAD(declaration) char declaration

/* A fresh protothread starts at MIP_PT_BEGIN. */
#define MIP_PT_INIT(pt) ((pt)->lc = 0)

/* Still running: the value a scheduler loops on. */
#define MIP_PT_SCHEDULE(call) ((call) < MIP_PT_EXITED)

#if defined(__GNUC__) && __GNUC__ >= 7
#define MIP_PT_FALLTHROUGH_ __attribute__((fallthrough))
#else
#define MIP_PT_FALLTHROUGH_ ((void)0)
#endif

/* Records this line as the continuation and makes it a resume point. */
#define MIP_PT_MARK_(pt)          \
    (pt)->lc = __LINE__;          \
    MIP_PT_FALLTHROUGH_;          \
    case __LINE__:

#define MIP_PT_BEGIN(pt)                    \
    {                                       \
        char mip_pt_yielded_ = 1;           \
        (void)mip_pt_yielded_;              \
        switch ((pt)->lc) {                 \
        case 0:

#define MIP_PT_END(pt)                      \
        }                                   \
        mip_pt_yielded_ = 0;                \
        MIP_PT_INIT(pt);                    \
        return MIP_PT_ENDED;                \
    }

/* Returns (WAITING) until cond holds; cond is evaluated at every call. */
#define MIP_PT_WAIT_UNTIL(pt, cond)         \
    do {                                    \
        MIP_PT_MARK_(pt)                    \
        if (!(cond))                        \
            return MIP_PT_WAITING;          \
    } while (0)

#define MIP_PT_WAIT_WHILE(pt, cond) MIP_PT_WAIT_UNTIL((pt), !(cond))

/* Gives way once: returns YIELDED, and the next call goes on. */
#define MIP_PT_YIELD(pt)                    \
    do {                                    \
        mip_pt_yielded_ = 0;                \
        MIP_PT_MARK_(pt)                    \
        if (mip_pt_yielded_ == 0)           \
            return MIP_PT_YIELDED;          \
    } while (0)

/* Gives way at least once, then until cond holds. */
#define MIP_PT_YIELD_UNTIL(pt, cond)                    \
    do {                                                \
        mip_pt_yielded_ = 0;                            \
        MIP_PT_MARK_(pt)                                \
        if (mip_pt_yielded_ == 0 || !(cond))            \
            return MIP_PT_YIELDED;                      \
    } while (0)

/* Waits until the child protothread `call` has finished. */
#define MIP_PT_WAIT_THREAD(pt, call) MIP_PT_WAIT_WHILE((pt), MIP_PT_SCHEDULE(call))

/* Starts the child (its struct mip_pt `child`) and waits until it ends. */
#define MIP_PT_SPAWN(pt, child, call)       \
    do {                                    \
        MIP_PT_INIT(child);                 \
        MIP_PT_WAIT_THREAD((pt), (call));   \
    } while (0)

/* Back to the beginning at the next call. */
#define MIP_PT_RESTART(pt)                  \
    do {                                    \
        MIP_PT_INIT(pt);                    \
        return MIP_PT_WAITING;              \
    } while (0)

/* Ends the protothread now. */
#define MIP_PT_EXIT(pt)                     \
    do {                                    \
        MIP_PT_INIT(pt);                    \
        return MIP_PT_EXITED;               \
    } while (0)

/* Counting semaphores between protothreads (no interrupts: a protothread
 * runs to its next wait before another runs). */
struct mip_pt_sem {
    unsigned int count;
};
#define MIP_PT_SEM_INIT(s, c) ((s)->count = (c))
/* Waits until the count is positive, then takes one. */
#define MIP_PT_SEM_WAIT(pt, s)                          \
    do {                                                \
        MIP_PT_WAIT_UNTIL((pt), (s)->count > 0u);       \
        --(s)->count;                                   \
    } while (0)
#define MIP_PT_SEM_SIGNAL(s) (++(s)->count)

#endif
