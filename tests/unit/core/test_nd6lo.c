/*
 * 6LoWPAN-ND (nd6lo.h): stacks joined by an in-memory radio. Node 0 is the
 * router (6LBR: fd00:0:0:1::ff:fe00:1, prefix fd00:0:0:1::/64, context 1 =
 * that prefix), the others hosts. One test per rule: RS/RA and
 * registration, DAD by registration, the RS backoff, re-registration,
 * an unreachable router, the registration table against a flood, the ABRO
 * versions, contexts in IPHC (and their C flag and lifetime), no multicast
 * NS for resolution.
 *
 * Frames are queued and delivered only by run(), never from inside a
 * transmit, so a stack is never re-entered.
 */
#include "testing.h"
#include "moteip/stack.h"
#include "moteip/nd6lo.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/nd6lo.h"
#include "moteip/wire/sixlowpan.h"
#include <stdlib.h>
#include <string.h>

#if MIP_CONF_ND6LO_ROUTER

#define NODES 6
#define QMAX  256
#define PAN   0xABCDu
#define PORT  5683u

struct frame {
    uint8_t  from;
    uint16_t len;
    uint8_t  data[MIP_RADIO_FRAME_MAX];
};

struct port {
    struct air *air;
    uint8_t node;
};

struct air {
    struct mip_stack *s[NODES];
    struct port port[NODES];
    bool up[NODES];
    struct frame q[QMAX];
    unsigned nq;
    mip_time_t now;
    /* what was sent, by kind */
    unsigned rs[NODES], ns_bcast[NODES], ns_ucast[NODES];
    mip_time_t rs_at[16];
    unsigned nrs_at;
    size_t udp_frame_len;
    unsigned udp_rx;
    struct mip_nd6lo_router_config rcfg;
};

static const uint8_t prefix[16] = {0xfd, 0, 0, 0, 0, 0, 0, 1};

/* Decompresses a frame's IPv6 header enough to classify it. */
static void classify(struct air *a, unsigned from, const uint8_t *f, size_t len)
{
    struct mip_802154_hdr h;
    struct mip_lowpan_env env;
    uint8_t ip[64];
    size_t hl, consumed, ol;
    if (mip_ieee802154_parse(f, len, &h, &hl) != MIP_OK)
        return;
    memset(&env, 0, sizeof env);
    env.src = &h.src;
    env.dst = &h.dst;
    env.ctx = a->s[from]->netif[0].lowpan.ctx_prefix;
    env.ctx_count = MIP_LOWPAN_CTX_IDS;
    if (mip_lowpan_iphc_decompress(f + hl, len - hl, &env, 0, ip, sizeof ip, &consumed,
                                   &ol) != MIP_OK)
        return;
    if (ip[6] == 58 && len - hl - consumed > 0) {
        uint8_t type = f[hl + consumed];
        bool bcast = h.dst.mode == MIP_802154_ADDR_SHORT && h.dst.short_addr == 0xFFFFu;
        if (type == MIP_ICMPV6_RS) {
            a->rs[from]++;
            if (a->nrs_at < 16)
                a->rs_at[a->nrs_at++] = a->now;
        } else if (type == MIP_ICMPV6_NS) {
            if (bcast)
                a->ns_bcast[from]++;
            else
                a->ns_ucast[from]++;
        }
    } else if (ol == 48) {
        a->udp_frame_len = len;   /* NHC UDP */
    }
}

static mip_status air_tx(void *ctx, const uint8_t *frame, size_t len)
{
    struct port *p = ctx;
    struct air *a = p->air;
    if (a->nq < QMAX && len <= MIP_RADIO_FRAME_MAX) {
        a->q[a->nq].from = p->node;
        a->q[a->nq].len = (uint16_t)len;
        memcpy(a->q[a->nq].data, frame, len);
        a->nq++;
    }
    classify(a, p->node, frame, len);
    return MIP_OK;
}

static const struct mip_netif_driver drv = { air_tx, NULL, NULL };

/* Delivers every queued frame to every other node that is up (the netif
 * filters by destination), repeating until the air is quiet. */
static void deliver_rounds(struct air *a, unsigned max)
{
    unsigned rounds = 0;
    while (a->nq > 0 && rounds++ < max) {
        struct frame q[QMAX];
        unsigned n = a->nq, i, j;
        memcpy(q, a->q, n * sizeof q[0]);
        a->nq = 0;
        for (i = 0; i < n; i++) {
            if (!a->up[q[i].from])
                continue;
            for (j = 0; j < NODES; j++)
                if (j != q[i].from && a->s[j] != NULL && a->up[j])
                    mip_stack_input(a->s[j], 0, q[i].data, q[i].len, a->now);
        }
    }
}

static void deliver(struct air *a)
{
    deliver_rounds(a, 50);
}

/* Advances time to now + ms in poll-sized steps, delivering as it goes. */
static void run(struct air *a, uint32_t ms)
{
    mip_time_t end = a->now + ms;
    deliver(a);
    while (mip_time_before(a->now, end)) {
        uint32_t next = 1000u, i;
        for (i = 0; i < NODES; i++)
            if (a->s[i] != NULL && a->up[i]) {
                uint32_t d = mip_stack_poll(a->s[i], a->now);
                if (d < next) next = d;
            }
        deliver(a);
        if (next == 0)
            next = 1;
        if ((uint32_t)(end - a->now) < next)
            next = (uint32_t)(end - a->now);
        a->now += next;
    }
    for (uint32_t i = 0; i < NODES; i++)
        if (a->s[i] != NULL && a->up[i])
            (void)mip_stack_poll(a->s[i], a->now);
    deliver(a);
}

static void udp_sink(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                     const uint8_t *data, size_t len)
{
    struct air *a = ctx;
    (void)s; (void)m; (void)data; (void)len;
    a->udp_rx++;
}

/* Node i: short address sa (0xFFFE: none), extended 02:..:i+1. */
static void add_node(struct air *a, unsigned i, uint16_t sa)
{
    struct mip_lowpan_config c;
    struct mip_stack_config sc;
    uint8_t seed[4] = {9, 8, 7, (uint8_t)i}, idx;
    a->s[i] = calloc(1, sizeof(struct mip_stack));
    memset(&sc, 0, sizeof sc);
    sc.entropy = seed;
    sc.entropy_len = sizeof seed;
    mip_stack_init(a->s[i], &sc, a->now);
    memset(&c, 0, sizeof c);
    c.mode = MIP_LOWPAN_IPHC;
    c.pan_id = PAN;
    c.short_addr = sa;
    c.ext_addr[0] = 0x00;
    c.ext_addr[1] = 0x12;
    c.ext_addr[7] = (uint8_t)(i + 1u);
    c.frame_max = 127;
    a->port[i].air = a;
    a->port[i].node = (uint8_t)i;
    CHECK_EQ(mip_netif_add_lowpan(a->s[i], &c, &drv, &a->port[i], &idx), MIP_OK);
    a->up[i] = true;
    CHECK_EQ(mip_udp_bind(a->s[i], PORT, udp_sink, a), MIP_OK);
}

static struct mip_addr ad(const char *t)
{
    struct mip_addr x;
    if (mip_addr_parse(t, &x, NULL) != MIP_OK)
        abort();
    return x;
}

/* Router on node 0 with contexts as given; hosts 1..nhosts started. */
static struct air *mk(unsigned nhosts, uint8_t nctx, bool ctx_c)
{
    struct air *a = calloc(1, sizeof(*a));
    struct mip_addr me = ad("fd00:0:0:1::ff:fe00:1");
    unsigned i;
    a->now = 5000;
    add_node(a, 0, 0x0001);
    CHECK_EQ(mip_netif_add_addr(a->s[0], 0, &me, 64), MIP_OK);
    memcpy(a->rcfg.prefix, prefix, 16);
    a->rcfg.prefix_len = 64;
    a->rcfg.valid_s = 86400;
    a->rcfg.preferred_s = 43200;
    a->rcfg.router_lifetime_s = 1800;
    a->rcfg.abro_version = 5;
    memcpy(a->rcfg.lbr, me.bytes, 16);
    a->rcfg.max_reg_lifetime_min = 60;
    a->rcfg.ctx_count = nctx;
    a->rcfg.ctx[0].cid = 1;
    a->rcfg.ctx[0].compress = ctx_c;
    a->rcfg.ctx[0].lifetime_min = 30;
    memcpy(a->rcfg.ctx[0].prefix, prefix, 8);
    CHECK_EQ(mip_nd6lo_router_start(a->s[0], 0, &a->rcfg), MIP_OK);
    for (i = 1; i <= nhosts; i++) {
        add_node(a, i, (uint16_t)(i + 1u));
        CHECK_EQ(mip_nd6lo_host_start(a->s[i], 0, a->now), MIP_OK);
    }
    return a;
}

static void air_free(struct air *a)
{
    unsigned i;
    for (i = 0; i < NODES; i++) {
        if (a->s[i] != NULL)
            CHECK_EQ(a->s[i]->pool.in_use, 0);
        free(a->s[i]);
    }
    free(a);
}

static uint32_t st(struct air *a, unsigned i, enum mip_stat w)
{
    return mip_stack_stat(a->s[i], w);
}

static bool has(struct air *a, unsigned i, const char *t)
{
    struct mip_addr x = ad(t);
    return mip_netif_has_addr(&a->s[i]->netif[0], &x);
}

/* RS with SLLAO to all-routers, a unicast RA, SLAAC from the PIO with the
 * short-address IID, a default route, registration granted: the router's
 * table holds it, and a datagram to the router's global address flows. */
static void test_join_and_register(void)
{
    struct air *a = mk(1, 1, true);
    struct mip_addr mine = ad("fd00:0:0:1::ff:fe00:2"), peer = ad("fd00:0:0:1::ff:fe00:1");
    const struct mip_nd6lo_reg *r;
    uint8_t msg[4] = {1, 2, 3, 4};
    CHECK_EQ(a->rs[1], 0);          /* a random delay below a second */
    run(a, 1000);
    CHECK_EQ(a->rs[1], 1);
    CHECK_EQ(st(a, 0, MIP_STAT_nd6lo_ra_tx), 1);
    CHECK_EQ(st(a, 1, MIP_STAT_nd6lo_ra_rx), 1);
    CHECK(has(a, 1, "fd00:0:0:1::ff:fe00:2"));
    CHECK_EQ(st(a, 1, MIP_STAT_nd6lo_reg_ok), 1);
    CHECK_EQ(mip_nd6lo_host_reg_state(a->s[1], mine.bytes), MIP_ND6LO_H_REGISTERED);
    r = mip_nd6lo_router_find(a->s[0], mine.bytes);
    CHECK(r != NULL);
    if (r != NULL) {
        CHECK_EQ(r->llmode, MIP_802154_ADDR_SHORT);
        CHECK_EQ(mip_rd16(r->lladdr), 2);
        CHECK(r->left_ms <= (uint32_t)MIP_ND6LO_REG_LIFETIME_MIN * 60000u);
        CHECK(r->left_ms > (uint32_t)MIP_ND6LO_REG_LIFETIME_MIN * 60000u - 1000u);
    }
    /* no more RSs while the router lives */
    run(a, 60000);
    CHECK_EQ(a->rs[1], 1);
    CHECK_EQ(mip_udp_sendto(a->s[1], NULL, 1000, &peer, PORT, MIP_NETIF_ANY, msg, 4), MIP_OK);
    run(a, 10);
    CHECK_EQ(a->udp_rx, 1);
    CHECK_EQ(mip_udp_sendto(a->s[0], NULL, 1000, &mine, PORT, MIP_NETIF_ANY, msg, 4), MIP_OK);
    run(a, 10);
    CHECK_EQ(a->udp_rx, 2);
    /* every NS the host sent was unicast: no multicast resolution */
    CHECK(a->ns_ucast[1] >= 1);
    CHECK_EQ(a->ns_bcast[1], 0);
    CHECK_EQ(a->ns_bcast[0], 0);
    air_free(a);
}

/* DAD by registration: node 2 holds node 1's global address by hand under
 * another EUI-64; the router answers status 1 and node 2 drops it, while
 * node 1 keeps its registration. */
static void test_duplicate_removed(void)
{
    struct air *a = mk(1, 0, false);
    struct mip_addr dup = ad("fd00:0:0:1::ff:fe00:2");
    run(a, 1100);
    CHECK_EQ(st(a, 1, MIP_STAT_nd6lo_reg_ok), 1);
    add_node(a, 2, 0xFFFE);
    CHECK_EQ(mip_netif_add_addr(a->s[2], 0, &dup, 64), MIP_OK);
    /* and the router's own address */
    {
        struct mip_addr r0 = ad("fd00:0:0:1::ff:fe00:1");
        CHECK_EQ(mip_netif_add_addr(a->s[2], 0, &r0, 64), MIP_OK);
    }
    CHECK_EQ(mip_nd6lo_host_start(a->s[2], 0, a->now), MIP_OK);
    run(a, 1100);
    CHECK_EQ(st(a, 0, MIP_STAT_nd6lo_reg_dup_tx), 2);
    CHECK_EQ(st(a, 2, MIP_STAT_nd6lo_reg_dup), 2);
    CHECK(!has(a, 2, "fd00:0:0:1::ff:fe00:2"));
    CHECK(!has(a, 2, "fd00:0:0:1::ff:fe00:1"));
    CHECK(has(a, 0, "fd00:0:0:1::ff:fe00:1"));
    CHECK(has(a, 1, "fd00:0:0:1::ff:fe00:2"));
    CHECK(mip_nd6lo_router_find(a->s[0], dup.bytes) != NULL);
    /* node 2's own SLAAC address (EUI-64 IID) is registered */
    CHECK_EQ(st(a, 2, MIP_STAT_nd6lo_reg_ok), 1);
    CHECK(has(a, 2, "fd00:0:0:1:212::3"));
    air_free(a);
}

/* RFC 6775 s.5.3: three RSs 10 s apart, then doubling up to 60 s. */
static void test_rs_backoff(void)
{
    struct air *a = mk(1, 0, false);
    static const uint32_t want[] = {0, 10, 20, 40, 80, 140, 200, 260};
    unsigned i;
    mip_time_t t0;
    a->up[0] = false;                 /* no router */
    run(a, 266000);
    CHECK_EQ(a->nrs_at, 8);
    t0 = a->rs_at[0];
    CHECK((uint32_t)(t0 - 5000u) < 1000u);
    for (i = 0; i < 8 && i < a->nrs_at; i++)
        CHECK_EQ((a->rs_at[i] - t0) / 1000u, want[i]);
    /* once a router answers, solicitation stops */
    a->up[0] = true;
    run(a, 60000);
    CHECK_EQ(st(a, 1, MIP_STAT_nd6lo_reg_ok), 1);
    i = a->nrs_at;
    run(a, 300000);
    CHECK_EQ(a->nrs_at, i);
    air_free(a);
}

/* Re-registration at three quarters of the granted lifetime, with a new
 * TID; the router's entry never runs out meanwhile. The router caps the
 * lifetime asked for. */
static void test_reregistration(void)
{
    struct air *a = mk(1, 0, false);
    struct mip_addr mine = ad("fd00:0:0:1::ff:fe00:2");
    const struct mip_nd6lo_reg *r;
    uint8_t tid0;
    a->rcfg.max_reg_lifetime_min = 20;
    run(a, 1100);
    r = mip_nd6lo_router_find(a->s[0], mine.bytes);
    CHECK(r != NULL);
    if (r == NULL) {
        air_free(a);
        return;
    }
    CHECK(r->left_ms <= 20u * 60000u && r->left_ms > 20u * 60000u - 1000u);
    tid0 = r->tid;
    run(a, 15u * 60000u - 1000u);
    CHECK_EQ(st(a, 1, MIP_STAT_nd6lo_reg_ok), 1);
    run(a, 2000);
    CHECK_EQ(st(a, 1, MIP_STAT_nd6lo_reg_ok), 2);
    r = mip_nd6lo_router_find(a->s[0], mine.bytes);
    CHECK(r != NULL && r->tid == (uint8_t)(tid0 + 1u));
    /* hours later, still registered, never expired at the router */
    run(a, 3u * 3600u * 1000u);
    CHECK(mip_nd6lo_router_find(a->s[0], mine.bytes) != NULL);
    CHECK_EQ(st(a, 0, MIP_STAT_nd6lo_reg_expired), 0);
    /* the router goes away: whichever comes first, the renewal (three
     * NSs 1 s apart unanswered) or the router's lifetime, the host ends up
     * soliciting again with its registration waiting for a router */
    a->up[0] = false;
    {
        uint32_t before = st(a, 1, MIP_STAT_nd6lo_reg_tx), rs = a->rs[1];
        run(a, 31u * 60000u);
        CHECK(st(a, 1, MIP_STAT_nd6lo_reg_tx) == before ||
              (st(a, 1, MIP_STAT_nd6lo_reg_tx) == before + 3u &&
               st(a, 1, MIP_STAT_nd6lo_reg_timeout) == 1));
        CHECK(a->rs[1] > rs);
        CHECK(!a->s[1]->nd6lo.has_router);
        CHECK_EQ(mip_nd6lo_host_reg_state(a->s[1], mine.bytes), MIP_ND6LO_H_WAIT);
        /* a router again: registered at once */
        a->up[0] = true;
        run(a, 61000);
        CHECK_EQ(mip_nd6lo_host_reg_state(a->s[1], mine.bytes), MIP_ND6LO_H_REGISTERED);
    }
    air_free(a);
}

/* A host's unanswered registration ends after MAX_UNICAST_SOLICIT. */
static void test_unanswered_registration(void)
{
    struct air *a = mk(1, 0, false);
    /* let the RS and the RA through, then silence the router */
    a->s[1]->nd6lo.rs_left_ms = 0;
    (void)mip_stack_poll(a->s[1], a->now);
    deliver_rounds(a, 2);
    a->up[0] = false;
    run(a, 5000);
    CHECK_EQ(st(a, 1, MIP_STAT_nd6lo_reg_tx), 3);
    CHECK_EQ(st(a, 1, MIP_STAT_nd6lo_reg_timeout), 1);
    air_free(a);
}

/* Sends a forged NS-EARO from node `from` (any stack) to the router:
 * target, ROVR filled with `rovr`, SLLAO short address `sll`. */
static void forge_ns(struct air *a, unsigned from, const uint8_t target[16], uint8_t rovr,
                     uint16_t sll, uint16_t life)
{
    uint8_t msg[80];
    size_t n = 0, w = 0;
    struct mip_nd_earo e;
    struct mip_802154_addr l;
    struct mip_ip_tx tx;
    struct mip_addr src = ad("fe80::ff:fe00:99"), dst = ad("fe80::ff:fe00:1");
    uint32_t sum;
    memset(&e, 0, sizeof e);
    e.t = true;
    e.lifetime_min = life;
    e.rovr_len = 8;
    memset(e.rovr, rovr, 8);
    memset(&l, 0, sizeof l);
    l.mode = MIP_802154_ADDR_SHORT;
    l.short_addr = sll;
    CHECK_EQ(mip_nd_emit_ns(target, NULL, 0, msg, sizeof msg, &n), MIP_OK);
    CHECK_EQ(mip_nd_lla_802154_emit(MIP_ND_OPT_SLLA, &l, msg + n, sizeof msg - n, &w), MIP_OK);
    n += w;
    CHECK_EQ(mip_nd_earo_emit(&e, msg + n, sizeof msg - n, &w), MIP_OK);
    n += w;
    sum = mip_cksum_pseudo6(src.bytes, dst.bytes, 58, (uint32_t)n);
    mip_wr16(msg + 2, mip_cksum_finish(mip_cksum_add(sum, msg, n)));
    memset(&tx, 0, sizeof tx);
    tx.src = src;
    tx.dst = dst;
    tx.proto = 58;
    tx.ttl = 255;
    tx.netif = 0;
    CHECK_EQ(mip_ip_output_copy(a->s[from], &tx, msg, n), MIP_OK);
    deliver(a);
}

/* A flood of forged registrations: one source gets MIP_ND6LO_REG_PER_SRC
 * entries, many sources fill the table; then every further one is refused
 * with status 2 and counted, and the registered neighbour stays. */
static void test_flood_keeps_registered(void)
{
    struct air *a = mk(1, 0, false);
    struct mip_addr mine = ad("fd00:0:0:1::ff:fe00:2");
    uint8_t t[16];
    unsigned i, accepted;
    run(a, 1100);
    CHECK(mip_nd6lo_router_find(a->s[0], mine.bytes) != NULL);
    add_node(a, 5, 0x0099);
    memcpy(t, prefix, 16);
    /* one forged SLLAO: its share, then status 2 */
    for (i = 0; i < MIP_ND6LO_REG_PER_SRC + 2u; i++) {
        t[15] = (uint8_t)(0x40 + i);
        forge_ns(a, 5, t, (uint8_t)i, 0x0099, 60);
    }
    CHECK_EQ(st(a, 0, MIP_STAT_nd6lo_reg_accepted), 1u + MIP_ND6LO_REG_PER_SRC);
    CHECK_EQ(st(a, 0, MIP_STAT_nd6lo_reg_full), 2);
    /* many forged SLLAOs: the table fills, the rest is refused */
    for (i = 0; i < 2u * MIP_ND6LO_REG_MAX; i++) {
        t[15] = (uint8_t)(0x80 + i);
        forge_ns(a, 5, t, (uint8_t)(0x80 + i), (uint16_t)(0x0200 + i), 60);
    }
    accepted = st(a, 0, MIP_STAT_nd6lo_reg_accepted);
    CHECK_EQ(accepted, MIP_ND6LO_REG_MAX);
    CHECK(st(a, 0, MIP_STAT_nd6lo_reg_full) >= MIP_ND6LO_REG_MAX);
    CHECK(mip_nd6lo_router_find(a->s[0], mine.bytes) != NULL);
    /* the legitimate host's renewal still works (same entry) */
    run(a, 46u * 60000u);
    CHECK(st(a, 1, MIP_STAT_nd6lo_reg_ok) >= 2);
    CHECK(mip_nd6lo_router_find(a->s[0], mine.bytes) != NULL);
    /* a forged registration of the host's address under another ROVR */
    forge_ns(a, 5, mine.bytes, 0x55, 0x0300, 60);
    CHECK(st(a, 0, MIP_STAT_nd6lo_reg_dup_tx) >= 1);
    /* a deregistration (lifetime 0) under another ROVR removes nothing */
    forge_ns(a, 5, mine.bytes, 0x55, 0x0300, 0);
    CHECK(mip_nd6lo_router_find(a->s[0], mine.bytes) != NULL);
    air_free(a);
}

/* The forged entries end with their lifetime; the table then takes new
 * registrations again. Tentative entries (from RSs) never block one. */
static void test_forged_entries_expire(void)
{
    struct air *a = mk(0, 0, false);
    uint8_t t[16];
    unsigned i;
    add_node(a, 5, 0x0099);
    memcpy(t, prefix, 16);
    for (i = 0; i < MIP_ND6LO_REG_MAX; i++) {
        t[15] = (uint8_t)(0x80 + i);
        forge_ns(a, 5, t, (uint8_t)(0x80 + i), (uint16_t)(0x0200 + i), 2);
    }
    CHECK_EQ(st(a, 0, MIP_STAT_nd6lo_reg_accepted), MIP_ND6LO_REG_MAX);
    add_node(a, 1, 0x0002);
    CHECK_EQ(mip_nd6lo_host_start(a->s[1], 0, a->now), MIP_OK);
    run(a, 1100);
    CHECK_EQ(st(a, 1, MIP_STAT_nd6lo_reg_refused), 1);
    run(a, 2u * 60000u);
    CHECK_EQ(st(a, 0, MIP_STAT_nd6lo_reg_expired), MIP_ND6LO_REG_MAX);
    run(a, MIP_ND6LO_RETRY_S * 1000u);
    CHECK_EQ(st(a, 1, MIP_STAT_nd6lo_reg_ok), 1);
    air_free(a);
}

/* ABRO versions: an RA with an older version is ignored (its prefix and
 * context not taken); a newer one replaces the contexts. */
static void test_abro_versions(void)
{
    struct air *a = mk(1, 1, true);
    const struct mip_netif_lowpan *lp;
    static const uint8_t p2[16] = {0xfd, 0, 0, 0, 0, 0, 0, 2};
    run(a, 1100);
    lp = &a->s[1]->netif[0].lowpan;
    CHECK_EQ(lp->ctx_valid & 2u, 2u);
    /* older version, another prefix and context: ignored */
    a->rcfg.abro_version = 4;
    memcpy(a->rcfg.prefix, p2, 16);
    memcpy(a->rcfg.ctx[0].prefix, p2, 8);
    a->rcfg.ctx[0].cid = 2;
    CHECK_EQ(mip_stack_poll(a->s[1], a->now) > 0, 1);
    a->s[1]->nd6lo.rs_left_ms = 0;   /* solicit now */
    run(a, 1100);
    CHECK_EQ(st(a, 1, MIP_STAT_nd6lo_abro_old), 1);
    CHECK(!has(a, 1, "fd00:0:0:2::ff:fe00:2"));
    CHECK_EQ(lp->ctx_valid & 4u, 0u);
    /* newer: context 1 replaced by context 2, prefix taken */
    a->rcfg.abro_version = 6;
    a->s[1]->nd6lo.rs_left_ms = 0;
    run(a, 1100);
    CHECK(has(a, 1, "fd00:0:0:2::ff:fe00:2"));
    CHECK_EQ(lp->ctx_valid & 6u, 4u);
    /* a wrapped serial number is newer (RFC 1982 style) */
    a->rcfg.abro_version = 0x80000005u;
    a->s[1]->nd6lo.rs_left_ms = 0;
    run(a, 1100);
    CHECK_EQ(st(a, 1, MIP_STAT_nd6lo_abro_old), 1);
    air_free(a);
}

static size_t udp_len_to_router(struct air *a)
{
    struct mip_addr peer = ad("fd00:0:0:1::ff:fe00:1");
    uint8_t msg[4] = {1, 2, 3, 4};
    a->udp_frame_len = 0;
    CHECK_EQ(mip_udp_sendto(a->s[1], NULL, 0xF0B1, &peer, 0xF0B2, MIP_NETIF_ANY, msg, 4), MIP_OK);
    run(a, 10);
    return a->udp_frame_len;
}

/* The 6CO's context compresses the global prefix both ways: 16 bytes of
 * addresses shrink to a CID byte; with C clear it only decompresses; when
 * its lifetime ends it is gone. */
static void test_context_in_iphc(void)
{
    struct air *with = mk(1, 1, true), *nocomp = mk(1, 1, false), *none = mk(1, 0, false);
    size_t lw, ln, l0;
    unsigned rx;
    run(with, 1100);
    run(nocomp, 1100);
    run(none, 1100);
    lw = udp_len_to_router(with);
    /* arrived and decompressed (no socket on that port) */
    CHECK_EQ(st(with, 0, MIP_STAT_drop_udp_no_port), 1);
    ln = udp_len_to_router(nocomp);
    l0 = udp_len_to_router(none);
    CHECK(lw > 0 && ln > 0 && l0 > 0);
    /* both addresses elided whole (prefix from the context, IID from the
     * link address) instead of carried inline; one CID byte added */
    CHECK_EQ(l0 - lw, 31u);
    CHECK_EQ(ln, l0);
    CHECK_EQ(nocomp->s[1]->netif[0].lowpan.ctx_valid & 2u, 2u);
    CHECK_EQ(nocomp->s[1]->netif[0].lowpan.ctx_comp & 2u, 0u);
    /* the router's replies use it too: the host decompresses */
    {
        struct mip_addr mine = ad("fd00:0:0:1::ff:fe00:2");
        uint8_t msg[2] = {7, 7};
        rx = with->udp_rx;
        CHECK_EQ(mip_udp_sendto(with->s[0], NULL, 1, &mine, PORT, MIP_NETIF_ANY, msg, 2), MIP_OK);
        run(with, 10);
        CHECK_EQ(with->udp_rx, rx + 1u);
    }
    /* context lifetime 30 min; the host renews nothing by itself (the
     * router lifetime renewal at 3/4 brings a fresh 6CO); with the router
     * silent the context ends */
    with->up[0] = false;
    run(with, 31u * 60000u);
    CHECK_EQ(with->s[1]->netif[0].lowpan.ctx_valid & 2u, 0u);
    air_free(with);
    air_free(nocomp);
    air_free(none);
}

/* An RA with router lifetime 0 from our router ends it as default router
 * (RFC 4861 s.6.3.4): the route goes, registrations wait, solicitation
 * starts again. */
static void test_router_lifetime_zero(void)
{
    struct air *a = mk(1, 0, false);
    struct mip_addr far = ad("2001:db8::1"), src;
    run(a, 1100);
    CHECK(a->s[1]->nd6lo.has_router);
    CHECK_EQ(mip_ip_select_src(a->s[1], &far, MIP_NETIF_ANY, &src), MIP_OK);
    a->rcfg.router_lifetime_s = 0;
    a->s[1]->nd6lo.rs_left_ms = 0;
    run(a, 100);
    CHECK(!a->s[1]->nd6lo.has_router);
    CHECK_EQ(mip_ip_select_src(a->s[1], &far, MIP_NETIF_ANY, &src), MIP_ERR_NOROUTE);
    air_free(a);
}

struct hook_log {
    unsigned calls;
    uint8_t addr[16];
    uint32_t lifetime_s;
};

static void reg_hook(void *ctx, struct mip_stack *s, const uint8_t addr[16], uint32_t life)
{
    struct hook_log *h = ctx;
    (void)s;
    h->calls++;
    memcpy(h->addr, addr, 16);
    h->lifetime_s = life;
}

/* The router tells its hook of a registration with the R flag (granted
 * lifetime in seconds) and of its end (0): by expiry here, the host gone. */
static void test_reg_hook(void)
{
    struct air *a = mk(1, 0, false);
    struct hook_log h;
    struct mip_addr mine = ad("fd00:0:0:1::ff:fe00:2");
    memset(&h, 0, sizeof h);
    mip_nd6lo_set_reg_hook(a->s[0], reg_hook, &h);
    run(a, 1100);
    CHECK_EQ(h.calls, 1);
    CHECK_MEM(h.addr, mine.bytes, 16);
    CHECK_EQ(h.lifetime_s, MIP_ND6LO_REG_LIFETIME_MIN * 60u);
    a->up[1] = false;
    run(a, MIP_ND6LO_REG_LIFETIME_MIN * 60000u);
    CHECK_EQ(h.calls, 2);
    CHECK_EQ(h.lifetime_s, 0);
    CHECK_EQ(st(a, 0, MIP_STAT_nd6lo_reg_expired), 1);
    air_free(a);
}

int main(void)
{
    RUN(test_join_and_register);
    RUN(test_duplicate_removed);
    RUN(test_rs_backoff);
    RUN(test_reregistration);
    RUN(test_unanswered_registration);
    RUN(test_flood_keeps_registered);
    RUN(test_forged_entries_expire);
    RUN(test_abro_versions);
    RUN(test_context_in_iphc);
    RUN(test_router_lifetime_zero);
    RUN(test_reg_hook);
    return TESTING_DONE();
}

#else
int main(void)
{
    return 77;
}
#endif
