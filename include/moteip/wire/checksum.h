/*
 * The internet checksum (RFC 1071) and its incremental update (RFC 1624).
 *
 * Sums are accumulated unfolded in a uint32_t so a caller can add a pseudo
 * header, a transport header and a payload from separate buffers. Every chunk
 * added with mip_cksum_add() except the last MUST have even length (the sum
 * is over 16-bit words; an odd chunk is padded with a zero byte).
 */
#ifndef MOTEIP_WIRE_CHECKSUM_H
#define MOTEIP_WIRE_CHECKSUM_H

#include <stdint.h>
#include <stddef.h>

/* Adds `len` bytes at `data` to the running sum `sum` (start with 0). Any
 * `sum` and any `len` are safe: the accumulator is folded before it can
 * overflow, which preserves its one's complement value. */
uint32_t mip_cksum_add(uint32_t sum, const uint8_t *data, size_t len);

/* Folds a running sum to 16 bits and returns its one's complement: the value
 * to store in a checksum field, or, over data that includes a correct
 * checksum field, 0. */
uint16_t mip_cksum_finish(uint32_t sum);

/* Running sums of the IPv4 / IPv6 pseudo headers for an upper-layer
 * protocol `proto` carrying `l4_len` bytes (header + payload). */
uint32_t mip_cksum_pseudo4(const uint8_t src[4], const uint8_t dst[4],
                           uint8_t proto, uint16_t l4_len);
uint32_t mip_cksum_pseudo6(const uint8_t src[16], const uint8_t dst[16],
                           uint8_t next_header, uint32_t l4_len);

/* RFC 1624 eqn. 3: the new checksum field after a 16-bit word covered by
 * `cksum` changes from `old_word` to `new_word`. Used by forwarding (TTL) and
 * by the relay when it rewrites a header field. */
uint16_t mip_cksum_update16(uint16_t cksum, uint16_t old_word, uint16_t new_word);

/* The same for a 32-bit field (two words, e.g. an IPv4 address).
 * Both agree with a full recomputation except when the covered data becomes
 * all zero, where they give 0x0000 and a recomputation gives 0xFFFF (both
 * encode one's complement zero). */
uint16_t mip_cksum_update32(uint16_t cksum, uint32_t old_val, uint32_t new_val);

#endif
