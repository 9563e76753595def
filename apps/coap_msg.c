/*
 * CoAP message codec (RFC 7252 s.3). See coap_msg.h.
 */
#include "coap_msg.h"

#include <string.h>

#include "moteip/wire/bytes.h"

/* Reads one extended delta or length (s.3.1): nibble 13 adds a byte (+13),
 * 14 two bytes (+269). -1 when the bytes are missing or the nibble is 15. */
static int32_t ext_value(uint8_t nibble, const uint8_t **p, const uint8_t *end)
{
    if (nibble < 13u)
        return nibble;
    if (nibble == 13u) {
        if (end - *p < 1)
            return -1;
        return 13 + *(*p)++;
    }
    if (nibble == 14u) {
        int32_t v;
        if (end - *p < 2)
            return -1;
        v = 269 + (int32_t)mip_rd16(*p);
        *p += 2;
        return v;
    }
    return -1;
}

enum mip_coap_parse_status mip_coap_parse(const uint8_t *buf, size_t len,
                                          struct mip_coap_msg *m)
{
    const uint8_t *p, *end = buf + len;
    uint32_t number = 0;

    memset(m, 0, sizeof *m);
    if (len < MIP_COAP_HDR_LEN)
        return MIP_COAP_ERR_SHORT;
    m->type = (uint8_t)((buf[0] >> 4) & 3u);
    m->code = buf[1];
    m->mid = mip_rd16(buf + 2);
    if ((buf[0] >> 6) != 1u)
        return MIP_COAP_ERR_VERSION;
    m->token_len = buf[0] & 0x0Fu;
    if (m->token_len > MIP_COAP_TOKEN_MAX) {
        m->token_len = 0;
        return MIP_COAP_ERR_TKL;
    }
    if (len - MIP_COAP_HDR_LEN < m->token_len) {
        m->token_len = 0;
        return MIP_COAP_ERR_TOKEN;
    }
    memcpy(m->token, buf + MIP_COAP_HDR_LEN, m->token_len);
    p = buf + MIP_COAP_HDR_LEN + m->token_len;
    if (m->code == MIP_COAP_EMPTY && (m->token_len != 0 || p != end))
        return MIP_COAP_ERR_EMPTY_MSG;

    m->options = p;
    while (p < end) {
        uint8_t b = *p++;
        int32_t delta, olen;

        if (b == 0xFFu) {
            if (p == end)
                return MIP_COAP_ERR_EMPTY_PAYLOAD;
            m->options_len = (size_t)(p - 1 - m->options);
            m->payload = p;
            m->payload_len = (size_t)(end - p);
            return MIP_COAP_OK;
        }
        delta = ext_value(b >> 4, &p, end);
        olen = ext_value(b & 0x0Fu, &p, end);
        if (delta < 0 || olen < 0 || end - p < olen)
            return MIP_COAP_ERR_OPTION;
        number += (uint32_t)delta;
        if (number > 0xFFFFu)
            return MIP_COAP_ERR_OPTION_NUMBER;
        p += olen;
    }
    m->options_len = (size_t)(end - m->options);
    return MIP_COAP_OK;
}

void mip_coap_opt_begin(struct mip_coap_opt_iter *it, const struct mip_coap_msg *m)
{
    it->p = m->options;
    it->end = m->options + m->options_len;
    it->number = 0;
}

bool mip_coap_opt_next(struct mip_coap_opt_iter *it, struct mip_coap_option *o)
{
    uint8_t b;
    int32_t delta, olen;

    if (it->p >= it->end)
        return false;
    /* The message was checked by mip_coap_parse: these cannot fail; the
     * test below only keeps a misuse (an unchecked view) in bounds. */
    b = *it->p++;
    delta = ext_value(b >> 4, &it->p, it->end);
    olen = ext_value(b & 0x0Fu, &it->p, it->end);
    if (delta < 0 || olen < 0 || it->end - it->p < olen) {
        it->p = it->end;
        return false;
    }
    it->number = (uint16_t)(it->number + delta);
    o->number = it->number;
    o->len = (uint16_t)olen;
    o->value = it->p;
    it->p += olen;
    return true;
}

bool mip_coap_opt_find(const struct mip_coap_msg *m, uint16_t number, struct mip_coap_option *o)
{
    struct mip_coap_opt_iter it;

    mip_coap_opt_begin(&it, m);
    while (mip_coap_opt_next(&it, o)) {
        if (o->number == number)
            return true;
        if (o->number > number)
            break;
    }
    return false;
}

bool mip_coap_opt_uint(const struct mip_coap_option *o, uint32_t *v)
{
    uint32_t x = 0;
    uint16_t i;

    if (o->len > 4u)
        return false;
    for (i = 0; i < o->len; i++)
        x = (x << 8) | o->value[i];
    *v = x;
    return true;
}

bool mip_coap_block_decode(const struct mip_coap_option *o, struct mip_coap_block *b)
{
    uint32_t v;

    if (o->len > 3u || !mip_coap_opt_uint(o, &v))
        return false;
    b->szx = (uint8_t)(v & 7u);
    b->more = (v & 8u) != 0;
    b->num = v >> 4;
    return b->szx != 7u;
}

/* --- writer ---------------------------------------------------------------- */

static uint8_t *room(struct mip_coap_writer *w, size_t n)
{
    uint8_t *p;

    if (w->failed || w->cap - w->len < n) {
        w->failed = true;
        return NULL;
    }
    p = w->buf + w->len;
    w->len += n;
    return p;
}

void mip_coap_w_begin(struct mip_coap_writer *w, uint8_t *buf, size_t cap,
                      uint8_t type, uint8_t code, uint16_t mid,
                      const uint8_t *token, uint8_t token_len)
{
    uint8_t *p;

    w->buf = buf;
    w->cap = cap;
    w->len = 0;
    w->last_option = 0;
    w->payload_done = false;
    w->failed = type > MIP_COAP_RST || token_len > MIP_COAP_TOKEN_MAX ||
                (token_len != 0 && token == NULL);
    p = room(w, MIP_COAP_HDR_LEN + (size_t)token_len);
    if (p == NULL)
        return;
    p[0] = (uint8_t)(0x40u | (type << 4) | token_len);
    p[1] = code;
    mip_wr16(p + 2, mid);
    if (token_len != 0)
        memcpy(p + MIP_COAP_HDR_LEN, token, token_len);
}

void mip_coap_w_code(struct mip_coap_writer *w, uint8_t code)
{
    if (!w->failed)
        w->buf[1] = code;
}

/* Nibble and extension bytes for a delta or a length. */
static uint8_t nibble_of(uint32_t v, uint8_t ext[2], size_t *ext_len)
{
    if (v < 13u) {
        *ext_len = 0;
        return (uint8_t)v;
    }
    if (v < 269u) {
        ext[0] = (uint8_t)(v - 13u);
        *ext_len = 1;
        return 13u;
    }
    mip_wr16(ext, (uint16_t)(v - 269u));
    *ext_len = 2;
    return 14u;
}

void mip_coap_w_option(struct mip_coap_writer *w, uint16_t number,
                       const void *value, size_t len)
{
    uint8_t dext[2], lext[2], *p;
    size_t dn, ln;
    uint8_t dnib, lnib;

    if (w->failed || w->payload_done || number < w->last_option ||
        len > 0xFFFFu - 269u || (len != 0 && value == NULL)) {
        w->failed = true;
        return;
    }
    dnib = nibble_of((uint32_t)(number - w->last_option), dext, &dn);
    lnib = nibble_of((uint32_t)len, lext, &ln);
    p = room(w, 1u + dn + ln + len);
    if (p == NULL)
        return;
    *p++ = (uint8_t)(dnib << 4 | lnib);
    memcpy(p, dext, dn);
    p += dn;
    memcpy(p, lext, ln);
    p += ln;
    if (len != 0)
        memcpy(p, value, len);
    w->last_option = number;
}

void mip_coap_w_option_uint(struct mip_coap_writer *w, uint16_t number, uint32_t value)
{
    uint8_t v[4];
    size_t n = 0;

    mip_wr32(v, value);
    while (n < 4u && v[n] == 0)
        n++;
    mip_coap_w_option(w, number, v + n, 4u - n);
}

void mip_coap_w_block(struct mip_coap_writer *w, uint16_t number, const struct mip_coap_block *b)
{
    if (b->num >= (UINT32_C(1) << 20) || b->szx > 6u) {
        w->failed = true;
        return;
    }
    mip_coap_w_option_uint(w, number, b->num << 4 | (b->more ? 8u : 0u) | b->szx);
}

uint8_t *mip_coap_w_payload_space(struct mip_coap_writer *w, size_t len)
{
    uint8_t *p;

    if (w->payload_done) {
        w->failed = true;
        return NULL;
    }
    w->payload_done = true;
    if (len == 0)
        return NULL;
    p = room(w, 1u + len);
    if (p == NULL)
        return NULL;
    p[0] = 0xFFu;
    return p + 1;
}

void mip_coap_w_payload(struct mip_coap_writer *w, const void *data, size_t len)
{
    uint8_t *p;

    if (len != 0 && data == NULL) {
        w->failed = true;
        return;
    }
    p = mip_coap_w_payload_space(w, len);
    if (p != NULL)
        memcpy(p, data, len);
}

size_t mip_coap_w_payload_room(const struct mip_coap_writer *w)
{
    if (w->failed || w->payload_done || w->cap - w->len < 2u)
        return 0;
    return w->cap - w->len - 1u;
}

size_t mip_coap_w_end(const struct mip_coap_writer *w)
{
    return w->failed ? 0 : w->len;
}
