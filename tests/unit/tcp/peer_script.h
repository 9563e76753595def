/*
 * A scripted TCP peer, in the spirit of packetdrill: a test is a table of
 * steps, and ps_run() plays them against one stack (seg_builder.h's
 * struct hs: a fixture with a capturing driver and a TCP) with one
 * application connection (seg_builder.h's struct app), the test being
 * the peer, over IPv6 (fd00::1 is the peer, fd00::2 the stack; the tiny
 * profile has no IPv4).
 *
 *   PS_LISTEN()                 the application listens on port 80 (the
 *                               peer connects from port 40000)
 *   PS_CONNECT()                the application connects to the peer's port 80
 *   PS_IN(flags, seq, ack, ...) the peer sends a segment
 *   PS_OUT(flags, seq, ack, ...) the next segment the stack sent is this
 *   PS_NONE()                   the stack sent nothing more
 *   PS_DROP()                   what the stack sent so far is lost
 *   PS_WAIT(ms)                 time passes; mip_stack_poll runs at every
 *                               deadline on the way and at the end
 *   PS_STATE(state)             the connection is in this state
 *   PS_STAT(name, n)            TCP counter MIP_TCP_STAT_<name> is n
 *   PS_CLOSED(n, error)         `closed` came n times, the last `error` was
 *                               this enum mip_tcp_error (0: none)
 *   PS_SYNCACHE(n), PS_TIMEWAIT(n)  entries of the SYN cache / TIME_WAIT
 *                               records in use
 *   PS_WRITE(n), PS_READ(n), PS_SHUTDOWN(), PS_CLOSE(), PS_ABORT()
 *                               the application's calls (WRITE: all n
 *                               bytes must be taken; READ: exactly n
 *                               bytes come, checked against what the peer
 *                               sent)
 *   PS_DO(fn)                   fn(struct ps *): anything else
 *
 * Flags are tcpdump's letters: "S" SYN, "F" FIN, "R" RST, "P" PSH, "U"
 * URG, "." ACK ("S." is SYN-ACK, "P." data, "F." FIN). Sequence numbers
 * are relative, as in packetdrill: the peer's to its ISN (its SYN is 0,
 * its first data byte 1), the stack's to its ISS (learnt from the first
 * SYN it sends; its first data byte is 1 too). Optional fields, after the
 * four positional ones (designated initializers):
 *   .len     payload bytes. Payload bytes are ps_byte(relative seq), both
 *            ways: PS_WRITE writes them, PS_OUT and PS_READ check them.
 *   .win     IN: the window field (0: 65535); OUT: checked when not 0.
 *            PS_W(n) is window n, also for n = 0.
 *   .opts    MIP_TCP_HAS_* bits. IN: the options sent (0: TSopt when both
 *            SYNs had it, else none; PS_NOOPT: none). OUT: the options
 *            that must be present, exactly (0: not checked; PS_NOOPT:
 *            none).
 *   .mss, .wscale   IN: the values of those options (MSS 0: 1000).
 *   .nsack, .sack   SACK blocks [left, right), relative like the
 *            sequence numbers they name (IN: the stack's; OUT: the
 *            peer's); on OUT checked when .opts has SACK.
 *   .tsval   IN: offset in ms from the peer's timestamp clock (which
 *            ticks once per ms of the stack's time): -5000 is an old one.
 *            TSecr is the latest TSval of a segment taken with PS_OUT.
 *
 * On the first step that does not hold, ps_run prints the script's file
 * and line, the step and what was seen instead, counts a failed check,
 * and stops. It returns true when every step held. At the end the
 * connection is aborted if still open, and the fixture checks every
 * packet buffer came back.
 */
#ifndef MOTEIP_TEST_PEER_SCRIPT_H
#define MOTEIP_TEST_PEER_SCRIPT_H

#include "seg_builder.h"
#include <stdarg.h>

struct ps;

enum ps_op {
    PS_OP_END = 0,
    PS_OP_LISTEN, PS_OP_CONNECT,
    PS_OP_IN, PS_OP_OUT, PS_OP_NONE, PS_OP_DROP, PS_OP_WAIT,
    PS_OP_STATE, PS_OP_STAT, PS_OP_CLOSED, PS_OP_SYNCACHE, PS_OP_TIMEWAIT,
    PS_OP_WRITE, PS_OP_READ, PS_OP_SHUTDOWN, PS_OP_CLOSE, PS_OP_ABORT,
    PS_OP_DO
};

struct ps_step {
    enum ps_op op;
    int line;
    const char *flags;
    uint32_t seq, ack;
    uint32_t len;
    uint32_t win;
    uint8_t opts;
    uint8_t wscale;
    uint16_t mss;
    uint8_t nsack;
    uint32_t sack[MIP_TCP_SACK_MAX][2];
    int32_t tsval;
    uint32_t ms;
    long value;
    int stat;
    void (*fn)(struct ps *p);
};

#define PS_W(n) ((uint32_t)(n) | 0x10000u)
#define PS_NOOPT 0x80u

#define PS_STEP_(...) { .line = __LINE__, __VA_ARGS__ }
#define PS_LISTEN() PS_STEP_(.op = PS_OP_LISTEN)
#define PS_CONNECT() PS_STEP_(.op = PS_OP_CONNECT)
#define PS_IN(fl, s, a, ...) \
    PS_STEP_(.op = PS_OP_IN, .flags = (fl), .seq = (s), .ack = (a), __VA_ARGS__)
#define PS_OUT(fl, s, a, ...) \
    PS_STEP_(.op = PS_OP_OUT, .flags = (fl), .seq = (s), .ack = (a), __VA_ARGS__)
#define PS_NONE() PS_STEP_(.op = PS_OP_NONE)
#define PS_DROP() PS_STEP_(.op = PS_OP_DROP)
#define PS_WAIT(t) PS_STEP_(.op = PS_OP_WAIT, .ms = (t))
#define PS_STATE(st) PS_STEP_(.op = PS_OP_STATE, .value = MIP_TCP_##st)
#define PS_STAT(name, n) PS_STEP_(.op = PS_OP_STAT, .stat = MIP_TCP_STAT_##name, .value = (n))
#define PS_CLOSED(n, err) PS_STEP_(.op = PS_OP_CLOSED, .value = (n), .stat = (err))
#define PS_SYNCACHE(n) PS_STEP_(.op = PS_OP_SYNCACHE, .value = (n))
#define PS_TIMEWAIT(n) PS_STEP_(.op = PS_OP_TIMEWAIT, .value = (n))
#define PS_WRITE(n) PS_STEP_(.op = PS_OP_WRITE, .len = (n))
#define PS_READ(n) PS_STEP_(.op = PS_OP_READ, .len = (n))
#define PS_SHUTDOWN() PS_STEP_(.op = PS_OP_SHUTDOWN)
#define PS_CLOSE() PS_STEP_(.op = PS_OP_CLOSE)
#define PS_ABORT() PS_STEP_(.op = PS_OP_ABORT)
#define PS_DO(f) PS_STEP_(.op = PS_OP_DO, .fn = (f))

/* Runs a script (a static array of steps) by its name. */
#define PS_RUN(script) ps_run(__FILE__, #script, (script), sizeof(script) / sizeof((script)[0]))
/* RUN (testing.h) for a script: one test, named after it. */
#define RUN_SCRIPT(script)                                                   \
    do {                                                                     \
        int ps_before_ = testing_failures;                                   \
        testing_tests++;                                                     \
        (void)PS_RUN(script);                                                \
        printf("%s %s\n", testing_failures == ps_before_ ? "ok  " : "FAIL", #script); \
    } while (0)

/* Building blocks. A passive open from the peer's port 40000 with MSS
 * mss_ and no other option (the tiny profile has none), completed by an
 * ACK offering window win_ (0: 65535); no RTT sample, so the RTO is the
 * initial 1 s. */
#define PS_PASSIVE_OPEN(mss_, win_)                                        \
    PS_LISTEN(),                                                           \
    PS_IN("S", 0, 0, .opts = MIP_TCP_HAS_MSS, .mss = (mss_)),              \
    PS_OUT("S.", 0, 1),                                                    \
    PS_IN(".", 1, 1, .win = (win_)),                                       \
    PS_STATE(ESTABLISHED)
/* After PS_PASSIVE_OPEN(100, ...): the application's first 100 bytes fill
 * the peer's window, whose ACK closes it (an RTT sample of 0 ms: the RTO
 * is its 300 ms minimum); the other 100 wait, and the persist timer is
 * armed at 300 ms, backing off like the RTO. Probes are ".", 101, 1 with
 * one byte. */
#define PS_ZERO_WINDOW                                                     \
    PS_PASSIVE_OPEN(100, PS_W(100)),                                       \
    PS_WRITE(200),                                                         \
    PS_OUT(".", 1, 1, .len = 100),                                         \
    PS_NONE(),                                                             \
    PS_IN(".", 1, 101, .win = PS_W(0))
/* The stack closes first: FIN, the peer's FIN with the ACK of ours, the
 * last ACK, a TIME_WAIT record (the struct is handed back at once). */
#define PS_ACTIVE_CLOSE                                                    \
    PS_PASSIVE_OPEN(100, 0),                                               \
    PS_CLOSE(),                                                            \
    PS_OUT("F.", 1, 1),                                                    \
    PS_IN("F.", 1, 2),                                                     \
    PS_OUT(".", 2, 2),                                                     \
    PS_TIMEWAIT(1),                                                        \
    PS_CLOSED(1, MIP_TCP_ERR_NONE)
/* The i-th retransmission timeout from an RTO of r ms (RFC 6298 5.5:
 * doubled each time, at most MIP_TCP_RTO_MAX_MS), and the sums of the
 * first 6 (a handshake: the SYN and MIP_TCP_SYN_RETRIES copies) and 9
 * (the segment and MIP_TCP_MAX_RETRIES copies): how long a silent peer
 * keeps a connection. */
#define PS_BACKOFF(r, i) \
    (((uint32_t)(r) << (i)) < MIP_TCP_RTO_MAX_MS ? ((uint32_t)(r) << (i)) : MIP_TCP_RTO_MAX_MS)
#define PS_BACKOFF_SUM6(r) (PS_BACKOFF(r, 0) + PS_BACKOFF(r, 1) + PS_BACKOFF(r, 2) + \
                            PS_BACKOFF(r, 3) + PS_BACKOFF(r, 4) + PS_BACKOFF(r, 5))
#define PS_BACKOFF_SUM9(r) (PS_BACKOFF_SUM6(r) + PS_BACKOFF(r, 6) + PS_BACKOFF(r, 7) + \
                            PS_BACKOFF(r, 8))
#if MIP_TCP_SYN_RETRIES != 5 || MIP_TCP_MAX_RETRIES != 8
#error "PS_BACKOFF_SUM6 / SUM9 assume the default retry limits"
#endif

#define PS_PEER_PORT 40000u
#define PS_IRS 0x10000000u        /* the peer's ISN */
#define PS_TS_BASE 5000000u       /* the peer's timestamp clock at the start */

struct ps {
    const char *file, *name;
    struct hs *h;
    struct app *a;
    const struct ps_step *cur;
    unsigned step;
    bool failed;
    uint32_t iss;                 /* the stack's ISS, once iss_known */
    bool iss_known;
    bool peer_ts, stack_ts;       /* the peer's / the stack's SYN had TSopt */
    mip_time_t t0;
    uint32_t ts_ecr;              /* the stack's latest TSval the peer took */
    uint32_t written, nread;      /* application bytes written / read */
    unsigned seen, scanned;       /* frames of h->f.tx consumed / learnt from */
    void *user;                   /* for PS_DO functions */
};

/* The payload byte at relative sequence number s, both ways. */
static inline uint8_t ps_byte(uint32_t s) { return (uint8_t)(s * 31u + (s >> 8) + 7u); }

static inline const char *ps_op_name(enum ps_op op)
{
    static const char *const names[] = {
        "END", "LISTEN", "CONNECT", "IN", "OUT", "NONE", "DROP", "WAIT", "STATE", "STAT",
        "CLOSED", "SYNCACHE", "TIMEWAIT", "WRITE", "READ", "SHUTDOWN", "CLOSE", "ABORT", "DO"};
    return (unsigned)op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}

static inline uint8_t ps_flags(const char *s)
{
    uint8_t f = 0;
    for (; s != NULL && *s != '\0'; s++) {
        switch (*s) {
        case 'S': f |= MIP_TCP_SYN; break;
        case 'F': f |= MIP_TCP_FIN; break;
        case 'R': f |= MIP_TCP_RST; break;
        case 'P': f |= MIP_TCP_PSH; break;
        case 'U': f |= MIP_TCP_URG; break;
        case '.': f |= MIP_TCP_ACK; break;
        default:
            fprintf(stderr, "peer_script: bad flag letter '%c'\n", *s);
            abort();
        }
    }
    return f;
}

static inline void ps_flag_text(uint8_t f, char out[8])
{
    char *o = out;
    if (f & MIP_TCP_SYN) *o++ = 'S';
    if (f & MIP_TCP_FIN) *o++ = 'F';
    if (f & MIP_TCP_RST) *o++ = 'R';
    if (f & MIP_TCP_PSH) *o++ = 'P';
    if (f & MIP_TCP_URG) *o++ = 'U';
    if (f & MIP_TCP_ACK) *o++ = '.';
    if (o == out) *o++ = '-';
    *o = '\0';
}

/* What the failing step was and what went wrong; stops the script. */
static inline bool ps_fail(struct ps *p, const char *fmt, ...)
{
    const struct ps_step *st = p->cur;
    va_list ap;
    testing_checks++;
    testing_failures++;
    p->failed = true;
    fprintf(stderr, "%s:%d: script %s, step %u (%s", p->file, st->line, p->name, p->step,
            ps_op_name(st->op));
    if (st->op == PS_OP_IN || st->op == PS_OP_OUT)
        fprintf(stderr, " %s seq %u ack %u len %u", st->flags, st->seq, st->ack, st->len);
    else if (st->op == PS_OP_WAIT)
        fprintf(stderr, " %u ms", st->ms);
    else if (st->op == PS_OP_STATE)
        fprintf(stderr, " %s", mip_tcp_state_name((uint8_t)st->value));
    else if (st->op == PS_OP_STAT)
        fprintf(stderr, " %s %ld", mip_tcp_stat_name((enum mip_tcp_stat)st->stat), st->value);
    else if (st->op == PS_OP_WRITE || st->op == PS_OP_READ)
        fprintf(stderr, " %u", st->len);
    else if (st->op == PS_OP_CLOSED || st->op == PS_OP_SYNCACHE || st->op == PS_OP_TIMEWAIT)
        fprintf(stderr, " %ld", st->value);
    fprintf(stderr, ", at +%u ms): ", (uint32_t)(p->h->f.now - p->t0));
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return false;
}

/* A segment the stack sent, in the script's terms. */
static inline void ps_seg_text(const struct ps *p, const struct sb_reply *r, char *out, size_t n)
{
    char fl[8];
    ps_flag_text(r->h.flags, fl);
    snprintf(out, n, "%s seq %u ack %u len %zu win %u opts 0x%02x", fl, r->h.seq - p->iss,
             (r->h.flags & MIP_TCP_ACK) ? r->h.ack - PS_IRS : 0u, r->len, r->h.window,
             r->o.present);
}

/* Learns the ISS (and whether the stack's SYN offered timestamps) from
 * every frame not yet looked at. */
static inline void ps_learn(struct ps *p)
{
    struct fixture *f = &p->h->f;
    struct sb_reply r;
    for (; p->scanned < f->ntx; p->scanned++) {
        if (!sb_parse(f->tx[p->scanned].data, f->tx[p->scanned].len, &r))
            continue;
        if ((r.h.flags & MIP_TCP_SYN) && !p->iss_known) {
            p->iss = r.h.seq;
            p->iss_known = true;
            p->stack_ts = (r.o.present & MIP_TCP_HAS_TIMESTAMP) != 0;
        }
    }
}

/* The next TCP segment of the stack not yet consumed. */
static inline bool ps_next(struct ps *p, struct sb_reply *r)
{
    struct fixture *f = &p->h->f;
    while (p->seen < f->ntx) {
        const struct fixture_frame *fr = &f->tx[p->seen++];
        if (sb_parse(fr->data, fr->len, r))
            return true;
    }
    return false;
}

static inline bool ps_in(struct ps *p, const struct ps_step *st)
{
    struct hs *h = p->h;
    struct sb_seg s;
    uint8_t data[SB_MAX];
    uint32_t i;
    memset(&s, 0, sizeof(s));
    s.sport = h->pport;
    s.dport = h->lport;
    s.flags = ps_flags(st->flags);
    s.seq = PS_IRS + st->seq;
    if (s.flags & MIP_TCP_ACK) {
        if (!p->iss_known)
            return ps_fail(p, "an ACK before the stack sent its SYN (ISS unknown)");
        s.ack = p->iss + st->ack;
    }
    s.win = st->win != 0 ? (uint16_t)(st->win & 0xFFFFu) : 65535u;
    if (st->opts == 0 && p->peer_ts && p->stack_ts && !(s.flags & MIP_TCP_SYN))
        s.opts.present = MIP_TCP_HAS_TIMESTAMP;
    else if (st->opts != PS_NOOPT)
        s.opts.present = st->opts;
    s.opts.mss = st->mss != 0 ? st->mss : 1000u;
    s.opts.wscale = st->wscale;
    s.opts.ts_val = PS_TS_BASE + (uint32_t)(h->f.now - p->t0) + (uint32_t)st->tsval;
    s.opts.ts_ecr = p->ts_ecr;
    s.opts.sack_count = st->nsack;
    for (i = 0; i < st->nsack && i < MIP_TCP_SACK_MAX; i++) {
        s.opts.sack[i].left = p->iss + st->sack[i][0];
        s.opts.sack[i].right = p->iss + st->sack[i][1];
    }
    if ((s.flags & MIP_TCP_SYN) && (s.opts.present & MIP_TCP_HAS_TIMESTAMP))
        p->peer_ts = true;
    if (st->len > sizeof(data) - 100u)
        return ps_fail(p, "payload too long for one frame");
    for (i = 0; i < st->len; i++)
        data[i] = ps_byte(st->seq + i);
    s.data = data;
    s.len = st->len;
    hs_send(h, &s);
    return true;
}

static inline bool ps_out(struct ps *p, const struct ps_step *st)
{
    struct sb_reply r;
    uint8_t want = ps_flags(st->flags);
    char got[96];
    uint32_t i;
    if (!ps_next(p, &r))
        return ps_fail(p, "the stack sent nothing");
    if ((r.h.flags & MIP_TCP_SYN) && !p->iss_known) {
        p->iss = r.h.seq;
        p->iss_known = true;
    }
    ps_seg_text(p, &r, got, sizeof(got));
    if (r.h.src_port != p->h->lport || r.h.dst_port != p->h->pport)
        return ps_fail(p, "got %s on ports %u -> %u", got, r.h.src_port, r.h.dst_port);
    if (r.h.flags != want || r.h.seq != p->iss + st->seq || r.len != st->len ||
        ((want & MIP_TCP_ACK) && r.h.ack != PS_IRS + st->ack))
        return ps_fail(p, "got %s", got);
    if (st->win != 0 && r.h.window != (st->win & 0xFFFFu))
        return ps_fail(p, "got %s: window %u, not %u", got, r.h.window, st->win & 0xFFFFu);
    if (st->opts != 0 && r.o.present != (st->opts == PS_NOOPT ? 0u : st->opts))
        return ps_fail(p, "got %s: options 0x%02x, not 0x%02x", got, r.o.present,
                       st->opts == PS_NOOPT ? 0u : st->opts);
    if (st->opts != PS_NOOPT && (st->opts & MIP_TCP_HAS_SACK)) {
        if (r.o.sack_count != st->nsack)
            return ps_fail(p, "got %s: %u SACK blocks, not %u", got, r.o.sack_count, st->nsack);
        for (i = 0; i < st->nsack; i++)
            if (r.o.sack[i].left != PS_IRS + st->sack[i][0] ||
                r.o.sack[i].right != PS_IRS + st->sack[i][1])
                return ps_fail(p, "got %s: SACK block %u is [%u, %u)", got, i,
                               r.o.sack[i].left - PS_IRS, r.o.sack[i].right - PS_IRS);
    }
    for (i = 0; i < r.len; i++)
        if (r.data[i] != ps_byte(st->seq + i))
            return ps_fail(p, "got %s: payload byte %u is 0x%02x, not 0x%02x", got, i,
                           r.data[i], ps_byte(st->seq + i));
    if (r.o.present & MIP_TCP_HAS_TIMESTAMP)
        p->ts_ecr = r.o.ts_val;
    if (r.h.flags & MIP_TCP_SYN)
        p->stack_ts = (r.o.present & MIP_TCP_HAS_TIMESTAMP) != 0;
    return true;
}

/* Lets `ms` pass, polling at every deadline on the way (an event loop). */
static inline bool ps_wait(struct ps *p, uint32_t ms)
{
    struct fixture *f = &p->h->f;
    uint32_t left = ms;
    for (;;) {
        uint32_t d = mip_stack_poll(f->s, f->now), step;
        if (f->ntx >= FIXTURE_TX_MAX)
            return ps_fail(p, "more than %u frames not taken: take them (PS_OUT, PS_DROP)",
                           FIXTURE_TX_MAX);
        if (left == 0)
            return true;
        step = d == MIP_POLL_IDLE || d > left ? left : (d == 0 ? 1u : d);
        if (step > (1u << 30))
            step = 1u << 30;      /* deadlines compare within 2^31 ms */
        f->now += step;
        left -= step;
    }
}

static inline unsigned ps_syncache_used(const struct mip_tcp *tcp)
{
    unsigned i, n = 0;
    for (i = 0; i < MIP_TCP_SYN_BACKLOG; i++)
        n += tcp->syn[i].flags != 0;   /* 0: slot free */
    return n;
}

static inline unsigned ps_timewait_used(const struct mip_tcp *tcp)
{
    unsigned i, n = 0;
    for (i = 0; i < MIP_TCP_TIMEWAIT_MAX; i++)
        n += tcp->tw[i].used != 0;
    return n;
}

static inline bool ps_exec(struct ps *p, const struct ps_step *st)
{
    struct hs *h = p->h;
    struct app *a = p->a;
    struct sb_reply r;
    char got[96];
    switch (st->op) {
    case PS_OP_END:
        return true;
    case PS_OP_LISTEN:
        h->lport = 80;
        h->pport = PS_PEER_PORT;
        if (app_listen(&h->tcp, &h->l, 80, a) != MIP_OK)
            return ps_fail(p, "listen failed");
        return true;
    case PS_OP_CONNECT: {
        struct mip_addr dst = hs_peer_addr(h);
        mip_status stt;
        app_init(a, &h->tcp);
        stt = mip_tcp_connect(&h->tcp, &a->conn, &dst, 80);
        if (stt != MIP_OK)
            return ps_fail(p, "connect: status %d", (int)stt);
        h->lport = a->conn.lport;
        h->pport = 80;
        return true;
    }
    case PS_OP_IN:
        return ps_in(p, st);
    case PS_OP_OUT:
        return ps_out(p, st);
    case PS_OP_NONE:
        if (ps_next(p, &r)) {
            ps_seg_text(p, &r, got, sizeof(got));
            return ps_fail(p, "the stack sent %s", got);
        }
        return true;
    case PS_OP_DROP:
        p->seen = h->f.ntx;
        return true;
    case PS_OP_WAIT:
        return ps_wait(p, st->ms);
    case PS_OP_STATE:
        if (a->conn.state != st->value)
            return ps_fail(p, "state %s", mip_tcp_state_name(a->conn.state));
        return true;
    case PS_OP_STAT:
        if (mip_tcp_stat(&h->tcp, (enum mip_tcp_stat)st->stat) != (uint32_t)st->value)
            return ps_fail(p, "counter %s is %u", mip_tcp_stat_name((enum mip_tcp_stat)st->stat),
                           mip_tcp_stat(&h->tcp, (enum mip_tcp_stat)st->stat));
        return true;
    case PS_OP_CLOSED:
        if (a->closed != (unsigned)st->value || a->error != st->stat)
            return ps_fail(p, "`closed` came %u times, last error %d (want error %d)", a->closed,
                           a->error, st->stat);
        return true;
    case PS_OP_SYNCACHE:
        if (ps_syncache_used(&h->tcp) != (unsigned)st->value)
            return ps_fail(p, "%u SYN cache entries in use", ps_syncache_used(&h->tcp));
        return true;
    case PS_OP_TIMEWAIT:
        if (ps_timewait_used(&h->tcp) != (unsigned)st->value)
            return ps_fail(p, "%u TIME_WAIT records in use", ps_timewait_used(&h->tcp));
        return true;
    case PS_OP_WRITE: {
        uint8_t buf[APP_RING];
        uint32_t i;
        size_t k;
        if (st->len > sizeof(buf))
            return ps_fail(p, "more than the ring");
        for (i = 0; i < st->len; i++)
            buf[i] = ps_byte(p->written + 1u + i);
        k = mip_tcp_write(&h->tcp, &a->conn, buf, st->len);
        p->written += (uint32_t)k;
        if (k != st->len)
            return ps_fail(p, "write took %zu bytes", k);
        return true;
    }
    case PS_OP_READ: {
        uint8_t buf[APP_RING];
        uint32_t i;
        size_t k = mip_tcp_read(&h->tcp, &a->conn, buf, st->len < sizeof(buf) ? st->len : sizeof(buf));
        for (i = 0; i < k; i++)
            if (buf[i] != ps_byte(p->nread + 1u + i))
                return ps_fail(p, "read byte %u is 0x%02x, not 0x%02x", p->nread + i, buf[i],
                               ps_byte(p->nread + 1u + i));
        p->nread += (uint32_t)k;
        if (k != st->len)
            return ps_fail(p, "read %zu bytes", k);
        return true;
    }
    case PS_OP_SHUTDOWN:
        if (mip_tcp_shutdown(&h->tcp, &a->conn) != MIP_OK)
            return ps_fail(p, "shutdown failed");
        return true;
    case PS_OP_CLOSE:
        if (mip_tcp_close(&h->tcp, &a->conn) != MIP_OK)
            return ps_fail(p, "close failed");
        return true;
    case PS_OP_ABORT:
        mip_tcp_abort(&h->tcp, &a->conn);
        return true;
    case PS_OP_DO:
        st->fn(p);
        return !p->failed;
    }
    return ps_fail(p, "unknown step");
}

/* Runs n steps; see the top of this file. */
static inline bool ps_run(const char *file, const char *name, const struct ps_step *steps,
                          size_t n)
{
    struct ps p;
    size_t i;
    memset(&p, 0, sizeof(p));
    p.file = file;
    p.name = name;
    p.h = hs_new(true);
    p.a = calloc(1, sizeof(*p.a));
    p.a->tcp = &p.h->tcp;
    p.t0 = p.h->f.now;
    for (i = 0; i < n && !p.failed; i++) {
        struct fixture *f = &p.h->f;
        p.step = (unsigned)i;
        p.cur = &steps[i];
        ps_learn(&p);
        if (p.seen >= f->ntx && p.scanned >= f->ntx) {
            fixture_clear(f);
            p.seen = p.scanned = 0;
        }
        if (!ps_exec(&p, &steps[i]))
            break;
    }
    if (p.a->conn.state != MIP_TCP_CLOSED)
        mip_tcp_abort(&p.h->tcp, &p.a->conn);
    if (p.h->l.accept != NULL)
        mip_tcp_unlisten(&p.h->tcp, &p.h->l);
    hs_free(p.h);
    free(p.a);
    return !p.failed;
}

#endif
