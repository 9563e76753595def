/*
 * Ping: ICMP echo requests sent by the application, and the echo replies
 * handed back to it.
 *
 * Answering other nodes' echo requests needs nothing from the caller: the
 * stack always does it (icmp_echo_replied). This API is the other half:
 *
 *   mip_ping_set_handler(s, on_reply, ctx);       once
 *   mip_ping_send(s, &dst, id, seq, data, len);   per echo request
 *
 * The stack keeps no record of what was sent: every echo reply that arrives
 * (ICMPv4 type 0, ICMPv6 type 129, checksum verified, reassembled if it was
 * fragmented) goes to the one handler of the stack, which matches it to its
 * requests by source address, id and sequence number, and measures the
 * round trip from whatever it put in the data (the stack never reads a
 * clock). Replies arriving while no handler is set are dropped and counted
 * as drop_icmp_unhandled, as before this API existed; replies delivered to
 * the handler count as icmp_echo_reply_rx.
 */
#ifndef MOTEIP_PING_H
#define MOTEIP_PING_H

#include <stdint.h>
#include <stddef.h>
#include "moteip/status.h"
#include "moteip/addr.h"

struct mip_stack;

/* Receives one echo reply: `from` its source address, id and seq as they
 * came back (the peer copies them from the request), data[0..len) the
 * echoed payload. The memory is the stack's, valid during the call. The
 * handler may send (the next request, say) from inside. */
typedef void (*mip_echo_reply_fn)(void *ctx, struct mip_stack *s, const struct mip_addr *from,
                                  uint16_t id, uint16_t seq, const uint8_t *data, size_t len);

/* Sends an echo request to dst: ICMPv4 type 8 for an IPv4 address, ICMPv6
 * type 128 for an IPv6 one, carrying id, seq and data[0..len). The source
 * address and the netif come from the route table (as for UDP: a
 * link-local or multicast dst needs a route naming its netif). Requests
 * larger than the path MTU are fragmented; the peer must be able to
 * reassemble them (MIP_REASS_SIZE on a moteip peer).
 * Returns what mip_ip_output() returns (OK, PENDING while the next hop is
 * resolved, NOROUTE, NOBUFS...), or INVALID for a NULL dst, a family this
 * build lacks, or len over 65507 (IPv4) / 65527 (IPv6) bytes. */
mip_status mip_ping_send(struct mip_stack *s, const struct mip_addr *dst, uint16_t id,
                         uint16_t seq, const uint8_t *data, size_t len);

/* Sets the handler of every echo reply this stack receives; fn NULL
 * removes it (replies are then dropped as drop_icmp_unhandled). One
 * handler per stack: a caller with several pings in flight dispatches on
 * (from, id) itself. */
void mip_ping_set_handler(struct mip_stack *s, mip_echo_reply_fn fn, void *ctx);

#endif
