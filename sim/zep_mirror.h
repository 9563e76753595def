/*
 * --zep-mirror ADDR:PORT: every frame the simulated medium carries, sent as
 * a ZEP datagram (include/moteip/wire/zep.h) to ADDR:PORT when it starts, so
 * Wireshark or tshark watches a run as it happens (with --realtime, at the
 * wall-clock pace; without, as fast as the run goes). docs/ZEP.md, "Live
 * capture". The device id is the sending node, the channel 26, and the
 * timestamp the simulated time counted from 1970-01-01 (NTP format).
 */
#ifndef MOTEIP_SIM_ZEP_MIRROR_H
#define MOTEIP_SIM_ZEP_MIRROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct sim;
struct mip_zep_hdr;

struct sim_zep_mirror {
    int fd;
    struct sockaddr_storage to;
    socklen_t to_len;
    uint32_t seq;                  /* datagrams sent: ZEP's sequence number */
    uint64_t send_errors;          /* nobody listening (ECONNREFUSED), buffers full */
};

/* Opens a UDP socket towards `spec` ("address:port", IPv6 as [address]:port).
 * false with a message in err. */
bool sim_zep_mirror_open(struct sim_zep_mirror *z, const char *spec, char *err, size_t errlen);
void sim_zep_mirror_close(struct sim_zep_mirror *z);

/* The header of a ZEP data datagram the simulator sends (the mirror's and
 * an external node's, external.h): CRC mode, LQI 0xFF (not measured), the
 * device id the sending node, and the timestamp simulated time `t_us`
 * counted from 1970-01-01 in NTP format (seconds since 1900, 2^-32 s). */
void sim_zep_header(struct mip_zep_hdr *h, uint8_t channel, uint32_t sender, uint64_t t_us,
                    uint32_t seq);

/* A frame of node `sender` starting now: mpdu[0..len) with its FCS, as the
 * medium carries it. Nothing happens when the run has no mirror. */
void sim_zep_mirror_tx(struct sim *sim, uint32_t sender, const uint8_t *mpdu, size_t len);

#endif
