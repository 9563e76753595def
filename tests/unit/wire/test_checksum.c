/*
 * Internet checksum: RFC 1071 sums, RFC 1624 incremental updates, pseudo
 * headers, and accumulator safety over long buffers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "testing.h"

/* Reference: a 64-bit accumulator cannot overflow for any test buffer. */
static uint16_t ref_cksum(uint64_t sum, const uint8_t *p, size_t len)
{
    size_t i;

    for (i = 0; i + 1 < len; i += 2)
        sum += (uint64_t)mip_rd16(p + i);
    if (len & 1u)
        sum += (uint64_t)p[len - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xFFFFu) + (sum >> 16);
    return (uint16_t)~sum;
}

static uint32_t rng_state = 0x2545F491u;

static uint32_t rng(void) /* xorshift32, fixed seed: reproducible */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* Every alignment and length (the wide loop starts at 16 bytes and takes
 * 4- and 8-byte steps), with incoming sums up to the fold threshold. */
static void test_cksum_matches_definition_at_every_alignment(void)
{
    static const uint32_t starts[] = { 0, 1, 0xFFFFu, 0x1FFFEu, 0x7FFEFFFFu, 0x7FFFFFFFu, 0xFFFFFFFFu };
    static uint8_t buf[1100];
    size_t i, off, len, k;
    uint32_t x = 12345;
    unsigned bad = 0;

    for (i = 0; i < sizeof buf; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (uint8_t)(x >> 16);
    }
    for (k = 0; k < sizeof starts / sizeof starts[0]; k++)
        for (off = 0; off < 8; off++)
            for (len = 0; len + off <= sizeof buf; len += (len < 80 ? 1 : 37))
                if (mip_cksum_finish(mip_cksum_add(starts[k], buf + off, len)) !=
                    ref_cksum(starts[k], buf + off, len))
                    bad++;
    CHECK_EQ(bad, 0);
    memset(buf, 0xFF, sizeof buf);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0xFFFFFFFFu, buf, sizeof buf)),
             ref_cksum(0xFFFFFFFFu, buf, sizeof buf));
}

/* Random bytes at every length 0..300 and every start alignment 0..3 (the
 * word loops' lead-in and tail, an odd start summed byte-swapped by
 * MIP_CONF_CKSUM_WIDE 2), as one call and split in two at an even offset
 * (a running sum carried on, as the pseudo header is), against the 16-bit
 * definition. CMake builds this file once per word width. */
static void test_cksum_random_buffers_every_length_and_alignment(void)
{
    static uint8_t buf[300 + 4];
    size_t i, off, len, cut;
    unsigned bad = 0, round;

    for (round = 0; round < 4; round++) {
        for (i = 0; i < sizeof buf; i++)
            buf[i] = (uint8_t)rng();
        if (round == 3)
            memset(buf, 0xFF, sizeof buf);   /* every carry taken */
        for (off = 0; off < 4; off++)
            for (len = 0; len <= 300; len++) {
                uint32_t start = rng() & 0x7FFFFFu;
                uint16_t want = ref_cksum(start, buf + off, len);
                cut = (len / 2u) & ~(size_t)1;
                if (mip_cksum_finish(mip_cksum_add(start, buf + off, len)) != want)
                    bad++;
                if (mip_cksum_finish(mip_cksum_add(mip_cksum_add(start, buf + off, cut),
                                                   buf + off + cut, len - cut)) != want)
                    bad++;
            }
    }
    CHECK_EQ(bad, 0);
}

static void test_cksum_rfc1071_example(void)
{
    /* RFC 1071 section 3: these bytes sum to 0xddf2. */
    static const uint8_t data[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, data, sizeof data)), 0x220d);
    /* the sum is independent of how the data is split into even chunks */
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(mip_cksum_add(0, data, 2), data + 2, 6)), 0x220d);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(mip_cksum_add(0, data, 4), data + 4, 4)), 0x220d);
}

static void test_cksum_odd_length_pads_with_zero(void)
{
    static const uint8_t one[] = { 0x01 };
    static const uint8_t three[] = { 0x00, 0x01, 0xf2 };
    static const uint8_t three_padded[] = { 0x00, 0x01, 0xf2, 0x00 };

    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, one, 1)), 0xFEFF);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, three, 3)), 0x0dfe);
    CHECK_EQ(mip_cksum_add(0, three, 3), mip_cksum_add(0, three_padded, 4));
    /* an odd final chunk after an even one */
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(mip_cksum_add(0, three, 2), three + 2, 1)), 0x0dfe);
    CHECK_EQ(mip_cksum_add(0x1234, three, 0), 0x1234);
}

static void test_cksum_all_ones_and_all_zeros(void)
{
    uint8_t ff[64];
    size_t n;

    memset(ff, 0xFF, sizeof ff);
    for (n = 2; n <= sizeof ff; n += 2)
        CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, ff, n)), 0x0000);
    for (n = 1; n < sizeof ff; n += 2)
        CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, ff, n)), ref_cksum(0, ff, n));
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, ff, 3)), 0x00FF);
    memset(ff, 0, sizeof ff);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, ff, sizeof ff)), 0xFFFF);
    CHECK_EQ(mip_cksum_finish(0), 0xFFFF);
}

static void test_cksum_long_buffer_does_not_overflow(void)
{
    /* > 65537 words of 0xFFFF would wrap an unfolded 32-bit accumulator. */
    const size_t n = 300001u;
    uint8_t *buf = malloc(n);
    size_t i;

    CHECK(buf != NULL);
    if (buf == NULL)
        return;
    memset(buf, 0xFF, n);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, buf, n - 1)), 0x0000);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, buf, n)), ref_cksum(0, buf, n));
    for (i = 0; i < n; i++)
        buf[i] = (uint8_t)rng();
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, buf, n)), ref_cksum(0, buf, n));
    /* a caller's sum near the top of the range must not wrap either */
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0xFFFFFFFFu, buf, n)),
             ref_cksum(0xFFFFFFFFu, buf, n));
    free(buf);
}

static void test_cksum_verifies_known_ipv4_header(void)
{
    static const uint8_t hdr[20] = {
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
        0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
    };
    uint8_t zeroed[20];

    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, hdr, sizeof hdr)), 0);
    memcpy(zeroed, hdr, sizeof zeroed);
    zeroed[10] = zeroed[11] = 0;
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, zeroed, sizeof zeroed)), 0xb861);
}

static void test_cksum_update16_rfc1624_section4(void)
{
    /* Other header words sum to 0xCD7A; m goes 0x5555 -> 0x3285. Eqn. 3
     * gives 0x0000 like recomputation; RFC 1141's eqn. 2 gave 0xFFFF. */
    CHECK_EQ(mip_cksum_finish(0xCD7Au + 0x5555u), 0xDD2F);
    CHECK_EQ(mip_cksum_finish(0xCD7Au + 0x3285u), 0x0000);
    CHECK_EQ(mip_cksum_update16(0xDD2F, 0x5555, 0x3285), 0x0000);
}

static void test_cksum_update16_ttl_decrement(void)
{
    uint8_t hdr[20] = {
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
        0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
    };
    uint16_t ck = mip_cksum_update16(0xb861, 0x4011, 0x3f11);

    hdr[8] = 0x3f;
    mip_wr16(hdr + 10, ck);
    CHECK_EQ(ck, 0xb961);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, hdr, sizeof hdr)), 0);
}

/* Random buffer with its checksum stored at offset 0. */
static void random_packet(uint8_t *p, size_t n)
{
    size_t i;

    for (i = 2; i < n; i++)
        p[i] = (uint8_t)rng();
    p[2] |= 1u; /* never all zero: see the caveat in checksum.h */
    mip_wr16(p, 0);
    mip_wr16(p, mip_cksum_finish(mip_cksum_add(0, p, n)));
}

static void test_cksum_update16_matches_recompute(void)
{
    uint8_t p[40];
    int i;

    for (i = 0; i < 2000; i++) {
        size_t off;
        uint16_t old_w, new_w, ck;

        random_packet(p, sizeof p);
        off = 2u + 2u * (size_t)(rng() % 19u);
        old_w = mip_rd16(p + off);
        new_w = (i % 7 == 0) ? (uint16_t)~old_w : (uint16_t)rng();
        if (i % 11 == 0)
            new_w = (i % 2) ? 0xFFFFu : 0x0000u;
        ck = mip_cksum_update16(mip_rd16(p), old_w, new_w);
        mip_wr16(p + off, new_w);
        mip_wr16(p, 0);
        CHECK_EQ(ck, mip_cksum_finish(mip_cksum_add(0, p, sizeof p)));
        mip_wr16(p, ck);
        CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, p, sizeof p)), 0);
    }
}

static void test_cksum_update32_matches_recompute(void)
{
    uint8_t p[40];
    int i;

    for (i = 0; i < 2000; i++) {
        size_t off;
        uint32_t old_v, new_v;
        uint16_t ck;

        random_packet(p, sizeof p);
        off = 4u + 2u * (size_t)(rng() % 17u); /* any word-aligned field */
        old_v = mip_rd32(p + off);
        new_v = rng();
        if (i % 13 == 0)
            new_v = (i % 2) ? 0xFFFFFFFFu : 0x00000000u;
        ck = mip_cksum_update32(mip_rd16(p), old_v, new_v);
        mip_wr32(p + off, new_v);
        mip_wr16(p, 0);
        CHECK_EQ(ck, mip_cksum_finish(mip_cksum_add(0, p, sizeof p)));
    }
}

static void test_cksum_update_to_all_zero_data_gives_zero(void)
{
    /* The one case where eqn. 3 and recomputation differ: both are one's
     * complement zero. Documented in checksum.h. */
    static const uint8_t zeros[4] = { 0 };
    uint8_t p[4] = { 0, 0, 0x12, 0x34 };

    mip_wr16(p, mip_cksum_finish(mip_cksum_add(0, p, 4)));
    CHECK_EQ(mip_cksum_update16(mip_rd16(p), 0x1234, 0x0000), 0x0000);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, zeros, sizeof zeros)), 0xFFFF);
}

static void test_cksum_pseudo4_known_udp_datagram(void)
{
    /* 192.168.0.1:1024 -> 192.168.0.199:53, payload "moteip!"; the expected
     * checksum was computed independently (Python). */
    static const uint8_t src[4] = { 192, 168, 0, 1 };
    static const uint8_t dst[4] = { 192, 168, 0, 199 };
    uint8_t udp[15] = { 0x04, 0x00, 0x00, 0x35, 0x00, 0x0f, 0x00, 0x00,
                        'm', 'o', 't', 'e', 'i', 'p', '!' };
    uint32_t ph = mip_cksum_pseudo4(src, dst, 17, sizeof udp);

    CHECK_EQ(mip_cksum_finish(mip_cksum_add(ph, udp, sizeof udp)), 0x0d3d);
    mip_wr16(udp + 6, 0x0d3d);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(ph, udp, sizeof udp)), 0);
}

static void test_cksum_pseudo6_known_udp_datagram(void)
{
    /* fe80::1 -> ff02::1, port 5683 both ways, payload "hello6" */
    static const uint8_t src[16] = { 0xfe, 0x80, [15] = 1 };
    static const uint8_t dst[16] = { 0xff, 0x02, [15] = 1 };
    uint8_t udp[14] = { 0x16, 0x33, 0x16, 0x33, 0x00, 0x0e, 0x00, 0x00,
                        'h', 'e', 'l', 'l', 'o', '6' };
    uint32_t ph = mip_cksum_pseudo6(src, dst, 17, sizeof udp);

    CHECK_EQ(mip_cksum_finish(mip_cksum_add(ph, udp, sizeof udp)), 0x91de);
    mip_wr16(udp + 6, 0x91de);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(ph, udp, sizeof udp)), 0);
}

static void test_cksum_pseudo6_counts_both_halves_of_length(void)
{
    static const uint8_t zero[16] = { 0 };

    /* 0x00012345 contributes 0x0001 + 0x2345 */
    CHECK_EQ(mip_cksum_finish(mip_cksum_pseudo6(zero, zero, 6, 0x00012345u)),
             mip_cksum_finish(0x0001u + 0x2345u + 6u));
}

/* The pseudo header's sum (one pass over both addresses under
 * MIP_CONF_CKSUM_WIDE 1) against the definition over its 40 bytes (RFC
 * 8200 8.1), for random addresses, all-ones ones (every carry) and every
 * length class. */
static void test_cksum_pseudo6_matches_definition(void)
{
    uint8_t ph[40];
    unsigned round, bad = 0;

    for (round = 0; round < 200; round++) {
        uint32_t l4 = round < 100 ? (rng() & 0xFFFFu) : rng();
        size_t i;
        for (i = 0; i < 32; i++)
            ph[i] = round >= 190 ? 0xFF : (uint8_t)rng();
        mip_wr32(ph + 32, l4);
        ph[36] = ph[37] = ph[38] = 0;
        ph[39] = (uint8_t)rng();
        if (mip_cksum_finish(mip_cksum_pseudo6(ph, ph + 16, ph[39], l4)) != ref_cksum(0, ph, 40))
            bad++;
    }
    CHECK_EQ(bad, 0);
}

int main(void)
{
    RUN(test_cksum_rfc1071_example);
    RUN(test_cksum_matches_definition_at_every_alignment);
    RUN(test_cksum_random_buffers_every_length_and_alignment);
    RUN(test_cksum_odd_length_pads_with_zero);
    RUN(test_cksum_all_ones_and_all_zeros);
    RUN(test_cksum_long_buffer_does_not_overflow);
    RUN(test_cksum_verifies_known_ipv4_header);
    RUN(test_cksum_update16_rfc1624_section4);
    RUN(test_cksum_update16_ttl_decrement);
    RUN(test_cksum_update16_matches_recompute);
    RUN(test_cksum_update32_matches_recompute);
    RUN(test_cksum_update_to_all_zero_data_gives_zero);
    RUN(test_cksum_pseudo4_known_udp_datagram);
    RUN(test_cksum_pseudo6_known_udp_datagram);
    RUN(test_cksum_pseudo6_counts_both_halves_of_length);
    RUN(test_cksum_pseudo6_matches_definition);
    return TESTING_DONE();
}
