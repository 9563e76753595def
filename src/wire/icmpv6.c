/*
 * Neighbor Discovery messages (RFC 4861); the ICMPv6 header (RFC 4443) is
 * icmp.c's, shared with ICMPv4.
 */
#include "moteip/wire/icmpv6.h"
#include "moteip/wire/bytes.h"

#include <stdint.h>
#include <string.h>

#define ND_OPT_UNIT       8u
#define ND_LLADDR_MAX     14u   /* largest address whose option fits 16 bytes */
#define ND_NA_FLAGS_MASK  0xE0u

/* --- Neighbor Discovery --------------------------------------------------- */

void mip_nd_opt_iter_init(struct mip_nd_opt_iter *it, const uint8_t *opts, size_t len)
{
    it->p = opts;
    it->left = len;
}

/* Errors leave the iterator where it is, so every later call repeats them. */
mip_status mip_nd_opt_next(struct mip_nd_opt_iter *it, struct mip_nd_opt *out)
{
    size_t olen;

    if (it->left == 0u)
        return MIP_ERR_END;
    if (it->left < 2u)
        return MIP_ERR_TRUNCATED;
    if (it->p[1] == 0u)
        return MIP_ERR_MALFORMED;   /* RFC 4861 4.6: would never advance */
    olen = (size_t)it->p[1] * ND_OPT_UNIT;
    if (olen > it->left)
        return MIP_ERR_TRUNCATED;

    out->type = it->p[0];
    out->data = it->p + 2;
    out->len = olen - 2u;
    it->p += olen;
    it->left -= olen;
    return MIP_OK;
}

static size_t nd_fixed_len(uint8_t type)
{
    switch (type) {
    case MIP_ICMPV6_RS:       return MIP_ND_RS_LEN;
    case MIP_ICMPV6_RA:       return MIP_ND_RA_LEN;
    case MIP_ICMPV6_NS:       return MIP_ND_NS_LEN;
    case MIP_ICMPV6_NA:       return MIP_ND_NA_LEN;
    case MIP_ICMPV6_REDIRECT: return MIP_ND_REDIRECT_LEN;
    default:                  return 0u;
    }
}

static mip_status nd_opts_check(const uint8_t *opts, size_t len)
{
    struct mip_nd_opt_iter it;
    struct mip_nd_opt opt;
    mip_status st;

    mip_nd_opt_iter_init(&it, opts, len);
    do {
        st = mip_nd_opt_next(&it, &opt);
    } while (st == MIP_OK);
    return st == MIP_ERR_END ? MIP_OK : MIP_ERR_MALFORMED;
}

static bool is_multicast(const uint8_t addr[16])
{
    return addr[0] == 0xFFu;
}

/* Fills the type-specific fixed fields; the message holds its fixed part. */
static mip_status nd_fixed_parse(const uint8_t *buf, struct mip_nd_msg *out)
{
    switch (out->type) {
    case MIP_ICMPV6_RA:
        out->ra_hop_limit = buf[4];
        out->ra_flags = buf[5];
        out->ra_router_lifetime = mip_rd16(buf + 6);
        out->ra_reachable_ms = mip_rd32(buf + 8);
        out->ra_retrans_ms = mip_rd32(buf + 12);
        return MIP_OK;
    case MIP_ICMPV6_RS:
        return MIP_OK;
    case MIP_ICMPV6_NA:
        out->na_flags = (uint8_t)(buf[4] & ND_NA_FLAGS_MASK);
        break;
    case MIP_ICMPV6_REDIRECT:
        memcpy(out->redirect_dst, buf + 24, 16);
        if (is_multicast(out->redirect_dst))
            return MIP_ERR_MALFORMED;   /* RFC 4861 8.1 */
        break;
    default:
        break;
    }
    memcpy(out->target, buf + 8, 16);
    /* RFC 4861 7.1.1/7.1.2: NS and NA name a unicast or anycast target. */
    if (out->type != MIP_ICMPV6_REDIRECT && is_multicast(out->target))
        return MIP_ERR_MALFORMED;
    return MIP_OK;
}

mip_status mip_nd_parse(const uint8_t *buf, size_t len, struct mip_nd_msg *out)
{
    size_t fixed;
    mip_status st;

    memset(out, 0, sizeof(*out));
    if (len < 1u)
        return MIP_ERR_TRUNCATED;
    fixed = nd_fixed_len(buf[0]);
    if (fixed == 0u)
        return MIP_ERR_UNSUPPORTED;
    if (len < fixed)
        return MIP_ERR_TRUNCATED;
    if (buf[1] != 0u)
        return MIP_ERR_MALFORMED;

    out->type = buf[0];
    out->code = buf[1];
    st = nd_fixed_parse(buf, out);
    if (st != MIP_OK)
        return st;
    out->opts = buf + fixed;
    out->opts_len = len - fixed;
    return nd_opts_check(out->opts, out->opts_len);
}

/* Bytes of an SLLA/TLLA option carrying an address of lladdr_len bytes. */
static size_t nd_lla_opt_len(size_t lladdr_len)
{
    if (lladdr_len == 0u)
        return 0u;
    return (2u + lladdr_len + ND_OPT_UNIT - 1u) / ND_OPT_UNIT * ND_OPT_UNIT;
}

/* The shared NS/NA layout: header, 4 bytes of flags/reserved, target, then
 * one optional link-layer address option. */
static mip_status nd_emit_ns_na(uint8_t type, uint8_t flags, const uint8_t target[16],
                                uint8_t opt_type, const uint8_t *lladdr,
                                size_t lladdr_len, uint8_t *buf, size_t cap,
                                size_t *written)
{
    size_t optlen;

    if (written != NULL)
        *written = 0u;
    if (lladdr_len > ND_LLADDR_MAX || (lladdr_len != 0u && lladdr == NULL))
        return MIP_ERR_INVALID;
    optlen = nd_lla_opt_len(lladdr_len);
    if (cap < MIP_ND_NS_LEN + optlen)
        return MIP_ERR_NOSPACE;

    memset(buf, 0, MIP_ND_NS_LEN + optlen);
    buf[0] = type;
    buf[4] = flags;
    memcpy(buf + 8, target, 16);
    if (optlen != 0u) {
        buf[MIP_ND_NS_LEN] = opt_type;
        buf[MIP_ND_NS_LEN + 1u] = (uint8_t)(optlen / ND_OPT_UNIT);
        memcpy(buf + MIP_ND_NS_LEN + 2u, lladdr, lladdr_len);
    }
    if (written != NULL)
        *written = MIP_ND_NS_LEN + optlen;
    return MIP_OK;
}

mip_status mip_nd_emit_ns(const uint8_t target[16], const uint8_t *slla, size_t lladdr_len,
                          uint8_t *buf, size_t cap, size_t *written)
{
    return nd_emit_ns_na(MIP_ICMPV6_NS, 0u, target, MIP_ND_OPT_SLLA, slla, lladdr_len,
                         buf, cap, written);
}

mip_status mip_nd_emit_na(const uint8_t target[16], uint8_t na_flags,
                          const uint8_t *tlla, size_t lladdr_len,
                          uint8_t *buf, size_t cap, size_t *written)
{
    if ((na_flags & (uint8_t)~ND_NA_FLAGS_MASK) != 0u) {
        if (written != NULL)
            *written = 0u;
        return MIP_ERR_INVALID;
    }
    return nd_emit_ns_na(MIP_ICMPV6_NA, na_flags, target, MIP_ND_OPT_TLLA, tlla, lladdr_len,
                         buf, cap, written);
}
