/*
 * Nodes: each node is a real moteip stack (+ TCP on flow end points) over
 * a lowpan netif, a MAC and the simulated radio. What a node needs from the
 * modules (the radio driver, the apps' observers, the records, what a
 * reboot restarts) comes through sim->env (run.c sets it), so this file
 * calls only ctx.c and the stack.
 *
 * Scheduling: after anything touches a node (a frame, a timer, an app),
 * sim_node_schedule() polls its stack and MAC at once — harmless when
 * early — and records their next deadlines as events. An event whose time
 * no longer matches the node's recorded deadline is stale and skipped, so
 * moving a deadline never needs a queue deletion.
 */
#include "sim.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: expands (seed, node, purpose) into independent PRNG seeds. */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void derive_seed(uint64_t seed, uint32_t node, uint32_t purpose, uint8_t out[16])
{
    uint64_t x = seed ^ ((uint64_t)node << 20) ^ ((uint64_t)purpose << 52);
    uint64_t a, b;
    int i;
    (void)splitmix64(&x);
    a = splitmix64(&x);
    b = splitmix64(&x);
    for (i = 0; i < 8; i++) {
        out[i] = (uint8_t)(a >> (8 * i));
        out[8 + i] = (uint8_t)(b >> (8 * i));
    }
}

enum { SEED_STACK = 1, SEED_MAC = 2, SEED_CHANNEL = 3, SEED_CLOCK = 4 };

static void mac_input(void *ctx, const uint8_t *frame, size_t len, size_t hdr_len,
                      const struct mip_802154_hdr *hdr, mip_utime_t now)
{
    struct sim_node *nd = ctx;
    (void)hdr_len;
    (void)hdr;
    (void)now;
    mip_stack_input(&nd->stack, nd->netif, frame, len, sim_ms(nd->sim));
}

static bool relay_on(const struct sim_node *nd)
{
    return nd->sim->sc->relay.mode != MIP_RELAY_OFF;
}

static bool rpl_on(const struct sim_node *nd)
{
    return nd->sim->sc->routing == SIM_ROUTING_RPL;
}

static void mac_tx_done(void *ctx, const uint8_t *frame, size_t len,
                        enum mip_mac_tx_status st, uint8_t retries, mip_utime_t now)
{
    struct sim_node *nd = ctx;
    (void)now;
    /* the routing driver's link quality (RPL's ETX) */
    mip_routing_link_report_frame(&nd->stack, nd->netif, frame, len, st == MIP_MAC_TX_OK,
                                  st == MIP_MAC_TX_NOACK, retries, sim_ms(nd->sim));
    if (st != MIP_MAC_TX_OK)
        sim_trace(nd->sim, "link_fail", nd->id, "\"status\":%d,\"retries\":%u,\"len\":%u",
                  (int)st, retries, (unsigned)len);
    if (relay_on(nd))
        mip_relay_link_status(nd->relay, nd->netif, frame, len, st == MIP_MAC_TX_OK,
                              sim_ms(nd->sim));
}

/* A frame for another node, heard in passing: the relay's implicit ACKs. */
static void mac_overheard(void *ctx, const uint8_t *frame, size_t len, size_t hdr_len,
                          const struct mip_802154_hdr *hdr, mip_utime_t now)
{
    struct sim_node *nd = ctx;
    (void)hdr_len;
    (void)hdr;
    (void)now;
    mip_relay_overheard(nd->relay, nd->netif, frame, len, sim_ms(nd->sim));
}

bool sim_node_overheard_header(struct sim *sim, struct sim_node *nd, const uint8_t *frame,
                               size_t len)
{
    struct mip_802154_hdr h;
    size_t hl;
    if (!relay_on(nd) || mip_ieee802154_parse(frame, len, &h, &hl) != MIP_OK ||
        h.type != MIP_802154_DATA)
        return false;
    /* the MAC's own filter would pass a frame for this node up instead */
    if (h.dst.mode == MIP_802154_ADDR_SHORT &&
        (h.dst.short_addr == sim_node_short(sim, nd->id) ||
         h.dst.short_addr == MIP_802154_BROADCAST))
        return false;
    if (h.dst.mode == MIP_802154_ADDR_EXT &&
        memcmp(h.dst.ext, nd->mac.cfg.ext_addr, sizeof(h.dst.ext)) == 0)
        return false;
    mip_relay_overheard(nd->relay, nd->netif, frame, len, sim_ms(sim));
    return true;
}

static mip_status drv_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct sim_node *nd = ctx;
    mip_status st = mip_mac_send(&nd->mac, frame, len, sim_node_us(nd->sim, nd));
    if (st == MIP_OK)
        nd->sim->env.frame_out(nd->sim, nd, frame, len);
    return st;
}

static mip_status drv_transmit_gap(void *ctx, const uint8_t *frame, size_t len, uint16_t gap_us)
{
    struct sim_node *nd = ctx;
    mip_status st = mip_mac_send_gap(&nd->mac, frame, len, gap_us, sim_node_us(nd->sim, nd));
    if (st == MIP_OK)
        nd->sim->env.frame_out(nd->sim, nd, frame, len);
    return st;
}

/* Without a relay (which owns it), the local hook counts the TCP segments
 * that reach a flow's receiver. */
static enum mip_fwd_verdict local_in(void *ctx, struct mip_stack *s, bool out, uint8_t netif,
                                     const uint8_t *pkt, size_t len)
{
    struct sim_node *nd = ctx;
    (void)s;
    (void)netif;
    if (!out)
        nd->sim->env.datagram_in(nd->sim, nd, pkt, len);
    return MIP_FWD_PASS;
}

static size_t drv_room(void *ctx)
{
    struct sim_node *nd = ctx;
    return mip_mac_netif_room(&nd->mac);
}

void sim_node_schedule(struct sim *sim, struct sim_node *nd)
{
    uint32_t d, md;
    mip_time_t ms = sim_ms(sim);
    uint64_t t;
    if (nd->down || nd->external)
        return;                         /* frozen until its reboot, or run outside */
    d = mip_stack_poll(&nd->stack, ms);
    if (relay_on(nd)) {
        uint32_t rd = mip_relay_poll(nd->relay, ms);
        if (rd < d)
            d = rd;
    }
    if (nd->mac.cfg.rdc.kind == MIP_RDC_LEAF)
        /* TCPlp s.9: a sleepy leaf polls fast while any transport waits
         * for its peer (TCP's unacknowledged data, CoAP's requests) */
        mip_mac_expect_reply(&nd->mac, mip_stack_awaits_reply(&nd->stack),
                             sim_node_us(sim, nd));
    md = mip_mac_poll(&nd->mac, sim_node_us(sim, nd));
    if (relay_on(nd)) {
        /* The MAC's poll may have reported a frame's fate (tx_done ->
         * mip_relay_link_status), which can arm a relay timer (DTC locks a
         * segment): ask again, and let the MAC see anything that sent. */
        uint32_t rd = mip_relay_poll(nd->relay, ms);
        if (rd < d) {
            d = rd;
            md = mip_mac_poll(&nd->mac, sim_node_us(sim, nd));
        }
    }
    if (rpl_on(nd)) {
        /* a link report from the MAC's poll may have changed the parent
         * or reset Trickle: ask the stack again, and let the MAC see what
         * that sent */
        uint32_t sd = mip_stack_poll(&nd->stack, ms);
        if (sd < d)
            d = sd;
        md = mip_mac_poll(&nd->mac, sim_node_us(sim, nd));
        if (nd->rpl_joined_us == UINT64_MAX && mip_rpl_joined(nd->rpl)) {
            nd->rpl_joined_us = sim->now_us;
            sim_trace(sim, "rpl_joined", nd->id, "\"rank\":%u", (unsigned)nd->rpl->rank);
        }
    }
    sim->env.sample_cc(sim, nd);
    if (d != MIP_POLL_IDLE) {
        /* A deadline in the current millisecond was just run: wake at the
         * next one rather than spinning on the same microsecond. The delay
         * counts from the simulator's 64-bit millisecond, not from the node's
         * 32-bit one, which wraps at 49.7 days (issue 24: time ran back). */
        t = (sim->now_us / 1000u + (d == 0u ? 1u : d)) * 1000u;
        if (t != nd->stack_due) {
            nd->stack_due = t;
            (void)sim_evq_push(&sim->q, t, SIM_EV_STACK_POLL, nd->id, 0);
        }
    } else {
        nd->stack_due = UINT64_MAX;
    }
    if (md != UINT32_MAX) {
        t = sim_node_due(sim, nd, md);
        if (t != nd->mac_due) {
            nd->mac_due = t;
            (void)sim_evq_push(&sim->q, t, SIM_EV_MAC_POLL, nd->id, 0);
        }
    } else {
        nd->mac_due = UINT64_MAX;
    }
    sim->env.record(sim, nd);
}

/* A simulated node's extended address: 02:00:00:00 and its 32-bit id, big
 * endian, when its short address is its id; 02:00:00:01 and the id in a
 * network without short addresses (sim.h: its IID is then never 0). */
static void node_ext(const struct sim *sim, uint32_t id, uint8_t ext[8])
{
    int i;
    for (i = 0; i < 8; i++)
        ext[i] = (uint8_t)(i < 4 ? (i == 0 ? 0x02 : 0) : id >> (8 * (7 - i)));
    ext[3] = sim->sc->short_addresses ? 0u : 1u;
}

/* Link-layer security's device table: every short address is a node id. */
static bool sec_ext_of(void *ctx, uint16_t pan_id, uint16_t short_addr, uint8_t ext[8])
{
    const struct sim *sim = ctx;
    (void)pan_id;
    if (short_addr >= sim->n)
        return false;
    node_ext(sim, short_addr, ext);
    return true;
}

/* The node's security: the network's, or its own (security.nodes). */
static void node_security(struct sim *sim, uint32_t id, struct mip_mac_config *mcfg)
{
    const struct sim_scenario *sc = sim->sc;
    if (sc->node_sec != NULL) {
        mcfg->sec.level = sc->node_sec[id].level;
        memcpy(mcfg->sec.key, sc->node_sec[id].key, sizeof(mcfg->sec.key));
    }
    mcfg->sec.ext_of = sec_ext_of;
    mcfg->sec.ext_ctx = sim;
}


/* The purpose of a PRNG stream of the node's boot number `boot`: the
 * first boot keeps the streams runs had before reboots existed, each
 * reboot draws fresh ones (a real node's new ISNs, backoffs, tokens),
 * derived from the seed like every stream. */
static uint32_t boot_purpose(uint32_t purpose, uint32_t boot)
{
    return purpose + 16u * boot;
}

/* routing.type "geo": the node builds its address from its position and
 * starts beaconing (docs/GEO.md). */
static bool geo_boot(struct sim *sim, struct sim_node *nd, char *err, size_t errlen)
{
    const struct sim_scenario *sc = sim->sc;
    struct mip_geo_config gc;
    mip_status st;
    mip_geo_config_default(&gc);
    gc.map = sim_spatial_map(sc);
    memcpy(gc.prefix, sc->prefix, 8);
    gc.x_cm = (int32_t)(sc->pos[nd->id][0] * 100.0);
    gc.y_cm = (int32_t)(sc->pos[nd->id][1] * 100.0);
    gc.beacon_ms = (uint32_t)(sc->geo_beacon_s * 1000.0);
    gc.neigh_timeout_ms = (uint32_t)(sc->geo_timeout_s * 1000.0);
    gc.seen_ms = (uint32_t)(sc->geo_seen_s * 1000.0);
    gc.rebroadcast_jitter_ms = sc->geo_jitter_ms;
    gc.perimeter = sc->geo_perimeter;
    st = mip_geo_init(nd->geo, &nd->stack, nd->netif, &gc, sim_ms(sim));
    if (st != MIP_OK) {
        snprintf(err, errlen, "node %u: geo: %s", nd->id, mip_status_name(st));
        return false;
    }
    return true;
}

/* Everything a node's firmware sets up at power-on: stack, netif and
 * address, MAC, relay. At build (now 0) and again at each reboot. */
static bool node_boot(struct sim *sim, struct sim_node *nd, char *err, size_t errlen)
{
    const struct sim_scenario *sc = sim->sc;
    struct mip_stack_config scfg;
    struct mip_pbuf_storage pbufs;
    struct mip_lowpan_config lcfg;
    struct mip_mac_config mcfg;
    struct mip_mac_callbacks mcb;
    struct mip_addr a;
    uint8_t seed[16], ext[8];
    uint32_t id = nd->id;
    mip_time_t ms = sim_ms(sim);
    mip_status st;

    nd->stack_due = nd->mac_due = UINT64_MAX;
    derive_seed(sc->seed, id, boot_purpose(SEED_STACK, nd->boots), seed);
    memset(&scfg, 0, sizeof(scfg));
    scfg.entropy = seed;
    scfg.entropy_len = sizeof(seed);
    scfg.forwarding = true;
    pbufs.hdr = nd->pbuf_hdr;
    pbufs.mem = sim->buf_mem + (size_t)id * SIM_NODE_BUF_BYTES;
    pbufs.count = MIP_PBUF_COUNT;
    pbufs.size = MIP_PBUF_SIZE;
    scfg.pbufs = &pbufs;
    scfg.reass_mem = pbufs.mem + SIM_PBUF_BYTES;
    st = mip_stack_init(&nd->stack, &scfg, ms);
    if (st != MIP_OK) {
        snprintf(err, errlen, "node %u: stack: %s", id, mip_status_name(st));
        return false;
    }

    node_ext(sim, id, ext);
    mcfg = sc->mac;
    if (sc->node_rdc != NULL)
        mcfg.rdc = sc->node_rdc[id];
    mcfg.rdc.held = nd->rdc_held;
    node_security(sim, id, &mcfg);
    memset(&lcfg, 0, sizeof(lcfg));
    lcfg.mode = sc->link_mode;
    lcfg.pan_id = 0xABCD;
    lcfg.short_addr = sim_node_short(sim, id);
    memcpy(lcfg.ext_addr, ext, 8);
    /* the aux header and MIC take room from every frame the netif builds */
    lcfg.frame_max = (uint8_t)(sc->frame_max - mip_mac_sec_overhead(&mcfg));
    lcfg.raw_link_hdr_len = sc->link_hdr_bytes;
    lcfg.ack_request = sc->link_acks;
    /* With 6LoWPAN-ND the router announces context 0 (a 6CO) instead. */
    lcfg.has_context0 = sc->addressing != SIM_ADDR_ND6LO;
    lcfg.frag_mode = sc->frag_mode;
    lcfg.frag_gap_us = sc->frag_gap_us;
    memcpy(lcfg.ctx0_prefix, sc->prefix, 8);
    lcfg.udp_cksum_elide = sc->udp_cksum_elide;
    lcfg.has_udp_ports = sc->udp_shared_ports[0] != 0u;
    lcfg.udp_ports[0] = sc->udp_shared_ports[0];
    lcfg.udp_ports[1] = sc->udp_shared_ports[1];
    lcfg.tcp_hc = sc->tcp_hc;
    nd->drv.transmit = drv_transmit;
    nd->drv.room = drv_room;
    nd->drv.transmit_gap = drv_transmit_gap;
    st = mip_netif_add_lowpan(&nd->stack, &lcfg, &nd->drv, nd, &nd->netif);
    if (st != MIP_OK) {
        snprintf(err, errlen, "node %u: lowpan netif: %s", id, mip_status_name(st));
        return false;
    }
    sim_node_address(sim, id, &a);
    /* with RPL a node starts with its link-local address only and forms
     * the global one from the root's prefix, and with 6LoWPAN-ND a host
     * from its router's RA (the same address either way: the prefix and
     * its short address's IID) */
    st = rpl_on(nd) || sc->routing == SIM_ROUTING_GEO || (sc->addressing == SIM_ADDR_ND6LO && id != 0)
             ? MIP_OK
             : mip_netif_add_addr(&nd->stack, nd->netif, &a, a.family == MIP_AF_INET ? 32 : 128);
    if (st != MIP_OK) {
        snprintf(err, errlen, "node %u: address: %s", id, mip_status_name(st));
        return false;
    }

    mcfg.pan_id = 0xABCD;
    mcfg.short_addr = sim_node_short(sim, id);
    memcpy(mcfg.ext_addr, ext, 8);
    mcfg.timing = sc->timing;
    memset(&mcb, 0, sizeof(mcb));
    mcb.input = mac_input;
    mcb.tx_done = mac_tx_done;
    mcb.overheard = relay_on(nd) ? mac_overheard : NULL;
    mcb.ctx = nd;
    derive_seed(sc->seed, id, boot_purpose(SEED_MAC, nd->boots), seed);
    st = mip_mac_init(&nd->mac, &mcfg, sim->env.radio, nd, &mcb, seed, sizeof(seed),
                      sim_node_us(sim, nd));
    if (st != MIP_OK) {
        snprintf(err, errlen, "node %u: mac: %s", id, mip_status_name(st));
        return false;
    }
    nd->rpl_joined_us = UINT64_MAX;
    if (rpl_on(nd)) {
        struct mip_rpl_config rc = sc->rpl;
        rc.mop = sc->rpl_mode == SIM_RPL_STORING ? MIP_RPL_MOP_STORING : MIP_RPL_MOP_NON_STORING;
        st = mip_rpl_init(nd->rpl, &nd->stack, nd->netif, &rc, ms);
        if (st == MIP_OK && id == sc->rpl_root) {
            uint8_t prefix[16] = { 0 };
            memcpy(prefix, sc->prefix, 8);
            st = mip_rpl_root_start(nd->rpl, prefix, 64, a.bytes, ms);
        }
        if (st != MIP_OK) {
            snprintf(err, errlen, "node %u: rpl: %s", id, mip_status_name(st));
            return false;
        }
    }
    if (sc->routing == SIM_ROUTING_GEO && !geo_boot(sim, nd, err, errlen))
        return false;
    if (!relay_on(nd))
        mip_ip_set_local_hook(&nd->stack, local_in, nd);
    if (relay_on(nd)) {
        st = mip_relay_init(nd->relay, &nd->stack, &sc->relay, ms);
        if (st != MIP_OK) {
            snprintf(err, errlen, "relay: %s", mip_status_name(st));
            return false;
        }
    }
    return true;
}

bool sim_node_init(struct sim *sim, struct sim_node *nd, uint32_t id, char *err, size_t errlen)
{
    uint8_t seed[16];
    nd->id = id;
    nd->sim = sim;
    nd->radio = SIM_RADIO_OFF;
    nd->radio_since_us = 0;
    /* the channel's draws at the node: one stream for the whole run, a
     * reboot does not change the air */
    derive_seed(sim->sc->seed, id, SEED_CHANNEL, seed);
    mip_rng_seed(&nd->chan_rng, seed, sizeof(seed));
    /* its crystal's rate error: fixed for the run, kept across reboots */
    derive_seed(sim->sc->seed, id, SEED_CLOCK, seed);
    nd->drift_ppb = sim_clock_drift_ppb(sim->sc->drift_ppm, seed);
    /* The optional protocols' instances, and a parent RDC's held frames,
     * only where the scenario runs them; kept across reboots (node_boot
     * initialises them again). Zeroed, as the node array they used to
     * live in was. */
    if ((relay_on(nd) && (nd->relay = calloc(1, sizeof(*nd->relay))) == NULL) ||
        (rpl_on(nd) && (nd->rpl = calloc(1, sizeof(*nd->rpl))) == NULL) ||
        (sim->sc->routing == SIM_ROUTING_GEO && (nd->geo = calloc(1, sizeof(*nd->geo))) == NULL) ||
        ((sim->sc->node_rdc != NULL ? sim->sc->node_rdc[id].kind : sim->sc->mac.rdc.kind) ==
             MIP_RDC_PARENT &&
         (nd->rdc_held = calloc(MIP_RDC_INDIRECT, sizeof(*nd->rdc_held))) == NULL)) {
        snprintf(err, errlen, "node %u: out of memory", id);
        return false;
    }
    return node_boot(sim, nd, err, errlen);
}

/* Node down: the radio goes off (a reception in progress is lost; a frame
 * on the air finishes, as the power rail decays), and nothing of the node
 * runs: its pending deadlines go stale and sim_node_schedule leaves it
 * alone. Its state stays as it was, but only a reboot (sim_node_up)
 * brings it back. */
void sim_node_down(struct sim *sim, struct sim_node *nd)
{
    if (nd->radio == SIM_RADIO_RX)
        nd->c.frames_rx_lost++;
    sim->env.radio->off(nd);
    nd->down = true;
    nd->stack_due = nd->mac_due = UINT64_MAX;
}

/* Node up: a reboot with state loss. Stack, netif, MAC and relay are
 * initialised again (fresh PRNG streams of the next boot), a parent
 * takes its sleepy leaves back, static routes come from the scenario
 * again, and the apps restart what runs at boot (apps.c). */
bool sim_node_up(struct sim *sim, struct sim_node *nd)
{
    uint32_t i;
    nd->down = false;
    nd->boots++;
    /* zeroed as when they were inside struct mip_stack (mip_stack_init
     * cleared them), so a reboot finds what it found before */
    memset(sim->buf_mem + (size_t)nd->id * SIM_NODE_BUF_BYTES, 0, SIM_NODE_BUF_BYTES);
    memset(nd->pbuf_hdr, 0, sizeof(nd->pbuf_hdr));
    if (!node_boot(sim, nd, sim->err, sizeof(sim->err)))
        return false;
    if (nd->mac.cfg.rdc.kind == MIP_RDC_PARENT)
        for (i = 0; i < sim->n; i++)
            if (sim->node[i].mac.cfg.rdc.kind == MIP_RDC_LEAF &&
                sim->node[i].mac.cfg.rdc.parent == nd->id &&
                !sim_node_attach_leaf(sim, i, nd->id))
                return false;
    sim->env.rebooted(sim, nd);
    sim_node_schedule(sim, nd);
    return true;
}

/* Each sleepy leaf attaches to its parent (scenario.c checked the parent
 * runs the parent RDC), which must hear it. */
bool sim_node_attach_leaf(struct sim *sim, uint32_t i, uint32_t p)
{
    struct mip_802154_addr a = { MIP_802154_ADDR_SHORT, 0, { 0 } };
    a.short_addr = (uint16_t)i;
    if (mip_mac_add_child(&sim->node[p].mac, &a, sim_node_us(sim, &sim->node[p])) != MIP_OK) {
        snprintf(sim->err, sizeof(sim->err), "mac: node %u cannot take leaf %u as a child", p, i);
        return false;
    }
    return true;
}

