/*
 * CoAP message codec (RFC 7252 s.3): parse a datagram into a checked view,
 * build one with a writer whose first error sticks. Pure: no state between
 * calls, no allocation, nothing read past the bytes given.
 *
 *   0                   1                   2                   3
 *   |Ver| T |  TKL  |      Code     |          Message ID           |
 *   |   Token (0..8 bytes) ...  |   Options ...   | 0xFF | Payload ...
 *
 * Parsing checks the whole message once (header, token, every option's
 * delta and length, the payload marker); after mip_coap_parse() returns
 * MIP_COAP_OK the option iterator cannot run past the buffer and never
 * fails. The view points into the caller's buffer, which must outlive it.
 *
 * Option numbers are absolute here (the codec does the delta encoding).
 * Critical options are the odd numbers (s.5.4.1).
 */
#ifndef MOTEIP_APPS_COAP_MSG_H
#define MOTEIP_APPS_COAP_MSG_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define MIP_COAP_HDR_LEN   4u
#define MIP_COAP_TOKEN_MAX 8u

enum mip_coap_type {
    MIP_COAP_CON = 0,      /* confirmable: retransmitted until ACK or RST */
    MIP_COAP_NON = 1,      /* non-confirmable */
    MIP_COAP_ACK = 2,
    MIP_COAP_RST = 3
};

/* Codes are c.dd packed as c << 5 | dd. */
#define MIP_COAP_CODE(c, dd) ((uint8_t)(((c) << 5) | (dd)))
#define MIP_COAP_CLASS(code) ((uint8_t)((code) >> 5))
enum mip_coap_code {
    MIP_COAP_EMPTY          = MIP_COAP_CODE(0, 0),
    MIP_COAP_GET            = MIP_COAP_CODE(0, 1),
    MIP_COAP_POST           = MIP_COAP_CODE(0, 2),
    MIP_COAP_PUT            = MIP_COAP_CODE(0, 3),
    MIP_COAP_DELETE         = MIP_COAP_CODE(0, 4),
    MIP_COAP_CREATED        = MIP_COAP_CODE(2, 1),
    MIP_COAP_DELETED        = MIP_COAP_CODE(2, 2),
    MIP_COAP_CHANGED        = MIP_COAP_CODE(2, 4),
    MIP_COAP_CONTENT        = MIP_COAP_CODE(2, 5),
    MIP_COAP_CONTINUE       = MIP_COAP_CODE(2, 31),   /* RFC 7959 */
    MIP_COAP_BAD_REQUEST    = MIP_COAP_CODE(4, 0),
    MIP_COAP_BAD_OPTION     = MIP_COAP_CODE(4, 2),
    MIP_COAP_NOT_FOUND      = MIP_COAP_CODE(4, 4),
    MIP_COAP_NOT_ALLOWED    = MIP_COAP_CODE(4, 5),
    MIP_COAP_INCOMPLETE     = MIP_COAP_CODE(4, 8),    /* RFC 7959 */
    MIP_COAP_TOO_LARGE      = MIP_COAP_CODE(4, 13),
    MIP_COAP_INTERNAL_ERROR = MIP_COAP_CODE(5, 0),
    MIP_COAP_NO_PROXY       = MIP_COAP_CODE(5, 5)
};

enum mip_coap_option_number {
    MIP_COAP_OPT_IF_MATCH       = 1,
    MIP_COAP_OPT_URI_HOST       = 3,
    MIP_COAP_OPT_ETAG           = 4,
    MIP_COAP_OPT_IF_NONE_MATCH  = 5,
    MIP_COAP_OPT_OBSERVE        = 6,
    MIP_COAP_OPT_URI_PORT       = 7,
    MIP_COAP_OPT_LOCATION_PATH  = 8,
    MIP_COAP_OPT_URI_PATH       = 11,
    MIP_COAP_OPT_CONTENT_FORMAT = 12,
    MIP_COAP_OPT_MAX_AGE        = 14,
    MIP_COAP_OPT_URI_QUERY      = 15,
    MIP_COAP_OPT_ACCEPT         = 17,
    MIP_COAP_OPT_LOCATION_QUERY = 20,
    MIP_COAP_OPT_BLOCK2         = 23,
    MIP_COAP_OPT_BLOCK1         = 27,
    MIP_COAP_OPT_SIZE2          = 28,
    MIP_COAP_OPT_PROXY_URI      = 35,
    MIP_COAP_OPT_PROXY_SCHEME   = 39,
    MIP_COAP_OPT_SIZE1          = 60
};

#define MIP_COAP_FORMAT_TEXT        0u     /* text/plain;charset=utf-8 */
#define MIP_COAP_FORMAT_LINK        40u    /* application/link-format */
#define MIP_COAP_FORMAT_OCTETS      42u    /* application/octet-stream */

/* What parsing found wrong. Everything but VERSION is a "message format
 * error" (s.4.2/4.3): a CON carrying one is answered with RST. */
enum mip_coap_parse_status {
    MIP_COAP_OK = 0,
    MIP_COAP_ERR_SHORT,          /* under 4 bytes */
    MIP_COAP_ERR_VERSION,        /* Ver != 1: silently ignored (s.3) */
    MIP_COAP_ERR_TKL,            /* token length 9..15 (reserved) */
    MIP_COAP_ERR_TOKEN,          /* token runs past the datagram */
    MIP_COAP_ERR_OPTION,         /* nibble 15 without 0xFF, or delta/length past the end */
    MIP_COAP_ERR_OPTION_NUMBER,  /* option number above 65535 */
    MIP_COAP_ERR_EMPTY_PAYLOAD,  /* payload marker followed by nothing */
    MIP_COAP_ERR_EMPTY_MSG       /* code 0.00 with token, options or payload */
};

/* A checked message. `options` is the raw option bytes (validated). */
struct mip_coap_msg {
    uint8_t  type;               /* enum mip_coap_type */
    uint8_t  code;
    uint16_t mid;                /* Message ID */
    uint8_t  token_len;          /* 0..8 */
    uint8_t  token[MIP_COAP_TOKEN_MAX];
    const uint8_t *options;
    size_t   options_len;
    const uint8_t *payload;      /* NULL when there is none */
    size_t   payload_len;
};

struct mip_coap_option {
    uint16_t number;
    uint16_t len;
    const uint8_t *value;
};

/* Parses `len` bytes; on MIP_COAP_OK fills *m (pointing into buf). For
 * ERR_TKL and later errors, m->type, code and mid are valid (the header
 * was read), so the caller can answer a CON with RST. */
enum mip_coap_parse_status mip_coap_parse(const uint8_t *buf, size_t len,
                                          struct mip_coap_msg *m);

/* Option iteration over a parsed message. */
struct mip_coap_opt_iter {
    const uint8_t *p, *end;
    uint16_t number;
};
void mip_coap_opt_begin(struct mip_coap_opt_iter *it, const struct mip_coap_msg *m);
/* Next option in ascending order; false at the end. */
bool mip_coap_opt_next(struct mip_coap_opt_iter *it, struct mip_coap_option *o);
/* First option with this number; false if absent. */
bool mip_coap_opt_find(const struct mip_coap_msg *m, uint16_t number, struct mip_coap_option *o);
/* An option value as an unsigned integer (s.3.2 uint: big-endian, leading
 * zeros may be dropped); values longer than 4 bytes give false. */
bool mip_coap_opt_uint(const struct mip_coap_option *o, uint32_t *v);

/* Block1/Block2 option value (RFC 7959 s.2.2): NUM, M, SZX; size = 16 << szx. */
struct mip_coap_block {
    uint32_t num;                /* block number, < 2^20 */
    bool     more;
    uint8_t  szx;                /* 0..6; 7 is reserved (BERT) and refused */
};
/* False when the option is longer than 3 bytes or SZX is 7. */
bool mip_coap_block_decode(const struct mip_coap_option *o, struct mip_coap_block *b);
static inline uint32_t mip_coap_block_size(uint8_t szx) { return 16u << szx; }

/* Writer: begin, then options in ascending order, then at most one payload.
 * The first problem (no room, options out of order, a bad argument) sticks:
 * later calls do nothing and mip_coap_w_end() returns 0. */
struct mip_coap_writer {
    uint8_t *buf;
    size_t   cap;
    size_t   len;
    uint16_t last_option;
    bool     payload_done;
    bool     failed;
};
void mip_coap_w_begin(struct mip_coap_writer *w, uint8_t *buf, size_t cap,
                      uint8_t type, uint8_t code, uint16_t mid,
                      const uint8_t *token, uint8_t token_len);
/* Replaces the code given to begin (a reply whose code is known late). */
void mip_coap_w_code(struct mip_coap_writer *w, uint8_t code);
void mip_coap_w_option(struct mip_coap_writer *w, uint16_t number,
                       const void *value, size_t len);
/* Shortest uint encoding (0 is the empty value). */
void mip_coap_w_option_uint(struct mip_coap_writer *w, uint16_t number, uint32_t value);
void mip_coap_w_block(struct mip_coap_writer *w, uint16_t number, const struct mip_coap_block *b);
/* Appends the payload marker and `len` bytes (nothing when len is 0). */
void mip_coap_w_payload(struct mip_coap_writer *w, const void *data, size_t len);
/* Appends the marker and returns room for `len` payload bytes for the
 * caller to fill (NULL when len is 0 or it does not fit: then the writer
 * has failed, unless len was 0). */
uint8_t *mip_coap_w_payload_space(struct mip_coap_writer *w, size_t len);
/* Room left for a payload after the marker (0 when none fits). */
size_t mip_coap_w_payload_room(const struct mip_coap_writer *w);
/* Length of the message, or 0 if any call failed. */
size_t mip_coap_w_end(const struct mip_coap_writer *w);

#endif
