/* SipHash-2-4 (Aumasson & Bernstein, "SipHash: a fast short-input PRF",
 * 2012): 2 compression rounds per 8-byte word, 4 finalization rounds,
 * 128-bit key, 64-bit output. Words are read little-endian byte by byte,
 * so alignment and host byte order do not matter. */
#include "moteip/tcp_parts.h"

static uint64_t rotl64(uint64_t x, unsigned b)
{
    return (x << b) | (x >> (64u - b));
}

static uint64_t load_le64(const uint8_t *p)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 8; i-- > 0;)
        v = (v << 8) | p[i];
    return v;
}

static void sip_round(uint64_t v[4])
{
    v[0] += v[1]; v[1] = rotl64(v[1], 13); v[1] ^= v[0]; v[0] = rotl64(v[0], 32);
    v[2] += v[3]; v[3] = rotl64(v[3], 16); v[3] ^= v[2];
    v[0] += v[3]; v[3] = rotl64(v[3], 21); v[3] ^= v[0];
    v[2] += v[1]; v[1] = rotl64(v[1], 17); v[1] ^= v[2]; v[2] = rotl64(v[2], 32);
}

static void sip_compress(uint64_t v[4], uint64_t m)
{
    v[3] ^= m;
    sip_round(v);
    sip_round(v);
    v[0] ^= m;
}

uint64_t mip_siphash24(const uint8_t key[16], const uint8_t *data, size_t len)
{
    uint64_t k0 = load_le64(key), k1 = load_le64(key + 8);
    uint64_t v[4];
    uint64_t last;
    size_t i, full = len & ~(size_t)7u;
    unsigned rem = (unsigned)(len & 7u);

    v[0] = k0 ^ UINT64_C(0x736f6d6570736575);   /* "somepseudorandomlygeneratedbytes" */
    v[1] = k1 ^ UINT64_C(0x646f72616e646f6d);
    v[2] = k0 ^ UINT64_C(0x6c7967656e657261);
    v[3] = k1 ^ UINT64_C(0x7465646279746573);

    for (i = 0; i < full; i += 8u)
        sip_compress(v, load_le64(data + i));

    /* Last word: the remaining bytes, and len mod 256 in the top byte. */
    last = (uint64_t)(len & 0xFFu) << 56;
    while (rem-- > 0)
        last |= (uint64_t)data[full + rem] << (8u * rem);
    sip_compress(v, last);

    v[2] ^= 0xFFu;
    sip_round(v);
    sip_round(v);
    sip_round(v);
    sip_round(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}
