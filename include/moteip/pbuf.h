/*
 * Packet buffers: a fixed pool inside the stack instance, used for
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

/* Room reserved in front of upper-layer data: link header + IPv6 header +
 * a fragment header. */
#define MIP_PBUF_HEADROOM (MIP_LINK_HDR_MAX + 40u + 8u)

#define MIP_PBUF_NONE 0xFFu

struct mip_pbuf {
    uint16_t off;      /* first byte of the packet in data[] */
    uint16_t len;      /* packet length */
    uint8_t  next;     /* index of the next pbuf in a queue, MIP_PBUF_NONE */
    uint8_t  in_use;
    uint8_t  data[MIP_PBUF_SIZE];
};

struct mip_pbuf_pool {
    struct mip_pbuf buf[MIP_PBUF_COUNT];
    uint8_t in_use;         /* buffers allocated now */
    uint8_t high_water;     /* most ever allocated at once */
};

void mip_pbuf_pool_init(struct mip_pbuf_pool *pool);
/* An empty pbuf with `headroom` bytes before off; NULL when the pool is
 * exhausted or headroom > MIP_PBUF_SIZE. */
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
    return (size_t)MIP_PBUF_SIZE - p->off - p->len;
}
uint8_t mip_pbuf_index(const struct mip_pbuf_pool *pool, const struct mip_pbuf *p);
struct mip_pbuf *mip_pbuf_at(struct mip_pbuf_pool *pool, uint8_t index);

#endif
