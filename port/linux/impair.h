/*
 * Link impairment for the host port (moteip-host --impair): a userspace
 * stand-in for Linux's netem, applied to the frames between the stack and
 * the TAP in both directions, for kernels built without sch_netem.
 *
 *   loss=P      drop a frame with probability P percent
 *   dup=P       deliver a frame twice with probability P percent
 *   delay=MS    hold every frame MS milliseconds...
 *   reorder=P   ...except P percent of them, which go at once (as netem's
 *               "delay MS reorder P%": those overtake the delayed ones)
 *   seed=N      the PRNG seed (default: from getrandom())
 *
 * e.g. "loss=5", "delay=10,reorder=25", "dup=5". Percentages may carry a
 * '%' and a fraction ("0.5%"). Frames wait in two bounded FIFOs (one per
 * direction); a frame that finds its FIFO full is dropped and counted.
 */
#ifndef MOTEIP_PORT_IMPAIR_H
#define MOTEIP_PORT_IMPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "moteip/timer.h"

#define IMPAIR_FRAME_MAX 1536u
/* Frames held back per direction by `delay`: TCP windows of the host's
 * apps keep far fewer in flight; more are counted as overflow and dropped. */
#define IMPAIR_QUEUE_MAX 512u

enum { IMPAIR_RX = 0, IMPAIR_TX = 1 };   /* TAP -> stack, stack -> TAP */

struct impair_spec {
    uint32_t loss_ppm, dup_ppm, reorder_ppm;   /* probabilities, per million */
    uint32_t delay_ms;
    uint64_t seed;
    bool have_seed;
};

struct impair_frame {
    mip_time_t due;
    uint16_t len;
    uint8_t data[IMPAIR_FRAME_MAX];
};

typedef void (*impair_deliver_fn)(void *ctx, const uint8_t *frame, size_t len);

struct impair {
    struct impair_spec sp;
    uint64_t rng;
    struct impair_frame q[2][IMPAIR_QUEUE_MAX];  /* delay queues, ~0.8 MB each */
    unsigned head[2], len[2];
    impair_deliver_fn deliver[2];
    void *ctx[2];
    uint64_t frames[2], dropped[2], duplicated[2], delayed[2], overflow[2];
};

/* Parses the --impair text. Returns 0, or -1 with a message in err. */
int impair_parse(const char *text, struct impair_spec *sp, char *err, size_t cap);

/* Prepares im; deliver[dir](ctx[dir], ...) passes a frame on. */
void impair_init(struct impair *im, const struct impair_spec *sp,
                 impair_deliver_fn rx, void *rx_ctx, impair_deliver_fn tx, void *tx_ctx);

/* One frame in direction dir at time now: dropped, passed on (once or
 * twice) or queued. */
void impair_frame(struct impair *im, int dir, const uint8_t *frame, size_t len, mip_time_t now);

/* Passes on the queued frames that are due. Returns the milliseconds to
 * the next due frame, or MIP_POLL_IDLE. */
uint32_t impair_run(struct impair *im, mip_time_t now);

#endif
