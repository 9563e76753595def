/* The micro profile's IP and ICMP: echo replies, and every malformed
 * datagram dropped with exactly its own counter. Built for IPv4 and IPv6. */
#include "micro_fixture.h"

static uint16_t echo_request(struct fx *f, uint16_t dlen)
{
    uint8_t *ic = f->m.buf + FX_IPH;
    uint16_t i;

    memset(ic, 0, 8);
    ic[0] = FX_ECHO;
    mip_wr16(ic + 4, 0x1234);
    mip_wr16(ic + 6, 7);
    for (i = 0; i < dlen; i++)
        ic[8 + i] = (uint8_t)i;
    return fx_ip(f, FX_ICMP, (uint16_t)(8 + dlen), 2);
}

static void test_echo_reply(void)
{
    static const uint16_t sizes[] = {0, 1, 56, 333, MIP_MICRO_BUF_SIZE - FX_IPH - 8};
    struct fx f;
    unsigned k;
    uint16_t n, len, i;

    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        fx_init(&f);
        len = echo_request(&f, sizes[k]);
        n = fx_input(&f, len);
        CHECK_EQ(n, len);
        CHECK(fx_valid(&f, n));
        CHECK_EQ(f.m.buf[FX_IPH], FX_ECHO_REPLY);
        CHECK_EQ(mip_rd16(f.m.buf + FX_IPH + 4), 0x1234);
        for (i = 0; i < sizes[k]; i++)
            if (f.m.buf[FX_IPH + 8 + i] != (uint8_t)i)
                break;
        CHECK_EQ(i, sizes[k]);
        CHECK_EQ(f.m.stat[MIP_MICRO_STAT_tx], 1);
    }
}

/* One row per way a datagram can be wrong: what to break, and the counter
 * that must be the only one to move. */
enum { BREAK_LEN_SHORT, BREAK_VERSION, BREAK_DST, BREAK_SRC_MCAST, BREAK_PROTO, BREAK_FRAG,
       BREAK_ICMP_TYPE, BREAK_ICMP_SUM, BREAK_ICMP_SHORT, BREAK_LEN_FIELD, BREAK_OVERSIZE,
#if !MIP_CONF_IPV6
       BREAK_IP_SUM, BREAK_IHL, BREAK_SRC_LOOP,
#endif
       BREAK_COUNT };

static const struct { int what; int stat; } malformed[] = {
    {BREAK_LEN_SHORT, MIP_MICRO_STAT_drop_short},
    {BREAK_VERSION, MIP_MICRO_STAT_drop_ip_hdr},
    {BREAK_DST, MIP_MICRO_STAT_drop_bad_addr},
    {BREAK_SRC_MCAST, MIP_MICRO_STAT_drop_bad_addr},
    {BREAK_PROTO, MIP_MICRO_STAT_drop_proto},
#if MIP_MICRO_CONF_REASS
    {BREAK_FRAG, MIP_MICRO_STAT_drop_reass_bad},    /* MF and 28 bytes: not a multiple of 8 */
#else
    {BREAK_FRAG, MIP_MICRO_STAT_drop_frag},
#endif
    {BREAK_ICMP_TYPE, MIP_MICRO_STAT_drop_icmp},
    {BREAK_ICMP_SUM, MIP_MICRO_STAT_drop_cksum},
    {BREAK_ICMP_SHORT, MIP_MICRO_STAT_drop_short},
    {BREAK_LEN_FIELD, MIP_MICRO_STAT_drop_short},
    {BREAK_OVERSIZE, MIP_MICRO_STAT_drop_short},
#if !MIP_CONF_IPV6
    {BREAK_IP_SUM, MIP_MICRO_STAT_drop_ip_cksum},
    {BREAK_IHL, MIP_MICRO_STAT_drop_ip_hdr},
    {BREAK_SRC_LOOP, MIP_MICRO_STAT_drop_bad_addr},
#endif
};

static void test_malformed_dropped_and_counted(void)
{
    struct fx f;
    unsigned k, s;
    uint16_t len;
    uint8_t *p;

    for (k = 0; k < sizeof malformed / sizeof malformed[0]; k++) {
        fx_init(&f);
        p = f.m.buf;
        len = echo_request(&f, 20);
        switch (malformed[k].what) {
        case BREAK_LEN_SHORT: len = FX_IPH - 1; break;
        case BREAK_VERSION: p[0] ^= 0xC0; break;
        case BREAK_DST: p[FX_SRC + FX_ALEN + FX_ALEN - 1] ^= 1; break;
        case BREAK_SRC_MCAST: p[FX_SRC] = MIP_CONF_IPV6 ? 0xFF : 224; break;
        case BREAK_PROTO: p[MIP_CONF_IPV6 ? 6 : 9] = 99; break;
        case BREAK_FRAG: p[MIP_CONF_IPV6 ? 6 : 6] = MIP_CONF_IPV6 ? 44 : 0x20; break;
        case BREAK_ICMP_TYPE: p[FX_IPH] = FX_ECHO_REPLY; break;
        case BREAK_ICMP_SUM: p[FX_IPH + 9] ^= 1; break;
        case BREAK_ICMP_SHORT: len = fx_ip(&f, FX_ICMP, 7, -1); break;
        case BREAK_LEN_FIELD: len--; break;
        case BREAK_OVERSIZE: len = MIP_MICRO_BUF_SIZE + 1; break;
#if !MIP_CONF_IPV6
        case BREAK_IP_SUM: p[10] ^= 1; break;
        case BREAK_IHL: p[0] = 0x44; break;
        case BREAK_SRC_LOOP: p[FX_SRC] = 127; break;
#endif
        }
#if !MIP_CONF_IPV6
        /* keep the header checksum right unless that is the break */
        if (malformed[k].what != BREAK_IP_SUM && malformed[k].what != BREAK_IHL) {
            p[10] = p[11] = 0;
            mip_wr16(p + 10, mip_cksum_finish(mip_cksum_add(0, p, 20)));
        }
#endif
        CHECK_EQ(fx_input(&f, len), 0);
        for (s = 0; s < MIP_MICRO_STAT_COUNT; s++) {
            unsigned want = s == MIP_MICRO_STAT_rx || s == (unsigned)malformed[k].stat;
            if (f.m.stat[s] != want)
                fprintf(stderr, "row %u: counter %u is %u\n", k, s, f.m.stat[s]);
            CHECK_EQ(f.m.stat[s], want);
        }
    }
}

#if !MIP_CONF_IPV6
/* RFC 1122 3.2.1.8: a datagram with options is taken, the options ignored. */
static void test_ipv4_options_ignored(void)
{
    struct fx f;
    uint8_t *p;
    uint16_t len, n;

    fx_init(&f);
    p = f.m.buf;
    len = echo_request(&f, 10);
    memmove(p + 24, p + 20, len - 20);
    p[20] = 1; p[21] = 1; p[22] = 1; p[23] = 0;     /* NOP NOP NOP EOL */
    p[0] = 0x46;
    mip_wr16(p + 2, (uint16_t)(len + 4));
    p[10] = p[11] = 0;
    mip_wr16(p + 10, mip_cksum_finish(mip_cksum_add(0, p, 24)));
    n = fx_input(&f, (uint16_t)(len + 4));
    CHECK_EQ(n, len);
    CHECK(fx_valid(&f, n));
    CHECK_EQ(p[FX_IPH], FX_ECHO_REPLY);
}
#endif

/* The small checksum (MIP_CONF_CKSUM_SMALL) against the definition, every
 * length and start sum. */
static void test_small_checksum_matches_definition(void)
{
    static const uint32_t starts[] = {0, 1, 0xFFFF, 0x1FFFE, 0xFFFFFFFF};
    uint8_t d[300];
    unsigned len, k, i;
    uint32_t ref;

    for (i = 0; i < sizeof d; i++)
        d[i] = (uint8_t)(i * 37 + 11);
    d[5] = d[6] = 0xFF;
    for (k = 0; k < sizeof starts / sizeof starts[0]; k++)
        for (len = 0; len <= sizeof d; len++) {
            uint64_t s = starts[k];
            for (i = 0; i + 1 < len; i += 2)
                s += (uint32_t)(d[i] << 8 | d[i + 1]);
            if (len & 1)
                s += (uint32_t)d[len - 1] << 8;
            while (s >> 16)
                s = (s & 0xFFFF) + (s >> 16);
            ref = (uint16_t)~s;
            CHECK_EQ(mip_cksum_finish(mip_cksum_add(starts[k], d, len)), ref);
        }
}

int main(void)
{
    RUN(test_echo_reply);
    RUN(test_malformed_dropped_and_counted);
#if !MIP_CONF_IPV6
    RUN(test_ipv4_options_ignored);
#endif
    RUN(test_small_checksum_matches_definition);
    return TESTING_DONE();
}
