/*
 * The micro profile (include/moteip/micro.h, docs/MICRO.md) as a firmware
 * for the SLIP boards: the uIP-model stack with its one packet buffer, IPv4
 * (192.0.2.2) or IPv6 (fd00::2) as the build says, on a board's drivers
 * (port/common/board_api.h). It answers ping and runs TCP discard on port 9
 * (RFC 863), the service bench/avr-cycles measures the receive path with.
 *
 * The driver is uIP's: SLIP decodes straight into the stack's buffer, a
 * complete frame goes to mip_micro_input, and whatever the stack leaves in
 * the buffer goes out SLIP-encoded before the next byte is decoded.
 */
#include <stdint.h>
#include <string.h>

#include "moteip/micro.h"
#include "moteip/wire/slip.h"
#include "board.h"

#define DISCARD_PORT 9u

struct micro_node {
    struct mip_micro m;
    struct mip_slip_dec dec;
    struct board_clock clock;
    mip_time_t next_tick;
    uint32_t discarded;          /* bytes the discard service received */
};

static struct micro_node node;

static void discard_app(struct mip_micro *m, struct mip_micro_conn *c, uint8_t ev)
{
    struct micro_node *n = m->ctx;
    (void)c;
    if (ev & MIP_MICRO_EV_NEWDATA)
        n->discarded += m->dlen;
}

static void send_out(struct micro_node *n, uint16_t len)
{
    if (len > 0)
        (void)mip_slip_encode(n->m.buf, len, board_uart_write, NULL);
}

/* Decodes what the UART received into the stack's buffer; each complete
 * frame runs through the stack at once (its reply overwrites the buffer,
 * which the decoder only writes again for the next frame). */
static void node_receive(struct micro_node *n)
{
    struct mip_byte_ring *rx = board_uart_rx();
    unsigned runs;

    for (runs = 0; runs < 2; runs++) {
        size_t len, off = 0;
        const uint8_t *p = mip_byte_ring_peek(rx, &len);
        if (len == 0)
            break;
        while (off < len) {
            enum mip_slip_event ev;
            off += mip_slip_decode(&n->dec, p + off, len - off, &ev);
            if (ev == MIP_SLIP_FRAME)
                send_out(n, mip_micro_input(&n->m, n->dec.len));
        }
        mip_byte_ring_consume(rx, len);
        board_uart_rx_resume();
    }
}

int main(void)
{
#if MIP_CONF_IPV6
    static const uint8_t addr[MIP_MICRO_ADDR_LEN] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
                                                      0, 0, 0, 0, 0, 0, 0, 2 };
#else
    static const uint8_t addr[MIP_MICRO_ADDR_LEN] = { 192, 0, 2, 2 };
#endif
    struct micro_node *n = &node;
    uint8_t seed[8];

    board_init(&n->clock);
    (void)board_entropy(seed, sizeof seed);
    mip_micro_init(&n->m, addr, seed, discard_app, n);
    (void)mip_micro_listen(&n->m, DISCARD_PORT);
    mip_slip_dec_init(&n->dec, n->m.buf, MIP_MICRO_BUF_SIZE);
    n->next_tick = board_now(&n->clock) + MIP_MICRO_TICK_MS;
    for (;;) {
        mip_time_t now;
        node_receive(n);
        now = board_now(&n->clock);
        if ((int32_t)(now - n->next_tick) >= 0) {
            uint8_t i;
            for (i = 0; i < MIP_MICRO_CONNS; i++)
                send_out(n, mip_micro_periodic(&n->m, i));
            n->next_tick += MIP_MICRO_TICK_MS;
            if ((int32_t)(now - n->next_tick) >= 0)
                n->next_tick = now + MIP_MICRO_TICK_MS;
            continue;
        }
        board_sleep(&n->clock, n->next_tick - now);
    }
}
