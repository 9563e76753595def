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
#include "moteip/config.h"
#include "moteip/addr.h"
#include "moteip/timer.h"

#define MIP_SEQ_LT(a, b)  ((int32_t)((uint32_t)(a) - (uint32_t)(b)) < 0)
#define MIP_SEQ_LEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) <= 0)
#define MIP_SEQ_GT(a, b)  ((int32_t)((uint32_t)(a) - (uint32_t)(b)) > 0)
#define MIP_SEQ_GEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) >= 0)

/* --- RTT / RTO (RFC 6298) ------------------------------------------------ */

#define MIP_TCP_RTO_INITIAL_MS 1000u    /* RFC 6298 2.1 */
/* MIP_TCP_RTO_MIN_MS: config.h (above the delayed-ACK time, and why) */
#define MIP_TCP_RTO_MAX_MS     60000u   /* RFC 6298 2.5 */
#define MIP_TCP_RTO_FALLBACK_MS 3000u   /* RFC 6298 5.7: after a SYN timeout */

struct mip_tcp_rtt {
    uint32_t srtt_x8;    /* smoothed RTT, ms * 8; 0 before the first sample */
    uint16_t rttvar_x4;  /* RTT variation, ms * 4, saturating at 65535 (above
                            that the RTO is MIP_TCP_RTO_MAX_MS anyway);
                            the RTO in ms before the first sample */
    uint8_t  backoff;    /* exponential backoff shift after timeouts; it
                            saturates once rto << backoff reaches MAX, so it
                            is not a retransmission count */
};
/* The RTO before backoff is not stored: it is a function of srtt_x8 and
 * rttvar_x4. Before the first sample srtt_x8 is 0 and rttvar_x4 holds the
 * RTO itself: MIP_TCP_RTO_INITIAL_MS (tcp_rtt_init) or
 * MIP_TCP_RTO_FALLBACK_MS (tcp_rtt_fallback). */

/* SRTT unset, RTO = MIP_TCP_RTO_INITIAL_MS, no backoff. */
void tcp_rtt_init(struct mip_tcp_rtt *r);
/* Feeds one RTT measurement (RFC 6298 2.2/2.3) and clears the backoff.
 * Fixed point, G = 1 ms, K = 4:
 *   first:  srtt_x8 = 8R, rttvar_x4 = 2R          (SRTT = R, RTTVAR = R/2)
 *   later:  rttvar_x4 += (|srtt_x8 - 8R| >> 3) - (rttvar_x4 >> 2)
 *           srtt_x8   += R - (srtt_x8 >> 3)
 *   rto = clamp((srtt_x8 >> 3) + max(1, rttvar_x4), MIN, MAX)
 * A sample of 0 counts as 1 ms (below the granularity); samples above 2^24 ms
 * are clamped there (no overflow; the RTO is MAX anyway). rttvar_x4
 * saturates at 65535 (RTTVAR 16.4 s, beyond the RTO maximum). */
void tcp_rtt_sample(struct mip_tcp_rtt *r, uint32_t rtt_ms);
/* The RTO to arm now: min(rto << backoff, MAX), never below MIN, with rto
 * as above (rttvar_x4, the initial or fallback RTO, while srtt_x8 is 0). */
uint32_t tcp_rtt_rto(const struct mip_tcp_rtt *r);
/* A retransmission timer expired: double the RTO (RFC 6298 5.5), up to MAX. */
void tcp_rtt_backoff(struct mip_tcp_rtt *r);
/* RFC 6298 5.7, for a handshake whose SYN (or SYN-ACK) timer expired, so
 * that there is no sample yet (Karn; call it only then): the RTO is
 * MIP_TCP_RTO_FALLBACK_MS (3 s), without backoff, until the first sample
 * (kept as rttvar_x4 = 3000 with srtt_x8 0; the first sample replaces
 * both, as after tcp_rtt_init). */
void tcp_rtt_fallback(struct mip_tcp_rtt *r);

/* --- congestion control (RFC 5681, RFC 6582) -------------------------------- */

struct mip_tcp_cc {
    uint32_t cwnd;          /* bytes */
    uint32_t ssthresh;      /* bytes */
    uint32_t recover;       /* RFC 6582 "recover": snd_max at the last timeout
                               or when recovery began */
    uint32_t acked;         /* bytes acked towards the next CA increase */
    uint16_t mss;           /* sender MSS, bytes (the connection's send MSS) */
    uint8_t  dupacks : 6;   /* duplicate ACKs in a row, saturating at 63 */
    uint8_t  timed_out : 1; /* a timeout has set recover (0: holds nothing back) */
    uint8_t  in_recovery : 1;
    uint8_t  cap_segments;  /* 0: no cap; else cwnd <= cap * mss (TSS: 3) */
};

/* Initial window per RFC 5681 3.1: MSS > 2190: 2 segments, > 1095: 3, else
 * 4 (then the cap); ssthresh 0xFFFFFFFF ("arbitrarily high"); recover 0,
 * not set by a timeout (timed_out 0).
 * An mss of 0 is taken as 1. All arithmetic saturates at UINT32_MAX.
 * Outside recovery cwnd itself never exceeds a non-zero cap; in recovery it
 * may inflate past it, and tcp_cc_window() applies the cap. */
void tcp_cc_init(struct mip_tcp_cc *cc, uint16_t mss, uint8_t cap_segments);
/* A new ACK advancing snd_una by `acked` bytes outside recovery; clears the
 * duplicate count. cwnd < ssthresh: slow start, cwnd += min(acked, mss)
 * (RFC 5681 eqn 2); else congestion avoidance by byte counting (RFC 3465,
 * L = 1): acked bytes accumulate in `acked`, and each time they reach cwnd,
 * cwnd bytes are taken off and cwnd += mss. */
void tcp_cc_on_ack(struct mip_tcp_cc *cc, uint32_t acked);
/* A duplicate ACK; `flight` = snd_max - snd_una, `snd_max` for "recover".
 * Returns true on the `thresh`-th one outside recovery (3, RFC 5681; fewer
 * with RFC 5827 early retransmit, tcp/tlp.c): ssthresh =
 * max(flight / 2, 2 * mss), cwnd = ssthresh + 3 * mss, recover = snd_max,
 * in_recovery = 1, and the caller retransmits the first unacknowledged
 * segment (fast retransmit, RFC 5681 3.2 steps 2-3). Later duplicates
 * inflate cwnd by one MSS (RFC 5681 3.2 step 4) and return false.
 * Not, once a timeout has set recover (timed_out), when snd_una lies below
 * it, snd_una < recover <= snd_max: duplicates of the data sent before the
 * timeout start no fast retransmit (RFC 6582 3.2 step 2, RFC 6675 5.1); an
 * ACK at recover (or at the end of a later recovery) may. */
bool tcp_cc_on_dupack(struct mip_tcp_cc *cc, uint32_t flight, uint32_t snd_max, uint8_t thresh);
/* In recovery, an ACK advancing snd_una to `ack` by `acked` bytes, with
 * `flight` = snd_max - snd_una after it (RFC 6582 3.2):
 *  - ack before recover (partial ACK): cwnd -= acked, then += mss if
 *    acked >= mss, never below mss; stays in recovery and returns true (the
 *    caller retransmits the next hole);
 *  - ack at or beyond recover (full ACK: all data up to and including the
 *    highest sequence number sent when recovery began is acknowledged):
 *    cwnd = min(ssthresh, max(flight, mss) + mss) (option 1), leaves
 *    recovery and returns false. */
bool tcp_cc_on_recovery_ack(struct mip_tcp_cc *cc, uint32_t ack, uint32_t acked,
                            uint32_t flight);
/* A tail loss probe repaired a loss (RFC 8985 7.4.2): the response of a
 * fast recovery that has ended, ssthresh = max(flight / 2, 2 * mss) and
 * cwnd = ssthresh (within the cap); recover and recovery untouched. */
void tcp_cc_on_tail_loss(struct mip_tcp_cc *cc, uint32_t flight);
/* The retransmission timer expired: ssthresh = max(flight / 2, 2 * mss)
 * (RFC 5681 eqn 4), cwnd = mss (the loss window), recover = snd_max (the
 * highest sequence number sent, RFC 6582 3.2 step 1) and timed_out = 1,
 * recovery left, duplicate count cleared. */
void tcp_cc_on_timeout(struct mip_tcp_cc *cc, uint32_t flight, uint32_t snd_max);
/* The congestion window in force: cwnd, limited to cap_segments * mss when
 * cap_segments != 0. */
uint32_t tcp_cc_window(const struct mip_tcp_cc *cc);
/* The window new data may fill with limited transmit (RFC 3042): after the
 * first and the second duplicate ACK outside recovery, tcp_cc_window() plus
 * one and two MSS, so that each sends one new segment while too few are
 * out for three duplicates; cwnd itself is not changed. Never beyond a
 * non-zero cap. Otherwise tcp_cc_window(). */
uint32_t tcp_cc_window_limited(const struct mip_tcp_cc *cc);

/* --- SACK scoreboard (sender side) ------------------------------------------ */

/* The functions below (not the struct and its inline accessors) are
 * compiled only where MIP_TCP_SACK (tcp.h) is on: a build without SACK
 * has no definition of them, so a caller there fails to link. */

#define MIP_TCP_SACKB_MAX 4u

/* Blocks are kept as 16-bit offsets from `base`, the snd_una of the last
 * update: everything SACKable lies within the send ring (at most 65535
 * bytes) after snd_una. Block i is [base + start_off[i], base + end_off[i]);
 * the blocks in use come first and have end_off != 0, the rest are zero.
 * Use the accessors below rather than the fields. */
struct mip_tcp_sackb {
    uint32_t base;
    uint32_t rexmit_next;                /* RFC 6675 HighRxt + 1: next hole byte;
                                            the caller advances it past each hole
                                            byte it retransmits */
    uint16_t start_off[MIP_TCP_SACKB_MAX];  /* sorted, disjoint and not adjacent */
    uint16_t end_off[MIP_TCP_SACKB_MAX];    /* (merged), within [snd_una, snd_max] */
};

/* Blocks held, and block i (< count) as sequence numbers [start, end). */
static inline unsigned tcp_sackb_count(const struct mip_tcp_sackb *b)
{
    unsigned n = 0;
    while (n < MIP_TCP_SACKB_MAX && b->end_off[n] != 0)
        n++;
    return n;
}
static inline uint32_t tcp_sackb_start(const struct mip_tcp_sackb *b, unsigned i)
{
    return b->base + b->start_off[i];
}
static inline uint32_t tcp_sackb_end(const struct mip_tcp_sackb *b, unsigned i)
{
    return b->base + b->end_off[i];
}

/* Empties the scoreboard; rexmit_next = snd_una. */
void tcp_sackb_reset(struct mip_tcp_sackb *b, uint32_t snd_una);
/* First drops the blocks snd_una has passed and trims one it cuts into, and
 * pulls rexmit_next up to snd_una if it fell behind (or lies beyond
 * snd_max). Then merges the n received SACK blocks blk[] ([left, right),
 * as in the option), in order, that satisfy snd_una < left < right <=
 * snd_max (modulo 2^32); others are ignored (RFC 2018 does not bind the
 * sender to them): empty or reversed ones, D-SACKs and stale ones at or below snd_una, ones beyond what was
 * sent. Overlapping and adjacent blocks are merged. When a merge leaves more
 * than MIP_TCP_SACKB_MAX blocks, the lowest goes: the highest blocks are
 * kept (they say most about losses below). n = 0 only rebases. A block
 * ending 65536 or more bytes after snd_una (only a full 65535-byte ring
 * with its FIN gets there) is ignored: SACK information is advisory.
 * Returns true when the blocks SACKed bytes that were not SACKed before
 * (RFC 6675 2: what makes an ACK a duplicate ACK for a SACK sender); a
 * merge that drops the lowest block can hide that (false). */
struct mip_tcp_sack_block;    /* moteip/wire/tcp.h: [left, right) */
bool tcp_sackb_update(struct mip_tcp_sackb *b, uint32_t snd_una, uint32_t snd_max,
                      const struct mip_tcp_sack_block *blk, unsigned n);
/* RFC 6675 NextSeg() rule 1 in simplified form (every hole below the highest
 * SACK counts as lost): the first byte at or after max(snd_una, rexmit_next)
 * that is not SACKed and lies below the highest SACKed byte; *len gets the
 * hole's length up to `mss` (mss 0: the whole hole). False when there is no
 * such hole (or no SACK information at all). */
bool tcp_sackb_next_hole(const struct mip_tcp_sackb *b, uint32_t snd_una, uint16_t mss,
                         uint32_t *seq, uint32_t *len);
/* RFC 6675 "pipe", simplified (every hole below the highest SACK is deemed
 * lost): with H = the end of the highest block and R = min(max(rexmit_next,
 * snd_una), H),
 *   pipe = (snd_max - H) + (bytes of the holes below R)
 * i.e. (snd_max - snd_una) - SACKed bytes - hole bytes in [R, H) (lost, not
 * yet retransmitted). A retransmitted hole byte counts once. With no blocks:
 * snd_max - snd_una. */
uint32_t tcp_sackb_pipe(const struct mip_tcp_sackb *b, uint32_t snd_una, uint32_t snd_max);

/* --- send ring ------------------------------------------------------------ */

struct mip_tcp_txbuf {
    uint8_t *buf;       /* application memory */
    uint16_t size;
    uint16_t head;      /* offset of the byte at snd_una */
    uint16_t len;       /* bytes queued (sent-unacked + unsent) */
};

/* mem NULL gives a ring of size 0 (nothing fits). */
void tcp_txbuf_init(struct mip_tcp_txbuf *t, uint8_t *mem, uint16_t size);
/* Appends up to n bytes; returns how many fit. */
size_t tcp_txbuf_write(struct mip_tcp_txbuf *t, const uint8_t *data, size_t n);
/* Copies n bytes starting `offset` bytes after snd_una (offset + n <= len;
 * bytes past len are not copied and out is left alone there). */
void tcp_txbuf_copy(const struct mip_tcp_txbuf *t, uint16_t offset, uint8_t *out, uint16_t n);
/* Drops n acknowledged bytes from the front (n <= len; more empties the
 * ring). An emptied ring restarts at head 0. */
void tcp_txbuf_consume(struct mip_tcp_txbuf *t, uint16_t n);
static inline uint16_t tcp_txbuf_free(const struct mip_tcp_txbuf *t) { return (uint16_t)(t->size - t->len); }

/* --- receive ring with in-place reassembly -------------------------------- */

/* Receive rings larger than 65,535 bytes: the only way a window above 64 KB
 * (RFC 7323 window scaling) can be offered, since the window never exceeds
 * the ring; useful with MIP_TCP_WSCALE (tcp.h). On by default in the full
 * profile where size_t has 64 bits (moteip-host, the simulator), off on
 * microcontrollers, where no ring comes near 64 KB: it widens the ring's
 * sizes and offsets to 32 bits, +12 B per connection on Cortex-M0+ (208 B,
 * above the 200 B target) and +10 B on AVR (docs/TCP.md). */
#ifndef MIP_TCP_LARGE_RX
#if defined(MOTEIP_PROFILE_TINY) || SIZE_MAX <= 0xFFFFFFFFu
#define MIP_TCP_LARGE_RX 0
#else
#define MIP_TCP_LARGE_RX 1
#endif
#endif
/* A receive ring's size, or an offset or count of bytes in it. */
#if MIP_TCP_LARGE_RX
typedef uint32_t mip_tcp_rxsize_t;
#define MIP_TCP_RX_SIZE_MAX 0x3FFFFFFFu    /* a window of 2^30 - 1: RFC 7323 2.3 */
#else
typedef uint16_t mip_tcp_rxsize_t;
#define MIP_TCP_RX_SIZE_MAX 0xFFFFu
#endif

/* The window: byte `offset` after rcv_nxt lives at ring position
 * (head + len + offset) % size, for offset < size - len; out-of-order bytes
 * are stored there directly. The bitmap is indexed by absolute ring
 * position, not relative to head + len, so advancing or reading in-order
 * data never shifts it: bit p (bitmap[p / 8] & (1 << (p % 8))) is set when
 * ring position p holds an out-of-order byte. Set bits only ever lie in the
 * window; bits of in-order data and past `size` are always clear. */
struct mip_tcp_rxbuf {
    uint8_t *buf;       /* application memory, `size` bytes */
    uint8_t *bitmap;    /* application memory, (size + 7) / 8 bytes, or NULL:
                           one bit per ring position, see above */
    mip_tcp_rxsize_t size;   /* at most MIP_TCP_RX_SIZE_MAX */
    mip_tcp_rxsize_t head;   /* first unread in-order byte */
    mip_tcp_rxsize_t len;    /* in-order bytes ready for the application */
    mip_tcp_rxsize_t ooo_end; /* window offset just past the highest out-of-order
                                byte held; 0 when none (so has_ooo needs no scan) */
};

/* Clears the bitmap. mem NULL gives a ring of size 0. */
void tcp_rxbuf_init(struct mip_tcp_rxbuf *r, uint8_t *mem, uint8_t *bitmap,
                    mip_tcp_rxsize_t size);
/* Free space: the window to advertise (out-of-order bytes held lie inside
 * it and do not reduce it). */
static inline mip_tcp_rxsize_t tcp_rxbuf_space(const struct mip_tcp_rxbuf *r)
{
    return (mip_tcp_rxsize_t)(r->size - r->len);
}
/* Stores n bytes that start `offset` bytes after rcv_nxt (clipped to the
 * space; nothing when offset >= space). The caller trims bytes before
 * rcv_nxt. Bytes already held are rewritten (same data in a correct peer).
 * offset 0 extends the in-order data, then absorbs any out-of-order bytes
 * now contiguous. Returns how far rcv_nxt advances (0 for offset > 0). With
 * no bitmap (tiny profile) out-of-order bytes (offset > 0) are not kept.
 * data NULL, into an empty ring with nothing out of order only: the bytes
 * are counted as held but not copied (the caller reads them where they are
 * and stores the rest with tcp_rxbuf_settle). */
mip_tcp_rxsize_t tcp_rxbuf_write(struct mip_tcp_rxbuf *r, uint32_t offset, const uint8_t *data,
                                 size_t n);
/* tcp_rxbuf_write(r, 0, NULL, n) into an empty ring with nothing out of
 * order, the only case data NULL is for, inline: n bytes clipped to the
 * space counted as held. Every segment read in place comes here. */
static inline mip_tcp_rxsize_t tcp_rxbuf_hold(struct mip_tcp_rxbuf *r, size_t n)
{
    mip_tcp_rxsize_t cnt = tcp_rxbuf_space(r);
    if (n < cnt)
        cnt = (mip_tcp_rxsize_t)n;
    r->len = (mip_tcp_rxsize_t)(r->len + cnt);
    return cnt;
}
/* Stores the r->len bytes of a ring written with data NULL, now that
 * all but those were read: from `data`, their first. */
void tcp_rxbuf_settle(struct mip_tcp_rxbuf *r, const uint8_t *data);
/* Copies up to n in-order bytes out (out NULL: discards them) and frees
 * their space; returns how many. */
size_t tcp_rxbuf_read(struct mip_tcp_rxbuf *r, uint8_t *out, size_t n);
/* True when out-of-order bytes are held (always false without a bitmap). */
static inline bool tcp_rxbuf_has_ooo(const struct mip_tcp_rxbuf *r)
{
    return r->ooo_end != 0;
}
/* Up to `max` blocks [left, right) of out-of-order data into blk[] (as the
 * SACK option takes them), as sequence numbers given rcv_nxt: the block holding sequence number `recent` first when there
 * is one (RFC 2018 4: the most recently received first), then the others
 * from the lowest up. Returns the count. Compiled only where MIP_TCP_SACK
 * (tcp.h) is on, as the scoreboard above. */
unsigned tcp_rxbuf_sack_blocks(const struct mip_tcp_rxbuf *r, uint32_t rcv_nxt, uint32_t recent,
                               struct mip_tcp_sack_block *blk, unsigned max);

/* --- initial sequence numbers (RFC 6528) ---------------------------------- */

/* SipHash-2-4 of data under a 128-bit key. */
uint64_t mip_siphash24(const uint8_t key[16], const uint8_t *data, size_t len);
/* A connection's 4-tuple (also the key of the TCP module's lookups). */
struct tcp_tuple {
    const struct mip_addr *local, *remote;
    uint16_t lport, rport;
};
/* RFC 6528: ISN = M + F(local, remote, secret), modulo 2^32. M is a
 * 4-microsecond clock derived from `now`: now * 250. F is SipHash-2-4 under
 * `key` over family (1 byte) | local address (4 bytes for MIP_AF_INET, else
 * 16) | lport (big-endian) | remote address | rport (big-endian), folded to
 * 32 bits as low half XOR high half; the 4-tuple is k. */
uint32_t tcp_isn(const uint8_t key[16], const struct tcp_tuple *k, mip_time_t now);
/* F of tcp_isn alone (the SYN cookies' hash starts from it). */
uint32_t tcp_tuple_hash(const uint8_t key[16], const struct tcp_tuple *k);

#endif
