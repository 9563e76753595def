/*
 * Routing driver "geo" (geo.h, docs/GEO.md): spatial addresses, beacons,
 * greedy forwarding with GPSR's perimeter mode as recovery, regional
 * broadcast and duplicate-address resolution by overhearing.
 */
#include "moteip/geo.h"
#include "moteip/stack.h"
#include "moteip/routing.h"
#include "moteip/udp.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/bytes.h"
#include <string.h>

#define IP6_HDR MIP_IPV6_HDR_LEN

const char *const mip_geo_stat_names[MIP_GEO_STAT_COUNT] = {
#define MIP_GEO_STAT_NAME(n) #n,
    MIP_GEO_STATS_LIST(MIP_GEO_STAT_NAME)
#undef MIP_GEO_STAT_NAME
};

static bool pos_eq(struct mip_spatial_pos a, struct mip_spatial_pos b)
{
    return a.x == b.x && a.y == b.y;
}

static uint32_t neigh_timeout(const struct mip_geo *g)
{
    return g->cfg.neigh_timeout_ms != 0u ? g->cfg.neigh_timeout_ms
                                         : g->cfg.beacon_ms * 9u / 2u;
}

static bool live(const struct mip_geo *g, const struct mip_geo_neigh *n, mip_time_t now)
{
    return n->used && (uint32_t)(now - n->heard) < neigh_timeout(g);
}

void mip_geo_config_default(struct mip_geo_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->map.kind = MIP_SPATIAL_XY;
    cfg->map.cell_cm = 100u;
    cfg->prefix[0] = 0xFDu;
    cfg->beacon_ms = 10000u;
    cfg->seen_ms = 10000u;
    cfg->rebroadcast_jitter_ms = 20u;
    cfg->perimeter = true;
}

/* --- the rules ----------------------------------------------------------------- */

/* A pseudo-angle of (dx, dy), 0..4095, increasing counterclockwise from
 * the +x axis: the "diamond angle", monotonic in the true angle and free
 * of floating point. */
static int32_t pseudo_angle(int32_t dx, int32_t dy)
{
    int32_t r;
    if (dx == 0 && dy == 0)
        return 0;
    if (dy >= 0) {
        r = dx >= 0 ? dx + dy : -dx + dy;
        return dx >= 0 ? dy * 1024 / r : 1024 + (-dx) * 1024 / r;
    }
    r = dx < 0 ? -dx - dy : dx - dy;
    return dx < 0 ? 2048 + (-dy) * 1024 / r : 3072 + dx * 1024 / r;
}

int mip_geo_greedy(const struct mip_geo *g, struct mip_spatial_pos target, mip_time_t now)
{
    uint32_t best = mip_spatial_dist2(g->pos, target);
    int k = -1;
    unsigned i;
    for (i = 0; i < MIP_GEO_NEIGH_MAX; i++) {
        uint32_t d;
        if (!live(g, &g->nb[i], now))
            continue;
        d = mip_spatial_dist2(g->nb[i].pos, target);
        if (d < best) {
            best = d;
            k = (int)i;
        }
    }
    return k;
}

/* The Gabriel graph (GPSR 3): the edge to v stays unless another
 * neighbour w lies inside the circle whose diameter it is. */
static bool gabriel(const struct mip_geo *g, unsigned v, mip_time_t now)
{
    uint32_t uv = mip_spatial_dist2(g->pos, g->nb[v].pos);
    unsigned w;
    for (w = 0; w < MIP_GEO_NEIGH_MAX; w++)
        if (w != v && live(g, &g->nb[w], now) &&
            mip_spatial_dist2(g->pos, g->nb[w].pos) + mip_spatial_dist2(g->nb[v].pos, g->nb[w].pos) <
                uv)
            return false;
    return true;
}

int mip_geo_right_hand(const struct mip_geo *g, struct mip_spatial_pos from, bool skip_from,
                       mip_time_t now)
{
    int32_t ref = pseudo_angle((int32_t)from.x - g->pos.x, (int32_t)from.y - g->pos.y);
    int32_t best = 4097;
    int k = -1;
    unsigned i;
    for (i = 0; i < MIP_GEO_NEIGH_MAX; i++) {
        const struct mip_geo_neigh *n = &g->nb[i];
        int32_t a;
        if (!live(g, n, now) || pos_eq(n->pos, g->pos) || !gabriel(g, i, now))
            continue;
        a = pseudo_angle((int32_t)n->pos.x - g->pos.x, (int32_t)n->pos.y - g->pos.y) - ref;
        a = (a + 4096) % 4096;
        /* the edge it came on is the last choice: back the way it came */
        if (a == 0 && skip_from && pos_eq(n->pos, from))
            a = 4096;
        if (a < best) {
            best = a;
            k = (int)i;
        }
    }
    return k;
}

/* Whether the edge u-v crosses the segment Lp-D (GPSR's face change test);
 * *t: where, as the fraction of the way from Lp to D, x 65536. */
bool mip_geo_crosses(struct mip_spatial_pos u, struct mip_spatial_pos v,
                     struct mip_spatial_pos lp, struct mip_spatial_pos d, uint16_t *t)
{
    /* cells are 0..255: every product fits 32 bits (|cross| <= 130,050),
     * no 64-bit arithmetic on an 8- or 16-bit mote */
    int32_t qx = (int32_t)d.x - lp.x, qy = (int32_t)d.y - lp.y;
    int32_t px = (int32_t)v.x - u.x, py = (int32_t)v.y - u.y;
    int32_t d1 = qx * ((int32_t)u.y - lp.y) - qy * ((int32_t)u.x - lp.x);
    int32_t d2 = qx * ((int32_t)v.y - lp.y) - qy * ((int32_t)v.x - lp.x);
    int32_t d3 = px * ((int32_t)lp.y - u.y) - py * ((int32_t)lp.x - u.x);
    int32_t d4 = px * ((int32_t)d.y - u.y) - py * ((int32_t)d.x - u.x);
    uint32_t a, b;
    if (!((d1 < 0 && d2 > 0) || (d1 > 0 && d2 < 0)) || !((d3 < 0 && d4 > 0) || (d3 > 0 && d4 < 0)))
        return false;
    /* t = d3 / (d3 - d4), in (0, 1): both have d3's sign; 2^15 * 130,050
     * still fits 32 bits; doubled, t is in units of 1/65536 */
    a = (uint32_t)(d3 < 0 ? -d3 : d3);
    b = (uint32_t)(d3 < 0 ? d4 - d3 : d3 - d4);
    *t = (uint16_t)((a << 15) / b * 2u);
    return true;
}

/* --- destinations ----------------------------------------------------------------- */

struct dest {
    uint8_t form;
    uint16_t code;
    uint8_t d;                      /* D, or the region's length */
    struct mip_spatial_pos target;  /* the cell, or the region's centre */
};

static bool dest_of(const struct mip_geo *g, const uint8_t *addr, struct dest *o)
{
    if (mip_spatial_parse(g->cfg.prefix, addr, &o->form, &o->code, &o->d) != MIP_OK)
        return false;
    if (o->form == MIP_SPATIAL_UNICAST) {
        o->target = mip_spatial_decode(&g->cfg.map, o->code);
    } else {
        struct mip_spatial_pos lo, hi;
        mip_spatial_region_box(&g->cfg.map, o->code, o->d, &lo, &hi);
        o->target.x = (uint8_t)((lo.x + hi.x) / 2u);
        o->target.y = (uint8_t)((lo.y + hi.y) / 2u);
    }
    return true;
}

static bool in_region(const struct mip_geo *g, struct mip_spatial_pos p, const struct dest *d)
{
    return d->form == MIP_SPATIAL_BROADCAST && mip_spatial_in_region(&g->cfg.map, p, d->code, d->d);
}

/* A neighbour that is the destination, or inside its region. */
static int neigh_is_dest(const struct mip_geo *g, const struct dest *d, mip_time_t now)
{
    unsigned i;
    for (i = 0; i < MIP_GEO_NEIGH_MAX; i++) {
        const struct mip_geo_neigh *n = &g->nb[i];
        if (!live(g, n, now))
            continue;
        if (d->form == MIP_SPATIAL_UNICAST
                ? n->disc == d->d && mip_spatial_code(&g->cfg.map, n->pos) == d->code
                : in_region(g, n->pos, d))
            return (int)i;
    }
    return -1;
}

static void set_neigh(const struct mip_geo *g, int k, uint8_t *netif, struct mip_addr *nh)
{
    uint8_t a[16] = { 0xFE, 0x80 };
    memcpy(a + 8, g->nb[k].iid, 8);
    mip_addr_set6(nh, a);
    *netif = g->netif;
}

static mip_status geo_next_hop(void *ctx, const struct mip_stack *s, const struct mip_addr *dst,
                               uint8_t *netif, struct mip_addr *nexthop)
{
    struct mip_geo *g = ctx;
    struct dest d;
    int k;
    if (dst->family != MIP_AF_INET6 || !dest_of(g, dst->bytes, &d) ||
        memcmp(dst->bytes, g->addr, 16) == 0)
        return mip_route_table_lookup(s, dst, netif, nexthop);
    if (in_region(g, g->pos, &d)) {
        /* inside the region: every neighbour hears it (link broadcast) */
        static const uint8_t all_nodes[16] = { 0xFF, 0x02, 0, 0, 0, 0, 0, 0,
                                               0, 0, 0, 0, 0, 0, 0, 1 };
        mip_addr_set6(nexthop, all_nodes);
        *netif = g->netif;
        return MIP_OK;
    }
    k = neigh_is_dest(g, &d, s->now);
    if (k < 0)
        k = mip_geo_greedy(g, d.target, s->now);
    if (k < 0 && g->cfg.perimeter)
        k = mip_geo_right_hand(g, d.target, false, s->now);
    if (k < 0)
        return MIP_ERR_NOROUTE;
    set_neigh(g, k, netif, nexthop);
    return MIP_OK;
}

/* --- the perimeter option in a datagram ------------------------------------------------ */

static bool hbh_insert(struct mip_geo *g, struct mip_routing_pkt *pkt,
                       const struct mip_geo_perim *o)
{
    struct mip_netif *nif = mip_netif_get(g->stack, pkt->out_netif);
    struct mip_pbuf *p = pkt->p;
    uint8_t *b, nh;
    if (nif == NULL || (size_t)p->len + MIP_GEO_HBH_LEN > nif->mtu)
        return false;
    if (p->off >= MIP_GEO_HBH_LEN) {
        b = mip_pbuf_push(p, MIP_GEO_HBH_LEN);
    } else {
        if (mip_pbuf_tailroom(p) < MIP_GEO_HBH_LEN)
            return false;
        b = mip_pbuf_payload(p);
        (void)mip_pbuf_put(p, MIP_GEO_HBH_LEN);
        memmove(b + MIP_GEO_HBH_LEN, b, (size_t)p->len - MIP_GEO_HBH_LEN);
    }
    memmove(b, b + MIP_GEO_HBH_LEN, IP6_HDR);
    nh = b[6];
    (void)mip_geo_hbh_emit(nh, o, b + IP6_HDR, MIP_GEO_HBH_LEN);
    b[6] = MIP_IPV6_NH_HOPOPTS;
    mip_wr16(b + 4, (uint16_t)(mip_rd16(b + 4) + MIP_GEO_HBH_LEN));
    pkt->hbh_off = IP6_HDR;
    if (pkt->rh_off != 0u)
        pkt->rh_off = (uint16_t)(pkt->rh_off + MIP_GEO_HBH_LEN);
    return true;
}

/* Takes off our Hop-by-Hop header (we only ever add one of our own). */
static void hbh_remove(struct mip_routing_pkt *pkt)
{
    uint8_t *b = mip_pbuf_payload(pkt->p);
    b[6] = b[IP6_HDR];
    mip_wr16(b + 4, (uint16_t)(mip_rd16(b + 4) - MIP_GEO_HBH_LEN));
    memmove(b + MIP_GEO_HBH_LEN, b, IP6_HDR);
    mip_pbuf_pull(pkt->p, MIP_GEO_HBH_LEN);
    pkt->hbh_off = 0;
    if (pkt->rh_off != 0u)
        pkt->rh_off = (uint16_t)(pkt->rh_off - MIP_GEO_HBH_LEN);
}

/* A cheap digest of a datagram for the duplicate memory: FNV-1a over the
 * source address and everything after the fixed header. */
static uint32_t digest(const uint8_t *pkt, size_t len)
{
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 8; i < 24u; i++)
        h = (h ^ pkt[i]) * 16777619u;
    for (i = IP6_HDR; i < len; i++)
        h = (h ^ pkt[i]) * 16777619u;
    return h;
}

/* True when already seen; remembers it otherwise (the oldest entry goes). */
static bool seen_before(struct mip_geo *g, uint32_t dg, mip_time_t now)
{
    unsigned i, old = 0;
    for (i = 0; i < MIP_GEO_SEEN_MAX; i++) {
        struct mip_geo_seen *e = &g->seen[i];
        if (e->used && (uint32_t)(now - e->at) >= g->cfg.seen_ms)
            e->used = 0;
        if (e->used && e->digest == dg)
            return true;
        if (!e->used || (g->seen[old].used && mip_time_before(e->at, g->seen[old].at)))
            old = i;
    }
    g->seen[old].used = 1;
    g->seen[old].digest = dg;
    g->seen[old].at = now;
    return false;
}

static enum mip_routing_verdict route_pkt(struct mip_geo *g, struct mip_routing_pkt *pkt,
                                          mip_time_t now)
{
    uint8_t *b = mip_pbuf_payload(pkt->p);
    struct mip_geo_perim o;
    struct dest d;
    size_t off = 0;
    bool has = false;
    int k;

    if (pkt->p->len < IP6_HDR || !dest_of(g, b + 24, &d) || memcmp(b + 24, g->addr, 16) == 0 ||
        in_region(g, g->pos, &d))
        return MIP_ROUTING_PASS;
    /* another's Hop-by-Hop header: greedy only (no room for ours) */
    if (b[6] == MIP_IPV6_NH_HOPOPTS &&
        mip_geo_hbh_find(b + IP6_HDR, pkt->p->len - IP6_HDR, &off, &o) == MIP_OK)
        has = true;
    k = neigh_is_dest(g, &d, now);
    if (has && (k >= 0 || mip_spatial_dist2(g->pos, d.target) < mip_spatial_dist2(o.lp, d.target))) {
        /* nearer than where greedy failed: greedy again (GPSR 2.2) */
        hbh_remove(pkt);
        g->stats[MIP_GEO_STAT_perimeter_exit]++;
        has = false;
        b = mip_pbuf_payload(pkt->p);
    }
    if (has) {
        unsigned turns;
        uint16_t t;
        k = mip_geo_right_hand(g, o.prev, true, now);
        if (k < 0) {
            g->stats[MIP_GEO_STAT_drop_local_minimum]++;
            return MIP_ROUTING_DROP;
        }
        /* GPSR's face change: an edge that crosses Lp-D nearer D than
         * where the walk entered this face leads onto the next face; the
         * walk turns to the next edge counterclockwise and starts there */
        for (turns = 0; turns < MIP_GEO_NEIGH_MAX &&
                        mip_geo_crosses(g->pos, g->nb[k].pos, o.lp, d.target, &t) && t > o.lf;
             turns++) {
            int n = mip_geo_right_hand(g, g->nb[k].pos, true, now);
            o.lf = t;
            if (n < 0)
                break;
            k = n;
            o.e0a = g->pos;
            o.e0b = g->nb[k].pos;
            g->stats[MIP_GEO_STAT_face_change]++;
        }
        if (turns == 0 && pos_eq(g->pos, o.e0a) && pos_eq(g->nb[k].pos, o.e0b)) {
            /* the walk is back on its first edge: the face holds no node
             * nearer the destination (GPSR: unreachable) */
            g->stats[MIP_GEO_STAT_drop_perimeter_loop]++;
            return MIP_ROUTING_DROP;
        }
        o.prev = g->pos;
        mip_geo_perim_update(b + IP6_HDR + off, &o);
        g->stats[MIP_GEO_STAT_perimeter_hop]++;
        set_neigh(g, k, &pkt->out_netif, pkt->nexthop);
        return MIP_ROUTING_PASS;
    }
    if (k < 0)
        k = mip_geo_greedy(g, d.target, now);
    if (k >= 0) {
        g->stats[MIP_GEO_STAT_greedy]++;
        set_neigh(g, k, &pkt->out_netif, pkt->nexthop);
        return MIP_ROUTING_PASS;
    }
    k = g->cfg.perimeter && b[6] != MIP_IPV6_NH_HOPOPTS
            ? mip_geo_right_hand(g, d.target, false, now) : -1;
    if (k < 0) {
        g->stats[MIP_GEO_STAT_drop_local_minimum]++;
        return MIP_ROUTING_DROP;
    }
    o.lp = g->pos;
    o.e0a = g->pos;
    o.e0b = g->nb[k].pos;
    o.prev = g->pos;
    o.lf = 0;
    set_neigh(g, k, &pkt->out_netif, pkt->nexthop);
    if (!hbh_insert(g, pkt, &o)) {
        g->stats[MIP_GEO_STAT_drop_no_room]++;
        return MIP_ROUTING_DROP;
    }
    g->stats[MIP_GEO_STAT_perimeter_enter]++;
    return MIP_ROUTING_PASS;
}

static enum mip_routing_verdict geo_forward(void *ctx, struct mip_stack *s,
                                            struct mip_routing_pkt *pkt, mip_time_t now)
{
    (void)s;
    return route_pkt(ctx, pkt, now);
}

static enum mip_routing_verdict geo_output(void *ctx, struct mip_stack *s,
                                           struct mip_routing_pkt *pkt, mip_time_t now)
{
    struct mip_geo *g = ctx;
    const uint8_t *b = mip_pbuf_payload(pkt->p);
    struct dest d;
    (void)s;
    /* our own regional broadcast: its echoes are duplicates */
    if (pkt->p->len >= IP6_HDR && dest_of(g, b + 24, &d) && in_region(g, g->pos, &d))
        (void)seen_before(g, digest(b, pkt->p->len), now);
    return route_pkt(g, pkt, now);
}

#if MIP_CONF_FORWARD
/* Sends the waiting regional broadcast (routed to ff02::1: we are inside
 * its region) and gives its buffer back. */
static void pend_flush(struct mip_geo *g, struct mip_stack *s)
{
    struct mip_pbuf *p;
    if (!g->pend_used)
        return;
    g->pend_used = 0;
    p = mip_pbuf_at(&s->pool, g->pend_idx);
    if (p == NULL)
        return;
    if (mip_ip_send_raw(s, mip_pbuf_payload(p), p->len) == MIP_OK)
        g->stats[MIP_GEO_STAT_region_rebroadcast]++;
    mip_pbuf_free(&s->pool, p);
}
#endif

/* A regional broadcast delivered here: once per datagram, and sent on
 * once as a link-layer broadcast inside the region, after a random delay:
 * the neighbours that heard one broadcast together would otherwise all
 * send at once, and unacknowledged broadcasts that collide are lost. */
static enum mip_routing_verdict geo_rx(void *ctx, struct mip_stack *s, uint8_t in_netif,
                                       const uint8_t *pkt, size_t len, bool local,
                                       struct mip_routing_pkt *err, mip_time_t now)
{
    struct mip_geo *g = ctx;
    struct mip_pbuf *p;
    struct dest d;
    (void)in_netif;
    (void)err;
    if (!local || len < IP6_HDR || !dest_of(g, pkt + 24, &d) || d.form != MIP_SPATIAL_BROADCAST)
        return MIP_ROUTING_PASS;
    if (seen_before(g, digest(pkt, len), now)) {
        g->stats[MIP_GEO_STAT_region_dup]++;
        return MIP_ROUTING_DROP;
    }
#if MIP_CONF_FORWARD
    /* a leaf of the tiny profile (no forwarding) delivers but does not
     * send on */
    pend_flush(g, s);
    if (pkt[7] > 1u && (p = mip_pbuf_alloc(&s->pool, 0)) != NULL) {
        if (mip_pbuf_tailroom(p) < len) {
            mip_pbuf_free(&s->pool, p);
            return MIP_ROUTING_PASS;
        }
        memcpy(mip_pbuf_payload(p), pkt, len);
        (void)mip_pbuf_put(p, (uint16_t)len);
        mip_pbuf_payload(p)[7]--;
        g->pend_used = 1;
        g->pend_idx = mip_pbuf_index(&s->pool, p);
        g->pend_at = now + (g->cfg.rebroadcast_jitter_ms > 0u
                                ? mip_rng_below(&s->rng, g->cfg.rebroadcast_jitter_ms) : 0u);
        if (g->cfg.rebroadcast_jitter_ms == 0u)
            pend_flush(g, s);
    }
#else
    (void)p;
    (void)s;
#endif
    return MIP_ROUTING_PASS;
}

static bool geo_accepts(void *ctx, const struct mip_stack *s, const uint8_t dst[16])
{
    struct mip_geo *g = ctx;
    struct dest d;
    (void)s;
    return dest_of(g, dst, &d) && in_region(g, g->pos, &d);
}

/* --- beacons and neighbours ---------------------------------------------------------- */

static uint32_t jittered(struct mip_geo *g)
{
    /* uniform in [B/2, 3B/2) (GPSR 2.3) */
    uint32_t b = g->cfg.beacon_ms;
    return b / 2u + (b > 0u ? mip_rng_below(&g->stack->rng, b) : 0u);
}

static mip_status set_addr(struct mip_geo *g, uint8_t disc)
{
    struct mip_addr a;
    struct mip_netif *nif = mip_netif_get(g->stack, g->netif);
    unsigned i;
    uint8_t na[16];
    mip_status st = mip_spatial_addr(g->cfg.prefix, &g->cfg.map, g->pos, disc, na);
    if (st != MIP_OK || nif == NULL)
        return st != MIP_OK ? st : MIP_ERR_INVALID;
    /* the old address's slot takes the new one, its host route goes */
    for (i = 1; i <= MIP_NETIF_ADDR6_MAX; i++)
        if (nif->addr6[i].used && memcmp(nif->addr6[i].addr, g->addr, 16) == 0) {
            mip_addr_set6(&a, g->addr);
            (void)mip_route_remove(g->stack, &a, 128);
            nif->addr6[i].used = 0;
        }
    memcpy(g->addr, na, 16);
    g->disc = disc;
    mip_addr_set6(&a, na);
    return mip_netif_add_addr(g->stack, g->netif, &a, 128);
}

/* A neighbour announces our own address: the larger link-local IID
 * yields to the lowest D nobody at our cell uses. */
static void duplicate(struct mip_geo *g, const uint8_t iid[8], mip_time_t now)
{
    struct mip_netif *nif = mip_netif_get(g->stack, g->netif);
    uint8_t d;
    unsigned i;
    g->stats[MIP_GEO_STAT_dup_addr_seen]++;
    if (nif == NULL || memcmp(nif->addr6[0].addr + 8, iid, 8) < 0)
        return;                       /* ours is smaller: we keep it */
    for (d = 1; d <= MIP_SPATIAL_DISC_MAX; d++) {
        bool used = false;
        for (i = 0; i < MIP_GEO_NEIGH_MAX; i++)
            if (live(g, &g->nb[i], now) && pos_eq(g->nb[i].pos, g->pos) && g->nb[i].disc == d)
                used = true;
        if (!used)
            break;
    }
    if (d <= MIP_SPATIAL_DISC_MAX && set_addr(g, d) == MIP_OK) {
        g->stats[MIP_GEO_STAT_dup_addr_resolved]++;
        g->next_beacon = now;         /* tell them now */
    }
}

static void beacon_rx(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                      const uint8_t *data, size_t len)
{
    struct mip_geo *g = ctx;
    struct mip_geo_beacon bc;
    mip_time_t now = s->now;
    unsigned i, slot = MIP_GEO_NEIGH_MAX, old = 0;
    if (m->src.family != MIP_AF_INET6 || m->src.bytes[0] != 0xFEu ||
        (m->src.bytes[1] & 0xC0u) != 0x80u || mip_geo_beacon_parse(data, len, &bc) != MIP_OK) {
        g->stats[MIP_GEO_STAT_beacon_bad]++;
        return;
    }
    g->stats[MIP_GEO_STAT_beacon_rx]++;
    if (pos_eq(bc.pos, g->pos) && bc.disc == g->disc)
        duplicate(g, m->src.bytes + 8, now);
    for (i = 0; i < MIP_GEO_NEIGH_MAX; i++) {
        struct mip_geo_neigh *n = &g->nb[i];
        if (n->used && memcmp(n->iid, m->src.bytes + 8, 8) == 0) {
            slot = i;
            break;
        }
        if (!live(g, n, now)) {
            if (slot == MIP_GEO_NEIGH_MAX)
                slot = i;
        } else if (mip_time_before(n->heard, g->nb[old].heard) || !live(g, &g->nb[old], now)) {
            old = i;
        }
    }
    if (slot == MIP_GEO_NEIGH_MAX) {
        /* full: the longest unheard goes (a neighbour heard again wins its
         * place back with its next beacon) */
        slot = old;
        g->stats[MIP_GEO_STAT_neigh_evicted]++;
    }
    if (!g->nb[slot].used || memcmp(g->nb[slot].iid, m->src.bytes + 8, 8) != 0)
        g->stats[MIP_GEO_STAT_neigh_new]++;
    memcpy(g->nb[slot].iid, m->src.bytes + 8, 8);
    g->nb[slot].pos = bc.pos;
    g->nb[slot].disc = bc.disc;
    g->nb[slot].used = 1;
    g->nb[slot].heard = now;
}

static uint32_t geo_poll(void *ctx, struct mip_stack *s, mip_time_t now)
{
    struct mip_geo *g = ctx;
    uint32_t next = MIP_POLL_IDLE;
    unsigned i;
#if MIP_CONF_FORWARD
    if (g->pend_used && mip_time_reached(now, g->pend_at))
        pend_flush(g, s);
    if (g->pend_used)
        next = mip_next_delay(next, now, g->pend_at);
#endif
    for (i = 0; i < MIP_GEO_NEIGH_MAX; i++) {
        struct mip_geo_neigh *n = &g->nb[i];
        if (!n->used)
            continue;
        if (!live(g, n, now)) {
            n->used = 0;
            g->stats[MIP_GEO_STAT_neigh_expired]++;
            continue;
        }
        next = mip_next_delay(next, now, n->heard + neigh_timeout(g));
    }
    for (i = 0; i < MIP_GEO_SEEN_MAX; i++) {
        struct mip_geo_seen *e = &g->seen[i];
        if (e->used && (uint32_t)(now - e->at) >= g->cfg.seen_ms)
            e->used = 0;
        else if (e->used)
            next = mip_next_delay(next, now, e->at + g->cfg.seen_ms);
    }
    if (mip_time_reached(now, g->next_beacon)) {
        struct mip_geo_beacon bc;
        struct mip_netif *nif = mip_netif_get(s, g->netif);
        struct mip_addr src, dst;
        uint8_t buf[MIP_GEO_BEACON_LEN], a[16] = { 0xFF, 0x02 };
        size_t n = 0;
        a[15] = 1;
        bc.disc = g->disc;
        bc.pos = g->pos;
        if (nif != NULL && mip_geo_beacon_emit(&bc, buf, sizeof(buf), &n) == MIP_OK) {
            mip_addr_set6(&src, nif->addr6[0].addr);
            mip_addr_set6(&dst, a);
            if (mip_udp_sendto(s, &src, MIP_GEO_PORT, &dst, MIP_GEO_PORT, g->netif, buf, n) ==
                MIP_OK)
                g->stats[MIP_GEO_STAT_beacon_tx]++;
        }
        g->next_beacon = now + jittered(g);
    }
    return mip_next_delay(next, now, g->next_beacon);
}

static const struct mip_routing_ops geo_ops = {
    "geo", geo_next_hop, geo_poll, NULL, NULL, geo_rx, geo_forward, geo_output, 0, geo_accepts
};

mip_status mip_geo_init(struct mip_geo *g, struct mip_stack *s, uint8_t netif,
                        const struct mip_geo_config *cfg, mip_time_t now)
{
    struct mip_netif *nif = mip_netif_get(s, netif);
    mip_status st;
    memset(g, 0, sizeof(*g));
    if (cfg == NULL || nif == NULL || !nif->addr6[0].used || cfg->beacon_ms == 0u ||
        cfg->beacon_ms > MIP_TIME_HORIZON_MS / 5u || cfg->seen_ms > MIP_TIME_HORIZON_MS ||
        cfg->rebroadcast_jitter_ms > 60000u ||
        cfg->neigh_timeout_ms > MIP_TIME_HORIZON_MS)
        return MIP_ERR_INVALID;
    g->cfg = *cfg;
    if (g->cfg.map.cell_cm == 0u)
        return MIP_ERR_INVALID;
    g->stack = s;
    g->netif = netif;
    g->pos = mip_spatial_cell(&g->cfg.map, cfg->x_cm, cfg->y_cm);
    st = set_addr(g, 0);
    if (st != MIP_OK)
        return st;
    st = mip_udp_bind(s, MIP_GEO_PORT, beacon_rx, g);
    if (st != MIP_OK)
        return st;
    g->next_beacon = now + mip_rng_below(&s->rng, cfg->beacon_ms / 2u + 1u);
    mip_routing_set(s, &geo_ops, g);
    return MIP_OK;
}

mip_status mip_geo_region_addr(const struct mip_geo *g, uint8_t region_len, uint8_t out[16])
{
    return mip_spatial_region_addr(g->cfg.prefix, &g->cfg.map, g->pos, region_len, out);
}

unsigned mip_geo_neigh_count(const struct mip_geo *g)
{
    unsigned i, n = 0;
    for (i = 0; i < MIP_GEO_NEIGH_MAX; i++)
        n += live(g, &g->nb[i], g->stack->now) ? 1u : 0u;
    return n;
}
