/*
 * libFuzzer harness: moteip TCP against a simulated peer whose *behaviour*
 * the input scripts. One stack (full profile) behind a raw-IP netif (MTU
 * 1280, 192.0.2.2 and fd00::2) with up to two connections to one peer
 * (192.0.2.1 / fd00::1): A, an active open to the peer's port 5555, and B,
 * a passive open of the peer's to our listener on port 80. The peer is a
 * TCP end point of its own (struct peer): it learns our ISS and options
 * from our SYN or SYN-ACK, keeps its receive state (rcv_nxt, out-of-order
 * ranges for SACK, our FIN), its send state (ISS, what we acknowledged, its
 * own data and FIN), the windows both sides advertised and the timestamps,
 * so that most of what it sends is right; the input picks the deviations:
 * which of our segments are lost, what to acknowledge (cumulative, partial,
 * duplicate, old, beyond what we sent), the window (zero, tiny, reopened,
 * shrunk), timestamps (fresh, absent, old, a clock jump), SACK blocks,
 * data in or out of order or outside the window, FIN or RST at any moment,
 * and silence. Time goes from milliseconds to days: the harness polls at
 * every deadline the stack returns (and at the peer's own reply and
 * retransmission times), or jumps without polling. The application side is
 * scripted too: write, read (or leave the ring full), shutdown, close,
 * abort, keepalive. See fuzz/README.md ("fuzz_tcp_peer") for the format.
 *
 * Every input ends in the same forced tail: the application closes (or
 * writes, or turns keepalive on), the peer goes silent and the harness
 * advances time by the longest bound the defaults allow (TAIL_MS below);
 * every connection must then be CLOSED with exactly one `closed`, the SYN
 * cache and TIME_WAIT records empty and no packet buffer in use.
 *
 * What traps, after every operation and every poll:
 *   - the connection list holds only our structs, no cycle, none CLOSED;
 *     `closed` exactly once per open, callbacks only while open;
 *   - per connection: snd_una <= snd_nxt <= snd_max, flight within the ring
 *     (+ SYN, FIN), ring bounds, reassembly bits, rcv_nxt <= rcv_adv, the
 *     advertised window backed by the ring (FUZZ_PEER_CHECK_AGREED), SACK
 *     scoreboard sorted;
 *   - a timer is armed whenever something waits for the peer: a handshake,
 *     data or FIN not acknowledged, data held back by a window, and
 *     (FUZZ_PEER_CHECK_LIVENESS) FIN_WAIT_2 after mip_tcp_close;
 *   - SYN cache entries and TIME_WAIT records never farther away than their
 *     documented limits; poll never later than a pending TCP deadline;
 *   - the stack never acknowledges a byte the peer did not send, and the
 *     peer never sees an acknowledgment of ours for bytes it did not get;
 *   - every byte the application reads is the peer's byte at that stream
 *     offset, and when the peer's FIN is read, all of the peer's bytes were;
 *   - every byte the peer receives is what the application wrote at that
 *     offset; our FIN comes right after the last byte written;
 *   - our segments: checksums, options, ACK = rcv_nxt, the right edge never
 *     moves left, data within the peer's MSS and the window it advertised
 *     (or a 1-byte probe), timestamps on every segment once agreed
 *     (FUZZ_PEER_CHECK_AGREED, RFC 7323 3.2) and never going back;
 *   - an in-order data segment inside the window we advertised, with a
 *     plausible ACK and timestamp, is taken whole (rcv_nxt moves past it);
 *     with FUZZ_PEER_CHECK_LIVENESS also after more than 2^31 ms idle,
 *     when RFC 7323 5.5 says TS.Recent is no longer valid;
 *   - the silent tail above (FUZZ_PEER_CHECK_LIVENESS).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Checks that known defects fail (issue 12); 0 turns them off to fuzz past
 * them. LIVENESS: the silent-peer tail bound, a FIN_WAIT_2 timer after
 * close, PAWS after 24 idle days. AGREED: timestamps sent once agreed, the
 * advertised window backed by the ring (the SYN cache's SYN-ACK too). */
#ifndef FUZZ_PEER_CHECK_LIVENESS
#define FUZZ_PEER_CHECK_LIVENESS 1
#endif
#ifndef FUZZ_PEER_CHECK_AGREED
#define FUZZ_PEER_CHECK_AGREED 1
#endif

#define NCONN        2u           /* A (active), B (passive) */
#define MAX_OPS      128u
#define MAX_STEPS    512u         /* event-loop steps per time operation */
#define MAX_FRAMES   1000u        /* frames per operation: more is a storm */
#define RAWIP_MTU    1280u
#define T0           (0xFFFFFFFFu - 20000u)   /* the clock wraps 20 s in */
#define PEER_PORT    5555u        /* A's destination */
#define LISTEN_PORT  80u          /* B's destination */
#define RING_MAX     4096u
#define MAX_RANGES   4u           /* the peer's out-of-order ranges */
#define DAY_MS       86400000u
#define JUMP_MAX     (20ull * DAY_MS)         /* a late poll: < 2^31 ms */
#define IDLE_PAWS_MS 0x80000000ull            /* 2^31 ms, 24.9 days */
#define PEER_RETRIES 8u           /* the peer's own retransmissions */

#ifndef MIP_TCP_KEEPALIVE_PROBES
#define MIP_TCP_KEEPALIVE_PROBES 4u           /* src/tcp/tcp_timer.c */
#endif
#ifdef MIP_TCP_FIN_WAIT_2_MS
#define BOUND_FW2_MS MIP_TCP_FIN_WAIT_2_MS
#else
#define BOUND_FW2_MS 60000u       /* before issue 12 there was no such timer */
#endif

/* The longest a connection may live after the peer fell silent, from the
 * defaults (docs/TCP.md): every retransmission timeout (data, FIN, persist
 * probes) waits at most MIP_TCP_RTO_MAX_MS and the connection is given up
 * after max_retries of them, after at most one tail loss probe (its
 * timeout is shorter than the RTO, and the RTO starts again from the
 * probe: RFC 8985 7.3); a handshake after MIP_TCP_SYN_RETRIES; FIN_WAIT_2
 * after its timeout; keepalive (TAIL_KA_MS in the tail) after its idle time
 * plus its probes. The longest of these, plus a second of slack. */
#define BOUND_RTO_MS ((MIP_TCP_MAX_RETRIES + 1u + (MIP_TCP_SACK ? 1u : 0u)) * MIP_TCP_RTO_MAX_MS)
#define BOUND_SYN_MS ((MIP_TCP_SYN_RETRIES + 1u) * MIP_TCP_RTO_MAX_MS)
#define TAIL_KA_MS   10000u
#define BOUND_KA_MS  (TAIL_KA_MS + MIP_TCP_KEEPALIVE_PROBES * \
                      (TAIL_KA_MS / MIP_TCP_KEEPALIVE_PROBES > 500u ? \
                       TAIL_KA_MS / MIP_TCP_KEEPALIVE_PROBES : 500u))
#define MAX2(a, b)   ((a) > (b) ? (a) : (b))
#define TAIL_MS      (MAX2(MAX2(BOUND_RTO_MS, BOUND_SYN_MS), MAX2(BOUND_FW2_MS, BOUND_KA_MS)) + 1000u)

static unsigned long long elapsed_ms(void);   /* for the messages */
#define FAIL(...)                                                                   \
    do {                                                                            \
        fprintf(stderr, "fuzz_tcp_peer: CHECK FAILED (%s:%d) at t=%llu ms: ", __FILE__, \
                __LINE__, elapsed_ms());                                            \
        fprintf(stderr, __VA_ARGS__);                                               \
        fputc('\n', stderr);                                                        \
        __builtin_trap();                                                           \
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
static const uint8_t peer_v4[4] = {192, 0, 2, 1};
static const uint8_t peer_v6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

/* Byte the peer sends at stream offset k, and the application at k. */
NOCOV static uint8_t pat_peer(uint32_t k) { return (uint8_t)((k * 2654435761u) >> 24); }
NOCOV static uint8_t pat_app(uint32_t k) { return (uint8_t)(((k + 0x55u) * 40503u) >> 9); }

/* --- state ------------------------------------------------------------------ */

/* The application side of one connection. */
struct slot {
    struct mip_tcp_conn c;
    uint8_t tx[RING_MAX], rx[RING_MAX], bm[RING_MAX / 8];
    uint8_t cfg;              /* header byte, see slot_prepare() */
    bool open;                /* between connect/accept and `closed` */
    bool read_cb;             /* reads everything in `readable` */
    bool close_on_fin;        /* closes once the peer closed */
    bool no_read;             /* mip_tcp_close was called */
    uint32_t wr_off;          /* bytes the application wrote */
    uint32_t wr_pending;      /* being written right now */
    uint32_t rd_off;          /* bytes it read */
    /* while a peer segment is input: rcv_nxt before it, and the furthest
     * right edge advertised with that rcv_nxt (a callback may send) */
    bool in_chk;
    uint32_t in_rcv_nxt, in_edge;
};

/* The peer's end of one connection. Sequence numbers are the peer's view:
 * snd_* its own send space, rcv_* ours. */
struct peer {
    bool live;                /* has a connection (not reset, not begun) */
    bool active;              /* A: we opened; B: the peer opened */
    uint8_t family;           /* MIP_AF_INET or MIP_AF_INET6 */
    /* last_ack (below) is at most rcv_nxt: only ACKs of what it has count */
    uint8_t opt;              /* header byte: options of its SYN / SYN-ACK */
    uint16_t pport, oport;    /* its port, ours */
    /* its send side */
    bool syn_sent;            /* its SYN (B) or SYN-ACK (A) went out */
    bool fin_sent;
    uint32_t iss, snd_una, snd_nxt, fin_seq;
    uint32_t snd_hi;          /* highest sequence sent (+SYN, +FIN) */
    uint32_t peer_edge;       /* highest right edge it advertised */
    bool edge_set;
    uint32_t wnd;             /* window it advertises, bytes */
    uint32_t last_ack;        /* ACK field it sent last */
    uint64_t rexmt_at;        /* its retransmission time (0: none) */
    uint8_t rexmt_n;
    /* its receive side */
    bool syn_seen;            /* our SYN / SYN-ACK arrived: irs known */
    bool acked_syn;           /* it acknowledged that SYN */
    bool stale_rst;           /* a RST for an old SYN-ACK is due, at stale_seq */
    uint32_t stale_seq;
    bool fin_rcvd, fin_pend;
    uint32_t irs, rcv_nxt, fin_at;
    uint32_t our_edge;        /* highest right edge we advertised */
    uint32_t rstart[MAX_RANGES], rend[MAX_RANGES];   /* out of order, sorted */
    unsigned nranges;
    /* options */
    bool ts_ok, sack_ok, ws_ok, our_ts_offered, our_sack_offered, our_ws_offered;
    uint8_t our_shift, peer_shift;
    uint16_t our_mss, peer_mss;
    uint32_t ts_recent;       /* our newest TSval, echoed */
    uint32_t ts_clock;        /* its clock: ts_clock + t */
    bool our_ts_seen;
    uint32_t our_ts_last;
    uint64_t our_ts_t;
    uint64_t tsr_t;           /* when the stack's TS.Recent last changed */
    /* the network and its behaviour */
    unsigned lose;            /* our next segments lost */
    bool blackhole;           /* all our segments lost */
    bool responsive;          /* answers by itself after `lat` */
    bool close_on_fin;        /* sends its FIN once it has ours */
    uint32_t lat;
    bool reply_pending;
    uint64_t reply_at;
};

static struct {
    struct mip_stack s;
    struct mip_tcp tcp;
    struct mip_tcp_listener l;
    uint8_t idx;
    uint64_t t;               /* ms since the start, never wraps */
    uint64_t late_t;          /* latest poll that came after a TCP deadline */
    mip_time_t now;           /* T0 + t, modulo 2^32 */
    struct slot slot[NCONN];
    struct peer peer[NCONN];
    uint8_t hdr[8];
    unsigned gen[NCONN];      /* incarnations (B: new ports) */
    unsigned iss_gen[NCONN];  /* incarnations (new ISS) */
    bool in_rst_input;
    bool polled;              /* check_all() right after a poll */
    unsigned frames_this_op;
    unsigned depth;
} H;

static int verbose;

static unsigned long long elapsed_ms(void) { return (unsigned long long)H.t; }

static void check_all(void);
static void run_replies(void);

/* --- time ------------------------------------------------------------------- */

static void set_time(uint64_t t)
{
    H.t = t;
    H.now = (mip_time_t)(T0 + (uint32_t)t);
}

/* --- addresses -------------------------------------------------------------- */

static void peer_addr(const struct peer *p, struct mip_addr *a)
{
    if (p->family == MIP_AF_INET)
        mip_addr_set4(a, peer_v4);
    else
        mip_addr_set6(a, peer_v6);
}

static void our_addr(const struct peer *p, struct mip_addr *a)
{
    if (p->family == MIP_AF_INET)
        mip_addr_set4(a, our_v4);
    else
        mip_addr_set6(a, our_v6);
}

/* --- the connection list ----------------------------------------------------- */

NOCOV static int slot_of(const struct mip_tcp_conn *c)
{
    unsigned i;
    for (i = 0; i < NCONN; i++)
        if (&H.slot[i].c == c)
            return (int)i;
    return -1;
}

/* The slots in the connection list (walked with a bound). */
static unsigned list_mask(void) { return tcph_list_mask(&H.tcp, slot_of, NCONN); }

static bool listed(unsigned i) { return (list_mask() >> i) & 1u; }

/* The slot's connection is the peer's current incarnation. */
static bool slot_is_peer(unsigned i)
{
    const struct mip_tcp_conn *c = &H.slot[i].c;
    const struct peer *p = &H.peer[i];
    return listed(i) && c->remote.family == p->family && c->rport == p->pport &&
           c->lport == p->oport;
}

/* --- the peer's receive side ----------------------------------------------- */

/* Takes [seq, seq+len) into the peer's receive state, within its window. */
NOCOV static void peer_take(struct peer *p, uint32_t seq, uint32_t len)
{
    uint32_t end = seq + len, lim = p->rcv_nxt + p->wnd;
    unsigned i, j;
    if (MIP_SEQ_LT(seq, p->rcv_nxt))
        seq = p->rcv_nxt;
    if (MIP_SEQ_GT(end, lim))
        end = lim;
    if (!MIP_SEQ_LT(seq, end))
        return;
    if (seq == p->rcv_nxt) {
        p->rcv_nxt = end;
    } else {
        /* merge into the sorted, disjoint ranges; the highest one goes when
         * there is no room */
        uint32_t s = seq, e = end;
        unsigned k = 0;
        uint32_t ns[MAX_RANGES + 1], ne[MAX_RANGES + 1];
        bool placed = false;
        for (i = 0; i < p->nranges; i++) {
            if (MIP_SEQ_LT(p->rend[i], s) || MIP_SEQ_GT(p->rstart[i], e)) {
                if (!placed && MIP_SEQ_GT(p->rstart[i], e)) {
                    ns[k] = s;
                    ne[k++] = e;
                    placed = true;
                }
                ns[k] = p->rstart[i];
                ne[k++] = p->rend[i];
            } else {
                if (MIP_SEQ_LT(p->rstart[i], s))
                    s = p->rstart[i];
                if (MIP_SEQ_GT(p->rend[i], e))
                    e = p->rend[i];
            }
        }
        if (!placed) {
            ns[k] = s;
            ne[k++] = e;
        }
        if (k > MAX_RANGES)
            k = MAX_RANGES;
        for (j = 0; j < k; j++) {
            p->rstart[j] = ns[j];
            p->rend[j] = ne[j];
        }
        p->nranges = k;
    }
    /* ranges now reached by rcv_nxt */
    while (p->nranges > 0 && MIP_SEQ_LEQ(p->rstart[0], p->rcv_nxt)) {
        if (MIP_SEQ_GT(p->rend[0], p->rcv_nxt))
            p->rcv_nxt = p->rend[0];
        for (j = 1; j < p->nranges; j++) {
            p->rstart[j - 1] = p->rstart[j];
            p->rend[j - 1] = p->rend[j];
        }
        p->nranges--;
    }
}

static void peer_fin_check(struct peer *p)
{
    if (p->fin_pend && !p->fin_rcvd && p->fin_at == p->rcv_nxt) {
        p->fin_rcvd = true;
        p->rcv_nxt++;
        p->nranges = 0;
    }
}

static void schedule_reply(struct peer *p)
{
    if (p->responsive && p->live && !p->reply_pending) {
        p->reply_pending = true;
        p->reply_at = H.t + p->lat;
    }
}

/* --- our segments ----------------------------------------------------------- */

/* The peer's view of one of our segments, after the generic checks. */
NOCOV static void peer_receive(unsigned i, const struct mip_tcp_hdr *h,
                               const struct mip_tcp_opts *o, uint32_t dlen, size_t optlen)
{
    struct peer *p = &H.peer[i];
    struct slot *sl = &H.slot[i];
    bool is_cur = slot_is_peer(i);
    const struct mip_tcp_conn *c = &sl->c;
    bool syn = (h->flags & MIP_TCP_SYN) != 0, fin = (h->flags & MIP_TCP_FIN) != 0;
    bool lost;

    if (syn && (h->flags & MIP_TCP_ACK) && p->syn_seen && h->seq != p->irs && !p->acked_syn &&
        !p->active) {
        /* the SYN cache gave up its entry and a retransmitted SYN made a
         * new one: a new ISS (and timestamp offset) the peer may take, as
         * it has acknowledged nothing yet */
        p->syn_seen = false;
        p->our_ts_seen = false;
    }

    /* --- what the stack may send, whether or not it arrives --- */
    if (h->flags & MIP_TCP_RST) {
        CHECK(dlen == 0 && !syn && !fin, "RST with SYN, FIN or data");
    } else if (syn) {
        CHECK(dlen == 0 && !fin, "SYN with data or FIN");
        CHECK(o->present & MIP_TCP_HAS_MSS, "SYN without MSS");
        if (h->flags & MIP_TCP_ACK) {
            CHECK(!p->active, "SYN-ACK on our active open");
            if (h->ack != p->iss + 1u) {
                /* the SYN cache still answers the SYN of an earlier
                 * incarnation on this port: the peer resets it (RFC 9293
                 * 3.10.7.3), once it may send */
                CHECK(!is_cur, "SYN-ACK acknowledges %u, the peer's SYN was %u", h->ack,
                      p->iss);
                if (!p->blackhole && p->lose == 0 && p->live && !p->syn_seen) {
                    p->stale_rst = true;
                    p->stale_seq = h->ack;
                    schedule_reply(p);
                }
                if (p->lose > 0)
                    p->lose--;
                return;
            }
            if (listed(i) && is_cur)
                CHECK(c->state == MIP_TCP_SYN_RECEIVED, "SYN-ACK from a connection in %s",
                      mip_tcp_state_name(c->state));
        } else {
            CHECK(p->active && is_cur && c->state == MIP_TCP_SYN_SENT,
                  "SYN from a connection not in SYN_SENT");
        }
    } else {
        CHECK(h->flags & MIP_TCP_ACK, "segment without ACK (flags 0x%02x)", h->flags);
    }
    if (h->flags & MIP_TCP_ACK) {
        CHECK(MIP_SEQ_LEQ(h->ack, p->snd_hi),
              "we acknowledge %u but the peer sent only up to %u", h->ack, p->snd_hi);
    }
    if (!(h->flags & MIP_TCP_RST) && is_cur && !syn) {
        uint32_t edge = h->ack + ((uint32_t)h->window << c->rcv_wscale);
        CHECK(h->ack == c->rcv_nxt, "ACK %u but rcv_nxt %u", h->ack, c->rcv_nxt);
        CHECK(MIP_SEQ_GEQ(edge, c->rcv_adv), "window %u moves the right edge left: %u -> %u",
              h->window, c->rcv_adv, edge);
        if (sl->in_chk && h->ack == sl->in_rcv_nxt && MIP_SEQ_GT(edge, sl->in_edge))
            sl->in_edge = edge;
    }
#if FUZZ_PEER_CHECK_AGREED
    if (p->ts_ok && !(h->flags & MIP_TCP_RST))
        CHECK(o->present & MIP_TCP_HAS_TIMESTAMP,
              "segment without the timestamps both SYNs agreed (RFC 7323 3.2), %s",
              is_cur ? mip_tcp_state_name(c->state) : "no connection");
#endif
    if ((o->present & MIP_TCP_HAS_TIMESTAMP) && p->syn_seen && p->live) {
        if (p->our_ts_seen && H.t - p->our_ts_t < 0x7FFFFFFFull)
            CHECK((int32_t)(o->ts_val - p->our_ts_last) >= 0, "TSval went back: %u after %u",
                  o->ts_val, p->our_ts_last);
        p->our_ts_seen = true;
        p->our_ts_last = o->ts_val;
        p->our_ts_t = H.t;
    }
    if (dlen > 0 || fin) {
        /* our stream: the application's bytes at their offsets, FIN after
         * the last one written */
        uint32_t iss = p->syn_seen ? p->irs : c->iss, off = h->seq - (iss + 1u);
        uint32_t written = sl->wr_off + sl->wr_pending;
        CHECK(p->syn_seen, "data or FIN before the peer saw our SYN");
        if (is_cur) {
            CHECK(c->state >= MIP_TCP_ESTABLISHED && c->state != MIP_TCP_TIME_WAIT &&
                      (dlen == 0 || c->state != MIP_TCP_FIN_WAIT_2),
                  "data/FIN sent in %s", mip_tcp_state_name(c->state));
            CHECK(dlen == 0 || dlen + optlen <= c->cc.mss, "%u data + %zu option bytes > MSS %u",
                  dlen, optlen, c->cc.mss);
        }
        CHECK(dlen == 0 || dlen + optlen <= p->peer_mss,
              "%u data + %zu option bytes > the peer's MSS %u", dlen, optlen, p->peer_mss);
        CHECK(off <= written && dlen <= written - off,
              "data at stream offset %u+%u, only %u bytes written", off, dlen, written);
        if (fin) {
            if (is_cur)
                CHECK(c->flags & TCPF_FIN_QUEUED, "FIN before the application shut down");
            CHECK(off + dlen == sl->wr_off, "FIN at stream offset %u, %u bytes written",
                  off + dlen, sl->wr_off);
        }
        if (dlen > 0) {
            uint32_t end = h->seq + dlen;
            CHECK(p->edge_set, "data before the peer advertised a window");
            CHECK(MIP_SEQ_LEQ(end, p->peer_edge) || (dlen == 1 && h->seq == p->peer_edge),
                  "data [%u, %u) beyond the peer's window (edge %u)", h->seq, end,
                  p->peer_edge);
        }
    }

    /* --- the network --- */
    lost = p->blackhole || p->lose > 0;
    if (p->lose > 0)
        p->lose--;
    if (lost || !p->live)
        return;

    /* --- what the peer makes of it --- */
    if (h->flags & MIP_TCP_RST) {
        /* RFC 5961 3.2 on the peer's side too: exact, else ignored */
        if (!p->syn_seen || h->seq == p->rcv_nxt || !(h->flags & MIP_TCP_ACK) ||
            h->seq == p->rcv_nxt - 1u) {
            p->live = false;
            p->reply_pending = false;
            p->rexmt_at = 0;
        }
        return;
    }
    if (syn) {
        if (!p->syn_seen) {
            p->syn_seen = true;
            p->irs = h->seq;
            p->rcv_nxt = h->seq + 1u;
            p->last_ack = p->rcv_nxt;
            p->our_mss = o->mss;
            p->our_ts_offered = (o->present & MIP_TCP_HAS_TIMESTAMP) != 0;
            p->our_sack_offered = (o->present & MIP_TCP_HAS_SACK_PERM) != 0;
            p->our_ws_offered = (o->present & MIP_TCP_HAS_WSCALE) != 0;
            p->our_shift = p->our_ws_offered ? (o->wscale > 14u ? 14u : o->wscale) : 0u;
            if (o->present & MIP_TCP_HAS_TIMESTAMP) {
                p->ts_recent = o->ts_val;
                p->our_ts_seen = true;
                p->our_ts_last = o->ts_val;
                p->our_ts_t = H.t;
            }
            if (!p->active) {
                /* our SYN-ACK answers its SYN: the options are agreed now */
                bool ws = (p->opt & 0x04u) != 0;
                p->ts_ok = p->our_ts_offered && (p->opt & 0x40u);
                p->sack_ok = p->our_sack_offered && (p->opt & 0x20u);
                p->ws_ok = p->our_ws_offered && ws;
                if (!p->ws_ok)
                    p->our_shift = 0;
                p->snd_una = h->ack;
            }
            /* a SYN's window is never scaled; it counts from the peer's
             * ISN + 1 (the ACK of a SYN-ACK) */
            p->our_edge = ((h->flags & MIP_TCP_ACK) ? h->ack : p->iss + 1u) + h->window;
        }
        schedule_reply(p);
        return;
    }
    if (!p->syn_seen)
        return;
    if (o->present & MIP_TCP_HAS_TIMESTAMP)
        p->ts_recent = o->ts_val;
    if (MIP_SEQ_GT(h->ack, p->snd_una) && MIP_SEQ_LEQ(h->ack, p->snd_hi)) {
        p->snd_una = h->ack;
        p->rexmt_n = 0;
        p->rexmt_at = MIP_SEQ_LT(p->snd_una, p->snd_hi) ? H.t + 1000u : 0u;
    }
    {
        uint32_t edge = h->ack + ((uint32_t)h->window << (p->ws_ok ? p->our_shift : 0u));
        if (MIP_SEQ_GT(edge, p->our_edge))
            p->our_edge = edge;
    }
    if (dlen > 0)
        peer_take(p, h->seq, dlen);
    if (fin && !p->fin_rcvd) {
        p->fin_pend = true;
        p->fin_at = h->seq + dlen;
    }
    peer_fin_check(p);
    if (dlen > 0 || fin || h->seq != p->rcv_nxt)
        schedule_reply(p);
}

/* Checks a frame the stack sends and hands it to its peer. */
static mip_status drv_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct tcph_sent seg;
    const struct mip_tcp_hdr *h = &seg.h;
    uint32_t dlen;
    unsigned i;
    int who = -1;

    CHECK(ctx == &H, "driver context");
    CHECK(len >= 1 && len <= RAWIP_MTU, "frame of %zu bytes", len);
    CHECK(++H.frames_this_op <= MAX_FRAMES, "more than %u frames in one operation", MAX_FRAMES);
    tcph_sent_parse(frame, len, &seg);
    CHECK(seg.src.family == MIP_AF_INET
              ? memcmp(seg.src.bytes, our_v4, 4) == 0 && memcmp(seg.dst.bytes, peer_v4, 4) == 0
              : memcmp(seg.src.bytes, our_v6, 16) == 0 && memcmp(seg.dst.bytes, peer_v6, 16) == 0,
          "segment between the wrong addresses");
    if (h->flags & MIP_TCP_RST)
        CHECK(!H.in_rst_input, "RST sent in answer to a RST (RFC 9293 3.10.7.1)");
    dlen = (uint32_t)seg.dlen;
    for (i = 0; i < NCONN; i++) {
        struct peer *p = &H.peer[i];
        if (p->family != seg.src.family || h->dst_port != p->pport)
            continue;
        /* A's first SYN leaves inside mip_tcp_connect, before the harness
         * knows the port */
        if (p->active && p->oport == 0 &&
            (h->flags & (MIP_TCP_SYN | MIP_TCP_ACK)) == MIP_TCP_SYN)
            p->oport = h->src_port;
        if (h->src_port == p->oport && p->oport != 0)
            who = (int)i;
    }
    if (verbose)
        fprintf(stderr, "    tx %c %s %u->%u %s%s%s%s%s seq %u ack %u win %u len %u%s\n",
                who < 0 ? '?' : (char)('A' + who), seg.src.family == MIP_AF_INET ? "v4" : "v6",
                h->src_port, h->dst_port, (h->flags & MIP_TCP_SYN) ? "S" : "",
                (h->flags & MIP_TCP_FIN) ? "F" : "", (h->flags & MIP_TCP_RST) ? "R" : "",
                (h->flags & MIP_TCP_PSH) ? "P" : "", (h->flags & MIP_TCP_ACK) ? "." : "",
                h->seq, h->ack, h->window, dlen,
                who >= 0 && (H.peer[who].blackhole || H.peer[who].lose) ? " (lost)" : "");
    if (who < 0) {
        /* an earlier incarnation: TIME_WAIT answers, RSTs, and the SYN-ACKs
         * of a SYN cache entry the peer forgot */
        bool cached = false;
        for (i = 0; i < MIP_TCP_SYN_BACKLOG; i++) {
            const struct mip_tcp_syn *e = &H.tcp.syn[i];
            if ((e->flags & TCPS_USED) && e->rport == h->dst_port && e->lport == h->src_port &&
                mip_addr_eq(&e->remote, &seg.dst))
                cached = true;
        }
        CHECK(dlen == 0 && !(h->flags & MIP_TCP_FIN) &&
                  (!(h->flags & MIP_TCP_SYN) || ((h->flags & MIP_TCP_ACK) && cached)),
              "SYN, FIN or data for no current connection");
    } else {
        struct slot *sl = &H.slot[who];
        const struct peer *p = &H.peer[who];
        uint32_t iss = p->syn_seen ? p->irs : sl->c.iss;
        uint32_t off = h->seq - (iss + 1u), written = sl->wr_off + sl->wr_pending, k;
        if (dlen > 0 && p->syn_seen && off <= written && dlen <= written - off)
            for (k = 0; k < dlen; k++)
                CHECK(seg.data[k] == pat_app(off + k),
                      "sent byte at stream offset %u is not what the application wrote",
                      off + k);
        peer_receive((unsigned)who, h, &seg.o, dlen, seg.optlen);
    }
    tcph_sent_free(&seg);
    return MIP_OK;
}

static const struct mip_netif_driver drv = { drv_transmit, NULL, NULL };

/* --- the peer's segments ------------------------------------------------------- */

struct pseg {
    uint32_t seq, ack;
    uint8_t flags;
    uint16_t win;             /* the field as sent */
    struct mip_tcp_opts o;
    uint32_t dlen;
};

static uint32_t peer_ts(const struct peer *p) { return p->ts_clock + (uint32_t)H.t; }

static uint16_t peer_win_field(const struct peer *p)
{
    uint32_t w = p->wnd >> (p->ws_ok ? p->peer_shift : 0u);
    return (uint16_t)(w > 0xFFFFu ? 0xFFFFu : w);
}

/* Payload bytes per segment the peer may send: our MSS less its options. */
static uint32_t peer_seg_max(const struct peer *p)
{
    uint32_t m = p->our_mss, opts = p->ts_ok ? 12u : 0u;
    return m > opts + 1u ? m - opts : 1u;
}

/* A segment carrying the peer's ACK, window, timestamp and SACK blocks. */
static void peer_seg_init(const struct peer *p, struct pseg *g, uint32_t seq, uint8_t flags)
{
    unsigned n, k;
    memset(g, 0, sizeof *g);
    g->seq = seq;
    g->flags = (uint8_t)(flags | MIP_TCP_ACK);
    g->ack = p->rcv_nxt;
    g->win = peer_win_field(p);
    if (p->ts_ok) {
        g->o.present |= MIP_TCP_HAS_TIMESTAMP;
        g->o.ts_val = peer_ts(p);
        g->o.ts_ecr = p->ts_recent;
    }
    n = p->nranges;
    if (p->sack_ok && n > 0) {
        if (n > (p->ts_ok ? 3u : 4u))
            n = p->ts_ok ? 3u : 4u;
        /* the newest information first would be RFC 2018's order; the
         * highest ranges are what the stack needs least: lowest first */
        for (k = 0; k < n; k++) {
            g->o.sack[k].left = p->rstart[k];
            g->o.sack[k].right = p->rend[k];
        }
        g->o.sack_count = (uint8_t)n;
        g->o.present |= MIP_TCP_HAS_SACK;
    }
}

/* The SYN (B) or SYN-ACK (A) of the peer, options from its header byte. */
static void peer_syn_seg(const struct peer *p, struct pseg *g)
{
    static const uint16_t mss[4] = {1460, 536, 100, 0};
    static const uint8_t shift[4] = {0, 2, 7, 14};
    memset(g, 0, sizeof *g);
    g->seq = p->iss;
    g->flags = MIP_TCP_SYN;
    if (p->active) {
        g->flags |= MIP_TCP_ACK;
        g->ack = p->rcv_nxt;
    }
    g->win = (uint16_t)(p->wnd > 0xFFFFu ? 0xFFFFu : p->wnd);   /* never scaled */
    if (mss[p->opt & 3u] != 0) {
        g->o.present |= MIP_TCP_HAS_MSS;
        g->o.mss = mss[p->opt & 3u];
    }
    if ((p->opt & 0x04u) && (!p->active || p->our_ws_offered)) {
        g->o.present |= MIP_TCP_HAS_WSCALE;
        g->o.wscale = shift[(p->opt >> 3) & 3u];
    }
    if ((p->opt & 0x20u) && (!p->active || p->our_sack_offered))
        g->o.present |= MIP_TCP_HAS_SACK_PERM;
    if ((p->opt & 0x40u) && (!p->active || p->our_ts_offered)) {
        g->o.present |= MIP_TCP_HAS_TIMESTAMP;
        g->o.ts_val = peer_ts(p);
        g->o.ts_ecr = p->active ? p->ts_recent : 0u;
    }
}

/* What an inject is expected to do to the connection. */
struct expect {
    bool take;                /* rcv_nxt must reach end */
    uint32_t end;
    bool idle;                /* TS.Recent older than 2^31 ms */
};

/* Builds the segment, hands it to the stack and checks what it did. */
NOCOV static void peer_emit(unsigned i, const struct pseg *g, bool plausible)
{
    struct peer *p = &H.peer[i];
    struct slot *sl = &H.slot[i];
    struct mip_tcp_conn *c = &sl->c;
    struct mip_addr src, dst;
    struct mip_tcp_hdr h;
    struct expect ex;
    uint8_t opts[40], data[1500], *pkt;
    size_t optlen = mip_tcp_opts_len(&g->o), written, len;
    uint32_t k, first = g->seq + ((g->flags & MIP_TCP_SYN) ? 1u : 0u);
    uint32_t paws_before = H.tcp.stat[MIP_TCP_STAT_drop_paws];
    bool cur = slot_is_peer(i);

    peer_addr(p, &src);
    our_addr(p, &dst);
    memset(&h, 0, sizeof h);
    h.src_port = p->pport;
    h.dst_port = p->oport;
    h.seq = g->seq;
    h.ack = g->ack;
    h.flags = g->flags;
    h.window = g->win;
    CHECK(mip_tcp_opts_emit(&g->o, opts, sizeof opts, &written) == MIP_OK && written == optlen,
          "harness: options emit");
    CHECK(g->dlen <= sizeof data, "harness: %u data bytes", g->dlen);
    for (k = 0; k < g->dlen; k++)
        data[k] = pat_peer(first + k - (p->iss + 1u));
    pkt = tcph_frame(&src, &dst, &h, opts, optlen, data, g->dlen, &len);

    /* the peer's bookkeeping: what reached the stack */
    if ((g->flags & MIP_TCP_ACK) && p->syn_seen && MIP_SEQ_GT(g->ack, p->irs))
        p->acked_syn = true;
    if (g->flags & MIP_TCP_ACK) {
        uint32_t edge = g->ack + ((uint32_t)g->win <<
                                  ((g->flags & MIP_TCP_SYN) || !p->ws_ok ? 0u : p->peer_shift));
        if (MIP_SEQ_LEQ(g->ack, p->rcv_nxt))
            p->last_ack = g->ack;
        /* the window is a promise about our sequence space: not for ACKs
         * of nothing we sent */
        if (p->syn_seen && MIP_SEQ_GT(g->ack, p->irs) &&
            (!cur || MIP_SEQ_LEQ(g->ack, c->snd_max)) &&
            (MIP_SEQ_GT(edge, p->peer_edge) || !p->edge_set)) {
            p->peer_edge = edge;
            p->edge_set = true;
        }
    }
    {
        uint32_t end = first + g->dlen + ((g->flags & MIP_TCP_FIN) ? 1u : 0u);
        if (!(g->flags & MIP_TCP_RST) && MIP_SEQ_GT(end, p->snd_hi))
            p->snd_hi = end;
    }
    if (g->flags & MIP_TCP_SYN) {
        p->syn_sent = true;
        if (g->o.present & MIP_TCP_HAS_TIMESTAMP)
            p->tsr_t = H.t;
    }
    if (p->responsive && p->rexmt_at == 0 && MIP_SEQ_LT(p->snd_una, p->snd_hi))
        p->rexmt_at = H.t + 1000u;

    /* what the stack must do with it */
    memset(&ex, 0, sizeof ex);
    if (plausible && cur && sl->open && g->dlen > 0 && (g->flags & MIP_TCP_ACK) &&
        !(g->flags & (MIP_TCP_SYN | MIP_TCP_RST)) &&
        (c->state == MIP_TCP_ESTABLISHED || c->state == MIP_TCP_FIN_WAIT_1 ||
         c->state == MIP_TCP_FIN_WAIT_2) &&
        g->seq == c->rcv_nxt && MIP_SEQ_LEQ(g->seq + g->dlen, c->rcv_adv) &&
        MIP_SEQ_GEQ(g->ack, c->snd_una) && MIP_SEQ_LEQ(g->ack, c->snd_max) &&
        ((c->flags & TCPF_NO_READ) || (uint32_t)(c->rx.size - c->rx.len) >= g->dlen) &&
        !!(c->flags & TCPF_TS_OK) == !!(g->o.present & MIP_TCP_HAS_TIMESTAMP)) {
        ex.take = true;
        ex.end = g->seq + g->dlen;
        if ((c->flags & TCPF_TS_OK) && (int32_t)(g->o.ts_val - c->ts_recent) < 0) {
            /* PAWS may drop it, unless TS.Recent is too old to trust. The
             * stack learns that from its timers (keepalive answers keep it
             * fresh, else a 24-day timer marks it stale: docs/TCP.md), so
             * there is no promise when a poll came late past a deadline. */
            ex.idle = H.t - p->tsr_t >= IDLE_PAWS_MS && H.late_t <= p->tsr_t;
            ex.take = ex.idle && FUZZ_PEER_CHECK_LIVENESS;
        }
    }
    sl->in_chk = cur && c->state != MIP_TCP_SYN_SENT;
    sl->in_rcv_nxt = c->rcv_nxt;
    sl->in_edge = c->rcv_adv;
    if (verbose)
        fprintf(stderr, "    rx %c %s%s%s%s seq %u ack %u win %u opt %zu len %u%s at %llu ms"
                "%s%u\n", (char)('A' + i), (g->flags & MIP_TCP_SYN) ? "S" : "",
                (g->flags & MIP_TCP_FIN) ? "F" : "", (g->flags & MIP_TCP_RST) ? "R" : "",
                (g->flags & MIP_TCP_ACK) ? "." : "", g->seq, g->ack, g->win, optlen, g->dlen,
                ex.take ? " (must be taken)" : "", (unsigned long long)H.t,
                (g->o.present & MIP_TCP_HAS_TIMESTAMP) ? " TSval " : "",
                (g->o.present & MIP_TCP_HAS_TIMESTAMP) ? g->o.ts_val : 0u);
    {
        uint32_t tsr = c->ts_recent;
        H.in_rst_input = (g->flags & MIP_TCP_RST) != 0;
        mip_stack_input(&H.s, H.idx, pkt, len, H.now);
        H.in_rst_input = false;
        if (slot_is_peer(i) && c->ts_recent != tsr)
            p->tsr_t = H.t;
    }
    free(pkt);
    if (sl->in_chk && slot_is_peer(i))
        CHECK(MIP_SEQ_LEQ(c->rcv_nxt, sl->in_edge + 1u),
              "%c took data past the advertised edge: rcv_nxt %u, edge was %u", 'A' + i,
              c->rcv_nxt, sl->in_edge);
    sl->in_chk = false;
    if (ex.take && slot_is_peer(i) && sl->open &&
        (c->state == MIP_TCP_ESTABLISHED || c->state == MIP_TCP_FIN_WAIT_1 ||
         c->state == MIP_TCP_FIN_WAIT_2)) {
        if (ex.idle)
            CHECK(MIP_SEQ_GEQ(c->rcv_nxt, ex.end),
                  "%c: PAWS dropped an in-window segment after %llu ms without a timestamp "
                  "update (RFC 7323 5.5: TS.Recent is invalid after 24 days idle)",
                  'A' + i, (unsigned long long)(H.t - p->tsr_t));
        CHECK(MIP_SEQ_GEQ(c->rcv_nxt, ex.end),
              "%c: in-order segment [%u, %u) inside the window (edge %u) not taken: rcv_nxt "
              "%u (PAWS drops %u)",
              'A' + i, ex.end - g->dlen, ex.end, sl->in_edge, c->rcv_nxt,
              H.tcp.stat[MIP_TCP_STAT_drop_paws] - paws_before);
    }
}

/* --- the peer's behaviour ---------------------------------------------------- */

/* Its SYN (B) or SYN-ACK (A); a SYN-ACK settles the options. */
static void peer_send_syn(unsigned i)
{
    struct peer *p = &H.peer[i];
    struct pseg g;
    peer_syn_seg(p, &g);
    if (p->active) {
        p->ts_ok = (g.o.present & MIP_TCP_HAS_TIMESTAMP) != 0;
        p->sack_ok = (g.o.present & MIP_TCP_HAS_SACK_PERM) != 0;
        p->ws_ok = (g.o.present & MIP_TCP_HAS_WSCALE) != 0;
        if (!p->ws_ok)
            p->our_shift = 0;
    }
    peer_emit(i, &g, true);
}

static void peer_send_data(unsigned i, uint32_t seq, uint32_t len, bool fin, bool plausible)
{
    struct pseg g;
    peer_seg_init(&H.peer[i], &g, seq,
                  (uint8_t)((fin ? MIP_TCP_FIN : 0u) | (len > 0 ? MIP_TCP_PSH : 0u)));
    g.dlen = len;
    peer_emit(i, &g, plausible);
}

static void peer_send_ack(unsigned i)
{
    struct pseg g;
    peer_seg_init(&H.peer[i], &g, H.peer[i].snd_nxt, 0);
    peer_emit(i, &g, true);
}

/* Its handshake is done as far as it knows: our SYN arrived, and (A) our
 * ACK of its SYN-ACK. */
static bool peer_synced(const struct peer *p)
{
    return p->syn_seen && (!p->active || MIP_SEQ_GT(p->snd_una, p->iss));
}

/* New data in order, up to `want` bytes within the window we advertised,
 * in at most 8 segments, then FIN when `fin`. Returns the segments sent. */
static unsigned peer_new_data(unsigned i, uint32_t want, bool fin)
{
    struct peer *p = &H.peer[i];
    unsigned segs = 0;
    while (want > 0 && segs < 8 && p->live && !p->fin_sent) {
        uint32_t room = MIP_SEQ_GT(p->our_edge, p->snd_nxt) ? p->our_edge - p->snd_nxt : 0u;
        uint32_t len = want < room ? want : room, seq = p->snd_nxt;
        bool last;
        if (len > peer_seg_max(p))
            len = peer_seg_max(p);
        if (len == 0)
            break;
        last = len == want;
        p->snd_nxt += len;
        want -= len;
        if (fin && last) {
            p->fin_sent = true;
            p->fin_seq = p->snd_nxt++;
        }
        peer_send_data(i, seq, len, fin && last, true);
        segs++;
    }
    if (fin && !p->fin_sent && p->live) {
        p->fin_sent = true;
        p->fin_seq = p->snd_nxt++;
        peer_send_data(i, p->fin_seq, 0, true, true);
        segs++;
    }
    return segs;
}

/* Resends the first segment the stack has not acknowledged. */
static void peer_retransmit(unsigned i)
{
    struct peer *p = &H.peer[i];
    uint32_t data_end = p->fin_sent ? p->fin_seq : p->snd_nxt;
    if (!p->live)
        return;
    if (!MIP_SEQ_GT(p->snd_una, p->iss)) {
        if (!p->active || p->syn_seen)
            peer_send_syn(i);
        return;
    }
    if (MIP_SEQ_LT(p->snd_una, data_end)) {
        uint32_t len = data_end - p->snd_una;
        if (len > peer_seg_max(p))
            len = peer_seg_max(p);
        peer_send_data(i, p->snd_una, len, p->fin_sent && p->snd_una + len == p->fin_seq,
                       true);
    } else if (p->fin_sent && MIP_SEQ_LEQ(p->snd_una, p->fin_seq)) {
        peer_send_data(i, p->fin_seq, 0, true, true);
    }
}

/* What a TCP would do now: the next handshake step, else `want` new bytes
 * (and FIN), else an ACK. */
static void peer_auto(unsigned i, uint32_t want, bool fin)
{
    struct peer *p = &H.peer[i];
    if (!p->live)
        return;
    if (p->stale_rst && !p->syn_seen) {
        struct pseg g;
        memset(&g, 0, sizeof g);
        g.seq = p->stale_seq;
        g.flags = MIP_TCP_RST;
        p->stale_rst = false;
        peer_emit(i, &g, false);
    }
    if (p->active ? p->syn_seen && !MIP_SEQ_GT(p->snd_una, p->iss) : !p->syn_seen) {
        if (!p->active || p->syn_seen)
            peer_send_syn(i);
        return;
    }
    if (!p->syn_seen)
        return;
    if (peer_new_data(i, want, fin) == 0)
        peer_send_ack(i);
}

/* A responsive peer's answer, `lat` ms after something worth one. */
static void peer_reply(unsigned i)
{
    struct peer *p = &H.peer[i];
    p->reply_pending = false;
    peer_auto(i, 0, p->close_on_fin && p->fin_rcvd && !p->fin_sent && peer_synced(p));
}

static uint64_t peer_next_event(void)
{
    uint64_t next = UINT64_MAX;
    unsigned i;
    for (i = 0; i < NCONN; i++) {
        const struct peer *p = &H.peer[i];
        if (p->reply_pending && p->reply_at < next)
            next = p->reply_at;
        if (p->responsive && p->live && p->rexmt_at != 0 && p->rexmt_at < next)
            next = p->rexmt_at;
    }
    return next;
}

/* The peer's replies and retransmissions that are due. */
static void run_replies(void)
{
    unsigned i;
    for (i = 0; i < NCONN; i++) {
        struct peer *p = &H.peer[i];
        if (p->reply_pending && p->reply_at <= H.t)
            peer_reply(i);
        if (!p->responsive || !p->live || p->rexmt_at == 0 || p->rexmt_at > H.t)
            continue;
        if (!MIP_SEQ_LT(p->snd_una, p->snd_hi)) {
            p->rexmt_at = 0;
            continue;
        }
        if (++p->rexmt_n > PEER_RETRIES) {
            /* it gives up, as a TCP does */
            struct pseg g;
            peer_seg_init(p, &g, p->snd_nxt, MIP_TCP_RST);
            p->rexmt_at = 0;
            peer_emit(i, &g, false);
            p->live = false;
            continue;
        }
        p->rexmt_at = H.t + (p->rexmt_n < 6u ? 1000u << p->rexmt_n : 60000u);
        peer_retransmit(i);
    }
}

/* --- the application ---------------------------------------------------------- */

static struct slot *slot_from_conn(struct mip_tcp_conn *c, const char *what)
{
    int i = slot_of(c);
    CHECK(i >= 0, "%s callback for a struct the application never gave", what);
    CHECK(H.slot[i].open, "%s callback for %c after `closed` (state %s)", what, 'A' + i,
          mip_tcp_state_name(c->state));
    CHECK(c->ctx == &H.slot[i], "%s callback with a wrong ctx", what);
    return &H.slot[i];
}

/* When the peer's FIN has been read: every byte before it was. */
NOCOV static void check_read_all(unsigned i)
{
    const struct slot *sl = &H.slot[i];
    const struct peer *p = &H.peer[i];
    if (sl->open && !sl->no_read && slot_is_peer(i) && mip_tcp_peer_closed(&sl->c)) {
        CHECK(p->fin_sent, "%c: the stack took a FIN the peer never sent", 'A' + i);
        CHECK(sl->rd_off == p->fin_seq - (p->iss + 1u),
              "%c: the peer's FIN read after %u bytes, it sent %u", 'A' + i, sl->rd_off,
              p->fin_seq - (p->iss + 1u));
    }
}

NOCOV static size_t app_read(unsigned i, size_t n)
{
    struct slot *sl = &H.slot[i];
    uint8_t buf[RING_MAX];
    size_t k, j;
    if (n > sizeof buf)
        n = sizeof buf;
    k = mip_tcp_read(&H.tcp, &sl->c, buf, n);
    CHECK(k <= n, "read returned %zu for %zu", k, n);
    for (j = 0; j < k; j++)
        CHECK(buf[j] == pat_peer(sl->rd_off + (uint32_t)j),
              "%c: byte %u of the stream read is not what the peer sent", 'A' + i,
              sl->rd_off + (unsigned)j);
    sl->rd_off += (uint32_t)k;
    check_read_all(i);
    return k;
}

NOCOV static size_t app_write(unsigned i, size_t n)
{
    struct slot *sl = &H.slot[i];
    static uint8_t buf[16384];
    size_t k, j;
    if (n > sizeof buf)
        n = sizeof buf;
    for (j = 0; j < n; j++)
        buf[j] = pat_app(sl->wr_off + (uint32_t)j);
    sl->wr_pending = (uint32_t)n;
    k = mip_tcp_write(&H.tcp, &sl->c, buf, n);
    sl->wr_pending = 0;
    CHECK(k <= n, "write took %zu of %zu", k, n);
    sl->wr_off += (uint32_t)k;
    return k;
}

static void app_close(unsigned i)
{
    struct slot *sl = &H.slot[i];
    if (sl->c.state == MIP_TCP_CLOSED)
        return;
    sl->no_read = true;
    (void)mip_tcp_close(&H.tcp, &sl->c);
}

static void cb_connected(void *ctx, struct mip_tcp_conn *c)
{
    struct slot *sl = slot_from_conn(c, "connected");
    (void)ctx;
    (void)sl;
    CHECK(c->state == MIP_TCP_ESTABLISHED, "connected in %s", mip_tcp_state_name(c->state));
}

static void cb_readable(void *ctx, struct mip_tcp_conn *c)
{
    struct slot *sl = slot_from_conn(c, "readable");
    unsigned i = (unsigned)slot_of(c);
    (void)ctx;
    if (H.depth >= 4)
        return;
    H.depth++;
    if (sl->read_cb)
        (void)app_read(i, RING_MAX);
    if (sl->close_on_fin && mip_tcp_peer_closed(c) && c->state == MIP_TCP_CLOSE_WAIT)
        app_close(i);
    H.depth--;
}

static void cb_writable(void *ctx, struct mip_tcp_conn *c)
{
    (void)ctx;
    (void)slot_from_conn(c, "writable");
}

static void cb_error(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why)
{
    (void)ctx;
    (void)slot_from_conn(c, "error");
    CHECK(why > MIP_TCP_ERR_NONE && why <= MIP_TCP_ERR_ABORTED, "error reason %d", (int)why);
    CHECK(c->state == MIP_TCP_CLOSED, "error callback before the connection is closed");
}

static void cb_closed(void *ctx, struct mip_tcp_conn *c)
{
    struct slot *sl = slot_from_conn(c, "closed");
    (void)ctx;
    CHECK(c->state == MIP_TCP_CLOSED, "closed callback in %s", mip_tcp_state_name(c->state));
    CHECK(!(list_mask() & (1u << slot_of(c))), "closed callback while still listed");
    CHECK(c->next == NULL, "closed connection still has a next pointer");
    sl->open = false;
}

static const struct mip_tcp_callbacks app_cb = {cb_connected, cb_readable, cb_writable,
                                                cb_closed, cb_error};

static const uint16_t ring_sizes[4] = {512, 1024, 2048, 4096};
static const uint32_t ka_ms[4] = {0, 10000, 600000, 7200000};

/* Header byte [1 + i]: bits 0-1 rx ring, 2-3 tx ring, 4 no reassembly
 * bitmap, 5 nodelay, 6 delayed ACK off, 7 timestamps off; header [5]:
 * reading, closing and keepalive; header [6] bit 6: SACK off. */
static void slot_prepare(unsigned i)
{
    struct slot *sl = &H.slot[i];
    uint8_t cfg = H.hdr[1 + i], app = H.hdr[5];
    mip_tcp_conn_init(&sl->c, &app_cb, sl, sl->tx, ring_sizes[(cfg >> 2) & 3u], sl->rx,
                      (cfg & 0x10u) ? NULL : sl->bm, ring_sizes[cfg & 3u]);
    sl->c.cfg.nodelay = (cfg & 0x20u) != 0;
    if (cfg & 0x40u)
        sl->c.cfg.delack_ms = 0;
    if (cfg & 0x80u)
        sl->c.cfg.timestamps = false;
    if (H.hdr[6] & 0x40u)
        sl->c.cfg.sack = false;
    sl->c.cfg.keepalive_ms = ka_ms[(app >> (4u + 2u * i)) & 3u];
    sl->read_cb = (app >> i) & 1u;
    sl->close_on_fin = (app >> (2u + i)) & 1u;
    sl->no_read = false;
    sl->open = true;
    sl->wr_off = sl->rd_off = 0;
}

static struct mip_tcp_conn *app_accept(struct mip_tcp_listener *l, struct mip_tcp *tcp,
                                       uint16_t port)
{
    struct slot *sl = &H.slot[1];
    CHECK(l == &H.l && tcp == &H.tcp && port == LISTEN_PORT, "accept context");
    if (sl->open || sl->c.state != MIP_TCP_CLOSED)
        return NULL;
    slot_prepare(1);
    return &sl->c;
}

/* --- invariants ------------------------------------------------------------------ */

/* Something waits for the peer, so a timer must be armed that ends the
 * wait: the retransmission timer (or persist), keepalive. */
NOCOV static void check_timers(unsigned i, const struct mip_tcp_conn *c)
{
    bool rexmt = (c->flags & TCPF_REXMT) != 0;
    const char *st = mip_tcp_state_name(c->state);
    if (c->state == MIP_TCP_SYN_SENT || c->state == MIP_TCP_SYN_RECEIVED)
        CHECK(rexmt, "%c: %s without a retransmission timer", 'A' + i, st);
    CHECK(rexmt || c->snd_max == c->snd_una,
          "%c: %u sequence numbers unacknowledged in %s and no retransmission timer", 'A' + i,
          c->snd_max - c->snd_una, st);
    CHECK(rexmt || c->tx.len == 0, "%c: %u bytes wait to be sent in %s and no timer", 'A' + i,
          c->tx.len, st);
    if (c->state == MIP_TCP_FIN_WAIT_1 || c->state == MIP_TCP_CLOSING ||
        c->state == MIP_TCP_LAST_ACK)
        CHECK(rexmt, "%c: our FIN unacknowledged in %s and no retransmission timer", 'A' + i,
              st);
#if MIP_TCP_SACK
    /* a tail loss probe's timeout stands in for the RTO only with data in
     * flight, outside recovery, persist and an RTO's retransmissions
     * (src/tcp/tlp.c), and is never later than the RTO */
    if (c->flags & TCPF_PTO) {
        CHECK(rexmt && !(c->flags & TCPF_PERSIST) && !c->cc.in_recovery && c->retries == 0 &&
                  c->snd_max != c->snd_una,
              "%c: probe timeout in %s with flags %#x, recovery %u, retries %u, %u in flight",
              'A' + i, st, c->flags, c->cc.in_recovery, c->retries, c->snd_max - c->snd_una);
        CHECK(mip_next_delay(MIP_POLL_IDLE, H.now, c->t_rexmt) <= MIP_TCP_RTO_MAX_MS,
              "%c: probe timeout due beyond the RTO maximum", 'A' + i);
    }
#endif
#if FUZZ_PEER_CHECK_LIVENESS
    /* armed by the next poll (docs/TCP.md, Liveness) */
    if (H.polled && c->state == MIP_TCP_FIN_WAIT_2 && (c->flags & TCPF_NO_READ))
        CHECK(c->flags & (TCPF_REXMT | TCPF_IDLE),
              "%c: FIN_WAIT_2 after mip_tcp_close with no timer to end it (issue 12 #2)",
              'A' + i);
#endif
}

NOCOV static void check_conn(unsigned i)
{
    const struct mip_tcp_conn *c = &H.slot[i].c;
    const struct peer *p = &H.peer[i];
    uint32_t room = (uint32_t)c->rx.size - c->rx.len;
    CHECK(c->state > MIP_TCP_CLOSED && c->state < MIP_TCP_TIME_WAIT, "%c listed in state %u",
          'A' + i, c->state);
    CHECK(MIP_SEQ_LEQ(c->snd_una, c->snd_nxt) && MIP_SEQ_LEQ(c->snd_nxt, c->snd_max),
          "%c: snd_una %u, snd_nxt %u, snd_max %u out of order", 'A' + i, c->snd_una,
          c->snd_nxt, c->snd_max);
    CHECK(c->snd_max - c->snd_una <= (uint32_t)c->tx.len + 2u,
          "%c: %u in flight, the ring holds %u (+SYN, FIN)", 'A' + i, c->snd_max - c->snd_una,
          c->tx.len);
    CHECK(c->tx.len <= c->tx.size && c->rx.len <= c->rx.size, "%c: ring lengths", 'A' + i);
    CHECK(c->rx.ooo_end <= room, "%c: ooo_end %u > room %u", 'A' + i, c->rx.ooo_end, room);
    tcph_check_rx_bits(c);
    CHECK(c->cc.mss >= 64, "%c: mss %u", 'A' + i, c->cc.mss);
    CHECK(!(c->flags & TCPF_FIN_SENT) || (c->flags & TCPF_FIN_QUEUED),
          "%c: FIN sent but not queued", 'A' + i);
    if (c->state != MIP_TCP_SYN_SENT) {
        uint32_t wnd = c->rcv_adv - c->rcv_nxt;
        CHECK(MIP_SEQ_GEQ(c->rcv_adv, c->rcv_nxt), "%c (%s): rcv_nxt %u beyond rcv_adv %u",
              'A' + i, mip_tcp_state_name(c->state), c->rcv_nxt, c->rcv_adv);
#if FUZZ_PEER_CHECK_AGREED
        CHECK((c->flags & TCPF_NO_READ) || wnd <= room,
              "%c (%s): advertised window %u, the ring has room for %u (issue 12 #7)", 'A' + i,
              mip_tcp_state_name(c->state), wnd, room);
#else
        CHECK((c->flags & TCPF_NO_READ) || wnd <= (room > 1024u ? room : 1024u),
              "%c (%s): advertised window %u, the ring has room for %u", 'A' + i,
              mip_tcp_state_name(c->state), wnd, room);
#endif
    }
    if (slot_is_peer(i) && p->live && p->syn_sent && c->state != MIP_TCP_SYN_SENT) {
        /* the stack has nothing the peer did not send, and the peer
         * acknowledged nothing it did not get */
        CHECK(MIP_SEQ_LEQ(c->rcv_nxt, p->snd_hi), "%c: rcv_nxt %u but the peer sent up to %u",
              'A' + i, c->rcv_nxt, p->snd_hi);
        if (p->syn_seen)
            CHECK(MIP_SEQ_LEQ(c->snd_una, p->rcv_nxt),
                  "%c: snd_una %u but the peer received up to %u", 'A' + i, c->snd_una,
                  p->rcv_nxt);
    }
#if MIP_TCP_SACK
    {
        const struct mip_tcp_sackb *b = &c->sackb;
        unsigned n = tcp_sackb_count(b), k;
        for (k = 0; k < n; k++) {
            CHECK(b->start_off[k] < b->end_off[k], "%c: empty SACK block", 'A' + i);
            CHECK(k == 0 || b->end_off[k - 1] < b->start_off[k], "%c: SACK blocks unsorted",
                  'A' + i);
        }
    }
#endif
    check_timers(i, c);
    check_read_all(i);
}

NOCOV static void check_all(void)
{
    unsigned mask = list_mask(), i, in_use = 0;
    for (i = 0; i < NCONN; i++) {
        const struct slot *sl = &H.slot[i];
        if (mask & (1u << i)) {
            CHECK(sl->open, "%c listed after its `closed` callback", 'A' + i);
            check_conn(i);
        } else {
            CHECK(sl->c.state == MIP_TCP_CLOSED, "%c unlisted in state %s", 'A' + i,
                  mip_tcp_state_name(sl->c.state));
            CHECK(!sl->open, "%c ended without a `closed` callback", 'A' + i);
        }
    }
#if MIP_TCP_SACK
    tcph_check_tlp_slot(&H.tcp);
#endif
    /* held no longer than documented: a SYN cache entry's next SYN-ACK
     * within the RTO maximum, a TIME_WAIT record within 2 MSL */
    for (i = 0; i < MIP_TCP_SYN_BACKLOG; i++)
        if (H.tcp.syn[i].flags & TCPS_USED)
            CHECK(mip_next_delay(MIP_POLL_IDLE, H.now, H.tcp.syn[i].deadline) <=
                      MIP_TCP_RTO_MAX_MS,
                  "SYN cache entry %u due in more than %u ms", i, MIP_TCP_RTO_MAX_MS);
    for (i = 0; i < MIP_TCP_TIMEWAIT_MAX; i++)
        if (H.tcp.tw[i].used)
            CHECK(mip_next_delay(MIP_POLL_IDLE, H.now, H.tcp.tw[i].deadline) <=
                      2u * MIP_TCP_MSL_MS,
                  "TIME_WAIT record %u due in more than 2 MSL", i);
    for (i = 0; i < MIP_PBUF_COUNT; i++)
        if (H.s.pool.buf[i].in_use)
            in_use++;
    CHECK(in_use == H.s.pool.in_use && in_use == 0, "%u packet buffers in use (count %u)",
          in_use, H.s.pool.in_use);
}

/* The earliest TCP deadline pending, as a delay from now. */
static uint32_t tcp_pending_now(void)
{
    (void)list_mask();
    return tcph_pending(&H.tcp, H.now);
}

static uint32_t poll_checked(void)
{
    uint32_t d = mip_stack_poll(&H.s, H.now), want;
    H.polled = true;
    check_all();
    H.polled = false;
    want = tcp_pending_now();
    CHECK(d <= want, "poll returned %u ms but a TCP deadline is %u ms away", d, want);
    if (d == 0) {
        d = mip_stack_poll(&H.s, H.now);
        check_all();
        CHECK(d != 0, "poll(now) twice in a row still reports a due timer");
    }
    return d;
}

/* Lets `ms` pass: an event loop over the stack's deadlines and the peer's
 * replies and retransmissions, at most `steps` of them; the rest (or all
 * of it with `jump`) passes without polling on the way, in steps below
 * 2^31 ms so every deadline is still seen as reached. */
static void advance(uint64_t ms, bool jump, unsigned steps)
{
    uint64_t target = H.t + ms;
    unsigned n;
    for (n = 0; !jump && n < steps; n++) {
        uint32_t d = poll_checked();
        uint64_t next = d == MIP_POLL_IDLE ? UINT64_MAX : H.t + d, pe = peer_next_event();
        if (pe < next)
            next = pe;
        if (next > target)
            break;
        if (next > H.t)
            set_time(next);
        H.frames_this_op = 0;
        run_replies();
        check_all();
    }
    while (H.t < target) {
        uint64_t step = target - H.t;
        uint32_t due = tcp_pending_now();
        if (step > JUMP_MAX)
            step = JUMP_MAX;
        if (due != MIP_POLL_IDLE && step > due)
            H.late_t = H.t + step;      /* a deadline passes unpolled */
        set_time(H.t + step);
        (void)poll_checked();
        H.frames_this_op = 0;
    }
    (void)poll_checked();
    run_replies();
}

/* --- opening ---------------------------------------------------------------------- */

static const uint32_t start_wnd[4] = {65535u, 4096u, 1000u, 0u};

/* A new incarnation of connection i: the peer forgets the old one. */
static void peer_reset(unsigned i, uint8_t family, uint8_t opt_xor)
{
    struct peer *p = &H.peer[i];
    static const uint16_t mss[4] = {1460, 536, 100, 536};
    static const uint8_t shift[4] = {0, 2, 7, 14};
    uint8_t h0 = H.hdr[0];
    static const uint32_t lat[4] = {1, 20, 100, 500};
    memset(p, 0, sizeof *p);
    p->live = true;
    p->active = i == 0;
    p->family = family;
    p->opt = (uint8_t)(H.hdr[3 + i] ^ opt_xor);
    p->pport = p->active ? (uint16_t)PEER_PORT : (uint16_t)(40000u + H.gen[i] % 20000u);
    p->oport = p->active ? 0u : (uint16_t)LISTEN_PORT;
    p->iss = ((p->opt & 0x80u) ? 0xFFFFFF00u : 0x00100000u) + H.iss_gen[i] * 0x01000193u;
    p->snd_una = p->iss;
    p->snd_nxt = p->iss + 1u;
    p->snd_hi = p->iss;
    p->peer_mss = mss[p->opt & 3u];
    p->peer_shift = (p->opt & 0x04u) ? shift[(p->opt >> 3) & 3u] : 0u;
    p->wnd = start_wnd[(H.hdr[6] >> 4) & 3u];
    if (p->wnd == 65535u && (p->opt & 0x04u))
        p->wnd = 65535u << p->peer_shift;
    p->ts_clock = 0x7FFFF000u + (uint32_t)H.t + H.iss_gen[i] * 7919u + i * 100000u;
    p->responsive = (h0 & 0x10u) != 0;
    p->lat = lat[(h0 >> 5) & 3u];
    p->close_on_fin = (h0 & 0x80u) != 0;
    p->tsr_t = H.t;
}

/* A: we connect to the peer; B: the peer connects to our listener. */
static void open_conn(unsigned i, uint8_t x)
{
    struct slot *sl = &H.slot[i];
    uint8_t fam = (((H.hdr[0] >> (2u + i)) & 1u) ^ (x & 1u)) ? MIP_AF_INET6 : MIP_AF_INET;
    if (sl->open || sl->c.state != MIP_TCP_CLOSED)
        return;
    /* B with x bit 2: the port of the previous incarnation again (our
     * TIME_WAIT record, if we closed first, meets the new SYN) */
    if (i == 0 || !(x & 4u) || H.gen[i] == 0)
        H.gen[i]++;
    H.iss_gen[i]++;
    peer_reset(i, fam, (uint8_t)(((x >> 1) & 1u) * 0x25u));
    if (i == 0) {
        struct mip_addr dst;
        peer_addr(&H.peer[0], &dst);
        slot_prepare(0);
        if (mip_tcp_connect(&H.tcp, &sl->c, &dst, PEER_PORT) != MIP_OK) {
            sl->open = false;
            H.peer[0].live = false;
            return;
        }
        H.peer[0].oport = sl->c.lport;
    } else {
        peer_send_syn(1);
    }
}

/* --- the operations ---------------------------------------------------------------- */

/* op AUTO: new bytes the peer sends (UINT32_MAX: all the window takes, in
 * at most 8 segments); 7 is FIN */
static const uint32_t auto_data[8] = {0, 1, 100, 536, 1220, 3000, UINT32_MAX, 0};

/* op ACK: a segment from the peer with the ACK, window, timestamp and SACK
 * the input picks (and the window stays what it set). */
static void op_ack(unsigned i, struct cur *in)
{
    struct peer *p = &H.peer[i];
    const struct mip_tcp_conn *c = &H.slot[i].c;
    uint8_t m = u8(in), v = u8(in);
    struct pseg g;
    uint32_t ack;
    if (!p->syn_seen)
        return;
    switch (m & 3u) {
    case 0: ack = p->rcv_nxt; break;
    case 1:     /* between the last one and all it has: never more */
        ack = p->last_ack + (uint32_t)(((uint64_t)(p->rcv_nxt - p->last_ack) * v) >> 8);
        break;
    case 2: ack = p->last_ack - (uint32_t)v * 16u; break;        /* v 0: a duplicate */
    default: ack = (slot_is_peer(i) ? c->snd_max : p->rcv_nxt) + 1u + v; break;
    }
    switch ((m >> 2) & 7u) {
    case 0: break;
    case 1: p->wnd = p->ws_ok ? 65535u << p->peer_shift : 65535u; break;
    case 2: p->wnd = 0; break;
    case 3: p->wnd = 1; break;
    case 4: p->wnd = (uint32_t)v * 16u; break;
    case 5: p->wnd /= 2u; break;
    case 6: p->wnd = 4096; break;
    default: {
        /* shrink: the right edge moves left of where it was */
        uint32_t right = MIP_SEQ_GT(p->peer_edge, ack) ? p->peer_edge - ack : 0u;
        p->wnd = right > (uint32_t)v * 16u ? right - (uint32_t)v * 16u : 0u;
        break;
    }
    }
    peer_seg_init(p, &g, p->fin_sent ? p->fin_seq + 1u : p->snd_nxt, 0);
    g.ack = ack;
    if (p->ts_ok) {
        switch ((m >> 5) & 3u) {
        case 0: break;
        case 1: g.o.present &= (uint8_t)~MIP_TCP_HAS_TIMESTAMP; break;
        case 2: g.o.ts_val -= 1u + (uint32_t)v * 256u; break;     /* old: PAWS */
        default:                                                  /* its clock jumps */
            p->ts_clock += (uint32_t)v << 20;
            g.o.ts_val = peer_ts(p);
            break;
        }
    }
    if ((m & 0x80u) && p->sack_ok) {
        /* SACK blocks the stack must ignore: beyond what it sent, below what
         * was acknowledged, inverted */
        uint32_t base = slot_is_peer(i) ? c->snd_una : p->rcv_nxt;
        g.o.present |= MIP_TCP_HAS_SACK;
        g.o.sack_count = p->ts_ok ? 3u : 4u;
        g.o.sack[0].left = base + 100000u;
        g.o.sack[0].right = base + 100000u + v;
        g.o.sack[1].left = base - 5000u;
        g.o.sack[1].right = base - 4000u + v;
        g.o.sack[2].left = base + 2000u + v;
        g.o.sack[2].right = base + 1000u;
        g.o.sack[3].left = base + 1u;
        g.o.sack[3].right = base + 1u + v;
    }
    peer_emit(i, &g, false);
}

/* op DATA: the peer's data, in or out of order, in or out of the window */
static void op_data(unsigned i, unsigned x, struct cur *in)
{
    struct peer *p = &H.peer[i];
    uint8_t n = u8(in);
    uint32_t len = n <= 200u ? n : (uint32_t)(n - 200u) * 25u;
    uint32_t room = MIP_SEQ_GT(p->our_edge, p->snd_nxt) ? p->our_edge - p->snd_nxt : 0u;
    struct pseg g;
    if (!p->syn_seen || (p->active && !p->syn_sent))
        return;
    if (p->fin_sent && x != 2 && x != 3 && x != 5) {
        peer_retransmit(i);
        return;
    }
    switch (x) {
    case 0:     /* in order, within window and MSS (a 1-byte probe when closed) */
    case 1:     /* the same, with FIN */
        if (len > room)
            len = room;
        if (len > peer_seg_max(p))
            len = peer_seg_max(p);
        if (len == 0 && room == 0 && x == 0)
            len = 1;
        {
            uint32_t seq = p->snd_nxt;
            p->snd_nxt += len;
            if (x == 1) {
                p->fin_sent = true;
                p->fin_seq = seq + len;
                p->snd_nxt = p->fin_seq + 1u;
            }
            peer_send_data(i, seq, len, x == 1, true);
        }
        break;
    case 2:     /* a retransmission from what the stack acknowledged */
        peer_retransmit(i);
        break;
    case 3:     /* past the right edge we advertised */
        peer_send_data(i, p->our_edge + n, len ? len : 1u, false, false);
        break;
    case 4:     /* lost on the way: a hole the stack sees later */
        if (len > peer_seg_max(p))
            len = peer_seg_max(p);
        if (len > room)
            len = room;
        p->snd_nxt += len;
        break;
    case 5:     /* old: entirely below what the stack acknowledged */
        if (MIP_SEQ_GT(p->snd_una, p->iss + 1u)) {
            uint32_t back = p->snd_una - (p->iss + 1u);
            if (len > back)
                len = back;
            peer_send_data(i, p->snd_una - len, len, false, false);
        }
        break;
    case 6:     /* in order, ignoring window and MSS */
        peer_send_data(i, p->snd_nxt, len, false, false);
        p->snd_nxt += len;
        break;
    default:    /* in order with an old timestamp (PAWS must drop it) */
        if (len > room)
            len = room;
        if (len > peer_seg_max(p))
            len = peer_seg_max(p);
        peer_seg_init(p, &g, p->snd_nxt, MIP_TCP_PSH);
        g.dlen = len;
        g.o.ts_val -= 1u + n;
        peer_emit(i, &g, false);
        /* Without timestamps, or with TS.Recent stale (24 idle days), PAWS
         * has nothing to drop it with: the stack took it in order, so it is
         * part of the peer's stream from now on (a later FIN "without the
         * data before it" must lie past it). */
        if (len > 0 && H.slot[i].open && H.slot[i].c.rcv_nxt == p->snd_nxt + len)
            p->snd_nxt += len;
        break;
    }
}

/* op RST: resets and SYNs at any moment */
static void op_rst(unsigned i, unsigned x, struct cur *in)
{
    struct peer *p = &H.peer[i];
    uint8_t v = u8(in);
    struct pseg g;
    uint32_t seq = p->fin_sent ? p->fin_seq + 1u : p->snd_nxt;
    if (p->active && p->syn_seen && !p->syn_sent && p->live) {
        /* nobody listens: RST answering our SYN (connection refused) */
        memset(&g, 0, sizeof g);
        g.flags = MIP_TCP_RST | MIP_TCP_ACK;
        g.ack = p->irs + 1u + (x == 2 ? 1000u + v : 0u);   /* 2: a wrong ACK */
        peer_emit(i, &g, false);
        if (x != 2)
            p->live = false;
        return;
    }
    if (!p->syn_sent)
        return;
    switch (x) {
    case 0: case 6: case 7:     /* exact: the peer aborts */
        peer_seg_init(p, &g, seq, MIP_TCP_RST);
        g.o.present = 0;
        if (x == 7)
            g.flags = MIP_TCP_RST;     /* without ACK */
        peer_emit(i, &g, false);
        p->live = false;
        break;
    case 1:                      /* in the window, not exact: a challenge ACK */
        peer_seg_init(p, &g, seq + 1u + v, MIP_TCP_RST);
        g.o.present = 0;
        peer_emit(i, &g, false);
        break;
    case 2:                      /* far outside */
        peer_seg_init(p, &g, seq + 0x40000000u + v, MIP_TCP_RST);
        g.o.present = 0;
        peer_emit(i, &g, false);
        break;
    case 3:                      /* a SYN in the window (RFC 5961 4.2) */
        if (!slot_is_peer(i))
            break;              /* a new handshake the peer would not know */
        peer_seg_init(p, &g, seq + v, 0);
        g.flags = MIP_TCP_SYN;
        g.ack = 0;
        peer_emit(i, &g, false);
        break;
    case 4:                      /* its SYN / SYN-ACK again */
        if (p->live && (p->active ? p->syn_seen : !p->acked_syn))
            peer_send_syn(i);
        break;
    default:                     /* a FIN without the data before it */
        peer_seg_init(p, &g, seq + 1u + v, MIP_TCP_FIN);
        peer_emit(i, &g, false);
        break;
    }
}

static void op_time(unsigned x, struct cur *in)
{
    static const uint32_t unit[8] = {1, 10, 100, 1000, 10000, 60000, 3600000, DAY_MS};
    uint8_t v = u8(in);
    advance((uint64_t)unit[v >> 5] * ((v & 31u) + 1u), (x & 1u) != 0, MAX_STEPS);
}

static const uint32_t write_sizes[8] = {1, 10, 100, 536, 1000, 2000, 4096, 16384};
static const uint32_t read_sizes[4] = {1, 10, 100, 536};

static void op_app(unsigned i, unsigned k, unsigned x)
{
    struct slot *sl = &H.slot[i];
    struct peer *p = &H.peer[i];
    if (k == 12) {
        open_conn(i, (uint8_t)x);
        return;
    }
    if (!sl->open)
        return;
    switch (k) {
    case 7:
        (void)app_write(i, write_sizes[x]);
        break;
    case 8:
        if (x < 4)
            (void)app_read(i, read_sizes[x]);
        else if (x == 4)
            (void)app_read(i, RING_MAX);
        else if (x == 5)
            sl->read_cb = !sl->read_cb;
        else
            sl->close_on_fin = !sl->close_on_fin;
        break;
    case 9:
        if (x == 0)
            (void)mip_tcp_shutdown(&H.tcp, &sl->c);
        else if (x == 1)
            mip_tcp_abort(&H.tcp, &sl->c);
        else
            app_close(i);
        break;
    default:    /* 10 */
        if (x < 4)
            sl->c.cfg.keepalive_ms = ka_ms[x];
        else if (x == 4)
            sl->c.cfg.nodelay = !sl->c.cfg.nodelay;
        else if (x == 5)
            sl->c.cfg.delack_ms = sl->c.cfg.delack_ms ? 0u : MIP_TCP_DELACK_MS;
        else if (x == 6)
            p->close_on_fin = !p->close_on_fin;
        else
            p->responsive = !p->responsive;
        break;
    }
}

static void op_net(unsigned i, unsigned x)
{
    static const uint32_t lat[4] = {1, 30, 300, 3000};
    struct peer *p = &H.peer[i];
    switch (x) {
    case 0: p->lose += 1; break;
    case 1: p->lose += 2; break;
    case 2: p->lose += 4; break;
    case 3: p->blackhole = !p->blackhole; break;
    default:
        p->responsive = true;
        p->lat = lat[x - 4];
        break;
    }
}

/* op WINDOW: the peer's window changes and it says so */
static void op_window(unsigned i, unsigned x)
{
    static const uint32_t w[8] = {0, 1, 100, 536, 1024, 4096, 65535, 0xFFFFFFFFu};
    struct peer *p = &H.peer[i];
    p->wnd = w[x] == 0xFFFFFFFFu ? (p->ws_ok ? 65535u << p->peer_shift : 65535u) : w[x];
    if (p->live && peer_synced(p))
        peer_send_ack(i);
}

static void run_op(struct cur *in)
{
    uint8_t op = u8(in);
    unsigned k = op & 15u, i = (op >> 4) & 1u, x = op >> 5;
    H.frames_this_op = 0;
    if (verbose)
        fprintf(stderr, "  op %u %c x %u at %llu ms\n", k, 'A' + i, x,
                (unsigned long long)H.t);
    switch (k) {
    case 2: op_ack(i, in); break;
    case 3: op_data(i, x, in); break;
    case 4: op_rst(i, x, in); break;
    case 5: case 6: op_time(x, in); break;
    case 7: case 8: case 9: case 10: case 12: op_app(i, k, x); break;
    case 11: op_net(i, x); break;
    case 13: op_window(i, x); break;
    default:    /* 0, 1, 14, 15 */
        peer_auto(i, auto_data[x], x == 7);
        break;
    }
    check_all();
    if (verbose) {
        unsigned j;
        for (j = 0; j < NCONN; j++) {
            const struct mip_tcp_conn *c = &H.slot[j].c;
            if (c->state != MIP_TCP_CLOSED)
                fprintf(stderr, "    %c %s flags 0x%04x una %u nxt %u max %u wnd %u rcv_nxt %u "
                        "rcv_adv %u tx %u/%u rx %u/%u ts_recent %u\n", 'A' + j,
                        mip_tcp_state_name(c->state), c->flags, c->snd_una, c->snd_nxt,
                        c->snd_max, c->snd_wnd, c->rcv_nxt, c->rcv_adv, c->tx.len, c->tx.size,
                        c->rx.len, c->rx.size, c->ts_recent);
        }
    }
}

/* --- setup and the silent tail ------------------------------------------------------- */

static void setup(void)
{
    struct mip_stack_config cfg;
    struct mip_addr a, gw, any;
    uint8_t pfx, entropy[16] = {'m', 'o', 't', 'e', 'i', 'p', '-', 'p',
                                'e', 'e', 'r', '-', 'f', 'u', 'z', 'z'};
    entropy[15] ^= H.hdr[7];
    set_time(0);
    memset(&cfg, 0, sizeof cfg);
    cfg.entropy = entropy;
    cfg.entropy_len = sizeof entropy;
    mip_stack_init(&H.s, &cfg, H.now);
    CHECK(mip_netif_add_rawip(&H.s, RAWIP_MTU, our_iid, &drv, &H, &H.idx) == MIP_OK, "netif");
    CHECK(mip_addr_parse("192.0.2.2/24", &a, &pfx) == MIP_OK &&
              mip_netif_add_addr(&H.s, H.idx, &a, pfx) == MIP_OK,
          "add 192.0.2.2/24");
    CHECK(mip_addr_parse("fd00::2/64", &a, &pfx) == MIP_OK &&
              mip_netif_add_addr(&H.s, H.idx, &a, pfx) == MIP_OK,
          "add fd00::2/64");
    CHECK(mip_addr_parse("192.0.2.1", &gw, NULL) == MIP_OK &&
              mip_addr_parse("0.0.0.0", &any, NULL) == MIP_OK &&
              mip_route_add(&H.s, &any, 0, &gw, H.idx) == MIP_OK,
          "default route v4");
    CHECK(mip_addr_parse("fd00::1", &gw, NULL) == MIP_OK &&
              mip_addr_parse("::", &any, NULL) == MIP_OK &&
              mip_route_add(&H.s, &any, 0, &gw, H.idx) == MIP_OK,
          "default route v6");
    CHECK(mip_tcp_init(&H.tcp, &H.s) == MIP_OK, "tcp init");
    CHECK(mip_tcp_listen(&H.tcp, &H.l, LISTEN_PORT, ring_sizes[H.hdr[2] & 3u], app_accept) ==
              MIP_OK,
          "listen");
    if ((H.hdr[0] & 3u) != 1u)
        open_conn(0, 0);
    if ((H.hdr[0] & 3u) != 0u)
        open_conn(1, 0);
    check_all();
}

/* The application's last act (header [6]), then the peer falls silent. */
static void tail(void)
{
    unsigned i;
    for (i = 0; i < NCONN; i++) {
        struct peer *p = &H.peer[i];
        p->responsive = false;
        p->blackhole = true;
        p->reply_pending = false;
    }
    for (i = 0; i < NCONN; i++) {
        struct slot *sl = &H.slot[i];
        struct mip_tcp_conn *c = &sl->c;
        unsigned act = (H.hdr[6] >> (2u * i)) & 3u;
        if (!sl->open)
            continue;
        H.frames_this_op = 0;
        if (act == 1 || act == 2) {
            size_t k = app_write(i, 1000);
            if (act == 2 && k == 0 && c->snd_una == c->snd_max &&
                c->state != MIP_TCP_SYN_SENT && c->state != MIP_TCP_SYN_RECEIVED)
                act = 0;    /* nothing to wait for: close instead */
        } else if (act == 3) {
            if (c->state == MIP_TCP_ESTABLISHED || c->state == MIP_TCP_CLOSE_WAIT)
                c->cfg.keepalive_ms = TAIL_KA_MS;
            else
                act = 0;
        }
        if (act <= 1 && sl->open)
            app_close(i);
        check_all();
    }
    if (verbose)
        fprintf(stderr, "  silent tail: %u ms\n", (unsigned)TAIL_MS);
    advance(TAIL_MS, false, 4096);
    for (i = 0; i < NCONN; i++) {
        struct slot *sl = &H.slot[i];
#if FUZZ_PEER_CHECK_LIVENESS
        CHECK(!sl->open,
              "%c still %s (flags 0x%04x) %u ms after the peer fell silent: no timer ends it",
              'A' + i, mip_tcp_state_name(sl->c.state), sl->c.flags, (unsigned)TAIL_MS);
#else
        if (sl->open)
            mip_tcp_abort(&H.tcp, &sl->c);
#endif
    }
    check_all();
    for (i = 0; i < MIP_TCP_SYN_BACKLOG; i++)
        CHECK(!(H.tcp.syn[i].flags & TCPS_USED), "SYN cache entry %u still used at the end", i);
    for (i = 0; i < MIP_TCP_TIMEWAIT_MAX; i++)
        CHECK(!H.tcp.tw[i].used, "TIME_WAIT record %u still used at the end", i);
    CHECK(H.tcp.conns == NULL, "connections still listed at the end");
    CHECK(mip_stack_poll(&H.s, H.now) == MIP_POLL_IDLE, "a timer still pending at the end");
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
    unsigned nops = 0, i;
    memset(&H, 0, sizeof H);
    in.p = data;
    in.n = size;
    in.pos = 0;
    for (i = 0; i < sizeof H.hdr; i++)
        H.hdr[i] = u8(&in);
    setup();
    while (in.pos < in.n && nops < MAX_OPS) {
        run_op(&in);
        nops++;
    }
    tail();
    return 0;
}
