/*
 * SLIP framing (RFC 1055): the decoder against byte arrays, fed whole and
 * in every chunk size; the encoder against byte arrays, with its sink
 * failing at every call; encode/decode round trips.
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/wire/slip.h"
#include "testing.h"

#define B(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })
#define NONE   (const uint8_t *)"", 0

/* What the decoder reported, serialised: 'F' len bytes... per frame, 'T'
 * per frame over cap, 'E' per bad escape. */
#define OUT_MAX 256

struct dec_case {
    const char *name;
    uint16_t cap;
    const uint8_t *in;
    size_t n;
    const uint8_t *expect;
    size_t expect_n;
};

static const struct dec_case dec_cases[] = {
    { "frame", 8, B(0xC0, 1, 2, 3, 0xC0), B('F', 3, 1, 2, 3) },
    { "no leading END", 8, B(1, 2, 0xC0), B('F', 2, 1, 2) },
    { "escapes", 8, B(0xDB, 0xDC, 0x45, 0xDB, 0xDD, 0xC0), B('F', 3, 0xC0, 0x45, 0xDB) },
    { "empty frames are separators", 8, B(0xC0, 0xC0, 0xC0, 0xC0), NONE },
    { "shared END", 8, B(0xC0, 1, 0xC0, 2, 0xC0), B('F', 1, 1, 'F', 1, 2) },
    { "unfinished frame", 8, B(0xC0, 1, 2), NONE },
    { "exactly cap", 4, B(1, 2, 3, 4, 0xC0), B('F', 4, 1, 2, 3, 4) },
    { "one over cap", 4, B(1, 2, 3, 4, 5, 0xC0, 7, 0xC0), B('T', 'F', 1, 7) },
    { "far over cap", 2, B(1, 2, 3, 4, 5, 6, 7, 8, 9, 0xC0, 0xC0, 7, 0xC0), B('T', 'F', 1, 7) },
    { "escaped byte over cap", 2, B(1, 2, 0xDB, 0xDC, 0xC0, 3, 0xC0), B('T', 'F', 1, 3) },
    { "escape at cap is fine", 2, B(1, 0xDB, 0xDD, 0xC0), B('F', 2, 1, 0xDB) },
    { "bad escape", 8, B(1, 0xDB, 5, 2, 0xC0, 3, 0xC0), B('E', 'F', 1, 3) },
    { "ESC ESC is a bad escape", 8, B(1, 0xDB, 0xDB, 0xDC, 0xC0, 3, 0xC0), B('E', 'F', 1, 3) },
    { "ESC END ends the frame", 8, B(1, 0xDB, 0xC0, 4, 0xC0), B('E', 'F', 1, 4) },
    { "skipping ignores escapes", 8, B(1, 0xDB, 7, 0xDB, 0xDB, 0xC0, 5, 0xC0), B('E', 'F', 1, 5) },
    { "one error per frame", 2, B(1, 2, 3, 0xDB, 9, 4, 0xC0, 0xC0), B('T') },
    { "bad escape first byte", 8, B(0xDB, 0x00, 0xC0, 0xDB, 0xDC, 0xC0), B('E', 'F', 1, 0xC0) },
    { "lone trailing ESC waits", 8, B(0xC0, 1, 0xDB), NONE },
    { "two errors, two frames", 1, B(1, 2, 0xC0, 0xDB, 1, 0xC0, 9, 0xC0, 8, 0xC0),
      B('T', 'E', 'F', 1, 9, 'F', 1, 8) },
};

/* Feeds in[0..n) in chunks of `chunk` bytes (0: all at once) and
 * serialises the events into out; returns its length, or (size_t)-1 if a
 * call consumed nothing or more than it was given. */
static size_t decode_all(uint16_t cap, const uint8_t *in, size_t n, size_t chunk, uint8_t *out)
{
    uint8_t *buf = malloc(cap);         /* exact size: ASan sees overruns */
    struct mip_slip_dec d;
    size_t pos = 0, o = 0;

    mip_slip_dec_init(&d, buf, cap);
    while (pos < n) {
        size_t len = chunk == 0 || n - pos < chunk ? n - pos : chunk;
        uint8_t *copy = malloc(len);
        size_t off = 0;
        memcpy(copy, in + pos, len);
        while (off < len) {
            enum mip_slip_event ev;
            size_t used = mip_slip_decode(&d, copy + off, len - off, &ev);
            if (used == 0 || used > len - off) {
                free(copy);
                free(buf);
                return (size_t)-1;
            }
            off += used;
            if (ev == MIP_SLIP_FRAME && o + 2 + d.len <= OUT_MAX) {
                out[o++] = 'F';
                out[o++] = (uint8_t)d.len;
                memcpy(out + o, d.buf, d.len);
                o += d.len;
            } else if (ev == MIP_SLIP_TOO_BIG && o < OUT_MAX) {
                out[o++] = 'T';
            } else if (ev == MIP_SLIP_BAD_ESCAPE && o < OUT_MAX) {
                out[o++] = 'E';
            } else if (ev == MIP_SLIP_MORE && off != len) {
                free(copy);
                free(buf);
                return (size_t)-1;     /* MORE must mean "all consumed" */
            }
        }
        free(copy);
        pos += len;
    }
    free(buf);
    return o;
}

static void test_slip_decoder_cases_in_every_chunking(void)
{
    size_t i, chunk;

    for (i = 0; i < sizeof dec_cases / sizeof dec_cases[0]; i++) {
        const struct dec_case *c = &dec_cases[i];
        for (chunk = 0; chunk <= c->n; chunk++) {
            uint8_t out[OUT_MAX];
            size_t o = decode_all(c->cap, c->in, c->n, chunk, out);
            if (o != c->expect_n || memcmp(out, c->expect, o) != 0) {
                fprintf(stderr, "case '%s', chunk %zu: got %zu bytes of events\n", c->name,
                        chunk, o);
                CHECK(0);
                break;
            }
            CHECK(1);
        }
    }
}

/* --- encoder ----------------------------------------------------------- */

struct sink {
    uint8_t  out[512];
    size_t   len;
    unsigned calls;
    unsigned fail_at;        /* calls before the failing one; 0: never fail */
};

static mip_status sink_write(void *ctx, const uint8_t *bytes, size_t len)
{
    struct sink *k = ctx;
    k->calls++;
    if (k->fail_at != 0 && k->calls == k->fail_at)
        return MIP_ERR_NOBUFS;
    if (len == 0 || k->len + len > sizeof k->out)
        return MIP_ERR_INVALID;   /* empty writes are a defect too */
    memcpy(k->out + k->len, bytes, len);
    k->len += len;
    return MIP_OK;
}

struct enc_case {
    const char *name;
    const uint8_t *frame;
    size_t n;
    const uint8_t *wire;
    size_t wire_n;
    unsigned calls;
};

static const struct enc_case enc_cases[] = {
    { "plain", B(0x45, 0, 1), B(0xC0, 0x45, 0, 1, 0xC0), 3 },
    { "empty", NONE, B(0xC0, 0xC0), 2 },
    { "END", B(0xC0), B(0xC0, 0xDB, 0xDC, 0xC0), 3 },
    { "ESC", B(0xDB), B(0xC0, 0xDB, 0xDD, 0xC0), 3 },
    { "specials inside", B(1, 0xC0, 2, 0xDB, 3),
      B(0xC0, 1, 0xDB, 0xDC, 2, 0xDB, 0xDD, 3, 0xC0), 7 },
    { "specials adjacent", B(0xC0, 0xDB, 0xC0),
      B(0xC0, 0xDB, 0xDC, 0xDB, 0xDD, 0xDB, 0xDC, 0xC0), 5 },
    { "escape codes alone are plain", B(0xDC, 0xDD), B(0xC0, 0xDC, 0xDD, 0xC0), 3 },
};

static void test_slip_encoder_cases(void)
{
    size_t i;

    for (i = 0; i < sizeof enc_cases / sizeof enc_cases[0]; i++) {
        const struct enc_case *c = &enc_cases[i];
        struct sink k;
        memset(&k, 0, sizeof k);
        CHECK_EQ(mip_slip_encode(c->frame, c->n, sink_write, &k), MIP_OK);
        if (k.len != c->wire_n || memcmp(k.out, c->wire, k.len) != 0 || k.calls != c->calls)
            fprintf(stderr, "case '%s': %zu bytes in %u calls\n", c->name, k.len, k.calls);
        CHECK_EQ(k.len, c->wire_n);
        CHECK_MEM(k.out, c->wire, c->wire_n);
        CHECK_EQ(k.calls, c->calls);
        CHECK_EQ(mip_slip_encoded_len(c->frame, c->n), c->wire_n);
    }
}

/* The sink refusing any call ends the frame there, with its error. */
static void test_slip_encoder_stops_at_first_sink_error(void)
{
    size_t i;

    for (i = 0; i < sizeof enc_cases / sizeof enc_cases[0]; i++) {
        const struct enc_case *c = &enc_cases[i];
        unsigned at;
        for (at = 1; at <= c->calls; at++) {
            struct sink k;
            memset(&k, 0, sizeof k);
            k.fail_at = at;
            CHECK_EQ(mip_slip_encode(c->frame, c->n, sink_write, &k), MIP_ERR_NOBUFS);
            CHECK_EQ(k.calls, at);
        }
    }
}

/* Random frames, half their bytes END or ESC, survive encode + decode in
 * random chunks; frames longer than cap are reported and the next one is
 * intact. */
static void test_slip_round_trip(void)
{
    uint32_t x = 12345;
    unsigned round;

    for (round = 0; round < 200; round++) {
        uint8_t frame[200], stream[2 * 200 + 2 + 4];
        struct sink k;
        size_t n, i, pos = 0;
        uint8_t buf[100];
        struct mip_slip_dec d;
        unsigned frames = 0, too_big = 0;

        x = x * 1103515245u + 12345u;
        n = 1 + (x >> 16) % 200;
        for (i = 0; i < n; i++) {
            x = x * 1103515245u + 12345u;
            frame[i] = (x >> 20) & 1 ? (uint8_t)(x >> 8) : ((x >> 21) & 1 ? 0xC0 : 0xDB);
        }
        memset(&k, 0, sizeof k);
        CHECK_EQ(mip_slip_encode(frame, n, sink_write, &k), MIP_OK);
        CHECK_EQ(k.len, mip_slip_encoded_len(frame, n));
        memcpy(stream, k.out, k.len);
        stream[k.len] = 0x42;               /* a one-byte frame behind it */
        stream[k.len + 1] = 0xC0;
        mip_slip_dec_init(&d, buf, sizeof buf);
        while (pos < k.len + 2) {
            enum mip_slip_event ev;
            size_t chunk;
            x = x * 1103515245u + 12345u;
            chunk = 1 + (x >> 16) % 17;
            if (chunk > k.len + 2 - pos)
                chunk = k.len + 2 - pos;
            while (chunk > 0) {
                size_t used = mip_slip_decode(&d, stream + pos, chunk, &ev);
                pos += used;
                chunk -= used;
                if (ev == MIP_SLIP_FRAME) {
                    if (frames == 0 && n <= sizeof buf) {
                        CHECK_EQ(d.len, n);
                        CHECK_MEM(d.buf, frame, n);
                    } else {
                        CHECK_EQ(d.len, 1);
                        CHECK_EQ(d.buf[0], 0x42);
                    }
                    frames++;
                } else if (ev == MIP_SLIP_TOO_BIG) {
                    too_big++;
                } else {
                    CHECK(ev == MIP_SLIP_MORE);
                }
            }
        }
        CHECK_EQ(frames, n <= sizeof buf ? 2 : 1);
        CHECK_EQ(too_big, n <= sizeof buf ? 0 : 1);
    }
}

int main(void)
{
    RUN(test_slip_decoder_cases_in_every_chunking);
    RUN(test_slip_encoder_cases);
    RUN(test_slip_encoder_stops_at_first_sink_error);
    RUN(test_slip_round_trip);
    return TESTING_DONE();
}
