/* Stateless address autoconfiguration (slaac.h, RFC 4862 s.5.5.3): the
 * address from an announced /64 and the netif's link-layer IID, its valid
 * and preferred lifetimes as seconds-left counters. */
#include "core.h"
#include <string.h>

#if MIP_CONF_SLAAC

#define SLAAC_IID_PREFIX_LEN 64u

static bool is_infinite(uint32_t s)
{
    return s == MIP_SLAAC_INFINITE;
}

/* Brings every counter forward to now: whole seconds elapsed since the
 * stamp are taken off, the remainder is carried. The elapsed time is an
 * unsigned difference, right for up to 49.7 days; the poll keeps it below
 * MIP_SLAAC_REFRESH_MS. */
static void slaac_refresh(struct mip_slaac *sl, mip_time_t now)
{
    uint32_t elapsed = (uint32_t)(now - sl->last_ms) + sl->carry_ms;
    uint32_t secs = elapsed / 1000u;
    unsigned i;
    bool any = false;
    for (i = 0; i < MIP_SLAAC_MAX; i++) {
        struct mip_slaac_entry *e = &sl->e[i];
        if (e->slot == 0u)
            continue;
        any = true;
        if (!is_infinite(e->valid_s))
            e->valid_s = e->valid_s > secs ? e->valid_s - secs : 0u;
        if (!is_infinite(e->preferred_s))
            e->preferred_s = e->preferred_s > secs ? e->preferred_s - secs : 0u;
    }
    sl->last_ms = now;
    /* Without entries there is nothing to carry: a new one starts now. */
    sl->carry_ms = any ? (uint16_t)(elapsed % 1000u) : 0u;
}

static struct mip_netif_addr6 *entry_addr(struct mip_stack *s, const struct mip_slaac_entry *e)
{
    return &s->netif[e->netif].addr6[e->slot];
}

/* Applies the counters to the netif: deprecated or removed. */
static void slaac_apply(struct mip_stack *s, struct mip_slaac_entry *e)
{
    struct mip_netif_addr6 *a = entry_addr(s, e);
    if (e->valid_s == 0u) {
        memset(a, 0, sizeof(*a));
        memset(e, 0, sizeof(*e));
        STAT(s, slaac_expired);
        return;
    }
    if (e->preferred_s == 0u)
        a->used |= MIP_NETIF_ADDR_DEPRECATED;
    else
        a->used &= (uint8_t)~MIP_NETIF_ADDR_DEPRECATED;
}

mip_status mip_slaac_address_of(const struct mip_stack *s, uint8_t netif,
                                const uint8_t prefix[16], uint8_t addr[16])
{
    const struct mip_netif *nif;
    if (netif >= MIP_NETIF_MAX || prefix == NULL)
        return MIP_ERR_INVALID;
    nif = &s->netif[netif];
    if (nif->ops == NULL || !nif->addr6[0].used)
        return MIP_ERR_INVALID;
    /* fe80::/10 and ff00::/8 are no prefixes to autoconfigure from. */
    if (prefix[0] == 0xFFu || (prefix[0] == 0xFEu && (prefix[1] & 0xC0u) == 0x80u))
        return MIP_ERR_INVALID;
    memcpy(addr, prefix, 8);
    memcpy(addr + 8, nif->addr6[0].addr + 8, 8);
    return MIP_OK;
}

static struct mip_slaac_entry *slaac_find(struct mip_stack *s, uint8_t netif,
                                          const uint8_t addr[16])
{
    unsigned i;
    for (i = 0; i < MIP_SLAAC_MAX; i++) {
        struct mip_slaac_entry *e = &s->slaac.e[i];
        if (e->slot != 0u && e->netif == netif && memcmp(entry_addr(s, e)->addr, addr, 16) == 0)
            return e;
    }
    return NULL;
}

/* RFC 4862 s.5.5.3 e): the valid lifetime of an address already there. */
static uint32_t two_hour_rule(uint32_t remaining, uint32_t advertised)
{
    if (is_infinite(remaining))
        return is_infinite(advertised) || advertised > MIP_SLAAC_TWO_HOURS_S
                   ? advertised : MIP_SLAAC_TWO_HOURS_S;
    if (advertised > MIP_SLAAC_TWO_HOURS_S || advertised > remaining)
        return advertised;
    if (remaining <= MIP_SLAAC_TWO_HOURS_S)
        return remaining;
    return MIP_SLAAC_TWO_HOURS_S;
}

static mip_status slaac_add(struct mip_stack *s, uint8_t netif, const uint8_t addr[16],
                            uint32_t valid_s, uint32_t preferred_s)
{
    struct mip_slaac_entry *free_e = NULL;
    uint8_t slot;
    unsigned i;
    for (i = 0; i < MIP_SLAAC_MAX && free_e == NULL; i++)
        if (s->slaac.e[i].slot == 0u)
            free_e = &s->slaac.e[i];
    if (free_e == NULL) {
        STAT(s, slaac_full);
        return MIP_ERR_NOBUFS;
    }
    slot = netif_put_addr6(&s->netif[netif], addr, SLAAC_IID_PREFIX_LEN);
    if (slot == 0u) {
        STAT(s, slaac_full);
        return MIP_ERR_NOBUFS;
    }
    free_e->netif = netif;
    free_e->slot = slot;
    free_e->valid_s = valid_s;
    free_e->preferred_s = preferred_s;
    slaac_apply(s, free_e);
    STAT(s, slaac_added);
    return MIP_OK;
}

mip_status mip_slaac_configure(struct mip_stack *s, uint8_t netif, const uint8_t prefix[16],
                               uint8_t prefix_len, uint32_t valid_s, uint32_t preferred_s,
                               uint32_t now_ms)
{
    uint8_t addr[16];
    struct mip_slaac_entry *e;
    struct mip_addr a;
    mip_status st = mip_slaac_address_of(s, netif, prefix, addr);
    if (st != MIP_OK)
        return st;
    /* c): an infinite preferred lifetime is above any finite valid one. */
    if (preferred_s > valid_s)
        return MIP_ERR_INVALID;
    /* d): prefix length + IID length must be 128. */
    if (prefix_len != SLAAC_IID_PREFIX_LEN)
        return MIP_ERR_UNSUPPORTED;
    slaac_refresh(&s->slaac, now_ms);
    e = slaac_find(s, netif, addr);
    if (e == NULL) {
        mip_addr_set6(&a, addr);
        if (valid_s == 0u || mip_netif_has_addr(&s->netif[netif], &a))
            return MIP_OK;
        return slaac_add(s, netif, addr, valid_s, preferred_s);
    }
    e->valid_s = two_hour_rule(e->valid_s, valid_s);
    /* A preferred lifetime beyond the valid one would mean nothing. */
    e->preferred_s = (!is_infinite(e->valid_s) && preferred_s > e->valid_s) ? e->valid_s
                                                                            : preferred_s;
    slaac_apply(s, e);
    return MIP_OK;
}

mip_status mip_slaac_lifetimes(struct mip_stack *s, uint8_t netif, const uint8_t prefix[16],
                               uint32_t now_ms, uint32_t *valid_s, uint32_t *preferred_s)
{
    uint8_t addr[16];
    const struct mip_slaac_entry *e;
    if (mip_slaac_address_of(s, netif, prefix, addr) != MIP_OK)
        return MIP_ERR_NOTFOUND;
    (void)slaac_poll(s, now_ms);
    e = slaac_find(s, netif, addr);
    if (e == NULL)
        return MIP_ERR_NOTFOUND;
    if (valid_s != NULL)
        *valid_s = e->valid_s;
    if (preferred_s != NULL)
        *preferred_s = e->preferred_s;
    return MIP_OK;
}

mip_status mip_slaac_remove(struct mip_stack *s, uint8_t netif, const uint8_t prefix[16])
{
    uint8_t addr[16];
    struct mip_slaac_entry *e;
    if (mip_slaac_address_of(s, netif, prefix, addr) != MIP_OK)
        return MIP_ERR_NOTFOUND;
    e = slaac_find(s, netif, addr);
    if (e == NULL)
        return MIP_ERR_NOTFOUND;
    memset(entry_addr(s, e), 0, sizeof(struct mip_netif_addr6));
    memset(e, 0, sizeof(*e));
    return MIP_OK;
}

/* Milliseconds until a counter of `left` seconds reaches 0, given the
 * carried remainder (saturating; infinite never). */
static uint32_t delay_of(uint32_t left, uint16_t carry_ms)
{
    if (is_infinite(left))
        return MIP_POLL_IDLE;
    if (left > MIP_SLAAC_REFRESH_MS / 1000u)
        return MIP_SLAAC_REFRESH_MS;
    return left * 1000u - carry_ms;
}

uint32_t slaac_poll(struct mip_stack *s, mip_time_t now)
{
    struct mip_slaac *sl = &s->slaac;
    uint32_t next = MIP_POLL_IDLE, d;
    unsigned i;
    bool any = false;
    slaac_refresh(sl, now);
    for (i = 0; i < MIP_SLAAC_MAX; i++) {
        struct mip_slaac_entry *e = &sl->e[i];
        if (e->slot == 0u)
            continue;
        slaac_apply(s, e);
        if (e->slot == 0u)
            continue;
        any = true;
        d = delay_of(e->valid_s, sl->carry_ms);
        if (d < next) next = d;
        if (e->preferred_s != 0u) {
            d = delay_of(e->preferred_s, sl->carry_ms);
            if (d < next) next = d;
        }
    }
    /* The stamp must be brought forward well within half the wrap. */
    if (any && next > MIP_SLAAC_REFRESH_MS)
        next = MIP_SLAAC_REFRESH_MS;
    return next;
}

#endif
