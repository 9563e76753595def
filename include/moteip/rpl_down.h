/*
 * RPL's downward routes (RFC 6550 9, RFC 6554, RFC 9008): the state
 * struct mip_rpl keeps for them (its `down` member; rpl.h includes this
 * header). A node advertises itself to the root with DAOs (Destination
 * Advertisement Objects) carrying an RPL Target (its address) and a
 * Transit Information option (path sequence, path lifetime and, in
 * non-storing mode, its parent's address); it asks for a DAO-ACK and
 * retries a bounded number of times, and refreshes before the lifetime
 * ends. A non-storing root keeps the node table (target -> parent) and
 * source-routes downward (an SRH, RFC 6554; IPv6-in-IPv6 for datagrams
 * from outside the DODAG, RFC 9008 7). The code is src/route/rpl_dao.c
 * (DAOs, both ends) and src/route/rpl_root.c (the table, source routes,
 * the RPL Option on the data path). docs/RPL.md, "Downward routes".
 *
 * Sizes (RAM): a root table entry is MIP_RPL_NODE_BYTES; the DAO state of
 * a node is about 16 bytes.
 */
#ifndef MOTEIP_RPL_DOWN_H
#define MOTEIP_RPL_DOWN_H

#include <stdint.h>
#include <stdbool.h>
#include "moteip/config.h"
#include "moteip/timer.h"

/* Downward routes a node keeps: the non-storing root's node table
 * (target -> its DAO parent), or in storing mode every router's routes
 * (target -> the child it came through). 0: neither (a non-storing node
 * that is no root). Each entry MIP_RPL_NODE_BYTES (40). The full
 * profile's 128 covers the 100-node experiments of issue 23; a root on a
 * mote sets its own. */
#ifndef MIP_RPL_DOWN_MAX
#if MIP_CONF_RPL_ROOT || MIP_CONF_RPL_STORING
#define MIP_RPL_DOWN_MAX MIP_PROFILE_DEFAULT(16, 128)
#else
#define MIP_RPL_DOWN_MAX 0
#endif
#endif
/* Longest source route the root builds, in hops below it (the SRH then
 * holds this many addresses but the first); a deeper node is unreachable
 * downward (counted). Its addresses sit on the root's stack while the
 * route is built: 16 bytes each. */
#ifndef MIP_RPL_SRH_HOPS_MAX
#define MIP_RPL_SRH_HOPS_MAX 24u
#endif
/* DAO timing (RFC 6550 leaves them open; docs/RPL.md says why these):
 * the first DAO after a join or a parent change waits a random time in
 * [DELAY/2, DELAY) so the parent's own is likely out first; a DAO-ACK is
 * awaited ACK_TIMEOUT, doubled per retry (each wait up to half again
 * longer, at random), for RETRIES retries; then the node gives up and
 * starts a new round after ACK_TIMEOUT << RETRIES, up to twice that at
 * random, or at the refresh if sooner. A route is refreshed at a
 * random point between half and three quarters of its lifetime. */
#ifndef MIP_RPL_DAO_DELAY_MS
#define MIP_RPL_DAO_DELAY_MS 2000u
#endif
#ifndef MIP_RPL_DAO_ACK_TIMEOUT_MS
#define MIP_RPL_DAO_ACK_TIMEOUT_MS 2000u
#endif
#ifndef MIP_RPL_DAO_RETRIES
#define MIP_RPL_DAO_RETRIES 3u
#endif
/* Route lifetimes are held in ms stamps, never more than this apart from
 * now (the stack clock's half wrap is 24.9 days): a DAO's longer (or
 * infinite, 0xFF) lifetime counts as this. 7 days. */
#define MIP_RPL_LIFETIME_CAP_S 604800u

/* One downward route: a node of a non-storing root's table, or a
 * storing router's route. */
struct mip_rpl_node {
    uint8_t    target[16];    /* the node's address (a /128 RPL Target) */
    uint8_t    parent[16];    /* non-storing: its DAO parent's global
                                 address; storing: the next hop down (the
                                 child's link-local address) */
    mip_time_t expires;       /* the path lifetime ends */
    uint8_t    path_seq;      /* lollipop (RFC 6550 7.2) */
    uint8_t    used;          /* 0 free, 1 in use, 2 in use and a storing
                                 router's DAO-ACK to the child pending */
    uint8_t    ack_in;        /* storing, pending: the child's DAOSequence */
    uint8_t    ack_out;       /* ... and ours for the DAO we sent on */
};
#define MIP_RPL_NODE_BYTES ((unsigned)sizeof(struct mip_rpl_node))

/* A node's own DAO state. */
struct mip_rpl_dao_tx {
    uint8_t    seq;           /* DAOSequence of the last DAO sent */
    uint8_t    path_seq;      /* Path Sequence of our route */
    uint8_t    tries;         /* sends of the DAO now waiting for its ACK */
    bool       waiting;       /* a DAO-ACK for seq is awaited */
    bool       due;           /* a DAO is to go at `at` */
    mip_time_t at;            /* next send (due) or give-up/retry (waiting) */
    mip_time_t refresh_at;    /* when the route is renewed */
    bool       refresh;       /* refresh_at is armed */
    uint8_t    fwd_seq;       /* the last DAOSequence issued, to our own
                                 DAOs and (storing) the children's we send
                                 on alike: a DAO-ACK names one of them */
    uint8_t    parent_dtsn;   /* the DTSN our preferred parent last
                                 advertised (RFC 6550 9.6) ... */
    bool       parent_dtsn_known; /* ... since we chose it */
    bool       has_parent;    /* storing: parent_iid got our last DAO */
    uint8_t    parent_iid[8]; /* ... and gets a No-Path DAO when we move */
};

/* Counters of the downward part (kept beside rpl.h's). */
#define MIP_RPL_DOWN_STATS_LIST(X)                                               \
    X(dao_acked)          /* our DAO acknowledged */                           \
    X(dao_retries)        /* resent for want of a DAO-ACK */                   \
    X(dao_gave_up)        /* no DAO-ACK after every retry */                   \
    X(dao_rejected)       /* a DAO-ACK with a rejection status (>= 128) */     \
    X(nodes_added) X(nodes_removed) X(nodes_expired)                           \
    X(srh_inserted)       /* root: a source route put on a datagram */         \
    X(tunnelled)          /* root: a datagram from outside wrapped (RFC 9008) */ \
    X(rank_errors)        /* RFC 6550 11.2.2.2: an inconsistency seen */       \
    X(drop_dao_malformed) /* a DAO or DAO-ACK whose options do not decode */   \
    X(drop_dao_not_root)  /* a non-storing DAO at a node that is no root */    \
    X(drop_dao_stale)     /* an older Path Sequence than the table's */        \
    X(drop_dao_table_full)/* no free or expired slot: nothing evicted */       \
    X(drop_dao_ack_unexpected) /* no DAO waits, or another sequence */         \
    X(drop_no_source_route) /* root: no chain of parents to the target */    \
    X(drop_srh_no_room)   /* root: the datagram has no room for its route */   \
    X(drop_rank_error)    /* a second rank inconsistency (R already set) */ \
    X(dao_forwarded)      /* storing: a child's DAO sent on to our parent */ \
    X(no_path_tx)         /* storing: a No-Path DAO to the parent we left */ \
    X(drop_dao_bad_src)   /* storing: a DAO not from a link-local address */ \
    X(drop_no_down_route) /* storing: going down, no route below us */    \
    X(dtsn_triggered)     /* our parent's DTSN went up: a DAO, ours up too */ \
    X(dao_ack_relayed)    /* storing: our parent's DAO-ACK sent on to a child */
enum mip_rpl_down_stat {
#define MIP_RPL_DOWN_STAT_ENUM(n) MIP_RPL_DOWN_STAT_##n,
    MIP_RPL_DOWN_STATS_LIST(MIP_RPL_DOWN_STAT_ENUM)
#undef MIP_RPL_DOWN_STAT_ENUM
    MIP_RPL_DOWN_STAT_COUNT
};

struct mip_rpl_down {
    struct mip_rpl_dao_tx dao;
#if MIP_RPL_DOWN_MAX > 0
    struct mip_rpl_node node[MIP_RPL_DOWN_MAX];
#endif
    uint32_t stats[MIP_RPL_DOWN_STAT_COUNT];
};

#endif
