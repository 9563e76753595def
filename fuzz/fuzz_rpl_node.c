/*
 * libFuzzer harness: whole RPL packets into a node running RPL
 * (src/route/rpl.c behind the routing driver), over a raw-IP netif.
 *
 * Input: one config byte (bit 0: the node is the root; bit 1: OF0 instead
 * of MRHOF; bit 2: a parent timeout of 5 s; bit 3: storing mode, where the
 * node keeps its children's routes from their DAOs (since session 15:
 * storing_dao had run under no input of this harness)), then records:
 *   0 len src bytes...  an ICMPv6 RPL message (type forced to 155) from
 *                       fe80::ff:fe00:<src> to ff02::1a (src even) or to
 *                       the node's link-local address (src odd)
 *   1 ms                time passes: ms * 37 milliseconds, then a poll
 *   2 src flags         a link report about fe80::ff:fe00:<src> (flags:
 *                       bit 0 ACKed, bit 1 NOACK, bits 2..4 retries)
 *   3                   a UDP datagram to fd00::1 (the upward route)
 * Invariants after every record: the preferred parent is a used entry; a
 * joined non-root node's DAGRank is above its parent's (RFC 6550 8.2.1)
 * and its rank at least ROOT_RANK; the DIS count stays within dis_max per
 * detachment; at the end every packet buffer is back in the pool.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/stack.h"
#include "moteip/rpl.h"
#include "moteip/routing.h"
#include "moteip/wire/bytes.h"
#include "moteip/wire/rpl.h"
#include "fuzz_check.h"

struct harness {
    struct mip_stack s;
    struct mip_rpl r;
    uint8_t netif;
    mip_time_t now;
};

static mip_status drop_tx(void *ctx, const uint8_t *frame, size_t len)
{
    (void)ctx; (void)frame; (void)len;
    return MIP_OK;
}

static const struct mip_netif_driver drv = { drop_tx, NULL, NULL };

static void check(const struct harness *h)
{
    const struct mip_rpl *r = &h->r;
    uint16_t mh = r->conf.min_hop_rank_inc ? r->conf.min_hop_rank_inc : 256u;
    CHECKF(r->preferred >= -1 && r->preferred < MIP_RPL_NEIGH_MAX);
    if (r->preferred >= 0)
        CHECKF(r->neigh[r->preferred].used);
    if (r->state == MIP_RPL_JOINED && r->preferred >= 0 && !r->cfg.leaf &&
        r->rank != MIP_RPL_INFINITE_RANK) {
        CHECKF(mip_rpl_dag_rank(r->rank, mh) > mip_rpl_dag_rank(r->neigh[r->preferred].rank, mh));
        CHECKF(r->rank >= mh);
    }
    CHECKF(mip_rpl_stat(r, MIP_RPL_STAT_dis_tx) <=
           (uint32_t)r->cfg.dis_max * (mip_rpl_stat(r, MIP_RPL_STAT_detaches) + 1u));
}

static void feed_rpl(struct harness *h, uint8_t src, const uint8_t *msg, size_t len)
{
    uint8_t pkt[40 + 256];
    if (len > 256)
        len = 256;
    memset(pkt, 0, 40);
    pkt[0] = 0x60;
    mip_wr16(pkt + 4, (uint16_t)len);
    pkt[6] = 58;
    pkt[7] = 255;
    pkt[8] = 0xfe; pkt[9] = 0x80;
    pkt[19] = 0xff; pkt[20] = 0xfe; pkt[23] = src;
    if (src & 1u) {
        memcpy(pkt + 24, h->s.netif[h->netif].addr6[0].addr, 16);
    } else {
        pkt[24] = 0xff; pkt[25] = 0x02; pkt[39] = 0x1a;
    }
    memcpy(pkt + 40, msg, len);
    if (len > 0)
        pkt[40] = 155u;
    mip_stack_input(&h->s, h->netif, pkt, 40 + len, h->now);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t iid[8] = {0, 0, 0, 0xff, 0xfe, 0, 0, 0x42};
    static const uint8_t prefix[16] = {0xfd};
    static const uint8_t root_id[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 0, 0, 0x42};
    struct harness *h;
    struct mip_stack_config sc;
    struct mip_rpl_config rc;
    size_t i = 1;
    if (size < 1)
        return 0;
    h = calloc(1, sizeof(*h));
    if (h == NULL)
        abort();
    memset(&sc, 0, sizeof(sc));
    sc.forwarding = true;
    h->now = 1000;
    mip_stack_init(&h->s, &sc, h->now);
    CHECKF(mip_netif_add_rawip(&h->s, 1280, iid, &drv, h, &h->netif) == MIP_OK);
    mip_rpl_config_default(&rc);
    if (data[0] & 2u)
        rc.ocp = MIP_RPL_OCP_OF0;
    if (data[0] & 4u)
        rc.parent_timeout_ms = 5000;
#if MIP_CONF_RPL_STORING
    if (data[0] & 8u)
        rc.mop = MIP_RPL_MOP_STORING;
#endif
    CHECKF(mip_rpl_init(&h->r, &h->s, h->netif, &rc, h->now) == MIP_OK);
    if (data[0] & 1u)
        CHECKF(mip_rpl_root_start(&h->r, prefix, 64, root_id, h->now) == MIP_OK);
    while (i < size) {
        uint8_t kind = data[i++] % 4u;
        if (kind == 0 && i + 2 <= size) {
            size_t len = data[i];
            uint8_t src = data[i + 1];
            i += 2;
            if (len > size - i)
                len = size - i;
            feed_rpl(h, src, data + i, len);
            i += len;
        } else if (kind == 1 && i < size) {
            h->now += (mip_time_t)data[i++] * 37u;
            (void)mip_stack_poll(&h->s, h->now);
        } else if (kind == 2 && i + 2 <= size) {
            struct mip_link_report lr;
            memset(&lr, 0, sizeof(lr));
            lr.netif = h->netif;
            lr.iid[3] = 0xff;
            lr.iid[4] = 0xfe;
            lr.iid[7] = data[i];
            lr.outcome = (data[i + 1] & 1u) ? MIP_LINK_TX_OK
                         : (data[i + 1] & 2u) ? MIP_LINK_TX_NOACK : MIP_LINK_TX_OTHER;
            lr.retries = (uint8_t)((data[i + 1] >> 2) & 7u);
            i += 2;
            mip_routing_link_report(&h->s, &lr, h->now);
        } else if (kind == 3) {
            struct mip_addr d;
            static const uint8_t payload[8] = "upward";
            memset(&d, 0, sizeof(d));
            d.family = MIP_AF_INET6;
            d.bytes[0] = 0xfd;
            d.bytes[15] = 1;
            (void)mip_udp_sendto(&h->s, NULL, 5683, &d, 5683, MIP_NETIF_ANY, payload,
                                 sizeof(payload));
        } else {
            break;
        }
        check(h);
    }
    h->now += 3600000u;
    (void)mip_stack_poll(&h->s, h->now);
    check(h);
    CHECKF(h->s.pool.in_use == 0);
    free(h);
    return 0;
}
