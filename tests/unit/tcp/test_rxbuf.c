/* The receive ring with in-place reassembly: in-order data, out-of-order
 * data and its absorption, overlaps and duplicates, clipping to the window,
 * wrap-around at every head position, random segment orders against a
 * model (exact-size heap ring and bitmap, so ASan sees any stray access),
 * SACK block reporting, and the no-bitmap (tiny) mode.
 *
 * The SACK block builder is compiled only where MIP_TCP_SACK is on (the
 * full profile), so its checks are under #if MIP_TCP_SACK; the ring's own
 * checks around them run in every build. */
#include <stdint.h>
#include <stdlib.h>
#include "testing.h"
#include "moteip/tcp.h"
#include "moteip/wire/tcp.h"

#if MIP_TCP_SACK
/* tcp_rxbuf_sack_blocks into start[] / end[] arrays (how these tests were
 * written) from the option's form it fills; entries from the count on are
 * left as they were, as the function leaves the rest of its array. */
static unsigned rxbuf_sack_se(const struct mip_tcp_rxbuf *r, uint32_t rcv_nxt, uint32_t recent,
                              uint32_t *start, uint32_t *end, unsigned max)
{
    struct mip_tcp_sack_block blk[16];
    unsigned i, n = tcp_rxbuf_sack_blocks(r, rcv_nxt, recent, blk, max < 16u ? max : 16u);
    for (i = 0; i < n; i++) {
        start[i] = blk[i].left;
        end[i] = blk[i].right;
    }
    return n;
}
#endif

/* The byte at stream offset i. */
static uint8_t sb(uint32_t i)
{
    return (uint8_t)(i * 31u + (i >> 8) * 7u + 5u);
}

static void stream(uint8_t *out, uint32_t from, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        out[i] = sb(from + (uint32_t)i);
}

struct ring {
    struct mip_tcp_rxbuf r;
    uint8_t *mem;
    uint8_t *bm;
};

static void ring_new(struct ring *g, uint16_t size, bool bitmap)
{
    g->mem = malloc(size ? size : 1u);
    g->bm = bitmap ? malloc(((size_t)size + 7u) / 8u ? ((size_t)size + 7u) / 8u : 1u) : NULL;
    if (g->bm)
        memset(g->bm, 0xEE, ((size_t)size + 7u) / 8u);  /* init must clear it */
    tcp_rxbuf_init(&g->r, g->mem, g->bm, size);
}

static void ring_free(struct ring *g)
{
    free(g->mem);
    free(g->bm);
}

/* Writes stream bytes [from, from + n) with rcv_nxt at stream offset nxt. */
static uint16_t put(struct ring *g, uint32_t nxt, uint32_t from, size_t n)
{
    uint8_t buf[512];
    stream(buf, from, n);
    return tcp_rxbuf_write(&g->r, from - nxt, buf, n);
}

/* Reads n bytes and checks they are the stream from `from` on. */
static int get_ok(struct ring *g, uint32_t from, size_t n)
{
    uint8_t buf[512], want[512];
    size_t got = tcp_rxbuf_read(&g->r, buf, n);
    stream(want, from, n);
    return got == n && memcmp(buf, want, n) == 0;
}

static void test_in_order(void)
{
    struct ring g;
    ring_new(&g, 64, true);
    CHECK_EQ(tcp_rxbuf_space(&g.r), 64);
    CHECK_EQ(put(&g, 0, 0, 10), 10);
    CHECK_EQ(tcp_rxbuf_space(&g.r), 54);
    CHECK(!tcp_rxbuf_has_ooo(&g.r));
    CHECK(get_ok(&g, 0, 4));
    CHECK_EQ(tcp_rxbuf_space(&g.r), 58);
    CHECK_EQ(put(&g, 10, 10, 20), 20);
    CHECK(get_ok(&g, 4, 26));
    CHECK_EQ(tcp_rxbuf_read(&g.r, NULL, 5), 0);     /* empty */
    CHECK_EQ(tcp_rxbuf_space(&g.r), 64);
    ring_free(&g);
}

static void test_out_of_order_then_fill(void)
{
    struct ring g;
#if MIP_TCP_SACK
    uint32_t s[4], e[4];
#endif
    ring_new(&g, 64, true);
    CHECK_EQ(put(&g, 1000, 1005, 5), 0);            /* [5,10) */
    CHECK(tcp_rxbuf_has_ooo(&g.r));
    CHECK_EQ(g.r.len, 0);
    CHECK_EQ(tcp_rxbuf_space(&g.r), 64);            /* held, but still window */
#if MIP_TCP_SACK
    CHECK_EQ(rxbuf_sack_se(&g.r, 1000, 1005, s, e, 4), 1);
    CHECK_EQ(s[0], 1005);
    CHECK_EQ(e[0], 1010);
#endif
    CHECK_EQ(put(&g, 1000, 1000, 5), 10);           /* fills: rcv_nxt += 10 */
    CHECK(!tcp_rxbuf_has_ooo(&g.r));
#if MIP_TCP_SACK
    CHECK_EQ(rxbuf_sack_se(&g.r, 1010, 1005, s, e, 4), 0);
#endif
    CHECK(get_ok(&g, 1000, 10));
    ring_free(&g);
}

static void test_overlap_and_duplicates(void)
{
    struct ring g;
#if MIP_TCP_SACK
    uint32_t s[4], e[4];
#endif
    ring_new(&g, 64, true);
    CHECK_EQ(put(&g, 0, 3, 5), 0);          /* [3,8) */
    CHECK_EQ(put(&g, 0, 5, 7), 0);          /* [5,12) overlaps */
    CHECK_EQ(put(&g, 0, 3, 5), 0);          /* duplicate */
    CHECK_EQ(put(&g, 0, 10, 1), 0);         /* inside */
#if MIP_TCP_SACK
    CHECK_EQ(rxbuf_sack_se(&g.r, 0, 10, s, e, 4), 1);
    CHECK_EQ(s[0], 3);
    CHECK_EQ(e[0], 12);
#endif
    CHECK_EQ(put(&g, 0, 0, 4), 12);         /* overlaps the held bytes */
    CHECK(!tcp_rxbuf_has_ooo(&g.r));
    /* In-order data that runs over held bytes and past them. */
    CHECK_EQ(put(&g, 12, 17, 5), 0);        /* [17,22) */
    CHECK_EQ(put(&g, 12, 37, 5), 0);        /* [37,42) */
    CHECK_EQ(put(&g, 12, 12, 20), 20);      /* [12,32) swallows [17,22) */
#if MIP_TCP_SACK
    CHECK_EQ(rxbuf_sack_se(&g.r, 32, 0, s, e, 4), 1);
    CHECK_EQ(s[0], 37);
    CHECK_EQ(e[0], 42);
#endif
    CHECK_EQ(put(&g, 32, 32, 6), 10);       /* [32,38) reaches [37,42) */
    CHECK(!tcp_rxbuf_has_ooo(&g.r));
    CHECK(get_ok(&g, 0, 42));
    ring_free(&g);
}

static void test_clipped_to_space(void)
{
    struct ring g;
    ring_new(&g, 32, true);
    CHECK_EQ(put(&g, 0, 0, 40), 32);        /* only the window is taken */
    CHECK_EQ(tcp_rxbuf_space(&g.r), 0);
    CHECK_EQ(put(&g, 32, 32, 1), 0);
    CHECK_EQ(g.r.len, 32);
    CHECK(get_ok(&g, 0, 10));
    CHECK_EQ(tcp_rxbuf_space(&g.r), 10);
    CHECK_EQ(put(&g, 32, 40, 5), 0);        /* [40,45): only [40,42) fits */
    CHECK_EQ(put(&g, 32, 42, 5), 0);        /* offset == space: nothing */
    CHECK_EQ(put(&g, 32, 100, 5), 0);
    CHECK_EQ(put(&g, 32, 32, 8), 10);       /* fills to exactly the window */
    CHECK_EQ(tcp_rxbuf_space(&g.r), 0);
    CHECK(!tcp_rxbuf_has_ooo(&g.r));
    CHECK(get_ok(&g, 10, 32));
    CHECK_EQ(tcp_rxbuf_space(&g.r), 32);
    ring_free(&g);
}

#define WRAP 37u

/* At every head position: segments in reverse order across the wrap, SACK
 * blocks that wrap in the ring, then the whole ring read back. */
static void test_wrap_at_every_head(void)
{
    unsigned h;
    for (h = 0; h < WRAP; h++) {
        struct ring g;
#if MIP_TCP_SACK
        uint32_t s[4], e[4];
        const uint32_t base = 0xFFFFFFF0u;  /* sequence numbers wrap too */
#endif
        uint32_t nxt = h;
        ring_new(&g, WRAP, true);
        if (h > 0) {
            CHECK_EQ(put(&g, 0, 0, h), h);
            CHECK(get_ok(&g, 0, h));
        }
        CHECK_EQ(g.r.head, h);
        CHECK_EQ(put(&g, nxt, nxt + 25u, 12), 0);       /* [25,37) */
        CHECK_EQ(put(&g, nxt, nxt + 3u, 9), 0);         /* [3,12) */
        CHECK_EQ(put(&g, nxt, nxt + 12u, 10), 0);       /* [12,22): merges */
#if MIP_TCP_SACK
        CHECK_EQ(rxbuf_sack_se(&g.r, base, base + 25u, s, e, 4), 2);
        CHECK_EQ(s[0], base + 25u);
        CHECK_EQ(e[0], base + 37u);
        CHECK_EQ(s[1], base + 3u);
        CHECK_EQ(e[1], base + 22u);
#endif
        CHECK_EQ(put(&g, nxt, nxt + 22u, 3), 0);        /* [22,25): one block */
#if MIP_TCP_SACK
        CHECK_EQ(rxbuf_sack_se(&g.r, base, base + 30u, s, e, 4), 1);
        CHECK_EQ(s[0], base + 3u);
        CHECK_EQ(e[0], base + 37u);
#endif
        CHECK_EQ(put(&g, nxt, nxt, 3), WRAP);           /* everything */
        CHECK_EQ(tcp_rxbuf_space(&g.r), 0);
        CHECK(!tcp_rxbuf_has_ooo(&g.r));
        CHECK(get_ok(&g, nxt, 20));
        CHECK(get_ok(&g, nxt + 20u, 17));
        /* And partly filled: write across the wrap in order, read part. */
        nxt += WRAP;
        CHECK_EQ(put(&g, nxt, nxt + 1u, 30), 0);
        CHECK_EQ(put(&g, nxt, nxt, 1), 31);
        CHECK(get_ok(&g, nxt, 31));
        ring_free(&g);
    }
}

/* Model of the receive side for the random test. */
#define MAXSZ 128u

#if MIP_TCP_SACK
static void check_sack(struct ring *g, const uint8_t *have, uint32_t space, uint32_t rcv_nxt,
                       uint32_t recent, unsigned max)
{
    uint32_t s[8], e[8], ws[MAXSZ], we[MAXSZ];
    unsigned n, wn = 0, i, rec = MAXSZ;
    uint32_t o = 0;
    /* runs of the model, ascending */
    while (o < space) {
        if (!have[o]) { o++; continue; }
        ws[wn] = o;
        while (o < space && have[o])
            o++;
        we[wn] = o;
        if (recent - rcv_nxt >= ws[wn] && recent - rcv_nxt < we[wn])
            rec = wn;
        wn++;
    }
    n = rxbuf_sack_se(&g->r, rcv_nxt, recent, s, e, max);
    CHECK_EQ(n, wn < max ? wn : max);
    i = 0;
    if (rec != MAXSZ && n > 0) {
        CHECK(s[0] == rcv_nxt + ws[rec] && e[0] == rcv_nxt + we[rec]);
        i = 1;
    }
    {
        unsigned k = 0;
        for (; i < n; i++, k++) {
            if (k == rec)
                k++;
            CHECK(k < wn && s[i] == rcv_nxt + ws[k] && e[i] == rcv_nxt + we[k]);
        }
    }
}
#endif

static void random_run(uint16_t size, bool bitmap, unsigned iters, uint32_t seed)
{
    struct ring g;
    uint8_t have[MAXSZ + 1];             /* model: window offset held */
    uint8_t buf[512];
    uint32_t x = seed, rd = 0, nxt = 0, seq0 = seed * 2654435761u;
    uint32_t recent = seq0;
    unsigned it, bad = 0;

    ring_new(&g, size, bitmap);
    memset(have, 0, sizeof(have));
    for (it = 0; it < iters; it++) {
        uint32_t space = size - (nxt - rd);
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        if ((x & 3u) != 0) {
            /* a segment somewhere around the window, trimmed by the caller */
            uint32_t start = nxt + (x >> 8) % (space + 12u) - 6u;
            uint32_t len = (x >> 20) % (size / 2u + 4u);
            uint32_t off, adv = 0, i, stored;
            if (MIP_SEQ_LT(start + len, nxt) || start + len == nxt)
                continue;
            if (MIP_SEQ_LT(start, nxt)) {
                len -= nxt - start;
                start = nxt;
            }
            off = start - nxt;
            stream(buf, start, len);
            stored = off < space ? (len < space - off ? len : space - off) : 0;
            if (bitmap || off == 0) {
                for (i = off; i < off + stored; i++)
                    have[i] = 1;
                if (stored > 0)
                    recent = seq0 + start;
            }
            if (off == 0)
                while (adv < space && have[adv])
                    adv++;
            CHECK_EQ(tcp_rxbuf_write(&g.r, off, buf, len), adv);
            memmove(have, have + adv, space - adv);
            memset(have + space - adv, 0, adv);
            nxt += adv;
        } else {
            uint32_t n = (x >> 8) % (size + 3u), got, i;
            got = (uint32_t)tcp_rxbuf_read(&g.r, buf, n);
            CHECK_EQ(got, n < nxt - rd ? n : nxt - rd);
            for (i = 0; i < got; i++)
                bad += buf[i] != sb(rd + i);
            rd += got;
        }
        space = size - (nxt - rd);
        CHECK_EQ(tcp_rxbuf_space(&g.r), space);
        CHECK_EQ(g.r.len, nxt - rd);
        {
            bool any = false;
            uint32_t i;
            for (i = 0; i < space; i++)
                any = any || have[i];
            CHECK(tcp_rxbuf_has_ooo(&g.r) == any);
        }
#if MIP_TCP_SACK
        if (it % 4u == 0)
            check_sack(&g, have, space, seq0 + nxt, recent, 1u + (x >> 28) % 4u);
#else
        (void)recent;
#endif
        if (bitmap && (size & 7u) != 0)     /* bits past the ring stay clear */
            CHECK((g.bm[size / 8u] >> (size & 7u)) == 0);
    }
    /* drain */
    {
        uint32_t got = (uint32_t)tcp_rxbuf_read(&g.r, buf, sizeof(buf)), i;
        for (i = 0; i < got; i++)
            bad += buf[i] != sb(rd + i);
        rd += got;
    }
    CHECK_EQ(rd, nxt);
    CHECK(nxt > iters / 20u);           /* the stream made progress */
    CHECK_EQ(bad, 0);
    ring_free(&g);
}

static void test_random_orders_reconstruct_stream(void)
{
    static const uint16_t sizes[] = {37, 1, 2, 8, 9, 16, 63, 64, 65, 100, 128};
    unsigned i;
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        random_run(sizes[i], true, 20000, 1u + i);
        random_run(sizes[i], false, 5000, 100u + i);
    }
}

/* Full-window permutations: a 37-byte window cut into segments delivered
 * in random order, many times, at every head position. */
static void test_random_permutations(void)
{
    uint32_t x = 424242u;
    unsigned round;
    for (round = 0; round < 3000; round++) {
        struct ring g;
        uint32_t cut[WRAP + 1], order[WRAP], nseg = 0, i, nxt, adv = 0;
        uint32_t head = round % WRAP;
        ring_new(&g, WRAP, true);
        if (head) {
            put(&g, 0, 0, head);
            tcp_rxbuf_read(&g.r, NULL, head);
        }
        nxt = head;
        cut[nseg++] = 0;
        for (i = 1; i < WRAP; i++) {
            x ^= x << 13; x ^= x >> 17; x ^= x << 5;
            if (x % 5u == 0)
                cut[nseg++] = i;
        }
        cut[nseg] = WRAP;
        for (i = 0; i < nseg; i++)
            order[i] = i;
        for (i = nseg; i > 1; i--) {   /* Fisher-Yates */
            uint32_t j, t;
            x ^= x << 13; x ^= x >> 17; x ^= x << 5;
            j = x % i;
            t = order[i - 1]; order[i - 1] = order[j]; order[j] = t;
        }
        for (i = 0; i < nseg; i++) {
            uint32_t k = order[i];
            /* deliver with a random overlap into the neighbours */
            uint32_t a = cut[k], b = cut[k + 1];
            x ^= x << 13; x ^= x >> 17; x ^= x << 5;
            if (a > 0 && (x & 1u)) a--;
            if (b < WRAP && (x & 2u)) b++;
            if (a < adv) a = adv;             /* the caller trims below rcv_nxt */
            if (a >= b) continue;
            adv += put(&g, nxt + adv, nxt + a, b - a);
        }
        CHECK_EQ(adv, WRAP);
        CHECK(get_ok(&g, nxt, WRAP));
        ring_free(&g);
    }
}

#if MIP_TCP_SACK
static void test_sack_most_recent_first(void)
{
    struct ring g;
    uint32_t s[4], e[4];
    const uint32_t nxt = 5000;
    ring_new(&g, 64, true);
    put(&g, 0, 5, 3);                       /* [5,8) */
    put(&g, 0, 12, 3);                      /* [12,15) */
    put(&g, 0, 20, 2);                      /* [20,22) */
    CHECK_EQ(rxbuf_sack_se(&g.r, nxt, nxt + 12u, s, e, 4), 3);
    CHECK(s[0] == nxt + 12u && e[0] == nxt + 15u);
    CHECK(s[1] == nxt + 5u && e[1] == nxt + 8u);
    CHECK(s[2] == nxt + 20u && e[2] == nxt + 22u);
    CHECK_EQ(rxbuf_sack_se(&g.r, nxt, nxt + 14u, s, e, 4), 3);
    CHECK(s[0] == nxt + 12u && e[0] == nxt + 15u);
    CHECK_EQ(rxbuf_sack_se(&g.r, nxt, nxt + 21u, s, e, 2), 2);
    CHECK(s[0] == nxt + 20u && e[0] == nxt + 22u);
    CHECK(s[1] == nxt + 5u && e[1] == nxt + 8u);
    CHECK_EQ(rxbuf_sack_se(&g.r, nxt, nxt + 21u, s, e, 1), 1);
    CHECK(s[0] == nxt + 20u && e[0] == nxt + 22u);
    /* `recent` not in any block (in order, or a gap): lowest first. */
    CHECK_EQ(rxbuf_sack_se(&g.r, nxt, nxt + 9u, s, e, 4), 3);
    CHECK(s[0] == nxt + 5u && s[1] == nxt + 12u && s[2] == nxt + 20u);
    CHECK_EQ(rxbuf_sack_se(&g.r, nxt, nxt - 1u, s, e, 4), 3);
    CHECK_EQ(rxbuf_sack_se(&g.r, nxt, nxt + 100u, s, e, 4), 3);
    CHECK_EQ(rxbuf_sack_se(&g.r, nxt, nxt + 12u, s, e, 0), 0);
    CHECK_EQ(rxbuf_sack_se(&g.r, nxt, nxt + 9u, s, e, 2), 2);
    CHECK(s[0] == nxt + 5u && s[1] == nxt + 12u);
    ring_free(&g);
}
#endif

static void test_no_bitmap_drops_out_of_order(void)
{
    struct ring g;
    ring_new(&g, 32, false);
    CHECK_EQ(put(&g, 0, 5, 5), 0);
    CHECK(!tcp_rxbuf_has_ooo(&g.r));
#if MIP_TCP_SACK
    {
        uint32_t s[4], e[4];
        CHECK_EQ(rxbuf_sack_se(&g.r, 0, 5, s, e, 4), 0);
    }
#endif
    CHECK_EQ(tcp_rxbuf_space(&g.r), 32);
    CHECK_EQ(put(&g, 0, 0, 5), 5);          /* not joined by [5,10): dropped */
    CHECK_EQ(put(&g, 5, 5, 40), 27);        /* clipped to the space */
    CHECK(get_ok(&g, 0, 32));
    ring_free(&g);
}

static void test_zero_size_and_empty_writes(void)
{
    struct ring g;
    uint8_t b = 1;
    ring_new(&g, 0, true);
    CHECK_EQ(tcp_rxbuf_write(&g.r, 0, &b, 1), 0);
    CHECK_EQ(tcp_rxbuf_read(&g.r, &b, 1), 0);
    CHECK(!tcp_rxbuf_has_ooo(&g.r));
#if MIP_TCP_SACK
    {
        uint32_t s[1], e[1];
        CHECK_EQ(rxbuf_sack_se(&g.r, 0, 0, s, e, 1), 0);
    }
#endif
    ring_free(&g);
    ring_new(&g, 16, true);
    CHECK_EQ(tcp_rxbuf_write(&g.r, 0, &b, 0), 0);
    CHECK_EQ(tcp_rxbuf_write(&g.r, 3, &b, 0), 0);
    CHECK(!tcp_rxbuf_has_ooo(&g.r));
    CHECK_EQ(tcp_rxbuf_write(&g.r, 0xFFFFFFFFu, &b, 1), 0);
    ring_free(&g);
}

int main(void)
{
    RUN(test_in_order);
    RUN(test_out_of_order_then_fill);
    RUN(test_overlap_and_duplicates);
    RUN(test_clipped_to_space);
    RUN(test_wrap_at_every_head);
    RUN(test_random_orders_reconstruct_stream);
    RUN(test_random_permutations);
#if MIP_TCP_SACK
    RUN(test_sack_most_recent_first);
#endif
    RUN(test_no_bitmap_drops_out_of_order);
    RUN(test_zero_size_and_empty_writes);
    return TESTING_DONE();
}
