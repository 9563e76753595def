/*
 * Misbehaving nodes (scenario key "misbehave"; docs/SIMULATOR.md): a node
 * that, beside whatever its own stack does, puts forged or replayed frames
 * on the air for a victim (its "target"), straight through its radio: no
 * channel access, no ACK wait, no retries. What the denial-of-sleep audit
 * (issue 24) did by hand, as scenario keys, one period per attack (0: off):
 *
 *   pending   a data frame with the frame pending bit, to the target (ACK
 *             requested) or to the broadcast address (pending_to): each one
 *             used to hold a duty-cycled receiver awake for burst_wait_us;
 *   strobe    an X-MAC strobe naming the target (its strobe ACK and a wait
 *             for the data frame follow in the target's X-MAC);
 *   probe     an LPP probe from the misbehaving node (a sender with a
 *             broadcast to deliver answers every probe it hears);
 *   poll      a data request (802.15.4 MAC command 0x04) to the target (a
 *             parent) from an invented short address, a new one each time
 *             (0x8000 + a counter): children the parent never had;
 *   replay    the last data frame overheard for the target, sent again byte
 *             for byte (duplicates and, with the pending bit, bursts). The
 *             node must hear those frames: give it an always-on RDC.
 *
 * By default a frame goes straight on the air, whatever is on the channel:
 * the node is a jammer as much as a forger. With "cca" each frame goes
 * through unslotted CSMA-CA first (802.15.4 s.6.2.5.1, with the node's own
 * min_be, max_be and max_backoffs): a random backoff, a CCA, again after a
 * busy one, the frame given up after max_backoffs + 1 busy CCAs. That is
 * a keyless node using its radio's normal path: it defers to a frame on
 * the air, though not to a ContikiMAC train's gaps between copies.
 *
 * Each gap is drawn uniformly from [period / 2, period], so "every N ms"
 * means "at least once every N ms" and a strictly periodic attacker cannot
 * slip for ever between a victim's periodic channel checks (or always hit
 * them).
 *
 * Frames are built with the wire codec the stack uses; payloads start with
 * the 6LoWPAN NALP dispatch 0x00 ("not a LoWPAN frame"), which a victim's
 * stack drops without effect, so only the MAC's reaction is measured. The
 * result's "misbehave" array counts what each node sent.
 *
 * The table of attacks is meant to grow (keyless injection for link-layer
 * security tests is the next): a new attack is a period key, a row of
 * `attacks` below and a builder.
 */
#include "sim.h"
#include "json.h"
#include <stdlib.h>
#include <string.h>

enum { ATK_PENDING = 0, ATK_STROBE, ATK_PROBE, ATK_POLL, ATK_REPLAY, ATK_COUNT };

/* The RDCs' control frames (src/mac/xmac.c, lpp.c, leaf.c; docs/MAC.md). */
#define NALP 0x00u
#define TYPE_STROBE 0x10u
#define TYPE_PROBE 0x20u
#define CMD_DATA_REQUEST 0x04u
#define INVENTED_BASE 0x8000u

struct sim_misbehave {
    const struct sim_misbehave_spec *spec;
    struct mip_rng rng;                 /* the gaps between frames */
    uint8_t  seq;
    uint16_t invented;                  /* next invented address (polls) */
    uint8_t  heard[MIP_MAC_FRAME_MAX];  /* the last data frame for the target */
    uint8_t  heard_len;                 /* 0: none yet */
    uint8_t  cca_n[ATK_COUNT];          /* cca: 0 idle, else the CCA to come, 1.. */
    uint64_t sent[ATK_COUNT];
    uint64_t busy;                      /* the radio was sending: skipped */
    uint64_t cca_busy;                  /* cca: busy CCAs (each a backoff) */
    uint64_t cca_failures;              /* cca: frames given up, channel busy */
};

static const char *const attack_names[ATK_COUNT] = {
    "pending", "strobes", "probes", "polls", "replays"
};

static uint32_t period_ms(const struct sim_misbehave_spec *sp, unsigned atk)
{
    const uint32_t p[ATK_COUNT] = { sp->pending_every_ms, sp->strobe_every_ms,
                                    sp->probe_every_ms, sp->poll_every_ms,
                                    sp->replay_every_ms };
    return p[atk];
}

static void short_addr(struct mip_802154_addr *a, uint16_t v)
{
    memset(a, 0, sizeof(*a));
    a->mode = MIP_802154_ADDR_SHORT;
    a->short_addr = v;
}

/* An intra-PAN frame from `src` to `dst` with `payload`; its length, 0 when
 * it does not fit. */
static size_t build(uint8_t *out, uint8_t type, bool ack, bool pending, uint8_t seq,
                    uint16_t src, uint16_t dst, const uint8_t *payload, size_t plen)
{
    struct mip_802154_hdr h;
    size_t hl;
    memset(&h, 0, sizeof(h));
    h.type = type;
    h.ack_request = ack;
    h.frame_pending = pending;
    h.pan_id_compress = true;
    h.version = 1;
    h.seq = seq;
    h.dst_pan = h.src_pan = 0xABCD;     /* node.c's PAN */
    short_addr(&h.dst, dst);
    short_addr(&h.src, src);
    if (mip_ieee802154_emit(&h, out, MIP_MAC_FRAME_MAX, &hl) != MIP_OK ||
        hl + plen > MIP_MAC_FRAME_MAX)
        return 0;
    memcpy(out + hl, payload, plen);
    return hl + plen;
}

/* The frame of one attack, or 0 when there is none to send (a replay
 * before anything was heard). */
static size_t attack_frame(struct sim_misbehave *mb, unsigned atk, uint8_t *f)
{
    const struct sim_misbehave_spec *sp = mb->spec;
    uint8_t pl[MIP_MAC_FRAME_MAX];
    uint16_t me = (uint16_t)sp->node, to = (uint16_t)sp->target;
    bool bcast = sp->pending_to == SIM_MISBEHAVE_TO_BROADCAST;
    switch (atk) {
    case ATK_PENDING:
        memset(pl, 0xA5, sizeof(pl));
        pl[0] = NALP;
        return build(f, MIP_802154_DATA, !bcast, true, mb->seq++, me,
                     bcast ? MIP_802154_BROADCAST : to, pl, sp->payload_bytes);
    case ATK_STROBE:
        pl[0] = NALP;
        pl[1] = TYPE_STROBE;
        return build(f, MIP_802154_DATA, false, false, mb->seq++, me, to, pl, 2);
    case ATK_PROBE:
        pl[0] = NALP;
        pl[1] = TYPE_PROBE;
        return build(f, MIP_802154_DATA, false, false, mb->seq++, me, MIP_802154_BROADCAST,
                     pl, 2);
    case ATK_POLL:
        pl[0] = CMD_DATA_REQUEST;
        mb->invented = (uint16_t)((mb->invented + 1u) & 0x3FFFu);
        return build(f, MIP_802154_CMD, true, false, mb->seq++,
                     (uint16_t)(INVENTED_BASE + mb->invented), to, pl, 1);
    default:
        memcpy(f, mb->heard, mb->heard_len);
        return mb->heard_len;
    }
}

/* The next frame of attack atk of node k at at_us, unless past stop_s. */
static void schedule(struct sim *sim, uint32_t k, unsigned atk, uint64_t at_us)
{
    const struct sim_misbehave_spec *sp = &sim->sc->misbehave[k];
    if (sp->stop_s > 0.0 && at_us >= (uint64_t)(sp->stop_s * 1e6))
        return;
    (void)sim_evq_push(&sim->q, at_us, SIM_EV_MISBEHAVE, sp->node, k * ATK_COUNT + atk);
}

bool sim_misbehave_build(struct sim *sim, char *err, size_t errlen)
{
    const struct sim_scenario *sc = sim->sc;
    uint32_t k;
    unsigned atk;
    if (sc->n_misbehave == 0)
        return true;
    sim->misbehave = calloc(sc->n_misbehave, sizeof(*sim->misbehave));
    if (sim->misbehave == NULL) {
        snprintf(err, errlen, "out of memory for %zu misbehaving nodes", sc->n_misbehave);
        return false;
    }
    for (k = 0; k < sc->n_misbehave; k++) {
        uint64_t seed[2] = { sc->seed, ((uint64_t)k << 32) | sc->misbehave[k].node };
        sim->misbehave[k].spec = &sc->misbehave[k];
        mip_rng_seed(&sim->misbehave[k].rng, (const uint8_t *)seed, sizeof(seed));
        for (atk = 0; atk < ATK_COUNT; atk++)
            if (period_ms(&sc->misbehave[k], atk) != 0u)
                schedule(sim, k, atk, (uint64_t)(sc->misbehave[k].start_s * 1e6));
    }
    return true;
}

/* cca: the next CCA of attack atk after a backoff of 0 .. 2^be - 1 unit
 * backoff periods. */
static void backoff(struct sim *sim, struct sim_misbehave *mb, uint32_t k, unsigned atk,
                    unsigned be)
{
    const struct sim_node *nd = &sim->node[mb->spec->node];
    uint32_t periods = mip_rng_below(&mb->rng, 1u << be);
    (void)sim_evq_push(&sim->q, sim->now_us + (uint64_t)periods * nd->mac.cfg.timing.backoff_us,
                       SIM_EV_MISBEHAVE, mb->spec->node, k * ATK_COUNT + atk);
}

/* cca: whether the frame of attack atk may go now; false when a backoff
 * (or a new period, the frame given up) was scheduled instead. */
static bool channel_access(struct sim *sim, struct sim_misbehave *mb, uint32_t k, unsigned atk)
{
    struct sim_node *nd = &sim->node[mb->spec->node];
    const struct mip_mac_config *c = &nd->mac.cfg;
    unsigned nb, be;
    if (mb->cca_n[atk] == 0u) {         /* a new frame: NB = 0, BE = macMinBE */
        mb->cca_n[atk] = 1;
        backoff(sim, mb, k, atk, c->min_be);
        return false;
    }
    if (sim_radio_driver.cca(nd)) {
        mb->cca_n[atk] = 0;
        return true;
    }
    mb->cca_busy++;
    nb = mb->cca_n[atk];                /* NB after this busy CCA */
    if (nb > c->max_backoffs) {
        mb->cca_failures++;
        mb->cca_n[atk] = 0;
        return false;
    }
    be = c->min_be + nb < c->max_be ? c->min_be + nb : c->max_be;
    mb->cca_n[atk] = (uint8_t)(nb + 1u);
    backoff(sim, mb, k, atk, be);
    return false;
}

void sim_misbehave_event(struct sim *sim, uint32_t arg)
{
    uint32_t k = arg / ATK_COUNT;
    unsigned atk = arg % ATK_COUNT;
    struct sim_misbehave *mb = &sim->misbehave[k];
    struct sim_node *nd = &sim->node[mb->spec->node];
    uint8_t f[MIP_MAC_FRAME_MAX];
    size_t len = 0;
    uint32_t p_us;
    bool go = true;
    if (mb->spec->cca && !(atk == ATK_REPLAY && mb->heard_len == 0u)) {
        go = channel_access(sim, mb, k, atk);
        if (!go && mb->cca_n[atk] != 0u)
            return;                     /* backed off: the CCA again then */
    }
    if (go)
        len = attack_frame(mb, atk, f);
    if (len != 0u) {
        if (sim_radio_driver.transmit(nd, f, len) == MIP_OK)
            mb->sent[atk]++;
        else
            mb->busy++;
    }
    p_us = period_ms(mb->spec, atk) * 1000u;
    schedule(sim, k, atk, sim->now_us + p_us - mip_rng_below(&mb->rng, p_us / 2u + 1u));
}

/* The short destination of a data frame (802.15.4 s.7.2: frame control,
 * DSN, destination PAN, destination address), read by hand: a replayer
 * copies frames it cannot read further (secured ones too). False for any
 * other frame. */
static bool data_to_short(const uint8_t *f, size_t len, uint16_t *dst)
{
    if (len < 7u || (f[0] & 0x07u) != (uint8_t)MIP_802154_DATA ||
        ((f[1] >> 2) & 0x03u) != (uint8_t)MIP_802154_ADDR_SHORT)
        return false;
    *dst = (uint16_t)(f[5] | (f[6] << 8));
    return true;
}

void sim_misbehave_heard(struct sim *sim, uint32_t node, const uint8_t *frame, size_t len)
{
    uint16_t dst;
    size_t k;
    if (!data_to_short(frame, len, &dst) || len > MIP_MAC_FRAME_MAX)
        return;
    for (k = 0; k < sim->sc->n_misbehave; k++) {
        struct sim_misbehave *mb = &sim->misbehave[k];
        if (mb->spec->node != node || mb->spec->replay_every_ms == 0u ||
            dst != (uint16_t)mb->spec->target)
            continue;
        memcpy(mb->heard, frame, len);
        mb->heard_len = (uint8_t)len;
    }
}

void sim_misbehave_write(struct sim *sim, struct sj_writer *w)
{
    size_t k;
    unsigned atk;
    sj_w_begin_array(w);
    for (k = 0; k < sim->sc->n_misbehave; k++) {
        const struct sim_misbehave *mb = &sim->misbehave[k];
        sj_w_begin_object(w);
        sj_w_member_uint(w, "node", mb->spec->node);
        sj_w_member_uint(w, "target", mb->spec->target);
        for (atk = 0; atk < ATK_COUNT; atk++)
            sj_w_member_uint(w, attack_names[atk], mb->sent[atk]);
        sj_w_member_uint(w, "radio_busy", mb->busy);
        sj_w_member_uint(w, "cca_busy", mb->cca_busy);
        sj_w_member_uint(w, "cca_failures", mb->cca_failures);
        sj_w_end_object(w);
    }
    sj_w_end_array(w);
}

void sim_misbehave_free(struct sim *sim)
{
    free(sim->misbehave);
    sim->misbehave = NULL;
}
