/*
 * The micro profile's measured image (bench/footprint): an entry point that
 * reaches every public function, with an application that does nothing, so
 * that --gc-sections keeps exactly IP + ICMP + TCP + checksum (and UDP
 * when MIP_MICRO_CONF_UDP is on). bench/footprint subtracts this file's own
 * symbols from the image.
 */
#include "moteip/micro.h"

void mip_micro_image_entry(struct mip_micro *m, const uint8_t *a, uint16_t n);

static void image_app(struct mip_micro *m, struct mip_micro_conn *c, uint8_t ev)
{
    (void)m;
    (void)c;
    (void)ev;
}

void mip_micro_image_entry(struct mip_micro *m, const uint8_t *a, uint16_t n)
{
    mip_micro_init(m, a, a, image_app, 0);
    mip_micro_listen(m, n);
    mip_micro_unlisten(m, n);
#if MIP_MICRO_CONF_CONNECT
    mip_micro_connect(m, a, n);
#endif
#if MIP_MICRO_CONF_UDP
    mip_micro_udp_bind(m, n);
    n = (uint16_t)(n + mip_micro_udp_send(m, a, n, n, n));
#endif
    n = mip_micro_input(m, n);
    m->slen = mip_micro_periodic(m, (uint8_t)n);
}
