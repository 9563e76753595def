/*
 * TCP header (RFC 9293) and options: MSS, window scale and timestamps
 * (RFC 7323), SACK (RFC 2018).
 */
#include "moteip/wire/tcp.h"
#include "moteip/wire/bytes.h"

#include <stdint.h>
#include <string.h>

#define TCP_OPTS_MAX        (MIP_TCP_HDR_MAX - MIP_TCP_HDR_LEN)
#define TCP_OPTLEN_MSS       4u
#define TCP_OPTLEN_WSCALE    3u
#define TCP_OPTLEN_SACK_PERM 2u
#define TCP_OPTLEN_TIMESTAMP 10u
#define TCP_SACK_BLOCK_LEN   8u
/* NOP, NOP, TIMESTAMP, its length: the first word of RFC 7323 appendix A's
 * layout, big-endian. */
#define TCP_OPTS_TS_LEAD ((uint32_t)MIP_TCP_OPT_NOP << 24 | (uint32_t)MIP_TCP_OPT_NOP << 16 | \
                          (uint32_t)MIP_TCP_OPT_TIMESTAMP << 8 | TCP_OPTLEN_TIMESTAMP)

mip_status mip_tcp_parse(const uint8_t *buf, size_t len, struct mip_tcp_hdr *out)
{
    size_t hdr_len;

    if (len < MIP_TCP_HDR_LEN)
        return MIP_ERR_TRUNCATED;
    hdr_len = (size_t)(buf[12] >> 4) * 4u;
    if (hdr_len < MIP_TCP_HDR_LEN)
        return MIP_ERR_MALFORMED;
    if (hdr_len > len)
        return MIP_ERR_TRUNCATED;

    out->src_port = mip_rd16(buf);
    out->dst_port = mip_rd16(buf + 2);
    out->seq = mip_rd32(buf + 4);
    out->ack = mip_rd32(buf + 8);
    out->hdr_len = (uint8_t)hdr_len;
    out->flags = buf[13];
    out->window = mip_rd16(buf + 14);
    out->checksum = mip_rd16(buf + 16);
    out->urgent = mip_rd16(buf + 18);
    return MIP_OK;
}

mip_status mip_tcp_emit(const struct mip_tcp_hdr *h, uint8_t *buf, size_t cap)
{
    if (cap < MIP_TCP_HDR_LEN)
        return MIP_ERR_NOSPACE;
    if (h->hdr_len < MIP_TCP_HDR_LEN || h->hdr_len > MIP_TCP_HDR_MAX ||
        (h->hdr_len & 3u) != 0u)
        return MIP_ERR_INVALID;

    mip_wr16(buf, h->src_port);
    mip_wr16(buf + 2, h->dst_port);
    mip_wr32(buf + 4, h->seq);
    mip_wr32(buf + 8, h->ack);
    buf[12] = (uint8_t)((h->hdr_len / 4u) << 4);
    buf[13] = h->flags;
    mip_wr16(buf + 14, h->window);
    mip_wr16(buf + 16, h->checksum);
    mip_wr16(buf + 18, h->urgent);
    return MIP_OK;
}

/* --- options: parse ------------------------------------------------------- */

/* Decodes one known option whose olen bytes at p are present. */
static mip_status opt_decode(const uint8_t *p, size_t olen, struct mip_tcp_opts *out)
{
    size_t n, i;

    switch (p[0]) {
    case MIP_TCP_OPT_MSS:
        if (olen != TCP_OPTLEN_MSS)
            return MIP_ERR_MALFORMED;
        out->mss = mip_rd16(p + 2);
        out->present |= MIP_TCP_HAS_MSS;
        break;
    case MIP_TCP_OPT_WSCALE:
        if (olen != TCP_OPTLEN_WSCALE)
            return MIP_ERR_MALFORMED;
        out->wscale = p[2];
        out->present |= MIP_TCP_HAS_WSCALE;
        break;
    case MIP_TCP_OPT_SACK_PERM:
        if (olen != TCP_OPTLEN_SACK_PERM)
            return MIP_ERR_MALFORMED;
        out->present |= MIP_TCP_HAS_SACK_PERM;
        break;
    case MIP_TCP_OPT_TIMESTAMP:
        if (olen != TCP_OPTLEN_TIMESTAMP)
            return MIP_ERR_MALFORMED;
        out->ts_val = mip_rd32(p + 2);
        out->ts_ecr = mip_rd32(p + 6);
        out->present |= MIP_TCP_HAS_TIMESTAMP;
        break;
    case MIP_TCP_OPT_SACK:
        n = (olen - 2u) / TCP_SACK_BLOCK_LEN;
        if ((olen - 2u) % TCP_SACK_BLOCK_LEN != 0u || n < 1u || n > MIP_TCP_SACK_MAX)
            return MIP_ERR_MALFORMED;
        for (i = 0u; i < n; i++) {
            out->sack[i].left = mip_rd32(p + 2u + i * TCP_SACK_BLOCK_LEN);
            out->sack[i].right = mip_rd32(p + 6u + i * TCP_SACK_BLOCK_LEN);
        }
        out->sack_count = (uint8_t)n;
        out->present |= MIP_TCP_HAS_SACK;
        break;
    default:
        break;  /* unknown: skipped by its length */
    }
    return MIP_OK;
}

mip_status mip_tcp_opts_parse(const uint8_t *opts, size_t len, struct mip_tcp_opts *out)
{
    size_t i = 0u;

    memset(out, 0, sizeof(*out));
    if (len > TCP_OPTS_MAX)
        return MIP_ERR_INVALID;
    /* RFC 7323 appendix A's layout (NOP NOP TIMESTAMP), on every segment of
     * a connection with timestamps: the walk's result without the walk. */
    if (len == 12u && mip_rd32(opts) == TCP_OPTS_TS_LEAD) {
        /* the lead checked the kind and the length: opt_decode's case */
        out->ts_val = mip_rd32(opts + 4);
        out->ts_ecr = mip_rd32(opts + 8);
        out->present = MIP_TCP_HAS_TIMESTAMP;
        return MIP_OK;
    }

    while (i < len) {
        size_t olen;
        mip_status st;

        if (opts[i] == MIP_TCP_OPT_EOL)
            break;
        if (opts[i] == MIP_TCP_OPT_NOP) {
            i++;
            continue;
        }
        /* Every step advances by at least 2, so the walk ends. */
        if (len - i < 2u)
            return MIP_ERR_MALFORMED;
        olen = opts[i + 1u];
        if (olen < 2u || olen > len - i)
            return MIP_ERR_MALFORMED;
        st = opt_decode(opts + i, olen, out);
        if (st != MIP_OK)
            return st;
        i += olen;
    }
    return MIP_OK;
}

/* --- options: emit -------------------------------------------------------- */

/*
 * Layout (each part a multiple of 4, 32-bit fields aligned as RFC 7323
 * appendix A suggests and as Linux sends them):
 *   MSS                      4
 *   NOP WSCALE               4
 *   SACK_PERM TIMESTAMP     12   (when both)
 *   NOP NOP SACK_PERM        4   (alone)
 *   NOP NOP TIMESTAMP       12   (alone)
 *   NOP NOP SACK         4+8n
 */
static size_t opts_len_no_sack(const struct mip_tcp_opts *o)
{
    size_t n = 0u;

    if (o->present & MIP_TCP_HAS_MSS)
        n += 4u;
    if (o->present & MIP_TCP_HAS_WSCALE)
        n += 4u;
    if (o->present & MIP_TCP_HAS_TIMESTAMP)
        n += 12u;
    else if (o->present & MIP_TCP_HAS_SACK_PERM)
        n += 4u;
    return n;
}

/* SACK blocks that fit after the other options. */
static size_t opts_sack_blocks(const struct mip_tcp_opts *o, size_t before)
{
    size_t n, fit;

    if (!(o->present & MIP_TCP_HAS_SACK) || before + 4u + TCP_SACK_BLOCK_LEN > TCP_OPTS_MAX)
        return 0u;
    n = o->sack_count < MIP_TCP_SACK_MAX ? o->sack_count : MIP_TCP_SACK_MAX;
    fit = (TCP_OPTS_MAX - before - 4u) / TCP_SACK_BLOCK_LEN;
    return n < fit ? n : fit;
}

size_t mip_tcp_opts_len(const struct mip_tcp_opts *o)
{
    size_t base = opts_len_no_sack(o);
    size_t n = opts_sack_blocks(o, base);

    return base + (n != 0u ? 4u + n * TCP_SACK_BLOCK_LEN : 0u);
}

static uint8_t *put_ts(uint8_t *p, const struct mip_tcp_opts *o)
{
    p[0] = MIP_TCP_OPT_TIMESTAMP;
    p[1] = TCP_OPTLEN_TIMESTAMP;
    mip_wr32(p + 2, o->ts_val);
    mip_wr32(p + 6, o->ts_ecr);
    return p + TCP_OPTLEN_TIMESTAMP;
}

static uint8_t *put_sack_perm(uint8_t *p)
{
    p[0] = MIP_TCP_OPT_SACK_PERM;
    p[1] = TCP_OPTLEN_SACK_PERM;
    return p + TCP_OPTLEN_SACK_PERM;
}

static uint8_t *put_sack(uint8_t *p, const struct mip_tcp_opts *o, size_t n)
{
    size_t i;

    p[0] = MIP_TCP_OPT_NOP;
    p[1] = MIP_TCP_OPT_NOP;
    p[2] = MIP_TCP_OPT_SACK;
    p[3] = (uint8_t)(2u + n * TCP_SACK_BLOCK_LEN);
    p += 4;
    for (i = 0u; i < n; i++) {
        mip_wr32(p, o->sack[i].left);
        mip_wr32(p + 4, o->sack[i].right);
        p += TCP_SACK_BLOCK_LEN;
    }
    return p;
}

mip_status mip_tcp_opts_emit(const struct mip_tcp_opts *o, uint8_t *buf, size_t cap,
                             size_t *written)
{
    size_t nsack = 0u;
    uint8_t *p = buf;
    bool ts = (o->present & MIP_TCP_HAS_TIMESTAMP) != 0u;
    bool sp = (o->present & MIP_TCP_HAS_SACK_PERM) != 0u;

    if (written != NULL)
        *written = 0u;
    /* Timestamps alone (every segment of a connection with timestamps): 12
     * bytes, NOP NOP TIMESTAMP, without the length computations. */
    if (o->present != MIP_TCP_HAS_TIMESTAMP || cap < 12u) {
        nsack = opts_sack_blocks(o, opts_len_no_sack(o));
        if (cap < mip_tcp_opts_len(o))
            return MIP_ERR_NOSPACE;
    }

    if (o->present & MIP_TCP_HAS_MSS) {
        p[0] = MIP_TCP_OPT_MSS;
        p[1] = TCP_OPTLEN_MSS;
        mip_wr16(p + 2, o->mss);
        p += TCP_OPTLEN_MSS;
    }
    if (o->present & MIP_TCP_HAS_WSCALE) {
        p[0] = MIP_TCP_OPT_NOP;
        p[1] = MIP_TCP_OPT_WSCALE;
        p[2] = TCP_OPTLEN_WSCALE;
        p[3] = o->wscale;
        p += 4;
    }
    if (!(sp && ts) && (sp || ts)) {
        *p++ = MIP_TCP_OPT_NOP;
        *p++ = MIP_TCP_OPT_NOP;
    }
    if (sp)
        p = put_sack_perm(p);
    if (ts)
        p = put_ts(p, o);
    if (nsack != 0u)
        p = put_sack(p, o, nsack);

    if (written != NULL)
        *written = (size_t)(p - buf);
    return MIP_OK;
}
