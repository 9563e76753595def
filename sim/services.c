/*
 * Server apps on simulated nodes (scenario key "services"): the HTTP server,
 * TCP echo, discard and chargen, and UDP echo of apps/, each the same code
 * moteip-host runs on a TAP, started on one node's stack at build time.
 * Nothing in the simulated network talks to them; they are there for
 * programs on the host that reach the node through the border router
 * (border.c, --realtime): curl, nc, a browser.
 *
 * A TCP service initialises the node's struct mip_tcp if no flow did, and
 * `mss` sets that node's mss_max as a flow's `mss` does (one value per
 * node: the last one set wins).
 */
#include "sim.h"
#include "http_server.h"
#include "tcp_chargen.h"
#include "tcp_discard.h"
#include "tcp_echo.h"
#include "udp_echo.h"
#include "json.h"
#include <stdlib.h>
#include <string.h>

struct sim_service {
    const struct sim_service_spec *spec;
    union {                             /* the one the spec's kind names */
        struct mip_http_server http;
        struct mip_tcp_echo echo;
        struct mip_tcp_discard discard;
        struct mip_tcp_chargen chargen;
        struct mip_udp_echo udp_echo;
    } app;
};

/* Scenario names, indexed by enum sim_service_kind (scenario.c reads them). */
const char *const sim_service_names[SIM_SVC_KINDS + 1] = {
    "http", "tcp_echo", "tcp_discard", "tcp_chargen", "udp_echo", NULL
};

static mip_status service_start(struct sim_service *v, struct sim_node *nd)
{
    const struct sim_service_spec *sp = v->spec;
    if (sp->kind == SIM_SVC_UDP_ECHO)
        return mip_udp_echo_start(&v->app.udp_echo, &nd->stack, sp->port);
    if (!nd->tcp_on) {
        (void)mip_tcp_init(&nd->tcp, &nd->stack);
        nd->tcp_on = true;
    }
    if (sp->mss != 0u)
        nd->tcp.mss_max = sp->mss;
    switch (sp->kind) {
    case SIM_SVC_HTTP:    return mip_http_server_start(&v->app.http, &nd->tcp, sp->port);
    case SIM_SVC_TCP_ECHO: return mip_tcp_echo_start(&v->app.echo, &nd->tcp, sp->port);
    case SIM_SVC_TCP_DISCARD: return mip_tcp_discard_start(&v->app.discard, &nd->tcp, sp->port);
    default:              return mip_tcp_chargen_start(&v->app.chargen, &nd->tcp, sp->port);
    }
}

bool sim_services_build(struct sim *sim, char *err, size_t errlen)
{
    const struct sim_scenario *sc = sim->sc;
    size_t k;
    if (sc->n_services == 0)
        return true;
    sim->services = calloc(sc->n_services, sizeof(*sim->services));
    if (sim->services == NULL) {
        snprintf(err, errlen, "out of memory for %zu services", sc->n_services);
        return false;
    }
    for (k = 0; k < sc->n_services; k++) {
        struct sim_service *v = &sim->services[k];
        mip_status st;
        v->spec = &sc->services[k];
        st = service_start(v, &sim->node[v->spec->node]);
        if (st != MIP_OK) {
            snprintf(err, errlen, "services[%zu]: node %u cannot serve %s on port %u: %s%s", k,
                     v->spec->node, sim_service_names[v->spec->kind], v->spec->port,
                     mip_status_name(st),
                     st == MIP_ERR_INUSE ? " (a flow or another service has the port)" : "");
            return false;
        }
    }
    return true;
}

/* The counters every TCP service has (apps/tcp_app.h). */
static void tcp_server_counters(struct sj_writer *w, const struct mip_tcp_server *s)
{
    sj_w_member_uint(w, "accepted", s->accepted);
    sj_w_member_uint(w, "refused", s->refused);
    sj_w_member_uint(w, "errors", s->errors);
    sj_w_member_uint(w, "evicted", s->evicted);
    sj_w_member_uint(w, "active", s->active);
}

void sim_services_write(struct sim *sim, struct sj_writer *w)
{
    size_t k;
    sj_w_begin_array(w);
    for (k = 0; k < sim->sc->n_services; k++) {
        const struct sim_service *v = &sim->services[k];
        sj_w_begin_object(w);
        sj_w_member_uint(w, "node", v->spec->node);
        sj_w_key(w, "type");
        sj_w_string(w, sim_service_names[v->spec->kind]);
        sj_w_member_uint(w, "port", v->spec->port);
        switch (v->spec->kind) {
        case SIM_SVC_HTTP:
            tcp_server_counters(w, &v->app.http.srv);
            sj_w_member_uint(w, "requests", v->app.http.requests);
            sj_w_member_uint(w, "status_2xx", v->app.http.status_2xx);
            sj_w_member_uint(w, "status_4xx", v->app.http.status_4xx);
            sj_w_member_uint(w, "status_5xx", v->app.http.status_5xx);
            sj_w_member_uint(w, "body_bytes", v->app.http.body_bytes);
            break;
        case SIM_SVC_TCP_ECHO:
            tcp_server_counters(w, &v->app.echo.srv);
            sj_w_member_uint(w, "bytes", v->app.echo.bytes);
            break;
        case SIM_SVC_TCP_DISCARD:
            tcp_server_counters(w, &v->app.discard.srv);
            sj_w_member_uint(w, "bytes", v->app.discard.bytes);
            break;
        case SIM_SVC_TCP_CHARGEN:
            tcp_server_counters(w, &v->app.chargen.srv);
            sj_w_member_uint(w, "bytes", v->app.chargen.bytes);
            break;
        default:
            sj_w_member_uint(w, "datagrams", v->app.udp_echo.datagrams);
            sj_w_member_uint(w, "bytes", v->app.udp_echo.bytes);
            sj_w_member_uint(w, "ignored", v->app.udp_echo.ignored);
            sj_w_member_uint(w, "send_errors", v->app.udp_echo.send_errors);
            break;
        }
        sj_w_end_object(w);
    }
    sj_w_end_array(w);
}

void sim_services_free(struct sim *sim)
{
    free(sim->services);
    sim->services = NULL;
}
