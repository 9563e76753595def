/*
 * CCM* (IEEE 802.15.4-2015 Annex B; NIST SP 800-38C with L = 2 and a
 * 13-byte nonce, M = 0 meaning "no MIC") over any cipher table
 * (cipher.h). Only the block encryption is ever used: CBC-MAC for the
 * MIC, counter mode for the payload and for the MIC itself. One routine
 * does both directions (the code is what a mote pays for: docs/MAC.md).
 */
#include <string.h>

#include "moteip/cipher.h"

#if MIP_CONF_LLSEC

#define CCM_L 2u

/* Block i of the counter (A_i) or, with flags of its own, B0: flags |
 * nonce | 16-bit big-endian i. */
static void block(uint8_t out[16], uint8_t flags, const uint8_t nonce[13], size_t i)
{
    out[0] = flags;
    memcpy(out + 1, nonce, 13);
    out[14] = (uint8_t)(i >> 8);
    out[15] = (uint8_t)i;
}

/* XORs len bytes into the CBC-MAC state x, a block at a time, the last
 * block padded with zeros (s.B.4.1.2: a and m each start a new block);
 * `pre` bytes of x were already used (a's 2-byte length). */
static void cbc(const struct mip_cipher *c, uint8_t x[16], size_t pre, const uint8_t *p,
                size_t len)
{
    size_t i, pos = pre;
    for (i = 0; i < len; i++) {
        x[pos] ^= p[i];
        if (++pos == 16u) {
            c->ops->encrypt(c->ctx, x);
            pos = 0;
        }
    }
    if (pos != 0u)
        c->ops->encrypt(c->ctx, x);
}

/* m ^= S_1, S_2, ... */
static void ctr(const struct mip_cipher *c, const uint8_t nonce[13], uint8_t *m, size_t mlen)
{
    uint8_t s[16];
    size_t k;
    for (k = 0; k < mlen; k++) {
        if (k % 16u == 0u) {
            block(s, CCM_L - 1u, nonce, k / 16u + 1u);
            c->ops->encrypt(c->ctx, s);
        }
        m[k] ^= s[k % 16u];
    }
}

/* Seals (open false) or opens in place; the MIC T ^ S_0 into t. */
static bool ccm(const struct mip_cipher *c, const uint8_t nonce[13], const uint8_t *a,
                size_t alen, uint8_t *m, size_t mlen, bool encrypt, uint8_t t[16],
                size_t mic_len, bool open)
{
    uint8_t x[16];
    size_t k;
    /* 0, 4, 8, 16: a power of two times 4, or 0 */
    if (alen + mlen >= 0xFF00u || (mic_len & (mic_len - 1u)) != 0u || mic_len == 2u ||
        mic_len == 1u || mic_len > 16u)
        return false;
    if (encrypt && open)
        ctr(c, nonce, m, mlen);
    if (mic_len != 0u) {
        block(x, (uint8_t)((alen != 0u ? 0x40u : 0u) | ((mic_len - 2u) / 2u) << 3 | (CCM_L - 1u)),
              nonce, mlen);
        c->ops->encrypt(c->ctx, x);
        if (alen != 0u) {
            x[0] ^= (uint8_t)(alen >> 8);       /* l(a) < 2^16 - 2^8: two bytes */
            x[1] ^= (uint8_t)alen;
            cbc(c, x, 2, a, alen);
        }
        cbc(c, x, 0, m, mlen);
        block(t, CCM_L - 1u, nonce, 0);
        c->ops->encrypt(c->ctx, t);
        for (k = 0; k < mic_len; k++)
            t[k] ^= x[k];
    }
    if (encrypt && !open)
        ctr(c, nonce, m, mlen);
    return true;
}

bool mip_ccm_star_seal(const struct mip_cipher *c, const uint8_t nonce[MIP_CCM_NONCE_LEN],
                       const uint8_t *a, size_t alen, uint8_t *m, size_t mlen,
                       bool encrypt, uint8_t *mic, size_t mic_len)
{
    uint8_t t[16];
    if (!ccm(c, nonce, a, alen, m, mlen, encrypt, t, mic_len, false))
        return false;
    memcpy(mic, t, mic_len);
    return true;
}

bool mip_ccm_star_open(const struct mip_cipher *c, const uint8_t nonce[MIP_CCM_NONCE_LEN],
                       const uint8_t *a, size_t alen, uint8_t *m, size_t mlen,
                       bool encrypt, const uint8_t *mic, size_t mic_len)
{
    uint8_t t[16], diff = 0;
    size_t k;
    if (!ccm(c, nonce, a, alen, m, mlen, encrypt, t, mic_len, true))
        return false;
    for (k = 0; k < mic_len; k++)       /* constant time: no early exit */
        diff |= (uint8_t)(t[k] ^ mic[k]);
    return diff == 0u;
}

#endif
