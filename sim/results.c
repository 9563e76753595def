/*
 * The result JSON: run facts, one object per flow (apps.c), one per node
 * (radio, MAC and stack counters, energy), and network totals; then the
 * services, the border router and the real-time figures of runs that have
 * them. Nothing but "realtime" depends on the wall clock or the machine, so
 * a scenario and a seed always give the same bytes without --realtime.
 */
#include "sim.h"
#include "border.h"
#include "external.h"
#include "realtime.h"
#include "cpu_energy.h"
#include "json.h"
#include <string.h>

/* RPL's downward counters by name (moteip/rpl_down.h's list) */
static const char *const rpl_down_stat_names[] = {
#define RPL_DOWN_NAME(n) #n,
    MIP_RPL_DOWN_STATS_LIST(RPL_DOWN_NAME)
#undef RPL_DOWN_NAME
};

/* Charge a node's radio drew, mA * us: the time in each state times its
 * current. Times the supply voltage it is energy: mA * us * V = 1e-6 mJ. */
static double node_charge_ma_us(const struct sim *sim, const struct sim_node *nd)
{
    const struct sim_radio_profile *r = &sim->sc->radio;
    return r->tx_ma * (double)nd->c.us_tx + r->rx_ma * (double)nd->c.us_rx +
           r->listen_ma * (double)nd->c.us_listen + r->off_ma * (double)nd->c.us_off;
}

/* x per simulated hour, or null for a run of no time. */
static void member_per_hour(struct sj_writer *w, const char *key, double x, uint64_t run_us)
{
    sj_w_key(w, key);
    if (run_us == 0u)
        sj_w_null(w);
    else
        sj_w_double(w, x * 3.6e9 / (double)run_us);
}

/* Nodes i hears and is heard by (reception ratio > 0 both ways) at the
 * end: its degree in the connectivity graph (Trickle's suppression). */
static uint32_t usable_neighbours(const struct sim *sim, uint32_t i)
{
    const struct sim_node *nd = &sim->node[i];
    uint32_t n = 0;
    size_t k;
    for (k = 0; k < nd->n_nbr; k++)
        if (sim_link_prr(sim, i, nd->nbr[k].node, sim->sc->frame_max) > 0.0 &&
            sim_link_prr(sim, nd->nbr[k].node, i, sim->sc->frame_max) > 0.0)
            n++;
    return n;
}

/* x per delivered unit, or null when nothing was delivered. */
static void member_per(struct sj_writer *w, const char *key, double x, uint64_t units, double scale)
{
    sj_w_key(w, key);
    if (units == 0u)
        sj_w_null(w);
    else
        sj_w_double(w, x / ((double)units / scale));
}

static void write_radio(struct sj_writer *w, const struct sim_scenario *sc)
{
    sj_w_key(w, "radio");
    sj_w_begin_object(w);
    sj_w_key(w, "profile");
    sj_w_string(w, sim_radio_profile_name(sc->radio_profile));
    sj_w_member_double(w, "tx_ma", sc->radio.tx_ma);
    sj_w_member_double(w, "rx_ma", sc->radio.rx_ma);
    sj_w_member_double(w, "listen_ma", sc->radio.listen_ma);
    sj_w_member_double(w, "off_ma", sc->radio.off_ma);
    sj_w_member_double(w, "voltage", sc->radio.voltage);
    sj_w_key(w, "platform");
    sj_w_string(w, sim_platform_name(sc->platform));
    sj_w_member_double(w, "rx_on_us", sc->timing.rx_on_us);
    sj_w_member_double(w, "frame_host_us", sc->timing.frame_host_us);
    sj_w_member_double(w, "bus_bps", (double)sc->timing.bus_bps);
    sj_w_member_double(w, "drift_ppm", sc->drift_ppm);
    sj_w_end_object(w);
}

/* The CPU the account assumed (cpu_energy.h): its clock, currents and the
 * cost of each event on it. */
static void write_cpu(struct sj_writer *w, const struct sim_scenario *sc)
{
    const struct sim_cpu_profile *p = sim_cpu_profile(sc->radio_profile);
    int k;
    sj_w_key(w, "cpu");
    sj_w_begin_object(w);
    sj_w_key(w, "mcu");
    sj_w_string(w, p->mcu);
    sj_w_member_double(w, "clock_hz", p->clock_hz);
    sj_w_member_double(w, "active_ma", p->active_ma);
    sj_w_member_double(w, "lpm_ma", p->lpm_ma);
    sj_w_member_double(w, "cycle_scale", p->cycle_scale);
    sj_w_key(w, "cycles_from");
    sj_w_string(w, p->cycles_from);
    sj_w_key(w, "event_us");
    sj_w_begin_object(w);
    for (k = 0; k < SIM_CPU_EVENTS; k++)
        sj_w_member_double(w, sim_cpu_event_name((enum sim_cpu_event)k),
                           sim_cpu_event_us(p, (enum sim_cpu_event)k));
    sj_w_end_object(w);
    sj_w_end_object(w);
}

/* A node's CPU account beside its radio's: duty cycle, energy, and the
 * events it was charged for. */
static void write_node_cpu(struct sj_writer *w, const struct sim_cpu_account *a, double voltage)
{
    int k;
    sj_w_member_double(w, "cpu_duty_cycle", a->duty_cycle);
    sj_w_member_double(w, "cpu_energy_mj", a->charge_ma_us * 1e-6 * voltage);
    sj_w_key(w, "cpu");
    sj_w_begin_object(w);
    sj_w_member_double(w, "active_s", a->active_us / 1e6);
    for (k = 0; k < SIM_CPU_EVENTS; k++)
        sj_w_member_uint(w, sim_cpu_event_name((enum sim_cpu_event)k), a->count[k]);
    sj_w_end_object(w);
}

void sim_write_result(struct sim *sim, FILE *out)
{
    struct sj_writer w;
    uint32_t i;
    int k;
    uint64_t tot_tx = 0, tot_coll = 0, tot_corrupt = 0, tot_retries = 0, tot_noack = 0;
    uint64_t tot_tcp_data = 0, tot_tcp_ack = 0, tot_ctrl = 0, tot_ctrl_bytes = 0;
    double tot_energy = 0.0, tot_energy_mj = 0.0, tot_on_us = 0.0;
    double tot_cpu_us = 0.0, tot_cpu_mj = 0.0;
    struct sim_delivered dlv;
    sim_apps_delivered(sim, &dlv);
    sj_writer_init(&w, out, 1);
    sj_w_begin_object(&w);
    sj_w_key(&w, "scenario");
    sj_w_string(&w, sim->sc->name);
    sj_w_member_uint(&w, "seed", sim->sc->seed);
    sj_w_member_uint(&w, "nodes", sim->n);
    sj_w_member_double(&w, "sim_time_s", (double)sim->now_us / 1e6);
    sj_w_member_uint(&w, "events", sim->events);
    write_radio(&w, sim->sc);
    write_cpu(&w, sim->sc);
    sj_w_key(&w, "flows");
    sim_apps_write(sim, &w);
    sj_w_key(&w, "node_stats");
    sj_w_begin_array(&w);
    for (i = 0; i < sim->n; i++) {
        const struct sim_node *nd = &sim->node[i];
        double on_us = (double)(nd->c.us_tx + nd->c.us_rx + nd->c.us_listen);
        double q = node_charge_ma_us(sim, nd);
        double e = q * 1e-3 * 1e-6 * sim->sc->radio.voltage;   /* J */
        double e_mj = q * 1e-6 * sim->sc->radio.voltage;
        struct sim_cpu_account cpu;
        sim_cpu_account(sim, nd, &cpu);
        tot_cpu_us += cpu.active_us;
        tot_cpu_mj += cpu.charge_ma_us * 1e-6 * sim->sc->radio.voltage;
        tot_tx += nd->c.frames_tx;
        tot_tcp_data += nd->c.tcp_data_frames_tx;
        tot_tcp_ack += nd->c.tcp_ack_frames_tx;
        tot_ctrl += nd->c.ctrl_frames_tx;
        tot_ctrl_bytes += nd->c.ctrl_bytes_tx;
        tot_coll += nd->c.frames_rx_collided;
        tot_corrupt += nd->c.frames_rx_corrupted;
        tot_retries += mip_mac_stat(&nd->mac, MIP_MAC_STAT_tx_retries);
        tot_noack += mip_mac_stat(&nd->mac, MIP_MAC_STAT_tx_noack);
        tot_energy += e;
        tot_energy_mj += e_mj;
        tot_on_us += on_us;
        sj_w_begin_object(&w);
        sj_w_member_uint(&w, "id", i);
        sj_w_key(&w, "rdc");
        sj_w_string(&w, sim_rdc_name(nd->mac.cfg.rdc.kind));
        if (sim->sc->drift_ppm > 0.0)   /* its clock's rate error (platform timing) */
            sj_w_member_double(&w, "clock_ppm", (double)nd->drift_ppb / 1000.0);
        sj_w_member_uint(&w, "frames_tx", nd->c.frames_tx);
        sj_w_member_uint(&w, "tcp_data_frames_tx", nd->c.tcp_data_frames_tx);
        sj_w_member_uint(&w, "tcp_ack_frames_tx", nd->c.tcp_ack_frames_tx);
        sj_w_member_uint(&w, "bytes_tx", nd->c.bytes_tx);
        sj_w_member_uint(&w, "control_frames_tx", nd->c.ctrl_frames_tx);
        sj_w_member_uint(&w, "control_bytes_tx", nd->c.ctrl_bytes_tx);
        member_per_hour(&w, "control_frames_per_h", (double)nd->c.ctrl_frames_tx, sim->now_us);
        member_per_hour(&w, "control_bytes_per_h", (double)nd->c.ctrl_bytes_tx, sim->now_us);
        member_per_hour(&w, "energy_j_per_h", e, sim->now_us);
        sj_w_member_uint(&w, "neighbours", usable_neighbours(sim, i));
        sj_w_member_uint(&w, "routes", sim_node_routes(nd));
        sj_w_member_uint(&w, "routes_peak", nd->route_peak);
        if (nd->boots > 0u || nd->down) {
            sj_w_member_uint(&w, "reboots", nd->boots);
            sj_w_key(&w, "down_at_end");
            sj_w_bool(&w, nd->down);
        }
        sj_w_member_uint(&w, "frames_rx", nd->c.frames_rx_ok);
        sj_w_member_uint(&w, "frames_collided", nd->c.frames_rx_collided);
        sj_w_member_uint(&w, "frames_corrupted", nd->c.frames_rx_corrupted);
        sj_w_member_uint(&w, "frames_aborted", nd->c.frames_rx_lost);
        sj_w_member_uint(&w, "frames_missed_busy", nd->c.frames_missed_busy);
        if (sim->sc->overhear_header_bytes > 0u)
            sj_w_member_uint(&w, "frames_header_only", nd->c.frames_header_only);
        sj_w_member_double(&w, "radio_on_s", on_us / 1e6);
        sj_w_member_double(&w, "tx_s", (double)nd->c.us_tx / 1e6);
        sj_w_member_double(&w, "rx_s", (double)nd->c.us_rx / 1e6);
        sj_w_member_double(&w, "listen_s", (double)nd->c.us_listen / 1e6);
        sj_w_member_double(&w, "sleep_s", (double)nd->c.us_off / 1e6);
        sj_w_member_double(&w, "duty_cycle", sim->now_us ? on_us / (double)sim->now_us : 0.0);
        sj_w_member_double(&w, "energy_j", e);
        sj_w_member_double(&w, "energy_mj", e_mj);
        write_node_cpu(&w, &cpu, sim->sc->radio.voltage);
        member_per(&w, "radio_on_per_delivered_segment_ms", on_us / 1e3, dlv.segments, 1.0);
        member_per(&w, "energy_per_delivered_kb_mj", e_mj, dlv.bytes, 1000.0);
        sj_w_key(&w, "mac");
        sj_w_begin_object(&w);
        for (k = 0; k < MIP_MAC_STAT_COUNT; k++) {
            uint32_t v = mip_mac_stat(&nd->mac, (enum mip_mac_stat)k);
            if (v != 0)
                sj_w_member_uint(&w, mip_mac_stat_name((enum mip_mac_stat)k), v);
        }
        sj_w_end_object(&w);
        sj_w_key(&w, "stack");
        sj_w_begin_object(&w);
        for (k = 0; k < MIP_STAT_COUNT; k++) {
            uint32_t v = mip_stack_stat(&nd->stack, (enum mip_stat)k);
            if (v != 0 && mip_stat_name((enum mip_stat)k) != NULL)
                sj_w_member_uint(&w, mip_stat_name((enum mip_stat)k), v);
        }
        sj_w_end_object(&w);
        if (sim->sc->relay.mode != MIP_RELAY_OFF) {
            sj_w_key(&w, "relay");
            sj_w_begin_object(&w);
            for (k = 0; k < MIP_RELAY_STAT_COUNT; k++) {
                uint32_t v = mip_relay_stat(nd->relay, (enum mip_relay_stat)k);
                if (v != 0 && mip_relay_stat_name((unsigned)k) != NULL)
                    sj_w_member_uint(&w, mip_relay_stat_name((unsigned)k), v);
            }
            sj_w_end_object(&w);
        }
        if (sim->sc->routing == SIM_ROUTING_RPL) {
            uint8_t pa[16];
            sj_w_key(&w, "rpl");
            sj_w_begin_object(&w);
            sj_w_key(&w, "joined");
            sj_w_bool(&w, mip_rpl_joined(nd->rpl));
            if (nd->rpl_joined_us != UINT64_MAX)
                sj_w_member_double(&w, "joined_s", (double)nd->rpl_joined_us / 1e6);
            sj_w_member_uint(&w, "rank", nd->rpl->rank);
            if (mip_rpl_parent(nd->rpl, pa))
                sj_w_member_uint(&w, "parent", sim_node_of_iid(sim, pa));
            for (k = 0; k < MIP_RPL_STAT_COUNT; k++) {
                uint32_t v = mip_rpl_stat(nd->rpl, (enum mip_rpl_stat)k);
                if (v != 0 && mip_rpl_stat_name((unsigned)k) != NULL)
                    sj_w_member_uint(&w, mip_rpl_stat_name((unsigned)k), v);
            }
            /* the downward part's counters (DAOs, DAO-ACKs, the table) */
            for (k = 0; k < MIP_RPL_DOWN_STAT_COUNT; k++)
                if (nd->rpl->down.stats[k] != 0)
                    sj_w_member_uint(&w, rpl_down_stat_names[k], nd->rpl->down.stats[k]);
            sj_w_end_object(&w);
        }
        if (sim->sc->routing == SIM_ROUTING_GEO) {
            sj_w_key(&w, "geo");
            sj_w_begin_object(&w);
            sj_w_member_uint(&w, "neighbours", mip_geo_neigh_count(nd->geo));
            sj_w_member_uint(&w, "disc", nd->geo->disc);
            for (k = 0; k < MIP_GEO_STAT_COUNT; k++)
                if (nd->geo->stats[k] != 0)
                    sj_w_member_uint(&w, mip_geo_stat_names[k], nd->geo->stats[k]);
            sj_w_end_object(&w);
        }
        if (nd->tcp_on) {
            sj_w_key(&w, "tcp");
            sj_w_begin_object(&w);
            for (k = 0; k < MIP_TCP_STAT_COUNT; k++) {
                uint32_t v = mip_tcp_stat(&nd->tcp, (enum mip_tcp_stat)k);
                if (v != 0 && mip_tcp_stat_name((enum mip_tcp_stat)k) != NULL)
                    sj_w_member_uint(&w, mip_tcp_stat_name((enum mip_tcp_stat)k), v);
            }
            sj_w_end_object(&w);
        }
        sj_w_end_object(&w);
    }
    sj_w_end_array(&w);
    sj_w_key(&w, "totals");
    sj_w_begin_object(&w);
    sj_w_member_uint(&w, "frames_tx", tot_tx);
    sj_w_member_uint(&w, "tcp_data_frames_tx", tot_tcp_data);
    sj_w_member_uint(&w, "tcp_ack_frames_tx", tot_tcp_ack);
    sj_w_member_uint(&w, "frames_collided", tot_coll);
    sj_w_member_uint(&w, "frames_corrupted", tot_corrupt);
    sj_w_member_uint(&w, "control_frames_tx", tot_ctrl);
    sj_w_member_uint(&w, "control_bytes_tx", tot_ctrl_bytes);
    member_per_hour(&w, "control_frames_per_node_h",
                    sim->n ? (double)tot_ctrl / (double)sim->n : 0.0, sim->now_us);
    member_per_hour(&w, "control_bytes_per_node_h",
                    sim->n ? (double)tot_ctrl_bytes / (double)sim->n : 0.0, sim->now_us);
    member_per_hour(&w, "energy_j_per_node_h", sim->n ? tot_energy / (double)sim->n : 0.0,
                    sim->now_us);
    sj_w_member_uint(&w, "link_retries", tot_retries);
    sj_w_member_uint(&w, "link_noack", tot_noack);
    sj_w_member_double(&w, "energy_j", tot_energy);
    sj_w_member_double(&w, "energy_mj", tot_energy_mj);
    sj_w_member_double(&w, "radio_on_s", tot_on_us / 1e6);
    sj_w_member_double(&w, "duty_cycle_mean",
                       sim->n && sim->now_us ? tot_on_us / (double)sim->n / (double)sim->now_us : 0.0);
    sj_w_member_double(&w, "cpu_active_s", tot_cpu_us / 1e6);
    sj_w_member_double(&w, "cpu_duty_cycle_mean",
                       sim->n && sim->now_us ? tot_cpu_us / (double)sim->n / (double)sim->now_us : 0.0);
    sj_w_member_double(&w, "cpu_energy_mj", tot_cpu_mj);
    sj_w_member_uint(&w, "delivered_bytes", dlv.bytes);
    sj_w_member_uint(&w, "delivered_segments", dlv.segments);
    member_per(&w, "radio_on_per_delivered_segment_ms", tot_on_us / 1e3, dlv.segments, 1.0);
    member_per(&w, "energy_per_delivered_kb_mj", tot_energy_mj, dlv.bytes, 1000.0);
    sj_w_end_object(&w);
    /* only in runs that have them, so other results keep their bytes */
    if (sim->services != NULL) {
        sj_w_key(&w, "services");
        sim_services_write(sim, &w);
    }
    if (sim->misbehave != NULL) {
        sj_w_key(&w, "misbehave");
        sim_misbehave_write(sim, &w);
    }
    if (sim->external != NULL) {
        sj_w_key(&w, "external");
        sim_external_write(sim, &w);
    }
    sim_overlay_write(sim, &w);   /* only with an overlay */
    sim_proxy_write(sim, &w);     /* only with proxies */
    if (sim->border != NULL) {
        sj_w_key(&w, "border");
        sim_border_write(sim, &w);
    }
    if (sim->rt != NULL) {
        sj_w_key(&w, "realtime");
        sim_realtime_write(sim->rt, &w);
    }
    sim_record_write(sim, &w);
    sim_dyn_write(sim, &w);
    sj_w_end_object(&w);
    if (sj_writer_finish(&w) != 0)
        fprintf(stderr, "moteip-sim: writing the result: %s\n", sj_writer_error(&w));
    fputc('\n', out);
}
