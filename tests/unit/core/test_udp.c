/* UDP: the port table, delivery with its metadata, checksum rules per
 * family, port unreachable, and sending (checksums, fragmentation). */
#include "iptest.h"

static const uint8_t hello[5] = {'h', 'e', 'l', 'l', 'o'};

/* --- the port table -------------------------------------------------- */

static void test_bind_unbind_and_errors(void)
{
    struct fixture f;
    struct udp_sink k;
    unsigned i;
    fixture_init(&f, false);
    CHECK_EQ(mip_udp_bind(f.s, 0, udp_sink_recv, &k), MIP_ERR_INVALID);
    CHECK_EQ(mip_udp_bind(f.s, 7, NULL, &k), MIP_ERR_INVALID);
    CHECK_EQ(mip_udp_bind(f.s, 7, udp_sink_recv, &k), MIP_OK);
    CHECK_EQ(mip_udp_bind(f.s, 7, udp_sink_recv, &k), MIP_ERR_INUSE);
    for (i = 1; i < MIP_UDP_MAX; i++)
        CHECK_EQ(mip_udp_bind(f.s, (uint16_t)(1000 + i), udp_sink_recv, &k), MIP_OK);
    CHECK_EQ(mip_udp_bind(f.s, 65535, udp_sink_recv, &k), MIP_ERR_NOBUFS);
    CHECK_EQ(mip_udp_bind(f.s, 7, udp_sink_recv, &k), MIP_ERR_INUSE);     /* INUSE wins */
    CHECK_EQ(mip_udp_unbind(f.s, 7), MIP_OK);
    CHECK_EQ(mip_udp_unbind(f.s, 7), MIP_ERR_NOTFOUND);
    CHECK_EQ(mip_udp_unbind(f.s, 0), MIP_ERR_NOTFOUND);
    CHECK_EQ(mip_udp_bind(f.s, 65535, udp_sink_recv, &k), MIP_OK);       /* slot reused */
    CHECK_EQ(mip_udp_bind(f.s, 7, udp_sink_recv, &k), MIP_ERR_NOBUFS);
    fixture_free(&f);
}

/* A fixture whose sink k is bound to `port`. */
static void bound_fixture(struct fixture *f, struct udp_sink *k, uint16_t port)
{
    fixture_init(f, false);
    memset(k, 0, sizeof(*k));
    CHECK_EQ(mip_udp_bind(f->s, port, udp_sink_recv, k), MIP_OK);
}

/* Puts the UDP bytes udp[0..n) in an IP packet from src to dst, the family
 * the addresses' (IPv6 when they have a ':'); returns its length. */
static size_t wrap_ip(uint8_t *pkt, const char *src, const char *dst, const uint8_t *udp, size_t n)
{
#if MIP_CONF_IPV4
    if (strchr(src, ':') == NULL)
        return build_ipv4(pkt, src, dst, 17, 64, 1, 0, 0, udp, n);
#endif
    return build_ipv6(pkt, src, dst, 17, 64, udp, n);
}

/* A datagram src:sport -> dst:dport with `data` into pkt (its length
 * returned), and into f on netif 0. */
static size_t input_udp(struct fixture *f, uint8_t *pkt, const char *src, const char *dst,
                        uint16_t sport, uint16_t dport, const uint8_t *data, size_t dlen)
{
    uint8_t udp[512];
    size_t n = build_udp(udp, strchr(src, ':') != NULL, src, dst, sport, dport, data, dlen);
    size_t len = wrap_ip(pkt, src, dst, udp, n);
    fixture_input(f, 0, pkt, len);
    return len;
}

static void test_unbound_port_no_longer_delivers(void)
{
    struct fixture f;
    struct udp_sink k;
    uint8_t pkt[96];
    size_t len;
    bound_fixture(&f, &k, 7);
    len = input_udp(&f, pkt, "fd00::1", "fd00::2", 9, 7, hello, 5);
    CHECK_EQ(k.calls, 1);
    CHECK_EQ(mip_udp_unbind(f.s, 7), MIP_OK);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(k.calls, 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_udp_no_port), 1);
    fixture_free(&f);
}

/* --- delivery -------------------------------------------------------- */

/* Delivery with its metadata, per family: the datagram src:sport ->
 * dst:port with `dlen` bytes of pattern `seed`, then `ll_len` bytes to
 * the link-local address ll_dst from ll_src (no second datagram when 0). */
static void test_delivery_meta_and_payload(void)
{
    static const struct {
        const char *src, *dst, *ll_src, *ll_dst;
        uint16_t sport, port;
        size_t dlen, ll_len;
        unsigned seed;
    } rows[] = {
#if MIP_CONF_IPV4
        {"192.0.2.1", "192.0.2.2", NULL, NULL, 40000, 5683, 300, 0, 1},
#endif
        {"fd00::1", "fd00::2", "fe80::1", "fe80::200:ff:fe00:2", 1234, 61616, 301, 10, 2},
    };
    unsigned i;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct fixture f;
        struct udp_sink k;
        struct mip_addr src = fixture_addr(rows[i].src), dst = fixture_addr(rows[i].dst);
        uint8_t data[301], pkt[500];
        bound_fixture(&f, &k, rows[i].port);
        fill_pattern(data, rows[i].dlen, rows[i].seed);
        input_udp(&f, pkt, rows[i].src, rows[i].dst, rows[i].sport, rows[i].port, data,
                  rows[i].dlen);
        CHECK_EQ(k.calls, 1);
        CHECK(mip_addr_eq(&k.meta.src, &src));
        CHECK(mip_addr_eq(&k.meta.dst, &dst));
        CHECK_EQ(k.meta.src_port, rows[i].sport);
        CHECK_EQ(k.meta.dst_port, rows[i].port);
        CHECK_EQ(k.meta.netif, 0);
        CHECK(!k.meta.dst_multicast);
        CHECK_EQ(k.len, rows[i].dlen);
        CHECK_MEM(k.data, data, rows[i].dlen);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_udp_rx), 1);
        if (rows[i].ll_len != 0) {
            input_udp(&f, pkt, rows[i].ll_src, rows[i].ll_dst, 1, rows[i].port, data,
                      rows[i].ll_len);
            CHECK_EQ(k.calls, 2);
            CHECK_EQ(k.len, rows[i].ll_len);
        }
        CHECK_EQ(f.ntx, 0);
        fixture_free(&f);
    }
}

/* The checksum rules per family (RFC 768, RFC 8200 s.8.1): a zero
 * checksum means none on IPv4 and is a bad one on IPv6; a changed byte,
 * or a checksum over another destination's pseudo header, is bad. */
static void test_checksum_rules_per_family(void)
{
    static const struct {
        const char *src, *dst, *sum_dst;    /* sum_dst: the pseudo header's */
        bool zero;                          /* checksum field 0 */
        uint8_t at, flip;                   /* then udp[at] ^= flip */
        bool delivered;
    } rows[] = {
#if MIP_CONF_IPV4
        {"192.0.2.1", "192.0.2.2", "192.0.2.2", true, 0, 0, true},
        {"192.0.2.1", "192.0.2.2", "192.0.2.2", false, 8, 0x20, false},   /* payload */
        {"192.0.2.1", "192.0.2.2", "192.0.2.3", false, 0, 0, false},
#endif
        {"fd00::1", "fd00::2", "fd00::2", true, 0, 0, false},
        {"fd00::1", "fd00::2", "fd00::2", false, 6, 0x01, false},
    };
    unsigned i;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct fixture f;
        struct udp_sink k;
        uint8_t udp[32], pkt[96];
        size_t n;
        bound_fixture(&f, &k, 7);
        n = build_udp(udp, strchr(rows[i].src, ':') != NULL, rows[i].src, rows[i].sum_dst, 9, 7,
                      hello, 5);
        if (rows[i].zero)
            udp[6] = udp[7] = 0;
        udp[rows[i].at] ^= rows[i].flip;
        fixture_input(&f, 0, pkt, wrap_ip(pkt, rows[i].src, rows[i].dst, udp, n));
        if (k.calls != (rows[i].delivered ? 1 : 0))
            fprintf(stderr, "row %u: delivered %d times\n", i, k.calls);
        CHECK_EQ(k.calls, rows[i].delivered ? 1 : 0);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_udp_bad_checksum), rows[i].delivered ? 0 : 1);
        if (rows[i].delivered) {
            CHECK_EQ(k.len, 5);
            CHECK_MEM(k.data, hello, 5);
        } else {
            CHECK_EQ(fixture_stat(&f, MIP_STAT_udp_rx), 0);
        }
        CHECK_EQ(f.ntx, 0);
        fixture_free(&f);
    }
}

#if MIP_CONF_IPV4
static void test_udp_length_field_checked(void)
{
    /* the length field larger than the IP payload, below the header size;
     * fewer than 8 bytes in all */
    static const struct {
        uint16_t field;                     /* 0: as built */
        size_t n;
    } bad[] = { {14, 13}, {7, 13}, {0, 7} };
    struct fixture f;
    struct udp_sink k;
    uint8_t udp[32], pkt[64];
    size_t n, i;
    bound_fixture(&f, &k, 7);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        build_udp(udp, false, "192.0.2.1", "192.0.2.2", 9, 7, hello, 5);
        if (bad[i].field != 0)
            mip_wr16(udp + 4, bad[i].field);
        fixture_input(&f, 0, pkt, wrap_ip(pkt, "192.0.2.1", "192.0.2.2", udp, bad[i].n));
    }
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_udp_truncated), 3);
    CHECK_EQ(k.calls, 0);
    /* length field smaller than the IP payload: the rest is not data */
    n = build_udp(udp, false, "192.0.2.1", "192.0.2.2", 9, 7, hello, 3);
    memcpy(udp + n, "XYZ", 3);
    fixture_input(&f, 0, pkt, wrap_ip(pkt, "192.0.2.1", "192.0.2.2", udp, n + 3));
    CHECK_EQ(k.calls, 1);
    CHECK_EQ(k.len, 3);
    CHECK_MEM(k.data, "hel", 3);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

#endif /* MIP_CONF_IPV4 */

/* A closed port answers with a port unreachable (RFC 1122 s.4.1.3.1,
 * RFC 4443 s.3.1): from the address the datagram was sent to, quoting it
 * whole. Per family: the IP header's length, where the addresses sit. */
static void test_closed_port_gets_port_unreachable(void)
{
    static const struct {
        const char *src, *dst;
        size_t hdr, addr_at, addr_len;
        uint8_t type, code;
    } rows[] = {
#if MIP_CONF_IPV4
        {"192.0.2.1", "192.0.2.2", 20, 12, 4, 3, 3},
#endif
        {"fd00::1", "fd00::2", 40, 8, 16, 1, 4},
    };
    unsigned i;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct fixture f;
        uint8_t pkt[96];
        const uint8_t *r;
        const size_t at = rows[i].addr_at, alen = rows[i].addr_len;
        size_t len;
        fixture_init(&f, false);
        len = input_udp(&f, pkt, rows[i].src, rows[i].dst, 4444, 9999, hello, 5);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_udp_no_port), 1);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), 1);
        CHECK_EQ(f.ntx, 1);
        r = f.tx[0].data;
        CHECK_EQ(f.tx[0].len, rows[i].hdr + 8 + len);
        CHECK_MEM(r + at, pkt + at + alen, alen);   /* from the address it was sent to */
        CHECK_MEM(r + at + alen, pkt + at, alen);
        CHECK_EQ(r[rows[i].hdr], rows[i].type);      /* destination unreachable */
        CHECK_EQ(r[rows[i].hdr + 1], rows[i].code);  /* port unreachable */
        CHECK_MEM(r + rows[i].hdr + 8, pkt, len);
        if (alen == 16) {
            CHECK_EQ(ip6_plen(r), 8 + len);
            CHECK_EQ(r[6], 58);
            CHECK_EQ(mip_rd32(r + 44), 0);
            CHECK(ip6_l4_ok(r));
        } else {
            CHECK(ip4_hdr_ok(r));
            CHECK_EQ(r[9], 1);
            CHECK(icmp4_ok(r));
        }
        fixture_free(&f);
    }
}

/* Broadcast and multicast datagrams to a closed port: dropped and
 * counted, never answered (RFC 1122 s.3.2.2, RFC 4443 s.2.4 (e)). */
static void test_closed_port_group_gets_no_error(void)
{
    static const struct {
        const char *src, *dst;
    } rows[] = {
#if MIP_CONF_IPV4
        {"192.0.2.1", "192.0.2.255"},
        {"192.0.2.1", "255.255.255.255"},
#endif
        {"fe80::1", "ff02::1"},
    };
    struct fixture f;
    uint8_t pkt[96];
    unsigned i;
    fixture_init(&f, false);
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        input_udp(&f, pkt, rows[i].src, rows[i].dst, 4444, 9999, hello, 5);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_udp_no_port), sizeof(rows) / sizeof(rows[0]));
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

static void test_multicast_delivery_flagged_in_meta(void)
{
    static const struct {
        const char *src, *dst;
    } rows[] = {
        {"fe80::1", "ff02::1"},
#if MIP_CONF_IPV4
        {"192.0.2.1", "192.0.2.255"},
        {"192.0.2.1", "255.255.255.255"},
#endif
    };
    struct fixture f;
    struct udp_sink k;
    uint8_t pkt[96];
    unsigned i;
    bound_fixture(&f, &k, 7);
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct mip_addr dst = fixture_addr(rows[i].dst);
        input_udp(&f, pkt, rows[i].src, rows[i].dst, 9, 7, hello, 5);
        CHECK_EQ(k.calls, i + 1);
        CHECK(k.meta.dst_multicast);
        CHECK(mip_addr_eq(&k.meta.dst, &dst));
    }
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

#if MIP_CONF_IPV4 && MIP_NETIF_MAX >= 2
static void test_unicast_to_other_netif_address_is_not_broadcast(void)
{
    /* A datagram for the address of netif 1 arriving on netif 0 is unicast:
     * delivered as such, and a closed port answers. */
    struct fixture f;
    struct udp_sink k;
    struct mip_addr a = fixture_addr("198.51.100.1");
    uint8_t pkt[96], idx;
    fixture_init(&f, false);
    f.port[1].f = &f;
    f.port[1].netif = 1;
    CHECK_EQ(mip_netif_add_rawip(f.s, 1500, NULL, &fixture_driver, &f.port[1], &idx), MIP_OK);
    CHECK_EQ(mip_netif_add_addr(f.s, 1, &a, 24), MIP_OK);
    memset(&k, 0, sizeof(k));
    CHECK_EQ(mip_udp_bind(f.s, 7, udp_sink_recv, &k), MIP_OK);
    input_udp(&f, pkt, "192.0.2.1", "198.51.100.1", 9, 7, hello, 5);
    CHECK_EQ(k.calls, 1);
    CHECK(!k.meta.dst_multicast);
    CHECK(mip_addr_eq(&k.meta.dst, &a));
    input_udp(&f, pkt, "192.0.2.1", "198.51.100.1", 9, 8, hello, 5);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_udp_no_port), 1);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].netif, 0);
    CHECK_EQ(f.tx[0].data[20], 3);
    CHECK_EQ(f.tx[0].data[21], 3);
    CHECK_MEM(f.tx[0].data + 12, a.bytes, 4);   /* from the address it was sent to */
    fixture_free(&f);
}
#endif

/* A callback that answers from inside the callback. */
static void echo_back(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                      const uint8_t *data, size_t len)
{
    mip_status *st = ctx;
    *st = mip_udp_sendto(s, &m->dst, m->dst_port, &m->src, m->src_port, m->netif, data, len);
}

static void test_callback_may_send_from_inside(void)
{
    struct fixture f;
    mip_status st = MIP_ERR_END;
    uint8_t pkt[96];
    const uint8_t *r;
    size_t len;
    fixture_init(&f, false);
    CHECK_EQ(mip_udp_bind(f.s, 7, echo_back, &st), MIP_OK);
    len = input_udp(&f, pkt, "fd00::1", "fd00::2", 5555, 7, hello, 5);
    CHECK_EQ(st, MIP_OK);
    CHECK_EQ(f.ntx, 1);
    r = f.tx[0].data;
    CHECK_EQ(f.tx[0].len, len);
    CHECK_EQ(mip_rd16(r + 40), 7);
    CHECK_EQ(mip_rd16(r + 42), 5555);
    CHECK_MEM(r + 48, hello, 5);
    CHECK(ip6_l4_ok(r));
    fixture_free(&f);
}

/* --- link-local zones (RFC 4007) ------------------------------------- */

#if MIP_NETIF_MAX >= 2
/* The fixture with a second raw-IP netif (index 1), whose fe80::/64 route
 * replaces netif 0's: the route table alone sends link-local traffic there. */
static bool two_netif_fixture(struct fixture *f)
{
    static const uint8_t iid1[8] = {0x02, 0, 0, 0xFF, 0xFE, 0, 0, 9};
    uint8_t idx = 0xFF;
    fixture_init(f, false);
    f->port[1].f = f;
    f->port[1].netif = 1;
    f->port[1].reply = MIP_OK;
    CHECK_EQ(mip_netif_add_rawip(f->s, FIXTURE_MTU, iid1, &fixture_driver, &f->port[1], &idx),
             MIP_OK);
    CHECK_EQ(idx, 1);
    return idx == 1;
}

/* An echo callback that answers in the zone the request came from. */
static void echo_in_zone(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                         const uint8_t *data, size_t len)
{
    mip_status *st = ctx;
    *st = mip_udp_sendto(s, &m->dst, m->dst_port, &m->src, m->src_port, m->netif, data, len);
}

static void test_reply_to_link_local_peer_leaves_on_arrival_netif(void)
{
    static const struct {
        const char *peer;
        uint8_t in;       /* netif the request arrives on */
        uint8_t out;      /* netif the reply must leave on */
    } rows[] = {
        {"fe80::1", 0, 0},   /* the route table says netif 1 */
        {"fe80::1", 1, 1},
        {"fd00::1", 1, 0},   /* not link-scoped: routed (fd00::/64 is on netif 0) */
    };
    unsigned i;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct fixture f;
        mip_status st = MIP_ERR_END;
        uint8_t udp[32], pkt[96];
        struct mip_addr peer = fixture_addr(rows[i].peer);
        size_t n, len;
        if (!two_netif_fixture(&f)) {
            fixture_free(&f);
            return;
        }
        CHECK_EQ(mip_udp_bind(f.s, 7, echo_in_zone, &st), MIP_OK);
        n = build_udp(udp, true, rows[i].peer, "fd00::2", 5555, 7, hello, 5);
        len = build_ipv6(pkt, rows[i].peer, "fd00::2", 17, 64, udp, n);
        fixture_input(&f, rows[i].in, pkt, len);
        CHECK_EQ(st, MIP_OK);
        CHECK_EQ(f.ntx, 1);
        if (f.ntx == 1) {
            if (f.tx[0].netif != rows[i].out)
                fprintf(stderr, "row %u: reply to %s left on netif %u\n", i, rows[i].peer,
                        f.tx[0].netif);
            CHECK_EQ(f.tx[0].netif, rows[i].out);
            CHECK_MEM(f.tx[0].data + 24, peer.bytes, 16);
            CHECK(ip6_l4_ok(f.tx[0].data));
        }
        fixture_free(&f);
    }
}

static void test_sendto_names_the_zone_of_link_scoped_groups(void)
{
    struct fixture f;
    struct mip_addr all_nodes = fixture_addr("ff02::1");
    if (!two_netif_fixture(&f)) {
        fixture_free(&f);
        return;
    }
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 1, &all_nodes, 2, 0, hello, 5), MIP_OK);
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 1, &all_nodes, 2, 1, hello, 5), MIP_OK);
    CHECK_EQ(f.ntx, 2);
    CHECK_EQ(f.tx[0].netif, 0);
    CHECK_EQ(f.tx[1].netif, 1);
    /* a zone that is no netif */
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 1, &all_nodes, 2, 3, hello, 5), MIP_ERR_NOROUTE);
    fixture_free(&f);
}
#endif

/* --- sending --------------------------------------------------------- */

#if MIP_CONF_IPV4
static void test_sendto_ipv4_datagram_verifies(void)
{
    struct fixture f;
    struct mip_addr dst = fixture_addr("192.0.2.1"), me = fixture_addr("192.0.2.2");
    uint8_t data[101];
    const uint8_t *r;
    fixture_init(&f, false);
    fill_pattern(data, sizeof(data), 4);
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 1111, &dst, 2222, MIP_NETIF_ANY,
                            data, sizeof(data)), MIP_OK);
    CHECK_EQ(f.ntx, 1);
    r = f.tx[0].data;
    CHECK_EQ(f.tx[0].len, 20 + 8 + 101);
    CHECK(ip4_hdr_ok(r));
    CHECK_EQ(ip4_total(r), 129);
    CHECK_EQ(r[8], MIP_DEFAULT_TTL);
    CHECK_EQ(r[9], 17);
    CHECK(!ip4_mf(r));
    CHECK_EQ(ip4_off(r), 0);
    CHECK_MEM(r + 12, me.bytes, 4);                 /* source chosen by the stack */
    CHECK_MEM(r + 16, dst.bytes, 4);
    CHECK_EQ(mip_rd16(r + 20), 1111);
    CHECK_EQ(mip_rd16(r + 22), 2222);
    CHECK_EQ(mip_rd16(r + 24), 109);
    CHECK(mip_rd16(r + 26) != 0);
    CHECK(l4_ok4(r + 12, r + 16, 17, r + 20, 109));
    CHECK_MEM(r + 28, data, 101);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_udp_tx), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_tx_ipv4), 1);
    fixture_free(&f);
}

static void test_sendto_checksum_zero_sent_as_ffff(void)
{
    /* RFC 768: a computed checksum of 0 is sent as all ones (0 = none).
     * Pick a 2-byte payload that makes the sum come out as 0xFFFF. */
    struct fixture f;
    struct mip_addr src = fixture_addr("192.0.2.2"), dst = fixture_addr("192.0.2.1");
    uint8_t hdr[10] = {0x03, 0xE8, 0x07, 0xD0, 0x00, 0x0A, 0, 0, 0, 0};
    uint8_t data[2];
    uint16_t folded;
    const uint8_t *r;
    fixture_init(&f, false);
    folded = (uint16_t)~mip_cksum_finish(mip_cksum_add(
        mip_cksum_pseudo4(src.bytes, dst.bytes, 17, 10), hdr, 10));
    CHECK(folded != 0xFFFF);
    mip_wr16(data, (uint16_t)(0xFFFFu - folded));
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 1000, &dst, 2000, MIP_NETIF_ANY, data, 2), MIP_OK);
    CHECK_EQ(f.ntx, 1);
    r = f.tx[0].data;
    CHECK_EQ(mip_rd16(r + 26), 0xFFFF);
    CHECK(l4_ok4(r + 12, r + 16, 17, r + 20, 10));
    fixture_free(&f);
}
#endif

static void test_sendto_ipv6_datagram_verifies(void)
{
    struct fixture f;
    struct mip_addr dst = fixture_addr("fd00::1"), src = fixture_addr("fd00::2");
    uint8_t data[77];
    const uint8_t *r;
    fixture_init(&f, false);
    fill_pattern(data, sizeof(data), 5);
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 1111, &dst, 2222, MIP_NETIF_ANY,
                            data, sizeof(data)), MIP_OK);
    CHECK_EQ(f.ntx, 1);
    r = f.tx[0].data;
    CHECK_EQ(f.tx[0].len, 40 + 8 + 77);
    CHECK_EQ(r[0] >> 4, 6);
    CHECK_EQ(ip6_plen(r), 85);
    CHECK_EQ(r[6], 17);
    CHECK_EQ(r[7], MIP_DEFAULT_TTL);
    CHECK_MEM(r + 8, src.bytes, 16);
    CHECK_MEM(r + 24, dst.bytes, 16);
    CHECK_EQ(mip_rd16(r + 40), 1111);
    CHECK_EQ(mip_rd16(r + 42), 2222);
    CHECK_EQ(mip_rd16(r + 44), 85);
    CHECK(ip6_l4_ok(r));
    CHECK_MEM(r + 48, data, 77);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_udp_tx), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_tx_ipv6), 1);
    fixture_free(&f);
}

static void test_sendto_explicit_source(void)
{
    struct fixture f;
    struct mip_addr dst = fixture_addr("fd00::1"), src = fixture_addr("fe80::200:ff:fe00:2");
    const uint8_t *r;
    fixture_init(&f, false);
    CHECK_EQ(mip_udp_sendto(f.s, &src, 1, &dst, 2, MIP_NETIF_ANY, hello, 5), MIP_OK);
    CHECK_EQ(f.ntx, 1);
    r = f.tx[0].data;
    CHECK_MEM(r + 8, src.bytes, 16);
    CHECK(ip6_l4_ok(r));
    fixture_free(&f);
}

static void test_sendto_rejects_invalid_arguments(void)
{
    struct fixture f;
    struct mip_addr dst6 = fixture_addr("fd00::1"), src4 = fixture_addr("192.0.2.2"),
                    far = fixture_addr("2001:db8::1");
    static uint8_t big[65508];
    fixture_init(&f, false);
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 1, NULL, 2, MIP_NETIF_ANY, hello, 5), MIP_ERR_INVALID);
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 1, &dst6, 0, MIP_NETIF_ANY, hello, 5), MIP_ERR_INVALID);
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 1, &dst6, 2, MIP_NETIF_ANY, NULL, 5), MIP_ERR_INVALID);
    CHECK_EQ(mip_udp_sendto(f.s, &src4, 1, &dst6, 2, MIP_NETIF_ANY, hello, 5), MIP_ERR_INVALID);
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 1, &dst6, 2, MIP_NETIF_ANY,
                            big, sizeof(big)), MIP_ERR_INVALID);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_udp_tx), 0);
    /* no route */
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 1, &far, 2, MIP_NETIF_ANY, hello, 5), MIP_ERR_NOROUTE);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ip_no_route), 1);
    /* an empty datagram is fine */
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 1, &dst6, 2, MIP_NETIF_ANY, NULL, 0), MIP_OK);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].len, 48);
    CHECK(ip6_l4_ok(f.tx[0].data));
    fixture_free(&f);
}

static void test_sendto_reports_pool_exhaustion_and_driver_errors(void)
{
    struct fixture f;
    struct mip_addr dst = fixture_addr("fd00::1");
    struct mip_pbuf *held[MIP_PBUF_COUNT];
    unsigned i;
    fixture_init(&f, false);
    for (i = 0; i < MIP_PBUF_COUNT; i++)
        held[i] = mip_pbuf_alloc(&f.s->pool, 0);
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 1, &dst, 2, MIP_NETIF_ANY, hello, 5), MIP_ERR_NOBUFS);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_tx_no_pbuf), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_udp_tx), 0);
    for (i = 0; i < MIP_PBUF_COUNT; i++)
        mip_pbuf_free(&f.s->pool, held[i]);
    f.port[0].reply = MIP_ERR_NOBUFS;
    CHECK_EQ(mip_udp_sendto(f.s, NULL, 1, &dst, 2, MIP_NETIF_ANY, hello, 5), MIP_ERR_NOBUFS);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_tx_driver), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_tx_frames), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_udp_tx), 0);
    fixture_free(&f);
}

/* --- fragmentation --------------------------------------------------- */

/* A second stack that owns 192.0.2.1 and fd00::1 to receive what the
 * first one sends. */
static void init_peer(struct fixture *b, struct udp_sink *k, uint16_t port)
{
    struct mip_addr a;
    fixture_init(b, false);
#if MIP_CONF_IPV4
    a = fixture_addr("192.0.2.1");
    CHECK_EQ(mip_netif_add_addr(b->s, 0, &a, 24), MIP_OK);
#endif
    a = fixture_addr("fd00::1");
    CHECK_EQ(mip_netif_add_addr(b->s, 0, &a, 64), MIP_OK);
    memset(k, 0, sizeof(*k));
    CHECK_EQ(mip_udp_bind(b->s, port, udp_sink_recv, k), MIP_OK);
}

/* Feeds every frame captured by a into b, in order. */
static void relay_all(struct fixture *a, struct fixture *b)
{
    unsigned i;
    for (i = 0; i < a->ntx; i++)
        fixture_input(b, 0, a->tx[i].data, a->tx[i].len);
}

#if MIP_CONF_IPV4
static void test_sendto_ipv4_larger_than_mtu_fragments_and_reassembles(void)
{
    static uint8_t data[3000], out[4000];
    struct fixture a, b;
    struct udp_sink *k = calloc(1, sizeof(*k));
    struct mip_addr dst = fixture_addr("192.0.2.1");
    unsigned i, count = 0;
    uint16_t id;
    long n;
    fixture_init(&a, false);
    init_peer(&b, k, 9000);
    fill_pattern(data, sizeof(data), 6);
    CHECK_EQ(mip_udp_sendto(a.s, NULL, 8000, &dst, 9000, MIP_NETIF_ANY,
                            data, sizeof(data)), MIP_OK);
    /* 3008 bytes of UDP in pieces of (1500 - 20) rounded down to 8 */
    CHECK_EQ(a.ntx, 3);
    id = ip4_id(a.tx[0].data);
    for (i = 0; i < a.ntx; i++) {
        const uint8_t *r = a.tx[i].data;
        CHECK(ip4_hdr_ok(r));
        CHECK_EQ(ip4_id(r), id);
        CHECK_EQ(ip4_off(r), i * 1480u);
        CHECK_EQ(ip4_mf(r), i < 2);
        CHECK(!ip4_df(r));
        CHECK_EQ(ip4_total(r), i < 2 ? 1500 : 20 + 3008 - 2960);
        CHECK_EQ(a.tx[i].len, ip4_total(r));
    }
    CHECK_EQ(fixture_stat(&a, MIP_STAT_frag_tx), 3);
    CHECK_EQ(fixture_stat(&a, MIP_STAT_udp_tx), 1);
    n = reasm4(&a, 0, id, out, sizeof(out), &count);
    CHECK_EQ(n, 3008);
    CHECK(l4_ok4(a.tx[0].data + 12, a.tx[0].data + 16, 17, out, 3008));
    relay_all(&a, &b);
    CHECK_EQ(k->calls, 1);
    CHECK_EQ(k->len, sizeof(data));
    CHECK_MEM(k->data, data, sizeof(data));
    CHECK_EQ(k->meta.src_port, 8000);
    CHECK_EQ(fixture_stat(&b, MIP_STAT_frag_reassembled), 1);
    fixture_free(&a);
    fixture_free(&b);
    free(k);
}
#endif

static void test_sendto_ipv6_larger_than_mtu_fragments_and_reassembles(void)
{
    enum { LEN = MIP_PROFILE_DEFAULT(1260, 3000) };
    static uint8_t data[LEN], out[4000];
    struct fixture a, b;
    struct udp_sink *k = calloc(1, sizeof(*k));
    struct mip_addr dst = fixture_addr("fd00::1");
    const size_t chunk = ((FIXTURE_MTU - 48) / 8) * 8;
    const unsigned pieces = (unsigned)((LEN + 8 + chunk - 1) / chunk);
    unsigned i, count = 0;
    uint32_t id;
    uint8_t nh = 0;
    long n;
    fixture_init(&a, false);
    init_peer(&b, k, 9000);
    fill_pattern(data, sizeof(data), 7);
    CHECK_EQ(mip_udp_sendto(a.s, NULL, 8000, &dst, 9000, MIP_NETIF_ANY,
                            data, sizeof(data)), MIP_OK);
    CHECK_EQ(a.ntx, pieces);
    id = mip_rd32(a.tx[0].data + 44);
    for (i = 0; i < a.ntx; i++) {
        const uint8_t *r = a.tx[i].data;
        size_t want = i + 1 < pieces ? chunk : LEN + 8 - chunk * (pieces - 1);
        CHECK_EQ(r[6], 44);
        CHECK_EQ(r[40], 17);
        CHECK_EQ(mip_rd32(r + 44), id);
        CHECK_EQ(mip_rd16(r + 42) & 0xFFF8u, i * chunk);
        CHECK_EQ(r[43] & 1u, i + 1 < pieces);
        CHECK_EQ(ip6_plen(r), 8 + want);
        CHECK_EQ(a.tx[i].len, 48 + want);
        CHECK(a.tx[i].len <= FIXTURE_MTU);
    }
    n = reasm6(&a, 0, id, out, sizeof(out), &count, &nh);
    CHECK_EQ(n, LEN + 8);
    CHECK_EQ(nh, 17);
    CHECK(l4_ok6(a.tx[0].data + 8, a.tx[0].data + 24, 17, out, (size_t)n));
    relay_all(&a, &b);
    CHECK_EQ(k->calls, 1);
    CHECK_EQ(k->len, sizeof(data));
    CHECK_MEM(k->data, data, sizeof(data));
    CHECK_EQ(fixture_stat(&b, MIP_STAT_frag_reassembled), 1);
    fixture_free(&a);
    fixture_free(&b);
    free(k);
}

static void test_sendto_largest_datagram_fragments_completely(void)
{
    /* 65507 bytes: the largest payload sendto takes, in as many pieces as
     * the MTU needs; checked with the test's own reassembler (the stack's
     * slots are smaller). */
    static uint8_t data[65507], out[65536];
    struct fixture a;
    struct mip_addr dst = fixture_addr("fd00::1");
    const size_t chunk = ((FIXTURE_MTU - 48) / 8) * 8;
    unsigned count = 0;
    long n;
    fixture_init(&a, false);
    fill_pattern(data, sizeof(data), 8);
    CHECK_EQ(mip_udp_sendto(a.s, NULL, 1, &dst, 2, MIP_NETIF_ANY, data, sizeof(data)), MIP_OK);
    CHECK_EQ(a.ntx, (65515 + chunk - 1) / chunk);
    n = reasm6(&a, 0, mip_rd32(a.tx[0].data + 44), out, sizeof(out), &count, NULL);
    CHECK_EQ(n, 65515);
    CHECK_EQ(count, a.ntx);
    CHECK_EQ(mip_rd16(out + 4), 65515);
    CHECK_MEM(out + 8, data, sizeof(data));
    CHECK(l4_ok6(a.tx[0].data + 8, a.tx[0].data + 24, 17, out, 65515));
#if MIP_CONF_IPV4
    {
        struct mip_addr dst4 = fixture_addr("192.0.2.1");
        fixture_clear(&a);
        CHECK_EQ(mip_udp_sendto(a.s, NULL, 1, &dst4, 2, MIP_NETIF_ANY, data, sizeof(data)), MIP_OK);
        CHECK_EQ(a.ntx, (65515 + 1479) / 1480);
        n = reasm4(&a, 0, ip4_id(a.tx[0].data), out, sizeof(out), &count);
        CHECK_EQ(n, 65515);
        CHECK_MEM(out + 8, data, sizeof(data));
        CHECK(l4_ok4(a.tx[0].data + 12, a.tx[0].data + 16, 17, out, 65515));
        /* the last fragment ends exactly at the 65535-byte limit */
        CHECK_EQ(ip4_off(a.tx[a.ntx - 1].data) + ip4_total(a.tx[a.ntx - 1].data), 65535);
    }
#endif
    fixture_free(&a);
}

int main(void)
{
    RUN(test_bind_unbind_and_errors);
    RUN(test_unbound_port_no_longer_delivers);
    RUN(test_delivery_meta_and_payload);
    RUN(test_checksum_rules_per_family);
#if MIP_CONF_IPV4
    RUN(test_udp_length_field_checked);
#endif
    RUN(test_closed_port_gets_port_unreachable);
    RUN(test_closed_port_group_gets_no_error);
    RUN(test_multicast_delivery_flagged_in_meta);
#if MIP_CONF_IPV4 && MIP_NETIF_MAX >= 2
    RUN(test_unicast_to_other_netif_address_is_not_broadcast);
#endif
    RUN(test_callback_may_send_from_inside);
#if MIP_NETIF_MAX >= 2
    RUN(test_reply_to_link_local_peer_leaves_on_arrival_netif);
    RUN(test_sendto_names_the_zone_of_link_scoped_groups);
#endif
#if MIP_CONF_IPV4
    RUN(test_sendto_ipv4_datagram_verifies);
    RUN(test_sendto_checksum_zero_sent_as_ffff);
#endif
    RUN(test_sendto_ipv6_datagram_verifies);
    RUN(test_sendto_explicit_source);
    RUN(test_sendto_rejects_invalid_arguments);
    RUN(test_sendto_reports_pool_exhaustion_and_driver_errors);
#if MIP_CONF_IPV4
    RUN(test_sendto_ipv4_larger_than_mtu_fragments_and_reassembles);
#endif
    RUN(test_sendto_ipv6_larger_than_mtu_fragments_and_reassembles);
    RUN(test_sendto_largest_datagram_fragments_completely);
    return TESTING_DONE();
}
