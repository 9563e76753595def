/*
 * Fragmented 6LoWPAN datagrams across forwarders: a chain of up to four
 * stacks joined by an in-memory radio (node i hears i - 1 and i + 1),
 * every node routing to every other along the chain. Both ways of
 * forwarding (netif.h, frag_mode): reassembly at each hop and RFC 8930
 * fragment forwarding, and what fragment forwarding leaves to reassembly
 * (fragments out of order, a lost first fragment, datagrams that are not
 * the plain case); the VRB's limits (exhaustion, a forged flood, a full
 * queue mid-datagram) and first fragments whose recompressed header no
 * longer fits the frame.
 *
 * Frames are queued on the air and delivered only by the test, one at a
 * time or all, never from inside a transmit.
 */
#include "testing.h"
#include "moteip/stack.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/sixlowpan.h"
#include <stdlib.h>
#include <string.h>

#if MIP_CONF_FORWARD

#define NMAX    4
#define QMAX    256
#define PAN     0xABCDu
#define PORT    5683u

struct frame {
    uint8_t  from;
    uint16_t gap;            /* what transmit_gap asked for (0: transmit) */
    uint16_t len;
    uint8_t  data[MIP_RADIO_FRAME_MAX];
};

struct chain;

struct port {
    struct chain *c;
    uint8_t node;
    size_t room;
};

struct chain {
    unsigned n;
    struct mip_stack *s[NMAX];
    struct mip_lowpan_config cfg[NMAX];
    struct port port[NMAX];
    unsigned got[NMAX];           /* UDP datagrams received */
    size_t   got_len[NMAX];
    uint8_t  got_data[NMAX][1232];
    struct frame q[QMAX];
    unsigned nq, head;
    unsigned oversize;
    mip_time_t now;
};

static mip_status chain_tx_gap(void *ctx, const uint8_t *frame, size_t len, uint16_t gap)
{
    struct port *p = ctx;
    struct chain *c = p->c;
    if (len > (size_t)c->cfg[p->node].frame_max - 2u) {
        c->oversize++;
        return MIP_OK;
    }
    if (c->nq < QMAX) {
        c->q[c->nq].from = p->node;
        c->q[c->nq].gap = gap;
        c->q[c->nq].len = (uint16_t)len;
        memcpy(c->q[c->nq].data, frame, len);
        c->nq++;
    }
    return MIP_OK;
}

static mip_status chain_tx(void *ctx, const uint8_t *frame, size_t len)
{
    return chain_tx_gap(ctx, frame, len, 0);
}

static size_t chain_room(void *ctx)
{
    return ((const struct port *)ctx)->room;
}

static const struct mip_netif_driver chain_driver = { chain_tx, chain_room, chain_tx_gap };

static void sink(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                 const uint8_t *data, size_t len)
{
    struct port *p = ctx;
    (void)s;
    (void)m;
    p->c->got[p->node]++;
    p->c->got_len[p->node] = len;
    memcpy(p->c->got_data[p->node], data, len < 1232u ? len : 1232u);
}

static struct mip_addr node_addr(unsigned i)
{
    struct mip_addr a;
    char text[32];
    snprintf(text, sizeof text, "fd00::ff:fe00:%u", i + 1u);
    CHECK_EQ(mip_addr_parse(text, &a, NULL), MIP_OK);
    return a;
}

/* n nodes, each forwarding with frag_mode `mode`, frames of frame_max
 * bytes; node i: short address i + 1, fd00::ff:fe00:(i+1), a host route
 * to every other node through its neighbour on that side. */
static struct chain *chain_new(unsigned n, uint8_t mode, uint8_t frame_max)
{
    struct chain *c = calloc(1, sizeof(*c));
    unsigned i, j;
    c->n = n;
    c->now = testing_start(1000);
    for (i = 0; i < n; i++) {
        struct mip_lowpan_config *cf = &c->cfg[i];
        struct mip_stack_config sc;
        struct mip_addr a;
        uint8_t seed[4] = {7, 7, 7, (uint8_t)i}, idx;
        c->s[i] = calloc(1, sizeof(struct mip_stack));
        memset(&sc, 0, sizeof sc);
        sc.entropy = seed;
        sc.entropy_len = sizeof seed;
        sc.forwarding = true;
        mip_stack_init(c->s[i], &sc, c->now);
        cf->mode = MIP_LOWPAN_IPHC;
        cf->pan_id = PAN;
        cf->short_addr = (uint16_t)(i + 1u);
        cf->ext_addr[0] = 0x02;
        cf->ext_addr[7] = (uint8_t)(i + 1u);
        cf->frame_max = frame_max;
        cf->ack_request = true;
        cf->has_context0 = true;
        cf->ctx0_prefix[0] = 0xfd;
        cf->frag_mode = mode;
        c->port[i].c = c;
        c->port[i].node = (uint8_t)i;
        c->port[i].room = QMAX;
        CHECK_EQ(mip_netif_add_lowpan(c->s[i], cf, &chain_driver, &c->port[i], &idx), MIP_OK);
        a = node_addr(i);
        CHECK_EQ(mip_netif_add_addr(c->s[i], 0, &a, 64), MIP_OK);
        CHECK_EQ(mip_udp_bind(c->s[i], PORT, sink, &c->port[i]), MIP_OK);
        for (j = 0; j < n; j++) {
            struct mip_addr d = node_addr(j), gw = node_addr(j > i ? i + 1u : i - 1u);
            if (j != i)
                CHECK_EQ(mip_route_add(c->s[i], &d, 128, &gw, 0), MIP_OK);
        }
    }
    return c;
}

/* The node a frame from `from` goes to (its MHR's short destination), or
 * -1 for a broadcast or a node out of range. */
static int frame_to(const struct chain *c, const struct frame *f)
{
    struct mip_802154_hdr h;
    size_t hl;
    unsigned to;
    if (mip_ieee802154_parse(f->data, f->len, &h, &hl) != MIP_OK ||
        h.dst.mode != MIP_802154_ADDR_SHORT || h.dst.short_addr == 0 ||
        h.dst.short_addr > c->n)
        return -1;
    to = h.dst.short_addr - 1u;
    return (to + 1u == f->from || to == f->from + 1u) ? (int)to : -1;
}

/* Delivers the next queued frame; false when none is left. */
static bool step(struct chain *c)
{
    struct frame f;
    int to;
    if (c->head == c->nq) {
        c->head = c->nq = 0;
        return false;
    }
    f = c->q[c->head++];
    to = frame_to(c, &f);
    if (to >= 0)
        mip_stack_input(c->s[to], 0, f.data, f.len, c->now);
    return true;
}

static void run(struct chain *c)
{
    unsigned guard = 0;
    while (step(c) && guard++ < 10u * QMAX)
        ;
}

static void advance(struct chain *c, uint32_t ms)
{
    unsigned i;
    c->now += ms;
    for (i = 0; i < c->n; i++)
        (void)mip_stack_poll(c->s[i], c->now);
}

static void chain_free(struct chain *c)
{
    unsigned i, k;
    advance(c, 10u * 60u * 1000u);
    for (i = 0; i < c->n; i++) {
        CHECK_EQ(c->s[i]->pool.in_use, 0);
        for (k = 0; k < MIP_LOWPAN_REASS_SLOTS; k++)
            CHECK(!c->s[i]->lowpan_reass[k].d.used);
#if MIP_LOWPAN_VRB_SLOTS > 0
        for (k = 0; k < MIP_LOWPAN_VRB_SLOTS; k++)
            CHECK(!c->s[i]->lowpan_vrb[k].d.used);
#endif
        free(c->s[i]);
    }
    CHECK_EQ(c->oversize, 0);
    free(c);
}

static uint32_t stat(const struct chain *c, unsigned node, enum mip_stat w)
{
    return mip_stack_stat(c->s[node], w);
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(seed * 13u + i * 5u + (i >> 7));
}

static bool got(const struct chain *c, unsigned node, size_t size, uint32_t seed)
{
    static uint8_t want[1232];
    fill(want, size, seed);
    return c->got_len[node] == size && memcmp(c->got_data[node], want, size) == 0;
}

/* Node `from` sends `size` bytes to node `to`; its frames are queued. */
static void send(struct chain *c, unsigned from, unsigned to, size_t size, uint32_t seed)
{
    static uint8_t data[1232];
    struct mip_addr d = node_addr(to);
    fill(data, size, seed);
    CHECK_EQ(mip_udp_sendto(c->s[from], NULL, PORT, &d, PORT, MIP_NETIF_ANY, data, size), MIP_OK);
}

/* Takes the frames queued so far off the air into out[]. */
static unsigned take(struct chain *c, struct frame *out, unsigned max)
{
    unsigned n = c->nq - c->head;
    if (n > max)
        n = max;
    memcpy(out, c->q + c->head, n * sizeof(*out));
    c->head = c->nq = 0;
    return n;
}

static void inject(struct chain *c, unsigned to, const struct frame *f)
{
    mip_stack_input(c->s[to], 0, f->data, f->len, c->now);
}

/* MHR offsets (short addresses, PAN ID compression): source little-endian
 * at 7, the fragment header at 9 (tag at +2). */
#define MHR_SRC 7u
#define FH 9u

static uint8_t hop_limit_of(const struct chain *c, unsigned node, const struct frame *f)
{
    uint8_t buf[64];
    struct mip_lowpan_peek pk;
    CHECK_EQ(mip_lowpan_peek_frame(c->s[node], 0, f->data, f->len, buf, sizeof buf, &pk), MIP_OK);
    return buf[7];
}

/* A copy of `tmpl` (a FRAG1 or FRAGN of node 0) as if sent by the invented
 * link source `sa`, under a tag of its own. */
static void inject_as(struct chain *c, unsigned to, const struct frame *tmpl, uint16_t sa)
{
    struct frame g = *tmpl;
    g.data[MHR_SRC] = (uint8_t)sa;
    g.data[MHR_SRC + 1u] = (uint8_t)(sa >> 8);
    mip_wr16(g.data + FH + 2u, (uint16_t)(sa * 7u));
    inject(c, to, &g);
}

static void test_datagram_crosses_three_hops_both_ways(void)
{
    /* A 1000-byte UDP datagram, 0 -> 3. Reassembling forwarders send
     * nothing until the last fragment is in; fragment forwarders send
     * each fragment on as it comes, under their own tag, hop limit one
     * lower per hop. */
    static const struct {
        uint8_t mode;
        unsigned out_after_first;  /* frames node 1 sends for node 0's first */
    } rows[] = {
        { MIP_LOWPAN_FRAG_REASSEMBLE, 0 },
        { MIP_LOWPAN_FRAG_FORWARD, 1 },
    };
    unsigned r;
    for (r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        struct chain *c = chain_new(4, rows[r].mode, 127);
        static struct frame src[16];
        unsigned n, k, i;
        send(c, 0, 3, 1000, 1);
        n = take(c, src, 16);
        CHECK(n >= 9u);
        inject(c, 1, &src[0]);
        CHECK_EQ(c->nq, rows[r].out_after_first);
        if (rows[r].out_after_first) {
            uint16_t in_tag = mip_rd16(src[0].data + FH + 2u);
            uint16_t out_tag = mip_rd16(c->q[0].data + FH + 2u);
            CHECK_EQ(c->q[0].data[MHR_SRC], 2);              /* from node 1 now */
            CHECK_EQ(hop_limit_of(c, 2, &c->q[0]), 63);
            CHECK(in_tag != out_tag);
        }
        for (i = 1; i < n; i++)
            inject(c, 1, &src[i]);
        run(c);
        CHECK_EQ(c->got[3], 1);
        CHECK(got(c, 3, 1000, 1));
        for (k = 1; k <= 2; k++) {
            CHECK_EQ(stat(c, k, MIP_STAT_ip_forwarded), 1);
            if (rows[r].mode == MIP_LOWPAN_FRAG_FORWARD) {
                CHECK_EQ(stat(c, k, MIP_STAT_lowpan_reassembled), 0);
                CHECK_EQ(stat(c, k, MIP_STAT_lowpan_vrb_completed), 1);
                CHECK_EQ(stat(c, k, MIP_STAT_lowpan_frag_forwarded), n);
            } else {
                CHECK_EQ(stat(c, k, MIP_STAT_lowpan_reassembled), 1);
                CHECK_EQ(stat(c, k, MIP_STAT_lowpan_frag_forwarded), 0);
            }
        }
        CHECK_EQ(stat(c, 3, MIP_STAT_lowpan_reassembled), 1);
        /* and back */
        send(c, 3, 0, 700, 2);
        run(c);
        CHECK(got(c, 0, 700, 2));
        chain_free(c);
    }
}

static void test_first_fragment_split_when_its_header_grows(void)
{
    /* The source elides both addresses (they follow from the link
     * addresses) and the hop limit (64); a forwarder carries them inline
     * (+5 bytes). Where the source's FRAG1 had less slack than that, the
     * forwarder sends the FRAG1's tail in a FRAGN of its own. Every size
     * and frame length arrives intact, none oversize. */
    unsigned fmax, size, split = 0, bad = 0;
    for (fmax = 60; fmax <= 127; fmax += 1) {
        struct chain *c = chain_new(3, MIP_LOWPAN_FRAG_FORWARD, (uint8_t)fmax);
        for (size = 60; size <= 1200; size += 97) {
            uint32_t before = stat(c, 1, MIP_STAT_lowpan_frag_forwarded);
            uint32_t rx = stat(c, 1, MIP_STAT_lowpan_frag_rx);
            send(c, 0, 2, size, size + fmax);
            run(c);
            if (!got(c, 2, size, size + fmax))
                bad++;
            if (stat(c, 1, MIP_STAT_lowpan_frag_forwarded) - before >
                stat(c, 1, MIP_STAT_lowpan_frag_rx) - rx)
                split++;
        }
        chain_free(c);
    }
    CHECK_EQ(bad, 0);
    CHECK(split > 0u);
}

static void test_fragments_out_of_order(void)
{
    /* RFC 8930 s.5: the first fragment goes first, so FRAGNs before their
     * FRAG1 have lost it: dropped without state (in reassembly mode they
     * would start a datagram), and the FRAG1 that comes after them goes
     * on alone, its datagram incomplete at the end point. After the FRAG1,
     * FRAGNs in any order go on one by one and the end point reassembles
     * them. */
    struct chain *c = chain_new(3, MIP_LOWPAN_FRAG_FORWARD, 127);
    static struct frame f[16];
    unsigned n, i, k;
    send(c, 0, 2, 900, 3);
    n = take(c, f, 16);
    CHECK(n >= 8u);
    for (i = n; i-- > 0;)
        inject(c, 1, &f[i]);
    CHECK_EQ(stat(c, 1, MIP_STAT_drop_lowpan_frag_no_first), n - 1u);
    for (k = 0; k < MIP_LOWPAN_REASS_SLOTS; k++)
        CHECK(!c->s[1]->lowpan_reass[k].d.used);
    run(c);
    CHECK_EQ(c->got[2], 0);
    CHECK_EQ(stat(c, 1, MIP_STAT_lowpan_reassembled), 0);
    CHECK_EQ(stat(c, 1, MIP_STAT_lowpan_frag_forwarded), 1);
    advance(c, MIP_LOWPAN_REASS_TIMEOUT_MS);
    CHECK_EQ(stat(c, 2, MIP_STAT_drop_lowpan_frag_timeout), 1);

    send(c, 0, 2, 900, 4);
    n = take(c, f, 16);
    inject(c, 1, &f[0]);
    for (i = n; i-- > 1;)
        inject(c, 1, &f[i]);
    CHECK_EQ(stat(c, 1, MIP_STAT_lowpan_frag_forwarded), 1u + n);
    run(c);
    CHECK(got(c, 2, 900, 4));
    CHECK_EQ(stat(c, 1, MIP_STAT_lowpan_vrb_completed), 1);
    CHECK_EQ(c->got[2], 1);
    chain_free(c);
}

static void test_lost_first_fragment(void)
{
    /* The FRAG1 never reaches the forwarder: its FRAGNs are dropped,
     * nothing goes on and no slot or entry is held; the sender's next
     * datagram is forwarded at once. The same where the lost FRAG1's
     * datagram ends (node 1 as destination). Forged FRAGNs from invented
     * sources cost nothing either. */
    struct chain *c = chain_new(3, MIP_LOWPAN_FRAG_FORWARD, 127);
    static struct frame f[16];
    unsigned n, i, k, dst, dropped = 0;
    for (dst = 1; dst <= 2; dst++) {
        for (k = 0; k < MIP_LOWPAN_REASS_SLOTS + 1u; k++) {
            send(c, 0, dst, 600, 10u + k);
            n = take(c, f, 16);
            for (i = 1; i < n; i++)
                inject(c, 1, &f[i]);
            dropped += n - 1u;
            for (i = 0; i < 50u; i++)
                inject_as(c, 1, &f[1], (uint16_t)(0x600u + i));
            dropped += 50u;
            CHECK_EQ(c->nq, 0);
        }
        send(c, 0, dst, 600, 20);
        run(c);
        CHECK(got(c, dst, 600, 20));
        CHECK_EQ(c->got[dst], 1);
    }
    CHECK_EQ(stat(c, 1, MIP_STAT_drop_lowpan_frag_no_first), dropped);
    CHECK_EQ(stat(c, 1, MIP_STAT_lowpan_vrb_completed), 1);
    CHECK_EQ(stat(c, 1, MIP_STAT_lowpan_reassembled), 1);
    CHECK_EQ(stat(c, 1, MIP_STAT_drop_lowpan_frag_no_slot), 0);
    CHECK_EQ(stat(c, 1, MIP_STAT_drop_lowpan_frag_superseded), 0);
    chain_free(c);
}

static void test_vrb_full_keeps_datagrams_in_progress(void)
{
    /* Every VRB entry taken by a first fragment from another (invented)
     * neighbour, all still young: a new datagram finds no entry and is
     * dropped, counted; once they are idle PROTECT_MS they give way. The
     * stale first fragments went on to node 2, which times them out. */
    struct chain *c = chain_new(3, MIP_LOWPAN_FRAG_FORWARD, 127);
    static struct frame f[16], tmpl;
    unsigned n, i, k;
    send(c, 0, 2, 600, 30);
    n = take(c, f, 16);
    tmpl = f[0];
    for (k = 0; k < MIP_LOWPAN_VRB_SLOTS; k++)
        inject_as(c, 1, &tmpl, (uint16_t)(0x100u + k));
    CHECK_EQ(stat(c, 1, MIP_STAT_lowpan_frag_forwarded), MIP_LOWPAN_VRB_SLOTS);
    c->head = c->nq = 0;             /* lost on the way to node 2 */
    for (i = 0; i < n; i++)
        inject(c, 1, &f[i]);
    CHECK_EQ(c->nq, 0);
    CHECK_EQ(stat(c, 1, MIP_STAT_drop_lowpan_vrb_no_slot), 1);
    advance(c, MIP_LOWPAN_REASS_PROTECT_MS);
    send(c, 0, 2, 600, 31);
    run(c);
    CHECK(got(c, 2, 600, 31));
    CHECK_EQ(stat(c, 1, MIP_STAT_drop_lowpan_vrb_evicted), 1);
    chain_free(c);
}

static void test_forged_flood_does_not_block_neighbours(void)
{
    /* Node 0 has completed a datagram through node 1 (it is known there).
     * Then, between every two of its fragments, as many forged first
     * fragments as the VRB has entries arrive from ever new invented
     * link sources, keeping every entry young. Node 0's datagrams still
     * go through, each taking a stranger's entry. */
    struct chain *c = chain_new(3, MIP_LOWPAN_FRAG_FORWARD, 127);
    static struct frame f[16], tmpl;
    unsigned n, i, k, round;
    uint16_t sa = 0x200;
    send(c, 0, 2, 800, 40);
    n = take(c, f, 16);
    tmpl = f[0];
    for (i = 0; i < n; i++)
        inject(c, 1, &f[i]);
    run(c);
    CHECK(got(c, 2, 800, 40));
    for (round = 0; round < 4u; round++) {
        send(c, 0, 2, 800, 41u + round);
        n = take(c, f, 16);
        for (i = 0; i < n; i++) {
            for (k = 0; k < MIP_LOWPAN_VRB_SLOTS; k++)
                inject_as(c, 1, &tmpl, sa++);
            inject(c, 1, &f[i]);
            advance(c, MIP_LOWPAN_REASS_PROTECT_MS / 8u);
        }
        run(c);
        CHECK(got(c, 2, 800, 41u + round));
    }
    CHECK_EQ(c->got[2], 5);
    CHECK(stat(c, 1, MIP_STAT_drop_lowpan_vrb_no_slot) > 0u);
    CHECK(stat(c, 1, MIP_STAT_drop_lowpan_vrb_evicted) >= 4u);
    chain_free(c);
}

static void test_full_queue_mid_datagram_abandons_it(void)
{
    /* Node 1's driver takes one frame after the FRAG1: the third fragment
     * finds no room, the datagram is abandoned there (its later fragments
     * dropped, counted) rather than half sent; the next one goes whole. */
    struct chain *c = chain_new(3, MIP_LOWPAN_FRAG_FORWARD, 127);
    static struct frame f[16];
    unsigned n, i;
    send(c, 0, 2, 900, 50);
    n = take(c, f, 16);
    CHECK(n >= 8u);
    inject(c, 1, &f[0]);
    inject(c, 1, &f[1]);
    c->port[1].room = 0;
    for (i = 2; i < n; i++)
        inject(c, 1, &f[i]);
    CHECK_EQ(stat(c, 1, MIP_STAT_drop_lowpan_queue_full), 1);
    CHECK_EQ(stat(c, 1, MIP_STAT_drop_lowpan_vrb_abandoned), n - 3u);
    CHECK_EQ(stat(c, 1, MIP_STAT_lowpan_reassembled), 0);
    /* a full queue refuses a new datagram at its first fragment */
    c->head = c->nq = 0;
    send(c, 0, 2, 900, 51);
    n = take(c, f, 16);
    inject(c, 1, &f[0]);
    CHECK_EQ(stat(c, 1, MIP_STAT_drop_lowpan_queue_full), 2);
    c->port[1].room = QMAX;
    send(c, 0, 2, 900, 52);
    run(c);
    CHECK(got(c, 2, 900, 52));
    CHECK_EQ(c->got[2], 1);
    chain_free(c);
}

static enum mip_fwd_verdict pass_hook(void *ctx, struct mip_stack *s, uint8_t in, uint8_t out,
                                      uint8_t *pkt, size_t len)
{
    (void)s;
    (void)in;
    (void)out;
    (void)pkt;
    (void)len;
    (*(unsigned *)ctx)++;
    return MIP_FWD_PASS;
}

static void test_other_cases_are_reassembled(void)
{
    /* What fragment forwarding leaves to the full path: a datagram for the
     * forwarder itself, one whose hop limit ends there (Time Exceeded
     * back), and any datagram while a forward hook (a relay) watches. */
    struct chain *c = chain_new(3, MIP_LOWPAN_FRAG_FORWARD, 127);
    unsigned hook_calls = 0;
    send(c, 0, 1, 900, 60);
    run(c);
    CHECK(got(c, 1, 900, 60));
    CHECK_EQ(stat(c, 1, MIP_STAT_lowpan_reassembled), 1);
    CHECK_EQ(stat(c, 1, MIP_STAT_lowpan_frag_forwarded), 0);

    c->s[0]->default_ttl = 1;
    send(c, 0, 2, 900, 61);
    run(c);
    CHECK_EQ(c->got[2], 0);
    CHECK_EQ(stat(c, 1, MIP_STAT_lowpan_reassembled), 2);
    CHECK_EQ(stat(c, 1, MIP_STAT_drop_ipv6_hop_limit_expired), 1);
    CHECK_EQ(stat(c, 0, MIP_STAT_icmp_rx), 1);
    c->s[0]->default_ttl = 64;

    mip_ip_set_forward_hook(c->s[1], pass_hook, &hook_calls);
    send(c, 0, 2, 900, 62);
    run(c);
    CHECK(got(c, 2, 900, 62));
    CHECK_EQ(hook_calls, 1);
    CHECK_EQ(stat(c, 1, MIP_STAT_lowpan_reassembled), 3);
    CHECK_EQ(stat(c, 1, MIP_STAT_lowpan_frag_forwarded), 0);
    chain_free(c);
}

static void test_entries_time_out(void)
{
    /* A datagram whose later fragments never come: its VRB entry ends
     * after MIP_LOWPAN_REASS_TIMEOUT_MS, counted, and polls say when. */
    struct chain *c = chain_new(3, MIP_LOWPAN_FRAG_FORWARD, 127);
    static struct frame f[16];
    uint32_t d;
    send(c, 0, 2, 600, 70);
    (void)take(c, f, 16);
    inject(c, 1, &f[0]);
    c->head = c->nq = 0;
    CHECK(c->s[1]->lowpan_vrb[0].d.used);
    d = mip_stack_poll(c->s[1], c->now);
    CHECK_EQ(d, MIP_LOWPAN_REASS_TIMEOUT_MS);
    advance(c, MIP_LOWPAN_REASS_TIMEOUT_MS);
    CHECK_EQ(stat(c, 1, MIP_STAT_drop_lowpan_vrb_timeout), 1);
    CHECK(!c->s[1]->lowpan_vrb[0].d.used);
    chain_free(c);
}

static void test_fragments_paced_in_forward_mode(void)
{
    /* frag_gap_us: in FORWARD mode every fragment a node sends or forwards
     * goes through transmit_gap with the gap, unless its next hop is the
     * datagram's destination (nothing beyond it to move on to); a frame
     * that is no fragment never waits; in REASSEMBLE mode nothing does. */
    static const struct { uint8_t mode; uint16_t want; } rows[] = {
        { MIP_LOWPAN_FRAG_FORWARD, 7000 },
        { MIP_LOWPAN_FRAG_REASSEMBLE, 0 },
    };
    unsigned r, i, k;
    for (r = 0; r < 2; r++) {
        struct chain *c = chain_new(4, rows[r].mode, 127);
        static struct frame f[16];
        unsigned n, bad = 0;
        for (i = 0; i < 4; i++) {
            uint8_t idx;
            unsigned j2;
            struct mip_addr a = node_addr(i);
            c->cfg[i].frag_gap_us = 7000;
            mip_stack_init(c->s[i], NULL, c->now);
            c->s[i]->forwarding = true;
            CHECK_EQ(mip_netif_add_lowpan(c->s[i], &c->cfg[i], &chain_driver, &c->port[i], &idx),
                     MIP_OK);
            CHECK_EQ(mip_netif_add_addr(c->s[i], 0, &a, 64), MIP_OK);
            CHECK_EQ(mip_udp_bind(c->s[i], PORT, sink, &c->port[i]), MIP_OK);
            for (j2 = 0; j2 < 4; j2++) {
                struct mip_addr d = node_addr(j2), gw = node_addr(j2 > i ? i + 1u : i - 1u);
                if (j2 != i)
                    CHECK_EQ(mip_route_add(c->s[i], &d, 128, &gw, 0), MIP_OK);
            }
        }
        /* 0 -> 3: nodes 0 and 1 pace, node 2 (next hop = destination) not */
        send(c, 0, 3, 900, 80);
        n = take(c, f, 16);
        CHECK(n >= 8u);
        for (i = 0; i < n; i++) {
            bad += f[i].gap != rows[r].want;
            inject(c, 1, &f[i]);
        }
        n = take(c, f, 16);
        CHECK(n >= 8u);
        for (i = 0; i < n; i++) {
            bad += f[i].gap != rows[r].want;
            inject(c, 2, &f[i]);
        }
        for (k = c->head; k < c->nq; k++)
            bad += c->q[k].gap != 0u;
        CHECK_EQ(bad, 0);
        run(c);
        CHECK(got(c, 3, 900, 80));
        /* one hop: the next hop is the destination */
        send(c, 0, 1, 900, 81);
        for (k = c->head; k < c->nq; k++)
            bad += c->q[k].gap != 0u;
        run(c);
        CHECK(got(c, 1, 900, 81));
        /* not a fragment */
        send(c, 0, 3, 20, 82);
        CHECK_EQ(c->nq, 1);
        CHECK_EQ(c->q[0].gap, 0);
        run(c);
        CHECK_EQ(bad, 0);
        chain_free(c);
    }
}

static void test_config(void)
{
    struct mip_stack s;
    struct mip_lowpan_config cf;
    uint8_t idx;
    memset(&cf, 0, sizeof cf);
    mip_stack_init(&s, NULL, 0);
    cf.mode = MIP_LOWPAN_IPHC;
    cf.frame_max = 127;
    cf.short_addr = 1;
    cf.frag_mode = 2;
    CHECK_EQ(mip_netif_add_lowpan(&s, &cf, &chain_driver, NULL, &idx), MIP_ERR_INVALID);
    cf.frag_mode = MIP_LOWPAN_FRAG_FORWARD;
    CHECK_EQ(mip_netif_add_lowpan(&s, &cf, &chain_driver, NULL, &idx),
             MIP_LOWPAN_VRB_SLOTS > 0 ? MIP_OK : MIP_ERR_UNSUPPORTED);
}

int main(void)
{
    RUN(test_config);
#if MIP_LOWPAN_VRB_SLOTS > 0
    RUN(test_datagram_crosses_three_hops_both_ways);
    RUN(test_first_fragment_split_when_its_header_grows);
    RUN(test_fragments_out_of_order);
    RUN(test_lost_first_fragment);
    RUN(test_vrb_full_keeps_datagrams_in_progress);
    RUN(test_forged_flood_does_not_block_neighbours);
    RUN(test_full_queue_mid_datagram_abandons_it);
    RUN(test_other_cases_are_reassembled);
    RUN(test_entries_time_out);
    RUN(test_fragments_paced_in_forward_mode);
#endif
    return TESTING_DONE();
}

#else
int main(void)
{
    return 0;
}
#endif
