/*
 * src/base: the ground floor beside wire/, for what every floor above may
 * use but that is not a header codec. Today that is the instance's random
 * generator (this file): the MAC draws its backoffs from it and core its
 * identifiers, so it sits below both. Files here include only the C library
 * and their own public headers (moteip/rng.h); nothing from wire/ or above.
 *
 * xoshiro128** (Blackman & Vigna): small, fast on 32-bit cores, and good
 * enough for identifiers and jitter. Secrets (TCP ISN keys) are drawn once
 * from it and then used with a keyed hash.
 */
#include "moteip/rng.h"

static uint32_t rotl32(uint32_t x, unsigned k)
{
    return (x << k) | (x >> (32u - k));
}

/* splitmix32-style mixing to spread arbitrary seed bytes over the state
 * and to avoid the all-zero state xoshiro cannot leave. */
static uint32_t mix32(uint32_t z)
{
    z = (z ^ (z >> 16)) * 0x85EBCA6Bu;
    z = (z ^ (z >> 13)) * 0xC2B2AE35u;
    return z ^ (z >> 16);
}

void mip_rng_seed(struct mip_rng *r, const uint8_t *entropy, size_t len)
{
    uint32_t acc = 0x9E3779B9u;
    size_t i;
    unsigned w;
    for (w = 0; w < 4; w++)
        r->s[w] = mix32(acc + (uint32_t)w * 0x6A09E667u);
    for (i = 0; i < len; i++) {
        w = (unsigned)(i & 3u);
        r->s[w] = mix32(r->s[w] ^ ((uint32_t)entropy[i] << (8u * (unsigned)((i >> 2) & 3u)))
                        ^ (uint32_t)i);
    }
    if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0)
        r->s[0] = 1;
    for (w = 0; w < 8; w++)
        (void)mip_rng_next(r);
}

uint32_t mip_rng_next(struct mip_rng *r)
{
    uint32_t result = rotl32(r->s[1] * 5u, 7) * 9u;
    uint32_t t = r->s[1] << 9;
    r->s[2] ^= r->s[0];
    r->s[3] ^= r->s[1];
    r->s[1] ^= r->s[2];
    r->s[0] ^= r->s[3];
    r->s[2] ^= t;
    r->s[3] = rotl32(r->s[3], 11);
    return result;
}

uint32_t mip_rng_below(struct mip_rng *r, uint32_t bound)
{
    /* Lemire's multiply-shift with rejection: unbiased, one division only
     * on the rare rejection path. A draw is rejected with probability
     * threshold / 2^32 < 1/2, so the loop is capped (no loop without a
     * bound): after 32 rejections in a row (p < 2^-32) the last draw is
     * taken with its tiny bias. */
    uint64_t m;
    uint32_t low, threshold;
    unsigned tries = 32u;
    if (bound == 0)
        return 0;
    m = (uint64_t)mip_rng_next(r) * bound;
    low = (uint32_t)m;
    if (low < bound) {
        threshold = (uint32_t)(0u - bound) % bound;
        while (low < threshold && --tries != 0u) {
            m = (uint64_t)mip_rng_next(r) * bound;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}
