/*
 * libFuzzer harness for CoAP (apps/coap_msg.h, apps/coap.h).
 *
 * Input: a sequence of records
 *
 *     [1 byte  bit 7: answer; bits 0-6: time step, units of 100 ms]
 *     [1 byte  length]
 *     [length bytes: one UDP payload from the peer fd00::1 port 5683]
 *
 * An answer record (of at least 4 bytes) carries the Message ID of the
 * node's latest request in place of bytes 2-3, and its token in place of
 * the record's own when the record's token length (byte 0's low nibble)
 * is the request's. libFuzzer's comparison tracing keeps no 16-bit
 * operands (only 4- and 8-byte ones and memcmp), so the fuzzer never
 * guessed the ID: until 2026-11-29 (session 16) no ACK or RST ever
 * matched the request, and the piggybacked response, the empty ACK
 * (separate response) and the reset were never reached. With the token
 * too, one answer copied answers a run of requests.
 *
 * Every record's payload first goes through the codec alone: when it
 * parses, it is rebuilt with the writer from the parsed view (header,
 * token, each option, payload) and the bytes must be identical (the
 * encoding of deltas and lengths is unique), and its Block options decode
 * without trouble. Then it is delivered as a datagram to a node
 * (fd00::2, raw-IP netif) running a CoAP endpoint with three resources
 * (one larger than a block, one taking Block1 uploads) and requests of
 * its own to the peer, one at a time: a CON request at the start, and
 * after a record that finds the last one reported, the next (every third
 * one NON, up to REQUESTS), so ACK, RST and response matching and the
 * RTT estimators over several exchanges (CoCoA when byte 0 is odd) are
 * reached too.
 *
 * Checked: every record reaches the endpoint (its rx count; the datagram
 * carries a right UDP checksum); every datagram the node sends is a
 * well-formed CoAP message from port 5683 to the peer; the node's request
 * keeps one Message ID on every transmission, each later than the one
 * before (a CoCoA RTO of 0 sent five in one millisecond), and is not sent
 * again once it was reported or once an empty ACK was taken for it
 * (RFC 7252 s.4.2, s.5.2.2); the stack awaits a reply exactly while a
 * request is outstanding (mip_stack_awaits_reply, which a sleepy leaf
 * reads to poll fast); after the last record the clock runs past
 * every CoAP timer and every request of the node must have been reported
 * exactly once; every packet buffer is back in the pool.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/moteip.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/ipv6.h"
#include "coap.h"

#include "fuzz_check.h"

struct node {
    struct mip_stack s;
    struct mip_coap_endpoint ep;
    unsigned requests;  /* made by the node, one outstanding at a time */
    unsigned results;   /* reported to on_result */
    bool have_req;      /* the latest request was sent: req_mid is its ID */
    bool acked;         /* an empty ACK for it was taken */
    uint16_t req_mid;
    uint8_t req_token[8], req_tkl;
    mip_time_t now;     /* the clock of the stack's current call */
    mip_time_t req_at;  /* when the request was last sent */
    uint8_t big[700];
};

static void codec_round_trip(const uint8_t *data, size_t len)
{
    struct mip_coap_msg m;
    struct mip_coap_writer w;
    struct mip_coap_opt_iter it;
    struct mip_coap_option o;
    struct mip_coap_block b;
    uint8_t *out;

    if (mip_coap_parse(data, len, &m) != MIP_COAP_OK)
        return;
    out = malloc(len + 1);
    CHECKF(out != NULL);
    mip_coap_w_begin(&w, out, len, m.type, m.code, m.mid, m.token, m.token_len);
    mip_coap_opt_begin(&it, &m);
    while (mip_coap_opt_next(&it, &o)) {
        CHECKF(o.value >= data && o.value + o.len <= data + len);
        mip_coap_w_option(&w, o.number, o.value, o.len);
        if (o.number == MIP_COAP_OPT_BLOCK1 || o.number == MIP_COAP_OPT_BLOCK2)
            (void)mip_coap_block_decode(&o, &b);
    }
    mip_coap_w_payload(&w, m.payload, m.payload_len);
    CHECKF(mip_coap_w_end(&w) == len);
    CHECKF(memcmp(out, data, len) == 0);
    free(out);
}

static mip_status drv_tx(void *ctx, const uint8_t *frame, size_t len)
{
    struct node *n = ctx;
    struct mip_ipv6_hdr h;
    struct mip_coap_msg m;
    const uint8_t *udp;
    size_t ulen;

    CHECKF(len >= 48);
    CHECKF(mip_ipv6_parse(frame, len, &h) == MIP_OK);
    if (h.next_header != 17)
        return MIP_OK;              /* ICMPv6 (port unreachable and the like) */
    udp = frame + 40;
    ulen = mip_rd16(udp + 4);
    CHECKF(ulen >= 8 && ulen <= len - 40);
    CHECKF(mip_rd16(udp) == 5683);
    CHECKF(mip_rd16(udp + 2) == 5683);
    CHECKF(mip_coap_parse(udp + 8, ulen - 8, &m) == MIP_COAP_OK);
    if (m.type != MIP_COAP_ACK && m.type != MIP_COAP_RST && MIP_COAP_CLASS(m.code) == 0u &&
        m.code != MIP_COAP_EMPTY) {
        /* the node's latest request: sent while it is outstanding,
         * again (a CON, under its ID) only while it waits for an ACK */
        CHECKF(n->requests == n->results + 1u && !n->acked);
        CHECKF(!n->have_req || (m.type == MIP_COAP_CON && m.mid == n->req_mid));
        /* each retransmission after a timeout: later than the one before */
        CHECKF(!n->have_req || mip_time_before(n->req_at, n->now));
        n->req_at = n->now;
        n->have_req = true;
        CHECKF(m.token_len <= sizeof n->req_token);
        memcpy(n->req_token, m.token, m.token_len);
        n->req_tkl = m.token_len;
        n->req_mid = m.mid;
    }
    return MIP_OK;
}

static const struct mip_netif_driver drv = { drv_tx, NULL, NULL };

static void text(void *ctx, const struct mip_coap_request *req, struct mip_coap_response *r)
{
    (void)ctx;
    (void)req;
    r->payload = (const uint8_t *)"ok";
    r->payload_len = 2;
}

static void big(void *ctx, const struct mip_coap_request *req, struct mip_coap_response *r)
{
    struct node *n = ctx;
    (void)req;
    r->content_format = MIP_COAP_FORMAT_OCTETS;
    r->payload = n->big;
    r->payload_len = sizeof n->big;
}

static void upload(void *ctx, const struct mip_coap_request *req, struct mip_coap_response *r)
{
    (void)ctx;
    if (req->has_block1 && req->block1_offset > 4096)
        r->code = MIP_COAP_TOO_LARGE;
}

static void on_result(void *ctx, enum mip_coap_result r, const struct mip_coap_msg *resp)
{
    struct node *n = ctx;
    CHECKF((r == MIP_COAP_RESPONSE) == (resp != NULL));
    n->results++;
}

static void deliver(struct node *n, const uint8_t *payload, size_t len, mip_time_t now)
{
    static const uint8_t peer[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
    static const uint8_t us[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };
    uint8_t *pkt = malloc(48 + len);
    uint32_t rx;
    uint16_t cksum;

    CHECKF(pkt != NULL);
    memset(pkt, 0, 48);
    pkt[0] = 0x60;
    mip_wr16(pkt + 4, (uint16_t)(8 + len));
    pkt[6] = 17;
    pkt[7] = 64;
    memcpy(pkt + 8, peer, 16);
    memcpy(pkt + 24, us, 16);
    mip_wr16(pkt + 40, 5683);
    mip_wr16(pkt + 42, 5683);
    mip_wr16(pkt + 44, (uint16_t)(8 + len));
    memcpy(pkt + 48, payload, len);
    /* A right checksum: fuzz builds skip checking it, but IPv6 drops a zero
     * one (RFC 8200 8.1) before any check, and until 2026-11-29 this harness
     * sent zero, so not one record reached the endpoint. */
    cksum = mip_cksum_finish(mip_cksum_add(mip_cksum_pseudo6(peer, us, 17, (uint32_t)(8 + len)),
                                           pkt + 40, 8 + len));
    mip_wr16(pkt + 46, cksum == 0 ? 0xFFFFu : cksum);
    rx = n->ep.stats[MIP_COAP_STAT_rx];
    mip_stack_input(&n->s, 0, pkt, 48 + len, now);
    CHECKF(n->ep.stats[MIP_COAP_STAT_rx] == rx + 1u);   /* every record reaches the endpoint */
    free(pkt);
}

#define REQUESTS 64u

/* The node's next request to the peer (the harness's records answer it). */
static void request(struct node *n, const struct mip_coap_peer *peer)
{
    enum mip_coap_type type = n->requests % 3u == 2u ? MIP_COAP_NON : MIP_COAP_CON;
    n->have_req = false;
    n->acked = false;
    n->requests++;
    CHECKF(mip_coap_request(&n->ep, peer, type, MIP_COAP_GET, "x/y", NULL,
                           (const uint8_t *)"q", 1, on_result, n) == MIP_OK);
    CHECKF(n->have_req);     /* sent at once */
}

static const struct mip_coap_resource resources[] = {
    { "t", MIP_COAP_M_GET | MIP_COAP_M_PUT, text, NULL },
    { "big", MIP_COAP_M_GET, big, NULL },
    { "up", MIP_COAP_M_POST | MIP_COAP_M_PUT, upload, NULL },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t entropy[16] = { 7 };
    struct mip_coap_resource res[3];
    struct mip_stack_config cfg;
    struct mip_coap_peer peer;
    struct mip_addr a;
    uint8_t plen, idx, rec[255];
    struct mip_coap_msg m;
    mip_time_t now = 1000;
    size_t i, pos = 0;
    struct node *n;

    n = calloc(1, sizeof *n);
    CHECKF(n != NULL);
    for (i = 0; i < sizeof n->big; i++)
        n->big[i] = (uint8_t)i;
    memcpy(res, resources, sizeof res);
    for (i = 0; i < 3; i++)
        res[i].ctx = n;
    memset(&cfg, 0, sizeof cfg);
    cfg.entropy = entropy;
    cfg.entropy_len = sizeof entropy;
    mip_stack_init(&n->s, &cfg, now);
    n->now = now;
    CHECKF(mip_netif_add_rawip(&n->s, 1280, NULL, &drv, n, &idx) == MIP_OK);
    CHECKF(mip_addr_parse("fd00::2", &a, &plen) == MIP_OK);
    CHECKF(mip_netif_add_addr(&n->s, idx, &a, 64) == MIP_OK);
    CHECKF(mip_coap_start(&n->ep, &n->s, 5683, res, 3, size > 0 && (data[0] & 1)) == MIP_OK);
    CHECKF(mip_addr_parse("fd00::1", &peer.addr, &plen) == MIP_OK);
    peer.port = 5683;
    peer.netif = MIP_NETIF_ANY;
    request(n, &peer);

    while (size - pos >= 2) {
        uint8_t step = data[pos];
        size_t len = data[pos + 1];
        bool answer;
        uint32_t unmatched;
        pos += 2;
        if (len > size - pos)
            len = size - pos;
        memcpy(rec, data + pos, len);
        answer = (step & 0x80u) != 0u && len >= 4u && n->have_req;
        if (answer) {
            mip_wr16(rec + 2, n->req_mid);
            if ((rec[0] & 0x0Fu) == n->req_tkl && len >= 4u + n->req_tkl)
                memcpy(rec + 4, n->req_token, n->req_tkl);
        }
        now += 100u * (step & 0x7Fu);
        n->now = now;
        (void)mip_stack_poll(&n->s, now);
        codec_round_trip(rec, len);
        unmatched = n->ep.stats[MIP_COAP_STAT_drop_unmatched];
        deliver(n, rec, len, now);
        /* an empty ACK the endpoint matched to its request (s.5.2.2) */
        if (answer && n->results + 1u == n->requests &&
            mip_coap_parse(rec, len, &m) == MIP_COAP_OK && m.type == MIP_COAP_ACK &&
            m.code == MIP_COAP_EMPTY &&
            n->ep.stats[MIP_COAP_STAT_drop_unmatched] == unmatched)
            n->acked = true;
        /* a sleepy node polls fast exactly while its request is outstanding */
        CHECKF(mip_stack_awaits_reply(&n->s) == (n->results < n->requests));
        if (n->results == n->requests && n->requests < REQUESTS)
            request(n, &peer);
        pos += len;
    }
    /* Run out every CoAP timer: every request must have been reported once.
     * 800 s: past the longest CON exchange, CoCoA's (an RTO at its 32 s cap,
     * apps/coap.c: a first timeout of up to 48 s and back-off 1.5, so the
     * last of four retransmissions times out 633 s after the first
     * transmission), and past a separate response's wait after an ACK
     * (93 s); without CoCoA MAX_TRANSMIT_WAIT is 93 s. */
    for (i = 0; i < 160; i++) {
        now += 5000;
        n->now = now;
        (void)mip_stack_poll(&n->s, now);
    }
    CHECKF(n->results == n->requests);
    CHECKF(!mip_stack_awaits_reply(&n->s));
    CHECKF(n->s.pool.in_use == 0);
    mip_coap_stop(&n->ep);
    free(n);
    return 0;
}
