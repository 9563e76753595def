/*
 * Frames the RDC tests hand to a MAC or expect from it: RDC control frames
 * (a data frame whose payload is { 0x00, type }, docs/MAC.md), 802.15.4
 * data requests and ACKs. On top of mac_fixture.h.
 */
#ifndef MOTEIP_TEST_RDC_FRAMES_H
#define MOTEIP_TEST_RDC_FRAMES_H

#include "mac_fixture.h"

/* An RDC control frame from src to dst (0xFFFF: broadcast). */
static inline size_t ctl_frame(uint8_t *buf, uint16_t dst, uint16_t src, uint8_t seq, uint8_t type)
{
    size_t n = build_data(buf, dst, src, PAN, false, seq, 0x00, 0);
    buf[n++] = type;
    return n;
}

/* The control frame type of a recorded transmission, or -1. */
static inline int ctl_type_of(const struct node_tx *t)
{
    struct mip_802154_hdr h;
    size_t hl;
    if (mip_ieee802154_parse(t->data, t->len, &h, &hl) != MIP_OK || h.type != MIP_802154_DATA ||
        t->len != hl + 2u || t->data[hl] != 0x00u)
        return -1;
    return t->data[hl + 1u];
}

/* The 802.15.4 header of a recorded transmission (CHECKed to parse). */
static inline struct mip_802154_hdr hdr_of(const struct node_tx *t)
{
    struct mip_802154_hdr h;
    size_t hl;
    memset(&h, 0, sizeof(h));
    CHECK_EQ(mip_ieee802154_parse(t->data, t->len, &h, &hl), MIP_OK);
    return h;
}

/* A data request (MAC command 0x04) from src to dst, ACK requested. */
static inline size_t data_request(uint8_t *buf, uint16_t dst, uint16_t src, uint8_t seq)
{
    size_t n = build_short_mhr(buf, MIP_802154_CMD, dst, src, PAN, true, seq);
    buf[n++] = 0x04;
    return n;
}

/* Delivers an ACK for `seq` (pending bit as given) at the current time. */
static inline void deliver_ack(struct node *n, uint8_t seq, bool pending)
{
    uint8_t ack[MIP_802154_ACK_LEN];
    mip_ieee802154_emit_ack(seq, pending, ack);
    (void)node_rx(n, ack, sizeof(ack));
}

/* Runs until transmission number k is on air (at most `within` µs). */
static inline void run_to_tx(struct node *n, unsigned k, mip_utime_t within)
{
    mip_utime_t end = n->now + within;
    unsigned i;
    for (i = 0; i < 100000u && n->ntx <= k; i++)
        if (!node_step(n, end))
            break;
    CHECK(n->ntx > k);
}

/* The most a neighbour sending a pending bit every 20 ms holds a receiver
 * awake in 2 s (two budget windows) with the default parameters (rdc.h):
 * each frame pays 20 - 7.36 ms of the 187.5-ms budget and buys 20 ms, and
 * the last wait of each window is free. */
#define SPARSE_2S (2u * (187500u / 12640u * 20000u + 20000u + 31250u))

/* Denial of sleep (docs/MAC.md): a neighbour `src` sends data frames with
 * the pending bit to `dst` (0xFFFF: broadcast, no ACK request) every
 * `every` µs for `span` µs from now: new DSNs, or (dup) the same one each
 * time, as a replay does. A frame is received only while the radio is on.
 * Returns the radio-on time over the span. */
static inline uint64_t pending_attack(struct node *n, uint16_t src, uint16_t dst, bool dup,
                                      uint32_t every, uint32_t span)
{
    uint8_t f[64];
    size_t len;
    uint64_t on0 = on_time(n);
    mip_utime_t t = n->now, end = n->now + span;
    uint8_t seq = 0x80;
    while (mip_utime_before(t, end)) {
        len = build_data(f, dst, src, PAN, dst != 0xFFFFu, seq, 1, 20);
        f[0] |= 0x10;
        if (!dup)
            seq++;
        if (n->radio_on && !n->busy)
            (void)node_rx(n, f, len);
        t += every;
        node_run(n, t);
        n->now = t;
    }
    return on_time(n) - on0;
}

/* Denial of sleep (issue 24, docs/MAC.md), for an RDC that listens at
 * offset `listen_at` after the wake-up its start function returns: three
 * attacks of a pending bit every 20 ms for 2 s, the first frame while it
 * listens: new frames (at most two budget windows' worth), replays of one
 * frame (one burst_wait_us) and broadcasts (nothing); `wake_us` is its own
 * radio-on time over 2 s. Before bounded bursts each held the radio 2 s. */
static inline void check_pending_bounds(void (*config)(struct node *),
                                        mip_utime_t (*start)(struct node *),
                                        uint32_t listen_at, uint32_t wake_us)
{
    const struct {
        uint16_t dst;
        bool dup;
        uint32_t most_us;
    } cases[] = {
        { ME, false, SPARSE_2S + wake_us },
        { ME, true, 31250u + wake_us },
        { 0xFFFFu, false, wake_us },
    };
    struct node n;
    uint64_t on;
    unsigned i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        config(&n);
        n.now = start(&n) + listen_at;
        node_run(&n, n.now);
        CHECK(n.radio_on);
        on = pending_attack(&n, PEER, cases[i].dst, cases[i].dup, 20000u, 2000000u);
        CHECK(on <= cases[i].most_us);
        if (on > cases[i].most_us)
            fprintf(stderr, "case %u: on %llu us\n", i, (unsigned long long)on);
    }
    CHECK(node_stat(&n, MIP_MAC_STAT_rdc_burst_refused) > 0u);
}

#endif
