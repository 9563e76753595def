/* Fragment reassembly for IPv4 and IPv6; see include/moteip/reass.h. */
#include "core.h"
#include "moteip/wire/icmpv4.h"
#include "moteip/wire/icmpv6.h"
#include <string.h>

static bool block_is_set(const struct mip_reass_slot *r, uint16_t block)
{
    return (r->bitmap[block / 8u] & (uint8_t)(1u << (block % 8u))) != 0;
}

static void block_set(struct mip_reass_slot *r, uint16_t block)
{
    r->bitmap[block / 8u] |= (uint8_t)(1u << (block % 8u));
}

void reass_free(struct mip_reass_slot *slot)
{
    slot->used = 0;
}

static bool same_source(const struct mip_reass_slot *r, const struct mip_reass_frag *f)
{
    return r->used && r->family == f->family &&
           memcmp(r->src, f->src, mip_addr_len(f->family)) == 0;
}

static struct mip_reass_slot *reass_find(struct mip_stack *s, const struct mip_reass_frag *f)
{
    size_t alen = mip_addr_len(f->family);
    unsigned i;
    for (i = 0; i < MIP_REASS_SLOTS; i++) {
        struct mip_reass_slot *r = &s->reass[i];
        /* IPv4 keys on the protocol too (RFC 791); IPv6 only on the
         * addresses and identification (RFC 8200 4.5). */
        if (same_source(r, f) && r->id == f->id &&
            (f->family != MIP_AF_INET || r->proto == f->proto) &&
            memcmp(r->dst, f->dst, alen) == 0)
            return r;
    }
    return NULL;
}

/* A datagram still in its slot after MIP_REASS_PROTECT_MS without a
 * fragment is stalled: a lost fragment, or a forged one. */
static bool reass_stalled(const struct mip_stack *s, const struct mip_reass_slot *r)
{
    return mip_time_reached(s->now, r->last + MIP_REASS_PROTECT_MS);
}

/* The slot a new datagram may take (reass.h): a free one while its source
 * holds fewer than MIP_REASS_PER_SRC; else, among the slots it may take
 * over (its source's own at the share, any when all are used), the one
 * stalled longest, else the newest datagram that has had a single
 * fragment. NULL, counted, when every candidate is making progress. */
static struct mip_reass_slot *reass_slot_for(struct mip_stack *s,
                                             const struct mip_reass_frag *f)
{
    struct mip_reass_slot *free_slot = NULL, *stalled = NULL, *newest = NULL;
    unsigned i, mine = 0;
    for (i = 0; i < MIP_REASS_SLOTS; i++) {
        struct mip_reass_slot *r = &s->reass[i];
        if (!r->used) {
            if (free_slot == NULL)
                free_slot = r;
        } else if (same_source(r, f)) {
            mine++;
        }
    }
    if (free_slot != NULL && mine < MIP_REASS_PER_SRC)
        return free_slot;
    for (i = 0; i < MIP_REASS_SLOTS; i++) {
        struct mip_reass_slot *r = &s->reass[i];
        if (!r->used || (mine >= MIP_REASS_PER_SRC && !same_source(r, f)))
            continue;
        if (reass_stalled(s, r)) {
            if (stalled == NULL || mip_time_before(r->last, stalled->last))
                stalled = r;
        } else if (r->frags < 2u && (newest == NULL || r->age < newest->age)) {
            newest = r;
        }
    }
    if (stalled == NULL && newest == NULL) {
        if (mine >= MIP_REASS_PER_SRC)
            STAT(s, drop_frag_src_limit);
        else
            STAT(s, drop_frag_no_slot);
        return NULL;
    }
    STAT(s, drop_frag_evicted);
    return stalled != NULL ? stalled : newest;
}

static struct mip_reass_slot *reass_new(struct mip_stack *s, const struct mip_reass_frag *f)
{
    size_t alen = mip_addr_len(f->family);
    struct mip_reass_slot *r = reass_slot_for(s, f);
    unsigned i;
    if (r == NULL)
        return NULL;
    /* every other datagram is now one older than the newest */
    for (i = 0; i < MIP_REASS_SLOTS; i++)
        if (s->reass[i].used && s->reass[i].age < UINT8_MAX)
            s->reass[i].age++;
    r->age = 0;
    r->frags = 0;
    r->used = 1;
    r->family = f->family;
    r->proto = f->proto;
    r->netif = f->netif;
    r->have_first = 0;
    r->group = 0;
    r->hdr_len = 0;
    r->id = f->id;
    r->total = 0;
    r->deadline = s->now + MIP_REASS_TIMEOUT_MS;
    memset(r->src, 0, sizeof(r->src));
    memset(r->dst, 0, sizeof(r->dst));
    memcpy(r->src, f->src, alen);
    memcpy(r->dst, f->dst, alen);
    memset(r->bitmap, 0, sizeof(r->bitmap));
    return r;
}

/* Drops the whole datagram in r and counts why. */
static struct mip_reass_slot *reass_discard(struct mip_stack *s, struct mip_reass_slot *r,
                                            enum mip_stat why)
{
    if (r != NULL)
        reass_free(r);
    mip_stat_inc(&s->stats, why);
    return NULL;
}

static bool reass_complete(const struct mip_reass_slot *r)
{
    uint16_t b, blocks;
    if (r->total == 0 && !r->have_first)
        return false;
    if (r->total == 0)
        return false;
    blocks = (uint16_t)((r->total + 7u) / 8u);
    for (b = 0; b < blocks; b++)
        if (!block_is_set(r, b))
            return false;
    return true;
}

struct mip_reass_slot *reass_add(struct mip_stack *s, const struct mip_reass_frag *f)
{
    struct mip_reass_slot *r;
    uint32_t end = (uint32_t)f->offset + f->len;
    uint16_t b, first_block, end_block;
    STAT(s, frag_rx);
    r = reass_find(s, f);
    if (end > MIP_REASS_SIZE)
        return reass_discard(s, r, MIP_STAT_drop_frag_too_big);
    if (r == NULL && (r = reass_new(s, f)) == NULL)
        return NULL;   /* counted by reass_slot_for */
    r->last = s->now;
    /* The end of the datagram is fixed by the last fragment; anything that
     * contradicts it is inconsistent and ends the datagram. */
    if (!f->more) {
        if (r->total != 0 && r->total != end)
            return reass_discard(s, r, MIP_STAT_drop_frag_malformed);
        for (b = (uint16_t)((end + 7u) / 8u); b < MIP_REASS_SIZE / 8u; b++)
            if (block_is_set(r, b))
                return reass_discard(s, r, MIP_STAT_drop_frag_malformed);
        r->total = (uint16_t)end;
    } else if (r->total != 0 && end > r->total) {
        return reass_discard(s, r, MIP_STAT_drop_frag_malformed);
    }
    first_block = (uint16_t)(f->offset / 8u);
    end_block = (uint16_t)((end + 7u) / 8u);
    for (b = first_block; b < end_block; b++)
        if (block_is_set(r, b))
            return reass_discard(s, r, MIP_STAT_drop_frag_overlap);
    memcpy(r->data + f->offset, f->data, f->len);
    if (f->group)
        r->group = 1;
    for (b = first_block; b < end_block; b++)
        block_set(r, b);
    if (r->frags < UINT8_MAX)
        r->frags++;
    if (f->offset == 0) {
        r->have_first = 1;
        r->ttl = f->ttl;
        r->proto = f->proto;   /* IPv6: the first fragment's next header rules */
        r->netif = f->netif;
        r->hdr_len = (uint8_t)(f->hdr_len < sizeof(r->hdr) ? f->hdr_len : sizeof(r->hdr));
        memcpy(r->hdr, f->hdr, r->hdr_len);
    }
    if (!reass_complete(r))
        return NULL;
    STAT(s, frag_reassembled);
    return r;
}

static void reass_expire(struct mip_stack *s, struct mip_reass_slot *r)
{
    STAT(s, drop_frag_timeout);
    /* RFC 792 / RFC 8200 4.5: "fragment reassembly time exceeded", only
     * when the first fragment (and so a header to quote) arrived, and never
     * about group traffic (RFC 1122 3.2.2, RFC 4443 2.4(e)). */
    if (r->have_first && !r->group) {
        size_t n = r->total != 0 && r->total < 8u ? r->total : 8u;
#if MIP_CONF_IPV4
        if (r->family == MIP_AF_INET)
            icmpv4_send_error(s, MIP_ICMPV4_TIME_EXCEEDED, MIP_ICMPV4_TE_REASS, 0,
                              r->hdr, r->hdr_len, r->data, n);
#endif
#if MIP_CONF_IPV6
        if (r->family == MIP_AF_INET6)
            icmpv6_send_error(s, r->netif, MIP_ICMPV6_TIME_EXCEEDED, MIP_ICMPV6_TE_REASS, 0,
                              r->hdr, r->hdr_len, r->data, n, false);
#endif
    }
    reass_free(r);
}

uint32_t reass_poll(struct mip_stack *s, mip_time_t now)
{
    uint32_t next = MIP_POLL_IDLE;
    unsigned i;
    for (i = 0; i < MIP_REASS_SLOTS; i++) {
        struct mip_reass_slot *r = &s->reass[i];
        if (!r->used)
            continue;
        if (mip_time_reached(now, r->deadline)) {
            reass_expire(s, r);
            continue;
        }
        next = mip_next_delay(next, now, r->deadline);
    }
    return next;
}
