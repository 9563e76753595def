/*
 * 6LoWPAN Neighbor Discovery (RFC 6775 as updated by RFC 8505) on one IPHC
 * radio netif of a stack: the host part (6LN) and the router part (6LR,
 * 6LBR). docs/ND.md gives the design and every choice the RFCs leave open.
 *
 * Host (mip_nd6lo_host_start): sends Router Solicitations with an SLLAO to
 * ff02::2, the first after a random delay below 1 s (RFC 4861 s.6.3.7)
 * (RFC 6775 s.5.3: three at RTR_SOLICITATION_INTERVAL 10 s, then
 * binary exponential backoff truncated at MAX_RTR_SOLICITATION_INTERVAL
 * 60 s, until an RA arrives). From an RA (link-local source, hop limit 255)
 * it takes the default router (a ::/0 route through its link-local
 * address), each PIO with the A flag (mip_slaac_configure; the L flag is
 * ignored: on a 6LoWPAN nothing but the router is on-link, RFC 6775 s.5.4),
 * each 6CO (the netif's compression contexts) and the ABRO (a version older
 * than the one held for the same 6LBR makes the RA's prefixes and contexts
 * be ignored; a newer one replaces the contexts). Every global address of
 * the netif is then registered with the router by a unicast NS from the
 * link-local address with an EARO (T set, a TID, the lifetime
 * MIP_ND6LO_REG_LIFETIME_MIN, the EUI-64 as ROVR) and an SLLAO: DAD happens
 * through the registration. A "duplicate" answer (status 1) removes the
 * address; "neighbour cache full" (2) and other failures retry after
 * MIP_ND6LO_RETRY_S; no answer after MAX_UNICAST_SOLICIT (3) NSs one
 * RETRANS_TIMER (1 s) apart means the router is gone: its route is removed
 * and solicitation starts again. A granted registration is renewed when
 * three quarters of its lifetime have passed. No multicast NS is ever sent
 * for address resolution: the next hop's link address comes from its IID
 * (netif.h), which registration guarantees unique.
 *
 * Router (mip_nd6lo_router_start): answers an RS with a unicast RA (SLLAO,
 * PIO, 6CO for each context, ABRO) to its source, and sends no periodic
 * multicast RA (RFC 6775 s.6.3). It accepts registrations into a table of
 * MIP_ND6LO_REG_MAX neighbour cache entries:
 *   TENTATIVE   made by an RS with an SLLAO (RFC 6775 s.6.3), lives
 *               TENTATIVE_NCE_LIFETIME (20 s);
 *   REGISTERED  made by an NS with an EARO, lives its registration
 *               lifetime (at most cfg->max_reg_lifetime_min).
 * A registration for an address held under another ROVR is refused with
 * status 1 (duplicate). A new one takes a free entry, else an expired or
 * the oldest tentative one; a registered entry is never evicted before its
 * lifetime ends, and one link-layer source holds at most
 * MIP_ND6LO_REG_PER_SRC entries, so a flood of forged NS-EARO gets status 2
 * ("neighbour cache full", counted nd6lo_reg_full) instead of pushing out
 * the registered neighbours. A lifetime of 0 removes the sender's own
 * registration. The router does no multi-hop DAD (DAR/DAC with a 6LBR):
 * its table is the authority for its link.
 *
 * Input: RS, RA, and NS/NA carrying an (E)ARO on the configured netif are
 * handled here; the rest of ND goes on as before (nd.c). Without link-layer
 * security a neighbour can forge any of these (docs/ND.md, threats).
 */
#ifndef MOTEIP_ND6LO_H
#define MOTEIP_ND6LO_H

#include <stdint.h>
#include <stdbool.h>
#include "moteip/config.h"
#include "moteip/status.h"
#include "moteip/timer.h"

struct mip_stack;

/* A compression context a router announces (6CO). */
struct mip_nd6lo_ctx_adv {
    uint8_t  cid;            /* 0..15 */
    bool     compress;       /* the C flag */
    uint16_t lifetime_min;   /* 60-s units */
    uint8_t  prefix[8];      /* a /64: moteip's contexts are /64 prefixes */
};

/* What a router announces. The caller owns it; it must outlive the stack
 * (the stack keeps the pointer). */
struct mip_nd6lo_router_config {
    uint8_t  prefix[16];             /* announced in the PIO (A set, L clear) */
    uint8_t  prefix_len;             /* 64 for SLAAC */
    uint32_t valid_s;                /* PIO lifetimes */
    uint32_t preferred_s;
    uint16_t router_lifetime_s;      /* RA router lifetime; 0: not a default router */
    uint32_t abro_version;
    uint16_t abro_lifetime_min;      /* 0: the RFC's default, 10,000 */
    uint8_t  lbr[16];                /* the 6LBR's address */
    uint16_t max_reg_lifetime_min;   /* longest registration granted; 0: 60 */
    uint8_t  ctx_count;              /* entries used in ctx[] */
    struct mip_nd6lo_ctx_adv ctx[MIP_ND6LO_CTX_ADV_MAX];
};

/* Router: told of each registration that asks for reachability (EARO R
 * flag: RFC 8505 s.5.1, e.g. an RPL 6LR injecting it as a DAO target),
 * with the granted lifetime in seconds, and of its end (lifetime 0:
 * deregistered or expired). Runs inside input or poll: it may not call
 * back into 6LoWPAN-ND. */
typedef void (*mip_nd6lo_reg_fn)(void *ctx, struct mip_stack *s, const uint8_t addr[16],
                                 uint32_t lifetime_s);

/* Registration entry states (router). */
enum mip_nd6lo_reg_state {
    MIP_ND6LO_REG_FREE = 0,
    MIP_ND6LO_REG_TENTATIVE,
    MIP_ND6LO_REG_REGISTERED
};

/* One router table entry (RAM: 40 B). */
struct mip_nd6lo_reg {
    uint32_t left_ms;        /* lifetime left */
    uint8_t  addr[16];
    uint8_t  rovr[8];        /* the ROVR folded to 8 bytes by XOR */
    uint8_t  lladdr[8];      /* the SLLAO's address (short: first 2 bytes) */
    uint8_t  llmode;         /* enum mip_802154_addr_mode */
    uint8_t  state;          /* enum mip_nd6lo_reg_state */
    uint8_t  tid;
    bool     reach;          /* the R flag: the hook was told */
};

/* Host registration states. */
enum mip_nd6lo_hreg_state {
    MIP_ND6LO_H_UNUSED = 0,
    MIP_ND6LO_H_REGISTERING,   /* NS sent, waiting for the NA */
    MIP_ND6LO_H_REGISTERED,    /* granted; left_ms until renewal */
    MIP_ND6LO_H_WAIT           /* refused or unanswered: left_ms until a retry */
};

/* One host registration (RAM: 12 B), per global address slot. */
struct mip_nd6lo_hreg {
    uint32_t left_ms;        /* to the next action */
    uint16_t granted_min;    /* the lifetime the router granted */
    uint8_t  slot;           /* the netif's addr6[] index; 0: unused */
    uint8_t  state;          /* enum mip_nd6lo_hreg_state */
    uint8_t  tries;
    uint8_t  tid;
};

struct mip_nd6lo {
    mip_time_t last_ms;      /* counters below were brought up to date here */
    uint8_t  role;           /* 0 off, 1 host, 2 router */
    uint8_t  netif;
    /* host */
    uint8_t  rs_count;       /* RSs sent since the last RA */
    bool     has_router;
    uint8_t  next_tid;
    bool     has_abro;
    uint32_t rs_left_ms;     /* to the next RS; UINT32_MAX: none due */
    uint32_t rs_interval_ms;
    uint32_t router_left_ms;
    uint32_t abro_left_ms;
    uint32_t abro_version;
    uint8_t  router[16];     /* the default router's link-local address */
    uint8_t  abro_lbr[16];
    struct mip_nd6lo_hreg hreg[MIP_NETIF_ADDR6_MAX];
    uint32_t ctx_left_ms[MIP_LOWPAN_CTX_IDS];   /* learnt contexts' lifetimes */
#if MIP_CONF_ND6LO_ROUTER
    const struct mip_nd6lo_router_config *rcfg;
    mip_nd6lo_reg_fn reg_hook;
    void    *reg_hook_ctx;
    struct mip_nd6lo_reg reg[MIP_ND6LO_REG_MAX];
#endif
};

/* Starts the host part on radio netif `netif` (IPHC mode): the first RS
 * goes out within a second (poll). INVALID for a netif that is not an IPHC radio netif;
 * INUSE when ND already runs. */
mip_status mip_nd6lo_host_start(struct mip_stack *s, uint8_t netif, mip_time_t now);

#if MIP_CONF_ND6LO_ROUTER
/* Starts the router part on `netif` with *cfg (kept by pointer). The
 * netif then also listens to ff02::2. INVALID as above, or for a cfg
 * with more than MIP_ND6LO_CTX_ADV_MAX contexts or a CID above 15; INUSE
 * when ND already runs. */
mip_status mip_nd6lo_router_start(struct mip_stack *s, uint8_t netif,
                                  const struct mip_nd6lo_router_config *cfg);

/* Sets (fn NULL: clears) the registration hook above. */
void mip_nd6lo_set_reg_hook(struct mip_stack *s, mip_nd6lo_reg_fn fn, void *ctx);

/* The registration for addr (REGISTERED entries only); NULL when none. */
const struct mip_nd6lo_reg *mip_nd6lo_router_find(const struct mip_stack *s,
                                                  const uint8_t addr[16]);
#endif

/* Host: the state of the registration of the netif address addr (enum
 * mip_nd6lo_hreg_state; UNUSED when none). */
uint8_t mip_nd6lo_host_reg_state(const struct mip_stack *s, const uint8_t addr[16]);

#endif
