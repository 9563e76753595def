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
 * (mip_mac_rdc_timer -> rdc->timer; channel checks, listening windows),
 * sees every frame but ACKs before the engine does (rdc->take: its own
 * control frames, which the engine then ignores) and hears of every frame
 * the radio delivered (rdc->rx). Control frames of its own (strobes, strobe
 * ACKs, probes) go out through one slot beside the ACK's (mip_mac_ctl ->
 * rdc->ctl_sent), whatever the engine's state; frames that need channel
 * access and retries (a leaf's data requests, a parent's held frames) go
 * into the queue ahead of the others (mip_mac_push_front).
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
/* What only some RDCs need from the engine, so a build without them
 * compiles none of it: control frames outside the queue (X-MAC, LPP),
 * frames of their own seen before the engine's filter (X-MAC, LPP, the
 * parent), queue surgery (leaf, parent), MAC commands that report no
 * outcome (the leaf's data requests). */
#define MIP_RDC_CTL    (MIP_RDC_HAS_XMAC || MIP_RDC_HAS_LPP)
#define MIP_RDC_TAKES  (MIP_RDC_HAS_XMAC || MIP_RDC_HAS_LPP || MIP_RDC_HAS_PARENT)
#define MIP_RDC_QUEUE  (MIP_RDC_HAS_LEAF || MIP_RDC_HAS_PARENT)

/* What rdc->rx is told about a frame the radio delivered. */
enum mip_rdc_rx {
    MIP_RDC_RX_OURS = 0,        /* a new data frame for us (unicast or broadcast) */
    MIP_RDC_RX_OTHER,           /* any frame not for us, or not a data frame */
    MIP_RDC_RX_ACK,             /* an ACK frame (ours or not) */
    MIP_RDC_RX_DUP              /* a data frame for us the duplicate filter
                                 * dropped (ACKed when it asked): a repeat
                                 * or a replay, which opens and extends
                                 * nothing */
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
    /* The ACK `h` for the head frame arrived, or (h NULL) the plain way
     * (mip_rdc_sent_plain) sent it without waiting for one; the engine then
     * finishes the frame with MIP_MAC_TX_OK. */
    void (*acked)(struct mip_mac *m, const struct mip_802154_hdr *h);
    /* Every parsed frame but ACKs, before the engine's filter: true when it
     * is the RDC's own (a strobe, a probe, a data request), which the
     * engine then neither acknowledges, counts nor passes up. */
    bool (*take)(struct mip_mac *m, const uint8_t *frame, size_t len, size_t hdr_len,
                 const struct mip_802154_hdr *h);
    /* The radio delivered a frame (after the engine handled it; h is NULL
     * for one that did not parse). Not called for frames `take` took. */
    void (*rx)(struct mip_mac *m, const struct mip_802154_hdr *h, enum mip_rdc_rx what);
    /* The RDC's own timer (mip_mac_rdc_timer) is due. */
    void (*timer)(struct mip_mac *m);
    /* Whether the radio should be on now. */
    bool (*radio_wanted)(const struct mip_mac *m);
    /* The control frame of mip_mac_ctl left the radio (or the radio
     * refused it). */
    void (*ctl_sent)(struct mip_mac *m);
};

/* Each RDC's table (getters, as for the protocols: no data symbols). */
const struct mip_rdc_ops *mip_rdc_nullrdc(void);
#if MIP_RDC_HAS_CONTIKIMAC
const struct mip_rdc_ops *mip_rdc_contikimac(void);
#endif
#if MIP_RDC_HAS_XMAC
const struct mip_rdc_ops *mip_rdc_xmac(void);
#endif
#if MIP_RDC_HAS_LPP
const struct mip_rdc_ops *mip_rdc_lpp(void);
#endif
#if MIP_RDC_HAS_LEAF
const struct mip_rdc_ops *mip_rdc_leaf(void);
#endif
#if MIP_RDC_HAS_PARENT
const struct mip_rdc_ops *mip_rdc_parent(void);
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
#if MIP_RDC_CTL
/* A control frame (len <= MIP_RDC_CTL_MAX, no FCS) sent `delay_us` from
 * now, or as soon as the radio is free after that, outside the queue and
 * its channel access; replaces one not yet sent. rdc->ctl_sent follows.
 * With link-layer security it is secured as it goes on air (a counter
 * above every frame sent before it); one that cannot be (counters
 * exhausted or not stored) is not sent (tx_sec_failed), as if the radio
 * refused it. */
void mip_mac_ctl(struct mip_mac *m, const uint8_t *frame, size_t len, uint32_t delay_us);
#endif
#if MIP_RDC_QUEUE
/* Puts a frame (copied, DSN as it is) at the front of the queue: first when
 * the MAC is idle, else right behind the frame on its way. NOBUFS when the
 * queue is full; INVALID for a bad length. */
mip_status mip_mac_push_front(struct mip_mac *m, const uint8_t *frame, size_t len);
/* The head frame leaves the queue without an outcome (the RDC keeps it and
 * reports it later with mip_mac_report); the MAC is idle again. */
void mip_mac_handoff(struct mip_mac *m);
/* The head frame back in plaintext when link-layer security secured it on
 * an earlier attempt (a frame the RDC keeps aside must not keep its
 * counter: it is secured afresh when it goes on air again). */
void mip_mac_head_plain(struct mip_mac *m);
/* Reports the outcome of a frame outside the queue, as mip_mac_finish does
 * for the head (counters, cb.tx_done). */
void mip_mac_report(struct mip_mac *m, const uint8_t *frame, size_t len,
                    enum mip_mac_tx_status st, uint8_t retries);
#endif
/* h names us (our short or extended address, our PAN) as its receiver;
 * broadcast does not count. */
bool mip_rdc_to_us(const struct mip_mac *m, const struct mip_802154_hdr *h);
/* The frame's destination is `a` (an 802.15.4 MHR that parses). */
bool mip_mac_frame_to(const uint8_t *frame, size_t len, const struct mip_802154_addr *a);
/* Our own address for frames we build: the short one unless it is 0xFFFE
 * or 0xFFFF (802.15.4: "use the extended address"). */
void mip_mac_own_addr(const struct mip_mac *m, struct mip_802154_addr *out);
/* Writes an intra-PAN frame of `type` (data or command) from us to dst
 * with `payload` into out (MIP_RDC_CTL_MAX bytes); its length, 0 when it
 * does not fit. */
size_t mip_rdc_build(const struct mip_mac *m, uint8_t type, bool ack_request,
                     const struct mip_802154_addr *dst, uint8_t seq,
                     const uint8_t *payload, size_t plen, uint8_t *out);
/* The frame (an MHR of hdr_len bytes) is an RDC control frame of ours:
 * a data frame without the ACK request bit whose payload is exactly
 * { 0x00, type }; its type or -1. */
int mip_rdc_ctl_type(const uint8_t *frame, size_t len, size_t hdr_len,
                     const struct mip_802154_hdr *h);
/* Sets the frame pending bit of the head frame when the next queued frame
 * is a unicast asking for an ACK to the same receiver `dst` (a burst),
 * unless our burst to dst (b) would then outlast the receiver's
 * burst_max_us. */
void mip_rdc_mark_burst(struct mip_mac *m, const struct mip_rdc_burst *b,
                        const struct mip_802154_addr *dst);
#endif
#if MIP_RDC_DUTY_CYCLING
/* Moves *cycle to the start of the interval of `period` holding now. */
void mip_rdc_cycle_now(mip_utime_t *cycle, uint32_t period, mip_utime_t now);
/* t's offset in its interval of the grid starting at cycle: 0..period-1. */
uint32_t mip_rdc_offset(mip_utime_t t, mip_utime_t cycle, uint32_t period);
/* The entry of a phase table (MIP_RDC_PHASES) for `a`, or NULL. */
struct mip_rdc_phase *mip_rdc_phase_find(struct mip_rdc_phase *tab,
                                         const struct mip_802154_addr *a);
/* The entry for `a`, else a free one, else the least recently used (counted
 * rdc_phase_evicted), set to `a` and valid; the caller fills the rest. */
struct mip_rdc_phase *mip_rdc_phase_get(struct mip_mac *m, struct mip_rdc_phase *tab,
                                        const struct mip_802154_addr *a);
#endif
/* NullRDC's rows for hooks an RDC does not need. */
bool mip_rdc_take_none(struct mip_mac *m, const uint8_t *frame, size_t len, size_t hdr_len,
                       const struct mip_802154_hdr *h);
void mip_rdc_nothing(struct mip_mac *m);
/* Two 802.15.4 addresses are the same (mode and value). */
bool mip_mac_addr_equal(const struct mip_802154_addr *a, const struct mip_802154_addr *b);
/* An 802.15.4 ACK for `seq` turnaround_us from now, with the frame pending
 * bit as given (the engine's own ACKs carry it clear). */
void mip_mac_ack(struct mip_mac *m, uint8_t seq, bool frame_pending);
/* NullRDC's `sent`, for RDCs that send some attempts the plain way (its
 * `send` is mip_mac_transmit, its `ack_timeout` mip_mac_noack). */
void mip_rdc_sent_plain(struct mip_mac *m);


/* Small helpers every RDC uses. */
static inline void mip_rdc_count(struct mip_mac *m, enum mip_mac_stat s)
{
    m->stats[s]++;
}

static inline const struct mip_rdc_config *mip_rdc_par(const struct mip_mac *m)
{
    return &m->cfg.rdc;
}

/* Airtime of a frame given without its FCS (the radio adds it). */
static inline uint32_t mip_rdc_airtime(const struct mip_radio_timing *t, size_t len_no_fcs)
{
    return mip_radio_airtime(t, len_no_fcs + MIP_802154_FCS_LEN);
}

/* Helpers two or three duty-cycling RDCs share. The small ones are
 * inline, so that a build with one RDC (MIP_CONF_RDC) pays no call for
 * them; the larger ones are functions in rdc.c. */
#define MIP_RDC_FRAME_PENDING 0x10u     /* in the frame control field's first byte */
#if MIP_RDC_DUTY_CYCLING
/* The adaptive interval's cap (adapt_max_us) is 0 (none) or lies between
 * the shortest interval and MIP_RDC_TIME_MAX: MIP_RDC_OK, else
 * MIP_RDC_BAD_ADAPT_MAX. */
static inline enum mip_rdc_check mip_rdc_check_adapt(const struct mip_rdc_config *p,
                                                     uint32_t shortest_us)
{
    if (p->adapt_max_us != 0u &&
        (p->adapt_max_us < shortest_us || p->adapt_max_us > MIP_RDC_TIME_MAX))
        return MIP_RDC_BAD_ADAPT_MAX;
    return MIP_RDC_OK;
}
#endif
#if MIP_RDC_HAS_CONTIKIMAC || MIP_RDC_HAS_XMAC
/* Starts grid g (ContikiMAC, X-MAC): its period from the parameters, the
 * next wake-up one interval on, the first a random time into the first
 * interval; returns the delay to that one. */
uint32_t mip_rdc_grid_start(struct mip_mac *m, struct mip_rdc_grid *g);

/* The delay from now to g's next wake-up (g->skip points after the start
 * of the current interval). */
static inline uint32_t mip_rdc_grid_next(struct mip_mac *m, struct mip_rdc_grid *g)
{
    mip_rdc_cycle_now(&g->cycle, g->period, m->now);
    return g->cycle + g->skip * g->period - m->now;
}

/* At a wake-up: g's current interval, and how many points on the next one
 * is, from the adaptive interval `a`. */
void mip_rdc_grid_adapt(struct mip_mac *m, struct mip_rdc_grid *g,
                        struct mip_rdc_adapt *a);
#endif
/* The RDCs that receive bursts (the parent is always on). */
#define MIP_RDC_BURSTS (MIP_RDC_HAS_CONTIKIMAC || MIP_RDC_HAS_XMAC || MIP_RDC_HAS_LPP || \
                        MIP_RDC_HAS_LEAF)
#if MIP_RDC_BURSTS
/* rdc->rx's question for a frame h (what) with the frame pending bit: may
 * it hold us awake for the next frame? Only a new frame (OURS, not DUP) to
 * our own address (not broadcast) that mip_mac_rx_trusted() accepts, and
 * only within its sender's budget (rdc.h: burst_max_us, burst_budget_us
 * per burst_window_us, MIP_RDC_BURSTERS senders at a time). Returns how
 * long to stay awake from now, at most wait_us; 0: not at all (a refused
 * pending bit counted rdc_burst_refused). tab is the RDC's table. */
uint32_t mip_rdc_burst_grant(struct mip_mac *m, struct mip_rdc_earned *tab,
                             const struct mip_802154_hdr *h, enum mip_rdc_rx what,
                             uint32_t wait_us);
/* Spends up to wait_us of src's budget (a strobe for us, a burst's next
 * frame): the time granted from now, 0 when none is left. */
uint32_t mip_rdc_budget_take(struct mip_mac *m, struct mip_rdc_earned *tab,
                             const struct mip_802154_addr *src, uint32_t wait_us);
/* src acknowledged a frame of ours during its burst: the burst's length
 * counts from now (the leaf, whose parent's burst goes both ways). */
void mip_rdc_burst_renew(struct mip_mac *m, struct mip_rdc_earned *tab,
                         const struct mip_802154_addr *src);
/* Forgets entries whose window has ended, so that no stamp in the table
 * outlives half the µs clock's wrap (called at every wake-up, at most
 * MIP_RDC_TIME_MAX apart). */
void mip_rdc_earned_age(struct mip_mac *m, struct mip_rdc_earned *tab);
/* The burst parameters (rdc.h) are usable: MIP_RDC_OK or the one to blame. */
enum mip_rdc_check mip_rdc_check_burst(const struct mip_rdc_config *p);

#endif
#if MIP_RDC_HAS_CONTIKIMAC || MIP_RDC_HAS_XMAC || MIP_RDC_HAS_LPP
/* rdc->send's first step: the head frame's receiver into *dst. False, the
 * frame finished as MIP_MAC_TX_RADIO_ERROR, when its MHR does not parse
 * (mip_mac_send checked that it does). */
bool mip_rdc_head_dst(struct mip_mac *m, struct mip_802154_addr *dst);

/* No address (an implicit broadcast) or the short broadcast address. */
static inline bool mip_rdc_is_broadcast(const struct mip_802154_addr *a)
{
    return a->mode == MIP_802154_ADDR_NONE ||
           (a->mode == MIP_802154_ADDR_SHORT && a->short_addr == MIP_802154_BROADCAST);
}

/* Our burst keeps `dst` awake now: the last frame ACKed by it had the
 * pending bit, and burst_wait_us has not passed since. */
static inline bool mip_rdc_burst_open(const struct mip_mac *m, const struct mip_rdc_burst *b,
                                      const struct mip_802154_addr *dst)
{
    return b->on && mip_mac_addr_equal(&b->dst, dst) && mip_utime_before(m->now, b->until);
}

/* rdc->acked's common part: the head frame to `dst` was ACKed. Our own
 * interval `a` goes back to the shortest (a reply is likely), and with
 * the frame's pending bit set dst stays awake burst_wait_us for the next
 * one (`b`). */
void mip_rdc_acked(struct mip_mac *m, struct mip_rdc_adapt *a,
                   struct mip_rdc_burst *b, const struct mip_802154_addr *dst);
#endif

#endif
