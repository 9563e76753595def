/* The send ring: `len` bytes from ring offset `head` (the byte at snd_una),
 * wrapping at `size`. */
#include <string.h>
#include "moteip/tcp_parts.h"

void tcp_txbuf_init(struct mip_tcp_txbuf *t, uint8_t *mem, uint16_t size)
{
    t->buf = mem;
    t->size = mem != NULL ? size : 0u;
    t->head = 0;
    t->len = 0;
}

/* Ring offset `off` bytes after head (off <= size). */
static uint16_t ring_pos(const struct mip_tcp_txbuf *t, uint32_t off)
{
    uint32_t p = (uint32_t)t->head + off;
    if (p >= t->size)
        p -= t->size;
    return (uint16_t)p;
}

size_t tcp_txbuf_write(struct mip_tcp_txbuf *t, const uint8_t *data, size_t n)
{
    uint16_t room = tcp_txbuf_free(t);
    uint16_t pos, first;

    if (n > room)
        n = room;
    if (n == 0)
        return 0;
    pos = ring_pos(t, t->len);
    first = (uint16_t)(t->size - pos);
    if (first > n)
        first = (uint16_t)n;
    memcpy(t->buf + pos, data, first);
    memcpy(t->buf, data + first, n - first);
    t->len = (uint16_t)(t->len + n);
    return n;
}

void tcp_txbuf_copy(const struct mip_tcp_txbuf *t, uint16_t offset, uint8_t *out, uint16_t n)
{
    uint16_t pos, first;

    if (offset >= t->len)
        return;
    if (n > t->len - offset)
        n = (uint16_t)(t->len - offset);   /* never read past the queued bytes */
    if (n == 0)
        return;
    pos = ring_pos(t, offset);
    first = (uint16_t)(t->size - pos);
    if (first > n)
        first = n;
    memcpy(out, t->buf + pos, first);
    memcpy(out + first, t->buf, (size_t)(n - first));
}

void tcp_txbuf_consume(struct mip_tcp_txbuf *t, uint16_t n)
{
    if (n > t->len)
        n = t->len;
    if (n == 0)
        return;
    t->len = (uint16_t)(t->len - n);
    /* An empty ring restarts at 0 so the next segments are contiguous. */
    t->head = t->len == 0 ? 0u : ring_pos(t, n);
}
