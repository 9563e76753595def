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

static bool wait_ack(const struct mip_mac *m)
{
    (void)m;
    return false;
}

static void noack(struct mip_mac *m)
{
    mip_mac_finish(m, MIP_MAC_TX_NOACK);
}

static const struct mip_mac_proto proto = { send_now, step, send_now, wait_ack, noack };

const struct mip_mac_proto *mip_mac_proto_nullmac(void)
{
    return &proto;
}
