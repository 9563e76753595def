/*
 * IP addresses of either family, and their text forms.
 */
#ifndef MOTEIP_ADDR_H
#define MOTEIP_ADDR_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"

#define MIP_AF_NONE  0u
#define MIP_AF_INET  4u
#define MIP_AF_INET6 6u

/* An IPv4 address lives in bytes[0..4); the rest is zero. */
struct mip_addr {
    uint8_t family;      /* MIP_AF_INET or MIP_AF_INET6; MIP_AF_NONE = unset */
    uint8_t bytes[16];
};

/* Longest text mip_addr_format writes, with its NUL. */
#define MIP_ADDR_TEXT_MAX 46u

void mip_addr_set4(struct mip_addr *a, const uint8_t b[4]);
void mip_addr_set6(struct mip_addr *a, const uint8_t b[16]);
bool mip_addr_eq(const struct mip_addr *a, const struct mip_addr *b);
/* Length in bytes of the address of `family` (4 or 16; 0 for NONE). */
size_t mip_addr_len(uint8_t family);
/* True when the first `prefix_len` bits of a and b are equal. */
bool mip_addr_prefix_eq(const uint8_t *a, const uint8_t *b, uint8_t prefix_len);

/*
 * Parses "192.0.2.1", "fd00::2", optionally followed by "/prefix".
 * With prefix_len NULL a "/n" suffix is MALFORMED; without a suffix
 * *prefix_len is set to the full length (32 or 128). MALFORMED for anything
 * that is not exactly one address (the whole NUL-terminated string is used).
 */
mip_status mip_addr_parse(const char *text, struct mip_addr *out, uint8_t *prefix_len);

/* Writes the RFC 5952 text form (IPv6) or dotted quad (IPv4); NOSPACE if
 * cap < the needed length + 1. */
mip_status mip_addr_format(const struct mip_addr *a, char *buf, size_t cap);

#endif
