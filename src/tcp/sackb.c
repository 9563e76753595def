/* The sender's SACK scoreboard (RFC 2018, RFC 6675).
 *
 * Blocks are kept sorted by sequence number, disjoint and not adjacent
 * (touching blocks are merged), all within [snd_una, snd_max], stored as
 * 16-bit offsets from the snd_una of the last update (b->base). Internally
 * each operation works on offsets from snd_una, which turns the modulo-2^32
 * comparisons into plain unsigned ones.
 *
 * Compiled only where MIP_TCP_SACK is on: nothing else calls it, and a
 * build without SACK (the tiny profile) would carry its ~560 B of
 * Cortex-M0+ code per object for nothing. */
#include "moteip/tcp.h"

#if MIP_TCP_SACK
#include "moteip/wire/tcp.h"
#include <string.h>

#define NB MIP_TCP_SACKB_MAX

/* Blocks as offsets from snd_una, [start, end) pairs, with room for one
 * more than the scoreboard holds while a new block is merged in. */
struct sack_work {
    uint32_t b[NB + 1u][2];
    unsigned n;
};

void tcp_sackb_reset(struct mip_tcp_sackb *b, uint32_t snd_una)
{
    unsigned i;
    for (i = 0; i < NB; i++) {
        b->start_off[i] = 0;
        b->end_off[i] = 0;
    }
    b->base = snd_una;
    b->rexmit_next = snd_una;
}

/* Inserts [s, e) (offsets) into the sorted, disjoint list, merging
 * overlapping and adjacent blocks; if that leaves NB + 1 blocks, the lowest
 * one is dropped. Out of line: inlined into its two callers it is 34 B
 * larger on Cortex-M0+. */
MIP_NOINLINE static void work_insert(struct sack_work *w, uint32_t s, uint32_t e)
{
    unsigned i = 0, j;
    /* Sorted and disjoint: the blocks entirely below [s, e), not touching
     * it, come first; then those that overlap or touch it, absorbed into
     * it; then those entirely above. */
    while (i < w->n && w->b[i][1] < s)
        i++;
    for (j = i; j < w->n && w->b[j][0] <= e; j++) {
        if (w->b[j][0] < s)
            s = w->b[j][0];
        if (w->b[j][1] > e)
            e = w->b[j][1];
    }
    /* [i, j) become the one block at i: n <= NB + 1 afterwards. */
    memmove(w->b[i + 1u], w->b[j], (w->n - j) * sizeof(w->b[0]));
    w->n = w->n + 1u + i - j;
    w->b[i][0] = s;
    w->b[i][1] = e;
    if (w->n > NB) {
        /* Keep the highest NB. */
        w->n = NB;
        memmove(w->b[0], w->b[1], NB * sizeof(w->b[0]));
    }
}

/* Bytes the blocks of w cover. */
static uint32_t work_total(const struct sack_work *w)
{
    uint32_t t = 0;
    unsigned i;
    for (i = 0; i < w->n; i++)
        t += w->b[i][1] - w->b[i][0];
    return t;
}

bool tcp_sackb_update(struct mip_tcp_sackb *b, uint32_t snd_una, uint32_t snd_max,
                      const struct mip_tcp_sack_block *blk, unsigned n)
{
    struct sack_work w;
    uint32_t win = snd_max - snd_una, u = snd_una - b->base, held = 0;
    unsigned i, count = tcp_sackb_count(b);

    /* Offsets must fit 16 bits (a ring holds at most 65535 bytes). */
    if (win > 0xFFFFu)
        win = 0xFFFFu;
    if (MIP_SEQ_LT(b->rexmit_next, snd_una) || MIP_SEQ_GT(b->rexmit_next, snd_max))
        b->rexmit_next = snd_una;
    w.n = 0;
    for (i = 0; i < count + n; i++) {
        uint32_t s, e;
        if (i == count)
            held = work_total(&w);  /* what was SACKed before these blocks */
        if (i < count) {
            /* Rebase the blocks held on the new snd_una: drop what it
             * passed, trim what it cut into (inserted in order, they stay
             * as they were). */
            s = b->start_off[i] - u;
            e = b->end_off[i] - u;
            if ((int32_t)e <= 0)
                continue;
            if ((int32_t)s < 0)
                s = 0;
        } else {
            /* Merge the new blocks that lie within (snd_una, snd_max];
             * not one at/below snd_una (D-SACK, stale). */
            s = blk[i - count].left - snd_una;
            e = blk[i - count].right - snd_una;
            if (s == 0)
                continue;
        }
        /* Empty, reversed, or beyond what was sent (an old block: snd_una
         * moved backwards, or garbage). */
        if (s >= e || e > win)
            continue;
        work_insert(&w, s, e);
    }

    b->base = snd_una;
    for (i = 0; i < NB; i++) {
        b->start_off[i] = (uint16_t)(i < w.n ? w.b[i][0] : 0u);
        b->end_off[i] = (uint16_t)(i < w.n ? w.b[i][1] : 0u);
    }
    return n != 0 && work_total(&w) > held;
}

/* Below, positions are taken relative to b->base: for any x, x - start of
 * block i = (x - base) - start_off[i] modulo 2^32, so comparing x - base
 * with the offsets is the same as comparing x with the blocks. */

bool tcp_sackb_next_hole(const struct mip_tcp_sackb *b, uint32_t snd_una, uint16_t mss,
                         uint32_t *seq, uint32_t *len)
{
    uint32_t p = snd_una;
    unsigned i;

    if (MIP_SEQ_GT(b->rexmit_next, p))
        p = b->rexmit_next;
    p -= b->base;
    for (i = 0; i < NB && b->end_off[i] != 0; i++) {
        if (MIP_SEQ_LT(p, b->start_off[i])) {
            uint32_t hole = b->start_off[i] - p;
            *seq = p + b->base;
            *len = (mss != 0 && hole > mss) ? (uint32_t)mss : hole;
            return true;
        }
        if (MIP_SEQ_LT(p, b->end_off[i]))
            p = b->end_off[i];
    }
    return false;
}

uint32_t tcp_sackb_pipe(const struct mip_tcp_sackb *b, uint32_t snd_una, uint32_t snd_max)
{
    uint32_t flight = snd_max - snd_una, u = snd_una - b->base;
    uint32_t high, rx, pipe, lo;
    unsigned i, count = tcp_sackb_count(b);

    if (count == 0)
        return flight;
    high = b->end_off[count - 1u] - u;              /* highest SACKed byte + 1 */
    if (high > flight)
        return flight;                              /* stale scoreboard */
    rx = b->rexmit_next - snd_una;                  /* retransmitted below this */
    if (rx > high)
        rx = high;

    /* Not SACKed and not deemed lost: everything above the highest SACK. */
    pipe = flight - high;
    /* Holes below the highest SACK are deemed lost; those already
     * retransmitted (below rexmit_next) count once, for the retransmission. */
    lo = 0;
    for (i = 0; i < count; i++) {
        uint32_t s = b->start_off[i] - u;
        if (s > lo && lo < rx)
            pipe += (s < rx ? s : rx) - lo;         /* hole [lo, s) below rx */
        lo = b->end_off[i] - u;
    }
    return pipe;
}

#endif /* MIP_TCP_SACK */
