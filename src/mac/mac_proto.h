/*
 * Inside the MAC floor: the common engine (mac.c) and the channel access
 * protocols (csma_ca.c, csma.c, nullmac.c) meet here.
 *
 * The engine owns the queue, reception, link ACKs (sending them and
 * matching them), the radio's busy state and the frame's outcome. A
 * protocol only decides how the frame at the head of the queue gets onto
 * the channel: it sets access timers with mip_mac_timer(), and when its
 * last step runs it calls mip_mac_start_tx() or mip_mac_finish(). The
 * protocols sit behind a const table of functions chosen by cfg.kind.
 * What one attempt is on air (one transmission, or a train of copies to a
 * duty-cycled receiver) is the radio duty cycling layer's (mac_rdc.h),
 * chosen by cfg.rdc.kind.
 *
 * Engine states (m->state):
 *   IDLE     nothing on its way; the next poll starts the queue's head
 *   ACCESS   the protocol's step m->step ends at m->deadline
 *   DEFER    the protocol needs the radio, which is busy sending an ACK;
 *            once it is free the engine calls proto->resume
 *   TX       our frame is on air, waiting for mip_mac_radio_tx_done
 *   ACK_WAIT the frame asked for an ACK; m->deadline ends the wait
 *   RDC      the RDC holds the attempt (waiting for a receiver's wake-up,
 *            its own CCAs, a gap between copies); m->deadline ends the step
 */
#ifndef MOTEIP_SRC_MAC_PROTO_H
#define MOTEIP_SRC_MAC_PROTO_H

#include "moteip/mac.h"

enum mip_mac_state {
    MIP_MAC_ST_IDLE = 0,
    MIP_MAC_ST_ACCESS,
    MIP_MAC_ST_DEFER,
    MIP_MAC_ST_TX,
    MIP_MAC_ST_ACK_WAIT,
    MIP_MAC_ST_RDC
};

/* Steps within ACCESS. CCA and TURNAROUND listen to the channel (or rely
 * on what was heard), so an ACK sent during them voids them: the engine
 * moves the protocol to DEFER. */
enum mip_mac_step {
    MIP_MAC_STEP_BACKOFF = 0,
    MIP_MAC_STEP_CCA,
    MIP_MAC_STEP_TURNAROUND,
    MIP_MAC_STEP_RETRY_DELAY,
    MIP_MAC_STEP_SEND           /* transmit as soon as the radio is free */
};

enum mip_mac_radio_use {
    MIP_MAC_RADIO_IDLE = 0,
    MIP_MAC_RADIO_DATA,
    MIP_MAC_RADIO_ACK,
    MIP_MAC_RADIO_CTL           /* an RDC's control frame (mip_mac_ctl) */
};

struct mip_mac_proto {
    /* A fresh channel access for the head frame (its first try, or a
     * retry after a missing ACK). */
    void (*begin)(struct mip_mac *m);
    /* The access step m->step ended at m->now. */
    void (*step)(struct mip_mac *m);
    /* The radio is free again after an ACK interrupted channel access. */
    void (*resume)(struct mip_mac *m);
    /* Our frame, which asked for an ACK (m->ack_wanted), left the radio:
     * true to wait ack_wait_us for the ACK. */
    bool (*wait_ack)(const struct mip_mac *m);
    /* No ACK came: retry (begin again) or mip_mac_finish. */
    void (*noack)(struct mip_mac *m);
};

/* Each protocol's table. Getters rather than extern objects: the library
 * exports no data symbols at all (sanitizers add writable shadows to
 * those). */
const struct mip_mac_proto *mip_mac_proto_csma_ca(void);
const struct mip_mac_proto *mip_mac_proto_csma(void);
const struct mip_mac_proto *mip_mac_proto_nullmac(void);

/* The receiver's start-up (cfg.timing.rx_on_us) when the engine has it off
 * now: a CCA window or listen about to begin, which switches it on, starts
 * that much later (0 for an ideal radio, and whenever it is on). */
static inline uint32_t mip_mac_rx_start(const struct mip_mac *m)
{
    return m->radio_on ? 0u : m->cfg.timing.rx_on_us;
}
/* Slack for a wait of `us` that ends with a peer's transmission: two clocks
 * cfg.timing.clock_ppm apart disagree by up to 2 x ppm x us, and each rounds
 * to its own microsecond (0 for perfect clocks). */
static inline uint32_t mip_mac_clock_slack(const struct mip_mac *m, uint32_t us)
{
    uint32_t ppm = m->cfg.timing.clock_ppm;
    return ppm == 0u ? 0u : (uint32_t)(((uint64_t)2u * ppm * us + 999999u) / 1000000u) + 1u;
}
/* Enters ACCESS: `step` ends `delay_us` after m->now. */
void mip_mac_timer(struct mip_mac *m, uint8_t step, uint32_t delay_us);
/* proto->resume of the carrier-sensing protocols: our ACK left the radio,
 * which turns around to listen and then assesses the channel afresh (NB and
 * BE carry on). */
void mip_mac_resume_cca(struct mip_mac *m);
/* True (and the MAC now in DEFER) when the radio is busy. */
bool mip_mac_defer_if_busy(struct mip_mac *m);
/* Channel access is done: the head frame's attempt goes to the RDC now
 * (DEFER when the radio is busy). */
void mip_mac_start_tx(struct mip_mac *m);
/* CCA through the driver, counting a busy channel. */
bool mip_mac_cca_clear(struct mip_mac *m);
/* Reports the head frame's outcome, drops it from the queue, back to IDLE. */
void mip_mac_finish(struct mip_mac *m, enum mip_mac_tx_status st);
/* proto->step of the carrier-sensing protocols, their steps from the end
 * of a backoff to the frame's start: BACKOFF ends in a CCA cca_us later;
 * a clear CCA turns the radio around (TURNAROUND), a busy one calls the
 * protocol's `busy` (back off again, retry or give up); TURNAROUND starts
 * the transmission. Each step defers while the radio sends an ACK. A
 * protocol with steps of its own (RETRY_DELAY) handles them before it
 * calls this. */
void mip_mac_csma_step(struct mip_mac *m, void (*busy)(struct mip_mac *m));
/* proto->wait_ack and proto->noack of the protocols without link-layer
 * retries (CSMA, NullMAC): receivers still ACK a frame that asks, but the
 * sender never waits, and a missing ACK ends the frame as NOACK. */
bool mip_mac_wait_ack_never(const struct mip_mac *m);
void mip_mac_noack_finish(struct mip_mac *m);


#if MIP_CONF_LLSEC
/* Link-layer security (llsec.c), called by the engine. */
enum mip_llsec_rx {
    MIP_LLSEC_RX_DROP = 0,      /* dropped and counted */
    MIP_LLSEC_RX_NEW,           /* authentic and fresh: plaintext in `plain` */
    MIP_LLSEC_RX_REPEAT         /* authentic, the sender's last counter again */
};
/* cfg.sec is usable (level 0 is). */
bool mip_llsec_config_ok(const struct mip_mac_sec_config *c);
/* After the engine's init: the cipher and its key, the counters. False
 * when the cipher refuses the key. */
bool mip_llsec_init(struct mip_mac *m);
/* Security is on (cfg.sec.level != 0). */
bool mip_llsec_on(const struct mip_mac *m);
/* Secures the plain frame f (len bytes, room for cap) in place with the
 * next counter: its new length, 0 when it does not fit or no counter can
 * be used (nothing changed then). */
size_t mip_llsec_secure(struct mip_mac *m, uint8_t *f, size_t len, size_t cap);
/* The head frame, about to go on air, is secured (already, with the same
 * first byte: a copy or retry; else afresh). False when it cannot be. */
bool mip_llsec_head_ready(struct mip_mac *m);
/* q back to plaintext if we secured it. */
void mip_llsec_plain(struct mip_mac *m, struct mip_mac_qframe *q);
/* A received frame whose MHR (h; parse_mhr) is known: checks policy,
 * key, MIC and counter, and on success writes the plaintext frame (the
 * same MHR with the security bit clear, then the payload) to plain
 * (MIP_MAC_FRAME_MAX bytes), clears h->security and sets h->sec_level. */
enum mip_llsec_rx mip_llsec_rx(struct mip_mac *m, const uint8_t *f, size_t len,
                               struct mip_802154_hdr *h, uint8_t *plain, size_t *plain_len);
#endif

#endif
