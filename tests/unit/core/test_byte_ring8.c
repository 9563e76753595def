/* The byte ring tests with AVR's 8-bit indices (test_byte_ring.c). */
#define MIP_RING_IDX_T uint8_t
#include "test_byte_ring.c"
