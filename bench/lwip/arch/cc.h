/* lwIP's port header for bench/lwip-cost on a hosted C library (GCC or
 * Clang): lwIP's own defaults (arch.h) cover types, byte order and packing. */
#ifndef MOTEIP_BENCH_LWIP_CC_H
#define MOTEIP_BENCH_LWIP_CC_H

#include <stdio.h>
#include <stdlib.h>

/* Port numbers and MLD / ND delays: a fixed sequence, so runs repeat. */
unsigned bench_lwip_rand(void);
#define LWIP_RAND() ((u32_t)bench_lwip_rand())

#endif
