/* The sender's SACK scoreboard (RFC 2018, RFC 6675).
 *
 * Blocks are kept sorted by sequence number, disjoint and not adjacent
 * (touching blocks are merged), all within [snd_una, snd_max], stored as
 * 16-bit offsets from the snd_una of the last update (b->base). Internally
 * each operation works on offsets from snd_una, which turns the modulo-2^32
 * comparisons into plain unsigned ones. */
#include "moteip/tcp_parts.h"

#define NB MIP_TCP_SACKB_MAX

/* Blocks as offsets from snd_una, with room for one more than the
 * scoreboard holds while a new block is merged in. */
struct sack_work {
    uint32_t s[NB + 1u];
    uint32_t e[NB + 1u];
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
 * one is dropped. */
static void work_insert(struct sack_work *w, uint32_t s, uint32_t e)
{
    uint32_t ns[NB + 1u], ne[NB + 1u];
    unsigned i, n = 0;
    bool placed = false;

    for (i = 0; i < w->n; i++) {
        if (w->e[i] < s) {                  /* entirely below, not touching */
            ns[n] = w->s[i]; ne[n] = w->e[i]; n++;
        } else if (w->s[i] > e) {           /* entirely above, not touching */
            if (!placed) {
                ns[n] = s; ne[n] = e; n++;
                placed = true;
            }
            ns[n] = w->s[i]; ne[n] = w->e[i]; n++;
        } else {                            /* overlaps or touches: absorb */
            if (w->s[i] < s)
                s = w->s[i];
            if (w->e[i] > e)
                e = w->e[i];
        }
    }
    if (!placed) {
        ns[n] = s; ne[n] = e; n++;
    }
    /* n <= w->n + 1 <= NB + 1. Keep the highest NB. */
    i = n > NB ? n - NB : 0u;
    w->n = 0;
    for (; i < n; i++) {
        w->s[w->n] = ns[i];
        w->e[w->n] = ne[i];
        w->n++;
    }
}

void tcp_sackb_update(struct mip_tcp_sackb *b, uint32_t snd_una, uint32_t snd_max,
                      const uint32_t *start, const uint32_t *end, unsigned n)
{
    struct sack_work w;
    uint32_t win = snd_max - snd_una, u = snd_una - b->base;
    unsigned i, count = tcp_sackb_count(b);

    /* Offsets must fit 16 bits (a ring holds at most 65535 bytes). */
    if (win > 0xFFFFu)
        win = 0xFFFFu;
    /* Rebase the blocks held on the new snd_una: drop what it passed, trim
     * what it cut into (the list stays sorted). A block that no longer
     * lies in the window (snd_una moved backwards, or garbage) is dropped. */
    w.n = 0;
    for (i = 0; i < count; i++) {
        /* block i relative to the new snd_una */
        uint32_t s = b->start_off[i] - u, e = b->end_off[i] - u;
        if ((int32_t)e <= 0)
            continue;
        if ((int32_t)s < 0)
            s = 0;
        if (e > win || s >= e)
            continue;
        w.s[w.n] = s;
        w.e[w.n] = e;
        w.n++;
    }
    if (MIP_SEQ_LT(b->rexmit_next, snd_una) || MIP_SEQ_GT(b->rexmit_next, snd_max))
        b->rexmit_next = snd_una;

    /* Merge the new blocks that lie within (snd_una, snd_max]. */
    for (i = 0; i < n; i++) {
        uint32_t s = start[i] - snd_una, e = end[i] - snd_una;
        if (s == 0 || s >= e || e > win)
            continue;   /* at/below snd_una (D-SACK, stale), empty, reversed
                           or beyond what was sent */
        work_insert(&w, s, e);
    }

    b->base = snd_una;
    for (i = 0; i < NB; i++) {
        b->start_off[i] = (uint16_t)(i < w.n ? w.s[i] : 0u);
        b->end_off[i] = (uint16_t)(i < w.n ? w.e[i] : 0u);
    }
}

bool tcp_sackb_covered(const struct mip_tcp_sackb *b, uint32_t seq, uint32_t len)
{
    uint32_t rel = seq - b->base;
    unsigned i;
    if (len == 0)
        return false;
    for (i = 0; i < NB && b->end_off[i] != 0; i++) {
        uint32_t blen = (uint32_t)b->end_off[i] - b->start_off[i];
        uint32_t d = rel - b->start_off[i];
        if (d < blen && len <= blen - d)
            return true;
    }
    return false;
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
