/*
 * 6LoWPAN codec: RFC 4944 dispatch values and fragment headers, RFC 6282
 * IPHC header compression with NHC for UDP. Pure and stateless: the
 * caller supplies the 802.15.4 addresses of the frame and the compression
 * contexts; nothing here remembers anything between calls.
 *
 * Sizes refer to the UNCOMPRESSED IPv6 datagram wherever the RFCs say so:
 * a fragment header's datagram_size and offset count uncompressed bytes
 * (RFC 6282 s.2), so a receiver that decompresses the first fragment's
 * header into place gets a datagram of exactly datagram_size bytes.
 *
 * IPHC elides the IPv6 Payload Length and the UDP Length; decompression
 * rebuilds both from the datagram's size (the frame's, or datagram_size of
 * a first fragment). A sender must therefore compress exactly 40 +
 * Payload Length bytes of datagram.
 *
 * Compression contexts (RFC 6282 s.3.1.2) are /64 prefixes: context i is
 * ctx[i] for i < ctx_count (at most 16). Context 0 is the one used without
 * a CID byte.
 */
#ifndef MOTEIP_WIRE_SIXLOWPAN_H
#define MOTEIP_WIRE_SIXLOWPAN_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"
#include "moteip/wire/ieee802154.h"

#define MIP_LOWPAN_DISPATCH_IPV6 0x41u   /* an uncompressed IPv6 header follows */
#define MIP_LOWPAN_FRAG1_LEN     4u
#define MIP_LOWPAN_FRAGN_LEN     5u
#define MIP_LOWPAN_SIZE_MAX      2047u   /* datagram_size is 11 bits */
#define MIP_LOWPAN_CTX_MAX       16u     /* a CID names contexts 0..15 */
/* Longest header mip_lowpan_iphc_compress() writes (IPHC + CID + every
 * field inline + NHC UDP with both ports inline). */
#define MIP_LOWPAN_IPHC_MAX      48u
/* Longest header mip_lowpan_iphc_decompress() writes: IPv6 + UDP. */
#define MIP_LOWPAN_UNCOMP_MAX    48u

/* What the first byte of a 6LoWPAN payload announces (RFC 4944 s.5.1,
 * RFC 6282 s.3.1). */
enum mip_lowpan_dispatch {
    MIP_LOWPAN_D_NALP = 0,   /* 00xxxxxx: not a LoWPAN frame */
    MIP_LOWPAN_D_IPV6,       /* 01000001: uncompressed IPv6 */
    MIP_LOWPAN_D_IPHC,       /* 011xxxxx: RFC 6282 IPHC */
    MIP_LOWPAN_D_MESH,       /* 10xxxxxx: mesh addressing header */
    MIP_LOWPAN_D_FRAG1,      /* 11000xxx: first fragment */
    MIP_LOWPAN_D_FRAGN,      /* 11100xxx: subsequent fragment */
    MIP_LOWPAN_D_OTHER       /* HC1, BC0, ESC and reserved values */
};

enum mip_lowpan_dispatch mip_lowpan_dispatch_of(uint8_t first_byte);

/* A FRAG1 (first == true, offset 0) or FRAGN header. */
struct mip_lowpan_frag {
    bool     first;
    uint16_t size;     /* datagram_size: uncompressed IPv6 datagram, bytes (11 bits) */
    uint16_t tag;      /* datagram_tag */
    uint16_t offset;   /* bytes from the start of the uncompressed datagram;
                          a multiple of 8, at most 2040; 0 for FRAG1 */
};

/* Parses the fragment header at buf; *hdr_len gets 4 (FRAG1) or 5 (FRAGN).
 * MALFORMED when buf does not start with a FRAG1/FRAGN dispatch;
 * TRUNCATED when len is shorter than that header. Whether size and offset
 * make sense for the fragment's payload is the caller's to check. */
mip_status mip_lowpan_frag_parse(const uint8_t *buf, size_t len, struct mip_lowpan_frag *out,
                                 size_t *hdr_len);

/* Writes a FRAG1 (f->first) or FRAGN header; *out_len gets its length.
 * INVALID for size > 2047, an offset that is not a multiple of 8 or is
 * above 2040, or a FRAG1 with a non-zero offset; NOSPACE when cap is short. */
mip_status mip_lowpan_frag_emit(const struct mip_lowpan_frag *f, uint8_t *buf, size_t cap,
                                size_t *out_len);

/* The frame an IPHC header travels in: its link addresses (for addresses
 * elided because they derive from them) and the contexts in use. */
struct mip_lowpan_env {
    const struct mip_802154_addr *src;   /* link source; mode NONE: none */
    const struct mip_802154_addr *dst;   /* link destination */
    const uint8_t (*ctx)[8];             /* ctx[i]: /64 prefix of context i */
    uint8_t ctx_count;                   /* 0..16; ctx may be NULL when 0 */
    /* Bit i set: context i does not exist (decompression NOTFOUND, never
     * used), or exists for decompression only (RFC 6775 s.4.2, 6CO C
     * clear). Zero: every context below ctx_count serves both ways. */
    uint16_t ctx_absent;
    uint16_t ctx_nocomp;
    /* RFC 6282 s.4.3.2: the link's upper layer authorises eliding the UDP
     * checksum (docs/LOWPAN.md "Eliding the UDP checksum": every frame on
     * this link is authenticated by a link-layer MIC). The compressor
     * elides a checksum only with it, only for a whole (unfragmented)
     * datagram and only when the checksum it drops is correct; the
     * decompressor takes an elided checksum (NHC C bit) only with it and
     * only in an unfragmented frame, and computes the checksum back. */
    bool udp_cksum_elide;
    /* A shared UDP port context (seed 000 s.9.3; moteip's own NHC form,
     * docs/LOWPAN.md): both ends agree on the port pair udp_ports[0] ->
     * udp_ports[1] and datagrams between them carry no port byte (NHC
     * 0xF8 / 0xF9, see below). false: the form is neither used nor
     * accepted. */
    bool has_udp_ports;
    uint16_t udp_ports[2];
    /* moteip's TCP NHC (wire/lowpan_tcp.h) follows the IPv6 header of a
     * whole TCP datagram: the compressor sets NH and leaves the TCP header
     * to the caller (*consumed 40); the decompressor, at NH with a TCP NHC
     * byte next, writes Next Header 6 and stops before that byte (*out_len
     * 40; Payload Length counts the compressed bytes: the caller rewrites
     * it). false: neither, and a TCP NHC is UNSUPPORTED. */
    bool tcp_nhc;
};

/* moteip's shared-port NHC for UDP: 11111 C 0 D, outside the NHC IDs RFC
 * 6282 assigns (1110xxxx extension headers, 11110xxx UDP). D clear: source
 * port udp_ports[0], destination udp_ports[1]; D set: the reverse. C as in
 * RFC 6282's UDP NHC. Bit 1 is reserved (0). */
#define MIP_LOWPAN_NHC_UDP_SHARED 0xF8u

/* The interface identifier a link address stands for (RFC 4944 s.6,
 * RFC 6282 s.3.2.2): 0000:00ff:fe00:XXXX for short address XXXX, the
 * extended address with its U/L bit flipped (modified EUI-64) otherwise.
 * INVALID for mode NONE. */
mip_status mip_lowpan_iid_from_link(const struct mip_802154_addr *a, uint8_t iid[8]);

/* The inverse, for sending to an IPv6 neighbor whose IID came from its
 * link address: 0000:00ff:fe00:XXXX gives short address XXXX, any other
 * IID the extended address it was derived from. NOTFOUND for IIDs that
 * name no single station: all zeros (Subnet-Router anycast, RFC 4291
 * s.2.6.1), the reserved subnet anycast IIDs fdff:ffff:ffff:ff80-ffff
 * (RFC 2526), and the short addresses 0xfffe / 0xffff (none, broadcast).
 * (An extended address 02:00:00:ff:fe:00:XX:XX has the short form's IID and
 * is taken for short address XXXX: RFC 4944 leaves no way to tell.) */
mip_status mip_lowpan_link_from_iid(const uint8_t iid[8], struct mip_802154_addr *out);

/*
 * Decompresses the IPHC header (and the NHC UDP header after it, if any)
 * at in[0..in_len) into out: the 40-byte IPv6 header, plus the 8-byte UDP
 * header when NHC compressed it. *consumed gets the compressed bytes read,
 * *out_len the bytes written (40 or 48). The datagram then continues with
 * in[*consumed..].
 *
 * `datagram_size` is the uncompressed datagram's length when known from a
 * FRAG1 header; 0 means the datagram is not fragmented and ends with in,
 * so its size is *out_len + in_len - *consumed. The Payload Length (and
 * UDP Length) written are that size - 40.
 *
 * Errors: TRUNCATED when in ends inside the header; MALFORMED for a
 * dispatch other than IPHC, a reserved address mode (M=0 DAC=1 DAM=00,
 * M=1 DAC=1 DAM!=00), an address to derive from a link address the frame
 * does not have, or a datagram_size too small for the header; NOTFOUND
 * when it names a context at or above ctx_count; UNSUPPORTED for NHC other
 * than UDP, for UDP with an elided checksum unless env->udp_cksum_elide and
 * datagram_size is 0 (the whole datagram is in `in`, so the checksum can be
 * computed back), and for the shared-port form unless env->has_udp_ports,
 * and for a TCP NHC unless env->tcp_nhc and datagram_size is 0;
 * NOSPACE when cap < 40 (48 with NHC UDP).
 */
mip_status mip_lowpan_iphc_decompress(const uint8_t *in, size_t in_len,
                                      const struct mip_lowpan_env *env, size_t datagram_size,
                                      uint8_t *out, size_t cap,
                                      size_t *consumed, size_t *out_len);

/*
 * Compresses the IPv6 header at ip[0..ip_len) into the shortest IPHC
 * encoding this codec knows: traffic class / flow label and hop limit
 * forms, link-local addresses stateless, addresses under a context's /64
 * prefix with that context (a CID byte only when it makes the header
 * shorter), addresses whose IID derives from the frame's link addresses
 * elided, multicast in the 8/32/48-bit forms (and the context-based
 * RFC 3306 form), and the unspecified source. When a UDP header follows
 * whose Length equals the IPv6 Payload Length, it is compressed with NHC
 * (ports in the shared-port form when env->has_udp_ports names them, else
 * the 4-, 8- or 16-bit forms; the checksum carried unless
 * env->udp_cksum_elide allows eliding it, ip_len covers the whole datagram
 * and the checksum is correct).
 *
 * ip_len may be shorter than 40 + Payload Length (the first fragment of a
 * datagram), never longer.
 *
 * *consumed gets the uncompressed bytes replaced (40, or 48 with UDP),
 * *out_len the bytes written (at most MIP_LOWPAN_IPHC_MAX). TRUNCATED when
 * ip_len < 40; MALFORMED for a version other than 6 or bytes past the
 * declared end (ip_len > 40 + Payload Length); NOSPACE when the encoding
 * does not fit cap.
 *
 * What this accepts, mip_lowpan_iphc_decompress() takes back: given
 * datagram_size 40 + Payload Length (or, for a whole datagram, the output
 * followed by ip[*consumed..ip_len) with datagram_size 0) it succeeds,
 * consumes exactly *out_len bytes and rebuilds ip[0..*consumed). A header
 * with an elided UDP checksum comes back only the second way (the
 * decompressor computes the checksum from the whole datagram).
 */
mip_status mip_lowpan_iphc_compress(const uint8_t *ip, size_t ip_len,
                                    const struct mip_lowpan_env *env,
                                    uint8_t *out, size_t cap,
                                    size_t *consumed, size_t *out_len);

#endif
