/* Route table: longest-prefix match, replace, remove, NOROUTE, family
 * separation, stored prefixes with host bits cleared, bounds. */
#include "fixture.h"

static struct mip_addr A(const char *t) { return fixture_addr(t); }

/* A fixture with an empty route table (the connected routes of its
 * addresses removed), so tests control every entry, even in the tiny
 * profile's 4-entry table. */
static void init_empty(struct fixture *f)
{
    struct mip_addr a;
    unsigned i;
    fixture_init(f, false);
#if MIP_CONF_IPV4
    a = A("192.0.2.0");
    CHECK_EQ(mip_route_remove(f->s, &a, 24), MIP_OK);
#endif
    a = A("fd00::");
    CHECK_EQ(mip_route_remove(f->s, &a, 64), MIP_OK);
    a = A("fe80::");
    CHECK_EQ(mip_route_remove(f->s, &a, 64), MIP_OK);
    for (i = 0; i < MIP_ROUTE_MAX; i++)
        CHECK_EQ(f->s->route[i].prefix.family, MIP_AF_NONE);
}

static unsigned routes_used(const struct fixture *f)
{
    unsigned i, n = 0;
    for (i = 0; i < MIP_ROUTE_MAX; i++)
        n += f->s->route[i].prefix.family != MIP_AF_NONE;
    return n;
}

/* Looks up dst; returns the status and the next hop as text in nh. */
static mip_status lookup(struct fixture *f, const char *dst, uint8_t *netif, char *nh)
{
    struct mip_addr d = A(dst), n;
    mip_status st;
    memset(&n, 0, sizeof(n));
    st = mip_route_lookup(f->s, &d, netif, &n);
    if (st == MIP_OK)
        CHECK_EQ(mip_addr_format(&n, nh, MIP_ADDR_TEXT_MAX), MIP_OK);
    else
        nh[0] = '\0';
    return st;
}

/* Longest-prefix match over one family: `routes` added (out of order, so
 * the scan order cannot be what picks the winner; gw NULL: on-link), then
 * every probe finds its next hop, on netif 0. */
struct lpm_route {
    const char *prefix;
    uint8_t len;
    const char *gw;
};

struct lpm_probe {
    const char *dst, *nh;
};

static void check_lpm(const struct lpm_route *routes, size_t nr, const struct lpm_probe *probes,
                      size_t np)
{
    struct fixture f;
    char nh[MIP_ADDR_TEXT_MAX];
    size_t i;
    init_empty(&f);
    for (i = 0; i < nr; i++) {
        struct mip_addr p = A(routes[i].prefix), g;
        if (routes[i].gw != NULL)
            g = A(routes[i].gw);
        CHECK_EQ(mip_route_add(f.s, &p, routes[i].len, routes[i].gw != NULL ? &g : NULL, 0),
                 MIP_OK);
    }
    for (i = 0; i < np; i++) {
        uint8_t nif = 0xEE;
        CHECK_EQ(lookup(&f, probes[i].dst, &nif, nh), MIP_OK);
        if (strcmp(nh, probes[i].nh) != 0)
            fprintf(stderr, "%s: next hop %s, not %s\n", probes[i].dst, nh, probes[i].nh);
        CHECK(strcmp(nh, probes[i].nh) == 0);
        CHECK_EQ(nif, 0);
    }
    fixture_free(&f);
}

#if MIP_CONF_IPV4
static void test_longest_prefix_match_ipv4(void)
{
    static const struct lpm_route routes[] = {
        {"172.16.5.0", 24, "10.0.0.24"},
        {"0.0.0.0", 0, "10.0.0.1"},
        {"172.16.5.9", 32, NULL},
        {"172.16.0.0", 16, "10.0.0.16"},
    };
    static const struct lpm_probe probes[] = {
        {"172.16.5.9", "172.16.5.9"},           /* /32 on-link */
        {"172.16.5.8", "10.0.0.24"},            /* /24 */
        {"172.16.5.255", "10.0.0.24"},
        {"172.16.4.9", "10.0.0.16"},            /* /16 */
        {"172.16.255.255", "10.0.0.16"},
        {"172.17.5.9", "10.0.0.1"},             /* /0 */
        {"255.255.255.255", "10.0.0.1"},
    };
    check_lpm(routes, sizeof(routes) / sizeof(routes[0]), probes,
              sizeof(probes) / sizeof(probes[0]));
}

static void test_longest_prefix_match_picks_netif(void)
{
#if MIP_NETIF_MAX >= 2
    struct fixture f;
    struct mip_addr p;
    char nh[MIP_ADDR_TEXT_MAX];
    uint8_t idx, nif = 0xEE;
    init_empty(&f);
    f.port[1].f = &f;
    f.port[1].netif = 1;
    CHECK_EQ(mip_netif_add_rawip(f.s, 1280, NULL, &fixture_driver, &f.port[1], &idx), MIP_OK);
    CHECK_EQ(idx, 1);
    p = A("10.0.0.0");
    CHECK_EQ(mip_route_add(f.s, &p, 8, NULL, 0), MIP_OK);
    p = A("10.1.0.0");
    CHECK_EQ(mip_route_add(f.s, &p, 16, NULL, 1), MIP_OK);
    CHECK_EQ(lookup(&f, "10.1.2.3", &nif, nh), MIP_OK);
    CHECK_EQ(nif, 1);
    CHECK(strcmp(nh, "10.1.2.3") == 0);
    CHECK_EQ(lookup(&f, "10.2.2.3", &nif, nh), MIP_OK);
    CHECK_EQ(nif, 0);
    fixture_free(&f);
#endif
}
#endif

static void test_longest_prefix_match_ipv6(void)
{
    static const struct lpm_route routes[] = {
        {"2001:db8:1::", 48, "fe80::48"},
        {"::", 0, "fe80::1"},
        {"2001:db8:1::9", 128, NULL},
        {"2001:db8::", 32, "fe80::32"},
    };
    static const struct lpm_probe probes[] = {
        {"2001:db8:1::9", "2001:db8:1::9"},     /* /128 on-link */
        {"2001:db8:1::8", "fe80::48"},          /* /48 */
        {"2001:db8:2::9", "fe80::32"},          /* /32 */
        {"2001:db9::9", "fe80::1"},             /* /0 */
    };
    check_lpm(routes, sizeof(routes) / sizeof(routes[0]), probes,
              sizeof(probes) / sizeof(probes[0]));
}

static void test_prefix_length_not_on_byte_boundary(void)
{
    struct fixture f;
    struct mip_addr p, g = A("fe80::77");
    char nh[MIP_ADDR_TEXT_MAX];
    uint8_t nif;
    init_empty(&f);
    p = A("2001:db8:ab80::");                   /* /41: ab80..abff in the third word */
    CHECK_EQ(mip_route_add(f.s, &p, 41, &g, 0), MIP_OK);
    CHECK_EQ(lookup(&f, "2001:db8:abff::1", &nif, nh), MIP_OK);
    CHECK_EQ(lookup(&f, "2001:db8:ab80::1", &nif, nh), MIP_OK);
    CHECK_EQ(lookup(&f, "2001:db8:ab7f::1", &nif, nh), MIP_ERR_NOROUTE);
    CHECK_EQ(lookup(&f, "2001:db8:2b80::1", &nif, nh), MIP_ERR_NOROUTE);
    fixture_free(&f);
}

static void test_equal_prefix_replaces_entry(void)
{
    struct fixture f;
    struct mip_addr p, g1 = A("fe80::1"), g2 = A("fe80::2");
    char nh[MIP_ADDR_TEXT_MAX];
    uint8_t nif;
    init_empty(&f);
    p = A("2001:db8::");
    CHECK_EQ(mip_route_add(f.s, &p, 32, &g1, 0), MIP_OK);
    CHECK_EQ(routes_used(&f), 1);
    /* the same prefix written with host bits set is the same route */
    p = A("2001:db8::5");
    CHECK_EQ(mip_route_add(f.s, &p, 32, &g2, 0), MIP_OK);
    CHECK_EQ(routes_used(&f), 1);
    CHECK_EQ(lookup(&f, "2001:db8::9", &nif, nh), MIP_OK);
    CHECK(strcmp(nh, "fe80::2") == 0);
    /* replacing with an on-link route drops the gateway */
    CHECK_EQ(mip_route_add(f.s, &p, 32, NULL, 0), MIP_OK);
    CHECK_EQ(routes_used(&f), 1);
    CHECK_EQ(lookup(&f, "2001:db8::9", &nif, nh), MIP_OK);
    CHECK(strcmp(nh, "2001:db8::9") == 0);
    /* a different length is a different route */
    p = A("2001:db8::");
    CHECK_EQ(mip_route_add(f.s, &p, 33, &g1, 0), MIP_OK);
    CHECK_EQ(routes_used(&f), 2);
    fixture_free(&f);
}

static void test_remove_and_notfound(void)
{
    struct fixture f;
    struct mip_addr p, g = A("fe80::1");
    char nh[MIP_ADDR_TEXT_MAX];
    uint8_t nif;
    init_empty(&f);
    p = A("2001:db8::");
    CHECK_EQ(mip_route_add(f.s, &p, 32, &g, 0), MIP_OK);
    p = A("::");
    CHECK_EQ(mip_route_add(f.s, &p, 0, &g, 0), MIP_OK);
    p = A("2001:db8::");
    CHECK_EQ(mip_route_remove(f.s, &p, 48), MIP_ERR_NOTFOUND);   /* length must match */
    CHECK_EQ(routes_used(&f), 2);
    p = A("2001:db8::ffff");                   /* host bits of the argument do not matter */
    CHECK_EQ(mip_route_remove(f.s, &p, 32), MIP_OK);
    CHECK_EQ(routes_used(&f), 1);
    CHECK_EQ(mip_route_remove(f.s, &p, 32), MIP_ERR_NOTFOUND);
    /* the default route still answers */
    CHECK_EQ(lookup(&f, "2001:db8::9", &nif, nh), MIP_OK);
    p = A("::");
    CHECK_EQ(mip_route_remove(f.s, &p, 0), MIP_OK);
    CHECK_EQ(lookup(&f, "2001:db8::9", &nif, nh), MIP_ERR_NOROUTE);
    CHECK_EQ(routes_used(&f), 0);
    fixture_free(&f);
}

static void test_noroute_on_empty_table_and_miss(void)
{
    struct fixture f;
    struct mip_addr p;
    char nh[MIP_ADDR_TEXT_MAX];
    uint8_t nif = 0xEE;
    init_empty(&f);
    CHECK_EQ(lookup(&f, "fd00::1", &nif, nh), MIP_ERR_NOROUTE);
    CHECK_EQ(nif, 0xEE);                       /* untouched on NOROUTE */
    p = A("fd00::");
    CHECK_EQ(mip_route_add(f.s, &p, 64, NULL, 0), MIP_OK);
    CHECK_EQ(lookup(&f, "fd00:0:0:1::1", &nif, nh), MIP_ERR_NOROUTE);
    CHECK_EQ(lookup(&f, "fd00::1", &nif, nh), MIP_OK);
    fixture_free(&f);
}

static void test_families_are_separate(void)
{
    struct fixture f;
    struct mip_addr p, g6 = A("fe80::1");
    char nh[MIP_ADDR_TEXT_MAX];
    uint8_t nif;
    init_empty(&f);
    /* ::/0 must not match IPv4 destinations, whose bytes are a prefix of
     * zeros just like it */
    p = A("::");
    CHECK_EQ(mip_route_add(f.s, &p, 0, &g6, 0), MIP_OK);
    CHECK_EQ(lookup(&f, "0.0.0.0", &nif, nh), MIP_ERR_NOROUTE);
    CHECK_EQ(lookup(&f, "192.0.2.1", &nif, nh), MIP_ERR_NOROUTE);
#if MIP_CONF_IPV4
    {
        struct mip_addr g4 = A("192.0.2.1");
        CHECK_EQ(mip_route_remove(f.s, &p, 0), MIP_OK);
        p = A("0.0.0.0");
        CHECK_EQ(mip_route_add(f.s, &p, 0, &g4, 0), MIP_OK);
        CHECK_EQ(lookup(&f, "::", &nif, nh), MIP_ERR_NOROUTE);
        CHECK_EQ(lookup(&f, "fd00::1", &nif, nh), MIP_ERR_NOROUTE);
        CHECK_EQ(lookup(&f, "10.9.9.9", &nif, nh), MIP_OK);
        CHECK(strcmp(nh, "192.0.2.1") == 0);
        /* an IPv4 /0 and an IPv6 /0 are different routes */
        p = A("::");
        CHECK_EQ(mip_route_add(f.s, &p, 0, &g6, 0), MIP_OK);
        CHECK_EQ(routes_used(&f), 2);
        CHECK_EQ(lookup(&f, "fd00::1", &nif, nh), MIP_OK);
        CHECK(strcmp(nh, "fe80::1") == 0);
        p = A("0.0.0.0");
        CHECK_EQ(mip_route_remove(f.s, &p, 0), MIP_OK);
        CHECK_EQ(routes_used(&f), 1);
        CHECK_EQ(lookup(&f, "fd00::1", &nif, nh), MIP_OK);
    }
#endif
    fixture_free(&f);
}

static void test_stored_prefix_has_host_bits_cleared(void)
{
    static const uint8_t want[16] = {0x20, 0x01, 0x0d, 0xb8, 0xab, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    struct fixture f;
    struct mip_addr p;
    unsigned i;
    init_empty(&f);
    p = A("2001:db8:abcd:ef01::1234");
    CHECK_EQ(mip_route_add(f.s, &p, 41, NULL, 0), MIP_OK);
    for (i = 0; i < MIP_ROUTE_MAX; i++) {
        if (f.s->route[i].prefix.family == MIP_AF_NONE)
            continue;
        CHECK_EQ(f.s->route[i].prefix_len, 41);
        CHECK_MEM(f.s->route[i].prefix.bytes, want, 16);
        CHECK_EQ(f.s->route[i].gateway.family, MIP_AF_NONE);
    }
#if MIP_CONF_IPV4
    {
        static const uint8_t want4[4] = {10, 1, 0, 0};
        p = A("10.1.2.3");
        CHECK_EQ(mip_route_add(f.s, &p, 16, NULL, 0), MIP_OK);
        for (i = 0; i < MIP_ROUTE_MAX; i++)
            if (f.s->route[i].prefix.family == MIP_AF_INET)
                CHECK_MEM(f.s->route[i].prefix.bytes, want4, 4);
    }
#endif
    fixture_free(&f);
}

static void test_add_rejects_invalid_arguments(void)
{
    struct fixture f;
    struct mip_addr p6 = A("2001:db8::"), g6 = A("fe80::1"), none;
    init_empty(&f);
    memset(&none, 0, sizeof(none));
    CHECK_EQ(mip_route_add(f.s, &p6, 129, NULL, 0), MIP_ERR_INVALID);
    CHECK_EQ(mip_route_add(f.s, &none, 0, NULL, 0), MIP_ERR_INVALID);
    CHECK_EQ(mip_route_add(f.s, &p6, 32, NULL, MIP_NETIF_MAX), MIP_ERR_INVALID);
    CHECK_EQ(mip_route_add(f.s, &p6, 32, NULL, MIP_NETIF_ANY), MIP_ERR_INVALID);
#if MIP_NETIF_MAX >= 2
    CHECK_EQ(mip_route_add(f.s, &p6, 32, NULL, 1), MIP_ERR_INVALID);    /* no netif 1 */
#endif
#if MIP_CONF_IPV4
    {
        struct mip_addr p4 = A("10.0.0.0"), g4 = A("10.0.0.1");
        CHECK_EQ(mip_route_add(f.s, &p4, 33, NULL, 0), MIP_ERR_INVALID);
        CHECK_EQ(mip_route_add(f.s, &p4, 8, &g6, 0), MIP_ERR_INVALID);  /* mixed families */
        CHECK_EQ(mip_route_add(f.s, &p6, 32, &g4, 0), MIP_ERR_INVALID);
        CHECK_EQ(mip_route_add(f.s, &p4, 32, &g4, 0), MIP_OK);
    }
#endif
    CHECK_EQ(mip_route_add(f.s, &p6, 128, &g6, 0), MIP_OK);
    CHECK_EQ(routes_used(&f), MIP_CONF_IPV4 ? 2 : 1);
    fixture_free(&f);
}

static void test_full_table_gives_nobufs_but_replace_still_works(void)
{
    struct fixture f;
    struct mip_addr p, g1 = A("fe80::1"), g2 = A("fe80::2");
    char nh[MIP_ADDR_TEXT_MAX];
    uint8_t nif;
    unsigned i;
    init_empty(&f);
    p = A("2001:db8::");
    for (i = 0; i < MIP_ROUTE_MAX; i++) {
        p.bytes[5] = (uint8_t)i;
        CHECK_EQ(mip_route_add(f.s, &p, 48, &g1, 0), MIP_OK);
    }
    CHECK_EQ(routes_used(&f), MIP_ROUTE_MAX);
    p.bytes[5] = 0xEE;
    CHECK_EQ(mip_route_add(f.s, &p, 48, &g1, 0), MIP_ERR_NOBUFS);
    p.bytes[5] = 0;
    CHECK_EQ(mip_route_add(f.s, &p, 48, &g2, 0), MIP_OK);       /* replace: no new slot */
    CHECK_EQ(lookup(&f, "2001:db8:0::1", &nif, nh), MIP_OK);
    CHECK(strcmp(nh, "fe80::2") == 0);
    CHECK_EQ(mip_route_remove(f.s, &p, 48), MIP_OK);
    p.bytes[5] = 0xEE;
    CHECK_EQ(mip_route_add(f.s, &p, 48, &g1, 0), MIP_OK);       /* the freed slot is reused */
    fixture_free(&f);
}

static void test_netif_addresses_add_connected_routes(void)
{
    struct fixture f;
    char nh[MIP_ADDR_TEXT_MAX];
    uint8_t nif = 0xEE;
    fixture_init(&f, false);
    CHECK_EQ(lookup(&f, "fd00::77", &nif, nh), MIP_OK);
    CHECK_EQ(nif, 0);
    CHECK(strcmp(nh, "fd00::77") == 0);
    CHECK_EQ(lookup(&f, "fe80::77", &nif, nh), MIP_OK);
    CHECK(strcmp(nh, "fe80::77") == 0);
    CHECK_EQ(lookup(&f, "fd01::77", &nif, nh), MIP_ERR_NOROUTE);
#if MIP_CONF_IPV4
    CHECK_EQ(lookup(&f, "192.0.2.200", &nif, nh), MIP_OK);
    CHECK(strcmp(nh, "192.0.2.200") == 0);
    CHECK_EQ(lookup(&f, "192.0.3.1", &nif, nh), MIP_ERR_NOROUTE);
#endif
    fixture_free(&f);
}

/* Lookups scan only up to the last entry in use (route_end): a route in the
 * table's last slot is found after every slot below it was freed, and a
 * route added into a freed low slot after the last one went is found too. */
static void test_lookup_finds_routes_in_any_slot_after_removals(void)
{
    struct fixture f;
    char nh[MIP_ADDR_TEXT_MAX], text[MIP_ADDR_TEXT_MAX];
    uint8_t nif;
    unsigned i;
    init_empty(&f);
    for (i = 0; i < MIP_ROUTE_MAX; i++) {
        struct mip_addr p;
        snprintf(text, sizeof text, "fd00:%x::", i + 1u);
        p = A(text);
        CHECK_EQ(mip_route_add(f.s, &p, 32, NULL, 0), MIP_OK);
    }
    for (i = 0; i + 1u < MIP_ROUTE_MAX; i++) {
        struct mip_addr p;
        snprintf(text, sizeof text, "fd00:%x::", i + 1u);
        p = A(text);
        CHECK_EQ(mip_route_remove(f.s, &p, 32), MIP_OK);
    }
    CHECK_EQ(routes_used(&f), 1);
    snprintf(text, sizeof text, "fd00:%x::9", MIP_ROUTE_MAX);
    CHECK_EQ(lookup(&f, text, &nif, nh), MIP_OK);
    CHECK(strcmp(nh, text) == 0);
    {
        struct mip_addr last, low = A("fd00:77::");
        snprintf(text, sizeof text, "fd00:%x::", MIP_ROUTE_MAX);
        last = A(text);
        CHECK_EQ(mip_route_remove(f.s, &last, 32), MIP_OK);
        CHECK_EQ(lookup(&f, "fd00:77::1", &nif, nh), MIP_ERR_NOROUTE);
        CHECK_EQ(mip_route_add(f.s, &low, 32, NULL, 0), MIP_OK);
        CHECK_EQ(lookup(&f, "fd00:77::1", &nif, nh), MIP_OK);
        CHECK(strcmp(nh, "fd00:77::1") == 0);
        CHECK_EQ(mip_route_add(f.s, &last, 32, NULL, 0), MIP_OK);
        snprintf(text, sizeof text, "fd00:%x::9", MIP_ROUTE_MAX);
        CHECK_EQ(lookup(&f, text, &nif, nh), MIP_OK);
    }
    fixture_free(&f);
}

/* IP output keeps the route table's last answer (route_lookup_out): every
 * change to the table or the driver must be seen by the next datagram.
 * An output hook (a driver without next_hop, so the table still answers)
 * records the next hop and netif each datagram leaves with. */
struct seen { struct mip_addr nh; uint8_t netif; unsigned n; };

static enum mip_routing_verdict record_out(void *ctx, struct mip_stack *s,
                                           struct mip_routing_pkt *pkt, mip_time_t now)
{
    struct seen *sn = ctx;
    (void)s; (void)now;
    sn->nh = *pkt->nexthop;
    sn->netif = pkt->out_netif;
    sn->n++;
    return MIP_ROUTING_PASS;
}

static const struct mip_routing_ops record_ops = {
    "record", NULL, NULL, NULL, NULL, NULL, NULL, record_out, 0, NULL
};

static mip_status other_next_hop(void *ctx, const struct mip_stack *s,
                                 const struct mip_addr *dst, uint8_t *netif,
                                 struct mip_addr *nexthop)
{
    (void)ctx; (void)s; (void)dst;
    *netif = 0;
    *nexthop = fixture_addr("fd00::77");
    return MIP_OK;
}

static const struct mip_routing_ops other_ops = {
    "other", other_next_hop, NULL, NULL, NULL, NULL, NULL, record_out, 0, NULL
};

/* Sends 8 bytes to dst from fd00::2 through mip_ip_output (in place) or,
 * with copy, mip_ip_output_copy (the planned path). */
static mip_status send_to(struct fixture *f, const char *dst, bool copy)
{
    static const uint8_t body[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    struct mip_ip_tx tx;
    struct mip_pbuf *p;
    uint8_t *w;
    memset(&tx, 0, sizeof(tx));
    tx.src = A("fd00::2");
    tx.dst = A(dst);
    tx.proto = 59;
    tx.netif = MIP_NETIF_ANY;
    if (copy)
        return mip_ip_output_copy(f->s, &tx, body, sizeof(body));
    p = mip_pbuf_alloc(&f->s->pool, MIP_LINK_HDR_MAX + MIP_IPV6_HDR_LEN);
    CHECK(p != NULL);
    w = mip_pbuf_put(p, sizeof(body));
    CHECK(w != NULL);
    memcpy(w, body, sizeof(body));
    return mip_ip_output(f->s, &tx, p);
}

static void check_sent(struct fixture *f, struct seen *sn, const char *dst, bool copy,
                       const char *nh, uint8_t netif)
{
    char text[MIP_ADDR_TEXT_MAX];
    unsigned before = sn->n;
    CHECK_EQ(send_to(f, dst, copy), MIP_OK);
    CHECK_EQ(sn->n, before + 1u);
    CHECK_EQ(mip_addr_format(&sn->nh, text, sizeof text), MIP_OK);
    if (strcmp(text, nh) != 0)
        fprintf(stderr, "%s: left for %s, not %s\n", dst, text, nh);
    CHECK(strcmp(text, nh) == 0);
    CHECK_EQ(sn->netif, netif);
}

static void test_output_sees_every_route_change(void)
{
    struct fixture f;
    struct seen sn;
    struct mip_addr net = A("fd00:1::"), sub = A("fd00:1:2::"), gw1 = A("fd00::11"),
                    gw2 = A("fd00::22"), gw3 = A("fd00::33");
    uint8_t eth = 0;                    /* the second netif (tiny has one) */
    unsigned k;
    init_empty(&f);
    memset(&sn, 0, sizeof(sn));
#if MIP_NETIF_MAX > 1
    {
        static const uint8_t iid[8] = {0x02, 0, 0, 0xFF, 0xFE, 0, 0, 3};
        f.port[1].f = &f;
        f.port[1].reply = MIP_OK;
        CHECK_EQ(mip_netif_add_rawip(f.s, FIXTURE_MTU, iid, &fixture_driver, &f.port[1], &eth),
                 MIP_OK);
        f.port[1].netif = eth;
    }
#endif
    mip_routing_set(f.s, &record_ops, &sn);
    CHECK_EQ(send_to(&f, "fd00:1:2::5", false), MIP_ERR_NOROUTE);
    for (k = 0; k < 2; k++) {           /* in place, then through the plan */
        bool copy = k != 0;
        CHECK_EQ(mip_route_add(f.s, &net, 32, &gw1, 0), MIP_OK);
        check_sent(&f, &sn, "fd00:1:2::5", copy, "fd00::11", 0);
        check_sent(&f, &sn, "fd00:1:2::5", copy, "fd00::11", 0);
        /* the same prefix, replaced: another gateway on another netif */
        CHECK_EQ(mip_route_add(f.s, &net, 32, &gw2, eth), MIP_OK);
        check_sent(&f, &sn, "fd00:1:2::5", copy, "fd00::22", eth);
        /* a longer prefix added wins */
        CHECK_EQ(mip_route_add(f.s, &sub, 48, &gw3, 0), MIP_OK);
        check_sent(&f, &sn, "fd00:1:2::5", copy, "fd00::33", 0);
        /* and removed, the shorter one again */
        CHECK_EQ(mip_route_remove(f.s, &sub, 48), MIP_OK);
        check_sent(&f, &sn, "fd00:1:2::5", copy, "fd00::22", eth);
        /* another destination, then back */
        check_sent(&f, &sn, "fd00:1:9::5", copy, "fd00::22", eth);
        check_sent(&f, &sn, "fd00:1:2::5", copy, "fd00::22", eth);
        /* a driver with its own next hop takes over, then leaves */
        mip_routing_set(f.s, &other_ops, &sn);
        check_sent(&f, &sn, "fd00:1:2::5", copy, "fd00::77", 0);
        mip_routing_set(f.s, &record_ops, &sn);
        check_sent(&f, &sn, "fd00:1:2::5", copy, "fd00::22", eth);
        /* gone: nothing leaves */
        CHECK_EQ(mip_route_remove(f.s, &net, 32), MIP_OK);
        CHECK_EQ(send_to(&f, "fd00:1:2::5", copy), MIP_ERR_NOROUTE);
    }
    mip_routing_set(f.s, NULL, NULL);
    fixture_pool_clean(&f);
    fixture_free(&f);
}

/* Through a default route, a group is still reached on-link and :: is no
 * destination, in place (mip_ip_output's one-pass path) as through the
 * plan. */
static void test_output_group_and_unspecified_under_default_route(void)
{
    struct fixture f;
    struct seen sn;
    struct mip_addr any = A("::"), gw = A("fd00::11");
    unsigned k;
    init_empty(&f);
    memset(&sn, 0, sizeof(sn));
    mip_routing_set(f.s, &record_ops, &sn);
    CHECK_EQ(mip_route_add(f.s, &any, 0, &gw, 0), MIP_OK);
    for (k = 0; k < 2; k++) {
        bool copy = k != 0;
        check_sent(&f, &sn, "fd00:5::1", copy, "fd00::11", 0);
        check_sent(&f, &sn, "ff05::1", copy, "ff05::1", 0);
        /* link-local unicast, all of fe80::/10 (RFC 4291 2.5.6): on-link,
         * not the gateway (fuzz_lowpan_input,
         * regress-link-local-reply-not-via-the-default-router) */
        check_sent(&f, &sn, "fe80::5", copy, "fe80::5", 0);
        check_sent(&f, &sn, "fe80:0:ff02::fe:ff00:0:2", copy, "fe80:0:ff02:0:fe:ff00:0:2", 0);
        CHECK_EQ(send_to(&f, "::", copy), MIP_ERR_INVALID);
        CHECK_EQ(sn.n, 4u * (k + 1u));
    }
    mip_routing_set(f.s, NULL, NULL);
    fixture_free(&f);
}

int main(void)
{
#if MIP_CONF_IPV4
    RUN(test_longest_prefix_match_ipv4);
    RUN(test_longest_prefix_match_picks_netif);
#endif
    RUN(test_longest_prefix_match_ipv6);
    RUN(test_prefix_length_not_on_byte_boundary);
    RUN(test_equal_prefix_replaces_entry);
    RUN(test_remove_and_notfound);
    RUN(test_noroute_on_empty_table_and_miss);
    RUN(test_families_are_separate);
    RUN(test_stored_prefix_has_host_bits_cleared);
    RUN(test_add_rejects_invalid_arguments);
    RUN(test_full_table_gives_nobufs_but_replace_still_works);
    RUN(test_netif_addresses_add_connected_routes);
    RUN(test_lookup_finds_routes_in_any_slot_after_removals);
    RUN(test_output_sees_every_route_change);
    RUN(test_output_group_and_unspecified_under_default_route);
    return TESTING_DONE();
}
