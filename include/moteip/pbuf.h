/*
 * Packet buffers: a fixed pool of the stack instance, used for
 * datagrams being sent and for packets queued while a neighbor is resolved.
 * Received frames are not copied into pbufs; input works on the caller's
 * buffer.
 *
 * A pbuf holds one contiguous packet in data[off .. off+len). Headers are
 * prepended with mip_pbuf_push() into the headroom reserved at allocation.
 * Ownership: whoever holds the pointer frees it, or passes it to a function
 * documented to take it (all output functions take it, on success and on
 * error alike).
 */
#ifndef MOTEIP_PBUF_H
#define MOTEIP_PBUF_H

#include <stdint.h>
#include <stddef.h>
#include "moteip/config.h"
#include "moteip/status.h"

/* Room reserved in front of upper-layer data: link header + IPv6 header +
 * a fragment header. */
#define MIP_PBUF_HEADROOM (MIP_LINK_HDR_MAX + 40u + 8u)

#define MIP_PBUF_NONE 0xFFu

struct mip_pbuf {
    uint16_t off;      /* first byte of the packet in data[] */
    uint16_t len;      /* packet length */
    uint8_t  next;     /* index of the next pbuf in a queue, MIP_PBUF_NONE */
    uint8_t  in_use;
    uint16_t cap;      /* bytes at data: the pool's buffer size */
    uint8_t *data;     /* the pool's storage for this buffer */
};

/* The pool: `count` buffers of `size` bytes each. Their storage is the
 * pool's own (MIP_PBUF_COUNT x MIP_PBUF_SIZE, mip_pbuf_pool_init) or the
 * caller's (mip_pbuf_pool_init_storage), which a program sizes at run time:
 * the simulator gives each node its own, outside the node (docs/SIMULATOR.md,
 * memory per node). With MIP_BUFS_OWN 0 the pool has no storage of its own
 * and only the caller's serves. */
struct mip_pbuf_pool {
    struct mip_pbuf *buf;   /* count headers */
    uint16_t size;          /* bytes per buffer */
    uint8_t count;
    uint8_t in_use;         /* buffers allocated now */
    uint8_t high_water;     /* most ever allocated at once */
#if MIP_BUFS_OWN
    struct mip_pbuf own[MIP_PBUF_COUNT];
    uint8_t own_mem[MIP_PBUF_COUNT][MIP_PBUF_SIZE];
#endif
};

/* The caller's storage for a pool: `count` headers and count x `size`
 * bytes, both owned by the caller and living as long as the pool. */
struct mip_pbuf_storage {
    struct mip_pbuf *hdr;
    uint8_t *mem;
    uint8_t count;          /* MIP_NEIGH_QUEUE_MAX + 1 .. 250 */
    uint16_t size;          /* >= MIP_PBUF_SIZE_MIN */
};

/* The smallest buffer the stack works with: a 1280-byte IPv6 datagram (the
 * IPv6 minimum MTU, which 6LoWPAN's netif has) behind the longest link
 * header, as config.h requires of MIP_PBUF_SIZE. */
#define MIP_PBUF_SIZE_MIN 1304u

/* The pool on its own storage; with MIP_BUFS_OWN 0 it has none and
 * hands out nothing until mip_pbuf_pool_init_storage. */
void mip_pbuf_pool_init(struct mip_pbuf_pool *pool);
/* The pool on the caller's storage (every buffer free). MIP_ERR_INVALID,
 * the pool unchanged, when st has no memory, fewer buffers than a
 * neighbour's queue may hold plus one (MIP_NEIGH_QUEUE_MAX + 1) or more
 * than 250 (indices are uint8_t), or buffers smaller than
 * MIP_PBUF_SIZE_MIN. */
mip_status mip_pbuf_pool_init_storage(struct mip_pbuf_pool *pool,
                                      const struct mip_pbuf_storage *st);
/* An empty pbuf with `headroom` bytes before off; NULL when the pool is
 * exhausted or headroom > the pool's buffer size. */
struct mip_pbuf *mip_pbuf_alloc(struct mip_pbuf_pool *pool, uint16_t headroom);
void mip_pbuf_free(struct mip_pbuf_pool *pool, struct mip_pbuf *p);
/* Grows the packet at the front by n bytes; NULL if the headroom is short. */
uint8_t *mip_pbuf_push(struct mip_pbuf *p, uint16_t n);
/* Grows the packet at the end by n bytes; NULL if the tailroom is short. */
uint8_t *mip_pbuf_put(struct mip_pbuf *p, uint16_t n);
/* Removes n bytes from the front (n <= len). */
void mip_pbuf_pull(struct mip_pbuf *p, uint16_t n);
static inline uint8_t *mip_pbuf_payload(struct mip_pbuf *p) { return p->data + p->off; }
static inline size_t mip_pbuf_tailroom(const struct mip_pbuf *p)
{
    return (size_t)p->cap - p->off - p->len;
}
uint8_t mip_pbuf_index(const struct mip_pbuf_pool *pool, const struct mip_pbuf *p);
struct mip_pbuf *mip_pbuf_at(struct mip_pbuf_pool *pool, uint8_t index);

#endif
