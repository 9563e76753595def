/*
 * avr_events: an ATmega1284P firmware that measures the CPU cycles of the
 * events the simulator's CPU account charges (sim/cpu_energy.c), with the
 * real stack (tiny profile, 6LoWPAN on, ContikiMAC in) against a null radio
 * (every call returns at once: only the stack's cycles are counted). Run by
 * `bench/avr-cycles --events` under tools/moteip-simavr (cycle-accurate); it
 * prints one line per event on USART0,
 *
 *   event NAME CYCLES UNITS
 *
 * CYCLES the active cycles of UNITS occurrences, then "done". Timer1 counts
 * every CPU cycle (no prescaler; its overflow interrupt extends it to 32
 * bits) and the cost of reading it is subtracted. The CPU never sleeps:
 * every cycle between two readings is work.
 *
 *   channel_check  one ContikiMAC wake-up that finds the channel clear
 *                  (mip_mac_poll at its deadlines: radio on, two CCAs, off)
 *   frame_tx       a unicast data frame through CSMA and NullRDC: queued,
 *                  sent, its ACK received, its outcome reported
 *   frame_rx       a data frame received: the MAC (filter, duplicate check,
 *                  its ACK sent) then 6LoWPAN IPHC, IPv6 and UDP up to a
 *                  bound socket, the payload PAYLOAD bytes
 *   tcp_seg_in     a TCP data segment of PAYLOAD bytes arriving over the
 *                  6LoWPAN netif, less frame_rx's IP part (the same
 *                  datagram as UDP): what TCP adds (state, checksum, ring)
 *   tcp_seg_out    a TCP data segment of PAYLOAD bytes leaving: write,
 *                  segment built, IPv6 + IPHC into a frame (not the MAC:
 *                  that is frame_tx)
 *   reported only: ip_udp_in (frame_rx's stack part), tcp_in_data_ip (a
 *   TCP data segment's whole stack input), tcp_ack_out (the DUT's delayed
 *   ACK: the timer's poll, segment, IPv6, IPHC), tcp_ack_in (the peer's
 *   ACK: the whole stack input)
 *
 * The same program runs on an emulated Cortex-M (bench/events-arm: the MPS2
 * AN386's Cortex-M4 or the AN385's M3 under qemu-system-arm -icount
 * shift=0, output through ARM semihosting). QEMU counts instructions, not
 * cycles: there CYCLES are instructions, SysTick ticks converted by a
 * calibration loop of known length (as bench/cksum_board.c does).
 *
 * NETWORK SAFETY: no network at all; the two stacks talk through memory.
 */
#ifdef __AVR__
#include <avr/interrupt.h>
#include <avr/io.h>
#endif
#include <string.h>
#include "moteip/mac.h"
#include "moteip/netif.h"
#include "moteip/stack.h"
#include "moteip/tcp.h"
#include "moteip/udp.h"

#define ROUNDS  64u
#define PAYLOAD 64u
#define RING    128u
#define PAN     0xABCDu

#ifdef __AVR__
/* --- the cycle counter and the UART ------------------------------------ */

static volatile uint16_t t1_high;

ISR(TIMER1_OVF_vect)
{
    t1_high++;
}

static uint32_t cyc(void)
{
    uint8_t sreg = SREG;
    uint16_t lo, hi;
    cli();
    lo = TCNT1;
    hi = t1_high;
    /* an overflow not yet served: the low half wrapped after the ISR ran */
    if ((TIFR1 & _BV(TOV1)) && lo < 0x8000u)
        hi++;
    SREG = sreg;
    return (uint32_t)hi << 16 | lo;
}

static void uart_put(char ch)
{
    while (!(UCSR0A & _BV(UDRE0)))
        ;
    UDR0 = (uint8_t)ch;
}

#else
/* --- the instruction counter and the output (Cortex-M under QEMU) ------- */

#define CAL_INSNS 2097152u      /* the calibration loop's instructions */

#define QEMU_FAULT_MSG "error: fault\n"
#include "qemu_cortexm.h"

static void uart_put(char ch) { semihost_putc(ch); }

/* SysTick counts down 24 bits; cyc() folds what passed since its last call
 * into 32 (a call at least every 2^24 ticks: 0.67 s at 25 MHz). */
static uint32_t systick_last, systick_acc;

static uint32_t cyc(void)
{
    uint32_t v = SYST_CVR;
    systick_acc += (systick_last - v) & 0xFFFFFFu;
    systick_last = v;
    return systick_acc;
}

static uint32_t cal_ticks;      /* SysTick ticks of CAL_INSNS instructions */

static void systick_start(void)
{
    uint32_t t0, n = CAL_INSNS / 2u;
    SYST_RVR = 0xFFFFFFu;
    SYST_CVR = 0;
    SYST_CSR = 5u;              /* processor clock, no interrupt, on */
    systick_last = SYST_CVR;
    /* a two-instruction loop: ticks per known instruction count */
    t0 = cyc();
    __asm__ volatile(".syntax unified\n1:\n\tsubs %0, #1\n\tbne 1b" : "+l"(n) : : "cc");
    cal_ticks = cyc() - t0;
}

/* ticks as instructions, rounded */
static uint32_t insns(uint32_t ticks)
{
    return (uint32_t)(((uint64_t)ticks * CAL_INSNS + cal_ticks / 2u) / cal_ticks);
}
#endif

static void uart_str(const char *s)
{
    while (*s)
        uart_put(*s++);
}

static void uart_u32(uint32_t v)
{
    char b[11];
    int i = 0;
    do {
        b[i++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0u);
    while (i > 0)
        uart_put(b[--i]);
}

static uint32_t overhead;   /* cycles of a cyc() pair with nothing between */

static void report(const char *name, uint32_t cycles, uint32_t units)
{
    uart_str("event ");
    uart_str(name);
    uart_put(' ');
#ifndef __AVR__
    cycles = insns(cycles);
#endif
    uart_u32(cycles);
    uart_put(' ');
    uart_u32(units);
    uart_put('\n');
}

/* --- the null radio ------------------------------------------------------ */

static uint8_t radio_busy;  /* a transmission waits for its tx_done */

static mip_status null_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    (void)ctx; (void)frame; (void)len;
    radio_busy = 1;
    return MIP_OK;
}
static bool null_cca(void *ctx) { (void)ctx; return true; }
static void null_on(void *ctx) { (void)ctx; }
static void null_off(void *ctx) { (void)ctx; }
static const struct mip_radio_driver null_radio = { null_transmit, null_cca, null_on, null_off };

/* --- two stacks on 6LoWPAN netifs, frames handed over in memory ---------- */

struct side {
    struct mip_stack s;
    struct mip_tcp tcp;
    uint8_t netif;
    uint8_t frame[128];     /* the latest frame it sent */
    uint8_t len;
    uint8_t frames;         /* frames sent since cleared */
};

/* The MAC and the peer take turns in one piece of RAM (16 KB hold no
 * more): the MAC events need no peer, and frame_rx replays one frame the
 * peer made before the MAC starts. */
static struct side dut;
static union {
    struct side peer;
    struct mip_mac mac;
} turn;
#define peer turn.peer
#define mac turn.mac
static uint32_t udp_bytes;

static mip_status side_tx(void *ctx, const uint8_t *frame, size_t len)
{
    struct side *sd = ctx;
    if (len > sizeof(sd->frame))
        return MIP_ERR_NOBUFS;
    memcpy(sd->frame, frame, len);
    sd->len = (uint8_t)len;
    sd->frames++;
    return MIP_OK;
}
static const struct mip_netif_driver side_drv = { side_tx, NULL, NULL };

static void side_addr(uint16_t id, struct mip_addr *a)
{
    uint8_t b[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 0, (uint8_t)(id >> 8),
                      (uint8_t)id };
    mip_addr_set6(a, b);
}

static void side_init(struct side *sd, uint16_t id)
{
    uint8_t seed[16];
    struct mip_stack_config scfg;
    struct mip_lowpan_config lcfg;
    struct mip_addr a;
    memset(seed, (int)id, sizeof(seed));
    memset(&scfg, 0, sizeof(scfg));
    scfg.entropy = seed;
    scfg.entropy_len = sizeof(seed);
    mip_stack_init(&sd->s, &scfg, 1000);
    memset(&lcfg, 0, sizeof(lcfg));
    lcfg.mode = MIP_LOWPAN_IPHC;
    lcfg.pan_id = PAN;
    lcfg.short_addr = id;
    lcfg.ext_addr[7] = (uint8_t)id;
    lcfg.frame_max = 127;
    lcfg.ack_request = true;
    lcfg.has_context0 = true;
    lcfg.ctx0_prefix[0] = 0xfd;
    (void)mip_netif_add_lowpan(&sd->s, &lcfg, &side_drv, sd, &sd->netif);
    side_addr(id, &a);
    (void)mip_netif_add_addr(&sd->s, sd->netif, &a, 64);
    (void)mip_tcp_init(&sd->tcp, &sd->s);
}

static void on_udp(void *ctx, struct mip_stack *s, const struct mip_udp_meta *m,
                   const uint8_t *data, size_t len)
{
    (void)ctx; (void)s; (void)m; (void)data;
    udp_bytes += len;
}

/* the DUT's MAC hands its frames to its stack (as sim/node.c does) */
static mip_time_t now_ms = 1000;
static mip_utime_t now_us = 1000000ul;

static void mac_input(void *ctx, const uint8_t *frame, size_t len, size_t hdr_len,
                      const struct mip_802154_hdr *hdr, mip_utime_t now)
{
    (void)ctx; (void)hdr_len; (void)hdr; (void)now;
    mip_stack_input(&dut.s, dut.netif, frame, len, now_ms);
}
static void mac_tx_done(void *ctx, const uint8_t *frame, size_t len, enum mip_mac_tx_status st,
                        uint8_t retries, mip_utime_t now)
{
    (void)ctx; (void)frame; (void)len; (void)st; (void)retries; (void)now;
}

static void mac_start(uint8_t rdc)
{
    struct mip_mac_config cfg;
    struct mip_mac_callbacks cb = { mac_input, mac_tx_done, NULL, NULL };
    uint8_t ext[8] = { 0, 0, 0, 0, 0, 0, 0, 2 };
    static const uint8_t seed[4] = { 1, 2, 3, 4 };
    mip_mac_config_default(&cfg, MIP_MAC_CSMA, PAN, 2, ext);
    cfg.rdc.kind = rdc;
    (void)mip_mac_init(&mac, &cfg, &null_radio, NULL, &cb, seed, sizeof(seed), now_us);
    radio_busy = 0;
}

/* Polls the MAC until its transmission is on the air, then ends it (the
 * airtime is not CPU time); returns the cycles. */
static uint32_t mac_until_sent(void)
{
    uint32_t c = 0, t0, d;
    unsigned i;
    for (i = 0; i < 64u && !radio_busy; i++) {
        t0 = cyc();
        d = mip_mac_poll(&mac, now_us);
        c += cyc() - t0 - overhead;
        if (!radio_busy)
            now_us += d;
    }
    radio_busy = 0;
    t0 = cyc();
    mip_mac_radio_tx_done(&mac, now_us);
    (void)mip_mac_poll(&mac, now_us);
    return c + cyc() - t0 - overhead;
}

/* Runs the MAC until it is idle or waits longer than 1 s; a transmission
 * ends at once (its airtime is not CPU time). Returns its cycles. */
static uint32_t mac_settle(void)
{
    uint32_t c = 0, t0, d;
    unsigned i;
    for (i = 0; i < 64u; i++) {
        t0 = cyc();
        if (radio_busy) {
            radio_busy = 0;
            mip_mac_radio_tx_done(&mac, now_us);
        }
        d = mip_mac_poll(&mac, now_us);
        c += cyc() - t0 - overhead;
        if (!radio_busy && (d == UINT32_MAX || d > 1000000ul))
            break;
        if (!radio_busy)
            now_us += d;
    }
    return c;
}

/* --- the events ----------------------------------------------------------- */

static void channel_checks(void)
{
    uint32_t c = 0, t0, d = 0, checks0;
    mac_start(MIP_RDC_CONTIKIMAC);
    checks0 = mip_mac_stat(&mac, MIP_MAC_STAT_rdc_checks);
    while (mip_mac_stat(&mac, MIP_MAC_STAT_rdc_checks) - checks0 < ROUNDS) {
        now_us += d;
        t0 = cyc();
        d = mip_mac_poll(&mac, now_us);
        c += cyc() - t0 - overhead;
    }
    report("channel_check", c, mip_mac_stat(&mac, MIP_MAC_STAT_rdc_checks) - checks0);
}

static void frames_tx(void)
{
    uint8_t frame[PAYLOAD + 16];
    uint8_t ack[MIP_802154_ACK_LEN];
    struct mip_802154_hdr h;
    size_t n = 0;
    uint32_t c = 0, t0;
    unsigned i;
    mac_start(MIP_RDC_NULLRDC);
    memset(&h, 0, sizeof(h));
    h.type = MIP_802154_DATA;
    h.ack_request = true;
    h.pan_id_compress = true;
    h.version = 1;
    h.dst_pan = h.src_pan = PAN;
    h.dst.mode = h.src.mode = MIP_802154_ADDR_SHORT;
    h.dst.short_addr = 1;
    h.src.short_addr = 2;
    (void)mip_ieee802154_emit(&h, frame, 64, &n);
    memset(frame + n, 0x5A, PAYLOAD);
    for (i = 0; i < ROUNDS; i++) {
        now_us += 10000ul;
        t0 = cyc();
        (void)mip_mac_send(&mac, frame, n + PAYLOAD, now_us);
        c += cyc() - t0 - overhead;
        c += mac_until_sent();
        now_us += 192u + 352u;
        mip_ieee802154_emit_ack(mac.q[mac.q_head].data[2], false, ack);
        t0 = cyc();
        mip_mac_radio_rx(&mac, ack, sizeof(ack), now_us);
        (void)mip_mac_poll(&mac, now_us);
        c += cyc() - t0 - overhead;
        c += mac_settle();
    }
    report("frame_tx", c, mip_mac_stat(&mac, MIP_MAC_STAT_tx_ok));
}

/* UDP datagrams from the peer, through the DUT's MAC (frame_rx), and the
 * same datagrams straight into the DUT's stack (its IP part, for the TCP
 * difference). */
static uint32_t ip_udp_in;

static void frames_rx(void)
{
    uint8_t data[PAYLOAD];
    struct mip_addr to;
    uint32_t c = 0, ip = 0, t0;
    unsigned i;
    uint8_t frame[128], len;
    mip_status st;
    memset(data, 0x33, sizeof(data));
    side_addr(2, &to);
    side_init(&peer, 1);
    peer.frames = 0;
    st = mip_udp_sendto(&peer.s, NULL, 7, &to, 7, 0, data, sizeof(data));
    if (peer.frames != 1u) {
        uart_str("error: the UDP datagram is not one frame: ");
        uart_u32((uint32_t)st);
        uart_put(' ');
        uart_u32(peer.frames);
        uart_put('\n');
        return;
    }
    memcpy(frame, peer.frame, peer.len);
    len = peer.len;
    mac_start(MIP_RDC_NULLRDC);
    (void)mip_udp_bind(&dut.s, 7, on_udp, NULL);
    for (i = 0; i < ROUNDS; i++) {
        frame[2] = (uint8_t)i;          /* the DSN a MAC would write */
        now_us += 10000ul;
        t0 = cyc();
        mip_mac_radio_rx(&mac, frame, len, now_us);
        c += cyc() - t0 - overhead;
        c += mac_settle();
        t0 = cyc();
        mip_stack_input(&dut.s, dut.netif, frame, len, now_ms);
        ip += cyc() - t0 - overhead;
    }
    report("frame_rx", c, mip_mac_stat(&mac, MIP_MAC_STAT_rx_frames));
    report("ip_udp_in", ip, ROUNDS);
    ip_udp_in = ip / ROUNDS;
    uart_str("udp_bytes ");
    uart_u32(udp_bytes);
    uart_put('\n');
}

/* TCP: the peer and the DUT connect over memory; then one segment at a
 * time in each direction, each side's cycles counted apart. */
static struct mip_tcp_conn cli, srv;
static struct mip_tcp_listener listener;
/* The DUT's receive ring is large beside a segment: reading one segment
 * then opens too little window to send an update at once (RFC 9293
 * 3.8.6.2.2), so its ACK waits for the delayed-ACK timer. */
#define S_RX 512u
static uint8_t c_tx[RING], c_rx[RING], s_tx[RING], s_rx[S_RX];
static uint32_t got;

static void on_readable(void *ctx, struct mip_tcp_conn *c)
{
    struct mip_tcp *tcp = ctx;
    got += mip_tcp_read(tcp, c, NULL, RING);
}
static const struct mip_tcp_callbacks peer_cbs = { NULL, on_readable, NULL, NULL, NULL };
static const struct mip_tcp_callbacks dut_cbs = { NULL, on_readable, NULL, NULL, NULL };

static struct mip_tcp_conn *on_accept(struct mip_tcp_listener *l, struct mip_tcp *tcp,
                                      uint16_t port)
{
    (void)l; (void)port;
    mip_tcp_conn_init(&srv, &dut_cbs, tcp, s_tx, RING, s_rx, NULL, S_RX);
    return &srv;
}

/* Hands the frame `from` sent to `to`'s stack; returns its cycles. */
static uint32_t deliver(struct side *from, struct side *to)
{
    uint32_t t0;
    if (from->frames == 0u)
        return 0;
    from->frames = 0;
    t0 = cyc();
    mip_stack_input(&to->s, to->netif, from->frame, from->len, now_ms);
    return cyc() - t0 - overhead;
}

static uint32_t poll(struct side *sd)
{
    uint32_t t0 = cyc();
    (void)mip_stack_poll(&sd->s, now_ms);
    return cyc() - t0 - overhead;
}

static void tcp_segments(void)
{
    uint8_t data[PAYLOAD];
    struct mip_addr to;
    uint32_t in_data = 0, out_ack = 0, out_data = 0, in_ack = 0, t0;
    unsigned i, k, n_in = 0, n_out = 0;
    memset(data, 0x44, sizeof(data));
    side_addr(2, &to);
    side_init(&peer, 1);
    (void)mip_tcp_listen(&dut.tcp, &listener, 80, S_RX, on_accept);
    mip_tcp_conn_init(&cli, &peer_cbs, &peer.tcp, c_tx, RING, c_rx, NULL, RING);
    cli.cfg.nodelay = true;
    (void)mip_tcp_connect(&peer.tcp, &cli, &to, 80);
    for (k = 0; k < 8u; k++) {      /* the handshake */
        (void)deliver(&peer, &dut);
        (void)deliver(&dut, &peer);
        now_ms += 10u;
        (void)poll(&peer);
        (void)poll(&dut);
    }
    srv.cfg.nodelay = true;
    srv.cfg.delack_ms = 200;
    /* into the DUT: its delayed ACK answers a lone segment from its timer */
    for (i = 0; i < ROUNDS; i++) {
        (void)mip_tcp_write(&peer.tcp, &cli, data, sizeof(data));
        (void)poll(&peer);
        if (peer.frames == 0u)
            continue;
        t0 = deliver(&peer, &dut);
        if (dut.frames != 0u) {     /* an immediate ACK: not the lone case */
            (void)deliver(&dut, &peer);
            continue;
        }
        in_data += t0;
        now_ms += 250u;
        out_ack += poll(&dut);
        n_in++;
        (void)deliver(&dut, &peer);
        (void)poll(&peer);
    }
    /* out of the DUT: the peer ACKs at once */
    cli.cfg.delack_ms = 0;
    for (i = 0; i < ROUNDS; i++) {
        now_ms += 10u;
        t0 = cyc();
        (void)mip_tcp_write(&dut.tcp, &srv, data, sizeof(data));
        (void)mip_stack_poll(&dut.s, now_ms);
        out_data += cyc() - t0 - overhead;
        if (dut.frames == 0u)
            continue;
        (void)deliver(&dut, &peer);
        if (peer.frames == 0u)
            (void)poll(&peer);
        in_ack += deliver(&peer, &dut);
        n_out++;
    }
    report("tcp_in_data_ip", in_data, n_in);
    report("tcp_seg_in", n_in ? in_data - ip_udp_in * n_in : 0u, n_in);
    report("tcp_ack_out", out_ack, n_in);
    report("tcp_seg_out", out_data, n_out);
    report("tcp_ack_in", in_ack, n_out);
    uart_str("tcp_bytes ");
    uart_u32(got);
    uart_put('\n');
}

#ifdef __AVR__
/* The stack's high-water mark: free RAM is painted before the events run
 * and the untouched bytes counted after (16 KB hold two stacks barely). */
extern uint8_t __bss_end;
#define PAINT 0xA5u

static void paint(void)
{
    uint8_t *p = &__bss_end;
    while (p < (uint8_t *)SP - 32)
        *p++ = PAINT;
}

static uint16_t untouched(void)
{
    const uint8_t *p = &__bss_end;
    uint16_t n = 0;
    while (p[n] == PAINT && (uint16_t)(uintptr_t)(p + n) < RAMEND)
        n++;
    return n;
}

#endif

int main(void)
{
    uint32_t t0;
#ifdef __AVR__
    paint();
    UBRR0 = 16;                     /* 115200 at 16 MHz with U2X */
    UCSR0A = _BV(U2X0);
    UCSR0B = _BV(TXEN0) | _BV(RXEN0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    /* bytes sent before the runner connects are lost: wait for its first */
    while (!(UCSR0A & _BV(RXC0)))
        ;
    (void)UDR0;
    TCCR1A = 0;
    TCCR1B = _BV(CS10);             /* every CPU cycle */
    TIMSK1 = _BV(TOIE1);
    sei();
#else
    systick_start();
#endif
    t0 = cyc();
    overhead = cyc() - t0;
    side_init(&dut, 2);
    uart_str("avr_events payload ");
    uart_u32(PAYLOAD);
    uart_str(" overhead ");
    uart_u32(overhead);
    uart_put('\n');
    channel_checks();
    frames_tx();
    frames_rx();
    tcp_segments();
#ifdef __AVR__
    uart_str("stack_free ");
    uart_u32(untouched());
    uart_put('\n');
    uart_str("done\n");
    for (;;)
        ;
#else
    uart_str("calibration ");
    uart_u32(CAL_INSNS);
    uart_put(' ');
    uart_u32(cal_ticks);
    uart_put('\n');
    uart_str("done\n");
    return 0;
#endif
}
