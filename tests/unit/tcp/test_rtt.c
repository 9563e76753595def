/* RTT estimation and RTO (RFC 6298): initial value, the first-sample rule,
 * worked sequences with exact integer state, agreement with a real-valued
 * model, clamping, and exponential backoff with its cap. */
#include <stdint.h>
#include "testing.h"
#include "moteip/tcp_parts.h"

static void test_initial_rto_is_one_second(void)
{
    struct mip_tcp_rtt r;
    tcp_rtt_init(&r);
    CHECK_EQ(r.srtt_x8, 0);
    CHECK_EQ(r.backoff, 0);
    CHECK_EQ(tcp_rtt_rto(&r), 1000);     /* RFC 6298 2.1 */
}

static void test_first_sample(void)
{
    struct mip_tcp_rtt r;
    /* 2.2: SRTT = R, RTTVAR = R/2, RTO = SRTT + max(G, 4 RTTVAR) = 3R. */
    tcp_rtt_init(&r);
    tcp_rtt_sample(&r, 100);
    CHECK_EQ(r.srtt_x8, 800);
    CHECK_EQ(r.rttvar_x4, 200);
    CHECK_EQ(tcp_rtt_rto(&r), 300);

    tcp_rtt_init(&r);
    tcp_rtt_sample(&r, 500);
    CHECK_EQ(r.srtt_x8 / 8, 500);
    CHECK_EQ(r.rttvar_x4 / 4, 250);
    CHECK_EQ(tcp_rtt_rto(&r), 1500);

    tcp_rtt_init(&r);
    tcp_rtt_sample(&r, 333);             /* RTTVAR = 166.5 exactly: x4 = 666 */
    CHECK_EQ(r.rttvar_x4, 666);
    CHECK_EQ(tcp_rtt_rto(&r), 333 + 666);
}

/* 2.3: RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R| (old SRTT), SRTT = 7/8 SRTT + 1/8 R.
 * Worked by hand:
 *   R=100: SRTT 100     RTTVAR 50       RTO 300
 *   R=200: |100-200|=100  RTTVAR 37.5+25 = 62.5      SRTT 87.5+25 = 112.5
 *          RTO 112.5+250 = 362.5 -> 362 (srtt_x8 900, rttvar_x4 250)
 *   R=100: |112.5-100|=12.5 -> 12 (truncated)  rttvar_x4 250-62+12 = 200
 *          srtt_x8 900-112+100 = 888 (111)     RTO 111+200 = 311
 *   R=150: |888-1200|/8 = 39  rttvar_x4 200-50+39 = 189
 *          srtt_x8 888-111+150 = 927 (115)     RTO 115+189 = 304 */
static void test_worked_sequence(void)
{
    struct mip_tcp_rtt r;
    tcp_rtt_init(&r);
    tcp_rtt_sample(&r, 100);
    CHECK_EQ(tcp_rtt_rto(&r), 300);
    tcp_rtt_sample(&r, 200);
    CHECK_EQ(r.srtt_x8, 900);
    CHECK_EQ(r.rttvar_x4, 250);
    CHECK_EQ(tcp_rtt_rto(&r), 362);
    tcp_rtt_sample(&r, 100);
    CHECK_EQ(r.srtt_x8, 888);
    CHECK_EQ(r.rttvar_x4, 200);
    CHECK_EQ(tcp_rtt_rto(&r), 311);
    tcp_rtt_sample(&r, 150);
    CHECK_EQ(r.srtt_x8, 927);
    CHECK_EQ(r.rttvar_x4, 189);
    CHECK_EQ(tcp_rtt_rto(&r), 304);
}

/* RFC 6298 5.7: after a SYN timeout the RTO is 3 s, without the SYN's
 * backoff, until the first sample, which then counts as the first. */
static void test_fallback_rto_after_syn_timeout(void)
{
    struct mip_tcp_rtt r;
    tcp_rtt_init(&r);
    tcp_rtt_backoff(&r);                 /* the SYN timed out once: 2 s */
    CHECK_EQ(tcp_rtt_rto(&r), 2000);
    tcp_rtt_fallback(&r);
    CHECK_EQ(r.srtt_x8, 0);
    CHECK_EQ(r.backoff, 0);
    CHECK_EQ(tcp_rtt_rto(&r), MIP_TCP_RTO_FALLBACK_MS);
    CHECK_EQ(MIP_TCP_RTO_FALLBACK_MS, 3000);
    tcp_rtt_backoff(&r);                 /* the data timed out: 5.5 doubles it */
    CHECK_EQ(tcp_rtt_rto(&r), 6000);
    tcp_rtt_sample(&r, 100);             /* 2.2, as the first sample */
    CHECK_EQ(r.srtt_x8, 800);
    CHECK_EQ(r.rttvar_x4, 200);
    CHECK_EQ(r.backoff, 0);
    CHECK_EQ(tcp_rtt_rto(&r), 300);
}

/* A falling RTT: R = 1000 then 400.
 *   |1000-400| = 600: RTTVAR 375+150 = 525 (x4 2100), SRTT 875+50 = 925
 *   RTO 925 + 2100 = 3025 */
static void test_variance_dominates(void)
{
    struct mip_tcp_rtt r;
    tcp_rtt_init(&r);
    tcp_rtt_sample(&r, 1000);
    CHECK_EQ(tcp_rtt_rto(&r), 3000);
    tcp_rtt_sample(&r, 400);
    CHECK_EQ(r.srtt_x8, 7400);
    CHECK_EQ(r.rttvar_x4, 2100);
    CHECK_EQ(tcp_rtt_rto(&r), 3025);
}

/* Long pseudo-random sequences agree with the real-valued RFC formulas to
 * within the truncation of the fixed-point state. */
static void test_matches_real_valued_model(void)
{
    struct mip_tcp_rtt r;
    uint32_t x = 2463534242u;
    double srtt = 0, rttvar = 0;
    unsigned i, bad = 0;
    tcp_rtt_init(&r);
    for (i = 0; i < 5000; i++) {
        uint32_t rtt, want;
        double rto;
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        rtt = 50u + (x % 4000u) / ((i / 500u) % 4u + 1u);
        tcp_rtt_sample(&r, rtt);
        if (i == 0) {
            srtt = rtt;
            rttvar = rtt / 2.0;
        } else {
            double d = srtt > rtt ? srtt - rtt : rtt - srtt;
            rttvar = 0.75 * rttvar + 0.25 * d;
            srtt = 0.875 * srtt + 0.125 * rtt;
        }
        rto = srtt + (4 * rttvar > 1 ? 4 * rttvar : 1);
        if (rto < MIP_TCP_RTO_MIN_MS) rto = MIP_TCP_RTO_MIN_MS;
        if (rto > 60000) rto = 60000;
        want = (uint32_t)rto;
        /* The shifts round the decayed parts up and |SRTT - R| down; in
         * steady state SRTT is off by at most 1 ms and 4 * RTTVAR by at
         * most 4 ms, either way. */
        if (tcp_rtt_rto(&r) + 6u < want || tcp_rtt_rto(&r) > want + 6u) {
            if (bad++ < 5)
                fprintf(stderr, "sample %u: rto %u, model %.2f\n", i,
                        (unsigned)tcp_rtt_rto(&r), rto);
        }
    }
    CHECK_EQ(bad, 0);
}

static void test_clamped_to_min_and_max(void)
{
    struct mip_tcp_rtt r;
    unsigned i;
    tcp_rtt_init(&r);
    tcp_rtt_sample(&r, 10);              /* 10 + 20 = 30 -> the minimum */
    CHECK_EQ(tcp_rtt_rto(&r), MIP_TCP_RTO_MIN_MS);
    for (i = 0; i < 200; i++)
        tcp_rtt_sample(&r, 10);
    CHECK_EQ(r.srtt_x8, 80);
    CHECK_EQ(tcp_rtt_rto(&r), MIP_TCP_RTO_MIN_MS);
    tcp_rtt_sample(&r, 0);               /* below the clock granularity */
    CHECK(r.srtt_x8 != 0);
    CHECK_EQ(tcp_rtt_rto(&r), MIP_TCP_RTO_MIN_MS);

    tcp_rtt_init(&r);
    tcp_rtt_sample(&r, 0);               /* counts as 1 ms, not "no sample" */
    CHECK_EQ(r.srtt_x8, 8);
    tcp_rtt_sample(&r, 9);
    CHECK_EQ(r.srtt_x8, 8 - 1 + 9);

    tcp_rtt_init(&r);
    tcp_rtt_sample(&r, 50000);           /* 150 s -> 60 s */
    CHECK_EQ(tcp_rtt_rto(&r), MIP_TCP_RTO_MAX_MS);
    tcp_rtt_init(&r);
    tcp_rtt_sample(&r, 0xFFFFFFFFu);     /* absurd: no overflow */
    CHECK_EQ(tcp_rtt_rto(&r), MIP_TCP_RTO_MAX_MS);
    tcp_rtt_sample(&r, 0xFFFFFFFFu);
    CHECK_EQ(tcp_rtt_rto(&r), MIP_TCP_RTO_MAX_MS);
    CHECK(r.srtt_x8 / 8 >= 60000u);
    tcp_rtt_sample(&r, 100);
    CHECK_EQ(tcp_rtt_rto(&r), MIP_TCP_RTO_MAX_MS);
}

/* However short the path, the RTO leaves a peer's delayed-ACK timer time
 * to fire and its ACK time to come back (config.h). */
static void test_min_above_delayed_ack(void)
{
    struct mip_tcp_rtt r;
    unsigned i;
    CHECK(MIP_TCP_RTO_MIN_MS > MIP_TCP_DELACK_MS);
    tcp_rtt_init(&r);
    for (i = 0; i < 100; i++) {
        tcp_rtt_sample(&r, 1);
        CHECK_EQ(tcp_rtt_rto(&r), MIP_TCP_RTO_MIN_MS);
    }
    CHECK_EQ(r.srtt_x8, 8);
    CHECK(r.rttvar_x4 <= 4u);
}

static void test_backoff_doubles_and_caps(void)
{
    struct mip_tcp_rtt r;
    static const uint32_t want[] = {300, 600, 1200, 2400, 4800, 9600, 19200, 38400,
                                    60000, 60000, 60000};
    unsigned i;
    tcp_rtt_init(&r);
    tcp_rtt_sample(&r, 100);
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        CHECK_EQ(tcp_rtt_rto(&r), want[i]);
        tcp_rtt_backoff(&r);
    }
    for (i = 0; i < 1000; i++) {
        tcp_rtt_backoff(&r);
        CHECK(tcp_rtt_rto(&r) == MIP_TCP_RTO_MAX_MS);
    }
    CHECK(r.backoff <= 8u);              /* saturates: 300 << 8 >= 60000 */
    r.backoff = 0;
    CHECK_EQ(tcp_rtt_rto(&r), 300);      /* the base RTO is untouched */
    r.backoff = 8;

    /* A new sample (Karn: only unambiguous ones are fed) clears the backoff. */
    tcp_rtt_sample(&r, 100);
    CHECK_EQ(r.backoff, 0);
    CHECK(tcp_rtt_rto(&r) < 400u);
}

/* rttvar_x4 is 16 bits: it saturates at 65535 (4 * RTTVAR = 65.5 s, the
 * RTO is at its maximum anyway) and comes down from there. */
static void test_rttvar_saturates(void)
{
    struct mip_tcp_rtt r;
    tcp_rtt_init(&r);
    tcp_rtt_sample(&r, 40000);          /* 2R = 80000 > 65535 */
    CHECK_EQ(r.rttvar_x4, 65535);
    CHECK_EQ(r.srtt_x8, 8u * 40000u);
    CHECK_EQ(tcp_rtt_rto(&r), MIP_TCP_RTO_MAX_MS);
    tcp_rtt_sample(&r, 1u << 30);       /* clamped to 2^24, still saturated */
    CHECK_EQ(r.rttvar_x4, 65535);
    CHECK_EQ(tcp_rtt_rto(&r), MIP_TCP_RTO_MAX_MS);
}

static void test_backoff_before_any_sample(void)
{
    struct mip_tcp_rtt r;
    uint32_t want = 1000;
    unsigned i;
    tcp_rtt_init(&r);
    for (i = 0; i < 6; i++) {
        CHECK_EQ(tcp_rtt_rto(&r), want);  /* 1, 2, 4, 8, 16, 32 s */
        tcp_rtt_backoff(&r);
        want *= 2u;
    }
    CHECK_EQ(tcp_rtt_rto(&r), 60000);
    tcp_rtt_backoff(&r);
    CHECK_EQ(tcp_rtt_rto(&r), 60000);
    CHECK_EQ(r.backoff, 6);
}

static void test_rto_never_exceeds_max_for_any_backoff(void)
{
    struct mip_tcp_rtt r;
    unsigned b;
    tcp_rtt_init(&r);
    tcp_rtt_sample(&r, 100);
    for (b = 0; b < 256; b++) {
        r.backoff = (uint8_t)b;           /* even if set from outside */
        CHECK(tcp_rtt_rto(&r) <= MIP_TCP_RTO_MAX_MS);
        CHECK(tcp_rtt_rto(&r) >= MIP_TCP_RTO_MIN_MS);
    }
}

int main(void)
{
    RUN(test_initial_rto_is_one_second);
    RUN(test_first_sample);
    RUN(test_worked_sequence);
    RUN(test_variance_dominates);
    RUN(test_fallback_rto_after_syn_timeout);
    RUN(test_matches_real_valued_model);
    RUN(test_clamped_to_min_and_max);
    RUN(test_min_above_delayed_ack);
    RUN(test_backoff_doubles_and_caps);
    RUN(test_rttvar_saturates);
    RUN(test_backoff_before_any_sample);
    RUN(test_rto_never_exceeds_max_for_any_backoff);
    return TESTING_DONE();
}
