/* What --pcap captures; the contract is in capture.h. */
#include "capture.h"
#include "sim.h"

#include <moteip/wire/checksum.h>
#include <moteip/wire/icmpv6.h>
#include <moteip/wire/ieee802154.h>
#include <moteip/wire/ipv6.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define ND_RA_TYPE      134u
#define ND_RA_LEN       16u     /* ICMPv6 header 8 + reachable 4 + retrans 4 */
#define ND_OPT_6CO      34u     /* RFC 6775 section 4.2 */
#define ND_6CO_LEN      16u     /* context length 64: the prefix fits in 8 bytes */
#define LOWPAN_IPV6     0x41u   /* RFC 4944 dispatch: uncompressed IPv6 */
#define CTX_LIFETIME    0xFFFFu /* minutes: as long as the field allows */

static struct pcap_status bad(const char *what)
{
    struct pcap_status st;
    st.code = EINVAL;
    snprintf(st.text, sizeof st.text, "%s", what);
    return st;
}

/* The context record (capture.h): 802.15.4 broadcast from node 0, then an
 * uncompressed IPv6 router advertisement fe80::ff:fe00:0 -> ff02::1 with a
 * 6CO option for context 0. Returns the MPDU length (FCS included). */
static size_t context_record(const struct mip_netif_lowpan *lp, uint8_t *buf, size_t cap)
{
    struct mip_802154_hdr mh;
    struct mip_ipv6_hdr ip;
    struct mip_icmp_hdr ic;
    size_t mhr, off;
    uint8_t *icmp;
    uint16_t sum;

    memset(&mh, 0, sizeof mh);
    mh.type = MIP_802154_DATA;
    mh.pan_id_compress = true;
    mh.dst_pan = mh.src_pan = lp->pan_id;
    mh.dst.mode = MIP_802154_ADDR_SHORT;
    mh.dst.short_addr = MIP_802154_BROADCAST;
    mh.src.mode = MIP_802154_ADDR_SHORT;
    mh.src.short_addr = 0;
    if (mip_ieee802154_emit(&mh, buf, cap, &mhr) != MIP_OK ||
        mhr + 1u + 40u + ND_RA_LEN + ND_6CO_LEN + MIP_802154_FCS_LEN > cap)
        return 0;
    off = mhr;
    buf[off++] = LOWPAN_IPV6;

    memset(&ip, 0, sizeof ip);
    ip.payload_len = ND_RA_LEN + ND_6CO_LEN;
    ip.next_header = 58;
    ip.hop_limit = 255;     /* RFC 4861: ND messages are sent with 255 */
    ip.src[0] = 0xfe;
    ip.src[1] = 0x80;
    ip.src[11] = 0xff;      /* the IID of short address 0 (RFC 4944 section 6) */
    ip.src[12] = 0xfe;
    ip.dst[0] = 0xff;
    ip.dst[1] = 0x02;
    ip.dst[15] = 0x01;
    (void)mip_ipv6_emit(&ip, buf + off, cap - off);
    off += 40u;

    icmp = buf + off;
    memset(icmp, 0, ND_RA_LEN + ND_6CO_LEN);
    memset(&ic, 0, sizeof ic);
    ic.type = ND_RA_TYPE;
    ic.rest = 64u << 24;    /* cur hop limit 64, no flags, router lifetime 0 */
    (void)mip_icmp_emit(&ic, icmp, ND_RA_LEN);
    icmp[ND_RA_LEN + 0] = ND_OPT_6CO;
    icmp[ND_RA_LEN + 1] = ND_6CO_LEN / 8u;
    icmp[ND_RA_LEN + 2] = 64;                   /* context length */
    icmp[ND_RA_LEN + 3] = 0x10;                 /* C (valid for compression), CID 0 */
    icmp[ND_RA_LEN + 6] = (uint8_t)(CTX_LIFETIME >> 8);
    icmp[ND_RA_LEN + 7] = (uint8_t)CTX_LIFETIME;
    memcpy(icmp + ND_RA_LEN + 8, lp->ctx0_prefix, 8);
    sum = mip_cksum_finish(mip_cksum_add(mip_cksum_pseudo6(ip.src, ip.dst, 58,
                                                           ND_RA_LEN + ND_6CO_LEN),
                                         icmp, ND_RA_LEN + ND_6CO_LEN));
    icmp[2] = (uint8_t)(sum >> 8);
    icmp[3] = (uint8_t)sum;
    off += ND_RA_LEN + ND_6CO_LEN;

    sum = mip_ieee802154_fcs(buf, off);
    buf[off++] = (uint8_t)sum;
    buf[off++] = (uint8_t)(sum >> 8);
    return off;
}

struct pcap_status sim_capture_open(struct sim *sim, struct sim_capture *cap, const char *path,
                                    enum sim_capture_view view, uint32_t node)
{
    const struct sim_scenario *sc = sim->sc;
    bool raw = sc->link_mode == MIP_LOWPAN_RAW_IP;
    struct pcap_status st;

    memset(cap, 0, sizeof *cap);
    if (view == SIM_CAPTURE_AUTO)
        view = raw ? SIM_CAPTURE_IP : SIM_CAPTURE_RADIO;

    if (node != SIM_CAPTURE_ALL && node >= sim->n) {
        char msg[96];
        snprintf(msg, sizeof msg, "node %u does not exist (nodes 0..%u)", node, sim->n - 1u);
        return bad(msg);
    }
    cap->view = (uint8_t)view;
    cap->raw = raw;
    cap->node = node;
    cap->ip_offset = (uint8_t)(sc->link_hdr_bytes - MIP_802154_FCS_LEN);
    st = pcap_open(&cap->w, path, view == SIM_CAPTURE_IP ? PCAP_LINKTYPE_RAW
                                                         : PCAP_LINKTYPE_IEEE802_15_4_WITHFCS);
    if (st.code != 0)
        return st;
    if (view == SIM_CAPTURE_RADIO && !raw && sim->n > 0) {
        const struct mip_netif *nif = mip_netif_get(&sim->node[0].stack, sim->node[0].netif);
        uint8_t rec[MIP_802154_MPDU_MAX];
        size_t n = nif != NULL && nif->lowpan.has_context0 ?
                   context_record(&nif->lowpan, rec, sizeof rec) : 0;
        if (n > 0)
            (void)pcap_write(cap->w, 0, rec, n);
    }
    sim->capture = cap;
    return st;
}

/* IP view of an IPHC network: the datagram the frame's receiver rebuilds
 * (its netif decompresses, TCP NHC included, with its contexts as they are
 * when the frame starts); a broadcast as its sender's netif reads it.
 * Fragmented datagrams and frames no node decodes are left out. */
static void write_iphc_ip(struct sim *sim, const uint8_t *mpdu, size_t len)
{
    struct sim_capture *cap = sim->capture;
    struct mip_802154_hdr h;
    struct mip_lowpan_peek pk;
    const struct sim_node *nd;
    uint8_t buf[MIP_802154_MPDU_MAX + 128];
    size_t hl;
    if (len < MIP_802154_FCS_LEN ||
        mip_ieee802154_parse(mpdu, len - MIP_802154_FCS_LEN, &h, &hl) != MIP_OK ||
        h.type != MIP_802154_DATA || h.dst.mode != MIP_802154_ADDR_SHORT)
        return;
    if (h.dst.short_addr == MIP_802154_BROADCAST) {
        if (h.src.mode != MIP_802154_ADDR_SHORT || h.src.short_addr >= sim->n)
            return;
        nd = &sim->node[h.src.short_addr];
    } else if (h.dst.short_addr < sim->n) {
        nd = &sim->node[h.dst.short_addr];
    } else {
        return;
    }
    if (mip_lowpan_peek_frame(&nd->stack, nd->netif, mpdu, len - MIP_802154_FCS_LEN, buf,
                              sizeof buf, &pk) != MIP_OK || pk.ip_len != pk.dgram_len)
        return;
    (void)pcap_write(cap->w, sim->now_us, buf, pk.ip_len);
}

static void write_frame(struct sim *sim, const uint8_t *mpdu, size_t len)
{
    struct sim_capture *cap = sim->capture;
    if (cap->view == SIM_CAPTURE_IP && !cap->raw) {
        write_iphc_ip(sim, mpdu, len);
    } else if (cap->view == SIM_CAPTURE_IP) {
        /* a link ACK (or anything shorter than the fixed header) has no IP */
        if (len <= (size_t)cap->ip_offset + MIP_802154_FCS_LEN)
            return;
        (void)pcap_write(cap->w, sim->now_us, mpdu + cap->ip_offset,
                         len - cap->ip_offset - MIP_802154_FCS_LEN);
    } else {
        (void)pcap_write(cap->w, sim->now_us, mpdu, len);
    }
}

void sim_capture_tx(struct sim *sim, uint32_t sender, const uint8_t *mpdu, size_t len)
{
    struct sim_capture *cap = sim->capture;
    struct mip_802154_hdr h;
    size_t hl;
    if (cap == NULL)
        return;
    if (cap->node != SIM_CAPTURE_ALL) {
        if (cap->node != sender || len < MIP_802154_FCS_LEN || len > sizeof cap->last_tx ||
            mip_ieee802154_parse(mpdu, len - MIP_802154_FCS_LEN, &h, &hl) != MIP_OK ||
            h.type == MIP_802154_ACK)
            return;
        if (len == cap->last_tx_len && memcmp(mpdu, cap->last_tx, len) == 0)
            return;                 /* a link retry */
        memcpy(cap->last_tx, mpdu, len);
        cap->last_tx_len = (uint16_t)len;
    }
    write_frame(sim, mpdu, len);
}

/* True when this (source, sequence number) was the last one received from
 * that source: a copy the sender repeated after a lost link ACK. */
static bool rx_duplicate(struct sim_capture *cap, const struct mip_802154_hdr *h)
{
    uint16_t src;
    unsigned i;
    if (h->src.mode != MIP_802154_ADDR_SHORT)
        return false;
    src = h->src.short_addr;
    for (i = 0; i < SIM_CAPTURE_RX_SLOTS; i++) {
        if (cap->last_rx[i].used && cap->last_rx[i].src == src) {
            if (cap->last_rx[i].seq == h->seq)
                return true;
            cap->last_rx[i].seq = h->seq;
            return false;
        }
    }
    i = cap->last_rx_next;
    cap->last_rx_next = (uint8_t)((i + 1u) % SIM_CAPTURE_RX_SLOTS);
    cap->last_rx[i].used = true;
    cap->last_rx[i].src = src;
    cap->last_rx[i].seq = h->seq;
    return false;
}

void sim_capture_rx(struct sim *sim, uint32_t receiver, uint32_t sender, const uint8_t *mpdu,
                    size_t len)
{
    struct sim_capture *cap = sim->capture;
    struct mip_802154_hdr h;
    size_t hl;
    (void)sender;
    if (cap == NULL || cap->node == SIM_CAPTURE_ALL || cap->node != receiver ||
        len < MIP_802154_FCS_LEN ||
        mip_ieee802154_parse(mpdu, len - MIP_802154_FCS_LEN, &h, &hl) != MIP_OK ||
        h.type == MIP_802154_ACK || h.dst.mode != MIP_802154_ADDR_SHORT ||
        (h.dst.short_addr != MIP_802154_BROADCAST && h.dst.short_addr != receiver) ||
        rx_duplicate(cap, &h))
        return;
    write_frame(sim, mpdu, len);
}

struct pcap_status sim_capture_close(struct sim *sim)
{
    struct sim_capture *cap = sim->capture;
    struct pcap_status st;
    if (cap == NULL) {
        st.code = 0;
        st.text[0] = '\0';
        return st;
    }
    st = pcap_close(cap->w);
    cap->w = NULL;
    sim->capture = NULL;
    return st;
}
