/*
 * The simulator's event queue: a binary min-heap ordered by (time, insertion
 * sequence), so events at the same microsecond run in the order they were
 * scheduled — the tie-break that makes runs deterministic.
 */
#ifndef MOTEIP_SIM_EVQ_H
#define MOTEIP_SIM_EVQ_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

enum sim_ev_kind {
    SIM_EV_STACK_POLL = 0,  /* a node's mip_stack_poll deadline */
    SIM_EV_MAC_POLL,        /* a node's mip_mac_poll deadline */
    SIM_EV_TX_END,          /* the last bit of a transmission left the air */
    SIM_EV_APP,             /* an application timer (arg: flow index) */
    SIM_EV_MISBEHAVE        /* a misbehaving node's attack (misbehave.c) */
};

struct sim_event {
    uint64_t time_us;
    uint64_t seq;
    uint32_t node;
    uint32_t arg;           /* kind-specific: transmission id, flow index */
    uint8_t  kind;          /* enum sim_ev_kind */
};

struct sim_evq {
    struct sim_event *heap;
    size_t count, cap;
    uint64_t next_seq;
    uint64_t pushed;        /* events ever scheduled */
};

void sim_evq_init(struct sim_evq *q);
void sim_evq_free(struct sim_evq *q);
/* Schedules an event; false when memory ran out. */
bool sim_evq_push(struct sim_evq *q, uint64_t time_us, uint8_t kind, uint32_t node, uint32_t arg);
/* The earliest event, left in the queue; NULL when empty. */
const struct sim_event *sim_evq_peek(const struct sim_evq *q);
/* Removes the earliest event into *out; false when empty. */
bool sim_evq_pop(struct sim_evq *q, struct sim_event *out);

#endif
