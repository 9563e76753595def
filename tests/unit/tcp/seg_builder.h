/*
 * Hand-crafted TCP segments for state-machine tests, on top of the core
 * fixture (one stack with a capturing raw-IP driver):
 *
 *   sb_build()    a TCP segment with options and a correct checksum inside
 *                 an IPv4 or IPv6 packet
 *   sb_parse()    decodes a frame the stack sent (IP + TCP + options) and
 *                 checks its TCP checksum
 *   struct hs     the fixture plus a TCP on it, with the test playing the
 *                 peer at PEER4/PEER6 (the stack is 192.0.2.2 / fd00::2)
 *   struct app    an application endpoint: a connection with its rings and
 *                 callbacks that record what happened
 *
 * hs_open_passive() / hs_open_active() run a handshake by hand and leave
 * the stack's connection ESTABLISHED with known sequence numbers.
 */
#ifndef MOTEIP_TEST_SEG_BUILDER_H
#define MOTEIP_TEST_SEG_BUILDER_H

#include "core/fixture.h"
#include "moteip/tcp.h"
#include "moteip/wire/tcp.h"

#define SB_MAX 1600

/* --- segments ------------------------------------------------------------ */

struct sb_seg {
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t  flags;
    uint16_t win;
    uint16_t urg;
    struct mip_tcp_opts opts;       /* opts.present == 0: none */
    const uint8_t *data;
    size_t   len;
};

/* IP packet with the segment; returns its length. */
static inline size_t sb_build(uint8_t *buf, bool v6, const char *src, const char *dst,
                              const struct sb_seg *s)
{
    uint8_t l4[SB_MAX];
    struct mip_tcp_hdr h;
    size_t optlen = mip_tcp_opts_len(&s->opts), written = 0, total;
    memset(&h, 0, sizeof(h));
    h.src_port = s->sport;
    h.dst_port = s->dport;
    h.seq = s->seq;
    h.ack = s->ack;
    h.hdr_len = (uint8_t)(MIP_TCP_HDR_LEN + optlen);
    h.flags = s->flags;
    h.window = s->win;
    h.urgent = s->urg;
    total = h.hdr_len + s->len;
    CHECK(total <= sizeof(l4) - 60);
    CHECK_EQ(mip_tcp_emit(&h, l4, sizeof(l4)), MIP_OK);
    CHECK_EQ(mip_tcp_opts_emit(&s->opts, l4 + MIP_TCP_HDR_LEN, optlen, &written), MIP_OK);
    CHECK_EQ(written, optlen);
    if (s->len > 0)
        memcpy(l4 + h.hdr_len, s->data, s->len);
    if (v6) {
        fix_l4_checksum6(l4, total, 16, MIP_IPPROTO_TCP, src, dst);
        return build_ipv6(buf, src, dst, MIP_IPPROTO_TCP, 64, l4, total);
    }
    fix_l4_checksum4(l4, total, 16, MIP_IPPROTO_TCP, src, dst);
    return build_ipv4(buf, src, dst, MIP_IPPROTO_TCP, 64, 0, 0, 0, l4, total);
}

/* A segment the stack sent. */
struct sb_reply {
    struct mip_addr src, dst;
    struct mip_tcp_hdr h;
    struct mip_tcp_opts o;
    const uint8_t *data;     /* points into the frame */
    size_t len;
};

/* False (no CHECK failure) when the frame is not TCP; a TCP segment with a
 * bad checksum or bad options fails a CHECK. */
static inline bool sb_parse(const uint8_t *frame, size_t len, struct sb_reply *r)
{
    const uint8_t *l4;
    size_t l4len;
    uint32_t sum;
    memset(r, 0, sizeof(*r));
    if (len < 1)
        return false;
    if ((frame[0] >> 4) == 4) {
        struct mip_ipv4_hdr ip;
        if (mip_ipv4_parse(frame, len, &ip) != MIP_OK || ip.proto != MIP_IPPROTO_TCP)
            return false;
        r->src.family = r->dst.family = MIP_AF_INET;
        memcpy(r->src.bytes, ip.src, 4);
        memcpy(r->dst.bytes, ip.dst, 4);
        l4 = frame + ip.hdr_len;
        l4len = ip.total_len - ip.hdr_len;
        sum = mip_cksum_pseudo4(ip.src, ip.dst, MIP_IPPROTO_TCP, (uint16_t)l4len);
    } else {
        struct mip_ipv6_hdr ip;
        if (mip_ipv6_parse(frame, len, &ip) != MIP_OK || ip.next_header != MIP_IPPROTO_TCP)
            return false;
        r->src.family = r->dst.family = MIP_AF_INET6;
        memcpy(r->src.bytes, ip.src, 16);
        memcpy(r->dst.bytes, ip.dst, 16);
        l4 = frame + MIP_IPV6_HDR_LEN;
        l4len = ip.payload_len;
        sum = mip_cksum_pseudo6(ip.src, ip.dst, MIP_IPPROTO_TCP, (uint32_t)l4len);
    }
    if (mip_tcp_parse(l4, l4len, &r->h) != MIP_OK)
        return false;
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(sum, l4, l4len)), 0);
    CHECK_EQ(mip_tcp_opts_parse(l4 + MIP_TCP_HDR_LEN, (size_t)r->h.hdr_len - MIP_TCP_HDR_LEN, &r->o),
             MIP_OK);
    r->data = l4 + r->h.hdr_len;
    r->len = l4len - r->h.hdr_len;
    return true;
}

/* Sequence space the segment occupies. */
static inline uint32_t sb_seglen(const struct sb_reply *r)
{
    return (uint32_t)r->len + ((r->h.flags & MIP_TCP_SYN) ? 1u : 0u) +
           ((r->h.flags & MIP_TCP_FIN) ? 1u : 0u);
}

/* --- an application endpoint ------------------------------------------- */

#define APP_RING 4096

struct app {
    struct mip_tcp *tcp;
    struct mip_tcp_conn conn;
    uint8_t tx[APP_RING], rx[APP_RING], bitmap[APP_RING / 8];
    uint16_t rx_size;          /* ring size to use; 0: APP_RING */
    bool read_on_readable;     /* drain the ring in `readable` */
    bool refuse;               /* accept returns NULL */
    bool close_on_peer_fin;    /* mip_tcp_close once the peer's FIN is read */
    unsigned connected, readable, writable, closed, errors, accepted;
    int error;                 /* last `error` reason */
    mip_time_t t_connected, t_closed;
    uint8_t got[65536];
    size_t ngot;
    struct mip_tcp_config cfg; /* applied to accepted connections when set */
    bool use_cfg;
};

static void app_connected(void *ctx, struct mip_tcp_conn *c)
{
    struct app *a = ctx;
    (void)c;
    a->connected++;
    a->t_connected = a->tcp->stack->now;
}
static void app_writable(void *ctx, struct mip_tcp_conn *c) { struct app *a = ctx; (void)c; a->writable++; }
static void app_closed(void *ctx, struct mip_tcp_conn *c)
{
    struct app *a = ctx;
    (void)c;
    a->closed++;
    a->t_closed = a->tcp->stack->now;
}
static void app_error(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why)
{
    struct app *a = ctx;
    (void)c;
    a->errors++;
    a->error = (int)why;
}

static inline void app_drain(struct app *a)
{
    size_t k;
    while (a->ngot < sizeof(a->got) &&
           (k = mip_tcp_read(a->tcp, &a->conn, a->got + a->ngot, sizeof(a->got) - a->ngot)) > 0)
        a->ngot += k;
}

static void app_readable(void *ctx, struct mip_tcp_conn *c)
{
    struct app *a = ctx;
    (void)c;
    a->readable++;
    if (a->read_on_readable)
        app_drain(a);
    if (a->close_on_peer_fin && mip_tcp_peer_closed(c) && c->state == MIP_TCP_CLOSE_WAIT)
        (void)mip_tcp_close(a->tcp, c);
}

static const struct mip_tcp_callbacks app_cb = {
    app_connected, app_readable, app_writable, app_closed, app_error
};

static inline void app_init(struct app *a, struct mip_tcp *tcp)
{
    uint16_t size = a->rx_size ? a->rx_size : APP_RING;
    a->tcp = tcp;
    mip_tcp_conn_init(&a->conn, &app_cb, a, a->tx, APP_RING, a->rx, a->bitmap, size);
    if (a->use_cfg)
        a->conn.cfg = a->cfg;
}

/* The app behind each listener: accept gets the listener only, and the
 * tests' listeners are not embedded in their apps. */
static struct {
    const struct mip_tcp_listener *l;
    struct app *a;
} app_of_listener[8];

static struct mip_tcp_conn *app_accept(struct mip_tcp_listener *l, struct mip_tcp *tcp,
                                       uint16_t port)
{
    struct app *a = NULL;
    unsigned i;
    (void)port;
    for (i = 0; i < 8 && a == NULL; i++)
        if (app_of_listener[i].l == l)
            a = app_of_listener[i].a;
    CHECK(a != NULL);
    if (a == NULL)
        return NULL;
    a->accepted++;
    if (a->refuse || a->conn.state != MIP_TCP_CLOSED || a->conn.next != NULL)
        return NULL;
    app_init(a, tcp);
    return &a->conn;
}

/* mip_tcp_listen with app_accept, remembering that `a` is behind l; the
 * listener promises a->rx_size (APP_RING when 0), the ring app_init
 * gives. */
static inline mip_status app_listen(struct mip_tcp *tcp, struct mip_tcp_listener *l, uint16_t port,
                                    struct app *a)
{
    static unsigned next;       /* round robin: old tests' listeners are gone */
    unsigned i, slot = 8;
    for (i = 0; i < 8; i++)
        if (app_of_listener[i].l == l)
            slot = i;
    if (slot == 8)
        slot = next++ % 8u;
    app_of_listener[slot].l = l;
    app_of_listener[slot].a = a;
    return mip_tcp_listen(tcp, l, port, a->rx_size ? a->rx_size : APP_RING, app_accept);
}

/* --- the fixture plus a TCP, the test playing the peer ------------------ */

#define PEER6 "fd00::1"
#define SELF6 "fd00::2"
#define PEER4 "192.0.2.1"
#define SELF4 "192.0.2.2"

struct hs {
    struct fixture f;
    struct mip_tcp tcp;
    bool v6;
    const char *peer, *self;
    unsigned seen;             /* frames of f.tx already looked at */
    /* the peer's side of the connection under test */
    uint16_t pport, lport;     /* peer's port, the stack's port */
    uint32_t snd_nxt;          /* the peer's next sequence number */
    uint32_t rcv_nxt;          /* what the peer expects from the stack next */
    bool ts;                   /* peer sends timestamps */
    uint32_t ts_val;           /* peer's clock */
    uint32_t ts_recent;        /* the stack's latest ts_val */
    struct mip_tcp_listener l;
};

static inline struct hs *hs_new(bool v6)
{
    struct hs *h = calloc(1, sizeof(*h));
    fixture_init(&h->f, false);
    CHECK_EQ(mip_tcp_init(&h->tcp, h->f.s), MIP_OK);
    h->v6 = v6;
    h->peer = v6 ? PEER6 : PEER4;
    h->self = v6 ? SELF6 : SELF4;
    h->ts_val = 777000;
    return h;
}

/* Runs all timers out, checks the pool is clean, frees. */
static inline void hs_free(struct hs *h)
{
    fixture_free(&h->f);
    free(h);
}

static inline struct mip_addr hs_self_addr(const struct hs *h) { return fixture_addr(h->self); }
static inline struct mip_addr hs_peer_addr(const struct hs *h) { return fixture_addr(h->peer); }

/* Forgets the frames sent so far. */
static inline void hs_clear(struct hs *h) { fixture_clear(&h->f); h->seen = 0; }

static inline void hs_send(struct hs *h, const struct sb_seg *s)
{
    uint8_t pkt[SB_MAX + 60];
    size_t n = sb_build(pkt, h->v6, h->peer, h->self, s);
    fixture_input(&h->f, 0, pkt, n);
}

/* TCP segments the stack sent since the last hs_clear. */
static inline unsigned hs_count(const struct hs *h)
{
    unsigned i, n = 0;
    struct sb_reply r;
    for (i = 0; i < h->f.ntx; i++)
        if (sb_parse(h->f.tx[i].data, h->f.tx[i].len, &r))
            n++;
    return n;
}

/* The i-th TCP segment sent since the last hs_clear. */
static inline bool hs_get(const struct hs *h, unsigned i, struct sb_reply *r)
{
    unsigned k, n = 0;
    for (k = 0; k < h->f.ntx; k++) {
        if (!sb_parse(h->f.tx[k].data, h->f.tx[k].len, r))
            continue;
        if (n++ == i)
            return true;
    }
    memset(r, 0, sizeof(*r));
    return false;
}

/* The next segment not yet taken with hs_next. */
static inline bool hs_next(struct hs *h, struct sb_reply *r)
{
    while (h->seen < h->f.ntx) {
        const struct fixture_frame *fr = &h->f.tx[h->seen++];
        if (sb_parse(fr->data, fr->len, r))
            return true;
    }
    memset(r, 0, sizeof(*r));
    return false;
}

/* The stack sent exactly one segment since the last hs_clear: it into *r
 * (both checked; *r is zeroed when there is none). */
static inline void hs_expect_one(struct hs *h, struct sb_reply *r)
{
    CHECK_EQ(hs_count(h), 1);
    CHECK(hs_next(h, r));
}

/* A segment from the peer on the connection under test, with the peer's
 * current numbers (and timestamp when negotiated). */
static inline struct sb_seg hs_seg(const struct hs *h, uint8_t flags)
{
    struct sb_seg s;
    memset(&s, 0, sizeof(s));
    s.sport = h->pport;
    s.dport = h->lport;
    s.seq = h->snd_nxt;
    s.ack = h->rcv_nxt;
    s.flags = flags;
    s.win = 65535;
    if (h->ts) {
        s.opts.present = MIP_TCP_HAS_TIMESTAMP;
        s.opts.ts_val = h->ts_val;
        s.opts.ts_ecr = h->ts_recent;
    }
    return s;
}

/* The peer sends n bytes of data (ACK|PSH) and advances its snd_nxt. */
static inline void hs_send_data(struct hs *h, const uint8_t *data, size_t n)
{
    struct sb_seg s = hs_seg(h, MIP_TCP_ACK | MIP_TCP_PSH);
    s.data = data;
    s.len = n;
    hs_send(h, &s);
    h->snd_nxt += (uint32_t)n;
}

/* The peer acknowledges everything it has seen. */
static inline void hs_send_ack(struct hs *h)
{
    struct sb_seg s = hs_seg(h, MIP_TCP_ACK);
    hs_send(h, &s);
}

/* Takes in a segment from the stack: checks it belongs to the connection
 * and moves the peer's rcv_nxt / ts_recent. */
static inline void hs_absorb(struct hs *h, const struct sb_reply *r)
{
    if (r->h.seq == h->rcv_nxt)
        h->rcv_nxt += sb_seglen(r);
    if (r->o.present & MIP_TCP_HAS_TIMESTAMP)
        h->ts_recent = r->o.ts_val;
}

/* The peer's SYN options: all of them (MSS 1000, WS 7, SACK, TS) or MSS only. */
static inline struct mip_tcp_opts hs_syn_opts(const struct hs *h, bool all)
{
    struct mip_tcp_opts o;
    memset(&o, 0, sizeof(o));
    o.present = MIP_TCP_HAS_MSS;
    o.mss = 1000;
    if (all) {
        o.present |= MIP_TCP_HAS_WSCALE | MIP_TCP_HAS_SACK_PERM | MIP_TCP_HAS_TIMESTAMP;
        o.wscale = 7;
        o.ts_val = h->ts_val;
    }
    return o;
}

/* Passive open on port 80 from peer port `pport` with initial sequence
 * number `irs`; `o` are the SYN's options. Leaves the SYN-ACK in *synack
 * (may be NULL) and the connection in `a` ESTABLISHED (unless refused). */
static inline void hs_open_passive(struct hs *h, struct app *a, uint16_t pport, uint32_t irs,
                                   const struct mip_tcp_opts *o, struct sb_reply *synack)
{
    struct sb_seg s;
    struct sb_reply r;
    if (h->l.accept == NULL)
        CHECK_EQ(app_listen(&h->tcp, &h->l, 80, a), MIP_OK);
    h->pport = pport;
    h->lport = 80;
    h->snd_nxt = irs;
    h->ts = false;
    hs_clear(h);
    memset(&s, 0, sizeof(s));
    s.sport = pport;
    s.dport = 80;
    s.seq = irs;
    s.flags = MIP_TCP_SYN;
    s.win = 65535;
    if (o != NULL)
        s.opts = *o;
    hs_send(h, &s);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.flags, MIP_TCP_SYN | MIP_TCP_ACK);
    CHECK_EQ(r.h.ack, irs + 1u);
    if (synack != NULL)
        *synack = r;
    h->snd_nxt = irs + 1u;
    h->rcv_nxt = r.h.seq + 1u;
    h->ts = o != NULL && (o->present & MIP_TCP_HAS_TIMESTAMP) &&
            (r.o.present & MIP_TCP_HAS_TIMESTAMP);
    if (r.o.present & MIP_TCP_HAS_TIMESTAMP)
        h->ts_recent = r.o.ts_val;
    hs_clear(h);
    hs_send_ack(h);
}

/* Active open from the stack to the peer's port 80; the SYN-ACK carries
 * `o` (or no option when NULL) and sequence number `irs`. Leaves the
 * stack's SYN in *syn (may be NULL). */
static inline void hs_open_active(struct hs *h, struct app *a, uint32_t irs,
                                  const struct mip_tcp_opts *o, struct sb_reply *syn)
{
    struct mip_addr dst = hs_peer_addr(h);
    struct sb_seg s;
    struct sb_reply r;
    app_init(a, &h->tcp);
    hs_clear(h);
    CHECK_EQ(mip_tcp_connect(&h->tcp, &a->conn, &dst, 80), MIP_OK);
    CHECK_EQ(a->conn.state, MIP_TCP_SYN_SENT);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.flags, MIP_TCP_SYN);
    CHECK_EQ(r.h.dst_port, 80);
    if (syn != NULL)
        *syn = r;
    h->pport = 80;
    h->lport = r.h.src_port;
    h->rcv_nxt = r.h.seq + 1u;
    h->snd_nxt = irs;
    h->ts = o != NULL && (o->present & MIP_TCP_HAS_TIMESTAMP) &&
            (r.o.present & MIP_TCP_HAS_TIMESTAMP);
    if (r.o.present & MIP_TCP_HAS_TIMESTAMP)
        h->ts_recent = r.o.ts_val;
    memset(&s, 0, sizeof(s));
    s.sport = 80;
    s.dport = h->lport;
    s.seq = irs;
    s.ack = h->rcv_nxt;
    s.flags = MIP_TCP_SYN | MIP_TCP_ACK;
    s.win = 65535;
    if (o != NULL) {
        s.opts = *o;
        if (s.opts.present & MIP_TCP_HAS_TIMESTAMP)
            s.opts.ts_ecr = h->ts_recent;
    }
    hs_clear(h);
    hs_send(h, &s);
    h->snd_nxt = irs + 1u;
}

/* Advances time to the stack's next deadline (at most `max` ms);
 * returns how far it went. */
static inline uint32_t hs_to_next_deadline(struct hs *h, uint32_t max)
{
    uint32_t d = mip_stack_poll(h->f.s, h->f.now);
    if (d == MIP_POLL_IDLE || d > max)
        d = max;
    fixture_advance(&h->f, d);
    return d;
}

/* --- helpers for two stacks (tcp_pair.h included first) ------------------ */

#ifdef MOTEIP_TEST_TCP_PAIR_H
/* pair_run stops early when nothing is due soon: this runs the pair for
 * exactly `ms` of simulated time. */
static inline void pair_run_for(struct pair *p, uint32_t ms)
{
    mip_time_t end = p->now + ms;
    pair_run(p, 1, ms);
    if (mip_time_before(p->now, end)) {
        p->now = end;
        mip_stack_poll(p->side[0].s, p->now);
        mip_stack_poll(p->side[1].s, p->now);
        pair_run(p, 1, 1);
    }
}

/* Delivers every queued frame of side `from` to the other side, at the
 * current time, without polling. */
static inline void pair_deliver(struct pair *p, int from)
{
    struct pair_side *sd = &p->side[from], *to = &p->side[1 - from];
    unsigned n = sd->qlen;
    while (n-- > 0) {
        struct pair_frame f = sd->q[sd->qhead];
        sd->qhead = (sd->qhead + 1) % PAIR_QMAX;
        sd->qlen--;
        mip_stack_input(to->s, 0, f.data, f.len, p->now);
    }
}

static inline struct mip_addr pair_addr(bool v6, int i)
{
    static const char *a4[2] = {"192.0.2.1", "192.0.2.2"};
    static const char *a6[2] = {"fd00::1", "fd00::2"};
    return fixture_addr(v6 ? a6[i] : a4[i]);
}

/* Connects side 0 to a listener on side 1 (port 80) with `cli` and `srv`;
 * both end up ESTABLISHED. */
static inline void pair_connect(struct pair *p, bool v6, struct app *cli, struct app *srv,
                                struct mip_tcp_listener *l)
{
    struct mip_addr dst = pair_addr(v6, 1);
    CHECK_EQ(app_listen(&p->side[1].tcp, l, 80, srv), MIP_OK);
    app_init(cli, &p->side[0].tcp);
    srv->tcp = &p->side[1].tcp;
    CHECK_EQ(mip_tcp_connect(&p->side[0].tcp, &cli->conn, &dst, 80), MIP_OK);
    pair_run(p, 1, 50);
    CHECK_EQ(cli->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(srv->conn.state, MIP_TCP_ESTABLISHED);
}

/* Ends a test of pair_connect's pair: aborts the client's connection if it
 * is still open (with `deliver_rst`, its RST then has 100 ms to reach the
 * server), then the server's, frees the pair and both apps (calloc'ed).
 * Aborting a closed connection does nothing. */
static inline void pair_close(struct pair *p, struct app *cli, struct app *srv, bool deliver_rst)
{
    mip_tcp_abort(&p->side[0].tcp, &cli->conn);
    if (deliver_rst)
        pair_run(p, 1, 100);
    mip_tcp_abort(&p->side[1].tcp, &srv->conn);
    pair_free(p);
    free(cli);
    free(srv);
}
#endif

#endif
