/*
 * The 802.15.4 MAC: one struct mip_mac per node, between a radio driver
 * (radio.h) below and a netif above, with its protocol chosen at init:
 *
 *   CSMA_CA  unslotted CSMA-CA of IEEE 802.15.4-2006 s.7.5.1.4: random
 *            backoff of 0..2^BE-1 unit periods, CCA, BE from macMinBE (3) to
 *            macMaxBE (5), at most macMaxCSMABackoffs (4) busy CCAs; link
 *            ACKs for unicast frames, up to macMaxFrameRetries (3) retries,
 *            and a random delay between retries (TCPlp s.7.1; 0 = standard).
 *   CSMA     plain CSMA without link ACKs, as in the TSS paper: wait a
 *            random 1..3 backoff periods (tau), send if the channel is clear,
 *            else draw again (bounded by max_backoffs). With
 *            csma_sense_first the channel is sensed before any backoff and
 *            a clear channel is taken at once; with csma_continuous the
 *            backoff is a uniform time in [1 tau, 3 tau], not whole periods.
 *   NULLMAC  no carrier sense, no ACKs: send at once.
 *
 * Under the protocol sits the radio duty cycling layer (rdc.h), chosen by
 * cfg.rdc.kind: it decides when the radio listens and what one attempt of
 * a frame is on air. The default, NullRDC, keeps the radio on and sends each
 * attempt once: the protocols above then behave as plain 802.15.4.
 *
 * The MAC owns a bounded FIFO of outgoing frames (MIP_MAC_QUEUE frames), its
 * own PRNG (seeded at init), and counters. It never reads a clock: every call
 * carries `now` in microseconds, and mip_mac_poll() returns the delay to its
 * next deadline (tickless, like mip_stack_poll).
 *
 * Frames handed to mip_mac_send() are complete MAC frames without FCS
 * (the netif builds the MHR with wire/ieee802154.h); the MAC reads the
 * ack-request bit, the sequence number and the destination from them.
 * Received data frames are filtered (destination = our short/extended
 * address or broadcast, PAN matches or broadcast PAN), acknowledged when asked,
 * de-duplicated by (source, sequence number), and passed up through
 * cb.input. Frames not for us go to cb.overheard when set (promiscuous
 * listeners: relay implicit ACKs, activity monitoring).
 *
 * Link-layer security (MIP_CONF_LLSEC, cfg.sec; 802.15.4-2015 s.9,
 * docs/MAC.md "Link-layer security"): with cfg.sec.level set, every frame
 * the MAC sends but ACKs is secured (aux header, CCM* with the network
 * key) when it first goes on air, and every frame received is unsecured
 * and verified (MIC, key, level, frame counter against replay) before
 * anything else looks at it: the RDC's own frames, the filter, link ACKs,
 * the duplicate filter. Unsecured frames and frames at another level are
 * dropped and counted. Upper layers get the plaintext and, in the
 * header's sec_level, the level it was authenticated at
 * (mip_mac_rx_trusted).
 */
#ifndef MOTEIP_MAC_H
#define MOTEIP_MAC_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"
#include "moteip/rng.h"
#include "moteip/radio.h"
#include "moteip/rdc.h"
#include "moteip/cipher.h"
#include "moteip/wire/ieee802154.h"

#include "moteip/config.h"

struct mip_rdc_ops;

/* Outgoing frames waiting. A 1280-byte IPv6 datagram is 11-13 6LoWPAN
 * fragments, all queued at once. */
#ifndef MIP_MAC_QUEUE
#define MIP_MAC_QUEUE MIP_PROFILE_DEFAULT(4u, 16u)
#endif
#ifndef MIP_MAC_DUP_ENTRIES
#define MIP_MAC_DUP_ENTRIES 8u    /* (source, seq) pairs remembered */
#endif
/* A (source, seq) pair is forgotten this long after its frame, so a sender
 * whose 8-bit DSN went round is heard again (Contiki-NG's SEQNO_MAX_AGE,
 * os/net/mac/mac-sequence.c: 20 s). mip_mac_poll frees an entry at its age
 * and reports that as a deadline, so no stamp nears half the µs wrap. */
#ifndef MIP_MAC_DUP_AGE_US
#define MIP_MAC_DUP_AGE_US 20000000u
#endif
/* Longest delay between link retries: deadlines are compared modulo 2^32
 * (mip_utime_before), so none may be 2^31 µs (35.8 min) away; 30 min, as
 * MIP_RDC_TIME_MAX, keeps it out of timer.h's check band. */
#define MIP_MAC_RETRY_DELAY_MAX 1800000000u
/* Largest frame without FCS (config.h). */
#define MIP_MAC_FRAME_MAX MIP_RADIO_FRAME_MAX
/* Link-layer security: senders whose last frame counter a node remembers
 * (12 bytes each; docs/MAC.md says what a full table guarantees). */
#ifndef MIP_LLSEC_NEIGHBORS
#define MIP_LLSEC_NEIGHBORS MIP_PROFILE_DEFAULT(4u, 16u)
#endif
/* The most a secured frame grows: aux header + MIC. */
#define MIP_LLSEC_OVERHEAD_MAX (MIP_802154_SEC_LEN_MAX + MIP_802154_MIC_LEN_MAX)

enum mip_mac_kind {
    MIP_MAC_CSMA_CA = 0,
    MIP_MAC_CSMA    = 1,
    MIP_MAC_NULLMAC = 2
};

/* Outcome of one frame, reported through cb.tx_done. */
enum mip_mac_tx_status {
    MIP_MAC_TX_OK = 0,          /* sent; ACKed when one was asked for */
    MIP_MAC_TX_NOACK,           /* every retry went unacknowledged */
    MIP_MAC_TX_CHANNEL_BUSY,    /* CSMA gave up: channel access failure */
    MIP_MAC_TX_RADIO_ERROR,     /* the driver refused to transmit */
    MIP_MAC_TX_SECURITY         /* link-layer security could not secure it
                                 * (counters exhausted or not persisted) */
};

#define MIP_MAC_STATS_LIST(X) MIP_MAC_STATS_BASE(X) MIP_MAC_STATS_SEC(X) MIP_MAC_STATS_RDC(X)
#define MIP_MAC_STATS_BASE(X)                                                 \
    X(tx_frames)       /* frames accepted by mip_mac_send */                 \
    X(tx_attempts)     /* transmissions on air, retries included */          \
    X(tx_ok)                                                                  \
    X(tx_noack)                                                               \
    X(tx_channel_busy)                                                        \
    X(tx_radio_error)                                                         \
    X(tx_retries)      /* link-layer retransmissions */                      \
    X(tx_queue_full)   /* frames refused: queue full */                      \
    X(busy_retries)    /* channel access failures retried (retry_on_busy) */ \
    X(cca_busy)        /* CCAs that found the channel busy */                \
    X(acks_tx)                                                                \
    X(acks_rx)                                                                \
    X(rx_frames)       /* data frames for us passed up */                    \
    X(rx_duplicates)   /* dropped by (source, seq) */                        \
    X(rx_not_for_us)   /* filtered by address / PAN */                       \
    X(rx_malformed)    /* MHR did not parse */                               \
    X(overheard)       /* frames handed to the promiscuous listener */
/* link-layer security (0 without it): received frames dropped, per reason */
#define MIP_MAC_STATS_SEC(X)                                                  \
    X(rx_sec_none)     /* unsecured, while security is required */          \
    X(rx_sec_policy)   /* another level, key id, or a bad aux header */     \
    X(rx_sec_no_addr)  /* sender's extended address unknown (nonce) */      \
    X(rx_sec_mic)      /* MIC did not verify (forged, corrupted, other key) */ \
    X(rx_sec_replay)   /* frame counter not above the sender's last (floor) */ \
    X(sec_nbr_evicted) /* senders dropped from the replay table (floor rose) */ \
    X(tx_sec_failed)   /* frames not sent: counters exhausted or not stored */
/* radio duty cycling (rdc.h) */
#define MIP_MAC_STATS_RDC(X)                                                  \
    X(rdc_checks)      /* periodic channel checks made */                    \
    X(rdc_detections)  /* CCAs that found the channel busy: listened on */   \
    X(rdc_fast_sleeps) /* listens ended without a frame (silence, limit) */  \
    X(rdc_copies)      /* repeated copies of a frame, beyond the first */    \
    X(rdc_collisions)  /* attempts ended by a busy channel before a copy */  \
    X(rdc_phase_locked)/* attempts started at a learned phase */             \
    X(rdc_phase_misses)/* phase-locked attempts without an ACK */            \
    X(rdc_phase_evicted)/* phases dropped: misses, or the table full */      \
    X(rdc_bursts)      /* frames sent to a receiver kept awake */        \
    X(rdc_strobes)     /* X-MAC: strobes sent */                         \
    X(rdc_strobe_acks) /* X-MAC: strobes for us answered */              \
    X(rdc_probes)      /* LPP: probes sent */                            \
    X(rdc_probe_timeouts)/* LPP: attempts without the receiver's probe */ \
    X(rdc_polls)       /* leaf: data requests queued; parent: received */ \
    X(rdc_polls_pending)/* ACKs of data requests with the pending bit */ \
    X(rdc_poll_timeouts)/* leaf: no frame within wait_us of a pending bit */ \
    X(rdc_polls_skipped)/* leaf: data requests that found the queue full */ \
    X(rdc_ind_held)    /* parent: frames held for a sleeping child */    \
    X(rdc_ind_evicted) /* parent: held frames dropped (table full, retries) */ \
    X(rdc_ind_expired) /* parent: held frames dropped (too old, child gone) */ \
    X(rdc_child_evicted)/* parent: children forgotten (table full, silent) */ \
    X(rdc_child_refused)/* parent: data requests of new nodes, every child settled */ \
    X(rdc_bursts_rx)   /* bursts received: awake for a neighbour's next frame */ \
    X(rdc_burst_refused)/* pending bits that kept us awake no longer: a burst \
                          at burst_max_us, a neighbour out of budget, no room \
                          in the table of burst senders */

enum mip_mac_stat {
#define MIP_MAC_STAT_ENUM(n) MIP_MAC_STAT_##n,
    MIP_MAC_STATS_LIST(MIP_MAC_STAT_ENUM)
#undef MIP_MAC_STAT_ENUM
    MIP_MAC_STAT_COUNT
};

#if MIP_CONF_LLSEC
/* Link-layer security of one MAC (one netif). One network key, shared by
 * every node of the PAN (pre-shared: no key exchange). */
struct mip_mac_sec_config {
    /* The security level every frame is sent with and every received frame
     * must carry: 0 off; 1-3 (MIC-32/64/128), 5-7 (ENC-MIC-32/64/128).
     * 4 (ENC without a MIC) authenticates nothing, so no frame could be
     * trusted or checked for replay: mip_mac_init refuses it (the codec
     * and CCM* still handle it). */
    uint8_t  level;
    uint8_t  key_id_mode;       /* 0 implicit, 1 key index (what we send), 2, 3 */
    uint8_t  key_index;         /* modes 1-3: 1..255 (0 is reserved); mode 0: 0 */
    uint8_t  key_source[8];     /* modes 2 (first 4 bytes) and 3; the bytes a
                                 * mode leaves out are 0 */
    uint8_t  key[MIP_AES_KEY_LEN];
    /* The first outgoing frame counter: the bound the port stored last
     * through `persist` (0 on a first boot). */
    uint32_t counter;
    /* Counters reserved per call of `persist` (>= 1; e.g. 1000: one
     * flash write per 1000 frames, at most 1000 counters skipped per
     * reboot). */
    uint32_t reserve;
    /* Called before the first frame is secured with a counter >= the last
     * bound: it must store `upto` durably (flash, EEPROM) and answer true;
     * on boot the port passes the stored bound as `counter`, so no counter
     * is ever used twice. False, or counters exhausted at 2^32 - 1: the
     * frame fails (MIP_MAC_TX_SECURITY, tx_sec_failed). NULL: nothing is
     * stored (a reboot may reuse counters; tests). */
    bool (*persist)(void *ctx, uint32_t upto);
    void *persist_ctx;
    /* The extended address of a sender known by its short address: the
     * CCM* nonce is made of it (s.9.3.2.2; 802.15.4 keeps it in the device
     * table). NULL or false: frames from short sources are dropped
     * (rx_sec_no_addr). */
    bool (*ext_of)(void *ctx, uint16_t pan_id, uint16_t short_addr, uint8_t ext[8]);
    void *ext_ctx;
    /* The block cipher (cipher.h): a radio's AES engine; ops NULL: the
     * software AES-128 with its context inside struct mip_mac. */
    struct mip_cipher cipher;
};

/* One sender in the replay table: its extended address and the counter
 * of the last frame accepted from it. */
struct mip_mac_sec_nbr {
    uint8_t  ext[8];
    uint32_t counter;
};

/* Link-layer security state (src/mac/llsec.c). */
struct mip_mac_sec {
    struct mip_aes128 aes;      /* the software cipher's key */
    struct mip_cipher cipher;   /* what secures: cfg.sec.cipher or the above */
    uint32_t counter;           /* the next outgoing frame counter */
    uint32_t reserved;          /* counters below this are stored (persist) */
    uint32_t floor;             /* highest counter of a sender evicted from nbr[] */
    uint8_t  fcf0;              /* the head frame's first byte when secured */
    uint8_t  n_nbr;             /* entries used; nbr[0] the most recent */
    struct mip_mac_sec_nbr nbr[MIP_LLSEC_NEIGHBORS];
};
#endif

struct mip_mac_config {
    uint8_t  kind;              /* enum mip_mac_kind */
    uint16_t pan_id;
    uint16_t short_addr;
    uint8_t  ext_addr[8];
    struct mip_radio_timing timing;
    /* CSMA-CA (802.15.4 defaults in mip_mac_config_default) */
    uint8_t  min_be;            /* 3 */
    uint8_t  max_be;            /* 5 */
    uint8_t  max_backoffs;      /* 4: CSMA-CA fails when NB exceeds it (5 CCAs);
                                 * CSMA fails at its max_backoffs-th busy CCA */
    uint8_t  max_retries;       /* 3 */
    uint32_t retry_delay_max_us;/* random 0..this between link retries; 0 = none */
    bool     retry_on_busy;     /* false (802.15.4): a channel access failure ends
                                 * the frame (TX_CHANNEL_BUSY). true: it costs one
                                 * of max_retries and CSMA-CA starts again at once
                                 * (no retry delay), as OpenThread's SubMac retries
                                 * any failed attempt; counted busy_retries */
    /* CSMA (TSS): backoff uniformly in [csma_min_periods, csma_max_periods]
     * unit backoff periods (1..3) */
    uint8_t  csma_min_periods;
    uint8_t  csma_max_periods;
    /* CSMA: false (default) backs off before the first CCA; true senses
     * first, sends at once on a clear channel and backs off only after a
     * busy CCA (the TSS paper's "senses the transmission medium and backs
     * off in case of a busy medium", section IV.A). */
    bool     csma_sense_first;
    /* CSMA: false (default) backs off a whole number of periods; true a
     * time drawn uniformly in [min, max] periods to the microsecond (the
     * paper's "a random time between 1 tau and 3 tau"). */
    bool     csma_continuous;
    /* Radio duty cycling: kind and parameters (rdc.h; NullRDC) */
    struct mip_rdc_config rdc;
#if MIP_CONF_LLSEC
    /* Link-layer security (all zero: off) */
    struct mip_mac_sec_config sec;
#endif
};

struct mip_mac_callbacks {
    /* A data frame for us (no FCS): frame[0..len), payload at hdr_len. */
    void (*input)(void *ctx, const uint8_t *frame, size_t len, size_t hdr_len,
                  const struct mip_802154_hdr *hdr, mip_utime_t now);
    /* The outcome of each frame given to mip_mac_send (may be NULL).
     * `frame` is the frame as sent; `retries` the link retries it took. */
    void (*tx_done)(void *ctx, const uint8_t *frame, size_t len,
                    enum mip_mac_tx_status st, uint8_t retries, mip_utime_t now);
    /* A frame addressed to another node, heard in passing (may be NULL). */
    void (*overheard)(void *ctx, const uint8_t *frame, size_t len, size_t hdr_len,
                      const struct mip_802154_hdr *hdr, mip_utime_t now);
    void *ctx;
};

struct mip_mac_qframe {
    uint8_t len;
    uint8_t data[MIP_MAC_FRAME_MAX];
    uint16_t gap_us;            /* no channel access before this long after
                                   the previous frame's outcome (mip_mac_send_gap) */
};

struct mip_mac_dup {
    struct mip_802154_addr src;
    mip_utime_t at;             /* its latest frame (freed MIP_MAC_DUP_AGE_US later) */
    uint8_t seq;
    uint8_t used;
};

struct mip_mac {
    const struct mip_radio_driver *radio;
    void *radio_ctx;
    struct mip_mac_callbacks cb;
    struct mip_rng rng;
    /* transmit state machine (internal: src/mac/mac_proto.h) */
    uint8_t  state;             /* idle, channel access, deferred, on air, ACK
                                 * wait, RDC step */
    uint8_t  step;              /* the protocol's step within channel access */
    uint8_t  radio_tx;          /* what the radio is sending: nothing, ours, an ACK */
    uint8_t  nb;                /* busy CCAs for the current attempt */
    uint8_t  be;
    uint8_t  retries;
    bool     ack_wanted;        /* the frame on its way asks for a link ACK */
    bool     in_call;           /* a callback is running: mip_mac_poll waits */
    bool     ack_pending_tx;    /* an ACK to send at ack_due */
    uint8_t  ack_out[MIP_802154_ACK_LEN];
    mip_utime_t ack_due;
    mip_utime_t deadline;       /* end of the access step or of the ACK wait */
    mip_utime_t now;            /* latest time any call carried */
    mip_utime_t last_done;      /* when the latest frame's outcome came */
    mip_utime_t load_due;       /* the head frame is in the radio's buffer then */
    bool     loading;           /* ... while cfg.timing's load time runs */
    /* (after the scalars the engine reads most: on Cortex-M0+ a field at
     * a small offset is one instruction away) */
    struct mip_mac_config cfg;
    /* radio duty cycling (src/mac/mac_rdc.h) */
    const struct mip_rdc_ops *rdc_ops;  /* cfg.rdc.kind's table */
    bool     radio_on;          /* the receiver as last switched by the engine */
    bool     rdc_armed;         /* the RDC's own timer runs ... */
    mip_utime_t rdc_due;        /* ... and is due then */
    union mip_rdc_state rdc;
#if MIP_RDC_HAS_XMAC || MIP_RDC_HAS_LPP
    bool     ctl_pending;       /* an RDC control frame to send at ctl_due */
    uint8_t  ctl_len;
    mip_utime_t ctl_due;
#if MIP_CONF_LLSEC
    uint8_t  ctl_out[MIP_RDC_CTL_MAX + MIP_LLSEC_OVERHEAD_MAX];
#else
    uint8_t  ctl_out[MIP_RDC_CTL_MAX];
#endif
#endif
    /* queue: ring of MIP_MAC_QUEUE frames; q[q_head] is the one on its way */
    uint8_t  q_head;
    uint8_t  q_count;
    struct mip_mac_qframe q[MIP_MAC_QUEUE];
    uint8_t  dup_next;
    struct mip_mac_dup dup[MIP_MAC_DUP_ENTRIES];
    uint8_t  next_seq;          /* macDSN: written into byte 2 of every frame queued */
#if MIP_CONF_LLSEC
    struct mip_mac_sec sec;
#endif
    uint32_t stats[MIP_MAC_STAT_COUNT];
};

/* 802.15.4 defaults for kind, with the given addresses; NullRDC. */
void mip_mac_config_default(struct mip_mac_config *cfg, uint8_t kind, uint16_t pan_id,
                            uint16_t short_addr, const uint8_t ext_addr[8]);

/* INVALID for a bad kind, min_be > max_be, max_be > 8, csma min > max,
 * security at level 4 or above 7, a key id mode above 3, a key index 0 in
 * modes 1-3 (or not 0 in mode 0), key source bytes beyond the mode's not 0,
 * reserve 0, a cipher that refuses the key,
 * retry_delay_max_us > MIP_MAC_RETRY_DELAY_MAX, a driver without transmit
 * (or without cca for the CSMA kinds, or without cca, on and off for a
 * duty-cycling RDC), RDC parameters its kind rejects (rdc.h); UNSUPPORTED
 * for an RDC kind this build leaves out (MIP_CONF_RDC). The seed makes the
 * MAC's backoff draws, the RDC's draws and its first DSN (the simulator
 * derives it from (run seed, node id)). Turns the radio on when the RDC
 * listens from the start (NullRDC: always). */
mip_status mip_mac_init(struct mip_mac *m, const struct mip_mac_config *cfg,
                        const struct mip_radio_driver *radio, void *radio_ctx,
                        const struct mip_mac_callbacks *cb,
                        const uint8_t *seed, size_t seed_len, mip_utime_t now);

/* What is wrong with cfg->rdc, given cfg's radio timing: the parameter to
 * blame (rdc.h), or MIP_RDC_OK. mip_mac_init refuses exactly these. Front
 * ends (the simulator's scenario loader) name the key from it. */
enum mip_rdc_check mip_mac_rdc_check(const struct mip_mac_config *cfg);

/* Link-layer security. The bytes a secured frame grows by with this
 * configuration (aux header + MIC; 0 with security off): the owner's
 * netif must build frames that much shorter (its frame_max). */
size_t mip_mac_sec_overhead(const struct mip_mac_config *cfg);
/* Whether a received frame (its header as the MAC passed it up, or to an
 * RDC) may change state that outlives it (a pending-bit burst, a strobe's
 * wait, a parent's child, a route): true with security off (nothing can be
 * checked; the same answer a build without MIP_CONF_LLSEC gives), else only
 * when it was authenticated at the required level (h->sec_level). ACKs
 * never are (802.15.4-2006 Imm-Acks carry no security). Duplicates are the
 * caller's business (MIP_RDC_RX_DUP). */
bool mip_mac_rx_trusted(const struct mip_mac *m, const struct mip_802154_hdr *h);
/* The next outgoing frame counter (0 without security). */
uint32_t mip_mac_sec_counter(const struct mip_mac *m);
/* A frame this MAC secured (as it went on air), back in plaintext, into
 * out (cap bytes): for observers of the node's own radio (the simulator's
 * frame classifier, a capture of what the node saw). A frame without the
 * security bit is copied as it is. Its length, 0 when it does not fit. */
size_t mip_mac_sec_plain(const struct mip_mac *m, const uint8_t *frame, size_t len,
                         uint8_t *out, size_t cap);

/* Queues a frame (no FCS, 3..MIP_MAC_FRAME_MAX bytes, an MHR that parses,
 * neither an ACK nor a MAC command frame: those are the MAC's own). The MAC writes its macDSN into byte 2 (the sequence
 * number), so the netif may leave it 0; retries keep that number. NOBUFS
 * when the queue is full (counted tx_queue_full), INVALID for a bad frame
 * (one whose security would take it past MIP_MAC_FRAME_MAX too: the MAC
 * secures, the owner never sets the security bit).
 * The frame is copied. Call mip_mac_poll() afterwards to start it. May be
 * called from the MAC's callbacks. */
mip_status mip_mac_send(struct mip_mac *m, const uint8_t *frame, size_t len, mip_utime_t now);
/* The same, for a frame whose channel access may not begin before gap_us
 * after the previous frame's outcome (RFC 8930 s.5: an inter-frame gap
 * between fragments, so that a fragment moves beyond the next hop and its
 * interference range before the next one shows up). The frames behind it
 * wait too (the queue is a FIFO). The frames a duty-cycling MAC puts
 * ahead of them wait for no gap; of those, a leaf's data requests (MAC
 * commands, every poll) restart none either. */
mip_status mip_mac_send_gap(struct mip_mac *m, const uint8_t *frame, size_t len,
                            uint16_t gap_us, mip_utime_t now);

/* From the radio: a frame with a good FCS arrived (no FCS in len); `now` is
 * the end of the frame (an ACK goes out turnaround_us later). */
void mip_mac_radio_rx(struct mip_mac *m, const uint8_t *frame, size_t len, mip_utime_t now);
/* From the radio: the transmission started by driver->transmit ended. A
 * call while the radio sends nothing is ignored. */
void mip_mac_radio_tx_done(struct mip_mac *m, mip_utime_t now);

/* Runs what is due at `now`; returns µs to the next deadline or
 * UINT32_MAX when idle (a duty-cycling RDC is never idle: its channel
 * checks are deadlines). Call it after every mip_mac_send, radio_rx and
 * radio_tx_done too: those report frames and outcomes through the
 * callbacks but never drive the radio (no transmit, CCA, on or off from
 * inside the radio's own upcalls); poll does, switching the radio on or off
 * as the RDC wants before it returns. Called from one of the MAC's
 * callbacks it does nothing and returns 0: the outer call goes on. */
uint32_t mip_mac_poll(struct mip_mac *m, mip_utime_t now);

/* The transmit function of a netif driver (netif.h) whose ctx is a
 * struct mip_mac: queues the frame with mip_mac_send at the MAC's latest
 * `now`. The owner builds the driver table (the mac floor sits below core
 * and does not include netif.h). */
mip_status mip_mac_netif_transmit(void *mac, const uint8_t *frame, size_t len);
/* The room function of that driver (netif.h): frames the queue takes now. */
size_t mip_mac_netif_room(void *mac);
/* Its transmit_gap function: mip_mac_send_gap at the MAC's latest `now`. */
mip_status mip_mac_netif_transmit_gap(void *mac, const uint8_t *frame, size_t len,
                                      uint16_t gap_us);

/* Sleepy leaves (rdc.h). The owner of a LEAF node says whether it expects
 * a reply now (TCPlp s.9; any transport: mip_stack_awaits_reply() is true
 * while TCP has unacknowledged data or CoAP a request outstanding); while it does, the
 * leaf polls every poll_fast_us, the next poll at most that far away.
 * Nothing happens on other kinds or with poll_fast_us 0. */
void mip_mac_expect_reply(struct mip_mac *m, bool expecting, mip_utime_t now);
/* The owner of a PARENT node adds a child (a sleepy leaf attaching): from
 * now on unicasts to `child` wait for its data requests. A full table
 * forgets its least recently heard child, an idle one first (counted
 * rdc_child_evicted, its held frames reported MIP_MAC_TX_NOACK). UNSUPPORTED
 * on other kinds, INVALID for a broadcast or absent address. Children are
 * also learned from their data requests, which never evict a settled child
 * (one added here, or heard polling twice; rdc.h). */
mip_status mip_mac_add_child(struct mip_mac *m, const struct mip_802154_addr *child,
                             mip_utime_t now);

uint32_t mip_mac_stat(const struct mip_mac *m, enum mip_mac_stat which);
const char *mip_mac_stat_name(enum mip_mac_stat which);  /* NULL out of range */

#endif
