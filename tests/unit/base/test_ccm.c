/* The software AES-128 against FIPS-197's known answers, and CCM* over it
 * against IEEE 802.15.4 Annex C (the same vectors in 802.15.4-2006 C.2 and
 * 802.15.4-2015 C.2: key C0..CF, source ACDE480000000001, frame counter 5;
 * OpenThread's tests/unit/test_aes.cpp and Contiki-NG's CCM* test check
 * the same bytes). */
#include "testing.h"
#include "moteip/cipher.h"

#if !MIP_CONF_LLSEC
/* Compiled with link-layer security only (config.h MIP_CONF_LLSEC). */
int main(void)
{
    printf("built without MIP_CONF_LLSEC\n");
    return 77;
}
#else

static const uint8_t annex_c_key[16] = {0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7,
                                        0xC8, 0xC9, 0xCA, 0xCB, 0xCC, 0xCD, 0xCE, 0xCF};

static void keyed(struct mip_cipher *c, struct mip_aes128 *a, const uint8_t key[16])
{
    c->ops = mip_aes128_soft();
    c->ctx = a;
    CHECK(c->ops->set_key(a, key));
}

struct aes_case {
    uint8_t key[16], in[16], out[16];
};

static void test_aes128_fips197_known_answers(void)
{
    static const struct aes_case cases[] = {
        /* FIPS-197 Appendix B (the cipher example) */
        {{0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf,
          0x4f, 0x3c},
         {0x32, 0x43, 0xf6, 0xa8, 0x88, 0x5a, 0x30, 0x8d, 0x31, 0x31, 0x98, 0xa2, 0xe0, 0x37,
          0x07, 0x34},
         {0x39, 0x25, 0x84, 0x1d, 0x02, 0xdc, 0x09, 0xfb, 0xdc, 0x11, 0x85, 0x97, 0x19, 0x6a,
          0x0b, 0x32}},
        /* FIPS-197 Appendix C.1 (AES-128) */
        {{0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d,
          0x0e, 0x0f},
         {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd,
          0xee, 0xff},
         {0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4,
          0xc5, 0x5a}},
    };
    struct mip_cipher c;
    struct mip_aes128 a;
    uint8_t b[16];
    unsigned i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        keyed(&c, &a, cases[i].key);
        memcpy(b, cases[i].in, 16);
        c.ops->encrypt(c.ctx, b);
        CHECK_MEM(b, cases[i].out, 16);
    }
}

/* One Annex C frame: a = the first alen bytes, m = the next mlen (the
 * private payload), the MIC after it. */
struct annex_case {
    const char *name;
    uint8_t level;
    const uint8_t *plain, *secured;
    size_t alen, mlen, mic_len;
};

static const uint8_t c21_plain[] = {  /* C.2.1 beacon, level 2 (MIC-64) */
    0x08, 0xD0, 0x84, 0x21, 0x43, 0x01, 0x00, 0x00, 0x00, 0x00, 0x48, 0xDE, 0xAC,
    0x02, 0x05, 0x00, 0x00, 0x00, 0x55, 0xCF, 0x00, 0x00, 0x51, 0x52, 0x53, 0x54};
static const uint8_t c21_secured[] = {
    0x08, 0xD0, 0x84, 0x21, 0x43, 0x01, 0x00, 0x00, 0x00, 0x00, 0x48, 0xDE, 0xAC,
    0x02, 0x05, 0x00, 0x00, 0x00, 0x55, 0xCF, 0x00, 0x00, 0x51, 0x52, 0x53, 0x54,
    0x22, 0x3B, 0xC1, 0xEC, 0x84, 0x1A, 0xB5, 0x53};
static const uint8_t c22_plain[] = {  /* C.2.2 data frame, level 4 (ENC) */
    0x69, 0xDC, 0x84, 0x21, 0x43, 0x02, 0x00, 0x00, 0x00, 0x00, 0x48, 0xDE, 0xAC,
    0x01, 0x00, 0x00, 0x00, 0x00, 0x48, 0xDE, 0xAC, 0x04, 0x05, 0x00, 0x00, 0x00,
    0x61, 0x62, 0x63, 0x64};
static const uint8_t c22_secured[] = {
    0x69, 0xDC, 0x84, 0x21, 0x43, 0x02, 0x00, 0x00, 0x00, 0x00, 0x48, 0xDE, 0xAC,
    0x01, 0x00, 0x00, 0x00, 0x00, 0x48, 0xDE, 0xAC, 0x04, 0x05, 0x00, 0x00, 0x00,
    0xD4, 0x3E, 0x02, 0x2B};
static const uint8_t c23_plain[] = {  /* C.2.3 MAC command, level 6 (ENC-MIC-64) */
    0x2B, 0xDC, 0x84, 0x21, 0x43, 0x02, 0x00, 0x00, 0x00, 0x00, 0x48, 0xDE, 0xAC,
    0xFF, 0xFF, 0x01, 0x00, 0x00, 0x00, 0x00, 0x48, 0xDE, 0xAC, 0x06, 0x05, 0x00,
    0x00, 0x00, 0x01, 0xCE};
static const uint8_t c23_secured[] = {
    0x2B, 0xDC, 0x84, 0x21, 0x43, 0x02, 0x00, 0x00, 0x00, 0x00, 0x48, 0xDE, 0xAC,
    0xFF, 0xFF, 0x01, 0x00, 0x00, 0x00, 0x00, 0x48, 0xDE, 0xAC, 0x06, 0x05, 0x00,
    0x00, 0x00, 0x01, 0xD8, 0x4F, 0xDE, 0x52, 0x90, 0x61, 0xF9, 0xC6, 0xF1};

static const struct annex_case annex_cases[] = {
    {"C.2.1", 2, c21_plain, c21_secured, 26, 0, 8},
    {"C.2.2", 4, c22_plain, c22_secured, 26, 4, 0},
    {"C.2.3", 6, c23_plain, c23_secured, 29, 1, 8},
};

static void nonce_of(uint8_t level, uint8_t n[13])
{
    static const uint8_t src_ctr[12] = {0xAC, 0xDE, 0x48, 0x00, 0x00, 0x00, 0x00, 0x01,
                                        0x00, 0x00, 0x00, 0x05};
    memcpy(n, src_ctr, 12);
    n[12] = level;
}

static void test_ccm_star_seals_annex_c_frames(void)
{
    struct mip_cipher c;
    struct mip_aes128 a;
    uint8_t frame[64], n[13];
    unsigned i;
    keyed(&c, &a, annex_c_key);
    for (i = 0; i < sizeof(annex_cases) / sizeof(annex_cases[0]); i++) {
        const struct annex_case *k = &annex_cases[i];
        size_t total = k->alen + k->mlen + k->mic_len;
        memcpy(frame, k->plain, k->alen + k->mlen);
        nonce_of(k->level, n);
        CHECK_EQ(mip_ccm_star_seal(&c, n, frame, k->alen, frame + k->alen, k->mlen,
                                   k->level >= 4u, frame + k->alen + k->mlen, k->mic_len),
                 true);
        if (memcmp(frame, k->secured, total) != 0)
            fprintf(stderr, "Annex %s differs\n", k->name);
        CHECK_MEM(frame, k->secured, total);
    }
}

static void test_ccm_star_opens_annex_c_frames_and_rejects_any_flipped_bit(void)
{
    struct mip_cipher c;
    struct mip_aes128 a;
    uint8_t frame[64], n[13];
    unsigned i, bit, rejected, tried;
    keyed(&c, &a, annex_c_key);
    for (i = 0; i < sizeof(annex_cases) / sizeof(annex_cases[0]); i++) {
        const struct annex_case *k = &annex_cases[i];
        size_t total = k->alen + k->mlen + k->mic_len;
        bool enc = k->level >= 4u;
        nonce_of(k->level, n);
        memcpy(frame, k->secured, total);
        CHECK_EQ(mip_ccm_star_open(&c, n, frame, k->alen, frame + k->alen, k->mlen, enc,
                                   frame + k->alen + k->mlen, k->mic_len), true);
        CHECK_MEM(frame, k->plain, k->alen + k->mlen);
        if (k->mic_len == 0u)
            continue;           /* ENC alone authenticates nothing */
        rejected = tried = 0;
        for (bit = 0; bit < total * 8u; bit++) {
            memcpy(frame, k->secured, total);
            frame[bit / 8u] ^= (uint8_t)(1u << (bit % 8u));
            tried++;
            rejected += !mip_ccm_star_open(&c, n, frame, k->alen, frame + k->alen, k->mlen,
                                           enc, frame + k->alen + k->mlen, k->mic_len);
        }
        CHECK_EQ(rejected, tried);
        /* the nonce (source, counter, level) is authenticated too */
        memcpy(frame, k->secured, total);
        n[11] ^= 1u;
        CHECK_EQ(mip_ccm_star_open(&c, n, frame, k->alen, frame + k->alen, k->mlen, enc,
                                   frame + k->alen + k->mlen, k->mic_len), false);
    }
}

/* Every MIC length and both modes round-trip over lengths that cross the
 * block boundaries of a and m. */
static void test_ccm_star_round_trips_every_level_and_length(void)
{
    struct mip_cipher c;
    struct mip_aes128 a;
    uint8_t buf[160], orig[160], mic[16], n[13];
    static const size_t mics[] = {0, 4, 8, 16};
    size_t alen, mlen, i, mi;
    unsigned bad = 0, runs = 0;
    keyed(&c, &a, annex_c_key);
    for (i = 0; i < sizeof(buf); i++)
        orig[i] = (uint8_t)(i * 7u + 3u);
    for (mi = 0; mi < 4u; mi++)
        for (alen = 0; alen <= 40u; alen += 5u)
            for (mlen = 0; mlen <= 100u; mlen += 11u) {
                bool enc = mics[mi] == 0u || (mlen & 1u) != 0u;
                nonce_of((uint8_t)mi, n);
                memcpy(buf, orig, sizeof(buf));
                runs++;
                if (!mip_ccm_star_seal(&c, n, buf, alen, buf + alen, mlen, enc, mic,
                                       mics[mi]) ||
                    (enc && mlen >= 4u && memcmp(buf + alen, orig + alen, mlen) == 0) ||
                    !mip_ccm_star_open(&c, n, buf, alen, buf + alen, mlen, enc, mic,
                                       mics[mi]) ||
                    memcmp(buf, orig, alen + mlen) != 0)
                    bad++;
            }
    CHECK_EQ(bad, 0);
    CHECK(runs > 100u);
}

static void test_ccm_star_refuses_bad_arguments(void)
{
    struct mip_cipher c;
    struct mip_aes128 a;
    uint8_t buf[8] = {0}, mic[16], n[13] = {0};
    keyed(&c, &a, annex_c_key);
    CHECK_EQ(mip_ccm_star_seal(&c, n, buf, 4, buf + 4, 4, true, mic, 6), false);
    CHECK_EQ(mip_ccm_star_seal(&c, n, buf, 4, buf + 4, 4, true, mic, 2), false);
    CHECK_EQ(mip_ccm_star_open(&c, n, buf, 4, buf + 4, 4, true, mic, 12), false);
    CHECK_EQ(mip_ccm_star_seal(&c, n, buf, 4, buf + 4, 4, true, mic, 32), false);
    CHECK_EQ(mip_ccm_star_seal(&c, n, buf, 0xFF00u, buf, 0, false, mic, 4), false);
}

int main(void)
{
    RUN(test_aes128_fips197_known_answers);
    RUN(test_ccm_star_seals_annex_c_frames);
    RUN(test_ccm_star_opens_annex_c_frames_and_rejects_any_flipped_bit);
    RUN(test_ccm_star_round_trips_every_level_and_length);
    RUN(test_ccm_star_refuses_bad_arguments);
    return TESTING_DONE();
}
#endif
