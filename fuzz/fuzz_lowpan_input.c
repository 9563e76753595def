/*
 * libFuzzer harness: the whole stack behind two IEEE 802.15.4 radio netifs,
 * one 6LoWPAN (IPHC, fragmentation, reassembly) and one RAW_IP with a
 * 23-byte link header. Input format and checks: stack_harness.h.
 */
#define HARNESS_ETHERNET 0
#define HARNESS_LOWPAN 1
#include "stack_harness.h"
