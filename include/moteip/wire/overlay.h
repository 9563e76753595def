/*
 * The application overlay's messages (apps/overlay.h; seed 000, paper D
 * s.9.4): data-centric routing with interests and gradients, as in
 * Directed Diffusion, and in-network aggregation, carried in UDP datagrams
 * between link-local neighbours. docs/OVERLAY.md describes the protocol.
 *
 * Byte 0 of every message is the version (high nibble, 1) and the type
 * (low nibble). All multi-byte fields are big-endian.
 *
 * INTEREST (type 1, 24 bytes), flooded to ff02::1 by the sink and by every
 * node once per refresh:
 *
 *   0  ver|type     0x11
 *   1  attr         what is sensed (the application's numbering)
 *   2  sink         the subscribing node's overlay id
 *   4  seq          the sink's refresh number (newer: serial arithmetic)
 *   6  hops         the sender's distance to the sink (the sink sends 0)
 *   7  depth        hops the schedule plans for, 1..MIP_OVL_DEPTH_MAX
 *   8  epoch        the number of the round that ends `due_ms` from now
 *  10  slot_ms      the time each level of the tree has, >= 1
 *  12  interval_ms  one round, 1..MIP_OVL_INTERVAL_MAX_MS, more than
 *                   depth * slot_ms (a round's schedule ends before the
 *                   next one's starts)
 *  16  due_ms       until the end of round `epoch`, < interval_ms
 *  20  lifetime_ms  how long the interest and the gradient towards the
 *                   sender live without a refresh, 1..MIP_OVL_LIFETIME_MAX_MS
 *
 * DATA (type 2, 16 bytes), sent to a gradient (a neighbour's link-local
 * address): the aggregate of the readings of one round of one interest.
 *
 *   0  ver|type     0x12
 *   1  attr
 *   2  sink
 *   4  epoch
 *   6  count        readings aggregated, >= 1
 *   8  min          int16, the smallest
 *  10  max          int16, the largest, >= min
 *  12  sum          int32, count * min <= sum <= count * max (mean = sum / count)
 *
 * The codec is pure. A parser accepts exactly what the emitter writes: the
 * exact length (shorter is TRUNCATED, longer MALFORMED), version 1
 * (another is UNSUPPORTED), and fields within the rules above (MALFORMED);
 * the emitter refuses (INVALID) what the parser would refuse.
 */
#ifndef MOTEIP_WIRE_OVERLAY_H
#define MOTEIP_WIRE_OVERLAY_H

#include <stddef.h>
#include <stdint.h>
#include "moteip/status.h"

#define MIP_OVL_VERSION          1u
#define MIP_OVL_TYPE_INTEREST    1u
#define MIP_OVL_TYPE_DATA        2u
#define MIP_OVL_INTEREST_LEN     24u
#define MIP_OVL_DATA_LEN         16u
#define MIP_OVL_DEPTH_MAX        32u
/* One hour: every stamp the library derives from a round stays far inside
 * the 2^30 ms horizon of timer.h. */
#define MIP_OVL_INTERVAL_MAX_MS  3600000u
/* One day: the soft state of a gradient. */
#define MIP_OVL_LIFETIME_MAX_MS  86400000u

struct mip_ovl_interest {
    uint8_t  attr;
    uint16_t sink;
    uint16_t seq;
    uint8_t  hops;
    uint8_t  depth;
    uint16_t epoch;
    uint16_t slot_ms;
    uint32_t interval_ms;
    uint32_t due_ms;
    uint32_t lifetime_ms;
};

/* An aggregate of readings: enough for count, min, max and mean. */
struct mip_ovl_agg {
    uint16_t count;
    int16_t  min;
    int16_t  max;
    int32_t  sum;
};

struct mip_ovl_data {
    uint8_t  attr;
    uint16_t sink;
    uint16_t epoch;
    struct mip_ovl_agg agg;
};

/* The type of a message (MIP_OVL_TYPE_*) from its first byte: TRUNCATED
 * when empty, UNSUPPORTED for another version, MALFORMED for an unknown
 * type. */
mip_status mip_ovl_type(const uint8_t *buf, size_t len, uint8_t *type);

/* True when the fields obey the rules above. */
int mip_ovl_interest_valid(const struct mip_ovl_interest *i);
int mip_ovl_agg_valid(const struct mip_ovl_agg *a);

mip_status mip_ovl_interest_parse(const uint8_t *buf, size_t len, struct mip_ovl_interest *out);
mip_status mip_ovl_data_parse(const uint8_t *buf, size_t len, struct mip_ovl_data *out);

/* Write the message into buf (cap bytes); *written is its length. INVALID
 * for fields the parser would refuse, NOSPACE when cap is too small. */
mip_status mip_ovl_interest_emit(const struct mip_ovl_interest *i, uint8_t *buf, size_t cap,
                                 size_t *written);
mip_status mip_ovl_data_emit(const struct mip_ovl_data *d, uint8_t *buf, size_t cap,
                             size_t *written);

/* Aggregation (pure): *a becomes the aggregate of *a and *b (an empty *a,
 * count 0, takes *b), or of *a and the reading v. The sum cannot overflow:
 * 65535 readings of int16 stay within int32. Returns 1, or 0 when the
 * count would pass 65535: then *a is unchanged (the caller counts the
 * readings it could not add). */
int mip_ovl_agg_merge(struct mip_ovl_agg *a, const struct mip_ovl_agg *b);
int mip_ovl_agg_add(struct mip_ovl_agg *a, int16_t v);

#endif
