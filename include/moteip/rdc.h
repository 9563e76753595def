/*
 * Radio duty cycling (RDC): how a node's MAC keeps its radio off most of the
 * time and still reaches, and is reached by, neighbours that do the same.
 *
 * The RDC sits inside struct mip_mac (mac.h), under the channel access
 * protocol (CSMA-CA, CSMA, NullMAC), as Contiki's NETSTACK_RDC sits under
 * its NETSTACK_MAC:
 *
 *   MAC protocol  which frame goes next, backoff and CCA before it, link
 *                 retries after a failure (src/mac/csma_ca.c, csma.c, ...)
 *   RDC           when the radio listens, and how one attempt of a frame
 *                 gets to a receiver that may be asleep: once (NullRDC), or
 *                 as a train of copies until the receiver's ACK (ContikiMAC)
 *   radio driver  on, off, CCA, transmit (radio.h)
 *
 * Each node picks its RDC at init, in mip_mac_config.rdc.kind; the choice
 * is a table of operations (src/mac/mac_rdc.h; docs/MAC.md says how a new
 * RDC plugs in), so two nodes of one simulation may run different RDCs.
 *
 *   NULLRDC     the radio is always on; every attempt is one transmission.
 *               The default: the MAC behaves exactly as it did before the
 *               RDC layer existed.
 *
 * Build switch: MIP_CONF_RDC (config.h) selects which RDCs are compiled in;
 * mip_mac_init answers MIP_ERR_UNSUPPORTED for one left out.
 *
 * All frames an RDC puts on air are IEEE 802.15.4 frames; an RDC that needs
 * a frame format of its own documents it in docs/MAC.md.
 */
#ifndef MOTEIP_RDC_H
#define MOTEIP_RDC_H

#include <stdint.h>
#include <stdbool.h>
#include "moteip/config.h"
#include "moteip/radio.h"
#include "moteip/wire/ieee802154.h"

/* Indexes of the RDC table (src/mac/mac.c); values are stable. */
enum mip_rdc_kind {
    MIP_RDC_NULLRDC = 0
};

/* Per-node RDC parameters; mip_rdc_config_default fills the defaults. Each
 * RDC adds its own fields here, times in µs. */
struct mip_rdc_config {
    uint8_t  kind;              /* enum mip_rdc_kind (NULLRDC) */
};

/* Every RDC's state, in struct mip_mac; one node runs one RDC at a time. */
union mip_rdc_state {
    uint8_t none;
};

/* The defaults of `kind` (a kind this build lacks keeps its number; init
 * refuses it). */
void mip_rdc_config_default(struct mip_rdc_config *c, uint8_t kind);

#endif
