/*
 * UDP (RFC 768): bind a port to a receive callback, send datagrams.
 *
 * A datagram to a port nobody bound is answered with ICMP port unreachable
 * (rate-limited) and counted as drop_udp_no_port. IPv6 datagrams with a zero
 * checksum are dropped as drop_udp_bad_checksum (RFC 8200 8.1); IPv4 ones
 * are accepted unchecked.
 */
#ifndef MOTEIP_UDP_H
#define MOTEIP_UDP_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"
#include "moteip/addr.h"
#include "moteip/ip.h"

struct mip_stack;

struct mip_udp_meta {
    struct mip_addr src;
    struct mip_addr dst;
    uint16_t src_port;
    uint16_t dst_port;
    uint8_t  netif;          /* where it arrived: the zone to answer in */
    bool     dst_multicast;  /* sent to a multicast or broadcast address */
};

/* Receives one datagram's payload. The memory is the stack's, valid during
 * the call. The callback may send (e.g. an echo reply) from inside. */
typedef void (*mip_udp_recv_fn)(void *ctx, struct mip_stack *s,
                                const struct mip_udp_meta *m,
                                const uint8_t *data, size_t len);

struct mip_udp_sock {
    uint16_t port;             /* 0: slot unused */
    mip_udp_recv_fn recv;
    void    *ctx;
};

/* Binds `port` (1..65535) on all addresses of both families. INUSE,
 * NOBUFS when MIP_UDP_MAX sockets exist, INVALID for port 0 / NULL fn. */
mip_status mip_udp_bind(struct mip_stack *s, uint16_t port, mip_udp_recv_fn fn, void *ctx);
mip_status mip_udp_unbind(struct mip_stack *s, uint16_t port);

/* Sends `len` bytes from src_port to dst:dst_port. src NULL: chosen by the
 * stack. Fragmented when larger than the path MTU allows. Returns what
 * mip_ip_output() returns, or NOBUFS / INVALID (len > 65507).
 *
 * `zone` is the netif a link-scoped dst is on (RFC 4007): an IPv6
 * link-local address, or a multicast group of interface or link scope,
 * names a peer only together with its link, and every netif has fe80::/64.
 * A reply passes the netif its request arrived on (m->netif). Other
 * destinations are routed whatever `zone` says, so a reply may pass
 * m->netif to any peer. MIP_NETIF_ANY leaves the choice to the route table
 * for link-scoped destinations too. */
mip_status mip_udp_sendto(struct mip_stack *s, const struct mip_addr *src,
                          uint16_t src_port, const struct mip_addr *dst,
                          uint16_t dst_port, uint8_t zone, const uint8_t *data, size_t len);

#endif
