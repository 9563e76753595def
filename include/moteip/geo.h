/*
 * Spatial addresses and geographic forwarding: routing driver "geo"
 * (routing.h) on the route floor (src/route/geo.c), docs/GEO.md.
 * Seed 000 paper D 9.2 (spatial IP address assignment, regional subnets
 * and broadcast); the forwarding is GPSR's (Karp and Kung, MobiCom 2000):
 * greedy, and perimeter mode on the Gabriel graph where greedy fails.
 *
 * One struct mip_geo per node, owned by the caller beside its struct
 * mip_stack. mip_geo_init builds the node's address from its position (no
 * server, no message: wire/spatial.h gives the form), adds it to the netif,
 * binds UDP port MIP_GEO_PORT and registers the driver:
 *
 *   mip_stack_poll   -> the beacon timer (every beacon_ms, jittered by
 *                       +-50 % as GPSR's), neighbour expiry, duplicate aging
 *   beacon input     -> a neighbour's link-local address and spatial
 *                       address (its position): the only state, one entry
 *                       per neighbour, no route table
 *   mip_route_lookup -> a neighbour that is the destination; else the
 *                       neighbour nearest the destination's cell, when
 *                       nearer than this node (greedy); else the perimeter
 *                       walk's first edge
 *   forward/output   -> greedy failed here: a Hop-by-Hop perimeter option
 *                       (wire/spatial.h) goes on and the packet walks the
 *                       face by the right-hand rule on the Gabriel graph of
 *                       the neighbour table, until a node nearer the
 *                       destination than where greedy failed takes it off;
 *                       an edge crossing the Lp-D line nearer D than the
 *                       face was entered changes face (GPSR); coming back
 *                       to the face's first edge: dropped as unreachable
 *                       (drop_perimeter_loop); docs/GEO.md
 *   regional broadcast -> a datagram to a region's broadcast address is
 *                       routed (greedy) to the region; each node inside
 *                       delivers it and sends it once as a link-layer
 *                       broadcast, after a random delay below
 *                       rebroadcast_jitter_ms (one waits at a time, in one
 *                       packet buffer; a newer one sends it at once);
 *                       nodes outside hear it and drop it
 *                       (core does not forward link-layer broadcasts):
 *                       no flooding outside the region. Duplicates are
 *                       known by a digest of (source, payload) kept
 *                       seen_ms.
 *   duplicates       -> a beacon from another link address with our own
 *                       spatial address: the node with the larger link-local
 *                       IID yields and takes the lowest discriminator D no
 *                       neighbour of its cell uses (overheard, no message);
 *                       its next beacon tells the others. With distinct
 *                       addresses the thesis's port conflicts cannot arise.
 */
#ifndef MOTEIP_GEO_H
#define MOTEIP_GEO_H

#include <stdint.h>
#include <stdbool.h>
#include "moteip/config.h"
#include "moteip/status.h"
#include "moteip/timer.h"
#include "moteip/wire/spatial.h"

struct mip_stack;

/* Compile-time bounds (config.h documents the switches' cost). */
#ifndef MIP_GEO_NEIGH_MAX
#define MIP_GEO_NEIGH_MAX MIP_PROFILE_DEFAULT(8, 16)  /* neighbours (16 B each) */
#endif
#ifndef MIP_GEO_SEEN_MAX
#define MIP_GEO_SEEN_MAX 8   /* regional broadcasts remembered (8 B each) */
#endif

struct mip_geo_config {
    struct mip_spatial_map map;
    uint8_t  prefix[8];          /* the network's /64 */
    int32_t  x_cm, y_cm;         /* this node's position */
    uint32_t beacon_ms;          /* beacon interval B (> 0) */
    uint32_t neigh_timeout_ms;   /* a neighbour unheard this long is gone; 0: 4.5 B (GPSR) */
    uint32_t seen_ms;            /* a regional broadcast's duplicate memory */
    uint32_t rebroadcast_jitter_ms; /* a regional broadcast is sent on after a
                                 delay uniform in [0, this); 0: at once */
    bool     perimeter;          /* recovery where greedy fails */
};

struct mip_geo_neigh {
    uint8_t  iid[8];             /* its link-local address fe80::iid */
    struct mip_spatial_pos pos;
    uint8_t  disc;
    uint8_t  used;
    mip_time_t heard;
};

struct mip_geo_seen {
    uint32_t digest;
    mip_time_t at;
    uint8_t  used;
};

#define MIP_GEO_STATS_LIST(X)                                                         \
    X(beacon_tx) X(beacon_rx) X(beacon_bad) X(neigh_new) X(neigh_expired)             \
    X(neigh_evicted) X(greedy) X(perimeter_enter) X(perimeter_hop) X(perimeter_exit)  \
    X(face_change)                                                                    \
    X(drop_local_minimum) X(drop_perimeter_loop) X(drop_no_room) X(region_rebroadcast) \
    X(region_dup) X(dup_addr_seen) X(dup_addr_resolved)

enum mip_geo_stat {
#define MIP_GEO_STAT_ENUM(n) MIP_GEO_STAT_##n,
    MIP_GEO_STATS_LIST(MIP_GEO_STAT_ENUM)
#undef MIP_GEO_STAT_ENUM
    MIP_GEO_STAT_COUNT
};
extern const char *const mip_geo_stat_names[MIP_GEO_STAT_COUNT];

struct mip_geo {
    struct mip_stack *stack;
    struct mip_geo_config cfg;
    uint8_t  netif;
    uint8_t  disc;               /* our D (0 unless we yielded) */
    struct mip_spatial_pos pos;
    uint8_t  addr[16];           /* our spatial address */
    mip_time_t next_beacon;
    /* the one regional broadcast waiting for its jittered send: a packet
     * buffer of the stack's pool, held at most rebroadcast_jitter_ms */
    uint8_t  pend_used;
    uint8_t  pend_idx;
    mip_time_t pend_at;
    struct mip_geo_neigh nb[MIP_GEO_NEIGH_MAX];
    struct mip_geo_seen seen[MIP_GEO_SEEN_MAX];
    uint32_t stats[MIP_GEO_STAT_COUNT];
};

/* Defaults: XY map, 1 m cells, B = 10 s, timeout 4.5 B, seen 10 s,
 * rebroadcast jitter 20 ms, perimeter on (docs/GEO.md says why). */
void mip_geo_config_default(struct mip_geo_config *cfg);

/* Builds the address, adds it to `netif` (a radio netif with its
 * link-local address), binds MIP_GEO_PORT and registers the driver; the
 * first beacon goes within B/2. INVALID for a bad netif or beacon_ms 0;
 * the address's and the bind's errors (NOBUFS, INUSE) as they come. */
mip_status mip_geo_init(struct mip_geo *g, struct mip_stack *s, uint8_t netif,
                        const struct mip_geo_config *cfg, mip_time_t now);

/* The regional broadcast address of our region of region_len code bits. */
mip_status mip_geo_region_addr(const struct mip_geo *g, uint8_t region_len, uint8_t out[16]);

/* Neighbours in the table now. */
unsigned mip_geo_neigh_count(const struct mip_geo *g);

/* The greedy and recovery rules on their own (exposed for the tests):
 * the neighbour index nearest `target` when strictly nearer than us, -1
 * otherwise; and the right-hand rule's next neighbour counterclockwise
 * from the direction `from` (a cell), on the Gabriel graph, -1 when none. */
int mip_geo_greedy(const struct mip_geo *g, struct mip_spatial_pos target, mip_time_t now);
int mip_geo_right_hand(const struct mip_geo *g, struct mip_spatial_pos from, bool skip_from,
                       mip_time_t now);
/* GPSR's face change test: whether the edge u-v properly crosses the
 * segment lp-d, and *t, where: the fraction of the way from lp to d, in
 * units of 1/65536 (even: 2^15 steps). A walk changes face on an edge
 * that crosses nearer d than where it entered its face
 * (struct mip_geo_perim.lf). */
bool mip_geo_crosses(struct mip_spatial_pos u, struct mip_spatial_pos v,
                     struct mip_spatial_pos lp, struct mip_spatial_pos d, uint16_t *t);

#endif
