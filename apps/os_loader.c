/*
 * The loader service (os_loader.h): a TCP listener whose one connection
 * carries a command; the module is checked completely before the running
 * one is stopped, so a bad module costs nothing but the answer.
 */
#include "os_loader.h"

#include <string.h>

#include "moteip/dec.h"

/* What a module may call, sorted by name (mip_loader_symbol searches it). */
const struct mip_symbol mip_os_loader_symbols[] = {
    { "memcpy", (const void *)memcpy },
    { "memset", (const void *)memset },
    { "mip_dec_u32", (const void *)mip_dec_u32 },
    { "mip_os_etimer_reset", (const void *)mip_os_etimer_reset },
    { "mip_os_etimer_set", (const void *)mip_os_etimer_set },
    { "mip_os_etimer_stop", (const void *)mip_os_etimer_stop },
    { "mip_os_exit", (const void *)mip_os_exit },
    { "mip_os_post", (const void *)mip_os_post },
    { "mip_os_start", (const void *)mip_os_start },
    { "mip_os_udp_bind", (const void *)mip_os_udp_bind },
    { "mip_os_udp_unbind", (const void *)mip_os_udp_unbind },
    { "mip_udp_sendto", (const void *)mip_udp_sendto },
};
const size_t mip_os_loader_n_symbols = sizeof(mip_os_loader_symbols) /
                                       sizeof(mip_os_loader_symbols[0]);

void mip_os_loader_prepare(struct mip_os_loader *o, struct mip_os *os, struct mip_stack *s,
                           struct mip_tcp *tcp, uint16_t port, uint8_t *arena, size_t arena_len,
                           uint8_t arch)
{
    memset(o, 0, sizeof(*o));
    mip_loader_init(&o->ld, arena, arena_len, mip_os_loader_symbols, mip_os_loader_n_symbols,
                    arch);
    o->env.os = os;
    o->env.s = s;
    o->env.tcp = tcp;
    o->port = port;
}

static const char *reason(mip_status st)
{
    switch (st) {
    case MIP_ERR_NOSPACE:     return "too-big";
    case MIP_ERR_TRUNCATED:   return "truncated";
    case MIP_ERR_CHECKSUM:    return "checksum";
    case MIP_ERR_UNSUPPORTED: return "arch";
    case MIP_ERR_NOTFOUND:    return "unknown-symbol";
    default:                  return "malformed";
    }
}

/* Stops the running module's process (it may leave state in env). */
static void unload(struct mip_os_loader *o, struct mip_os *os)
{
    if (!o->running)
        return;
    if (o->env.proc != NULL && mip_os_running(o->env.proc))
        mip_os_exit(os, o->env.proc);
    o->env.proc = NULL;
    o->running = false;
    o->unloads++;
}

/* Carries out the command in buf; writes the answer line (NUL-terminated,
 * at most 21 characters) to `line`. */
static void command(struct mip_os_loader *o, struct mip_os *os, char line[32])
{
    mip_status st;
    mip_module_init_fn init;
    const char *why = NULL;
    if (o->overflow) {
        why = "too-big";
    } else if (o->len == 1 && o->buf[0] == 'U') {
        if (!o->running)
            why = "nothing-loaded";
        else
            unload(o, os);
    } else if (o->len >= 1 && o->buf[0] == 'L') {
        st = mip_loader_check(&o->ld, o->buf + 1, o->len - 1);
        if (st != MIP_OK) {
            why = reason(st);
        } else {
            /* the old version leaves its state in env; the arena is then free */
            unload(o, os);
            (void)mip_loader_link(&o->ld, o->buf + 1, o->len - 1, &o->mod);
            o->env.version = o->mod.version;
            o->env.proc = NULL;
            /* an address in the arena, linked for this CPU: the module's
             * init (loader.h: the format's init field) */
            init = (mip_module_init_fn)o->mod.init;
            if (init(&o->env) != 0 || o->env.proc == NULL || !mip_os_running(o->env.proc))
                why = "init-failed";
            else
                o->running = true;
            o->loads += why == NULL;
        }
    } else {
        why = "bad-command";
    }
    if (why != NULL) {
        o->refused++;
        (void)memcpy(line, "error ", 6);
        (void)memcpy(line + 6, why, strlen(why) + 1u);
    } else if (o->buf[0] == 'U') {
        (void)memcpy(line, "ok unloaded", 12);
    } else {
        size_t n = 11;
        (void)memcpy(line, "ok loaded v", 11);
        n += mip_dec_u32(o->mod.version, line + n);
        line[n] = '\0';
    }
}

char mip_os_loader_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                          void *data)
{
    struct mip_os_loader *o = p->ctx;
    MIP_PROCESS_BEGIN();
    mip_os_tcp_init(os, p, &o->conn[0], o->env.tcp, o->tx, sizeof o->tx, o->rx, NULL,
                    sizeof o->rx);
    (void)mip_os_tcp_listen(os, p, &o->ls, o->env.tcp, o->port, o->conn, 1, sizeof o->rx);
    for (;;) {
        MIP_PROCESS_WAIT_EVENT_UNTIL(ev == MIP_OS_EV_TCP || ev == MIP_OS_EV_EXIT);
        if (ev == MIP_OS_EV_EXIT)
            break;
        {
            const struct mip_os_tcp_event *t = data;
            struct mip_tcp_conn *c = &t->c->conn;
            uint8_t chunk[128];
            size_t n;
            char line[32];
            if (t->what == MIP_OS_TCP_CONNECTED) {
                o->len = 0;
                o->overflow = false;
                o->answered = false;
            }
            if (t->what >= MIP_OS_TCP_CLOSED)
                continue;
            while ((n = mip_tcp_read(o->env.tcp, c, chunk, sizeof chunk)) > 0) {
                if (n > sizeof o->buf - o->len) {
                    o->overflow = true;         /* the rest is read and dropped */
                    continue;
                }
                memcpy(o->buf + o->len, chunk, n);
                o->len += n;
            }
            if (mip_tcp_peer_closed(c) && !o->answered) {
                o->answered = true;
                command(o, os, line);
                n = strlen(line);
                line[n++] = '\n';
                (void)mip_tcp_write(o->env.tcp, c, (const uint8_t *)line, n);
                (void)mip_tcp_close(o->env.tcp, c);
            }
        }
    }
    unload(o, os);
    MIP_PROCESS_END();
}
