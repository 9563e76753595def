/* TCP rules checked by scripted peers (peer_script.h), one short script
 * per rule: the handshake and close, RFC 5961's challenge ACK, answered
 * zero-window probes (RFC 1122 4.2.2.17), the half-closed FIN_WAIT_2,
 * PAWS after 24 idle days (RFC 7323 5.5), the FIN of a go-back-N resend,
 * no fast retransmit below "recover" after a timeout (RFC 6582), what a
 * TIME_WAIT record answers (RFC 9293 3.10.7.4). How long each state lasts
 * against a silent peer: test_tcp_liveness.c. */
#include "peer_script.h"

#define DAY_MS (24u * 3600u * 1000u)

/* --- RFC 9293 basics ------------------------------------------------------ */

/* 3.5: the three-way handshake from the SYN cache, data both ways with
 * delayed ACKs (RFC 1122 4.2.3.2: 200 ms here), the passive close. */
static const struct ps_step handshake_data_close[] = {
    PS_LISTEN(),
    PS_IN("S", 0, 0, .opts = MIP_TCP_HAS_MSS, .mss = 100),
    PS_OUT("S.", 0, 1, .opts = MIP_TCP_HAS_MSS, .win = APP_RING),   /* the listener's ring */
    PS_SYNCACHE(1),
    PS_IN(".", 1, 1),
    PS_SYNCACHE(0),
    PS_STATE(ESTABLISHED),
    PS_IN("P.", 1, 1, .len = 60),
    PS_NONE(),
    PS_WAIT(MIP_TCP_DELACK_MS),
    PS_OUT(".", 1, 61),
    PS_READ(60),
    PS_WRITE(30),
    PS_OUT("P.", 1, 61, .len = 30),
    PS_IN("F.", 61, 31),
    PS_OUT(".", 31, 62),
    PS_STATE(CLOSE_WAIT),
    PS_CLOSE(),
    PS_OUT("F.", 31, 62),
    PS_STATE(LAST_ACK),
    PS_IN(".", 62, 32),
    PS_STATE(CLOSED),
    PS_CLOSED(1, MIP_TCP_ERR_NONE),
    PS_TIMEWAIT(0),
};

/* RFC 5961 3.2: a RST in the window but not at RCV.NXT draws a challenge
 * ACK; the exact one resets. */
static const struct ps_step rst_in_window_challenged[] = {
    PS_PASSIVE_OPEN(100, 0),
    PS_IN("R", 50, 0),
    PS_OUT(".", 1, 1),
    PS_STATE(ESTABLISHED),
    PS_STAT(challenge_acks, 1),
    PS_IN("R", 1, 0),
    PS_NONE(),
    PS_STATE(CLOSED),
    PS_CLOSED(1, MIP_TCP_ERR_RESET),
};

/* --- zero window (RFC 9293 3.8.6.1, RFC 1122 4.2.2.17) --------------------- */

/* The gaps between probes from the persist timer's start: 300 ms
 * doubling to the 60 s maximum. */
#define GAP(i) PS_BACKOFF(MIP_TCP_RTO_MIN_MS, i)

/* Silent peers: test_tcp_liveness.c. RFC 1122 4.2.2.17: "MUST NOT close the connection as long as the
 * receiving host continues to send acknowledgments in response to the
 * probe segments": twelve answered probes (more than max_retries), then
 * silence, and the count starts from zero: 9 * 60 s. */
#define PROBE_ANSWERED(i)                                                  \
    PS_WAIT(GAP(i)), PS_OUT(".", 101, 1, .len = 1),                        \
    PS_IN(".", 1, 101, .win = PS_W(0))
static const struct ps_step persist_answered_goes_on[] = {
    PS_ZERO_WINDOW,
    PROBE_ANSWERED(0), PROBE_ANSWERED(1), PROBE_ANSWERED(2), PROBE_ANSWERED(3),
    PROBE_ANSWERED(4), PROBE_ANSWERED(5), PROBE_ANSWERED(6), PROBE_ANSWERED(7),
    PROBE_ANSWERED(8), PROBE_ANSWERED(9), PROBE_ANSWERED(10), PROBE_ANSWERED(11),
    PS_STATE(ESTABLISHED),
    PS_STAT(zero_window_probes, 12),
    PS_WAIT(9u * MIP_TCP_RTO_MAX_MS - 1u),
    PS_STATE(ESTABLISHED),
    PS_DROP(),
    PS_WAIT(1),
    PS_CLOSED(1, MIP_TCP_ERR_TIMEOUT),
    /* at the window's right edge, the peer's RCV.NXT: 102, past the
     * probe's byte, is outside its window, where a RST is dropped */
    PS_OUT("R.", 101, 1),
};

/* The peer sends data while its window stays closed to us: our ACK of it
 * goes at the window's right edge, 101, the peer's RCV.NXT. At 102, past
 * the probe's byte, the peer finds it outside its window and drops it
 * (Linux: a duplicate ACK back, and our ACK of its data lost). */
static const struct ps_step persist_ack_within_the_closed_window[] = {
    PS_ZERO_WINDOW,
    PS_WAIT(GAP(0)), PS_OUT(".", 101, 1, .len = 1),
    PS_IN("P.", 1, 101, .len = 10, .win = PS_W(0)),
    PS_WAIT(MIP_TCP_DELACK_MS),
    PS_OUT(".", 101, 11),
    PS_STATE(ESTABLISHED),
};

/* A window update ends probing; the data flows, nothing was counted
 * against the connection (its next RTO count starts from zero). */
static const struct ps_step persist_window_reopens[] = {
    PS_ZERO_WINDOW,
    PS_WAIT(GAP(0)), PS_OUT(".", 101, 1, .len = 1),
    PS_WAIT(GAP(1)), PS_OUT(".", 101, 1, .len = 1),
    PS_IN(".", 1, 102, .win = PS_W(1000)),
    PS_OUT("P.", 102, 1, .len = 99),
    PS_IN(".", 1, 201),
    PS_STATE(ESTABLISHED),
    PS_CLOSED(0, 0),
};

/* --- FIN_WAIT_2 ----------------------------------------------------------------- */

/* After mip_tcp_shutdown (half-close) the application still reads: no
 * timer ends FIN_WAIT_2, the peer's data comes in days later, and its FIN
 * ends the connection in TIME_WAIT. */
/* A FIN the pool had no buffer for goes out with the next segment that
 * comes in, not only when the retransmission timer fires: the peer's ACK
 * finds nothing unsent but the FIN (tcp_output_idle must see it). */
static struct mip_pbuf *held[MIP_PBUF_COUNT];

static void pool_take_all(struct ps *p)
{
    unsigned i;
    for (i = 0; i < MIP_PBUF_COUNT; i++)
        held[i] = mip_pbuf_alloc(&p->h->f.s->pool, 0);
}

static void pool_give_back(struct ps *p)
{
    unsigned i;
    for (i = 0; i < MIP_PBUF_COUNT; i++) {
        mip_pbuf_free(&p->h->f.s->pool, held[i]);
        held[i] = NULL;
    }
}

static const struct ps_step fin_without_buffer_goes_with_next_input[] = {
    PS_PASSIVE_OPEN(100, 0),
    PS_WRITE(30),
    PS_OUT("P.", 1, 1, .len = 30),
    PS_DO(pool_take_all),
    PS_SHUTDOWN(),
    PS_NONE(),
    PS_DO(pool_give_back),
    PS_IN(".", 1, 31),
    PS_OUT("F.", 31, 1),
    PS_STATE(FIN_WAIT_1),
};

static const struct ps_step fin_wait_2_after_shutdown_stays[] = {
    PS_PASSIVE_OPEN(100, 0),
    PS_SHUTDOWN(),
    PS_OUT("F.", 1, 1),
    PS_IN(".", 1, 2),
    PS_WAIT(3u * DAY_MS),
    PS_STATE(FIN_WAIT_2),
    PS_IN("P.", 1, 2, .len = 20),
    PS_WAIT(MIP_TCP_DELACK_MS),
    PS_OUT(".", 2, 21),
    PS_READ(20),
    PS_IN("F.", 21, 2),
    PS_OUT(".", 2, 22),
    PS_CLOSED(1, MIP_TCP_ERR_NONE),
    PS_TIMEWAIT(1),
};

/* --- PAWS after 24 idle days (defect 3) ------------------------------------ */

#if MIP_TCP_TIMESTAMPS
#define OPEN_TS                                                    \
    PS_LISTEN(),                                                           \
    PS_IN("S", 0, 0, .opts = MIP_TCP_HAS_MSS | MIP_TCP_HAS_TIMESTAMP, .mss = 100), \
    PS_OUT("S.", 0, 1, .opts = MIP_TCP_HAS_MSS | MIP_TCP_HAS_TIMESTAMP),  \
    PS_IN(".", 1, 1),                                                      \
    PS_STATE(ESTABLISHED)

/* RFC 7323 5.5: after 25 idle days the peer's timestamp (its clock at 1
 * tick per ms) lies more than 2^31 ahead of TS.Recent and looks older. It
 * was dropped by PAWS, and every later segment too; TS.Recent is invalid
 * after 24 idle days, so the segment is taken and sets TS.Recent, after
 * which PAWS works again. */
static const struct ps_step paws_after_24_idle_days[] = {
    OPEN_TS,
    PS_WAIT(25u * DAY_MS),
    PS_IN("P.", 1, 1, .len = 10),
    PS_STAT(drop_paws, 0),
    PS_WAIT(MIP_TCP_DELACK_MS),
    PS_OUT(".", 1, 11, .opts = MIP_TCP_HAS_TIMESTAMP),
    PS_READ(10),
    PS_IN("P.", 11, 1, .len = 10, .tsval = -(int32_t)DAY_MS),
    PS_STAT(drop_paws, 1),
    PS_OUT(".", 1, 11),
};

/* PAWS itself within 24 days (RFC 7323 5.3): an older TSval is dropped
 * with an ACK, a current one taken. */
static const struct ps_step paws_drops_old_timestamp[] = {
    OPEN_TS,
    PS_WAIT(23u * DAY_MS),
    PS_IN("P.", 1, 1, .len = 10, .tsval = -1),
    PS_STAT(drop_paws, 0),
    PS_IN("P.", 11, 1, .len = 10, .tsval = -2),
    PS_STAT(drop_paws, 1),
    PS_OUT(".", 1, 11),
    PS_IN("P.", 11, 1, .len = 10),
    PS_WAIT(MIP_TCP_DELACK_MS),
    PS_OUT(".", 1, 21),
    PS_READ(20),
};

/* RFC 7323 5.5: the 24-day timer after which TS.Recent is no longer
 * trusted restarts only when TS.Recent is updated. A segment dropped on
 * day 23 (by PAWS, for lying outside the window, or for lacking TSopt)
 * leaves TS.Recent as it was, so on day 25 the peer's clock is more than
 * 2^31 ms past it and only the timer, run out on day 24, lets the segment
 * in. Before 2026-11-25 (issue 12, found by fuzz/fuzz_tcp_peer.c) every
 * segment received restarted the timer, to day 47, and the day-25 segment
 * was dropped by PAWS (its ACK acknowledged nothing). */
static void test_paws_drop_does_not_restart_ts_recent_timer(void)
{
    static const struct {
        const char *name;
        struct ps_step seg, count, answer;
    } rows[] = {
        {"PAWS (TSval older than TS.Recent)",
         PS_IN("P.", 1, 1, .len = 10, .tsval = -(int32_t)(23u * DAY_MS) - 1),
         PS_STAT(drop_paws, 1), PS_OUT(".", 1, 1)},
        {"outside the window (TSval current)",
         PS_IN("P.", 60000, 1, .len = 10),
         PS_STAT(drop_out_of_window, 1), PS_OUT(".", 1, 1)},
        {"without TSopt",
         PS_IN("P.", 1, 1, .len = 10, .opts = PS_NOOPT),
         PS_STAT(drop_no_timestamp, 1), PS_NONE()},
    };
    unsigned k;
    for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        const struct ps_step steps[] = {
            OPEN_TS,
            PS_WAIT(23u * DAY_MS),
            rows[k].seg,
            rows[k].count,
            rows[k].answer,
            PS_WAIT(2u * DAY_MS),
            PS_IN("P.", 1, 1, .len = 10),
            PS_WAIT(MIP_TCP_DELACK_MS),
            PS_OUT(".", 1, 11, .opts = MIP_TCP_HAS_TIMESTAMP),
            PS_STAT(drop_paws, rows[k].count.stat == MIP_TCP_STAT_drop_paws ? 1 : 0),
            PS_READ(10),
        };
        (void)ps_run(__FILE__, rows[k].name, steps, sizeof(steps) / sizeof(steps[0]));
    }
}
#endif

/* --- the passive opener's RTT (RFC 6298 2.2, Karn) ------------------------ */

static void srtt_is_40(struct ps *p)
{
    CHECK_EQ(p->a->conn.rtt.srtt_x8, 8u * 40u);
    CHECK_EQ(tcp_rtt_rto(&p->a->conn.rtt), MIP_TCP_RTO_MIN_MS);
}

static void no_rtt_sample(struct ps *p)
{
    CHECK_EQ(p->a->conn.rtt.srtt_x8, 0);
}

/* The handshake's ACK came 40 ms after the SYN-ACK from the SYN cache: the
 * connection starts with SRTT 40 ms (before 2026-11-29 it had no sample
 * and its first data waited the initial 1 s RTO). */
static const struct ps_step passive_open_measures_the_handshake[] = {
    PS_LISTEN(),
    PS_IN("S", 0, 0, .opts = MIP_TCP_HAS_MSS, .mss = 100),
    PS_OUT("S.", 0, 1),
    PS_WAIT(40),
    PS_IN(".", 1, 1),
    PS_STATE(ESTABLISHED),
    PS_DO(srtt_is_40),
    PS_WRITE(100),
    PS_OUT("P.", 1, 1, .len = 100),
    PS_WAIT(MIP_TCP_RTO_MIN_MS - 1u),
    PS_NONE(),
    PS_WAIT(1),
    PS_OUT("P.", 1, 1, .len = 100),
};

/* The peer's SYN came again, so our SYN-ACK went twice: which one the ACK
 * answers is unknown (Karn), no sample, and the data's RTO is the
 * initial 1 s (our timer did not expire: not RFC 6298 5.7's 3 s). */
static const struct ps_step synack_sent_twice_gives_no_sample[] = {
    PS_LISTEN(),
    PS_IN("S", 0, 0, .opts = MIP_TCP_HAS_MSS, .mss = 100),
    PS_OUT("S.", 0, 1),
    PS_WAIT(40),
    PS_IN("S", 0, 0, .opts = MIP_TCP_HAS_MSS, .mss = 100),
    PS_OUT("S.", 0, 1),
    PS_WAIT(10),
    PS_IN(".", 1, 1),
    PS_STATE(ESTABLISHED),
    PS_DO(no_rtt_sample),
    PS_WRITE(100),
    PS_OUT("P.", 1, 1, .len = 100),
    PS_WAIT(MIP_TCP_RTO_INITIAL_MS - 1u),
    PS_NONE(),
    PS_WAIT(1),
    PS_OUT("P.", 1, 1, .len = 100),
};

/* --- retransmission ---------------------------------------------------------- */

/* Defect 5: the RTO rolls snd_nxt back (go-back-N); the tail sent again
 * carries the FIN that was sent with it the first time (it went without,
 * and the FIN waited for one more backed-off RTO). */
static const struct ps_step fin_resent_on_go_back_n[] = {
    PS_PASSIVE_OPEN(100, 0),
    PS_WRITE(250),
    PS_CLOSE(),
    PS_OUT(".", 1, 1, .len = 100),
    PS_OUT(".", 101, 1, .len = 100),
    PS_OUT("FP.", 201, 1, .len = 50),
    PS_DROP(),
    PS_WAIT(MIP_TCP_RTO_MIN_MS),
    PS_OUT(".", 1, 1, .len = 100),
    PS_IN(".", 1, 101),
    PS_OUT(".", 101, 1, .len = 100),
    PS_OUT("FP.", 201, 1, .len = 50),
    PS_IN(".", 1, 252),
    PS_STATE(FIN_WAIT_2),
    PS_STAT(timeouts, 1),
};

/* RFC 6582 3.2 step 2: after a timeout, recover = the highest sequence
 * number sent; duplicate ACKs below it (here: of the originals, arriving
 * late) start no fast retransmit, which would halve ssthresh again and
 * send the segment a third time. */
/* Four segments of 100 bytes, the initial window of MSS 100. */
#define FOUR_SEGMENTS                                                      \
    PS_PASSIVE_OPEN(100, 0),                                               \
    PS_WRITE(400),                                                         \
    PS_OUT(".", 1, 1, .len = 100),                                         \
    PS_OUT(".", 101, 1, .len = 100),                                       \
    PS_OUT(".", 201, 1, .len = 100),                                       \
    PS_OUT("P.", 301, 1, .len = 100)
/* The same four, with n - 400 more bytes written that wait behind cwnd. */
#define FOUR_SEGMENTS_OF(n)                                                \
    PS_PASSIVE_OPEN(100, 0),                                               \
    PS_WRITE(n),                                                           \
    PS_OUT(".", 1, 1, .len = 100),                                         \
    PS_OUT(".", 101, 1, .len = 100),                                       \
    PS_OUT(".", 201, 1, .len = 100),                                       \
    PS_OUT(".", 301, 1, .len = 100),                                       \
    PS_NONE()
static const struct ps_step no_fast_retransmit_below_recover[] = {
    FOUR_SEGMENTS,
    PS_WAIT(MIP_TCP_RTO_MIN_MS),
    PS_OUT(".", 1, 1, .len = 100),
    PS_IN(".", 1, 1),
    PS_IN(".", 1, 1),
    PS_IN(".", 1, 1),
    PS_NONE(),
    PS_STAT(fast_rexmits, 0),
    PS_IN(".", 1, 401),
    PS_NONE(),
    PS_STAT(timeouts, 1),
};

/* Three duplicate ACKs without a timeout before still make a fast
 * retransmit (RFC 5681 3.2). */
static const struct ps_step fast_retransmit_on_three_dupacks[] = {
    FOUR_SEGMENTS,
    PS_IN(".", 1, 1),
    PS_IN(".", 1, 1),
    PS_NONE(),
    PS_IN(".", 1, 1),
    PS_OUT(".", 1, 1, .len = 100),
    PS_STAT(fast_rexmits, 1),
    PS_IN(".", 1, 401),
    PS_STAT(timeouts, 0),
};

/* --- limited transmit (RFC 3042) ----------------------------------------- */

static void limited_transmit_off(struct ps *p)
{
    mip_tcp_config_default(&p->a->cfg);
    p->a->cfg.limited_transmit = false;
    p->a->use_cfg = true;
}

static void cwnd_is_four_segments(struct ps *p)
{
    CHECK_EQ(p->a->conn.cc.cwnd, 400u);
    CHECK_EQ(p->a->conn.cc.in_recovery, 0u);
}

/* The first segment of a full window is lost. The first two duplicate
 * ACKs each send one new segment, cwnd unchanged (RFC 3042 2); the third
 * starts the fast retransmit. */
static const struct ps_step limited_transmit_sends_a_segment_per_dupack[] = {
    FOUR_SEGMENTS_OF(600),
    PS_IN(".", 1, 1),
    PS_OUT(".", 401, 1, .len = 100),
    PS_NONE(),
    PS_IN(".", 1, 1),
    PS_OUT("P.", 501, 1, .len = 100),
    PS_NONE(),
    PS_DO(cwnd_is_four_segments),
    PS_IN(".", 1, 1),
    PS_OUT(".", 1, 1, .len = 100),
    PS_STAT(fast_rexmits, 1),
    PS_IN(".", 1, 601),
    PS_NONE(),
    PS_STAT(timeouts, 0),
};

/* A flight of two segments (cwnd after a timeout's slow start) loses its
 * first: its one duplicate ACK would send nothing, and the loss would
 * wait for another RTO. Limited transmit sends new data on it and on the
 * next, so that a third duplicate comes and makes a fast retransmit. */
static const struct ps_step limited_transmit_recovers_a_short_flight[] = {
    FOUR_SEGMENTS,
    PS_WAIT(MIP_TCP_RTO_MIN_MS),
    PS_OUT(".", 1, 1, .len = 100),
    PS_IN(".", 1, 401),                    /* cwnd 1 -> 2 segments */
    PS_NONE(),
    PS_WRITE(400),
    PS_OUT(".", 401, 1, .len = 100),
    PS_OUT(".", 501, 1, .len = 100),
    PS_NONE(),
    PS_IN(".", 1, 401),
    PS_OUT(".", 601, 1, .len = 100),
    PS_IN(".", 1, 401),
    PS_OUT("P.", 701, 1, .len = 100),
    PS_IN(".", 1, 401),
    PS_OUT(".", 401, 1, .len = 100),
    PS_STAT(fast_rexmits, 1),
    PS_IN(".", 1, 801),
    PS_NONE(),
    PS_STAT(timeouts, 1),
};

/* Off (mip_tcp_config.limited_transmit false): duplicate ACKs send no new
 * data before the third. */
static const struct ps_step limited_transmit_off_sends_nothing[] = {
    PS_DO(limited_transmit_off),
    FOUR_SEGMENTS_OF(600),
    PS_IN(".", 1, 1),
    PS_IN(".", 1, 1),
    PS_NONE(),
    PS_IN(".", 1, 1),
    PS_OUT(".", 1, 1, .len = 100),
    PS_STAT(fast_rexmits, 1),
};

/* Not after a timeout: the go-back-N resends of data sent before
 * (snd_nxt < snd_max) take no extra window, and duplicates below recover
 * send nothing new either. */
static const struct ps_step limited_transmit_not_during_go_back_n[] = {
    FOUR_SEGMENTS_OF(600),
    PS_WAIT(MIP_TCP_RTO_MIN_MS),
    PS_OUT(".", 1, 1, .len = 100),
    PS_IN(".", 1, 1),
    PS_NONE(),
    PS_IN(".", 1, 1),
    PS_NONE(),
    PS_STAT(timeouts, 1),
};

#if MIP_TCP_SACK
/* --- tail losses: RFC 8985 7 tail loss probe, RFC 5827 early retransmit -- */

/* A SACK connection (MSS 100) whose handshake and first 100 bytes each
 * took 50 ms: SRTT 50 ms, RTO 300 ms (the minimum), cwnd 5 segments. A probe timeout is then 2 SRTT + 2 ms = 102 ms for a flight
 * of two segments or more. */
#define SACK_OPEN_SRTT_50                                                  \
    PS_LISTEN(),                                                           \
    PS_IN("S", 0, 0, .opts = MIP_TCP_HAS_MSS | MIP_TCP_HAS_SACK_PERM, .mss = 100), \
    PS_OUT("S.", 0, 1),                                                    \
    PS_WAIT(50),                                                           \
    PS_IN(".", 1, 1),                                                      \
    PS_STATE(ESTABLISHED),                                                 \
    PS_WRITE(100),                                                         \
    PS_OUT("P.", 1, 1, .len = 100),                                        \
    PS_WAIT(50),                                                           \
    PS_IN(".", 1, 101),                                                    \
    PS_NONE()

/* Three segments, of which the peer received the first only: its ACK
 * comes 50 ms later (the tail of two is lost). */
#define THREE_SEGMENTS_FIRST_ACKED                                         \
    SACK_OPEN_SRTT_50,                                                     \
    PS_WRITE(300),                                                         \
    PS_OUT(".", 101, 1, .len = 100),                                       \
    PS_OUT(".", 201, 1, .len = 100),                                       \
    PS_OUT("P.", 301, 1, .len = 100),                                      \
    PS_WAIT(50),                                                           \
    PS_IN(".", 1, 201)

/* Two segments and no ACK: 2 SRTT + 2 ms later the probe resends the
 * second. */
#define TWO_SEGMENTS_PROBED                                                \
    SACK_OPEN_SRTT_50,                                                     \
    PS_WRITE(200),                                                         \
    PS_OUT(".", 101, 1, .len = 100),                                       \
    PS_OUT("P.", 201, 1, .len = 100),                                      \
    PS_WAIT(102),                                                          \
    PS_OUT("P.", 201, 1, .len = 100)

static void tlp_off(struct ps *p)
{
    mip_tcp_config_default(&p->a->cfg);
    p->a->cfg.tlp = false;
    p->a->use_cfg = true;
}

static void early_retransmit_off(struct ps *p)
{
    mip_tcp_config_default(&p->a->cfg);
    p->a->cfg.early_retransmit = false;
    p->a->use_cfg = true;
}

static void episode_closed(struct ps *p)
{
    CHECK(p->h->tcp.tlp_conn == NULL);
}

static void episode_open(struct ps *p)
{
    CHECK(p->h->tcp.tlp_conn == &p->a->conn);
}

/* No loss said: cwnd grew by slow start (5 segments, +1 for the ACK of
 * the probed flight), ssthresh untouched. */
static void cwnd_not_reduced(struct ps *p)
{
    CHECK_EQ(p->a->conn.cc.cwnd, 600u);
    CHECK_EQ(p->a->conn.cc.ssthresh, 0xFFFFFFFFu);
}

/* A loss the probe repaired (7.4.2): ssthresh = max(flight / 2, 2 SMSS),
 * cwnd = ssthresh, the flight of one segment when the ACK came. */
static void cwnd_reduced(struct ps *p)
{
    CHECK_EQ(p->a->conn.cc.ssthresh, 200u);
    CHECK_EQ(p->a->conn.cc.cwnd, 200u);
}

/* The last two segments of three are lost. Two SRTTs after the ACK of
 * the first, the probe resends the last; the peer's SACK of it is one
 * duplicate ACK, and with two segments out early retransmit needs just
 * that one to resend the other: no RTO. */
static const struct ps_step tlp_probe_draws_sack_for_early_retransmit[] = {
    THREE_SEGMENTS_FIRST_ACKED,
    PS_NONE(),
    PS_WAIT(101),
    PS_NONE(),
    PS_WAIT(1),
    PS_OUT("P.", 301, 1, .len = 100),
    PS_STAT(tlp_probes, 1),
    PS_DO(episode_open),
    PS_IN(".", 1, 201, .opts = MIP_TCP_HAS_SACK, .nsack = 1, .sack = { { 301, 401 } }),
    PS_OUT(".", 201, 1, .len = 100),
    PS_STAT(early_rexmits, 1),
    PS_STAT(fast_rexmits, 1),
    PS_DO(episode_closed),          /* fast recovery took over */
    PS_IN(".", 1, 401),
    PS_NONE(),
    PS_STAT(timeouts, 0),
    PS_STAT(tlp_losses, 0),
};

/* Without the probe the same tail waits for the RTO (300 ms from the
 * ACK), and its go-back-N. */
static const struct ps_step tlp_off_waits_for_the_rto[] = {
    PS_DO(tlp_off),
    THREE_SEGMENTS_FIRST_ACKED,
    PS_WAIT(299),
    PS_NONE(),
    PS_WAIT(1),
    PS_OUT(".", 201, 1, .len = 100),
    PS_STAT(timeouts, 1),
    PS_STAT(tlp_probes, 0),
};

/* Early retransmit off: the probe's SACK is one duplicate ACK of three,
 * and the RTO (300 ms after the probe, 7.3) repairs the tail. */
static const struct ps_step early_retransmit_off_waits_for_three[] = {
    PS_DO(early_retransmit_off),
    THREE_SEGMENTS_FIRST_ACKED,
    PS_WAIT(102),
    PS_OUT("P.", 301, 1, .len = 100),
    PS_IN(".", 1, 201, .opts = MIP_TCP_HAS_SACK, .nsack = 1, .sack = { { 301, 401 } }),
    PS_NONE(),
    PS_WAIT(299),
    PS_NONE(),
    PS_WAIT(1),
    PS_OUT(".", 201, 1, .len = 100),
    PS_STAT(timeouts, 1),
    PS_STAT(fast_rexmits, 0),
};

/* The first of two segments arrived and its ACK was lost; the second was
 * lost. The probe resends the second and fills the hole: the peer ACKs
 * all. That ACK alone cannot tell a filled hole from a delayed ACK, so
 * the episode stays open; the next ACK beyond the probe, with no D-SACK
 * on the way, says the probe repaired a loss: cwnd is reduced as by a
 * fast recovery (7.4.2). */
static const struct ps_step tlp_probe_repairing_a_loss_reduces_cwnd[] = {
    TWO_SEGMENTS_PROBED,
    PS_IN(".", 1, 301),
    PS_NONE(),
    PS_DO(episode_open),
    PS_STAT(tlp_losses, 0),
    PS_WRITE(100),
    PS_OUT("P.", 301, 1, .len = 100),
    PS_IN(".", 1, 401),
    PS_STAT(tlp_losses, 1),
    PS_DO(cwnd_reduced),
    PS_DO(episode_closed),
    PS_STAT(timeouts, 0),
};

/* Both segments arrived and both ACKs were lost: the probe is a
 * duplicate, and the peer's D-SACK of it (RFC 2883) says so; no loss, no
 * cwnd reduction (7.4.2). */
static const struct ps_step tlp_probe_answered_by_dsack_keeps_cwnd[] = {
    TWO_SEGMENTS_PROBED,
    PS_IN(".", 1, 301, .opts = MIP_TCP_HAS_SACK, .nsack = 1, .sack = { { 201, 301 } }),
    PS_NONE(),
    PS_DO(episode_closed),
    PS_DO(cwnd_not_reduced),
    PS_STAT(tlp_losses, 0),
};

/* A link faster than the clock: the handshake and the first ACK take 0
 * ms, so SRTT is 0, which is a sample all the same. Two segments and no
 * ACK: the probe comes at the 10 ms floor. */
static const struct ps_step tlp_probe_on_a_sub_millisecond_link[] = {
    PS_LISTEN(),
    PS_IN("S", 0, 0, .opts = MIP_TCP_HAS_MSS | MIP_TCP_HAS_SACK_PERM, .mss = 100),
    PS_OUT("S.", 0, 1),
    PS_IN(".", 1, 1),
    PS_WRITE(100),
    PS_OUT("P.", 1, 1, .len = 100),
    PS_IN(".", 1, 101),
    PS_WRITE(200),
    PS_OUT(".", 101, 1, .len = 100),
    PS_OUT("P.", 201, 1, .len = 100),
    PS_WAIT(9),
    PS_NONE(),
    PS_WAIT(1),
    PS_OUT("P.", 201, 1, .len = 100),
    PS_STAT(tlp_probes, 1),
};

/* With bytes written that cwnd holds back, the probe is new data beyond
 * cwnd (7.3: the peer's window allows it), not a retransmission; its ACK
 * ends the episode with no loss to answer. */
static const struct ps_step tlp_probe_sends_new_data_first[] = {
    SACK_OPEN_SRTT_50,
    PS_WRITE(700),
    PS_OUT(".", 101, 1, .len = 100),
    PS_OUT(".", 201, 1, .len = 100),
    PS_OUT(".", 301, 1, .len = 100),
    PS_OUT(".", 401, 1, .len = 100),
    PS_OUT(".", 501, 1, .len = 100),
    PS_NONE(),
    PS_WAIT(102),
    PS_OUT(".", 601, 1, .len = 100),
    PS_NONE(),
    PS_STAT(tlp_probes, 1),
    PS_STAT(rexmits, 0),
    PS_DO(episode_open),
    PS_IN(".", 1, 701),
    PS_OUT("P.", 701, 1, .len = 100),
    PS_DO(episode_closed),
    PS_STAT(tlp_losses, 0),
    PS_STAT(timeouts, 0),
};
#endif

/* --- TIME_WAIT (RFC 9293 3.10.7.4) --------------------------------------- */

/* An acceptable empty segment (the peer's ACK again) is not answered: two
 * records would ACK each other's ACKs (test_tcp_states.c). The peer's
 * FIN again, and segments outside the window, are. */
static const struct ps_step timewait_answers[] = {
    PS_ACTIVE_CLOSE,
    PS_IN(".", 2, 2),
    PS_NONE(),
    PS_STAT(dup_segs, 1),
    PS_IN(".", 5000, 2),
    PS_OUT(".", 2, 2),
    PS_IN("F.", 1, 2),
    PS_OUT(".", 2, 2),
    PS_IN("R.", 2, 2),
    PS_NONE(),
    PS_TIMEWAIT(1),
};

int main(void)
{
    RUN_SCRIPT(handshake_data_close);
    RUN_SCRIPT(rst_in_window_challenged);
    RUN_SCRIPT(persist_answered_goes_on);
    RUN_SCRIPT(persist_ack_within_the_closed_window);
    RUN_SCRIPT(persist_window_reopens);
    RUN_SCRIPT(fin_wait_2_after_shutdown_stays);
    RUN_SCRIPT(fin_without_buffer_goes_with_next_input);
#if MIP_TCP_TIMESTAMPS
    RUN_SCRIPT(paws_after_24_idle_days);
    RUN_SCRIPT(paws_drops_old_timestamp);
    RUN(test_paws_drop_does_not_restart_ts_recent_timer);
#endif
    RUN_SCRIPT(passive_open_measures_the_handshake);
    RUN_SCRIPT(synack_sent_twice_gives_no_sample);
    RUN_SCRIPT(fin_resent_on_go_back_n);
    RUN_SCRIPT(no_fast_retransmit_below_recover);
    RUN_SCRIPT(fast_retransmit_on_three_dupacks);
    RUN_SCRIPT(limited_transmit_sends_a_segment_per_dupack);
    RUN_SCRIPT(limited_transmit_recovers_a_short_flight);
    RUN_SCRIPT(limited_transmit_off_sends_nothing);
    RUN_SCRIPT(limited_transmit_not_during_go_back_n);
#if MIP_TCP_SACK
    RUN_SCRIPT(tlp_probe_draws_sack_for_early_retransmit);
    RUN_SCRIPT(tlp_off_waits_for_the_rto);
    RUN_SCRIPT(early_retransmit_off_waits_for_three);
    RUN_SCRIPT(tlp_probe_repairing_a_loss_reduces_cwnd);
    RUN_SCRIPT(tlp_probe_answered_by_dsack_keeps_cwnd);
    RUN_SCRIPT(tlp_probe_sends_new_data_first);
    RUN_SCRIPT(tlp_probe_on_a_sub_millisecond_link);
#endif
    RUN_SCRIPT(timewait_answers);
    return TESTING_DONE();
}
