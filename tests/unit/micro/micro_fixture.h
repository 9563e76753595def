/*
 * Test fixture for the micro profile: one node (the build's IP version),
 * a peer that builds datagrams into the node's buffer, an application that
 * logs its events and does what the test scripted, and checks on every
 * datagram the node answers with (checksums, addresses).
 */
#ifndef MICRO_FIXTURE_H
#define MICRO_FIXTURE_H

#include <stdint.h>
#include <string.h>

#include "moteip/micro.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"
#include "moteip/wire/tcp.h"
#include "testing.h"

#if MIP_CONF_IPV6
#define FX_SRC 8u
static const uint8_t fx_node[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
static const uint8_t fx_peer[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
#define FX_ICMP 58u
#define FX_ECHO 128u
#define FX_ECHO_REPLY 129u
#else
#define FX_SRC 12u
static const uint8_t fx_node[4] = {192, 0, 2, 2};
static const uint8_t fx_peer[4] = {192, 0, 2, 1};
#define FX_ICMP 1u
#define FX_ECHO 8u
#define FX_ECHO_REPLY 0u
#endif
#define FX_IPH MIP_MICRO_IPH
#define FX_ALEN MIP_MICRO_ADDR_LEN
#define FX_T (FX_IPH)

static const uint8_t fx_entropy[8] = {1, 2, 3, 4, 5, 6, 7, 8};

/* What the application does on its next call. */
struct fx_app {
    uint8_t events[64];         /* event sets, in order */
    unsigned nevents;
    uint16_t send;              /* bytes to send (pattern), 0: none */
    uint8_t close, abort, stop;
    uint8_t got[2048];          /* data received */
    unsigned ngot;
};

struct fx {
    struct mip_micro m;
    struct fx_app app;
};

static void fx_app_fn(struct mip_micro *m, struct mip_micro_conn *c, uint8_t ev)
{
    struct fx_app *a = m->ctx;
    uint16_t i;

    if (a->nevents < sizeof a->events)
        a->events[a->nevents++] = ev;
    if ((ev & MIP_MICRO_EV_NEWDATA) && a->ngot + m->dlen <= sizeof a->got) {
        memcpy(a->got + a->ngot, m->appdata, m->dlen);
        a->ngot += m->dlen;
    }
    if (a->send && (c->len == 0 || (ev & MIP_MICRO_EV_REXMIT))) {
        for (i = 0; i < a->send; i++)
            mip_micro_sdata(m)[i] = (uint8_t)(i + 1);
        mip_micro_send(m, a->send);
        if (!(ev & MIP_MICRO_EV_REXMIT))
            a->send = 0;
    }
    if (a->close)
        mip_micro_close(m);
    if (a->abort)
        mip_micro_abort(m);
    if (a->stop)
        mip_micro_stop(c);
}

static uint8_t fx_last_event(const struct fx *f)
{
    return f->app.nevents ? f->app.events[f->app.nevents - 1] : 0;
}

static void fx_init(struct fx *f)
{
    memset(f, 0, sizeof *f);
    mip_micro_init(&f->m, fx_node, fx_entropy, fx_app_fn, &f->app);
}

/* The IP header (peer -> node) for an upper-layer message of l4len bytes
 * already at buf + IPH; its checksum (at l4 offset ck, -1: none) is set. */
static uint16_t fx_ip(struct fx *f, uint8_t proto, uint16_t l4len, int ck)
{
    uint8_t *p = f->m.buf;
    uint32_t s = 0;

#if MIP_CONF_IPV6
    memset(p, 0, 8);
    p[0] = 0x60;
    mip_wr16(p + 4, l4len);
    p[6] = proto;
    p[7] = 64;
#else
    memset(p, 0, 12);
    p[0] = 0x45;
    mip_wr16(p + 2, (uint16_t)(20 + l4len));
    p[8] = 64;
    p[9] = proto;
#endif
    memcpy(p + FX_SRC, fx_peer, FX_ALEN);
    memcpy(p + FX_SRC + FX_ALEN, fx_node, FX_ALEN);
#if !MIP_CONF_IPV6
    mip_wr16(p + 10, mip_cksum_finish(mip_cksum_add(0, p, 20)));
    if (proto != FX_ICMP)
#endif
        s = mip_cksum_add((uint32_t)proto + l4len, p + FX_SRC, 2u * FX_ALEN);
    if (ck >= 0) {
        p[FX_IPH + ck] = p[FX_IPH + ck + 1] = 0;
        mip_wr16(p + FX_IPH + ck, mip_cksum_finish(mip_cksum_add(s, p + FX_IPH, l4len)));
    }
    return (uint16_t)(FX_IPH + l4len);
}

/* A TCP segment from the peer; opts (a multiple of 4) then data. */
static uint16_t fx_seg(struct fx *f, uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack,
                       uint8_t flags, const uint8_t *opts, uint8_t olen, const uint8_t *data,
                       uint16_t dlen)
{
    uint8_t *t = f->m.buf + FX_T;

    memset(t, 0, 20);
    mip_wr16(t, sport);
    mip_wr16(t + 2, dport);
    mip_wr32(t + 4, seq);
    mip_wr32(t + 8, ack);
    t[12] = (uint8_t)((20 + olen) << 2);
    t[13] = flags;
    mip_wr16(t + 14, 8192);
    if (olen)
        memcpy(t + 20, opts, olen);
    if (dlen)
        memcpy(t + 20 + olen, data, dlen);
    return fx_ip(f, 6, (uint16_t)(20 + olen + dlen), 16);
}

static uint16_t fx_input(struct fx *f, uint16_t len)
{
    return mip_micro_input(&f->m, len);
}

/* Checks a datagram the node sent (n bytes in buf): version, length,
 * checksums, source = node, destination = peer. Returns 1 if all hold. */
static int fx_valid(const struct fx *f, uint16_t n)
{
    const uint8_t *p = f->m.buf;
    uint16_t l4len;
    uint8_t proto;
    uint32_t s = 0;

    if (n < FX_IPH || n > MIP_MICRO_BUF_SIZE)
        return 0;
#if MIP_CONF_IPV6
    if (p[0] != 0x60 || mip_rd16(p + 4) + 40u != n)
        return 0;
    proto = p[6];
#else
    if (p[0] != 0x45 || mip_rd16(p + 2) != n || mip_cksum_finish(mip_cksum_add(0, p, 20)))
        return 0;
    proto = p[9];
#endif
    l4len = (uint16_t)(n - FX_IPH);
    if (memcmp(p + FX_SRC, fx_node, FX_ALEN) || memcmp(p + FX_SRC + FX_ALEN, fx_peer, FX_ALEN))
        return 0;
#if !MIP_CONF_IPV6
    if (proto != FX_ICMP)
#endif
        s = mip_cksum_add((uint32_t)proto + l4len, p + FX_SRC, 2u * FX_ALEN);
    return mip_cksum_finish(mip_cksum_add(s, p + FX_IPH, l4len)) == 0;
}

/* Fields of the node's TCP segment in buf. */
#define FX_FLAGS(f) ((f)->m.buf[FX_T + 13])
#define FX_SEQ(f) mip_rd32((f)->m.buf + FX_T + 4)
#define FX_ACK(f) mip_rd32((f)->m.buf + FX_T + 8)
#define FX_WIN(f) mip_rd16((f)->m.buf + FX_T + 14)
#define FX_HL(f) ((uint16_t)(((f)->m.buf[FX_T + 12] >> 4) * 4u))

#define PEER_PORT 40000u
#define PORT 80u
#define PEER_ISN 1000u

/* A connection to PORT set up by the three-way handshake; returns it, and
 * the node's ISN + 1 in *una. */
static struct mip_micro_conn *fx_connect(struct fx *f, uint32_t *una)
{
    static const uint8_t mss[4] = {2, 4, 0x05, 0xb4};    /* 1460 */
    uint16_t n;

    mip_micro_listen(&f->m, PORT);
    n = fx_input(f, fx_seg(f, PEER_PORT, PORT, PEER_ISN, 0, MIP_TCP_SYN, mss, 4, NULL, 0));
    CHECK(fx_valid(f, n));
    CHECK_EQ(FX_FLAGS(f), MIP_TCP_SYN | MIP_TCP_ACK);
    *una = FX_SEQ(f) + 1;
    n = fx_input(f, fx_seg(f, PEER_PORT, PORT, PEER_ISN + 1, *una, MIP_TCP_ACK, NULL, 0, NULL, 0));
    CHECK_EQ(n, 0);
    CHECK_EQ(fx_last_event(f), MIP_MICRO_EV_CONNECTED);
    CHECK_EQ(f->m.conn[0].state, MIP_MICRO_ESTABLISHED);
    return &f->m.conn[0];
}

#endif
