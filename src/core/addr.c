/* IP address helpers and text forms (RFC 4291 2.2 input, RFC 5952 output). */
#include "moteip/addr.h"
#include <string.h>

void mip_addr_set4(struct mip_addr *a, const uint8_t b[4])
{
    memset(a, 0, sizeof(*a));
    a->family = MIP_AF_INET;
    memcpy(a->bytes, b, 4);
}

void mip_addr_set6(struct mip_addr *a, const uint8_t b[16])
{
    a->family = MIP_AF_INET6;
    memcpy(a->bytes, b, 16);
}

size_t mip_addr_len(uint8_t family)
{
    return family == MIP_AF_INET ? 4u : family == MIP_AF_INET6 ? 16u : 0u;
}

bool mip_addr_eq(const struct mip_addr *a, const struct mip_addr *b)
{
    /* Constant lengths: the compiler compares in place (x86-64: two 8-byte
     * loads) rather than calling memcmp; every TCP segment comes here. */
    if (a->family != b->family)
        return false;
    if (a->family == MIP_AF_INET6)
        return memcmp(a->bytes, b->bytes, 16) == 0;
    return a->family != MIP_AF_INET || memcmp(a->bytes, b->bytes, 4) == 0;
}

bool mip_addr_prefix_eq(const uint8_t *a, const uint8_t *b, uint8_t prefix_len)
{
    uint8_t whole = (uint8_t)(prefix_len / 8u);
    uint8_t bits = (uint8_t)(prefix_len % 8u);
    uint8_t mask;
    if (memcmp(a, b, whole) != 0)
        return false;
    if (bits == 0)
        return true;
    mask = (uint8_t)(0xFFu << (8u - bits));
    return ((a[whole] ^ b[whole]) & mask) == 0;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Parses a dotted quad from text[0..len). */
static bool parse4(const char *text, size_t len, uint8_t out[4])
{
    size_t i = 0;
    unsigned part;
    for (part = 0; part < 4; part++) {
        uint16_t v = 0;
        size_t digits = 0;
        while (i < len && text[i] >= '0' && text[i] <= '9') {
            if (digits == 1 && v == 0)
                return false;              /* no leading zeros: "01" is ambiguous */
            v = (uint16_t)(v * 10u + (uint16_t)(text[i] - '0'));
            if (v > 255 || ++digits > 3)
                return false;
            i++;
        }
        if (digits == 0)
            return false;
        out[part] = (uint8_t)v;
        if (part < 3) {
            if (i >= len || text[i] != '.')
                return false;
            i++;
        }
    }
    return i == len;
}

/* Parses an IPv6 address from text[0..len), with "::" and a trailing
 * dotted quad. */
static bool parse6(const char *text, size_t len, uint8_t out[16])
{
    uint8_t words[16];
    size_t nbytes = 0, i = 0;
    int gap = -1;                          /* byte index where "::" stands */
    if (len >= 2 && text[0] == ':' && text[1] == ':') {
        gap = 0;
        i = 2;
    } else if (len >= 1 && text[0] == ':') {
        return false;
    }
    while (i < len) {
        size_t start = i;
        uint16_t v = 0;
        size_t digits = 0;
        int h;
        while (i < len && (h = hexval(text[i])) >= 0) {
            if (++digits > 4)
                return false;
            v = (uint16_t)((v << 4) | (uint16_t)h);
            i++;
        }
        if (i < len && text[i] == '.') {
            /* an embedded IPv4 address ends the text */
            if (nbytes > 12 || !parse4(text + start, len - start, words + nbytes))
                return false;
            nbytes += 4;
            i = len;
            break;
        }
        if (digits == 0)
            return false;
        if (nbytes > 14)
            return false;
        words[nbytes++] = (uint8_t)(v >> 8);
        words[nbytes++] = (uint8_t)v;
        if (i == len)
            break;
        if (text[i] != ':')
            return false;
        i++;
        if (i < len && text[i] == ':') {
            if (gap >= 0)
                return false;              /* a second "::" */
            gap = (int)nbytes;
            i++;
            if (i == len)
                break;
        } else if (i == len) {
            return false;                  /* trailing single ':' */
        }
    }
    if (gap < 0) {
        if (nbytes != 16)
            return false;
        memcpy(out, words, 16);
        return true;
    }
    if (nbytes > 14)
        return false;                      /* "::" must stand for >= 1 word */
    memset(out, 0, 16);
    memcpy(out, words, (size_t)gap);
    memcpy(out + 16 - (nbytes - (size_t)gap), words + gap, nbytes - (size_t)gap);
    return true;
}

mip_status mip_addr_parse(const char *text, struct mip_addr *out, uint8_t *prefix_len)
{
    const char *slash;
    size_t alen;
    uint8_t bytes[16];
    if (text == NULL || out == NULL)
        return MIP_ERR_INVALID;
    slash = strchr(text, '/');
    alen = slash ? (size_t)(slash - text) : strlen(text);
    memset(out, 0, sizeof(*out));
    if (memchr(text, ':', alen) != NULL) {
        if (!parse6(text, alen, bytes))
            return MIP_ERR_MALFORMED;
        mip_addr_set6(out, bytes);
    } else {
        if (!parse4(text, alen, bytes))
            return MIP_ERR_MALFORMED;
        mip_addr_set4(out, bytes);
    }
    if (slash != NULL) {
        unsigned v = 0;
        const char *p = slash + 1;
        unsigned max = out->family == MIP_AF_INET ? 32u : 128u;
        if (prefix_len == NULL || *p == '\0')
            return MIP_ERR_MALFORMED;
        for (; *p; p++) {
            if (*p < '0' || *p > '9' || p - slash > 3)
                return MIP_ERR_MALFORMED;
            v = v * 10u + (unsigned)(*p - '0');
        }
        if (v > max)
            return MIP_ERR_MALFORMED;
        *prefix_len = (uint8_t)v;
    } else if (prefix_len != NULL) {
        *prefix_len = out->family == MIP_AF_INET ? 32u : 128u;
    }
    return MIP_OK;
}

static size_t put_dec(char *p, uint8_t v)
{
    size_t n = 0;
    if (v >= 100) p[n++] = (char)('0' + v / 100);
    if (v >= 10) p[n++] = (char)('0' + (v / 10) % 10);
    p[n++] = (char)('0' + v % 10);
    return n;
}

static size_t put_hex16(char *p, uint16_t v)
{
    static const char digits[] = "0123456789abcdef";
    size_t n = 0;
    int shift;
    bool started = false;
    for (shift = 12; shift >= 0; shift -= 4) {
        uint16_t d = (uint16_t)((v >> shift) & 0xFu);
        if (d != 0 || started || shift == 0) {
            p[n++] = digits[d];
            started = true;
        }
    }
    return n;
}

mip_status mip_addr_format(const struct mip_addr *a, char *buf, size_t cap)
{
    char tmp[MIP_ADDR_TEXT_MAX];
    size_t n = 0;
    unsigned i;
    if (a->family == MIP_AF_INET) {
        for (i = 0; i < 4; i++) {
            if (i) tmp[n++] = '.';
            n += put_dec(tmp + n, a->bytes[i]);
        }
    } else if (a->family == MIP_AF_INET6) {
        /* RFC 5952: compress the longest run (>= 2) of zero words, the
         * first one on a tie. */
        int best = -1, best_len = 0, run = -1, run_len = 0;
        for (i = 0; i < 8; i++) {
            if (a->bytes[2 * i] == 0 && a->bytes[2 * i + 1] == 0) {
                if (run < 0) { run = (int)i; run_len = 0; }
                run_len++;
                if (run_len > best_len) { best = run; best_len = run_len; }
            } else {
                run = -1;
            }
        }
        if (best_len < 2)
            best = -1;
        for (i = 0; i < 8; i++) {
            if (best >= 0 && (int)i == best) {
                tmp[n++] = ':';
                if (i == 0) tmp[n++] = ':';
                i += (unsigned)best_len - 1u;
                continue;
            }
            n += put_hex16(tmp + n, (uint16_t)(((uint16_t)a->bytes[2 * i] << 8) | a->bytes[2 * i + 1]));
            if (i < 7) tmp[n++] = ':';
        }
    } else {
        return MIP_ERR_INVALID;
    }
    if (cap < n + 1)
        return MIP_ERR_NOSPACE;
    memcpy(buf, tmp, n);
    buf[n] = '\0';
    return MIP_OK;
}
