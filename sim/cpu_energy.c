/*
 * The CPU energy account (cpu_energy.h): measured cycles per event, the
 * microcontroller of each radio profile, and a node's sum.
 */
#include "cpu_energy.h"
#include "sim.h"

/* Active cycles per event of the real stack (tiny profile, 6LoWPAN IPHC,
 * CSMA and ContikiMAC; avr-gcc -Os) on the ATmega1284P under simavr, from
 * `bench/avr-cycles --events` (64 events each, 64-byte payloads; the
 * figures and what each covers in docs/SIMULATOR.md "CPU energy"). */
static const uint32_t avr_cycles[SIM_CPU_EVENTS] = {
    [SIM_CPU_CHANNEL_CHECK] = 6186,
    [SIM_CPU_FRAME_TX]      = 8937,
    [SIM_CPU_FRAME_RX]      = 9880,
    [SIM_CPU_TCP_SEG_IN]    = 3609,
    [SIM_CPU_TCP_SEG_OUT]   = 16420,
};
/* Instructions per event of the same program and library options on the
 * Cortex-M4 (QEMU's MPS2 AN386, arm-none-eabi-gcc -Os), from
 * `bench/events-arm`; QEMU counts instructions, not cycles: the nRF52840 row
 * takes one cycle each (docs/SIMULATOR.md "CPU energy"). */
static const uint32_t m4_insns[SIM_CPU_EVENTS] = {
    [SIM_CPU_CHANNEL_CHECK] = 1114,
    [SIM_CPU_FRAME_TX]      = 1628,
    [SIM_CPU_FRAME_RX]      = 2301,
    [SIM_CPU_TCP_SEG_IN]    = 640,
    [SIM_CPU_TCP_SEG_OUT]   = 3427,
};
static const char *const event_names[SIM_CPU_EVENTS] = {
    "channel_check", "frame_tx", "frame_rx", "tcp_seg_in", "tcp_seg_out",
};

/* Indexed by enum sim_radio_profile_kind. Sources in docs/SIMULATOR.md:
 * TelosB: the MSP430F1611 at 8 MHz (Buergi 2011, s.3.4.1), 2.4 mA with
 * the radio off (the TelosB datasheet, as Buergi cites it, s.3.3) and
 * 5.1 uA in standby (TelosB / Tmote Sky datasheets); Hamilton: the SAM R21's Cortex-M0+ at 48 MHz (TCPlp s.3),
 * 4.09 mA active (RIOT on a SAM D21, measured) and 3.8 uA in standby
 * with the RTC (Atmel, SAM D20); nRF52840: its Cortex-M4F at 64 MHz, 3.3 mA
 * running CoreMark from flash (HFXO, DC/DC; PS ICPU0) and 3.16 uA in System
 * ON with full RAM retention, waking on the RTC (PS ION_RAMON_RTC). The
 * MSP430 and the SAM R21 take one cycle per AVR cycle, the approximation
 * docs/SIMULATOR.md argues; the nRF52840 one per measured Cortex-M4
 * instruction, a lower bound. */
static const struct sim_cpu_profile cpu_profiles[] = {
    [SIM_RADIO_CC2420]    = { "MSP430F1611", 8e6, 2.4, 0.0051, 1.0, NULL,
                              "ATmega1284P cycles (simavr)" },
    [SIM_RADIO_AT86RF233] = { "ATSAMR21 (Cortex-M0+)", 48e6, 4.09, 0.0038, 1.0, NULL,
                              "ATmega1284P cycles (simavr)" },
    [SIM_RADIO_NRF52840]  = { "nRF52840 (Cortex-M4F)", 64e6, 3.3, 0.00316, 1.0, m4_insns,
                              "Cortex-M4 instructions (QEMU)" },
};
/* A new radio profile needs its CPU here (a missing one would divide by a
 * clock of 0). */
_Static_assert(sizeof(cpu_profiles) / sizeof(cpu_profiles[0]) == SIM_RADIO_PROFILES,
               "every radio profile needs its CPU in cpu_profiles");

const struct sim_cpu_profile *sim_cpu_profile(uint8_t radio_profile)
{
    return radio_profile < SIM_RADIO_PROFILES ? &cpu_profiles[radio_profile] : NULL;
}

const char *sim_cpu_event_name(enum sim_cpu_event e)
{
    return (unsigned)e < SIM_CPU_EVENTS ? event_names[e] : "?";
}

uint32_t sim_cpu_avr_cycles(enum sim_cpu_event e)
{
    return (unsigned)e < SIM_CPU_EVENTS ? avr_cycles[e] : 0u;
}

double sim_cpu_event_us(const struct sim_cpu_profile *p, enum sim_cpu_event e)
{
    uint32_t n = p->cycles == NULL ? sim_cpu_avr_cycles(e)
                 : (unsigned)e < SIM_CPU_EVENTS ? p->cycles[e] : 0u;
    return (double)n * p->cycle_scale / p->clock_hz * 1e6;
}

void sim_cpu_account(const struct sim *sim, const struct sim_node *nd,
                     struct sim_cpu_account *out)
{
    const struct sim_cpu_profile *p = sim_cpu_profile(sim->sc->radio_profile);
    double run_us = (double)sim->now_us, idle_us;
    int k;
    out->count[SIM_CPU_CHANNEL_CHECK] = mip_mac_stat(&nd->mac, MIP_MAC_STAT_rdc_checks);
    out->count[SIM_CPU_FRAME_TX] = nd->c.frames_tx;
    out->count[SIM_CPU_FRAME_RX] = nd->c.frames_rx_ok;
    out->count[SIM_CPU_TCP_SEG_IN] = nd->tcp_on ? mip_tcp_stat(&nd->tcp, MIP_TCP_STAT_segs_rx) : 0u;
    out->count[SIM_CPU_TCP_SEG_OUT] = nd->tcp_on ? mip_tcp_stat(&nd->tcp, MIP_TCP_STAT_segs_tx) : 0u;
    out->active_us = 0.0;
    for (k = 0; k < SIM_CPU_EVENTS; k++)
        out->active_us += (double)out->count[k] * sim_cpu_event_us(p, (enum sim_cpu_event)k);
    /* a CPU cannot work more than the run lasted: a saturated node's
     * account is capped there (its events would have queued up) */
    if (out->active_us > run_us)
        out->active_us = run_us;
    idle_us = run_us - out->active_us;
    out->duty_cycle = run_us > 0.0 ? out->active_us / run_us : 0.0;
    out->charge_ma_us = p->active_ma * out->active_us + p->lpm_ma * idle_us;
}
