/*
 * A radio made of UDP: ZEP (include/moteip/wire/zep.h) datagrams carry the
 * 802.15.4 frames, so moteip's real MAC (every MAC and RDC of mac.h) runs
 * on a Linux host against other moteip-hosts, moteip-sim in real time, or
 * any stack whose emulated radio speaks ZEP. docs/ZEP.md has the choices.
 *
 * The medium it models is small on purpose:
 * - every frame goes to each remote address (one per neighbour: the
 *   topology is the list of remotes each node is given);
 * - a frame is heard only when the receiver is on when it arrives, not
 *   while it sends (half duplex), and only on our channel and PAN-agnostic
 *   (the MAC filters addresses);
 * - the channel reads busy (CCA) for a frame's airtime after it arrives,
 *   so duty-cycled MACs see a neighbour's repeated copies as real radios do;
 * - sending takes the frame's airtime: tx_done comes after it, from
 *   zep_radio_poll;
 * - a frame is handed to the MAC at the end of its airtime counted from its
 *   datagram's arrival (the sender sends the datagram when its frame starts),
 *   as a radio delivers a frame once its last byte is in: so the receiver's
 *   link ACK comes after the sender's frame ended, not during it. Frames that
 *   overlap wait in order (ZEP_RX_QUEUE; more are dropped as collisions).
 *
 * Counters say what was dropped and why. Nothing here is called from a
 * signal handler; the host's main loop drives it.
 */
#ifndef MOTEIP_PORT_LINUX_ZEP_RADIO_H
#define MOTEIP_PORT_LINUX_ZEP_RADIO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "moteip/mac.h"
#include "moteip/radio.h"

#define ZEP_REMOTES_MAX 8
#define ZEP_RX_QUEUE 4               /* frames on their way in at once */

struct zep_radio_stats {
    uint64_t tx_frames;        /* frames sent (one datagram per remote) */
    uint64_t tx_errors;        /* sendto failures (a remote not listening: ECONNREFUSED) */
    uint64_t rx_datagrams;
    uint64_t rx_frames;        /* handed to the MAC */
    uint64_t drop_malformed;   /* not a ZEP data datagram (mip_zep_parse) */
    uint64_t drop_fcs;         /* CRC mode and a bad FCS, or LQI mode without CRC OK */
    uint64_t drop_channel;     /* another channel */
    uint64_t drop_off;         /* the receiver was off */
    uint64_t drop_tx;          /* arrived while we were sending */
    uint64_t drop_collision;   /* arrived while ZEP_RX_QUEUE others were still on the air */
};

struct zep_rx {
    mip_utime_t due;                       /* the end of its airtime */
    uint8_t len;                           /* MPDU without FCS */
    uint8_t frame[MIP_RADIO_FRAME_MAX];
};

struct zep_radio {
    int fd;                                /* the UDP socket, bound to the local address */
    struct sockaddr_storage remote[ZEP_REMOTES_MAX];
    socklen_t remote_len[ZEP_REMOTES_MAX];
    unsigned n_remote;
    uint8_t channel;
    uint16_t device_id;
    uint32_t seq;
    struct mip_radio_timing timing;
    struct mip_mac *mac;                   /* told of frames and of tx ends */
    bool on;
    bool sending;
    mip_utime_t tx_end;                    /* when the frame being sent leaves the air */
    mip_utime_t busy_until;                /* the channel reads busy before this */
    bool busy;
    uint8_t rx_head, rx_count;             /* frames arriving: a ring of ZEP_RX_QUEUE */
    struct zep_rx rx[ZEP_RX_QUEUE];
    struct zep_radio_stats st;
};

/* The radio driver table (radio.h); its ctx is a struct zep_radio. */
extern const struct mip_radio_driver zep_radio_driver;

/* The host's microsecond clock (CLOCK_MONOTONIC, wrapping at 2^32 µs). */
mip_utime_t zep_now_us(void);

/* Parses text[0..n), "address:port" or "[IPv6-address]:port" (numeric), into
 * *ss and *sl. 0, or -1 with a one-line message in err. */
int zep_parse_endpoint(const char *text, size_t n, struct sockaddr_storage *ss, socklen_t *sl,
                       char *err, size_t errlen);

struct mip_zep_hdr;
/* Whether a parsed ZEP data datagram's frame (h->frame_len bytes) arrived
 * intact: in CRC mode its FCS checks; in LQI mode the CC24xx status's
 * CRC-OK bit (bit 7 of the last byte) is set. */
bool zep_frame_ok(const struct mip_zep_hdr *h, const uint8_t *frame);

/* Opens the radio: `spec` is "LOCAL,REMOTE[,REMOTE...]" with each an
 * address:port (IPv6 as [addr]:port), all of one family. 0, or -1 with a
 * message in err (one line, naming what is wrong). */
int zep_radio_open(struct zep_radio *r, const char *spec, uint8_t channel, uint16_t device_id,
                   const struct mip_radio_timing *timing, char *err, size_t errlen);
void zep_radio_close(struct zep_radio *r);

/* The MAC this radio reports to: set before the first frame. */
void zep_radio_attach(struct zep_radio *r, struct mip_mac *mac);

/* Reads every datagram waiting on the socket into the MAC. */
void zep_radio_receive(struct zep_radio *r);

/* Ends a transmission whose airtime has passed (mip_mac_radio_tx_done) and
 * returns the µs until the radio next needs a call (UINT32_MAX: none). */
uint32_t zep_radio_poll(struct zep_radio *r);

#endif
