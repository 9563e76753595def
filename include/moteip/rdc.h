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
 *   XMAC        Buettner et al., "X-MAC", SenSys 2006, as Contiki 2.5 runs
 *               it: short strobes naming the receiver, an early strobe ACK,
 *               then the data frame; listen-before-strobe (below).
 *   LPP         Low Power Probing (Musaloiu-E. et al., Koala, IPSN 2008) as
 *               Contiki 2.5 runs it: receivers announce their wake-ups with
 *               probes; a sender listens for its receiver's probe (below).
 *   LEAF,       802.15.4 indirect transmission as Thread's sleepy end
 *   PARENT      devices use it (TCPlp s.9, Appendix C): the leaf sleeps and
 *               polls its always-on parent with data requests; the parent
 *               holds the leaf's frames until it polls (below).
 *
 * Every duty-cycled kind can stretch its interval while nothing arrives
 * (adapt_max_us, TCPlp Appendix C, below).
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
 *   without a frame for us. A listen whose channel paused (a clear sample)
 *   and is busy again when listen_max_us is up stays on once for one
 *   longest frame: a copy under way after copies lost to collisions is
 *   received rather than cut off (energy that never pauses, noise, ends
 *   on time; docs/MAC.md "Denial of sleep").
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
 *   a burst holds its own sending until the burst ends. Bursts are bounded
 *   and earned (every duty-cycled kind, docs/MAC.md "Denial of sleep"):
 *   only a new (not a duplicate) unicast to us that mip_mac_rx_trusted()
 *   accepts opens or extends one, for at most burst_max_us, within its
 *   sender's budget; the sender sends the frame that would outlast
 *   burst_max_us without the bit.
 *
 * ContikiMAC adds no header and no frame of its own: its frames are the
 * data frames and ACKs of 802.15.4, with the frame pending bit for bursts.
 *
 * X-MAC (Contiki 2.5's xmac.c defaults; T as above):
 *
 *   Wake-ups. Every T the radio listens for on_us (1/160 s = 6250 µs):
 *     idle duty cycle = on_us / T (6250 / 125000 = 5 %).
 *   A strobe for someone else ends the wake-up at once; one for us is
 *   answered with a strobe ACK strobe_ack_delay_us (the receiver's
 *   processing, 1 ms) plus turnaround_us after it, and the radio stays on
 *   until the data frame has begun (the strobe ACK, two turnarounds and a
 *   CCA later; Contiki waited two intervals, which let a strobe every
 *   200 ms hold a receiver awake); the data frame (its ACK sent) ends it,
 *   unless it carries the frame pending bit: then the radio stays on
 *   burst_wait_us for the next one. A strobe's wait comes out of the
 *   strober's budget (burst_budget_us, below).
 *   A wake-up that ends with the channel busy listens one longest frame
 *   longer, so it never cuts a frame off.
 *   Sending. Listen-before-strobe: the radio listens strobe_wait_us (7/8 of
 *   on_us) first; any frame heard but a strobe ACK for us is a collision
 *   (the attempt fails, the protocol retries). Then a strobe every
 *   strobe_wait_us: the strobe, the radio off strobe_ack_delay_us, then
 *   listening for the strobe ACK. After it, the data frame goes out (a
 *   turnaround later) and, when it asks, waits for its 802.15.4 ACK. No
 *   strobe ACK within strobe time = T_max + 3 on_us (Contiki's
 *   4 on + off) ends the attempt without one. A receiver learned from its
 *   strobe ACK (phase_lock, Contiki's encounter optimisation) is strobed
 *   from 2 on_us before its next expected wake-up.
 *   Broadcast (as Contiki sends it): the data frame itself every
 *   strobe_wait_us for the strobe time, the radio off between copies, then
 *   once more.
 *
 * LPP (Contiki 2.5's lpp.c defaults):
 *
 *   Probes. Every T the receiver turns its radio on, reads the channel after
 *   cca_on_us and, when it is clear, sends a probe (a turnaround later) and
 *   listens listen_us (1/128 s = 7812 µs) for a frame:
 *     idle duty cycle = (cca_on_us + turnaround_us + probe airtime
 *                        + listen_us) / T   (8804 / 125000 = 7.04 %).
 *   A busy channel skips the probe and moves the next wake-up earlier by a
 *   random share of half the off time (Contiki's off_time_adjustment).
 *   Each interval varies by a random +- probe_jitter_us / 2 (ours: exact
 *   clocks would keep two hidden probers colliding for ever).
 *   A frame for us ends the listen (its ACK sent), unless it carries the
 *   frame pending bit: then the radio stays on burst_wait_us.
 *   Sending. The sender listens for its receiver's probe, at most 1.5 T_max
 *   (Contiki's UNICAST_TIMEOUT); after it waits a random 0..probe_backoff_us,
 *   reads the channel (cca_us) and sends a turnaround later; the receiver
 *   is still listening. A busy channel waits for the next probe. A
 *   broadcast is sent after every probe heard for T_max.
 *
 * Sleepy leaves (802.15.4 indirect transmission, Thread's sleepy end
 * device; TCPlp s.9 and Appendix C):
 *
 *   LEAF    the radio is off but to send (CCA, frame, ACK). Every poll_us
 *           (240 s, OpenThread's default) it queues a data request (an
 *           802.15.4 MAC command, ahead of its other frames) to its parent;
 *           an ACK with the frame pending bit keeps the radio on wait_us
 *           (macMaxFrameTotalWaitTime, 31776 µs with 802.15.4's defaults)
 *           for the frame, and a new frame from the parent with the pending
 *           bit for the next (within burst_max_us, renewed by every ACK the
 *           parent gives the leaf, and the parent's budget; a burst cut
 *           short ends in a data request).
 *           While the owner says a reply is expected
 *           (mip_mac_expect_reply, e.g. mip_stack_awaits_reply()), it
 *           polls every poll_fast_us (100 ms, TCPlp s.9) instead.
 *   PARENT  the radio is always on. A unicast to one of its children (added
 *           with mip_mac_add_child, or learned from its data requests) is
 *           held in a table of MIP_RDC_INDIRECT frames until the child
 *           polls; the ACK of the data request carries the frame pending
 *           bit then, and the oldest held frame for that child goes ahead of
 *           the queue (with the pending bit set when more wait). A child
 *           that has not polled for child_timeout_us is forgotten, and so
 *           is a frame held that long (both reported MIP_MAC_TX_NOACK). A
 *           full table evicts the oldest frame of the child most over its
 *           share (MIP_RDC_INDIRECT / children), else of the new frame's
 *           own child, never of a child being served; a frame sent back to
 *           the table after a failed attempt more than max_retries times is
 *           dropped. A data request from a new node never evicts a settled
 *           child (added by the owner, or heard polling twice).
 *
 * Adaptive interval (TCPlp Appendix C), for every duty-cycled kind when
 * adapt_max_us is not 0: the interval starts at the kind's own (T, or
 * poll_us for a leaf); each interval in which no frame for us arrived
 * doubles it, up to adapt_max_us (rounded down to a multiple of the
 * shortest); a frame for us brings it back to the shortest. It needs no
 * knowledge of TCP. Wake-ups stay on the grid of the shortest interval, so
 * ContikiMAC's and X-MAC's learned phases stay valid; senders strobe (or
 * wait for a probe) long enough for the longest interval, T_max.
 *
 * Frames of our own: X-MAC's strobe and strobe ACK and LPP's probe are
 * 802.15.4 data frames without the ACK request bit whose 2-byte payload is
 * { 0x00, type } (0x00 is a 6LoWPAN NALP dispatch, "not a LoWPAN frame"):
 * type 0x10 strobe (to the receiver), 0x13 strobe ACK (to the strober),
 * 0x20 probe (to the broadcast address, from the prober). The data request
 * is the 802.15.4 MAC command 0x04 (docs/MAC.md).
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
#define MIP_RDC_HAS_XMAC       ((MIP_CONF_RDC & 4) != 0)
#define MIP_RDC_HAS_LPP        ((MIP_CONF_RDC & 8) != 0)
#define MIP_RDC_HAS_LEAF       ((MIP_CONF_RDC & 16) != 0)
#define MIP_RDC_HAS_PARENT     ((MIP_CONF_RDC & 32) != 0)

/* Neighbours whose wake-up phase ContikiMAC and X-MAC remember (24 bytes
 * each). */
#ifndef MIP_RDC_PHASES
#define MIP_RDC_PHASES MIP_PROFILE_DEFAULT(4u, 8u)
#endif
/* A parent's children (24 bytes each) and the frames it holds for them
 * (a frame of MIP_RADIO_FRAME_MAX bytes + 12 each). The full profile holds
 * a TCPlp window for a child: six 408-byte segments of five frames (TCPlp
 * Appendix C's buffers), 30 frames, + 2. With 8, a downlink window did not
 * fit, the evicted fragments cost their datagrams, and TCP to a leaf ran at
 * 7.8 kb/s with 56 RTOs per 50 KB (80 kb/s and 0.4 with 32; docs/results.md,
 * tcplp-dutycycle). */
#ifndef MIP_RDC_CHILDREN
#define MIP_RDC_CHILDREN MIP_PROFILE_DEFAULT(2u, 8u)
#endif
#ifndef MIP_RDC_INDIRECT
#define MIP_RDC_INDIRECT MIP_PROFILE_DEFAULT(2u, 32u)
#endif
/* Longest control frame an RDC sends outside the queue (a strobe with two
 * extended addresses: MHR 21 + 2). */
#define MIP_RDC_CTL_MAX 24u

/* Indexes of the RDC table (src/mac/mac.c); values are stable. */
enum mip_rdc_kind {
    MIP_RDC_NULLRDC = 0,
    MIP_RDC_CONTIKIMAC = 1,
    MIP_RDC_XMAC = 2,
    MIP_RDC_LPP = 3,
    MIP_RDC_LEAF = 4,
    MIP_RDC_PARENT = 5
};

/* Per-node RDC parameters; mip_rdc_config_default fills the defaults named
 * here, whatever the kind. Times in µs. */
struct mip_rdc_held;

struct mip_rdc_config {
    uint8_t  kind;              /* enum mip_rdc_kind (NULLRDC) */
    /* ContikiMAC, X-MAC and LPP: wake-ups per second, 1..1000 (8, Contiki
     * 2.5's NETSTACK_RDC_CHANNEL_CHECK_RATE; T = 1e6 / rate) */
    uint16_t check_rate_hz;
    /* ContikiMAC. Defaults: the report's 802.15.4 timing and Contiki 2.5. */
    uint8_t  cca_count;         /* CCAs per channel check, 1..8 (2) */
    uint16_t cca_on_us;         /* Tr: radio on per CCA before the reading
                                 * (192); LPP: before the probe's CCA */
    uint16_t cca_gap_us;        /* Tc: radio off between CCAs (500) */
    uint16_t copy_gap_us;       /* Ti: between copies of a frame (400). The
                                 * report's constraints: turnaround_us plus
                                 * the PHY header's airtime (an ACK's start
                                 * detected) < Ti < Tc */
    uint16_t listen_max_us;     /* longest listen after a busy CCA without a
                                 * frame for us (12500, Contiki's 1/80 s) */
    uint16_t burst_wait_us;     /* awake for the next frame of a burst (31250,
                                 * Contiki's 1/32 s); X-MAC and LPP too */
    /* Receive bursts are bounded and earned (docs/MAC.md "Denial of
     * sleep"), ContikiMAC, X-MAC, LPP and the leaf: only a new frame to our
     * own address that mip_mac_rx_trusted() accepts opens or extends one;
     * a burst lasts at most burst_max_us from its first frame; and a
     * neighbour pays, out of burst_budget_us per burst_window_us, for the
     * time it holds us awake without sending (from one of its frames to the
     * next, less the 7360 µs a frame of a dense burst takes; an X-MAC
     * strobe's wait in full). Defaults: one TCPlp window (six 5-frame
     * segments, TCPlp Appendix C) of 30 frames at 7360 µs each (CSMA-CA's
     * first backoff window 2240 + CCA 128 + turnaround 192 + a 127-byte
     * frame 4256 + turnaround 192 + ACK 352) and one burst_wait_us after
     * the last: 252 ms; and a wait that no frame ends for each of the
     * window's six segments, 187.5 ms, a second (TCPlp's downlink to a
     * leaf, `moteip reproduce tcplp-dutycycle`, spends up to ~150 ms a
     * second so: the parent announces frames it then holds back). */
    uint32_t burst_max_us;      /* 252000; 1 .. MIP_RDC_TIME_MAX */
    uint32_t burst_budget_us;   /* 187500; 0 .. burst_window_us */
    uint32_t burst_window_us;   /* 1000000; 1 .. MIP_RDC_BURST_WINDOW_MAX */
    bool     phase_lock;        /* learn and use neighbours' phases (true);
                                 * X-MAC's encounter optimisation too */
    uint16_t phase_strobe_us;   /* longest train to a phase-locked or awake
                                 * receiver (16667, Contiki's 1/60 s) */
    uint16_t phase_guard_us;    /* start that much before the learned phase,
                                 * for clock drift (0: the simulator's clocks
                                 * do not drift; a device sets about 2 x its
                                 * drift x the time between two sends) */
    uint8_t  phase_max_misses;  /* misses in a row that drop a phase, 1..255
                                 * (16, Contiki's MAX_NOACKS) */
    /* X-MAC (Contiki 2.5 xmac.c) */
    uint16_t on_us;             /* awake per wake-up (6250: DEFAULT_ON_TIME,
                                 * 1/160 s) */
    uint16_t strobe_wait_us;    /* one strobe to the next, and the listen
                                 * before the first (5468: 7/8 on_us) */
    uint16_t strobe_ack_delay_us; /* the strober's radio off after a strobe,
                                 * and the receiver's time to answer it
                                 * (1000: WAIT_TIME_BEFORE_STROBE_ACK) */
    /* LPP (Contiki 2.5 lpp.c) */
    uint16_t listen_us;         /* listen after a probe (7812: LISTEN_TIME,
                                 * 1/128 s) */
    uint16_t probe_backoff_us;  /* a sender waits a random 0..this after the
                                 * probe (2240: 802.15.4's first backoff
                                 * window, 7 x 320) */
    uint16_t probe_jitter_us;   /* each interval T +- this / 2, at random
                                 * (7812: one listen; 0 = Contiki's exact
                                 * intervals, which leave two hidden probers
                                 * in step for ever without clock drift) */
    /* Sleepy leaf */
    uint16_t parent;            /* the parent's short address (0xFFFF: none,
                                 * refused) */
    uint16_t wait_us;           /* listen for a frame after an ACK or frame
                                 * with the pending bit (31776:
                                 * macMaxFrameTotalWaitTime of 802.15.4-2006
                                 * with its default backoffs, 1986 symbols) */
    uint32_t poll_us;           /* data request interval (240000000: 240 s,
                                 * OpenThread's default) */
    uint32_t poll_fast_us;      /* interval while a reply is expected
                                 * (100000, TCPlp s.9; 0: never faster) */
    /* Parent */
    uint32_t child_timeout_us;  /* forget a child silent this long, drop a
                                 * frame held this long (480000000: two
                                 * default poll intervals) */
    /* With MIP_BUFS_OWN 0 (config.h): the table of MIP_RDC_INDIRECT held
     * frames, the caller's, living as long as the MAC (init clears it);
     * only a parent needs one (mip_mac_init: MIP_ERR_INVALID without).
     * Unused with MIP_BUFS_OWN 1, where the MAC holds its own. */
    struct mip_rdc_held *held;
    /* Every duty-cycled kind: the longest interval when adaptive, >= the
     * kind's own interval (0: fixed interval). TCPlp Appendix C. */
    uint32_t adapt_max_us;
};

/* Longest time any of the above may span (deadlines are compared modulo
 * 2^32 µs, so each must lie within 2^31 µs). */
#define MIP_RDC_TIME_MAX 1800000000u
/* Longest burst_window_us: a neighbour's entry is aged at wake-ups, at
 * most MIP_RDC_TIME_MAX apart, once its window is over, so its stamps are
 * at most this + MIP_RDC_TIME_MAX old (35 min) when compared: within half
 * the µs clock's wrap (35.8 min). */
#define MIP_RDC_BURST_WINDOW_MAX 300000000u

/* One remembered neighbour. `offset` is the instant, µs after the start of
 * our own wake-up interval, at which a first copy reaches it (ContikiMAC),
 * or at which it was last found awake (X-MAC). */
struct mip_rdc_phase {
    struct mip_802154_addr addr;
    uint32_t offset;
    uint32_t used;              /* LRU stamp */
    uint8_t  misses;
    uint8_t  valid;
};

/* The adaptive interval (rdc.c): `level` doublings of the shortest. */
struct mip_rdc_adapt {
    uint8_t  level;
    bool     heard;             /* a frame for us since the last wake-up */
};

/* Neighbours that may hold a receiver awake (bursts, X-MAC strobes for
 * us) and what each used of its budget (rdc.c, mip_rdc_burst_grant). A
 * neighbour takes a free entry or one whose window has ended, never one
 * still counting: a full table refuses newcomers until a window ends, so
 * at most MIP_RDC_BURSTERS budgets run at once (36 bytes each). */
#ifndef MIP_RDC_BURSTERS
#define MIP_RDC_BURSTERS 2u
#endif

struct mip_rdc_earned {
    struct mip_802154_addr src;
    mip_utime_t window;         /* start of its budget window */
    mip_utime_t start;          /* start of its current burst */
    mip_utime_t until;          /* awake for it until then */
    mip_utime_t last;           /* its last frame (or wait) that we took */
    uint32_t used_us;           /* budget spent in this window */
    uint8_t  valid;
};

/* A wake-up grid (ContikiMAC, X-MAC): points `period` apart from `cycle`,
 * the start of the current interval; the next wake-up is `skip` points on
 * (the adaptive interval). */
struct mip_rdc_grid {
    uint32_t period;            /* T = 1e6 / check_rate_hz */
    uint32_t skip;              /* intervals to the next wake-up (adaptive) */
    mip_utime_t cycle;          /* start of the current wake-up interval */
};

/* What a sender keeps about a receiver it may send a burst to: dst stays
 * awake until `until` when `on` (ContikiMAC, X-MAC, LPP). */
struct mip_rdc_burst {
    struct mip_802154_addr dst;
    mip_utime_t start;          /* its first frame's ACK (burst_max_us) */
    mip_utime_t until;
    bool     on;
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
    bool     paused;            /* this listen saw a clear sample */
    bool     extended;          /* this listen was stretched for a frame */
    struct mip_rdc_grid grid;   /* the checks' */
    mip_utime_t since;          /* listening since / burst received until */
    mip_utime_t train;          /* start of the current train of copies */
    mip_utime_t copy_start;     /* start of the latest copy */
    mip_utime_t copy_end;       /* end of the latest copy */
    struct mip_802154_addr dst; /* receiver of the current attempt */
    struct mip_rdc_burst burst;
    struct mip_rdc_adapt adapt;
    uint32_t lru;               /* LRU clock of the phase table */
    struct mip_rdc_phase phase[MIP_RDC_PHASES];
    struct mip_rdc_earned earned[MIP_RDC_BURSTERS];
};

/* X-MAC's state (internal: src/mac/xmac.c). */
struct mip_xmac {
    uint8_t  rx;                /* receiver: sleep, on, wait for data, burst */
    uint8_t  tx;                /* sender: its step in state RDC */
    bool     radio;             /* the sender listens */
    bool     extended;          /* this wake-up was stretched for a frame */
    uint16_t strobes;           /* strobes or copies of the current attempt */
    struct mip_rdc_grid grid;   /* the wake-ups' */
    mip_utime_t until;          /* end of the receiver's current listen */
    mip_utime_t t0;             /* start of the current attempt's strobing */
    mip_utime_t strobe_at;      /* start of the latest strobe or copy */
    struct mip_802154_addr dst; /* receiver of the current attempt */
    struct mip_rdc_burst burst;
    struct mip_rdc_adapt adapt;
    uint32_t lru;
    struct mip_rdc_phase phase[MIP_RDC_PHASES];
    struct mip_rdc_earned earned[MIP_RDC_BURSTERS];
};

/* LPP's state (internal: src/mac/lpp.c). */
struct mip_lpp {
    uint8_t  rx;                /* receiver: sleep, CCA, turnaround, probe, listen, burst */
    uint8_t  tx;                /* sender: its step in state RDC */
    bool     radio;             /* the sender listens for probes */
    bool     extended;
    bool     bcast;             /* the current attempt is a broadcast */
    uint16_t copies;            /* frames sent in the current attempt */
    uint32_t period;            /* T */
    uint32_t iv;                /* this wake-up to the next (adaptive) */
    uint32_t adjust;            /* the next wake-up that much earlier */
    mip_utime_t wake;           /* the next (or current) wake-up */
    mip_utime_t until;          /* end of the receiver's current listen */
    mip_utime_t t0;             /* start of the current attempt */
    struct mip_802154_addr dst;
    struct mip_rdc_burst burst;
    struct mip_rdc_adapt adapt;
    struct mip_rdc_earned earned[MIP_RDC_BURSTERS];
};

/* A sleepy leaf's state (internal: src/mac/leaf.c). */
struct mip_leaf {
    bool     waiting;           /* listening for a frame from the parent */
    bool     got;               /* a frame came since the last poll */
    bool     expecting;         /* the owner expects a reply (fast polls) */
    mip_utime_t poll_due;       /* the next data request */
    mip_utime_t until;          /* end of the current wait */
    struct mip_rdc_adapt adapt;
    struct mip_rdc_earned earned[MIP_RDC_BURSTERS];
};

/* A parent's child and a frame held for one (internal: src/mac/parent.c). */
struct mip_rdc_child {
    struct mip_802154_addr addr;
    mip_utime_t seen;           /* its last data request (or its adding) */
    mip_utime_t awake_until;    /* it listens for our frames until then */
    uint8_t  valid;
    uint8_t  out;               /* a held frame of it went to the queue ... */
    uint8_t  out_seq;           /* ... with this DSN ... */
    uint8_t  out_returns;       /* ... sent back this often before */
    uint8_t  settled;           /* added by the owner, or polled twice */
};

struct mip_rdc_held {
    uint8_t  used;
    uint8_t  child;             /* index into children[] */
    uint8_t  returns;           /* times sent back here after a failed attempt */
    uint8_t  len;
    mip_utime_t since;          /* held since */
    uint32_t order;             /* arrival stamp: oldest first */
    uint8_t  data[MIP_RADIO_FRAME_MAX];
};

struct mip_parent {
    uint32_t order;
    struct mip_rdc_child child[MIP_RDC_CHILDREN];
#if MIP_BUFS_OWN
    struct mip_rdc_held held[MIP_RDC_INDIRECT];
#else
    struct mip_rdc_held *held;  /* cfg.rdc.held */
#endif
};

/* Every RDC's state, in struct mip_mac; one node runs one RDC at a time. */
union mip_rdc_state {
    uint8_t none;
#if MIP_RDC_HAS_CONTIKIMAC
    struct mip_contikimac cm;
#endif
#if MIP_RDC_HAS_XMAC
    struct mip_xmac xm;
#endif
#if MIP_RDC_HAS_LPP
    struct mip_lpp lpp;
#endif
#if MIP_RDC_HAS_LEAF
    struct mip_leaf leaf;
#endif
#if MIP_RDC_HAS_PARENT
    struct mip_parent parent;
#endif
};

/* The parameter a configuration breaks (mip_mac_rdc_check), named after its
 * field of struct mip_rdc_config; MIP_RDC_OK when it is usable. */
enum mip_rdc_check {
    MIP_RDC_OK = 0,
    MIP_RDC_BAD_KIND,               /* unknown, or left out of this build */
    MIP_RDC_BAD_CHECK_RATE,         /* 1..1000, and a wake-up fits an interval */
    MIP_RDC_BAD_CCA_COUNT,          /* 1..8 */
    MIP_RDC_BAD_CCA_ON,             /* > 0 */
    MIP_RDC_BAD_COPY_GAP,           /* turnaround + PHY header < Ti < Tc */
    MIP_RDC_BAD_LISTEN_MAX,         /* > 0 */
    MIP_RDC_BAD_BURST_WAIT,         /* > 0 */
    MIP_RDC_BAD_PHASE_STROBE,       /* > 0 */
    MIP_RDC_BAD_PHASE_MISSES,       /* > 0 */
    MIP_RDC_BAD_ON,                 /* X-MAC: a whole strobe fits one wake-up
                                     * after strobe_wait_us, and on_us < T */
    MIP_RDC_BAD_STROBE_WAIT,        /* X-MAC: a strobe, the ACK delay, a
                                     * turnaround and a strobe ACK fit it */
    MIP_RDC_BAD_STROBE_ACK_DELAY,   /* X-MAC: <= 10000 */
    MIP_RDC_BAD_LISTEN,             /* LPP: backoff + CCA + turnaround < it < T */
    MIP_RDC_BAD_PROBE_BACKOFF,      /* LPP: <= 10000 */
    MIP_RDC_BAD_PROBE_JITTER,       /* LPP: a wake-up + half of it < T */
    MIP_RDC_BAD_PARENT,             /* leaf: a unicast short address */
    MIP_RDC_BAD_POLL,               /* leaf: 1 ms .. MIP_RDC_TIME_MAX */
    MIP_RDC_BAD_POLL_FAST,          /* leaf: 0, or 1 ms .. MIP_RDC_TIME_MAX */
    MIP_RDC_BAD_WAIT,               /* leaf: > 0 */
    MIP_RDC_BAD_CHILD_TIMEOUT,      /* parent: 1 ms .. MIP_RDC_TIME_MAX */
    MIP_RDC_BAD_ADAPT_MAX,          /* 0, or the kind's interval .. MIP_RDC_TIME_MAX */
    MIP_RDC_BAD_PROTOCOL,           /* leaf: under MIP_MAC_CSMA_CA (it reads the
                                     * pending bit of its data requests' ACKs) */
    MIP_RDC_BAD_BURST_MAX,          /* 1 .. MIP_RDC_TIME_MAX */
    MIP_RDC_BAD_BURST_BUDGET        /* at most burst_window_us, a window of
                                     * 1 .. MIP_RDC_BURST_WINDOW_MAX */
};

/* The defaults of every RDC's parameters, with `kind` chosen (a kind this
 * build lacks keeps its number; init refuses it). */
void mip_rdc_config_default(struct mip_rdc_config *c, uint8_t kind);

/* The wake-up interval T = 1e6 / check_rate_hz µs (0 for rate 0). */
uint32_t mip_rdc_period_us(const struct mip_rdc_config *c);

/* Adaptive interval (TCPlp Appendix C). The interval after this wake-up,
 * in µs, for a kind whose shortest interval is base_us: the shortest again
 * when a frame came since the last call, else twice the last one, at most
 * mip_rdc_adapt_longest(); base_us when max_us is 0. */
uint32_t mip_rdc_adapt_next(struct mip_rdc_adapt *a, uint32_t base_us, uint32_t max_us);
/* A frame for us arrived: the next interval is the shortest. */
void mip_rdc_adapt_heard(struct mip_rdc_adapt *a);
/* The longest interval: max_us rounded down to a multiple of base_us (base_us
 * when max_us is 0 or below it). */
uint32_t mip_rdc_adapt_longest(uint32_t base_us, uint32_t max_us);

#endif
