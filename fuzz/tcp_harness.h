/*
 * What the TCP harnesses (fuzz_tcp.c, fuzz_tcp_peer.c) share: the input
 * cursor, the walk of the connection list, the checks of a connection's
 * receive ring, the earliest TCP deadline, and building the frames a peer
 * sends and checking the frames the stack sends.
 *
 * The includer defines CHECK(cond, ...) first (its FAIL names the harness).
 */
#ifndef MOTEIP_FUZZ_TCP_HARNESS_H
#define MOTEIP_FUZZ_TCP_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/moteip.h"
#include "moteip/tcp.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/tcp.h"
#include "../src/tcp/tcp_internal.h"   /* TCPF_* / TCPS_* flags for the checks */

/* The checks' loops would only add coverage features of the harness itself
 * (and slow libFuzzer's bookkeeping): leave them uninstrumented. */
#if defined(__clang__)
#define NOCOV __attribute__((no_sanitize("coverage")))
#else
#define NOCOV
#endif

/* --- input cursor: a truncated operation reads zeros ----------------------- */

struct cur {
    const uint8_t *p;
    size_t n, pos;
};

static inline uint8_t u8(struct cur *c) { return c->pos < c->n ? c->p[c->pos++] : 0; }
static inline uint16_t u16(struct cur *c)
{
    uint16_t hi = u8(c);
    return (uint16_t)((hi << 8) | u8(c));
}
static inline uint32_t u32(struct cur *c)
{
    uint32_t hi = u16(c);
    return (hi << 16) | u16(c);
}

/* --- connections ----------------------------------------------------------- */

/* Walks tcp's connection list with a bound; returns the bitmask of the
 * slots in it (slot_of: a struct's slot, or -1 for one the application
 * never gave). */
NOCOV static inline unsigned tcph_list_mask(const struct mip_tcp *tcp,
                                            int (*slot_of)(const struct mip_tcp_conn *),
                                            unsigned nslots)
{
    const struct mip_tcp_conn *c;
    unsigned mask = 0, n = 0;
    for (c = tcp->conns; c != NULL; c = c->next) {
        int i = slot_of(c);
        CHECK(i >= 0, "connection list holds a struct the application never gave");
        CHECK(!(mask & (1u << i)), "connection list has a cycle (slot %d twice)", i);
        mask |= 1u << i;
        CHECK(++n <= nslots, "connection list longer than the slots");
    }
    return mask;
}

#if MIP_TCP_SACK
/* The tail-loss-probe episode (struct mip_tcp tlp_conn) belongs to a
 * connection on the instance's list: its end clears it (src/tcp/tlp.c). */
NOCOV static inline void tcph_check_tlp_slot(const struct mip_tcp *tcp)
{
    const struct mip_tcp_conn *c;
    bool held = tcp->tlp_conn == NULL;
    for (c = tcp->conns; c != NULL && !held; c = c->next)
        held = c == tcp->tlp_conn;
    CHECK(held, "the tail-loss episode belongs to no listed connection");
}
#endif

/* Reassembly bits only below ooo_end, none past the ring. */
NOCOV static inline void tcph_check_rx_bits(const struct mip_tcp_conn *c)
{
    const struct mip_tcp_rxbuf *r = &c->rx;
    uint32_t p;
    if (r->bitmap == NULL || r->size == 0)
        return;
    for (p = 0; p < r->size; p++) {
        uint32_t off;
        if ((p & 7u) == 0 && r->bitmap[p >> 3] == 0) {
            p += 7;
            continue;
        }
        if (!((r->bitmap[p >> 3] >> (p & 7u)) & 1u))
            continue;
        off = (p + r->size - ((uint32_t)r->head + r->len) % r->size) % r->size;
        CHECK(off < r->ooo_end, "reassembly bit at window offset %u but ooo_end %u", off,
              r->ooo_end);
    }
    for (p = r->size; p < (((uint32_t)r->size + 7u) & ~7u); p++)
        CHECK(!((r->bitmap[p >> 3] >> (p & 7u)) & 1u), "reassembly bit past the ring");
}

/* The earliest TCP deadline pending (connections, SYN cache, TIME_WAIT
 * records), as a delay from now; the list must have passed tcph_list_mask. */
NOCOV static inline uint32_t tcph_pending(const struct mip_tcp *tcp, mip_time_t now)
{
    uint32_t next = MIP_POLL_IDLE;
    const struct mip_tcp_conn *c;
    unsigned i;
    for (c = tcp->conns; c != NULL; c = c->next) {
        if ((c->flags & TCPF_DELACK) && tcp_delack_delay(c, now) < next)
            next = tcp_delack_delay(c, now);
        if (c->flags & TCPF_REXMT)
            next = mip_next_delay(next, now, c->t_rexmt);
        if (c->flags & TCPF_IDLE)
            next = mip_next_delay(next, now, c->t_idle);
    }
    for (i = 0; i < MIP_TCP_SYN_BACKLOG; i++)
        if (tcp->syn[i].flags & TCPS_USED)
            next = mip_next_delay(next, now, tcp->syn[i].deadline);
    for (i = 0; i < MIP_TCP_TIMEWAIT_MAX; i++)
        if (tcp->tw[i].used)
            next = mip_next_delay(next, now, tcp->tw[i].deadline);
    return next;
}

/* --- frames ------------------------------------------------------------------ */

/* A frame from src to dst: an IPv4 or IPv6 header, TCP header h (hdr_len
 * is set here), option bytes opts[0..optlen) padded with EOL to a multiple
 * of 4, and dlen bytes of data; checksums right. A heap buffer of exactly
 * *len bytes (ASan sees any over-read), for the caller to free. */
/* The IPv4 or IPv6 header of a datagram from src to dst carrying `l4len`
 * bytes of protocol `proto`, at pkt (20 or 40 bytes); returns the running
 * sum of its pseudo header (0 for ICMP over IPv4, which has none). */
NOCOV static inline uint32_t tcph_ip_header(const struct mip_addr *src, const struct mip_addr *dst,
                                            uint8_t proto, size_t l4len, uint8_t *pkt)
{
    if (src->family == MIP_AF_INET) {
        struct mip_ipv4_hdr ip;
        memset(&ip, 0, sizeof ip);
        ip.total_len = (uint16_t)(20u + l4len);
        ip.id = 0x4d49;
        ip.ttl = 64;
        ip.proto = proto;
        memcpy(ip.src, src->bytes, 4);
        memcpy(ip.dst, dst->bytes, 4);
        CHECK(mip_ipv4_emit(&ip, pkt, 20) == MIP_OK, "harness: ipv4 emit");
        return proto == MIP_IPPROTO_ICMP ? 0u
                                         : mip_cksum_pseudo4(ip.src, ip.dst, proto, (uint16_t)l4len);
    } else {
        struct mip_ipv6_hdr ip;
        memset(&ip, 0, sizeof ip);
        ip.payload_len = (uint16_t)l4len;
        ip.next_header = proto;
        ip.hop_limit = 64;
        memcpy(ip.src, src->bytes, 16);
        memcpy(ip.dst, dst->bytes, 16);
        CHECK(mip_ipv6_emit(&ip, pkt, 40) == MIP_OK, "harness: ipv6 emit");
        return mip_cksum_pseudo6(ip.src, ip.dst, proto, (uint32_t)l4len);
    }
}

NOCOV static inline uint8_t *tcph_frame(const struct mip_addr *src, const struct mip_addr *dst,
                                        struct mip_tcp_hdr *h, const uint8_t *opts,
                                        size_t optlen, const uint8_t *data, size_t dlen,
                                        size_t *len)
{
    size_t padded = (optlen + 3u) & ~(size_t)3u;
    size_t tl = MIP_TCP_HDR_LEN + padded + dlen;
    size_t ipl = src->family == MIP_AF_INET ? 20u : 40u;
    uint8_t *pkt = calloc(1, ipl + tl), *t;
    uint32_t sum;
    if (pkt == NULL)
        abort();
    t = pkt + ipl;
    h->hdr_len = (uint8_t)(MIP_TCP_HDR_LEN + padded);
    CHECK(mip_tcp_emit(h, t, tl) == MIP_OK, "harness: tcp emit");
    if (optlen > 0)
        memcpy(t + MIP_TCP_HDR_LEN, opts, optlen);
    if (dlen > 0)
        memcpy(t + h->hdr_len, data, dlen);
    sum = tcph_ip_header(src, dst, MIP_IPPROTO_TCP, tl, pkt);
    mip_wr16(t + 16, mip_cksum_finish(mip_cksum_add(sum, t, tl)));
    *len = ipl + tl;
    return pkt;
}

/* A segment the stack sent, checked and parsed by tcph_sent_parse. */
struct tcph_sent {
    struct mip_addr src, dst;
    struct mip_tcp_hdr h;
    struct mip_tcp_opts o;
    size_t optlen;            /* option bytes */
    const uint8_t *l4;        /* the TCP segment, inside copy */
    size_t l4len;
    const uint8_t *data;      /* its payload */
    size_t dlen;
    uint8_t *copy;            /* an exact heap copy of the frame: tcph_sent_free */
};

/* Checks a frame the stack sent: one whole IPv4 datagram (header checksum
 * right, not fragmented) or IPv6 datagram holding a TCP segment whose
 * header and options parse, with a right checksum (also in the fuzz
 * build), ports not 0, no URG/ECE/CWR, and a RST without SYN, FIN or
 * data. */
NOCOV static inline void tcph_sent_parse(const uint8_t *frame, size_t len, struct tcph_sent *s)
{
    uint8_t *f = malloc(len > 0 ? len : 1u);
    uint32_t sum;
    if (f == NULL)
        abort();
    memcpy(f, frame, len);
    memset(s, 0, sizeof *s);
    s->copy = f;
    CHECK(len >= 1, "empty frame");
    if ((f[0] >> 4) == 4) {
        struct mip_ipv4_hdr ip;
        CHECK(mip_ipv4_parse(f, len, &ip) == MIP_OK, "IPv4 header sent that does not parse");
        CHECK(ip.total_len == len, "IPv4 total length %u for %zu bytes", ip.total_len, len);
        CHECK(mip_ipv4_checksum_ok(f, ip.hdr_len), "bad IPv4 header checksum");
        CHECK(ip.proto == MIP_IPPROTO_TCP, "IPv4 protocol %u sent", ip.proto);
        CHECK(ip.frag_offset == 0 && !(ip.flags & MIP_IPV4_FLAG_MF), "TCP segment fragmented");
        mip_addr_set4(&s->src, ip.src);
        mip_addr_set4(&s->dst, ip.dst);
        s->l4 = f + ip.hdr_len;
        s->l4len = len - ip.hdr_len;
    } else {
        struct mip_ipv6_hdr ip;
        CHECK((f[0] >> 4) == 6, "frame of IP version %u", f[0] >> 4);
        CHECK(mip_ipv6_parse(f, len, &ip) == MIP_OK, "IPv6 header sent that does not parse");
        CHECK(40u + ip.payload_len == len, "IPv6 payload length %u for %zu bytes",
              ip.payload_len, len);
        CHECK(ip.next_header == MIP_IPPROTO_TCP, "IPv6 next header %u sent", ip.next_header);
        mip_addr_set6(&s->src, ip.src);
        mip_addr_set6(&s->dst, ip.dst);
        s->l4 = f + 40;
        s->l4len = len - 40;
    }
    CHECK(mip_tcp_parse(s->l4, s->l4len, &s->h) == MIP_OK, "TCP segment sent that does not parse");
    if (s->src.family == MIP_AF_INET)
        sum = mip_cksum_pseudo4(s->src.bytes, s->dst.bytes, MIP_IPPROTO_TCP,
                                (uint16_t)s->l4len);
    else
        sum = mip_cksum_pseudo6(s->src.bytes, s->dst.bytes, MIP_IPPROTO_TCP,
                                (uint32_t)s->l4len);
    CHECK(mip_cksum_finish(mip_cksum_add(sum, s->l4, s->l4len)) == 0, "bad TCP checksum");
    s->optlen = (size_t)s->h.hdr_len - MIP_TCP_HDR_LEN;
    CHECK(mip_tcp_opts_parse(s->l4 + MIP_TCP_HDR_LEN, s->optlen, &s->o) == MIP_OK,
          "TCP options sent that do not parse");
    CHECK(s->h.src_port != 0 && s->h.dst_port != 0, "segment with port 0");
    s->data = s->l4 + s->h.hdr_len;
    s->dlen = s->l4len - s->h.hdr_len;
    CHECK(!(s->h.flags & (MIP_TCP_URG | MIP_TCP_ECE | MIP_TCP_CWR)), "flags 0x%02x sent",
          s->h.flags);
    if (s->h.flags & MIP_TCP_RST)
        CHECK(!(s->h.flags & (MIP_TCP_SYN | MIP_TCP_FIN)) && s->dlen == 0,
              "RST with SYN, FIN or data");
}

static inline void tcph_sent_free(struct tcph_sent *s)
{
    free(s->copy);
    s->copy = NULL;
}

#endif
