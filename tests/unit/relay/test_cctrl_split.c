/*
 * cctrl's split and merge rules ([B] s.4.5.1; include/moteip/cctrl_split.h):
 * the split puts chunk k on subflow k mod n; the merge gives back the
 * stream in order whatever the subflows' interleaving, holds no more than
 * its buffer per subflow (the rest is refused, so that subflow's TCP window
 * closes) and reopens a subflow's room when the ones behind catch up.
 */
#include <stdint.h>
#include <string.h>

#include "moteip/cctrl_split.h"
#include "moteip/relay.h"
#include "testing.h"

#if MIP_CONF_FORWARD && MIP_RELAY_HAS_CCTRL

#define STREAM 3000u

static uint8_t byte_at(size_t i)
{
    return (uint8_t)(i * 7u + (i >> 8));
}

/* The split's schedule: every byte goes on the subflow of its chunk. */
static void test_split_puts_chunk_k_on_subflow_k_mod_n(void)
{
    struct mip_cctrl_split s;
    size_t pos = 0;
    uint16_t room;
    CHECK_EQ(mip_cctrl_split_init(&s, 0, 10), MIP_ERR_INVALID);
    CHECK_EQ(mip_cctrl_split_init(&s, MIP_CCTRL_SUBFLOWS_MAX + 1u, 10), MIP_ERR_INVALID);
    CHECK_EQ(mip_cctrl_split_init(&s, 2, 0), MIP_ERR_INVALID);
    CHECK_EQ(mip_cctrl_split_init(&s, 3, 10), MIP_OK);
    while (pos < 200u) {
        uint8_t f = mip_cctrl_split_next(&s, &room);
        uint16_t n = room > 4u ? 4u : room;      /* sends of 4 bytes and less */
        CHECK_EQ(f, (pos / 10u) % 3u);
        CHECK_EQ(room, 10u - pos % 10u);
        CHECK_EQ(mip_cctrl_split_sent(&s, n), MIP_OK);
        pos += n;
    }
    (void)mip_cctrl_split_next(&s, &room);
    CHECK_EQ(mip_cctrl_split_sent(&s, (uint16_t)(room + 1u)), MIP_ERR_INVALID);
    CHECK_EQ(mip_cctrl_split_next(&s, &room), (pos / 10u) % 3u);
}

struct subflow {
    uint8_t data[STREAM];
    size_t len, given;          /* bytes split onto it; given to the merge */
};

/* Splits STREAM bytes over n subflows, then feeds the merge in an order a
 * seeded generator picks (bursts of any subflow), reading as it goes;
 * checks the stream comes out whole and in order and no buffer overflows. */
static void run_interleaving(uint8_t n, uint16_t chunk, uint16_t cap, uint32_t seed)
{
    static struct subflow sf[MIP_CCTRL_SUBFLOWS_MAX];
    static uint8_t out[STREAM], mem[MIP_CCTRL_SUBFLOWS_MAX * 64u];
    struct mip_cctrl_split s;
    struct mip_cctrl_merge m;
    size_t pos = 0, got = 0, steps = 0;
    uint32_t x = seed;
    uint8_t f;
    memset(sf, 0, sizeof(sf));
    CHECK_EQ(mip_cctrl_split_init(&s, n, chunk), MIP_OK);
    while (pos < STREAM) {
        uint16_t room;
        f = mip_cctrl_split_next(&s, &room);
        if (room > STREAM - pos)
            room = (uint16_t)(STREAM - pos);
        for (size_t k = 0; k < room; k++)
            sf[f].data[sf[f].len + k] = byte_at(pos + k);
        sf[f].len += room;
        pos += room;
        CHECK_EQ(mip_cctrl_split_sent(&s, room), MIP_OK);
    }
    CHECK_EQ(mip_cctrl_merge_init(&m, n, chunk, mem, cap), MIP_OK);
    while (got < STREAM && steps++ < 100000u) {
        size_t burst, took;
        x = x * 1103515245u + 12345u;
        f = (uint8_t)((x >> 16) % n);
        burst = 1u + (x >> 8) % 40u;
        if (burst > sf[f].len - sf[f].given)
            burst = sf[f].len - sf[f].given;
        took = mip_cctrl_merge_put(&m, f, sf[f].data + sf[f].given, burst);
        CHECK(took <= burst);
        sf[f].given += took;
        for (uint8_t g = 0; g < n; g++)
            CHECK(mip_cctrl_merge_room(&m, g) <= cap);
        got += mip_cctrl_merge_read(&m, out + got, STREAM - got);
    }
    CHECK_EQ(got, STREAM);
    for (size_t i = 0; i < got; i++)
        if (out[i] != byte_at(i)) {
            CHECK_EQ(out[i], byte_at(i));
            break;
        }
}

static void test_merge_restores_the_stream_in_any_interleaving(void)
{
    static const struct { uint8_t n; uint16_t chunk, cap; } rows[] = {
        { 1, 16, 8 }, { 2, 16, 16 }, { 2, 48, 20 }, { 2, 7, 64 }, { 3, 10, 5 }, { 4, 33, 33 },
    };
    size_t r;
    uint32_t seed;
    for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
        for (seed = 1; seed <= 20u; seed++)
            run_interleaving(rows[r].n, rows[r].chunk, rows[r].cap, seed);
}

/* Subflow 1 runs ahead while subflow 0 (whose turn it is) is silent: the
 * merge holds `cap` bytes of 1, then takes nothing more (its window is
 * closed, the rest counted refused); once 0 delivers its chunk the held
 * bytes leave and 1's room reopens. */
static void test_a_subflow_ahead_is_stopped_then_reopened(void)
{
    static uint8_t mem[2 * 8];
    struct mip_cctrl_merge m;
    uint8_t a[10], b[10], out[32];
    size_t k;
    for (k = 0; k < 10u; k++) {
        a[k] = (uint8_t)k;              /* chunk 0: bytes 0..9 */
        b[k] = (uint8_t)(10u + k);      /* chunk 1: bytes 10..19 */
    }
    CHECK_EQ(mip_cctrl_merge_init(&m, 2, 10, mem, 0), MIP_ERR_INVALID);
    CHECK_EQ(mip_cctrl_merge_init(&m, 2, 10, mem, 8), MIP_OK);
    CHECK_EQ(mip_cctrl_merge_put(&m, 1, b, 10), 8u);
    CHECK_EQ(mip_cctrl_merge_room(&m, 1), 0u);
    CHECK_EQ(mip_cctrl_merge_put(&m, 1, b + 8, 2), 0u);
    CHECK_EQ(m.refused, 4u);
    CHECK_EQ(m.stalls, 2u);
    CHECK_EQ(mip_cctrl_merge_read(&m, out, sizeof(out)), 0u);   /* chunk 0 first */
    CHECK_EQ(mip_cctrl_merge_put(&m, 0, a, 10), 8u);             /* 0's turn: 8 fit */
    CHECK_EQ(mip_cctrl_merge_read(&m, out, sizeof(out)), 8u);   /* 0..7; 1 still waits */
    CHECK_EQ(mip_cctrl_merge_put(&m, 0, a + 8, 2), 2u);
    CHECK_EQ(mip_cctrl_merge_read(&m, out + 8, sizeof(out) - 8u), 10u);  /* 8, 9, then 10..17 */
    CHECK_EQ(mip_cctrl_merge_room(&m, 1), 8u);
    CHECK_EQ(mip_cctrl_merge_put(&m, 1, b + 8, 2), 2u);
    CHECK_EQ(mip_cctrl_merge_read(&m, out + 18, sizeof(out) - 18u), 2u);
    for (k = 0; k < 20u; k++)
        CHECK_EQ(out[k], k);
    CHECK_EQ(mip_cctrl_merge_put(&m, 2, a, 1), 0u);             /* no subflow 2 */
}

int main(void)
{
    RUN(test_split_puts_chunk_k_on_subflow_k_mod_n);
    RUN(test_merge_restores_the_stream_in_any_interleaving);
    RUN(test_a_subflow_ahead_is_stopped_then_reopened);
    return TESTING_DONE();
}

#else

int main(void)
{
    return 0;   /* no relay in this profile */
}

#endif
