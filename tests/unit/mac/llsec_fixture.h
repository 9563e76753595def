/*
 * Link-layer security for the MAC tests (test_llsec.c, test_llsec_rdc.c):
 * one key, the fixture's short addresses mapped to EUI-64s
 * (02:00:00:00:00:00:hi:lo), and a node's config with security on.
 */
#ifndef MOTEIP_TEST_LLSEC_FIXTURE_H
#define MOTEIP_TEST_LLSEC_FIXTURE_H

#include "mac_fixture.h"

static const uint8_t llsec_key[16] = {0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7,
                                      0xC8, 0xC9, 0xCA, 0xCB, 0xCC, 0xCD, 0xCE, 0xCF};

static inline bool llsec_ext_of(void *ctx, uint16_t pan, uint16_t s, uint8_t ext[8])
{
    (void)ctx;
    (void)pan;
    memset(ext, 0, 8);
    ext[0] = 0x02;
    ext[6] = (uint8_t)(s >> 8);
    ext[7] = (uint8_t)s;
    return true;
}

/* The fixture's config for `kind` over `rdc` with short address `me` (and
 * its EUI-64), security at `level`, key id mode 1, index 1, no store. */
static inline void llsec_config(struct node *n, uint8_t kind, uint8_t rdc, uint16_t me,
                                uint8_t level)
{
    node_config(n, kind);
    n->cfg.rdc.kind = rdc;
    n->cfg.short_addr = me;
    (void)llsec_ext_of(NULL, PAN, me, n->cfg.ext_addr);
    n->cfg.sec.level = level;
    n->cfg.sec.key_id_mode = MIP_802154_KEY_INDEX;
    n->cfg.sec.key_index = 1;
    n->cfg.sec.reserve = 1;
    n->cfg.sec.ext_of = llsec_ext_of;
    memcpy(n->cfg.sec.key, llsec_key, 16);
}

#endif
