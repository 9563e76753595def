/*
 * port/mps2/: the MPS2 AN385 port (Cortex-M3 under QEMU, full profile on
 * its LAN9118), top floor. It may include public headers, apps/ and
 * port/common/'s Cortex-M pieces (reset handler, tick clock); nothing
 * includes it.
 *
 * moteip on the MPS2 AN385 (Cortex-M3, QEMU `mps2-an385`), the full
 * profile on its LAN9118 Ethernet:
 *
 *   192.0.2.2/24 and fd00::2/64 (link-local from the MAC), ICMP and ICMPv6
 *   echo with fragmentation and reassembly, UDP echo on port 7, TCP echo
 *   on 7, discard on 9 (apps/tcp_discard.h) and HTTP on 80 (GET /bytes/N)
 *
 * Run it under QEMU with the NIC on a TAP (port/mps2/run.sh,
 * tests/interop/test_mps2.py); docs/PORTING.md describes the port.
 *
 * The main loop: hand the frames the LAN9118 holds to the stack, run its
 * timers, and sleep until the next deadline or the chip's receive
 * interrupt.
 *
 * moteip-mps2-os.elf (NODE_OS=1) runs the process kernel beside the stack
 * (docs/OS.md): echo and discard as its processes (TCP and UDP at 7 and 9),
 * and a sensor process that sends a batch of 4 readings every 400 ms to
 * 192.0.2.1:5000 (the board has no sensor: reading k is k), and the loader
 * service on TCP 6510 (apps/os_loader.h: programs over the network into an
 * 8 KB arena), and a computation service on UDP 7001 whose work runs in a
 * preemptible thread (compute.h, include/moteip/mt.h); HTTP stays a
 * callback app. tests/interop/test_mps2.py's `os` cases drive it.
 */
#include <string.h>

#include "node.h"
#if NODE_OS
#include "cortexm_mt.h"
#include "mps2.h"
#endif

static struct node node;

#if NODE_OS
static uint16_t next_reading(void *ctx)
{
    uint16_t *k = ctx;
    return (*k)++;
}
#endif

static void node_start(struct node *n)
{
    static const uint8_t addr4[4] = { 192, 0, 2, 2 };
    static const uint8_t addr6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
                                       0, 0, 0, 0, 0, 0, 0, 2 };
    uint8_t seed[16];
    struct mip_stack_config cfg;
    struct mip_addr a;

    (void)board_entropy(seed, sizeof seed);
    memset(&cfg, 0, sizeof cfg);
    cfg.entropy = seed;
    cfg.entropy_len = sizeof seed;
    mip_stack_init(&n->stack, &cfg, board_now(&n->clock));

    n->eth_ok = lan9118_init(&n->eth);
    if (n->eth_ok &&
        mip_netif_add_ethernet(&n->stack, n->eth.mac, &lan9118_driver, &n->eth,
                               &n->netif) == MIP_OK) {
        mip_addr_set4(&a, addr4);
        (void)mip_netif_add_addr(&n->stack, n->netif, &a, 24);
        mip_addr_set6(&a, addr6);
        (void)mip_netif_add_addr(&n->stack, n->netif, &a, 64);
    }
    (void)mip_tcp_init(&n->tcp, &n->stack);
    (void)mip_http_server_start(&n->http, &n->tcp, MIP_HTTP_PORT);
#if NODE_OS
    {
        static const uint8_t sink4[4] = { 192, 0, 2, 1 };
        mip_os_init(&n->os, board_now(&n->clock));
        mip_os_echo_prepare(&n->os_echo, &n->stack, &n->tcp, MIP_UDP_ECHO_PORT);
        (void)mip_os_start(&n->os, &n->os_echo.proc, "echo", mip_os_echo_thread, &n->os_echo,
                           NULL);
        mip_os_discard_prepare(&n->os_discard, &n->stack, &n->tcp, MIP_TCP_DISCARD_PORT);
        (void)mip_os_start(&n->os, &n->os_discard.proc, "discard", mip_os_discard_thread,
                           &n->os_discard, NULL);
        mip_addr_set4(&a, sink4);
        if (mip_os_sensor_prepare(&n->sensor, &n->stack, &a, 5000, 5001, 100, 4, next_reading,
                                  &n->next_reading) == MIP_OK)
            (void)mip_os_start(&n->os, &n->sensor.proc, "sensor", mip_os_sensor_thread,
                               &n->sensor, NULL);
        mip_os_loader_prepare(&n->loader, &n->os, &n->stack, &n->tcp, NODE_LOADER_PORT,
                              n->arena, sizeof n->arena, MIP_MODULE_ARCH_THUMB);
        (void)mip_os_start(&n->os, &n->loader.proc, "loader", mip_os_loader_thread,
                           &n->loader, NULL);
        compute_prepare(&n->compute, &n->stack);
        (void)mip_os_start(&n->os, &n->compute.proc, "compute", compute_thread, &n->compute,
                           NULL);
        cortexm_mt_init(MPS2_PCLK_HZ / 1000u);      /* a 1 ms slice for threads */
    }
#else
    (void)mip_udp_echo_start(&n->udp_echo, &n->stack, MIP_UDP_ECHO_PORT);
    (void)mip_tcp_echo_start(&n->tcp_echo, &n->tcp, MIP_TCP_ECHO_PORT);
    (void)mip_tcp_discard_start(&n->discard, &n->tcp, MIP_TCP_DISCARD_PORT);
#endif
}

int main(void)
{
    struct node *n = &node;

    board_init(&n->clock);
    node_start(n);
    for (;;) {
        uint32_t delay;
        if (n->eth_ok)
            (void)lan9118_receive(&n->eth, &n->stack, n->netif, RX_BURST,
                                  board_now(&n->clock));
        delay = mip_stack_poll(&n->stack, board_now(&n->clock));
#if NODE_OS
        {
            /* what the processes sent leaves with this poll */
            uint32_t od = mip_os_run(&n->os, board_now(&n->clock));
            uint32_t sd = mip_stack_poll(&n->stack, board_now(&n->clock));
            delay = od < sd ? od : sd;
            /* a thread's turn instead of sleeping; an interrupt ends it */
            if (compute_turn(&n->compute, &n->os))
                continue;
        }
#endif
        if (n->eth_ok && lan9118_rx_waiting())
            continue;
        board_sleep(&n->clock, delay);
    }
}
