/*
 * The radio driver interface: what a MAC needs from a radio chip, so a real
 * driver (CC2420, AT86RF233) and the simulator's radio are interchangeable.
 *
 * Time in the MAC floor is microseconds (mip_utime_t, wraps at 2^32 µs =
 * 71.6 min; compare with mip_utime_before). 802.15.4 timing (320 µs backoff
 * periods, 192 µs turnaround) does not fit the stack's millisecond clock.
 *
 * Frames cross this interface WITHOUT their FCS: the radio appends the FCS
 * on transmit and checks it on receive (CC2420 AUTOCRC), delivering only
 * frames whose FCS is good.
 */
#ifndef MOTEIP_RADIO_H
#define MOTEIP_RADIO_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"
#include "moteip/timer.h"

typedef uint32_t mip_utime_t;   /* microseconds, wrapping */

/* True when a is strictly before b; as mip_time_before (timer.h: the rule,
 * and its debug check). */
static inline bool mip_utime_before(mip_utime_t a, mip_utime_t b)
{
    MIP_TIME_ASSERT_NEAR(a - b);
    return (int32_t)(a - b) < 0;
}

/* Radio timing the MAC plans with (802.15.4 O-QPSK 2.4 GHz: symbol 16 µs). */
struct mip_radio_timing {
    uint32_t bitrate;           /* bits per second (250000; the TSS paper 100000) */
    uint16_t phy_hdr_bytes;     /* SHR + PHR sent before the MPDU (6; 0 to ignore) */
    uint16_t turnaround_us;     /* RX<->TX switch, aTurnaroundTime (192) */
    uint16_t cca_us;            /* CCA duration, 8 symbols (128) */
    uint16_t backoff_us;        /* aUnitBackoffPeriod, 20 symbols (320) */
    uint16_t ack_wait_us;       /* macAckWaitDuration after TX end (864 at 250 kb/s) */
    /* The platform's costs beyond the air (all 0, the default: an ideal
     * radio and host; the simulator's `platform` fills them from a
     * datasheet, docs/SIMULATOR.md "Platform timing"): */
    uint16_t rx_on_us;          /* receiver start-up: a duty-cycling RDC that
                                   switches it on from off listens (and its
                                   CCA window starts) this much later */
    uint16_t frame_host_us;     /* CPU time to hand one frame to the radio */
    uint32_t bus_bps;           /* host-radio bus (SPI) clock, bits per second:
                                   loading a frame of n bytes takes n x 8 / bus_bps;
                                   0: free */
    uint16_t clock_ppm;         /* the clocks' tolerance: a wait that ends when a
                                   peer's reply ends allows for two clocks this far
                                   apart (0: perfect clocks, exact waits) */
};

/* Fills t with the 802.15.4 2.4 GHz defaults above. */
void mip_radio_timing_default(struct mip_radio_timing *t);
/* Airtime of an MPDU of `mpdu_len` bytes (FCS included) plus the PHY header. */
mip_utime_t mip_radio_airtime(const struct mip_radio_timing *t, size_t mpdu_len);
/* Time from a frame of `mpdu_len` bytes (FCS included) being handed to the
 * MAC until it sits in the radio's buffer: frame_host_us plus the bus
 * transfer of its length byte and MPDU (the radio adds the FCS, but the
 * CC2420 and AT86RF233 count it in the length they are given). 0 with the
 * ideal defaults. */
mip_utime_t mip_radio_load_time(const struct mip_radio_timing *t, size_t mpdu_len);

struct mip_radio_driver {
    /* Starts sending `len` bytes (no FCS; the radio adds it). The radio
     * switches to TX itself, whether its receiver is on or off, and
     * afterwards returns to the state on/off last set; when the last bit
     * has left it calls mip_mac_radio_tx_done(). A transmission cuts off a
     * reception in progress. BUSY-style refusals return MIP_ERR_INUSE. */
    mip_status (*transmit)(void *ctx, const uint8_t *frame, size_t len);
    /* Clear channel assessment result for the CCA window that just ended:
     * true when the channel was clear, false when energy was seen or a
     * frame is being received. The MAC waits cca_us itself, and asks only
     * while the receiver is on and the radio not sending. */
    bool (*cca)(void *ctx);
    /* Receiver on (listen) / off (sleep). A radio that is off hears nothing.
     * The MAC calls them only when the state changes; a radio duty cycling
     * layer (rdc.h) calls them often, so they must be cheap. */
    void (*on)(void *ctx);
    void (*off)(void *ctx);
};

#endif
