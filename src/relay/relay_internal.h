/*
 * Internal interfaces between the files of src/relay, three levels:
 *   core.c     services: parsing, flow table, slots, history, RTT
 *              arithmetic, the ACK builder, sending;
 *   tss.c dtc.c cctrl.c   the mechanisms, built on the services, each
 *              exported as one table of operations (struct rly_ops);
 *   relay.c    the public entry points, which pick the table of the
 *              configured mode and call it.
 * Calls go down only. Not part of the public API.
 */
#ifndef MOTEIP_RELAY_INTERNAL_H
#define MOTEIP_RELAY_INTERNAL_H

#include "moteip/relay.h"

#if MIP_CONF_FORWARD

#include "moteip/stack.h"
#include "moteip/ip.h"
#include "moteip/wire/tcp.h"

#if MIP_RELAY_FLOWS < 1u || MIP_RELAY_FLOWS > 255u
#error "MIP_RELAY_FLOWS must be 1..255 (slots name their flow in a uint8_t)"
#endif
#if MIP_RELAY_SLOTS < 1u || MIP_RELAY_HISTORY < 1u || MIP_RELAY_HISTORY > 255u
#error "MIP_RELAY_SLOTS must be >= 1 and MIP_RELAY_HISTORY 1..255"
#endif
#if MIP_RELAY_DGRAM_MAX < 60u || MIP_RELAY_DGRAM_MAX > 65535u
#error "MIP_RELAY_DGRAM_MAX must be 60..65535"
#endif

#define RSTAT(r, name) ((r)->stats[MIP_RELAY_STAT_##name]++)

/* Samples and timer intervals are clamped to this, so the fixed-point
 * arithmetic below stays inside 32 bits (30000 * 256 * 256 < 2^32). */
#define RLY_TIME_MAX_MS ((uint32_t)30000u)

/* Sequence numbers compare modulo 2^32 (RFC 9293 3.4). */
static inline bool rly_seq_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }
static inline bool rly_seq_leq(uint32_t a, uint32_t b) { return (int32_t)(a - b) <= 0; }
static inline bool rly_seq_gt(uint32_t a, uint32_t b) { return (int32_t)(a - b) > 0; }
static inline bool rly_seq_geq(uint32_t a, uint32_t b) { return (int32_t)(a - b) >= 0; }

/* A TCP segment inside an IP datagram, as the relay reads it. */
struct rly_seg {
    struct mip_addr src, dst;
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t  flags;          /* MIP_TCP_* */
    uint8_t  ttl;            /* TTL / hop limit in the bytes given */
    uint8_t  tos;            /* IPv4 TOS / IPv6 traffic class */
    bool     df;             /* IPv4 DF */
    bool     has_ts;
    uint16_t window;
    uint16_t l3_len;         /* IP header (+ IPv6 extension headers) */
    const uint8_t *pkt;      /* the datagram parsed, while it lives (NULL
                                for the start of a frame's, rly_peek_seg) */
    bool     srh;            /* IPv6 with a source route (RFC 6554) still to
                                follow: dst is its last address, not the
                                Destination Address */
    bool     route_hdr;      /* IPv6 with a source route, followed or done */
    bool     routed;         /* a source route some router worked on: */
    uint8_t  route_by[16];   /* the last one (who sent this datagram) */
    uint8_t  route_from[16]; /* the node route_by had it from */
    uint16_t tcp_hdr_len;
    uint16_t payload_len;
    uint16_t dgram_len;      /* the whole datagram */
    uint32_t id;             /* IPv4 identification / IPv6 flow label */
    uint32_t seg_len;        /* payload + 1 for SYN + 1 for FIN */
    uint32_t ts_val, ts_ecr;
    bool     sack_perm;      /* SACK-permitted option present */
    uint8_t  sack_count;     /* SACK blocks present, 0..MIP_TCP_SACK_MAX */
    uint8_t  opts_known;     /* the option area holds only what the codec
                                re-emits the same way (NOP, EOL, timestamps,
                                SACK): a rewrite loses nothing */
    struct mip_tcp_sack_block sack[MIP_TCP_SACK_MAX];
};

/* Parses an IPv4/IPv6 datagram carrying an unfragmented TCP segment.
 * buf[0..len) holds at least the IP and TCP headers; real_len is the whole
 * datagram's length (0: the header's own, which must then fit in len).
 * verify: the TCP checksum over the whole datagram must be right (not in
 * fuzzing builds). Anything else -> an error: the caller ignores it. */
mip_status rly_parse(const uint8_t *buf, size_t len, size_t real_len, bool verify,
                     struct rly_seg *out);

/* --- flows ------------------------------------------------------------- */
int  rly_flow_find(const struct mip_relay *r, const struct mip_addr *src,
                   const struct mip_addr *dst, uint16_t sport, uint16_t dport);
/* A fresh flow for the data direction of seg (evicting the least recently
 * used one, never `keep`, when the table is full). */
int  rly_flow_new(struct mip_relay *r, const struct rly_seg *seg, int keep);
void rly_flow_evict(struct mip_relay *r, int fi);
/* A SYN (seg) starts its direction's flow afresh: evicting flow fi, a new
 * one (never evicting ri) with transmitted after the SYN, F_SEQ, and
 * F_SACKOK when the SYN offers SACK; *fresh set. A SYN sent again with the
 * ISN the flow started with keeps the flow (*fresh false). -1: no room
 * (counted as ignored). */
int  rly_flow_syn(struct mip_relay *r, const struct rly_seg *seg, int fi, int ri, bool *fresh);
/* The flow of seg's own direction for data passing (fi, or a new one that
 * never evicts ri): last_used now, a FIN noted, and with FINs both ways the
 * connection marked closing (evicted at poll once nothing of it is held).
 * -1: no room (counted as ignored). */
int  rly_flow_data(struct mip_relay *r, const struct rly_seg *seg, int fi, int ri);
/* The flow of seg's own direction / of the reverse one (-1: none). */
int  rly_flow_of(const struct mip_relay *r, const struct rly_seg *seg);
int  rly_flow_rev(const struct mip_relay *r, const struct rly_seg *seg);

/* --- slots ------------------------------------------------------------- */
int  rly_slot_of(const struct mip_relay *r, int fi, uint8_t kind);
/* A free slot for flow fi holding pkt (len <= MIP_RELAY_DGRAM_MAX); -1 when
 * every slot is taken. */
int  rly_slot_store(struct mip_relay *r, int fi, uint8_t kind, const struct rly_seg *seg,
                    const uint8_t *pkt, size_t len);
void rly_slot_free(struct mip_relay *r, int si);
/* Writes the TCP checksum of the datagram d[0..len) that seg was parsed
 * from (its pseudo-header: seg's addresses, the final destination of a
 * source route). */
void rly_tcp_cksum(uint8_t *d, size_t len, const struct rly_seg *seg);
/* Sends slot si's datagram again as a local retransmission (counted in
 * local_rexmits), its TSval first raised to the flow's ts_latest. */
mip_status rly_slot_resend(struct mip_relay *r, int si);

/* --- history of forwarded segments (TSS) ---------------------------------- */
bool rly_hist_has(const struct mip_relay *r, const struct rly_seg *seg);
void rly_hist_add(struct mip_relay *r, const struct rly_seg *seg);

/* --- RTT and timers ---------------------------------------------------- */
void     rly_rtt_sample(struct mip_relay *r, struct mip_relay_flow *f, uint32_t ms);
void     rly_ackfwd_sample(struct mip_relay *r, struct mip_relay_flow *f, uint32_t ms);
/* ack_repair_wait: a sample of the upstream turnaround of data flow f,
 * and the wait of a repair (twice the turnaround, the flow's rtt before a
 * sample; at least rto_min_ms). */
void     rly_up_sample(struct mip_relay *r, struct mip_relay_flow *f, uint32_t ms);
uint32_t rly_repair_wait(const struct mip_relay *r, const struct mip_relay_flow *f);
uint32_t rly_rto(const struct mip_relay *r, const struct mip_relay_flow *f);
/* The flow's rtt estimate in ms (rtt_init_ms before the first sample). */
uint32_t rly_rtt_ms(const struct mip_relay *r, const struct mip_relay_flow *f);
uint32_t rly_ack_timeout(const struct mip_relay *r, const struct mip_relay_flow *f);

/* --- ACKs from the destination ------------------------------------------ */
/* Learns an ACK that dst of flow fi sent (seg, as forwarded here): raises
 * acked and refreshes the template. True when acked moved forward (or was
 * set for the first time). */
bool rly_learn_ack(struct mip_relay *r, int fi, const struct rly_seg *seg);
/* Sends a pure ACK in dst's name towards src with ack = flow->acked, built
 * from the template. NOTFOUND without a template. */
mip_status rly_send_ack(struct mip_relay *r, int fi);

/* True when this node sends datagrams for dst straight to dst (its next
 * hop is dst itself): an end point, which forwards nothing to overhear. */
bool rly_next_hop_is_dst(const struct mip_relay *r, const struct mip_addr *dst);
/* True when seg's datagram, as it leaves this node, goes straight to its
 * destination: on a source route when the route is done (its Destination
 * Address is the next hop, RFC 6554), else by the routes. */
bool rly_seg_next_hop_is_dst(const struct mip_relay *r, const struct rly_seg *seg);

/* Sends a datagram as it is (mip_ip_send_raw); counts a refusal. */
mip_status rly_send(struct mip_relay *r, const uint8_t *pkt, size_t len);

/* The start of the datagram a frame carries (a frame heard or sent), parsed
 * as far as it goes, and the frame's link source (may be NULL). Frames are
 * 802.15.4 frames: without MIP_CONF_LOWPAN it answers UNSUPPORTED (a node
 * whose links are all Ethernet or raw IP overhears nothing). */
struct mip_802154_addr;
mip_status rly_peek_seg(struct mip_relay *r, uint8_t netif, const uint8_t *frame,
                        size_t len, struct rly_seg *seg, struct mip_802154_addr *link_src);

/* --- the mechanisms' tables --------------------------------------------- */

/* Entry points a mechanism wants besides forwarding, for a configuration
 * (bits of rly_ops.events). */
#define RLY_EV_LOCAL     1u   /* this node's own datagrams, out and in */
#define RLY_EV_LINK      2u   /* the link layer's report on each frame sent */
#define RLY_EV_OVERHEARD 4u   /* frames heard addressed to other nodes */

struct rly_ops {
    unsigned (*events)(const struct mip_relay_config *c);
    /* A datagram on the forward path (parsed into seg): PASS, TAKEN, DROP. */
    enum mip_fwd_verdict (*forward)(struct mip_relay *r, const struct rly_seg *seg,
                                    const uint8_t *pkt);
    /* RLY_EV_LOCAL: own datagram leaving (PASS or TAKEN) / delivered here. */
    enum mip_fwd_verdict (*local_out)(struct mip_relay *r, const struct rly_seg *seg,
                                      const uint8_t *pkt);
    void (*local_in)(struct mip_relay *r, const struct rly_seg *seg);
    /* RLY_EV_LINK: a frame sent carried seg; ok when it was link-ACKed. */
    void (*link_status)(struct mip_relay *r, const struct rly_seg *seg, bool ok);
    /* RLY_EV_OVERHEARD: the frame as heard. */
    void (*overheard)(struct mip_relay *r, uint8_t netif, const uint8_t *frame, size_t len);
    /* Timers due at now; ms to the next one or MIP_POLL_IDLE. */
    uint32_t (*poll)(struct mip_relay *r, uint32_t now);
};

#if MIP_RELAY_HAS_TSS
extern const struct rly_ops rly_tss_ops;
#endif
#if MIP_RELAY_HAS_DTC
extern const struct rly_ops rly_dtc_ops;
#endif
#if MIP_RELAY_HAS_CCTRL
extern const struct rly_ops rly_cctrl_ops;
#endif

/* --- TSS (tss.c) ------------------------------------------------------- */
enum mip_fwd_verdict tss_forward(struct mip_relay *r, const struct rly_seg *seg,
                                 const uint8_t *pkt);
void     tss_overheard(struct mip_relay *r, const struct rly_seg *seg);
/* This node's own datagram leaving (the local hook, outbound): PASS or
 * TAKEN. / A datagram delivered to this node (inbound). */
enum mip_fwd_verdict tss_local_out(struct mip_relay *r, const struct rly_seg *seg,
                                   const uint8_t *pkt);
void     tss_local_in(struct mip_relay *r, const struct rly_seg *seg);
uint32_t tss_poll(struct mip_relay *r, uint32_t now);

/* --- DTC (dtc.c) ------------------------------------------------------- */
enum mip_fwd_verdict dtc_forward(struct mip_relay *r, const struct rly_seg *seg,
                                 const uint8_t *pkt);
/* A frame this node sent carried seg; ok: the link layer saw it ACKed. */
void     dtc_link_status(struct mip_relay *r, const struct rly_seg *seg, bool ok);
uint32_t dtc_poll(struct mip_relay *r, uint32_t now);
/* dtc_endpoints: this node's own datagram leaving (it goes on unchanged) /
 * a datagram delivered to this node. */
void     dtc_local_out(struct mip_relay *r, const struct rly_seg *seg, const uint8_t *pkt);
void     dtc_local_in(struct mip_relay *r, const struct rly_seg *seg);

/* --- CCTRL (cctrl.c) --------------------------------------------------- */
enum mip_fwd_verdict cctrl_forward(struct mip_relay *r, const struct rly_seg *seg,
                                   const uint8_t *pkt);
/* cc_link: a frame this node sent carried seg; ok: the link layer saw it
 * ACKed. */
void     cctrl_link_status(struct mip_relay *r, const struct rly_seg *seg, bool ok);
/* Any frame heard addressed to another node (the activity extension). */
void     cctrl_overheard_frame(struct mip_relay *r, uint32_t now);
uint32_t cctrl_poll(struct mip_relay *r, uint32_t now);

#endif /* MIP_CONF_FORWARD */
#endif
