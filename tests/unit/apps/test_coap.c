/*
 * The CoAP endpoint (apps/coap.h) on two real stacks joined by an
 * in-memory link (tcp/tcp_pair.h): a client endpoint on side 0, a server
 * endpoint on side 1, and a raw UDP peer on side 0 that sends hand-built
 * messages and records what comes back. Covers piggybacked, NON and
 * separate responses, duplicates, pings, bad options, format errors,
 * block-wise transfers both ways, retransmission timing, NSTART and CoCoA.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coap.h"
#include "tcp/tcp_pair.h"
#include "testing.h"

#define RAW_PORT 40000u
#define RAW_MAX 16

struct raw_peer {
    unsigned n;
    size_t len[RAW_MAX];
    uint8_t msg[RAW_MAX][256];
    uint16_t from_port[RAW_MAX];
};

struct fx {
    struct pair p;
    struct mip_coap_endpoint client, server;
    struct raw_peer raw;
    struct mip_coap_peer server_addr, raw_addr;
    /* resource state */
    unsigned hello_calls;
    uint8_t big[300];
    uint8_t upload[512];
    size_t upload_len;
    unsigned upload_blocks;
    /* client outcomes */
    unsigned results;
    enum mip_coap_result last_result;
    uint8_t last_code;
    uint8_t last_payload[64];
    size_t last_payload_len;
    /* drop control and send times of side 0 */
    unsigned drop_from0, drop_from1;       /* frames to drop, per side */
    unsigned sent0;
    mip_time_t sent0_at[32];
};

static struct fx fxs;

static void hello(void *ctx, const struct mip_coap_request *req, struct mip_coap_response *r)
{
    struct fx *f = ctx;
    (void)req;
    f->hello_calls++;
    r->content_format = MIP_COAP_FORMAT_TEXT;
    r->payload = (const uint8_t *)"hello";
    r->payload_len = 5;
}

static void big(void *ctx, const struct mip_coap_request *req, struct mip_coap_response *r)
{
    struct fx *f = ctx;
    (void)req;
    r->content_format = MIP_COAP_FORMAT_OCTETS;
    r->payload = f->big;
    r->payload_len = sizeof f->big;
}

static void sink(void *ctx, const struct mip_coap_request *req, struct mip_coap_response *r)
{
    struct fx *f = ctx;
    const struct mip_coap_msg *m = req->msg;
    uint32_t off = req->has_block1 ? req->block1_offset : 0;

    if (off != f->upload_len || off + m->payload_len > sizeof f->upload) {
        r->code = MIP_COAP_INCOMPLETE;
        return;
    }
    memcpy(f->upload + off, m->payload, m->payload_len);
    f->upload_len += m->payload_len;
    f->upload_blocks++;
}

/* A 100,000-byte representation nobody holds: byte i is (i * 31) >> 3. */
static size_t gen_calls, gen_last_off, gen_last_n;

static void gen_read(void *ctx, size_t offset, uint8_t *buf, size_t n)
{
    size_t i;
    (void)ctx;
    gen_calls++;
    gen_last_off = offset;
    gen_last_n = n;
    for (i = 0; i < n; i++)
        buf[i] = (uint8_t)(((offset + i) * 31u) >> 3);
}

static void generated(void *ctx, const struct mip_coap_request *req, struct mip_coap_response *r)
{
    (void)ctx;
    (void)req;
    r->payload_len = 100000;
    r->read = gen_read;
}

static const struct mip_coap_resource resources[] = {
    { "gen", MIP_COAP_M_GET, generated, NULL },
    { "hello", MIP_COAP_M_GET, hello, &fxs },
    { "big/data", MIP_COAP_M_GET, big, &fxs },
    { "sink", MIP_COAP_M_POST | MIP_COAP_M_PUT, sink, &fxs },
};

static void raw_recv(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                     const uint8_t *data, size_t len)
{
    struct raw_peer *r = ctx;
    (void)s;
    if (r->n < RAW_MAX && len <= sizeof r->msg[0]) {
        memcpy(r->msg[r->n], data, len);
        r->len[r->n] = len;
        r->from_port[r->n] = m->src_port;
        r->n++;
    }
}

static bool dropper(struct pair *p, int from, unsigned n, const uint8_t *fr, size_t len)
{
    struct fx *f = p->user;
    (void)n;
    (void)fr;
    (void)len;
    if (from == 0) {
        if (f->sent0 < 32)
            f->sent0_at[f->sent0] = p->now;
        f->sent0++;
        if (f->drop_from0 > 0) {
            f->drop_from0--;
            return true;
        }
    } else if (f->drop_from1 > 0) {
        f->drop_from1--;
        return true;
    }
    return false;
}

static void on_result(void *ctx, enum mip_coap_result r, const struct mip_coap_msg *resp)
{
    struct fx *f = ctx;
    f->results++;
    f->last_result = r;
    f->last_code = resp != NULL ? resp->code : 0;
    f->last_payload_len = 0;
    if (resp != NULL && resp->payload_len != 0 && resp->payload_len <= sizeof f->last_payload) {
        memcpy(f->last_payload, resp->payload, resp->payload_len);
        f->last_payload_len = resp->payload_len;
    }
}

static struct fx *setup(bool v6, bool cocoa)
{
    struct fx *f = &fxs;
    size_t i;
    uint8_t plen;

    memset(f, 0, sizeof *f);
    pair_init(&f->p, v6);
    f->p.user = f;
    f->p.drop = dropper;
    for (i = 0; i < sizeof f->big; i++)
        f->big[i] = (uint8_t)(i * 7u + 3u);
    CHECK_EQ(mip_coap_start(&f->client, f->p.side[0].s, 5683, NULL, 0, cocoa), MIP_OK);
    CHECK_EQ(mip_coap_start(&f->server, f->p.side[1].s, 5683, resources,
                            sizeof resources / sizeof resources[0], false), MIP_OK);
    CHECK_EQ(mip_udp_bind(f->p.side[0].s, RAW_PORT, raw_recv, &f->raw), MIP_OK);
    CHECK_EQ(mip_addr_parse(v6 ? "fd00::2" : "192.0.2.2", &f->server_addr.addr, &plen), MIP_OK);
    f->server_addr.port = 5683;
    f->server_addr.netif = MIP_NETIF_ANY;
    CHECK_EQ(mip_addr_parse(v6 ? "fd00::1" : "192.0.2.1", &f->raw_addr.addr, &plen), MIP_OK);
    f->raw_addr.port = RAW_PORT;
    f->raw_addr.netif = MIP_NETIF_ANY;
    return f;
}

static void teardown(struct fx *f)
{
    mip_coap_stop(&f->client);
    mip_coap_stop(&f->server);
    pair_free(&f->p);
}

/* Sends bytes from the raw peer to the server and runs the link. */
static void raw_send(struct fx *f, const uint8_t *msg, size_t len)
{
    CHECK_EQ(mip_udp_sendto(f->p.side[0].s, NULL, RAW_PORT, &f->server_addr.addr, 5683,
                            MIP_NETIF_ANY, msg, len),
             MIP_OK);
    pair_run(&f->p, 5, 100);
}

static size_t build(uint8_t *buf, size_t cap, uint8_t type, uint8_t code, uint16_t mid,
                    const char *path, uint16_t extra_opt, const struct mip_coap_block *b2)
{
    struct mip_coap_writer w;

    mip_coap_w_begin(&w, buf, cap, type, code, mid, (const uint8_t *)"\xAA\xBB", 2);
    if (extra_opt != 0 && extra_opt < MIP_COAP_OPT_URI_PATH)
        mip_coap_w_option(&w, extra_opt, "x", 1);
    if (path != NULL)
        mip_coap_w_option(&w, MIP_COAP_OPT_URI_PATH, path, strlen(path));
    if (b2 != NULL)
        mip_coap_w_block(&w, MIP_COAP_OPT_BLOCK2, b2);
    if (extra_opt > MIP_COAP_OPT_BLOCK2)
        mip_coap_w_option(&w, extra_opt, "x", 1);
    return mip_coap_w_end(&w);
}

/* Like pair_run, but each direction's frames wait `one_way_ms` on the
 * link, so a request and its answer take a real round trip (pair_run
 * delivers both directions in one round). */
static void run_delayed(struct fx *f, uint32_t one_way_ms, uint32_t max_ms)
{
    mip_time_t end = f->p.now + max_ms;
    int i;

    while (mip_time_before(f->p.now, end)) {
        for (i = 0; i < 2; i++) {
            struct pair_side *from = &f->p.side[i], *to = &f->p.side[1 - i];
            unsigned n = from->qlen;
            f->p.now += one_way_ms;
            mip_stack_poll(to->s, f->p.now);
            while (n-- > 0) {
                struct pair_frame *fr = &from->q[from->qhead];
                from->qhead = (from->qhead + 1) % PAIR_QMAX;
                from->qlen--;
                mip_stack_input(to->s, 0, fr->data, fr->len, f->p.now);
            }
            mip_stack_poll(from->s, f->p.now);
        }
    }
}

static size_t empty_ack(uint8_t *buf, uint16_t mid)
{
    struct mip_coap_writer w;

    mip_coap_w_begin(&w, buf, 4, MIP_COAP_ACK, MIP_COAP_EMPTY, mid, NULL, 0);
    return mip_coap_w_end(&w);
}

/* The n-th message the raw peer received, parsed. */
static void raw_reply(struct fx *f, unsigned n, struct mip_coap_msg *m)
{
    CHECK(f->raw.n > n);
    if (f->raw.n > n)
        CHECK_EQ(mip_coap_parse(f->raw.msg[n], f->raw.len[n], m), MIP_COAP_OK);
    else
        memset(m, 0, sizeof *m);
}

static void test_con_get_gets_piggybacked_content(void)
{
    int v6;

    for (v6 = MIP_CONF_IPV4 ? 0 : 1; v6 < 2; v6++) {
        struct fx *f = setup(v6 != 0, false);
        CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, MIP_COAP_CON, MIP_COAP_GET,
                                  "hello", NULL, NULL, 0, on_result, f), MIP_OK);
        CHECK_EQ(f->results, 0);   /* never from inside the call */
        pair_run(&f->p, 5, 1000);
        CHECK_EQ(f->results, 1);
        CHECK_EQ(f->last_result, MIP_COAP_RESPONSE);
        CHECK_EQ(f->last_code, MIP_COAP_CONTENT);
        CHECK_EQ(f->last_payload_len, 5);
        CHECK_MEM(f->last_payload, "hello", 5);
        CHECK_EQ(f->hello_calls, 1);
        CHECK_EQ(mip_coap_stat(&f->client, MIP_COAP_STAT_retransmissions), 0);
        CHECK_EQ(mip_coap_stat(&f->server, MIP_COAP_STAT_requests_served), 1);
        pair_run(&f->p, 5, 400000);   /* nothing left to fire */
        CHECK_EQ(f->results, 1);
        teardown(f);
    }
}

/* mip_stack_awaits_reply (a sleepy leaf polls fast while it is true,
 * TCPlp s.9): the client's stack from a request, CON or NON, to its
 * outcome; the server's never. Before, only TCP could say so, and a CoAP
 * leaf polling every 4 min delivered 4 % of its readings. */
static void test_client_stack_awaits_the_response(void)
{
    static const uint8_t types[] = { MIP_COAP_CON, MIP_COAP_NON };
    unsigned k;
    for (k = 0; k < sizeof(types); k++) {
        struct fx *f = setup(true, false);
        CHECK(!mip_stack_awaits_reply(f->p.side[0].s));
        CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, types[k], MIP_COAP_GET,
                                  "hello", NULL, NULL, 0, on_result, f), MIP_OK);
        CHECK(mip_stack_awaits_reply(f->p.side[0].s));
        CHECK(!mip_stack_awaits_reply(f->p.side[1].s));
        pair_run(&f->p, 5, 1000);
        CHECK_EQ(f->results, 1);
        CHECK(!mip_stack_awaits_reply(f->p.side[0].s));
        teardown(f);
    }
}

static void test_non_request_gets_non_response(void)
{
    struct fx *f = setup(true, false);
    uint8_t b[64];
    struct mip_coap_msg m;

    raw_send(f, b, build(b, sizeof b, MIP_COAP_NON, MIP_COAP_GET, 0x1234, "hello", 0, NULL));
    raw_reply(f, 0, &m);
    CHECK_EQ(m.type, MIP_COAP_NON);
    CHECK_EQ(m.code, MIP_COAP_CONTENT);
    CHECK_EQ(m.token_len, 2);
    CHECK_MEM(m.token, "\xAA\xBB", 2);
    CHECK_EQ(m.payload_len, 5);
    /* A NON seen again is dropped, not served twice. */
    raw_send(f, b, build(b, sizeof b, MIP_COAP_NON, MIP_COAP_GET, 0x1234, "hello", 0, NULL));
    CHECK_EQ(f->raw.n, 1);
    CHECK_EQ(f->hello_calls, 1);
    CHECK_EQ(mip_coap_stat(&f->server, MIP_COAP_STAT_duplicates), 1);
    teardown(f);
}

static void test_duplicate_con_gets_the_same_ack_without_the_handler(void)
{
    struct fx *f = setup(true, false);
    uint8_t b[64];

    raw_send(f, b, build(b, sizeof b, MIP_COAP_CON, MIP_COAP_GET, 0x0101, "hello", 0, NULL));
    raw_send(f, b, build(b, sizeof b, MIP_COAP_CON, MIP_COAP_GET, 0x0101, "hello", 0, NULL));
    CHECK_EQ(f->raw.n, 2);
    CHECK_EQ(f->raw.len[0], f->raw.len[1]);
    CHECK_MEM(f->raw.msg[0], f->raw.msg[1], f->raw.len[0]);
    CHECK_EQ(f->hello_calls, 1);
    /* After EXCHANGE_LIFETIME the same MID is a new request. */
    f->p.now += MIP_COAP_EXCHANGE_LIFETIME_MS + 1;
    raw_send(f, b, build(b, sizeof b, MIP_COAP_CON, MIP_COAP_GET, 0x0101, "hello", 0, NULL));
    CHECK_EQ(f->hello_calls, 2);
    teardown(f);
}

/* Both stacks idle for `ms`, polled as a host would: at every deadline
 * poll reports, and at least every 10 min (a housekeeping tick). */
static void idle(struct fx *f, uint32_t ms)
{
    uint32_t d0, d1, d;

    while (ms > 0u) {           /* (a count: ms may exceed half the wrap) */
        d0 = mip_stack_poll(f->p.side[0].s, f->p.now);
        d1 = mip_stack_poll(f->p.side[1].s, f->p.now);
        d = d0 < d1 ? d0 : d1;
        d = d < 600000u ? d : 600000u;
        d = d == 0u ? 1u : d > ms ? ms : d;
        f->p.now += d;
        ms -= d;
    }
}

/* Issue 24 (3): an entry's expiry was only checked when its MID came
 * again, so after 2^31 ms (24.9 days) the expired entry read as fresh: a
 * new request reusing the MID was swallowed and the stale reply resent.
 * Entries now expire in poll, which reports the earliest expiry. */
static void test_dedup_entry_does_not_revive_after_half_the_wrap(void)
{
    struct fx *f = setup(true, false);
    uint8_t b[64];

    raw_send(f, b, build(b, sizeof b, MIP_COAP_CON, MIP_COAP_GET, 0x0202, "hello", 0, NULL));
    CHECK_EQ(f->hello_calls, 1);
    /* 2^31 ms after the entry expired (247 s): 24.9 days and 5 min */
    idle(f, 0x80000000u + 300000u);
    raw_send(f, b, build(b, sizeof b, MIP_COAP_CON, MIP_COAP_GET, 0x0202, "hello", 0, NULL));
    CHECK_EQ(f->hello_calls, 2);
    CHECK_EQ(mip_coap_stat(&f->server, MIP_COAP_STAT_duplicates), 0);
    CHECK_EQ(f->raw.n, 2);
    teardown(f);
}

static void test_ping_gets_rst(void)
{
    struct fx *f = setup(true, false);
    static const uint8_t ping[] = { 0x40, 0x00, 0x42, 0x42 };
    struct mip_coap_msg m;

    raw_send(f, ping, sizeof ping);
    raw_reply(f, 0, &m);
    CHECK_EQ(m.type, MIP_COAP_RST);
    CHECK_EQ(m.code, MIP_COAP_EMPTY);
    CHECK_EQ(m.mid, 0x4242);
    teardown(f);
}

/* One row per request: what the server must answer (0: nothing). */
static void test_requests_get_the_rfc_answer(void)
{
    static const struct {
        const char *what;
        uint8_t type, code;
        const char *path;
        uint16_t extra_opt;
        uint8_t want_type, want_code;
    } rows[] = {
        { "unknown path", MIP_COAP_CON, MIP_COAP_GET, "nope", 0, MIP_COAP_ACK, MIP_COAP_NOT_FOUND },
        { "no path", MIP_COAP_CON, MIP_COAP_GET, NULL, 0, MIP_COAP_ACK, MIP_COAP_NOT_FOUND },
        { "wrong method", MIP_COAP_CON, MIP_COAP_DELETE, "hello", 0, MIP_COAP_ACK, MIP_COAP_NOT_ALLOWED },
        { "critical unknown (CON)", MIP_COAP_CON, MIP_COAP_GET, "hello", 9, MIP_COAP_ACK, MIP_COAP_BAD_OPTION },
        { "critical If-Match", MIP_COAP_CON, MIP_COAP_GET, "hello", 1, MIP_COAP_ACK, MIP_COAP_BAD_OPTION },
        { "critical unknown (NON)", MIP_COAP_NON, MIP_COAP_GET, "hello", 9, 0, 0 },
        { "Proxy-Uri", MIP_COAP_CON, MIP_COAP_GET, "hello", MIP_COAP_OPT_PROXY_URI, MIP_COAP_ACK, MIP_COAP_NO_PROXY },
        { "elective unknown", MIP_COAP_CON, MIP_COAP_GET, "hello", 2, MIP_COAP_ACK, MIP_COAP_CONTENT },
        { "elective high", MIP_COAP_CON, MIP_COAP_GET, "hello", 2048, MIP_COAP_ACK, MIP_COAP_CONTENT },
    };
    size_t i;

    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct fx *f = setup(true, false);
        uint8_t b[64];
        struct mip_coap_msg m;
        size_t n = build(b, sizeof b, rows[i].type, rows[i].code, (uint16_t)(0x500 + i),
                         rows[i].path, rows[i].extra_opt, NULL);
        CHECK(n > 0);
        raw_send(f, b, n);
        if (rows[i].want_type == 0) {
            if (f->raw.n != 0)
                fprintf(stderr, "row '%s': unexpected reply\n", rows[i].what);
            CHECK_EQ(f->raw.n, 0);
        } else {
            raw_reply(f, 0, &m);
            if (m.code != rows[i].want_code)
                fprintf(stderr, "row '%s': code %d.%02d\n", rows[i].what, m.code >> 5, m.code & 31);
            CHECK_EQ(m.type, rows[i].want_type);
            CHECK_EQ(m.code, rows[i].want_code);
            CHECK_EQ(m.mid, 0x500 + i);
            CHECK_MEM(m.token, "\xAA\xBB", 2);
        }
        teardown(f);
    }
}

static void test_malformed_messages_are_counted_and_cons_reset(void)
{
    static const struct {
        uint8_t bytes[8];
        size_t len;
        bool rst;
        enum mip_coap_stat counter;
    } rows[] = {
        { { 0x49, 0x01, 0x00, 0x07 }, 4, true, MIP_COAP_STAT_drop_format },      /* TKL 9, CON */
        { { 0x59, 0x01, 0x00, 0x07 }, 4, false, MIP_COAP_STAT_drop_format },     /* TKL 9, NON */
        { { 0x40, 0x01, 0x00, 0x07, 0xF1, 0x00 }, 6, true, MIP_COAP_STAT_drop_format },
        { { 0x40, 0x01, 0x00, 0x07, 0xFF }, 5, true, MIP_COAP_STAT_drop_format },
        { { 0x40, 0x21, 0x00, 0x07 }, 4, true, MIP_COAP_STAT_drop_format },      /* class 1 */
        { { 0x80, 0x01, 0x00, 0x07 }, 4, false, MIP_COAP_STAT_drop_version },
        { { 0x40, 0x01 }, 2, false, MIP_COAP_STAT_drop_format },
        { { 0x60, 0x45, 0x00, 0x07 }, 4, false, MIP_COAP_STAT_drop_unmatched },   /* stray ACK */
        { { 0x60, 0x01, 0x00, 0x07 }, 4, false, MIP_COAP_STAT_drop_unexpected },  /* request in ACK */
    };
    size_t i;

    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct fx *f = setup(true, false);
        struct mip_coap_msg m;
        raw_send(f, rows[i].bytes, rows[i].len);
        CHECK_EQ(mip_coap_stat(&f->server, rows[i].counter), 1);
        CHECK_EQ(f->raw.n, rows[i].rst ? 1 : 0);
        if (rows[i].rst) {
            raw_reply(f, 0, &m);
            CHECK_EQ(m.type, MIP_COAP_RST);
            CHECK_EQ(m.mid, 7);
        }
        CHECK_EQ(f->hello_calls, 0);
        teardown(f);
    }
}

static void test_block2_serves_slices_with_size2(void)
{
    struct fx *f = setup(true, false);
    uint8_t b[64], got[300];
    struct mip_coap_msg m;
    struct mip_coap_option o;
    struct mip_coap_block blk, want = { 0, false, 6 };
    uint32_t size2 = 0, total = 0;
    unsigned i;

    /* Asked for 1024-byte blocks, the 128-byte endpoint answers 64 (SZX 2). */
    for (i = 0; i < 8; i++) {
        raw_send(f, b, build(b, sizeof b, MIP_COAP_CON, MIP_COAP_GET, (uint16_t)(0x900 + i),
                             "big/data", 0, &want));
        raw_reply(f, i, &m);
        CHECK_EQ(m.code, MIP_COAP_CONTENT);
        CHECK(mip_coap_opt_find(&m, MIP_COAP_OPT_BLOCK2, &o));
        CHECK(mip_coap_block_decode(&o, &blk));
        CHECK_EQ(blk.szx, 2);
        CHECK_EQ(blk.num, i);
        if (i == 0) {
            CHECK(mip_coap_opt_find(&m, MIP_COAP_OPT_SIZE2, &o));
            CHECK(mip_coap_opt_uint(&o, &size2));
        } else {
            CHECK(!mip_coap_opt_find(&m, MIP_COAP_OPT_SIZE2, &o));
        }
        CHECK(total + m.payload_len <= sizeof got);
        if (total + m.payload_len <= sizeof got)
            memcpy(got + total, m.payload, m.payload_len);
        total += (uint32_t)m.payload_len;
        if (!blk.more)
            break;
        want.num = i + 1;
        want.szx = 2;
    }
    CHECK_EQ(size2, 300);
    CHECK_EQ(total, 300);
    CHECK_EQ(i, 4);                 /* 4 x 64 + 44 */
    CHECK_MEM(got, f->big, 300);
    /* A block past the end is a bad option (RFC 7959 s.2.4). */
    want.num = 5;
    raw_send(f, b, build(b, sizeof b, MIP_COAP_CON, MIP_COAP_GET, 0x9FF, "big/data", 0, &want));
    raw_reply(f, f->raw.n - 1, &m);
    CHECK_EQ(m.code, MIP_COAP_BAD_OPTION);
    /* A client asking for 32-byte blocks gets them; its numbers are its own. */
    want.num = 3;
    want.szx = 1;
    raw_send(f, b, build(b, sizeof b, MIP_COAP_CON, MIP_COAP_GET, 0xA00, "big/data", 0, &want));
    raw_reply(f, f->raw.n - 1, &m);
    CHECK_EQ(m.payload_len, 32);
    CHECK_MEM(m.payload, f->big + 96, 32);
    teardown(f);
}

static void test_block2_from_a_reader_asks_only_for_the_slice(void)
{
    struct fx *f = setup(true, false);
    uint8_t b[64];
    struct mip_coap_msg m;
    struct mip_coap_block want = { 1000, false, 2 }, blk;
    struct mip_coap_option o;
    size_t i;

    gen_calls = 0;
    raw_send(f, b, build(b, sizeof b, MIP_COAP_CON, MIP_COAP_GET, 0xB00, "gen", 0, &want));
    raw_reply(f, 0, &m);
    CHECK_EQ(m.code, MIP_COAP_CONTENT);
    CHECK_EQ(gen_calls, 1);
    CHECK_EQ(gen_last_off, 64000);
    CHECK_EQ(gen_last_n, 64);
    CHECK_EQ(m.payload_len, 64);
    for (i = 0; i < 64 && i < m.payload_len; i++)
        CHECK_EQ(m.payload[i], (uint8_t)(((64000 + i) * 31u) >> 3));
    CHECK(mip_coap_opt_find(&m, MIP_COAP_OPT_BLOCK2, &o));
    CHECK(mip_coap_block_decode(&o, &blk));
    CHECK(blk.more);
    /* The last block: 100000 = 1562 * 64 + 32. */
    want.num = 1562;
    raw_send(f, b, build(b, sizeof b, MIP_COAP_CON, MIP_COAP_GET, 0xB01, "gen", 0, &want));
    raw_reply(f, 1, &m);
    CHECK_EQ(m.payload_len, 32);
    CHECK(mip_coap_opt_find(&m, MIP_COAP_OPT_BLOCK2, &o));
    CHECK(mip_coap_block_decode(&o, &blk));
    CHECK(!blk.more);
    teardown(f);
}

static void test_block1_upload_continues_then_changes(void)
{
    struct fx *f = setup(true, false);
    uint8_t data[150];
    struct mip_coap_block blk = { 0, true, 2 };   /* 64-byte blocks */
    size_t off = 0, i;

    for (i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i ^ 0x5A);
    while (off < sizeof data) {
        size_t n = sizeof data - off < 64 ? sizeof data - off : 64;
        blk.num = (uint32_t)(off / 64);
        blk.more = off + n < sizeof data;
        CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, MIP_COAP_CON, MIP_COAP_POST,
                                  "sink", &blk, data + off, n, on_result, f), MIP_OK);
        pair_run(&f->p, 5, 1000);
        CHECK_EQ(f->last_result, MIP_COAP_RESPONSE);
        CHECK_EQ(f->last_code, blk.more ? MIP_COAP_CONTINUE : MIP_COAP_CHANGED);
        off += n;
    }
    CHECK_EQ(f->results, 3);
    CHECK_EQ(f->upload_blocks, 3);
    CHECK_EQ(f->upload_len, sizeof data);
    CHECK_MEM(f->upload, data, sizeof data);
    teardown(f);
}

/* RFC 7959 2.2: with M set the payload is exactly the block size; a
 * shorter or longer one is answered 4.00, and the resource never sees it
 * (before, a short one drew 2.31 Continue). Without M any size up to the
 * block goes. */
static void test_block1_with_more_and_a_short_payload_is_bad(void)
{
    static const struct {
        size_t n;
        bool more;
        uint8_t want;
    } rows[] = {
        { 63, true, MIP_COAP_BAD_REQUEST },
        { 65, true, MIP_COAP_BAD_REQUEST },
        { 0, true, MIP_COAP_BAD_REQUEST },
        { 64, true, MIP_COAP_CONTINUE },
    };
    uint8_t data[65];
    unsigned r;

    memset(data, 0xA5, sizeof data);
    for (r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        struct fx *f = setup(true, false);
        struct mip_coap_block blk = { 0, rows[r].more, 2 };   /* 64-byte blocks */
        CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, MIP_COAP_CON, MIP_COAP_POST,
                                  "sink", &blk, data, rows[r].n, on_result, f), MIP_OK);
        pair_run(&f->p, 5, 1000);
        CHECK_EQ(f->last_result, MIP_COAP_RESPONSE);
        CHECK_EQ(f->last_code, rows[r].want);
        CHECK_EQ(f->upload_blocks, (rows[r].want == MIP_COAP_CONTINUE ? 1u : 0u));
        teardown(f);
    }
}

static void test_con_backs_off_four_times_then_times_out(void)
{
    struct fx *f = setup(true, false);
    uint32_t gap, first;
    unsigned i;

    f->drop_from0 = 100;
    CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, MIP_COAP_CON, MIP_COAP_GET,
                              "hello", NULL, NULL, 0, on_result, f), MIP_OK);
    pair_run(&f->p, 5, 200000);
    CHECK_EQ(f->sent0, 5);          /* the request and MAX_RETRANSMIT (4) resends */
    first = f->sent0_at[1] - f->sent0_at[0];
    CHECK(first >= 2000 && first <= 3000);
    for (i = 2; i < 5; i++) {
        gap = f->sent0_at[i] - f->sent0_at[i - 1];
        CHECK(gap >= 2 * first - 2 && gap <= (2 * first + 2) << (i - 2));
        first = gap;
    }
    CHECK_EQ(f->results, 1);
    CHECK_EQ(f->last_result, MIP_COAP_TIMEOUT);
    CHECK_EQ(mip_coap_stat(&f->client, MIP_COAP_STAT_retransmissions), 4);
    CHECK_EQ(mip_coap_stat(&f->client, MIP_COAP_STAT_timeouts), 1);
    teardown(f);
}

static void test_lost_ack_is_repaired_from_the_dedup_cache(void)
{
    struct fx *f = setup(true, false);

    f->drop_from1 = 1;              /* the first piggybacked ACK is lost */
    CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, MIP_COAP_CON, MIP_COAP_GET,
                              "hello", NULL, NULL, 0, on_result, f), MIP_OK);
    pair_run(&f->p, 5, 10000);
    CHECK_EQ(f->results, 1);
    CHECK_EQ(f->last_code, MIP_COAP_CONTENT);
    CHECK_EQ(f->hello_calls, 1);    /* served once, answered twice */
    CHECK_EQ(mip_coap_stat(&f->server, MIP_COAP_STAT_duplicates), 1);
    CHECK_EQ(mip_coap_stat(&f->client, MIP_COAP_STAT_retransmissions), 1);
    teardown(f);
}

static void test_nstart_is_one_per_peer(void)
{
    struct fx *f = setup(true, false);

    CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, MIP_COAP_CON, MIP_COAP_GET,
                              "hello", NULL, NULL, 0, on_result, f), MIP_OK);
    CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, MIP_COAP_CON, MIP_COAP_GET,
                              "hello", NULL, NULL, 0, on_result, f), MIP_ERR_INUSE);
    CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, MIP_COAP_ACK, MIP_COAP_GET,
                              "hello", NULL, NULL, 0, on_result, f), MIP_ERR_INVALID);
    CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, MIP_COAP_CON, MIP_COAP_CONTENT,
                              "hello", NULL, NULL, 0, on_result, f), MIP_ERR_INVALID);
    pair_run(&f->p, 5, 1000);
    CHECK_EQ(f->results, 1);
    teardown(f);
}

/* The client sends to the raw peer, which answers with an empty ACK and
 * later a CON response: the client ACKs it and reports it once. */
static void test_separate_response_is_acked_and_reported(void)
{
    struct fx *f = setup(true, false);
    struct mip_coap_msg req, m;
    struct mip_coap_writer w;
    uint8_t b[64];
    struct mip_coap_peer client_addr;

    client_addr.addr = f->raw_addr.addr;
    client_addr.port = 5683;
    client_addr.netif = MIP_NETIF_ANY;
    /* The raw peer lives on side 0 too: talk to it through side 1's stack. */
    CHECK_EQ(mip_udp_unbind(f->p.side[0].s, RAW_PORT), MIP_OK);
    CHECK_EQ(mip_udp_bind(f->p.side[1].s, RAW_PORT, raw_recv, &f->raw), MIP_OK);
    f->raw_addr.addr = f->server_addr.addr;
    CHECK_EQ(mip_coap_request(&f->client, &f->raw_addr, MIP_COAP_CON, MIP_COAP_GET,
                              "later", NULL, NULL, 0, on_result, f), MIP_OK);
    pair_run(&f->p, 5, 100);
    raw_reply(f, 0, &req);
    CHECK_EQ(mip_udp_sendto(f->p.side[1].s, NULL, RAW_PORT, &client_addr.addr, 5683,
                            MIP_NETIF_ANY, b, empty_ack(b, req.mid)), MIP_OK);
    pair_run(&f->p, 5, 5000);
    CHECK_EQ(f->results, 0);
    CHECK_EQ(mip_coap_stat(&f->client, MIP_COAP_STAT_retransmissions), 0);
    mip_coap_w_begin(&w, b, sizeof b, MIP_COAP_CON, MIP_COAP_CONTENT, 0x7777, req.token, req.token_len);
    mip_coap_w_payload(&w, "late", 4);
    CHECK_EQ(mip_udp_sendto(f->p.side[1].s, NULL, RAW_PORT, &client_addr.addr, 5683,
                            MIP_NETIF_ANY, b, mip_coap_w_end(&w)), MIP_OK);
    pair_run(&f->p, 5, 100);
    CHECK_EQ(f->results, 1);
    CHECK_EQ(f->last_code, MIP_COAP_CONTENT);
    CHECK_MEM(f->last_payload, "late", 4);
    raw_reply(f, 1, &m);
    CHECK_EQ(m.type, MIP_COAP_ACK);
    CHECK_EQ(m.code, MIP_COAP_EMPTY);
    CHECK_EQ(m.mid, 0x7777);
    /* The same response again is ACKed again but not reported; an unknown
     * token gets RST. */
    CHECK_EQ(mip_udp_sendto(f->p.side[1].s, NULL, RAW_PORT, &client_addr.addr, 5683,
                            MIP_NETIF_ANY, b, mip_coap_w_end(&w)), MIP_OK);
    pair_run(&f->p, 5, 100);
    CHECK_EQ(f->results, 1);
    raw_reply(f, 2, &m);
    CHECK_EQ(m.type, MIP_COAP_ACK);
    mip_coap_w_begin(&w, b, sizeof b, MIP_COAP_CON, MIP_COAP_CONTENT, 0x7778,
                     (const uint8_t *)"zz", 2);
    CHECK_EQ(mip_udp_sendto(f->p.side[1].s, NULL, RAW_PORT, &client_addr.addr, 5683,
                            MIP_NETIF_ANY, b, mip_coap_w_end(&w)), MIP_OK);
    pair_run(&f->p, 5, 100);
    raw_reply(f, 3, &m);
    CHECK_EQ(m.type, MIP_COAP_RST);
    CHECK_EQ(m.mid, 0x7778);
    CHECK_EQ(mip_udp_unbind(f->p.side[1].s, RAW_PORT), MIP_OK);
    teardown(f);
}

/* A CON request whose every transmission is lost: it times out, and
 * f->sent0_at[] holds when each went out. */
static void send_unanswered(struct fx *f)
{
    f->drop_from0 = 100;
    f->sent0 = 0;
    CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, MIP_COAP_CON, MIP_COAP_GET,
                              "hello", NULL, NULL, 0, on_result, f), MIP_OK);
    pair_run(&f->p, 1, 100000);
    CHECK_EQ(f->last_result, MIP_COAP_TIMEOUT);
}

/* With CoCoA, a fast path pulls the RTO below 1 s (strong estimator), and
 * the back-off factor becomes 3; without it the RTO stays 2 s. */
static void test_cocoa_rto_follows_the_rtt(void)
{
    struct fx *f = setup(true, true);
    unsigned i;
    uint32_t rto, first, gap;

    CHECK_EQ(mip_coap_rto(&f->client, &f->server_addr), MIP_COAP_ACK_TIMEOUT_MS);
    for (i = 0; i < 8; i++) {
        CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, MIP_COAP_CON, MIP_COAP_GET,
                                  "hello", NULL, NULL, 0, on_result, f), MIP_OK);
        run_delayed(f, 50, 1000);   /* a 100 ms round trip */
        CHECK_EQ(f->last_result, MIP_COAP_RESPONSE);
    }
    rto = mip_coap_rto(&f->client, &f->server_addr);
    CHECK(rto < 1000);
    CHECK(rto >= 100);
    /* Lost: the first timeout is in [RTO, 1.5 RTO], the next three times it. */
    send_unanswered(f);
    first = f->sent0_at[1] - f->sent0_at[0];
    gap = f->sent0_at[2] - f->sent0_at[1];
    CHECK(first >= rto && first <= rto + rto / 2 + 1);
    CHECK(gap >= 3 * first - 3 && gap <= 3 * first + 3);
    /* Without CoCoA the same exchanges leave the RTO at ACK_TIMEOUT. */
    teardown(f);
    f = setup(true, false);
    for (i = 0; i < 3; i++) {
        CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, MIP_COAP_CON, MIP_COAP_GET,
                                  "hello", NULL, NULL, 0, on_result, f), MIP_OK);
        pair_run(&f->p, 5, 1000);
    }
    CHECK_EQ(mip_coap_rto(&f->client, &f->server_addr), MIP_COAP_ACK_TIMEOUT_MS);
    teardown(f);
}

/* Issue 24 audit: a peer's CoCoA state has no timer, and its aging read
 * `now - updated` as an unsigned age: 2^32 ms (49.7 days) and a little
 * after the last exchange it read as a little, and a small RTO went
 * unaged. Poll now holds the stamps within MIP_TIME_HORIZON_MS. */
static void test_cocoa_rto_ages_after_a_whole_wrap(void)
{
    struct fx *f = setup(true, true);
    unsigned i;
    uint32_t rto;

    for (i = 0; i < 8; i++) {
        CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, MIP_COAP_CON, MIP_COAP_GET,
                                  "hello", NULL, NULL, 0, on_result, f), MIP_OK);
        run_delayed(f, 50, 1000);
    }
    rto = mip_coap_rto(&f->client, &f->server_addr);
    CHECK(rto < 1000);
    idle(f, 0xFFFFFFFFu);
    idle(f, 1000u);                     /* 2^32 ms: the wrap and a second */
    CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, MIP_COAP_CON, MIP_COAP_GET,
                              "hello", NULL, NULL, 0, on_result, f), MIP_OK);
    /* unused for 16 RTOs and more: doubled (s.4.2.3) before this request */
    CHECK(mip_coap_rto(&f->client, &f->server_addr) >= 2u * rto - 1u);
    run_delayed(f, 50, 1000);
    CHECK_EQ(f->last_result, MIP_COAP_RESPONSE);
    teardown(f);
}

/* Answers within the clock's millisecond (a host's loopback) give RTT
 * samples of 0. With E = SRTT + K * RTTVAR they pulled the RTO down by
 * half each time until it was 0, where it stayed (aging doubles 0), and
 * a lost request was then sent five times in one millisecond and given
 * up. RFC 6298 s.2 keeps a clock granularity G in E: the RTO stays at
 * least 1 ms, and each retransmission is later than the one before. */
static void test_cocoa_rto_stays_positive_after_zero_rtt_samples(void)
{
    struct fx *f = setup(true, true);
    unsigned i;

    for (i = 0; i < 24; i++) {
        CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, MIP_COAP_CON, MIP_COAP_GET,
                                  "hello", NULL, NULL, 0, on_result, f), MIP_OK);
        pair_run(&f->p, 0, 1000);   /* the answer in the same millisecond */
        CHECK_EQ(f->last_result, MIP_COAP_RESPONSE);
    }
    CHECK(mip_coap_rto(&f->client, &f->server_addr) >= 1u);
    send_unanswered(f);
    CHECK_EQ(f->sent0, 1u + MIP_COAP_MAX_RETRANSMIT);
    for (i = 1; i < f->sent0; i++)
        CHECK(mip_time_before(f->sent0_at[i - 1], f->sent0_at[i]));
    teardown(f);
}

static void test_stop_cancels_outstanding_requests(void)
{
    struct fx *f = setup(true, false);

    f->drop_from0 = 100;
    CHECK_EQ(mip_coap_request(&f->client, &f->server_addr, MIP_COAP_CON, MIP_COAP_GET,
                              "hello", NULL, NULL, 0, on_result, f), MIP_OK);
    pair_run(&f->p, 5, 100);
    mip_coap_stop(&f->client);
    CHECK_EQ(f->results, 1);
    CHECK_EQ(f->last_result, MIP_COAP_CANCELLED);
    pair_run(&f->p, 5, 100000);
    CHECK_EQ(f->results, 1);
    teardown(f);
}

int main(void)
{
    RUN(test_con_get_gets_piggybacked_content);
    RUN(test_client_stack_awaits_the_response);
    RUN(test_non_request_gets_non_response);
    RUN(test_duplicate_con_gets_the_same_ack_without_the_handler);
    RUN(test_dedup_entry_does_not_revive_after_half_the_wrap);
    RUN(test_ping_gets_rst);
    RUN(test_requests_get_the_rfc_answer);
    RUN(test_malformed_messages_are_counted_and_cons_reset);
    RUN(test_block2_serves_slices_with_size2);
    RUN(test_block2_from_a_reader_asks_only_for_the_slice);
    RUN(test_block1_upload_continues_then_changes);
    RUN(test_block1_with_more_and_a_short_payload_is_bad);
    RUN(test_con_backs_off_four_times_then_times_out);
    RUN(test_lost_ack_is_repaired_from_the_dedup_cache);
    RUN(test_nstart_is_one_per_peer);
    RUN(test_separate_response_is_acked_and_reported);
    RUN(test_cocoa_rto_follows_the_rtt);
    RUN(test_cocoa_rto_ages_after_a_whole_wrap);
    RUN(test_cocoa_rto_stays_positive_after_zero_rtt_samples);
    RUN(test_stop_cancels_outstanding_requests);
    return TESTING_DONE();
}
