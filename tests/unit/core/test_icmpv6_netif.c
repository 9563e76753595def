/* ICMPv6 errors to a link-local source leave on the netif the offending
 * datagram arrived on, whatever the route table says about fe80::/64
 * (every netif claims that prefix; the table keeps only one). */
#include "fixture.h"

static void test_port_unreachable_to_linklocal_leaves_on_arrival_netif(void)
{
    static const uint8_t iid1[8] = {0x02, 0, 0, 0xFF, 0xFE, 0, 0, 9};
    struct fixture f;
    uint8_t udp[64], pkt[128];
    size_t n, len;
    uint8_t idx;
    fixture_init(&f, false);
    f.port[1].f = &f;
    f.port[1].netif = 1;
    f.port[1].reply = MIP_OK;
    /* The second netif's link-local route replaces netif 0's. */
    CHECK_EQ(mip_netif_add_rawip(f.s, FIXTURE_MTU, iid1, &fixture_driver, &f.port[1], &idx),
             MIP_OK);
    if (idx != 1) {
        CHECK_EQ(idx, 1);   /* tiny builds have one netif: nothing to test */
        fixture_free(&f);
        return;
    }
    n = build_udp(udp, true, "fe80::1", "fd00::2", 4000, 9999, (const uint8_t *)"x", 1);
    len = build_ipv6(pkt, "fe80::1", "fd00::2", 17, 64, udp, n);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_udp_no_port), 1);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].netif, 0);
    CHECK_EQ(f.tx[0].data[40], 1);      /* destination unreachable */
    CHECK_EQ(f.tx[0].data[41], 4);      /* port unreachable */
    fixture_free(&f);
}

int main(void)
{
#if MIP_NETIF_MAX > 1
    RUN(test_port_unreachable_to_linklocal_leaves_on_arrival_netif);
#endif
    return TESTING_DONE();
}
