/*
 * The loader as a service process (seeds/000 s.7.4.2, s.7.5.1): a program
 * arrives over TCP, is checked and linked by the module loader
 * (include/moteip/loader.h), and its init function starts its process. A
 * new version replaces the running one, which hands its state over.
 *
 * Protocol, one connection to `port` per command:
 *   'L' then the module's bytes, then FIN   load (replacing the running one)
 *   'U', then FIN                           unload the running one
 * The answer is one line, then the service closes:
 *   "ok loaded v<version>\n", "ok unloaded\n", or "error <reason>\n" where
 *   reason is too-big, truncated, malformed, checksum, arch, unknown-symbol,
 *   init-failed, nothing-loaded or bad-command. A module refused leaves the
 *   running one running.
 *
 * A module is linked against the firmware's table of core symbols; its init
 * function gets a struct mip_module_env, starts one process and names it
 * in env->proc. On unload (or replacement) that process gets EXIT: it must
 * release its ports there (the stack would otherwise call into a freed
 * arena) and may leave up to MIP_OS_LOADER_STATE bytes of state in
 * env->state, tagged with env->state_version, which the next version's init
 * finds in the same fields. examples/modules/hello.c is such a program.
 */
#ifndef MOTEIP_APPS_OS_LOADER_H
#define MOTEIP_APPS_OS_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "moteip/loader.h"
#include "moteip/os_net.h"

#ifndef MIP_OS_LOADER_MAX
#define MIP_OS_LOADER_MAX 4096u     /* bytes of a module in transit */
#endif
#ifndef MIP_OS_LOADER_STATE
#define MIP_OS_LOADER_STATE 32u     /* bytes of state handed from version to version */
#endif

/* What a module's init function gets (the module's ABI, with the core
 * symbol table: change either and old modules must be rebuilt). */
struct mip_module_env {
    struct mip_os *os;
    struct mip_stack *s;
    struct mip_tcp *tcp;
    uint8_t version;                /* this module's */
    uint8_t state_version;          /* of what state[] holds; 0: nothing */
    uint16_t state_len;
    uint8_t state[MIP_OS_LOADER_STATE];
    struct mip_os_process *proc;    /* init sets it: the process unload stops */
};

/* 0 on success; the process it started is in env->proc. */
typedef int (*mip_module_init_fn)(struct mip_module_env *env);

struct mip_os_loader {
    struct mip_os_process proc;
    struct mip_loader ld;
    struct mip_module_env env;
    struct mip_module mod;
    bool running;                   /* a module is loaded and its process runs */
    uint16_t port;
    struct mip_os_listener ls;
    struct mip_os_tcp conn[1];
    uint8_t tx[64], rx[512];
    uint8_t buf[MIP_OS_LOADER_MAX + 1u];    /* the command byte, then the module */
    size_t len;
    bool overflow;                  /* the module did not fit buf */
    bool answered;                  /* this connection's command was carried out */
    uint32_t loads, unloads, refused;
};

/* The core symbols a module may call (sorted), for mip_loader_init. */
extern const struct mip_symbol mip_os_loader_symbols[];
extern const size_t mip_os_loader_n_symbols;

/* Sets the loader up: the arena (RAM the CPU may execute from), the arch
 * the firmware runs, the stack and TCP a module gets, the service's port. */
void mip_os_loader_prepare(struct mip_os_loader *o, struct mip_os *os, struct mip_stack *s,
                           struct mip_tcp *tcp, uint16_t port, uint8_t *arena, size_t arena_len,
                           uint8_t arch);
char mip_os_loader_thread(struct mip_os *os, struct mip_os_process *p, mip_os_event_t ev,
                          void *data);

#endif
