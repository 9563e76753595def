/*
 * The control-frame classification of the result's control_frames_tx
 * (sim/medium.c, sim_frame_is_control): an IPv6 datagram carrying ICMPv6
 * RPL (155) or ND (133-137) is control, after any hop-by-hop, routing or
 * destination options header; other ICMPv6 types, UDP, IPv4 and datagrams
 * cut short are not.
 */
#include <string.h>

#include "sim.h"
#include "testing.h"

/* An IPv6 header with next header nh, then `ext` bytes, then an ICMPv6
 * type byte at the end (len: bytes written). */
static size_t dgram(uint8_t *b, uint8_t nh, const uint8_t *ext, size_t ext_len, uint8_t type)
{
    memset(b, 0, 40);
    b[0] = 0x60;
    b[6] = nh;
    b[7] = 64;
    if (ext_len > 0u)
        memcpy(b + 40, ext, ext_len);
    b[40 + ext_len] = type;
    b[41 + ext_len] = 0;
    return 42 + ext_len;
}

static void test_rpl_and_nd_are_control(void)
{
    uint8_t b[128];
    static const uint8_t types[] = { 155, 133, 134, 135, 136, 137 };
    size_t i;
    for (i = 0; i < sizeof(types); i++)
        CHECK(sim_frame_is_control(b, dgram(b, 58, NULL, 0, types[i])));
}

static void test_other_icmpv6_and_other_protocols_are_data(void)
{
    uint8_t b[128];
    static const uint8_t types[] = { 128, 129, 1, 132, 138, 154, 156 };
    size_t i, n;
    for (i = 0; i < sizeof(types); i++)
        CHECK(!sim_frame_is_control(b, dgram(b, 58, NULL, 0, types[i])));
    n = dgram(b, 17, NULL, 0, 155);         /* UDP whose first byte is 155 */
    CHECK(!sim_frame_is_control(b, n));
    n = dgram(b, 6, NULL, 0, 155);
    CHECK(!sim_frame_is_control(b, n));
    n = dgram(b, 58, NULL, 0, 155);
    b[0] = 0x45;                            /* IPv4 */
    CHECK(!sim_frame_is_control(b, n));
}

static void test_extension_headers_are_walked(void)
{
    uint8_t b[128];
    /* hop-by-hop (8 bytes: an RPL Option, RFC 6553) then ICMPv6 */
    static const uint8_t hbh[8] = { 58, 0, 0x63, 4, 0, 0, 0, 0 };
    /* destination options (16 bytes) then ICMPv6 */
    static const uint8_t dst[16] = { 58, 1 };
    /* routing header (RFC 6554 SRH, 8 bytes) -> ICMPv6 */
    static const uint8_t rh[8] = { 58, 0, 3, 0 };
    CHECK(sim_frame_is_control(b, dgram(b, 0, hbh, sizeof(hbh), 155)));
    CHECK(!sim_frame_is_control(b, dgram(b, 0, hbh, sizeof(hbh), 128)));
    CHECK(sim_frame_is_control(b, dgram(b, 60, dst, sizeof(dst), 135)));
    CHECK(sim_frame_is_control(b, dgram(b, 43, rh, sizeof(rh), 155)));
}

static void test_short_datagrams_are_data(void)
{
    uint8_t b[128];
    static const uint8_t hbh[8] = { 58, 0, 0x63, 4, 0, 0, 0, 0 };
    size_t n = dgram(b, 58, NULL, 0, 155);
    CHECK(!sim_frame_is_control(b, 40));    /* no ICMPv6 byte */
    CHECK(sim_frame_is_control(b, 41));
    CHECK(!sim_frame_is_control(b, 20));
    n = dgram(b, 0, hbh, sizeof(hbh), 155);
    CHECK(!sim_frame_is_control(b, n - 2)); /* the peek ended in the extension */
    CHECK(!sim_frame_is_control(b, 44));
}

int main(void)
{
    RUN(test_rpl_and_nd_are_control);
    RUN(test_other_icmpv6_and_other_protocols_are_data);
    RUN(test_extension_headers_are_walked);
    RUN(test_short_datagrams_are_data);
    return TESTING_DONE();
}
