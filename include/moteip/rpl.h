/*
 * RPL (RFC 6550): a node joins a DODAG, picks a preferred parent by an
 * objective function (OF0, RFC 6552; MRHOF with ETX, RFC 6719) and routes
 * upward through it; a root announces the DODAG and its prefix. Routing
 * driver "rpl" (routing.h) on the route floor (src/route/), docs/RPL.md.
 *
 * One struct mip_rpl per node, owned by the caller beside its struct
 * mip_stack (as struct mip_tcp and struct mip_relay are): no heap, no
 * globals. mip_rpl_init registers the driver with the stack; from then on
 * the stack drives it:
 *
 *   mip_stack_poll      -> Trickle timers, DIS, parent timeouts
 *   ICMPv6 type 155     -> DIS / DIO / DAO / DAO-ACK input
 *   mip_route_lookup    -> default route via the preferred parent
 *   mip_routing_link_report(_frame) from the MAC's tx_done -> link ETX
 *
 * One RPL instance, one DODAG, one netif (the 802.15.4 interface): the
 * bounds a mote needs (docs/RPL.md, "Bounds").
 */
#ifndef MOTEIP_RPL_H
#define MOTEIP_RPL_H

#include <stdint.h>
#include <stdbool.h>
#include "moteip/config.h"
#include "moteip/status.h"
#include "moteip/timer.h"
#include "moteip/wire/rpl.h"
#include "moteip/rpl_down.h"

struct mip_stack;
struct mip_rng;

/* Compile-time bounds (config.h documents the switches' cost). */
#ifndef MIP_RPL_NEIGH_MAX
#define MIP_RPL_NEIGH_MAX MIP_PROFILE_DEFAULT(4, 8)   /* DODAG neighbours (candidate parents) */
#endif

/* Objective code points (IANA, RFC 6552 / RFC 6719) */
#define MIP_RPL_OCP_OF0   0u
#define MIP_RPL_OCP_MRHOF 1u

/* RFC 6550 17 defaults */
#define MIP_RPL_DEFAULT_DIO_INT_MIN       3u    /* Imin = 2^3 ms */
#define MIP_RPL_DEFAULT_DIO_INT_DOUBLINGS 20u
#define MIP_RPL_DEFAULT_DIO_REDUNDANCY    10u
#define MIP_RPL_DEFAULT_MIN_HOP_RANK_INC  256u
#define MIP_RPL_DEFAULT_INSTANCE          0u    /* a global instance (RFC 6550 5.1) */
#define MIP_RPL_ROOT_RANK(minhop)         (minhop)

/* MRHOF (RFC 6719 5): ETX in units of 1/128 (RFC 6551 6.5) */
#define MIP_RPL_ETX_ONE                   128u
#define MIP_RPL_ETX_GUESS                 (2u * MIP_RPL_ETX_ONE)  /* unmeasured link */
/* OF0's link input (RFC 6552 4 leaves step_of_rank's source open): every
 * link counts as ETX 2.0, so Sp is DEFAULT_STEP_OF_RANK 3 and the rank is
 * a hop count. A step from each link's measured ETX moved a node's DAGRank
 * with every ETX wobble, and each move reset Trickle in a cascade down the
 * DODAG (rpl-convergence: 1,230 parent changes and 3,963 resets in 600 s
 * against 194 and 123). Dead links still leave the parent set by their ETX
 * (candidate(): past MAX_LINK_METRIC). */
#define MIP_RPL_OF0_LINK_ETX              MIP_RPL_ETX_GUESS
/* OF0 keeps its parent unless another offers a rank this much lower
 * (MinHopRankIncrease times 1.5, Contiki-NG's of0.c MIN_DIFFERENCE) */
#define MIP_RPL_OF0_SWITCH_NUM            3u      /* / 2, of MinHopRankIncrease */
#define MIP_RPL_MRHOF_SWITCH_THRESHOLD    192u    /* PARENT_SWITCH_THRESHOLD: ETX 1.5 */
#define MIP_RPL_MRHOF_MAX_LINK_METRIC     512u    /* ETX 4 */
#define MIP_RPL_MRHOF_MAX_PATH_COST       32768u  /* ETX 256 */

/* Per-node settings. A root's DODAG parameters are announced in its DIO's
 * DODAG Configuration option; a joining node takes the root's. */
struct mip_rpl_config {
    uint8_t  mop;             /* MIP_RPL_MOP_NON_STORING or _STORING (of
                                 the modes the build carries, config.h) */
    uint8_t  ocp;             /* MIP_RPL_OCP_OF0 or _MRHOF */
    uint8_t  instance;
    uint8_t  dio_int_min;     /* root: Imin = 2^this ms */
    uint8_t  dio_int_doublings;
    uint8_t  dio_redundancy;  /* Trickle k; 0: never suppress */
    uint16_t min_hop_rank_inc;
    uint16_t max_rank_inc;    /* 0: no limit (RFC 6550 6.7.6) */
    uint8_t  def_lifetime;    /* root: route lifetime in lifetime units */
    uint16_t lifetime_unit;   /* seconds */
    bool     leaf;            /* join but never route for others (RFC 6550
                                 8.5: a leaf advertises INFINITE_RANK) */
    /* DIS while detached: first after a random 0..dis_delay_ms, then
     * doubling up to dis_max_ms, at most dis_max times per detachment
     * (bounded: a node in an empty place does not talk forever). */
    uint32_t dis_delay_ms;
    uint32_t dis_max_ms;
    uint8_t  dis_max;
    /* A parent not heard from (DIO or ACKed frame) for this long leaves
     * the parent set (0: never). */
    uint32_t parent_timeout_ms;
};

/* The longest of the times above (2^30 ms, 12.4 days): a stamp is never
 * compared after half the 32-bit ms clock's wrap. */
#define MIP_RPL_TIME_MAX_MS ((uint32_t)1 << 30)

/* Fills cfg with the RFC 6550 17 defaults (non-storing, MRHOF; storing in
 * a build without non-storing mode, MIP_CONF_RPL_NON_STORING 0). */
void mip_rpl_config_default(struct mip_rpl_config *cfg);

/* Trickle (RFC 6206) state for DIOs. */
struct mip_rpl_trickle {
    uint32_t i_ms;            /* current interval I */
    mip_time_t start;         /* when I began */
    mip_time_t t_at;          /* t: the transmission point in I */
    uint8_t  c;               /* consistent messages heard in I */
    bool     sent;            /* t passed in this I */
};

/* A DODAG neighbour: a node whose DIO we took (a candidate parent). */
struct mip_rpl_neigh {
    uint8_t  used;
    uint8_t  iid[8];          /* link-local fe80::iid */
    uint8_t  version;         /* DODAG version it advertised */
    uint16_t rank;            /* its advertised rank */
    uint16_t etx;             /* link ETX x 128 (RFC 6719 fixed point) */
    uint8_t  etx_samples;     /* link reports taken (0: guess), saturating */
    uint8_t  epoch;           /* r->epoch when its last DIO came: only
                                 DIOs heard since our last detach count */
    mip_time_t heard;         /* last DIO or ACKed frame */
    mip_time_t acked;         /* last ACKed frame (a working link) */
};

/* Counters: events and drops, one drop reason each. */
#define MIP_RPL_STATS_LIST(X)                                                    \
    X(dio_tx) X(dio_rx) X(dis_tx) X(dis_rx) X(dao_tx) X(dao_rx)                \
    X(dao_ack_tx) X(dao_ack_rx)                                                \
    X(parent_changes)   /* preferred parent switched (or first chosen) */     \
    X(joins) X(detaches) X(global_repairs) X(local_repairs)                    \
    X(trickle_resets)                                                          \
    X(drop_malformed)   /* did not parse, or a bad option body */            \
    X(drop_unsupported) /* secure code, unknown code, other instance */       \
    X(drop_bad_src)     /* not from a link-local source */                    \
    X(drop_mop)         /* a DODAG of a mode we do not run */                 \
    X(drop_ocp)         /* an OF we do not have */                            \
    X(drop_rank)        /* rank below the root's, or a loop rule */           \
    X(drop_neigh_full)  /* candidate not better than any evictable entry */   \
    X(drop_old_version) /* a DIO of an older DODAG version */                 \
    X(drop_other_dodag) /* a DIO of another DODAG while joined */             \
    X(drop_no_handler)  /* DAO / DAO-ACK with no downward code to take it */
enum mip_rpl_stat {
#define MIP_RPL_STAT_ENUM(n) MIP_RPL_STAT_##n,
    MIP_RPL_STATS_LIST(MIP_RPL_STAT_ENUM)
#undef MIP_RPL_STAT_ENUM
    MIP_RPL_STAT_COUNT
};

enum mip_rpl_state {
    MIP_RPL_DETACHED = 0,     /* no DODAG: DIS, listening */
    MIP_RPL_JOINED,           /* a preferred parent, a rank */
    MIP_RPL_ROOT
};

struct mip_rpl {
    struct mip_stack *stack;
    struct mip_rpl_config cfg;
    uint8_t  netif;
    uint8_t  state;           /* enum mip_rpl_state */
    /* The DODAG (valid unless DETACHED; the root's own when ROOT). */
    uint8_t  instance;
    uint8_t  version;
    uint8_t  mop;
    uint8_t  prf;
    uint8_t  dtsn;
    bool     grounded;
    uint8_t  dodagid[16];
    struct mip_rpl_dodag_conf conf;
    uint16_t rank;            /* our rank (INFINITE while poisoning) */
    uint16_t lowest_rank;     /* lowest rank we advertised in this version
                                 (RFC 6550 8.2.2.4: MaxRankIncrease) */
    int8_t   preferred;       /* index into neigh, -1: none */
    bool     has_pio;
    struct mip_rpl_prefix_info pio;   /* the root's prefix (for SLAAC) */
    uint8_t  poison_left;     /* DIOs still to send at INFINITE_RANK */
    uint8_t  epoch;           /* +1 at every detach */
    struct mip_rpl_trickle trickle;
    /* DIS while detached */
    mip_time_t dis_at;
    uint32_t dis_ms;
    uint8_t  dis_sent;
    struct mip_rpl_neigh neigh[MIP_RPL_NEIGH_MAX];
    uint32_t stats[MIP_RPL_STAT_COUNT];
    /* --- downward routes (owner: rpldown; DAO/DAO-ACK, storing table,
     * non-storing root table + SRH, RFC 6553 option). Its state goes
     * here, behind its own switches. ---------------------------------- */
    struct mip_rpl_down down;         /* moteip/rpl_down.h */
};

/* --- Rules (pure functions, each unit-tested; rpl_rules.c) ------------- */

/* RFC 6550 7.2 lollipop counters (DODAG version, DTSN, DAO sequence):
 * whether a is newer than b; and the value after v. */
bool mip_rpl_seq_newer(uint8_t a, uint8_t b);
uint8_t mip_rpl_seq_next(uint8_t v);
/* DAGRank(rank) = floor(rank / MinHopRankIncrease) (RFC 6550 3.5.1). */
uint16_t mip_rpl_dag_rank(uint16_t rank, uint16_t min_hop);
/* OF0 (RFC 6552): step_of_rank from the link's ETX (x128), and the rank
 * through a parent. INFINITE for an INFINITE parent. */
uint8_t mip_rpl_of0_step(uint16_t etx);
uint16_t mip_rpl_of0_rank(uint16_t parent_rank, uint16_t etx, uint16_t min_hop);
/* MRHOF (RFC 6719): the path cost through a neighbour (INFINITE when the
 * link exceeds MAX_LINK_METRIC or the sum MAX_PATH_COST) and the rank. */
uint16_t mip_rpl_mrhof_path_cost(uint16_t parent_rank, uint16_t etx);
uint16_t mip_rpl_mrhof_rank(uint16_t parent_rank, uint16_t etx, uint16_t min_hop);
/* The link ETX estimate after one unicast frame's outcome (samples: how
 * many came before). */
uint16_t mip_rpl_etx_update(uint16_t etx, uint8_t samples, bool acked, uint8_t retries);

/* Trickle (RFC 6206): Imin = 2^imin_log ms, Imax = Imin * 2^doublings
 * (at most 2^30 ms). start: I = Imin and a new interval; reset: the same
 * when I > Imin (an inconsistency), false when I was Imin already; poll:
 * 1 when the transmission point passed with c < k (send now), -1 when it
 * passed suppressed, 0 otherwise; lowers *next to the next deadline.
 * Hearing a consistent message: t->c++. */
void mip_rpl_trickle_start(struct mip_rpl_trickle *t, uint8_t imin_log, struct mip_rng *rng,
                           mip_time_t now);
bool mip_rpl_trickle_reset(struct mip_rpl_trickle *t, uint8_t imin_log, struct mip_rng *rng,
                           mip_time_t now);
int mip_rpl_trickle_poll(struct mip_rpl_trickle *t, uint8_t imin_log, uint8_t doublings,
                         uint8_t k, struct mip_rng *rng, mip_time_t now, uint32_t *next);

/* --- The node ------------------------------------------------------------- */

/* Initialises r on netif of s and registers the "rpl" routing driver.
 * The node starts DETACHED and solicits DIOs (cfg NULL: defaults).
 * INVALID for a mode or OF this build lacks, a netif without
 * addresses, MinHopRankIncrease 0, or a time above MIP_RPL_TIME_MAX_MS. */
mip_status mip_rpl_init(struct mip_rpl *r, struct mip_stack *s, uint8_t netif,
                        const struct mip_rpl_config *cfg, mip_time_t now);

/* Makes this node the root of a grounded DODAG with id dodagid (one of
 * its global addresses) announcing prefix/prefix_len in a PIO (A flag set:
 * nodes form addresses by SLAAC; L clear: RFC 6550 doesn't make the prefix
 * on-link). The address dodagid is added to the netif when absent.
 * INVALID for a prefix_len other than 64 (SLAAC needs /64). */
mip_status mip_rpl_root_start(struct mip_rpl *r, const uint8_t prefix[16], uint8_t prefix_len,
                              const uint8_t dodagid[16], mip_time_t now);

/* Root: a new DODAG version (global repair, RFC 6550 8.2.2.1). INVALID
 * when not the root. */
mip_status mip_rpl_global_repair(struct mip_rpl *r, mip_time_t now);

/* Leaves the DODAG at once: poisons (INFINITE_RANK DIOs) and detaches,
 * then solicits anew (local repair, RFC 6550 8.2.2.5). */
void mip_rpl_local_repair(struct mip_rpl *r, mip_time_t now);

/* Whether the node is in a DODAG (joined or root). */
bool mip_rpl_joined(const struct mip_rpl *r);
/* The preferred parent's link-local address; false when none. */
bool mip_rpl_parent(const struct mip_rpl *r, uint8_t addr[16]);

uint32_t mip_rpl_stat(const struct mip_rpl *r, enum mip_rpl_stat which);
/* "dio_tx", ... ; NULL past the end. */
const char *mip_rpl_stat_name(unsigned which);

#endif
