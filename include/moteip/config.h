/*
 * moteip compile-time configuration: the one place every switch and size
 * lives.
 *
 * Pick a profile with -DMOTEIP_PROFILE_TINY=1 or -DMOTEIP_PROFILE_FULL=1 (the
 * CMake option MOTEIP_PROFILE does this); override any single value with
 * -D on the compiler command line. Per-node values that a simulator varies
 * at run time belong in struct mip_stack_config, not here.
 *
 * Sizes below are RAM inside struct mip_stack; the code-size cost of each
 * feature switch is measured by bench/footprint (docs/FOOTPRINT.md).
 *
 *   profile  what it is
 *   tiny     uIP-class node: IPv6 only, raw-IP/radio netifs, no forwarding,
 *            one 1280-byte reassembly slot, small tables.
 *   full     TCPlp-class node or host: IPv4 + IPv6, Ethernet with ARP/ND,
 *            forwarding, several 4.5 KB reassembly slots.
 */
#ifndef MOTEIP_CONFIG_H
#define MOTEIP_CONFIG_H

#if defined(MOTEIP_PROFILE_TINY) && defined(MOTEIP_PROFILE_FULL)
#error "choose one profile: MOTEIP_PROFILE_TINY or MOTEIP_PROFILE_FULL"
#endif
#if !defined(MOTEIP_PROFILE_TINY) && !defined(MOTEIP_PROFILE_FULL)
#define MOTEIP_PROFILE_FULL 1
#endif

#ifdef MOTEIP_PROFILE_TINY
#define MIP_PROFILE_DEFAULT(tiny, full) (tiny)
#else
#define MIP_PROFILE_DEFAULT(tiny, full) (full)
#endif

/* --- feature switches (0/1) ---------------------------------------------- */

/* IPv4, ICMPv4 and (with MIP_CONF_ETHERNET) ARP. */
#ifndef MIP_CONF_IPV4
#define MIP_CONF_IPV4 MIP_PROFILE_DEFAULT(0, 1)
#endif
/* IPv6, ICMPv6 and (with MIP_CONF_ETHERNET) Neighbor Discovery. */
#ifndef MIP_CONF_IPV6
#define MIP_CONF_IPV6 1
#endif
/* Ethernet netifs (TAP, wired boards). Without it only raw-IP netifs exist. */
#ifndef MIP_CONF_ETHERNET
#define MIP_CONF_ETHERNET MIP_PROFILE_DEFAULT(0, 1)
#endif
/* IP forwarding between netifs (routers, relay nodes, border routers). */
#ifndef MIP_CONF_FORWARD
#define MIP_CONF_FORWARD MIP_PROFILE_DEFAULT(0, 1)
#endif

/* The relay's mechanisms compiled in (relay.h, full profile only): the sum
 * of 2 (TSS), 4 (DTC) and 8 (cctrl); mip_relay_init answers UNSUPPORTED
 * for a mode left out. Each costs 1.7-3 KB of Cortex-M0+ code on top of the
 * relay's 5 KB core (docs/RELAY.md): a forwarder that runs one mechanism
 * sets just its bit. */
#ifndef MIP_CONF_RELAY_MODES
#define MIP_CONF_RELAY_MODES 14
#endif

/* The 802.15.4 radio netif: 6LoWPAN (IPHC, fragmentation) and raw IP
 * behind a fixed link header (netif.h), and the MAC floor (mac.h). */
#ifndef MIP_CONF_LOWPAN
#define MIP_CONF_LOWPAN 1
#endif

/* Counter names for mip_stat_name() (JSON output on hosts and in the
 * simulator). Costs MIP_STAT_COUNT * 32 bytes of constant data, which
 * avr-gcc places in RAM. Without it mip_stat_name() returns NULL. */
#ifndef MIP_CONF_STAT_NAMES
#define MIP_CONF_STAT_NAMES MIP_PROFILE_DEFAULT(0, 1)
#endif

/* --- sizes --------------------------------------------------------------- */

/* Packet buffers for output and for queues (packets waiting on ARP/ND). */
#ifndef MIP_PBUF_COUNT
#define MIP_PBUF_COUNT MIP_PROFILE_DEFAULT(4, 16)
#endif
/* Bytes per packet buffer: link header + one MTU-sized IP datagram. */
#ifndef MIP_PBUF_SIZE
#define MIP_PBUF_SIZE MIP_PROFILE_DEFAULT(1304, 1536)
#endif
/* Longest link header any netif prepends in a pbuf's headroom (Ethernet
 * 14; the 802.15.4 netif builds its frames in a buffer of its own). */
#ifndef MIP_LINK_HDR_MAX
#define MIP_LINK_HDR_MAX 24u
#endif
/* Largest radio frame without its FCS. 125 is the 802.15.4 limit
 * (aMaxPHYPacketSize 127 - FCS); the full profile allows longer frames for
 * the non-802.15.4 PHYs the simulator models (the TSS paper's 177-byte
 * frames at 100 kb/s). The length in use is a run-time netif setting. */
#ifndef MIP_RADIO_FRAME_MAX
#define MIP_RADIO_FRAME_MAX MIP_PROFILE_DEFAULT(125u, 253u)
#endif
/* 6LoWPAN datagrams reassembled at once (each 1280 bytes + 20 of bitmap). */
#ifndef MIP_LOWPAN_REASS_SLOTS
#define MIP_LOWPAN_REASS_SLOTS MIP_PROFILE_DEFAULT(1, 2)
#endif
/* RFC 4944 s.5.3: reassembly gives up after 60 s at most. */
#ifndef MIP_LOWPAN_REASS_TIMEOUT_MS
#define MIP_LOWPAN_REASS_TIMEOUT_MS 8000u
#endif

/* Network interfaces per stack. */
#ifndef MIP_NETIF_MAX
#define MIP_NETIF_MAX MIP_PROFILE_DEFAULT(1, 4)
#endif
/* Addresses per netif and family (IPv6 adds its link-local one itself). */
#ifndef MIP_NETIF_ADDR4_MAX
#define MIP_NETIF_ADDR4_MAX 2
#endif
#ifndef MIP_NETIF_ADDR6_MAX
#define MIP_NETIF_ADDR6_MAX MIP_PROFILE_DEFAULT(2, 4)
#endif
/* Route table entries (connected routes of addresses count too). */
#ifndef MIP_ROUTE_MAX
#define MIP_ROUTE_MAX MIP_PROFILE_DEFAULT(4, 16)
#endif
/* Neighbor cache entries, shared by ARP and IPv6 ND. */
#ifndef MIP_NEIGH_MAX
#define MIP_NEIGH_MAX MIP_PROFILE_DEFAULT(4, 16)
#endif
/* Datagrams reassembled at once (both families share the slots). */
#ifndef MIP_REASS_SLOTS
#define MIP_REASS_SLOTS MIP_PROFILE_DEFAULT(1, 3)
#endif
/* Largest reassembled datagram payload (bytes after the IP header). IPv6
 * hosts must reassemble at least 1500-byte packets (RFC 8200 s.5). */
#ifndef MIP_REASS_SIZE
#define MIP_REASS_SIZE MIP_PROFILE_DEFAULT(1280, 4608)
#endif
/* UDP sockets (bound ports). */
#ifndef MIP_UDP_MAX
#define MIP_UDP_MAX MIP_PROFILE_DEFAULT(2, 8)
#endif
/* Upper-layer protocol handlers registered by higher floors (TCP, ...). */
#ifndef MIP_PROTO_HANDLERS_MAX
#define MIP_PROTO_HANDLERS_MAX 2
#endif

/* Timer pollers registered by higher floors (TCP, relay). */
#ifndef MIP_POLLERS_MAX
#define MIP_POLLERS_MAX 2
#endif

/* --- timing (milliseconds) ----------------------------------------------- */

#ifndef MIP_REASS_TIMEOUT_MS
#define MIP_REASS_TIMEOUT_MS 30000u   /* RFC 8200 s.4.5 uses 60 s; RFC 1122 15-120 s */
#endif
#ifndef MIP_NEIGH_REACHABLE_MS
#define MIP_NEIGH_REACHABLE_MS 30000u /* RFC 4861 REACHABLE_TIME */
#endif
#ifndef MIP_NEIGH_RETRANS_MS
#define MIP_NEIGH_RETRANS_MS 1000u    /* RFC 4861 RETRANS_TIMER */
#endif
#ifndef MIP_NEIGH_MAX_PROBES
#define MIP_NEIGH_MAX_PROBES 3u       /* RFC 4861 MAX_MULTICAST_SOLICIT */
#endif
/* ICMP error rate limit, a token bucket (RFC 4443 s.2.4(f)): BURST errors at
 * once, then one per INTERVAL. */
#ifndef MIP_ICMP_RATE_BURST
#define MIP_ICMP_RATE_BURST 10u
#endif
#ifndef MIP_ICMP_RATE_INTERVAL_MS
#define MIP_ICMP_RATE_INTERVAL_MS 100u
#endif

#ifndef MIP_DEFAULT_TTL
#define MIP_DEFAULT_TTL 64u
#endif

/* --- TCP timing and limits (the feature switches are in tcp.h) ------------ */

/* TCP feature switches, each documented where it is defined with its cost:
 * MIP_TCP_SACK, MIP_TCP_TIMESTAMPS, MIP_TCP_WSCALE, MIP_TCP_SYN_COOKIES (SYN
 * cookies when the SYN cache is full: 313 B of Cortex-M0+ code, 16 B of RAM;
 * on in full, off in tiny), MIP_TCP_SYN_BACKLOG, MIP_TCP_TIMEWAIT_MAX (tcp.h);
 * MIP_TCP_LARGE_RX (receive rings above 64 KB, tcp_parts.h: +12 B per
 * connection; on in full on 64-bit hosts only). */

/* Default delayed-ACK time of a connection (c->cfg.delack_ms). RFC 9293
 * 3.8.6.3 bounds it at 500 ms; Linux delays 40-200 ms. */
#ifndef MIP_TCP_DELACK_MS
#define MIP_TCP_DELACK_MS 200u
#endif
/* The longest delayed-ACK time a connection uses (RFC 1122 4.2.3.2: less
 * than 0.5 s); a larger c->cfg.delack_ms is taken as this. It also keeps
 * the delayed-ACK deadline within 16 bits (struct mip_tcp_conn). */
#ifndef MIP_TCP_DELACK_MAX_MS
#define MIP_TCP_DELACK_MAX_MS 500u
#endif
/* What the retransmission timer allows on top of a peer's delayed-ACK
 * timer: the ACK's way back, a late poll of the peer's timer, clock
 * granularity. */
#ifndef MIP_TCP_RTO_MARGIN_MS
#define MIP_TCP_RTO_MARGIN_MS 100u
#endif
/* Lower bound of the RTO. An isolated segment is ACKed only when the
 * peer's delayed-ACK timer fires, however short the path: with an RTO
 * minimum at or below that time the segment is retransmitted needlessly
 * (and cwnd collapses) whenever SRTT was measured on immediate ACKs. So
 * the minimum is the delayed-ACK time plus a margin; a connection whose
 * own delack_ms is longer assumes its peer (the same firmware) delays as
 * long, and raises its floor to delack_ms + the same margin
 * (MIP_TCP_RTO_MIN_MS - MIP_TCP_DELACK_MS).
 * RFC 6298 2.4 asks for 1 s, Linux uses 200 ms (with delayed ACKs of
 * 40 ms at first); 1 s cost the simulator's chains up to a third of
 * their goodput for no fewer needless retransmissions (docs/TCP.md). */
#ifndef MIP_TCP_RTO_MIN_MS
#define MIP_TCP_RTO_MIN_MS (MIP_TCP_DELACK_MS + MIP_TCP_RTO_MARGIN_MS)
#endif
/* RFC 5961 7: challenge ACKs (answers to an in-window RST or SYN, or an
 * ACK outside the acceptable range) are rate-limited per TCP instance: at
 * most LIMIT in each window of WINDOW_MS; the rest are counted in
 * `challenge_acks_limited`. A node's radio time is its battery, so the
 * budget is small (Linux: 1000/s before it dropped the global limit). */
#ifndef MIP_TCP_CHALLENGE_ACK_LIMIT
#define MIP_TCP_CHALLENGE_ACK_LIMIT 10u
#endif
#ifndef MIP_TCP_CHALLENGE_ACK_WINDOW_MS
#define MIP_TCP_CHALLENGE_ACK_WINDOW_MS 1000u
#endif
/* How long a connection the application closed (mip_tcp_close) waits in
 * FIN_WAIT_2 for the peer's FIN, counted from the first poll in that state;
 * then it is aborted (RST, MIP_TCP_ERR_TIMEOUT, `closed`). RFC 9293 has no
 * such timer, so a peer that ACKs our FIN and never sends its own would
 * hold the connection struct and its rings for ever; Linux's
 * tcp_fin_timeout (60 s) is the model. After mip_tcp_close nothing is read
 * any more: all that is left to wait for is a clean end instead of a RST.
 * 60 s is 2 * MSL, as long as the TIME_WAIT record that follows a clean
 * end, and lets the peer's FIN be lost five times in a row at an initial
 * RTO of 1 s (1 + 2 + 4 + 8 + 16 s) or three times at 3 s. A half-closed
 * connection (mip_tcp_shutdown only) is not timed: the application is
 * still reading, and ends it (or turns keepalive on) when it chooses.
 * 0: no timer (RFC 9293's FIN_WAIT_2, which lasts until the peer's FIN).
 * Cost: 40 B of code on Cortex-M0+, no RAM (the retransmission timer,
 * idle in FIN_WAIT_2, is reused). */
#ifndef MIP_TCP_FIN_WAIT_2_MS
#define MIP_TCP_FIN_WAIT_2_MS 60000u
#endif

/* --- checks -------------------------------------------------------------- */

#if !MIP_CONF_IPV4 && !MIP_CONF_IPV6
#error "at least one of MIP_CONF_IPV4 and MIP_CONF_IPV6 must be 1"
#endif
#if MIP_PBUF_COUNT < 2 || MIP_PBUF_COUNT > 250
#error "MIP_PBUF_COUNT must be 2..250 (indices are uint8_t)"
#endif
#if MIP_PBUF_SIZE < 1304 || MIP_PBUF_SIZE > 65535
#error "MIP_PBUF_SIZE must hold a 1280-byte IPv6 datagram plus a link header"
#endif
#if MIP_REASS_SIZE % 8 != 0 || MIP_REASS_SIZE > 65528
#error "MIP_REASS_SIZE must be a multiple of 8 and at most 65528"
#endif
#if MIP_NETIF_MAX < 1 || MIP_NETIF_MAX > 16
#error "MIP_NETIF_MAX must be 1..16"
#endif
#if MIP_TCP_DELACK_MS > MIP_TCP_DELACK_MAX_MS || MIP_TCP_DELACK_MAX_MS > 30000
#error "MIP_TCP_DELACK_MS must not exceed MIP_TCP_DELACK_MAX_MS, which must be at most 30000 (16-bit deadline)"
#endif
#if MIP_TCP_RTO_MIN_MS <= MIP_TCP_DELACK_MS
#error "MIP_TCP_RTO_MIN_MS must exceed MIP_TCP_DELACK_MS, or lone segments are resent needlessly"
#endif
#if MIP_TCP_CHALLENGE_ACK_LIMIT < 1 || MIP_TCP_CHALLENGE_ACK_LIMIT > 255
#error "MIP_TCP_CHALLENGE_ACK_LIMIT must be 1..255 (a uint8_t count)"
#endif
#if MIP_TCP_FIN_WAIT_2_MS > 0x7FFFFFFF
#error "MIP_TCP_FIN_WAIT_2_MS must be below 2^31 ms (a deadline)"
#endif

/*
 * MOTEIP_FUZZING (set by the fuzz build only): received checksums are not
 * verified, so a fuzzer reaches the code behind them. Never ship with it.
 */

#endif
