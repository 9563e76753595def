/*
 * A small RPL network for the route tests: n stacks on 6LoWPAN netifs
 * (short address i + 1), each with a struct mip_rpl, joined by a link
 * matrix. A broadcast frame reaches every linked node; a unicast frame
 * reaches its addressee if linked, and its sender gets a link report
 * (ACKed when delivered, NOACK after 3 retries when not), as a CSMA-CA MAC
 * would give from tx_done. Time advances to the earliest deadline.
 */
#ifndef MOTEIP_TEST_RPLNET_H
#define MOTEIP_TEST_RPLNET_H

#include "testing.h"
#include "moteip/stack.h"
#include "moteip/rpl.h"
#include "moteip/routing.h"
#include "moteip/wire/ieee802154.h"
#include <stdlib.h>
#include <string.h>

#define NET_MAX 12
#define NET_QMAX 256
#define NET_PAN 0xABCD
#define NET_PORT 5683

struct net_frame {
    uint8_t from;
    uint16_t len;
    uint8_t data[127];
};

struct net;
struct net_port {
    struct net *net;
    uint8_t node;
};

struct net {
    unsigned n;
    struct mip_stack *s[NET_MAX];
    struct mip_rpl rpl[NET_MAX];
    struct net_port port[NET_MAX];
    bool link[NET_MAX][NET_MAX];
    struct net_frame q[NET_QMAX];
    unsigned nq;
    unsigned got[NET_MAX];           /* UDP datagrams received */
    unsigned sent_frames[NET_MAX];
    mip_time_t now;
};

static mip_status net_tx(void *ctx, const uint8_t *frame, size_t len)
{
    struct net_port *p = ctx;
    struct net *nt = p->net;
    if (nt->nq < NET_QMAX && len <= 127u) {
        nt->q[nt->nq].from = p->node;
        nt->q[nt->nq].len = (uint16_t)len;
        memcpy(nt->q[nt->nq].data, frame, len);
        nt->nq++;
    }
    nt->sent_frames[p->node]++;
    return MIP_OK;
}

static const struct mip_netif_driver net_driver = { net_tx, NULL, NULL };

static void net_sink(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                     const uint8_t *data, size_t len)
{
    struct net_port *p = ctx;
    (void)s; (void)m; (void)data; (void)len;
    p->net->got[p->node]++;
}

/* n nodes, none linked; cfg for every node (NULL: defaults). */
static struct net *net_new(unsigned n, const struct mip_rpl_config *cfg)
{
    struct net *nt = calloc(1, sizeof(*nt));
    unsigned i;
    nt->n = n;
    nt->now = 1000;
    for (i = 0; i < n; i++) {
        struct mip_lowpan_config lc;
        struct mip_stack_config sc;
        uint8_t seed[4] = {9, 9, 9, (uint8_t)i}, idx;
        nt->s[i] = calloc(1, sizeof(struct mip_stack));
        memset(&sc, 0, sizeof sc);
        sc.entropy = seed;
        sc.entropy_len = sizeof seed;
        sc.forwarding = true;
        mip_stack_init(nt->s[i], &sc, nt->now);
        memset(&lc, 0, sizeof lc);
        lc.mode = MIP_LOWPAN_IPHC;
        lc.pan_id = NET_PAN;
        lc.short_addr = (uint16_t)(i + 1u);
        lc.ext_addr[0] = 0x02;
        lc.ext_addr[7] = (uint8_t)(i + 1u);
        lc.frame_max = 127;
        lc.ack_request = true;
        lc.has_context0 = true;
        lc.ctx0_prefix[0] = 0xfd;
        nt->port[i].net = nt;
        nt->port[i].node = (uint8_t)i;
        if (mip_netif_add_lowpan(nt->s[i], &lc, &net_driver, &nt->port[i], &idx) != MIP_OK)
            abort();
        if (mip_udp_bind(nt->s[i], NET_PORT, net_sink, &nt->port[i]) != MIP_OK)
            abort();
        if (mip_rpl_init(&nt->rpl[i], nt->s[i], 0, cfg, nt->now) != MIP_OK)
            abort();
    }
    return nt;
}

static void net_free(struct net *nt)
{
    unsigned i;
    for (i = 0; i < nt->n; i++)
        free(nt->s[i]);
    free(nt);
}

static void net_link(struct net *nt, unsigned a, unsigned b, bool up)
{
    nt->link[a][b] = nt->link[b][a] = up;
}

/* A line 0 - 1 - ... - n-1. */
static void net_line(struct net *nt)
{
    unsigned i;
    for (i = 0; i + 1 < nt->n; i++)
        net_link(nt, i, i + 1, true);
}

static const uint8_t net_prefix[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0};

#if MIP_CONF_RPL_ROOT
/* Node 0 the root: fd00::ff:fe00:1 (its short-address IID). */
static void net_root(struct net *nt)
{
    uint8_t id[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 0, 0, 1};
    if (mip_rpl_root_start(&nt->rpl[0], net_prefix, 64, id, nt->now) != MIP_OK)
        abort();
}
#endif

static struct mip_addr net_global(unsigned i)
{
    struct mip_addr a;
    memset(&a, 0, sizeof(a));
    a.family = MIP_AF_INET6;
    a.bytes[0] = 0xfd;
    a.bytes[11] = 0xff;
    a.bytes[12] = 0xfe;
    a.bytes[15] = (uint8_t)(i + 1u);
    return a;
}

/* Delivers every queued frame (and what they cause), with link reports. */
static void net_deliver(struct net *nt)
{
    unsigned guard = 0;
    while (nt->nq > 0 && guard++ < 64u) {
        struct net_frame q[NET_QMAX];
        unsigned n = nt->nq, k;
        memcpy(q, nt->q, n * sizeof(q[0]));
        nt->nq = 0;
        for (k = 0; k < n; k++) {
            struct mip_802154_hdr h;
            size_t hl;
            unsigned j, from = q[k].from;
            if (mip_ieee802154_parse(q[k].data, q[k].len, &h, &hl) != MIP_OK)
                continue;
            if (h.dst.mode == MIP_802154_ADDR_SHORT && h.dst.short_addr == 0xFFFFu) {
                for (j = 0; j < nt->n; j++)
                    if (j != from && nt->link[from][j])
                        mip_stack_input(nt->s[j], 0, q[k].data, q[k].len, nt->now);
                continue;
            }
            j = h.dst.mode == MIP_802154_ADDR_SHORT ? h.dst.short_addr - 1u : NET_MAX;
            if (j < nt->n && nt->link[from][j]) {
                mip_routing_link_report_frame(nt->s[from], 0, q[k].data, q[k].len, true, false,
                                              0, nt->now);
                mip_stack_input(nt->s[j], 0, q[k].data, q[k].len, nt->now);
            } else {
                mip_routing_link_report_frame(nt->s[from], 0, q[k].data, q[k].len, false, true,
                                              3, nt->now);
            }
        }
    }
}

/* Runs the network for ms milliseconds, polling at every deadline (at
 * least every `step_cap` ms). */
static void net_run(struct net *nt, uint32_t ms)
{
    mip_time_t end = nt->now + ms;
    while (mip_time_before(nt->now, end)) {
        uint32_t next = UINT32_MAX;
        unsigned i;
        for (i = 0; i < nt->n; i++) {
            uint32_t d = mip_stack_poll(nt->s[i], nt->now);
            if (d < next)
                next = d;
        }
        net_deliver(nt);
        if (next == 0)
            next = 1;
        if (next > 1000)
            next = 1000;
        if (next > end - nt->now)
            next = end - nt->now;
        nt->now += next;
    }
}

static bool net_all_joined(const struct net *nt)
{
    unsigned i;
    for (i = 0; i < nt->n; i++)
        if (!mip_rpl_joined(&nt->rpl[i]))
            return false;
    return true;
}

/* The node whose link-local IID is the preferred parent of i, or -1. */
static int net_parent(const struct net *nt, unsigned i)
{
    uint8_t a[16];
    if (!mip_rpl_parent(&nt->rpl[i], a))
        return -1;
    return (int)a[15] - 1;
}

#endif
