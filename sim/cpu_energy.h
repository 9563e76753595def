/*
 * The CPU's energy account (Contiki's Energest, by event): a node's CPU
 * active time is the sum over the events it handled of their count times
 * their measured cost, and its energy that time at the profile's active
 * current plus the rest of the run in low-power mode. The costs are active
 * cycles of the real stack on the ATmega1284P under simavr
 * (bench/avr-cycles --events, bench/avr_events.c), scaled to the radio
 * profile's microcontroller (docs/SIMULATOR.md "CPU energy" gives the
 * figures, their sources and the scaling).
 *
 * The counts come from counters every run keeps (nothing is charged
 * during the run, so an account never changes a run's events):
 *   channel_check  MAC rdc_checks (a duty-cycling RDC's periodic wake-up)
 *   frame_tx       transmissions on the air (retries, ACKs and RDC copies
 *                  included: c.frames_tx)
 *   frame_rx       frames received intact (c.frames_rx_ok)
 *   tcp_seg_in     TCP segments received (tcp segs_rx)
 *   tcp_seg_out    TCP segments sent (tcp segs_tx)
 */
#ifndef MOTEIP_SIM_CPU_ENERGY_H
#define MOTEIP_SIM_CPU_ENERGY_H

#include <stdint.h>

enum sim_cpu_event {
    SIM_CPU_CHANNEL_CHECK = 0,
    SIM_CPU_FRAME_TX,
    SIM_CPU_FRAME_RX,
    SIM_CPU_TCP_SEG_IN,
    SIM_CPU_TCP_SEG_OUT,
    SIM_CPU_EVENTS
};

/* A radio profile's microcontroller. */
struct sim_cpu_profile {
    const char *mcu;
    double clock_hz;            /* the CPU clock */
    double active_ma;           /* current while the CPU works */
    double lpm_ma;              /* ... and while it sleeps (timers kept) */
    double cycle_scale;         /* its cycles per counted cycle */
    /* its own counts per event, indexed by enum sim_cpu_event (NULL: the
     * ATmega1284P's); cycles = count x cycle_scale */
    const uint32_t *cycles;
    const char *cycles_from;    /* what counted them */
};

/* What a node's CPU did over a run. */
struct sim_cpu_account {
    uint64_t count[SIM_CPU_EVENTS];
    double active_us;           /* sum of count x cost */
    double duty_cycle;          /* active_us / the run's time (0 for none) */
    double charge_ma_us;        /* active at active_ma, the rest at lpm_ma */
};

struct sim;
struct sim_node;

/* The profile of enum sim_radio_profile_kind `radio_profile` (NULL out of
 * range). */
const struct sim_cpu_profile *sim_cpu_profile(uint8_t radio_profile);
/* The event's scenario-facing name ("channel_check", ...) and its measured
 * ATmega1284P cycles. */
const char *sim_cpu_event_name(enum sim_cpu_event e);
uint32_t sim_cpu_avr_cycles(enum sim_cpu_event e);
/* The event's cost on the profile's CPU, µs: its count (the profile's own,
 * else the ATmega1284P's) x cycle_scale / clock_hz. */
double sim_cpu_event_us(const struct sim_cpu_profile *p, enum sim_cpu_event e);
/* Node nd's account over the run so far. */
void sim_cpu_account(const struct sim *sim, const struct sim_node *nd,
                     struct sim_cpu_account *out);

#endif
