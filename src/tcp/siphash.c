/* SipHash-2-4 (Aumasson & Bernstein, "SipHash: a fast short-input PRF",
 * 2012): 2 compression rounds per 8-byte word, 4 finalization rounds,
 * 128-bit key, 64-bit output. Words are read little-endian byte by byte,
 * so alignment and host byte order do not matter.
 *
 * Small form for 8/16/32-bit cores: each 64-bit lane is two 32-bit halves
 * (v[2i] low, v[2i+1] high), and a SipRound is one loop over its four
 * add-rotate-xor steps, described by a table (no 64-bit shifts, so no
 * libgcc helper; on Cortex-M0+ 542 -> ~250 B). */
#include "moteip/tcp_parts.h"

/* One step of a SipRound: v[a] += v[b]; v[b] = rotl(v[b], r) ^ v[a];
 * then v[a] = rotl(v[a], 32) when SIP_SWAP. Lanes: a is v0 or v2 (SIP_A2),
 * b is v1 or v3 (SIP_B3); r in the low 5 bits. */
#define SIP_A2   0x80u
#define SIP_B3   0x40u
#define SIP_SWAP 0x20u
static const uint8_t sip_steps[4] = {
    SIP_SWAP | 13u,          /* v0 += v1; v1 = rotl(v1, 13) ^ v0; v0 = rotl(v0, 32) */
    SIP_A2 | SIP_B3 | 16u,   /* v2 += v3; v3 = rotl(v3, 16) ^ v2 */
    SIP_B3 | 21u,            /* v0 += v3; v3 = rotl(v3, 21) ^ v0 */
    SIP_A2 | SIP_SWAP | 17u, /* v2 += v1; v1 = rotl(v1, 17) ^ v2; v2 = rotl(v2, 32) */
};

/* "somepseudorandomlygeneratedbytes", as 32-bit halves, low first */
static const uint32_t sip_iv[8] = {
    0x70736575u, 0x736f6d65u, 0x6e646f6du, 0x646f7261u,
    0x6e657261u, 0x6c796765u, 0x79746573u, 0x74656462u,
};

static void sip_rounds(uint32_t v[8], unsigned rounds)
{
    unsigned k;
    for (k = 0; k < 4u * rounds; k++) {
        unsigned s = sip_steps[k & 3u], r = s & 31u, sw = (s & SIP_SWAP) ? 1u : 0u;
        uint32_t *a = v + ((s & SIP_A2) ? 4 : 0), *b = v + ((s & SIP_B3) ? 6 : 2);
        uint32_t blo = b[0], bhi = b[1], alo = a[0] + blo, ahi = a[1] + bhi + (alo < blo ? 1u : 0u);
        b[0] = ((blo << r) | (bhi >> (32u - r))) ^ alo;
        b[1] = ((bhi << r) | (blo >> (32u - r))) ^ ahi;
        a[sw] = alo;
        a[sw ^ 1u] = ahi;
    }
}

uint64_t mip_siphash24(const uint8_t key[16], const uint8_t *data, size_t len)
{
    uint32_t v[8], m[2];
    size_t i;
    unsigned n;

    /* v0 = k0 ^ iv0, v1 = k1 ^ iv1, v2 = k0 ^ iv2, v3 = k1 ^ iv3: byte n
     * of v is key byte n mod 16 */
    for (n = 0; n < 32u; n++) {
        if ((n & 3u) == 0)
            v[n >> 2] = sip_iv[n >> 2];
        v[n >> 2] ^= (uint32_t)key[n & 15u] << (8u * (n & 3u));
    }
    /* Every 8-byte word, then the last one: the remaining bytes, zeros,
     * and len mod 256 in the top byte. */
    for (i = 0; i < (len | 7u) + 1u; i += 8u) {
        m[0] = 0;
        m[1] = i + 8u > len ? (uint32_t)(len & 0xFFu) << 24 : 0u;
        for (n = 0; n < 8u && i + n < len; n++)
            m[n >> 2] |= (uint32_t)data[i + n] << (8u * (n & 3u));
        v[6] ^= m[0];
        v[7] ^= m[1];
        sip_rounds(v, 2);
        v[0] ^= m[0];
        v[1] ^= m[1];
    }
    v[4] ^= 0xFFu;
    sip_rounds(v, 4);
    return (uint64_t)(v[1] ^ v[3] ^ v[5] ^ v[7]) << 32 | (v[0] ^ v[2] ^ v[4] ^ v[6]);
}
