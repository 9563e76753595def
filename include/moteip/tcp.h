/*
 * TCP (RFC 9293) for moteip: an event API over application-owned memory.
 *
 * A `struct mip_tcp` is the TCP of one stack instance; it attaches to the
 * stack with mip_tcp_init() (as the handler of IP protocol 6 and a poller
 * of its timers). It owns no connection memory: the application hands in
 * each connection struct together with its send ring, receive ring and the
 * receive ring's reassembly bitmap (TCPlp's design; no heap anywhere).
 *
 *   active open   mip_tcp_conn_init(c, ...buffers...); mip_tcp_connect(tcp, c, dst, port)
 *   passive open  mip_tcp_listen(tcp, l, port, rx_size, accept_fn): a SYN is
 *                 answered from a bounded SYN cache inside struct mip_tcp;
 *                 only when the handshake completes is accept_fn asked for
 *                 a connection struct, so a SYN flood cannot take memory
 *                 from established connections (RFC 4987 2.3).
 *   data          mip_tcp_write / mip_tcp_read, with readable / writable
 *                 callbacks
 *   ending        mip_tcp_shutdown (send FIN, keep reading), mip_tcp_close
 *                 (FIN, stop reading), mip_tcp_abort (RST). The `closed`
 *                 callback says the struct and its buffers are free again.
 *
 * Callbacks run inside mip_stack_input / mip_stack_poll; they may call any
 * function here, including write, close and abort on their own connection.
 */
#ifndef MOTEIP_TCP_H
#define MOTEIP_TCP_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/config.h"
#include "moteip/status.h"
#include "moteip/addr.h"
#include "moteip/timer.h"
#include "moteip/tcp_parts.h"

struct mip_stack;
struct mip_tcp;
struct mip_tcp_conn;

/* --- compile-time switches (see config.h for the profiles) ------------- */

/* SACK (RFC 2018) both ways: the receiver's blocks and the sender's
 * scoreboard (RFC 6675 recovery). Cortex-M0+ full profile: 1,160 B of code
 * (the scoreboard and the SACK-block builder are compiled only with it)
 * and 24 B per connection. */
#ifndef MIP_TCP_SACK
#define MIP_TCP_SACK MIP_PROFILE_DEFAULT(0, 1)
#endif
#ifndef MIP_TCP_TIMESTAMPS
#define MIP_TCP_TIMESTAMPS MIP_PROFILE_DEFAULT(0, 1)  /* RFC 7323 TS + PAWS */
#endif
#ifndef MIP_TCP_WSCALE
#define MIP_TCP_WSCALE MIP_PROFILE_DEFAULT(0, 1)      /* RFC 7323 window scale */
#endif
#ifndef MIP_TCP_SYN_BACKLOG
#define MIP_TCP_SYN_BACKLOG MIP_PROFILE_DEFAULT(2, 8) /* half-open connections held */
#endif
/* SYN cookies (RFC 4987 3.6) when the SYN cache is full: a SYN-ACK that
 * keeps no state, its ISN a keyed hash of the 4-tuple, the peer's ISN and
 * a 65.5 s clock, plus an MSS index; the ACK that returns it creates the
 * connection. Without them a full cache replaces a random entry, and a
 * flood of spoofed SYNs evicts legitimate half-open connections. Such a
 * connection has no window scaling, SACK or timestamps (docs/TCP.md).
 * Cost on Cortex-M0+: see docs/TCP.md "SYN cookies"; RAM 16 B of struct
 * mip_tcp. */
#ifndef MIP_TCP_SYN_COOKIES
#define MIP_TCP_SYN_COOKIES MIP_PROFILE_DEFAULT(0, 1)
#endif
#ifndef MIP_TCP_MAX_RETRIES
#define MIP_TCP_MAX_RETRIES 8u         /* default of struct mip_tcp max_retries */
#endif
#if (MIP_TCP_RTO_INITIAL_MS << 6) < MIP_TCP_RTO_MAX_MS
#error "the SYN cache caps its backoff at 6 doublings (src/tcp/tcp_timer.c)"
#endif
#if MIP_TCP_MAX_RETRIES < 1 || MIP_TCP_MAX_RETRIES > 255
#error "MIP_TCP_MAX_RETRIES must be 1..255 (255: never give up)"
#endif
#ifndef MIP_TCP_SYN_RETRIES
#define MIP_TCP_SYN_RETRIES 5u
#endif
#ifndef MIP_TCP_MSL_MS
#define MIP_TCP_MSL_MS 30000u          /* TIME_WAIT lasts 2 * MSL */
#endif
/* RFC 7323 5.5: after this long without a segment from the peer, TS.Recent
 * is invalid (the peer's timestamp clock, at most 1 tick per ms, may have
 * wrapped its sign bit, 24.8 days), and the next segment is accepted
 * whatever its TSval. 24 days; below 2^31 ms, as every deadline. */
#define MIP_TCP_PAWS_IDLE_MS (24u * 24u * 3600u * 1000u)
/* MIP_TCP_DELACK_MS, the RTO minimum and the challenge-ACK limit are in
 * config.h, which checks them against each other. */

enum mip_tcp_state {
    MIP_TCP_CLOSED = 0,
    MIP_TCP_SYN_SENT,
    MIP_TCP_SYN_RECEIVED,
    MIP_TCP_ESTABLISHED,
    MIP_TCP_FIN_WAIT_1,
    MIP_TCP_FIN_WAIT_2,
    MIP_TCP_CLOSE_WAIT,
    MIP_TCP_CLOSING,
    MIP_TCP_LAST_ACK,
    MIP_TCP_TIME_WAIT
};

/* Why a connection ended other than by an orderly close. */
enum mip_tcp_error {
    MIP_TCP_ERR_NONE = 0,
    MIP_TCP_ERR_RESET,        /* the peer sent RST */
    MIP_TCP_ERR_REFUSED,      /* RST in answer to our SYN */
    MIP_TCP_ERR_TIMEOUT,      /* retransmissions exhausted */
    MIP_TCP_ERR_KEEPALIVE,    /* keepalive probes unanswered */
    MIP_TCP_ERR_UNREACHABLE,  /* ICMP hard error during the handshake */
    MIP_TCP_ERR_ABORTED       /* mip_tcp_abort(), or RST for data the application
                                 will not read: mip_tcp_close with some unread,
                                 or new data after it (RFC 1122 4.2.2.13) */
};

/* What a connection tells its application. Any pointer may be NULL. */
struct mip_tcp_callbacks {
    void (*connected)(void *ctx, struct mip_tcp_conn *c);
    /* In-order data (or the peer's FIN: mip_tcp_peer_closed()) arrived.
     * When the segment found the receive ring empty, mip_tcp_read here
     * copies its bytes straight from the received packet, and only what
     * is left unread is stored in the ring when the callback returns: an
     * application that reads everything here copies each byte once. */
    void (*readable)(void *ctx, struct mip_tcp_conn *c);
    /* Send-ring space was freed by an ACK. */
    void (*writable)(void *ctx, struct mip_tcp_conn *c);
    /* The connection is over (orderly, or after `error`): the struct and
     * its buffers belong to the application again. */
    void (*closed)(void *ctx, struct mip_tcp_conn *c);
    void (*error)(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why);
};

/* Per-connection settings: mip_tcp_conn_init fills in the defaults; change
 * c->cfg before connect, or in the accept callback. keepalive_ms may also be
 * set later: the next mip_stack_poll arms the timer (0 stops it at its next
 * deadline, without a probe). For a passive open, sack and timestamps are
 * not the application's to choose: the SYN cache's SYN-ACK agreed to every
 * option compiled in that the peer's SYN offered, before accept was asked,
 * and the stack sets both to what was agreed once accept returns (RFC 7323
 * 3.2: timestamps, once agreed, go on every segment).
 *
 * Keepalive probes an idle connection in ESTABLISHED, CLOSE_WAIT and
 * FIN_WAIT_2: the first probe keepalive_ms after the last segment from the
 * peer, three more keepalive_ms / 4 apart (at least 500 ms), and the
 * connection is aborted (MIP_TCP_ERR_KEEPALIVE) when the last goes
 * unanswered: 2 * keepalive_ms in all for keepalive_ms >= 2 s. Keep it
 * below MIP_TCP_PAWS_IDLE_MS (24 days): the keepalive exchange is then what
 * keeps the peer's timestamps fresh. */
struct mip_tcp_config {
    uint32_t keepalive_ms;    /* 0: off; else idle time before probing */
    uint16_t delack_ms;       /* 0: ACK every segment at once; values above
                                 MIP_TCP_DELACK_MAX_MS (500, RFC 1122
                                 4.2.3.2) are taken as that */
    uint8_t  cwnd_cap;        /* 0: none; else cwnd <= cwnd_cap * MSS */
    bool     nodelay : 1;     /* disable Nagle */
    bool     sack : 1;        /* offer/accept SACK (when compiled in) */
    bool     timestamps : 1;  /* offer/accept timestamps (when compiled in) */
    bool     limited_transmit : 1;  /* RFC 3042: a new segment on each of the
                                 first two duplicate ACKs (default on) */
    bool     dsack : 1;       /* RFC 2883: report duplicate data in the
                                 first SACK block (with SACK; default on) */
    bool     early_retransmit : 1;  /* RFC 5827: with SACK, fewer than four
                                 segments out and nothing new to send, a
                                 fast retransmit on outstanding - 1
                                 duplicate ACKs (default on) */
    bool     tlp : 1;         /* RFC 8985 7: with SACK, a tail loss probe
                                 when ACKs are two SRTTs late (default on) */
};

/* One connection. The application owns the memory; the fields are the
 * stack's while the connection is open.
 *
 * Size (docs/TCP.md): fields are ordered so there are no holes (and for
 * code size, below), and several are kept narrower than their RFC 9293
 * names suggest, each within a bound that holds by construction:
 *   local       the local address is not copied: it is one of the stack's
 *               own addresses (struct mip_netif addr4[] / addr6[]), named
 *               by netif and slot (mip_tcp_local_addr() gives it back).
 *               Addresses are never removed from a netif; code that adds
 *               removal must end the connections using the address.
 *   rtt_seq     low 16 bits: while it is timed, snd_una <= rtt_seq <
 *               snd_una + 65536 (it lies in the send ring).
 *   sack_recent low 16 bits (unless MIP_TCP_LARGE_RX): it matters while
 *               it lies in the receive window, within the ring after
 *               rcv_nxt.
 * A D-SACK to report (RFC 2883) is kept in struct mip_tcp, not here: it
 * lives only while the segment that brought the duplicate is processed.
 *   t_delack    low 16 bits of the deadline; it is armed at most
 *               MIP_TCP_DELACK_MAX_MS ahead (500; config.h refuses more
 *               than 30000), so it is due when (now - t_delack) mod 2^16 <
 *               2^15 (a poll more than 32 s late would see it up to 32 s
 *               later).
 *   mss         the send MSS is cc.mss (one copy).
 * IRS is not kept: nothing reads it (rcv_nxt is IRS + 1 after the
 * handshake). */
struct mip_tcp_conn {
    /* Order (besides no holes): code size. A Cortex-M0+ load or store
     * reaches a byte at offset <= 31, a halfword <= 62 and a word <= 124
     * in one 2-byte instruction, an AVR one any byte <= 63. So the bytes
     * come first (cfg.cwnd_cap and its flag bits at 30..31), the halfwords
     * next, then the sequence variables (within AVR's reach), cc (cc.mss)
     * and the rest; the structs mostly passed by address go last. */
    uint8_t  state;                       /* enum mip_tcp_state */
    uint8_t  retries;                     /* consecutive retransmissions */
    uint8_t  ka_probes;
    uint8_t  snd_wscale : 4, rcv_wscale : 4;  /* 0..14 */
    uint8_t  local;                       /* own address: netif << 4 | slot (above) */
    uint8_t  netif;                       /* output netif (link-local peers), else MIP_NETIF_ANY */
    uint8_t  error;                       /* enum mip_tcp_error once failed */
    struct mip_addr remote;
    struct mip_tcp_config cfg;
    uint16_t flags;                       /* TCPF_* in src/tcp/tcp_internal.h */
    uint16_t lport, rport;
    uint16_t t_delack;                    /* delayed-ACK deadline, low 16 bits (above) */
    uint16_t rtt_seq;                     /* segment being timed (Karn), low 16 bits */
#if MIP_TCP_SACK
    mip_tcp_rxsize_t sack_recent;         /* seq of the latest out-of-order segment, low bits */
#endif

    /* sequence space (RFC 9293 3.3.1) */
    uint32_t iss;
    uint32_t snd_una, snd_nxt, snd_max;   /* snd_max: highest sent */
    uint32_t snd_wnd, snd_wl1, snd_wl2;
    uint32_t rcv_nxt, rcv_adv;            /* rcv_adv: right edge advertised */
    uint32_t rcv_up;                      /* urgent pointer reported (RFC 6093) */

    struct mip_tcp_cc cc;                 /* cc.mss: send MSS (peer's, clamped), bytes */
    struct mip_tcp_conn *next;            /* list of open connections */
    mip_time_t rtt_start;
    mip_time_t t_rexmt;                   /* retransmission / persist / SYN */
    mip_time_t t_idle;                    /* keepalive */
#if MIP_TCP_TIMESTAMPS
    uint32_t ts_recent;                   /* RFC 7323 TS.Recent */
    uint32_t ts_offset;                   /* random per connection (RFC 7323 5.4) */
#endif
    const struct mip_tcp_callbacks *cb;
    void    *ctx;
    struct mip_tcp_rtt rtt;
    struct mip_tcp_txbuf tx;
    struct mip_tcp_rxbuf rx;
#if MIP_TCP_SACK
    struct mip_tcp_sackb sackb;
#endif
};

struct mip_tcp_listener;

/* Asked for a connection when a handshake on listener l completes. There is
 * no context pointer: embed the listener in the application's own struct
 * and get back to that with MIP_CONTAINER_OF(l, struct app, listener). */
typedef struct mip_tcp_conn *(*mip_tcp_accept_fn)(struct mip_tcp_listener *l,
                                                  struct mip_tcp *tcp, uint16_t port);

/* A listening port: a few bytes, kept apart from connections. */
struct mip_tcp_listener {
    struct mip_tcp_listener *next;
    mip_tcp_accept_fn accept;
    uint16_t port;
    /* The receive ring every connection `accept` hands in has at least
     * (mip_tcp_listen); the SYN-ACK's window and window scale come from it. */
    mip_tcp_rxsize_t rx_size;
};

/* The struct of type `type` whose member `member` is at ptr. */
#define MIP_CONTAINER_OF(ptr, type, member) \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* A half-open passive connection in the SYN cache. */
struct mip_tcp_syn {
    /* the bytes within reach of a one-instruction load on Cortex-M0+
     * (struct mip_tcp_conn), with no hole */
    struct mip_addr local;
    uint8_t  flags;          /* peer offered: SACK, TS, WS; 0 = slot free */
    uint8_t  retries;
    uint8_t  netif;
    uint8_t  snd_wscale;
    struct mip_addr remote;
    uint16_t lport, rport;
    uint16_t mss;
    uint32_t iss, irs;
    uint32_t ts_recent;
    mip_time_t deadline;
};

/* A connection in TIME_WAIT, kept compactly so the application gets its
 * connection memory back at once (RFC 9293 3.6.1 asks only that the
 * 4-tuple's old segments be recognised for 2 * MSL). */
struct mip_tcp_tw {
    struct mip_addr local;
    uint8_t  used;
#if MIP_TCP_TIMESTAMPS
    uint8_t  ts_ok;          /* timestamps were on: answers carry TSopt */
#endif
    struct mip_addr remote;
    uint16_t lport, rport;
    uint32_t snd_nxt, rcv_nxt;
    mip_time_t deadline;
#if MIP_TCP_TIMESTAMPS
    uint32_t ts_recent;      /* TS.Recent, echoed as TSecr */
    uint32_t ts_offset;      /* the connection's, so TSval goes on rising */
#endif
};

#ifndef MIP_TCP_TIMEWAIT_MAX
#define MIP_TCP_TIMEWAIT_MAX MIP_PROFILE_DEFAULT(1, 8)
#endif

/* Counters of the TCP instance; every dropped segment counts once. */
#define MIP_TCP_STATS_LIST(X)                                                 \
    X(segs_rx) X(segs_tx) X(rexmits) X(fast_rexmits) X(sack_rexmits)          \
    MIP_TCP_SACK_STATS(X)                                                     \
    X(timeouts) X(conns_opened) X(conns_accepted) X(conns_closed)             \
    X(conns_reset) X(conns_timed_out) X(rst_tx) X(challenge_acks)             \
    X(challenge_acks_limited)                                                 \
    X(ooo_segs) X(dup_segs) X(delacks) X(zero_window_probes) X(keepalives)    \
    X(syn_cache_evicted) X(accept_refused) X(timewait_evicted)                \
    X(drop_truncated) X(drop_bad_checksum) X(drop_bad_options)                \
    X(drop_no_conn) X(drop_out_of_window) X(drop_paws) X(drop_bad_ack)        \
    X(drop_syn_in_window) X(drop_rst_out_of_window)                           \
    X(drop_icmp_bad_seq) X(drop_no_timestamp)                                 \
    MIP_TCP_COOKIE_STATS(X)
/* cookies_sent: SYN-ACKs with a cookie (the cache was full); accepted: the
 * ACKs that returned a valid one; rejected: ACKs for a listening port that
 * match no connection or SYN cache entry, while cookies are in use, and
 * return no valid cookie (answered with RST, as by a listener). */
/* With SACK: early_rexmits, fast retransmits started below three
 * duplicate ACKs (RFC 5827); tlp_probes, tail loss probes sent (RFC 8985
 * 7.3); tlp_losses, probes that repaired a loss (cwnd reduced, 7.4). */
#if MIP_TCP_SACK
#define MIP_TCP_SACK_STATS(X) X(early_rexmits) X(tlp_probes) X(tlp_losses)
#else
#define MIP_TCP_SACK_STATS(X)
#endif
#if MIP_TCP_SYN_COOKIES
#define MIP_TCP_COOKIE_STATS(X) X(cookies_sent) X(cookies_accepted) X(cookies_rejected)
#else
#define MIP_TCP_COOKIE_STATS(X)
#endif

enum mip_tcp_stat {
#define MIP_TCP_STAT_ENUM(n) MIP_TCP_STAT_##n,
    MIP_TCP_STATS_LIST(MIP_TCP_STAT_ENUM)
#undef MIP_TCP_STAT_ENUM
    MIP_TCP_STAT_COUNT
};

struct mip_tcp {
    struct mip_stack *stack;
    struct mip_tcp_conn *conns;
    struct mip_tcp_listener *listeners;
    /* The scalars before the arrays: a field at a small offset is one
     * instruction away on Cortex-M0+ and AVR (struct mip_tcp_conn). */
    uint16_t next_port;                   /* ephemeral port cursor */
    /* Largest MSS this node announces and uses, bytes (0: from the MTU of
     * the route). Experiments fix segment sizes with it (TCPlp sizes
     * segments to a few 6LoWPAN frames); set it before connecting. */
    uint16_t mss_max;
    /* RFC 5961 7: challenge ACKs that may still be sent in the window
     * that began at chack_start (config.h); each window's budget is drawn
     * from the stack's PRNG in [LIMIT / 2, LIMIT * 3 / 2] (CVE-2016-5696). */
    mip_time_t chack_start;
    uint8_t  chack_left;
    /* Consecutive retransmission timeouts (or unanswered zero-window
     * probes) of a synchronized connection before it is aborted with
     * MIP_TCP_ERR_TIMEOUT, for every connection
     * of this instance; mip_tcp_init sets MIP_TCP_MAX_RETRIES (8). 255:
     * never give up, the handshake included (SYN, and SYN-ACK from the
     * SYN cache; the RTO backoff stays capped at MIP_TCP_RTO_MAX_MS).
     * Any other value leaves the handshake at its compile-time
     * MIP_TCP_SYN_RETRIES (5). (In padding on 32-bit targets.) */
    uint8_t  max_retries;
    /* A floor under every retransmission timeout of this instance, in ms,
     * doubled with each backoff like the RTO itself (0: only the
     * compile-time floor, MIP_TCP_RTO_MIN_MS). RFC 6298 2.4 asks for 1000;
     * moteip's default floor is lower (config.h), and experiments that
     * reproduce an older TCP (RFC 2988's, uIP's coarse timers) set it. */
    uint16_t rto_min_ms;
#if MIP_CONF_FORWARD
    /* The sender end point's backpressure of TSS ([T] III.A.4: the
     * congestion window is not increased while three segments wait). On an
     * ACK, cwnd does not grow while backlog() reports at least
     * cwnd_hold_backlog segments of the connection waiting below TCP: sent
     * by TCP but held back at this node (a TSS relay's source queue,
     * mip_relay_backlog). 0 / NULL: off. For every connection of this
     * instance (in padding on 32-bit targets). */
    uint8_t  cwnd_hold_backlog;
    uint8_t (*backlog)(void *ctx, const struct mip_tcp *tcp, const struct mip_tcp_conn *c);
    void    *backlog_ctx;
#endif
#if MIP_TCP_SYN_COOKIES
    mip_time_t cookie_time;               /* when the latest SYN cookie was sent */
#endif
    /* In-order data read in place (one copy less): while `readable` runs
     * for direct_conn after a segment reached its empty ring, the ring
     * holds the segment's bytes by count only, and mip_tcp_read copies
     * them from `direct`, the next unread one; what is left unread is
     * stored when the callback returns. NULL otherwise. */
    struct mip_tcp_conn *direct_conn;
    const uint8_t *direct;
#if MIP_TCP_SACK
    /* A D-SACK (RFC 2883) for dsack_conn's next ACK: [dsack_left,
     * dsack_left + dsack_len), data that came again. Set while a segment
     * is processed and cleared when the next one comes in or dsack_conn
     * sends anything: it lives within the segment's processing, which
     * answers a duplicate at once, so one slot serves every connection. */
    const struct mip_tcp_conn *dsack_conn;
    uint32_t dsack_left;
    uint16_t dsack_len;
    /* The open tail-loss-probe episode (RFC 8985 7.4): tlp_conn sent a
     * probe, new data or (tlp_retrans) the segment ending at tlp_end
     * again, and waits for the ACK of tlp_end; for a retransmission its
     * ACKs tell whether the probe repaired a loss (cwnd is then reduced)
     * or both copies arrived. One per instance: another connection may
     * probe only when the holder has nothing in flight (no ACK can end
     * its episode then) and takes the slot over (docs/TCP.md). Cleared
     * by the episode's end, an RTO, fast recovery or the connection's
     * end. */
    uint8_t  tlp_retrans;
    const struct mip_tcp_conn *tlp_conn;
    uint32_t tlp_end;
#endif
    uint8_t  secret[16];                  /* ISN / timestamp-offset / cookie key */
    struct mip_tcp_syn syn[MIP_TCP_SYN_BACKLOG];
    struct mip_tcp_tw tw[MIP_TCP_TIMEWAIT_MAX];
    uint32_t stat[MIP_TCP_STAT_COUNT];
};

/* Attaches TCP to stack s: registers protocol 6 and its timers. Draws
 * the ISN secret from the stack's PRNG. INUSE if TCP is already there. */
mip_status mip_tcp_init(struct mip_tcp *tcp, struct mip_stack *s);

/* The connection's local address (family NONE while it has none). */
void mip_tcp_local_addr(const struct mip_tcp *tcp, const struct mip_tcp_conn *c,
                        struct mip_addr *out);

/* Default options: delayed ACK MIP_TCP_DELACK_MS, Nagle on, SACK and
 * timestamps on where compiled in, no keepalive, no cap. */
void mip_tcp_config_default(struct mip_tcp_config *cfg);

/* Prepares a connection struct with its memory: a send ring of tx_size
 * bytes, a receive ring of rx_size bytes and its bitmap of
 * (rx_size + 7) / 8 bytes (NULL: out-of-order segments are dropped, the
 * tiny profile's behaviour). tx_size up to 65535; rx_size up to
 * MIP_TCP_RX_SIZE_MAX (65535, or 2^30 - 1 with MIP_TCP_LARGE_RX: a ring
 * above 64 KB is offered with a window scale, RFC 7323, when the peer
 * agrees). */
void mip_tcp_conn_init(struct mip_tcp_conn *c, const struct mip_tcp_callbacks *cb, void *ctx,
                       uint8_t *tx_mem, uint16_t tx_size,
                       uint8_t *rx_mem, uint8_t *rx_bitmap, mip_tcp_rxsize_t rx_size);

/* Active open from an ephemeral port. INVALID for a conn in use or a bad
 * address, NOROUTE, NOBUFS (no packet buffer for the SYN). */
mip_status mip_tcp_connect(struct mip_tcp *tcp, struct mip_tcp_conn *c,
                           const struct mip_addr *dst, uint16_t port);

/* Passive open. `accept` is called when a handshake completes and returns
 * a connection struct prepared with mip_tcp_conn_init (NULL refuses: the
 * peer gets RST). The SYN-ACK goes before accept is asked, so the listener
 * promises the window: every connection accept returns has a receive ring
 * of at least rx_size bytes (1..MIP_TCP_RX_SIZE_MAX). The SYN-ACK offers
 * min(rx_size, 65535) bytes (a SYN's window is never scaled) and, when the
 * peer offers window scaling, the scale rx_size needs; the first ACK after
 * accept opens the window to the ring (RFC 9293 3.8.6: a window once
 * offered is never taken back, so a smaller ring would lose data the peer
 * was allowed to send). INVALID for port 0, rx_size 0 or no accept; INUSE
 * when the port is already listened on. */
mip_status mip_tcp_listen(struct mip_tcp *tcp, struct mip_tcp_listener *l, uint16_t port,
                          mip_tcp_rxsize_t rx_size, mip_tcp_accept_fn accept);
void mip_tcp_unlisten(struct mip_tcp *tcp, struct mip_tcp_listener *l);

/* Queues up to n bytes; returns how many were taken: 0 when the ring is
 * full (wait for `writable`) or the connection can no longer send (closed,
 * or after shutdown). */
size_t mip_tcp_write(struct mip_tcp *tcp, struct mip_tcp_conn *c, const uint8_t *data, size_t n);
/* Copies up to n in-order bytes out (out NULL: discards them); opens the
 * window when it grew enough to be worth telling the peer (RFC 9293
 * 3.8.6.2.2). Bytes still unread when the connection ends stay readable
 * until the struct is initialised again. */
size_t mip_tcp_read(struct mip_tcp *tcp, struct mip_tcp_conn *c, uint8_t *out, size_t n);
/* Bytes ready to read / space to write. */
size_t mip_tcp_readable(const struct mip_tcp_conn *c);
size_t mip_tcp_writable(const struct mip_tcp_conn *c);
/* True once the peer's FIN was received and every byte before it read. */
bool mip_tcp_peer_closed(const struct mip_tcp_conn *c);

/* Sends FIN after the queued data; reading goes on (half-close). Once the
 * FIN is ACKed, FIN_WAIT_2 lasts until the peer's FIN: no timer ends it
 * but keepalive when on (the application reads, and decides). */
mip_status mip_tcp_shutdown(struct mip_tcp *tcp, struct mip_tcp_conn *c);
/* shutdown + the application will read no more. Data it will never read
 * is lost, and the peer is told with RST (RFC 1122 4.2.2.13): when bytes
 * are still unread at the call, or new ones arrive after it, the
 * connection is aborted (`error` MIP_TCP_ERR_ABORTED, then `closed`).
 * Otherwise, once the FIN is ACKed, the peer's FIN is awaited at most
 * MIP_TCP_FIN_WAIT_2_MS (config.h, 60 s); then RST, MIP_TCP_ERR_TIMEOUT
 * and `closed`. docs/TCP.md "Liveness": how long every state can last. */
mip_status mip_tcp_close(struct mip_tcp *tcp, struct mip_tcp_conn *c);
/* Sends RST and ends the connection now (`closed` follows `error`). */
void mip_tcp_abort(struct mip_tcp *tcp, struct mip_tcp_conn *c);

uint32_t mip_tcp_stat(const struct mip_tcp *tcp, enum mip_tcp_stat which);
const char *mip_tcp_stat_name(enum mip_tcp_stat which);
const char *mip_tcp_state_name(uint8_t state);

#endif
