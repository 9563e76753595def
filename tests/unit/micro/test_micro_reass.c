/* The micro profile's optional IPv4 reassembly (MIP_MICRO_CONF_REASS; built
 * only for the micro4r variant, where it is on). One table of fragment
 * sequences: each step sends a fragment (or runs ticks) and names the one
 * counter it must move, or that it is taken, or that it completes the
 * datagram, which is then answered as if it had arrived whole; and whether
 * a datagram is in progress afterwards (work in progress is never evicted;
 * a bad fragment or an overlap ends its own datagram). */
#include "micro_fixture.h"

#if !MIP_MICRO_CONF_REASS || MIP_CONF_IPV6
#error "test_micro_reass is built for the micro4r variant (IPv4, MIP_MICRO_CONF_REASS=1)"
#endif

#define RD (MIP_MICRO_REASS_SIZE - FX_IPH)  /* data bytes reassembled at most */
#define STAT(n) MIP_MICRO_STAT_##n

/* What a step expects: besides these, a counter index (0, rx, ends the
 * list). A fragment has MF or an offset: offset 0 without MF is a whole
 * datagram. */
enum { TAKEN = 0xFF, REPLY = 0xFE };
#define TICK 0xFFu              /* step.dg: run `off` ticks, no fragment */
#define MF 1u
#define LAST 0u

struct step {
    uint8_t dg;                 /* datagram 0 or 1 (another identification), or TICK */
    uint16_t off, len;          /* the fragment: offset and length of its data */
    uint8_t mf;                 /* MF (more fragments) */
    uint8_t flip;               /* its first byte changed */
    uint8_t expect;             /* TAKEN, REPLY or the counter that moves */
    uint8_t busy;               /* a datagram in progress afterwards */
};

struct scenario {
    const char *name;
    uint16_t msglen[2];         /* the two datagrams' ICMP messages */
    struct step s[8];
};

static const struct scenario scenarios[] = {
    {"in order", {100, 0},
     {{0, 0, 48, MF, 0, TAKEN, 1}, {0, 48, 48, MF, 0, TAKEN, 1}, {0, 96, 4, LAST, 0, REPLY, 0}}},
    {"out of order", {100, 0},
     {{0, 96, 4, LAST, 0, TAKEN, 1}, {0, 0, 48, MF, 0, TAKEN, 1}, {0, 48, 48, MF, 0, REPLY, 0}}},
    {"last first, two fragments", {100, 0},
     {{0, 48, 52, LAST, 0, TAKEN, 1}, {0, 0, 48, MF, 0, REPLY, 0}}},
    {"duplicate", {100, 0},
     {{0, 0, 48, MF, 0, TAKEN, 1}, {0, 0, 48, MF, 0, STAT(drop_reass_dup), 1},
      {0, 48, 52, LAST, 0, REPLY, 0}}},
    {"duplicate of the last", {100, 0},
     {{0, 48, 52, LAST, 0, TAKEN, 1}, {0, 48, 52, LAST, 0, STAT(drop_reass_dup), 1},
      {0, 0, 48, MF, 0, REPLY, 0}}},
    /* Covered whole but with other bytes: the datagram is discarded (the
     * first fragment is needed again), neither copy is taken. */
    {"overlap with other bytes", {100, 0},
     {{0, 0, 48, MF, 0, TAKEN, 1}, {0, 0, 48, MF, 1, STAT(drop_reass_overlap), 0},
      {0, 48, 52, LAST, 0, TAKEN, 1}, {0, 0, 48, MF, 0, REPLY, 0}}},
    {"overlap in part, same bytes", {100, 0},
     {{0, 0, 48, MF, 0, TAKEN, 1}, {0, 40, 16, MF, 0, STAT(drop_reass_overlap), 0}}},
    {"a second end", {100, 0},
     {{0, 96, 4, LAST, 0, TAKEN, 1}, {0, 48, 56, LAST, 0, STAT(drop_reass_overlap), 0}}},
    {"data past the end", {100, 0},
     {{0, 48, 8, LAST, 0, TAKEN, 1}, {0, 56, 8, MF, 0, STAT(drop_reass_overlap), 0}}},
    {"an end before data received", {100, 0},
     {{0, 56, 40, MF, 0, TAKEN, 1}, {0, 8, 32, LAST, 0, STAT(drop_reass_overlap), 0}}},
    {"an end inside a received block", {100, 0},
     {{0, 0, 48, MF, 0, TAKEN, 1}, {0, 40, 4, LAST, 0, STAT(drop_reass_overlap), 0}}},
    {"not a multiple of 8", {100, 0}, {{0, 0, 20, MF, 0, STAT(drop_reass_bad), 0}}},
    {"no data", {100, 0},
     {{0, 0, 0, MF, 0, STAT(drop_reass_bad), 0}, {0, 48, 0, LAST, 0, STAT(drop_reass_bad), 0}}},
    {"a bad fragment ends its datagram", {100, 0},
     {{0, 0, 48, MF, 0, TAKEN, 1}, {0, 48, 20, MF, 0, STAT(drop_reass_bad), 0}}},
    {"too big", {RD + 8, 0},
     {{0, 0, 2040, MF, 0, TAKEN, 1}, {0, 2040, RD + 8 - 2040, LAST, 0, STAT(drop_reass_size), 0}}},
    {"offset past the buffer", {100, 0},
     {{0, 0xFFF8u, 8, MF, 0, STAT(drop_reass_size), 0},
      {0, (RD + 7) & ~7u, 8, LAST, 0, STAT(drop_reass_size), 0}}},
    {"exactly the buffer", {RD, 0},
     {{0, 2040, RD - 2040, LAST, 0, TAKEN, 1}, {0, 0, 2040, MF, 0, REPLY, 0}}},
    {"timeout", {100, 0},
     {{0, 0, 48, MF, 0, TAKEN, 1}, {TICK, MIP_MICRO_REASS_TICKS - 1, 0, 0, 0, TAKEN, 1},
      {TICK, 1, 0, 0, 0, STAT(drop_reass_timeout), 0}, {0, 48, 52, LAST, 0, TAKEN, 1}}},
    /* Another datagram's fragments never evict the one in progress. */
    {"second datagram while busy", {100, 60},
     {{0, 0, 48, MF, 0, TAKEN, 1}, {1, 0, 48, MF, 0, STAT(drop_reass_busy), 1},
      {1, 48, 12, LAST, 0, STAT(drop_reass_busy), 1}, {0, 48, 52, LAST, 0, REPLY, 0},
      {1, 48, 12, LAST, 0, TAKEN, 1}, {1, 0, 48, MF, 0, REPLY, 0}}},
    /* Processed whole: a wrong ICMP checksum is found after reassembly. */
    {"checksum checked on the whole", {100, 0},
     {{0, 0, 48, MF, 0, TAKEN, 1}, {0, 48, 52, LAST, 1, STAT(drop_cksum), 0}}},
};

static uint8_t msg[2][RD + 8];

/* An ICMP echo request of len bytes (seq = dg), checksummed. */
static void make_msg(uint8_t dg, uint16_t len)
{
    uint8_t *q = msg[dg];
    uint16_t i;

    for (i = 0; i < len; i++)
        q[i] = (uint8_t)(i * 7u + dg + 1u);
    q[0] = FX_ECHO;
    q[1] = q[2] = q[3] = 0;
    mip_wr16(q + 4, 0x1234);
    mip_wr16(q + 6, dg);
    mip_wr16(q + 2, mip_cksum_finish(mip_cksum_add(0, q, len)));
}

/* Sends the fragment off .. off + len of datagram dg's message (id 1 + dg)
 * with protocol proto; returns what the node answers. */
static uint16_t send_frag(struct fx *f, const uint8_t *m, uint8_t proto, uint16_t id,
                          uint16_t off, uint16_t len, uint8_t mf, uint8_t flip)
{
    uint8_t *p = f->m.buf;

    memset(p + FX_IPH, 0, len);
    if ((uint32_t)off + len <= sizeof msg[0])
        memcpy(p + FX_IPH, m + off, len);
    if (flip && len)
        p[FX_IPH] ^= 0xFF;
    fx_ip(f, proto, len, -1);
    mip_wr16(p + 4, id);
    mip_wr16(p + 6, (uint16_t)((mf ? 0x2000u : 0u) | off >> 3));
    p[10] = p[11] = 0;
    mip_wr16(p + 10, mip_cksum_finish(mip_cksum_add(0, p, 20)));
    return fx_input(f, (uint16_t)(FX_IPH + len));
}

static void test_fragment_sequences(void)
{
    uint16_t before[MIP_MICRO_STAT_COUNT], n, i;
    unsigned k, j, s;
    struct fx f;

    for (k = 0; k < sizeof scenarios / sizeof scenarios[0]; k++) {
        const struct scenario *sc = &scenarios[k];

        fx_init(&f);
        make_msg(0, sc->msglen[0]);
        make_msg(1, sc->msglen[1]);
        for (j = 0; j < 8 && sc->s[j].expect; j++) {
            const struct step *st = &sc->s[j];
            uint8_t dg = st->dg;

            memcpy(before, f.m.stat, sizeof before);
            n = 0;
            if (dg == TICK) {
                for (i = 0; i < st->off; i++)
                    for (s = 0; s < MIP_MICRO_CONNS; s++)
                        n = (uint16_t)(n + mip_micro_periodic(&f.m, (uint8_t)s));
            } else {
                n = send_frag(&f, msg[dg], FX_ICMP, (uint16_t)(1 + dg), st->off, st->len, st->mf,
                              st->flip);
            }
            for (s = 0; s < MIP_MICRO_STAT_COUNT; s++) {
                unsigned want = dg != TICK && s == STAT(rx);
                if (st->expect == REPLY)
                    want += s == STAT(tx) || s == STAT(reass_done);
                else if (st->expect != TAKEN)
                    want += s == st->expect;
                /* a datagram completed, then dropped as a whole */
                if (st->expect == STAT(drop_cksum))
                    want += s == STAT(reass_done);
                if ((unsigned)(uint16_t)(f.m.stat[s] - before[s]) != want)
                    fprintf(stderr, "%s, step %u: counter %u moved %u, want %u\n", sc->name, j,
                            s, (uint16_t)(f.m.stat[s] - before[s]), want);
                CHECK_EQ((uint16_t)(f.m.stat[s] - before[s]), want);
            }
            if ((f.m.reass.timer != 0) != st->busy)
                fprintf(stderr, "%s, step %u: in progress %u\n", sc->name, j, f.m.reass.timer);
            CHECK_EQ(f.m.reass.timer != 0, st->busy);
            if (st->expect != REPLY) {
                CHECK_EQ(n, 0);
                continue;
            }
            /* The echo reply of the whole datagram. */
            CHECK_EQ(n, FX_IPH + sc->msglen[dg]);
            CHECK(fx_valid(&f, n));
            CHECK_EQ(f.m.buf[FX_IPH], FX_ECHO_REPLY);
            CHECK_MEM(f.m.buf + FX_IPH + 4, msg[dg] + 4, sc->msglen[dg] - 4u);
        }
    }
}

/* A TCP segment that arrives in two fragments is taken as one: its data
 * delivered, ACKed. */
static void test_tcp_segment_in_fragments(void)
{
    uint8_t data[100], seg[120];
    uint32_t una;
    uint16_t n, i;
    struct fx f;

    fx_init(&f);
    fx_connect(&f, &una);
    for (i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(3 * i);
    n = fx_seg(&f, PEER_PORT, PORT, PEER_ISN + 1, una, MIP_TCP_ACK | MIP_TCP_PSH, NULL, 0, data,
               sizeof data);
    memcpy(seg, f.m.buf + FX_IPH, sizeof seg);
    CHECK_EQ(n, FX_IPH + sizeof seg);
    CHECK_EQ(send_frag(&f, seg, 6, 77, 64, 56, LAST, 0), 0);
    CHECK_EQ(f.app.ngot, 0);
    n = send_frag(&f, seg, 6, 77, 0, 64, MF, 0);
    CHECK(fx_valid(&f, n));
    CHECK_EQ(FX_FLAGS(&f), MIP_TCP_ACK);
    CHECK_EQ(FX_ACK(&f), PEER_ISN + 1 + sizeof data);
    CHECK_EQ(f.app.ngot, sizeof data);
    CHECK_MEM(f.app.got, data, sizeof data);
    CHECK_EQ(f.m.stat[STAT(reass_done)], 1);
}

/* Reassembly comes after the address checks: a fragment for another node
 * is not taken (it would hold the buffer). */
static void test_fragment_not_for_us_not_taken(void)
{
    struct fx f;
    uint8_t *p;

    fx_init(&f);
    make_msg(0, 100);
    p = f.m.buf;
    memcpy(p + FX_IPH, msg[0], 48);
    fx_ip(&f, FX_ICMP, 48, -1);
    p[19] ^= 1;                                 /* the destination */
    p[6] = 0x20;                                /* MF */
    p[10] = p[11] = 0;
    mip_wr16(p + 10, mip_cksum_finish(mip_cksum_add(0, p, 20)));
    CHECK_EQ(fx_input(&f, FX_IPH + 48), 0);
    CHECK_EQ(f.m.stat[STAT(drop_bad_addr)], 1);
    CHECK_EQ(f.m.reass.timer, 0);
}

int main(void)
{
    RUN(test_fragment_sequences);
    RUN(test_tcp_segment_in_fragments);
    RUN(test_fragment_not_for_us_not_taken);
    return TESTING_DONE();
}
