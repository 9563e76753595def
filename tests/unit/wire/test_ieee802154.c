/*
 * IEEE 802.15.4 MHR codec and FCS: round trips over every addressing mode,
 * the CRC check value, data frames captured from real stacks, every
 * truncation (exact-size heap copies, so ASan sees any read past len), and
 * what the codec refuses.
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/wire/ieee802154.h"
#include "exact.h"
#include "testing.h"

/* A 6LoWPAN data frame as NuttX documents it (net/sixlowpan/README.txt):
 * data, PAN ID compression, dst 0x1234 and src 0xabcd in PAN 0xface, seq
 * 0x2a, then a FRAG1 header. */
static const uint8_t nuttx_frame[13] = {
    0x41, 0x88, 0x2a, 0xce, 0xfa, 0x34, 0x12, 0xcd, 0xab,
    0xc5, 0x0e, 0x00, 0x0b,
};

/* A Neighbor Solicitation broadcast by Zephyr's 802.15.4 L2 (its
 * tests/net/ieee802154/l2 vector): 2006 frame version, PAN 0xabcd,
 * dst 0xffff, src extended 00:12:4b:00:00:9e:a3:c2, IPHC payload. */
static const uint8_t zephyr_ns_mhr[17] = {
    0x41, 0xd8, 0x45, 0xcd, 0xab, 0xff, 0xff,
    0xc2, 0xa3, 0x9e, 0x00, 0x00, 0x4b, 0x12, 0x00,
    0x7b, 0x09,
};

/* The same stack's raw frame: no PAN ID compression, dst PAN 0xffff
 * short 0x0002, src PAN 0x0023 extended ae:c2:4a:1c:21:16:e2:60. */
static const uint8_t zephyr_raw[20] = {
    0x01, 0xc8, 0x8b, 0xff, 0xff, 0x02, 0x00, 0x23, 0x00,
    0x60, 0xe2, 0x16, 0x21, 0x1c, 0x4a, 0xc2, 0xae,
    0xaa, 0xbb, 0xcc,
};

static mip_status parse_exact(const uint8_t *buf, size_t len, struct mip_802154_hdr *h,
                              size_t *hl)
{
    uint8_t *c = dup_exact(buf, len);
    mip_status st = mip_ieee802154_parse(c, len, h, hl);
    free(c);
    return st;
}

static void test_crc_check_value(void)
{
    static const uint8_t check[9] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
    /* CRC-16/KERMIT check value */
    CHECK_EQ(mip_ieee802154_fcs(check, sizeof check), 0x2189);
    CHECK_EQ(mip_ieee802154_fcs(check, 0), 0);
}

static void test_fcs_appended_little_endian_leaves_zero_residue(void)
{
    uint8_t mpdu[sizeof nuttx_frame + 2];
    uint16_t fcs = mip_ieee802154_fcs(nuttx_frame, sizeof nuttx_frame);
    memcpy(mpdu, nuttx_frame, sizeof nuttx_frame);
    mpdu[sizeof nuttx_frame] = (uint8_t)fcs;
    mpdu[sizeof nuttx_frame + 1] = (uint8_t)(fcs >> 8);
    /* a reflected CRC without final xor over data + its CRC gives 0 */
    CHECK_EQ(mip_ieee802154_fcs(mpdu, sizeof mpdu), 0);
    mpdu[3] ^= 0x10;
    CHECK(mip_ieee802154_fcs(mpdu, sizeof mpdu) != 0);
}

static void test_parse_nuttx_frame(void)
{
    struct mip_802154_hdr h;
    uint8_t buf[32];
    size_t hl = 0, n = 0;
    CHECK_EQ(parse_exact(nuttx_frame, sizeof nuttx_frame, &h, &hl), MIP_OK);
    CHECK_EQ(hl, 9);
    CHECK_EQ(h.type, MIP_802154_DATA);
    CHECK(h.pan_id_compress);
    CHECK(!h.ack_request);
    CHECK(!h.frame_pending);
    CHECK_EQ(h.version, 0);
    CHECK_EQ(h.seq, 0x2a);
    CHECK_EQ(h.dst_pan, 0xface);
    CHECK_EQ(h.src_pan, 0xface);
    CHECK_EQ(h.dst.mode, MIP_802154_ADDR_SHORT);
    CHECK_EQ(h.dst.short_addr, 0x1234);
    CHECK_EQ(h.src.mode, MIP_802154_ADDR_SHORT);
    CHECK_EQ(h.src.short_addr, 0xabcd);
    CHECK_EQ(mip_ieee802154_hdr_len(&h), 9);
    CHECK_EQ(mip_ieee802154_emit(&h, buf, sizeof buf, &n), MIP_OK);
    CHECK_EQ(n, 9);
    CHECK_MEM(buf, nuttx_frame, 9);
}

static void test_parse_zephyr_frames(void)
{
    static const uint8_t ext_ns[8] = {0x00, 0x12, 0x4b, 0x00, 0x00, 0x9e, 0xa3, 0xc2};
    static const uint8_t ext_raw[8] = {0xae, 0xc2, 0x4a, 0x1c, 0x21, 0x16, 0xe2, 0x60};
    struct mip_802154_hdr h;
    uint8_t buf[32];
    size_t hl = 0, n = 0;

    CHECK_EQ(parse_exact(zephyr_ns_mhr, sizeof zephyr_ns_mhr, &h, &hl), MIP_OK);
    CHECK_EQ(hl, 15);
    CHECK_EQ(h.version, 1);
    CHECK_EQ(h.seq, 0x45);
    CHECK_EQ(h.dst_pan, 0xabcd);
    CHECK_EQ(h.dst.mode, MIP_802154_ADDR_SHORT);
    CHECK_EQ(h.dst.short_addr, MIP_802154_BROADCAST);
    CHECK_EQ(h.src.mode, MIP_802154_ADDR_EXT);
    CHECK_MEM(h.src.ext, ext_ns, 8);
    CHECK_EQ(mip_ieee802154_emit(&h, buf, sizeof buf, &n), MIP_OK);
    CHECK_EQ(n, 15);
    CHECK_MEM(buf, zephyr_ns_mhr, 15);

    CHECK_EQ(parse_exact(zephyr_raw, sizeof zephyr_raw, &h, &hl), MIP_OK);
    CHECK_EQ(hl, 17);
    CHECK(!h.pan_id_compress);
    CHECK_EQ(h.seq, 0x8b);
    CHECK_EQ(h.dst_pan, 0xffff);
    CHECK_EQ(h.dst.short_addr, 0x0002);
    CHECK_EQ(h.src_pan, 0x0023);
    CHECK_EQ(h.src.mode, MIP_802154_ADDR_EXT);
    CHECK_MEM(h.src.ext, ext_raw, 8);
    CHECK_MEM(zephyr_raw + hl, "\xaa\xbb\xcc", 3);
    CHECK_EQ(mip_ieee802154_emit(&h, buf, sizeof buf, &n), MIP_OK);
    CHECK_EQ(n, 17);
    CHECK_MEM(buf, zephyr_raw, 17);
}

/* Every (dst mode, src mode, PAN ID compression) combination the standard
 * allows, with every frame type and flag. */
static void test_round_trip_all_addressing_modes(void)
{
    static const uint8_t modes[3] = {MIP_802154_ADDR_NONE, MIP_802154_ADDR_SHORT,
                                     MIP_802154_ADDR_EXT};
    unsigned d, s, comp, type, flags, cases = 0;
    for (d = 0; d < 3; d++)
        for (s = 0; s < 3; s++)
            for (comp = 0; comp < 2; comp++)
                for (type = 0; type < 4; type++)
                    for (flags = 0; flags < 8; flags++) {
                        struct mip_802154_hdr h, g;
                        uint8_t buf[32], *c;
                        size_t n = 0, hl = 0, i;
                        memset(&h, 0, sizeof h);
                        h.type = (uint8_t)type;
                        h.frame_pending = (flags & 1u) != 0;
                        h.ack_request = (flags & 2u) != 0;
                        h.version = (uint8_t)((flags >> 2) & 1u);
                        h.pan_id_compress = comp != 0;
                        h.seq = (uint8_t)(d * 37u + s * 11u + flags);
                        h.dst.mode = modes[d];
                        h.src.mode = modes[s];
                        h.dst_pan = 0x1234;
                        h.src_pan = comp ? 0x1234 : 0xBEEF;
                        h.dst.short_addr = 0xA1B2;
                        h.src.short_addr = 0xC3D4;
                        for (i = 0; i < 8; i++) {
                            h.dst.ext[i] = (uint8_t)(0x10 + i);
                            h.src.ext[i] = (uint8_t)(0x80 + i);
                        }
                        if (comp && (modes[d] == MIP_802154_ADDR_NONE ||
                                     modes[s] == MIP_802154_ADDR_NONE)) {
                            CHECK_EQ(mip_ieee802154_emit(&h, buf, sizeof buf, &n),
                                     MIP_ERR_INVALID);
                            continue;
                        }
                        cases++;
                        CHECK_EQ(mip_ieee802154_emit(&h, buf, sizeof buf, &n), MIP_OK);
                        CHECK_EQ(n, mip_ieee802154_hdr_len(&h));
                        /* the codec writes the extended address little-endian */
                        if (modes[d] == MIP_802154_ADDR_EXT)
                            CHECK_EQ(buf[5], 0x17);
                        c = dup_exact(buf, n);
                        CHECK_EQ(mip_ieee802154_parse(c, n, &g, &hl), MIP_OK);
                        free(c);
                        CHECK_EQ(hl, n);
                        CHECK_EQ(g.type, h.type);
                        CHECK_EQ(g.frame_pending, h.frame_pending);
                        CHECK_EQ(g.ack_request, h.ack_request);
                        CHECK_EQ(g.version, h.version);
                        CHECK_EQ(g.pan_id_compress, h.pan_id_compress);
                        CHECK_EQ(g.seq, h.seq);
                        CHECK_EQ(g.dst.mode, h.dst.mode);
                        CHECK_EQ(g.src.mode, h.src.mode);
                        if (modes[d] != MIP_802154_ADDR_NONE)
                            CHECK_EQ(g.dst_pan, h.dst_pan);
                        if (modes[s] != MIP_802154_ADDR_NONE)
                            CHECK_EQ(g.src_pan, h.src_pan);
                        if (modes[d] == MIP_802154_ADDR_SHORT)
                            CHECK_EQ(g.dst.short_addr, h.dst.short_addr);
                        if (modes[d] == MIP_802154_ADDR_EXT)
                            CHECK_MEM(g.dst.ext, h.dst.ext, 8);
                        if (modes[s] == MIP_802154_ADDR_SHORT)
                            CHECK_EQ(g.src.short_addr, h.src.short_addr);
                        if (modes[s] == MIP_802154_ADDR_EXT)
                            CHECK_MEM(g.src.ext, h.src.ext, 8);
                    }
    CHECK_EQ(cases, (9u + 4u) * 4u * 8u);
}

static void test_every_truncation_rejected(void)
{
    static const uint8_t *frames[3] = {nuttx_frame, zephyr_ns_mhr, zephyr_raw};
    static const size_t hdr[3] = {9, 15, 17};
    unsigned f;
    size_t len, hl;
    struct mip_802154_hdr h;
    for (f = 0; f < 3; f++) {
        for (len = 0; len < hdr[f]; len++)
            CHECK_EQ(parse_exact(frames[f], len, &h, &hl), MIP_ERR_TRUNCATED);
        CHECK_EQ(parse_exact(frames[f], hdr[f], &h, &hl), MIP_OK);
        CHECK_EQ(hl, hdr[f]);
    }
}

static void test_refused_frames(void)
{
    /* Zephyr's secured data frame: security enabled bit */
    static const uint8_t secured[16] = {0x49, 0xd8, 0x45, 0xcd, 0xab, 0xff, 0xff, 0xc2,
                                        0xa3, 0x9e, 0x00, 0x00, 0x4b, 0x12, 0x00, 0x07};
    uint8_t f[16];
    struct mip_802154_hdr h;
    size_t hl, n;
    CHECK_EQ(parse_exact(secured, sizeof secured, &h, &hl), MIP_ERR_UNSUPPORTED);
    /* frame version 2 (802.15.4-2015) */
    memcpy(f, nuttx_frame, 9);
    f[1] = (uint8_t)(f[1] | 0x20);
    CHECK_EQ(parse_exact(f, 9, &h, &hl), MIP_ERR_UNSUPPORTED);
    /* reserved addressing mode 1, destination and source */
    memcpy(f, nuttx_frame, 9);
    f[1] = (uint8_t)((f[1] & ~0x0Cu) | 0x04u);
    CHECK_EQ(parse_exact(f, 9, &h, &hl), MIP_ERR_UNSUPPORTED);
    memcpy(f, nuttx_frame, 9);
    f[1] = (uint8_t)((f[1] & ~0xC0u) | 0x40u);
    CHECK_EQ(parse_exact(f, 9, &h, &hl), MIP_ERR_UNSUPPORTED);
    /* reserved frame type 5 */
    memcpy(f, nuttx_frame, 9);
    f[0] = (uint8_t)((f[0] & ~7u) | 5u);
    CHECK_EQ(parse_exact(f, 9, &h, &hl), MIP_ERR_UNSUPPORTED);
    /* PAN ID compression without a source address */
    memcpy(f, nuttx_frame, 9);
    f[1] = (uint8_t)(f[1] & ~0xC0u);
    CHECK_EQ(parse_exact(f, 9, &h, &hl), MIP_ERR_MALFORMED);
    /* emit: NOSPACE one byte short, INVALID for mode 1 */
    CHECK_EQ(parse_exact(nuttx_frame, 9, &h, &hl), MIP_OK);
    CHECK_EQ(mip_ieee802154_emit(&h, f, 8, &n), MIP_ERR_NOSPACE);
    h.src.mode = 1;
    CHECK_EQ(mip_ieee802154_emit(&h, f, sizeof f, &n), MIP_ERR_INVALID);
}

static void test_ack_frame(void)
{
    uint8_t ack[MIP_802154_ACK_LEN];
    struct mip_802154_hdr h;
    size_t hl;
    mip_ieee802154_emit_ack(0x16, false, ack);
    CHECK_MEM(ack, "\x02\x00\x16", 3);
    mip_ieee802154_emit_ack(0x56, true, ack);
    CHECK_MEM(ack, "\x12\x00\x56", 3);
    CHECK_EQ(parse_exact(ack, 3, &h, &hl), MIP_OK);
    CHECK_EQ(h.type, MIP_802154_ACK);
    CHECK(h.frame_pending);
    CHECK_EQ(h.seq, 0x56);
    CHECK_EQ(hl, 3);
}

int main(void)
{
    RUN(test_crc_check_value);
    RUN(test_fcs_appended_little_endian_leaves_zero_residue);
    RUN(test_parse_nuttx_frame);
    RUN(test_parse_zephyr_frames);
    RUN(test_round_trip_all_addressing_modes);
    RUN(test_every_truncation_rejected);
    RUN(test_refused_frames);
    RUN(test_ack_frame);
    return TESTING_DONE();
}
