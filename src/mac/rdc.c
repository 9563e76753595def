/* RDC parameters shared by every kind (rdc.h). */
#include <string.h>

#include "moteip/rdc.h"

void mip_rdc_config_default(struct mip_rdc_config *c, uint8_t kind)
{
    memset(c, 0, sizeof(*c));
    c->kind = kind;
}
