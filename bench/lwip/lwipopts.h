/*
 * lwIP 2.1.3 options for bench/lwip-cost: NO_SYS raw API, IPv6 only, TCP
 * sized like bench/tcp_bench.c (MTU 1280, 16 KB windows and send buffer,
 * timestamps). Everything not set here is lwIP's default (opt.h): the
 * default checksum (LWIP_CHKSUM_ALGORITHM 2; bench/lwip-cost also builds
 * with -DLWIP_CHKSUM_ALGORITHM=3, the 32-bit one), the memory pools and heap,
 * statistics on (moteip counts its drops too), SACK off (lwIP 2.1.3 sends
 * SACK blocks only for out-of-order data, which this trace has none of).
 * Assertions are off, as in a shipped build (moteip has none on its
 * receive path).
 */
#ifndef MOTEIP_BENCH_LWIPOPTS_H
#define MOTEIP_BENCH_LWIPOPTS_H

#define NO_SYS                          1
#define SYS_LIGHTWEIGHT_PROT            0   /* one thread, no interrupts */
#define LWIP_NETCONN                    0
#define LWIP_SOCKET                     0
#define LWIP_IPV4                       0
#define LWIP_IPV6                       1
#define LWIP_TCP                        1
#define LWIP_UDP                        0
#define LWIP_RAW                        0
#define LWIP_ETHERNET                   0
#define LWIP_ARP                        0
/* no link layer: the two netifs pass IPv6 packets; addresses are set up
 * static and preferred at once */
#define LWIP_IPV6_AUTOCONFIG            0
#define LWIP_IPV6_SEND_ROUTER_SOLICIT   0
#define LWIP_IPV6_DUP_DETECT_ATTEMPTS   0
#define LWIP_IPV6_MLD                   0
#define PBUF_LINK_HLEN                  0

/* the trace: MSS 1280 - 40 - 20, 16 KB receive window and send buffer */
#define TCP_MSS                         1220
#define TCP_WND                         16384
#define TCP_SND_BUF                     16384
#define TCP_SND_QUEUELEN                ((4 * TCP_SND_BUF + TCP_MSS - 1) / TCP_MSS)
#define MEMP_NUM_TCP_SEG                TCP_SND_QUEUELEN
#define LWIP_TCP_TIMESTAMPS             1
/* a received frame fits one pool buffer (lwIP's default size assumes IPv4) */
#define PBUF_POOL_BUFSIZE               1280
#define PBUF_POOL_SIZE                  32
#define MEM_SIZE                        (64 * 1024)
#define MEM_ALIGNMENT                   8

#define LWIP_NOASSERT                   1

#endif
