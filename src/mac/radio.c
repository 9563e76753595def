/* Radio timing defaults and airtime (see radio.h). */
#include "moteip/radio.h"

void mip_radio_timing_default(struct mip_radio_timing *t)
{
    /* 802.15.4-2006 O-QPSK 2.4 GHz: 62.5 ksymbol/s, 16 µs per symbol. */
    t->bitrate = 250000u;
    t->phy_hdr_bytes = 6u;      /* preamble 4 + SFD 1 + PHR 1 */
    t->turnaround_us = 192u;    /* aTurnaroundTime, 12 symbols */
    t->cca_us = 128u;           /* 8 symbols */
    t->backoff_us = 320u;       /* aUnitBackoffPeriod, 20 symbols */
    t->ack_wait_us = 864u;      /* macAckWaitDuration, 54 symbols */
    t->rx_on_us = 0u;           /* an ideal radio and host */
    t->frame_host_us = 0u;
    t->bus_bps = 0u;
    t->clock_ppm = 0u;
}

mip_utime_t mip_radio_airtime(const struct mip_radio_timing *t, size_t mpdu_len)
{
    uint64_t bits, us;
    /* A bit rate of 0 or a length beyond any PHY would overflow or divide
     * by zero: saturate instead, "never". */
    if (t->bitrate == 0u || mpdu_len > 0xFFFFu)
        return UINT32_MAX;
    bits = ((uint64_t)t->phy_hdr_bytes + (uint64_t)mpdu_len) * 8u;
    us = (bits * 1000000u + (uint64_t)t->bitrate - 1u) / (uint64_t)t->bitrate;
    return us > UINT32_MAX ? UINT32_MAX : (mip_utime_t)us;
}

mip_utime_t mip_radio_load_time(const struct mip_radio_timing *t, size_t mpdu_len)
{
    uint64_t us = t->frame_host_us;
    if (mpdu_len > 0xFFFFu)
        return UINT32_MAX;
    if (t->bus_bps != 0u)
        us += (((uint64_t)mpdu_len + 1u) * 8u * 1000000u + t->bus_bps - 1u) / t->bus_bps;
    return (mip_utime_t)us;
}
