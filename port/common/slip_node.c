/*
 * port/common/: what several ports share, top floor: the SLIP node (this
 * file) and the micro node, the board interface they run on (board_api.h,
 * which each port's board.h implements), the tick clock and the Cortex-M
 * reset handler. It may include public headers and apps/; it reaches a board
 * only through board_api.h (its "board.h" is the port being built).
 *
 * The tiny firmware of every board whose link is a serial line: the
 * micro:bit (port/microbit/, Cortex-M0) and the ATmega1284P (port/avr/)
 * run this same file on their own board.h (port/common/board_api.h).
 * The tiny profile over SLIP on the UART:
 *
 *   fd00::2/64 (and fe80::2), ICMPv6 echo, UDP echo on port 7,
 *   TCP echo on port 7, TCP discard on port 9 (apps/tcp_discard.h),
 *   HTTP on port 80 (GET /bytes/N, apps/http_server.h)
 *
 * Run it under emulation with moteip-slip on the other end of the serial
 * line (port/<board>/run.sh, README "On a microcontroller");
 * docs/PORTING.md walks through this file.
 *
 * The main loop: move the bytes the UART interrupt put in the ring into the
 * SLIP netif (which runs the stack on every frame they complete), run the
 * stack's timers, and sleep until the next deadline or an interrupt.
 */
#include <string.h>

#include "moteip/stack.h"
#include "moteip/tcp.h"
#include "board.h"
#include "http_server.h"
#include "tcp_discard.h"
#include "tcp_echo.h"
#include "udp_echo.h"

#ifndef NODE_MTU
#define NODE_MTU 1280u                /* the IPv6 minimum, and a pbuf's room */
#endif

/* Everything the node owns, in one place: sizeof(struct node) is its RAM
 * besides the stack (each port's STACK_SIZE). The stack instance comes
 * first: the tests read its counters from RAM at `node`
 * (tests/interop/board_util.py). */
struct node {
    struct mip_stack stack;
    struct board_clock clock;
    struct mip_slip slip;
    struct mip_tcp tcp;
    struct mip_udp_echo udp_echo;
    struct mip_tcp_echo tcp_echo;
    struct mip_tcp_discard discard;
    struct mip_http_server http;
    uint8_t slip_rx[NODE_MTU];
};

/* The node, in .bss: zeroed by the startup code. */
static struct node node;

static void node_start(struct node *n)
{
    static const uint8_t iid[8] = { 0, 0, 0, 0, 0, 0, 0, 2 };       /* fe80::2 */
    static const uint8_t addr6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
                                       0, 0, 0, 0, 0, 0, 0, 2 };     /* fd00::2 */
    uint8_t seed[16];
    struct mip_stack_config cfg;
    struct mip_slip_config sc;
    struct mip_addr a;

    (void)board_entropy(seed, sizeof seed);
    memset(&cfg, 0, sizeof cfg);
    cfg.entropy = seed;
    cfg.entropy_len = sizeof seed;
    mip_stack_init(&n->stack, &cfg, board_now(&n->clock));

    sc.rx_buf = n->slip_rx;
    sc.mtu = NODE_MTU;
    sc.iid = iid;
    sc.write = board_uart_write;
    sc.write_ctx = NULL;
    (void)mip_netif_add_slip(&n->stack, &n->slip, &sc, NULL);
    mip_addr_set6(&a, addr6);
    (void)mip_netif_add_addr(&n->stack, n->slip.netif, &a, 64);

    (void)mip_udp_echo_start(&n->udp_echo, &n->stack, MIP_UDP_ECHO_PORT);
    (void)mip_tcp_init(&n->tcp, &n->stack);
    (void)mip_tcp_echo_start(&n->tcp_echo, &n->tcp, MIP_TCP_ECHO_PORT);
    (void)mip_tcp_discard_start(&n->discard, &n->tcp, MIP_TCP_DISCARD_PORT);
    (void)mip_http_server_start(&n->http, &n->tcp, MIP_HTTP_PORT);
}

/* Feeds what the UART received to the SLIP netif: at most one ring's worth
 * (two runs, the ring may wrap), so timers run between bursts. */
static void node_receive(struct node *n)
{
    struct mip_byte_ring *rx = board_uart_rx();
    unsigned runs;

    for (runs = 0; runs < 2; runs++) {
        size_t len;
        const uint8_t *p = mip_byte_ring_peek(rx, &len);
        if (len == 0)
            break;
        mip_slip_input(&n->stack, &n->slip, p, len, board_now(&n->clock));
        mip_byte_ring_consume(rx, len);
        board_uart_rx_resume();
    }
}

int main(void)
{
    struct node *n = &node;

    board_init(&n->clock);
    node_start(n);
    for (;;) {
        uint32_t delay;
        node_receive(n);
        delay = mip_stack_poll(&n->stack, board_now(&n->clock));
        board_sleep(&n->clock, delay);
    }
}
