/*
 * src/micro/: the micro profile, a stack of its own beside core/ on the
 * same floor and not joined to it: it includes wire/ headers, its own
 * micro.h and config.h, nothing from base/, mac/, core/ or above.
 *
 * The micro profile: IP (one version), ICMP echo, TCP (and optionally UDP)
 * over one packet buffer, in uIP's model (micro.h, docs/MICRO.md).
 *
 * Why a separate path: the other profiles parse into descriptors, keep
 * per-connection rings and pbufs and go through protocol tables; that is
 * what makes them ten times larger. Here every protocol reads and writes
 * its fields in place at fixed offsets of m->buf (IP options are cut out on
 * input so that TCP always starts at MIP_MICRO_IPH), and the reply to a
 * datagram is built over it. Shared with the other profiles: the checksum
 * (wire/checksum.c) and the wire headers' constants. Optional IPv4
 * reassembly (MIP_MICRO_CONF_REASS) has a buffer of its own and hands the
 * completed datagram on in m->buf.
 *
 * Sequence numbers: snd_una is the first unacknowledged byte and `len`
 * what is in flight after it (data, or the SYN, or the FIN: never two of
 * them), so SND.NXT is snd_una + len.
 */
#include "moteip/micro.h"

#include <stddef.h>


#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/icmpv4.h"
#include "moteip/wire/icmpv6.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/tcp.h"

#define IPH MIP_MICRO_IPH
#define ALEN MIP_MICRO_ADDR_LEN
#if MIP_CONF_IPV6
#define SRC 8u                       /* source address in the IP header */
#define P_ICMP MIP_IPPROTO_ICMPV6
#define ECHO_REQ MIP_ICMPV6_ECHO_REQUEST
#define ECHO_REP MIP_ICMPV6_ECHO_REPLY
#define DEFAULT_MSS 1220u            /* RFC 8200 5: 1280 - 60 */
#else
#define SRC 12u
#define P_ICMP MIP_IPPROTO_ICMP
#define ECHO_REQ MIP_ICMPV4_ECHO_REQUEST
#define ECHO_REP MIP_ICMPV4_ECHO_REPLY
#define DEFAULT_MSS 536u             /* RFC 9293 3.7.1 */
#endif
#define DST (SRC + ALEN)
_Static_assert(DST + ALEN == IPH, "l4sum: the addresses end where the message starts");

#define FIN MIP_TCP_FIN
#define SYN MIP_TCP_SYN
#define RST MIP_TCP_RST
#define PSH MIP_TCP_PSH
#define ACK MIP_TCP_ACK

#define RTO_MAX 15u                  /* ticks; << 4 still fits the 8-bit timer */

#define STAT(n) MIP_MICRO_STAT_##n

#ifdef MOTEIP_FUZZING
#define BAD_SUM(x) ((void)(x), 0)    /* fuzzing: reach what is behind checksums */
#else
#define BAD_SUM(x) ((x) != 0)
#endif

/* Byte loops instead of the C library's: newlib's memcpy, memmove, memset
 * and memcmp, tuned for speed, add 550 B on Cortex-M0+, more than this
 * stack's IP layer. cpy moves addresses, sequence numbers and the key:
 * an 8-bit count (2 B less at each call on AVR). */
static void cpy(uint8_t *d, const uint8_t *s, uint8_t n)
{
    while (n--)
        *d++ = *s++;
}

#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-loop-distribute-patterns"))) /* not memset */
#endif
static void zero(void *d, uint16_t n)
{
    uint8_t *p = d;

    while (n--)
        *p++ = 0;
}

static uint8_t differ(const uint8_t *a, const uint8_t *b, uint8_t n)
{
    while (n--)
        if (*a++ != *b++)
            return 1;
    return 0;
}

/* Sequence numbers stay as they are on the wire, 4 bytes big-endian (in
 * the packet and in struct mip_micro_conn), as in uIP: an 8-bit CPU then
 * copies and compares them byte by byte instead of swapping and carrying
 * 32-bit values through its registers. seq_add: d = a + n (d may be a;
 * n <= 0xFF00, config.h keeps lengths below that). */
MIP_NOINLINE static void seq_add(uint8_t *d, const uint8_t *a, uint16_t n)
{
    uint8_t i = 4;

    while (i--) {
        n = (uint16_t)(n + a[i]);
        d[i] = (uint8_t)n;
        n >>= 8;
    }
}

/* a - b, modulo 2^32. */
MIP_NOINLINE static uint32_t seq_sub(const uint8_t *a, const uint8_t *b)
{
    return mip_rd32(a) - mip_rd32(b);
}

/* Counts one event or drop (returns 0: nothing to send). */
MIP_NOINLINE static uint16_t count(struct mip_micro *m, uint8_t reason)
{
    m->stat[reason]++;
    return 0;
}

/* --- RFC 6528 ISNs: F is Speck32/64 in CBC-MAC under the injected key ------
 *
 * HalfSipHash-2-4 (the 32-bit SipHash) takes 700 B on AVR, a fifth of the
 * budget; the Speck32/64 block cipher (Beaulieu et al., 2013: 16-bit
 * add-rotate-xor, 22 rounds, a 64-bit key whose schedule is run beside
 * the data) takes a fraction of that on both targets. CBC-MAC over a
 * message of fixed length (the remote address and the two ports) is a PRF
 * if the cipher is a permutation no one can tell from random. Its 32-bit
 * block means an attacker who sees 2^16 of our ISNs for tuples of its
 * choice may find collisions; that shows it nothing of another tuple's F.
 */

static uint16_t rol1(uint16_t x)
{
    return (uint16_t)((x << 1) | (x >> 15));
}

/* Right by 7 as a byte swap and left by 1: what an 8-bit CPU does well. */
static uint16_t ror7(uint16_t x)
{
    return rol1((uint16_t)((x >> 8) | (x << 8)));
}

static uint16_t rol2(uint16_t x)
{
    return rol1(rol1(x));
}

/* Speck32/64 encryption of the block (x, y) under key k[0..3] (k[0] the
 * first round key, k[1..3] the l words of the schedule). */
static uint32_t speck(const uint16_t *k, uint16_t x, uint16_t y)
{
    uint16_t a = k[0], l0 = k[1], l1 = k[2], l2 = k[3], t;
    uint8_t i;

    for (i = 0; i < 22u; i++) {
        x = (uint16_t)((ror7(x) + y) ^ a);
        y = (uint16_t)(rol2(y) ^ x);
        t = (uint16_t)((ror7(l0) + a) ^ i);
        a = (uint16_t)(rol2(a) ^ t);
        l0 = l1;
        l1 = l2;
        l2 = t;
    }
    return (uint32_t)x << 16 | y;
}

uint32_t mip_micro_prf(const uint16_t key[4], const uint8_t *msg, uint8_t n)
{
    uint32_t h = 0;
    uint8_t i;

    for (i = 0; i < n; i += 4u) {
        h ^= mip_rd32(msg + i);
        h = speck(key, (uint16_t)(h >> 16), (uint16_t)h);
    }
    return h;
}

/* --- output ----------------------------------------------------------------- */

/* The internet checksum of n bytes at p, on top of the partial sum s. */
MIP_NOINLINE static uint16_t cksum(uint32_t s, const uint8_t *p, uint16_t n)
{
    return mip_cksum_finish(mip_cksum_add(s, p, n));
}

/* The checksum of the l4len-byte upper-layer message at buf + IPH, with the
 * pseudo header (not for ICMPv4): 0 over a correct message. */
MIP_NOINLINE static uint16_t l4sum(const uint8_t *p, uint8_t proto, uint16_t l4len)
{
#if !MIP_CONF_IPV6
    if (proto == P_ICMP)
        return cksum(0, p + IPH, l4len);
#endif
    /* The addresses end where the message starts: one pass over both. */
    return cksum((uint32_t)proto + l4len, p + SRC, (uint16_t)(2u * ALEN + l4len));
}

/* Completes the datagram whose destination address and l4len-byte message
 * are in buf: our address as the source, the rest of the IP header and the
 * message's checksum. Returns its length. */
static uint16_t ip_send(struct mip_micro *m, uint8_t proto, uint16_t l4len)
{
    uint8_t *p = m->buf, *ck = p + IPH + 2;
    uint16_t sum;

    (void)count(m, STAT(tx));
    cpy(p + SRC, m->addr, ALEN);

#if MIP_CONF_IPV6
    p[0] = 0x60;
    p[1] = p[2] = p[3] = 0;
    mip_wr16(p + 4, l4len);
    p[6] = proto;
    p[7] = MIP_DEFAULT_TTL;
#else
    p[0] = 0x45;
    p[1] = 0;
    mip_wr16(p + 2, (uint16_t)(IPH + l4len));
    mip_wr16(p + 4, ++m->ipid);
    p[6] = p[7] = 0;                /* no DF: without PMTUD, let routers fragment */
    p[8] = MIP_DEFAULT_TTL;
    p[9] = proto;
    p[10] = p[11] = 0;
    mip_wr16(p + 10, cksum(0, p, IPH));
#endif
    if (proto == MIP_IPPROTO_TCP)
        ck = p + IPH + 16;
#if MIP_MICRO_CONF_UDP
    if (proto == MIP_IPPROTO_UDP)
        ck = p + IPH + 6;
#endif
    ck[0] = ck[1] = 0;
    sum = l4sum(p, proto, l4len);
#if MIP_MICRO_CONF_UDP
    if (sum == 0 && proto == MIP_IPPROTO_UDP)
        sum = 0xFFFFu;              /* RFC 768: 0 means "no checksum" */
#endif
    mip_wr16(ck, sum);
    return (uint16_t)(IPH + l4len);
}

/* A segment of connection c with `flags`; with PSH, the c->len bytes of
 * data already at MIP_MICRO_SDATA. Its sequence number is snd_una, where
 * what is in flight starts (data, always sent with PSH; the SYN; the
 * FIN), or SND.NXT for a segment that carries nothing new (an ACK, a
 * RST), but snd_una when the peer's window is closed: the byte in flight
 * then is a probe past the window, and a segment numbered after it lies
 * outside the window, where the peer drops it (an ACK of its data lost, a
 * RST unanswered). */
static uint16_t tcp_send(struct mip_micro *m, const struct mip_micro_conn *c, uint8_t flags)
{
    uint8_t *t = m->buf + IPH, hl = 20;
    uint16_t dlen = (flags & PSH) ? c->len : 0;

    cpy(m->buf + DST, c->ripaddr, ALEN);
    mip_wr16(t, c->lport);
    mip_wr16(t + 2, c->rport);
    seq_add(t + 4, c->snd_una, (flags & (SYN | FIN | PSH)) || c->wnd == 0 ? 0 : c->len);
    cpy(t + 8, c->rcv_nxt, 4);
    if (flags & SYN) {
        t[20] = MIP_TCP_OPT_MSS;
        t[21] = 4;
        mip_wr16(t + 22, MIP_MICRO_MSS);
        hl = 24;
    }
    t[12] = (uint8_t)(hl << 2);
    t[13] = flags;
    mip_wr16(t + 14, (c->flags & MIP_MICRO_F_STOPPED) ? 0 : MIP_MICRO_MSS);
    t[18] = t[19] = 0;
    return ip_send(m, MIP_IPPROTO_TCP, (uint16_t)(hl + dlen));
}

/* --- TCP -------------------------------------------------------------------- */

/* The peer's MSS option, if any, in a SYN's header of hl bytes; options
 * of a bad length end the walk. */
static uint16_t opt_mss(const uint8_t *t, uint8_t hl)
{
    const uint8_t *o = t + 20;
    uint16_t mss = DEFAULT_MSS;
    uint8_t left = (uint8_t)(hl - 20u), n;   /* bytes of options left */

    while (left && *o != MIP_TCP_OPT_EOL) {
        n = 1;
        if (*o != MIP_TCP_OPT_NOP) {
            if (left < 2 || (n = o[1]) < 2 || n > left)
                break;
            if (*o == MIP_TCP_OPT_MSS && n == 4)
                mss = mip_rd16(o + 2);
        }
        o += n;
        left = (uint8_t)(left - n);
    }
    return mss > MIP_MICRO_MSS ? MIP_MICRO_MSS : mss;
}

/* The peer's SYN in header t (hl bytes): RCV.NXT after it, its MSS;
 * SYN_RCVD (a SYN-ACK in SYN_SENT goes on to ESTABLISHED). */
MIP_NOINLINE static void take_syn(struct mip_micro_conn *c, const uint8_t *t, uint8_t hl)
{
    c->state = MIP_MICRO_SYN_RCVD;
    seq_add(c->rcv_nxt, t + 4, 1);
    c->mss = opt_mss(t, hl);
}

/* A free slot: a closed one, else a TIME_WAIT (RFC 9293 3.6.1 lets a new
 * connection take it) or a half-open one (SYN_RCVD, the application not
 * told of it yet), the one whose timer is largest: the oldest TIME_WAIT
 * (it counts up), and of half-open ones the one whose backed-off SYN-ACK
 * retransmission is furthest away, mostly the one retransmitted most. So
 * spoofed SYNs, whose SYN-ACKs nobody answers, no longer hold every slot
 * for MIP_MICRO_MAXSYNRTX retransmissions (four stopped all TCP for 46 s).
 * Never a synchronized connection. (One condition: +4 B on AVR.) */
static struct mip_micro_conn *conn_alloc(struct mip_micro *m)
{
    struct mip_micro_conn *c, *f = NULL;

    for (c = m->conn; c < m->conn + MIP_MICRO_CONNS; c++) {
        if (c->state == MIP_MICRO_CLOSED)
            return c;
        if ((c->state == MIP_MICRO_TIME_WAIT || c->state == MIP_MICRO_SYN_RCVD) &&
            (!f || c->timer > f->timer))
            f = c;
    }
    return f;
}

_Static_assert(offsetof(struct mip_micro_conn, lport) == ALEN &&
                   offsetof(struct mip_micro_conn, rport) == ALEN + 2,
               "conn_init hashes ripaddr and the ports as one message");

/* Sets up c for a handshake: SYN in flight from an unpredictable ISN. */
static void conn_init(struct mip_micro *m, struct mip_micro_conn *c, const uint8_t *ripaddr,
                      uint16_t lport, uint16_t rport)
{
    uint32_t f;

    zero(c, sizeof *c);
    cpy(c->ripaddr, ripaddr, ALEN);
    c->lport = lport;
    c->rport = rport;
    c->len = 1;
    c->rto = c->timer = MIP_MICRO_RTO_INIT;
    c->mss = DEFAULT_MSS;
    /* F's message: the remote address and the two ports, as they lie at
     * the start of *c (in host byte order: F is keyed, any fixed
     * encoding of the tuple will do). */
    /* M = ticks * 2^16: 3.8-us units at the default 250-ms tick (RFC 6528
     * asks for about 4), a 16-bit count and no 32-bit add per tick. */
    f = mip_micro_prf(m->key, (const uint8_t *)c, ALEN + 4);
    mip_wr16(c->snd_una, (uint16_t)((uint16_t)(f >> 16) + m->isn_ticks));
    mip_wr16(c->snd_una + 2, (uint16_t)f);
}

/* RFC 6298 2.2-2.3 on a sample of `r` ticks (sa: SRTT * 8, sv: RTTVAR * 4;
 * both 0: no sample yet); the RTO stays within RTO_MIN .. RTO_MAX ticks. */
MIP_NOINLINE static void rtt_sample(struct mip_micro_conn *c, uint8_t r)
{
    int8_t e = (int8_t)(r - (c->sa >> 3));
    uint8_t rto;

    if ((c->sa | c->sv) == 0) {
        c->sa = (uint8_t)(r << 3);
        c->sv = (uint8_t)(r << 1);
    } else {
        c->sa = (uint8_t)(c->sa + e);
        if (e < 0)
            e = (int8_t)-e;
        c->sv = (uint8_t)(c->sv + e - (c->sv >> 2));
    }
    rto = (uint8_t)((c->sa >> 3) + c->sv);
    if (rto < MIP_MICRO_RTO_MIN)
        rto = MIP_MICRO_RTO_MIN;
    if (rto > RTO_MAX)
        rto = RTO_MAX;
    c->rto = rto;
}

/* RFC 5961 7: an ACK for a suspicious segment, at most
 * MIP_MICRO_CHALLENGE_LIMIT per tick; `reason` counts the drop. */
static uint16_t challenge(struct mip_micro *m, struct mip_micro_conn *c, uint8_t reason)
{
    (void)count(m, reason);
    if (!m->chal)
        return count(m, STAT(tcp_challenge_limited));
    m->chal--;
    (void)count(m, STAT(tcp_challenge_ack));
    return tcp_send(m, c, ACK);
}

/* Whether the application knows of a connection in state st: not yet in
 * SYN_RCVD, no more after EV_CLOSED (CLOSING, TIME_WAIT, LAST_ACK). */
static int app_knows(uint8_t st)
{
    return (uint8_t)(st - MIP_MICRO_SYN_SENT) <= MIP_MICRO_FIN_WAIT_2 - MIP_MICRO_SYN_SENT;
}

/* Ends connection c (its slot is free) and tells the application with
 * `ev` if it knows of the connection. */
MIP_NOINLINE static void conn_end(struct mip_micro *m, struct mip_micro_conn *c, uint8_t ev)
{
    uint8_t st = c->state;

    c->state = MIP_MICRO_CLOSED;
    if (app_knows(st))
        m->app(m, c, ev);
}

/* Calls the application with `ev` and sends what it asked for: data (only
 * ESTABLISHED, only with nothing in flight or as the retransmission), a
 * FIN once nothing is in flight, a RST; else the ACK that received data
 * (m->dlen) or a FIN owes. */
static uint16_t app_send(struct mip_micro *m, struct mip_micro_conn *c, uint8_t ev)
{
    uint16_t n;
    uint8_t flags;

    m->slen = 0;
    m->req = 0;
    if (ev)
        m->app(m, c, ev);
    if (m->req & MIP_MICRO_REQ_ABORT) {
        c->state = MIP_MICRO_CLOSED;
        return tcp_send(m, c, RST | ACK);
    }
    if (m->req & MIP_MICRO_REQ_CLOSE)
        c->flags |= MIP_MICRO_F_CLOSE;
    if (c->state == MIP_MICRO_ESTABLISHED && (c->len == 0 || (ev & MIP_MICRO_EV_REXMIT))) {
        /* Data, or else the FIN once nothing is in flight (never on
         * EV_REXMIT: something is). */
        n = m->slen;
        flags = PSH | ACK;
        if (!n && c->len == 0 && (c->flags & MIP_MICRO_F_CLOSE)) {
            c->state = MIP_MICRO_FIN_WAIT_1;
            n = 1;
            flags = FIN | ACK;
        }
        if (n) {
            if (n > MIP_MICRO_MSS)
                n = MIP_MICRO_MSS;
            if (!(ev & MIP_MICRO_EV_REXMIT)) {
                c->nrtx = 0;
                c->timer = c->rto;
            }
            c->len = n;
            return tcp_send(m, c, flags);
        }
    }
    if (m->dlen || (ev & MIP_MICRO_EV_CLOSED))
        return tcp_send(m, c, c->state == MIP_MICRO_LAST_ACK ? FIN | ACK : ACK);
    return 0;
}

/* The peer's window from the segment's header t, within its MSS. A zero
 * window restarts the retransmission count: a live peer answers the
 * probes, and they are never given up. */
static void take_wnd(struct mip_micro_conn *c, const uint8_t *t)
{
    c->wnd = mip_rd16(t + 14);
    if (c->wnd == 0)
        c->nrtx = 0;
    if (c->wnd > c->mss)
        c->wnd = c->mss;
}

_Static_assert(MIP_MICRO_FIN_WAIT_1 + 2 == MIP_MICRO_CLOSING &&
                   MIP_MICRO_FIN_WAIT_2 + 2 == MIP_MICRO_TIME_WAIT &&
                   MIP_MICRO_LAST_ACK > MIP_MICRO_TIME_WAIT,
               "tcp_in: a FIN moves FIN_WAIT_1/2 two states on; the states after "
               "FIN_WAIT_2 are those that wait for our FIN's ACK");

static uint16_t tcp_in(struct mip_micro *m, uint16_t l4len)
{
    uint8_t *p = m->buf, *t = p + IPH, hl, flags, ev = 0, i;
    struct mip_micro_conn *c, tmp;
    uint32_t d;
    uint16_t sport, dport, dlen;

    if (l4len < 20)
        return count(m, STAT(drop_short));
    if (BAD_SUM(l4sum(p, MIP_IPPROTO_TCP, l4len)))
        return count(m, STAT(drop_cksum));
    hl = (uint8_t)((t[12] >> 2) & 0x3Cu);
    sport = mip_rd16(t);
    dport = mip_rd16(t + 2);
    /* Port 0 is reserved (RFC 6335 6), and a free listening slot holds
     * 0: dropped without a RST, as the full stack does. */
    if (hl < 20 || hl > l4len || !sport || !dport)
        return count(m, STAT(drop_tcp_hdr));
    dlen = (uint16_t)(l4len - hl);
    flags = t[13];
    m->appdata = t + hl;
    m->dlen = 0;

    for (c = m->conn; c < m->conn + MIP_MICRO_CONNS; c++)
        if (c->state != MIP_MICRO_CLOSED && c->lport == dport && c->rport == sport &&
            !differ(c->ripaddr, p + SRC, ALEN))
            goto found;

    /* No connection: a SYN for a listening port opens one; anything else
     * but a RST is answered with a RST (RFC 9293 3.10.7.1). */
    if (flags & RST)
        return count(m, STAT(drop_tcp_rst));
    if ((flags & (SYN | ACK)) == SYN)
        for (i = 0; i < MIP_MICRO_LISTEN; i++)
            if (m->listen[i] == dport) {
                c = conn_alloc(m);
                if (!c)
                    return count(m, STAT(drop_tcp_full));
                conn_init(m, c, p + SRC, dport, sport);
                take_syn(c, t, hl);
                return tcp_send(m, c, SYN | ACK);
            }
reset:
    zero(&tmp, sizeof tmp);
    cpy(tmp.ripaddr, p + SRC, ALEN);
    tmp.lport = dport;
    tmp.rport = sport;
    /* The segment's length: data, SYN and FIN (a byte sum: avr-gcc
     * spilled the 16-bit form). */
    seq_add(tmp.rcv_nxt, t + 4,
            (uint16_t)(dlen + (uint8_t)((flags & FIN) + ((flags & SYN) >> 1))));
    (void)count(m, STAT(tcp_rst_tx));
    /* RFC 9293 3.10.7.1: SEQ = SEG.ACK if there is one, else 0 with
     * the ACK of the segment. */
    if (flags & ACK)
        cpy(tmp.snd_una, t + 8, 4);
    return tcp_send(m, &tmp, (uint8_t)(RST | ((flags & ACK) ^ ACK)));

found:
    if (c->state == MIP_MICRO_SYN_SENT) {
        /* RFC 9293 3.10.7.3: the ACK must be for our SYN, or we reset
         * (unless it is a RST); a RST counts only with that ACK. */
        if ((flags & ACK) && seq_sub(t + 8, c->snd_una) != 1) {
            if (flags & RST)
                return count(m, STAT(drop_tcp_rst));
            goto reset;
        }
        if (flags & RST) {
            if (!(flags & ACK))
                return count(m, STAT(drop_tcp_rst));
            goto aborted;
        }
        if (!(flags & SYN))
            return count(m, STAT(drop_tcp_state));
        take_syn(c, t, hl);                 /* SYN_RCVD */
        if (!(flags & ACK))                 /* simultaneous open */
            return tcp_send(m, c, SYN | ACK);
        /* A SYN-ACK: from here as the ACK of our SYN-ACK in SYN_RCVD
         * would be (its data and FIN taken too), and it is owed an ACK. */
        m->dlen = 1;
        goto ack;
    }
    d = seq_sub(t + 4, c->rcv_nxt);
    if (flags & RST) {
        /* RFC 5961 3.2: exactly RCV.NXT resets; elsewhere in the window it
         * earns a challenge ACK; outside, a silent drop. */
        if (d == 0)
            goto aborted;
        if (d < MIP_MICRO_MSS)
            return challenge(m, c, STAT(drop_tcp_rst));
        return count(m, STAT(drop_tcp_rst));
    }
    if (flags & SYN) {
        /* A SYN again in SYN_RCVD: our SYN-ACK was lost. Else RFC 5961 4.2. */
        if (c->state == MIP_MICRO_SYN_RCVD && d == 0xFFFFFFFFu)
            return tcp_send(m, c, SYN | ACK);
        return challenge(m, c, STAT(drop_tcp_syn));
    }
    if (d) {
        /* Out of order, old, or a retransmitted FIN in TIME_WAIT: no queue
         * here, so ACK what we have and drop it. */
        (void)count(m, STAT(drop_tcp_seq));
        return tcp_send(m, c, ACK);
    }
    if (!(flags & ACK))
        return count(m, STAT(drop_tcp_state));
    /* RFC 5961 5.2: SND.UNA - MAX.SND.WND <= SEG.ACK <= SND.NXT, with
     * 2^16 for MAX.SND.WND (no window scaling here): d = SEG.ACK - SND.UNA
     * in -0xFFFF .. len, tested on its 16-bit halves. */
ack:
    d = seq_sub(t + 8, c->snd_una);
    if ((uint16_t)(d >> 16) == 0 ? (uint16_t)d > c->len
                                 : (uint16_t)(d >> 16) != 0xFFFFu || (uint16_t)d == 0)
        return challenge(m, c, STAT(drop_tcp_ack));
    if (c->len && d == c->len) {
        ev = MIP_MICRO_EV_ACKED;
        if (c->nrtx == 0 && c->timer <= c->rto)     /* Karn */
            rtt_sample(c, (uint8_t)(c->rto - c->timer));
        cpy(c->snd_una, t + 8, 4);
        c->len = 0;
        c->nrtx = 0;
    }
    take_wnd(c, t);

    if (c->state == MIP_MICRO_SYN_RCVD) {
        if (!ev)
            return count(m, STAT(drop_tcp_state));
        c->state = MIP_MICRO_ESTABLISHED;
        ev = MIP_MICRO_EV_CONNECTED;
    } else if (c->state > MIP_MICRO_FIN_WAIT_2) {
        /* CLOSING, TIME_WAIT, LAST_ACK: only the ACK of our FIN matters
         * (nothing is in flight in TIME_WAIT). */
        if (ev) {
            if (c->state == MIP_MICRO_LAST_ACK) {
                c->state = MIP_MICRO_CLOSED;
            } else {
                c->state = MIP_MICRO_TIME_WAIT;     /* from CLOSING */
                c->timer = 0;
            }
        }
        return 0;
    }

    /* ESTABLISHED, FIN_WAIT_1, FIN_WAIT_2: data and FIN. A stopped
     * application takes neither (zero window); with our data in flight
     * the FIN waits for the peer's retransmission (uIP does the same). */
    if (c->flags & MIP_MICRO_F_STOPPED) {
        if (dlen || (flags & FIN))
            m->dlen = 1;            /* ACK it: the zero window */
        dlen = 0;
        flags = 0;
    }
    if (dlen) {
        seq_add(c->rcv_nxt, c->rcv_nxt, dlen);
        m->dlen = dlen;
        ev |= MIP_MICRO_EV_NEWDATA;
    }
    if (c->state == MIP_MICRO_FIN_WAIT_1 && !c->len) {
        c->state = MIP_MICRO_FIN_WAIT_2;    /* our FIN is acknowledged */
        c->timer = 0;
    }
    if ((flags & FIN) && !(c->state == MIP_MICRO_ESTABLISHED && c->len)) {
        seq_add(c->rcv_nxt, c->rcv_nxt, 1);
        ev |= MIP_MICRO_EV_CLOSED;
        if (c->state == MIP_MICRO_ESTABLISHED) {
            /* No half-close: our FIN goes with the ACK of theirs. */
            c->state = MIP_MICRO_LAST_ACK;
            c->len = 1;
            c->nrtx = 0;
            c->timer = c->rto;
        } else {
            /* FIN_WAIT_1 -> CLOSING (our FIN in flight), FIN_WAIT_2 ->
             * TIME_WAIT (its 2 MSL from now). */
            if (c->state == MIP_MICRO_FIN_WAIT_2)
                c->timer = 0;
            c->state = (uint8_t)(c->state + 2u);
        }
    }
    return app_send(m, c, ev);

aborted:
    conn_end(m, c, MIP_MICRO_EV_ABORTED);
    return 0;
}

/* --- UDP (optional) --------------------------------------------------------- */

#if MIP_MICRO_CONF_UDP
static uint16_t udp_out(struct mip_micro *m, uint16_t len)
{
    mip_wr16(m->buf + IPH + 4, (uint16_t)(8u + len));
    return ip_send(m, MIP_IPPROTO_UDP, (uint16_t)(8u + len));
}

static uint16_t udp_in(struct mip_micro *m, uint16_t l4len)
{
    uint8_t *p = m->buf, *u = p + IPH, i;
    uint16_t ulen = l4len >= 8u ? mip_rd16(u + 4) : 0, port = mip_rd16(u + 2), n;

    if (ulen < 8u || ulen > l4len)
        return count(m, STAT(drop_short));
#if MIP_CONF_IPV6
    /* A zero field is never a checksum in IPv6 (RFC 8200 8.1). */
    if (mip_rd16(u + 6) == 0 || BAD_SUM(l4sum(p, MIP_IPPROTO_UDP, ulen)))
#else
    if (mip_rd16(u + 6) != 0 &&     /* IPv4: 0 = no checksum */
        BAD_SUM(l4sum(p, MIP_IPPROTO_UDP, ulen)))
#endif
        return count(m, STAT(drop_cksum));
    for (i = 0; i < MIP_MICRO_UDP_PORTS; i++)
        if (port && m->udp_ports[i] == port)
            goto bound;
    return count(m, STAT(drop_udp));
bound:
    m->appdata = u + 8;
    m->dlen = (uint16_t)(ulen - 8u);
    m->slen = 0;
    m->udp_app(m, port);
    n = m->slen;
    if (!n || !mip_rd16(u))         /* source port 0: no reply wanted (RFC 768) */
        return 0;
    if (n > MIP_MICRO_BUF_SIZE - IPH - 8u)
        n = MIP_MICRO_BUF_SIZE - IPH - 8u;
    u[2] = u[0];
    u[3] = u[1];            /* the reply goes back to the sender */
    mip_wr16(u, port);
    cpy(p + DST, p + SRC, ALEN);
    return udp_out(m, n);
}

int mip_micro_udp_bind(struct mip_micro *m, uint16_t port)
{
    uint8_t i;

    for (i = 0; i < MIP_MICRO_UDP_PORTS; i++)
        if (m->udp_ports[i] == 0 && port) {
            m->udp_ports[i] = port;
            return 0;
        }
    return -1;
}

uint16_t mip_micro_udp_send(struct mip_micro *m, const uint8_t ripaddr[MIP_MICRO_ADDR_LEN],
                            uint16_t rport, uint16_t lport, uint16_t len)
{
    uint8_t *u = m->buf + IPH;

    if (!rport || !lport)
        return 0;
    if (len > MIP_MICRO_BUF_SIZE - IPH - 8u)
        len = MIP_MICRO_BUF_SIZE - IPH - 8u;
    cpy(m->buf + DST, ripaddr, ALEN);
    mip_wr16(u, lport);
    mip_wr16(u + 2, rport);
    return udp_out(m, len);
}
#endif

/* --- IPv4 reassembly (optional) --------------------------------------------- */

#if MIP_MICRO_CONF_REASS
/* uIP's way (uip_reass): one datagram at a time, its data in m->reass and
 * a bitmap of the 8-byte blocks received. The rules (docs/MICRO.md):
 *  - a fragment of another datagram (identification, protocol, source)
 *    while one is in progress is dropped: work in progress is never
 *    evicted; its timer, started by its first fragment and not restarted,
 *    frees the buffer;
 *  - an overlap is not resolved by taking either copy (uIP overwrites):
 *    a fragment that covers received bytes in part, or with other values,
 *    or that contradicts the datagram's end, discards the whole datagram,
 *    as RFC 8200 4.5 has IPv6 do. One whose bytes are all there already
 *    with the same values is a duplicate (links repeat frames) and only it
 *    is dropped;
 *  - so is a fragment that is bad in itself (no data; not the last and not
 *    a multiple of 8 bytes; past the buffer), and it ends its datagram,
 *    which could never complete. */
#define RDATA ((uint16_t)(MIP_MICRO_REASS_SIZE - IPH))  /* data bytes held */
#define RBLOCKS ((uint16_t)((RDATA + 7u) >> 3))

/* How many of the 8-byte blocks a .. b-1 are received; with `set`, marks
 * them received. */
static uint16_t blocks(uint8_t *map, uint16_t a, uint16_t b, uint8_t set)
{
    uint16_t n = 0;
    uint8_t bit;

    for (; a < b; a++) {
        bit = (uint8_t)(1u << (a & 7u));
        if (map[a >> 3] & bit)
            n++;
        if (set)
            map[a >> 3] = (uint8_t)(map[a >> 3] | bit);
    }
    return n;
}

/* The fragment of n bytes at buf + IPH (its header in buf, options cut).
 * Returns the whole datagram's data length once this fragment completes
 * it, the data then at buf + IPH; else 0: taken and waiting, or dropped
 * and counted. */
static uint16_t reass(struct mip_micro *m, uint16_t n)
{
    struct mip_micro_reass *r = &m->reass;
    uint8_t *p = m->buf, *d = p + IPH, key[7], reason, last = !(p[6] & 0x20u);
    uint16_t off = (uint16_t)((uint16_t)((p[6] & 0x1Fu) << 8 | p[7]) << 3), end, a, b, got, i;

    key[0] = p[4];
    key[1] = p[5];
    key[2] = p[9];
    cpy(key + 3, p + SRC, ALEN);
    if (r->timer && differ(r->key, key, sizeof key))
        return count(m, STAT(drop_reass_busy));
    if (!n || (!last && (n & 7u))) {
        reason = STAT(drop_reass_bad);
    } else if (off > RDATA || n > RDATA - off) {
        reason = STAT(drop_reass_size);
    } else {
        if (!r->timer) {                    /* the first fragment: start */
            zero(r->map, sizeof r->map);
            r->end = 0;
            cpy(r->key, key, sizeof key);
            r->timer = MIP_MICRO_REASS_TICKS;
        }
        end = (uint16_t)(off + n);
        a = (uint16_t)(off >> 3);
        b = (uint16_t)((end + 7u) >> 3);
        got = blocks(r->map, a, b, 0);
        /* A second end elsewhere, data past the end, or an end before data
         * received (a last fragment ending within a block that a fragment
         * before it filled whole): a contradiction. */
        if (r->end ? (last ? end != r->end : end > r->end)
                   : (last && blocks(r->map, (uint16_t)(end >> 3), RBLOCKS, 0))) {
            reason = STAT(drop_reass_overlap);
        } else if (!got) {
            for (i = 0; i < n; i++)
                r->data[off + i] = d[i];
            (void)blocks(r->map, a, b, 1);
            if (last)
                r->end = end;
            b = (uint16_t)((r->end + 7u) >> 3);
            if (!r->end || blocks(r->map, 0, b, 0) != b)
                return 0;                   /* waiting for more */
            r->timer = 0;
            for (i = 0; i < r->end; i++)
                d[i] = r->data[i];
            (void)count(m, STAT(reass_done));
            return r->end;
        } else {
            for (i = 0; i < n && r->data[off + i] == d[i]; i++)
                ;
            if (got == b - a && i == n)
                return count(m, STAT(drop_reass_dup));
            reason = STAT(drop_reass_overlap);
        }
    }
    r->timer = 0;                           /* its datagram, if any, ends */
    return count(m, reason);
}
#endif

/* --- IP and ICMP ------------------------------------------------------------ */

uint16_t mip_micro_input(struct mip_micro *m, uint16_t len)
{
    uint8_t *p = m->buf, proto;
    uint16_t l4len;

    (void)count(m, STAT(rx));
    if (len > MIP_MICRO_BUF_SIZE || len < IPH)
        return count(m, STAT(drop_short));
#if MIP_CONF_IPV6
    if ((p[0] >> 4) != 6)
        return count(m, STAT(drop_ip_hdr));
    l4len = mip_rd16(p + 4);
    if (l4len > len - IPH)
        return count(m, STAT(drop_short));
    proto = p[6];
    if (proto == MIP_IPV6_NH_FRAGMENT)
        return count(m, STAT(drop_frag));
    /* Only our address; a multicast source is never valid (RFC 4291 2.7). */
    if (differ(p + DST, m->addr, ALEN) || p[SRC] == 0xFF)
        return count(m, STAT(drop_bad_addr));
#else
    {
        uint8_t hl = (uint8_t)((p[0] & 0x0Fu) << 2);
        uint16_t tot = mip_rd16(p + 2), i;

        if ((uint8_t)(p[0] - 0x45u) > 0x4Fu - 0x45u)   /* version 4, IHL 5..15 */
            return count(m, STAT(drop_ip_hdr));
        if (tot > len || tot < hl)
            return count(m, STAT(drop_short));
        if (BAD_SUM(cksum(0, p, hl)))
            return count(m, STAT(drop_ip_cksum));
#if !MIP_MICRO_CONF_REASS
        if ((p[6] & 0x3Fu) | p[7])  /* MF or an offset */
            return count(m, STAT(drop_frag));
#endif
        /* RFC 1122 3.2.1.3: a source that is multicast, broadcast (class
         * D/E and up), "this network" (0/8) or loopback is invalid. */
        if (differ(p + DST, m->addr, ALEN) || p[SRC] >= 224u || p[SRC] == 127u ||
            p[SRC] == 0)
            return count(m, STAT(drop_bad_addr));
        l4len = (uint16_t)(tot - hl);
        proto = p[9];
        /* Options are ignored (RFC 1122 3.2.1.8 allows it of a host without
         * source routing): cut them out so the transport header sits at a
         * fixed offset. */
        if (hl > IPH)
            for (i = 0; i < l4len; i++)     /* forward: safe as a memmove */
                p[IPH + i] = p[hl + i];
#if MIP_MICRO_CONF_REASS
        /* A fragment (MF or an offset), for us: the whole datagram goes
         * on once it is complete, with this fragment's header. */
        if (((p[6] & 0x3Fu) | p[7]) && !(l4len = reass(m, l4len)))
            return 0;
#endif
    }
#endif
    if (proto == P_ICMP) {
        uint8_t *ic = p + IPH;

        if (l4len < 8u)
            return count(m, STAT(drop_short));
        if (ic[0] != ECHO_REQ)
            return count(m, STAT(drop_icmp));
        if (BAD_SUM(l4sum(p, P_ICMP, l4len)))
            return count(m, STAT(drop_cksum));
        ic[0] = ECHO_REP;
        cpy(p + DST, p + SRC, ALEN);
        return ip_send(m, P_ICMP, l4len);
    }
    if (proto == MIP_IPPROTO_TCP)
        return tcp_in(m, l4len);
#if MIP_MICRO_CONF_UDP
    if (proto == MIP_IPPROTO_UDP)
        return udp_in(m, l4len);
#endif
    return count(m, STAT(drop_proto));
}

/* --- timers and the API ----------------------------------------------------- */

/* One tick of connection c's timers (mip_micro_periodic). A function of
 * its own so that avr-gcc addresses c's fields from c, not from m. */
MIP_NOINLINE static uint16_t conn_tick(struct mip_micro *m, struct mip_micro_conn *c)
{
    uint8_t st = c->state;

    if (st == MIP_MICRO_CLOSED)
        return 0;
    if (st == MIP_MICRO_TIME_WAIT || st == MIP_MICRO_FIN_WAIT_2) {
        /* 2 MSL; and FIN_WAIT_2 cannot last for ever either. */
        if (++c->timer >= MIP_MICRO_TIME_WAIT_TICKS)
            conn_end(m, c, MIP_MICRO_EV_TIMEDOUT);
        return 0;
    }
    if (c->len) {
        if (--c->timer)
            return 0;
        if (c->nrtx >= (st == MIP_MICRO_SYN_RCVD ? MIP_MICRO_MAXSYNRTX : MIP_MICRO_MAXRTX)) {
            (void)count(m, STAT(tcp_timeout));
            conn_end(m, c, MIP_MICRO_EV_TIMEDOUT);
            return tcp_send(m, c, RST | ACK);
        }
        c->nrtx++;
        m->stat[STAT(tcp_rexmit)]++;
        c->timer = (uint8_t)(c->rto << (c->nrtx > 4u ? 4u : c->nrtx));
        if (st == MIP_MICRO_ESTABLISHED)
            return app_send(m, c, MIP_MICRO_EV_REXMIT);
        /* SYN_RCVD: SYN-ACK; SYN_SENT: SYN; else our FIN. */
        return tcp_send(m, c, st == MIP_MICRO_SYN_SENT ? SYN : st == MIP_MICRO_SYN_RCVD ? SYN | ACK : FIN | ACK);
    }
    if (st == MIP_MICRO_ESTABLISHED)
        return app_send(m, c, MIP_MICRO_EV_POLL);
    return 0;
}

uint16_t mip_micro_periodic(struct mip_micro *m, uint8_t i)
{
    m->dlen = 0;
    if (i == 0) {
        m->isn_ticks++;
        m->chal = MIP_MICRO_CHALLENGE_LIMIT;
#if MIP_MICRO_CONF_REASS
        if (m->reass.timer && !--m->reass.timer)
            (void)count(m, STAT(drop_reass_timeout));
#endif
    }
    if (i >= MIP_MICRO_CONNS)
        return 0;
    return conn_tick(m, &m->conn[i]);
}

void mip_micro_init(struct mip_micro *m, const uint8_t addr[MIP_MICRO_ADDR_LEN],
                    const uint8_t entropy[8], mip_micro_app_fn app, void *ctx)
{
    uint32_t r;

    zero(m, sizeof *m);
    m->app = app;
    m->ctx = ctx;
    m->chal = MIP_MICRO_CHALLENGE_LIMIT;
    cpy((uint8_t *)m->key, entropy, sizeof m->key);
    cpy(m->addr, addr, ALEN);
    /* Derived through the hash, so IP IDs and ports do not show the key. */
    r = mip_micro_prf(m->key, m->addr, ALEN);
    m->ipid = (uint16_t)r;
    m->lastport = (uint16_t)(r >> 16);
}

int mip_micro_listen(struct mip_micro *m, uint16_t port)
{
    uint16_t *l;

    for (l = m->listen; port && l < m->listen + MIP_MICRO_LISTEN; l++)
        if (*l == 0) {
            *l = port;
            return 0;
        }
    return -1;
}

void mip_micro_unlisten(struct mip_micro *m, uint16_t port)
{
    uint16_t *l;

    for (l = m->listen; l < m->listen + MIP_MICRO_LISTEN; l++)
        if (*l == port)
            *l = 0;
}

#if MIP_MICRO_CONF_CONNECT
struct mip_micro_conn *mip_micro_connect(struct mip_micro *m,
                                         const uint8_t ripaddr[MIP_MICRO_ADDR_LEN],
                                         uint16_t rport)
{
    struct mip_micro_conn *c = conn_alloc(m), *o;
    uint16_t port = m->lastport;

    if (!c || !rport)
        return NULL;
    /* The next free ephemeral port (RFC 6335 8.1.2: 49152-65535), from a
     * random start; at most MIP_MICRO_CONNS are in use, so this ends. */
again:
    port = (uint16_t)(port + 1u) | 0xC000u;
    for (o = m->conn; o < m->conn + MIP_MICRO_CONNS; o++)
        if (o->state != MIP_MICRO_CLOSED && o->lport == port)
            goto again;
    m->lastport = port;
    conn_init(m, c, ripaddr, port, rport);
    c->state = MIP_MICRO_SYN_SENT;
    c->timer = 1;                   /* the SYN goes out at the next tick */
    return c;
}
#endif
