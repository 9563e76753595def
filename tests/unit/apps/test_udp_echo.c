/*
 * UDP echo (RFC 862) and discard (RFC 863) services on a stack with a raw-IP
 * netif whose driver captures every transmitted frame. Datagrams are built
 * here byte by byte (with this file's own checksum code, independent of the
 * stack's), injected with mip_stack_input(), and the replies are checked
 * field by field: addresses, ports, lengths, both checksums and payload.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/stack.h"
#include "udp_discard.h"
#include "udp_echo.h"
#include "testing.h"

#define CAP_FRAMES 16
#define CAP_FRAME_MAX 2048
/* The netif MTU: Ethernet-sized where a pbuf holds such a datagram (full
 * profile), the IPv6 minimum otherwise (tiny). */
#if MIP_PBUF_SIZE >= 1500 + MIP_LINK_HDR_MAX
#define MTU 1500u
#else
#define MTU 1280u
#endif
/* The fragmented-echo tests need a 3008-byte reassembly buffer. */
#define FRAG_TESTS (MIP_REASS_SIZE >= 3008)

struct capture {
    unsigned n;                 /* frames captured */
    unsigned overflow;          /* frames that did not fit */
    size_t   len[CAP_FRAMES];
    uint8_t  frame[CAP_FRAMES][CAP_FRAME_MAX];
};

static mip_status cap_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct capture *c = ctx;

    if (c->n >= CAP_FRAMES || len > CAP_FRAME_MAX) {
        c->overflow++;
        return MIP_OK;
    }
    memcpy(c->frame[c->n], frame, len);
    c->len[c->n] = len;
    c->n++;
    return MIP_OK;
}

static const struct mip_netif_driver cap_driver = { cap_transmit, NULL, NULL };

struct fixture {
    struct mip_stack stack;
    struct capture cap;
    struct mip_udp_echo echo;
    struct mip_udp_discard discard;
    uint8_t netif;
    mip_time_t now;
};

#if MIP_CONF_IPV4
static const uint8_t us4[4] = { 192, 0, 2, 2 };
static const uint8_t us4b[4] = { 192, 0, 2, 3 };
static const uint8_t peer4[4] = { 192, 0, 2, 1 };
#endif
static const uint8_t us6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };
static const uint8_t us6b[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3 };
static const uint8_t peer6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };

#define PEER_PORT 40000u

/* The stack is tens of KB: keep the fixture off the stack. */
static struct fixture fx_storage;

static struct fixture *setup(void)
{
    struct fixture *f = &fx_storage;
    static const uint8_t entropy[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    static const uint8_t iid[8] = { 0x02, 0, 0, 0xff, 0xfe, 0, 0, 0x02 };
    struct mip_stack_config cfg;
    struct mip_addr a;

    memset(f, 0, sizeof(*f));
    memset(&cfg, 0, sizeof(cfg));
    cfg.entropy = entropy;
    cfg.entropy_len = sizeof(entropy);
    f->now = testing_start(1000);
    mip_stack_init(&f->stack, &cfg, f->now);
    CHECK_EQ(mip_netif_add_rawip(&f->stack, MTU, iid, &cap_driver, &f->cap, &f->netif), MIP_OK);
#if MIP_CONF_IPV4
    mip_addr_set4(&a, us4);
    CHECK_EQ(mip_netif_add_addr(&f->stack, f->netif, &a, 24), MIP_OK);
    mip_addr_set4(&a, us4b);
    CHECK_EQ(mip_netif_add_addr(&f->stack, f->netif, &a, 24), MIP_OK);
#endif
    mip_addr_set6(&a, us6);
    CHECK_EQ(mip_netif_add_addr(&f->stack, f->netif, &a, 64), MIP_OK);
    mip_addr_set6(&a, us6b);
    CHECK_EQ(mip_netif_add_addr(&f->stack, f->netif, &a, 64), MIP_OK);
    CHECK_EQ(mip_udp_echo_start(&f->echo, &f->stack, MIP_UDP_ECHO_PORT), MIP_OK);
    CHECK_EQ(mip_udp_discard_start(&f->discard, &f->stack, MIP_UDP_DISCARD_PORT), MIP_OK);
    /* Nothing should have been sent yet on a raw-IP netif... but whatever
     * was (e.g. an unsolicited announcement) is not what the tests look at. */
    f->cap.n = 0;
    return f;
}

static void inject(struct fixture *f, const uint8_t *pkt, size_t len)
{
    f->now += 10;
    mip_stack_input(&f->stack, f->netif, pkt, len, f->now);
    (void)mip_stack_poll(&f->stack, f->now);
}

/* --- independent checksum and packet builders ------------------------------ */

static uint32_t sum16(uint32_t sum, const uint8_t *p, size_t len)
{
    size_t i;

    for (i = 0; i + 1 < len; i += 2)
        sum += ((uint32_t)p[i] << 8) | p[i + 1];
    if (len & 1u)
        sum += (uint32_t)p[len - 1] << 8;
    return sum;
}

static uint16_t fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xFFFFu) + (sum >> 16);
    return (uint16_t)~sum;
}

static uint16_t rd16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static void wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }

#if MIP_CONF_IPV4
static uint32_t pseudo4(const uint8_t *src, const uint8_t *dst, uint8_t proto, size_t l4len)
{
    uint32_t s = sum16(0, src, 4);
    s = sum16(s, dst, 4);
    return s + proto + (uint32_t)l4len;
}
#endif

static uint32_t pseudo6(const uint8_t *src, const uint8_t *dst, uint8_t nh, size_t l4len)
{
    uint32_t s = sum16(0, src, 16);
    s = sum16(s, dst, 16);
    return s + nh + (uint32_t)(l4len >> 16) + (uint32_t)(l4len & 0xFFFFu);
}

static void fill_payload(uint8_t *p, size_t n, uint8_t seed)
{
    size_t i;

    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(seed + i * 7u + (i >> 8));
}

/* UDP header + payload at l4 with the checksum computed over `pseudo`. */
static void build_udp(uint8_t *l4, uint16_t sport, uint16_t dport, const uint8_t *payload,
                      size_t n, uint32_t pseudo)
{
    uint16_t ck;

    wr16(l4, sport);
    wr16(l4 + 2, dport);
    wr16(l4 + 4, (uint16_t)(8u + n));
    wr16(l4 + 6, 0);
    memcpy(l4 + 8, payload, n);
    ck = fold(sum16(pseudo, l4, 8u + n));
    wr16(l4 + 6, ck == 0 ? 0xFFFFu : ck);
}

#if MIP_CONF_IPV4
static void build_ipv4_hdr(uint8_t *h, const uint8_t *src, const uint8_t *dst, uint8_t proto,
                           size_t total, uint16_t id, uint16_t frag_field)
{
    memset(h, 0, 20);
    h[0] = 0x45;
    wr16(h + 2, (uint16_t)total);
    wr16(h + 4, id);
    wr16(h + 6, frag_field);
    h[8] = 64;
    h[9] = proto;
    memcpy(h + 12, src, 4);
    memcpy(h + 16, dst, 4);
    wr16(h + 10, fold(sum16(0, h, 20)));
}
#endif

static void build_ipv6_hdr(uint8_t *h, const uint8_t *src, const uint8_t *dst, uint8_t nh,
                           size_t payload_len)
{
    memset(h, 0, 40);
    h[0] = 0x60;
    wr16(h + 4, (uint16_t)payload_len);
    h[6] = nh;
    h[7] = 64;
    memcpy(h + 8, src, 16);
    memcpy(h + 24, dst, 16);
}

#if MIP_CONF_IPV4
static size_t udp4_datagram(uint8_t *pkt, const uint8_t *src, const uint8_t *dst,
                            uint16_t sport, uint16_t dport, const uint8_t *payload, size_t n)
{
    build_udp(pkt + 20, sport, dport, payload, n, pseudo4(src, dst, 17, 8u + n));
    build_ipv4_hdr(pkt, src, dst, 17, 28u + n, 0x1234, 0);
    return 28u + n;
}
#endif

static size_t udp6_datagram(uint8_t *pkt, const uint8_t *src, const uint8_t *dst,
                            uint16_t sport, uint16_t dport, const uint8_t *payload, size_t n)
{
    build_udp(pkt + 40, sport, dport, payload, n, pseudo6(src, dst, 17, 8u + n));
    build_ipv6_hdr(pkt, src, dst, 17, 8u + n);
    return 48u + n;
}

/* --- reply checks ---------------------------------------------------------- */

/* The UDP header and payload of a reply at u: ports, length, a checksum
 * that is there (the stack always computes it; IPv6 requires it) and sums
 * to zero with the pseudo header's sum `pseudo`. */
static void check_udp_part(const uint8_t *u, uint32_t pseudo, uint16_t sport, uint16_t dport,
                           const uint8_t *payload, size_t n)
{
    CHECK_EQ(rd16(u), sport);
    CHECK_EQ(rd16(u + 2), dport);
    CHECK_EQ(rd16(u + 4), 8u + n);
    CHECK(rd16(u + 6) != 0);
    CHECK_EQ(fold(sum16(pseudo, u, 8u + n)), 0);
    CHECK_MEM(u + 8, payload, n);
}

#if MIP_CONF_IPV4
/* Checks one unfragmented IPv4 UDP reply in frame `idx`. */
static void check_udp4_reply(const struct fixture *f, unsigned idx, const uint8_t *from,
                             const uint8_t *to, uint16_t sport, uint16_t dport,
                             const uint8_t *payload, size_t n)
{
    const uint8_t *r = f->cap.frame[idx];
    size_t len = f->cap.len[idx];
    size_t ihl;

    CHECK(len >= 28u);
    if (len < 28u)
        return;
    CHECK_EQ(r[0] >> 4, 4);
    ihl = (size_t)(r[0] & 0x0Fu) * 4u;
    CHECK_EQ(ihl, 20);
    CHECK_EQ(rd16(r + 2), 28u + n);
    CHECK_EQ(len, 28u + n);
    CHECK_EQ(rd16(r + 6) & 0x3FFFu, 0);          /* not a fragment */
    CHECK(r[8] > 0);                              /* TTL */
    CHECK_EQ(r[9], 17);
    CHECK_EQ(fold(sum16(0, r, 20)), 0);           /* header checksum */
    CHECK_MEM(r + 12, from, 4);
    CHECK_MEM(r + 16, to, 4);
    if (len < 28u + n)
        return;
    check_udp_part(r + 20, pseudo4(r + 12, r + 16, 17, 8u + n), sport, dport, payload, n);
}
#endif

static void check_udp6_reply(const struct fixture *f, unsigned idx, const uint8_t *from,
                             const uint8_t *to, uint16_t sport, uint16_t dport,
                             const uint8_t *payload, size_t n)
{
    const uint8_t *r = f->cap.frame[idx];
    size_t len = f->cap.len[idx];

    CHECK(len >= 48u);
    if (len < 48u)
        return;
    CHECK_EQ(r[0] >> 4, 6);
    CHECK_EQ(rd16(r + 4), 8u + n);
    CHECK_EQ(len, 48u + n);
    CHECK_EQ(r[6], 17);                           /* no extension headers */
    CHECK(r[7] > 0);                              /* hop limit */
    CHECK_MEM(r + 8, from, 16);
    CHECK_MEM(r + 24, to, 16);
    if (len < 48u + n)
        return;
    check_udp_part(r + 40, pseudo6(r + 8, r + 24, 17, 8u + n), sport, dport, payload, n);
}

static uint8_t pkt[MTU + 64];
static uint8_t payload[8192];

#if FRAG_TESTS
#if MIP_CONF_IPV4
/* An IPv4 fragment of the UDP datagram l4: `chunk` bytes from `off`. */
static size_t fragment4(uint8_t *p, const uint8_t *l4, size_t off, size_t chunk, bool more)
{
    build_ipv4_hdr(p, peer4, us4, 17, 20u + chunk, 0x4242,
                   (uint16_t)((more ? 0x2000u : 0u) | (off / 8u)));
    memcpy(p + 20, l4 + off, chunk);
    return 20u + chunk;
}
#endif

static size_t fragment6(uint8_t *p, const uint8_t *l4, size_t off, size_t chunk, bool more)
{
    build_ipv6_hdr(p, peer6, us6, 44, 8u + chunk);
    p[40] = 17;
    p[41] = 0;
    wr16(p + 42, (uint16_t)(off | (more ? 1u : 0u)));
    p[44] = 0xde; p[45] = 0xad; p[46] = 0xbe; p[47] = 0xef;
    memcpy(p + 48, l4 + off, chunk);
    return 48u + chunk;
}

#if MIP_CONF_IPV4
/* Frame r (len bytes) as an IPv4 fragment: where its data goes and whether
 * more follow; false when it is none. */
static bool fragment_of4(const uint8_t *r, size_t len, size_t *off, bool *more)
{
    if (len < 20 || (r[0] & 0x0F) != 5 || rd16(r + 2) != len)
        return false;
    CHECK_EQ(fold(sum16(0, r, 20)), 0);
    *off = (size_t)(rd16(r + 6) & 0x1FFFu) * 8u;
    *more = (rd16(r + 6) & 0x2000u) != 0;
    return true;
}
#endif

/* The same for IPv6 (fixed header + fragment header only). */
static bool fragment_of6(const uint8_t *r, size_t len, size_t *off, bool *more)
{
    if (len < 48 || r[6] != 44 || rd16(r + 4) + 40u != len)
        return false;
    CHECK_EQ(r[40], 17);                          /* fragment header's next */
    *off = (size_t)(rd16(r + 42) & 0xFFF8u);
    *more = (rd16(r + 42) & 1u) != 0;
    return true;
}
#endif

/* What the tests need to know of an IP version, so that one body serves
 * both. */
struct family {
    const char *name;
    const uint8_t *us, *us_b, *peer;
    size_t addr_len;
    size_t ip_hdr;              /* bytes before the UDP header */
    size_t src_at;              /* the source address's offset */
    uint32_t (*pseudo)(const uint8_t *src, const uint8_t *dst, uint8_t proto, size_t l4len);
    size_t (*datagram)(uint8_t *pkt, const uint8_t *src, const uint8_t *dst, uint16_t sport,
                       uint16_t dport, const uint8_t *payload, size_t n);
    void (*check_reply)(const struct fixture *f, unsigned idx, const uint8_t *from,
                        const uint8_t *to, uint16_t sport, uint16_t dport,
                        const uint8_t *payload, size_t n);
#if FRAG_TESTS
    size_t frag_hdr;            /* bytes before a fragment's data */
    size_t (*fragment)(uint8_t *p, const uint8_t *l4, size_t off, size_t chunk, bool more);
    bool (*fragment_of)(const uint8_t *r, size_t len, size_t *off, bool *more);
#endif
};

#if FRAG_TESTS
#define FRAG_OPS(hdr, fragment, fragment_of) , hdr, fragment, fragment_of
#else
#define FRAG_OPS(hdr, fragment, fragment_of)
#endif

static const struct family families[] = {
#if MIP_CONF_IPV4
    {"IPv4", us4, us4b, peer4, 4, 20, 12, pseudo4, udp4_datagram, check_udp4_reply
     FRAG_OPS(20, fragment4, fragment_of4)},
#endif
    {"IPv6", us6, us6b, peer6, 16, 40, 8, pseudo6, udp6_datagram, check_udp6_reply
     FRAG_OPS(48, fragment6, fragment_of6)},
};
#define FAMILIES (sizeof(families) / sizeof(families[0]))

/* The family called name ("IPv4", "IPv6"); NULL when the profile has none. */
static const struct family *family(const char *name)
{
    unsigned fi;
    for (fi = 0; fi < FAMILIES; fi++)
        if (strcmp(families[fi].name, name) == 0)
            return &families[fi];
    return NULL;
}

/* --- tests ----------------------------------------------------------------- */

static void test_echo_sizes(void)
{
    unsigned fi;
    for (fi = 0; fi < FAMILIES; fi++) {
        const struct family *fa = &families[fi];
        const size_t sizes[] = { 0, 1, 2, 7, 8, 100, 1024, MTU - fa->ip_hdr - 9u,
                                 MTU - fa->ip_hdr - 8u };
        struct fixture *f = setup();
        uint32_t bytes = 0;
        size_t i;

        for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            size_t n = sizes[i], len;

            fill_payload(payload, n, (uint8_t)(i + 100u * fi));
            len = fa->datagram(pkt, fa->peer, fa->us, PEER_PORT + (uint16_t)i, 7, payload, n);
            f->cap.n = 0;
            inject(f, pkt, len);
            CHECK_EQ(f->cap.n, 1);
            if (f->cap.n == 1)
                fa->check_reply(f, 0, fa->us, fa->peer, 7, (uint16_t)(PEER_PORT + i), payload, n);
            bytes += (uint32_t)n;
        }
        CHECK_EQ(f->echo.datagrams, sizeof(sizes) / sizeof(sizes[0]));
        CHECK_EQ(f->echo.bytes, bytes);
        CHECK_EQ(f->echo.send_errors, 0);
        CHECK_EQ(f->cap.overflow, 0);
    }
}

/* The reply comes from the address the request was sent to. */
static void test_echo_reply_from_dst(void)
{
    unsigned fi;
    for (fi = 0; fi < FAMILIES; fi++) {
        const struct family *fa = &families[fi];
        struct fixture *f = setup();
        size_t len;

        fill_payload(payload, 33, 9);
        len = fa->datagram(pkt, fa->peer, fa->us_b, PEER_PORT, 7, payload, 33);
        inject(f, pkt, len);
        CHECK_EQ(f->cap.n, 1);
        if (f->cap.n == 1)
            fa->check_reply(f, 0, fa->us_b, fa->peer, 7, PEER_PORT, payload, 33);
    }
}

/* A zero UDP checksum means "none" on IPv4 and is accepted (the reply has
 * one); RFC 8200 8.1 drops it on IPv6. A changed payload byte is never
 * echoed. */
static void test_echo_checksum_rules(void)
{
    static const struct {
        const char *family;
        bool zero;              /* else flip a payload byte */
        uint8_t flip;
        bool echoed;
    } rows[] = {
        {"IPv4", true, 0, true},
        {"IPv4", false, 0x01, false},
        {"IPv6", true, 0, false},
        {"IPv6", false, 0x80, false},
    };
    size_t i;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const struct family *fa;
        struct fixture *f;
        size_t len;
        fa = family(rows[i].family);
        if (fa == NULL)
            continue;           /* a family this profile leaves out */
        f = setup();
        fill_payload(payload, 20, 3);
        len = fa->datagram(pkt, fa->peer, fa->us, PEER_PORT, 7, payload, 20);
        if (rows[i].zero)
            wr16(pkt + fa->ip_hdr + 6, 0);
        else
            pkt[fa->ip_hdr + 10] ^= rows[i].flip;
        inject(f, pkt, len);
        CHECK_EQ(f->cap.n, rows[i].echoed ? 1 : 0);
        if (rows[i].echoed && f->cap.n == 1)
            fa->check_reply(f, 0, fa->us, fa->peer, 7, PEER_PORT, payload, 20);
        if (!rows[i].echoed) {
            CHECK_EQ(f->echo.datagrams, 0);
            CHECK_EQ(mip_stack_stat(&f->stack, MIP_STAT_drop_udp_bad_checksum), 1);
        }
    }
}

#if MIP_CONF_IPV4

/* Loop-prone source ports are not answered. */
static void test_echo_ignores_small_service_ports(void)
{
    static const uint16_t ports[] = { 7, 13, 17, 19, 37 };
    struct fixture *f = setup();
    size_t i, len;

    fill_payload(payload, 10, 1);
    for (i = 0; i < sizeof(ports) / sizeof(ports[0]); i++) {
        len = udp4_datagram(pkt, peer4, us4, ports[i], 7, payload, 10);
        inject(f, pkt, len);
    }
    CHECK_EQ(f->cap.n, 0);
    CHECK_EQ(f->echo.ignored, sizeof(ports) / sizeof(ports[0]));
    CHECK_EQ(f->echo.datagrams, 0);
}

/* After stop the port is closed: no echo, the stack counts no_port. */
static void test_echo_stop(void)
{
    struct fixture *f = setup();
    size_t len;

    CHECK_EQ(mip_udp_echo_stop(&f->echo, &f->stack), MIP_OK);
    CHECK_EQ(f->echo.port, 0);
    CHECK_EQ(mip_udp_echo_stop(&f->echo, &f->stack), MIP_ERR_NOTFOUND);
    fill_payload(payload, 10, 1);
    len = udp4_datagram(pkt, peer4, us4, PEER_PORT, 7, payload, 10);
    inject(f, pkt, len);
    CHECK_EQ(f->echo.datagrams, 0);
    CHECK_EQ(mip_stack_stat(&f->stack, MIP_STAT_drop_udp_no_port), 1);
    /* Restarting works. */
    CHECK_EQ(mip_udp_echo_start(&f->echo, &f->stack, 7), MIP_OK);
    f->cap.n = 0;
    inject(f, pkt, len);
    CHECK_EQ(f->echo.datagrams, 1);
    CHECK_EQ(f->cap.n, 1);
}
#endif /* MIP_CONF_IPV4 */

#if FRAG_TESTS
/* Reassembles the fragments in the captured frames into out, the first
 * one's IP header into hdr; returns the reassembled payload length, 0 on
 * any inconsistency. */
static size_t reassemble(const struct fixture *f, const struct family *fa, uint8_t *out,
                         size_t cap, uint8_t *hdr)
{
    size_t total = 0, got = 0;
    unsigned i;
    bool last_seen = false;

    for (i = 0; i < f->cap.n; i++) {
        const uint8_t *r = f->cap.frame[i];
        size_t len = f->cap.len[i], off, plen;
        bool more;

        if (!fa->fragment_of(r, len, &off, &more))
            return 0;
        CHECK(len <= MTU);
        plen = len - fa->frag_hdr;
        if (off + plen > cap)
            return 0;
        if (more)
            CHECK_EQ(plen % 8u, 0);
        else {
            total = off + plen;
            last_seen = true;
        }
        if (off == 0)
            memcpy(hdr, r, fa->ip_hdr);
        memcpy(out + off, r + fa->frag_hdr, plen);
        got += plen;
    }
    if (!last_seen || got != total)
        return 0;
    return total;
}

/* A datagram that arrives in fragments is echoed in fragments. */
static void test_echo_fragmented(void)
{
    static uint8_t l4[3008], reply[4096];
    unsigned fi;
    for (fi = 0; fi < FAMILIES; fi++) {
        const struct family *fa = &families[fi];
        struct fixture *f = setup();
        const size_t n = 3000, frag = ((MTU - fa->frag_hdr) / 8u) * 8u;
        uint8_t hdr[40];
        size_t off, total;

        fill_payload(payload, n, 42);
        build_udp(l4, PEER_PORT, 7, payload, n, fa->pseudo(fa->peer, fa->us, 17, 8u + n));
        for (off = 0; off < 8u + n; off += frag) {
            size_t chunk = (8u + n - off) < frag ? (8u + n - off) : frag;

            inject(f, pkt, fa->fragment(pkt, l4, off, chunk, off + chunk < 8u + n));
        }
        CHECK_EQ(f->echo.datagrams, 1);
        CHECK(f->cap.n >= 3);
        total = reassemble(f, fa, reply, sizeof(reply), hdr);
        CHECK_EQ(total, 8u + n);
        if (total != 8u + n)
            continue;
        CHECK_MEM(hdr + fa->src_at, fa->us, fa->addr_len);
        CHECK_MEM(hdr + fa->src_at + fa->addr_len, fa->peer, fa->addr_len);
        if (fa->ip_hdr == 20)
            CHECK_EQ(hdr[9], 17);   /* IPv6: fragment_of6 checks the fragment header's */
        CHECK_EQ(rd16(reply), 7);
        CHECK_EQ(rd16(reply + 2), PEER_PORT);
        CHECK_EQ(rd16(reply + 4), 8u + n);
        CHECK_EQ(fold(sum16(fa->pseudo(fa->us, fa->peer, 17, 8u + n), reply, 8u + n)), 0);
        CHECK_MEM(reply + 8, payload, n);
    }
}

#endif /* FRAG_TESTS */

/* Discard takes datagrams of any size, the empty one too, and answers
 * none: per family, `count` datagrams of the sizes in `sizes`. */
static void test_discard(void)
{
    static const struct {
        const char *family;
        unsigned count;
        size_t sizes[2];
        uint32_t bytes;
    } rows[] = {
        {"IPv4", 2, {500, 0}, 500},
        {"IPv6", 1, {1000}, 1000},
    };
    size_t i;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const struct family *fa;
        struct fixture *f;
        unsigned k;
        fa = family(rows[i].family);
        if (fa == NULL)
            continue;           /* a family this profile leaves out */
        f = setup();
        fill_payload(payload, rows[i].sizes[0], 5);
        for (k = 0; k < rows[i].count; k++)
            inject(f, pkt, fa->datagram(pkt, fa->peer, fa->us, PEER_PORT, 9, payload,
                                        rows[i].sizes[k]));
        CHECK_EQ(f->cap.n, 0);
        CHECK_EQ(f->discard.datagrams, rows[i].count);
        CHECK_EQ(f->discard.bytes, rows[i].bytes);
        CHECK_EQ(f->echo.datagrams, 0);
    }
}

static void test_start_errors(void)
{
    struct fixture *f = setup();
    struct mip_udp_discard d2;
    struct mip_udp_echo e2;

    CHECK_EQ(mip_udp_discard_start(&d2, &f->stack, 7), MIP_ERR_INUSE);
    CHECK_EQ(d2.port, 0);
    CHECK_EQ(mip_udp_echo_start(&e2, &f->stack, 0), MIP_ERR_INVALID);
    CHECK_EQ(e2.port, 0);
    CHECK_EQ(mip_udp_echo_start(NULL, &f->stack, 7), MIP_ERR_INVALID);
    CHECK_EQ(mip_udp_discard_stop(&d2, &f->stack), MIP_ERR_NOTFOUND);
#if MIP_UDP_MAX >= 3
    /* A second echo instance on another port works alongside. */
    CHECK_EQ(mip_udp_echo_start(&e2, &f->stack, 7007), MIP_OK);
    CHECK_EQ(mip_udp_echo_stop(&e2, &f->stack), MIP_OK);
#endif
}

int main(void)
{
    RUN(test_echo_sizes);
    RUN(test_echo_reply_from_dst);
    RUN(test_echo_checksum_rules);
#if FRAG_TESTS
    RUN(test_echo_fragmented);
#endif
#if MIP_CONF_IPV4
    RUN(test_echo_ignores_small_service_ports);
    RUN(test_echo_stop);
#endif
    RUN(test_discard);
    RUN(test_start_errors);
    return TESTING_DONE();
}
