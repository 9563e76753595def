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
#include "moteip/ip.h"
#include "moteip/rng.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/rpl_ext.h"
#include <string.h>

#define IP6_HDR 40u

/* --- the root's table ---------------------------------------------------- */

#if MIP_RPL_DOWN_MAX > 0
static bool node_live(const struct mip_rpl_node *e, mip_time_t now)
{
    return e->used && mip_time_before(now, e->expires);
}

static struct mip_rpl_node *node_find(struct mip_rpl *r, const uint8_t target[16],
                                      mip_time_t now)
{
    unsigned i;

    for (i = 0; i < MIP_RPL_DOWN_MAX; i++)
        if (node_live(&r->down.node[i], now) && memcmp(r->down.node[i].target, target, 16) == 0)
            return &r->down.node[i];
    return NULL;
}

bool rpl_down_route_update(struct mip_rpl *r, const uint8_t target[16], const uint8_t parent[16],
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
        for (i = 0; i < MIP_RPL_DOWN_MAX && e == NULL; i++)
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

#if MIP_CONF_RPL_STORING
void rpl_down_route_pending(struct mip_rpl *r, const uint8_t target[16], uint8_t seq_in,
                            uint8_t seq_out, mip_time_t now)
{
    struct mip_rpl_node *e = node_find(r, target, now);

    if (e == NULL)
        return;
    e->used = RPL_NODE_ACK_PENDING;
    e->ack_in = seq_in;
    e->ack_out = seq_out;
}

bool rpl_down_forward_acked(struct mip_rpl *r, uint8_t seq_out, uint8_t child[16],
                            uint8_t *seq_in, mip_time_t now)
{
    bool found = false;
    unsigned i;

    for (i = 0; i < MIP_RPL_DOWN_MAX; i++) {
        struct mip_rpl_node *e = &r->down.node[i];
        if (e->used != RPL_NODE_ACK_PENDING || e->ack_out != seq_out || !node_live(e, now))
            continue;
        e->used = 1u;                 /* the Targets of one DAO: one answer */
        if (!found) {
            memcpy(child, e->parent, 16);
            *seq_in = e->ack_in;
            found = true;
        }
    }
    return found;
}
#endif

uint32_t rpl_down_table_poll(struct mip_rpl *r, mip_time_t now)
{
    uint32_t next = MIP_POLL_IDLE;
    unsigned i;

    for (i = 0; i < MIP_RPL_DOWN_MAX; i++) {
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

#endif

#if RPL_SRC_ROUTES
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

#if MIP_RPL_DOWN_MAX > 0
/* A non-storing root routes by source routes; in storing mode every
 * router by its table. */
static bool routes_down(const struct mip_rpl *r)
{
    return RPL_STORING(r) ? (r->state == MIP_RPL_ROOT ||
                                            r->state == MIP_RPL_JOINED)
                                         : r->state == MIP_RPL_ROOT;
}
#endif

bool rpl_down_knows(const struct mip_rpl *r, const uint8_t dst[16], mip_time_t now)
{
    struct mip_addr nh;

    return rpl_down_next_hop(r, dst, &nh, now);
}

bool rpl_down_next_hop(const struct mip_rpl *r, const uint8_t dst[16], struct mip_addr *nexthop,
                       mip_time_t now)
{
#if MIP_RPL_DOWN_MAX > 0
    const struct mip_rpl_node *e;

    if (!routes_down(r) || (e = node_find((struct mip_rpl *)r, dst, now)) == NULL)
        return false;
    /* non-storing: the hooks name the real next hop (root_down) */
    mip_addr_set6(nexthop, RPL_STORING(r) ? e->parent : dst);
    return true;
#else
    (void)r;
    (void)dst;
    (void)nexthop;
    (void)now;
    return false;
#endif
}

static bool global_unicast(const uint8_t *a)
{
    return a[0] != 0xFFu && !(a[0] == 0xFEu && (a[1] & 0xC0u) == 0x80u);
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

#if RPL_SRC_ROUTES
static enum mip_routing_verdict tunnel_send(struct mip_rpl *r, const uint8_t *pkt, size_t len,
                                            bool forwarded, mip_time_t now);

/*
 * A datagram the root originates to dst, a node of the table: it carries
 * its route itself (RFC 6554; RFC 9008 7). A child of the root needs none.
 * (What the root forwards goes in a tunnel: tunnel_send.)
 */
static enum mip_routing_verdict root_down(struct mip_rpl *r, struct mip_routing_pkt *pkt,
                                          mip_time_t now)
{
    uint8_t hops[MIP_RPL_SRH_HOPS_MAX][16], dst[16], nh;
    uint8_t *b = mip_pbuf_payload(pkt->p);
    uint16_t k;
    size_t srh_len, at = IP6_HDR;

    memcpy(dst, b + 24, 16);
    k = root_route(r, dst, now, hops);
    if (k == 0u) {
        rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_no_source_route);
        return MIP_ROUTING_DROP;
    }
    pkt->out_netif = r->netif;
    mip_addr_set6(pkt->nexthop, hops[0]);
    if (k == 1u)
        return MIP_ROUTING_PASS;
    srh_len = mip_srh_emit_len(hops[0], (const uint8_t (*)[16])(hops + 1), (uint16_t)(k - 1u));
    /* after the fixed header and a Hop-by-Hop header (RFC 8200 4.1) */
    if (b[6] == MIP_IPV6_NH_HOPOPTS && pkt->p->len >= IP6_HDR + 2u)
        at += ((size_t)b[IP6_HDR + 1u] + 1u) * 8u;
    if (at > pkt->p->len)
        return MIP_ROUTING_PASS;
    b = open_gap(r->stack, pkt, at, (uint16_t)srh_len);
    if (b == NULL) {
        /* no room for the SRH in the MTU (a full-sized TCP segment): our
         * own datagram goes in a tunnel to the node, fragmented (RFC 2473
         * 7.1), as a forwarded one does */
        b = mip_pbuf_payload(pkt->p);
        return tunnel_send(r, b, pkt->p->len, false, now);
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
    rpl_down_count(r, MIP_RPL_DOWN_STAT_srh_inserted);
    return MIP_ROUTING_PASS;
}
#endif

static enum mip_routing_verdict rpi_forward(struct mip_rpl *r, uint8_t *b, size_t len,
                                            bool down);

#if RPL_SRC_ROUTES
/*
 * The root's tunnel for a datagram it forwards to a node of its table
 * (RFC 9008 7), taken in the rx hook because the outer datagram may have to
 * be fragmented: a 1280-byte datagram from outside (a full IPv6 minimum
 * MTU) has no room for 40 bytes of outer header and the SRH, and the tunnel
 * entry is the outer datagram's source, which may fragment it (RFC 2473
 * 7.1). Each fragment carries the outer header and the SRH (the
 * unfragmentable part), then a Fragment header and a multiple of 8 bytes of
 * the inner datagram; the node at the end reassembles and unwraps. The
 * fragments are built one at a time in a packet buffer and sent with
 * mip_ip_send_raw (the hooks do not see them again).
 */
static enum mip_routing_verdict tunnel_send(struct mip_rpl *r, const uint8_t *pkt, size_t len,
                                            bool forwarded, mip_time_t now)
{
    struct mip_stack *s = r->stack;
    uint8_t hops[MIP_RPL_SRH_HOPS_MAX][16];
    struct mip_netif *nif = mip_netif_get(s, r->netif);
    struct mip_ipv6_hdr h;
    struct mip_pbuf *p;
    uint8_t *b;
    size_t srh_len = 0, unfrag, off = 0, chunk;
    uint16_t k = root_route(r, pkt + 24, now, hops);
    uint32_t id;
    bool frag;

    if (k == 0u) {
        rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_no_source_route);
        return MIP_ROUTING_DROP;
    }
    if (k > 1u)
        srh_len = mip_srh_emit_len(hops[0], (const uint8_t (*)[16])(hops + 1),
                                   (uint16_t)(k - 1u));
    unfrag = IP6_HDR + srh_len;
    if (nif == NULL || unfrag + MIP_IPV6_FRAG_HDR_LEN + 8u > nif->mtu ||
        len > 0xFFFFu - unfrag) {
        rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_srh_no_room);
        return MIP_ROUTING_DROP;
    }
    frag = unfrag + len > nif->mtu;
    chunk = frag ? (nif->mtu - unfrag - MIP_IPV6_FRAG_HDR_LEN) / 8u * 8u : len;
    p = mip_pbuf_alloc(&s->pool, 0);
    if (p == NULL || mip_pbuf_tailroom(p) < nif->mtu) {
        mip_pbuf_free(&s->pool, p);
        rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_srh_no_room);
        return MIP_ROUTING_DROP;
    }
    b = mip_pbuf_payload(p);
    id = mip_rng_next(&s->rng);
    memset(&h, 0, sizeof(h));
    h.hop_limit = 64u;
    memcpy(h.src, r->dodagid, 16);
    memcpy(h.dst, hops[0], 16);
    while (off < len) {
        size_t n = len - off < chunk ? len - off : chunk, at = 0, w = 0;
        h.next_header = k > 1u ? MIP_IPV6_NH_ROUTING
                               : frag ? MIP_IPV6_NH_FRAGMENT : MIP_IPV6_NH_IPV6;
        h.payload_len = (uint16_t)(srh_len + (frag ? MIP_IPV6_FRAG_HDR_LEN : 0u) + n);
        (void)mip_ipv6_emit(&h, b, IP6_HDR);
        at = IP6_HDR;
        if (k > 1u) {
            (void)mip_srh_emit(frag ? MIP_IPV6_NH_FRAGMENT : MIP_IPV6_NH_IPV6, hops[0],
                               (const uint8_t (*)[16])(hops + 1), (uint16_t)(k - 1u),
                               b + at, srh_len, &w);
            at += w;
        }
        if (frag) {
            (void)mip_ipv6_frag_emit(MIP_IPV6_NH_IPV6, (uint16_t)off, off + n < len, id,
                                     b + at, MIP_IPV6_FRAG_HDR_LEN);
            at += MIP_IPV6_FRAG_HDR_LEN;
        }
        memcpy(b + at, pkt + off, n);
        /* the inner datagram as forwarded: its hop limit decremented, its
         * RPL Option ours (going down) */
        if (off == 0u && forwarded) {
            b[at + 7] = (uint8_t)(pkt[7] - 1u);
            (void)rpi_forward(r, b + at, n, true);
        }
        (void)mip_ip_send_raw(s, b, at + n);
        off += n;
    }
    mip_pbuf_free(&s->pool, p);
    rpl_down_count(r, MIP_RPL_DOWN_STAT_tunnelled);
    if (k > 1u)
        rpl_down_count(r, MIP_RPL_DOWN_STAT_srh_inserted);
    return MIP_ROUTING_TAKEN;
}
#endif

enum mip_routing_verdict rpl_down_rx(void *ctx, struct mip_stack *s, uint8_t in_netif,
                                     const uint8_t *pkt, size_t len, bool local,
                                     struct mip_routing_pkt *err, mip_time_t now)
{
#if RPL_SRC_ROUTES
    struct mip_rpl *r = ctx;

    (void)in_netif;
    (void)err;
    /* only what core would forward without complaint: the rest (hop limit,
     * scopes, martians) core answers */
    if (local || !s->forwarding || r->state != MIP_RPL_ROOT ||
        !RPL_NON_STORING(r) || len < IP6_HDR || pkt[7] <= 1u ||
        !global_unicast(pkt + 8) || !global_unicast(pkt + 24) ||
        !rpl_down_knows(r, pkt + 24, now))
        return MIP_ROUTING_PASS;
    return tunnel_send(r, pkt, len, true, now);
#else
    (void)ctx; (void)s; (void)in_netif; (void)pkt; (void)len; (void)local; (void)err;
    (void)now;
    return MIP_ROUTING_PASS;
#endif
}

/* --- the RPL Option (RFC 6550 11.2) ----------------------------------------- */

static uint16_t dag_rank(const struct mip_rpl *r, uint16_t rank)
{
    return mip_rpl_dag_rank(rank, r->conf.min_hop_rank_inc);
}

/* A forwarded datagram's RPL Option: checked against our rank (RFC 6550
 * 11.2.2.2: going down from a higher rank, or up from a lower one, is an
 * inconsistency; the first sets R, a second drops the datagram) and
 * rewritten with our direction and rank. */
static enum mip_routing_verdict rpi_forward(struct mip_rpl *r, uint8_t *b, size_t len,
                                            bool down)
{
    struct mip_rpi o;
    size_t off;

    if (len < IP6_HDR + 2u || b[6] != MIP_IPV6_NH_HOPOPTS ||
        mip_rpi_find(b + IP6_HDR, len - IP6_HDR, &off) != MIP_OK ||
        mip_rpi_parse(b + IP6_HDR + off, len - IP6_HDR - off, &o) != MIP_OK ||
        o.instance != r->instance)
        return MIP_ROUTING_PASS;
    if (r->state != MIP_RPL_ROOT &&
        (o.down ? dag_rank(r, o.sender_rank) > dag_rank(r, r->rank)
                : dag_rank(r, o.sender_rank) < dag_rank(r, r->rank))) {
        rpl_down_count(r, MIP_RPL_DOWN_STAT_rank_errors);
        if (o.rank_error) {
            /* RFC 6550 11.2.2.2: drop, and reset the DIO Trickle timer so
             * the neighbours hear our rank soon (a leaf sends no DIOs) */
            rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_rank_error);
            if (!r->cfg.leaf)
                rpl_trickle_reset(r, r->stack->now);
            return MIP_ROUTING_DROP;
        }
        o.rank_error = true;
    }
    /* storing mode: sent down to us, but we have no route below (RFC
     * 6550 11.2.2.3 would send it back with F set; dropped here) */
    if (o.down && !down && RPL_STORING(r) && r->state != MIP_RPL_ROOT) {
        rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_no_down_route);
        return MIP_ROUTING_DROP;
    }
    o.down = down;
    o.sender_rank = r->rank;
    mip_rpi_update(b + IP6_HDR + off, &o);
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

enum mip_routing_verdict rpl_down_output(void *ctx, struct mip_stack *s,
                                         struct mip_routing_pkt *pkt, mip_time_t now)
{
    struct mip_rpl *r = ctx;
    const uint8_t *b = mip_pbuf_payload(pkt->p);

    (void)s;
    if (pkt->p->len < IP6_HDR || !global_unicast(b + 24))
        return MIP_ROUTING_PASS;
#if RPL_SRC_ROUTES
    if (r->state == MIP_RPL_ROOT && RPL_NON_STORING(r))
        return rpl_down_knows(r, b + 24, now) ? root_down(r, pkt, now)
                                              : MIP_ROUTING_PASS;
#endif
    /* a node's own datagram going up (not down a storing route) */
    if (r->state == MIP_RPL_JOINED && pkt->out_netif == r->netif &&
        !rpl_down_knows(r, b + 24, now))
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
    down = rpl_down_knows(r, b + 24, now);
    /* a source-routed datagram goes down (RFC 6554) */
    if (!down)
        down = has_routing_header(pkt->p);
    v = rpi_forward(r, mip_pbuf_payload(pkt->p), pkt->p->len, down);
    if (v != MIP_ROUTING_PASS)
        return v;
    return MIP_ROUTING_PASS;
}
