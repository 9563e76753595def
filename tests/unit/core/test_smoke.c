/* Smoke test of the fixture itself: an IPv4 and an IPv6 echo round trip. */
#include "fixture.h"

static void test_ipv4_echo_request_gets_reply(void)
{
#if MIP_CONF_IPV4
    struct fixture f;
    uint8_t icmp[64], pkt[128];
    size_t n, len;
    fixture_init(&f, false);
    n = build_echo(icmp, 8, 0x1234, 1, 20);
    len = build_ipv4(pkt, "192.0.2.1", "192.0.2.2", 1, 64, 7, 0, 0, icmp, n);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].len, len);
    CHECK_EQ(f.tx[0].data[20], 0);               /* echo reply */
    CHECK_MEM(f.tx[0].data + 24, icmp + 4, n - 4); /* id, seq, data kept */
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, f.tx[0].data + 20, n)), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 1);
    fixture_free(&f);
#else
    SKIP("no IPv4 in this profile");
#endif
}

static void test_ipv6_echo_request_gets_reply(void)
{
    struct fixture f;
    uint8_t icmp[64], pkt[128];
    size_t n, len;
    fixture_init(&f, false);
    n = build_echo(icmp, 128, 0x1234, 1, 20);
    fix_l4_checksum6(icmp, n, 2, 58, "fd00::1", "fd00::2");
    len = build_ipv6(pkt, "fd00::1", "fd00::2", 58, 64, icmp, n);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].len, len);
    CHECK_EQ(f.tx[0].data[40], 129);
    CHECK_MEM(f.tx[0].data + 44, icmp + 4, n - 4);
    fixture_free(&f);
}

int main(void)
{
    RUN(test_ipv4_echo_request_gets_reply);
    RUN(test_ipv6_echo_request_gets_reply);
    return TESTING_DONE();
}
