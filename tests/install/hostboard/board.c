/*
 * The host "board" of tests/install (board.h): board_api.h over stdin,
 * stdout and CLOCK_MONOTONIC, so slip_node.c from an installed moteip runs
 * as a process and a test talks SLIP to it through a pipe. It ends when
 * stdin closes.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "board.h"

static uint8_t rx_buf[BOARD_UART_RX_RING];
static struct mip_byte_ring rx;

static uint32_t micros(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)((uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u);
}

void board_init(struct board_clock *c)
{
    (void)mip_byte_ring_init(&rx, rx_buf, sizeof rx_buf);
    tick_clock_start(c, micros());
}

mip_time_t board_now(struct board_clock *c)
{
    return tick_clock_advance(c, micros(), 1000u);
}

/* Reads what stdin has into the ring (the "receive interrupt"). */
static void take_input(void)
{
    uint8_t b[256];
    size_t room = sizeof rx_buf - mip_byte_ring_count(&rx);
    ssize_t n;
    size_t i;

    if (room == 0)
        return;
    n = read(0, b, room < sizeof b ? room : sizeof b);
    if (n == 0)
        exit(0);                        /* the test closed the line */
    for (i = 0; n > 0 && i < (size_t)n; i++)
        (void)mip_byte_ring_put(&rx, b[i]);
}

void board_sleep(struct board_clock *c, uint32_t ms)
{
    struct pollfd p = {0, POLLIN, 0};
    (void)c;
    if (mip_byte_ring_count(&rx) > 0)
        return;
    if (poll(&p, 1, ms > 1000u ? 1000 : (int)ms) > 0)
        take_input();
}

bool board_entropy(uint8_t *out, size_t n)
{
    memset(out, 0x5A, n);
    return false;
}

mip_status board_uart_write(void *ctx, const uint8_t *bytes, size_t len)
{
    (void)ctx;
    while (len > 0) {
        ssize_t w = write(1, bytes, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return MIP_ERR_NOBUFS;
        bytes += w;
        len -= (size_t)w;
    }
    return MIP_OK;
}

struct mip_byte_ring *board_uart_rx(void)
{
    return &rx;
}

void board_uart_rx_resume(void)
{
}

uint32_t board_uart_errors(void)
{
    return 0;
}
