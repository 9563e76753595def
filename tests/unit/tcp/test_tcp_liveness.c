/* Liveness, the promise of docs/TCP.md "Liveness": one scripted peer
 * (peer_script.h) per row of its table. The peer goes silent (or turns
 * hostile) in the state; the script checks the connection is still there
 * 1 ms before the documented bound, and CLOSED with its `closed` callback
 * (and the RST that tells the peer) at the bound. The bounds are computed
 * from the defaults: an initial RTO of 1 s (no RTT sample: a handshake
 * not yet done), 300 ms after a sample of a fast link (a passive opener
 * takes one from its handshake), doubling to 60 s; MIP_TCP_SYN_RETRIES 5,
 * max_retries 8; keepalive 4 probes; MIP_TCP_FIN_WAIT_2_MS; 2 MSL. */
#include "peer_script.h"

#define DAY_MS (24u * 3600u * 1000u)
#define KEEPALIVE_MS 10000u
/* The handshake: the SYN (SYN-ACK) and 5 copies 1, 2, 4, 8, 16 s apart,
 * given up 32 s after the last: 63 s. */
#define HANDSHAKE_BOUND PS_BACKOFF_SUM6(MIP_TCP_RTO_INITIAL_MS)
/* A segment sent at the RTO of a fast link (the passive opener measured
 * the handshake: 300 ms) and 8 copies: 0.3 + 0.6 + ... + 38.4 + 60 =
 * 136.5 s. */
#define DATA_BOUND PS_BACKOFF_SUM9(MIP_TCP_RTO_MIN_MS)
/* Keepalive: the first probe after KEEPALIVE_MS, three more a quarter of
 * it apart, the abort a quarter after the last: 2 * KEEPALIVE_MS. */
#define KEEPALIVE_BOUND (2u * KEEPALIVE_MS)

static void keepalive_on(struct ps *p)
{
    mip_tcp_config_default(&p->a->cfg);
    p->a->cfg.keepalive_ms = KEEPALIVE_MS;
    p->a->use_cfg = true;
}

/* The bound is reached: 1 ms before it the connection is in `st`, at it
 * the connection is closed with `err`. */
#define BOUND(ms, st, err)                                                 \
    PS_WAIT((ms) - 1u),                                                    \
    PS_STATE(st),                                                          \
    PS_CLOSED(0, 0),                                                       \
    PS_DROP(),                                                             \
    PS_WAIT(1),                                                            \
    PS_STATE(CLOSED),                                                      \
    PS_CLOSED(1, err)

/* Keepalive ends it: the 4 probes (`seq` is SND.UNA - 1, `ack` RCV.NXT,
 * relative), then the RST at the bound, 2 * KEEPALIVE_MS after the last
 * segment from the peer. */
#define KEEPALIVE_ENDS(seq, ack, st)                                       \
    PS_WAIT(KEEPALIVE_MS),                                                 \
    PS_OUT(".", seq, ack),                                                 \
    PS_WAIT(KEEPALIVE_MS / 4u),                                            \
    PS_OUT(".", seq, ack),                                                 \
    PS_WAIT(KEEPALIVE_MS / 4u),                                            \
    PS_OUT(".", seq, ack),                                                 \
    PS_WAIT(KEEPALIVE_MS / 4u),                                            \
    PS_OUT(".", seq, ack),                                                 \
    BOUND(KEEPALIVE_MS / 4u, st, MIP_TCP_ERR_KEEPALIVE)

/* SYN_SENT: the SYN and its copies, then MIP_TCP_ERR_TIMEOUT (no RST: the
 * peer never answered). */
static const struct ps_step syn_sent_silent[] = {
    PS_CONNECT(),
    PS_OUT("S", 0, 0),
    BOUND(HANDSHAKE_BOUND, SYN_SENT, MIP_TCP_ERR_TIMEOUT),
    PS_NONE(),
    PS_STAT(conns_timed_out, 1),
};

/* A SYN cache entry (SYN_RECEIVED of a passive open): the SYN-ACK and its
 * copies, then the entry is freed; no connection memory was ever taken, so
 * there is no callback. The peer sending its SYN again does not put the
 * end off; its ACK after the end draws RST. */
static const struct ps_step syn_cache_entry_silent[] = {
    PS_LISTEN(),
    PS_IN("S", 0, 0),
    PS_OUT("S.", 0, 1),
    PS_WAIT(HANDSHAKE_BOUND / 2u),
    PS_DROP(),
    PS_IN("S", 0, 0),
    PS_OUT("S.", 0, 1),
    PS_WAIT(HANDSHAKE_BOUND - HANDSHAKE_BOUND / 2u - 1u),
    PS_SYNCACHE(1),
    PS_WAIT(1),
    PS_SYNCACHE(0),
    PS_DROP(),
    PS_IN(".", 1, 1),
    PS_OUT("R", 1, 0),
    PS_STATE(CLOSED),
    PS_CLOSED(0, 0),
};

/* SYN_RECEIVED of a simultaneous open: the SYN-ACK and its copies, as a
 * SYN. */
static const struct ps_step syn_received_silent[] = {
    PS_CONNECT(),
    PS_OUT("S", 0, 0),
    PS_IN("S", 0, 0),
    PS_OUT("S.", 0, 1),
    PS_STATE(SYN_RECEIVED),
    BOUND(HANDSHAKE_BOUND, SYN_RECEIVED, MIP_TCP_ERR_TIMEOUT),
    PS_NONE(),
};

/* ESTABLISHED with data outstanding: the segment and 8 copies, then RST. */
static const struct ps_step established_data_silent[] = {
    PS_PASSIVE_OPEN(100, 0),
    PS_WRITE(10),
    PS_OUT("P.", 1, 1, .len = 10),
    BOUND(DATA_BOUND, ESTABLISHED, MIP_TCP_ERR_TIMEOUT),
    PS_OUT("R.", 11, 1),
    PS_STAT(timeouts, 8),
};

/* ESTABLISHED, zero window: 8 unanswered probes (from the 300 ms RTO of a
 * fast link), then RST: 136.5 s (defect 1 of issue 12: it probed for
 * ever). A peer that answers the probes keeps it (test_tcp_scripts.c). */
static const struct ps_step established_zero_window_silent[] = {
    PS_ZERO_WINDOW,
    BOUND(PS_BACKOFF_SUM9(MIP_TCP_RTO_MIN_MS), ESTABLISHED, MIP_TCP_ERR_TIMEOUT),
    PS_OUT("R.", 101, 1),       /* the window's edge, not past the probe */
    PS_STAT(zero_window_probes, 8),
    PS_STAT(conns_timed_out, 1),
};

/* ESTABLISHED, idle, keepalive on: 4 probes (seq = snd_una - 1), then RST. */
static const struct ps_step established_idle_keepalive[] = {
    PS_DO(keepalive_on),
    PS_PASSIVE_OPEN(100, 0),
    KEEPALIVE_ENDS(0, 1, ESTABLISHED),
    PS_OUT("R.", 1, 1),
    PS_STAT(keepalives, 4),
};

/* ESTABLISHED, idle, keepalive off: nothing ends it, as nothing should
 * (RFC 9293: idle connections are kept); the application decides. 40
 * days later the peer's data is taken. */
static const struct ps_step established_idle_no_keepalive[] = {
    PS_PASSIVE_OPEN(100, 0),
    PS_WAIT(40u * DAY_MS),
    PS_STATE(ESTABLISHED),
    PS_NONE(),
    PS_IN("P.", 1, 1, .len = 10),
    PS_WAIT(MIP_TCP_DELACK_MS),
    PS_OUT(".", 1, 11),
    PS_READ(10),
    PS_CLOSED(0, 0),
};

#if MIP_TCP_TIMESTAMPS
/* The same with timestamps: the 24-day PAWS timer (RFC 7323 5.5) runs
 * twice, ends nothing, and the peer's data after 60 days is taken. */
static const struct ps_step established_idle_timestamps[] = {
    PS_LISTEN(),
    PS_IN("S", 0, 0, .opts = MIP_TCP_HAS_MSS | MIP_TCP_HAS_TIMESTAMP, .mss = 100),
    PS_OUT("S.", 0, 1, .opts = MIP_TCP_HAS_MSS | MIP_TCP_HAS_TIMESTAMP),
    PS_IN(".", 1, 1),
    PS_WAIT(60u * DAY_MS),
    PS_STATE(ESTABLISHED),
    PS_NONE(),
    PS_IN("P.", 1, 1, .len = 10),
    PS_WAIT(MIP_TCP_DELACK_MS),
    PS_OUT(".", 1, 11),
    PS_STAT(drop_paws, 0),
    PS_CLOSED(0, 0),
};
#endif

/* FIN_WAIT_1: our FIN and 8 copies, then RST. */
static const struct ps_step fin_wait_1_silent[] = {
    PS_PASSIVE_OPEN(100, 0),
    PS_CLOSE(),
    PS_OUT("F.", 1, 1),
    BOUND(DATA_BOUND, FIN_WAIT_1, MIP_TCP_ERR_TIMEOUT),
    PS_OUT("R.", 2, 1),
};

#if MIP_TCP_FIN_WAIT_2_MS
/* FIN_WAIT_2 after mip_tcp_close: MIP_TCP_FIN_WAIT_2_MS after the ACK of
 * our FIN (defect 2 of issue 12: it waited for ever); the peer's data on
 * the way is ACKed and dropped and does not put the end off. */
static const struct ps_step fin_wait_2_after_close_silent[] = {
    PS_PASSIVE_OPEN(100, 0),
    PS_CLOSE(),
    PS_OUT("F.", 1, 1),
    PS_IN(".", 1, 2),
    PS_STATE(FIN_WAIT_2),
    PS_WAIT(MIP_TCP_FIN_WAIT_2_MS / 2u),
    /* A bare ACK does not restart the timer (data would draw RST: the
     * application closed, RFC 1122 4.2.2.13). */
    PS_IN(".", 1, 2),
    PS_NONE(),
    BOUND(MIP_TCP_FIN_WAIT_2_MS / 2u, FIN_WAIT_2, MIP_TCP_ERR_TIMEOUT),
    PS_OUT("R.", 2, 1),
    PS_STAT(conns_timed_out, 1),
};
#endif

/* FIN_WAIT_2 after mip_tcp_shutdown (the application still reads), with
 * keepalive on: probed as ESTABLISHED is (it was not probed before: the
 * half-closed connection of a vanished peer stayed for ever). With
 * keepalive off it stays until the application ends it
 * (test_tcp_scripts.c fin_wait_2_after_shutdown_stays). */
static const struct ps_step fin_wait_2_after_shutdown_keepalive[] = {
    PS_DO(keepalive_on),
    PS_PASSIVE_OPEN(100, 0),
    PS_SHUTDOWN(),
    PS_OUT("F.", 1, 1),
    PS_IN(".", 1, 2),
    KEEPALIVE_ENDS(1, 1, FIN_WAIT_2),
    PS_OUT("R.", 2, 1),
};

/* CLOSING (the FINs crossed, ours unacknowledged): our FIN and 8 copies,
 * counted from the FIN; then RST. */
static const struct ps_step closing_silent[] = {
    PS_PASSIVE_OPEN(100, 0),
    PS_CLOSE(),
    PS_OUT("F.", 1, 1),
    PS_IN("F.", 1, 1),
    PS_OUT(".", 2, 2),
    BOUND(DATA_BOUND, CLOSING, MIP_TCP_ERR_TIMEOUT),
    PS_OUT("R.", 2, 2),
};

/* LAST_ACK: our FIN and 8 copies, then RST. */
static const struct ps_step last_ack_silent[] = {
    PS_PASSIVE_OPEN(100, 0),
    PS_IN("F.", 1, 1),
    PS_OUT(".", 1, 2),
    PS_CLOSE(),
    PS_OUT("F.", 1, 2),
    BOUND(DATA_BOUND, LAST_ACK, MIP_TCP_ERR_TIMEOUT),
    PS_OUT("R.", 2, 2),
};

/* CLOSE_WAIT: the peer has closed, the application has not: keepalive (on
 * here) bounds it as ESTABLISHED; with keepalive off the application
 * decides, as for an idle ESTABLISHED connection. */
static const struct ps_step close_wait_keepalive[] = {
    PS_DO(keepalive_on),
    PS_PASSIVE_OPEN(100, 0),
    PS_IN("F.", 1, 1),
    PS_OUT(".", 1, 2),
    KEEPALIVE_ENDS(0, 2, CLOSE_WAIT),
    PS_OUT("R.", 1, 2),
};

static const struct ps_step close_wait_no_keepalive[] = {
    PS_PASSIVE_OPEN(100, 0),
    PS_IN("F.", 1, 1),
    PS_OUT(".", 1, 2),
    PS_WAIT(40u * DAY_MS),
    PS_STATE(CLOSE_WAIT),
    PS_NONE(),
    PS_CLOSE(),
    PS_OUT("F.", 1, 2),
    PS_IN(".", 2, 2),
    PS_CLOSED(1, MIP_TCP_ERR_NONE),
};

/* TIME_WAIT record: 2 MSL after the last ACK; a FIN that is not the
 * peer's FIN again (it does not end at RCV.NXT) is answered but does not
 * put the end off; the peer's FIN again does, by 2 MSL from it. */
static const struct ps_step time_wait_record[] = {
    PS_ACTIVE_CLOSE,
    PS_WAIT(MIP_TCP_MSL_MS),
    PS_IN("F.", 50, 2),
    PS_OUT(".", 2, 2),
    PS_WAIT(MIP_TCP_MSL_MS - 1u),
    PS_TIMEWAIT(1),
    PS_WAIT(1),
    PS_TIMEWAIT(0),
    PS_IN(".", 2, 2),
    PS_OUT("R", 2, 0),
};

static const struct ps_step time_wait_restarted_by_fin[] = {
    PS_ACTIVE_CLOSE,
    PS_WAIT(MIP_TCP_MSL_MS),
    PS_IN("F.", 1, 2),
    PS_OUT(".", 2, 2),
    PS_WAIT(2u * MIP_TCP_MSL_MS - 1u),
    PS_TIMEWAIT(1),
    PS_WAIT(1),
    PS_TIMEWAIT(0),
};

int main(void)
{
    RUN_SCRIPT(syn_sent_silent);
    RUN_SCRIPT(syn_cache_entry_silent);
    RUN_SCRIPT(syn_received_silent);
    RUN_SCRIPT(established_data_silent);
    RUN_SCRIPT(established_zero_window_silent);
    RUN_SCRIPT(established_idle_keepalive);
    RUN_SCRIPT(established_idle_no_keepalive);
#if MIP_TCP_TIMESTAMPS
    RUN_SCRIPT(established_idle_timestamps);
#endif
    RUN_SCRIPT(fin_wait_1_silent);
#if MIP_TCP_FIN_WAIT_2_MS
    RUN_SCRIPT(fin_wait_2_after_close_silent);
#endif
    RUN_SCRIPT(fin_wait_2_after_shutdown_keepalive);
    RUN_SCRIPT(closing_silent);
    RUN_SCRIPT(last_ack_silent);
    RUN_SCRIPT(close_wait_keepalive);
    RUN_SCRIPT(close_wait_no_keepalive);
    RUN_SCRIPT(time_wait_record);
    RUN_SCRIPT(time_wait_restarted_by_fin);
    return TESTING_DONE();
}
