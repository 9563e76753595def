/*
 * cctrl's split and merge ([B] = Buergi's MSc thesis, seeds/001, s.4.5.1):
 * the rules by which the cctrl node at a TCP end target carries one
 * application stream over several TCP connections across the sensor
 * network (the split) and puts it back together at the other end (the
 * merge). [B] designs it and builds only an application-level prototype
 * (two connections, no reordering; measured in cctrl-double's "cctrl" and
 * "dual-unmodified" arms). These are the rules as pure, bounded state over
 * caller memory; docs/RELAY.md "cctrl split and merge" says what is built
 * and what is not.
 *
 * Split: the stream is cut into chunks of `chunk` bytes; chunk k goes on
 * subflow k mod n. No header is added: the merge knows the order from the
 * same rule. A subflow that cannot take its chunk now (its send ring full,
 * its segment unacknowledged) holds up the stream at that chunk, as uIP's
 * one-segment connections do.
 *
 * Merge: bytes arrive in order on each subflow (TCP delivers them so) and
 * leave in stream order: chunk k is read from subflow k mod n. Bytes of a
 * subflow whose turn has not come are held in its buffer ("a small buffer
 * to hold back and rearrange segments which may arrive in wrong order");
 * when that buffer is full the merge takes no more from that subflow, the
 * bytes stay in its TCP receive ring, and TCP advertises a window that
 * shrinks to zero ("a receive window of zero can be propagated on one
 * connection to temporarily stop its data flow"). The subflow whose turn it
 * is is always drained by mip_cctrl_merge_read, so the merge never waits on
 * itself: a subflow ahead stops only until the one behind catches up.
 */
#ifndef MOTEIP_CCTRL_SPLIT_H
#define MOTEIP_CCTRL_SPLIT_H

#include <stddef.h>
#include <stdint.h>
#include "moteip/status.h"

/* [B] uses two connections; the rules take up to this many. */
#define MIP_CCTRL_SUBFLOWS_MAX 4u

struct mip_cctrl_split {
    uint8_t  n;                 /* subflows, 1..MIP_CCTRL_SUBFLOWS_MAX */
    uint16_t chunk;             /* bytes per chunk, >= 1 */
    uint8_t  turn;              /* the subflow of the current chunk */
    uint16_t off;               /* bytes of the current chunk already sent */
};

/* INVALID for n outside 1..MIP_CCTRL_SUBFLOWS_MAX or chunk 0. */
mip_status mip_cctrl_split_init(struct mip_cctrl_split *s, uint8_t n, uint16_t chunk);
/* The subflow the next bytes go on, and in *room how many of them before
 * the chunk ends (1..chunk). */
uint8_t mip_cctrl_split_next(const struct mip_cctrl_split *s, uint16_t *room);
/* `bytes` went on the subflow mip_cctrl_split_next named: at most *room
 * (more is INVALID and changes nothing). */
mip_status mip_cctrl_split_sent(struct mip_cctrl_split *s, uint16_t bytes);

struct mip_cctrl_merge {
    uint8_t  n;
    uint16_t chunk;
    uint16_t cap;               /* buffer bytes per subflow */
    uint8_t *buf;               /* the caller's n * cap bytes */
    uint16_t head[MIP_CCTRL_SUBFLOWS_MAX];  /* ring start per subflow */
    uint16_t held[MIP_CCTRL_SUBFLOWS_MAX];  /* bytes held per subflow */
    uint8_t  turn;              /* the subflow of the next chunk to leave */
    uint16_t off;               /* bytes of that chunk already read */
    uint32_t refused;           /* bytes put() could not take (window closed) */
    uint32_t stalls;            /* put() calls that found a full buffer */
};

/* Memory: n * cap bytes the caller owns while the merge lives. INVALID for
 * n outside 1..MIP_CCTRL_SUBFLOWS_MAX, chunk 0, cap 0, NULL buf. */
mip_status mip_cctrl_merge_init(struct mip_cctrl_merge *m, uint8_t n, uint16_t chunk,
                                uint8_t *buf, uint16_t cap);
/* Offers `len` bytes that arrived in order on subflow f; returns how many
 * it took (the rest stays with the caller: leave it in the subflow's TCP
 * ring, whose window then shrinks). 0 for a bad subflow. */
size_t mip_cctrl_merge_put(struct mip_cctrl_merge *m, uint8_t f, const uint8_t *data, size_t len);
/* Reads up to `cap` bytes of the stream in order; returns how many. */
size_t mip_cctrl_merge_read(struct mip_cctrl_merge *m, uint8_t *out, size_t cap);
/* Room left for subflow f: what its receive window may still offer (0:
 * closed until the subflows behind it catch up). */
uint16_t mip_cctrl_merge_room(const struct mip_cctrl_merge *m, uint8_t f);

#endif
