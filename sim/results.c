/*
 * The result JSON: run facts, one object per flow (apps.c), one per node
 * (radio, MAC and stack counters, energy), and network totals. Nothing in
 * it depends on the wall clock or the machine, so a scenario and a seed
 * always give the same bytes.
 */
#include "sim.h"
#include "json.h"
#include <string.h>

static void w_u(struct sj_writer *w, const char *k, uint64_t v)
{
    sj_w_key(w, k);
    sj_w_uint(w, v);
}

static void w_num(struct sj_writer *w, const char *k, double v)
{
    sj_w_key(w, k);
    sj_w_double(w, v);
}

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
    double tot_energy = 0.0;
    sj_writer_init(&w, out, 1);
    sj_w_begin_object(&w);
    sj_w_key(&w, "scenario");
    sj_w_string(&w, sim->sc->name);
    w_u(&w, "seed", sim->sc->seed);
    w_u(&w, "nodes", sim->n);
    w_num(&w, "sim_time_s", (double)sim->now_us / 1e6);
    w_u(&w, "events", sim->events);
    sj_w_key(&w, "flows");
    sim_apps_write(sim, &w);
    sj_w_key(&w, "node_stats");
    sj_w_begin_array(&w);
    for (i = 0; i < sim->n; i++) {
        const struct sim_node *nd = &sim->node[i];
        double on_us = (double)(nd->c.us_tx + nd->c.us_rx + nd->c.us_listen);
        double e = node_energy_j(sim, nd);
        tot_tx += nd->c.frames_tx;
        tot_coll += nd->c.frames_rx_collided;
        tot_corrupt += nd->c.frames_rx_corrupted;
        tot_retries += mip_mac_stat(&nd->mac, MIP_MAC_STAT_tx_retries);
        tot_noack += mip_mac_stat(&nd->mac, MIP_MAC_STAT_tx_noack);
        tot_energy += e;
        sj_w_begin_object(&w);
        w_u(&w, "id", i);
        w_u(&w, "frames_tx", nd->c.frames_tx);
        w_u(&w, "frames_rx", nd->c.frames_rx_ok);
        w_u(&w, "frames_collided", nd->c.frames_rx_collided);
        w_u(&w, "frames_corrupted", nd->c.frames_rx_corrupted);
        w_u(&w, "frames_aborted", nd->c.frames_rx_lost);
        w_u(&w, "frames_missed_busy", nd->c.frames_missed_busy);
        w_num(&w, "radio_on_s", on_us / 1e6);
        w_num(&w, "tx_s", (double)nd->c.us_tx / 1e6);
        w_num(&w, "rx_s", (double)nd->c.us_rx / 1e6);
        w_num(&w, "listen_s", (double)nd->c.us_listen / 1e6);
        w_num(&w, "sleep_s", (double)nd->c.us_off / 1e6);
        w_num(&w, "duty_cycle", sim->now_us ? on_us / (double)sim->now_us : 0.0);
        w_num(&w, "energy_j", e);
        sj_w_key(&w, "mac");
        sj_w_begin_object(&w);
        for (k = 0; k < MIP_MAC_STAT_COUNT; k++) {
            uint32_t v = mip_mac_stat(&nd->mac, (enum mip_mac_stat)k);
            if (v != 0)
                w_u(&w, mip_mac_stat_name((enum mip_mac_stat)k), v);
        }
        sj_w_end_object(&w);
        sj_w_key(&w, "stack");
        sj_w_begin_object(&w);
        for (k = 0; k < MIP_STAT_COUNT; k++) {
            uint32_t v = mip_stack_stat(&nd->stack, (enum mip_stat)k);
            if (v != 0 && mip_stat_name((enum mip_stat)k) != NULL)
                w_u(&w, mip_stat_name((enum mip_stat)k), v);
        }
        sj_w_end_object(&w);
        if (nd->tcp_on) {
            sj_w_key(&w, "tcp");
            sj_w_begin_object(&w);
            for (k = 0; k < MIP_TCP_STAT_COUNT; k++) {
                uint32_t v = mip_tcp_stat(&nd->tcp, (enum mip_tcp_stat)k);
                if (v != 0 && mip_tcp_stat_name((enum mip_tcp_stat)k) != NULL)
                    w_u(&w, mip_tcp_stat_name((enum mip_tcp_stat)k), v);
            }
            sj_w_end_object(&w);
        }
        sj_w_end_object(&w);
    }
    sj_w_end_array(&w);
    sj_w_key(&w, "totals");
    sj_w_begin_object(&w);
    w_u(&w, "frames_tx", tot_tx);
    w_u(&w, "frames_collided", tot_coll);
    w_u(&w, "frames_corrupted", tot_corrupt);
    w_u(&w, "link_retries", tot_retries);
    w_u(&w, "link_noack", tot_noack);
    w_num(&w, "energy_j", tot_energy);
    sj_w_end_object(&w);
    sj_w_end_object(&w);
    if (sj_writer_finish(&w) != 0)
        fprintf(stderr, "moteip-sim: writing the result: %s\n", sj_writer_error(&w));
    fputc('\n', out);
}
