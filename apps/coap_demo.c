/*
 * Demo CoAP resources. See coap_demo.h.
 */
#include "coap_demo.h"

#include <stdio.h>
#include <string.h>

#include "http_server.h"
#include "tcp_discard.h"

static const char core_links[] =
    "</hello>;ct=0,</bytes>;ct=42,</sink>;ct=0";

static void well_known(void *ctx, const struct mip_coap_request *req,
                       struct mip_coap_response *r)
{
    (void)ctx;
    (void)req;
    r->content_format = MIP_COAP_FORMAT_LINK;
    r->payload = (const uint8_t *)core_links;
    r->payload_len = sizeof core_links - 1u;
}

static void hello(void *ctx, const struct mip_coap_request *req, struct mip_coap_response *r)
{
    (void)ctx;
    (void)req;
    r->content_format = MIP_COAP_FORMAT_TEXT;
    r->payload = (const uint8_t *)"hello from moteip";
    r->payload_len = 17;
}

static void pattern(void *ctx, size_t offset, uint8_t *buf, size_t n)
{
    (void)ctx;
    mip_http_body_fill(offset, buf, n);
}

/* n=N from the Uri-Query options; false when absent or not a number. */
static bool query_n(const struct mip_coap_msg *m, uint32_t *n)
{
    struct mip_coap_opt_iter it;
    struct mip_coap_option o;

    mip_coap_opt_begin(&it, m);
    while (mip_coap_opt_next(&it, &o)) {
        uint32_t v = 0;
        uint16_t i;
        if (o.number != MIP_COAP_OPT_URI_QUERY || o.len < 3 || o.len > 10 ||
            o.value[0] != 'n' || o.value[1] != '=')
            continue;
        for (i = 2; i < o.len; i++) {
            if (o.value[i] < '0' || o.value[i] > '9')
                return false;
            v = v * 10u + (uint32_t)(o.value[i] - '0');
        }
        *n = v;
        return true;
    }
    return false;
}

static void bytes(void *ctx, const struct mip_coap_request *req, struct mip_coap_response *r)
{
    uint32_t n;

    (void)ctx;
    if (!query_n(req->msg, &n) || n > MIP_COAP_DEMO_BYTES_MAX) {
        r->code = MIP_COAP_BAD_REQUEST;
        return;
    }
    r->content_format = MIP_COAP_FORMAT_OCTETS;
    r->payload_len = n;
    r->read = pattern;
}

static void sink(void *ctx, const struct mip_coap_request *req, struct mip_coap_response *r)
{
    struct mip_coap_demo *d = ctx;
    const struct mip_coap_msg *m = req->msg;
    uint32_t off = req->has_block1 ? req->block1_offset : 0;
    int n;

    if (off == 0) {
        d->sink_len = 0;
        d->sink_crc = 0;
    } else if (off != d->sink_len) {
        r->code = MIP_COAP_INCOMPLETE;   /* RFC 7959 s.2.9.2 */
        return;
    }
    d->sink_crc = mip_crc32_update(d->sink_crc, m->payload, m->payload_len);
    d->sink_len += (uint32_t)m->payload_len;
    if (req->has_block1 && req->block1.more)
        return;                          /* 2.31 Continue */
    d->sink_bodies++;
    n = snprintf(d->reply, sizeof d->reply, "%lu %lu", (unsigned long)d->sink_len,
                 (unsigned long)d->sink_crc);
    r->content_format = MIP_COAP_FORMAT_TEXT;
    r->payload = (const uint8_t *)d->reply;
    r->payload_len = n > 0 ? (size_t)n : 0;
}

/* The resource table into d (cleared first). */
static void demo_table(struct mip_coap_demo *d)
{
    static const struct {
        const char *path;
        uint8_t methods;
        mip_coap_handler_fn fn;
    } table[4] = {
        { ".well-known/core", MIP_COAP_M_GET, well_known },
        { "hello", MIP_COAP_M_GET, hello },
        { "bytes", MIP_COAP_M_GET, bytes },
        { "sink", MIP_COAP_M_POST | MIP_COAP_M_PUT, sink },
    };
    size_t i;

    memset(d, 0, sizeof *d);
    for (i = 0; i < 4; i++) {
        d->res[i].path = table[i].path;
        d->res[i].methods = table[i].methods;
        d->res[i].fn = table[i].fn;
        d->res[i].ctx = d;
    }
}

mip_status mip_coap_demo_start(struct mip_coap_demo *d, struct mip_stack *s, uint16_t port,
                               bool cocoa)
{
    if (d == NULL)
        return MIP_ERR_INVALID;
    demo_table(d);
    return mip_coap_start(&d->ep, s, port, d->res, 4, cocoa);
}

mip_status mip_coap_demo_init(struct mip_coap_demo *d, struct mip_stack *s, uint16_t port,
                              bool cocoa)
{
    if (d == NULL)
        return MIP_ERR_INVALID;
    demo_table(d);
    return mip_coap_init(&d->ep, s, port, d->res, 4, cocoa);
}
