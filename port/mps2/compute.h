/*
 * moteip-mps2-os's computation service (seeds/000 s.7.9.3, Fig 7.5): a
 * process on UDP port 7001 that runs a long computation -- "an arbitrarily
 * chosen sequence of multiplications and additions" for a given time -- in
 * one of two ways, so the round trip of pings during it can be compared:
 *   "T<ms>"  in a preemptible thread (include/moteip/mt.h): the kernel's
 *            loop runs it between events; SysTick (1 ms) and the Ethernet
 *            interrupt preempt it
 *   "B<ms>"  in the process itself, to completion (the kernel waits)
 * and answers "done <T|B> <ms> <iterations> <preemptions>" to the sender.
 * A request while one runs is answered "busy".
 */
#ifndef MOTEIP_PORT_MPS2_COMPUTE_H
#define MOTEIP_PORT_MPS2_COMPUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "moteip/mt.h"
#include "moteip/os_net.h"

#define COMPUTE_PORT 7001u
#define COMPUTE_STACK_WORDS 256u

struct compute {
    struct mip_os_process proc;
    struct mip_os_udp udp;
    struct mip_stack *s;
    struct mip_mt_thread t;
    _Alignas(8) uint32_t stack[COMPUTE_STACK_WORDS];
    uint32_t ms, iterations, acc, preempt0;
    struct mip_addr peer;
    uint16_t peer_port;
    uint8_t netif;
    char mode;                      /* 'T' or 'B' while one runs, 0 otherwise */
};

void compute_prepare(struct compute *c, struct mip_stack *s);
char compute_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev, void *data);
/* The kernel's loop: runs the thread for one turn if it is ready (true),
 * and tells the process when it has ended. */
bool compute_turn(struct compute *c, struct mip_os *os);

#endif
