/* SLIP framing (RFC 1055). See moteip/wire/slip.h. */
#include "moteip/wire/slip.h"

enum {
    DEC_DATA = 0,     /* inside a frame (or between frames, len 0) */
    DEC_ESC,          /* after an ESC */
    DEC_SKIP,         /* after an error: everything up to the next END */
    DEC_DONE          /* a frame was reported: start a new one on the next call */
};

static const uint8_t slip_end[1] = { MIP_SLIP_END };
static const uint8_t slip_esc_end[2] = { MIP_SLIP_ESC, MIP_SLIP_ESC_END };
static const uint8_t slip_esc_esc[2] = { MIP_SLIP_ESC, MIP_SLIP_ESC_ESC };

mip_status mip_slip_encode(const uint8_t *frame, size_t len, mip_slip_write_fn write, void *ctx)
{
    size_t i, run = 0;
    mip_status st = write(ctx, slip_end, 1);

    for (i = 0; i < len && st == MIP_OK; i++) {
        uint8_t b = frame[i];
        if (b != MIP_SLIP_END && b != MIP_SLIP_ESC)
            continue;
        if (i > run)
            st = write(ctx, frame + run, i - run);
        if (st == MIP_OK)
            st = write(ctx, b == MIP_SLIP_END ? slip_esc_end : slip_esc_esc, 2);
        run = i + 1;
    }
    if (st == MIP_OK && len > run)
        st = write(ctx, frame + run, len - run);
    if (st == MIP_OK)
        st = write(ctx, slip_end, 1);
    return st;
}

size_t mip_slip_encoded_len(const uint8_t *frame, size_t len)
{
    size_t i, n = len + 2;
    for (i = 0; i < len; i++)
        if (frame[i] == MIP_SLIP_END || frame[i] == MIP_SLIP_ESC)
            n++;
    return n;
}

void mip_slip_dec_init(struct mip_slip_dec *d, uint8_t *buf, uint16_t cap)
{
    d->buf = buf;
    d->cap = cap;
    d->len = 0;
    d->state = DEC_DATA;
}

size_t mip_slip_decode(struct mip_slip_dec *d, const uint8_t *in, size_t n,
                       enum mip_slip_event *ev)
{
    size_t i;

    if (d->state == DEC_DONE) {
        d->len = 0;
        d->state = DEC_DATA;
    }
    for (i = 0; i < n; i++) {
        uint8_t b = in[i];
        if (d->state == DEC_SKIP) {
            if (b == MIP_SLIP_END)
                d->state = DEC_DATA;
            continue;
        }
        if (d->state == DEC_ESC) {
            if (b == MIP_SLIP_ESC_END) {
                b = MIP_SLIP_END;
            } else if (b == MIP_SLIP_ESC_ESC) {
                b = MIP_SLIP_ESC;
            } else {
                /* ESC END also ends the frame: what follows is a new one */
                d->len = 0;
                d->state = b == MIP_SLIP_END ? DEC_DATA : DEC_SKIP;
                *ev = MIP_SLIP_BAD_ESCAPE;
                return i + 1;
            }
        } else if (b == MIP_SLIP_END) {
            if (d->len == 0)
                continue;               /* a separator, not a frame */
            d->state = DEC_DONE;
            *ev = MIP_SLIP_FRAME;
            return i + 1;
        } else if (b == MIP_SLIP_ESC) {
            d->state = DEC_ESC;
            continue;
        }
        if (d->len >= d->cap) {
            d->len = 0;
            d->state = DEC_SKIP;
            *ev = MIP_SLIP_TOO_BIG;
            return i + 1;
        }
        d->buf[d->len++] = b;
        d->state = DEC_DATA;
    }
    *ev = MIP_SLIP_MORE;
    return n;
}
