/*
 * The application overlay's codec (include/moteip/wire/overlay.h).
 */
#include <string.h>

#include "moteip/wire/bytes.h"
#include "moteip/wire/overlay.h"

#define VT(type) (uint8_t)((MIP_OVL_VERSION << 4) | (type))

mip_status mip_ovl_type(const uint8_t *buf, size_t len, uint8_t *type)
{
    uint8_t t;

    if (len < 1u)
        return MIP_ERR_TRUNCATED;
    if ((buf[0] >> 4) != MIP_OVL_VERSION)
        return MIP_ERR_UNSUPPORTED;
    t = buf[0] & 0x0Fu;
    if (t != MIP_OVL_TYPE_INTEREST && t != MIP_OVL_TYPE_DATA)
        return MIP_ERR_MALFORMED;
    *type = t;
    return MIP_OK;
}

int mip_ovl_interest_valid(const struct mip_ovl_interest *i)
{
    return i->depth >= 1u && i->depth <= MIP_OVL_DEPTH_MAX && i->slot_ms >= 1u &&
           i->interval_ms >= 1u && i->interval_ms <= MIP_OVL_INTERVAL_MAX_MS &&
           (uint32_t)i->depth * i->slot_ms < i->interval_ms && i->due_ms < i->interval_ms &&
           i->lifetime_ms >= 1u && i->lifetime_ms <= MIP_OVL_LIFETIME_MAX_MS;
}

int mip_ovl_agg_valid(const struct mip_ovl_agg *a)
{
    return a->count >= 1u && a->min <= a->max &&
           (int64_t)a->count * a->min <= a->sum && a->sum <= (int64_t)a->count * a->max;
}

/* The length and first-byte checks every parse makes. */
static mip_status check_frame(const uint8_t *buf, size_t len, uint8_t type, size_t want)
{
    uint8_t t = 0;
    mip_status st = mip_ovl_type(buf, len, &t);

    if (st != MIP_OK)
        return st;
    if (t != type)
        return MIP_ERR_MALFORMED;
    if (len < want)
        return MIP_ERR_TRUNCATED;
    return len > want ? MIP_ERR_MALFORMED : MIP_OK;
}

mip_status mip_ovl_interest_parse(const uint8_t *buf, size_t len, struct mip_ovl_interest *out)
{
    mip_status st = check_frame(buf, len, MIP_OVL_TYPE_INTEREST, MIP_OVL_INTEREST_LEN);

    memset(out, 0, sizeof(*out));
    if (st != MIP_OK)
        return st;
    out->attr = buf[1];
    out->sink = mip_rd16(buf + 2);
    out->seq = mip_rd16(buf + 4);
    out->hops = buf[6];
    out->depth = buf[7];
    out->epoch = mip_rd16(buf + 8);
    out->slot_ms = mip_rd16(buf + 10);
    out->interval_ms = mip_rd32(buf + 12);
    out->due_ms = mip_rd32(buf + 16);
    out->lifetime_ms = mip_rd32(buf + 20);
    return mip_ovl_interest_valid(out) ? MIP_OK : MIP_ERR_MALFORMED;
}

mip_status mip_ovl_data_parse(const uint8_t *buf, size_t len, struct mip_ovl_data *out)
{
    mip_status st = check_frame(buf, len, MIP_OVL_TYPE_DATA, MIP_OVL_DATA_LEN);

    memset(out, 0, sizeof(*out));
    if (st != MIP_OK)
        return st;
    out->attr = buf[1];
    out->sink = mip_rd16(buf + 2);
    out->epoch = mip_rd16(buf + 4);
    out->agg.count = mip_rd16(buf + 6);
    out->agg.min = (int16_t)mip_rd16(buf + 8);
    out->agg.max = (int16_t)mip_rd16(buf + 10);
    out->agg.sum = (int32_t)mip_rd32(buf + 12);
    return mip_ovl_agg_valid(&out->agg) ? MIP_OK : MIP_ERR_MALFORMED;
}

mip_status mip_ovl_interest_emit(const struct mip_ovl_interest *i, uint8_t *buf, size_t cap,
                                 size_t *written)
{
    *written = 0;
    if (!mip_ovl_interest_valid(i))
        return MIP_ERR_INVALID;
    if (cap < MIP_OVL_INTEREST_LEN)
        return MIP_ERR_NOSPACE;
    buf[0] = VT(MIP_OVL_TYPE_INTEREST);
    buf[1] = i->attr;
    mip_wr16(buf + 2, i->sink);
    mip_wr16(buf + 4, i->seq);
    buf[6] = i->hops;
    buf[7] = i->depth;
    mip_wr16(buf + 8, i->epoch);
    mip_wr16(buf + 10, i->slot_ms);
    mip_wr32(buf + 12, i->interval_ms);
    mip_wr32(buf + 16, i->due_ms);
    mip_wr32(buf + 20, i->lifetime_ms);
    *written = MIP_OVL_INTEREST_LEN;
    return MIP_OK;
}

mip_status mip_ovl_data_emit(const struct mip_ovl_data *d, uint8_t *buf, size_t cap,
                             size_t *written)
{
    *written = 0;
    if (!mip_ovl_agg_valid(&d->agg))
        return MIP_ERR_INVALID;
    if (cap < MIP_OVL_DATA_LEN)
        return MIP_ERR_NOSPACE;
    buf[0] = VT(MIP_OVL_TYPE_DATA);
    buf[1] = d->attr;
    mip_wr16(buf + 2, d->sink);
    mip_wr16(buf + 4, d->epoch);
    mip_wr16(buf + 6, d->agg.count);
    mip_wr16(buf + 8, (uint16_t)d->agg.min);
    mip_wr16(buf + 10, (uint16_t)d->agg.max);
    mip_wr32(buf + 12, (uint32_t)d->agg.sum);
    *written = MIP_OVL_DATA_LEN;
    return MIP_OK;
}

int mip_ovl_agg_merge(struct mip_ovl_agg *a, const struct mip_ovl_agg *b)
{
    if (b->count == 0u)
        return 1;
    if (a->count == 0u) {
        *a = *b;
        return 1;
    }
    if ((uint32_t)a->count + b->count > UINT16_MAX)
        return 0;
    a->count = (uint16_t)(a->count + b->count);
    a->sum += b->sum;
    if (b->min < a->min)
        a->min = b->min;
    if (b->max > a->max)
        a->max = b->max;
    return 1;
}

int mip_ovl_agg_add(struct mip_ovl_agg *a, int16_t v)
{
    struct mip_ovl_agg one = { 1u, v, v, v };

    return mip_ovl_agg_merge(a, &one);
}
