/* TCP defences: RFC 5961 (blind RST, SYN and data injection), PAWS
 * (RFC 7323 5), the SYN cache under a flood and SYN cookies (RFC 4987),
 * RSTs for closed ports (RFC 9293 3.10.7.1) and initial sequence numbers
 * (RFC 6528). */
#include "tcp_pair.h"
#include "seg_builder.h"

/* An ESTABLISHED passive connection with every option the profile has;
 * the peer's SYN sequence number is 1000000. */
static struct hs *established(struct app *a)
{
    struct hs *h = hs_new(true);
    struct mip_tcp_opts o = hs_syn_opts(h, true);
    fixture_advance(&h->f, 0);
    hs_open_passive(h, a, 40000, 1000000u, &o, NULL);
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    a->read_on_readable = true;
    hs_clear(h);
    return h;
}

/* Checks the stack sent exactly one segment since hs_clear: a bare ACK
 * with seq = snd_nxt and ack = rcv_nxt of connection c. */
static void expect_ack_only(struct hs *h, const struct mip_tcp_conn *c)
{
    struct sb_reply r;
    CHECK_EQ(hs_count(h), 1);
    CHECK(hs_get(h, 0, &r));
    CHECK_EQ(r.h.flags, MIP_TCP_ACK);
    CHECK_EQ(r.h.seq, c->snd_nxt);
    CHECK_EQ(r.h.ack, c->rcv_nxt);
    CHECK_EQ(r.len, 0);
}

static uint32_t stat(const struct hs *h, enum mip_tcp_stat which)
{
    return mip_tcp_stat(&h->tcp, which);
}

/* --- RFC 5961 3: RST ---------------------------------------------------------- */

static void test_rst_exact_sequence_resets(void)
{
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = established(a);
    struct sb_seg s = hs_seg(h, MIP_TCP_RST);
    s.opts.present = 0;
    hs_send(h, &s);
    CHECK_EQ(a->error, MIP_TCP_ERR_RESET);
    CHECK_EQ(a->errors, 1);
    CHECK_EQ(a->closed, 1);
    CHECK_EQ(a->conn.state, MIP_TCP_CLOSED);
    CHECK(h->tcp.conns == NULL);
    CHECK_EQ(stat(h, MIP_TCP_STAT_conns_reset), 1);
    CHECK_EQ(h->f.ntx, 0);               /* a RST is never answered */
    hs_free(h);
    free(a);
}

static void test_rst_in_window_draws_challenge_ack(void)
{
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = established(a);
    struct sb_seg s = hs_seg(h, MIP_TCP_RST | MIP_TCP_ACK);
    uint32_t rcv_nxt = a->conn.rcv_nxt;
    s.seq = h->snd_nxt + 10u;
    hs_send(h, &s);
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(a->errors + a->closed, 0);
    CHECK_EQ(stat(h, MIP_TCP_STAT_challenge_acks), 1);
    CHECK_EQ(stat(h, MIP_TCP_STAT_conns_reset), 0);
    CHECK_EQ(a->conn.rcv_nxt, rcv_nxt);
    expect_ack_only(h, &a->conn);
    /* The connection still works: data is received. */
    hs_clear(h);
    hs_send_data(h, (const uint8_t *)"alive", 5);
    CHECK_EQ(a->ngot, 5);
    CHECK_MEM(a->got, "alive", 5);
    /* And the exact RST still resets. */
    s = hs_seg(h, MIP_TCP_RST);
    hs_send(h, &s);
    CHECK_EQ(a->error, MIP_TCP_ERR_RESET);
    hs_free(h);
    free(a);
}

static void test_rst_outside_window_is_dropped_silently(void)
{
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = established(a);
    struct sb_seg s = hs_seg(h, MIP_TCP_RST);
    uint32_t oow = stat(h, MIP_TCP_STAT_drop_out_of_window);
    s.seq = h->snd_nxt + 200000u;                  /* above the window */
    hs_send(h, &s);
    s.seq = h->snd_nxt - 1u;                       /* below rcv_nxt */
    hs_send(h, &s);
    s.seq = h->snd_nxt + 0x80000000u;              /* far away */
    s.flags = MIP_TCP_RST | MIP_TCP_ACK;
    hs_send(h, &s);
    CHECK_EQ(h->f.ntx, 0);
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(a->errors, 0);
    CHECK_EQ(stat(h, MIP_TCP_STAT_drop_out_of_window), oow + 3u);
    CHECK_EQ(stat(h, MIP_TCP_STAT_challenge_acks), 0);
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}

/* --- RFC 5961 4: SYN ---------------------------------------------------------- */

static void test_syn_on_established_draws_challenge_ack(void)
{
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = established(a);
    struct sb_seg s = hs_seg(h, MIP_TCP_SYN);
    s.seq = h->snd_nxt + 5u;          /* in the window */
    hs_send(h, &s);
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(a->errors, 0);
    CHECK_EQ(stat(h, MIP_TCP_STAT_challenge_acks), 1);
    CHECK_EQ(stat(h, MIP_TCP_STAT_drop_syn_in_window), 1);
    expect_ack_only(h, &a->conn);
    /* The exact sequence number and SYN|ACK too. */
    hs_clear(h);
    s = hs_seg(h, MIP_TCP_SYN | MIP_TCP_ACK);
    hs_send(h, &s);
    CHECK_EQ(stat(h, MIP_TCP_STAT_challenge_acks), 2);
    expect_ack_only(h, &a->conn);
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    /* A SYN outside the window is answered with an ACK as well. */
    hs_clear(h);
    s = hs_seg(h, MIP_TCP_SYN);
    s.seq = h->snd_nxt - 1000u;
    hs_send(h, &s);
    expect_ack_only(h, &a->conn);
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(a->errors, 0);
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}

/* --- RFC 5961 5 / RFC 9293 3.10.7.4: the ACK field ---------------------------- */

static void test_ack_above_snd_max_dropped_with_ack(void)
{
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = established(a);
    struct sb_seg s = hs_seg(h, MIP_TCP_ACK | MIP_TCP_PSH);
    uint32_t rcv_nxt = a->conn.rcv_nxt;
    s.ack = a->conn.snd_max + 1000u;
    s.data = (const uint8_t *)"injected";
    s.len = 8;
    hs_send(h, &s);
    CHECK_EQ(a->ngot, 0);                     /* the data went with it */
    CHECK_EQ(a->conn.rcv_nxt, rcv_nxt);
    CHECK_EQ(a->conn.snd_una, a->conn.iss + 1u);
    CHECK_EQ(stat(h, MIP_TCP_STAT_drop_bad_ack), 1);
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    expect_ack_only(h, &a->conn);
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}

static void test_ack_far_below_snd_una_draws_challenge_ack(void)
{
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = established(a);
    struct sb_seg s = hs_seg(h, MIP_TCP_ACK | MIP_TCP_PSH);
    /* Beyond MAX.SND.WND (at least 64 KB; the scaled window here). */
    s.ack = a->conn.snd_una - (a->conn.snd_wnd > 65535u ? a->conn.snd_wnd : 65535u) - 1000u;
    s.data = (const uint8_t *)"injected";
    s.len = 8;
    hs_send(h, &s);
    CHECK_EQ(a->ngot, 0);
    CHECK_EQ(stat(h, MIP_TCP_STAT_challenge_acks), 1);
    CHECK_EQ(stat(h, MIP_TCP_STAT_drop_bad_ack), 1);
    expect_ack_only(h, &a->conn);
    /* An old ACK inside the acceptable range still carries data. */
    hs_clear(h);
    s.ack = a->conn.snd_una - 100u;
    s.data = (const uint8_t *)"accepted";
    hs_send(h, &s);
    CHECK_EQ(a->ngot, 8);
    CHECK_MEM(a->got, "accepted", 8);
    CHECK_EQ(stat(h, MIP_TCP_STAT_challenge_acks), 1);
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}

/* --- RFC 5961 7: the challenge-ACK budget ---------------------------------------- */

/* Bounds of one window's challenge-ACK budget (CVE-2016-5696: random). */
#define CHACK_MIN (MIP_TCP_CHALLENGE_ACK_LIMIT / 2u)
#define CHACK_MAX (MIP_TCP_CHALLENGE_ACK_LIMIT * 3u / 2u)

/* A flood of 50 in-window RSTs within a second draws exactly the window's
 * budget of challenge ACKs, between LIMIT / 2 and LIMIT * 3 / 2; the budget
 * is the instance's, shared with SYNs and bad ACKs, and refills when the
 * window has passed. */
static void test_challenge_acks_rate_limited(void)
{
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = established(a);
    struct sb_seg s;
    struct sb_reply r;
    unsigned i, n, budget;
    for (i = 0; i < 50; i++) {
        s = hs_seg(h, MIP_TCP_RST);
        s.seq = h->snd_nxt + 1u + i;
        hs_send(h, &s);
        fixture_advance(&h->f, 19);            /* 50 in 950 ms */
    }
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(a->errors, 0);
    CHECK_EQ(stat(h, MIP_TCP_STAT_drop_rst_out_of_window), 50);
    budget = stat(h, MIP_TCP_STAT_challenge_acks);
    CHECK(budget >= CHACK_MIN && budget <= CHACK_MAX);
    CHECK_EQ(stat(h, MIP_TCP_STAT_challenge_acks_limited), 50u - budget);
    n = hs_count(h);
    CHECK_EQ(n, budget);
    for (i = 0; i < n; i++) {
        CHECK(hs_get(h, i, &r));
        CHECK_EQ(r.h.flags, MIP_TCP_ACK);
        CHECK_EQ(r.h.ack, a->conn.rcv_nxt);
    }
    /* Still inside the window: a SYN and an ACK below the acceptable range
     * are not answered either. */
    hs_clear(h);
    s = hs_seg(h, MIP_TCP_SYN);
    hs_send(h, &s);
    s = hs_seg(h, MIP_TCP_ACK);
    s.ack = a->conn.snd_una - (a->conn.snd_wnd > 65535u ? a->conn.snd_wnd : 65535u) - 1000u;
    hs_send(h, &s);
    s = hs_seg(h, MIP_TCP_ACK);
    s.ack = a->conn.snd_max + 1000u;
    hs_send(h, &s);
    CHECK_EQ(h->f.ntx, 0);
    CHECK_EQ(stat(h, MIP_TCP_STAT_challenge_acks_limited), 53u - budget);
    /* The window (from the first challenge ACK) passes: answers again. */
    fixture_advance(&h->f, MIP_TCP_CHALLENGE_ACK_WINDOW_MS - 950u);
    s = hs_seg(h, MIP_TCP_RST);
    s.seq = h->snd_nxt + 7u;
    hs_send(h, &s);
    expect_ack_only(h, &a->conn);
    CHECK_EQ(stat(h, MIP_TCP_STAT_challenge_acks), budget + 1u);
    /* The connection is unharmed: data flows, the exact RST resets. */
    hs_clear(h);
    hs_send_data(h, (const uint8_t *)"alive", 5);
    CHECK_EQ(a->ngot, 5);
    s = hs_seg(h, MIP_TCP_RST);
    hs_send(h, &s);
    CHECK_EQ(a->error, MIP_TCP_ERR_RESET);
    hs_free(h);
    free(a);
}

/* Each window draws its own budget from the stack's PRNG: over 20 windows
 * every budget lies in [LIMIT / 2, LIMIT * 3 / 2], and they are not all
 * the same (an off-path host cannot count another connection's challenge
 * ACKs off a fixed budget). */
static void test_challenge_ack_budget_varies(void)
{
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = established(a);
    struct sb_seg s;
    unsigned w, i, budget, first = 0, lo = 255, hi = 0;
    bool varied = false;
    for (w = 0; w < 20; w++) {
        uint32_t before = stat(h, MIP_TCP_STAT_challenge_acks);
        for (i = 0; i < CHACK_MAX + 5u; i++) {
            s = hs_seg(h, MIP_TCP_RST);
            s.seq = h->snd_nxt + 1u + i;
            hs_send(h, &s);
        }
        budget = stat(h, MIP_TCP_STAT_challenge_acks) - before;
        CHECK(budget >= CHACK_MIN && budget <= CHACK_MAX);
        if (w == 0)
            first = budget;
        else if (budget != first)
            varied = true;
        lo = budget < lo ? budget : lo;
        hi = budget > hi ? budget : hi;
        hs_clear(h);
        fixture_advance(&h->f, MIP_TCP_CHALLENGE_ACK_WINDOW_MS);
    }
    CHECK(varied);
    CHECK(hi - lo >= 2u);
    CHECK_EQ(stat(h, MIP_TCP_STAT_drop_rst_out_of_window), 20u * (CHACK_MAX + 5u));
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(a->errors, 0);
    hs_free(h);
    free(a);
}

/* --- PAWS ------------------------------------------------------------------- */

#if MIP_TCP_TIMESTAMPS
static void test_paws_drops_old_timestamp(void)
{
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = established(a);
    struct sb_seg s;
    uint32_t rcv_nxt = a->conn.rcv_nxt;
    CHECK(h->ts);
    h->ts_val += 100;
    hs_send_data(h, (const uint8_t *)"new", 3);
    CHECK_EQ(a->ngot, 3);
    CHECK_EQ(a->conn.ts_recent, h->ts_val);
    fixture_advance(&h->f, 500);          /* the delayed ACK goes */
    hs_clear(h);
    /* A segment with an older timestamp: dropped, answered with an ACK. */
    s = hs_seg(h, MIP_TCP_ACK | MIP_TCP_PSH);
    s.opts.ts_val = h->ts_val - 50u;
    s.data = (const uint8_t *)"old";
    s.len = 3;
    hs_send(h, &s);
    CHECK_EQ(a->ngot, 3);
    CHECK_EQ(a->conn.rcv_nxt, rcv_nxt + 3u);
    CHECK_EQ(stat(h, MIP_TCP_STAT_drop_paws), 1);
    expect_ack_only(h, &a->conn);
    {
        struct sb_reply r;
        CHECK(hs_get(h, 0, &r));
        CHECK(r.o.present & MIP_TCP_HAS_TIMESTAMP);
        CHECK_EQ(r.o.ts_ecr, h->ts_val);
    }
    /* The same bytes with a current timestamp are taken. */
    s.opts.ts_val = h->ts_val;
    hs_send(h, &s);
    CHECK_EQ(a->ngot, 6);
    CHECK_MEM(a->got, "newold", 6);
    /* A RST is not subject to PAWS. */
    h->snd_nxt += 3;
    s = hs_seg(h, MIP_TCP_RST);
    s.opts.ts_val = 1;
    hs_send(h, &s);
    CHECK_EQ(a->error, MIP_TCP_ERR_RESET);
    hs_free(h);
    free(a);
}
#endif

/* --- passive open defences ----------------------------------------------------- */

static void test_accept_refused_sends_rst(void)
{
    struct hs *h = hs_new(true);
    struct app *a = calloc(1, sizeof(*a));
    struct mip_tcp_opts o = hs_syn_opts(h, false);
    struct sb_reply sa, r;
    unsigned i;
    a->refuse = true;
    hs_open_passive(h, a, 40000, 555, &o, &sa);
    CHECK_EQ(a->accepted, 1);
    CHECK_EQ(a->connected, 0);
    CHECK_EQ(stat(h, MIP_TCP_STAT_accept_refused), 1);
    hs_expect_one(h, &r);
    CHECK_EQ(r.h.flags, MIP_TCP_RST);
    CHECK_EQ(r.h.seq, sa.h.seq + 1u);
    CHECK_EQ(r.h.src_port, 80);
    CHECK_EQ(r.h.dst_port, 40000);
    CHECK(h->tcp.conns == NULL);
    for (i = 0; i < MIP_TCP_SYN_BACKLOG; i++)
        CHECK_EQ(h->tcp.syn[i].flags, 0);
    /* A repeated ACK now hits nothing: RST again, no second accept. */
    hs_clear(h);
    hs_send_ack(h);
    CHECK_EQ(a->accepted, 1);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.flags, MIP_TCP_RST);
    hs_free(h);
    free(a);
}

static void test_closed_port_gets_rst(void)
{
    struct hs *h = hs_new(true);
    struct sb_seg s;
    struct sb_reply r;
    uint8_t data[10] = {0};
    memset(&s, 0, sizeof(s));
    s.sport = 33333;
    s.dport = 81;
    s.win = 1000;

    /* SYN: RST|ACK, seq 0, ack = seq + 1. */
    s.seq = 4000000000u;
    s.flags = MIP_TCP_SYN;
    hs_send(h, &s);
    hs_expect_one(h, &r);
    CHECK_EQ(r.h.flags, MIP_TCP_RST | MIP_TCP_ACK);
    CHECK_EQ(r.h.seq, 0);
    CHECK_EQ(r.h.ack, 4000000001u);
    CHECK_EQ(r.h.src_port, 81);
    CHECK_EQ(r.h.dst_port, 33333);
    CHECK_EQ(r.len, 0);

    /* Data and FIN without ACK: ack = seq + len (+1 for the FIN). */
    s.seq = 0xFFFFFFFBu;                  /* wraps */
    s.flags = MIP_TCP_PSH | MIP_TCP_FIN;
    s.data = data;
    s.len = sizeof(data);
    hs_send(h, &s);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.flags, MIP_TCP_RST | MIP_TCP_ACK);
    CHECK_EQ(r.h.ack, 0xFFFFFFFBu + 11u);

    /* With ACK: RST with seq = the ACK field, no ACK. */
    s.flags = MIP_TCP_ACK;
    s.ack = 123456u;
    s.len = 0;
    hs_send(h, &s);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.flags, MIP_TCP_RST);
    CHECK_EQ(r.h.seq, 123456u);
    CHECK_EQ(stat(h, MIP_TCP_STAT_rst_tx), 3);

    /* A RST is never answered with RST. */
    hs_clear(h);
    s.flags = MIP_TCP_RST;
    hs_send(h, &s);
    s.flags = MIP_TCP_RST | MIP_TCP_ACK;
    hs_send(h, &s);
    s.flags = MIP_TCP_RST | MIP_TCP_SYN;
    hs_send(h, &s);
    CHECK_EQ(h->f.ntx, 0);
    CHECK_EQ(stat(h, MIP_TCP_STAT_drop_no_conn), 6);
    CHECK_EQ(stat(h, MIP_TCP_STAT_rst_tx), 3);
    hs_free(h);
}

/* A RST to a listener's port, or to a SYN cache entry with the wrong
 * sequence number, draws nothing; one with the right number frees it. */
static void test_rst_to_listener_and_syn_cache(void)
{
    struct hs *h = hs_new(true);
    struct app *a = calloc(1, sizeof(*a));
    struct sb_seg s;
    unsigned i, used = 0;
    CHECK_EQ(app_listen(&h->tcp, &h->l, 80, a), MIP_OK);
    memset(&s, 0, sizeof(s));
    s.sport = 40000;
    s.dport = 80;
    s.seq = 100;
    s.win = 1000;
    s.flags = MIP_TCP_RST;
    hs_send(h, &s);
    CHECK_EQ(h->f.ntx, 0);
    s.flags = MIP_TCP_SYN;
    hs_send(h, &s);
    CHECK_EQ(hs_count(h), 1);
    hs_clear(h);
    s.flags = MIP_TCP_RST;
    s.seq = 150;
    hs_send(h, &s);
    CHECK_EQ(h->f.ntx, 0);
    for (i = 0; i < MIP_TCP_SYN_BACKLOG; i++)
        used += h->tcp.syn[i].flags != 0;
    CHECK_EQ(used, 1);
    s.seq = 101;
    hs_send(h, &s);
    CHECK_EQ(h->f.ntx, 0);
    for (i = 0, used = 0; i < MIP_TCP_SYN_BACKLOG; i++)
        used += h->tcp.syn[i].flags != 0;
    CHECK_EQ(used, 0);
    CHECK_EQ(a->accepted, 0);
    hs_free(h);
    free(a);
}

/* --- SYN flood ------------------------------------------------------------------ */

#define FLOOD_PORT0 20000u
#define FLOOD_N (3u * MIP_TCP_SYN_BACKLOG + 5u)

static uint8_t pat(size_t i) { return (uint8_t)(i * 31u + 7u); }

/* Spoofed sources never answer: drop the stack's SYN-ACKs to them. */
static bool drop_to_flood(struct pair *p, int from, unsigned n, const uint8_t *f, size_t len)
{
    struct sb_reply r;
    (void)p; (void)n;
    return from == 1 && sb_parse(f, len, &r) && r.h.dst_port >= FLOOD_PORT0 &&
           r.h.dst_port < FLOOD_PORT0 + 100u;
}

static void flood_syn(struct pair *p, uint16_t port, uint32_t seq)
{
    uint8_t pkt[200];
    struct sb_seg s;
    size_t n;
    memset(&s, 0, sizeof(s));
    s.sport = port;
    s.dport = 80;
    s.seq = seq;
    s.flags = MIP_TCP_SYN;
    s.win = 65535;
    s.opts.present = MIP_TCP_HAS_MSS;
    s.opts.mss = 1200;
    n = sb_build(pkt, true, "fd00::1", "fd00::2", &s);
    mip_stack_input(p->side[1].s, 0, pkt, n, p->now);
}

static unsigned syn_used(const struct mip_tcp *tcp)
{
    unsigned i, n = 0;
    for (i = 0; i < MIP_TCP_SYN_BACKLOG; i++)
        n += tcp->syn[i].flags != 0;
    return n;
}

static void test_syn_flood_spares_established(void)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct app *cli2 = calloc(1, sizeof(*cli2));
    struct mip_tcp_listener l;
    struct mip_tcp *stcp;
    struct mip_addr dst = fixture_addr("fd00::2");
    uint8_t buf[1000];
    size_t sent = 0, i, bad = 0;
    unsigned k;
    pair_init(&p, true);
    p.drop = drop_to_flood;
    stcp = &p.side[1].tcp;
    CHECK_EQ(app_listen(stcp, &l, 80, srv), MIP_OK);
    srv->read_on_readable = true;
    srv->close_on_peer_fin = true;
    app_init(cli, &p.side[0].tcp);
    CHECK_EQ(mip_tcp_connect(&p.side[0].tcp, &cli->conn, &dst, 80), MIP_OK);
    pair_run(&p, 1, 50);
    CHECK_EQ(srv->conn.state, MIP_TCP_ESTABLISHED);

    /* The flood comes while the connection transfers 30000 bytes. */
    for (k = 0; sent < 30000u || k < FLOOD_N; k++) {
        if (k < FLOOD_N)
            flood_syn(&p, (uint16_t)(FLOOD_PORT0 + k), 1000u * k);
        if (sent < 30000u) {
            size_t n = 30000u - sent < sizeof(buf) ? 30000u - sent : sizeof(buf);
            for (i = 0; i < n; i++)
                buf[i] = pat(sent + i);
            sent += mip_tcp_write(&p.side[0].tcp, &cli->conn, buf, n);
        }
        pair_run_for(&p, 20);
        CHECK_EQ(srv->conn.state, MIP_TCP_ESTABLISHED);
        if (k > 2000)
            break;
    }
    CHECK_EQ(syn_used(stcp), MIP_TCP_SYN_BACKLOG);
#if MIP_TCP_SYN_COOKIES
    /* The cache full, the rest of the flood got cookies. */
    CHECK_EQ(mip_tcp_stat(stcp, MIP_TCP_STAT_syn_cache_evicted), 0);
    CHECK_EQ(mip_tcp_stat(stcp, MIP_TCP_STAT_cookies_sent), FLOOD_N - MIP_TCP_SYN_BACKLOG);
#else
    CHECK_EQ(mip_tcp_stat(stcp, MIP_TCP_STAT_syn_cache_evicted), FLOOD_N - MIP_TCP_SYN_BACKLOG);
#endif
    CHECK_EQ(mip_tcp_stat(stcp, MIP_TCP_STAT_conns_accepted), 1);
    CHECK(stcp->conns == &srv->conn && srv->conn.next == NULL);
    pair_run(&p, 1, 1000);
    CHECK_EQ(srv->ngot, 30000u);
    for (i = 0; i < srv->ngot; i++)
        bad += srv->got[i] != pat(i);
    CHECK_EQ(bad, 0);
    CHECK_EQ(cli->errors + srv->errors, 0);

    /* The first connection ends; a new handshake gets through the full
     * cache (with a cookie, or evicting one flood entry). */
    CHECK_EQ(mip_tcp_shutdown(&p.side[0].tcp, &cli->conn), MIP_OK);
    pair_run(&p, 1, 500);
    CHECK_EQ(srv->closed, 1);
    CHECK_EQ(syn_used(stcp), MIP_TCP_SYN_BACKLOG);
    srv->ngot = 0;
    app_init(cli2, &p.side[0].tcp);
    CHECK_EQ(mip_tcp_connect(&p.side[0].tcp, &cli2->conn, &dst, 80), MIP_OK);
    pair_run(&p, 1, 100);
    CHECK_EQ(cli2->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(srv->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(mip_tcp_stat(stcp, MIP_TCP_STAT_conns_accepted), 2);
#if MIP_TCP_SYN_COOKIES
    CHECK_EQ(mip_tcp_stat(stcp, MIP_TCP_STAT_cookies_sent), FLOOD_N - MIP_TCP_SYN_BACKLOG + 1u);
    CHECK_EQ(mip_tcp_stat(stcp, MIP_TCP_STAT_cookies_accepted), 1);
#else
    CHECK_EQ(mip_tcp_stat(stcp, MIP_TCP_STAT_syn_cache_evicted), FLOOD_N - MIP_TCP_SYN_BACKLOG + 1u);
#endif
    CHECK_EQ(mip_tcp_write(&p.side[0].tcp, &cli2->conn, (const uint8_t *)"after", 5), 5);
    pair_run(&p, 1, 500);
    CHECK_EQ(srv->ngot, 5);
    CHECK_MEM(srv->got, "after", 5);
    mip_tcp_abort(&p.side[0].tcp, &cli2->conn);
    pair_run(&p, 1, 100);
    CHECK_EQ(srv->error, MIP_TCP_ERR_RESET);
    /* The flood entries give up after their SYN-ACK retries. */
    pair_run(&p, 1, 100000);
    CHECK_EQ(syn_used(stcp), 0);
    pair_free(&p);
    free(cli);
    free(cli2);
    free(srv);
}


/* --- SYN cookies (RFC 4987 3.6) ----------------------------------------------------- */

#if MIP_TCP_SYN_COOKIES
/* Fills the SYN cache of the hs fixture's TCP with SYNs from ports
 * FLOOD_PORT0 + first.. of the peer's address; once it is full the rest
 * get cookies. */
static void hs_flood(struct hs *h, unsigned first, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; i++) {
        struct sb_seg s;
        memset(&s, 0, sizeof(s));
        s.sport = (uint16_t)(FLOOD_PORT0 + first + i);
        s.dport = 80;
        s.seq = 1000u * i;
        s.flags = MIP_TCP_SYN;
        s.win = 65535;
        hs_send(h, &s);
    }
}

/* A connection whose SYN met a full cache: the SYN-ACK's ISN is a cookie,
 * nothing is kept, and the ACK returning it creates the connection, with
 * the MSS the cookie names (the largest of its table not above the
 * peer's 1000: 536) and no window scaling, SACK or timestamps (no state
 * kept them). Data then flows. */
static void test_full_syn_cache_answers_with_cookie(void)
{
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = hs_new(true);
    struct mip_tcp_opts o = hs_syn_opts(h, true);
    struct sb_reply synack, r;
    unsigned i;
    CHECK_EQ(app_listen(&h->tcp, &h->l, 80, a), MIP_OK);
    fixture_advance(&h->f, 0);
    hs_flood(h, 0, MIP_TCP_SYN_BACKLOG);
    CHECK_EQ(syn_used(&h->tcp), MIP_TCP_SYN_BACKLOG);
    hs_open_passive(h, a, 40000, 1000000u, &o, &synack);
    CHECK_EQ(synack.o.present, MIP_TCP_HAS_MSS);
    CHECK_EQ(synack.h.window, APP_RING);
    CHECK_EQ(stat(h, MIP_TCP_STAT_cookies_sent), 1);
    CHECK_EQ(stat(h, MIP_TCP_STAT_cookies_accepted), 1);
    CHECK_EQ(stat(h, MIP_TCP_STAT_syn_cache_evicted), 0);
    for (i = 0; i < MIP_TCP_SYN_BACKLOG; i++)      /* the flood's entries are all there */
        CHECK(h->tcp.syn[i].flags != 0 && h->tcp.syn[i].rport != 40000);
    CHECK_EQ(a->accepted, 1);
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    CHECK_EQ(a->conn.iss, synack.h.seq);
    CHECK_EQ(a->conn.cc.mss, 536);
    CHECK_EQ(a->conn.snd_wscale, 0);
    CHECK_EQ(a->conn.rcv_wscale, 0);
    CHECK(!a->conn.cfg.timestamps);
    CHECK(!a->conn.cfg.sack);
    /* a cookie keeps no send time: no RTT sample, the initial RTO */
    CHECK_EQ(a->conn.rtt.srtt_x8, 0);
    CHECK_EQ(tcp_rtt_rto(&a->conn.rtt), MIP_TCP_RTO_INITIAL_MS);
    a->read_on_readable = true;
    hs_clear(h);
    hs_send_data(h, (const uint8_t *)"through", 7);
    CHECK_EQ(a->ngot, 7);
    CHECK_MEM(a->got, "through", 7);
    CHECK_EQ(mip_tcp_write(&h->tcp, &a->conn, (const uint8_t *)"back", 4), 4);
    while (hs_next(h, &r))
        CHECK_EQ(r.o.present & MIP_TCP_HAS_TIMESTAMP, 0);
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}

/* The peer's SYN (port 40000, ISN 5000, no option: MSS 536, the cookie's
 * index 3) meets a full SYN cache: the SYN-ACK in *synack carries a
 * cookie. *s is the SYN, for the ACK to be built from. */
static void cookie_synack(struct hs *h, struct app *a, struct sb_seg *s, struct sb_reply *synack)
{
    CHECK_EQ(app_listen(&h->tcp, &h->l, 80, a), MIP_OK);
    fixture_advance(&h->f, 0);
    hs_flood(h, 0, MIP_TCP_SYN_BACKLOG);
    memset(s, 0, sizeof(*s));
    s->sport = 40000;
    s->dport = 80;
    s->seq = 5000;
    s->flags = MIP_TCP_SYN;
    s->win = 65535;
    hs_clear(h);
    hs_send(h, s);
    CHECK(hs_next(h, synack));
    CHECK_EQ(stat(h, MIP_TCP_STAT_cookies_sent), 1);
}

/* The ACK of a cookie is checked: a cookie of this or the last clock tick
 * (65.5 s each), for this 4-tuple and the peer's ISN, creates the
 * connection; anything else while cookies are out is answered with RST, as
 * a listener answers an ACK (RFC 9293 3.10.7.2), and counted. ACKs when no
 * cookie went out for two ticks are no cookie's (drop_no_conn). */
static void test_cookie_ack_checked(void)
{
    static const struct {
        const char *name;
        uint32_t later_ms;         /* from the cookie to its ACK */
        bool refresh;              /* another cookie goes out just before */
        uint32_t ack_off, seq_off;
        uint16_t port_off;
        int result;                /* 1 accepted, 0 rejected, -1 no cookie check */
    } rows[] = {
        {"the cookie", 0, false, 0, 0, 0, 1},
        {"a tick later", 65536, false, 0, 0, 0, 1},
        {"two ticks later", 131072, true, 0, 0, 0, 0},
        {"forged ACK number", 0, false, 0x10000u, 0, 0, 0},
        {"another ISN of the peer", 0, false, 0, 100, 0, 0},
        {"another port", 0, false, 0, 0, 1, 0},
        {"no cookie out for two ticks", 131072, false, 0, 0, 0, -1},
    };
    unsigned k;
    for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        struct app *a = calloc(1, sizeof(*a));
        struct hs *h = hs_new(true);
        struct sb_seg s;
        struct sb_reply synack, r;
        unsigned before = testing_failures;
        cookie_synack(h, a, &s, &synack);
        fixture_advance(&h->f, rows[k].later_ms);
        if (rows[k].refresh)        /* the flood's entries are gone: fill again */
            hs_flood(h, 50, MIP_TCP_SYN_BACKLOG + 1u);
        hs_clear(h);
        s.sport = (uint16_t)(40000u + rows[k].port_off);
        s.seq = 5001u + rows[k].seq_off;
        s.ack = synack.h.seq + 1u + rows[k].ack_off;
        s.flags = MIP_TCP_ACK;
        hs_send(h, &s);
        CHECK_EQ(a->accepted, rows[k].result == 1 ? 1u : 0u);
        CHECK_EQ(a->conn.state, rows[k].result == 1 ? MIP_TCP_ESTABLISHED : MIP_TCP_CLOSED);
        CHECK_EQ(stat(h, MIP_TCP_STAT_cookies_accepted), rows[k].result == 1 ? 1u : 0u);
        CHECK_EQ(stat(h, MIP_TCP_STAT_cookies_rejected), rows[k].result == 0 ? 1u : 0u);
        CHECK_EQ(stat(h, MIP_TCP_STAT_drop_no_conn), rows[k].result == -1 ? 1u : 0u);
        if (rows[k].result != 1) {
            CHECK(hs_next(h, &r));
            CHECK_EQ(r.h.flags, MIP_TCP_RST);
            CHECK_EQ(r.h.seq, s.ack);
        }
        if (testing_failures != before)
            fprintf(stderr, "row: %s\n", rows[k].name);
        if (a->conn.state != MIP_TCP_CLOSED)
            mip_tcp_abort(&h->tcp, &a->conn);
        hs_free(h);
        free(a);
    }
}

/* Only the cookie's own ACK (ISN + 1) completes a handshake. Before
 * 2026-11-25 (issue 12, found by fuzz/fuzz_tcp_peer.c) the cookie was the
 * hash plus the MSS index, and any ACK that left an index below 8 was
 * taken: from 3 below to 4 above the right one (index 3), each with another
 * MSS. The index is now hashed with the rest, so each of them is refused
 * with RST and counted. */
static void test_cookie_ack_above_isn_plus_one_is_refused(void)
{
    static const int32_t offs[] = {0, 1, 2, 3, 4, 5, 7, -1, -2, -3, -4};
    unsigned k;
    for (k = 0; k < sizeof(offs) / sizeof(offs[0]); k++) {
        struct app *a = calloc(1, sizeof(*a));
        struct hs *h = hs_new(true);
        bool right = offs[k] == 0;
        struct sb_seg s;
        struct sb_reply synack, r;
        unsigned before = testing_failures;
        cookie_synack(h, a, &s, &synack);
        hs_clear(h);
        s.seq = 5001;
        s.ack = synack.h.seq + 1u + (uint32_t)offs[k];
        s.flags = MIP_TCP_ACK;
        hs_send(h, &s);
        CHECK_EQ(a->accepted, right ? 1u : 0u);
        CHECK_EQ(a->conn.state, right ? MIP_TCP_ESTABLISHED : MIP_TCP_CLOSED);
        CHECK_EQ(stat(h, MIP_TCP_STAT_cookies_accepted), right ? 1u : 0u);
        CHECK_EQ(stat(h, MIP_TCP_STAT_cookies_rejected), right ? 0u : 1u);
        if (right) {
            CHECK_EQ(a->conn.cc.mss, 536);
        } else {
            CHECK(hs_next(h, &r));
            CHECK_EQ(r.h.flags, MIP_TCP_RST);
            CHECK_EQ(r.h.seq, s.ack);
        }
        if (testing_failures != before)
            fprintf(stderr, "row: ACK = cookie + 1 %+d\n", (int)offs[k]);
        if (a->conn.state != MIP_TCP_CLOSED)
            mip_tcp_abort(&h->tcp, &a->conn);
        hs_free(h);
        free(a);
    }
}
#endif

/* While a flood keeps the SYN cache full, every legitimate handshake
 * completes: 20 connections, each with twice the cache's worth of spoofed
 * SYNs arriving between its SYN and its ACK. With cookies each gets one
 * (and the flood too); with random replacement (cookies compiled out) the
 * flood evicts most of the entries of real handshakes, whose ACK then
 * draws a RST (the "3 of 222" failed handshakes, made likely). */
static void test_handshakes_complete_while_cache_flooded(void)
{
    static struct pair p;
    struct app *cli = calloc(1, sizeof(*cli)), *srv = calloc(1, sizeof(*srv));
    struct mip_tcp_listener l;
    struct mip_addr dst = fixture_addr("fd00::2");
    unsigned k, j, ok = 0, port = 0;
    pair_init(&p, true);
    p.drop = drop_to_flood;
    CHECK_EQ(app_listen(&p.side[1].tcp, &l, 80, srv), MIP_OK);
    srv->tcp = &p.side[1].tcp;
    for (j = 0; j < MIP_TCP_SYN_BACKLOG; j++)
        flood_syn(&p, (uint16_t)(FLOOD_PORT0 + port++ % 100u), 1000u * j);
    for (k = 0; k < 20; k++) {
        app_init(cli, &p.side[0].tcp);
        CHECK_EQ(mip_tcp_connect(&p.side[0].tcp, &cli->conn, &dst, 80), MIP_OK);
        pair_deliver(&p, 0);                       /* the SYN */
        for (j = 0; j < 2u * MIP_TCP_SYN_BACKLOG; j++)
            flood_syn(&p, (uint16_t)(FLOOD_PORT0 + port++ % 100u), 7777u * j);
        pair_run(&p, 1, 50);
        if (cli->conn.state == MIP_TCP_ESTABLISHED && srv->conn.state == MIP_TCP_ESTABLISHED)
            ok++;
        if (cli->conn.state != MIP_TCP_CLOSED)
            mip_tcp_abort(&p.side[0].tcp, &cli->conn);
        pair_run(&p, 1, 50);
        if (srv->conn.state != MIP_TCP_CLOSED)
            mip_tcp_abort(&p.side[1].tcp, &srv->conn);
        pair_run(&p, 1, 50);
    }
    fprintf(stderr, "  %u of 20 handshakes completed under the flood (cookies %s)\n", ok,
            MIP_TCP_SYN_COOKIES ? "on" : "off");
#if MIP_TCP_SYN_COOKIES
    CHECK_EQ(ok, 20);
    CHECK_EQ(mip_tcp_stat(&p.side[1].tcp, MIP_TCP_STAT_syn_cache_evicted), 0);
#endif
    pair_run(&p, 1, 100000);                       /* the flood's entries expire */
    CHECK_EQ(syn_used(&p.side[1].tcp), 0);
    pair_free(&p);
    free(cli);
    free(srv);
}

/* --- initial sequence numbers ----------------------------------------------------- */

static uint32_t synack_iss(struct hs *h, uint16_t pport, uint32_t irs)
{
    struct sb_seg s;
    struct sb_reply r;
    memset(&s, 0, sizeof(s));
    s.sport = pport;
    s.dport = 80;
    s.seq = irs;
    s.flags = MIP_TCP_SYN;
    s.win = 1000;
    hs_clear(h);
    hs_send(h, &s);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.flags, MIP_TCP_SYN | MIP_TCP_ACK);
    /* Free the cache entry again. */
    s.flags = MIP_TCP_RST;
    s.seq = irs + 1u;
    hs_send(h, &s);
    CHECK_EQ(syn_used(&h->tcp), 0);
    return r.h.seq;
}

static int32_t absdiff(uint32_t a, uint32_t b)
{
    int32_t d = (int32_t)(a - b);
    return d < 0 ? -d : d;
}

static void test_isn_passive(void)
{
    struct hs *h = hs_new(true);
    struct app *a = calloc(1, sizeof(*a));
    uint32_t first, again, port_isn[4];
    unsigned i, j;
    CHECK_EQ(app_listen(&h->tcp, &h->l, 80, a), MIP_OK);
    fixture_advance(&h->f, 0);
    first = synack_iss(h, 1234, 99);
    /* The same 4-tuple later: a different ISN, ahead by the 4 us clock. */
    fixture_advance(&h->f, 1000);
    again = synack_iss(h, 1234, 99);
    CHECK(again != first);
    CHECK_EQ(again - first, 250000u);
    /* Neighbouring ports at the same moment: unrelated ISNs. */
    for (i = 0; i < 4; i++)
        port_isn[i] = synack_iss(h, (uint16_t)(2000 + i), 99);
    for (i = 0; i < 4; i++)
        for (j = i + 1; j < 4; j++)
            CHECK(absdiff(port_isn[i], port_isn[j]) > 1000000);
    CHECK(port_isn[1] - port_isn[0] != port_isn[2] - port_isn[1]);
    hs_free(h);
    free(a);
}

static void test_isn_active(void)
{
    struct hs *h = hs_new(true);
    struct app *a = calloc(1, sizeof(*a));
    struct mip_addr dst = hs_peer_addr(h);
    uint32_t isn[3];
    uint16_t port[3];
    unsigned i;
    for (i = 0; i < 3; i++) {
        struct sb_reply r;
        app_init(a, &h->tcp);
        hs_clear(h);
        fixture_advance(&h->f, 400);
        h->tcp.next_port = 50000;     /* the same 4-tuple each time */
        CHECK_EQ(mip_tcp_connect(&h->tcp, &a->conn, &dst, 80), MIP_OK);
        CHECK(hs_next(h, &r));
        isn[i] = r.h.seq;
        port[i] = r.h.src_port;
        CHECK_EQ(isn[i], a->conn.iss);
        mip_tcp_abort(&h->tcp, &a->conn);
    }
    CHECK_EQ(port[0], 50000);
    CHECK_EQ(port[1], 50000);
    CHECK(isn[0] != isn[1] && isn[1] != isn[2]);
    CHECK_EQ(isn[1] - isn[0], 100000u);
    /* Consecutive ephemeral ports: unrelated ISNs. */
    {
        struct app *b = calloc(1, sizeof(*b));
        app_init(a, &h->tcp);
        app_init(b, &h->tcp);
        CHECK_EQ(mip_tcp_connect(&h->tcp, &a->conn, &dst, 80), MIP_OK);
        CHECK_EQ(mip_tcp_connect(&h->tcp, &b->conn, &dst, 80), MIP_OK);
        CHECK_EQ(b->conn.lport, a->conn.lport + 1);
        CHECK(absdiff(a->conn.iss, b->conn.iss) > 1000000);
        mip_tcp_abort(&h->tcp, &a->conn);
        mip_tcp_abort(&h->tcp, &b->conn);
        free(b);
    }
    hs_free(h);
    free(a);
}

int main(void)
{
    RUN(test_rst_exact_sequence_resets);
    RUN(test_rst_in_window_draws_challenge_ack);
    RUN(test_rst_outside_window_is_dropped_silently);
    RUN(test_syn_on_established_draws_challenge_ack);
    RUN(test_ack_above_snd_max_dropped_with_ack);
    RUN(test_ack_far_below_snd_una_draws_challenge_ack);
    RUN(test_challenge_acks_rate_limited);
    RUN(test_challenge_ack_budget_varies);
#if MIP_TCP_TIMESTAMPS
    RUN(test_paws_drops_old_timestamp);
#endif
    RUN(test_accept_refused_sends_rst);
    RUN(test_closed_port_gets_rst);
    RUN(test_rst_to_listener_and_syn_cache);
    RUN(test_syn_flood_spares_established);
#if MIP_TCP_SYN_COOKIES
    RUN(test_full_syn_cache_answers_with_cookie);
    RUN(test_cookie_ack_checked);
    RUN(test_cookie_ack_above_isn_plus_one_is_refused);
#endif
    RUN(test_handshakes_complete_while_cache_flooded);
    RUN(test_isn_passive);
    RUN(test_isn_active);
    return TESTING_DONE();
}
