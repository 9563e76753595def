/*
 * A loadable program (apps/os_loader.h, docs/OS.md): it opens UDP port 7777
 * and answers every datagram with "hello v<VERSION> #<n>", n counting the
 * datagrams answered by every version since the first: on replacement the
 * running version leaves n in the loader's state, and the next one carries
 * on from it (seeds/000 s.7.5.1's service replacement with state transfer).
 *
 * Built apart from the firmware for the MPS2 (port/mps2/CMakeLists.txt):
 * one translation unit, -mlong-calls, then tools/mipmod.py makes the module
 * (hello-v1.mpm, hello-v2.mpm). Everything it calls is in the core's table
 * (mip_os_loader_symbols); its own state is this file's one static struct.
 */
#include <string.h>

#include "moteip/dec.h"
#include "os_loader.h"

#ifndef HELLO_VERSION
#define HELLO_VERSION 1
#endif

#define HELLO_PORT 7777u
#define HELLO_STATE 0x48u           /* the tag of the count in the handover */

struct hello {
    struct mip_os_process proc;
    struct mip_os_udp udp;
    struct mip_module_env *env;
    uint32_t count;
};

static struct hello hello;

static char hello_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                         void *data)
{
    struct hello *h = p->ctx;
    MIP_PROCESS_BEGIN();
    (void)mip_os_udp_bind(os, p, &h->udp, h->env->s, HELLO_PORT);
    for (;;) {
        MIP_PROCESS_WAIT_EVENT_UNTIL(ev == MIP_OS_EV_UDP || ev == MIP_OS_EV_EXIT);
        if (ev == MIP_OS_EV_EXIT)
            break;
        {
            const struct mip_os_udp_event *u = data;
            char msg[32] = "hello v";
            size_t n = 7;
            n += mip_dec_u32(HELLO_VERSION, msg + n);
            msg[n++] = ' ';
            msg[n++] = '#';
            n += mip_dec_u32(++h->count, msg + n);
            (void)mip_udp_sendto(h->env->s, NULL, HELLO_PORT, &u->meta->src, u->meta->src_port,
                                 u->meta->netif, (const uint8_t *)msg, n);
        }
    }
    /* Replaced or unloaded: the port goes, the count stays for the next. */
    (void)mip_os_udp_unbind(&h->udp);
    memcpy(h->env->state, &h->count, sizeof h->count);
    h->env->state_len = sizeof h->count;
    h->env->state_version = HELLO_STATE;
    MIP_PROCESS_END();
}

int hello_init(struct mip_module_env *env);

int hello_init(struct mip_module_env *env)
{
    memset(&hello, 0, sizeof hello);
    hello.env = env;
    if (env->state_version == HELLO_STATE && env->state_len == sizeof hello.count)
        memcpy(&hello.count, env->state, sizeof hello.count);
    env->state_version = 0;
    env->proc = &hello.proc;
    return mip_os_start(env->os, &hello.proc, "hello", hello_thread, &hello, NULL) == MIP_OK
               ? 0
               : -1;
}
