/*
 * libFuzzer harness: a whole stack running RPL (src/route/ as its routing
 * driver) behind one raw-IP netif (MTU 1280, interface id ::2, forwarding
 * on), fed whole IPv6 datagrams: DIS/DIO/DAO/DAO-ACK, datagrams with a
 * Source Routing Header, an RPL Option, IPv6-in-IPv6 and fragments of it,
 * interleaved with time steps.
 *
 * Input: [1 byte mode][records...]. Mode bit 0: the node is a non-storing
 * root (DODAGID fd00::2, prefix fd00::/64), else it starts detached (and
 * may join from a DIO of the input); bit 1: storing mode. A record is
 *
 *     [1 byte time step, units of 100 ms][2 bytes big-endian length][datagram]
 *
 * (received checksums are not verified in a fuzzing build, MOTEIP_FUZZING).
 * Checks: no sanitizer report; every datagram the stack sends parses as
 * IPv6 with its payload length, and an SRH it wrote or stepped parses with
 * Segments Left at most n (a datagram forwarded as it came, but for its hop
 * limit, keeps its sender's SRH: only the Destination Address processes a
 * routing header, RFC 8200 4.4, RFC 6554 4.2); after the last record the
 * clock runs on past every lifetime and every packet buffer is back in the
 * pool.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "moteip/moteip.h"
#include "moteip/rpl.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/ipv6.h"
#include "moteip/wire/rpl_ext.h"

#define MAX_RECORDS 64

struct harness {
    struct mip_stack s;
    struct mip_rpl r;
    unsigned sent;
    const uint8_t *in;            /* the datagram being input, and its length */
    size_t in_len;
};

/* The stack forwards the input as it came, with the hop limit one lower. */
static bool forwarded_as_is(const struct harness *h, const uint8_t *frame, size_t len)
{
    return h->in != NULL && len >= 8u && len <= h->in_len && memcmp(frame, h->in, 7) == 0 &&
           memcmp(frame + 8, h->in + 8, len - 8u) == 0;
}

static mip_status h_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct harness *h = ctx;
    struct mip_ipv6_hdr ip;
    struct mip_srh srh;

    h->sent++;
    CHECKF(mip_ipv6_parse(frame, len, &ip) == MIP_OK);
    CHECKF((size_t)ip.payload_len + 40u == len);
    if (ip.next_header == MIP_IPV6_NH_ROUTING && len >= 48u && frame[42] == MIP_SRH_TYPE &&
        !forwarded_as_is(h, frame, len) && mip_srh_parse(frame + 40, len - 40u, &srh) == MIP_OK)
        CHECKF(srh.segments_left <= srh.n);
    return MIP_OK;
}

static const struct mip_netif_driver h_driver = { h_transmit, NULL, NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t seed[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    static const uint8_t iid[8] = {0, 0, 0, 0, 0, 0, 0, 2};
    static const uint8_t prefix[16] = {0xfd};
    static const uint8_t dodagid[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
    struct harness *h;
    struct mip_stack_config sc;
    struct mip_rpl_config rc;
    struct mip_addr a;
    mip_time_t now = 1000;
    uint8_t idx;
    size_t off = 1;
    unsigned rec;

    if (size < 1)
        return 0;
    h = calloc(1, sizeof(*h));
    if (h == NULL)
        abort();
    memset(&sc, 0, sizeof(sc));
    sc.entropy = seed;
    sc.entropy_len = sizeof(seed);
    sc.forwarding = true;
    mip_stack_init(&h->s, &sc, now);
    CHECKF(mip_netif_add_rawip(&h->s, 1280, iid, &h_driver, h, &idx) == MIP_OK);
    mip_rpl_config_default(&rc);
    if (data[0] & 2u)
        rc.mop = MIP_RPL_MOP_STORING;
    CHECKF(mip_rpl_init(&h->r, &h->s, idx, &rc, now) == MIP_OK);
    if (data[0] & 1u) {
        CHECKF(mip_rpl_root_start(&h->r, prefix, 64, dodagid, now) == MIP_OK);
    } else {
        memset(&a, 0, sizeof(a));
        a.family = MIP_AF_INET6;
        a.bytes[0] = 0xfd;
        a.bytes[15] = 2;
        (void)mip_netif_add_addr(&h->s, idx, &a, 64);
    }
    for (rec = 0; rec < MAX_RECORDS && size - off >= 3u; rec++) {
        size_t len = mip_rd16(data + off + 1);
        uint8_t *copy;
        now += 100u * data[off];
        off += 3u;
        if (len > size - off)
            len = size - off;
        (void)mip_stack_poll(&h->s, now);
        copy = malloc(len ? len : 1u);
        if (copy == NULL)
            abort();
        memcpy(copy, data + off, len);
        h->in = data + off;
        h->in_len = len;
        mip_stack_input(&h->s, idx, copy, len, now);
        h->in = NULL;
        free(copy);
        off += len;
    }
    /* past every DAO lifetime (at most MIP_RPL_LIFETIME_CAP_S) and timer */
    for (rec = 0; rec < 40; rec++) {
        now += 6u * 3600u * 1000u;
        (void)mip_stack_poll(&h->s, now);
    }
    CHECKF(h->s.pool.in_use == 0);
    free(h);
    return 0;
}
