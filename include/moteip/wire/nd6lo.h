/*
 * 6LoWPAN Neighbor Discovery options (RFC 6775 as updated by RFC 8505), the
 * Prefix Information option (RFC 4861 s.4.6.2) and IEEE 802.15.4 link-layer
 * address options (RFC 4944 s.8), with the RS and RA fixed parts.
 *
 * Pure codecs: each parse takes one option as the ND option iterator
 * (wire/icmpv6.h) hands it out (type + body) and checks the type and every
 * length before reading; each emit writes exactly the bytes it reports
 * (type and length included, a multiple of 8) or nothing.
 *
 * Lifetimes stay in the units of the wire: EARO, ABRO and 6CO count 60-second
 * units, the PIO seconds.
 */
#ifndef MOTEIP_WIRE_ND6LO_H
#define MOTEIP_WIRE_ND6LO_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"
#include "moteip/wire/icmpv6.h"
#include "moteip/wire/ieee802154.h"

#define MIP_ND_OPT_ARO  33u   /* (E)ARO, RFC 6775 s.4.1 / RFC 8505 s.4.1 */
#define MIP_ND_OPT_6CO  34u   /* 6LoWPAN Context Option, RFC 6775 s.4.2 */
#define MIP_ND_OPT_ABRO 35u   /* Authoritative Border Router Option, RFC 6775 s.4.3 */

/* EARO status (RFC 8505 s.4.1, table 1). */
#define MIP_ARO_SUCCESS        0u
#define MIP_ARO_DUPLICATE      1u
#define MIP_ARO_NC_FULL        2u
#define MIP_ARO_MOVED          3u
#define MIP_ARO_REMOVED        4u
#define MIP_ARO_VALIDATION_REQ 5u
#define MIP_ARO_DUP_SOURCE     6u
#define MIP_ARO_INVALID_SOURCE 7u
#define MIP_ARO_TOPO_INCORRECT 8u
#define MIP_ARO_REGISTRY_FULL  9u
#define MIP_ARO_VALIDATION_FAIL 10u

/* Flags byte of the EARO: Rsvd(2) | P(2) | I(2) | R | T. P is RFC 9685's
 * (0 unicast, 1 multicast, 2 anycast); I says what the Opaque field holds
 * (RFC 8505: 0 an abstract index, e.g. an RPL instance). */
#define MIP_EARO_P_SHIFT 4u
#define MIP_EARO_I_SHIFT 2u
#define MIP_EARO_FLAG_R  0x02u
#define MIP_EARO_FLAG_T  0x01u

#define MIP_EARO_ROVR_MIN 8u
#define MIP_EARO_ROVR_MAX 32u

/* (E)ARO: an ARO (RFC 6775) is an EARO with T clear and an 8-byte ROVR that
 * is the sender's EUI-64. */
struct mip_nd_earo {
    uint8_t  status;
    uint8_t  opaque;
    uint8_t  p;              /* 0..3 */
    uint8_t  i;              /* 0..3 */
    bool     r;
    bool     t;              /* TID present (an RFC 8505 sender) */
    uint8_t  tid;
    uint16_t lifetime_min;   /* registration lifetime, 60-s units; 0: remove */
    uint8_t  rovr_len;       /* 8, 16, 24 or 32 */
    uint8_t  rovr[MIP_EARO_ROVR_MAX];
};

/* 6CO body (RFC 6775 s.4.2): option length 2 carries 8 prefix bytes, 3
 * carries 16; a context longer than 64 bits needs length 3. Prefix bits
 * past ctx_len are sent as they are given (the receiver ignores them). */
struct mip_nd_6co {
    uint8_t  ctx_len;        /* bits, 0..128 */
    bool     c;              /* valid for compression (else decompression only) */
    uint8_t  cid;            /* 0..15 */
    uint16_t lifetime_min;   /* 60-s units; 0: the context is withdrawn */
    uint8_t  prefix[16];     /* bytes past the option's prefix field are zero */
};

/* ABRO body (RFC 6775 s.4.3): the 32-bit version is high << 16 | low. */
struct mip_nd_abro {
    uint32_t version;
    uint16_t lifetime_min;   /* 60-s units; 0 means the default 10,000 */
    uint8_t  addr[16];       /* the 6LBR */
};

#define MIP_PIO_FLAG_L 0x80u
#define MIP_PIO_FLAG_A 0x40u
#define MIP_PIO_FLAG_R 0x20u

struct mip_nd_pio {
    uint8_t  prefix_len;     /* 0..128 */
    uint8_t  flags;          /* L, A, R; the reserved bits are dropped */
    uint32_t valid_s;        /* 0xffffffff: infinity */
    uint32_t preferred_s;
    uint8_t  prefix[16];
};

/* Bytes the options take on the wire. */
#define MIP_ND_PIO_LEN  32u
#define MIP_ND_ABRO_LEN 24u
size_t mip_nd_earo_len(uint8_t rovr_len);          /* 0 for a bad ROVR length */
size_t mip_nd_6co_len(uint8_t ctx_len);            /* 16 or 24 */

/* Parses opt (type and body from mip_nd_opt_next). UNSUPPORTED when opt is
 * of another type; MALFORMED for a length the option may not have (EARO:
 * a ROVR of other than 8/16/24/32 bytes; 6CO: other than 2 or 3 units, a
 * context length above 128 or above 64 in a length-2 option; ABRO: other
 * than 3 units; PIO: other than 4 units or a prefix length above 128). */
mip_status mip_nd_earo_parse(const struct mip_nd_opt *opt, struct mip_nd_earo *out);
mip_status mip_nd_6co_parse(const struct mip_nd_opt *opt, struct mip_nd_6co *out);
mip_status mip_nd_abro_parse(const struct mip_nd_opt *opt, struct mip_nd_abro *out);
mip_status mip_nd_pio_parse(const struct mip_nd_opt *opt, struct mip_nd_pio *out);

/* Emit the whole option at buf; *written gets its length (0 on error).
 * INVALID for a field out of range (EARO: p or i above 3, a bad ROVR
 * length; 6CO: ctx_len above 128, cid above 15; PIO: prefix_len above
 * 128); NOSPACE when cap is short. */
mip_status mip_nd_earo_emit(const struct mip_nd_earo *e, uint8_t *buf, size_t cap,
                            size_t *written);
mip_status mip_nd_6co_emit(const struct mip_nd_6co *c, uint8_t *buf, size_t cap,
                           size_t *written);
mip_status mip_nd_abro_emit(const struct mip_nd_abro *a, uint8_t *buf, size_t cap,
                            size_t *written);
mip_status mip_nd_pio_emit(const struct mip_nd_pio *p, uint8_t *buf, size_t cap,
                           size_t *written);

/* An SLLAO / TLLAO (type 1 or 2) carrying an 802.15.4 address (RFC 4944
 * s.8): length 1 with a 16-bit short address, length 2 with the 64-bit
 * extended address, most significant byte first. Parse: UNSUPPORTED for
 * another option type; MALFORMED for another length. Emit: INVALID for an
 * address mode NONE or type not 1/2; NOSPACE when short. */
mip_status mip_nd_lla_802154_parse(const struct mip_nd_opt *opt, struct mip_802154_addr *out);
mip_status mip_nd_lla_802154_emit(uint8_t type, const struct mip_802154_addr *a, uint8_t *buf,
                                  size_t cap, size_t *written);

/* The fixed parts of RS and RA (ICMPv6 header included, checksum 0); the
 * options follow at buf + *written. RS: 8 bytes. RA: 16 bytes from the RA
 * fields of m (ra_hop_limit, ra_flags, ra_router_lifetime,
 * ra_reachable_ms, ra_retrans_ms). NOSPACE when cap is short. */
mip_status mip_nd_emit_rs(uint8_t *buf, size_t cap, size_t *written);
mip_status mip_nd_emit_ra(const struct mip_nd_msg *m, uint8_t *buf, size_t cap,
                          size_t *written);

#endif
