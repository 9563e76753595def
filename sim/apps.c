/*
 * Scenario applications on top of the real API:
 *
 *   tcp  bulk transfer from src to dst: N bytes (or for a duration), the
 *        bytes following the deterministic pattern of apps/http_server.h
 *        (byte i = (7i + (i >> 8) + (i >> 16)) & 0xFF); the receiver checks
 *        every byte against it.
 *   udp  periodic reports: every interval, payload_bytes of which the first
 *        12 carry a sequence number and the send time, the rest the pattern.
 *   ping ICMP echo requests from src (mip_ping_send) every interval, id =
 *        flow index, seq = echo number; the first 8 payload bytes carry the
 *        send time, so the RTT is measured from the reply alone. dst's stack
 *        answers by itself.
 *
 * A tiny-profile endpoint is the full build configured as the tiny profile
 * behaves: no SACK, no timestamps, no out-of-order buffer (the rx bitmap is
 * withheld) and rings of one segment, so at most one segment is in flight.
 */
#include "sim.h"
#include "http_server.h"
#include "json.h"
#include "moteip/cctrl_split.h"
#include "moteip/wire/ipv4.h"
#include <stdlib.h>
#include <string.h>

/* A merge group (flows' merge_group): one stream over n connections. */
struct sim_merge_grp {
    struct mip_cctrl_split split;       /* at the sender */
    struct mip_cctrl_merge merge;       /* at the receiver */
    struct sim_flow *m[MIP_CCTRL_SUBFLOWS_MAX];
    uint64_t merged;                    /* stream bytes out of the merge, in order */
    uint8_t  mem[];                     /* n * merge_buffer */
};

struct sim_flow {
    const struct sim_flow_spec *fs;
    struct sim *sim;
    uint32_t index;
    uint32_t next_to;               /* the next flow to the same node (sim->flow_to) */
    bool     done, complete, started;
    int      error;                 /* enum mip_tcp_error seen, 0 none */
    uint64_t start_us, done_us, last_rx_us;
    /* tcp */
    struct mip_tcp_conn snd, rcv;
    struct mip_tcp_listener lis;
    bool     accepted, fin_sent;
    uint8_t *mem;                   /* all four rings and the bitmap */
    uint64_t total;                 /* bytes to send; UINT64_MAX: duration */
    uint64_t sent, delivered;
    uint64_t arrivals;              /* readable calls that brought new bytes */
    bool     integrity_ok;
    uint64_t first_bad;
    uint64_t rtt_n;
    double   rtt_sum, rtt_min, rtt_max;
    uint32_t rexmits0, timeouts0, segs0;
    /* record.in_flight: at each new segment the source puts on the air, the
     * segments sent and not yet delivered ([T] Figs. 12-13) */
    uint16_t mss;
    uint64_t tx_high;               /* stream bytes on the air so far */
    uint64_t inflight_n, inflight_sum;
    uint32_t inflight_hist[32];     /* the last bin counts 31 and more */
    uint32_t rexmits, timeouts, segs_tx_snd, segs_tx_rcv;
    uint16_t rx_window;             /* the listener's receive buffer */
    /* TCP data segments handed to the sender's link (retransmissions too)
     * and delivered to the receiver's IP (duplicates too): segment loss
     * after link retries and reassembly (TCPlp fig. 6) */
    uint64_t data_tx, data_rx;
    /* congestion control of the sender, sampled after every event of its
     * node: the values last traced, and the time cwnd did not limit the
     * flight (at least the peer's window) */
    uint32_t cc_cwnd, cc_ssthresh, cc_rto, cc_wnd;
    bool     cc_seen;
    uint64_t cc_last_us, cc_time_us, cc_open_us;
    /* udp */
    uint32_t udp_sent, udp_recv, udp_dup;
    uint8_t *udp_seen;              /* one bit per sequence number */
    uint32_t udp_seen_bits;
    double   lat_sum, lat_max;
    uint32_t next_same_dst;         /* next udp flow with the same (dst, port) */
    /* sensor (sim/sensor.c) */
    struct sim_sensor *sensor;
    /* cctrl split and merge: the group (owned by its member 0), our index */
    struct sim_merge_grp *grp;
    uint8_t  grp_idx;
    /* ping: replies seen are marked in udp_seen, one bit per sequence number */
    uint32_t ping_sent, ping_recv, ping_dup;
    double   ping_rtt_sum, ping_rtt_min, ping_rtt_max;
    /* dynamics: an app event that found its source down waits for the
     * node's reboot; a reboot of an end ended the flow */
    bool     parked, rebooted;
};

static void flow_finish(struct sim_flow *f, bool complete)
{
    if (f->done)
        return;
    f->done = true;
    f->complete = complete;
    f->done_us = f->sim->now_us;
    f->sim->flows_done++;
    sim_trace(f->sim, "flow_done", f->fs->dst, "\"flow\":%u,\"complete\":%s", f->index,
              complete ? "true" : "false");
}

/* --- TCP sender ------------------------------------------------------------- */

static void grp_fill(struct sim_merge_grp *g);

/* The end of a duration flow: what was written is the stream. */
static void snd_time_up(struct sim_flow *f)
{
    if (f->fs->duration_s > 0.0 && f->total == UINT64_MAX &&
        f->sim->now_us >= f->start_us + (uint64_t)(f->fs->duration_s * 1e6))
        f->total = f->sent;
}

static void snd_fin(struct sim_flow *f)
{
    if (f->sent == f->total && !f->fin_sent && f->snd.state == MIP_TCP_ESTABLISHED) {
        f->fin_sent = true;
        (void)mip_tcp_close(&f->sim->node[f->fs->src].tcp, &f->snd);
    }
}

static void snd_fill(struct sim_flow *f)
{
    struct sim_node *nd = &f->sim->node[f->fs->src];
    if (f->grp != NULL) {
        grp_fill(f->grp);
        return;
    }
    /* larger than any MSS (1220 over 6LoWPAN): one write fills a segment,
     * as uIP's application fills the segment it is asked for (a 512-byte
     * first write went out alone as a short segment) */
    uint8_t chunk[1500];
    snd_time_up(f);
    while (f->sent < f->total && f->snd.state >= MIP_TCP_ESTABLISHED) {
        uint64_t left = f->total - f->sent;
        size_t n = sizeof(chunk), w;
        if (left < n)
            n = (size_t)left;
        if (mip_tcp_writable(&f->snd) < n)
            n = mip_tcp_writable(&f->snd);
        if (n == 0)
            break;
        mip_http_body_fill(f->sent, chunk, n);
        w = mip_tcp_write(&nd->tcp, &f->snd, chunk, n);
        f->sent += w;
        if (w < n)
            break;
    }
    snd_fin(f);
}

static void snd_connected(void *ctx, struct mip_tcp_conn *c)
{
    (void)c;
    snd_fill(ctx);
}

static void snd_writable(void *ctx, struct mip_tcp_conn *c)
{
    struct sim_flow *f = ctx;
    if (c->rtt.srtt_x8 != 0) {
        double r = (double)c->rtt.srtt_x8 / 8.0;
        if (f->rtt_n == 0 || r < f->rtt_min)
            f->rtt_min = r;
        if (r > f->rtt_max)
            f->rtt_max = r;
        f->rtt_sum += r;
        f->rtt_n++;
    }
    snd_fill(f);
}

static void snd_readable(void *ctx, struct mip_tcp_conn *c)
{
    struct sim_flow *f = ctx;
    uint8_t buf[64];
    struct sim_node *nd = &f->sim->node[f->fs->src];
    while (mip_tcp_read(&nd->tcp, c, buf, sizeof(buf)) > 0) {
        /* the receiver sends nothing; drain whatever comes */
    }
}

static void any_error(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why)
{
    struct sim_flow *f = ctx;
    (void)c;
    if (f->error == 0)
        f->error = (int)why;
    sim_trace(f->sim, "tcp_error", c == &f->snd ? f->fs->src : f->fs->dst,
              "\"flow\":%u,\"why\":%d", f->index, (int)why);
    flow_finish(f, false);
}

static void any_closed(void *ctx, struct mip_tcp_conn *c)
{
    (void)ctx;
    (void)c;
}

static const struct mip_tcp_callbacks snd_cb = {
    snd_connected, snd_readable, snd_writable, any_closed, any_error
};

/* A merge group's sender ([B] 4.5.1): chunk k of the stream on flow k mod n,
 * each flow's bytes its own pattern; stops at the first flow that cannot
 * take its chunk now (the stream waits for it). */
static void grp_fill(struct sim_merge_grp *g)
{
    uint8_t buf[1500];
    unsigned k;
    for (;;) {
        uint16_t room;
        struct sim_flow *f = g->m[mip_cctrl_split_next(&g->split, &room)];
        size_t n = room, w;
        snd_time_up(f);
        if (f->sent >= f->total || f->snd.state < MIP_TCP_ESTABLISHED)
            break;
        if (n > f->total - f->sent)
            n = (size_t)(f->total - f->sent);
        if (n > sizeof(buf))
            n = sizeof(buf);
        if (n > mip_tcp_writable(&f->snd))
            n = mip_tcp_writable(&f->snd);
        if (n == 0)
            break;
        mip_http_body_fill(f->sent, buf, n);
        w = mip_tcp_write(&f->sim->node[f->fs->src].tcp, &f->snd, buf, n);
        f->sent += w;
        (void)mip_cctrl_split_sent(&g->split, (uint16_t)w);
        if (w == 0)
            break;
    }
    for (k = 0; k < g->split.n; k++) {
        snd_time_up(g->m[k]);
        snd_fin(g->m[k]);
    }
}

/* --- TCP receiver ------------------------------------------------------------ */

/* Bytes read from a receiver's connection: checked against the flow's
 * pattern and counted. */
static void rcv_take(struct sim_flow *f, const uint8_t *buf, size_t n)
{
    size_t i;
    if (f->integrity_ok) {
        for (i = 0; i < n; i++) {
            if (buf[i] != mip_http_body_byte(f->delivered + i)) {
                f->integrity_ok = false;
                f->first_bad = f->delivered + i;
                break;
            }
        }
    }
    f->delivered += n;
    f->last_rx_us = f->sim->now_us;
}

/* A merge group's receiver: each connection is read only as far as the
 * merge has room for it (the rest stays in its TCP ring, whose window
 * closes), and the merge is drained in stream order, until nothing moves. */
static size_t grp_pull(struct sim_merge_grp *g, struct sim_flow *self)
{
    uint8_t buf[512];
    size_t got_self = 0;
    bool moved = true;
    while (moved) {
        unsigned k;
        size_t n;
        moved = false;
        for (k = 0; k < g->merge.n; k++) {
            struct sim_flow *f = g->m[k];
            struct mip_tcp *tcp = &f->sim->node[f->fs->dst].tcp;
            uint16_t room;
            while (f->accepted && (room = mip_cctrl_merge_room(&g->merge, (uint8_t)k)) > 0u &&
                   (n = mip_tcp_read(tcp, &f->rcv, buf, room < sizeof(buf) ? room : sizeof(buf))) > 0) {
                rcv_take(f, buf, n);
                (void)mip_cctrl_merge_put(&g->merge, (uint8_t)k, buf, n);
                if (f == self)
                    got_self += n;
                moved = true;
            }
        }
        while ((n = mip_cctrl_merge_read(&g->merge, buf, sizeof(buf))) > 0) {
            g->merged += n;
            moved = true;
        }
    }
    return got_self;
}

static void rcv_readable(void *ctx, struct mip_tcp_conn *c)
{
    struct sim_flow *f = ctx;
    struct sim_node *nd = &f->sim->node[f->fs->dst];
    uint8_t buf[512];
    size_t n;
    size_t got = 0;
    if (f->grp != NULL)
        got = grp_pull(f->grp, f);
    while (f->grp == NULL && (n = mip_tcp_read(&nd->tcp, c, buf, sizeof(buf))) > 0) {
        got += n;
        rcv_take(f, buf, n);
    }
    if (got > 0u && f->sim->dyn != NULL)
        sim_dyn_delivered(f->sim, f->index);
    /* TCP calls readable once per segment that advances the in-order data
     * (a retransmission that fills a hole: once for all it releases). */
    if (got > 0u)
        f->arrivals++;
    if (f->fs->bytes > 0 && f->delivered >= f->fs->bytes)
        flow_finish(f, f->integrity_ok && f->delivered == f->fs->bytes);
    if (mip_tcp_peer_closed(c)) {
        if (f->fs->bytes == 0)
            flow_finish(f, f->integrity_ok);
        (void)mip_tcp_close(&nd->tcp, c);
    }
}

static const struct mip_tcp_callbacks rcv_cb = {
    NULL, rcv_readable, NULL, any_closed, any_error
};

static struct mip_tcp_conn *rcv_accept(struct mip_tcp_listener *l, struct mip_tcp *tcp,
                                       uint16_t port)
{
    struct sim_flow *f = MIP_CONTAINER_OF(l, struct sim_flow, lis);
    (void)tcp;
    (void)port;
    if (f->accepted)
        return NULL;
    f->accepted = true;
    return &f->rcv;
}

static void endpoint_cfg(struct mip_tcp_conn *c, const struct sim_tcp_endpoint *e)
{
    c->cfg.cwnd_cap = e->cwnd_cap;
    c->cfg.sack = e->sack && !e->tiny;
    c->cfg.timestamps = e->timestamps && !e->tiny;
    c->cfg.nodelay = e->nodelay;
    c->cfg.limited_transmit = e->limited_transmit;
    c->cfg.dsack = e->dsack;
    c->cfg.early_retransmit = e->early_retransmit;
    c->cfg.tlp = e->tlp;
    c->cfg.delack_ms = e->delack_ms;
}

/* struct mip_tcp's backlog hook: the node's own segments of c that its
 * relay holds back (TSS backpressure at the sender). */
static uint8_t relay_backlog(void *ctx, const struct mip_tcp *tcp, const struct mip_tcp_conn *c)
{
    struct sim_node *nd = ctx;
    struct mip_addr local;
    mip_tcp_local_addr(tcp, c, &local);
    return mip_relay_backlog(nd->relay, &local, &c->remote, c->lport, c->rport);
}

static uint16_t path_mss(struct sim *sim, const struct sim_flow_spec *fs)
{
    struct sim_node *nd = &sim->node[fs->src];
    const struct mip_netif *nif = mip_netif_get(&nd->stack, nd->netif);
    uint16_t hdrs = sim->sc->ipv4 ? 40u : 60u;
    uint16_t mss = nif->mtu > hdrs + 64u ? (uint16_t)(nif->mtu - hdrs) : (uint16_t)64u;
    if (fs->mss != 0 && fs->mss < mss)
        mss = fs->mss;
    return mss;
}

/* What a TCP flow sets on its end's struct mip_tcp (per node, not per
 * connection: the last flow that sets it wins), at build and after the
 * node's reboot. */
static void tcp_node_settings(struct sim *sim, const struct sim_flow_spec *fs, struct sim_node *nd,
                              bool sender)
{
    const struct sim_tcp_endpoint *e = sender ? &fs->sender : &fs->receiver;
    if (sender && e->cwnd_hold_backlog != 0u && sim->sc->relay.mode != MIP_RELAY_OFF) {
        nd->tcp.backlog = relay_backlog;
        nd->tcp.backlog_ctx = nd;
        nd->tcp.cwnd_hold_backlog = e->cwnd_hold_backlog;
    }
    if (e->max_retries != 0u)
        nd->tcp.max_retries = e->max_retries;
    if (e->rto_min_ms != 0u)
        nd->tcp.rto_min_ms = e->rto_min_ms;
    if (fs->mss != 0)
        nd->tcp.mss_max = fs->mss;
}

static bool tcp_flow_build(struct sim *sim, struct sim_flow *f, char *err, size_t errlen)
{
    const struct sim_flow_spec *fs = f->fs;
    struct sim_node *src = &sim->node[fs->src], *dst = &sim->node[fs->dst];
    uint16_t mss = path_mss(sim, fs);
    uint32_t stx = fs->tx_buffer, srx = 256, rtx = 256, rrx = fs->rx_buffer;
    uint8_t *p;
    mip_status st;
    f->mss = mss;
    if (fs->sender.tiny)
        stx = mss;
    if (fs->receiver.tiny)
        rrx = mss;
    if (stx > 65535u || rrx > 65535u) {
        snprintf(err, errlen, "flows[%u]: buffers are at most 65535 bytes", f->index);
        return false;
    }
    f->mem = calloc(1, (size_t)stx + srx + rtx + rrx + (rrx + 7u) / 8u + (srx + 7u) / 8u);
    if (f->mem == NULL) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    p = f->mem;
    mip_tcp_conn_init(&f->snd, &snd_cb, f, p, (uint16_t)stx, p + stx, NULL, (uint16_t)srx);
    p += stx + srx;
    mip_tcp_conn_init(&f->rcv, &rcv_cb, f, p, (uint16_t)rtx, p + rtx,
                      fs->receiver.tiny ? NULL : p + rtx + rrx, (uint16_t)rrx);
    endpoint_cfg(&f->snd, &fs->sender);
    endpoint_cfg(&f->rcv, &fs->receiver);
    if (!src->tcp_on) {
        (void)mip_tcp_init(&src->tcp, &src->stack);
        src->tcp_on = true;
    }
    if (!dst->tcp_on) {
        (void)mip_tcp_init(&dst->tcp, &dst->stack);
        dst->tcp_on = true;
    }
    tcp_node_settings(sim, fs, src, true);
    tcp_node_settings(sim, fs, dst, false);
    f->rx_window = (uint16_t)rrx;
    st = mip_tcp_listen(&dst->tcp, &f->lis, fs->port, (uint16_t)rrx, rcv_accept);
    if (st != MIP_OK) {
        snprintf(err, errlen, "flows[%u]: node %u cannot listen on port %u: %s", f->index,
                 fs->dst, fs->port, mip_status_name(st));
        return false;
    }
    f->total = fs->bytes > 0 ? fs->bytes : UINT64_MAX;
    return true;
}

static void tcp_flow_start(struct sim *sim, struct sim_flow *f)
{
    struct sim_node *src = &sim->node[f->fs->src];
    struct mip_addr dst;
    mip_status st;
    sim_node_address(sim, f->fs->dst, &dst);
    sim_node_schedule(sim, src);            /* the stack's clock to now */
    f->rexmits0 = mip_tcp_stat(&src->tcp, MIP_TCP_STAT_rexmits);
    f->timeouts0 = mip_tcp_stat(&src->tcp, MIP_TCP_STAT_timeouts);
    f->segs0 = mip_tcp_stat(&src->tcp, MIP_TCP_STAT_segs_tx);
    st = mip_tcp_connect(&src->tcp, &f->snd, &dst, f->fs->port);
    if (st != MIP_OK) {
        f->error = -1;
        flow_finish(f, false);
    }
    if (f->fs->duration_s > 0.0)
        (void)sim_evq_push(&sim->q, f->start_us + (uint64_t)(f->fs->duration_s * 1e6),
                           SIM_EV_APP, f->fs->src, f->index);
    sim_node_schedule(sim, src);
}

/* --- UDP reports ---------------------------------------------------------------- */

static void udp_recv(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                     const uint8_t *data, size_t len)
{
    struct sim_node *nd = ctx;
    struct sim *sim = nd->sim;
    uint32_t src = m->src.family == MIP_AF_INET
                       ? (uint32_t)m->src.bytes[2] << 8 | m->src.bytes[3]
                       : sim_node_of_iid(sim, m->src.bytes);
    uint32_t k;
    (void)s;
    for (k = sim->flow_to[nd->id]; k != UINT32_MAX; k = sim->flow[k].next_to) {
        struct sim_flow *f = &sim->flow[k];
        uint32_t seq;
        uint64_t sent_us = 0;
        int i;
        if (f->fs->kind != SIM_FLOW_UDP || f->fs->dst != nd->id || f->fs->src != src ||
            f->fs->port != m->dst_port)
            continue;
        if (len < 12u)
            return;
        seq = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
        for (i = 0; i < 8; i++)
            sent_us = sent_us << 8 | data[4 + i];
        if (seq < f->udp_seen_bits && (f->udp_seen[seq / 8u] & (1u << (seq % 8u)))) {
            f->udp_dup++;
            return;
        }
        if (seq < f->udp_seen_bits)
            f->udp_seen[seq / 8u] |= (uint8_t)(1u << (seq % 8u));
        f->udp_recv++;
        if (f->fs->count != 0 && f->udp_sent >= f->fs->count && f->udp_recv >= f->fs->count)
            flow_finish(f, true);           /* the last report is in */
        {
            double lat = (double)(sim->now_us - sent_us) / 1000.0;
            f->lat_sum += lat;
            if (lat > f->lat_max)
                f->lat_max = lat;
        }
        return;
    }
}

static void udp_send(struct sim *sim, struct sim_flow *f)
{
    struct sim_node *nd = &sim->node[f->fs->src];
    struct mip_addr dst;
    uint8_t buf[1232];
    size_t len = f->fs->payload_bytes < 12u ? 12u : f->fs->payload_bytes;
    uint32_t seq = f->udp_sent;
    int i;
    if (len > sizeof(buf))
        len = sizeof(buf);
    sim_node_schedule(sim, nd);
    buf[0] = (uint8_t)(seq >> 24);
    buf[1] = (uint8_t)(seq >> 16);
    buf[2] = (uint8_t)(seq >> 8);
    buf[3] = (uint8_t)seq;
    for (i = 0; i < 8; i++)
        buf[4 + i] = (uint8_t)(sim->now_us >> (56 - 8 * i));
    mip_http_body_fill(12, buf + 12, len - 12u);
    sim_node_address(sim, f->fs->dst, &dst);
    if (f->fs->region_bits >= 0 && sim->sc->routing == SIM_ROUTING_GEO) {
        uint8_t ra[16];
        (void)mip_geo_region_addr(sim->node[f->fs->dst].geo, (uint8_t)f->fs->region_bits, ra);
        mip_addr_set6(&dst, ra);
    }
    (void)mip_udp_sendto(&nd->stack, NULL, f->fs->port, &dst, f->fs->port, MIP_NETIF_ANY,
                         buf, len);
    f->udp_sent++;
    sim_node_schedule(sim, nd);
    if (f->fs->count == 0 || f->udp_sent < f->fs->count) {
        /* jitter of up to 10 % of the interval, drawn from the node's own
         * stream, keeps reporters from synchronising */
        uint64_t iv = (uint64_t)(f->fs->interval_s * 1e6);
        uint64_t jitter = iv / 10u ? mip_rng_below(&nd->chan_rng, (uint32_t)(iv / 10u)) : 0u;
        (void)sim_evq_push(&sim->q, sim->now_us + iv - iv / 20u + jitter, SIM_EV_APP,
                           f->fs->src, f->index);
    } else {
        /* Physics-check fix: the flow used to finish right here, when its
         * last report was handed to the stack, so with stop_when_done the
         * run ended while that report was still on the air and it was
         * always counted lost (2000 reports over a perfect link: delivery
         * 0.9995). Now the flow is done when every report has arrived
         * (udp_recv) or, failing that, max(interval_s, 5 s) after the last
         * one was sent (sim_app_event), the wait of a ping flow: a report
         * crossing many hops with delayed link retries takes seconds. */
        uint64_t drain = (uint64_t)(f->fs->interval_s * 1e6);
        if (drain < 5000000u)
            drain = 5000000u;
        (void)sim_evq_push(&sim->q, sim->now_us + drain, SIM_EV_APP, f->fs->src, f->index);
    }
}

/* --- ping ------------------------------------------------------------------------- */

/* How long a ping flow waits for the last reply after its last echo: one
 * interval, but at least this long (a multi-hop 6LoWPAN round trip with
 * link retries takes seconds). */
#define PING_WAIT_MIN_US 5000000u

static uint32_t ping_cap(const struct sim_flow *f)
{
    /* count 0 ("until the end") stops where the 16-bit sequence would wrap */
    return f->fs->count != 0 ? f->fs->count : 65535u;
}

/* The one echo-reply handler of a node (mip_ping_set_handler): the ICMP id
 * is the flow index, so the flow is found at once and the reply checked
 * against its destination. */
static void ping_reply(void *ctx, struct mip_stack *s, const struct mip_addr *from,
                       uint16_t id, uint16_t seq, const uint8_t *data, size_t len)
{
    struct sim_node *nd = ctx;
    struct sim *sim = nd->sim;
    struct sim_flow *f;
    struct mip_addr want;
    uint64_t sent_us = 0;
    double rtt;
    int i;
    (void)s;
    if (id >= sim->n_flows)
        return;
    f = &sim->flow[id];
    if (f->fs->kind != SIM_FLOW_PING || f->fs->src != nd->id)
        return;
    sim_node_address(sim, f->fs->dst, &want);
    if (!mip_addr_eq(from, &want) || len < 8u || seq >= f->ping_sent)
        return;
    for (i = 0; i < 8; i++)
        sent_us = sent_us << 8 | data[i];
    if (sent_us > sim->now_us)
        return;
    if (f->udp_seen[seq / 8u] & (1u << (seq % 8u))) {
        f->ping_dup++;
        return;
    }
    f->udp_seen[seq / 8u] |= (uint8_t)(1u << (seq % 8u));
    f->ping_recv++;
    rtt = (double)(sim->now_us - sent_us) / 1000.0;
    if (f->ping_recv == 1 || rtt < f->ping_rtt_min)
        f->ping_rtt_min = rtt;
    if (rtt > f->ping_rtt_max)
        f->ping_rtt_max = rtt;
    f->ping_rtt_sum += rtt;
    if (f->ping_sent == ping_cap(f) && f->ping_recv == f->ping_sent)
        flow_finish(f, true);       /* all answered: no need to wait */
}

static bool ping_flow_build(struct sim *sim, struct sim_flow *f, char *err, size_t errlen)
{
    struct sim_node *src = &sim->node[f->fs->src];
    f->udp_seen_bits = ping_cap(f);
    f->udp_seen = calloc((size_t)(f->udp_seen_bits + 7u) / 8u, 1);
    if (f->udp_seen == NULL) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    mip_ping_set_handler(&src->stack, ping_reply, src);
    return true;
}

/* An app event of a ping flow: the next echo, or the end of the wait
 * after the last one. */
static void ping_send(struct sim *sim, struct sim_flow *f)
{
    struct sim_node *nd = &sim->node[f->fs->src];
    struct mip_addr dst;
    uint8_t buf[1232];
    size_t len = f->fs->payload_bytes;
    uint64_t iv = (uint64_t)(f->fs->interval_s * 1e6);
    int i;
    if (f->ping_sent >= ping_cap(f)) {
        flow_finish(f, true);
        return;
    }
    if (len < 8u)
        len = 8u;
    if (len > sizeof(buf))
        len = sizeof(buf);
    sim_node_schedule(sim, nd);
    for (i = 0; i < 8; i++)
        buf[i] = (uint8_t)(sim->now_us >> (56 - 8 * i));
    mip_http_body_fill(8, buf + 8, len - 8u);
    sim_node_address(sim, f->fs->dst, &dst);
    /* A request the stack could not send (no buffer) is simply lost, as
     * it would be on the air. */
    (void)mip_ping_send(&nd->stack, &dst, (uint16_t)f->index, (uint16_t)f->ping_sent, buf, len);
    f->ping_sent++;
    sim_node_schedule(sim, nd);
    if (f->ping_sent < ping_cap(f))
        (void)sim_evq_push(&sim->q, sim->now_us + iv, SIM_EV_APP, f->fs->src, f->index);
    else
        (void)sim_evq_push(&sim->q, sim->now_us + (iv > PING_WAIT_MIN_US ? iv : PING_WAIT_MIN_US),
                           SIM_EV_APP, f->fs->src, f->index);
}

/* --- common ------------------------------------------------------------------------ */

/* Flows with a nonzero merge_group: one group per value, 2..4 tcp flows
 * between the same two nodes (scenario.c checked the kind). */
static bool merge_groups_build(struct sim *sim, char *err, size_t errlen)
{
    size_t k, j;
    for (k = 0; k < sim->n_flows; k++) {
        struct sim_flow *f = &sim->flow[k];
        struct sim_merge_grp *g;
        uint8_t n = 0;
        if (f->fs->merge_group == 0u || f->grp != NULL)
            continue;
        g = calloc(1, sizeof(*g) + (size_t)MIP_CCTRL_SUBFLOWS_MAX * f->fs->merge_buffer);
        if (g == NULL) {
            snprintf(err, errlen, "out of memory");
            return false;
        }
        for (j = k; j < sim->n_flows; j++) {
            struct sim_flow *o = &sim->flow[j];
            if (o->fs->merge_group != f->fs->merge_group)
                continue;
            if (o->fs->kind != SIM_FLOW_TCP || o->fs->src != f->fs->src || o->fs->dst != f->fs->dst ||
                o->fs->tx_buffer != f->fs->tx_buffer || o->fs->merge_buffer != f->fs->merge_buffer ||
                n == MIP_CCTRL_SUBFLOWS_MAX) {
                free(g);
                snprintf(err, errlen, "flows[%zu]: merge_group %u: at most %u tcp flows with the "
                         "src, dst, tx_buffer and merge_buffer of flows[%zu]", j,
                         f->fs->merge_group, MIP_CCTRL_SUBFLOWS_MAX, k);
                return false;
            }
            g->m[n] = o;
            o->grp = g;
            o->grp_idx = n++;
        }
        if (n < 2u) {
            f->grp = NULL;
            free(g);
            snprintf(err, errlen, "flows[%zu]: merge_group %u has one flow (it takes 2..%u)", k,
                     f->fs->merge_group, MIP_CCTRL_SUBFLOWS_MAX);
            return false;
        }
        (void)mip_cctrl_split_init(&g->split, n, (uint16_t)f->fs->tx_buffer);
        (void)mip_cctrl_merge_init(&g->merge, n, (uint16_t)f->fs->tx_buffer, g->mem,
                                   f->fs->merge_buffer);
    }
    return true;
}

bool sim_apps_build(struct sim *sim, char *err, size_t errlen)
{
    const struct sim_scenario *sc = sim->sc;
    size_t k;
    uint32_t i;
    sim->n_flows = sc->n_flows;
    sim->flow = calloc(sc->n_flows ? sc->n_flows : 1u, sizeof(*sim->flow));
    sim->flow_to = malloc((sim->n ? sim->n : 1u) * sizeof(*sim->flow_to));
    if (sim->flow == NULL || sim->flow_to == NULL) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    /* The flows that end at each node, in flow order: what a datagram
     * arriving there may belong to, without scanning every flow. */
    for (i = 0; i < sim->n; i++)
        sim->flow_to[i] = UINT32_MAX;
    for (k = sc->n_flows; k-- > 0;) {
        sim->flow[k].next_to = sim->flow_to[sc->flows[k].dst];
        sim->flow_to[sc->flows[k].dst] = (uint32_t)k;
    }
    for (k = 0; k < sc->n_flows; k++) {
        struct sim_flow *f = &sim->flow[k];
        f->fs = &sc->flows[k];
        f->sim = sim;
        f->index = (uint32_t)k;
        f->integrity_ok = true;
        f->start_us = (uint64_t)(f->fs->start_s * 1e6);
        if (f->fs->kind == SIM_FLOW_TCP) {
            if (!tcp_flow_build(sim, f, err, errlen))
                return false;
        } else if (f->fs->kind == SIM_FLOW_PING) {
            if (!ping_flow_build(sim, f, err, errlen))
                return false;
        } else if (f->fs->kind == SIM_FLOW_SENSOR) {
            f->sensor = sim_sensor_new(sim, (uint32_t)k, f->fs, err, errlen);
            if (f->sensor == NULL || err[0] != '\0')
                return false;
        } else {
            struct sim_node *dst = &sim->node[f->fs->dst];
            mip_status st;
            uint64_t bits = f->fs->count ? f->fs->count
                                         : (uint64_t)(sc->duration_s / f->fs->interval_s) + 2u;
            if (bits > 100000000u)
                bits = 100000000u;
            f->udp_seen_bits = (uint32_t)bits;
            f->udp_seen = calloc((size_t)(bits + 7u) / 8u, 1);
            if (f->udp_seen == NULL) {
                snprintf(err, errlen, "out of memory");
                return false;
            }
            st = mip_udp_bind(&dst->stack, f->fs->port, udp_recv, dst);
            if (st != MIP_OK && st != MIP_ERR_INUSE) {
                snprintf(err, errlen, "flows[%zu]: node %u cannot bind UDP port %u: %s", k,
                         f->fs->dst, f->fs->port, mip_status_name(st));
                return false;
            }
        }
        (void)sim_evq_push(&sim->q, f->start_us, SIM_EV_APP, f->fs->src, (uint32_t)k);
    }
    return merge_groups_build(sim, err, errlen);
}

void sim_app_event(struct sim *sim, uint32_t idx)
{
    struct sim_flow *f = &sim->flow[idx];
    if (f->done)
        return;
    if (sim->node[f->fs->src].down) {
        f->parked = true;                   /* runs when the node is back */
        return;
    }
    if (f->fs->kind == SIM_FLOW_TCP) {
        if (!f->started) {
            f->started = true;
            tcp_flow_start(sim, f);
        } else {
            struct sim_node *src = &sim->node[f->fs->src];
            sim_node_schedule(sim, src);
            snd_fill(f);                    /* the duration is over */
            sim_node_schedule(sim, src);
        }
    } else if (f->fs->kind == SIM_FLOW_UDP && f->fs->count != 0 &&
               f->udp_sent >= f->fs->count) {
        flow_finish(f, true);               /* drain time after the last report */
    } else if (f->fs->kind == SIM_FLOW_PING) {
        f->started = true;
        ping_send(sim, f);
    } else if (f->fs->kind == SIM_FLOW_SENSOR) {
        f->started = true;
        if (sim_sensor_event(sim, f->sensor))
            flow_finish(f, true);
    } else {
        f->started = true;
        udp_send(sim, f);
    }
}

/*
 * nd was rebooted: what its firmware starts at boot runs again, and what
 * lived in its RAM is gone. A TCP flow with an end there that had started
 * ends, incomplete, with error "reboot" (the connection's state is lost;
 * the peer learns of it by a reset or its timeouts); TCP comes up with the
 * flows' node settings and the listeners of flows that have not started;
 * UDP sinks bind again and a ping source's reply handler is set again.
 * App events that came while the node was down run now.
 */
void sim_apps_node_reboot(struct sim *sim, struct sim_node *nd)
{
    size_t k;
    if (nd->tcp_on)
        (void)mip_tcp_init(&nd->tcp, &nd->stack);
    for (k = 0; k < sim->n_flows; k++) {
        struct sim_flow *f = &sim->flow[k];
        const struct sim_flow_spec *fs = f->fs;
        bool src = fs->src == nd->id, dst = fs->dst == nd->id;
        if (!src && !dst)
            continue;
        if (fs->kind == SIM_FLOW_TCP) {
            if (f->started && !f->done) {
                f->rebooted = true;
                sim_trace(sim, "tcp_error", nd->id, "\"flow\":%u,\"why\":\"reboot\"", f->index);
                flow_finish(f, false);
            }
            if (f->done)
                continue;
            tcp_node_settings(sim, fs, nd, src);
            if (dst)
                (void)mip_tcp_listen(&nd->tcp, &f->lis, fs->port, f->rx_window, rcv_accept);
        } else if (fs->kind == SIM_FLOW_UDP && dst) {
            (void)mip_udp_bind(&nd->stack, fs->port, udp_recv, nd);
        } else if (fs->kind == SIM_FLOW_PING && src) {
            mip_ping_set_handler(&nd->stack, ping_reply, nd);
        }
        if (src && f->parked && !f->done) {
            f->parked = false;
            (void)sim_evq_push(&sim->q, sim->now_us, SIM_EV_APP, fs->src, f->index);
        }
    }
}

void sim_apps_free(struct sim *sim)
{
    size_t k;
    if (sim->flow == NULL)
        return;
    for (k = 0; k < sim->n_flows; k++) {
        free(sim->flow[k].mem);
        free(sim->flow[k].udp_seen);
        sim_sensor_free(sim->flow[k].sensor);
        if (sim->flow[k].grp != NULL && sim->flow[k].grp_idx == 0u)
            free(sim->flow[k].grp);
    }
    free(sim->flow);
    sim->flow = NULL;
    free(sim->flow_to);
    sim->flow_to = NULL;
}

uint32_t sim_route_hops(struct sim *sim, uint32_t a, uint32_t b);

void sim_apps_source_tx(struct sim *sim, uint32_t node, uint32_t seq, uint32_t len)
{
    size_t k;
    for (k = 0; k < sim->n_flows; k++) {
        struct sim_flow *f = &sim->flow[k];
        uint64_t end, left, n;
        if (f->fs->kind != SIM_FLOW_TCP || f->fs->src != node || f->mss == 0u ||
            f->snd.state < MIP_TCP_SYN_SENT)
            continue;
        /* stream offset of the segment's end (one connection: < 4 GB) */
        end = (uint64_t)(uint32_t)(seq + len - (f->snd.iss + 1u));
        if (end <= f->tx_high || end > f->total)
            continue;           /* a retransmission, or another connection */
        f->tx_high = end;
        left = end > f->delivered ? end - f->delivered : 0u;
        n = (left + f->mss - 1u) / f->mss;
        f->inflight_n++;
        f->inflight_sum += n;
        f->inflight_hist[n < 31u ? n : 31u]++;
        return;
    }
}

void sim_apps_flow_counts(const struct sim *sim, uint32_t flow, struct sim_flow_counts *out)
{
    const struct sim_flow *f = &sim->flow[flow];
    const struct sim_node *src = &sim->node[f->fs->src];
    memset(out, 0, sizeof(*out));
    out->tcp = f->fs->kind == SIM_FLOW_TCP;
    out->udp = f->fs->kind == SIM_FLOW_UDP;
    out->started = f->started;
    out->done = f->done;
    out->complete = f->complete;
    out->done_us = f->done_us;
    out->delivered = f->delivered;
    out->last_rx_us = f->last_rx_us;
    if (out->tcp && src->tcp_on) {
        out->timeouts = mip_tcp_stat(&src->tcp, MIP_TCP_STAT_timeouts);
        out->rexmits = mip_tcp_stat(&src->tcp, MIP_TCP_STAT_rexmits);
    }
    out->data_tx = f->data_tx;
    out->data_rx = f->data_rx;
    out->sent = f->udp_sent;
    out->received = f->udp_recv;
}

struct sim_sensor *sim_flow_sensor(struct sim *sim, uint32_t flow)
{
    return flow < sim->n_flows ? sim->flow[flow].sensor : NULL;
}

/* TCP bytes and in-order segment arrivals, UDP reports and their payload;
 * pings carry no application data. */
void sim_apps_delivered(const struct sim *sim, struct sim_delivered *out)
{
    size_t k;
    memset(out, 0, sizeof(*out));
    for (k = 0; k < sim->n_flows; k++) {
        const struct sim_flow *f = &sim->flow[k];
        if (f->fs->kind == SIM_FLOW_TCP) {
            out->bytes += f->delivered;
            out->segments += f->arrivals;
        } else if (f->fs->kind == SIM_FLOW_UDP) {
            out->bytes += (uint64_t)f->udp_recv * f->fs->payload_bytes;
            out->segments += f->udp_recv;
        } else if (f->fs->kind == SIM_FLOW_SENSOR) {
            sim_sensor_delivered(f->sensor, &out->bytes, &out->segments);
        }
    }
}

/* --- segments and congestion control, observed ---------------------------------- */

/* A TCP segment in the IP datagram ip[0..n) (n may be less than the
 * datagram, dgram_len the whole): its ports and whether it carries data. */
static bool tcp_of(const uint8_t *ip, size_t n, size_t dgram_len, uint16_t *sport,
                   uint16_t *dport, bool *data)
{
    size_t hl;
    uint8_t proto;
    if (n >= 40u && (ip[0] >> 4) == 6u) {
        hl = sim_ip6_upper(ip, n, &proto);
        if (hl == 0u)
            return false;
    } else if (n >= 20u && (ip[0] >> 4) == 4u) {
        hl = (size_t)(ip[0] & 15u) * 4u;
        proto = ip[9];
        if ((ip[6] & 0x3Fu) != 0u || ip[7] != 0u)
            return false;       /* an IPv4 fragment */
    } else {
        return false;
    }
    if (proto != MIP_IPPROTO_TCP || n < hl + 20u)
        return false;
    *sport = (uint16_t)(ip[hl] << 8 | ip[hl + 1u]);
    *dport = (uint16_t)(ip[hl + 2u] << 8 | ip[hl + 3u]);
    *data = dgram_len > hl + (size_t)(ip[hl + 12u] >> 4) * 4u;
    return true;
}

/* The flow whose sender (node src) uses these ports. */
static struct sim_flow *tcp_flow_of(struct sim *sim, uint32_t src, uint16_t sport, uint16_t dport)
{
    size_t k;
    for (k = 0; k < sim->n_flows; k++) {
        struct sim_flow *f = &sim->flow[k];
        if (f->fs->kind == SIM_FLOW_TCP && f->fs->src == src && f->snd.lport == sport &&
            f->snd.rport == dport)
            return f;
    }
    return NULL;
}

/* A relay owns the local hook that counts arrivals. */
static bool sim_apps_relay_hides(const struct sim *sim)
{
    return sim->sc->relay.mode != MIP_RELAY_OFF;
}

void sim_apps_frame_out(struct sim *sim, struct sim_node *nd, const uint8_t *frame, size_t len)
{
    uint8_t buf[80];
    struct mip_lowpan_peek pk;
    uint16_t sp, dp;
    bool data;
    size_t k;
    struct sim_flow *f;
    if (!nd->tcp_on)
        return;         /* no TCP flow starts here */
    for (k = 0; k < sim->n_flows; k++)
        if (sim->flow[k].fs->kind == SIM_FLOW_TCP && sim->flow[k].fs->src == nd->id)
            break;
    if (k == sim->n_flows ||
        mip_lowpan_peek_frame(&nd->stack, nd->netif, frame, len, buf, sizeof(buf), &pk) != MIP_OK ||
        !tcp_of(buf, pk.ip_len, pk.dgram_len, &sp, &dp, &data) || !data)
        return;
    f = tcp_flow_of(sim, nd->id, sp, dp);
    if (f != NULL)
        f->data_tx++;
}

/* The hops a datagram of a flow took, from its hop limit (the source
 * sends with its stack's default), for the path stretch. */
static void flow_hops(struct sim *sim, struct sim_node *nd, const uint8_t *ip, size_t len)
{
    uint32_t src;
    uint32_t k;
    uint8_t left, proto;
    if (len >= 40u && (ip[0] >> 4) == 6u) {
        src = sim_node_of_iid(sim, ip + 8);
        left = ip[7];
        if (sim_ip6_upper(ip, len, &proto) == 0u)
            return;
    } else if (len >= 20u && (ip[0] >> 4) == 4u) {
        src = (uint32_t)ip[14] << 8 | ip[15];
        left = ip[8];
        proto = ip[9];
    } else {
        return;
    }
    if (src >= sim->n || (proto != MIP_IPPROTO_TCP && proto != 17u))
        return;
    for (k = sim->flow_to[nd->id]; k != UINT32_MAX; k = sim->flow[k].next_to) {
        const struct sim_flow_spec *fs = sim->flow[k].fs;
        if (fs->src == src && fs->dst == nd->id &&
            (fs->kind == SIM_FLOW_UDP) == (proto == 17u) &&
            (fs->kind == SIM_FLOW_TCP || fs->kind == SIM_FLOW_UDP)) {
            uint8_t ttl = sim->node[src].stack.default_ttl;
            if (ttl >= left)
                sim_dyn_hops(sim, (uint32_t)k, (uint32_t)(ttl - left) + 1u);
            return;
        }
    }
}

void sim_apps_datagram_in(struct sim *sim, struct sim_node *nd, const uint8_t *ip, size_t len)
{
    uint16_t sp, dp;
    bool data;
    uint32_t k;
    if (sim->dyn != NULL)
        flow_hops(sim, nd, ip, len);
    if (!tcp_of(ip, len, len, &sp, &dp, &data) || !data)
        return;
    for (k = sim->flow_to[nd->id]; k != UINT32_MAX; k = sim->flow[k].next_to) {
        struct sim_flow *f = &sim->flow[k];
        /* the sender's ports: the receiver's connection does not exist yet
         * when the first data segment completes the handshake */
        if (f->fs->kind == SIM_FLOW_TCP && f->fs->dst == nd->id && f->snd.rport == dp &&
            f->snd.lport == sp) {
            f->data_rx++;
            return;
        }
    }
}

/* Samples the congestion control of every flow node nd sends: traces a
 * change (the trace's tcp_cc events) and accounts the time since the last
 * sample. */
void sim_apps_sample_cc(struct sim *sim, struct sim_node *nd)
{
    size_t k;
    if (!nd->tcp_on)
        return;         /* no TCP flow starts here: skip the O(flows) scan */
    for (k = 0; k < sim->n_flows; k++) {
        struct sim_flow *f = &sim->flow[k];
        const struct mip_tcp_conn *c = &f->snd;
        uint32_t cwnd, rto, wnd;
        if (f->fs->kind != SIM_FLOW_TCP || f->fs->src != nd->id || f->done ||
            c->state != MIP_TCP_ESTABLISHED)
            continue;
        cwnd = tcp_cc_window(&c->cc);
        rto = tcp_rtt_rto(&c->rtt);
        wnd = c->snd_wnd;
        if (f->cc_seen) {
            uint64_t dt = sim->now_us - f->cc_last_us;
            f->cc_time_us += dt;
            if (f->cc_cwnd >= f->cc_wnd)
                f->cc_open_us += dt;
        }
        f->cc_last_us = sim->now_us;
        if (f->cc_seen && cwnd == f->cc_cwnd && c->cc.ssthresh == f->cc_ssthresh &&
            rto == f->cc_rto && wnd == f->cc_wnd)
            continue;
        f->cc_seen = true;
        f->cc_cwnd = cwnd;
        f->cc_ssthresh = c->cc.ssthresh;
        f->cc_rto = rto;
        f->cc_wnd = wnd;
        sim_trace(sim, "tcp_cc", nd->id,
                  "\"flow\":%u,\"cwnd\":%u,\"ssthresh\":%u,\"rto_ms\":%u,\"wnd\":%u,"
                  "\"srtt_ms\":%.3f,\"flight\":%u",
                  f->index, cwnd, c->cc.ssthresh, rto, wnd, (double)c->rtt.srtt_x8 / 8.0,
                  c->snd_max - c->snd_una);
    }
}

/* One result object per flow (docs/SIMULATOR.md lists the fields). */
void sim_apps_write(struct sim *sim, struct sj_writer *w)
{
    size_t k;
    sj_w_begin_array(w);
    for (k = 0; k < sim->n_flows; k++) {
        struct sim_flow *f = &sim->flow[k];
        const struct sim_flow_spec *fs = f->fs;
        uint64_t end = f->done ? f->done_us : sim->now_us;
        double secs = end > f->start_us ? (double)(end - f->start_us) / 1e6 : 0.0;
        sj_w_begin_object(w);
        sj_w_member_uint(w, "id", k);
        sj_w_key(w, "type");
        sj_w_string(w, fs->kind == SIM_FLOW_TCP      ? "tcp"
                       : fs->kind == SIM_FLOW_PING   ? "ping"
                       : fs->kind == SIM_FLOW_SENSOR ? "sensor"
                                                     : "udp");
        sj_w_member_uint(w, "src", fs->src);
        sj_w_member_uint(w, "dst", fs->dst);
        sj_w_member_uint(w, "hops", sim_route_hops(sim, fs->src, fs->dst));
        sj_w_key(w, "complete");
        sj_w_bool(w, f->complete);
        if (fs->kind == SIM_FLOW_TCP) {
            struct sim_node *src = &sim->node[fs->src];
            sj_w_member_uint(w, "bytes_expected", fs->bytes);
            sj_w_member_uint(w, "bytes_sent", f->sent);
            sj_w_member_uint(w, "bytes_delivered", f->delivered);
            sj_w_member_uint(w, "segments_delivered", f->arrivals);
            if (f->grp != NULL) {
                sj_w_key(w, "merge");
                sj_w_begin_object(w);
                sj_w_member_uint(w, "group", fs->merge_group);
                sj_w_member_uint(w, "index", f->grp_idx);
                sj_w_member_uint(w, "bytes_merged", f->grp->merged);
                sj_w_end_object(w);
            }
            sj_w_key(w, "integrity_ok");
            sj_w_bool(w, f->integrity_ok);
            sj_w_key(w, "first_bad_offset");
            if (f->integrity_ok)
                sj_w_null(w);
            else
                sj_w_uint(w, f->first_bad);
            sj_w_key(w, "completion_time_s");
            if (f->complete)
                sj_w_double(w, secs);
            else
                sj_w_null(w);
            sj_w_member_double(w, "goodput_bps", secs > 0.0 ? (double)f->delivered * 8.0 / secs : 0.0);
            sj_w_member_uint(w, "e2e_retransmissions",
                mip_tcp_stat(&src->tcp, MIP_TCP_STAT_rexmits) - f->rexmits0);
            sj_w_member_uint(w, "rto_timeouts", mip_tcp_stat(&src->tcp, MIP_TCP_STAT_timeouts) - f->timeouts0);
            sj_w_member_uint(w, "segments_sent", mip_tcp_stat(&src->tcp, MIP_TCP_STAT_segs_tx) - f->segs0);
            sj_w_member_uint(w, "data_segments_sent", f->data_tx);
            sj_w_member_uint(w, "data_segments_arrived", f->data_rx);
            sj_w_key(w, "segment_loss");
            if (f->data_tx > 0u && !sim_apps_relay_hides(sim))
                sj_w_double(w, f->data_rx >= f->data_tx ? 0.0
                                                        : 1.0 - (double)f->data_rx / (double)f->data_tx);
            else
                sj_w_null(w);
            sj_w_key(w, "cwnd_at_window_fraction");
            if (f->cc_time_us > 0u)
                sj_w_double(w, (double)f->cc_open_us / (double)f->cc_time_us);
            else
                sj_w_null(w);
            sj_w_key(w, "error");
            sj_w_string(w, f->rebooted ? "reboot" : f->error == 0 ? "none" :
                           f->error < 0 ? "connect" :
                           f->error == MIP_TCP_ERR_TIMEOUT ? "timeout" :
                           f->error == MIP_TCP_ERR_RESET ? "reset" :
                           f->error == MIP_TCP_ERR_REFUSED ? "refused" : "other");
            sj_w_key(w, "srtt_ms");
            sj_w_begin_object(w);
            sj_w_member_uint(w, "samples", f->rtt_n);
            sj_w_member_double(w, "min", f->rtt_n ? f->rtt_min : 0.0);
            sj_w_member_double(w, "mean", f->rtt_n ? f->rtt_sum / (double)f->rtt_n : 0.0);
            sj_w_member_double(w, "max", f->rtt_max);
            sj_w_end_object(w);
            if (sim->sc->record_in_flight) {
                unsigned b, last = 0;
                for (b = 0; b < 32u; b++)
                    if (f->inflight_hist[b] != 0u)
                        last = b;
                sj_w_key(w, "in_flight");
                sj_w_begin_object(w);
                sj_w_member_uint(w, "samples", f->inflight_n);
                sj_w_member_double(w, "mean", f->inflight_n ?
                                   (double)f->inflight_sum / (double)f->inflight_n : 0.0);
                sj_w_key(w, "hist");
                sj_w_begin_array(w);
                for (b = 0; b <= last && f->inflight_n; b++)
                    sj_w_uint(w, f->inflight_hist[b]);
                sj_w_end_array(w);
                sj_w_end_object(w);
            }
        } else if (fs->kind == SIM_FLOW_SENSOR) {
            sim_sensor_write(sim, f->sensor, w);
        } else if (fs->kind == SIM_FLOW_PING) {
            sj_w_member_uint(w, "sent", f->ping_sent);
            sj_w_member_uint(w, "received", f->ping_recv);
            sj_w_member_uint(w, "duplicates", f->ping_dup);
            sj_w_member_double(w, "loss_ratio",
                  f->ping_sent ? (double)(f->ping_sent - f->ping_recv) / f->ping_sent : 0.0);
            sj_w_key(w, "rtt_ms");
            sj_w_begin_object(w);
            sj_w_member_double(w, "min", f->ping_recv ? f->ping_rtt_min : 0.0);
            sj_w_member_double(w, "mean", f->ping_recv ? f->ping_rtt_sum / f->ping_recv : 0.0);
            sj_w_member_double(w, "max", f->ping_rtt_max);
            sj_w_end_object(w);
        } else {
            sj_w_member_uint(w, "sent", f->udp_sent);
            sj_w_member_uint(w, "received", f->udp_recv);
            sj_w_member_uint(w, "duplicates", f->udp_dup);
            sj_w_member_double(w, "delivery_ratio", f->udp_sent ? (double)f->udp_recv / f->udp_sent : 0.0);
            sj_w_member_double(w, "latency_mean_ms", f->udp_recv ? f->lat_sum / f->udp_recv : 0.0);
            sj_w_member_double(w, "latency_max_ms", f->lat_max);
        }
        sj_w_end_object(w);
    }
    sj_w_end_array(w);
}
