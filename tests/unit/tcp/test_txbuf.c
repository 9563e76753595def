/* The send ring: append, copy at offsets, consume, wrap-around at every
 * head position, and a random run against a flat model with an exact-size
 * heap ring (ASan catches any access outside it). */
#include <stdint.h>
#include <stdlib.h>
#include "testing.h"
#include "moteip/tcp_parts.h"

static void test_write_copy_consume(void)
{
    uint8_t mem[16], out[16];
    struct mip_tcp_txbuf t;
    tcp_txbuf_init(&t, mem, sizeof(mem));
    CHECK_EQ(tcp_txbuf_free(&t), 16);
    CHECK_EQ(tcp_txbuf_write(&t, (const uint8_t *)"hello, world", 12), 12);
    CHECK_EQ(t.len, 12);
    CHECK_EQ(tcp_txbuf_free(&t), 4);
    tcp_txbuf_copy(&t, 0, out, 5);
    CHECK_MEM(out, "hello", 5);
    tcp_txbuf_copy(&t, 7, out, 5);
    CHECK_MEM(out, "world", 5);
    /* Only what fits is taken. */
    CHECK_EQ(tcp_txbuf_write(&t, (const uint8_t *)"0123456789", 10), 4);
    CHECK_EQ(tcp_txbuf_free(&t), 0);
    CHECK_EQ(tcp_txbuf_write(&t, (const uint8_t *)"x", 1), 0);
    tcp_txbuf_consume(&t, 7);
    CHECK_EQ(t.len, 9);
    tcp_txbuf_copy(&t, 0, out, 9);
    CHECK_MEM(out, "world0123", 9);
    /* Now the ring wraps. */
    CHECK_EQ(tcp_txbuf_write(&t, (const uint8_t *)"ABCDEFG", 7), 7);
    tcp_txbuf_copy(&t, 0, out, 16);
    CHECK_MEM(out, "world0123ABCDEFG", 16);
    tcp_txbuf_copy(&t, 8, out, 6);
    CHECK_MEM(out, "3ABCDE", 6);
    tcp_txbuf_consume(&t, 16);
    CHECK_EQ(t.len, 0);
    CHECK_EQ(tcp_txbuf_free(&t), 16);
}

static void test_copy_and_consume_are_bounded(void)
{
    uint8_t mem[8], out[8];
    struct mip_tcp_txbuf t;
    tcp_txbuf_init(&t, mem, sizeof(mem));
    tcp_txbuf_write(&t, (const uint8_t *)"abcd", 4);
    memset(out, '.', sizeof(out));
    tcp_txbuf_copy(&t, 2, out, 6);       /* only 2 bytes queued there */
    CHECK_MEM(out, "cd......", 8);
    tcp_txbuf_copy(&t, 4, out, 1);       /* nothing at offset 4 */
    CHECK_MEM(out, "cd......", 8);
    tcp_txbuf_consume(&t, 100);
    CHECK_EQ(t.len, 0);
    tcp_txbuf_init(&t, NULL, 0);
    CHECK_EQ(tcp_txbuf_write(&t, (const uint8_t *)"a", 1), 0);
    tcp_txbuf_consume(&t, 1);
    tcp_txbuf_copy(&t, 0, out, 1);
}

#define WRAP_SIZE 37u

/* For every head position, fill the ring completely across the wrap and
 * read it back at every offset. */
static void test_wrap_at_every_head(void)
{
    uint8_t *mem = malloc(WRAP_SIZE);
    uint8_t data[WRAP_SIZE], out[WRAP_SIZE];
    struct mip_tcp_txbuf t;
    unsigned h, off, n, i;
    for (i = 0; i < WRAP_SIZE; i++)
        data[i] = (uint8_t)(0xA0u + i);
    for (h = 0; h < WRAP_SIZE; h++) {
        tcp_txbuf_init(&t, mem, WRAP_SIZE);
        tcp_txbuf_write(&t, data, h + 1u);
        tcp_txbuf_consume(&t, (uint16_t)h);          /* head = h, one byte left */
        CHECK_EQ(t.head, h);
        CHECK_EQ(tcp_txbuf_write(&t, data, WRAP_SIZE), WRAP_SIZE - 1u);
        for (off = 0; off < WRAP_SIZE; off++) {
            n = WRAP_SIZE - off;
            tcp_txbuf_copy(&t, (uint16_t)off, out, (uint16_t)n);
            if (off == 0) {
                CHECK_EQ(out[0], data[h]);
                CHECK_MEM(out + 1, data, n - 1u);
            } else {
                CHECK_MEM(out, data + off - 1u, n);
            }
        }
        tcp_txbuf_consume(&t, WRAP_SIZE);
        CHECK_EQ(t.len, 0);
        /* The same with a head at h that stays there. */
        tcp_txbuf_init(&t, mem, WRAP_SIZE);
        t.head = (uint16_t)h;
        CHECK_EQ(tcp_txbuf_write(&t, data, 40), WRAP_SIZE);
        tcp_txbuf_consume(&t, 5);
        CHECK_EQ(tcp_txbuf_write(&t, data, 5), 5);
        tcp_txbuf_copy(&t, 0, out, WRAP_SIZE);
        CHECK_MEM(out, data + 5, WRAP_SIZE - 5u);
        CHECK_MEM(out + WRAP_SIZE - 5u, data, 5);
    }
    free(mem);
}

/* A random producer/consumer against a flat model of the byte stream. */
static void test_random_against_model(void)
{
    static const uint16_t sizes[] = {1, 2, 7, 37, 64, 200};
    uint32_t x = 7u;
    unsigned si;
    for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        uint16_t size = sizes[si];
        uint8_t *mem = malloc(size);
        uint8_t in[256], out[256];
        struct mip_tcp_txbuf t;
        uint32_t una = 0, wr = 0;        /* stream offsets */
        unsigned it, bad = 0;
        tcp_txbuf_init(&t, mem, size);
        for (it = 0; it < 20000; it++) {
            unsigned n, i, off;
            x ^= x << 13; x ^= x >> 17; x ^= x << 5;
            n = x % (size + 3u);
            switch ((x >> 24) % 3u) {
            case 0:
                for (i = 0; i < n; i++)
                    in[i] = (uint8_t)((wr + i) * 7u + ((wr + i) >> 8));
                i = (unsigned)tcp_txbuf_write(&t, in, n);
                CHECK_EQ(i, n < (unsigned)size - (wr - una) ? n : size - (wr - una));
                wr += i;
                break;
            case 1:
                if (n > wr - una)
                    n = wr - una;
                tcp_txbuf_consume(&t, (uint16_t)n);
                una += n;
                break;
            default:
                if (wr == una)
                    break;
                off = (x >> 8) % (wr - una);
                if (n > wr - una - off)
                    n = wr - una - off;
                tcp_txbuf_copy(&t, (uint16_t)off, out, (uint16_t)n);
                for (i = 0; i < n; i++)
                    if (out[i] != (uint8_t)((una + off + i) * 7u + ((una + off + i) >> 8)))
                        bad++;
                break;
            }
            CHECK_EQ(t.len, wr - una);
        }
        CHECK_EQ(bad, 0);
        free(mem);
    }
}

int main(void)
{
    RUN(test_write_copy_consume);
    RUN(test_copy_and_consume_are_bounded);
    RUN(test_wrap_at_every_head);
    RUN(test_random_against_model);
    return TESTING_DONE();
}
