/* Congestion control (RFC 5681, RFC 3465 byte counting, RFC 6582 NewReno):
 * initial window by MSS, slow start doubling per RTT, linear congestion
 * avoidance, fast retransmit / recovery entry values, partial and full
 * ACKs, timeout to the loss window, the segment cap, and saturation. */
#include <stdint.h>
#include "testing.h"
#include "moteip/tcp_parts.h"

#define MSS 1000u

/* One RTT's worth of ACKs: every segment of the window acknowledged
 * separately, `per_ack` bytes each. */
static void ack_window(struct mip_tcp_cc *cc, uint32_t per_ack)
{
    uint32_t w = tcp_cc_window(cc), done = 0;
    while (done < w) {
        tcp_cc_on_ack(cc, per_ack);
        done += per_ack;
    }
}

static void test_initial_window_by_mss(void)
{
    struct mip_tcp_cc cc;
    /* RFC 5681 3.1: > 2190 -> 2 segments, > 1095 -> 3, else 4. */
    tcp_cc_init(&cc, 536, 0);  CHECK_EQ(cc.cwnd, 4u * 536u);
    tcp_cc_init(&cc, 1095, 0); CHECK_EQ(cc.cwnd, 4u * 1095u);
    tcp_cc_init(&cc, 1096, 0); CHECK_EQ(cc.cwnd, 3u * 1096u);
    tcp_cc_init(&cc, 1460, 0); CHECK_EQ(cc.cwnd, 3u * 1460u);
    tcp_cc_init(&cc, 2190, 0); CHECK_EQ(cc.cwnd, 3u * 2190u);
    tcp_cc_init(&cc, 2191, 0); CHECK_EQ(cc.cwnd, 2u * 2191u);
    tcp_cc_init(&cc, 65535, 0); CHECK_EQ(cc.cwnd, 2u * 65535u);
    CHECK(cc.ssthresh >= 0x7FFFFFFFu);  /* "arbitrarily high" */
    CHECK_EQ(cc.dupacks, 0);
    CHECK_EQ(cc.in_recovery, 0);
    CHECK_EQ(tcp_cc_window(&cc), cc.cwnd);
}

static void test_slow_start_doubles_per_rtt(void)
{
    struct mip_tcp_cc cc;
    uint32_t want = 4u * MSS;
    unsigned rtt;
    tcp_cc_init(&cc, MSS, 0);
    for (rtt = 0; rtt < 8; rtt++) {
        CHECK_EQ(tcp_cc_window(&cc), want);
        ack_window(&cc, MSS);
        want *= 2u;
    }
    CHECK_EQ(cc.cwnd, 4u * MSS * 256u);
}

static void test_slow_start_increase_is_at_most_one_mss_per_ack(void)
{
    struct mip_tcp_cc cc;
    tcp_cc_init(&cc, MSS, 0);
    tcp_cc_on_ack(&cc, 2u * MSS);       /* delayed ACK of two segments */
    CHECK_EQ(cc.cwnd, 5u * MSS);        /* RFC 5681 eqn 2: min(N, SMSS) */
    tcp_cc_on_ack(&cc, 300);
    CHECK_EQ(cc.cwnd, 5u * MSS + 300u);
    tcp_cc_on_ack(&cc, 0);
    CHECK_EQ(cc.cwnd, 5u * MSS + 300u);
}

static void test_congestion_avoidance_one_mss_per_rtt(void)
{
    struct mip_tcp_cc cc;
    unsigned i, rtt;
    tcp_cc_init(&cc, MSS, 0);
    cc.cwnd = 8u * MSS;
    cc.ssthresh = 8u * MSS;             /* cwnd >= ssthresh: avoidance */
    for (i = 0; i < 7; i++)
        tcp_cc_on_ack(&cc, MSS);
    CHECK_EQ(cc.cwnd, 8u * MSS);        /* 7000 of 8000 bytes counted */
    tcp_cc_on_ack(&cc, MSS);
    CHECK_EQ(cc.cwnd, 9u * MSS);
    CHECK_EQ(cc.acked, 0);
    for (rtt = 0; rtt < 10; rtt++) {
        uint32_t before = cc.cwnd;
        ack_window(&cc, MSS);
        CHECK_EQ(cc.cwnd, before + MSS); /* linear: +1 SMSS per RTT */
    }
    CHECK_EQ(cc.cwnd, 19u * MSS);

    /* Byte counting with small ACKs: the same growth per bytes acked. */
    tcp_cc_init(&cc, MSS, 0);
    cc.cwnd = 4u * MSS;
    cc.ssthresh = 2u * MSS;
    for (i = 0; i < 15; i++)
        tcp_cc_on_ack(&cc, 250);
    CHECK_EQ(cc.cwnd, 4u * MSS);
    tcp_cc_on_ack(&cc, 250);
    CHECK_EQ(cc.cwnd, 5u * MSS);
    /* One large ACK adds at most one SMSS; the rest carries over. */
    tcp_cc_on_ack(&cc, 7000);
    CHECK_EQ(cc.cwnd, 6u * MSS);
    CHECK_EQ(cc.acked, 2000);
}

static void test_slow_start_hands_over_to_avoidance(void)
{
    struct mip_tcp_cc cc;
    tcp_cc_init(&cc, MSS, 0);
    cc.cwnd = 7500;
    cc.ssthresh = 8000;
    tcp_cc_on_ack(&cc, MSS);
    CHECK_EQ(cc.cwnd, 8500);            /* still slow start below ssthresh */
    tcp_cc_on_ack(&cc, MSS);
    CHECK_EQ(cc.cwnd, 8500);            /* now avoidance */
    CHECK_EQ(cc.acked, MSS);
}

/* Enters fast recovery from cwnd 10000 with 10000 bytes in flight. */
static void enter_recovery(struct mip_tcp_cc *cc, uint32_t snd_max)
{
    tcp_cc_init(cc, MSS, 0);
    cc->cwnd = 10u * MSS;
    cc->ssthresh = 10u * MSS;
    CHECK(!tcp_cc_on_dupack(cc, 10u * MSS, snd_max, 3));
    CHECK(!tcp_cc_on_dupack(cc, 10u * MSS, snd_max, 3));
    CHECK_EQ(cc->cwnd, 10u * MSS);      /* no change before the third */
    CHECK(tcp_cc_on_dupack(cc, 10u * MSS, snd_max, 3));
}

static void test_fast_retransmit_entry(void)
{
    struct mip_tcp_cc cc;
    enter_recovery(&cc, 20000);
    /* RFC 5681 eqn 4 and 3.2 step 3; RFC 6582 recover. */
    CHECK_EQ(cc.ssthresh, 5u * MSS);
    CHECK_EQ(cc.cwnd, 5u * MSS + 3u * MSS);
    CHECK_EQ(cc.recover, 20000);
    CHECK_EQ(cc.in_recovery, 1);
    /* Further duplicates inflate by one SMSS each and never retransmit. */
    CHECK(!tcp_cc_on_dupack(&cc, 10u * MSS, 20000, 3));
    CHECK_EQ(cc.cwnd, 9u * MSS);
    CHECK(!tcp_cc_on_dupack(&cc, 10u * MSS, 20000, 3));
    CHECK_EQ(cc.cwnd, 10u * MSS);
    CHECK_EQ(tcp_cc_window(&cc), 10u * MSS);
}

static void test_ssthresh_floor_is_two_segments(void)
{
    struct mip_tcp_cc cc;
    tcp_cc_init(&cc, MSS, 0);
    tcp_cc_on_dupack(&cc, 1500, 100, 3);
    tcp_cc_on_dupack(&cc, 1500, 100, 3);
    CHECK(tcp_cc_on_dupack(&cc, 1500, 100, 3));
    CHECK_EQ(cc.ssthresh, 2u * MSS);
    CHECK_EQ(cc.cwnd, 5u * MSS);
}

static void test_new_ack_resets_duplicate_count(void)
{
    struct mip_tcp_cc cc;
    tcp_cc_init(&cc, MSS, 0);
    CHECK(!tcp_cc_on_dupack(&cc, 4000, 4000, 3));
    CHECK(!tcp_cc_on_dupack(&cc, 4000, 4000, 3));
    tcp_cc_on_ack(&cc, MSS);
    CHECK_EQ(cc.dupacks, 0);
    CHECK(!tcp_cc_on_dupack(&cc, 4000, 5000, 3));
    CHECK(!tcp_cc_on_dupack(&cc, 4000, 5000, 3));
    CHECK(tcp_cc_on_dupack(&cc, 4000, 5000, 3));
}

static void test_partial_ack_deflates(void)
{
    struct mip_tcp_cc cc;
    enter_recovery(&cc, 20000);         /* ssthresh 5000, cwnd 8000 */
    tcp_cc_on_dupack(&cc, 10u * MSS, 20000, 3);
    CHECK_EQ(cc.cwnd, 9000);
    /* RFC 6582 partial ACK of 3000 bytes: 9000 - 3000 + 1000. */
    CHECK(tcp_cc_on_recovery_ack(&cc, 13000, 3000, 7000));
    CHECK_EQ(cc.cwnd, 7000);
    CHECK_EQ(cc.in_recovery, 1);
    /* Less than one SMSS acknowledged: no SMSS added back. */
    CHECK(tcp_cc_on_recovery_ack(&cc, 13500, 500, 6500));
    CHECK_EQ(cc.cwnd, 6500);
    /* Exactly one SMSS: deflate and add back, net zero. */
    CHECK(tcp_cc_on_recovery_ack(&cc, 14500, 1000, 5500));
    CHECK_EQ(cc.cwnd, 6500);
    CHECK_EQ(cc.ssthresh, 5000);
    /* Deflation never leaves less than one segment. */
    CHECK(tcp_cc_on_recovery_ack(&cc, 19999, 5499, 1));
    CHECK_EQ(cc.cwnd, 2001);
    CHECK(tcp_cc_on_recovery_ack(&cc, 19999, 0, 1));
    CHECK(tcp_cc_on_recovery_ack(&cc, 19999, 900, 1));
    CHECK(tcp_cc_on_recovery_ack(&cc, 19999, 900, 1));
    CHECK_EQ(cc.cwnd, MSS);
}

static void test_full_ack_leaves_recovery(void)
{
    struct mip_tcp_cc cc;
    /* Nothing outstanding: min(ssthresh, max(0, SMSS) + SMSS) = 2000. */
    enter_recovery(&cc, 20000);
    CHECK(!tcp_cc_on_recovery_ack(&cc, 20000, 10000, 0));
    CHECK_EQ(cc.in_recovery, 0);
    CHECK_EQ(cc.cwnd, 2u * MSS);
    CHECK_EQ(cc.dupacks, 0);
    /* New data sent during recovery still out: min(5000, 6000 + 1000). */
    enter_recovery(&cc, 20000);
    CHECK(!tcp_cc_on_recovery_ack(&cc, 20000, 10000, 6000));
    CHECK_EQ(cc.cwnd, 5u * MSS);
    /* An ACK beyond recover is full too; 3000 in flight: 4000. */
    enter_recovery(&cc, 20000);
    CHECK(tcp_cc_on_recovery_ack(&cc, 19999, 9999, 1));   /* one byte short */
    CHECK(!tcp_cc_on_recovery_ack(&cc, 21000, 1001, 3000));
    CHECK_EQ(cc.cwnd, 4u * MSS);
    /* Afterwards: congestion avoidance from cwnd 4000 < ssthresh 5000 is
     * slow start until ssthresh. */
    tcp_cc_on_ack(&cc, MSS);
    CHECK_EQ(cc.cwnd, 5u * MSS);
    tcp_cc_on_ack(&cc, MSS);
    CHECK_EQ(cc.cwnd, 5u * MSS);
}

static void test_recover_compares_modulo_2_32(void)
{
    struct mip_tcp_cc cc;
    enter_recovery(&cc, 0x00000100u);   /* snd_max just past the wrap */
    CHECK(tcp_cc_on_recovery_ack(&cc, 0xFFFFFFF0u, 1000, 2000));
    CHECK(!tcp_cc_on_recovery_ack(&cc, 0x00000100u, 1000, 0));
    CHECK_EQ(cc.in_recovery, 0);
}

static void test_timeout_to_loss_window(void)
{
    struct mip_tcp_cc cc;
    unsigned i;
    enter_recovery(&cc, 20000);
    tcp_cc_on_timeout(&cc, 12000, 20000);
    CHECK_EQ(cc.recover, 20000);        /* RFC 6582 3.2 step 1 */
    CHECK_EQ(cc.ssthresh, 6000);
    CHECK_EQ(cc.cwnd, MSS);             /* RFC 5681: LW = 1 segment */
    CHECK_EQ(cc.in_recovery, 0);
    CHECK_EQ(cc.dupacks, 0);
    /* Slow start again up to ssthresh, then avoidance. */
    tcp_cc_on_ack(&cc, MSS);
    CHECK_EQ(cc.cwnd, 2u * MSS);
    for (i = 0; i < 4; i++)
        tcp_cc_on_ack(&cc, MSS);
    CHECK_EQ(cc.cwnd, 6u * MSS);
    tcp_cc_on_ack(&cc, MSS);
    CHECK_EQ(cc.cwnd, 6u * MSS);
    /* A small flight: ssthresh stays at two segments. */
    tcp_cc_on_timeout(&cc, 100, 4000);
    CHECK_EQ(cc.ssthresh, 2u * MSS);
    CHECK_EQ(cc.cwnd, MSS);
    /* Duplicates after a timeout count from zero (here of data sent after
     * it: snd_una 4000 is recover). */
    CHECK(!tcp_cc_on_dupack(&cc, 1000, 5000, 3));
    CHECK(!tcp_cc_on_dupack(&cc, 1000, 5000, 3));
    CHECK(tcp_cc_on_dupack(&cc, 1000, 5000, 3));
}

/* RFC 6582 3.2 step 2: after a timeout at snd_max 20000, duplicate ACKs
 * below it (snd_una 10000..19999) start no fast retransmit, one row per
 * snd_una; at or above it they do. So does a recover from before the
 * flight (no timeout in it), and one that wrapped. */
static void test_no_fast_retransmit_below_recover(void)
{
    static const struct {
        uint32_t recover, snd_una, snd_max;
        bool fast;
    } rows[] = {
        {20000, 10000, 20000, false},   /* the whole flight sent before the timeout */
        {20000, 19999, 20000, false},
        {20000, 15000, 25000, false},   /* new data after the timeout too */
        {20000, 20000, 25000, true},    /* ACK at recover: "covers more" is false, */
        {20000, 20001, 25000, true},    /* but RFC 6675 5.1 allows it: so do we */
        {5000, 10000, 20000, true},     /* recover of an older recovery */
        {0xFFFFFF00u, 0x100u, 0x2000u, true},         /* older, across the wrap */
        {0x100u, 0xFFFFFF00u, 0x2000u, false},        /* the flight spans the wrap */
    };
    unsigned i, k;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct mip_tcp_cc cc;
        uint32_t flight = rows[i].snd_max - rows[i].snd_una;
        bool fast = false;
        tcp_cc_init(&cc, MSS, 0);
        tcp_cc_on_timeout(&cc, flight, rows[i].recover);
        for (k = 0; k < 3; k++)
            fast = tcp_cc_on_dupack(&cc, flight, rows[i].snd_max, 3);
        CHECK_EQ(fast, rows[i].fast);
        CHECK_EQ(cc.in_recovery, rows[i].fast);
        CHECK_EQ(cc.cwnd, rows[i].fast ? cc.ssthresh + 3u * MSS : MSS);
    }
}

/* With cap_segments 3 the window never exceeds 3 SMSS, whatever happens. */
static void test_cap_three_segments(void)
{
    struct mip_tcp_cc cc;
    uint32_t snd_max = 1000000, x = 1;
    unsigned i;
    tcp_cc_init(&cc, MSS, 3);
    CHECK_EQ(tcp_cc_window(&cc), 3u * MSS);
    CHECK(cc.cwnd <= 3u * MSS);
    for (i = 0; i < 20000; i++) {
        uint32_t w = tcp_cc_window(&cc);
        x = x * 1103515245u + 12345u;
        switch ((x >> 16) % 8u) {
        case 0: case 1: case 2: case 3:
            if (cc.in_recovery)
                tcp_cc_on_recovery_ack(&cc, snd_max - (x >> 20) % 2u, MSS, w);
            else
                tcp_cc_on_ack(&cc, MSS);
            break;
        case 4: case 5: case 6:
            tcp_cc_on_dupack(&cc, w, snd_max, 3);
            break;
        default:
            tcp_cc_on_timeout(&cc, w, snd_max);
            break;
        }
        snd_max += MSS;
        CHECK(tcp_cc_window(&cc) <= 3u * MSS);
        CHECK(tcp_cc_window(&cc) >= MSS);
        if (!cc.in_recovery)
            CHECK(cc.cwnd <= 3u * MSS);
    }
    /* Growth stops at the cap in slow start and in avoidance. */
    tcp_cc_init(&cc, MSS, 3);
    for (i = 0; i < 100; i++)
        tcp_cc_on_ack(&cc, MSS);
    CHECK_EQ(cc.cwnd, 3u * MSS);
    /* Recovery: cwnd may inflate, the window in force does not. */
    CHECK(!tcp_cc_on_dupack(&cc, 3u * MSS, 50000, 3));
    CHECK(!tcp_cc_on_dupack(&cc, 3u * MSS, 50000, 3));
    CHECK(tcp_cc_on_dupack(&cc, 3u * MSS, 50000, 3));
    CHECK_EQ(cc.ssthresh, 2u * MSS);
    CHECK_EQ(tcp_cc_window(&cc), 3u * MSS);
    /* No cap: cap_segments 0. */
    tcp_cc_init(&cc, MSS, 0);
    for (i = 0; i < 100; i++)
        tcp_cc_on_ack(&cc, MSS);
    CHECK_EQ(tcp_cc_window(&cc), 104u * MSS);
}

static void test_no_32_bit_overflow(void)
{
    struct mip_tcp_cc cc;
    tcp_cc_init(&cc, 65535, 0);
    cc.cwnd = 0xFFFFFF00u;
    tcp_cc_on_ack(&cc, 0xFFFFFFFFu);    /* slow start */
    CHECK_EQ(cc.cwnd, 0xFFFFFFFFu);
    tcp_cc_on_ack(&cc, 0xFFFFFFFFu);    /* avoidance, cwnd == ssthresh */
    CHECK_EQ(cc.cwnd, 0xFFFFFFFFu);
    tcp_cc_on_ack(&cc, 0xFFFFFFFFu);
    CHECK_EQ(cc.cwnd, 0xFFFFFFFFu);
    CHECK(!tcp_cc_on_dupack(&cc, 0xFFFFFFFFu, 0, 3));
    CHECK(!tcp_cc_on_dupack(&cc, 0xFFFFFFFFu, 0, 3));
    CHECK(tcp_cc_on_dupack(&cc, 0xFFFFFFFFu, 0, 3));
    CHECK_EQ(cc.ssthresh, 0x7FFFFFFFu);
    CHECK_EQ(cc.cwnd, 0x7FFFFFFFu + 3u * 65535u);
    cc.cwnd = 0xFFFFFFF0u;
    tcp_cc_on_dupack(&cc, 0xFFFFFFFFu, 0, 3);
    CHECK_EQ(cc.cwnd, 0xFFFFFFFFu);
    CHECK(!tcp_cc_on_recovery_ack(&cc, 0, 1, 0xFFFFFFFFu));
    CHECK_EQ(cc.cwnd, 0x7FFFFFFFu);
    tcp_cc_init(&cc, 65535, 255);
    CHECK_EQ(tcp_cc_window(&cc), 2u * 65535u);
    cc.cwnd = 0xFFFFFFFFu;
    CHECK_EQ(tcp_cc_window(&cc), 255u * 65535u);
}

/* RFC 3042: the first and second duplicate ACK open the window for new
 * data by one and two MSS; cwnd itself stays; the third (recovery) and a
 * new ACK end it, and a cap bounds it. */
static void test_limited_transmit_window(void)
{
    struct mip_tcp_cc cc;
    tcp_cc_init(&cc, MSS, 0);
    CHECK_EQ(tcp_cc_window_limited(&cc), 4u * MSS);
    CHECK(!tcp_cc_on_dupack(&cc, 4u * MSS, 4u * MSS, 3));
    CHECK_EQ(tcp_cc_window_limited(&cc), 5u * MSS);
    CHECK(!tcp_cc_on_dupack(&cc, 5u * MSS, 5u * MSS, 3));
    CHECK_EQ(tcp_cc_window_limited(&cc), 6u * MSS);
    CHECK_EQ(cc.cwnd, 4u * MSS);
    CHECK(tcp_cc_on_dupack(&cc, 6u * MSS, 6u * MSS, 3));
    CHECK_EQ(tcp_cc_window_limited(&cc), tcp_cc_window(&cc));
    /* a new ACK ends it */
    tcp_cc_init(&cc, MSS, 0);
    CHECK(!tcp_cc_on_dupack(&cc, 4u * MSS, 4u * MSS, 3));
    tcp_cc_on_ack(&cc, MSS);
    CHECK_EQ(tcp_cc_window_limited(&cc), tcp_cc_window(&cc));
    /* Duplicates that start no fast retransmit (below recover after a
     * timeout) open nothing beyond the second. */
    tcp_cc_init(&cc, MSS, 0);
    tcp_cc_on_timeout(&cc, 4u * MSS, 10000);
    CHECK(!tcp_cc_on_dupack(&cc, 4u * MSS, 10000, 3));
    CHECK(!tcp_cc_on_dupack(&cc, 4u * MSS, 10000, 3));
    CHECK(!tcp_cc_on_dupack(&cc, 4u * MSS, 10000, 3));
    CHECK_EQ(cc.in_recovery, 0);
    CHECK_EQ(tcp_cc_window_limited(&cc), tcp_cc_window(&cc));
    /* a cap of 3 segments: 2 + 1, then no more */
    tcp_cc_init(&cc, MSS, 3);
    tcp_cc_on_timeout(&cc, 3u * MSS, 20000);
    tcp_cc_on_ack(&cc, MSS);
    CHECK_EQ(cc.cwnd, 2u * MSS);
    CHECK(!tcp_cc_on_dupack(&cc, 2u * MSS, 30000, 3));
    CHECK_EQ(tcp_cc_window_limited(&cc), 3u * MSS);
    CHECK(!tcp_cc_on_dupack(&cc, 3u * MSS, 30000, 3));
    CHECK_EQ(tcp_cc_window_limited(&cc), 3u * MSS);
}

int main(void)
{
    RUN(test_initial_window_by_mss);
    RUN(test_slow_start_doubles_per_rtt);
    RUN(test_slow_start_increase_is_at_most_one_mss_per_ack);
    RUN(test_congestion_avoidance_one_mss_per_rtt);
    RUN(test_slow_start_hands_over_to_avoidance);
    RUN(test_fast_retransmit_entry);
    RUN(test_ssthresh_floor_is_two_segments);
    RUN(test_new_ack_resets_duplicate_count);
    RUN(test_partial_ack_deflates);
    RUN(test_full_ack_leaves_recovery);
    RUN(test_recover_compares_modulo_2_32);
    RUN(test_timeout_to_loss_window);
    RUN(test_no_fast_retransmit_below_recover);
    RUN(test_cap_three_segments);
    RUN(test_limited_transmit_window);
    RUN(test_no_32_bit_overflow);
    return TESTING_DONE();
}
