/*
 * libFuzzer harness over the 6LoWPAN-ND option codecs (src/wire/nd6lo.c).
 *
 * Input: an ND option area. The options are walked with the ND iterator
 * (wire/icmpv6.h); each is handed to every option parser (EARO, 6CO, ABRO,
 * PIO, 802.15.4 LLAO). A parser must refuse an option of another type
 * (UNSUPPORTED) and answer OK or MALFORMED for its own. What parses is
 * emitted, the emitted bytes must walk as exactly one option of the
 * reported length, parse again to the same fields, and emit again to the
 * same bytes; one byte less room must give NOSPACE and nothing written.
 *
 * Each option is parsed from a heap copy of exactly its bytes, so
 * AddressSanitizer catches a read one byte too far.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/wire/nd6lo.h"
#include "fuzz_check.h"

#define OUT_MAX 40u

/* The emitted bytes: one option of length w that the iterator walks. */
static struct mip_nd_opt reparse_one(const uint8_t *out, size_t w, uint8_t type)
{
    struct mip_nd_opt_iter it;
    struct mip_nd_opt o;
    CHECKF(w >= 8 && w <= OUT_MAX && w % 8 == 0);
    mip_nd_opt_iter_init(&it, out, w);
    CHECKF(mip_nd_opt_next(&it, &o) == MIP_OK);
    CHECKF(o.type == type && o.len + 2 == w);
    CHECKF(mip_nd_opt_next(&it, &o) == MIP_ERR_END);
    mip_nd_opt_iter_init(&it, out, w);
    (void)mip_nd_opt_next(&it, &o);
    return o;
}

static void fz_earo(const struct mip_nd_opt *o)
{
    struct mip_nd_earo a, b;
    uint8_t out[OUT_MAX], out2[OUT_MAX];
    size_t w = 99, w2;
    struct mip_nd_opt r;
    mip_status st = mip_nd_earo_parse(o, &a);
    if (o->type != MIP_ND_OPT_ARO) {
        CHECKF(st == MIP_ERR_UNSUPPORTED);
        return;
    }
    if (st != MIP_OK) {
        CHECKF(st == MIP_ERR_MALFORMED);
        return;
    }
    CHECKF(a.rovr_len + 6u == o->len && a.p <= 3 && a.i <= 3);
    CHECKF(mip_nd_earo_emit(&a, out, mip_nd_earo_len(a.rovr_len) - 1u, &w) == MIP_ERR_NOSPACE);
    CHECKF(w == 0);
    CHECKF(mip_nd_earo_emit(&a, out, sizeof out, &w) == MIP_OK);
    CHECKF(w == o->len + 2u);
    r = reparse_one(out, w, MIP_ND_OPT_ARO);
    CHECKF(mip_nd_earo_parse(&r, &b) == MIP_OK);
    CHECKF(memcmp(&a, &b, sizeof a) == 0);
    /* the bytes come back, but for the flags byte's reserved bits */
    CHECKF(memcmp(out + 2, o->data, 2) == 0 && memcmp(out + 5, o->data + 3, o->len - 3u) == 0);
    CHECKF((out[4] & 0x3Fu) == (o->data[2] & 0x3Fu));
    CHECKF(mip_nd_earo_emit(&b, out2, sizeof out2, &w2) == MIP_OK);
    CHECKF(w2 == w && memcmp(out, out2, w) == 0);
}

static void fz_6co(const struct mip_nd_opt *o)
{
    struct mip_nd_6co a, b;
    uint8_t out[OUT_MAX], out2[OUT_MAX];
    size_t w = 99, w2;
    struct mip_nd_opt r;
    mip_status st = mip_nd_6co_parse(o, &a);
    if (o->type != MIP_ND_OPT_6CO) {
        CHECKF(st == MIP_ERR_UNSUPPORTED);
        return;
    }
    if (st != MIP_OK) {
        CHECKF(st == MIP_ERR_MALFORMED);
        return;
    }
    CHECKF(a.ctx_len <= 128 && a.cid <= 15);
    CHECKF(a.ctx_len <= (o->len - 6u) * 8u);
    CHECKF(mip_nd_6co_emit(&a, out, mip_nd_6co_len(a.ctx_len) - 1u, &w) == MIP_ERR_NOSPACE);
    CHECKF(w == 0);
    CHECKF(mip_nd_6co_emit(&a, out, sizeof out, &w) == MIP_OK);
    CHECKF(w == mip_nd_6co_len(a.ctx_len) && w <= o->len + 2u);
    r = reparse_one(out, w, MIP_ND_OPT_6CO);
    CHECKF(mip_nd_6co_parse(&r, &b) == MIP_OK);
    /* a short context sent in a length-3 option comes back in length 2:
     * its prefix's last 8 bytes are not carried */
    CHECKF(a.ctx_len == b.ctx_len && a.c == b.c && a.cid == b.cid &&
           a.lifetime_min == b.lifetime_min && memcmp(a.prefix, b.prefix, w - 8u) == 0);
    CHECKF(mip_nd_6co_emit(&b, out2, sizeof out2, &w2) == MIP_OK);
    CHECKF(w2 == w && memcmp(out, out2, w) == 0);
}

static void fz_abro(const struct mip_nd_opt *o)
{
    struct mip_nd_abro a, b;
    uint8_t out[OUT_MAX];
    size_t w = 99;
    struct mip_nd_opt r;
    mip_status st = mip_nd_abro_parse(o, &a);
    if (o->type != MIP_ND_OPT_ABRO) {
        CHECKF(st == MIP_ERR_UNSUPPORTED);
        return;
    }
    if (st != MIP_OK) {
        CHECKF(st == MIP_ERR_MALFORMED && o->len != 22u);
        return;
    }
    CHECKF(mip_nd_abro_emit(&a, out, MIP_ND_ABRO_LEN - 1u, &w) == MIP_ERR_NOSPACE && w == 0);
    CHECKF(mip_nd_abro_emit(&a, out, sizeof out, &w) == MIP_OK && w == MIP_ND_ABRO_LEN);
    CHECKF(memcmp(out + 2, o->data, 22) == 0);
    r = reparse_one(out, w, MIP_ND_OPT_ABRO);
    CHECKF(mip_nd_abro_parse(&r, &b) == MIP_OK);
    CHECKF(memcmp(&a, &b, sizeof a) == 0);
}

static void fz_pio(const struct mip_nd_opt *o)
{
    struct mip_nd_pio a, b;
    uint8_t out[OUT_MAX];
    size_t w = 99;
    struct mip_nd_opt r;
    mip_status st = mip_nd_pio_parse(o, &a);
    if (o->type != MIP_ND_OPT_PREFIX) {
        CHECKF(st == MIP_ERR_UNSUPPORTED);
        return;
    }
    if (st != MIP_OK) {
        CHECKF(st == MIP_ERR_MALFORMED);
        return;
    }
    CHECKF(a.prefix_len <= 128 && (a.flags & 0x1Fu) == 0);
    CHECKF(mip_nd_pio_emit(&a, out, MIP_ND_PIO_LEN - 1u, &w) == MIP_ERR_NOSPACE && w == 0);
    CHECKF(mip_nd_pio_emit(&a, out, sizeof out, &w) == MIP_OK && w == MIP_ND_PIO_LEN);
    r = reparse_one(out, w, MIP_ND_OPT_PREFIX);
    CHECKF(mip_nd_pio_parse(&r, &b) == MIP_OK);
    CHECKF(memcmp(&a, &b, sizeof a) == 0);
}

static void fz_lla(const struct mip_nd_opt *o)
{
    struct mip_802154_addr a, b;
    uint8_t out[OUT_MAX];
    size_t w = 99;
    struct mip_nd_opt r;
    mip_status st = mip_nd_lla_802154_parse(o, &a);
    if (o->type != MIP_ND_OPT_SLLA && o->type != MIP_ND_OPT_TLLA) {
        CHECKF(st == MIP_ERR_UNSUPPORTED);
        return;
    }
    if (st != MIP_OK) {
        CHECKF(st == MIP_ERR_MALFORMED);
        return;
    }
    CHECKF(mip_nd_lla_802154_emit(o->type, &a, out, o->len + 1u, &w) == MIP_ERR_NOSPACE);
    CHECKF(w == 0);
    CHECKF(mip_nd_lla_802154_emit(o->type, &a, out, sizeof out, &w) == MIP_OK);
    CHECKF(w == o->len + 2u);
    r = reparse_one(out, w, o->type);
    CHECKF(mip_nd_lla_802154_parse(&r, &b) == MIP_OK);
    CHECKF(a.mode == b.mode && (a.mode == MIP_802154_ADDR_SHORT
                                    ? a.short_addr == b.short_addr
                                    : memcmp(a.ext, b.ext, 8) == 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mip_nd_opt_iter it;
    struct mip_nd_opt o;
    size_t steps = 0;
    mip_status st;
    mip_nd_opt_iter_init(&it, data, size);
    while ((st = mip_nd_opt_next(&it, &o)) == MIP_OK) {
        uint8_t *c = fuzz_dup_exact(o.data - 2, o.len + 2u);
        struct mip_nd_opt e = o;
        e.data = c + 2;
        CHECKF(++steps <= size / 8u);
        fz_earo(&e);
        fz_6co(&e);
        fz_abro(&e);
        fz_pio(&e);
        fz_lla(&e);
        free(c);
    }
    CHECKF(st == MIP_ERR_END || st == MIP_ERR_TRUNCATED || st == MIP_ERR_MALFORMED);
    return 0;
}
