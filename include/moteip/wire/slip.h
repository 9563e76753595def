/*
 * SLIP framing (RFC 1055): IP datagrams over a serial byte stream.
 *
 * A frame is its bytes with END (0xC0) replaced by ESC ESC_END (0xDB 0xDC)
 * and ESC (0xDB) by ESC ESC_ESC (0xDB 0xDD), then an END. The encoder also
 * sends an END before each frame (RFC 1055's advice): it ends whatever line
 * noise came before, so the noise is one bad frame and not the front of
 * ours.
 *
 * The decoder is incremental: feed it bytes as they come, in chunks of any
 * size, and it reports each complete frame. It keeps its state in a struct
 * the caller owns, around a buffer the caller owns (the MTU: frames longer
 * than the buffer are errors). It never allocates, never reads past the
 * bytes it is given, and consumes at least one byte per call when given
 * any, so a loop over its input always ends.
 *
 * What is an error (each reported once per frame; the decoder then skips
 * to the next END and starts afresh):
 *   TOO_BIG     more than `cap` bytes before the END
 *   BAD_ESCAPE  ESC followed by anything but ESC_END or ESC_ESC (RFC 1055
 *               leaves this to the implementation; we drop the frame, as a
 *               byte we cannot decode makes the datagram unreliable). ESC
 *               END is a bad escape that also ends the frame: the next
 *               byte starts a new one.
 * Empty frames (END END) are no error: they are the separators RFC 1055
 * asks senders to put between frames. Bytes before the first END are a
 * frame like any other (a peer that sends no leading END loses nothing).
 *
 * The codec is pure: no stack, no counters. The SLIP netif (netif.h) counts
 * the errors in the stack's statistics; the host bridge moteip-slip counts
 * them in its own.
 */
#ifndef MOTEIP_WIRE_SLIP_H
#define MOTEIP_WIRE_SLIP_H

#include <stdint.h>
#include <stddef.h>
#include "moteip/status.h"

#define MIP_SLIP_END     0xC0u
#define MIP_SLIP_ESC     0xDBu
#define MIP_SLIP_ESC_END 0xDCu
#define MIP_SLIP_ESC_ESC 0xDDu

/* Writes `len` bytes to the serial line (a UART, a ring the UART's
 * interrupt drains, a file descriptor). MIP_OK when all were taken; any
 * other status ends the frame being sent (the rest is not written, and the
 * peer, which sees no END, drops the partial frame when the next frame's
 * leading END arrives). The bytes are the encoder's and valid only during
 * the call. */
typedef mip_status (*mip_slip_write_fn)(void *ctx, const uint8_t *bytes, size_t len);

/* Sends one frame: END, the escaped bytes, END. Ordinary bytes go to
 * `write` in runs (one call per run between special bytes), so a sink sees
 * at most 2 * len + 2 calls and usually 3. Returns the first error of
 * `write`, else MIP_OK. len 0 writes END END. */
mip_status mip_slip_encode(const uint8_t *frame, size_t len, mip_slip_write_fn write, void *ctx);

/* Bytes mip_slip_encode writes for this frame (both ENDs included). */
size_t mip_slip_encoded_len(const uint8_t *frame, size_t len);

enum mip_slip_event {
    MIP_SLIP_MORE = 0,      /* every byte consumed, no frame finished yet */
    MIP_SLIP_FRAME,         /* buf[0..len) holds a frame, until the next call */
    MIP_SLIP_TOO_BIG,       /* a frame over cap: being skipped */
    MIP_SLIP_BAD_ESCAPE     /* a frame with a bad escape: being skipped */
};

/* Decoder state. Fields are the decoder's; read `len` (and buf) only after
 * MIP_SLIP_FRAME. */
struct mip_slip_dec {
    uint8_t *buf;           /* the caller's memory, cap bytes */
    uint16_t cap;           /* the longest frame accepted */
    uint16_t len;           /* bytes of the frame so far */
    uint8_t  state;         /* internal */
};

/* Starts a decoder on `buf` (cap bytes, >= 1; the caller keeps it alive as
 * long as the decoder). */
void mip_slip_dec_init(struct mip_slip_dec *d, uint8_t *buf, uint16_t cap);

/* Decodes in[0..n) until a frame ends, an error is found or the input runs
 * out, and returns how many bytes it consumed (the byte causing the event
 * included; at least 1 when n > 0); *ev says what happened. Call it again
 * with the rest of the input. */
size_t mip_slip_decode(struct mip_slip_dec *d, const uint8_t *in, size_t n,
                       enum mip_slip_event *ev);

#endif
