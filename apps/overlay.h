/*
 * Application overlay routing (seed 000, paper D s.9.4): data-centric
 * routing and in-network aggregation as an application on UDP between
 * link-local neighbours, the same code on a mote, in the simulator and on
 * a Linux host (moteip-host). docs/OVERLAY.md describes the protocol; the
 * messages are include/moteip/wire/overlay.h.
 *
 * Directed Diffusion's parts, kept small:
 *   interest  a sink subscribes to an attribute: it floods an INTEREST to
 *             ff02::1 (the link-local all-nodes group) every lifetime / 3
 *             (a refresh that falls between a round's end and its report
 *             waits for the report: floods keep out of the data phase);
 *             every node floods each new refresh once, after a random
 *             delay under slot_ms / 2, with its own distance to the sink.
 *   gradient  a node keeps, per interest, the neighbours it heard the
 *             interest from (their distance, until the interest's lifetime
 *             runs out unrefreshed); data goes to the best one (fewest
 *             hops, then the longest-lived): the reinforced path.
 *   data      every interval_ms is a round (epoch). A node at distance h
 *             sends round e's aggregate at the round's end plus
 *             (depth - h) * slot_ms (TAG's schedule: the deepest first),
 *             its own reading merged with what its children sent for e,
 *             in one DATA message (count, min, max, sum), after a random
 *             delay under slot_ms / 2 (the nodes of one level do not all
 *             start contending at once). The sink reports
 *             the round at depth * slot_ms after its end.
 *
 * Every state is bounded and ends: interests (MIP_OVERLAY_INTERESTS; a new
 * one evicts the relayed interest closest to expiry, never the node's own
 * subscriptions), gradients per interest (MIP_OVERLAY_GRADIENTS; a better
 * one replaces the worst, an expired one goes first), pending aggregates
 * (MIP_OVERLAY_PENDING, at most MIP_OVERLAY_AHEAD_MAX + 1 rounds per
 * interest; when full, the arriving aggregate is dropped and counted: the
 * held ones are work in progress). Relayed interests and gradients end
 * with their lifetime; a pending aggregate ends at its round's send time;
 * the own subscription ends with mip_overlay_unsubscribe.
 *
 * A round's aggregate that arrives after the node sent that round is late:
 * a relay drops it (passing it on at once could ping-pong between two
 * nodes whose distances are briefly inconsistent); the sink adds its count
 * to late_readings. Rounds are numbered mod 2^16; an aggregate for a round
 * more than MIP_OVERLAY_AHEAD_MAX rounds ahead is dropped and counted.
 *
 * Times are ms of the stack's clock (timer.h). All state lives in the
 * caller's struct mip_overlay; the library uses only the public UDP API
 * and the stack's poller table (one of MIP_POLLERS_MAX).
 */
#ifndef MOTEIP_APPS_OVERLAY_H
#define MOTEIP_APPS_OVERLAY_H

#include <stdbool.h>
#include <stdint.h>
#include "moteip/stack.h"
#include "moteip/wire/overlay.h"

/* The UDP port every node of an overlay uses (both ends of every
 * message); 7000s, as the simulator's flows, no IANA assignment. */
#define MIP_OVERLAY_PORT 7480u

#ifndef MIP_OVERLAY_INTERESTS
#define MIP_OVERLAY_INTERESTS 4u
#endif
#ifndef MIP_OVERLAY_GRADIENTS
#define MIP_OVERLAY_GRADIENTS 3u
#endif
#ifndef MIP_OVERLAY_PENDING
#define MIP_OVERLAY_PENDING 6u
#endif
#define MIP_OVERLAY_AHEAD_MAX 2u

/* Sends one message (the library's, `len` bytes, valid during the call)
 * to dst on link `zone`. NULL in the config: mip_udp_sendto from and to
 * MIP_OVERLAY_PORT. A test may put a medium of its own here. */
typedef mip_status (*mip_overlay_tx_fn)(void *ctx, struct mip_stack *s, const struct mip_addr *dst,
                                        uint8_t zone, const uint8_t *buf, size_t len);
/* Takes this node's reading of `attr` at `now` into *value; false: this
 * node has no such sensor (it still relays). */
typedef bool (*mip_overlay_read_fn)(void *ctx, uint8_t attr, mip_time_t now, int16_t *value);
/* At the sink: round `epoch` of its subscription to `attr` is complete
 * (agg->count 0: no reading arrived). */
typedef void (*mip_overlay_result_fn)(void *ctx, uint8_t attr, uint16_t epoch,
                                      const struct mip_ovl_agg *agg, mip_time_t now);

struct mip_overlay_cfg {
    uint16_t id;               /* this node's overlay id (names a sink) */
    uint8_t  netif;            /* the link the overlay floods on */
    mip_overlay_read_fn read;  /* may be NULL: no sensor */
    mip_overlay_result_fn result; /* may be NULL */
    mip_overlay_tx_fn tx;      /* NULL: UDP */
    void    *ctx;              /* for the three callbacks */
};

/* Why a message or a reading was not used; mip_overlay_drop_name() names them. */
enum mip_overlay_drop {
    MIP_OVL_DROP_MALFORMED = 0,  /* the codec refused it */
    MIP_OVL_DROP_OWN,            /* our own interest, echoed by a neighbour */
    MIP_OVL_DROP_INTERESTS_FULL, /* every interest slot holds our own subscriptions */
    MIP_OVL_DROP_GRADIENT_WORSE, /* table full of better gradients */
    MIP_OVL_DROP_STALE,          /* an interest refresh older than the one we hold */
    MIP_OVL_DROP_NO_INTEREST,    /* data for an interest we do not hold */
    MIP_OVL_DROP_LATE,           /* relay: data for a round we sent already */
    MIP_OVL_DROP_AHEAD,          /* data for a round too far ahead */
    MIP_OVL_DROP_PENDING_FULL,   /* no pending-aggregate slot */
    MIP_OVL_DROP_NO_GRADIENT,    /* an aggregate with nowhere to go */
    MIP_OVL_DROP_COUNT_FULL,     /* readings beyond a count of 65535 */
    MIP_OVL_DROP_TX,             /* the stack refused a send */
    MIP_OVL_DROP_COUNT_
};

struct mip_overlay_gradient {
    struct mip_addr addr;      /* the neighbour's link-local address */
    mip_time_t expires;
    uint8_t  zone;
    uint8_t  hops;             /* the neighbour's distance to the sink */
    bool     used;
};

struct mip_overlay_interest {
    bool     used;
    bool     own;              /* our subscription: we are the sink */
    bool     fwd_due;          /* a flood of this refresh is scheduled */
    uint8_t  attr;
    uint8_t  depth;
    uint8_t  hops;             /* ours: 0 at the sink, else best gradient + 1 */
    uint16_t sink;
    uint16_t seq;
    uint16_t slot_ms;
    uint16_t round;            /* the round we send (or report) next */
    uint16_t jitter_ms;        /* relay: this round's send delay in its slot */
    uint32_t interval_ms;
    uint32_t lifetime_ms;
    mip_time_t round_end;      /* when `round` ends at the sink, on our clock */
    mip_time_t expires;        /* relayed: unrefreshed until then */
    mip_time_t fwd_at;         /* fwd_due: when we flood */
    mip_time_t refresh_at;     /* own: the next refresh */
    struct mip_overlay_gradient grad[MIP_OVERLAY_GRADIENTS];
};

struct mip_overlay_pending {
    bool     used;
    uint8_t  interest;         /* index into interest[] */
    uint16_t epoch;
    struct mip_ovl_agg agg;
};

struct mip_overlay {
    struct mip_overlay_cfg cfg;
    struct mip_stack *stack;
    bool     running;
    struct mip_rng rng;        /* flood jitter; seeded from the stack's */
    struct mip_overlay_interest interest[MIP_OVERLAY_INTERESTS];
    struct mip_overlay_pending pending[MIP_OVERLAY_PENDING];
    /* counters (saturating) */
    uint32_t interests_tx, interests_rx, data_tx, data_rx;
    uint32_t readings_taken;   /* own readings put into aggregates */
    uint32_t late_readings;    /* sink: readings in aggregates after their round */
    uint32_t drops[MIP_OVL_DROP_COUNT_];
};

/* Clears *o, binds MIP_OVERLAY_PORT on s and registers the poller. *o must
 * outlive the stack (the poller cannot be removed; after stop it does
 * nothing). INVALID for NULL arguments; else what mip_udp_bind and
 * mip_stack_add_poller return. */
mip_status mip_overlay_start(struct mip_overlay *o, struct mip_stack *s,
                             const struct mip_overlay_cfg *cfg);
/* Unbinds the port; all state is forgotten, counters are kept. */
void mip_overlay_stop(struct mip_overlay *o);

/* Subscribes this node, as a sink, to `attr`: rounds of interval_ms, the
 * first ending interval_ms from now, a schedule for `depth` hops of
 * slot_ms each, refreshed every lifetime_ms / 3. INVALID for values the
 * INTEREST format refuses (overlay.h of wire), INUSE when subscribed
 * already, NOBUFS when every slot holds an own subscription. Relayed
 * interests give way (the one closest to expiry). */
mip_status mip_overlay_subscribe(struct mip_overlay *o, uint8_t attr, uint32_t interval_ms,
                                 uint8_t depth, uint16_t slot_ms, uint32_t lifetime_ms,
                                 mip_time_t now);
/* Ends the subscription: no more refreshes (the network forgets it within
 * one lifetime); NOTFOUND when there is none. */
mip_status mip_overlay_unsubscribe(struct mip_overlay *o, uint8_t attr);

/* One message from a neighbour (src, on link zone). The UDP receive
 * callback calls it; a test may too. */
void mip_overlay_input(struct mip_overlay *o, const struct mip_addr *src, uint8_t zone,
                       const uint8_t *buf, size_t len, mip_time_t now);

/* Runs what is due; returns ms to the next deadline or MIP_POLL_IDLE. The
 * stack's poll calls it (registered at start). */
uint32_t mip_overlay_poll(struct mip_overlay *o, mip_time_t now);

/* Our distance to `sink`'s interest in attr (0 at the sink), or -1 when
 * we hold no such interest. */
int mip_overlay_hops(const struct mip_overlay *o, uint16_t sink, uint8_t attr);

const char *mip_overlay_drop_name(enum mip_overlay_drop d);

#endif
