/*
 * A consumer of the installed moteip (tests/install/test_install.py): two
 * stacks joined by raw-IP netifs in memory; A pings B and sends a datagram
 * to B's UDP echo service (moteip::apps), and both answers must come back.
 * It compiles with the installed library's configuration only (the
 * profile and MIP_CONF_* its target or .pc file carries): EXPECT_LOWPAN is
 * what the test built the library with, so a configuration that did not
 * come through fails the build. Built by hand with another MIP_CONF_*
 * (EXPECT_LOWPAN unset), mip_stack_init refuses it and it exits 2.
 */
#include <stdio.h>
#include <string.h>

#include "moteip/ping.h"
#include "moteip/stack.h"
#include "moteip/udp.h"
#include "udp_echo.h"

#if defined(EXPECT_LOWPAN) && MIP_CONF_LOWPAN != EXPECT_LOWPAN
#error "the installed library's MIP_CONF_LOWPAN did not reach this build"
#endif

/* One direction of the link: a queue of up to four frames. */
struct wire {
    struct mip_stack *to;
    uint8_t netif;
    uint8_t frame[4][1280];
    size_t len[4];
    unsigned n;
};

static mip_status wire_tx(void *ctx, const uint8_t *frame, size_t len)
{
    struct wire *w = ctx;
    if (len > sizeof w->frame[0] || w->n == 4)
        return MIP_ERR_NOBUFS;
    memcpy(w->frame[w->n], frame, len);
    w->len[w->n++] = len;
    return MIP_OK;
}

/* Hands the queued frames to the other stack (which may queue answers). */
static void wire_deliver(struct wire *w, mip_time_t now)
{
    static uint8_t f[1280];
    while (w->n > 0) {
        size_t len = w->len[0];
        memcpy(f, w->frame[0], len);
        memmove(w->frame[0], w->frame[1], sizeof w->frame - sizeof w->frame[0]);
        memmove(w->len, w->len + 1, sizeof w->len - sizeof w->len[0]);
        w->n--;
        mip_stack_input(w->to, w->netif, f, len, now);
    }
}

static const struct mip_netif_driver wire_driver = { .transmit = wire_tx };

static int pongs, echoes;

static void on_pong(void *ctx, struct mip_stack *s, const struct mip_addr *from, uint16_t id,
                    uint16_t seq, const uint8_t *data, size_t len)
{
    (void)ctx; (void)s; (void)from; (void)seq;
    if (id == 7 && len == 5 && memcmp(data, "hello", 5) == 0)
        pongs++;
}

static void on_echo(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                    const uint8_t *data, size_t len)
{
    (void)ctx; (void)s; (void)m;
    if (len == 5 && memcmp(data, "world", 5) == 0)
        echoes++;
}

static int add_node(struct mip_stack *s, struct wire *out, uint8_t last, uint8_t *netif)
{
    uint8_t seed[16], iid[8] = { 0 }, a6[16] = { 0xfd };
    struct mip_stack_config cfg;
    struct mip_addr a;

    memset(seed, last, sizeof seed);
    memset(&cfg, 0, sizeof cfg);
    cfg.entropy = seed;
    cfg.entropy_len = sizeof seed;
    if (mip_stack_init(s, &cfg, 0) != MIP_OK) {
        /* compiled with other MIP_CONF_* than the library: it says which */
        char why[80];
        struct mip_build here = {(uint32_t)sizeof(struct mip_stack), MIP_BUILD_SWITCHES};
        (void)mip_build_mismatch(here, why, sizeof why);
        fprintf(stderr, "consumer: mip_stack_init refused this build: %s\n", why);
        return -1;
    }
    iid[7] = last;
    a6[15] = last;
    (void)mip_netif_add_rawip(s, 1280, iid, &wire_driver, out, netif);
    mip_addr_set6(&a, a6);
    (void)mip_netif_add_addr(s, *netif, &a, 64);
    return 0;
}

int main(void)
{
    static struct mip_stack a, b;
    static struct wire ab, ba;
    static struct mip_udp_echo echo;
    static const uint8_t b6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };
    struct mip_addr dst;
    uint8_t na, nb;
    int round;

    if (add_node(&a, &ab, 1, &na) != 0 || add_node(&b, &ba, 2, &nb) != 0)
        return 2;
    ab.to = &b;
    ab.netif = nb;
    ba.to = &a;
    ba.netif = na;
    mip_ping_set_handler(&a, on_pong, NULL);
    (void)mip_udp_bind(&a, 4000, on_echo, NULL);
    (void)mip_udp_echo_start(&echo, &b, MIP_UDP_ECHO_PORT);
    mip_addr_set6(&dst, b6);
    if (mip_ping_send(&a, &dst, 7, 1, (const uint8_t *)"hello", 5) != MIP_OK ||
        mip_udp_sendto(&a, NULL, 4000, &dst, MIP_UDP_ECHO_PORT, MIP_NETIF_ANY,
                       (const uint8_t *)"world", 5) !=
            MIP_OK)
        return 1;
    for (round = 0; round < 4; round++) {
        wire_deliver(&ab, (mip_time_t)round);
        wire_deliver(&ba, (mip_time_t)round);
    }
    printf("consumer: %s profile, %d pong, %d echo\n",
           MIP_PROFILE_DEFAULT("tiny", "full"), pongs, echoes);
    return pongs == 1 && echoes == 1 ? 0 : 1;
}
