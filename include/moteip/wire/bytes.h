/*
 * Big-endian field access for wire codecs.
 *
 * Codecs read and write packet fields through these helpers, never through
 * packed structs laid over packet memory: alignment, padding and host byte
 * order then cannot leak into the wire format. All arithmetic is done in
 * explicitly sized types because `int` is 16 bits on AVR.
 */
#ifndef MOTEIP_WIRE_BYTES_H
#define MOTEIP_WIRE_BYTES_H

#include <stdint.h>
#include <stddef.h>

static inline uint16_t mip_rd16(const uint8_t *p)
{
    return (uint16_t)(((uint16_t)p[0] << 8) | (uint16_t)p[1]);
}

static inline uint32_t mip_rd32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
           ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline void mip_wr16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void mip_wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

#endif
