/* TCP timers and send/receive policies: retransmission with exponential
 * backoff (RFC 6298 5.5) and giving up, the SYN cache's SYN-ACK
 * retransmissions, delayed ACKs and immediate ACKs with SACK for
 * out-of-order data (RFC 5681 4.2, RFC 2018), zero window and persist
 * probes (RFC 9293 3.8.6.1), keepalive (RFC 9293 3.8.4), Nagle (RFC 896),
 * urgent data (RFC 6093) and the congestion-window cap. */
#include "tcp_pair.h"
#include "seg_builder.h"

static uint8_t pat(size_t i) { return (uint8_t)(i * 11u + (i >> 9)); }

/* --- a recorder for frames crossing the pair link -------------------------- */

#define REC_MAX 256

struct rec {
    bool drop[2];              /* drop every frame from this side */
    int side;                  /* frames of this side are recorded */
    unsigned n;
    mip_time_t t[REC_MAX];
    uint8_t flags[REC_MAX];
    uint32_t seq[REC_MAX], ack[REC_MAX];
    uint16_t win[REC_MAX];
    size_t len[REC_MAX];
    bool ts[REC_MAX];
    /* checks on the sender's flight (cwnd cap), side `side` only */
    const struct mip_tcp_conn *sender;
    uint32_t max_flight;
    size_t max_len;
    unsigned fragments;        /* frames of `side` that are not whole TCP segments */
    /* the other side's advertised right edge, and frames of `side` with
     * more than one byte (a probe) beyond it */
    bool edge_known;
    uint32_t edge;
    unsigned beyond_window;
};

static struct rec rec;

static bool rec_hook(struct pair *p, int from, unsigned n, const uint8_t *f, size_t len)
{
    struct sb_reply r;
    (void)n;
    if (from != rec.side && sb_parse(f, len, &r) && (r.h.flags & MIP_TCP_ACK)) {
        uint32_t edge = r.h.ack + r.h.window;     /* no window scaling here */
        if (!rec.edge_known || MIP_SEQ_GT(edge, rec.edge))
            rec.edge = edge;
        rec.edge_known = true;
    }
    if (from == rec.side && !sb_parse(f, len, &r))
        rec.fragments++;
    else if (from == rec.side) {
        if (rec.n < REC_MAX) {
            rec.t[rec.n] = p->now;
            rec.flags[rec.n] = r.h.flags;
            rec.seq[rec.n] = r.h.seq;
            rec.ack[rec.n] = r.h.ack;
            rec.win[rec.n] = r.h.window;
            rec.len[rec.n] = r.len;
            rec.ts[rec.n] = (r.o.present & MIP_TCP_HAS_TIMESTAMP) != 0;
            rec.n++;
        }
        if (r.len > rec.max_len)
            rec.max_len = r.len;
        if (rec.edge_known && r.len > 1 && MIP_SEQ_GT(r.h.seq + (uint32_t)r.len, rec.edge))
            rec.beyond_window++;
        if (rec.sender != NULL && r.len > 0) {
            uint32_t flight = r.h.seq + (uint32_t)r.len - rec.sender->snd_una;
            if (flight > rec.max_flight)
                rec.max_flight = flight;
        }
    }
    return rec.drop[from];
}

static void rec_reset(int side)
{
    memset(&rec, 0, sizeof(rec));
    rec.side = side;
}

static uint32_t rto_after(uint32_t rto, unsigned doublings)
{
    uint32_t v = rto;
    while (doublings-- > 0 && v < MIP_TCP_RTO_MAX_MS)
        v *= 2u;
    return v > MIP_TCP_RTO_MAX_MS ? MIP_TCP_RTO_MAX_MS : v;
}

/* --- retransmission ----------------------------------------------------------- */

static void test_syn_retransmission_backoff_and_timeout(void)
{
    static struct pair p;
    struct app *a = calloc(1, sizeof(*a));
    struct mip_addr dst = pair_addr(true, 1);
    mip_time_t t0;
    unsigned i;
    pair_init(&p, true);
    rec_reset(0);
    rec.drop[0] = true;
    p.drop = rec_hook;
    app_init(a, &p.side[0].tcp);
    t0 = p.now;
    CHECK_EQ(mip_tcp_connect(&p.side[0].tcp, &a->conn, &dst, 80), MIP_OK);
    pair_run(&p, 1, 200000);
    /* The SYN and MIP_TCP_SYN_RETRIES retransmissions, the gaps doubling
     * from MIP_TCP_RTO_INITIAL_MS. */
    CHECK_EQ(rec.n, 1u + MIP_TCP_SYN_RETRIES);
    for (i = 0; i < rec.n; i++) {
        CHECK_EQ(rec.flags[i], MIP_TCP_SYN);
        CHECK_EQ(rec.seq[i], a->conn.iss);
    }
    CHECK_EQ(rec.t[0], t0);
    for (i = 1; i < rec.n; i++)
        CHECK_EQ(rec.t[i] - rec.t[i - 1], MIP_TCP_RTO_INITIAL_MS << (i - 1));
    /* One more backed-off RTO, then it gives up. */
    CHECK_EQ(a->closed, 1);
    CHECK_EQ(a->errors, 1);
    CHECK_EQ(a->error, MIP_TCP_ERR_TIMEOUT);
    CHECK_EQ(a->t_closed - rec.t[rec.n - 1], MIP_TCP_RTO_INITIAL_MS << MIP_TCP_SYN_RETRIES);
    CHECK_EQ(a->conn.state, MIP_TCP_CLOSED);
    CHECK(p.side[0].tcp.conns == NULL);
    CHECK_EQ(mip_tcp_stat(&p.side[0].tcp, MIP_TCP_STAT_timeouts), MIP_TCP_SYN_RETRIES);
    CHECK_EQ(mip_tcp_stat(&p.side[0].tcp, MIP_TCP_STAT_conns_timed_out), 1);
    pair_free(&p);
    free(a);
}

/* Connects the pair with max_retries set on the client's instance, then
 * loses every client frame and writes 10 bytes: the set-up of the
 * retransmission-limit tests. *rto is the RTO before the write, *una the
 * sequence number of the 10 bytes. */
static void connect_then_silence_client(struct pair *p, struct app *cli, struct app *srv,
                                        struct mip_tcp_listener *l, uint8_t max_retries,
                                        uint32_t *rto, uint32_t *una)
{
    struct mip_tcp *tcp = &p->side[0].tcp;
    tcp->max_retries = max_retries;
    rec_reset(0);
    p->drop = rec_hook;
    pair_connect(p, true, cli, srv, l);
    rec_reset(0);
    rec.drop[0] = true;             /* the client's frames are all lost */
    *rto = tcp_rtt_rto(&cli->conn.rtt);
    *una = cli->conn.snd_una;
    CHECK_EQ(mip_tcp_write(tcp, &cli->conn, (const uint8_t *)"0123456789", 10), 10);
}

/* How many of the recorded frames carry the 10 bytes at una
 * (connect_then_silence_client's write). */
static unsigned data_copies(uint32_t una)
{
    unsigned i, n = 0;
    for (i = 0; i < rec.n; i++)
        if (rec.len[i] == 10 && rec.seq[i] == una)
            n++;
    return n;
}

/* A silent peer: the segment, max_retries copies at backed-off RTOs, then
 * the RST of giving up and MIP_TCP_ERR_TIMEOUT; with the compile-time
 * limit (MIP_TCP_MAX_RETRIES) and a run-time one (struct mip_tcp
 * max_retries 2). */
static void test_retransmission_limit_then_timeout(void)
{
    static const uint8_t limits[] = { MIP_TCP_MAX_RETRIES, 2 };
    unsigned row;
    for (row = 0; row < sizeof(limits); row++) {
        static struct pair p;
        struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
        struct mip_tcp_listener l;
        struct mip_tcp *tcp = &p.side[0].tcp;
        const unsigned max = limits[row];
        uint32_t rto, una;
        unsigned i;
        pair_init(&p, true);
        CHECK_EQ(tcp->max_retries, MIP_TCP_MAX_RETRIES);
        /* the RTOs alone: a tail loss probe would come first
         * (test_probe_then_rtos_against_a_silent_peer) */
        mip_tcp_config_default(&cli->cfg);
        cli->cfg.tlp = false;
        cli->use_cfg = true;
        connect_then_silence_client(&p, cli, srv, &l, (uint8_t)max, &rto, &una);
        CHECK_EQ(rto, MIP_TCP_RTO_MIN_MS);   /* a 1 ms RTT gives the minimum */
        pair_run(&p, 1, 600000);
        CHECK_EQ(data_copies(una), 1u + max);
        CHECK_EQ(rec.n, 2u + max);
        for (i = 1; i < 1u + max && i < rec.n; i++)
            CHECK_EQ(rec.t[i] - rec.t[i - 1], rto_after(rto, i - 1));
        if (rec.n == 2u + max) {
            i = rec.n - 1;
            CHECK_EQ(rec.flags[i] & MIP_TCP_RST, MIP_TCP_RST);
            CHECK_EQ(rec.t[i] - rec.t[i - 1], rto_after(rto, max));
        }
        CHECK_EQ(cli->closed, 1);
        CHECK_EQ(cli->errors, 1);
        CHECK_EQ(cli->error, MIP_TCP_ERR_TIMEOUT);
        CHECK_EQ(cli->conn.error, MIP_TCP_ERR_TIMEOUT);
        CHECK_EQ(mip_tcp_stat(tcp, MIP_TCP_STAT_rexmits), max);
        CHECK_EQ(mip_tcp_stat(tcp, MIP_TCP_STAT_timeouts), max);
        CHECK_EQ(mip_tcp_stat(tcp, MIP_TCP_STAT_conns_timed_out), 1);
        CHECK(tcp->conns == NULL);
        /* The server never heard anything. */
        CHECK_EQ(srv->conn.state, MIP_TCP_ESTABLISHED);
        pair_close(&p, cli, srv, false);
    }
}

/* The RTO minimum against delayed ACKs: both ends delay ACKs by delack_ms
 * (0: the default), the handshake measured an RTT of a millisecond, and
 * each of the client's lone small segments is ACKed only when the
 * server's delayed-ACK timer fires. None may be retransmitted. */
static void lone_segment_not_resent(uint16_t delack_ms)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    struct mip_tcp *tcp = &p.side[0].tcp;
    uint32_t delack = delack_ms != 0 ? delack_ms : MIP_TCP_DELACK_MS;
    unsigned round, i;
    pair_init(&p, true);
    mip_tcp_config_default(&cli->cfg);
    cli->cfg.delack_ms = (uint16_t)delack;
    cli->use_cfg = true;
    srv->cfg = cli->cfg;
    srv->use_cfg = true;
    srv->read_on_readable = true;
    rec_reset(1);
    p.drop = rec_hook;
    pair_connect(&p, true, cli, srv, &l);
    CHECK(cli->conn.rtt.srtt_x8 <= 8u * 2u);
    CHECK_EQ(tcp_rtt_rto(&cli->conn.rtt), MIP_TCP_RTO_MIN_MS);
    for (round = 0; round < 3; round++) {
        mip_time_t t0 = p.now;
        bool acked = false;
        rec_reset(1);
        CHECK_EQ(mip_tcp_write(tcp, &cli->conn, (const uint8_t *)"lone", 4), 4);
        /* Armed past the delayed ACK: the tail loss probe's timeout, 2
         * SRTT + the delayed ACK (tlp.c), before the RTO with its margin. */
        CHECK(cli->conn.t_rexmt - t0 >= delack);
        pair_run(&p, 1, 5000);
        for (i = 0; i < rec.n; i++) {
            if (rec.ack[i] != cli->conn.snd_nxt || acked)
                continue;
            acked = true;
            CHECK(rec.t[i] - t0 >= delack);   /* it was delayed in full */
        }
        CHECK(acked);
        CHECK_EQ(cli->conn.snd_una, cli->conn.snd_nxt);
    }
    CHECK_EQ(srv->ngot, 12);
    CHECK_MEM(srv->got, "lonelonelone", 12);
    CHECK_EQ(mip_tcp_stat(&p.side[1].tcp, MIP_TCP_STAT_delacks), 3);
    CHECK_EQ(mip_tcp_stat(tcp, MIP_TCP_STAT_rexmits), 0);
    CHECK_EQ(mip_tcp_stat(tcp, MIP_TCP_STAT_timeouts), 0);
#if MIP_TCP_SACK
    CHECK_EQ(mip_tcp_stat(tcp, MIP_TCP_STAT_tlp_probes), 0);
#endif
    CHECK_EQ(mip_tcp_stat(&p.side[1].tcp, MIP_TCP_STAT_drop_out_of_window), 0);
    pair_close(&p, cli, srv, false);
}

static void test_lone_segment_waits_for_delayed_ack(void) { lone_segment_not_resent(0); }
/* A delack_ms above the default raises the connection's RTO floor with it. */
static void test_lone_segment_waits_for_longer_delayed_ack(void) { lone_segment_not_resent(450); }

/* Retransmissions are cut like first transmissions: never more than the
 * MSS (less the timestamp option), never past the peer's window, so never
 * fragmented by IP. */
static bool drop_first_data;
static bool drop_data_once(struct pair *p, int from, unsigned n, const uint8_t *f, size_t len)
{
    struct sb_reply r;
    bool drop = rec_hook(p, from, n, f, len);
    if (from == 0 && drop_first_data && sb_parse(f, len, &r) && r.len > 0)
        return true;
    return drop;
}

static void test_rto_retransmission_fits_mss_and_window(void)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    struct mip_tcp *tcp = &p.side[0].tcp;
    uint8_t buf[3000];
    size_t i, bad = 0, limit;
    pair_init(&p, true);
    srv->read_on_readable = true;
    pair_connect(&p, true, cli, srv, &l);
    /* A first exchange opens the server's real window. */
    CHECK_EQ(mip_tcp_write(tcp, &cli->conn, (const uint8_t *)"x", 1), 1);
    pair_run_for(&p, 1000);
    CHECK_EQ(srv->ngot, 1);
    CHECK(cli->conn.snd_wnd > 2u * cli->conn.cc.mss);
    rec_reset(0);
    p.drop = drop_data_once;
    drop_first_data = true;
    for (i = 0; i < sizeof(buf); i++)
        buf[i] = pat(i + 1);
    CHECK_EQ(mip_tcp_write(tcp, &cli->conn, buf, sizeof(buf)), sizeof(buf));
    drop_first_data = false;          /* the retransmissions get through */
    pair_run_for(&p, 5000);
    CHECK_EQ(srv->ngot, 1 + sizeof(buf));
    for (i = 1; i < srv->ngot; i++)
        bad += srv->got[i] != pat(i);
    CHECK_EQ(bad, 0);
    CHECK(mip_tcp_stat(tcp, MIP_TCP_STAT_timeouts) >= 1);
    limit = (size_t)cli->conn.cc.mss;
#if MIP_TCP_TIMESTAMPS
    limit -= 12u;
#endif
    CHECK(rec.max_len <= limit);
    CHECK_EQ(rec.fragments, 0);
    CHECK_EQ(cli->conn.snd_una, cli->conn.snd_max);
    CHECK_EQ(cli->errors, 0);
    pair_close(&p, cli, srv, true);
}

/* An RTO retransmission from snd_una may carry bytes that Nagle held back
 * (new data inside the window); their ACK must be taken. */
static void test_rto_retransmission_with_new_data(void)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    struct mip_tcp *tcp = &p.side[0].tcp;
    uint8_t buf[600];
    size_t i, bad = 0;
    pair_init(&p, true);
    srv->read_on_readable = true;
    pair_connect(&p, true, cli, srv, &l);
    CHECK_EQ(mip_tcp_write(tcp, &cli->conn, (const uint8_t *)"x", 1), 1);
    pair_run_for(&p, 1000);
    rec_reset(0);
    p.drop = drop_data_once;
    drop_first_data = true;
    for (i = 0; i < sizeof(buf); i++)
        buf[i] = pat(i + 1);
    CHECK_EQ(mip_tcp_write(tcp, &cli->conn, buf, 100), 100);       /* sent, lost */
    drop_first_data = false;
    CHECK_EQ(mip_tcp_write(tcp, &cli->conn, buf + 100, 500), 500); /* Nagle holds it */
    CHECK_EQ(cli->conn.snd_max - cli->conn.snd_una, 100);
    pair_run_for(&p, 5000);
    CHECK_EQ(srv->ngot, 601);
    for (i = 1; i < srv->ngot; i++)
        bad += srv->got[i] != pat(i);
    CHECK_EQ(bad, 0);
    CHECK_EQ(cli->conn.snd_una, cli->conn.snd_max);
    CHECK_EQ(cli->conn.snd_nxt, cli->conn.snd_max);
    CHECK_EQ(mip_tcp_stat(tcp, MIP_TCP_STAT_drop_bad_ack), 0);
    CHECK_EQ(cli->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(cli->errors, 0);
    pair_close(&p, cli, srv, true);
}

/* The SYN cache resends its SYN-ACK with the same backoff and forgets the
 * entry after MIP_TCP_SYN_RETRIES. */
static void test_synack_retransmission_from_syn_cache(void)
{
    struct hs *h = hs_new(true);
    struct app *a = calloc(1, sizeof(*a));
    struct sb_seg s;
    struct sb_reply r;
    mip_time_t t[16], t0;
    uint32_t iss = 0;
    unsigned n = 0, i;
    CHECK_EQ(app_listen(&h->tcp, &h->l, 80, a), MIP_OK);
    memset(&s, 0, sizeof(s));
    s.sport = 40000;
    s.dport = 80;
    s.seq = 7;
    s.flags = MIP_TCP_SYN;
    s.win = 1000;
    fixture_advance(&h->f, 0);
    t0 = h->f.now;
    hs_send(h, &s);
    for (i = 0; i < 40 && n < 16; i++) {
        while (hs_next(h, &r)) {
            CHECK_EQ(r.h.flags, MIP_TCP_SYN | MIP_TCP_ACK);
            CHECK_EQ(r.h.ack, 8u);
            if (n == 0)
                iss = r.h.seq;
            CHECK_EQ(r.h.seq, iss);
            t[n++] = h->f.now;
        }
        hs_clear(h);
        if (h->tcp.syn[0].flags == 0)
            break;
        hs_to_next_deadline(h, 100000);
    }
    CHECK_EQ(n, 1u + MIP_TCP_SYN_RETRIES);
    CHECK_EQ(t[0], t0);
    for (i = 1; i < n; i++)
        CHECK_EQ(t[i] - t[i - 1], MIP_TCP_RTO_INITIAL_MS << (i - 1));
    CHECK_EQ(h->tcp.syn[0].flags, 0);
    CHECK_EQ(h->f.now - t[n - 1], MIP_TCP_RTO_INITIAL_MS << MIP_TCP_SYN_RETRIES);
    CHECK_EQ(a->accepted, 0);
    hs_free(h);
    free(a);
}

/* max_retries 255: neither the SYN nor the SYN cache's SYN-ACK is given
 * up; their gaps double from MIP_TCP_RTO_INITIAL_MS to MIP_TCP_RTO_MAX_MS
 * and stay there. */
static void test_handshake_never_gives_up_with_255(void)
{
    static struct pair p;
    struct app *a = calloc(1, sizeof(*a));
    struct mip_addr dst = pair_addr(true, 1);
    struct hs *h = hs_new(true);
    struct app *b = calloc(1, sizeof(*b));
    struct sb_seg s;
    struct sb_reply r;
    mip_time_t t[40];
    unsigned n = 0, i;
    pair_init(&p, true);
    p.side[0].tcp.max_retries = 255;
    rec_reset(0);
    rec.drop[0] = true;
    p.drop = rec_hook;
    app_init(a, &p.side[0].tcp);
    CHECK_EQ(mip_tcp_connect(&p.side[0].tcp, &a->conn, &dst, 80), MIP_OK);
    pair_run_for(&p, 30u * 60u * 1000u);
    /* 1+2+...+32 s, then 60 s gaps: 6 SYNs in 63 s, 28 more in 30 min */
    CHECK(rec.n >= 33 && rec.n <= 35);
    for (i = 1; i < rec.n; i++)
        CHECK_EQ(rec.t[i] - rec.t[i - 1], rto_after(MIP_TCP_RTO_INITIAL_MS, i - 1));
    CHECK_EQ(a->errors, 0);
    CHECK_EQ(a->conn.state, MIP_TCP_SYN_SENT);
    mip_tcp_abort(&p.side[0].tcp, &a->conn);
    pair_free(&p);
    free(a);

    h->tcp.max_retries = 255;
    CHECK_EQ(app_listen(&h->tcp, &h->l, 80, b), MIP_OK);
    memset(&s, 0, sizeof(s));
    s.sport = 40000;
    s.dport = 80;
    s.seq = 7;
    s.flags = MIP_TCP_SYN;
    s.win = 1000;
    fixture_advance(&h->f, 0);
    hs_send(h, &s);
    for (i = 0; i < 60 && n < 40; i++) {
        while (hs_next(h, &r) && n < 40)
            t[n++] = h->f.now;
        hs_clear(h);
        if (h->tcp.syn[0].flags == 0)
            break;
        hs_to_next_deadline(h, 100000);
    }
    CHECK_EQ(n, 40);
    CHECK(h->tcp.syn[0].flags != 0);
    for (i = 1; i < n; i++)
        CHECK_EQ(t[i] - t[i - 1], rto_after(MIP_TCP_RTO_INITIAL_MS, i - 1));
    hs_free(h);
    free(b);
}

/* --- delayed and immediate ACKs --------------------------------------------- */

static void test_delayed_ack(void)
{
    struct hs *h = hs_new(true);
    struct app *a = calloc(1, sizeof(*a));
    struct mip_tcp_opts o = hs_syn_opts(h, true);
    struct sb_reply sa, r;
    uint8_t buf[3000];
    size_t full;
    mip_tcp_config_default(&a->cfg);
    a->cfg.delack_ms = 50;
    a->use_cfg = true;
    a->read_on_readable = true;
    hs_open_passive(h, a, 40000, 100, &o, &sa);
    CHECK_EQ(a->conn.cfg.delack_ms, 50);
    hs_clear(h);

    /* One small segment: ACKed after delack_ms, not before. */
    hs_send_data(h, (const uint8_t *)"small", 5);
    CHECK_EQ(a->ngot, 5);
    CHECK_EQ(h->f.ntx, 0);
    CHECK_EQ(mip_tcp_stat(&h->tcp, MIP_TCP_STAT_delacks), 1);
    fixture_advance(&h->f, 49);
    CHECK_EQ(h->f.ntx, 0);
    fixture_advance(&h->f, 1);
    hs_expect_one(h, &r);
    CHECK_EQ(r.h.flags, MIP_TCP_ACK);
    CHECK_EQ(r.h.ack, h->snd_nxt);
    CHECK_EQ(r.h.seq, a->conn.snd_nxt);
    hs_absorb(h, &r);
    hs_clear(h);

    /* Two full-sized segments: the second is ACKed at once. */
    full = (size_t)sa.o.mss - (h->ts ? 12u : 0u);
    CHECK(2 * full <= sizeof(buf));
    memset(buf, 'x', sizeof(buf));
    hs_send_data(h, buf, full);
    CHECK_EQ(h->f.ntx, 0);
    hs_send_data(h, buf, full);
    hs_expect_one(h, &r);
    CHECK_EQ(r.h.flags, MIP_TCP_ACK);
    CHECK_EQ(r.h.ack, h->snd_nxt);
    CHECK_EQ(a->ngot, 5 + 2 * full);
    /* Nothing more is pending. */
    hs_clear(h);
    fixture_advance(&h->f, 1000);
    CHECK_EQ(h->f.ntx, 0);

    /* The default delay is MIP_TCP_DELACK_MS. */
    a->conn.cfg.delack_ms = MIP_TCP_DELACK_MS;
    hs_send_data(h, (const uint8_t *)"x", 1);
    fixture_advance(&h->f, MIP_TCP_DELACK_MS - 1u);
    CHECK_EQ(h->f.ntx, 0);
    fixture_advance(&h->f, 1);
    CHECK_EQ(hs_count(h), 1);
    hs_clear(h);

    /* The deadline is kept in 16 bits: one that crosses a multiple of
     * 65536 ms still fires on time, and so does one polled late. */
    fixture_advance(&h->f, (0x10000u - (h->f.now & 0xFFFFu)) - 50u);
    hs_send_data(h, (const uint8_t *)"y", 1);
    fixture_advance(&h->f, MIP_TCP_DELACK_MS - 1u);
    CHECK_EQ(h->f.ntx, 0);
    fixture_advance(&h->f, 1);
    CHECK_EQ(hs_count(h), 1);
    hs_clear(h);
    hs_send_data(h, (const uint8_t *)"z", 1);
    CHECK_EQ(h->f.ntx, 0);
    fixture_advance(&h->f, 30000);                  /* a poll 29.8 s late */
    CHECK_EQ(hs_count(h), 1);
    hs_clear(h);

    /* Longer than RFC 1122 allows: taken as MIP_TCP_DELACK_MAX_MS. */
    a->conn.cfg.delack_ms = 5000;
    hs_send_data(h, (const uint8_t *)"w", 1);
    fixture_advance(&h->f, MIP_TCP_DELACK_MAX_MS - 1u);
    CHECK_EQ(h->f.ntx, 0);
    fixture_advance(&h->f, 1);
    CHECK_EQ(hs_count(h), 1);
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}

/* Sends bytes [off, off+n) of the peer's stream (pattern) without moving
 * the peer's snd_nxt; base is the stream's first sequence number. */
static void send_at(struct hs *h, uint32_t base, size_t off, size_t n)
{
    uint8_t buf[1000];
    struct sb_seg s = hs_seg(h, MIP_TCP_ACK);
    size_t i;
    for (i = 0; i < n; i++)
        buf[i] = pat(off + i);
    s.seq = base + (uint32_t)off;
    s.data = buf;
    s.len = n;
    hs_send(h, &s);
}

static void test_out_of_order_acked_at_once_with_sack(void)
{
    struct hs *h = hs_new(true);
    struct app *a = calloc(1, sizeof(*a));
    struct mip_tcp_opts o = hs_syn_opts(h, true);
    struct sb_reply r;
    uint32_t base;
    size_t i, bad = 0;
    a->read_on_readable = true;
    hs_open_passive(h, a, 40000, 5000, &o, NULL);
    base = h->snd_nxt;
    hs_clear(h);

    /* [100, 200) ahead of a hole: ACK at once, one SACK block. */
    send_at(h, base, 100, 100);
    hs_expect_one(h, &r);
    CHECK_EQ(r.h.flags, MIP_TCP_ACK);
    CHECK_EQ(r.h.ack, base);
    CHECK_EQ(mip_tcp_stat(&h->tcp, MIP_TCP_STAT_ooo_segs), 1);
    CHECK_EQ(a->ngot, 0);
#if MIP_TCP_SACK
    CHECK(r.o.present & MIP_TCP_HAS_SACK);
    CHECK_EQ(r.o.sack_count, 1);
    CHECK_EQ(r.o.sack[0].left, base + 100u);
    CHECK_EQ(r.o.sack[0].right, base + 200u);
#else
    CHECK_EQ(r.o.present & MIP_TCP_HAS_SACK, 0);
#endif

    /* [300, 350): two blocks, the latest first (RFC 2018 4). */
    send_at(h, base, 300, 50);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.ack, base);
#if MIP_TCP_SACK
    CHECK_EQ(r.o.sack_count, 2);
    CHECK_EQ(r.o.sack[0].left, base + 300u);
    CHECK_EQ(r.o.sack[0].right, base + 350u);
    CHECK_EQ(r.o.sack[1].left, base + 100u);
    CHECK_EQ(r.o.sack[1].right, base + 200u);
#endif

    /* The first hole fills: ACK at once up to 200, [300, 350) remains. */
    send_at(h, base, 0, 100);
    CHECK_EQ(hs_count(h), 3);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.ack, base + 200u);
    CHECK_EQ(a->ngot, 200);
#if MIP_TCP_SACK
    CHECK_EQ(r.o.sack_count, 1);
    CHECK_EQ(r.o.sack[0].left, base + 300u);
    CHECK_EQ(r.o.sack[0].right, base + 350u);
#endif

    /* The last hole: everything, no SACK option any more. */
    send_at(h, base, 200, 100);
    CHECK_EQ(hs_count(h), 4);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.ack, base + 350u);
    CHECK_EQ(r.o.present & MIP_TCP_HAS_SACK, 0);
    CHECK_EQ(a->ngot, 350);
    for (i = 0; i < a->ngot; i++)
        bad += a->got[i] != pat(i);
    CHECK_EQ(bad, 0);

    /* An old duplicate (entirely below rcv_nxt) is not acceptable and
     * draws an ACK at once (RFC 9293 3.10.7.4 "first"). */
    {
        uint32_t oow = mip_tcp_stat(&h->tcp, MIP_TCP_STAT_drop_out_of_window);
        send_at(h, base, 0, 100);
        CHECK_EQ(mip_tcp_stat(&h->tcp, MIP_TCP_STAT_drop_out_of_window), oow + 1u);
    }
    CHECK_EQ(hs_count(h), 5);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.ack, base + 350u);
    /* One overlapping the left edge is trimmed: only the new bytes count. */
    send_at(h, base, 340, 20);
    CHECK_EQ(a->ngot, 360);
    CHECK_EQ(a->got[355], pat(355));
    h->snd_nxt = base + 360u;
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}

/* --- zero window and persist ------------------------------------------------- */

static void test_zero_window_persist_and_resume(void)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    struct mip_tcp *tcp = &p.side[0].tcp;
    uint8_t buf[APP_RING];
    mip_time_t probe_t[64];
    unsigned nprobe = 0, big_into_zero = 0, i, last_srv_win_zero;
    size_t k, bad = 0;
    pair_init(&p, true);
    srv->rx_size = 2048;                /* and it does not read */
    pair_connect(&p, true, cli, srv, &l);
    CHECK_EQ(srv->conn.rcv_wscale, 0);
    rec_reset(0);
    rec.edge_known = true;
    rec.edge = srv->conn.rcv_adv;
    p.drop = rec_hook;
    for (k = 0; k < sizeof(buf); k++)
        buf[k] = pat(k);
    CHECK_EQ(mip_tcp_write(tcp, &cli->conn, buf, sizeof(buf)), sizeof(buf));
    pair_run_for(&p, 2000);
    /* The receiver's ring is full and its window closed. */
    CHECK_EQ(srv->conn.rx.len, 2048);
    CHECK_EQ(srv->conn.rcv_adv, srv->conn.rcv_nxt);
    CHECK_EQ(cli->conn.snd_wnd, 0);
    CHECK_EQ(cli->conn.snd_una - cli->conn.iss - 1u, 2048u);
    /* Probing for 60 s more. */
    pair_run_for(&p, 60000);
    CHECK_EQ(srv->conn.rx.len, 2048);
    for (i = 0; i < rec.n; i++) {
        if (rec.len[i] == 1)
            probe_t[nprobe < 64 ? nprobe++ : 63] = rec.t[i];
        else if (rec.len[i] > 1 && rec.seq[i] - cli->conn.iss - 1u >= 2048u)
            big_into_zero++;
    }
    /* Only one-byte probes went into the closed window. */
    CHECK_EQ(big_into_zero, 0);
    CHECK_EQ(rec.beyond_window, 0);     /* retransmissions included */
    CHECK_EQ(rec.fragments, 0);
    CHECK(nprobe >= 5);
    CHECK_EQ(mip_tcp_stat(tcp, MIP_TCP_STAT_zero_window_probes), nprobe);
    for (i = 2; i < nprobe; i++)
        CHECK_EQ(probe_t[i] - probe_t[i - 1],
                 (probe_t[i - 1] - probe_t[i - 2]) * 2u > MIP_TCP_RTO_MAX_MS
                     ? MIP_TCP_RTO_MAX_MS : (probe_t[i - 1] - probe_t[i - 2]) * 2u);
    CHECK_EQ(cli->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(cli->errors, 0);
    /* Every probe was answered with a zero window. */
    rec_reset(1);
    pair_run_for(&p, 60000);
    last_srv_win_zero = 0;
    for (i = 0; i < rec.n; i++)
        last_srv_win_zero += rec.win[i] == 0;
    CHECK(rec.n >= 1);
    CHECK_EQ(last_srv_win_zero, rec.n);
    /* The application reads: a window update, and the rest flows. */
    srv->read_on_readable = true;
    app_drain(srv);
    pair_run_for(&p, 3000);
    CHECK_EQ(srv->ngot, sizeof(buf));
    for (k = 0; k < srv->ngot; k++)
        bad += srv->got[k] != pat(k);
    CHECK_EQ(bad, 0);
    CHECK_EQ(cli->conn.snd_una, cli->conn.snd_max);
    CHECK_EQ(cli->conn.tx.len, 0);
    pair_close(&p, cli, srv, true);
}

/* An abort while zero-window probes go out: a probe's byte lies past the
 * peer's window, and a RST at SND.NXT would lie there too, where the peer
 * drops it unanswered (RFC 5961 3.2) and keeps its side open for good.
 * The RST goes at the window's right edge, the peer's RCV.NXT. */
static void test_abort_while_probing_a_zero_window_resets_the_peer(void)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    struct mip_tcp *tcp = &p.side[0].tcp;
    uint8_t buf[APP_RING];
    unsigned i, rsts = 0;
    uint32_t rcv_nxt;
    pair_init(&p, true);
    srv->rx_size = 2048;                /* and it does not read */
    pair_connect(&p, true, cli, srv, &l);
    memset(buf, 0x5A, sizeof(buf));
    CHECK_EQ(mip_tcp_write(tcp, &cli->conn, buf, sizeof(buf)), sizeof(buf));
    pair_run_for(&p, 2000);
    CHECK_EQ(cli->conn.snd_wnd, 0);
    pair_run_for(&p, 10000);
    CHECK(mip_tcp_stat(tcp, MIP_TCP_STAT_zero_window_probes) >= 2);
    CHECK(MIP_SEQ_GT(cli->conn.snd_nxt, cli->conn.snd_una));    /* a probe's byte out */
    rcv_nxt = srv->conn.rcv_nxt;
    rec_reset(0);
    p.drop = rec_hook;
    mip_tcp_abort(tcp, &cli->conn);
    pair_run_for(&p, 1000);
    for (i = 0; i < rec.n; i++)
        if (rec.flags[i] & MIP_TCP_RST) {
            rsts++;
            CHECK_EQ(rec.seq[i], rcv_nxt);
        }
    CHECK_EQ(rsts, 1);
    CHECK_EQ(srv->conn.state, MIP_TCP_CLOSED);
    CHECK_EQ(srv->errors, 1);
    CHECK_EQ(srv->error, MIP_TCP_ERR_RESET);
    p.drop = NULL;
    pair_close(&p, cli, srv, false);
}

/* Frame n (< 32) of side s is lost when bit n of lose_mask[s] is set;
 * everything else as rec_hook (which records and may drop too). */
static uint32_t lose_mask[2];

static bool lose_hook(struct pair *p, int from, unsigned n, const uint8_t *f, size_t len)
{
    bool drop = rec_hook(p, from, n, f, len);
    return drop || (n < 32u && ((lose_mask[from] >> n) & 1u) != 0);
}

/* RFC 6298 5.7. The handshake between the pair loses the client's SYN
 * (`lose` and not `passive`) or the server's SYN-ACK and the client's
 * retransmitted SYN (`lose` and `passive`, so the SYN cache's timer
 * expires), or nothing. Then the client (or the server, `passive`) sends
 * 10 bytes that are lost with every copy: the first copy goes `gap` ms
 * after the segment, the second 2 * gap after the first. */
static void first_data_rto(bool passive, bool lose, uint32_t gap)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    struct mip_addr dst = pair_addr(true, 1);
    int side = passive ? 1 : 0;
    struct app *w = passive ? srv : cli;
    struct mip_tcp *tcp = &p.side[side].tcp;
    mip_time_t t0;
    pair_init(&p, true);
    mip_tcp_config_default(&cli->cfg);
    cli->cfg.tlp = false;               /* the RTOs alone */
    cli->use_cfg = true;
    srv->cfg = cli->cfg;
    srv->use_cfg = true;
    lose_mask[0] = lose ? (passive ? 2u : 1u) : 0u;
    lose_mask[1] = lose && passive ? 1u : 0u;
    rec_reset(side);
    p.drop = lose_hook;
    CHECK_EQ(app_listen(&p.side[1].tcp, &l, 80, srv), MIP_OK);
    app_init(cli, &p.side[0].tcp);
    srv->tcp = &p.side[1].tcp;
    CHECK_EQ(mip_tcp_connect(&p.side[0].tcp, &cli->conn, &dst, 80), MIP_OK);
    pair_run(&p, 1, 2500);
    CHECK_EQ(cli->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(srv->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(p.dropped, lose ? (passive ? 2u : 1u) : 0u);
    /* the client's SYN timed out once; the server (SYN cache, not counted)
     * sent its SYN-ACK again when it timed out */
    CHECK_EQ(mip_tcp_stat(&p.side[0].tcp, MIP_TCP_STAT_timeouts), lose ? 1u : 0u);
    CHECK_EQ(p.side[1].sent, lose && passive ? 2u : 1u);
    CHECK_EQ(tcp_rtt_rto(&w->conn.rtt), gap);
    rec_reset(side);
    rec.drop[side] = true;               /* the data and every copy are lost */
    t0 = p.now;
    CHECK_EQ(mip_tcp_write(tcp, &w->conn, (const uint8_t *)"0123456789", 10), 10);
    pair_run(&p, 1, 3u * gap + 100u);
    CHECK(rec.n >= 3u);
    if (rec.n >= 3u) {
        CHECK_EQ(rec.t[0], t0);
        CHECK_EQ(rec.len[0], 10);
        CHECK_EQ(rec.len[1], 10);
        CHECK_EQ(rec.seq[1], rec.seq[0]);
        CHECK_EQ(rec.t[1] - rec.t[0], gap);
        CHECK_EQ(rec.t[2] - rec.t[1], 2u * gap);
    }
    pair_close(&p, cli, srv, false);
}

/* The active opener's SYN was lost: no RTT sample (Karn), so the data's
 * RTO is 3 s (it was 2 s before, the initial 1 s backed off once). */
static void test_data_rto_3s_after_lost_syn(void) { first_data_rto(false, true, 3000); }
/* Without the loss the SYN's RTT gives the minimum, as before. */
static void test_data_rto_from_syn_rtt_without_loss(void)
{
    first_data_rto(false, false, MIP_TCP_RTO_MIN_MS);
}
/* The passive opener's SYN-ACK timed out in the SYN cache: 3 s too. */
static void test_data_rto_3s_after_lost_synack(void) { first_data_rto(true, true, 3000); }
/* Without the loss the passive opener takes the handshake's RTT (its
 * SYN-ACK was sent once): the minimum, as the active opener. It had no
 * sample before 2026-11-29, and its first flight waited the initial 1 s. */
static void test_data_rto_from_synack_rtt_after_passive_open(void)
{
    first_data_rto(true, false, MIP_TCP_RTO_MIN_MS);
}

/* The run-time RTO floor (struct mip_tcp rto_min_ms, RFC 6298's 1 s here):
 * over a fast link whose RTO would be the compile-time 300 ms, the silent
 * peer gets its copies 1, 2 and 4 s apart (the floor backs off too). */
static void test_rto_min_runtime_floor(void)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    struct mip_tcp *tcp = &p.side[0].tcp;
    uint32_t rto, una;
    pair_init(&p, true);
    CHECK_EQ(tcp->rto_min_ms, 0);
    tcp->rto_min_ms = 1000;
    /* the RTO alone: a tail loss probe would come first (next test) */
    mip_tcp_config_default(&cli->cfg);
    cli->cfg.tlp = false;
    cli->use_cfg = true;
    connect_then_silence_client(&p, cli, srv, &l, 3, &rto, &una);
    CHECK(rto < 1000u);
    pair_run(&p, 1, 600000);
    CHECK_EQ(rec.n, 5);                   /* the segment, 3 copies, the RST */
    if (rec.n == 5) {
        CHECK_EQ(rec.seq[3], una);
        CHECK_EQ(rec.t[1] - rec.t[0], 1000);
        CHECK_EQ(rec.t[2] - rec.t[1], 2000);
        CHECK_EQ(rec.t[3] - rec.t[2], 4000);
    }
    CHECK_EQ(cli->error, MIP_TCP_ERR_TIMEOUT);
    pair_close(&p, cli, srv, false);
}

#if MIP_TCP_SACK
/* The same silent peer with the tail loss probe (RFC 8985 7, on by
 * default with SACK): the lone segment is sent again once at PTO = 2 SRTT
 * + the delayed-ACK allowance (1 ms RTT: 2 + 200 ms), before the 1 s RTO;
 * the probe is no timeout (no backoff, no retry counted) and the RTO
 * starts again from it (7.3), then backs off as before. */
static void test_probe_then_rtos_against_a_silent_peer(void)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    struct mip_tcp *tcp = &p.side[0].tcp;
    uint32_t rto, una, pto;
    pair_init(&p, true);
    tcp->rto_min_ms = 1000;
    connect_then_silence_client(&p, cli, srv, &l, 3, &rto, &una);
    CHECK(cli->conn.cfg.sack && cli->conn.cfg.tlp);
    pto = 2u * (cli->conn.rtt.srtt_x8 >> 3) + 200u;    /* RFC 8985's WCDelAckT */
    pair_run(&p, 1, 600000);
    CHECK_EQ(rec.n, 6);         /* the segment, the probe, 3 copies, the RST */
    if (rec.n == 6) {
        CHECK_EQ(rec.seq[1], una);
        CHECK_EQ(rec.len[1], 10);
        CHECK_EQ(rec.t[1] - rec.t[0], pto);
        CHECK_EQ(rec.t[2] - rec.t[1], 1000);
        CHECK_EQ(rec.t[3] - rec.t[2], 2000);
        CHECK_EQ(rec.t[4] - rec.t[3], 4000);
    }
    CHECK_EQ(mip_tcp_stat(tcp, MIP_TCP_STAT_tlp_probes), 1);
    CHECK_EQ(mip_tcp_stat(tcp, MIP_TCP_STAT_timeouts), 3);
    CHECK_EQ(cli->error, MIP_TCP_ERR_TIMEOUT);
    CHECK(tcp->tlp_conn == NULL);       /* the RTO ended the episode */
    pair_close(&p, cli, srv, false);
}
#endif

/* max_retries 255: a silent peer is retried for ever, the gaps capped at
 * MIP_TCP_RTO_MAX_MS; the count saturates instead of wrapping. */
static void test_max_retries_never_give_up(void)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    struct mip_tcp *tcp = &p.side[0].tcp;
    uint32_t rto, una;
    unsigned i;
    pair_init(&p, true);
    mip_tcp_config_default(&cli->cfg);
    cli->cfg.tlp = false;               /* the RTOs alone */
    cli->use_cfg = true;
    connect_then_silence_client(&p, cli, srv, &l, 255, &rto, &una);
    pair_run_for(&p, 20u * 60u * 1000u);  /* 20 minutes */
    for (i = 0; i < rec.n; i++) {
        CHECK_EQ(rec.flags[i] & MIP_TCP_RST, 0);
        if (i > 0)
            CHECK_EQ(rec.t[i] - rec.t[i - 1], rto_after(rto, i - 1));
    }
    CHECK_EQ(data_copies(una), rec.n);
    /* 300 ms doubling to 60 s takes 8 gaps (76.5 s), then one a minute */
    CHECK(rec.n >= 25 && rec.n <= 27);
    CHECK(rec.n >= 2 && rec.t[rec.n - 1] - rec.t[rec.n - 2] == MIP_TCP_RTO_MAX_MS);
    CHECK_EQ(cli->errors, 0);
    CHECK_EQ(cli->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(mip_tcp_stat(tcp, MIP_TCP_STAT_conns_timed_out), 0);
    /* Well past 255 timeouts (4.3 h): still going, the count saturated. */
    pair_run_for(&p, 300u * 60u * 1000u);
    CHECK_EQ(cli->conn.retries, 255);
    CHECK_EQ(cli->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(cli->errors, 0);
    /* The peer comes back: the retransmission gets through and is ACKed. */
    rec.drop[0] = false;
    pair_run_for(&p, MIP_TCP_RTO_MAX_MS + 1000u);
    CHECK_EQ(cli->conn.snd_una, una + 10u);
    CHECK_EQ(cli->conn.retries, 0);
    pair_close(&p, cli, srv, false);
}

/* --- keepalive ----------------------------------------------------------------- */

static void keepalive_setup(struct pair *p, struct app *cli, struct app *srv,
                            struct mip_tcp_listener *l)
{
    pair_init(p, true);
    mip_tcp_config_default(&cli->cfg);
    cli->cfg.keepalive_ms = 10000;
    cli->use_cfg = true;
    rec_reset(0);
    p->drop = rec_hook;
    pair_connect(p, true, cli, srv, l);
    CHECK_EQ(cli->conn.cfg.keepalive_ms, 10000);
    rec_reset(0);
}

static void test_keepalive_peer_gone(void)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    unsigned i;
    keepalive_setup(&p, cli, srv, &l);
    rec.drop[0] = rec.drop[1] = true;
    pair_run(&p, 1, 200000);
    /* Four probes (seq = snd_una - 1, no data), then RST and the end. */
    CHECK_EQ(rec.n, 5);
    CHECK_EQ(mip_tcp_stat(&p.side[0].tcp, MIP_TCP_STAT_keepalives), 4);
    for (i = 0; i < 4 && i < rec.n; i++) {
        CHECK_EQ(rec.flags[i], MIP_TCP_ACK);
        CHECK_EQ(rec.len[i], 0);
        CHECK_EQ(rec.seq[i], cli->conn.iss);
        CHECK_EQ(rec.ack[i], cli->conn.rcv_nxt);
#if MIP_TCP_TIMESTAMPS
        /* RFC 7323 3.2: with timestamps on, every non-RST segment has one. */
        CHECK(rec.ts[i]);
#endif
    }
    CHECK_EQ(rec.t[0] - cli->t_connected, 10000);
    for (i = 1; i < rec.n; i++)
        CHECK_EQ(rec.t[i] - rec.t[i - 1], 2500);
    if (rec.n == 5)
        CHECK_EQ(rec.flags[4] & MIP_TCP_RST, MIP_TCP_RST);
    CHECK_EQ(cli->closed, 1);
    CHECK_EQ(cli->errors, 1);
    CHECK_EQ(cli->error, MIP_TCP_ERR_KEEPALIVE);
    CHECK_EQ(cli->conn.error, MIP_TCP_ERR_KEEPALIVE);
    CHECK_EQ(cli->t_closed, rec.t[rec.n - 1]);
    pair_close(&p, cli, srv, false);
}

/* Keepalive turned on after the handshake (c->cfg.keepalive_ms on an
 * established, idle connection) is armed by the next poll. */
static void test_keepalive_enabled_when_established(void)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    mip_time_t t_on;
    unsigned i;
    pair_init(&p, true);
    rec_reset(0);
    p.drop = rec_hook;
    pair_connect(&p, true, cli, srv, &l);
    CHECK_EQ(cli->conn.cfg.keepalive_ms, 0);
    pair_run_for(&p, 5000);
    rec_reset(0);
    cli->conn.cfg.keepalive_ms = 10000;
    t_on = p.now;
    rec.drop[0] = rec.drop[1] = true;
    pair_run_for(&p, 200000);
    CHECK_EQ(mip_tcp_stat(&p.side[0].tcp, MIP_TCP_STAT_keepalives), 4);
    CHECK_EQ(rec.n, 5);
    if (rec.n == 5) {
        CHECK_EQ(rec.t[0] - t_on, 10000);
        for (i = 1; i < rec.n; i++)
            CHECK_EQ(rec.t[i] - rec.t[i - 1], 2500);
        CHECK_EQ(rec.flags[4] & MIP_TCP_RST, MIP_TCP_RST);
    }
    CHECK_EQ(cli->errors, 1);
    CHECK_EQ(cli->error, MIP_TCP_ERR_KEEPALIVE);
    pair_close(&p, cli, srv, false);
}

static void test_keepalive_peer_alive(void)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    uint32_t ka;
    keepalive_setup(&p, cli, srv, &l);
    pair_run_for(&p, 100000);
    ka = mip_tcp_stat(&p.side[0].tcp, MIP_TCP_STAT_keepalives);
    CHECK(ka >= 9 && ka <= 10);
    CHECK_EQ(cli->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(srv->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(cli->errors + srv->errors, 0);
    CHECK(cli->conn.ka_probes <= 1);
    /* Each probe drew the peer's ACK. */
    CHECK_EQ(mip_tcp_stat(&p.side[1].tcp, MIP_TCP_STAT_drop_out_of_window), ka);
    /* And the connection still carries data. */
    srv->read_on_readable = true;
    CHECK_EQ(mip_tcp_write(&p.side[0].tcp, &cli->conn, (const uint8_t *)"still", 5), 5);
    pair_run_for(&p, 1000);
    CHECK_EQ(srv->ngot, 5);
    pair_close(&p, cli, srv, true);
}

/* --- Nagle ---------------------------------------------------------------------- */

static void nagle(bool nodelay)
{
    struct hs *h = hs_new(true);
    struct app *a = calloc(1, sizeof(*a));
    struct sb_reply r;
    unsigned i;
    mip_tcp_config_default(&a->cfg);
    a->cfg.nodelay = nodelay;
    a->use_cfg = true;
    hs_open_passive(h, a, 40000, 100, NULL, NULL);
    hs_clear(h);
    for (i = 0; i < 5; i++)
        CHECK_EQ(mip_tcp_write(&h->tcp, &a->conn, (const uint8_t *)"0123456789", 10), 10);
    if (nodelay) {
        CHECK_EQ(hs_count(h), 5);
        for (i = 0; i < 5; i++) {
            CHECK(hs_get(h, i, &r));
            CHECK_EQ(r.len, 10);
            CHECK_EQ(r.h.seq, a->conn.iss + 1u + 10u * i);
        }
    } else {
        /* The first goes (nothing in flight); the rest wait for its ACK. */
        hs_expect_one(h, &r);
        CHECK_EQ(r.len, 10);
        hs_absorb(h, &r);
        hs_clear(h);
        hs_send_ack(h);
        hs_expect_one(h, &r);
        CHECK_EQ(r.len, 40);
        CHECK_EQ(r.h.seq, a->conn.iss + 11u);
        CHECK_EQ(r.h.flags, MIP_TCP_ACK | MIP_TCP_PSH);
        hs_absorb(h, &r);
        hs_clear(h);
        /* A full segment goes at once even with data in flight. */
        {
            uint8_t big[600];
            memset(big, 'b', sizeof(big));
            CHECK_EQ(mip_tcp_write(&h->tcp, &a->conn, big, sizeof(big)), sizeof(big));
            hs_expect_one(h, &r);
            CHECK_EQ(r.len, a->conn.cc.mss);
            CHECK_EQ(a->conn.cc.mss, 536);
        }
    }
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}

static void test_nagle_coalesces_small_writes(void) { nagle(false); }
static void test_nodelay_sends_at_once(void) { nagle(true); }

/* --- urgent data ------------------------------------------------------------------ */

static void test_urgent_data_in_band(void)
{
    struct hs *h = hs_new(true);
    struct app *a = calloc(1, sizeof(*a));
    struct sb_seg s;
    uint32_t seq;
    a->read_on_readable = true;
    hs_open_passive(h, a, 40000, 900, NULL, NULL);
    hs_send_data(h, (const uint8_t *)"ab", 2);
    seq = h->snd_nxt;
    s = hs_seg(h, MIP_TCP_ACK | MIP_TCP_PSH | MIP_TCP_URG);
    s.urg = 5;
    s.data = (const uint8_t *)"HELLOworld";
    s.len = 10;
    hs_send(h, &s);
    h->snd_nxt += 10;
    CHECK_EQ(a->ngot, 12);
    CHECK_MEM(a->got, "abHELLOworld", 12);
    CHECK_EQ(a->conn.rcv_up, seq + 5u);      /* the byte after "HELLO" */
    CHECK_EQ(a->conn.rcv_nxt, seq + 10u);
    /* A later segment without URG leaves the pointer. */
    hs_send_data(h, (const uint8_t *)"!", 1);
    CHECK_EQ(a->ngot, 13);
    CHECK_EQ(a->conn.rcv_up, seq + 5u);
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}

/* --- congestion window cap -------------------------------------------------------- */

static void test_cwnd_cap_limits_flight(void)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    struct mip_tcp *tcp = &p.side[0].tcp;
    uint8_t buf[1500];
    size_t sent = 0, total = 60000, i, bad = 0;
    unsigned rounds = 0;
    size_t limit;
    pair_init(&p, true);
    mip_tcp_config_default(&cli->cfg);
    cli->cfg.cwnd_cap = 3;
    cli->use_cfg = true;
    srv->read_on_readable = true;
    pair_connect(&p, true, cli, srv, &l);
    rec_reset(0);
    rec.sender = &cli->conn;
    p.drop = rec_hook;
    /* Keep the send ring full, so only the cap limits the flight. */
    while (sent < total && rounds++ < 10000) {
        size_t n, k;
        do {
            n = total - sent < sizeof(buf) ? total - sent : sizeof(buf);
            for (i = 0; i < n; i++)
                buf[i] = pat(sent + i);
            k = mip_tcp_write(tcp, &cli->conn, buf, n);
            sent += k;
        } while (k == n && sent < total);
        pair_run_for(&p, 1);
    }
    pair_run_for(&p, 2000);
    CHECK_EQ(srv->ngot, total);
    for (i = 0; i < srv->ngot; i++)
        bad += srv->got[i] != pat(i);
    CHECK_EQ(bad, 0);
    limit = (size_t)cli->conn.cc.mss;
#if MIP_TCP_TIMESTAMPS
    limit -= 12u;
#endif
    CHECK_EQ(rec.max_len, limit);
    CHECK_EQ(rec.fragments, 0);
    CHECK(rec.max_flight <= 3u * cli->conn.cc.mss);
    CHECK(rec.max_flight > 2u * cli->conn.cc.mss);      /* the cap was reached */
    CHECK(cli->conn.cc.cwnd <= 3u * cli->conn.cc.mss);
    pair_close(&p, cli, srv, true);
}

#if MIP_CONF_FORWARD
/* --- TSS backpressure at the sender: no cwnd growth while segments wait below --- */

static uint8_t fake_backlog;
static unsigned backlog_calls;

static uint8_t backlog_hook(void *ctx, const struct mip_tcp *tcp, const struct mip_tcp_conn *c)
{
    (void)tcp;
    CHECK(c == ctx);
    backlog_calls++;
    return fake_backlog;
}

/* Writes `n` more pattern bytes (as far as the ring takes them) and runs
 * until they are acknowledged. */
static void push_acked(struct pair *p, struct app *cli, size_t *sent, size_t n)
{
    uint8_t buf[600];
    size_t end = *sent + n, i, k, m;
    unsigned rounds = 0;
    while (*sent < end && rounds++ < 1000) {
        m = end - *sent < sizeof(buf) ? end - *sent : sizeof(buf);
        for (i = 0; i < m; i++)
            buf[i] = pat(*sent + i);
        k = mip_tcp_write(&p->side[0].tcp, &cli->conn, buf, m);
        *sent += k;
        pair_run_for(p, 5);
    }
    pair_run_for(p, 500);
    CHECK_EQ(cli->conn.snd_una, cli->conn.snd_max);
}

static void test_cwnd_hold_while_backlog(void)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    struct mip_tcp *tcp = &p.side[0].tcp;
    size_t sent = 0;
    uint32_t cw0, una0;
    pair_init(&p, true);
    mip_tcp_config_default(&cli->cfg);
    cli->cfg.delack_ms = 0;
    cli->use_cfg = true;
    srv->read_on_readable = true;
    pair_connect(&p, true, cli, srv, &l);
    tcp->cwnd_hold_backlog = 3;
    tcp->backlog = backlog_hook;
    tcp->backlog_ctx = &cli->conn;
    backlog_calls = 0;

    /* three segments wait below TCP: ACKs do not open the window */
    fake_backlog = 3;
    cw0 = cli->conn.cc.cwnd;
    una0 = cli->conn.snd_una;
    push_acked(&p, cli, &sent, 12u * cli->conn.cc.mss);
    CHECK(cli->conn.snd_una - una0 >= 12u * cli->conn.cc.mss);
    CHECK(backlog_calls > 0);
    CHECK_EQ(cli->conn.cc.cwnd, cw0);
    /* more waiting holds it too */
    fake_backlog = 200;
    push_acked(&p, cli, &sent, 3u * cli->conn.cc.mss);
    CHECK_EQ(cli->conn.cc.cwnd, cw0);
    /* fewer than three: it grows again */
    fake_backlog = 2;
    push_acked(&p, cli, &sent, 12u * cli->conn.cc.mss);
    CHECK(cli->conn.cc.cwnd > cw0);
    /* 0 turns the rule off whatever the hook says */
    cw0 = cli->conn.cc.cwnd;
    fake_backlog = 3;
    tcp->cwnd_hold_backlog = 0;
    push_acked(&p, cli, &sent, 12u * cli->conn.cc.mss);
    CHECK(cli->conn.cc.cwnd > cw0);
    CHECK_EQ(srv->ngot, sent);
    pair_close(&p, cli, srv, true);
}
#endif

int main(void)
{
    RUN(test_syn_retransmission_backoff_and_timeout);
    RUN(test_retransmission_limit_then_timeout);
    RUN(test_max_retries_never_give_up);
    RUN(test_rto_min_runtime_floor);
#if MIP_TCP_SACK
    RUN(test_probe_then_rtos_against_a_silent_peer);
#endif
    RUN(test_data_rto_3s_after_lost_syn);
    RUN(test_data_rto_from_syn_rtt_without_loss);
    RUN(test_data_rto_3s_after_lost_synack);
    RUN(test_data_rto_from_synack_rtt_after_passive_open);
    RUN(test_lone_segment_waits_for_delayed_ack);
    RUN(test_lone_segment_waits_for_longer_delayed_ack);
    RUN(test_rto_retransmission_fits_mss_and_window);
    RUN(test_rto_retransmission_with_new_data);
    RUN(test_synack_retransmission_from_syn_cache);
    RUN(test_handshake_never_gives_up_with_255);
    RUN(test_delayed_ack);
    RUN(test_out_of_order_acked_at_once_with_sack);
    RUN(test_zero_window_persist_and_resume);
    RUN(test_abort_while_probing_a_zero_window_resets_the_peer);
    RUN(test_keepalive_peer_gone);
    RUN(test_keepalive_peer_alive);
    RUN(test_keepalive_enabled_when_established);
    RUN(test_nagle_coalesces_small_writes);
    RUN(test_nodelay_sends_at_once);
    RUN(test_urgent_data_in_band);
    RUN(test_cwnd_cap_limits_flight);
#if MIP_CONF_FORWARD
    RUN(test_cwnd_hold_while_backlog);
#endif
    return TESTING_DONE();
}
