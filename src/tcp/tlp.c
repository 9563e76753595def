/* Tail losses: the tail loss probe of RFC 8985 7 (TLP) and RFC 5827 early
 * retransmit (ER), both with SACK only (mip_tcp_config.tlp and
 * .early_retransmit).
 *
 * A loss in the last segments of a flight draws fewer than three
 * duplicate ACKs, and waits for the RTO: at least MIP_TCP_RTO_MIN_MS, and
 * on a lossy multi-hop path usually seconds after backoff. ER lowers the
 * duplicate threshold to (segments out) - 1 when fewer than four are out
 * and nothing new can be sent. TLP sends one segment when ACKs are two
 * smoothed RTTs late: new data if the peer's window allows, else the last
 * segment again; the ACK it draws carries the SACK information that lets
 * ER or NewReno repair the tail, and when the probe itself repaired the
 * loss, its episode (RFC 8985 7.4) reduces cwnd as a fast recovery would.
 *
 * RACK, the other half of RFC 8985, is not here: it needs a transmit time
 * per segment, which a byte ring does not keep (docs/TCP.md). */
#include "tcp_internal.h"

#if MIP_TCP_SACK

/* RFC 8985 7.2: WCDelAckT, the worst case of the peer's delayed ACK. */
#define TLP_DELACK_MS 200u
/* Linux's floor for the probe timeout (tcp_schedule_loss_probe): below a
 * few ms the probe races the ACK that is on its way. */
#define TLP_MIN_MS 10u

/* Payload bytes in flight (the FIN takes a sequence number, no byte). */
static uint32_t data_in_flight(const struct mip_tcp_conn *c)
{
    uint32_t f = c->snd_max - c->snd_una;
    return (c->flags & TCPF_FIN_SENT) && f > 0u ? f - 1u : f;
}

/* Can a new segment go on this duplicate ACK (RFC 5827 2.1: ER is for a
 * sender that cannot use limited transmit)? Bytes written and not sent,
 * and room in the peer's window and in cwnd, with the allowance limited
 * transmit will have once this duplicate is counted. */
static bool can_send_new(const struct mip_tcp_conn *c)
{
    uint32_t flight = c->snd_max - c->snd_una, wnd = tcp_cc_window(&c->cc);
    if (c->snd_una + c->tx.len == c->snd_max || (c->flags & TCPF_FIN_SENT))
        return false;
    if (c->cfg.limited_transmit && c->cc.dupacks < 2u) {
        struct mip_tcp_cc next = c->cc;
        next.dupacks++;
        wnd = tcp_cc_window_limited(&next);
    }
    if (c->snd_wnd < wnd)
        wnd = c->snd_wnd;
    return wnd > flight;
}

uint8_t tcp_er_dupthresh(const struct mip_tcp_conn *c)
{
    uint32_t smss = tcp_smss(c), oseg;
    if (!c->cfg.early_retransmit || !(c->flags & TCPF_SACK_OK) || smss == 0u || can_send_new(c))
        return 3u;
    /* RFC 5827 3.1: oseg < 4 outstanding segments (a short last one
     * counts), ER_thresh = oseg - 1; one segment out draws no duplicate. */
    oseg = (data_in_flight(c) + smss - 1u) / smss;
    return oseg >= 2u && oseg < 4u ? (uint8_t)(oseg - 1u) : 3u;
}

/* May c open an episode? Not while its own is open (one probe until an
 * ACK answers it, RFC 8985 7.3); another connection's episode gives way
 * when that one has nothing in flight, since no ACK can end it then. */
static bool slot_free(const struct mip_tcp *tcp, const struct mip_tcp_conn *c)
{
    const struct mip_tcp_conn *h = tcp->tlp_conn;
    return h == NULL || (h != c && h->snd_una == h->snd_max);
}

/* An RTT sample was taken (RFC 8985 7.2 schedules no PTO without one).
 * Before the first, srtt_x8 is 0 and rttvar_x4 holds the RTO (tcp_parts.h);
 * samples of 0 ms (a sub-millisecond link) leave both 0. */
static bool has_rtt(const struct mip_tcp_conn *c)
{
    return c->rtt.srtt_x8 != 0u || c->rtt.rttvar_x4 == 0u;
}

/* RFC 8985 7.2: may a PTO be scheduled now? */
static bool tlp_may_probe(const struct mip_tcp *tcp, const struct mip_tcp_conn *c)
{
    return c->cfg.tlp && (c->flags & TCPF_SACK_OK) && !(c->flags & TCPF_PERSIST) &&
           (c->state == MIP_TCP_ESTABLISHED || c->state == MIP_TCP_CLOSE_WAIT ||
            c->state == MIP_TCP_FIN_WAIT_1 || c->state == MIP_TCP_CLOSING ||
            c->state == MIP_TCP_LAST_ACK) &&
           !c->cc.in_recovery && c->retries == 0u && c->snd_nxt == c->snd_max &&
           c->snd_max != c->snd_una && has_rtt(c) && slot_free(tcp, c);
}

void tcp_arm_loss_timer(struct mip_tcp *tcp, struct mip_tcp_conn *c, bool restart)
{
    uint32_t pto, srtt;
    if (restart || !(c->flags & TCPF_REXMT))
        tcp_arm_rexmt(tcp, c);
    if (!tlp_may_probe(tcp, c))
        return;
    /* RFC 8985 7.2: PTO = 2 SRTT, plus WCDelAckT for a one-segment
     * flight (its ACK may be delayed), and never after the RTO.
     * WCDelAckT is RFC 8985's 200 ms, or our own delack_ms when longer
     * (taken to be the peer's too, as the RTO's floor takes it,
     * tcp_arm_rexmt): the probe comes an SRTT after the latest delayed
     * ACK. (With the RTO floor's extra 100 ms margin a lone segment on a
     * fast link would never be probed: 2 SRTT + 300 ms > 300 ms.) */
    srtt = c->rtt.srtt_x8 >> 3;
    pto = 2u * srtt;
    if (data_in_flight(c) <= tcp_smss(c))
        pto += tcp_delack_ms(c) > TLP_DELACK_MS ? (uint32_t)tcp_delack_ms(c) : TLP_DELACK_MS;
    else
        pto += 2u;      /* RFC 8985 7.2: two ticks of the clock */
    if (pto < TLP_MIN_MS)
        pto = TLP_MIN_MS;
    if (mip_time_before(tcp->stack->now + pto, c->t_rexmt)) {
        c->t_rexmt = tcp->stack->now + pto;
        c->flags |= TCPF_PTO;
    }
}

void tcp_tlp_fire(struct mip_tcp *tcp, struct mip_tcp_conn *c)
{
    c->flags &= (uint16_t)~TCPF_PTO;
    if (slot_free(tcp, c)) {
        /* RFC 8985 7.3: new data when the peer's window has room for
         * it, else the last segment again. */
        bool retrans = !tcp_send_probe_data(tcp, c);
        if (retrans) {
            uint32_t data = data_in_flight(c), smss = tcp_smss(c);
            uint32_t len = data < smss ? data : smss;
            tcp_retransmit(tcp, c, c->snd_max - ((c->flags & TCPF_FIN_SENT) ? 1u : 0u) - len,
                           len);
        }
        TCP_STAT(tcp, tlp_probes);
        tcp->tlp_conn = c;
        tcp->tlp_end = c->snd_max;
        tcp->tlp_retrans = retrans;
    }
    /* Else another connection's episode took the slot since the PTO was
     * armed (rare: two tails at once): no probe, and the RTO runs from
     * now, at most a PTO later than it would have. RFC 8985 7.3: after a
     * probe, the RTO, not another probe, until an ACK comes. */
    tcp_arm_rexmt(tcp, c);
}

void tcp_tlp_ack(struct mip_tcp *tcp, struct mip_tcp_conn *c, uint32_t ack, bool dsack,
                 bool pure_dup)
{
    if (c->cc.in_recovery) {
        /* Fast recovery took over: its cwnd reduction is the response. */
        tcp->tlp_conn = NULL;
        return;
    }
    if (MIP_SEQ_LT(ack, tcp->tlp_end))
        return;
    if (!tcp->tlp_retrans) {
        /* new data cannot have filled a hole (7.4.1) */
        tcp->tlp_conn = NULL;
        return;
    }
    /* RFC 8985 7.4.2: a D-SACK, or a pure duplicate ACK of everything up
     * to the probe, says the original and the probe both arrived: no
     * loss. An ACK above the probe without either says the probe filled
     * a hole. An ACK of exactly the probe's end without either waits:
     * the duplicate's ACK may follow. */
    if (dsack || pure_dup) {
        tcp->tlp_conn = NULL;
    } else if (MIP_SEQ_GT(ack, tcp->tlp_end)) {
        tcp_cc_on_tail_loss(&c->cc, c->snd_max - c->snd_una);
        TCP_STAT(tcp, tlp_losses);
        tcp->tlp_conn = NULL;
    }
}

#endif
