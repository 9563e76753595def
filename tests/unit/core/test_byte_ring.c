/*
 * The interrupt-to-main-loop byte ring (moteip/byte_ring.h): sizes it
 * accepts, a full ring dropping and counting, peek in one piece across the
 * wrap, and indices running past their type's range. test_byte_ring8.c
 * runs the same tests with the 8-bit indices of AVR.
 */
#include "testing.h"
#include "moteip/byte_ring.h"
#include <stdlib.h>

static void test_ring_init_sizes(void)
{
    static const struct { size_t size; bool ok; } cases[] = {
        { 0, false }, { 1, false }, { 2, true }, { 3, false }, { 64, true }, { 96, false },
        { 128, true },
        { ((size_t)(mip_ring_idx_t)~(mip_ring_idx_t)0 >> 1) + 1u, true },
        { ((size_t)(mip_ring_idx_t)~(mip_ring_idx_t)0 >> 1) + 2u, false },
        { ((size_t)(mip_ring_idx_t)~(mip_ring_idx_t)0) + 1u, false },
    };
    static uint8_t buf[1 << 16];
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct mip_byte_ring r;
        CHECK_EQ(mip_byte_ring_init(&r, buf, cases[i].size), cases[i].ok);
    }
    {
        struct mip_byte_ring r;
        CHECK(!mip_byte_ring_init(&r, NULL, 64));
    }
}

static void test_ring_full_drops_and_counts(void)
{
    uint8_t *buf = malloc(8);   /* exact size: ASan sees writes past it */
    struct mip_byte_ring r;
    const uint8_t *p;
    size_t n, i;

    CHECK(mip_byte_ring_init(&r, buf, 8));
    p = mip_byte_ring_peek(&r, &n);
    CHECK_EQ(n, 0);
    for (i = 0; i < 8; i++)
        CHECK(mip_byte_ring_put(&r, (uint8_t)(10 + i)));
    CHECK(!mip_byte_ring_put(&r, 99));
    CHECK(!mip_byte_ring_put(&r, 99));
    CHECK_EQ(r.dropped, 2);
    CHECK_EQ(mip_byte_ring_count(&r), 8);
    p = mip_byte_ring_peek(&r, &n);
    CHECK_EQ(n, 8);
    for (i = 0; i < 8; i++)
        CHECK_EQ(p[i], 10 + i);
    mip_byte_ring_consume(&r, 3);
    CHECK(mip_byte_ring_put(&r, 20));     /* room again */
    CHECK_EQ(mip_byte_ring_count(&r), 6);
    free(buf);
}

/* Bytes put in varying bursts come out in order, in pieces that never run
 * past the buffer's end, for longer than the index type's range. */
static void test_ring_order_across_wraps(void)
{
    uint8_t *buf = malloc(16);
    struct mip_byte_ring r;
    uint32_t put = 0, got = 0, x = 7;
    unsigned rounds;

    CHECK(mip_byte_ring_init(&r, buf, 16));
    for (rounds = 0; rounds < 100000; rounds++) {
        unsigned k;
        const uint8_t *p;
        size_t n, i, take;
        x = x * 1103515245u + 12345u;
        for (k = (x >> 16) % 20; k > 0; k--)
            if (mip_byte_ring_put(&r, (uint8_t)(put * 13u)))
                put++;
        p = mip_byte_ring_peek(&r, &n);
        CHECK(p >= buf && p + n <= buf + 16);
        take = n == 0 ? 0 : (x >> 24) % (n + 1);
        for (i = 0; i < take; i++)
            if (p[i] != (uint8_t)((got + i) * 13u))
                break;
        if (i != take) {
            CHECK(0);
            break;
        }
        mip_byte_ring_consume(&r, take);
        got += (uint32_t)take;
    }
    CHECK(put > 2u * 65536u);   /* the 16-bit indices wrapped */
    CHECK_EQ(put - got, mip_byte_ring_count(&r));
    free(buf);
}

int main(void)
{
    printf("index bits: %u\n", (unsigned)(8 * sizeof(mip_ring_idx_t)));
    RUN(test_ring_init_sizes);
    RUN(test_ring_full_drops_and_counts);
    RUN(test_ring_order_across_wraps);
    return TESTING_DONE();
}
