/*
 * The radio medium and each node's simulated radio.
 *
 * A transmission is heard by the sender's neighbour list, computed once at
 * start from the channel model. At each neighbour a signal starts and ends;
 * a listening radio locks onto the first decodable frame (as a CC2420 does
 * on its preamble) and every other signal that overlaps it interferes:
 *
 *   unit disk / PRR   any overlap by an interferer corrupts the frame (no
 *                     capture); unit disk has separate reception,
 *                     interference and carrier-sense ranges;
 *   log distance      the frame's worst SINR over its duration sets the bit
 *                     error rate (802.15.4 O-QPSK, IEEE 802.15.4-2006
 *                     E.4.1.8), so a strong frame survives a weak interferer
 *                     (capture of the first frame).
 *
 * Then the PRR of the link (PRR model), the uniform BER overlay
 * (PER = 1 - (1 - BER)^bits) and the per-kind frame loss (medium.frame_loss:
 * TCP data, pure TCP ACK, link ACK, other) are drawn from the receiver's own
 * PRNG stream; a frame lost to either counts as corrupted.
 * With medium.overhear_header_bytes a lost frame for another node whose
 * header arrived intact still reaches the node's relay as overheard (the
 * TSS paper assumes overhearing needs only its 416-bit header).
 * Half-duplex: a transmitting radio hears nothing; starting to transmit
 * aborts a reception. A radio whose receiver is off (a duty-cycling MAC)
 * hears nothing either, and can still transmit: it goes to TX and back to
 * off. CCA reports busy while any signal within carrier-sense range is on
 * the air (unit disk; PRR: any listed neighbour) or the summed power
 * exceeds the CCA threshold (log distance).
 */
#include "sim.h"
#include "capture.h"
#include "zep_mirror.h"
#include "external.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double dbm_to_mw(double dbm) { return pow(10.0, dbm / 10.0); }

static double rng_unit(struct mip_rng *r)
{
    /* 32 random bits -> [0, 1) */
    return (double)mip_rng_next(r) / 4294967296.0;
}

/* IEEE 802.15.4-2006 E.4.1.8: O-QPSK BER from the (linear) SINR. */

double sim_oqpsk_ber(double sinr)
{
    double sum = 0.0, binom = 16.0;   /* C(16,1) */
    int k;
    for (k = 2; k <= 16; k++) {
        /* C(16,k) built incrementally from C(16,k-1) */
        binom = binom * (double)(16 - k + 1) / (double)k;
        sum += ((k % 2 == 0) ? 1.0 : -1.0) * binom * exp(20.0 * sinr * (1.0 / (double)k - 1.0));
    }
    {
        double ber = (8.0 / 15.0) * (1.0 / 16.0) * sum;
        if (ber < 0.0)
            ber = 0.0;
        if (ber > 0.5)
            ber = 0.5;
        return ber;
    }
}

void sim_radio_account(struct sim *sim, struct sim_node *nd)
{
    uint64_t dt = sim->now_us - nd->radio_since_us;
    switch (nd->radio) {
    case SIM_RADIO_TX:     nd->c.us_tx += dt; break;
    case SIM_RADIO_RX:     nd->c.us_rx += dt; break;
    case SIM_RADIO_LISTEN: nd->c.us_listen += dt; break;
    default:               nd->c.us_off += dt; break;
    }
    nd->radio_since_us = sim->now_us;
}

static const char *const radio_state_names[] = { "off", "listen", "rx", "tx" };

/* With --trace-radio every change of state is a trace event ("radio",
 * docs/SIMULATOR.md), so the trace's intervals add up to the energy
 * account's times. */
static void radio_set(struct sim *sim, struct sim_node *nd, uint8_t state)
{
    sim_radio_account(sim, nd);
    if (sim->trace_radio && state != nd->radio)
        sim_trace(sim, "radio", nd->id, "\"state\":\"%s\"", radio_state_names[state]);
    nd->radio = state;
}

void sim_radio_trace_start(struct sim *sim)
{
    uint32_t i;
    if (!sim->trace_radio)
        return;
    for (i = 0; i < sim->n; i++)
        sim_trace(sim, "radio", i, "\"state\":\"%s\"", radio_state_names[sim->node[i].radio]);
}

static const struct sim_neighbor *find_nbr(const struct sim_node *snd, uint32_t node)
{
    size_t lo = 0, hi = snd->n_nbr;
    while (lo < hi) {           /* lists are sorted by node id */
        size_t mid = (lo + hi) / 2u;
        if (snd->nbr[mid].node < node)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return (lo < snd->n_nbr && snd->nbr[lo].node == node) ? &snd->nbr[lo] : NULL;
}

static double locked_power_mw(struct sim *sim, struct sim_node *r)
{
    const struct sim_tx *t = &sim->tx[r->rx_tx];
    const struct sim_neighbor *e = find_nbr(&sim->node[t->sender], r->id);
    return e != NULL ? dbm_to_mw(e->rx_dbm) : 0.0;
}

/* The end of the header the TSS rule needs intact (the PHY header first). */
static uint64_t header_end_us(const struct sim *sim, const struct sim_tx *t)
{
    size_t n = sim->sc->overhear_header_bytes;
    if (n > t->len)
        n = t->len;
    return t->start_us + mip_radio_airtime(&sim->sc->timing, n);
}

static void update_sinr(struct sim *sim, struct sim_node *r)
{
    double p = locked_power_mw(sim, r);
    double noise = dbm_to_mw(sim->sc->noise_dbm);
    double other = r->interference_mw - p;
    double sinr;
    if (other < 0.0)
        other = 0.0;
    sinr = p / (noise + other);
    if (sinr < r->rx_min_sinr)
        r->rx_min_sinr = sinr;
    if (sinr < r->rx_hdr_min_sinr && sim->sc->overhear_header_bytes > 0u &&
        sim->now_us < header_end_us(sim, &sim->tx[r->rx_tx]))
        r->rx_hdr_min_sinr = sinr;
}

/* may_lock: false for a signal that appears at r while its frame is
 * already on the air (an event changed the network): r cannot catch a
 * frame mid-way, but the signal interferes and is sensed. */
static void signal_on(struct sim *sim, uint32_t txid, const struct sim_neighbor *e, bool may_lock)
{
    struct sim_node *r = &sim->node[e->node];
    bool ld = sim->sc->medium == SIM_MEDIUM_LOG_DISTANCE;
    r->signals++;
    if (e->sensed)
        r->sensed++;
    if (e->interferes)
        r->interferers++;
    if (ld)
        r->interference_mw += dbm_to_mw(e->rx_dbm);
    if ((!may_lock || sim->now_us < r->rx_ready_us) && r->radio == SIM_RADIO_LISTEN) {
        /* mid-frame, or the receiver is still starting (rx_on_us): it
         * cannot catch the frame's preamble */
        if (e->decodable)
            r->c.frames_missed_busy++;
    } else if (r->radio == SIM_RADIO_LISTEN && e->decodable) {
        radio_set(sim, r, SIM_RADIO_RX);
        r->rx_tx = txid;
        /* a decodable signal interferes too: any other one corrupts */
        r->rx_corrupt = r->interferers > 1u;
        r->rx_corrupt_us = sim->now_us;
        r->rx_min_sinr = 1e300;
        r->rx_hdr_min_sinr = 1e300;
        if (ld)
            update_sinr(sim, r);
    } else if (r->radio == SIM_RADIO_RX) {
        if (e->interferes && !r->rx_corrupt) {
            r->rx_corrupt = true;
            r->rx_corrupt_us = sim->now_us;
        }
        if (ld)
            update_sinr(sim, r);
    } else if (r->radio == SIM_RADIO_LISTEN || r->radio == SIM_RADIO_TX) {
        if (e->decodable)
            r->c.frames_missed_busy++;
    }
}

static void signal_start(struct sim *sim, uint32_t txid, const struct sim_neighbor *e)
{
    signal_on(sim, txid, e, true);
}

/* One draw: true when a part of `bits` bits survives with probability
 * p_ok = (1 - ber)^bits (no draw when nothing can be lost). */
static bool survives(struct sim_node *r, double ber, uint32_t bits)
{
    return ber <= 0.0 || bits == 0u || rng_unit(&r->chan_rng) < pow(1.0 - ber, (double)bits);
}

/*
 * Whether the frame t, locked onto by r, arrived intact. *collided tells a
 * collision from a channel loss. With medium.overhear_header_bytes, *hdr_ok
 * tells whether the first bytes (the headers the TSS paper's overhearing
 * rule reads) arrived intact: bit errors are drawn apart for those bytes
 * and the rest (two draws instead of one; the product is the frame's
 * PER, so a frame for this node fares as before), and a collision spares
 * the header when it began after the header's last bit.
 */
static bool reception_ok(struct sim *sim, struct sim_node *r, const struct sim_tx *t,
                         const struct sim_neighbor *e, bool *collided, bool *hdr_ok)
{
    const struct sim_scenario *sc = sim->sc;
    uint32_t bits = (uint32_t)t->len * 8u, hbits = 0u;
    bool split = sc->overhear_header_bytes > 0u;
    bool hdr = split, rest = true;
    *collided = false;
    *hdr_ok = false;
    if (split) {
        hbits = (uint32_t)(sc->overhear_header_bytes < t->len ? sc->overhear_header_bytes
                                                              : t->len) * 8u;
        if (sc->ber_counts_phy_header)
            hbits += (uint32_t)sc->timing.phy_hdr_bytes * 8u;
    }
    if (sc->ber_counts_phy_header)
        bits += (uint32_t)sc->timing.phy_hdr_bytes * 8u;
    if (sc->medium == SIM_MEDIUM_LOG_DISTANCE) {
        double ber = sim_oqpsk_ber(r->rx_min_sinr);
        if (split) {
            hdr = survives(r, sim_oqpsk_ber(r->rx_hdr_min_sinr), hbits);
            rest = hdr && survives(r, ber, bits - hbits);
        } else {
            /* one draw always, as before the header rule (same streams) */
            rest = rng_unit(&r->chan_rng) < pow(1.0 - ber, (double)bits);
        }
        if (!rest) {
            *collided = r->rx_corrupt;
            *hdr_ok = hdr;
            return false;
        }
        /* a link event's reception ratio (1 otherwise: no draw) */
        if (e->prr < 1.0f && rng_unit(&r->chan_rng) >= (double)e->prr)
            return false;
    } else {
        if (r->rx_corrupt) {
            *collided = true;
            *hdr_ok = split && r->rx_corrupt_us >= header_end_us(sim, t);
            return false;
        }
        /* the PRR model's ratio, or a link event's (a unit disk link
         * in range is 1 otherwise: no draw) */
        if (e->prr < 1.0f && rng_unit(&r->chan_rng) >= (double)e->prr)
            return false;
    }
    if (split) {
        hdr = survives(r, sc->ber, hbits);
        rest = hdr && survives(r, sc->ber, bits - hbits);
    } else {
        rest = survives(r, sc->ber, bits);
    }
    if (!rest) {
        *hdr_ok = hdr;
        return false;
    }
    /* medium.frame_loss: one more independent draw per reception, by what
     * the frame carries; no draw when the kind's probability is 0, so the
     * receiver's stream is unchanged for scenarios without it. A frame
     * lost this way is lost whole. */
    if (sc->frame_loss[t->kind] > 0.0 && rng_unit(&r->chan_rng) < sc->frame_loss[t->kind])
        return false;
    return true;
}

/* A signal described by e is gone from its receiver's counts. */
static void signal_off(struct sim *sim, const struct sim_neighbor *e)
{
    struct sim_node *r = &sim->node[e->node];
    if (e->sensed && r->sensed > 0u)
        r->sensed--;
    if (e->interferes && r->interferers > 0u)
        r->interferers--;
    if (r->signals > 0u)
        r->signals--;
    if (sim->sc->medium == SIM_MEDIUM_LOG_DISTANCE) {
        r->interference_mw -= dbm_to_mw(e->rx_dbm);
        if (r->signals == 0u || r->interference_mw < 0.0)
            r->interference_mw = 0.0;   /* no float drift left behind */
    }
}

/* The signal of t ends at r: the outcome of a reception locked onto it is
 * decided and left pending in r (delivered by deliver_pending once every
 * receiver of t has seen the end, so the frame's end is one instant). */
static void signal_end(struct sim *sim, uint32_t txid, const struct sim_neighbor *e)
{
    struct sim_node *r = &sim->node[e->node];
    const struct sim_tx *t = &sim->tx[txid];
    if (r->radio == SIM_RADIO_RX && r->rx_tx == txid) {
        bool collided = false, hdr_ok = false;
        bool ok = reception_ok(sim, r, t, e, &collided, &hdr_ok);
        radio_set(sim, r, SIM_RADIO_LISTEN);
        if (ok) {
            r->c.frames_rx_ok++;
            sim_trace(sim, "rx", r->id, "\"from\":%u,\"len\":%u", t->sender, t->len);
            r->rx_pending = SIM_RX_FRAME;
            r->rx_pending_tx = txid;
        } else {
            if (collided) {
                r->c.frames_rx_collided++;
                sim_trace(sim, "collision", r->id, "\"from\":%u", t->sender);
            } else {
                r->c.frames_rx_corrupted++;
                sim_trace(sim, "corrupt", r->id, "\"from\":%u", t->sender);
            }
            if (hdr_ok) {
                r->rx_pending = SIM_RX_HEADER;
                r->rx_pending_tx = txid;
            }
        }
    }
    signal_off(sim, e);
}

/* Hands r the frame t it received (or only its header, to the relay). */
static void deliver_pending(struct sim *sim, struct sim_node *r, const struct sim_tx *t)
{
    uint8_t what = r->rx_pending;
    r->rx_pending = SIM_RX_NONE;
    if (what == SIM_RX_FRAME && r->external) {
        sim_capture_rx(sim, r->id, t->sender, t->frame, t->len);
        sim_external_deliver(sim, r, t);   /* its MAC is the program's */
    } else if (what == SIM_RX_FRAME) {
        sim_capture_rx(sim, r->id, t->sender, t->frame, t->len);
        if (sim->misbehave != NULL)
            sim_misbehave_heard(sim, r->id, t->frame, (size_t)t->len - MIP_802154_FCS_LEN);
        mip_mac_radio_rx(&r->mac, t->frame, (size_t)t->len - MIP_802154_FCS_LEN,
                         sim_node_us(sim, r));
        sim_node_schedule(sim, r);
    } else if (what == SIM_RX_HEADER) {
        size_t n = (size_t)t->len - MIP_802154_FCS_LEN;
        if (sim->sc->overhear_header_bytes < n)
            n = sim->sc->overhear_header_bytes;
        if (sim_node_overheard_header(sim, r, t->frame, n)) {
            r->c.frames_header_only++;
            sim_trace(sim, "header", r->id, "\"from\":%u", t->sender);
            sim_node_schedule(sim, r);
        }
    }
}

/* --- the radio driver each node's MAC talks to ------------------------------- */

static uint32_t tx_alloc(struct sim *sim)
{
    uint32_t i;
    for (i = 0; i < sim->tx_cap; i++) {
        uint32_t k = (uint32_t)((sim->tx_next + i) % sim->tx_cap);
        if (!sim->tx[k].live) {
            sim->tx_next = (uint32_t)((k + 1u) % sim->tx_cap);
            return k;
        }
    }
    {
        size_t ncap = sim->tx_cap * 2u;
        struct sim_tx *n = realloc(sim->tx, ncap * sizeof(*n));
        if (n == NULL)
            return UINT32_MAX;
        memset(n + sim->tx_cap, 0, (ncap - sim->tx_cap) * sizeof(*n));
        i = (uint32_t)sim->tx_cap;
        sim->tx = n;
        sim->tx_cap = ncap;
        sim->tx_next = i + 1u;
        return i;
    }
}

/* What a frame carries, from its headers: the TSS paper's Table 1 counts TCP
 * data and pure ACKs apart, and medium.frame_loss drops them with different
 * probabilities (the DTC paper's 10 % / 5 % / 2 %). */
/* An IPv6 datagram (its first n bytes) carrying routing or neighbour
 * discovery control: ICMPv6 RPL (155) or ND (133-137), after any
 * hop-by-hop, routing and destination options headers. */
size_t sim_ip6_upper(const uint8_t *ip, size_t n, uint8_t *proto)
{
    size_t off = 40u;
    uint8_t nh = ip[6];
    while ((nh == 0u || nh == 43u || nh == 60u) && off + 2u <= n) {
        nh = ip[off];
        off += ((size_t)ip[off + 1u] + 1u) * 8u;
    }
    *proto = nh;
    return off <= n ? off : 0u;
}

bool sim_frame_is_control(const uint8_t *ip, size_t n)
{
    size_t off;
    uint8_t nh;
    if (n < 41u || (ip[0] >> 4) != 6u)
        return false;
    off = sim_ip6_upper(ip, n, &nh);
    /* and geo's beacons (UDP port MIP_GEO_PORT, docs/GEO.md) */
    if (nh == 17u && off != 0u && off + 4u <= n)
        return ip[off + 2u] == (uint8_t)(MIP_GEO_PORT >> 8) &&
               ip[off + 3u] == (uint8_t)MIP_GEO_PORT;
    return nh == 58u && off != 0u && off < n &&
           (ip[off] == 155u || (ip[off] >= 133u && ip[off] <= 137u));
}

static uint8_t classify_frame(struct sim_node *nd, const uint8_t *frame, size_t len,
                              uint32_t *seq, uint32_t *payload_len, bool *control)
{
    uint8_t ip[96];
    struct mip_lowpan_peek pk;
    size_t ihl, thl, payload;
    uint8_t proto, flags, plain[MIP_MAC_FRAME_MAX];
    if (len >= 1u && (frame[0] & 0x07u) == (uint8_t)MIP_802154_ACK)
        return SIM_FRAME_LINK_ACK;
    /* a secured frame: what its sender's MAC secured, back in plaintext */
    len = mip_mac_sec_plain(&nd->mac, frame, len, plain, sizeof(plain));
    frame = plain;
    if (mip_lowpan_peek_frame(&nd->stack, nd->netif, frame, len, ip, sizeof(ip), &pk) != MIP_OK)
        return SIM_FRAME_OTHER;
    if ((ip[0] >> 4) == 4u && pk.ip_len >= 20u) {
        ihl = (size_t)(ip[0] & 0x0Fu) * 4u;
        proto = ip[9];
    } else if ((ip[0] >> 4) == 6u && pk.ip_len >= 40u) {
        /* past an RPL Option or a source route to the TCP header */
        ihl = sim_ip6_upper(ip, pk.ip_len, &proto);
        if (ihl == 0u)
            return SIM_FRAME_OTHER;
    } else {
        return SIM_FRAME_OTHER;
    }
    if (proto != 6u || pk.ip_len < ihl + 20u) {
        *control = sim_frame_is_control(ip, pk.ip_len);
        return SIM_FRAME_OTHER;
    }
    thl = (size_t)(ip[ihl + 12u] >> 4) * 4u;
    flags = ip[ihl + 13u];
    payload = pk.dgram_len > ihl + thl ? pk.dgram_len - ihl - thl : 0u;
    *seq = (uint32_t)ip[ihl + 4u] << 24 | (uint32_t)ip[ihl + 5u] << 16 |
           (uint32_t)ip[ihl + 6u] << 8 | ip[ihl + 7u];
    *payload_len = (uint32_t)payload;
    if (payload > 0u || (flags & 0x03u) != 0u)      /* data, FIN or SYN */
        return SIM_FRAME_TCP_DATA;
    return SIM_FRAME_TCP_ACK;
}

static mip_status radio_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct sim_node *nd = ctx;
    struct sim *sim = nd->sim;
    struct sim_tx *t;
    uint32_t id, seq = 0, payload = 0;
    bool control = false;
    uint16_t fcs;
    size_t i;
    if (nd->radio == SIM_RADIO_TX)
        return MIP_ERR_INUSE;
    if (len + MIP_802154_FCS_LEN > sizeof(t->frame))
        return MIP_ERR_INVALID;
    id = tx_alloc(sim);
    if (id == UINT32_MAX)
        return MIP_ERR_NOBUFS;
    if (nd->radio == SIM_RADIO_RX)
        nd->c.frames_rx_lost++;     /* our own transmission cuts the reception off */
    t = &sim->tx[id];
    t->live = true;
    t->sender = nd->id;
    t->len = (uint16_t)(len + MIP_802154_FCS_LEN);
    memcpy(t->frame, frame, len);
    /* The FCS matters only to a pcap reader (receivers get the frame without
     * it), and a bitwise CRC of every frame was 40 % of a TSS run: */
    fcs = sim->capture != NULL ? mip_ieee802154_fcs(frame, len) : 0u;
    t->frame[len] = (uint8_t)fcs;
    t->frame[len + 1u] = (uint8_t)(fcs >> 8);
    t->start_us = sim->now_us;
    t->end_us = sim->now_us + mip_radio_airtime(&sim->sc->timing, t->len);
    radio_set(sim, nd, SIM_RADIO_TX);
    nd->cur_tx = id;
    nd->c.frames_tx++;
    t->boot = nd->boots;
    nd->c.bytes_tx += t->len;
    t->kind = classify_frame(nd, frame, len, &seq, &payload, &control);
    if (control) {
        nd->c.ctrl_frames_tx++;
        nd->c.ctrl_bytes_tx += t->len;
    }
    if (t->kind == SIM_FRAME_TCP_DATA) {
        nd->c.tcp_data_frames_tx++;
        if (sim->sc->record_in_flight && payload > 0u)
            sim_apps_source_tx(sim, nd->id, seq, payload);
    } else if (t->kind == SIM_FRAME_TCP_ACK) {
        nd->c.tcp_ack_frames_tx++;
    }
    sim_capture_tx(sim, nd->id, t->frame, t->len);
    sim_zep_mirror_tx(sim, nd->id, t->frame, t->len);
    sim_trace(sim, "tx", nd->id, "\"len\":%u,\"end_us\":%llu", t->len,
              (unsigned long long)t->end_us);
    for (i = 0; i < nd->n_nbr; i++)
        signal_start(sim, id, &nd->nbr[i]);
    (void)sim_evq_push(&sim->q, t->end_us, SIM_EV_TX_END, nd->id, id);
    return MIP_OK;
}

void sim_medium_tx_end(struct sim *sim, uint32_t txid)
{
    struct sim_tx *t = &sim->tx[txid];
    struct sim_node *nd = &sim->node[t->sender];
    size_t i;
    /* The frame's end is one instant: every receiver first hears it end and
     * the sender is back to listening; then the receivers get their frames
     * (a forwarder may start at once, and its predecessor hears it: the
     * TSS paper's overhearing with zero turnaround); then the sender learns
     * its frame is gone. The slot stays live until then: a forwarder's
     * transmission must not reuse it. */
    for (i = 0; i < nd->n_nbr; i++)
        signal_end(sim, txid, &nd->nbr[i]);
    radio_set(sim, nd, nd->radio_on ? SIM_RADIO_LISTEN : SIM_RADIO_OFF);
    for (i = 0; i < nd->n_nbr; i++) {
        struct sim_node *r = &sim->node[nd->nbr[i].node];
        if (r->rx_pending != SIM_RX_NONE && r->rx_pending_tx == txid)
            deliver_pending(sim, r, t);
    }
    t->live = false;
    if (nd->down || t->boot != nd->boots || nd->external)
        return;                 /* its MAC is frozen, not the one that sent, or the
                                   program's (which counts its airtime itself) */
    mip_mac_radio_tx_done(&nd->mac, sim_node_us(sim, nd));
    sim_node_schedule(sim, nd);
}

static bool radio_cca(void *ctx)
{
    struct sim_node *nd = ctx;
    if (nd->radio == SIM_RADIO_OFF)
        return true;            /* hears nothing (the MAC asks only while on) */
    if (nd->radio == SIM_RADIO_RX || nd->radio == SIM_RADIO_TX)
        return false;
    if (nd->sim->sc->medium == SIM_MEDIUM_LOG_DISTANCE)
        return nd->interference_mw < dbm_to_mw(nd->sim->sc->cca_dbm);
    return nd->sensed == 0u;
}

static void radio_on(void *ctx)
{
    struct sim_node *nd = ctx;
    nd->radio_on = true;
    if (nd->radio == SIM_RADIO_OFF) {
        nd->rx_ready_us = nd->sim->now_us + nd->sim->sc->timing.rx_on_us;
        radio_set(nd->sim, nd, SIM_RADIO_LISTEN);
    }
}

static void radio_off(void *ctx)
{
    struct sim_node *nd = ctx;
    nd->radio_on = false;
    if (nd->radio == SIM_RADIO_LISTEN || nd->radio == SIM_RADIO_RX)
        radio_set(nd->sim, nd, SIM_RADIO_OFF);
}

const struct mip_radio_driver sim_radio_driver = {
    radio_transmit, radio_cca, radio_on, radio_off
};

/* --- neighbour lists from the channel model ----------------------------------- */

static int nbr_cmp(const void *a, const void *b)
{
    const struct sim_neighbor *x = a, *y = b;
    return x->node < y->node ? -1 : x->node > y->node ? 1 : 0;
}

static bool nbr_add(struct sim_node *nd, size_t *cap, const struct sim_neighbor *e)
{
    if (nd->n_nbr == *cap) {
        size_t ncap = *cap ? *cap * 2u : 8u;
        struct sim_neighbor *n = realloc(nd->nbr, ncap * sizeof(*n));
        if (n == NULL)
            return false;
        nd->nbr = n;
        *cap = ncap;
    }
    nd->nbr[nd->n_nbr++] = *e;
    return true;
}

/* A normal deviate from two uniforms (Box-Muller), for shadowing. */
static double rng_normal(struct mip_rng *r)
{
    double u1 = rng_unit(r), u2 = rng_unit(r);
    if (u1 < 1e-12)
        u1 = 1e-12;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* The entry of a geometric model (unit disk, log distance) for two nodes
 * d metres apart, sh the pair's shadowing deviate; false when they do not
 * hear each other at all. */
static bool geo_entry(const struct sim_scenario *sc, double d, double sh, struct sim_neighbor *e)
{
    bool add;
    memset(e, 0, sizeof(*e));
    if (sc->medium == SIM_MEDIUM_UNIT_DISK) {
        e->interferes = d <= sc->interference_range_m;
        e->sensed = d <= sc->cs_range_m;
        add = e->interferes || e->sensed;
        e->decodable = d <= sc->range_m;
    } else {
        double dd = d < sc->d0_m ? sc->d0_m : d;
        double pl = sc->pl_d0_db + 10.0 * sc->pl_exponent * log10(dd / sc->d0_m) +
                    sc->shadowing_db * sh;
        e->interferes = e->sensed = true;
        e->rx_dbm = (float)(sc->tx_power_dbm - pl);
        add = e->rx_dbm >= sc->noise_dbm - 20.0;
        e->decodable = e->rx_dbm >= sc->sensitivity_dbm;
    }
    e->prr = e->decodable ? 1.0f : 0.0f;
    return add;
}

/*
 * The farthest two nodes of a geometric model can be and still hear (or
 * disturb) each other, metres; 0 when there is no bound the grid can use
 * (log distance with shadowing, whose deviates are drawn pair by pair in
 * all-pairs order, or a model without loss growth). A margin of 1 % + 1 m
 * keeps rounding from leaving out a pair geo_entry would take: the grid
 * only prunes candidates, geo_entry still decides each pair.
 */
static double geo_reach_m(const struct sim_scenario *sc)
{
    double r;
    if (sc->medium == SIM_MEDIUM_UNIT_DISK) {
        r = sc->interference_range_m > sc->cs_range_m ? sc->interference_range_m
                                                      : sc->cs_range_m;
    } else {
        if (sc->shadowing_db > 0.0 || !(sc->pl_exponent > 0.0) || !(sc->d0_m > 0.0))
            return 0.0;
        r = sc->d0_m * pow(10.0, (sc->tx_power_dbm - (sc->noise_dbm - 20.0) - sc->pl_d0_db) /
                                     (10.0 * sc->pl_exponent));
        if (r < sc->d0_m)
            r = sc->d0_m;
    }
    r = r * 1.01 + 1.0;
    return isfinite(r) && r > 0.0 ? r : 0.0;
}

/* One pair (i < j) of a geometric model: both entries when they hear or
 * disturb each other. */
static bool geo_pair(struct sim *sim, size_t *cap, uint32_t i, uint32_t j, double sh)
{
    const struct sim_scenario *sc = sim->sc;
    double dx = sc->pos[i][0] - sc->pos[j][0];
    double dy = sc->pos[i][1] - sc->pos[j][1];
    struct sim_neighbor e;
    if (!geo_entry(sc, sqrt(dx * dx + dy * dy), sh, &e))
        return true;
    e.node = j;
    if (!nbr_add(&sim->node[i], &cap[i], &e))
        return false;
    e.node = i;
    return nbr_add(&sim->node[j], &cap[j], &e);
}

/*
 * The geometric pairs through a spatial grid of square cells at least
 * `reach` wide: a node's candidates are the nodes of its own cell and the
 * eight around it, so the build is O(n) in cells and pairs plus the sort
 * of each list, against the all-pairs O(n^2). The lists are sorted by node
 * id afterwards either way, so they come out identical to the all-pairs
 * build's (tests/unit/sim/test_medium_grid.c). When the area would need
 * more than 4 cells per node, cells grow (fewer, fuller cells, same pairs).
 */
static bool geo_grid(struct sim *sim, size_t *cap, double reach)
{
    const struct sim_scenario *sc = sim->sc;
    uint32_t n = sim->n, i, *start = NULL, *fill = NULL, *cell_of = NULL, *order = NULL;
    double minx = sc->pos[0][0], miny = sc->pos[0][1], maxx = minx, maxy = miny, cell = reach;
    uint64_t cols, rows, cells;
    bool ok = false;
    for (i = 1; i < n; i++) {
        minx = fmin(minx, sc->pos[i][0]);
        maxx = fmax(maxx, sc->pos[i][0]);
        miny = fmin(miny, sc->pos[i][1]);
        maxy = fmax(maxy, sc->pos[i][1]);
    }
    for (;;) {
        cols = (uint64_t)((maxx - minx) / cell) + 1u;
        rows = (uint64_t)((maxy - miny) / cell) + 1u;
        if (cols * rows <= 4u * (uint64_t)n + 16u)
            break;
        cell *= 2.0;
    }
    cells = cols * rows;
    start = calloc(cells + 1u, sizeof(*start));
    fill = calloc(cells, sizeof(*fill));
    cell_of = malloc(n * sizeof(*cell_of));
    order = malloc(n * sizeof(*order));
    if (start == NULL || fill == NULL || cell_of == NULL || order == NULL)
        goto out;
    for (i = 0; i < n; i++) {
        uint64_t cx = (uint64_t)((sc->pos[i][0] - minx) / cell);
        uint64_t cy = (uint64_t)((sc->pos[i][1] - miny) / cell);
        cx = cx < cols ? cx : cols - 1u;
        cy = cy < rows ? cy : rows - 1u;
        cell_of[i] = (uint32_t)(cy * cols + cx);
        start[cell_of[i] + 1u]++;
    }
    for (i = 0; i < cells; i++)
        start[i + 1u] += start[i];
    for (i = 0; i < n; i++)         /* ascending ids within a cell */
        order[start[cell_of[i]] + fill[cell_of[i]]++] = i;
    for (i = 0; i < n; i++) {
        uint64_t cx = cell_of[i] % cols, cy = cell_of[i] / cols, x, y;
        for (y = cy > 0u ? cy - 1u : 0u; y <= cy + 1u && y < rows; y++)
            for (x = cx > 0u ? cx - 1u : 0u; x <= cx + 1u && x < cols; x++) {
                uint32_t c = (uint32_t)(y * cols + x), k;
                for (k = start[c]; k < start[c + 1u]; k++)
                    if (order[k] > i && !geo_pair(sim, cap, i, order[k], 0.0))
                        goto out;
            }
    }
    ok = true;
out:
    free(start);
    free(fill);
    free(cell_of);
    free(order);
    return ok;
}

bool sim_medium_neighbors(struct sim *sim, bool all_pairs, char *err, size_t errlen)
{
    struct sim_scenario *sc = sim->sc;
    size_t *cap = calloc(sim->n, sizeof(*cap));
    uint32_t i, j;
    size_t k;
    bool ok = true;
    double reach;
    if (cap == NULL) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    for (i = 0; i < sim->n; i++) {
        free(sim->node[i].nbr);
        sim->node[i].nbr = NULL;
        sim->node[i].n_nbr = 0;
    }
    if (sc->medium == SIM_MEDIUM_PRR || sc->topology == SIM_TOPO_LINKS) {
        for (k = 0; k < sc->n_links && ok; k++) {
            const struct sim_link *l = &sc->links[k];
            struct sim_neighbor e;
            memset(&e, 0, sizeof(e));
            e.prr = (float)l->prr;
            e.decodable = l->prr > 0.0;
            e.interferes = e.sensed = true;
            e.rx_dbm = 0.0f;
            e.node = l->b;
            ok = nbr_add(&sim->node[l->a], &cap[l->a], &e);
            if (ok && sc->links_symmetric) {
                e.node = l->a;
                ok = nbr_add(&sim->node[l->b], &cap[l->b], &e);
            }
        }
    } else if (!all_pairs && (reach = geo_reach_m(sc)) > 0.0 && sim->n > 0u) {
        ok = geo_grid(sim, cap, reach);
    } else {
        /* Shadowing is one draw per unordered pair from a stream of its
         * own, so the channel is symmetric and independent of traffic. */
        struct mip_rng shadow;
        uint8_t seed[16];
        for (k = 0; k < 8u; k++) {
            seed[k] = (uint8_t)(sc->seed >> (8u * k));
            seed[8u + k] = (uint8_t)(0x5Au ^ k);
        }
        mip_rng_seed(&shadow, seed, sizeof(seed));
        for (i = 0; i < sim->n && ok; i++)
            for (j = i + 1u; j < sim->n && ok; j++)
                ok = geo_pair(sim, cap, i, j,
                              sc->medium == SIM_MEDIUM_LOG_DISTANCE && sc->shadowing_db > 0.0
                                  ? rng_normal(&shadow) : 0.0);
    }
    for (i = 0; i < sim->n; i++)
        if (sim->node[i].n_nbr > 1u)    /* an isolated node's list is NULL */
            qsort(sim->node[i].nbr, sim->node[i].n_nbr, sizeof(struct sim_neighbor), nbr_cmp);
    free(cap);
    if (!ok)
        snprintf(err, errlen, "out of memory building neighbour lists");
    return ok;
}

bool sim_medium_build(struct sim *sim, char *err, size_t errlen)
{
    return sim_medium_neighbors(sim, false, err, errlen);
}

/* The PRR a routing metric sees for a->b without interference. */

double sim_link_prr(const struct sim *sim, uint32_t a, uint32_t b, uint16_t frame_bytes)
{
    const struct sim_scenario *sc = sim->sc;
    const struct sim_neighbor *e = find_nbr(&sim->node[a], b);
    double prr, bits = (double)frame_bytes * 8.0;
    if (e == NULL || !e->decodable)
        return 0.0;
    if (sc->medium == SIM_MEDIUM_LOG_DISTANCE) {
        double sinr = dbm_to_mw(e->rx_dbm) / dbm_to_mw(sc->noise_dbm);
        prr = pow(1.0 - sim_oqpsk_ber(sinr), bits) * (double)e->prr;
    } else {
        prr = e->prr;
    }
    if (sc->ber > 0.0)
        prr *= pow(1.0 - sc->ber, bits);
    return prr;
}

/* --- the network changes (events, sim/dynamics.c) ------------------------------ */

/*
 * An entry a -> b changes from old to new (either NULL: none). When a is
 * transmitting, its signal at b leaves b's counts under the old entry and
 * joins them under the new one, so the frame's end finds them as they
 * were added (no lock onto a frame already on the air); a reception of
 * that frame that the new entry cannot carry is cut off.
 */
static void on_air_change(struct sim *sim, uint32_t a, const struct sim_neighbor *old,
                          const struct sim_neighbor *nw)
{
    struct sim_node *s = &sim->node[a];
    struct sim_node *r;
    uint32_t txid;
    if (s->radio != SIM_RADIO_TX || !sim->tx[s->cur_tx].live)
        return;
    txid = s->cur_tx;
    r = &sim->node[(old != NULL ? old : nw)->node];
    if (old != NULL) {
        signal_off(sim, old);
        if (r->radio == SIM_RADIO_RX && r->rx_tx == txid && (nw == NULL || !nw->decodable)) {
            r->c.frames_rx_lost++;
            radio_set(sim, r, SIM_RADIO_LISTEN);
        }
    }
    if (nw != NULL) {
        signal_on(sim, txid, nw, false);
        if (r->radio == SIM_RADIO_RX && r->rx_tx == txid &&
            sim->sc->medium == SIM_MEDIUM_LOG_DISTANCE)
            update_sinr(sim, r);
    }
}

/* Sets (nw) or removes (nw NULL) node a's entry for nw->node / b, keeping
 * the list sorted. */
static bool put_entry(struct sim *sim, uint32_t a, uint32_t b, const struct sim_neighbor *nw)
{
    struct sim_node *nd = &sim->node[a];
    struct sim_neighbor *old = (struct sim_neighbor *)find_nbr(nd, b);
    size_t at;
    if (old != NULL) {
        struct sim_neighbor keep = *old;
        on_air_change(sim, a, &keep, nw);
        at = (size_t)(old - nd->nbr);
        if (nw != NULL) {
            *old = *nw;
        } else {
            memmove(old, old + 1, (nd->n_nbr - at - 1u) * sizeof(*old));
            nd->n_nbr--;
        }
        return true;
    }
    if (nw == NULL)
        return true;
    {
        struct sim_neighbor *n = realloc(nd->nbr, (nd->n_nbr + 1u) * sizeof(*n));
        if (n == NULL)
            return false;
        nd->nbr = n;
    }
    for (at = 0; at < nd->n_nbr && nd->nbr[at].node < b; at++)
        ;
    memmove(nd->nbr + at + 1, nd->nbr + at, (nd->n_nbr - at) * sizeof(*nd->nbr));
    nd->nbr[at] = *nw;
    nd->n_nbr++;
    on_air_change(sim, a, NULL, &nd->nbr[at]);
    return true;
}

/* A link event: a's frames reach b with ratio prr on top of the channel
 * model (the PRR model: instead of its ratio). A link the lists lack is
 * added, decodable, sensed and interfering (log distance: at the
 * sensitivity level). */
bool sim_medium_set_link(struct sim *sim, uint32_t a, uint32_t b, double prr)
{
    const struct sim_neighbor *cur = find_nbr(&sim->node[a], b);
    struct sim_neighbor e;
    if (cur != NULL) {
        e = *cur;
    } else {
        memset(&e, 0, sizeof(e));
        e.node = b;
        e.decodable = e.interferes = e.sensed = true;
        e.rx_dbm = (float)sim->sc->sensitivity_dbm;
    }
    e.prr = (float)prr;
    return put_entry(sim, a, b, &e);
}

/* A move: node's entries with every other node, both ways, from its new
 * position. Shadowing (log distance) is drawn anew for its pairs from a
 * stream of (seed, node, move count): the moved node's surroundings
 * changed. Link events' ratios on its links are forgotten. O(n) per move,
 * like the build. */
bool sim_medium_move(struct sim *sim, uint32_t node, double x, double y)
{
    struct sim_scenario *sc = sim->sc;
    struct mip_rng shadow;
    uint8_t seed[16];
    uint32_t j;
    size_t k;
    sc->pos[node][0] = x;
    sc->pos[node][1] = y;
    for (k = 0; k < 8u; k++) {
        seed[k] = (uint8_t)(sc->seed >> (8u * k));
        seed[8u + k] = (uint8_t)((k < 4u ? node >> (8u * k) : sim->dyn_moves >> (8u * (k - 4u))) ^
                                 0x3Cu);
    }
    sim->dyn_moves++;
    mip_rng_seed(&shadow, seed, sizeof(seed));
    for (j = 0; j < sim->n; j++) {
        double dx, dy, sh;
        struct sim_neighbor e;
        bool add;
        if (j == node)
            continue;
        dx = sc->pos[node][0] - sc->pos[j][0];
        dy = sc->pos[node][1] - sc->pos[j][1];
        sh = sc->medium == SIM_MEDIUM_LOG_DISTANCE && sc->shadowing_db > 0.0 ? rng_normal(&shadow)
                                                                             : 0.0;
        add = geo_entry(sc, sqrt(dx * dx + dy * dy), sh, &e);
        e.node = j;
        if (!put_entry(sim, node, j, add ? &e : NULL))
            return false;
        e.node = node;
        if (!put_entry(sim, j, node, add ? &e : NULL))
            return false;
    }
    return true;
}
