/* TCP output: segment construction, the send decision (windows, Nagle,
 * silly-window avoidance, FIN), retransmissions, ACKs and RSTs. */
#include "tcp_internal.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include <stddef.h>
#include <string.h>

uint16_t tcp_local_mss(struct mip_tcp *tcp, const struct mip_addr *remote, uint8_t *netif)
{
    struct mip_addr nexthop;
    struct mip_netif *nif;
    uint8_t idx = 0;
    uint16_t mtu = 1280, hdrs;
    if (mip_route_lookup(tcp->stack, remote, &idx, &nexthop) == MIP_OK &&
        (nif = mip_netif_get(tcp->stack, idx)) != NULL)
        mtu = nif->mtu;
    if (netif != NULL)
        *netif = idx;
    hdrs = (uint16_t)((remote->family == MIP_AF_INET ? MIP_IPV4_HDR_LEN : MIP_IPV6_HDR_LEN) +
                      MIP_TCP_HDR_LEN);
    mtu = mtu > hdrs + 64u ? (uint16_t)(mtu - hdrs) : 64u;
    if (tcp->mss_max != 0u && mtu > tcp->mss_max)
        mtu = tcp->mss_max < 64u ? 64u : tcp->mss_max;
    return mtu;
}

uint32_t tcp_rcv_window(const struct mip_tcp_conn *c)
{
    uint32_t space = tcp_rxbuf_space(&c->rx);
    uint32_t max = (uint32_t)0xFFFFu << c->rcv_wscale;
    uint32_t edge;
    if (space > max)
        space = max;
    /* Receiver SWS avoidance (RFC 9293 3.8.6.2.2): do not open the window
     * by less than min(MSS, half the ring). */
    if (space < c->rx.size / 2u && space < c->cc.mss)
        space = 0;
    /* Never move the right edge left (RFC 9293 3.8.6.2.1), not even by
     * the bytes a scaled window field cannot name: round up to the scale
     * (as Linux does; those few bytes past the ring, if sent, are not
     * acknowledged). */
    edge = c->rcv_nxt + space;
    if (MIP_SEQ_LT(edge, c->rcv_adv)) {
        space = c->rcv_adv - c->rcv_nxt;
#if MIP_TCP_LARGE_RX
        space = (space + ((1u << c->rcv_wscale) - 1u)) >> c->rcv_wscale << c->rcv_wscale;
#endif
    }
    return space < max ? space : max;
}

void tcp_seg_start(struct tcp_seg *seg, uint32_t seq, uint32_t ack, uint8_t flags)
{
    /* Up to the options: of those only `present` is read before the rest
     * is written (each value goes with its bit), and `local` only through
     * src. Every segment sent comes here. */
    memset(seg, 0, offsetof(struct tcp_seg, opts));
    seg->opts.present = 0;
    seg->tx = NULL;
    seg->local.family = MIP_AF_NONE;
    seg->h.seq = seq;
    seg->h.ack = (flags & MIP_TCP_ACK) ? ack : 0u;
    seg->h.flags = flags;
}

uint16_t tcp_cksum(const struct mip_addr *src, const struct mip_addr *dst, const uint8_t *l4,
                   size_t len)
{
    uint32_t sum;
    if (src->family == MIP_AF_INET)
        sum = mip_cksum_pseudo4(src->bytes, dst->bytes, MIP_IPPROTO_TCP, (uint16_t)len);
    else
        sum = mip_cksum_pseudo6(src->bytes, dst->bytes, MIP_IPPROTO_TCP, (uint32_t)len);
    return mip_cksum_finish(mip_cksum_add(sum, l4, len));
}

mip_status tcp_emit(struct mip_tcp *tcp, struct tcp_seg *seg)
{
    struct mip_stack *s = tcp->stack;
    struct mip_ip_tx tx;
    struct mip_pbuf *p;
    size_t optlen = mip_tcp_opts_len(&seg->opts), written;
    uint8_t *w;
    uint16_t total;
    mip_status st;
    total = (uint16_t)(MIP_TCP_HDR_LEN + optlen + seg->data_len);
    /* Headroom for the link and IP headers only: TCP segments are sized
     * to the MTU and never fragmented. */
    p = mip_pbuf_alloc(&s->pool, (uint16_t)(MIP_LINK_HDR_MAX +
                       (seg->dst->family == MIP_AF_INET ? MIP_IPV4_HDR_LEN : MIP_IPV6_HDR_LEN)));
    if (p == NULL || (w = mip_pbuf_put(p, total)) == NULL) {
        mip_pbuf_free(&s->pool, p);
        return MIP_ERR_NOBUFS;
    }
    seg->h.hdr_len = (uint8_t)(MIP_TCP_HDR_LEN + optlen);
    (void)mip_tcp_emit(&seg->h, w, total);
    (void)mip_tcp_opts_emit(&seg->opts, w + MIP_TCP_HDR_LEN, optlen, &written);
    if (seg->data_len > 0)
        tcp_txbuf_copy(seg->tx, seg->data_off, w + seg->h.hdr_len, seg->data_len);
    mip_wr16(w + 16, tcp_cksum(seg->src, seg->dst, w, total));
    /* every field set, none cleared first (every segment sent) */
    tx.src = *seg->src;
    tx.dst = *seg->dst;
    tx.proto = MIP_IPPROTO_TCP;
    tx.ttl = 0;
    tx.tos = 0;
    tx.netif = seg->netif;
    tx.dont_fragment = false;
    st = mip_ip_output(s, &tx, p);
    if (st == MIP_OK || st == MIP_ERR_PENDING) {
        TCP_STAT_HOT(tcp, segs_tx);
        if (seg->h.flags & MIP_TCP_RST)
            TCP_STAT(tcp, rst_tx);
        return MIP_OK;
    }
    return st;
}

/* The fields every segment of connection c shares. */
void tcp_seg_init(struct mip_tcp *tcp, const struct mip_tcp_conn *c, struct tcp_seg *seg,
                  uint32_t seq, uint8_t flags)
{
    uint32_t win = tcp_rcv_window(c);
    tcp_seg_start(seg, seq, c->rcv_nxt, flags);
    mip_tcp_local_addr(tcp, c, &seg->local);
    seg->src = &seg->local;
    seg->dst = &c->remote;
    seg->h.src_port = c->lport;
    seg->h.dst_port = c->rport;
    seg->netif = c->netif;
    seg->h.window = (uint16_t)((flags & MIP_TCP_SYN) ? (win > 0xFFFFu ? 0xFFFFu : win)
                                                : (win >> c->rcv_wscale));
    seg->tx = &c->tx;
#if MIP_TCP_TIMESTAMPS
    if (c->flags & TCPF_TS_OK) {
        seg->opts.present |= MIP_TCP_HAS_TIMESTAMP;
        seg->opts.ts_val = tcp_ts_now(c, tcp->stack->now);
        seg->opts.ts_ecr = c->ts_recent;
    }
#endif
}

/* Emits a segment of connection c and records what it told the peer
 * about our receive side: the right edge and that no ACK is owed. Recorded
 * also when the segment could not leave (no buffer), as it always was. */
static mip_status conn_emit(struct mip_tcp *tcp, struct mip_tcp_conn *c, struct tcp_seg *seg)
{
    mip_status st = tcp_emit(tcp, seg);
    uint32_t edge = c->rcv_nxt + ((uint32_t)seg->h.window << ((seg->h.flags & MIP_TCP_SYN) ? 0 : c->rcv_wscale));
    if (MIP_SEQ_GT(edge, c->rcv_adv))
        c->rcv_adv = edge;
    c->flags &= (uint16_t)~(TCPF_ACKNOW | TCPF_DELACK);
#if MIP_TCP_SACK
    if (tcp->dsack_conn == c)
        tcp->dsack_conn = NULL;     /* reported by this segment, or not at all (RFC 2883 4) */
#endif
    return st;
}

#if MIP_TCP_SACK
/* The SACK option of a pure ACK: first a D-SACK block when a duplicate
 * segment is to be reported (RFC 2883 4: the first block, in the one ACK
 * that answers it), then the blocks of what the ring holds above rcv_nxt,
 * the latest first. */
static void add_sack_blocks(const struct mip_tcp *tcp, const struct mip_tcp_conn *c,
                            struct tcp_seg *seg)
{
    unsigned n = 0, max = (c->flags & TCPF_TS_OK) ? 3u : 4u;
    if (!(c->flags & TCPF_SACK_OK))
        return;
    if (tcp->dsack_conn == c) {
        seg->opts.sack[0].left = tcp->dsack_left;
        seg->opts.sack[0].right = tcp->dsack_left + tcp->dsack_len;
        n = 1;
    }
    /* sack_recent keeps the low bits of a ring size: the segment lies in
     * the window, within the ring after rcv_nxt, while it matters. */
    if (tcp_rxbuf_has_ooo(&c->rx))
        n += tcp_rxbuf_sack_blocks(&c->rx, c->rcv_nxt,
                                   c->rcv_nxt + (mip_tcp_rxsize_t)(c->sack_recent -
                                                                   (mip_tcp_rxsize_t)c->rcv_nxt),
                                   seg->opts.sack + n, max - n);
    if (n > 0) {
        seg->opts.present |= MIP_TCP_HAS_SACK;
        seg->opts.sack_count = (uint8_t)n;
    }
}
#endif

mip_status tcp_send_syn(struct mip_tcp *tcp, struct mip_tcp_conn *c)
{
    struct tcp_seg seg;
    uint8_t flags = MIP_TCP_SYN;
    mip_status st;
    if (c->state == MIP_TCP_SYN_RECEIVED)
        flags |= MIP_TCP_ACK;
    tcp_seg_init(tcp, c, &seg, c->iss, flags);
    seg.opts.present |= MIP_TCP_HAS_MSS;
    seg.opts.mss = tcp_local_mss(tcp, &c->remote, NULL);
#if MIP_TCP_WSCALE
    if (c->state == MIP_TCP_SYN_SENT || (c->flags & TCPF_WS_OK)) {
        seg.opts.present |= MIP_TCP_HAS_WSCALE;
        seg.opts.wscale = c->rcv_wscale;
    }
#endif
#if MIP_TCP_SACK
    if (c->cfg.sack && (c->state == MIP_TCP_SYN_SENT || (c->flags & TCPF_SACK_OK)))
        seg.opts.present |= MIP_TCP_HAS_SACK_PERM;
#endif
#if MIP_TCP_TIMESTAMPS
    if (c->cfg.timestamps && c->state == MIP_TCP_SYN_SENT) {
        seg.opts.present |= MIP_TCP_HAS_TIMESTAMP;
        seg.opts.ts_val = tcp_ts_now(c, tcp->stack->now);
        seg.opts.ts_ecr = 0;
    }
#endif
    st = conn_emit(tcp, c, &seg);
    if (MIP_SEQ_LEQ(c->snd_max, c->iss))
        c->snd_max = c->iss + 1;
    c->snd_nxt = c->iss + 1;
    tcp_arm_rexmt(tcp, c);
    return st;
}

uint32_t tcp_acceptable_seq(const struct mip_tcp_conn *c)
{
    /* snd_max, RFC 9293's SND.NXT: after a timeout snd_nxt goes back to
     * snd_una (go-back-N), maybe below what the peer has received, and a
     * segment numbered there is not acceptable to it. Two stacks that
     * timed out at once then dropped each other's ACKs, each answered with
     * another, without end (before 2026-11-25). But not past the right
     * edge of the peer's window: a zero-window probe's byte lies there,
     * and a segment numbered after it is outside the window, dropped (an
     * ACK of the peer's data lost, a RST unanswered, RFC 5961 3.2); Linux's
     * tcp_acceptable_seq makes the same choice. */
    uint32_t edge = c->snd_una + c->snd_wnd;
    return MIP_SEQ_GT(c->snd_max, edge) ? edge : c->snd_max;
}

void tcp_send_ack(struct mip_tcp *tcp, struct mip_tcp_conn *c)
{
    struct tcp_seg seg;
    tcp_seg_init(tcp, c, &seg, tcp_acceptable_seq(c), MIP_TCP_ACK);
#if MIP_TCP_SACK
    add_sack_blocks(tcp, c, &seg);
#endif
    (void)conn_emit(tcp, c, &seg);
}

/* Sequence number of the first byte of the send ring (the SYN occupies
 * no ring byte). */
static uint32_t ring_seq(const struct mip_tcp_conn *c)
{
    return c->snd_una + ((c->flags & TCPF_SYN_ACKED) ? 0u : 1u);
}

/* Sends [seq, seq+len) of the ring (len may be 0 for a FIN alone), with
 * FIN when `fin`. */
static mip_status send_data(struct mip_tcp *tcp, struct mip_tcp_conn *c, uint32_t seq,
                            uint32_t len, bool fin)
{
    struct tcp_seg seg;
    mip_status st;
    uint8_t flags = MIP_TCP_ACK;
    if (fin)
        flags |= MIP_TCP_FIN;
    if (len > 0 && seq + len == ring_seq(c) + c->tx.len)
        flags |= MIP_TCP_PSH;
    /* SACK blocks ride on pure ACKs only: on a full-sized data segment they
     * would push it past the MTU the peer's MSS was computed from. */
    tcp_seg_init(tcp, c, &seg, seq, flags);
    seg.data_off = (uint16_t)(seq - ring_seq(c));
    seg.data_len = (uint16_t)len;
    st = conn_emit(tcp, c, &seg);
    return st;
}

void tcp_retransmit(struct mip_tcp *tcp, struct mip_tcp_conn *c, uint32_t seq, uint32_t len)
{
    uint32_t ring_end = ring_seq(c) + c->tx.len;
    uint32_t limit = c->snd_una + c->snd_wnd;
    uint32_t mss = tcp_smss(c);
    bool fin = false;
    if (len > mss)
        len = mss;
    if (MIP_SEQ_GT(seq + len, ring_end))
        len = MIP_SEQ_GT(ring_end, seq) ? ring_end - seq : 0;
    /* Bytes sent before, or new ones inside the peer's window; only the
     * persist probe goes past it (RFC 9293 3.8.6.1). */
    if (MIP_SEQ_LT(limit, c->snd_max))
        limit = c->snd_max;
    if (!(c->flags & TCPF_PERSIST) && MIP_SEQ_GT(seq + len, limit))
        len = MIP_SEQ_GT(limit, seq) ? limit - seq : 0;
    if ((c->flags & TCPF_FIN_SENT) && seq + len == ring_end)
        fin = true;
    if (len == 0 && !fin)
        return;
    /* Karn: a retransmitted range is never timed. */
    if (c->flags & TCPF_TIMING) {
        uint32_t timed = tcp_rtt_seq(c);
        if (MIP_SEQ_GEQ(timed, seq) && MIP_SEQ_LT(timed, seq + len + 1u))
            c->flags &= (uint16_t)~TCPF_TIMING;
    }
    (void)send_data(tcp, c, seq, len, fin);
    TCP_STAT(tcp, rexmits);
    if (MIP_SEQ_GT(seq + len + (fin ? 1u : 0u), c->snd_nxt))
        c->snd_nxt = seq + len + (fin ? 1u : 0u);
    if (MIP_SEQ_GT(c->snd_nxt, c->snd_max))
        c->snd_max = c->snd_nxt;  /* else the ACK of new bytes sent here is "above snd_max" */
}

static bool can_send_data(const struct mip_tcp_conn *c)
{
    return c->state == MIP_TCP_ESTABLISHED || c->state == MIP_TCP_CLOSE_WAIT ||
           c->state == MIP_TCP_FIN_WAIT_1 || c->state == MIP_TCP_CLOSING ||
           c->state == MIP_TCP_LAST_ACK;
}

#if MIP_TCP_SACK
bool tcp_send_probe_data(struct mip_tcp *tcp, struct mip_tcp_conn *c)
{
    uint32_t ring_end = ring_seq(c) + c->tx.len, inflight = c->snd_nxt - c->snd_una;
    uint32_t avail = can_send_data(c) && MIP_SEQ_GT(ring_end, c->snd_nxt) ? ring_end - c->snd_nxt
                                                                           : 0u;
    uint32_t room = c->snd_wnd > inflight ? c->snd_wnd - inflight : 0u, len;
    bool fin;
    if (c->snd_nxt != c->snd_max)
        return false;
    len = avail < room ? avail : room;
    if (len > tcp_smss(c))
        len = tcp_smss(c);
    if (len == 0u)
        return false;
    fin = (c->flags & TCPF_FIN_QUEUED) && c->snd_nxt + len == ring_end;
    if (send_data(tcp, c, c->snd_nxt, len, fin) != MIP_OK)
        return false;
    c->snd_nxt += len + (fin ? 1u : 0u);
    c->snd_max = c->snd_nxt;
    if (fin)
        c->flags |= TCPF_FIN_SENT;
    return true;
}
#endif

void tcp_output(struct mip_tcp *tcp, struct mip_tcp_conn *c)
{
    unsigned rounds;
    bool sent = false;
    if (c->state == MIP_TCP_SYN_SENT || c->state == MIP_TCP_SYN_RECEIVED ||
        c->state == MIP_TCP_CLOSED) {
        if (c->state == MIP_TCP_SYN_RECEIVED && (c->flags & TCPF_ACKNOW))
            (void)tcp_send_syn(tcp, c);
        return;
    }
    /* Bounded: each round sends at most one MSS; a ring holds 65535. */
    for (rounds = 0; rounds < 2048u; rounds++) {
        uint32_t ring_end = ring_seq(c) + c->tx.len;
        uint32_t inflight = c->snd_nxt - c->snd_una;
        uint32_t avail = can_send_data(c) && MIP_SEQ_GT(ring_end, c->snd_nxt)
                             ? ring_end - c->snd_nxt : 0u;
        uint32_t wnd = c->snd_wnd, cwnd, usable, len;
        uint16_t mss = tcp_smss(c);
        bool fin = false, send = false;
        /* Limited transmit sends new data only: not while a timeout's
         * go-back-N resends what was sent before (snd_nxt < snd_max). */
        cwnd = c->cfg.limited_transmit && c->snd_nxt == c->snd_max
                   ? tcp_cc_window_limited(&c->cc) : tcp_cc_window(&c->cc);
        if (cwnd < wnd)
            wnd = cwnd;
        usable = wnd > inflight ? wnd - inflight : 0u;
        len = avail < usable ? avail : usable;
        if (len > mss)
            len = mss;
        /* The FIN follows the last byte, also when it is sent again after
         * a timeout rolled snd_nxt back (once it is ACKed the state allows
         * no data: FIN_WAIT_2 or gone). */
        if ((c->flags & TCPF_FIN_QUEUED) && c->snd_nxt + len == ring_end && can_send_data(c))
            fin = true;
        if (len > 0) {
            /* Nagle (RFC 896, RFC 9293 3.7.4) and sender SWS avoidance. */
            if (len == mss)
                send = true;
            else if (len == avail && (c->cfg.nodelay || inflight == 0 || fin))
                send = true;
            else if (len >= c->snd_wnd / 2u && c->snd_wnd > 0 && inflight == 0)
                send = true;
        } else if (fin) {
            send = true;    /* a FIN takes no window */
        }
        if (!send) {
            /* Persist: data waits behind a zero window and nothing is in
             * flight to bring a window update. */
            if (avail > 0 && c->snd_wnd == 0 && inflight == 0 && !(c->flags & TCPF_REXMT)) {
                c->flags |= TCPF_PERSIST;
                tcp_arm_rexmt(tcp, c);
            }
            break;
        }
        if (!(c->flags & TCPF_TIMING) && len > 0 && c->snd_nxt == c->snd_max) {
            c->flags |= TCPF_TIMING;
            c->rtt_seq = (uint16_t)c->snd_nxt;
            c->rtt_start = tcp->stack->now;
        }
        if (send_data(tcp, c, c->snd_nxt, len, fin) != MIP_OK) {
            /* No buffer now: the retransmission timer tries again. */
            if (!(c->flags & TCPF_REXMT))
                tcp_arm_rexmt(tcp, c);
            break;
        }
        c->snd_nxt += len + (fin ? 1u : 0u);
        if (fin)
            c->flags |= TCPF_FIN_SENT;
        if (MIP_SEQ_GT(c->snd_nxt, c->snd_max))
            c->snd_max = c->snd_nxt;
        /* RFC 6298 5.1: the RTO runs from the oldest segment out. A
         * probe timeout under way stays too (below). */
        if (!(c->flags & TCPF_REXMT) || (c->flags & TCPF_PERSIST)) {
            c->flags &= (uint16_t)~TCPF_PERSIST;
            tcp_arm_rexmt(tcp, c);
        }
        sent = true;
        if (fin)
            break;
    }
#if MIP_TCP_SACK
    /* A probe timeout for what went out, unless one is armed: RFC 8985
     * 7.2 says SHOULD restart it with each new segment, but an ACK of new
     * data restarts it anyway (ack_input clears it, data_fin_output sets
     * it), and between ACKs keeping the earlier deadline spares this
     * computation on every write of a bulk sender (bench/lwip-cost's send
     * path, rest: 1,880 instructions per KB with the restart, 1,838
     * without; docs/TCP.md "Tail losses"). */
    if (sent && !(c->flags & TCPF_PTO))
        tcp_arm_loss_timer(tcp, c, false);
#else
    (void)sent;
#endif
    if (c->flags & TCPF_ACKNOW)
        tcp_send_ack(tcp, c);
}
