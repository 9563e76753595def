/* TCP timers, run from mip_stack_poll: retransmission (RFC 6298), persist
 * (zero-window probes), delayed ACK, keepalive (RFC 9293 3.8.4), SYN cache
 * retransmission and TIME_WAIT expiry. */
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
    if (c->flags & TCPF_PERSIST) {
        /* Zero-window probe: one byte past the window (RFC 9293 3.8.6.1);
         * probing goes on as long as the peer answers. */
        TCP_STAT(tcp, zero_window_probes);
        tcp_rtt_backoff(&c->rtt);
        tcp_retransmit(tcp, c, c->snd_una, 1u);   /* pulls snd_max up to snd_nxt */
        tcp_arm_rexmt(tcp, c);
        return;
    }
    /* Saturating: with max_retries 255 the count stops at 255 and the
     * connection never gives up (nor does the count wrap to 0, which
     * would let Karn's rule take a sample from a retransmission). */
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
    TCP_STAT(tcp, timeouts);
    tcp_rtt_backoff(&c->rtt);
    c->flags &= (uint16_t)~TCPF_TIMING;
    if (syn) {
        (void)tcp_send_syn(tcp, c);
        return;
    }
    tcp_cc_on_timeout(&c->cc, flight);
#if MIP_TCP_SACK
    /* RFC 2018 8: after a timeout, SACK information is not trusted. */
    tcp_sackb_reset(&c->sackb, c->snd_una);
#endif
    c->snd_nxt = c->snd_una;
    tcp_retransmit(tcp, c, c->snd_una, c->cc.mss);
    tcp_arm_rexmt(tcp, c);
}

static void keepalive(struct mip_tcp *tcp, struct mip_tcp_conn *c)
{
    struct tcp_seg seg;
    uint32_t interval = c->cfg.keepalive_ms / MIP_TCP_KEEPALIVE_PROBES;
    if (c->cfg.keepalive_ms == 0) {
        /* Turned off since it was armed: t_idle = now + 0 would be due on
         * every poll (and probe every 500 ms). */
        c->flags &= (uint16_t)~TCPF_IDLE;
        return;
    }
    if (c->state != MIP_TCP_ESTABLISHED && c->state != MIP_TCP_CLOSE_WAIT) {
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
    uint32_t next = MIP_POLL_IDLE;
    if ((c->flags & TCPF_DELACK) && tcp_delack_delay(c, now) == 0) {
        c->flags |= TCPF_ACKNOW;
        tcp_output(tcp, c);
    }
    if ((c->flags & TCPF_REXMT) && mip_time_reached(now, c->t_rexmt)) {
        rexmt_timeout(tcp, c);
        if (c->state == MIP_TCP_CLOSED)
            return MIP_POLL_IDLE;
    }
    /* Keepalive is armed here, not when the connection is set up, so that
     * c->cfg.keepalive_ms set on an established connection takes effect
     * (idle time counted from this poll; every received segment restarts
     * it, tcp_input.c). */
    if (!(c->flags & TCPF_IDLE) && c->cfg.keepalive_ms != 0) {
        c->t_idle = now + c->cfg.keepalive_ms;
        c->flags |= TCPF_IDLE;
    }
    if ((c->flags & TCPF_IDLE) && mip_time_reached(now, c->t_idle)) {
        keepalive(tcp, c);
        if (c->state == MIP_TCP_CLOSED)
            return MIP_POLL_IDLE;
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
