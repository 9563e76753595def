/*
 * CCM* (IEEE 802.15.4-2015 Annex B; NIST SP 800-38C with L = 2 and a
 * 13-byte nonce, M = 0 meaning "no MIC") over any cipher table
 * (cipher.h). Only the block encryption is ever used: CBC-MAC for the
 * MIC, counter mode for the payload and for the MIC itself.
 */
#include <string.h>

#include "moteip/cipher.h"

#define CCM_L 2u

static bool mic_len_ok(size_t n)
{
    return n == 0u || n == 4u || n == 8u || n == 16u;
}

/* Counter block i: flags (L - 1) | nonce | i (big-endian, L bytes). */
static void ctr_block(uint8_t out[16], const uint8_t nonce[13], uint16_t i)
{
    out[0] = (uint8_t)(CCM_L - 1u);
    memcpy(out + 1, nonce, 13);
    out[14] = (uint8_t)(i >> 8);
    out[15] = (uint8_t)i;
}

/* XORs len bytes into the CBC-MAC state x at *pos, encrypting each full
 * block; a segment ends padded with zeros (s.B.4.1.2: a and m each start
 * on a block boundary). */
static void cbc_absorb(const struct mip_cipher *c, uint8_t x[16], unsigned *pos,
                       const uint8_t *p, size_t len)
{
    size_t i;
    for (i = 0; i < len; i++) {
        x[*pos] ^= p[i];
        if (++*pos == 16u) {
            c->ops->encrypt(c->ctx, x);
            *pos = 0;
        }
    }
}

static void cbc_pad(const struct mip_cipher *c, uint8_t x[16], unsigned *pos)
{
    if (*pos != 0u) {
        c->ops->encrypt(c->ctx, x);
        *pos = 0;
    }
}

/* The unencrypted MIC T over a and m (plaintext): s.B.4.1.2. */
static void cbc_mac(const struct mip_cipher *c, const uint8_t nonce[13], const uint8_t *a,
                    size_t alen, const uint8_t *m, size_t mlen, size_t mic_len, uint8_t x[16])
{
    uint8_t la[2];
    unsigned pos = 0;
    /* B0: flags (Adata, M' = (M - 2) / 2, L - 1) | nonce | l(m) */
    x[0] = (uint8_t)((alen != 0u ? 0x40u : 0u) | (((mic_len - 2u) / 2u) << 3) | (CCM_L - 1u));
    memcpy(x + 1, nonce, 13);
    x[14] = (uint8_t)(mlen >> 8);
    x[15] = (uint8_t)mlen;
    c->ops->encrypt(c->ctx, x);
    if (alen != 0u) {
        la[0] = (uint8_t)(alen >> 8);   /* l(a) < 2^16 - 2^8: two bytes */
        la[1] = (uint8_t)alen;
        cbc_absorb(c, x, &pos, la, 2);
        cbc_absorb(c, x, &pos, a, alen);
        cbc_pad(c, x, &pos);
    }
    cbc_absorb(c, x, &pos, m, mlen);
    cbc_pad(c, x, &pos);
}

/* m ^= S1, S2, ... (counter mode from block 1). */
static void ctr_crypt(const struct mip_cipher *c, const uint8_t nonce[13], uint8_t *m,
                      size_t mlen)
{
    uint8_t s[16];
    size_t off, k, n;
    uint16_t i = 1;
    for (off = 0; off < mlen; off += 16u, i++) {
        ctr_block(s, nonce, i);
        c->ops->encrypt(c->ctx, s);
        n = mlen - off < 16u ? mlen - off : 16u;
        for (k = 0; k < n; k++)
            m[off + k] ^= s[k];
    }
}

/* U = T ^ S0 (the MIC as it travels). */
static void mic_crypt(const struct mip_cipher *c, const uint8_t nonce[13], uint8_t *t,
                      size_t mic_len)
{
    uint8_t s[16];
    size_t k;
    ctr_block(s, nonce, 0);
    c->ops->encrypt(c->ctx, s);
    for (k = 0; k < mic_len; k++)
        t[k] ^= s[k];
}

static bool args_ok(const struct mip_cipher *c, const uint8_t *nonce, const uint8_t *a,
                    size_t alen, const uint8_t *m, size_t mlen, const uint8_t *mic,
                    size_t mic_len)
{
    return c != NULL && c->ops != NULL && nonce != NULL && mic_len_ok(mic_len) &&
           (a != NULL || alen == 0u) && (m != NULL || mlen == 0u) &&
           (mic != NULL || mic_len == 0u) && alen + mlen < 0xFF00u;
}

bool mip_ccm_star_seal(const struct mip_cipher *c, const uint8_t nonce[MIP_CCM_NONCE_LEN],
                       const uint8_t *a, size_t alen, uint8_t *m, size_t mlen,
                       bool encrypt, uint8_t *mic, size_t mic_len)
{
    uint8_t x[16];
    if (!args_ok(c, nonce, a, alen, m, mlen, mic, mic_len))
        return false;
    if (mic_len != 0u) {
        cbc_mac(c, nonce, a, alen, m, mlen, mic_len, x);
        memcpy(mic, x, mic_len);
        mic_crypt(c, nonce, mic, mic_len);
    }
    if (encrypt)
        ctr_crypt(c, nonce, m, mlen);
    return true;
}

bool mip_ccm_star_open(const struct mip_cipher *c, const uint8_t nonce[MIP_CCM_NONCE_LEN],
                       const uint8_t *a, size_t alen, uint8_t *m, size_t mlen,
                       bool encrypt, const uint8_t *mic, size_t mic_len)
{
    uint8_t x[16];
    uint8_t diff = 0;
    size_t k;
    if (!args_ok(c, nonce, a, alen, m, mlen, mic, mic_len))
        return false;
    if (encrypt)
        ctr_crypt(c, nonce, m, mlen);
    if (mic_len == 0u)
        return true;
    cbc_mac(c, nonce, a, alen, m, mlen, mic_len, x);
    mic_crypt(c, nonce, x, mic_len);
    for (k = 0; k < mic_len; k++)       /* constant time: no early exit */
        diff |= (uint8_t)(x[k] ^ mic[k]);
    return diff == 0u;
}
