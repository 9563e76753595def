/*
 * External nodes (scenario key "external", sim/external.c): programs
 * outside the simulator that take a node's place in the simulated medium
 * over ZEP on loopback, in a --realtime run. A moteip-host --zep, or any
 * stack whose emulated radio speaks ZEP v1/v2, joins the simulated
 * network; the border router (border.h) reaches it like any node.
 *
 * Contract (docs/ZEP.md, "External nodes in a simulation"):
 *   - the node keeps its place in the topology: its position (or links)
 *     decide who hears it and whom it hears, and the medium applies range,
 *     path loss, BER, link PRRs, collisions and half duplex to its frames
 *     exactly as to a simulated node's;
 *   - a datagram from the node's remote address starts its frame in the
 *     medium at the simulated time the wall clock says it arrived
 *     (realtime.c); its airtime follows from its length;
 *   - a frame the medium delivers at the node's position (intact, at its
 *     end) leaves at once as a ZEP v2 datagram to the remote address;
 *   - the simulated stack, MAC and apps of that node never run; its radio
 *     always listens, except while its own frame is on the air;
 *   - every datagram refused is counted by reason (the result's
 *     "external" array).
 */
#ifndef MOTEIP_SIM_EXTERNAL_H
#define MOTEIP_SIM_EXTERNAL_H

#include <poll.h>
#include <sys/socket.h>

#include "sim.h"

struct sj_writer;

#define SIM_EXTERNAL_MAX 16u        /* external nodes in one scenario */

/* Parses an external node's endpoint, "address:port" or "[IPv6]:port",
 * numeric, on loopback only (127.0.0.0/8 or ::1): ZEP carries no
 * authentication, so the simulator listens nowhere else. False with a
 * message in err naming what is wrong. */
bool sim_external_endpoint(const char *text, struct sockaddr_storage *ss, socklen_t *sl,
                           char *err, size_t errlen);
/* At sim_build, after the nodes: marks the scenario's external nodes and
 * sets their radios listening. No socket yet (--check opens nothing). */
bool sim_external_build(struct sim *sim, char *err, size_t errlen);
/* Binds each node's local address and connects it to its remote (the
 * kernel then drops datagrams from anyone else). False with
 * "external[i].local: why" in err. */
bool sim_external_open(struct sim *sim, char *err, size_t errlen);
/* Fills pfd[0..n) with the open sockets (at most cap); returns n. */
size_t sim_external_fds(const struct sim *sim, struct pollfd *pfd, size_t cap);
/* Reads what the i-th socket holds (a budget of datagrams) into the
 * medium at sim->now_us. */
void sim_external_input(struct sim *sim, size_t i);
/* The medium delivers transmission t intact to external node r. */
void sim_external_deliver(struct sim *sim, struct sim_node *r, const struct sim_tx *t);
/* The result's "external" array. */
void sim_external_write(struct sim *sim, struct sj_writer *w);
void sim_external_free(struct sim *sim);

#endif
