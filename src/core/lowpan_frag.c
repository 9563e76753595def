/* 6LoWPAN fragments received (RFC 4944 s.5.3): reassembly, and RFC 8930
 * fragment forwarding through a virtual reassembly buffer (netif.h,
 * reass.h). Both tables share the rules that decide which datagram gets a
 * slot when they are full. */
#include "core.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/sixlowpan.h"
#include <string.h>

#if MIP_CONF_LOWPAN

/* --- datagram records and the slot rules ------------------------------------ */

/* Who sent a fragment, and to which of our link addresses (the netif let
 * only broadcast, our short and our extended address through, so the
 * destination's mode and short address tell them apart). */
struct frag_key {
    struct mip_lowpan_sender from;
    uint8_t  dst_mode;
    uint16_t dst_short;
};

static void frag_key_of(uint8_t netif, const struct mip_802154_hdr *h, struct frag_key *k)
{
    memset(k, 0, sizeof(*k));
    k->from.netif = netif;
    k->from.mode = h->src.mode;
    if (h->src.mode == MIP_802154_ADDR_SHORT)
        mip_wr16(k->from.addr, h->src.short_addr);
    else if (h->src.mode == MIP_802154_ADDR_EXT)
        memcpy(k->from.addr, h->src.ext, 8);
    k->dst_mode = h->dst.mode;
    k->dst_short = h->dst.mode == MIP_802154_ADDR_SHORT ? h->dst.short_addr : 0u;
}

/* One table of datagram records: reassembly slots or VRB entries, each
 * starting with its struct mip_lowpan_dgram. */
struct dgram_table {
    uint8_t *base;
    size_t   stride;
    unsigned n;
    unsigned per_src;
    uint32_t protect_ms;
    enum mip_stat no_slot, src_limit, evicted, superseded;
};

static struct mip_lowpan_dgram *dgram_at(const struct dgram_table *t, unsigned i)
{
    return (struct mip_lowpan_dgram *)(void *)(t->base + (size_t)i * t->stride);
}

static bool same_sender(const struct mip_lowpan_dgram *r, const struct frag_key *k)
{
    return r->used && memcmp(&r->from, &k->from, sizeof(r->from)) == 0;
}

/* The index of `who` in the known list, or MIP_LOWPAN_KNOWN_MAX. */
static unsigned known_at(const struct mip_stack *s, const struct mip_lowpan_sender *who)
{
    unsigned i;
    for (i = 0; i < MIP_LOWPAN_KNOWN_MAX; i++)
        if (s->lowpan_known[i].used && memcmp(&s->lowpan_known[i].who, who, sizeof(*who)) == 0)
            break;
    return i;
}

static bool is_known(const struct mip_stack *s, const struct mip_lowpan_sender *who)
{
    return known_at(s, who) < MIP_LOWPAN_KNOWN_MAX;
}

/* The datagram in d completed here: its sender goes to the front of the
 * known list (the last entry falls off when it is full). */
static void known_add(struct mip_stack *s, const struct mip_lowpan_dgram *d)
{
    unsigned at = known_at(s, &d->from);
    if (at == MIP_LOWPAN_KNOWN_MAX)
        at--;
    memmove(&s->lowpan_known[1], &s->lowpan_known[0], at * sizeof(s->lowpan_known[0]));
    s->lowpan_known[0].used = 1;
    s->lowpan_known[0].who = d->from;
}

/* RFC 4944 s.5.3: a datagram is known by its link source, link
 * destination, tag and size; a size that differs under the same other
 * three is handled by the caller. */
static struct mip_lowpan_dgram *dgram_find(const struct dgram_table *t, const struct frag_key *k,
                                           uint16_t tag)
{
    unsigned i;
    for (i = 0; i < t->n; i++) {
        struct mip_lowpan_dgram *r = dgram_at(t, i);
        if (same_sender(r, k) && r->tag == tag && r->dst_mode == k->dst_mode &&
            r->dst_short == k->dst_short)
            return r;
    }
    return NULL;
}

static bool in_delivery(const struct mip_lowpan_dgram *r)
{
    return r->received == r->size;
}

/* The record a new datagram may take (reass.h): a free one while its
 * sender holds fewer than its share; else its sender's own older
 * incomplete datagram (superseded); else the longest idle of the records
 * it may take over (its sender's at the share, any when all are used),
 * once idle protect_ms; else, for a known sender below its share, the
 * longest idle record of an unknown one. NULL, counted, when none
 * qualifies. */
static struct mip_lowpan_dgram *dgram_for(struct mip_stack *s, const struct dgram_table *t,
                                          const struct frag_key *k, uint16_t tag)
{
    struct mip_lowpan_dgram *free_slot = NULL, *own = NULL, *any = NULL, *stranger = NULL, *victim;
    unsigned i, mine = 0;
    for (i = 0; i < t->n; i++) {
        struct mip_lowpan_dgram *r = dgram_at(t, i);
        if (!r->used || r->abandoned) {
            if (free_slot == NULL || (free_slot->used && !r->used))
                free_slot = r;
            continue;
        }
        if (same_sender(r, k)) {
            mine++;
            if (own == NULL || mip_time_before(r->last, own->last))
                own = r;
        }
        if (any == NULL || mip_time_before(r->last, any->last))
            any = r;
        if (!in_delivery(r) && !is_known(s, &r->from) &&
            (stranger == NULL || mip_time_before(r->last, stranger->last)))
            stranger = r;
    }
    if (free_slot != NULL && mine < t->per_src)
        return free_slot;
    /* Our senders (and Contiki's) send the fragments of one datagram back
     * to back and the MAC delivers in order, so beyond the sender's share
     * an older incomplete datagram will not complete any more: give its
     * slot to the new one rather than letting one lost fragment block
     * later datagrams. Only a newer tag supersedes (tags count up), and
     * never a datagram being delivered. */
    if (own != NULL && (int16_t)(uint16_t)(tag - own->tag) > 0 && !in_delivery(own)) {
        mip_stat_inc(&s->stats, t->superseded);
        return own;
    }
    victim = mine >= t->per_src ? own : any;
    if (mip_time_reached(s->now, victim->last + t->protect_ms) && !in_delivery(victim)) {
        mip_stat_inc(&s->stats, t->evicted);
        return victim;
    }
    if (mine < t->per_src && stranger != NULL && is_known(s, &k->from)) {
        mip_stat_inc(&s->stats, t->evicted);
        return stranger;
    }
    mip_stat_inc(&s->stats, mine >= t->per_src ? t->src_limit : t->no_slot);
    return NULL;
}

static void dgram_init(struct mip_stack *s, struct mip_lowpan_dgram *r, const struct frag_key *k,
                       const struct mip_lowpan_frag *f)
{
    memset(r, 0, sizeof(*r));
    r->used = 1;
    r->from = k->from;
    r->dst_mode = k->dst_mode;
    r->dst_short = k->dst_short;
    r->tag = f->tag;
    r->size = f->size;
    r->deadline = s->now + MIP_LOWPAN_REASS_TIMEOUT_MS;
    r->last = s->now;
}

static bool block_is_set(const struct mip_lowpan_dgram *r, uint16_t b)
{
    return (r->bitmap[b / 8u] & (uint8_t)(1u << (b % 8u))) != 0u;
}

/* How many of the 8-byte blocks [first, last) the record holds. */
static unsigned blocks_set(const struct mip_lowpan_dgram *r, uint16_t first, uint16_t last)
{
    unsigned set = 0;
    uint16_t b;
    for (b = first; b < last; b++)
        if (block_is_set(r, b))
            set++;
    return set;
}

/* Marks [off, end) received; true when that completes the datagram. */
static bool dgram_take(struct mip_stack *s, struct mip_lowpan_dgram *r, uint16_t off, uint16_t end)
{
    uint16_t b;
    for (b = (uint16_t)(off / 8u); b < (uint16_t)((end + 7u) / 8u); b++)
        r->bitmap[b / 8u] |= (uint8_t)(1u << (b % 8u));
    r->received = (uint16_t)(r->received + (end - off));
    r->last = s->now;
    return r->received == r->size;
}

/* One fragment's uncompressed bytes: hdr[0..hdr_len) then data[0..len),
 * at offset off of the datagram. */
struct frag_piece {
    uint16_t off;
    const uint8_t *hdr;
    size_t hdr_len;
    const uint8_t *data;
    size_t len;
};

static uint16_t piece_end(const struct frag_piece *pc)
{
    return (uint16_t)(pc->off + pc->hdr_len + pc->len);
}

/* Duplicate, overlapping or new: 0 new, 1 duplicate (counted), 2 partly
 * overlapping (the caller ends the datagram). */
static int piece_fits(struct mip_stack *s, const struct mip_lowpan_dgram *r,
                      const struct frag_piece *pc)
{
    uint16_t first = (uint16_t)(pc->off / 8u), last = (uint16_t)((piece_end(pc) + 7u) / 8u);
    unsigned set = blocks_set(r, first, last);
    if (set == (unsigned)(last - first)) {
        STAT(s, drop_lowpan_frag_duplicate);
        return 1;
    }
    return set != 0u ? 2 : 0;
}

/* --- reassembly ------------------------------------------------------------------ */

static const struct dgram_table *reass_table(struct mip_stack *s, struct dgram_table *t)
{
    static const struct dgram_table reass = {
        NULL, sizeof(((struct mip_stack *)0)->lowpan_reass[0]), MIP_LOWPAN_REASS_SLOTS,
        MIP_LOWPAN_REASS_PER_SRC, MIP_LOWPAN_REASS_PROTECT_MS,
        MIP_STAT_drop_lowpan_frag_no_slot, MIP_STAT_drop_lowpan_frag_src_limit,
        MIP_STAT_drop_lowpan_frag_evicted, MIP_STAT_drop_lowpan_frag_superseded,
    };
    *t = reass;
    t->base = (uint8_t *)s->lowpan_reass;
    return t;
}

static void frag_add(struct mip_stack *s, struct mip_netif *nif, const struct mip_802154_hdr *h,
                     const struct frag_key *k, const struct mip_lowpan_frag *f,
                     const struct frag_piece *pc)
{
    struct dgram_table t;
    struct mip_lowpan_reass_slot *r;
    struct mip_lowpan_dgram *d;
    int fit;

    d = dgram_find(reass_table(s, &t), k, f->tag);
    if (d != NULL && d->size != f->size) {
        /* A new datagram under the old one's tag (RFC 4944 s.5.3): the old
         * one can no longer complete. */
        d->used = 0;
        STAT(s, drop_lowpan_frag_inconsistent);
        d = NULL;
    }
    if (d == NULL) {
        if ((d = dgram_for(s, &t, k, f->tag)) == NULL)
            return;   /* counted by dgram_for */
        dgram_init(s, d, k, f);
    }
    fit = piece_fits(s, d, pc);
    if (fit == 1)
        return;
    if (fit == 2) {
        d->used = 0;
        STAT(s, drop_lowpan_frag_inconsistent);
        return;
    }
    r = (struct mip_lowpan_reass_slot *)(void *)d;
    memcpy(r->data + pc->off, pc->hdr, pc->hdr_len);
    memcpy(r->data + pc->off + pc->hdr_len, pc->data, pc->len);
    if (!dgram_take(s, d, pc->off, piece_end(pc)))
        return;
    STAT(s, lowpan_reassembled);
    known_add(s, d);
    /* The slot stays used during delivery: data[] is the datagram, and an
     * input nested in a callback must not take the slot over (it is
     * complete, which dgram_for never evicts). */
    ipv6_input(s, nif, r->data, d->size, h->dst.mode == MIP_802154_ADDR_SHORT &&
                                         h->dst.short_addr == MIP_802154_BROADCAST);
    d->used = 0;
}

/* --- fragment forwarding (RFC 8930) ------------------------------------------------- */

#if MIP_LOWPAN_VRB_SLOTS > 0
static const struct dgram_table *vrb_table(struct mip_stack *s, struct dgram_table *t)
{
    static const struct dgram_table vrb = {
        NULL, sizeof(((struct mip_stack *)0)->lowpan_vrb[0]), MIP_LOWPAN_VRB_SLOTS,
        MIP_LOWPAN_VRB_PER_SRC, MIP_LOWPAN_REASS_PROTECT_MS,
        MIP_STAT_drop_lowpan_vrb_no_slot, MIP_STAT_drop_lowpan_vrb_src_limit,
        MIP_STAT_drop_lowpan_vrb_evicted, MIP_STAT_drop_lowpan_vrb_superseded,
    };
    *t = vrb;
    t->base = (uint8_t *)s->lowpan_vrb;
    return t;
}

static void vrb_next(const struct mip_lowpan_vrb *v, struct mip_802154_addr *a)
{
    memset(a, 0, sizeof(*a));
    a->mode = v->next_mode;
    a->short_addr = v->next_short;
    memcpy(a->ext, v->next_ext, 8);
}

/* Bytes [from, to) of the concatenation a[0..na) | b[0..nb) into out. */
static void copy_span(uint8_t *out, const uint8_t *a, size_t na, const uint8_t *b, size_t from,
                      size_t to)
{
    if (from < na) {
        size_t k = (to < na ? to : na) - from;
        /* na > 0: a is not NULL */
        memcpy(out, a + from, k);
        out += k;
        from += k;
    }
    if (to > from)
        memcpy(out, b + (from - na), to - from);
}

/* Sends one fragment of v's datagram to its next hop: FRAG1 (with the
 * compressed header hc) when `first`, else a FRAGN at `off`; the body is
 * bytes [from, to) of tail | data. */
static mip_status vrb_send(struct mip_stack *s, struct mip_netif *out,
                           const struct mip_lowpan_vrb *v, bool first, uint16_t off,
                           const uint8_t *hc, size_t hc_len, const uint8_t *tail,
                           size_t tail_len, const uint8_t *data, size_t from, size_t to)
{
    uint8_t frame[MIP_RADIO_FRAME_MAX];
    struct mip_802154_addr next;
    struct mip_lowpan_frag fh;
    size_t fmax = (size_t)out->lowpan.frame_max - MIP_802154_FCS_LEN, mhr, n;
    mip_status st;
    vrb_next(v, &next);
    mhr = lowpan_put_mhr(&out->lowpan, &next, frame, sizeof(frame));
    memset(&fh, 0, sizeof(fh));
    fh.first = first;
    fh.size = v->d.size;
    fh.tag = v->out_tag;
    fh.offset = off;
    (void)mip_lowpan_frag_emit(&fh, frame + mhr, fmax - mhr, &n);
    n += mhr;
    if (n + hc_len + (to - from) > fmax) {
        STAT(s, drop_lowpan_too_big);
        return MIP_ERR_NOSPACE;
    }
    if (hc_len > 0u)
        memcpy(frame + n, hc, hc_len);
    copy_span(frame + n + hc_len, tail, tail_len, data, from, to);
    st = lowpan_send_frame(s, out, frame, n + hc_len + (to - from),
                           LOWPAN_TX_FRAG | (v->paced ? LOWPAN_TX_PACED : 0u));
    if (st == MIP_OK)
        STAT(s, lowpan_frag_forwarded);
    return st;
}

/* Frames a datagram of `size` bytes takes from uncompressed offset `off`
 * on, at most `per` bytes each. */
static size_t frames_from(uint16_t size, size_t off, size_t per)
{
    return off >= size ? 0u : (size - off + per - 1u) / per;
}

static void vrb_done(struct mip_stack *s, struct mip_lowpan_vrb *v)
{
    STAT(s, lowpan_vrb_completed);
    known_add(s, &v->d);
    v->d.used = 0;
}

/* The first fragment of a datagram to forward: routes it and sends it on
 * with a header recompressed for the next hop. False when the datagram is
 * not the plain case (netif.h): the caller reassembles it. */
static bool vrb_start(struct mip_stack *s, struct mip_netif *in, const struct frag_key *k,
                      const struct mip_lowpan_frag *f, const struct frag_piece *pc)
{
    uint8_t hdr[MIP_LOWPAN_UNCOMP_MAX], hc[MIP_LOWPAN_IPHC_MAX];
    struct mip_802154_addr me, next;
    struct mip_lowpan_env env;
    struct mip_addr dst, src, nexthop;
    struct mip_netif *out;
    struct mip_lowpan_vrb *v;
    struct dgram_table t;
    size_t consumed, hc_len, fmax, mhr, avail, carried, cut, per, frames;
    uint16_t end = piece_end(pc);
    uint8_t idx;

    /* (an uncompressed FRAG1, dispatch 0x41, has no header expanded: it is
     * left to reassembly too) */
    if (in->lowpan.frag_mode != MIP_LOWPAN_FRAG_FORWARD || !s->forwarding || s->fwd_hook != NULL ||
        pc->hdr_len < 40u)
        return false;
    memcpy(hdr, pc->hdr, pc->hdr_len);
    mip_addr_set6(&src, hdr + 8);
    mip_addr_set6(&dst, hdr + 24);
    if (ip6_is_multicast(dst.bytes) || ip6_is_linklocal(src.bytes) ||
        ip6_is_linklocal(dst.bytes) || ip6_is_unspecified(src.bytes) ||
        ip6_is_unspecified(dst.bytes) || ip6_is_loopback(src.bytes) ||
        ip6_is_loopback(dst.bytes) || hdr[7] <= 1u || stack_is_own_addr(s, &dst))
        return false;
    if (mip_route_lookup(s, &dst, &idx, &nexthop) != MIP_OK ||
        (out = mip_netif_get(s, idx)) == NULL || !lowpan_is_iphc(out) ||
        lowpan_link_dst(out, &nexthop, &next) != MIP_OK ||
        (next.mode == MIP_802154_ADDR_SHORT && next.short_addr == MIP_802154_BROADCAST) ||
        f->size > out->mtu)
        return false;
    hdr[7]--;
    lowpan_our_link_addr(&out->lowpan, &me);
    lowpan_env(&out->lowpan, &me, &next, &env);
    if (mip_lowpan_iphc_compress(hdr, pc->hdr_len, &env, hc, sizeof(hc), &consumed, &hc_len) !=
        MIP_OK)
        return false;
    /* The recompressed header may be longer than the one that came (link
     * addresses no longer give the IP ones, the hop limit is no longer
     * 64): what does not fit the FRAG1 goes on in a FRAGN, cut at an
     * 8-byte boundary. */
    fmax = (size_t)out->lowpan.frame_max - MIP_802154_FCS_LEN;
    mhr = lowpan_mhr_len(&out->lowpan, &next);
    if (mhr + MIP_LOWPAN_FRAG1_LEN + hc_len > fmax || mhr + MIP_LOWPAN_FRAGN_LEN + 8u > fmax)
        return false;
    avail = fmax - mhr - MIP_LOWPAN_FRAG1_LEN - hc_len;
    carried = (size_t)end - consumed;
    cut = carried <= avail ? carried : ((consumed + avail) / 8u) * 8u - consumed;
    per = ((fmax - mhr - MIP_LOWPAN_FRAGN_LEN) / 8u) * 8u;
    frames = 1u + (cut < carried ? 1u : 0u) + frames_from(f->size, end, per);
    if (lowpan_room(out) < frames) {
        STAT(s, drop_lowpan_queue_full);
        return true;
    }
    if ((v = (struct mip_lowpan_vrb *)(void *)dgram_for(s, vrb_table(s, &t), k, f->tag)) == NULL)
        return true;  /* counted by dgram_for */
    dgram_init(s, &v->d, k, f);
    v->out_netif = out->index;
    v->paced = !mip_addr_eq(&nexthop, &dst);
    v->next_mode = next.mode;
    v->next_short = next.short_addr;
    memcpy(v->next_ext, next.ext, 8);
    v->out_tag = out->lowpan.next_tag++;
    STAT(s, ip_forwarded);
    if (vrb_send(s, out, v, true, 0, hc, hc_len, hdr + consumed, pc->hdr_len - consumed,
                 pc->data, 0, cut) != MIP_OK ||
        (cut < carried &&
         vrb_send(s, out, v, false, (uint16_t)(consumed + cut), NULL, 0, hdr + consumed,
                  pc->hdr_len - consumed, pc->data, cut, carried) != MIP_OK)) {
        v->d.abandoned = 1;
        return true;
    }
    if (dgram_take(s, &v->d, 0, end))
        vrb_done(s, v);
    return true;
}

/* A later fragment of a datagram being forwarded: on to the next hop at
 * once. */
static void vrb_forward(struct mip_stack *s, struct mip_lowpan_vrb *v,
                        const struct mip_lowpan_frag *f, const struct frag_piece *pc)
{
    struct mip_netif *out = mip_netif_get(s, v->out_netif);
    int fit;
    if (v->d.abandoned) {
        STAT(s, drop_lowpan_vrb_abandoned);
        return;
    }
    fit = piece_fits(s, &v->d, pc);
    if (fit == 1)
        return;
    if (fit == 2 || f->first || out == NULL) {
        /* overlapping, or a first fragment again with other bytes */
        v->d.abandoned = 1;
        STAT(s, drop_lowpan_vrb_inconsistent);
        return;
    }
    if (lowpan_room(out) < 1u) {
        /* The rest of the datagram is useless to the next hop now; the
         * entry stays to drop it (or until a new datagram needs it). */
        v->d.abandoned = 1;
        STAT(s, drop_lowpan_queue_full);
        return;
    }
    if (vrb_send(s, out, v, false, pc->off, NULL, 0, NULL, 0, pc->data, 0, pc->len) != MIP_OK) {
        v->d.abandoned = 1;
        return;
    }
    if (dgram_take(s, &v->d, pc->off, piece_end(pc)))
        vrb_done(s, v);
}

/* True when the fragment was forwarded (or dropped, counted) here; false
 * when reassembly takes it. */
static bool vrb_input(struct mip_stack *s, struct mip_netif *nif, const struct frag_key *k,
                      const struct mip_lowpan_frag *f, const struct frag_piece *pc)
{
    struct dgram_table t, rt;
    struct mip_lowpan_dgram *d = dgram_find(vrb_table(s, &t), k, f->tag);
    if (d != NULL && d->size != f->size) {
        d->used = 0;
        STAT(s, drop_lowpan_vrb_inconsistent);
        d = NULL;
    }
    if (d != NULL) {
        vrb_forward(s, (struct mip_lowpan_vrb *)(void *)d, f, pc);
        return true;
    }
    if (dgram_find(reass_table(s, &rt), k, f->tag) != NULL)
        return false;     /* a datagram being reassembled here */
    if (f->first)
        return vrb_start(s, nif, k, f, pc);
    if (nif->lowpan.frag_mode != MIP_LOWPAN_FRAG_FORWARD)
        return false;     /* RFC 4944: any fragment may start a datagram */
    /* RFC 8930 s.5: the first fragment is always sent first, so a later
     * one without state lost its first: it is dropped, and creates no
     * state (a flood of forged ones holds nothing). */
    STAT(s, drop_lowpan_frag_no_first);
    return true;
}
#endif /* MIP_LOWPAN_VRB_SLOTS */

/* --- input ------------------------------------------------------------------------- */

void lowpan_frag_input(struct mip_stack *s, struct mip_netif *nif,
                       const struct mip_802154_hdr *h, const uint8_t *pl, size_t n)
{
    struct mip_lowpan_frag f;
    struct mip_lowpan_env env;
    struct frag_piece pc;
    struct frag_key k;
    uint8_t hdr[MIP_LOWPAN_UNCOMP_MAX];
    size_t fl, end;
    mip_status st;

    STAT(s, lowpan_frag_rx);
    st = mip_lowpan_frag_parse(pl, n, &f, &fl);
    if (st != MIP_OK) {
        STAT(s, drop_lowpan_malformed);
        return;
    }
    if (f.size > MIP_LOWPAN_DGRAM_MAX) {
        STAT(s, drop_lowpan_too_big);
        return;
    }
    pl += fl;
    n -= fl;
    memset(&pc, 0, sizeof(pc));
    pc.off = f.offset;
    pc.hdr = hdr;
    if (f.first) {
        enum mip_lowpan_dispatch d;
        if (n == 0u) {
            STAT(s, drop_lowpan_malformed);
            return;
        }
        d = mip_lowpan_dispatch_of(pl[0]);
        if (d == MIP_LOWPAN_D_IPHC) {
            size_t consumed;
            lowpan_env(&nif->lowpan, &h->src, &h->dst, &env);
            st = mip_lowpan_iphc_decompress(pl, n, &env, f.size, hdr, sizeof(hdr), &consumed,
                                            &pc.hdr_len);
            if (st != MIP_OK) {
                lowpan_count_codec_error(s, st);
                return;
            }
            pc.data = pl + consumed;
            pc.len = n - consumed;
        } else if (d == MIP_LOWPAN_D_IPV6) {
            pc.data = pl + 1;
            pc.len = n - 1u;
        } else {
            STAT(s, drop_lowpan_unsupported);
            return;
        }
    } else {
        pc.data = pl;
        pc.len = n;
        /* offset 0 belongs to the FRAG1, which carries the header */
        if (f.offset == 0u) {
            STAT(s, drop_lowpan_malformed);
            return;
        }
    }
    end = (size_t)pc.off + pc.hdr_len + pc.len;
    if (end == pc.off || end > f.size || (end < f.size && end % 8u != 0u)) {
        STAT(s, drop_lowpan_malformed);
        return;
    }
    frag_key_of(nif->index, h, &k);
#if MIP_LOWPAN_VRB_SLOTS > 0
    if (vrb_input(s, nif, &k, &f, &pc))
        return;
#endif
    frag_add(s, nif, h, &k, &f, &pc);
}

/* Expires reassembly slots and VRB entries. */
uint32_t lowpan_poll(struct mip_stack *s, mip_time_t now)
{
    struct dgram_table tabs[2];
    uint32_t next = MIP_POLL_IDLE;
    unsigned i, j, ntab = 1;
    (void)reass_table(s, &tabs[0]);
#if MIP_LOWPAN_VRB_SLOTS > 0
    (void)vrb_table(s, &tabs[1]);
    ntab = 2;
#endif
    for (j = 0; j < ntab; j++) {
        for (i = 0; i < tabs[j].n; i++) {
            struct mip_lowpan_dgram *r = dgram_at(&tabs[j], i);
            if (!r->used)
                continue;
            if (mip_time_reached(now, r->deadline)) {
                /* no ICMP error: RFC 4944 has none for link reassembly */
                if (j == 0)
                    STAT(s, drop_lowpan_frag_timeout);
                else if (!r->abandoned)
                    STAT(s, drop_lowpan_vrb_timeout);
                r->used = 0;
                continue;
            }
            next = mip_next_delay(next, now, r->deadline);
        }
    }
    return next;
}

#endif /* MIP_CONF_LOWPAN */
