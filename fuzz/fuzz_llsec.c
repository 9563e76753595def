/*
 * libFuzzer harness for link-layer security on the MAC's input path
 * (src/mac/llsec.c, docs/MAC.md "Link-layer security"): a receiver MAC
 * with security on (level from the first input byte) is fed raw frames,
 * frames a sender with the same key secured (whole, or with one byte
 * changed, or truncated, or with the aux header's counter or control
 * rewritten), and replays of earlier ones, between time steps.
 *
 * What traps:
 *   - cb.input with a frame that is not the plaintext of one the sender
 *     secured (byte for byte, the security bit clear), or one of them
 *     passed up twice (a replay accepted);
 *   - cb.input with a header that mip_mac_rx_trusted does not trust, or
 *     whose sec_level is not the configured level;
 *   - a frame with a byte changed, or cut short, accepted (every byte is
 *     authenticated: its plaintext would match none the sender secured);
 *   - the MAC transmitting anything but 3-byte ACKs (it has nothing to send);
 *   - the replay table beyond its size, drop counters that disagree with
 *     what was delivered and what was passed up;
 *   - the sender using a frame counter twice, across reboots too: it
 *     stores its bound through `persist` (which the input may make fail),
 *     and a reboot starts from the bound stored last; a frame it refuses
 *     to secure is refused only while the store fails.
 * Input: byte 0 picks the level (1-3, 5-7), the key id mode (0-3) and the
 * sender's reservation (1, 3, 100 or 1000 counters per store); then
 * records, each an op byte and its operands (fuzz/README.md).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/mac.h"
#include "../src/mac/mac_proto.h"   /* mip_llsec_secure: the sender's securing */
#include "fuzz_check.h"

#if MIP_CONF_LLSEC

#define PAN  0xABCDu
#define RX_ADDR 0x0002u
#define TX_ADDR 0x0001u
#define SENT_MAX 32u

struct sent {
    uint8_t plain[MIP_MAC_FRAME_MAX], wire[MIP_MAC_FRAME_MAX];
    size_t plain_len, wire_len;
    bool up;                    /* passed up already */
};

struct h {
    struct mip_mac rx, tx;
    mip_utime_t now;
    bool busy;
    struct sent sent[SENT_MAX];
    unsigned n_sent, n_up;
    /* the sender's counter store, and every counter it used */
    uint32_t stored, reserve, last_counter;
    bool store_fails, used_any;
};

static bool persist(void *ctx, uint32_t upto)
{
    struct h *h = ctx;
    if (h->store_fails)
        return false;
    CHECKF(upto > h->stored);   /* a bound only grows */
    h->stored = upto;
    return true;
}

static mip_status radio_tx(void *ctx, const uint8_t *f, size_t len)
{
    struct h *h = ctx;
    CHECKF(len == MIP_802154_ACK_LEN && (f[0] & 7u) == MIP_802154_ACK && !h->busy);
    h->busy = true;
    return MIP_OK;
}

static bool radio_cca(void *ctx)
{
    (void)ctx;
    return true;
}

static const struct mip_radio_driver radio = { radio_tx, radio_cca, NULL, NULL };

static void input(void *ctx, const uint8_t *f, size_t len, size_t hl, const struct mip_802154_hdr *hdr,
                  mip_utime_t now)
{
    struct h *h = ctx;
    unsigned i;
    bool found = false;
    (void)hl;
    (void)now;
    CHECKF(mip_mac_rx_trusted(&h->rx, hdr) && hdr->sec_level == h->rx.cfg.sec.level);
    CHECKF(!hdr->security && (f[0] & 0x08u) == 0u);
    for (i = 0; i < h->n_sent && !found; i++) {
        struct sent *s = &h->sent[i];
        if (s->plain_len == len && memcmp(s->plain, f, len) == 0) {
            CHECKF(!s->up);     /* a replay passed up */
            s->up = true;
            found = true;
        }
    }
    CHECKF(found);              /* a frame the sender never secured */
    h->n_up++;
}

static bool ext_of(void *ctx, uint16_t pan, uint16_t s, uint8_t ext[8])
{
    (void)ctx;
    (void)pan;
    memset(ext, 0, 8);
    ext[0] = 0x02;
    ext[7] = (uint8_t)s;
    return s == TX_ADDR || s == RX_ADDR;
}

static void config(struct mip_mac_config *c, uint16_t me, uint8_t level, uint8_t mode,
                   struct h *store)
{
    static const uint8_t key[16] = {0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7,
                                    0xC8, 0xC9, 0xCA, 0xCB, 0xCC, 0xCD, 0xCE, 0xCF};
    uint8_t ext[8];
    (void)ext_of(NULL, PAN, me, ext);
    mip_mac_config_default(c, MIP_MAC_CSMA_CA, PAN, me, ext);
    c->sec.level = level;
    c->sec.key_id_mode = mode;
    c->sec.key_index = mode != 0u ? 7u : 0u;
    memcpy(c->sec.key_source, "\x11\x22\x33\x44\x55\x66\x77\x88", mode == 2u ? 4u : mode == 3u ? 8u : 0u);
    memcpy(c->sec.key, key, 16);
    c->sec.reserve = 1;
    c->sec.ext_of = ext_of;
    if (store != NULL) {        /* the sender: its counters from the store */
        c->sec.reserve = store->reserve;
        c->sec.counter = store->stored;
        c->sec.persist = persist;
        c->sec.persist_ctx = store;
    }
}

/* The input cursor. */
struct cur {
    const uint8_t *p;
    size_t n;
};

static uint8_t take(struct cur *c)
{
    uint8_t b = 0;
    if (c->n > 0u) {
        b = *c->p++;
        c->n--;
    }
    return b;
}

static void deliver(struct h *h, const uint8_t *f, size_t len)
{
    mip_mac_radio_rx(&h->rx, f, len, h->now);
    (void)mip_mac_poll(&h->rx, h->now);
}

static void step(struct h *h, uint32_t us)
{
    h->now += us;
    if (h->busy) {
        h->busy = false;
        mip_mac_radio_tx_done(&h->rx, h->now);
    }
    (void)mip_mac_poll(&h->rx, h->now);
}

/* The sender secures a data frame (payload from the input) for the
 * receiver or broadcast; kept in sent[]. */
static struct sent *secure_one(struct h *h, struct cur *c)
{
    struct mip_802154_hdr hd;
    struct sent *s;
    size_t hl = 0, plen = take(c) % 64u, k;
    uint32_t counter = mip_mac_sec_counter(&h->tx);
    if (h->n_sent == SENT_MAX)
        return NULL;
    s = &h->sent[h->n_sent];
    memset(&hd, 0, sizeof(hd));
    hd.type = (take(c) & 1u) ? MIP_802154_CMD : MIP_802154_DATA;
    hd.pan_id_compress = true;
    hd.version = 1;
    hd.seq = (uint8_t)h->n_sent;
    hd.dst_pan = hd.src_pan = PAN;
    hd.dst.mode = hd.src.mode = MIP_802154_ADDR_SHORT;
    hd.dst.short_addr = (take(c) & 1u) ? 0xFFFFu : RX_ADDR;
    hd.src.short_addr = TX_ADDR;
    if (mip_ieee802154_emit(&hd, s->plain, sizeof(s->plain), &hl) != MIP_OK)
        return NULL;
    for (k = 0; k < plen; k++)
        s->plain[hl + k] = take(c);
    s->plain_len = hl + plen;
    memcpy(s->wire, s->plain, s->plain_len);
    s->wire_len = mip_llsec_secure(&h->tx, s->wire, s->plain_len, sizeof(s->wire));
    if (s->wire_len == 0u) {
        CHECKF(h->store_fails);     /* the only refusal: a bound it could not store */
        return NULL;
    }
    CHECKF(s->wire_len == s->plain_len + mip_mac_sec_overhead(&h->tx.cfg));
    CHECKF(!h->used_any || counter > h->last_counter);   /* never a counter twice */
    CHECKF(counter < h->stored);                          /* only below a stored bound */
    CHECKF(mip_mac_sec_counter(&h->tx) == counter + 1u);
    h->last_counter = counter;
    h->used_any = true;
    /* what the receiver passes up: the MHR with the security bit clear
     * (and the 2006 version), the payload */
    s->plain[1] = (uint8_t)((s->plain[1] & ~0x30u) | 0x10u);
    if (hd.type == MIP_802154_CMD)
        s->plain_len = 0;       /* never passed up: not a data frame */
    h->n_sent++;
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t levels[6] = {1, 2, 3, 5, 6, 7};
    static const uint32_t reserves[4] = {1, 3, 100, 1000};
    static struct h h;
    struct mip_mac_config c;
    struct mip_mac_callbacks cb = { input, NULL, NULL, &h };
    struct cur cu = { data, size };
    uint8_t f[MIP_MAC_FRAME_MAX], b0 = take(&cu);
    uint8_t level = levels[b0 % 6u], mode = (uint8_t)((b0 >> 4) & 3u);
    struct sent *s;
    size_t len, k;
    unsigned ops;
    memset(&h, 0, sizeof(h));
    h.now = 1000000u;
    h.reserve = reserves[(b0 >> 6) & 3u];
    config(&c, RX_ADDR, level, mode, NULL);
    CHECKF(mip_mac_init(&h.rx, &c, &radio, &h, &cb, data, size < 8u ? size : 8u, h.now) == MIP_OK);
    config(&c, TX_ADDR, level, mode, &h);
    CHECKF(mip_mac_init(&h.tx, &c, &radio, &h, NULL, NULL, 0, h.now) == MIP_OK);
    for (ops = 0; ops < 200u && cu.n > 0u; ops++) {
        switch (take(&cu) % 7u) {
        case 0:                 /* raw bytes */
            len = take(&cu) % (MIP_MAC_FRAME_MAX + 1u);
            for (k = 0; k < len; k++)
                f[k] = take(&cu);
            deliver(&h, f, len);
            break;
        case 1:                 /* a secured frame, whole */
            if ((s = secure_one(&h, &cu)) != NULL)
                deliver(&h, s->wire, s->wire_len);
            break;
        case 2:                 /* a secured frame with one byte changed: never up */
            if ((s = secure_one(&h, &cu)) != NULL) {
                uint8_t x = take(&cu);
                memcpy(f, s->wire, s->wire_len);
                f[take(&cu) % s->wire_len] ^= (uint8_t)(x | 1u);
                deliver(&h, f, s->wire_len);
            }
            break;
        case 3:                 /* a secured frame cut short */
            if ((s = secure_one(&h, &cu)) != NULL) {
                len = take(&cu) % s->wire_len;
                deliver(&h, s->wire, len);
            }
            break;
        case 4:                 /* a replay of an earlier one */
            if (h.n_sent > 0u) {
                s = &h.sent[take(&cu) % h.n_sent];
                deliver(&h, s->wire, s->wire_len);
            }
            break;
        case 5:                 /* time */
            step(&h, (uint32_t)take(&cu) << 8);
            break;
        default: {              /* the sender's store fails or works; a reboot */
            uint8_t b = take(&cu);
            h.store_fails = (b & 2u) != 0u;
            if (b & 1u) {
                config(&c, TX_ADDR, level, mode, &h);
                CHECKF(mip_mac_init(&h.tx, &c, &radio, &h, NULL, NULL, 0, h.now) == MIP_OK);
            }
            break;
        }
        }
        CHECKF(h.rx.sec.n_nbr <= MIP_LLSEC_NEIGHBORS);
    }
    CHECKF(mip_mac_stat(&h.rx, MIP_MAC_STAT_rx_frames) == h.n_up);
    return 0;
}

#else
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)data;
    (void)size;
    return 0;
}
#endif
