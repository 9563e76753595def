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
 *   CONTIKIMAC  Dunkels, "The ContikiMAC Radio Duty Cycling Protocol", SICS
 *               T2011:13, with the defaults of Contiki 2.5 (the system of
 *               Buergi's thesis, seeds/001): see below.
 *
 * Build switch: MIP_CONF_RDC (config.h) selects which RDCs are compiled in;
 * mip_mac_init answers MIP_ERR_UNSUPPORTED for one left out.
 *
 * All frames an RDC puts on air are IEEE 802.15.4 frames; an RDC that needs
 * a frame format of its own documents it in docs/MAC.md.
 *
 * ContikiMAC, as implemented here (times in µs; the report's names in
 * brackets; docs/MAC.md has the timeline):
 *
 *   Channel check. Every wake-up interval T = 1e6 / check_rate_hz (8 Hz:
 *   125000) the receiver turns its radio on for cca_count CCAs. Each CCA
 *   keeps the radio listening for cca_on_us [Tr, the time to a stable RSSI]
 *   and then reads the channel; between two CCAs the radio is off for
 *   cca_gap_us [Tc]. A busy CCA (energy, or a frame being received) means
 *   a transmission may be for us: the radio stays on.
 *     Idle radio-on time per interval = cca_count * cca_on_us, so the idle
 *     duty cycle is cca_count * cca_on_us / T (2 * 192 / 125000 = 0.31 %).
 *   Fast sleep. After a busy CCA the radio listens, sampling the channel
 *   every cca_on_us + cca_gap_us. It goes back to sleep when two samples
 *   in a row are clear (a silence longer than copy_gap_us cannot be a gap
 *   of a ContikiMAC train, since cca_on_us + cca_gap_us > copy_gap_us),
 *   when a frame not for us has been received, or after listen_max_us
 *   without a frame for us.
 *   Transmission. Before the first copy the sender runs one channel check
 *   of its own (cca_count CCAs, as above); a busy channel ends the attempt
 *   and the MAC protocol retries it (a "collision"). Then it sends the data
 *   frame itself, again and again, copy_gap_us [Ti] apart:
 *     unicast    listening for the link ACK after each copy (an ACK starts
 *                turnaround_us after the copy and is under way by Ti), until
 *                the ACK or until T + 2 channel checks have passed;
 *     broadcast  (and unicast without the ACK request bit) for T + 2 channel
 *                checks, with the radio off between copies; every
 *                neighbour's check falls inside the train.
 *   A receiver turns its radio off after a frame for it (once its ACK is
 *   sent) and drops the repeats it hears later by (source, DSN).
 *   Phase lock. The ACKed copy tells the sender when the receiver wakes up:
 *   its wake-up lies within the copy before the ACKed one (or at the ACKed
 *   copy when it was the first, which counts only when the train was aimed
 *   at a phase: otherwise the receiver may have been awake for another
 *   reason). The sender keeps that phase, relative to its own wake-up grid,
 *   in a table of MIP_RDC_PHASES neighbours, and the next unicast to that
 *   neighbour starts its channel check so that the first copy goes out at
 *   that instant (less phase_guard_us), and gives up after phase_strobe_us
 *   (a "miss", retried by the MAC protocol). After a miss the phase is in
 *   doubt: attempts to that neighbour are full trains until one is ACKed
 *   (which sets the phase again). After phase_max_misses attempts in a row
 *   without an ACK the entry is dropped; a full table drops its least
 *   recently used entry.
 *   Bursts. A unicast followed in the queue by another frame for the same
 *   receiver goes out with the 802.15.4 frame pending bit set. A receiver
 *   that gets a frame for it with that bit stays awake burst_wait_us for
 *   the next one; the sender sends the next frame at once (no phase wait,
 *   no channel check, at most phase_strobe_us of copies). A node receiving
 *   a burst holds its own sending until the burst ends.
 *
 * ContikiMAC adds no header and no frame of its own: its frames are the
 * data frames and ACKs of 802.15.4, with the frame pending bit for bursts.
 */
#ifndef MOTEIP_RDC_H
#define MOTEIP_RDC_H

#include <stdint.h>
#include <stdbool.h>
#include "moteip/config.h"
#include "moteip/radio.h"
#include "moteip/wire/ieee802154.h"

/* Which RDCs this build has (config.h MIP_CONF_RDC). NullRDC is always in. */
#define MIP_RDC_HAS_CONTIKIMAC ((MIP_CONF_RDC & 2) != 0)

/* Neighbours whose wake-up phase ContikiMAC remembers (16 bytes each). */
#ifndef MIP_RDC_PHASES
#define MIP_RDC_PHASES MIP_PROFILE_DEFAULT(4u, 8u)
#endif

/* Indexes of the RDC table (src/mac/mac.c); values are stable. */
enum mip_rdc_kind {
    MIP_RDC_NULLRDC = 0,
    MIP_RDC_CONTIKIMAC = 1
};

/* Per-node RDC parameters; mip_rdc_config_default fills the defaults named
 * here, whatever the kind. Times in µs. */
struct mip_rdc_config {
    uint8_t  kind;              /* enum mip_rdc_kind (NULLRDC) */
    /* ContikiMAC. Defaults: the report's 802.15.4 timing and Contiki 2.5. */
    uint16_t check_rate_hz;     /* channel checks per second, 1..1000 (8) */
    uint8_t  cca_count;         /* CCAs per channel check, 1..8 (2) */
    uint16_t cca_on_us;         /* Tr: radio on per CCA before the reading (192) */
    uint16_t cca_gap_us;        /* Tc: radio off between CCAs (500) */
    uint16_t copy_gap_us;       /* Ti: between copies of a frame (400). The
                                 * report's constraints: turnaround_us plus
                                 * the PHY header's airtime (an ACK's start
                                 * detected) < Ti < Tc */
    uint16_t listen_max_us;     /* longest listen after a busy CCA without a
                                 * frame for us (12500, Contiki's 1/80 s) */
    uint16_t burst_wait_us;     /* awake for the next frame of a burst (31250,
                                 * Contiki's 1/32 s) */
    bool     phase_lock;        /* learn and use neighbours' phases (true) */
    uint16_t phase_strobe_us;   /* longest train to a phase-locked or awake
                                 * receiver (16667, Contiki's 1/60 s) */
    uint16_t phase_guard_us;    /* start that much before the learned phase,
                                 * for clock drift (0: the simulator's clocks
                                 * do not drift; a device sets about 2 x its
                                 * drift x the time between two sends) */
    uint8_t  phase_max_misses;  /* misses in a row that drop a phase, 1..255
                                 * (16, Contiki's MAX_NOACKS) */
};

/* One remembered neighbour. `offset` is the instant, µs after the start of
 * our own wake-up interval, at which a first copy reaches it. */
struct mip_rdc_phase {
    struct mip_802154_addr addr;
    uint32_t offset;
    uint32_t used;              /* LRU stamp */
    uint8_t  misses;
    uint8_t  valid;
};

/* ContikiMAC's state (internal: src/mac/contikimac.c). */
struct mip_contikimac {
    uint8_t  rx;                /* receiver: sleep, CCA, gap, listen, burst */
    uint8_t  n;                 /* CCAs of the current check */
    uint8_t  silence;           /* clear samples in a row while listening */
    uint8_t  tx;                /* sender: its step while the MAC is in state RDC */
    uint16_t copies;            /* copies sent in the current attempt */
    bool     ack_stretched;     /* the ACK wait was stretched for an ACK under way */
    bool     known;             /* this attempt starts at a learned phase */
    bool     awake;             /* this attempt goes to a receiver kept awake */
    bool     radio;             /* the sender's CCAs want the radio on */
    bool     burst_tx;          /* burst_dst stays awake until burst_until */
    uint32_t period;            /* T = 1e6 / check_rate_hz */
    mip_utime_t cycle;          /* start of the current wake-up interval */
    mip_utime_t since;          /* listening since / burst received until */
    mip_utime_t train;          /* start of the current train of copies */
    mip_utime_t copy_start;     /* start of the latest copy */
    mip_utime_t copy_end;       /* end of the latest copy */
    mip_utime_t burst_until;
    struct mip_802154_addr dst; /* receiver of the current attempt */
    struct mip_802154_addr burst_dst;
    uint32_t lru;               /* LRU clock of the phase table */
    struct mip_rdc_phase phase[MIP_RDC_PHASES];
};

/* Every RDC's state, in struct mip_mac; one node runs one RDC at a time. */
union mip_rdc_state {
    uint8_t none;
#if MIP_RDC_HAS_CONTIKIMAC
    struct mip_contikimac cm;
#endif
};

/* The parameter a configuration breaks (mip_mac_rdc_check), named after its
 * field of struct mip_rdc_config; MIP_RDC_OK when it is usable. */
enum mip_rdc_check {
    MIP_RDC_OK = 0,
    MIP_RDC_BAD_KIND,               /* unknown, or left out of this build */
    MIP_RDC_BAD_CHECK_RATE,         /* 1..1000, and two checks fit an interval */
    MIP_RDC_BAD_CCA_COUNT,          /* 1..8 */
    MIP_RDC_BAD_CCA_ON,             /* > 0 */
    MIP_RDC_BAD_COPY_GAP,           /* turnaround + PHY header < Ti < Tc */
    MIP_RDC_BAD_LISTEN_MAX,         /* > 0 */
    MIP_RDC_BAD_BURST_WAIT,         /* > 0 */
    MIP_RDC_BAD_PHASE_STROBE,       /* > 0 */
    MIP_RDC_BAD_PHASE_MISSES        /* > 0 */
};

/* The defaults of every RDC's parameters, with `kind` chosen (a kind this
 * build lacks keeps its number; init refuses it). */
void mip_rdc_config_default(struct mip_rdc_config *c, uint8_t kind);

/* ContikiMAC's wake-up interval T, 1e6 / check_rate_hz µs (0 for rate 0). */
uint32_t mip_rdc_period_us(const struct mip_rdc_config *c);

#endif
