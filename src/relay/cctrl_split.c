/*
 * cctrl's split and merge rules ([B] s.4.5.1). See include/moteip/cctrl_split.h.
 */
#include "moteip/cctrl_split.h"
#include "moteip/relay.h"

#include <string.h>

/* With cctrl only (MIP_CONF_RELAY_MODES), as cctrl.c. */
#if MIP_CONF_FORWARD && MIP_RELAY_HAS_CCTRL

mip_status mip_cctrl_split_init(struct mip_cctrl_split *s, uint8_t n, uint16_t chunk)
{
    if (s == NULL || n < 1u || n > MIP_CCTRL_SUBFLOWS_MAX || chunk == 0u)
        return MIP_ERR_INVALID;
    s->n = n;
    s->chunk = chunk;
    s->turn = 0;
    s->off = 0;
    return MIP_OK;
}

uint8_t mip_cctrl_split_next(const struct mip_cctrl_split *s, uint16_t *room)
{
    *room = (uint16_t)(s->chunk - s->off);
    return s->turn;
}

mip_status mip_cctrl_split_sent(struct mip_cctrl_split *s, uint16_t bytes)
{
    if (bytes > s->chunk - s->off)
        return MIP_ERR_INVALID;
    s->off = (uint16_t)(s->off + bytes);
    if (s->off == s->chunk) {
        s->off = 0;
        s->turn = (uint8_t)((s->turn + 1u) % s->n);
    }
    return MIP_OK;
}

mip_status mip_cctrl_merge_init(struct mip_cctrl_merge *m, uint8_t n, uint16_t chunk,
                                uint8_t *buf, uint16_t cap)
{
    if (m == NULL || buf == NULL || n < 1u || n > MIP_CCTRL_SUBFLOWS_MAX || chunk == 0u ||
        cap == 0u)
        return MIP_ERR_INVALID;
    memset(m, 0, sizeof(*m));
    m->n = n;
    m->chunk = chunk;
    m->cap = cap;
    m->buf = buf;
    return MIP_OK;
}

uint16_t mip_cctrl_merge_room(const struct mip_cctrl_merge *m, uint8_t f)
{
    return f < m->n ? (uint16_t)(m->cap - m->held[f]) : 0u;
}

size_t mip_cctrl_merge_put(struct mip_cctrl_merge *m, uint8_t f, const uint8_t *data, size_t len)
{
    uint8_t *ring;
    size_t take, k;

    if (f >= m->n)
        return 0;
    take = m->cap - m->held[f];
    if (take > len)
        take = len;
    if (take < len) {
        m->refused += (uint32_t)(len - take);
        m->stalls++;
    }
    ring = m->buf + (size_t)f * m->cap;
    for (k = 0; k < take; k++)
        ring[(m->head[f] + m->held[f] + k) % m->cap] = data[k];
    m->held[f] = (uint16_t)(m->held[f] + take);
    return take;
}

size_t mip_cctrl_merge_read(struct mip_cctrl_merge *m, uint8_t *out, size_t cap)
{
    size_t done = 0;

    /* at most one pass round the subflows without progress ends it */
    while (done < cap && m->held[m->turn] > 0u) {
        uint8_t f = m->turn;
        const uint8_t *ring = m->buf + (size_t)f * m->cap;
        size_t n = m->held[f];
        size_t k;
        if (n > (size_t)(m->chunk - m->off))
            n = (size_t)(m->chunk - m->off);
        if (n > cap - done)
            n = cap - done;
        for (k = 0; k < n; k++)
            out[done + k] = ring[(m->head[f] + k) % m->cap];
        m->head[f] = (uint16_t)((m->head[f] + n) % m->cap);
        m->held[f] = (uint16_t)(m->held[f] - n);
        m->off = (uint16_t)(m->off + n);
        done += n;
        if (m->off == m->chunk) {
            m->off = 0;
            m->turn = (uint8_t)((m->turn + 1u) % m->n);
        }
    }
    return done;
}

#endif /* MIP_CONF_FORWARD && MIP_RELAY_HAS_CCTRL */
