/*
 * moteip micro: the smallest node that still speaks RFC-compliant TCP/IP
 * (the MOTEIP_PROFILE_MICRO profile, config.h; docs/MICRO.md).
 *
 * uIP's model (Dunkels, MobiSys 2003, sections 5-7), in one struct and
 * without globals:
 *
 *  - One IP version per build: IPv4 (MIP_CONF_IPV4) or IPv6 (MIP_CONF_IPV6),
 *    one address, a raw-IP link (SLIP, a TUN device, a serial line): the
 *    buffer holds an IP datagram, with no link header.
 *  - One packet buffer, `buf`, shared by input and output. The driver puts
 *    a received datagram there and calls mip_micro_input(); whatever the
 *    stack answers is built in the same buffer, and the call returns its
 *    length (0: nothing to send). The driver sends it before it receives
 *    the next datagram into `buf`.
 *  - ICMP echo replies; TCP with MIP_MICRO_CONNS connections and
 *    MIP_MICRO_LISTEN listening ports, the MSS option, RTT estimation with
 *    Karn's rule, at most one segment in flight per connection and NO
 *    retransmission buffer: when a segment must be sent again the stack
 *    calls the application with MIP_MICRO_EV_REXMIT and the application
 *    produces the same bytes again.
 *  - Optional UDP (MIP_MICRO_CONF_UDP). Fragments are dropped and counted
 *    (drop_frag), unless IPv4 reassembly is on (MIP_MICRO_CONF_REASS: one
 *    datagram at a time, in m->reass; a completed datagram is processed as
 *    if it had arrived whole). IP options are removed on input.
 *  - Time is injected as ticks: the owner calls mip_micro_periodic() for
 *    every connection index once each MIP_MICRO_TICK_MS. Every timer
 *    (retransmission, TIME_WAIT, FIN_WAIT_2, SYN_RCVD) counts these ticks;
 *    the stack reads no clock.
 *  - Randomness is injected: mip_micro_init() takes 8 bytes of entropy,
 *    the key of the initial sequence numbers (RFC 6528: a clock of 2^16
 *    per tick, 3.8-us units at the default 250-ms tick, plus a keyed PRF,
 *    Speck32/64 in CBC-MAC, of the connection's remote address and ports)
 *    and the start of the ephemeral ports and IP identifications.
 *
 * Application contract. `app` is called from mip_micro_input() and
 * mip_micro_periodic() with the connection and a set of MIP_MICRO_EV_*
 * bits. During the call:
 *  - new data (EV_NEWDATA) is at m->appdata, m->dlen bytes. It is gone when
 *    the call returns: use it or copy it.
 *  - to send, write at most mip_micro_mss(c) bytes at mip_micro_sdata(m)
 *    and call mip_micro_send(m, len). This area overlaps the received data:
 *    read it first or use memmove. A connection has at most one segment in
 *    flight: sending is possible only when EV_ACKED, EV_POLL or
 *    EV_CONNECTED says so (c->len == 0), or on EV_REXMIT, where the
 *    application MUST send the same bytes as the last time (the stack keeps
 *    none of them).
 *  - mip_micro_close(m): FIN once nothing is in flight; mip_micro_abort(m):
 *    RST now. mip_micro_stop(c) / mip_micro_restart(c): advertise a zero
 *    window and refuse data, or take data again (flow control).
 *  - EV_CLOSED, EV_ABORTED, EV_TIMEDOUT: the connection is over; its slot is
 *    free (or in TIME_WAIT) when the call returns.
 * `app` MUST NOT call mip_micro_input(), mip_micro_periodic() or
 * mip_micro_connect() (the buffer is in use).
 *
 * Bad input is dropped and counted, one counter per reason
 * (MIP_MICRO_STATS); nothing here allocates, loops without bound, or keeps
 * a pointer to caller memory.
 */
#ifndef MOTEIP_MICRO_H
#define MOTEIP_MICRO_H

#include <stdint.h>

#include "moteip/config.h"

#ifndef MOTEIP_PROFILE_MICRO
#error "moteip/micro.h is the micro profile's API: build with MOTEIP_PROFILE_MICRO=1"
#endif

#if MIP_CONF_IPV6
#define MIP_MICRO_ADDR_LEN 16u
#define MIP_MICRO_IPH 40u            /* IP header in front of TCP/UDP/ICMP */
#else
#define MIP_MICRO_ADDR_LEN 4u
#define MIP_MICRO_IPH 20u
#endif
/* Where an outgoing TCP segment's data goes in buf (TCP header without
 * options in front). */
#define MIP_MICRO_SDATA (MIP_MICRO_IPH + 20u)
/* The MSS we announce and the window we advertise: one buffer's worth. */
#define MIP_MICRO_MSS ((uint16_t)(MIP_MICRO_BUF_SIZE - MIP_MICRO_SDATA))

/* Events passed to the application (a set of bits). */
#define MIP_MICRO_EV_ACKED     0x01u /* the segment in flight was acknowledged */
#define MIP_MICRO_EV_NEWDATA   0x02u /* m->appdata holds m->dlen new bytes */
#define MIP_MICRO_EV_REXMIT    0x04u /* send the last segment's bytes again */
#define MIP_MICRO_EV_POLL      0x08u /* a tick with nothing in flight */
#define MIP_MICRO_EV_CLOSED    0x10u /* the peer closed (its FIN), or ours was acknowledged */
#define MIP_MICRO_EV_ABORTED   0x20u /* RST received (or connection refused) */
#define MIP_MICRO_EV_CONNECTED 0x40u /* three-way handshake done */
#define MIP_MICRO_EV_TIMEDOUT  0x80u /* too many retransmissions */

/* Connection states (RFC 9293 3.3.2). */
enum {
    MIP_MICRO_CLOSED = 0,
    MIP_MICRO_SYN_RCVD,
    MIP_MICRO_SYN_SENT,
    MIP_MICRO_ESTABLISHED,
    MIP_MICRO_FIN_WAIT_1,
    MIP_MICRO_FIN_WAIT_2,
    MIP_MICRO_CLOSING,
    MIP_MICRO_TIME_WAIT,
    MIP_MICRO_LAST_ACK
};

/* Counters: events, then drops (every discarded datagram increments exactly
 * one drop_* counter). 16 bits each; they wrap. */
#define MIP_MICRO_STATS(X)                                                    \
    X(rx)                   /* datagrams given to mip_micro_input */          \
    X(tx)                   /* datagrams returned for sending */              \
    X(drop_short)           /* shorter than its headers or length fields */   \
    X(drop_ip_hdr)          /* version, header length */                      \
    X(drop_ip_cksum)        /* IPv4 header checksum */                        \
    X(drop_frag)            /* a fragment, and MIP_MICRO_CONF_REASS is off */ \
    X(drop_bad_addr)        /* not our address, or a multicast/broadcast/loopback/unspecified source */ \
    X(drop_proto)           /* no such protocol (or an IPv6 extension header) */ \
    X(drop_icmp)            /* an ICMP message other than an echo request */  \
    X(drop_cksum)           /* ICMP, TCP or UDP checksum */                   \
    X(drop_tcp_hdr)         /* data offset below 20 or past the end; port 0 */ \
    X(drop_tcp_rst)         /* RST for no connection, or out of window (RFC 5961 3.2) */ \
    X(drop_tcp_full)        /* SYN for a listening port, no free connection */ \
    X(drop_tcp_seq)         /* not the next sequence number: ACKed, dropped */ \
    X(drop_tcp_ack)         /* ACK outside SND.UNA - 2^16 .. SND.NXT (RFC 5961 5.2) */ \
    X(drop_tcp_syn)         /* SYN on a synchronized connection (RFC 5961 4.2) */ \
    X(drop_tcp_state)       /* a segment its state does not take */           \
    X(drop_udp)             /* UDP: no socket, bad length (UDP off: drop_proto) */ \
    X(tcp_rst_tx)           /* RSTs sent for segments of no connection */     \
    X(tcp_challenge_ack)    /* RFC 5961 challenge ACKs sent */                \
    X(tcp_challenge_limited)/* ... and those the rate limit held back */      \
    X(tcp_rexmit)           /* retransmission timeouts */                     \
    X(tcp_timeout)          /* connections aborted after MIP_MICRO_MAXRTX */ \
    MIP_MICRO_STATS_REASS(X)

/* With MIP_MICRO_CONF_REASS: a datagram's fragments go to m->reass, and the
 * drops name why. A fragment that cannot be taken ends the datagram it
 * belongs to (it could never complete, or its data would be ambiguous),
 * except a duplicate and a fragment of another datagram; drop_reass_timeout
 * counts whole datagrams, from mip_micro_periodic(). */
#if MIP_MICRO_CONF_REASS
#define MIP_MICRO_STATS_REASS(X)                                              \
    X(reass_done)           /* datagrams completed and processed */          \
    X(drop_reass_bad)       /* a fragment of no data, or not the last and not a multiple of 8 bytes */ \
    X(drop_reass_size)      /* a fragment past MIP_MICRO_REASS_SIZE */        \
    X(drop_reass_busy)      /* a fragment of another datagram than the one in progress */ \
    X(drop_reass_dup)       /* a fragment whose bytes are all there, the same: only it is dropped */ \
    X(drop_reass_overlap)   /* overlaps received data (other bytes, or in part), or a second end */ \
    X(drop_reass_timeout)   /* not complete MIP_MICRO_REASS_TICKS after its first fragment */
#else
#define MIP_MICRO_STATS_REASS(X)
#endif

enum {
#define MIP_MICRO_X(n) MIP_MICRO_STAT_##n,
    MIP_MICRO_STATS(MIP_MICRO_X)
#undef MIP_MICRO_X
    MIP_MICRO_STAT_COUNT
};

/* One TCP connection: 30 bytes on Cortex-M0+ with IPv4 (the port numbers
 * in host order; the sequence numbers as on the wire, big-endian bytes:
 * mip_rd32() reads them). */
struct mip_micro_conn {
    /* The remote address and the ports first, together: they are the
     * message of the ISN function (micro.c, conn_init). */
    uint8_t ripaddr[MIP_MICRO_ADDR_LEN]; /* remote address */
    uint16_t lport, rport;   /* local and remote port */
    uint8_t rcv_nxt[4];      /* next sequence number expected */
    uint8_t snd_una[4];      /* first unacknowledged sequence number */
    uint16_t len;            /* sequence space in flight: data, SYN or FIN */
    uint16_t mss;            /* peer's MSS, at most MIP_MICRO_MSS */
    uint16_t wnd;            /* what we may send: min(peer's window, mss) */
    uint8_t state;           /* MIP_MICRO_CLOSED ... */
    uint8_t flags;           /* stopped, close requested */
    uint8_t timer;           /* ticks to the retransmission, or in TIME_WAIT */
    uint8_t rto;             /* retransmission timeout, ticks */
    uint8_t sa, sv;          /* smoothed RTT * 8 and variance * 4, ticks */
    uint8_t nrtx;            /* retransmissions of the segment in flight */
};

struct mip_micro;
typedef void (*mip_micro_app_fn)(struct mip_micro *m, struct mip_micro_conn *c,
                                 uint8_t events);
#if MIP_MICRO_CONF_UDP
/* A datagram for a bound port (m->appdata, m->dlen; its source address and
 * port are in buf: mip_micro_udp_src). A reply written at
 * mip_micro_udp_sdata(m) and given to mip_micro_send() goes back to the
 * sender, unless its source port is 0 (RFC 768: no reply wanted). */
typedef void (*mip_micro_udp_fn)(struct mip_micro *m, uint16_t lport);
#endif

/* The whole state of a node. sizeof() is its RAM: MIP_MICRO_CONNS
 * connections, the buffer, and under 100 bytes besides (docs/MICRO.md);
 * with MIP_MICRO_CONF_REASS, the reassembly buffer too. */
struct mip_micro {
    uint8_t *appdata;            /* during app calls: received data */
    uint16_t dlen;               /* ... and its length */
    uint16_t slen;               /* set by mip_micro_send() */
    uint8_t req;                 /* set by mip_micro_close()/abort() */
    uint8_t chal;                /* challenge ACKs left in this tick */
    uint16_t ipid;               /* next IPv4 identification */
    uint16_t listen[MIP_MICRO_LISTEN]; /* listening ports, 0 = free */
#if MIP_MICRO_CONF_UDP
    mip_micro_udp_fn udp_app;
    uint16_t udp_ports[MIP_MICRO_UDP_PORTS]; /* bound ports, 0 = free */
#endif
    uint8_t addr[MIP_MICRO_ADDR_LEN];   /* our address */
    /* The buffer after the fields used on every datagram and before the
     * rest: on AVR, ldd reaches 63 bytes from a pointer, and at offset 18
     * the IP and TCP headers are within reach of m (bench/footprint: the
     * buffer last was 82 B larger, these fields before it 22 B). */
    uint8_t buf[MIP_MICRO_BUF_SIZE];    /* the packet buffer */
    mip_micro_app_fn app;
    void *ctx;                   /* the owner's, for the callbacks */
    uint16_t lastport;           /* last ephemeral port used */
    uint16_t isn_ticks;          /* RFC 6528 M: ticks; M = isn_ticks << 16 */
    uint16_t key[4];             /* RFC 6528 secret: the Speck32/64 key */
    struct mip_micro_conn conn[MIP_MICRO_CONNS];
    uint16_t stat[MIP_MICRO_STAT_COUNT];
#if MIP_MICRO_CONF_REASS
    /* IPv4 reassembly: one datagram at a time (uIP's way). Data only: the
     * IP header of the fragment that completes the datagram is the one it
     * is processed with (same addresses, identification and protocol). */
    struct mip_micro_reass {
        uint8_t key[7];          /* identification, protocol, source address */
        uint8_t timer;           /* ticks left; 0: no datagram in progress */
        uint16_t end;            /* data length once the last fragment came, else 0 */
        uint8_t map[(MIP_MICRO_REASS_SIZE - MIP_MICRO_IPH + 63u) / 64u]; /* 8-byte blocks received */
        uint8_t data[MIP_MICRO_REASS_SIZE - MIP_MICRO_IPH];
    } reass;
#endif
};

/* Clears `m`; sets our address, the application and the 8 bytes of
 * entropy (from a good source; they key the ISNs). */
void mip_micro_init(struct mip_micro *m, const uint8_t addr[MIP_MICRO_ADDR_LEN],
                    const uint8_t entropy[8], mip_micro_app_fn app, void *ctx);

/* Processes the datagram of `len` bytes in m->buf. Returns the length of
 * the datagram to send, built in m->buf (0: none). */
uint16_t mip_micro_input(struct mip_micro *m, uint16_t len);

/* Runs connection `i`'s timers; call for every i < MIP_MICRO_CONNS once per
 * MIP_MICRO_TICK_MS (i == 0 also advances the ISN clock, refills the
 * challenge-ACK budget and runs the reassembly timer). Returns the length
 * of a datagram to send, or 0. */
uint16_t mip_micro_periodic(struct mip_micro *m, uint8_t i);

/* Listens on `port` (host order). Returns 0, or -1 when MIP_MICRO_LISTEN
 * ports are taken. mip_micro_unlisten stops listening. */
int mip_micro_listen(struct mip_micro *m, uint16_t port);
void mip_micro_unlisten(struct mip_micro *m, uint16_t port);

#if MIP_MICRO_CONF_CONNECT
/* Opens a connection to ripaddr:rport from an ephemeral port. The SYN goes
 * out at the connection's next mip_micro_periodic(); EV_CONNECTED, or
 * EV_ABORTED (refused) or EV_TIMEDOUT follows. NULL when no slot is free
 * or rport is 0 (reserved). */
struct mip_micro_conn *mip_micro_connect(struct mip_micro *m,
                                         const uint8_t ripaddr[MIP_MICRO_ADDR_LEN],
                                         uint16_t rport);
#endif

#if MIP_MICRO_CONF_UDP
/* Binds `port` for udp_app (set m->udp_app first). 0, or -1 when full. */
int mip_micro_udp_bind(struct mip_micro *m, uint16_t port);
/* Sends the `len` bytes at mip_micro_udp_sdata(m) from lport to
 * ripaddr:rport. Returns the datagram's length in buf, for the driver;
 * 0 (nothing) if a port is 0. Not from inside a callback. */
uint16_t mip_micro_udp_send(struct mip_micro *m, const uint8_t ripaddr[MIP_MICRO_ADDR_LEN],
                            uint16_t rport, uint16_t lport, uint16_t len);
#define mip_micro_udp_sdata(m) ((m)->buf + MIP_MICRO_IPH + 8u)
#endif

/* F of RFC 6528: CBC-MAC with Speck32/64 under `key` (k0 l0 l1 l2, as
 * in the cipher's paper) over n bytes (a multiple of 4) read as
 * big-endian 32-bit blocks. Public for tests. */
uint32_t mip_micro_prf(const uint16_t key[4], const uint8_t *msg, uint8_t n);

/* --- calls for the application, inside its callback ------------------ */

/* Where to write the data to send (MIP_MICRO_SDATA in buf). */
#define mip_micro_sdata(m) ((m)->buf + MIP_MICRO_SDATA)
/* How many bytes the connection may send now: the peer's MSS and window;
 * 1 when the window is closed (the byte probes it, RFC 9293 3.8.6.1). */
#define mip_micro_mss(c) ((uint16_t)((c)->wnd ? (c)->wnd : 1u))
/* Sends `len` bytes from mip_micro_sdata(m) (at most mip_micro_mss). */
#define mip_micro_send(m, len) ((void)((m)->slen = (uint16_t)(len)))
/* Closes our side: FIN once nothing is in flight. */
#define mip_micro_close(m) ((void)((m)->req = MIP_MICRO_REQ_CLOSE))
/* Resets the connection. */
#define mip_micro_abort(m) ((void)((m)->req = MIP_MICRO_REQ_ABORT))
/* Flow control: a zero window, and data refused, until restart. */
#define mip_micro_stop(c) ((void)((c)->flags |= MIP_MICRO_F_STOPPED))
#define mip_micro_restart(c) ((void)((c)->flags &= (uint8_t)~MIP_MICRO_F_STOPPED))

#define MIP_MICRO_REQ_CLOSE 1u
#define MIP_MICRO_REQ_ABORT 2u
#define MIP_MICRO_F_STOPPED 1u
#define MIP_MICRO_F_CLOSE   2u

#endif
