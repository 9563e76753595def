/* The tail-loss-probe episode shared by the connections of one TCP
 * instance (src/tcp/tlp.c, struct mip_tcp tlp_conn): who may probe while
 * another connection's episode is open, when the slot is taken over, and
 * that a connection's end frees it. The rules of one connection are
 * scripts in test_tcp_scripts.c. */
#include "tcp_pair.h"
#include "seg_builder.h"

#if MIP_TCP_SACK

#define MSS 100u

/* One of the stack's connections, as the peer (port 80) sees it. */
struct side {
    struct app a;
    uint32_t irs;       /* the peer's ISN */
    uint32_t una;       /* the stack's first byte the peer has not ACKed */
};

/* The peer acknowledges up to `ack` of side s's data. */
static void ack_side(struct hs *h, struct side *s, uint32_t ack)
{
    struct sb_seg g;
    memset(&g, 0, sizeof(g));
    g.sport = 80;
    g.dport = s->a.conn.lport;
    g.seq = s->irs + 1u;
    g.ack = ack;
    g.flags = MIP_TCP_ACK;
    g.win = 65535;
    hs_send(h, &g);
    s->una = ack;
}

/* An active open with SACK and MSS 100 (the handshake's RTT is 0 ms),
 * then 10 bytes ACKed 50 ms after they went: an RTT estimate, which a
 * probe needs. */
static void open_side(struct hs *h, struct side *s, uint32_t irs)
{
    struct mip_tcp_opts o;
    memset(&o, 0, sizeof(o));
    o.present = MIP_TCP_HAS_MSS | MIP_TCP_HAS_SACK_PERM;
    o.mss = MSS;
    s->irs = irs;
    hs_open_active(h, &s->a, irs, &o, NULL);
    CHECK_EQ(s->a.conn.state, MIP_TCP_ESTABLISHED);
    CHECK(s->a.conn.cfg.tlp);
    s->una = s->a.conn.snd_una;
    CHECK_EQ(mip_tcp_write(&h->tcp, &s->a.conn, (const uint8_t *)"0123456789", 10), 10);
    fixture_advance(&h->f, 50);
    ack_side(h, s, s->a.conn.snd_max);
    CHECK(s->a.conn.rtt.srtt_x8 != 0u);
}

static void write_two_segments(struct hs *h, struct side *s)
{
    static uint8_t data[2u * MSS];
    CHECK_EQ(mip_tcp_write(&h->tcp, &s->a.conn, data, sizeof(data)), (int)sizeof(data));
    CHECK_EQ(s->a.conn.snd_max - s->a.conn.snd_una, 2u * MSS);
}

/* Lets `ms` pass with every deadline on the way; returns the probes sent. */
/* The probe timeout of a flight of two segments or more (tlp.c). */
static uint32_t pto_ms(const struct side *s)
{
    uint32_t pto = 2u * (s->a.conn.rtt.srtt_x8 >> 3) + 2u;
    return pto > 10u ? pto : 10u;
}

static uint32_t probes_after(struct hs *h, uint32_t ms)
{
    uint32_t before = mip_tcp_stat(&h->tcp, MIP_TCP_STAT_tlp_probes);
    while (ms > 0)
        ms -= hs_to_next_deadline(h, ms);
    return mip_tcp_stat(&h->tcp, MIP_TCP_STAT_tlp_probes) - before;
}

/* A's probe resent its last segment with A's data still in flight: its
 * episode is work in progress, and B, with a tail of its own, gets the
 * RTO instead of a probe. Once A's data is all ACKed, A's episode can end
 * no other way, and B's next flight may probe and takes the slot over.
 * A connection's end frees the slot it holds. */
static void test_second_connection_probes_only_when_the_holder_is_idle(void)
{
    struct hs *h = hs_new(true);
    struct side *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
    uint32_t end_a;
    open_side(h, a, 1000000u);
    open_side(h, b, 2000000u);
    write_two_segments(h, a);
    CHECK_EQ(probes_after(h, pto_ms(a) - 1u), 0);
    CHECK_EQ(probes_after(h, 1), 1);    /* 2 SRTT + 2 ms: A's probe */
    CHECK(h->tcp.tlp_conn == &a->a.conn);
    end_a = a->a.conn.snd_max;

    /* A's episode holds the slot while A's data is in flight: B's tail
     * gets no probe before its RTO (300 ms). */
    write_two_segments(h, b);
    CHECK(pto_ms(b) < 250u);
    CHECK_EQ(probes_after(h, 250), 0);
    CHECK(h->tcp.tlp_conn == &a->a.conn);

    /* All of A's data ACKed, exactly to the probe's end: the episode
     * waits for a D-SACK that may still come, with nothing in flight. */
    ack_side(h, a, end_a);
    CHECK(h->tcp.tlp_conn == &a->a.conn);
    CHECK_EQ(a->a.conn.snd_una, a->a.conn.snd_max);

    /* B's tail ACKed, and a new flight of two: now it may probe, and its
     * probe takes the slot over. */
    ack_side(h, b, b->a.conn.snd_max);
    write_two_segments(h, b);
    CHECK_EQ(probes_after(h, pto_ms(b)), 1);
    CHECK(h->tcp.tlp_conn == &b->a.conn);
    CHECK_EQ(mip_tcp_stat(&h->tcp, MIP_TCP_STAT_timeouts), 0);

    mip_tcp_abort(&h->tcp, &b->a.conn);
    CHECK(h->tcp.tlp_conn == NULL);
    mip_tcp_abort(&h->tcp, &a->a.conn);
    hs_free(h);
    free(a);
    free(b);
}
#endif

int main(void)
{
#if MIP_TCP_SACK
    RUN(test_second_connection_probes_only_when_the_holder_is_idle);
#endif
    return TESTING_DONE();
}
