#include "moteip/stack.h"

/* Fixed-width rows, not an array of pointers: a pointer table is relocated
 * at load time on PIE hosts and would land in writable .data.rel.ro. */
#if MIP_CONF_STAT_NAMES
#define MIP_STAT_NAME_MAX 32
static const char stat_names[MIP_STAT_COUNT][MIP_STAT_NAME_MAX] = {
#define MIP_STAT_NAME(name) #name,
    MIP_STATS_LIST(MIP_STAT_NAME)
#undef MIP_STAT_NAME
};

const char *mip_stat_name(enum mip_stat which)
{
    return (unsigned)which < MIP_STAT_COUNT ? stat_names[which] : NULL;
}
#else
const char *mip_stat_name(enum mip_stat which)
{
    (void)which;
    return NULL;
}
#endif

uint32_t mip_stack_stat(const struct mip_stack *s, enum mip_stat which)
{
    return (unsigned)which < MIP_STAT_COUNT ? s->stats.count[which] : 0;
}
