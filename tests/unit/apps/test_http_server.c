/*
 * The pure parts of the TCP apps: the HTTP request parser and router
 * (apps/http_server.h) on edge cases, the /bytes/N body pattern, the
 * chargen stream (apps/tcp_chargen.h) and the discard app's CRC-32.
 */
#include <stdint.h>
#include <string.h>

#include "http_server.h"
#include "tcp_chargen.h"
#include "tcp_discard.h"
#include "testing.h"

#define MAX 1024u

static enum mip_http_parse_result parse(const char *text, struct mip_http_request *r)
{
    return mip_http_parse_request((const uint8_t *)text, strlen(text), MAX, r);
}

/* Parses text; checks the result and, for INVALID, the status. */
static void expect(const char *text, enum mip_http_parse_result want, unsigned status)
{
    struct mip_http_request r;
    enum mip_http_parse_result got = parse(text, &r);

    CHECK_EQ(got, want);
    if (got != want)
        fprintf(stderr, "  request: %s\n", text);
    if (want == MIP_HTTP_INVALID) {
        CHECK_EQ(r.status, status);
        CHECK(!r.keep_alive);
    }
}

static void test_simple_get(void)
{
    const char *req = "GET /bytes/10 HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\n";
    struct mip_http_request r;

    CHECK_EQ(parse(req, &r), MIP_HTTP_COMPLETE);
    CHECK_EQ(r.method, MIP_HTTP_GET);
    CHECK_EQ(r.version_minor, 1);
    CHECK(r.keep_alive);
    CHECK_EQ(r.consumed, strlen(req));
    CHECK_EQ(r.content_length, 0);
    CHECK_EQ(r.target_len, 9);
    CHECK_MEM(req + r.target_off, "/bytes/10", 9);
}

static void test_every_prefix_is_incomplete(void)
{
    const char *req = "\r\nGET /bytes/10?x=y HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n";
    struct mip_http_request r;
    size_t n, len = strlen(req);

    for (n = 0; n < len; n++)
        CHECK_EQ(mip_http_parse_request((const uint8_t *)req, n, MAX, &r), MIP_HTTP_INCOMPLETE);
    CHECK_EQ(mip_http_parse_request((const uint8_t *)req, len, MAX, &r), MIP_HTTP_COMPLETE);
    CHECK(!r.keep_alive);
    CHECK_EQ(r.consumed, len);
}

static void test_line_endings_and_leading_blank_lines(void)
{
    struct mip_http_request r;

    CHECK_EQ(parse("GET / HTTP/1.1\nHost: a\n\n", &r), MIP_HTTP_COMPLETE);
    CHECK_EQ(r.consumed, 24);
    CHECK_EQ(parse("\r\n\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", &r), MIP_HTTP_COMPLETE);
    CHECK_EQ(r.target_off, 9);
    expect("GET / HTTP/1.1\rHost: a\r\n\r\n", MIP_HTTP_INVALID, 400);      /* bare CR */
    expect("GET / HTTP/1.1\r\nHo\rst: a\r\n\r\n", MIP_HTTP_INVALID, 400);
}

static void test_pipelined_request_consumes_only_the_first(void)
{
    const char *req = "GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n";
    struct mip_http_request r;

    CHECK_EQ(parse(req, &r), MIP_HTTP_COMPLETE);
    CHECK_EQ(r.consumed, strlen(req) / 2);
}

static void test_versions(void)
{
    struct mip_http_request r;

    CHECK_EQ(parse("GET / HTTP/1.0\r\n\r\n", &r), MIP_HTTP_COMPLETE);   /* no Host needed */
    CHECK_EQ(r.version_minor, 0);
    CHECK(!r.keep_alive);
    CHECK_EQ(parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", &r), MIP_HTTP_COMPLETE);
    CHECK(r.keep_alive);
    CHECK_EQ(parse("GET / HTTP/1.2\r\nHost: a\r\n\r\n", &r), MIP_HTTP_COMPLETE);
    CHECK_EQ(r.version_minor, 1);
    expect("GET / HTTP/2.0\r\nHost: a\r\n\r\n", MIP_HTTP_INVALID, 505);
    expect("GET / HTTP/0.9\r\n\r\n", MIP_HTTP_INVALID, 505);
    expect("GET / HTTP/1.10\r\nHost: a\r\n\r\n", MIP_HTTP_INVALID, 400);
    expect("GET / http/1.1\r\nHost: a\r\n\r\n", MIP_HTTP_INVALID, 400);
    expect("GET / HTTP/1.x\r\nHost: a\r\n\r\n", MIP_HTTP_INVALID, 400);
    expect("GET /\r\n\r\n", MIP_HTTP_INVALID, 400);                      /* HTTP/0.9 form */
}

static void test_request_line_shape(void)
{
    struct mip_http_request r;

    expect("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", MIP_HTTP_INVALID, 400);
    expect("GET / HTTP/1.1 \r\nHost: a\r\n\r\n", MIP_HTTP_INVALID, 400);
    expect(" GET / HTTP/1.1\r\nHost: a\r\n\r\n", MIP_HTTP_INVALID, 400);
    expect("GET /a\x01 HTTP/1.1\r\nHost: a\r\n\r\n", MIP_HTTP_INVALID, 400);
    expect("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", MIP_HTTP_INVALID, 400);
    /* An error shows before the head is complete. */
    expect("GARBAGE\r\n", MIP_HTTP_INVALID, 400);
    CHECK_EQ(parse("get / HTTP/1.1\r\nHost: a\r\n\r\n", &r), MIP_HTTP_COMPLETE);
    CHECK_EQ(r.method, MIP_HTTP_OTHER);                   /* methods are case-sensitive */
    CHECK_EQ(parse("HEAD /x HTTP/1.1\r\nHost: a\r\n\r\n", &r), MIP_HTTP_COMPLETE);
    CHECK_EQ(r.method, MIP_HTTP_HEAD);
    CHECK_EQ(parse("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc", &r),
             MIP_HTTP_COMPLETE);
    CHECK_EQ(r.method, MIP_HTTP_OTHER);
    CHECK_EQ(r.content_length, 3);
}

static void test_headers(void)
{
    struct mip_http_request r;

    expect("GET / HTTP/1.1\r\n\r\n", MIP_HTTP_INVALID, 400);                      /* no Host */
    expect("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", MIP_HTTP_INVALID, 400);
    expect("GET / HTTP/1.1\r\nHost : a\r\n\r\n", MIP_HTTP_INVALID, 400);
    expect("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", MIP_HTTP_INVALID, 400);
    expect("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", MIP_HTTP_INVALID, 400);
    expect("GET / HTTP/1.1\r\nHost: a\r\n: empty\r\n\r\n", MIP_HTTP_INVALID, 400);
    expect("GET / HTTP/1.1\r\nHost: a\r\nX: a\x7f\r\n\r\n", MIP_HTTP_INVALID, 400);
    CHECK_EQ(parse("GET / HTTP/1.1\r\nhOsT:a\r\nX:\t v \t\r\nY:\r\n\r\n", &r),
             MIP_HTTP_COMPLETE);
    CHECK_EQ(parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, CLOSE\r\n\r\n", &r),
             MIP_HTTP_COMPLETE);
    CHECK(!r.keep_alive);
    CHECK_EQ(parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: closed\r\n\r\n", &r),
             MIP_HTTP_COMPLETE);
    CHECK(r.keep_alive);                                   /* "closed" is not "close" */
    CHECK_EQ(parse("GET / HTTP/1.1\r\nHost: a\r\nConnection:,, Upgrade ,close\r\n\r\n", &r),
             MIP_HTTP_COMPLETE);
    CHECK(!r.keep_alive);
}

static void test_content_length_and_transfer_encoding(void)
{
    struct mip_http_request r;

    CHECK_EQ(parse("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n"
                   "content-length: 12\r\n\r\n", &r), MIP_HTTP_COMPLETE);
    CHECK_EQ(r.content_length, 12);
    CHECK_EQ(parse("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 18446744073709551615\r\n\r\n",
                   &r), MIP_HTTP_COMPLETE);
    CHECK(r.content_length == UINT64_MAX);
    expect("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 18446744073709551616\r\n\r\n",
           MIP_HTTP_INVALID, 400);
    expect("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
           MIP_HTTP_INVALID, 400);
    expect("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", MIP_HTTP_INVALID, 400);
    expect("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1 2\r\n\r\n", MIP_HTTP_INVALID, 400);
    expect("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\n", MIP_HTTP_INVALID, 400);
    expect("GET / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", MIP_HTTP_INVALID, 400);
    expect("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n",
           MIP_HTTP_INVALID, 501);
    expect("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
           MIP_HTTP_INVALID, 400);
}

static void test_size_limits(void)
{
    static uint8_t buf[MAX + 64];
    struct mip_http_request r;
    const char *tail = " HTTP/1.1\r\nHost: a\r\n\r\n";
    size_t tl = strlen(tail);

    /* A request line that does not fit: 414. */
    memset(buf, 'a', sizeof(buf));
    memcpy(buf, "GET /", 5);
    CHECK_EQ(mip_http_parse_request(buf, MAX - 1, MAX, &r), MIP_HTTP_INCOMPLETE);
    CHECK_EQ(mip_http_parse_request(buf, MAX, MAX, &r), MIP_HTTP_INVALID);
    CHECK_EQ(r.status, 414);
    CHECK_EQ(mip_http_parse_request(buf, sizeof(buf), MAX, &r), MIP_HTTP_INVALID);
    CHECK_EQ(r.status, 414);

    /* Headers that do not fit: 431. */
    memcpy(buf, "GET / HTTP/1.1\r\nX: ", 19);
    CHECK_EQ(mip_http_parse_request(buf, MAX, MAX, &r), MIP_HTTP_INVALID);
    CHECK_EQ(r.status, 431);

    /* A head of exactly MAX bytes is fine. */
    memset(buf, 'a', sizeof(buf));
    memcpy(buf, "GET /", 5);
    memcpy(buf + MAX - tl, tail, tl);
    CHECK_EQ(mip_http_parse_request(buf, MAX, MAX, &r), MIP_HTTP_COMPLETE);
    CHECK_EQ(r.consumed, MAX);
    CHECK_EQ(r.target_len, MAX - tl - 4);
}

static bool route(const char *t, uint64_t *n)
{
    return mip_http_route_bytes((const uint8_t *)t, strlen(t), n);
}

static void test_route(void)
{
    uint64_t n = 1;

    CHECK(route("/bytes/0", &n) && n == 0);
    CHECK(route("/bytes/10485760", &n) && n == 10485760u);
    CHECK(route("/bytes/007", &n) && n == 7);
    CHECK(route("/bytes/18446744073709551615", &n) && n == UINT64_MAX);
    CHECK(route("/bytes/12?x=1", &n) && n == 12);
    CHECK(route("http://192.0.2.2:80/bytes/5", &n) && n == 5);
    CHECK(route("HTTP://h/bytes/6?q", &n) && n == 6);
    CHECK(!route("/bytes/18446744073709551616", &n));
    CHECK(!route("/bytes/", &n));
    CHECK(!route("/bytes/12a", &n));
    CHECK(!route("/bytes/-1", &n));
    CHECK(!route("/bytes/1/2", &n));
    CHECK(!route("/BYTES/5", &n));
    CHECK(!route("/bytesx/5", &n));
    CHECK(!route("/", &n));
    CHECK(!route("*", &n));
    CHECK(!route("http://h", &n));
}

static void test_body_pattern(void)
{
    uint8_t buf[300];
    uint64_t offs[] = { 0, 255, 65530, 16777200, 100000000ull, UINT64_MAX - 400 };
    unsigned k, i;

    CHECK_EQ(mip_http_body_byte(0), 0);
    CHECK_EQ(mip_http_body_byte(1), 7);
    CHECK_EQ(mip_http_body_byte(256), (7 * 256 + 1) & 0xFF);
    CHECK_EQ(mip_http_body_byte(65536), (7 * 65536 + 256 + 1) & 0xFF);
    for (k = 0; k < sizeof(offs) / sizeof(offs[0]); k++) {
        mip_http_body_fill(offs[k], buf, sizeof(buf));
        for (i = 0; i < sizeof(buf); i++) {
            uint64_t x = offs[k] + i;
            CHECK_EQ(buf[i], (uint8_t)((7u * x + (x >> 8) + (x >> 16)) & 0xFFu));
        }
    }
}

static void test_chargen_stream(void)
{
    static const char first[] =
        "!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefgh\r\n"
        "\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghi\r\n";
    uint8_t whole[74 * 200], part[500];
    unsigned k;

    mip_chargen_fill(0, whole, sizeof(whole));
    CHECK_MEM(whole, first, sizeof(first) - 1);
    /* Line 94 ends the cycle; line 95 equals line 0. */
    CHECK_MEM(whole + 95 * 74, whole, 74);
    /* Any offset continues the same stream. */
    for (k = 1; k + sizeof(part) <= sizeof(whole); k += 97) {
        mip_chargen_fill(k, part, sizeof(part));
        CHECK_MEM(part, whole + k, sizeof(part));
    }
    for (k = 0; k < sizeof(whole); k++)
        CHECK(whole[k] >= 0x20 || whole[k] == '\r' || whole[k] == '\n');
}

static void test_crc32(void)
{
    const uint8_t *s = (const uint8_t *)"123456789";

    CHECK(mip_crc32_update(0, s, 9) == 0xCBF43926u);
    CHECK(mip_crc32_update(mip_crc32_update(0, s, 4), s + 4, 5) == 0xCBF43926u);
    CHECK(mip_crc32_update(0, s, 0) == 0);
}

int main(void)
{
    RUN(test_simple_get);
    RUN(test_every_prefix_is_incomplete);
    RUN(test_line_endings_and_leading_blank_lines);
    RUN(test_pipelined_request_consumes_only_the_first);
    RUN(test_versions);
    RUN(test_request_line_shape);
    RUN(test_headers);
    RUN(test_content_length_and_transfer_encoding);
    RUN(test_size_limits);
    RUN(test_route);
    RUN(test_body_pattern);
    RUN(test_chargen_stream);
    RUN(test_crc32);
    return TESTING_DONE();
}
