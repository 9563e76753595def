/*
 * What every part of the simulator asks about a run, and nothing else: the
 * stack's clock, a node's addresses, the trace. It calls no other sim file,
 * so the modules (medium, apps, routes, dynamics, border, record, ...) and
 * the nodes (node.c) all depend on it and it on none of them: data flows
 * one way (run.c -> modules -> node.c -> ctx.c).
 */
#include "sim.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

mip_time_t sim_ms(const struct sim *sim)
{
    return (mip_time_t)(sim->now_us / 1000u);
}

struct mip_spatial_map sim_spatial_map(const struct sim_scenario *sc)
{
    struct mip_spatial_map m;
    memset(&m, 0, sizeof(m));
    m.kind = sc->spatial_map;
    m.cell_cm = (uint32_t)(sc->spatial_cell_m * 100.0 + 0.5);
    return m;
}

void sim_node_address(const struct sim *sim, uint32_t id, struct mip_addr *out)
{
    memset(out, 0, sizeof(*out));
    if (sim->sc->addressing == SIM_ADDR_SPATIAL) {
        struct mip_spatial_map m = sim_spatial_map(sim->sc);
        const double *p = sim->sc->pos[id];
        uint8_t a[16];
        if (sim->node != NULL && id < sim->n && sim->node[id].geo != NULL &&
            sim->node[id].geo->stack != NULL) {
            mip_addr_set6(out, sim->node[id].geo->addr);
            return;
        }
        (void)mip_spatial_addr(sim->sc->prefix, &m,
                               mip_spatial_cell(&m, (int32_t)(p[0] * 100.0), (int32_t)(p[1] * 100.0)),
                               0, a);
        mip_addr_set6(out, a);
    } else if (sim->sc->ipv4) {
        /* 198.18.0.0/15 (RFC 2544 benchmarking): never routed anywhere. */
        uint8_t a[4] = { 198, 18, (uint8_t)(id >> 8), (uint8_t)id };
        mip_addr_set4(out, a);
    } else {
        /* the mesh prefix (link.prefix, fd00::/64 by default) + the IID of
         * short address id, which IPHC elides with context 0 (without
         * short addresses: the IID of the extended address, sim.h) */
        uint8_t a[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 0,
                          (uint8_t)(id >> 8), (uint8_t)id };
        if (!sim->sc->short_addresses) {
            a[11] = 1;
            a[12] = (uint8_t)(id >> 24);
            a[13] = (uint8_t)(id >> 16);
        }
        memcpy(a, sim->sc->prefix, 8);
        mip_addr_set6(out, a);
    }
}

uint16_t sim_node_short(const struct sim *sim, uint32_t id)
{
    return !sim->sc->short_addresses ? 0xFFFEu : (uint16_t)id;
}

uint32_t sim_node_of_iid(const struct sim *sim, const uint8_t addr[16])
{
    if (sim->sc->addressing == SIM_ADDR_SPATIAL) {
        struct mip_addr a, b;
        uint32_t i;
        mip_addr_set6(&a, addr);
        for (i = 0; i < sim->n; i++) {
            sim_node_address(sim, i, &b);
            if (mip_addr_eq(&a, &b))
                return i;
        }
        return UINT32_MAX;
    }
    if (!sim->sc->short_addresses)
        return (uint32_t)addr[12] << 24 | (uint32_t)addr[13] << 16 | (uint32_t)addr[14] << 8 |
               addr[15];
    return (uint32_t)addr[14] << 8 | addr[15];
}

void sim_trace(struct sim *sim, const char *event, uint32_t node, const char *fmt, ...)
{
    va_list ap;
    if (sim->trace == NULL)
        return;
    fprintf(sim->trace, "{\"t_us\":%llu,\"node\":%u,\"ev\":\"%s\"",
            (unsigned long long)sim->now_us, node, event);
    if (fmt != NULL && fmt[0] != '\0') {
        fputc(',', sim->trace);
        va_start(ap, fmt);
        vfprintf(sim->trace, fmt, ap);
        va_end(ap);
    }
    fputs("}\n", sim->trace);
}
