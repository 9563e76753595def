/*
 * The stack as a service of the process kernel (os.h; seeds/000 s.7.7:
 * "communication services ... use synchronous events to communicate with
 * application programs"). A process owns UDP ports and TCP connections; the
 * stack's callbacks become synchronous events to it, so the process's
 * thread sees them as MIP_OS_EV_UDP and MIP_OS_EV_TCP while the packet is
 * still in the stack's buffer (no copy), and may answer from inside.
 *
 *     MIP_PROCESS_BEGIN();
 *     mip_os_udp_bind(os, p, &me->sock, stack, 7);
 *     for (;;) {
 *         MIP_PROCESS_WAIT_EVENT_UNTIL(ev == MIP_OS_EV_UDP);
 *         const struct mip_os_udp_event *u = data;   (valid during the event)
 *         mip_udp_sendto(...u->meta->src..., u->data, u->len);
 *     }
 *     MIP_PROCESS_END();
 *
 * Everything here is the caller's memory: a struct mip_os_udp per bound
 * port, a struct mip_os_tcp per connection (with its rings), a struct
 * mip_os_listener per listening port with the pool of connections it may
 * hand out. The events' data pointers are valid only during the event.
 */
#ifndef MOTEIP_OS_NET_H
#define MOTEIP_OS_NET_H

#include <stddef.h>
#include <stdint.h>

#include "moteip/os.h"
#include "moteip/stack.h"
#include "moteip/tcp.h"
#include "moteip/udp.h"

/* What happened to a connection (mip_os_tcp_event.what). */
enum mip_os_tcp_what {
    MIP_OS_TCP_CONNECTED = 1,   /* the handshake completed (either side) */
    MIP_OS_TCP_READABLE,        /* data, or the peer's FIN (mip_tcp_peer_closed) */
    MIP_OS_TCP_WRITABLE,        /* send-ring space was freed */
    MIP_OS_TCP_CLOSED,          /* over: the struct may be reused after this event */
    MIP_OS_TCP_ERROR            /* reset, timeout, ...: `error`; CLOSED follows */
};

struct mip_os_tcp;

struct mip_os_tcp_event {
    struct mip_os_tcp *c;
    uint8_t what;               /* enum mip_os_tcp_what */
    uint8_t error;              /* enum mip_tcp_error, with MIP_OS_TCP_ERROR */
};

struct mip_os_udp_event {
    const struct mip_udp_meta *meta;   /* source and destination, the netif */
    const uint8_t *data;
    size_t len;
};

/* A UDP port owned by a process. */
struct mip_os_udp {
    struct mip_os *os;
    struct mip_os_process *p;
    struct mip_stack *s;
    uint16_t port;
    uint32_t refused;           /* datagrams that found the process on the stack already */
};

/* A TCP connection owned by a process. */
struct mip_os_tcp {
    struct mip_tcp_conn conn;
    struct mip_os *os;
    struct mip_os_process *p;
    struct mip_tcp *tcp;
    mip_time_t moved;           /* accepted, or bytes arrived or left the send
                                   ring (a READABLE or WRITABLE event): stack ms */
    bool in_use;                /* taken: connecting, accepted, or open */
};

/* A listener's connection that moved nothing this long may be reset for a
 * new one (mip_os_tcp_listen; as apps/tcp_app.h's MIP_TCP_APP_IDLE_MS). */
#ifndef MIP_OS_TCP_IDLE_MS
#define MIP_OS_TCP_IDLE_MS 60000u
#endif

/* A listening port whose connections go to a process, from a pool of n. */
struct mip_os_listener {
    struct mip_tcp_listener l;
    struct mip_os *os;
    struct mip_os_process *p;
    struct mip_os_tcp *pool;
    size_t n;
    uint32_t idle_ms;           /* MIP_OS_TCP_IDLE_MS from mip_os_tcp_listen; 0:
                                   never reset a connection for a new one */
    uint32_t refused;           /* handshakes refused: every pool entry in use */
    uint32_t evicted;           /* connections reset for a new one: idle_ms */
};

/* Binds `port` for process p: each datagram becomes MIP_OS_EV_UDP. The
 * stack's errors (INUSE, NOBUFS, INVALID) are returned. */
mip_status mip_os_udp_bind(struct mip_os *os, struct mip_os_process *p, struct mip_os_udp *u,
                           struct mip_stack *s, uint16_t port);
mip_status mip_os_udp_unbind(struct mip_os_udp *u);

/* Prepares c for process p with its memory (as mip_tcp_conn_init). */
void mip_os_tcp_init(struct mip_os *os, struct mip_os_process *p, struct mip_os_tcp *c,
                     struct mip_tcp *tcp, uint8_t *tx, uint16_t tx_size, uint8_t *rx,
                     uint8_t *rx_bitmap, mip_tcp_rxsize_t rx_size);

/* Active open of an initialised c: CONNECTED or ERROR then CLOSED follow
 * as events. The stack's status otherwise. */
mip_status mip_os_tcp_connect(struct mip_os_tcp *c, const struct mip_addr *dst, uint16_t port);

/* Listens on `port` for p: each accepted connection is a free entry of
 * pool[0..n) (each initialised with mip_os_tcp_init, and all with receive
 * rings of at least rx_size), announced by CONNECTED. A handshake that finds
 * every entry in use takes the one that moved nothing for the longest, once
 * that is ls->idle_ms (it is reset: ERROR, CLOSED; counted in `evicted`),
 * so a silent client, or one that never opens its window, holds an entry
 * no longer than the next client's arrival after it; else it is refused
 * (RST) and counted. Entries moving bytes are never taken. */
mip_status mip_os_tcp_listen(struct mip_os *os, struct mip_os_process *p,
                             struct mip_os_listener *ls, struct mip_tcp *tcp, uint16_t port,
                             struct mip_os_tcp *pool, size_t n, mip_tcp_rxsize_t rx_size);

#endif
