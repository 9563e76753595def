/* LAN9118 driver: programmed I/O on the FIFOs. See lan9118.h. */
#include "lan9118.h"

#include <string.h>
#include "mps2.h"

#define SPIN_MAX (1u << 16)               /* bound on every wait for the chip */

static bool mac_csr_wait(void)
{
    uint32_t spin = 0;
    while ((ETH_MAC_CSR_CMD & ETH_MAC_CSR_BUSY) && ++spin < SPIN_MAX)
        ;
    return spin < SPIN_MAX;
}

static uint32_t mac_read(uint32_t reg)
{
    ETH_MAC_CSR_CMD = ETH_MAC_CSR_BUSY | ETH_MAC_CSR_READ | reg;
    (void)mac_csr_wait();
    return ETH_MAC_CSR_DATA;
}

static void mac_write(uint32_t reg, uint32_t v)
{
    ETH_MAC_CSR_DATA = v;
    ETH_MAC_CSR_CMD = ETH_MAC_CSR_BUSY | reg;
    (void)mac_csr_wait();
}

static void phy_write(uint32_t reg, uint32_t v)
{
    uint32_t spin = 0;
    mac_write(ETH_MAC_MII_DATA, v);
    mac_write(ETH_MAC_MII_ACC, ETH_MII_PHY | (reg << 6) | ETH_MII_WRITE | ETH_MII_BUSY);
    while ((mac_read(ETH_MAC_MII_ACC) & ETH_MII_BUSY) && ++spin < SPIN_MAX)
        ;
}

bool lan9118_init(struct lan9118 *e)
{
    uint32_t spin = 0, lo, hi;

    memset(e, 0, sizeof *e);
    if (ETH_BYTE_TEST != ETH_BYTE_TEST_VALUE)
        return false;
    ETH_HW_CFG = ETH_HW_CFG_SRST;
    while ((ETH_HW_CFG & ETH_HW_CFG_SRST) && ++spin < SPIN_MAX)
        ;
    while (!(ETH_PMT_CTRL & ETH_PMT_CTRL_READY) && ++spin < SPIN_MAX)
        ;
    if (spin == SPIN_MAX)
        return false;
    ETH_HW_CFG = ETH_HW_CFG_MBO | ETH_HW_CFG_TX_FIF_5;
    ETH_AFC_CFG = ETH_AFC_CFG_DEFAULT;

    lo = mac_read(ETH_MAC_ADDRL);
    hi = mac_read(ETH_MAC_ADDRH);
    e->mac[0] = (uint8_t)lo;
    e->mac[1] = (uint8_t)(lo >> 8);
    e->mac[2] = (uint8_t)(lo >> 16);
    e->mac[3] = (uint8_t)(lo >> 24);
    e->mac[4] = (uint8_t)hi;
    e->mac[5] = (uint8_t)(hi >> 8);

    phy_write(ETH_PHY_BCR, ETH_PHY_BCR_ANEG);
    /* Own address, broadcast and all multicast (IPv6 neighbour discovery
     * goes to solicited-node groups); full duplex, as negotiated on a
     * switch port. */
    mac_write(ETH_MAC_CR, ETH_MAC_CR_TXEN | ETH_MAC_CR_RXEN | ETH_MAC_CR_MCPAS |
                          ETH_MAC_CR_FDPX);
    ETH_TX_CFG = ETH_TX_CFG_TX_ON | ETH_TX_CFG_TXSAO;
    ETH_RX_CFG = 0;                        /* no offset, 4-byte end alignment */
    ETH_FIFO_INT = 0x48000000u;            /* interrupt at the first status */
    ETH_INT_STS = 0xFFFFFFFFu;
    ETH_INT_EN = ETH_INT_RSFL;
    ETH_IRQ_CFG = ETH_IRQ_CFG_EN | ETH_IRQ_CFG_POL | ETH_IRQ_CFG_TYPE;
    /* Only now: after reset the line is active low, so it was asserted
     * (high) while nothing was pending. */
    NVIC_ICPR = 1u << ETH_IRQ;
    NVIC_ISER = 1u << ETH_IRQ;
    return true;
}

static unsigned rx_statuses(void)
{
    return (ETH_RX_FIFO_INF >> 16) & 0xFFu;
}

bool lan9118_rx_waiting(void)
{
    return rx_statuses() != 0;
}

unsigned lan9118_receive(struct lan9118 *e, struct mip_stack *s, uint8_t netif, unsigned max,
                         mip_time_t now)
{
    unsigned done = 0;

    while (done < max && rx_statuses() != 0) {
        uint32_t st = ETH_RX_STATUS_FIFO;
        uint32_t len = ETH_RX_STS_LEN(st);
        uint32_t words = (len + 3u) / 4u, i;
        bool keep = !(st & (ETH_RX_STS_ES | ETH_RX_STS_FILT)) && len > 4u &&
                    words <= LAN9118_FRAME_WORDS;

        /* The words are read in any case: the frame leaves the FIFO. */
        for (i = 0; i < words; i++) {
            uint32_t w = ETH_RX_DATA_FIFO;
            if (keep)
                e->frame[i] = w;
        }
        done++;
        if (!keep) {
            if (words > LAN9118_FRAME_WORDS)
                e->rx_too_big++;
            else
                e->rx_errors++;
            continue;
        }
        e->rx_frames++;
        mip_stack_input(s, netif, (const uint8_t *)e->frame, len - 4u, now);
    }
    return done;
}

static mip_status lan9118_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct lan9118 *e = ctx;
    uint32_t words = ((uint32_t)len + 3u) / 4u, spin = 0, i;

    if (len == 0 || len > 1514u)
        return MIP_ERR_INVALID;
    /* TDFREE: bytes of room; a frame takes its words and two commands. */
    while ((ETH_TX_FIFO_INF & 0xFFFFu) < words * 4u + 8u) {
        if (++spin == SPIN_MAX) {
            e->tx_full++;
            return MIP_ERR_NOBUFS;
        }
    }
    ETH_TX_DATA_FIFO = ETH_TX_CMD_A_FIRST | ETH_TX_CMD_A_LAST | (uint32_t)len;
    ETH_TX_DATA_FIFO = ((uint32_t)len << 16) | (uint32_t)len;  /* tag, length */
    for (i = 0; i < words; i++) {
        uint32_t w = 0;
        size_t k = len - 4u * i < 4u ? len - 4u * i : 4u;
        memcpy(&w, frame + 4u * i, k);     /* the FIFO is little-endian */
        ETH_TX_DATA_FIFO = w;
    }
    e->tx_frames++;
    return MIP_OK;
}

const struct mip_netif_driver lan9118_driver = {
    .transmit = lan9118_transmit,
};

void lan9118_irq(void)
{
    ETH_INT_STS = ETH_INT_RSFL | ETH_INT_RXE;  /* write one to clear */
}
