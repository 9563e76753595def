/* Initial sequence numbers (RFC 6528) and SipHash-2-4: the 64 published
 * reference vectors, determinism, dependence on the secret and the 4-tuple,
 * and the 4-microsecond clock. */
#include <stdint.h>
#include "testing.h"
#include "moteip/tcp_parts.h"

/* SipHash-2-4 reference vectors (Aumasson & Bernstein, vectors.h of the
 * reference implementation): key 00 01 .. 0f, message i = 00 01 .. (i-1),
 * output as the little-endian 64-bit value. Also checked against an
 * independent Python implementation of the paper's algorithm. */
static const uint64_t sip_vectors[64] = {
    UINT64_C(0x726fdb47dd0e0e31),  /*  0 */
    UINT64_C(0x74f839c593dc67fd),  /*  1 */
    UINT64_C(0x0d6c8009d9a94f5a),  /*  2 */
    UINT64_C(0x85676696d7fb7e2d),  /*  3 */
    UINT64_C(0xcf2794e0277187b7),  /*  4 */
    UINT64_C(0x18765564cd99a68d),  /*  5 */
    UINT64_C(0xcbc9466e58fee3ce),  /*  6 */
    UINT64_C(0xab0200f58b01d137),  /*  7 */
    UINT64_C(0x93f5f5799a932462),  /*  8 */
    UINT64_C(0x9e0082df0ba9e4b0),  /*  9 */
    UINT64_C(0x7a5dbbc594ddb9f3),  /* 10 */
    UINT64_C(0xf4b32f46226bada7),  /* 11 */
    UINT64_C(0x751e8fbc860ee5fb),  /* 12 */
    UINT64_C(0x14ea5627c0843d90),  /* 13 */
    UINT64_C(0xf723ca908e7af2ee),  /* 14 */
    UINT64_C(0xa129ca6149be45e5),  /* 15 */
    UINT64_C(0x3f2acc7f57c29bdb),  /* 16 */
    UINT64_C(0x699ae9f52cbe4794),  /* 17 */
    UINT64_C(0x4bc1b3f0968dd39c),  /* 18 */
    UINT64_C(0xbb6dc91da77961bd),  /* 19 */
    UINT64_C(0xbed65cf21aa2ee98),  /* 20 */
    UINT64_C(0xd0f2cbb02e3b67c7),  /* 21 */
    UINT64_C(0x93536795e3a33e88),  /* 22 */
    UINT64_C(0xa80c038ccd5ccec8),  /* 23 */
    UINT64_C(0xb8ad50c6f649af94),  /* 24 */
    UINT64_C(0xbce192de8a85b8ea),  /* 25 */
    UINT64_C(0x17d835b85bbb15f3),  /* 26 */
    UINT64_C(0x2f2e6163076bcfad),  /* 27 */
    UINT64_C(0xde4daaaca71dc9a5),  /* 28 */
    UINT64_C(0xa6a2506687956571),  /* 29 */
    UINT64_C(0xad87a3535c49ef28),  /* 30 */
    UINT64_C(0x32d892fad841c342),  /* 31 */
    UINT64_C(0x7127512f72f27cce),  /* 32 */
    UINT64_C(0xa7f32346f95978e3),  /* 33 */
    UINT64_C(0x12e0b01abb051238),  /* 34 */
    UINT64_C(0x15e034d40fa197ae),  /* 35 */
    UINT64_C(0x314dffbe0815a3b4),  /* 36 */
    UINT64_C(0x027990f029623981),  /* 37 */
    UINT64_C(0xcadcd4e59ef40c4d),  /* 38 */
    UINT64_C(0x9abfd8766a33735c),  /* 39 */
    UINT64_C(0x0e3ea96b5304a7d0),  /* 40 */
    UINT64_C(0xad0c42d6fc585992),  /* 41 */
    UINT64_C(0x187306c89bc215a9),  /* 42 */
    UINT64_C(0xd4a60abcf3792b95),  /* 43 */
    UINT64_C(0xf935451de4f21df2),  /* 44 */
    UINT64_C(0xa9538f0419755787),  /* 45 */
    UINT64_C(0xdb9acddff56ca510),  /* 46 */
    UINT64_C(0xd06c98cd5c0975eb),  /* 47 */
    UINT64_C(0xe612a3cb9ecba951),  /* 48 */
    UINT64_C(0xc766e62cfcadaf96),  /* 49 */
    UINT64_C(0xee64435a9752fe72),  /* 50 */
    UINT64_C(0xa192d576b245165a),  /* 51 */
    UINT64_C(0x0a8787bf8ecb74b2),  /* 52 */
    UINT64_C(0x81b3e73d20b49b6f),  /* 53 */
    UINT64_C(0x7fa8220ba3b2ecea),  /* 54 */
    UINT64_C(0x245731c13ca42499),  /* 55 */
    UINT64_C(0xb78dbfaf3a8d83bd),  /* 56 */
    UINT64_C(0xea1ad565322a1a0b),  /* 57 */
    UINT64_C(0x60e61c23a3795013),  /* 58 */
    UINT64_C(0x6606d7e446282b93),  /* 59 */
    UINT64_C(0x6ca4ecb15c5f91e1),  /* 60 */
    UINT64_C(0x9f626da15c9625f3),  /* 61 */
    UINT64_C(0xe51b38608ef25f57),  /* 62 */
    UINT64_C(0x958a324ceb064572),  /* 63 */
};

static const uint8_t ref_key[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

static void test_siphash_reference_vectors(void)
{
    uint8_t msg[64];
    unsigned i;
    for (i = 0; i < 64; i++)
        msg[i] = (uint8_t)i;
    CHECK(mip_siphash24(ref_key, msg, 0) == UINT64_C(0x726fdb47dd0e0e31));
    for (i = 0; i < 64; i++) {
        uint64_t got = mip_siphash24(ref_key, msg, i);
        if (got != sip_vectors[i])
            fprintf(stderr, "siphash vector %u: got %016llx\n", i, (unsigned long long)got);
        CHECK(got == sip_vectors[i]);
    }
}

static void test_siphash_unaligned_input(void)
{
    uint8_t buf[80];
    unsigned i, off;
    for (off = 1; off < 8; off++) {
        for (i = 0; i < 64; i++)
            buf[off + i] = (uint8_t)i;
        for (i = 0; i < 64; i += 7)
            CHECK(mip_siphash24(ref_key, buf + off, i) == sip_vectors[i]);
    }
}

/* --- ISN helpers ---------------------------------------------------------- */

static uint32_t prng_state = 0x12345678u;

static uint32_t prng(void)
{
    /* xorshift32: fixed seed, reproducible. */
    uint32_t x = prng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    prng_state = x;
    return x;
}

static unsigned popcount32(uint32_t x)
{
    unsigned n = 0;
    while (x) {
        x &= x - 1u;
        n++;
    }
    return n;
}

static void addr4(struct mip_addr *a, uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3)
{
    memset(a, 0, sizeof(*a));
    a->family = MIP_AF_INET;
    a->bytes[0] = b0; a->bytes[1] = b1; a->bytes[2] = b2; a->bytes[3] = b3;
}

static void addr6_random(struct mip_addr *a)
{
    unsigned i;
    a->family = MIP_AF_INET6;
    for (i = 0; i < 16; i++)
        a->bytes[i] = (uint8_t)prng();
}

static void random_key(uint8_t key[16])
{
    unsigned i;
    for (i = 0; i < 16; i++)
        key[i] = (uint8_t)prng();
}

#define N_TUPLES 1000u

/* tcp_isn with the 4-tuple as separate arguments (the tests' form). */
static uint32_t isn6(const uint8_t key[16], const struct mip_addr *local, uint16_t lport,
                     const struct mip_addr *remote, uint16_t rport, mip_time_t now)
{
    struct tcp_tuple k;
    k.local = local;
    k.remote = remote;
    k.lport = lport;
    k.rport = rport;
    return tcp_isn(key, &k, now);
}

/* The ISN is now * 250 plus SipHash-2-4 of family | local | lport |
 * remote | rport (ports big-endian), folded: the documented message. */
static void test_isn_message_format(void)
{
    uint8_t key[16], msg[37];
    struct mip_addr l, r;
    uint64_t h;
    unsigned v;
    random_key(key);
    for (v = 0; v < 2; v++) {
        size_t n = 0, alen = v ? 16u : 4u;
        if (v) {
            addr6_random(&l);
            addr6_random(&r);
        } else {
            addr4(&l, 10, 0, 0, 1);
            addr4(&r, 192, 168, 7, 9);
        }
        msg[n++] = l.family;
        memcpy(msg + n, l.bytes, alen);
        n += alen;
        msg[n++] = 0xC0;
        msg[n++] = 0x01;     /* 49153 */
        memcpy(msg + n, r.bytes, alen);
        n += alen;
        msg[n++] = 0x01;
        msg[n++] = 0xBB;     /* 443 */
        h = mip_siphash24(key, msg, n);
        CHECK_EQ(isn6(key, &l, 49153, &r, 443, 1000),
                 (uint32_t)(250000u + ((uint32_t)h ^ (uint32_t)(h >> 32))));
    }
}

static void test_isn_deterministic(void)
{
    uint8_t key[16];
    struct mip_addr l, r;
    unsigned i;
    random_key(key);
    for (i = 0; i < 100; i++) {
        uint16_t lp = (uint16_t)prng(), rp = (uint16_t)prng();
        mip_time_t now = prng();
        addr6_random(&l);
        addr6_random(&r);
        CHECK_EQ(isn6(key, &l, lp, &r, rp, now), isn6(key, &l, lp, &r, rp, now));
    }
}

static void test_isn_advances_250_per_ms(void)
{
    uint8_t key[16];
    struct mip_addr l, r;
    uint32_t base;
    random_key(key);
    addr4(&l, 192, 0, 2, 1);
    addr4(&r, 198, 51, 100, 7);
    base = isn6(key, &l, 49152, &r, 80, 0);
    CHECK_EQ((uint32_t)(isn6(key, &l, 49152, &r, 80, 1) - base), 250u);
    CHECK_EQ((uint32_t)(isn6(key, &l, 49152, &r, 80, 1000) - base), 250000u);
    /* 4 us ticks wrap 2^32 after 17179869.184 ms; the ms clock wraps too. */
    CHECK_EQ((uint32_t)(isn6(key, &l, 49152, &r, 80, 17179869u) - base),
             (uint32_t)(17179869u * 250u));
    CHECK_EQ((uint32_t)(isn6(key, &l, 49152, &r, 80, 0xFFFFFFFFu) - base),
             (uint32_t)(0xFFFFFFFFu * 250u));
    CHECK_EQ((uint32_t)(isn6(key, &l, 49152, &r, 80, 0x80000005u)
                        - isn6(key, &l, 49152, &r, 80, 0x80000000u)), 1250u);
}

static void test_isn_distinct_secrets_unrelated(void)
{
    uint8_t ka[16], kb[16];
    struct mip_addr l, r;
    unsigned i, equal = 0, equal_diff = 0, bits = 0;
    uint32_t prev_a = 0, prev_b = 0;
    random_key(ka);
    random_key(kb);
    addr4(&l, 10, 0, 0, 1);
    addr4(&r, 10, 0, 0, 2);
    for (i = 0; i < N_TUPLES; i++) {
        uint32_t a = isn6(ka, &l, (uint16_t)(1024 + i), &r, 80, 5000);
        uint32_t b = isn6(kb, &l, (uint16_t)(1024 + i), &r, 80, 5000);
        equal += a == b;
        bits += popcount32(a ^ b);
        if (i > 0)
            equal_diff += (uint32_t)(a - prev_a) == (uint32_t)(b - prev_b);
        prev_a = a;
        prev_b = b;
    }
    CHECK(equal <= 1u);
    CHECK(equal_diff <= 1u);
    /* 32000 bits, half of them expected to differ: 16000 +- ~90 (1 sigma). */
    CHECK(bits > 15400u && bits < 16600u);
}

static void test_isn_consecutive_ports_unpredictable(void)
{
    uint8_t key[16];
    struct mip_addr l, r;
    static uint32_t diffs[N_TUPLES];
    unsigned i, j, repeats = 0, bits = 0;
    uint32_t prev;
    random_key(key);
    addr4(&l, 192, 0, 2, 1);
    addr4(&r, 203, 0, 113, 9);
    prev = isn6(key, &l, 40000, &r, 443, 777);
    for (i = 0; i < N_TUPLES; i++) {
        uint32_t cur = isn6(key, &l, (uint16_t)(40001 + i), &r, 443, 777);
        diffs[i] = cur - prev;
        bits += popcount32(cur ^ prev);
        prev = cur;
    }
    for (i = 0; i < N_TUPLES; i++)
        for (j = i + 1; j < N_TUPLES; j++)
            repeats += diffs[i] == diffs[j];
    CHECK(repeats <= 2u);        /* ~1e-4 expected among 5e5 random pairs */
    CHECK(bits > 15400u && bits < 16600u);
}

/* Flipping one key bit changes about half of the ISN bits, on average over
 * many tuples and every key bit. */
static void test_isn_key_avalanche(void)
{
    uint8_t key[16], k2[16];
    struct mip_addr l, r;
    unsigned bit, t;
    unsigned long total = 0, samples = 0;
    unsigned min_bit = 32;
    random_key(key);
    for (t = 0; t < 64; t++) {
        uint16_t lp = (uint16_t)prng(), rp = (uint16_t)prng();
        mip_time_t now = prng();
        uint32_t base;
        if (t & 1u) {
            addr6_random(&l);
            addr6_random(&r);
        } else {
            addr4(&l, (uint8_t)prng(), (uint8_t)prng(), (uint8_t)prng(), (uint8_t)prng());
            addr4(&r, (uint8_t)prng(), (uint8_t)prng(), (uint8_t)prng(), (uint8_t)prng());
        }
        base = isn6(key, &l, lp, &r, rp, now);
        for (bit = 0; bit < 128; bit++) {
            unsigned d;
            memcpy(k2, key, 16);
            k2[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            d = popcount32(base ^ isn6(k2, &l, lp, &r, rp, now));
            total += d;
            samples++;
            if (d < min_bit) min_bit = d;
        }
    }
    /* 8192 samples of Binomial(32, 1/2): mean 16, sd of the mean ~0.03. */
    CHECK(total * 100ul / samples > 1550ul && total * 100ul / samples < 1650ul);
    CHECK(min_bit > 0u);   /* a flipped key bit always changes the ISN */
}

static void test_isn_depends_on_every_tuple_field(void)
{
    uint8_t key[16];
    struct mip_addr l, r, l2, r2;
    uint32_t base;
    unsigned i;
    random_key(key);
    addr6_random(&l);
    addr6_random(&r);
    base = isn6(key, &l, 1234, &r, 80, 42);
    CHECK(base != isn6(key, &l, 1235, &r, 80, 42));
    CHECK(base != isn6(key, &l, 1234, &r, 81, 42));
    CHECK(base != isn6(key, &r, 1234, &l, 80, 42));   /* direction matters */
    CHECK(base != isn6(key, &l, 80, &r, 1234, 42));
    for (i = 0; i < 16; i++) {
        l2 = l;
        l2.bytes[i] ^= 1u;
        CHECK(base != isn6(key, &l2, 1234, &r, 80, 42));
        r2 = r;
        r2.bytes[i] ^= 0x80u;
        CHECK(base != isn6(key, &l, 1234, &r2, 80, 42));
    }
    /* IPv4: only the 4 address bytes count; the family is part of the input. */
    addr4(&l, 192, 0, 2, 1);
    addr4(&r, 192, 0, 2, 2);
    base = isn6(key, &l, 1, &r, 2, 0);
    l2 = l;
    l2.bytes[3] = 9;
    CHECK(base != isn6(key, &l2, 1, &r, 2, 0));
    l2 = l;
    l2.family = MIP_AF_INET6;
    r2 = r;
    r2.family = MIP_AF_INET6;
    CHECK(base != isn6(key, &l2, 1, &r2, 2, 0));
}

int main(void)
{
    RUN(test_siphash_reference_vectors);
    RUN(test_siphash_unaligned_input);
    RUN(test_isn_message_format);
    RUN(test_isn_deterministic);
    RUN(test_isn_advances_250_per_ms);
    RUN(test_isn_distinct_secrets_unrelated);
    RUN(test_isn_consecutive_ports_unpredictable);
    RUN(test_isn_key_avalanche);
    RUN(test_isn_depends_on_every_tuple_field);
    return TESTING_DONE();
}
