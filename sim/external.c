/*
 * External nodes over ZEP (external.h has the contract). Each node has one
 * UDP socket, bound to its `local` address and connected to its `remote`
 * one; realtime.c waits on them beside the border router's device.
 */
#define _GNU_SOURCE
#include "external.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "moteip/wire/zep.h"
#include "zep_mirror.h"
#include "zep_radio.h"

enum { EXT_READ_BUDGET = 64 };      /* datagrams per sim_external_input call */

struct sim_ext_counters {
    uint64_t datagrams_in;          /* read from the socket */
    uint64_t frames_in;             /* started in the medium */
    uint64_t frames_out;            /* delivered to the node, sent as datagrams */
    uint64_t drop_malformed;        /* not a ZEP data datagram (mip_zep_parse) */
    uint64_t drop_channel;          /* another channel than external[].channel */
    uint64_t drop_fcs;              /* a bad FCS (CRC mode) or no CRC OK (LQI mode) */
    uint64_t drop_busy;             /* its previous frame was still on the air */
    uint64_t send_errors;           /* the node not listening (ECONNREFUSED), buffers full */
};

struct sim_ext {
    int fd;                         /* -1 until sim_external_open */
    uint32_t seq;                   /* datagrams sent to it: ZEP's sequence number */
    struct sim_ext_counters c;
};

struct sim_external {
    size_t n;
    struct sim_ext e[SIM_EXTERNAL_MAX];
};

static bool loopback(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127u;
    return ss->ss_family == AF_INET6 &&
           IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

bool sim_external_endpoint(const char *text, struct sockaddr_storage *ss, socklen_t *sl,
                           char *err, size_t errlen)
{
    if (zep_parse_endpoint(text, strlen(text), ss, sl, err, errlen) != 0)
        return false;
    if (!loopback(ss)) {
        snprintf(err, errlen, "a loopback address (127.0.0.0/8 or [::1]): an external node "
                 "speaks ZEP on loopback only");
        return false;
    }
    return true;
}

bool sim_external_build(struct sim *sim, char *err, size_t errlen)
{
    const struct sim_scenario *sc = sim->sc;
    size_t i;
    if (sc->n_external == 0u)
        return true;
    if (sc->n_external > SIM_EXTERNAL_MAX) {
        snprintf(err, errlen, "external: at most %u nodes", SIM_EXTERNAL_MAX);
        return false;
    }
    sim->external = calloc(1, sizeof(*sim->external));
    if (sim->external == NULL) {
        snprintf(err, errlen, "out of memory for the external nodes");
        return false;
    }
    sim->external->n = sc->n_external;
    for (i = 0; i < sc->n_external; i++) {
        struct sim_node *nd = &sim->node[sc->external[i].node];
        sim->external->e[i].fd = -1;
        nd->external = true;
        /* its receiver is the program's: always on, as far as the medium knows */
        nd->radio_on = true;
        nd->radio = SIM_RADIO_LISTEN;
        nd->radio_since_us = sim->now_us;
    }
    return true;
}

bool sim_external_open(struct sim *sim, char *err, size_t errlen)
{
    struct sim_external *x = sim->external;
    size_t i;
    for (i = 0; x != NULL && i < x->n; i++) {
        const struct sim_external_spec *s = &sim->sc->external[i];
        struct sockaddr_storage la, ra;
        socklen_t ll, rl;
        char why[160];
        int fd;
        if (!sim_external_endpoint(s->local, &la, &ll, why, sizeof(why)) ||
            !sim_external_endpoint(s->remote, &ra, &rl, why, sizeof(why))) {
            snprintf(err, errlen, "external[%zu]: %s", i, why);
            return false;
        }
        fd = socket(la.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&la, ll) != 0 ||
            connect(fd, (struct sockaddr *)&ra, rl) != 0) {
            snprintf(err, errlen, "external[%zu].local %s: %s", i, s->local, strerror(errno));
            if (fd >= 0)
                close(fd);
            return false;
        }
        x->e[i].fd = fd;
    }
    return true;
}

size_t sim_external_fds(const struct sim *sim, struct pollfd *pfd, size_t cap)
{
    const struct sim_external *x = sim->external;
    size_t i, n = 0;
    for (i = 0; x != NULL && i < x->n && n < cap; i++) {
        pfd[n].fd = x->e[i].fd;
        pfd[n].events = POLLIN;
        pfd[n].revents = 0;
        n++;
    }
    return n;
}

void sim_external_input(struct sim *sim, size_t i)
{
    struct sim_ext *e = &sim->external->e[i];
    const struct sim_external_spec *s = &sim->sc->external[i];
    struct sim_node *nd = &sim->node[s->node];
    uint8_t dgram[512];
    int k;
    for (k = 0; k < EXT_READ_BUDGET; k++) {
        struct mip_zep_hdr h;
        const uint8_t *frame;
        mip_status st;
        ssize_t got = recv(e->fd, dgram, sizeof(dgram), 0);
        if (got < 0)
            return;                 /* EAGAIN; ECONNREFUSED: the node not up yet */
        e->c.datagrams_in++;
        if (mip_zep_parse(dgram, (size_t)got, &h, &frame) != MIP_OK || frame == NULL) {
            e->c.drop_malformed++;
            continue;
        }
        if (h.channel != s->channel) {
            e->c.drop_channel++;
            continue;
        }
        if (!zep_frame_ok(&h, frame)) {
            e->c.drop_fcs++;
            continue;
        }
        /* the MPDU without its FCS (or CC24xx status): the medium adds its own */
        st = sim_radio_driver.transmit(nd, frame, (size_t)h.frame_len - 2u);
        if (st != MIP_OK) {
            e->c.drop_busy++;
            sim_trace(sim, "external_drop", nd->id, "\"why\":\"%s\"", mip_status_name(st));
            continue;
        }
        e->c.frames_in++;
    }
}

void sim_external_deliver(struct sim *sim, struct sim_node *r, const struct sim_tx *t)
{
    struct sim_external *x = sim->external;
    uint8_t dgram[MIP_ZEP_V2_HDR_LEN + MIP_ZEP_FRAME_MAX];
    struct mip_zep_hdr h;
    size_t i, n;
    for (i = 0; i < x->n && sim->sc->external[i].node != r->id; i++)
        ;
    if (i == x->n || x->e[i].fd < 0)
        return;
    /* the timestamp is the frame's start, as a sniffer stamps it */
    sim_zep_header(&h, sim->sc->external[i].channel, t->sender, t->start_us, x->e[i].seq++);
    if (mip_zep_emit(&h, t->frame, (size_t)t->len - MIP_802154_FCS_LEN, dgram, sizeof(dgram),
                     &n) != MIP_OK)
        return;
    if (send(x->e[i].fd, dgram, n, 0) < 0) {
        x->e[i].c.send_errors++;
        return;
    }
    x->e[i].c.frames_out++;
}

void sim_external_write(struct sim *sim, struct sj_writer *w)
{
    struct sim_external *x = sim->external;
    size_t i;
    sj_w_begin_array(w);
    for (i = 0; x != NULL && i < x->n; i++) {
        const struct sim_external_spec *s = &sim->sc->external[i];
        const struct sim_ext_counters *c = &x->e[i].c;
        sj_w_begin_object(w);
        sj_w_member_uint(w, "node", s->node);
        sj_w_key(w, "local");
        sj_w_string(w, s->local);
        sj_w_key(w, "remote");
        sj_w_string(w, s->remote);
        sj_w_member_uint(w, "datagrams_in", c->datagrams_in);
        sj_w_member_uint(w, "frames_in", c->frames_in);
        sj_w_member_uint(w, "frames_out", c->frames_out);
        sj_w_member_uint(w, "drop_malformed", c->drop_malformed);
        sj_w_member_uint(w, "drop_channel", c->drop_channel);
        sj_w_member_uint(w, "drop_fcs", c->drop_fcs);
        sj_w_member_uint(w, "drop_busy", c->drop_busy);
        sj_w_member_uint(w, "send_errors", c->send_errors);
        sj_w_end_object(w);
    }
    sj_w_end_array(w);
}

void sim_external_free(struct sim *sim)
{
    struct sim_external *x = sim->external;
    size_t i;
    if (x == NULL)
        return;
    for (i = 0; i < x->n; i++)
        if (x->e[i].fd >= 0)
            close(x->e[i].fd);
    free(x);
    sim->external = NULL;
}
