/*
 * Internal interfaces between the files of src/tcp.
 */
#ifndef MOTEIP_TCP_INTERNAL_H
#define MOTEIP_TCP_INTERNAL_H

#include "moteip/tcp.h"
#include "moteip/stack.h"
#include "moteip/wire/tcp.h"
#include "moteip/wire/ipv4.h"

/* struct mip_tcp_conn.flags. The bits set and cleared most often are in
 * the low byte: a Cortex-M0+ immediate reaches 255 in one instruction. */
#define TCPF_ACKNOW     0x0001u  /* send an ACK now */
#define TCPF_DELACK     0x0002u  /* an ACK is being delayed (t_delack armed) */
#define TCPF_PERSIST    0x0004u  /* t_rexmt is the persist timer */
#define TCPF_TIMING     0x0008u  /* rtt_seq is being timed */
#define TCPF_REXMT      0x0010u  /* t_rexmt armed (retransmission or persist) */
#define TCPF_SYN_ACKED  0x0020u  /* our SYN is acknowledged */
#define TCPF_IDLE       0x0040u  /* t_idle armed (keepalive) */
#define TCPF_FIN_QUEUED 0x0080u  /* the application shut down sending */
#define TCPF_TS_OK      0x0100u  /* both sides agreed on timestamps */
#define TCPF_SACK_OK    0x0200u  /* both sides agreed on SACK */
#define TCPF_FIN_SENT   0x0400u  /* our FIN occupies snd_max - 1 */
#define TCPF_RCVD_FIN   0x0800u  /* the peer's FIN is in rcv_nxt */
#define TCPF_NO_READ    0x1000u  /* the application closed: discard data */
#define TCPF_WS_OK      0x2000u  /* both sides agreed on window scaling */
#define TCPF_TS_STALE   0x4000u  /* TS.Recent is invalid: idle too long (RFC 7323 5.5) */
#define TCPF_PTO        0x8000u  /* t_rexmt is a tail loss probe timeout (tlp.c) */

/* struct mip_tcp_syn.flags: what the peer's SYN offered, as the
 * MIP_TCP_HAS_* bits of its options (TCPS_USED is the MSS bit: a SYN-ACK
 * always carries MSS), so they are the options of the SYN-ACK too. */
#define TCPS_USED MIP_TCP_HAS_MSS
#define TCPS_SACK MIP_TCP_HAS_SACK_PERM
#define TCPS_TS   MIP_TCP_HAS_TIMESTAMP
#define TCPS_WS   MIP_TCP_HAS_WSCALE
/* Not an option: the SYN-ACK went again on the peer's SYN (Karn: the
 * handshake's ACK gives no RTT sample). Masked off where flags are used
 * as options. */
#define TCPS_RESENT 0x80u
/* The options compiled in, which a SYN cache entry takes up. */
#define TCPS_OPTS ((MIP_TCP_WSCALE ? TCPS_WS : 0u) | (MIP_TCP_SACK ? TCPS_SACK : 0u) | \
                   (MIP_TCP_TIMESTAMPS ? TCPS_TS : 0u))

/* Counts one event; saturates. Out of line: inlined, each of the ~40 uses
 * cost 30-40 bytes of AVR code. */
#define TCP_STAT(tcp, name) tcp_stat_inc((tcp), MIP_TCP_STAT_##name)
/* The same inline, for the three counted on every segment (received,
 * sent, delayed ACK): a call each was ~8 instructions a segment. */
#define TCP_STAT_HOT(tcp, name)                                          \
    do {                                                                 \
        if ((tcp)->stat[MIP_TCP_STAT_##name] != UINT32_MAX)              \
            (tcp)->stat[MIP_TCP_STAT_##name]++;                          \
    } while (0)

/* Retransmissions of a SYN or SYN-ACK before the handshake is given up:
 * MIP_TCP_SYN_RETRIES, or never when max_retries is 255 (struct mip_tcp). */
#define TCP_SYN_LIMIT(tcp) ((tcp)->max_retries == 255u ? 255u : MIP_TCP_SYN_RETRIES)

/* struct mip_tcp_conn.local: no address of ours */
#define TCP_LOCAL_NONE 0xFFu

/* struct tcp_tuple, a 4-tuple to look up: tcp_parts.h */

/* One segment to emit. Data comes from a send ring. Small fields first:
 * short loads reach only small offsets (struct mip_tcp_conn). */
struct tcp_seg {
    /* ports, seq, ack (0 without the ACK flag), flags, window as written
     * (scaled); tcp_emit fills in hdr_len */
    struct mip_tcp_hdr h;
    uint8_t  netif;                 /* MIP_NETIF_ANY unless link-local */
    uint16_t data_off, data_len;
    const struct mip_addr *src, *dst;
    /* wire options to include; tcp_seg_start clears the fields above it
     * and only opts.present of it */
    struct mip_tcp_opts opts;
    const struct mip_tcp_txbuf *tx;
    struct mip_addr local;          /* src of a connection's segments */
};

/* tcp_output.c */
/* Clears seg and fills in the sequence numbers and flags; the caller then
 * sets the 4-tuple (src, dst, sport, dport) and netif (few arguments: each
 * one past the fourth costs every call site a stack slot). */
void tcp_seg_start(struct tcp_seg *seg, uint32_t seq, uint32_t ack, uint8_t flags);
/* The same for a segment of connection c: its local address, rcv_nxt, the
 * window to advertise and the timestamp option when agreed. */
void tcp_seg_init(struct mip_tcp *tcp, const struct mip_tcp_conn *c, struct tcp_seg *seg,
                  uint32_t seq, uint8_t flags);
mip_status tcp_emit(struct mip_tcp *tcp, struct tcp_seg *seg);
/* The TCP checksum of l4[0..len) from src to dst (0 when l4 holds a right
 * one; the value to write when its checksum field is 0). */
uint16_t tcp_cksum(const struct mip_addr *src, const struct mip_addr *dst, const uint8_t *l4,
                   size_t len);
/* Sends whatever the windows, Nagle and pending flags allow. */
void tcp_output(struct mip_tcp *tcp, struct mip_tcp_conn *c);
/* True when tcp_output would do nothing: no ACK owed now, no byte of the
 * ring unsent (the ring starts at snd_una, one later before the SYN is
 * ACKed) and no FIN queued. A receiver's every other segment. */
static inline bool tcp_output_idle(const struct mip_tcp_conn *c)
{
    return !(c->flags & (TCPF_ACKNOW | TCPF_FIN_QUEUED)) &&
           c->snd_una + ((c->flags & TCPF_SYN_ACKED) ? 0u : 1u) + c->tx.len == c->snd_nxt;
}
/* (Re)sends the SYN or SYN-ACK of a connection in SYN_SENT / SYN_RECEIVED. */
mip_status tcp_send_syn(struct mip_tcp *tcp, struct mip_tcp_conn *c);
/* Retransmits `len` bytes of the send ring from sequence `seq`. */
void tcp_retransmit(struct mip_tcp *tcp, struct mip_tcp_conn *c, uint32_t seq, uint32_t len);
/* Sends one segment of new data that the peer's window has room for,
 * whatever cwnd says (a tail loss probe, RFC 8985 7.3); false when there
 * is none. */
bool tcp_send_probe_data(struct mip_tcp *tcp, struct mip_tcp_conn *c);
/* The sequence number of a segment that carries nothing new (an ACK, a
 * RST): snd_max, or the right edge of the peer's window when a zero-window
 * probe went past it (tcp_output.c). */
uint32_t tcp_acceptable_seq(const struct mip_tcp_conn *c);
/* A bare ACK (also the challenge ACK of RFC 5961). */
void tcp_send_ack(struct mip_tcp *tcp, struct mip_tcp_conn *c);
/* Window to advertise now, unscaled bytes, never shrinking the right edge. */
uint32_t tcp_rcv_window(const struct mip_tcp_conn *c);
/* The MSS we can receive on the route to `remote`. */
uint16_t tcp_local_mss(struct mip_tcp *tcp, const struct mip_addr *remote, uint8_t *netif);
static inline uint32_t tcp_ts_now(const struct mip_tcp_conn *c, mip_time_t now)
{
#if MIP_TCP_TIMESTAMPS
    return (uint32_t)now + c->ts_offset;
#else
    (void)c;
    return (uint32_t)now;
#endif
}
/* Payload bytes per full segment: the send MSS less the timestamp option
 * when agreed. */
static inline uint16_t tcp_smss(const struct mip_tcp_conn *c)
{
#if MIP_TCP_TIMESTAMPS
    if (c->flags & TCPF_TS_OK)
        return (uint16_t)(c->cc.mss - 12u);   /* the segment fits the MTU */
#endif
    return c->cc.mss;
}

/* tcp.c */
/* The reference (struct mip_tcp_conn.local) of address a, one of the
 * stack's own; TCP_LOCAL_NONE when it is none of them. */
uint8_t tcp_local_ref(const struct mip_stack *s, const struct mip_addr *a);
/* The bytes of address `ref` of `family`, or NULL when there is none. */
const uint8_t *tcp_local_bytes(const struct mip_stack *s, unsigned ref, uint8_t family);
/* True when address reference `ref` (struct mip_tcp_conn.local) names a. */
bool tcp_local_ref_is(const struct mip_stack *s, unsigned ref, const struct mip_addr *a);
/* The delayed-ACK time in force (cfg.delack_ms, at most MIP_TCP_DELACK_MAX_MS). */
static inline uint16_t tcp_delack_ms(const struct mip_tcp_conn *c)
{
    return c->cfg.delack_ms < MIP_TCP_DELACK_MAX_MS ? c->cfg.delack_ms
                                                    : (uint16_t)MIP_TCP_DELACK_MAX_MS;
}
/* Milliseconds until the delayed ACK is due (0: due); t_delack holds the
 * deadline's low 16 bits, at most MIP_TCP_DELACK_MAX_MS ahead when armed. */
static inline uint32_t tcp_delack_delay(const struct mip_tcp_conn *c, mip_time_t now)
{
    uint16_t late = (uint16_t)((uint16_t)now - c->t_delack);
    return late < 0x8000u ? 0u : (uint32_t)(uint16_t)(c->t_delack - (uint16_t)now);
}
/* The segment being timed, from its low 16 bits: while TCPF_TIMING is set,
 * snd_una <= rtt_seq < snd_una + 65536. */
static inline uint32_t tcp_rtt_seq(const struct mip_tcp_conn *c)
{
    return c->snd_una + (uint16_t)(c->rtt_seq - (uint16_t)c->snd_una);
}
void tcp_stat_inc(struct mip_tcp *tcp, enum mip_tcp_stat which);
/* Stores what the application left unread of the segment it was reading
 * in place (struct mip_tcp direct), when that is connection c's. */
void tcp_direct_settle(struct mip_tcp *tcp, struct mip_tcp_conn *c);
/* The challenge-ACK budget of a new window (RFC 5961 7): random in
 * [LIMIT / 2, LIMIT * 3 / 2] (MIP_TCP_CHALLENGE_ACK_LIMIT), so that an
 * off-path host cannot learn from the number of challenge ACKs it draws
 * how many another connection drew (CVE-2016-5696; Linux's fix). */
uint8_t tcp_chack_budget(struct mip_tcp *tcp);
/* A connection's random timestamp offset (RFC 7323 5.4), from its ISS. */
uint32_t tcp_ts_offset(const struct mip_tcp *tcp, uint32_t iss);
/* What an opening connection (active or passive) starts with, once its
 * iss, ports and local address are set: the peer, the output netif
 * (tcp_conn_netif), snd_una = snd_nxt = snd_max = iss (+ 1 when
 * TCPF_SYN_ACKED is set), RTT and timestamp offset; then it is linked. */
void tcp_conn_open(struct mip_tcp *tcp, struct mip_tcp_conn *c, const struct mip_addr *remote,
                   uint8_t netif);
/* Calls the application's callback `which` (TCP_CB(connected), readable,
 * writable or closed) when there is one. */
void tcp_notify(struct mip_tcp_conn *c, size_t which);
#define TCP_CB(name) offsetof(struct mip_tcp_callbacks, name)
/* The output netif of a connection to `remote` learnt on `netif`: that one
 * for an IPv6 link-local peer, else MIP_NETIF_ANY (routed). */
uint8_t tcp_conn_netif(const struct mip_addr *remote, uint8_t netif);
/* Ends a connection: unlinks it, reports `why` (unless NONE) and closed. */
void tcp_conn_finish(struct mip_tcp *tcp, struct mip_tcp_conn *c, enum mip_tcp_error why);
/* Moves a connection to TIME_WAIT: a compact record, memory returned. */
void tcp_enter_timewait(struct mip_tcp *tcp, struct mip_tcp_conn *c);
/* Arms t_rexmt as the retransmission timer (RTO, with backoff). */
void tcp_arm_rexmt(struct mip_tcp *tcp, struct mip_tcp_conn *c);
/* Sends RST (unless in SYN_SENT) and ends the connection with `why`. */
void tcp_conn_abort(struct mip_tcp *tcp, struct mip_tcp_conn *c, enum mip_tcp_error why);

/* tcp_input.c */
/* The connection / TIME_WAIT record of 4-tuple k, or NULL. */
struct mip_tcp_conn *tcp_find_conn(struct mip_tcp *tcp, const struct tcp_tuple *k);
struct mip_tcp_tw *tcp_find_tw(struct mip_tcp *tcp, const struct tcp_tuple *k);
/* True when the 4-tuple of a SYN cache entry or TIME_WAIT record is k. */
bool tcp_tuple_is(const struct mip_addr *local, const struct mip_addr *remote, uint16_t lport,
                  uint16_t rport, const struct tcp_tuple *k);
/* (Re)sends the SYN-ACK of a SYN cache entry. */
void tcp_syn_send_synack(struct mip_tcp *tcp, const struct mip_tcp_syn *e);
bool tcp_input(void *ctx, struct mip_stack *s, const struct mip_ip_rx *rx,
               const uint8_t *l4, size_t len);
void tcp_icmp_error(void *ctx, struct mip_stack *s, const struct mip_ip_error *err);

/* SYN cookies (tcp_input.c): the clock in the hash ticks every
 * 2^TCP_COOKIE_TICK_SHIFT ms (65.5 s), and a cookie is good for the tick it
 * was made in and the next: 65.5 to 131 s. ACKs are checked for a cookie
 * only within TCP_COOKIE_LIFE_MS of the latest one sent. */
#define TCP_COOKIE_TICK_SHIFT 16u
#define TCP_COOKIE_LIFE_MS ((uint32_t)2u << TCP_COOKIE_TICK_SHIFT)  /* 32-bit: 0 in a 16-bit int */
#define TCP_COOKIE_TICK_MASK (UINT32_MAX >> TCP_COOKIE_TICK_SHIFT)   /* ticks wrap with the clock */

/* tlp.c: tail losses (RFC 8985 7 tail loss probe, RFC 5827 early
 * retransmit), with SACK. */
#if MIP_TCP_SACK
/* The duplicate ACKs that start a fast retransmit: 3, or with early
 * retransmit (segments out) - 1 when 2 or 3 are out and no new segment
 * can be sent (none written, or the windows, limited transmit's
 * included, have no room). */
uint8_t tcp_er_dupthresh(const struct mip_tcp_conn *c);
/* Arms t_rexmt for data in flight after an ACK advanced (restart: the
 * RTO starts again) or new data went out (restart when the timer was off,
 * persist or a probe timeout; an RTO under way keeps its deadline, RFC
 * 6298 5.1): then a probe timeout (TCPF_PTO) instead when a probe may be
 * sent and is due first. */
void tcp_arm_loss_timer(struct mip_tcp *tcp, struct mip_tcp_conn *c, bool restart);
/* The probe timeout came: sends the probe, opens its episode when it was
 * a retransmission, and arms the RTO. */
void tcp_tlp_fire(struct mip_tcp *tcp, struct mip_tcp_conn *c);
/* An ACK of c while its episode is open (tcp->tlp_conn == c), before
 * snd_una moves: dsack, it carries a D-SACK block; pure_dup, it is a
 * duplicate ACK with nothing new (no data, window or SACK). */
void tcp_tlp_ack(struct mip_tcp *tcp, struct mip_tcp_conn *c, uint32_t ack, bool dsack,
                 bool pure_dup);
#else
#define tcp_er_dupthresh(c) ((void)(c), (uint8_t)3u)
#define tcp_arm_loss_timer(tcp, c, restart)                                  \
    do {                                                                     \
        if ((restart) || !((c)->flags & TCPF_REXMT))                         \
            tcp_arm_rexmt((tcp), (c));                                       \
    } while (0)
#endif

/* tcp_timer.c */
uint32_t tcp_poll(void *ctx, struct mip_stack *s, mip_time_t now);
/* The period of the idle timer (t_idle, TCPF_IDLE): keepalive_ms when
 * keepalive is on; with it off and timestamps agreed, MIP_TCP_PAWS_IDLE_MS,
 * after which TS.Recent is no longer trusted (RFC 7323 5.5: the peer's
 * timestamp clock may have wrapped its sign bit); else 0, no timer.
 * tcp_input.c restarts it on every segment received for keepalive, on
 * every update of TS.Recent for PAWS (a dropped segment must not put the
 * 24 days off). */
static inline uint32_t tcp_idle_ms(const struct mip_tcp_conn *c)
{
#if MIP_TCP_TIMESTAMPS
    if (c->cfg.keepalive_ms == 0 && (c->flags & TCPF_TS_OK))
        return MIP_TCP_PAWS_IDLE_MS;
#endif
    return c->cfg.keepalive_ms;
}

/* The window scale (RFC 7323 2.3) that lets a window field of 16 bits
 * offer a ring of rx_size bytes: 0 when it fits, which it always does
 * without MIP_TCP_LARGE_RX. */
#if MIP_TCP_LARGE_RX
uint8_t tcp_wscale_for(mip_tcp_rxsize_t rx_size);
#else
#define tcp_wscale_for(rx_size) ((void)(rx_size), (uint8_t)0)
#endif

#endif
