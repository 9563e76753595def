/*
 * RPL control messages (RFC 6550 6): ICMPv6 type 155, codes DIS, DIO, DAO,
 * DAO-ACK, and their options. Pure codecs: no state, every length checked.
 *
 * Messages are handled whole, ICMPv6 header included (type, code,
 * checksum); emitters write checksum 0 and the caller sums it with the
 * pseudo header. A parsed message points at its options inside the
 * caller's buffer; mip_rpl_opt_next walks them and the mip_rpl_opt_*
 * decoders read one option's body. Secure RPL messages (codes 0x80..0x8A,
 * RFC 6550 6.1) are UNSUPPORTED: moteip leaves security to the link layer.
 */
#ifndef MOTEIP_WIRE_RPL_H
#define MOTEIP_WIRE_RPL_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"

/* ICMPv6 codes (RFC 6550 6) */
#define MIP_RPL_CODE_DIS      0x00u
#define MIP_RPL_CODE_DIO      0x01u
#define MIP_RPL_CODE_DAO      0x02u
#define MIP_RPL_CODE_DAO_ACK  0x03u

/* Option types (RFC 6550 6.7, IANA "RPL Control Message Options") */
#define MIP_RPL_OPT_PAD1        0x00u
#define MIP_RPL_OPT_PADN        0x01u
#define MIP_RPL_OPT_METRIC      0x02u   /* DAG Metric Container (RFC 6551) */
#define MIP_RPL_OPT_ROUTE_INFO  0x03u
#define MIP_RPL_OPT_DODAG_CONF  0x04u
#define MIP_RPL_OPT_TARGET      0x05u
#define MIP_RPL_OPT_TRANSIT     0x06u
#define MIP_RPL_OPT_SOLICITED   0x07u
#define MIP_RPL_OPT_PREFIX_INFO 0x08u
#define MIP_RPL_OPT_TARGET_DESC 0x09u

/* Fixed lengths, ICMPv6 header (4) included */
#define MIP_RPL_DIS_LEN       6u    /* flags, reserved */
#define MIP_RPL_DIO_LEN       28u   /* 24-byte base */
#define MIP_RPL_DAO_LEN       8u    /* without DODAGID; +16 with D */
#define MIP_RPL_DAO_ACK_LEN   8u    /* without DODAGID; +16 with D */

/* Option body lengths (after type and length) */
#define MIP_RPL_DODAG_CONF_LEN  14u
#define MIP_RPL_PREFIX_INFO_LEN 30u
#define MIP_RPL_SOLICITED_LEN   19u
#define MIP_RPL_TRANSIT_LEN     4u    /* without parent address; +16 with */

/* Modes of operation (DIO MOP, RFC 6550 6.3.1) */
#define MIP_RPL_MOP_NO_DOWN       0u
#define MIP_RPL_MOP_NON_STORING   1u
#define MIP_RPL_MOP_STORING       2u
#define MIP_RPL_MOP_STORING_MCAST 3u

#define MIP_RPL_INFINITE_RANK 0xFFFFu

/* DIO base object (RFC 6550 6.3.1). */
struct mip_rpl_dio {
    uint8_t  instance;
    uint8_t  version;
    uint16_t rank;
    bool     grounded;        /* G */
    uint8_t  mop;             /* 0..7 */
    uint8_t  prf;             /* 0..7 */
    uint8_t  dtsn;
    uint8_t  flags;           /* must be 0 on send, ignored on receipt */
    uint8_t  dodagid[16];
};

/* DIS base object (RFC 6550 6.2.1): flags and reserved only. */
struct mip_rpl_dis {
    uint8_t flags;
};

/* DAO base object (RFC 6550 6.4.1). */
struct mip_rpl_dao {
    uint8_t instance;
    bool    k;                /* a DAO-ACK is wanted */
    bool    d;                /* the DODAGID field is present */
    uint8_t seq;
    uint8_t dodagid[16];      /* when d */
};

/* DAO-ACK base object (RFC 6550 6.5.1). */
struct mip_rpl_dao_ack {
    uint8_t instance;
    bool    d;
    uint8_t seq;
    uint8_t status;           /* 0 accept, 1..127 accept with reservation,
                                 128..255 reject */
    uint8_t dodagid[16];      /* when d */
};

/* A parsed message: one of the base objects by code, and its options. */
struct mip_rpl_msg {
    uint8_t code;
    union {
        struct mip_rpl_dis dis;
        struct mip_rpl_dio dio;
        struct mip_rpl_dao dao;
        struct mip_rpl_dao_ack dao_ack;
    } u;
    const uint8_t *opts;      /* inside the parsed buffer */
    size_t  opts_len;
};

/* Decodes an RPL control message (ICMPv6 header included) of len bytes.
 * TRUNCATED when shorter than its code's base object (with the DODAGID
 * when D is set); UNSUPPORTED for a type other than 155 or an unknown or
 * secure code; MALFORMED when the options do not walk to the end exactly
 * (an option running past the message). Option bodies are checked by
 * their decoders. */
mip_status mip_rpl_parse(const uint8_t *buf, size_t len, struct mip_rpl_msg *out);

/* One option: Pad1 has len 0 and no body. */
struct mip_rpl_opt {
    uint8_t        type;
    const uint8_t *body;
    uint8_t        len;       /* body bytes (the option's Option Length) */
};

/* Steps *off (start at 0) through opts[0..len): OK and *out, END when
 * none is left, TRUNCATED when the option runs past len. */
mip_status mip_rpl_opt_next(const uint8_t *opts, size_t len, size_t *off,
                            struct mip_rpl_opt *out);

/* DODAG Configuration (RFC 6550 6.7.6). */
struct mip_rpl_dodag_conf {
    bool     auth;            /* A: must be 0 without security */
    uint8_t  pcs;             /* Path Control Size, 0..7 */
    uint8_t  dio_int_doublings;
    uint8_t  dio_int_min;     /* log2 of Imin in ms */
    uint8_t  dio_redundancy;  /* k; 0 disables suppression */
    uint16_t max_rank_inc;
    uint16_t min_hop_rank_inc;
    uint16_t ocp;             /* 0 OF0, 1 MRHOF */
    uint8_t  def_lifetime;    /* in lifetime units */
    uint16_t lifetime_unit;   /* seconds */
};

/* Prefix Information (RFC 6550 6.7.10, RFC 4861 4.6.2 layout). */
#define MIP_RPL_PIO_L 0x80u
#define MIP_RPL_PIO_A 0x40u
#define MIP_RPL_PIO_R 0x20u
struct mip_rpl_prefix_info {
    uint8_t  prefix_len;      /* 0..128 */
    uint8_t  flags;           /* L, A, R */
    uint32_t valid_s;
    uint32_t preferred_s;
    uint8_t  prefix[16];
};

/* Route Information (RFC 6550 6.7.5, RFC 4191 2.3 layout). */
struct mip_rpl_route_info {
    uint8_t  prefix_len;
    uint8_t  prf;             /* 2-bit preference, as a signed code */
    uint32_t lifetime_s;
    uint8_t  prefix[16];      /* bits past prefix_len zero */
};

/* RPL Target (RFC 6550 6.7.7). */
struct mip_rpl_target {
    uint8_t flags;
    uint8_t prefix_len;
    uint8_t prefix[16];       /* bits past prefix_len zero */
};

/* Transit Information (RFC 6550 6.7.8). */
struct mip_rpl_transit {
    bool    external;         /* E */
    uint8_t path_control;
    uint8_t path_seq;
    uint8_t path_lifetime;    /* lifetime units; 0: No-Path */
    bool    has_parent;       /* non-storing: the parent address */
    uint8_t parent[16];
};

/* Solicited Information (RFC 6550 6.7.9). */
#define MIP_RPL_SOL_V 0x80u
#define MIP_RPL_SOL_I 0x40u
#define MIP_RPL_SOL_D 0x20u
struct mip_rpl_solicited {
    uint8_t instance;
    uint8_t flags;            /* V, I, D: which fields a node must match */
    uint8_t dodagid[16];
    uint8_t version;
};

/* Body decoders: MALFORMED when the body length is wrong for the type
 * (short, or longer than the prefix it carries allows), prefix_len > 128,
 * or a prefix with bits set past prefix_len where the RFC says they are
 * zero (they are cleared instead: RFC 4191 2.3 "MUST be ignored on
 * receipt"). */
mip_status mip_rpl_opt_dodag_conf(const struct mip_rpl_opt *o, struct mip_rpl_dodag_conf *out);
mip_status mip_rpl_opt_prefix_info(const struct mip_rpl_opt *o, struct mip_rpl_prefix_info *out);
mip_status mip_rpl_opt_route_info(const struct mip_rpl_opt *o, struct mip_rpl_route_info *out);
mip_status mip_rpl_opt_target(const struct mip_rpl_opt *o, struct mip_rpl_target *out);
mip_status mip_rpl_opt_transit(const struct mip_rpl_opt *o, struct mip_rpl_transit *out);
mip_status mip_rpl_opt_solicited(const struct mip_rpl_opt *o, struct mip_rpl_solicited *out);

/* Emitters: each writes at buf[0..cap) and sets *written (0 on error);
 * NOSPACE when cap is short, INVALID for out-of-range fields (prefix_len
 * > 128, mop or prf > 7, pcs > 7). Messages include the ICMPv6 header
 * with checksum 0; options are appended by the caller after the base. */
mip_status mip_rpl_emit_dis(const struct mip_rpl_dis *m, uint8_t *buf, size_t cap,
                            size_t *written);
mip_status mip_rpl_emit_dio(const struct mip_rpl_dio *m, uint8_t *buf, size_t cap,
                            size_t *written);
mip_status mip_rpl_emit_dao(const struct mip_rpl_dao *m, uint8_t *buf, size_t cap,
                            size_t *written);
mip_status mip_rpl_emit_dao_ack(const struct mip_rpl_dao_ack *m, uint8_t *buf, size_t cap,
                                size_t *written);
/* Pad1 for n == 1, PadN (n - 2 zero bytes) for n 2..7. */
mip_status mip_rpl_emit_pad(uint8_t n, uint8_t *buf, size_t cap, size_t *written);
mip_status mip_rpl_emit_dodag_conf(const struct mip_rpl_dodag_conf *o, uint8_t *buf,
                                   size_t cap, size_t *written);
mip_status mip_rpl_emit_prefix_info(const struct mip_rpl_prefix_info *o, uint8_t *buf,
                                    size_t cap, size_t *written);
mip_status mip_rpl_emit_route_info(const struct mip_rpl_route_info *o, uint8_t *buf,
                                   size_t cap, size_t *written);
mip_status mip_rpl_emit_target(const struct mip_rpl_target *o, uint8_t *buf, size_t cap,
                               size_t *written);
mip_status mip_rpl_emit_transit(const struct mip_rpl_transit *o, uint8_t *buf, size_t cap,
                                size_t *written);
mip_status mip_rpl_emit_solicited(const struct mip_rpl_solicited *o, uint8_t *buf,
                                  size_t cap, size_t *written);

#endif
