/*
 * moteip compile-time configuration: the one place every switch and size
 * lives.
 *
 * Pick a profile with -DMOTEIP_PROFILE_TINY=1, -DMOTEIP_PROFILE_FULL=1 or
 * -DMOTEIP_PROFILE_MICRO=1 (the CMake option MOTEIP_PROFILE=tiny|full|micro
 * does this); override any single value with
 * -D on the compiler command line (in a CMake build: MOTEIP_DEFINES, e.g.
 * -DMOTEIP_DEFINES="MIP_CONF_LOWPAN=0;MIP_PBUF_COUNT=8", so the library,
 * the apps and a port's firmware agree). Every struct the caller allocates
 * depends on these values: code using an installed moteip gets the ones it
 * was built with from the moteip::moteip target or moteip.pc, and must not
 * set them itself (docs/PORTING.md). Per-node values that a simulator
 * varies at run time belong in struct mip_stack_config, not here.
 *
 * Sizes below are RAM inside struct mip_stack; the code-size cost of each
 * feature switch is measured by bench/footprint (docs/FOOTPRINT.md).
 *
 *   profile  what it is
 *   tiny     uIP-class node: IPv6 only, raw-IP/radio netifs, no forwarding,
 *            one 1280-byte reassembly slot, small tables.
 *   full     TCPlp-class node or host: IPv4 + IPv6, Ethernet with ARP/ND,
 *            forwarding, several 4.5 KB reassembly slots.
 *   micro    uIP-sized node (include/moteip/micro.h, src/micro/, docs/MICRO.md):
 *            IPv4 OR IPv6 (MIP_CONF_IPV6=1 picks IPv6), one packet buffer,
 *            TCP without retransmission buffers (the application resends),
 *            ICMP echo, optional UDP, over a raw-IP link (SLIP, TUN). Its
 *            own small input/output path; it shares only the checksum and
 *            the wire headers' constants with the other profiles. IPv4 +
 *            ICMP + TCP + checksum link to <= 3,800 B on AVR and <= 3,600 B
 *            on Cortex-M0+ (bench/footprint, tests/static/test_footprint.py).
 */
#ifndef MOTEIP_CONFIG_H
#define MOTEIP_CONFIG_H

#include <stdint.h>   /* UINTPTR_MAX in the defaults below */

#if (defined(MOTEIP_PROFILE_TINY) + defined(MOTEIP_PROFILE_FULL) + \
     defined(MOTEIP_PROFILE_MICRO)) > 1
#error "choose one profile: MOTEIP_PROFILE_TINY, MOTEIP_PROFILE_FULL or MOTEIP_PROFILE_MICRO"
#endif
#if !defined(MOTEIP_PROFILE_TINY) && !defined(MOTEIP_PROFILE_FULL) && \
    !defined(MOTEIP_PROFILE_MICRO)
#define MOTEIP_PROFILE_FULL 1
#endif

#ifdef MOTEIP_PROFILE_TINY
#define MIP_PROFILE_DEFAULT(tiny, full) (tiny)
#else
#define MIP_PROFILE_DEFAULT(tiny, full) (full)
#endif

/* A function kept out of line where inlining it into its callers makes
 * the code larger (each use says by how much, bench/footprint). */
#if defined(__GNUC__)
#define MIP_NOINLINE __attribute__((noinline))
#else
#define MIP_NOINLINE
#endif

/* --- feature switches (0/1) ---------------------------------------------- */

#ifdef MOTEIP_PROFILE_MICRO
/* --- the micro profile (micro.h): one IP version, uIP's model ----------- */

/* IPv4 (uIP 1.0) by default; MIP_CONF_IPV6=1 builds the IPv6 variant
 * (uIPv6) instead. Exactly one of the two. */
#ifndef MIP_CONF_IPV6
#define MIP_CONF_IPV6 0
#endif
#ifndef MIP_CONF_IPV4
#define MIP_CONF_IPV4 (!MIP_CONF_IPV6)
#endif
#if MIP_CONF_IPV4 + MIP_CONF_IPV6 != 1
#error "the micro profile speaks one IP version: MIP_CONF_IPV4=1 or MIP_CONF_IPV6=1"
#endif
/* The packet buffer: the largest datagram received or sent, and so the MSS
 * (buffer - 40 or - 60) and the window. RFC 1122 3.3.3 asks an IPv4 host
 * to take 576-byte datagrams; IPv6 links carry 1280 (RFC 8200 5). RAM. */
#ifndef MIP_MICRO_BUF_SIZE
#define MIP_MICRO_BUF_SIZE (MIP_CONF_IPV6 ? 1280u : 576u)
#endif
/* TCP connections (each 32 B with IPv4, 44 B with IPv6 on Cortex-M0+), and
 * listening ports (2 B each). */
#ifndef MIP_MICRO_CONNS
#define MIP_MICRO_CONNS 2u
#endif
#ifndef MIP_MICRO_LISTEN
#define MIP_MICRO_LISTEN 2u
#endif
/* Active open (mip_micro_connect): ~140 B of code on Cortex-M0+. */
#ifndef MIP_MICRO_CONF_CONNECT
#define MIP_MICRO_CONF_CONNECT 1
#endif
/* UDP: bound ports, a receive callback, replies and mip_micro_udp_send. Off
 * in the measured image. */
#ifndef MIP_MICRO_CONF_UDP
#define MIP_MICRO_CONF_UDP 0
#endif
#ifndef MIP_MICRO_UDP_PORTS
#define MIP_MICRO_UDP_PORTS 2u
#endif
/* The tick of mip_micro_periodic(), which every timer counts. The ISN
 * clock advances 2^16 per tick: about RFC 6528's 4 us at 250 ms. */
#ifndef MIP_MICRO_TICK_MS
#define MIP_MICRO_TICK_MS 250u
#endif
/* Retransmission timeout before the first RTT sample, and its floor, in
 * ticks: 1 s (RFC 6298 2.1, 2.4). The floor also stays above a peer's
 * delayed-ACK time (RFC 1122 4.2.3.2: under 0.5 s). */
#ifndef MIP_MICRO_RTO_INIT
#define MIP_MICRO_RTO_INIT 4u
#endif
#ifndef MIP_MICRO_RTO_MIN
#define MIP_MICRO_RTO_MIN 4u
#endif
/* Retransmissions before a connection is given up (EV_TIMEDOUT, RST): with
 * the back-off (doubling up to 16 RTO) 9 make 111 s at a 1 s RTO, over the
 * 100 s RFC 1122 4.2.3.5 asks of R2 (3 minutes for a SYN would take 14:
 * docs/MICRO.md). A half-open connection (SYN_RCVD, a slot a SYN flood
 * would hold) is given up after MAXSYNRTX SYN-ACKs (5: 47 s). */
#ifndef MIP_MICRO_MAXRTX
#define MIP_MICRO_MAXRTX 9u
#endif
#ifndef MIP_MICRO_MAXSYNRTX
#define MIP_MICRO_MAXSYNRTX 5u
#endif
/* TIME_WAIT (2 MSL, RFC 9293 3.3.2) and the FIN_WAIT_2 limit, in ticks. */
#ifndef MIP_MICRO_TIME_WAIT_TICKS
#define MIP_MICRO_TIME_WAIT_TICKS (60000u / MIP_MICRO_TICK_MS)
#endif
/* RFC 5961 7: challenge ACKs per tick, all connections together. */
#ifndef MIP_MICRO_CHALLENGE_LIMIT
#define MIP_MICRO_CHALLENGE_LIMIT 2u
#endif
/* IPv4 reassembly (RFC 1122 3.3.2), off by default: without it every
 * fragment is dropped and counted (drop_frag). uIP's way: one datagram at
 * a time in a buffer of its own (MIP_MICRO_REASS_SIZE - 20 bytes of data
 * and a bitmap of its 8-byte blocks, in struct mip_micro), ended by a timer
 * of MIP_MICRO_REASS_TICKS. A fragment of another datagram meanwhile is
 * dropped (drop_reass_busy): it never evicts the one in progress. Costs
 * 640 B of code on Cortex-M0+ and 864 B on AVR, and RAM of the buffer's
 * size (docs/MICRO.md). IPv4 builds only. */
#ifndef MIP_MICRO_CONF_REASS
#define MIP_MICRO_CONF_REASS 0
#endif
/* The largest datagram reassembled, IP header included (bytes; at least
 * RFC 1122's 576, at most the packet buffer, where the whole datagram is
 * then processed). */
#ifndef MIP_MICRO_REASS_SIZE
#define MIP_MICRO_REASS_SIZE MIP_MICRO_BUF_SIZE
#endif
/* How long a datagram may take to complete, counted from its first
 * fragment; then it is discarded (drop_reass_timeout) and the buffer free.
 * 40 s, as uIP (UIP_REASS_MAXAGE) and above Linux's 30 s: RFC 1122
 * 3.3.2 recommends 60-120 s, but with one buffer and no eviction this is
 * also how long one lost fragment keeps every other datagram out. */
#ifndef MIP_MICRO_REASS_TICKS
#define MIP_MICRO_REASS_TICKS (40000u / MIP_MICRO_TICK_MS)
#endif
#if MIP_MICRO_CONF_REASS &&                                                        \
    (MIP_CONF_IPV6 || MIP_MICRO_REASS_SIZE < 576u || MIP_MICRO_REASS_SIZE > MIP_MICRO_BUF_SIZE || \
     MIP_MICRO_REASS_TICKS < 1 || MIP_MICRO_REASS_TICKS > 255)
#error "MIP_MICRO_CONF_REASS: IPv4 only; MIP_MICRO_REASS_SIZE 576..MIP_MICRO_BUF_SIZE; MIP_MICRO_REASS_TICKS 1..255"
#endif
#if MIP_MICRO_BUF_SIZE < (MIP_CONF_IPV6 ? 1280u : 576u) || MIP_MICRO_BUF_SIZE > 0xFF00u
#error "MIP_MICRO_BUF_SIZE must hold a 576-byte (IPv4) or 1280-byte (IPv6) datagram, and at most 0xFF00 (micro.c adds lengths to sequence numbers in 16 bits)"
#endif
#if MIP_MICRO_CONNS < 1 || MIP_MICRO_CONNS > 255 || MIP_MICRO_LISTEN < 1
#error "MIP_MICRO_CONNS must be 1..255 and MIP_MICRO_LISTEN at least 1"
#endif
#if MIP_MICRO_TIME_WAIT_TICKS > 255 || MIP_MICRO_RTO_INIT < 1 || MIP_MICRO_RTO_MIN < 1 || \
    MIP_MICRO_RTO_INIT > 15 || MIP_MICRO_RTO_MIN > 15
#error "micro timers are 8-bit tick counts: TIME_WAIT <= 255, RTO 1..15 ticks"
#endif
#endif /* MOTEIP_PROFILE_MICRO */

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

/* RPL (rpl.h, docs/RPL.md; not in the micro profile, which has no
 * routing driver). MIP_CONF_RPL_ROOT: mip_rpl_root_start and global
 * repair, 300 B of Cortex-M0+ code in route/rpl.c. The modes of operation
 * a build carries: MIP_CONF_RPL_NON_STORING (MOP 1: DAOs to the root,
 * source routes, RFC 6554's SRH) and MIP_CONF_RPL_STORING (MOP 2: DAOs
 * hop by hop, a route table in every router, No-Path DAOs, DAO-ACK
 * relay); at least one. mip_rpl_init refuses a mode left out, and a DIO
 * of it is dropped (drop_mop). Cortex-M0+ text of the RPL modules, node +
 * root (bench/footprint --rpl; docs/RPL.md, "Sizes"): both modes 12,656 B,
 * non-storing alone 11,734 B (-922), storing alone 10,158 B (-2,498),
 * without counter names. Default: tiny non-storing only, full both. */
#ifndef MIP_CONF_RPL_ROOT
#define MIP_CONF_RPL_ROOT MIP_PROFILE_DEFAULT(0, 1)
#endif
#ifndef MIP_CONF_RPL_STORING
#define MIP_CONF_RPL_STORING MIP_PROFILE_DEFAULT(0, 1)
#endif
#ifndef MIP_CONF_RPL_NON_STORING
#define MIP_CONF_RPL_NON_STORING 1
#endif
#if !MIP_CONF_RPL_STORING && !MIP_CONF_RPL_NON_STORING
#error "RPL needs a mode: MIP_CONF_RPL_NON_STORING or MIP_CONF_RPL_STORING"
#endif

/* The relay's mechanisms compiled in (relay.h, full profile only): the sum
 * of 2 (TSS), 4 (DTC) and 8 (cctrl); mip_relay_init answers UNSUPPORTED
 * for a mode left out. Each costs 1.7-3 KB of Cortex-M0+ code on top of the
 * relay's 5 KB core (docs/RELAY.md): a forwarder that runs one mechanism
 * sets just its bit. */
#ifndef MIP_CONF_RELAY_MODES
#define MIP_CONF_RELAY_MODES 14
#endif

/* The radio duty cycling layers compiled in (rdc.h): NullRDC (the radio
 * always on) is always there; further RDCs are the sum of 2 (ContikiMAC),
 * 4 (X-MAC), 8 (LPP), 16 (sleepy leaf) and 32 (its parent). A build that
 * lacks one answers MIP_ERR_UNSUPPORTED from mip_mac_init for it; with 0
 * the MAC engine also leaves out the duty cycling glue. A node that runs
 * one RDC sets just its bit: each is 0.7-2.1 KB of Cortex-M0+ code
 * (bench/footprint mac/contikimac, mac/xmac, mac/lpp, mac/leaf,
 * mac/parent; docs/MAC.md), and the parent's table of held frames
 * (MIP_RDC_INDIRECT) is RAM in every struct mip_mac of a build that has it.
 * Default: tiny 16, NullRDC and the sleepy leaf, what a battery-powered
 * 6LoWPAN end node runs under an always-on parent (Thread's sleepy end
 * device; the MAC modules on Cortex-M0+ 12.9 -> 4.9 KB); full 62, every RDC (the
 * simulator chooses one per node). A tiny node that samples the channel
 * itself sets 2, 4 or 8. */
#ifndef MIP_CONF_RDC
#define MIP_CONF_RDC MIP_PROFILE_DEFAULT(16, 62)
#endif

/* IEEE 802.15.4 link-layer security in the MAC (802.15.4-2015 s.9: the
 * auxiliary security header, AES-128 CCM*, frame counters, anti-replay;
 * mac.h, docs/MAC.md "Link-layer security"). A node turns it on at run
 * time with mip_mac_config.sec.level; without this switch the field does
 * not exist and secured frames are dropped as malformed. Costs 3,088 B
 * of Cortex-M0+ code with the software AES, 2,528 B with a radio's AES
 * engine (bench/footprint --profile tiny-llsec against tiny; docs/MAC.md)
 * and, per struct mip_mac, the key and config (~60 B), its state (~36 B)
 * and MIP_LLSEC_NEIGHBORS x 12 B of replay table. Default: full on, tiny
 * off (the tiny MAC tests link a library with it on, so it is tested at
 * tiny sizes too). */
#ifndef MIP_CONF_LLSEC
#define MIP_CONF_LLSEC MIP_PROFILE_DEFAULT(0, 1)
#endif

/* The 802.15.4 radio netif: 6LoWPAN (IPHC, fragmentation) and raw IP
 * behind a fixed link header (netif.h), and the MAC floor (mac.h). */
#ifndef MIP_CONF_LOWPAN
#define MIP_CONF_LOWPAN 1
#endif

/* Header compression beyond RFC 6282's defaults on the IPHC radio netif
 * (docs/LOWPAN.md, issue 26): the UDP checksum elided where a link-layer
 * MIC authorises it (RFC 6282 s.4.3.2) and the shared UDP port context
 * (mip_lowpan_config.udp_cksum_elide, has_udp_ports). Without it those
 * settings are refused (UNSUPPORTED) and frames using them dropped.
 * Code (bench/footprint --profile tiny-hc against tiny; tests/static/
 * test_footprint.py guards it): +3,687 B on Cortex-M0+ (wire/sixlowpan
 * +456, wire/lowpan_tcp 1,249, core/lowpan_tcphc 1,514, core/lowpan_netif
 * +418), +6,755 B on AVR. RAM: the TCP contexts below, and 6 bytes per
 * radio netif always. Default: full on, tiny off. */
#ifndef MIP_CONF_LOWPAN_HC
#define MIP_CONF_LOWPAN_HC (MIP_CONF_LOWPAN && MIP_PROFILE_DEFAULT(0, 1))
#endif
/* With it, moteip's TCP header compression too (wire/lowpan_tcp.h,
 * mip_lowpan_config.tcp_hc): contexts per radio netif, each way. RAM:
 * 2 x MIP_LOWPAN_TCPHC_SLOTS x 36 B + MIP_LOWPAN_TCPHC_SLOTS x 12 B + 8 B
 * (344 B with 4) in each of the MIP_NETIF_MAX netif slots of struct
 * mip_stack (+1,464 B in the full profile, docs/FOOTPRINT.md). */
#ifndef MIP_LOWPAN_TCPHC_SLOTS
#define MIP_LOWPAN_TCPHC_SLOTS 4
#endif

/* Stateless address autoconfiguration (slaac.h, RFC 4862): addresses
 * formed from a prefix a DIO or an RA announces, with their lifetimes.
 * RAM: MIP_SLAAC_MAX * 12 + 8 bytes in struct mip_stack. */
#ifndef MIP_CONF_SLAAC
#define MIP_CONF_SLAAC MIP_CONF_IPV6
#endif
/* 6LoWPAN-ND (nd6lo.h, RFC 6775 / RFC 8505) on an IPHC radio netif:
 * MIP_CONF_ND6LO the host part (router solicitation, prefixes, contexts and
 * the ABRO from RAs, address registration), MIP_CONF_ND6LO_ROUTER the
 * router part besides (RA answers, the registration table). Both on in
 * the full profile, off in tiny (a tiny node gets its address from RPL's
 * DIO through SLAAC; MIP_CONF_ND6LO=1 adds the host part). Code size:
 * bench/footprint --profile tiny-nd against tiny, and --rpl's ND host row
 * (Cortex-M0+: core/nd6lo 2,848 B; docs/ND.md).
 * RAM (Cortex-M0+): host 64 B + 12 B per IPv6 address slot + 4 B per
 * context ID (tiny-nd: 104 B);
 * router + 40 B per registration (MIP_ND6LO_REG_MAX). */
#ifndef MIP_CONF_ND6LO
#define MIP_CONF_ND6LO (MIP_CONF_LOWPAN && MIP_CONF_SLAAC && MIP_PROFILE_DEFAULT(0, 1))
#endif
#ifndef MIP_CONF_ND6LO_ROUTER
#define MIP_CONF_ND6LO_ROUTER MIP_CONF_ND6LO
#endif
#if MIP_CONF_ND6LO && !(MIP_CONF_LOWPAN && MIP_CONF_SLAAC)
#error "MIP_CONF_ND6LO needs MIP_CONF_LOWPAN and MIP_CONF_SLAAC"
#endif
#if MIP_CONF_ND6LO_ROUTER && !MIP_CONF_ND6LO
#error "MIP_CONF_ND6LO_ROUTER needs MIP_CONF_ND6LO"
#endif

/* Counter names for mip_stat_name() (JSON output on hosts and in the
 * simulator). Costs MIP_STAT_COUNT * 32 bytes of constant data, which
 * avr-gcc places in RAM. Without it mip_stat_name() returns NULL. */
#ifndef MIP_CONF_STAT_NAMES
#define MIP_CONF_STAT_NAMES MIP_PROFILE_DEFAULT(0, 1)
#endif

/* The internet checksum's word width (wire/checksum.c). Words are summed in
 * native order (RFC 1071 s.2(B): byte order independence; s.2(C): parallel
 * summation) with the end-around carry kept in a 64-bit accumulator:
 *   0  the portable loop: 16-bit words as the CPU loads them (an odd start
 *      summed byte-swapped), 16 bytes a round, into a 32-bit sum folded
 *      once per 64 KB: lwIP's algorithm 2 form, unrolled. The checksum's
 *      share of bench/lwip-cost's receive path on x86-64: 1,564
 *      instructions per KB, lwIP's loop 2,815 (3,010 with the earlier
 *      big-endian byte reads);
 *   1  64-bit words by unaligned loads, four a round, the carry added back
 *      at once: bench/tcp-cost 5,167 -> 2,945 instructions per received KB on
 *      x86-64. Default on 64-bit CPUs and x86 (cheap unaligned loads).
 *   2  aligned 32-bit words (the first 1-3 bytes summed apart; an odd start
 *      summed byte-swapped), on Thumb one ldmia and an adds/adcs chain per
 *      16 bytes: for CPUs without unaligned word loads. Default on 32-bit
 *      ARM (Cortex-M0/M0+/M3/M4): +102 B on Cortex-M0+ (wire/checksum
 *      320 -> 422 B, bench/footprint) for 662 instead of 1,426 (form 0)
 *      instructions per KB on the micro:bit's Cortex-M0, 651 instead of
 *      1,283 (form 0) on the MPS2's Cortex-M3 (bench/cksum-arm;
 *      docs/BENCHMARKS.md "Checksum on Cortex-M").
 * 8/16-bit CPUs (AVR, MSP430) keep 0. 1 and 2 need __BYTE_ORDER__ (gcc,
 * clang). */
#ifndef MIP_CONF_CKSUM_WIDE
#if defined(__BYTE_ORDER__) && defined(__arm__) && !defined(__aarch64__)
#define MIP_CONF_CKSUM_WIDE 2
#elif defined(__BYTE_ORDER__) && (UINTPTR_MAX > 0xFFFFFFFFu || defined(__i386__))
#define MIP_CONF_CKSUM_WIDE 1
#else
#define MIP_CONF_CKSUM_WIDE 0
#endif
#endif

/* The internet checksum in its smallest form: 16-bit words into a 16-bit
 * sum, the carry added back at each word, no unrolling (wire/checksum.c).
 * On by default in the micro profile, where it takes ~100 B on AVR instead
 * of ~400 B; slower per byte than the portable loop. Overrides WIDE. */
#ifndef MIP_CONF_CKSUM_SMALL
#ifdef MOTEIP_PROFILE_MICRO
#define MIP_CONF_CKSUM_SMALL 1
#else
#define MIP_CONF_CKSUM_SMALL 0
#endif
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
/* 1: struct mip_stack holds its big buffers, the MIP_PBUF_COUNT x
 * MIP_PBUF_SIZE packet buffers and the MIP_REASS_SLOTS x MIP_REASS_SIZE
 * reassembly buffers (the default: a port needs no code for them). 0: it
 * holds neither, and the caller hands it their storage in
 * mip_stack_config (.pbufs, pbuf.h; .reass_mem); this saves those bytes
 * in the struct (24,768 + 14,400 B in the full profile) and costs a pointer
 * per reassembly slot. The simulator's build uses 0 and gives each node
 * the same capacity outside the node (docs/SIMULATOR.md). */
#ifndef MIP_BUFS_OWN
#define MIP_BUFS_OWN 1
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
/* 6LoWPAN datagrams reassembled at once (each 1280 bytes + 52 of
 * bookkeeping). Three in full: a node behind a fragment-forwarding
 * neighbour may get two datagrams from it interleaved (two flows merging
 * there), besides one from elsewhere. */
#ifndef MIP_LOWPAN_REASS_SLOTS
#define MIP_LOWPAN_REASS_SLOTS MIP_PROFILE_DEFAULT(1, 3)
#endif
/* RFC 4944 s.5.3: reassembly gives up after 60 s at most. */
#ifndef MIP_LOWPAN_REASS_TIMEOUT_MS
#define MIP_LOWPAN_REASS_TIMEOUT_MS 8000u
#endif
/* Slots one link source may hold at once, and how long a datagram that
 * received new bytes keeps its slot against new datagrams (reass.h). The
 * gap between fragments of one datagram is a few frame times, up to a
 * wake-up interval per retry behind a duty-cycled MAC. */
#ifndef MIP_LOWPAN_REASS_PER_SRC
#define MIP_LOWPAN_REASS_PER_SRC (MIP_LOWPAN_REASS_SLOTS > 1 ? MIP_LOWPAN_REASS_SLOTS - 1 : 1)
#endif
#ifndef MIP_LOWPAN_REASS_PROTECT_MS
#define MIP_LOWPAN_REASS_PROTECT_MS 2000u
#endif
/* RFC 8930 fragment forwarding (netif.h, struct mip_lowpan_config
 * frag_mode): datagrams forwarded fragment by fragment at once, each
 * entry 68 bytes of RAM (reass.h); 0 compiles it out (tiny: no
 * forwarding). Code: 1,702 B on Cortex-M0+, 4,476 B on AVR (full,
 * bench/footprint with and without). A link source may hold VRB_PER_SRC
 * of them: a fragment-forwarding neighbour interleaves the datagrams of
 * every flow it carries. */
#ifndef MIP_LOWPAN_VRB_SLOTS
#define MIP_LOWPAN_VRB_SLOTS MIP_PROFILE_DEFAULT(0, 8)
#endif
#ifndef MIP_LOWPAN_VRB_PER_SRC
#define MIP_LOWPAN_VRB_PER_SRC (MIP_LOWPAN_VRB_SLOTS > 1 ? MIP_LOWPAN_VRB_SLOTS / 2 : 1)
#endif
/* Link sources remembered as having completed a datagram here (reass.h):
 * 11 bytes each. */
#ifndef MIP_LOWPAN_KNOWN_MAX
#define MIP_LOWPAN_KNOWN_MAX MIP_PROFILE_DEFAULT(2, 8)
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
/* Slots one source (family + address) may hold at once (reass.h): a single
 * sender cannot take them all. */
#ifndef MIP_REASS_PER_SRC
#define MIP_REASS_PER_SRC (MIP_REASS_SLOTS > 1 ? MIP_REASS_SLOTS - 1 : 1)
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
/* Autoconfigured addresses per stack (slaac.h), all netifs together. */
#ifndef MIP_SLAAC_MAX
#define MIP_SLAAC_MAX MIP_PROFILE_DEFAULT(2, 4)
#endif
/* IPHC context IDs a radio netif holds (RFC 6282: 16 CIDs; each 8 B of
 * prefix in the netif, 4 B of lifetime in 6LoWPAN-ND): contexts learnt
 * (6CO) with a higher CID are refused (nd6lo_ctx_refused). */
#ifndef MIP_LOWPAN_CTX_IDS
#define MIP_LOWPAN_CTX_IDS MIP_PROFILE_DEFAULT(4, 16)
#endif
/* 6LoWPAN-ND router: registrations held (40 B each), at most PER_SRC of
 * them for one link-layer source; contexts a router announces. */
#ifndef MIP_ND6LO_REG_MAX
#define MIP_ND6LO_REG_MAX MIP_PROFILE_DEFAULT(4, 16)
#endif
#ifndef MIP_ND6LO_REG_PER_SRC
#define MIP_ND6LO_REG_PER_SRC MIP_PROFILE_DEFAULT(2, 4)
#endif
#ifndef MIP_ND6LO_CTX_ADV_MAX
#define MIP_ND6LO_CTX_ADV_MAX 2
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
/* A datagram that received a fragment this recently keeps its slot (but
 * the newest with a single fragment, which a new datagram may take); one
 * idle longer may lose it to a new datagram when the slots are full
 * (reass.h). Above the gap between fragments of one datagram (back to back
 * on a LAN, a few hundred ms behind a duty-cycled radio hop). */
#ifndef MIP_REASS_PROTECT_MS
#define MIP_REASS_PROTECT_MS 2000u
#endif
/* The longest the stack's poll lets pass while autoconfigured addresses
 * exist (slaac.h): their lifetimes count down from a stamp that each poll
 * brings forward, and which must never age past half the clock's wrap. */
#ifndef MIP_SLAAC_REFRESH_MS
#define MIP_SLAAC_REFRESH_MS 3600000u
#endif
/* 6LoWPAN-ND host: the registration lifetime asked for (60-s units; a
 * sleepy leaf's re-registration period is three quarters of it), and the
 * wait before a refused or unanswered registration is tried again. */
#ifndef MIP_ND6LO_REG_LIFETIME_MIN
#define MIP_ND6LO_REG_LIFETIME_MIN 30u
#endif
#ifndef MIP_ND6LO_RETRY_S
#define MIP_ND6LO_RETRY_S 60u
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
/* What a scan of invented on-link sources may take (neigh.h). Every packet
 * to an unresolved neighbor starts a resolution that holds a packet buffer
 * and sends MIP_NEIGH_MAX_PROBES broadcast solicitations, so without limits
 * a few packets from made-up sources empty the pool and push resolved
 * neighbors out of the cache.
 *
 * MIP_NEIGH_QUEUE_MAX: packet buffers that resolutions in progress may
 * hold at once, together (one per neighbor). Default: a quarter of the
 * pool, at least one. Cost: when more neighbors are being resolved at
 * once, the oldest waiting packet is dropped (drop_neigh_evicted) and its
 * sender must retransmit; the rest of the pool stays free for traffic to
 * resolved neighbors.
 *
 * MIP_NEIGH_RESOLVE_BURST / _INTERVAL_MS: new resolutions (a first
 * solicitation for an address not in the cache) are a token bucket:
 * BURST at once, then one per INTERVAL (5/s by default, at most 15
 * solicitations/s with their retries). Cost: while a scan spends the
 * budget, a packet to a neighbor not yet in the cache is dropped
 * (drop_neigh_rate_limited) and resolution starts on a later packet.
 * Neighbors that resolve us (ARP request, NS with a link-layer option) are
 * learnt without a token, and resolved neighbors are never affected. */
#ifndef MIP_NEIGH_QUEUE_MAX
#define MIP_NEIGH_QUEUE_MAX ((MIP_PBUF_COUNT + 3u) / 4u)
#endif
#ifndef MIP_NEIGH_RESOLVE_BURST
#define MIP_NEIGH_RESOLVE_BURST 4u
#endif
#ifndef MIP_NEIGH_RESOLVE_INTERVAL_MS
#define MIP_NEIGH_RESOLVE_INTERVAL_MS 200u
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
#if MIP_NEIGH_QUEUE_MAX < 1 || MIP_NEIGH_QUEUE_MAX >= MIP_PBUF_COUNT
#error "MIP_NEIGH_QUEUE_MAX must be at least 1 and leave packet buffers for resolved traffic"
#endif
#if MIP_NEIGH_RESOLVE_BURST < 1 || MIP_NEIGH_RESOLVE_BURST > 65535 || MIP_NEIGH_RESOLVE_INTERVAL_MS < 1
#error "MIP_NEIGH_RESOLVE_BURST must be 1..65535 and MIP_NEIGH_RESOLVE_INTERVAL_MS at least 1"
#endif
#if MIP_REASS_PER_SRC < 1 || MIP_REASS_PER_SRC > MIP_REASS_SLOTS
#error "MIP_REASS_PER_SRC must be 1..MIP_REASS_SLOTS"
#endif
#if MIP_REASS_PROTECT_MS < 1 || MIP_REASS_PROTECT_MS >= MIP_REASS_TIMEOUT_MS
#error "MIP_REASS_PROTECT_MS must be 1..MIP_REASS_TIMEOUT_MS-1 (a slot in delivery is protected)"
#endif
#if MIP_LOWPAN_REASS_PER_SRC < 1 || MIP_LOWPAN_REASS_PER_SRC > MIP_LOWPAN_REASS_SLOTS
#error "MIP_LOWPAN_REASS_PER_SRC must be 1..MIP_LOWPAN_REASS_SLOTS"
#endif
#if MIP_LOWPAN_REASS_PROTECT_MS < 1 || MIP_LOWPAN_REASS_PROTECT_MS >= MIP_LOWPAN_REASS_TIMEOUT_MS
#error "MIP_LOWPAN_REASS_PROTECT_MS must be 1..MIP_LOWPAN_REASS_TIMEOUT_MS-1"
#endif
#if MIP_LOWPAN_VRB_SLOTS > 0 && !MIP_CONF_FORWARD
#error "MIP_LOWPAN_VRB_SLOTS needs MIP_CONF_FORWARD (fragment forwarding is forwarding)"
#endif
#if MIP_LOWPAN_VRB_SLOTS > 0 && (MIP_LOWPAN_VRB_PER_SRC < 1 || MIP_LOWPAN_VRB_PER_SRC > MIP_LOWPAN_VRB_SLOTS)
#error "MIP_LOWPAN_VRB_PER_SRC must be 1..MIP_LOWPAN_VRB_SLOTS"
#endif
#if MIP_LOWPAN_KNOWN_MAX < 1 || MIP_LOWPAN_KNOWN_MAX > 64
#error "MIP_LOWPAN_KNOWN_MAX must be 1..64"
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
