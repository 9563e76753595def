/*
 * libFuzzer harness over the HTTP server's pure parts (apps/http_server.c):
 * the request-head parser, the /bytes/N router and the response head.
 *
 * Two modes, by byte 0.
 *
 * The pure parts (byte 0 below 0x80): byte 0 chooses the parser's bound
 * (0: MIP_HTTP_REQ_MAX, else 4 x the byte), byte 1 the response to build
 * (its status from a table of the server's, bit 3 a body, bit 4
 * keep-alive, bit 5 HTTP/1.1), the rest is what a client sent.
 *
 * The server parses again each time bytes arrive (mip_http_take), so the
 * parser must not judge a request by where a TCP segment happened to end:
 * every prefix of the input parses to INCOMPLETE or to exactly what the
 * whole input does (a CR at the end of a segment is not a bare CR). Each
 * parse works on an exact heap copy of its prefix, so ASan sees a byte
 * read past it. A complete head ends in a blank line within the bound; its
 * method is the request line's first word, its target lies in the request
 * line and is visible ASCII, followed by " HTTP/1.x" with x agreeing with
 * version_minor. A refusal carries one of the documented statuses, and
 * 414/431 only when the bound was reached. A /bytes/N target routes to the
 * value of its digits. The response head fits MIP_HTTP_HEAD_MAX whole (no
 * header cut off), ends its headers with a blank line, says the status it
 * was given, a Content-Length equal to the body that follows (the body
 * pattern's N, or the error text), and "Connection: close" exactly when
 * not kept alive.
 *
 * The server over TCP (byte 0 from 0x80; http_world.h): the callback
 * server on one stack, MIP_TCP_APP_CONNS + 1 clients on another, joined
 * by an in-memory link that loses what the input says. Byte 1 sets the
 * clock's start (near its 2^31 and 2^32 wraps too), then operations:
 * connect, write raw bytes or a well-formed request, read, stop or resume
 * reading, shut down, close, abort, lose frames, and time from 1 ms to
 * days. Every byte a client receives is checked as it arrives: the
 * responses are the ones its own bytes asked for, in order (what a model
 * of the server's reading gives from them: status, body or not, kept
 * alive or not), each head within MIP_HTTP_HEAD_MAX, each /bytes/N body
 * the pattern at its offset, nothing after a response that closed. At the
 * end every client stops reading and the clock runs 130 s (a backed-off
 * retransmission may still move bytes 60 s on, then the 60 s send
 * timeout): a new client is then served (no slot is held by a client
 * that takes nothing: the send and request timeouts); once every client
 * is gone the server has no connection left and both stacks have every
 * packet buffer back.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_server.h"
#include "fuzz_check.h"
#include "http_world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static enum mip_http_parse_result parse_prefix(const uint8_t *buf, size_t k, size_t max,
                                               struct mip_http_request *r)
{
    uint8_t *c = fuzz_dup_exact(buf, k);
    enum mip_http_parse_result res = mip_http_parse_request(c, k, max, r);
    free(c);
    return res;
}

static bool same_request(const struct mip_http_request *a, const struct mip_http_request *b)
{
    return a->method == b->method && a->version_minor == b->version_minor &&
           a->keep_alive == b->keep_alive && a->status == b->status &&
           a->target_off == b->target_off && a->target_len == b->target_len &&
           a->content_length == b->content_length && a->consumed == b->consumed;
}

/* The value of the decimal digits d[0..n), leading zeros dropped, as text. */
static bool digits_equal(const uint8_t *d, size_t n, uint64_t v)
{
    char text[24];
    size_t i = 0, tlen;
    while (i + 1 < n && d[i] == '0')
        i++;
    tlen = (size_t)snprintf(text, sizeof(text), "%llu", (unsigned long long)v);
    return n - i == tlen && memcmp(d + i, text, tlen) == 0;
}

static void check_route(const uint8_t *t, size_t len)
{
    uint64_t n = 0;
    size_t i = 0, end;
    if (!mip_http_route_bytes(t, len, &n))
        return;
    /* The path: after "http://authority" when absolute, up to any '?'. */
    if (len >= 7 && (t[0] | 0x20) == 'h' && (t[1] | 0x20) == 't' && (t[2] | 0x20) == 't' &&
        (t[3] | 0x20) == 'p' && t[4] == ':' && t[5] == '/' && t[6] == '/')
        for (i = 7; i < len && t[i] != '/' && t[i] != '?'; i++)
            ;
    for (end = i; end < len && t[end] != '?'; end++)
        ;
    CHECKF(end - i > 7 && memcmp(t + i, "/bytes/", 7) == 0);
    for (size_t k = i + 7; k < end; k++)
        CHECKF(t[k] >= '0' && t[k] <= '9');
    CHECKF(digits_equal(t + i + 7, end - i - 7, n));
}

static void check_complete(const uint8_t *b, size_t used, size_t max,
                           const struct mip_http_request *r)
{
    size_t t = r->target_off, tl = r->target_len, v = t + tl;
    CHECKF(r->consumed >= 2 && r->consumed <= used && r->consumed <= max);
    CHECKF(b[r->consumed - 1] == '\n');
    CHECKF(b[r->consumed - 2] == '\n' ||
           (r->consumed >= 3 && b[r->consumed - 2] == '\r' && b[r->consumed - 3] == '\n'));
    CHECKF(r->status == 0 && r->version_minor <= 1);
    CHECKF(tl > 0 && t >= 2 && v + 9 <= r->consumed && b[t - 1] == ' ');
    for (size_t i = t; i < v; i++)
        CHECKF(b[i] > 0x20 && b[i] < 0x7F);
    CHECKF(memcmp(b + v, " HTTP/1.", 8) == 0 && b[v + 8] >= '0' && b[v + 8] <= '9');
    CHECKF((b[v + 8] == '0') == (r->version_minor == 0));
    /* the method is the first word of the request line */
    {
        size_t m = t - 1;
        while (m > 0 && b[m - 1] != '\n')
            m--;
        bool get = t - 1 - m == 3 && memcmp(b + m, "GET", 3) == 0;
        bool head = t - 1 - m == 4 && memcmp(b + m, "HEAD", 4) == 0;
        CHECKF(r->method == (get ? MIP_HTTP_GET : head ? MIP_HTTP_HEAD : MIP_HTTP_OTHER));
    }
    check_route(b + t, tl);
}

static const char *find(const uint8_t *h, size_t n, const char *s)
{
    size_t sl = strlen(s);
    for (size_t i = 0; i + sl <= n; i++)
        if (memcmp(h + i, s, sl) == 0)
            return (const char *)h + i;
    return NULL;
}

static void check_response(uint16_t status, uint64_t body_len, bool with_body, bool keep_alive,
                           uint8_t version_minor)
{
    struct mip_http_resp resp;
    char want[16];
    const char *end, *cl, *conn;
    uint64_t said = 0;
    size_t head, i, i0;

    memset(&resp, 0xA5, sizeof(resp));
    mip_http_resp_start(&resp, status, body_len, with_body, keep_alive, version_minor);
    CHECKF(resp.head_len > 0 && resp.head_len < MIP_HTTP_HEAD_MAX);   /* never cut off */
    CHECKF(resp.head_off == 0 && resp.body_off == 0);
    snprintf(want, sizeof(want), "HTTP/1.1 %03u ", (unsigned)status);
    CHECKF(memcmp(resp.head, want, 13) == 0);
    end = find(resp.head, resp.head_len, "\r\n\r\n");
    CHECKF(end != NULL);
    head = (size_t)(end - (const char *)resp.head) + 4u;
    cl = find(resp.head, head, "\r\nContent-Length: ");
    CHECKF(cl != NULL);
    i0 = (size_t)(cl - (const char *)resp.head) + 18u;
    for (i = i0; resp.head[i] >= '0' && resp.head[i] <= '9'; i++)
        if (i - i0 < 6u)
            said = said * 10u + (uint64_t)(resp.head[i] - '0');
    CHECKF(i > i0 && resp.head[i] == '\r');
    if (status == 200) {
        CHECKF(resp.head_len == head && digits_equal(resp.head + i0, i - i0, body_len));
        CHECKF(resp.body_left == (with_body ? body_len : 0u));
    } else {
        /* the error text is the body, counted even when a HEAD omits it */
        CHECKF(resp.body_left == 0u && i - i0 <= 3u && said > 0u);
        CHECKF(with_body ? resp.head_len - head == said : resp.head_len == head);
    }
    conn = find(resp.head, head, "\r\nConnection: ");
    CHECKF((find(resp.head, head, "\r\nConnection: close\r\n") != NULL) == !keep_alive);
    CHECKF((find(resp.head, head, "\r\nConnection: keep-alive\r\n") != NULL) ==
           (keep_alive && version_minor == 0));
    CHECKF(conn == NULL || find((const uint8_t *)conn + 2, head - (size_t)(conn + 2 -
           (const char *)resp.head), "\r\nConnection: ") == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint16_t statuses[8] = { 200, 200, 400, 404, 414, 431, 501, 505 };
    struct mip_http_request whole, part;
    enum mip_http_parse_result res, pres;
    const uint8_t *b;
    size_t n, max, used, k;

    if (size < 2)
        return 0;
    if (data[0] >= 0x80u) {
        hw_run(data + 1, size - 1);
        return 0;
    }
    max = data[0] == 0 ? (size_t)MIP_HTTP_REQ_MAX : 4u * data[0];
    b = data + 2;
    n = size - 2;
    used = n < max ? n : max;

    res = parse_prefix(b, n, max, &whole);
    switch (res) {
    case MIP_HTTP_INCOMPLETE:
        CHECKF(n < max);
        break;
    case MIP_HTTP_COMPLETE:
        check_complete(b, used, max, &whole);
        break;
    case MIP_HTTP_INVALID:
        CHECKF(!whole.keep_alive);
        CHECKF(whole.status == 400 || whole.status == 414 || whole.status == 431 ||
               whole.status == 501 || whole.status == 505);
        if (whole.status == 414 || whole.status == 431)
            CHECKF(n >= max);
        break;
    default:
        CHECKF(0);
    }

    /* The head arriving in two parts: a prefix knows less, never otherwise.
     * Every cut in the first 48 bytes, and around every CR and LF. */
    for (k = 0; k <= n; k++) {
        if (k > 48 && k != n - 1u && !(b[k - 1] == '\r' || b[k - 1] == '\n' ||
                                        (k + 1 <= n && (b[k] == '\r' || b[k] == '\n'))))
            continue;
        pres = parse_prefix(b, k, max, &part);
        if (pres == MIP_HTTP_INCOMPLETE)
            CHECKF(k < max);
        else
            CHECKF(pres == res && same_request(&part, &whole));
    }

    {
        uint16_t status = statuses[data[1] & 7u];
        uint64_t body_len = whole.content_length;
        if (res == MIP_HTTP_COMPLETE)
            (void)mip_http_route_bytes(b + whole.target_off, whole.target_len, &body_len);
        check_response(status, body_len, (data[1] & 8u) != 0, (data[1] & 16u) != 0,
                       (uint8_t)((data[1] >> 5) & 1u));
    }
    return 0;
}
