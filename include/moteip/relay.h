/*
 * In-network TCP support: a relay in a forwarding node caches TCP segments
 * it forwards and retransmits them locally, so a loss on one hop of a long
 * lossy path is repaired on that hop instead of end to end. The end points
 * run unmodified TCP. One struct mip_relay per node, beside its struct
 * mip_stack; no heap, bounded tables, time injected (ms, like the stack).
 *
 * Modes (docs/RELAY.md has the mechanisms, their papers and every parameter):
 *
 *   TSS    Braun, Voigt, Dunkels, "TCP Support for Sensor Networks": one
 *          cached segment (forwarded, not yet known received downstream) and
 *          one buffered (the next in sequence, held back: backpressure);
 *          implicit ACKs by overhearing the successor forward; local
 *          retransmission at beta*rtt (at most max_local_rexmit times); a
 *          history of recently forwarded (source, IP ID / flow label) that
 *          drops copies of local retransmissions already forwarded; ACK
 *          regeneration for data the destination has already acknowledged;
 *          aggressive ACK recovery at gamma * the measured ACK forwarding time.
 *          At an end point the relay also treats the node's own segments
 *          (the IP local hook): held in a per-flow queue and released one at
 *          a time like a buffered segment (backpressure at the sender,
 *          [T] III.A.4); mip_relay_backlog() feeds TCP's cwnd_hold_backlog.
 *          TSS assumes immediate ACKs (delack_ms 0) at the receiver.
 *   DTC    Dunkels et al., Distributed TCP Caching (thesis ch. 9.6, with
 *          the SACK signalling of the Med-Hoc-Net version as summarised in
 *          [B] 3.1.2 and [T] II.A): one cached segment per node, the highest
 *          sequence number seen, locked when the link layer reports no ACK
 *          for it; local retransmission on a local timeout (rto_mult * rtt
 *          to the receiver) or when an ACK shows it missing; with dtc_sack
 *          the retransmitting node writes the segment into the ACK's SACK
 *          option so nodes upstream clear their copies, and drops the ACK
 *          when no gap is left (ACK suppression). Ours, a switch: the
 *          sender's own segments protected too (its first hop).
 *   CCTRL  Buergi's cctrl module for Contiki: one cached segment per
 *          connection direction, RTO = n * rtt (EWMA alpha), one local
 *          retransmission, ACK regeneration from the stored reverse header;
 *          extensions keep (up to 3), drop (copies of the cached segment),
 *          hop (RTO scaled by the hop distance to the receiver) and activity
 *          (early retransmission when no frame was overheard for an rtt);
 *          ours, a switch: link (resent at once when the MAC reports the
 *          frame lost).
 *
 * Wiring, by whoever owns the node (the simulator, or firmware):
 *   mip_relay_init(r, stack, cfg)       also installs the IP forward and
 *                                       local hooks
 *   TCP sender (optional)    -> tcp.backlog = fn calling mip_relay_backlog()
 *   MAC overheard callback   -> mip_relay_overheard(r, netif, frame, len, now)
 *   MAC tx_done callback     -> mip_relay_link_status(r, netif, frame, len, ok, now)
 *   after input/poll         -> next = min(next, mip_relay_poll(r, now))
 * The relay sends (local retransmissions, regenerated or recovered ACKs)
 * through mip_ip_send_raw(), which bypasses the forward hook.
 *
 * Invariants (tested): a regenerated or recovered ACK never acknowledges more
 * than the highest ACK number seen from the destination; tables and caches
 * never exceed their compile-time bounds; a datagram the relay does not
 * understand (not TCP, fragmented, options it cannot parse, a wrong TCP
 * checksum) is passed on untouched. A segment too big for a slot
 * (MIP_RELAY_DGRAM_MAX) is forwarded uncached when it is next in sequence.
 *
 * Full profile only (MIP_CONF_FORWARD): a tiny node does not forward.
 */
#ifndef MOTEIP_RELAY_H
#define MOTEIP_RELAY_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/config.h"
#include "moteip/status.h"
#include "moteip/addr.h"

#if MIP_CONF_FORWARD

struct mip_stack;

/* Bounds (compile-time; config.h style: override with -D). */
#ifndef MIP_RELAY_FLOWS
#define MIP_RELAY_FLOWS 4u          /* connection directions tracked */
#endif
#ifndef MIP_RELAY_SLOTS
#define MIP_RELAY_SLOTS 8u          /* cached/buffered/queued datagrams, all
                                       flows: a forwarder needs 2 per flow
                                       (4 flows), a TSS source 1 + its queue
                                       (up to 7 seen, docs/RELAY.md) */
#endif
#ifndef MIP_RELAY_DGRAM_MAX
#define MIP_RELAY_DGRAM_MAX 256u    /* largest datagram cached (bytes); larger
                                       ones are forwarded uncached */
#endif
#ifndef MIP_RELAY_HISTORY
#define MIP_RELAY_HISTORY 10u       /* TSS duplicate history entries */
#endif
#ifndef MIP_RELAY_ACTIVITY
#define MIP_RELAY_ACTIVITY 20u      /* CCTRL: overheard-frame times kept ([B] 4.4.2) */
#endif

/* Which mechanisms this build has (config.h MIP_CONF_RELAY_MODES). */
#define MIP_RELAY_HAS_TSS   ((MIP_CONF_RELAY_MODES & 2) != 0)
#define MIP_RELAY_HAS_DTC   ((MIP_CONF_RELAY_MODES & 4) != 0)
#define MIP_RELAY_HAS_CCTRL ((MIP_CONF_RELAY_MODES & 8) != 0)

enum mip_relay_mode {
    MIP_RELAY_OFF   = 0,
    MIP_RELAY_TSS   = 1,
    MIP_RELAY_DTC   = 2,
    MIP_RELAY_CCTRL = 3
};

/* Multipliers are fixed point in 1/256 (384 = 1.5). */
struct mip_relay_config {
    uint8_t  mode;                /* enum mip_relay_mode */
    uint8_t  max_local_rexmit;    /* TSS 4; CCTRL 1 (keep: 3); DTC 4 */
    uint16_t rto_mult_q8;         /* local RTO = mult * rtt: TSS beta 1.5 (384),
                                     CCTRL n = 3 (768), DTC 1.5 (384) */
    uint8_t  alpha_q8;            /* rtt EWMA weight: 0.25 (64) for CCTRL;
                                     TSS and DTC leave it unstated: 0.125 (32) */
    uint16_t rtt_init_ms;         /* rtt before the first sample (CCTRL 2000/3
                                     so that the first RTO is 2 s); TSS starts
                                     from the SYN/SYN-ACK delay when it saw one */
    uint16_t rto_min_ms;          /* floor of every relay timer: local RTO,
                                     ACK recovery (10) */
    uint16_t idle_timeout_s;      /* a flow unused this long is forgotten (60) */
    /* TSS */
    bool     tss_backpressure;    /* hold the next segment until the previous
                                     is known received downstream (true) */
    uint16_t ack_gamma_q8;        /* ACK recovery after gamma * ACK forwarding
                                     time: 2.0 (512) */
    uint16_t forward_delay_ms;    /* delayed forwarding of a buffered segment
                                     after an implicit ACK (TSS forward_delayed) */
    bool     tss_ack_release;     /* the limit of forward_delayed (docs/RELAY.md):
                                     an implicit ACK frees the cache but releases
                                     nothing; the buffered (or queued) segment
                                     waits for the TCP ACK, so one segment is on
                                     the path at a time (false) */
    /* CCTRL extensions */
    bool     cc_keep;             /* keep the segment for up to 3 retransmissions */
    bool     cc_drop;             /* drop received copies of the cached segment */
    bool     cc_hop;              /* RTO = min(h, hop_max) * hop_beta * rtt */
    uint16_t cc_hop_beta_q8;      /* 1.25 (320) */
    uint8_t  cc_hop_max;          /* 6 */
    bool     cc_activity;         /* early retransmission: 2/3 then 1/3 RTO
                                     when overheard activity says the path is busy */
    bool     cc_link;             /* ours: a cached segment whose frame the
                                     link layer reports lost is sent again at
                                     once (MACs with link ACKs) */
    /* DTC */
    bool     dtc_sack;            /* SACK signalling between caching nodes */
    /* DTC extensions (ours, off in the paper's configuration) */
    bool     dtc_endpoints;       /* the node's own data segments are cached
                                     and locked like forwarded ones: the
                                     sender's first hop protected too */
    /* DTC and CCTRL (ours) */
    bool     ack_repair;          /* an ACK whose frame the link layer reports
                                     lost is sent again at once, rebuilt from
                                     the flow's template (only the latest ACK
                                     of its flow, at most max_local_rexmit
                                     times per ACK number) */
    bool     ack_repair_wait;     /* with ack_repair: the repair waits twice
                                     the flow's upstream turnaround (from an
                                     ACK leaving this node to new data of the
                                     flow passing it; the flow's rtt before a
                                     sample) and is dropped when new data
                                     passes first: that ACK reached the
                                     sender, and the report followed a lost
                                     link ACK (docs/RELAY.md) */
};

/* The defaults of `mode`'s paper (docs/RELAY.md). */
void mip_relay_config_default(struct mip_relay_config *cfg, uint8_t mode);

#define MIP_RELAY_STATS_LIST(X)                                               \
    X(flows_new)           /* connection directions started being tracked */ \
    X(flows_evicted)       /* forgotten for room, idle time, FIN or RST */   \
    X(data_seen)           /* forwarded TCP segments with payload */         \
    X(acks_seen)           /* forwarded pure ACKs */                         \
    X(cached)              /* segments put in the cache */                   \
    X(buffered)            /* segments held back (backpressure) */           \
    X(not_cached)          /* no slot, too big, or not cacheable */          \
    X(implicit_acks)       /* cache freed by overhearing the next hop */     \
    X(tcp_acks_cleared)    /* cache freed by a TCP ACK from the destination */ \
    X(local_rexmits)       /* cached segments sent again by this node */     \
    X(rexmit_gave_up)      /* dropped after max_local_rexmit */              \
    X(dup_dropped)         /* data dropped as a copy (history) or as not \
                              eligible (already forwarded, held back) */   \
    X(gap_dropped)         /* data beyond what this node transmitted (TSS) */ \
    X(e2e_forwarded)       /* end-to-end retransmissions of data confirmed \
                              downstream but not acknowledged: forwarded */ \
    X(delayed_forwards)    /* buffered segments sent: forward_delay_ms after \
                              an implicit ACK, or at once on a TCP ACK */ \
    X(acks_regenerated)    /* ACKs sent for data already acknowledged */     \
    X(acks_recovered)      /* ACKs sent again (TSS aggressive recovery) */   \
    X(acks_dropped)        /* ACKs suppressed as already forwarded */        \
    X(overheard)           /* overheard frames that named a tracked flow */  \
    X(src_held)            /* own segments queued at the source (TSS \
                              backpressure at the sender end point) */     \
    X(locked)              /* DTC: cached segments locked (no link ACK) */    \
    X(replaced)            /* DTC: an unlocked cached segment overwritten \
                              by one with a higher sequence number */      \
    X(sack_added)          /* DTC: ACKs forwarded with a SACK block added \
                              for the segment this node resent */          \
    X(early_rexmits)       /* CCTRL activity: sent at 2/3 of the RTO on a \
                              quiet channel */                             \
    X(activity_frames)     /* CCTRL activity: overheard frames counted */   \
    X(link_rexmits)        /* CCTRL link: sent again at once on a lost \
                              frame (also in local_rexmits) */             \
    X(acks_repaired)       /* ack_repair: ACKs sent again after the link \
                              layer reported their frame lost */            \
    X(repairs_cancelled)   /* ack_repair_wait: repairs dropped, new data \
                              having passed first */                        \
    X(send_failed)         /* relay transmissions refused by IP (no route, \
                              no buffer, too big) */                         \
    X(ignored)             /* datagrams passed untouched: not understood \
                              (not TCP, fragment, bad header or checksum) \
                              or nothing to do (RST, untracked ACK) */

enum mip_relay_stat {
#define MIP_RELAY_STAT_ENUM(n) MIP_RELAY_STAT_##n,
    MIP_RELAY_STATS_LIST(MIP_RELAY_STAT_ENUM)
#undef MIP_RELAY_STAT_ENUM
    MIP_RELAY_STAT_COUNT
};

/* Room for the IPv6 extension headers a regenerated ACK keeps from the
 * ACK it copies (RPL: a Hop-by-Hop RPL Option, 8 bytes, going up; a Source
 * Routing Header going down, 8 bytes + the route's addresses as elided):
 * an ACK on a source route whose headers do not fit gets no template, and
 * the relay regenerates none for it. */
#ifndef MIP_RELAY_TMPL_EXT_MAX
#define MIP_RELAY_TMPL_EXT_MAX 32u
#endif
/* Room for the template of a regenerated ACK: an IPv6 fixed header, its
 * extension headers, a TCP header and NOP NOP TIMESTAMP (the only option
 * kept). */
#define MIP_RELAY_TMPL_MAX (40u + MIP_RELAY_TMPL_EXT_MAX + 20u + 12u)

/* Bits of mip_relay_flow.flags (relay.c). */
#define MIP_RELAY_F_SEQ      0x0001u  /* transmitted / confirmed are valid */
#define MIP_RELAY_F_ACKED    0x0002u  /* acked is valid (an ACK from dst seen) */
#define MIP_RELAY_F_ACKFWD   0x0004u  /* ack_forwarded is valid (overheard) */
#define MIP_RELAY_F_RTT_ON   0x0008u  /* an RTT measurement is running */
#define MIP_RELAY_F_RTT_OK   0x0010u  /* rtt_q8 holds a sample (else rtt_init) */
#define MIP_RELAY_F_ACKFWD_OK 0x0020u /* ackfwd_q8 holds a sample */
#define MIP_RELAY_F_ACKTIMER 0x0040u  /* the ACK recovery timer runs */
#define MIP_RELAY_F_FIN      0x0080u  /* a FIN was seen in this direction */
#define MIP_RELAY_F_CLOSING  0x0100u  /* FIN seen both ways: evicted (at poll)
                                         once nothing of it is cached */
#define MIP_RELAY_F_ACKSENT  0x0200u  /* ack_sent_no / ack_sent_at are valid */
#define MIP_RELAY_F_RTT_HS   0x0400u  /* the running measurement is the handshake's */
#define MIP_RELAY_F_RTT_SYN  0x0800u  /* rtt_q8 is the handshake's sample only: the
                                         first data sample replaces it */
#define MIP_RELAY_F_SACKOK   0x1000u  /* SACK-permitted seen on this direction's SYN */
#define MIP_RELAY_F_HOPS     0x2000u  /* hops holds a hop distance to dst */
#define MIP_RELAY_F_TS       0x4000u  /* ts_latest is valid */

/* One direction of one TCP connection, data flowing src -> dst. Sequence
 * numbers are "next byte" values (exclusive ends), compared modulo 2^32. */
struct mip_relay_flow {
    struct mip_addr src, dst;
    uint16_t sport, dport;
    uint8_t  used;
    uint8_t  ack_attempts;        /* TSS: ACK recoveries since the last ACK sent */
    uint16_t flags;               /* MIP_RELAY_F_* */
    uint32_t transmitted;         /* next sequence number after the highest
                                     byte forwarded */
    uint32_t confirmed;           /* next seq after bytes known received by the
                                     next hop (implicit or TCP ACK) */
    uint32_t acked;               /* highest ACK number seen from dst */
    uint32_t ack_forwarded;       /* highest ACK number seen forwarded upstream */
    uint32_t ack_sent_no;         /* the last ACK number this node sent upstream */
    uint32_t ack_sent_at;         /* ms, when it went */
    uint32_t ack_deadline;        /* TSS: ACK recovery timer (F_ACKTIMER) */
    uint32_t rtt_seq;             /* the segment being timed */
    uint32_t rtt_start;           /* ms */
    uint32_t rtt_q8;              /* EWMA, ms * 256 */
    uint32_t ackfwd_q8;           /* TSS: EWMA of the ACK forwarding time, ms * 256 */
    uint32_t last_used;           /* ms, for idle eviction and LRU */
    uint32_t ts_latest;           /* the newest TSval forwarded with data in
                                     this direction (F_TS): a local
                                     retransmission carries it, or the
                                     receiver's PAWS check (RFC 7323) would
                                     drop a copy older than an end-to-end
                                     retransmission it has seen since */
    /* dst's last ACK (the one carrying `acked`) as a pure ACK: IP header
     * (IPv4 20 bytes, no options / IPv6 40 and the ACK's own extension
     * headers as they left this node: an RPL Option, a source route), TCP
     * header, and NOP NOP TIMESTAMP when dst sent timestamps. Its TTL /
     * hop limit is the one the ACK left this node with. */
    uint8_t  tmpl[MIP_RELAY_TMPL_MAX];
    uint8_t  tmpl_len;            /* 0: none */
    uint8_t  rto_shift;           /* local RTO backoff: doubled per local
                                     retransmission, reset by an RTT sample */
    uint8_t  ack_shift;           /* ACK timeout backoff: doubled per ACK
                                     recovery, reset by a clean sample */
    uint8_t  hops;                /* CCTRL hop: hop distance to dst, from the
                                     TTL of dst's datagrams (F_HOPS) */
    uint8_t  dupacks;             /* DTC: ACKs in a row with ack == cached seq */
    uint8_t  ack_repairs;         /* ack_repair: resends of ack_repair_no */
    uint8_t  repair_flags;        /* ack_repair_wait: MIP_RELAY_R_* */
    uint32_t ack_repair_no;       /* the ACK number last repaired */
    /* ack_repair_wait (data flows): the repair due at repair_at unless data
     * ending beyond repair_mark passes first; the upstream turnaround being
     * timed since up_at (data ending beyond up_mark ends it), and its EWMA */
    uint32_t repair_at;           /* ms */
    uint32_t repair_mark;
    uint32_t up_at;               /* ms */
    uint32_t up_mark;
    uint32_t up_q8;               /* ms * 256 */
};

/* mip_relay_flow.repair_flags */
#define MIP_RELAY_R_DUE   0x01u   /* a repair waits (repair_at, repair_mark) */
#define MIP_RELAY_R_UP_ON 0x02u   /* the upstream turnaround is being timed */
#define MIP_RELAY_R_UP_OK 0x04u   /* up_q8 holds a sample */

/* Slot kinds (mip_relay_slot.used). */
#define MIP_RELAY_SLOT_FREE   0u
#define MIP_RELAY_SLOT_CACHE  1u  /* forwarded (or about to be), not confirmed */
#define MIP_RELAY_SLOT_BUFFER 2u  /* held back until the cache is confirmed */
#define MIP_RELAY_SLOT_QUEUE  3u  /* TSS at the source: this node's own
                                     segment, waiting its turn (a FIFO per
                                     flow, released in sequence order) */

struct mip_relay_slot {
    uint8_t  used;                /* MIP_RELAY_SLOT_* */
    uint8_t  flow;                /* index in flows[] */
    uint8_t  rexmits;             /* local retransmissions so far */
    uint8_t  unsent;              /* CACHE: forward_delayed, not sent yet */
    uint8_t  timer_on;            /* deadline is armed */
    uint8_t  locked;              /* DTC: no link ACK for it */
    uint32_t stored_at;           /* ms, when it was cached (or last sent) */
    uint16_t seg_len;             /* TCP payload bytes + 1 for a FIN */
    uint32_t seq;                 /* first sequence number */
    uint32_t deadline;            /* ms */
    uint16_t dgram_len;
    uint8_t  dgram[MIP_RELAY_DGRAM_MAX];   /* the datagram as forwarded */
};

struct mip_relay_hist {
    struct mip_addr src;          /* family NONE: entry unused */
    uint32_t id;                  /* IPv4 identification / IPv6 flow label */
    uint32_t seq;                 /* TCP sequence number of the segment */
};

struct mip_relay {
    struct mip_stack *stack;
    struct mip_relay_config cfg;
    struct mip_relay_flow flows[MIP_RELAY_FLOWS];
    struct mip_relay_slot slots[MIP_RELAY_SLOTS];
    struct mip_relay_hist hist[MIP_RELAY_HISTORY];
    uint8_t  hist_next;
    uint8_t  activity_next;       /* CCTRL: next entry of activity[] */
    uint8_t  activity_count;      /* CCTRL: entries used (<= MIP_RELAY_ACTIVITY) */
    uint32_t activity[MIP_RELAY_ACTIVITY];  /* ms of the latest overheard frames */
    uint32_t now;                 /* ms of the last call */
    uint32_t stats[MIP_RELAY_STAT_COUNT];
};

/* Starts a relay on `stack` and installs its forward hook and its local
 * hook (mip_ip_set_local_hook; replacing any; MIP_RELAY_OFF removes both).
 * Through the local hook TSS treats this node's own TCP segments like
 * forwarded ones (backpressure at the sender, [T] III.A.4) and sees the
 * ACKs that come back for them. cfg NULL: the TSS defaults. INVALID for an
 * unknown mode, a multiplier or alpha of 0, rtt_init_ms or
 * idle_timeout_s of 0; UNSUPPORTED for a mode this build left out
 * (MIP_CONF_RELAY_MODES).
 * On an error *r is left unused and the hook is not touched. */
mip_status mip_relay_init(struct mip_relay *r, struct mip_stack *stack,
                          const struct mip_relay_config *cfg, uint32_t now_ms);

/* A frame the MAC heard addressed to another node (MPDU without FCS) on
 * radio netif `netif`. TSS reads it as an implicit ACK when its MAC source
 * is this node's next hop towards the datagram's destination: data
 * forwarded by the successor, or an ACK forwarded on by the upstream
 * neighbour. CCTRL with activity counts every such frame, whatever it
 * carries (the MAC proxy of [B] 4.4.1). Anything else is ignored; any
 * bytes are safe. */
void mip_relay_overheard(struct mip_relay *r, uint8_t netif, const uint8_t *frame,
                         size_t len, uint32_t now_ms);

/* The outcome of a frame this node sent (MPDU without FCS): ok = link ACK
 * received (or no ACK was asked for), after the MAC's own retries. DTC
 * locks its cached segment when the frame carried it and !ok; CCTRL with
 * cc_link resends it at once; with ack_repair (DTC, CCTRL) a lost ACK is
 * sent again; TSS and CCTRL otherwise ignore it (they take
 * no feedback from the link layer). */
void mip_relay_link_status(struct mip_relay *r, uint8_t netif, const uint8_t *frame,
                           size_t len, bool ok, uint32_t now_ms);

/* Runs due timers (local retransmissions, delayed forwards, ACK recovery,
 * idle flows); returns ms until the next one (MIP_POLL_IDLE: none). The
 * relay registers no stack poller: its owner calls this. */
uint32_t mip_relay_poll(struct mip_relay *r, uint32_t now_ms);

/* How many segments of the flow src:sport -> dst:dport, sent by this node's
 * own TCP, the relay holds back (queued, or waiting for their delayed first
 * transmission): the hook of struct mip_tcp (backlog) wants this number
 * for TSS's backpressure at the sender. 0 for an unknown flow. */
uint8_t mip_relay_backlog(const struct mip_relay *r, const struct mip_addr *src,
                          const struct mip_addr *dst, uint16_t sport, uint16_t dport);

uint32_t mip_relay_stat(const struct mip_relay *r, enum mip_relay_stat which);
/* "cached", ... (NULL for an out-of-range index). */
const char *mip_relay_stat_name(unsigned which);

#endif /* MIP_CONF_FORWARD */
#endif
