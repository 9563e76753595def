/* Packet buffer pool: allocation, headroom/tailroom bounds, exhaustion,
 * high-water mark. Uses the pool inside a fixture's stack. */
#include "fixture.h"

static void test_alloc_sets_headroom_and_empty_packet(void)
{
    struct fixture f;
    struct mip_pbuf *p;
    fixture_init(&f, false);
    p = mip_pbuf_alloc(&f.s->pool, 100);
    CHECK(p != NULL);
    CHECK_EQ(p->off, 100);
    CHECK_EQ(p->len, 0);
    CHECK_EQ(p->next, MIP_PBUF_NONE);
    CHECK_EQ(mip_pbuf_tailroom(p), MIP_PBUF_SIZE - 100);
    CHECK(mip_pbuf_payload(p) == p->data + 100);
    CHECK_EQ(f.s->pool.in_use, 1);
    mip_pbuf_free(&f.s->pool, p);
    CHECK_EQ(f.s->pool.in_use, 0);
    fixture_free(&f);
}

static void test_alloc_headroom_bounds(void)
{
    struct fixture f;
    struct mip_pbuf *p;
    fixture_init(&f, false);
    CHECK(mip_pbuf_alloc(&f.s->pool, (uint16_t)(MIP_PBUF_SIZE + 1)) == NULL);
    CHECK_EQ(f.s->pool.in_use, 0);
    p = mip_pbuf_alloc(&f.s->pool, MIP_PBUF_SIZE);    /* all headroom, no tailroom */
    CHECK(p != NULL);
    CHECK_EQ(mip_pbuf_tailroom(p), 0);
    CHECK(mip_pbuf_put(p, 1) == NULL);
    CHECK_EQ(p->len, 0);
    CHECK(mip_pbuf_put(p, 0) == p->data + MIP_PBUF_SIZE);
    mip_pbuf_free(&f.s->pool, p);
    fixture_free(&f);
}

static void test_push_within_and_beyond_headroom(void)
{
    struct fixture f;
    struct mip_pbuf *p;
    uint8_t *w;
    fixture_init(&f, false);
    p = mip_pbuf_alloc(&f.s->pool, 20);
    w = mip_pbuf_put(p, 4);
    memcpy(w, "data", 4);
    CHECK(mip_pbuf_push(p, 21) == NULL);                /* one more than the headroom */
    CHECK_EQ(p->off, 20);
    CHECK_EQ(p->len, 4);
    w = mip_pbuf_push(p, 8);
    CHECK(w == p->data + 12);
    CHECK_EQ(p->off, 12);
    CHECK_EQ(p->len, 12);
    w = mip_pbuf_push(p, 12);                           /* exactly the rest */
    CHECK(w == p->data);
    CHECK_EQ(p->off, 0);
    CHECK_EQ(p->len, 24);
    CHECK(mip_pbuf_push(p, 1) == NULL);
    CHECK_EQ(p->len, 24);
    CHECK_MEM(mip_pbuf_payload(p) + 20, "data", 4);     /* data did not move */
    mip_pbuf_free(&f.s->pool, p);
    fixture_free(&f);
}

static void test_put_within_and_beyond_tailroom(void)
{
    struct fixture f;
    struct mip_pbuf *p;
    uint8_t *w;
    fixture_init(&f, false);
    p = mip_pbuf_alloc(&f.s->pool, MIP_PBUF_HEADROOM);
    CHECK(mip_pbuf_put(p, (uint16_t)(MIP_PBUF_SIZE - MIP_PBUF_HEADROOM + 1)) == NULL);
    CHECK_EQ(p->len, 0);
    w = mip_pbuf_put(p, 10);
    CHECK(w == p->data + MIP_PBUF_HEADROOM);
    CHECK_EQ(p->len, 10);
    w = mip_pbuf_put(p, (uint16_t)(MIP_PBUF_SIZE - MIP_PBUF_HEADROOM - 10));
    CHECK(w == p->data + MIP_PBUF_HEADROOM + 10);
    CHECK_EQ(p->len, MIP_PBUF_SIZE - MIP_PBUF_HEADROOM);
    CHECK_EQ(mip_pbuf_tailroom(p), 0);
    CHECK(mip_pbuf_put(p, 1) == NULL);
    CHECK_EQ(p->len, MIP_PBUF_SIZE - MIP_PBUF_HEADROOM);
    mip_pbuf_free(&f.s->pool, p);
    fixture_free(&f);
}

static void test_pull_removes_front_and_clamps_to_len(void)
{
    struct fixture f;
    struct mip_pbuf *p;
    uint8_t *w;
    fixture_init(&f, false);
    p = mip_pbuf_alloc(&f.s->pool, 8);
    w = mip_pbuf_put(p, 6);
    memcpy(w, "abcdef", 6);
    mip_pbuf_pull(p, 2);
    CHECK_EQ(p->off, 10);
    CHECK_EQ(p->len, 4);
    CHECK_MEM(mip_pbuf_payload(p), "cdef", 4);
    mip_pbuf_pull(p, 0);
    CHECK_EQ(p->len, 4);
    mip_pbuf_pull(p, 100);                              /* more than len: empties it */
    CHECK_EQ(p->len, 0);
    CHECK_EQ(p->off, 14);
    /* the pulled bytes became headroom again */
    CHECK(mip_pbuf_push(p, 14) == p->data);
    mip_pbuf_free(&f.s->pool, p);
    fixture_free(&f);
}

static void test_exhaustion_returns_null_and_free_recycles(void)
{
    struct fixture f;
    struct mip_pbuf *p[MIP_PBUF_COUNT];
    struct mip_pbuf *q;
    unsigned i, j;
    fixture_init(&f, false);
    for (i = 0; i < MIP_PBUF_COUNT; i++) {
        p[i] = mip_pbuf_alloc(&f.s->pool, 0);
        CHECK(p[i] != NULL);
        for (j = 0; j < i; j++)
            CHECK(p[i] != p[j]);
    }
    CHECK_EQ(f.s->pool.in_use, MIP_PBUF_COUNT);
    CHECK(mip_pbuf_alloc(&f.s->pool, 0) == NULL);
    CHECK(mip_pbuf_alloc(&f.s->pool, 0) == NULL);
    CHECK_EQ(f.s->pool.in_use, MIP_PBUF_COUNT);
    mip_pbuf_free(&f.s->pool, p[1]);
    q = mip_pbuf_alloc(&f.s->pool, 0);
    CHECK(q == p[1]);
    CHECK(mip_pbuf_alloc(&f.s->pool, 0) == NULL);
    for (i = 0; i < MIP_PBUF_COUNT; i++)
        mip_pbuf_free(&f.s->pool, p[i]);
    CHECK_EQ(f.s->pool.in_use, 0);
    fixture_free(&f);
}

static void test_free_null_and_double_free_are_harmless(void)
{
    struct fixture f;
    struct mip_pbuf *a, *b;
    fixture_init(&f, false);
    a = mip_pbuf_alloc(&f.s->pool, 0);
    b = mip_pbuf_alloc(&f.s->pool, 0);
    mip_pbuf_free(&f.s->pool, NULL);
    CHECK_EQ(f.s->pool.in_use, 2);
    mip_pbuf_free(&f.s->pool, a);
    mip_pbuf_free(&f.s->pool, a);
    CHECK_EQ(f.s->pool.in_use, 1);
    CHECK_EQ(b->in_use, 1);
    mip_pbuf_free(&f.s->pool, b);
    CHECK_EQ(f.s->pool.in_use, 0);
    fixture_free(&f);
}

static void test_high_water_records_peak_not_current(void)
{
    struct fixture f;
    struct mip_pbuf *a, *b, *c;
    fixture_init(&f, false);
    CHECK_EQ(f.s->pool.high_water, 0);
    a = mip_pbuf_alloc(&f.s->pool, 0);
    b = mip_pbuf_alloc(&f.s->pool, 0);
    CHECK_EQ(f.s->pool.high_water, 2);
    mip_pbuf_free(&f.s->pool, a);
    mip_pbuf_free(&f.s->pool, b);
    CHECK_EQ(f.s->pool.high_water, 2);
    c = mip_pbuf_alloc(&f.s->pool, 0);
    CHECK_EQ(f.s->pool.high_water, 2);
    mip_pbuf_free(&f.s->pool, c);
    fixture_free(&f);
}

static void test_high_water_reaches_pool_size(void)
{
    struct fixture f;
    struct mip_pbuf *p[MIP_PBUF_COUNT];
    unsigned i;
    fixture_init(&f, false);
    for (i = 0; i < MIP_PBUF_COUNT; i++)
        p[i] = mip_pbuf_alloc(&f.s->pool, 0);
    (void)mip_pbuf_alloc(&f.s->pool, 0);                /* fails, no change */
    CHECK_EQ(f.s->pool.high_water, MIP_PBUF_COUNT);
    for (i = 0; i < MIP_PBUF_COUNT; i++)
        mip_pbuf_free(&f.s->pool, p[i]);
    CHECK_EQ(f.s->pool.high_water, MIP_PBUF_COUNT);
    fixture_free(&f);
}

static void test_index_and_at_round_trip(void)
{
    struct fixture f;
    struct mip_pbuf *p;
    uint8_t i;
    fixture_init(&f, false);
    for (i = 0; i < MIP_PBUF_COUNT; i++) {
        p = mip_pbuf_at(&f.s->pool, i);
        CHECK(p == &f.s->pool.buf[i]);
        CHECK_EQ(mip_pbuf_index(&f.s->pool, p), i);
    }
    CHECK(mip_pbuf_at(&f.s->pool, MIP_PBUF_COUNT) == NULL);
    CHECK(mip_pbuf_at(&f.s->pool, MIP_PBUF_NONE) == NULL);
    fixture_free(&f);
}

int main(void)
{
    RUN(test_alloc_sets_headroom_and_empty_packet);
    RUN(test_alloc_headroom_bounds);
    RUN(test_push_within_and_beyond_headroom);
    RUN(test_put_within_and_beyond_tailroom);
    RUN(test_pull_removes_front_and_clamps_to_len);
    RUN(test_exhaustion_returns_null_and_free_recycles);
    RUN(test_free_null_and_double_free_are_harmless);
    RUN(test_high_water_records_peak_not_current);
    RUN(test_high_water_reaches_pool_size);
    RUN(test_index_and_at_round_trip);
    return TESTING_DONE();
}
