/*
 * src/route/: routing protocols, on the floor above core beside tcp/ and
 * relay/. They may include core, mac, wire and base headers, and reach
 * core only through the routing driver table they register
 * (moteip/routing.h); core never includes them.
 *
 * rpl.c: RPL (RFC 6550) node and root: DIO/DIS input and output, Trickle,
 * parent selection, upward routes, repair (docs/RPL.md).
 */
#include "moteip/rpl.h"
#include "moteip/stack.h"
#include <string.h>

void mip_rpl_config_default(struct mip_rpl_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->mop = MIP_RPL_MOP_NON_STORING;
    cfg->ocp = MIP_RPL_OCP_MRHOF;
    cfg->instance = MIP_RPL_DEFAULT_INSTANCE;
    cfg->dio_int_min = MIP_RPL_DEFAULT_DIO_INT_MIN;
    cfg->dio_int_doublings = MIP_RPL_DEFAULT_DIO_INT_DOUBLINGS;
    cfg->dio_redundancy = MIP_RPL_DEFAULT_DIO_REDUNDANCY;
    cfg->min_hop_rank_inc = MIP_RPL_DEFAULT_MIN_HOP_RANK_INC;
}
