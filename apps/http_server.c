/* A small HTTP/1.1 server. See http_server.h. */
#include "http_server.h"

#include <string.h>

#include "moteip/stack.h"
#include "moteip/timer.h"

/* --- the request parser (pure) ----------------------------------------------- */

static bool is_tchar(uint8_t ch)
{
    if ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))
        return true;
    switch (ch) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+':
    case '-': case '.': case '^': case '_': case '`': case '|': case '~':
        return true;
    default:
        return false;
    }
}

static uint8_t lower(uint8_t ch)
{
    return (ch >= 'A' && ch <= 'Z') ? (uint8_t)(ch + ('a' - 'A')) : ch;
}

/* Case-insensitive comparison of buf[0..len) with the lower-case word w. */
static bool eq_nocase(const uint8_t *buf, size_t len, const char *w)
{
    size_t i;

    for (i = 0; i < len; i++)
        if (w[i] == '\0' || lower(buf[i]) != (uint8_t)w[i])
            return false;
    return w[len] == '\0';
}

static bool eq_exact(const uint8_t *buf, size_t len, const char *w)
{
    return strlen(w) == len && memcmp(buf, w, len) == 0;
}

/* A decimal without sign, 1..20 digits, into *v; false on overflow. */
static bool parse_u64(const uint8_t *p, size_t len, uint64_t *v)
{
    uint64_t x = 0;
    size_t i;

    if (len == 0)
        return false;
    for (i = 0; i < len; i++) {
        unsigned d;
        if (p[i] < '0' || p[i] > '9')
            return false;
        d = (unsigned)(p[i] - '0');
        if (x > (UINT64_MAX - d) / 10u)
            return false;
        x = x * 10u + d;
    }
    *v = x;
    return true;
}

/* "METHOD SP request-target SP HTTP/d.d"; fills method, target, version.
 * Returns 0 or the status to answer. */
static uint16_t parse_request_line(const uint8_t *buf, size_t start, size_t end,
                                   struct mip_http_request *r)
{
    size_t i = start, m0, t0;

    m0 = i;
    while (i < end && is_tchar(buf[i]))
        i++;
    if (i == m0 || i >= end || buf[i] != ' ')
        return 400;
    if (eq_exact(buf + m0, i - m0, "GET"))
        r->method = MIP_HTTP_GET;
    else if (eq_exact(buf + m0, i - m0, "HEAD"))
        r->method = MIP_HTTP_HEAD;
    else
        r->method = MIP_HTTP_OTHER;
    i++;
    t0 = i;
    while (i < end && buf[i] > 0x20 && buf[i] < 0x7F)
        i++;
    if (i == t0 || i >= end || buf[i] != ' ')
        return 400;
    r->target_off = t0;
    r->target_len = i - t0;
    i++;
    if (end - i != 8 || memcmp(buf + i, "HTTP/", 5) != 0 || buf[i + 6] != '.' ||
        buf[i + 5] < '0' || buf[i + 5] > '9' || buf[i + 7] < '0' || buf[i + 7] > '9')
        return 400;
    if (buf[i + 5] != '1')
        return 505;
    r->version_minor = buf[i + 7] == '0' ? 0u : 1u;
    return 0;
}

struct head_info {
    unsigned hosts;
    bool conn_close, conn_keep_alive, have_cl, have_te;
};

/* "name: value" (RFC 9112 5). Returns 0 or the status to answer. */
static uint16_t parse_header(const uint8_t *buf, size_t start, size_t end,
                             struct head_info *hi, struct mip_http_request *r)
{
    size_t i = start, n0 = start, nlen, v0, v1;

    if (buf[i] == ' ' || buf[i] == '\t')
        return 400;                   /* obs-fold */
    while (i < end && is_tchar(buf[i]))
        i++;
    if (i == n0 || i >= end || buf[i] != ':')
        return 400;                   /* no name, or whitespace before the colon */
    nlen = i - n0;
    i++;
    for (v0 = i; v0 < end; v0++)
        if (buf[v0] != ' ' && buf[v0] != '\t')
            break;
    for (v1 = end; v1 > v0; v1--)
        if (buf[v1 - 1] != ' ' && buf[v1 - 1] != '\t')
            break;
    for (i = v0; i < v1; i++)
        if ((buf[i] < 0x20 && buf[i] != '\t') || buf[i] == 0x7F)
            return 400;               /* control characters */

    if (eq_nocase(buf + n0, nlen, "host")) {
        hi->hosts++;
    } else if (eq_nocase(buf + n0, nlen, "content-length")) {
        uint64_t v;
        if (!parse_u64(buf + v0, v1 - v0, &v))
            return 400;
        if (hi->have_cl && v != r->content_length)
            return 400;
        hi->have_cl = true;
        r->content_length = v;
    } else if (eq_nocase(buf + n0, nlen, "transfer-encoding")) {
        hi->have_te = true;
    } else if (eq_nocase(buf + n0, nlen, "connection")) {
        i = v0;
        while (i < v1) {
            size_t t0, t1;
            while (i < v1 && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == ','))
                i++;
            t0 = i;
            while (i < v1 && buf[i] != ',')
                i++;
            for (t1 = i; t1 > t0 && (buf[t1 - 1] == ' ' || buf[t1 - 1] == '\t'); t1--)
                ;
            if (eq_nocase(buf + t0, t1 - t0, "close"))
                hi->conn_close = true;
            else if (eq_nocase(buf + t0, t1 - t0, "keep-alive"))
                hi->conn_keep_alive = true;
        }
    }
    return 0;
}

static enum mip_http_parse_result invalid(struct mip_http_request *r, uint16_t status)
{
    r->status = status;
    r->keep_alive = false;
    return MIP_HTTP_INVALID;
}

enum mip_http_parse_result mip_http_parse_request(const uint8_t *buf, size_t len, size_t max,
                                                  struct mip_http_request *r)
{
    struct head_info hi;
    size_t pos = 0;
    unsigned line_no = 0;

    memset(r, 0, sizeof(*r));
    memset(&hi, 0, sizeof(hi));
    if (len > max)
        len = max;
    /* RFC 9112 2.2: empty lines before the request line are skipped. */
    for (;;) {
        if (pos < len && buf[pos] == '\n')
            pos++;
        else if (pos + 1 < len && buf[pos] == '\r' && buf[pos + 1] == '\n')
            pos += 2;
        else
            break;
    }
    for (;;) {
        const uint8_t *nl = pos < len ? memchr(buf + pos, '\n', len - pos) : NULL;
        size_t end, next, i;
        uint16_t st;

        if (nl == NULL) {
            if (len < max)
                return MIP_HTTP_INCOMPLETE;
            return invalid(r, line_no == 0 ? 414 : 431);
        }
        end = (size_t)(nl - buf);
        next = end + 1;
        if (end > pos && buf[end - 1] == '\r')
            end--;
        for (i = pos; i < end; i++)
            if (buf[i] == '\r')
                return invalid(r, 400);          /* bare CR */
        if (line_no == 0) {
            st = parse_request_line(buf, pos, end, r);
        } else if (end == pos) {
            r->consumed = next;
            break;
        } else {
            st = parse_header(buf, pos, end, &hi, r);
        }
        if (st != 0)
            return invalid(r, st);
        line_no++;
        pos = next;
    }
    if (hi.have_te && hi.have_cl)
        return invalid(r, 400);
    if (hi.have_te)
        return invalid(r, 501);
    if (r->version_minor >= 1 && hi.hosts != 1)
        return invalid(r, 400);
    r->keep_alive = r->version_minor >= 1 ? !hi.conn_close
                                          : (hi.conn_keep_alive && !hi.conn_close);
    r->status = 0;
    return MIP_HTTP_COMPLETE;
}

bool mip_http_route_bytes(const uint8_t *target, size_t len, uint64_t *n)
{
    static const char prefix[] = "/bytes/";
    size_t i, plen = sizeof(prefix) - 1u;

    /* absolute-form: skip "http://authority" */
    if (len >= 7 && eq_nocase(target, 7, "http://")) {
        for (i = 7; i < len && target[i] != '/' && target[i] != '?'; i++)
            ;
        target += i;
        len -= i;
    }
    for (i = 0; i < len; i++)
        if (target[i] == '?')
            break;
    len = i;
    if (len <= plen || memcmp(target, prefix, plen) != 0)
        return false;
    return parse_u64(target + plen, len - plen, n);
}

void mip_http_body_fill(uint64_t offset, uint8_t *out, size_t n)
{
    size_t k;

    for (k = 0; k < n; k++)
        out[k] = mip_http_body_byte(offset + k);
}

/* --- the server ------------------------------------------------------------------- */

enum { PHASE_READ = 0, PHASE_SEND, PHASE_CLOSING };

/* Appends text to the response head (bounded). */
static void head_put(struct mip_http_resp *r, const char *s)
{
    size_t n = strlen(s);

    if (n > sizeof(r->head) - r->head_len)
        n = sizeof(r->head) - r->head_len;
    memcpy(r->head + r->head_len, s, n);
    r->head_len = (uint16_t)(r->head_len + n);
}

static void head_put_u64(struct mip_http_resp *r, uint64_t v)
{
    char digits[21];
    size_t i = sizeof(digits) - 1;

    digits[i] = '\0';
    do {
        digits[--i] = (char)('0' + (unsigned)(v % 10u));
        v /= 10u;
    } while (v != 0);
    head_put(r, digits + i);
}

static const char *reason(uint16_t status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 505: return "HTTP Version Not Supported";
    default:  return "Error";
    }
}

void mip_http_resp_start(struct mip_http_resp *r, uint16_t status, uint64_t body_len,
                         bool with_body, bool keep_alive, uint8_t version_minor)
{
    char code[4];
    const char *text = NULL;

    r->head_len = 0;
    r->head_off = 0;
    r->body_off = 0;
    r->body_left = 0;
    code[0] = (char)('0' + status / 100u);
    code[1] = (char)('0' + status / 10u % 10u);
    code[2] = (char)('0' + status % 10u);
    code[3] = '\0';
    head_put(r, "HTTP/1.1 ");
    head_put(r, code);
    head_put(r, " ");
    head_put(r, reason(status));
    head_put(r, "\r\nServer: moteip\r\n");
    if (status == 200) {
        head_put(r, "Content-Type: application/octet-stream\r\n");
    } else {
        text = reason(status);
        body_len = strlen(text) + 1u;
        head_put(r, "Content-Type: text/plain\r\n");
    }
    head_put(r, "Content-Length: ");
    head_put_u64(r, body_len);
    head_put(r, "\r\n");
    if (!keep_alive)
        head_put(r, "Connection: close\r\n");
    else if (version_minor == 0)
        head_put(r, "Connection: keep-alive\r\n");
    head_put(r, "\r\n");
    if (with_body) {
        if (text != NULL) {
            head_put(r, text);
            head_put(r, "\n");
        } else {
            r->body_left = body_len;
        }
    }
}

/* Prepares a response on the connection (mip_http_resp_start), counts it,
 * and sets what follows it. */
static void respond(struct mip_http_conn *hc, uint16_t status, uint64_t body_len,
                    bool with_body, bool keep_alive, uint8_t version_minor)
{
    struct mip_http_server *h = hc->app;

    mip_http_resp_start(&hc->resp, status, body_len, with_body, keep_alive, version_minor);
    hc->mem.moved = h->srv.tcp->stack->now;
    if (status == 200)
        h->status_2xx++;
    else if (status < 500)
        h->status_4xx++;
    else
        h->status_5xx++;
    hc->close_after = !keep_alive;
    /* A refused request may have left bytes unread (an over-long line):
     * linger rather than close on them (see http_run). */
    hc->linger = !keep_alive && status >= 400u;
    hc->phase = PHASE_SEND;
}

bool mip_http_resp_send(struct mip_http_resp *r, struct mip_tcp *tcp, struct mip_tcp_conn *c,
                        uint64_t *body_bytes)
{
    uint8_t buf[MIP_TCP_APP_CHUNK];

    /* The head and the start of the body go in one write, so a small
     * response leaves in one segment (not a head that Nagle holds the body
     * behind until the peer's delayed ACK). */
    while (r->head_off < r->head_len) {
        size_t room = mip_tcp_writable(c), n = (size_t)(r->head_len - r->head_off), b = 0, put;

        if (room == 0)
            return false;
        if (n > room)
            n = room;
        if (n > sizeof(buf))
            n = sizeof(buf);
        memcpy(buf, r->head + r->head_off, n);
        if (r->head_off + n == r->head_len) {
            b = (room < sizeof(buf) ? room : sizeof(buf)) - n;
            if ((uint64_t)b > r->body_left)
                b = (size_t)r->body_left;
            mip_http_body_fill(r->body_off, buf + n, b);
        }
        put = mip_tcp_write(tcp, c, buf, n + b);
        if (put <= n) {
            r->head_off = (uint16_t)(r->head_off + put);
        } else {
            r->head_off = r->head_len;
            r->body_off += put - n;
            r->body_left -= put - n;
            *body_bytes += put - n;
        }
        if (put < n + b)
            return false;
    }
    while (r->body_left > 0) {
        size_t room = mip_tcp_writable(c), n, put;

        if (room == 0)
            return false;
        n = room < sizeof(buf) ? room : sizeof(buf);
        if ((uint64_t)n > r->body_left)
            n = (size_t)r->body_left;
        mip_http_body_fill(r->body_off, buf, n);
        put = mip_tcp_write(tcp, c, buf, n);
        r->body_off += put;
        r->body_left -= put;
        *body_bytes += put;
        if (put < n)
            return false;
    }
    return true;
}

enum mip_http_take_result mip_http_take(struct mip_http_intake *in, struct mip_tcp *tcp,
                                        struct mip_tcp_conn *c, struct mip_http_answer *a)
{
    struct mip_http_request r;
    enum mip_http_parse_result res;
    uint64_t n = 0;
    bool bytes_ok;

    /* Drop the body of the previous request: first the part already
     * copied into req (pipelined with its head), then from the ring. */
    if (in->skip > 0 && in->req_len > 0) {
        size_t k = in->skip < in->req_len ? (size_t)in->skip : in->req_len;
        memmove(in->req, in->req + k, in->req_len - k);
        in->req_len = (uint16_t)(in->req_len - k);
        in->skip -= k;
    }
    while (in->skip > 0) {
        uint8_t buf[MIP_TCP_APP_CHUNK];
        size_t want = in->skip < sizeof(buf) ? (size_t)in->skip : sizeof(buf);
        size_t got = mip_tcp_read(tcp, c, buf, want);
        if (got == 0)
            break;
        in->skip -= got;
        in->last = tcp->stack->now;
    }
    if (in->skip == 0 && in->req_len < sizeof(in->req)) {
        size_t got = mip_tcp_read(tcp, c, in->req + in->req_len, sizeof(in->req) - in->req_len);
        in->req_len = (uint16_t)(in->req_len + got);
        if (got > 0)
            in->last = tcp->stack->now;
    }
    res = in->skip > 0 ? MIP_HTTP_INCOMPLETE
                       : mip_http_parse_request(in->req, in->req_len, sizeof(in->req), &r);
    if (res == MIP_HTTP_INCOMPLETE)
        return mip_tcp_peer_closed(c) ? MIP_HTTP_TAKE_CLOSED : MIP_HTTP_TAKE_WAIT;
    memset(a, 0, sizeof(*a));
    if (res == MIP_HTTP_INVALID) {
        in->req_len = 0;
        a->status = r.status;
        a->with_body = true;
        a->version_minor = 1;
        return MIP_HTTP_TAKE_ANSWER;
    }
    a->request = true;
    bytes_ok = mip_http_route_bytes(in->req + r.target_off, r.target_len, &n);
    /* Keep what follows the head: its body (dropped) and the next
     * pipelined request. */
    memmove(in->req, in->req + r.consumed, in->req_len - r.consumed);
    in->req_len = (uint16_t)(in->req_len - r.consumed);
    in->skip = r.content_length;
    a->version_minor = r.version_minor;
    if (r.method == MIP_HTTP_OTHER) {
        a->status = 501;
        a->with_body = true;
    } else {
        a->status = bytes_ok ? 200u : 404u;
        a->body_len = bytes_ok ? n : 0u;
        a->with_body = r.method == MIP_HTTP_GET;
        a->keep_alive = r.keep_alive;
    }
    return MIP_HTTP_TAKE_ANSWER;
}

/* Reads request bytes; answers a complete request. False when waiting. */
static bool take_request(struct mip_http_conn *hc)
{
    struct mip_http_answer a;

    switch (mip_http_take(&hc->in, hc->app->srv.tcp, &hc->mem.conn, &a)) {
    case MIP_HTTP_TAKE_WAIT:
        return false;
    case MIP_HTTP_TAKE_CLOSED:
        hc->phase = PHASE_CLOSING;
        (void)mip_tcp_close(hc->app->srv.tcp, &hc->mem.conn);
        return false;
    case MIP_HTTP_TAKE_ANSWER:
        break;
    }
    if (a.request)
        hc->app->requests++;
    respond(hc, a.status, a.body_len, a.with_body, a.keep_alive, a.version_minor);
    return true;
}

/* Lingering close: drops what the client sends after our FIN, and closes
 * once its FIN came (nothing unread then, so no RST). */
static void http_drain(struct mip_http_conn *hc)
{
    uint8_t buf[MIP_TCP_APP_CHUNK];

    while (mip_tcp_read(hc->app->srv.tcp, &hc->mem.conn, buf, sizeof(buf)) > 0)
        ;
    if (mip_tcp_peer_closed(&hc->mem.conn))
        (void)mip_tcp_close(hc->app->srv.tcp, &hc->mem.conn);
}

/* Runs the connection until it waits for data or send space. */
static void http_run(struct mip_http_conn *hc)
{
    while (hc->mem.used) {
        if (hc->phase == PHASE_SEND) {
            uint64_t queued = hc->resp.head_off + hc->resp.body_off;
            bool all = mip_http_resp_send(&hc->resp, hc->app->srv.tcp, &hc->mem.conn,
                                          &hc->app->body_bytes);
            if (hc->resp.head_off + hc->resp.body_off != queued)
                hc->mem.moved = hc->app->srv.tcp->stack->now;
            if (!all)
                return;
            if (hc->close_after && hc->linger) {
                /* A lingering close after a refused request: FIN now, then
                 * read and drop what the client still sends until its FIN.
                 * Closing at once would answer that data with RST (RFC 1122
                 * 4.2.2.13), and the client's stack may then discard our
                 * response before its application read it. Keepalive ends
                 * the linger of a client that vanished. */
                hc->phase = PHASE_CLOSING;
                hc->mem.conn.cfg.keepalive_ms = MIP_HTTP_LINGER_KEEPALIVE_MS;
                (void)mip_tcp_shutdown(hc->app->srv.tcp, &hc->mem.conn);
                http_drain(hc);
                return;
            }
            if (hc->close_after) {
                /* The client asked to close: what it sends now draws RST. */
                hc->phase = PHASE_CLOSING;
                (void)mip_tcp_close(hc->app->srv.tcp, &hc->mem.conn);
                return;
            }
            hc->phase = PHASE_READ;
            hc->in.last = hc->app->srv.tcp->stack->now;   /* waits for the next request */
        } else if (hc->phase == PHASE_READ) {
            if (!take_request(hc))
                return;
        } else {
            return;
        }
    }
}

static void http_readable(void *ctx, struct mip_tcp_conn *c)
{
    struct mip_http_conn *hc = ctx;

    (void)c;
    if (hc->phase == PHASE_CLOSING) {
        http_drain(hc);
        return;
    }
    http_run(hc);
}

static void http_writable(void *ctx, struct mip_tcp_conn *c)
{
    (void)c;
    http_run(ctx);
}

static void http_error(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why)
{
    struct mip_http_conn *hc = ctx;

    (void)c;
    (void)why;
    hc->app->srv.errors++;
}

static void http_closed(void *ctx, struct mip_tcp_conn *c)
{
    struct mip_http_conn *hc = ctx;

    (void)c;
    mip_tcp_server_closed(&hc->app->srv, &hc->mem);
}

static const struct mip_tcp_callbacks http_cb = {
    .readable = http_readable,
    .writable = http_writable,
    .closed = http_closed,
    .error = http_error,
};

/* Before a new connection takes a slot (http_server.h): resets the
 * connections that waited too long for a request, then, when none is free,
 * the idlest that is not sending a response. A reset connection's `closed`
 * callback frees its slot at once. */
static void http_make_room(struct mip_http_server *h)
{
    mip_time_t now = h->srv.tcp->stack->now;
    struct mip_http_conn *idlest = NULL;
    unsigned i;
    bool full = true;

    for (i = 0; i < MIP_TCP_APP_CONNS; i++) {
        struct mip_http_conn *hc = &h->conns[i];
        if (!hc->mem.used) {
            full = false;
            continue;
        }
        /* The server has no timer: its stamps are read only here, maybe
         * days later. Held within the horizon first, a connection idle for
         * weeks reads as old, not as a stamp from the future (timer.h). */
        if (hc->phase == PHASE_SEND) {
            (void)mip_time_hold(&hc->mem.moved, now);
            if (!mip_time_reached(now, hc->mem.moved + MIP_HTTP_SEND_TIMEOUT_MS))
                continue;       /* mid-response and moving: protected */
            h->timeouts++;      /* the client took nothing for a minute */
            mip_tcp_abort(h->srv.tcp, &hc->mem.conn);
            full = false;
            continue;
        }
        (void)mip_time_hold(&hc->in.last, now);
        if (hc->phase == PHASE_READ &&
            mip_time_reached(now, hc->in.last + MIP_HTTP_REQUEST_TIMEOUT_MS)) {
            h->timeouts++;
            mip_tcp_abort(h->srv.tcp, &hc->mem.conn);
            full = false;
            continue;
        }
        if (idlest == NULL || (hc->phase == PHASE_CLOSING && idlest->phase != PHASE_CLOSING) ||
            (hc->phase == idlest->phase && mip_time_before(hc->in.last, idlest->in.last)))
            idlest = hc;
    }
    if (full && idlest != NULL) {
        h->srv.evicted++;
        mip_tcp_abort(h->srv.tcp, &idlest->mem.conn);
    }
}

static struct mip_tcp_conn *http_accept(struct mip_tcp_listener *l, struct mip_tcp *tcp,
                                        uint16_t port)
{
    struct mip_http_server *h = MIP_CONTAINER_OF(l, struct mip_http_server, srv.listener);
    struct mip_tcp_app_slot *m;
    struct mip_http_conn *hc;

    (void)tcp;
    (void)port;
    http_make_room(h);
    m = mip_tcp_server_free_slot(&h->srv, &h->conns[0].mem, sizeof(h->conns[0]), 0u);
    if (m == NULL)
        return NULL;
    hc = MIP_CONTAINER_OF(m, struct mip_http_conn, mem);
    hc->app = h;
    hc->in.last = h->srv.tcp->stack->now;
    hc->phase = PHASE_READ;
    hc->close_after = false;
    hc->linger = false;
    hc->in.req_len = 0;
    hc->resp.head_len = hc->resp.head_off = 0;
    hc->resp.body_left = hc->resp.body_off = 0;
    hc->in.skip = 0;
    return mip_tcp_app_slot_take(&hc->mem, &http_cb, hc);
}

mip_status mip_http_server_start(struct mip_http_server *h, struct mip_tcp *tcp, uint16_t port)
{
    if (h == NULL || tcp == NULL)
        return MIP_ERR_INVALID;
    memset(h, 0, sizeof(*h));
    return mip_tcp_server_listen(&h->srv, tcp, port, http_accept);
}

void mip_http_server_stop(struct mip_http_server *h)
{
    if (h != NULL)
        mip_tcp_server_stop(&h->srv, &h->conns[0].mem, sizeof(h->conns[0]));
}
