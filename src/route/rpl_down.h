/*
 * Internal interface of RPL's downward part (rpl_dao.c, rpl_root.c) to
 * the rest of src/route/ (rpl.c): what the upward part calls when the
 * node joins, changes parent, receives a DAO or DAO-ACK, polls, routes
 * and hooks packets. State: struct mip_rpl_down (moteip/rpl_down.h),
 * r->down. Not part of the public API.
 */
#ifndef MOTEIP_ROUTE_RPL_DOWN_H
#define MOTEIP_ROUTE_RPL_DOWN_H

#include "moteip/rpl.h"
#include "moteip/routing.h"
#include "moteip/ip.h"

/* The modes of operation this build carries (config.h): a branch of a
 * mode left out folds away at compile time. r->mop is never such a mode
 * once joined or root (mip_rpl_init refuses it, dio_input drops its DIOs);
 * before, the tests below are false in either build. */
#define RPL_STORING(r)     (MIP_CONF_RPL_STORING && (r)->mop == MIP_RPL_MOP_STORING)
#define RPL_NON_STORING(r) (MIP_CONF_RPL_NON_STORING && (r)->mop == MIP_RPL_MOP_NON_STORING)
/* The root's source routes and tunnels (a non-storing root's table), and
 * a storing router's DAO-ACK relay: compiled only with their mode. */
#define RPL_SRC_ROUTES     (MIP_RPL_DOWN_MAX > 0 && MIP_CONF_RPL_NON_STORING)
#define RPL_STORING_ROUTER (MIP_RPL_DOWN_MAX > 0 && MIP_CONF_RPL_STORING)

/* Forgets the DAO state (init, detach); the root's table stays unless
 * `table` (a new root, a new DODAG version). */
void rpl_down_reset(struct mip_rpl *r, bool table);

/* The node joined, changed its preferred parent, or was asked for new
 * DAOs (a DTSN increment, RFC 6550 9.6): a DAO goes out after
 * MIP_RPL_DAO_DELAY_MS/2..DELAY (a new Path Sequence). */
void rpl_down_parent_changed(struct mip_rpl *r, mip_time_t now);

/* A DIO from our preferred parent advertised DTSN `dtsn` (RFC 6550 9.6):
 * the first since we chose it is recorded; a newer one schedules a DAO
 * as a parent change does, and increments our own DTSN (resetting our
 * DIO Trickle timer so the children hear it), so the whole sub-DODAG
 * sends DAOs again. */
void rpl_down_parent_dtsn(struct mip_rpl *r, uint8_t dtsn, mip_time_t now);

/* A DAO (code 2) or DAO-ACK (code 3), parsed, from rx. Counts what it
 * drops in r->down.stats. */
void rpl_down_input(struct mip_rpl *r, const struct mip_ip_rx *rx, const struct mip_rpl_msg *m,
                    mip_time_t now);

/* DAO sends, retries and refreshes; the root's table expiry. Returns ms to
 * the next deadline (MIP_POLL_IDLE: none). */
uint32_t rpl_down_poll(struct mip_rpl *r, mip_time_t now);

/* Whether dst is below us: a node of a non-storing root's table (whose
 * source route the hooks put on; *nexthop gets dst itself), or a storing
 * router's route (*nexthop: the child it goes through). */
bool rpl_down_next_hop(const struct mip_rpl *r, const uint8_t dst[16], struct mip_addr *nexthop,
                       mip_time_t now);
bool rpl_down_knows(const struct mip_rpl *r, const uint8_t dst[16], mip_time_t now);

/* The driver's packet hooks (routing.h; ctx is the struct mip_rpl).
 * output: a datagram this node originates; forward: one it forwards. A root puts a source route
 * on datagrams to nodes of its table (RFC 6554; IPv6-in-IPv6 for those
 * from outside, RFC 9008 7) and sets *pkt->nexthop; every router keeps the
 * RPL Option of datagrams it forwards (RFC 6550 11.2) and a node puts one
 * on the datagrams it sends up. */
enum mip_routing_verdict rpl_down_output(void *ctx, struct mip_stack *s,
                                         struct mip_routing_pkt *pkt, mip_time_t now);
enum mip_routing_verdict rpl_down_forward(void *ctx, struct mip_stack *s,
                                          struct mip_routing_pkt *pkt, mip_time_t now);

#if MIP_RPL_DOWN_MAX > 0
/* rpl_root.c: one target's DAO into the table (life_ms 0: a No-Path DAO
 * removes it); `parent` is its DAO parent (non-storing) or the child it
 * came from (storing). False when there was no room: a new target takes only a
 * free or expired slot, so no working route is pushed out (counted). */
bool rpl_down_route_update(struct mip_rpl *r, const uint8_t target[16], const uint8_t parent[16],
                          uint8_t path_seq, uint32_t life_ms, mip_time_t now);
#if MIP_CONF_RPL_STORING
/* Storing: target's route came in a child's DAO (sequence seq_in) that we
 * sent on as seq_out with K set; the child's DAO-ACK waits for ours. */
#define RPL_NODE_ACK_PENDING 2u      /* mip_rpl_node.used: in use, and that */
void rpl_down_route_pending(struct mip_rpl *r, const uint8_t target[16], uint8_t seq_in,
                            uint8_t seq_out, mip_time_t now);
/* A DAO-ACK of seq_out came from our parent: the child (its link-local
 * address) and the sequence to acknowledge it with. False when no route
 * waits for it. */
bool rpl_down_forward_acked(struct mip_rpl *r, uint8_t seq_out, uint8_t child[16],
                            uint8_t *seq_in, mip_time_t now);
#endif
/* Sweeps expired entries (so no stamp outlives half the clock's wrap);
 * ms to the next sweep. */
uint32_t rpl_down_table_poll(struct mip_rpl *r, mip_time_t now);
#endif

/* The driver's rx hook: the non-storing root puts a datagram it forwards
 * to a node of its table in a tunnel (RFC 9008 7), fragmenting the outer
 * datagram when the inner one leaves no room (RFC 2473 7.1): TAKEN; DROP
 * when it has no route (counted); PASS for everything else. */
enum mip_routing_verdict rpl_down_rx(void *ctx, struct mip_stack *s, uint8_t in_netif,
                                     const uint8_t *pkt, size_t len, bool local,
                                     struct mip_routing_pkt *err, mip_time_t now);

/* fe80::iid, a neighbour's link-local address from its interface
 * identifier (rpl_dao.c). */
void rpl_linklocal(const uint8_t iid[8], uint8_t dst[16]);

/* rpl.c: an inconsistency for the DIO Trickle timer (RFC 6206 4.2; I back
 * to Imin, counted in trickle_resets when it was longer). */
void rpl_trickle_reset(struct mip_rpl *r, mip_time_t now);

/* Sends the ICMPv6 message msg[0..len) (type, code, checksum 0, body) to
 * dst from the address the stack picks on r's netif; fills the checksum. */
mip_status rpl_icmp_send(struct mip_rpl *r, const uint8_t dst[16], uint8_t *msg, size_t len);

/* A global address of ours under the DODAG's prefix (the root's: the
 * DODAGID); false when there is none. */
bool rpl_own_global(const struct mip_rpl *r, uint8_t out[16]);

/* RFC 6550 7.2: DAOSequence and Path Sequence start where a lollipop
 * counter starts (rpl.h's mip_rpl_seq_next / _newer step and compare). */
#define RPL_LOLLIPOP_INIT 240u

/* A downward counter up by one, saturating (rpl_dao.c; one copy for the
 * two files that count). */
void rpl_down_count(struct mip_rpl *r, enum mip_rpl_down_stat which);

#endif
