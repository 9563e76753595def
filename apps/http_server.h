/*
 * A small HTTP/1.1 server (RFC 9110, RFC 9112) for throughput tests.
 *
 *   GET /bytes/N      200, Content-Length: N, and N bytes of the body pattern
 *                     below; N is a decimal up to 2^64 - 1 (a query string
 *                     after '?' is ignored). The body is generated on the fly
 *                     into the send ring from the `writable` callback, never
 *                     held whole, so any N works in a few KB of RAM.
 *   HEAD /bytes/N     the same headers, no body
 *   any other path    404 (a short text body)
 *   other methods     501, then the connection is closed
 *   malformed         400 (bad request line or header line, bare CR, obs-fold,
 *                     space before the colon, HTTP/1.1 without exactly one
 *                     Host, conflicting Content-Length, both Content-Length
 *                     and Transfer-Encoding), then the connection is closed
 *   too large         a request line longer than MIP_HTTP_REQ_MAX: 414;
 *                     a request head (request line + headers) longer than
 *                     MIP_HTTP_REQ_MAX: 431; then the connection is closed
 *   Transfer-Encoding 501 (request bodies are only taken with Content-Length),
 *                     then the connection is closed
 *   HTTP/2+ or 0.x    505, then the connection is closed
 *
 * Connections are persistent (HTTP/1.1 default; HTTP/1.0 with "Connection:
 * keep-alive"): requests are answered one after the other, including
 * pipelined ones, and a request body announced by Content-Length is read and
 * dropped. "Connection: close" is honoured: the server closes the connection
 * after the response (and says so with "Connection: close"). Lines may end
 * in CRLF or a bare LF; empty lines before a request line are skipped.
 *
 * The body pattern: byte i (from 0) of every /bytes/N body is
 *
 *     (7 * i + (i >> 8) + (i >> 16)) & 0xFF
 *
 * In Python: bytes((7 * i + (i >> 8) + (i >> 16)) & 0xFF for i in range(n)).
 * Its period is 2^24 bytes, so no shift of the stream by less than 16 MB
 * (like a misplaced window or ring) goes unnoticed.
 *
 * All state, including the memory of MIP_TCP_APP_CONNS connections (see
 * tcp_app.h) and a MIP_HTTP_REQ_MAX request buffer for each, lives in the
 * caller's struct; only the public TCP API is used.
 *
 * Idle connections cannot lock clients out (before, MIP_TCP_APP_CONNS
 * connections that never sent a request refused every other client until
 * the peers went away). When a new connection is accepted:
 *   - every connection that has waited MIP_HTTP_REQUEST_TIMEOUT_MS for a
 *     request (its first, or the next on a persistent connection) without a
 *     byte of it is reset (counted in `timeouts`);
 *   - so is every connection whose response has waited
 *     MIP_HTTP_SEND_TIMEOUT_MS for its client to take a byte of it (a
 *     client that never opens its window);
 *   - if still no slot is free, the idlest connection is reset (counted in
 *     `srv.evicted`): one closing first, else the one waiting for a request
 *     that received its last byte longest ago. A connection sending a
 *     response that moves is never reset for a new one; when every one
 *     is, the new connection is refused (RST, srv.refused).
 * The server has no timer of its own: the timeout is applied when a new
 * connection needs a slot, the only time an idle connection costs another
 * client anything.
 *
 * The request parser is a pure function (mip_http_parse_request), tested on
 * its own in tests/unit/apps/test_http_server.c.
 */
#ifndef MOTEIP_APPS_HTTP_SERVER_H
#define MOTEIP_APPS_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "moteip/tcp.h"
#include "tcp_app.h"

/* After refusing a request (4xx/5xx, "Connection: close") the server sends
 * FIN and reads and drops what the client still sends until the client's
 * FIN (a lingering close, as HTTP servers do: an immediate close would
 * answer the rest of, say, an over-long header line with RST, RFC 1122
 * 4.2.2.13, and the client could lose the response). Keepalive, probing
 * after this much silence, ends the linger of a client that vanished. After
 * a response the client asked to close, the server closes at once. */
#ifndef MIP_HTTP_LINGER_KEEPALIVE_MS
#define MIP_HTTP_LINGER_KEEPALIVE_MS 10000u
#endif

/* How long a connection may wait for a request before a new connection
 * may reset it: Apache httpd's mod_reqtimeout allows 20 s for a request
 * head by default ("header=20-40"). */
#ifndef MIP_HTTP_REQUEST_TIMEOUT_MS
#define MIP_HTTP_REQUEST_TIMEOUT_MS 20000u
#endif

/* How long a response may wait for its client to take a byte (room in the
 * send ring, which only the client's ACKs make) before a new connection
 * may reset it (the kernel's HTTP process resets it then in any case).
 * nginx's send_timeout and Apache httpd's Timeout are both 60 s. Without
 * it a client that asks for a long body and never opens its window holds
 * its slot for good: TCP itself must keep a connection whose peer answers
 * its window probes (RFC 9293 3.8.6.1). */
#ifndef MIP_HTTP_SEND_TIMEOUT_MS
#define MIP_HTTP_SEND_TIMEOUT_MS 60000u
#endif

#define MIP_HTTP_PORT 80u

#ifndef MIP_HTTP_REQ_MAX
#define MIP_HTTP_REQ_MAX MIP_PROFILE_DEFAULT(256, 1024)   /* request head bound, bytes */
#endif
#define MIP_HTTP_HEAD_MAX 224u                            /* response head + error body */

/* --- the pure parts -------------------------------------------------------- */

enum mip_http_method {
    MIP_HTTP_GET = 1,
    MIP_HTTP_HEAD,
    MIP_HTTP_OTHER           /* a well-formed method this server does not implement */
};

enum mip_http_parse_result {
    MIP_HTTP_INCOMPLETE = 0, /* no complete request head yet: read more */
    MIP_HTTP_COMPLETE,       /* a request head; r->consumed bytes of it */
    MIP_HTTP_INVALID         /* answer r->status and close the connection */
};

struct mip_http_request {
    uint8_t  method;         /* enum mip_http_method */
    uint8_t  version_minor;  /* HTTP/1.x: 0 or 1 (1.2+ is treated as 1.1) */
    bool     keep_alive;     /* the connection may carry another request */
    uint16_t status;         /* with MIP_HTTP_INVALID: 400, 414, 431, 501, 505 */
    size_t   target_off;     /* request-target: offset and length in buf */
    size_t   target_len;
    uint64_t content_length; /* request body bytes that follow the head */
    size_t   consumed;       /* length of the head, blank line included */
};

/* Parses the request head at the start of buf[0..len). At most `max` bytes
 * are considered: a head not complete within them is INVALID (414 when the
 * request line alone does not fit, else 431). Errors are reported as soon
 * as a complete line shows them, without waiting for the rest. */
enum mip_http_parse_result mip_http_parse_request(const uint8_t *buf, size_t len, size_t max,
                                                  struct mip_http_request *r);

/* True when the request-target (origin-form "/bytes/N" or absolute-form
 * "http://authority/bytes/N", query ignored) names a body of N bytes. */
bool mip_http_route_bytes(const uint8_t *target, size_t len, uint64_t *n);

/* Byte i of the body pattern, and bytes [offset, offset + n) of it. */
static inline uint8_t mip_http_body_byte(uint64_t i)
{
    return (uint8_t)((7u * i + (i >> 8) + (i >> 16)) & 0xFFu);
}
void mip_http_body_fill(uint64_t offset, uint8_t *out, size_t n);

/* --- a response on its way out -------------------------------------------------- */

/* The status line and headers (and, for an error, a short text body) as
 * text, then body_left bytes of the /bytes/N pattern: what both the
 * callback server below and the kernel's HTTP process (os_apps.h) send. */
struct mip_http_resp {
    uint16_t head_len, head_off;
    uint64_t body_left, body_off;
    uint8_t  head[MIP_HTTP_HEAD_MAX];
};

/* Prepares the response: 200 with body_len bytes of the pattern (sent only
 * when with_body: a HEAD request gets the head alone), or an error status
 * with its reason as the body. keep_alive false adds "Connection: close";
 * an HTTP/1.0 request kept alive gets "Connection: keep-alive". */
void mip_http_resp_start(struct mip_http_resp *r, uint16_t status, uint64_t body_len,
                         bool with_body, bool keep_alive, uint8_t version_minor);

/* Queues what fits of the response on c (the head and the start of the
 * body in one write). Adds the body bytes queued to *body_bytes. True when
 * all of it is queued. (A caller that times the response out sees bytes
 * queued as head_off or body_off moving.) */
bool mip_http_resp_send(struct mip_http_resp *r, struct mip_tcp *tcp, struct mip_tcp_conn *c,
                        uint64_t *body_bytes);

/* --- reading requests off a connection ------------------------------------ */

/* What a connection has read of its requests and not yet answered: the
 * head (and any pipelined bytes after it) in req, and the body of the last
 * request still to drop. Both servers (below, and the kernel's HTTP
 * process in os_apps.h) keep one per connection. */
struct mip_http_intake {
    uint16_t   req_len;      /* bytes in req */
    mip_time_t last;         /* last request byte read (the server also sets
                                it on accept and after a response): the idle
                                clock, stack ms */
    uint64_t   skip;         /* request body bytes still to drop */
    uint8_t    req[MIP_HTTP_REQ_MAX];
};

/* The response to one request head, for mip_http_resp_start. */
struct mip_http_answer {
    uint16_t status;         /* 200, 404, 501, or the parser's error status */
    uint64_t body_len;       /* with 200: the /bytes/N body's length */
    bool     with_body;      /* false for HEAD */
    bool     keep_alive;     /* false: close once the response is out */
    bool     request;        /* a well-formed request (count it); false for
                                a refused head */
    uint8_t  version_minor;
};

enum mip_http_take_result {
    MIP_HTTP_TAKE_WAIT = 0,  /* no complete request yet: wait for more bytes */
    MIP_HTTP_TAKE_CLOSED,    /* the client closed with no request to answer
                                (maybe mid-request or mid-body): close */
    MIP_HTTP_TAKE_ANSWER     /* *a answers one request; its head and body are
                                consumed (the body maybe still as in->skip) */
};

/* Drops what is left of the previous request's body, reads what fits of
 * the next request from c into in->req, and parses it. Refreshes in->last
 * when request bytes arrive. Never reads beyond MIP_HTTP_REQ_MAX: a head
 * that does not fit is refused (414 or 431, keep_alive false). */
enum mip_http_take_result mip_http_take(struct mip_http_intake *in, struct mip_tcp *tcp,
                                        struct mip_tcp_conn *c, struct mip_http_answer *a);

/* --- the server -------------------------------------------------------------- */

struct mip_http_server;

struct mip_http_conn {
    struct mip_tcp_app_slot mem;
    struct mip_http_server *app;
    uint8_t  phase;          /* reading a request, sending a response, closing */
    bool     close_after;    /* close once the response is out */
    bool     linger;         /* ... lingering: a refused request (http_run) */
    struct mip_http_intake in;   /* in.last: accepted, last request byte read,
                                    or last response queued: the idle clock */
    struct mip_http_resp resp;   /* mem.moved: the response started, or a
                                    byte of it was queued (the send clock) */
};

struct mip_http_server {
    struct mip_tcp_server srv;   /* listener, port, accepted, refused, errors, active */
    uint32_t requests;       /* complete requests parsed */
    uint32_t status_2xx, status_4xx, status_5xx;   /* responses started */
    uint64_t body_bytes;     /* /bytes/N body bytes queued */
    uint32_t timeouts;       /* connections reset: no request within
                                MIP_HTTP_REQUEST_TIMEOUT_MS, or no response
                                byte taken within MIP_HTTP_SEND_TIMEOUT_MS
                                (the idlest reset for a new one: srv.evicted) */
    struct mip_http_conn conns[MIP_TCP_APP_CONNS];
};

/* Clears *h and listens on `port`. Returns what mip_tcp_listen returns. */
mip_status mip_http_server_start(struct mip_http_server *h, struct mip_tcp *tcp, uint16_t port);
/* Stops listening and aborts the open connections; counters are kept. */
void mip_http_server_stop(struct mip_http_server *h);

#endif
