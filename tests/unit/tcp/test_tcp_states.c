/* TCP state machine (RFC 9293 3.5, 3.6, 3.10.7): handshakes both ways with
 * their options, MSS, simultaneous open and close, half-close, and the
 * compact TIME_WAIT records. */
#include "tcp_pair.h"
#include "seg_builder.h"

static uint8_t pat(size_t i) { return (uint8_t)(i * 13u + (i >> 7)); }

static void fill_pattern(uint8_t *buf, size_t n, size_t from)
{
    size_t i;
    for (i = 0; i < n; i++)
        buf[i] = pat(from + i);
}

/* The peer takes every new segment, checks the payload is the pattern in
 * order and no longer than `limit`, and ACKs; until nothing new comes.
 * Returns the bytes received; *segs counts data segments, *longest the
 * largest payload, *ts_missing segments without a timestamp. */
static size_t peer_collect(struct hs *h, size_t limit, unsigned *segs, size_t *longest,
                           unsigned *ts_missing)
{
    size_t got = 0;
    bool more = true;
    while (more) {
        struct sb_reply r;
        more = false;
        while (hs_next(h, &r)) {
            if (r.len == 0)
                continue;
            CHECK(r.len <= limit);
            CHECK_EQ(r.h.seq, h->rcv_nxt);
            if (r.h.seq == h->rcv_nxt) {
                size_t i;
                for (i = 0; i < r.len; i++)
                    if (r.data[i] != pat(got + i))
                        break;
                CHECK_EQ(i, r.len);
                got += r.len;
            }
            (*segs)++;
            if (r.len > *longest)
                *longest = r.len;
            if (!(r.o.present & MIP_TCP_HAS_TIMESTAMP))
                (*ts_missing)++;
            hs_absorb(h, &r);
            more = true;
        }
        if (more) {
            hs_clear(h);
            hs_send_ack(h);
        }
    }
    return got;
}

/* Writes n pattern bytes from `a` (nodelay) and lets the peer take them. */
static void send_and_check_mss(struct hs *h, struct app *a, size_t n, size_t limit, bool ts)
{
    uint8_t buf[APP_RING];
    unsigned segs = 0, ts_missing = 0;
    size_t longest = 0;
    CHECK(n <= sizeof(buf));
    fill_pattern(buf, n, 0);
    a->conn.cfg.nodelay = true;
    hs_clear(h);
    CHECK_EQ(mip_tcp_write(&h->tcp, &a->conn, buf, n), n);
    CHECK_EQ(peer_collect(h, limit, &segs, &longest, &ts_missing), n);
    CHECK_EQ(longest, limit);          /* full-sized segments were full */
    CHECK(segs >= (unsigned)((n + limit - 1) / limit));
    CHECK_EQ(ts_missing, ts ? 0u : segs);
    CHECK_EQ(a->conn.snd_una, a->conn.snd_max);
    CHECK_EQ(a->conn.tx.len, 0);
}

/* --- passive open ----------------------------------------------------------- */

static void passive_handshake(bool v6, bool all)
{
    struct hs *h = hs_new(v6);
    struct app *a = calloc(1, sizeof(*a));
    struct mip_tcp_opts o = hs_syn_opts(h, all);
    struct sb_reply sa;
    uint16_t local_mss = (uint16_t)(FIXTURE_MTU - (v6 ? 60 : 40));
    uint8_t want = MIP_TCP_HAS_MSS;
    bool ts = false;
    unsigned i;

    if (!all)
        o.present = 0;            /* no option at all: MSS defaults to 536 */
    fixture_advance(&h->f, 0);
    hs_open_passive(h, a, 40000, 1000000u, &o, &sa);
    if (all) {
#if MIP_TCP_WSCALE
        want |= MIP_TCP_HAS_WSCALE;
#endif
#if MIP_TCP_SACK
        want |= MIP_TCP_HAS_SACK_PERM;
#endif
#if MIP_TCP_TIMESTAMPS
        want |= MIP_TCP_HAS_TIMESTAMP;
        ts = true;
#endif
    }
    /* The SYN-ACK answers exactly what the SYN offered. */
    CHECK_EQ(sa.h.src_port, 80);
    CHECK_EQ(sa.h.dst_port, 40000);
    CHECK_EQ(sa.h.ack, 1000001u);
    CHECK_EQ(sa.o.present, want);
    CHECK_EQ(sa.o.mss, local_mss);
    if (want & MIP_TCP_HAS_WSCALE)
        CHECK_EQ(sa.o.wscale, 0);
    if (want & MIP_TCP_HAS_TIMESTAMP)
        CHECK_EQ(sa.o.ts_ecr, o.ts_val);

    /* The completing ACK made the connection. */
    CHECK_EQ(a->accepted, 1);
    CHECK_EQ(a->connected, 1);
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(a->conn.iss, sa.h.seq);
    CHECK_EQ(a->conn.snd_una, sa.h.seq + 1u);
    CHECK_EQ(a->conn.snd_nxt, sa.h.seq + 1u);
    CHECK_EQ(a->conn.rcv_nxt, 1000001u);
    CHECK_EQ(a->conn.lport, 80);
    CHECK_EQ(a->conn.rport, 40000);
    {   /* the local address is a reference to the stack's own */
        struct mip_addr self = fixture_addr(h->self), local;
        mip_tcp_local_addr(&h->tcp, &a->conn, &local);
        CHECK(mip_addr_eq(&local, &self));
    }
    CHECK_EQ(a->conn.cc.mss, all ? 1000 : 536);
    CHECK_EQ(a->conn.snd_wscale, (want & MIP_TCP_HAS_WSCALE) ? 7 : 0);
    CHECK_EQ(a->conn.rcv_wscale, 0);
    CHECK_EQ(a->conn.snd_wnd, (uint32_t)65535u << a->conn.snd_wscale);
    CHECK(h->tcp.conns == &a->conn);
    CHECK_EQ(mip_tcp_stat(&h->tcp, MIP_TCP_STAT_conns_accepted), 1);
    for (i = 0; i < MIP_TCP_SYN_BACKLOG; i++)
        CHECK_EQ(h->tcp.syn[i].flags, 0);
    CHECK_EQ(h->f.ntx, 0);                 /* nothing to say yet */

    /* The stack never sends more than the peer's MSS (less 12 with
     * timestamps). */
    send_and_check_mss(h, a, 4000, (size_t)(all ? 1000 : 536) - (ts ? 12u : 0u), ts);

    /* And data from the peer is taken in order. */
    a->read_on_readable = true;
    hs_clear(h);
    hs_send_data(h, (const uint8_t *)"hello", 5);
    CHECK_EQ(a->ngot, 5);
    CHECK_MEM(a->got, "hello", 5);
    CHECK_EQ(a->conn.rcv_nxt, 1000006u);
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}

static void test_passive_open_all_options_v6(void) { passive_handshake(true, true); }
static void test_passive_open_no_options_v6(void) { passive_handshake(true, false); }
#if MIP_CONF_IPV4
static void test_passive_open_all_options_v4(void) { passive_handshake(false, true); }
static void test_passive_open_no_options_v4(void) { passive_handshake(false, false); }
#endif

/* --- active open ------------------------------------------------------------- */

static void active_handshake(bool v6, bool all)
{
    struct hs *h = hs_new(v6);
    struct app *a = calloc(1, sizeof(*a));
    struct mip_tcp_opts o;
    struct sb_reply syn, r;
    uint16_t local_mss = (uint16_t)(FIXTURE_MTU - (v6 ? 60 : 40));
    uint8_t want = MIP_TCP_HAS_MSS;
    bool ts = false;

    memset(&o, 0, sizeof(o));
    if (all) {
        o = hs_syn_opts(h, true);
        o.mss = 500;
    }
#if MIP_TCP_WSCALE
    want |= MIP_TCP_HAS_WSCALE;
#endif
#if MIP_TCP_SACK
    want |= MIP_TCP_HAS_SACK_PERM;
#endif
#if MIP_TCP_TIMESTAMPS
    want |= MIP_TCP_HAS_TIMESTAMP;
    ts = all;
#endif
    fixture_advance(&h->f, 0);
    hs_open_active(h, a, 5000000u, all ? &o : NULL, &syn);

    /* The SYN offers everything compiled in. */
    CHECK_EQ(syn.o.present, want);
    CHECK_EQ(syn.o.mss, local_mss);
    if (want & MIP_TCP_HAS_WSCALE)
        CHECK_EQ(syn.o.wscale, 0);        /* a 4 KB ring needs no scaling */
    if (want & MIP_TCP_HAS_TIMESTAMP)
        CHECK_EQ(syn.o.ts_ecr, 0);
    CHECK_EQ(syn.h.window, APP_RING);
    CHECK_EQ(syn.h.seq, a->conn.iss);
    CHECK(syn.h.src_port >= 49152u);
    CHECK_EQ(mip_tcp_stat(&h->tcp, MIP_TCP_STAT_conns_opened), 1);

    /* The SYN-ACK established it; the stack's ACK says so. */
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(a->connected, 1);
    CHECK_EQ(a->conn.rcv_nxt, 5000001u);
    CHECK_EQ(a->conn.snd_una, a->conn.iss + 1u);
    CHECK_EQ(a->conn.cc.mss, all ? 500 : 536);
    CHECK_EQ(a->conn.snd_wscale, (all && (want & MIP_TCP_HAS_WSCALE)) ? 7 : 0);
    hs_expect_one(h, &r);
    CHECK_EQ(r.h.flags, MIP_TCP_ACK);
    CHECK_EQ(r.h.seq, a->conn.iss + 1u);
    CHECK_EQ(r.h.ack, 5000001u);
    CHECK_EQ(r.len, 0);
    CHECK_EQ(!!(r.o.present & MIP_TCP_HAS_TIMESTAMP), ts);
    CHECK_EQ(r.o.present & (MIP_TCP_HAS_MSS | MIP_TCP_HAS_WSCALE | MIP_TCP_HAS_SACK_PERM), 0);
    hs_absorb(h, &r);

    send_and_check_mss(h, a, 3000, (size_t)(all ? 500 : 536) - (ts ? 12u : 0u), ts);

    mip_tcp_abort(&h->tcp, &a->conn);
    CHECK_EQ(a->error, MIP_TCP_ERR_ABORTED);
    CHECK_EQ(a->closed, 1);
    hs_free(h);
    free(a);
}

/* The right edge a SYN advertised is relative to nothing yet: whatever
 * half of sequence space the peer's ISN falls in, the first ACK must
 * advertise exactly the free ring (regression: the old edge leaked into
 * the window as 2^31-ish garbage). */
static void test_active_open_window_whatever_the_peer_isn(void)
{
    static const uint32_t irs[] = {0x00000010u, 0x7FFFFFF0u, 0x80000000u, 0x90000000u,
                                   0xFFFFFFF0u};
    unsigned i;
    for (i = 0; i < sizeof(irs) / sizeof(irs[0]); i++) {
        struct hs *h = hs_new(true);
        struct app *a = calloc(1, sizeof(*a));
        struct sb_reply r;
        hs_open_active(h, a, irs[i], NULL, NULL);
        CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
        CHECK(hs_next(h, &r));
        CHECK_EQ(r.h.flags, MIP_TCP_ACK);
        CHECK_EQ(r.h.ack, irs[i] + 1u);
        CHECK_EQ(r.h.window, APP_RING);
        CHECK_EQ(a->conn.rcv_adv, irs[i] + 1u + APP_RING);
        mip_tcp_abort(&h->tcp, &a->conn);
        hs_free(h);
        free(a);
    }
}

/* mip_stack_awaits_reply (a sleepy leaf polls fast while it is true,
 * TCPlp s.9): from the SYN to its SYN-ACK, from data to its ACK, from the
 * FIN to its ACK; never while everything sent is acknowledged. */
static void test_stack_awaits_a_reply_while_anything_is_unacknowledged(void)
{
    struct hs *h = hs_new(true);
    struct app *a = calloc(1, sizeof(*a));
    struct mip_addr dst = hs_peer_addr(h);
    struct sb_reply r;
    uint8_t buf[100];
    CHECK(!mip_stack_awaits_reply(h->f.s));
    app_init(a, &h->tcp);
    CHECK_EQ(mip_tcp_connect(&h->tcp, &a->conn, &dst, 80), MIP_OK);
    CHECK(mip_stack_awaits_reply(h->f.s));
    mip_tcp_abort(&h->tcp, &a->conn);
    CHECK(!mip_stack_awaits_reply(h->f.s));
    hs_open_active(h, a, 1000u, NULL, NULL);
    CHECK(!mip_stack_awaits_reply(h->f.s));
    fill_pattern(buf, sizeof(buf), 0);
    a->conn.cfg.nodelay = true;
    hs_clear(h);
    CHECK_EQ(mip_tcp_write(&h->tcp, &a->conn, buf, sizeof(buf)), sizeof(buf));
    CHECK(mip_stack_awaits_reply(h->f.s));
    while (hs_next(h, &r))
        hs_absorb(h, &r);
    hs_send_ack(h);
    CHECK_EQ(a->conn.snd_una, a->conn.snd_max);
    CHECK(!mip_stack_awaits_reply(h->f.s));
    CHECK_EQ(mip_tcp_close(&h->tcp, &a->conn), MIP_OK);
    CHECK(mip_stack_awaits_reply(h->f.s));
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}

static void test_active_open_all_options_v6(void) { active_handshake(true, true); }
static void test_active_open_no_options_v6(void) { active_handshake(true, false); }
#if MIP_CONF_IPV4
static void test_active_open_all_options_v4(void) { active_handshake(false, true); }
#endif

/* A SYN-ACK acknowledging something other than our SYN gets RST and the
 * connection stays in SYN_SENT (RFC 9293 3.10.7.3). */
static void test_syn_sent_bad_ack_gets_rst(void)
{
    struct hs *h = hs_new(true);
    struct app *a = calloc(1, sizeof(*a));
    struct mip_addr dst = hs_peer_addr(h);
    struct sb_reply syn, r;
    struct sb_seg s;
    app_init(a, &h->tcp);
    CHECK_EQ(mip_tcp_connect(&h->tcp, &a->conn, &dst, 80), MIP_OK);
    CHECK(hs_next(h, &syn));
    hs_clear(h);
    memset(&s, 0, sizeof(s));
    s.sport = 80;
    s.dport = syn.h.src_port;
    s.seq = 777;
    s.ack = syn.h.seq + 5u;
    s.flags = MIP_TCP_SYN | MIP_TCP_ACK;
    s.win = 1000;
    hs_send(h, &s);
    CHECK_EQ(a->conn.state, MIP_TCP_SYN_SENT);
    hs_expect_one(h, &r);
    CHECK_EQ(r.h.flags, MIP_TCP_RST);
    CHECK_EQ(r.h.seq, syn.h.seq + 5u);
    /* A RST acknowledging our SYN refuses the connection. */
    hs_clear(h);
    s.flags = MIP_TCP_RST | MIP_TCP_ACK;
    s.seq = 0;
    s.ack = syn.h.seq + 1u;
    hs_send(h, &s);
    CHECK_EQ(a->conn.state, MIP_TCP_CLOSED);
    CHECK_EQ(a->error, MIP_TCP_ERR_REFUSED);
    CHECK_EQ(a->closed, 1);
    CHECK_EQ(h->f.ntx, 0);
    hs_free(h);
    free(a);
}

/* --- two stacks ------------------------------------------------------------- */

static unsigned tw_count(const struct mip_tcp *tcp)
{
    unsigned i, n = 0;
    for (i = 0; i < MIP_TCP_TIMEWAIT_MAX; i++)
        n += tcp->tw[i].used ? 1u : 0u;
    return n;
}

static void test_simultaneous_open(void)
{
    static struct pair p;
    struct app *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*a));
    struct mip_addr to_b = pair_addr(true, 1), to_a = pair_addr(true, 0);
    pair_init(&p, true);
    app_init(a, &p.side[0].tcp);
    app_init(b, &p.side[1].tcp);
    /* Each connects from the port the other connects to. */
    p.side[0].tcp.next_port = 50000;
    p.side[1].tcp.next_port = 50001;
    CHECK_EQ(mip_tcp_connect(&p.side[0].tcp, &a->conn, &to_b, 50001), MIP_OK);
    CHECK_EQ(mip_tcp_connect(&p.side[1].tcp, &b->conn, &to_a, 50000), MIP_OK);
    CHECK_EQ(a->conn.lport, 50000);
    CHECK_EQ(b->conn.lport, 50001);
    CHECK_EQ(p.side[0].qlen, 1);
    CHECK_EQ(p.side[1].qlen, 1);
    /* The SYNs cross: each side goes to SYN_RECEIVED and answers SYN-ACK. */
    pair_deliver(&p, 0);
    pair_deliver(&p, 1);
    CHECK_EQ(a->conn.state, MIP_TCP_SYN_RECEIVED);
    CHECK_EQ(b->conn.state, MIP_TCP_SYN_RECEIVED);
    CHECK_EQ(a->conn.rcv_nxt, b->conn.iss + 1u);
    CHECK_EQ(b->conn.rcv_nxt, a->conn.iss + 1u);
    pair_run(&p, 1, 100);
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(b->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(a->connected, 1);
    CHECK_EQ(b->connected, 1);
    CHECK_EQ(a->conn.snd_una, a->conn.iss + 1u);
    CHECK_EQ(b->conn.snd_una, b->conn.iss + 1u);
    /* And data flows. */
    b->read_on_readable = true;
    CHECK_EQ(mip_tcp_write(&p.side[0].tcp, &a->conn, (const uint8_t *)"simultaneous", 12), 12);
    pair_run(&p, 1, 1000);
    CHECK_EQ(b->ngot, 12);
    CHECK_MEM(b->got, "simultaneous", 12);
    CHECK_EQ(a->conn.snd_una, a->conn.snd_max);
    mip_tcp_abort(&p.side[0].tcp, &a->conn);
    pair_run(&p, 1, 100);
    CHECK_EQ(b->error, MIP_TCP_ERR_RESET);
    CHECK_EQ(b->closed, 1);
    pair_free(&p);
    free(a);
    free(b);
}

static void test_simultaneous_close(void)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    struct pair_frame dup;
    uint32_t cli_fin, srv_fin;
    unsigned sent;
    pair_init(&p, true);
    pair_connect(&p, true, cli, srv, &l);
    cli_fin = cli->conn.snd_nxt;
    srv_fin = srv->conn.snd_nxt;
    CHECK_EQ(mip_tcp_shutdown(&p.side[0].tcp, &cli->conn), MIP_OK);
    CHECK_EQ(mip_tcp_shutdown(&p.side[1].tcp, &srv->conn), MIP_OK);
    CHECK_EQ(cli->conn.state, MIP_TCP_FIN_WAIT_1);
    CHECK_EQ(srv->conn.state, MIP_TCP_FIN_WAIT_1);
    CHECK_EQ(p.side[0].qlen, 1);
    CHECK_EQ(p.side[1].qlen, 1);
    /* The FINs cross: both go to CLOSING. */
    pair_deliver(&p, 0);
    CHECK_EQ(srv->conn.state, MIP_TCP_CLOSING);
    CHECK_EQ(srv->conn.rcv_nxt, cli_fin + 1u);
    pair_deliver(&p, 1);      /* srv's FIN, then its ACK of cli's FIN */
    CHECK_EQ(cli->closed, 1); /* CLOSING -> TIME_WAIT: struct handed back */
    CHECK_EQ(cli->conn.state, MIP_TCP_CLOSED);
    CHECK_EQ(cli->errors, 0);
    CHECK_EQ(srv->closed, 0);
    dup = p.side[0].q[p.side[0].qhead];
    pair_deliver(&p, 0);      /* cli's ACK of srv's FIN */
    CHECK_EQ(srv->closed, 1);
    CHECK_EQ(srv->errors, 0);
    CHECK(p.side[0].tcp.conns == NULL);
    CHECK(p.side[1].tcp.conns == NULL);
    CHECK_EQ(tw_count(&p.side[0].tcp), 1);
    CHECK_EQ(tw_count(&p.side[1].tcp), 1);
    CHECK_EQ(p.side[0].tcp.tw[0].snd_nxt, cli_fin + 1u);
    CHECK_EQ(p.side[0].tcp.tw[0].rcv_nxt, srv_fin + 1u);
    CHECK_EQ(p.side[1].tcp.tw[0].snd_nxt, srv_fin + 1u);
    CHECK_EQ(p.side[1].tcp.tw[0].rcv_nxt, cli_fin + 1u);
    CHECK_EQ(p.side[0].tcp.tw[0].deadline, p.now + 2u * MIP_TCP_MSL_MS);
    /* Nothing more is said; both records expire after 2 MSL. */
    CHECK_EQ(p.side[0].qlen + p.side[1].qlen, 0);
    /* Not even to cli's last ACK again, a second later (a link-layer
     * retransmission whose link ACK was lost): RFC 9293 3.10.7.4 does not
     * answer an acceptable empty segment. Answered, the answer was
     * acceptable to the other record and answered in turn: an ACK storm
     * until the first record expired (2,000 frames in this second). */
    pair_run_for(&p, 1000);
    sent = p.side[0].sent + p.side[1].sent;
    mip_stack_input(p.side[1].s, 0, dup.data, dup.len, p.now);
    pair_run_for(&p, 1000);
    CHECK_EQ(p.side[0].sent + p.side[1].sent, sent);
    CHECK_EQ(mip_tcp_stat(&p.side[1].tcp, MIP_TCP_STAT_dup_segs), 1);
    pair_run(&p, 1, 2u * MIP_TCP_MSL_MS + 10u);
    CHECK_EQ(tw_count(&p.side[0].tcp), 0);
    CHECK_EQ(tw_count(&p.side[1].tcp), 0);
    pair_close(&p, cli, srv, false);
}

static void test_half_close(void)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    uint8_t buf[3000];
    size_t sent = 0, k;
    pair_init(&p, true);
    pair_connect(&p, true, cli, srv, &l);
    cli->read_on_readable = true;
    srv->read_on_readable = true;
    /* The client is done sending. */
    CHECK_EQ(mip_tcp_shutdown(&p.side[0].tcp, &cli->conn), MIP_OK);
    CHECK_EQ(mip_tcp_write(&p.side[0].tcp, &cli->conn, buf, 10), 0);
    pair_run(&p, 1, 500);
    CHECK_EQ(cli->conn.state, MIP_TCP_FIN_WAIT_2);
    CHECK_EQ(srv->conn.state, MIP_TCP_CLOSE_WAIT);
    CHECK(mip_tcp_peer_closed(&srv->conn));
    /* The server goes on sending; all of it arrives. */
    while (sent < 20000) {
        size_t n = 20000 - sent < sizeof(buf) ? 20000 - sent : sizeof(buf);
        fill_pattern(buf, n, sent);
        k = mip_tcp_write(&p.side[1].tcp, &srv->conn, buf, n);
        sent += k;
        pair_run(&p, 1, 2000);
    }
    CHECK_EQ(cli->ngot, 20000);
    {
        size_t i, bad = 0;
        for (i = 0; i < cli->ngot; i++)
            bad += cli->got[i] != pat(i);
        CHECK_EQ(bad, 0);
    }
    CHECK_EQ(cli->conn.state, MIP_TCP_FIN_WAIT_2);
    CHECK_EQ(srv->conn.state, MIP_TCP_CLOSE_WAIT);
    /* Then it closes too: LAST_ACK, and the client holds TIME_WAIT. */
    CHECK_EQ(mip_tcp_close(&p.side[1].tcp, &srv->conn), MIP_OK);
    CHECK_EQ(srv->conn.state, MIP_TCP_LAST_ACK);
    pair_run(&p, 1, 500);
    CHECK_EQ(srv->closed, 1);
    CHECK_EQ(cli->closed, 1);
    CHECK_EQ(srv->errors + cli->errors, 0);
    CHECK_EQ(tw_count(&p.side[0].tcp), 1);
    CHECK_EQ(tw_count(&p.side[1].tcp), 0);
    pair_run(&p, 1, 2u * MIP_TCP_MSL_MS + 10u);
    CHECK_EQ(tw_count(&p.side[0].tcp), 0);
    pair_close(&p, cli, srv, false);
}

/* --- TIME_WAIT ---------------------------------------------------------------- */

/* Passive open, then the stack closes first and the peer answers: the
 * stack ends in TIME_WAIT. Returns the record. */
static struct mip_tcp_tw *reach_timewait(struct hs *h, struct app *a)
{
    struct mip_tcp_opts o = hs_syn_opts(h, true);
    struct sb_reply r;
    struct sb_seg s;
    uint32_t iss, irs = 3000000u;
    unsigned i;
    hs_open_passive(h, a, 41000, irs, &o, NULL);
    iss = a->conn.iss;
    CHECK_EQ(mip_tcp_close(&h->tcp, &a->conn), MIP_OK);
    CHECK_EQ(a->conn.state, MIP_TCP_FIN_WAIT_1);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.flags & (MIP_TCP_FIN | MIP_TCP_ACK | MIP_TCP_SYN | MIP_TCP_RST),
             MIP_TCP_FIN | MIP_TCP_ACK);
    CHECK_EQ(r.h.seq, iss + 1u);
    CHECK_EQ(r.h.ack, irs + 1u);
    hs_absorb(h, &r);
    hs_clear(h);
    hs_send_ack(h);
    CHECK_EQ(a->conn.state, MIP_TCP_FIN_WAIT_2);
    CHECK_EQ(h->f.ntx, 0);
    s = hs_seg(h, MIP_TCP_FIN | MIP_TCP_ACK);
    hs_send(h, &s);
    h->snd_nxt++;
    /* One ACK of the FIN, and the struct is back at once. */
    hs_expect_one(h, &r);
    CHECK_EQ(r.h.flags, MIP_TCP_ACK);
    CHECK_EQ(r.h.seq, iss + 2u);
    CHECK_EQ(r.h.ack, irs + 2u);
    CHECK_EQ(a->closed, 1);
    CHECK_EQ(a->errors, 0);
    CHECK_EQ(a->conn.state, MIP_TCP_CLOSED);
    CHECK(h->tcp.conns == NULL);
    CHECK_EQ(tw_count(&h->tcp), 1);
    for (i = 0; i < MIP_TCP_TIMEWAIT_MAX; i++)
        if (h->tcp.tw[i].used)
            break;
    if (i == MIP_TCP_TIMEWAIT_MAX)
        return &h->tcp.tw[0];
    CHECK_EQ(h->tcp.tw[i].snd_nxt, iss + 2u);
    CHECK_EQ(h->tcp.tw[i].rcv_nxt, irs + 2u);
    CHECK_EQ(h->tcp.tw[i].lport, 80);
    CHECK_EQ(h->tcp.tw[i].rport, 41000);
    CHECK_EQ(h->tcp.tw[i].deadline, h->f.now + 2u * MIP_TCP_MSL_MS);
    hs_clear(h);
    return &h->tcp.tw[i];
}

static void test_timewait_record_and_expiry(void)
{
    struct hs *h = hs_new(true);
    struct app *a = calloc(1, sizeof(*a));
    struct mip_tcp_tw *tw = reach_timewait(h, a);
    struct sb_reply r;
    struct sb_seg s;
    uint32_t iss = a->conn.iss;

    /* A retransmitted FIN is ACKed again and restarts 2 MSL. */
    fixture_advance(&h->f, 10000);
    s = hs_seg(h, MIP_TCP_FIN | MIP_TCP_ACK);
    s.seq = h->snd_nxt - 1u;
    hs_send(h, &s);
    hs_expect_one(h, &r);
    CHECK_EQ(r.h.flags, MIP_TCP_ACK);
    CHECK_EQ(r.h.seq, iss + 2u);
    CHECK_EQ(r.h.ack, h->snd_nxt);
    CHECK_EQ(r.h.src_port, 80);
    CHECK_EQ(r.h.dst_port, 41000);
    CHECK(tw->used);
    CHECK_EQ(tw->deadline, h->f.now + 2u * MIP_TCP_MSL_MS);

    /* RST does not end it (RFC 1337), and is not answered. */
    hs_clear(h);
    s = hs_seg(h, MIP_TCP_RST);
    hs_send(h, &s);
    s = hs_seg(h, MIP_TCP_RST | MIP_TCP_ACK);
    hs_send(h, &s);
    CHECK_EQ(h->f.ntx, 0);
    CHECK(tw->used);
    CHECK_EQ(mip_tcp_stat(&h->tcp, MIP_TCP_STAT_drop_rst_out_of_window), 2);

    /* A SYN of an older incarnation (sequence not above) gets the ACK. */
    s = hs_seg(h, MIP_TCP_SYN);
    s.seq = h->snd_nxt - 10u;
    s.opts.present = 0;
    hs_send(h, &s);
    hs_expect_one(h, &r);
    CHECK_EQ(r.h.flags, MIP_TCP_ACK);
    CHECK(tw->used);

    /* Expiry: 2 MSL after the last FIN. */
    fixture_advance(&h->f, 2u * MIP_TCP_MSL_MS - 1u);
    CHECK(tw->used);
    fixture_advance(&h->f, 1);
    CHECK(!tw->used);
    /* Afterwards the 4-tuple is unknown: a stray ACK draws RST. */
    hs_clear(h);
    hs_send_ack(h);
    hs_expect_one(h, &r);
    CHECK_EQ(r.h.flags, MIP_TCP_RST);
    CHECK_EQ(r.h.seq, h->rcv_nxt);
    mip_tcp_unlisten(&h->tcp, &h->l);
    hs_free(h);
    free(a);
}

/* RFC 7323 3.2: when the connection had timestamps, the answers of its
 * TIME_WAIT record still carry them: TSval on the connection's clock (the
 * peer's PAWS would drop an older one), TSecr the TSval of the peer's
 * retransmitted FIN. Without timestamps (the tiny profile) no option. */
static void test_timewait_answers_carry_timestamps(void)
{
    struct hs *h = hs_new(true);
    struct app *a = calloc(1, sizeof(*a));
    struct mip_tcp_tw *tw = reach_timewait(h, a);
    uint32_t last_tsval = h->ts_recent;   /* of the stack's FIN */
    struct sb_reply r;
    struct sb_seg s;
    unsigned i;
    CHECK_EQ(h->ts, MIP_TCP_TIMESTAMPS != 0);
    for (i = 0; i < 2; i++) {
        /* The peer retransmits its FIN 1.5 s later, its clock gone on. */
        fixture_advance(&h->f, 1500);
        h->ts_val += 1500;
        s = hs_seg(h, MIP_TCP_FIN | MIP_TCP_ACK);
        s.seq = h->snd_nxt - 1u;
        hs_send(h, &s);
        hs_expect_one(h, &r);
        CHECK_EQ(r.h.flags, MIP_TCP_ACK);
        CHECK_EQ(r.h.ack, h->snd_nxt);
        CHECK(tw->used);
#if MIP_TCP_TIMESTAMPS
        CHECK_EQ(r.o.present, MIP_TCP_HAS_TIMESTAMP);
        CHECK_EQ(r.o.ts_ecr, h->ts_val);
        CHECK_EQ(r.o.ts_val, (uint32_t)h->f.now + a->conn.ts_offset);
        CHECK(MIP_SEQ_GT(r.o.ts_val, last_tsval));
        last_tsval = r.o.ts_val;
#else
        CHECK_EQ(r.o.present, 0);
        (void)last_tsval;
#endif
        hs_clear(h);
    }
    /* A stale duplicate (older TSval, sequence below rcv_nxt) is ACKed too,
     * without moving TS.Recent back. */
    s = hs_seg(h, MIP_TCP_ACK);
    s.seq = h->snd_nxt - 1u;
    if (h->ts)
        s.opts.ts_val = h->ts_val - 5000u;
    hs_send(h, &s);
    hs_expect_one(h, &r);
    CHECK_EQ(r.h.flags, MIP_TCP_ACK);
#if MIP_TCP_TIMESTAMPS
    CHECK_EQ(r.o.ts_ecr, h->ts_val);
#endif
    mip_tcp_unlisten(&h->tcp, &h->l);
    hs_free(h);
    free(a);
}

static void test_timewait_reuse_by_higher_syn(void)
{
    struct hs *h = hs_new(true);
    struct app *a = calloc(1, sizeof(*a));
    struct mip_tcp_tw *tw = reach_timewait(h, a);
    struct mip_tcp_opts o = hs_syn_opts(h, false);
    struct sb_reply sa;
    uint32_t new_irs = h->snd_nxt + 100000u;
    uint32_t old_snd_nxt = tw->snd_nxt;
    /* The application's struct is free again: accept may hand it out. */
    CHECK_EQ(a->conn.state, MIP_TCP_CLOSED);
    a->closed = 0;
    a->connected = 0;
    /* No time passes: the clock part of the ISN alone would not clear the
     * old incarnation's sequence numbers; the new ISS must (RFC 9293 3.6.1). */
    hs_open_passive(h, a, 41000, new_irs, &o, &sa);
    CHECK(MIP_SEQ_GT(sa.h.seq, old_snd_nxt));
    CHECK(!tw->used);
    CHECK_EQ(tw_count(&h->tcp), 0);
    CHECK_EQ(sa.h.ack, new_irs + 1u);
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(a->connected, 1);
    CHECK_EQ(a->conn.rcv_nxt, new_irs + 1u);
    CHECK_EQ(a->conn.rport, 41000);
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}

/* The passive closer: CLOSE_WAIT, LAST_ACK, CLOSED without TIME_WAIT. */
static void test_passive_close(void)
{
    struct hs *h = hs_new(true);
    struct app *a = calloc(1, sizeof(*a));
    struct sb_reply r;
    struct sb_seg s;
    hs_open_passive(h, a, 42000, 10, NULL, NULL);
    a->read_on_readable = true;
    hs_clear(h);
    s = hs_seg(h, MIP_TCP_FIN | MIP_TCP_ACK);
    hs_send(h, &s);
    h->snd_nxt++;
    CHECK_EQ(a->conn.state, MIP_TCP_CLOSE_WAIT);
    CHECK(mip_tcp_peer_closed(&a->conn));
    CHECK(a->readable >= 1);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.flags, MIP_TCP_ACK);
    CHECK_EQ(r.h.ack, 12u);
    hs_clear(h);
    CHECK_EQ(mip_tcp_close(&h->tcp, &a->conn), MIP_OK);
    CHECK_EQ(a->conn.state, MIP_TCP_LAST_ACK);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.flags & (MIP_TCP_FIN | MIP_TCP_ACK), MIP_TCP_FIN | MIP_TCP_ACK);
    CHECK_EQ(r.h.seq, a->conn.iss + 1u);
    hs_absorb(h, &r);
    hs_send_ack(h);
    CHECK_EQ(a->closed, 1);
    CHECK_EQ(a->errors, 0);
    CHECK(h->tcp.conns == NULL);
    CHECK_EQ(tw_count(&h->tcp), 0);
    hs_free(h);
    free(a);
}

/* The peer's handshake ACK was lost and so was its first data segment: the
 * next data segment (seq above irs + 1, right ACK) must complete the
 * handshake, not draw a RST; one outside the SYN-ACK's window is dropped
 * quietly. */
static void passive_open_completed_by_later_data(bool in_window)
{
    struct hs *h = hs_new(true);
    struct app *a = calloc(1, sizeof(*a));
    struct sb_seg s;
    struct sb_reply r;
    static uint8_t data[200];
    uint32_t gap = in_window ? 100u : 5000u;
    unsigned i;
    for (i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)i;
    CHECK_EQ(app_listen(&h->tcp, &h->l, 80, a), MIP_OK);
    h->pport = 40000;
    h->lport = 80;
    memset(&s, 0, sizeof(s));
    s.sport = 40000;
    s.dport = 80;
    s.seq = 1000000u;
    s.flags = MIP_TCP_SYN;
    s.win = 65535;
    hs_send(h, &s);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.flags, MIP_TCP_SYN | MIP_TCP_ACK);
    h->rcv_nxt = r.h.seq + 1u;
    h->snd_nxt = 1000001u + gap;           /* bytes [0, gap) never arrive */
    hs_clear(h);
    a->read_on_readable = true;
    hs_send_data(h, data + 100, 100);
    while (hs_next(h, &r))
        CHECK(!(r.h.flags & MIP_TCP_RST));
    if (in_window) {
        CHECK_EQ(a->accepted, 1);
        CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
        CHECK_EQ(a->conn.rcv_nxt, 1000001u);   /* the gap is still open */
        /* the retransmitted first segment fills it */
        h->snd_nxt = 1000001u;
        hs_clear(h);
        hs_send_data(h, data, 100);
        CHECK(a->ngot == 100 || a->ngot == 200);  /* 200 with an out-of-order buffer */
        CHECK_MEM(a->got, data, a->ngot);
        mip_tcp_abort(&h->tcp, &a->conn);
    } else {
        CHECK_EQ(a->accepted, 0);
        CHECK_EQ(mip_tcp_stat(&h->tcp, MIP_TCP_STAT_drop_out_of_window), 1);
        CHECK_EQ(mip_tcp_stat(&h->tcp, MIP_TCP_STAT_rst_tx), 0);
    }
    hs_free(h);
    free(a);
}

static void test_passive_open_completed_by_later_data(void) { passive_open_completed_by_later_data(true); }
static void test_passive_open_ignores_ack_with_data_outside_window(void) { passive_open_completed_by_later_data(false); }

int main(void)
{
    RUN(test_passive_open_completed_by_later_data);
    RUN(test_passive_open_ignores_ack_with_data_outside_window);
    RUN(test_active_open_window_whatever_the_peer_isn);
    RUN(test_stack_awaits_a_reply_while_anything_is_unacknowledged);
    RUN(test_passive_open_all_options_v6);
    RUN(test_passive_open_no_options_v6);
#if MIP_CONF_IPV4
    RUN(test_passive_open_all_options_v4);
    RUN(test_passive_open_no_options_v4);
    RUN(test_active_open_all_options_v4);
#endif
    RUN(test_active_open_all_options_v6);
    RUN(test_active_open_no_options_v6);
    RUN(test_syn_sent_bad_ack_gets_rst);
    RUN(test_simultaneous_open);
    RUN(test_simultaneous_close);
    RUN(test_half_close);
    RUN(test_timewait_record_and_expiry);
    RUN(test_timewait_answers_carry_timestamps);
    RUN(test_timewait_reuse_by_higher_syn);
    RUN(test_passive_close);
    return TESTING_DONE();
}
