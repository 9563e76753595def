/*
 * RPL downward routes on the data path: the non-storing root's node table
 * and the source routes it builds from it (RFC 6554, with RFC 9008's rule
 * for when a datagram must be tunnelled), and the RPL Option every router
 * keeps on the datagrams it forwards (RFC 6550 11.2, RFC 6553). The DAOs
 * that fill the table are rpl_dao.c's.
 */
#include "rpl_down.h"
#include "moteip/stack.h"
#include "moteip/netif.h"
#include "moteip/pbuf.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/rpl_ext.h"
#include <string.h>

#define IP6_HDR 40u

/* --- the root's table ---------------------------------------------------- */

#if MIP_RPL_ROOT_NODES_MAX > 0
static bool node_live(const struct mip_rpl_node *e, mip_time_t now)
{
    return e->used && mip_time_before(now, e->expires);
}

static struct mip_rpl_node *node_find(struct mip_rpl *r, const uint8_t target[16],
                                      mip_time_t now)
{
    unsigned i;

    for (i = 0; i < MIP_RPL_ROOT_NODES_MAX; i++)
        if (node_live(&r->down.node[i], now) && memcmp(r->down.node[i].target, target, 16) == 0)
            return &r->down.node[i];
    return NULL;
}

bool rpl_root_node_update(struct mip_rpl *r, const uint8_t target[16], const uint8_t parent[16],
                          uint8_t path_seq, uint32_t life_ms, mip_time_t now)
{
    struct mip_rpl_node *e = node_find(r, target, now);
    unsigned i;

    if (e != NULL && e->path_seq != path_seq && !mip_rpl_seq_newer(path_seq, e->path_seq)) {
        rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_dao_stale);
        return true;
    }
    if (life_ms == 0u) {                      /* No-Path DAO */
        if (e != NULL) {
            e->used = 0u;
            rpl_down_count(r, MIP_RPL_DOWN_STAT_nodes_removed);
        }
        return true;
    }
    /* A node cannot be its own parent, nor the root a node. */
    if (memcmp(target, parent, 16) == 0 || memcmp(target, r->dodagid, 16) == 0) {
        rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_dao_malformed);
        return true;
    }
    if (e == NULL) {
        /* Only a free or expired slot: a flood of new targets, forged or
         * not, cannot push out a route that works. */
        for (i = 0; i < MIP_RPL_ROOT_NODES_MAX && e == NULL; i++)
            if (!node_live(&r->down.node[i], now)) {
                e = &r->down.node[i];
                if (e->used)
                    rpl_down_count(r, MIP_RPL_DOWN_STAT_nodes_expired);
            }
        if (e == NULL) {
            rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_dao_table_full);
            return false;
        }
        memcpy(e->target, target, 16);
        e->used = 1u;
        rpl_down_count(r, MIP_RPL_DOWN_STAT_nodes_added);
    }
    memcpy(e->parent, parent, 16);
    e->path_seq = path_seq;
    e->expires = now + life_ms;
    return true;
}

uint32_t rpl_root_poll(struct mip_rpl *r, mip_time_t now)
{
    uint32_t next = MIP_POLL_IDLE;
    unsigned i;

    for (i = 0; i < MIP_RPL_ROOT_NODES_MAX; i++) {
        struct mip_rpl_node *e = &r->down.node[i];
        if (!e->used)
            continue;
        if (!node_live(e, now)) {
            e->used = 0u;
            rpl_down_count(r, MIP_RPL_DOWN_STAT_nodes_expired);
            continue;
        }
        next = mip_next_delay(next, now, e->expires);
    }
    return next;
}

static bool is_root_addr(const struct mip_rpl *r, const uint8_t a[16])
{
    struct mip_addr x;
    const struct mip_netif *nif;

    if (memcmp(a, r->dodagid, 16) == 0)
        return true;
    nif = mip_netif_get(r->stack, r->netif);
    mip_addr_set6(&x, a);
    return nif != NULL && mip_netif_has_addr(nif, &x);
}

/* The chain of parents from dst up to us, as the hops down: hops[0] is a
 * child of the root, hops[k-1] is dst. 0 when a link is missing, or the
 * chain is longer than MIP_RPL_SRH_HOPS_MAX (a loop among forged or stale
 * entries ends there too). */
static uint16_t root_route(struct mip_rpl *r, const uint8_t dst[16], mip_time_t now,
                           uint8_t (*hops)[16])
{
    const uint8_t *cur = dst;
    uint16_t k = 0, i;

    while (k < MIP_RPL_SRH_HOPS_MAX) {
        const struct mip_rpl_node *e = node_find(r, cur, now);
        if (e == NULL)
            return 0;
        memcpy(hops[k++], cur, 16);
        if (is_root_addr(r, e->parent)) {
            for (i = 0; i < k / 2u; i++) {
                uint8_t t[16];
                memcpy(t, hops[i], 16);
                memcpy(hops[i], hops[k - 1u - i], 16);
                memcpy(hops[k - 1u - i], t, 16);
            }
            return k;
        }
        cur = e->parent;
    }
    return 0;
}
#endif

bool rpl_down_knows(const struct mip_rpl *r, const uint8_t dst[16], mip_time_t now)
{
#if MIP_RPL_ROOT_NODES_MAX > 0
    return r->state == MIP_RPL_ROOT && node_find((struct mip_rpl *)r, dst, now) != NULL;
#else
    (void)r;
    (void)dst;
    (void)now;
    return false;
#endif
}

/* --- making room in a datagram ------------------------------------------- */

/* Grows p by n bytes at the front, moving its bytes back into the
 * tailroom when the headroom is short. NULL when neither has room. */
static uint8_t *grow_front(struct mip_pbuf *p, uint16_t n)
{
    uint8_t *b;

    if (p->off >= n)
        return mip_pbuf_push(p, n);
    if (mip_pbuf_tailroom(p) < n)
        return NULL;
    b = mip_pbuf_payload(p);
    (void)mip_pbuf_put(p, n);
    memmove(b + n, b, (size_t)p->len - n);
    return b;
}

/* Opens a gap of n bytes at offset `at` of the datagram in p (the bytes
 * before it move to the front). NULL when there is no room or the result
 * would not fit the netif's MTU. */
static uint8_t *open_gap(struct mip_stack *s, const struct mip_routing_pkt *pkt, size_t at,
                         uint16_t n)
{
    struct mip_netif *nif = mip_netif_get(s, pkt->out_netif);
    uint8_t *b;

    if (nif == NULL || (size_t)pkt->p->len + n > nif->mtu)
        return NULL;
    b = grow_front(pkt->p, n);
    if (b == NULL)
        return NULL;
    memmove(b, b + n, at);
    mip_wr16(b + 4, (uint16_t)(mip_rd16(b + 4) + n));
    return b;
}

/* --- the root's source routes --------------------------------------------- */

#if MIP_RPL_ROOT_NODES_MAX > 0
/*
 * A datagram to dst, a node of the table, leaves the root: it gets a
 * route (RFC 6554). One the root originates carries the SRH itself; one
 * it forwards is put inside a new datagram from the root to dst that
 * carries it (RFC 9008 7: a router may not insert headers into another
 * node's datagram, RFC 8200 4). A child of the root needs no route.
 */
static enum mip_routing_verdict root_down(struct mip_rpl *r, struct mip_routing_pkt *pkt,
                                          bool tunnel, mip_time_t now)
{
    uint8_t hops[MIP_RPL_SRH_HOPS_MAX][16], dst[16];
    uint8_t *b = mip_pbuf_payload(pkt->p);
    uint16_t k, n = 0;
    size_t srh_len = 0, at;

    memcpy(dst, b + 24, 16);
    k = root_route(r, dst, now, hops);
    if (k == 0u) {
        rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_no_source_route);
        return MIP_ROUTING_DROP;
    }
    pkt->out_netif = r->netif;
    mip_addr_set6(pkt->nexthop, hops[0]);
    if (k == 1u && !tunnel)
        return MIP_ROUTING_PASS;
    if (k > 1u)
        srh_len = mip_srh_emit_len(hops[0], (const uint8_t (*)[16])(hops + 1), (uint16_t)(k - 1u));
    if (tunnel) {
        struct mip_ipv6_hdr h;
        uint16_t inner = pkt->p->len;
        n = (uint16_t)(IP6_HDR + srh_len);
        b = open_gap(r->stack, pkt, 0, n);
        if (b == NULL) {
            rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_srh_no_room);
            return MIP_ROUTING_DROP;
        }
        memset(&h, 0, sizeof(h));
        h.payload_len = (uint16_t)(inner + srh_len);
        h.next_header = k > 1u ? MIP_IPV6_NH_ROUTING : MIP_IPV6_NH_IPV6;
        h.hop_limit = 64u;
        memcpy(h.src, r->dodagid, 16);
        memcpy(h.dst, hops[0], 16);
        (void)mip_ipv6_emit(&h, b, IP6_HDR);
        at = IP6_HDR;
        if (k > 1u)
            (void)mip_srh_emit(MIP_IPV6_NH_IPV6, hops[0], (const uint8_t (*)[16])(hops + 1),
                               (uint16_t)(k - 1u), b + at, srh_len, &srh_len);
        rpl_down_count(r, MIP_RPL_DOWN_STAT_tunnelled);
    } else {
        /* after the fixed header and a Hop-by-Hop header (RFC 8200 4.1) */
        uint8_t nh;
        at = IP6_HDR;
        if (b[6] == MIP_IPV6_NH_HOPOPTS && pkt->p->len >= IP6_HDR + 2u)
            at += ((size_t)b[IP6_HDR + 1u] + 1u) * 8u;
        if (at > pkt->p->len) {
            rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_srh_no_room);
            return MIP_ROUTING_DROP;
        }
        b = open_gap(r->stack, pkt, at, (uint16_t)srh_len);
        if (b == NULL) {
            rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_srh_no_room);
            return MIP_ROUTING_DROP;
        }
        /* the header that named what followed now names the SRH */
        nh = at == IP6_HDR ? b[6] : b[IP6_HDR];
        if (at == IP6_HDR)
            b[6] = MIP_IPV6_NH_ROUTING;
        else
            b[IP6_HDR] = MIP_IPV6_NH_ROUTING;
        (void)mip_srh_emit(nh, hops[0], (const uint8_t (*)[16])(hops + 1), (uint16_t)(k - 1u),
                           b + at, srh_len, &srh_len);
        memcpy(b + 24, hops[0], 16);
    }
    if (k > 1u)
        rpl_down_count(r, MIP_RPL_DOWN_STAT_srh_inserted);
    return MIP_ROUTING_PASS;
}
#endif

/* --- the RPL Option (RFC 6550 11.2) ----------------------------------------- */

static uint16_t dag_rank(const struct mip_rpl *r, uint16_t rank)
{
    return mip_rpl_dag_rank(rank, r->conf.min_hop_rank_inc);
}

/* A forwarded datagram's RPL Option: checked against our rank (RFC 6550
 * 11.2.2.2: going down from a higher rank, or up from a lower one, is an
 * inconsistency; the first sets R, a second drops the datagram) and
 * rewritten with our direction and rank. */
static enum mip_routing_verdict rpi_forward(struct mip_rpl *r, struct mip_routing_pkt *pkt,
                                            bool down)
{
    uint8_t *b = mip_pbuf_payload(pkt->p);
    struct mip_rpi o;
    size_t off;

    if (pkt->hbh_off == 0u || pkt->hbh_off >= pkt->p->len ||
        mip_rpi_find(b + pkt->hbh_off, pkt->p->len - pkt->hbh_off, &off) != MIP_OK ||
        mip_rpi_parse(b + pkt->hbh_off + off, pkt->p->len - pkt->hbh_off - off, &o) != MIP_OK ||
        o.instance != r->instance)
        return MIP_ROUTING_PASS;
    if (r->state != MIP_RPL_ROOT &&
        (o.down ? dag_rank(r, o.sender_rank) > dag_rank(r, r->rank)
                : dag_rank(r, o.sender_rank) < dag_rank(r, r->rank))) {
        rpl_down_count(r, MIP_RPL_DOWN_STAT_rank_errors);
        if (o.rank_error) {
            rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_rank_error);
            return MIP_ROUTING_DROP;
        }
        o.rank_error = true;
    }
    o.down = down;
    o.sender_rank = r->rank;
    mip_rpi_update(b + pkt->hbh_off + off, &o);
    return MIP_ROUTING_PASS;
}

/* A node's own datagram going up gets an RPL Option (RFC 6553 3, type
 * 0x23 of RFC 9008) in a Hop-by-Hop header of its own; one that already
 * has a Hop-by-Hop header, or would outgrow the MTU, goes without. */
static void rpi_originate(struct mip_rpl *r, struct mip_routing_pkt *pkt)
{
    struct mip_rpi o = {false, false, false, 0, 0};
    uint8_t *b = mip_pbuf_payload(pkt->p);
    uint8_t nh = b[6];

    if (nh == MIP_IPV6_NH_HOPOPTS)
        return;
    b = open_gap(r->stack, pkt, IP6_HDR, MIP_RPI_HBH_LEN);
    if (b == NULL)
        return;
    o.instance = r->instance;
    o.sender_rank = r->rank;
    (void)mip_rpi_hbh_emit(nh, MIP_RPI_TYPE, &o, b + IP6_HDR, MIP_RPI_HBH_LEN);
    b[6] = MIP_IPV6_NH_HOPOPTS;
    pkt->hbh_off = IP6_HDR;
}

static bool global_unicast(const uint8_t *a)
{
    return a[0] != 0xFFu && !(a[0] == 0xFEu && (a[1] & 0xC0u) == 0x80u);
}

enum mip_routing_verdict rpl_down_output(void *ctx, struct mip_stack *s,
                                         struct mip_routing_pkt *pkt, mip_time_t now)
{
    struct mip_rpl *r = ctx;
    const uint8_t *b = mip_pbuf_payload(pkt->p);

    (void)s;
    if (pkt->p->len < IP6_HDR || !global_unicast(b + 24))
        return MIP_ROUTING_PASS;
#if MIP_RPL_ROOT_NODES_MAX > 0
    if (r->state == MIP_RPL_ROOT)
        return rpl_down_knows(r, b + 24, now) ? root_down(r, pkt, false, now)
                                              : MIP_ROUTING_PASS;
#else
    (void)now;
#endif
    if (r->state == MIP_RPL_JOINED && pkt->out_netif == r->netif)
        rpi_originate(r, pkt);
    return MIP_ROUTING_PASS;
}

/* A Routing header right after the fixed header or its Hop-by-Hop
 * header (where RFC 8200 4.1 puts it). */
static bool has_routing_header(struct mip_pbuf *p)
{
    const uint8_t *b = mip_pbuf_payload(p);
    uint8_t nh = b[6];

    if (nh == MIP_IPV6_NH_HOPOPTS && p->len >= IP6_HDR + 2u)
        nh = b[IP6_HDR];
    return nh == MIP_IPV6_NH_ROUTING;
}

enum mip_routing_verdict rpl_down_forward(void *ctx, struct mip_stack *s,
                                          struct mip_routing_pkt *pkt, mip_time_t now)
{
    struct mip_rpl *r = ctx;
    const uint8_t *b = mip_pbuf_payload(pkt->p);
    bool down = false;
    enum mip_routing_verdict v;

    (void)s;
    if (pkt->p->len < IP6_HDR)
        return MIP_ROUTING_PASS;
#if MIP_RPL_ROOT_NODES_MAX > 0
    down = r->state == MIP_RPL_ROOT && rpl_down_knows(r, b + 24, now);
#else
    (void)now;
#endif
    /* a source-routed datagram goes down (RFC 6554) */
    if (!down)
        down = has_routing_header(pkt->p);
    v = rpi_forward(r, pkt, down);
    if (v != MIP_ROUTING_PASS)
        return v;
#if MIP_RPL_ROOT_NODES_MAX > 0
    if (down && r->state == MIP_RPL_ROOT)
        return root_down(r, pkt, true, now);
#endif
    return MIP_ROUTING_PASS;
}
