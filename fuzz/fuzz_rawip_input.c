/*
 * libFuzzer harness: the whole stack behind one raw-IP netif (MTU 1280,
 * frames are bare IPv4/IPv6 datagrams). Input format and checks:
 * stack_harness.h.
 */
#define HARNESS_ETHERNET 0
#include "stack_harness.h"
