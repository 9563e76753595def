/*
 * Two stacks joined by an in-memory raw-IP link, each with a TCP, for
 * state-machine tests. Frames queue in a FIFO per direction and are
 * delivered by tcp_pair_run(), which also advances time by `step_ms` per
 * delivery round and polls both stacks. A drop hook may discard frames.
 */
#ifndef MOTEIP_TEST_TCP_PAIR_H
#define MOTEIP_TEST_TCP_PAIR_H

#include "testing.h"
#include "moteip/stack.h"
#include "moteip/tcp.h"
#include <stdlib.h>
#include <string.h>

#define PAIR_QMAX 512
#define PAIR_FRAME 1500

struct pair_frame { size_t len; uint8_t data[PAIR_FRAME]; };

struct pair_side {
    struct mip_stack *s;
    struct mip_tcp tcp;
    struct pair_frame *q;        /* frames this side sent */
    unsigned qhead, qlen;
    unsigned sent;
    struct pair *pair;
    int idx;
};

struct pair {
    struct pair_side side[2];
    mip_time_t now;
    /* Return true to drop the n-th frame sent by side `from`. */
    bool (*drop)(struct pair *p, int from, unsigned n, const uint8_t *f, size_t len);
    void *user;
    unsigned dropped;
};

static mip_status pair_tx(void *ctx, const uint8_t *frame, size_t len)
{
    struct pair_side *sd = ctx;
    struct pair_frame *f;
    unsigned n = sd->sent++;
    if (sd->pair->drop != NULL && sd->pair->drop(sd->pair, sd->idx, n, frame, len)) {
        sd->pair->dropped++;
        return MIP_OK;
    }
    if (sd->qlen >= PAIR_QMAX || len > PAIR_FRAME)
        return MIP_ERR_NOBUFS;
    f = &sd->q[(sd->qhead + sd->qlen++) % PAIR_QMAX];
    f->len = len;
    memcpy(f->data, frame, len);
    return MIP_OK;
}

static const struct mip_netif_driver pair_driver = { pair_tx, NULL, NULL };

static inline void pair_init(struct pair *p, bool v6)
{
    static const char *addr4[2] = {"192.0.2.1", "192.0.2.2"};
    static const char *addr6[2] = {"fd00::1", "fd00::2"};
    int i;
    memset(p, 0, sizeof(*p));
    p->now = testing_start(5000);
    for (i = 0; i < 2; i++) {
        struct pair_side *sd = &p->side[i];
        uint8_t seed[16];
        struct mip_stack_config cfg;
        struct mip_addr a;
        uint8_t plen, idx;
        memset(seed, i + 1, sizeof(seed));
        memset(&cfg, 0, sizeof(cfg));
        cfg.entropy = seed;
        cfg.entropy_len = sizeof(seed);
        sd->s = calloc(1, sizeof(*sd->s));
        sd->q = calloc(PAIR_QMAX, sizeof(*sd->q));
        sd->pair = p;
        sd->idx = i;
        mip_stack_init(sd->s, &cfg, p->now);
        CHECK_EQ(mip_netif_add_rawip(sd->s, 1280, NULL, &pair_driver, sd, &idx), MIP_OK);
        CHECK_EQ(mip_addr_parse(v6 ? addr6[i] : addr4[i], &a, &plen), MIP_OK);
        CHECK_EQ(mip_netif_add_addr(sd->s, 0, &a, v6 ? 64 : 24), MIP_OK);
        CHECK_EQ(mip_tcp_init(&sd->tcp, sd->s), MIP_OK);
    }
}

static inline void pair_free(struct pair *p)
{
    int i;
    for (i = 0; i < 2; i++) {
        CHECK_EQ(p->side[i].s->pool.in_use, 0);
        free(p->side[i].s);
        free(p->side[i].q);
    }
}

/* Delivers queued frames and advances time until nothing is queued and no
 * timer is due within `idle_ms`, or `max_ms` of simulated time passed. */
static inline void pair_run(struct pair *p, uint32_t step_ms, uint32_t max_ms)
{
    mip_time_t end = p->now + max_ms;
    while (mip_time_before(p->now, end)) {
        bool moved = false;
        int i;
        for (i = 0; i < 2; i++) {
            struct pair_side *from = &p->side[i], *to = &p->side[1 - i];
            unsigned n = from->qlen;
            while (n-- > 0 && from->qlen > 0) {
                struct pair_frame f = from->q[from->qhead];
                from->qhead = (from->qhead + 1) % PAIR_QMAX;
                from->qlen--;
                mip_stack_input(to->s, 0, f.data, f.len, p->now);
                moved = true;
            }
        }
        if (!moved) {
            uint32_t d0 = mip_stack_poll(p->side[0].s, p->now);
            uint32_t d1 = mip_stack_poll(p->side[1].s, p->now);
            uint32_t d = d0 < d1 ? d0 : d1;
            if (p->side[0].qlen || p->side[1].qlen)
                continue;
            if (d == MIP_POLL_IDLE || d > end - p->now)
                break;
            p->now += d > 0 ? d : 1;
        } else {
            p->now += step_ms;
            mip_stack_poll(p->side[0].s, p->now);
            mip_stack_poll(p->side[1].s, p->now);
        }
    }
}

#endif
