/*
 * The auxiliary security header codec (802.15.4-2015 s.9.4) and the MHR
 * parser's handling of the security enabled bit: the Annex C frames'
 * headers, round trips over every level and key identifier mode, every
 * truncation (exact-size heap copies for ASan), what is refused, and the
 * CCM* nonce layout.
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/config.h"
#include "moteip/wire/ieee802154.h"
#include "exact.h"
#include "testing.h"

#if !MIP_CONF_LLSEC
/* Compiled with link-layer security only (config.h MIP_CONF_LLSEC). */
int main(void)
{
    printf("built without MIP_CONF_LLSEC\n");
    return 77;
}
#else

/* 802.15.4 Annex C.2.2's secured data frame (2006 version, level 4,
 * key id mode 0, frame counter 5). */
static const uint8_t c22_frame[30] = {
    0x69, 0xDC, 0x84, 0x21, 0x43, 0x02, 0x00, 0x00, 0x00, 0x00, 0x48, 0xDE, 0xAC,
    0x01, 0x00, 0x00, 0x00, 0x00, 0x48, 0xDE, 0xAC, 0x04, 0x05, 0x00, 0x00, 0x00,
    0xD4, 0x3E, 0x02, 0x2B};

static mip_status sec_parse_exact(const uint8_t *buf, size_t len, struct mip_802154_sec *s,
                                  size_t *n)
{
    uint8_t *c = dup_exact(buf, len);
    mip_status st = mip_ieee802154_sec_parse(c, len, s, n);
    free(c);
    return st;
}

static void test_parse_annex_c_secured_frame(void)
{
    struct mip_802154_hdr h;
    struct mip_802154_sec s;
    size_t hl, al;
    static const uint8_t src[8] = {0xAC, 0xDE, 0x48, 0x00, 0x00, 0x00, 0x00, 0x01};
    CHECK_EQ(mip_ieee802154_parse(c22_frame, sizeof c22_frame, &h, &hl), MIP_ERR_UNSUPPORTED);
    CHECK_EQ(mip_ieee802154_parse_mhr(c22_frame, sizeof c22_frame, &h, &hl), MIP_OK);
    CHECK(h.security);
    CHECK_EQ(h.sec_level, 0);
    CHECK_EQ(h.version, 1);
    CHECK_EQ(hl, 21);
    CHECK_MEM(h.src.ext, src, 8);
    CHECK_EQ(mip_ieee802154_sec_parse(c22_frame + hl, sizeof c22_frame - hl, &s, &al), MIP_OK);
    CHECK_EQ(al, 5);
    CHECK_EQ(s.level, MIP_802154_SEC_ENC);
    CHECK_EQ(s.key_id_mode, MIP_802154_KEY_IMPLICIT);
    CHECK_EQ(s.frame_counter, 5);
}

static void test_round_trip_every_level_and_key_mode(void)
{
    struct mip_802154_sec s, g;
    uint8_t buf[MIP_802154_SEC_LEN_MAX + 2];
    size_t n, m;
    unsigned level, mode, bad = 0;
    static const size_t want_len[4] = {5, 6, 10, 14};
    for (level = 0; level < 8u; level++)
        for (mode = 0; mode < 4u; mode++) {
            memset(&s, 0, sizeof s);
            s.level = (uint8_t)level;
            s.key_id_mode = (uint8_t)mode;
            s.frame_counter = 0xA1B2C3D4u ^ level;
            if (mode >= 2u)
                memcpy(s.key_source, "\x11\x22\x33\x44\x55\x66\x77\x88", mode == 2u ? 4 : 8);
            if (mode != 0u)
                s.key_index = (uint8_t)(0x80u + mode);
            if (mip_ieee802154_sec_emit(&s, buf, sizeof buf, &n) != MIP_OK ||
                n != want_len[mode] || n != mip_ieee802154_sec_len(&s) ||
                sec_parse_exact(buf, n, &g, &m) != MIP_OK || m != n ||
                g.level != s.level || g.key_id_mode != s.key_id_mode ||
                g.frame_counter != s.frame_counter || g.key_index != s.key_index ||
                memcmp(g.key_source, s.key_source, sizeof s.key_source) != 0)
                bad++;
            /* the counter travels little-endian */
            if (buf[1] != (uint8_t)s.frame_counter || buf[4] != (uint8_t)(s.frame_counter >> 24))
                bad++;
            /* one byte short: NOSPACE; every shorter input: TRUNCATED */
            if (mip_ieee802154_sec_emit(&s, buf, n - 1u, &m) != MIP_ERR_NOSPACE)
                bad++;
            for (m = 0; m < n; m++) {
                size_t k;
                if (sec_parse_exact(buf, m, &g, &k) != MIP_ERR_TRUNCATED)
                    bad++;
            }
        }
    CHECK_EQ(bad, 0);
}

static void test_mic_lengths(void)
{
    static const size_t want[8] = {0, 4, 8, 16, 0, 4, 8, 16};
    unsigned level;
    for (level = 0; level < 8u; level++)
        CHECK_EQ(mip_ieee802154_mic_len((uint8_t)level), want[level]);
}

static void test_refused(void)
{
    struct mip_802154_sec s;
    struct mip_802154_hdr h;
    uint8_t b[16] = {0x05, 1, 0, 0, 0};
    uint8_t f[30];
    size_t n;
    unsigned bit;
    /* frame counter suppression, ASN in nonce, reserved bit 7 */
    for (bit = 5; bit < 8u; bit++) {
        b[0] = (uint8_t)(0x05u | (1u << bit));
        CHECK_EQ(sec_parse_exact(b, 5, &s, &n), MIP_ERR_UNSUPPORTED);
    }
    memset(&s, 0, sizeof s);
    s.level = 8;
    CHECK_EQ(mip_ieee802154_sec_emit(&s, b, sizeof b, &n), MIP_ERR_INVALID);
    s.level = 5;
    s.key_id_mode = 4;
    CHECK_EQ(mip_ieee802154_sec_emit(&s, b, sizeof b, &n), MIP_ERR_INVALID);
    /* the security bit in a 2003 frame (version 0): another format */
    memcpy(f, c22_frame, sizeof f);
    f[1] = (uint8_t)(f[1] & ~0x30u);
    CHECK_EQ(mip_ieee802154_parse_mhr(f, sizeof f, &h, &n), MIP_ERR_UNSUPPORTED);
    /* emit refuses it too; accepts it in version 1 and sets the bit */
    CHECK_EQ(mip_ieee802154_parse_mhr(c22_frame, sizeof c22_frame, &h, &n), MIP_OK);
    CHECK_EQ(mip_ieee802154_emit(&h, f, sizeof f, &n), MIP_OK);
    CHECK_MEM(f, c22_frame, n);
    h.version = 0;
    CHECK_EQ(mip_ieee802154_emit(&h, f, sizeof f, &n), MIP_ERR_INVALID);
}

static void test_nonce_layout(void)
{
    /* Annex C: source ACDE480000000001, counter 5, level 6 */
    static const uint8_t src[8] = {0xAC, 0xDE, 0x48, 0x00, 0x00, 0x00, 0x00, 0x01};
    static const uint8_t want[13] = {0xAC, 0xDE, 0x48, 0x00, 0x00, 0x00, 0x00, 0x01,
                                     0x00, 0x00, 0x00, 0x05, 0x06};
    uint8_t n[13];
    mip_ieee802154_nonce(src, 5, 6, n);
    CHECK_MEM(n, want, 13);
}

int main(void)
{
    RUN(test_parse_annex_c_secured_frame);
    RUN(test_round_trip_every_level_and_key_mode);
    RUN(test_mic_lengths);
    RUN(test_refused);
    RUN(test_nonce_layout);
    return TESTING_DONE();
}
#endif
