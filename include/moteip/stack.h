/*
 * The stack instance: all state of one moteip node in one struct.
 *
 * There are no globals: a mote has one `struct mip_stack`, the simulator has
 * thousands. The caller owns the memory (static, or inside its own node
 * struct) and drives the instance with two calls:
 *
 *   mip_stack_input(s, netif, frame, len, now)  for every received frame
 *   mip_stack_poll(s, now)                       whenever the returned delay
 *                                                has passed (or earlier)
 *
 * Neither blocks, reads a clock, or allocates. Calls that send (UDP,
 * later TCP) stamp their timers with the `now` of the latest input or poll
 * call: after time has passed without either, call mip_stack_poll(now)
 * before sending. Higher floors (TCP, relay,
 * apps) keep their own state in their own structs and attach through the
 * tables in ip.h and udp.h.
 */
#ifndef MOTEIP_STACK_H
#define MOTEIP_STACK_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/config.h"
#include "moteip/status.h"
#include "moteip/timer.h"
#include "moteip/rng.h"
#include "moteip/addr.h"
#include "moteip/pbuf.h"
#include "moteip/stats.h"
#include "moteip/netif.h"
#include "moteip/route.h"
#include "moteip/routing.h"
#include "moteip/neigh.h"
#include "moteip/reass.h"
#include "moteip/ip.h"
#include "moteip/udp.h"
#include "moteip/ping.h"
#if MIP_CONF_SLAAC
#include "moteip/slaac.h"
#endif
#if MIP_CONF_ND6LO
#include "moteip/nd6lo.h"
#endif

/* Per-node settings given at init (values a simulator varies per node). */
struct mip_stack_config {
    const uint8_t *entropy;   /* seed for the instance PRNG; >= 16 bytes recommended */
    size_t   entropy_len;
    bool     forwarding;      /* route datagrams not addressed to us (needs MIP_CONF_FORWARD) */
    uint8_t  default_ttl;     /* 0: MIP_DEFAULT_TTL */
    /* The packet buffers' storage, the caller's (pbuf.h); NULL: the
     * stack's own (MIP_BUFS_OWN). mip_stack_init fails with MIP_ERR_INVALID
     * on storage mip_pbuf_pool_init_storage refuses, or on none with
     * MIP_BUFS_OWN 0. */
    const struct mip_pbuf_storage *pbufs;
    /* With MIP_BUFS_OWN 0: MIP_REASS_SLOTS x MIP_REASS_SIZE bytes, the
     * caller's, living as long as the stack (slot i's buffer at i x
     * MIP_REASS_SIZE); NULL fails with MIP_ERR_INVALID. Unused (may be
     * NULL) with MIP_BUFS_OWN 1, where the slots hold their own. */
    uint8_t *reass_mem;
};

/* A token bucket: ICMP errors (RFC 4443 2.4(f), used for ICMPv4 too) and
 * new neighbor resolutions (MIP_NEIGH_RESOLVE_*). */
struct mip_rate_limiter {
    uint16_t   tokens;
    mip_time_t last_refill;
};

/* A higher floor's timers (TCP): runs what is due at `now` and returns the
 * milliseconds to its next deadline, or MIP_POLL_IDLE. */
typedef uint32_t (*mip_poll_fn)(void *ctx, struct mip_stack *s, mip_time_t now);
/* Whether a higher floor waits for a peer's answer just now (TCP: data, a
 * SYN or a FIN unacknowledged; CoAP: a request without its response). */
typedef bool (*mip_await_fn)(const void *ctx, const struct mip_stack *s);

struct mip_poller {
    mip_poll_fn fn;
    mip_await_fn await;         /* may be NULL: never waits */
    void *ctx;
};

struct mip_stack {
    mip_time_t now;                 /* time of the current input/poll call */
    struct mip_rng rng;
    bool       forwarding;
    uint8_t    default_ttl;
    uint16_t   ipv4_next_id;
    uint32_t   ipv6_next_frag_id;
    struct mip_rate_limiter icmp_limit;
#if MIP_CONF_ETHERNET
    struct mip_rate_limiter neigh_limit;
#endif
    struct mip_stats stats;
    struct mip_pbuf_pool pool;
    struct mip_netif netif[MIP_NETIF_MAX];
    struct mip_route route[MIP_ROUTE_MAX];
    uint8_t    route_end;           /* route[] is empty from here on: lookups stop */
    uint8_t    route_hit;           /* route[] slot of the last output lookup, for */
    struct mip_addr route_hit_dst;  /* this destination (family NONE: none cached) */
    struct mip_routing routing;     /* the routing driver (routing.h) */
    struct mip_neigh neigh[MIP_NEIGH_MAX];
    struct mip_reass_slot reass[MIP_REASS_SLOTS];
#if MIP_CONF_LOWPAN
    struct mip_lowpan_reass_slot lowpan_reass[MIP_LOWPAN_REASS_SLOTS];
#if MIP_LOWPAN_VRB_SLOTS > 0
    struct mip_lowpan_vrb lowpan_vrb[MIP_LOWPAN_VRB_SLOTS];
#endif
    struct mip_lowpan_known lowpan_known[MIP_LOWPAN_KNOWN_MAX];
#endif
    struct mip_udp_sock udp[MIP_UDP_MAX];
    struct mip_proto_handler proto[MIP_PROTO_HANDLERS_MAX];
    mip_fwd_hook_fn fwd_hook;
    void      *fwd_hook_ctx;
#if MIP_CONF_FORWARD
    mip_local_hook_fn local_hook;      /* mip_ip_set_local_hook() */
    void      *local_hook_ctx;
#endif
    mip_echo_reply_fn echo_reply_fn;   /* mip_ping_set_handler() */
    void      *echo_reply_ctx;
    struct mip_poller poller[MIP_POLLERS_MAX];
#if MIP_CONF_SLAAC
    struct mip_slaac slaac;
#endif
#if MIP_CONF_ND6LO
    struct mip_nd6lo nd6lo;
#endif
};

/* The build a program was compiled with, as far as memory layout goes: the
 * size of struct mip_stack and the feature switches (config.h). A firmware
 * that includes these headers with other MIP_CONF_* or MIP_* sizes than the
 * installed library was built with (a -D missing from its build, another
 * profile) would hand the library a struct of another shape: the library
 * compares the two at mip_stack_init and refuses, instead of writing past
 * the caller's memory. find_package(moteip) and pkg-config carry the
 * library's definitions, so a consumer built with them always matches. */
struct mip_build {
    uint32_t stack_size;   /* sizeof(struct mip_stack) */
    uint32_t switches;     /* MIP_BUILD_SWITCHES */
};
/* One bit per on/off switch, then the RDC and relay-mode masks. */
#define MIP_BUILD_SWITCHES                                                     \
    ((uint32_t)(MIP_PROFILE_DEFAULT(0, 1)) | (uint32_t)(MIP_CONF_IPV4 != 0) << 1 | \
     (uint32_t)(MIP_CONF_IPV6 != 0) << 2 | (uint32_t)(MIP_CONF_ETHERNET != 0) << 3 | \
     (uint32_t)(MIP_CONF_FORWARD != 0) << 4 | (uint32_t)(MIP_CONF_LOWPAN != 0) << 5 | \
     (uint32_t)(MIP_CONF_STAT_NAMES != 0) << 6 |                                   \
     ((uint32_t)(MIP_CONF_RELAY_MODES) & 0xFFu) << 8 | ((uint32_t)(MIP_CONF_RDC) & 0xFFu) << 16)

/* Initialises every part of *s; `now` starts its clock. cfg may be NULL
 * for defaults (no entropy: a fixed seed, fine for tests only).
 * MIP_ERR_CONFIG, with *s untouched, when `caller` (the build the calling
 * code was compiled with) is not the library's: see mip_stack_init.
 * MIP_ERR_INVALID when cfg->pbufs is storage the pool refuses, or when,
 * with MIP_BUFS_OWN 0, cfg->pbufs or cfg->reass_mem is absent (pbuf.h): *s
 * is then initialised but must not be used. */
mip_status mip_stack_init_build(struct mip_stack *s, const struct mip_stack_config *cfg,
                                mip_time_t now, struct mip_build caller);

/* mip_stack_init_build with the build of the code that calls it: inline, so
 * `sizeof` and the switches are the caller's, not the library's. MIP_OK, or
 * MIP_ERR_CONFIG (nothing written): then mip_build_mismatch() names the
 * difference. Only a mismatched build or refused packet buffer storage
 * (MIP_ERR_INVALID, above) fails; a firmware built against the installed
 * package that passes no storage may ignore the result. */
static inline mip_status mip_stack_init(struct mip_stack *s, const struct mip_stack_config *cfg,
                                        mip_time_t now)
{
    struct mip_build here = {(uint32_t)sizeof(struct mip_stack), MIP_BUILD_SWITCHES};
    return mip_stack_init_build(s, cfg, now, here);
}

/* Writes into buf (len bytes, NUL-terminated, truncated to fit) the first
 * difference between `caller` and the library's build, e.g.
 * "MIP_CONF_LOWPAN: library 1, program 0"; "" when they agree. Returns the
 * length written. */
size_t mip_build_mismatch(struct mip_build caller, char *buf, size_t len);

/* Processes one received link frame from netif `netif`. The frame memory is
 * the caller's and only read during the call. Bad frames are dropped and
 * counted; nothing is returned because nothing is for the caller to do. */
void mip_stack_input(struct mip_stack *s, uint8_t netif, const uint8_t *frame,
                     size_t len, mip_time_t now);

/* Runs every timer due at `now` (resolution retries, reassembly timeouts,
 * ...) and returns the milliseconds until the next deadline, or
 * MIP_POLL_IDLE when none is pending. Calling it early is harmless. */
uint32_t mip_stack_poll(struct mip_stack *s, mip_time_t now);

/* Adds a poller run by every mip_stack_poll(), with its answer to
 * mip_stack_awaits_reply() (await may be NULL). NOBUFS when all
 * MIP_POLLERS_MAX are taken. */
mip_status mip_stack_add_poller(struct mip_stack *s, mip_poll_fn fn, mip_await_fn await,
                                void *ctx);

/* True while any higher floor waits for a reply from a peer (the pollers'
 * await functions), whatever the transport, or 6LoWPAN-ND waits for its
 * router (an RS or a registration unanswered, nd6lo.h). The owner of a duty-cycled
 * link tells its MAC (mip_mac_expect_reply: a sleepy leaf then polls its
 * parent every poll_fast_us, TCPlp s.9); the stack itself never calls down
 * to a MAC. */
bool mip_stack_awaits_reply(const struct mip_stack *s);

/* Reads one counter. */
uint32_t mip_stack_stat(const struct mip_stack *s, enum mip_stat which);

#endif
