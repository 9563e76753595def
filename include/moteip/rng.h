/*
 * The stack's pseudo-random generator: xoshiro128** seeded from entropy the
 * caller injects at init (a hardware RNG on a mote, getrandom() on a host,
 * (seed, node id) in the simulator). Used for IP/fragment identifiers and
 * jitter; TCP's ISNs are a keyed hash over a secret drawn from it.
 */
#ifndef MOTEIP_RNG_H
#define MOTEIP_RNG_H

#include <stdint.h>
#include <stddef.h>

struct mip_rng {
    uint32_t s[4];
};

/* Seeds from `len` bytes (any length; 16 or more recommended). */
void mip_rng_seed(struct mip_rng *r, const uint8_t *entropy, size_t len);
uint32_t mip_rng_next(struct mip_rng *r);
/* Uniform in [0, bound) for bound >= 1 (bound 0 gives 0). */
uint32_t mip_rng_below(struct mip_rng *r, uint32_t bound);

#endif
