/*
 * Nodes and the run loop: each node is a real moteip stack (+ TCP on flow
 * end points) over a lowpan netif, a MAC and the simulated radio.
 *
 * Scheduling: after anything touches a node (a frame, a timer, an app),
 * sim_node_schedule() polls its stack and MAC at once — harmless when
 * early — and records their next deadlines as events. An event whose time
 * no longer matches the node's recorded deadline is stale and skipped, so
 * moving a deadline never needs a queue deletion.
 */
#include "sim.h"
#include "pcap.h"
#include "border.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

mip_time_t sim_ms(const struct sim *sim)
{
    return (mip_time_t)(sim->now_us / 1000u);
}

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

enum { SEED_STACK = 1, SEED_MAC = 2, SEED_CHANNEL = 3 };

void sim_node_address(const struct sim *sim, uint32_t id, struct mip_addr *out)
{
    memset(out, 0, sizeof(*out));
    if (sim->sc->ipv4) {
        /* 198.18.0.0/15 (RFC 2544 benchmarking): never routed anywhere. */
        uint8_t a[4] = { 198, 18, (uint8_t)(id >> 8), (uint8_t)id };
        mip_addr_set4(out, a);
    } else {
        /* the mesh prefix (link.prefix, fd00::/64 by default) + the IID of
         * short address id, which IPHC elides with context 0 */
        uint8_t a[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 0,
                          (uint8_t)(id >> 8), (uint8_t)id };
        memcpy(a, sim->sc->prefix, 8);
        mip_addr_set6(out, a);
    }
}

void sim_trace(struct sim *sim, const char *event, uint32_t node, const char *fmt, ...)
{
    va_list ap;
    if (sim->trace == NULL)
        return;
    fprintf(sim->trace, "{\"t_us\":%llu,\"node\":%u,\"ev\":\"%s\"",
            (unsigned long long)sim->now_us, node, event);
    if (fmt != NULL && fmt[0] != '\0') {
        fputc(',', sim->trace);
        va_start(ap, fmt);
        vfprintf(sim->trace, fmt, ap);
        va_end(ap);
    }
    fputs("}\n", sim->trace);
}

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
        mip_relay_link_status(&nd->relay, nd->netif, frame, len, st == MIP_MAC_TX_OK,
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
    mip_relay_overheard(&nd->relay, nd->netif, frame, len, sim_ms(nd->sim));
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
        (h.dst.short_addr == (uint16_t)nd->id || h.dst.short_addr == MIP_802154_BROADCAST))
        return false;
    if (h.dst.mode == MIP_802154_ADDR_EXT &&
        memcmp(h.dst.ext, nd->mac.cfg.ext_addr, sizeof(h.dst.ext)) == 0)
        return false;
    mip_relay_overheard(&nd->relay, nd->netif, frame, len, sim_ms(sim));
    return true;
}

static mip_status drv_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct sim_node *nd = ctx;
    mip_status st = mip_mac_send(&nd->mac, frame, len, (mip_utime_t)nd->sim->now_us);
    if (st == MIP_OK)
        sim_apps_frame_out(nd->sim, nd, frame, len);
    return st;
}

static mip_status drv_transmit_gap(void *ctx, const uint8_t *frame, size_t len, uint16_t gap_us)
{
    struct sim_node *nd = ctx;
    mip_status st = mip_mac_send_gap(&nd->mac, frame, len, gap_us, (mip_utime_t)nd->sim->now_us);
    if (st == MIP_OK)
        sim_apps_frame_out(nd->sim, nd, frame, len);
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
        sim_apps_datagram_in(nd->sim, nd, pkt, len);
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
    if (nd->down)
        return;                         /* frozen until its reboot */
    d = mip_stack_poll(&nd->stack, ms);
    if (relay_on(nd)) {
        uint32_t rd = mip_relay_poll(&nd->relay, ms);
        if (rd < d)
            d = rd;
    }
    if (nd->mac.cfg.rdc.kind == MIP_RDC_LEAF)
        /* TCPlp s.9: a sleepy leaf polls fast while any transport waits
         * for its peer (TCP's unacknowledged data, CoAP's requests) */
        mip_mac_expect_reply(&nd->mac, mip_stack_awaits_reply(&nd->stack),
                             (mip_utime_t)sim->now_us);
    md = mip_mac_poll(&nd->mac, (mip_utime_t)sim->now_us);
    if (relay_on(nd)) {
        /* The MAC's poll may have reported a frame's fate (tx_done ->
         * mip_relay_link_status), which can arm a relay timer (DTC locks a
         * segment): ask again, and let the MAC see anything that sent. */
        uint32_t rd = mip_relay_poll(&nd->relay, ms);
        if (rd < d) {
            d = rd;
            md = mip_mac_poll(&nd->mac, (mip_utime_t)sim->now_us);
        }
    }
    if (rpl_on(nd)) {
        /* a link report from the MAC's poll may have changed the parent
         * or reset Trickle: ask the stack again, and let the MAC see what
         * that sent */
        uint32_t sd = mip_stack_poll(&nd->stack, ms);
        if (sd < d)
            d = sd;
        md = mip_mac_poll(&nd->mac, (mip_utime_t)sim->now_us);
        if (nd->rpl_joined_us == UINT64_MAX && mip_rpl_joined(&nd->rpl)) {
            nd->rpl_joined_us = sim->now_us;
            sim_trace(sim, "rpl_joined", nd->id, "\"rank\":%u", (unsigned)nd->rpl.rank);
        }
    }
    sim_apps_sample_cc(sim, nd);
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
        t = sim->now_us + md;
        if (t != nd->mac_due) {
            nd->mac_due = t;
            (void)sim_evq_push(&sim->q, t, SIM_EV_MAC_POLL, nd->id, 0);
        }
    } else {
        nd->mac_due = UINT64_MAX;
    }
    if (sim->record != NULL)
        sim_record_node(sim, nd);
}

/* A simulated node's extended address: 02:00:00:00:00:00:id_hi:id_lo (its
 * short address is its id). */
static void node_ext(uint32_t id, uint8_t ext[8])
{
    int i;
    for (i = 0; i < 8; i++)
        ext[i] = (uint8_t)(i < 6 ? (i == 0 ? 0x02 : 0) : (i == 6 ? id >> 8 : id));
}

/* Link-layer security's device table: every short address is a node id. */
static bool sec_ext_of(void *ctx, uint16_t pan_id, uint16_t short_addr, uint8_t ext[8])
{
    const struct sim *sim = ctx;
    (void)pan_id;
    if (short_addr >= sim->n)
        return false;
    node_ext(short_addr, ext);
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

/* Everything a node's firmware sets up at power-on: stack, netif and
 * address, MAC, relay. At build (now 0) and again at each reboot. */
static bool node_boot(struct sim *sim, struct sim_node *nd, char *err, size_t errlen)
{
    const struct sim_scenario *sc = sim->sc;
    struct mip_stack_config scfg;
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
    mip_stack_init(&nd->stack, &scfg, ms);

    node_ext(id, ext);
    mcfg = sc->mac;
    if (sc->node_rdc != NULL)
        mcfg.rdc = sc->node_rdc[id];
    node_security(sim, id, &mcfg);
    memset(&lcfg, 0, sizeof(lcfg));
    lcfg.mode = sc->link_mode;
    lcfg.pan_id = 0xABCD;
    lcfg.short_addr = (uint16_t)id;
    memcpy(lcfg.ext_addr, ext, 8);
    /* the aux header and MIC take room from every frame the netif builds */
    lcfg.frame_max = (uint8_t)(sc->frame_max - mip_mac_sec_overhead(&mcfg));
    lcfg.raw_link_hdr_len = sc->link_hdr_bytes;
    lcfg.ack_request = sc->link_acks;
    /* With 6LoWPAN-ND the router announces context 0 (a 6CO) instead. */
    lcfg.has_context0 = sc->addressing == SIM_ADDR_STATIC;
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
    st = rpl_on(nd) || (sc->addressing == SIM_ADDR_ND6LO && id != 0)
             ? MIP_OK
             : mip_netif_add_addr(&nd->stack, nd->netif, &a, a.family == MIP_AF_INET ? 32 : 128);
    if (st != MIP_OK) {
        snprintf(err, errlen, "node %u: address: %s", id, mip_status_name(st));
        return false;
    }

    mcfg.pan_id = 0xABCD;
    mcfg.short_addr = (uint16_t)id;
    memcpy(mcfg.ext_addr, ext, 8);
    mcfg.timing = sc->timing;
    memset(&mcb, 0, sizeof(mcb));
    mcb.input = mac_input;
    mcb.tx_done = mac_tx_done;
    mcb.overheard = relay_on(nd) ? mac_overheard : NULL;
    mcb.ctx = nd;
    derive_seed(sc->seed, id, boot_purpose(SEED_MAC, nd->boots), seed);
    st = mip_mac_init(&nd->mac, &mcfg, &sim_radio_driver, nd, &mcb, seed, sizeof(seed),
                      (mip_utime_t)sim->now_us);
    if (st != MIP_OK) {
        snprintf(err, errlen, "node %u: mac: %s", id, mip_status_name(st));
        return false;
    }
    nd->rpl_joined_us = UINT64_MAX;
    if (rpl_on(nd)) {
        struct mip_rpl_config rc = sc->rpl;
        rc.mop = sc->rpl_mode == SIM_RPL_STORING ? MIP_RPL_MOP_STORING : MIP_RPL_MOP_NON_STORING;
        st = mip_rpl_init(&nd->rpl, &nd->stack, nd->netif, &rc, ms);
        if (st == MIP_OK && id == sc->rpl_root) {
            uint8_t prefix[16] = { 0 };
            memcpy(prefix, sc->prefix, 8);
            st = mip_rpl_root_start(&nd->rpl, prefix, 64, a.bytes, ms);
        }
        if (st != MIP_OK) {
            snprintf(err, errlen, "node %u: rpl: %s", id, mip_status_name(st));
            return false;
        }
    }
    if (!relay_on(nd))
        mip_ip_set_local_hook(&nd->stack, local_in, nd);
    if (relay_on(nd)) {
        st = mip_relay_init(&nd->relay, &nd->stack, &sc->relay, ms);
        if (st != MIP_OK) {
            snprintf(err, errlen, "relay: %s", mip_status_name(st));
            return false;
        }
    }
    return true;
}

static bool node_init(struct sim *sim, struct sim_node *nd, uint32_t id, char *err, size_t errlen)
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
    return node_boot(sim, nd, err, errlen);
}

/* Node down: the radio goes off (a reception in progress is lost; a frame
 * on the air finishes, as the power rail decays), and nothing of the node
 * runs: its pending deadlines go stale and sim_node_schedule leaves it
 * alone. Its state stays as it was, but only a reboot (sim_node_up)
 * brings it back. */
void sim_node_down(struct sim *sim, struct sim_node *nd)
{
    (void)sim;
    if (nd->radio == SIM_RADIO_RX)
        nd->c.frames_rx_lost++;
    sim_radio_driver.off(nd);
    nd->down = true;
    nd->stack_due = nd->mac_due = UINT64_MAX;
}

static bool attach_leaf(struct sim *sim, uint32_t leaf, uint32_t parent);

/* Node up: a reboot with state loss. Stack, netif, MAC and relay are
 * initialised again (fresh PRNG streams of the next boot), a parent
 * takes its sleepy leaves back, static routes come from the scenario
 * again, and the apps restart what runs at boot (apps.c). */
bool sim_node_up(struct sim *sim, struct sim_node *nd)
{
    uint32_t i;
    nd->down = false;
    nd->boots++;
    if (!node_boot(sim, nd, sim->err, sizeof(sim->err)))
        return false;
    if (nd->mac.cfg.rdc.kind == MIP_RDC_PARENT)
        for (i = 0; i < sim->n; i++)
            if (sim->node[i].mac.cfg.rdc.kind == MIP_RDC_LEAF &&
                sim->node[i].mac.cfg.rdc.parent == nd->id && !attach_leaf(sim, i, nd->id))
                return false;
    sim_routes_node_static(sim, nd->id);
    sim_apps_node_reboot(sim, nd);
    sim_node_schedule(sim, nd);
    return true;
}

/* Each sleepy leaf attaches to its parent (scenario.c checked the parent
 * runs the parent RDC), which must hear it. */
static bool attach_leaf(struct sim *sim, uint32_t i, uint32_t p)
{
    struct mip_802154_addr a = { MIP_802154_ADDR_SHORT, 0, { 0 } };
    a.short_addr = (uint16_t)i;
    if (mip_mac_add_child(&sim->node[p].mac, &a, (mip_utime_t)sim->now_us) != MIP_OK) {
        snprintf(sim->err, sizeof(sim->err), "mac: node %u cannot take leaf %u as a child", p, i);
        return false;
    }
    return true;
}

static bool attach_leaves(struct sim *sim)
{
    uint32_t i, p;
    for (i = 0; i < sim->n; i++) {
        if (sim->node[i].mac.cfg.rdc.kind != MIP_RDC_LEAF)
            continue;
        p = sim->node[i].mac.cfg.rdc.parent;
        if (sim_link_prr(sim, i, p, sim->sc->frame_max) <= 0.0 ||
            sim_link_prr(sim, p, i, sim->sc->frame_max) <= 0.0) {
            snprintf(sim->err, sizeof(sim->err), "mac: leaf %u's rdc.parent %u is not in its "
                     "radio range both ways", i, p);
            return false;
        }
        if (!attach_leaf(sim, i, p))
            return false;
    }
    return true;
}

/* link.addressing "6lowpan-nd": node 0 is the 6LBR (its address static,
 * announcing link.prefix as the PIO and as context 0, compression on);
 * every other node is a host. Lifetimes: RFC 4861's defaults for the PIO
 * (30 days valid, 7 preferred would outlast any run: a day and half a day
 * here), 30 min router lifetime, contexts for an hour. */
static bool nd6lo_start(struct sim *sim)
{
    struct mip_nd6lo_router_config *c = &sim->node[0].nd_router;
    struct mip_addr a;
    uint32_t i;
    mip_status st;
    memset(c, 0, sizeof(*c));
    memcpy(c->prefix, sim->sc->prefix, 8);
    c->prefix_len = 64;
    c->valid_s = 86400;
    c->preferred_s = 43200;
    c->router_lifetime_s = 1800;
    c->abro_version = 1;
    sim_node_address(sim, 0, &a);
    memcpy(c->lbr, a.bytes, 16);
    c->max_reg_lifetime_min = 60;
    c->ctx_count = 1;
    c->ctx[0].cid = 0;
    c->ctx[0].compress = true;
    c->ctx[0].lifetime_min = 60;
    memcpy(c->ctx[0].prefix, sim->sc->prefix, 8);
    for (i = 0; i < sim->n; i++) {
        struct sim_node *nd = &sim->node[i];
        st = i == 0 ? mip_nd6lo_router_start(&nd->stack, nd->netif, c)
                    : mip_nd6lo_host_start(&nd->stack, nd->netif, sim_ms(sim));
        if (st != MIP_OK) {
            snprintf(sim->err, sizeof(sim->err), "node %u: 6lowpan-nd: %s", i,
                     mip_status_name(st));
            return false;
        }
    }
    return true;
}

bool sim_build(struct sim *sim, struct sim_scenario *sc)
{
    uint32_t i;
    memset(sim, 0, sizeof(*sim));
    sim->sc = sc;
    sim_evq_init(&sim->q);
    sim->end_us = (uint64_t)(sc->duration_s * 1e6);
    sim->n = sc->n_nodes;
    sim->node = calloc(sim->n, sizeof(*sim->node));
    sim->tx_cap = 64;
    sim->tx = calloc(sim->tx_cap, sizeof(*sim->tx));
    if (sim->node == NULL || sim->tx == NULL) {
        snprintf(sim->err, sizeof(sim->err), "out of memory for %u nodes", sim->n);
        return false;
    }
    for (i = 0; i < sim->n; i++)
        if (!node_init(sim, &sim->node[i], i, sim->err, sizeof(sim->err)))
            return false;
    if (!sim_medium_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (!attach_leaves(sim))
        return false;
    if (!sim_routes_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (!sim_apps_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (!sim_services_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (!sim_dyn_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (sc->border.on && !sim_border_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (!sim_misbehave_build(sim, sim->err, sizeof(sim->err)))
        return false;
    if (!sim_record_init(sim)) {
        snprintf(sim->err, sizeof(sim->err), "out of memory for the records");
        return false;
    }
    if (sc->addressing == SIM_ADDR_ND6LO && !nd6lo_start(sim))
        return false;
    /* A duty-cycling MAC has deadlines from the start (its channel checks);
     * NullRDC nodes wait for their first frame or app event as before
     * (6LoWPAN-ND's first solicitation is one). */
    for (i = 0; i < sim->n; i++)
        if (sim->node[i].mac.cfg.rdc.kind != MIP_RDC_NULLRDC || sc->routing == SIM_ROUTING_RPL ||
            sc->addressing == SIM_ADDR_ND6LO)
            sim_node_schedule(sim, &sim->node[i]);
    return true;
}

void sim_event_run(struct sim *sim, const struct sim_event *ev)
{
    struct sim_node *nd = &sim->node[ev->node];
    sim->now_us = ev->time_us;
    switch (ev->kind) {
    case SIM_EV_STACK_POLL:
        if (ev->time_us != nd->stack_due)
            return;                     /* stale */
        nd->stack_due = UINT64_MAX;
        sim->events++;
        sim_node_schedule(sim, nd);
        break;
    case SIM_EV_MAC_POLL:
        if (ev->time_us != nd->mac_due)
            return;
        nd->mac_due = UINT64_MAX;
        sim->events++;
        sim_node_schedule(sim, nd);
        break;
    case SIM_EV_TX_END:
        sim->events++;
        sim_medium_tx_end(sim, ev->arg);
        break;
    case SIM_EV_APP:
        sim->events++;
        sim_app_event(sim, ev->arg);
        break;
    case SIM_EV_MISBEHAVE:
        sim->events++;
        sim_misbehave_event(sim, ev->arg);
        break;
    case SIM_EV_DYN:
    case SIM_EV_ROUTES:
    case SIM_EV_PROBE:
        sim->events++;
        sim_dyn_event(sim, ev->kind, ev->arg);
        break;
    default:
        break;
    }
}

bool sim_flows_finished(const struct sim *sim)
{
    return sim->n_flows > 0 && sim->flows_done == sim->n_flows && sim->sc->stop_when_done;
}

void sim_run_end(struct sim *sim)
{
    if (sim->now_us < sim->end_us && !sim_flows_finished(sim))
        sim->now_us = sim->end_us;      /* nothing left to happen: the run lasts its time */
    /* close the energy books at the final time */
    for (uint32_t i = 0; i < sim->n; i++)
        sim_radio_account(sim, &sim->node[i]);
}

void sim_run(struct sim *sim)
{
    struct sim_event ev;
    while (sim_evq_pop(&sim->q, &ev)) {
        if (ev.time_us > sim->end_us)
            break;
        sim_event_run(sim, &ev);
        if (sim_flows_finished(sim))
            break;
    }
    sim_run_end(sim);
}

void sim_free(struct sim *sim)
{
    uint32_t i;
    if (sim->node != NULL)
        for (i = 0; i < sim->n; i++) {
            free(sim->node[i].nbr);
            free(sim->node[i].coap);    /* a sensor flow's (sensor.c) */
        }
    free(sim->node);
    free(sim->tx);
    sim_apps_free(sim);
    sim_services_free(sim);
    sim_border_free(sim);
    sim_record_free(sim);
    sim_misbehave_free(sim);
    sim_dyn_free(sim);
    sim_evq_free(&sim->q);
}
