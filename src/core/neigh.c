/* Neighbor cache shared by ARP and ND; see include/moteip/neigh.h. */
#include "core.h"
#include "moteip/wire/ethernet.h"
#include <string.h>

#if MIP_CONF_ETHERNET

static size_t ip_len(uint8_t family)
{
    return family == MIP_AF_INET ? 4u : 16u;
}

struct mip_neigh *neigh_find(struct mip_stack *s, uint8_t family, uint8_t netif,
                             const uint8_t *ip)
{
    unsigned i;
    for (i = 0; i < MIP_NEIGH_MAX; i++) {
        struct mip_neigh *e = &s->neigh[i];
        if (e->state != MIP_NEIGH_FREE && e->family == family && e->netif == netif &&
            memcmp(e->ip, ip, ip_len(family)) == 0)
            return e;
    }
    return NULL;
}

/* Frees e's queued packet, if any, counting it under `why`. */
static void neigh_drop_pending(struct mip_stack *s, struct mip_neigh *e, enum mip_stat why)
{
    if (e->pending != MIP_PBUF_NONE) {
        mip_stat_inc(&s->stats, why);
        mip_pbuf_free(&s->pool, mip_pbuf_at(&s->pool, e->pending));
        e->pending = MIP_PBUF_NONE;
    }
}

/* Orders replacement candidates: true when a should go before b. A
 * resolution in progress goes before any resolved neighbor (a scan of
 * invented addresses must not push out a neighbor in use), the oldest
 * first within each kind (`used`: last use, or when a resolution last
 * queued a packet). */
static bool neigh_older(const struct mip_neigh *a, const struct mip_neigh *b)
{
    bool ai = a->state == MIP_NEIGH_INCOMPLETE, bi = b->state == MIP_NEIGH_INCOMPLETE;
    return ai != bi ? ai : mip_time_before(a->used, b->used);
}

/* A free entry, else the oldest resolution in progress (its packet is
 * dropped), else the least recently used resolved entry. */
static struct mip_neigh *neigh_alloc(struct mip_stack *s, uint8_t family, uint8_t netif,
                                     const uint8_t *ip)
{
    struct mip_neigh *victim = NULL;
    unsigned i;
    for (i = 0; i < MIP_NEIGH_MAX; i++) {
        struct mip_neigh *e = &s->neigh[i];
        if (e->state == MIP_NEIGH_FREE) {
            victim = e;
            break;
        }
        if (victim == NULL || neigh_older(e, victim))
            victim = e;
    }
    /* A free entry's `pending` is meaningless (zeroed at init: index 0 of
     * a live buffer), so only a reused entry has a packet to drop. */
    if (victim->state != MIP_NEIGH_FREE)
        neigh_drop_pending(s, victim, MIP_STAT_drop_neigh_evicted);
    memset(victim, 0, sizeof(*victim));
    victim->family = family;
    victim->netif = netif;
    victim->pending = MIP_PBUF_NONE;
    victim->used = s->now;
    memcpy(victim->ip, ip, ip_len(family));
    return victim;
}

/* Queues p on the incomplete entry e: a packet already waiting there is
 * replaced; otherwise, when resolutions hold MIP_NEIGH_QUEUE_MAX buffers,
 * the one that has waited longest is dropped. */
static void neigh_queue(struct mip_stack *s, struct mip_neigh *e, struct mip_pbuf *p)
{
    struct mip_neigh *oldest = NULL;
    unsigned i, held = 0;
    if (e->pending != MIP_PBUF_NONE) {
        neigh_drop_pending(s, e, MIP_STAT_drop_neigh_queue_replaced);
    } else {
        for (i = 0; i < MIP_NEIGH_MAX; i++) {
            struct mip_neigh *o = &s->neigh[i];
            if (o->state != MIP_NEIGH_INCOMPLETE || o->pending == MIP_PBUF_NONE)
                continue;
            held++;
            if (oldest == NULL || mip_time_before(o->used, oldest->used))
                oldest = o;
        }
        if (held >= MIP_NEIGH_QUEUE_MAX)
            neigh_drop_pending(s, oldest, MIP_STAT_drop_neigh_evicted);
    }
    e->pending = mip_pbuf_index(&s->pool, p);
    e->used = s->now;
}

static mip_status neigh_solicit(struct mip_stack *s, struct mip_netif *nif,
                                const struct mip_neigh *e, bool unicast)
{
#if MIP_CONF_IPV4
    if (e->family == MIP_AF_INET)
        return arp_request(s, nif, e->ip, unicast ? e->hw : NULL);
#endif
#if MIP_CONF_IPV6
    if (e->family == MIP_AF_INET6)
        return nd_solicit(s, nif, e->ip, unicast ? e->hw : NULL);
#endif
    (void)s; (void)nif; (void)unicast;
    return MIP_ERR_INVALID;
}

static uint16_t ethertype_of(uint8_t family)
{
    return family == MIP_AF_INET ? MIP_ETHERTYPE_IPV4 : MIP_ETHERTYPE_IPV6;
}

mip_status neigh_output(struct mip_stack *s, struct mip_netif *nif,
                        struct mip_pbuf *p, const struct mip_addr *nexthop)
{
    struct mip_neigh *e = neigh_find(s, nexthop->family, nif->index, nexthop->bytes);
    if (e != NULL && e->state != MIP_NEIGH_INCOMPLETE) {
        e->used = s->now;
        if (e->state == MIP_NEIGH_STALE && e->probes == 0) {
            /* Re-confirm a stale neighbor with one unicast solicitation
             * while still using it (RFC 4861 7.3.3, without DELAY). */
            e->probes = 1;
            e->deadline = s->now + MIP_NEIGH_RETRANS_MS;
            (void)neigh_solicit(s, nif, e, true);
        }
        return eth_send(s, nif, p, e->hw, ethertype_of(e->family));
    }
    if (e == NULL) {
        if (!rate_take(&s->neigh_limit, s->now, MIP_NEIGH_RESOLVE_BURST,
                       MIP_NEIGH_RESOLVE_INTERVAL_MS)) {
            STAT(s, drop_neigh_rate_limited);
            mip_pbuf_free(&s->pool, p);
            return MIP_ERR_NOBUFS;
        }
        e = neigh_alloc(s, nexthop->family, nif->index, nexthop->bytes);
        e->state = MIP_NEIGH_INCOMPLETE;
        e->probes = 1;
        e->deadline = s->now + MIP_NEIGH_RETRANS_MS;
        neigh_queue(s, e, p);
        (void)neigh_solicit(s, nif, e, false);
        return MIP_ERR_PENDING;
    }
    neigh_queue(s, e, p);
    return MIP_ERR_PENDING;
}

void neigh_learn(struct mip_stack *s, struct mip_netif *nif, uint8_t family,
                 const uint8_t *ip, const uint8_t hw[6], bool create, bool confirmed)
{
    struct mip_neigh *e = neigh_find(s, family, nif->index, ip);
    bool changed;
    if (e == NULL) {
        if (!create)
            return;
        e = neigh_alloc(s, family, nif->index, ip);
        e->state = MIP_NEIGH_INCOMPLETE;
    }
    changed = e->state == MIP_NEIGH_INCOMPLETE || memcmp(e->hw, hw, 6) != 0;
    if (e->state == MIP_NEIGH_INCOMPLETE)
        STAT(s, neigh_resolved);
    memcpy(e->hw, hw, 6);
    if (confirmed) {
        e->state = MIP_NEIGH_REACHABLE;
        e->deadline = s->now + MIP_NEIGH_REACHABLE_MS;
        e->probes = 0;
    } else if (changed) {
        e->state = MIP_NEIGH_STALE;
        e->probes = 0;
    }
    if (e->pending != MIP_PBUF_NONE) {
        struct mip_pbuf *p = mip_pbuf_at(&s->pool, e->pending);
        e->pending = MIP_PBUF_NONE;
        (void)eth_send(s, nif, p, e->hw, ethertype_of(family));
    }
}

/* A STALE entry has no timer of its own: its last use (the LRU order) is
 * held within the horizon (timer.h), so no comparison of two entries'
 * stamps spans half the wrap (issue 24). Folds the time to the next hold
 * into `next`. */
static uint32_t stale_horizon(struct mip_neigh *e, mip_time_t now, uint32_t next)
{
    uint32_t d = mip_time_hold(&e->used, now);
    return d < next ? d : next;
}

uint32_t neigh_poll(struct mip_stack *s, mip_time_t now)
{
    uint32_t next = MIP_POLL_IDLE;
    unsigned i;
    for (i = 0; i < MIP_NEIGH_MAX; i++) {
        struct mip_neigh *e = &s->neigh[i];
        struct mip_netif *nif;
        if (e->state == MIP_NEIGH_FREE)
            continue;
        if (e->state == MIP_NEIGH_STALE && e->probes == 0) {
            next = stale_horizon(e, now, next);
            continue;
        }
        if (mip_time_reached(now, e->deadline)) {
            nif = mip_netif_get(s, e->netif);
            if (e->state == MIP_NEIGH_INCOMPLETE) {
                if (e->probes >= MIP_NEIGH_MAX_PROBES || nif == NULL) {
                    neigh_drop_pending(s, e, MIP_STAT_drop_neigh_unresolved);
                    e->state = MIP_NEIGH_FREE;
                    continue;
                }
                e->probes++;
                e->deadline = now + MIP_NEIGH_RETRANS_MS;
                (void)neigh_solicit(s, nif, e, false);
            } else {
                /* REACHABLE timed out, or a STALE probe went unanswered:
                 * keep using it, re-probe on next use. */
                e->state = MIP_NEIGH_STALE;
                e->probes = 0;
                next = stale_horizon(e, now, next);
                continue;
            }
        }
        next = mip_next_delay(next, now, e->deadline);
    }
    return next;
}

#else /* !MIP_CONF_ETHERNET: no link addresses to resolve */

uint32_t neigh_poll(struct mip_stack *s, mip_time_t now)
{
    (void)s; (void)now;
    return MIP_POLL_IDLE;
}

#endif
