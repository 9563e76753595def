/*
 * src/tcp/: TCP (tcb state machine, SYN cache, timers, RTT, congestion
 * control, SACK, rings), one floor above core/. It may include core/, mac/,
 * wire/ and base/ headers and config.h; never relay/, its sibling, nor
 * apps/. It joins the stack as an IP protocol handler and a poller at
 * mip_tcp_init.
 *
 * TCP instance and the application API: open, write, read, close.
 */
#include "tcp_internal.h"
#include <string.h>

/* TCPlp s.9: a connection waits for its peer while anything it sent is
 * unacknowledged (data, a SYN or a FIN). */
static bool tcp_awaits(const void *ctx, const struct mip_stack *s)
{
    const struct mip_tcp *tcp = ctx;
    const struct mip_tcp_conn *c;
    (void)s;
    for (c = tcp->conns; c != NULL; c = c->next)
        if (c->snd_una != c->snd_max)
            return true;
    return false;
}

mip_status mip_tcp_init(struct mip_tcp *tcp, struct mip_stack *s)
{
    unsigned i;
    mip_status st;
    memset(tcp, 0, sizeof(*tcp));
    tcp->stack = s;
    for (i = 0; i < sizeof(tcp->secret); i += 4) {
        uint32_t r = mip_rng_next(&s->rng);
        memcpy(tcp->secret + i, &r, 4);
    }
    /* Ephemeral ports from the IANA range 49152-65535, starting at a
     * random point (RFC 6056). */
    tcp->next_port = (uint16_t)(49152u + mip_rng_below(&s->rng, 16384u));
    tcp->max_retries = MIP_TCP_MAX_RETRIES;
    /* The first challenge ACK starts a window (and draws its budget). */
    tcp->chack_start = s->now - MIP_TCP_CHALLENGE_ACK_WINDOW_MS;
#if MIP_TCP_SYN_COOKIES
    tcp->cookie_time = s->now - TCP_COOKIE_LIFE_MS;   /* none sent */
#endif
    st = mip_ip_register_proto(s, MIP_IPPROTO_TCP, tcp_input, tcp_icmp_error, tcp);
    if (st != MIP_OK)
        return st;
    return mip_stack_add_poller(s, tcp_poll, tcp_awaits, tcp);
}

#if MIP_TCP_CHALLENGE_ACK_LIMIT > 170
#error "MIP_TCP_CHALLENGE_ACK_LIMIT must be at most 170 (1.5 times it is a uint8_t budget)"
#endif
uint8_t tcp_chack_budget(struct mip_tcp *tcp)
{
    return (uint8_t)(MIP_TCP_CHALLENGE_ACK_LIMIT / 2u +
                     mip_rng_below(&tcp->stack->rng, MIP_TCP_CHALLENGE_ACK_LIMIT + 1u));
}

void mip_tcp_config_default(struct mip_tcp_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->delack_ms = MIP_TCP_DELACK_MS;
    cfg->sack = MIP_TCP_SACK != 0;
    cfg->timestamps = MIP_TCP_TIMESTAMPS != 0;
    cfg->limited_transmit = true;
    cfg->dsack = true;
    cfg->early_retransmit = true;
    cfg->tlp = true;
}

void mip_tcp_conn_init(struct mip_tcp_conn *c, const struct mip_tcp_callbacks *cb, void *ctx,
                       uint8_t *tx_mem, uint16_t tx_size,
                       uint8_t *rx_mem, uint8_t *rx_bitmap, mip_tcp_rxsize_t rx_size)
{
    memset(c, 0, sizeof(*c));
    c->cb = cb;
    c->ctx = ctx;
    c->local = TCP_LOCAL_NONE;
    mip_tcp_config_default(&c->cfg);
    tcp_txbuf_init(&c->tx, tx_mem, tx_size);
    tcp_rxbuf_init(&c->rx, rx_mem, rx_bitmap, rx_size);
}

/* struct mip_tcp_conn.local: netif index << 4 | slot in that netif's
 * addr4[] (IPv4) or addr6[] (IPv6) table; the family is the peer's.
 * MIP_NETIF_MAX <= 16 (config.h); slot 15 is never used, so
 * TCP_LOCAL_NONE (0xFF) names no address. */
#if MIP_NETIF_ADDR4_MAX > 15 || MIP_NETIF_ADDR6_MAX > 14
#error "struct mip_tcp_conn.local needs at most 15 address slots per family and netif"
#endif

const uint8_t *tcp_local_bytes(const struct mip_stack *s, unsigned ref, uint8_t family)
{
    const struct mip_netif *nif;
    unsigned slot = ref & 0x0Fu;
    if ((ref >> 4) >= MIP_NETIF_MAX)
        return NULL;
    nif = &s->netif[ref >> 4];    /* a slot never added has no address in use */
#if MIP_CONF_IPV4
    if (family == MIP_AF_INET)
        return slot < MIP_NETIF_ADDR4_MAX && nif->addr4[slot].used ? nif->addr4[slot].addr : NULL;
#endif
#if MIP_CONF_IPV6
    if (family == MIP_AF_INET6)
        return slot <= MIP_NETIF_ADDR6_MAX && nif->addr6[slot].used ? nif->addr6[slot].addr : NULL;
#endif
    (void)nif;
    (void)slot;
    return NULL;
}

bool tcp_local_ref_is(const struct mip_stack *s, unsigned ref, const struct mip_addr *a)
{
    const uint8_t *b = tcp_local_bytes(s, ref, a->family);
    /* b is only found for the two families; constant lengths compare in
     * place (mip_addr_eq) */
    if (b == NULL)
        return false;
    return a->family == MIP_AF_INET6 ? memcmp(b, a->bytes, 16) == 0 : memcmp(b, a->bytes, 4) == 0;
}

uint8_t tcp_local_ref(const struct mip_stack *s, const struct mip_addr *a)
{
    unsigned ref;
    for (ref = 0; ref < MIP_NETIF_MAX * 16u; ref++)
        if (tcp_local_ref_is(s, ref, a))
            return (uint8_t)ref;
    return TCP_LOCAL_NONE;
}

void mip_tcp_local_addr(const struct mip_tcp *tcp, const struct mip_tcp_conn *c,
                        struct mip_addr *out)
{
    const uint8_t *b = tcp_local_bytes(tcp->stack, c->local, c->remote.family);
    /* constant lengths: copied in place, not by a call (every segment) */
    if (b != NULL && c->remote.family == MIP_AF_INET6) {
        out->family = MIP_AF_INET6;
        memcpy(out->bytes, b, 16);
        return;
    }
    memset(out, 0, sizeof(*out));
    if (b == NULL)
        return;
    out->family = c->remote.family;
    memcpy(out->bytes, b, 4);
}

static void tcp_conn_unlink(struct mip_tcp *tcp, struct mip_tcp_conn *c)
{
    struct mip_tcp_conn **pp;
    for (pp = &tcp->conns; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            c->next = NULL;
            break;
        }
    }
#if MIP_TCP_SACK
    if (tcp->tlp_conn == c)
        tcp->tlp_conn = NULL;
#endif
}

void tcp_notify(struct mip_tcp_conn *c, size_t which)
{
    typedef void (*cb_fn)(void *, struct mip_tcp_conn *);
    cb_fn fn;
    if (c->cb == NULL)
        return;
    fn = *(const cb_fn *)(const void *)((const char *)c->cb + which);
    if (fn != NULL)
        fn(c->ctx, c);
}

void tcp_conn_finish(struct mip_tcp *tcp, struct mip_tcp_conn *c, enum mip_tcp_error why)
{
    /* Bytes left unread in place go into the ring, where they were before
     * in-place reads: an application may still read them after `closed`. */
    tcp_direct_settle(tcp, c);
    tcp_conn_unlink(tcp, c);
    c->state = MIP_TCP_CLOSED;
    c->flags = 0;
    c->error = (uint8_t)why;
    TCP_STAT(tcp, conns_closed);
    if (why != MIP_TCP_ERR_NONE && c->cb != NULL && c->cb->error != NULL)
        c->cb->error(c->ctx, c, why);
    tcp_notify(c, TCP_CB(closed));
}

void tcp_enter_timewait(struct mip_tcp *tcp, struct mip_tcp_conn *c)
{
    struct mip_tcp_tw *tw = NULL;
    unsigned i;
    for (i = 0; i < MIP_TCP_TIMEWAIT_MAX; i++) {
        struct mip_tcp_tw *t = &tcp->tw[i];
        if (!t->used) {
            tw = t;
            break;
        }
        if (tw == NULL || mip_time_before(t->deadline, tw->deadline))
            tw = t;
    }
    if (tw->used)
        TCP_STAT(tcp, timewait_evicted);   /* the oldest goes first */
    tw->used = 1;
    mip_tcp_local_addr(tcp, c, &tw->local);
    tw->remote = c->remote;
    tw->lport = c->lport;
    tw->rport = c->rport;
    tw->snd_nxt = c->snd_max;
    tw->rcv_nxt = c->rcv_nxt;
    tw->deadline = tcp->stack->now + 2u * MIP_TCP_MSL_MS;
#if MIP_TCP_TIMESTAMPS
    tw->ts_ok = (c->flags & TCPF_TS_OK) != 0;
    tw->ts_recent = c->ts_recent;
    tw->ts_offset = c->ts_offset;
#endif
    tcp_conn_finish(tcp, c, MIP_TCP_ERR_NONE);
}

void tcp_arm_rexmt(struct mip_tcp *tcp, struct mip_tcp_conn *c)
{
    /* Never before the peer's delayed ACK can come: MIP_TCP_RTO_MIN_MS
     * covers the default; a longer delack_ms of ours is taken to be the
     * peer's too and gets the same margin (config.h). */
    uint32_t rto = tcp_rtt_rto(&c->rtt),
             min = (uint32_t)tcp_delack_ms(c) + (MIP_TCP_RTO_MIN_MS - MIP_TCP_DELACK_MS);
    if (tcp->rto_min_ms != 0u) {
        /* the run-time floor backs off with the RTO (RFC 6298 5.5) */
        uint32_t f = (uint32_t)tcp->rto_min_ms << (c->rtt.backoff > 8u ? 8u : c->rtt.backoff);
        if (f > MIP_TCP_RTO_MAX_MS)
            f = MIP_TCP_RTO_MAX_MS;
        if (f > min)
            min = f;
    }
    c->t_rexmt = tcp->stack->now + (rto > min ? rto : min);
    c->flags = (uint16_t)((c->flags & ~TCPF_PTO) | TCPF_REXMT);
}

uint8_t tcp_conn_netif(const struct mip_addr *remote, uint8_t netif)
{
    return remote->family == MIP_AF_INET6 && remote->bytes[0] == 0xFE &&
           (remote->bytes[1] & 0xC0) == 0x80 ? netif : MIP_NETIF_ANY;
}

void tcp_conn_open(struct mip_tcp *tcp, struct mip_tcp_conn *c, const struct mip_addr *remote,
                   uint8_t netif)
{
    c->remote = *remote;
    c->netif = tcp_conn_netif(remote, netif);
    c->snd_una = c->snd_nxt = c->snd_max = c->iss + ((c->flags & TCPF_SYN_ACKED) ? 1u : 0u);
    tcp_rtt_init(&c->rtt);
#if MIP_TCP_TIMESTAMPS
    c->ts_offset = tcp_ts_offset(tcp, c->iss);
#endif
    c->next = tcp->conns;
    tcp->conns = c;
}

#if MIP_TCP_LARGE_RX
uint8_t tcp_wscale_for(mip_tcp_rxsize_t rx_size)
{
    /* The smallest shift that fits the ring in the 16-bit window field
     * (before 2026-11-25 the size came in as a uint16_t: always 0). */
    uint8_t shift = 0;
    while ((rx_size >> shift) > 0xFFFFu && shift < 14u)
        shift++;
    return shift;
}
#endif

mip_status mip_tcp_connect(struct mip_tcp *tcp, struct mip_tcp_conn *c,
                           const struct mip_addr *dst, uint16_t port)
{
    struct mip_stack *s = tcp->stack;
    struct mip_addr local;
    struct tcp_tuple k;
    unsigned tries;
    uint16_t mss;
    uint8_t ref;
    mip_status st;
    if (c->state != MIP_TCP_CLOSED || c->next != NULL || port == 0 ||
        (dst->family != MIP_AF_INET && dst->family != MIP_AF_INET6))
        return MIP_ERR_INVALID;
    st = mip_ip_select_src(s, dst, MIP_NETIF_ANY, &local);
    if (st != MIP_OK)
        return st;
    ref = tcp_local_ref(s, &local);
    if (ref == TCP_LOCAL_NONE)
        return MIP_ERR_NOROUTE;
    c->rport = port;
    c->lport = 0;
    k.local = &local;
    k.remote = dst;
    k.rport = port;
    for (tries = 0; tries < 16384u; tries++) {
        uint16_t p = tcp->next_port;
        tcp->next_port = (uint16_t)(p == 0xFFFFu ? 49152u : p + 1u);
        k.lport = p;
        if (tcp_find_conn(tcp, &k) == NULL && tcp_find_tw(tcp, &k) == NULL) {
            c->lport = p;
            break;
        }
    }
    if (c->lport == 0)
        return MIP_ERR_INUSE;
    c->local = ref;
    mss = tcp_local_mss(tcp, dst, &c->netif);
    c->iss = tcp_isn(tcp->secret, &k, s->now);    /* k.lport is c->lport */
    tcp_conn_open(tcp, c, dst, c->netif);
    c->rcv_wscale = tcp_wscale_for(c->rx.size);
    tcp_cc_init(&c->cc, mss, c->cfg.cwnd_cap);
    c->state = MIP_TCP_SYN_SENT;
    c->rtt_start = s->now;        /* the first SYN is timed (Karn: only it) */
    TCP_STAT(tcp, conns_opened);
    /* A SYN that could not leave is retried by the timer like a lost one. */
    (void)tcp_send_syn(tcp, c);
    return MIP_OK;
}

mip_status mip_tcp_listen(struct mip_tcp *tcp, struct mip_tcp_listener *l, uint16_t port,
                          mip_tcp_rxsize_t rx_size, mip_tcp_accept_fn accept)
{
    struct mip_tcp_listener *it;
    if (port == 0 || accept == NULL || rx_size == 0)
        return MIP_ERR_INVALID;
#if MIP_TCP_LARGE_RX
    if (rx_size > MIP_TCP_RX_SIZE_MAX)
        return MIP_ERR_INVALID;
#endif
    for (it = tcp->listeners; it != NULL; it = it->next)
        if (it->port == port || it == l)
            return MIP_ERR_INUSE;
    l->port = port;
    l->rx_size = rx_size;
    l->accept = accept;
    l->next = tcp->listeners;
    tcp->listeners = l;
    return MIP_OK;
}

void mip_tcp_unlisten(struct mip_tcp *tcp, struct mip_tcp_listener *l)
{
    struct mip_tcp_listener **pp;
    for (pp = &tcp->listeners; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == l) {
            *pp = l->next;
            l->next = NULL;
            return;
        }
    }
}

static bool may_send(const struct mip_tcp_conn *c)
{
    return !(c->flags & TCPF_FIN_QUEUED) &&
           (c->state == MIP_TCP_ESTABLISHED || c->state == MIP_TCP_CLOSE_WAIT ||
            c->state == MIP_TCP_SYN_SENT || c->state == MIP_TCP_SYN_RECEIVED);
}

size_t mip_tcp_write(struct mip_tcp *tcp, struct mip_tcp_conn *c, const uint8_t *data, size_t n)
{
    size_t k;
    if (!may_send(c))
        return 0;
    k = tcp_txbuf_write(&c->tx, data, n);
    if (k > 0)
        tcp_output(tcp, c);
    return k;
}

void tcp_direct_settle(struct mip_tcp *tcp, struct mip_tcp_conn *c)
{
    if (tcp->direct_conn == c) {
        tcp->direct_conn = NULL;
        tcp_rxbuf_settle(&c->rx, tcp->direct);
    }
}

size_t mip_tcp_read(struct mip_tcp *tcp, struct mip_tcp_conn *c, uint8_t *out, size_t n)
{
    uint32_t before, after, thr;
    size_t k;
    if (c->rx.len == 0)
        return 0;
    if (tcp->direct_conn == c) {
        /* The segment being read in place (tcp_input.c data_input) is all
         * the ring holds: its bytes come from where they are. */
        k = tcp_rxbuf_read(&c->rx, NULL, n);
        if (out != NULL)
            memcpy(out, tcp->direct, k);
        tcp->direct += k;
    } else {
        k = tcp_rxbuf_read(&c->rx, out, n);
    }
    if (k == 0 || c->state == MIP_TCP_CLOSED)
        return k;
    /* Tell the peer when the window opened by two segments or half the
     * ring, or from zero (RFC 9293 3.8.6.2.2, RFC 1122 4.2.3.3), past the
     * window it was last told: an application reading in small pieces
     * opens it a little per read, and no single read would be enough. */
    before = MIP_SEQ_GT(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0u;
    /* No update can be due, and no window is computed, while the ring's
     * free space stays below `before` plus the smaller threshold: the window
     * is at most that space, or `before` rounded up to the scale (less than
     * 2^rcv_wscale more, checked to stay below the threshold too). */
    thr = 2u * c->cc.mss < c->rx.size / 2u ? 2u * c->cc.mss : c->rx.size / 2u;
    if (before != 0u && tcp_rxbuf_space(&c->rx) < before + thr && (1u << c->rcv_wscale) <= thr)
        return k;
    after = tcp_rcv_window(c);
    if ((after >= before + 2u * c->cc.mss || after >= before + c->rx.size / 2u ||
         (before == 0 && after > 0)) && !(c->flags & TCPF_RCVD_FIN)) {
        c->flags |= TCPF_ACKNOW;
        tcp_output(tcp, c);
    }
    return k;
}

size_t mip_tcp_readable(const struct mip_tcp_conn *c)
{
    return c->rx.len;
}

size_t mip_tcp_writable(const struct mip_tcp_conn *c)
{
    return may_send(c) ? tcp_txbuf_free(&c->tx) : 0u;
}

bool mip_tcp_peer_closed(const struct mip_tcp_conn *c)
{
    return (c->flags & TCPF_RCVD_FIN) != 0 && c->rx.len == 0;
}

mip_status mip_tcp_shutdown(struct mip_tcp *tcp, struct mip_tcp_conn *c)
{
    switch (c->state) {
    case MIP_TCP_SYN_SENT:
        tcp_conn_finish(tcp, c, MIP_TCP_ERR_NONE);
        return MIP_OK;
    case MIP_TCP_SYN_RECEIVED:
    case MIP_TCP_ESTABLISHED:
        c->flags |= TCPF_FIN_QUEUED;
        if (c->state != MIP_TCP_SYN_RECEIVED)
            c->state = MIP_TCP_FIN_WAIT_1;
        break;
    case MIP_TCP_CLOSE_WAIT:
        c->flags |= TCPF_FIN_QUEUED;
        c->state = MIP_TCP_LAST_ACK;
        break;
    default:
        return c->state == MIP_TCP_CLOSED ? MIP_ERR_INVALID : MIP_OK;
    }
    tcp_output(tcp, c);
    return MIP_OK;
}

mip_status mip_tcp_close(struct mip_tcp *tcp, struct mip_tcp_conn *c)
{
    if (c->state == MIP_TCP_CLOSED)
        return MIP_ERR_INVALID;
    /* Unread data is lost: the peer learns it from a RST, not a FIN
     * (RFC 1122 4.2.2.13, RFC 9293 3.6; as Linux does). */
    if (c->rx.len != 0) {
        tcp_conn_abort(tcp, c, MIP_TCP_ERR_ABORTED);
        return MIP_OK;
    }
    c->flags |= TCPF_NO_READ;
    return mip_tcp_shutdown(tcp, c);
}

void mip_tcp_abort(struct mip_tcp *tcp, struct mip_tcp_conn *c)
{
    tcp_conn_abort(tcp, c, MIP_TCP_ERR_ABORTED);
}

void tcp_conn_abort(struct mip_tcp *tcp, struct mip_tcp_conn *c, enum mip_tcp_error why)
{
    if (c->state == MIP_TCP_CLOSED)
        return;
    if (c->state != MIP_TCP_SYN_SENT) {
        /* Not past a zero-window probe's byte: the peer would drop the RST
         * unanswered and keep its side open (tcp_acceptable_seq). */
        struct tcp_seg seg;
        tcp_seg_init(tcp, c, &seg, tcp_acceptable_seq(c), MIP_TCP_RST | MIP_TCP_ACK);
        seg.h.window = 0;                    /* a RST offers no window, and no options */
        seg.opts.present = 0;
        (void)tcp_emit(tcp, &seg);
    }
    tcp_conn_finish(tcp, c, why);
}

#if MIP_TCP_TIMESTAMPS
uint32_t tcp_ts_offset(const struct mip_tcp *tcp, uint32_t iss)
{
    return (uint32_t)mip_siphash24(tcp->secret, (const uint8_t *)&iss, sizeof(iss));
}
#endif

void tcp_stat_inc(struct mip_tcp *tcp, enum mip_tcp_stat which)
{
    if (tcp->stat[which] != UINT32_MAX)
        tcp->stat[which]++;
}

uint32_t mip_tcp_stat(const struct mip_tcp *tcp, enum mip_tcp_stat which)
{
    return (unsigned)which < MIP_TCP_STAT_COUNT ? tcp->stat[which] : 0u;
}

#if MIP_CONF_STAT_NAMES
/* The names one after the other, each ending in NUL: a table of
 * fixed-width rows would pad every name to the longest (24 bytes). */
static const char tcp_stat_names[] =
#define MIP_TCP_STAT_NAME(n) #n "\0"
    MIP_TCP_STATS_LIST(MIP_TCP_STAT_NAME);
#undef MIP_TCP_STAT_NAME

static const char tcp_state_names[] =
    "CLOSED\0SYN_SENT\0SYN_RCVD\0ESTABLISHED\0FIN_WAIT_1\0FIN_WAIT_2\0"
    "CLOSE_WAIT\0CLOSING\0LAST_ACK\0TIME_WAIT";

/* The n-th name of a NUL-separated list. */
static const char *nth_name(const char *p, unsigned n)
{
    while (n-- > 0)
        p += strlen(p) + 1u;
    return p;
}

const char *mip_tcp_stat_name(enum mip_tcp_stat which)
{
    return (unsigned)which < MIP_TCP_STAT_COUNT ? nth_name(tcp_stat_names, which) : NULL;
}

const char *mip_tcp_state_name(uint8_t state)
{
    return state <= MIP_TCP_TIME_WAIT ? nth_name(tcp_state_names, state) : "?";
}
#else
const char *mip_tcp_stat_name(enum mip_tcp_stat which)
{
    (void)which;
    return NULL;
}

const char *mip_tcp_state_name(uint8_t state)
{
    (void)state;
    return "?";
}
#endif
