/*
 * IP output and the hooks through which higher floors attach to IP.
 *
 * Transport protocols above core (TCP) register a protocol handler; the
 * relay module registers a forward hook. Both are per-instance tables of
 * function pointers set at init: core never includes their headers.
 */
#ifndef MOTEIP_IP_H
#define MOTEIP_IP_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"
#include "moteip/addr.h"

struct mip_stack;
struct mip_pbuf;

#define MIP_NETIF_ANY 0xFFu

/* How to send one datagram. */
struct mip_ip_tx {
    struct mip_addr src;    /* family NONE: chosen by mip_ip_select_src() */
    struct mip_addr dst;
    uint8_t proto;          /* upper-layer protocol / next header */
    uint8_t ttl;            /* TTL / hop limit; 0: MIP_DEFAULT_TTL */
    uint8_t tos;            /* IPv4 TOS / IPv6 traffic class */
    uint8_t netif;          /* MIP_NETIF_ANY: from the route table
                               (needed explicitly for link-local and
                               multicast destinations) */
    bool    dont_fragment;  /* fail with NOSPACE instead of fragmenting */
};

/* A received datagram as IP hands it to an upper layer. */
struct mip_ip_rx {
    struct mip_addr src;
    struct mip_addr dst;
    uint8_t proto;
    uint8_t ttl;            /* TTL / hop limit as received */
    uint8_t netif;
    bool    dst_multicast;  /* multicast or broadcast destination */
    /* The IP header as received (IPv6: with the extension headers before
     * the upper layer), quoted with the upper-layer bytes in ICMP errors.
     * For a reassembled datagram: the first fragment's IP header. */
    const uint8_t *quote;
    size_t  quote_len;
};

/*
 * Sends the upper-layer bytes in p (p's packet = transport header + data,
 * checksum already filled in) as one datagram, fragmenting when it exceeds
 * the netif MTU. Takes ownership of p. Returns NOROUTE, NOBUFS, NOSPACE
 * (dont_fragment and too big), or the outcome of the first link send
 * (PENDING when queued for address resolution).
 */
mip_status mip_ip_output(struct mip_stack *s, const struct mip_ip_tx *tx, struct mip_pbuf *p);

/* Same, copying upper-layer bytes from memory the caller keeps (used for
 * datagrams larger than a pbuf, e.g. an echo reply to a reassembled ping). */
mip_status mip_ip_output_copy(struct mip_stack *s, const struct mip_ip_tx *tx,
                              const uint8_t *l4, size_t len);

/* The source address the stack would use towards dst (on `netif`, or the
 * routed netif for MIP_NETIF_ANY): an address of the outgoing netif in the
 * same prefix if any, else its first of the family (link-local for IPv6
 * link-local destinations). NOROUTE when none. */
mip_status mip_ip_select_src(struct mip_stack *s, const struct mip_addr *dst,
                             uint8_t netif, struct mip_addr *src);

/* --- upper-layer protocol handlers ------------------------------------- */

/* Called with each datagram for `proto` addressed to this node. `l4` is
 * the upper-layer bytes (checksum not yet verified). Returns true when the
 * handler took it; false makes IP answer "protocol unreachable". */
typedef bool (*mip_proto_input_fn)(void *ctx, struct mip_stack *s,
                                   const struct mip_ip_rx *rx,
                                   const uint8_t *l4, size_t len);

/* An ICMP error about a datagram this node sent: `quoted` is the quoted
 * upper-layer header (at least 8 bytes). */
struct mip_ip_error {
    uint8_t family;
    uint8_t type;
    uint8_t code;
    uint32_t info;           /* pointer or MTU, by type */
    struct mip_addr src;     /* of the quoted datagram (this node) */
    struct mip_addr dst;
    const uint8_t *quoted;
    size_t  quoted_len;
};
typedef void (*mip_proto_error_fn)(void *ctx, struct mip_stack *s,
                                   const struct mip_ip_error *err);

struct mip_proto_handler {
    uint8_t proto;               /* 0: slot unused */
    mip_proto_input_fn input;
    mip_proto_error_fn error;    /* may be NULL */
    void   *ctx;
};

/* INUSE when proto already has a handler; NOBUFS when the table is full. */
mip_status mip_ip_register_proto(struct mip_stack *s, uint8_t proto,
                                 mip_proto_input_fn input, mip_proto_error_fn error,
                                 void *ctx);

/* --- forward hook (in-network TCP support) ----------------------------- */

enum mip_fwd_verdict {
    MIP_FWD_PASS = 0,    /* forward as usual (the hook may have edited pkt) */
    MIP_FWD_TAKEN,       /* the hook keeps or answered it; do not forward */
    MIP_FWD_DROP         /* drop it */
};

/* Called for each datagram this node forwards, after the TTL/hop-limit
 * decrement, with the whole IP packet in writable memory. */
typedef enum mip_fwd_verdict (*mip_fwd_hook_fn)(void *ctx, struct mip_stack *s,
                                                uint8_t in_netif, uint8_t out_netif,
                                                uint8_t *pkt, size_t len);

void mip_ip_set_forward_hook(struct mip_stack *s, mip_fwd_hook_fn fn, void *ctx);

/* --- local hook (in-network TCP support at an end point) ---------------- */

/*
 * Full profile only (MIP_CONF_FORWARD). Called with each whole datagram
 * this node originates (out = true), after routing, with its IP header
 * complete, just before it leaves through netif `netif` (not for
 * datagrams IP fragments, not for forwarded ones, not for
 * mip_ip_send_raw); and with each unfragmented datagram delivered to this
 * node (out = false, `netif` the one it came in on), before the upper
 * layer sees it. Outbound, PASS sends it; anything else means the hook
 * took it: IP frees its own copy and reports success (the hook keeps the
 * bytes and sends them later with mip_ip_send_raw). Inbound, the verdict
 * is ignored. A TSS relay uses it to hold back the node's own TCP segments
 * ([T] III.A.4, backpressure at the sender) and to see the ACKs for them.
 */
typedef enum mip_fwd_verdict (*mip_local_hook_fn)(void *ctx, struct mip_stack *s, bool out,
                                                  uint8_t netif, const uint8_t *pkt,
                                                  size_t len);

void mip_ip_set_local_hook(struct mip_stack *s, mip_local_hook_fn fn, void *ctx);

/*
 * Sends a whole IP datagram built elsewhere (IPv4 or IPv6 header first,
 * checksums filled in) towards its destination as it is: routed by its
 * destination address (an IPv6 datagram with a Routing header goes to its
 * Destination Address, the next address of its source route, as a
 * neighbour: RFC 6554 4.2), no TTL/hop-limit decrement, no forward hook, no
 * fragmentation, no local hook. For relays that retransmit a cached segment or answer with
 * an ACK in an end point's name. INVALID when the header does not parse or
 * its length disagrees with len; NOROUTE; NOSPACE when larger than the
 * outgoing MTU; NOBUFS; else the link send's outcome. Full profile only
 * (MIP_CONF_FORWARD).
 */
mip_status mip_ip_send_raw(struct mip_stack *s, const uint8_t *pkt, size_t len);

#endif
