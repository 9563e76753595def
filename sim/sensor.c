/*
 * The sensor workload of TCPlp s.9 (seeds/003): a node takes a reading of
 * reading_bytes every interval_s, keeps it in an application queue of
 * `queue` readings (one more when the queue is full is lost: `queue_drops`)
 * and hands the queue to its transport once `batch` readings wait (1: each
 * at once), until it is empty. The transports:
 *
 *   tcp    one connection for the whole run; readings are written into the
 *          send ring as far as it takes them (a reading may straddle
 *          segments) and read back from the byte stream at the server;
 *   coap   CON POST /r (apps/coap.h, RFC 7252 timers) of as many whole
 *          readings as fit coap_payload bytes, one message outstanding
 *          (NSTART 1), with a Block1 option numbering the messages of one
 *          batch (NUM only: M unset, RFC 7959 2.2); a message given up after MAX_RETRANSMIT loses its
 *          readings (TCPlp: CoAP "gives up ... and moves to the next
 *          packet"; `readings_given_up` counts them, though some did arrive
 *          and only their responses were lost);
 *   cocoa  the same with CoCoA's RTO estimators.
 *
 * A reading is its sequence number (4 bytes, big-endian), the time it was
 * taken (4 bytes, ms) and the HTTP app's body pattern at offset seq *
 * reading_bytes; the server checks every byte and counts each sequence
 * number once. Reliability = distinct readings delivered / readings taken;
 * latency is from the taking of a reading to its arrival.
 *
 * `loss` (TCPlp s.9.4: "uniformly random packet loss at the border router",
 * after link retries and reassembly) drops each IP datagram the server
 * node sends or receives with that probability, through its local hook,
 * drawn from a stream of its own (run seed, flow index).
 */
#include "sim.h"
#include "coap.h"
#include "http_server.h"
#include "json.h"
#include "moteip/ip.h"
#include "moteip/wire/bytes.h"
#include <stdlib.h>
#include <string.h>

/* The CoAP port every sensor server listens on. */
#define SENSOR_COAP_PORT 5683u
/* Room for a CoAP message's header, token and options beside the readings
 * (4 + 4 + Uri-Path "r" 2 + Block1 up to 4, rounded up). */
#define SENSOR_COAP_OVERHEAD 16u

struct sim_sensor {
    struct sim *sim;
    const struct sim_flow_spec *fs;
    uint32_t index;
    bool     done;
    /* the application queue: a ring of the readings' sequence numbers */
    uint32_t *q;
    uint32_t taken, q_head, q_len, queue_drops;
    uint32_t q_off;                 /* bytes of the front reading already in TCP */
    bool     draining;
    /* server side: distinct readings seen (bitmap), bytes checked */
    uint8_t *seen;
    uint32_t seen_bits, delivered, duplicates, bad;
    uint64_t bytes_delivered, last_rx_us;
    double   latency_sum;
    /* tcp */
    struct mip_tcp_conn snd, rcv;
    struct mip_tcp_listener lis;
    bool     accepted;
    uint8_t *mem;
    uint8_t  partial[256];          /* a reading cut by a read boundary */
    uint32_t partial_len;
    uint32_t rexmits0, timeouts0;
    int      tcp_error;
    /* coap */
    struct mip_coap_endpoint *cli;  /* this flow's client endpoint */
    bool     in_flight;
    uint32_t msg_n, block_no, given_up, coap_msgs;
    /* loss injection at dst */
    struct mip_rng loss_rng;
    uint32_t injected_drops;
};

/* --- readings ------------------------------------------------------------------- */

static void reading(const struct sim_sensor *ss, uint32_t seq, uint8_t *out)
{
    uint16_t n = ss->fs->reading_bytes;
    uint64_t taken_us = (uint64_t)(ss->fs->start_s * 1e6) + (uint64_t)seq * (uint64_t)(ss->fs->interval_s * 1e6);
    mip_wr32(out, seq);
    mip_wr32(out + 4, (uint32_t)(taken_us / 1000u));   /* when it was taken, ms */
    mip_http_body_fill((uint64_t)seq * n + 8u, out + 8, n - 8u);
}

/* Checks one reading that arrived; counts it once. */
static void reading_in(struct sim_sensor *ss, const uint8_t *r)
{
    uint8_t want[256];
    uint32_t seq = mip_rd32(r);
    uint16_t n = ss->fs->reading_bytes;
    reading(ss, seq, want);
    if (seq >= ss->taken || memcmp(r + 4, want + 4, n - 4u) != 0) {
        ss->bad++;
        return;
    }
    if (seq < ss->seen_bits && (ss->seen[seq / 8u] & (1u << (seq % 8u)))) {
        ss->duplicates++;
        return;
    }
    if (seq < ss->seen_bits)
        ss->seen[seq / 8u] |= (uint8_t)(1u << (seq % 8u));
    ss->delivered++;
    ss->bytes_delivered += n;
    ss->latency_sum += (double)(uint32_t)((uint32_t)(ss->sim->now_us / 1000u) - mip_rd32(r + 4));
    ss->last_rx_us = ss->sim->now_us;
}

static struct sim_node *src_node(const struct sim_sensor *ss) { return &ss->sim->node[ss->fs->src]; }
static struct sim_node *dst_node(const struct sim_sensor *ss) { return &ss->sim->node[ss->fs->dst]; }

static uint32_t q_front(const struct sim_sensor *ss, uint32_t i)
{
    return ss->q[(ss->q_head + i) % ss->fs->queue];
}

static void q_pop(struct sim_sensor *ss, uint32_t n)
{
    ss->q_head = (ss->q_head + n) % ss->fs->queue;
    ss->q_len -= n;
}

/* --- tcp ------------------------------------------------------------------------- */

static void tcp_drain(struct sim_sensor *ss)
{
    struct sim_node *nd = src_node(ss);
    uint8_t r[256];
    uint16_t n = ss->fs->reading_bytes;
    while (ss->draining && ss->q_len > 0 && ss->snd.state == MIP_TCP_ESTABLISHED) {
        size_t w;
        reading(ss, q_front(ss, 0), r);
        w = mip_tcp_write(&nd->tcp, &ss->snd, r + ss->q_off, n - ss->q_off);
        ss->q_off += (uint32_t)w;
        if (ss->q_off < n)
            break;                      /* the ring is full */
        ss->q_off = 0;
        q_pop(ss, 1);
    }
    if (ss->q_len == 0)
        ss->draining = false;
}

static void snd_connected(void *ctx, struct mip_tcp_conn *c) { (void)c; tcp_drain(ctx); }
static void snd_writable(void *ctx, struct mip_tcp_conn *c) { (void)c; tcp_drain(ctx); }

static void tcp_error(void *ctx, struct mip_tcp_conn *c, enum mip_tcp_error why)
{
    struct sim_sensor *ss = ctx;
    (void)c;
    if (ss->tcp_error == 0)
        ss->tcp_error = (int)why;
}

static void tcp_closed(void *ctx, struct mip_tcp_conn *c) { (void)ctx; (void)c; }

static const struct mip_tcp_callbacks snd_cb = {
    snd_connected, NULL, snd_writable, tcp_closed, tcp_error
};

static void rcv_readable(void *ctx, struct mip_tcp_conn *c)
{
    struct sim_sensor *ss = ctx;
    struct sim_node *nd = dst_node(ss);
    uint16_t n = ss->fs->reading_bytes;
    size_t got;
    for (;;) {
        got = mip_tcp_read(&nd->tcp, c, ss->partial + ss->partial_len, n - ss->partial_len);
        if (got == 0)
            break;
        ss->partial_len += (uint32_t)got;
        if (ss->partial_len == n) {
            reading_in(ss, ss->partial);
            ss->partial_len = 0;
        }
    }
}

static const struct mip_tcp_callbacks rcv_cb = {
    NULL, rcv_readable, NULL, tcp_closed, tcp_error
};

static struct mip_tcp_conn *rcv_accept(struct mip_tcp_listener *l, struct mip_tcp *tcp,
                                       uint16_t port)
{
    struct sim_sensor *ss = MIP_CONTAINER_OF(l, struct sim_sensor, lis);
    (void)tcp;
    (void)port;
    if (ss->accepted)
        return NULL;
    ss->accepted = true;
    return &ss->rcv;
}

static bool tcp_build(struct sim_sensor *ss, char *err, size_t errlen)
{
    const struct sim_flow_spec *fs = ss->fs;
    struct sim_node *src = src_node(ss), *dst = dst_node(ss);
    uint32_t stx = fs->tx_buffer, rrx = fs->rx_buffer;
    uint8_t *p;
    mip_status st;
    ss->mem = calloc(1, (size_t)stx + 256u + 256u + rrx + (rrx + 7u) / 8u);
    if (ss->mem == NULL) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    p = ss->mem;
    mip_tcp_conn_init(&ss->snd, &snd_cb, ss, p, (uint16_t)stx, p + stx, NULL, 256u);
    p += stx + 256u;
    mip_tcp_conn_init(&ss->rcv, &rcv_cb, ss, p, 256u, p + 256u, p + 256u + rrx, (uint16_t)rrx);
    ss->snd.cfg.sack = ss->rcv.cfg.sack = fs->sender.sack;
    ss->snd.cfg.timestamps = ss->rcv.cfg.timestamps = fs->sender.timestamps;
    ss->snd.cfg.limited_transmit = fs->sender.limited_transmit;
    ss->rcv.cfg.limited_transmit = fs->receiver.limited_transmit;
    ss->snd.cfg.dsack = fs->sender.dsack;
    ss->rcv.cfg.dsack = fs->receiver.dsack;
    ss->snd.cfg.early_retransmit = fs->sender.early_retransmit;
    ss->rcv.cfg.early_retransmit = fs->receiver.early_retransmit;
    ss->snd.cfg.tlp = fs->sender.tlp;
    ss->rcv.cfg.tlp = fs->receiver.tlp;
    ss->snd.cfg.delack_ms = fs->sender.delack_ms;
    ss->rcv.cfg.delack_ms = fs->receiver.delack_ms;
    if (!src->tcp_on) {
        (void)mip_tcp_init(&src->tcp, &src->stack);
        src->tcp_on = true;
    }
    if (!dst->tcp_on) {
        (void)mip_tcp_init(&dst->tcp, &dst->stack);
        dst->tcp_on = true;
    }
    if (fs->sender.max_retries != 0u)
        src->tcp.max_retries = fs->sender.max_retries;
    if (fs->mss != 0) {
        src->tcp.mss_max = fs->mss;
        dst->tcp.mss_max = fs->mss;
    }
    st = mip_tcp_listen(&dst->tcp, &ss->lis, fs->port, (uint16_t)rrx, rcv_accept);
    if (st != MIP_OK) {
        snprintf(err, errlen, "flows[%u]: node %u cannot listen on port %u: %s", ss->index,
                 fs->dst, fs->port, mip_status_name(st));
        return false;
    }
    return true;
}

/* --- coap -------------------------------------------------------------------------- */

static void coap_drain(struct sim_sensor *ss);

/* The server's resource /r: every whole reading in the payload. */
static void readings_in(void *ctx, const struct mip_coap_request *req, struct mip_coap_response *r)
{
    struct sim *sim = ctx;
    const struct mip_coap_msg *m = req->msg;
    size_t k;
    /* The flow is the one whose sensor sent it (its source address). */
    for (k = 0; k < sim->n_flows; k++) {
        struct sim_sensor *ss = sim_flow_sensor(sim, (uint32_t)k);
        struct mip_addr a;
        size_t i;
        if (ss == NULL)
            continue;
        sim_node_address(sim, ss->fs->src, &a);
        if (!mip_addr_eq(&a, &req->peer->addr))
            continue;
        if (m->payload_len % ss->fs->reading_bytes != 0) {
            r->code = MIP_COAP_BAD_REQUEST;
            return;
        }
        for (i = 0; i < m->payload_len; i += ss->fs->reading_bytes)
            reading_in(ss, m->payload + i);
        return;
    }
    r->code = MIP_COAP_NOT_FOUND;
}

static struct mip_coap_endpoint *node_coap(struct sim *sim, uint32_t node, bool server,
                                           bool cocoa, uint32_t ack_timeout_ms,
                                           char *err, size_t errlen)
{
    static const struct mip_coap_resource res[1] = { { "r", MIP_COAP_M_POST, readings_in, NULL } };
    struct sim_node *nd = &sim->node[node];
    mip_status st;
    if (nd->coap != NULL)
        return nd->coap;
    nd->coap = calloc(1, sizeof(*nd->coap) + sizeof(res));
    if (nd->coap == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (server) {
        struct mip_coap_resource *r = (struct mip_coap_resource *)(nd->coap + 1);
        memcpy(r, res, sizeof(res));
        r->ctx = sim;
        st = mip_coap_start(nd->coap, &nd->stack, SENSOR_COAP_PORT, r, 1, cocoa);
    } else {
        st = mip_coap_start(nd->coap, &nd->stack, SENSOR_COAP_PORT, NULL, 0, cocoa);
    }
    if (st != MIP_OK) {
        snprintf(err, errlen, "node %u cannot start CoAP: %s", node, mip_status_name(st));
        return NULL;
    }
    nd->coap->ack_timeout_ms = ack_timeout_ms;
    return nd->coap;
}

static void coap_result(void *ctx, enum mip_coap_result r, const struct mip_coap_msg *resp)
{
    struct sim_sensor *ss = ctx;
    ss->in_flight = false;
    if (r != MIP_COAP_RESPONSE || MIP_COAP_CLASS(resp->code) != 2u)
        ss->given_up += ss->msg_n;   /* its readings are lost */
    ss->msg_n = 0;
    coap_drain(ss);
}

static uint32_t coap_per_msg(const struct sim_sensor *ss)
{
    uint32_t k = (ss->fs->coap_payload - SENSOR_COAP_OVERHEAD) / ss->fs->reading_bytes;
    return k ? k : 1u;
}

static void coap_drain(struct sim_sensor *ss)
{
    struct sim_node *nd = src_node(ss);
    struct mip_coap_peer peer;
    struct mip_coap_block b1;
    uint8_t buf[MIP_COAP_MSG_MAX];
    uint32_t i, n;
    mip_status st;
    bool more;
    if (!ss->draining || ss->in_flight || ss->q_len == 0)
        return;
    n = coap_per_msg(ss);
    if (n > ss->q_len)
        n = ss->q_len;
    for (i = 0; i < n; i++) {
        reading(ss, q_front(ss, i), buf + i * ss->fs->reading_bytes);
    }
    /* Block1 numbers the batch's messages (NUM); M stays 0: with M set RFC
     * 7959 2.2 wants a payload of exactly the block size, and a message
     * carries whole readings (the server answers 4.00). Same bytes on air. */
    more = ss->q_len > n;
    b1.num = ss->block_no;
    b1.more = false;
    b1.szx = 6;
    sim_node_address(ss->sim, ss->fs->dst, &peer.addr);
    peer.port = SENSOR_COAP_PORT;
    peer.netif = MIP_NETIF_ANY;
    st = mip_coap_request(ss->cli, &peer, MIP_COAP_CON, MIP_COAP_POST, "r", &b1,
                          buf, (size_t)n * ss->fs->reading_bytes, coap_result, ss);
    if (st != MIP_OK && st != MIP_ERR_PENDING)
        return;                      /* tried again at the next reading */
    ss->in_flight = true;
    ss->coap_msgs++;
    ss->msg_n = n;
    q_pop(ss, n);
    ss->block_no = more ? ss->block_no + 1u : 0u;
    if (ss->q_len == 0)
        ss->draining = false;
    (void)nd;
}

/* --- loss injection ------------------------------------------------------------------- */

static enum mip_fwd_verdict lossy(void *ctx, struct mip_stack *s, bool out, uint8_t netif,
                                  const uint8_t *pkt, size_t len)
{
    struct sim_sensor *ss = ctx;
    (void)s;
    (void)netif;
    if ((double)mip_rng_next(&ss->loss_rng) < ss->fs->loss * 4294967296.0) {
        ss->injected_drops++;
        return MIP_FWD_DROP;
    }
    /* the hook that counts TCP flows' arrivals is this node's no more */
    if (!out)
        sim_apps_datagram_in(ss->sim, dst_node(ss), pkt, len);
    return MIP_FWD_PASS;
}

/* --- the flow ------------------------------------------------------------------------- */

struct sim_sensor *sim_sensor_new(struct sim *sim, uint32_t index, const struct sim_flow_spec *fs,
                                  char *err, size_t errlen)
{
    struct sim_sensor *ss = calloc(1, sizeof(*ss));
    uint64_t bits;
    if (ss == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ss->sim = sim;
    ss->fs = fs;
    ss->index = index;
    bits = fs->count ? fs->count : (uint64_t)(sim->sc->duration_s / fs->interval_s) + 2u;
    if (bits > 100000000u)
        bits = 100000000u;
    ss->seen_bits = (uint32_t)bits;
    ss->seen = calloc((size_t)(bits + 7u) / 8u, 1);
    ss->q = calloc(fs->queue, sizeof(*ss->q));
    if (ss->seen == NULL || ss->q == NULL) {
        snprintf(err, errlen, "out of memory");
        free(ss->seen);
        free(ss->q);
        free(ss);
        return NULL;
    }
    if (fs->transport == SIM_SENSOR_TCP) {
        if (!tcp_build(ss, err, errlen))
            return ss;               /* freed by sim_sensor_free through the flow */
    } else {
        bool cocoa = fs->transport == SIM_SENSOR_COCOA;
        if (fs->coap_payload > MIP_COAP_MSG_MAX) {
            snprintf(err, errlen, "flows[%u]: coap_payload %u is over this simulator's "
                     "MIP_COAP_MSG_MAX (%u)", index, fs->coap_payload, (unsigned)MIP_COAP_MSG_MAX);
            return ss;
        }
        ss->cli = node_coap(sim, fs->src, false, cocoa, fs->coap_ack_timeout_ms, err, errlen);
        if (ss->cli == NULL || node_coap(sim, fs->dst, true, false, fs->coap_ack_timeout_ms,
                                         err, errlen) == NULL)
            return ss;
        if (ss->cli->cocoa != cocoa) {
            snprintf(err, errlen, "flows[%u]: node %u already runs CoAP %s CoCoA", index,
                     fs->src, ss->cli->cocoa ? "with" : "without");
            return ss;
        }
    }
    if (fs->loss > 0.0) {
        struct sim_node *dst = dst_node(ss);
        uint8_t seed[12];
        if (sim->sc->relay.mode != MIP_RELAY_OFF) {
            snprintf(err, errlen, "flows[%u]: loss needs the local hook of node %u, which "
                     "its relay uses", index, fs->dst);
            return ss;
        }
        memcpy(seed, &sim->sc->seed, 8);
        mip_wr32(seed + 8, 0x5e500000u + index);
        mip_rng_seed(&ss->loss_rng, seed, sizeof(seed));
        mip_ip_set_local_hook(&dst->stack, lossy, ss);
    }
    err[0] = '\0';
    return ss;
}

/* Takes a reading; returns true when the flow is finished. */
bool sim_sensor_event(struct sim *sim, struct sim_sensor *ss)
{
    const struct sim_flow_spec *fs = ss->fs;
    struct sim_node *src = src_node(ss);
    bool last;
    if (ss->taken == 0 && fs->transport == SIM_SENSOR_TCP && ss->snd.state == MIP_TCP_CLOSED) {
        struct mip_addr dst;
        sim_node_address(sim, fs->dst, &dst);
        sim_node_schedule(sim, src);
        ss->rexmits0 = mip_tcp_stat(&src->tcp, MIP_TCP_STAT_rexmits);
        ss->timeouts0 = mip_tcp_stat(&src->tcp, MIP_TCP_STAT_timeouts);
        (void)mip_tcp_connect(&src->tcp, &ss->snd, &dst, fs->port);
    }
    last = fs->count != 0 && ss->taken >= fs->count;
    if (last) {
        /* the drain time after the last reading is over */
        ss->done = true;
        return true;
    }
    sim_node_schedule(sim, src);
    if (ss->q_len < fs->queue) {
        ss->q[(ss->q_head + ss->q_len) % fs->queue] = ss->taken;
        ss->q_len++;
    } else {
        ss->queue_drops++;
    }
    ss->taken++;
    /* A batch is handed over when it is full, and the last readings when
     * there will be no more. */
    if (ss->q_len >= fs->batch || (fs->count != 0 && ss->taken >= fs->count))
        ss->draining = true;
    if (fs->transport == SIM_SENSOR_TCP)
        tcp_drain(ss);
    else
        coap_drain(ss);
    sim_node_schedule(sim, src);
    if (fs->count == 0 || ss->taken < fs->count)
        (void)sim_evq_push(&sim->q, sim->now_us + (uint64_t)(fs->interval_s * 1e6), SIM_EV_APP,
                           fs->src, ss->index);
    else
        (void)sim_evq_push(&sim->q, sim->now_us + (uint64_t)(fs->drain_s * 1e6), SIM_EV_APP,
                           fs->src, ss->index);
    return false;
}

void sim_sensor_delivered(const struct sim_sensor *ss, uint64_t *bytes, uint64_t *segments)
{
    *bytes += ss->bytes_delivered;
    *segments += ss->delivered;
}

void sim_sensor_write(struct sim *sim, const struct sim_sensor *ss, struct sj_writer *w)
{
    const struct sim_flow_spec *fs = ss->fs;
    struct sim_node *src = src_node(ss);
    static const char *const names[] = { "tcp", "coap", "cocoa" };
    sj_w_key(w, "transport");
    sj_w_string(w, names[fs->transport]);
    sj_w_member_uint(w, "readings_taken", ss->taken);
    sj_w_member_uint(w, "readings_delivered", ss->delivered);
    sj_w_member_double(w, "reliability", ss->taken ? (double)ss->delivered / ss->taken : 0.0);
    sj_w_member_uint(w, "queue_drops", ss->queue_drops);
    sj_w_member_uint(w, "queued_at_end", ss->q_len);
    sj_w_member_uint(w, "duplicates", ss->duplicates);
    sj_w_member_uint(w, "bad_readings", ss->bad);
    sj_w_member_double(w, "latency_mean_ms", ss->delivered ? ss->latency_sum / ss->delivered : 0.0);
    sj_w_member_uint(w, "injected_drops", ss->injected_drops);
    if (fs->transport == SIM_SENSOR_TCP) {
        sj_w_member_uint(w, "retransmissions",
                         mip_tcp_stat(&src->tcp, MIP_TCP_STAT_rexmits) - ss->rexmits0);
        sj_w_member_uint(w, "rto_timeouts",
                         mip_tcp_stat(&src->tcp, MIP_TCP_STAT_timeouts) - ss->timeouts0);
        sj_w_key(w, "error");
        sj_w_string(w, ss->tcp_error == 0 ? "none" : ss->tcp_error == MIP_TCP_ERR_TIMEOUT ? "timeout"
                       : "other");
    } else {
        sj_w_member_uint(w, "messages", ss->coap_msgs);
        sj_w_member_uint(w, "retransmissions",
                         ss->cli ? mip_coap_stat(ss->cli, MIP_COAP_STAT_retransmissions) : 0u);
        sj_w_member_uint(w, "readings_given_up", ss->given_up);
        sj_w_member_uint(w, "in_flight_at_end", ss->in_flight ? ss->msg_n : 0u);
        struct mip_coap_peer peer;
        sim_node_address(sim, fs->dst, &peer.addr);
        peer.port = SENSOR_COAP_PORT;
        peer.netif = MIP_NETIF_ANY;
        sj_w_member_uint(w, "rto_final_ms", ss->cli ? mip_coap_rto(ss->cli, &peer) : 0u);
    }
}

void sim_sensor_free(struct sim_sensor *ss)
{
    if (ss == NULL)
        return;
    free(ss->mem);
    free(ss->seen);
    free(ss->q);
    free(ss);
}
