/*
 * The MPS2 node's state (main.c): one struct, so its size is the node's
 * RAM besides the stack, and so the tests can find its parts in a RAM dump
 * (tests/interop/test_mps2.py reads the discard service's counters).
 */
#ifndef MOTEIP_PORT_MPS2_NODE_H
#define MOTEIP_PORT_MPS2_NODE_H

#include <stdbool.h>
#include <stdint.h>
#include "moteip/stack.h"
#include "moteip/tcp.h"
#include "board.h"
#include "http_server.h"
#include "lan9118.h"
#include "tcp_discard.h"
#include "tcp_echo.h"
#include "udp_echo.h"
#if NODE_OS
#include "os_apps.h"
#include "os_loader.h"
#include "compute.h"

/* RAM for a loaded program (the loader's arena: code runs from it) */
#define NODE_ARENA 8192u
#define NODE_LOADER_PORT 6510u
#endif

/* Frames taken per round of the main loop, so timers run between bursts
 * (the chip holds about 10 KB of received frames). */
#define RX_BURST 8u

/* Everything the node owns: sizeof(struct node) is its RAM besides the
 * stack. The stack instance comes first (the tests read its counters at
 * `node`, tests/interop/board_util.py). */
struct node {
    struct mip_stack stack;
    struct board_clock clock;
    struct lan9118 eth;
    uint8_t netif;
    bool eth_ok;
    struct mip_tcp tcp;
    struct mip_udp_echo udp_echo;
    struct mip_tcp_echo tcp_echo;
    struct mip_tcp_discard discard;
    struct mip_http_server http;
#if NODE_OS
    struct mip_os os;                 /* moteip-mps2-os: the kernel ... */
    struct mip_os_echo os_echo;       /* ... echo (TCP, UDP 7) and discard */
    struct mip_os_discard os_discard; /* (TCP, UDP 9) as its processes, */
    struct mip_os_sensor sensor;      /* and the sensor (to 192.0.2.1:5000) */
    uint16_t next_reading;
    struct mip_os_loader loader;      /* programs over TCP (port 6510) */
    _Alignas(8) uint8_t arena[NODE_ARENA];
    struct compute compute;           /* a long computation, preemptible (UDP 7001) */
#endif
};

#endif
