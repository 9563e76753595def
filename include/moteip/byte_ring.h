/*
 * A byte ring between one interrupt handler and the main loop: the ISR of
 * a UART puts the bytes it receives, the main loop takes them and feeds
 * them to a netif (mip_slip_input, netif.h). Or the other way round for a
 * transmit interrupt.
 *
 * Exactly one producer calls mip_byte_ring_put and exactly one consumer
 * calls the read functions; neither ever blocks or disables interrupts.
 * Each side writes only its own index (head: the producer, tail: the
 * consumer), and the bytes are written before the head that publishes
 * them (a signal fence, which on a single-core MCU is what an interrupt
 * needs). A full ring drops the new byte and counts it in `dropped`.
 *
 * The indices run freely and wrap at 2^bits of mip_ring_idx_t; the size is
 * a power of two of at most half that. An index must be read in one
 * instruction, or the consumer could see half an update: it is uint8_t on
 * AVR (rings of up to 128 bytes) and uint16_t elsewhere (up to 32 KB).
 * Define MIP_RING_IDX_T to change it.
 *
 * Header only, and forced inline (MIP_RING_INLINE), so an ISR calls no
 * function: on AVR a call from an ISR makes it save every call-clobbered
 * register, which doubled the ATmega1284P's cost per received byte. The memory (the struct and its
 * buffer) is the port's: a ring is one of a port's own globals.
 */
#ifndef MOTEIP_BYTE_RING_H
#define MOTEIP_BYTE_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>

#ifndef MIP_RING_IDX_T
#if defined(__AVR__)
#define MIP_RING_IDX_T uint8_t
#else
#define MIP_RING_IDX_T uint16_t
#endif
#endif
typedef MIP_RING_IDX_T mip_ring_idx_t;

#if defined(__GNUC__)
#define MIP_RING_INLINE static inline __attribute__((always_inline))
#else
#define MIP_RING_INLINE static inline
#endif

struct mip_byte_ring {
    uint8_t *buf;
    mip_ring_idx_t mask;                 /* size - 1 */
    volatile mip_ring_idx_t head;        /* next byte to write; the producer's */
    volatile mip_ring_idx_t tail;        /* next byte to read; the consumer's */
    volatile uint32_t dropped;           /* bytes lost to a full ring; the producer's */
};

/* Sets up a ring on buf[0..size). size must be a power of two, 2 ..
 * half the index range; false (and the ring unusable) otherwise. Call it
 * before the interrupt that uses the ring is enabled. */
static inline bool mip_byte_ring_init(struct mip_byte_ring *r, uint8_t *buf, size_t size)
{
    size_t max = ((size_t)(mip_ring_idx_t)~(mip_ring_idx_t)0 >> 1) + 1u;
    r->buf = buf;
    r->head = 0;
    r->tail = 0;
    r->dropped = 0;
    r->mask = 0;
    if (buf == NULL || size < 2 || size > max || (size & (size - 1)) != 0)
        return false;
    r->mask = (mip_ring_idx_t)(size - 1);
    return true;
}

/* Producer: appends one byte; false (counted in dropped) when full. */
MIP_RING_INLINE bool mip_byte_ring_put(struct mip_byte_ring *r, uint8_t b)
{
    mip_ring_idx_t h = r->head;
    if ((mip_ring_idx_t)(h - r->tail) > r->mask) {
        r->dropped = r->dropped + 1u;
        return false;
    }
    r->buf[h & r->mask] = b;
    atomic_signal_fence(memory_order_release);
    r->head = (mip_ring_idx_t)(h + 1u);
    return true;
}

/* Consumer: bytes waiting. */
MIP_RING_INLINE size_t mip_byte_ring_count(const struct mip_byte_ring *r)
{
    return (mip_ring_idx_t)(r->head - r->tail);
}

/* Consumer: the longest run of waiting bytes that lies in one piece in the
 * buffer (*n bytes at the returned pointer; *n is 0 when empty). The bytes
 * stay the consumer's until mip_byte_ring_consume releases them, so they
 * can be handed to a decoder without a copy. */
MIP_RING_INLINE const uint8_t *mip_byte_ring_peek(const struct mip_byte_ring *r, size_t *n)
{
    mip_ring_idx_t t = r->tail;
    mip_ring_idx_t count = (mip_ring_idx_t)(r->head - t);
    size_t to_end = (size_t)r->mask + 1u - (size_t)(t & r->mask);
    atomic_signal_fence(memory_order_acquire);
    *n = count < to_end ? count : to_end;
    return r->buf + (t & r->mask);
}

/* Consumer: releases n bytes (at most what peek reported). */
MIP_RING_INLINE void mip_byte_ring_consume(struct mip_byte_ring *r, size_t n)
{
    atomic_signal_fence(memory_order_release);
    r->tail = (mip_ring_idx_t)(r->tail + n);
}

#endif
