/*
 * RPL's data-plane headers in core (core/ipv6_rpl.c): a router sends a
 * Source Routing Header on to its next address (RFC 6554 4.2) and refuses
 * the bad ones with the errors the RFC names; the RPL Option of a datagram
 * delivered here is accepted only where the routing driver speaks RPL
 * (RFC 6553; RFC 8200 4.2 for 0x63 elsewhere); IPv6-in-IPv6 from the root
 * is unwrapped once (RFC 9008 7). The node is fd00::2 on a raw-IP netif
 * (the fixture), forwarding.
 */
#include "ip6_checks.h"
#include "moteip/routing.h"
#include "moteip/wire/icmpv6.h"
#include "moteip/wire/rpl_ext.h"

#if MIP_CONF_IPV6 && MIP_CONF_FORWARD

/* A driver with no opinions but the flag: the route table routes. */
static const struct mip_routing_ops rpl_ext_driver = {
    "rpl-ext-test", NULL, NULL, NULL, NULL, NULL, NULL, NULL, MIP_ROUTING_RPL_EXT, NULL
};

static void init_node(struct fixture *f, bool forwarding, bool rpl)
{
    fixture_init(f, forwarding);
    if (rpl)
        mip_routing_set(f->s, &rpl_ext_driver, NULL);
}

/* An echo request fd00::1 -> dst carrying an SRH that then visits
 * route[0..n) with the given Segments Left; payload 12 bytes. The ICMPv6
 * checksum is over the final destination (RFC 8200 8.1). */
static size_t srh_echo(uint8_t *pkt, const char *dst, const char *const *route, uint16_t n,
                       uint8_t sl, uint8_t hop)
{
    uint8_t addrs[8][16], ext[160], icmp[64];
    struct mip_addr d = fixture_addr(dst);
    size_t elen = 0, k;
    uint16_t i;

    for (i = 0; i < n; i++) {
        struct mip_addr a = fixture_addr(route[i]);
        memcpy(addrs[i], a.bytes, 16);
    }
    CHECK_EQ(mip_srh_emit(58, d.bytes, (const uint8_t (*)[16])addrs, n, ext, sizeof ext, &elen),
             MIP_OK);
    ext[MIP_SRH_SL_OFFSET] = sl;
    k = build_echo(icmp, 128, 0x5151, 7, 12);
    fix_l4_checksum6(icmp, k, 2, 58, "fd00::1", route[n - 1]);
    memcpy(ext + elen, icmp, k);
    return build_ipv6(pkt, "fd00::1", dst, 43, hop, ext, elen + k);
}

static void test_srh_sent_on_to_next_address(void)
{
    static const char *const route[2] = {"fd00::3", "fd00::4"};
    struct fixture f;
    uint8_t pkt[256], want[256], ours[16];
    struct mip_srh h;
    size_t len;

    init_node(&f, true, true);
    len = srh_echo(pkt, "fd00::2", route, 2, 2, 64);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].len, len);
    /* the same bytes but hop limit 63, destination fd00::3, Segments Left
     * 1 and our address in slot 1 (RFC 6554 4.2's swap) */
    memcpy(want, pkt, len);
    want[7] = 63;
    memcpy(want + 24, fixture_addr("fd00::3").bytes, 16);
    CHECK_EQ(mip_srh_parse(want + 40, len - 40, &h), MIP_OK);
    CHECK_EQ(h.cmpr_i, 15);
    want[40 + 3] = 1;
    want[40 + 8] = 0x02;
    CHECK_MEM(f.tx[0].data, want, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_srh_forwarded), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_delivered), 0);
    /* and the slot expands back to our address */
    CHECK_EQ(mip_srh_parse(f.tx[0].data + 40, len - 40, &h), MIP_OK);
    CHECK_EQ(mip_srh_addr(&h, 1, f.tx[0].data + 24, ours), MIP_OK);
    CHECK_MEM(ours, fixture_addr("fd00::2").bytes, 16);
    fixture_free(&f);
}

/* The last hop: Segments Left 1, the next address is the destination;
 * there Segments Left is 0 and the echo is answered. */
static void test_srh_last_hop_then_delivered(void)
{
    static const char *const route[1] = {"fd00::2"};
    struct fixture f;
    uint8_t pkt[256];
    size_t len;

    init_node(&f, true, true);
    /* as the last router sends it: Segments Left 0 */
    len = srh_echo(pkt, "fd00::2", route, 1, 0, 64);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].data[40], 129);          /* an echo reply, no SRH */
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_delivered), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_srh_forwarded), 0);
    fixture_free(&f);
}

/* What RFC 6554 4.2 refuses, and what happens where SRHs are not
 * processed (a host, or a router without RPL: RFC 8200 4.4's answer). */
static void test_srh_refusals(void)
{
    enum answer { PARAM_PROBLEM, TIME_EXCEEDED, NOTHING };
    static const char *const two[2] = {"fd00::3", "fd00::4"};
    static const char *const mc[2] = {"ff02::1", "fd00::4"};
    static const char *const loop[3] = {"fd00::3", "fd00::2", "fd00::4"};
    static const char *const loop_adjacent[3] = {"fd00::2", "fd00::2", "fd00::4"};
    static const struct {
        const char *what;
        const char *const *route;
        uint16_t n;
        uint8_t sl, hop;
        bool forwarding, rpl;
        enum answer answer;
        uint32_t ptr;            /* parameter problem pointer */
        enum mip_stat counter;
    } rows[] = {
        {"segments left > n", two, 2, 3, 64, true, true, PARAM_PROBLEM, 43,
         MIP_STAT_drop_srh_bad},
        {"next address multicast", mc, 2, 2, 64, true, true, NOTHING, 0,
         MIP_STAT_drop_srh_multicast},
        /* the rule counts Addresses[1..n] only: one of ours there, or
         * two side by side, is no loop (RFC 6554 4.2) */
        {"one of ours in the route: no loop", loop, 3, 3, 64, true, true, NOTHING, 0,
         MIP_STAT_COUNT},
        {"ours twice, adjacent: no loop", loop_adjacent, 3, 3, 64, true, true, NOTHING, 0,
         MIP_STAT_COUNT},
        {"hop limit 1", two, 2, 2, 1, true, true, TIME_EXCEEDED, 0,
         MIP_STAT_drop_ipv6_hop_limit_expired},
        {"a host: at its type", two, 2, 2, 64, false, true, PARAM_PROBLEM, 42,
         MIP_STAT_drop_ipv6_ext_header},
        {"no RPL: at its type", two, 2, 2, 64, true, false, PARAM_PROBLEM, 42,
         MIP_STAT_drop_ipv6_ext_header},
    };
    unsigned i;

    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct fixture f;
        uint8_t pkt[256];
        size_t len;

        init_node(&f, rows[i].forwarding, rows[i].rpl);
        len = srh_echo(pkt, "fd00::2", rows[i].route, rows[i].n, rows[i].sl, rows[i].hop);
        fixture_input(&f, 0, pkt, len);
        if (rows[i].counter == MIP_STAT_COUNT) {
            /* sent on */
            CHECK_EQ(f.ntx, 1);
            CHECK_EQ(fixture_stat(&f, MIP_STAT_srh_forwarded), 1);
            fixture_free(&f);
            continue;
        }
        if (f.ntx != (rows[i].answer == NOTHING ? 0u : 1u))
            fprintf(stderr, "row %u (%s): %u frames\n", i, rows[i].what, f.ntx);
        CHECK_EQ(f.ntx, rows[i].answer == NOTHING ? 0 : 1);
        CHECK_EQ(fixture_stat(&f, rows[i].counter), 1);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_srh_forwarded), 0);
        if (rows[i].answer == PARAM_PROBLEM && f.ntx == 1)
            CHECK_PARAM_PROBLEM(&f.tx[0], "fd00::2", "fd00::1", 0, rows[i].ptr, pkt, len);
        if (rows[i].answer == TIME_EXCEEDED && f.ntx == 1) {
            CHECK_EQ(f.tx[0].data[40], MIP_ICMPV6_TIME_EXCEEDED);
            CHECK_EQ(f.tx[0].data[41], MIP_ICMPV6_TE_HOPLIMIT);
        }
        fixture_free(&f);
    }
}

/* RFC 6554 4.2's loop rule: two of our addresses with one that is not
 * between them. The route fd00::2, fd00::3, fd00::2 (ours at 1 and 3) is
 * refused pointing at Addresses[3]. */
static void test_srh_loop_through_us_refused(void)
{
    static const char *const route[4] = {"fd00::2", "fd00::3", "fd00::2", "fd00::4"};
    struct fixture f;
    uint8_t pkt[256];
    size_t len;

    init_node(&f, true, true);
    len = srh_echo(pkt, "fd00::2", route, 4, 4, 64);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_srh_loop), 1);
    /* one byte per address (CmprI 15): Addresses[3] at 40 + 8 + 2 */
    if (f.ntx == 1)
        CHECK_PARAM_PROBLEM(&f.tx[0], "fd00::2", "fd00::1", 0, 50, pkt, len);
    fixture_free(&f);
}

/* An SRH whose lengths do not add up: pointing at Hdr Ext Len. */
static void test_srh_malformed_lengths(void)
{
    static const char *const two[2] = {"fd00::3", "fd00::4"};
    struct fixture f;
    uint8_t pkt[256];
    size_t len;

    init_node(&f, true, true);
    len = srh_echo(pkt, "fd00::2", two, 2, 2, 64);
    pkt[40 + 4] = 0xF0;     /* CmprE 0: 16 bytes for Addresses[n] in 8 */
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_srh_bad), 1);
    if (f.ntx == 1)
        CHECK_PARAM_PROBLEM(&f.tx[0], "fd00::2", "fd00::1", 0, 41, pkt, len);
    fixture_free(&f);
}

/* The RPL Option in a Hop-by-Hop header of an echo to us: 0x23 is
 * skipped by anyone (action 00); 0x63 (action 01) only by a node that
 * speaks RPL, dropped silently by the others (RFC 8200 4.2). */
static void test_rpl_option_delivered_where_understood(void)
{
    static const struct {
        uint8_t type;
        bool rpl;
        bool answered;
    } rows[] = {
        {MIP_RPI_TYPE, false, true},
        {MIP_RPI_TYPE, true, true},
        {MIP_RPI_TYPE_6553, false, false},
        {MIP_RPI_TYPE_6553, true, true},
    };
    unsigned i;

    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct mip_rpi o = {false, false, false, 0, 256};
        struct fixture f;
        uint8_t hbh[8], icmp[64], pkt[256];
        size_t len, k;

        init_node(&f, true, rows[i].rpl);
        CHECK_EQ(mip_rpi_hbh_emit(58, rows[i].type, &o, hbh, sizeof hbh), MIP_OK);
        k = build_echo(icmp, 128, 0x5151, 9, 12);
        len = build_ext6(pkt, "fd00::1", "fd00::2", 0, hbh, sizeof hbh, icmp, k);
        fixture_input(&f, 0, pkt, len);
        CHECK_EQ(f.ntx, rows[i].answered ? 1 : 0);
        if (rows[i].answered && f.ntx == 1)
            CHECK_ECHO_REPLY(&f.tx[0], "fd00::2", "fd00::1", 0x5151, 9, 12);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_ext_header), rows[i].answered ? 0 : 1);
        fixture_free(&f);
    }
}

/* IPv6-in-IPv6 to us (RFC 9008 7: the root tunnels to the end of a source
 * route): unwrapped once where RPL is spoken; the inner echo is answered
 * from its own addresses. A tunnel in the tunnel is not unwrapped, and
 * without RPL the outer packet's protocol 41 is unknown (RFC 8200 4:
 * Parameter Problem code 1 at its Next Header byte). */
static void test_ipv6_in_ipv6_unwrapped_once(void)
{
    struct fixture f;
    uint8_t inner[128], mid[192], pkt[256];
    size_t ilen, mlen, len;

    ilen = build_echo6(inner, "fd00::9", "fd00::2", 60, 0x5151, 3, 12);
    len = build_ipv6(pkt, "fd00::1", "fd00::2", MIP_IPV6_NH_IPV6, 64, inner, ilen);

    init_node(&f, true, true);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_rx_ipv6_decap), 1);
    CHECK_EQ(f.ntx, 1);
    if (f.ntx == 1)
        CHECK_ECHO_REPLY(&f.tx[0], "fd00::2", "fd00::9", 0x5151, 3, 12);
    fixture_free(&f);

    init_node(&f, true, false);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_rx_ipv6_decap), 0);
    CHECK_EQ(f.ntx, 1);
    if (f.ntx == 1)
        CHECK_PARAM_PROBLEM(&f.tx[0], "fd00::2", "fd00::1", 1, 6, pkt, len);
    fixture_free(&f);

    mlen = build_ipv6(mid, "fd00::1", "fd00::2", MIP_IPV6_NH_IPV6, 64, inner, ilen);
    len = build_ipv6(pkt, "fd00::1", "fd00::2", MIP_IPV6_NH_IPV6, 64, mid, mlen);
    init_node(&f, true, true);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_rx_ipv6_decap), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ip_unknown_proto), 1);
    CHECK_EQ(f.ntx, 1);         /* the middle packet's protocol 41 is refused */
    if (f.ntx == 1)
        CHECK_EQ(f.tx[0].data[40], MIP_ICMPV6_PARAM_PROBLEM);
    fixture_free(&f);
}

/* The root fragments its tunnel's outer datagram when the inner one fills
 * the MTU (RFC 2473 7.1): the end of the tunnel reassembles, then unwraps. */
static void test_fragmented_tunnel_unwrapped_after_reassembly(void)
{
    static uint8_t inner[1400], frag[1400];
    struct fixture f;
    size_t ilen, len;

    ilen = build_echo6(inner, "fd00::9", "fd00::2", 60, 0x5151, 5, 1000);
    init_node(&f, true, true);
    len = build_frag6(frag, "fd00::1", "fd00::2", MIP_IPV6_NH_IPV6, 77, 0, true, inner, 512);
    fixture_input(&f, 0, frag, len);
    CHECK_EQ(f.ntx, 0);
    len = build_frag6(frag, "fd00::1", "fd00::2", MIP_IPV6_NH_IPV6, 77, 512, false,
                      inner + 512, ilen - 512);
    fixture_input(&f, 0, frag, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_rx_ipv6_decap), 1);
    CHECK_EQ(f.ntx, 1);
    if (f.ntx == 1)
        CHECK_ECHO_REPLY(&f.tx[0], "fd00::2", "fd00::9", 0x5151, 5, 1000);
    fixture_free(&f);
}

int main(void)
{
    RUN(test_srh_sent_on_to_next_address);
    RUN(test_srh_last_hop_then_delivered);
    RUN(test_srh_refusals);
    RUN(test_srh_loop_through_us_refused);
    RUN(test_srh_malformed_lengths);
    RUN(test_rpl_option_delivered_where_understood);
    RUN(test_ipv6_in_ipv6_unwrapped_once);
    RUN(test_fragmented_tunnel_unwrapped_after_reassembly);
    return TESTING_DONE();
}

#else

int main(void)
{
    return 77;
}

#endif
