/*
 * UDP discard service (RFC 863): datagrams received on the bound port are
 * thrown away and counted. State lives in a caller-owned struct; the
 * service uses only the public UDP API.
 */
#ifndef MOTEIP_APPS_UDP_DISCARD_H
#define MOTEIP_APPS_UDP_DISCARD_H

#include <stdint.h>
#include "moteip/stack.h"

#define MIP_UDP_DISCARD_PORT 9u

struct mip_udp_discard {
    uint16_t port;         /* bound port; 0 when stopped */
    uint32_t datagrams;    /* datagrams received (saturating) */
    uint32_t bytes;        /* payload bytes received (saturating) */
};

/* Clears *d and binds `port` (MIP_UDP_DISCARD_PORT is the standard one).
 * Returns what mip_udp_bind() returns. *d must stay valid until stopped. */
mip_status mip_udp_discard_start(struct mip_udp_discard *d, struct mip_stack *s,
                                 uint16_t port);

/* Unbinds the port; counters are kept. NOTFOUND if it was not running. */
mip_status mip_udp_discard_stop(struct mip_udp_discard *d, struct mip_stack *s);

#endif
