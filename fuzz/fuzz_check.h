/* CHECKF(cond): a harness invariant; when it does not hold, name it and
 * abort(), so libFuzzer keeps the input as a crash. For harnesses without a
 * FAIL(...) of their own (those with one define CHECK over it). */
#ifndef MOTEIP_FUZZ_CHECK_H
#define MOTEIP_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECKF(cond)                                                          \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "CHECK FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                          \
        }                                                                     \
    } while (0)

#endif
