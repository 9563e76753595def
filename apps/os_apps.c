/*
 * Echo, discard and the sensor as kernel processes (os_apps.h). Each thread
 * binds its ports at INIT and then waits for events; nothing survives a wait
 * in a local (pt.h's rule): what a process keeps lives in its struct.
 */
#include "os_apps.h"

#include <string.h>

#include "moteip/crc32.h"

/* Binds UDP and listens on TCP `port` with the process's own pool. */
static void bind_both(struct mip_os *os, struct mip_os_process *p, struct mip_stack *s,
                      struct mip_tcp *tcp, uint16_t port, struct mip_os_udp *udp,
                      struct mip_os_app_tcp *t, uint32_t *bind_failed)
{
    size_t i;
    if (mip_os_udp_bind(os, p, udp, s, port) != MIP_OK)
        (*bind_failed)++;
    for (i = 0; i < MIP_OS_APP_CONNS; i++)
        mip_os_tcp_init(os, p, &t->conn[i], tcp, t->tx[i], MIP_OS_APP_RING, t->rx[i], NULL,
                        MIP_OS_APP_RING);
    if (mip_os_tcp_listen(os, p, &t->ls, tcp, port, t->conn, MIP_OS_APP_CONNS,
                          MIP_OS_APP_RING) != MIP_OK)
        (*bind_failed)++;
}

/* --- echo ------------------------------------------------------------------ */

void mip_os_echo_prepare(struct mip_os_echo *e, struct mip_stack *s, struct mip_tcp *tcp,
                         uint16_t port)
{
    memset(e, 0, sizeof(*e));
    e->s = s;
    e->tcp = tcp;
    e->port = port;
}

/* Sends back what the send ring takes now; WRITABLE brings the rest. */
static void echo_pump(struct mip_os_echo *e, struct mip_tcp_conn *c)
{
    uint8_t buf[128];
    size_t n;
    while (mip_tcp_readable(c) > 0 && mip_tcp_writable(c) > 0) {
        n = mip_tcp_writable(c) < sizeof buf ? mip_tcp_writable(c) : sizeof buf;
        n = mip_tcp_read(e->tcp, c, buf, n);
        if (n == 0)
            break;
        e->bytes += (uint32_t)mip_tcp_write(e->tcp, c, buf, n);
    }
    if (mip_tcp_peer_closed(c) && mip_tcp_readable(c) == 0)
        (void)mip_tcp_close(e->tcp, c);
}

char mip_os_echo_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                        void *data)
{
    struct mip_os_echo *e = p->ctx;
    MIP_PROCESS_BEGIN();
    bind_both(os, p, e->s, e->tcp, e->port, &e->udp, &e->t, &e->bind_failed);
    for (;;) {
        MIP_PROCESS_WAIT_EVENT();
        if (ev == MIP_OS_EV_UDP) {
            const struct mip_os_udp_event *u = data;
            e->datagrams++;
            (void)mip_udp_sendto(e->s, NULL, e->port, &u->meta->src,
                                 u->meta->src_port, u->meta->netif, u->data, u->len);
        } else if (ev == MIP_OS_EV_TCP) {
            const struct mip_os_tcp_event *t = data;
            if (t->what == MIP_OS_TCP_CONNECTED)
                e->connections++;
            if (t->what < MIP_OS_TCP_CLOSED)
                echo_pump(e, &t->c->conn);
        } else if (ev == MIP_OS_EV_EXIT) {
            break;
        }
    }
    (void)mip_os_udp_unbind(&e->udp);
    MIP_PROCESS_END();
}

/* --- discard --------------------------------------------------------------- */

void mip_os_discard_prepare(struct mip_os_discard *d, struct mip_stack *s, struct mip_tcp *tcp,
                            uint16_t port)
{
    memset(d, 0, sizeof(*d));
    d->s = s;
    d->tcp = tcp;
    d->port = port;
}

char mip_os_discard_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                           void *data)
{
    struct mip_os_discard *d = p->ctx;
    MIP_PROCESS_BEGIN();
    bind_both(os, p, d->s, d->tcp, d->port, &d->udp, &d->t, &d->bind_failed);
    for (;;) {
        MIP_PROCESS_WAIT_EVENT();
        if (ev == MIP_OS_EV_UDP) {
            d->datagrams++;
            d->bytes += ((const struct mip_os_udp_event *)data)->len;
        } else if (ev == MIP_OS_EV_TCP) {
            const struct mip_os_tcp_event *t = data;
            struct mip_tcp_conn *c = &t->c->conn;
            uint8_t buf[128];
            size_t n;
            if (t->what == MIP_OS_TCP_CONNECTED)
                d->connections++;
            if (t->what >= MIP_OS_TCP_CLOSED)
                continue;
            while ((n = mip_tcp_read(d->tcp, c, buf, sizeof buf)) > 0) {
                d->crc = mip_crc32_update(d->crc, buf, n);
                d->bytes += n;
            }
            if (mip_tcp_peer_closed(c))
                (void)mip_tcp_close(d->tcp, c);
        } else if (ev == MIP_OS_EV_EXIT) {
            break;
        }
    }
    (void)mip_os_udp_unbind(&d->udp);
    MIP_PROCESS_END();
}

/* --- HTTP ------------------------------------------------------------------ */

enum { HTTP_READ = 0, HTTP_SEND, HTTP_LINGER };

void mip_os_http_prepare(struct mip_os_http *h, struct mip_stack *s, struct mip_tcp *tcp,
                         uint16_t port)
{
    memset(h, 0, sizeof(*h));
    h->s = s;
    h->tcp = tcp;
    h->port = port;
}

static void http_answer(struct mip_os_http *h, struct mip_os_http_conn *hc, uint16_t status,
                        uint64_t body_len, bool with_body, bool keep_alive, uint8_t minor)
{
    mip_http_resp_start(&hc->resp, status, body_len, with_body, keep_alive, minor);
    hc->moved = h->s->now;
    if (status == 200)
        h->status_2xx++;
    else if (status < 500)
        h->status_4xx++;
    else
        h->status_5xx++;
    hc->close_after = !keep_alive;
    hc->phase = HTTP_SEND;
}

/* Reads what the client sent; answers one complete request (true). */
static bool http_take(struct mip_os_http *h, struct mip_os_http_conn *hc, struct mip_tcp_conn *c)
{
    struct mip_http_answer a;

    switch (mip_http_take(&hc->in, h->tcp, c, &a)) {
    case MIP_HTTP_TAKE_WAIT:
        return false;
    case MIP_HTTP_TAKE_CLOSED:
        (void)mip_tcp_close(h->tcp, c);     /* done, maybe mid-request: nothing to answer */
        return false;
    case MIP_HTTP_TAKE_ANSWER:
        break;
    }
    if (a.request)
        h->requests++;
    http_answer(h, hc, a.status, a.body_len, a.with_body, a.keep_alive, a.version_minor);
    return true;
}

/* Runs connection i until it waits for the client or for send space. */
static void http_run(struct mip_os_http *h, size_t i)
{
    struct mip_os_http_conn *hc = &h->hc[i];
    struct mip_tcp_conn *c = &h->t.conn[i].conn;
    uint8_t drop[64];
    for (;;) {
        if (hc->phase == HTTP_SEND) {
            uint64_t queued = hc->resp.head_off + hc->resp.body_off;
            bool all = mip_http_resp_send(&hc->resp, h->tcp, c, &h->body_bytes);
            if (hc->resp.head_off + hc->resp.body_off != queued)
                hc->moved = h->s->now;
            if (!all)
                return;
            if (!hc->close_after) {
                hc->phase = HTTP_READ;
                hc->in.last = h->s->now;
                continue;
            }
            /* FIN now; read and drop until the client's (see the header) */
            hc->phase = HTTP_LINGER;
            hc->in.last = h->s->now;
            (void)mip_tcp_shutdown(h->tcp, c);
        }
        if (hc->phase == HTTP_LINGER) {
            while (mip_tcp_read(h->tcp, c, drop, sizeof drop) > 0)
                ;
            if (mip_tcp_peer_closed(c))
                (void)mip_tcp_close(h->tcp, c);
            return;
        }
        if (!http_take(h, hc, c))
            return;
    }
}

/* Resets the connections that waited too long for a request, lingered
 * that long for the client's FIN, or sent a response its client took no
 * byte of for MIP_HTTP_SEND_TIMEOUT_MS (http_server.h). */
static void http_idle_check(struct mip_os_http *h)
{
    size_t i;
    for (i = 0; i < MIP_OS_APP_CONNS; i++) {
        const struct mip_os_http_conn *hc = &h->hc[i];
        bool sending = hc->phase == HTTP_SEND;
        if (h->t.conn[i].in_use &&
            mip_time_reached(h->s->now, sending ? hc->moved + MIP_HTTP_SEND_TIMEOUT_MS
                                                : hc->in.last + MIP_HTTP_REQUEST_TIMEOUT_MS)) {
            h->timeouts++;
            mip_tcp_abort(h->tcp, &h->t.conn[i].conn);
        }
    }
}

char mip_os_http_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                        void *data)
{
    struct mip_os_http *h = p->ctx;
    MIP_PROCESS_BEGIN();
    {
        size_t i;
        for (i = 0; i < MIP_OS_APP_CONNS; i++)
            mip_os_tcp_init(os, p, &h->t.conn[i], h->tcp, h->t.tx[i], MIP_OS_APP_RING,
                            h->t.rx[i], NULL, MIP_OS_APP_RING);
        if (mip_os_tcp_listen(os, p, &h->t.ls, h->tcp, h->port, h->t.conn, MIP_OS_APP_CONNS,
                              MIP_OS_APP_RING) != MIP_OK)
            h->bind_failed++;
    }
    mip_os_etimer_set(os, &h->idle, p, 1000u);
    for (;;) {
        MIP_PROCESS_WAIT_EVENT();
        if (ev == MIP_OS_EV_EXIT)
            break;
        if (ev == MIP_OS_EV_TIMER && data == &h->idle) {
            mip_os_etimer_reset(os, &h->idle);
            http_idle_check(h);
        } else if (ev == MIP_OS_EV_TCP) {
            const struct mip_os_tcp_event *t = data;
            size_t i = (size_t)(t->c - h->t.conn);
            if (i >= MIP_OS_APP_CONNS)
                continue;
            if (t->what == MIP_OS_TCP_CONNECTED) {
                memset(&h->hc[i], 0, sizeof h->hc[i]);
                h->hc[i].in.last = h->s->now;
            }
            if (t->what < MIP_OS_TCP_CLOSED)
                http_run(h, i);
        }
    }
    MIP_PROCESS_END();
}

/* --- CoAP ------------------------------------------------------------------ */

void mip_os_coap_prepare(struct mip_os_coap *c, struct mip_stack *s, uint16_t port)
{
    memset(c, 0, sizeof(*c));
    c->s = s;
    c->port = port;
}

char mip_os_coap_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                        void *data)
{
    struct mip_os_coap *c = p->ctx;
    MIP_PROCESS_BEGIN();
    if (mip_coap_demo_init(&c->demo, c->s, c->port, false) != MIP_OK ||
        mip_os_udp_bind(os, p, &c->udp, c->s, c->port) != MIP_OK) {
        c->bind_failed++;
        MIP_PROCESS_EXIT();
    }
    for (;;) {
        MIP_PROCESS_WAIT_EVENT_UNTIL(ev == MIP_OS_EV_UDP || ev == MIP_OS_EV_EXIT);
        if (ev == MIP_OS_EV_EXIT)
            break;
        {
            const struct mip_os_udp_event *u = data;
            c->datagrams++;
            mip_coap_input(&c->demo.ep, u->meta, u->data, u->len);
        }
    }
    (void)mip_os_udp_unbind(&c->udp);
    mip_coap_stop(&c->demo.ep);
    MIP_PROCESS_END();
}

/* --- sensor ---------------------------------------------------------------- */

mip_status mip_os_sensor_prepare(struct mip_os_sensor *n, struct mip_stack *s,
                                 const struct mip_addr *sink, uint16_t sink_port,
                                 uint16_t src_port, uint32_t every_ms, uint8_t batch,
                                 uint16_t (*sample)(void *ctx), void *sample_ctx)
{
    if (batch == 0u || batch > MIP_OS_SENSOR_BATCH_MAX || every_ms == 0u ||
        every_ms > MIP_TIME_HORIZON_MS || sample == NULL || sink == NULL)
        return MIP_ERR_INVALID;
    memset(n, 0, sizeof(*n));
    n->s = s;
    n->sink = *sink;
    n->sink_port = sink_port;
    n->src_port = src_port;
    n->every_ms = every_ms;
    n->batch = batch;
    n->sample = sample;
    n->sample_ctx = sample_ctx;
    return MIP_OK;
}

static void sensor_send(struct mip_os_sensor *n)
{
    uint8_t msg[2u + 2u * MIP_OS_SENSOR_BATCH_MAX];
    size_t i;
    msg[0] = (uint8_t)(n->seq >> 8);
    msg[1] = (uint8_t)n->seq;
    for (i = 0; i < n->n; i++) {
        msg[2u + 2u * i] = (uint8_t)(n->readings[i] >> 8);
        msg[3u + 2u * i] = (uint8_t)n->readings[i];
    }
    if (mip_udp_sendto(n->s, NULL, n->src_port, &n->sink, n->sink_port, MIP_NETIF_ANY, msg,
                       2u + 2u * (size_t)n->n) == MIP_OK)
        n->sent++;
    else
        n->send_failed++;
    n->seq++;
    n->n = 0;
}

char mip_os_sensor_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                          void *data)
{
    struct mip_os_sensor *n = p->ctx;
    MIP_PROCESS_BEGIN();
    mip_os_etimer_set(os, &n->timer, p, n->every_ms);
    for (;;) {
        MIP_PROCESS_WAIT_EVENT_UNTIL((ev == MIP_OS_EV_TIMER && data == &n->timer) ||
                                     ev == MIP_OS_EV_EXIT);
        if (ev == MIP_OS_EV_EXIT)
            break;
        /* from the last expiry: one reading a period, without drift */
        mip_os_etimer_reset(os, &n->timer);
        n->readings[n->n++] = n->sample(n->sample_ctx);
        n->samples++;
        if (n->n >= n->batch)
            sensor_send(n);
    }
    MIP_PROCESS_END();
}
