/*
 * A "board" that is a Linux process, for tests/install/test_install.py: the
 * installed port helpers (share/moteip/port/common/) built the way a
 * bare-metal firmware builds them, with this board.h in place of a chip's.
 * The UART is stdin (received bytes) and stdout (sent bytes); the clock is
 * CLOCK_MONOTONIC through the same tick clock the micro:bit and the AVR use;
 * entropy is fixed (a test). A real port's board.h has the same shape:
 * struct board_clock, BOARD_UART_RX_RING and STACK_PAINT, then board_api.h.
 */
#ifndef HOSTBOARD_BOARD_H
#define HOSTBOARD_BOARD_H

#include <stdint.h>
#include "moteip/timer.h"

#define STACK_PAINT 0xA5u
#ifndef BOARD_UART_RX_RING
#define BOARD_UART_RX_RING 1024u
#endif

#include "tick_clock.h"
#include "board_api.h"

#endif
