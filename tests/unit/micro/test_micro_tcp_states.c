/* The micro profile's tcp_in, one row per RFC 9293 state move it makes
 * (issue 29: a guard for later size and speed passes on a function byte-
 * shaved for the AVR budget). Each row puts a connection in a state, gives
 * it one segment, and names everything that must follow: the state after,
 * the flags of the answer (0: none), the counter that moves (if any), and
 * the event the application gets (if any). A change that alters any move
 * fails its row by name. */
#include "micro_fixture.h"

#define SYN MIP_TCP_SYN
#define ACK MIP_TCP_ACK
#define FIN MIP_TCP_FIN
#define RST MIP_TCP_RST

/* Where a row starts. */
enum start {
    AT_LISTEN,          /* a listener on PORT, no connection */
    AT_NOTHING,         /* no listener, no connection */
    AT_SYN_SENT,        /* mip_micro_connect, the SYN sent */
    AT_SYN_RCVD,        /* the peer's SYN taken, our SYN-ACK sent */
    AT_ESTABLISHED,
    AT_FIN_WAIT_1,      /* we closed: our FIN in flight */
    AT_FIN_WAIT_2,      /* ... and ACKed */
    AT_CLOSING,         /* their FIN crossed ours */
    AT_TIME_WAIT,
    AT_LAST_ACK         /* they closed first; our FIN in flight */
};

/* The segment's sequence and acknowledgement numbers, relative to the
 * connection: NXT = what the node expects next (RCV.NXT), UNA = what it has
 * not had ACKed (SND.UNA), END = SND.NXT (all in flight ACKed). */
enum seqv { SEQ_NXT, SEQ_AHEAD, SEQ_OLD, SEQ_NEAR, SEQ_FAR, SEQ_ZERO };
enum ackv { ACK_NONE, ACK_UNA, ACK_END, ACK_PAST, ACK_LOW };

struct row {
    const char *name;
    enum start at;
    uint8_t flags;
    enum seqv seq;
    enum ackv ack;
    uint8_t dlen;
    uint8_t state_after;
    uint8_t reply;          /* the answer's flags; 0: no answer */
    int counter;            /* MIP_MICRO_STAT_*, -1: none moves */
    uint8_t event;          /* the application's last new event; 0: none */
};

#define NONE (-1)
#define ST(x) MIP_MICRO_##x
#define CNT(x) MIP_MICRO_STAT_##x
#define EV(x) MIP_MICRO_EV_##x

static const struct row rows[] = {
    /* LISTEN (RFC 9293 3.10.7.2) */
    { "listen: SYN opens, SYN-ACK", AT_LISTEN, SYN, SEQ_ZERO, ACK_NONE, 0,
      ST(SYN_RCVD), SYN | ACK, NONE, 0 },
    { "listen: ACK draws RST", AT_LISTEN, ACK, SEQ_ZERO, ACK_UNA, 0,
      ST(CLOSED), RST, CNT(tcp_rst_tx), 0 },
    { "listen: RST is dropped", AT_LISTEN, RST, SEQ_ZERO, ACK_NONE, 0,
      ST(CLOSED), 0, CNT(drop_tcp_rst), 0 },
    { "listen: SYN-ACK draws RST", AT_LISTEN, SYN | ACK, SEQ_ZERO, ACK_UNA, 0,
      ST(CLOSED), RST, CNT(tcp_rst_tx), 0 },
    /* CLOSED (3.10.7.1) */
    { "closed: SYN draws RST-ACK", AT_NOTHING, SYN, SEQ_ZERO, ACK_NONE, 0,
      ST(CLOSED), RST | ACK, CNT(tcp_rst_tx), 0 },
    { "closed: data draws RST-ACK", AT_NOTHING, 0, SEQ_ZERO, ACK_NONE, 5,
      ST(CLOSED), RST | ACK, CNT(tcp_rst_tx), 0 },
    /* SYN-SENT (3.10.7.3) */
    { "syn-sent: SYN-ACK for our SYN establishes", AT_SYN_SENT, SYN | ACK, SEQ_ZERO, ACK_END, 0,
      ST(ESTABLISHED), ACK, NONE, EV(CONNECTED) },
    { "syn-sent: SYN alone (simultaneous open)", AT_SYN_SENT, SYN, SEQ_ZERO, ACK_NONE, 0,
      ST(SYN_RCVD), SYN | ACK, NONE, 0 },
    { "syn-sent: a wrong ACK draws RST", AT_SYN_SENT, SYN | ACK, SEQ_ZERO, ACK_PAST, 0,
      ST(SYN_SENT), RST, CNT(tcp_rst_tx), 0 },
    { "syn-sent: RST with our ACK aborts", AT_SYN_SENT, RST | ACK, SEQ_ZERO, ACK_END, 0,
      ST(CLOSED), 0, NONE, EV(ABORTED) },
    { "syn-sent: RST without ACK is dropped", AT_SYN_SENT, RST, SEQ_ZERO, ACK_NONE, 0,
      ST(SYN_SENT), 0, CNT(drop_tcp_rst), 0 },
    { "syn-sent: RST with a wrong ACK is dropped", AT_SYN_SENT, RST | ACK, SEQ_ZERO, ACK_PAST, 0,
      ST(SYN_SENT), 0, CNT(drop_tcp_rst), 0 },
    { "syn-sent: ACK alone is dropped", AT_SYN_SENT, ACK, SEQ_ZERO, ACK_END, 0,
      ST(SYN_SENT), 0, CNT(drop_tcp_state), 0 },
    /* SYN-RECEIVED */
    { "syn-rcvd: the ACK of our SYN-ACK establishes", AT_SYN_RCVD, ACK, SEQ_NXT, ACK_END, 0,
      ST(ESTABLISHED), 0, NONE, EV(CONNECTED) },
    { "syn-rcvd: their SYN again: SYN-ACK again", AT_SYN_RCVD, SYN, SEQ_OLD, ACK_NONE, 0,
      ST(SYN_RCVD), SYN | ACK, NONE, 0 },
    { "syn-rcvd: an ACK of nothing we sent: challenge", AT_SYN_RCVD, ACK, SEQ_NXT, ACK_PAST, 0,
      ST(SYN_RCVD), ACK, CNT(drop_tcp_ack), 0 },
    { "syn-rcvd: an ACK of no new data is dropped", AT_SYN_RCVD, ACK, SEQ_NXT, ACK_UNA, 0,
      ST(SYN_RCVD), 0, CNT(drop_tcp_state), 0 },
    { "syn-rcvd: RST at RCV.NXT aborts", AT_SYN_RCVD, RST, SEQ_NXT, ACK_NONE, 0,
      ST(CLOSED), 0, NONE, 0 },
    /* ESTABLISHED */
    { "established: data in order is taken and ACKed", AT_ESTABLISHED, ACK, SEQ_NXT, ACK_UNA, 5,
      ST(ESTABLISHED), ACK, NONE, EV(NEWDATA) },
    { "established: data out of order: ACK, dropped", AT_ESTABLISHED, ACK, SEQ_AHEAD, ACK_UNA, 5,
      ST(ESTABLISHED), ACK, CNT(drop_tcp_seq), 0 },
    { "established: old data: ACK, dropped", AT_ESTABLISHED, ACK, SEQ_OLD, ACK_UNA, 5,
      ST(ESTABLISHED), ACK, CNT(drop_tcp_seq), 0 },
    { "established: no ACK bit is dropped", AT_ESTABLISHED, 0, SEQ_NXT, ACK_NONE, 5,
      ST(ESTABLISHED), 0, CNT(drop_tcp_state), 0 },
    { "established: an ACK past SND.NXT: challenge", AT_ESTABLISHED, ACK, SEQ_NXT, ACK_PAST, 0,
      ST(ESTABLISHED), ACK, CNT(drop_tcp_ack), 0 },
    { "established: an ACK too far back: challenge", AT_ESTABLISHED, ACK, SEQ_NXT, ACK_LOW, 0,
      ST(ESTABLISHED), ACK, CNT(drop_tcp_ack), 0 },
    { "established: RST at RCV.NXT aborts", AT_ESTABLISHED, RST, SEQ_NXT, ACK_NONE, 0,
      ST(CLOSED), 0, NONE, EV(ABORTED) },
    { "established: RST in the window: challenge", AT_ESTABLISHED, RST, SEQ_NEAR, ACK_NONE, 0,
      ST(ESTABLISHED), ACK, CNT(drop_tcp_rst), 0 },
    { "established: RST outside the window: dropped", AT_ESTABLISHED, RST, SEQ_FAR, ACK_NONE, 0,
      ST(ESTABLISHED), 0, CNT(drop_tcp_rst), 0 },
    { "established: SYN: challenge", AT_ESTABLISHED, SYN, SEQ_NXT, ACK_NONE, 0,
      ST(ESTABLISHED), ACK, CNT(drop_tcp_syn), 0 },
    { "established: FIN: our FIN with the ACK (no half-close)", AT_ESTABLISHED, FIN | ACK,
      SEQ_NXT, ACK_UNA, 0, ST(LAST_ACK), FIN | ACK, NONE, EV(CLOSED) },
    /* FIN-WAIT-1 */
    { "fin-wait-1: the ACK of our FIN", AT_FIN_WAIT_1, ACK, SEQ_NXT, ACK_END, 0,
      ST(FIN_WAIT_2), 0, NONE, 0 },
    { "fin-wait-1: their FIN crosses ours", AT_FIN_WAIT_1, FIN | ACK, SEQ_NXT, ACK_UNA, 0,
      ST(CLOSING), ACK, NONE, EV(CLOSED) },
    { "fin-wait-1: their FIN with the ACK of ours", AT_FIN_WAIT_1, FIN | ACK, SEQ_NXT, ACK_END, 0,
      ST(TIME_WAIT), ACK, NONE, EV(CLOSED) },
    { "fin-wait-1: data is still taken", AT_FIN_WAIT_1, ACK, SEQ_NXT, ACK_UNA, 5,
      ST(FIN_WAIT_1), ACK, NONE, EV(NEWDATA) },
    /* FIN-WAIT-2 */
    { "fin-wait-2: their FIN", AT_FIN_WAIT_2, FIN | ACK, SEQ_NXT, ACK_UNA, 0,
      ST(TIME_WAIT), ACK, NONE, EV(CLOSED) },
    { "fin-wait-2: data is taken", AT_FIN_WAIT_2, ACK, SEQ_NXT, ACK_UNA, 5,
      ST(FIN_WAIT_2), ACK, NONE, EV(NEWDATA) },
    { "fin-wait-2: RST at RCV.NXT aborts", AT_FIN_WAIT_2, RST, SEQ_NXT, ACK_NONE, 0,
      ST(CLOSED), 0, NONE, EV(ABORTED) },
    /* CLOSING, TIME-WAIT, LAST-ACK */
    { "closing: the ACK of our FIN", AT_CLOSING, ACK, SEQ_NXT, ACK_END, 0,
      ST(TIME_WAIT), 0, NONE, 0 },
    { "closing: an ACK of nothing new changes nothing", AT_CLOSING, ACK, SEQ_NXT, ACK_UNA, 0,
      ST(CLOSING), 0, NONE, 0 },
    { "time-wait: their FIN again is ACKed again", AT_TIME_WAIT, FIN | ACK, SEQ_OLD, ACK_UNA, 0,
      ST(TIME_WAIT), ACK, CNT(drop_tcp_seq), 0 },
    { "time-wait: SYN: challenge", AT_TIME_WAIT, SYN, SEQ_NXT, ACK_NONE, 0,
      ST(TIME_WAIT), ACK, CNT(drop_tcp_syn), 0 },
    { "last-ack: the ACK of our FIN closes", AT_LAST_ACK, ACK, SEQ_NXT, ACK_END, 0,
      ST(CLOSED), 0, NONE, 0 },
    { "last-ack: their FIN again is ACKed", AT_LAST_ACK, FIN | ACK, SEQ_OLD, ACK_UNA, 0,
      ST(LAST_ACK), ACK, CNT(drop_tcp_seq), 0 },
};

static uint16_t rport_of_row;       /* the peer's port: PORT when we connected to it */

static uint16_t seg(struct fx *f, uint16_t lport, uint32_t seq, uint32_t ack, uint8_t flags,
                    uint8_t dlen)
{
    static const uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    return fx_input(f, fx_seg(f, rport_of_row, lport, seq, ack, flags, NULL, 0, data, dlen));
}

/* Puts the node in `at`; returns the connection (NULL for none) and the
 * node's SND.UNA and SND.NXT, its RCV.NXT, and its local port. */
static struct mip_micro_conn *setup(struct fx *f, enum start at, uint32_t *una, uint32_t *nxt,
                                    uint32_t *rnxt, uint16_t *lport)
{
    struct mip_micro_conn *c = NULL;
    uint16_t n;

    fx_init(f);
    *lport = PORT;
    *rnxt = PEER_ISN + 1;
    rport_of_row = at == AT_SYN_SENT ? PORT : PEER_PORT;
    switch (at) {
    case AT_NOTHING:
        *una = *nxt = 5000;
        return NULL;
    case AT_LISTEN:
        mip_micro_listen(&f->m, PORT);
        *una = *nxt = 5000;
        return NULL;
    case AT_SYN_SENT:
        c = mip_micro_connect(&f->m, fx_peer, PORT);
        n = mip_micro_periodic(&f->m, 0);
        CHECK_EQ(FX_FLAGS(f), SYN);
        (void)n;
        *una = FX_SEQ(f);
        *nxt = *una + 1;
        *lport = c->lport;
        *rnxt = PEER_ISN;               /* the SYN-ACK's own sequence number */
        return c;
    case AT_SYN_RCVD:
        mip_micro_listen(&f->m, PORT);
        (void)seg(f, PORT, PEER_ISN, 0, SYN, 0);
        CHECK_EQ(FX_FLAGS(f), SYN | ACK);
        *una = FX_SEQ(f);
        *nxt = *una + 1;
        return &f->m.conn[0];
    default:
        break;
    }
    c = fx_connect(f, una);
    *nxt = *una;
    if (at == AT_ESTABLISHED)
        return c;
    if (at == AT_LAST_ACK) {
        (void)seg(f, PORT, PEER_ISN + 1, *una, FIN | ACK, 0);
        *rnxt = PEER_ISN + 2;
        *nxt = *una + 1;
        CHECK_EQ(c->state, MIP_MICRO_LAST_ACK);
        return c;
    }
    f->app.close = 1;
    (void)mip_micro_periodic(&f->m, 0);           /* our FIN */
    f->app.close = 0;
    *nxt = *una + 1;
    CHECK_EQ(c->state, MIP_MICRO_FIN_WAIT_1);
    if (at == AT_FIN_WAIT_1)
        return c;
    if (at == AT_CLOSING) {
        (void)seg(f, PORT, PEER_ISN + 1, *una, FIN | ACK, 0);
        *rnxt = PEER_ISN + 2;
        CHECK_EQ(c->state, MIP_MICRO_CLOSING);
        return c;
    }
    (void)seg(f, PORT, PEER_ISN + 1, *nxt, ACK, 0);
    *una = *nxt;
    CHECK_EQ(c->state, MIP_MICRO_FIN_WAIT_2);
    if (at == AT_FIN_WAIT_2)
        return c;
    (void)seg(f, PORT, PEER_ISN + 1, *nxt, FIN | ACK, 0);
    *rnxt = PEER_ISN + 2;
    CHECK_EQ(c->state, MIP_MICRO_TIME_WAIT);
    return c;
}

static void run_row(const struct row *r)
{
    struct fx f;
    struct mip_micro_conn *c;
    uint32_t una, nxt, rnxt, seq = 0, ack = 0;
    uint16_t lport, n, before[MIP_MICRO_STAT_COUNT];
    unsigned events, k;
    uint8_t state;
    int moved = NONE;
    bool ok = true;

    c = setup(&f, r->at, &una, &nxt, &rnxt, &lport);
    switch (r->seq) {
    case SEQ_NXT: seq = rnxt; break;
    case SEQ_AHEAD: seq = rnxt + 100; break;
    case SEQ_OLD: seq = rnxt - 1; break;
    case SEQ_NEAR: seq = rnxt + 10; break;
    case SEQ_FAR: seq = rnxt + 70000; break;
    case SEQ_ZERO: seq = PEER_ISN; break;
    }
    switch (r->ack) {
    case ACK_NONE: ack = 0; break;
    case ACK_UNA: ack = una; break;
    case ACK_END: ack = nxt; break;
    case ACK_PAST: ack = nxt + 1000; break;
    case ACK_LOW: ack = una - 70000; break;
    }
    memcpy(before, f.m.stat, sizeof before);
    events = f.app.nevents;
    n = seg(&f, lport, seq, ack, r->flags, r->dlen);

    state = c != NULL ? c->state : f.m.conn[0].state;
    if (state != r->state_after) {
        fprintf(stderr, "  %s: state %u, want %u\n", r->name, state, r->state_after);
        ok = false;
    }
    if ((n == 0) != (r->reply == 0) || (n != 0 && (!fx_valid(&f, n) || FX_FLAGS(&f) != r->reply))) {
        fprintf(stderr, "  %s: answer %u bytes, flags 0x%02x, want 0x%02x\n", r->name, n,
                n ? FX_FLAGS(&f) : 0, r->reply);
        ok = false;
    }
    for (k = 0; k < MIP_MICRO_STAT_COUNT; k++) {
        if (k == MIP_MICRO_STAT_rx || k == MIP_MICRO_STAT_tx || k == MIP_MICRO_STAT_tcp_challenge_ack)
            continue;                   /* these move with any datagram, any challenge */
        if (f.m.stat[k] != before[k]) {
            if (moved != NONE || (int)k != r->counter) {
                fprintf(stderr, "  %s: counter %u moved, want %d\n", r->name, k, r->counter);
                ok = false;
            }
            moved = (int)k;
        }
    }
    if (moved != r->counter) {
        fprintf(stderr, "  %s: counter %d did not move\n", r->name, r->counter);
        ok = false;
    }
    if (r->event != 0 && (f.app.nevents == events || !(fx_last_event(&f) & r->event))) {
        fprintf(stderr, "  %s: no event 0x%02x (last 0x%02x)\n", r->name, r->event,
                fx_last_event(&f));
        ok = false;
    }
    if (r->event == 0 && f.app.nevents != events &&
        (fx_last_event(&f) & (EV(CONNECTED) | EV(CLOSED) | EV(ABORTED) | EV(NEWDATA)))) {
        fprintf(stderr, "  %s: unexpected event 0x%02x\n", r->name, fx_last_event(&f));
        ok = false;
    }
    CHECK(ok);
}

static void test_every_state_move_of_tcp_in(void)
{
    size_t i;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        run_row(&rows[i]);
}

int main(void)
{
    RUN(test_every_state_move_of_tcp_in);
    return TESTING_DONE();
}
