/*
 * UDP echo service (RFC 862): every datagram received on the bound port is
 * sent back, payload unchanged, to the sender's address and port, from the
 * address it was sent to (or, for a datagram sent to a multicast/broadcast
 * address, from the source address the stack picks).
 *
 * All state lives in a caller-owned struct; the service uses only the public
 * UDP API (mip_udp_bind / mip_udp_sendto), so any number of instances can
 * run on any number of stacks.
 *
 * Datagrams from source port 0 cannot be answered and are ignored, as are
 * datagrams from the well-known ports of the classic "small services"
 * (echo 7, daytime 13, qotd 17, chargen 19, time 37): answering those is
 * how two echo services get into an endless ping-pong (CERT CA-1996-01).
 */
#ifndef MOTEIP_APPS_UDP_ECHO_H
#define MOTEIP_APPS_UDP_ECHO_H

#include <stdint.h>
#include "moteip/stack.h"

#define MIP_UDP_ECHO_PORT 7u

struct mip_udp_echo {
    uint16_t port;            /* bound port; 0 when stopped */
    uint32_t datagrams;       /* datagrams echoed (send accepted by the stack) */
    uint32_t bytes;           /* payload bytes echoed */
    uint32_t ignored;         /* datagrams not answered (loop-prone source port) */
    uint32_t send_errors;     /* replies the stack refused (mip_udp_sendto error) */
    mip_status last_error;    /* status of the last refused reply */
};

/* Clears *e and binds `port` (MIP_UDP_ECHO_PORT is the standard one).
 * Returns what mip_udp_bind() returns. *e must stay valid until stopped. */
mip_status mip_udp_echo_start(struct mip_udp_echo *e, struct mip_stack *s, uint16_t port);

/* Unbinds the port; counters are kept. NOTFOUND if it was not running. */
mip_status mip_udp_echo_stop(struct mip_udp_echo *e, struct mip_stack *s);

#endif
