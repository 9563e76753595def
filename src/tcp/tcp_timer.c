/* TCP timers, run from mip_stack_poll: retransmission (RFC 6298), persist
 * (zero-window probes), delayed ACK, keepalive (RFC 9293 3.8.4) and the
 * 24-day TS.Recent expiry (RFC 7323 5.5), FIN_WAIT_2 after close, SYN cache
 * retransmission and TIME_WAIT expiry. docs/TCP.md "Liveness" lists how
 * long each state can last. */
#include "tcp_internal.h"
#include <string.h>

#ifndef MIP_TCP_KEEPALIVE_PROBES
#define MIP_TCP_KEEPALIVE_PROBES 4u
#endif

static void rexmt_timeout(struct mip_tcp *tcp, struct mip_tcp_conn *c)
{
    uint32_t flight = c->snd_max - c->snd_una;
    bool syn;
    c->flags &= (uint16_t)~TCPF_REXMT;
#if MIP_TCP_FIN_WAIT_2_MS
    if (c->state == MIP_TCP_FIN_WAIT_2) {
        /* The FIN_WAIT_2 timer of a closed connection (conn_poll). */
        TCP_STAT(tcp, conns_timed_out);
        tcp_conn_abort(tcp, c, MIP_TCP_ERR_TIMEOUT);
        return;
    }
#endif
#if MIP_TCP_SACK
    if (c->flags & TCPF_PTO) {
        /* A probe timeout is no retransmission timeout: no backoff, no
         * retry counted (RFC 8985 7.3). */
        tcp_tlp_fire(tcp, c);
        return;
    }
    if (tcp->tlp_conn == c)
        tcp->tlp_conn = NULL;   /* the RTO's response replaces the episode's */
#endif
    /* Saturating: with max_retries 255 the count stops at 255 and the
     * connection never gives up (nor does the count wrap to 0, which
     * would let Karn's rule take a sample from a retransmission). A
     * zero-window probe counts too; any segment while probing clears the
     * count (tcp_input.c), so only a peer that answers none of them is
     * given up on (RFC 1122 4.2.2.17). */
    if (c->retries < 255u)
        c->retries++;
    syn = c->state == MIP_TCP_SYN_SENT || c->state == MIP_TCP_SYN_RECEIVED;
    if (c->retries > (syn ? TCP_SYN_LIMIT(tcp) : tcp->max_retries)) {
        TCP_STAT(tcp, conns_timed_out);
        /* no RST for a handshake that never completed */
        if (syn)
            tcp_conn_finish(tcp, c, MIP_TCP_ERR_TIMEOUT);
        else
            tcp_conn_abort(tcp, c, MIP_TCP_ERR_TIMEOUT);
        return;
    }
    tcp_rtt_backoff(&c->rtt);
    if (c->flags & TCPF_PERSIST) {
        /* Zero-window probe: one byte past the window (RFC 9293 3.8.6.1). */
        TCP_STAT(tcp, zero_window_probes);
        tcp_retransmit(tcp, c, c->snd_una, 1u);   /* pulls snd_max up to snd_nxt */
        tcp_arm_rexmt(tcp, c);
        return;
    }
    TCP_STAT(tcp, timeouts);
    c->flags &= (uint16_t)~TCPF_TIMING;
    if (syn) {
        (void)tcp_send_syn(tcp, c);
        return;
    }
    tcp_cc_on_timeout(&c->cc, flight, c->snd_max);
#if MIP_TCP_SACK
    /* RFC 2018 8: after a timeout, SACK information is not trusted. */
    tcp_sackb_reset(&c->sackb, c->snd_una);
#endif
    /* Go back N: tcp_output sends the rest again, with the FIN when it
     * was sent. */
    c->snd_nxt = c->snd_una;
    tcp_retransmit(tcp, c, c->snd_una, c->cc.mss);
    tcp_arm_rexmt(tcp, c);
}

static void keepalive(struct mip_tcp *tcp, struct mip_tcp_conn *c)
{
    struct tcp_seg seg;
    uint32_t interval = c->cfg.keepalive_ms / MIP_TCP_KEEPALIVE_PROBES;
    if (c->cfg.keepalive_ms == 0) {
        /* The idle timer with keepalive off: MIP_TCP_PAWS_IDLE_MS without
         * a segment, TS.Recent is no longer trusted (RFC 7323 5.5);
         * conn_poll arms the timer again (or not, without timestamps).
         * (Keepalive turned off since it was armed ends here too, and
         * marks TS.Recent early; harmless: the next in-order segment sets
         * it again.) */
        c->flags = (uint16_t)((c->flags & ~TCPF_IDLE) | TCPF_TS_STALE);
        return;
    }
    if (c->state != MIP_TCP_ESTABLISHED && c->state != MIP_TCP_CLOSE_WAIT &&
        c->state != MIP_TCP_FIN_WAIT_2) {
        c->t_idle = tcp->stack->now + c->cfg.keepalive_ms;
        return;
    }
    if (c->ka_probes >= MIP_TCP_KEEPALIVE_PROBES) {
        tcp_conn_abort(tcp, c, MIP_TCP_ERR_KEEPALIVE);
        return;
    }
    /* A segment one below snd_una: the peer must answer with an ACK
     * (RFC 1122 4.2.3.6). With TSopt when agreed (RFC 7323 3.2: every
     * non-RST segment carries it). */
    tcp_seg_init(tcp, c, &seg, c->snd_una - 1u, MIP_TCP_ACK);
    (void)tcp_emit(tcp, &seg);
    TCP_STAT(tcp, keepalives);
    c->ka_probes++;
    c->t_idle = tcp->stack->now + (interval < 500u ? 500u : interval);
}

static uint32_t conn_poll(struct mip_tcp *tcp, struct mip_tcp_conn *c, mip_time_t now)
{
    uint32_t next = MIP_POLL_IDLE, idle;
    if ((c->flags & TCPF_DELACK) && tcp_delack_delay(c, now) == 0) {
        c->flags |= TCPF_ACKNOW;
        tcp_output(tcp, c);
    }
    if ((c->flags & TCPF_REXMT) && mip_time_reached(now, c->t_rexmt)) {
        rexmt_timeout(tcp, c);
        if (c->state == MIP_TCP_CLOSED)
            return MIP_POLL_IDLE;
    }
#if MIP_TCP_FIN_WAIT_2_MS
    /* A closed connection waits for the peer's FIN so long
     * (config.h); the retransmission timer is idle once our FIN is ACKed. */
    if (c->state == MIP_TCP_FIN_WAIT_2 && (c->flags & TCPF_NO_READ) &&
        !(c->flags & TCPF_REXMT)) {
        c->t_rexmt = now + MIP_TCP_FIN_WAIT_2_MS;
        c->flags |= TCPF_REXMT;
    }
#endif
    if ((c->flags & TCPF_IDLE) && mip_time_reached(now, c->t_idle)) {
        keepalive(tcp, c);
        if (c->state == MIP_TCP_CLOSED)
            return MIP_POLL_IDLE;
    }
    /* The idle timer is (re)armed here, not only when the connection is
     * set up, and is never further away than its period, so that
     * c->cfg.keepalive_ms set (or shortened) on an established connection
     * takes effect, also over the 24-day PAWS timer (idle time counted
     * from this poll; tcp_input.c restarts it on every segment received
     * when keepalive is on, else on every update of TS.Recent). */
    idle = tcp_idle_ms(c);
    if (idle != 0 && (!(c->flags & TCPF_IDLE) || c->t_idle - now > idle)) {
        c->t_idle = now + idle;
        c->flags |= TCPF_IDLE;
    }
    if ((c->flags & TCPF_DELACK) && tcp_delack_delay(c, now) < next)
        next = tcp_delack_delay(c, now);
    if (c->flags & TCPF_REXMT)
        next = mip_next_delay(next, now, c->t_rexmt);
    if (c->flags & TCPF_IDLE)
        next = mip_next_delay(next, now, c->t_idle);
    return next;
}



uint32_t tcp_poll(void *ctx, struct mip_stack *s, mip_time_t now)
{
    struct mip_tcp *tcp = ctx;
    struct mip_tcp_conn *c, *next_c;
    uint32_t next = MIP_POLL_IDLE, d;
    unsigned i;
    (void)s;
    for (c = tcp->conns; c != NULL; c = next_c) {
        next_c = c->next;
        d = conn_poll(tcp, c, now);
        if (d < next)
            next = d;
    }
    for (i = 0; i < MIP_TCP_SYN_BACKLOG; i++) {
        struct mip_tcp_syn *e = &tcp->syn[i];
        if (!(e->flags & TCPS_USED))
            continue;
        if (mip_time_reached(now, e->deadline)) {
            if (e->retries < 255u)
                e->retries++;
            if (e->retries > TCP_SYN_LIMIT(tcp)) {
                e->flags = 0;
                continue;
            }
            tcp_syn_send_synack(tcp, e);
            /* doubling from the initial RTO, at most the maximum (1 s << 6
             * is above 60 s) */
            e->deadline = now + (e->retries < 6u ? MIP_TCP_RTO_INITIAL_MS << e->retries
                                                  : MIP_TCP_RTO_MAX_MS);
        }
        next = mip_next_delay(next, now, e->deadline);
    }
    for (i = 0; i < MIP_TCP_TIMEWAIT_MAX; i++) {
        struct mip_tcp_tw *t = &tcp->tw[i];
        if (!t->used)
            continue;
        if (mip_time_reached(now, t->deadline)) {
            t->used = 0;
            continue;
        }
        next = mip_next_delay(next, now, t->deadline);
    }
    return next;
}
