/* fuzz_micro_input.h on the micro4r library: IPv4 with reassembly
 * (MIP_MICRO_CONF_REASS=1), so that fragments reach m->reass. */
#include "fuzz_micro_input.h"
