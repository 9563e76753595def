/*
 * The wire codec tests' exact copies: a parser handed one of these cannot
 * read past the end unnoticed (ASan reports it).
 */
#ifndef MOTEIP_TEST_EXACT_H
#define MOTEIP_TEST_EXACT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A copy of buf[0..len) in a heap block of exactly len bytes (1 when len
 * is 0); NULL when out of memory. The caller frees it. */
static inline uint8_t *dup_exact(const uint8_t *buf, size_t len)
{
    uint8_t *copy = malloc(len ? len : 1u);
    if (copy != NULL && len)
        memcpy(copy, buf, len);
    return copy;
}

#endif
