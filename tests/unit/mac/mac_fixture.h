/*
 * Fixture for MAC tests: one struct mip_mac over a scripted fake radio.
 *
 * The fake radio records every transmit call with the time it came, answers
 * CCAs from a script ('b' busy, anything else or past its end: clear; busy
 * throughout while chan_busy is set), adds up the time its receiver is on
 * (on_time()), and,
 * when auto_done is set, ends each transmission after its airtime by calling
 * mip_mac_radio_tx_done itself. Time moves only through node_step /
 * node_run, which jump to the deadline mip_mac_poll returned (or to the end
 * of the transmission on air, whichever is first), so every event happens at
 * the instant the MAC asked for.
 */
#ifndef MOTEIP_TEST_MAC_FIXTURE_H
#define MOTEIP_TEST_MAC_FIXTURE_H

#include "testing.h"
#include "moteip/mac.h"
#include <stdlib.h>
#include <string.h>

#define NODE_TX_MAX   64
#define NODE_CCA_MAX  64
#define NODE_DONE_MAX 64
#define NODE_RX_MAX   16

#define PAN     0xABCDu
#define ME      0x0002u
#define PEER    0x0001u
#define OTHER   0x0003u
#define T0      1000000u    /* start time */

struct node_tx {
    mip_utime_t t;
    size_t len;
    uint8_t data[MIP_MAC_FRAME_MAX];
};

struct node_done {
    mip_utime_t t;
    uint8_t seq;
    uint8_t st;
    uint8_t retries;
    uint8_t first;          /* first payload byte: identifies the frame */
};

struct node {
    struct mip_mac mac;
    struct mip_mac_config cfg;
    mip_utime_t now;
    /* fake radio */
    bool radio_on;
    mip_utime_t on_since;
    uint64_t on_us;         /* receiver-on time, up to on_since */
    unsigned n_on;          /* times switched on */
    bool chan_busy;         /* every CCA finds the channel busy */
    bool busy;
    bool auto_done;
    mip_utime_t tx_end;
    mip_status refuse;      /* transmit returns this (MIP_OK: accept) */
    unsigned refusals;
    struct node_tx tx[NODE_TX_MAX];
    unsigned ntx;
    const char *cca_script;
    mip_utime_t cca_at[NODE_CCA_MAX];
    unsigned ncca;
    /* upper layer */
    struct node_done done[NODE_DONE_MAX];
    unsigned ndone;
    unsigned ninput, noverheard;
    uint8_t input_tag[NODE_RX_MAX];
};

static inline mip_status fake_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct node *n = ctx;
    struct node_tx *t;
    CHECK(!n->busy);        /* the MAC never overlaps transmissions */
    if (n->refuse != MIP_OK) {
        n->refusals++;
        return n->refuse;
    }
    if (n->ntx < NODE_TX_MAX) {
        t = &n->tx[n->ntx];
        t->t = n->now;
        t->len = len;
        memcpy(t->data, frame, len);
    }
    n->ntx++;
    n->busy = true;
    n->tx_end = n->now + mip_radio_airtime(&n->cfg.timing, len + MIP_802154_FCS_LEN);
    return MIP_OK;
}

static inline bool fake_cca(void *ctx)
{
    struct node *n = ctx;
    bool clear = !n->chan_busy;
    CHECK(!n->busy);        /* no CCA while sending */
    CHECK(n->radio_on);     /* nor with the receiver off */
    if (n->cca_script != NULL && n->ncca < strlen(n->cca_script))
        clear = n->cca_script[n->ncca] != 'b';
    if (n->ncca < NODE_CCA_MAX)
        n->cca_at[n->ncca] = n->now;
    n->ncca++;
    return clear;
}

static inline void fake_on(void *ctx)
{
    struct node *n = ctx;
    CHECK(!n->radio_on);    /* the MAC switches only on a change */
    n->radio_on = true;
    n->on_since = n->now;
    n->n_on++;
}

static inline void fake_off(void *ctx)
{
    struct node *n = ctx;
    CHECK(n->radio_on);
    n->radio_on = false;
    n->on_us += n->now - n->on_since;
}

/* Receiver-on time so far, µs. */
static inline uint64_t on_time(const struct node *n)
{
    return n->on_us + (n->radio_on ? n->now - n->on_since : 0u);
}

static const struct mip_radio_driver fake_radio = { fake_transmit, fake_cca, fake_on, fake_off };

static inline void cb_input(void *ctx, const uint8_t *frame, size_t len, size_t hdr_len,
                     const struct mip_802154_hdr *hdr, mip_utime_t now)
{
    struct node *n = ctx;
    (void)hdr;
    CHECK_EQ(now, n->now);
    if (n->ninput < NODE_RX_MAX)
        n->input_tag[n->ninput] = hdr_len < len ? frame[len - 1] : 0;
    n->ninput++;
}

static inline void cb_overheard(void *ctx, const uint8_t *frame, size_t len, size_t hdr_len,
                         const struct mip_802154_hdr *hdr, mip_utime_t now)
{
    struct node *n = ctx;
    (void)frame; (void)len; (void)hdr_len; (void)hdr;
    CHECK_EQ(now, n->now);
    n->noverheard++;
}

static inline void cb_tx_done(void *ctx, const uint8_t *frame, size_t len,
                       enum mip_mac_tx_status st, uint8_t retries, mip_utime_t now)
{
    struct node *n = ctx;
    struct node_done *d;
    CHECK(len >= 3);
    CHECK_EQ(now, n->now);
    if (n->ndone < NODE_DONE_MAX) {
        d = &n->done[n->ndone];
        d->t = now;
        d->seq = frame[2];
        d->st = (uint8_t)st;
        d->retries = retries;
        d->first = frame[len - 1];
    }
    n->ndone++;
}

/* The config a test starts from: kind's defaults, our addresses. */
static inline void node_config(struct node *n, uint8_t kind)
{
    static const uint8_t ext[8] = { 0x02, 0, 0, 0, 0, 0, 0, 0x02 };
    memset(n, 0, sizeof(*n));
    mip_mac_config_default(&n->cfg, kind, PAN, ME, ext);
    n->now = T0;
    n->auto_done = true;
}

static inline void node_start_seed(struct node *n, uint32_t seed)
{
    struct mip_mac_callbacks cb = { cb_input, cb_tx_done, cb_overheard, n };
    uint8_t s[4] = { (uint8_t)seed, (uint8_t)(seed >> 8), (uint8_t)(seed >> 16),
                     (uint8_t)(seed >> 24) };
    CHECK_EQ(mip_mac_init(&n->mac, &n->cfg, &fake_radio, n, &cb, s, sizeof(s), n->now), MIP_OK);
}

static inline void node_start(struct node *n)
{
    node_start_seed(n, 1);
}

static inline void node_init(struct node *n, uint8_t kind)
{
    node_config(n, kind);
    node_start(n);
}

/* An intra-PAN MHR of `type` (data, command) from short address src to
 * short address dst in PAN `pan` into buf; returns its length. */
static inline size_t build_short_mhr(uint8_t *buf, uint8_t type, uint16_t dst, uint16_t src,
                                     uint16_t pan, bool ackreq, uint8_t seq)
{
    struct mip_802154_hdr h;
    size_t n = 0;
    memset(&h, 0, sizeof(h));
    h.type = type;
    h.ack_request = ackreq;
    h.pan_id_compress = true;
    h.version = 1;
    h.seq = seq;
    h.dst_pan = pan;
    h.src_pan = pan;
    h.dst.mode = MIP_802154_ADDR_SHORT;
    h.dst.short_addr = dst;
    h.src.mode = MIP_802154_ADDR_SHORT;
    h.src.short_addr = src;
    CHECK_EQ(mip_ieee802154_emit(&h, buf, 64, &n), MIP_OK);
    return n;
}

/* A data frame: intra-PAN, short addresses, DSN 0 (the MAC writes it), one
 * payload byte `tag` at the end and `extra` bytes before it. */
static inline size_t build_data(uint8_t *buf, uint16_t dst, uint16_t src, uint16_t dst_pan, bool ackreq,
                         uint8_t seq, uint8_t tag, size_t extra)
{
    size_t n = build_short_mhr(buf, MIP_802154_DATA, dst, src, dst_pan, ackreq, seq);
    memset(buf + n, 0x5A, extra);
    n += extra;
    buf[n++] = tag;
    return n;
}

/* Queues a frame from us to `dst`. */
static inline mip_status node_send(struct node *n, uint16_t dst, bool ackreq, uint8_t tag)
{
    uint8_t f[64];
    size_t len = build_data(f, dst, ME, PAN, ackreq, 0, tag, 8);
    return mip_mac_send(&n->mac, f, len, n->now);
}

/* Delivers a frame to the MAC at the current time, then polls. */
static inline uint32_t node_rx(struct node *n, const uint8_t *frame, size_t len)
{
    mip_mac_radio_rx(&n->mac, frame, len, n->now);
    return mip_mac_poll(&n->mac, n->now);
}

/* The earliest of the MAC's deadline (`d` µs from now) and the end of the
 * transmission on air. */
static inline bool node_next(const struct node *n, uint32_t d, mip_utime_t *at, bool *is_tx_end)
{
    bool have = d != UINT32_MAX;
    *at = n->now + d;
    *is_tx_end = false;
    if (n->busy && n->auto_done && (!have || mip_utime_before(n->tx_end, *at) ||
                                    n->tx_end == *at)) {
        *at = n->tx_end;
        *is_tx_end = true;
        have = true;
    }
    return have;
}

/* Moves time to the next event (if it comes by `limit`) and runs it with
 * mip_mac_poll. False when nothing is left to happen by `limit`. */
static inline bool node_step(struct node *n, mip_utime_t limit)
{
    uint32_t d = mip_mac_poll(&n->mac, n->now);
    mip_utime_t at;
    bool tx_end;
    if (!node_next(n, d, &at, &tx_end) || mip_utime_before(limit, at))
        return false;
    n->now = at;
    if (tx_end) {
        n->busy = false;
        mip_mac_radio_tx_done(&n->mac, n->now);
    }
    (void)mip_mac_poll(&n->mac, n->now);
    return true;
}

/* Runs events until nothing is left before `limit` (or 10000 events). */
static inline void node_run(struct node *n, mip_utime_t limit)
{
    unsigned i;
    for (i = 0; i < 10000u && node_step(n, limit); i++)
        ;
    CHECK(i < 10000u);
}

static inline void node_run_all(struct node *n)
{
    node_run(n, n->now + 1000000000u);
}

/* Ends the transmission on air now (tests that drive tx_done by hand). */
static inline void node_tx_done(struct node *n)
{
    CHECK(n->busy);
    n->busy = false;
    mip_mac_radio_tx_done(&n->mac, n->now);
}

static inline uint32_t node_stat(const struct node *n, enum mip_mac_stat s)
{
    return mip_mac_stat(&n->mac, s);
}

static inline mip_utime_t airtime(const struct node *n, size_t len_no_fcs)
{
    return mip_radio_airtime(&n->cfg.timing, len_no_fcs + MIP_802154_FCS_LEN);
}

#endif
