/* The receive window a connection offers, checked with a hand-played
 * peer: the SYN cache's SYN-ACK offers only what the listener's rings can
 * hold (RFC 9293 3.8.6: nothing offered is taken back), and window scaling
 * (RFC 7323 2) offers rings above 64 KB, passive and active. */
#include "tcp_pair.h"
#include "seg_builder.h"

/* A listener whose accepted connection gets a receive ring of `size`
 * bytes (any size the build allows; allocated here) and never reads. */
struct ring_app {
    struct mip_tcp_listener l;
    struct mip_tcp_conn c;
    uint8_t tx[256];
    uint8_t *rx, *bm;
    mip_tcp_rxsize_t size;
    unsigned accepted;
};

static struct mip_tcp_conn *ring_accept(struct mip_tcp_listener *l, struct mip_tcp *tcp,
                                        uint16_t port)
{
    struct ring_app *ra = MIP_CONTAINER_OF(l, struct ring_app, l);
    (void)tcp;
    (void)port;
    ra->accepted++;
    mip_tcp_conn_init(&ra->c, NULL, NULL, ra->tx, sizeof(ra->tx), ra->rx, ra->bm, ra->size);
    return &ra->c;
}

static struct ring_app *ring_app_new(mip_tcp_rxsize_t size)
{
    struct ring_app *ra = calloc(1, sizeof(*ra));
    ra->size = size;
    ra->rx = calloc(1, size);
    ra->bm = calloc(1, (size + 7u) / 8u);
    return ra;
}

static void ring_app_free(struct ring_app *ra)
{
    free(ra->rx);
    free(ra->bm);
    free(ra);
}

/* The peer sends n bytes (pattern) in segments of at most 1000 bytes,
 * one after the other, each acknowledged before the next goes (the stack
 * ACKs every other segment at once; the delayed one is run out here). */
static void peer_send(struct hs *h, uint32_t n)
{
    static uint8_t buf[1000];
    uint32_t done = 0, i;
    while (done < n) {
        uint32_t k = n - done < sizeof(buf) ? n - done : (uint32_t)sizeof(buf);
        for (i = 0; i < k; i++)
            buf[i] = (uint8_t)(done + i);
        hs_clear(h);               /* keep the capture short */
        hs_send_data(h, buf, k);
        done += k;
    }
    fixture_advance(&h->f, MIP_TCP_DELACK_MAX_MS);
}

/* The latest ACK the stack sent since the last hs_clear. */
static bool last_ack(const struct hs *h, struct sb_reply *r)
{
    unsigned i;
    bool got = false;
    struct sb_reply t;
    for (i = 0; hs_get(h, i, &t); i++) {
        if (t.h.flags & MIP_TCP_ACK) {
            *r = t;
            got = true;
        }
    }
    return got;
}

/* A passive open of the peer (port 40000, ISN 5000) with window scale
 * `ws` offered (-1: none); leaves the SYN-ACK in *synack. */
static void passive_open(struct hs *h, struct ring_app *ra, mip_tcp_rxsize_t promised, int ws,
                         struct sb_reply *synack)
{
    struct sb_seg s;
    CHECK_EQ(mip_tcp_listen(&h->tcp, &ra->l, 80, promised, ring_accept), MIP_OK);
    h->pport = 40000;
    h->lport = 80;
    h->ts = false;
    hs_clear(h);
    memset(&s, 0, sizeof(s));
    s.sport = 40000;
    s.dport = 80;
    s.seq = 5000;
    s.flags = MIP_TCP_SYN;
    s.win = 65535;
    s.opts.present = MIP_TCP_HAS_MSS;
    s.opts.mss = 1000;
    if (ws >= 0) {
        s.opts.present |= MIP_TCP_HAS_WSCALE;
        s.opts.wscale = (uint8_t)ws;
    }
    hs_send(h, &s);
    CHECK(hs_next(h, synack));
    CHECK_EQ(synack->h.flags, MIP_TCP_SYN | MIP_TCP_ACK);
    h->snd_nxt = 5001;
    h->rcv_nxt = synack->h.seq + 1u;
    hs_clear(h);
    hs_send_ack(h);
    CHECK_EQ(ra->accepted, 1);
    CHECK_EQ(ra->c.state, MIP_TCP_ESTABLISHED);
}

/* The SYN-ACK goes before accept hands in a ring, so it offers what the
 * listener promised (mip_tcp_listen's rx_size), and every byte the peer
 * then sends within that window is stored and acknowledged. Before
 * 2026-11-25 the SYN cache offered 1,024 bytes whatever the ring: with the
 * tiny profile's 512-byte ring half of what the peer was allowed to send
 * was dropped. The window scale of the SYN-ACK is the one the promised
 * ring needs (rings above 64 KB need MIP_TCP_LARGE_RX). */
static void test_synack_window_is_backed_by_the_listeners_ring(void)
{
    static const struct {
        uint32_t ring;
        int peer_ws;               /* -1: the peer offers no scaling */
        uint16_t synack_win;
        uint8_t ws;                /* the SYN-ACK's scale when it has one */
        uint32_t send;             /* bytes the peer sends, all of them taken */
    } rows[] = {
        {512, -1, 512, 0, 512},            /* the tiny profile's ring */
        {512, 7, 512, 0, 512},
        {1536, -1, 1536, 0, 1536},
        {4096, 7, 4096, 0, 4096},
        {65535, 7, 65535, 0, 65535},
#if MIP_TCP_LARGE_RX
        {200000, 7, 65535, 2, 200000},     /* 200000 >> 2 = 50000 fits 16 bits */
        {200000, -1, 65535, 0, 65535},     /* no scaling: 64 KB at most */
        {1u << 20, 0, 65535, 5, 300000},
#endif
    };
    unsigned k;
    for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        struct hs *h = hs_new(true);
        struct ring_app *ra = ring_app_new((mip_tcp_rxsize_t)rows[k].ring);
        struct sb_reply synack, r;
        bool scaled = MIP_TCP_WSCALE && rows[k].peer_ws >= 0;
        unsigned ws = scaled ? rows[k].ws : 0u, before = testing_failures;
        uint32_t room = rows[k].ring - rows[k].send;
        fixture_advance(&h->f, 0);
        passive_open(h, ra, (mip_tcp_rxsize_t)rows[k].ring, rows[k].peer_ws, &synack);
        CHECK_EQ(synack.h.window, rows[k].synack_win);
        CHECK_EQ((synack.o.present & MIP_TCP_HAS_WSCALE) != 0, scaled);
        if (scaled)
            CHECK_EQ(synack.o.wscale, rows[k].ws);
        peer_send(h, rows[k].send);
        CHECK(last_ack(h, &r));
        CHECK_EQ(r.h.ack, 5001u + rows[k].send);
        CHECK_EQ(ra->c.rcv_nxt, 5001u + rows[k].send);
        CHECK_EQ(ra->c.rx.len, rows[k].send);
        /* What is left of the window is the ring's room. */
        CHECK_EQ((uint32_t)r.h.window << ws, room < (65535u << ws) ? room : 65535u << ws);
        if (testing_failures != before)
            fprintf(stderr, "row %u: ring %u\n", k, (unsigned)rows[k].ring);
        mip_tcp_abort(&h->tcp, &ra->c);
        hs_free(h);
        ring_app_free(ra);
    }
}

/* A window once offered is kept even when the ring promised was a lie: a
 * listener that promised 4096 and hands in 512 loses nothing it
 * acknowledged (bytes past the ring are not acknowledged; the peer sends
 * them again). */
static void test_smaller_ring_than_promised_acknowledges_only_what_it_holds(void)
{
    struct hs *h = hs_new(true);
    struct ring_app *ra = ring_app_new(512);
    struct sb_reply synack, r;
    fixture_advance(&h->f, 0);
    passive_open(h, ra, 4096, -1, &synack);
    CHECK_EQ(synack.h.window, 4096);
    hs_clear(h);
    peer_send(h, 1000);
    CHECK(last_ack(h, &r));
    CHECK_EQ(r.h.ack, 5001u + 512u);
    CHECK_EQ(ra->c.rx.len, 512);
    mip_tcp_abort(&h->tcp, &ra->c);
    hs_free(h);
    ring_app_free(ra);
}

/* An application that empties a full ring in small reads (the tiny
 * profile's apps read 64 bytes at a time) leaves the peer less than one
 * update's worth short of the free ring: an update goes out whenever the
 * window has opened by two segments or half the ring (whichever is less)
 * past the one last advertised. Before
 * 2026-11-27 each read compared with the window just before that read, so
 * after the first update (from zero) no single small read opened it by
 * enough: the peer kept seeing half the ring, and an upload to the tiny
 * discard service on the ATmega1284P ran at a third of its speed, the
 * peer sending half-ring segments into a delayed ACK. */
static void test_small_reads_open_the_whole_window(void)
{
    static const struct {
        mip_tcp_rxsize_t ring;
        uint32_t chunk;
    } rows[] = {
        {512, 64}, {512, 100}, {512, 512}, {4096, 64}, {4096, 1460}, {4096, 4096},
    };
    unsigned k;
    for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        struct hs *h = hs_new(true);
        struct ring_app *ra = ring_app_new(rows[k].ring);
        struct sb_reply synack, r;
        uint8_t buf[4096];
        /* what opens the window enough for an update (the peer's MSS is 1000) */
        uint32_t step = rows[k].ring / 2u < 2000u ? rows[k].ring / 2u : 2000u;
        fixture_advance(&h->f, 0);
        passive_open(h, ra, rows[k].ring, -1, &synack);
        peer_send(h, rows[k].ring);
        CHECK(last_ack(h, &r));
        CHECK_EQ(r.h.window, 0);                 /* full */
        hs_clear(h);
        while (mip_tcp_read(&h->tcp, &ra->c, buf, rows[k].chunk) > 0)
            ;
        CHECK(last_ack(h, &r));
        if (rows[k].ring - r.h.window >= step)
            fprintf(stderr, "row %u: ring %u, reads of %u: window %u\n", k,
                    (unsigned)rows[k].ring, (unsigned)rows[k].chunk, (unsigned)r.h.window);
        CHECK(rows[k].ring - r.h.window < step);
        mip_tcp_abort(&h->tcp, &ra->c);
        hs_free(h);
        ring_app_free(ra);
    }
}

/* Which read sends the window update: a full 4096-byte ring read one byte
 * at a time (the peer's MSS 1000, so the threshold is min(2 x 1000, 4096 /
 * 2) = 2000) opens from zero at the read that frees an MSS (receiver SWS
 * avoidance) and again at the read that takes it 2000 past that, and at no
 * other. mip_tcp_read skips the window computation when the free ring
 * cannot reach the threshold; a skip too wide (a threshold doubled, or the
 * from-zero case skipped) moves or loses an update. */
static void test_window_update_goes_out_at_the_exact_read(void)
{
    struct hs *h = hs_new(true);
    struct ring_app *ra = ring_app_new(4096);
    struct sb_reply synack, r;
    uint8_t b;
    unsigned read = 0, at[4] = {0, 0, 0, 0}, updates = 0;
    uint16_t win[4] = {0, 0, 0, 0};
    fixture_advance(&h->f, 0);
    passive_open(h, ra, 4096, -1, &synack);
    peer_send(h, 4096);
    CHECK(last_ack(h, &r));
    CHECK_EQ(r.h.window, 0);
    hs_clear(h);
    while (mip_tcp_read(&h->tcp, &ra->c, &b, 1) == 1) {
        read++;
        if (hs_count(h) != 0) {
            CHECK(hs_get(h, 0, &r));
            if (updates < 4) {
                at[updates] = read;
                win[updates] = r.h.window;
            }
            updates++;
            hs_clear(h);
        }
    }
    CHECK_EQ(read, 4096);
    CHECK_EQ(updates, 2);
    CHECK_EQ(at[0], 1000);
    CHECK_EQ(win[0], 1000);
    CHECK_EQ(at[1], 3000);
    CHECK_EQ(win[1], 3000);
    mip_tcp_abort(&h->tcp, &ra->c);
    hs_free(h);
    ring_app_free(ra);
}

/* mip_tcp_listen refuses a listener that promises no ring. */
static void test_listen_needs_a_ring(void)
{
    struct hs *h = hs_new(true);
    struct ring_app *ra = ring_app_new(64);
    CHECK_EQ(mip_tcp_listen(&h->tcp, &ra->l, 80, 0, ring_accept), MIP_ERR_INVALID);
    CHECK_EQ(mip_tcp_listen(&h->tcp, &ra->l, 80, 64, ring_accept), MIP_OK);
    hs_free(h);
    ring_app_free(ra);
}

/* The window scale an active open offers in its SYN: the smallest shift
 * that fits the ring in 16 bits (RFC 7323 2.3, at most 14). Before
 * 2026-11-25 the ring size reached the computation as a uint16_t, so the
 * shift was always 0 and window scaling, though agreed, was never used. */
static void test_syn_offers_the_scale_its_ring_needs(void)
{
    static const struct {
        uint32_t ring;
        uint8_t ws;
    } rows[] = {
        {512, 0}, {4096, 0}, {65535, 0},
#if MIP_TCP_LARGE_RX
        {65536, 1}, {131071, 1}, {131072, 2}, {200000, 2}, {1u << 20, 5},
        {0x3FFFFFFFu, 14},
#endif
    };
    unsigned k;
    for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        struct hs *h = hs_new(true);
        struct mip_tcp_conn *c = calloc(1, sizeof(*c));
        static uint8_t tx[64], rx[64];
        struct mip_addr dst = hs_peer_addr(h);
        struct sb_reply r;
        /* Nothing is received: the ring is never touched, so its size
         * may exceed the memory behind it here. */
        mip_tcp_conn_init(c, NULL, NULL, tx, sizeof(tx), rx, NULL, (mip_tcp_rxsize_t)rows[k].ring);
        fixture_advance(&h->f, 0);
        CHECK_EQ(mip_tcp_connect(&h->tcp, c, &dst, 80), MIP_OK);
        CHECK(hs_next(h, &r));
        CHECK_EQ(r.h.flags, MIP_TCP_SYN);
        CHECK_EQ(r.h.window, rows[k].ring > 65535u ? 65535u : rows[k].ring);
#if MIP_TCP_WSCALE
        CHECK(r.o.present & MIP_TCP_HAS_WSCALE);
        CHECK_EQ(r.o.wscale, rows[k].ws);
        if (r.o.wscale != rows[k].ws)
            fprintf(stderr, "row %u: ring %u\n", k, (unsigned)rows[k].ring);
#endif
        mip_tcp_abort(&h->tcp, c);
        hs_free(h);
        free(c);
    }
}

#if MIP_TCP_LARGE_RX
/* An active open with a 256 KB ring and the peer agreeing to scaling: the
 * ACK of the SYN-ACK already offers the whole ring, scaled, and the peer
 * may send 200,000 bytes before the application reads one. */
static void test_active_open_offers_ring_above_64k(void)
{
    struct hs *h = hs_new(true);
    struct mip_tcp_conn *c = calloc(1, sizeof(*c));
    static uint8_t tx[256];
    uint8_t *rx = calloc(1, 262144), *bm = calloc(1, 262144 / 8);
    struct mip_addr dst = hs_peer_addr(h);
    struct sb_seg s;
    struct sb_reply r;
    fixture_advance(&h->f, 0);
    mip_tcp_conn_init(c, NULL, NULL, tx, sizeof(tx), rx, bm, 262144);
    CHECK_EQ(mip_tcp_connect(&h->tcp, c, &dst, 80), MIP_OK);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.o.wscale, 3);                /* 262144 >> 3 = 32768 */
    h->pport = 80;
    h->lport = r.h.src_port;
    h->rcv_nxt = r.h.seq + 1u;
    memset(&s, 0, sizeof(s));
    s.sport = 80;
    s.dport = h->lport;
    s.seq = 7000;
    s.ack = h->rcv_nxt;
    s.flags = MIP_TCP_SYN | MIP_TCP_ACK;
    s.win = 65535;
    s.opts.present = MIP_TCP_HAS_MSS | MIP_TCP_HAS_WSCALE;
    s.opts.mss = 1000;
    s.opts.wscale = 3;
    hs_clear(h);
    hs_send(h, &s);
    h->snd_nxt = 7001;
    CHECK_EQ(c->state, MIP_TCP_ESTABLISHED);
    CHECK(hs_next(h, &r));
    CHECK_EQ(r.h.flags, MIP_TCP_ACK);
    CHECK_EQ((uint32_t)r.h.window << 3, 262144u);
    peer_send(h, 200000);
    CHECK(last_ack(h, &r));
    CHECK_EQ(r.h.ack, 7001u + 200000u);
    CHECK_EQ(c->rx.len, 200000);
    CHECK_EQ((uint32_t)r.h.window << 3, 262144u - 200000u);
    mip_tcp_abort(&h->tcp, c);
    hs_free(h);
    free(c);
    free(rx);
    free(bm);
}
#endif

int main(void)
{
    RUN(test_synack_window_is_backed_by_the_listeners_ring);
    RUN(test_smaller_ring_than_promised_acknowledges_only_what_it_holds);
    RUN(test_listen_needs_a_ring);
    RUN(test_small_reads_open_the_whole_window);
    RUN(test_window_update_goes_out_at_the_exact_read);
    RUN(test_syn_offers_the_scale_its_ring_needs);
#if MIP_TCP_LARGE_RX
    RUN(test_active_open_offers_ring_above_64k);
#endif
    return TESTING_DONE();
}
