/*
 * cctrl's split-and-merge proxy ([B] = Buergi's MSc thesis, seeds/001,
 * s.4.5.1): the cctrl node of a TCP end target takes over the client's SYN
 * so that an unmodified application gets one stream carried over n TCP
 * connections across the sensor network. docs/RELAY.md "cctrl split and
 * merge" has the design and what is ours where [B] is open.
 *
 *   client C ---- P1 ======== n subflows ======== P2 ---- server S
 *                 takes over C's SYN to S:port    opens the one real
 *                 and answers it in S's name      connection to S:port
 *
 * Client side (cfg.port != 0): a SYN this node forwards to cfg.port is
 * held; the proxy opens n connections (subflows) to cfg.peer:tunnel_port,
 * each starting with the tunnel header (include/moteip/wire/cctrl_tunnel.h).
 * Server side (cfg.tunnel_end): the proxy accepts subflows on tunnel_port,
 * groups them by (opener, stream id), opens the real connection to the
 * header's target and, once it is established, answers READY on every
 * subflow. When all n answered, the client side hands the held SYN to its
 * own TCP as if addressed to it (destination rewritten to this node, as a
 * NAT would, by the forward hook) and its answers go out in the target's
 * name (source rewritten by the local hook): the handshake completes back
 * to front, server first, as [B] orders it. Data is then split over the
 * subflows by mip_cctrl_split and put back in order by mip_cctrl_merge in
 * both directions; a full merge buffer leaves bytes in the subflow's TCP
 * ring, whose window closes.
 *
 * Fallback: when the subflows cannot be set up (refused, no READY, the
 * setup timer) the held SYN is forwarded as it came and the client talks
 * to the server directly; the pair stays "passed" for pass_ms so its
 * retransmitted SYNs are not taken over again. A SYN that finds the stream
 * table full of streams in progress is forwarded untouched.
 *
 * Bounds (compile time, -D): MIP_CCTRL_PROXY_STREAMS streams,
 * MIP_CCTRL_PROXY_CONNS connections (each with two MIP_CCTRL_PROXY_RING
 * rings), MIP_CCTRL_PROXY_HOLD merge bytes per subflow, a held SYN of at
 * most MIP_CCTRL_PROXY_SYN_MAX bytes, rewritten datagrams of at most
 * MIP_CCTRL_PROXY_PKT_MAX bytes. A new SYN may evict only a passed pair,
 * never a stream being set up or running. Every state ends: setup by
 * setup_ms, a running stream that moves nothing by idle_ms (aborted), a
 * passed pair by pass_ms, a subflow that sends no header by setup_ms.
 *
 * Full profile only (MIP_CONF_FORWARD, cctrl compiled in): the hooks are
 * the relay's. The proxy chains to whatever forward and local hooks were
 * installed before it (the relay's), so mip_cctrl_proxy_init comes after
 * mip_relay_init. Time is the stack's (s->now of the latest input or poll).
 */
#ifndef MOTEIP_APPS_CCTRL_PROXY_H
#define MOTEIP_APPS_CCTRL_PROXY_H

#include <stdbool.h>
#include <stdint.h>
#include "moteip/stack.h"
#include "moteip/ip.h"
#include "moteip/tcp.h"
#include "moteip/relay.h"
#include "moteip/cctrl_split.h"
#include "moteip/wire/cctrl_tunnel.h"

#if MIP_CONF_FORWARD && MIP_RELAY_HAS_CCTRL
#define MIP_CCTRL_PROXY 1
#else
#define MIP_CCTRL_PROXY 0
#endif

#ifndef MIP_CCTRL_PROXY_STREAMS
#define MIP_CCTRL_PROXY_STREAMS 2u
#endif
#ifndef MIP_CCTRL_PROXY_CONNS
#define MIP_CCTRL_PROXY_CONNS (3u * MIP_CCTRL_PROXY_STREAMS)
#endif
#ifndef MIP_CCTRL_PROXY_RING
#define MIP_CCTRL_PROXY_RING 512u
#endif
#ifndef MIP_CCTRL_PROXY_HOLD
#define MIP_CCTRL_PROXY_HOLD 128u
#endif
#ifndef MIP_CCTRL_PROXY_SYN_MAX
#define MIP_CCTRL_PROXY_SYN_MAX 96u
#endif
#ifndef MIP_CCTRL_PROXY_PKT_MAX
#define MIP_CCTRL_PROXY_PKT_MAX 1280u
#endif

struct mip_cctrl_proxy_cfg {
    uint16_t port;              /* client side: SYNs forwarded to this port are taken over (0: none) */
    struct mip_addr peer;       /* client side: the cctrl node of the servers' end target */
    uint16_t tunnel_port;       /* where the peer listens (and this node, with tunnel_end) */
    bool     tunnel_end;        /* server side: accept subflows on tunnel_port */
    uint8_t  subflows;          /* n, 1..MIP_CCTRL_SUBFLOWS_MAX ([B]: 2) */
    uint16_t chunk;             /* split chunk, bytes */
    uint16_t hold;              /* merge bytes per subflow, 1..MIP_CCTRL_PROXY_HOLD */
    uint32_t setup_ms;          /* subflows + real connection, then the client's handshake */
    uint32_t idle_ms;           /* a running stream that moves no byte this long is aborted */
    uint32_t pass_ms;           /* a passed pair is not taken over again this long */
    struct mip_tcp_config tcp;  /* of every connection the proxy runs */
};

/* Defaults: no port, not a tunnel end, 2 subflows of 16-byte chunks
 * ([B]'s client writes 16), 64 bytes held per subflow, setup 30 s, idle
 * 120 s, pass 60 s, mip_tcp_config_default. */
void mip_cctrl_proxy_cfg_default(struct mip_cctrl_proxy_cfg *cfg);

#define MIP_CCTRL_PROXY_STATS_LIST(X)                                           \
    X(syn_taken) X(syn_dup) X(streams_split) X(streams_served) X(streams_done)  \
    X(fallback) X(aborted) X(idle_timeouts) X(diverted) X(rewritten)            \
    X(tunnels_accepted) X(bytes_split) X(bytes_merged) X(merge_full)            \
    X(pass_full) X(pass_big_syn) X(drop_setup) X(drop_bad_header)               \
    X(drop_no_conn) X(drop_header_timeout) X(drop_too_big)
/* syn_taken: client SYNs held (streams started at the client side);
 * syn_dup: their retransmissions dropped while the subflows are set up;
 * streams_split / served: streams running at the client / server side;
 * fallback: held SYNs forwarded after a failed setup; aborted: streams
 * reset after an error of one of their connections; diverted / rewritten:
 * datagrams handed to this node's TCP in the target's name / sent in it;
 * bytes_split / merged: stream bytes into the subflows / out of the merge;
 * merge_full: times a subflow had bytes the merge had no room for (they
 * stay in its TCP ring, whose window closes: [B]'s zero window);
 * pass_full: SYNs forwarded untouched, the table full of streams in
 * progress; pass_big_syn: a SYN longer than MIP_CCTRL_PROXY_SYN_MAX;
 * drop_setup: segments of a held pair before its handshake is answered;
 * drop_bad_header: subflows reset for a bad or inconsistent header;
 * drop_no_conn: connections refused, no free connection or stream;
 * drop_header_timeout: subflows that sent no header in setup_ms;
 * drop_too_big: datagrams to rewrite longer than MIP_CCTRL_PROXY_PKT_MAX. */
enum mip_cctrl_proxy_stat {
#define MIP_CCTRL_PROXY_STAT_ENUM(n) MIP_CCTRL_PROXY_STAT_##n,
    MIP_CCTRL_PROXY_STATS_LIST(MIP_CCTRL_PROXY_STAT_ENUM)
#undef MIP_CCTRL_PROXY_STAT_ENUM
    MIP_CCTRL_PROXY_STAT_COUNT
};

#if MIP_CCTRL_PROXY

struct mip_cctrl_proxy;

/* One connection of a stream, with its rings. */
struct mip_cctrl_proxy_conn {
    struct mip_tcp_conn c;
    struct mip_cctrl_proxy *p;
    uint8_t  stream;            /* owner stream slot; 0xFF: none (a subflow before its header) */
    uint8_t  role;              /* subflow index, or MIP_CCTRL_PROXY_OUTER */
    bool     open;              /* between connect / accept and `closed` */
    bool     failed;            /* `error` was reported */
    uint8_t  hdr_len;           /* header bytes read so far (server side) */
    uint8_t  hdr[MIP_CCTRL_TUNNEL_HDR_MAX];
    mip_time_t since;           /* accepted (a subflow's header timer) */
    uint8_t  tx[MIP_CCTRL_PROXY_RING];
    uint8_t  rx[MIP_CCTRL_PROXY_RING];
    uint8_t  bm[(MIP_CCTRL_PROXY_RING + 7u) / 8u];
};
#define MIP_CCTRL_PROXY_OUTER 0xFEu

struct mip_cctrl_proxy_stream {
    uint8_t  state;             /* enum in apps/cctrl_proxy.c */
    bool     server;            /* server side (else client side) */
    uint8_t  n;
    uint8_t  bound;             /* subflows with a connection: bit per index */
    uint8_t  ready;             /* client side: subflows that answered READY */
    bool     outer_up;          /* the outer connection is established */
    bool     fin_subs, fin_outer;   /* shutdown sent on the subflows / the outer */
    bool     full[MIP_CCTRL_SUBFLOWS_MAX];  /* the merge has no room for that subflow */
    uint8_t  outer;             /* connection slots */
    uint8_t  sub[MIP_CCTRL_SUBFLOWS_MAX];
    uint16_t id;                /* the opener's stream id */
    uint16_t cport, tport;      /* client's port, target's port */
    struct mip_addr client;     /* client side: the client; server side: the opener */
    struct mip_addr target;     /* the client SYN's destination */
    struct mip_addr own;        /* this node's address towards the client */
    mip_time_t deadline;        /* of the current state */
    uint8_t  syn_netif;
    uint16_t syn_len;
    uint8_t  syn[MIP_CCTRL_PROXY_SYN_MAX];
    struct mip_cctrl_split split;   /* outer -> subflows */
    struct mip_cctrl_merge merge;   /* subflows -> outer */
    uint8_t  hold[MIP_CCTRL_SUBFLOWS_MAX * MIP_CCTRL_PROXY_HOLD];
};

struct mip_cctrl_proxy {
    struct mip_stack *s;
    struct mip_tcp *tcp;
    struct mip_cctrl_proxy_cfg cfg;
    mip_fwd_hook_fn prev_fwd;   /* the hooks installed before (the relay's) */
    void    *prev_fwd_ctx;
    mip_local_hook_fn prev_local;
    void    *prev_local_ctx;
    struct mip_tcp_listener lis_port, lis_tunnel;
    struct mip_cctrl_proxy_stream *injecting;   /* whose datagram TCP is reading */
    uint16_t next_id;
    bool     busy, again;       /* pump re-entry guard */
    struct mip_cctrl_proxy_stream st[MIP_CCTRL_PROXY_STREAMS];
    struct mip_cctrl_proxy_conn conn[MIP_CCTRL_PROXY_CONNS];
    uint8_t  pkt[MIP_CCTRL_PROXY_PKT_MAX];      /* a datagram being rewritten */
    uint32_t stat[MIP_CCTRL_PROXY_STAT_COUNT];
};

/* Starts the proxy on stack s with its TCP: checks cfg (INVALID: subflows
 * outside 1..MIP_CCTRL_SUBFLOWS_MAX, chunk 0, hold outside
 * 1..MIP_CCTRL_PROXY_HOLD, a port without a peer, tunnel_port 0, neither a
 * port nor tunnel_end, a 0 timer), listens on cfg.port and tunnel_port as
 * configured (INUSE when taken), registers its poller (NOBUFS) and chains
 * its hooks in front of the installed ones. */
mip_status mip_cctrl_proxy_init(struct mip_cctrl_proxy *p, struct mip_stack *s,
                                struct mip_tcp *tcp, const struct mip_cctrl_proxy_cfg *cfg);

/* Streams not free (being set up, running, passed, ending). */
unsigned mip_cctrl_proxy_streams(const struct mip_cctrl_proxy *p);

#endif

const char *mip_cctrl_proxy_stat_name(enum mip_cctrl_proxy_stat which);

#endif
