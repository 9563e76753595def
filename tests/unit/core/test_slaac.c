/*
 * SLAAC (slaac.h, RFC 4862 s.5.5.3): the address from a /64 and the
 * radio netif's link-layer IID (short-address form, or EUI-64 without a
 * short address), the refusals, the two-hour rule, deprecation and expiry
 * driven by poll, lifetimes longer than half the clock's wrap and infinite
 * ones across the wrap, and the bounded table with its counter.
 */
#include "testing.h"
#include "moteip/stack.h"
#include "moteip/slaac.h"
#include <stdlib.h>
#include <string.h>

#if MIP_CONF_SLAAC && MIP_CONF_LOWPAN

static mip_status no_tx(void *ctx, const uint8_t *frame, size_t len)
{
    (void)ctx; (void)frame; (void)len;
    return MIP_OK;
}

static const struct mip_netif_driver drv = { no_tx, NULL, NULL };

static const uint8_t pfx[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1};
static const uint8_t ext[8] = {0x00, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04};

/* A stack with one IPHC radio netif (index 0) with short address `sa`. */
static struct mip_stack *mk(uint16_t sa, mip_time_t now)
{
    struct mip_stack *s = calloc(1, sizeof(*s));
    struct mip_lowpan_config c;
    uint8_t idx = 0xFF;
    mip_stack_init(s, NULL, now);
    memset(&c, 0, sizeof(c));
    c.mode = MIP_LOWPAN_IPHC;
    c.pan_id = 0xABCD;
    c.short_addr = sa;
    memcpy(c.ext_addr, ext, 8);
    c.frame_max = 127;
    CHECK_EQ(mip_netif_add_lowpan(s, &c, &drv, NULL, &idx), MIP_OK);
    CHECK_EQ(idx, 0);
    return s;
}

static bool has(struct mip_stack *s, const uint8_t a[16])
{
    struct mip_addr x;
    mip_addr_set6(&x, a);
    return mip_netif_has_addr(mip_netif_get(s, 0), &x);
}

static uint8_t used_of(struct mip_stack *s, const uint8_t a[16])
{
    const struct mip_netif *nif = mip_netif_get(s, 0);
    unsigned i;
    for (i = 0; i <= MIP_NETIF_ADDR6_MAX; i++)
        if (nif->addr6[i].used && memcmp(nif->addr6[i].addr, a, 16) == 0)
            return nif->addr6[i].used;
    return 0;
}

static void test_short_address_iid(void)
{
    struct mip_stack *s = mk(0x0005, 1000);
    static const uint8_t want[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1,
                                     0, 0, 0, 0xff, 0xfe, 0, 0, 5};
    uint8_t got[16];
    struct mip_addr other;
    uint8_t nif;
    struct mip_addr nh;
    CHECK_EQ(mip_slaac_address_of(s, 0, pfx, got), MIP_OK);
    CHECK_MEM(got, want, 16);
    CHECK_EQ(mip_slaac_configure(s, 0, pfx, 64, 3600, 1800, 1000), MIP_OK);
    CHECK(has(s, want));
    CHECK_EQ(mip_stack_stat(s, MIP_STAT_slaac_added), 1);
    /* No on-link route for the prefix (RFC 5942): another address of it
     * is not reachable through this netif by the route table. */
    memcpy(other.bytes, want, 16);
    other.family = MIP_AF_INET6;
    other.bytes[15] = 9;
    CHECK_EQ(mip_route_lookup(s, &other, &nif, &nh), MIP_ERR_NOROUTE);
    free(s);
}

static void test_eui64_iid(void)
{
    struct mip_stack *s = mk(0xFFFE, 1000);
    /* 00:12:4b:.. with the U/L bit flipped: 02:12:4b:... */
    static const uint8_t want[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1,
                                     0x02, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04};
    CHECK_EQ(mip_slaac_configure(s, 0, pfx, 64, 600, 600, 1000), MIP_OK);
    CHECK(has(s, want));
    free(s);
}

static void test_refusals(void)
{
    struct mip_stack *s = mk(0x0005, 1000);
    static const uint8_t ll[16] = {0xfe, 0x80};
    static const uint8_t ll2[16] = {0xfe, 0xbf, 0, 0, 0, 0, 0, 1};
    static const uint8_t mc[16] = {0xff, 0x02};
    CHECK_EQ(mip_slaac_configure(s, 0, ll, 64, 600, 600, 1000), MIP_ERR_INVALID);
    CHECK_EQ(mip_slaac_configure(s, 0, ll2, 64, 600, 600, 1000), MIP_ERR_INVALID);
    CHECK_EQ(mip_slaac_configure(s, 0, mc, 64, 600, 600, 1000), MIP_ERR_INVALID);
    CHECK_EQ(mip_slaac_configure(s, 0, pfx, 64, 600, 601, 1000), MIP_ERR_INVALID);
    CHECK_EQ(mip_slaac_configure(s, 0, pfx, 64, 600, MIP_SLAAC_INFINITE, 1000),
             MIP_ERR_INVALID);
    CHECK_EQ(mip_slaac_configure(s, 0, pfx, 48, 600, 600, 1000), MIP_ERR_UNSUPPORTED);
    CHECK_EQ(mip_slaac_configure(s, 0, pfx, 96, 600, 600, 1000), MIP_ERR_UNSUPPORTED);
    CHECK_EQ(mip_slaac_configure(s, 1, pfx, 64, 600, 600, 1000), MIP_ERR_INVALID);
    CHECK_EQ(mip_slaac_configure(s, 200, pfx, 64, 600, 600, 1000), MIP_ERR_INVALID);
    /* A valid lifetime of 0 for a new prefix: nothing is formed. */
    CHECK_EQ(mip_slaac_configure(s, 0, pfx, 64, 0, 0, 1000), MIP_OK);
    CHECK_EQ(mip_slaac_lifetimes(s, 0, pfx, 1000, NULL, NULL), MIP_ERR_NOTFOUND);
    CHECK_EQ(mip_stack_stat(s, MIP_STAT_slaac_added), 0);
    free(s);
}

/* Deprecation at the preferred lifetime, removal at the valid one, each
 * announced by poll's deadline; source selection avoids the deprecated
 * address while a preferred one exists. */
static void test_deprecate_then_expire(void)
{
    mip_time_t now = 5000;
    struct mip_stack *s = mk(0x0005, now);
    static const uint8_t p2[16] = {0xfd, 0, 0, 0, 0, 0, 0, 2};
    uint8_t a1[16], a2[16];
    uint32_t v, p, d;
    struct mip_addr dst, src;
    CHECK_EQ(mip_slaac_address_of(s, 0, pfx, a1), MIP_OK);
    CHECK_EQ(mip_slaac_address_of(s, 0, p2, a2), MIP_OK);
    CHECK_EQ(mip_slaac_configure(s, 0, pfx, 64, 100, 40, now), MIP_OK);
    CHECK_EQ(mip_slaac_configure(s, 0, p2, 64, 1000, 1000, now), MIP_OK);
    CHECK_EQ(mip_stack_poll(s, now), 40000u);
    /* a route so the source can be picked for a global destination */
    dst.family = MIP_AF_INET6;
    memcpy(dst.bytes, pfx, 16);
    dst.bytes[15] = 0x77;
    CHECK_EQ(mip_route_add(s, &dst, 0, NULL, 0), MIP_OK);
    CHECK_EQ(mip_ip_select_src(s, &dst, 0xFF, &src), MIP_OK);
    CHECK_MEM(src.bytes, a1, 16);   /* longest match, both preferred */
    now += 39999;
    CHECK_EQ(mip_stack_poll(s, now), 1u);
    CHECK_EQ(used_of(s, a1) & MIP_NETIF_ADDR_DEPRECATED, 0);
    now += 1;
    CHECK_EQ(mip_stack_poll(s, now), 60000u);
    CHECK(used_of(s, a1) & MIP_NETIF_ADDR_DEPRECATED);
    CHECK(has(s, a1));              /* still receives */
    CHECK_EQ(mip_ip_select_src(s, &dst, 0xFF, &src), MIP_OK);
    CHECK_MEM(src.bytes, a2, 16);   /* rule 3 before rule 8 */
    CHECK_EQ(mip_slaac_lifetimes(s, 0, pfx, now, &v, &p), MIP_OK);
    CHECK_EQ(v, 60);
    CHECK_EQ(p, 0);
    now += 59999;
    d = mip_stack_poll(s, now);
    CHECK_EQ(d, 1u);
    CHECK(has(s, a1));
    now += 1;
    (void)mip_stack_poll(s, now);
    CHECK(!has(s, a1));
    CHECK_EQ(mip_stack_stat(s, MIP_STAT_slaac_expired), 1);
    CHECK_EQ(mip_slaac_lifetimes(s, 0, pfx, now, NULL, NULL), MIP_ERR_NOTFOUND);
    /* a refresh before the end revives preference */
    CHECK_EQ(mip_slaac_configure(s, 0, p2, 64, 1000, 0, now), MIP_OK);
    CHECK(used_of(s, a2) & MIP_NETIF_ADDR_DEPRECATED);
    CHECK_EQ(mip_slaac_configure(s, 0, p2, 64, 1000, 500, now), MIP_OK);
    CHECK_EQ(used_of(s, a2) & MIP_NETIF_ADDR_DEPRECATED, 0);
    free(s);
}

struct two_hour_row {
    uint32_t remaining;     /* valid lifetime set first */
    uint32_t advertised;
    uint32_t want;
};

/* RFC 4862 s.5.5.3 e), one row per branch. */
static void test_two_hour_rule(void)
{
    static const struct two_hour_row rows[] = {
        { 36000, 600, 7200 },                   /* 3): cut to two hours, no lower */
        { 3600, 600, 3600 },                    /* 2): at most 2 h left: kept */
        { 7200, 0, 7200 },                      /* 2): even for 0 */
        { 36000, 10800, 10800 },                /* 1): above two hours */
        { 600, 1200, 1200 },                    /* 1): above what is left */
        { 36000, 7200, 7200 },                  /* 3): exactly two hours */
        { MIP_SLAAC_INFINITE, 600, 7200 },      /* 3) from infinity */
        { MIP_SLAAC_INFINITE, MIP_SLAAC_INFINITE, MIP_SLAAC_INFINITE },
        { 600, MIP_SLAAC_INFINITE, MIP_SLAAC_INFINITE },
    };
    unsigned i;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct mip_stack *s = mk(0x0005, 0);
        uint32_t v = 0, p = 0;
        CHECK_EQ(mip_slaac_configure(s, 0, pfx, 64, rows[i].remaining, 0, 0), MIP_OK);
        CHECK_EQ(mip_slaac_configure(s, 0, pfx, 64, rows[i].advertised, 0, 0), MIP_OK);
        CHECK_EQ(mip_slaac_lifetimes(s, 0, pfx, 0, &v, &p), MIP_OK);
        if (v != rows[i].want)
            fprintf(stderr, "row %u\n", i);
        CHECK_EQ(v, rows[i].want);
        free(s);
    }
}

/* Runs poll as a tickless caller would (sleep for the returned delay)
 * until `until`; returns how many polls it took. */
static unsigned run_until(struct mip_stack *s, mip_time_t *now, uint64_t span_ms)
{
    uint64_t done = 0;
    unsigned polls = 0;
    while (done < span_ms) {
        uint32_t d = mip_stack_poll(s, *now);
        uint64_t step = d == MIP_POLL_IDLE ? span_ms - done : d;
        CHECK(d <= MIP_SLAAC_REFRESH_MS || d == MIP_POLL_IDLE);
        if (step > span_ms - done)
            step = span_ms - done;
        if (step == 0)
            step = 1;
        *now += (uint32_t)step;
        done += step;
        polls++;
    }
    (void)mip_stack_poll(s, *now);
    return polls;
}

/* A 30-day valid lifetime (longer than half the ms clock's wrap) started
 * just before the clock wraps ends after 30 days, not before; an infinite
 * one is still there after 60 days (more than a whole wrap). */
static void test_long_lifetimes_across_wrap(void)
{
    mip_time_t now = 0xFFFF0000u;
    struct mip_stack *s = mk(0x0005, now);
    static const uint8_t p2[16] = {0xfd, 0, 0, 0, 0, 0, 0, 2};
    uint8_t a1[16], a2[16];
    uint32_t v;
    const uint32_t thirty_days = 30u * 86400u;
    CHECK_EQ(mip_slaac_address_of(s, 0, pfx, a1), MIP_OK);
    CHECK_EQ(mip_slaac_address_of(s, 0, p2, a2), MIP_OK);
    CHECK_EQ(mip_slaac_configure(s, 0, pfx, 64, thirty_days, thirty_days, now), MIP_OK);
    CHECK_EQ(mip_slaac_configure(s, 0, p2, 64, MIP_SLAAC_INFINITE, MIP_SLAAC_INFINITE, now),
             MIP_OK);
    (void)run_until(s, &now, (uint64_t)thirty_days * 1000u - 1000u);
    CHECK(has(s, a1));
    CHECK_EQ(mip_slaac_lifetimes(s, 0, pfx, now, &v, NULL), MIP_OK);
    CHECK_EQ(v, 1);
    (void)run_until(s, &now, 1000u);
    CHECK(!has(s, a1));
    (void)run_until(s, &now, 30ull * 86400u * 1000u);
    CHECK(has(s, a2));
    CHECK_EQ(mip_slaac_lifetimes(s, 0, p2, now, &v, NULL), MIP_OK);
    CHECK_EQ(v, MIP_SLAAC_INFINITE);
    CHECK_EQ(used_of(s, a2) & MIP_NETIF_ADDR_DEPRECATED, 0);
    free(s);
}

/* Sub-second remainders are carried, not lost, when configure and poll
 * come at odd times. */
static void test_carry(void)
{
    mip_time_t now = 0;
    struct mip_stack *s = mk(0x0005, now);
    uint32_t v;
    unsigned i;
    CHECK_EQ(mip_slaac_configure(s, 0, pfx, 64, 10, 10, now), MIP_OK);
    for (i = 0; i < 20; i++) {
        now += 499;
        (void)mip_stack_poll(s, now);
    }
    /* 9.98 s passed: 1 s left (0.98 s carried) */
    CHECK_EQ(mip_slaac_lifetimes(s, 0, pfx, now, &v, NULL), MIP_OK);
    CHECK_EQ(v, 1);
    CHECK_EQ(mip_stack_poll(s, now), 20u);
    free(s);
}

static void test_table_full(void)
{
    struct mip_stack *s = mk(0x0005, 0);
    unsigned limit = MIP_SLAAC_MAX < MIP_NETIF_ADDR6_MAX ? MIP_SLAAC_MAX : MIP_NETIF_ADDR6_MAX;
    unsigned i;
    uint8_t p[16];
    memcpy(p, pfx, 16);
    for (i = 0; i < limit; i++) {
        p[7] = (uint8_t)(0x10 + i);
        CHECK_EQ(mip_slaac_configure(s, 0, p, 64, 600, 600, 0), MIP_OK);
    }
    p[7] = 0x99;
    CHECK_EQ(mip_slaac_configure(s, 0, p, 64, 600, 600, 0), MIP_ERR_NOBUFS);
    CHECK_EQ(mip_stack_stat(s, MIP_STAT_slaac_full), 1);
    /* a refresh of one already there still works when full */
    p[7] = 0x10;
    CHECK_EQ(mip_slaac_configure(s, 0, p, 64, 900, 900, 0), MIP_OK);
    /* removing one makes room */
    CHECK_EQ(mip_slaac_remove(s, 0, p), MIP_OK);
    CHECK_EQ(mip_slaac_remove(s, 0, p), MIP_ERR_NOTFOUND);
    p[7] = 0x99;
    CHECK_EQ(mip_slaac_configure(s, 0, p, 64, 600, 600, 0), MIP_OK);
    free(s);
}

/* An address configured by hand is left as it is. */
static void test_static_address_untouched(void)
{
    struct mip_stack *s = mk(0x0005, 0);
    struct mip_addr a;
    CHECK_EQ(mip_slaac_address_of(s, 0, pfx, a.bytes), MIP_OK);
    a.family = MIP_AF_INET6;
    CHECK_EQ(mip_netif_add_addr(s, 0, &a, 64), MIP_OK);
    CHECK_EQ(mip_slaac_configure(s, 0, pfx, 64, 10, 10, 0), MIP_OK);
    CHECK_EQ(mip_slaac_lifetimes(s, 0, pfx, 0, NULL, NULL), MIP_ERR_NOTFOUND);
    CHECK_EQ(mip_stack_poll(s, 20000), MIP_POLL_IDLE);
    CHECK(has(s, a.bytes));
    free(s);
}

int main(void)
{
    RUN(test_short_address_iid);
    RUN(test_eui64_iid);
    RUN(test_refusals);
    RUN(test_deprecate_then_expire);
    RUN(test_two_hour_rule);
    RUN(test_long_lifetimes_across_wrap);
    RUN(test_carry);
    RUN(test_table_full);
    RUN(test_static_address_untouched);
    return TESTING_DONE();
}

#else
int main(void)
{
    return 77;
}
#endif
