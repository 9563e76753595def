/*
 * libFuzzer harness for moteip's TCP NHC (src/wire/lowpan_tcp.c,
 * docs/LOWPAN.md). Input: [1 byte: bit 0 the decompressor has a context,
 * bits 2-3 a CID, bit 4 R][15 bytes: the context: ports, seq, ack, window,
 * flags][the rest: a compressed TCP NHC, and read again as a TCP header].
 *
 * Invariants: decompression reads from an exact-size copy (ASan catches a
 * read past it) and consumes no more than it was given; a header it
 * rebuilds has a data offset of 5..15 words and no URG in the compressed
 * form; compressing that header again with the same context and decoding
 * it gives it back byte for byte, in at most 2 bytes more than it came in
 * (two 8-bit numbers that moved go in 16) unless it went FULL; and any input that compresses as a TCP header decodes back
 * to itself from the context the compressor used (or none after FULL).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/lowpan_tcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const uint8_t *tcp, size_t len, const struct mip_lowpan_tcp_nhc *nhc,
                       const struct mip_lowpan_tcp_ctx *ctx, size_t came_in)
{
    uint8_t enc[MIP_LOWPAN_TCPHC_MAX], out[60], *c;
    struct mip_lowpan_tcp_nhc got;
    size_t consumed = 0, n = 0, c2 = 0, ol = 0;
    bool full = false;
    if (mip_lowpan_tcp_compress(tcp, len, nhc, ctx, enc, sizeof enc, &consumed, &n, &full) !=
        MIP_OK)
        return;
    CHECKF(n >= 1 && n <= MIP_LOWPAN_TCPHC_MAX && consumed >= 20 && consumed <= len);
    CHECKF(full || !nhc->full);
    /* an 8-bit number the decoder placed off its reference comes back in
     * 16 bits (the compressor sends 8 only for a number that stood) */
    if (came_in != 0 && !full)
        CHECKF(n <= came_in + 2u);
    c = fuzz_dup_exact(enc, n);
    CHECKF(mip_lowpan_tcp_decompress(c, n, full ? NULL : ctx, out, sizeof out, &got, &c2, &ol) ==
           MIP_OK);
    CHECKF(c2 == n && ol == consumed && memcmp(out, tcp, ol) == 0);
    CHECKF(got.cid == nhc->cid && got.refresh == nhc->refresh && got.full == full);
    free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mip_lowpan_tcp_ctx ctx;
    struct mip_lowpan_tcp_nhc nhc, got;
    uint8_t out[60], *copy;
    size_t consumed = 0, ol = 0;
    bool have;
    if (size < 16)
        return 0;
    have = (data[0] & 1u) != 0u;
    nhc.cid = (uint8_t)((data[0] >> 2) & 3u);
    nhc.refresh = (data[0] & 0x10u) != 0u;
    nhc.full = false;
    ctx.sport = mip_rd16(data + 1);
    ctx.dport = mip_rd16(data + 3);
    ctx.seq = mip_rd32(data + 5);
    ctx.ack = mip_rd32(data + 9);
    ctx.window = mip_rd16(data + 13);
    ctx.flags = data[15];
    data += 16;
    size -= 16;
    copy = fuzz_dup_exact(data, size);
    if (mip_lowpan_tcp_decompress(copy, size, have ? &ctx : NULL, out, sizeof out, &got,
                                  &consumed, &ol) == MIP_OK) {
        CHECKF(consumed >= 2 && consumed <= size);
        CHECKF(ol >= 20 && ol <= 60 && ol % 4u == 0 && (size_t)(out[12] >> 4) * 4u == ol);
        if (!got.full)
            CHECKF((out[13] & 0x20u) == 0 && mip_rd16(out + 18) == 0 && (out[12] & 0x0Fu) == 0);
        nhc.cid = got.cid;
        nhc.refresh = got.refresh;
        round_trip(out, ol, &nhc, got.full ? NULL : &ctx, got.full ? 0 : consumed);
    }
    nhc.full = false;
    round_trip(copy, size, &nhc, have ? &ctx : NULL, 0);
    free(copy);
    return 0;
}
