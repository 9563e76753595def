/*
 * ZEP, the ZigBee Encapsulation Protocol (Exegin; the format Wireshark's
 * "zep" dissector reads and other stacks' emulated radios send): one IEEE
 * 802.15.4 frame in one UDP datagram, by default to port 17754. moteip uses
 * it as a radio (port/linux: moteip-host --zep) and to mirror a simulation's
 * air to Wireshark (moteip-sim --zep-mirror). docs/ZEP.md says how each
 * field is used.
 *
 * Version 2, data (32-byte header, then the frame; all multi-byte fields
 * big-endian):
 *
 *   0  "EX"          preamble
 *   2  version       2
 *   3  type          1 data (2 ack: 8 bytes, "EX" 2 2 and a sequence number)
 *   4  channel       802.15.4 channel (11..26 at 2.4 GHz)
 *   5  device id     the sending node
 *   7  LQI/CRC mode  1: the frame ends with its FCS (CRC mode, what moteip
 *                    sends); 0: its last two bytes are a CC24xx status (LQI
 *                    mode: RSSI, then CRC-OK bit and correlation)
 *   8  LQI           link quality (LQI mode; 0xFF from moteip)
 *   9  timestamp     NTP format: seconds since 1900, then 2^-32 s
 *  17  sequence      per sender, counting frames
 *  21  reserved      10 bytes, zero
 *  31  length        the frame's length with its 2-byte FCS (bit 7 is
 *                    reserved: 127 at most)
 *  32  frame         `length` bytes
 *
 * Version 1 (16-byte header, read only): "EX" 1, channel, device id (2),
 * mode, LQI, 7 reserved bytes, length.
 *
 * The codec is pure and checks every length: a datagram whose length field
 * disagrees with its size, a frame shorter than an FCS or longer than 127
 * bytes, an unknown version, or a wrong preamble is an error, never read past.
 */
#ifndef MOTEIP_WIRE_ZEP_H
#define MOTEIP_WIRE_ZEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "moteip/status.h"

#define MIP_ZEP_PORT        17754u
#define MIP_ZEP_V1_HDR_LEN  16u
#define MIP_ZEP_V2_HDR_LEN  32u
#define MIP_ZEP_ACK_LEN     8u
#define MIP_ZEP_FRAME_MAX   127u          /* aMaxPhyPacketSize, FCS included */
#define MIP_ZEP_TYPE_DATA   1u
#define MIP_ZEP_TYPE_ACK    2u

struct mip_zep_hdr {
    uint8_t  version;       /* 1 or 2 */
    uint8_t  type;          /* MIP_ZEP_TYPE_DATA or _ACK (version 1: DATA) */
    uint8_t  channel;
    uint16_t device_id;
    bool     crc_mode;      /* the frame's last two bytes are its FCS */
    uint8_t  lqi;
    uint32_t ntp_seconds;   /* version 2 data */
    uint32_t ntp_fraction;
    uint32_t seq;           /* version 2 data and ack */
    uint8_t  frame_len;     /* bytes of frame, its last two the FCS or status */
};

/* Parses a datagram of `len` bytes. For a data datagram *frame points at the
 * frame inside it (h->frame_len bytes: the MPDU with its FCS or status
 * bytes); for an ack it is NULL. TRUNCATED when the datagram is shorter than
 * its header or its length field says; MALFORMED for a wrong preamble, a
 * length field that leaves bytes over, a frame under 2 or over 127 bytes, or
 * bit 7 of the length set; UNSUPPORTED for a version other than 1 and 2 or
 * a version 2 type other than data and ack. */
mip_status mip_zep_parse(const uint8_t *dgram, size_t len, struct mip_zep_hdr *h,
                         const uint8_t **frame);

/* Writes a version 2 data datagram: the header from h (version, type and
 * frame_len are set here: 2, data, mpdu_len + 2) and the MPDU of `mpdu_len`
 * bytes without FCS, followed by its FCS (h->crc_mode must be true: CRC mode
 * is what moteip sends). Returns the datagram's length in *out_len. NOSPACE
 * when `cap` is too small, INVALID for an MPDU over 125 bytes or LQI mode. */
mip_status mip_zep_emit(struct mip_zep_hdr *h, const uint8_t *mpdu, size_t mpdu_len,
                        uint8_t *out, size_t cap, size_t *out_len);

#endif
