/*
 * The pure building blocks of TCP, each a small struct with functions and no
 * knowledge of segments or sockets, so each is unit-tested on its own:
 *
 *   mip_tcp_rtt   RTT estimation and RTO (RFC 6298, Karn's rule lives in the
 *                 caller: only unambiguous samples are fed in)
 *   mip_tcp_cc    congestion control: RFC 5681 slow start / congestion
 *                 avoidance, RFC 6582 NewReno fast recovery, a run-time cap
 *   mip_tcp_sackb the sender's SACK scoreboard (RFC 2018, RFC 6675)
 *   mip_tcp_txbuf the send ring: bytes the application wrote, from snd_una on
 *   mip_tcp_rxbuf the receive ring with in-place reassembly: out-of-order
 *                 bytes are stored where they belong and tracked by a bitmap
 *                 of one bit per byte (TCPlp 4.3.2)
 *   mip_tcp_isn   initial sequence numbers per RFC 6528 (SipHash-2-4 keyed
 *                 by a per-instance secret)
 *
 * Sequence-number arithmetic is modulo 2^32: use the MIP_SEQ_* macros.
 * Units: milliseconds for time, bytes for lengths and windows.
 */
#ifndef MOTEIP_TCP_PARTS_H
#define MOTEIP_TCP_PARTS_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/addr.h"
#include "moteip/timer.h"

#define MIP_SEQ_LT(a, b)  ((int32_t)((uint32_t)(a) - (uint32_t)(b)) < 0)
#define MIP_SEQ_LEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) <= 0)
#define MIP_SEQ_GT(a, b)  ((int32_t)((uint32_t)(a) - (uint32_t)(b)) > 0)
#define MIP_SEQ_GEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) >= 0)

/* --- RTT / RTO (RFC 6298) ------------------------------------------------ */

#define MIP_TCP_RTO_INITIAL_MS 1000u    /* RFC 6298 2.1 */
#define MIP_TCP_RTO_MIN_MS     200u     /* below RFC 6298's 1 s, as Linux does;
                                           delayed ACKs cap at 200 ms too */
#define MIP_TCP_RTO_MAX_MS     60000u   /* RFC 6298 2.5 */

struct mip_tcp_rtt {
    uint32_t srtt_x8;    /* smoothed RTT, ms * 8; 0 before the first sample */
    uint32_t rttvar_x4;  /* RTT variation, ms * 4 */
    uint32_t rto;        /* current RTO before backoff, ms */
    uint8_t  backoff;    /* exponential backoff shift after timeouts */
};

void tcp_rtt_init(struct mip_tcp_rtt *r);
/* Feeds one RTT measurement (RFC 6298 2.2/2.3) and clears the backoff. */
void tcp_rtt_sample(struct mip_tcp_rtt *r, uint32_t rtt_ms);
/* The RTO to arm now: rto << backoff, clamped to [MIN, MAX]. */
uint32_t tcp_rtt_rto(const struct mip_tcp_rtt *r);
/* A retransmission timer expired: double the RTO (RFC 6298 5.5). */
void tcp_rtt_backoff(struct mip_tcp_rtt *r);

/* --- congestion control (RFC 5681, RFC 6582) -------------------------------- */

struct mip_tcp_cc {
    uint32_t cwnd;          /* bytes */
    uint32_t ssthresh;      /* bytes */
    uint32_t recover;       /* RFC 6582 "recover": snd_max when recovery began */
    uint32_t acked;         /* bytes acked towards the next CA increase */
    uint16_t mss;           /* sender MSS, bytes */
    uint8_t  dupacks;
    uint8_t  in_recovery;
    uint8_t  cap_segments;  /* 0: no cap; else cwnd <= cap * mss (TSS: 3) */
};

/* Initial window per RFC 5681 3.1 (IW = 2..4 segments by MSS); ssthresh
 * "arbitrarily high". */
void tcp_cc_init(struct mip_tcp_cc *cc, uint16_t mss, uint8_t cap_segments);
/* A new ACK advancing snd_una by `acked` bytes outside recovery: slow
 * start or congestion avoidance (byte counting, RFC 5681 3.1 / RFC 3465 L=1). */
void tcp_cc_on_ack(struct mip_tcp_cc *cc, uint32_t acked);
/* A duplicate ACK; `flight` = snd_max - snd_una, `snd_max` for "recover".
 * Returns true on the third one outside recovery: the caller retransmits
 * the first unacknowledged segment (fast retransmit). Later duplicates
 * inflate cwnd by one MSS (RFC 6582 3.2 step 3). */
bool tcp_cc_on_dupack(struct mip_tcp_cc *cc, uint32_t flight, uint32_t snd_max);
/* In recovery, an ACK advancing snd_una to `ack`: returns true for a
 * partial ACK (the caller retransmits the next hole) and deflates cwnd
 * (RFC 6582 3.2 step 5); on a full ACK leaves recovery with
 * cwnd = min(ssthresh, flight + mss) (step 6, option 1) and returns false. */
bool tcp_cc_on_recovery_ack(struct mip_tcp_cc *cc, uint32_t ack, uint32_t acked,
                            uint32_t flight);
/* The retransmission timer expired (RFC 5681 3.1 eqn 4, loss window). */
void tcp_cc_on_timeout(struct mip_tcp_cc *cc, uint32_t flight);
/* The congestion window in force, after the cap. */
uint32_t tcp_cc_window(const struct mip_tcp_cc *cc);

/* --- SACK scoreboard (sender side) ------------------------------------------ */

#define MIP_TCP_SACKB_MAX 4u

struct mip_tcp_sackb {
    uint32_t start[MIP_TCP_SACKB_MAX];   /* sorted, disjoint, above snd_una */
    uint32_t end[MIP_TCP_SACKB_MAX];
    uint8_t  count;
    uint32_t rexmit_next;                /* RFC 6675 HighRxt + 1: next hole byte */
};

void tcp_sackb_reset(struct mip_tcp_sackb *b, uint32_t snd_una);
/* Merges received SACK blocks [start, end) that lie within (snd_una,
 * snd_max]; ignores invalid ones (RFC 2018 does not bind the sender to
 * them); drops what snd_una has passed. When full, the highest blocks are
 * kept (they say most about losses below). */
void tcp_sackb_update(struct mip_tcp_sackb *b, uint32_t snd_una, uint32_t snd_max,
                      const uint32_t *start, const uint32_t *end, unsigned n);
/* True when [seq, seq+len) is entirely SACKed. */
bool tcp_sackb_covered(const struct mip_tcp_sackb *b, uint32_t seq, uint32_t len);
/* RFC 6675 NextSeg() rule 1 in simplified form: the first byte at or after
 * max(snd_una, rexmit_next) that is not SACKed and lies below the highest
 * SACKed byte; *len gets the hole's length up to `mss`. False when no hole. */
bool tcp_sackb_next_hole(const struct mip_tcp_sackb *b, uint32_t snd_una, uint16_t mss,
                         uint32_t *seq, uint32_t *len);
/* RFC 6675 "pipe": bytes in flight not SACKed and not deemed lost, simplified
 * to (snd_max - snd_una) - sacked bytes - holes below the highest SACK that
 * were not retransmitted. */
uint32_t tcp_sackb_pipe(const struct mip_tcp_sackb *b, uint32_t snd_una, uint32_t snd_max);

/* --- send ring ------------------------------------------------------------ */

struct mip_tcp_txbuf {
    uint8_t *buf;       /* application memory */
    uint16_t size;
    uint16_t head;      /* offset of the byte at snd_una */
    uint16_t len;       /* bytes queued (sent-unacked + unsent) */
};

void tcp_txbuf_init(struct mip_tcp_txbuf *t, uint8_t *mem, uint16_t size);
/* Appends up to n bytes; returns how many fit. */
size_t tcp_txbuf_write(struct mip_tcp_txbuf *t, const uint8_t *data, size_t n);
/* Copies n bytes starting `offset` bytes after snd_una (offset + n <= len). */
void tcp_txbuf_copy(const struct mip_tcp_txbuf *t, uint16_t offset, uint8_t *out, uint16_t n);
/* Drops n acknowledged bytes from the front (n <= len). */
void tcp_txbuf_consume(struct mip_tcp_txbuf *t, uint16_t n);
static inline uint16_t tcp_txbuf_free(const struct mip_tcp_txbuf *t) { return (uint16_t)(t->size - t->len); }

/* --- receive ring with in-place reassembly -------------------------------- */

struct mip_tcp_rxbuf {
    uint8_t *buf;       /* application memory, `size` bytes */
    uint8_t *bitmap;    /* application memory, (size + 7) / 8 bytes: bit i set
                           when the byte i positions after the in-order data
                           (counted from head + len) holds out-of-order data */
    uint16_t size;
    uint16_t head;      /* first unread in-order byte */
    uint16_t len;       /* in-order bytes ready for the application */
};

void tcp_rxbuf_init(struct mip_tcp_rxbuf *r, uint8_t *mem, uint8_t *bitmap, uint16_t size);
/* Free space: the window to advertise. */
static inline uint16_t tcp_rxbuf_space(const struct mip_tcp_rxbuf *r) { return (uint16_t)(r->size - r->len); }
/* Stores n bytes that start `offset` bytes after rcv_nxt (clipped to the
 * space). offset 0 extends the in-order data, then absorbs any out-of-order
 * bytes now contiguous. Returns how far rcv_nxt advances. With no bitmap
 * (tiny profile) out-of-order bytes (offset > 0) are not kept. */
uint16_t tcp_rxbuf_write(struct mip_tcp_rxbuf *r, uint32_t offset, const uint8_t *data, size_t n);
/* Copies up to n in-order bytes out and frees their space. */
size_t tcp_rxbuf_read(struct mip_tcp_rxbuf *r, uint8_t *out, size_t n);
/* True when out-of-order bytes are held. */
bool tcp_rxbuf_has_ooo(const struct mip_tcp_rxbuf *r);
/* Up to `max` blocks [start, end) of out-of-order data, as sequence numbers
 * given rcv_nxt, the block holding `recent` first when it is one of them
 * (RFC 2018 4: the most recently received first). Returns the count. */
unsigned tcp_rxbuf_sack_blocks(const struct mip_tcp_rxbuf *r, uint32_t rcv_nxt, uint32_t recent,
                               uint32_t *start, uint32_t *end, unsigned max);

/* --- initial sequence numbers (RFC 6528) ---------------------------------- */

/* SipHash-2-4 of data under a 128-bit key. */
uint64_t mip_siphash24(const uint8_t key[16], const uint8_t *data, size_t len);
/* ISN = M + F(local, remote, secret): M a 4-microsecond clock derived from
 * `now` (ms * 250), F SipHash over the connection's addresses and ports. */
uint32_t tcp_isn(const uint8_t key[16], const struct mip_addr *local, uint16_t lport,
                 const struct mip_addr *remote, uint16_t rport, mip_time_t now);

#endif
