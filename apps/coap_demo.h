/*
 * A CoAP server with a few resources for demos and interop tests, on any
 * stack (moteip-host --coap PORT, the ports' firmware, the simulator):
 *
 *   GET  /.well-known/core   the resource list (RFC 6690 link format)
 *   GET  /hello              "hello from moteip" (text/plain)
 *   GET  /bytes?n=N          N bytes of the HTTP app's body pattern
 *                            (http_server.h), N <= 16 MiB, sent block-wise
 *                            and generated one block at a time
 *   POST /sink, PUT /sink    takes a body, Block1 uploads included, and
 *                            answers "N crc32" (decimal length and CRC-32 of
 *                            the body, as Python's zlib.crc32); blocks must
 *                            come in order from the start (4.08 otherwise)
 *
 * All state is in the caller's struct. One upload at a time: a new block 0
 * (or a request without Block1) starts a new body.
 */
#ifndef MOTEIP_APPS_COAP_DEMO_H
#define MOTEIP_APPS_COAP_DEMO_H

#include <stdint.h>
#include "coap.h"

#define MIP_COAP_DEMO_BYTES_MAX (16u * 1024u * 1024u)

struct mip_coap_demo {
    struct mip_coap_endpoint ep;
    struct mip_coap_resource res[4];
    uint32_t sink_len;          /* body bytes taken so far */
    uint32_t sink_crc;
    uint32_t sink_bodies;       /* complete bodies taken */
    char     reply[24];
};

/* Starts the endpoint on `port` (MIP_COAP_PORT is the standard one), with
 * CoCoA for its own requests when cocoa is set. *d must outlive it.
 * Returns what mip_coap_start() returns. */
mip_status mip_coap_demo_start(struct mip_coap_demo *d, struct mip_stack *s, uint16_t port,
                               bool cocoa);
/* The same resources on an endpoint whose port its owner binds
 * (mip_coap_init: the CoAP process of apps/os_apps.h). */
mip_status mip_coap_demo_init(struct mip_coap_demo *d, struct mip_stack *s, uint16_t port,
                              bool cocoa);

#endif
