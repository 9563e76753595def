/* TCP input: segment validation, demultiplexing, the SYN cache, and the
 * state machine of RFC 9293 3.10.7 with the RFC 5961 defences. */
#include "tcp_internal.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/bytes.h"
#include <string.h>

/* A received segment, parsed once. */
struct tcp_in {
    const struct mip_ip_rx *rx;
    struct mip_tcp_hdr h;
    struct mip_tcp_opts o;
    const uint8_t *data;
    uint32_t len;        /* payload bytes */
    uint32_t seglen;     /* payload + SYN + FIN */
};

/* --- helpers ------------------------------------------------------------ */

/* The send window from segment h (SND.WND, SND.WL1, SND.WL2). */
static void snd_window(struct mip_tcp_conn *c, const struct mip_tcp_hdr *h, uint32_t wnd)
{
    c->snd_wnd = wnd;
    c->snd_wl1 = h->seq;
    c->snd_wl2 = h->ack;
}

/* The options of the peer's SYN (o->present: what it offered), the
 * congestion window for its MSS, and the send window of segment h (the
 * peer's SYN, or the ACK of ours). */
static void take_options(struct mip_tcp_conn *c, const struct mip_tcp_opts *o, uint16_t local_mss,
                         const struct mip_tcp_hdr *h)
{
    uint16_t mss = (o->present & MIP_TCP_HAS_MSS) ? o->mss : 536u;  /* RFC 9293 3.7.1 */
    if (mss > local_mss)
        mss = local_mss;
    if (mss < 64u)
        mss = 64u;
    tcp_cc_init(&c->cc, mss, c->cfg.cwnd_cap);
#if MIP_TCP_WSCALE
    if ((o->present & MIP_TCP_HAS_WSCALE)) {
        c->flags |= TCPF_WS_OK;
        c->snd_wscale = o->wscale > 14u ? 14u : o->wscale;
    } else {
        c->snd_wscale = 0;
        c->rcv_wscale = 0;
    }
#else
    c->snd_wscale = 0;
    c->rcv_wscale = 0;
#endif
#if MIP_TCP_SACK
    if ((o->present & MIP_TCP_HAS_SACK_PERM) && c->cfg.sack)
        c->flags |= TCPF_SACK_OK;
#endif
#if MIP_TCP_TIMESTAMPS
    if ((o->present & MIP_TCP_HAS_TIMESTAMP) && c->cfg.timestamps) {
        c->flags |= TCPF_TS_OK;
        c->ts_recent = o->ts_val;
    }
#endif
    /* never scaled in a SYN */
    snd_window(c, h, (uint32_t)h->window << ((h->flags & MIP_TCP_SYN) ? 0u : c->snd_wscale));
}


struct mip_tcp_conn *tcp_find_conn(struct mip_tcp *tcp, const struct tcp_tuple *k)
{
    struct mip_tcp_conn *c;
    for (c = tcp->conns; c != NULL; c = c->next)
        if (c->lport == k->lport && c->rport == k->rport && mip_addr_eq(&c->remote, k->remote) &&
            tcp_local_ref_is(tcp->stack, c->local, k->local))
            return c;
    return NULL;
}

/* True when a SYN cache entry's or TIME_WAIT record's 4-tuple is k. */
bool tcp_tuple_is(const struct mip_addr *local, const struct mip_addr *remote, uint16_t lport,
                  uint16_t rport, const struct tcp_tuple *k)
{
    return lport == k->lport && rport == k->rport && mip_addr_eq(remote, k->remote) &&
           mip_addr_eq(local, k->local);
}

/* The RST answering segment `in` (RFC 9293 3.10.7), out of `netif`;
 * none for a RST. */
static void rst_reply(struct mip_tcp *tcp, const struct tcp_in *in, uint8_t netif)
{
    const struct mip_tcp_hdr *h = &in->h;
    struct tcp_seg seg;
    uint32_t seq = 0, ack = h->seq + in->seglen;
    uint8_t flags = MIP_TCP_RST | MIP_TCP_ACK;
    if (h->flags & MIP_TCP_RST)
        return;
    /* RFC 9293 3.10.7.1: take the ACK's number, else acknowledge it all. */
    if (h->flags & MIP_TCP_ACK) {
        seq = h->ack;
        ack = 0;
        flags = MIP_TCP_RST;
    }
    tcp_seg_start(&seg, seq, ack, flags);
    seg.src = &in->rx->dst;
    seg.dst = &in->rx->src;
    seg.h.src_port = h->dst_port;
    seg.h.dst_port = h->src_port;
    seg.netif = netif;
    (void)tcp_emit(tcp, &seg);
}

/* RFC 5961 3.2 / 4.2 / 5.2: an ACK that makes a blind attacker's guess
 * fail (the segment counted as `why`); within the instance's budget per
 * window (RFC 5961 7), which is random (tcp_chack_budget). */
static void challenge_ack(struct mip_tcp *tcp, struct mip_tcp_conn *c, enum mip_tcp_stat why)
{
    mip_time_t now = tcp->stack->now;
    bool send;
    tcp_stat_inc(tcp, why);
    if ((uint32_t)(now - tcp->chack_start) >= MIP_TCP_CHALLENGE_ACK_WINDOW_MS) {
        tcp->chack_start = now;
        tcp->chack_left = tcp_chack_budget(tcp);
    }
    send = tcp->chack_left > 0;
    tcp_stat_inc(tcp, send ? MIP_TCP_STAT_challenge_acks : MIP_TCP_STAT_challenge_acks_limited);
    if (send) {
        tcp->chack_left--;
        tcp_send_ack(tcp, c);
    }
}

/* --- TIME_WAIT records --------------------------------------------------- */

struct mip_tcp_tw *tcp_find_tw(struct mip_tcp *tcp, const struct tcp_tuple *k)
{
    unsigned i;
    for (i = 0; i < MIP_TCP_TIMEWAIT_MAX; i++) {
        struct mip_tcp_tw *t = &tcp->tw[i];
        if (t->used && tcp_tuple_is(&t->local, &t->remote, t->lport, t->rport, k))
            return t;
    }
    return NULL;
}

/* Returns true when the segment was handled by the TIME_WAIT record. */
static bool timewait_input(struct mip_tcp *tcp, struct mip_tcp_tw *t, const struct tcp_in *in)
{
    struct tcp_seg seg;
    if (in->h.flags & MIP_TCP_RST) {
        /* RFC 1337: ignore RSTs in TIME_WAIT (no assassination). */
        TCP_STAT(tcp, drop_rst_out_of_window);
        return true;
    }
    if ((in->h.flags & MIP_TCP_SYN) && !(in->h.flags & MIP_TCP_ACK) &&
        MIP_SEQ_GT(in->h.seq, t->rcv_nxt)) {
        /* A new incarnation whose sequence numbers are above the old
         * ones may reuse the pair at once (RFC 9293 3.6.1, RFC 6191). */
        t->used = 0;
        return false;
    }
    /* RFC 9293 3.10.7.4: an acceptable segment with nothing in it (a
     * duplicate ACK) needs no answer; answered, two records of a
     * simultaneous close would ACK each other's ACKs until one expired.
     * The peer's FIN again (ending at rcv_nxt) is ACKed and restarts
     * 2 MSL; anything else (out of the window, data, another FIN) is
     * ACKed and restarts nothing. */
    if (in->h.seq + in->seglen == t->rcv_nxt) {
        if (in->h.flags & MIP_TCP_FIN) {
            t->deadline = tcp->stack->now + 2u * MIP_TCP_MSL_MS;
        } else if (in->seglen == 0) {
            TCP_STAT(tcp, dup_segs);
            return true;
        }
    }
    tcp_seg_start(&seg, t->snd_nxt, t->rcv_nxt, MIP_TCP_ACK);
    seg.src = &t->local;
    seg.dst = &t->remote;
    seg.h.src_port = t->lport;
    seg.h.dst_port = t->rport;
    seg.netif = in->rx->netif;
#if MIP_TCP_TIMESTAMPS
    /* RFC 7323 3.2: still every segment carries TSopt, TSval on the
     * connection's clock (the peer's PAWS drops older ones), TSecr the
     * newest TSval of a segment at or left of rcv_nxt (4.3: the peer's
     * retransmitted FIN). */
    if (t->ts_ok) {
        if ((in->o.present & MIP_TCP_HAS_TIMESTAMP) && MIP_SEQ_LEQ(in->h.seq, t->rcv_nxt) &&
            (int32_t)(in->o.ts_val - t->ts_recent) >= 0)
            t->ts_recent = in->o.ts_val;
        seg.opts.present = MIP_TCP_HAS_TIMESTAMP;
        seg.opts.ts_val = (uint32_t)tcp->stack->now + t->ts_offset;
        seg.opts.ts_ecr = t->ts_recent;
    }
#endif
    (void)tcp_emit(tcp, &seg);
    return true;
}

/* --- passive open: listeners and the SYN cache --------------------------- */

static struct mip_tcp_listener *find_listener(struct mip_tcp *tcp, uint16_t port)
{
    struct mip_tcp_listener *l;
    for (l = tcp->listeners; l != NULL; l = l->next)
        if (l->port == port)
            return l;
    return NULL;
}

static struct mip_tcp_syn *find_syn(struct mip_tcp *tcp, const struct tcp_tuple *k)
{
    unsigned i;
    for (i = 0; i < MIP_TCP_SYN_BACKLOG; i++) {
        struct mip_tcp_syn *e = &tcp->syn[i];
        if ((e->flags & TCPS_USED) && tcp_tuple_is(&e->local, &e->remote, e->lport, e->rport, k))
            return e;
    }
    return NULL;
}



/* The window a SYN-ACK for listener l offers: the ring it promised,
 * unscaled as in every SYN (0 once nobody listens). */
static uint16_t synack_window(const struct mip_tcp_listener *l)
{
    if (l == NULL)
        return 0;
#if MIP_TCP_LARGE_RX
    if (l->rx_size > 0xFFFFu)
        return 0xFFFFu;
#endif
    return (uint16_t)l->rx_size;
}

void tcp_syn_send_synack(struct mip_tcp *tcp, const struct mip_tcp_syn *e)
{
    const struct mip_tcp_listener *l = find_listener(tcp, e->lport);
    struct tcp_seg seg;
    tcp_seg_start(&seg, e->iss, e->irs + 1u, MIP_TCP_SYN | MIP_TCP_ACK);
    seg.src = &e->local;
    seg.dst = &e->remote;
    seg.h.src_port = e->lport;
    seg.h.dst_port = e->rport;
    seg.netif = e->netif;
    /* What the listener's rings can hold (no ring exists yet); the first
     * ACK after accept advertises the connection's own. */
    seg.h.window = synack_window(l);
    /* MSS (TCPS_USED is its bit), and the options the peer offered
     * (TCPS_* are MIP_TCP_HAS_* bits) with our scale for the ring. */
    seg.opts.present = e->flags & (uint8_t)~TCPS_RESENT;
    seg.opts.mss = tcp_local_mss(tcp, &e->remote, NULL);
    seg.opts.wscale = tcp_wscale_for(l != NULL ? l->rx_size : 0u);
#if MIP_TCP_TIMESTAMPS
    if (e->flags & TCPS_TS) {
        seg.opts.ts_val = (uint32_t)tcp->stack->now + tcp_ts_offset(tcp, e->iss);
        seg.opts.ts_ecr = e->ts_recent;
    }
#endif
    (void)tcp_emit(tcp, &seg);
}

/* The 4-tuple and netif of a SYN cache entry from segment `in`: the SYN,
 * or the ACK that returns a cookie. */
static void syn_entry_from(struct mip_tcp_syn *e, const struct tcp_in *in)
{
    e->retries = 0;
    e->local = in->rx->dst;
    e->remote = in->rx->src;
    e->lport = in->h.dst_port;
    e->rport = in->h.src_port;
    e->netif = in->rx->netif;
}

#if MIP_TCP_SYN_COOKIES
/* The MSS values a cookie can name (its low 3 bits, RFC 4987 3.6): the
 * largest not above the peer's is used. */
static const uint16_t cookie_mss[8] = {64, 128, 256, 536, 1024, 1220, 1440, 1460};

/* The cookie of 4-tuple k for the peer's ISN `irs` at clock tick `tick`,
 * before its MSS index is added: SipHash-2-4 under the instance's secret
 * of the ISN hash of k (isn.c), irs and tick. */
static uint32_t cookie_hash(const struct mip_tcp *tcp, const struct tcp_tuple *k, uint32_t irs,
                            uint32_t tick)
{
    uint32_t m[3];
    uint64_t h;
    m[0] = tcp_tuple_hash(tcp->secret, k);
    m[1] = irs;
    m[2] = tick;
    h = mip_siphash24(tcp->secret, (const uint8_t *)m, sizeof(m));
    return (uint32_t)h ^ (uint32_t)(h >> 32);
}

/* An ACK (no SYN, no RST) for a listening port that matches no connection:
 * true when it returns a cookie of this tick or the last, with *e filled
 * in as the SYN cache would have kept it (MSS only). */
static bool cookie_check(const struct mip_tcp *tcp, const struct tcp_in *in,
                         const struct tcp_tuple *k, struct mip_tcp_syn *e)
{
    uint32_t tick = tcp->stack->now >> TCP_COOKIE_TICK_SHIFT, age;
    for (age = 0; age < 2u; age++) {
        uint32_t idx = (in->h.ack - 1u) & 7u;
        /* (the tick counts modulo 2^16, as now >> 16 does: the last tick
         * before the clock's wrap is the one before tick 0) */
        if (((cookie_hash(tcp, k, in->h.seq - 1u,
                          ((tick - age) & TCP_COOKIE_TICK_MASK) * 8u + idx) & ~7u) | idx) ==
            in->h.ack - 1u) {
            syn_entry_from(e, in);
            e->flags = TCPS_USED;
            e->snd_wscale = 0;
            e->ts_recent = 0;
            e->irs = in->h.seq - 1u;
            e->iss = in->h.ack - 1u;
            e->mss = cookie_mss[idx];
            return true;
        }
    }
    return false;
}
#endif

/* `iss_floor` (may be NULL): the sequence number of a TIME_WAIT incarnation
 * of the same pair; the new ISS must lie above it (RFC 9293 3.6.1). */
static void syn_cache_add(struct mip_tcp *tcp, const struct tcp_in *in, const struct tcp_tuple *k,
                          const uint32_t *iss_floor)
{
    struct mip_tcp_syn *e = NULL;
#if MIP_TCP_SYN_COOKIES
    struct mip_tcp_syn cookie;
#endif
    unsigned i;
    for (i = 0; i < MIP_TCP_SYN_BACKLOG; i++) {
        struct mip_tcp_syn *t = &tcp->syn[i];
        if (!(t->flags & TCPS_USED)) {
            e = t;
            break;
        }
    }
    if (e == NULL) {
#if MIP_TCP_SYN_COOKIES
        /* Full: the SYN-ACK carries a cookie and nothing is kept, so a
         * flood of spoofed SYNs cannot push out the entries of real
         * handshakes (RFC 4987 3.6). */
        e = &cookie;
#else
        /* Full: replace a random entry, so a flood cannot pin the cache
         * while legitimate handshakes still get through sometimes. */
        e = &tcp->syn[mip_rng_below(&tcp->stack->rng, MIP_TCP_SYN_BACKLOG)];
        TCP_STAT(tcp, syn_cache_evicted);
#endif
    }
    /* Every field is set here (no memset); flags: MSS and what the peer
     * offered of the options compiled in. */
    syn_entry_from(e, in);
    e->flags = (uint8_t)(TCPS_USED | (in->o.present & TCPS_OPTS));
    e->snd_wscale = in->o.wscale;     /* clamped by take_options */
    e->ts_recent = in->o.ts_val;
    e->irs = in->h.seq;
    e->mss = (in->o.present & MIP_TCP_HAS_MSS) ? in->o.mss : 536u;
    e->deadline = tcp->stack->now + MIP_TCP_RTO_INITIAL_MS;
#if MIP_TCP_SYN_COOKIES
    if (e == &cookie) {
        /* MSS only: window scaling, SACK and timestamps would need the
         * state a cookie does not keep. No TIME_WAIT floor either (the
         * record gave the pair up to this SYN). */
        i = 7;
        while (i > 0 && cookie_mss[i] > e->mss)
            i--;
        e->flags = TCPS_USED;
        e->iss = (cookie_hash(tcp, k, e->irs, (tcp->stack->now >> TCP_COOKIE_TICK_SHIFT) * 8u + i) &
                  ~7u) | i;
        tcp->cookie_time = tcp->stack->now;
        TCP_STAT(tcp, cookies_sent);
        tcp_syn_send_synack(tcp, e);
        return;
    }
#endif
    e->iss = tcp_isn(tcp->secret, k, tcp->stack->now);   /* k is the segment's 4-tuple */
    if (iss_floor != NULL && MIP_SEQ_LEQ(e->iss, *iss_floor))
        e->iss = *iss_floor + 1u + (e->iss & 0xFFFFu);   /* above, still unpredictable */
    tcp_syn_send_synack(tcp, e);
}

static void conn_established(struct mip_tcp *tcp, struct mip_tcp_conn *c);

/* The ACK completing a passive handshake: ask the application for memory. */
static struct mip_tcp_conn *syn_cache_complete(struct mip_tcp *tcp, struct mip_tcp_syn *e,
                                               const struct tcp_in *in, bool timed)
{
    struct mip_tcp_listener *l = find_listener(tcp, e->lport);
    /* The local address is one of ours (TCP takes unicast only). */
    uint8_t ref = tcp_local_ref(tcp->stack, &e->local);
    struct mip_tcp_conn *c;
    struct mip_tcp_opts o;
    if (l != NULL && in->h.seq - (e->irs + 1u) >= synack_window(l)) {
        /* The ACK is right but the data starts outside the window our
         * SYN-ACK offered: not worth a RST that kills a handshake whose
         * first data segment was merely lost (RFC 9293 3.10.7.4 drops
         * unacceptable segments). */
        TCP_STAT(tcp, drop_out_of_window);
        return NULL;
    }
    c = l != NULL && ref != TCP_LOCAL_NONE ? l->accept(l, tcp, e->lport) : NULL;
    if (c == NULL || c->state != MIP_TCP_CLOSED) {
        TCP_STAT(tcp, accept_refused);
        rst_reply(tcp, in, in->rx->netif);
        e->flags = 0;
        return NULL;
    }
    c->local = ref;
    c->lport = e->lport;
    c->rport = e->rport;
    c->iss = e->iss;
    c->flags |= TCPF_SYN_ACKED;   /* snd_una = iss + 1 (tcp_conn_open) */
    tcp_conn_open(tcp, c, &e->remote, e->netif);
    c->rcv_nxt = e->irs + 1u;
    c->rcv_adv = c->rcv_nxt + synack_window(l);
    /* take_options reads only these four fields */
    o.present = e->flags & (uint8_t)~TCPS_RESENT;   /* MSS (TCPS_USED), the offered options */
    o.mss = e->mss;
    o.wscale = e->snd_wscale;
    o.ts_val = e->ts_recent;
    c->rcv_wscale = tcp_wscale_for(l->rx_size);  /* our SYN-ACK's (take_options: 0 unless agreed) */
    /* Our SYN-ACK agreed to these before accept chose a config: once
     * agreed, timestamps go on every segment (RFC 7323 3.2 MUST), and the
     * peer may count on SACK (RFC 2018). The config says what is used. */
    c->cfg.sack = (e->flags & TCPS_SACK) != 0;
    c->cfg.timestamps = (e->flags & TCPS_TS) != 0;
    take_options(c, &o, tcp_local_mss(tcp, &c->remote, NULL), &in->h);
    /* The handshake's RTT (RFC 6298 2.2, as Linux takes it): a SYN-ACK
     * sent once left at deadline - MIP_TCP_RTO_INITIAL_MS (syn_cache_add);
     * one sent again, on its timer or the peer's SYN, gives no sample
     * (Karn), and a cookie kept no time.
     * Without it the first flight's RTO was the initial 1 s. */
    if (timed && e->retries == 0u && !(e->flags & TCPS_RESENT))
        tcp_rtt_sample(&c->rtt,
                       (uint32_t)(tcp->stack->now - (e->deadline - MIP_TCP_RTO_INITIAL_MS)));
    c->retries = e->retries;      /* SYN-ACK timeouts: conn_established */
    e->flags = 0;
    TCP_STAT(tcp, conns_accepted);
    conn_established(tcp, c);
    return c;
}

/* --- the state machine ---------------------------------------------------- */

static void conn_established(struct mip_tcp *tcp, struct mip_tcp_conn *c)
{
    /* RFC 6298 5.7: our SYN or SYN-ACK timed out, so no RTT sample (Karn):
     * the data's RTO is 3 s until the first sample. */
    if (c->retries != 0)
        tcp_rtt_fallback(&c->rtt);
    c->state = MIP_TCP_ESTABLISHED;
    c->retries = 0;
    c->flags &= (uint16_t)~(TCPF_REXMT | TCPF_PERSIST);
    /* Idle time counts from here; keepalive turned on later is armed by
     * the next poll (tcp_timer.c conn_poll). */
    if (tcp_idle_ms(c) != 0) {
        c->t_idle = tcp->stack->now + tcp_idle_ms(c);
        c->flags |= TCPF_IDLE;
    }
    tcp_notify(c, TCP_CB(connected));
    /* shut down before the handshake completed */
    if (c->state == MIP_TCP_ESTABLISHED && (c->flags & TCPF_FIN_QUEUED))
        c->state = MIP_TCP_FIN_WAIT_1;
}

static void syn_sent_input(struct mip_tcp *tcp, struct mip_tcp_conn *c, const struct tcp_in *in)
{
    const struct mip_tcp_hdr *h = &in->h;
    bool ack_ok = (h->flags & MIP_TCP_ACK) && MIP_SEQ_GT(h->ack, c->iss) &&
                  MIP_SEQ_LEQ(h->ack, c->snd_max);
    if ((h->flags & MIP_TCP_ACK) && !ack_ok) {
        TCP_STAT(tcp, drop_bad_ack);
        rst_reply(tcp, in, c->netif);
        return;
    }
    if (h->flags & MIP_TCP_RST) {
        if (ack_ok)
            tcp_conn_finish(tcp, c, MIP_TCP_ERR_REFUSED);
        else
            TCP_STAT(tcp, drop_rst_out_of_window);
        return;
    }
    if (!(h->flags & MIP_TCP_SYN)) {
        TCP_STAT(tcp, drop_out_of_window);
        return;
    }
    c->rcv_nxt = h->seq + 1u;
    /* The right edge our SYN advertised was relative to nothing yet. */
    c->rcv_adv = c->rcv_nxt;
    take_options(c, &in->o, c->cc.mss, h);
    if (ack_ok) {
        c->snd_una = h->ack;
        c->flags |= TCPF_SYN_ACKED | TCPF_ACKNOW;
        if ((c->flags & TCPF_TIMING) || c->retries == 0)
            tcp_rtt_sample(&c->rtt, (uint32_t)(tcp->stack->now - c->rtt_start));
        c->flags &= (uint16_t)~TCPF_TIMING;
        conn_established(tcp, c);
        tcp_output(tcp, c);
    } else {
        /* Simultaneous open (RFC 9293 3.5 figure 8). */
        c->state = MIP_TCP_SYN_RECEIVED;
        (void)tcp_send_syn(tcp, c);
    }
}

#if MIP_TCP_SACK
/* Bytes [seq, seq + len) below rcv_nxt came again: the next ACK reports
 * them as a D-SACK block (RFC 2883), which tells the peer its
 * retransmission was spurious (Linux undoes the window cut it made for
 * it). Only a duplicate within 64 KB below rcv_nxt; the latest wins. */
static void note_duplicate(struct mip_tcp *tcp, const struct mip_tcp_conn *c, uint32_t seq,
                           uint32_t len)
{
    if (!(c->flags & TCPF_SACK_OK) || !c->cfg.dsack || len == 0u || c->rcv_nxt - seq > 0xFFFFu)
        return;
    if (len > c->rcv_nxt - seq)
        len = c->rcv_nxt - seq;
    tcp->dsack_conn = c;
    tcp->dsack_left = seq;
    tcp->dsack_len = (uint16_t)len;
}
#endif

/* RFC 9293 3.10.7.4 "first": is the segment in the receive window? */
static bool seq_acceptable(const struct mip_tcp_conn *c, const struct tcp_in *in)
{
    uint32_t wnd = MIP_SEQ_GT(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0u;
    /* Offsets from rcv_nxt: x lies in [rcv_nxt, rcv_nxt + wnd) when its
     * offset is below wnd (wnd < 2^31, so this is the modular test). */
    uint32_t off = in->h.seq - c->rcv_nxt, len = in->seglen;
    /* A zero window accepts no byte, but the ACK (and RST, URG) of a
     * segment at RCV.NXT still counts (3.10.7.4); data_input drops the
     * data. */
    if (wnd == 0)
        return off == 0;
    return off < wnd || (len != 0 && off + len - 1u < wnd);
}

/* Loss recovery sends. Without SACK (NewReno, RFC 6582): the segment at
 * snd_una, when `first` (fast retransmit, partial ACK). With SACK (RFC 6675
 * in simplified form): holes of the scoreboard, in order, while the pipe
 * leaves room in cwnd; `first` sends one regardless. New data then flows
 * from tcp_output within the (inflated) window. */
static void recovery_send(struct mip_tcp *tcp, struct mip_tcp_conn *c, bool first)
{
#if MIP_TCP_SACK
    if (c->flags & TCPF_SACK_OK) {
        unsigned budget;
        uint32_t seq, len;
        uint16_t smss = tcp_smss(c);  /* payload per segment, as tcp_output */
        if (MIP_SEQ_LT(c->sackb.rexmit_next, c->snd_una))
            c->sackb.rexmit_next = c->snd_una;
        for (budget = 0; budget < 64u; budget++) {
            uint32_t pipe = tcp_sackb_pipe(&c->sackb, c->snd_una, c->snd_max);
            if (!first && pipe + c->cc.mss > tcp_cc_window(&c->cc))
                return;
            if (!tcp_sackb_next_hole(&c->sackb, c->snd_una, smss, &seq, &len))
                break;      /* no hole: snd_una below, when `first` */
            tcp_retransmit(tcp, c, seq, len);
            TCP_STAT(tcp, sack_rexmits);
            c->sackb.rexmit_next = seq + len;
            first = false;
        }
    }
#endif
    if (first)
        tcp_retransmit(tcp, c, c->snd_una, c->cc.mss);
}

/* Processes the ACK field; returns false when the segment must go. */
static bool ack_input(struct mip_tcp *tcp, struct mip_tcp_conn *c, const struct tcp_in *in)
{
    const struct mip_tcp_hdr *h = &in->h;
    uint32_t acked, flight = c->snd_max - c->snd_una, wnd;
    uint32_t max_wnd = c->snd_wnd > 65535u ? c->snd_wnd : 65535u;
    bool fin_acked, dup_wnd;
    /* RFC 5961 5.2: acceptable ACKs lie in [snd_una - max window, snd_max]. */
    if (MIP_SEQ_GT(h->ack, c->snd_max) || MIP_SEQ_LT(h->ack, c->snd_una - max_wnd)) {
        challenge_ack(tcp, c, MIP_TCP_STAT_drop_bad_ack);
        return false;
    }
    if (c->state == MIP_TCP_SYN_RECEIVED) {
        if (!MIP_SEQ_GT(h->ack, c->snd_una)) {
            rst_reply(tcp, in, c->netif);
            return false;
        }
        c->flags |= TCPF_SYN_ACKED;
        c->snd_una = c->iss + 1u;
        conn_established(tcp, c);
        flight = c->snd_max - c->snd_una;
    }
    /* RFC 5681 2 (e): a duplicate ACK leaves the window as it was; a
     * reading receiver's window updates are not loss signals. Compared
     * before the update below overwrites snd_wnd. With SACK, an ACK that
     * SACKs new bytes is a duplicate ACK whatever its window (RFC 6675 2,
     * set below): Linux's receiver grows its window while it holds
     * out-of-order data, and by 5681's rule alone a sender at 10 % loss
     * each way recovered most of its losses by timeout (test_tcp_impairments'
     * loss-10pct, 1 MB: 55-80 RTOs and 6-15 fast retransmits in 6 runs;
     * 33-54 and 18-27 in 5 with this rule). */
    wnd = (uint32_t)h->window << c->snd_wscale;
    dup_wnd = wnd == c->snd_wnd;
    /* Window update (RFC 9293 3.10.7.4 "fifth", SND.WL1/WL2 rule). */
    if (MIP_SEQ_GEQ(h->ack, c->snd_una) &&
        (MIP_SEQ_GT(h->ack, c->snd_una) || MIP_SEQ_LT(c->snd_wl1, h->seq) ||
         (c->snd_wl1 == h->seq && MIP_SEQ_LEQ(c->snd_wl2, h->ack)))) {
        if (wnd > 0 && c->snd_wnd == 0 && (c->flags & TCPF_PERSIST)) {
            c->flags &= (uint16_t)~(TCPF_PERSIST | TCPF_REXMT);
            c->snd_nxt = c->snd_una;
        }
        snd_window(c, h, wnd);
    }
#if MIP_TCP_SACK
    {
        bool dsack = false, new_sack = false, same_wnd = dup_wnd;
        if ((c->flags & TCPF_SACK_OK) && (in->o.present & MIP_TCP_HAS_SACK)) {
            new_sack = tcp_sackb_update(&c->sackb,
                                        MIP_SEQ_GT(h->ack, c->snd_una) ? h->ack : c->snd_una,
                                        c->snd_max, in->o.sack, in->o.sack_count);
            if (new_sack)
                dup_wnd = true;
            /* RFC 2883 4: a first block at or below the cumulative ACK
             * reports duplicate data */
            dsack = in->o.sack_count > 0u && MIP_SEQ_LEQ(in->o.sack[0].right, h->ack);
        }
        if (tcp->tlp_conn == c)
            tcp_tlp_ack(tcp, c, h->ack, dsack,
                        h->ack == c->snd_una && in->len == 0u && same_wnd && !new_sack);
    }
#endif
    if (!MIP_SEQ_GT(h->ack, c->snd_una)) {
        /* A duplicate ACK (RFC 5681 2): nothing new, no data, same
         * window, data outstanding. */
        /* The answer to a zero-window probe is no loss signal: a "fast
         * retransmit" would send a full segment into the closed window. */
        if (h->ack == c->snd_una && in->len == 0 && c->snd_max != c->snd_una && dup_wnd &&
            !(h->flags & (MIP_TCP_SYN | MIP_TCP_FIN)) && !(c->flags & TCPF_PERSIST)) {
            uint8_t thresh = tcp_er_dupthresh(c);
            bool fast = tcp_cc_on_dupack(&c->cc, flight, c->snd_max, thresh);
            if (fast) {
                TCP_STAT(tcp, fast_rexmits);
#if MIP_TCP_SACK
                if (thresh < 3u)
                    TCP_STAT(tcp, early_rexmits);
                if (tcp->tlp_conn == c)
                    tcp->tlp_conn = NULL;   /* recovery's response replaces the episode's */
#endif
#if MIP_TCP_SACK
                c->sackb.rexmit_next = c->snd_una;
#endif
                recovery_send(tcp, c, true);
                tcp_arm_rexmt(tcp, c);
            } else if (c->cc.in_recovery) {
                recovery_send(tcp, c, false);
            }
        }
        return true;
    }
    /* New data acknowledged. */
    acked = h->ack - c->snd_una;
    fin_acked = (c->flags & TCPF_FIN_SENT) && h->ack == c->snd_max;
    if (!(c->flags & TCPF_SYN_ACKED)) {
        c->flags |= TCPF_SYN_ACKED;
        acked--;
    }
    {
        uint32_t from_ring = acked - (fin_acked ? 1u : 0u);
        if (from_ring > c->tx.len)
            from_ring = c->tx.len;
        tcp_txbuf_consume(&c->tx, (uint16_t)from_ring);
    }
    /* RTT: timestamps give a sample per ACK (RFC 7323 4.1), else Karn's
     * timed segment. */
#if MIP_TCP_TIMESTAMPS
    if ((c->flags & TCPF_TS_OK) && (in->o.present & MIP_TCP_HAS_TIMESTAMP) && in->o.ts_ecr != 0) {
        uint32_t rtt = tcp_ts_now(c, tcp->stack->now) - in->o.ts_ecr;
        if (rtt < 600000u)
            tcp_rtt_sample(&c->rtt, rtt);
        c->flags &= (uint16_t)~TCPF_TIMING;
    } else
#endif
    if ((c->flags & TCPF_TIMING) && MIP_SEQ_GT(h->ack, tcp_rtt_seq(c))) {
        tcp_rtt_sample(&c->rtt, (uint32_t)(tcp->stack->now - c->rtt_start));
        c->flags &= (uint16_t)~TCPF_TIMING;
    }
    c->snd_una = h->ack;
    if (MIP_SEQ_LT(c->snd_nxt, c->snd_una))
        c->snd_nxt = c->snd_una;
    c->retries = 0;
    flight = c->snd_max - c->snd_una;
    if (c->cc.in_recovery) {
        if (tcp_cc_on_recovery_ack(&c->cc, h->ack, acked, flight))
            recovery_send(tcp, c, true);   /* partial ACK: the next hole */
    } else {
#if MIP_CONF_FORWARD
        /* TSS backpressure at the sender: no growth while segments wait */
        if (tcp->cwnd_hold_backlog != 0u && tcp->backlog != NULL &&
            tcp->backlog(tcp->backlog_ctx, tcp, c) >= tcp->cwnd_hold_backlog)
            tcp_cc_on_ack(&c->cc, 0);
        else
#endif
        tcp_cc_on_ack(&c->cc, acked);
    }
    if (c->snd_una == c->snd_max)
        c->flags &= (uint16_t)~(TCPF_REXMT | TCPF_PERSIST | TCPF_PTO);
    else if (!(c->flags & TCPF_PERSIST))
        tcp_arm_rexmt(tcp, c);      /* a probe timeout instead: data_fin_output */
    if (acked > 0 && !(c->flags & TCPF_FIN_QUEUED))
        tcp_notify(c, TCP_CB(writable));
    if (c->state == MIP_TCP_CLOSED)
        return false;
    if (fin_acked) {
        switch (c->state) {
        case MIP_TCP_FIN_WAIT_1:
            c->state = MIP_TCP_FIN_WAIT_2;
            break;
        case MIP_TCP_CLOSING:
            tcp_enter_timewait(tcp, c);
            return false;
        case MIP_TCP_LAST_ACK:
            tcp_conn_finish(tcp, c, MIP_TCP_ERR_NONE);
            return false;
        default:
            break;
        }
    }
    return true;
}

static void data_input(struct mip_tcp *tcp, struct mip_tcp_conn *c, const struct tcp_in *in)
{
    uint32_t seq = in->h.seq, len = in->len;
    const uint8_t *data = in->data;
    mip_tcp_rxsize_t advanced;
    bool ooo_before;
    if (len == 0)
        return;
    if (c->state != MIP_TCP_ESTABLISHED && c->state != MIP_TCP_FIN_WAIT_1 &&
        c->state != MIP_TCP_FIN_WAIT_2)
        return;
    /* Trim what was already received. */
    if (MIP_SEQ_LT(seq, c->rcv_nxt)) {
        uint32_t skip = c->rcv_nxt - seq;
#if MIP_TCP_SACK
        note_duplicate(tcp, c, seq, skip < len ? skip : len);
        if (tcp->dsack_conn == c)
            c->flags |= TCPF_ACKNOW;        /* the D-SACK goes at once */
#endif
        if (skip >= len) {
            TCP_STAT(tcp, dup_segs);
            goto ack_now;
        }
        data += skip;
        len -= skip;
        seq = c->rcv_nxt;
    }
    /* Trim what lies past the right edge we advertised (RFC 9293
     * 3.10.7.4): the ring may have room for more, but the peer was not
     * offered it, and with TCPF_NO_READ it would be taken without any
     * bound. */
    {
        uint32_t wnd = MIP_SEQ_GT(c->rcv_adv, seq) ? c->rcv_adv - seq : 0u;
        if (len > wnd) {
            c->flags |= TCPF_ACKNOW;
            if (wnd == 0)
                return;
            len = wnd;
        }
    }
    if (in->h.flags & MIP_TCP_URG) {
        /* RFC 6093: the pointer marks the byte after the urgent data;
         * the data stays in the stream. */
        uint32_t up = in->h.seq + in->h.urgent;
        if (MIP_SEQ_GT(up, c->rcv_up))
            c->rcv_up = up;
    }
    if (c->flags & TCPF_NO_READ) {
        /* New data for an application that closed: it is lost, and the
         * peer must know (RFC 1122 4.2.2.13, RFC 9293 3.6: RST). */
        tcp_conn_abort(tcp, c, MIP_TCP_ERR_ABORTED);
        return;
    }
    /* Input from inside this connection's own `readable` (nested): what
     * the outer segment left unread goes into the ring first. */
    tcp_direct_settle(tcp, c);
    ooo_before = tcp_rxbuf_has_ooo(&c->rx);
    if (seq == c->rcv_nxt && c->rx.len == 0 && !ooo_before) {
        /* Into an empty ring in order: the application's `readable` reads
         * the segment where it is (struct mip_tcp direct), and only what it
         * leaves is copied into the ring (below). */
        tcp->direct_conn = c;
        tcp->direct = data;
        advanced = tcp_rxbuf_hold(&c->rx, len);
    } else {
        advanced = tcp_rxbuf_write(&c->rx, seq - c->rcv_nxt, data, len);
    }
    if (seq != c->rcv_nxt) {
        /* Out of order: acknowledge at once so the sender sees the hole
         * (RFC 5681 4.2), with SACK blocks. */
        TCP_STAT(tcp, ooo_segs);
#if MIP_TCP_SACK
        c->sack_recent = (mip_tcp_rxsize_t)seq;
#endif
        goto ack_now;
    }
    c->rcv_nxt += advanced;
    /* At once when a hole filled or data did not fit, else every second
     * segment (RFC 5681 4.2). */
    if (!ooo_before && advanced == len && tcp_delack_ms(c) != 0 && !(c->flags & TCPF_DELACK)) {
        c->flags |= TCPF_DELACK;
        c->t_delack = (uint16_t)(tcp->stack->now + tcp_delack_ms(c));
        TCP_STAT_HOT(tcp, delacks);
    } else {
        c->flags |= TCPF_ACKNOW;
    }
    if (advanced > 0)
        tcp_notify(c, TCP_CB(readable));
    tcp_direct_settle(tcp, c);
    return;
ack_now:
    c->flags |= TCPF_ACKNOW;
}

static void fin_input(struct mip_tcp *tcp, struct mip_tcp_conn *c, const struct tcp_in *in)
{
    if (!(in->h.flags & MIP_TCP_FIN) || (c->flags & TCPF_RCVD_FIN))
        return;
    /* The `readable` callback of data_input may have ended the connection
     * (abort, or a close that completed), and its `closed` callback may even
     * have reused the struct for a new one: a FIN only counts in the states
     * that can receive one first. */
    if (c->state != MIP_TCP_ESTABLISHED && c->state != MIP_TCP_FIN_WAIT_1 &&
        c->state != MIP_TCP_FIN_WAIT_2)
        return;
    /* Only a FIN right after all in-order data counts; one past a hole is
     * resent by the peer. */
    if (in->h.seq + in->len != c->rcv_nxt)
        return;
    c->rcv_nxt++;
    c->flags |= TCPF_RCVD_FIN | TCPF_ACKNOW;
    switch (c->state) {
    case MIP_TCP_ESTABLISHED:
        c->state = MIP_TCP_CLOSE_WAIT;
        break;
    case MIP_TCP_FIN_WAIT_1:
        c->state = MIP_TCP_CLOSING;
        break;
    case MIP_TCP_FIN_WAIT_2:
        tcp_send_ack(tcp, c);
        tcp_enter_timewait(tcp, c);
        return;
    default:
        break;
    }
    tcp_notify(c, TCP_CB(readable));
}

/* The data and FIN of an acceptable segment, then whatever is to send. */
static void data_fin_output(struct mip_tcp *tcp, struct mip_tcp_conn *c, const struct tcp_in *in)
{
    data_input(tcp, c, in);
    fin_input(tcp, c, in);
    if (c->state != MIP_TCP_CLOSED && !tcp_output_idle(c))
        tcp_output(tcp, c);
#if MIP_TCP_SACK
    /* The probe timeout of what is left in flight (RFC 8985 7.2: after an
     * ACK of new data), unless the output just set one: once per segment,
     * after the output, not in ack_input as well. */
    if (c->state != MIP_TCP_CLOSED && (c->flags & (TCPF_REXMT | TCPF_PTO)) == TCPF_REXMT)
        tcp_arm_loss_timer(tcp, c, false);
#endif
}

/* The checks of an acceptable segment on a synchronized connection up to
 * its ACK (RFC 9293 3.10.7.4 first to fifth, RFC 7323, RFC 5961); false
 * when the segment went no further (answered or dropped, and counted). */
static bool conn_checks(struct mip_tcp *tcp, struct mip_tcp_conn *c, const struct tcp_in *in)
{
    const struct mip_tcp_hdr *h = &in->h;
#if MIP_TCP_TIMESTAMPS
    /* PAWS (RFC 7323 5.3): a timestamp older than TS.Recent is stale,
     * unless TS.Recent is itself too old to compare with (5.5). */
    if ((c->flags & (TCPF_TS_OK | TCPF_TS_STALE)) == TCPF_TS_OK &&
        (in->o.present & MIP_TCP_HAS_TIMESTAMP) &&
        !(h->flags & MIP_TCP_RST) && (int32_t)(in->o.ts_val - c->ts_recent) < 0) {
        TCP_STAT(tcp, drop_paws);
        tcp_send_ack(tcp, c);
        return false;
    }
#endif
    if (!seq_acceptable(c, in)) {
        TCP_STAT(tcp, drop_out_of_window);
#if MIP_TCP_SACK
        if (!(h->flags & MIP_TCP_RST) && MIP_SEQ_LEQ(h->seq + in->len, c->rcv_nxt))
            note_duplicate(tcp, c, h->seq, in->len);
#endif
        if (!(h->flags & MIP_TCP_RST))
            tcp_send_ack(tcp, c);
        return false;
    }
    if (h->flags & MIP_TCP_RST) {
        /* RFC 5961 3.2: only the exact next sequence number resets;
         * anything else in the window draws a challenge ACK. */
        if (h->seq == c->rcv_nxt) {
            TCP_STAT(tcp, conns_reset);
            tcp_conn_finish(tcp, c, MIP_TCP_ERR_RESET);
        } else {
            challenge_ack(tcp, c, MIP_TCP_STAT_drop_rst_out_of_window);
        }
        return false;
    }
    if (h->flags & MIP_TCP_SYN) {
        /* RFC 5961 4.2: a SYN on a synchronized connection. */
        challenge_ack(tcp, c, MIP_TCP_STAT_drop_syn_in_window);
        return false;
    }
    if (!(h->flags & MIP_TCP_ACK)) {
        TCP_STAT(tcp, drop_bad_ack);
        return false;
    }
#if MIP_TCP_TIMESTAMPS
    /* RFC 7323 3.2: once agreed, every segment but a RST carries TSopt; a
     * receiver SHOULD drop one without (Linux accepts it). */
    if ((c->flags & TCPF_TS_OK) && !(in->o.present & MIP_TCP_HAS_TIMESTAMP)) {
        TCP_STAT(tcp, drop_no_timestamp);
        return false;
    }
#endif
    return true;
}

static void conn_input(struct mip_tcp *tcp, struct mip_tcp_conn *c, const struct tcp_in *in)
{
    const struct mip_tcp_hdr *h = &in->h;
    bool pred;
    /* The peer is there: keepalive starts again, and so does the count
     * of zero-window probes, which must not end a connection whose peer
     * answers them, whatever window it offers (RFC 1122 4.2.2.17). */
    c->ka_probes = 0;
    if (c->flags & TCPF_PERSIST)
        c->retries = 0;
    if ((c->flags & TCPF_IDLE) && c->cfg.keepalive_ms != 0)
        c->t_idle = tcp->stack->now + tcp_idle_ms(c);
    if (c->state == MIP_TCP_SYN_SENT) {
        syn_sent_input(tcp, c, in);
        return;
    }
    /* Header prediction (BSD's, as TCPlp has it): on an established
     * connection, the next segment in order (acceptable in any window), with
     * ACK and no other control flag but PSH, and with timestamps on a
     * timestamp not older than TS.Recent, passes every check of
     * conn_checks: they are skipped. (The checks do not depend on the state:
     * ESTABLISHED only because it compiles smaller. With TS.Recent stale an
     * older timestamp passes too; it takes conn_checks.) */
    pred = c->state == MIP_TCP_ESTABLISHED &&
           (h->flags & (MIP_TCP_SYN | MIP_TCP_FIN | MIP_TCP_RST | MIP_TCP_URG | MIP_TCP_ACK)) ==
               MIP_TCP_ACK &&
           h->seq == c->rcv_nxt;
#if MIP_TCP_TIMESTAMPS
    if (pred && (c->flags & TCPF_TS_OK))
        pred = (in->o.present & MIP_TCP_HAS_TIMESTAMP) &&
               (int32_t)(in->o.ts_val - c->ts_recent) >= 0;
#endif
    if (!pred && !conn_checks(tcp, c, in))
        return;
#if MIP_TCP_TIMESTAMPS
    /* RFC 7323 4.3: remember the timestamp of the segment that covers the
     * left edge of the window, SEG.SEQ <= Last.ACK.sent: that is rcv_nxt
     * unless an ACK is being delayed, when it lies below, so the ACK
     * echoes the earliest segment it covers (the sender's RTT then
     * includes the delay). */
    if ((c->flags & TCPF_TS_OK) && (in->o.present & MIP_TCP_HAS_TIMESTAMP) &&
        MIP_SEQ_LEQ(h->seq, c->rcv_nxt) && !(c->flags & TCPF_DELACK)) {
        c->ts_recent = in->o.ts_val;
        c->flags &= (uint16_t)~TCPF_TS_STALE;
        if ((c->flags & TCPF_IDLE) && c->cfg.keepalive_ms == 0)
            c->t_idle = tcp->stack->now + tcp_idle_ms(c);
    }
#endif
    if (ack_input(tcp, c, in))
        data_fin_output(tcp, c, in);
    else if (c->state != MIP_TCP_CLOSED)
        tcp_output(tcp, c);
}

/* --- entry from IP -------------------------------------------------------- */

static bool parse_segment(struct mip_tcp *tcp, const struct mip_ip_rx *rx, const uint8_t *l4,
                          size_t len, struct tcp_in *in)
{
    /* Every field is written below before the segment is used (h by
     * mip_tcp_parse, o by mip_tcp_opts_parse): no clearing first. */
    in->rx = rx;
    if (len > 0xFFFFu || mip_tcp_parse(l4, len, &in->h) != MIP_OK) {
        TCP_STAT(tcp, drop_truncated);
        return false;
    }
#ifndef MOTEIP_FUZZING
    if (tcp_cksum(&rx->src, &rx->dst, l4, len) != 0) {
        TCP_STAT(tcp, drop_bad_checksum);
        return false;
    }
#endif
    if (mip_tcp_opts_parse(l4 + MIP_TCP_HDR_LEN, (size_t)in->h.hdr_len - MIP_TCP_HDR_LEN,
                           &in->o) != MIP_OK) {
        TCP_STAT(tcp, drop_bad_options);
        return false;
    }
    in->data = l4 + in->h.hdr_len;
    in->len = (uint32_t)(len - in->h.hdr_len);
    in->seglen = in->len + ((in->h.flags & MIP_TCP_SYN) ? 1u : 0u) +
                 ((in->h.flags & MIP_TCP_FIN) ? 1u : 0u);
    return true;
}

bool tcp_input(void *ctx, struct mip_stack *s, const struct mip_ip_rx *rx,
               const uint8_t *l4, size_t len)
{
    struct mip_tcp *tcp = ctx;
    struct tcp_in in;
    struct tcp_tuple k;
    struct mip_tcp_conn *c;
    struct mip_tcp_syn *e;
#if MIP_TCP_SYN_COOKIES
    struct mip_tcp_syn cookie;
#endif
    struct mip_tcp_tw *t;
    uint32_t iss_floor = 0;
    bool have_floor = false;
    (void)s;
    TCP_STAT_HOT(tcp, segs_rx);
#if MIP_TCP_SACK
    tcp->dsack_conn = NULL;
#endif
    if (rx->dst_multicast) {
        TCP_STAT(tcp, drop_no_conn);     /* TCP is unicast only */
        return true;
    }
    if (!parse_segment(tcp, rx, l4, len, &in))
        return true;
    if (in.h.src_port == 0 || in.h.dst_port == 0) {
        TCP_STAT(tcp, drop_no_conn);
        return true;
    }
    k.local = &rx->dst;
    k.remote = &rx->src;
    k.lport = in.h.dst_port;
    k.rport = in.h.src_port;
    c = tcp_find_conn(tcp, &k);
    if (c != NULL) {
        conn_input(tcp, c, &in);
        return true;
    }
    t = tcp_find_tw(tcp, &k);
    if (t != NULL) {
        if (timewait_input(tcp, t, &in))
            return true;
        iss_floor = t->snd_nxt;     /* the record gave the pair up to this SYN */
        have_floor = true;
    }
    e = find_syn(tcp, &k);
#if MIP_TCP_SYN_COOKIES
    /* An ACK for a listening port while cookies are out may return one;
     * it then completes the handshake below as a SYN cache entry would.
     * Otherwise it is answered as by a listener: RST. */
    if (e == NULL && (in.h.flags & (MIP_TCP_SYN | MIP_TCP_ACK | MIP_TCP_RST)) == MIP_TCP_ACK &&
        (uint32_t)(tcp->stack->now - tcp->cookie_time) < TCP_COOKIE_LIFE_MS &&
        find_listener(tcp, in.h.dst_port) != NULL) {
        if (!cookie_check(tcp, &in, &k, &cookie)) {
            TCP_STAT(tcp, cookies_rejected);
            rst_reply(tcp, &in, rx->netif);
            return true;
        }
        TCP_STAT(tcp, cookies_accepted);
        e = &cookie;
    }
#endif
    if (e != NULL) {
        const struct mip_tcp_hdr *h = &in.h;
        if (h->flags & MIP_TCP_RST) {
            if (h->seq == e->irs + 1u)
                e->flags = 0;
            else
                TCP_STAT(tcp, drop_rst_out_of_window);
            return true;
        }
        if ((h->flags & MIP_TCP_SYN) && !(h->flags & MIP_TCP_ACK)) {
            if (h->seq == e->irs) {
                tcp_syn_send_synack(tcp, e);   /* our SYN-ACK was lost */
                e->flags |= TCPS_RESENT;       /* Karn: no RTT sample */
            }
            else
                TCP_STAT(tcp, drop_syn_in_window);
            return true;
        }
        if ((h->flags & (MIP_TCP_ACK | MIP_TCP_SYN)) == MIP_TCP_ACK && h->ack == e->iss + 1u) {
            /* Any in-window seq completes the handshake: when the first
             * data segment after it was lost, a later one (seq above
             * irs + 1) carries the ACK; data_input() queues it out of
             * order or drops it, and the sender retransmits the gap. */
#if MIP_TCP_SYN_COOKIES
            c = syn_cache_complete(tcp, e, &in, e != &cookie);
#else
            c = syn_cache_complete(tcp, e, &in, true);
#endif
            if (c != NULL && c->state != MIP_TCP_CLOSED)
                data_fin_output(tcp, c, &in);
            return true;
        }
        TCP_STAT(tcp, drop_bad_ack);
        rst_reply(tcp, &in, rx->netif);
        return true;
    }
    if ((in.h.flags & (MIP_TCP_SYN | MIP_TCP_ACK | MIP_TCP_RST)) == MIP_TCP_SYN &&
        find_listener(tcp, in.h.dst_port) != NULL) {
        syn_cache_add(tcp, &in, &k, have_floor ? &iss_floor : NULL);
        return true;
    }
    TCP_STAT(tcp, drop_no_conn);
    rst_reply(tcp, &in, rx->netif);
    return true;
}

void tcp_icmp_error(void *ctx, struct mip_stack *s, const struct mip_ip_error *err)
{
    struct mip_tcp *tcp = ctx;
    struct mip_tcp_conn *c;
    struct tcp_tuple k;
    (void)s;
    if (err->quoted_len < 8)
        return;
    /* The quoted segment is one of ours: its 4-tuple names the connection. */
    k.local = &err->src;
    k.remote = &err->dst;
    k.lport = (uint16_t)((err->quoted[0] << 8) | err->quoted[1]);
    k.rport = (uint16_t)((err->quoted[2] << 8) | err->quoted[3]);
    c = tcp_find_conn(tcp, &k);
    if (c == NULL)
        return;
    /* RFC 5927 4.1: the quoted segment must be one still unacknowledged,
     * SND.UNA <= SEG.SEQ < SND.MAX; a forger who knows the 4-tuple but not
     * the sequence numbers is ignored. */
    if (mip_rd32(err->quoted + 4) - c->snd_una >= c->snd_max - c->snd_una) {
        TCP_STAT(tcp, drop_icmp_bad_seq);
        return;
    }
    /* RFC 5927 / RFC 1122 4.2.3.9: hard errors only end a connection
     * that is still opening; later they are soft. */
    if (c->state == MIP_TCP_SYN_SENT && c->retries >= 1u &&
        ((err->family == MIP_AF_INET && err->type == 3) ||
         (err->family == MIP_AF_INET6 && err->type == 1)))
        tcp_conn_finish(tcp, c, MIP_TCP_ERR_UNREACHABLE);
}
