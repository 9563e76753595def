/*
 * The SLIP netif: echo requests arriving as SLIP bytes in chunks of any
 * size are answered with SLIP-encoded replies (IPv6, and IPv4 where the
 * profile has it); frames over the MTU and bad escapes are dropped and
 * counted, and the next frame is still answered; a failing serial line
 * counts as a driver refusal; configuration errors.
 */
#include "testing.h"
#include "fixture.h"
#include "ip6_checks.h"
#include "moteip/wire/slip.h"

#define MTU      1280u
#define LINE_MAX 8192u

struct line {
    uint8_t  out[LINE_MAX];  /* what the stack wrote to the serial line */
    size_t   len;
    unsigned writes;
    bool     refuse;
};

struct node {
    struct mip_stack *s;
    struct mip_slip sl;
    uint8_t rx[MTU];
    struct line line;
    mip_time_t now;
};

static mip_status line_write(void *ctx, const uint8_t *bytes, size_t len)
{
    struct line *l = ctx;
    l->writes++;
    if (l->refuse)
        return MIP_ERR_NOBUFS;
    if (l->len + len > sizeof l->out)
        return MIP_ERR_NOSPACE;
    memcpy(l->out + l->len, bytes, len);
    l->len += len;
    return MIP_OK;
}

static void node_init(struct node *n)
{
    static const uint8_t iid[8] = {0x02, 0, 0, 0xFF, 0xFE, 0, 0, 2};
    struct mip_slip_config cfg;
    struct mip_addr a;
    uint8_t idx = 0xFF;

    memset(n, 0, sizeof *n);
    n->s = calloc(1, sizeof *n->s);
    n->now = 5000;
    mip_stack_init(n->s, NULL, n->now);
    cfg.rx_buf = n->rx;
    cfg.mtu = MTU;
    cfg.iid = iid;
    cfg.write = line_write;
    cfg.write_ctx = &n->line;
    CHECK_EQ(mip_netif_add_slip(n->s, &n->sl, &cfg, &idx), MIP_OK);
    CHECK_EQ(idx, 0);
    a = fixture_addr("fd00::2");
    CHECK_EQ(mip_netif_add_addr(n->s, idx, &a, 64), MIP_OK);
#if MIP_CONF_IPV4
    a = fixture_addr("192.0.2.2");
    CHECK_EQ(mip_netif_add_addr(n->s, idx, &a, 24), MIP_OK);
#endif
}

static void node_free(struct node *n)
{
    mip_stack_poll(n->s, n->now + 600000u);
    CHECK_EQ(n->s->pool.in_use, 0);
    free(n->s);
}

/* Feeds bytes to the netif in chunks of `chunk` (0: at once), each an
 * exact-size heap copy so ASan sees reads past it or kept pointers. */
static void feed(struct node *n, const uint8_t *bytes, size_t len, size_t chunk)
{
    size_t pos = 0;
    while (pos < len) {
        size_t k = chunk == 0 || len - pos < chunk ? len - pos : chunk;
        uint8_t *copy = malloc(k);
        memcpy(copy, bytes + pos, k);
        mip_slip_input(n->s, &n->sl, copy, k, n->now);
        free(copy);
        pos += k;
    }
}

/* SLIP-encodes frame into out (cap bytes); returns the encoded length. */
struct buf_sink { uint8_t *p; size_t len, cap; };

static mip_status buf_write(void *ctx, const uint8_t *bytes, size_t len)
{
    struct buf_sink *b = ctx;
    if (b->len + len > b->cap)
        return MIP_ERR_NOSPACE;
    memcpy(b->p + b->len, bytes, len);
    b->len += len;
    return MIP_OK;
}

static size_t slip_encode_into(const uint8_t *frame, size_t len, uint8_t *out, size_t cap)
{
    struct buf_sink b = { out, 0, cap };
    CHECK_EQ(mip_slip_encode(frame, len, buf_write, &b), MIP_OK);
    return b.len;
}

/* Decodes the serial line's output into frames; returns how many. Every
 * byte must decode: no errors, nothing left after the last END. */
static unsigned line_frames(const struct line *l, struct fixture_frame *fr, unsigned max)
{
    static uint8_t buf[LINE_MAX];
    struct mip_slip_dec d;
    size_t pos = 0;
    unsigned k = 0;

    mip_slip_dec_init(&d, buf, sizeof buf);
    while (pos < l->len) {
        enum mip_slip_event ev;
        pos += mip_slip_decode(&d, l->out + pos, l->len - pos, &ev);
        CHECK(ev == MIP_SLIP_FRAME || (ev == MIP_SLIP_MORE && d.len == 0));
        if (ev == MIP_SLIP_FRAME && k < max) {
            fr[k].len = d.len;
            memcpy(fr[k].data, d.buf, d.len);
            k++;
        }
    }
    return k;
}

/* An IPv6 echo request of `data` bytes (the i*7 pattern holds END and ESC
 * bytes once data > 0x100) as SLIP on the wire. */
static size_t slip_echo6(uint8_t *wire, size_t cap, uint16_t seq, size_t data)
{
    uint8_t pkt[MTU + 64];
    size_t len = build_echo6(pkt, "fd00::1", "fd00::2", 64, 0x77, seq, data);
    return slip_encode_into(pkt, len, wire, cap);
}

static void check_echo6_reply(const struct line *l, uint16_t seq, size_t data)
{
    static struct fixture_frame fr[2];
    CHECK_EQ(line_frames(l, fr, 2), 1);
    CHECK_ECHO_REPLY(&fr[0], "fd00::2", "fd00::1", 0x77, seq, data);
}

static void test_slip_echo6_in_any_chunking(void)
{
    static const size_t chunks[] = { 0, 1, 2, 3, 7, 64, 1000 };
    static const size_t sizes[] = { 0, 300, MTU - 48 };
    size_t c, z;

    for (z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            static uint8_t wire[2 * MTU + 2];
            struct node n;
            size_t len;
            node_init(&n);
            len = slip_echo6(wire, sizeof wire, (uint16_t)c, sizes[z]);
            feed(&n, wire, len, chunks[c]);
            check_echo6_reply(&n.line, (uint16_t)c, sizes[z]);
            CHECK_EQ(mip_stack_stat(n.s, MIP_STAT_icmp_echo_replied), 1);
            CHECK_EQ(mip_stack_stat(n.s, MIP_STAT_rx_frames), 1);
            node_free(&n);
        }
}

#if MIP_CONF_IPV4
static void test_slip_echo4(void)
{
    static uint8_t pkt[MTU], icmp[MTU], wire[2 * MTU + 2];
    static struct fixture_frame fr[2];
    struct node n;
    size_t k, len;

    node_init(&n);
    k = build_echo(icmp, 8, 0x99, 3, 400);
    len = build_ipv4(pkt, "192.0.2.1", "192.0.2.2", 1, 64, 1, 0, 0, icmp, k);
    feed(&n, wire, slip_encode_into(pkt, len, wire, sizeof wire), 5);
    CHECK_EQ(line_frames(&n.line, fr, 2), 1);
    CHECK_EQ(fr[0].len, len);
    CHECK_EQ(fr[0].data[0] >> 4, 4);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, fr[0].data, 20)), 0);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, fr[0].data + 20, len - 20)), 0);
    CHECK_EQ(fr[0].data[20], 0);               /* echo reply */
    CHECK_MEM(fr[0].data + 28, icmp + 8, 400);
    node_free(&n);
}
#endif

/* Each bad frame is dropped and counted by its reason, and the good frame
 * after it is answered: the decoder is back in step at the next END. */
struct bad_case {
    const char *name;
    const uint8_t *pre;       /* bytes sent before a good echo request */
    size_t pre_n;
    enum mip_stat counter;    /* the one drop counter that must move */
    uint32_t drops;
};

#define B(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })

static void test_slip_bad_frames_dropped_counted_and_resynced(void)
{
    static uint8_t over[MTU + 2];
    const struct bad_case cases[] = {
        { "bad escape", B(0x60, 0, 0xDB, 0x01, 0xC0), MIP_STAT_drop_slip_bad_escape, 1 },
        { "ESC END", B(0x60, 0xDB, 0xC0), MIP_STAT_drop_slip_bad_escape, 1 },
        { "two bad escapes", B(0xDB, 0, 0xC0, 0xDB, 0xDB, 0xC0), MIP_STAT_drop_slip_bad_escape, 2 },
        { "empty frames", B(0xC0, 0xC0, 0xC0), MIP_STAT_drop_slip_bad_escape, 0 },
        { "line noise", B(0x12, 0x34, 0xC0), MIP_STAT_drop_link_unsupported, 1 },
        { "over the MTU", over, sizeof over, MIP_STAT_drop_slip_too_big, 1 },
    };
    size_t i;

    memset(over, 0x60, sizeof over);
    over[sizeof over - 1] = 0xC0;         /* MTU + 1 bytes, then END */
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        static uint8_t wire[2 * MTU + 2];
        const struct bad_case *c = &cases[i];
        struct node n;
        uint32_t drops = 0;
        unsigned st;
        size_t len;

        node_init(&n);
        feed(&n, c->pre, c->pre_n, 0);
        len = slip_echo6(wire, sizeof wire, 9, 100);
        feed(&n, wire, len, 11);
        check_echo6_reply(&n.line, 9, 100);
        /* drops are the counters from drop_link_truncated to the end */
        for (st = MIP_STAT_drop_link_truncated; st < MIP_STAT_COUNT; st++)
            drops += mip_stack_stat(n.s, (enum mip_stat)st);
        if (mip_stack_stat(n.s, c->counter) != c->drops || drops != c->drops)
            fprintf(stderr, "case '%s': %u drops\n", c->name, (unsigned)drops);
        CHECK_EQ(mip_stack_stat(n.s, c->counter), c->drops);
        CHECK_EQ(drops, c->drops);
        node_free(&n);
    }
}

/* A serial line that refuses bytes: the reply is counted as a driver
 * refusal and its buffer comes back. */
static void test_slip_line_refusing_counts_drop_tx_driver(void)
{
    static uint8_t wire[2 * MTU + 2];
    struct node n;
    size_t len;

    node_init(&n);
    n.line.refuse = true;
    len = slip_echo6(wire, sizeof wire, 1, 10);
    feed(&n, wire, len, 0);
    CHECK_EQ(n.line.writes, 1);                /* stopped at the leading END */
    CHECK_EQ(mip_stack_stat(n.s, MIP_STAT_drop_tx_driver), 1);
    CHECK_EQ(mip_stack_stat(n.s, MIP_STAT_tx_frames), 0);
    node_free(&n);
}

struct cfg_case {
    const char *name;
    bool no_buf, no_write, no_sl;
    uint16_t mtu;
    mip_status want;
};

static void test_slip_config_errors(void)
{
    static const struct cfg_case cases[] = {
        { "ok", false, false, false, 1280, MIP_OK },
        { "ok at minimum MTU", false, false, false, 68, MIP_OK },
        { "no buffer", true, false, false, 1280, MIP_ERR_INVALID },
        { "no write", false, true, false, 1280, MIP_ERR_INVALID },
        { "no slip struct", false, false, true, 1280, MIP_ERR_INVALID },
        { "MTU too small", false, false, false, 67, MIP_ERR_INVALID },
        { "MTU over a pbuf", false, false, false, MIP_PBUF_SIZE - MIP_LINK_HDR_MAX + 1,
          MIP_ERR_INVALID },
    };
    static uint8_t rx[MIP_PBUF_SIZE];
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct cfg_case *c = &cases[i];
        struct mip_stack *s = calloc(1, sizeof *s);
        struct mip_slip sl;
        struct line l;
        struct mip_slip_config cfg = { rx, c->mtu, NULL, line_write, &l };
        uint8_t idx = 0xEE;
        mip_status st;

        mip_stack_init(s, NULL, 0);
        if (c->no_buf)
            cfg.rx_buf = NULL;
        if (c->no_write)
            cfg.write = NULL;
        st = mip_netif_add_slip(s, c->no_sl ? NULL : &sl, &cfg, &idx);
        if (st != c->want)
            fprintf(stderr, "case '%s': %s\n", c->name, mip_status_name(st));
        CHECK_EQ(st, c->want);
        CHECK_EQ(idx, c->want == MIP_OK ? 0 : 0xEE);
        CHECK_EQ(mip_netif_get(s, 0) != NULL, c->want == MIP_OK);
        free(s);
    }
}

static void test_slip_netif_table_full(void)
{
    static uint8_t rx[MIP_NETIF_MAX + 1][MTU];
    static struct mip_slip sl[MIP_NETIF_MAX + 1];
    struct mip_stack *s = calloc(1, sizeof *s);
    struct line l;
    unsigned i;

    mip_stack_init(s, NULL, 0);
    for (i = 0; i <= MIP_NETIF_MAX; i++) {
        struct mip_slip_config cfg = { rx[i], MTU, NULL, line_write, &l };
        uint8_t idx;
        CHECK_EQ(mip_netif_add_slip(s, &sl[i], &cfg, &idx),
                 i < MIP_NETIF_MAX ? MIP_OK : MIP_ERR_NOBUFS);
        if (i < MIP_NETIF_MAX)
            CHECK_EQ(sl[i].netif, i);
    }
    free(s);
}

int main(void)
{
    RUN(test_slip_echo6_in_any_chunking);
#if MIP_CONF_IPV4
    RUN(test_slip_echo4);
#endif
    RUN(test_slip_bad_frames_dropped_counted_and_resynced);
    RUN(test_slip_line_refusing_counts_drop_tx_driver);
    RUN(test_slip_config_errors);
    RUN(test_slip_netif_table_full);
    return TESTING_DONE();
}
