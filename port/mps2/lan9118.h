/*
 * A driver for the SMSC LAN9118 Ethernet controller (and the LAN9220 the
 * MPS2 board carries, which is register-compatible), by programmed I/O on
 * its 32-bit FIFOs: the `struct mip_netif_driver` of an Ethernet netif,
 * and a receive function the main loop calls.
 *
 * Interrupt context: only lan9118_irq(), which acknowledges the "receive
 * status FIFO level" interrupt: its work is to end the main loop's WFI.
 * The main loop sees waiting frames in RX_FIFO_INF (lan9118_rx_waiting)
 * and reads and writes the FIFOs itself.
 */
#ifndef MOTEIP_PORT_MPS2_LAN9118_H
#define MOTEIP_PORT_MPS2_LAN9118_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "moteip/netif.h"
#include "moteip/stack.h"

/* Longest frame taken: 1,514 bytes of Ethernet + 4 of FCS, in words. */
#define LAN9118_FRAME_WORDS ((1514u + 4u + 3u) / 4u)

struct lan9118 {
    uint8_t mac[6];
    uint32_t rx_frames, tx_frames;
    uint32_t rx_errors;            /* frames the chip flagged (CRC, runt, ...) */
    uint32_t rx_too_big;           /* frames longer than LAN9118_FRAME_WORDS */
    uint32_t tx_full;              /* frames refused: no room in the TX FIFO */
    uint32_t frame[LAN9118_FRAME_WORDS];   /* one received frame, word-aligned */
};

extern const struct mip_netif_driver lan9118_driver;

/* Resets the chip, reads its MAC address (from its EEPROM, or what was
 * set) into e->mac, starts auto-negotiation, enables TX, RX (own address,
 * broadcast, all multicast) and the receive interrupt. false when no
 * LAN9118 answers (BYTE_TEST) or the reset does not complete. */
bool lan9118_init(struct lan9118 *e);

/* Hands at most `max` received frames to mip_stack_input on `netif`.
 * Returns how many it took; frames with errors or over the size are read
 * out, counted and dropped. */
unsigned lan9118_receive(struct lan9118 *e, struct mip_stack *s, uint8_t netif, unsigned max,
                         mip_time_t now);

/* True when a frame waits in the chip (the main loop's sleep test). */
bool lan9118_rx_waiting(void);

/* The interrupt handler's work (ETH_IRQ). */
void lan9118_irq(void);

#endif
