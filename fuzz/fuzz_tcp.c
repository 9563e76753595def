/*
 * libFuzzer harness for TCP: one stack behind a raw-IP netif (MTU 1280,
 * 192.0.2.2/24 and fd00::2/64) with a struct mip_tcp, a listener on port 80
 * whose accept hands out one of three connection slots, and one active
 * connection the harness opens at the start (to 192.0.2.1, fd00::1,
 * fe80::1 or 192.0.2.3, port 5555). The fuzzer plays the peer and the
 * application with a sequence of operations; see fuzz/README.md ("fuzz_tcp")
 * for the input format.
 *
 * Every segment the peer sends is built from a compact description whose
 * sequence and acknowledgment numbers are usually deltas from the targeted
 * connection's rcv_nxt / snd_una / snd_max, so most land in the window.
 * Payload bytes are a function of their sequence number, and the bytes the
 * application writes a function of their stream offset, so every byte the
 * application reads and every byte the stack sends is checked against what
 * it must be.
 *
 * What traps (after every operation, and on every frame sent):
 *   - the connection list has no cycle, holds only the harness's structs,
 *     none CLOSED; structs not in it are CLOSED; `closed` came exactly once;
 *   - per open connection: snd_una <= snd_nxt <= snd_max (mod 2^32),
 *     snd_max - snd_una <= tx.len + 2, ring lengths within their sizes,
 *     rx.ooo_end <= rx.size - rx.len with reassembly bits only below it,
 *     rcv_nxt <= rcv_adv and the advertised window within the ring's room,
 *     state in range, mss >= 64, SACK scoreboard sorted;
 *     no segment moves rcv_nxt past the edge advertised before it;
 *   - no packet buffer in use between operations;
 *   - frames: IPv4/IPv6 + TCP + options parse, checksums right (always),
 *     from our addresses to a peer address; data only from a live
 *     connection, within MSS (options included) and the peer's window (or
 *     below snd_max, or a 1-byte zero-window probe), equal to what the
 *     application wrote at that offset; no RST in answer to a RST; SYN-ACK
 *     only from the SYN cache (or a cookie, MSS only, when it is full) or
 *     SYN_RECEIVED, bare SYN only from SYN_SENT; the window never moves the
 *     advertised right edge left;
 *   - callbacks only for open connections, none after `closed`;
 *   - poll's delay is never later than a pending TCP deadline, and a due
 *     timer is gone after one poll;
 *   - at the end, after 10 minutes of timers: SYN cache and TIME_WAIT empty.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSLOT       4u          /* 0: the active connection, 1..3: accepted */
#define MAX_OPS     64u
#define MAX_POLLS   64u         /* per time step */
#define MAX_FRAMES  600u        /* per operation: more is a storm */
#define RAWIP_MTU   1280u
#define T0          (0xFFFFFFFFu - 20000u)   /* the clock wraps 20 s in */
#define PEER_PORT   5555u
#define LISTEN_PORT 80u
#define RING_MAX    2048u
#define MAX_RECONNECTS 4u

#define FAIL(...)                                                             \
    do {                                                                      \
        fprintf(stderr, "fuzz_tcp: CHECK FAILED (%s:%d): ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                         \
        fputc('\n', stderr);                                                  \
        __builtin_trap();                                                     \
    } while (0)
#define CHECK(cond, ...)       \
    do {                       \
        if (!(cond))           \
            FAIL(__VA_ARGS__); \
    } while (0)

#include "tcp_harness.h"   /* cursor, list walk, ring checks, frames */

static const uint8_t our_iid[8] = {0, 0, 0, 0, 0, 0, 0, 2};
static const uint8_t our_v4[4] = {192, 0, 2, 2};
static const uint8_t our_v6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
static const uint8_t our_ll[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
static const uint8_t entropy[16] = {'m', 'o', 't', 'e', 'i', 'p', '-', 't',
                                    'c', 'p', '-', 'f', 'u', 'z', 'z', '!'};
/* Peer addresses: 192.0.2.1, fd00::1, fe80::1, 192.0.2.3 */
static const uint8_t peer_v4a[4] = {192, 0, 2, 1};
static const uint8_t peer_v4b[4] = {192, 0, 2, 3};
static const uint8_t peer_v6a[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
static const uint8_t peer_ll[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

/* Behaviour of a slot's application in its callbacks. */
#define B_READ_ON_READABLE  0x01u   /* drain the ring in `readable` */
#define B_WRITE_ON_WRITABLE 0x02u   /* write 200 bytes in `writable` */
#define B_CLOSE_ON_FIN      0x04u   /* mip_tcp_close once the peer closed */
#define B_ABORT_ON_READABLE 0x08u   /* abort when 300+ bytes wait */
#define B_WRITE_ON_CONNECT  0x10u   /* write 300 bytes in `connected` */
#define B_RECONNECT         0x20u   /* active slot: connect again in `closed` */

struct slot {
    struct mip_tcp_conn c;
    uint8_t tx[RING_MAX], rx[RING_MAX], bm[RING_MAX / 8];
    uint8_t cfg_byte;        /* ring sizes and options, see slot_prepare() */
    uint8_t behave;
    bool open;               /* between connect/accept and `closed` */
    bool have_tuple;         /* c holds a tuple (even if closed since) */
    uint32_t wr_off;         /* bytes the application wrote */
    uint32_t wr_pending;     /* bytes being written right now (sent from
                                inside mip_tcp_write before it returns) */
    uint32_t rd_off;         /* bytes it read */
    uint32_t peer_iss;       /* the peer's ISS for an active open */
    uint32_t irs;            /* the peer's ISS, taken at `connected` */
    uint32_t ts_seen;        /* latest TSval the stack sent here */
    unsigned errors;
    /* while a segment is input: rcv_nxt before it, and the furthest right
     * edge advertised with that rcv_nxt (a callback may send meanwhile) */
    bool in_chk;
    uint32_t in_rcv_nxt, in_edge;
};

static struct {
    struct mip_stack s;
    struct mip_tcp tcp;
    struct mip_tcp_listener l;
    bool listening;
    bool refuse;
    uint8_t idx;
    mip_time_t now;
    struct slot slot[NSLOT];
    uint8_t pcfg, pbehave;          /* applied to accepted connections */
    unsigned drv_fail;              /* frames the driver still refuses */
    bool in_rst_input;              /* the segment being input has RST */
    unsigned frames_this_op;
    unsigned reconnects;
    uint32_t peer_ts;               /* the peer's timestamp clock */
    uint32_t last_ts;               /* latest TSval the stack sent anywhere */
    unsigned depth;                 /* callback nesting */
} H;

static int verbose;

/* --- byte patterns: what the data must be --------------------------------- */

/* Byte the peer sends at sequence number s. */
NOCOV static uint8_t pat_rx(uint32_t s) { return (uint8_t)((s * 2654435761u) >> 24); }
/* Byte the application writes at stream offset k. */
NOCOV static uint8_t pat_tx(uint32_t k) { return (uint8_t)(((k + 0x55u) * 40503u) >> 9); }

/* --- addresses ---------------------------------------------------------- */

static void addr4(struct mip_addr *a, const uint8_t *b) { mip_addr_set4(a, b); }
static void addr6(struct mip_addr *a, const uint8_t *b) { mip_addr_set6(a, b); }

static bool is_ours(const struct mip_addr *a)
{
    if (a->family == MIP_AF_INET)
        return memcmp(a->bytes, our_v4, 4) == 0;
    return memcmp(a->bytes, our_v6, 16) == 0 || memcmp(a->bytes, our_ll, 16) == 0;
}

static bool is_peer(const struct mip_addr *a)
{
    if (a->family == MIP_AF_INET)
        return memcmp(a->bytes, peer_v4a, 4) == 0 || memcmp(a->bytes, peer_v4b, 4) == 0;
    return memcmp(a->bytes, peer_v6a, 16) == 0 || memcmp(a->bytes, peer_ll, 16) == 0;
}

/* Peer address by selector: 0 192.0.2.1, 1 fd00::1, 2 fe80::1, 3 192.0.2.3 */
static void peer_addr(struct mip_addr *a, unsigned sel)
{
    switch (sel & 3u) {
    case 0: addr4(a, peer_v4a); break;
    case 1: addr6(a, peer_v6a); break;
    case 2: addr6(a, peer_ll); break;
    default: addr4(a, peer_v4b); break;
    }
}

static void local_for(struct mip_addr *l, const struct mip_addr *remote)
{
    if (remote->family == MIP_AF_INET)
        addr4(l, our_v4);
    else if (remote->bytes[0] == 0xfe)
        addr6(l, our_ll);
    else
        addr6(l, our_v6);
}

/* --- the connection list ----------------------------------------------------- */

NOCOV static int slot_of(const struct mip_tcp_conn *c)
{
    unsigned i;
    for (i = 0; i < NSLOT; i++)
        if (&H.slot[i].c == c)
            return (int)i;
    return -1;
}

/* The slots in the connection list (walked with a bound). */
static unsigned list_mask(void) { return tcph_list_mask(&H.tcp, slot_of, NSLOT); }

NOCOV static struct slot *live_conn_for(const struct mip_addr *local, uint16_t lport,
                                  const struct mip_addr *remote, uint16_t rport)
{
    unsigned mask = list_mask(), i;
    for (i = 0; i < NSLOT; i++) {
        struct mip_tcp_conn *c = &H.slot[i].c;
        if ((mask & (1u << i)) && c->lport == lport && c->rport == rport &&
            mip_addr_eq(&c->remote, remote)) {
            struct mip_addr l;
            mip_tcp_local_addr(&H.tcp, c, &l);
            if (mip_addr_eq(&l, local))
                return &H.slot[i];
        }
    }
    return NULL;
}

/* Every SYN cache entry in use: a SYN is answered with a cookie (MSS only). */
static bool syn_cache_full(void)
{
    unsigned i;
    for (i = 0; i < MIP_TCP_SYN_BACKLOG; i++)
        if (!(H.tcp.syn[i].flags & TCPS_USED))
            return false;
    return true;
}

static const struct mip_tcp_syn *syn_entry_for(const struct mip_addr *local, uint16_t lport,
                                               const struct mip_addr *remote, uint16_t rport)
{
    unsigned i;
    for (i = 0; i < MIP_TCP_SYN_BACKLOG; i++) {
        const struct mip_tcp_syn *e = &H.tcp.syn[i];
        if ((e->flags & TCPS_USED) && e->lport == lport && e->rport == rport &&
            mip_addr_eq(&e->remote, remote) && mip_addr_eq(&e->local, local))
            return e;
    }
    return NULL;
}

/* --- checks on every frame sent ------------------------------------------ */

/* The checks of this harness on a segment tcph_sent_parse() passed. */
NOCOV static void check_segment(const struct tcph_sent *s)
{
    const struct mip_addr *src = &s->src, *dst = &s->dst;
    const struct mip_tcp_hdr h = s->h;
    const struct mip_tcp_opts o = s->o;
    size_t dlen = s->dlen, optlen = s->optlen;
    struct slot *sl;
    const struct mip_tcp_conn *c;

    CHECK(is_ours(src), "segment from an address that is not ours");
    CHECK(is_peer(dst), "segment to an address no peer has");
    if (o.present & MIP_TCP_HAS_TIMESTAMP)
        H.last_ts = o.ts_val;

    if (h.flags & MIP_TCP_RST) {
        CHECK(!H.in_rst_input, "RST sent in answer to a RST (RFC 9293 3.10.7.1)");
        return;
    }
    CHECK((h.flags & MIP_TCP_ACK) || (h.flags & MIP_TCP_SYN), "segment without ACK (0x%02x)",
          h.flags);

    sl = live_conn_for(src, h.src_port, dst, h.dst_port);
    c = sl != NULL ? &sl->c : NULL;
    if (sl != NULL && (o.present & MIP_TCP_HAS_TIMESTAMP))
        sl->ts_seen = o.ts_val;

    if ((h.flags & (MIP_TCP_SYN | MIP_TCP_ACK)) == (MIP_TCP_SYN | MIP_TCP_ACK)) {
        if (c != NULL)
            CHECK(c->state == MIP_TCP_SYN_RECEIVED, "SYN-ACK from a connection in %s",
                  mip_tcp_state_name(c->state));
        else
            CHECK(syn_entry_for(src, h.src_port, dst, h.dst_port) != NULL ||
                  (MIP_TCP_SYN_COOKIES && syn_cache_full() && o.present == MIP_TCP_HAS_MSS),
                  "SYN-ACK from neither the SYN cache, a cookie nor a connection");
    } else if (h.flags & MIP_TCP_SYN) {
        CHECK(c != NULL && c->state == MIP_TCP_SYN_SENT, "SYN from a connection not in SYN_SENT");
    }
    if (h.flags & MIP_TCP_SYN) {
        CHECK(dlen == 0 && !(h.flags & MIP_TCP_FIN), "SYN with data or FIN");
        CHECK(o.present & MIP_TCP_HAS_MSS, "SYN without MSS");
        return;
    }
    if (c == NULL) {
        /* TIME_WAIT or SYN-cache answers: bare ACKs only */
        CHECK(dlen == 0 && !(h.flags & MIP_TCP_FIN), "data/FIN from no live connection");
        return;
    }
    CHECK(h.ack == c->rcv_nxt, "ACK %u but rcv_nxt %u", h.ack, c->rcv_nxt);
    {
        /* never move the advertised right edge left (RFC 9293 3.8.6.2.1) */
        uint32_t edge = h.ack + ((uint32_t)h.window << c->rcv_wscale);
        CHECK(c->state == MIP_TCP_SYN_SENT || MIP_SEQ_GEQ(edge, c->rcv_adv),
              "window %u shrinks the right edge %u -> %u", h.window, c->rcv_adv, edge);
        if (sl->in_chk && h.ack == sl->in_rcv_nxt && MIP_SEQ_GT(edge, sl->in_edge))
            sl->in_edge = edge;
    }
    if (h.flags & MIP_TCP_FIN)
        CHECK(c->flags & TCPF_FIN_QUEUED, "FIN sent before the application shut down");
    if (dlen > 0) {
        uint32_t off, i;
        uint32_t end = h.seq + (uint32_t)dlen;
        bool probe = dlen == 1 && h.seq == c->snd_una && (c->flags & TCPF_PERSIST);
        CHECK(c->state >= MIP_TCP_ESTABLISHED && c->state != MIP_TCP_FIN_WAIT_2 &&
                  c->state != MIP_TCP_TIME_WAIT,
              "data sent in %s", mip_tcp_state_name(c->state));
        CHECK(dlen + optlen <= c->cc.mss, "%zu data bytes + %zu option bytes > MSS %u", dlen,
              optlen, c->cc.mss);
        CHECK(MIP_SEQ_GEQ(h.seq, c->snd_una), "data below snd_una");
        CHECK(probe || MIP_SEQ_LEQ(end, c->snd_una + c->snd_wnd) ||
                  MIP_SEQ_LEQ(end, c->snd_max),
              "data [%u, %u) beyond the peer's window (una %u wnd %u max %u)", h.seq, end,
              c->snd_una, c->snd_wnd, c->snd_max);
        off = h.seq - (c->iss + 1u);
        CHECK(off <= sl->wr_off + sl->wr_pending && dlen <= sl->wr_off + sl->wr_pending - off,
              "data at stream offset %u+%zu but only %u bytes written", off, dlen,
              sl->wr_off + sl->wr_pending);
        for (i = 0; i < dlen; i++)
            CHECK(s->data[i] == pat_tx(off + i),
                  "sent byte at stream offset %u is not what was written", off + i);
    }
}

static mip_status drv_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct tcph_sent seg;

    CHECK(ctx == &H, "driver context");
    CHECK(len >= 1 && len <= RAWIP_MTU, "frame of %zu bytes", len);
    CHECK(++H.frames_this_op <= MAX_FRAMES, "more than %u frames in one operation",
          MAX_FRAMES);
    tcph_sent_parse(frame, len, &seg);
    if (verbose)
        fprintf(stderr, "    tx %s %u->%u flags %02x seq %u ack %u win %u len %zu%s\n",
                seg.src.family == MIP_AF_INET ? "v4" : "v6", seg.h.src_port, seg.h.dst_port,
                seg.h.flags, seg.h.seq, seg.h.ack, seg.h.window, seg.dlen,
                H.drv_fail ? " (driver fails)" : "");
    check_segment(&seg);
    tcph_sent_free(&seg);
    if (H.drv_fail > 0) {
        H.drv_fail--;
        return MIP_ERR_NOBUFS;
    }
    return MIP_OK;
}

static const struct mip_netif_driver drv = { drv_transmit, NULL, NULL };

/* --- the application ---------------------------------------------------------- */

static struct slot *slot_from_conn(struct mip_tcp_conn *c, const char *what)
{
    int i = slot_of(c);
    CHECK(i >= 0, "%s callback for a struct the application never gave", what);
    CHECK(H.slot[i].open, "%s callback for slot %d after `closed` (state %s)", what, i,
          mip_tcp_state_name(c->state));
    CHECK(c->ctx == &H.slot[i], "%s callback with a wrong ctx", what);
    return &H.slot[i];
}

NOCOV static size_t app_read(struct slot *sl, size_t n)
{
    uint8_t buf[RING_MAX];
    size_t k, i;
    if (n > sizeof buf)
        n = sizeof buf;
    k = mip_tcp_read(&H.tcp, &sl->c, buf, n);
    CHECK(k <= n, "read returned %zu for %zu", k, n);
    for (i = 0; i < k; i++)
        CHECK(buf[i] == pat_rx(sl->irs + 1u + sl->rd_off + (uint32_t)i),
              "read byte %u of the stream is not what the peer sent at that sequence",
              sl->rd_off + (unsigned)i);
    sl->rd_off += (uint32_t)k;
    return k;
}

NOCOV static size_t app_write(struct slot *sl, size_t n)
{
    uint8_t buf[4096];
    size_t k, i;
    if (n > sizeof buf)
        n = sizeof buf;
    for (i = 0; i < n; i++)
        buf[i] = pat_tx(sl->wr_off + (uint32_t)i);
    sl->wr_pending = (uint32_t)n;
    k = mip_tcp_write(&H.tcp, &sl->c, buf, n);
    sl->wr_pending = 0;
    CHECK(k <= n, "write took %zu of %zu", k, n);
    sl->wr_off += (uint32_t)k;
    return k;
}

static void cb_connected(void *ctx, struct mip_tcp_conn *c)
{
    struct slot *sl = slot_from_conn(c, "connected");
    (void)ctx;
    CHECK(c->state == MIP_TCP_ESTABLISHED, "connected in %s", mip_tcp_state_name(c->state));
    sl->irs = c->rcv_nxt - 1u;      /* no data is taken before `connected` */
    if ((sl->behave & B_WRITE_ON_CONNECT) && H.depth < 4) {
        H.depth++;
        (void)app_write(sl, 300);
        H.depth--;
    }
}

static void cb_readable(void *ctx, struct mip_tcp_conn *c)
{
    struct slot *sl = slot_from_conn(c, "readable");
    (void)ctx;
    if (H.depth >= 4)
        return;
    H.depth++;
    if ((sl->behave & B_ABORT_ON_READABLE) && c->rx.len >= 300)
        mip_tcp_abort(&H.tcp, c);
    else {
        if (sl->behave & B_READ_ON_READABLE)
            (void)app_read(sl, RING_MAX);
        if ((sl->behave & B_CLOSE_ON_FIN) && mip_tcp_peer_closed(c) &&
            c->state == MIP_TCP_CLOSE_WAIT)
            (void)mip_tcp_close(&H.tcp, c);
    }
    H.depth--;
}

static void cb_writable(void *ctx, struct mip_tcp_conn *c)
{
    struct slot *sl = slot_from_conn(c, "writable");
    (void)ctx;
    if ((sl->behave & B_WRITE_ON_WRITABLE) && H.depth < 4) {
        H.depth++;
        (void)app_write(sl, 200);
        H.depth--;
    }
}

static void cb_error(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why)
{
    struct slot *sl = slot_from_conn(c, "error");
    (void)ctx;
    CHECK(why > MIP_TCP_ERR_NONE && why <= MIP_TCP_ERR_ABORTED, "error reason %d", (int)why);
    CHECK(c->state == MIP_TCP_CLOSED, "error callback before the connection is closed");
    sl->errors++;
}

static void slot_prepare(struct slot *sl, uint8_t cfg);
static bool slot_connect(struct slot *sl, unsigned sel);

static void cb_closed(void *ctx, struct mip_tcp_conn *c)
{
    struct slot *sl = slot_from_conn(c, "closed");
    (void)ctx;
    CHECK(c->state == MIP_TCP_CLOSED, "closed callback in %s", mip_tcp_state_name(c->state));
    CHECK(!(list_mask() & (1u << slot_of(c))), "closed callback while still listed");
    CHECK(c->next == NULL, "closed connection still has a next pointer");
    sl->open = false;
    if ((sl->behave & B_RECONNECT) && sl == &H.slot[0] && H.reconnects < MAX_RECONNECTS &&
        H.depth < 4) {
        /* The struct is the application's again: reuse it at once. */
        H.reconnects++;
        H.depth++;
        (void)slot_connect(sl, (unsigned)H.reconnects);
        H.depth--;
    }
}

static const struct mip_tcp_callbacks app_cb = {cb_connected, cb_readable, cb_writable, cb_closed,
                                                cb_error};

static const uint16_t ring_sizes[4] = {512, 1024, 2048, 1536};
#define RING_MIN 512u                 /* the smallest: what the listener promises */

/* cfg: bits 0-1 rx ring size, 2-3 tx ring size, 4 no bitmap, 5 nodelay,
 * 6 delack 0, 7 keepalive 5 s. SACK/timestamps: see cfg_opts. */
static void slot_prepare(struct slot *sl, uint8_t cfg)
{
    uint16_t rxs = ring_sizes[cfg & 3u], txs = ring_sizes[(cfg >> 2) & 3u];
    uint8_t behave = sl->behave, cfgb = sl->cfg_byte;
    mip_tcp_conn_init(&sl->c, &app_cb, sl, sl->tx, txs, sl->rx, (cfg & 0x10u) ? NULL : sl->bm,
                      rxs);
    sl->c.cfg.nodelay = (cfg & 0x20u) != 0;
    if (cfg & 0x40u)
        sl->c.cfg.delack_ms = 0;
    if (cfg & 0x80u)
        sl->c.cfg.keepalive_ms = 5000;
    /* SACK and timestamps off for some: derived from the ring bits so the
     * config stays one byte */
    if ((cfg & 0x13u) == 0x13u)
        sl->c.cfg.sack = false;
    if ((cfg & 0x2Cu) == 0x2Cu)
        sl->c.cfg.timestamps = false;
    if ((cfg & 0xC0u) == 0xC0u)
        sl->c.cfg.cwnd_cap = 3;
    sl->behave = behave;
    sl->cfg_byte = cfgb;
    sl->open = true;
    sl->have_tuple = true;
    sl->wr_off = 0;
    sl->rd_off = 0;
    sl->ts_seen = 0;
}

static bool slot_connect(struct slot *sl, unsigned sel)
{
    struct mip_addr dst;
    mip_status st;
    if (sl->open || sl->c.state != MIP_TCP_CLOSED)
        return false;
    slot_prepare(sl, sl->cfg_byte);
    peer_addr(&dst, sel);
    sl->peer_iss = 0xFFFFF000u + sel * 0x3001u + H.reconnects * 77u;
    st = mip_tcp_connect(&H.tcp, &sl->c, &dst, PEER_PORT);
    if (st != MIP_OK) {
        sl->open = false;
        return false;
    }
    return true;
}

static struct mip_tcp_conn *app_accept(struct mip_tcp_listener *l, struct mip_tcp *tcp,
                                       uint16_t port)
{
    unsigned i;
    CHECK(l == &H.l && tcp == &H.tcp, "accept context");
    CHECK(port == LISTEN_PORT, "accept for port %u", port);
    if (H.refuse)
        return NULL;
    for (i = 1; i < NSLOT; i++) {
        struct slot *sl = &H.slot[i];
        if (!sl->open && sl->c.state == MIP_TCP_CLOSED) {
            sl->behave = H.pbehave;
            slot_prepare(sl, H.pcfg);
            return &sl->c;
        }
    }
    return NULL;
}

/* --- invariants ---------------------------------------------------------- */

NOCOV static void check_conn(const struct slot *sl, unsigned i)
{
    const struct mip_tcp_conn *c = &sl->c;
    CHECK(c->state > MIP_TCP_CLOSED && c->state <= MIP_TCP_TIME_WAIT,
          "slot %u listed in state %u", i, c->state);
    CHECK(MIP_SEQ_LEQ(c->snd_una, c->snd_nxt), "slot %u: snd_una %u > snd_nxt %u", i,
          c->snd_una, c->snd_nxt);
    CHECK(MIP_SEQ_LEQ(c->snd_nxt, c->snd_max), "slot %u: snd_nxt %u > snd_max %u", i,
          c->snd_nxt, c->snd_max);
    CHECK(c->snd_max - c->snd_una <= (uint32_t)c->tx.len + 2u,
          "slot %u: %u bytes in flight, ring holds %u (+SYN/FIN)", i, c->snd_max - c->snd_una,
          c->tx.len);
    CHECK(c->tx.len <= c->tx.size, "slot %u: tx.len %u > size %u", i, c->tx.len, c->tx.size);
    CHECK(c->tx.size == 0 || c->tx.head < c->tx.size, "slot %u: tx.head %u", i, c->tx.head);
    CHECK(c->rx.len <= c->rx.size, "slot %u: rx.len %u > size %u", i, c->rx.len, c->rx.size);
    CHECK(c->rx.size == 0 || c->rx.head < c->rx.size, "slot %u: rx.head %u", i, c->rx.head);
    CHECK(c->rx.ooo_end <= c->rx.size - c->rx.len, "slot %u: ooo_end %u > space %u", i,
          c->rx.ooo_end, c->rx.size - c->rx.len);
    tcph_check_rx_bits(c);
    CHECK(c->cc.mss >= 64, "slot %u: mss %u", i, c->cc.mss);
    if (c->flags & TCPF_FIN_SENT)
        CHECK(c->flags & TCPF_FIN_QUEUED, "slot %u: FIN sent but not queued", i);
    if (c->state != MIP_TCP_SYN_SENT) {
        uint32_t wnd = c->rcv_adv - c->rcv_nxt;
        uint32_t room = (uint32_t)c->rx.size - c->rx.len;
        CHECK(MIP_SEQ_GEQ(c->rcv_adv, c->rcv_nxt), "slot %u (%s): rcv_nxt %u beyond rcv_adv %u",
              i, mip_tcp_state_name(c->state), c->rcv_nxt, c->rcv_adv);
        CHECK(wnd <= room,
              "slot %u (%s): advertised window %u, ring has room for %u", i,
              mip_tcp_state_name(c->state), wnd, room);
    }
#if MIP_TCP_SACK
    /* a probe timeout is t_rexmt armed outside recovery and persist
     * (src/tcp/tlp.c) */
    if (c->flags & TCPF_PTO)
        CHECK((c->flags & TCPF_REXMT) && !(c->flags & TCPF_PERSIST) && !c->cc.in_recovery &&
                  c->snd_una != c->snd_max,
              "slot %u: probe timeout armed with flags %#x, recovery %u, %u in flight", i,
              c->flags, c->cc.in_recovery, c->snd_max - c->snd_una);
    {
        unsigned k;
        const struct mip_tcp_sackb *b = &c->sackb;
        unsigned n = tcp_sackb_count(b);
        for (k = n; k < MIP_TCP_SACKB_MAX; k++)
            CHECK(b->start_off[k] == 0 && b->end_off[k] == 0, "slot %u: stray SACK block", i);
        for (k = 0; k < n; k++) {
            CHECK(b->start_off[k] < b->end_off[k], "slot %u: empty SACK block", i);
            if (k > 0)
                CHECK(b->end_off[k - 1] < b->start_off[k], "slot %u: SACK blocks unsorted",
                      i);
        }
    }
#endif
}

NOCOV static void check_all(void)
{
    unsigned mask = list_mask(), i, in_use = 0;
#if MIP_TCP_SACK
    tcph_check_tlp_slot(&H.tcp);
#endif
    for (i = 0; i < NSLOT; i++) {
        const struct slot *sl = &H.slot[i];
        if (mask & (1u << i)) {
            CHECK(sl->open, "slot %u listed after its `closed` callback", i);
            check_conn(sl, i);
        } else {
            CHECK(sl->c.state == MIP_TCP_CLOSED, "slot %u unlisted in state %s", i,
                  mip_tcp_state_name(sl->c.state));
            CHECK(!sl->open, "slot %u ended without a `closed` callback", i);
        }
    }
    for (i = 0; i < MIP_PBUF_COUNT; i++)
        if (H.s.pool.buf[i].in_use)
            in_use++;
    CHECK(in_use == H.s.pool.in_use, "pool count %u but %u buffers in use", H.s.pool.in_use,
          in_use);
    CHECK(H.s.pool.in_use == 0, "%u packet buffers in use after an operation", H.s.pool.in_use);
}

static uint32_t poll_checked(void)
{
    uint32_t d = mip_stack_poll(&H.s, H.now), want;
    check_all();
    (void)list_mask();
    want = tcph_pending(&H.tcp, H.now);
    CHECK(d <= want, "poll returned %u ms but a TCP deadline is %u ms away", d, want);
    if (d == 0) {
        d = mip_stack_poll(&H.s, H.now);
        check_all();
        if (d == 0) {
            unsigned i;
            for (i = 0; i < NSLOT; i++) {
                const struct mip_tcp_conn *c = &H.slot[i].c;
                if (c->state != MIP_TCP_CLOSED)
                    fprintf(stderr, "slot %u %s flags 0x%04x now %u delack %u rexmt %u idle %u "
                            "ka_ms %u\n", i, mip_tcp_state_name(c->state), c->flags, H.now,
                            c->t_delack, c->t_rexmt, c->t_idle, c->cfg.keepalive_ms);
            }
        }
        CHECK(d != 0, "poll(now) twice in a row still reports a due timer");
    }
    return d;
}

/* Lets `ms` pass, running timers when they come due (an event loop). */
static void advance(uint32_t ms, unsigned max_polls)
{
    mip_time_t target = H.now + ms;
    unsigned i;
    for (i = 0; i < max_polls; i++) {
        uint32_t d = poll_checked();
        if (d == MIP_POLL_IDLE || d > (uint32_t)(target - H.now))
            break;
        H.now += d;
        H.frames_this_op = 0;
    }
    H.now = target;
    (void)poll_checked();
}

/* --- segments from the peer ---------------------------------------------- */

struct seg {
    struct mip_addr src, dst;      /* peer, us */
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t flags;
    uint16_t win, urg;
    uint8_t opts[40];
    size_t optlen;
    size_t dlen;
};

static void opt_ts(struct seg *g, uint32_t ecr)
{
    if (g->optlen + 12 > sizeof g->opts)
        return;
    H.peer_ts += 1u;
    g->opts[g->optlen++] = 1;
    g->opts[g->optlen++] = 1;
    g->opts[g->optlen++] = 8;
    g->opts[g->optlen++] = 10;
    mip_wr32(g->opts + g->optlen, H.peer_ts);
    mip_wr32(g->opts + g->optlen + 4, ecr);
    g->optlen += 8;
}

NOCOV static void inject(const struct seg *g)
{
    uint8_t data[1450], *pkt;
    struct mip_tcp_hdr h;
    uint32_t first, i;
    size_t len, optlen = (g->optlen + 3u) & ~(size_t)3u;
    unsigned mask;

    memset(&h, 0, sizeof h);
    h.src_port = g->sport;
    h.dst_port = g->dport;
    h.seq = g->seq;
    h.ack = g->ack;
    h.flags = g->flags;
    h.window = g->win;
    h.urgent = g->urg;
    first = g->seq + ((g->flags & MIP_TCP_SYN) ? 1u : 0u);
    CHECK(g->dlen <= sizeof data, "harness: %zu data bytes", g->dlen);
    for (i = 0; i < g->dlen; i++)
        data[i] = pat_rx(first + i);
    pkt = tcph_frame(&g->src, &g->dst, &h, g->opts, g->optlen, data, g->dlen, &len);
    if (verbose)
        fprintf(stderr, "    rx %s %u->%u flags %02x seq %u ack %u win %u opt %zu len %zu\n",
                g->src.family == MIP_AF_INET ? "v4" : "v6", g->sport, g->dport, g->flags, g->seq,
                g->ack, g->win, optlen, g->dlen);
    /* The segment may fill the window offered so far, no more. */
    mask = list_mask();
    for (i = 0; i < NSLOT; i++) {
        struct slot *sl = &H.slot[i];
        sl->in_chk = (mask & (1u << i)) && sl->c.state != MIP_TCP_SYN_SENT;
        sl->in_rcv_nxt = sl->c.rcv_nxt;
        sl->in_edge = sl->c.rcv_adv;
    }
    H.in_rst_input = (g->flags & MIP_TCP_RST) != 0;
    mip_stack_input(&H.s, H.idx, pkt, len, H.now);
    H.in_rst_input = false;
    free(pkt);
    mask = list_mask();
    for (i = 0; i < NSLOT; i++) {
        struct slot *sl = &H.slot[i];
        const struct mip_tcp_conn *c = &sl->c;
        if (sl->in_chk && (mask & (1u << i)) && c->state != MIP_TCP_SYN_SENT)
            CHECK(MIP_SEQ_LEQ(c->rcv_nxt, sl->in_edge + 1u),
                  "slot %u took data past the advertised edge: rcv_nxt %u, edge was %u", i,
                  c->rcv_nxt, sl->in_edge);
        sl->in_chk = false;
    }
}

/* The peer's ISS for a passive open from port p. */
static uint32_t peer_iss_port(uint16_t p) { return 0xFFFFFF00u + (uint32_t)p * 977u; }

static const uint16_t data_sizes[8] = {0, 1, 10, 100, 536, 1000, 1220, 1400};

static void fill_tuple_from_slot(struct seg *g, const struct slot *sl)
{
    const struct mip_tcp_conn *c = &sl->c;
    if (!sl->have_tuple) {
        peer_addr(&g->src, 0);
        local_for(&g->dst, &g->src);
        g->sport = 40000;
        g->dport = LISTEN_PORT;
        return;
    }
    g->src = c->remote;
    mip_tcp_local_addr(&H.tcp, c, &g->dst);
    g->sport = c->rport;
    g->dport = c->lport;
}

/* Sequence numbers of a slot's connection as the peer sees them. */
static void slot_bases(const struct slot *sl, uint32_t *seq, uint32_t *una, uint32_t *max)
{
    const struct mip_tcp_conn *c = &sl->c;
    *seq = c->state == MIP_TCP_SYN_SENT ? sl->peer_iss : c->rcv_nxt;
    *una = c->snd_una;
    *max = c->snd_max;
}

/* An ICMP error from the peer's address quoting a segment of ours: g's
 * tuple turned round, its acknowledgement number as the quoted sequence
 * number (so it lands in snd_una..snd_max as g.ack does), type and code
 * from g's flags. Exercises tcp_icmp_error: RFC 5927's check of the quoted
 * sequence number, and hard errors ending a connection still opening. */
static void inject_icmp_error(const struct seg *g)
{
    static const uint8_t types4[4] = {3, 11, 12, 4}, types6[4] = {1, 2, 3, 4};
    struct mip_tcp_hdr h;
    uint8_t *quoted, *pkt;
    size_t qlen, ql, ipl, il, len;
    uint32_t sum;

    memset(&h, 0, sizeof h);
    h.src_port = g->dport;
    h.dst_port = g->sport;
    h.seq = g->ack;
    h.ack = g->seq;
    h.flags = MIP_TCP_ACK;
    h.window = 1024;
    quoted = tcph_frame(&g->dst, &g->src, &h, NULL, 0, NULL, 0, &qlen);
    ipl = g->src.family == MIP_AF_INET ? 20u : 40u;
    /* IPv4 errors quote the header and 8 bytes (RFC 792); IPv6 as much as fits */
    ql = g->src.family == MIP_AF_INET ? ipl + 8u : qlen;
    il = 8u + ql;
    len = ipl + il;
    pkt = calloc(1, len);
    CHECK(pkt != NULL, "harness: calloc");
    pkt[ipl] = g->src.family == MIP_AF_INET ? types4[g->flags & 3u] : types6[g->flags & 3u];
    pkt[ipl + 1] = (uint8_t)((g->flags >> 2) & 15u);
    if (pkt[ipl] == 2u)
        mip_wr32(pkt + ipl + 4, 576u + (uint32_t)g->win);      /* a Packet Too Big's MTU */
    memcpy(pkt + ipl + 8, quoted, ql);
    sum = tcph_ip_header(&g->src, &g->dst,
                         g->src.family == MIP_AF_INET ? MIP_IPPROTO_ICMP : MIP_IPPROTO_ICMPV6, il,
                         pkt);
    mip_wr16(pkt + ipl + 2, mip_cksum_finish(mip_cksum_add(sum, pkt + ipl, il)));
    if (verbose)
        fprintf(stderr, "    rx ICMP type %u code %u quoting seq %u\n", pkt[ipl], pkt[ipl + 1],
                g->ack);
    mip_stack_input(&H.s, H.idx, pkt, len, H.now);
    free(pkt);
    free(quoted);
}

/* op INJECT: a segment described by the fuzzer */
static void op_inject(struct cur *in)
{
    struct seg g;
    uint8_t tgt = u8(in), mode;
    uint32_t base_seq = 0, base_una = 0, base_max = 0;
    uint32_t ecr = H.last_ts;
    unsigned kind = tgt & 7u;

    memset(&g, 0, sizeof g);
    g.flags = u8(in);
    mode = u8(in);
    if (kind < NSLOT) {
        struct slot *sl = &H.slot[kind];
        fill_tuple_from_slot(&g, sl);
        if (sl->have_tuple)
            slot_bases(sl, &base_seq, &base_una, &base_max);
        if (sl->ts_seen != 0)
            ecr = sl->ts_seen;
    } else if (kind == 4 && (H.tcp.syn[(tgt >> 4) % MIP_TCP_SYN_BACKLOG].flags & TCPS_USED)) {
        const struct mip_tcp_syn *e = &H.tcp.syn[(tgt >> 4) % MIP_TCP_SYN_BACKLOG];
        g.src = e->remote;
        g.dst = e->local;
        g.sport = e->rport;
        g.dport = e->lport;
        base_seq = e->irs + 1u;
        base_una = base_max = e->iss + 1u;
    } else if (kind == 7 && H.tcp.tw[(tgt >> 4) % MIP_TCP_TIMEWAIT_MAX].used) {
        const struct mip_tcp_tw *t = &H.tcp.tw[(tgt >> 4) % MIP_TCP_TIMEWAIT_MAX];
        g.src = t->remote;
        g.dst = t->local;
        g.sport = t->rport;
        g.dport = t->lport;
        base_seq = t->rcv_nxt;
        base_una = base_max = t->snd_nxt;
    } else if (kind == 6) {
        peer_addr(&g.src, (tgt >> 3) & 1u);
        local_for(&g.dst, &g.src);
        g.sport = u16(in);
        g.dport = u16(in);
    } else {
        /* a new peer port towards the listener */
        peer_addr(&g.src, (tgt >> 3) & 1u);
        local_for(&g.dst, &g.src);
        g.sport = (uint16_t)(40000u + (tgt >> 4));
        g.dport = LISTEN_PORT;
        base_seq = peer_iss_port(g.sport);
    }
    if ((tgt & 8u) && kind != 5 && kind != 6) {
        /* the other family: a segment for no connection */
        if (g.src.family == MIP_AF_INET)
            peer_addr(&g.src, 1);
        else
            peer_addr(&g.src, 0);
        local_for(&g.dst, &g.src);
    }
    switch (mode & 3u) {
    case 0: g.seq = base_seq; break;
    case 1: g.seq = base_seq + (uint32_t)(int32_t)(int8_t)u8(in); break;
    case 2: g.seq = base_seq + (uint32_t)(int32_t)(int16_t)u16(in); break;
    default: g.seq = u32(in); break;
    }
    switch ((mode >> 2) & 3u) {
    case 0: g.ack = base_max; break;
    case 1: g.ack = base_una + u16(in); break;
    case 2: g.ack = base_max + (uint32_t)(int32_t)(int8_t)u8(in); break;
    default: g.ack = u32(in); break;
    }
    g.win = (mode & 0x10u) ? u16(in) : 65535u;
    if (mode & 0x40u)
        opt_ts(&g, ecr);
    if (mode & 0x80u) {
        /* SACK blocks relative to snd_una */
        unsigned n = (u8(in) & 3u) + 1u, k;
        if (g.optlen + 2u + 8u * n > sizeof g.opts)
            n = (unsigned)((sizeof g.opts - g.optlen - 2u) / 8u);
        if (n > 0) {
            g.opts[g.optlen++] = 5;
            g.opts[g.optlen++] = (uint8_t)(2u + 8u * n);
            for (k = 0; k < n; k++) {
                uint32_t l = base_una + u16(in);
                uint32_t r = l + u16(in);
                mip_wr32(g.opts + g.optlen, l);
                mip_wr32(g.opts + g.optlen + 4, r);
                g.optlen += 8;
            }
        }
    }
    if (mode & 0x20u) {
        size_t n = u8(in) % 41u, k;
        if (n > sizeof g.opts - g.optlen)
            n = sizeof g.opts - g.optlen;
        for (k = 0; k < n; k++)
            g.opts[g.optlen++] = u8(in);
    }
    if (g.flags & MIP_TCP_URG)
        g.urg = u16(in);
    g.dlen = u16(in) % 1450u;
    if (kind < NSLOT && (tgt & 0xF0u) == 0xA0u)
        inject_icmp_error(&g);        /* the same description, as an ICMP error */
    else
        inject(&g);
}

/* op AUTOACK: the slot's peer answers sensibly: SYN-ACK to a SYN_SENT
 * connection, else an ACK of everything sent, with data and FIN by choice. */
static void op_autoack(struct cur *in)
{
    uint8_t a = u8(in);
    struct slot *sl = &H.slot[a & 3u];
    const struct mip_tcp_conn *c = &sl->c;
    struct seg g;
    uint32_t seq, una, max;

    memset(&g, 0, sizeof g);
    fill_tuple_from_slot(&g, sl);
    slot_bases(sl, &seq, &una, &max);
    g.win = (a & 0x40u) ? (uint16_t)((a & 0x80u) ? 100u : 0u) : 65535u;
    if (sl->open && c->state == MIP_TCP_SYN_SENT) {
        g.seq = sl->peer_iss;
        g.ack = max;
        g.flags = (a & 0x80u) ? MIP_TCP_SYN : (MIP_TCP_SYN | MIP_TCP_ACK);
        g.win = 65535;
        /* MSS, then by choice WS, SACK-permitted, timestamps */
        g.opts[g.optlen++] = 2;
        g.opts[g.optlen++] = 4;
        mip_wr16(g.opts + g.optlen, (a & 0x04u) ? 100u : 1460u);
        g.optlen += 2;
        if (!(a & 0x08u)) {
            g.opts[g.optlen++] = 1;
            g.opts[g.optlen++] = 3;
            g.opts[g.optlen++] = 3;
            g.opts[g.optlen++] = (a & 0x10u) ? 14 : 2;
            g.opts[g.optlen++] = 1;
            g.opts[g.optlen++] = 1;
            g.opts[g.optlen++] = 4;
            g.opts[g.optlen++] = 2;
        }
        if (!(a & 0x20u))
            opt_ts(&g, sl->ts_seen);
        inject(&g);
        return;
    }
    g.seq = seq;
    g.ack = max;
    g.flags = MIP_TCP_ACK;
    if (!sl->open || (c->flags & TCPF_TS_OK))
        opt_ts(&g, sl->ts_seen ? sl->ts_seen : H.last_ts);
    g.dlen = data_sizes[(a >> 2) & 7u];
    if ((a & 0xA0u) == 0x20u)
        g.flags |= MIP_TCP_FIN;
    if (g.dlen > 0)
        g.flags |= MIP_TCP_PSH;
    inject(&g);
}

/* op PEER_SYN: a new passive open with a chosen option set */
static void op_peer_syn(struct cur *in)
{
    uint8_t a = u8(in);
    struct seg g;
    memset(&g, 0, sizeof g);
    peer_addr(&g.src, (a >> 4) & 3u);
    local_for(&g.dst, &g.src);
    g.sport = (uint16_t)(40000u + (a & 15u));
    g.dport = LISTEN_PORT;
    g.seq = peer_iss_port(g.sport);
    g.flags = MIP_TCP_SYN;
    g.win = 65535;
    switch (a >> 6) {
    case 0:     /* all: MSS 1460, WS 2, SACK-permitted, TS */
        memcpy(g.opts, "\x02\x04\x05\xb4\x01\x03\x03\x02\x01\x01\x04\x02", 12);
        g.optlen = 12;
        opt_ts(&g, 0);
        break;
    case 1:     /* MSS 536 */
        memcpy(g.opts, "\x02\x04\x02\x18", 4);
        g.optlen = 4;
        break;
    case 2:     /* none */
        break;
    default:    /* MSS 64, WS 14, SACK-permitted, TS */
        memcpy(g.opts, "\x02\x04\x00\x40\x01\x03\x03\x0e\x01\x01\x04\x02", 12);
        g.optlen = 12;
        opt_ts(&g, 0);
        break;
    }
    inject(&g);
}

/* op SYN_COMPLETE: the ACK completing a SYN cache entry's handshake */
static void op_syn_complete(struct cur *in)
{
    uint8_t a = u8(in);
    const struct mip_tcp_syn *e = &H.tcp.syn[(a & 7u) % MIP_TCP_SYN_BACKLOG];
    struct seg g;
    if (!(e->flags & TCPS_USED))
        return;
    memset(&g, 0, sizeof g);
    g.src = e->remote;
    g.dst = e->local;
    g.sport = e->rport;
    g.dport = e->lport;
    g.seq = e->irs + 1u;
    g.ack = e->iss + 1u;
    g.flags = MIP_TCP_ACK;
    g.win = (a & 0x80u) ? 0u : 65535u;
    if (e->flags & TCPS_TS)
        opt_ts(&g, H.last_ts);
    g.dlen = data_sizes[(a >> 3) & 7u];
    if (a & 0x40u)
        g.flags |= MIP_TCP_FIN;
    inject(&g);
}

/* --- the operations ------------------------------------------------------ */

enum {
    OP_INJECT = 0,          /* 0..3 */
    OP_TIME = 4,            /* 4..5 */
    OP_WRITE = 6,
    OP_READ = 7,
    OP_AUTOACK = 8,         /* 8..9 */
    OP_END = 10,            /* shutdown / close / abort */
    OP_TOGGLE = 11,
    OP_CONNECT = 12,
    OP_PEER_SYN = 13,
    OP_SYN_COMPLETE = 14,
    OP_MISC = 15
};

static void run_op(struct cur *in)
{
    uint8_t op = u8(in), a;
    struct slot *sl;
    H.frames_this_op = 0;
    if (verbose)
        fprintf(stderr, "  op %u at %u\n", op & 15u, H.now);
    switch (op & 15u) {
    case 0: case 1: case 2: case 3:
        op_inject(in);
        break;
    case 4: case 5: {
        /* 0..199: 5 ms steps up to 1 s; 200..255: 2 s steps up to 112 s */
        uint8_t t = u8(in);
        uint32_t ms = t < 200u ? t * 5u : (uint32_t)(t - 199u) * 2000u;
        advance(ms, MAX_POLLS);
        break;
    }
    case OP_WRITE:
        a = u8(in);
        (void)app_write(&H.slot[a & 3u], (size_t)(u16(in) & 0xFFFu));
        break;
    case OP_READ:
        a = u8(in);
        (void)app_read(&H.slot[a & 3u], (size_t)(a >> 2) * 64u + 1u);
        break;
    case 8: case 9:
        op_autoack(in);
        break;
    case OP_END:
        a = u8(in);
        sl = &H.slot[a & 3u];
        switch ((a >> 2) & 3u) {
        case 0: (void)mip_tcp_shutdown(&H.tcp, &sl->c); break;
        case 1: (void)mip_tcp_close(&H.tcp, &sl->c); break;
        case 2: mip_tcp_abort(&H.tcp, &sl->c); break;
        default: break;
        }
        break;
    case OP_TOGGLE:
        a = u8(in);
        sl = &H.slot[a & 3u];
        switch ((a >> 2) & 3u) {
        case 0: sl->c.cfg.nodelay = !sl->c.cfg.nodelay; break;
        case 1: sl->c.cfg.keepalive_ms = sl->c.cfg.keepalive_ms ? 0u : 2000u; break;
        case 2: sl->behave = (uint8_t)(a >> 4); break;
        default: sl->behave = (uint8_t)(sl->behave ^ (0x10u << ((a >> 4) & 1u))); break;
        }
        break;
    case OP_CONNECT:
        a = u8(in);
        sl = &H.slot[0];
        if (a & 4u)
            sl->cfg_byte = (uint8_t)(a ^ sl->cfg_byte);
        (void)slot_connect(sl, a & 3u);
        break;
    case OP_PEER_SYN:
        op_peer_syn(in);
        break;
    case OP_SYN_COMPLETE:
        op_syn_complete(in);
        break;
    default:
        a = u8(in);
        switch (a & 3u) {
        case 0:
            if (H.listening)
                mip_tcp_unlisten(&H.tcp, &H.l);
            else
                CHECK(mip_tcp_listen(&H.tcp, &H.l, LISTEN_PORT, RING_MIN, app_accept) == MIP_OK,
                      "listen again");
            H.listening = !H.listening;
            break;
        case 1: H.refuse = !H.refuse; break;
        case 2: H.drv_fail = a >> 2; break;
        default: H.pbehave = (uint8_t)(a >> 2); break;
        }
        break;
    }
    check_all();
    if (verbose) {
        unsigned i;
        for (i = 0; i < NSLOT; i++) {
            const struct mip_tcp_conn *c = &H.slot[i].c;
            if (c->state != MIP_TCP_CLOSED)
                fprintf(stderr, "    slot %u %s flags 0x%04x una %u nxt %u max %u wnd %u "
                        "rcv_nxt %u rcv_adv %u tx %u/%u rx %u/%u ooo %u\n", i,
                        mip_tcp_state_name(c->state), c->flags, c->snd_una, c->snd_nxt,
                        c->snd_max, c->snd_wnd, c->rcv_nxt, c->rcv_adv, c->tx.len, c->tx.size,
                        c->rx.len, c->rx.size, c->rx.ooo_end);
        }
    }
}

static void setup(const uint8_t hdr[5])
{
    struct mip_stack_config cfg;
    struct mip_addr a, gw, any;
    uint8_t pfx;
    mip_status st;

    memset(&H, 0, sizeof H);
    H.now = T0;
    H.peer_ts = 0x7FFFFF00u;
    memset(&cfg, 0, sizeof cfg);
    cfg.entropy = entropy;
    cfg.entropy_len = sizeof entropy;
    mip_stack_init(&H.s, &cfg, H.now);
    st = mip_netif_add_rawip(&H.s, RAWIP_MTU, our_iid, &drv, &H, &H.idx);
    CHECK(st == MIP_OK, "netif add: %s", mip_status_name(st));
    CHECK(mip_addr_parse("192.0.2.2/24", &a, &pfx) == MIP_OK, "addr parse");
    CHECK(mip_netif_add_addr(&H.s, H.idx, &a, pfx) == MIP_OK, "add 192.0.2.2/24");
    CHECK(mip_addr_parse("fd00::2/64", &a, &pfx) == MIP_OK, "addr parse v6");
    CHECK(mip_netif_add_addr(&H.s, H.idx, &a, pfx) == MIP_OK, "add fd00::2/64");
    CHECK(mip_addr_parse("192.0.2.1", &gw, NULL) == MIP_OK, "gw parse");
    CHECK(mip_addr_parse("0.0.0.0", &any, NULL) == MIP_OK, "any parse");
    CHECK(mip_route_add(&H.s, &any, 0, &gw, H.idx) == MIP_OK, "default route v4");
    CHECK(mip_addr_parse("fd00::1", &gw, NULL) == MIP_OK, "gw6 parse");
    CHECK(mip_addr_parse("::", &any, NULL) == MIP_OK, "any6 parse");
    CHECK(mip_route_add(&H.s, &any, 0, &gw, H.idx) == MIP_OK, "default route v6");
    CHECK(mip_tcp_init(&H.tcp, &H.s) == MIP_OK, "tcp init");
    CHECK(mip_tcp_listen(&H.tcp, &H.l, LISTEN_PORT, RING_MIN, app_accept) == MIP_OK, "listen");
    H.listening = true;

    /* header: [active peer + flags][active cfg][passive cfg][active behave]
     *         [passive behave] */
    H.slot[0].cfg_byte = hdr[1];
    H.slot[0].behave = hdr[3];
    H.pcfg = hdr[2];
    H.pbehave = hdr[4];
    H.refuse = (hdr[0] & 0x04u) != 0;
    if (!(hdr[0] & 0x08u))
        CHECK(slot_connect(&H.slot[0], hdr[0] & 3u), "initial connect failed");
    check_all();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *e = getenv("MOTEIP_FUZZ_VERBOSE");
    (void)argc;
    (void)argv;
    verbose = e != NULL && e[0] != '\0' && e[0] != '0';
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cur in;
    uint8_t hdr[5];
    unsigned nops = 0, i;

    in.p = data;
    in.n = size;
    in.pos = 0;
    for (i = 0; i < sizeof hdr; i++)
        hdr[i] = u8(&in);
    setup(hdr);
    while (in.pos < in.n && nops < MAX_OPS) {
        run_op(&in);
        nops++;
    }
    /* Ten minutes of timers: handshakes and TIME_WAIT run out. */
    H.frames_this_op = 0;
    H.drv_fail = 0;
    for (i = 0; i < 10; i++) {
        advance(60000u, 200u);
        H.frames_this_op = 0;
    }
    for (i = 0; i < MIP_TCP_SYN_BACKLOG; i++)
        CHECK(!(H.tcp.syn[i].flags & TCPS_USED), "SYN cache entry %u still used after 10 min", i);
    for (i = 0; i < MIP_TCP_TIMEWAIT_MAX; i++)
        CHECK(!H.tcp.tw[i].used, "TIME_WAIT record %u still used after 10 min", i);
    return 0;
}
