/*
 * The route table: longest-prefix match over both families. Connected
 * routes (gateway unset) come from netif addresses; others are added by the
 * application, the simulator's static routing, or a routing protocol.
 */
#ifndef MOTEIP_ROUTE_H
#define MOTEIP_ROUTE_H

#include <stdint.h>
#include "moteip/status.h"
#include "moteip/addr.h"

struct mip_stack;

struct mip_route {
    struct mip_addr prefix;   /* family MIP_AF_NONE: slot unused */
    struct mip_addr gateway;  /* family MIP_AF_NONE: on-link (connected) */
    uint8_t prefix_len;
    uint8_t netif;
};

/* Adds (or replaces, for an equal prefix) a route. With gateway NULL the
 * prefix is on-link at `netif`. INVALID for mismatched families or a prefix
 * longer than the address; NOBUFS when the table is full. */
mip_status mip_route_add(struct mip_stack *s, const struct mip_addr *prefix,
                         uint8_t prefix_len, const struct mip_addr *gateway,
                         uint8_t netif);
mip_status mip_route_remove(struct mip_stack *s, const struct mip_addr *prefix,
                            uint8_t prefix_len);

/* The next hop for dst as the instance's routing driver says
 * (routing.h; the static driver: mip_route_table_lookup). NOROUTE when
 * none. *nexthop gets the gateway, or dst itself for on-link prefixes. */
mip_status mip_route_lookup(const struct mip_stack *s, const struct mip_addr *dst,
                            uint8_t *netif, struct mip_addr *nexthop);

/* The route table alone: the longest matching route for dst; NOROUTE
 * when none. */
mip_status mip_route_table_lookup(const struct mip_stack *s, const struct mip_addr *dst,
                            uint8_t *netif, struct mip_addr *nexthop);

#endif
