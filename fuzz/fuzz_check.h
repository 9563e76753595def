/* CHECKF(cond): a harness invariant; when it does not hold, name it and
 * abort(), so libFuzzer keeps the input as a crash. For harnesses without a
 * FAIL(...) of their own (those with one define CHECK over it). */
#ifndef MOTEIP_FUZZ_CHECK_H
#define MOTEIP_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECKF(cond)                                                          \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "CHECK FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                          \
        }                                                                     \
    } while (0)

/* A heap copy of exactly n bytes (malloc(1) for n == 0), so ASan catches a
 * read one byte past what a codec was given. */
static inline unsigned char *fuzz_dup_exact(const unsigned char *p, size_t n)
{
    unsigned char *c = (unsigned char *)malloc(n ? n : 1);
    if (c == NULL)
        abort();
    if (n)
        memcpy(c, p, n);
    return c;
}

#endif
