/*
 * The simulator's live capture over ZEP (zep_mirror.h).
 */
#include "zep_mirror.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "moteip/wire/zep.h"
#include "sim.h"
#include "zep_radio.h"

#define MIRROR_CHANNEL 26u
#define NTP_UNIX_OFFSET 2208988800u

bool sim_zep_mirror_open(struct sim_zep_mirror *z, const char *spec, char *err, size_t errlen)
{
    char why[160];

    memset(z, 0, sizeof(*z));
    z->fd = -1;
    if (zep_parse_endpoint(spec, strlen(spec), &z->to, &z->to_len, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "--zep-mirror: %s", why);
        return false;
    }
    z->fd = socket(z->to.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (z->fd < 0) {
        snprintf(err, errlen, "--zep-mirror: socket: %s", strerror(errno));
        return false;
    }
    return true;
}

void sim_zep_mirror_close(struct sim_zep_mirror *z)
{
    if (z->fd >= 0)
        close(z->fd);
    z->fd = -1;
}

void sim_zep_header(struct mip_zep_hdr *h, uint8_t channel, uint32_t sender, uint64_t t_us,
                    uint32_t seq)
{
    memset(h, 0, sizeof(*h));
    h->channel = channel;
    h->device_id = (uint16_t)sender;
    h->crc_mode = true;
    h->lqi = 0xFF;
    h->ntp_seconds = (uint32_t)(NTP_UNIX_OFFSET + t_us / 1000000u);
    h->ntp_fraction = (uint32_t)(((t_us % 1000000u) << 32) / 1000000u);
    h->seq = seq;
}

void sim_zep_mirror_tx(struct sim *sim, uint32_t sender, const uint8_t *mpdu, size_t len)
{
    struct sim_zep_mirror *z = sim->zep_mirror;
    struct mip_zep_hdr h;
    uint8_t dgram[MIP_ZEP_V2_HDR_LEN + MIP_ZEP_FRAME_MAX];
    size_t n;

    if (z == NULL || len < 2u)
        return;
    sim_zep_header(&h, MIRROR_CHANNEL, sender, sim->now_us, z->seq++);
    /* the FCS is the medium's: emit writes the same one again */
    if (mip_zep_emit(&h, mpdu, len - 2u, dgram, sizeof(dgram), &n) != MIP_OK)
        return;
    if (sendto(z->fd, dgram, n, 0, (const struct sockaddr *)&z->to, z->to_len) < 0)
        z->send_errors++;
}
