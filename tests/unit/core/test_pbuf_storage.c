/* The packet buffer pool on caller-provided storage (pbuf.h): a pool of a
 * given count hands out exactly that many buffers of the given size, an
 * exhausted pool fails, storage that cannot serve is refused with
 * MIP_ERR_INVALID and leaves the pool as it was, and a stack given storage
 * works on it (its raw-IP netif's MTU bounded by the caller's buffer size). */
#include "fixture.h"

#define COUNT 6u
#define SIZE 1400u

static struct mip_pbuf hdr[COUNT];
static uint8_t mem[COUNT * SIZE];

static struct mip_pbuf_storage storage(uint8_t count, uint16_t size)
{
    struct mip_pbuf_storage st;
    st.hdr = hdr;
    st.mem = mem;
    st.count = count;
    st.size = size;
    return st;
}

static void test_pool_of_count_hands_out_exactly_count(void)
{
    struct mip_pbuf_pool pool;
    struct mip_pbuf_storage st = storage(COUNT, SIZE);
    struct mip_pbuf *p[COUNT + 1];
    unsigned i, j;
    memset(&pool, 0xA5, sizeof(pool));      /* nothing of it is read */
    CHECK_EQ(mip_pbuf_pool_init_storage(&pool, &st), MIP_OK);
    CHECK_EQ(pool.count, COUNT);
    CHECK_EQ(pool.size, SIZE);
    CHECK_EQ(pool.in_use, 0);
    for (i = 0; i < COUNT; i++) {
        p[i] = mip_pbuf_alloc(&pool, 100);
        CHECK(p[i] != NULL);
        /* each is a buffer of the caller's memory, SIZE bytes, its own */
        CHECK(p[i] == &hdr[i]);
        CHECK(p[i]->data == mem + i * SIZE);
        CHECK_EQ(mip_pbuf_tailroom(p[i]), SIZE - 100);
        CHECK(mip_pbuf_put(p[i], (uint16_t)(SIZE - 100)) != NULL);
        memset(p[i]->data, (int)i + 1, SIZE);
        CHECK_EQ(mip_pbuf_index(&pool, p[i]), i);
    }
    /* exhausted: the next allocation fails, and nothing was overwritten */
    p[COUNT] = mip_pbuf_alloc(&pool, 100);
    CHECK(p[COUNT] == NULL);
    CHECK_EQ(pool.in_use, COUNT);
    CHECK_EQ(pool.high_water, COUNT);
    for (i = 0; i < COUNT; i++)
        for (j = 0; j < SIZE; j++)
            CHECK_EQ(p[i]->data[j], i + 1);
    CHECK(mip_pbuf_at(&pool, COUNT) == NULL);
    /* a freed buffer is handed out again */
    mip_pbuf_free(&pool, p[2]);
    CHECK(mip_pbuf_alloc(&pool, 0) == p[2]);
    CHECK(mip_pbuf_alloc(&pool, 0) == NULL);
}

static void test_headroom_beyond_the_callers_size_fails(void)
{
    struct mip_pbuf_pool pool;
    struct mip_pbuf_storage st = storage(COUNT, SIZE);
    struct mip_pbuf *p;
    CHECK_EQ(mip_pbuf_pool_init_storage(&pool, &st), MIP_OK);
    CHECK(mip_pbuf_alloc(&pool, (uint16_t)(SIZE + 1)) == NULL);
    p = mip_pbuf_alloc(&pool, SIZE);
    CHECK(p != NULL);
    CHECK_EQ(mip_pbuf_tailroom(p), 0);
    CHECK(mip_pbuf_put(p, 1) == NULL);
}

static void test_storage_that_cannot_serve_is_refused(void)
{
    static const struct {
        const char *what;
        bool no_hdr, no_mem;
        unsigned count, size;
    } bad[] = {
        { "no headers", true, false, COUNT, SIZE },
        { "no memory", false, true, COUNT, SIZE },
        { "no more buffers than a neighbour's queue", false, false, MIP_NEIGH_QUEUE_MAX, SIZE },
        { "more than 250 buffers", false, false, 251, SIZE },
        { "a buffer short of a 1280-byte datagram and a link header", false, false, COUNT,
          MIP_PBUF_SIZE_MIN - 1u },
    };
    struct mip_pbuf_pool pool, before;
    struct mip_pbuf_storage st;
    unsigned k;
    CHECK_EQ(mip_pbuf_pool_init_storage(&pool, NULL), MIP_ERR_INVALID);
    st = storage(COUNT, SIZE);
    CHECK_EQ(mip_pbuf_pool_init_storage(&pool, &st), MIP_OK);
    for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        st = storage((uint8_t)bad[k].count, (uint16_t)bad[k].size);
        if (bad[k].no_hdr)
            st.hdr = NULL;
        if (bad[k].no_mem)
            st.mem = NULL;
        memcpy(&before, &pool, sizeof(pool));
        if (mip_pbuf_pool_init_storage(&pool, &st) != MIP_ERR_INVALID ||
            memcmp(&before, &pool, sizeof(pool)) != 0) {
            printf("  accepted, or changed the pool: %s\n", bad[k].what);
            CHECK(false);
        }
    }
    /* the smallest that serves */
    st = storage((uint8_t)(MIP_NEIGH_QUEUE_MAX + 1u), MIP_PBUF_SIZE_MIN);
    CHECK_EQ(mip_pbuf_pool_init_storage(&pool, &st), MIP_OK);
}

static void test_stack_on_callers_storage(void)
{
    struct mip_stack *s = calloc(1, sizeof(*s));
    struct mip_stack_config cfg;
    struct mip_pbuf_storage st = storage(COUNT, SIZE);
    uint8_t idx;
    unsigned i;
    memset(&cfg, 0, sizeof(cfg));
    cfg.pbufs = &st;
    CHECK_EQ(mip_stack_init(s, &cfg, 0), MIP_OK);
    CHECK(s->pool.buf == hdr);
    CHECK_EQ(s->pool.count, COUNT);
    for (i = 0; i < COUNT; i++)
        CHECK(mip_pbuf_alloc(&s->pool, 0) != NULL);
    CHECK(mip_pbuf_alloc(&s->pool, 0) == NULL);
    /* the raw-IP netif's MTU fits the caller's buffers, not MIP_PBUF_SIZE */
    CHECK_EQ(mip_netif_add_rawip(s, (uint16_t)(SIZE - MIP_LINK_HDR_MAX + 1u), NULL,
                                 &fixture_driver, NULL, &idx),
             MIP_ERR_INVALID);
    CHECK_EQ(mip_netif_add_rawip(s, (uint16_t)(SIZE - MIP_LINK_HDR_MAX), NULL,
                                 &fixture_driver, NULL, &idx),
             MIP_OK);
    /* storage the pool refuses fails the init by name */
    st.size = MIP_PBUF_SIZE_MIN - 1u;
    CHECK_EQ(mip_stack_init(s, &cfg, 0), MIP_ERR_INVALID);
    /* none: the stack's own pool (MIP_BUFS_OWN 1 in this build) */
    cfg.pbufs = NULL;
    CHECK_EQ(mip_stack_init(s, &cfg, 0), MIP_OK);
    CHECK_EQ(s->pool.count, MIP_PBUF_COUNT);
    CHECK_EQ(s->pool.size, MIP_PBUF_SIZE);
    free(s);
}

int main(void)
{
    RUN(test_pool_of_count_hands_out_exactly_count);
    RUN(test_headroom_beyond_the_callers_size_fails);
    RUN(test_storage_that_cannot_serve_is_refused);
    RUN(test_stack_on_callers_storage);
    return TESTING_DONE();
}
