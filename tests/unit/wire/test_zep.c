/* ZEP (wire/zep.h): a datagram moteip sends parses back to the same frame
 * with a good FCS, version 1 and acks parse, and every malformed datagram is
 * refused with its reason, never read past. */
#include <string.h>

#include "testing.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/zep.h"

static const uint8_t mpdu[] = { 0x41, 0xd8, 0x07, 0xcd, 0xab, 0xff, 0xff, 0x01, 0x00,
                                0x7a, 0x33, 0x3a, 0x80, 0x00 };

static size_t emit_one(uint8_t *out, size_t cap)
{
    struct mip_zep_hdr h;
    size_t n = 0;
    memset(&h, 0, sizeof(h));
    h.channel = 26;
    h.device_id = 0x1234;
    h.crc_mode = true;
    h.lqi = 0xFF;
    h.ntp_seconds = 0xE8000001u;
    h.ntp_fraction = 0x80000000u;
    h.seq = 77;
    CHECK_EQ(mip_zep_emit(&h, mpdu, sizeof(mpdu), out, cap, &n), MIP_OK);
    return n;
}

static void test_an_emitted_datagram_parses_back(void)
{
    uint8_t d[200];
    struct mip_zep_hdr h;
    const uint8_t *f;
    size_t n = emit_one(d, sizeof(d));
    CHECK_EQ(n, 32u + sizeof(mpdu) + 2u);
    CHECK(memcmp(d, "EX\x02\x01\x1a\x12\x34\x01\xff", 9) == 0);
    CHECK_EQ(d[31], sizeof(mpdu) + 2u);
    CHECK_EQ(mip_zep_parse(d, n, &h, &f), MIP_OK);
    CHECK_EQ(h.version, 2);
    CHECK_EQ(h.type, MIP_ZEP_TYPE_DATA);
    CHECK_EQ(h.channel, 26);
    CHECK_EQ(h.device_id, 0x1234);
    CHECK(h.crc_mode);
    CHECK_EQ(h.seq, 77u);
    CHECK_EQ(h.ntp_seconds, 0xE8000001u);
    CHECK_EQ(h.ntp_fraction, 0x80000000u);
    CHECK_EQ(h.frame_len, sizeof(mpdu) + 2u);
    CHECK(f == d + 32);
    CHECK(memcmp(f, mpdu, sizeof(mpdu)) == 0);
    CHECK_EQ(mip_ieee802154_fcs(f, sizeof(mpdu)), (uint16_t)(f[sizeof(mpdu)] | f[sizeof(mpdu) + 1] << 8));
}

static void test_version_1_and_acks_parse(void)
{
    uint8_t v1[16 + 5] = { 'E', 'X', 1, 11, 0, 9, 0, 200 };
    uint8_t ack[8] = { 'E', 'X', 2, 2, 0, 0, 1, 2 };
    struct mip_zep_hdr h;
    const uint8_t *f;
    v1[15] = 5;
    CHECK_EQ(mip_zep_parse(v1, sizeof(v1), &h, &f), MIP_OK);
    CHECK_EQ(h.version, 1);
    CHECK_EQ(h.channel, 11);
    CHECK_EQ(h.device_id, 9);
    CHECK(!h.crc_mode);
    CHECK_EQ(h.lqi, 200);
    CHECK(f == v1 + 16);
    CHECK_EQ(mip_zep_parse(ack, sizeof(ack), &h, &f), MIP_OK);
    CHECK_EQ(h.type, MIP_ZEP_TYPE_ACK);
    CHECK_EQ(h.seq, 0x102u);
    CHECK(f == NULL);
}

static void test_malformed_datagrams_are_refused(void)
{
    uint8_t d[200], bad[200];
    struct mip_zep_hdr h;
    const uint8_t *f;
    size_t n = emit_one(d, sizeof(d)), k;
    static const uint8_t ackx[9] = { 'E', 'X', 2, 2, 0, 0, 0, 1, 0 };

    for (k = 0; k < n; k++)           /* every truncation: no read past, an error */
        CHECK(mip_zep_parse(d, k, &h, &f) != MIP_OK && f == NULL);
    memcpy(bad, d, n);
    bad[0] = 'e';
    CHECK_EQ(mip_zep_parse(bad, n, &h, &f), MIP_ERR_MALFORMED);
    memcpy(bad, d, n);
    bad[2] = 3;
    CHECK_EQ(mip_zep_parse(bad, n, &h, &f), MIP_ERR_UNSUPPORTED);
    memcpy(bad, d, n);
    bad[3] = 7;
    CHECK_EQ(mip_zep_parse(bad, n, &h, &f), MIP_ERR_UNSUPPORTED);
    memcpy(bad, d, n);
    bad[31] |= 0x80;                  /* the reserved bit of the length */
    CHECK_EQ(mip_zep_parse(bad, n, &h, &f), MIP_ERR_MALFORMED);
    memcpy(bad, d, n);
    bad[n] = 0;                       /* a byte past the frame */
    CHECK_EQ(mip_zep_parse(bad, n + 1, &h, &f), MIP_ERR_MALFORMED);
    memcpy(bad, d, n);
    bad[31] = 1;                      /* shorter than an FCS */
    CHECK_EQ(mip_zep_parse(bad, 33, &h, &f), MIP_ERR_MALFORMED);
    CHECK_EQ(mip_zep_parse(ackx, sizeof(ackx), &h, &f), MIP_ERR_MALFORMED);
}

static void test_emit_refuses_what_it_cannot_send(void)
{
    uint8_t big[126] = { 0 }, out[200];
    struct mip_zep_hdr h;
    size_t n;
    memset(&h, 0, sizeof(h));
    h.crc_mode = true;
    CHECK_EQ(mip_zep_emit(&h, big, 126, out, sizeof(out), &n), MIP_ERR_INVALID);
    CHECK_EQ(mip_zep_emit(&h, big, 125, out, sizeof(out), &n), MIP_OK);
    CHECK_EQ(n, 159u);
    CHECK_EQ(mip_zep_emit(&h, big, 125, out, 158, &n), MIP_ERR_NOSPACE);
    h.crc_mode = false;
    CHECK_EQ(mip_zep_emit(&h, big, 10, out, sizeof(out), &n), MIP_ERR_INVALID);
}

int main(void)
{
    RUN(test_an_emitted_datagram_parses_back);
    RUN(test_version_1_and_acks_parse);
    RUN(test_malformed_datagrams_are_refused);
    RUN(test_emit_refuses_what_it_cannot_send);
    return TESTING_DONE();
}
