/*
 * libFuzzer harness: the whole stack behind one Ethernet netif
 * (MAC 02:00:00:00:00:02). Input format and checks: stack_harness.h.
 */
#define HARNESS_ETHERNET 1
#include "stack_harness.h"
