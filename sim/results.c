/*
 * The result JSON: run facts, one object per flow (apps.c), one per node
 * (radio, MAC and stack counters, energy), and network totals. Nothing in
 * it depends on the wall clock or the machine, so a scenario and a seed
 * always give the same bytes.
 */
#include "sim.h"
#include "json.h"
#include <string.h>

static double node_energy_j(const struct sim *sim, const struct sim_node *nd)
{
    const struct sim_scenario *sc = sim->sc;
    double ma_us = sc->tx_ma * (double)nd->c.us_tx + sc->rx_ma * (double)nd->c.us_rx +
                   sc->rx_ma * (double)nd->c.us_listen + sc->sleep_ma * (double)nd->c.us_off;
    return ma_us * 1e-3 * 1e-6 * sc->voltage;     /* mA*us -> A*s, times V */
}

void sim_write_result(struct sim *sim, FILE *out)
{
    struct sj_writer w;
    uint32_t i;
    int k;
    uint64_t tot_tx = 0, tot_coll = 0, tot_corrupt = 0, tot_retries = 0, tot_noack = 0;
    uint64_t tot_tcp_data = 0, tot_tcp_ack = 0;
    double tot_energy = 0.0;
    sj_writer_init(&w, out, 1);
    sj_w_begin_object(&w);
    sj_w_key(&w, "scenario");
    sj_w_string(&w, sim->sc->name);
    sj_w_member_uint(&w, "seed", sim->sc->seed);
    sj_w_member_uint(&w, "nodes", sim->n);
    sj_w_member_double(&w, "sim_time_s", (double)sim->now_us / 1e6);
    sj_w_member_uint(&w, "events", sim->events);
    sj_w_key(&w, "flows");
    sim_apps_write(sim, &w);
    sj_w_key(&w, "node_stats");
    sj_w_begin_array(&w);
    for (i = 0; i < sim->n; i++) {
        const struct sim_node *nd = &sim->node[i];
        double on_us = (double)(nd->c.us_tx + nd->c.us_rx + nd->c.us_listen);
        double e = node_energy_j(sim, nd);
        tot_tx += nd->c.frames_tx;
        tot_tcp_data += nd->c.tcp_data_frames_tx;
        tot_tcp_ack += nd->c.tcp_ack_frames_tx;
        tot_coll += nd->c.frames_rx_collided;
        tot_corrupt += nd->c.frames_rx_corrupted;
        tot_retries += mip_mac_stat(&nd->mac, MIP_MAC_STAT_tx_retries);
        tot_noack += mip_mac_stat(&nd->mac, MIP_MAC_STAT_tx_noack);
        tot_energy += e;
        sj_w_begin_object(&w);
        sj_w_member_uint(&w, "id", i);
        sj_w_member_uint(&w, "frames_tx", nd->c.frames_tx);
        sj_w_member_uint(&w, "tcp_data_frames_tx", nd->c.tcp_data_frames_tx);
        sj_w_member_uint(&w, "tcp_ack_frames_tx", nd->c.tcp_ack_frames_tx);
        sj_w_member_uint(&w, "frames_rx", nd->c.frames_rx_ok);
        sj_w_member_uint(&w, "frames_collided", nd->c.frames_rx_collided);
        sj_w_member_uint(&w, "frames_corrupted", nd->c.frames_rx_corrupted);
        sj_w_member_uint(&w, "frames_aborted", nd->c.frames_rx_lost);
        sj_w_member_uint(&w, "frames_missed_busy", nd->c.frames_missed_busy);
        sj_w_member_double(&w, "radio_on_s", on_us / 1e6);
        sj_w_member_double(&w, "tx_s", (double)nd->c.us_tx / 1e6);
        sj_w_member_double(&w, "rx_s", (double)nd->c.us_rx / 1e6);
        sj_w_member_double(&w, "listen_s", (double)nd->c.us_listen / 1e6);
        sj_w_member_double(&w, "sleep_s", (double)nd->c.us_off / 1e6);
        sj_w_member_double(&w, "duty_cycle", sim->now_us ? on_us / (double)sim->now_us : 0.0);
        sj_w_member_double(&w, "energy_j", e);
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
                uint32_t v = mip_relay_stat(&nd->relay, (enum mip_relay_stat)k);
                if (v != 0 && mip_relay_stat_name((unsigned)k) != NULL)
                    sj_w_member_uint(&w, mip_relay_stat_name((unsigned)k), v);
            }
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
    sj_w_member_uint(&w, "link_retries", tot_retries);
    sj_w_member_uint(&w, "link_noack", tot_noack);
    sj_w_member_double(&w, "energy_j", tot_energy);
    sj_w_end_object(&w);
    sj_w_end_object(&w);
    if (sj_writer_finish(&w) != 0)
        fprintf(stderr, "moteip-sim: writing the result: %s\n", sj_writer_error(&w));
    fputc('\n', out);
}
