/* The overlay's messages (wire/overlay.h): byte layout against hand-written
 * vectors, emit/parse round trips, every refusal with its reason (the
 * parser and the emitter refuse the same field values), and aggregation. */
#include <string.h>

#include "testing.h"
#include "moteip/wire/overlay.h"

static const uint8_t interest_bytes[MIP_OVL_INTEREST_LEN] = {
    0x11, 7, 0x12, 0x34, 0x00, 0x05, 2, 4, 0x01, 0x00, 0x00, 0xfa,
    0x00, 0x00, 0x27, 0x10, 0x00, 0x00, 0x03, 0xe8, 0x00, 0x01, 0xd4, 0xc0,
};
static const uint8_t data_bytes[MIP_OVL_DATA_LEN] = {
    0x12, 7, 0x12, 0x34, 0x01, 0x00, 0x00, 0x03, 0xff, 0xf6, 0x00, 0x14, 0x00, 0x00, 0x00, 0x0f,
};

static struct mip_ovl_interest interest_fields(void)
{
    struct mip_ovl_interest i;
    memset(&i, 0, sizeof(i));
    i.attr = 7;
    i.sink = 0x1234;
    i.seq = 5;
    i.hops = 2;
    i.depth = 4;
    i.epoch = 256;
    i.slot_ms = 250;
    i.interval_ms = 10000;
    i.due_ms = 1000;
    i.lifetime_ms = 120000;
    return i;
}

static struct mip_ovl_data data_fields(void)
{
    struct mip_ovl_data d;
    memset(&d, 0, sizeof(d));
    d.attr = 7;
    d.sink = 0x1234;
    d.epoch = 256;
    d.agg.count = 3;
    d.agg.min = -10;
    d.agg.max = 20;
    d.agg.sum = 15;
    return d;
}

static void test_interest_bytes_and_round_trip(void)
{
    struct mip_ovl_interest i = interest_fields(), back;
    uint8_t buf[64];
    size_t n = 0;
    uint8_t t = 0;
    CHECK_EQ(mip_ovl_interest_emit(&i, buf, sizeof(buf), &n), MIP_OK);
    CHECK_EQ(n, MIP_OVL_INTEREST_LEN);
    CHECK_MEM(buf, interest_bytes, n);
    CHECK_EQ(mip_ovl_type(buf, n, &t), MIP_OK);
    CHECK_EQ(t, MIP_OVL_TYPE_INTEREST);
    CHECK_EQ(mip_ovl_interest_parse(interest_bytes, n, &back), MIP_OK);
    CHECK(memcmp(&back, &i, sizeof(i)) == 0);
}

static void test_data_bytes_and_round_trip(void)
{
    struct mip_ovl_data d = data_fields(), back;
    uint8_t buf[64];
    size_t n = 0;
    CHECK_EQ(mip_ovl_data_emit(&d, buf, sizeof(buf), &n), MIP_OK);
    CHECK_EQ(n, MIP_OVL_DATA_LEN);
    CHECK_MEM(buf, data_bytes, n);
    CHECK_EQ(mip_ovl_data_parse(data_bytes, n, &back), MIP_OK);
    CHECK(memcmp(&back, &d, sizeof(d)) == 0);
}

/* Every shorter prefix is TRUNCATED, one byte more MALFORMED, no room
 * NOSPACE. */
static void test_lengths(void)
{
    uint8_t buf[64];
    struct mip_ovl_interest i = interest_fields(), io;
    struct mip_ovl_data d = data_fields(), dout;
    size_t k, n;
    for (k = 1; k < MIP_OVL_INTEREST_LEN; k++)
        CHECK_EQ(mip_ovl_interest_parse(interest_bytes, k, &io), MIP_ERR_TRUNCATED);
    for (k = 1; k < MIP_OVL_DATA_LEN; k++)
        CHECK_EQ(mip_ovl_data_parse(data_bytes, k, &dout), MIP_ERR_TRUNCATED);
    CHECK_EQ(mip_ovl_interest_parse(interest_bytes, 0, &io), MIP_ERR_TRUNCATED);
    memcpy(buf, interest_bytes, sizeof(interest_bytes));
    CHECK_EQ(mip_ovl_interest_parse(buf, sizeof(interest_bytes) + 1u, &io), MIP_ERR_MALFORMED);
    memcpy(buf, data_bytes, sizeof(data_bytes));
    CHECK_EQ(mip_ovl_data_parse(buf, sizeof(data_bytes) + 1u, &dout), MIP_ERR_MALFORMED);
    CHECK_EQ(mip_ovl_interest_emit(&i, buf, MIP_OVL_INTEREST_LEN - 1u, &n), MIP_ERR_NOSPACE);
    CHECK_EQ(n, 0u);
    CHECK_EQ(mip_ovl_data_emit(&d, buf, MIP_OVL_DATA_LEN - 1u, &n), MIP_ERR_NOSPACE);
}

static void test_version_and_type(void)
{
    uint8_t buf[MIP_OVL_INTEREST_LEN];
    struct mip_ovl_interest io;
    struct mip_ovl_data dout;
    uint8_t t;
    memcpy(buf, interest_bytes, sizeof(buf));
    buf[0] = 0x21;
    CHECK_EQ(mip_ovl_type(buf, sizeof(buf), &t), MIP_ERR_UNSUPPORTED);
    CHECK_EQ(mip_ovl_interest_parse(buf, sizeof(buf), &io), MIP_ERR_UNSUPPORTED);
    buf[0] = 0x13;
    CHECK_EQ(mip_ovl_type(buf, sizeof(buf), &t), MIP_ERR_MALFORMED);
    /* an interest is not data, and the reverse */
    CHECK_EQ(mip_ovl_data_parse(interest_bytes, MIP_OVL_DATA_LEN, &dout), MIP_ERR_MALFORMED);
    CHECK_EQ(mip_ovl_interest_parse(data_bytes, MIP_OVL_DATA_LEN, &io), MIP_ERR_MALFORMED);
}

/* One row per rule of the INTEREST format: the emitter refuses the fields
 * (INVALID) and the parser refuses their bytes (MALFORMED). */
static void test_interest_rules_both_ways(void)
{
    static const struct { const char *what; int field; uint32_t v; } rows[] = {
        { "depth 0", 0, 0 },
        { "depth above the max", 0, MIP_OVL_DEPTH_MAX + 1u },
        { "slot 0", 1, 0 },
        { "interval 0", 2, 0 },
        { "interval above an hour", 2, MIP_OVL_INTERVAL_MAX_MS + 1u },
        { "depth * slot not under the interval", 2, 1000 },
        { "due not under the interval", 3, 10000 },
        { "lifetime 0", 4, 0 },
        { "lifetime above a day", 4, MIP_OVL_LIFETIME_MAX_MS + 1u },
    };
    size_t r, n;
    for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
        struct mip_ovl_interest i = interest_fields(), io;
        uint8_t buf[MIP_OVL_INTEREST_LEN];
        memcpy(buf, interest_bytes, sizeof(buf));
        switch (rows[r].field) {
        case 0: i.depth = (uint8_t)rows[r].v; buf[7] = (uint8_t)rows[r].v; break;
        case 1: i.slot_ms = (uint16_t)rows[r].v; buf[10] = 0; buf[11] = (uint8_t)rows[r].v; break;
        case 2:
            i.interval_ms = rows[r].v;
            buf[12] = (uint8_t)(rows[r].v >> 24); buf[13] = (uint8_t)(rows[r].v >> 16);
            buf[14] = (uint8_t)(rows[r].v >> 8); buf[15] = (uint8_t)rows[r].v;
            break;
        case 3:
            i.due_ms = rows[r].v;
            buf[16] = (uint8_t)(rows[r].v >> 24); buf[17] = (uint8_t)(rows[r].v >> 16);
            buf[18] = (uint8_t)(rows[r].v >> 8); buf[19] = (uint8_t)rows[r].v;
            break;
        default:
            i.lifetime_ms = rows[r].v;
            buf[20] = (uint8_t)(rows[r].v >> 24); buf[21] = (uint8_t)(rows[r].v >> 16);
            buf[22] = (uint8_t)(rows[r].v >> 8); buf[23] = (uint8_t)rows[r].v;
            break;
        }
        if (mip_ovl_interest_emit(&i, buf + 0, 0, &n) != MIP_ERR_INVALID ||
            mip_ovl_interest_parse(buf, sizeof(buf), &io) != MIP_ERR_MALFORMED)
            fprintf(stderr, "row: %s\n", rows[r].what);
        CHECK_EQ(mip_ovl_interest_emit(&i, buf + 0, 0, &n), MIP_ERR_INVALID);
        CHECK_EQ(mip_ovl_interest_parse(buf, sizeof(buf), &io), MIP_ERR_MALFORMED);
    }
}

static void test_data_rules_both_ways(void)
{
    static const struct { const char *what; uint16_t count; int16_t min, max; int32_t sum; } rows[] = {
        { "count 0", 0, 0, 0, 0 },
        { "min above max", 2, 5, 4, 9 },
        { "sum under count * min", 2, 1, 9, 1 },
        { "sum above count * max", 2, 1, 9, 19 },
    };
    size_t r, n;
    for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
        struct mip_ovl_data d = data_fields(), dout;
        uint8_t buf[MIP_OVL_DATA_LEN];
        d.agg.count = rows[r].count;
        d.agg.min = rows[r].min;
        d.agg.max = rows[r].max;
        d.agg.sum = rows[r].sum;
        CHECK_EQ(mip_ovl_data_emit(&d, buf, sizeof(buf), &n), MIP_ERR_INVALID);
        memcpy(buf, data_bytes, sizeof(buf));
        buf[6] = (uint8_t)(rows[r].count >> 8); buf[7] = (uint8_t)rows[r].count;
        buf[8] = (uint8_t)((uint16_t)rows[r].min >> 8); buf[9] = (uint8_t)rows[r].min;
        buf[10] = (uint8_t)((uint16_t)rows[r].max >> 8); buf[11] = (uint8_t)rows[r].max;
        buf[12] = (uint8_t)((uint32_t)rows[r].sum >> 24); buf[13] = (uint8_t)((uint32_t)rows[r].sum >> 16);
        buf[14] = (uint8_t)((uint32_t)rows[r].sum >> 8); buf[15] = (uint8_t)rows[r].sum;
        if (mip_ovl_data_parse(buf, sizeof(buf), &dout) != MIP_ERR_MALFORMED)
            fprintf(stderr, "row: %s\n", rows[r].what);
        CHECK_EQ(mip_ovl_data_parse(buf, sizeof(buf), &dout), MIP_ERR_MALFORMED);
    }
}

static void test_aggregation(void)
{
    struct mip_ovl_agg a = { 0, 0, 0, 0 }, b = { 0, 0, 0, 0 }, big;
    CHECK(mip_ovl_agg_add(&a, 5));
    CHECK(mip_ovl_agg_add(&a, -3));
    CHECK(mip_ovl_agg_add(&b, 40));
    CHECK(mip_ovl_agg_merge(&a, &b));
    CHECK_EQ(a.count, 3);
    CHECK_EQ(a.min, -3);
    CHECK_EQ(a.max, 40);
    CHECK_EQ(a.sum, 42);
    CHECK(mip_ovl_agg_valid(&a));
    /* the extremes: 65535 readings of -32768 fit the sum; one more does not fit the count */
    big.count = 65535u;
    big.min = INT16_MIN;
    big.max = INT16_MIN;
    big.sum = 65535 * (int32_t)INT16_MIN;
    CHECK(mip_ovl_agg_valid(&big));
    CHECK(!mip_ovl_agg_add(&big, 0));
    CHECK_EQ(big.count, 65535u);
    CHECK_EQ(big.max, INT16_MIN);
}

int main(void)
{
    RUN(test_interest_bytes_and_round_trip);
    RUN(test_data_bytes_and_round_trip);
    RUN(test_lengths);
    RUN(test_version_and_type);
    RUN(test_interest_rules_both_ways);
    RUN(test_data_rules_both_ways);
    RUN(test_aggregation);
    return TESTING_DONE();
}
