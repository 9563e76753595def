/*
 * NullMAC: no carrier sense, no backoff, no ACK wait. The frame goes out as
 * soon as the radio is idle (it may be sending one of our ACKs).
 */
#include "mac_proto.h"

static void send_now(struct mip_mac *m)
{
    mip_mac_timer(m, MIP_MAC_STEP_SEND, 0);
}

static void step(struct mip_mac *m)
{
    mip_mac_start_tx(m);
}

static const struct mip_mac_proto proto = {
    send_now, step, send_now, mip_mac_wait_ack_never, mip_mac_noack_finish
};

const struct mip_mac_proto *mip_mac_proto_nullmac(void)
{
    return &proto;
}
