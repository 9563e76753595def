/*
 * Inside the MAC floor: the radio duty cycling layer's table of operations
 * and the engine functions an RDC may call. Public types (kinds, parameters,
 * state) are in include/moteip/rdc.h; docs/MAC.md walks through adding one.
 *
 * Division of work. The engine (mac.c) owns the queue, reception (filter,
 * link ACKs, duplicates), ACK matching and each frame's outcome. The MAC
 * protocol (mac_proto.h) decides when the head frame may take the channel
 * and what a failed attempt leads to (retry or give up). The RDC decides
 * when the radio listens and what one attempt is on air:
 *
 *   protocol: begin -> backoff/CCA steps -> mip_mac_start_tx()
 *   engine:   rdc->send()                 the attempt is the RDC's now
 *   RDC:      mip_mac_transmit()          a copy on air (state TX) ...
 *   engine:   rdc->sent()                 ... which ended
 *   RDC:      mip_mac_await_ack()         ACK_WAIT -> rdc->acked() or
 *                                         rdc->ack_timeout()
 *   RDC:      mip_mac_rdc_wait()          state RDC: rdc->step() when due
 *   RDC ends the attempt with mip_mac_finish(m, OK) (after an ACK, or when
 *   no ACK is due) or mip_mac_noack(m) (the protocol retries or gives up).
 *
 * Receiving runs beside that: the RDC keeps a timer of its own
 * (mip_mac_rdc_timer -> rdc->timer; channel checks, listening windows)
 * and hears of every frame the radio delivered (rdc->rx).
 *
 * The radio. An RDC never calls the driver's on/off itself: the engine asks
 * rdc->radio_wanted() after every step of mip_mac_poll (and at init) and
 * switches the radio when the answer changes. mip_mac_radio_needed() is what
 * the engine itself needs (an ACK to send or on air, a frame on air, a CCA,
 * an ACK awaited): an RDC's radio_wanted includes it. CCAs go through
 * m->radio->cca directly, only while the radio is on and not sending.
 *
 * Rules every hook keeps:
 *   - never drive the radio from rdc->rx or rdc->sent beyond what the engine
 *     functions below do (they run inside the radio's upcalls);
 *   - every state ends: each wait has a deadline, each table an eviction;
 *   - NullRDC's rows are the engine's behaviour before RDCs existed: a change
 *     that moves a NullRDC run by one bit is a bug (tests/sim compares).
 */
#ifndef MOTEIP_SRC_MAC_RDC_H
#define MOTEIP_SRC_MAC_RDC_H

#include "mac_proto.h"

/* Some RDC other than NullRDC is compiled in: the engine carries what only
 * duty cycling needs (switching the radio, the RDC's timer and state). A
 * NullRDC-only build leaves it out and keeps the radio on from init. */
#define MIP_RDC_DUTY_CYCLING (MIP_CONF_RDC != 0)

/* What rdc->rx is told about a frame the radio delivered. */
enum mip_rdc_rx {
    MIP_RDC_RX_OURS = 0,        /* a data frame for us (new or a duplicate) */
    MIP_RDC_RX_OTHER,           /* any frame not for us, or not a data frame */
    MIP_RDC_RX_ACK              /* an ACK frame (ours or not) */
};

struct mip_rdc_ops {
    /* What is wrong with cfg->rdc (with cfg's timing), or MIP_RDC_OK. */
    enum mip_rdc_check (*check)(const struct mip_mac_config *cfg);
    /* mip_mac_init, after the engine's own set-up: state, first timer. */
    void (*init)(struct mip_mac *m);
    /* The protocol's channel access for the head frame ended (its first
     * attempt or a retry; m->ack_wanted says whether an ACK is due). */
    void (*send)(struct mip_mac *m);
    /* A copy of the head frame (mip_mac_transmit) left the radio. */
    void (*sent)(struct mip_mac *m);
    /* State RDC: the deadline of mip_mac_rdc_wait passed. */
    void (*step)(struct mip_mac *m);
    /* State ACK_WAIT: the deadline of mip_mac_await_ack passed, no ACK. */
    void (*ack_timeout)(struct mip_mac *m);
    /* The ACK for the head frame arrived; the engine then finishes the
     * frame with MIP_MAC_TX_OK. */
    void (*acked)(struct mip_mac *m);
    /* The radio delivered a frame (after the engine handled it; h is NULL
     * for one that did not parse). */
    void (*rx)(struct mip_mac *m, const struct mip_802154_hdr *h, enum mip_rdc_rx what);
    /* The RDC's own timer (mip_mac_rdc_timer) is due. */
    void (*timer)(struct mip_mac *m);
    /* Whether the radio should be on now. */
    bool (*radio_wanted)(const struct mip_mac *m);
};

/* Each RDC's table (getters, as for the protocols: no data symbols). */
const struct mip_rdc_ops *mip_rdc_nullrdc(void);
#if MIP_RDC_HAS_CONTIKIMAC
const struct mip_rdc_ops *mip_rdc_contikimac(void);
#endif

/* --- engine functions for RDCs --------------------------------------------- */

/* The head frame on the radio now (state TX); a refusal finishes it with
 * MIP_MAC_TX_RADIO_ERROR. The caller checks the radio is free first. */
void mip_mac_transmit(struct mip_mac *m);
/* State ACK_WAIT until `wait_us` from now. */
void mip_mac_await_ack(struct mip_mac *m, uint32_t wait_us);
/* The attempt failed: the protocol retries (begins again) or gives up. */
void mip_mac_noack(struct mip_mac *m);
#if MIP_RDC_DUTY_CYCLING
/* State RDC: rdc->step runs `delay_us` from now. */
void mip_mac_rdc_wait(struct mip_mac *m, uint32_t delay_us);
/* The RDC's own timer: rdc->timer `delay_us` from now (replaces any). */
void mip_mac_rdc_timer(struct mip_mac *m, uint32_t delay_us);
/* What the engine needs the radio on for right now. */
bool mip_mac_radio_needed(const struct mip_mac *m);
/* The head frame of the queue (valid while q_count > 0). */
struct mip_mac_qframe *mip_mac_head(struct mip_mac *m);
#endif
/* Two 802.15.4 addresses are the same (mode and value). */
bool mip_mac_addr_equal(const struct mip_802154_addr *a, const struct mip_802154_addr *b);
/* NullRDC's `sent`, for RDCs that send some attempts the plain way (its
 * `send` is mip_mac_transmit, its `ack_timeout` mip_mac_noack). */
void mip_rdc_sent_plain(struct mip_mac *m);

#endif
