/*
 * The 802.15.4 radio netif: two stacks joined by an in-memory radio. IPHC
 * mode (compression, fragmentation, reassembly with its timeouts,
 * duplicates and inconsistent fragments, link-local and context-0
 * addressing, echo), RAW_IP mode (exact frame layout for both families),
 * link address mapping, input filtering and configuration errors.
 *
 * Frames are queued on the air and delivered only by air_deliver(), never
 * from inside a transmit, so a stack is never re-entered.
 */
#include "testing.h"
#include "moteip/stack.h"
#include "moteip/ip.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/sixlowpan.h"
#include <stdlib.h>
#include <string.h>

#define NODES   2
#define QMAX    512
#define PAN     0xABCDu
#define PORT    5683u
#define DATA_MAX 1300u

struct air_frame {
    uint8_t  from;
    uint16_t len;
    uint8_t  data[MIP_RADIO_FRAME_MAX];
};

struct sink {
    unsigned calls;
    size_t   len;
    struct mip_udp_meta meta;
    uint8_t  data[DATA_MAX];
};

struct air;

struct air_port {
    struct air *air;
    uint8_t node;
    int refuse_after;        /* frames accepted before transmit fails; -1: never */
    size_t room;             /* what the driver's room() says */
};

struct air {
    struct mip_stack *s[NODES];
    struct mip_lowpan_config cfg[NODES];
    struct air_port port[NODES];
    struct sink sink[NODES];
    struct air_frame q[QMAX];
    unsigned nq;             /* frames on the air, not yet delivered */
    unsigned sent;           /* frames transmitted since init */
    unsigned oversize;       /* frames longer than frame_max - 2 */
    unsigned bad_mhr;        /* frames whose MHR did not parse */
    size_t   longest;
    mip_time_t now;
};

static mip_status air_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct air_port *p = ctx;
    struct air *a = p->air;
    struct mip_802154_hdr h;
    size_t hl;
    if (p->refuse_after == 0)
        return MIP_ERR_NOBUFS;
    if (p->refuse_after > 0)
        p->refuse_after--;
    a->sent++;
    if (len > (size_t)a->cfg[p->node].frame_max - 2u || len > MIP_RADIO_FRAME_MAX) {
        a->oversize++;
        return MIP_OK;
    }
    if (mip_ieee802154_parse(frame, len, &h, &hl) != MIP_OK)
        a->bad_mhr++;
    if (len > a->longest)
        a->longest = len;
    if (a->nq < QMAX) {
        a->q[a->nq].from = p->node;
        a->q[a->nq].len = (uint16_t)len;
        memcpy(a->q[a->nq].data, frame, len);
        a->nq++;
    }
    return MIP_OK;
}

static size_t air_room(void *ctx)
{
    return ((const struct air_port *)ctx)->room;
}

static const struct mip_netif_driver air_driver = { air_transmit, air_room, NULL };

static void sink_recv(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                      const uint8_t *data, size_t len)
{
    struct sink *k = ctx;
    (void)s;
    k->calls++;
    k->meta = *m;
    k->len = len;
    memcpy(k->data, data, len < DATA_MAX ? len : DATA_MAX);
}

static struct mip_addr addr(const char *text)
{
    struct mip_addr a;
    if (mip_addr_parse(text, &a, NULL) != MIP_OK) {
        fprintf(stderr, "bad address %s\n", text);
        abort();
    }
    return a;
}

/* Node i: short address i+1, extended 02:00:00:00:00:00:00:0(i+1), PAN
 * 0xABCD, link ACKs, context 0 = fd00::/64, address fd00::ff:fe00:(i+1)/64
 * (and 10.0.0.(i+1)/24 in RAW_IP mode with IPv4), UDP sink on PORT. */
static struct air *air_new(uint8_t mode, uint8_t frame_max, uint8_t raw_hdr)
{
    struct air *a = calloc(1, sizeof(*a));
    unsigned i;
    a->now = testing_start(1000);
    for (i = 0; i < NODES; i++) {
        struct mip_lowpan_config *c = &a->cfg[i];
        struct mip_stack_config sc;
        uint8_t seed[4] = {1, 2, 3, (uint8_t)i}, idx = 0xFF;
        char text[32];
        struct mip_addr ad;
        a->s[i] = calloc(1, sizeof(struct mip_stack));
        memset(&sc, 0, sizeof sc);
        sc.entropy = seed;
        sc.entropy_len = sizeof seed;
        mip_stack_init(a->s[i], &sc, a->now);
        c->mode = mode;
        c->pan_id = PAN;
        c->short_addr = (uint16_t)(i + 1u);
        c->ext_addr[0] = 0x02;
        c->ext_addr[7] = (uint8_t)(i + 1u);
        c->frame_max = frame_max;
        c->raw_link_hdr_len = raw_hdr;
        c->ack_request = true;
        c->has_context0 = true;
        c->ctx0_prefix[0] = 0xfd;
        a->port[i].air = a;
        a->port[i].node = (uint8_t)i;
        a->port[i].refuse_after = -1;
        a->port[i].room = QMAX;
        CHECK_EQ(mip_netif_add_lowpan(a->s[i], c, &air_driver, &a->port[i], &idx), MIP_OK);
        CHECK_EQ(idx, 0);
        snprintf(text, sizeof text, "fd00::ff:fe00:%u", i + 1u);
        ad = addr(text);
        CHECK_EQ(mip_netif_add_addr(a->s[i], 0, &ad, 64), MIP_OK);
#if MIP_CONF_IPV4
        if (mode == MIP_LOWPAN_RAW_IP) {
            snprintf(text, sizeof text, "10.0.0.%u", i + 1u);
            ad = addr(text);
            CHECK_EQ(mip_netif_add_addr(a->s[i], 0, &ad, 24), MIP_OK);
        }
#endif
        CHECK_EQ(mip_udp_bind(a->s[i], PORT, sink_recv, &a->sink[i]), MIP_OK);
    }
    return a;
}

/* Delivers every frame on the air (and what the answers put on it), in
 * order. */
static void air_deliver(struct air *a)
{
    unsigned head = 0, guard = 0;
    while (head < a->nq && guard++ < 4u * QMAX) {
        struct air_frame *f = &a->q[head++];
        uint8_t *copy = malloc(f->len ? f->len : 1u);
        memcpy(copy, f->data, f->len);
        mip_stack_input(a->s[1u - f->from], 0, copy, f->len, a->now);
        free(copy);
    }
    a->nq = 0;
}

/* Hands one frame (test-made or captured) to node `to`. */
static void air_inject(struct air *a, unsigned to, const uint8_t *frame, size_t len)
{
    uint8_t *copy = malloc(len ? len : 1u);
    memcpy(copy, frame, len);
    mip_stack_input(a->s[to], 0, copy, len, a->now);
    free(copy);
}

static uint32_t air_advance(struct air *a, uint32_t ms)
{
    uint32_t d = MIP_POLL_IDLE, e;
    unsigned i;
    a->now += ms;
    for (i = 0; i < NODES; i++) {
        e = mip_stack_poll(a->s[i], a->now);
        if (e < d)
            d = e;
    }
    return d;
}

static void air_free(struct air *a)
{
    unsigned i;
    air_advance(a, 10u * 60u * 1000u);
    for (i = 0; i < NODES; i++) {
        unsigned k;
        CHECK_EQ(a->s[i]->pool.in_use, 0);
        for (k = 0; k < MIP_LOWPAN_REASS_SLOTS; k++)
            CHECK(!a->s[i]->lowpan_reass[k].d.used);
        free(a->s[i]);
    }
    CHECK_EQ(a->oversize, 0);
    CHECK_EQ(a->bad_mhr, 0);
    free(a);
}

static uint32_t stat(const struct air *a, unsigned node, enum mip_stat w)
{
    return mip_stack_stat(a->s[node], w);
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(seed * 31u + i * 7u + (i >> 8));
}

static bool sink_has(const struct sink *k, size_t size, uint32_t seed)
{
    static uint8_t data[1232];
    fill(data, size, seed);
    return k->len == size && memcmp(k->data, data, size) == 0;
}

static mip_status send_udp(struct air *a, unsigned from, const char *dst, const uint8_t *data,
                           size_t len)
{
    struct mip_addr d = addr(dst);
    return mip_udp_sendto(a->s[from], NULL, PORT, &d, PORT, MIP_NETIF_ANY, data, len);
}

/* --- IPHC mode ------------------------------------------------------------- */


/* Frames of a fragmented datagram of `size` uncompressed bytes whose
 * compressed header is hc bytes (of `consumed` uncompressed), with an MHR
 * of mhr bytes: the FRAG1 and FRAGNs carry the most whole 8-byte blocks
 * that fit. */
static unsigned expected_frames(size_t size, size_t fmax, size_t mhr, size_t hc,
                                size_t consumed)
{
    size_t first, rest, per;
    if (mhr + hc + size - consumed <= fmax)
        return 1;
    first = ((consumed + fmax - mhr - 4u - hc) / 8u) * 8u;
    per = ((fmax - mhr - 5u) / 8u) * 8u;
    rest = size - first;
    return 1u + (unsigned)((rest + per - 1u) / per);
}

static void test_udp_every_size_across_iphc(void)
{
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    static uint8_t data[1232];
    unsigned size, bad = 0, frag_dgrams = 0, frames_wrong = 0;
    for (size = 0; size <= 1232u; size++) {
        unsigned before = a->sent;
        fill(data, size, size);
        a->sink[1].calls = 0;
        CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, size), MIP_OK);
        /* MHR 9, IPHC 2 (context 0, both IIDs from the short addresses),
         * NHC UDP 7 (ports inline) */
        if (a->sent - before != expected_frames(48u + size, 125, 9, 9, 48))
            frames_wrong++;
        if (a->sent - before > 1u)
            frag_dgrams++;
        air_deliver(a);
        if (a->sink[1].calls != 1 || a->sink[1].len != size ||
            memcmp(a->sink[1].data, data, size) != 0)
            bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(frames_wrong, 0);
    CHECK_EQ(frag_dgrams, 1233u - 108u);        /* 107 bytes still fit one frame */
    CHECK_EQ(stat(a, 1, MIP_STAT_lowpan_reassembled), frag_dgrams);
    CHECK_EQ(stat(a, 0, MIP_STAT_lowpan_frag_tx), a->sent - 1233u + frag_dgrams);
    CHECK_EQ(a->longest, 125);
    CHECK_EQ(stat(a, 1, MIP_STAT_udp_rx), 1233);
    {
        struct mip_addr src = addr("fd00::ff:fe00:1");
        CHECK(mip_addr_eq(&a->sink[1].meta.src, &src));
    }
    air_free(a);
}

/* --- shared-context UDP compression (RFC 6282 s.4.3.2, docs/LOWPAN.md) ---- */
#if MIP_CONF_LOWPAN_HC

static void set_udp_hc(struct air *a, unsigned node, bool elide, bool ports)
{
    struct mip_netif_lowpan *lp = &mip_netif_get(a->s[node], 0)->lowpan;
    lp->udp_cksum_elide = elide;
    lp->has_udp_ports = ports;
    lp->udp_ports[0] = PORT;
    lp->udp_ports[1] = PORT;
}

/* Both ends authorised: every size arrives intact (the receiver computes
 * each elided checksum back and UDP verifies it); a datagram in one frame
 * loses its 2 checksum bytes, the shared ports take the port bytes too
 * (MHR 9 + 3 bytes of header), a fragmented one keeps its checksum. */
static void test_udp_checksum_elided_every_size(void)
{
    static const struct { bool ports; size_t hc; } arms[] = { {false, 9u - 2u}, {true, 3u} };
    static uint8_t data[1232];
    unsigned k, size;
    for (k = 0; k < 2u; k++) {
        struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
        unsigned bad = 0, frames_wrong = 0;
        set_udp_hc(a, 0, true, arms[k].ports);
        set_udp_hc(a, 1, true, arms[k].ports);
        for (size = 0; size <= 1232u; size++) {
            unsigned before = a->sent;
            fill(data, size, size);
            a->sink[1].calls = 0;
            CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, size), MIP_OK);
            if (a->sent - before == 1u ? a->q[0].len != 9u + arms[k].hc + size
                                       : a->sent - before != expected_frames(48u + size, 125, 9,
                                                                             arms[k].ports ? 5u : 9u,
                                                                             48))
                frames_wrong++;
            air_deliver(a);
            if (a->sink[1].calls != 1 || !sink_has(&a->sink[1], size, size))
                bad++;
        }
        CHECK_EQ(bad, 0);
        CHECK_EQ(frames_wrong, 0);
        CHECK_EQ(stat(a, 1, MIP_STAT_drop_udp_bad_checksum), 0);
        CHECK_EQ(stat(a, 1, MIP_STAT_udp_rx), 1233);
        air_free(a);
    }
}

/* A receiver that was not authorised drops what elides the checksum, or
 * uses a port context it does not hold, and counts it; the UDP layer never
 * sees it. */
static void test_udp_hc_refused_without_authorisation(void)
{
    static const struct { bool elide, ports; } tx[] = { {true, false}, {false, true}, {true, true} };
    static uint8_t data[16];
    unsigned k;
    for (k = 0; k < 3u; k++) {
        struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
        set_udp_hc(a, 0, tx[k].elide, tx[k].ports);
        fill(data, sizeof data, 7);
        CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, sizeof data), MIP_OK);
        air_deliver(a);
        CHECK_EQ(a->sink[1].calls, 0);
        CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_unsupported), 1);
        CHECK_EQ(stat(a, 1, MIP_STAT_udp_rx), 0);
        air_free(a);
    }
}
#endif

/* Short frames and an extended source address: many small fragments. */
static void test_udp_small_frames_extended_source(void)
{
    struct air *a = air_new(MIP_LOWPAN_IPHC, 48, 0);
    static uint8_t data[1232];
    struct mip_lowpan_config c = a->cfg[0];
    struct mip_stack_config sc;
    struct mip_addr ad;
    unsigned size, bad = 0;
    uint8_t idx;
    /* node 0 again, without a short address: its addresses come from
     * extended address 02:00:00:00:00:00:00:01, IID ::1 */
    memset(&sc, 0, sizeof sc);
    mip_stack_init(a->s[0], &sc, a->now);
    c.short_addr = 0xFFFE;
    a->cfg[0] = c;
    CHECK_EQ(mip_netif_add_lowpan(a->s[0], &c, &air_driver, &a->port[0], &idx), MIP_OK);
    ad = addr("fd00::1");
    CHECK_EQ(mip_netif_add_addr(a->s[0], 0, &ad, 64), MIP_OK);
    CHECK_EQ(mip_udp_bind(a->s[0], PORT, sink_recv, &a->sink[0]), MIP_OK);
    ad = addr("fe80::1");
    CHECK(mip_netif_has_addr(mip_netif_get(a->s[0], 0), &ad));
    for (size = 0; size <= 1232u; size += 37u) {
        fill(data, size, size + 1u);
        a->sink[1].calls = 0;
        CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, size), MIP_OK);
        air_deliver(a);
        if (a->sink[1].calls != 1 || a->sink[1].len != size ||
            memcmp(a->sink[1].data, data, size) != 0)
            bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK(a->longest <= 46u);
    CHECK(a->longest >= 40u);
    /* the other way: frames to the extended address */
    fill(data, 500, 9);
    CHECK_EQ(send_udp(a, 1, "fd00::1", data, 500), MIP_OK);
    CHECK(a->nq > 10);
    CHECK_EQ(a->q[0].data[1] >> 2 & 3, MIP_802154_ADDR_EXT);
    air_deliver(a);
    CHECK_EQ(a->sink[0].calls, 1);
    CHECK(sink_has(&a->sink[0], 500, 9));
    CHECK_EQ(send_udp(a, 1, "fe80::1", data, 20), MIP_OK);
    air_deliver(a);
    CHECK_EQ(a->sink[0].calls, 2);
    air_free(a);
}

/* Every frame size from the smallest allowed to the largest the profile
 * has: datagrams arrive intact and frames stay within frame_max - 2. */
static void test_udp_across_frame_sizes(void)
{
    static const uint8_t sizes[] = {32, 33, 40, 64, 100, 127, 177, 200, 255};
    static uint8_t data[1232];
    unsigned k;
    for (k = 0; k < sizeof sizes; k++) {
        struct air *a;
        unsigned size, bad = 0;
        if (sizes[k] > MIP_RADIO_FRAME_MAX + 2u)
            continue;
        a = air_new(MIP_LOWPAN_IPHC, sizes[k], 0);
        for (size = 0; size <= 1232u; size += 59u) {
            fill(data, size, size + k);
            a->sink[1].calls = 0;
            CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, size), MIP_OK);
            air_deliver(a);
            if (a->sink[1].calls != 1 || !sink_has(&a->sink[1], size, size + k))
                bad++;
        }
        CHECK_EQ(bad, 0);
        CHECK(a->longest <= sizes[k] - 2u);
        air_free(a);
    }
}

/* Captures the frames of one datagram from node 0 (not delivered). */
static unsigned capture(struct air *a, size_t size, uint32_t seed, struct air_frame *out,
                        unsigned max)
{
    static uint8_t data[1232];
    unsigned n;
    a->nq = 0;
    fill(data, size, seed);
    CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, size), MIP_OK);
    n = a->nq < max ? a->nq : max;
    memcpy(out, a->q, n * sizeof(*out));
    a->nq = 0;
    return n;
}


/* Node 0 again, as another neighbour: short address `sa`, address
 * fd00::ff:fe00:sa. Frames captured before stay valid. */
static void node0_readdress(struct air *a, uint16_t sa)
{
    struct mip_lowpan_config c = a->cfg[0];
    struct mip_stack_config sc;
    struct mip_addr ad;
    uint8_t idx, seed[4] = {9, 9, 9, (uint8_t)sa};
    char text[32];
    memset(&sc, 0, sizeof sc);
    sc.entropy = seed;
    sc.entropy_len = sizeof seed;
    mip_stack_init(a->s[0], &sc, a->now);
    c.short_addr = sa;
    c.ext_addr[7] = (uint8_t)sa;
    a->cfg[0] = c;
    CHECK_EQ(mip_netif_add_lowpan(a->s[0], &c, &air_driver, &a->port[0], &idx), MIP_OK);
    snprintf(text, sizeof text, "fd00::ff:fe00:%x", sa);
    ad = addr(text);
    CHECK_EQ(mip_netif_add_addr(a->s[0], 0, &ad, 64), MIP_OK);
}

/* Datagrams that lost a fragment must not block later ones from the same
 * neighbour until the reassembly timeout: a new datagram from that
 * neighbour supersedes its stale one once the neighbour is at its share
 * (or no slot is free). */
static void test_stale_datagram_superseded_by_same_sender(void)
{
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    static struct air_frame f[16];
    unsigned n, i, k;
    for (k = 0; k < MIP_LOWPAN_REASS_SLOTS + 1u; k++) {
        n = capture(a, 600, 10u + k, f, 16);
        CHECK(n > 2);
        air_inject(a, 1, f[0].data, f[0].len);      /* the rest is lost */
    }
    CHECK_EQ(a->sink[1].calls, 0);
    n = capture(a, 800, 99, f, 16);
    for (i = 0; i < n; i++)
        air_inject(a, 1, f[i].data, f[i].len);
    CHECK_EQ(a->sink[1].calls, 1);
    CHECK(sink_has(&a->sink[1], 800, 99));
    /* SLOTS + 2 datagrams, the first PER_SRC of them in free slots */
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_superseded),
             MIP_LOWPAN_REASS_SLOTS + 2u - MIP_LOWPAN_REASS_PER_SRC);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_no_slot), 0);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_src_limit), 0);
    air_free(a);
}

static void test_two_interleaved_datagrams(void)
{
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    static struct air_frame f1[16], f2[16];
    unsigned n1 = capture(a, 700, 1, f1, 16), n2 = capture(a, 900, 2, f2, 16), i;
    CHECK(n1 > 3 && n2 > n1);
    /* from one neighbour (tags count up): with one slot per neighbour the
     * newer datagram supersedes the older, whose remaining fragments then
     * find no slot the neighbour's share allows */
    for (i = 0; i < n2; i++) {
        if (i < n1)
            air_inject(a, 1, f1[i].data, f1[i].len);
        air_inject(a, 1, f2[i].data, f2[i].len);
    }
#if MIP_LOWPAN_REASS_PER_SRC >= 2
    CHECK_EQ(a->sink[1].calls, 2);
    CHECK_EQ(stat(a, 1, MIP_STAT_lowpan_reassembled), 2);
#else
    CHECK_EQ(a->sink[1].calls, 1);
    CHECK(sink_has(&a->sink[1], 900, 2));
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_superseded), 1);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_src_limit), n1 - 1u);
    air_advance(a, MIP_LOWPAN_REASS_TIMEOUT_MS);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_timeout), 0);
#endif
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_no_slot), 0);
    CHECK_EQ(stat(a, 1, MIP_STAT_lowpan_frag_rx), n1 + n2);
#if MIP_LOWPAN_REASS_SLOTS >= 2
    /* from two neighbours: both complete */
    a->sink[1].calls = 0;
    n1 = capture(a, 700, 3, f1, 16);
    node0_readdress(a, 3);
    n2 = capture(a, 900, 4, f2, 16);
    for (i = 0; i < n2; i++) {
        if (i < n1)
            air_inject(a, 1, f1[i].data, f1[i].len);
        if (i == n1 - 1u) {
            CHECK_EQ(a->sink[1].calls, 1);
            CHECK(sink_has(&a->sink[1], 700, 3));
        }
        air_inject(a, 1, f2[i].data, f2[i].len);
    }
    CHECK_EQ(a->sink[1].calls, 2);
    CHECK(sink_has(&a->sink[1], 900, 4));
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_no_slot), 0);
#endif
    air_free(a);
}

/* --- slot pinning (issue 12) --------------------------------------------- */

/* MHR offsets of a captured IPHC frame (short addresses, PAN ID
 * compression): destination and source little-endian, then the fragment
 * header (tag at +2). */
#define MHR_DST 5u
#define MHR_SRC 7u
#define FH 9u

/* A copy of FRAG1 `tmpl` as if sent by the invented neighbour `sa`. */
static void inject_forged_frag1(struct air *a, const struct air_frame *tmpl, uint16_t sa)
{
    struct air_frame g = *tmpl;
    g.data[MHR_SRC] = (uint8_t)sa;
    g.data[MHR_SRC + 1u] = (uint8_t)(sa >> 8);
    mip_wr16(g.data + FH + 2u, (uint16_t)(sa * 7u));
    air_inject(a, 1, g.data, g.len);
}

static void test_forged_first_fragments_do_not_block_neighbours(void)
{
    /* The review's attack: every 8 s one forged FRAG1 per slot, each from
     * an invented link source; between them a real neighbour's fragmented
     * datagram. It used to deliver 0 of 5. */
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    static struct air_frame f[16], tmpl;
    unsigned round, k, i, n;
    uint16_t sa = 0x300;
    CHECK(capture(a, 600, 50, f, 16) > 2);
    tmpl = f[0];
    for (round = 0; round < 5u; round++) {
        for (k = 0; k < MIP_LOWPAN_REASS_SLOTS; k++)
            inject_forged_frag1(a, &tmpl, sa++);
        air_advance(a, MIP_LOWPAN_REASS_TIMEOUT_MS / 2u);
        n = capture(a, 600, 60u + round, f, 16);
        for (i = 0; i < n; i++)
            air_inject(a, 1, f[i].data, f[i].len);
        CHECK(sink_has(&a->sink[1], 600, 60u + round));
        air_advance(a, MIP_LOWPAN_REASS_TIMEOUT_MS / 2u);
    }
    CHECK_EQ(a->sink[1].calls, 5);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_evicted), 5);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_no_slot), 0);
    air_free(a);
}

static void test_datagram_in_progress_survives_forged_flood(void)
{
    /* The slots start full of stale forged FRAG1s; a real datagram takes
     * one, and between each of its fragments (PROTECT / 4 apart, all
     * within the timeout) come ten forged FRAG1s from new invented
     * sources. */
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    static struct air_frame f[16], tmpl;
    unsigned k, i, n;
    uint16_t sa = 0x400;
    CHECK(capture(a, 600, 51, f, 16) > 2);
    tmpl = f[0];
    for (k = 0; k < MIP_LOWPAN_REASS_SLOTS; k++)
        inject_forged_frag1(a, &tmpl, sa++);
    air_advance(a, MIP_LOWPAN_REASS_PROTECT_MS);
    n = capture(a, 1000, 52, f, 16);
    CHECK(n >= 8u);
    for (i = 0; i < n; i++) {
        air_inject(a, 1, f[i].data, f[i].len);
        for (k = 0; k < 10u; k++)
            inject_forged_frag1(a, &tmpl, sa++);
        air_advance(a, MIP_LOWPAN_REASS_PROTECT_MS / 4u);
    }
    CHECK(n * (MIP_LOWPAN_REASS_PROTECT_MS / 4u) < MIP_LOWPAN_REASS_TIMEOUT_MS);
    CHECK_EQ(a->sink[1].calls, 1);
    CHECK(sink_has(&a->sink[1], 1000, 52));
    CHECK(stat(a, 1, MIP_STAT_drop_lowpan_frag_no_slot) > 0);
    CHECK(MIP_LOWPAN_REASS_SLOTS == 1 || stat(a, 1, MIP_STAT_drop_lowpan_frag_evicted) > 1);
    air_free(a);
}

static void test_forged_flood_leaves_known_neighbours_their_slots(void)
{
    /* A flood of forged FRAG1s from ever new invented link sources, fast
     * enough to keep every slot young (SLOTS of them every PROTECT / 4).
     * A neighbour that completed a datagram before is known and takes a
     * stranger's slot; its datagram completes (it used to find no slot
     * while the flood lasted). A neighbour never heard before is as
     * unknown as the invented ones: it waits. */
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    static struct air_frame f[16], tmpl;
    unsigned k, i, n, round;
    uint16_t sa = 0x500;
    n = capture(a, 600, 70, f, 16);
    for (i = 0; i < n; i++)
        air_inject(a, 1, f[i].data, f[i].len);
    CHECK_EQ(a->sink[1].calls, 1);           /* node 0 is known now */
    tmpl = f[0];
    for (round = 0; round < 3u; round++) {
        n = capture(a, 1000, 71u + round, f, 16);
        for (i = 0; i < n; i++) {
            for (k = 0; k < MIP_LOWPAN_REASS_SLOTS; k++)
                inject_forged_frag1(a, &tmpl, sa++);
            air_inject(a, 1, f[i].data, f[i].len);
            air_advance(a, MIP_LOWPAN_REASS_PROTECT_MS / 4u);
        }
        CHECK(sink_has(&a->sink[1], 1000, 71u + round));
    }
    CHECK_EQ(a->sink[1].calls, 4);
    CHECK(stat(a, 1, MIP_STAT_drop_lowpan_frag_evicted) >= 3u);
    /* a stranger's datagram in the same flood finds no slot */
    node0_readdress(a, 0x77);
    n = capture(a, 1000, 80, f, 16);
    for (i = 0; i < n; i++) {
        for (k = 0; k < MIP_LOWPAN_REASS_SLOTS; k++)
            inject_forged_frag1(a, &tmpl, sa++);
        air_inject(a, 1, f[i].data, f[i].len);
        air_advance(a, MIP_LOWPAN_REASS_PROTECT_MS / 4u);
    }
    CHECK_EQ(a->sink[1].calls, 4);
    CHECK(stat(a, 1, MIP_STAT_drop_lowpan_frag_no_slot) > 0u);
    /* the known list holds the most recent completions only */
    CHECK(a->s[1]->lowpan_known[0].used);
    CHECK_EQ(a->s[1]->lowpan_known[0].who.addr[1], 1);
    CHECK(!a->s[1]->lowpan_known[1].used);
    air_free(a);
}

static void test_neighbour_at_its_share_waits(void)
{
    /* A neighbour's older-tag datagram, while its newer one receives, waits
     * (it cannot supersede); another neighbour still gets a slot. */
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    static struct air_frame old[16], cur[16], other[16];
    unsigned n_old = capture(a, 500, 20, old, 16), n_cur = capture(a, 500, 21, cur, 16);
    unsigned n_other, i;
    node0_readdress(a, 5);
    n_other = capture(a, 500, 22, other, 16);
    air_inject(a, 1, cur[0].data, cur[0].len);
    air_inject(a, 1, old[0].data, old[0].len);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_src_limit),
             MIP_LOWPAN_REASS_PER_SRC == 1 ? 1u : 0u);
    air_inject(a, 1, other[0].data, other[0].len);
    for (i = 1; i < n_cur; i++)
        air_inject(a, 1, cur[i].data, cur[i].len);
    CHECK(sink_has(&a->sink[1], 500, 21));
    for (i = 1; i < n_other; i++)
        air_inject(a, 1, other[i].data, other[i].len);
#if MIP_LOWPAN_REASS_SLOTS > MIP_LOWPAN_REASS_PER_SRC
    CHECK_EQ(a->sink[1].calls, 2);
    CHECK(sink_has(&a->sink[1], 500, 22));
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_no_slot), 0);
#endif
    (void)n_old;
    air_free(a);
}

static void test_reassembly_key_includes_link_destination(void)
{
    /* RFC 4944 s.5.3: source, destination, tag and size name a datagram. A
     * FRAGN with the same source, tag and size but sent to the broadcast
     * address belongs to another datagram and must not fill this one's
     * blocks (with other bytes). */
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    static struct air_frame f[16];
    struct air_frame g;
    unsigned n = capture(a, 600, 6, f, 16), i;
    CHECK(n >= 3);
    CHECK_EQ(f[1].data[FH] >> 3, 0x1C);     /* FRAGN */
    CHECK_EQ(f[1].data[MHR_DST], 2);        /* unicast to node 1 */
    air_inject(a, 1, f[0].data, f[0].len);
    g = f[1];
    g.data[MHR_DST] = 0xFF;
    g.data[MHR_DST + 1u] = 0xFF;
    g.data[0] &= (uint8_t)~0x20u;           /* no ACK request on a broadcast */
    memset(g.data + FH + 5u, 0xEE, g.len - FH - 5u);
    air_inject(a, 1, g.data, g.len);
    for (i = 1; i < n; i++)
        air_inject(a, 1, f[i].data, f[i].len);
    CHECK_EQ(a->sink[1].calls, 1);
    CHECK(sink_has(&a->sink[1], 600, 6));
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_duplicate), 0);
    air_free(a);
}

static void test_missing_fragment_times_out(void)
{
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    static struct air_frame f[16];
    unsigned n = capture(a, 500, 3, f, 16), i;
    uint32_t d;
    CHECK(n >= 3);
    for (i = 0; i < n; i++)
        if (i != 1)
            air_inject(a, 1, f[i].data, f[i].len);
    CHECK_EQ(a->sink[1].calls, 0);
    CHECK(a->s[1]->lowpan_reass[0].d.used);
    d = air_advance(a, 0);
    CHECK_EQ(d, MIP_LOWPAN_REASS_TIMEOUT_MS);
    d = air_advance(a, MIP_LOWPAN_REASS_TIMEOUT_MS - 1u);
    CHECK_EQ(d, 1);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_timeout), 0);
    d = air_advance(a, 1);
    CHECK_EQ(d, MIP_POLL_IDLE);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_timeout), 1);
    CHECK(!a->s[1]->lowpan_reass[0].d.used);
    /* the late fragment alone starts a datagram that times out too */
    air_inject(a, 1, f[1].data, f[1].len);
    CHECK_EQ(a->sink[1].calls, 0);
    air_advance(a, MIP_LOWPAN_REASS_TIMEOUT_MS);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_timeout), 2);
    air_free(a);
}

static void test_duplicate_fragments_tolerated(void)
{
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    static struct air_frame f[16];
    unsigned n = capture(a, 400, 4, f, 16), i;
    CHECK(n >= 3);
    air_inject(a, 1, f[0].data, f[0].len);
    air_inject(a, 1, f[0].data, f[0].len);
    air_inject(a, 1, f[1].data, f[1].len);
    air_inject(a, 1, f[1].data, f[1].len);
    for (i = 2; i < n; i++)
        air_inject(a, 1, f[i].data, f[i].len);
    CHECK_EQ(a->sink[1].calls, 1);
    CHECK(sink_has(&a->sink[1], 400, 4));
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_duplicate), 2);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_inconsistent), 0);
    /* after completion a repeat starts a new datagram: it times out */
    air_inject(a, 1, f[1].data, f[1].len);
    air_advance(a, MIP_LOWPAN_REASS_TIMEOUT_MS);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_timeout), 1);
    CHECK_EQ(a->sink[1].calls, 1);
    air_free(a);
}

static void test_inconsistent_fragments_drop_the_datagram(void)
{
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    static struct air_frame f[16];
    struct air_frame g;
    unsigned n = capture(a, 600, 5, f, 16), i;
    CHECK(n >= 4);
    CHECK_EQ(f[1].data[FH] >> 3, 0x1C);   /* FRAGN */
    /* fragment 2 moved back one block: it overlaps fragment 1 */
    air_inject(a, 1, f[0].data, f[0].len);
    g = f[1];
    g.data[FH + 4] = (uint8_t)(g.data[FH + 4] - 1u);
    air_inject(a, 1, g.data, g.len);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_inconsistent), 1);
    CHECK(!a->s[1]->lowpan_reass[0].d.used);
    for (i = 1; i < n; i++)
        air_inject(a, 1, f[i].data, f[i].len);
    CHECK_EQ(a->sink[1].calls, 0);
    air_advance(a, MIP_LOWPAN_REASS_TIMEOUT_MS);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_timeout), 1);

    /* the same tag announcing another size: the old datagram ends, the new
     * fragment starts afresh */
    air_inject(a, 1, f[0].data, f[0].len);
    g = f[1];
    g.data[FH + 1] = (uint8_t)(g.data[FH + 1] + 8u);
    air_inject(a, 1, g.data, g.len);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_inconsistent), 2);
    CHECK(a->s[1]->lowpan_reass[0].d.used);
    CHECK_EQ(a->s[1]->lowpan_reass[0].d.size, 600u + 48u + 8u);
    air_advance(a, MIP_LOWPAN_REASS_TIMEOUT_MS);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_timeout), 2);

    /* a fragment past the end of its datagram, and a non-final one that is
     * not a multiple of 8: malformed, the frame alone is dropped */
    g = f[n - 1u];
    g.data[FH + 4] = (uint8_t)(g.data[FH + 4] + 1u);
    air_inject(a, 1, g.data, g.len);
    g = f[1];
    g.len--;
    air_inject(a, 1, g.data, g.len);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_malformed), 2);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_frag_inconsistent), 2);
    air_free(a);
}

static void test_echo_request_answered(void)
{
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    struct mip_ip_tx tx;
    uint8_t msg[8 + 600];
    size_t i;
    memset(&tx, 0, sizeof tx);
    tx.src = addr("fd00::ff:fe00:1");
    tx.dst = addr("fd00::ff:fe00:2");
    tx.proto = 58;
    tx.netif = MIP_NETIF_ANY;
    msg[0] = 128;
    msg[1] = 0;
    msg[2] = msg[3] = 0;
    mip_wr16(msg + 4, 0x4242);
    mip_wr16(msg + 6, 1);
    for (i = 8; i < sizeof msg; i++)
        msg[i] = (uint8_t)i;
    mip_wr16(msg + 2, mip_cksum_finish(mip_cksum_add(
        mip_cksum_pseudo6(tx.src.bytes, tx.dst.bytes, 58, sizeof msg), msg, sizeof msg)));
    CHECK_EQ(mip_ip_output_copy(a->s[0], &tx, msg, sizeof msg), MIP_OK);
    air_deliver(a);
    CHECK_EQ(stat(a, 1, MIP_STAT_icmp_echo_replied), 1);
    CHECK_EQ(stat(a, 1, MIP_STAT_lowpan_reassembled), 1);
    /* the reply came back fragmented and reassembled */
    CHECK_EQ(stat(a, 0, MIP_STAT_lowpan_reassembled), 1);
    CHECK_EQ(stat(a, 0, MIP_STAT_icmp_rx), 1);
    CHECK_EQ(stat(a, 0, MIP_STAT_drop_icmp_bad_checksum), 0);
    air_free(a);
}

/* The exact frames for link-local and context-0 destinations: both
 * addresses elided (stateless, and from context 0). */
static void test_linklocal_and_context0_frames(void)
{
    static const uint8_t want_ll[20] = {
        0x61, 0x88, 0x00, 0xcd, 0xab, 0x02, 0x00, 0x01, 0x00,   /* MHR, ack request */
        0x7e, 0x33,                                             /* IPHC: SAM=DAM=11 */
        0xf0, 0x16, 0x33, 0x16, 0x33, 0x00, 0x00,               /* NHC UDP, checksum */
        'h', 'i'};
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    struct mip_addr src = addr("fe80::ff:fe00:1"), dst = addr("fe80::ff:fe00:2");
    struct mip_addr mc = addr("ff02::1");
    uint32_t sum;
    CHECK_EQ(mip_udp_sendto(a->s[0], &src, PORT, &dst, PORT, MIP_NETIF_ANY,
                            (const uint8_t *)"hi", 2), MIP_OK);
    CHECK_EQ(a->nq, 1);
    CHECK_EQ(a->q[0].len, sizeof want_ll);
    /* the checksum is the one of the uncompressed datagram */
    sum = mip_cksum_pseudo6(src.bytes, dst.bytes, 17, 10);
    {
        uint8_t u[10] = {0x16, 0x33, 0x16, 0x33, 0, 10, 0, 0, 'h', 'i'};
        mip_wr16(u + 6, mip_cksum_finish(mip_cksum_add(sum, u, 10)));
        CHECK_MEM(a->q[0].data + 16, u + 6, 2);
    }
    CHECK_MEM(a->q[0].data, want_ll, 16);
    CHECK_MEM(a->q[0].data + 18, want_ll + 18, 2);
    air_deliver(a);
    CHECK_EQ(a->sink[1].calls, 1);
    CHECK(mip_addr_eq(&a->sink[1].meta.src, &src));
    CHECK(mip_addr_eq(&a->sink[1].meta.dst, &dst));

    /* context 0 */
    CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", (const uint8_t *)"hi", 2), MIP_OK);
    CHECK_EQ(a->nq, 1);
    CHECK_EQ(a->q[0].len, sizeof want_ll);
    CHECK_EQ(a->q[0].data[10], 0x77);   /* SAC=1 SAM=11 DAC=1 DAM=11 */
    air_deliver(a);
    CHECK_EQ(a->sink[1].calls, 2);
    dst = addr("fd00::ff:fe00:2");
    CHECK(mip_addr_eq(&a->sink[1].meta.dst, &dst));

    /* multicast: broadcast frame, no ack request, ff02::1 in one byte */
    a->sink[1].calls = 0;
    {
        struct mip_addr mpfx = addr("ff00::");
        CHECK_EQ(mip_route_add(a->s[0], &mpfx, 8, NULL, 0), MIP_OK);
    }
    CHECK_EQ(mip_udp_sendto(a->s[0], &src, PORT, &mc, PORT, MIP_NETIF_ANY,
                            (const uint8_t *)"hi", 2), MIP_OK);
    CHECK_EQ(a->nq, 1);
    CHECK_EQ(a->q[0].data[0], 0x41);            /* no ack request */
    CHECK_EQ(mip_rd16(a->q[0].data + 5), 0xFFFF);
    CHECK_EQ(a->q[0].data[10], 0x3b);           /* SAM=11, M=1 DAM=11 */
    CHECK_EQ(a->q[0].data[11], 0x01);
    air_deliver(a);
    CHECK_EQ(a->sink[1].calls, 1);
    CHECK(a->sink[1].meta.dst_multicast);
    air_free(a);
}

static void test_underivable_next_hop_dropped(void)
{
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    /* fd00:: is the Subnet-Router anycast address: no single station */
    CHECK(send_udp(a, 0, "fd00::", (const uint8_t *)"x", 1) != MIP_OK);
    CHECK_EQ(stat(a, 0, MIP_STAT_drop_lowpan_no_l2addr), 1);
    CHECK(send_udp(a, 0, "fd00::ff:fe00:ffff", (const uint8_t *)"x", 1) != MIP_OK);
    CHECK_EQ(stat(a, 0, MIP_STAT_drop_lowpan_no_l2addr), 2);
    CHECK_EQ(a->nq, 0);
    /* any other IID is an extended address: sent (to nobody here) */
    CHECK_EQ(send_udp(a, 0, "fd00::1", (const uint8_t *)"x", 1), MIP_OK);
    CHECK_EQ(a->nq, 1);
    CHECK_EQ(a->q[0].data[1] >> 2 & 3, MIP_802154_ADDR_EXT);
    air_deliver(a);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_link_not_for_us), 1);
    air_free(a);
}

static void test_driver_refusal_stops_fragments(void)
{
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    static uint8_t data[1000];
    fill(data, sizeof data, 6);
    a->port[0].refuse_after = 2;
    CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, sizeof data), MIP_ERR_NOBUFS);
    CHECK_EQ(a->nq, 2);
    CHECK_EQ(stat(a, 0, MIP_STAT_drop_tx_driver), 1);
    CHECK_EQ(stat(a, 0, MIP_STAT_lowpan_frag_tx), 2);
    a->nq = 0;
    air_free(a);
}

static void test_datagram_sent_whole_or_not_at_all(void)
{
    /* A datagram of 9+ fragments against a driver that takes 3 frames: it
     * used to send 3 and stop, and the receiver held those in a
     * reassembly slot for nothing. Now nothing goes, the caller hears
     * NOBUFS, and the same datagram goes whole once there is room. */
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    static uint8_t data[1000];
    unsigned frames = expected_frames(1000u + 48u, 125u, 9u, 9u, 48u);
    fill(data, sizeof data, 8);
    a->port[0].room = frames - 1u;
    CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, sizeof data), MIP_ERR_NOBUFS);
    CHECK_EQ(a->nq, 0);
    CHECK_EQ(stat(a, 0, MIP_STAT_drop_lowpan_queue_full), 1);
    CHECK_EQ(stat(a, 0, MIP_STAT_lowpan_frag_tx), 0);
    CHECK_EQ(stat(a, 0, MIP_STAT_drop_tx_driver), 0);
    a->port[0].room = frames;
    CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, sizeof data), MIP_OK);
    CHECK_EQ(a->nq, frames);
    air_deliver(a);
    CHECK(sink_has(&a->sink[1], sizeof data, 8));
    CHECK_EQ(stat(a, 0, MIP_STAT_drop_lowpan_queue_full), 1);
    /* a datagram of one frame needs one frame of room */
    a->port[0].room = 1;
    CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, 20), MIP_OK);
    CHECK_EQ(a->nq, 1);
    air_free(a);
}

/* Frames a node must refuse, each counted once. */
static void test_input_filtering_and_errors(void)
{
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    uint8_t f[200];
    size_t n;
    uint32_t drops_before;
    unsigned k;
    /* a valid frame to start from: node 0's "hi" to node 1 */
    CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", (const uint8_t *)"hi", 2), MIP_OK);
    n = a->q[0].len;
    memcpy(f, a->q[0].data, n);
    a->nq = 0;
    air_inject(a, 1, f, n);
    CHECK_EQ(a->sink[1].calls, 1);

    drops_before = 0;
    for (k = MIP_STAT_drop_link_truncated; k <= MIP_STAT_drop_tx_driver; k++)
        drops_before += stat(a, 1, (enum mip_stat)k);
    CHECK_EQ(drops_before, 0);

    f[5] = 0x03;                             /* another station */
    air_inject(a, 1, f, n);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_link_not_for_us), 1);
    f[5] = 0x02;
    f[3] = 0x11;                             /* another PAN */
    air_inject(a, 1, f, n);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_link_not_for_us), 2);
    f[3] = 0xcd;
    air_inject(a, 1, f, 5);                  /* cut inside the MHR */
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_link_truncated), 1);
    air_inject(a, 1, f, 9);                  /* MHR, no payload */
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_malformed), 1);
    air_inject(a, 1, f, 10);                 /* IPHC cut */
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_malformed), 2);
    f[0] = (uint8_t)(f[0] | 0x08);           /* security enabled */
    air_inject(a, 1, f, n);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_link_unsupported), 1);
    f[0] = (uint8_t)((f[0] & ~0x0Fu) | 0x03u);   /* a MAC command frame */
    air_inject(a, 1, f, n);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_link_unsupported), 2);
    f[0] = 0x61;
    f[9] = 0x80;                             /* mesh header */
    air_inject(a, 1, f, n);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_unsupported), 1);
    f[9] = 0x7e;
    {
        /* a CID byte naming source context 15, which is not configured */
        uint8_t g[200];
        memcpy(g, f, 11);
        g[10] = 0xF7;
        g[11] = 0xF0;
        memcpy(g + 12, f + 11, n - 11);
        air_inject(a, 1, g, n + 1);
    }
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_unknown_context), 1);
    f[10] = 0x77;
    f[11] = 0xf4;                            /* UDP checksum elided */
    air_inject(a, 1, f, n);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_unsupported), 2);
    f[11] = 0xf0;
    /* longer than frame_max - 2 */
    memset(f + n, 0, sizeof f - n);
    air_inject(a, 1, f, 126);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_too_big), 1);
    /* still fine afterwards */
    air_inject(a, 1, f, n);
    CHECK_EQ(a->sink[1].calls, 2);
    /* an uncompressed IPv6 datagram behind dispatch 0x41 */
    {
        uint8_t g[9 + 1 + 40 + 8 + 2];
        struct mip_addr s6 = addr("fd00::ff:fe00:1"), d6 = addr("fd00::ff:fe00:2");
        memcpy(g, f, 9);
        g[9] = 0x41;
        memset(g + 10, 0, 40);
        g[10] = 0x60;
        g[15] = 10;
        g[16] = 17;
        g[17] = 64;
        memcpy(g + 18, s6.bytes, 16);
        memcpy(g + 34, d6.bytes, 16);
        mip_wr16(g + 50, PORT);
        mip_wr16(g + 52, PORT);
        mip_wr16(g + 54, 10);
        g[56] = g[57] = 0;
        g[58] = 'o';
        g[59] = 'k';
        mip_wr16(g + 56, mip_cksum_finish(mip_cksum_add(
            mip_cksum_pseudo6(s6.bytes, d6.bytes, 17, 10), g + 50, 10)));
        air_inject(a, 1, g, sizeof g);
        CHECK_EQ(a->sink[1].calls, 3);
        CHECK_EQ(a->sink[1].len, 2);
    }
    air_free(a);
}

/* --- RAW_IP mode ------------------------------------------------------------ */

static void check_raw_frame(const struct air_frame *fr, uint8_t raw_hdr, uint8_t dispatch,
                            size_t ip_len)
{
    size_t hdr = raw_hdr - 2u, i;
    CHECK_EQ(fr->len, hdr + ip_len);
    CHECK_EQ(fr->data[0], 0x61);     /* data, ack request, PAN ID compression */
    CHECK_EQ(fr->data[1], 0x88);     /* short addresses, 2003 version */
    CHECK_EQ(fr->data[2], 0);        /* the MAC numbers frames */
    CHECK_EQ(fr->data[3], 0xcd);
    CHECK_EQ(fr->data[4], 0xab);
    CHECK_EQ(fr->data[5], 0x02);
    CHECK_EQ(fr->data[6], 0x00);
    CHECK_EQ(fr->data[7], 0x01);
    CHECK_EQ(fr->data[8], 0x00);
    for (i = 9; i + 1u < hdr; i++)
        CHECK_EQ(fr->data[i], 0);
    CHECK_EQ(fr->data[hdr - 1u], dispatch);
}

static void raw_case(uint8_t raw_hdr)
{
    struct air *a = air_new(MIP_LOWPAN_RAW_IP, 127, raw_hdr);
    static uint8_t data[600];
    unsigned p;
    CHECK_EQ(mip_netif_get(a->s[0], 0)->mtu, 127u - raw_hdr);
    for (p = 0; p <= 127u - raw_hdr - 48u; p += 5u) {
        fill(data, p, p);
        CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, p), MIP_OK);
        CHECK_EQ(a->nq, 1);
        check_raw_frame(&a->q[0], raw_hdr, 0x41, 48u + p);
        CHECK_EQ(a->q[0].data[raw_hdr - 2u] >> 4, 6);
        air_deliver(a);
        CHECK(sink_has(&a->sink[1], p, p));
    }
#if MIP_CONF_IPV4
    for (p = 0; p <= 127u - raw_hdr - 28u; p += 5u) {
        fill(data, p, p + 7u);
        CHECK_EQ(send_udp(a, 0, "10.0.0.2", data, p), MIP_OK);
        CHECK_EQ(a->nq, 1);
        /* e.g. raw 12: 12 - 2 + 28 + payload bytes before the FCS */
        check_raw_frame(&a->q[0], raw_hdr, 0x3F, 28u + p);
        CHECK_EQ(a->q[0].data[raw_hdr - 2u] >> 4, 4);
        air_deliver(a);
        CHECK(sink_has(&a->sink[1], p, p + 7u));
    }
    /* IP fragments what exceeds the MTU; every frame stays in bounds */
    fill(data, 600, 11);
    CHECK_EQ(send_udp(a, 0, "10.0.0.2", data, 600), MIP_OK);
    CHECK(a->nq > 5);
    air_deliver(a);
    CHECK(sink_has(&a->sink[1], 600, 11));
    CHECK_EQ(stat(a, 1, MIP_STAT_frag_reassembled), 1);
    /* broadcast: 0xFFFF, no ack request */
    CHECK_EQ(send_udp(a, 0, "10.0.0.255", data, 3), MIP_OK);
    CHECK_EQ(a->q[0].data[0], 0x41);
    CHECK_EQ(mip_rd16(a->q[0].data + 5), 0xFFFF);
    air_deliver(a);
#endif
    fill(data, 600, 12);
    CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, 600), MIP_OK);
    CHECK(a->nq > 5);
    air_deliver(a);
    CHECK(sink_has(&a->sink[1], 600, 12));
    /* an IID that is not a short address has no place in the fixed header */
    CHECK(send_udp(a, 0, "fd00::1", data, 3) != MIP_OK);
    CHECK_EQ(stat(a, 0, MIP_STAT_drop_lowpan_no_l2addr), 1);
    CHECK_EQ(a->nq, 0);
    /* RAW_IP frames carry no IPHC */
    {
        uint8_t g[MIP_RADIO_FRAME_MAX];
        memset(g, 0, sizeof g);
        CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, 3), MIP_OK);
        memcpy(g, a->q[0].data, a->q[0].len);
        a->nq = 0;
        g[raw_hdr - 3u] = 0x7a;
        air_inject(a, 1, g, raw_hdr - 2u + 51u);
        CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_unsupported), 1);
        air_inject(a, 1, g, raw_hdr - 3u);
        CHECK_EQ(stat(a, 1, MIP_STAT_drop_link_truncated), 1);
    }
    CHECK(a->longest <= 125u);
    air_free(a);
}

static void test_raw_ip_header_12(void) { raw_case(12); }
static void test_raw_ip_header_23(void) { raw_case(23); }

/* --- configuration ---------------------------------------------------------- */

static void test_config_errors(void)
{
    struct mip_stack *s = calloc(1, sizeof(*s));
    struct air_port port;
    struct mip_lowpan_config c;
    struct mip_addr ll;
    uint8_t idx = 0xFF;
    memset(&port, 0, sizeof port);
    mip_stack_init(s, NULL, 0);
    memset(&c, 0, sizeof c);
    c.mode = MIP_LOWPAN_IPHC;
    c.frame_max = 31;
    c.short_addr = 0x1234;
    CHECK_EQ(mip_netif_add_lowpan(s, &c, &air_driver, &port, &idx), MIP_ERR_INVALID);
    c.frame_max = (uint8_t)(MIP_RADIO_FRAME_MAX + 2u);
    CHECK_EQ(mip_netif_add_lowpan(s, NULL, &air_driver, &port, &idx), MIP_ERR_INVALID);
    CHECK_EQ(mip_netif_add_lowpan(s, &c, NULL, &port, &idx), MIP_ERR_INVALID);
    c.mode = 2;
    CHECK_EQ(mip_netif_add_lowpan(s, &c, &air_driver, &port, &idx), MIP_ERR_INVALID);
    c.mode = MIP_LOWPAN_RAW_IP;
    c.frame_max = 127;
    c.raw_link_hdr_len = 11;
    CHECK_EQ(mip_netif_add_lowpan(s, &c, &air_driver, &port, &idx), MIP_ERR_INVALID);
    c.raw_link_hdr_len = 65;
    CHECK_EQ(mip_netif_add_lowpan(s, &c, &air_driver, &port, &idx), MIP_ERR_INVALID);
    c.raw_link_hdr_len = 60;    /* leaves 67 bytes of MTU */
    CHECK_EQ(mip_netif_add_lowpan(s, &c, &air_driver, &port, &idx), MIP_ERR_INVALID);
    c.raw_link_hdr_len = 59;
    c.short_addr = 0xFFFE;      /* the fixed header needs a short address */
    CHECK_EQ(mip_netif_add_lowpan(s, &c, &air_driver, &port, &idx), MIP_ERR_INVALID);
    c.short_addr = 0x1234;
    CHECK_EQ(mip_netif_add_lowpan(s, &c, &air_driver, &port, &idx), MIP_OK);
    CHECK_EQ(idx, 0);
    CHECK_EQ(mip_netif_get(s, 0)->mtu, 68);
    ll = addr("fe80::ff:fe00:1234");
    CHECK(mip_netif_has_addr(mip_netif_get(s, 0), &ll));
    c.mode = MIP_LOWPAN_IPHC;
#if MIP_NETIF_MAX > 1
    CHECK_EQ(mip_netif_add_lowpan(s, &c, &air_driver, &port, &idx), MIP_OK);
    CHECK_EQ(mip_netif_get(s, idx)->mtu, 1280);
#else
    CHECK_EQ(mip_netif_add_lowpan(s, &c, &air_driver, &port, &idx), MIP_ERR_NOBUFS);
#endif
    free(s);
}

/* --- looking into frames and sending whole datagrams (relays) --------------- */

#if MIP_CONF_FORWARD
static void test_peek_frame_reads_iphc_and_frag1(void)
{
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    static uint8_t data[600];
    uint8_t buf[MIP_RADIO_FRAME_MAX + MIP_LOWPAN_UNCOMP_MAX];
    struct mip_lowpan_peek pk;
    struct air_frame f1;
    size_t n;

    fill(data, 30, 3);
    CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, 30), MIP_OK);
    CHECK_EQ(a->nq, 1);
    CHECK_EQ(mip_lowpan_peek_frame(a->s[1], 0, a->q[0].data, a->q[0].len, buf, sizeof buf, &pk),
             MIP_OK);
    CHECK_EQ(pk.ip_len, 40u + 8u + 30u);
    CHECK_EQ(pk.dgram_len, 40u + 8u + 30u);
    CHECK_EQ(buf[0] >> 4, 6);
    CHECK_EQ(buf[6], 17);                               /* next header UDP */
    CHECK_EQ(buf[23], 1);                               /* src fd00::ff:fe00:1 */
    CHECK_EQ(buf[39], 2);                               /* dst fd00::ff:fe00:2 */
    CHECK_MEM(buf + 48, data, 30);
    CHECK_EQ(pk.link_src.short_addr, 1);
    CHECK_EQ(pk.link_dst.short_addr, 2);
    /* a small buffer gets the start, the lengths still tell the whole */
    CHECK_EQ(mip_lowpan_peek_frame(a->s[1], 0, a->q[0].data, a->q[0].len, buf, 60, &pk), MIP_OK);
    CHECK_EQ(pk.ip_len, 60u);
    CHECK_EQ(pk.dgram_len, 78u);
    air_deliver(a);
    CHECK(sink_has(&a->sink[1], 30, 3));

    fill(data, 600, 4);
    CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, 600), MIP_OK);
    CHECK(a->nq > 5);
    f1 = a->q[0];
    CHECK_EQ(mip_lowpan_peek_frame(a->s[1], 0, f1.data, f1.len, buf, sizeof buf, &pk), MIP_OK);
    CHECK_EQ(pk.dgram_len, 648u);
    CHECK(pk.ip_len > 48u && pk.ip_len % 8u == 0u);   /* a FRAG1 covers whole 8-byte blocks */
    CHECK_EQ(mip_rd16(buf + 4), 608u);                  /* payload length from the FRAG1 size */
    CHECK_MEM(buf + 48, data, pk.ip_len - 48u);
    /* a FRAGN has no header to look at */
    CHECK_EQ(mip_lowpan_peek_frame(a->s[1], 0, a->q[1].data, a->q[1].len, buf, sizeof buf, &pk),
             MIP_ERR_NOTFOUND);
    /* every truncation of the FRAG1 is an error or a bounded read, never a crash */
    for (n = 0; n < f1.len; n++) {
        uint8_t *cut = malloc(n ? n : 1u);
        memcpy(cut, f1.data, n);
        if (mip_lowpan_peek_frame(a->s[1], 0, cut, n, buf, sizeof buf, &pk) == MIP_OK)
            CHECK(pk.ip_len <= sizeof buf);
        free(cut);
    }
    CHECK_EQ(mip_lowpan_peek_frame(a->s[1], 3, f1.data, f1.len, buf, sizeof buf, &pk),
             MIP_ERR_INVALID);
    /* peeking changed nothing: the datagram still arrives whole */
    air_deliver(a);
    CHECK(sink_has(&a->sink[1], 600, 4));
    air_free(a);
}

static void test_peek_frame_and_link_addr_raw_ip(void)
{
    struct air *a = air_new(MIP_LOWPAN_RAW_IP, 127, 12);
    uint8_t data[40], buf[128];
    struct mip_lowpan_peek pk;
    struct mip_802154_addr la;
    struct mip_addr nh = addr("fd00::ff:fe00:2");

    fill(data, sizeof data, 5);
#if MIP_CONF_IPV4
    CHECK_EQ(send_udp(a, 0, "10.0.0.2", data, sizeof data), MIP_OK);
    CHECK_EQ(mip_lowpan_peek_frame(a->s[1], 0, a->q[0].data, a->q[0].len, buf, sizeof buf, &pk),
             MIP_OK);
    CHECK_EQ(buf[0] >> 4, 4);
    CHECK_EQ(pk.ip_len, 28u + sizeof data);
    CHECK_EQ(pk.dgram_len, 28u + sizeof data);
    CHECK_MEM(buf + 28, data, sizeof data);
    air_deliver(a);
    nh = addr("10.0.0.2");
    CHECK_EQ(mip_lowpan_link_addr_of(a->s[0], 0, &nh, &la), MIP_OK);
    CHECK_EQ(la.mode, MIP_802154_ADDR_SHORT);
    CHECK_EQ(la.short_addr, 2);
    nh = addr("fd00::ff:fe00:2");
#endif
    CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, sizeof data), MIP_OK);
    CHECK_EQ(mip_lowpan_peek_frame(a->s[1], 0, a->q[0].data, a->q[0].len, buf, sizeof buf, &pk),
             MIP_OK);
    CHECK_EQ(buf[0] >> 4, 6);
    CHECK_EQ(pk.dgram_len, 48u + sizeof data);
    air_deliver(a);
    CHECK_EQ(mip_lowpan_link_addr_of(a->s[0], 0, &nh, &la), MIP_OK);
    CHECK_EQ(la.short_addr, 2);
    CHECK_EQ(mip_lowpan_link_addr_of(a->s[0], 5, &nh, &la), MIP_ERR_INVALID);
    air_free(a);
}

/* A frame whose dispatch (uncompressed IPv6, or RAW_IP's last header
 * byte) has no IP byte after it is TRUNCATED: a capture's view of nothing
 * is not a datagram of 0 bytes (callers read its first byte). */
static void test_peek_frame_without_an_ip_byte_is_truncated(void)
{
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0), *r = air_new(MIP_LOWPAN_RAW_IP, 127, 12);
    uint8_t data[8], buf[128], cut[64];
    struct mip_lowpan_peek pk;
    struct mip_802154_hdr h;
    size_t hl;

    fill(data, sizeof data, 6);
    CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, sizeof data), MIP_OK);
    CHECK_EQ(mip_ieee802154_parse(a->q[0].data, a->q[0].len, &h, &hl), MIP_OK);
    memcpy(cut, a->q[0].data, hl);
    cut[hl] = MIP_LOWPAN_DISPATCH_IPV6;
    CHECK_EQ(mip_lowpan_peek_frame(a->s[1], 0, cut, hl + 1u, buf, sizeof buf, &pk),
             MIP_ERR_TRUNCATED);
    cut[hl + 1u] = 0x60;            /* one byte of it: a start, as on the air */
    CHECK_EQ(mip_lowpan_peek_frame(a->s[1], 0, cut, hl + 2u, buf, sizeof buf, &pk), MIP_OK);
    CHECK_EQ(pk.ip_len, 1u);
    CHECK_EQ(send_udp(r, 0, "fd00::ff:fe00:2", data, sizeof data), MIP_OK);
    CHECK_EQ(mip_lowpan_peek_frame(r->s[1], 0, r->q[0].data, 10u, buf, sizeof buf, &pk),
             MIP_ERR_TRUNCATED);
    CHECK_EQ(mip_lowpan_peek_frame(r->s[1], 0, r->q[0].data, 11u, buf, sizeof buf, &pk), MIP_OK);
    CHECK_EQ(pk.ip_len, 1u);
    air_free(a);
    air_free(r);
}

static void test_send_raw_sends_the_datagram_unchanged(void)
{
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    uint8_t data[20], dg[128], again[128];
    struct mip_lowpan_peek pk, pk2;
    struct air_frame first;

    fill(data, sizeof data, 9);
    CHECK_EQ(send_udp(a, 0, "fd00::ff:fe00:2", data, sizeof data), MIP_OK);
    first = a->q[0];
    CHECK_EQ(mip_lowpan_peek_frame(a->s[0], 0, first.data, first.len, dg, sizeof dg, &pk), MIP_OK);
    CHECK_EQ(pk.ip_len, pk.dgram_len);
    air_deliver(a);
    CHECK_EQ(a->sink[1].calls, 1);
    /* the same datagram again, as a relay's local retransmission */
    CHECK_EQ(mip_ip_send_raw(a->s[0], dg, pk.ip_len), MIP_OK);
    CHECK_EQ(a->nq, 1);
    CHECK_EQ(mip_lowpan_peek_frame(a->s[0], 0, a->q[0].data, a->q[0].len, again, sizeof again,
                                   &pk2), MIP_OK);
    CHECK_EQ(pk2.ip_len, pk.ip_len);
    CHECK_MEM(again, dg, pk.ip_len);                    /* hop limit untouched */
    air_deliver(a);
    CHECK_EQ(a->sink[1].calls, 2);
    CHECK(sink_has(&a->sink[1], sizeof data, 9));
    /* refused: length disagreeing with the header, not IP, no route, too big */
    CHECK_EQ(mip_ip_send_raw(a->s[0], dg, pk.ip_len - 1u), MIP_ERR_INVALID);
    CHECK_EQ(mip_ip_send_raw(a->s[0], dg, 10), MIP_ERR_INVALID);
    again[0] = 0x00;
    CHECK_EQ(mip_ip_send_raw(a->s[0], again, pk.ip_len), MIP_ERR_INVALID);
    memcpy(again, dg, pk.ip_len);
    again[24] = 0xfd;
    again[25] = 0x01;                                   /* fd01::... is not on-link */
    CHECK_EQ(mip_ip_send_raw(a->s[0], again, pk.ip_len), MIP_ERR_NOROUTE);
    {
        static uint8_t big[1400];
        memcpy(big, dg, 40);
        mip_wr16(big + 4, (uint16_t)(sizeof big - 40u));
        CHECK_EQ(mip_ip_send_raw(a->s[0], big, sizeof big), MIP_ERR_NOSPACE);
    }
    CHECK_EQ(a->nq, 0);
    air_free(a);
}
#endif

#if MIP_CONF_FORWARD && MIP_CONF_LOWPAN_HC
/* --- TCP header compression (docs/LOWPAN.md) -------------------------------- */

struct got_local {
    unsigned n;
    size_t len;
    uint8_t pkt[256];
};

static enum mip_fwd_verdict keep_local(void *ctx, struct mip_stack *s, bool out, uint8_t netif,
                                       const uint8_t *pkt, size_t len)
{
    struct got_local *g = ctx;
    (void)s;
    (void)netif;
    if (!out && len > 40u && pkt[6] == 6u) {   /* TCP (not the ICMP errors a
                                                   stack without TCP answers with) */
        g->n++;
        g->len = len;
        memcpy(g->pkt, pkt, len < sizeof g->pkt ? len : sizeof g->pkt);
    }
    return MIP_FWD_PASS;
}

/* fd00::ff:fe00:FROM -> fd00::ff:fe00:TO, TCP 61616 <-> 80 (ports swapped
 * from node 2), ACK, window 1024, `payload` bytes, right checksum. */
static size_t tcp_dgram(uint8_t *d, unsigned from, uint32_t seq, uint32_t ack, size_t payload)
{
    struct mip_addr a = addr(from == 1 ? "fd00::ff:fe00:1" : "fd00::ff:fe00:2");
    struct mip_addr b = addr(from == 1 ? "fd00::ff:fe00:2" : "fd00::ff:fe00:1");
    size_t tl = 20u + payload;
    memset(d, 0, 40u + tl);
    d[0] = 0x60;
    mip_wr16(d + 4, (uint16_t)tl);
    d[6] = 6;
    d[7] = 64;
    memcpy(d + 8, a.bytes, 16);
    memcpy(d + 24, b.bytes, 16);
    mip_wr16(d + 40, from == 1 ? 61616 : 80);
    mip_wr16(d + 42, from == 1 ? 80 : 61616);
    mip_wr32(d + 44, seq);
    mip_wr32(d + 48, ack);
    d[52] = 0x50;
    d[53] = 0x10;
    mip_wr16(d + 54, 1024);
    fill(d + 60, payload, seq);
    mip_wr16(d + 56, mip_cksum_finish(mip_cksum_add(mip_cksum_pseudo6(d + 8, d + 24, 6,
                                                                        (uint32_t)tl),
                                                      d + 40, tl)));
    return 40u + tl;
}

static void set_tcp_hc(struct air *a, unsigned node, bool on)
{
    mip_netif_get(a->s[node], 0)->lowpan.tcp_hc = on;
}

static bool refuse_all(void *ctx, const struct mip_802154_addr *peer)
{
    (void)ctx;
    (void)peer;
    return false;
}

/* Two IPHC nodes with TCP header compression on; the TCP datagrams each
 * receives are kept in g0 / g1 (NULL: not watched). */
static struct air *tcp_hc_air(struct got_local *g0, struct got_local *g1)
{
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    struct got_local *g[NODES] = { g0, g1 };
    unsigned i;
    for (i = 0; i < NODES; i++) {
        set_tcp_hc(a, i, true);
        if (g[i] != NULL) {
            memset(g[i], 0, sizeof *g[i]);
            mip_ip_set_local_hook(a->s[i], keep_local, g[i]);
        }
    }
    return a;
}

/* A flow of 40 segments with a quarter of the frames lost on the air: the
 * first goes FULL (MHR 9 + IPHC 2 + 1 + 20), every later one 7 bytes of
 * TCP NHC (16-bit sequence number, 8-bit acknowledgement number); every segment that arrives reaches IP byte for byte, and no
 * context ever mismatches (the losses stay within the forms' reach). */
static void test_tcp_hc_flow_with_losses(void)
{
    struct air *a;
    struct got_local g;
    uint8_t d[256];
    unsigned i, delivered = 0, bad = 0, long_frames = 0;
    a = tcp_hc_air(NULL, &g);
    for (i = 0; i < 40u; i++) {
        size_t len = tcp_dgram(d, 1, 1000u + 50u * i, 7000, 50);
        unsigned before = g.n;
        CHECK_EQ(mip_ip_send_raw(a->s[0], d, len), MIP_OK);
        CHECK_EQ(a->nq, 1);
        if (a->q[0].len != 9u + 2u + (i == 0 ? 21u : 7u) + 50u)
            long_frames++;
        if (i != 0 && i % 4u == 0u) {
            a->nq = 0;   /* lost */
            continue;
        }
        air_deliver(a);
        if (g.n == before + 1u) {
            delivered++;
            if (g.len != len || memcmp(g.pkt, d, len) != 0)
                bad++;
        }
    }
    CHECK_EQ(long_frames, 0);
    CHECK_EQ(delivered, 31);
    CHECK_EQ(bad, 0);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_tcphc_mismatch), 0);
    CHECK_EQ(stat(a, 0, MIP_STAT_lowpan_tcphc_tx), 40);
    CHECK_EQ(stat(a, 0, MIP_STAT_lowpan_tcphc_full_tx), 1);
    air_free(a);
}

/* The FULL header is lost: the next segment finds no context (dropped,
 * counted); the receiver's next segment the other way carries R, and the
 * sender's next one goes FULL and arrives: repaired on the link. */
static void test_tcp_hc_lost_full_repaired(void)
{
    struct air *a;
    struct got_local g0, g1;
    uint8_t d[256];
    size_t len;
    a = tcp_hc_air(&g0, &g1);
    CHECK_EQ(mip_ip_send_raw(a->s[0], d, tcp_dgram(d, 1, 1000, 7000, 50)), MIP_OK);
    a->nq = 0;                                            /* the FULL is lost */
    CHECK_EQ(mip_ip_send_raw(a->s[0], d, tcp_dgram(d, 1, 1050, 7000, 50)), MIP_OK);
    air_deliver(a);
    CHECK_EQ(g1.n, 0);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_tcphc_mismatch), 1);
    /* node 2's ACK: its own context is new (FULL), and it carries R */
    len = tcp_dgram(d, 2, 7000, 1100, 0);
    CHECK_EQ(mip_ip_send_raw(a->s[1], d, len), MIP_OK);
    CHECK_EQ(a->nq, 1);
    CHECK((a->q[0].data[9 + 2] & (MIP_LOWPAN_TCPHC_FULL | MIP_LOWPAN_TCPHC_REFRESH)) ==
          (MIP_LOWPAN_TCPHC_FULL | MIP_LOWPAN_TCPHC_REFRESH));
    air_deliver(a);
    CHECK_EQ(g0.n, 1);
    CHECK_EQ(stat(a, 0, MIP_STAT_lowpan_tcphc_refresh_rx), 1);
    len = tcp_dgram(d, 1, 1100, 7000, 50);
    CHECK_EQ(mip_ip_send_raw(a->s[0], d, len), MIP_OK);
    CHECK((a->q[0].data[9 + 2] & MIP_LOWPAN_TCPHC_FULL) != 0);
    air_deliver(a);
    CHECK_EQ(g1.n, 1);
    CHECK(g1.len == len && memcmp(g1.pkt, d, len) == 0);
    /* and the next ACK no longer asks */
    CHECK_EQ(mip_ip_send_raw(a->s[1], d, tcp_dgram(d, 2, 7000, 1150, 0)), MIP_OK);
    CHECK((a->q[0].data[9 + 2] & MIP_LOWPAN_TCPHC_REFRESH) == 0);
    air_deliver(a);
    air_free(a);
}

/* A context gone wrong (here: the receiver's reference window changed
 * behind its back) rebuilds a header whose TCP checksum fails: dropped at
 * this hop, counted, and R owed. */
static void test_tcp_hc_mismatch_caught_by_checksum(void)
{
    struct air *a;
    struct got_local g;
    uint8_t d[256];
    unsigned k;
    a = tcp_hc_air(NULL, &g);
    CHECK_EQ(mip_ip_send_raw(a->s[0], d, tcp_dgram(d, 1, 1000, 7000, 50)), MIP_OK);
    air_deliver(a);
    CHECK_EQ(g.n, 1);
    for (k = 0; k < MIP_LOWPAN_TCPHC_SLOTS; k++)
        mip_netif_get(a->s[1], 0)->lowpan.tcphc.rx[k].ctx.window ^= 0x0100u;
    CHECK_EQ(mip_ip_send_raw(a->s[0], d, tcp_dgram(d, 1, 1050, 7000, 50)), MIP_OK);
    air_deliver(a);
    CHECK_EQ(g.n, 1);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_tcphc_mismatch), 1);
    CHECK_EQ(mip_netif_get(a->s[1], 0)->lowpan.tcphc.owe_r_used, 1);
    air_free(a);
}

/* A datagram from tcp_dgram with other flags and window (checksum redone). */
static size_t retouch(uint8_t *d, size_t len, uint8_t flags, uint16_t window)
{
    d[53] = flags;
    mip_wr16(d + 54, window);
    mip_wr16(d + 56, 0);
    mip_wr16(d + 56, mip_cksum_finish(mip_cksum_add(
                         mip_cksum_pseudo6(d + 8, d + 24, 6, (uint32_t)(len - 40u)), d + 40,
                         len - 40u)));
    return len;
}

/* A lost FULL leaves the ends with different references (found by
 * fuzz_lowpan_tcphc): the next compressed header carries the window and
 * flags inline because they differ from the sender's new references, but
 * they equal the receiver's old ones. That is the context's disagreement,
 * not a malformed frame: it must be a mismatch (dropped, R owed, repaired
 * by the FULL that R brings), or every later segment of the connection
 * is refused. */
static void test_tcp_hc_lost_full_with_new_references_repaired(void)
{
    struct air *a;
    struct got_local g0, g1;
    uint8_t d[256];
    size_t len;
    a = tcp_hc_air(&g0, &g1);
    CHECK_EQ(mip_ip_send_raw(a->s[0], d, tcp_dgram(d, 1, 1000, 7000, 50)), MIP_OK);
    air_deliver(a);                           /* FULL: references ACK, 1024 */
    CHECK_EQ(g1.n, 1);
    /* a retransmission with PSH and window 2048 goes FULL, and is lost */
    len = retouch(d, tcp_dgram(d, 1, 1000, 7000, 50), 0x18, 2048);
    CHECK_EQ(mip_ip_send_raw(a->s[0], d, len), MIP_OK);
    CHECK((a->q[0].data[9 + 2] & MIP_LOWPAN_TCPHC_FULL) != 0);
    a->nq = 0;
    /* ACK and 1024 again: inline against the sender's new references */
    len = tcp_dgram(d, 1, 1050, 7000, 50);
    CHECK_EQ(mip_ip_send_raw(a->s[0], d, len), MIP_OK);
    CHECK((a->q[0].data[9 + 2] & MIP_LOWPAN_TCPHC_FULL) == 0);
    air_deliver(a);
    CHECK_EQ(g1.n, 1);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_tcphc_mismatch), 1);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_malformed), 0);
    /* the other way asks for a refresh; the next segment comes FULL */
    CHECK_EQ(mip_ip_send_raw(a->s[1], d, tcp_dgram(d, 2, 7000, 1050, 0)), MIP_OK);
    CHECK((a->q[0].data[9 + 2] & MIP_LOWPAN_TCPHC_REFRESH) != 0);
    air_deliver(a);
    len = tcp_dgram(d, 1, 1100, 7000, 50);
    CHECK_EQ(mip_ip_send_raw(a->s[0], d, len), MIP_OK);
    air_deliver(a);
    CHECK_EQ(g1.n, 2);
    CHECK(g1.len == len && memcmp(g1.pkt, d, len) == 0);
    air_free(a);
}

/* Ports p0 -> p1 and, when link_local, fe80:: addresses for a datagram
 * from tcp_dgram (checksum redone). */
static size_t reflow(uint8_t *d, size_t len, uint16_t p0, uint16_t p1, bool link_local)
{
    if (link_local) {
        d[8] = 0xfe;
        d[9] = 0x80;
        d[24] = 0xfe;
        d[25] = 0x80;
    }
    mip_wr16(d + 40, p0);
    mip_wr16(d + 42, p1);
    return retouch(d, len, d[53], mip_rd16(d + 54));
}

/* A new flow takes over a context id and its FULL is lost: the receiver
 * still holds the old flow's context under that id. Here the old flow is
 * 61616 -> 80 between the fd00:: addresses and the new one 80 -> 61616
 * between the link-local ones, with the same numbers: decoded with the old
 * ports, the header has them swapped, and a swap of two 16-bit words
 * leaves the TCP checksum as it was (found by fuzz_lowpan_tcphc). The
 * decompressor checks the addresses against the context's (their hash,
 * kept from its FULL), so this is a mismatch, not a segment delivered to
 * the wrong connection. */
static void test_tcp_hc_context_of_another_flow_is_a_mismatch(void)
{
    struct air *a;
    struct got_local g;
    uint8_t d[256];
    size_t len;
    unsigned k;
    a = tcp_hc_air(NULL, &g);
    CHECK_EQ(mip_ip_send_raw(a->s[0], d, tcp_dgram(d, 1, 1000, 7000, 50)), MIP_OK);
    air_deliver(a);
    CHECK_EQ(mip_ip_send_raw(a->s[0], d, tcp_dgram(d, 1, 1050, 7000, 50)), MIP_OK);
    air_deliver(a);                               /* flow X: context id 0 */
    for (k = 1; k < MIP_LOWPAN_TCPHC_CIDS; k++) {   /* three more flows: ids 1..3 */
        len = reflow(d, tcp_dgram(d, 1, 5000, 7000, 50), (uint16_t)(2000u + k), 80, false);
        CHECK_EQ(mip_ip_send_raw(a->s[0], d, len), MIP_OK);
        air_deliver(a);
    }
    CHECK_EQ(g.n, 2u + MIP_LOWPAN_TCPHC_CIDS - 1u);
    /* flow Y takes X's id (the least recently used); its FULL is lost */
    len = reflow(d, tcp_dgram(d, 1, 1050, 7000, 50), 80, 61616, true);
    CHECK_EQ(mip_ip_send_raw(a->s[0], d, len), MIP_OK);
    CHECK_EQ(a->q[0].data[9 + 2] & (MIP_LOWPAN_TCPHC_FULL | 3u), MIP_LOWPAN_TCPHC_FULL | 0u);
    a->nq = 0;
    len = reflow(d, tcp_dgram(d, 1, 1100, 7000, 50), 80, 61616, true);
    CHECK_EQ(mip_ip_send_raw(a->s[0], d, len), MIP_OK);
    CHECK_EQ(a->q[0].data[9 + 2] & (MIP_LOWPAN_TCPHC_FULL | 3u), 0u);
    air_deliver(a);
    CHECK_EQ(g.n, 2u + MIP_LOWPAN_TCPHC_CIDS - 1u);   /* not delivered with X's ports */
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_tcphc_mismatch), 1);
    air_free(a);
}

/* Per neighbour: a peer the callback refuses gets standard IPHC (the TCP
 * header inline, Next Header inline); a receiver without tcp_hc drops a
 * TCP NHC frame and counts it. */
static void test_tcp_hc_per_neighbour(void)
{
    struct air *a = air_new(MIP_LOWPAN_IPHC, 127, 0);
    struct got_local g;
    uint8_t d[256];
    size_t len;
    memset(&g, 0, sizeof g);
    set_tcp_hc(a, 0, true);
    mip_netif_get(a->s[0], 0)->lowpan.tcp_hc_peer = refuse_all;
    mip_ip_set_local_hook(a->s[1], keep_local, &g);
    len = tcp_dgram(d, 1, 1000, 7000, 50);
    CHECK_EQ(mip_ip_send_raw(a->s[0], d, len), MIP_OK);
    CHECK_EQ(a->q[0].len, 9u + 3u + 20u + 50u);
    air_deliver(a);
    CHECK_EQ(g.n, 1);
    CHECK(g.len == len && memcmp(g.pkt, d, len) == 0);
    mip_netif_get(a->s[0], 0)->lowpan.tcp_hc_peer = NULL;   /* node 2 has none */
    CHECK_EQ(mip_ip_send_raw(a->s[0], d, len), MIP_OK);
    CHECK_EQ(a->q[0].len, 9u + 2u + 21u + 50u);
    air_deliver(a);
    CHECK_EQ(g.n, 1);
    CHECK_EQ(stat(a, 1, MIP_STAT_drop_lowpan_unsupported), 1);
    air_free(a);
}
#endif

int main(void)
{
    RUN(test_udp_every_size_across_iphc);
#if MIP_CONF_LOWPAN_HC
    RUN(test_udp_checksum_elided_every_size);
    RUN(test_udp_hc_refused_without_authorisation);
#endif
    RUN(test_udp_small_frames_extended_source);
    RUN(test_udp_across_frame_sizes);
    RUN(test_two_interleaved_datagrams);
    RUN(test_stale_datagram_superseded_by_same_sender);
    RUN(test_forged_first_fragments_do_not_block_neighbours);
    RUN(test_datagram_in_progress_survives_forged_flood);
    RUN(test_neighbour_at_its_share_waits);
    RUN(test_reassembly_key_includes_link_destination);
    RUN(test_missing_fragment_times_out);
    RUN(test_duplicate_fragments_tolerated);
    RUN(test_inconsistent_fragments_drop_the_datagram);
    RUN(test_echo_request_answered);
    RUN(test_linklocal_and_context0_frames);
    RUN(test_underivable_next_hop_dropped);
    RUN(test_driver_refusal_stops_fragments);
    RUN(test_datagram_sent_whole_or_not_at_all);
    RUN(test_forged_flood_leaves_known_neighbours_their_slots);
    RUN(test_input_filtering_and_errors);
    RUN(test_raw_ip_header_12);
    RUN(test_raw_ip_header_23);
    RUN(test_config_errors);
#if MIP_CONF_FORWARD
    RUN(test_peek_frame_reads_iphc_and_frag1);
    RUN(test_peek_frame_and_link_addr_raw_ip);
    RUN(test_peek_frame_without_an_ip_byte_is_truncated);
    RUN(test_send_raw_sends_the_datagram_unchanged);
#endif
#if MIP_CONF_FORWARD && MIP_CONF_LOWPAN_HC
    RUN(test_tcp_hc_flow_with_losses);
    RUN(test_tcp_hc_lost_full_repaired);
    RUN(test_tcp_hc_mismatch_caught_by_checksum);
    RUN(test_tcp_hc_lost_full_with_new_references_repaired);
    RUN(test_tcp_hc_context_of_another_flow_is_a_mismatch);
    RUN(test_tcp_hc_per_neighbour);
#endif
    return TESTING_DONE();
}
