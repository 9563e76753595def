/* RFC rules of TCP input that an outside review found broken or
 * doubtful (issue 12), each checked with a hand-played peer: duplicate
 * ACKs (RFC 5681 2), which ACK sets the send window (RFC 9293 3.10.7.4;
 * two defects fuzz/fuzz_tcp_peer.c found after the review), the options a SYN-ACK agreed (RFC 7323 3.2), ICMP
 * errors against the sequence space (RFC 5927 4.1), the ACK field of a
 * segment meeting a zero window (RFC 9293 3.10.7.4), TSopt on every
 * segment (RFC 7323 3.2), TS.Recent against Last.ACK.sent (RFC 7323 4.3)
 * and data after close (RFC 1122 4.2.2.13). */
#include "tcp_pair.h"
#include "seg_builder.h"

static uint32_t stat(const struct hs *h, enum mip_tcp_stat which)
{
    return mip_tcp_stat(&h->tcp, which);
}

/* An ESTABLISHED passive connection on the IPv6 fixture; the peer's SYN
 * offered every option the profile has (`all`) or MSS 1000 only. */
static struct hs *established(struct app *a, bool all)
{
    struct hs *h = hs_new(true);
    struct mip_tcp_opts o = hs_syn_opts(h, all);
    fixture_advance(&h->f, 0);
    hs_open_passive(h, a, 40000, 1000000u, &o, NULL);
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    hs_clear(h);
    return h;
}

/* Segments carrying data that the stack sent since the last hs_clear, and
 * how many of them start at `seq`. */
static unsigned data_segs(const struct hs *h, uint32_t seq, unsigned *at_seq)
{
    unsigned i, n = 0;
    struct sb_reply r;
    *at_seq = 0;
    for (i = 0; hs_get(h, i, &r); i++) {
        if (r.len == 0)
            continue;
        n++;
        if (r.h.seq == seq)
            (*at_seq)++;
    }
    return n;
}

/* --- RFC 5681 2: what a duplicate ACK is ------------------------------------ */

/* Three ACKs of snd_una with data outstanding: duplicates (fast retransmit
 * on the third) only when the window they carry is the one in force. A
 * receiver that reads while segments are in flight sends window updates
 * with the same ACK number; before 2026-11-25 the window was taken before
 * the comparison could be made, and three such updates resent a segment. */
static void test_window_updates_are_not_duplicate_acks(void)
{
    static const struct {
        const char *name;
        uint16_t win[3];
        bool fast;
    } rows[] = {
        {"window opening (a reading receiver)", {61000, 62000, 63000}, false},
        {"window closing", {50000, 40000, 30000}, false},
        {"one update among duplicates", {65535, 60000, 60000}, false},
        {"true duplicates", {65535, 65535, 65535}, true},
    };
    unsigned k;
    for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        struct app *a = calloc(1, sizeof(*a));
        struct hs *h = established(a, false);
        uint8_t buf[4000];
        uint32_t una;
        unsigned i, at_una;
        memset(buf, 'x', sizeof(buf));
        CHECK_EQ(mip_tcp_write(&h->tcp, &a->conn, buf, sizeof(buf)), sizeof(buf));
        CHECK_EQ(data_segs(h, a->conn.snd_una, &at_una), 4);   /* the initial window */
        una = a->conn.snd_una;
        hs_clear(h);
        for (i = 0; i < 3; i++) {
            struct sb_seg s = hs_seg(h, MIP_TCP_ACK);
            s.win = rows[k].win[i];
            hs_send(h, &s);
        }
        (void)data_segs(h, una, &at_una);
        if (at_una != (rows[k].fast ? 1u : 0u) ||
            stat(h, MIP_TCP_STAT_fast_rexmits) != (rows[k].fast ? 1u : 0u))
            fprintf(stderr, "row: %s\n", rows[k].name);
        CHECK_EQ(at_una, rows[k].fast ? 1u : 0u);
        CHECK_EQ(stat(h, MIP_TCP_STAT_fast_rexmits), rows[k].fast ? 1u : 0u);
        CHECK_EQ(a->conn.snd_wnd, rows[k].win[2]);
        CHECK_EQ(a->conn.cc.in_recovery, rows[k].fast);
        mip_tcp_abort(&h->tcp, &a->conn);
        hs_free(h);
        free(a);
    }
}

#if MIP_TCP_SACK
/* RFC 6675 2: for a SACK sender an ACK that SACKs bytes not SACKed before
 * is a duplicate ACK whatever window it carries. Linux's receiver grows
 * its window while it holds out-of-order data, so by RFC 5681's rule alone
 * (the test above) its duplicate ACKs did not count, and at 10 % loss each
 * way most losses waited for a timeout (test_tcp_impairments' loss-10pct:
 * 55-80 RTOs per MB). The first segment is lost; the peer SACKs the next
 * ones as they arrive, its window opening each time. A repeated block
 * (nothing new) with a new window is still only a window update. */
static void test_new_sack_makes_a_duplicate_ack_whatever_the_window(void)
{
    static const struct {
        const char *name;
        bool grow;               /* each ACK SACKs one more segment */
        bool fast;
    } rows[] = {
        {"new SACKed bytes, window opening", true, true},
        {"the same block again, window opening", false, false},
    };
    unsigned k;
    for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        struct app *a = calloc(1, sizeof(*a));
        struct hs *h = established(a, true);
        uint8_t buf[4000];
        uint32_t una, seg;
        unsigned i, at_una, sent;
        memset(buf, 's', sizeof(buf));
        CHECK_EQ(mip_tcp_write(&h->tcp, &a->conn, buf, sizeof(buf)), sizeof(buf));
        sent = data_segs(h, a->conn.snd_una, &at_una);
        CHECK(sent >= 4);
        una = a->conn.snd_una;
        seg = (a->conn.snd_max - una) / sent;
        hs_clear(h);
        for (i = 0; i < 3; i++) {
            struct sb_seg s = hs_seg(h, MIP_TCP_ACK);
            s.win = (uint16_t)(400u + 10u * i);     /* x 128 (wscale 7): opening */
            s.opts.present |= MIP_TCP_HAS_SACK;
            s.opts.sack_count = 1;
            s.opts.sack[0].left = una + seg;
            s.opts.sack[0].right = una + seg * (2u + (rows[k].grow ? i : 0u));
            hs_send(h, &s);
        }
        (void)data_segs(h, una, &at_una);
        if (at_una != (rows[k].fast ? 1u : 0u))
            fprintf(stderr, "row: %s\n", rows[k].name);
        CHECK_EQ(at_una, rows[k].fast ? 1u : 0u);
        CHECK_EQ(stat(h, MIP_TCP_STAT_fast_rexmits), rows[k].fast ? 1u : 0u);
        CHECK_EQ(a->conn.cc.in_recovery, rows[k].fast);
        mip_tcp_abort(&h->tcp, &a->conn);
        hs_free(h);
        free(a);
    }
}
#endif

/* --- RFC 9293 3.10.7.4: which ACK moves the send window ------------------- */

/* The window is taken from a segment when SND.UNA <= SEG.ACK and the
 * segment is newer than the one it was last taken from (SND.WL1 <
 * SEG.SEQ, or SND.WL1 = SEG.SEQ and SND.WL2 <= SEG.ACK); an ACK that
 * advances SND.UNA is always newer. The peer has sent 10 bytes since its
 * ACK of all our data (WL1 is their SEG.SEQ); then comes a pure ACK at
 * its new sequence number offering window 0, its ACK field `off` from
 * SND.UNA. Below SND.UNA it is an old ACK (a reordered one, or a peer's
 * bug) and must leave the window alone: before 2026-11-25 (issue 12, found
 * by fuzz/fuzz_tcp_peer.c) only WL1 was compared, the window became 0 and
 * the stack stopped sending. At SND.UNA the window is taken (the control
 * row). */
static void test_old_ack_does_not_move_window(void)
{
    static const struct {
        const char *name;
        int32_t off;           /* SEG.ACK - SND.UNA */
        bool taken;
    } rows[] = {
        {"50 below SND.UNA", -50, false},
        {"1 below SND.UNA", -1, false},
        {"at SND.UNA (control)", 0, true},
    };
    unsigned k;
    for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        struct app *a = calloc(1, sizeof(*a));
        struct hs *h = established(a, false);
        unsigned before = testing_failures;
        uint8_t buf[300];
        struct sb_seg s;
        struct sb_reply r;
        memset(buf, 'o', sizeof(buf));
        CHECK_EQ(mip_tcp_write(&h->tcp, &a->conn, buf, sizeof(buf)), sizeof(buf));
        while (hs_next(h, &r))
            hs_absorb(h, &r);
        hs_send_ack(h);                              /* all 300 bytes */
        CHECK_EQ(a->conn.snd_una, a->conn.snd_max);
        hs_send_data(h, buf, 10);                    /* SND.WL1 = its SEG.SEQ */
        CHECK_EQ(a->conn.snd_wnd, 65535);
        s = hs_seg(h, MIP_TCP_ACK);                  /* SEG.SEQ > SND.WL1 */
        s.ack = a->conn.snd_una + (uint32_t)rows[k].off;
        s.win = 0;
        hs_send(h, &s);
        CHECK_EQ(a->conn.snd_wnd, rows[k].taken ? 0u : 65535u);
        hs_clear(h);
        CHECK_EQ(mip_tcp_write(&h->tcp, &a->conn, buf, 100), 100);
        CHECK(hs_next(h, &r) == !rows[k].taken);     /* the data goes out, or waits */
        CHECK_EQ(r.len, rows[k].taken ? 0u : 100u);
        if (testing_failures != before)
            fprintf(stderr, "row: %s\n", rows[k].name);
        mip_tcp_abort(&h->tcp, &a->conn);
        hs_free(h);
        free(a);
    }
}

/* The peer's segments arrive out of order: its second data segment first
 * (SEQ 11, ACK of nothing, a window `early_win`), so SND.WL1 is 11; then
 * its first (SEQ 1), whose ACK covers all our data and offers 65535. That
 * ACK advances SND.UNA and so is newer whatever its SEG.SEQ: its window
 * counts. Before 2026-11-25 (issue 12, found by fuzz/fuzz_tcp_peer.c)
 * SEG.SEQ < SND.WL1 kept the early window, 0 or small, until a segment
 * above SEQ 11 came: a peer that sends no more data froze the window (at
 * 0: probes, not data). */
static void test_advancing_ack_updates_window_after_reorder(void)
{
    static const struct {
        const char *name;
        uint16_t early_win;
    } rows[] = {
        {"zero window first", 0},
        {"small window first", 100},
    };
    unsigned k;
    for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        struct app *a = calloc(1, sizeof(*a));
        struct hs *h = established(a, false);
        unsigned before = testing_failures;
        uint8_t buf[500];
        uint32_t irs1 = h->snd_nxt, una = a->conn.snd_una;
        unsigned i, sent;
        struct sb_seg s;
        struct sb_reply r;
        memset(buf, 'r', sizeof(buf));
        a->read_on_readable = true;
        CHECK_EQ(mip_tcp_write(&h->tcp, &a->conn, buf, 300), 300);
        while (hs_next(h, &r))
            hs_absorb(h, &r);
        s = hs_seg(h, MIP_TCP_ACK | MIP_TCP_PSH);    /* the second segment */
        s.seq = irs1 + 10u;
        s.ack = una;
        s.win = rows[k].early_win;
        s.data = buf;
        s.len = 10;
        hs_send(h, &s);
        CHECK_EQ(a->conn.snd_wnd, rows[k].early_win);
        s = hs_seg(h, MIP_TCP_ACK | MIP_TCP_PSH);    /* the first, acknowledging all */
        s.seq = irs1;
        s.data = buf;
        s.len = 10;
        hs_send(h, &s);
        CHECK_EQ(a->conn.snd_una, una + 300u);
        CHECK_EQ(a->conn.rcv_nxt, irs1 + 20u);
        CHECK_EQ(a->conn.snd_wnd, 65535);
        hs_clear(h);
        CHECK_EQ(mip_tcp_write(&h->tcp, &a->conn, buf, 500), 500);
        for (i = 0, sent = 0; hs_get(h, i, &r); i++)
            sent += (unsigned)r.len;
        CHECK_EQ(sent, 500);                         /* not 0, not 100 */
        if (testing_failures != before)
            fprintf(stderr, "row: %s\n", rows[k].name);
        mip_tcp_abort(&h->tcp, &a->conn);
        hs_free(h);
        free(a);
    }
}

/* --- RFC 5927 4.1: ICMP errors quote a segment in flight ------------------- */

/* The peer's router reports `quoted` (an IP datagram the stack sent, its
 * first 28 or 48 bytes) as port unreachable; `seq` replaces the quoted
 * TCP sequence number. */
static void send_port_unreachable(struct hs *h, const struct fixture_frame *quoted, uint32_t seq)
{
    uint8_t l4[8 + 48], pkt[128];
    size_t qlen = h->v6 ? 48u : 28u, n;
    memset(l4, 0, 8);
    l4[0] = h->v6 ? 1u : 3u;            /* destination unreachable */
    l4[1] = h->v6 ? 4u : 3u;            /* port unreachable */
    memcpy(l4 + 8, quoted->data, qlen);
    mip_wr32(l4 + 8 + (h->v6 ? 40u : 20u) + 4u, seq);   /* the TCP header's seq */
    if (h->v6) {
        fix_l4_checksum6(l4, 8 + qlen, 2, MIP_IPPROTO_ICMPV6, h->peer, h->self);
        n = build_ipv6(pkt, h->peer, h->self, MIP_IPPROTO_ICMPV6, 64, l4, 8 + qlen);
    } else {
        mip_wr16(l4 + 2, mip_cksum_finish(mip_cksum_add(0, l4, 8 + qlen)));
        n = build_ipv4(pkt, h->peer, h->self, MIP_IPPROTO_ICMP, 64, 0, 0, 0, l4, 8 + qlen);
    }
    fixture_input(&h->f, 0, pkt, n);
}

/* A connecting client whose SYN was resent (so that a hard error may end
 * it, RFC 1122 4.2.3.9) gets port unreachable quoting its 4-tuple. Only
 * the quote of the SYN's own sequence number ends it; one outside
 * SND.UNA..SND.MAX is a forgery (an off-path host knows the ports, not the
 * ISN) and is counted. Before 2026-11-25 any quote aborted the connect. */
static void test_icmp_error_checked_against_sequence_space(void)
{
    static const struct {
        const char *name;
        bool v6;
        int32_t seq_off;           /* quoted seq - ISS */
        bool ends;
    } rows[] = {
        {"IPv6, the SYN's ISS", true, 0, true},
        {"IPv6, far outside", true, 0x40000000, false},
        {"IPv6, just after SND.MAX", true, 1, false},
        {"IPv6, just before ISS", true, -1, false},
#if MIP_CONF_IPV4
        {"IPv4, the SYN's ISS", false, 0, true},
        {"IPv4, far outside", false, -100000, false},
#endif
    };
    unsigned k;
    for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        struct hs *h = hs_new(rows[k].v6);
        struct app *a = calloc(1, sizeof(*a));
        struct mip_addr dst = hs_peer_addr(h);
        struct fixture_frame syn;
        app_init(a, &h->tcp);
        fixture_advance(&h->f, 0);
        CHECK_EQ(mip_tcp_connect(&h->tcp, &a->conn, &dst, 80), MIP_OK);
        CHECK_EQ(h->f.ntx, 1);
        syn = h->f.tx[0];
        fixture_advance(&h->f, 1000);          /* the SYN is resent */
        CHECK_EQ(a->conn.retries, 1);
        send_port_unreachable(h, &syn, a->conn.iss + (uint32_t)rows[k].seq_off);
        if ((a->conn.state == MIP_TCP_CLOSED) != rows[k].ends)
            fprintf(stderr, "row: %s\n", rows[k].name);
        CHECK_EQ(a->conn.state == MIP_TCP_CLOSED, rows[k].ends);
        CHECK_EQ(a->error, rows[k].ends ? MIP_TCP_ERR_UNREACHABLE : MIP_TCP_ERR_NONE);
        CHECK_EQ(stat(h, MIP_TCP_STAT_drop_icmp_bad_seq), rows[k].ends ? 0u : 1u);
        mip_tcp_abort(&h->tcp, &a->conn);
        hs_free(h);
        free(a);
    }
}

/* --- RFC 7323 3.2, RFC 2018: the options a SYN-ACK agreed --------------------- */

#if MIP_TCP_TIMESTAMPS && MIP_TCP_SACK
/* The SYN cache answers before accept hands in a connection, with every
 * option the peer offered. An accepted connection whose config turns
 * timestamps and SACK off still uses them: the SYN-ACK agreed, and RFC
 * 7323 3.2 requires TSopt on every segment after that. Before 2026-11-25
 * the data went without timestamps and out-of-order data drew no SACK. */
static void test_passive_open_keeps_options_its_synack_agreed(void)
{
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = hs_new(true);
    struct mip_tcp_opts o = hs_syn_opts(h, true);
    struct sb_reply synack, r;
    a->use_cfg = true;
    mip_tcp_config_default(&a->cfg);
    a->cfg.timestamps = false;
    a->cfg.sack = false;
    fixture_advance(&h->f, 0);
    hs_open_passive(h, a, 40000, 1000000u, &o, &synack);
    CHECK(synack.o.present & MIP_TCP_HAS_TIMESTAMP);
    CHECK(synack.o.present & MIP_TCP_HAS_SACK_PERM);
    CHECK_EQ(a->conn.state, MIP_TCP_ESTABLISHED);
    CHECK(a->conn.cfg.timestamps);
    CHECK(a->conn.cfg.sack);
    /* Data from the stack carries TSopt echoing the peer's clock. */
    hs_clear(h);
    CHECK_EQ(mip_tcp_write(&h->tcp, &a->conn, (const uint8_t *)"data", 4), 4);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.len, 4);
    CHECK(r.o.present & MIP_TCP_HAS_TIMESTAMP);
    CHECK_EQ(r.o.ts_ecr, h->ts_val);
    hs_absorb(h, &r);
    /* A segment after a hole draws an ACK with a SACK block. */
    hs_clear(h);
    h->snd_nxt += 100u;
    hs_send_data(h, (const uint8_t *)"later", 5);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.ack, 1000001u);
    CHECK(r.o.present & MIP_TCP_HAS_TIMESTAMP);
    CHECK(r.o.present & MIP_TCP_HAS_SACK);
    CHECK_EQ(r.o.sack_count, 1);
    CHECK_EQ(r.o.sack[0].left, 1000101u);
    CHECK_EQ(r.o.sack[0].right, 1000106u);
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}
#endif

#if MIP_TCP_SACK
/* The ACK the stack sends for a segment and its SACK blocks. */
static void expect_ack(struct hs *h, uint32_t ack, unsigned nblocks, const uint32_t (*b)[2])
{
    struct sb_reply r;
    unsigned i;
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.len, 0);
    CHECK_EQ(r.h.ack, ack);
    CHECK_EQ(r.o.present & MIP_TCP_HAS_SACK ? r.o.sack_count : 0u, nblocks);
    for (i = 0; i < nblocks && i < r.o.sack_count; i++) {
        CHECK_EQ(r.o.sack[i].left, b[i][0]);
        CHECK_EQ(r.o.sack[i].right, b[i][1]);
    }
}

/* A connection accepted with SACK agreed and ACKs at once (D-SACK as
 * `dsack`), which has taken 10 bytes from 1000001. */
static struct hs *sack_receiver(struct app *a, bool v6, bool dsack)
{
    static const uint8_t ten[10] = "0123456789";
    struct hs *h = hs_new(v6);
    struct mip_tcp_opts o = hs_syn_opts(h, true);
    a->use_cfg = true;
    mip_tcp_config_default(&a->cfg);
    a->cfg.delack_ms = 0;
    a->cfg.dsack = dsack;
    fixture_advance(&h->f, 0);
    hs_open_passive(h, a, 40000, 1000000u, &o, NULL);
    hs_send_data(h, ten, 10);
    hs_clear(h);
    return h;
}

/* RFC 2883: data that came before draws an ACK whose first SACK block
 * names it (a D-SACK), the out-of-order blocks after it; each duplicate
 * is reported once. */
static void test_duplicate_data_draws_a_dsack_block(void)
{
    static const uint8_t ten[10] = "0123456789";
    static const uint32_t whole[1][2] = {{1000001u, 1000011u}};
    static const uint32_t part[1][2] = {{1000018u, 1000021u}};
    static const uint32_t ooo[1][2] = {{1000031u, 1000041u}};
    static const uint32_t with_ooo[2][2] = {{1000001u, 1000011u}, {1000031u, 1000041u}};
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = sack_receiver(a, true, true);
    /* a whole segment again */
    h->snd_nxt = 1000001u;
    hs_send_data(h, ten, 10);
    expect_ack(h, 1000011u, 1, whole);
    /* reported once: the next in-order segment's ACK has no block */
    hs_send_data(h, ten, 10);
    expect_ack(h, 1000021u, 0, NULL);
    /* a segment whose first 3 bytes came before */
    h->snd_nxt = 1000018u;
    hs_send_data(h, ten, 10);
    expect_ack(h, 1000028u, 1, part);
    /* with a hole above: the D-SACK first, then the out-of-order block */
    h->snd_nxt = 1000031u;
    hs_send_data(h, ten, 10);
    expect_ack(h, 1000028u, 1, ooo);
    h->snd_nxt = 1000001u;
    hs_send_data(h, ten, 10);
    expect_ack(h, 1000028u, 2, with_ooo);
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}
#endif

#if MIP_TCP_SACK
/* mip_tcp_config.dsack false: a duplicate draws a plain ACK. */
static void test_dsack_off_reports_no_duplicate(void)
{
    static const uint8_t ten[10] = "0123456789";
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = sack_receiver(a, false, false);
    h->snd_nxt = 1000001u;
    hs_send_data(h, ten, 10);
    expect_ack(h, 1000011u, 0, NULL);
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}
#endif

/* --- ACKs after a timeout ------------------------------------------------------ */

/* After a retransmission timeout snd_nxt goes back to snd_una (go-back-N),
 * though the peer may hold everything up to snd_max. A bare ACK numbered
 * at snd_nxt then lies below the peer's RCV.NXT, and the peer must drop it
 * (RFC 9293 3.10.7.4) and answer with an ACK. When the peer is in the
 * same state (both timed out), its answer is out of window here too: two
 * moteip stacks traded ACKs without end (found by
 * test_both_directions_under_loss_v6 once the SYN-ACK's window changed).
 * Bare ACKs now carry snd_max, RFC 9293's SND.NXT. */
static void test_bare_ack_after_timeout_numbered_at_snd_max(void)
{
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = established(a, false);
    uint8_t buf[2000];
    uint32_t iss = a->conn.iss;
    struct sb_seg s;
    struct sb_reply r;
    memset(buf, 'x', sizeof(buf));
    CHECK_EQ(mip_tcp_write(&h->tcp, &a->conn, buf, sizeof(buf)), sizeof(buf));
    CHECK_EQ(a->conn.snd_max, iss + 2001u);
    hs_clear(h);
    fixture_advance(&h->f, 1000);                 /* RTO: the first segment again */
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.seq, iss + 1u);
    CHECK_EQ(a->conn.snd_nxt, iss + 1001u);
    /* The peer, which holds both segments, timed out too: its ACK of
     * everything is numbered below the stack's RCV.NXT. */
    hs_clear(h);
    s = hs_seg(h, MIP_TCP_ACK);
    s.seq = h->snd_nxt - 50u;
    s.ack = iss + 2001u;
    hs_send(h, &s);
    CHECK_EQ(stat(h, MIP_TCP_STAT_drop_out_of_window), 1);
    CHECK_EQ(a->conn.snd_una, iss + 1u);          /* its ACK field was not taken */
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.flags, MIP_TCP_ACK);
    CHECK_EQ(r.len, 0);
    CHECK_EQ(r.h.seq, iss + 2001u);               /* acceptable to the peer */
    CHECK_EQ(r.h.ack, h->snd_nxt);
    CHECK(!hs_next(h, &r));
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}

/* --- RFC 9293 3.10.7.4: a zero window still takes the ACK ------------------- */

/* The stack's receive ring is full (window 0) while its own data is in
 * flight; the peer's next data segment, at RCV.NXT, also acknowledges
 * that data. The data cannot be taken, but the ACK field counts ("special
 * allowance should be made to accept valid ACKs"): before 2026-11-25 the
 * whole segment was unacceptable and the stack's data waited for a pure
 * ACK. */
static void test_zero_window_still_takes_the_ack(void)
{
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h;
    static uint8_t fill[1000];
    uint32_t iss, rcv_nxt;
    struct sb_reply r;
    a->rx_size = 1000;
    h = established(a, false);
    iss = a->conn.iss;
    hs_send_data(h, fill, 500);
    hs_send_data(h, fill, 500);                  /* the ring is full */
    CHECK_EQ(a->conn.rx.len, 1000);
    rcv_nxt = a->conn.rcv_nxt;
    CHECK_EQ(mip_tcp_write(&h->tcp, &a->conn, (const uint8_t *)"reply", 5), 5);
    CHECK_EQ(a->conn.snd_max, iss + 6u);
    hs_clear(h);
    h->rcv_nxt = iss + 6u;
    hs_send_data(h, (const uint8_t *)"z", 1);    /* acknowledges "reply" */
    h->snd_nxt--;                                /* the byte was not taken */
    CHECK_EQ(a->conn.snd_una, iss + 6u);
    CHECK_EQ(a->conn.rcv_nxt, rcv_nxt);
    CHECK_EQ(a->conn.rx.len, 1000);
    CHECK(hs_next(h, &r));                       /* an ACK with window 0 */
    CHECK_EQ(r.h.flags, MIP_TCP_ACK);
    CHECK_EQ(r.h.ack, rcv_nxt);
    CHECK_EQ(r.h.window, 0);
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}

/* --- RFC 1122 4.2.2.13: data the application will not read -------------------- */

/* After mip_tcp_close the application reads nothing more: new data is lost
 * and the peer is told with RST, in FIN_WAIT_1 and FIN_WAIT_2 alike. A
 * retransmission of bytes acknowledged before the close is no new data:
 * it draws an ACK. Before 2026-11-25 new data was acknowledged and thrown
 * away, so the peer believed it delivered. */
static void test_data_after_close_draws_rst(void)
{
    static const struct {
        const char *name;
        bool fin_acked;            /* the peer acknowledged our FIN first */
        bool old;                  /* the data was acknowledged before the close */
        bool rst;
    } rows[] = {
        {"new data in FIN_WAIT_1", false, false, true},
        {"new data in FIN_WAIT_2", true, false, true},
        {"old data in FIN_WAIT_2", true, true, false},
    };
    unsigned k;
    for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        struct app *a = calloc(1, sizeof(*a));
        struct hs *h = established(a, false);
        struct sb_reply r;
        unsigned before = testing_failures;
        a->read_on_readable = true;
        hs_send_data(h, (const uint8_t *)"early", 5);
        CHECK_EQ(a->ngot, 5);
        fixture_advance(&h->f, MIP_TCP_DELACK_MAX_MS);
        CHECK_EQ(mip_tcp_close(&h->tcp, &a->conn), MIP_OK);
        CHECK_EQ(a->conn.state, MIP_TCP_FIN_WAIT_1);
        CHECK(hs_next(h, &r) || true);
        h->rcv_nxt = a->conn.snd_max - (rows[k].fin_acked ? 0u : 1u);
        if (rows[k].fin_acked) {
            hs_send_ack(h);
            CHECK_EQ(a->conn.state, MIP_TCP_FIN_WAIT_2);
        }
        hs_clear(h);
        if (rows[k].old)
            h->snd_nxt -= 5u;
        hs_send_data(h, (const uint8_t *)"late!", 5);
        CHECK(hs_next(h, &r));
        CHECK_EQ((r.h.flags & MIP_TCP_RST) != 0, rows[k].rst);
        CHECK_EQ(a->conn.state == MIP_TCP_CLOSED, rows[k].rst);
        CHECK_EQ(a->closed, rows[k].rst ? 1u : 0u);
        CHECK_EQ(a->error, rows[k].rst ? MIP_TCP_ERR_ABORTED : MIP_TCP_ERR_NONE);
        CHECK_EQ(stat(h, MIP_TCP_STAT_rst_tx), rows[k].rst ? 1u : 0u);
        if (rows[k].rst)
            CHECK_EQ(r.h.seq, a->conn.snd_max);  /* SND.NXT, past our FIN */
        CHECK_EQ(a->ngot, 5);
        if (testing_failures != before)
            fprintf(stderr, "row: %s\n", rows[k].name);
        if (a->conn.state != MIP_TCP_CLOSED)
            mip_tcp_abort(&h->tcp, &a->conn);
        hs_free(h);
        free(a);
    }
}

/* mip_tcp_close with bytes still unread: RST, not FIN (the same rule). */
static void test_close_with_unread_data_sends_rst(void)
{
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = established(a, false);
    struct sb_reply r;
    hs_send_data(h, (const uint8_t *)"unread", 6);
    CHECK_EQ(a->conn.rx.len, 6);
    hs_clear(h);
    CHECK_EQ(mip_tcp_close(&h->tcp, &a->conn), MIP_OK);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.flags & (MIP_TCP_RST | MIP_TCP_FIN), MIP_TCP_RST);
    CHECK_EQ(a->conn.state, MIP_TCP_CLOSED);
    CHECK_EQ(a->error, MIP_TCP_ERR_ABORTED);
    CHECK_EQ(a->closed, 1);
    hs_free(h);
    free(a);
}

#if MIP_TCP_TIMESTAMPS
/* --- RFC 7323 3.2 and 4.3: timestamps on every segment, TS.Recent --------------- */

/* Once timestamps are agreed, a segment without TSopt is dropped and
 * counted (RFC 7323 3.2 SHOULD; the ACK field is not taken either), but a
 * RST without one still counts. */
static void test_segment_without_timestamp_dropped(void)
{
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = established(a, true);
    struct sb_seg s;
    uint32_t iss = a->conn.iss;
    a->read_on_readable = true;
    CHECK_EQ(mip_tcp_write(&h->tcp, &a->conn, (const uint8_t *)"ping", 4), 4);
    hs_clear(h);
    s = hs_seg(h, MIP_TCP_ACK | MIP_TCP_PSH);
    s.opts.present = 0;
    s.ack = iss + 5u;
    s.data = (const uint8_t *)"bare";
    s.len = 4;
    hs_send(h, &s);
    CHECK_EQ(a->ngot, 0);
    CHECK_EQ(a->conn.snd_una, iss + 1u);
    CHECK_EQ(stat(h, MIP_TCP_STAT_drop_no_timestamp), 1);
    CHECK_EQ(h->f.ntx, 0);                       /* silently */
    /* With TSopt the same segment is taken. */
    s.opts.present = MIP_TCP_HAS_TIMESTAMP;
    hs_send(h, &s);
    CHECK_EQ(a->ngot, 4);
    CHECK_EQ(a->conn.snd_una, iss + 5u);
    /* A RST needs none. */
    s = hs_seg(h, MIP_TCP_RST);
    s.seq += 4u;
    s.opts.present = 0;
    hs_send(h, &s);
    CHECK_EQ(a->conn.state, MIP_TCP_CLOSED);
    CHECK_EQ(a->error, MIP_TCP_ERR_RESET);
    hs_free(h);
    free(a);
}

/* TS.Recent is taken only from a segment at or below Last.ACK.sent (RFC
 * 7323 4.3), so that a delayed ACK echoes the earliest segment it covers
 * and the peer's RTT sample includes the delay. The second of two
 * segments draws the ACK at once (RFC 5681 4.2): it must echo the first
 * one's TSval. Before 2026-11-25 it echoed the second's (TS.Recent was
 * taken whenever SEG.SEQ <= RCV.NXT). */
static void test_ts_recent_from_the_earliest_unacknowledged_segment(void)
{
    struct app *a = calloc(1, sizeof(*a));
    struct hs *h = established(a, true);
    struct sb_reply r;
    a->read_on_readable = true;
    h->ts_val = 780000;
    hs_send_data(h, (const uint8_t *)"one", 3);
    CHECK_EQ(h->f.ntx, 0);                       /* the ACK is delayed */
    h->ts_val = 781000;
    hs_send_data(h, (const uint8_t *)"two", 3);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.ack, h->snd_nxt);
    CHECK_EQ(r.o.ts_ecr, 780000u);
    /* Nothing delayed any more: the next segment's TSval is taken, and
     * its delayed ACK echoes it. */
    hs_clear(h);
    h->ts_val = 782000;
    hs_send_data(h, (const uint8_t *)"three", 5);
    fixture_advance(&h->f, MIP_TCP_DELACK_MAX_MS);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.ack, h->snd_nxt);
    CHECK_EQ(r.o.ts_ecr, 782000u);
    mip_tcp_abort(&h->tcp, &a->conn);
    hs_free(h);
    free(a);
}
#endif

int main(void)
{
    RUN(test_window_updates_are_not_duplicate_acks);
#if MIP_TCP_SACK
    RUN(test_new_sack_makes_a_duplicate_ack_whatever_the_window);
#endif
    RUN(test_old_ack_does_not_move_window);
    RUN(test_advancing_ack_updates_window_after_reorder);
    RUN(test_icmp_error_checked_against_sequence_space);
    RUN(test_bare_ack_after_timeout_numbered_at_snd_max);
#if MIP_TCP_TIMESTAMPS && MIP_TCP_SACK
    RUN(test_passive_open_keeps_options_its_synack_agreed);
#endif
#if MIP_TCP_SACK
    RUN(test_duplicate_data_draws_a_dsack_block);
    RUN(test_dsack_off_reports_no_duplicate);
#endif
    RUN(test_zero_window_still_takes_the_ack);
    RUN(test_data_after_close_draws_rst);
    RUN(test_close_with_unread_data_sends_rst);
#if MIP_TCP_TIMESTAMPS
    RUN(test_segment_without_timestamp_dropped);
    RUN(test_ts_recent_from_the_earliest_unacknowledged_segment);
#endif
    return TESTING_DONE();
}
