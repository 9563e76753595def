/* 6LoWPAN dispatch, fragment headers and IPHC (see wire/sixlowpan.h). */
#include "moteip/config.h"
#include "moteip/wire/sixlowpan.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include <string.h>

/* IPHC base encoding, RFC 6282 s.3.1.1: 011 TF(2) NH HLIM(2) | CID SAC
 * SAM(2) M DAC DAM(2). */
#define IPHC_DISPATCH 0x60u
#define IPHC_NH       0x04u
#define IPHC_CID      0x80u
#define IPHC_SAC      0x40u
#define IPHC_M        0x08u
#define IPHC_DAC      0x04u

/* NHC UDP, RFC 6282 s.4.3.3: 11110 C PP. */
#define NHC_UDP       0xF0u
#define NHC_UDP_MASK  0xF8u
#define NHC_UDP_C     0x04u

#define IPV6_HDR      40u
#define UDP_HDR       8u
#define PROTO_UDP     17u
#define PROTO_TCP     6u
/* wire/lowpan_tcp.h's MIP_LOWPAN_NHC_TCP (1100xxxx) */
#define MIP_LOWPAN_NHC_TCP_ID 0xC0u

/* Address modes (SAM / DAM values for unicast). */
#define AM_INLINE 0u   /* 128 bits, or 64 after a known prefix */
#define AM_64     1u
#define AM_16     2u
#define AM_0      3u

static const uint8_t ll_prefix[8] = {0xFE, 0x80, 0, 0, 0, 0, 0, 0};
/* IID 0000:00ff:fe00:XXXX: the first six bytes (RFC 4944 s.6). */
static const uint8_t short_iid_head[6] = {0, 0, 0, 0xFF, 0xFE, 0};

enum mip_lowpan_dispatch mip_lowpan_dispatch_of(uint8_t b)
{
    if ((b & 0xC0u) == 0x00u)
        return MIP_LOWPAN_D_NALP;
    if (b == MIP_LOWPAN_DISPATCH_IPV6)
        return MIP_LOWPAN_D_IPV6;
    if ((b & 0xE0u) == 0x60u)
        return MIP_LOWPAN_D_IPHC;
    if ((b & 0xC0u) == 0x80u)
        return MIP_LOWPAN_D_MESH;
    if ((b & 0xF8u) == 0xC0u)
        return MIP_LOWPAN_D_FRAG1;
    if ((b & 0xF8u) == 0xE0u)
        return MIP_LOWPAN_D_FRAGN;
    return MIP_LOWPAN_D_OTHER;
}

/* --- fragment headers (RFC 4944 s.5.3) ----------------------------------- */

mip_status mip_lowpan_frag_parse(const uint8_t *buf, size_t len, struct mip_lowpan_frag *out,
                                 size_t *hdr_len)
{
    enum mip_lowpan_dispatch d;
    size_t need;
    if (len < 1u)
        return MIP_ERR_TRUNCATED;
    d = mip_lowpan_dispatch_of(buf[0]);
    if (d != MIP_LOWPAN_D_FRAG1 && d != MIP_LOWPAN_D_FRAGN)
        return MIP_ERR_MALFORMED;
    need = d == MIP_LOWPAN_D_FRAG1 ? MIP_LOWPAN_FRAG1_LEN : MIP_LOWPAN_FRAGN_LEN;
    if (len < need)
        return MIP_ERR_TRUNCATED;
    out->first = d == MIP_LOWPAN_D_FRAG1;
    out->size = (uint16_t)(mip_rd16(buf) & 0x07FFu);
    out->tag = mip_rd16(buf + 2);
    out->offset = out->first ? 0u : (uint16_t)((uint16_t)buf[4] * 8u);
    *hdr_len = need;
    return MIP_OK;
}

mip_status mip_lowpan_frag_emit(const struct mip_lowpan_frag *f, uint8_t *buf, size_t cap,
                                size_t *out_len)
{
    size_t need = f->first ? MIP_LOWPAN_FRAG1_LEN : MIP_LOWPAN_FRAGN_LEN;
    if (f->size > MIP_LOWPAN_SIZE_MAX || (f->offset % 8u) != 0u || f->offset > 2040u ||
        (f->first && f->offset != 0u))
        return MIP_ERR_INVALID;
    if (cap < need)
        return MIP_ERR_NOSPACE;
    mip_wr16(buf, (uint16_t)((f->first ? 0xC000u : 0xE000u) | f->size));
    mip_wr16(buf + 2, f->tag);
    if (!f->first)
        buf[4] = (uint8_t)(f->offset / 8u);
    *out_len = need;
    return MIP_OK;
}

/* --- link addresses and interface identifiers ---------------------------- */

mip_status mip_lowpan_iid_from_link(const struct mip_802154_addr *a, uint8_t iid[8])
{
    if (a == NULL)
        return MIP_ERR_INVALID;
    if (a->mode == MIP_802154_ADDR_SHORT) {
        memcpy(iid, short_iid_head, 6);
        mip_wr16(iid + 6, a->short_addr);
        return MIP_OK;
    }
    if (a->mode == MIP_802154_ADDR_EXT) {
        memcpy(iid, a->ext, 8);
        iid[0] ^= 0x02u;
        return MIP_OK;
    }
    return MIP_ERR_INVALID;
}

static bool all_zero(const uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i] != 0u)
            return false;
    return true;
}

mip_status mip_lowpan_link_from_iid(const uint8_t iid[8], struct mip_802154_addr *out)
{
    static const uint8_t anycast_head[7] = {0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    memset(out, 0, sizeof(*out));
    if (all_zero(iid, 8) || (memcmp(iid, anycast_head, 7) == 0 && iid[7] >= 0x80u))
        return MIP_ERR_NOTFOUND;
    if (memcmp(iid, short_iid_head, 6) == 0) {
        uint16_t sa = mip_rd16(iid + 6);
        if (sa >= 0xFFFEu)
            return MIP_ERR_NOTFOUND;
        out->mode = MIP_802154_ADDR_SHORT;
        out->short_addr = sa;
        return MIP_OK;
    }
    out->mode = MIP_802154_ADDR_EXT;
    memcpy(out->ext, iid, 8);
    out->ext[0] ^= 0x02u;
    return MIP_OK;
}

/* --- decompression (RFC 6282 s.3.2) --------------------------------------- */

/* A bounded reader over the compressed bytes. */
struct rd {
    const uint8_t *p;
    size_t len;
    size_t pos;
};

static const uint8_t *take(struct rd *r, size_t n)
{
    const uint8_t *q;
    if (r->len - r->pos < n)
        return NULL;
    q = r->p + r->pos;
    r->pos += n;
    return q;
}

static const uint8_t *context(const struct mip_lowpan_env *env, uint8_t id)
{
    if (env == NULL || env->ctx == NULL || id >= env->ctx_count || id >= MIP_LOWPAN_CTX_MAX ||
        (env->ctx_absent & (1u << id)) != 0u)
        return NULL;
    return env->ctx[id];
}

/* The last 64 bits of a unicast address in mode am (1..3) after its
 * prefix is in place. */
static mip_status rd_iid(struct rd *r, uint8_t am, const struct mip_802154_addr *link,
                         uint8_t *addr)
{
    const uint8_t *q;
    if (am == AM_64) {
        if ((q = take(r, 8)) == NULL)
            return MIP_ERR_TRUNCATED;
        memcpy(addr + 8, q, 8);
        return MIP_OK;
    }
    if (am == AM_16) {
        if ((q = take(r, 2)) == NULL)
            return MIP_ERR_TRUNCATED;
        memcpy(addr + 8, short_iid_head, 6);
        memcpy(addr + 14, q, 2);
        return MIP_OK;
    }
    /* AM_0: from the frame's link address */
    if (mip_lowpan_iid_from_link(link, addr + 8) != MIP_OK)
        return MIP_ERR_MALFORMED;
    return MIP_OK;
}

/* A unicast address: stateless (ac == 0, link-local prefix) or from
 * context `ci`. */
static mip_status rd_unicast(struct rd *r, bool ac, uint8_t am, uint8_t ci, bool is_src,
                             const struct mip_lowpan_env *env,
                             const struct mip_802154_addr *link, uint8_t *addr)
{
    const uint8_t *q, *pfx;
    if (!ac) {
        if (am == AM_INLINE) {
            if ((q = take(r, 16)) == NULL)
                return MIP_ERR_TRUNCATED;
            memcpy(addr, q, 16);
            return MIP_OK;
        }
        memcpy(addr, ll_prefix, 8);
        return rd_iid(r, am, link, addr);
    }
    if (am == AM_INLINE) {
        /* SAC=1 SAM=00 is the unspecified address; DAC=1 DAM=00 (M=0) is
         * reserved. */
        if (!is_src)
            return MIP_ERR_MALFORMED;
        memset(addr, 0, 16);
        return MIP_OK;
    }
    if ((pfx = context(env, ci)) == NULL)
        return MIP_ERR_NOTFOUND;
    memcpy(addr, pfx, 8);
    return rd_iid(r, am, link, addr);
}

static mip_status rd_multicast(struct rd *r, bool dac, uint8_t dam, uint8_t ci,
                               const struct mip_lowpan_env *env, uint8_t *addr)
{
    const uint8_t *q, *pfx;
    memset(addr, 0, 16);
    addr[0] = 0xFF;
    if (dac) {
        /* ffXX:XXLL:PPPP:PPPP:PPPP:PPPP:XXXX:XXXX (RFC 3306 prefix-based) */
        if (dam != 0u)
            return MIP_ERR_MALFORMED;
        if ((q = take(r, 6)) == NULL)
            return MIP_ERR_TRUNCATED;
        if ((pfx = context(env, ci)) == NULL)
            return MIP_ERR_NOTFOUND;
        addr[1] = q[0];
        addr[2] = q[1];
        addr[3] = 64u;
        memcpy(addr + 4, pfx, 8);
        memcpy(addr + 12, q + 2, 4);
        return MIP_OK;
    }
    switch (dam) {
    case 0:
        if ((q = take(r, 16)) == NULL)
            return MIP_ERR_TRUNCATED;
        memcpy(addr, q, 16);
        return MIP_OK;
    case 1:   /* ffXX::00XX:XXXX:XXXX */
        if ((q = take(r, 6)) == NULL)
            return MIP_ERR_TRUNCATED;
        addr[1] = q[0];
        memcpy(addr + 11, q + 1, 5);
        return MIP_OK;
    case 2:   /* ffXX::00XX:XXXX */
        if ((q = take(r, 4)) == NULL)
            return MIP_ERR_TRUNCATED;
        addr[1] = q[0];
        memcpy(addr + 13, q + 1, 3);
        return MIP_OK;
    default:  /* ff02::00XX */
        if ((q = take(r, 1)) == NULL)
            return MIP_ERR_TRUNCATED;
        addr[1] = 0x02u;
        addr[15] = q[0];
        return MIP_OK;
    }
}

/* The ports of RFC 6282's NHC UDP forms (PP = d & 3). */
static mip_status rd_ports(struct rd *r, uint8_t pp, uint8_t *udp)
{
    static const uint8_t inline_len[4] = {4, 3, 3, 1};
    const uint8_t *q = take(r, inline_len[pp]);
    if (q == NULL)
        return MIP_ERR_TRUNCATED;
    switch (pp) {
    case 0:
        memcpy(udp, q, 4);
        break;
    case 1:   /* source inline, destination 0xF0XX */
        udp[0] = q[0];
        udp[1] = q[1];
        udp[2] = 0xF0u;
        udp[3] = q[2];
        break;
    case 2:   /* source 0xF0XX, destination inline */
        udp[0] = 0xF0u;
        udp[1] = q[0];
        udp[2] = q[1];
        udp[3] = q[2];
        break;
    default:  /* both 0xF0BX */
        udp[0] = 0xF0u;
        udp[1] = (uint8_t)(0xB0u | (q[0] >> 4));
        udp[2] = 0xF0u;
        udp[3] = (uint8_t)(0xB0u | (q[0] & 0x0Fu));
        break;
    }
    return MIP_OK;
}

/* The checksum after the ports: inline, or elided (rd_nhc_udp checked). */
static mip_status rd_cksum(struct rd *r, bool elided, uint8_t *udp)
{
    const uint8_t *q;
    if (elided)
        return MIP_OK;
    if ((q = take(r, 2)) == NULL)
        return MIP_ERR_TRUNCATED;
    udp[6] = q[0];
    udp[7] = q[1];
    return MIP_OK;
}

/* NHC UDP (RFC 6282 s.4.3.3, or moteip's shared-port form). *elided
 * tells the caller to compute the checksum back once the datagram's size
 * is known. */
static mip_status rd_nhc_udp(struct rd *r, const struct mip_lowpan_env *env, bool whole,
                             uint8_t *udp, bool *elided)
{
    const uint8_t *q;
    uint8_t d;
    mip_status st;
    if ((q = take(r, 1)) == NULL)
        return MIP_ERR_TRUNCATED;
    d = q[0];
    /* An elided checksum needs the upper layer's authorisation (RFC 6282
     * s.4.3.2), and the whole datagram to compute it back from; other NHC
     * headers are extension headers this stack does not expand. */
    *elided = (d & NHC_UDP_C) != 0u;
    if (*elided && (!MIP_CONF_LOWPAN_HC || env == NULL || !env->udp_cksum_elide || !whole))
        return MIP_ERR_UNSUPPORTED;
#if MIP_CONF_LOWPAN_HC
    if ((d & 0xF8u) == MIP_LOWPAN_NHC_UDP_SHARED) {
        unsigned rev = d & 1u;
        if (env == NULL || !env->has_udp_ports)
            return MIP_ERR_UNSUPPORTED;
        /* the compressor sets D only when it names other ports */
        if ((d & 2u) != 0u || (rev && env->udp_ports[0] == env->udp_ports[1]))
            return MIP_ERR_MALFORMED;
        mip_wr16(udp, env->udp_ports[rev]);
        mip_wr16(udp + 2, env->udp_ports[rev ^ 1u]);
        return rd_cksum(r, *elided, udp);
    }
#endif
    if ((d & NHC_UDP_MASK) != NHC_UDP)
        return MIP_ERR_UNSUPPORTED;
    if ((st = rd_ports(r, (uint8_t)(d & 3u), udp)) != MIP_OK)
        return st;
    return rd_cksum(r, *elided, udp);
}

mip_status mip_lowpan_iphc_decompress(const uint8_t *in, size_t in_len,
                                      const struct mip_lowpan_env *env, size_t datagram_size,
                                      uint8_t *out, size_t cap,
                                      size_t *consumed, size_t *out_len)
{
    struct rd r;
    const uint8_t *q;
    uint8_t b0, b1, tf, sci = 0, dci = 0, tc = 0;
    uint32_t flow = 0;
    size_t hdr = IPV6_HDR, total;
    mip_status st;
    bool nhc, elided = false;

    if (in_len < 2u)
        return MIP_ERR_TRUNCATED;
    b0 = in[0];
    b1 = in[1];
    if ((b0 & 0xE0u) != IPHC_DISPATCH)
        return MIP_ERR_MALFORMED;
    if (cap < IPV6_HDR)
        return MIP_ERR_NOSPACE;
    r.p = in;
    r.len = in_len;
    r.pos = 2;
    nhc = (b0 & IPHC_NH) != 0u;
    memset(out, 0, IPV6_HDR);

    if ((b1 & IPHC_CID) != 0u) {
        if ((q = take(&r, 1)) == NULL)
            return MIP_ERR_TRUNCATED;
        sci = (uint8_t)(q[0] >> 4);
        dci = (uint8_t)(q[0] & 0x0Fu);
    }

    /* Traffic class travels as ECN then DSCP (RFC 6282 s.3.1.1). */
    tf = (uint8_t)((b0 >> 3) & 3u);
    switch (tf) {
    case 0:
        if ((q = take(&r, 4)) == NULL)
            return MIP_ERR_TRUNCATED;
        tc = (uint8_t)((uint8_t)(q[0] << 2) | (q[0] >> 6));
        flow = ((uint32_t)(q[1] & 0x0Fu) << 16) | ((uint32_t)q[2] << 8) | q[3];
        break;
    case 1:
        if ((q = take(&r, 3)) == NULL)
            return MIP_ERR_TRUNCATED;
        tc = (uint8_t)(q[0] >> 6);
        flow = ((uint32_t)(q[0] & 0x0Fu) << 16) | ((uint32_t)q[1] << 8) | q[2];
        break;
    case 2:
        if ((q = take(&r, 1)) == NULL)
            return MIP_ERR_TRUNCATED;
        tc = (uint8_t)((uint8_t)(q[0] << 2) | (q[0] >> 6));
        break;
    default:
        break;
    }
    mip_wr32(out, (6ul << 28) | ((uint32_t)tc << 20) | flow);

    if (!nhc) {
        if ((q = take(&r, 1)) == NULL)
            return MIP_ERR_TRUNCATED;
        out[6] = q[0];
    }
    switch (b0 & 3u) {
    case 0:
        if ((q = take(&r, 1)) == NULL)
            return MIP_ERR_TRUNCATED;
        out[7] = q[0];
        break;
    case 1:
        out[7] = 1;
        break;
    case 2:
        out[7] = 64;
        break;
    default:
        out[7] = 255;
        break;
    }

    st = rd_unicast(&r, (b1 & IPHC_SAC) != 0u, (uint8_t)((b1 >> 4) & 3u), sci, true, env,
                    env != NULL ? env->src : NULL, out + 8);
    if (st != MIP_OK)
        return st;
    if ((b1 & IPHC_M) != 0u)
        st = rd_multicast(&r, (b1 & IPHC_DAC) != 0u, (uint8_t)(b1 & 3u), dci, env, out + 24);
    else
        st = rd_unicast(&r, (b1 & IPHC_DAC) != 0u, (uint8_t)(b1 & 3u), dci, false, env,
                        env != NULL ? env->dst : NULL, out + 24);
    if (st != MIP_OK)
        return st;

    if (nhc && r.pos < in_len && (in[r.pos] & 0xF0u) == MIP_LOWPAN_NHC_TCP_ID) {
        /* moteip's TCP NHC: the caller expands it (wire/lowpan_tcp.h) */
        if (!MIP_CONF_LOWPAN_HC || env == NULL || !env->tcp_nhc || datagram_size != 0u)
            return MIP_ERR_UNSUPPORTED;
        out[6] = PROTO_TCP;
        nhc = false;
    } else if (nhc) {
        if (cap < IPV6_HDR + UDP_HDR)
            return MIP_ERR_NOSPACE;
        memset(out + IPV6_HDR, 0, UDP_HDR);
        st = rd_nhc_udp(&r, env, datagram_size == 0u, out + IPV6_HDR, &elided);
        if (st != MIP_OK)
            return st;
        out[6] = PROTO_UDP;
        hdr += UDP_HDR;
    }

    total = datagram_size != 0u ? datagram_size : hdr + (in_len - r.pos);
    if (total < hdr || total - IPV6_HDR > 0xFFFFu)
        return MIP_ERR_MALFORMED;
    mip_wr16(out + 4, (uint16_t)(total - IPV6_HDR));
    if (nhc)
        mip_wr16(out + IPV6_HDR + 4, (uint16_t)(total - IPV6_HDR));
#if MIP_CONF_LOWPAN_HC
    if (elided) {
        /* the whole datagram is here (checked in rd_nhc_udp): the UDP
         * header just built, then in[r.pos..in_len) */
        uint32_t sum = mip_cksum_pseudo6(out + 8, out + 24, PROTO_UDP,
                                         (uint32_t)(total - IPV6_HDR));
        uint16_t c;
        sum = mip_cksum_add(sum, out + IPV6_HDR, UDP_HDR);
        sum = mip_cksum_add(sum, in + r.pos, in_len - r.pos);
        c = mip_cksum_finish(sum);
        mip_wr16(out + IPV6_HDR + 6, c != 0u ? c : 0xFFFFu);   /* RFC 768: 0 is "none" */
    }
#endif
    *consumed = r.pos;
    *out_len = hdr;
    return MIP_OK;
}

/* --- compression (RFC 6282 s.3.1, s.4.3) ---------------------------------- */

/* How one address is carried. */
struct addr_plan {
    uint8_t ac;        /* SAC / DAC */
    uint8_t am;        /* SAM / DAM */
    uint8_t ci;        /* context used when ac (0..15) */
    uint8_t m;         /* destination is multicast */
    uint8_t n;         /* inline bytes */
    uint8_t bytes[16];
};

/* Mode for the IID at iid when the prefix is implied. */
static uint8_t iid_mode(const uint8_t *iid, const struct mip_802154_addr *link)
{
    uint8_t derived[8];
    if (link != NULL && mip_lowpan_iid_from_link(link, derived) == MIP_OK &&
        memcmp(derived, iid, 8) == 0)
        return AM_0;
    if (memcmp(iid, short_iid_head, 6) == 0)
        return AM_16;
    return AM_64;
}

static void plan_iid(struct addr_plan *p, const uint8_t *addr,
                     const struct mip_802154_addr *link)
{
    p->am = iid_mode(addr + 8, link);
    if (p->am == AM_0) {
        p->n = 0;
    } else if (p->am == AM_16) {
        p->n = 2;
        memcpy(p->bytes, addr + 14, 2);
    } else {
        p->n = 8;
        memcpy(p->bytes, addr + 8, 8);
    }
}

/* A context compression may use. */
static bool ctx_usable(const struct mip_lowpan_env *env, uint8_t i)
{
    return ((env->ctx_absent | env->ctx_nocomp) & (1u << i)) == 0u;
}

/* The shortest encoding of a unicast address using contexts below
 * ctx_limit. */
static void plan_unicast(struct addr_plan *p, const uint8_t *addr, bool is_src,
                         const struct mip_lowpan_env *env, uint8_t ctx_limit,
                         const struct mip_802154_addr *link)
{
    uint8_t i;
    memset(p, 0, sizeof(*p));
    if (is_src && all_zero(addr, 16)) {
        p->ac = 1;   /* SAC=1 SAM=00: :: */
        return;
    }
    if (memcmp(addr, ll_prefix, 8) == 0) {
        plan_iid(p, addr, link);
        return;
    }
    for (i = 0; i < ctx_limit; i++) {
        if (!ctx_usable(env, i))
            continue;
        if (memcmp(addr, env->ctx[i], 8) == 0) {
            p->ac = 1;
            p->ci = i;
            plan_iid(p, addr, link);
            return;
        }
    }
    p->n = 16;
    memcpy(p->bytes, addr, 16);
}

static void plan_multicast(struct addr_plan *p, const uint8_t *addr,
                           const struct mip_lowpan_env *env, uint8_t ctx_limit)
{
    uint8_t i;
    memset(p, 0, sizeof(*p));
    p->m = 1;
    if (addr[1] == 0x02u && all_zero(addr + 2, 13)) {
        p->am = 3;
        p->n = 1;
        p->bytes[0] = addr[15];
        return;
    }
    if (all_zero(addr + 2, 11)) {
        p->am = 2;
        p->n = 4;
        p->bytes[0] = addr[1];
        memcpy(p->bytes + 1, addr + 13, 3);
        return;
    }
    if (all_zero(addr + 2, 9)) {
        p->am = 1;
        p->n = 6;
        p->bytes[0] = addr[1];
        memcpy(p->bytes + 1, addr + 11, 5);
        return;
    }
    for (i = 0; i < ctx_limit; i++) {
        if (!ctx_usable(env, i))
            continue;
        if (addr[3] == 64u && memcmp(addr + 4, env->ctx[i], 8) == 0) {
            p->ac = 1;
            p->ci = i;
            p->am = 0;
            p->n = 6;
            p->bytes[0] = addr[1];
            p->bytes[1] = addr[2];
            memcpy(p->bytes + 2, addr + 12, 4);
            return;
        }
    }
    p->n = 16;
    memcpy(p->bytes, addr, 16);
}

static void plan_addrs(struct addr_plan *s, struct addr_plan *d, const uint8_t *ip,
                       const struct mip_lowpan_env *env, uint8_t ctx_limit)
{
    plan_unicast(s, ip + 8, true, env, ctx_limit, env->src);
    if (ip[24] == 0xFFu)
        plan_multicast(d, ip + 24, env, ctx_limit);
    else
        plan_unicast(d, ip + 24, false, env, ctx_limit, env->dst);
}

static bool needs_cid(const struct addr_plan *s, const struct addr_plan *d)
{
    return (s->ac && s->ci != 0u) || (d->ac && d->ci != 0u);
}

static size_t plan_cost(const struct addr_plan *s, const struct addr_plan *d)
{
    return (size_t)s->n + d->n + (needs_cid(s, d) ? 1u : 0u);
}

/* RFC 6282 s.4.3.2: the UDP checksum is elided only with the upper
 * layer's say-so, for a datagram the receiver gets whole (it computes the
 * checksum back from it) and never when the checksum is wrong: eliding
 * would turn a damaged datagram into a good one. */
static bool udp_elide(const uint8_t *ip, size_t ip_len, uint16_t plen,
                      const struct mip_lowpan_env *env)
{
#if MIP_CONF_LOWPAN_HC
    return env != NULL && env->udp_cksum_elide && ip_len == IPV6_HDR + (size_t)plen &&
           mip_rd16(ip + IPV6_HDR + 6) != 0u &&
           mip_cksum_finish(mip_cksum_add(mip_cksum_pseudo6(ip + 8, ip + 24, PROTO_UDP, plen),
                                          ip + IPV6_HDR, plen)) == 0u;
#else
    (void)ip;
    (void)ip_len;
    (void)plen;
    (void)env;
    return false;
#endif
}

/* The shared-port NHC byte (C clear) for these ports, 0 when the context
 * does not name them. */
static uint8_t udp_shared(const struct mip_lowpan_env *env, uint16_t sport, uint16_t dport)
{
#if MIP_CONF_LOWPAN_HC
    if (env == NULL || !env->has_udp_ports)
        return 0;
    if (sport == env->udp_ports[0] && dport == env->udp_ports[1])
        return MIP_LOWPAN_NHC_UDP_SHARED;
    if (sport == env->udp_ports[1] && dport == env->udp_ports[0])
        return MIP_LOWPAN_NHC_UDP_SHARED | 1u;
#else
    (void)env;
    (void)sport;
    (void)dport;
#endif
    return 0;
}

mip_status mip_lowpan_iphc_compress(const uint8_t *ip, size_t ip_len,
                                    const struct mip_lowpan_env *env,
                                    uint8_t *out, size_t cap,
                                    size_t *consumed, size_t *out_len)
{
    uint8_t buf[MIP_LOWPAN_IPHC_MAX];
    struct addr_plan src, dst, src_all, dst_all;
    uint8_t b0 = IPHC_DISPATCH, b1 = 0, tc, ecn, dscp, ctx_count = 0;
    uint32_t flow;
    uint16_t sport = 0, dport = 0, plen;
    size_t n = 2;
    bool udp = false;

    if (ip_len < IPV6_HDR)
        return MIP_ERR_TRUNCATED;
    plen = mip_rd16(ip + 4);
    /* The receiver rebuilds Payload Length from the bytes it gets: bytes
     * past the declared end would come back as payload, and an NHC UDP
     * header lying there would not decompress at all. */
    if ((ip[0] >> 4) != 6u || ip_len - IPV6_HDR > plen)
        return MIP_ERR_MALFORMED;
    if (env != NULL && env->ctx != NULL)
        ctx_count = env->ctx_count < MIP_LOWPAN_CTX_MAX ? env->ctx_count
                                                         : (uint8_t)MIP_LOWPAN_CTX_MAX;

    /* Addresses first: they decide whether a CID byte is worth it. */
    {
        struct mip_lowpan_env none;
        const struct mip_lowpan_env *e = env;
        if (e == NULL) {
            memset(&none, 0, sizeof(none));
            e = &none;
        }
        plan_addrs(&src, &dst, ip, e, ctx_count > 0u ? 1u : 0u);
        if (ctx_count > 1u) {
            plan_addrs(&src_all, &dst_all, ip, e, ctx_count);
            if (plan_cost(&src_all, &dst_all) < plan_cost(&src, &dst)) {
                src = src_all;
                dst = dst_all;
            }
        }
    }

    tc = (uint8_t)((uint8_t)(ip[0] << 4) | (ip[1] >> 4));
    flow = ((uint32_t)(ip[1] & 0x0Fu) << 16) | ((uint32_t)ip[2] << 8) | ip[3];
    ecn = (uint8_t)(tc & 3u);
    dscp = (uint8_t)(tc >> 2);
    if (needs_cid(&src, &dst)) {
        b1 |= IPHC_CID;
        uint8_t sci = src.ac ? src.ci : 0u, dci = dst.ac ? dst.ci : 0u;
        buf[n++] = (uint8_t)((uint8_t)(sci << 4) | dci);
    }
    if (flow == 0u && tc == 0u) {
        b0 |= 3u << 3;
    } else if (flow == 0u) {
        b0 |= 2u << 3;
        buf[n++] = (uint8_t)((uint8_t)(ecn << 6) | dscp);
    } else if (dscp == 0u) {
        b0 |= 1u << 3;
        buf[n++] = (uint8_t)((uint8_t)(ecn << 6) | (uint8_t)(flow >> 16));
        buf[n++] = (uint8_t)(flow >> 8);
        buf[n++] = (uint8_t)flow;
    } else {
        buf[n++] = (uint8_t)((uint8_t)(ecn << 6) | dscp);
        buf[n++] = (uint8_t)(flow >> 16);
        buf[n++] = (uint8_t)(flow >> 8);
        buf[n++] = (uint8_t)flow;
    }

    /* NHC only when the elided UDP Length can be rebuilt from the
     * datagram's size, i.e. it equals the IPv6 Payload Length (then at
     * least 8: the header is within the datagram, checked above). */
    if (ip[6] == PROTO_UDP && ip_len >= IPV6_HDR + UDP_HDR &&
        mip_rd16(ip + IPV6_HDR + 4) == plen) {
        udp = true;
        b0 |= IPHC_NH;
        sport = mip_rd16(ip + IPV6_HDR);
        dport = mip_rd16(ip + IPV6_HDR + 2);
    } else if (MIP_CONF_LOWPAN_HC && ip[6] == PROTO_TCP && env != NULL && env->tcp_nhc &&
               ip_len == IPV6_HDR + (size_t)plen) {
        b0 |= IPHC_NH;   /* the caller's TCP NHC follows */
    } else {
        buf[n++] = ip[6];
    }
    switch (ip[7]) {
    case 1:
        b0 |= 1u;
        break;
    case 64:
        b0 |= 2u;
        break;
    case 255:
        b0 |= 3u;
        break;
    default:
        buf[n++] = ip[7];
        break;
    }

    b1 |= (uint8_t)((src.ac ? IPHC_SAC : 0u) | (uint8_t)(src.am << 4));
    b1 |= (uint8_t)((dst.m ? IPHC_M : 0u) | (dst.ac ? IPHC_DAC : 0u) | dst.am);
    memcpy(buf + n, src.bytes, src.n);
    n += src.n;
    memcpy(buf + n, dst.bytes, dst.n);
    n += dst.n;

    if (udp) {
        bool elide = udp_elide(ip, ip_len, plen, env);
        uint8_t c = elide ? NHC_UDP_C : 0u;
        uint8_t shared = udp_shared(env, sport, dport);
        if (shared != 0u) {
            buf[n++] = (uint8_t)(shared | c);
        } else if ((sport & 0xFFF0u) == 0xF0B0u && (dport & 0xFFF0u) == 0xF0B0u) {
            buf[n++] = (uint8_t)(NHC_UDP | c | 3u);
            buf[n++] = (uint8_t)((uint8_t)((sport & 0x0Fu) << 4) | (dport & 0x0Fu));
        } else if ((dport & 0xFF00u) == 0xF000u) {
            buf[n++] = (uint8_t)(NHC_UDP | c | 1u);
            mip_wr16(buf + n, sport);
            buf[n + 2] = (uint8_t)dport;
            n += 3;
        } else if ((sport & 0xFF00u) == 0xF000u) {
            buf[n++] = (uint8_t)(NHC_UDP | c | 2u);
            buf[n] = (uint8_t)sport;
            mip_wr16(buf + n + 1, dport);
            n += 3;
        } else {
            buf[n++] = (uint8_t)(NHC_UDP | c);
            mip_wr16(buf + n, sport);
            mip_wr16(buf + n + 2, dport);
            n += 4;
        }
        if (!elide) {
            buf[n++] = ip[IPV6_HDR + 6];
            buf[n++] = ip[IPV6_HDR + 7];
        }
    }
    buf[0] = b0;
    buf[1] = b1;
    if (cap < n)
        return MIP_ERR_NOSPACE;
    memcpy(out, buf, n);
    *consumed = udp ? IPV6_HDR + UDP_HDR : IPV6_HDR;
    *out_len = n;
    return MIP_OK;
}
