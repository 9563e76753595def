/*
 * Shared body of the whole-stack harnesses (fuzz_eth_input.c,
 * fuzz_rawip_input.c, fuzz_lowpan_input.c). Include it once, after defining
 * HARNESS_ETHERNET to 1 (Ethernet netif) or 0 (raw-IP netif), and
 * HARNESS_LOWPAN to 1 for the 802.15.4 node described below (with
 * HARNESS_ETHERNET 0).
 *
 * The node: one netif (Ethernet MAC 02:00:00:00:00:02, or raw IP with MTU
 * 1280 and interface id ::2), addresses 192.0.2.2/24 and fd00::2/64, default
 * routes via 192.0.2.1 and fd00::1, forwarding on, a UDP echo service on
 * port 7 (the callback below).
 *
 * The 802.15.4 node (HARNESS_LOWPAN): PAN 0xABCD, frames of at most 127
 * bytes with FCS, link ACKs asked for, and two radio netifs:
 *   0  IPHC, short address 0x0002, extended 02:00:00:00:00:00:00:02,
 *      context 0 fd00::/64; fd00::2/64 (fe80::ff:fe00:2); default route
 *      via fd00::1
 *   1  RAW_IP with a 23-byte link header, short address 0x0202;
 *      fd01::ff:fe00:202/64 (fe80::ff:fe00:202) and 192.0.2.2/24; default
 *      route via 192.0.2.1
 * Record length words carry the netif in bit 14 (bits 0..13: length).
 * Forwarded datagrams are recognised through a forward hook that records
 * them (the input frames are compressed and fragmented); frames sent are
 * parsed as 802.15.4 + 6LoWPAN / raw IP, fragments reassembled, and the
 * datagrams checked like those of the other harnesses. Each input frame is
 * also read as a capture reads it (mip_lowpan_peek_frame, twice: the same
 * both times); a datagram forwarded from a whole (unfragmented) frame must
 * be what the capture read, but for the hop limit / TTL and IPv4's header
 * checksum.
 *
 * Input: a sequence of at most MAX_RECORDS records
 *
 *     [1 byte  time step, units of 100 ms]
 *     [2 bytes big-endian: bit 15 = the driver refuses every frame sent
 *              while this record's frame is processed; bits 0..14 = length]
 *     [length bytes: one link frame]
 *
 * For each record the clock advances, mip_stack_poll(now) runs, then the
 * frame is handed to mip_stack_input() from an exact-size heap copy (so
 * ASan sees any over-read, and any pointer kept into it after the call).
 * After the last record the clock runs on past every timeout and every
 * packet buffer must be back in the pool.
 *
 * Every frame the stack transmits is checked by the driver: it must parse
 * with the wire codecs, carry correct IPv4 header and upper-layer checksums
 * (always: MOTEIP_FUZZING only relaxes checks of *received* checksums), use
 * our addresses when it originates traffic, and forwarded traffic must be a
 * faithful copy of an input datagram with its TTL / hop limit decremented by
 * one. "Policy" checks (RFC MUST / MUST NOT rules on when ICMP errors may be
 * sent, what a router must not forward, ...) also trap; set the environment
 * variable MOTEIP_FUZZ_NO_POLICY=1 to turn only those off.
 */
#ifndef MOTEIP_FUZZ_STACK_HARNESS_H
#define MOTEIP_FUZZ_STACK_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/moteip.h"
#include "moteip/wire/arp.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/ethernet.h"
#include "moteip/wire/icmpv4.h"
#include "moteip/wire/icmpv6.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/tcp.h"
#include "moteip/wire/udp.h"

#include "lowpan_peek_check.h"

#ifndef HARNESS_ETHERNET
#error "define HARNESS_ETHERNET to 0 or 1 before including stack_harness.h"
#endif
#ifndef HARNESS_LOWPAN
#define HARNESS_LOWPAN 0
#endif
#if HARNESS_LOWPAN && HARNESS_ETHERNET
#error "HARNESS_LOWPAN needs HARNESS_ETHERNET 0"
#endif
#if HARNESS_LOWPAN
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/sixlowpan.h"
#endif

#define MAX_RECORDS   64u
#define RAWIP_MTU     1280u
#define ECHO_PORT     7u
#define T0            (0xFFFFFFFFu - 20000u)  /* the clock wraps 20 s in */
#define POLL_MAX_DELAY 120000u                /* longer than any core timer */

static const char *harness_name = HARNESS_LOWPAN     ? "fuzz_lowpan_input"
                                  : HARNESS_ETHERNET ? "fuzz_eth_input"
                                                     : "fuzz_rawip_input";
static int policy_on = 1;
static int verbose = 0;   /* MOTEIP_FUZZ_VERBOSE=1: log every frame sent */

#define FAIL(...)                                                             \
    do {                                                                      \
        fprintf(stderr, "%s: CHECK FAILED (%s:%d): ", harness_name, __FILE__, \
                __LINE__);                                                    \
        fprintf(stderr, __VA_ARGS__);                                         \
        fputc('\n', stderr);                                                  \
        __builtin_trap();                                                     \
    } while (0)
#define CHECK(cond, ...)         \
    do {                         \
        if (!(cond))             \
            FAIL(__VA_ARGS__);   \
    } while (0)
/* RFC rules on behaviour (not memory safety / wire correctness). */
#define POLICY(cond, ...)                          \
    do {                                           \
        if (policy_on && !(cond))                  \
            FAIL("policy: " __VA_ARGS__);          \
    } while (0)

/* --- the node's constants ------------------------------------------------ */

static const uint8_t our_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
static const uint8_t our_v4[4] = {192, 0, 2, 2};
static const uint8_t our_v6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
#if HARNESS_ETHERNET
/* fe80:: + modified EUI-64 of 02:00:00:00:00:02 */
static const uint8_t our_ll[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0,
                                   0x00, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x02};
#elif HARNESS_LOWPAN
#define LP_PAN        0xABCDu
#define LP_SHORT0     0x0002u
#define LP_SHORT1     0x0202u
#define LP_FRAME_MAX  127u
#define LP_RAW_HDR    23u
#define LP_DGRAM_MAX  1280u
static const uint8_t lp_ext0[8] = {0x02, 0, 0, 0, 0, 0, 0, 0x02};
static const uint8_t lp_ext1[8] = {0x02, 0, 0, 0, 0, 0, 0x02, 0x02};
static const uint8_t lp_ctx0[8] = {0xfd, 0, 0, 0, 0, 0, 0, 0};
/* fe80::ff:fe00:2 (netif 0), fe80::ff:fe00:202 and fd01::ff:fe00:202 (netif 1) */
static const uint8_t our_ll[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 0, 0, 2};
static const uint8_t our_ll_raw[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0,
                                       0, 0, 0, 0xff, 0xfe, 0, 0x02, 0x02};
static const uint8_t our_v6_raw[16] = {0xfd, 0x01, 0, 0, 0, 0, 0, 0,
                                       0, 0, 0, 0xff, 0xfe, 0, 0x02, 0x02};
#else
static const uint8_t our_iid[8] = {0, 0, 0, 0, 0, 0, 0, 2};
static const uint8_t our_ll[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
#endif
static const uint8_t entropy[16] = {'m', 'o', 't', 'e', 'i', 'p', '-', 'f',
                                    'u', 'z', 'z', '-', 's', 'e', 'e', 'd'};

/* --- per-run state ------------------------------------------------------- */

/* An IP datagram that was input, kept to recognise forwarded copies. The
 * bytes point into the fuzzer's input, valid for the whole run. */
struct in_dgram {
    uint8_t family;
    const uint8_t *pkt;
    size_t len;          /* header + payload as the header claims */
    struct mip_ipv4_hdr h4;
    struct mip_ipv6_hdr h6;
    bool hdr_ok;         /* IPv4 header checksum was right */
};

/* Re-assembly of the stack's own fragmented datagrams, to verify their
 * upper-layer checksum. Fragments are expected in order; anything else
 * (a fragment lost in a neighbor queue) just abandons the datagram. */
struct out_reass {
    bool active;
    uint8_t src[16], dst[16];
    uint32_t id;
    uint8_t proto;
    size_t next;
    uint8_t data[65536];
};

#if HARNESS_LOWPAN
/* The driver context of each radio netif. */
struct lp_port {
    uint8_t netif;
};

/* Re-assembly of the FRAG1/FRAGN frames the stack sends: they must come in
 * order, one datagram at a time. */
struct lp_out {
    bool active;
    bool have_tag;
    uint16_t tag, last_tag, size, next;
    struct mip_802154_addr dst;
    uint8_t data[LP_DGRAM_MAX];
};
#endif

static struct {
    struct mip_stack s;
    uint8_t idx;
#if HARNESS_LOWPAN
    uint8_t idx_raw;
    struct lp_port port[2];
    struct lp_out lp_out;
    uint8_t fwd_store[MAX_RECORDS][LP_DGRAM_MAX];   /* datagrams the hook saw */
    uint8_t cur_buf[LP_FRAME_MAX + MIP_LOWPAN_UNCOMP_MAX];
    uint8_t peek_buf[2][LP_DGRAM_MAX];             /* a capture's view of it */
    struct mip_lowpan_peek peek;
    mip_status peek_st;
#endif
    bool drv_fail;
    bool in_input;
    bool cur_link_group;       /* the frame being input was link bcast/mcast */
    const uint8_t *cur_ip;     /* its IP header (NULL: none), for matching quotes */
    size_t cur_ip_len;
    struct in_dgram in[MAX_RECORDS];
    size_t n_in;
    struct out_reass r4, r6;
    unsigned tx_count;
} H;

/* --- small predicates ---------------------------------------------------- */

static bool is_zero(const uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i] != 0)
            return false;
    return true;
}

static bool v4_is_ours(const uint8_t *a) { return memcmp(a, our_v4, 4) == 0; }
static bool v4_is_bcast_or_mcast(const uint8_t *a)
{
    return (a[0] & 0xF0) == 0xE0 || (a[0] == 255 && a[1] == 255 && a[2] == 255 && a[3] == 255) ||
           (a[0] == 192 && a[1] == 0 && a[2] == 2 && a[3] == 255);
}
static inline bool v4_on_link(const uint8_t *a) { return a[0] == 192 && a[1] == 0 && a[2] == 2; }
static bool v6_is_ours(const uint8_t *a)
{
#if HARNESS_LOWPAN
    if (memcmp(a, our_v6_raw, 16) == 0 || memcmp(a, our_ll_raw, 16) == 0)
        return true;
#endif
    return memcmp(a, our_v6, 16) == 0 || memcmp(a, our_ll, 16) == 0;
}
static bool v6_is_mcast(const uint8_t *a) { return a[0] == 0xFF; }
static bool v6_is_ll(const uint8_t *a) { return a[0] == 0xFE && (a[1] & 0xC0) == 0x80; }
static bool v6_on_link(const uint8_t *a)
{
    static const uint8_t pfx[8] = {0xfd, 0, 0, 0, 0, 0, 0, 0};
#if HARNESS_LOWPAN
    if (memcmp(a, our_v6_raw, 8) == 0)
        return true;
#endif
    return v6_is_ll(a) || memcmp(a, pfx, 8) == 0;
}
static bool is_icmpv4_error(uint8_t t) { return t == 3 || t == 4 || t == 5 || t == 11 || t == 12; }

static uint8_t *dup_exact(const uint8_t *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    if (c == NULL)
        abort();
    if (n)
        memcpy(c, p, n);
    return c;
}

/* --- upper-layer checks of datagrams the stack originates ---------------- */

static uint32_t pseudo(uint8_t family, const uint8_t *src, const uint8_t *dst, uint8_t proto,
                       size_t len)
{
    if (family == 4)
        return mip_cksum_pseudo4(src, dst, proto, (uint16_t)len);
    return mip_cksum_pseudo6(src, dst, proto, (uint32_t)len);
}

/* True when an error quoting q is about the frame being input right now and
 * that frame was link-layer broadcast/multicast. (An error sent during an
 * input may also be a packet queued earlier that the input's neighbor
 * information released; its quote then is of another packet.) */
static bool quotes_link_group_input(const uint8_t *q, size_t qlen, size_t hdr)
{
    return H.in_input && H.cur_link_group && H.cur_ip != NULL && qlen >= hdr &&
           H.cur_ip_len >= hdr && memcmp(q, H.cur_ip, hdr) == 0;
}

static void check_icmpv4_error_quote(const uint8_t *dst, const uint8_t *msg, size_t len)
{
    const uint8_t *q = msg + 8;
    size_t qlen = len - 8, qhl;
    uint16_t qfrag;

    CHECK(qlen >= 20, "ICMPv4 error quotes %zu bytes, less than an IP header", qlen);
    CHECK((q[0] >> 4) == 4, "ICMPv4 error quotes a non-IPv4 header");
    qhl = (size_t)(q[0] & 0x0F) * 4;
    CHECK(qhl >= 20 && qhl <= qlen, "ICMPv4 error quotes a cut IPv4 header");
    CHECK(memcmp(q + 12, dst, 4) == 0,
          "ICMPv4 error not sent to the source of the datagram it quotes");
    qfrag = mip_rd16(q + 6);
    /* RFC 1122 3.2.2: never about an ICMP error, a broadcast/multicast
     * destination, a non-initial fragment, or a source naming no host. */
    POLICY((qfrag & 0x1FFF) == 0, "ICMPv4 error about a non-initial fragment (RFC 1122 3.2.2)");
    if (q[9] == 1 && qlen > qhl && (qfrag & 0x1FFF) == 0)
        POLICY(!is_icmpv4_error(q[qhl]), "ICMPv4 error about an ICMP error (RFC 1122 3.2.2)");
    POLICY(!v4_is_bcast_or_mcast(q + 16),
           "ICMPv4 error about a datagram to a broadcast/multicast address (RFC 1122 3.2.2)");
    POLICY(q[12] != 0 && q[12] != 127 && !v4_is_bcast_or_mcast(q + 12),
           "ICMPv4 error to a source that names no single host (RFC 1122 3.2.2)");
    POLICY(!quotes_link_group_input(q, qlen, 20),
           "ICMPv4 error about a link-layer broadcast frame (RFC 1122 3.2.2)");
    POLICY(len + 20 <= 576, "ICMPv4 error datagram of %zu bytes > 576 (RFC 1812 4.3.2.3)",
           len + 20);
}

static void check_icmpv6_error_quote(const uint8_t *dst, const uint8_t *msg, size_t len)
{
    uint8_t type = msg[0], code = msg[1];
    const uint8_t *q = msg + 8;
    size_t qlen = len - 8;
    bool exempt = type == MIP_ICMPV6_PACKET_TOO_BIG ||
                  (type == MIP_ICMPV6_PARAM_PROBLEM && code == 2);

    CHECK(len + 40 <= 1280, "ICMPv6 error packet of %zu bytes > 1280 (RFC 4443 2.4(c))",
          len + 40);
    CHECK(qlen >= 40, "ICMPv6 error quotes %zu bytes, less than an IPv6 header", qlen);
    CHECK((q[0] >> 4) == 6, "ICMPv6 error quotes a non-IPv6 header");
    CHECK(memcmp(q + 8, dst, 16) == 0,
          "ICMPv6 error not sent to the source of the packet it quotes");
    POLICY(!v6_is_mcast(q + 8) && !is_zero(q + 8, 16),
           "ICMPv6 error to a multicast/unspecified source (RFC 4443 2.4(e))");
    POLICY(exempt || !v6_is_mcast(q + 24),
           "ICMPv6 error type %u code %u about a packet to a multicast address (RFC 4443 2.4(e.3))",
           type, code);
    POLICY(exempt || !quotes_link_group_input(q, qlen, 40),
           "ICMPv6 error type %u code %u about a link-layer multicast frame (RFC 4443 2.4(e.2))",
           type, code);
    {
        /* RFC 4443 2.4(e.1): never about an ICMPv6 error. Only judged when
         * the quoted chain walks cleanly to an unfragmented ICMPv6 header. */
        struct mip_ipv6_walk w;
        uint8_t *c = dup_exact(q, qlen);
        if (mip_ipv6_walk_ext(c, qlen, c[6], 40, true, &w) == MIP_OK &&
            w.problem == MIP_IPV6_PROBLEM_NONE && !w.has_frag && w.upper_proto == 58 &&
            w.upper_offset < qlen)
            POLICY(c[w.upper_offset] >= 128,
                   "ICMPv6 error about an ICMPv6 error (RFC 4443 2.4(e.1))");
        free(c);
    }
}

/* The whole upper-layer part of a datagram the stack originated. */
static void check_l4(uint8_t family, const uint8_t *src, const uint8_t *dst, uint8_t proto,
                     const uint8_t *l4, size_t len, uint8_t ttl)
{
    uint32_t sum = pseudo(family, src, dst, proto, len);

    switch (proto) {
    case MIP_IPPROTO_ICMP:
        CHECK(family == 4, "ICMPv4 inside IPv6");
        CHECK(len >= 8, "ICMPv4 message of %zu bytes", len);
        CHECK(mip_cksum_finish(mip_cksum_add(0, l4, len)) == 0, "bad ICMPv4 checksum (type %u)",
              l4[0]);
        if (is_icmpv4_error(l4[0]))
            check_icmpv4_error_quote(dst, l4, len);
        else
            CHECK(l4[0] == MIP_ICMPV4_ECHO_REPLY, "unexpected ICMPv4 type %u sent", l4[0]);
        if (l4[0] == MIP_ICMPV4_ECHO_REPLY)
            POLICY(!v4_is_bcast_or_mcast(dst), "echo reply sent to a broadcast/multicast address");
        break;
    case MIP_IPPROTO_ICMPV6:
        CHECK(family == 6, "ICMPv6 inside IPv4");
        CHECK(len >= 8, "ICMPv6 message of %zu bytes", len);
        CHECK(mip_cksum_finish(mip_cksum_add(sum, l4, len)) == 0, "bad ICMPv6 checksum (type %u)",
              l4[0]);
        if (l4[0] < 128) {
            CHECK(l4[0] >= 1 && l4[0] <= 4, "unexpected ICMPv6 error type %u sent", l4[0]);
            check_icmpv6_error_quote(dst, l4, len);
        } else if (l4[0] == MIP_ICMPV6_ECHO_REPLY) {
            POLICY(!v6_is_mcast(dst), "echo reply sent to a multicast address");
        } else if (l4[0] == MIP_ICMPV6_NS || l4[0] == MIP_ICMPV6_NA) {
            struct mip_nd_msg m;
            struct mip_nd_opt_iter it;
            struct mip_nd_opt o;
            uint8_t *c = dup_exact(l4, len);
            CHECK(ttl == 255, "ND message with hop limit %u (RFC 4861 7.1)", ttl);
            CHECK(mip_nd_parse(c, len, &m) == MIP_OK, "ND message sent that does not parse");
            mip_nd_opt_iter_init(&it, m.opts, m.opts_len);
            while (mip_nd_opt_next(&it, &o) == MIP_OK) {
                if (o.type == MIP_ND_OPT_SLLA || o.type == MIP_ND_OPT_TLLA) {
                    CHECK(HARNESS_ETHERNET, "link-layer address option on a raw-IP link");
                    CHECK(o.len >= 6 && memcmp(o.data, our_mac, 6) == 0,
                          "link-layer address option is not our MAC");
                }
            }
            if (m.type == MIP_ICMPV6_NS) {
                static const uint8_t sn[13] = {0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff};
                CHECK(v6_on_link(m.target), "NS for an off-link target");
                if (v6_is_mcast(dst))
                    CHECK(memcmp(dst, sn, 13) == 0 && memcmp(dst + 13, m.target + 13, 3) == 0,
                          "multicast NS not sent to the target's solicited-node group");
                else
                    CHECK(memcmp(dst, m.target, 16) == 0, "unicast NS not sent to its target");
            } else {
                CHECK(v6_is_ours(m.target), "NA for a target that is not ours");
                if (m.na_flags & MIP_ND_NA_FLAG_SOLICITED)
                    CHECK(!v6_is_mcast(dst), "solicited NA sent to a multicast address");
            }
            free(c);
        } else {
            FAIL("unexpected ICMPv6 type %u sent", l4[0]);
        }
        break;
    case MIP_IPPROTO_UDP: {
        struct mip_udp_hdr u;
        CHECK(mip_udp_parse(l4, len, &u) == MIP_OK, "UDP datagram sent that does not parse");
        CHECK(u.length == len, "UDP length %u != datagram payload %zu", u.length, len);
        CHECK(u.src_port == ECHO_PORT, "UDP sent from port %u; only the echo service sends",
              u.src_port);
        if (family == 6)
            CHECK(u.checksum != 0, "IPv6 UDP without checksum (RFC 8200 8.1)");
        if (u.checksum != 0)
            CHECK(mip_cksum_finish(mip_cksum_add(sum, l4, len)) == 0, "bad UDP checksum");
        POLICY(family == 6 ? !v6_is_mcast(dst) : !v4_is_bcast_or_mcast(dst),
               "echo reply sent to a broadcast/multicast address");
        break;
    }
    case MIP_IPPROTO_TCP: {
        struct mip_tcp_hdr t;
        CHECK(mip_tcp_parse(l4, len, &t) == MIP_OK, "TCP segment sent that does not parse");
        CHECK(mip_cksum_finish(mip_cksum_add(sum, l4, len)) == 0, "bad TCP checksum");
        break;
    }
    default:
        FAIL("datagram with upper protocol %u originated; nothing here sends it", proto);
    }
}

/* Feeds one locally originated fragment to the checker's reassembly. */
static void out_frag(struct out_reass *r, uint8_t family, const uint8_t *src, const uint8_t *dst,
                     uint32_t id, uint8_t proto, size_t off, bool more, const uint8_t *data,
                     size_t len, uint8_t ttl)
{
    size_t alen = family == 4 ? 4 : 16;

    if (more)
        CHECK(len % 8 == 0 && len > 0, "non-last fragment with %zu data bytes", len);
    if (off == 0) {
        r->active = true;
        memcpy(r->src, src, alen);
        memcpy(r->dst, dst, alen);
        r->id = id;
        r->proto = proto;
        r->next = 0;
    } else if (!r->active || r->id != id || r->next != off || memcmp(r->src, src, alen) != 0 ||
               memcmp(r->dst, dst, alen) != 0 || r->proto != proto) {
        r->active = false;
        return;
    }
    CHECK(off + len <= 65535, "fragments past 64 KiB");
    memcpy(r->data + off, data, len);
    r->next = off + len;
    if (!more) {
        r->active = false;
        check_l4(family, src, dst, proto, r->data, r->next, ttl);
    }
}

/* --- forwarded datagrams ------------------------------------------------- */

/* The options of a header a forwarder may pass on: End of Option List and
 * No Operation are one byte, every other option has a length of at least 2
 * that stays inside the header, and none is a Loose (131) or Strict (137)
 * Source and Record Route (RFC 7126 advises dropping those). A reference
 * written apart from mip_ipv4_options_check(). */
static bool v4_options_forwardable(const uint8_t *hdr, size_t hl)
{
    size_t at = 20;
    while (at < hl && hdr[at] != 0) {
        size_t olen = hdr[at] == 1 ? 1 : (hl - at >= 2 ? hdr[at + 1] : 0);
        if (olen == 0 || (hdr[at] != 1 && olen < 2) || olen > hl - at ||
            hdr[at] == 131 || hdr[at] == 137)
            return false;
        at += olen;
    }
    return true;
}

/* The input datagram this emitted IPv4 packet is a forwarded copy (or a
 * re-fragment) of, with the TTL decremented by one; NULL when none. */
static const struct in_dgram *match_fwd4(const struct mip_ipv4_hdr *o, const uint8_t *pkt)
{
    size_t i, plen = (size_t)o->total_len - o->hdr_len;
    const struct in_dgram *first = NULL;
    int best_score = 0;

    for (i = 0; i < H.n_in; i++) {
        const struct in_dgram *d = &H.in[i];
        size_t ipl;
        if (d->family != 4 || d->h4.id != o->id || d->h4.proto != o->proto ||
            memcmp(d->h4.src, o->src, 4) != 0 || memcmp(d->h4.dst, o->dst, 4) != 0 ||
            d->h4.ttl != (uint8_t)(o->ttl + 1) || o->ttl == 255)
            continue;
        ipl = (size_t)d->h4.total_len - d->h4.hdr_len;
        if (o->frag_offset < d->h4.frag_offset ||
            o->frag_offset - d->h4.frag_offset + plen > ipl)
            continue;
        if (memcmp(pkt + o->hdr_len, d->pkt + d->h4.hdr_len + (o->frag_offset - d->h4.frag_offset),
                   plen) != 0)
            continue;
        /* Several inputs may match (replays, or variants differing in TOS,
         * checksum or length): prefer a verbatim copy, then one the output
         * is consistent with. */
        {
            int score = 1;
            if (d->h4.tos == o->tos && (mip_ipv4_checksum_ok(pkt, o->hdr_len) || !d->hdr_ok)) {
                score = 2;
                if (d->h4.frag_offset == o->frag_offset && ipl == plen &&
                    d->h4.flags == o->flags)
                    score = 3;
            }
            if (score > best_score) {
                best_score = score;
                first = d;
            }
        }
    }
    return first;
}

static const struct in_dgram *match_fwd6(const struct mip_ipv6_hdr *o, const uint8_t *pkt)
{
    size_t i;
    const struct in_dgram *first = NULL;

    for (i = 0; i < H.n_in; i++) {
        const struct in_dgram *d = &H.in[i];
        if (d->family != 6 || d->h6.payload_len != o->payload_len ||
            d->h6.hop_limit != (uint8_t)(o->hop_limit + 1) || o->hop_limit == 255 ||
            memcmp(d->h6.src, o->src, 16) != 0 || memcmp(d->h6.dst, o->dst, 16) != 0 ||
            memcmp(d->pkt + 40, pkt + 40, o->payload_len) != 0)
            continue;
        /* prefer an input the output is a verbatim copy of */
        if (d->h6.traffic_class == o->traffic_class && d->h6.flow_label == o->flow_label)
            return d;
        if (first == NULL)
            first = d;
    }
    return first;
}

/* --- one emitted IP datagram --------------------------------------------- */

static void check_ipv4_out(const uint8_t *pkt, size_t len)
{
    struct mip_ipv4_hdr h;
    const struct in_dgram *fwd;
    mip_status st = mip_ipv4_parse(pkt, len, &h);
    size_t plen;
    bool frag;

    CHECK(st == MIP_OK, "emitted IPv4 header does not parse: %s", mip_status_name(st));
    CHECK(h.total_len == len || (len == 46 && HARNESS_ETHERNET),
          "IPv4 total length %u but %zu bytes sent", h.total_len, len);
    CHECK(h.total_len <= (HARNESS_ETHERNET ? 1500u : RAWIP_MTU), "IPv4 datagram over the MTU");
    CHECK(h.ttl != 0, "IPv4 datagram sent with TTL 0");
    POLICY((h.src[0] & 0xF0) != 0xE0 &&
               !(h.src[0] == 255 && h.src[1] == 255 && h.src[2] == 255 && h.src[3] == 255) &&
               h.src[0] != 127,
           "IPv4 datagram sent with a multicast/broadcast/loopback source");
    plen = (size_t)h.total_len - h.hdr_len;
    frag = (h.flags & MIP_IPV4_FLAG_MF) || h.frag_offset != 0;

    fwd = match_fwd4(&h, pkt);
    if (fwd != NULL) {
        /* A forwarded datagram or a re-fragment of one. Its header checksum
         * is right unless the input's already was not (the fuzz build does
         * not drop those, and the TTL update is incremental). */
        CHECK(mip_ipv4_checksum_ok(pkt, h.hdr_len) || !fwd->hdr_ok,
              "bad IPv4 header checksum on a forwarded datagram");
        CHECK(h.tos == fwd->h4.tos, "forwarding changed the TOS");
        CHECK((h.flags & MIP_IPV4_FLAG_DF) == (fwd->h4.flags & MIP_IPV4_FLAG_DF),
              "forwarding changed DF");
        /* a forwarder passes fragments on as they are; pieces it cuts
         * itself must follow the 8-byte rule (the last piece keeps whatever
         * length the input's tail had) */
        if (h.frag_offset + plen < fwd->h4.frag_offset + (size_t)fwd->h4.total_len -
                                       fwd->h4.hdr_len)
            CHECK(plen % 8 == 0 && plen > 0, "re-fragment with %zu data bytes before the end",
                  plen);
        if (h.frag_offset + plen == fwd->h4.frag_offset + (size_t)fwd->h4.total_len -
                                        fwd->h4.hdr_len)
            CHECK((h.flags & MIP_IPV4_FLAG_MF) == (fwd->h4.flags & MIP_IPV4_FLAG_MF),
                  "re-fragmenting lost/added MF on the last piece");
        else
            CHECK(h.flags & MIP_IPV4_FLAG_MF, "re-fragment without MF before the end");
        POLICY(h.dst[0] != 0 && h.dst[0] != 127 && h.dst[0] < 240 && !v4_is_bcast_or_mcast(h.dst),
               "forwarded a datagram to 0/8, 127/8, 240/4, broadcast or multicast "
               "(RFC 1812 5.3.7, 4.2.3.1)");
        POLICY(h.src[0] != 0, "forwarded a datagram from network 0 (RFC 1812 5.3.7)");
        POLICY(v4_options_forwardable(pkt, h.hdr_len),
               "forwarded a datagram with a malformed option or a source route (RFC 791, "
               "RFC 7126 4.3/4.4)");
        return;
    }
    /* Originated here. */
    CHECK(mip_ipv4_checksum_ok(pkt, h.hdr_len), "bad IPv4 header checksum");
    CHECK(h.hdr_len == 20, "originated IPv4 header with options");
    CHECK(v4_is_ours(h.src),
          "IPv4 datagram from %u.%u.%u.%u: neither ours nor a forward of an input "
          "(with TTL-1)", h.src[0], h.src[1], h.src[2], h.src[3]);
    POLICY(h.dst[0] != 0 && h.dst[0] != 127, "datagram sent to 0/8 or 127/8");
    if (frag)
        out_frag(&H.r4, 4, h.src, h.dst, h.id, h.proto, h.frag_offset,
                 (h.flags & MIP_IPV4_FLAG_MF) != 0, pkt + h.hdr_len, plen, h.ttl);
    else
        check_l4(4, h.src, h.dst, h.proto, pkt + h.hdr_len, plen, h.ttl);
}

static void check_ipv6_out(const uint8_t *pkt, size_t len)
{
    struct mip_ipv6_hdr h;
    struct mip_ipv6_walk w;
    const struct in_dgram *fwd;
    size_t plen;
    mip_status st = mip_ipv6_parse(pkt, len, &h);

    CHECK(st == MIP_OK, "emitted IPv6 header does not parse: %s", mip_status_name(st));
    plen = 40u + h.payload_len;
    CHECK(plen == len || (len == 46 && HARNESS_ETHERNET),
          "IPv6 payload length %u but %zu bytes sent", h.payload_len, len);
    CHECK(plen <= (HARNESS_ETHERNET ? 1500u : RAWIP_MTU), "IPv6 packet over the MTU");
    CHECK(h.hop_limit != 0, "IPv6 packet sent with hop limit 0");
    CHECK(!v6_is_mcast(h.src), "IPv6 packet with a multicast source");

    fwd = match_fwd6(&h, pkt);
    if (fwd != NULL) {
        CHECK(h.traffic_class == fwd->h6.traffic_class && h.flow_label == fwd->h6.flow_label,
              "forwarding changed traffic class / flow label");
        POLICY(!is_zero(h.src, 16), "forwarded a packet from :: (RFC 4291 2.5.2)");
        POLICY(!v6_is_ll(h.src) && !v6_is_ll(h.dst),
               "forwarded a packet with a link-local address (RFC 4291 2.5.6)");
        POLICY(!v6_is_mcast(h.dst) || (h.dst[1] & 0x0F) > 2,
               "forwarded a link-scope multicast packet (RFC 4291 2.7)");
        POLICY(!is_zero(h.dst, 16), "forwarded a packet to :: (RFC 4291 2.5.2)");
        POLICY(!(is_zero(h.dst, 15) && h.dst[15] == 1) && !(is_zero(h.src, 15) && h.src[15] == 1),
               "forwarded a packet to/from ::1 (RFC 4291 2.5.3)");
        return;
    }
    /* Originated here. */
    CHECK(v6_is_ours(h.src),
          "IPv6 packet from a source that is neither ours nor a forward of an input "
          "(with hop limit-1)");
    CHECK(!is_zero(h.dst, 16), "IPv6 packet sent to ::");
    {
        uint8_t *c = dup_exact(pkt, plen);
        st = mip_ipv6_walk_ext(c, plen, h.next_header, 40, true, &w);
        free(c);
    }
    CHECK(st == MIP_OK && w.problem == MIP_IPV6_PROBLEM_NONE,
          "originated IPv6 extension headers do not walk cleanly");
    if (w.has_frag) {
        POLICY(w.frag_offset != 0 || w.frag_more,
               "atomic fragment originated (RFC 8021)");
        out_frag(&H.r6, 6, h.src, h.dst, w.frag_id, w.frag_next, w.frag_offset, w.frag_more,
                 pkt + w.frag_data_offset, plen - w.frag_data_offset, h.hop_limit);
    } else {
        CHECK(w.upper_proto != MIP_IPV6_NH_NONE || w.upper_offset == plen,
              "no-next-header packet with a payload");
        check_l4(6, h.src, h.dst, w.upper_proto, pkt + w.upper_offset, plen - w.upper_offset,
                 h.hop_limit);
    }
}

/* --- the driver ---------------------------------------------------------- */

#if !HARNESS_LOWPAN
static void check_frame(const uint8_t *frame, size_t len)
{
#if HARNESS_ETHERNET
    struct mip_eth_hdr eh;
    const uint8_t *p = frame + MIP_ETH_HDR_LEN;
    size_t plen;

    CHECK(len >= MIP_ETH_HDR_LEN && len <= 1514, "Ethernet frame of %zu bytes", len);
    CHECK(mip_eth_parse(frame, len, &eh) == MIP_OK, "Ethernet header does not parse");
    CHECK(memcmp(eh.src, our_mac, 6) == 0, "frame sent from a MAC that is not ours");
    plen = len - MIP_ETH_HDR_LEN;
    switch (eh.ethertype) {
    case MIP_ETHERTYPE_ARP: {
        struct mip_arp a;
        CHECK(mip_arp_parse(p, plen, &a) == MIP_OK, "ARP packet sent that does not parse");
        CHECK(plen == MIP_ARP_LEN || len == 60, "ARP packet with %zu bytes", plen);
        CHECK(memcmp(a.sha, our_mac, 6) == 0, "ARP sender hardware address not ours");
        CHECK(v4_is_ours(a.spa), "ARP sender protocol address not ours");
        if (a.op == MIP_ARP_OP_REQUEST) {
            CHECK(v4_on_link(a.tpa), "ARP request for an off-link address %u.%u.%u.%u",
                  a.tpa[0], a.tpa[1], a.tpa[2], a.tpa[3]);
            CHECK(!v4_is_bcast_or_mcast(a.tpa), "ARP request for a broadcast address");
        } else {
            CHECK(memcmp(eh.dst, a.tha, 6) == 0, "ARP reply not sent to the requester");
        }
        break;
    }
    case MIP_ETHERTYPE_IPV4: {
        uint8_t *c;
        CHECK(plen >= 20 && (p[0] >> 4) == 4, "IPv4 ethertype without an IPv4 header");
        if (v4_is_bcast_or_mcast(p + 16)) {
            if ((p[16] & 0xF0) == 0xE0)
                CHECK(eh.dst[0] == 1 && eh.dst[1] == 0 && eh.dst[2] == 0x5e &&
                      eh.dst[3] == (p[17] & 0x7F) && eh.dst[4] == p[18] && eh.dst[5] == p[19],
                      "IPv4 multicast to the wrong MAC");
            else
                CHECK(memcmp(eh.dst, "\xff\xff\xff\xff\xff\xff", 6) == 0,
                      "IPv4 broadcast not to ff:ff:ff:ff:ff:ff");
        } else {
            POLICY((eh.dst[0] & 1) == 0,
                   "IPv4 unicast sent to a group MAC (believed an ARP claim of a "
                   "broadcast address, RFC 1812 3.3.2)");
        }
        c = dup_exact(p, plen);
        check_ipv4_out(c, plen);
        free(c);
        break;
    }
    case MIP_ETHERTYPE_IPV6: {
        uint8_t *c;
        CHECK(plen >= 40 && (p[0] >> 4) == 6, "IPv6 ethertype without an IPv6 header");
        if (v6_is_mcast(p + 24))
            CHECK(eh.dst[0] == 0x33 && eh.dst[1] == 0x33 && memcmp(eh.dst + 2, p + 36, 4) == 0,
                  "IPv6 multicast to the wrong MAC");
        c = dup_exact(p, plen);
        check_ipv6_out(c, plen);
        free(c);
        break;
    }
    default:
        FAIL("frame with ethertype 0x%04x sent", eh.ethertype);
    }
#else
    uint8_t *c;
    CHECK(len >= 1 && len <= RAWIP_MTU, "raw-IP frame of %zu bytes", len);
    c = dup_exact(frame, len);
    if ((frame[0] >> 4) == 4)
        check_ipv4_out(c, len);
    else if ((frame[0] >> 4) == 6)
        check_ipv6_out(c, len);
    else
        FAIL("raw-IP frame of IP version %u", frame[0] >> 4);
    free(c);
#endif
}
#endif

#if HARNESS_LOWPAN
static void lp_our_link(uint8_t netif, struct mip_802154_addr *a)
{
    memset(a, 0, sizeof *a);
    a->mode = MIP_802154_ADDR_SHORT;
    a->short_addr = (uint16_t)(netif == 0 ? LP_SHORT0 : LP_SHORT1);
}

static void lp_env(struct mip_lowpan_env *env, const struct mip_802154_addr *src,
                   const struct mip_802154_addr *dst)
{
    static const uint8_t (*ctx)[8] = &lp_ctx0;
    memset(env, 0, sizeof *env);   /* the switches added later stay off */
    env->src = src;
    env->dst = dst;
    env->ctx = ctx;
    env->ctx_count = 1;
    env->ctx_absent = 0;
    env->ctx_nocomp = 0;
}

static bool lp_addr_eq(const struct mip_802154_addr *a, const struct mip_802154_addr *b)
{
    if (a->mode != b->mode)
        return false;
    if (a->mode == MIP_802154_ADDR_SHORT)
        return a->short_addr == b->short_addr;
    if (a->mode == MIP_802154_ADDR_EXT)
        return memcmp(a->ext, b->ext, 8) == 0;
    return true;
}

static bool lp_is_bcast(const struct mip_802154_addr *a)
{
    return a->mode == MIP_802154_ADDR_SHORT && a->short_addr == 0xFFFFu;
}

/* The link destination of a whole IPv6 datagram: broadcast exactly for
 * multicast, and the station a link-local destination's IID names. */
static void lp_check_dst6(const struct mip_802154_addr *ld, const uint8_t *ip, size_t len)
{
    struct mip_802154_addr want;
    if (len < 40)
        return;
    CHECK(lp_is_bcast(ld) == v6_is_mcast(ip + 24),
          "IPv6 %s sent in a %s frame", v6_is_mcast(ip + 24) ? "multicast" : "unicast",
          lp_is_bcast(ld) ? "broadcast" : "unicast");
    if (v6_is_ll(ip + 24)) {
        CHECK(mip_lowpan_link_from_iid(ip + 32, &want) == MIP_OK,
              "sent to a link-local address that names no station");
        CHECK(lp_addr_eq(&want, ld), "link-local destination sent to another link address");
    }
}

static void lp_check_raw(const uint8_t *c, size_t len, size_t hl,
                         const struct mip_802154_hdr *h)
{
    size_t hdr = LP_RAW_HDR - 2u, n;
    const uint8_t *ip = c + hdr;
    uint8_t *d;
    CHECK(hl == 9 && h->dst.mode == MIP_802154_ADDR_SHORT,
          "RAW_IP frame without short addresses (MHR %zu bytes)", hl);
    CHECK(len > hdr, "RAW_IP frame of %zu bytes without a datagram", len);
    CHECK(is_zero(c + hl, hdr - 1u - hl), "RAW_IP padding not zero");
    n = len - hdr;
    CHECK(n <= LP_FRAME_MAX - LP_RAW_HDR, "RAW_IP datagram of %zu bytes over the MTU", n);
    d = dup_exact(ip, n);
    if (c[hdr - 1u] == MIP_LOWPAN_DISPATCH_IPV6) {
        CHECK((ip[0] >> 4) == 6, "dispatch 0x41 before IP version %u", ip[0] >> 4);
        lp_check_dst6(&h->dst, ip, n);
        check_ipv6_out(d, n);
    } else if (c[hdr - 1u] == 0x3Fu) {
        CHECK((ip[0] >> 4) == 4, "dispatch 0x3F before IP version %u", ip[0] >> 4);
        if (n >= 20)
            CHECK(lp_is_bcast(&h->dst) == v4_is_bcast_or_mcast(ip + 16),
                  "IPv4 broadcast/unicast and link broadcast disagree");
        check_ipv4_out(d, n);
    } else {
        FAIL("RAW_IP frame with dispatch 0x%02x", c[hdr - 1u]);
    }
    free(d);
}

/* Checks one IPHC frame: whole datagrams at once, fragments as the
 * datagram they rebuild. */
static void lp_check_iphc(const uint8_t *pl, size_t n, const struct mip_802154_hdr *h)
{
    struct lp_out *o = &H.lp_out;
    struct mip_802154_addr me;
    struct mip_lowpan_env env;
    struct mip_lowpan_frag f;
    uint8_t buf[LP_FRAME_MAX + MIP_LOWPAN_UNCOMP_MAX], *d;
    size_t consumed = 0, hl = 0, fl = 0;
    mip_status st;

    lp_our_link(0, &me);
    lp_env(&env, &me, &h->dst);
    CHECK(n >= 1, "IPHC netif frame without payload");
    switch (mip_lowpan_dispatch_of(pl[0])) {
    case MIP_LOWPAN_D_IPHC:
        CHECK(!o->active, "a datagram sent in the middle of another one's fragments");
        st = mip_lowpan_iphc_decompress(pl, n, &env, 0, buf, sizeof buf, &consumed, &hl);
        CHECK(st == MIP_OK, "IPHC header sent that does not decompress: %s",
              mip_status_name(st));
        memcpy(buf + hl, pl + consumed, n - consumed);
        d = dup_exact(buf, hl + n - consumed);
        lp_check_dst6(&h->dst, d, hl + n - consumed);
        check_ipv6_out(d, hl + n - consumed);
        free(d);
        return;
    case MIP_LOWPAN_D_FRAG1:
        CHECK(!o->active, "FRAG1 in the middle of another datagram's fragments");
        CHECK(mip_lowpan_frag_parse(pl, n, &f, &fl) == MIP_OK, "FRAG1 header does not parse");
        CHECK(f.size >= 40 && f.size <= LP_DGRAM_MAX, "FRAG1 datagram_size %u", f.size);
        CHECK(!o->have_tag || f.tag != o->last_tag, "datagram_tag %u used twice in a row",
              f.tag);
        CHECK(n > fl && mip_lowpan_dispatch_of(pl[fl]) == MIP_LOWPAN_D_IPHC,
              "FRAG1 without an IPHC header");
        st = mip_lowpan_iphc_decompress(pl + fl, n - fl, &env, f.size, o->data, sizeof o->data,
                                        &consumed, &hl);
        CHECK(st == MIP_OK, "FRAG1 IPHC header does not decompress: %s", mip_status_name(st));
        CHECK(hl + (n - fl - consumed) < f.size, "FRAG1 holding the whole datagram");
        memcpy(o->data + hl, pl + fl + consumed, n - fl - consumed);
        o->next = (uint16_t)(hl + n - fl - consumed);
        CHECK(o->next % 8u == 0, "FRAG1 covering %u bytes, not a multiple of 8", o->next);
        o->active = true;
        o->have_tag = true;
        o->tag = f.tag;
        o->last_tag = f.tag;
        o->size = f.size;
        o->dst = h->dst;
        return;
    case MIP_LOWPAN_D_FRAGN:
        CHECK(o->active, "FRAGN without a FRAG1 before it");
        CHECK(mip_lowpan_frag_parse(pl, n, &f, &fl) == MIP_OK, "FRAGN header does not parse");
        CHECK(f.tag == o->tag && f.size == o->size, "FRAGN of another datagram");
        CHECK(f.offset == o->next, "FRAGN at offset %u, expected %u", f.offset, o->next);
        CHECK(lp_addr_eq(&h->dst, &o->dst), "fragments of one datagram to two stations");
        CHECK(n > fl, "empty FRAGN");
        CHECK(o->next + (n - fl) <= o->size, "FRAGN past datagram_size");
        memcpy(o->data + o->next, pl + fl, n - fl);
        o->next = (uint16_t)(o->next + (n - fl));
        if (o->next < o->size) {
            CHECK((n - fl) % 8u == 0, "non-final FRAGN of %zu bytes", n - fl);
            return;
        }
        o->active = false;
        d = dup_exact(o->data, o->size);
        lp_check_dst6(&h->dst, d, o->size);
        check_ipv6_out(d, o->size);
        free(d);
        return;
    default:
        FAIL("IPHC netif frame with dispatch 0x%02x", pl[0]);
    }
}

static void check_lowpan_frame(uint8_t netif, const uint8_t *frame, size_t len)
{
    struct mip_802154_hdr h;
    size_t hl = 0;
    uint8_t *c;
    bool bcast;

    CHECK(len <= LP_FRAME_MAX - 2u, "radio frame of %zu bytes > frame_max - 2", len);
    c = dup_exact(frame, len);
    CHECK(mip_ieee802154_parse(c, len, &h, &hl) == MIP_OK, "MHR sent that does not parse");
    CHECK(h.type == MIP_802154_DATA && h.version == 0 && !h.frame_pending && h.seq == 0,
          "frame type %u version %u pending %d seq %u", h.type, h.version, h.frame_pending,
          h.seq);
    CHECK(h.pan_id_compress && h.dst_pan == LP_PAN, "not an intra-PAN frame of PAN 0xABCD");
    CHECK(h.src.mode == MIP_802154_ADDR_SHORT &&
              h.src.short_addr == (netif == 0 ? LP_SHORT0 : LP_SHORT1),
          "frame from a link address that is not the netif's");
    CHECK(h.dst.mode != MIP_802154_ADDR_NONE, "frame without a destination");
    bcast = lp_is_bcast(&h.dst);
    CHECK(h.ack_request == !bcast, "ack request %d on a %s frame", h.ack_request,
          bcast ? "broadcast" : "unicast");
    if (netif == 1)
        lp_check_raw(c, len, hl, &h);
    else
        lp_check_iphc(c + hl, len - hl, &h);
    free(c);
    /* A refused frame ends the datagram: the stack sends no more of it. */
    if (H.drv_fail)
        H.lp_out.active = false;
}
#endif

#if !HARNESS_LOWPAN
/* One line per frame sent, for checking what a seed makes the stack do. */
static void describe_frame(const uint8_t *f, size_t len)
{
    const uint8_t *ip = f;
    size_t n = len;

    fprintf(stderr, "  tx %4zu bytes%s:", len, H.drv_fail ? " (driver fails)" : "");
#if HARNESS_ETHERNET
    if (len < 14) {
        fprintf(stderr, " runt\n");
        return;
    }
    if (mip_rd16(f + 12) == MIP_ETHERTYPE_ARP && len >= 42) {
        fprintf(stderr, " ARP op %u who-has %u.%u.%u.%u\n", mip_rd16(f + 20), f[38], f[39],
                f[40], f[41]);
        return;
    }
    ip = f + 14;
    n = len - 14;
#endif
    if (n >= 20 && (ip[0] >> 4) == 4) {
        size_t hl = (size_t)(ip[0] & 15) * 4;
        fprintf(stderr, " IPv4 %u.%u.%u.%u -> %u.%u.%u.%u proto %u ttl %u frag 0x%04x", ip[12],
                ip[13], ip[14], ip[15], ip[16], ip[17], ip[18], ip[19], ip[9], ip[8],
                mip_rd16(ip + 6));
        if (ip[9] == 1 && n > hl + 1)
            fprintf(stderr, " icmp %u/%u", ip[hl], ip[hl + 1]);
        if (ip[9] == 17 && n >= hl + 4)
            fprintf(stderr, " udp %u -> %u", mip_rd16(ip + hl), mip_rd16(ip + hl + 2));
    } else if (n >= 40 && (ip[0] >> 4) == 6) {
        fprintf(stderr, " IPv6 ..%02x%02x -> %02x%02x..%02x%02x nh %u hlim %u", ip[22], ip[23],
                ip[24], ip[25], ip[38], ip[39], ip[6], ip[7]);
        if (ip[6] == 58 && n > 41)
            fprintf(stderr, " icmp6 %u/%u", ip[40], ip[41]);
    } else {
        fprintf(stderr, " ?");
    }
    fputc('\n', stderr);
}
#endif

static mip_status drv_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    const struct mip_stack *s = &H.s;
    const uint8_t *lo = (const uint8_t *)s, *hi = lo + sizeof(*s);
    unsigned i;

#if HARNESS_LOWPAN
    CHECK(ctx == &H.port[0] || ctx == &H.port[1], "driver context not passed through");
#else
    CHECK(ctx == &H, "driver context not passed through");
#endif
    CHECK(frame != NULL, "NULL frame");
    /* A frame in a packet buffer must lie wholly inside it. */
    if (frame >= lo && frame < hi) {
        for (i = 0; i < MIP_PBUF_COUNT; i++) {
            const uint8_t *b = s->pool.buf[i].data;
            if (frame >= b && frame < b + MIP_PBUF_SIZE) {
                CHECK(s->pool.buf[i].in_use, "frame sent from a free packet buffer");
                CHECK(len <= (size_t)(b + MIP_PBUF_SIZE - frame),
                      "frame runs past the end of its packet buffer");
            }
        }
        CHECK(len <= (size_t)(hi - frame), "frame runs past the stack instance");
    }
    H.tx_count++;
#if HARNESS_LOWPAN
    if (verbose) {
        struct mip_802154_hdr vh;
        size_t vhl = 0;
        uint8_t vn = ((const struct lp_port *)ctx)->netif;
        if (mip_ieee802154_parse(frame, len, &vh, &vhl) == MIP_OK && vn == 1)
            vhl = LP_RAW_HDR - 3u;
        fprintf(stderr, "  tx %4zu bytes on netif %u%s: dispatch 0x%02x\n", len, vn,
                H.drv_fail ? " (driver fails)" : "", vhl < len ? frame[vhl] : 0u);
    }
    check_lowpan_frame(((const struct lp_port *)ctx)->netif, frame, len);
#else
    if (verbose)
        describe_frame(frame, len);
    check_frame(frame, len);
#endif
    return H.drv_fail ? MIP_ERR_NOBUFS : MIP_OK;
}

static const struct mip_netif_driver drv = { drv_transmit, NULL, NULL };

/* --- the UDP echo service ------------------------------------------------ */

static void echo_recv(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                      const uint8_t *data, size_t len)
{
    bool unicast;
    volatile uint8_t sink = 0;
    size_t i;

    CHECK(ctx == &H && s == &H.s, "UDP callback context");
    CHECK(m->dst_port == ECHO_PORT, "datagram for port %u delivered to port 7's callback",
          m->dst_port);
    CHECK(m->src.family == m->dst.family &&
              (m->src.family == MIP_AF_INET || m->src.family == MIP_AF_INET6),
          "UDP meta with bad address families");
#if HARNESS_LOWPAN
    CHECK(m->netif == H.idx || m->netif == H.idx_raw, "UDP meta netif");
#else
    CHECK(m->netif == H.idx, "UDP meta netif");
#endif
    /* touch the payload: it must be readable for len bytes */
    for (i = 0; i < len; i++)
        sink ^= data[i];
    (void)sink;
    if (m->dst.family == MIP_AF_INET) {
        unicast = !v4_is_bcast_or_mcast(m->dst.bytes);
        if (unicast)
            CHECK(v4_is_ours(m->dst.bytes), "UDP delivered for an address that is not ours");
    } else {
        unicast = !v6_is_mcast(m->dst.bytes);
        if (unicast)
            CHECK(v6_is_ours(m->dst.bytes), "UDP delivered for an address that is not ours");
    }
    /* An echo server answers from the address it was reached at; for a
     * broadcast/multicast one it lets the stack choose. */
    (void)mip_udp_sendto(s, unicast ? &m->dst : NULL, ECHO_PORT, &m->src, m->src_port,
                         m->netif, data, len);
}

/* --- stack-wide invariants ----------------------------------------------- */

#if MIP_CONF_LOWPAN
/* Record i of the two 6LoWPAN tables: reassembly slots, then VRB entries. */
static const struct mip_lowpan_dgram *lowpan_dgram(const struct mip_stack *s, unsigned i)
{
#if MIP_LOWPAN_VRB_SLOTS > 0
    if (i >= MIP_LOWPAN_REASS_SLOTS)
        return &s->lowpan_vrb[i - MIP_LOWPAN_REASS_SLOTS].d;
#endif
    return &s->lowpan_reass[i].d;
}
#endif

static void check_invariants(void)
{
    const struct mip_stack *s = &H.s;
    unsigned i, in_use = 0, refs = 0;
    uint8_t seen[MIP_PBUF_COUNT];

    memset(seen, 0, sizeof seen);
    for (i = 0; i < MIP_PBUF_COUNT; i++)
        if (s->pool.buf[i].in_use)
            in_use++;
    CHECK(in_use == s->pool.in_use, "pool count %u but %u buffers marked in use",
          s->pool.in_use, in_use);
    /* Between calls the only holders of packet buffers are neighbor
     * queues: anything else is a leak. */
    for (i = 0; i < MIP_NEIGH_MAX; i++) {
        const struct mip_neigh *e = &s->neigh[i];
        if (e->state == MIP_NEIGH_FREE || e->pending == MIP_PBUF_NONE)
            continue;
        CHECK(e->pending < MIP_PBUF_COUNT, "neighbor queue index %u", e->pending);
        CHECK(s->pool.buf[e->pending].in_use, "neighbor queue holds a free buffer");
        CHECK(!seen[e->pending], "one buffer queued on two neighbors");
        seen[e->pending] = 1;
        refs++;
        CHECK(e->state == MIP_NEIGH_INCOMPLETE, "a resolved neighbor still queues a packet");
    }
    CHECK(refs == in_use, "packet buffer leak: %u in use, %u queued on neighbors", in_use, refs);
    for (i = 0; i < MIP_REASS_SLOTS; i++) {
        const struct mip_reass_slot *r = &s->reass[i];
        if (!r->used)
            continue;
        CHECK(r->total <= MIP_REASS_SIZE, "reassembly total %u", r->total);
        CHECK(r->hdr_len <= sizeof r->hdr, "reassembly header length %u", r->hdr_len);
        CHECK(r->family == MIP_AF_INET || r->family == MIP_AF_INET6, "reassembly family");
        /* the last fragment came between the first one and now */
        CHECK(!mip_time_before(s->now, r->last) &&
              !mip_time_before(r->last, r->deadline - MIP_REASS_TIMEOUT_MS),
              "reassembly slot's last fragment outside its lifetime");
    }
#if MIP_CONF_LOWPAN
    for (i = 0; i < MIP_LOWPAN_REASS_SLOTS + MIP_LOWPAN_VRB_SLOTS; i++) {
        const struct mip_lowpan_dgram *r = lowpan_dgram(s, i);
        unsigned b, bytes = 0;
        if (!r->used)
            continue;
        CHECK(r->size >= 1u && r->size <= MIP_LOWPAN_DGRAM_MAX, "6LoWPAN datagram_size %u",
              r->size);
        CHECK(r->received < r->size, "6LoWPAN record %u with %u of %u bytes still held",
              i, r->received, r->size);
        CHECK(r->from.netif < MIP_NETIF_MAX && s->netif[r->from.netif].ops != NULL,
              "6LoWPAN record of netif %u", r->from.netif);
        CHECK(!mip_time_before(s->now, r->last) &&
              !mip_time_before(r->last, r->deadline - MIP_LOWPAN_REASS_TIMEOUT_MS),
              "6LoWPAN record's last fragment outside its lifetime");
        /* the bitmap covers what was received: whole blocks, the last one
         * possibly short */
        for (b = 0; b < MIP_LOWPAN_DGRAM_MAX / 8u; b++)
            if (r->bitmap[b / 8u] & (1u << (b % 8u)))
                bytes += 8u * b + 8u <= r->size ? 8u : r->size - 8u * b;
        CHECK(bytes == r->received, "6LoWPAN record %u: bitmap %u bytes, received %u", i, bytes,
              r->received);
    }
#if MIP_LOWPAN_VRB_SLOTS > 0
    for (i = 0; i < MIP_LOWPAN_VRB_SLOTS; i++) {
        const struct mip_lowpan_vrb *v = &s->lowpan_vrb[i];
        if (!v->d.used)
            continue;
        CHECK(v->out_netif < MIP_NETIF_MAX && s->netif[v->out_netif].ops != NULL,
              "VRB entry %u sends on netif %u", i, v->out_netif);
        CHECK(!(v->next_mode == MIP_802154_ADDR_SHORT && v->next_short == 0xFFFFu),
              "VRB entry %u forwards to the broadcast address", i);
    }
#endif
#endif
}

/* The delay to the earliest deadline pending in the stack's state, by the
 * rules of neigh.h and reass.h: incomplete, reachable and probing-stale
 * neighbors and used reassembly slots have one. */
static uint32_t pending_delay(mip_time_t now)
{
    const struct mip_stack *s = &H.s;
    uint32_t next = MIP_POLL_IDLE;
    unsigned i;

    for (i = 0; i < MIP_NEIGH_MAX; i++) {
        const struct mip_neigh *e = &s->neigh[i];
        if (e->state == MIP_NEIGH_FREE || (e->state == MIP_NEIGH_STALE && e->probes == 0))
            continue;
        next = mip_next_delay(next, now, e->deadline);
    }
    for (i = 0; i < MIP_REASS_SLOTS; i++)
        if (s->reass[i].used)
            next = mip_next_delay(next, now, s->reass[i].deadline);
#if MIP_CONF_LOWPAN
    for (i = 0; i < MIP_LOWPAN_REASS_SLOTS + MIP_LOWPAN_VRB_SLOTS; i++)
        if (lowpan_dgram(s, i)->used)
            next = mip_next_delay(next, now, lowpan_dgram(s, i)->deadline);
#endif
    return next;
}

/* mip_stack_poll(now) with its answer checked: a caller sleeping for the
 * returned delay must not miss a deadline. */
static uint32_t poll_once(mip_time_t now)
{
    uint32_t d = mip_stack_poll(&H.s, now), want;

    check_invariants();
    want = pending_delay(now);
    CHECK(d <= want, "poll returned %u ms (MIP_POLL_IDLE = %u) but a deadline is %u ms away",
          d, MIP_POLL_IDLE, want);
    return d;
}

static void poll_checked(mip_time_t now)
{
    uint32_t d = poll_once(now);

    /* (or a stamp's horizon, timer.h: [half, whole] MIP_TIME_HORIZON_MS) */
    CHECK(d == MIP_POLL_IDLE || d <= POLL_MAX_DELAY ||
          (d >= MIP_TIME_HORIZON_MS / 2u && d <= MIP_TIME_HORIZON_MS),
          "poll returned a %u ms delay", d);
    if (d == 0) {
        /* everything due at `now` has just run */
        d = poll_once(now);
        CHECK(d != 0, "poll(now) twice in a row still reports a due timer");
    }
}

/* --- setup and the record loop ------------------------------------------- */

#if HARNESS_LOWPAN
/* Records each datagram the stack forwards (after the hop limit / TTL
 * decrement) as if it had been input with one more: the frames it came in
 * are compressed or fragmented, so the output checks match against these. */
static enum mip_fwd_verdict lp_fwd_hook(void *ctx, struct mip_stack *s, uint8_t in_netif,
                                        uint8_t out_netif, uint8_t *pkt, size_t len)
{
    struct in_dgram *d;
    uint8_t *copy;
    CHECK(ctx == &H && s == &H.s, "forward hook context");
    CHECK(in_netif < 2 && out_netif < 2, "forward between netifs %u -> %u", in_netif,
          out_netif);
    CHECK(len <= LP_DGRAM_MAX, "forwarding a %zu-byte datagram", len);
    CHECK(H.n_in < MAX_RECORDS, "more forwarded datagrams than records");
    d = &H.in[H.n_in];
    copy = H.fwd_store[H.n_in];
    memset(d, 0, sizeof *d);
    memcpy(copy, pkt, len);
    if (len >= 1 && (pkt[0] >> 4) == 4 && mip_ipv4_parse(copy, len, &d->h4) == MIP_OK) {
        d->family = 4;
        d->len = d->h4.total_len;
        d->hdr_ok = mip_ipv4_checksum_ok(copy, d->h4.hdr_len);
        d->h4.ttl = (uint8_t)(d->h4.ttl + 1u);
    } else if (len >= 1 && (pkt[0] >> 4) == 6 && mip_ipv6_parse(copy, len, &d->h6) == MIP_OK) {
        d->family = 6;
        d->len = 40u + d->h6.payload_len;
        d->h6.hop_limit = (uint8_t)(d->h6.hop_limit + 1u);
    } else {
        FAIL("forwarding something that is not an IP datagram");
    }
    d->pkt = copy;
    H.n_in++;
    return MIP_FWD_PASS;
}

static void lp_setup(void)
{
    struct mip_lowpan_config c;
    struct mip_addr a, gw, any;
    uint8_t pfx;
    mip_status st;

    memset(&c, 0, sizeof c);
    c.mode = MIP_LOWPAN_IPHC;
    c.pan_id = LP_PAN;
    c.short_addr = LP_SHORT0;
    memcpy(c.ext_addr, lp_ext0, 8);
    c.frame_max = LP_FRAME_MAX;
    c.ack_request = true;
    c.has_context0 = true;
    memcpy(c.ctx0_prefix, lp_ctx0, 8);
    H.port[0].netif = 0;
    H.port[1].netif = 1;
    st = mip_netif_add_lowpan(&H.s, &c, &drv, &H.port[0], &H.idx);
    CHECK(st == MIP_OK && H.idx == 0, "IPHC netif add: %s", mip_status_name(st));
    c.mode = MIP_LOWPAN_RAW_IP;
    c.short_addr = LP_SHORT1;
    memcpy(c.ext_addr, lp_ext1, 8);
    c.raw_link_hdr_len = LP_RAW_HDR;
    st = mip_netif_add_lowpan(&H.s, &c, &drv, &H.port[1], &H.idx_raw);
    CHECK(st == MIP_OK && H.idx_raw == 1, "RAW_IP netif add: %s", mip_status_name(st));

    CHECK(mip_addr_parse("fd00::2/64", &a, &pfx) == MIP_OK, "addr parse v6");
    CHECK(mip_netif_add_addr(&H.s, H.idx, &a, pfx) == MIP_OK, "add fd00::2/64");
    mip_addr_set6(&a, our_ll);
    CHECK(mip_netif_has_addr(mip_netif_get(&H.s, H.idx), &a), "link-local address not derived");
    mip_addr_set6(&a, our_v6_raw);
    CHECK(mip_netif_add_addr(&H.s, H.idx_raw, &a, 64) == MIP_OK, "add fd01::ff:fe00:202/64");
    mip_addr_set6(&a, our_ll_raw);
    CHECK(mip_netif_has_addr(mip_netif_get(&H.s, H.idx_raw), &a),
          "RAW_IP link-local address not derived");
    CHECK(mip_addr_parse("192.0.2.2/24", &a, &pfx) == MIP_OK, "addr parse");
    CHECK(mip_netif_add_addr(&H.s, H.idx_raw, &a, pfx) == MIP_OK, "add 192.0.2.2/24");
    CHECK(mip_addr_parse("192.0.2.1", &gw, NULL) == MIP_OK, "gw parse");
    CHECK(mip_addr_parse("0.0.0.0", &any, NULL) == MIP_OK, "any parse");
    CHECK(mip_route_add(&H.s, &any, 0, &gw, H.idx_raw) == MIP_OK, "default route v4");
    CHECK(mip_addr_parse("fd00::1", &gw, NULL) == MIP_OK, "gw6 parse");
    CHECK(mip_addr_parse("::", &any, NULL) == MIP_OK, "any6 parse");
    CHECK(mip_route_add(&H.s, &any, 0, &gw, H.idx) == MIP_OK, "default route v6");
    CHECK(mip_udp_bind(&H.s, ECHO_PORT, echo_recv, &H) == MIP_OK, "bind echo");
    mip_ip_set_forward_hook(&H.s, lp_fwd_hook, &H);
}

/* What the frame being input carries, for the policy checks on errors:
 * whether it was link broadcast, and its IP datagram when it holds a whole
 * one (not a fragment). */
static void lp_note_input(uint8_t netif, const uint8_t *frame, size_t len)
{
    struct mip_802154_hdr h;
    struct mip_lowpan_env env;
    size_t hl, consumed, out;
    H.cur_ip = NULL;
    H.cur_ip_len = 0;
    H.cur_link_group = false;
    if (len > LP_FRAME_MAX - 2u || mip_ieee802154_parse(frame, len, &h, &hl) != MIP_OK)
        return;
    H.cur_link_group = lp_is_bcast(&h.dst);
    if (netif == 1) {
        if (len > LP_RAW_HDR - 2u && hl < LP_RAW_HDR - 2u) {
            H.cur_ip = frame + LP_RAW_HDR - 2u;
            H.cur_ip_len = len - (LP_RAW_HDR - 2u);
        }
        return;
    }
    if (len <= hl)
        return;
    if (frame[hl] == MIP_LOWPAN_DISPATCH_IPV6) {
        H.cur_ip = frame + hl + 1;
        H.cur_ip_len = len - hl - 1;
        return;
    }
    lp_env(&env, &h.src, &h.dst);
    if (mip_lowpan_dispatch_of(frame[hl]) != MIP_LOWPAN_D_IPHC ||
        mip_lowpan_iphc_decompress(frame + hl, len - hl, &env, 0, H.cur_buf, sizeof H.cur_buf,
                                   &consumed, &out) != MIP_OK)
        return;
    memcpy(H.cur_buf + out, frame + hl + consumed, len - hl - consumed);
    H.cur_ip = H.cur_buf;
    H.cur_ip_len = out + len - hl - consumed;
}

/* What a capture (mip_lowpan_peek_frame) reads from the frame being input:
 * the same twice (it keeps no state), and within its buffer. (An
 * uncompressed or RAW_IP frame is copied as sent, a wrong version nibble
 * and all: a capture shows the air.) */
static void lp_peek_input(uint8_t netif, const uint8_t *frame, size_t len)
{
    bool alike;
    H.peek_st = fuzz_lowpan_peek_twice(&H.s, netif, frame, len, H.peek_buf[0], H.peek_buf[1],
                                       sizeof H.peek_buf[0], &H.peek, &alike);
    CHECK(alike, "a capture read the frame two ways (first: %s, %zu bytes)",
          mip_status_name(H.peek_st), H.peek.ip_len);
}

/* A datagram forwarded from the frame just input (d) is what the capture
 * read, but for the hop limit or TTL one less and IPv4's header checksum,
 * when the frame held the whole datagram (not a fragment). */
static void lp_peek_matches(const struct in_dgram *d)
{
    const uint8_t *p = H.peek_buf[0];
    size_t i, n = d->len;
    if (H.peek_st != MIP_OK || H.peek.ip_len != H.peek.dgram_len)
        return;
    CHECK(n <= H.peek.ip_len, "forwarded %zu bytes of a %zu-byte peek", n, H.peek.ip_len);
    for (i = 0; i < n; i++) {
        if (d->family == 4 && (i == 8 || i == 10 || i == 11))
            continue;
        if (d->family == 6 && i == 7)
            continue;
        CHECK(d->pkt[i] == p[i], "forwarded byte %zu is 0x%02x, the capture read 0x%02x", i,
              d->pkt[i], p[i]);
    }
    CHECK(d->family == 4 ? d->pkt[8] == (uint8_t)(p[8] - 1u) : d->pkt[7] == (uint8_t)(p[7] - 1u),
          "forwarded with a hop limit not one below the capture's");
}
#endif

static void setup(void)
{
    struct mip_stack_config cfg;
    struct mip_addr a, gw, any;
    uint8_t pfx;
    mip_status st;

    memset(&cfg, 0, sizeof cfg);
    cfg.entropy = entropy;
    cfg.entropy_len = sizeof entropy;
    cfg.forwarding = true;
    mip_stack_init(&H.s, &cfg, T0);
#if HARNESS_LOWPAN
    (void)a; (void)gw; (void)any; (void)pfx; (void)st;
    lp_setup();
    return;
#elif HARNESS_ETHERNET
    st = mip_netif_add_ethernet(&H.s, our_mac, &drv, &H, &H.idx);
#else
    st = mip_netif_add_rawip(&H.s, RAWIP_MTU, our_iid, &drv, &H, &H.idx);
#endif
    CHECK(st == MIP_OK, "netif add: %s", mip_status_name(st));
    CHECK(mip_addr_parse("192.0.2.2/24", &a, &pfx) == MIP_OK && pfx == 24, "addr parse");
    CHECK(mip_netif_add_addr(&H.s, H.idx, &a, pfx) == MIP_OK, "add 192.0.2.2/24");
    CHECK(mip_addr_parse("fd00::2/64", &a, &pfx) == MIP_OK && pfx == 64, "addr parse v6");
    CHECK(memcmp(a.bytes, our_v6, 16) == 0, "fd00::2 parsed wrong");
    CHECK(mip_netif_add_addr(&H.s, H.idx, &a, pfx) == MIP_OK, "add fd00::2/64");
    mip_addr_set6(&a, our_ll);
    CHECK(mip_netif_has_addr(mip_netif_get(&H.s, H.idx), &a), "link-local address not derived");
    CHECK(mip_addr_parse("192.0.2.1", &gw, NULL) == MIP_OK, "gw parse");
    CHECK(mip_addr_parse("0.0.0.0", &any, NULL) == MIP_OK, "any parse");
    CHECK(mip_route_add(&H.s, &any, 0, &gw, H.idx) == MIP_OK, "default route v4");
    CHECK(mip_addr_parse("fd00::1", &gw, NULL) == MIP_OK, "gw6 parse");
    CHECK(mip_addr_parse("::", &any, NULL) == MIP_OK, "any6 parse");
    CHECK(mip_route_add(&H.s, &any, 0, &gw, H.idx) == MIP_OK, "default route v6");
    CHECK(mip_udp_bind(&H.s, ECHO_PORT, echo_recv, &H) == MIP_OK, "bind echo");
}

#if !HARNESS_LOWPAN
/* Remembers an input IP datagram (the bytes stay in the fuzzer's buffer). */
static void note_input(const uint8_t *frame, size_t len)
{
    const uint8_t *ip = frame;
    size_t iplen = len;
    struct in_dgram *d;

    if (H.n_in >= MAX_RECORDS)
        return;
#if HARNESS_ETHERNET
    if (len < MIP_ETH_HDR_LEN)
        return;
    ip += MIP_ETH_HDR_LEN;
    iplen -= MIP_ETH_HDR_LEN;
#endif
    if (iplen < 1)
        return;
    d = &H.in[H.n_in];
    memset(d, 0, sizeof *d);
    if ((ip[0] >> 4) == 4 && mip_ipv4_parse(ip, iplen, &d->h4) == MIP_OK) {
        d->family = 4;
        d->len = d->h4.total_len;
        d->hdr_ok = mip_ipv4_checksum_ok(ip, d->h4.hdr_len);
    } else if ((ip[0] >> 4) == 6 && mip_ipv6_parse(ip, iplen, &d->h6) == MIP_OK) {
        d->family = 6;
        d->len = 40u + d->h6.payload_len;
    } else {
        return;
    }
    d->pkt = ip;
    H.n_in++;
}
#endif

static void run_records(const uint8_t *data, size_t size)
{
    mip_time_t now = T0;
    size_t pos = 0;
    unsigned nrec = 0, i;
    uint32_t d;

    memset(&H.r4, 0, offsetof(struct out_reass, data));
    memset(&H.r6, 0, offsetof(struct out_reass, data));
    H.n_in = 0;
    H.tx_count = 0;
    H.drv_fail = false;
    H.in_input = false;
#if HARNESS_LOWPAN
    memset(&H.lp_out, 0, offsetof(struct lp_out, data));
#endif
    setup();
    check_invariants();

    while (size - pos >= 3 && nrec < MAX_RECORDS) {
        uint8_t step = data[pos];
        uint16_t lf = mip_rd16(data + pos + 1);
#if HARNESS_LOWPAN
        size_t len = lf & 0x3FFFu;
        uint8_t netif = (lf & 0x4000u) ? H.idx_raw : H.idx;
#else
        size_t len = lf & 0x7FFFu;
        uint8_t netif = H.idx;
#endif
        uint8_t *frame;
#if HARNESS_LOWPAN
        size_t n_before;
#endif

        pos += 3;
        if (len > size - pos)
            len = size - pos;
        now += (mip_time_t)step * 100u;
        poll_checked(now);

        frame = dup_exact(data + pos, len);
#if HARNESS_LOWPAN
        lp_note_input(netif, frame, len);
        lp_peek_input(netif, frame, len);
        n_before = H.n_in;
#elif HARNESS_ETHERNET
        note_input(data + pos, len);
        H.cur_link_group = len >= 1 && (frame[0] & 1) != 0;
        H.cur_ip = len >= MIP_ETH_HDR_LEN ? frame + MIP_ETH_HDR_LEN : NULL;
        H.cur_ip_len = len >= MIP_ETH_HDR_LEN ? len - MIP_ETH_HDR_LEN : 0;
#else
        note_input(data + pos, len);
        H.cur_link_group = false;
        H.cur_ip = frame;
        H.cur_ip_len = len;
#endif
        H.drv_fail = (lf & 0x8000u) != 0;
        H.in_input = true;
        mip_stack_input(&H.s, netif, frame, len, now);
        H.in_input = false;
#if HARNESS_LOWPAN
        if (H.n_in == n_before + 1u)
            lp_peek_matches(&H.in[n_before]);
#endif
        H.drv_fail = false;
        H.cur_ip = NULL;
        free(frame);
        check_invariants();
        pos += len;
        nrec++;
    }

    /* Let every timer run out: resolution gives up, reassembly expires. */
    for (i = 0; i < 1000; i++) {
        d = poll_once(now);
        if (d == MIP_POLL_IDLE)
            break;
        now += d != 0 ? d : 1u;
    }
    now += 10u * 60u * 1000u;
    (void)mip_stack_poll(&H.s, now);
    check_invariants();
    CHECK(H.s.pool.in_use == 0, "%u packet buffers still in use after every timer expired",
          H.s.pool.in_use);
    for (i = 0; i < MIP_REASS_SLOTS; i++)
        CHECK(!H.s.reass[i].used, "reassembly slot %u still used after its timeout", i);
    for (i = 0; i < MIP_NEIGH_MAX; i++)
        CHECK(H.s.neigh[i].state != MIP_NEIGH_INCOMPLETE,
              "neighbor %u still incomplete after every retry", i);
#if HARNESS_LOWPAN
    for (i = 0; i < MIP_LOWPAN_REASS_SLOTS; i++)
        CHECK(!H.s.lowpan_reass[i].d.used, "6LoWPAN reassembly slot %u still used", i);
    CHECK(!H.lp_out.active, "the stack left a fragmented datagram unfinished");
#endif
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *e = getenv("MOTEIP_FUZZ_NO_POLICY");
    (void)argc;
    (void)argv;
    if (e != NULL && e[0] != '\0' && e[0] != '0')
        policy_on = 0;
    e = getenv("MOTEIP_FUZZ_VERBOSE");
    if (e != NULL && e[0] != '\0' && e[0] != '0')
        verbose = 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run_records(data, size);
    return 0;
}

#endif
