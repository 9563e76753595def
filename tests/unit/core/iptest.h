/*
 * Checks and builders shared by the core tests that look inside packets the
 * stack sent: header/transport checksum verification, fragment builders, and
 * a test-side reassembler for fragments captured in fixture.tx[].
 * Everything is static inline so unused helpers cost nothing.
 */
#ifndef MOTEIP_TEST_IPTEST_H
#define MOTEIP_TEST_IPTEST_H

#include "fixture.h"

/* --- IPv4 ------------------------------------------------------------ */

/* IPv4 header checksum of a captured datagram verifies. */
static inline bool ip4_hdr_ok(const uint8_t *pkt)
{
    size_t ihl = (size_t)(pkt[0] & 0x0Fu) * 4u;
    return (pkt[0] >> 4) == 4 && ihl >= 20 &&
           mip_cksum_finish(mip_cksum_add(0, pkt, ihl)) == 0;
}

static inline uint16_t ip4_total(const uint8_t *pkt) { return mip_rd16(pkt + 2); }
static inline uint16_t ip4_id(const uint8_t *pkt) { return mip_rd16(pkt + 4); }
static inline bool ip4_mf(const uint8_t *pkt) { return (pkt[6] & 0x20u) != 0; }
static inline bool ip4_df(const uint8_t *pkt) { return (pkt[6] & 0x40u) != 0; }
static inline uint16_t ip4_off(const uint8_t *pkt) { return (uint16_t)((mip_rd16(pkt + 6) & 0x1FFFu) * 8u); }

/* ICMPv4 checksum over the message after a 20-byte header verifies. */
static inline bool icmp4_ok(const uint8_t *pkt)
{
    size_t ihl = (size_t)(pkt[0] & 0x0Fu) * 4u;
    return mip_cksum_finish(mip_cksum_add(0, pkt + ihl, ip4_total(pkt) - ihl)) == 0;
}

/* Transport checksum (with the IPv4 pseudo header) of l4[0..len) verifies. */
static inline bool l4_ok4(const uint8_t *src, const uint8_t *dst, uint8_t proto,
                          const uint8_t *l4, size_t len)
{
    return mip_cksum_finish(mip_cksum_add(mip_cksum_pseudo4(src, dst, proto, (uint16_t)len),
                                          l4, len)) == 0;
}

/* An IPv4 fragment: header with id/flags/offset, then data. */
static inline size_t build_frag4(uint8_t *buf, const char *src, const char *dst, uint8_t proto,
                                 uint16_t id, uint16_t offset, bool more,
                                 const uint8_t *data, size_t n)
{
    return build_ipv4(buf, src, dst, proto, 64, id, more ? MIP_IPV4_FLAG_MF : 0, offset, data, n);
}

/* The reassemblers' bookkeeping (reasm4, reasm6). reasm_put places
 * dlen bytes of data at off in out and marks them in seen: false when they
 * run past cap or overlap a piece already placed. */
static inline bool reasm_put(uint8_t *seen, uint8_t *out, size_t cap, size_t off,
                             const uint8_t *data, size_t dlen)
{
    size_t b;
    if (off + dlen > cap)
        return false;
    for (b = off; b < off + dlen; b++) {
        if (seen[b])
            return false;
        seen[b] = 1;
    }
    memcpy(out + off, data, dlen);
    return true;
}

/* The reassembled length: total (where the last piece ended; -1 when it
 * never came), or -1 when a byte before it is missing. *count (unless
 * NULL) gets n, the pieces used. */
static inline long reasm_done(const uint8_t *seen, long total, unsigned n, unsigned *count)
{
    size_t b;
    if (count != NULL)
        *count = n;
    if (total < 0)
        return -1;
    for (b = 0; b < (size_t)total; b++)
        if (!seen[b])
            return -1;
    return total;
}

/*
 * Reassembles the IPv4 fragments with identification `id` among
 * f->tx[first..f->ntx) into out (cap bytes). Returns the payload length, or
 * -1 when a piece is missing, overlaps, or a header checksum is wrong.
 * *count gets the number of fragments used.
 */
static inline long reasm4(const struct fixture *f, unsigned first, uint16_t id,
                          uint8_t *out, size_t cap, unsigned *count)
{
    static uint8_t seen[65536];
    long total = -1;
    unsigned i, n = 0;
    memset(seen, 0, sizeof(seen));
    for (i = first; i < f->ntx; i++) {
        const uint8_t *p = f->tx[i].data;
        size_t ihl, dlen, off;
        if ((p[0] >> 4) != 4 || ip4_id(p) != id)
            continue;
        if (!ip4_hdr_ok(p))
            return -1;
        ihl = (size_t)(p[0] & 0x0Fu) * 4u;
        dlen = ip4_total(p) - ihl;
        off = ip4_off(p);
        if (!reasm_put(seen, out, cap, off, p + ihl, dlen))
            return -1;
        if (!ip4_mf(p))
            total = (long)(off + dlen);
        n++;
    }
    return reasm_done(seen, total, n, count);
}

/* --- IPv6 ------------------------------------------------------------ */

static inline uint16_t ip6_plen(const uint8_t *pkt) { return mip_rd16(pkt + 4); }

/* Transport checksum (with the IPv6 pseudo header) of l4[0..len) verifies. */
static inline bool l4_ok6(const uint8_t *src, const uint8_t *dst, uint8_t proto,
                          const uint8_t *l4, size_t len)
{
    return mip_cksum_finish(mip_cksum_add(mip_cksum_pseudo6(src, dst, proto, (uint32_t)len),
                                          l4, len)) == 0;
}

/* The upper-layer message of an unfragmented captured IPv6 packet verifies. */
static inline bool ip6_l4_ok(const uint8_t *pkt)
{
    return l4_ok6(pkt + 8, pkt + 24, pkt[6], pkt + 40, ip6_plen(pkt));
}

/* An IPv6 packet carrying a Fragment header (next header `nh` inside it). */
static inline size_t build_frag6(uint8_t *buf, const char *src, const char *dst, uint8_t nh,
                                 uint32_t id, uint16_t offset, bool more,
                                 const uint8_t *data, size_t n)
{
    uint8_t fh[8];
    size_t len;
    CHECK_EQ(mip_ipv6_frag_emit(nh, offset, more, id, fh, sizeof(fh)), MIP_OK);
    len = build_ipv6(buf, src, dst, MIP_IPV6_NH_FRAGMENT, 64, fh, 8);
    memcpy(buf + len, data, n);
    mip_wr16(buf + 4, (uint16_t)(8 + n));
    return len + n;
}

/* The same reassembler for IPv6 fragments (Fragment header right after the
 * fixed header, as the stack sends them). *nh gets the inner next header. */
static inline long reasm6(const struct fixture *f, unsigned first, uint32_t id,
                          uint8_t *out, size_t cap, unsigned *count, uint8_t *nh)
{
    static uint8_t seen[65536];
    long total = -1;
    unsigned i, n = 0;
    memset(seen, 0, sizeof(seen));
    for (i = first; i < f->ntx; i++) {
        const uint8_t *p = f->tx[i].data;
        size_t dlen, off;
        if ((p[0] >> 4) != 6 || p[6] != MIP_IPV6_NH_FRAGMENT || mip_rd32(p + 44) != id)
            continue;
        dlen = (size_t)ip6_plen(p) - 8u;
        off = (size_t)(mip_rd16(p + 42) & 0xFFF8u);
        if (!reasm_put(seen, out, cap, off, p + 48, dlen))
            return -1;
        if (nh != NULL && off == 0)
            *nh = p[40];
        if (!(p[43] & 1u))
            total = (long)(off + dlen);
        n++;
    }
    return reasm_done(seen, total, n, count);
}

/* --- a UDP sink ------------------------------------------------------ */

struct udp_sink {
    unsigned calls;
    struct mip_udp_meta meta;
    size_t len;
    uint8_t data[8192];
};

static inline void udp_sink_recv(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                                 const uint8_t *data, size_t len)
{
    struct udp_sink *k = ctx;
    (void)s;
    k->calls++;
    k->meta = *m;
    k->len = len;
    if (len <= sizeof(k->data))
        memcpy(k->data, data, len);
}

/* Payload byte pattern used by tests: depends on a seed and the index. */
static inline void fill_pattern(uint8_t *buf, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++)
        buf[i] = (uint8_t)(i * 31u + seed * 17u + (i >> 8));
}

#endif
