/* Packet buffer pool: a fixed array scanned for a free slot. Pools are
 * small (<= 250), so a scan costs less code and RAM than a free list. */
#include "moteip/pbuf.h"
#include <string.h>

void mip_pbuf_pool_init(struct mip_pbuf_pool *pool)
{
    uint8_t i;
    for (i = 0; i < MIP_PBUF_COUNT; i++) {
        pool->buf[i].in_use = 0;
        pool->buf[i].next = MIP_PBUF_NONE;
    }
    pool->in_use = 0;
    pool->high_water = 0;
}

struct mip_pbuf *mip_pbuf_alloc(struct mip_pbuf_pool *pool, uint16_t headroom)
{
    uint8_t i;
    if (headroom > MIP_PBUF_SIZE)
        return NULL;
    for (i = 0; i < MIP_PBUF_COUNT; i++) {
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
    return index < MIP_PBUF_COUNT ? &pool->buf[index] : NULL;
}
