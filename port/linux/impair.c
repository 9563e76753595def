/* Link impairment for the host port. See impair.h. */
#include "impair.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/stack.h"

/* A percentage "5", "0.5", "5%" (0..100) in parts per million. */
static int parse_percent(const char *v, size_t n, uint32_t *ppm)
{
    char buf[32];
    char *end;
    double d;

    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, v, n);
    buf[n] = '\0';
    if (buf[n - 1] == '%')
        buf[n - 1] = '\0';
    if (buf[0] < '0' || buf[0] > '9')
        return -1;
    errno = 0;
    d = strtod(buf, &end);
    if (errno != 0 || *end != '\0' || d < 0 || d > 100)
        return -1;
    *ppm = (uint32_t)(d * 10000.0 + 0.5);
    return 0;
}

static int parse_uint(const char *v, size_t n, uint64_t max, uint64_t *out)
{
    char buf[32];
    char *end;
    unsigned long long x;

    if (n == 0 || n >= sizeof(buf) || v[0] < '0' || v[0] > '9')
        return -1;
    memcpy(buf, v, n);
    buf[n] = '\0';
    errno = 0;
    x = strtoull(buf, &end, 10);
    if (errno != 0 || *end != '\0' || x > max)
        return -1;
    *out = x;
    return 0;
}

int impair_parse(const char *text, struct impair_spec *sp, char *err, size_t cap)
{
    const char *p = text;

    memset(sp, 0, sizeof(*sp));
    if (*p == '\0') {
        snprintf(err, cap, "empty");
        return -1;
    }
    while (*p != '\0') {
        const char *comma = strchr(p, ','), *eq;
        size_t n = comma ? (size_t)(comma - p) : strlen(p), klen, vlen;
        uint64_t u;
        int bad = 0;

        eq = memchr(p, '=', n);
        if (eq == NULL) {
            snprintf(err, cap, "'%.*s' is not KEY=VALUE", (int)n, p);
            return -1;
        }
        klen = (size_t)(eq - p);
        vlen = n - klen - 1;
        if (klen == 4 && memcmp(p, "loss", 4) == 0)
            bad = parse_percent(eq + 1, vlen, &sp->loss_ppm);
        else if (klen == 3 && memcmp(p, "dup", 3) == 0)
            bad = parse_percent(eq + 1, vlen, &sp->dup_ppm);
        else if (klen == 7 && memcmp(p, "reorder", 7) == 0)
            bad = parse_percent(eq + 1, vlen, &sp->reorder_ppm);
        else if (klen == 5 && memcmp(p, "delay", 5) == 0) {
            bad = parse_uint(eq + 1, vlen, 10000, &u);
            /* u is set only when the parse succeeded */
            if (bad == 0)
                sp->delay_ms = (uint32_t)u;
        } else if (klen == 4 && memcmp(p, "seed", 4) == 0) {
            bad = parse_uint(eq + 1, vlen, UINT64_MAX, &sp->seed);
            sp->have_seed = true;
        } else {
            snprintf(err, cap, "unknown key '%.*s' (loss, dup, delay, reorder, seed)",
                     (int)klen, p);
            return -1;
        }
        if (bad) {
            snprintf(err, cap, "bad value in '%.*s' (percentages 0..100, delay 0..10000 ms)",
                     (int)n, p);
            return -1;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    if (sp->reorder_ppm != 0 && sp->delay_ms == 0) {
        snprintf(err, cap, "reorder needs a delay (as netem: delay=MS,reorder=P)");
        return -1;
    }
    return 0;
}

void impair_init(struct impair *im, const struct impair_spec *sp,
                 impair_deliver_fn rx, void *rx_ctx, impair_deliver_fn tx, void *tx_ctx)
{
    memset(im, 0, sizeof(*im));
    im->sp = *sp;
    im->rng = sp->seed ? sp->seed : 0x9E3779B97F4A7C15ull;
    im->deliver[IMPAIR_RX] = rx;
    im->ctx[IMPAIR_RX] = rx_ctx;
    im->deliver[IMPAIR_TX] = tx;
    im->ctx[IMPAIR_TX] = tx_ctx;
}

/* splitmix64 */
static uint32_t draw_ppm(struct impair *im)
{
    uint64_t z = (im->rng += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (uint32_t)(z % 1000000u);
}

static void enqueue(struct impair *im, int dir, const uint8_t *frame, size_t len, mip_time_t due)
{
    struct impair_frame *f;

    if (im->len[dir] >= IMPAIR_QUEUE_MAX || len > IMPAIR_FRAME_MAX) {
        im->overflow[dir]++;
        return;
    }
    f = &im->q[dir][(im->head[dir] + im->len[dir]) % IMPAIR_QUEUE_MAX];
    f->due = due;
    f->len = (uint16_t)len;
    memcpy(f->data, frame, len);
    im->len[dir]++;
    im->delayed[dir]++;
}

void impair_frame(struct impair *im, int dir, const uint8_t *frame, size_t len, mip_time_t now)
{
    unsigned copies = 1, k;

    im->frames[dir]++;
    if (im->sp.loss_ppm != 0 && draw_ppm(im) < im->sp.loss_ppm) {
        im->dropped[dir]++;
        return;
    }
    if (im->sp.dup_ppm != 0 && draw_ppm(im) < im->sp.dup_ppm) {
        im->duplicated[dir]++;
        copies = 2;
    }
    for (k = 0; k < copies; k++) {
        if (im->sp.delay_ms == 0 ||
            (im->sp.reorder_ppm != 0 && draw_ppm(im) < im->sp.reorder_ppm))
            im->deliver[dir](im->ctx[dir], frame, len);
        else
            enqueue(im, dir, frame, len, now + im->sp.delay_ms);
    }
}

uint32_t impair_run(struct impair *im, mip_time_t now)
{
    uint32_t next = MIP_POLL_IDLE;
    uint8_t buf[IMPAIR_FRAME_MAX];
    size_t len;
    int dir;

    for (dir = 0; dir < 2; dir++) {
        while (im->len[dir] > 0) {
            struct impair_frame *f = &im->q[dir][im->head[dir]];
            if (mip_time_before(now, f->due)) {
                uint32_t wait = (uint32_t)(f->due - now);
                if (wait < next)
                    next = wait;
                break;
            }
            /* Copied out: the callback may queue frames into the slot. */
            len = f->len;
            memcpy(buf, f->data, len);
            im->head[dir] = (im->head[dir] + 1u) % IMPAIR_QUEUE_MAX;
            im->len[dir]--;
            im->deliver[dir](im->ctx[dir], buf, len);
        }
    }
    return next;
}
