/*
 * Shared fixture for core tests: a stack whose netifs' drivers capture every
 * transmitted frame, plus builders for the packets tests inject.
 *
 * Usage: struct fixture f; fixture_init(&f, true) gives netif 0 = raw IP
 * (MTU FIXTURE_MTU) with 192.0.2.2/24 and fd00::2/64; fixture_add_eth() adds an
 * Ethernet netif. Frames sent by the stack land in f.tx[] (the last
 * FIXTURE_TX_MAX, in order). fixture_pool_clean() asserts every packet
 * buffer came back: call it at the end of every test.
 */
#ifndef MOTEIP_TEST_FIXTURE_H
#define MOTEIP_TEST_FIXTURE_H

#include "testing.h"
#include "moteip/stack.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/ipv6.h"
#include <stdlib.h>
#include <string.h>

#define FIXTURE_TX_MAX 64
#define FIXTURE_FRAME_MAX 1600
#define FIXTURE_MTU MIP_PROFILE_DEFAULT(1280, 1500)

struct fixture_frame {
    uint8_t netif;
    size_t  len;
    uint8_t data[FIXTURE_FRAME_MAX];
};

struct fixture_port {
    struct fixture *f;
    uint8_t netif;
    mip_status reply;          /* what transmit returns */
};

struct fixture {
    struct mip_stack *s;       /* heap: the struct is large */
    struct fixture_port port[MIP_NETIF_MAX];
    struct fixture_frame tx[FIXTURE_TX_MAX];
    unsigned ntx;              /* frames captured since the last clear */
    mip_time_t now;
};

static mip_status fixture_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct fixture_port *p = ctx;
    struct fixture *f = p->f;
    struct fixture_frame *fr;
    if (f->ntx < FIXTURE_TX_MAX && len <= FIXTURE_FRAME_MAX) {
        fr = &f->tx[f->ntx++];
        fr->netif = p->netif;
        fr->len = len;
        memcpy(fr->data, frame, len);
    }
    return p->reply;
}

static const struct mip_netif_driver fixture_driver = { fixture_transmit, NULL, NULL };

static inline void fixture_clear(struct fixture *f) { f->ntx = 0; }

static inline struct mip_addr fixture_addr(const char *text)
{
    struct mip_addr a;
    uint8_t plen;
    if (mip_addr_parse(text, &a, &plen) != MIP_OK) {
        fprintf(stderr, "fixture: bad address %s\n", text);
        abort();
    }
    return a;
}

/* Raw-IP netif 0 with 192.0.2.2/24 and fd00::2/64 (when the profile has
 * the family); forwarding as given. */
static inline void fixture_init(struct fixture *f, bool forwarding)
{
    static const uint8_t seed[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    static const uint8_t iid[8] = {0x02, 0, 0, 0xFF, 0xFE, 0, 0, 2};
    struct mip_stack_config cfg;
    struct mip_addr a;
    uint8_t idx;
    memset(f, 0, sizeof(*f));
    f->s = calloc(1, sizeof(struct mip_stack));
    f->now = testing_start(1000);
    memset(&cfg, 0, sizeof(cfg));
    cfg.entropy = seed;
    cfg.entropy_len = sizeof(seed);
    cfg.forwarding = forwarding;
    mip_stack_init(f->s, &cfg, f->now);
    f->port[0].f = f;
    f->port[0].netif = 0;
    f->port[0].reply = MIP_OK;
    CHECK_EQ(mip_netif_add_rawip(f->s, FIXTURE_MTU, iid, &fixture_driver, &f->port[0], &idx), MIP_OK);
    CHECK_EQ(idx, 0);
#if MIP_CONF_IPV4
    a = fixture_addr("192.0.2.2");
    CHECK_EQ(mip_netif_add_addr(f->s, 0, &a, 24), MIP_OK);
#endif
#if MIP_CONF_IPV6
    a = fixture_addr("fd00::2");
    CHECK_EQ(mip_netif_add_addr(f->s, 0, &a, 64), MIP_OK);
#endif
    (void)a;
}

#if MIP_CONF_ETHERNET
/* Adds an Ethernet netif with MAC 02:00:00:00:00:<last>; returns its index. */
static inline uint8_t fixture_add_eth(struct fixture *f, uint8_t last)
{
    uint8_t mac[6] = {0x02, 0, 0, 0, 0, last};
    uint8_t idx = 0xFF;
    unsigned slot;
    for (slot = 0; slot < MIP_NETIF_MAX && f->port[slot].f != NULL; slot++)
        ;
    f->port[slot].f = f;
    f->port[slot].reply = MIP_OK;
    CHECK_EQ(mip_netif_add_ethernet(f->s, mac, &fixture_driver, &f->port[slot], &idx), MIP_OK);
    f->port[slot].netif = idx;
    return idx;
}
#endif

static inline void fixture_input(struct fixture *f, uint8_t netif, const uint8_t *pkt, size_t len)
{
    /* An exact-size heap copy so ASan catches any read past len. */
    uint8_t *copy = malloc(len ? len : 1);
    memcpy(copy, pkt, len);
    mip_stack_input(f->s, netif, copy, len, f->now);
    free(copy);
}

static inline uint32_t fixture_advance(struct fixture *f, uint32_t ms)
{
    f->now += ms;
    return mip_stack_poll(f->s, f->now);
}

/* `ms` of idle time (may exceed half the wrap), polled as a host polls: at
 * every deadline poll reports, and at least every 10 min. */
static inline void fixture_idle(struct fixture *f, uint32_t ms)
{
    uint32_t d = 0;
    while (ms > 0u) {
        d = d == 0u ? 1u : d < 600000u ? d : 600000u;
        d = d < ms ? d : ms;
        ms -= d;
        d = fixture_advance(f, d);
    }
}

static inline uint32_t fixture_stat(const struct fixture *f, enum mip_stat which)
{
    return mip_stack_stat(f->s, which);
}

/* Runs every timer out, then checks no packet buffer is still held. */
static inline void fixture_pool_clean(struct fixture *f)
{
    fixture_advance(f, 10u * 60u * 1000u);
    CHECK_EQ(f->s->pool.in_use, 0);
}

static inline void fixture_free(struct fixture *f)
{
    fixture_pool_clean(f);
    free(f->s);
    f->s = NULL;
}

/* --- packet builders ------------------------------------------------- */

/* Writes an IPv4 header + payload into buf; returns the total length.
 * The header checksum is correct; frag_offset in bytes. */
static inline size_t build_ipv4(uint8_t *buf, const char *src, const char *dst, uint8_t proto,
                                uint8_t ttl, uint16_t id, uint8_t flags, uint16_t frag_offset,
                                const uint8_t *payload, size_t plen)
{
    struct mip_ipv4_hdr h;
    struct mip_addr a = fixture_addr(src), b = fixture_addr(dst);
    memset(&h, 0, sizeof(h));
    h.total_len = (uint16_t)(20 + plen);
    h.id = id;
    h.flags = flags;
    h.frag_offset = frag_offset;
    h.ttl = ttl;
    h.proto = proto;
    memcpy(h.src, a.bytes, 4);
    memcpy(h.dst, b.bytes, 4);
    CHECK_EQ(mip_ipv4_emit(&h, buf, 20), MIP_OK);
    memcpy(buf + 20, payload, plen);
    return 20 + plen;
}

/* Writes an IPv6 header + payload (next_header as given). */
static inline size_t build_ipv6(uint8_t *buf, const char *src, const char *dst, uint8_t nh,
                                uint8_t hop_limit, const uint8_t *payload, size_t plen)
{
    struct mip_ipv6_hdr h;
    struct mip_addr a = fixture_addr(src), b = fixture_addr(dst);
    memset(&h, 0, sizeof(h));
    h.payload_len = (uint16_t)plen;
    h.next_header = nh;
    h.hop_limit = hop_limit;
    memcpy(h.src, a.bytes, 16);
    memcpy(h.dst, b.bytes, 16);
    CHECK_EQ(mip_ipv6_emit(&h, buf, 40), MIP_OK);
    memcpy(buf + 40, payload, plen);
    return 40 + plen;
}

/* ICMP echo request (v4: type 8; v6: type 128) with `n` payload bytes of
 * pattern i*7; checksum filled for v4 only (v6 needs the pseudo header:
 * use fixture_fix_l4_checksum6). */
static inline size_t build_echo(uint8_t *buf, uint8_t type, uint16_t id, uint16_t seq, size_t n)
{
    size_t i;
    buf[0] = type; buf[1] = 0; buf[2] = 0; buf[3] = 0;
    mip_wr16(buf + 4, id);
    mip_wr16(buf + 6, seq);
    for (i = 0; i < n; i++)
        buf[8 + i] = (uint8_t)(i * 7u);
    if (type == 8)
        mip_wr16(buf + 2, mip_cksum_finish(mip_cksum_add(0, buf, 8 + n)));
    return 8 + n;
}

/* Fills the checksum of the upper-layer message l4[0..len) at offset
 * `at` (UDP 6, ICMPv6 2) using the given IPv6 addresses. */
static inline void fix_l4_checksum6(uint8_t *l4, size_t len, size_t at, uint8_t proto,
                                    const char *src, const char *dst)
{
    struct mip_addr a = fixture_addr(src), b = fixture_addr(dst);
    l4[at] = 0; l4[at + 1] = 0;
    mip_wr16(l4 + at, mip_cksum_finish(mip_cksum_add(
        mip_cksum_pseudo6(a.bytes, b.bytes, proto, (uint32_t)len), l4, len)));
}

static inline void fix_l4_checksum4(uint8_t *l4, size_t len, size_t at, uint8_t proto,
                                    const char *src, const char *dst)
{
    struct mip_addr a = fixture_addr(src), b = fixture_addr(dst);
    l4[at] = 0; l4[at + 1] = 0;
    mip_wr16(l4 + at, mip_cksum_finish(mip_cksum_add(
        mip_cksum_pseudo4(a.bytes, b.bytes, proto, (uint16_t)len), l4, len)));
}

/* A UDP datagram (header + payload) into buf; checksum filled. */
static inline size_t build_udp(uint8_t *buf, bool v6, const char *src, const char *dst,
                               uint16_t sport, uint16_t dport, const uint8_t *data, size_t n)
{
    mip_wr16(buf, sport);
    mip_wr16(buf + 2, dport);
    mip_wr16(buf + 4, (uint16_t)(8 + n));
    memcpy(buf + 8, data, n);
    if (v6)
        fix_l4_checksum6(buf, 8 + n, 6, 17, src, dst);
    else
        fix_l4_checksum4(buf, 8 + n, 6, 17, src, dst);
    return 8 + n;
}

#endif
