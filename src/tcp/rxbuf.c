/* The receive ring with in-place reassembly (TCPlp 4.3.2).
 *
 * In-order data: `len` bytes from ring position `head`. The rest of the
 * ring, from position head + len on (mod size), is the receive window: byte
 * `offset` after rcv_nxt lives at position (head + len + offset) % size, so
 * out-of-order bytes are written straight where they belong.
 *
 * The bitmap has one bit per ring position (absolute, not relative to
 * head + len): bit p (byte p / 8, bit p % 8, LSB first) is set when position
 * p holds an out-of-order byte. Set bits only ever lie in the window, so
 * advancing or reading in-order data never moves the bitmap: absorbed bytes
 * just have their bits cleared, and read bytes have none. All bit work is
 * byte-at-a-time where whole bytes are covered. */
#include <string.h>
#include "moteip/tcp.h"
#if MIP_TCP_SACK
#include "moteip/wire/tcp.h"
#endif

void tcp_rxbuf_init(struct mip_tcp_rxbuf *r, uint8_t *mem, uint8_t *bitmap, mip_tcp_rxsize_t size)
{
    r->buf = mem;
    r->bitmap = bitmap;
    r->size = mem != NULL ? size : 0u;
    r->head = 0;
    r->len = 0;
    r->ooo_end = 0;
    if (bitmap != NULL)
        memset(bitmap, 0, ((size_t)r->size + 7u) / 8u);
}

static bool bit_get(const uint8_t *bm, uint32_t p)
{
    return ((bm[p >> 3] >> (p & 7u)) & 1u) != 0;
}

/* Sets (val) or clears the bits of positions [a, b), b <= size. */
static void bits_fill_lin(uint8_t *bm, uint32_t a, uint32_t b, bool val)
{
    while (a < b) {
        if ((a & 7u) == 0 && b - a >= 8u) {
            /* the whole bytes at once */
            uint32_t whole = (b - a) & ~(uint32_t)7u;
            memset(bm + (a >> 3), val ? 0xFF : 0x00, whole >> 3);
            a += whole;
            continue;
        }
        if (val)
            bm[a >> 3] = (uint8_t)(bm[a >> 3] | (1u << (a & 7u)));
        else
            bm[a >> 3] = (uint8_t)(bm[a >> 3] & ~(1u << (a & 7u)));
        a++;
    }
}

/* First position in [a, b) whose bit equals val, or b. */
static uint32_t bits_scan_lin(const uint8_t *bm, uint32_t a, uint32_t b, bool val)
{
    uint8_t skip = val ? 0x00 : 0xFF;
    while (a < b) {
        if ((a & 7u) == 0 && b - a >= 8u && bm[a >> 3] == skip) {
            a += 8u;
            continue;
        }
        if (bit_get(bm, a) == val)
            return a;
        a++;
    }
    return b;
}

/* Position of the window byte `off` after rcv_nxt (off < size). */
static uint32_t win_pos(const struct mip_tcp_rxbuf *r, uint32_t off)
{
    uint32_t p = (uint32_t)r->head + r->len + off;
    while (p >= r->size)
        p -= r->size;
    return p;
}

/* Sets or clears the bits of window offsets [off, off + n), which must lie
 * within the window. */
static void win_fill(struct mip_tcp_rxbuf *r, uint32_t off, uint32_t n, bool val)
{
    uint32_t p = win_pos(r, off);
    uint32_t first = r->size - p;
    if (first > n)
        first = n;
    bits_fill_lin(r->bitmap, p, p + first, val);
    if (n > first)
        bits_fill_lin(r->bitmap, 0, n - first, val);
}

/* First window offset in [off, end) whose bit equals val, or end
 * (end <= the window). */
static uint32_t win_scan(const struct mip_tcp_rxbuf *r, uint32_t off, uint32_t end, bool val)
{
    uint32_t p, first, q;
    if (off >= end)
        return end;
    p = win_pos(r, off);
    first = r->size - p;
    if (first > end - off)
        first = end - off;
    q = bits_scan_lin(r->bitmap, p, p + first, val);
    if (q < p + first)
        return off + (q - p);
    if (end - off > first) {
        uint32_t rest = end - off - first;
        q = bits_scan_lin(r->bitmap, 0, rest, val);
        return off + first + q;
    }
    return end;
}

/* Copies n bytes into the window at offset off (off + n <= window). */
static void win_copy_in(struct mip_tcp_rxbuf *r, uint32_t off, const uint8_t *data, uint32_t n)
{
    uint32_t p = win_pos(r, off);
    uint32_t first = r->size - p;
    if (first > n)
        first = n;
    memcpy(r->buf + p, data, first);
    memcpy(r->buf, data + first, n - first);
}

mip_tcp_rxsize_t tcp_rxbuf_write(struct mip_tcp_rxbuf *r, uint32_t offset, const uint8_t *data,
                                 size_t n)
{
    uint32_t space = tcp_rxbuf_space(r);
    uint32_t cnt, run;
    mip_tcp_rxsize_t before = r->len;

    if (offset >= space || n == 0)
        return 0;
    if (offset > 0 && r->bitmap == NULL)
        return 0;                       /* no reassembly: drop */
    cnt = space - offset;
    if (n < cnt)
        cnt = (uint32_t)n;

    if (data != NULL)
        win_copy_in(r, offset, data, cnt);
    /* In order with nothing out of order held (always so without a
     * bitmap): no bit is set (they lie below ooo_end), so none to clear
     * or absorb. The receive path's common case. */
    if (offset == 0 && r->ooo_end == 0) {
        r->len = (mip_tcp_rxsize_t)(r->len + cnt);
        return (mip_tcp_rxsize_t)cnt;
    }
    if (offset > 0) {
        win_fill(r, offset, cnt, true);
        if (offset + cnt > r->ooo_end)
            r->ooo_end = (mip_tcp_rxsize_t)(offset + cnt);
        return 0;
    }
    /* In order: the new bytes may overwrite out-of-order copies of the
     * same bytes; then every out-of-order byte now contiguous joins too. */
    run = win_scan(r, cnt, space, false);   /* end of the contiguous run */
    win_fill(r, 0, run, false);
    r->len = (mip_tcp_rxsize_t)(r->len + run);
    /* Window offsets count from the in-order end, which moved by `run`;
     * past the old highest out-of-order byte nothing is held any more. */
    r->ooo_end = r->ooo_end > run ? (mip_tcp_rxsize_t)(r->ooo_end - run) : 0u;
    return (mip_tcp_rxsize_t)(r->len - before);
}

void tcp_rxbuf_settle(struct mip_tcp_rxbuf *r, const uint8_t *data)
{
    mip_tcp_rxsize_t n = r->len;
    if (n == 0)
        return;                         /* all read in place: the common case */
    r->len = 0;                         /* the bytes go back in at head */
    (void)tcp_rxbuf_write(r, 0, data, n);
}

size_t tcp_rxbuf_read(struct mip_tcp_rxbuf *r, uint8_t *out, size_t n)
{
    uint32_t first;

    if (n > r->len)
        n = r->len;
    if (n == 0)
        return 0;
    first = (uint32_t)r->size - r->head;
    if (first > n)
        first = (uint32_t)n;
    if (out != NULL) {
        memcpy(out, r->buf + r->head, first);
        memcpy(out + first, r->buf, n - first);
    }
    first = (uint32_t)r->head + (uint32_t)n;
    if (first >= r->size)
        first -= r->size;
    r->head = (mip_tcp_rxsize_t)first;
    r->len = (mip_tcp_rxsize_t)(r->len - n);
    return n;
}

/* Only SACK's option builder asks (tcp_output.c), so a build without SACK
 * compiles none of it. */
#if MIP_TCP_SACK
unsigned tcp_rxbuf_sack_blocks(const struct mip_tcp_rxbuf *r, uint32_t rcv_nxt, uint32_t recent,
                               struct mip_tcp_sack_block *blk, unsigned max)
{
    uint32_t space = tcp_rxbuf_space(r);
    uint32_t ro = recent - rcv_nxt;     /* window offset of `recent` */
    uint32_t rs = 0, off = 0;
    bool have_recent = false;
    unsigned n = 0;

    if (r->bitmap == NULL || max == 0)
        return 0;

    /* The block holding `recent` first (RFC 2018 4). */
    if (ro < space && bit_get(r->bitmap, win_pos(r, ro))) {
        uint32_t re = win_scan(r, ro, space, false);
        rs = ro;
        while (rs > 0 && bit_get(r->bitmap, win_pos(r, rs - 1u)))
            rs--;
        blk[n].left = rcv_nxt + rs;
        blk[n].right = rcv_nxt + re;
        n++;
        have_recent = true;
    }
    /* Then the others, lowest first. */
    while (n < max) {
        uint32_t s = win_scan(r, off, space, true), e;
        if (s >= space)
            break;
        e = win_scan(r, s, space, false);
        off = e;
        if (have_recent && s == rs)
            continue;                   /* already reported first */
        blk[n].left = rcv_nxt + s;
        blk[n].right = rcv_nxt + e;
        n++;
    }
    return n;
}
#endif /* MIP_TCP_SACK */
