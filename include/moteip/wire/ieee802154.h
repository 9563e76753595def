/*
 * IEEE 802.15.4-2006 MAC frame codec: frame control, sequence number,
 * addressing fields (PAN ID compression, short and extended addresses) and
 * the 16-bit FCS (ITU-T CRC-16, polynomial x^16+x^12+x^5+1, initial value 0,
 * reflected, as Wireshark's LINKTYPE_IEEE802_15_4_WITHFCS expects).
 *
 * Terms: the MPDU is the whole MAC frame including its 2-byte FCS (at most
 * 127 bytes, aMaxPHYPacketSize). The MHR is the header in front of the MAC
 * payload. Codecs here never see the FCS unless a function says so:
 * mip_ieee802154_parse() takes the frame without FCS; the radio (or the
 * simulated one) appends and checks the FCS with mip_ieee802154_fcs().
 *
 * Auxiliary security headers (security enabled bit) and frame versions
 * beyond 2006 are rejected as UNSUPPORTED; nothing here holds state.
 */
#ifndef MOTEIP_WIRE_IEEE802154_H
#define MOTEIP_WIRE_IEEE802154_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"

#define MIP_802154_MPDU_MAX   127u  /* aMaxPHYPacketSize, FCS included */
#define MIP_802154_FCS_LEN    2u
#define MIP_802154_ACK_LEN    3u    /* an ACK frame without its FCS */
#define MIP_802154_BROADCAST  0xFFFFu
#define MIP_802154_PAN_NONE   0xFFFFu

/* Frame types (frame control bits 0-2). */
enum mip_802154_type {
    MIP_802154_BEACON = 0,
    MIP_802154_DATA   = 1,
    MIP_802154_ACK    = 2,
    MIP_802154_CMD    = 3
};

/* Addressing modes (frame control bits 10-11 and 14-15). */
enum mip_802154_addr_mode {
    MIP_802154_ADDR_NONE  = 0,
    MIP_802154_ADDR_SHORT = 2,  /* 2 bytes */
    MIP_802154_ADDR_EXT   = 3   /* 8 bytes */
};

/* One address. `ext` is in the order it is written in text, most
 * significant byte first (the wire carries it little-endian); `short_addr`
 * is the 16-bit value. Only the field that `mode` names is meaningful. */
struct mip_802154_addr {
    uint8_t  mode;              /* enum mip_802154_addr_mode */
    uint16_t short_addr;
    uint8_t  ext[8];
};

struct mip_802154_hdr {
    uint8_t  type;              /* enum mip_802154_type */
    bool     frame_pending;
    bool     ack_request;
    bool     pan_id_compress;   /* src PAN equals dst PAN and is omitted */
    uint8_t  version;           /* 0 (2003) or 1 (2006) */
    uint8_t  seq;
    uint16_t dst_pan;           /* present when dst.mode != NONE */
    uint16_t src_pan;           /* equals dst_pan when pan_id_compress */
    struct mip_802154_addr dst;
    struct mip_802154_addr src;
};

/* Parses the MHR of `frame` (len bytes, FCS NOT included). On MIP_OK,
 * *hdr_len is the MHR length, so the MAC payload is frame[*hdr_len .. len).
 * TRUNCATED when len is shorter than the header the frame control
 * announces; UNSUPPORTED for the security bit, frame version > 1, or a
 * reserved addressing mode (1); MALFORMED for PAN ID compression without
 * both addresses. */
mip_status mip_ieee802154_parse(const uint8_t *frame, size_t len,
                                struct mip_802154_hdr *out, size_t *hdr_len);

/* The MHR length h would take (3..23 bytes). */
size_t mip_ieee802154_hdr_len(const struct mip_802154_hdr *h);

/* Writes the MHR of h into buf; *out_len gets its length. NOSPACE when cap
 * is smaller than mip_ieee802154_hdr_len(h); INVALID for a reserved
 * addressing mode or PAN ID compression without both addresses. */
mip_status mip_ieee802154_emit(const struct mip_802154_hdr *h, uint8_t *buf, size_t cap,
                               size_t *out_len);

/* The FCS over frame[0..len): the value to append little-endian (low byte
 * first). Checking a received MPDU: mip_ieee802154_fcs(mpdu, n - 2) equals
 * mpdu[n-2] | mpdu[n-1] << 8. */
uint16_t mip_ieee802154_fcs(const uint8_t *frame, size_t len);

/* Writes a 3-byte ACK frame (no FCS) for sequence number `seq`. */
void mip_ieee802154_emit_ack(uint8_t seq, bool frame_pending, uint8_t out[MIP_802154_ACK_LEN]);

#endif
