/*
 * moteip's TCP header compression for 6LoWPAN (issue 26; seed 000 s.9.3,
 * TSS s.V; ideas from RFC 2507 and RFC 6846): an NHC form that follows an
 * IPHC header with NH = 1 (wire/sixlowpan.h, env.tcp_nhc) and replaces the
 * TCP header. RFC 6282 defines no NHC for TCP. docs/LOWPAN.md "TCP header
 * compression" is the format's reference; this is its pure codec: the
 * contexts are the caller's memory, passed in; nothing here keeps state.
 *
 * A context is what both ends of one link hold for one direction of one
 * TCP connection, under a CID (0..3) the compressor picks per neighbour:
 * the ports, the last sequence and acknowledgement numbers (the
 * compressor's: last sent; the decompressor's: last decoded), and the
 * window and flags of the last FULL header (the references "unchanged"
 * means; they change only with a FULL header, so only a lost FULL leaves
 * the two ends disagreeing on them, which the next compressed header
 * shows: NOTFOUND from the decompressor, or a failed TCP checksum).
 *
 * Byte 0: 1100 F R CC
 *   F   FULL: the whole TCP header follows verbatim (it (re)establishes
 *       context CC); else the compressed form below.
 *   R   refresh request: the sender's decompressor lost the context of the
 *       other direction of this connection on this link; its peer's
 *       compressor answers with FULL (hop-by-hop repair).
 *   CC  the context id.
 * Compressed form, byte 1: SS AA W G O 0
 *   SS  sequence number: 00 its low 8 bits, 01 its low 16 bits, each
 *       decoded as the value nearest the context's with those bits (the
 *       compressor sends 8 bits only for a number that did not move since
 *       its context's, 16 for one that moved by less than 32768 either
 *       way), 10 all 32 bits; 11 reserved
 *   AA  acknowledgement number, the same way
 *   W   window: 16 bits inline; clear: the context's reference
 *   G   flags byte inline; clear: the context's reference
 *   O   options: a length byte (a multiple of 4, 4..40) and the options
 *       verbatim; clear: none (data offset 5)
 * then seq (1|2|4), ack (1|2|4), [window 2], [flags 1], [len 1 + options],
 * checksum 2 (always: the TCP checksum stays end to end, and detects a
 * context mismatch at every hop). The compressed form implies urgent
 * pointer 0, URG clear and the data offset byte's low nibble 0; headers
 * with anything else go FULL.
 */
#ifndef MOTEIP_WIRE_LOWPAN_TCP_H
#define MOTEIP_WIRE_LOWPAN_TCP_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"

#define MIP_LOWPAN_NHC_TCP       0xC0u   /* 1100xxxx */
#define MIP_LOWPAN_NHC_TCP_MASK  0xF0u
#define MIP_LOWPAN_TCPHC_FULL    0x08u
#define MIP_LOWPAN_TCPHC_REFRESH 0x04u
#define MIP_LOWPAN_TCPHC_CIDS    4u
/* Longest encoding: byte 0 + a 60-byte header (FULL). */
#define MIP_LOWPAN_TCPHC_MAX     61u

/* One direction of one connection on one link (see above). */
struct mip_lowpan_tcp_ctx {
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint16_t window;   /* reference, from the last FULL */
    uint8_t  flags;    /* reference, from the last FULL */
};

/* What byte 0 says. */
struct mip_lowpan_tcp_nhc {
    uint8_t cid;
    bool    full;
    bool    refresh;
};

/* Reads byte 0 (any byte: MALFORMED when it is not a TCP NHC). */
mip_status mip_lowpan_tcp_nhc_of(uint8_t b, struct mip_lowpan_tcp_nhc *out);

/*
 * Compresses the TCP header at tcp[0..tcp_len) (tcp_len at least its data
 * offset's bytes) under context id nhc->cid: FULL when nhc->full, when ctx
 * is NULL, when the header has what the compressed form cannot carry
 * (urgent pointer, URG, the data offset byte's low nibble, other ports than
 * ctx's), for a retransmission (payload follows the header, tcp_len > its
 * data offset, and its sequence number is not after ctx's; RFC 1144's
 * compressor sends those uncompressed too) and for a duplicate ACK (no
 * payload, ACK set, the acknowledgement number ctx's): both follow a
 * loss, so every hop re-establishes the context the loss may have taken;
 * else the shortest compressed form against ctx. nhc->refresh is
 * set as given. *consumed gets the header's length (its data offset),
 * *out_len the bytes written (at most MIP_LOWPAN_TCPHC_MAX); *was_full
 * whether FULL was sent (the caller updates its context with
 * mip_lowpan_tcp_ctx_update either way).
 * TRUNCATED when tcp_len < 20 or < the data offset; MALFORMED for a data
 * offset below 5 or a cid above 3; NOSPACE when cap is short.
 * What this emits, mip_lowpan_tcp_decompress() given the same ctx (or one
 * with the same ports and references whose seq and ack lag behind by less
 * than the form's reach, 127 for 8 bits and 32767 for 16: frames lost
 * between them; NULL after FULL) takes
 * back to tcp[0..*consumed).
 */
mip_status mip_lowpan_tcp_compress(const uint8_t *tcp, size_t tcp_len,
                                   const struct mip_lowpan_tcp_nhc *nhc,
                                   const struct mip_lowpan_tcp_ctx *ctx,
                                   uint8_t *out, size_t cap, size_t *consumed, size_t *out_len,
                                   bool *was_full);

/*
 * Decompresses the TCP NHC at in[0..in_len) into the TCP header at out:
 * *out_len its bytes (20..60), *consumed the compressed bytes read, *nhc
 * what byte 0 said. ctx is the decompressor's context for that CID, NULL
 * when it has none. MALFORMED when byte 0 is not a TCP NHC, for reserved
 * bits or forms, an options length that is not a multiple of 4 in 4..40,
 * an inline flags byte with URG, or a FULL header whose data offset is
 * below 5; NOTFOUND for the compressed form without a context, and when
 * the frame shows that ctx's references are not the compressor's (an
 * inline window or flags byte equal to ours, which the compressor sends
 * only when it differs from its own; URG from our flags reference): a
 * FULL that changed them was lost, and the caller repairs the context as
 * for a checksum mismatch; TRUNCATED when in ends early; NOSPACE when cap
 * is short. Whether the header is right is the TCP checksum's to say (the
 * caller verifies it over the whole datagram before it trusts or updates
 * the context).
 */
mip_status mip_lowpan_tcp_decompress(const uint8_t *in, size_t in_len,
                                     const struct mip_lowpan_tcp_ctx *ctx,
                                     uint8_t *out, size_t cap, struct mip_lowpan_tcp_nhc *nhc,
                                     size_t *consumed, size_t *out_len);

/* The context after the TCP header tcp (at least 20 bytes) went (or came)
 * through: sequence and acknowledgement numbers always; ports and the
 * window and flags references only when full. */
void mip_lowpan_tcp_ctx_update(struct mip_lowpan_tcp_ctx *ctx, const uint8_t *tcp, bool full);

#endif
