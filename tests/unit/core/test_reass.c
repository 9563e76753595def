/* Fragment reassembly, both families: orders, interleaving, slot limits,
 * overlap and duplicate policy (RFC 5722), size limits, malformed
 * fragments, timeouts with their ICMP errors, and fragmented pings. */
#include "iptest.h"

#define PORT 7777u
#define L4_MAX (MIP_REASS_SIZE + 64)

/* One UDP datagram to 192.0.2.2 / fd00::2:PORT, cut into fragments by
 * send_piece. The payload pattern is seeded by the source port, so the
 * receiver can check any datagram it gets. */
struct dgram {
    bool v6;
    uint32_t id;
    char src[24];            /* fd00::<host> or 192.0.2.<host> */
    size_t l4len;
    uint8_t l4[L4_MAX];
};

/* From source host `host`: fd00::<host>, 192.0.2.<3 + (host - 3) % 250>
 * (1 is the usual peer; others are on-link sources a test invents). */
static void make_udp_from(struct dgram *d, bool v6, unsigned host, uint32_t id, uint16_t sport,
                          size_t n)
{
    static uint8_t payload[L4_MAX];
    d->v6 = v6;
    d->id = id;
    if (v6)
        snprintf(d->src, sizeof d->src, "fd00::%x", host);
    else
        snprintf(d->src, sizeof d->src, "192.0.2.%u", host < 3 ? host : 3 + (host - 3) % 250);
    fill_pattern(payload, n, sport);
    d->l4len = build_udp(d->l4, v6, d->src, v6 ? "fd00::2" : "192.0.2.2", sport, PORT,
                         payload, n);
}

static void make_udp(struct dgram *d, bool v6, uint32_t id, uint16_t sport, size_t n)
{
    make_udp_from(d, v6, 1, id, sport, n);
}

/* Builds l4[off, off+len) as a fragment with the given MF flag into pkt;
 * returns its length. */
static size_t build_piece(uint8_t *pkt, const struct dgram *d, size_t off, size_t len, bool more)
{
    if (d->v6)
        return build_frag6(pkt, d->src, "fd00::2", 17, d->id, (uint16_t)off, more,
                           d->l4 + off, len);
    return build_frag4(pkt, d->src, "192.0.2.2", 17, (uint16_t)d->id, (uint16_t)off, more,
                       d->l4 + off, len);
}

/* Sends l4[off, off+len) as a fragment with the given MF flag. */
static void send_flagged(struct fixture *f, const struct dgram *d, size_t off, size_t len,
                         bool more)
{
    static uint8_t pkt[L4_MAX + 100];
    fixture_input(f, 0, pkt, build_piece(pkt, d, off, len, more));
}

/* Sends the first `len` bytes as the first fragment (MF), kept in `first`
 * for the tests that look for it in an ICMP error's quote; returns its
 * length. */
static size_t send_first(struct fixture *f, const struct dgram *d, size_t len, uint8_t *first)
{
    size_t n = build_piece(first, d, 0, len, true);
    fixture_input(f, 0, first, n);
    return n;
}

/* Sends l4[off, off+len) as a fragment; MF unless it reaches the end. */
static void send_piece(struct fixture *f, const struct dgram *d, size_t off, size_t len)
{
    send_flagged(f, d, off, len, off + len < d->l4len);
}

/* Sends piece `i` of `step`-byte pieces. */
static void send_nth(struct fixture *f, const struct dgram *d, size_t step, unsigned i)
{
    size_t off = i * step;
    size_t len = d->l4len - off < step ? d->l4len - off : step;
    send_piece(f, d, off, len);
}

static unsigned pieces_of(const struct dgram *d, size_t step)
{
    return (unsigned)((d->l4len + step - 1) / step);
}

/* A receiver that checks every payload against the sender's pattern. */
struct checker {
    unsigned calls, good;
    size_t last_len;
    uint16_t last_port;
};

static void checker_recv(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                         const uint8_t *data, size_t len)
{
    static uint8_t want[L4_MAX];
    struct checker *c = ctx;
    (void)s;
    c->calls++;
    c->last_len = len;
    c->last_port = m->src_port;
    fill_pattern(want, len, m->src_port);
    if (memcmp(want, data, len) == 0)
        c->good++;
}

static void init_rx(struct fixture *f, struct checker *c)
{
    fixture_init(f, false);
    memset(c, 0, sizeof(*c));
    CHECK_EQ(mip_udp_bind(f->s, PORT, checker_recv, c), MIP_OK);
}

/* init_rx, and d made as make_udp makes it. */
static void start_rx(struct fixture *f, struct checker *c, struct dgram *d, bool v6, uint32_t id,
                     uint16_t sport, size_t n)
{
    init_rx(f, c);
    make_udp(d, v6, id, sport, n);
}

static unsigned slots_used(const struct fixture *f)
{
    unsigned i, n = 0;
    for (i = 0; i < MIP_REASS_SLOTS; i++)
        n += f->s->reass[i].used != 0;
    return n;
}

/* Every ordering of 4 fragments gives exactly one delivery of the exact
 * payload. */
static void check_all_orders(bool v6, size_t payload, size_t step)
{
    static const unsigned perms[24][4] = {
        {0,1,2,3},{0,1,3,2},{0,2,1,3},{0,2,3,1},{0,3,1,2},{0,3,2,1},
        {1,0,2,3},{1,0,3,2},{1,2,0,3},{1,2,3,0},{1,3,0,2},{1,3,2,0},
        {2,0,1,3},{2,0,3,1},{2,1,0,3},{2,1,3,0},{2,3,0,1},{2,3,1,0},
        {3,0,1,2},{3,0,2,1},{3,1,0,2},{3,1,2,0},{3,2,0,1},{3,2,1,0}};
    static struct dgram d;
    struct fixture f;
    struct checker c;
    unsigned p, i;
    init_rx(&f, &c);
    for (p = 0; p < 24; p++) {
        make_udp(&d, v6, 100 + p, (uint16_t)(2000 + p), payload);
        CHECK_EQ(pieces_of(&d, step), 4);
        for (i = 0; i < 4; i++) {
            send_nth(&f, &d, step, perms[p][i]);
            CHECK_EQ(c.calls, p + (i == 3 ? 1u : 0u));
        }
        CHECK_EQ(c.last_len, payload);
        CHECK_EQ(c.last_port, 2000 + p);
    }
    CHECK_EQ(c.calls, 24);
    CHECK_EQ(c.good, 24);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_rx), 96);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_reassembled), 24);
    CHECK_EQ(slots_used(&f), 0);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

#if MIP_CONF_IPV4
static void test_ipv4_fragments_in_every_order_reassemble_once(void)
{
    check_all_orders(false, 2000, 512);     /* 2008 bytes: 512, 512, 512, 472 */
}
#endif

static void test_ipv6_fragments_in_every_order_reassemble_once(void)
{
    check_all_orders(true, 1000, 256);      /* 1008 bytes: 256, 256, 256, 240 */
}

static void test_ipv6_atomic_fragment_processed_alone(void)
{
    struct fixture f;
    struct checker c;
    struct dgram d;
    start_rx(&f, &c, &d, true, 5, 3000, 40);
    send_piece(&f, &d, 0, d.l4len);         /* offset 0, M = 0 (RFC 6946) */
    CHECK_EQ(c.calls, 1);
    CHECK_EQ(c.good, 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_rx), 0);
    CHECK_EQ(slots_used(&f), 0);
    fixture_free(&f);
}

/* MIP_REASS_SLOTS datagrams (from as many sources: one may hold only
 * MIP_REASS_PER_SRC slots), their fragments interleaved round robin. */
static void check_interleaved(const bool *v6)
{
    static struct dgram d[MIP_REASS_SLOTS];
    struct fixture f;
    struct checker c;
    unsigned i, k;
    init_rx(&f, &c);
    for (k = 0; k < MIP_REASS_SLOTS; k++)
        make_udp_from(&d[k], v6[k], 1 + k, 0x40 + k, (uint16_t)(5000 + k), 600 + 8 * k);
    for (i = 0; i < 3; i++)
        for (k = 0; k < MIP_REASS_SLOTS; k++)
            send_nth(&f, &d[k], 256, 2 - i);  /* last piece first */
    CHECK_EQ(c.calls, MIP_REASS_SLOTS);
    CHECK_EQ(c.good, MIP_REASS_SLOTS);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_reassembled), MIP_REASS_SLOTS);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_no_slot), 0);
    fixture_free(&f);
}

static void test_interleaved_datagrams_up_to_slot_count(void)
{
    bool v6[MIP_REASS_SLOTS];
    unsigned k;
    for (k = 0; k < MIP_REASS_SLOTS; k++)
        v6[k] = true;
    check_interleaved(v6);
#if MIP_CONF_IPV4
    for (k = 0; k < MIP_REASS_SLOTS; k++)
        v6[k] = k % 2 == 0;                 /* the families share the slots */
    check_interleaved(v6);
#endif
}

static void test_same_id_different_source_is_another_datagram(void)
{
    /* the key is (src, dst, id[, proto]): a fragment with the right ID from
     * another source does not join the datagram */
    struct fixture f;
    struct checker c;
    struct dgram d;
    uint8_t pkt[400];
    size_t n;
    start_rx(&f, &c, &d, true, 9, 3100, 500);
    send_nth(&f, &d, 256, 0);
    n = build_frag6(pkt, "fd00::3", "fd00::2", 17, 9, 256, false, d.l4 + 256, d.l4len - 256);
    fixture_input(&f, 0, pkt, n);
    CHECK_EQ(c.calls, 0);
    CHECK_EQ(slots_used(&f), MIP_REASS_SLOTS >= 2 ? 2 : 1);
    /* (with one slot the newer datagram takes it: reass.h) */
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_evicted), MIP_REASS_SLOTS >= 2 ? 0 : 1);
    send_nth(&f, &d, 256, 1);
    CHECK_EQ(c.calls, MIP_REASS_SLOTS >= 2 ? 1 : 0);
    CHECK_EQ(c.good, c.calls);
    fixture_free(&f);
}

static void test_one_more_datagram_than_slots_dropped_while_all_receive(void)
{
    /* every slot holds a datagram in progress (two of its three pieces) */
    static struct dgram d[MIP_REASS_SLOTS + 1];
    struct fixture f;
    struct checker c;
    unsigned k;
    init_rx(&f, &c);
    for (k = 0; k <= MIP_REASS_SLOTS; k++)
        make_udp_from(&d[k], true, 1 + k, 0x60 + k, (uint16_t)(6000 + k), 600);
    for (k = 0; k < MIP_REASS_SLOTS; k++) {
        send_nth(&f, &d[k], 256, 0);
        send_nth(&f, &d[k], 256, 1);
    }
    CHECK_EQ(slots_used(&f), MIP_REASS_SLOTS);
    send_nth(&f, &d[MIP_REASS_SLOTS], 256, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_no_slot), 1);
    send_nth(&f, &d[MIP_REASS_SLOTS], 256, 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_no_slot), 2);
    CHECK_EQ(f.ntx, 0);
    /* the datagrams holding the slots are unharmed */
    for (k = 0; k < MIP_REASS_SLOTS; k++)
        send_nth(&f, &d[k], 256, 2);
    CHECK_EQ(c.calls, MIP_REASS_SLOTS);
    CHECK_EQ(c.good, MIP_REASS_SLOTS);
    CHECK_EQ(slots_used(&f), 0);
    /* and once they are done the extra one gets a slot */
    for (k = 0; k < 3u; k++)
        send_nth(&f, &d[MIP_REASS_SLOTS], 256, k);
    CHECK_EQ(c.calls, MIP_REASS_SLOTS + 1);
    CHECK_EQ(c.last_port, 6000 + MIP_REASS_SLOTS);
    fixture_free(&f);
}

static void check_overlap_drops_datagram(bool v6)
{
    struct fixture f;
    struct checker c;
    struct dgram d;
    start_rx(&f, &c, &d, v6, 0x70, 7000, 1000);      /* 1008 bytes */
    send_piece(&f, &d, 0, 512);
    send_piece(&f, &d, 256, 512);           /* overlaps [256, 512) */
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_overlap), 1);
    CHECK_EQ(slots_used(&f), 0);            /* the whole datagram is gone */
    CHECK_EQ(c.calls, 0);
    CHECK_EQ(f.ntx, 0);
    /* an overlap with a later piece, arriving first */
    make_udp(&d, v6, 0x71, 7001, 1000);
    send_piece(&f, &d, 512, 496);
    send_piece(&f, &d, 0, 520);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_overlap), 2);
    CHECK_EQ(slots_used(&f), 0);
    /* a complete set with a new ID still works */
    make_udp(&d, v6, 0x72, 7002, 1000);
    send_piece(&f, &d, 512, 496);
    send_piece(&f, &d, 0, 512);
    CHECK_EQ(c.calls, 1);
    CHECK_EQ(c.good, 1);
    CHECK_EQ(c.last_port, 7002);
    fixture_free(&f);
}

static void test_overlapping_fragment_drops_whole_datagram(void)
{
#if MIP_CONF_IPV4
    check_overlap_drops_datagram(false);
#endif
    check_overlap_drops_datagram(true);
}

static void test_duplicate_fragment_is_an_overlap(void)
{
    /* Policy: an exact duplicate of a fragment already received is treated
     * like any overlap and ends the datagram (RFC 5722 only allows dropping
     * exact duplicates silently for IPv6; we do not keep the bytes needed
     * to tell a duplicate from a forgery). The remaining fragments then
     * start a new datagram that never completes: it lacks its first piece,
     * so its timeout sends no ICMP error. */
    struct fixture f;
    struct checker c;
    struct dgram d;
    start_rx(&f, &c, &d, true, 0x80, 8000, 1000);
    send_nth(&f, &d, 256, 0);
    send_nth(&f, &d, 256, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_overlap), 1);
    CHECK_EQ(slots_used(&f), 0);
    send_nth(&f, &d, 256, 1);
    send_nth(&f, &d, 256, 2);
    send_nth(&f, &d, 256, 3);
    CHECK_EQ(c.calls, 0);
    CHECK_EQ(slots_used(&f), 1);
    fixture_advance(&f, MIP_REASS_TIMEOUT_MS);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 1);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

static void test_datagram_of_exactly_reass_size_fits(void)
{
    static struct dgram d;
    struct fixture f;
    struct checker c;
    unsigned i;
    start_rx(&f, &c, &d, true, 0x90, 9000, MIP_REASS_SIZE - 8);
    CHECK_EQ(d.l4len, MIP_REASS_SIZE);
    for (i = 0; i < pieces_of(&d, 512); i++)
        send_nth(&f, &d, 512, i);
    CHECK_EQ(c.calls, 1);
    CHECK_EQ(c.good, 1);
    CHECK_EQ(c.last_len, MIP_REASS_SIZE - 8);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_too_big), 0);
    fixture_free(&f);
}

static void check_too_big(bool v6)
{
    static struct dgram d;
    struct fixture f;
    struct checker c;
    unsigned i, n;
    start_rx(&f, &c, &d, v6, 0x91, 9001, MIP_REASS_SIZE);  /* 8 bytes more than fits */
    n = pieces_of(&d, 512);
    /* the fragment that runs past the end goes first: no slot is taken */
    send_nth(&f, &d, 512, n - 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_too_big), 1);
    CHECK_EQ(slots_used(&f), 0);
    /* after it, with a slot open for the same datagram: the slot goes too */
    send_nth(&f, &d, 512, 0);
    CHECK_EQ(slots_used(&f), 1);
    send_nth(&f, &d, 512, n - 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_too_big), 2);
    CHECK_EQ(slots_used(&f), 0);
    for (i = 1; i + 1 < n; i++)
        send_nth(&f, &d, 512, i);
    CHECK_EQ(c.calls, 0);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

static void test_datagram_larger_than_reass_size_dropped_too_big(void)
{
#if MIP_CONF_IPV4
    check_too_big(false);
#endif
    check_too_big(true);
}

#if MIP_CONF_IPV4
static void test_ipv4_mf_fragment_not_multiple_of_8_malformed(void)
{
    struct fixture f;
    struct checker c;
    struct dgram d;
    start_rx(&f, &c, &d, false, 0xA0, 10000, 500);
    send_piece(&f, &d, 0, 100);             /* MF, 100 bytes */
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_malformed), 1);
    send_piece(&f, &d, 0, 0);               /* MF, empty */
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_malformed), 2);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_rx), 0);
    CHECK_EQ(slots_used(&f), 0);
    CHECK_EQ(f.ntx, 0);
    /* the last fragment may have any length */
    send_piece(&f, &d, 0, 104);
    send_piece(&f, &d, 104, d.l4len - 104);
    CHECK_EQ(c.calls, 1);
    CHECK_EQ(c.good, 1);
    fixture_free(&f);
}
#endif

static void test_ipv6_m_fragment_not_multiple_of_8_malformed(void)
{
    struct fixture f;
    struct checker c;
    struct dgram d;
    uint8_t pkt[200];
    size_t n;
    const uint8_t *r;
    start_rx(&f, &c, &d, true, 0xA1, 10001, 500);
    n = send_first(&f, &d, 100, pkt);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_malformed), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_rx), 0);
    CHECK_EQ(slots_used(&f), 0);
    /* RFC 8200 4.5: Parameter Problem code 0 pointing at Payload Length */
    CHECK_EQ(f.ntx, 1);
    r = f.tx[0].data;
    CHECK_EQ(r[6], 58);
    CHECK_EQ(r[40], 4);
    CHECK_EQ(r[41], 0);
    CHECK_EQ(mip_rd32(r + 44), 4);
    CHECK_MEM(r + 24, pkt + 8, 16);
    CHECK_MEM(r + 48, pkt, n);
    CHECK(ip6_l4_ok(r));
    fixture_free(&f);
}

static void check_inconsistent_end(bool v6)
{
    struct fixture f;
    struct checker c;
    struct dgram d;
    /* (offset 0 with MF clear is no fragment at all, so every "last"
     * fragment here starts later) */
    start_rx(&f, &c, &d, v6, 0xB0, 11000, 1000);     /* 1008 bytes */
    send_flagged(&f, &d, 512, 496, false);  /* last: the datagram ends at 1008 */
    send_flagged(&f, &d, 256, 248, false);  /* another "last", ending at 504 */
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_malformed), 1);
    CHECK_EQ(slots_used(&f), 0);
    /* a non-last fragment running past the known end */
    send_flagged(&f, &d, 504, 504, false);  /* last: ends at 1008 */
    send_flagged(&f, &d, 1008, 8, true);    /* [1008, 1016) */
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_malformed), 2);
    CHECK_EQ(slots_used(&f), 0);
    /* data already received past a newly learnt end */
    send_flagged(&f, &d, 512, 256, true);   /* [512, 768), more to come */
    send_flagged(&f, &d, 8, 496, false);    /* says the datagram ends at 504 */
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_malformed), 3);
    CHECK_EQ(slots_used(&f), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_overlap), 0);
    CHECK_EQ(c.calls, 0);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

static void test_inconsistent_datagram_end_dropped_malformed(void)
{
#if MIP_CONF_IPV4
    check_inconsistent_end(false);
#endif
    check_inconsistent_end(true);
}

/* --- slot pinning (issue 12): eviction and the per-source share ----- */

/* Sends the first 256-byte piece of a bogus datagram from invented source
 * `host` (never completed). */
static void send_bogus_first(struct fixture *f, bool v6, unsigned host)
{
    static struct dgram b;
    make_udp_from(&b, v6, host, 0xB000 + host, (uint16_t)(20000 + host), 600);
    send_nth(f, &b, 256, 0);
}

static void test_bogus_first_fragments_yield_their_slots(void)
{
    /* One bogus first fragment per slot from invented sources of either
     * family used to block every fragmented datagram of both families for
     * MIP_REASS_TIMEOUT_MS, and later (issue 12) for MIP_REASS_PROTECT_MS.
     * Now a new datagram takes the newest unproven one's slot at once;
     * once the others are stalled, it takes the oldest of them. */
    static const struct {
        bool bogus_v6, real_v6;
    } rows[] = {
        {true, true}, {false, true}, {true, false}, {false, false},
    };
    static struct dgram d;
    unsigned r, k, i;
    for (r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        struct fixture f;
        struct checker c;
        if (!MIP_CONF_IPV4 && (!rows[r].bogus_v6 || !rows[r].real_v6))
            continue;
        init_rx(&f, &c);
        for (k = 0; k < MIP_REASS_SLOTS; k++) {
            send_bogus_first(&f, rows[r].bogus_v6, 0x10 + k);
            fixture_advance(&f, 1);
        }
        CHECK_EQ(slots_used(&f), MIP_REASS_SLOTS);
        make_udp(&d, rows[r].real_v6, 0x1234, 7100, 1000);
        for (i = 0; i < pieces_of(&d, 256); i++)
            send_nth(&f, &d, 256, i);
        CHECK_EQ(c.calls, 1);
        CHECK_EQ(c.good, 1);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_no_slot), 0);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_evicted), 1);
        CHECK_EQ(slots_used(&f), MIP_REASS_SLOTS - 1);
        /* the others, stalled now, give way too: the oldest first, before
         * the newest (with one slot there are no others) */
        fixture_advance(&f, MIP_REASS_PROTECT_MS);
        if (MIP_REASS_SLOTS < 2) {
            fixture_free(&f);
            continue;
        }
        make_udp(&d, rows[r].real_v6, 0x1235, 7101, 1000);
        send_nth(&f, &d, 256, 0);
        CHECK_EQ(slots_used(&f), MIP_REASS_SLOTS);
        send_bogus_first(&f, rows[r].bogus_v6, 0x30);
        for (i = 1; i < pieces_of(&d, 256); i++)
            send_nth(&f, &d, 256, i);
        CHECK_EQ(c.calls, 2);
        CHECK_EQ(c.last_port, 7101);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_evicted), 2);
        CHECK_EQ(f.ntx, 0);     /* an eviction is no timeout: no ICMP error */
        fixture_free(&f);
    }
}

/* Ten forged first fragments a second from rotating invented sources of
 * both families (issue 24: three every 1.5 s answered 0 of 14 fragmented
 * pings), and a real sender's 3-fragment datagram, its fragments back to
 * back, every 700 ms for 20 s: every one completes. */
static void test_flood_of_forged_first_fragments_lets_datagrams_through(void)
{
    static struct dgram d;
    struct fixture f;
    struct checker c;
    unsigned ms, i, sent = 0, host = 0x200;
    init_rx(&f, &c);
    for (ms = 0; ms < 20000u; ms += 10u) {
        if (ms % 100u == 0u) {
            send_bogus_first(&f, (host & 1u) != 0u || !MIP_CONF_IPV4, host);
            host++;
        }
        if (ms % 700u == 350u) {
            make_udp(&d, (sent & 1u) != 0u || !MIP_CONF_IPV4, 0x5000 + sent,
                     (uint16_t)(7500 + sent), 600);
            for (i = 0; i < pieces_of(&d, 256); i++)
                send_nth(&f, &d, 256, i);
            sent++;
        }
        fixture_advance(&f, 10);
    }
    CHECK_EQ(sent, 29);
    CHECK_EQ(c.calls, sent);
    CHECK_EQ(c.good, sent);
    CHECK(fixture_stat(&f, MIP_STAT_drop_frag_evicted) >= 190u);
    fixture_free(&f);
}

/* Forged first fragments from the real sender's own address fill its
 * share; its next datagram takes the newest of them at once (issue 24: 64
 * of them delayed the sender's next fragmented ping by 2 s). */
static void test_forged_first_fragments_from_the_senders_address(void)
{
    static struct dgram b, d;
    struct fixture f;
    struct checker c;
    unsigned k, i;
    init_rx(&f, &c);
    for (k = 0; k < 64u; k++) {
        make_udp_from(&b, true, 1, 0xC000 + k, (uint16_t)(21000 + k), 600);
        send_nth(&f, &b, 256, 0);
    }
    CHECK_EQ(slots_used(&f), MIP_REASS_PER_SRC);
    make_udp(&d, true, 0x6000, 7600, 1000);
    for (i = 0; i < pieces_of(&d, 256); i++)
        send_nth(&f, &d, 256, i);
    CHECK_EQ(c.calls, 1);
    CHECK_EQ(c.good, 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_src_limit), 0);
    fixture_free(&f);
}

static void test_datagram_in_progress_survives_a_flood(void)
{
    /* The slots start full of stale bogus fragments. A real datagram takes
     * one; between each of its fragments (MIP_REASS_PROTECT_MS / 2 apart)
     * comes a flood of first fragments from new invented sources. The
     * flood may take the bogus ones' slots and churn the newest, never the
     * real one's, older than the flood's. */
    static struct dgram d;
    struct fixture f;
    struct checker c;
    unsigned k, i, host = 0x100;
    init_rx(&f, &c);
    for (k = 0; k < MIP_REASS_SLOTS; k++)
        send_bogus_first(&f, true, host++);
    fixture_advance(&f, MIP_REASS_PROTECT_MS);
    make_udp(&d, true, 0x4321, 7200, 1200);     /* 5 pieces of 256 */
    for (i = 0; i < pieces_of(&d, 256); i++) {
        send_nth(&f, &d, 256, i);
        for (k = 0; k < 20; k++)
            send_bogus_first(&f, (k & 1u) != 0 || !MIP_CONF_IPV4, host++);
        fixture_advance(&f, MIP_REASS_PROTECT_MS / 2);
    }
#if MIP_REASS_SLOTS > 1
    CHECK_EQ(c.calls, 1);
    CHECK_EQ(c.good, 1);
    CHECK_EQ(c.last_port, 7200);
    CHECK(fixture_stat(&f, MIP_STAT_drop_frag_evicted) > 20u);  /* the flood churned */
#else
    /* with one slot the real datagram is always the newest: a flood faster
     * than its fragments takes the slot (reass.h) */
    CHECK_EQ(c.calls, 0);
#endif
    fixture_free(&f);
}

static void test_one_source_holds_at_most_its_share(void)
{
    static struct dgram a[MIP_REASS_PER_SRC + 1], b;
    struct fixture f;
    struct checker c;
    unsigned k;
    init_rx(&f, &c);
    for (k = 0; k <= MIP_REASS_PER_SRC; k++)
        make_udp_from(&a[k], true, 0x20, 0xA0 + k, (uint16_t)(7300 + k), 600);
    for (k = 0; k < MIP_REASS_PER_SRC; k++) {
        send_nth(&f, &a[k], 256, 0);
        send_nth(&f, &a[k], 256, 1);            /* in progress */
        fixture_advance(&f, 1);                 /* a[0] is the oldest */
    }
    /* at its share, the source waits while its datagrams receive ... */
    send_nth(&f, &a[MIP_REASS_PER_SRC], 256, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_src_limit), 1);
    CHECK_EQ(slots_used(&f), MIP_REASS_PER_SRC);
#if MIP_REASS_SLOTS > MIP_REASS_PER_SRC
    /* ... while another source still finds a slot */
    make_udp_from(&b, true, 0x21, 0xB1, 7399, 500);
    send_nth(&f, &b, 256, 0);
    CHECK_EQ(slots_used(&f), MIP_REASS_PER_SRC + 1);
#endif
    /* once its own oldest is idle, the source's new datagram takes that
     * one (a lost fragment must not block the sender for the timeout),
     * and never another source's */
    fixture_advance(&f, MIP_REASS_PROTECT_MS);
    for (k = 0; k < 3u; k++)
        send_nth(&f, &a[MIP_REASS_PER_SRC], 256, k);
    CHECK_EQ(c.calls, 1);
    CHECK_EQ(c.last_port, 7300 + MIP_REASS_PER_SRC);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_evicted), 1);
#if MIP_REASS_SLOTS > MIP_REASS_PER_SRC
    send_nth(&f, &b, 256, 1);
    CHECK_EQ(c.calls, 2);
    CHECK_EQ(c.last_port, 7399);
#endif
    for (k = 1; k < MIP_REASS_PER_SRC; k++)
        send_nth(&f, &a[k], 256, 2);
    CHECK_EQ(c.calls, MIP_REASS_PER_SRC + (MIP_REASS_SLOTS > MIP_REASS_PER_SRC ? 1u : 0u));
    CHECK_EQ(c.good, c.calls);
    CHECK_EQ(slots_used(&f), 0);
    fixture_free(&f);
}

/* --- timeouts -------------------------------------------------------- */

#if MIP_CONF_IPV4
static void test_ipv4_timeout_sends_reassembly_time_exceeded(void)
{
    struct fixture f;
    struct checker c;
    struct dgram d;
    uint8_t first[600];
    const uint8_t *r;
    init_rx(&f, &c);
    CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_POLL_IDLE);
    make_udp(&d, false, 0xC0, 12000, 1000);
    send_first(&f, &d, 512, first);
    send_piece(&f, &d, 768, d.l4len - 768);
    CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_REASS_TIMEOUT_MS);
    CHECK_EQ(fixture_advance(&f, 1000), MIP_REASS_TIMEOUT_MS - 1000);
    CHECK_EQ(fixture_advance(&f, MIP_REASS_TIMEOUT_MS - 1001), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 0);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_advance(&f, 1), MIP_POLL_IDLE);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 1);
    CHECK_EQ(slots_used(&f), 0);
    CHECK_EQ(f.ntx, 1);
    r = f.tx[0].data;
    CHECK(ip4_hdr_ok(r));
    CHECK_EQ(r[9], 1);
    CHECK_MEM(r + 16, first + 12, 4);       /* to the source */
    CHECK_MEM(r + 12, first + 16, 4);
    CHECK_EQ(r[20], 11);                    /* time exceeded */
    CHECK_EQ(r[21], 1);                     /* fragment reassembly */
    CHECK(icmp4_ok(r));
    /* quoting the first fragment's header and its first 8 data bytes */
    CHECK_EQ(ip4_total(r), 20 + 8 + 20 + 8);
    CHECK_MEM(r + 28, first, 28);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), 1);
    /* the late piece after the timeout starts afresh and completes nothing */
    send_piece(&f, &d, 512, 256);
    CHECK_EQ(c.calls, 0);
    fixture_free(&f);
}

#endif

static void test_ipv6_timeout_sends_reassembly_time_exceeded(void)
{
    struct fixture f;
    struct checker c;
    struct dgram d;
    uint8_t first[600];
    const uint8_t *r;
    start_rx(&f, &c, &d, true, 0xC2, 12002, 1000);
    send_first(&f, &d, 512, first);
    CHECK_EQ(fixture_advance(&f, MIP_REASS_TIMEOUT_MS - 1), 1);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_advance(&f, 1), MIP_POLL_IDLE);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 1);
    CHECK_EQ(f.ntx, 1);
    r = f.tx[0].data;
    CHECK_EQ(r[6], 58);
    CHECK_MEM(r + 24, first + 8, 16);       /* to the source */
    CHECK_MEM(r + 8, first + 24, 16);
    CHECK_EQ(r[40], 3);                     /* time exceeded */
    CHECK_EQ(r[41], 1);                     /* fragment reassembly */
    CHECK(ip6_l4_ok(r));
    /* the quote is the first fragment as received: fixed header, Fragment
     * header, then data (8 bytes of it), so the source can parse it */
    CHECK_EQ(ip6_plen(r), 8 + 40 + 8 + 8);
    CHECK_MEM(r + 48, first, 40 + 8 + 8);
    fixture_free(&f);
}

/* RFC 792, RFC 8200 4.5: the error quotes the first fragment, so without
 * it a timeout sends nothing. */
static void test_timeout_without_first_fragment_sends_nothing(void)
{
    static const struct {
        bool v6;
        uint32_t id;
        uint16_t sport;
    } rows[] = {
#if MIP_CONF_IPV4
        {false, 0xC1, 12001},
#endif
        {true, 0xC3, 12003},
    };
    unsigned i;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct fixture f;
        struct checker c;
        struct dgram d;
        start_rx(&f, &c, &d, rows[i].v6, rows[i].id, rows[i].sport, 1000);
        send_piece(&f, &d, 512, d.l4len - 512);
        fixture_advance(&f, MIP_REASS_TIMEOUT_MS);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 1);
        CHECK_EQ(f.ntx, 0);
        fixture_free(&f);
    }
}

static void test_ipv6_timeout_of_fragmented_icmpv6_error_sends_nothing(void)
{
    /* RFC 4443 2.4(e.1): no error about an ICMPv6 error message, even one
     * that arrived in fragments */
    struct fixture f;
    uint8_t msg[600], pkt[700];
    size_t n;
    fixture_init(&f, false);
    memset(msg, 0, sizeof(msg));
    msg[0] = 1;                             /* destination unreachable */
    n = build_frag6(pkt, "fd00::1", "fd00::2", 58, 0xC4, 0, true, msg, 512);
    fixture_input(&f, 0, pkt, n);
    msg[0] = 128;                           /* contrast: an echo request */
    n = build_frag6(pkt, "fd00::1", "fd00::2", 58, 0xC5, 0, true, msg, 512);
    fixture_input(&f, 0, pkt, n);
    fixture_advance(&f, MIP_REASS_TIMEOUT_MS);
    /* (with one slot the echo request's datagram, the newer, took it) */
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout) +
             fixture_stat(&f, MIP_STAT_drop_frag_evicted), 2);
    CHECK_EQ(f.ntx, 1);
    if (f.ntx == 1) {
        CHECK_EQ(f.tx[0].data[40], 3);
        CHECK_EQ(f.tx[0].data[41], 1);
        CHECK_EQ(mip_rd32(f.tx[0].data + 48 + 44), 0xC5);   /* about the echo */
    }
    fixture_free(&f);
}

#if MIP_CONF_IPV4
static void test_ipv4_timeout_for_broadcast_destination_sends_nothing(void)
{
    /* RFC 1122 3.2.2: no ICMP error about a datagram sent to a broadcast
     * address, the subnet's included */
    static const char *const dsts[] = {"192.0.2.255", "255.255.255.255"};
    struct fixture f;
    uint8_t data[64], pkt[128];
    size_t n;
    unsigned i;
    fixture_init(&f, false);
    memset(data, 0, sizeof(data));
    for (i = 0; i < 2; i++) {
        n = build_frag4(pkt, "192.0.2.1", dsts[i], 17, (uint16_t)(0xC6 + i), 0, true, data, 64);
        fixture_input(&f, 0, pkt, n);
        fixture_advance(&f, MIP_REASS_TIMEOUT_MS);
    }
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 2);
    CHECK_EQ(f.ntx, 0);
    fixture_free(&f);
}

static void test_ipv4_reassembled_closed_port_quotes_first_fragment(void)
{
    struct fixture f;
    struct dgram d;
    uint8_t first[600];
    const uint8_t *r;
    fixture_init(&f, false);                /* nothing bound */
    make_udp(&d, false, 0xE0, 14000, 1000);
    send_first(&f, &d, 512, first);
    send_piece(&f, &d, 512, d.l4len - 512);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_udp_no_port), 1);
    CHECK_EQ(f.ntx, 1);
    r = f.tx[0].data;
    CHECK_EQ(r[20], 3);
    CHECK_EQ(r[21], 3);
    CHECK(icmp4_ok(r));
    /* the first fragment's header, then the datagram up to 576 bytes */
    CHECK_EQ(f.tx[0].len, 576);
    CHECK_MEM(r + 28, first, 20);
    CHECK_MEM(r + 48, d.l4, 576 - 48);
    fixture_free(&f);
}
#endif

static void test_ipv6_reassembled_closed_port_quotes_first_fragment(void)
{
    struct fixture f;
    struct dgram d;
    uint8_t first[600];
    const uint8_t *r;
    fixture_init(&f, false);
    make_udp(&d, true, 0xE1, 14001, 1000);
    send_first(&f, &d, 512, first);
    send_piece(&f, &d, 512, d.l4len - 512);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_udp_no_port), 1);
    CHECK_EQ(f.ntx, 1);
    r = f.tx[0].data;
    CHECK_EQ(r[40], 1);
    CHECK_EQ(r[41], 4);
    CHECK(ip6_l4_ok(r));
    /* fixed header and Fragment header of the first fragment, then the
     * whole UDP datagram (it fits in 1280) */
    CHECK_EQ(f.tx[0].len, 48 + 48 + d.l4len);
    CHECK_MEM(r + 48, first, 48);
    CHECK_MEM(r + 96, d.l4, d.l4len);
    fixture_free(&f);
}

static void test_ipv6_reassembled_unknown_next_header_points_at_fragment_header(void)
{
    struct fixture f;
    uint8_t data[400], first[400], pkt[400];
    const uint8_t *r;
    size_t n, m;
    fixture_init(&f, false);
    fill_pattern(data, sizeof(data), 15);
    n = build_frag6(first, "fd00::1", "fd00::2", 253, 0xE2, 0, true, data, 256);
    fixture_input(&f, 0, first, n);
    m = build_frag6(pkt, "fd00::1", "fd00::2", 253, 0xE2, 256, false, data + 256, 100);
    fixture_input(&f, 0, pkt, m);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_reassembled), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ip_unknown_proto), 1);
    CHECK_EQ(f.ntx, 1);
    r = f.tx[0].data;
    CHECK_EQ(r[40], 4);                     /* parameter problem */
    CHECK_EQ(r[41], 1);                     /* unrecognized next header */
    CHECK_EQ(mip_rd32(r + 44), 40);         /* the Fragment header's Next Header */
    CHECK_EQ(r[48 + 40], 253);              /* which the quote holds there */
    CHECK_MEM(r + 48, first, 48);
    CHECK_MEM(r + 96, data, 356);
    CHECK(ip6_l4_ok(r));
    fixture_free(&f);
}

static void test_poll_reports_time_to_earliest_deadline(void)
{
    struct fixture f;
    struct checker c;
    struct dgram d;
    start_rx(&f, &c, &d, true, 0xD0, 13000, 1000);
    send_nth(&f, &d, 512, 0);
    CHECK_EQ(fixture_advance(&f, 5000), MIP_REASS_TIMEOUT_MS - 5000);
#if MIP_REASS_SLOTS >= 2
    make_udp(&d, true, 0xD1, 13001, 1000);
    send_nth(&f, &d, 512, 0);               /* a later deadline: the first still rules */
    CHECK_EQ(fixture_advance(&f, 1000), MIP_REASS_TIMEOUT_MS - 6000);
    /* after the first expires, the second's remaining time */
    CHECK_EQ(fixture_advance(&f, MIP_REASS_TIMEOUT_MS - 6000), 5000);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 1);
    CHECK_EQ(fixture_advance(&f, 5000), MIP_POLL_IDLE);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 2);
#else
    CHECK_EQ(fixture_advance(&f, MIP_REASS_TIMEOUT_MS - 5000), MIP_POLL_IDLE);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 1);
#endif
    fixture_free(&f);
}

static void test_deadline_survives_clock_wrap(void)
{
    struct fixture f;
    struct checker c;
    struct dgram d;
    init_rx(&f, &c);
    f.now = 0xFFFFFFFFu - 1000u;            /* 1 s before the clock wraps */
    make_udp(&d, true, 0xD2, 13002, 1000);
    send_nth(&f, &d, 512, 0);
    CHECK_EQ(fixture_advance(&f, 2000), MIP_REASS_TIMEOUT_MS - 2000);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_timeout), 0);
    send_nth(&f, &d, 512, 1);
    CHECK_EQ(c.calls, 1);
    CHECK_EQ(c.good, 1);
    fixture_free(&f);
}

/* --- fragmented pings ------------------------------------------------ */

#if MIP_CONF_IPV4
static void test_ipv4_4000_byte_ping_gets_fragmented_reply(void)
{
    static uint8_t icmp[4100], pkt[1600], out[4200];
    struct fixture f;
    unsigned count = 0, i;
    size_t n, off;
    long got;
    fixture_init(&f, false);
    n = build_echo(icmp, 8, 0xBEEF, 77, 4000);       /* 4008 bytes of ICMP */
    for (off = 0; off < n; off += 1480) {
        size_t len = n - off < 1480 ? n - off : 1480;
        size_t plen = build_frag4(pkt, "192.0.2.1", "192.0.2.2", 1, 0x4000, (uint16_t)off,
                                  off + len < n, icmp + off, len);
        fixture_input(&f, 0, pkt, plen);
    }
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_reassembled), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 1);
    CHECK_EQ(f.ntx, 3);
    for (i = 0; i < f.ntx; i++) {
        CHECK(f.tx[i].len <= FIXTURE_MTU);
        CHECK_EQ(ip4_off(f.tx[i].data), i * 1480u);
        CHECK_EQ(ip4_mf(f.tx[i].data), i < 2);
    }
    got = reasm4(&f, 0, ip4_id(f.tx[0].data), out, sizeof(out), &count);
    CHECK_EQ(got, 4008);
    CHECK_EQ(count, 3);
    CHECK_EQ(out[0], 0);
    CHECK_EQ(out[1], 0);
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(0, out, 4008)), 0);
    CHECK_MEM(out + 4, icmp + 4, 4004);     /* id, seq, every data byte */
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_tx), 3);
    fixture_free(&f);
}
#endif

#define PING6_DATA MIP_PROFILE_DEFAULT(1200, 4000)

static void test_ipv6_fragmented_ping_gets_reply(void)
{
    /* tiny: a 1200-byte ping arrives in two fragments and its reply fits
     * the MTU; full: a 4000-byte ping's reply is fragmented too */
    static uint8_t icmp[PING6_DATA + 8], pkt[1600];
    struct fixture f;
    size_t n, off;
    fixture_init(&f, false);
    n = build_echo(icmp, 128, 0xBEEF, 78, PING6_DATA);
    fix_l4_checksum6(icmp, n, 2, 58, "fd00::1", "fd00::2");
    for (off = 0; off < n; off += 1024) {
        size_t len = n - off < 1024 ? n - off : 1024;
        size_t plen = build_frag6(pkt, "fd00::1", "fd00::2", 58, 0x6000, (uint16_t)off,
                                  off + len < n, icmp + off, len);
        fixture_input(&f, 0, pkt, plen);
    }
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_reassembled), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 1);
#if PING6_DATA + 48 <= FIXTURE_MTU
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].len, 40 + n);
    CHECK_EQ(f.tx[0].data[40], 129);
    CHECK(ip6_l4_ok(f.tx[0].data));
    CHECK_MEM(f.tx[0].data + 44, icmp + 4, n - 4);
#else
    {
        static uint8_t out[PING6_DATA + 100];
        const size_t chunk = ((FIXTURE_MTU - 48) / 8) * 8;
        unsigned count = 0;
        uint8_t nh = 0;
        long got;
        CHECK_EQ(f.ntx, (n + chunk - 1) / chunk);
        got = reasm6(&f, 0, mip_rd32(f.tx[0].data + 44), out, sizeof(out), &count, &nh);
        CHECK_EQ(got, (long)n);
        CHECK_EQ(count, f.ntx);
        CHECK_EQ(nh, 58);
        CHECK_EQ(out[0], 129);
        CHECK(l4_ok6(f.tx[0].data + 8, f.tx[0].data + 24, 58, out, n));
        CHECK_MEM(out + 4, icmp + 4, n - 4);
    }
#endif
    fixture_free(&f);
}

int main(void)
{
#if MIP_CONF_IPV4
    RUN(test_ipv4_fragments_in_every_order_reassemble_once);
#endif
    RUN(test_ipv6_fragments_in_every_order_reassemble_once);
    RUN(test_ipv6_atomic_fragment_processed_alone);
    RUN(test_interleaved_datagrams_up_to_slot_count);
    RUN(test_same_id_different_source_is_another_datagram);
    RUN(test_one_more_datagram_than_slots_dropped_while_all_receive);
    RUN(test_bogus_first_fragments_yield_their_slots);
    RUN(test_flood_of_forged_first_fragments_lets_datagrams_through);
    RUN(test_forged_first_fragments_from_the_senders_address);
    RUN(test_datagram_in_progress_survives_a_flood);
    RUN(test_one_source_holds_at_most_its_share);
    RUN(test_overlapping_fragment_drops_whole_datagram);
    RUN(test_duplicate_fragment_is_an_overlap);
    RUN(test_datagram_of_exactly_reass_size_fits);
    RUN(test_datagram_larger_than_reass_size_dropped_too_big);
#if MIP_CONF_IPV4
    RUN(test_ipv4_mf_fragment_not_multiple_of_8_malformed);
#endif
    RUN(test_ipv6_m_fragment_not_multiple_of_8_malformed);
    RUN(test_inconsistent_datagram_end_dropped_malformed);
#if MIP_CONF_IPV4
    RUN(test_ipv4_timeout_sends_reassembly_time_exceeded);
#endif
    RUN(test_ipv6_timeout_sends_reassembly_time_exceeded);
    RUN(test_timeout_without_first_fragment_sends_nothing);
    RUN(test_ipv6_timeout_of_fragmented_icmpv6_error_sends_nothing);
#if MIP_CONF_IPV4
    RUN(test_ipv4_timeout_for_broadcast_destination_sends_nothing);
    RUN(test_ipv4_reassembled_closed_port_quotes_first_fragment);
#endif
    RUN(test_ipv6_reassembled_closed_port_quotes_first_fragment);
    RUN(test_ipv6_reassembled_unknown_next_header_points_at_fragment_header);
    RUN(test_poll_reports_time_to_earliest_deadline);
    RUN(test_deadline_survives_clock_wrap);
#if MIP_CONF_IPV4
    RUN(test_ipv4_4000_byte_ping_gets_fragmented_reply);
#endif
    RUN(test_ipv6_fragmented_ping_gets_reply);
    return TESTING_DONE();
}
