/*
 * Stateless address autoconfiguration (RFC 4862) from a prefix the network
 * announces: a DIO's prefix information option (RPL, RFC 6550 s.6.7.10) or
 * an RA's (6LoWPAN-ND, RFC 6775). The caller has decided the prefix is for
 * autoconfiguration (the option's A flag); this module forms the address,
 * keeps its lifetimes and removes it when it expires.
 *
 * The address is the /64 prefix followed by the netif's interface
 * identifier: the IID of its link-local address, which every netif derives
 * from its link-layer address (a radio netif with a short address uses
 * 0000:00ff:fe00:XXXX, RFC 4944 s.6; without one the modified EUI-64 of its
 * extended address; Ethernet the modified EUI-64 of its MAC). A frame from
 * the node carries that link address, so IPHC (RFC 6282 s.3.2.2) elides
 * the whole IID.
 *
 * Rules (RFC 4862 s.5.5.3): a link-local or multicast prefix is refused;
 * a preferred lifetime above the valid one is refused; a prefix whose
 * length plus the 64-bit IID is not 128 is refused. For a new prefix with
 * a valid lifetime of 0 nothing happens. For a prefix already configured
 * the preferred lifetime is reset to the one given, and the valid lifetime
 * follows the two-hour rule: a given lifetime above two hours or above the
 * remaining one replaces it; else a remaining lifetime of at most two hours
 * is kept; else it becomes two hours (so a forged short lifetime cannot
 * end an address at once).
 *
 * No connected route is added: an address formed from a prefix says
 * nothing about which addresses of the prefix are on-link (RFC 5942 s.4);
 * in a mesh they are not, and the routing protocol (or the 6LoWPAN-ND
 * default router) carries the traffic. No DAD is done here: 6LoWPAN-ND
 * detects duplicates through the registration (moteip/nd6lo.h) and calls
 * mip_slaac_remove(); RPL networks give each node a unique link address.
 *
 * Lifetimes: seconds; MIP_SLAAC_INFINITE never runs out. They can be far
 * longer than half the millisecond clock's wrap (24.9 days), so no expiry
 * time is stored: each entry keeps the seconds left, and one stamp of the
 * last update is brought forward by every poll and every configure. The
 * stack's poll asks to be called again within MIP_SLAAC_REFRESH_MS while
 * any address is managed, so that stamp is never more than that old.
 * When the preferred lifetime runs out the address is deprecated (used
 * as a source only when no preferred address fits, RFC 6724 rule 3); when
 * the valid one does, it is removed from the netif.
 *
 * Bounds: MIP_SLAAC_MAX entries per stack (config.h; 12 B each), and the
 * netif's MIP_NETIF_ADDR6_MAX address slots; when either is full the
 * prefix is refused with NOBUFS and counted (slaac_full).
 */
#ifndef MOTEIP_SLAAC_H
#define MOTEIP_SLAAC_H

#include <stdint.h>
#include "moteip/config.h"
#include "moteip/status.h"
#include "moteip/timer.h"

struct mip_stack;

/* "Infinity" in the RFC 4861 s.4.6.2 lifetime fields. */
#define MIP_SLAAC_INFINITE 0xFFFFFFFFu
/* RFC 4862 s.5.5.3 e): the floor a valid lifetime can be cut down to. */
#define MIP_SLAAC_TWO_HOURS_S 7200u

/* One autoconfigured address (inside struct mip_stack). */
struct mip_slaac_entry {
    uint32_t valid_s;      /* seconds left; MIP_SLAAC_INFINITE: never ends */
    uint32_t preferred_s;  /* seconds left; 0: deprecated */
    uint8_t  netif;
    uint8_t  slot;         /* index in the netif's addr6[]; 0: entry unused */
};

struct mip_slaac {
    mip_time_t last_ms;    /* when the counters were last brought up to date */
    uint16_t   carry_ms;   /* milliseconds since last_ms not yet counted */
    struct mip_slaac_entry e[MIP_SLAAC_MAX];
};

/*
 * Configures (or refreshes) the address prefix[0..8) + IID on netif
 * `netif` with the given lifetimes (seconds; MIP_SLAAC_INFINITE for none)
 * under the rules above. `now_ms` is the stack clock.
 *
 * Returns OK when the address is configured or refreshed, or when there is
 * nothing to do (a valid lifetime of 0 for a prefix not configured, or the
 * address already configured by hand, which stays as it is). INVALID for
 * an unknown netif or one without a link-local address (no IID), a
 * link-local or multicast prefix, or preferred_s > valid_s; UNSUPPORTED
 * for prefix_len != 64; NOBUFS (counted as slaac_full) when the SLAAC
 * table or the netif's addresses are full.
 */
mip_status mip_slaac_configure(struct mip_stack *s, uint8_t netif, const uint8_t prefix[16],
                               uint8_t prefix_len, uint32_t valid_s, uint32_t preferred_s,
                               uint32_t now_ms);

/* The seconds left of the address formed from prefix/64 on netif, as of
 * now_ms (either pointer may be NULL). NOTFOUND when no such address is
 * managed here. */
mip_status mip_slaac_lifetimes(struct mip_stack *s, uint8_t netif, const uint8_t prefix[16],
                               uint32_t now_ms, uint32_t *valid_s, uint32_t *preferred_s);

/* Removes the address formed from prefix/64 on netif at once (a duplicate
 * found by registration, a routing protocol leaving the network).
 * NOTFOUND when no such address is managed here. */
mip_status mip_slaac_remove(struct mip_stack *s, uint8_t netif, const uint8_t prefix[16]);

/* The address formed from prefix/64 on netif (what mip_slaac_configure
 * would configure), written to addr[16]. INVALID as for configure. */
mip_status mip_slaac_address_of(const struct mip_stack *s, uint8_t netif,
                                const uint8_t prefix[16], uint8_t addr[16]);

#endif
