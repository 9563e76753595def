/*
 * src/route/: routing protocols, on the floor above core beside tcp/ and
 * relay/. They may include core, mac, wire and base headers, and reach
 * core only through the routing driver table they register
 * (moteip/routing.h); core never includes them.
 *
 * rpl.c: the RPL (RFC 6550) node and root: DIS/DIO input and output,
 * joining, the neighbour table and its eviction rule, parent selection
 * through the objective function (rules in rpl_rules.c), the upward
 * default route, global and local repair. docs/RPL.md has the choices.
 */
#include "moteip/rpl.h"
#include "rpl_down.h"
#include "moteip/stack.h"
#include "moteip/routing.h"
#include "moteip/slaac.h"
#include "moteip/wire/rpl.h"
#include "moteip/wire/icmpv6.h"
#include "moteip/wire/bytes.h"
#include <string.h>

#define RPL_MSG_MAX   96u    /* DIO + DODAG conf + PIO = 76 bytes */
#define POISON_DIOS   3u     /* INFINITE_RANK DIOs sent on detaching */

static const uint8_t all_rpl_nodes[16] = {0xFF, 0x02, 0, 0, 0, 0, 0, 0,
                                          0, 0, 0, 0, 0, 0, 0, 0x1A};

/* Counters saturate (stats.h's rule); one function, not 28 inline copies. */
static void stat_inc(struct mip_rpl *r, enum mip_rpl_stat which)
{
    if (r->stats[which] != UINT32_MAX)
        r->stats[which]++;
}
#define STAT(r, n) stat_inc((r), MIP_RPL_STAT_##n)

static bool is_root(const struct mip_rpl *r)
{
#if MIP_CONF_RPL_ROOT
    return r->state == MIP_RPL_ROOT;
#else
    (void)r;
    return false;
#endif
}

static bool is_leaf(const struct mip_rpl *r)
{
    return r->cfg.leaf || !MIP_CONF_FORWARD;
}

/* Trickle's inconsistency (RFC 6206 4.2), counted when it restarted I;
 * and a fresh start: one call each rather than the arguments at every
 * place (rpl_down.h). */
void rpl_trickle_reset(struct mip_rpl *r, mip_time_t now)
{
    if (mip_rpl_trickle_reset(&r->trickle, r->conf.dio_int_min, &r->stack->rng, now))
        STAT(r, trickle_resets);
}

static void trickle_start(struct mip_rpl *r, mip_time_t now)
{
    mip_rpl_trickle_start(&r->trickle, r->conf.dio_int_min, &r->stack->rng, now);
}

static uint16_t min_hop(const struct mip_rpl *r)
{
    return r->conf.min_hop_rank_inc != 0u ? r->conf.min_hop_rank_inc
                                          : MIP_RPL_DEFAULT_MIN_HOP_RANK_INC;
}

/* --- sending -------------------------------------------------------------- */

static void send_dio(struct mip_rpl *r, const uint8_t *dst)
{
    uint8_t msg[RPL_MSG_MAX];
    struct mip_rpl_dio d;
    size_t n = 0, w;
    memset(&d, 0, sizeof(d));
    d.instance = r->instance;
    d.version = r->version;
    d.rank = r->rank;
    d.grounded = r->grounded;
    d.mop = r->mop;
    d.prf = r->prf;
    d.dtsn = r->dtsn;
    memcpy(d.dodagid, r->dodagid, 16);
    if (mip_rpl_emit_dio(&d, msg, sizeof(msg), &n) != MIP_OK)
        return;
    /* Every DIO carries the configuration and the prefix: a node joining
     * from any neighbour's DIO learns both (RFC 6550 6.7.6 lets a node
     * omit them; Contiki and RIOT send them too). */
    if (mip_rpl_emit_dodag_conf(&r->conf, msg + n, sizeof(msg) - n, &w) == MIP_OK)
        n += w;
    if (r->has_pio && mip_rpl_emit_prefix_info(&r->pio, msg + n, sizeof(msg) - n, &w) == MIP_OK)
        n += w;
    /* DIS and DIO go to a link-scoped address (ff02::1a or a neighbour's
     * fe80::), so the source is our link-local address (rpl_dao.c) */
    (void)rpl_icmp_send(r, dst != NULL ? dst : all_rpl_nodes, msg, n);
    STAT(r, dio_tx);
}

static void send_dis(struct mip_rpl *r)
{
    uint8_t msg[MIP_RPL_DIS_LEN];
    struct mip_rpl_dis d;
    size_t n;
    d.flags = 0;
    if (mip_rpl_emit_dis(&d, msg, sizeof(msg), &n) == MIP_OK) {
        (void)rpl_icmp_send(r, all_rpl_nodes, msg, n);
        STAT(r, dis_tx);
    }
}

/* --- neighbours and parents ------------------------------------------------ */

static struct mip_rpl_neigh *neigh_find(struct mip_rpl *r, const uint8_t iid[8])
{
    unsigned i;
    for (i = 0; i < MIP_RPL_NEIGH_MAX; i++)
        if (r->neigh[i].used && memcmp(r->neigh[i].iid, iid, 8) == 0)
            return &r->neigh[i];
    return NULL;
}

static uint16_t link_etx(const struct mip_rpl_neigh *n)
{
    return n->etx_samples ? n->etx : (uint16_t)MIP_RPL_ETX_GUESS;
}

static uint16_t rank_via(const struct mip_rpl *r, const struct mip_rpl_neigh *n)
{
    if (r->conf.ocp == MIP_RPL_OCP_OF0)
        return mip_rpl_of0_rank(n->rank, MIP_RPL_OF0_LINK_ETX, min_hop(r));
    return mip_rpl_mrhof_rank(n->rank, link_etx(n), min_hop(r));
}

/* What the OF minimises: OF0 the rank, MRHOF the path cost (RFC 6719
 * 3.2.2 compares path costs, not the ranks rounded up from them). */
static uint16_t cost_via(const struct mip_rpl *r, const struct mip_rpl_neigh *n)
{
    if (r->conf.ocp == MIP_RPL_OCP_OF0)
        return rank_via(r, n);
    return mip_rpl_mrhof_path_cost(n->rank, link_etx(n));
}

/* Whether n may be a parent now (RFC 6550 8.2.1-8.2.2): in our DODAG
 * version, heard since our last detach, a finite rank whose DAGRank is
 * below ours (the current preferred parent may have moved down: we follow
 * it, within MaxRankIncrease below), a usable link (MRHOF: ETX within
 * MAX_LINK_METRIC), and the rank through it within MaxRankIncrease of the
 * lowest rank we advertised in this version (8.2.2.4 rule 3). */
static bool candidate(const struct mip_rpl *r, int idx)
{
    const struct mip_rpl_neigh *n = &r->neigh[idx];
    uint16_t via;
    if (!n->used || n->version != r->version || n->epoch != r->epoch ||
        n->rank == MIP_RPL_INFINITE_RANK)
        return false;
    /* a link whose measured ETX passed MAX_LINK_METRIC is dead for either
     * OF (RFC 6719 3.1; OF0 has no rule of its own) */
    if (n->etx_samples != 0u && n->etx > MIP_RPL_MRHOF_MAX_LINK_METRIC)
        return false;
    if (r->rank != MIP_RPL_INFINITE_RANK && idx != r->preferred &&
        mip_rpl_dag_rank(n->rank, min_hop(r)) >= mip_rpl_dag_rank(r->rank, min_hop(r)))
        return false;
    via = rank_via(r, n);
    if (via == MIP_RPL_INFINITE_RANK)
        return false;
    if (r->conf.max_rank_inc != 0u && r->lowest_rank != MIP_RPL_INFINITE_RANK &&
        (uint32_t)via > (uint32_t)r->lowest_rank + r->conf.max_rank_inc)
        return false;
    return true;
}

static void detach(struct mip_rpl *r, mip_time_t now);

/* Picks the preferred parent by the objective function and sets the rank.
 * Hysteresis: MRHOF keeps the current parent unless another path costs
 * PARENT_SWITCH_THRESHOLD less (RFC 6719 3.2.2); OF0 keeps it on ties
 * (RFC 6552 4.2.1). Detaches when no candidate is left. */
static void select_parent(struct mip_rpl *r, mip_time_t now)
{
    int best = -1, cur = r->preferred;
    uint16_t best_cost = MIP_RPL_INFINITE_RANK, cur_cost = MIP_RPL_INFINITE_RANK, old = r->rank;
    unsigned i;
    if (is_root(r) || r->state == MIP_RPL_DETACHED)
        return;
    for (i = 0; i < MIP_RPL_NEIGH_MAX; i++) {
        uint16_t v;
        if (!candidate(r, (int)i))
            continue;
        v = cost_via(r, &r->neigh[i]);
        if ((int)i == cur)
            cur_cost = v;
        if (best < 0 || v < best_cost) {
            best = (int)i;
            best_cost = v;
        }
    }
    if (best < 0) {
        detach(r, now);
        return;
    }
    if (cur >= 0 && cur_cost != MIP_RPL_INFINITE_RANK && best != cur) {
        uint32_t margin = r->conf.ocp == MIP_RPL_OCP_OF0
                              ? (uint32_t)min_hop(r) * MIP_RPL_OF0_SWITCH_NUM / 2u
                              : MIP_RPL_MRHOF_SWITCH_THRESHOLD;
        if ((uint32_t)best_cost + margin > cur_cost) {
            best = cur;
            best_cost = cur_cost;
        }
    }
    if (best != cur)
        STAT(r, parent_changes);
    r->preferred = (int8_t)best;
    r->rank = is_leaf(r) ? (uint16_t)MIP_RPL_INFINITE_RANK : rank_via(r, &r->neigh[best]);
    if (best != cur)
        rpl_down_parent_changed(r, now);     /* a DAO for the new path */
    if (!is_leaf(r) && r->rank < r->lowest_rank)
        r->lowest_rank = r->rank;
    /* Our advertised DAGRank changed or we moved to another parent: our
     * DIOs are news (an inconsistency for Trickle; RFC 6550 8.3 leaves
     * which changes count to the implementation). */
    if (!is_leaf(r) &&
        (best != cur || mip_rpl_dag_rank(old, min_hop(r)) != mip_rpl_dag_rank(r->rank, min_hop(r))))
        rpl_trickle_reset(r, now);
}

/* Leaves the DODAG (RFC 6550 8.2.2.5): poison with INFINITE_RANK DIOs so
 * children drop us, forget which neighbours we heard (epoch), solicit. */
static void detach(struct mip_rpl *r, mip_time_t now)
{
    bool was = r->state == MIP_RPL_JOINED;
    unsigned i;
    rpl_down_reset(r, false);
    r->preferred = -1;
    r->state = MIP_RPL_DETACHED;
    r->epoch++;
    for (i = 0; i < MIP_RPL_NEIGH_MAX; i++)
        r->neigh[i].etx_samples = 0;
    r->dis_sent = 0;
    r->dis_ms = r->cfg.dis_delay_ms != 0u ? r->cfg.dis_delay_ms : 1u;
    r->dis_at = now + mip_rng_below(&r->stack->rng, r->dis_ms);
    if (!was)
        return;
    STAT(r, detaches);
    if (!is_leaf(r) && r->rank != MIP_RPL_INFINITE_RANK) {
        r->poison_left = POISON_DIOS;
        r->rank = MIP_RPL_INFINITE_RANK;
        trickle_start(r, now);
    }
    r->rank = MIP_RPL_INFINITE_RANK;
}

/* A slot for a new neighbour whose DIO offers `rank`: a free one; else the
 * entry with the worst rank that is neither the preferred parent nor a
 * working link (an ACK within parent_timeout, or ever when no timeout is
 * set), of a stale epoch or version first, and only when the newcomer is
 * better. A flood of forged DIOs can push out only neighbours we are not
 * using; each refusal is counted. */
static struct mip_rpl_neigh *neigh_slot(struct mip_rpl *r, uint16_t rank, mip_time_t now)
{
    struct mip_rpl_neigh *victim = NULL;
    uint32_t worst = 0;
    unsigned i;
    for (i = 0; i < MIP_RPL_NEIGH_MAX; i++) {
        struct mip_rpl_neigh *n = &r->neigh[i];
        uint32_t score;
        if (!n->used)
            return n;
        if ((int)i == r->preferred)
            continue;
        if (n->etx_samples != 0u && n->etx <= MIP_RPL_MRHOF_MAX_LINK_METRIC &&
            (r->cfg.parent_timeout_ms == 0u ||
             (uint32_t)(now - n->acked) < r->cfg.parent_timeout_ms))
            continue;
        /* stale entries score above any live rank */
        score = (n->epoch != r->epoch || n->version != r->version) ? 0x20000u
                                                                   : (uint32_t)n->rank;
        if (victim == NULL || score > worst) {
            victim = n;
            worst = score;
        }
    }
    if (victim == NULL || (worst <= 0xFFFFu && worst <= rank)) {
        STAT(r, drop_neigh_full);
        return NULL;
    }
    memset(victim, 0, sizeof(*victim));
    return victim;
}

/* --- the DODAG ------------------------------------------------------------- */

static void adopt_prefix(struct mip_rpl *r, const struct mip_rpl_prefix_info *pi,
                         mip_time_t now)
{
    r->pio = *pi;
    r->has_pio = true;
    /* SLAAC from the PIO (RFC 6550 6.7.10 A flag, RFC 4862 5.5.3): the
     * prefix and the IID of our link-local address, which comes from the
     * link-layer address, so IPHC elides it; no on-link route (L is clear
     * in a RPL network). Refusals are slaac.c's, counted there. */
    if (pi->flags & MIP_RPL_PIO_A)
        (void)mip_slaac_configure(r->stack, r->netif, pi->prefix, pi->prefix_len, pi->valid_s,
                                  pi->preferred_s, now);
}

static void join(struct mip_rpl *r, const struct mip_rpl_dio *d,
                 const struct mip_rpl_dodag_conf *conf)
{
    r->state = MIP_RPL_JOINED;
    r->instance = d->instance;
    r->version = d->version;
    r->mop = d->mop;
    r->prf = d->prf;
    r->grounded = d->grounded;
    r->dtsn = 0;
    memcpy(r->dodagid, d->dodagid, 16);
    r->conf = *conf;
    r->rank = MIP_RPL_INFINITE_RANK;
    r->lowest_rank = MIP_RPL_INFINITE_RANK;
    r->preferred = -1;
    r->poison_left = 0;
    STAT(r, joins);
}

/* The DODAG configuration of our own config: what a root announces, and
 * what a node assumes for a DIO without the option (RFC 6550 6.7.6 lets
 * it be left out; mip_rpl_config_default's values are RFC 6550 17's). */
static void conf_default(const struct mip_rpl *r, struct mip_rpl_dodag_conf *c)
{
    memset(c, 0, sizeof(*c));
    c->dio_int_doublings = r->cfg.dio_int_doublings;
    c->dio_int_min = r->cfg.dio_int_min;
    c->dio_redundancy = r->cfg.dio_redundancy;
    c->min_hop_rank_inc = r->cfg.min_hop_rank_inc;
    c->max_rank_inc = r->cfg.max_rank_inc;
    c->ocp = r->cfg.ocp;
    c->def_lifetime = r->cfg.def_lifetime;
    c->lifetime_unit = r->cfg.lifetime_unit;
}

static void dio_input(struct mip_rpl *r, const uint8_t src[16], const struct mip_rpl_msg *m,
                      mip_time_t now)
{
    const struct mip_rpl_dio *d = &m->u.dio;
    struct mip_rpl_dodag_conf conf;
    struct mip_rpl_prefix_info pio;
    struct mip_rpl_opt o;
    struct mip_rpl_neigh *n;
    bool has_conf = false, has_pio = false, same;
    size_t off = 0;
    STAT(r, dio_rx);
    while (mip_rpl_opt_next(m->opts, m->opts_len, &off, &o) == MIP_OK) {
        mip_status st = MIP_OK;
        if (o.type == MIP_RPL_OPT_DODAG_CONF) {
            st = mip_rpl_opt_dodag_conf(&o, &conf);
            has_conf = st == MIP_OK;
        } else if (o.type == MIP_RPL_OPT_PREFIX_INFO) {
            st = mip_rpl_opt_prefix_info(&o, &pio);
            has_pio = st == MIP_OK;
        }
        if (st != MIP_OK) {
            STAT(r, drop_malformed);
            return;
        }
    }
    if (!has_conf)
        conf_default(r, &conf);
    if (d->mop != r->cfg.mop) {
        STAT(r, drop_mop);
        return;
    }
    if (conf.ocp != MIP_RPL_OCP_OF0 && conf.ocp != MIP_RPL_OCP_MRHOF) {
        STAT(r, drop_ocp);
        return;
    }
    /* no rank is below the root's (RFC 6550 3.5.1: ROOT_RANK is
     * MinHopRankIncrease); 0 or a MinHopRankIncrease of 0 is nonsense */
    if (conf.min_hop_rank_inc == 0u || d->rank < conf.min_hop_rank_inc || conf.auth) {
        STAT(r, drop_rank);
        return;
    }
    if (d->instance != (r->state == MIP_RPL_DETACHED ? r->cfg.instance : r->instance)) {
        STAT(r, drop_unsupported);
        return;
    }
    same = memcmp(d->dodagid, r->dodagid, 16) == 0;
    if (is_root(r)) {
        /* Trickle: a DIO of our DODAG version is consistent (8.3) */
        if (same && d->version == r->version && d->rank != MIP_RPL_INFINITE_RANK &&
            r->trickle.c < 0xFFu)
            r->trickle.c++;
        return;
    }
    if (r->state == MIP_RPL_DETACHED) {
        if (d->rank == MIP_RPL_INFINITE_RANK)
            return;
        /* Rejoining the DODAG version we left: only within MaxRankIncrease
         * of the lowest rank we had in it (kept across the detach). A DIO
         * that cannot give such a rank is not joined at all: joining and
         * detaching again at once would restart the DIS timer on every
         * DIO, and each multicast DIS resets the neighbours' Trickle. */
        uint16_t keep = MIP_RPL_INFINITE_RANK;
        if (same && d->version == r->version && r->lowest_rank != MIP_RPL_INFINITE_RANK) {
            struct mip_rpl_neigh probe;
            keep = r->lowest_rank;
            memset(&probe, 0, sizeof(probe));
            probe.rank = d->rank;
            if (r->conf.max_rank_inc != 0u &&
                (uint32_t)rank_via(r, &probe) > (uint32_t)keep + r->conf.max_rank_inc) {
                STAT(r, drop_rank);
                return;
            }
        }
        /* one join for both (join() leaves the epoch alone) */
        join(r, d, &conf);
        r->lowest_rank = keep;
        if (!is_leaf(r))
            trickle_start(r, now);
    } else if (!same) {
        STAT(r, drop_other_dodag);
        return;
    } else if (d->version != r->version) {
        if (!mip_rpl_seq_newer(d->version, r->version)) {
            STAT(r, drop_old_version);
            return;
        }
        /* Global repair (8.2.2.1): a new version; neighbours of the old
         * one stop being candidates until they advertise the new one. */
        r->version = d->version;
        r->conf = conf;
        r->rank = MIP_RPL_INFINITE_RANK;
        r->lowest_rank = MIP_RPL_INFINITE_RANK;
        r->preferred = -1;
        STAT(r, global_repairs);
        if (!is_leaf(r))
            rpl_trickle_reset(r, now);
    }
    if (has_pio)
        adopt_prefix(r, &pio, now);
    n = neigh_find(r, src + 8);
    if (n == NULL) {
        if (d->rank == MIP_RPL_INFINITE_RANK)
            return;
        n = neigh_slot(r, d->rank, now);
        if (n == NULL) {
            if (r->preferred < 0)
                select_parent(r, now);
            /* 8.3: a DIO of our DODAG version from a neighbour we have no
             * room for is still consistent: it changes nothing for us.
             * Not counted, a table smaller than the neighbourhood (8 of
             * 9.5 neighbours in rpl-convergence) left Trickle's
             * suppression short of RFC 6206's k per interval. */
            if (r->state == MIP_RPL_JOINED && d->version == r->version && r->trickle.c < 0xFFu)
                r->trickle.c++;
            return;
        }
        n->used = 1;
        memcpy(n->iid, src + 8, 8);
        n->etx = MIP_RPL_ETX_GUESS;
        n->acked = now;
    }
    {
        uint16_t old_rank = r->rank;
        int8_t old_pref = r->preferred;
        bool consistent = n->version == d->version && n->rank == d->rank &&
                          n->epoch == r->epoch;
        n->version = d->version;
        n->rank = d->rank;
        n->epoch = r->epoch;
        n->heard = now;
        select_parent(r, now);
        /* RFC 6550 9.6: our DAO parent asks for DAOs by its DTSN */
        if (r->preferred >= 0 && n == &r->neigh[r->preferred])
            rpl_down_parent_dtsn(r, d->dtsn, now);
        /* 8.3: a DIO that changes nothing for us is consistent */
        if (consistent && r->state == MIP_RPL_JOINED && old_rank == r->rank &&
            old_pref == r->preferred && d->rank != MIP_RPL_INFINITE_RANK && r->trickle.c < 0xFFu)
            r->trickle.c++;
    }
}

static void dis_input(struct mip_rpl *r, const uint8_t src[16], bool mcast,
                      const struct mip_rpl_msg *m, mip_time_t now)
{
    struct mip_rpl_opt o;
    size_t off = 0;
    bool match = true;
    STAT(r, dis_rx);
    while (mip_rpl_opt_next(m->opts, m->opts_len, &off, &o) == MIP_OK) {
        struct mip_rpl_solicited so;
        if (o.type != MIP_RPL_OPT_SOLICITED)
            continue;
        if (mip_rpl_opt_solicited(&o, &so) != MIP_OK) {
            STAT(r, drop_malformed);
            return;
        }
        /* 8.3: reset only when every predicate with its flag set matches */
        if (((so.flags & MIP_RPL_SOL_I) && so.instance != r->instance) ||
            ((so.flags & MIP_RPL_SOL_D) && memcmp(so.dodagid, r->dodagid, 16) != 0) ||
            ((so.flags & MIP_RPL_SOL_V) && so.version != r->version))
            match = false;
    }
    if ((r->state != MIP_RPL_JOINED && !is_root(r)) || is_leaf(r) || !match)
        return;
    if (!mcast) {
        send_dio(r, src);        /* 8.3: unicast DIS, unicast DIO, no reset */
        return;
    }
    rpl_trickle_reset(r, now);
}

/* --- the routing driver ------------------------------------------------------ */

static void rpl_icmp_input(void *ctx, struct mip_stack *s, const struct mip_ip_rx *rx,
                           const uint8_t *msg, size_t len)
{
    struct mip_rpl *r = ctx;
    struct mip_rpl_msg m;
    mip_time_t now = s->now;
    mip_status st = mip_rpl_parse(msg, len, &m);
    if (st == MIP_ERR_UNSUPPORTED) {
        STAT(r, drop_unsupported);
        return;
    }
    if (st != MIP_OK) {
        STAT(r, drop_malformed);
        return;
    }
    /* DIS and DIO are link-local control (RFC 6550 6: a link-local
     * source; 9.? DAOs may come from global addresses) */
    if ((m.code == MIP_RPL_CODE_DIO || m.code == MIP_RPL_CODE_DIS) &&
        !(rx->src.bytes[0] == 0xFE && (rx->src.bytes[1] & 0xC0u) == 0x80u)) {
        STAT(r, drop_bad_src);
        return;
    }
    if (rx->netif != r->netif) {
        STAT(r, drop_bad_src);
        return;
    }
    switch (m.code) {
    case MIP_RPL_CODE_DIO:
        dio_input(r, rx->src.bytes, &m, now);
        break;
    case MIP_RPL_CODE_DIS:
        dis_input(r, rx->src.bytes, rx->dst_multicast, &m, now);
        break;
    default:
        /* DAO / DAO-ACK: the downward part (rpl_dao.c) */
        rpl_down_input(r, rx, &m, now);
        break;
    }
}

static mip_status rpl_next_hop(void *ctx, const struct mip_stack *s, const struct mip_addr *dst,
                               uint8_t *netif, struct mip_addr *nexthop)
{
    const struct mip_rpl *r = ctx;
    const struct mip_rpl_neigh *p;
    mip_status st;
    /* A node below us (rpl_root.c): a storing route, or a non-storing
     * root's, whose source route the packet hooks put on. Asked before the
     * table: a DAO's target is a /128, more specific than any table route
     * but a host route (longest match), and a border router's on-link mesh
     * prefix would otherwise send a storing root's datagrams to nodes that
     * are not its neighbours. */
    if (dst->family == MIP_AF_INET6 && rpl_down_next_hop(r, dst->bytes, nexthop, s->now)) {
        *netif = r->netif;
        return MIP_OK;
    }
    st = mip_route_table_lookup(s, dst, netif, nexthop);
    if (st == MIP_OK || r->state != MIP_RPL_JOINED || r->preferred < 0 ||
        dst->family != MIP_AF_INET6 || dst->bytes[0] == 0xFF ||
        (dst->bytes[0] == 0xFE && (dst->bytes[1] & 0xC0u) == 0x80u))
        return st;
    /* the upward default route (RFC 6550 9: via the preferred parent) */
    p = &r->neigh[r->preferred];
    nexthop->family = MIP_AF_INET6;
    rpl_linklocal(p->iid, nexthop->bytes);
    *netif = r->netif;
    return MIP_OK;
}

static void rpl_link_report(void *ctx, struct mip_stack *s, const struct mip_link_report *lr,
                            mip_time_t now)
{
    struct mip_rpl *r = ctx;
    struct mip_rpl_neigh *n;
    (void)s;
    if (lr->netif != r->netif || lr->outcome == MIP_LINK_TX_OTHER ||
        (n = neigh_find(r, lr->iid)) == NULL)
        return;
    n->etx = mip_rpl_etx_update(n->etx, n->etx_samples, lr->outcome == MIP_LINK_TX_OK,
                                lr->retries);
    if (n->etx_samples < 0xFFu)
        n->etx_samples++;
    if (lr->outcome == MIP_LINK_TX_OK) {
        n->acked = now;
        n->heard = now;
    }
    if (r->state == MIP_RPL_JOINED)
        select_parent(r, now);
}

static uint32_t rpl_poll(void *ctx, struct mip_stack *s, mip_time_t now)
{
    struct mip_rpl *r = ctx;
    uint32_t next = rpl_down_poll(r, now);
    unsigned i;
    (void)s;
    /* neighbours not heard from within parent_timeout_ms are forgotten */
    if (r->cfg.parent_timeout_ms != 0u) {
        bool lost = false;
        for (i = 0; i < MIP_RPL_NEIGH_MAX; i++) {
            struct mip_rpl_neigh *n = &r->neigh[i];
            if (!n->used)
                continue;
            if ((uint32_t)(now - n->heard) >= r->cfg.parent_timeout_ms) {
                if ((int)i == r->preferred) {
                    r->preferred = -1;
                    lost = true;
                }
                memset(n, 0, sizeof(*n));
            } else {
                /* an ACK older than the timeout is as good as none: bring
                 * the stamp forward so that it is never compared after
                 * half the clock's wrap (neigh_slot) */
                if ((uint32_t)(now - n->acked) >= r->cfg.parent_timeout_ms)
                    n->acked = now - r->cfg.parent_timeout_ms;
                next = mip_next_delay(next, now, n->heard + r->cfg.parent_timeout_ms);
            }
        }
        if (lost)
            select_parent(r, now);
    }
    if (r->state == MIP_RPL_DETACHED) {
        if (r->dis_sent < r->cfg.dis_max) {
            if (mip_time_reached(now, r->dis_at)) {
                send_dis(r);
                r->dis_sent++;
                r->dis_ms = r->dis_ms >= r->cfg.dis_max_ms / 2u ? r->cfg.dis_max_ms
                                                                : r->dis_ms * 2u;
                r->dis_at = now + r->dis_ms;
            }
            if (r->dis_sent < r->cfg.dis_max)
                next = mip_next_delay(next, now, r->dis_at);
        }
        if (r->poison_left == 0u)
            return next;
    } else if (is_leaf(r)) {
        return next;
    }
    {
        /* poisoning DIOs are never suppressed (8.2.2.5) */
        uint8_t k = r->poison_left > 0u ? 0u : r->conf.dio_redundancy;
        int fire = mip_rpl_trickle_poll(&r->trickle, r->conf.dio_int_min,
                                        r->conf.dio_int_doublings, k, &r->stack->rng, now,
                                        &next);
        if (fire > 0) {
            send_dio(r, NULL);
            if (r->poison_left > 0u)
                r->poison_left--;
        }
    }
    return next;
}

static const struct mip_routing_ops rpl_ops = {
    "rpl", rpl_next_hop, rpl_poll, rpl_link_report, rpl_icmp_input, rpl_down_rx,
    rpl_down_forward, rpl_down_output, MIP_ROUTING_RPL_EXT, NULL
};

/* --- the API ------------------------------------------------------------------ */

void mip_rpl_config_default(struct mip_rpl_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->mop = MIP_CONF_RPL_NON_STORING ? MIP_RPL_MOP_NON_STORING : MIP_RPL_MOP_STORING;
    cfg->ocp = MIP_RPL_OCP_MRHOF;
    cfg->instance = MIP_RPL_DEFAULT_INSTANCE;
    cfg->dio_int_min = MIP_RPL_DEFAULT_DIO_INT_MIN;
    cfg->dio_int_doublings = MIP_RPL_DEFAULT_DIO_INT_DOUBLINGS;
    cfg->dio_redundancy = MIP_RPL_DEFAULT_DIO_REDUNDANCY;
    cfg->min_hop_rank_inc = MIP_RPL_DEFAULT_MIN_HOP_RANK_INC;
    /* RFC 6550 gives MaxRankIncrease no default; 7 hops' worth of
     * MinHopRankIncrease lets a node fall back behind a few neighbours
     * without a global repair (docs/RPL.md) */
    cfg->max_rank_inc = 7u * MIP_RPL_DEFAULT_MIN_HOP_RANK_INC;
    /* DAO route lifetime: 30 units of 60 s (docs/RPL.md) */
    cfg->def_lifetime = 30;
    cfg->lifetime_unit = 60;
    cfg->dis_delay_ms = 1000;
    cfg->dis_max_ms = 60000;
    cfg->dis_max = 10;
    cfg->parent_timeout_ms = 0;
}

mip_status mip_rpl_init(struct mip_rpl *r, struct mip_stack *s, uint8_t netif,
                        const struct mip_rpl_config *cfg, mip_time_t now)
{
    struct mip_netif *nif = mip_netif_get(s, netif);
    memset(r, 0, sizeof(*r));
    if (cfg != NULL)
        r->cfg = *cfg;
    else
        mip_rpl_config_default(&r->cfg);
    if (nif == NULL || !nif->addr6[0].used ||
        (r->cfg.ocp != MIP_RPL_OCP_OF0 && r->cfg.ocp != MIP_RPL_OCP_MRHOF) ||
        !((MIP_CONF_RPL_NON_STORING && r->cfg.mop == MIP_RPL_MOP_NON_STORING) ||
          (MIP_CONF_RPL_STORING && r->cfg.mop == MIP_RPL_MOP_STORING)) ||
        r->cfg.min_hop_rank_inc == 0u ||
        r->cfg.parent_timeout_ms > MIP_RPL_TIME_MAX_MS || r->cfg.dis_max_ms > MIP_RPL_TIME_MAX_MS ||
        r->cfg.dis_delay_ms > MIP_RPL_TIME_MAX_MS)
        return MIP_ERR_INVALID;
    r->stack = s;
    r->netif = netif;
    r->preferred = -1;
    r->rank = MIP_RPL_INFINITE_RANK;
    r->lowest_rank = MIP_RPL_INFINITE_RANK;
    conf_default(r, &r->conf);
    r->state = MIP_RPL_DETACHED;
    rpl_down_reset(r, true);
    detach(r, now);               /* starts the DIS timer */
    mip_routing_set(s, &rpl_ops, r);
    return MIP_OK;
}

#if MIP_CONF_RPL_ROOT
mip_status mip_rpl_root_start(struct mip_rpl *r, const uint8_t prefix[16], uint8_t prefix_len,
                              const uint8_t dodagid[16], mip_time_t now)
{
    struct mip_addr a;
    if (prefix_len != 64u || r->stack == NULL)
        return MIP_ERR_INVALID;
    memset(&a, 0, sizeof(a));
    a.family = MIP_AF_INET6;
    memcpy(a.bytes, dodagid, 16);
    if (!mip_netif_has_addr(&r->stack->netif[r->netif], &a) &&
        mip_netif_add_addr(r->stack, r->netif, &a, 128) != MIP_OK)
        return MIP_ERR_INVALID;
    r->state = MIP_RPL_ROOT;
    rpl_down_reset(r, true);
    r->instance = r->cfg.instance;
    r->version = 240;               /* lollipop start (RFC 6550 7.2) */
    r->mop = r->cfg.mop;
    r->prf = 0;
    r->grounded = true;
    r->dtsn = 240;
    memcpy(r->dodagid, dodagid, 16);
    conf_default(r, &r->conf);
    r->rank = MIP_RPL_ROOT_RANK(r->cfg.min_hop_rank_inc);
    r->lowest_rank = r->rank;
    r->preferred = -1;
    r->poison_left = 0;
    memset(&r->pio, 0, sizeof(r->pio));
    r->pio.prefix_len = 64;
    r->pio.flags = MIP_RPL_PIO_A;
    r->pio.valid_s = 0xFFFFFFFFu;       /* infinite (RFC 4861 4.6.2) */
    r->pio.preferred_s = 0xFFFFFFFFu;
    memcpy(r->pio.prefix, prefix, 8);
    r->has_pio = true;
    trickle_start(r, now);
    return MIP_OK;
}

mip_status mip_rpl_global_repair(struct mip_rpl *r, mip_time_t now)
{
    if (!is_root(r))
        return MIP_ERR_INVALID;
    r->version = mip_rpl_seq_next(r->version);
    STAT(r, global_repairs);
    trickle_start(r, now);
    return MIP_OK;
}
#endif

void mip_rpl_local_repair(struct mip_rpl *r, mip_time_t now)
{
    if (r->state != MIP_RPL_JOINED)
        return;
    STAT(r, local_repairs);
    detach(r, now);
}

bool mip_rpl_joined(const struct mip_rpl *r)
{
    return r->state == MIP_RPL_ROOT || (r->state == MIP_RPL_JOINED && r->preferred >= 0);
}

bool mip_rpl_parent(const struct mip_rpl *r, uint8_t addr[16])
{
    if (r->state != MIP_RPL_JOINED || r->preferred < 0)
        return false;
    rpl_linklocal(r->neigh[r->preferred].iid, addr);
    return true;
}

uint32_t mip_rpl_stat(const struct mip_rpl *r, enum mip_rpl_stat which)
{
    return (unsigned)which < MIP_RPL_STAT_COUNT ? r->stats[which] : 0u;
}

const char *mip_rpl_stat_name(unsigned which)
{
#if MIP_CONF_STAT_NAMES
    static const char *const names[] = {
#define MIP_RPL_STAT_NAME(n) #n,
        MIP_RPL_STATS_LIST(MIP_RPL_STAT_NAME)
#undef MIP_RPL_STAT_NAME
    };
    return which < MIP_RPL_STAT_COUNT ? names[which] : NULL;
#else
    (void)which;
    return NULL;
#endif
}
