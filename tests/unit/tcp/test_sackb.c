/* The sender's SACK scoreboard: validation of received blocks, merging,
 * trimming as snd_una advances, capacity, sequence wrap, coverage, holes
 * (NextSeg) and pipe.
 *
 * The scoreboard is compiled only where MIP_TCP_SACK is on: without it
 * (the tiny profile) this test reports itself skipped (exit 77, ctest's
 * SKIP_RETURN_CODE) rather than passing with nothing checked. */
#include <stdint.h>
#include "testing.h"
#include "moteip/tcp.h"

#if MIP_TCP_SACK
#include "moteip/wire/tcp.h"

/* The blocks as start[] / end[] arrays (how these tests were written), in
 * the option's form tcp_sackb_update takes. */
static void sackb_update_se(struct mip_tcp_sackb *b, uint32_t una, uint32_t max,
                            const uint32_t *start, const uint32_t *end, unsigned n)
{
    struct mip_tcp_sack_block blk[8];
    unsigned i;
    for (i = 0; i < n && i < 8u; i++) {
        blk[i].left = start[i];
        blk[i].right = end[i];
    }
    tcp_sackb_update(b, una, max, n ? blk : NULL, n);
}

static void upd1(struct mip_tcp_sackb *b, uint32_t una, uint32_t max, uint32_t s, uint32_t e)
{
    sackb_update_se(b, una, max, &s, &e, 1);
}

/* True when [seq, seq+len) is entirely SACKed (within one block); an empty
 * range (len 0) never is. The stack itself never asks (it was library code
 * until 2026-11-25, compiled into every image). */
static bool sackb_covered(const struct mip_tcp_sackb *b, uint32_t seq, uint32_t len)
{
    uint32_t rel = seq - b->base;
    unsigned i;
    if (len == 0)
        return false;
    for (i = 0; i < MIP_TCP_SACKB_MAX && b->end_off[i] != 0; i++) {
        uint32_t blen = (uint32_t)b->end_off[i] - b->start_off[i];
        uint32_t d = rel - b->start_off[i];
        if (d < blen && len <= blen - d)
            return true;
    }
    return false;
}

/* Checks the scoreboard holds exactly the n blocks given as s0,e0,s1,e1... */
static int blocks_are(const struct mip_tcp_sackb *b, unsigned n, const uint32_t *se)
{
    unsigned i;
    if (tcp_sackb_count(b) != n)
        return 0;
    for (i = 0; i < n; i++)
        if (tcp_sackb_start(b, i) != se[2 * i] || tcp_sackb_end(b, i) != se[2 * i + 1])
            return 0;
    return 1;
}

#define BLOCKS(b, ...)                                                        \
    do {                                                                      \
        static const uint32_t want_[] = {__VA_ARGS__};                        \
        CHECK(blocks_are((b), sizeof(want_) / sizeof(want_[0]) / 2, want_));  \
    } while (0)

static void test_reset(void)
{
    struct mip_tcp_sackb b;
    tcp_sackb_reset(&b, 1234);
    CHECK_EQ(tcp_sackb_count(&b), 0);
    CHECK_EQ(b.rexmit_next, 1234);
    CHECK(!sackb_covered(&b, 1234, 1));
}

static void test_valid_blocks_stored_sorted(void)
{
    struct mip_tcp_sackb b;
    const uint32_t s[3] = {5000, 2000, 8000}, e[3] = {6000, 3000, 9000};
    tcp_sackb_reset(&b, 1000);
    sackb_update_se(&b, 1000, 10000, s, e, 3);
    BLOCKS(&b, 2000, 3000, 5000, 6000, 8000, 9000);
    /* A block ending exactly at snd_max is valid. */
    upd1(&b, 1000, 10000, 9500, 10000);
    BLOCKS(&b, 2000, 3000, 5000, 6000, 8000, 9000, 9500, 10000);
}

static void test_invalid_blocks_ignored(void)
{
    struct mip_tcp_sackb b;
    tcp_sackb_reset(&b, 1000);
    upd1(&b, 1000, 10000, 3000, 3000);      /* empty */
    upd1(&b, 1000, 10000, 4000, 3000);      /* reversed */
    upd1(&b, 1000, 10000, 9000, 10001);     /* beyond snd_max */
    upd1(&b, 1000, 10000, 10000, 10500);    /* entirely beyond */
    upd1(&b, 1000, 10000, 1000, 2000);      /* starts at snd_una: would be acked */
    upd1(&b, 1000, 10000, 500, 1000);       /* below snd_una (D-SACK) */
    upd1(&b, 1000, 10000, 500, 2000);       /* straddles snd_una */
    upd1(&b, 1000, 10000, 0x80001000u, 0x80002000u);  /* far away */
    upd1(&b, 1000, 10000, 2000, 0x80000000u);
    CHECK_EQ(tcp_sackb_count(&b), 0);
    /* Invalid blocks do not disturb valid ones in the same update. */
    {
        const uint32_t s[3] = {4000, 3000, 7000}, e[3] = {3000, 3500, 20000};
        sackb_update_se(&b, 1000, 10000, s, e, 3);
        BLOCKS(&b, 3000, 3500);
    }
}

static void test_merges(void)
{
    struct mip_tcp_sackb b;
    tcp_sackb_reset(&b, 1000);
    upd1(&b, 1000, 10000, 2000, 3000);
    upd1(&b, 1000, 10000, 2500, 3500);      /* overlapping */
    BLOCKS(&b, 2000, 3500);
    upd1(&b, 1000, 10000, 3500, 4000);      /* adjacent above */
    BLOCKS(&b, 2000, 4000);
    upd1(&b, 1000, 10000, 1500, 2000);      /* adjacent below */
    BLOCKS(&b, 1500, 4000);
    upd1(&b, 1000, 10000, 2000, 3000);      /* duplicate, inside */
    BLOCKS(&b, 1500, 4000);
    upd1(&b, 1000, 10000, 6000, 7000);
    upd1(&b, 1000, 10000, 8000, 9000);
    BLOCKS(&b, 1500, 4000, 6000, 7000, 8000, 9000);
    upd1(&b, 1000, 10000, 3900, 8100);      /* bridges all three */
    BLOCKS(&b, 1500, 9000);
    upd1(&b, 1000, 10000, 1001, 10000);     /* covers everything sent but snd_una */
    BLOCKS(&b, 1001, 10000);
}

static void test_trims_as_snd_una_advances(void)
{
    struct mip_tcp_sackb b;
    const uint32_t s[3] = {2000, 4000, 6000}, e[3] = {3000, 5000, 7000};
    tcp_sackb_reset(&b, 1000);
    sackb_update_se(&b, 1000, 10000, s, e, 3);
    sackb_update_se(&b, 3000, 10000, NULL, NULL, 0);   /* first block acked */
    BLOCKS(&b, 4000, 5000, 6000, 7000);
    sackb_update_se(&b, 4500, 10000, NULL, NULL, 0);   /* cuts into one */
    BLOCKS(&b, 4500, 5000, 6000, 7000);
    b.rexmit_next = 4000;
    sackb_update_se(&b, 7000, 12000, NULL, NULL, 0);   /* all acked */
    CHECK_EQ(tcp_sackb_count(&b), 0);
    CHECK_EQ(b.rexmit_next, 7000);      /* never behind snd_una */
}

static void test_capacity_keeps_highest(void)
{
    struct mip_tcp_sackb b;
    unsigned i;
    tcp_sackb_reset(&b, 0);
    for (i = 0; i < 6; i++)             /* 6 disjoint blocks, ascending */
        upd1(&b, 0, 65535, 1000u * (2u * i + 1u), 1000u * (2u * i + 2u));
    CHECK_EQ(tcp_sackb_count(&b), MIP_TCP_SACKB_MAX);
    BLOCKS(&b, 5000, 6000, 7000, 8000, 9000, 10000, 11000, 12000);
    upd1(&b, 0, 65535, 100, 200);      /* lower than all: not kept */
    BLOCKS(&b, 5000, 6000, 7000, 8000, 9000, 10000, 11000, 12000);
    upd1(&b, 0, 65535, 50000, 60000);  /* higher: the lowest goes */
    BLOCKS(&b, 7000, 8000, 9000, 10000, 11000, 12000, 50000, 60000);
    upd1(&b, 0, 65535, 10500, 10600);  /* in between */
    BLOCKS(&b, 9000, 10000, 10500, 10600, 11000, 12000, 50000, 60000);
    upd1(&b, 0, 65535, 9500, 11500);   /* merge frees room */
    BLOCKS(&b, 9000, 12000, 50000, 60000);
    {   /* many blocks in one update: the highest four survive */
        const uint32_t s[6] = {61000, 61600, 62200, 62800, 63400, 64000};
        const uint32_t e[6] = {61300, 61900, 62500, 63100, 63700, 64300};
        sackb_update_se(&b, 0, 65535, s, e, 6);
        BLOCKS(&b, 62200, 62500, 62800, 63100, 63400, 63700, 64000, 64300);
    }
    {   /* offsets are 16 bits: a block ending 65536 or more bytes after
           snd_una (beyond any send ring) is ignored, one before is kept */
        struct mip_tcp_sackb c;
        tcp_sackb_reset(&c, 0xFFFFF000u);
        upd1(&c, 0xFFFFF000u, 0xFFFFF000u + 70000u, 0xFFFFF000u + 65000u,
             0xFFFFF000u + 65536u);
        CHECK_EQ(tcp_sackb_count(&c), 0);
        upd1(&c, 0xFFFFF000u, 0xFFFFF000u + 70000u, 0xFFFFF000u + 65000u,
             0xFFFFF000u + 65535u);
        BLOCKS(&c, 0xFFFFF000u + 65000u, 0xFFFFF000u + 65535u);
    }
}

static void test_sequence_wrap(void)
{
    struct mip_tcp_sackb b;
    uint32_t seq, len;
    const uint32_t una = 0xFFFFFC00u, max = 0x00000800u;
    tcp_sackb_reset(&b, una);
    upd1(&b, una, max, 0x00000200u, 0x00000400u);
    upd1(&b, una, max, 0xFFFFFE00u, 0x00000100u);   /* across 2^32 */
    BLOCKS(&b, 0xFFFFFE00u, 0x00000100u, 0x00000200u, 0x00000400u);
    CHECK(sackb_covered(&b, 0xFFFFFF00u, 0x200u));
    CHECK(!sackb_covered(&b, 0xFFFFFF00u, 0x201u));
    CHECK(tcp_sackb_next_hole(&b, una, 1000, &seq, &len));
    CHECK_EQ(seq, una);
    CHECK_EQ(len, 0x200u);
    b.rexmit_next = 0xFFFFFE80u;                    /* inside the first block */
    CHECK(tcp_sackb_next_hole(&b, una, 1000, &seq, &len));
    CHECK_EQ(seq, 0x00000100u);
    CHECK_EQ(len, 0x100u);
    upd1(&b, una, max, 0x00000100u, 0x00000200u);   /* fills the gap */
    BLOCKS(&b, 0xFFFFFE00u, 0x00000400u);
    sackb_update_se(&b, 0x00000300u, max, NULL, NULL, 0);
    BLOCKS(&b, 0x00000300u, 0x00000400u);
}

static void test_covered(void)
{
    struct mip_tcp_sackb b;
    const uint32_t s[2] = {2000, 4000}, e[2] = {3000, 5000};
    tcp_sackb_reset(&b, 1000);
    sackb_update_se(&b, 1000, 10000, s, e, 2);
    CHECK(sackb_covered(&b, 2000, 1000));
    CHECK(sackb_covered(&b, 2500, 500));
    CHECK(sackb_covered(&b, 4999, 1));
    CHECK(!sackb_covered(&b, 2500, 501));       /* runs past the block */
    CHECK(!sackb_covered(&b, 1999, 2));         /* starts before it */
    CHECK(!sackb_covered(&b, 2000, 3000));      /* spans the gap */
    CHECK(!sackb_covered(&b, 3000, 1));
    CHECK(!sackb_covered(&b, 1000, 1000));
    CHECK(!sackb_covered(&b, 2000, 0));         /* empty: never */
    CHECK(!sackb_covered(&b, 2000, 0xFFFFFFFFu));
}

/* The update says whether the blocks SACKed anything new (RFC 6675 2's
 * duplicate ACK): a first block yes, the same block again no, a block
 * that extends one yes, no blocks (a rebase) no, a D-SACK at or below
 * snd_una no, one beyond what was sent no. */
static void test_update_says_whether_bytes_are_newly_sacked(void)
{
    struct mip_tcp_sackb b;
    struct mip_tcp_sack_block blk[1];
    tcp_sackb_reset(&b, 1000);
    blk[0].left = 1100;
    blk[0].right = 1200;
    CHECK(tcp_sackb_update(&b, 1000, 2000, blk, 1));
    CHECK(!tcp_sackb_update(&b, 1000, 2000, blk, 1));
    blk[0].right = 1300;
    CHECK(tcp_sackb_update(&b, 1000, 2000, blk, 1));
    CHECK(!tcp_sackb_update(&b, 1050, 2000, NULL, 0));
    blk[0].left = 900;
    blk[0].right = 1000;
    CHECK(!tcp_sackb_update(&b, 1050, 2000, blk, 1));
    blk[0].left = 2100;
    blk[0].right = 2200;
    CHECK(!tcp_sackb_update(&b, 1050, 2000, blk, 1));
}

static void test_next_hole(void)
{
    struct mip_tcp_sackb b;
    uint32_t seq = 0, len = 0;
    const uint32_t s[2] = {2000, 4000}, e[2] = {3000, 5000};
    tcp_sackb_reset(&b, 1000);
    CHECK(!tcp_sackb_next_hole(&b, 1000, 536, &seq, &len));   /* no SACK info */
    sackb_update_se(&b, 1000, 10000, s, e, 2);
    CHECK(tcp_sackb_next_hole(&b, 1000, 536, &seq, &len));
    CHECK_EQ(seq, 1000);
    CHECK_EQ(len, 536);                 /* limited to the MSS */
    b.rexmit_next = 1536;               /* one segment retransmitted */
    CHECK(tcp_sackb_next_hole(&b, 1000, 536, &seq, &len));
    CHECK_EQ(seq, 1536);
    CHECK_EQ(len, 464);                 /* rest of the hole */
    b.rexmit_next = 2000;
    CHECK(tcp_sackb_next_hole(&b, 1000, 536, &seq, &len));
    CHECK_EQ(seq, 3000);
    CHECK_EQ(len, 536);
    b.rexmit_next = 2500;               /* inside a SACKed block */
    CHECK(tcp_sackb_next_hole(&b, 1000, 2000, &seq, &len));
    CHECK_EQ(seq, 3000);
    CHECK_EQ(len, 1000);
    b.rexmit_next = 4000;               /* nothing below the highest SACK */
    CHECK(!tcp_sackb_next_hole(&b, 1000, 536, &seq, &len));
    b.rexmit_next = 6000;
    CHECK(!tcp_sackb_next_hole(&b, 1000, 536, &seq, &len));
    b.rexmit_next = 500;                /* stale, below snd_una */
    CHECK(tcp_sackb_next_hole(&b, 1000, 536, &seq, &len));
    CHECK_EQ(seq, 1000);
}

static void test_pipe(void)
{
    struct mip_tcp_sackb b;
    const uint32_t s[2] = {2000, 4000}, e[2] = {3000, 5000};
    tcp_sackb_reset(&b, 1000);
    CHECK_EQ(tcp_sackb_pipe(&b, 1000, 9000), 8000);   /* no SACK: all of flight */
    sackb_update_se(&b, 1000, 9000, s, e, 2);
    /* 8000 in flight - 2000 SACKed - 2000 in holes not retransmitted
     * = the 4000 above the highest SACK. */
    CHECK_EQ(tcp_sackb_pipe(&b, 1000, 9000), 4000);
    b.rexmit_next = 2000;               /* hole [1000,2000) retransmitted */
    CHECK_EQ(tcp_sackb_pipe(&b, 1000, 9000), 5000);
    b.rexmit_next = 3500;               /* and half of [3000,4000) */
    CHECK_EQ(tcp_sackb_pipe(&b, 1000, 9000), 5500);
    b.rexmit_next = 2500;               /* inside a SACKed block */
    CHECK_EQ(tcp_sackb_pipe(&b, 1000, 9000), 5000);
    b.rexmit_next = 5000;               /* both holes */
    CHECK_EQ(tcp_sackb_pipe(&b, 1000, 9000), 6000);
    b.rexmit_next = 7000;               /* beyond the highest SACK */
    CHECK_EQ(tcp_sackb_pipe(&b, 1000, 9000), 6000);
    /* Everything SACKed except the first segment, not yet retransmitted. */
    tcp_sackb_reset(&b, 1000);
    upd1(&b, 1000, 9000, 2000, 9000);
    CHECK_EQ(tcp_sackb_pipe(&b, 1000, 9000), 0);
    b.rexmit_next = 2000;
    CHECK_EQ(tcp_sackb_pipe(&b, 1000, 9000), 1000);
}

/* Random blocks and acknowledgments against a byte-map model, across the
 * 2^32 wrap: the scoreboard stays sorted, disjoint, non-adjacent and within
 * [snd_una, snd_max]; it never claims an unSACKed byte; and while the model
 * never had more runs than the scoreboard holds, the two agree exactly. */
#define MODEL_WIN 300u

static void test_random_against_model(void)
{
    struct mip_tcp_sackb b;
    uint8_t model[MODEL_WIN];           /* byte snd_una + i SACKed */
    uint32_t x = 99991u;
    unsigned round, step, i;
    unsigned mismatches = 0, exact = 0, evicted = 0;

    for (round = 0; round < 200; round++) {
        uint32_t una = 0xFFFFFF00u + round * 7u, max = una + MODEL_WIN;
        bool overflowed = false;
        memset(model, 0, sizeof(model));
        tcp_sackb_reset(&b, una);
        for (step = 0; step < 60; step++) {
            uint32_t s[3], e[3], adv, runs = 0;
            unsigned n, k;
            x ^= x << 13; x ^= x >> 17; x ^= x << 5;
            n = x % 4u;
            for (k = 0; k < n; k++) {
                uint32_t a, l;
                x ^= x << 13; x ^= x >> 17; x ^= x << 5;
                a = x % (MODEL_WIN + 20u);
                l = (x >> 12) % 40u;
                s[k] = una + a;
                e[k] = una + a + l - ((x >> 20) % 8u == 0 ? 60u : 0u);
                if (a > 0 && l > 0 && a + l <= MODEL_WIN && (x >> 20) % 8u != 0)
                    for (i = a; i < a + l; i++)
                        model[i] = 1;
                /* blocks are merged one by one: count runs after each */
                runs = 0;
                for (i = 0; i < MODEL_WIN; i++)
                    runs += model[i] && (i == 0 || !model[i - 1]);
                if (runs > MIP_TCP_SACKB_MAX)
                    overflowed = true;
            }
            sackb_update_se(&b, una, max, s, e, n);
            runs = 0;
            for (i = 0; i < MODEL_WIN; i++)
                runs += model[i] && (i == 0 || !model[i - 1]);
            /* invariants */
            for (k = 0; k < tcp_sackb_count(&b); k++) {
                CHECK(MIP_SEQ_LEQ(una, tcp_sackb_start(&b, k)));
                CHECK(MIP_SEQ_LT(tcp_sackb_start(&b, k), tcp_sackb_end(&b, k)));
                CHECK(MIP_SEQ_LEQ(tcp_sackb_end(&b, k), max));
                if (k > 0)
                    CHECK(MIP_SEQ_LT(tcp_sackb_end(&b, k - 1), tcp_sackb_start(&b, k)));
                for (i = tcp_sackb_start(&b, k) - una; i < tcp_sackb_end(&b, k) - una; i++)
                    if (!model[i])
                        mismatches++;
            }
            if (!overflowed) {
                unsigned sacked = 0, claimed = 0;
                for (i = 0; i < MODEL_WIN; i++)
                    sacked += model[i];
                for (k = 0; k < tcp_sackb_count(&b); k++)
                    claimed += tcp_sackb_end(&b, k) - tcp_sackb_start(&b, k);
                CHECK_EQ(claimed, sacked);
                CHECK_EQ(tcp_sackb_count(&b), runs);
                exact++;
            } else {
                evicted++;
            }
            /* advance snd_una now and then */
            if ((x >> 28) == 0) {
                adv = (x >> 8) % 30u;
                memmove(model, model + adv, MODEL_WIN - adv);
                memset(model + MODEL_WIN - adv, 0, adv);
                una += adv;
                max += adv;
                sackb_update_se(&b, una, max, NULL, NULL, 0);
            }
        }
    }
    CHECK_EQ(mismatches, 0);
    CHECK(exact > 1000u);               /* both regimes are exercised */
    CHECK(evicted > 1000u);
}

int main(void)
{
    RUN(test_reset);
    RUN(test_valid_blocks_stored_sorted);
    RUN(test_invalid_blocks_ignored);
    RUN(test_merges);
    RUN(test_trims_as_snd_una_advances);
    RUN(test_capacity_keeps_highest);
    RUN(test_sequence_wrap);
    RUN(test_covered);
    RUN(test_update_says_whether_bytes_are_newly_sacked);
    RUN(test_next_hole);
    RUN(test_pipe);
    RUN(test_random_against_model);
    return TESTING_DONE();
}

#else /* !MIP_TCP_SACK */

int main(void)
{
    (void)TESTING_DONE();
    printf("skipped: MIP_TCP_SACK is 0, no scoreboard in this build\n");
    return 77;
}

#endif /* MIP_TCP_SACK */
