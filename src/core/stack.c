/*
 * src/core/: the stack instance (struct mip_stack) and everything under
 * transport: netifs (Ethernet with ARP/ND, raw IP, SLIP, 6LoWPAN), IPv4 and
 * IPv6 input, output, forwarding and reassembly, ICMP, UDP, routes,
 * neighbours, pbufs, counters. It may include wire/, base/ and mac/ headers
 * and config.h; tcp/ and relay/ attach from above when set up (protocol
 * handler table, pollers, forward and local hooks), never by an include.
 *
 * The stack instance: init, frame input, and the tickless poll.
 */
#include "core.h"
#include <string.h>

/* The switches of MIP_BUILD_SWITCHES, for naming a difference. */
static const struct {
    char name[22];
    uint8_t shift, width;
} build_fields[] = {
    {"MOTEIP_PROFILE_FULL", 0, 1}, {"MIP_CONF_IPV4", 1, 1},       {"MIP_CONF_IPV6", 2, 1},
    {"MIP_CONF_ETHERNET", 3, 1},   {"MIP_CONF_FORWARD", 4, 1},    {"MIP_CONF_LOWPAN", 5, 1},
    {"MIP_CONF_STAT_NAMES", 6, 1}, {"MIP_CONF_RELAY_MODES", 8, 8}, {"MIP_CONF_RDC", 16, 8},
};

static struct mip_build library_build(void)
{
    struct mip_build b = {(uint32_t)sizeof(struct mip_stack), MIP_BUILD_SWITCHES};
    return b;
}

/* Appends "NAME: library A, program B" to buf (bounded, NUL-terminated). */
static size_t put_difference(char *buf, size_t len, const char *name, uint32_t lib, uint32_t prog)
{
    char num[2][11];
    uint32_t v[2] = {lib, prog};
    const char *parts[5];
    size_t n = 0, i, k;

    for (k = 0; k < 2; k++) {     /* decimal, without printf (not on every target) */
        char tmp[11];
        size_t d = 0;
        do {
            tmp[d++] = (char)('0' + v[k] % 10u);
            v[k] /= 10u;
        } while (v[k] != 0u);
        for (i = 0; i < d; i++)
            num[k][i] = tmp[d - 1 - i];
        num[k][d] = '\0';
    }
    parts[0] = name;
    parts[1] = ": library ";
    parts[2] = num[0];
    parts[3] = ", program ";
    parts[4] = num[1];
    for (k = 0; k < 5; k++)
        for (i = 0; parts[k][i] != '\0' && n + 1 < len; i++)
            buf[n++] = parts[k][i];
    if (len > 0)
        buf[n] = '\0';
    return n;
}

size_t mip_build_mismatch(struct mip_build caller, char *buf, size_t len)
{
    struct mip_build lib = library_build();
    size_t i;

    for (i = 0; i < sizeof build_fields / sizeof build_fields[0]; i++) {
        uint32_t mask = (1u << build_fields[i].width) - 1u;
        uint32_t a = lib.switches >> build_fields[i].shift & mask;
        uint32_t b = caller.switches >> build_fields[i].shift & mask;
        if (a != b)
            return put_difference(buf, len, build_fields[i].name, a, b);
    }
    if (lib.stack_size != caller.stack_size)   /* a size (MIP_PBUF_COUNT, ...) differs */
        return put_difference(buf, len, "sizeof(struct mip_stack)", lib.stack_size,
                              caller.stack_size);
    if (len > 0)
        buf[0] = '\0';
    return 0;
}

mip_status mip_stack_init_build(struct mip_stack *s, const struct mip_stack_config *cfg,
                                mip_time_t now, struct mip_build caller)
{
    static const uint8_t fixed_seed[1] = {0};
    struct mip_build lib = library_build();

    /* Before any write: a struct of another shape is the caller's memory, not ours. */
    if (caller.stack_size != lib.stack_size || caller.switches != lib.switches)
        return MIP_ERR_CONFIG;
    memset(s, 0, sizeof(*s));
    s->now = now;
    if (cfg != NULL && cfg->entropy != NULL && cfg->entropy_len > 0)
        mip_rng_seed(&s->rng, cfg->entropy, cfg->entropy_len);
    else
        mip_rng_seed(&s->rng, fixed_seed, sizeof(fixed_seed));
#if MIP_CONF_FORWARD
    s->forwarding = cfg != NULL && cfg->forwarding;
#endif
    s->default_ttl = (cfg != NULL && cfg->default_ttl != 0) ? cfg->default_ttl : MIP_DEFAULT_TTL;
    /* Random starting identifiers: predictable IDs leak traffic rates and
     * enable fragment injection (RFC 7739). */
    s->ipv4_next_id = (uint16_t)mip_rng_next(&s->rng);
    s->ipv6_next_frag_id = mip_rng_next(&s->rng);
    s->icmp_limit.tokens = MIP_ICMP_RATE_BURST;
    s->icmp_limit.last_refill = now;
#if MIP_CONF_ETHERNET
    s->neigh_limit.tokens = MIP_NEIGH_RESOLVE_BURST;
    s->neigh_limit.last_refill = now;
#endif
    mip_pbuf_pool_init(&s->pool);
    s->routing.ops = &mip_routing_static;
#if !MIP_BUFS_OWN
    {
        uint8_t i;
        if (cfg == NULL || cfg->pbufs == NULL || cfg->reass_mem == NULL)
            return MIP_ERR_INVALID;
        for (i = 0; i < MIP_REASS_SLOTS; i++)
            s->reass[i].data = cfg->reass_mem + (size_t)i * MIP_REASS_SIZE;
    }
#endif
    if (cfg != NULL && cfg->pbufs != NULL)
        return mip_pbuf_pool_init_storage(&s->pool, cfg->pbufs);
    return MIP_OK;
}

/* A full bucket's stamp is not read: taking its first token restarts it.
 * A bucket that is not full is refilled by every call and by
 * mip_stack_poll, which asks to be called again by the stamp's horizon
 * (MIP_TIME_HORIZON_MS), when the bucket is long full (burst x interval),
 * so no stamp is compared across half the wrap (issue 24: an empty bucket
 * stopped refilling after 24.9 quiet days). Returns that deadline. */
static uint32_t rate_refill(struct mip_rate_limiter *l, mip_time_t now, uint16_t burst,
                            uint32_t interval)
{
    uint32_t elapsed = (uint32_t)(now - l->last_refill), add;
    if (l->tokens >= burst)
        return MIP_POLL_IDLE;
    if (mip_time_before(now, l->last_refill))
        return MIP_TIME_HORIZON_MS;     /* (the caller's clock went back) */
    add = elapsed / interval;
    if (add >= (uint32_t)(burst - l->tokens)) {
        l->tokens = burst;
        return MIP_POLL_IDLE;
    }
    l->tokens = (uint16_t)(l->tokens + add);
    l->last_refill = (mip_time_t)(l->last_refill + add * interval);
    return MIP_TIME_HORIZON_MS - (elapsed - add * interval);
}

bool rate_take(struct mip_rate_limiter *l, mip_time_t now, uint16_t burst, uint32_t interval)
{
    (void)rate_refill(l, now, burst, interval);
    if (l->tokens == 0)
        return false;
    if (l->tokens >= burst)
        l->last_refill = now;
    l->tokens--;
    return true;
}

void mip_stack_input(struct mip_stack *s, uint8_t netif, const uint8_t *frame,
                     size_t len, mip_time_t now)
{
    struct mip_netif *nif = mip_netif_get(s, netif);
    s->now = now;
    if (nif == NULL || frame == NULL)
        return;
    STAT(s, rx_frames);
    nif->ops->input(s, nif, frame, len);
}

uint32_t mip_stack_poll(struct mip_stack *s, mip_time_t now)
{
    uint32_t next = MIP_POLL_IDLE, d;
    unsigned i;
    s->now = now;
    /* Neighbors last: other modules' expiries send (an ICMP error when a
     * reassembly times out) and so may start a resolution whose deadline
     * must be in the answer. */
    d = reass_poll(s, now);
    if (d < next) next = d;
#if MIP_CONF_SLAAC
    d = slaac_poll(s, now);
    if (d < next) next = d;
#endif
#if MIP_CONF_ND6LO
    d = nd6lo_poll(s, now);
    if (d < next) next = d;
#endif
#if MIP_CONF_LOWPAN
    d = lowpan_poll(s, now);
    if (d < next) next = d;
#endif
    for (i = 0; i < MIP_POLLERS_MAX; i++) {
        if (s->poller[i].fn == NULL)
            continue;
        d = s->poller[i].fn(s->poller[i].ctx, s, now);
        if (d < next) next = d;
    }
    d = routing_poll(s, now);
    if (d < next) next = d;
    d = neigh_poll(s, now);
    if (d < next) next = d;
    d = rate_refill(&s->icmp_limit, now, MIP_ICMP_RATE_BURST, MIP_ICMP_RATE_INTERVAL_MS);
    if (d < next) next = d;
#if MIP_CONF_ETHERNET
    d = rate_refill(&s->neigh_limit, now, MIP_NEIGH_RESOLVE_BURST, MIP_NEIGH_RESOLVE_INTERVAL_MS);
    if (d < next) next = d;
#endif
    return next;
}

mip_status mip_ip_register_proto(struct mip_stack *s, uint8_t proto,
                                 mip_proto_input_fn input, mip_proto_error_fn error,
                                 void *ctx)
{
    unsigned i;
    struct mip_proto_handler *free_slot = NULL;
    if (proto == 0 || input == NULL)
        return MIP_ERR_INVALID;
    for (i = 0; i < MIP_PROTO_HANDLERS_MAX; i++) {
        if (s->proto[i].proto == proto)
            return MIP_ERR_INUSE;
        if (s->proto[i].proto == 0 && free_slot == NULL)
            free_slot = &s->proto[i];
    }
    if (free_slot == NULL)
        return MIP_ERR_NOBUFS;
    free_slot->proto = proto;
    free_slot->input = input;
    free_slot->error = error;
    free_slot->ctx = ctx;
    return MIP_OK;
}

mip_status mip_stack_add_poller(struct mip_stack *s, mip_poll_fn fn, mip_await_fn await,
                                void *ctx)
{
    unsigned i;
    if (fn == NULL)
        return MIP_ERR_INVALID;
    for (i = 0; i < MIP_POLLERS_MAX; i++) {
        if (s->poller[i].fn == NULL) {
            s->poller[i].fn = fn;
            s->poller[i].await = await;
            s->poller[i].ctx = ctx;
            return MIP_OK;
        }
    }
    return MIP_ERR_NOBUFS;
}

bool mip_stack_awaits_reply(const struct mip_stack *s)
{
    unsigned i;
#if MIP_CONF_ND6LO
    if (nd6lo_awaits_reply(s))
        return true;
#endif
    for (i = 0; i < MIP_POLLERS_MAX; i++)
        if (s->poller[i].await != NULL && s->poller[i].await(s->poller[i].ctx, s))
            return true;
    return false;
}

void mip_ip_set_forward_hook(struct mip_stack *s, mip_fwd_hook_fn fn, void *ctx)
{
    s->fwd_hook = fn;
    s->fwd_hook_ctx = ctx;
}

#if MIP_CONF_FORWARD
void mip_ip_set_local_hook(struct mip_stack *s, mip_local_hook_fn fn, void *ctx)
{
    s->local_hook = fn;
    s->local_hook_ctx = ctx;
}
#endif
