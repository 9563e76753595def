/*
 * The micro profile's input path under libFuzzer (fuzz_micro4_input,
 * fuzz_micro6_input include this with the build's IP version). MOTEIP_FUZZING
 * skips checksum checks on input so the fuzzer reaches TCP.
 *
 * Input: byte 0 picks what the application does (send on every chance,
 * close, abort, stop the window), then records:
 *   0 LEN(2) BYTES   a datagram as it is
 *   1                a tick: mip_micro_periodic for every connection
 *   2 LEN(2) BYTES   a datagram with its length fields and destination
 *                    address made right (to get past the IP checks); its
 *                    fragment fields cleared, unless reassembly is on
 *                    (fuzz_micro4r_input) and bit 0 of the TOS byte is
 *                    set: then a fragment of the peer's. With bit 2 of the
 *                    record's byte set, a TCP segment also gets the ports,
 *                    sequence number and acknowledgement number of the
 *                    connection bits 3-7 pick (the peer's next byte, and
 *                    all we sent acknowledged): the ISN is a keyed PRF,
 *                    so without this no input ever completed a handshake,
 *                    and the established state's data path (window,
 *                    RTT samples, the application's sends) went unfuzzed
 *                    until 2026-11-29
 *   3                mip_micro_connect to the peer, port 80
 * Invariants, after every call: every datagram the node sends is a whole
 * IP datagram from its address, within the buffer, with right checksums;
 * every connection's state and in-flight length are in range; with
 * reassembly, its timer and end within their bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/micro.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/checksum.h"

#if MIP_CONF_IPV6
#define FZ_SRC 8u
static const uint8_t fz_node[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
static const uint8_t fz_peer[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
#else
#define FZ_SRC 12u
static const uint8_t fz_node[4] = {192, 0, 2, 2};
static const uint8_t fz_peer[4] = {192, 0, 2, 1};
#endif
#define FZ_ALEN MIP_MICRO_ADDR_LEN
#define FZ_IPH MIP_MICRO_IPH

static uint8_t fz_mode;

static void fz_app(struct mip_micro *m, struct mip_micro_conn *c, uint8_t ev)
{
    uint16_t n = mip_micro_mss(c);

    if ((ev & MIP_MICRO_EV_NEWDATA) && m->dlen)
        (void)m->appdata[m->dlen - 1];          /* the data is readable */
    if ((fz_mode & 1) && (c->len == 0 || (ev & MIP_MICRO_EV_REXMIT))) {
        memset(mip_micro_sdata(m), 'x', n);
        mip_micro_send(m, n);
    }
    if ((fz_mode & 2) && (ev & MIP_MICRO_EV_ACKED))
        mip_micro_close(m);
    if ((fz_mode & 4) && (ev & MIP_MICRO_EV_NEWDATA) && m->dlen > 100)
        mip_micro_abort(m);
    if (fz_mode & 8)
        mip_micro_stop(c);
    else
        mip_micro_restart(c);
}

#if MIP_MICRO_CONF_UDP
static void fz_udp(struct mip_micro *m, uint16_t lport)
{
    (void)lport;
    memmove(mip_micro_udp_sdata(m), m->appdata, m->dlen);
    mip_micro_send(m, m->dlen);
}
#endif

static void fz_check_out(const struct mip_micro *m, uint16_t n)
{
    const uint8_t *p = m->buf;
    uint16_t l4len;
    uint8_t proto;
    uint32_t s = 0;

    if (n == 0)
        return;
    if (n < FZ_IPH || n > MIP_MICRO_BUF_SIZE)
        abort();
#if MIP_CONF_IPV6
    if (p[0] != 0x60 || mip_rd16(p + 4) + 40u != n)
        abort();
    proto = p[6];
#else
    if (p[0] != 0x45 || mip_rd16(p + 2) != n || mip_cksum_finish(mip_cksum_add(0, p, 20)))
        abort();
    proto = p[9];
#endif
    if (memcmp(p + FZ_SRC, fz_node, FZ_ALEN) != 0)
        abort();
    l4len = (uint16_t)(n - FZ_IPH);
#if !MIP_CONF_IPV6
    if (proto != 1)
#endif
        s = mip_cksum_add((uint32_t)proto + l4len, p + FZ_SRC, 2u * FZ_ALEN);
    if (mip_cksum_finish(mip_cksum_add(s, p + FZ_IPH, l4len)) != 0)
        abort();
}

static void fz_check_state(const struct mip_micro *m)
{
    unsigned i;

    for (i = 0; i < MIP_MICRO_CONNS; i++) {
        const struct mip_micro_conn *c = &m->conn[i];
        if (c->state > MIP_MICRO_LAST_ACK || c->len > MIP_MICRO_MSS ||
            c->mss > MIP_MICRO_MSS || c->wnd > c->mss || c->rto > 15u)
            abort();
        if (c->state != MIP_MICRO_CLOSED && c->len && c->timer == 0 &&
            c->state != MIP_MICRO_TIME_WAIT && c->state != MIP_MICRO_FIN_WAIT_2)
            abort();                            /* something in flight, no timer */
    }
#if MIP_MICRO_CONF_REASS
    if (m->reass.timer > MIP_MICRO_REASS_TICKS || m->reass.end > sizeof m->reass.data)
        abort();
#endif
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct mip_micro m;
    static const uint8_t seed[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    size_t i = 1;
    uint16_t n, len;
    uint8_t k, op, ob;

    if (size < 1)
        return 0;
    fz_mode = data[0];
    mip_micro_init(&m, fz_node, seed, fz_app, NULL);
    mip_micro_listen(&m, 80);
    mip_micro_listen(&m, 7);
#if MIP_MICRO_CONF_UDP
    m.udp_app = fz_udp;
    mip_micro_udp_bind(&m, 7);
#endif
    while (i < size) {
        ob = data[i++];
        op = ob & 3u;
        if (op == 1) {
            for (k = 0; k < MIP_MICRO_CONNS; k++) {
                fz_check_out(&m, mip_micro_periodic(&m, k));
                fz_check_state(&m);
            }
            continue;
        }
        if (op == 3) {
#if MIP_MICRO_CONF_CONNECT
            mip_micro_connect(&m, fz_peer, 80);
#endif
            continue;
        }
        if (size - i < 2)
            break;
        len = mip_rd16(data + i);
        i += 2;
        if (len > size - i)
            len = (uint16_t)(size - i);
        if (len > MIP_MICRO_BUF_SIZE)
            len = MIP_MICRO_BUF_SIZE;
        memcpy(m.buf, data + i, len);
        i += len;
        if (op == 2 && len >= FZ_IPH) {
#if MIP_CONF_IPV6
            m.buf[0] = (uint8_t)(0x60 | (m.buf[0] & 0x0F));
            mip_wr16(m.buf + 4, (uint16_t)(len - FZ_IPH));
#else
            m.buf[0] = 0x45;
            mip_wr16(m.buf + 2, len);
#if MIP_MICRO_CONF_REASS
            if (!(m.buf[1] & 1u))
#endif
            {
                m.buf[6] &= 0x40;
                m.buf[7] = 0;
            }
#endif
            memcpy(m.buf + FZ_SRC, fz_peer, FZ_ALEN);
            memcpy(m.buf + FZ_SRC + FZ_ALEN, fz_node, FZ_ALEN);
#if MIP_CONF_IPV6
            if ((ob & 4u) && m.buf[6] == 6u && len >= FZ_IPH + 20u)
#else
            if ((ob & 4u) && m.buf[9] == 6u && len >= FZ_IPH + 20u)
#endif
            {
                const struct mip_micro_conn *c = &m.conn[(ob >> 3) % MIP_MICRO_CONNS];
                uint8_t *t = m.buf + FZ_IPH;
                mip_wr16(t, c->rport);
                mip_wr16(t + 2, c->lport);
                memcpy(t + 4, c->rcv_nxt, 4);
                mip_wr32(t + 8, mip_rd32(c->snd_una) + c->len);
            }
        }
        n = mip_micro_input(&m, len);
        fz_check_out(&m, n);
        fz_check_state(&m);
    }
    return 0;
}
