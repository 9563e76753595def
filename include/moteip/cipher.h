/*
 * The block cipher behind IEEE 802.15.4 link-layer security (mac.h,
 * docs/MAC.md "Link-layer security"): AES-128 encryption of one block,
 * and CCM* (802.15.4-2015 s.9.3, Annex B) on top of it.
 *
 * The cipher is a small table of operations, so a port can back it with
 * its radio's AES engine (the CC2420's SAES, the AT86RF233's AES block,
 * the nRF52840's ECB peripheral all encrypt one 16-byte block with a
 * loaded key: exactly what CCM* needs, which never decrypts a block).
 * mip_aes128_soft() is the portable software table; hosts and the
 * simulator use it too (deterministic, no library to install, and the
 * same code the motes run is what the tests check).
 *
 * Contract of a table:
 *   set_key  loads a 128-bit key into ctx (copied; the caller's buffer
 *            may go). False when the engine refuses it.
 *   encrypt  block := AES-128_K(block) with the key last loaded into ctx.
 *            Never fails once a key is loaded.
 * ctx belongs to the caller (no heap, no globals): for the software
 * table a struct mip_aes128. Compiled with MIP_CONF_LLSEC (config.h), its
 * only user.
 */
#ifndef MOTEIP_CIPHER_H
#define MOTEIP_CIPHER_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/config.h"

#define MIP_AES_BLOCK   16u
#define MIP_AES_KEY_LEN 16u
#define MIP_CCM_NONCE_LEN 13u   /* 802.15.4: source(8) | counter(4) | level(1) */

struct mip_cipher_ops {
    bool (*set_key)(void *ctx, const uint8_t key[MIP_AES_KEY_LEN]);
    void (*encrypt)(void *ctx, uint8_t block[MIP_AES_BLOCK]);
};

/* A cipher: its table and the context the table works on. */
struct mip_cipher {
    const struct mip_cipher_ops *ops;
    void *ctx;
};

/* The software AES-128's context: the key only. Round keys are expanded
 * on the fly in each block (FIPS-197 s.5.2), trading ~10 % of its speed
 * for 160 bytes of RAM per key. */
struct mip_aes128 {
    uint8_t key[MIP_AES_KEY_LEN];
};

/* FIPS-197 AES-128, encryption only; ctx is a struct mip_aes128. */
const struct mip_cipher_ops *mip_aes128_soft(void);

/* CCM* (802.15.4-2015 Annex B: CCM of NIST SP 800-38C with L = 2, a
 * 13-byte nonce, and M = 0 allowed for encryption without a MIC).
 *
 * seal: authenticates a[0..alen) and m[0..mlen), writes the mic_len-byte
 * MIC to mic, and with `encrypt` replaces m by its ciphertext in place
 * (without it, m is authenticated as is: the caller passes it in `a`,
 * as 802.15.4 does for MIC-only levels, and mlen 0).
 * open: the reverse; decrypts m in place when `encrypt`, recomputes the
 * MIC and compares it with `mic` in constant time.
 * Pointers are valid for their lengths (a, m and mic may be NULL only with
 * length 0). Both return false for mic_len other than 0, 4, 8 or 16, or
 * alen + mlen of 0xFF00 or more; open also
 * when the MIC differs (m then holds garbage the caller must drop). (The
 * ground floor knows no mip_status: the MAC maps false to its own.) */
bool mip_ccm_star_seal(const struct mip_cipher *c, const uint8_t nonce[MIP_CCM_NONCE_LEN],
                       const uint8_t *a, size_t alen, uint8_t *m, size_t mlen,
                       bool encrypt, uint8_t *mic, size_t mic_len);
bool mip_ccm_star_open(const struct mip_cipher *c, const uint8_t nonce[MIP_CCM_NONCE_LEN],
                       const uint8_t *a, size_t alen, uint8_t *m, size_t mlen,
                       bool encrypt, const uint8_t *mic, size_t mic_len);

#endif
