/* 6LoWPAN Neighbor Discovery (nd6lo.h, RFC 6775 / RFC 8505): the host's
 * router solicitation, prefix/context/ABRO learning and address
 * registration; the router's RA answers and registration table. Every timer
 * is a countdown in milliseconds brought forward by one stamp at each poll
 * and input, so no stored stamp is ever compared (registration lifetimes
 * reach 45 days, past half the clock's wrap). */
#include "core.h"
#include "moteip/wire/nd6lo.h"
#include "moteip/wire/bytes.h"
#include <string.h>

#if MIP_CONF_ND6LO

#define ROLE_HOST   1u
#define ROLE_ROUTER 2u
#define NEVER       UINT32_MAX

/* RFC 6775 s.9 and RFC 4861 s.10 constants (milliseconds). */
#define RTR_SOLICITATION_INTERVAL_MS     10000u
#define MAX_RTR_SOLICITATIONS            3u
#define MAX_RTR_SOLICITATION_INTERVAL_MS 60000u
#define RETRANS_TIMER_MS                 1000u
#define MAX_RTR_SOLICITATION_DELAY_MS    1000u
#define MAX_UNICAST_SOLICIT              3u
#define TENTATIVE_NCE_LIFETIME_MS        20000u
#define MIN_MS                           60000u
/* RFC 6550 s.7.2 lollipop start, which RFC 8505 s.5.2 points to for the TID. */
#define TID_START                        240u

static const uint8_t all_routers[16] = {0xFF, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};

static bool is_ll(const uint8_t *a)
{
    return a[0] == 0xFEu && (a[1] & 0xC0u) == 0x80u;
}

static uint32_t count_down(uint32_t v, uint32_t elapsed)
{
    if (v == NEVER)
        return v;
    return v > elapsed ? v - elapsed : 0u;
}

/* Brings every countdown forward to now. */
static void nd_refresh(struct mip_stack *s, mip_time_t now)
{
    struct mip_nd6lo *nd = &s->nd6lo;
    uint32_t e = (uint32_t)(now - nd->last_ms);
    unsigned i;
    nd->last_ms = now;
    if (e == 0u)
        return;
    nd->rs_left_ms = count_down(nd->rs_left_ms, e);
    nd->router_left_ms = count_down(nd->router_left_ms, e);
    nd->abro_left_ms = count_down(nd->abro_left_ms, e);
    for (i = 0; i < MIP_NETIF_ADDR6_MAX; i++)
        nd->hreg[i].left_ms = count_down(nd->hreg[i].left_ms, e);
    for (i = 0; i < MIP_LOWPAN_CTX_IDS; i++)
        nd->ctx_left_ms[i] = count_down(nd->ctx_left_ms[i], e);
#if MIP_CONF_ND6LO_ROUTER
    for (i = 0; i < MIP_ND6LO_REG_MAX; i++)
        nd->reg[i].left_ms = count_down(nd->reg[i].left_ms, e);
#endif
}

static struct mip_netif *nd_netif(struct mip_stack *s)
{
    return &s->netif[s->nd6lo.netif];
}

static mip_status check_netif(struct mip_stack *s, uint8_t netif)
{
    struct mip_netif *nif = mip_netif_get(s, netif);
    if (nif == NULL || !lowpan_is_iphc(nif))
        return MIP_ERR_INVALID;
    if (s->nd6lo.role != 0u)
        return MIP_ERR_INUSE;
    return MIP_OK;
}

/* Sends msg[0..len) from our link-local address to dst on the ND netif. */
static mip_status nd6lo_send(struct mip_stack *s, const uint8_t dst[16], uint8_t *msg,
                             size_t len)
{
    struct mip_netif *nif = nd_netif(s);
    struct mip_addr src, d;
    mip_addr_set6(&src, nif->addr6[0].addr);
    mip_addr_set6(&d, dst);
    return nd_send(s, nif, &src, &d, msg, len);
}

/* Appends our 802.15.4 address as an SLLAO. */
static size_t put_sllao(const struct mip_netif *nif, uint8_t *p, size_t cap)
{
    struct mip_802154_addr me;
    size_t w = 0;
    lowpan_our_link_addr(&nif->lowpan, &me);
    (void)mip_nd_lla_802154_emit(MIP_ND_OPT_SLLA, &me, p, cap, &w);
    return w;
}

/* --- host ------------------------------------------------------------------ */

static void send_rs(struct mip_stack *s)
{
    struct mip_nd6lo *nd = &s->nd6lo;
    uint8_t msg[MIP_ND_RS_LEN + 16];
    size_t n = 0;
    (void)mip_nd_emit_rs(msg, sizeof msg, &n);
    n += put_sllao(nd_netif(s), msg + n, sizeof msg - n);
    if (nd6lo_send(s, nd->has_router ? nd->router : all_routers, msg, n) == MIP_OK)
        STAT(s, nd6lo_rs_tx);
    if (nd->rs_count < 255u)
        nd->rs_count++;
    /* RFC 6775 s.5.3: MAX_RTR_SOLICITATIONS at the interval, then binary
     * exponential backoff truncated at MAX_RTR_SOLICITATION_INTERVAL. */
    if (nd->rs_count >= MAX_RTR_SOLICITATIONS) {
        nd->rs_interval_ms *= 2u;
        if (nd->rs_interval_ms > MAX_RTR_SOLICITATION_INTERVAL_MS)
            nd->rs_interval_ms = MAX_RTR_SOLICITATION_INTERVAL_MS;
    }
    nd->rs_left_ms = nd->rs_interval_ms;
}

static void solicit_again(struct mip_stack *s)
{
    struct mip_nd6lo *nd = &s->nd6lo;
    nd->rs_count = 0;
    nd->rs_interval_ms = RTR_SOLICITATION_INTERVAL_MS;
    nd->rs_left_ms = 0;
}

mip_status mip_nd6lo_host_start(struct mip_stack *s, uint8_t netif, mip_time_t now)
{
    struct mip_nd6lo *nd = &s->nd6lo;
    mip_status st = check_netif(s, netif);
    if (st != MIP_OK)
        return st;
    memset(nd, 0, sizeof(*nd));
    nd->role = ROLE_HOST;
    nd->netif = netif;
    nd->last_ms = now;
    nd->next_tid = TID_START;
    nd->router_left_ms = NEVER;
    nd->abro_left_ms = NEVER;
    memset(nd->ctx_left_ms, 0xFF, sizeof nd->ctx_left_ms);
    solicit_again(s);
    /* RFC 4861 s.6.3.7: the first RS waits a random delay up to
     * MAX_RTR_SOLICITATION_DELAY (1 s), so nodes booted together do not
     * solicit at once. */
    nd->rs_left_ms = mip_rng_next(&s->rng) % MAX_RTR_SOLICITATION_DELAY_MS;
    return MIP_OK;
}

static void drop_router(struct mip_stack *s)
{
    struct mip_nd6lo *nd = &s->nd6lo;
    struct mip_addr any;
    unsigned i;
    memset(&any, 0, sizeof any);
    any.family = MIP_AF_INET6;
    (void)mip_route_remove(s, &any, 0);
    nd->has_router = false;
    nd->router_left_ms = NEVER;
    /* what was registered there is registered nowhere now */
    for (i = 0; i < MIP_NETIF_ADDR6_MAX; i++) {
        if (nd->hreg[i].slot == 0u)
            continue;
        nd->hreg[i].state = MIP_ND6LO_H_WAIT;
        nd->hreg[i].left_ms = 0;
    }
    solicit_again(s);
}

static void send_registration(struct mip_stack *s, struct mip_nd6lo_hreg *h, uint16_t life_min)
{
    struct mip_nd6lo *nd = &s->nd6lo;
    struct mip_netif *nif = nd_netif(s);
    uint8_t msg[MIP_ND_NS_LEN + 16 + 16];
    struct mip_nd_earo e;
    size_t n = 0, w = 0;
    memset(&e, 0, sizeof e);
    e.t = true;
    e.r = true;          /* the router is to keep us reachable (RPL: a DAO) */
    e.tid = h->tid;
    e.lifetime_min = life_min;
    e.rovr_len = 8;
    memcpy(e.rovr, nif->lowpan.ext_addr, 8);
    (void)mip_nd_emit_ns(nif->addr6[h->slot].addr, NULL, 0, msg, sizeof msg, &n);
    n += put_sllao(nif, msg + n, sizeof msg - n);
    (void)mip_nd_earo_emit(&e, msg + n, sizeof msg - n, &w);
    if (nd6lo_send(s, nd->router, msg, n + w) == MIP_OK)
        STAT(s, nd6lo_reg_tx);
    h->state = MIP_ND6LO_H_REGISTERING;
    h->left_ms = RETRANS_TIMER_MS;
}

static void start_registration(struct mip_stack *s, struct mip_nd6lo_hreg *h)
{
    struct mip_nd6lo *nd = &s->nd6lo;
    h->tid = nd->next_tid++;
    if (nd->next_tid == 0u)
        nd->next_tid = 128u;   /* RFC 6550 s.7.2: the circular part */
    h->tries = 1;
    send_registration(s, h, MIP_ND6LO_REG_LIFETIME_MIN);
}

/* Every global address of the netif gets a registration record; records of
 * addresses gone are dropped. Due actions run. */
static void host_registrations(struct mip_stack *s)
{
    struct mip_nd6lo *nd = &s->nd6lo;
    struct mip_netif *nif = nd_netif(s);
    unsigned i;
    for (i = 0; i < MIP_NETIF_ADDR6_MAX; i++) {
        struct mip_nd6lo_hreg *h = &nd->hreg[i];
        uint8_t slot = (uint8_t)(i + 1u);
        if (!nif->addr6[slot].used) {
            memset(h, 0, sizeof *h);
            continue;
        }
        if (h->slot == 0u) {
            h->slot = slot;
            h->state = MIP_ND6LO_H_WAIT;
            h->left_ms = 0;
        }
        if (!nd->has_router || h->left_ms != 0u)
            continue;
        if (h->state == MIP_ND6LO_H_REGISTERING && h->tries < MAX_UNICAST_SOLICIT) {
            h->tries++;
            send_registration(s, h, MIP_ND6LO_REG_LIFETIME_MIN);
        } else if (h->state == MIP_ND6LO_H_REGISTERING) {
            /* RFC 4861 s.7.3.3: an unreachable router; find another. */
            STAT(s, nd6lo_reg_timeout);
            h->state = MIP_ND6LO_H_WAIT;
            h->left_ms = 0;
            drop_router(s);
            return;
        } else {
            start_registration(s, h);
        }
    }
}

/* The ABRO of an RA: false when it is older than the one held (the RA's
 * prefixes and contexts are then stale). */
static bool host_abro(struct mip_stack *s, const struct mip_nd_opt *o)
{
    struct mip_nd6lo *nd = &s->nd6lo;
    struct mip_nd_abro a;
    if (mip_nd_abro_parse(o, &a) != MIP_OK)
        return true;
    if (nd->has_abro && memcmp(a.addr, nd->abro_lbr, 16) == 0) {
        int32_t d = (int32_t)(a.version - nd->abro_version);
        if (d < 0) {
            STAT(s, nd6lo_abro_old);
            return false;
        }
        if (d > 0) {
            /* a new version: its contexts replace ours */
            nd_netif(s)->lowpan.ctx_valid = nd_netif(s)->lowpan.ctx_static;
            nd_netif(s)->lowpan.ctx_comp = nd_netif(s)->lowpan.ctx_static;
        }
    }
    nd->has_abro = true;
    nd->abro_version = a.version;
    memcpy(nd->abro_lbr, a.addr, 16);
    nd->abro_left_ms = (a.lifetime_min != 0u ? a.lifetime_min : 10000u) * MIN_MS;
    return true;
}

static void host_6co(struct mip_stack *s, const struct mip_nd_opt *o)
{
    struct mip_nd_6co c;
    struct mip_netif_lowpan *lp = &nd_netif(s)->lowpan;
    uint16_t bit;
    if (mip_nd_6co_parse(o, &c) != MIP_OK || c.ctx_len != 64u || c.cid >= MIP_LOWPAN_CTX_IDS ||
        (lp->ctx_static & (1u << c.cid)) != 0u) {
        STAT(s, nd6lo_ctx_refused);
        return;
    }
    bit = (uint16_t)(1u << c.cid);
    if (c.lifetime_min == 0u) {
        lp->ctx_valid &= (uint16_t)~bit;
        lp->ctx_comp &= (uint16_t)~bit;
        return;
    }
    memcpy(lp->ctx_prefix[c.cid], c.prefix, 8);
    lp->ctx_valid |= bit;
    if (c.c)
        lp->ctx_comp |= bit;
    else
        lp->ctx_comp &= (uint16_t)~bit;
    s->nd6lo.ctx_left_ms[c.cid] = c.lifetime_min * MIN_MS;
}

static void host_ra(struct mip_stack *s, const struct mip_ip_rx *rx, const struct mip_nd_msg *m)
{
    struct mip_nd6lo *nd = &s->nd6lo;
    struct mip_nd_opt_iter it;
    struct mip_nd_opt o;
    bool fresh = true;
    if (!is_ll(rx->src.bytes)) {
        STAT(s, drop_nd6lo_bad);   /* RFC 4861 s.6.1.2 */
        return;
    }
    STAT(s, nd6lo_ra_rx);
    /* The ABRO first: it says whether the rest is news. */
    mip_nd_opt_iter_init(&it, m->opts, m->opts_len);
    while (mip_nd_opt_next(&it, &o) == MIP_OK)
        if (o.type == MIP_ND_OPT_ABRO)
            fresh = host_abro(s, &o);
    if (!fresh)
        return;
    if (m->ra_router_lifetime == 0u && nd->has_router && memcmp(nd->router, rx->src.bytes, 16) == 0) {
        drop_router(s);   /* RFC 4861 s.6.3.4: no longer a default router */
    } else if (m->ra_router_lifetime != 0u) {
        struct mip_addr any, gw;
        memset(&any, 0, sizeof any);
        any.family = MIP_AF_INET6;
        mip_addr_set6(&gw, rx->src.bytes);
        if (mip_route_add(s, &any, 0, &gw, nd->netif) == MIP_OK) {
            nd->has_router = true;
            memcpy(nd->router, rx->src.bytes, 16);
            /* renew at 3/4 of the lifetime with a unicast RS */
            nd->router_left_ms = (uint32_t)m->ra_router_lifetime * 1000u;
            nd->rs_left_ms = nd->router_left_ms / 4u * 3u;
            nd->rs_count = 0;
            nd->rs_interval_ms = RTR_SOLICITATION_INTERVAL_MS;
        }
    }
    mip_nd_opt_iter_init(&it, m->opts, m->opts_len);
    while (mip_nd_opt_next(&it, &o) == MIP_OK) {
        struct mip_nd_pio p;
        if (o.type == MIP_ND_OPT_6CO)
            host_6co(s, &o);
        else if (mip_nd_pio_parse(&o, &p) == MIP_OK && (p.flags & MIP_PIO_FLAG_A))
            (void)mip_slaac_configure(s, nd->netif, p.prefix, p.prefix_len, p.valid_s,
                                      p.preferred_s, s->now);
    }
    host_registrations(s);
}

static struct mip_nd6lo_hreg *hreg_of(struct mip_stack *s, const uint8_t addr[16])
{
    struct mip_nd6lo *nd = &s->nd6lo;
    struct mip_netif *nif = nd_netif(s);
    unsigned i;
    for (i = 0; i < MIP_NETIF_ADDR6_MAX; i++) {
        struct mip_nd6lo_hreg *h = &nd->hreg[i];
        if (h->slot != 0u && nif->addr6[h->slot].used &&
            memcmp(nif->addr6[h->slot].addr, addr, 16) == 0)
            return h;
    }
    return NULL;
}

static void host_na(struct mip_stack *s, const struct mip_nd_msg *m, const struct mip_nd_earo *e)
{
    struct mip_nd6lo_hreg *h = hreg_of(s, m->target);
    struct mip_netif *nif = nd_netif(s);
    if (h == NULL || h->state != MIP_ND6LO_H_REGISTERING || e->tid != h->tid ||
        e->rovr_len != 8u || memcmp(e->rovr, nif->lowpan.ext_addr, 8) != 0) {
        STAT(s, drop_nd6lo_bad);   /* not an answer to what we asked */
        return;
    }
    if (e->status == MIP_ARO_SUCCESS) {
        STAT(s, nd6lo_reg_ok);
        h->state = MIP_ND6LO_H_REGISTERED;
        h->granted_min = e->lifetime_min;
        /* renew when three quarters have passed */
        h->left_ms = e->lifetime_min != 0u ? (uint32_t)e->lifetime_min * (MIN_MS / 4u) * 3u
                                           : NEVER;
        return;
    }
    if (e->status == MIP_ARO_DUPLICATE) {
        /* DAD by registration: the address belongs to someone else. */
        uint8_t formed[16];
        STAT(s, nd6lo_reg_dup);
        if (mip_slaac_address_of(s, s->nd6lo.netif, m->target, formed) == MIP_OK &&
            memcmp(formed, m->target, 16) == 0)
            (void)mip_slaac_remove(s, s->nd6lo.netif, m->target);
        memset(&nif->addr6[h->slot], 0, sizeof nif->addr6[h->slot]);
        memset(h, 0, sizeof *h);
        return;
    }
    STAT(s, nd6lo_reg_refused);
    h->state = MIP_ND6LO_H_WAIT;
    h->left_ms = MIP_ND6LO_RETRY_S * 1000u;
}

/* --- router ------------------------------------------------------------------ */

#if MIP_CONF_ND6LO_ROUTER

static const uint8_t all_nodes[16] = {0xFF, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

static uint16_t max_life(const struct mip_nd6lo_router_config *c)
{
    return c->max_reg_lifetime_min != 0u ? c->max_reg_lifetime_min : 60u;
}

mip_status mip_nd6lo_router_start(struct mip_stack *s, uint8_t netif,
                                  const struct mip_nd6lo_router_config *cfg)
{
    struct mip_nd6lo *nd = &s->nd6lo;
    unsigned i;
    mip_status st = check_netif(s, netif);
    if (st != MIP_OK)
        return st;
    if (cfg == NULL || cfg->ctx_count > MIP_ND6LO_CTX_ADV_MAX)
        return MIP_ERR_INVALID;
    for (i = 0; i < cfg->ctx_count; i++)
        if (cfg->ctx[i].cid > 15u)
            return MIP_ERR_INVALID;
    memset(nd, 0, sizeof(*nd));
    nd->role = ROLE_ROUTER;
    nd->netif = netif;
    nd->last_ms = s->now;
    nd->rs_left_ms = NEVER;
    nd->router_left_ms = NEVER;
    nd->abro_left_ms = NEVER;
    memset(nd->ctx_left_ms, 0xFF, sizeof nd->ctx_left_ms);
    nd->rcfg = cfg;
    s->netif[netif].lowpan.nd_router = true;
    /* The router compresses with the contexts it announces. */
    for (i = 0; i < cfg->ctx_count; i++) {
        struct mip_netif_lowpan *lp = &s->netif[netif].lowpan;
        uint8_t cid = cfg->ctx[i].cid;
        if (cid >= MIP_LOWPAN_CTX_IDS || (lp->ctx_static & (1u << cid)) != 0u)
            continue;
        memcpy(lp->ctx_prefix[cid], cfg->ctx[i].prefix, 8);
        lp->ctx_valid |= (uint16_t)(1u << cid);
        if (cfg->ctx[i].compress)
            lp->ctx_comp |= (uint16_t)(1u << cid);
    }
    return MIP_OK;
}

void mip_nd6lo_set_reg_hook(struct mip_stack *s, mip_nd6lo_reg_fn fn, void *ctx)
{
    s->nd6lo.reg_hook = fn;
    s->nd6lo.reg_hook_ctx = ctx;
}

/* Tells the hook an entry's registration ends, and frees the entry. */
static void reg_end(struct mip_stack *s, struct mip_nd6lo_reg *r)
{
    if (r->reach && s->nd6lo.reg_hook != NULL)
        s->nd6lo.reg_hook(s->nd6lo.reg_hook_ctx, s, r->addr, 0);
    memset(r, 0, sizeof *r);
}

const struct mip_nd6lo_reg *mip_nd6lo_router_find(const struct mip_stack *s,
                                                  const uint8_t addr[16])
{
    unsigned i;
    if (s->nd6lo.role != ROLE_ROUTER)
        return NULL;
    for (i = 0; i < MIP_ND6LO_REG_MAX; i++) {
        const struct mip_nd6lo_reg *r = &s->nd6lo.reg[i];
        if (r->state == MIP_ND6LO_REG_REGISTERED && memcmp(r->addr, addr, 16) == 0)
            return r;
    }
    return NULL;
}

static void router_ra(struct mip_stack *s, const struct mip_ip_rx *rx)
{
    const struct mip_nd6lo_router_config *c = s->nd6lo.rcfg;
    uint8_t msg[MIP_ND_RA_LEN + 16 + MIP_ND_PIO_LEN + MIP_ND_ABRO_LEN +
                MIP_ND6LO_CTX_ADV_MAX * 16];
    struct mip_nd_msg m;
    struct mip_nd_pio p;
    struct mip_nd_abro a;
    size_t n = 0, w = 0;
    unsigned i;
    memset(&m, 0, sizeof m);
    m.ra_router_lifetime = c->router_lifetime_s;
    (void)mip_nd_emit_ra(&m, msg, sizeof msg, &n);
    n += put_sllao(nd_netif(s), msg + n, sizeof msg - n);
    memset(&p, 0, sizeof p);
    p.prefix_len = c->prefix_len;
    p.flags = MIP_PIO_FLAG_A;    /* L clear: RFC 6775 s.5.4 */
    p.valid_s = c->valid_s;
    p.preferred_s = c->preferred_s;
    memcpy(p.prefix, c->prefix, 16);
    if (mip_nd_pio_emit(&p, msg + n, sizeof msg - n, &w) == MIP_OK)
        n += w;
    for (i = 0; i < c->ctx_count; i++) {
        struct mip_nd_6co x;
        memset(&x, 0, sizeof x);
        x.ctx_len = 64;
        x.c = c->ctx[i].compress;
        x.cid = c->ctx[i].cid;
        x.lifetime_min = c->ctx[i].lifetime_min;
        memcpy(x.prefix, c->ctx[i].prefix, 8);
        if (mip_nd_6co_emit(&x, msg + n, sizeof msg - n, &w) == MIP_OK)
            n += w;
    }
    a.version = c->abro_version;
    a.lifetime_min = c->abro_lifetime_min;
    memcpy(a.addr, c->lbr, 16);
    if (mip_nd_abro_emit(&a, msg + n, sizeof msg - n, &w) == MIP_OK)
        n += w;
    if (nd6lo_send(s, ip6_is_unspecified(rx->src.bytes) ? all_nodes : rx->src.bytes,
                   msg, n) == MIP_OK)
        STAT(s, nd6lo_ra_tx);
}

/* The entry a new registration (or tentative entry) may take: a free one,
 * else an expired one, else the tentative one closest to its end. Never a
 * registered entry whose lifetime runs. */
static struct mip_nd6lo_reg *reg_slot(struct mip_stack *s)
{
    struct mip_nd6lo_reg *pick = NULL;
    unsigned i;
    for (i = 0; i < MIP_ND6LO_REG_MAX; i++) {
        struct mip_nd6lo_reg *r = &s->nd6lo.reg[i];
        if (r->state == MIP_ND6LO_REG_FREE)
            return r;
        if (r->left_ms == 0u) {
            if (r->state == MIP_ND6LO_REG_REGISTERED)
                STAT(s, nd6lo_reg_expired);
            reg_end(s, r);
            return r;
        }
        if (r->state == MIP_ND6LO_REG_TENTATIVE && (pick == NULL || r->left_ms < pick->left_ms))
            pick = r;
    }
    return pick;
}

static unsigned per_source(struct mip_stack *s, const struct mip_802154_addr *ll)
{
    unsigned i, n = 0;
    for (i = 0; i < MIP_ND6LO_REG_MAX; i++) {
        const struct mip_nd6lo_reg *r = &s->nd6lo.reg[i];
        if (r->state == MIP_ND6LO_REG_REGISTERED && r->left_ms != 0u && r->llmode == ll->mode &&
            (ll->mode == MIP_802154_ADDR_SHORT ? mip_rd16(r->lladdr) == ll->short_addr
                                                : memcmp(r->lladdr, ll->ext, 8) == 0))
            n++;
    }
    return n;
}

static struct mip_nd6lo_reg *reg_find(struct mip_stack *s, const uint8_t addr[16])
{
    unsigned i;
    for (i = 0; i < MIP_ND6LO_REG_MAX; i++) {
        struct mip_nd6lo_reg *r = &s->nd6lo.reg[i];
        if (r->state != MIP_ND6LO_REG_FREE && r->left_ms != 0u && memcmp(r->addr, addr, 16) == 0)
            return r;
    }
    return NULL;
}

static void reg_fill(struct mip_nd6lo_reg *r, const uint8_t addr[16],
                     const struct mip_802154_addr *ll, uint8_t state, uint32_t left_ms)
{
    memcpy(r->addr, addr, 16);
    memset(r->lladdr, 0, 8);
    r->llmode = ll->mode;
    if (ll->mode == MIP_802154_ADDR_SHORT)
        mip_wr16(r->lladdr, ll->short_addr);
    else
        memcpy(r->lladdr, ll->ext, 8);
    r->state = state;
    r->left_ms = left_ms;
}

static void router_rs(struct mip_stack *s, const struct mip_ip_rx *rx,
                      const struct mip_802154_addr *sllao)
{
    /* RFC 6775 s.6.3: a tentative entry for a soliciting host, when there
     * is room that no registration holds. */
    if (sllao != NULL && !ip6_is_unspecified(rx->src.bytes) && reg_find(s, rx->src.bytes) == NULL) {
        struct mip_nd6lo_reg *r = reg_slot(s);
        if (r != NULL) {
            memset(r->rovr, 0, 8);
            reg_fill(r, rx->src.bytes, sllao, MIP_ND6LO_REG_TENTATIVE, TENTATIVE_NCE_LIFETIME_MS);
        }
    }
    router_ra(s, rx);
}

/* Folds a ROVR of 8..32 bytes into 8 (a ROVR is no secret without RFC 8928,
 * so folding gives a forger nothing the plain value would not). */
static void fold_rovr(const struct mip_nd_earo *e, uint8_t out[8])
{
    unsigned i;
    memset(out, 0, 8);
    for (i = 0; i < e->rovr_len; i++)
        out[i % 8u] ^= e->rovr[i];
}

/* The status an NS-EARO gets, with the entry it touched. */
static uint8_t router_register(struct mip_stack *s, const uint8_t target[16],
                               const struct mip_nd_earo *e, const struct mip_802154_addr *ll,
                               uint16_t *life)
{
    uint8_t rovr[8];
    struct mip_nd6lo_reg *r = reg_find(s, target);
    struct mip_addr t;
    fold_rovr(e, rovr);
    mip_addr_set6(&t, target);
    /* one of our own addresses, or one held under another ROVR */
    if (stack_is_own_addr(s, &t) ||
        (r != NULL && r->state == MIP_ND6LO_REG_REGISTERED && memcmp(r->rovr, rovr, 8) != 0)) {
        STAT(s, nd6lo_reg_dup_tx);
        return MIP_ARO_DUPLICATE;
    }
    if (e->lifetime_min == 0u) {
        if (r != NULL)
            reg_end(s, r);
        return MIP_ARO_SUCCESS;
    }
    if (r == NULL || r->state != MIP_ND6LO_REG_REGISTERED) {
        if (per_source(s, ll) >= MIP_ND6LO_REG_PER_SRC)
            r = NULL;
        else if (r == NULL)
            r = reg_slot(s);
        if (r == NULL) {
            STAT(s, nd6lo_reg_full);
            return MIP_ARO_NC_FULL;
        }
    }
    *life = e->lifetime_min < max_life(s->nd6lo.rcfg) ? e->lifetime_min : max_life(s->nd6lo.rcfg);
    memcpy(r->rovr, rovr, 8);
    r->tid = e->tid;
    reg_fill(r, target, ll, MIP_ND6LO_REG_REGISTERED, (uint32_t)*life * MIN_MS);
    r->reach = e->r;
    STAT(s, nd6lo_reg_accepted);
    if (e->r && s->nd6lo.reg_hook != NULL)
        s->nd6lo.reg_hook(s->nd6lo.reg_hook_ctx, s, target, (uint32_t)*life * 60u);
    return MIP_ARO_SUCCESS;
}

static void router_ns(struct mip_stack *s, const struct mip_ip_rx *rx, const struct mip_nd_msg *m,
                      const struct mip_nd_earo *e, const struct mip_802154_addr *sllao)
{
    uint8_t msg[MIP_ND_NA_LEN + 8 + MIP_EARO_ROVR_MAX];
    uint8_t dst[16];
    struct mip_nd_earo reply = *e;
    size_t n = 0, w = 0;
    /* RFC 6775 s.6.5: an NS-ARO from :: or without an SLLAO is ignored;
     * the status of a request must be 0. */
    if (sllao == NULL || ip6_is_unspecified(rx->src.bytes) || rx->dst_multicast ||
        e->status != 0u) {
        STAT(s, drop_nd6lo_bad);
        return;
    }
    reply.status = router_register(s, m->target, e, sllao, &reply.lifetime_min);
    memcpy(dst, rx->src.bytes, 16);
    /* RFC 6775 s.6.5.2: a refusal to a registration sent from the address
     * itself goes to the link-local address of the sender's EUI-64, not to
     * the address's owner. */
    if (reply.status != MIP_ARO_SUCCESS && !is_ll(dst) && e->rovr_len == 8u) {
        memset(dst, 0, 16);
        dst[0] = 0xFE;
        dst[1] = 0x80;
        memcpy(dst + 8, e->rovr, 8);
        dst[8] ^= 0x02u;
    }
    (void)mip_nd_emit_na(m->target, MIP_ND_NA_FLAG_SOLICITED, NULL, 0, msg, sizeof msg, &n);
    if (mip_nd_earo_emit(&reply, msg + n, sizeof msg - n, &w) == MIP_OK &&
        nd6lo_send(s, dst, msg, n + w) == MIP_OK)
        STAT(s, nd6lo_reg_answered);
}
#endif /* MIP_CONF_ND6LO_ROUTER */

/* --- input and poll ------------------------------------------------------------ */

bool nd6lo_input(struct mip_stack *s, struct mip_netif *nif, const struct mip_ip_rx *rx,
                 const struct mip_nd_msg *m)
{
    struct mip_nd6lo *nd = &s->nd6lo;
    struct mip_nd_opt_iter it;
    struct mip_nd_opt o;
    struct mip_802154_addr sll;
    struct mip_nd_earo e;
    bool has_sll = false, has_earo = false;
    if (nd->role == 0u || nif->index != nd->netif)
        return false;
    nd_refresh(s, s->now);
    mip_nd_opt_iter_init(&it, m->opts, m->opts_len);
    while (mip_nd_opt_next(&it, &o) == MIP_OK) {
        if (o.type == MIP_ND_OPT_SLLA && mip_nd_lla_802154_parse(&o, &sll) == MIP_OK)
            has_sll = true;
        else if (o.type == MIP_ND_OPT_ARO && mip_nd_earo_parse(&o, &e) == MIP_OK)
            has_earo = true;
    }
    if (nd->role == ROLE_HOST) {
        if (m->type == MIP_ICMPV6_RA) {
            host_ra(s, rx, m);
            return true;
        }
        if (m->type == MIP_ICMPV6_NA && has_earo) {
            host_na(s, m, &e);
            return true;
        }
        return m->type == MIP_ICMPV6_RS;   /* hosts ignore solicitations */
    }
#if MIP_CONF_ND6LO_ROUTER
    if (m->type == MIP_ICMPV6_RS) {
        router_rs(s, rx, has_sll ? &sll : NULL);
        return true;
    }
    if (m->type == MIP_ICMPV6_NS && has_earo) {
        router_ns(s, rx, m, &e, has_sll ? &sll : NULL);
        return true;
    }
#endif
    (void)has_sll;
    return m->type == MIP_ICMPV6_RA;       /* one router per link: RAs are not ours */
}

static uint32_t min_due(uint32_t next, uint32_t left)
{
    return left < next ? left : next;
}

uint32_t nd6lo_poll(struct mip_stack *s, mip_time_t now)
{
    struct mip_nd6lo *nd = &s->nd6lo;
    struct mip_netif_lowpan *lp;
    uint32_t next = NEVER;
    unsigned i;
    if (nd->role == 0u)
        return MIP_POLL_IDLE;
    nd_refresh(s, now);
    lp = &nd_netif(s)->lowpan;
    for (i = 0; i < MIP_LOWPAN_CTX_IDS; i++) {
        if (nd->ctx_left_ms[i] == 0u) {
            /* RFC 6775 s.7.2: an expired context is not used any more */
            lp->ctx_valid &= (uint16_t)~(1u << i);
            lp->ctx_comp &= (uint16_t)~(1u << i);
            nd->ctx_left_ms[i] = NEVER;
        }
        next = min_due(next, nd->ctx_left_ms[i]);
    }
    if (nd->role == ROLE_HOST) {
        if (nd->has_router && nd->router_left_ms == 0u)
            drop_router(s);
        if (nd->abro_left_ms == 0u) {
            nd->has_abro = false;
            nd->abro_left_ms = NEVER;
        }
        if (nd->rs_left_ms == 0u)
            send_rs(s);
        host_registrations(s);
        next = min_due(next, nd->rs_left_ms);
        next = min_due(next, nd->router_left_ms);
        next = min_due(next, nd->abro_left_ms);
        for (i = 0; i < MIP_NETIF_ADDR6_MAX; i++)
            if (nd->hreg[i].slot != 0u && nd->has_router)
                next = min_due(next, nd->hreg[i].left_ms);
    }
#if MIP_CONF_ND6LO_ROUTER
    for (i = 0; i < MIP_ND6LO_REG_MAX; i++) {
        struct mip_nd6lo_reg *r = &nd->reg[i];
        if (r->state == MIP_ND6LO_REG_FREE)
            continue;
        if (r->left_ms == 0u) {
            if (r->state == MIP_ND6LO_REG_REGISTERED)
                STAT(s, nd6lo_reg_expired);
            reg_end(s, r);
            continue;
        }
        next = min_due(next, r->left_ms);
    }
#endif
    /* Countdowns move at every poll: wake at least hourly so the stamp
     * stays young. */
    return next < MIP_SLAAC_REFRESH_MS ? next : MIP_SLAAC_REFRESH_MS;
}

bool nd6lo_awaits_reply(const struct mip_stack *s)
{
    const struct mip_nd6lo *nd = &s->nd6lo;
    unsigned i;
    if (nd->role != ROLE_HOST)
        return false;
    /* A first solicitation (or a renewal's) unanswered: bounded by the
     * MAX_RTR_SOLICITATIONS before the backoff. */
    if (nd->rs_count != 0u && nd->rs_count <= MAX_RTR_SOLICITATIONS)
        return true;
    for (i = 0; i < MIP_NETIF_ADDR6_MAX; i++)
        if (nd->hreg[i].state == MIP_ND6LO_H_REGISTERING)
            return true;
    return false;
}

uint8_t mip_nd6lo_host_reg_state(const struct mip_stack *s, const uint8_t addr[16])
{
    const struct mip_nd6lo *nd = &s->nd6lo;
    const struct mip_netif *nif = &s->netif[nd->netif];
    unsigned i;
    if (nd->role != ROLE_HOST)
        return MIP_ND6LO_H_UNUSED;
    for (i = 0; i < MIP_NETIF_ADDR6_MAX; i++) {
        const struct mip_nd6lo_hreg *h = &nd->hreg[i];
        if (h->slot != 0u && memcmp(nif->addr6[h->slot].addr, addr, 16) == 0)
            return h->state;
    }
    return MIP_ND6LO_H_UNUSED;
}

#endif /* MIP_CONF_ND6LO */
