/*
 * IPv6 fixed header and extension-header chain (RFC 8200).
 */
#include "moteip/wire/ipv6.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/rpl_ext.h"

#include <stdint.h>
#include <string.h>

#define IPV6_FLOW_MAX       0xFFFFFu
#define IPV6_NH_FIELD       6u      /* offset of Next Header in the fixed header */
#define IPV6_OPT_PAD1       0u
#define IPV6_OPT_PADN       1u
#define IPV6_FRAG_MORE      0x0001u
#define IPV6_FRAG_OFF_MASK  0xFFF8u /* 13-bit offset in 8-byte units == bytes */

mip_status mip_ipv6_parse(const uint8_t *buf, size_t len, struct mip_ipv6_hdr *out)
{
    size_t payload;

    if (len < MIP_IPV6_HDR_LEN)
        return MIP_ERR_TRUNCATED;
    if ((buf[0] >> 4) != 6u)
        return MIP_ERR_MALFORMED;
    payload = mip_rd16(buf + 4);
    if (payload == 0u)
        return MIP_ERR_UNSUPPORTED; /* Jumbo Payload (RFC 2675) */
    if (payload > len - MIP_IPV6_HDR_LEN)
        return MIP_ERR_TRUNCATED;

    out->traffic_class = (uint8_t)(((uint8_t)(buf[0] << 4)) | (buf[1] >> 4));
    out->flow_label = ((uint32_t)(buf[1] & 0x0Fu) << 16) | (uint32_t)mip_rd16(buf + 2);
    out->payload_len = (uint16_t)payload;
    out->next_header = buf[6];
    out->hop_limit = buf[7];
    memcpy(out->src, buf + 8, 16);
    memcpy(out->dst, buf + 24, 16);
    return MIP_OK;
}

mip_status mip_ipv6_emit(const struct mip_ipv6_hdr *h, uint8_t *buf, size_t cap)
{
    if (cap < MIP_IPV6_HDR_LEN)
        return MIP_ERR_NOSPACE;
    if (h->flow_label > IPV6_FLOW_MAX)
        return MIP_ERR_INVALID;
    mip_ipv6_emit_fields(buf, h->traffic_class, h->payload_len, h->next_header, h->hop_limit,
                         h->src, h->dst);
    buf[1] |= (uint8_t)(h->flow_label >> 16);
    mip_wr16(buf + 2, (uint16_t)h->flow_label);
    return MIP_OK;
}

void mip_ipv6_emit_fields(uint8_t *buf, uint8_t traffic_class, uint16_t payload_len,
                          uint8_t next_header, uint8_t hop_limit, const uint8_t src[16],
                          const uint8_t dst[16])
{
    buf[0] = (uint8_t)(0x60u | (traffic_class >> 4));
    buf[1] = (uint8_t)(traffic_class << 4);
    buf[2] = 0;
    buf[3] = 0;
    mip_wr16(buf + 4, payload_len);
    buf[6] = next_header;
    buf[7] = hop_limit;
    memcpy(buf + 8, src, 16);
    memcpy(buf + 24, dst, 16);
}

/* --- extension-header walk ------------------------------------------------ */

static void walk_stop(struct mip_ipv6_walk *w, uint8_t nh, size_t off, size_t nh_off)
{
    w->upper_proto = nh;
    w->upper_offset = (uint16_t)off;
    w->upper_nh_offset = (uint16_t)nh_off;
}

static void walk_problem(struct mip_ipv6_walk *w, enum mip_ipv6_problem p, size_t ptr)
{
    w->problem = p;
    w->problem_pointer = (uint16_t)ptr;
}

/*
 * The TLVs of a Hop-by-Hop or Destination Options header at buf[off..end),
 * whose bytes are all present. Stops at the first option RFC 8200 4.2 says
 * not to skip; an option overrunning its header is MALFORMED.
 */
static mip_status walk_options(const uint8_t *buf, size_t off, size_t end, bool hbh,
                               struct mip_ipv6_walk *w)
{
    size_t i = off + 2u;

    while (i < end) {
        uint8_t type = buf[i];
        size_t olen;

        if (type == IPV6_OPT_PAD1) {
            i++;
            continue;
        }
        if (end - i < 2u)
            return MIP_ERR_MALFORMED;
        olen = buf[i + 1u];
        if (olen > end - i - 2u)
            return MIP_ERR_MALFORMED;

        /* Pad1/PadN aside, the walk understands no option but RPL's in a
         * Hop-by-Hop header, which it reports. The top two bits of the type
         * say what to do with one it does not know. */
        if (hbh && mip_rpi_type_is(type) && w->rpl_opt_offset == 0u) {
            w->rpl_opt_offset = (uint16_t)i;
        } else if (type != IPV6_OPT_PADN) {
            switch (type >> 6) {
            case 0u:
                break;
            case 1u:
                walk_problem(w, MIP_IPV6_PROBLEM_OPTION_SILENT, i);
                return MIP_OK;
            case 3u:
                w->problem_icmp_unless_multicast = true;
                /* fall through */
            default:
                walk_problem(w, MIP_IPV6_PROBLEM_OPTION, i);
                return MIP_OK;
            }
        }
        i += 2u + olen;
    }
    return MIP_OK;
}

static void walk_fragment(const uint8_t *buf, size_t off, struct mip_ipv6_walk *w)
{
    uint16_t offm = mip_rd16(buf + off + 2u);

    w->has_frag = true;
    w->frag_next = buf[off];
    w->frag_offset = (uint16_t)(offm & IPV6_FRAG_OFF_MASK);
    w->frag_more = (offm & IPV6_FRAG_MORE) != 0u;
    w->frag_id = mip_rd32(buf + off + 4u);
    w->frag_data_offset = (uint16_t)(off + MIP_IPV6_FRAG_HDR_LEN);
}

mip_status mip_ipv6_walk_ext(const uint8_t *buf, size_t len, uint8_t first_nh,
                             size_t offset, bool hbh_allowed,
                             struct mip_ipv6_walk *out)
{
    uint8_t nh = first_nh;
    size_t off = offset;
    size_t nh_off = IPV6_NH_FIELD;   /* see upper_nh_offset in the header */
    unsigned walked;

    memset(out, 0, sizeof(*out));
#if SIZE_MAX > 0xFFFFu
    /* Offsets are reported as uint16_t; no link this stack runs on carries
     * a packet this large, and a jumbogram is refused by mip_ipv6_parse. */
    if (len > 0xFFFFu)
        return MIP_ERR_UNSUPPORTED;
#endif
    if (off > len)
        return MIP_ERR_TRUNCATED;

    for (walked = 0u; mip_ipv6_is_ext(nh); walked++) {
        size_t hlen;

        walk_stop(out, nh, off, nh_off);
        if (walked == MIP_IPV6_EXT_MAX)
            return MIP_ERR_MALFORMED;
        if (nh == MIP_IPV6_NH_HOPOPTS && !(hbh_allowed && walked == 0u)) {
            walk_problem(out, MIP_IPV6_PROBLEM_NEXT_HEADER, nh_off);
            return MIP_OK;
        }
        if (nh == MIP_IPV6_NH_FRAGMENT) {
            if (len - off < MIP_IPV6_FRAG_HDR_LEN)
                return MIP_ERR_TRUNCATED;
            walk_fragment(buf, off, out);
            return MIP_OK;
        }

        if (len - off < 2u)
            return MIP_ERR_TRUNCATED;
        hlen = ((size_t)buf[off + 1u] + 1u) * 8u;
        if (hlen > len - off)
            return MIP_ERR_TRUNCATED;

        if (nh == MIP_IPV6_NH_ROUTING) {
            /* The walk processes no routing type: one with work left to
             * do is refused at its type (RFC 8200 4.4) unless the caller
             * knows it (an SRH, reported). */
            if (buf[off + 3u] != 0u) {
                if (buf[off + 2u] == MIP_SRH_TYPE)
                    out->srh_offset = (uint16_t)off;
                walk_problem(out, MIP_IPV6_PROBLEM_HDR_FIELD, off + 2u);
                return MIP_OK;
            }
        } else {
            mip_status st = walk_options(buf, off, off + hlen,
                                         nh == MIP_IPV6_NH_HOPOPTS, out);
            if (st != MIP_OK || out->problem != MIP_IPV6_PROBLEM_NONE)
                return st;
        }
        nh = buf[off];
        nh_off = off;
        off += hlen;
    }
    walk_stop(out, nh, off, nh_off);
    return MIP_OK;
}

size_t mip_ipv6_routing_offset(const uint8_t *buf, size_t len)
{
    uint8_t nh;
    size_t off = MIP_IPV6_HDR_LEN;

    if (len < MIP_IPV6_HDR_LEN)
        return 0;
    nh = buf[6];
    if (nh == MIP_IPV6_NH_HOPOPTS) {
        if (len < off + 2u)
            return 0;
        nh = buf[off];
        off += ((size_t)buf[off + 1u] + 1u) * 8u;
    }
    return nh == MIP_IPV6_NH_ROUTING && len >= off + 8u ? off : 0u;
}

mip_status mip_ipv6_frag_emit(uint8_t next_header, uint16_t frag_offset_bytes,
                              bool more, uint32_t id, uint8_t *buf, size_t cap)
{
    if (cap < MIP_IPV6_FRAG_HDR_LEN)
        return MIP_ERR_NOSPACE;
    if ((frag_offset_bytes & ~IPV6_FRAG_OFF_MASK) != 0u)
        return MIP_ERR_INVALID;

    buf[0] = next_header;
    buf[1] = 0u;
    mip_wr16(buf + 2, (uint16_t)(frag_offset_bytes | (more ? IPV6_FRAG_MORE : 0u)));
    mip_wr32(buf + 4, id);
    return MIP_OK;
}
