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
 * Security (802.15.4-2015 s.9.4, in 2006 frames, version 1): the
 * security enabled bit of the frame control says an auxiliary security
 * header follows the MHR; mip_ieee802154_parse_mhr() accepts such frames
 * (mip_ieee802154_parse() keeps refusing them as UNSUPPORTED, so a caller
 * that cannot read a secured payload never mistakes one for plaintext),
 * and the aux header has its own codec below. Frame versions beyond 2006
 * are UNSUPPORTED; nothing here holds state.
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
    bool     security;          /* security enabled: an aux header follows the
                                 * MHR (parse_mhr only; parse refuses it) */
    /* Not on the wire: 0 from the parsers. The MAC sets it on a received
     * frame it unsecured to the level the frame was authenticated at
     * (mac.h: mip_mac_rx_trusted, the field in the rx metadata). */
    uint8_t  sec_level;
};

/* Parses the MHR of `frame` (len bytes, FCS NOT included). On MIP_OK,
 * *hdr_len is the MHR length, so the MAC payload is frame[*hdr_len .. len).
 * TRUNCATED when len is shorter than the header the frame control
 * announces; UNSUPPORTED for the security bit, frame version > 1, or a
 * reserved addressing mode (1); MALFORMED for PAN ID compression without
 * both addresses. */
mip_status mip_ieee802154_parse(const uint8_t *frame, size_t len,
                                struct mip_802154_hdr *out, size_t *hdr_len);

/* The same, accepting the security enabled bit in frames of version 1
 * (out->security set; the aux header starts at *hdr_len: parse it with
 * mip_ieee802154_sec_parse). UNSUPPORTED for the bit in a 2003 frame
 * (version 0, whose security format differs). */
mip_status mip_ieee802154_parse_mhr(const uint8_t *frame, size_t len,
                                    struct mip_802154_hdr *out, size_t *hdr_len);

/* The MHR length h would take (3..23 bytes). */
size_t mip_ieee802154_hdr_len(const struct mip_802154_hdr *h);

/* Writes the MHR of h into buf; *out_len gets its length. NOSPACE when cap
 * is smaller than mip_ieee802154_hdr_len(h); INVALID for a reserved
 * addressing mode, PAN ID compression without both addresses, or the
 * security bit in a version 0 frame. */
mip_status mip_ieee802154_emit(const struct mip_802154_hdr *h, uint8_t *buf, size_t cap,
                               size_t *out_len);

/* The FCS over frame[0..len): the value to append little-endian (low byte
 * first). Checking a received MPDU: mip_ieee802154_fcs(mpdu, n - 2) equals
 * mpdu[n-2] | mpdu[n-1] << 8. */
uint16_t mip_ieee802154_fcs(const uint8_t *frame, size_t len);

/* Writes a 3-byte ACK frame (no FCS) for sequence number `seq`. */
void mip_ieee802154_emit_ack(uint8_t seq, bool frame_pending, uint8_t out[MIP_802154_ACK_LEN]);

/* --- auxiliary security header (802.15.4-2015 s.9.4) ------------------- */
/* (compiled where link-layer security is: MIP_CONF_LLSEC, config.h) */

#define MIP_802154_SEC_LEN_MAX 14u  /* control 1 + counter 4 + key id 1..9 */
#define MIP_802154_MIC_LEN_MAX 16u

/* Security levels (s.9.4.2.2, Table 9-6): bits 0-1 the MIC (none, 32, 64,
 * 128 bits), bit 2 encryption. */
enum mip_802154_sec_level {
    MIP_802154_SEC_NONE = 0,
    MIP_802154_SEC_MIC32 = 1,
    MIP_802154_SEC_MIC64 = 2,
    MIP_802154_SEC_MIC128 = 3,
    MIP_802154_SEC_ENC = 4,
    MIP_802154_SEC_ENC_MIC32 = 5,
    MIP_802154_SEC_ENC_MIC64 = 6,
    MIP_802154_SEC_ENC_MIC128 = 7
};

/* Key identifier modes (s.9.4.2.3, Table 9-7): the key identifier field
 * is absent, a key index, 4-byte key source + index, 8-byte source + index. */
enum mip_802154_key_id_mode {
    MIP_802154_KEY_IMPLICIT = 0,
    MIP_802154_KEY_INDEX = 1,
    MIP_802154_KEY_SRC4 = 2,
    MIP_802154_KEY_SRC8 = 3
};

/* The auxiliary security header. Frame counter suppression and the ASN in
 * the nonce (2015's TSCH bits) are not supported: the frame counter is
 * always present. */
struct mip_802154_sec {
    uint8_t  level;             /* enum mip_802154_sec_level, 0..7 */
    uint8_t  key_id_mode;       /* enum mip_802154_key_id_mode, 0..3 */
    uint32_t frame_counter;
    uint8_t  key_source[8];     /* wire order; 4 bytes in mode 2, 8 in mode 3 */
    uint8_t  key_index;         /* modes 1..3 */
};

/* Its length on the wire: 5 (mode 0), 6, 10 or 14. */
size_t mip_ieee802154_sec_len(const struct mip_802154_sec *s);

/* Parses an aux header at p (len bytes available); *aux_len gets its
 * length. TRUNCATED when len is shorter than the header its control
 * announces; UNSUPPORTED for frame counter suppression, the ASN in the
 * nonce or the reserved bit 7 (s.9.4.2, Figure 9-6). */
mip_status mip_ieee802154_sec_parse(const uint8_t *p, size_t len, struct mip_802154_sec *out,
                                    size_t *aux_len);

/* Writes s into buf; *out_len gets its length. INVALID for a level above
 * 7 or a mode above 3; NOSPACE when cap is smaller than its length. */
mip_status mip_ieee802154_sec_emit(const struct mip_802154_sec *s, uint8_t *buf, size_t cap,
                                   size_t *out_len);

/* The MIC length of a level: 0, 4, 8 or 16 bytes. */
static inline size_t mip_ieee802154_mic_len(uint8_t level)
{
    return (level & 3u) == 0u ? 0u : (size_t)2u << (level & 3u);
}

/* The CCM* nonce (s.9.3.2.2, Figure 9-4): the source's extended address
 * (text order, most significant byte first, as struct mip_802154_addr
 * keeps it), the frame counter big-endian, the security level. */
void mip_ieee802154_nonce(const uint8_t src_ext[8], uint32_t frame_counter, uint8_t level,
                          uint8_t out[13]);

#endif
