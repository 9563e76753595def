/*
 * What `--pcap` captures, and how, on top of the pcap writer (pcap.h).
 *
 * Two views of the same frames:
 *   SIM_CAPTURE_RADIO  every MPDU (LINKTYPE_IEEE802_15_4_WITHFCS, 195),
 *                      link ACKs included: the radio medium as a sniffer
 *                      next to every node would see it;
 *   SIM_CAPTURE_IP     the IP datagram of every frame that carries one,
 *                      without its link header (LINKTYPE_RAW, 101). For
 *                      link mode "raw" (its fixed link header is no 6LoWPAN
 *                      header, so Wireshark cannot find the IP packet behind
 *                      it in a radio view), and for "iphc" networks whose
 *                      frames Wireshark cannot decode (moteip's TCP NHC,
 *                      the shared-port UDP form: docs/LOWPAN.md): each
 *                      frame's datagram as its receiver's netif rebuilds it
 *                      (mip_lowpan_peek_frame), fragmented datagrams left
 *                      out. Link ACKs carry no IP and are left out.
 * SIM_CAPTURE_AUTO picks IP for link mode "raw" and RADIO for "iphc".
 *
 * A radio view of an IPHC network starts with one record that no node
 * sent: a router advertisement at time 0 from node 0's short address,
 * carrying the 6LoWPAN context 0 (fd00::/64) in an RFC 6775 6CO option.
 * Wireshark learns contexts from such options, so it decompresses the
 * context-based addresses of every later frame as fd00::ff:fe00:N with its
 * default preferences (without the context it shows ::ff:fe00:N).
 * pcap_records() counts it; a reader matching records to the trace's `tx`
 * events skips it (the only record at time 0 that is an ICMPv6 RA).
 *
 * Per-node capture (node != SIM_CAPTURE_ALL): what `tcpdump` on node
 * `node`'s radio interface would show -- each frame its MAC is handed to
 * send (at the start of the first attempt; link retries, which repeat the
 * sequence number and bytes, are left out) and each frame it receives
 * addressed to it or broadcast (at its end; the copies a lost link ACK makes
 * the sender repeat are left out, as the MAC drops them). Link ACKs are
 * left out. A TCP end point's capture then holds each segment once per
 * transmission by TCP, where the capture of the whole medium holds one copy
 * per hop and link attempt (which Wireshark flags as retransmissions).
 */
#ifndef MOTEIP_SIM_CAPTURE_H
#define MOTEIP_SIM_CAPTURE_H

#include "pcap.h"

#include <moteip/mac.h>
#include <moteip/wire/ieee802154.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_CAPTURE_ALL UINT32_MAX
#define SIM_CAPTURE_RX_SLOTS 8u   /* senders remembered for duplicates */

enum sim_capture_view { SIM_CAPTURE_AUTO = 0, SIM_CAPTURE_RADIO, SIM_CAPTURE_IP };

struct sim_capture {
    struct pcap_writer *w;
    uint8_t  view;              /* RADIO or IP once open */
    bool     raw;               /* link mode "raw" (else IPHC) */
    uint32_t node;              /* SIM_CAPTURE_ALL or one node id */
    uint8_t  ip_offset;         /* IP view: link header bytes before the datagram */
    /* per node: the last frame sent and the last one received from each of
     * a few senders (retries and duplicates repeat them exactly) */
    uint16_t last_tx_len;
    uint8_t  last_tx[MIP_MAC_FRAME_MAX + MIP_802154_FCS_LEN];
    struct { uint16_t src; uint8_t seq; bool used; } last_rx[SIM_CAPTURE_RX_SLOTS];
    uint8_t  last_rx_next;      /* slot replaced next (round robin) */
};

struct sim;

/* Opens path for the built network sim (sim_build done): `view` and `node`
 * as above. Fails (code EINVAL, a message saying why) for the IP view of an
 * IPHC network or a node id out of range, else as pcap_open. On success
 * sim->capture points at cap. */
struct pcap_status sim_capture_open(struct sim *sim, struct sim_capture *cap, const char *path,
                                    enum sim_capture_view view, uint32_t node);

/* The medium's calls: a frame (MPDU with FCS) starts on the air from
 * `sender`; a frame from `sender` ended and `receiver` decoded it. No-ops
 * when nothing is captured. */
void sim_capture_tx(struct sim *sim, uint32_t sender, const uint8_t *mpdu, size_t len);
void sim_capture_rx(struct sim *sim, uint32_t receiver, uint32_t sender, const uint8_t *mpdu,
                    size_t len);

/* Closes the file (sim->capture becomes NULL); the writer's first error. */
struct pcap_status sim_capture_close(struct sim *sim);

#endif
