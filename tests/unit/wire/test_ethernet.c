/*
 * Ethernet II header codec.
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/wire/ethernet.h"
#include "exact.h"
#include "testing.h"

/* Header of a real broadcast ARP frame. */
static const uint8_t arp_frame_hdr[14] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x07, 0x0d, 0xaf, 0xf4, 0x54, 0x08, 0x06,
};

/* Parses a copy of buf[0..len) in an exactly-sized heap block, so ASan
 * reports any read past len. */
static mip_status parse_exact(const uint8_t *buf, size_t len, struct mip_eth_hdr *out)
{
    uint8_t *copy = dup_exact(buf, len);
    mip_status st = copy != NULL ? mip_eth_parse(copy, len, out) : MIP_ERR_NOBUFS;

    free(copy);
    return st;
}

static void test_eth_parses_known_header(void)
{
    static const uint8_t src[6] = { 0x00, 0x07, 0x0d, 0xaf, 0xf4, 0x54 };
    struct mip_eth_hdr h;

    CHECK_EQ(parse_exact(arp_frame_hdr, sizeof arp_frame_hdr, &h), MIP_OK);
    CHECK_MEM(h.dst, "\xff\xff\xff\xff\xff\xff", 6);
    CHECK_MEM(h.src, src, 6);
    CHECK_EQ(h.ethertype, MIP_ETHERTYPE_ARP);
}

static void test_eth_emit_parse_round_trip(void)
{
    struct mip_eth_hdr in = {
        { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 },
        { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 },
        MIP_ETHERTYPE_IPV6,
    };
    struct mip_eth_hdr out;
    uint8_t buf[MIP_ETH_HDR_LEN + 4];

    memset(&out, 0xAA, sizeof out);
    memset(buf, 0xEE, sizeof buf);
    CHECK_EQ(mip_eth_emit(&in, buf, MIP_ETH_HDR_LEN), MIP_OK);
    CHECK_EQ(buf[12], 0x86);
    CHECK_EQ(buf[13], 0xDD);
    CHECK_EQ(buf[MIP_ETH_HDR_LEN], 0xEE); /* nothing written past the header */
    CHECK_EQ(mip_eth_parse(buf, MIP_ETH_HDR_LEN, &out), MIP_OK);
    CHECK_MEM(out.dst, in.dst, 6);
    CHECK_MEM(out.src, in.src, 6);
    CHECK_EQ(out.ethertype, in.ethertype);
}

static void test_eth_emit_reproduces_known_header(void)
{
    struct mip_eth_hdr h;
    uint8_t buf[MIP_ETH_HDR_LEN];

    CHECK_EQ(mip_eth_parse(arp_frame_hdr, sizeof arp_frame_hdr, &h), MIP_OK);
    CHECK_EQ(mip_eth_emit(&h, buf, sizeof buf), MIP_OK);
    CHECK_MEM(buf, arp_frame_hdr, sizeof buf);
}

static void test_eth_rejects_every_truncation(void)
{
    struct mip_eth_hdr h;
    size_t len;

    for (len = 0; len < MIP_ETH_HDR_LEN; len++)
        CHECK_EQ(parse_exact(arp_frame_hdr, len, &h), MIP_ERR_TRUNCATED);
}

static void test_eth_vlan_tag_is_not_decoded(void)
{
    static const uint8_t tagged[18] = {
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x07, 0x0d, 0xaf, 0xf4, 0x54,
        0x81, 0x00, 0x00, 0x64, 0x08, 0x00,
    };
    struct mip_eth_hdr h;

    CHECK_EQ(parse_exact(tagged, sizeof tagged, &h), MIP_OK);
    CHECK_EQ(h.ethertype, 0x8100);
}

static void test_eth_emit_nospace_for_every_short_cap(void)
{
    struct mip_eth_hdr h;
    size_t cap;

    memset(&h, 0x11, sizeof h);
    for (cap = 0; cap < MIP_ETH_HDR_LEN; cap++) {
        uint8_t *buf = malloc(cap ? cap : 1u);

        CHECK(buf != NULL);
        if (buf == NULL)
            return;
        CHECK_EQ(mip_eth_emit(&h, buf, cap), MIP_ERR_NOSPACE);
        free(buf);
    }
}

int main(void)
{
    RUN(test_eth_parses_known_header);
    RUN(test_eth_emit_parse_round_trip);
    RUN(test_eth_emit_reproduces_known_header);
    RUN(test_eth_rejects_every_truncation);
    RUN(test_eth_vlan_tag_is_not_decoded);
    RUN(test_eth_emit_nospace_for_every_short_cap);
    return TESTING_DONE();
}
