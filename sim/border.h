/*
 * The border router's host side (sim/border.c): the second netif of one
 * node, a TUN (raw IPv6) or TAP (Ethernet + ND) device on the host, which
 * the simulator attaches to by name in its own network namespace. Frames
 * the node's stack sends on that netif are written to the device at once;
 * frames read from it enter the node's stack at the simulated time the
 * real-time loop (realtime.c) says they arrived.
 */
#ifndef MOTEIP_SIM_BORDER_H
#define MOTEIP_SIM_BORDER_H

#include "sim.h"

struct sj_writer;

/* Attaches sim->border to the scenario's device (it must exist: the user
 * or test creates it, with its addresses and routes on the host side).
 * Returns false with "border.device: why" in err (a missing device, no
 * permission, the wrong kind, busy): the caller exits 2. */
bool sim_border_open(struct sim *sim, char *err, size_t errlen);
/* The device's descriptor to wait on; -1 when none is open. */
int sim_border_fd(const struct sim *sim);
/* Reads what the device holds (at most a budget of frames) into the
 * border node's stack at sim->now_us, then schedules the node. A read
 * error closes the device (the host side went away) with a warning. */
void sim_border_input(struct sim *sim);
/* The "border" object of the result: the device and its counters. */
void sim_border_write(struct sim *sim, struct sj_writer *w);
void sim_border_free(struct sim *sim);

#endif
