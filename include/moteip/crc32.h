/*
 * CRC-32 (IEEE 802.3: reflected, polynomial 0xEDB88320), as zlib.crc32:
 * crc = mip_crc32_update(0, a, n) equals zlib.crc32(a), and continuing,
 * mip_crc32_update(mip_crc32_update(0, a, n), b, m) equals zlib.crc32(a + b).
 * Four bits at a time from a 64-byte table. Used by the discard apps to check
 * what arrived and by the module loader (loader.h).
 */
#ifndef MOTEIP_CRC32_H
#define MOTEIP_CRC32_H

#include <stddef.h>
#include <stdint.h>

uint32_t mip_crc32_update(uint32_t crc, const uint8_t *data, size_t n);

#endif
