/*
 * The registers the MPS2 port uses on QEMU's `mps2-an385` (ARM
 * Application Note AN385: Cortex-M3 on the V2M-MPS2 board): two CMSDK APB
 * timers (ARM CoreLink SDK, DDI 0479) and the SMSC LAN9118 Ethernet
 * controller (LAN9118 datasheet, section 5), with their NVIC lines.
 * Memory: 4 MB of code SSRAM at 0, 4 MB of data SSRAM at 0x20000000,
 * 16 MB of PSRAM at 0x21000000. PCLK is 25 MHz.
 */
#ifndef MOTEIP_PORT_MPS2_H
#define MOTEIP_PORT_MPS2_H

#include <stdint.h>
#include "cortexm.h"                     /* NVIC, SCB, interrupt mask, WFI */

#define MPS2_PCLK_HZ        25000000u

/* CMSDK APB timers: 32-bit down-counters; at zero they reload RELOAD and,
 * with CTRL_IRQ_EN, raise their interrupt (INTCLEAR clears it). */
#define TIMER0_BASE         0x40000000u
#define TIMER1_BASE         0x40001000u
#define TIMER0_IRQ          8u
#define TIMER1_IRQ          9u
#define TIMER_CTRL(b)       CM_REG((b) + 0x00u)
#define TIMER_VALUE(b)      CM_REG((b) + 0x04u)
#define TIMER_RELOAD(b)     CM_REG((b) + 0x08u)
#define TIMER_INTCLEAR(b)   CM_REG((b) + 0x0Cu)
#define TIMER_CTRL_EN       1u
#define TIMER_CTRL_IRQ_EN   8u

/* LAN9118 in 32-bit mode */
#define ETH_BASE            0x40200000u
#define ETH_IRQ             13u
#define ETH_RX_DATA_FIFO    CM_REG(ETH_BASE + 0x00u)
#define ETH_TX_DATA_FIFO    CM_REG(ETH_BASE + 0x20u)
#define ETH_RX_STATUS_FIFO  CM_REG(ETH_BASE + 0x40u)
#define ETH_ID_REV          CM_REG(ETH_BASE + 0x50u)
#define ETH_IRQ_CFG         CM_REG(ETH_BASE + 0x54u)
#define ETH_INT_STS         CM_REG(ETH_BASE + 0x58u)
#define ETH_INT_EN          CM_REG(ETH_BASE + 0x5Cu)
#define ETH_BYTE_TEST       CM_REG(ETH_BASE + 0x64u)
#define ETH_FIFO_INT        CM_REG(ETH_BASE + 0x68u)
#define ETH_RX_CFG          CM_REG(ETH_BASE + 0x6Cu)
#define ETH_TX_CFG          CM_REG(ETH_BASE + 0x70u)
#define ETH_HW_CFG          CM_REG(ETH_BASE + 0x74u)
#define ETH_RX_FIFO_INF     CM_REG(ETH_BASE + 0x7Cu)
#define ETH_TX_FIFO_INF     CM_REG(ETH_BASE + 0x80u)
#define ETH_PMT_CTRL        CM_REG(ETH_BASE + 0x84u)
#define ETH_MAC_CSR_CMD     CM_REG(ETH_BASE + 0xA4u)
#define ETH_MAC_CSR_DATA    CM_REG(ETH_BASE + 0xA8u)
#define ETH_AFC_CFG         CM_REG(ETH_BASE + 0xACu)

#define ETH_BYTE_TEST_VALUE 0x87654321u
#define ETH_HW_CFG_SRST     (1u << 0)
#define ETH_HW_CFG_MBO      (1u << 20)     /* must be one */
#define ETH_HW_CFG_TX_FIF_5 (5u << 16)     /* 5 KB of TX FIFO (the default) */
#define ETH_PMT_CTRL_READY  (1u << 0)
#define ETH_IRQ_CFG_EN      (1u << 8)
#define ETH_IRQ_CFG_POL     (1u << 4)      /* active high */
#define ETH_IRQ_CFG_TYPE    (1u << 0)      /* push-pull */
#define ETH_INT_RSFL        (1u << 3)      /* RX status FIFO above its level */
#define ETH_INT_RXE         (1u << 14)     /* receiver error */
#define ETH_TX_CFG_TX_ON    (1u << 1)
#define ETH_TX_CFG_TXSAO    (1u << 2)      /* TX status may overrun: not read */
#define ETH_RX_STS_LEN(s)   (((s) >> 16) & 0x3FFFu)   /* frame + 4 FCS bytes */
#define ETH_RX_STS_ES       (1u << 15)     /* error summary */
#define ETH_RX_STS_FILT     (1u << 30)     /* failed the address filter */
#define ETH_TX_CMD_A_FIRST  (1u << 13)
#define ETH_TX_CMD_A_LAST   (1u << 12)
#define ETH_AFC_CFG_DEFAULT 0x006E3740u    /* datasheet's recommended levels */

/* MAC control and status registers, through MAC_CSR_CMD/DATA */
#define ETH_MAC_CSR_BUSY    (1u << 31)
#define ETH_MAC_CSR_READ    (1u << 30)
#define ETH_MAC_CR          1u
#define ETH_MAC_ADDRH       2u
#define ETH_MAC_ADDRL       3u
#define ETH_MAC_MII_ACC     6u
#define ETH_MAC_MII_DATA    7u
#define ETH_MAC_CR_RXEN     (1u << 2)
#define ETH_MAC_CR_TXEN     (1u << 3)
#define ETH_MAC_CR_MCPAS    (1u << 19)     /* all multicast (IPv6 ND, MLD) */
#define ETH_MAC_CR_FDPX     (1u << 20)
#define ETH_MII_BUSY        (1u << 0)
#define ETH_MII_WRITE       (1u << 1)
#define ETH_MII_PHY         (1u << 11)     /* the internal PHY's address, 1 */
#define ETH_PHY_BCR         0u
#define ETH_PHY_BSR         1u
#define ETH_PHY_BCR_ANEG    0x1200u        /* auto-negotiation on, restart */
#define ETH_PHY_BSR_LINK    (1u << 2)

/* A 16-byte seed written into PSRAM by whoever starts the board (QEMU's
 * `-device loader`): the provisioning block (docs/PORTING.md). */
#define MPS2_SEED_ADDR      0x21000000u

#endif
