/*
 * cctrl's split-and-merge proxy ([B] s.4.5.1). See apps/cctrl_proxy.h and
 * docs/RELAY.md "cctrl split and merge".
 */
#include "cctrl_proxy.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/tcp.h"

#include <stddef.h>
#include <string.h>

static const char *const stat_names[] = {
#define MIP_CCTRL_PROXY_STAT_NAME(n) #n,
    MIP_CCTRL_PROXY_STATS_LIST(MIP_CCTRL_PROXY_STAT_NAME)
#undef MIP_CCTRL_PROXY_STAT_NAME
};

const char *mip_cctrl_proxy_stat_name(enum mip_cctrl_proxy_stat which)
{
    return (unsigned)which < MIP_CCTRL_PROXY_STAT_COUNT ? stat_names[which] : "?";
}

#if MIP_CCTRL_PROXY

enum {
    ST_FREE = 0,
    ST_SETUP,       /* subflows and the real connection being opened */
    ST_RUN,         /* client side: the held SYN handed to TCP; data moves */
    ST_PASS,        /* client side: set up failed, the pair talks directly */
    ST_DEAD         /* aborted or finished: waiting for its connections' `closed` */
};
#define NONE 0xFFu
#define UNBOUND 0xFDu   /* the role of an accepted subflow before its header */

#define STAT(p, n) ((p)->stat[MIP_CCTRL_PROXY_STAT_##n]++)

void mip_cctrl_proxy_cfg_default(struct mip_cctrl_proxy_cfg *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->tunnel_port = 6100;
    cfg->subflows = 2;
    cfg->chunk = 16;
    cfg->hold = 64;
    cfg->setup_ms = 30000;
    cfg->idle_ms = 120000;
    cfg->pass_ms = 60000;
    mip_tcp_config_default(&cfg->tcp);
}

/* --- datagrams -------------------------------------------------------------- */

/* A TCP datagram as the hooks see it: whole, unfragmented, TCP right after
 * the IP header. */
struct seg {
    struct mip_addr src, dst;
    size_t ihl, l4len;
    uint16_t sport, dport;
    uint8_t flags;
};

static bool seg_parse(const uint8_t *pkt, size_t len, struct seg *g)
{
    struct mip_tcp_hdr th;
    if (len < 1u)
        return false;
    if ((pkt[0] >> 4) == 4u) {
        struct mip_ipv4_hdr h;
        if (mip_ipv4_parse(pkt, len, &h) != MIP_OK || h.proto != MIP_IPPROTO_TCP ||
            (h.flags & MIP_IPV4_FLAG_MF) != 0u || h.frag_offset != 0u || h.total_len > len)
            return false;
        mip_addr_set4(&g->src, h.src);
        mip_addr_set4(&g->dst, h.dst);
        g->ihl = h.hdr_len;
        g->l4len = (size_t)h.total_len - h.hdr_len;
    } else if ((pkt[0] >> 4) == 6u) {
        struct mip_ipv6_hdr h;
        if (mip_ipv6_parse(pkt, len, &h) != MIP_OK || h.next_header != MIP_IPPROTO_TCP ||
            40u + (size_t)h.payload_len > len)
            return false;
        mip_addr_set6(&g->src, h.src);
        mip_addr_set6(&g->dst, h.dst);
        g->ihl = 40;
        g->l4len = h.payload_len;
    } else {
        return false;
    }
    if (mip_tcp_parse(pkt + g->ihl, g->l4len, &th) != MIP_OK)
        return false;
    g->sport = th.src_port;
    g->dport = th.dst_port;
    g->flags = th.flags;
    return true;
}

/* Puts `a` in the datagram's source (src) or destination address and
 * computes the IPv4 header and TCP checksums again. */
static void seg_readdress(uint8_t *pkt, const struct seg *g, bool src, const struct mip_addr *a)
{
    uint8_t *l4 = pkt + g->ihl;
    uint32_t sum;
    l4[16] = l4[17] = 0;
    if (g->src.family == MIP_AF_INET) {
        memcpy(pkt + (src ? 12 : 16), a->bytes, 4);
        pkt[10] = pkt[11] = 0;
        sum = mip_cksum_finish(mip_cksum_add(0, pkt, g->ihl));
        pkt[10] = (uint8_t)(sum >> 8);
        pkt[11] = (uint8_t)sum;
        sum = mip_cksum_pseudo4(pkt + 12, pkt + 16, MIP_IPPROTO_TCP, (uint16_t)g->l4len);
    } else {
        memcpy(pkt + (src ? 8 : 24), a->bytes, 16);
        sum = mip_cksum_pseudo6(pkt + 8, pkt + 24, MIP_IPPROTO_TCP, (uint32_t)g->l4len);
    }
    sum = mip_cksum_finish(mip_cksum_add(sum, l4, g->l4len));
    l4[16] = (uint8_t)(sum >> 8);
    l4[17] = (uint8_t)sum;
}

/* Hands a datagram of stream st (from its client, to its target) to this
 * node's TCP as addressed to it. pkt is writable and is changed. */
static void divert(struct mip_cctrl_proxy *p, struct mip_cctrl_proxy_stream *st, uint8_t netif,
                   uint8_t *pkt, const struct seg *g)
{
    struct mip_ip_rx rx;
    unsigned i;
    seg_readdress(pkt, g, false, &st->own);
    memset(&rx, 0, sizeof(rx));
    rx.src = g->src;
    rx.dst = st->own;
    rx.proto = MIP_IPPROTO_TCP;
    rx.ttl = g->src.family == MIP_AF_INET ? pkt[8] : pkt[7];     /* TTL / hop limit */
    rx.netif = netif;
    rx.quote = pkt;
    rx.quote_len = g->ihl;
    STAT(p, diverted);
    for (i = 0; i < MIP_PROTO_HANDLERS_MAX; i++) {
        const struct mip_proto_handler *h = &p->s->proto[i];
        if (h->proto == MIP_IPPROTO_TCP) {
            p->injecting = st;
            (void)h->input(h->ctx, p->s, &rx, pkt + g->ihl, g->l4len);
            p->injecting = NULL;
            return;
        }
    }
}

/* --- streams and connections ------------------------------------------------ */

static mip_time_t now_of(const struct mip_cctrl_proxy *p)
{
    return p->s->now;
}

static bool due(mip_time_t now, mip_time_t deadline)
{
    return (int32_t)(now - deadline) >= 0;
}

static struct mip_cctrl_proxy_stream *stream_of(struct mip_cctrl_proxy_conn *k)
{
    return k->stream == NONE ? NULL : &k->p->st[k->stream];
}

static void cb_connected(void *ctx, struct mip_tcp_conn *c);
static void cb_readable(void *ctx, struct mip_tcp_conn *c);
static void cb_writable(void *ctx, struct mip_tcp_conn *c);
static void cb_closed(void *ctx, struct mip_tcp_conn *c);
static void cb_error(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why);

static const struct mip_tcp_callbacks conn_cb = {
    cb_connected, cb_readable, cb_writable, cb_closed, cb_error
};

/* A connection slot that is neither open nor reserved. */
static uint8_t conn_alloc(struct mip_cctrl_proxy *p, uint8_t stream, uint8_t role)
{
    unsigned i;
    for (i = 0; i < MIP_CCTRL_PROXY_CONNS; i++) {
        struct mip_cctrl_proxy_conn *k = &p->conn[i];
        if (!k->open && k->stream == NONE && k->role == NONE) {
            mip_tcp_conn_init(&k->c, &conn_cb, k, k->tx, (uint16_t)sizeof(k->tx), k->rx, k->bm,
                              (mip_tcp_rxsize_t)sizeof(k->rx));
            k->c.cfg = p->cfg.tcp;
            k->stream = stream;
            k->role = role;
            k->failed = false;
            k->hdr_len = 0;
            k->since = now_of(p);
            return (uint8_t)i;
        }
    }
    return NONE;
}

static unsigned conns_free(const struct mip_cctrl_proxy *p)
{
    unsigned i, n = 0;
    for (i = 0; i < MIP_CCTRL_PROXY_CONNS; i++)
        n += !p->conn[i].open && p->conn[i].stream == NONE && p->conn[i].role == NONE;
    return n;
}

/* A free stream slot; else the passed pair closest to its end (streams
 * being set up or running are never evicted); NULL when neither. */
static struct mip_cctrl_proxy_stream *stream_alloc(struct mip_cctrl_proxy *p)
{
    struct mip_cctrl_proxy_stream *best = NULL;
    unsigned i;
    for (i = 0; i < MIP_CCTRL_PROXY_STREAMS; i++) {
        struct mip_cctrl_proxy_stream *st = &p->st[i];
        if (st->state == ST_FREE)
            return st;
        if (st->state == ST_PASS &&
            (best == NULL || (int32_t)(st->deadline - best->deadline) < 0))
            best = st;
    }
    return best;
}

static void stream_reset(struct mip_cctrl_proxy_stream *st)
{
    memset(st, 0, sizeof(*st));
    st->state = ST_FREE;
    st->outer = NONE;
    memset(st->sub, NONE, sizeof(st->sub));
}

static bool conns_open(const struct mip_cctrl_proxy *p, const struct mip_cctrl_proxy_stream *st)
{
    unsigned k;
    if (st->outer != NONE && p->conn[st->outer].open)
        return true;
    for (k = 0; k < st->n; k++)
        if (st->sub[k] != NONE && p->conn[st->sub[k]].open)
            return true;
    return false;
}

/* Gives the stream's connection slots back (none may be open). */
static void stream_release(struct mip_cctrl_proxy *p, struct mip_cctrl_proxy_stream *st)
{
    unsigned k;
    if (st->outer != NONE)
        p->conn[st->outer].stream = p->conn[st->outer].role = NONE;
    for (k = 0; k < MIP_CCTRL_SUBFLOWS_MAX; k++)
        if (st->sub[k] != NONE)
            p->conn[st->sub[k]].stream = p->conn[st->sub[k]].role = NONE;
    stream_reset(st);
}

static void abort_all(struct mip_cctrl_proxy *p, struct mip_cctrl_proxy_stream *st)
{
    unsigned k;
    st->state = ST_DEAD;
    if (st->outer != NONE && p->conn[st->outer].open)
        mip_tcp_abort(p->tcp, &p->conn[st->outer].c);
    for (k = 0; k < st->n; k++)
        if (st->sub[k] != NONE && p->conn[st->sub[k]].open)
            mip_tcp_abort(p->tcp, &p->conn[st->sub[k]].c);
}

/* Client side: the subflows cannot carry the stream; the held SYN goes on
 * as it came. */
static void fallback(struct mip_cctrl_proxy *p, struct mip_cctrl_proxy_stream *st)
{
    unsigned k;
    abort_all(p, st);
    STAT(p, fallback);
    (void)mip_ip_send_raw(p->s, st->syn, st->syn_len);
    st->state = ST_PASS;
    st->deadline = now_of(p) + p->cfg.pass_ms;
    /* a passed pair keeps no connection slot (mip_tcp_abort closed them) */
    if (st->outer != NONE && !p->conn[st->outer].open) {
        p->conn[st->outer].stream = p->conn[st->outer].role = NONE;
        st->outer = NONE;
    }
    for (k = 0; k < MIP_CCTRL_SUBFLOWS_MAX; k++)
        if (st->sub[k] != NONE && !p->conn[st->sub[k]].open) {
            p->conn[st->sub[k]].stream = p->conn[st->sub[k]].role = NONE;
            st->sub[k] = NONE;
        }
}

static bool splits(const struct mip_cctrl_proxy_stream *st, uint8_t n, uint16_t chunk,
                   uint16_t hold)
{
    return mip_cctrl_split_init((struct mip_cctrl_split *)&st->split, n, chunk) == MIP_OK &&
           mip_cctrl_merge_init((struct mip_cctrl_merge *)&st->merge, n, chunk,
                                (uint8_t *)st->hold, hold) == MIP_OK;
}

/* Moves what can move between the outer connection and the subflows, both
 * ways; true when any byte moved. */
static bool move(struct mip_cctrl_proxy *p, struct mip_cctrl_proxy_stream *st)
{
    struct mip_tcp_conn *o = &p->conn[st->outer].c;
    uint8_t buf[64];
    bool moved = false, progress = true;
    unsigned k;
    while (progress) {
        progress = false;
        /* outer -> subflows, chunk k on subflow k mod n */
        for (;;) {
            uint16_t room;
            uint8_t f = mip_cctrl_split_next(&st->split, &room);
            struct mip_tcp_conn *sc = &p->conn[st->sub[f]].c;
            size_t m = mip_tcp_readable(o), w = mip_tcp_writable(sc);
            if (!st->outer_up || st->fin_subs)
                break;
            if (m > room)
                m = room;
            if (m > w)
                m = w;
            if (m > sizeof(buf))
                m = sizeof(buf);
            if (m == 0u)
                break;
            m = mip_tcp_read(p->tcp, o, buf, m);
            (void)mip_tcp_write(p->tcp, sc, buf, m);
            (void)mip_cctrl_split_sent(&st->split, (uint16_t)m);
            p->stat[MIP_CCTRL_PROXY_STAT_bytes_split] += (uint32_t)m;
            progress = true;
        }
        /* subflows -> merge (as far as it has room) -> outer */
        for (k = 0; k < st->n; k++) {
            struct mip_tcp_conn *sc = &p->conn[st->sub[k]].c;
            size_t m;
            while ((m = mip_cctrl_merge_room(&st->merge, (uint8_t)k)) > 0u &&
                   mip_tcp_readable(sc) > 0u) {
                if (m > sizeof(buf))
                    m = sizeof(buf);
                m = mip_tcp_read(p->tcp, sc, buf, m);
                if (m == 0u)
                    break;
                (void)mip_cctrl_merge_put(&st->merge, (uint8_t)k, buf, m);
                progress = true;
            }
            if (mip_cctrl_merge_room(&st->merge, (uint8_t)k) == 0u && mip_tcp_readable(sc) > 0u &&
                !st->full[k]) {
                STAT(p, merge_full);
                st->full[k] = true;     /* counted once per stop */
            } else if (mip_cctrl_merge_room(&st->merge, (uint8_t)k) > 0u) {
                st->full[k] = false;
            }
        }
        if (st->outer_up) {
            size_t w;
            while ((w = mip_tcp_writable(o)) > 0u) {
                size_t m = mip_cctrl_merge_read(&st->merge, buf, w < sizeof(buf) ? w : sizeof(buf));
                if (m == 0u)
                    break;
                (void)mip_tcp_write(p->tcp, o, buf, m);
                p->stat[MIP_CCTRL_PROXY_STAT_bytes_merged] += (uint32_t)m;
                progress = true;
            }
        }
        moved |= progress;
    }
    return moved;
}

static bool merge_empty(const struct mip_cctrl_merge *m)
{
    unsigned k;
    for (k = 0; k < m->n; k++)
        if (m->held[k] != 0u)
            return false;
    return true;
}

/* The orderly end: a FIN on one side goes to the other once everything
 * before it has moved. */
static void closes(struct mip_cctrl_proxy *p, struct mip_cctrl_proxy_stream *st)
{
    unsigned k;
    bool subs_done = true;
    if (st->outer_up && !st->fin_subs && mip_tcp_peer_closed(&p->conn[st->outer].c)) {
        st->fin_subs = true;
        for (k = 0; k < st->n; k++)
            (void)mip_tcp_shutdown(p->tcp, &p->conn[st->sub[k]].c);
    }
    for (k = 0; k < st->n; k++)
        subs_done &= mip_tcp_peer_closed(&p->conn[st->sub[k]].c);
    if (st->outer_up && !st->fin_outer && subs_done && merge_empty(&st->merge)) {
        st->fin_outer = true;
        (void)mip_tcp_shutdown(p->tcp, &p->conn[st->outer].c);
    }
}

static bool any_failed(const struct mip_cctrl_proxy *p, const struct mip_cctrl_proxy_stream *st)
{
    unsigned k;
    if (st->outer != NONE && p->conn[st->outer].failed)
        return true;
    for (k = 0; k < st->n; k++)
        if (st->sub[k] != NONE && p->conn[st->sub[k]].failed)
            return true;
    return false;
}

static void pump_stream(struct mip_cctrl_proxy *p, struct mip_cctrl_proxy_stream *st)
{
    mip_time_t now = now_of(p);
    unsigned k;
    uint8_t all = (uint8_t)((1u << st->n) - 1u);
    switch (st->state) {
    case ST_SETUP:
        if (!st->server) {
            for (k = 0; k < st->n; k++) {
                struct mip_cctrl_proxy_conn *c = &p->conn[st->sub[k]];
                uint8_t b;
                if ((st->ready & (1u << k)) == 0u && mip_tcp_readable(&c->c) > 0u &&
                    mip_tcp_read(p->tcp, &c->c, &b, 1) == 1u) {
                    if (b != MIP_CCTRL_TUNNEL_READY)
                        c->failed = true;
                    else
                        st->ready |= (uint8_t)(1u << k);
                }
            }
            if (any_failed(p, st) || due(now, st->deadline)) {
                fallback(p, st);
            } else if (st->ready == all) {
                /* the server's connection is up: answer the client's SYN */
                st->state = ST_RUN;
                st->deadline = now + p->cfg.setup_ms;
                STAT(p, streams_split);
                {
                    struct seg g;
                    if (seg_parse(st->syn, st->syn_len, &g))
                        divert(p, st, st->syn_netif, st->syn, &g);
                }
            }
        } else {
            if (any_failed(p, st) || due(now, st->deadline)) {
                abort_all(p, st);
                STAT(p, aborted);
            } else if (st->bound == all && st->outer_up) {
                uint8_t b = MIP_CCTRL_TUNNEL_READY;
                for (k = 0; k < st->n; k++)
                    (void)mip_tcp_write(p->tcp, &p->conn[st->sub[k]].c, &b, 1);
                st->state = ST_RUN;
                st->deadline = now + p->cfg.idle_ms;
                STAT(p, streams_served);
            }
        }
        if (st->state != ST_RUN)
            break;
        /* fall through */
    case ST_RUN:
        if (any_failed(p, st)) {
            abort_all(p, st);
            STAT(p, aborted);
            break;
        }
        if (move(p, st))
            st->deadline = now + p->cfg.idle_ms;
        closes(p, st);
        if (st->fin_subs && st->fin_outer && !conns_open(p, st)) {
            STAT(p, streams_done);
            stream_release(p, st);
        } else if (due(now, st->deadline)) {
            STAT(p, idle_timeouts);
            abort_all(p, st);
        }
        break;
    case ST_PASS:
        if (due(now, st->deadline) && !conns_open(p, st))
            stream_release(p, st);
        break;
    case ST_DEAD:
        if (!conns_open(p, st))
            stream_release(p, st);
        break;
    default:
        break;
    }
}

/* Server side: reads a subflow's header byte by byte (the client side sends
 * nothing after it before READY), then binds the subflow to its stream,
 * opening the stream and its real connection at the first. */
static void bind_subflow(struct mip_cctrl_proxy *p, struct mip_cctrl_proxy_conn *c)
{
    struct mip_cctrl_tunnel_hdr h;
    struct mip_cctrl_proxy_stream *st = NULL;
    size_t used = 0;
    unsigned i;
    mip_status rc = MIP_ERR_TRUNCATED;
    while (rc == MIP_ERR_TRUNCATED && c->hdr_len < sizeof(c->hdr) &&
           mip_tcp_read(p->tcp, &c->c, &c->hdr[c->hdr_len], 1) == 1u) {
        c->hdr_len++;
        rc = mip_cctrl_tunnel_parse(c->hdr, c->hdr_len, &h, &used);
    }
    if (rc == MIP_ERR_TRUNCATED)
        return;
    if (rc != MIP_OK || h.n > MIP_CCTRL_SUBFLOWS_MAX ||
        (h.family == 4u) != (c->c.remote.family == MIP_AF_INET)) {
        STAT(p, drop_bad_header);
        mip_tcp_abort(p->tcp, &c->c);
        return;
    }
    for (i = 0; i < MIP_CCTRL_PROXY_STREAMS; i++) {
        struct mip_cctrl_proxy_stream *s = &p->st[i];
        if (s->state != ST_FREE && s->server && s->id == h.stream &&
            mip_addr_eq(&s->client, &c->c.remote))
            st = s;
    }
    if (st != NULL && (st->state != ST_SETUP || st->n != h.n || (st->bound & (1u << h.index)))) {
        STAT(p, drop_bad_header);
        mip_tcp_abort(p->tcp, &c->c);
        return;
    }
    if (st == NULL) {
        struct mip_cctrl_proxy_stream *s = NULL;
        uint8_t o;
        for (i = 0; i < MIP_CCTRL_PROXY_STREAMS && s == NULL; i++)
            if (p->st[i].state == ST_FREE)
                s = &p->st[i];
        o = s != NULL ? conn_alloc(p, (uint8_t)(s - p->st), MIP_CCTRL_PROXY_OUTER) : NONE;
        if (o == NONE) {
            STAT(p, drop_no_conn);
            mip_tcp_abort(p->tcp, &c->c);
            return;
        }
        st = s;
        st->state = ST_SETUP;
        st->server = true;
        st->n = h.n;
        st->id = h.stream;
        st->client = c->c.remote;
        st->target.family = h.family == 4u ? MIP_AF_INET : MIP_AF_INET6;
        memcpy(st->target.bytes, h.target, h.family == 4u ? 4u : 16u);
        st->tport = h.port;
        st->outer = o;
        st->deadline = now_of(p) + p->cfg.setup_ms;
        (void)splits(st, h.n, p->cfg.chunk, p->cfg.hold);
        p->conn[o].open = mip_tcp_connect(p->tcp, &p->conn[o].c, &st->target, h.port) == MIP_OK;
        if (!p->conn[o].open)
            p->conn[o].failed = true;
    }
    c->stream = (uint8_t)(st - p->st);
    c->role = h.index;
    st->sub[h.index] = (uint8_t)(c - p->conn);
    st->bound |= (uint8_t)(1u << h.index);
}

static void pump(struct mip_cctrl_proxy *p)
{
    unsigned i;
    if (p->busy) {
        p->again = true;
        return;
    }
    p->busy = true;
    do {
        p->again = false;
        for (i = 0; i < MIP_CCTRL_PROXY_CONNS; i++) {
            struct mip_cctrl_proxy_conn *c = &p->conn[i];
            if (c->open && c->stream == NONE) {
                if (c->failed) {
                    continue;
                } else if (due(now_of(p), c->since + p->cfg.setup_ms)) {
                    STAT(p, drop_header_timeout);
                    mip_tcp_abort(p->tcp, &c->c);
                } else {
                    bind_subflow(p, c);
                }
            }
        }
        for (i = 0; i < MIP_CCTRL_PROXY_STREAMS; i++)
            if (p->st[i].state != ST_FREE)
                pump_stream(p, &p->st[i]);
    } while (p->again);
    p->busy = false;
}

/* --- TCP callbacks ------------------------------------------------------------ */

static void cb_connected(void *ctx, struct mip_tcp_conn *c)
{
    struct mip_cctrl_proxy_conn *k = ctx;
    struct mip_cctrl_proxy_stream *st = stream_of(k);
    (void)c;
    if (st == NULL)
        return;
    if (k->role == MIP_CCTRL_PROXY_OUTER) {
        st->outer_up = true;
    } else if (!st->server) {
        struct mip_cctrl_tunnel_hdr h;
        uint8_t b[MIP_CCTRL_TUNNEL_HDR_MAX];
        size_t used = 0;
        memset(&h, 0, sizeof(h));
        h.n = st->n;
        h.index = k->role;
        h.stream = st->id;
        h.port = st->tport;
        h.family = st->target.family == MIP_AF_INET ? 4u : 6u;
        memcpy(h.target, st->target.bytes, sizeof(h.target));
        if (mip_cctrl_tunnel_emit(&h, b, sizeof(b), &used) != MIP_OK ||
            mip_tcp_write(k->p->tcp, &k->c, b, used) != used)
            k->failed = true;
    }
    pump(k->p);
}

static void cb_readable(void *ctx, struct mip_tcp_conn *c)
{
    struct mip_cctrl_proxy_conn *k = ctx;
    (void)c;
    pump(k->p);
}

static void cb_writable(void *ctx, struct mip_tcp_conn *c)
{
    struct mip_cctrl_proxy_conn *k = ctx;
    (void)c;
    pump(k->p);
}

/* Only flags: `closed` and `error` come from inside mip_tcp_abort too. */
static void cb_closed(void *ctx, struct mip_tcp_conn *c)
{
    struct mip_cctrl_proxy_conn *k = ctx;
    (void)c;
    k->open = false;
    if (k->stream == NONE)
        k->role = NONE;         /* an unbound subflow gives its slot back */
    k->p->again = true;
}

static void cb_error(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why)
{
    struct mip_cctrl_proxy_conn *k = ctx;
    (void)c;
    (void)why;
    k->failed = true;
    k->p->again = true;
}

static struct mip_tcp_conn *accept_outer(struct mip_tcp_listener *l, struct mip_tcp *tcp,
                                         uint16_t port)
{
    struct mip_cctrl_proxy *p = MIP_CONTAINER_OF(l, struct mip_cctrl_proxy, lis_port);
    struct mip_cctrl_proxy_stream *st = p->injecting;
    struct mip_cctrl_proxy_conn *k;
    (void)tcp;
    (void)port;
    if (st == NULL || st->state != ST_RUN || st->outer == NONE || p->conn[st->outer].open) {
        STAT(p, drop_no_conn);
        return NULL;            /* not a client this proxy answers for */
    }
    k = &p->conn[st->outer];
    k->open = true;
    st->outer_up = true;
    p->again = true;
    return &k->c;
}

static struct mip_tcp_conn *accept_subflow(struct mip_tcp_listener *l, struct mip_tcp *tcp,
                                           uint16_t port)
{
    struct mip_cctrl_proxy *p = MIP_CONTAINER_OF(l, struct mip_cctrl_proxy, lis_tunnel);
    uint8_t i = conn_alloc(p, NONE, UNBOUND);
    (void)tcp;
    (void)port;
    if (i == NONE) {
        STAT(p, drop_no_conn);
        return NULL;
    }
    p->conn[i].open = true;
    STAT(p, tunnels_accepted);
    p->again = true;
    return &p->conn[i].c;
}

/* --- hooks -------------------------------------------------------------------- */

static struct mip_cctrl_proxy_stream *find_client(struct mip_cctrl_proxy *p, const struct seg *g,
                                                  bool from_client)
{
    unsigned i;
    for (i = 0; i < MIP_CCTRL_PROXY_STREAMS; i++) {
        struct mip_cctrl_proxy_stream *st = &p->st[i];
        if (st->state == ST_FREE || st->server)
            continue;
        if (from_client ? (g->sport == st->cport && g->dport == st->tport &&
                           mip_addr_eq(&g->src, &st->client) && mip_addr_eq(&g->dst, &st->target))
                        : (g->sport == st->tport && g->dport == st->cport &&
                           mip_addr_eq(&g->dst, &st->client) && mip_addr_eq(&g->src, &st->own)))
            return st;
    }
    return NULL;
}

/* A client's SYN: hold it and open the subflows. */
static bool take_syn(struct mip_cctrl_proxy *p, uint8_t netif, const uint8_t *pkt, size_t len,
                     const struct seg *g)
{
    struct mip_cctrl_proxy_stream *st;
    unsigned k;
    uint8_t idx;
    if (len > MIP_CCTRL_PROXY_SYN_MAX) {
        STAT(p, pass_big_syn);
        return false;
    }
    st = stream_alloc(p);
    if (st != NULL && st->state == ST_PASS && !conns_open(p, st))
        stream_release(p, st);
    if (st == NULL || st->state != ST_FREE || conns_free(p) < 1u + p->cfg.subflows) {
        STAT(p, pass_full);
        return false;
    }
    idx = (uint8_t)(st - p->st);
    st->state = ST_SETUP;
    st->server = false;
    st->n = p->cfg.subflows;
    st->id = p->next_id++;
    st->client = g->src;
    st->target = g->dst;
    st->cport = g->sport;
    st->tport = g->dport;
    if (mip_ip_select_src(p->s, &st->client, MIP_NETIF_ANY, &st->own) != MIP_OK) {
        stream_reset(st);
        STAT(p, pass_full);
        return false;
    }
    memcpy(st->syn, pkt, len);
    st->syn_len = (uint16_t)len;
    st->syn_netif = netif;
    st->deadline = now_of(p) + p->cfg.setup_ms;
    (void)splits(st, st->n, p->cfg.chunk, p->cfg.hold);
    st->outer = conn_alloc(p, idx, MIP_CCTRL_PROXY_OUTER);
    STAT(p, syn_taken);
    for (k = 0; k < st->n; k++) {
        struct mip_cctrl_proxy_conn *c;
        st->sub[k] = conn_alloc(p, idx, (uint8_t)k);
        c = &p->conn[st->sub[k]];
        c->open = mip_tcp_connect(p->tcp, &c->c, &p->cfg.peer, p->cfg.tunnel_port) == MIP_OK;
        if (!c->open)
            c->failed = true;
    }
    return true;
}

static enum mip_fwd_verdict fwd_hook(void *ctx, struct mip_stack *s, uint8_t in_netif,
                                     uint8_t out_netif, uint8_t *pkt, size_t len)
{
    struct mip_cctrl_proxy *p = ctx;
    struct seg g;
    if (p->cfg.port != 0u && seg_parse(pkt, len, &g) && g.dport == p->cfg.port) {
        struct mip_cctrl_proxy_stream *st = find_client(p, &g, true);
        bool syn = (g.flags & (MIP_TCP_SYN | MIP_TCP_ACK)) == MIP_TCP_SYN;
        if (st == NULL && syn) {
            if (take_syn(p, in_netif, pkt, len, &g)) {
                pump(p);
                return MIP_FWD_TAKEN;
            }
        } else if (st != NULL && st->state == ST_SETUP) {
            if (syn)
                STAT(p, syn_dup);
            else
                STAT(p, drop_setup);
            return MIP_FWD_TAKEN;
        } else if (st != NULL && st->state != ST_PASS) {
            if (st->state == ST_RUN)
                divert(p, st, in_netif, pkt, &g);
            else
                STAT(p, drop_setup);        /* an aborted stream: its client was reset */
            pump(p);
            return MIP_FWD_TAKEN;
        }
    }
    return p->prev_fwd != NULL ? p->prev_fwd(p->prev_fwd_ctx, s, in_netif, out_netif, pkt, len)
                               : MIP_FWD_PASS;
}

static enum mip_fwd_verdict local_hook(void *ctx, struct mip_stack *s, bool out, uint8_t netif,
                                       const uint8_t *pkt, size_t len)
{
    struct mip_cctrl_proxy *p = ctx;
    struct seg g;
    if (out && p->cfg.port != 0u && seg_parse(pkt, len, &g) && g.sport == p->cfg.port) {
        struct mip_cctrl_proxy_stream *st = find_client(p, &g, false);
        if (st != NULL && (st->state == ST_RUN || st->state == ST_DEAD)) {
            if (len > sizeof(p->pkt)) {
                STAT(p, drop_too_big);
                return MIP_FWD_DROP;
            }
            memcpy(p->pkt, pkt, len);
            seg_readdress(p->pkt, &g, true, &st->target);
            STAT(p, rewritten);
            (void)mip_ip_send_raw(s, p->pkt, len);
            return MIP_FWD_TAKEN;
        }
    }
    return p->prev_local != NULL ? p->prev_local(p->prev_local_ctx, s, out, netif, pkt, len)
                                 : MIP_FWD_PASS;
}

static uint32_t poll_fn(void *ctx, struct mip_stack *s, mip_time_t now)
{
    struct mip_cctrl_proxy *p = ctx;
    uint32_t next = MIP_POLL_IDLE;
    unsigned i;
    (void)s;
    pump(p);
    for (i = 0; i < MIP_CCTRL_PROXY_STREAMS; i++) {
        const struct mip_cctrl_proxy_stream *st = &p->st[i];
        if (st->state != ST_FREE) {
            uint32_t d = due(now, st->deadline) ? 1u : (uint32_t)(st->deadline - now);
            if (d < next)
                next = d;
        }
    }
    for (i = 0; i < MIP_CCTRL_PROXY_CONNS; i++) {
        const struct mip_cctrl_proxy_conn *c = &p->conn[i];
        if (c->open && c->stream == NONE) {
            mip_time_t end = c->since + p->cfg.setup_ms;
            uint32_t d = due(now, end) ? 1u : (uint32_t)(end - now);
            if (d < next)
                next = d;
        }
    }
    return next;
}

mip_status mip_cctrl_proxy_init(struct mip_cctrl_proxy *p, struct mip_stack *s,
                                struct mip_tcp *tcp, const struct mip_cctrl_proxy_cfg *cfg)
{
    unsigned i;
    mip_status st;
    if (p == NULL || s == NULL || tcp == NULL || cfg == NULL || cfg->subflows < 1u ||
        cfg->subflows > MIP_CCTRL_SUBFLOWS_MAX || cfg->chunk == 0u || cfg->hold == 0u ||
        cfg->hold > MIP_CCTRL_PROXY_HOLD || cfg->tunnel_port == 0u ||
        (cfg->port == 0u && !cfg->tunnel_end) ||
        (cfg->port != 0u && cfg->peer.family == MIP_AF_NONE) || cfg->setup_ms == 0u ||
        cfg->idle_ms == 0u || cfg->pass_ms == 0u ||
        cfg->setup_ms > 0x7FFFFFFFu || cfg->idle_ms > 0x7FFFFFFFu || cfg->pass_ms > 0x7FFFFFFFu)
        return MIP_ERR_INVALID;
    memset(p, 0, sizeof(*p));
    p->s = s;
    p->tcp = tcp;
    p->cfg = *cfg;
    for (i = 0; i < MIP_CCTRL_PROXY_STREAMS; i++)
        stream_reset(&p->st[i]);
    for (i = 0; i < MIP_CCTRL_PROXY_CONNS; i++) {
        p->conn[i].p = p;
        p->conn[i].stream = p->conn[i].role = NONE;
    }
    if (cfg->port != 0u &&
        (st = mip_tcp_listen(tcp, &p->lis_port, cfg->port, MIP_CCTRL_PROXY_RING, accept_outer)) != MIP_OK)
        return st;
    if (cfg->tunnel_end &&
        (st = mip_tcp_listen(tcp, &p->lis_tunnel, cfg->tunnel_port, MIP_CCTRL_PROXY_RING,
                             accept_subflow)) != MIP_OK) {
        if (cfg->port != 0u)
            mip_tcp_unlisten(tcp, &p->lis_port);
        return st;
    }
    if ((st = mip_stack_add_poller(s, poll_fn, NULL, p)) != MIP_OK) {
        if (cfg->port != 0u)
            mip_tcp_unlisten(tcp, &p->lis_port);
        if (cfg->tunnel_end)
            mip_tcp_unlisten(tcp, &p->lis_tunnel);
        return st;
    }
    p->prev_fwd = s->fwd_hook;
    p->prev_fwd_ctx = s->fwd_hook_ctx;
    p->prev_local = s->local_hook;
    p->prev_local_ctx = s->local_hook_ctx;
    mip_ip_set_forward_hook(s, fwd_hook, p);
    mip_ip_set_local_hook(s, local_hook, p);
    return MIP_OK;
}

unsigned mip_cctrl_proxy_streams(const struct mip_cctrl_proxy *p)
{
    unsigned i, n = 0;
    for (i = 0; i < MIP_CCTRL_PROXY_STREAMS; i++)
        n += p->st[i].state != ST_FREE;
    return n;
}

#endif
