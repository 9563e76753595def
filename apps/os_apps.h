/*
 * The apps as processes of the kernel (include/moteip/os.h), on the stack
 * as a service (include/moteip/os_net.h): echo (RFC 862), discard (RFC 863),
 * HTTP (GET /bytes/N), the CoAP endpoint with the demo resources, and a
 * sensor application that samples, batches and sends. Each is a
 * process thread plus a struct the caller owns; no callback of the stack is
 * written here, every datagram and connection arrives as an event.
 *
 *     static struct mip_os_echo echo;      (memory: rings, connections)
 *     mip_os_echo_prepare(&echo, stack, tcp, 7);
 *     mip_os_start(os, &echo.proc, "echo", mip_os_echo_thread, &echo, NULL);
 *
 * The apps/ callback versions (tcp_echo.h, udp_echo.h, tcp_discard.h) stay:
 * a firmware without the kernel uses those; these are for one with it.
 * A port that fails to bind (INUSE, NOBUFS) is counted in `bind_failed` and
 * the process goes on with what it has.
 */
#ifndef MOTEIP_APPS_OS_APPS_H
#define MOTEIP_APPS_OS_APPS_H

#include <stdint.h>

#include "moteip/os.h"
#include "moteip/os_net.h"
#include "coap_demo.h"
#include "http_server.h"

/* Connections per TCP service process, and each one's ring sizes. */
#ifndef MIP_OS_APP_CONNS
#define MIP_OS_APP_CONNS 2u
#endif
#ifndef MIP_OS_APP_RING
#define MIP_OS_APP_RING 512u
#endif

struct mip_os_app_tcp {
    struct mip_os_listener ls;
    struct mip_os_tcp conn[MIP_OS_APP_CONNS];
    uint8_t tx[MIP_OS_APP_CONNS][MIP_OS_APP_RING];
    uint8_t rx[MIP_OS_APP_CONNS][MIP_OS_APP_RING];
};

/* Echo on UDP and TCP `port`: each datagram back to its sender, each
 * connection's bytes back on it (what fits the send ring now; the rest on
 * WRITABLE), closed after the peer's FIN once everything went back. */
struct mip_os_echo {
    struct mip_os_process proc;
    struct mip_stack *s;
    struct mip_tcp *tcp;
    uint16_t port;
    struct mip_os_udp udp;
    struct mip_os_app_tcp t;
    uint32_t datagrams, connections, bytes, bind_failed;
};

void mip_os_echo_prepare(struct mip_os_echo *e, struct mip_stack *s, struct mip_tcp *tcp,
                         uint16_t port);
char mip_os_echo_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                        void *data);

/* Discard on UDP and TCP `port`: counts datagrams, connections and bytes,
 * and keeps the CRC-32 (IEEE) of every byte taken over TCP, in order, so a
 * test checks what arrived, not only how much. */
struct mip_os_discard {
    struct mip_os_process proc;
    struct mip_stack *s;
    struct mip_tcp *tcp;
    uint16_t port;
    struct mip_os_udp udp;
    struct mip_os_app_tcp t;
    uint32_t datagrams, connections, bind_failed;
    uint64_t bytes;
    uint32_t crc;               /* CRC-32 of the TCP bytes so far (finished form) */
};

void mip_os_discard_prepare(struct mip_os_discard *d, struct mip_stack *s, struct mip_tcp *tcp,
                            uint16_t port);
char mip_os_discard_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                           void *data);

/* HTTP/1.1 on TCP `port`, as http_server.h's server answers (its parser,
 * routes and response text: GET/HEAD /bytes/N, errors with their status,
 * keep-alive and pipelining; request bodies dropped), from the process's
 * pool of MIP_OS_APP_CONNS connections. A connection that waits longer than
 * MIP_HTTP_REQUEST_TIMEOUT_MS for its request, or whose response its client
 * took no byte of for MIP_HTTP_SEND_TIMEOUT_MS, is reset (an event timer
 * checks each second; both count in `timeouts`): a silent client, or one
 * that never opens its window, holds a connection no longer. After
 * an error response (or one the client asked to close) the process sends
 * FIN and reads until the client's (lingering, as long at most), so the
 * client gets the response rather than a reset. */
struct mip_os_http_conn {
    uint8_t phase;              /* reading, sending, lingering */
    bool close_after;
    mip_time_t moved;           /* the response started, or a byte of it was
                                   queued: the send clock, stack ms */
    struct mip_http_intake in;  /* in.last: accepted, last request byte read,
                                   or last response queued: the idle clock */
    struct mip_http_resp resp;
};

struct mip_os_http {
    struct mip_os_process proc;
    struct mip_stack *s;
    struct mip_tcp *tcp;
    uint16_t port;
    struct mip_os_app_tcp t;
    struct mip_os_http_conn hc[MIP_OS_APP_CONNS];
    struct mip_os_etimer idle;
    uint32_t requests, status_2xx, status_4xx, status_5xx, timeouts, bind_failed;
    uint64_t body_bytes;
};

void mip_os_http_prepare(struct mip_os_http *h, struct mip_stack *s, struct mip_tcp *tcp,
                         uint16_t port);
char mip_os_http_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                        void *data);

/* CoAP (coap.h) with the demo resources (coap_demo.h) on UDP `port`: the
 * process owns the port and hands each datagram to the endpoint
 * (mip_coap_input); the endpoint's retransmissions run on the stack's
 * poller as they do for the callback version. */
struct mip_os_coap {
    struct mip_os_process proc;
    struct mip_stack *s;
    uint16_t port;
    struct mip_os_udp udp;
    struct mip_coap_demo demo;
    uint32_t datagrams, bind_failed;
};

void mip_os_coap_prepare(struct mip_os_coap *c, struct mip_stack *s, uint16_t port);
char mip_os_coap_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                        void *data);

/* The sensor: every `every_ms` it takes a reading from `sample` (the
 * board's sensor; 16 bits), and after `batch` readings sends one datagram
 * to the sink: [2 bytes big-endian sequence][batch x 2 bytes big-endian
 * readings]. A datagram the stack refuses (no route yet, no buffer) is
 * counted in `send_failed` and its readings are not resent: the next batch
 * carries the next sequence number, so the sink sees the gap. */
#define MIP_OS_SENSOR_BATCH_MAX 16u

struct mip_os_sensor {
    struct mip_os_process proc;
    struct mip_stack *s;
    struct mip_addr sink;
    uint16_t sink_port, src_port;
    uint32_t every_ms;
    uint8_t batch;              /* 1..MIP_OS_SENSOR_BATCH_MAX */
    uint16_t (*sample)(void *ctx);
    void *sample_ctx;
    struct mip_os_etimer timer;
    uint16_t readings[MIP_OS_SENSOR_BATCH_MAX];
    uint8_t n;
    uint16_t seq;
    uint32_t samples, sent, send_failed;
};

/* INVALID for a batch of 0 or above MIP_OS_SENSOR_BATCH_MAX, an interval of
 * 0 or above MIP_TIME_HORIZON_MS, or no sample function. */
mip_status mip_os_sensor_prepare(struct mip_os_sensor *n, struct mip_stack *s,
                                 const struct mip_addr *sink, uint16_t sink_port,
                                 uint16_t src_port, uint32_t every_ms, uint8_t batch,
                                 uint16_t (*sample)(void *ctx), void *sample_ctx);
char mip_os_sensor_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                          void *data);

#endif
