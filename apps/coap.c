/*
 * CoAP endpoint (RFC 7252, RFC 7959 block-wise, CoCoA). See coap.h.
 */
#include "coap.h"

#include <string.h>

enum { EX_FREE = 0, EX_WAIT_ACK, EX_WAIT_RESPONSE };

/* Longest Uri-Path (segments joined by '/') a request may name. */
#define PATH_MAX_LEN 64u
/* Room kept for options beside a block of payload: Content-Format (3),
 * Block1 (4), Block2 (4), Size2 (5) and one spare. */
#define OPTION_ROOM 18u
/* CoCoA (draft-ietf-core-cocoa-03 s.4): estimator gains and bounds. */
#define COCOA_K_STRONG 4u
#define COCOA_K_WEAK   1u
#define COCOA_RTO_MAX_MS 32000u    /* ours: keeps 1.5^k back-off sums bounded */
/* The clock's granularity G of RFC 6298 s.2, E = SRTT + max(G, K * RTTVAR),
 * which the draft builds on: answers within one millisecond (samples of 0)
 * once pulled the RTO to 0, where aging could not lift it, and a lost
 * request was sent five times in one millisecond. */
#define COCOA_G_MS 1u

static void count(struct mip_coap_endpoint *ep, enum mip_coap_stat which)
{
    if (ep->stats[which] != UINT32_MAX)
        ep->stats[which]++;
}

static bool peer_eq(const struct mip_coap_peer *a, const struct mip_coap_peer *b)
{
    return a->port == b->port && mip_addr_eq(&a->addr, &b->addr);
}

static void send_raw(struct mip_coap_endpoint *ep, const struct mip_addr *src,
                     const struct mip_coap_peer *to, const uint8_t *msg, size_t len)
{
    /* The peer carries no zone (RFC 4007): link-local peers are reached
     * through the route table, which is right on a node with one netif. */
    mip_status st = mip_udp_sendto(ep->s, src, ep->port, &to->addr, to->port, to->netif,
                                   msg, len);

    if (st == MIP_OK || st == MIP_ERR_PENDING)
        count(ep, MIP_COAP_STAT_tx);
    else
        count(ep, MIP_COAP_STAT_send_errors);
}

/* An empty ACK or RST for `mid` (s.4.2, 4.3); returns its length in out. */
static size_t empty_msg(uint8_t out[MIP_COAP_HDR_LEN], uint8_t type, uint16_t mid)
{
    struct mip_coap_writer w;

    mip_coap_w_begin(&w, out, MIP_COAP_HDR_LEN, type, MIP_COAP_EMPTY, mid, NULL, 0);
    return mip_coap_w_end(&w);
}

static void send_rst(struct mip_coap_endpoint *ep, const struct mip_addr *src,
                     const struct mip_coap_peer *to, uint16_t mid)
{
    uint8_t b[MIP_COAP_HDR_LEN];

    send_raw(ep, src, to, b, empty_msg(b, MIP_COAP_RST, mid));
    count(ep, MIP_COAP_STAT_rst_sent);
}

/* --- duplicate detection (s.4.5) --------------------------------------------- */

static struct mip_coap_dedup *dedup_find(struct mip_coap_endpoint *ep,
                                         const struct mip_coap_peer *p, uint16_t mid)
{
    size_t i;

    for (i = 0; i < MIP_COAP_DEDUP_MAX; i++) {
        struct mip_coap_dedup *d = &ep->dedup[i];
        if (d->used && d->mid == mid && peer_eq(&d->peer, p)) {
            if (mip_time_reached(ep->s->now, d->expires)) {
                d->used = 0;
                return NULL;
            }
            return d;
        }
    }
    return NULL;
}

/* Remembers (peer, mid) with the reply sent for it (NULL/0: none to
 * resend). A free or expired entry is taken first, else the oldest in
 * round-robin order. */
static void dedup_add(struct mip_coap_endpoint *ep, const struct mip_coap_peer *p,
                      uint16_t mid, uint32_t lifetime_ms, const uint8_t *reply, size_t len)
{
    struct mip_coap_dedup *d = NULL;
    size_t i;

    for (i = 0; i < MIP_COAP_DEDUP_MAX && d == NULL; i++)
        if (!ep->dedup[i].used || mip_time_reached(ep->s->now, ep->dedup[i].expires))
            d = &ep->dedup[i];
    if (d == NULL) {
        d = &ep->dedup[ep->dedup_next];
        ep->dedup_next = (uint8_t)((ep->dedup_next + 1u) % MIP_COAP_DEDUP_MAX);
        count(ep, MIP_COAP_STAT_dedup_evicted);
    }
    d->used = 1;
    d->peer = *p;
    d->mid = mid;
    d->expires = ep->s->now + lifetime_ms;
    d->len = (reply != NULL && len <= sizeof d->reply) ? (uint16_t)len : 0u;
    if (d->len != 0)
        memcpy(d->reply, reply, len);
}

/* --- server -------------------------------------------------------------------- */

/* Options this server understands; any other critical (odd) one is refused. */
static bool option_known(uint16_t n)
{
    switch (n) {
    case MIP_COAP_OPT_URI_HOST:
    case MIP_COAP_OPT_URI_PORT:
    case MIP_COAP_OPT_URI_PATH:
    case MIP_COAP_OPT_URI_QUERY:
    case MIP_COAP_OPT_ACCEPT:
    case MIP_COAP_OPT_BLOCK2:
    case MIP_COAP_OPT_BLOCK1:
        return true;
    default:
        return (n & 1u) == 0;   /* elective: ignored */
    }
}

/* Joins the Uri-Path options into path; false when it does not fit. */
static bool request_path(const struct mip_coap_msg *m, char *path, size_t cap)
{
    struct mip_coap_opt_iter it;
    struct mip_coap_option o;
    size_t n = 0;

    mip_coap_opt_begin(&it, m);
    while (mip_coap_opt_next(&it, &o)) {
        if (o.number != MIP_COAP_OPT_URI_PATH)
            continue;
        if (n + (n != 0) + o.len + 1u > cap)
            return false;
        if (n != 0)
            path[n++] = '/';
        memcpy(path + n, o.value, o.len);
        n += o.len;
    }
    path[n] = '\0';
    return true;
}

static const struct mip_coap_resource *find_resource(const struct mip_coap_endpoint *ep,
                                                     const char *path)
{
    size_t i;

    for (i = 0; i < ep->n_resources; i++)
        if (strcmp(ep->resources[i].path, path) == 0)
            return &ep->resources[i];
    return NULL;
}

static uint8_t default_code(uint8_t method)
{
    switch (method) {
    case MIP_COAP_GET:    return MIP_COAP_CONTENT;
    case MIP_COAP_DELETE: return MIP_COAP_DELETED;
    default:              return MIP_COAP_CHANGED;
    }
}

/* Largest SZX whose block fits a message with this token beside the
 * options a response may carry. */
static uint8_t block_szx_max(uint8_t token_len)
{
    size_t room = MIP_COAP_MSG_MAX - MIP_COAP_HDR_LEN - token_len - OPTION_ROOM - 1u;
    uint8_t szx = 6;

    while (szx > 0 && mip_coap_block_size(szx) > room)
        szx--;
    return szx;
}

/* Handles a request whose options were checked: sets the reply's code and
 * writes its options and payload into w. */
static void serve(struct mip_coap_endpoint *ep, const struct mip_coap_msg *m,
                  const struct mip_coap_peer *peer, struct mip_coap_writer *w)
{
    char path[PATH_MAX_LEN + 1];
    const struct mip_coap_resource *res;
    struct mip_coap_request req;
    struct mip_coap_response resp;
    struct mip_coap_option o;
    struct mip_coap_block b2 = { 0, false, block_szx_max(m->token_len) };
    bool want_b2 = false, sliced;
    size_t off = 0, chunk;

    memset(&req, 0, sizeof req);
    req.msg = m;
    req.peer = peer;
    if (mip_coap_opt_find(m, MIP_COAP_OPT_BLOCK1, &o)) {
        if (!mip_coap_block_decode(&o, &req.block1)) {
            mip_coap_w_code(w, MIP_COAP_BAD_OPTION);
            return;
        }
        /* RFC 7959 2.2: with M set the payload is exactly the block size
         * (SZX bounds it only on the last block) */
        if (req.block1.more && m->payload_len != mip_coap_block_size(req.block1.szx)) {
            mip_coap_w_code(w, MIP_COAP_BAD_REQUEST);
            return;
        }
        req.has_block1 = true;
        req.block1_offset = req.block1.num << (req.block1.szx + 4u);
    }
    if (mip_coap_opt_find(m, MIP_COAP_OPT_BLOCK2, &o)) {
        struct mip_coap_block want;
        if (!mip_coap_block_decode(&o, &want)) {
            mip_coap_w_code(w, MIP_COAP_BAD_OPTION);
            return;
        }
        /* A smaller block than asked is allowed; the number scales (7959 s.2.4). */
        if (want.szx < b2.szx)
            b2.szx = want.szx;
        b2.num = want.num << (want.szx - b2.szx);
        want_b2 = true;
    }
    if (!request_path(m, path, sizeof path) || (res = find_resource(ep, path)) == NULL) {
        mip_coap_w_code(w, MIP_COAP_NOT_FOUND);
        return;
    }
    if ((m->code & 31u) > 4u || (res->methods & (1u << (m->code & 31u))) == 0) {
        mip_coap_w_code(w, MIP_COAP_NOT_ALLOWED);
        return;
    }
    resp.code = default_code(m->code);
    resp.content_format = -1;
    resp.payload = NULL;
    resp.payload_len = 0;
    resp.read = NULL;
    resp.read_ctx = NULL;
    res->fn(res->ctx, &req, &resp);
    count(ep, MIP_COAP_STAT_requests_served);
    if (resp.payload == NULL && resp.read == NULL)
        resp.payload_len = 0;

    /* The slice of the representation this reply carries (RFC 7959 s.2.4). */
    chunk = resp.payload_len;
    sliced = want_b2 || resp.payload_len > mip_coap_block_size(b2.szx);
    if (sliced) {
        size_t size = mip_coap_block_size(b2.szx);
        off = (size_t)b2.num * size;
        if (b2.num >= (UINT32_C(1) << 20) || (off >= resp.payload_len && off != 0)) {
            mip_coap_w_code(w, MIP_COAP_BAD_OPTION);   /* block out of range */
            return;
        }
        chunk = resp.payload_len - off < size ? resp.payload_len - off : size;
        b2.more = off + chunk < resp.payload_len;
    }
    if (req.has_block1 && req.block1.more && MIP_COAP_CLASS(resp.code) == 2u)
        resp.code = MIP_COAP_CONTINUE;
    mip_coap_w_code(w, resp.code);
    if (resp.content_format >= 0 && resp.content_format <= 0xFFFF)
        mip_coap_w_option_uint(w, MIP_COAP_OPT_CONTENT_FORMAT, (uint32_t)resp.content_format);
    if (sliced)
        mip_coap_w_block(w, MIP_COAP_OPT_BLOCK2, &b2);
    if (req.has_block1)
        mip_coap_w_block(w, MIP_COAP_OPT_BLOCK1, &req.block1);
    if (sliced && b2.num == 0)
        mip_coap_w_option_uint(w, MIP_COAP_OPT_SIZE2, (uint32_t)resp.payload_len);
    if (chunk != 0) {
        uint8_t *p = mip_coap_w_payload_space(w, chunk);
        if (p != NULL && resp.payload != NULL)
            memcpy(p, resp.payload + off, chunk);
        else if (p != NULL)
            resp.read(resp.read_ctx, off, p, chunk);
    }
}

static void on_request(struct mip_coap_endpoint *ep, const struct mip_coap_msg *m,
                       const struct mip_coap_peer *peer, const struct mip_addr *local)
{
    struct mip_coap_dedup *d = dedup_find(ep, peer, m->mid);
    struct mip_coap_opt_iter it;
    struct mip_coap_option o;
    struct mip_coap_writer w;
    uint8_t code = 0;
    size_t len;
    uint16_t mid = m->mid;

    if (d != NULL) {
        count(ep, MIP_COAP_STAT_duplicates);
        if (m->type == MIP_COAP_CON && d->len != 0)
            send_raw(ep, local, peer, d->reply, d->len);
        return;
    }
    mip_coap_opt_begin(&it, m);
    while (code == 0 && mip_coap_opt_next(&it, &o)) {
        if (o.number == MIP_COAP_OPT_PROXY_URI || o.number == MIP_COAP_OPT_PROXY_SCHEME)
            code = MIP_COAP_NO_PROXY;
        else if (!option_known(o.number))
            code = MIP_COAP_BAD_OPTION;
    }
    if (code != 0 && m->type == MIP_COAP_NON) {
        count(ep, MIP_COAP_STAT_drop_bad_option);   /* rejected (s.5.4.1) */
        return;
    }
    if (m->type == MIP_COAP_NON)
        mid = ep->next_mid++;
    mip_coap_w_begin(&w, ep->out, sizeof ep->out,
                     m->type == MIP_COAP_CON ? MIP_COAP_ACK : MIP_COAP_NON,
                     MIP_COAP_INTERNAL_ERROR, mid, m->token, m->token_len);
    if (code != 0) {
        count(ep, MIP_COAP_STAT_drop_bad_option);
        mip_coap_w_code(&w, code);
    } else {
        serve(ep, m, peer, &w);
    }
    len = mip_coap_w_end(&w);
    if (len == 0) {
        /* The handler's answer did not fit: say so rather than nothing. */
        mip_coap_w_begin(&w, ep->out, sizeof ep->out,
                         m->type == MIP_COAP_CON ? MIP_COAP_ACK : MIP_COAP_NON,
                         MIP_COAP_INTERNAL_ERROR, mid, m->token, m->token_len);
        len = mip_coap_w_end(&w);
    }
    dedup_add(ep, peer, m->mid,
              m->type == MIP_COAP_CON ? MIP_COAP_EXCHANGE_LIFETIME_MS : MIP_COAP_NON_LIFETIME_MS,
              m->type == MIP_COAP_CON ? ep->out : NULL, len);
    send_raw(ep, local, peer, ep->out, len);
}

/* --- client: RTO (RFC 7252 s.4.2, CoCoA) ----------------------------------------- */

static struct mip_coap_rtt *rtt_state(struct mip_coap_endpoint *ep,
                                      const struct mip_coap_peer *p, bool create)
{
    struct mip_coap_rtt *lru = &ep->rtt[0];
    size_t i;

    for (i = 0; i < MIP_COAP_PEERS_MAX; i++) {
        struct mip_coap_rtt *r = &ep->rtt[i];
        if (r->used && peer_eq(&r->peer, p))
            return r;
        if (!r->used || (lru->used && mip_time_before(r->last_used, lru->last_used)))
            lru = r;
    }
    if (!create)
        return NULL;
    memset(lru, 0, sizeof *lru);
    lru->used = true;
    lru->peer = *p;
    lru->rto = ep->ack_timeout_ms;
    lru->updated = ep->s->now;
    return lru;
}

/* CoCoA RTO aging (s.4.2.3): a small RTO unused for 16 RTOs doubles, a
 * large one unused for 4 RTOs moves halfway back to the default. */
static void cocoa_age(struct mip_coap_rtt *r, mip_time_t now, uint32_t default_ms)
{
    uint32_t idle = now - r->updated;

    if (r->rto < 1000u && idle > 16u * r->rto) {
        r->rto *= 2u;
        r->updated = now;
    } else if (r->rto > 3000u && idle > 4u * r->rto) {
        r->rto = (default_ms + r->rto) / 2u;
        r->updated = now;
    }
}

static void estimator(uint32_t *srtt, uint32_t *rttvar, bool *valid, uint32_t sample)
{
    if (!*valid) {
        *srtt = sample;
        *rttvar = sample / 2u;
        *valid = true;
        return;
    }
    *rttvar = (3u * *rttvar + (*srtt > sample ? *srtt - sample : sample - *srtt)) / 4u;
    *srtt = (7u * *srtt + sample) / 8u;
}

static uint32_t estimate(uint32_t srtt, uint32_t rttvar, uint32_t k)
{
    return srtt + (k * rttvar > COCOA_G_MS ? k * rttvar : COCOA_G_MS);
}

/* An RTT sample from an exchange answered after `retransmits` resends. */
static void cocoa_sample(struct mip_coap_endpoint *ep, const struct mip_coap_exchange *x)
{
    struct mip_coap_rtt *r;
    uint32_t sample = ep->s->now - x->first_sent, e;

    if (!ep->cocoa || x->retransmits > 2u)
        return;   /* more than two resends: no sample (s.4.2.1) */
    r = rtt_state(ep, &x->peer, true);
    if (x->retransmits == 0) {
        estimator(&r->srtt_s, &r->rttvar_s, &r->strong_valid, sample);
        e = estimate(r->srtt_s, r->rttvar_s, COCOA_K_STRONG);
        r->rto = (e + r->rto) / 2u;
    } else {
        estimator(&r->srtt_w, &r->rttvar_w, &r->weak_valid, sample);
        e = estimate(r->srtt_w, r->rttvar_w, COCOA_K_WEAK);
        r->rto = (e + 3u * r->rto) / 4u;
    }
    if (r->rto > COCOA_RTO_MAX_MS)
        r->rto = COCOA_RTO_MAX_MS;
    r->updated = ep->s->now;
}

uint32_t mip_coap_rto(const struct mip_coap_endpoint *ep, const struct mip_coap_peer *peer)
{
    size_t i;

    if (ep->cocoa)
        for (i = 0; i < MIP_COAP_PEERS_MAX; i++)
            if (ep->rtt[i].used && peer_eq(&ep->rtt[i].peer, peer))
                return ep->rtt[i].rto;
    return ep->ack_timeout_ms;
}

/* Next timeout after one that expired: doubled, or CoCoA's variable
 * back-off factor chosen by the RTO the exchange started from. */
static uint32_t backoff(const struct mip_coap_endpoint *ep, const struct mip_coap_exchange *x)
{
    uint32_t base = mip_coap_rto(ep, &x->peer);

    if (!ep->cocoa || (base >= 1000u && base <= 3000u))
        return x->timeout * 2u;
    return base < 1000u ? x->timeout * 3u : x->timeout + x->timeout / 2u;
}

static void finish(struct mip_coap_exchange *x, enum mip_coap_result r,
                   const struct mip_coap_msg *resp)
{
    mip_coap_response_fn fn = x->fn;
    void *ctx = x->ctx;

    x->state = EX_FREE;
    if (fn != NULL)
        fn(ctx, r, resp);
}

/* --- client: matching ------------------------------------------------------------- */

static struct mip_coap_exchange *by_mid(struct mip_coap_endpoint *ep,
                                        const struct mip_coap_peer *p, uint16_t mid)
{
    size_t i;

    for (i = 0; i < MIP_COAP_CLIENT_MAX; i++)
        if (ep->ex[i].state == EX_WAIT_ACK && ep->ex[i].mid == mid && peer_eq(&ep->ex[i].peer, p))
            return &ep->ex[i];
    return NULL;
}

static struct mip_coap_exchange *by_token(struct mip_coap_endpoint *ep,
                                          const struct mip_coap_peer *p,
                                          const struct mip_coap_msg *m)
{
    size_t i;

    for (i = 0; i < MIP_COAP_CLIENT_MAX; i++) {
        struct mip_coap_exchange *x = &ep->ex[i];
        if (x->state != EX_FREE && x->token_len == m->token_len &&
            memcmp(x->token, m->token, m->token_len) == 0 && peer_eq(&x->peer, p))
            return x;
    }
    return NULL;
}

static void on_ack_or_rst(struct mip_coap_endpoint *ep, const struct mip_coap_msg *m,
                          const struct mip_coap_peer *peer)
{
    struct mip_coap_exchange *x = by_mid(ep, peer, m->mid);

    if (x == NULL || (m->code != MIP_COAP_EMPTY &&
                      (x->token_len != m->token_len ||
                       memcmp(x->token, m->token, m->token_len) != 0))) {
        count(ep, MIP_COAP_STAT_drop_unmatched);
        return;
    }
    if (m->type == MIP_COAP_RST) {
        finish(x, MIP_COAP_RESET, NULL);
        return;
    }
    cocoa_sample(ep, x);
    if (m->code == MIP_COAP_EMPTY) {
        /* The response will come separately (s.5.2.2). */
        x->state = EX_WAIT_RESPONSE;
        x->deadline = ep->s->now + MIP_COAP_RESPONSE_WAIT_MS;
        return;
    }
    finish(x, MIP_COAP_RESPONSE, m);
}

/* A separate response, or the response to a NON request. */
static void on_response(struct mip_coap_endpoint *ep, const struct mip_coap_msg *m,
                        const struct mip_coap_peer *peer, const struct mip_addr *local)
{
    struct mip_coap_exchange *x;
    uint8_t ack[MIP_COAP_HDR_LEN];
    size_t n;

    if (dedup_find(ep, peer, m->mid) != NULL) {
        count(ep, MIP_COAP_STAT_duplicates);
        if (m->type == MIP_COAP_CON)
            send_raw(ep, local, peer, ack, empty_msg(ack, MIP_COAP_ACK, m->mid));
        return;
    }
    x = by_token(ep, peer, m);
    if (x == NULL) {
        count(ep, MIP_COAP_STAT_drop_unmatched);
        if (m->type == MIP_COAP_CON)
            send_rst(ep, local, peer, m->mid);
        return;
    }
    if (m->type == MIP_COAP_CON) {
        n = empty_msg(ack, MIP_COAP_ACK, m->mid);
        dedup_add(ep, peer, m->mid, MIP_COAP_EXCHANGE_LIFETIME_MS, ack, n);
        send_raw(ep, local, peer, ack, n);
    } else {
        dedup_add(ep, peer, m->mid, MIP_COAP_NON_LIFETIME_MS, NULL, 0);
    }
    if (x->state == EX_WAIT_ACK)
        cocoa_sample(ep, x);   /* the response stands for the lost ACK */
    finish(x, MIP_COAP_RESPONSE, m);
}

static void coap_recv(void *ctx, struct mip_stack *s, const struct mip_udp_meta *meta,
                      const uint8_t *data, size_t len)
{
    (void)s;
    mip_coap_input(ctx, meta, data, len);
}

void mip_coap_input(struct mip_coap_endpoint *ep, const struct mip_udp_meta *meta,
                    const uint8_t *data, size_t len)
{
    struct mip_coap_peer peer;
    const struct mip_addr *local = meta->dst_multicast ? NULL : &meta->dst;
    struct mip_coap_msg m;
    enum mip_coap_parse_status st;
    uint8_t cls;

    if (ep->s == NULL)
        return;                 /* stopped */
    count(ep, MIP_COAP_STAT_rx);
    peer.addr = meta->src;
    peer.port = meta->src_port;
    peer.netif = meta->netif;
    st = mip_coap_parse(data, len, &m);
    if (st == MIP_COAP_ERR_VERSION || st == MIP_COAP_ERR_SHORT) {
        count(ep, st == MIP_COAP_ERR_VERSION ? MIP_COAP_STAT_drop_version
                                             : MIP_COAP_STAT_drop_format);
        return;
    }
    cls = MIP_COAP_CLASS(m.code);
    if (st == MIP_COAP_OK && (cls == 1u || cls >= 6u))
        st = MIP_COAP_ERR_OPTION;   /* reserved code classes: a format error */
    if (st != MIP_COAP_OK) {
        count(ep, MIP_COAP_STAT_drop_format);
        if (m.type == MIP_COAP_CON && !meta->dst_multicast)
            send_rst(ep, local, &peer, m.mid);
        return;
    }
    if (m.type == MIP_COAP_ACK || m.type == MIP_COAP_RST) {
        if (cls == 0u && m.code != MIP_COAP_EMPTY)
            count(ep, MIP_COAP_STAT_drop_unexpected);   /* a request inside an ACK */
        else
            on_ack_or_rst(ep, &m, &peer);
        return;
    }
    if (m.code == MIP_COAP_EMPTY) {
        if (m.type == MIP_COAP_CON && !meta->dst_multicast)
            send_rst(ep, local, &peer, m.mid);         /* CoAP ping (s.4.3) */
        else
            count(ep, MIP_COAP_STAT_drop_unexpected);
        return;
    }
    if (cls == 0u)
        on_request(ep, &m, &peer, local);
    else
        on_response(ep, &m, &peer, local);
}

/* --- client: sending and timers ---------------------------------------------------- */

/* A request outstanding (its ACK or its separate response awaited): the
 * stack's answer to mip_stack_awaits_reply, so that a sleepy leaf polls
 * fast for the reply (TCPlp s.9 does it for CoAP as for TCP). */
static bool coap_awaits(const void *ctx, const struct mip_stack *s)
{
    const struct mip_coap_endpoint *ep = ctx;
    size_t i;
    (void)s;
    if (ep->s == NULL)
        return false;
    for (i = 0; i < MIP_COAP_CLIENT_MAX; i++)
        if (ep->ex[i].state != EX_FREE)
            return true;
    return false;
}

static uint32_t coap_poll(void *ctx, struct mip_stack *s, mip_time_t now)
{
    struct mip_coap_endpoint *ep = ctx;
    uint32_t delay = MIP_POLL_IDLE;
    size_t i;

    (void)s;
    if (ep->s == NULL)
        return MIP_POLL_IDLE;
    /* Expired entries go now, not when their MID comes again: a stamp
     * compared after 2^31 ms (24.9 days) would read as the future (issue
     * 24). The earliest expiry is a deadline, so poll comes by then. */
    for (i = 0; i < MIP_COAP_DEDUP_MAX; i++) {
        struct mip_coap_dedup *d = &ep->dedup[i];
        if (!d->used)
            continue;
        if (mip_time_reached(now, d->expires))
            d->used = 0;
        else
            delay = mip_next_delay(delay, now, d->expires);
    }
    /* A peer's CoCoA state has no timer: its stamps are held within the
     * horizon (timer.h), so the LRU order and RTO aging stay right. */
    for (i = 0; i < MIP_COAP_PEERS_MAX; i++) {
        struct mip_coap_rtt *r = &ep->rtt[i];
        uint32_t d;
        if (!r->used)
            continue;
        d = mip_time_hold(&r->updated, now);
        delay = d < delay ? d : delay;
        d = mip_time_hold(&r->last_used, now);
        delay = d < delay ? d : delay;
    }
    for (i = 0; i < MIP_COAP_CLIENT_MAX; i++) {
        struct mip_coap_exchange *x = &ep->ex[i];
        if (x->state == EX_FREE)
            continue;
        if (mip_time_reached(now, x->deadline)) {
            if (x->state == EX_WAIT_ACK && x->retransmits < MIP_COAP_MAX_RETRANSMIT) {
                x->retransmits++;
                x->timeout = backoff(ep, x);
                x->deadline = now + x->timeout;
                count(ep, MIP_COAP_STAT_retransmissions);
                send_raw(ep, NULL, &x->peer, x->msg, x->len);
            } else {
                count(ep, MIP_COAP_STAT_timeouts);
                finish(x, MIP_COAP_TIMEOUT, NULL);
                continue;
            }
        }
        delay = mip_next_delay(delay, now, x->deadline);
    }
    return delay;
}

mip_status mip_coap_request(struct mip_coap_endpoint *ep, const struct mip_coap_peer *dst,
                            uint8_t type, uint8_t code, const char *path,
                            const struct mip_coap_block *block1,
                            const uint8_t *payload, size_t len,
                            mip_coap_response_fn fn, void *ctx)
{
    struct mip_coap_exchange *x = NULL;
    struct mip_coap_writer w;
    struct mip_coap_rtt *r;
    uint32_t rto;
    size_t i, n;

    if (ep == NULL || ep->s == NULL || dst == NULL ||
        (type != MIP_COAP_CON && type != MIP_COAP_NON) ||
        MIP_COAP_CLASS(code) != 0u || code == MIP_COAP_EMPTY)
        return MIP_ERR_INVALID;
    for (i = 0; i < MIP_COAP_CLIENT_MAX; i++) {
        if (ep->ex[i].state != EX_FREE && peer_eq(&ep->ex[i].peer, dst))
            return MIP_ERR_INUSE;   /* NSTART = 1 (s.4.7) */
        if (ep->ex[i].state == EX_FREE && x == NULL)
            x = &ep->ex[i];
    }
    if (x == NULL)
        return MIP_ERR_NOBUFS;

    x->token_len = 4;
    for (i = 0; i < x->token_len; i++)
        x->token[i] = (uint8_t)mip_rng_next(&ep->s->rng);
    x->mid = ep->next_mid++;
    mip_coap_w_begin(&w, x->msg, sizeof x->msg, type, code, x->mid, x->token, x->token_len);
    while (path != NULL && *path != '\0') {
        const char *seg = path;
        while (*path != '\0' && *path != '/')
            path++;
        mip_coap_w_option(&w, MIP_COAP_OPT_URI_PATH, seg, (size_t)(path - seg));
        if (*path == '/')
            path++;
    }
    if (block1 != NULL)
        mip_coap_w_block(&w, MIP_COAP_OPT_BLOCK1, block1);
    mip_coap_w_payload(&w, payload, len);
    n = mip_coap_w_end(&w);
    if (n == 0)
        return MIP_ERR_INVALID;

    x->len = (uint16_t)n;
    x->peer = *dst;
    x->fn = fn;
    x->ctx = ctx;
    x->retransmits = 0;
    x->first_sent = ep->s->now;
    rto = ep->ack_timeout_ms;
    if (ep->cocoa) {
        r = rtt_state(ep, dst, true);
        cocoa_age(r, ep->s->now, ep->ack_timeout_ms);
        r->last_used = ep->s->now;
        rto = r->rto;
    }
    /* Initial timeout uniform in [RTO, RTO * ACK_RANDOM_FACTOR] (s.4.2). */
    x->timeout = rto + mip_rng_below(&ep->s->rng, rto * (MIP_COAP_ACK_RANDOM_PCT - 100u) / 100u + 1u);
    if (type == MIP_COAP_CON) {
        x->state = EX_WAIT_ACK;
        x->deadline = ep->s->now + x->timeout;
    } else {
        x->state = EX_WAIT_RESPONSE;
        x->deadline = ep->s->now + MIP_COAP_RESPONSE_WAIT_MS;
    }
    count(ep, MIP_COAP_STAT_requests_sent);
    send_raw(ep, NULL, dst, x->msg, x->len);
    return MIP_OK;
}

/* --- life cycle ----------------------------------------------------------------------- */

mip_status mip_coap_init(struct mip_coap_endpoint *ep, struct mip_stack *s, uint16_t port,
                         const struct mip_coap_resource *resources, size_t n_resources,
                         bool cocoa)
{
    mip_status st;

    if (ep == NULL || s == NULL || (resources == NULL && n_resources != 0))
        return MIP_ERR_INVALID;
    memset(ep, 0, sizeof *ep);
    st = mip_stack_add_poller(s, coap_poll, coap_awaits, ep);
    if (st != MIP_OK)
        return st;
    ep->s = s;
    ep->port = port;
    ep->cocoa = cocoa;
    ep->ack_timeout_ms = MIP_COAP_ACK_TIMEOUT_MS;
    ep->resources = resources;
    ep->n_resources = n_resources;
    ep->next_mid = (uint16_t)mip_rng_next(&s->rng);   /* unpredictable start (s.4.4) */
    return MIP_OK;
}

mip_status mip_coap_start(struct mip_coap_endpoint *ep, struct mip_stack *s, uint16_t port,
                          const struct mip_coap_resource *resources, size_t n_resources,
                          bool cocoa)
{
    mip_status st;

    if (ep == NULL || s == NULL || (resources == NULL && n_resources != 0))
        return MIP_ERR_INVALID;
    /* bound first: a port in use registers no poller (there is no removal) */
    st = mip_udp_bind(s, port, coap_recv, ep);
    if (st != MIP_OK)
        return st;
    st = mip_coap_init(ep, s, port, resources, n_resources, cocoa);
    if (st != MIP_OK)
        mip_udp_unbind(s, port);
    else
        ep->bound = true;
    return st;
}

void mip_coap_stop(struct mip_coap_endpoint *ep)
{
    size_t i;

    if (ep == NULL || ep->s == NULL)
        return;
    if (ep->bound)
        mip_udp_unbind(ep->s, ep->port);
    for (i = 0; i < MIP_COAP_CLIENT_MAX; i++)
        if (ep->ex[i].state != EX_FREE)
            finish(&ep->ex[i], MIP_COAP_CANCELLED, NULL);
    ep->s = NULL;
}

uint32_t mip_coap_stat(const struct mip_coap_endpoint *ep, enum mip_coap_stat which)
{
    return (unsigned)which < MIP_COAP_STAT_COUNT ? ep->stats[which] : 0u;
}

const char *mip_coap_stat_name(enum mip_coap_stat which)
{
    static const char *const names[] = {
#define MIP_COAP_STAT_NAME(n) #n,
        MIP_COAP_STATS_LIST(MIP_COAP_STAT_NAME)
#undef MIP_COAP_STAT_NAME
    };
    return (unsigned)which < MIP_COAP_STAT_COUNT ? names[which] : NULL;
}
