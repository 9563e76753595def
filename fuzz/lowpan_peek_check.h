/* fuzz_lowpan_peek_twice: what a capture (mip_lowpan_peek_frame) reads from
 * a frame on a radio netif, read twice. The peek keeps no state, so the two
 * reads must agree. Shared by the harnesses that hold a capture's view of a
 * frame against what the stack then does with it (stack_harness.h for the
 * whole-stack lowpan harnesses, fuzz_lowpan_tcphc.c). */
#ifndef MOTEIP_FUZZ_LOWPAN_PEEK_CHECK_H
#define MOTEIP_FUZZ_LOWPAN_PEEK_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "moteip/moteip.h"

/* Reads frame (len bytes) as netif would into buf0, the view in *pk, and
 * again into buf1; cap bytes each. Returns the first read's status. *alike
 * is false when the second read gives another status, or, for MIP_OK,
 * another view or other bytes, or when the view holds no byte or more than
 * cap. (Both views are zeroed first, so that padding compares equal.) */
static inline mip_status fuzz_lowpan_peek_twice(const struct mip_stack *s, uint8_t netif,
                                                const uint8_t *frame, size_t len, uint8_t *buf0,
                                                uint8_t *buf1, size_t cap,
                                                struct mip_lowpan_peek *pk, bool *alike)
{
    struct mip_lowpan_peek again;
    mip_status st, st2;
    memset(pk, 0, sizeof *pk);
    memset(&again, 0, sizeof again);
    st = mip_lowpan_peek_frame(s, netif, frame, len, buf0, cap, pk);
    st2 = mip_lowpan_peek_frame(s, netif, frame, len, buf1, cap, &again);
    *alike = st2 == st &&
             (st != MIP_OK || (memcmp(&again, pk, sizeof again) == 0 && pk->ip_len >= 1u &&
                               pk->ip_len <= cap && memcmp(buf0, buf1, pk->ip_len) == 0));
    return st;
}

#endif
