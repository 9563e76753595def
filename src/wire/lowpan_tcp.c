/* moteip's TCP NHC for 6LoWPAN (see wire/lowpan_tcp.h, docs/LOWPAN.md). */
#include "moteip/config.h"
#include "moteip/wire/lowpan_tcp.h"
#include "moteip/wire/bytes.h"
#include <string.h>

#if MIP_CONF_LOWPAN_HC

#define TCP_MIN   20u
#define TCP_MAX   60u
#define FLAG_URG  0x20u
#define FLAG_ACK  0x10u

/* Compressed form, byte 1: SS AA W G O 0. */
#define C_SEQ_SHIFT 6u
#define C_ACK_SHIFT 4u
#define C_WIN     0x08u
#define C_FLAGS   0x04u
#define C_OPTS    0x02u
#define C_RSVD    0x01u
/* SS / AA: the number's low 8, 16 bits or all 32 */
#define N_8       0u
#define N_16      1u
#define N_32      2u

mip_status mip_lowpan_tcp_nhc_of(uint8_t b, struct mip_lowpan_tcp_nhc *out)
{
    if ((b & MIP_LOWPAN_NHC_TCP_MASK) != MIP_LOWPAN_NHC_TCP)
        return MIP_ERR_MALFORMED;
    out->cid = (uint8_t)(b & 3u);
    out->full = (b & MIP_LOWPAN_TCPHC_FULL) != 0u;
    out->refresh = (b & MIP_LOWPAN_TCPHC_REFRESH) != 0u;
    return MIP_OK;
}

static uint8_t nhc_byte(const struct mip_lowpan_tcp_nhc *n, bool full)
{
    return (uint8_t)(MIP_LOWPAN_NHC_TCP | (full ? MIP_LOWPAN_TCPHC_FULL : 0u) |
                     (n->refresh ? MIP_LOWPAN_TCPHC_REFRESH : 0u) | n->cid);
}

/* How v travels against ref: its low 8 bits only when it has not moved
 * (a data segment's acknowledgement number, an ACK's sequence number),
 * so a decompressor that missed frames in which it moved by up to 127
 * still decodes it; its low 16 bits when it moved by less than 32768
 * either way (a decompressor that missed up to that much decodes it);
 * else whole. The decoder takes the value nearest its reference with
 * those low bits. */
static uint8_t num_form(uint32_t v, uint32_t ref)
{
    uint32_t d = v - ref;
    if (d == 0u)
        return N_8;
    if (d <= 0x7FFFu || d >= 0xFFFF8000u)
        return N_16;
    return N_32;
}

static size_t put_num(uint8_t *p, uint8_t form, uint32_t v)
{
    if (form == N_8) {
        p[0] = (uint8_t)v;
        return 1;
    }
    if (form == N_16) {
        mip_wr16(p, (uint16_t)v);
        return 2;
    }
    mip_wr32(p, v);
    return 4;
}

/* What the compressed form cannot say, a context that does not fit, or a
 * segment that does not move its connection on: data at or before the
 * last sequence number sent (a retransmission; RFC 1144's compressor sends
 * those uncompressed too), or a segment without data whose acknowledgement
 * number stands (a duplicate ACK). Both follow a loss, and on this link
 * the context may have gone with it: every hop's compressor then
 * re-establishes its context, so a path whose contexts went wrong heals
 * with the segments that repair the data, whichever way they run. */
static bool needs_full(const uint8_t *tcp, size_t hl, size_t tcp_len,
                       const struct mip_lowpan_tcp_ctx *ctx)
{
    if (ctx == NULL || (tcp[12] & 0x0Fu) != 0u || (tcp[13] & FLAG_URG) != 0u ||
        mip_rd16(tcp + 18) != 0u || mip_rd16(tcp) != ctx->sport ||
        mip_rd16(tcp + 2) != ctx->dport || hl > TCP_MAX)
        return true;
    if (tcp_len > hl)
        return (int32_t)(mip_rd32(tcp + 4) - ctx->seq) <= 0;
    return mip_rd32(tcp + 8) == ctx->ack && (tcp[13] & FLAG_ACK) != 0u;
}

mip_status mip_lowpan_tcp_compress(const uint8_t *tcp, size_t tcp_len,
                                   const struct mip_lowpan_tcp_nhc *nhc,
                                   const struct mip_lowpan_tcp_ctx *ctx,
                                   uint8_t *out, size_t cap, size_t *consumed, size_t *out_len,
                                   bool *was_full)
{
    uint8_t buf[MIP_LOWPAN_TCPHC_MAX];
    size_t hl, n = 2;
    uint32_t seq, ack;
    uint8_t c, form;
    bool full;

    if (tcp_len < TCP_MIN)
        return MIP_ERR_TRUNCATED;
    hl = (size_t)(tcp[12] >> 4) * 4u;
    if (hl < TCP_MIN || nhc->cid >= MIP_LOWPAN_TCPHC_CIDS)
        return MIP_ERR_MALFORMED;
    if (tcp_len < hl)
        return MIP_ERR_TRUNCATED;
    full = nhc->full || needs_full(tcp, hl, tcp_len, ctx);
    if (full) {
        if (cap < 1u + hl)
            return MIP_ERR_NOSPACE;
        out[0] = nhc_byte(nhc, true);
        memcpy(out + 1, tcp, hl);
        *consumed = hl;
        *out_len = 1u + hl;
        *was_full = true;
        return MIP_OK;
    }
    seq = mip_rd32(tcp + 4);
    ack = mip_rd32(tcp + 8);
    form = num_form(seq, ctx->seq);
    c = (uint8_t)(form << C_SEQ_SHIFT);
    n += put_num(buf + n, form, seq);
    form = num_form(ack, ctx->ack);
    c |= (uint8_t)(form << C_ACK_SHIFT);
    n += put_num(buf + n, form, ack);
    if (mip_rd16(tcp + 14) != ctx->window) {
        c |= C_WIN;
        memcpy(buf + n, tcp + 14, 2);
        n += 2;
    }
    if (tcp[13] != ctx->flags) {
        c |= C_FLAGS;
        buf[n++] = tcp[13];
    }
    if (hl > TCP_MIN) {
        c |= C_OPTS;
        buf[n++] = (uint8_t)(hl - TCP_MIN);
        memcpy(buf + n, tcp + TCP_MIN, hl - TCP_MIN);
        n += hl - TCP_MIN;
    }
    memcpy(buf + n, tcp + 16, 2);   /* checksum: end to end */
    n += 2;
    buf[0] = nhc_byte(nhc, false);
    buf[1] = c;
    if (cap < n)
        return MIP_ERR_NOSPACE;
    memcpy(out, buf, n);
    *consumed = hl;
    *out_len = n;
    *was_full = false;
    return MIP_OK;
}

/* A bounded reader (as sixlowpan.c's). */
struct rd {
    const uint8_t *p;
    size_t len, pos;
};

static const uint8_t *take(struct rd *r, size_t n)
{
    const uint8_t *q;
    if (r->len - r->pos < n)
        return NULL;
    q = r->p + r->pos;
    r->pos += n;
    return q;
}

/* A number in form (N_8, N_16, N_32) against its reference: the value
 * nearest ref with those low bits. */
static mip_status rd_num(struct rd *r, uint8_t form, uint32_t ref, uint8_t *dst)
{
    static const uint8_t len[3] = {1, 2, 4};
    const uint8_t *q;
    uint32_t v;
    if (form > N_32)
        return MIP_ERR_MALFORMED;
    if ((q = take(r, len[form])) == NULL)
        return MIP_ERR_TRUNCATED;
    if (form == N_8)
        v = ref + (uint32_t)(int32_t)(int8_t)(uint8_t)(q[0] - (uint8_t)ref);
    else if (form == N_16)
        v = ref + (uint32_t)(int32_t)(int16_t)(uint16_t)(mip_rd16(q) - (uint16_t)ref);
    else
        v = mip_rd32(q);
    mip_wr32(dst, v);
    return MIP_OK;
}

static mip_status rd_compressed(struct rd *r, const struct mip_lowpan_tcp_ctx *ctx,
                                uint8_t *out, size_t cap, size_t *out_len)
{
    const uint8_t *q;
    uint8_t c;
    size_t ol = 0;
    mip_status st;
    if ((q = take(r, 1)) == NULL)
        return MIP_ERR_TRUNCATED;
    c = q[0];
    if ((c & C_RSVD) != 0u)
        return MIP_ERR_MALFORMED;
    if (ctx == NULL)
        return MIP_ERR_NOTFOUND;
    if (cap < TCP_MIN)
        return MIP_ERR_NOSPACE;
    memset(out, 0, TCP_MIN);
    mip_wr16(out, ctx->sport);
    mip_wr16(out + 2, ctx->dport);
    if ((st = rd_num(r, (uint8_t)(c >> C_SEQ_SHIFT), ctx->seq, out + 4)) != MIP_OK ||
        (st = rd_num(r, (uint8_t)((c >> C_ACK_SHIFT) & 3u), ctx->ack, out + 8)) != MIP_OK)
        return st;
    /* The compressor sends a window or flags byte inline only when it
     * differs from its reference. One equal to ours says the references
     * differ: a FULL that changed them was lost on the way here. That is
     * this end's context gone wrong, not a malformed frame: NOTFOUND, so
     * that the netif counts a mismatch and asks for a refresh (a
     * MALFORMED here left the connection refused for good). */
    mip_wr16(out + 14, ctx->window);
    if ((c & C_WIN) != 0u) {
        if ((q = take(r, 2)) == NULL)
            return MIP_ERR_TRUNCATED;
        if (mip_rd16(q) == ctx->window)
            return MIP_ERR_NOTFOUND;
        memcpy(out + 14, q, 2);
    }
    out[13] = ctx->flags;
    if ((c & C_FLAGS) != 0u) {
        if ((q = take(r, 1)) == NULL)
            return MIP_ERR_TRUNCATED;
        if (q[0] == ctx->flags)
            return MIP_ERR_NOTFOUND;
        if ((q[0] & FLAG_URG) != 0u)
            return MIP_ERR_MALFORMED;   /* never sent inline: it needs the urgent pointer */
        out[13] = q[0];
    }
    if ((c & C_OPTS) != 0u) {
        if ((q = take(r, 1)) == NULL)
            return MIP_ERR_TRUNCATED;
        ol = q[0];
        if (ol == 0u || ol % 4u != 0u || ol > TCP_MAX - TCP_MIN)
            return MIP_ERR_MALFORMED;
        if ((q = take(r, ol)) == NULL)
            return MIP_ERR_TRUNCATED;
        if (cap < TCP_MIN + ol)
            return MIP_ERR_NOSPACE;
        memcpy(out + TCP_MIN, q, ol);
    }
    /* URG from our reference: the compressor, whose reference it would be
     * too, sends such a header FULL; so the references differ */
    if ((out[13] & FLAG_URG) != 0u)
        return MIP_ERR_NOTFOUND;
    out[12] = (uint8_t)(((TCP_MIN + ol) / 4u) << 4);
    if ((q = take(r, 2)) == NULL)
        return MIP_ERR_TRUNCATED;
    memcpy(out + 16, q, 2);
    *out_len = TCP_MIN + ol;
    return MIP_OK;
}

mip_status mip_lowpan_tcp_decompress(const uint8_t *in, size_t in_len,
                                     const struct mip_lowpan_tcp_ctx *ctx,
                                     uint8_t *out, size_t cap, struct mip_lowpan_tcp_nhc *nhc,
                                     size_t *consumed, size_t *out_len)
{
    struct rd r = {in, in_len, 0};
    const uint8_t *q;
    size_t hl;
    mip_status st;
    if ((q = take(&r, 1)) == NULL)
        return MIP_ERR_TRUNCATED;
    st = mip_lowpan_tcp_nhc_of(q[0], nhc);
    if (st != MIP_OK)
        return st;
    if (!nhc->full) {
        st = rd_compressed(&r, ctx, out, cap, out_len);
        if (st != MIP_OK)
            return st;
        *consumed = r.pos;
        return MIP_OK;
    }
    if (in_len - r.pos < TCP_MIN)
        return MIP_ERR_TRUNCATED;
    hl = (size_t)(in[r.pos + 12] >> 4) * 4u;
    if (hl < TCP_MIN)
        return MIP_ERR_MALFORMED;
    if ((q = take(&r, hl)) == NULL)
        return MIP_ERR_TRUNCATED;
    if (cap < hl)
        return MIP_ERR_NOSPACE;
    memcpy(out, q, hl);
    *consumed = r.pos;
    *out_len = hl;
    return MIP_OK;
}

void mip_lowpan_tcp_ctx_update(struct mip_lowpan_tcp_ctx *ctx, const uint8_t *tcp, bool full)
{
    ctx->seq = mip_rd32(tcp + 4);
    ctx->ack = mip_rd32(tcp + 8);
    if (full) {
        ctx->sport = mip_rd16(tcp);
        ctx->dport = mip_rd16(tcp + 2);
        ctx->window = mip_rd16(tcp + 14);
        ctx->flags = tcp[13];
    }
}

#endif /* MIP_CONF_LOWPAN_HC */
