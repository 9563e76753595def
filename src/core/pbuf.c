/* Packet buffer pool: a fixed array scanned for a free slot. Pools are
 * small (<= 250), so a scan costs less code and RAM than a free list. The
 * array and its buffers are the pool's own or the caller's (pbuf.h). */
#include "moteip/pbuf.h"
#include <string.h>

static void pool_reset(struct mip_pbuf_pool *pool)
{
    uint8_t i;
    for (i = 0; i < pool->count; i++) {
        pool->buf[i].in_use = 0;
        pool->buf[i].next = MIP_PBUF_NONE;
    }
    pool->in_use = 0;
    pool->high_water = 0;
}

void mip_pbuf_pool_init(struct mip_pbuf_pool *pool)
{
#if MIP_BUFS_OWN
    uint8_t i;
    pool->buf = pool->own;
    pool->count = MIP_PBUF_COUNT;
    pool->size = MIP_PBUF_SIZE;
    for (i = 0; i < MIP_PBUF_COUNT; i++) {
        pool->own[i].cap = MIP_PBUF_SIZE;
        pool->own[i].data = pool->own_mem[i];
    }
#else
    pool->buf = NULL;
    pool->count = 0;
    pool->size = 0;
#endif
    pool_reset(pool);
}

mip_status mip_pbuf_pool_init_storage(struct mip_pbuf_pool *pool,
                                      const struct mip_pbuf_storage *st)
{
    uint8_t i;
    if (st == NULL || st->hdr == NULL || st->mem == NULL ||
        st->count <= MIP_NEIGH_QUEUE_MAX || st->count > 250u || st->size < MIP_PBUF_SIZE_MIN)
        return MIP_ERR_INVALID;
    pool->buf = st->hdr;
    pool->count = st->count;
    pool->size = st->size;
    for (i = 0; i < st->count; i++) {
        st->hdr[i].cap = st->size;
        st->hdr[i].data = st->mem + (size_t)i * st->size;
    }
    pool_reset(pool);
    return MIP_OK;
}

struct mip_pbuf *mip_pbuf_alloc(struct mip_pbuf_pool *pool, uint16_t headroom)
{
    uint8_t i;
    if (headroom > pool->size)
        return NULL;
    for (i = 0; i < pool->count; i++) {
        struct mip_pbuf *p = &pool->buf[i];
        if (!p->in_use) {
            p->in_use = 1;
            p->off = headroom;
            p->len = 0;
            p->next = MIP_PBUF_NONE;
            pool->in_use++;
            if (pool->in_use > pool->high_water)
                pool->high_water = pool->in_use;
            return p;
        }
    }
    return NULL;
}

void mip_pbuf_free(struct mip_pbuf_pool *pool, struct mip_pbuf *p)
{
    if (p == NULL || !p->in_use)
        return;
    p->in_use = 0;
    p->next = MIP_PBUF_NONE;
    pool->in_use--;
}

uint8_t *mip_pbuf_push(struct mip_pbuf *p, uint16_t n)
{
    if (n > p->off)
        return NULL;
    p->off = (uint16_t)(p->off - n);
    p->len = (uint16_t)(p->len + n);
    return p->data + p->off;
}

uint8_t *mip_pbuf_put(struct mip_pbuf *p, uint16_t n)
{
    uint8_t *end;
    if (n > mip_pbuf_tailroom(p))
        return NULL;
    end = p->data + p->off + p->len;
    p->len = (uint16_t)(p->len + n);
    return end;
}

void mip_pbuf_pull(struct mip_pbuf *p, uint16_t n)
{
    if (n > p->len)
        n = p->len;
    p->off = (uint16_t)(p->off + n);
    p->len = (uint16_t)(p->len - n);
}

uint8_t mip_pbuf_index(const struct mip_pbuf_pool *pool, const struct mip_pbuf *p)
{
    return (uint8_t)(p - pool->buf);
}

struct mip_pbuf *mip_pbuf_at(struct mip_pbuf_pool *pool, uint8_t index)
{
    return index < pool->count ? &pool->buf[index] : NULL;
}
