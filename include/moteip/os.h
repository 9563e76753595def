/*
 * The process kernel (seeds/000 ch. 7, Contiki's event kernel): processes
 * are protothreads (pt.h) that the kernel runs when an event arrives for
 * them, all on one stack, one at a time, each to its next wait.
 *
 * - Events are asynchronous (mip_os_post: queued in a bounded FIFO, run
 *   later by mip_os_run) or synchronous (mip_os_post_sync: the receiver runs
 *   now and the call returns after it). A full queue refuses (NOBUFS) and
 *   counts; nothing is lost silently.
 * - Polls: mip_os_poll_request is the one call an interrupt handler may
 *   make. It sets two flags; the next mip_os_run gives each process that
 *   asked a POLL event before any queued event (the kernel never disables
 *   interrupts, so interrupts never post events themselves).
 * - Event timers post TIMER to their process when they expire; callback
 *   timers call a function. Both live in the caller's memory.
 * - Power save (the paper's s.7.4.3): mip_os_run returns how long the CPU
 *   may sleep: 0 while events wait, else the time to the next timer, or
 *   MIP_POLL_IDLE for "until an interrupt".
 *
 * One struct mip_os per kernel, no heap, no globals; every process, timer
 * and the queue are the caller's memory. Time is injected (`now`, ms).
 * A process keeps what must survive a wait in its own struct (ctx); its
 * thread's locals do not survive (pt.h's rules).
 */
#ifndef MOTEIP_OS_H
#define MOTEIP_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "moteip/config.h"
#include "moteip/pt.h"
#include "moteip/status.h"
#include "moteip/timer.h"

/* Queued asynchronous events (each 1 + 2 pointers). */
#ifndef MIP_OS_EVENTS
#define MIP_OS_EVENTS MIP_PROFILE_DEFAULT(8u, 32u)
#endif

typedef uint8_t mip_os_event_t;

/* Kernel events; below MIP_OS_EV_USER are the application's own. */
enum {
    MIP_OS_EV_USER = 0x00,      /* 0x00..0x7F: the application's */
    MIP_OS_EV_INIT = 0x80,      /* the first event of a process (data: mip_os_start's) */
    MIP_OS_EV_POLL,             /* the process asked for a poll (interrupt) */
    MIP_OS_EV_EXIT,             /* the process is being stopped: its last event */
    MIP_OS_EV_EXITED,           /* another process ended (data: that process) */
    MIP_OS_EV_TIMER,            /* an event timer expired (data: the timer) */
    MIP_OS_EV_CONTINUE,         /* mip_os_continue: go on after a pause */
    MIP_OS_EV_TCP,              /* net service: a TCP event (data: mip_os_tcp_event) */
    MIP_OS_EV_UDP               /* net service: a datagram (data: mip_os_udp_event) */
};

struct mip_os;
struct mip_os_process;

/* A process's thread: a protothread run with each event for it. Returns
 * the protothread's value; ENDED or EXITED removes the process. */
typedef char (*mip_os_thread_fn)(struct mip_os *os, struct mip_os_process *p,
                                 mip_os_event_t ev, void *data);

struct mip_os_process {
    struct mip_os_process *next;    /* the kernel's list (internal) */
    const char *name;
    mip_os_thread_fn thread;
    void *ctx;                      /* the process's own state */
    struct mip_pt pt;
    bool running;
    bool in_call;                   /* its thread is on the stack now */
    volatile uint8_t poll_requested;/* set by mip_os_poll_request (interrupts) */
};

/* Process helpers, for thread bodies with parameters (os, p, ev, data). */
#define MIP_PROCESS_BEGIN() MIP_PT_BEGIN(&p->pt)
#define MIP_PROCESS_END() MIP_PT_END(&p->pt)
/* Waits for the next event (any), or for one that makes cond true. */
#define MIP_PROCESS_WAIT_EVENT() MIP_PT_YIELD(&p->pt)
#define MIP_PROCESS_WAIT_EVENT_UNTIL(cond) MIP_PT_YIELD_UNTIL(&p->pt, cond)
#define MIP_PROCESS_EXIT() MIP_PT_EXIT(&p->pt)

/* An event timer: posts MIP_OS_EV_TIMER (data: the timer) to its process. */
struct mip_os_etimer {
    struct mip_os_etimer *next;     /* the kernel's list of armed timers */
    mip_time_t start;
    uint32_t interval;              /* ms, below 2^31 */
    struct mip_os_process *p;       /* NULL: a callback timer */
    void (*fn)(void *ctx);          /* callback timers: called by mip_os_run */
    void *fn_ctx;
    bool armed;
    bool due;                       /* expired, to be handled in this run (internal) */
};

struct mip_os_slot {
    struct mip_os_process *to;      /* NULL: every process (broadcast) */
    mip_os_event_t ev;
    void *data;
};

#define MIP_OS_STATS_LIST(X)                                                   \
    X(posted)          /* asynchronous events queued */                        \
    X(queue_full)      /* asynchronous events refused: the queue was full */   \
    X(dispatched)      /* thread calls, every kind */                          \
    X(polls)           /* POLL events given */                                 \
    X(timers_fired)    /* event and callback timers that expired */            \
    X(dropped_dead)    /* queued events whose process had ended */             \
    X(sync_refused)    /* sync posts to a process already on the stack */

enum mip_os_stat {
#define MIP_OS_STAT_ENUM(n) MIP_OS_STAT_##n,
    MIP_OS_STATS_LIST(MIP_OS_STAT_ENUM)
#undef MIP_OS_STAT_ENUM
    MIP_OS_STAT_COUNT
};

struct mip_os {
    struct mip_os_process *procs;   /* running processes, newest first */
    struct mip_os_etimer *timers;   /* armed timers */
    struct mip_os_slot q[MIP_OS_EVENTS];
    uint8_t q_head, q_count;
    volatile uint8_t poll_pending;  /* some process asked for a poll */
    mip_time_t now;                 /* the latest time given */
    uint32_t stats[MIP_OS_STAT_COUNT];
};

void mip_os_init(struct mip_os *os, mip_time_t now);

/* Starts a process: its thread gets MIP_OS_EV_INIT (with `data`) now.
 * INUSE when p already runs. The process struct is the caller's until it
 * ends. */
mip_status mip_os_start(struct mip_os *os, struct mip_os_process *p, const char *name,
                        mip_os_thread_fn thread, void *ctx, void *data);

/* Stops a process: its thread gets MIP_OS_EV_EXIT (unless it is the one
 * running now), its timers stop, queued events for it are dropped when
 * their turn comes, and every other process gets MIP_OS_EV_EXITED. */
void mip_os_exit(struct mip_os *os, struct mip_os_process *p);

bool mip_os_running(const struct mip_os_process *p);

/* Queues an event for `to` (NULL: every running process). NOBUFS when the
 * queue holds MIP_OS_EVENTS already (counted queue_full). */
mip_status mip_os_post(struct mip_os *os, struct mip_os_process *to, mip_os_event_t ev,
                       void *data);

/* Runs `to`'s thread with the event now and returns when it has. INVALID
 * for a process that is not running; INUSE when it is already on the stack
 * (a process posting to itself, or back to its caller: counted). */
mip_status mip_os_post_sync(struct mip_os *os, struct mip_os_process *to, mip_os_event_t ev,
                            void *data);

/* The one call allowed in an interrupt handler: asks that p get a POLL event
 * at the next mip_os_run. Two byte stores, no read-modify-write of shared
 * state. */
void mip_os_poll_request(struct mip_os *os, struct mip_os_process *p);

/* Runs what is due at `now`: polls, the timers that expired, then the events
 * queued before this call (events they post wait for the next call, so a
 * process posting to itself cannot keep the kernel here). Returns the ms the
 * CPU may sleep: 0 when events wait, the time to the next timer, or
 * MIP_POLL_IDLE (until an interrupt). */
uint32_t mip_os_run(struct mip_os *os, mip_time_t now);

/* Event timers. set: expires interval ms from now; reset: interval ms after
 * its last expiry (periodic without drift); restart: interval ms from now
 * again; stop: disarmed. interval is clamped to 2^31 - 1 ms. */
void mip_os_etimer_set(struct mip_os *os, struct mip_os_etimer *t, struct mip_os_process *p,
                       uint32_t interval_ms);
void mip_os_etimer_reset(struct mip_os *os, struct mip_os_etimer *t);
void mip_os_etimer_restart(struct mip_os *os, struct mip_os_etimer *t);
void mip_os_etimer_stop(struct mip_os *os, struct mip_os_etimer *t);
/* True once the timer has fired (or was never armed). */
bool mip_os_etimer_expired(const struct mip_os_etimer *t);

/* Callback timers: fn(ctx) is called from mip_os_run when interval ms have
 * passed. */
void mip_os_ctimer_set(struct mip_os *os, struct mip_os_etimer *t, uint32_t interval_ms,
                       void (*fn)(void *ctx), void *ctx);

uint32_t mip_os_stat(const struct mip_os *os, enum mip_os_stat which);

#endif
