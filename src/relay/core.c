/*
 * The relay's services, shared by its mechanisms (tss.c, dtc.c, cctrl.c):
 * parsing a datagram or the start of a frame into a TCP segment, the flow
 * table, the segment slots, the history of forwarded segments, RTT
 * arithmetic in fixed point, the builder of ACKs sent in a destination's
 * name, and sending. Nothing here knows a mechanism; relay.c, above both,
 * picks the mechanism and calls it. Design: docs/RELAY.md.
 */
#include "relay_internal.h"

#if MIP_CONF_FORWARD

#include <string.h>
#include "moteip/route.h"
#include "moteip/netif.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/ipv4.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/rpl_ext.h"
#include "moteip/wire/tcp.h"

#ifdef MOTEIP_FUZZING
#define RLY_CKSUM_OK(expr) ((void)(expr), 1)
#else
#define RLY_CKSUM_OK(expr) (expr)
#endif

/* Bytes of an overheard frame's datagram the relay looks at: an IPv6
 * header, extension headers as a template keeps them (RPL's Hop-by-Hop
 * RPL Option and source route) and the largest TCP header. */
#define RLY_PEEK_MAX (40u + MIP_RELAY_TMPL_EXT_MAX + 60u + 20u)

/* --- parsing --------------------------------------------------------------- */

#if MIP_CONF_IPV6
/*
 * An RPL source route (RFC 6554) right after the fixed header or its
 * Hop-by-Hop header, if the datagram buf[0..end) has one (w: the walk from
 * the fixed header, redone behind the SRH when it stopped there).
 * final_dst gets the datagram's final destination: with segments left, the
 * Destination Address is only the route's next hop, and the flow's
 * destination, which TCP's pseudo-header names too (RFC 8200 8.1), is the
 * route's last address. When a router has already worked on the route,
 * out->route_by gets the address of the last one (the datagram's sender:
 * it swapped its own address into the route, RFC 6554 4.2) and
 * out->route_from the address of the node it came from (the address
 * before it, or the source for the route's first hop).
 */
static mip_status parse_route(const uint8_t *buf, size_t end, const struct mip_ipv6_hdr *h,
                              struct mip_ipv6_walk *w, uint8_t final_dst[16],
                              struct rly_seg *out)
{
    struct mip_srh srh;
    size_t off = mip_ipv6_routing_offset(buf, end);
    uint16_t i;

    memcpy(final_dst, h->dst, 16);
    if (off == 0u || buf[off + 2u] != MIP_SRH_TYPE)
        return MIP_OK;
    if (mip_srh_parse(buf + off, end - off, &srh) != MIP_OK || srh.segments_left > srh.n)
        return MIP_ERR_MALFORMED;
    out->route_hdr = true;
    if (srh.segments_left > 0u) {
        if (w->srh_offset != off)
            return MIP_OK;            /* the walk stopped before it: its problem */
        if (mip_srh_addr(&srh, srh.n, h->dst, final_dst) != MIP_OK)
            return MIP_ERR_MALFORMED;
        out->srh = true;
        if (mip_ipv6_walk_ext(buf, end, srh.next_header, off + srh.len, false, w) != MIP_OK)
            return MIP_ERR_MALFORMED;
    }
    i = (uint16_t)(srh.n - srh.segments_left);
    if (i >= 1u && mip_srh_addr(&srh, i, h->dst, out->route_by) == MIP_OK) {
        out->routed = true;
        if (i >= 2u)
            (void)mip_srh_addr(&srh, (uint16_t)(i - 1u), h->dst, out->route_from);
        else
            memcpy(out->route_from, h->src, 16);
    }
    return MIP_OK;
}
#endif

mip_status rly_parse(const uint8_t *buf, size_t len, size_t real_len, bool verify,
                     struct rly_seg *out)
{
    struct mip_tcp_hdr th;
    struct mip_tcp_opts to;
    size_t l3, l4_avail;
    uint32_t sum = 0;
    mip_status st;

    memset(out, 0, sizeof(*out));
    if (buf == NULL || len < 1u)
        return MIP_ERR_TRUNCATED;
#if MIP_CONF_IPV4
    if ((buf[0] >> 4) == 4u) {
        struct mip_ipv4_hdr h;
        st = mip_ipv4_parse(buf, len, &h);
        if (st != MIP_OK)
            return st;
        if ((h.flags & MIP_IPV4_FLAG_MF) != 0u || h.frag_offset != 0u)
            return MIP_ERR_UNSUPPORTED;           /* a fragment */
        if (h.proto != MIP_IPPROTO_TCP)
            return MIP_ERR_UNSUPPORTED;
        if (real_len == 0u)
            real_len = h.total_len;
        mip_addr_set4(&out->src, h.src);
        mip_addr_set4(&out->dst, h.dst);
        out->ttl = h.ttl;
        out->tos = h.tos;
        out->df = (h.flags & MIP_IPV4_FLAG_DF) != 0u;
        out->id = h.id;
        l3 = h.hdr_len;
        l4_avail = (size_t)h.total_len - l3;
        if (verify)
            sum = mip_cksum_pseudo4(h.src, h.dst, MIP_IPPROTO_TCP,
                                    (uint16_t)(real_len - l3));
    } else
#endif
#if MIP_CONF_IPV6
    if ((buf[0] >> 4) == 6u) {
        struct mip_ipv6_hdr h;
        struct mip_ipv6_walk w;
        uint8_t final_dst[16];
        size_t end;
        st = mip_ipv6_parse(buf, len, &h);
        if (st != MIP_OK)
            return st;
        if (real_len == 0u)
            real_len = MIP_IPV6_HDR_LEN + (size_t)h.payload_len;
        end = MIP_IPV6_HDR_LEN + (size_t)h.payload_len;
        st = mip_ipv6_walk_ext(buf, end, h.next_header, MIP_IPV6_HDR_LEN, true, &w);
        if (st == MIP_OK)
            st = parse_route(buf, end, &h, &w, final_dst, out);
        if (st != MIP_OK)
            return st;
        if (w.problem != MIP_IPV6_PROBLEM_NONE || w.has_frag ||
            w.upper_proto != MIP_IPPROTO_TCP)
            return MIP_ERR_UNSUPPORTED;
        mip_addr_set6(&out->src, h.src);
        mip_addr_set6(&out->dst, final_dst);
        out->ttl = h.hop_limit;
        out->tos = h.traffic_class;
        out->id = h.flow_label;
        l3 = w.upper_offset;
        if (l3 > MIP_IPV6_HDR_LEN + (size_t)h.payload_len)
            return MIP_ERR_MALFORMED;
        l4_avail = end - l3;
        if (verify)
            sum = mip_cksum_pseudo6(h.src, final_dst, MIP_IPPROTO_TCP, (uint32_t)(real_len - l3));
    } else
#endif
    {
        return MIP_ERR_UNSUPPORTED;
    }
    if (real_len > 0xFFFFu || real_len < l3)
        return MIP_ERR_MALFORMED;
    st = mip_tcp_parse(buf + l3, l4_avail, &th);
    if (st != MIP_OK)
        return st;
    if ((size_t)th.hdr_len > real_len - l3)
        return MIP_ERR_MALFORMED;
    memset(&to, 0, sizeof(to));
    if (th.hdr_len > MIP_TCP_HDR_LEN) {
        st = mip_tcp_opts_parse(buf + l3 + MIP_TCP_HDR_LEN, th.hdr_len - MIP_TCP_HDR_LEN, &to);
        if (st != MIP_OK)
            return st;
    }
    if (verify) {
        if (real_len > len)
            return MIP_ERR_TRUNCATED;
        sum = mip_cksum_add(sum, buf + l3, real_len - l3);
        if (!RLY_CKSUM_OK(mip_cksum_finish(sum) == 0u))
            return MIP_ERR_CHECKSUM;
    }
    out->pkt = buf;
    out->sport = th.src_port;
    out->dport = th.dst_port;
    out->seq = th.seq;
    out->ack = th.ack;
    out->flags = th.flags;
    out->window = th.window;
    out->l3_len = (uint16_t)l3;
    out->tcp_hdr_len = th.hdr_len;
    out->dgram_len = (uint16_t)real_len;
    out->payload_len = (uint16_t)(real_len - l3 - th.hdr_len);
    out->seg_len = (uint32_t)out->payload_len + ((th.flags & MIP_TCP_SYN) ? 1u : 0u) +
                   ((th.flags & MIP_TCP_FIN) ? 1u : 0u);
    if (to.present & MIP_TCP_HAS_TIMESTAMP) {
        out->has_ts = true;
        out->ts_val = to.ts_val;
        out->ts_ecr = to.ts_ecr;
    }
    out->sack_perm = (to.present & MIP_TCP_HAS_SACK_PERM) != 0u;
    if (to.present & MIP_TCP_HAS_SACK) {
        out->sack_count = to.sack_count > MIP_TCP_SACK_MAX ? MIP_TCP_SACK_MAX : to.sack_count;
        memcpy(out->sack, to.sack, sizeof(out->sack));
    }
    /* Anything else the codec does not keep (MSS and window scale only
     * matter on a SYN, which is never rewritten) makes the area longer
     * than its re-emitted form. */
    out->opts_known = (uint8_t)((size_t)(th.hdr_len - MIP_TCP_HDR_LEN) <= mip_tcp_opts_len(&to));
    return MIP_OK;
}

/* --- flows ---------------------------------------------------------------- */

int rly_flow_find(const struct mip_relay *r, const struct mip_addr *src,
                  const struct mip_addr *dst, uint16_t sport, uint16_t dport)
{
    unsigned i;
    for (i = 0; i < MIP_RELAY_FLOWS; i++) {
        const struct mip_relay_flow *f = &r->flows[i];
        if (f->used && f->sport == sport && f->dport == dport &&
            mip_addr_eq(&f->src, src) && mip_addr_eq(&f->dst, dst))
            return (int)i;
    }
    return -1;
}

int rly_flow_of(const struct mip_relay *r, const struct rly_seg *seg)
{
    return rly_flow_find(r, &seg->src, &seg->dst, seg->sport, seg->dport);
}

int rly_flow_rev(const struct mip_relay *r, const struct rly_seg *seg)
{
    return rly_flow_find(r, &seg->dst, &seg->src, seg->dport, seg->sport);
}

void rly_flow_evict(struct mip_relay *r, int fi)
{
    unsigned i;
    if (fi < 0 || (unsigned)fi >= MIP_RELAY_FLOWS || !r->flows[fi].used)
        return;
    for (i = 0; i < MIP_RELAY_SLOTS; i++)
        if (r->slots[i].used != MIP_RELAY_SLOT_FREE && r->slots[i].flow == (uint8_t)fi)
            rly_slot_free(r, (int)i);
    memset(&r->flows[fi], 0, sizeof(r->flows[fi]));
    RSTAT(r, flows_evicted);
}

int rly_flow_new(struct mip_relay *r, const struct rly_seg *seg, int keep)
{
    struct mip_relay_flow *f;
    unsigned i;
    int pick = -1;
    uint32_t oldest = 0;
    for (i = 0; i < MIP_RELAY_FLOWS; i++) {
        if (!r->flows[i].used) {
            pick = (int)i;
            break;
        }
    }
    if (pick < 0) {
        /* least recently used (ages are differences: wrap-safe) */
        for (i = 0; i < MIP_RELAY_FLOWS; i++) {
            uint32_t age = r->now - r->flows[i].last_used;
            if ((int)i == keep)
                continue;
            if (pick < 0 || age > oldest) {
                pick = (int)i;
                oldest = age;
            }
        }
        if (pick < 0)
            return -1;            /* MIP_RELAY_FLOWS == 1 and keep is it */
        rly_flow_evict(r, pick);
    }
    f = &r->flows[pick];
    memset(f, 0, sizeof(*f));
    f->used = 1;
    f->src = seg->src;
    f->dst = seg->dst;
    f->sport = seg->sport;
    f->dport = seg->dport;
    f->last_used = r->now;
    RSTAT(r, flows_new);
    return pick;
}

int rly_flow_syn(struct mip_relay *r, const struct rly_seg *seg, int fi, int ri, bool *fresh)
{
    uint32_t end = seg->seq + seg->seg_len;
    *fresh = false;
    if (fi >= 0 && (r->flows[fi].flags & MIP_RELAY_F_SEQ) && r->flows[fi].transmitted == end) {
        r->flows[fi].last_used = r->now;
        return fi;
    }
    if (fi >= 0)
        rly_flow_evict(r, fi);
    fi = rly_flow_new(r, seg, ri);
    if (fi < 0) {
        RSTAT(r, ignored);
        return -1;
    }
    r->flows[fi].transmitted = end;
    r->flows[fi].flags |= MIP_RELAY_F_SEQ;
    if (seg->sack_perm)
        r->flows[fi].flags |= MIP_RELAY_F_SACKOK;
    *fresh = true;
    return fi;
}

int rly_flow_data(struct mip_relay *r, const struct rly_seg *seg, int fi, int ri)
{
    struct mip_relay_flow *f;
    if (fi < 0 && (fi = rly_flow_new(r, seg, ri)) < 0) {
        RSTAT(r, ignored);
        return -1;
    }
    f = &r->flows[fi];
    f->last_used = r->now;
    if (seg->flags & MIP_TCP_FIN) {
        f->flags |= MIP_RELAY_F_FIN;
        if (ri >= 0 && (r->flows[ri].flags & MIP_RELAY_F_FIN)) {
            f->flags |= MIP_RELAY_F_CLOSING;
            r->flows[ri].flags |= MIP_RELAY_F_CLOSING;
        }
    }
    return fi;
}

/* --- slots ---------------------------------------------------------------- */

int rly_slot_of(const struct mip_relay *r, int fi, uint8_t kind)
{
    unsigned i;
    for (i = 0; i < MIP_RELAY_SLOTS; i++)
        if (r->slots[i].used == kind && r->slots[i].flow == (uint8_t)fi)
            return (int)i;
    return -1;
}

int rly_slot_store(struct mip_relay *r, int fi, uint8_t kind, const struct rly_seg *seg,
                   const uint8_t *pkt, size_t len)
{
    struct mip_relay_slot *sl;
    unsigned i;
    if (len > MIP_RELAY_DGRAM_MAX || seg->seg_len > 0xFFFFu)
        return -1;
    for (i = 0; i < MIP_RELAY_SLOTS; i++) {
        if (r->slots[i].used != MIP_RELAY_SLOT_FREE)
            continue;
        sl = &r->slots[i];
        sl->used = kind;
        sl->flow = (uint8_t)fi;
        sl->rexmits = 0;
        sl->unsent = 0;
        sl->timer_on = 0;
        sl->locked = 0;
        sl->seq = seg->seq;
        sl->seg_len = (uint16_t)seg->seg_len;
        sl->deadline = 0;
        sl->dgram_len = (uint16_t)len;
        memcpy(sl->dgram, pkt, len);
        return (int)i;
    }
    return -1;
}

void rly_slot_free(struct mip_relay *r, int si)
{
    if (si < 0 || (unsigned)si >= MIP_RELAY_SLOTS)
        return;
    r->slots[si].used = MIP_RELAY_SLOT_FREE;
    r->slots[si].timer_on = 0;
    r->slots[si].unsent = 0;
    r->slots[si].dgram_len = 0;
}

void rly_tcp_cksum(uint8_t *d, size_t len, const struct rly_seg *seg)
{
    size_t l3 = seg->l3_len;
    uint32_t sum;
    mip_wr16(d + l3 + 16, 0);
    if (seg->src.family == MIP_AF_INET)
        sum = mip_cksum_pseudo4(seg->src.bytes, seg->dst.bytes, MIP_IPPROTO_TCP,
                                (uint16_t)(len - l3));
    else
        sum = mip_cksum_pseudo6(seg->src.bytes, seg->dst.bytes, MIP_IPPROTO_TCP,
                                (uint32_t)(len - l3));
    sum = mip_cksum_add(sum, d + l3, len - l3);
    mip_wr16(d + l3 + 16, mip_cksum_finish(sum));
}

/* The segment's timestamp option, when it has one: offset of TSval in the
 * datagram (0: none). */
static size_t tsval_offset(const uint8_t *d, const struct rly_seg *seg)
{
    size_t i = (size_t)seg->l3_len + MIP_TCP_HDR_LEN, end = (size_t)seg->l3_len + seg->tcp_hdr_len;
    while (i < end) {
        uint8_t kind = d[i];
        if (kind == MIP_TCP_OPT_EOL)
            break;
        if (kind == MIP_TCP_OPT_NOP) {
            i++;
            continue;
        }
        if (i + 1u >= end || d[i + 1] < 2u || i + d[i + 1] > end)
            break;
        if (kind == MIP_TCP_OPT_TIMESTAMP && d[i + 1] == 10u)
            return i + 2u;
        i += d[i + 1];
    }
    return 0;
}

mip_status rly_slot_resend(struct mip_relay *r, int si)
{
    struct mip_relay_slot *sl = &r->slots[si];
    const struct mip_relay_flow *f = &r->flows[sl->flow];
    struct rly_seg seg;
    size_t off;

    RSTAT(r, local_rexmits);
    if ((f->flags & MIP_RELAY_F_TS) &&
        rly_parse(sl->dgram, sl->dgram_len, 0, false, &seg) == MIP_OK && seg.has_ts &&
        rly_seq_lt(seg.ts_val, f->ts_latest) && (off = tsval_offset(sl->dgram, &seg)) != 0u) {
        mip_wr32(sl->dgram + off, f->ts_latest);
        rly_tcp_cksum(sl->dgram, sl->dgram_len, &seg);
    }
    return rly_send(r, sl->dgram, sl->dgram_len);
}

/* --- history -------------------------------------------------------------- */

/* IPv6 datagrams with flow label 0 carry no per-packet identity: a copy of
 * a local retransmission cannot be told from an end-to-end one, so they do
 * not take part (the TSS rules still drop most such copies). */
static bool hist_applies(const struct rly_seg *seg)
{
    return seg->src.family == MIP_AF_INET || seg->id != 0u;
}

bool rly_hist_has(const struct mip_relay *r, const struct rly_seg *seg)
{
    unsigned i;
    if (!hist_applies(seg))
        return false;
    for (i = 0; i < MIP_RELAY_HISTORY; i++) {
        const struct mip_relay_hist *h = &r->hist[i];
        if (h->src.family != MIP_AF_NONE && h->id == seg->id && h->seq == seg->seq &&
            mip_addr_eq(&h->src, &seg->src))
            return true;
    }
    return false;
}

void rly_hist_add(struct mip_relay *r, const struct rly_seg *seg)
{
    struct mip_relay_hist *h;
    if (!hist_applies(seg))
        return;
    if (r->hist_next >= MIP_RELAY_HISTORY)
        r->hist_next = 0;
    h = &r->hist[r->hist_next];
    h->src = seg->src;
    h->id = seg->id;
    h->seq = seg->seq;
    r->hist_next = (uint8_t)((r->hist_next + 1u) % MIP_RELAY_HISTORY);
}

/* --- RTT and timers ------------------------------------------------------- */

static uint32_t ewma_q8(uint32_t avg_q8, uint32_t sample_ms, uint8_t alpha_q8)
{
    uint32_t s_q8 = (sample_ms > RLY_TIME_MAX_MS ? RLY_TIME_MAX_MS : sample_ms) << 8;
    uint32_t a = alpha_q8;
    if (avg_q8 > (RLY_TIME_MAX_MS << 8))
        avg_q8 = RLY_TIME_MAX_MS << 8;
    /* both terms <= 30000 * 256 * 256 < 2^31 */
    return (avg_q8 * (256u - a) + s_q8 * a) >> 8;
}

void rly_rtt_sample(struct mip_relay *r, struct mip_relay_flow *f, uint32_t ms)
{
    if (f->flags & MIP_RELAY_F_RTT_OK) {
        /* Ours: a sample counts for at most twice the estimate. One that
         * spans a stall further on (a recovery end to end, seconds) would
         * otherwise raise every RTO on the path, and longer RTOs make
         * longer stalls. A lasting change still gets through, by at most
         * alpha per sample. */
        uint32_t cap = (f->rtt_q8 >> 7) + 1u;
        if (ms > cap)
            ms = cap;
        f->rtt_q8 = ewma_q8(f->rtt_q8, ms, r->cfg.alpha_q8);
    } else {
        /* the first sample (TSS: usually SYN -> SYN-ACK) starts the average */
        f->rtt_q8 = (ms > RLY_TIME_MAX_MS ? RLY_TIME_MAX_MS : ms) << 8;
        f->flags |= MIP_RELAY_F_RTT_OK;
    }
}

/* An average's next value: the first sample starts it. */
static uint32_t average_q8(uint32_t avg_q8, bool have, uint32_t ms, uint8_t alpha_q8)
{
    return have ? ewma_q8(avg_q8, ms, alpha_q8) : (ms > RLY_TIME_MAX_MS ? RLY_TIME_MAX_MS : ms) << 8;
}

void rly_ackfwd_sample(struct mip_relay *r, struct mip_relay_flow *f, uint32_t ms)
{
    f->ackfwd_q8 = average_q8(f->ackfwd_q8, (f->flags & MIP_RELAY_F_ACKFWD_OK) != 0u, ms,
                              r->cfg.alpha_q8);
    f->flags |= MIP_RELAY_F_ACKFWD_OK;
}

void rly_up_sample(struct mip_relay *r, struct mip_relay_flow *f, uint32_t ms)
{
    f->up_q8 = average_q8(f->up_q8, (f->repair_flags & MIP_RELAY_R_UP_OK) != 0u, ms,
                          r->cfg.alpha_q8);
    f->repair_flags |= MIP_RELAY_R_UP_OK;
}

uint32_t rly_rtt_ms(const struct mip_relay *r, const struct mip_relay_flow *f)
{
    uint32_t ms = (f->flags & MIP_RELAY_F_RTT_OK) ? f->rtt_q8 >> 8 : r->cfg.rtt_init_ms;
    return ms > RLY_TIME_MAX_MS ? RLY_TIME_MAX_MS : ms;
}

/* mult (1/256) * ms, at least min_ms, at most RLY_TIME_MAX_MS * 2. */
static uint32_t scaled(uint32_t ms, uint16_t mult_q8, uint16_t min_ms)
{
    uint32_t t = (ms * (uint32_t)mult_q8) >> 8;     /* 30000 * 65535 < 2^31 */
    if (t < min_ms)
        t = min_ms;
    if (t > 2u * RLY_TIME_MAX_MS)
        t = 2u * RLY_TIME_MAX_MS;
    return t == 0u ? 1u : t;
}

uint32_t rly_rto(const struct mip_relay *r, const struct mip_relay_flow *f)
{
    uint32_t t = scaled(rly_rtt_ms(r, f), r->cfg.rto_mult_q8, r->cfg.rto_min_ms);
    /* Karn's backoff (ours): doubled per local retransmission until the
     * next valid sample, so a too short rtt can still be measured */
    t <<= (f->rto_shift > 4u ? 4u : f->rto_shift);
    return t > 2u * RLY_TIME_MAX_MS ? 2u * RLY_TIME_MAX_MS : t;
}

uint32_t rly_repair_wait(const struct mip_relay *r, const struct mip_relay_flow *f)
{
    uint32_t ms = (f->repair_flags & MIP_RELAY_R_UP_OK) ? f->up_q8 >> 8 : rly_rtt_ms(r, f);
    return scaled(ms > RLY_TIME_MAX_MS ? RLY_TIME_MAX_MS : ms, 512u, r->cfg.rto_min_ms);
}

/* gamma * the ACK forwarding time; before the first sample the flow's RTT
 * stands in for it (an interpretation: [T] gives no initial value). */
uint32_t rly_ack_timeout(const struct mip_relay *r, const struct mip_relay_flow *f)
{
    uint32_t ms = (f->flags & MIP_RELAY_F_ACKFWD_OK) ? f->ackfwd_q8 >> 8 : rly_rtt_ms(r, f);
    if (ms > RLY_TIME_MAX_MS)
        ms = RLY_TIME_MAX_MS;
    /* backoff (ours): a too short estimate can still be measured */
    return scaled(ms, r->cfg.ack_gamma_q8, r->cfg.rto_min_ms) << (f->ack_shift > 2u ? 2u : f->ack_shift);
}

/* --- ACKs from the destination and their regeneration ----------------------- */

/* Rebuilds the flow's template from seg (an ACK from the flow's dst, as it
 * leaves this node): a pure ACK with seg's addresses,
 * ports, window, TTL / hop limit, IPv4 ID and DF / IPv6 traffic class and
 * flow label and extension headers, sequence number seg.seq + seg.seg_len,
 * and the timestamps option as dst sent it. The ACK number and the TCP
 * checksum are written when it is sent. No template when IPv6 extension
 * headers that name the way (a source route) do not fit. */
static void build_template(struct mip_relay_flow *f, const struct rly_seg *seg)
{
    struct mip_tcp_hdr th;
    struct mip_tcp_opts o;
    size_t l3, optlen = 0, total;
    uint8_t *t = f->tmpl;

    f->tmpl_len = 0;
    memset(&o, 0, sizeof(o));
    if (seg->has_ts) {
        o.present = MIP_TCP_HAS_TIMESTAMP;
        o.ts_val = seg->ts_val;
        o.ts_ecr = seg->ts_ecr;
        optlen = mip_tcp_opts_len(&o);
    }
    l3 = seg->src.family == MIP_AF_INET ? MIP_IPV4_HDR_LEN : MIP_IPV6_HDR_LEN;
#if MIP_CONF_IPV6
    /* The IPv6 extension headers go as they came (RPL's: the source route
     * still to follow, the RPL Option as this node set it): an ACK
     * regenerated here takes the way the one it copies was taking. */
    if (seg->src.family == MIP_AF_INET6 && seg->l3_len > MIP_IPV6_HDR_LEN) {
        if (seg->pkt != NULL && (size_t)seg->l3_len - MIP_IPV6_HDR_LEN <= MIP_RELAY_TMPL_EXT_MAX)
            l3 = seg->l3_len;
        else if (seg->srh)
            return;
    }
#endif
    total = l3 + MIP_TCP_HDR_LEN + optlen;
    if (total > sizeof(f->tmpl))
        return;
#if MIP_CONF_IPV4
    if (seg->src.family == MIP_AF_INET) {
        struct mip_ipv4_hdr h;
        memset(&h, 0, sizeof(h));
        h.tos = seg->tos;
        h.total_len = (uint16_t)total;
        h.id = (uint16_t)seg->id;
        h.flags = seg->df ? MIP_IPV4_FLAG_DF : 0u;
        h.ttl = seg->ttl;
        h.proto = MIP_IPPROTO_TCP;
        memcpy(h.src, seg->src.bytes, 4);
        memcpy(h.dst, seg->dst.bytes, 4);
        if (mip_ipv4_emit(&h, t, sizeof(f->tmpl)) != MIP_OK)
            return;
    } else
#endif
    {
#if MIP_CONF_IPV6
        if (l3 > MIP_IPV6_HDR_LEN) {
            /* the fixed header and the chain as they are, ending in TCP */
            memcpy(t, seg->pkt, l3);
            mip_wr16(t + 4, (uint16_t)(total - MIP_IPV6_HDR_LEN));
        } else {
            struct mip_ipv6_hdr h;
            memset(&h, 0, sizeof(h));
            h.traffic_class = seg->tos;
            h.flow_label = seg->id & 0xFFFFFu;
            h.payload_len = (uint16_t)(total - MIP_IPV6_HDR_LEN);
            h.next_header = MIP_IPPROTO_TCP;
            h.hop_limit = seg->ttl;
            memcpy(h.src, seg->src.bytes, 16);
            memcpy(h.dst, seg->dst.bytes, 16);
            if (mip_ipv6_emit(&h, t, sizeof(f->tmpl)) != MIP_OK)
                return;
        }
#else
        return;
#endif
    }
    memset(&th, 0, sizeof(th));
    th.src_port = seg->sport;
    th.dst_port = seg->dport;
    th.seq = seg->seq + seg->seg_len;
    th.ack = 0;
    th.hdr_len = (uint8_t)(MIP_TCP_HDR_LEN + optlen);
    th.flags = MIP_TCP_ACK;
    th.window = seg->window;
    if (mip_tcp_emit(&th, t + l3, sizeof(f->tmpl) - l3) != MIP_OK)
        return;
    if (optlen != 0u &&
        mip_tcp_opts_emit(&o, t + l3 + MIP_TCP_HDR_LEN, sizeof(f->tmpl) - l3 - MIP_TCP_HDR_LEN,
                          NULL) != MIP_OK)
        return;
    f->tmpl_len = (uint8_t)total;
}

bool rly_learn_ack(struct mip_relay *r, int fi, const struct rly_seg *seg)
{
    struct mip_relay_flow *f = &r->flows[fi];
    bool first = !(f->flags & MIP_RELAY_F_ACKED);
    bool moved;
    if (!(seg->flags & MIP_TCP_ACK))
        return false;
    f->last_used = r->now;
    if (!first && rly_seq_lt(seg->ack, f->acked))
        return false;                 /* an older ACK overtaken by a newer one */
    moved = first || rly_seq_gt(seg->ack, f->acked);
    f->acked = seg->ack;
    f->flags |= MIP_RELAY_F_ACKED;
    /* The template always belongs to the ACK that set `acked`, so a
     * regenerated ACK is dst's own latest ACK sent again. */
    build_template(f, seg);
    return moved;
}

mip_status rly_send_ack(struct mip_relay *r, int fi)
{
    struct mip_relay_flow *f = &r->flows[fi];
    uint8_t pkt[MIP_RELAY_TMPL_MAX];
    struct rly_seg seg;
    size_t n = f->tmpl_len;
    if (n == 0u || n > sizeof(pkt) || !(f->flags & MIP_RELAY_F_ACKED))
        return MIP_ERR_NOTFOUND;
    memcpy(pkt, f->tmpl, n);
    if (rly_parse(pkt, n, 0, false, &seg) != MIP_OK)
        return MIP_ERR_NOTFOUND;
    /* exactly the highest ACK number seen from dst, never more */
    mip_wr32(pkt + seg.l3_len + 8, f->acked);
    rly_tcp_cksum(pkt, n, &seg);
    f->ack_sent_no = f->acked;
    f->ack_sent_at = r->now;
    f->flags |= MIP_RELAY_F_ACKSENT;
    return rly_send(r, pkt, n);
}

bool rly_next_hop_is_dst(const struct mip_relay *r, const struct mip_addr *dst)
{
    struct mip_addr nexthop;
    uint8_t idx;
    return mip_route_lookup(r->stack, dst, &idx, &nexthop) == MIP_OK &&
           mip_addr_eq(&nexthop, dst);
}

bool rly_seg_next_hop_is_dst(const struct mip_relay *r, const struct rly_seg *seg)
{
    if (seg->route_hdr)
        return !seg->srh;
    return rly_next_hop_is_dst(r, &seg->dst);
}

mip_status rly_send(struct mip_relay *r, const uint8_t *pkt, size_t len)
{
    mip_status st = mip_ip_send_raw(r->stack, pkt, len);
    /* PENDING (queued for resolution) is on its way too */
    if (st != MIP_OK && st != MIP_ERR_PENDING)
        RSTAT(r, send_failed);
    return st;
}

/* --- entry points --------------------------------------------------------- */

/* Keeps the newest TSval that went downstream with data (rly_slot_resend). */

/* The TCP segment at the start of a frame's datagram (a frame this node
 * heard or sent), and the frame's link source. Only the start of a long
 * datagram is in the frame: its header is made to announce what is present
 * so the codecs parse it, and the segment's length is taken from what it
 * announced. The checksum cannot be checked on a part: frames with a bad
 * FCS never get here, and nothing is sent on the strength of these bytes
 * alone. */
mip_status rly_peek_seg(struct mip_relay *r, uint8_t netif, const uint8_t *frame,
                           size_t len, struct rly_seg *seg, struct mip_802154_addr *link_src)
{
#if MIP_CONF_LOWPAN
    uint8_t buf[RLY_PEEK_MAX];
    struct mip_lowpan_peek pk;
    size_t real, n;
    mip_status st;

    st = mip_lowpan_peek_frame(r->stack, netif, frame, len, buf, sizeof(buf), &pk);
    if (st != MIP_OK)
        return st;
    n = pk.ip_len;
    if (n < 1u || n > sizeof(buf))
        return MIP_ERR_MALFORMED;
    real = pk.dgram_len;
    if (real > n) {
        if ((buf[0] >> 4) == 4u && n >= MIP_IPV4_HDR_LEN && real == mip_rd16(buf + 2))
            mip_wr16(buf + 2, (uint16_t)n);
        else if ((buf[0] >> 4) == 6u && n >= MIP_IPV6_HDR_LEN &&
                 real == MIP_IPV6_HDR_LEN + (size_t)mip_rd16(buf + 4))
            mip_wr16(buf + 4, (uint16_t)(n - MIP_IPV6_HDR_LEN));
        else
            return MIP_ERR_MALFORMED;
    } else {
        real = 0;             /* whole: the header's own length */
    }
    if (link_src != NULL)
        *link_src = pk.link_src;
    st = rly_parse(buf, n, real, false, seg);
    seg->pkt = NULL;                  /* buf ends here */
    return st;
#else
    (void)r;
    (void)netif;
    (void)frame;
    (void)len;
    (void)seg;
    (void)link_src;
    return MIP_ERR_UNSUPPORTED;
#endif
}

#endif /* MIP_CONF_FORWARD */
