/*
 * RPL downward routes, the DAO side (RFC 6550 9): a node's DAOs (sent on
 * joining and on a parent change, acknowledged, retried, refreshed) and
 * the non-storing root's reception of them into its node table
 * (rpl_root.c keeps the table and routes by it). moteip/rpl_down.h holds
 * the state and the timing constants; docs/RPL.md says why.
 */
#include "rpl_down.h"
#include "moteip/stack.h"
#include "moteip/netif.h"
#include "moteip/pbuf.h"
#include "moteip/rng.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/icmpv6.h"
#include <string.h>

#define DAO_ACK_REJECT 128u   /* RFC 6550 6.5.1: 128..255 reject; "unqualified" */
#define DAO_TARGETS_MAX 4u    /* Targets one Transit option may apply to */
#define DAO_MSG_MAX (MIP_RPL_DAO_LEN + 16u + 20u + 2u + MIP_RPL_TRANSIT_LEN + 16u + 2u)

/* --- small shared pieces -------------------------------------------------- */

void rpl_down_count(struct mip_rpl *r, enum mip_rpl_down_stat which)
{
    if (r->down.stats[which] != UINT32_MAX)
        r->down.stats[which]++;
}

bool rpl_own_global(const struct mip_rpl *r, uint8_t out[16])
{
    const struct mip_netif *nif = mip_netif_get(r->stack, r->netif);
    const struct mip_netif_addr6 *best = NULL;
    unsigned i;

    if (nif == NULL)
        return false;
    for (i = 1; i <= MIP_NETIF_ADDR6_MAX; i++) {
        const struct mip_netif_addr6 *a = &nif->addr6[i];
        if (!a->used || a->addr[0] == 0xFEu || a->addr[0] == 0xFFu)
            continue;
        if (memcmp(a->addr, r->dodagid, 8) == 0 ||
            (r->has_pio && memcmp(a->addr, r->pio.prefix, 8) == 0)) {
            best = a;
            break;
        }
        if (best == NULL)
            best = a;
    }
    if (best == NULL)
        return false;
    memcpy(out, best->addr, 16);
    return true;
}

mip_status rpl_icmp_send(struct mip_rpl *r, const uint8_t dst[16], uint8_t *msg, size_t len)
{
    struct mip_stack *s = r->stack;
    struct mip_ip_tx tx;
    struct mip_pbuf *p;
    uint8_t *w;
    mip_status st;

    memset(&tx, 0, sizeof(tx));
    mip_addr_set6(&tx.dst, dst);
    tx.proto = 58;
    tx.netif = (dst[0] == 0xFEu || dst[0] == 0xFFu) ? r->netif : MIP_NETIF_ANY;
    st = mip_ip_select_src(s, &tx.dst, r->netif, &tx.src);
    if (st != MIP_OK)
        return st;
    msg[2] = 0u;
    msg[3] = 0u;
    mip_wr16(msg + 2, mip_cksum_finish(mip_cksum_add(
                          mip_cksum_pseudo6(tx.src.bytes, dst, 58, (uint32_t)len), msg, len)));
    p = mip_pbuf_alloc(&s->pool, MIP_PBUF_HEADROOM);
    if (p == NULL || (w = mip_pbuf_put(p, (uint16_t)len)) == NULL) {
        mip_pbuf_free(&s->pool, p);
        return MIP_ERR_NOBUFS;
    }
    memcpy(w, msg, len);
    return mip_ip_output(s, &tx, p);
}

/* The route lifetime of the DODAG's configuration, capped (rpl_down.h). */
static uint32_t lifetime_ms(uint8_t units, uint16_t unit_s)
{
    uint32_t sec = (uint32_t)units * unit_s;

    if (units == 0xFFu || sec > MIP_RPL_LIFETIME_CAP_S)
        sec = MIP_RPL_LIFETIME_CAP_S;
    return sec * 1000u;
}

/* --- a node's DAOs ---------------------------------------------------------- */

/* DAOSequences come from one counter, our own DAOs' and the children's we
 * send on alike, so a DAO-ACK names exactly one of them. */
static uint8_t dao_seq_issue(struct mip_rpl_dao_tx *d)
{
    d->fwd_seq = mip_rpl_seq_next(d->fwd_seq);
    return d->fwd_seq;
}

void rpl_down_reset(struct mip_rpl *r, bool table)
{
    uint8_t seq = r->down.dao.seq, path = r->down.dao.path_seq, iid[8];
    uint8_t fwd = r->down.dao.fwd_seq;
    bool had = r->down.dao.has_parent && !table;

    memcpy(iid, r->down.dao.parent_iid, 8);
    memset(&r->down.dao, 0, sizeof(r->down.dao));
    /* a detached node still owes its old parent a No-Path DAO when it
     * joins elsewhere */
    r->down.dao.has_parent = had;
    memcpy(r->down.dao.parent_iid, iid, 8);
    /* the counters go on (a restarted counter would look stale to the
     * root); a node's first starts at the lollipop's linear start */
    r->down.dao.seq = seq != 0u ? seq : RPL_LOLLIPOP_INIT;
    r->down.dao.path_seq = path != 0u ? path : RPL_LOLLIPOP_INIT;
    r->down.dao.fwd_seq = fwd != 0u ? fwd : r->down.dao.seq;
#if MIP_RPL_DOWN_MAX > 0
    if (table)
        memset(r->down.node, 0, sizeof(r->down.node));
#else
    (void)table;
#endif
}

static void no_path_send(struct mip_rpl *r);

/* Our own DTSN goes up (RFC 6550 9.6) and our DIO Trickle timer restarts
 * at Imin so the children hear it soon, not an hour later (the RFC leaves
 * the timing open; Contiki-NG resets its DIO timer the same way). */
static void dtsn_increment(struct mip_rpl *r, mip_time_t now)
{
    r->dtsn = mip_rpl_seq_next(r->dtsn);
    if (!r->cfg.leaf)
        rpl_trickle_reset(r, now);
}

static void dao_schedule(struct mip_rpl *r, mip_time_t now)
{
    struct mip_rpl_dao_tx *d = &r->down.dao;
    const uint32_t half = MIP_RPL_DAO_DELAY_MS / 2u;

    d->waiting = false;
    d->tries = 0u;
    d->due = true;
    d->at = now + half + mip_rng_below(&r->stack->rng, half + 1u);
}

void rpl_down_parent_changed(struct mip_rpl *r, mip_time_t now)
{
    struct mip_rpl_dao_tx *d = &r->down.dao;

    if (r->state != MIP_RPL_JOINED || r->mop == MIP_RPL_MOP_NO_DOWN)
        return;
    d->parent_dtsn_known = false;
    d->path_seq = mip_rpl_seq_next(d->path_seq);
    /* storing: the parent we leave drops its route to us now rather than
     * at the end of its lifetime (a No-Path DAO, RFC 6550 9.8), and the
     * routers of the new path learn our sub-DODAG's routes: our DTSN goes
     * up, so each child sends its DAO again through us (9.6; we send no
     * aggregated DAOs, so the children's own must travel) */
    if (RPL_STORING(r) && d->has_parent &&
        (r->preferred < 0 || memcmp(r->neigh[r->preferred].iid, d->parent_iid, 8) != 0)) {
        no_path_send(r);
        d->has_parent = false;
        dtsn_increment(r, now);
    }
    dao_schedule(r, now);
}

void rpl_down_parent_dtsn(struct mip_rpl *r, uint8_t dtsn, mip_time_t now)
{
    struct mip_rpl_dao_tx *d = &r->down.dao;
    bool newer = d->parent_dtsn_known && mip_rpl_seq_newer(dtsn, d->parent_dtsn);

    if (r->state != MIP_RPL_JOINED || r->mop == MIP_RPL_MOP_NO_DOWN)
        return;
    d->parent_dtsn = dtsn;
    d->parent_dtsn_known = true;
    if (!newer)
        return;
    /* 9.6: a DAO parent's DTSN went up: a DAO from us, and in
     * non-storing mode our DTSN goes up too so our sub-DODAG sends its
     * DAOs to the root; in storing mode as well, for we do not aggregate
     * our children's routes into our own DAO */
    rpl_down_count(r, MIP_RPL_DOWN_STAT_dtsn_triggered);
    dtsn_increment(r, now);
    d->path_seq = mip_rpl_seq_next(d->path_seq);
    dao_schedule(r, now);
}


/* Our DAO: one Target (our global address), one Transit (our parent's
 * global address in non-storing mode). */
static size_t dao_build(struct mip_rpl *r, uint8_t *buf, size_t cap, bool no_path)
{
    struct mip_rpl_dao dao;
    struct mip_rpl_target t;
    struct mip_rpl_transit tr;
    size_t n = 0, k = 0;

    memset(&dao, 0, sizeof(dao));
    dao.instance = r->instance;
    dao.k = true;
    dao.seq = r->down.dao.seq;
    memset(&t, 0, sizeof(t));
    t.prefix_len = 128u;
    memset(&tr, 0, sizeof(tr));
    tr.path_seq = r->down.dao.path_seq;
    tr.path_lifetime = no_path ? 0u : r->conf.def_lifetime;
    if (!rpl_own_global(r, t.prefix))
        return 0;
    if (RPL_NON_STORING(r)) {
        /* the parent's global address: the DODAG's prefix and the IID of
         * its link-local address (its address by SLAAC, RFC 4862) */
        if (r->preferred < 0)
            return 0;
        tr.has_parent = true;
        memcpy(tr.parent, r->has_pio ? r->pio.prefix : r->dodagid, 8);
        memcpy(tr.parent + 8, r->neigh[r->preferred].iid, 8);
    }
    if (mip_rpl_emit_dao(&dao, buf, cap, &n) != MIP_OK ||
        mip_rpl_emit_target(&t, buf + n, cap - n, &k) != MIP_OK)
        return 0;
    n += k;
    if (mip_rpl_emit_transit(&tr, buf + n, cap - n, &k) != MIP_OK)
        return 0;
    return n + k;
}

void rpl_linklocal(const uint8_t iid[8], uint8_t dst[16])
{
    memset(dst, 0, 16);
    dst[0] = 0xFEu;
    dst[1] = 0x80u;
    memcpy(dst + 8, iid, 8);
}

static void dao_send(struct mip_rpl *r)
{
    uint8_t msg[DAO_MSG_MAX], dst[16];
    size_t len = dao_build(r, msg, sizeof msg, false);

    if (len == 0u)
        return;
    if (RPL_NON_STORING(r)) {
        memcpy(dst, r->dodagid, 16);       /* RFC 6550 9.7: to the root */
    } else {
        if (r->preferred < 0)
            return;
        rpl_linklocal(r->neigh[r->preferred].iid, dst);   /* 9.8: to the parent */
        memcpy(r->down.dao.parent_iid, r->neigh[r->preferred].iid, 8);
        r->down.dao.has_parent = true;
    }
    if (rpl_icmp_send(r, dst, msg, len) == MIP_OK)
        r->stats[MIP_RPL_STAT_dao_tx]++;
}

/* Storing: a No-Path DAO (our Target, Path Lifetime 0) to the parent we
 * left, without asking for a DAO-ACK: it is a courtesy; the route there
 * also ends with its lifetime. */
static void no_path_send(struct mip_rpl *r)
{
    uint8_t msg[DAO_MSG_MAX], dst[16];
    size_t len;

    r->down.dao.seq = dao_seq_issue(&r->down.dao);
    len = dao_build(r, msg, sizeof msg, true);
    if (len == 0u)
        return;
    msg[5] = 0u;                           /* K clear (RFC 6550 6.4.1) */
    rpl_linklocal(r->down.dao.parent_iid, dst);
    if (rpl_icmp_send(r, dst, msg, len) == MIP_OK)
        rpl_down_count(r, MIP_RPL_DOWN_STAT_no_path_tx);
}

static uint32_t dao_poll(struct mip_rpl *r, mip_time_t now)
{
    struct mip_rpl_dao_tx *d = &r->down.dao;
    uint32_t next = MIP_POLL_IDLE;

    if (r->state != MIP_RPL_JOINED)
        return MIP_POLL_IDLE;
    if (d->refresh && mip_time_reached(now, d->refresh_at)) {
        d->refresh = false;
        d->path_seq = mip_rpl_seq_next(d->path_seq);
        d->due = true;
        d->waiting = false;
        d->at = now;
    }
    if (d->due && mip_time_reached(now, d->at)) {
        uint32_t life = lifetime_ms(r->conf.def_lifetime, r->conf.lifetime_unit);
        d->due = false;
        d->seq = dao_seq_issue(d);
        d->tries = 1u;
        d->waiting = true;
        d->at = now + MIP_RPL_DAO_ACK_TIMEOUT_MS +
                mip_rng_below(&r->stack->rng, MIP_RPL_DAO_ACK_TIMEOUT_MS / 2u + 1u);
        /* renewed at 1/2..3/4 of the lifetime */
        d->refresh = true;
        d->refresh_at = now + life / 2u + mip_rng_below(&r->stack->rng, life / 4u + 1u);
        dao_send(r);
    } else if (d->waiting && mip_time_reached(now, d->at)) {
        if (d->tries > MIP_RPL_DAO_RETRIES) {
            /* the route may be missing at the root (every copy lost in a
             * burst, or our DAO-ACK had no way down yet): a new round
             * after a pause as long as the round's longest wait, up to
             * twice that at random, rather than at the refresh */
            uint32_t pause = MIP_RPL_DAO_ACK_TIMEOUT_MS << MIP_RPL_DAO_RETRIES;
            mip_time_t again = now + pause + mip_rng_below(&r->stack->rng, pause + 1u);
            d->waiting = false;
            if (!d->refresh || mip_time_before(again, d->refresh_at)) {
                d->refresh = true;
                d->refresh_at = again;
            }
            rpl_down_count(r, MIP_RPL_DOWN_STAT_dao_gave_up);
        } else {
            /* the same DAOSequence: a late DAO-ACK still matches. Every
             * wait has jitter (up to half again): nodes that joined
             * together would otherwise resend in the same instants, and
             * the collisions that lost the first copies would lose every
             * retry */
            uint32_t wait = MIP_RPL_DAO_ACK_TIMEOUT_MS << d->tries;
            d->at = now + wait + mip_rng_below(&r->stack->rng, wait / 2u + 1u);
            d->tries++;
            rpl_down_count(r, MIP_RPL_DOWN_STAT_dao_retries);
            dao_send(r);
        }
    }
    if (d->due || d->waiting)
        next = mip_next_delay(next, now, d->at);
    if (d->refresh)
        next = mip_next_delay(next, now, d->refresh_at);
    return next;
}

#if MIP_RPL_DOWN_MAX > 0
static void dao_ack_send(struct mip_rpl *r, const uint8_t dst[16], uint8_t seq, uint8_t status);
#endif

static void dao_ack_input(struct mip_rpl *r, const struct mip_rpl_dao_ack *a, mip_time_t now)
{
    struct mip_rpl_dao_tx *d = &r->down.dao;

    r->stats[MIP_RPL_STAT_dao_ack_rx]++;
#if RPL_STORING_ROUTER
    {
        /* storing: the DAO-ACK of a child's DAO we sent on goes back to
         * the child, with the child's own sequence (rpl_root.c) */
        uint8_t child[16], seq_in;
        if (a->instance == r->instance && !(d->waiting && a->seq == d->seq) &&
            rpl_down_forward_acked(r, a->seq, child, &seq_in, now)) {
            rpl_down_count(r, MIP_RPL_DOWN_STAT_dao_ack_relayed);
            dao_ack_send(r, child, seq_in, a->status);
            return;
        }
    }
#else
    (void)now;
#endif
    if (!d->waiting || a->seq != d->seq || a->instance != r->instance) {
        rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_dao_ack_unexpected);
        return;
    }
    d->waiting = false;
    rpl_down_count(r, a->status >= DAO_ACK_REJECT ? MIP_RPL_DOWN_STAT_dao_rejected
                                                  : MIP_RPL_DOWN_STAT_dao_acked);
}

/* --- DAOs received: the non-storing root, storing routers ------------------- */

#if MIP_RPL_DOWN_MAX > 0
static void dao_ack_send(struct mip_rpl *r, const uint8_t dst[16], uint8_t seq, uint8_t status)
{
    struct mip_rpl_dao_ack a;
    uint8_t msg[MIP_RPL_DAO_ACK_LEN + 16u];
    size_t n = 0;

    memset(&a, 0, sizeof(a));
    a.instance = r->instance;
    a.seq = seq;
    a.status = status;
    if (mip_rpl_emit_dao_ack(&a, msg, sizeof msg, &n) != MIP_OK)
        return;
    if (rpl_icmp_send(r, dst, msg, n) == MIP_OK)
        r->stats[MIP_RPL_STAT_dao_ack_tx]++;
}

/*
 * A DAO into the table: each group of Targets followed by its Transit
 * option (RFC 6550 9.7 non-storing at the root: the Transit's parent
 * address; 9.8 storing at any router: the child it came from, `via`).
 * Returns the DAO-ACK status: 0, or DAO_ACK_REJECT when the table had no
 * room for one of them. Malformed options end it (counted; no DAO-ACK,
 * nothing sent on: *malformed).
 */
static uint8_t table_dao(struct mip_rpl *r, const struct mip_rpl_msg *m, const uint8_t *via,
                         int seq_out, mip_time_t now, bool *malformed)
{
    uint8_t targets[DAO_TARGETS_MAX][16];
    unsigned nt = 0, k;
    bool after_transit = false;
    uint8_t status = 0u;
    size_t off = 0;
    struct mip_rpl_opt o;
    mip_status st;

    while ((st = mip_rpl_opt_next(m->opts, m->opts_len, &off, &o)) == MIP_OK) {
        if (o.type == MIP_RPL_OPT_TARGET) {
            struct mip_rpl_target t;
            if (mip_rpl_opt_target(&o, &t) != MIP_OK)
                break;
            if (after_transit)
                nt = 0;
            after_transit = false;
            /* host routes only: a /128 Target (docs/RPL.md) */
            if (t.prefix_len == 128u && nt < DAO_TARGETS_MAX)
                memcpy(targets[nt++], t.prefix, 16);
        } else if (o.type == MIP_RPL_OPT_TRANSIT) {
            struct mip_rpl_transit tr;
            if (mip_rpl_opt_transit(&o, &tr) != MIP_OK || (via == NULL && !tr.has_parent))
                break;
            after_transit = true;
            for (k = 0; k < nt; k++) {
                uint32_t life = tr.path_lifetime == 0u
                                    ? 0u
                                    : lifetime_ms(tr.path_lifetime, r->conf.lifetime_unit);
                if (!rpl_down_route_update(r, targets[k], via != NULL ? via : tr.parent,
                                           tr.path_seq, life, now))
                    status = DAO_ACK_REJECT;
#if MIP_CONF_RPL_STORING
                else if (seq_out >= 0 && life != 0u)
                    rpl_down_route_pending(r, targets[k], m->u.dao.seq, (uint8_t)seq_out, now);
#else
                (void)seq_out;
#endif
            }
        }
    }
    *malformed = st != MIP_ERR_END;
    if (*malformed)
        rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_dao_malformed);
    return status;
}
#endif

#if RPL_STORING_ROUTER
/*
 * Storing mode (RFC 6550 9.8): a child's DAO, from its link-local address,
 * gives routes to its Targets through it; it is acknowledged hop by hop,
 * and its options go on to our parent in a DAO of ours (without K: the
 * child's own refreshes repair a loss above us), so every router up to the
 * root learns the routes.
 */
static void storing_dao(struct mip_rpl *r, const struct mip_ip_rx *rx,
                        const struct mip_rpl_msg *m, mip_time_t now)
{
    struct mip_rpl_dao dao;
    uint8_t msg[MIP_RPL_DAO_LEN + 160u], dst[16];
    bool malformed = false, on;
    uint8_t status;
    size_t n = 0;

    if (!(rx->src.bytes[0] == 0xFEu && (rx->src.bytes[1] & 0xC0u) == 0x80u)) {
        rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_dao_bad_src);
        return;
    }
    on = r->state == MIP_RPL_JOINED && r->preferred >= 0 && m->opts_len <= sizeof msg - 8u;
    memset(&dao, 0, sizeof(dao));
    dao.instance = r->instance;
    dao.k = on && m->u.dao.k;
    if (on)
        dao.seq = dao_seq_issue(&r->down.dao);
    status = table_dao(r, m, rx->src.bytes, dao.k ? (int)dao.seq : -1, now, &malformed);
    if (malformed)
        return;
    /* The root acknowledges at once. A router sends the DAO on with K
     * and acknowledges the child when its parent acknowledges it
     * (rpl_down_forward_acked), so the child's retries cover a loss
     * anywhere up to the root, not only on its own link (RFC 6550 9.8
     * leaves the DAO-ACK of a storing router open; Contiki-NG's
     * rpl-classic relays it so). A rejection is answered at once. */
    if (m->u.dao.k && (!dao.k || status != 0u))
        dao_ack_send(r, rx->src.bytes, m->u.dao.seq, status);
    if (!on)
        return;
    if (mip_rpl_emit_dao(&dao, msg, sizeof msg, &n) != MIP_OK || n + m->opts_len > sizeof msg)
        return;
    memcpy(msg + n, m->opts, m->opts_len);
    rpl_linklocal(r->neigh[r->preferred].iid, dst);
    if (rpl_icmp_send(r, dst, msg, n + m->opts_len) == MIP_OK)
        rpl_down_count(r, MIP_RPL_DOWN_STAT_dao_forwarded);
}
#endif

void rpl_down_input(struct mip_rpl *r, const struct mip_ip_rx *rx, const struct mip_rpl_msg *m,
                    mip_time_t now)
{
    if (m->code == MIP_RPL_CODE_DAO_ACK) {
        dao_ack_input(r, &m->u.dao_ack, now);
        return;
    }
    r->stats[MIP_RPL_STAT_dao_rx]++;
#if MIP_RPL_DOWN_MAX > 0
    if (m->u.dao.instance == r->instance &&
        (!m->u.dao.d || memcmp(m->u.dao.dodagid, r->dodagid, 16) == 0)) {
        bool malformed = false;
        uint8_t status;
        if (r->state == MIP_RPL_ROOT && RPL_NON_STORING(r)) {
            status = table_dao(r, m, NULL, -1, now, &malformed);
            if (!malformed && m->u.dao.k)
                dao_ack_send(r, rx->src.bytes, m->u.dao.seq, status);
            return;
        }
#if RPL_STORING_ROUTER
        if (RPL_STORING(r) &&
            (r->state == MIP_RPL_ROOT || (r->state == MIP_RPL_JOINED && !r->cfg.leaf))) {
            storing_dao(r, rx, m, now);
            return;
        }
#endif
    }
#else
    (void)rx;
    (void)now;
#endif
    rpl_down_count(r, MIP_RPL_DOWN_STAT_drop_dao_not_root);
}

uint32_t rpl_down_poll(struct mip_rpl *r, mip_time_t now)
{
    uint32_t next = dao_poll(r, now);
#if MIP_RPL_DOWN_MAX > 0
    uint32_t rest = rpl_down_table_poll(r, now);
    if (rest < next)
        next = rest;
#endif
    return next;
}
