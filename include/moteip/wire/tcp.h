/*
 * TCP header and options codec (RFC 9293, 7323, 2018).
 *
 * Option walking is bounded: every option other than EOL and NOP must have
 * a length byte of at least 2 that fits inside the option area; a zero,
 * one or overlong length is MALFORMED, never a loop. Known options with a
 * wrong length (e.g. MSS not 4) are MALFORMED; unknown options are skipped
 * by their length.
 */
#ifndef MOTEIP_WIRE_TCP_H
#define MOTEIP_WIRE_TCP_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"

#define MIP_TCP_HDR_LEN 20u
#define MIP_TCP_HDR_MAX 60u
#define MIP_TCP_SACK_MAX 4u

#define MIP_TCP_FIN 0x01u
#define MIP_TCP_SYN 0x02u
#define MIP_TCP_RST 0x04u
#define MIP_TCP_PSH 0x08u
#define MIP_TCP_ACK 0x10u
#define MIP_TCP_URG 0x20u
#define MIP_TCP_ECE 0x40u
#define MIP_TCP_CWR 0x80u

#define MIP_TCP_OPT_EOL       0u
#define MIP_TCP_OPT_NOP       1u
#define MIP_TCP_OPT_MSS       2u
#define MIP_TCP_OPT_WSCALE    3u
#define MIP_TCP_OPT_SACK_PERM 4u
#define MIP_TCP_OPT_SACK      5u
#define MIP_TCP_OPT_TIMESTAMP 8u

/* Presence bits for struct mip_tcp_opts.present */
#define MIP_TCP_HAS_MSS       0x01u
#define MIP_TCP_HAS_WSCALE    0x02u
#define MIP_TCP_HAS_SACK_PERM 0x04u
#define MIP_TCP_HAS_SACK      0x08u
#define MIP_TCP_HAS_TIMESTAMP 0x10u

struct mip_tcp_hdr {
    uint16_t src_port;
    uint16_t dst_port;
    uint32_t seq;
    uint32_t ack;
    uint8_t  hdr_len;    /* bytes, 20..60 */
    uint8_t  flags;      /* MIP_TCP_* */
    uint16_t window;     /* unscaled, as on the wire */
    uint16_t checksum;
    uint16_t urgent;
};

struct mip_tcp_sack_block { uint32_t left, right; };

struct mip_tcp_opts {
    uint8_t  present;    /* MIP_TCP_HAS_* */
    uint8_t  wscale;     /* shift count as received (caller clamps to 14) */
    uint16_t mss;
    uint8_t  sack_count; /* 1..4 */
    struct mip_tcp_sack_block sack[MIP_TCP_SACK_MAX];
    uint32_t ts_val;
    uint32_t ts_ecr;
};

/* TRUNCATED if len < 20 or data offset*4 > len; MALFORMED if data offset
 * < 5. The options are not decoded here (see mip_tcp_opts_parse); they
 * are buf[20..hdr_len). The checksum is not verified here. */
mip_status mip_tcp_parse(const uint8_t *buf, size_t len, struct mip_tcp_hdr *out);

/* Writes the 20-byte fixed header; the data offset field is taken from
 * h->hdr_len (20..60, multiple of 4, else INVALID), so options are written
 * after it with mip_tcp_opts_emit. Reserved bits are written as 0. */
mip_status mip_tcp_emit(const struct mip_tcp_hdr *h, uint8_t *buf, size_t cap);

/* Decodes options from the option area opts[0..len) (len <= 40, else
 * INVALID). A SACK option with a length that is not 2 + 8n for n in 1..4 is
 * MALFORMED. EOL ends the walk (bytes after it are not looked at); a
 * repeated option overwrites the earlier one. */
mip_status mip_tcp_opts_parse(const uint8_t *opts, size_t len, struct mip_tcp_opts *out);

/* Bytes mip_tcp_opts_emit writes for o: a multiple of 4, at most 40. */
size_t mip_tcp_opts_len(const struct mip_tcp_opts *o);

/* Writes the options present in o, NOP-padded to a multiple of 4, in the
 * order MSS, WSCALE, SACK_PERM, TIMESTAMP, SACK (SACK blocks are dropped
 * from the end if they do not fit in 40 bytes; sack_count above 4 counts as
 * 4; SACK with no block is omitted). Padding goes before each option so
 * 32-bit fields stay aligned, as Linux sends them (RFC 7323 appendix A):
 *   MSS | NOP WSCALE | SACK_PERM TIMESTAMP (or NOP NOP before either one
 *   alone) | NOP NOP SACK
 * With all four SYN options that is 20 bytes; TIMESTAMP leaves room for 3
 * SACK blocks. NOSPACE if cap < mip_tcp_opts_len(o). *written (if not
 * NULL) gets the length, 0 on error. */
mip_status mip_tcp_opts_emit(const struct mip_tcp_opts *o, uint8_t *buf, size_t cap,
                             size_t *written);

#endif
