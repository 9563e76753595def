/* The relay core and TSS on one forwarding node, driven through its stack
 * (the node, its neighbours and the helpers: relay_fixture.h). */
#include "core/fixture.h"
#include "moteip/relay.h"
#include "moteip/wire/tcp.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/sixlowpan.h"

#if MIP_CONF_FORWARD && MIP_CONF_LOWPAN && MIP_CONF_IPV4 && MIP_CONF_IPV6

#include "relay_fixture.h"

/* --- tests ---------------------------------------------------------------- */

static void test_init_modes_and_validation(void)
{
    struct fixture f;
    struct mip_relay *r = calloc(1, sizeof(*r));
    struct mip_relay_config c;
    fixture_init(&f, true);
    mip_relay_config_default(&c, MIP_RELAY_TSS);
    CHECK_EQ(c.max_local_rexmit, 4);
    CHECK_EQ(c.rto_mult_q8, 384);
    CHECK_EQ(c.ack_gamma_q8, 512);
    CHECK(c.tss_backpressure);
    CHECK_EQ(mip_relay_init(r, f.s, &c, 0), MIP_OK);
    CHECK(f.s->fwd_hook != NULL);
    mip_relay_config_default(&c, MIP_RELAY_DTC);
    CHECK_EQ(mip_relay_init(r, f.s, &c, 0), MIP_OK);
    mip_relay_config_default(&c, MIP_RELAY_CCTRL);
    CHECK_EQ(c.rto_mult_q8, 768);
    CHECK_EQ(c.alpha_q8, 64);
    CHECK_EQ(mip_relay_init(r, f.s, &c, 0), MIP_OK);
    mip_relay_config_default(&c, MIP_RELAY_TSS);
    c.mode = 9;
    CHECK_EQ(mip_relay_init(r, f.s, &c, 0), MIP_ERR_INVALID);
    mip_relay_config_default(&c, MIP_RELAY_TSS);
    c.rto_mult_q8 = 0;
    CHECK_EQ(mip_relay_init(r, f.s, &c, 0), MIP_ERR_INVALID);
    mip_relay_config_default(&c, MIP_RELAY_TSS);
    c.ack_gamma_q8 = 0;
    CHECK_EQ(mip_relay_init(r, f.s, &c, 0), MIP_ERR_INVALID);
    CHECK_EQ(mip_relay_init(NULL, f.s, &c, 0), MIP_ERR_INVALID);
    CHECK(f.s->fwd_hook != NULL);          /* errors leave the hook alone */
    mip_relay_config_default(&c, MIP_RELAY_OFF);
    CHECK_EQ(mip_relay_init(r, f.s, &c, 0), MIP_OK);
    CHECK(f.s->fwd_hook == NULL);
    CHECK_EQ(mip_relay_poll(r, 100), MIP_POLL_IDLE);
    CHECK_EQ(mip_relay_init(r, f.s, NULL, 0), MIP_OK);
    CHECK_EQ(r->cfg.mode, MIP_RELAY_TSS);
    fixture_free(&f);
    free(r);
}

static void test_stat_names(void)
{
#if MIP_CONF_STAT_NAMES
    unsigned i;
    CHECK(strcmp(mip_relay_stat_name(MIP_RELAY_STAT_flows_new), "flows_new") == 0);
    CHECK(strcmp(mip_relay_stat_name(MIP_RELAY_STAT_ignored), "ignored") == 0);
    for (i = 0; i < MIP_RELAY_STAT_COUNT; i++)
        CHECK(mip_relay_stat_name(i) != NULL && mip_relay_stat_name(i)[0] != '\0' &&
              memchr(mip_relay_stat_name(i), '\0', 20) != NULL);   /* rows are 20 wide */
#endif
    CHECK(mip_relay_stat_name(MIP_RELAY_STAT_COUNT) == NULL);
}

/* Forwarded data is cached; the successor forwarding it frees the cache. */
static void cache_and_implicit_ack(bool v6)
{
    struct node n;
    struct tseg d;
    struct sent s;
    node_init_connected(&n, v6);
    d = feed_data(&n, v6, 1000, 40, 10);
    CHECK_EQ(n.f.ntx, 1);
    CHECK(sent_at(&n, 0, &s));
    CHECK_EQ(s.to, SHORT_N);
    CHECK_EQ(s.ttl, 63);
    CHECK_EQ(s.h.seq, 1000);
    CHECK_EQ(s.len, 40);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 1);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_CACHE), 1);
    CHECK_EQ(n.r->flows[0].transmitted, 1040);
    CHECK_EQ(n.r->flows[0].confirmed, 1000);
    /* another node than the successor forwarding it: nothing */
    {
        uint8_t pkt[300];
        size_t len = mk(pkt, &d);
        overhear(&n, 9, 3, pkt, len);
        CHECK_EQ(rstat(&n, MIP_RELAY_STAT_implicit_acks), 0);
    }
    n.f.now += 20;
    overhear_fwd(&n, &d);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_implicit_acks), 1);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_CACHE), 0);
    CHECK_EQ(n.r->flows[0].confirmed, 1040);
    advance(&n, 10000);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 0);
    node_free(&n);
}

static void test_cache_and_implicit_ack_v4(void) { cache_and_implicit_ack(false); }
static void test_cache_and_implicit_ack_v6(void) { cache_and_implicit_ack(true); }

/* No confirmation: retransmission at beta * rtt, then (Karn's backoff, at
 * most one doubling until the next sample or clean confirmation) at
 * 2 * beta * rtt, four times in all, then give up. */
static void test_local_rexmit_then_give_up(void)
{
    struct node n;
    struct tseg d;
    struct sent s;
    uint8_t first[300];
    size_t first_len;
    unsigned k;
    node_init_connected(&n, false);     /* rtt 100 ms -> RTO 150 ms */
    CHECK_EQ(n.r->flows[0].rtt_q8 >> 8, 100);
    d = feed_data(&n, false, 1000, 40, 10);
    CHECK_EQ(n.f.ntx, 1);
    first_len = n.f.tx[0].len;
    memcpy(first, n.f.tx[0].data, first_len);
    for (k = 1; k <= 4; k++) {
        check_one_sent_after(&n, k == 1 ? 150 : 300, k);
        CHECK_EQ(n.f.tx[k].len, first_len);
        CHECK_MEM(n.f.tx[k].data, first, first_len);     /* the datagram as forwarded */
        CHECK(sent_at(&n, k, &s));
        CHECK_EQ(s.to, SHORT_N);
        CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), k);
    }
    advance(&n, 300);
    CHECK_EQ(n.f.ntx, 5);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_rexmit_gave_up), 1);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_CACHE), 0);
    /* the flow is back at its last confirmed byte: an end-to-end
     * retransmission (new IP ID) goes through and is cached again */
    CHECK_EQ(n.r->flows[0].transmitted, 1000);
    d.id = 11;
    feed_seg(&n, &d);
    CHECK_EQ(n.f.ntx, 6);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 2);
    node_free(&n);
}

/* Karn's rule: a measurement whose segment was sent again gives no sample;
 * one that was not does. */
static void test_rtt_sample_and_karn(void)
{
    struct node n;
    node_init_connected(&n, false);
    CHECK_EQ(n.r->flows[0].rtt_q8, 100u << 8);
    feed_data(&n, false, 1000, 40, 10);
    CHECK(n.r->flows[0].flags & MIP_RELAY_F_RTT_ON);
    advance(&n, 150);                       /* retransmitted locally */
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 1);
    CHECK(!(n.r->flows[0].flags & MIP_RELAY_F_RTT_ON));
    advance(&n, 250);
    feed_ack(&n, false, 1040, 50);          /* 400 ms after: no sample */
    CHECK_EQ(n.r->flows[0].rtt_q8, 100u << 8);
    CHECK_EQ(n.r->flows[0].rto_shift, 1);   /* backed off until a sample */
    feed_data(&n, false, 1040, 40, 11);
    advance(&n, 60);
    feed_ack(&n, false, 1080, 51);          /* the first data sample replaces
                                               the handshake's */
    CHECK_EQ(n.r->flows[0].rtt_q8, 60u << 8);
    CHECK_EQ(n.r->flows[0].rto_shift, 0);
    CHECK(!(n.r->flows[0].flags & MIP_RELAY_F_RTT_SYN));
    feed_data(&n, false, 1080, 40, 12);
    advance(&n, 80);                        /* inside the RTO of 90 ms */
    feed_ack(&n, false, 1120, 52);          /* 80 ms: 60 * 7/8 + 80 / 8 = 62.5 */
    CHECK_EQ(n.r->flows[0].rtt_q8, 60u * 224u + 80u * 32u);
    CHECK_EQ(n.r->flows[0].rtt_q8 >> 8, 62);
    node_free(&n);
}

/* A TCP ACK from D covering the cached segment frees it and is forwarded. */
static void test_tcp_ack_clears_cache(void)
{
    struct node n;
    struct sent s;
    node_init_connected(&n, false);
    feed_data(&n, false, 1000, 40, 10);
    feed_ack(&n, false, 1020, 50);       /* partial: keeps the cache */
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_CACHE), 1);
    CHECK_EQ(n.r->flows[0].confirmed, 1020);
    feed_ack(&n, false, 1040, 51);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_CACHE), 0);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 1);
    CHECK_EQ(n.f.ntx, 3);
    CHECK(sent_at(&n, 2, &s));
    CHECK_EQ(s.to, SHORT_U);
    CHECK_EQ(s.h.ack, 1040);
    advance(&n, 5000);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 0);
    node_free(&n);
}

/* The next segment waits in the buffer while the one before is
 * unconfirmed; the implicit ACK releases it after forward_delay_ms. */
static void test_backpressure_buffer_released_after_delay(void)
{
    struct node n;
    struct tseg d1, d2, d0;
    struct sent s;
    node_init_connected(&n, false);
    d1 = feed_data(&n, false, 1000, 40, 10);
    d2 = feed_data(&n, false, 1040, 40, 11);
    CHECK_EQ(n.f.ntx, 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_buffered), 1);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_BUFFER), 1);
    /* a third, lower than the buffered one but beyond confirmed, is
     * impossible here; a copy of the buffered one is dropped */
    d0 = d2;
    d0.id = 12;
    feed_seg(&n, &d0);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_buffered), 1);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_BUFFER), 1);
    overhear_fwd(&n, &d1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_implicit_acks), 1);
    CHECK_EQ(n.f.ntx, 1);                 /* not at once: forward_delayed */
    check_one_sent_after(&n, n.r->cfg.forward_delay_ms, 1);
    CHECK(sent_at(&n, 1, &s));
    CHECK_EQ(s.h.seq, 1040);
    CHECK_EQ(s.id, 11);
    CHECK_EQ(s.to, SHORT_N);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_delayed_forwards), 1);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_BUFFER), 0);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_CACHE), 1);
    CHECK_EQ(n.r->flows[0].transmitted, 1080);
    /* and it is protected: retransmitted at 1.5 * rtt after it went */
    check_one_sent_after(&n, 150, 2);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 1);
    node_free(&n);
}

/* A TCP ACK releases the buffered segment at once (3a). */
static void test_ack_releases_buffer(void)
{
    struct node n;
    struct sent s;
    node_init_connected(&n, false);
    feed_data(&n, false, 1000, 40, 10);
    feed_data(&n, false, 1040, 40, 11);
    CHECK_EQ(n.f.ntx, 1);
    feed_ack(&n, false, 1040, 50);
    /* the buffered segment, then the ACK itself */
    CHECK_EQ(n.f.ntx, 3);
    CHECK(sent_at(&n, 1, &s));
    CHECK_EQ(s.h.seq, 1040);
    CHECK_EQ(s.to, SHORT_N);
    CHECK(sent_at(&n, 2, &s));
    CHECK_EQ(s.h.ack, 1040);
    CHECK_EQ(s.to, SHORT_U);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_CACHE), 1);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_BUFFER), 0);
    node_free(&n);
}

/* tss_ack_release (the limit of forward_delayed): the implicit ACK frees the
 * cache but the buffered segment waits, beyond any forward delay and RTO,
 * until the TCP ACK of the segment before it; then it goes at once. */
static void test_ack_release_waits_for_the_tcp_ack(void)
{
    struct node n;
    struct tseg d1;
    struct sent s;
    struct mip_relay_config c;
    mip_relay_config_default(&c, MIP_RELAY_TSS);
    CHECK(!c.tss_ack_release);
    c.tss_ack_release = true;
    node_init_cfg(&n, &c);
    handshake(&n, false, 100);
    d1 = feed_data(&n, false, 1000, 40, 10);
    feed_data(&n, false, 1040, 40, 11);
    CHECK_EQ(n.f.ntx, 1);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_BUFFER), 1);
    overhear_fwd(&n, &d1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_implicit_acks), 1);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_CACHE), 0);
    CHECK_EQ(n.r->flows[0].confirmed, 1040);
    advance(&n, 10u * (n.r->cfg.forward_delay_ms + 150u));
    CHECK_EQ(n.f.ntx, 1);                   /* neither forwarded nor resent */
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_BUFFER), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_delayed_forwards), 0);
    /* a late ACK of older data is forwarded but releases nothing */
    feed_ack(&n, false, 1000, 49);
    CHECK_EQ(n.f.ntx, 2);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_BUFFER), 1);
    feed_ack(&n, false, 1040, 50);
    CHECK_EQ(n.f.ntx, 4);                   /* the buffered segment, the ACK */
    CHECK(sent_at(&n, 2, &s));
    CHECK_EQ(s.h.seq, 1040);
    CHECK_EQ(s.to, SHORT_N);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_delayed_forwards), 1);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_CACHE), 1);
    node_free(&n);
}

static void test_data_beyond_transmitted_dropped(void)
{
    struct node n;
    node_init_connected(&n, false);
    feed_data(&n, false, 1000, 40, 10);
    feed_data(&n, false, 1080, 40, 12);     /* 1040..1079 never came */
    CHECK_EQ(n.f.ntx, 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_gap_dropped), 1);
    CHECK_EQ(fixture_stat(&n.f, MIP_STAT_drop_fwd_hook), 1);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_BUFFER), 0);
    node_free(&n);
}

/* Data already acknowledged by D: dropped and answered with dst's own
 * latest ACK, ack == the highest ACK number seen from D. */
static void regenerate(bool v6)
{
    struct node n;
    struct tseg d, a;
    struct sent s, fwd;
    node_init_connected(&n, v6);
    d = feed_data(&n, v6, 1000, 40, 10);
    a = ackseg(v6, 1040, 77);
    a.ts = true;
    a.tsval = 0xA1A2A3A4;
    a.tsecr = 0xB1B2B3B4;
    a.win = 1234;
    a.ttl = 60;
    feed_seg(&n, &a);
    CHECK_EQ(n.f.ntx, 2);
    CHECK(sent_at(&n, 1, &fwd));
    /* an older ACK overtaken by it changes nothing */
    feed_ack(&n, v6, 1020, 78);
    CHECK_EQ(n.r->flows[0].acked, 1040);
    fixture_clear(&n.f);
    /* the end-to-end retransmission of acknowledged data */
    d.id = 13;
    d.label = v6 ? 13 : 0;
    feed_seg(&n, &d);
    CHECK_EQ(n.f.ntx, 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_regenerated), 1);
    CHECK(sent_at(&n, 0, &s));             /* checks both checksums */
    CHECK_EQ(s.to, SHORT_U);
    CHECK_EQ(s.h.ack, 1040);
    CHECK(s.h.ack == n.r->flows[0].acked);  /* never more than seen from D */
    CHECK_EQ(s.h.flags, MIP_TCP_ACK);
    CHECK_EQ(s.len, 0);
    CHECK_EQ(s.h.seq, 5001);
    CHECK_EQ(s.h.src_port, DPORT);
    CHECK_EQ(s.h.dst_port, SPORT);
    CHECK_EQ(s.h.window, 1234);
    CHECK(mip_addr_eq(&s.src, &fwd.src));
    CHECK(mip_addr_eq(&s.dst, &fwd.dst));
    CHECK(mip_addr_eq(&s.src, &(struct mip_addr){0}) == false);
    {
        struct mip_addr ds = fixture_addr(addr_d(v6)), ss = fixture_addr(addr_s(v6));
        CHECK(mip_addr_eq(&s.src, &ds));
        CHECK(mip_addr_eq(&s.dst, &ss));
    }
    CHECK_EQ(s.ttl, 59);                   /* as the ACK left R */
    CHECK_EQ(s.ttl, fwd.ttl);
    if (v6)
        CHECK_EQ(s.label, 0x12345);
    else
        CHECK_EQ(s.id, 77);
    CHECK(s.o.present & MIP_TCP_HAS_TIMESTAMP);
    CHECK_EQ(s.o.ts_val, 0xA1A2A3A4);
    CHECK_EQ(s.o.ts_ecr, 0xB1B2B3B4);
    /* the regenerated ACK is the forwarded one byte for byte */
    CHECK_EQ(s.ip_len, fwd.ip_len);
    CHECK_MEM(s.ip, fwd.ip, fwd.ip_len);
    node_free(&n);
}

static void test_regenerate_ack_v4(void) { regenerate(false); }
static void test_regenerate_ack_v6(void) { regenerate(true); }

/* An ACK no higher than one already heard forwarded upstream is dropped. */
static void test_duplicate_ack_suppressed(void)
{
    struct node n;
    struct tseg a;
    node_init_connected(&n, false);
    feed_data(&n, false, 1000, 40, 10);
    a = feed_ack(&n, false, 1040, 50);
    CHECK_EQ(n.f.ntx, 2);
    n.f.now += 8;
    overhear_fwd(&n, &a);
    CHECK_EQ(n.r->flows[0].ack_forwarded, 1040);
    CHECK_EQ(n.r->flows[0].ackfwd_q8 >> 8, 8);
    a.id = 51;                             /* a duplicate ACK */
    feed_seg(&n, &a);
    CHECK_EQ(n.f.ntx, 2);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_dropped), 1);
    feed_ack(&n, false, 1030, 52);         /* lower */
    CHECK_EQ(n.f.ntx, 2);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_dropped), 2);
    feed_data(&n, false, 1040, 40, 11);
    feed_ack(&n, false, 1080, 53);         /* higher: forwarded */
    CHECK_EQ(n.f.ntx, 4);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_dropped), 2);
    /* its recovery timer is gamma * the measured 8 ms */
    check_one_sent_after(&n, 16, 4);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_recovered), 1);
    node_free(&n);
}

/* Not heard forwarded upstream within gamma * the ACK forwarding time (no
 * sample yet: the rtt stands in): sent again with the highest ACK number. */
static void test_ack_recovery(void)
{
    struct node n;
    struct tseg a;
    struct sent s;
    unsigned k;
    uint32_t to;
    node_init_connected(&n, false);
    feed_data(&n, false, 1000, 40, 10);
    n.f.now += 100;                        /* an RTT sample of 100: rtt stays 100 */
    a = feed_ack(&n, false, 1040, 50);
    CHECK_EQ(n.f.ntx, 2);
    CHECK_EQ(n.r->flows[0].rtt_q8, 100u << 8);
    check_one_sent_after(&n, 200, 2);
    CHECK(sent_at(&n, 2, &s));
    CHECK_EQ(s.to, SHORT_U);
    CHECK_EQ(s.h.ack, 1040);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_recovered), 1);
    /* heard now: the timer stops */
    overhear_fwd(&n, &a);
    advance(&n, 5000);
    CHECK_EQ(n.f.ntx, 3);
    /* heard after a recovery: no sample (Karn), and the timeout stays
     * backed off (doubled) until a clean one */
    CHECK(!(n.r->flows[0].flags & MIP_RELAY_F_ACKFWD_OK));
    CHECK_EQ(n.r->flows[0].ack_shift, 1);
    /* never heard: recovered once ([T] part 1 does not restart the timer),
     * after twice gamma * rtt (no ACK-forwarding sample yet) */
    feed_data(&n, false, 1040, 40, 11);
    a = feed_ack(&n, false, 1080, 51);
    fixture_clear(&n.f);
    to = ((n.r->flows[0].rtt_q8 >> 8) * 2u) << 1;
    CHECK(to > 300u);
    advance(&n, to - 1u);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_recovered), 1u);
    advance(&n, 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_recovered), 2u);
    for (k = 0; k < 20; k++)
        advance(&n, 100);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_recovered), 2u);
    CHECK_EQ(n.r->flows[0].ack_shift, 2);
    /* a clean sample ends the backoff */
    feed_data(&n, false, 1080, 40, 12);
    a = feed_ack(&n, false, 1120, 52);
    advance(&n, 30);
    overhear_fwd(&n, &a);
    CHECK(n.r->flows[0].flags & MIP_RELAY_F_ACKFWD_OK);
    CHECK_EQ(n.r->flows[0].ackfwd_q8 >> 8, 30);
    CHECK_EQ(n.r->flows[0].ack_shift, 0);
    node_free(&n);
}

/* A copy of a segment this node already forwarded (same source and IP ID,
 * e.g. a local retransmission upstream) is dropped; an end-to-end
 * retransmission (new IP ID) is not. */
static void test_history_drops_local_copy_not_e2e(void)
{
    struct node n;
    struct tseg d;
    struct mip_relay_config c;
    mip_relay_config_default(&c, MIP_RELAY_TSS);
    c.max_local_rexmit = 0;                /* give up at the first timeout */
    node_init_cfg(&n, &c);
    handshake(&n, false, 100);
    d = feed_data(&n, false, 1000, 40, 10);
    CHECK_EQ(n.f.ntx, 1);
    advance(&n, 150);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_rexmit_gave_up), 1);
    CHECK_EQ(n.r->flows[0].transmitted, 1000);
    /* by the TSS rules alone this would be forwarded again */
    feed_seg(&n, &d);
    CHECK_EQ(n.f.ntx, 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_dup_dropped), 1);
    d.id = 99;
    feed_seg(&n, &d);
    CHECK_EQ(n.f.ntx, 2);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 2);
    node_free(&n);
}

/* Data the successor had (implicit ACK) but dst never acknowledged: lost
 * further on. Its end-to-end retransmission passes (uncached, nothing
 * changes); a copy with the IP ID already forwarded does not. Without this
 * a connection whose data was given up downstream could never recover. */
static void test_e2e_retransmission_of_confirmed_data_passes(void)
{
    struct node n;
    struct tseg d;
    struct sent s;
    node_init_connected(&n, false);
    d = feed_data(&n, false, 1000, 40, 10);
    overhear_fwd(&n, &d);
    CHECK_EQ(n.r->flows[0].confirmed, 1040);
    CHECK_EQ(n.f.ntx, 1);
    feed_seg(&n, &d);                       /* a copy: same IP ID */
    CHECK_EQ(n.f.ntx, 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_dup_dropped), 1);
    d.id = 20;                              /* the sender's own retransmission */
    feed_seg(&n, &d);
    CHECK_EQ(n.f.ntx, 2);
    CHECK(sent_at(&n, 1, &s));
    CHECK_EQ(s.h.seq, 1000);
    CHECK_EQ(s.id, 20);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_e2e_forwarded), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 1);
    CHECK_EQ(n.r->flows[0].transmitted, 1040);
    CHECK_EQ(n.r->flows[0].confirmed, 1040);
    /* and the next segment still goes on as usual */
    feed_data(&n, false, 1040, 40, 21);
    CHECK_EQ(n.f.ntx, 3);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 2);
    node_free(&n);
}

/* More segments than slots, more connections than flow entries: slots
 * never exceed their bound, the least recently used flow goes. */
static void test_bounds_flows_and_slots(void)
{
    struct node n;
    struct tseg d;
    unsigned i, j, k;
    node_init(&n);
    for (k = 0; k < 2; k++) {
        for (i = 0; i < MIP_RELAY_FLOWS; i++) {
            d = data(false, 1000 + 40 * k, 40, (uint16_t)(100 + i + 10 * k));
            d.sport = (uint16_t)(2000 + i);
            feed_seg(&n, &d);
            n.f.now += 1;
            CHECK(flows_used(&n) <= MIP_RELAY_FLOWS);
            CHECK(slots_used(&n, MIP_RELAY_SLOT_CACHE) + slots_used(&n, MIP_RELAY_SLOT_BUFFER) <=
                  MIP_RELAY_SLOTS);
        }
    }
    CHECK_EQ(flows_used(&n), MIP_RELAY_FLOWS);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_CACHE) + slots_used(&n, MIP_RELAY_SLOT_BUFFER),
             MIP_RELAY_FLOWS * 2u < MIP_RELAY_SLOTS ? MIP_RELAY_FLOWS * 2u : MIP_RELAY_SLOTS);
    if (MIP_RELAY_FLOWS * 2u > MIP_RELAY_SLOTS)
        CHECK(rstat(&n, MIP_RELAY_STAT_not_cached) > 0);
    /* one cache + one buffer per flow at most */
    for (i = 0; i < MIP_RELAY_FLOWS; i++) {
        unsigned c = 0, b = 0;
        for (j = 0; j < MIP_RELAY_SLOTS; j++) {
            c += n.r->slots[j].used == MIP_RELAY_SLOT_CACHE && n.r->slots[j].flow == i;
            b += n.r->slots[j].used == MIP_RELAY_SLOT_BUFFER && n.r->slots[j].flow == i;
        }
        CHECK(c <= 1 && b <= 1);
    }
    /* two more connections: the two least recently used go */
    for (i = 0; i < 2; i++) {
        d = data(false, 1000, 40, (uint16_t)(200 + i));
        d.sport = (uint16_t)(3000 + i);
        feed_seg(&n, &d);
        n.f.now += 1;
        CHECK(flows_used(&n) <= MIP_RELAY_FLOWS);
    }
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_flows_new), MIP_RELAY_FLOWS + 2u);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_flows_evicted), 2);
    for (i = 0; i < MIP_RELAY_FLOWS; i++)
        CHECK(n.r->flows[i].sport != 2000 && n.r->flows[i].sport != 2001);
    /* idle flows are forgotten */
    advance(&n, 61000);
    CHECK_EQ(flows_used(&n), 0);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_CACHE) + slots_used(&n, MIP_RELAY_SLOT_BUFFER), 0);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), MIP_POLL_IDLE);
    node_free(&n);
}

/* RST forgets both directions; FIN both ways forgets them once nothing is
 * cached. */
static void test_rst_and_fin_evict(void)
{
    struct node n;
    struct tseg d;
    node_init_connected(&n, false);
    CHECK_EQ(flows_used(&n), 2);
    d = data(false, 1000, 0, 10);
    d.flags = MIP_TCP_RST | MIP_TCP_ACK;
    feed_seg(&n, &d);
    CHECK_EQ(flows_used(&n), 0);
    handshake(&n, false, 100);
    d = data(false, 1000, 0, 11);
    d.flags = MIP_TCP_FIN | MIP_TCP_ACK;
    feed_seg(&n, &d);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 1);     /* a FIN takes sequence space */
    d = ackseg(false, 1001, 60);
    d.flags = MIP_TCP_FIN | MIP_TCP_ACK;
    feed_seg(&n, &d);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_CACHE), 1);  /* D's FIN, now cached */
    advance(&n, 1);
    CHECK_EQ(flows_used(&n), 1);                        /* S -> D: nothing cached */
    d = data(false, 1001, 0, 12);                       /* the last ACK */
    d.ack = 5002;
    feed_seg(&n, &d);
    advance(&n, 1);
    CHECK_EQ(flows_used(&n), 0);
    node_free(&n);
}

/* An MHR from short `from` to short `to`, then an IPHC header for the IPv6
 * datagram ip (first `take` bytes after the header follow it); with
 * frag_size a FRAG1 header first. */
static size_t iphc_frame(uint8_t *out, uint16_t from, uint16_t to, const uint8_t *ip,
                         size_t len, size_t take, uint16_t frag_size)
{
    struct mip_802154_hdr h;
    struct mip_802154_addr ls, ld;
    struct mip_lowpan_env env;
    size_t hl = 0, fl = 0, consumed = 0, cl = 0;
    mhr_short(&h, from, to);
    CHECK_EQ(mip_ieee802154_emit(&h, out, 64, &hl), MIP_OK);
    if (frag_size) {
        struct mip_lowpan_frag fr;
        memset(&fr, 0, sizeof(fr));
        fr.first = true;
        fr.size = frag_size;
        fr.tag = 0x77;
        CHECK_EQ(mip_lowpan_frag_emit(&fr, out + hl, 8, &fl), MIP_OK);
    }
    ls = h.src;
    ld = h.dst;
    memset(&env, 0, sizeof(env));
    env.src = &ls;
    env.dst = &ld;
    CHECK_EQ(mip_lowpan_iphc_compress(ip, len, &env, out + hl + fl, 64, &consumed, &cl), MIP_OK);
    CHECK_EQ(consumed, 40);
    if (take > len - 40)
        take = len - 40;
    memcpy(out + hl + fl + cl, ip + 40, take);
    return hl + fl + cl + take;
}

/* R overhears `from` sending ip on to short 3 in an IPHC frame (iphc_frame's
 * take and frag_size). */
static void overhear_iphc(struct mip_relay *r, uint32_t now, uint16_t from, const uint8_t *ip,
                          size_t len, size_t take, uint16_t frag_size)
{
    uint8_t fr[200];
    size_t fl = iphc_frame(fr, from, 3, ip, len, take, frag_size);
    mip_relay_overheard(r, 0, fr, fl, now);
}

/* pkt offered to the stack's forward hook in a heap copy, as IP does. */
static enum mip_fwd_verdict fwd_hook_offer(struct fixture *f, const uint8_t *pkt, size_t len)
{
    uint8_t *heap = malloc(len);
    enum mip_fwd_verdict v;
    memcpy(heap, pkt, len);
    v = f->s->fwd_hook(f->s->fwd_hook_ctx, f->s, 0, 0, heap, len);
    free(heap);
    return v;
}

/* Overheard 6LoWPAN frames (IPHC, and a FRAG1 carrying only the start of
 * a long datagram) are implicit ACKs too. */
static void test_overheard_iphc_and_frag1(void)
{
    static const uint8_t seed[16] = {1};
    struct fixture f;
    struct mip_relay *r = calloc(1, sizeof(*r));
    struct tseg d;
    uint8_t pkt[300];
    size_t len;
    memset(&f, 0, sizeof(f));
    stack_new(&f, seed, 1000);
    (void)radio_add(&f, MIP_LOWPAN_IPHC, 127, 0);
    addr_add(&f, "fd00::ff:fe00:5", 64);
    route_add(&f, "fd02::", 64, "fd00::ff:fe00:4");
    CHECK_EQ(mip_relay_init(r, f.s, NULL, f.now), MIP_OK);

    /* a short segment through the hook, then N forwarding it in one frame */
    d = data(true, 1000, 30, 5);
    len = mk(pkt, &d);
    CHECK_EQ(fwd_hook_offer(&f, pkt, len), MIP_FWD_PASS);
    CHECK_EQ(mip_relay_stat(r, MIP_RELAY_STAT_cached), 1);
    pkt[7]--;
    overhear_iphc(r, f.now, SHORT_N, pkt, len, len, 0);
    CHECK_EQ(mip_relay_stat(r, MIP_RELAY_STAT_implicit_acks), 1);
    CHECK_EQ(r->flows[0].confirmed, 1030);

    /* a 200-byte datagram: N's FRAG1 holds only its start */
    d = data(true, 1030, 140, 6);
    len = mk(pkt, &d);
    CHECK_EQ(len, 200);
    CHECK_EQ(fwd_hook_offer(&f, pkt, len), MIP_FWD_PASS);
    CHECK_EQ(mip_relay_stat(r, MIP_RELAY_STAT_cached), 2);
    pkt[7]--;
    /* from another node: nothing */
    overhear_iphc(r, f.now, 9, pkt, len, 36, (uint16_t)len);
    CHECK_EQ(mip_relay_stat(r, MIP_RELAY_STAT_implicit_acks), 1);
    /* truncated inside the TCP header: nothing */
    overhear_iphc(r, f.now, SHORT_N, pkt, len, 12, (uint16_t)len);
    CHECK_EQ(mip_relay_stat(r, MIP_RELAY_STAT_implicit_acks), 1);
    overhear_iphc(r, f.now, SHORT_N, pkt, len, 36, (uint16_t)len);
    CHECK_EQ(mip_relay_stat(r, MIP_RELAY_STAT_implicit_acks), 2);
    CHECK_EQ(r->flows[0].confirmed, 1170);
    CHECK_EQ(r->slots[0].used + r->slots[1].used, 0);
    fixture_free(&f);
    free(r);
}

/* Datagrams the relay does not understand pass untouched and are counted. */
static void test_malformed_passes_untouched(void)
{
    struct node n;
    uint8_t pkt[300], copy[300];
    size_t len;
    struct tseg d;
    uint32_t ign;
    mip_fwd_hook_fn hook;
    void *ctx;
    node_init(&n);
    hook = n.f.s->fwd_hook;
    ctx = n.f.s->fwd_hook_ctx;
    d = data(false, 1000, 40, 10);
    len = mk(pkt, &d);
#define PASSES(buf, l)                                                                 \
    do {                                                                               \
        uint8_t *heap_ = malloc((l) ? (l) : 1);                                        \
        memcpy(heap_, (buf), (l));                                                     \
        memcpy(copy, (buf), (l));                                                      \
        ign = rstat(&n, MIP_RELAY_STAT_ignored);                                       \
        CHECK_EQ(hook(ctx, n.f.s, 0, 0, heap_, (l)), MIP_FWD_PASS);                    \
        CHECK_MEM(heap_, copy, (l));                                                   \
        CHECK_EQ(rstat(&n, MIP_RELAY_STAT_ignored), ign + 1);                          \
        free(heap_);                                                                   \
    } while (0)
    PASSES(pkt, (size_t)0);
    PASSES(pkt, (size_t)10);                 /* truncated IP header */
    PASSES(pkt, (size_t)30);                 /* total length beyond the bytes */
    PASSES(pkt, (size_t)35);                 /* truncated TCP header */
    {
        uint8_t b[300];
        memcpy(b, pkt, len);
        b[20 + 12] = 0x30;                   /* data offset 3 */
        PASSES(b, len);
        b[20 + 12] = 0xF0;                   /* 60 bytes of header in 80 of segment, bad options */
        PASSES(b, len);
        memcpy(b, pkt, len);
        b[6] = 0x20;                         /* MF: a fragment */
        ip4_fix_hdr_cksum(b);
        PASSES(b, len);
        memcpy(b, pkt, len);
        b[20 + 16] ^= 0xFF;                  /* bad TCP checksum */
        PASSES(b, len);
        memcpy(b, pkt, len);
        b[9] = 17;                           /* UDP */
        PASSES(b, len);
        b[0] = 0x75;                         /* version 7 */
        PASSES(b, len);
    }
    {
        /* IPv6 with a fragment header before TCP */
        uint8_t b[300], tcp[300];
        struct tseg d6 = data(true, 1000, 20, 10);
        size_t l6 = mk(tcp, &d6);
        memcpy(b, tcp, 40);
        b[6] = 44;
        CHECK_EQ(mip_ipv6_frag_emit(6, 0, true, 1234, b + 40, 8), MIP_OK);
        memcpy(b + 48, tcp + 40, l6 - 40);
        mip_wr16(b + 4, (uint16_t)(l6 - 40 + 8));
        PASSES(b, l6 + 8);
    }
#undef PASSES
    /* through the stack too: a TCP fragment is forwarded as it came */
    {
        uint8_t b[300];
        memcpy(b, pkt, len);
        b[6] = 0x20;
        ip4_fix_hdr_cksum(b);
        ign = rstat(&n, MIP_RELAY_STAT_ignored);
        feed(&n, SHORT_U, b, len);
        CHECK_EQ(n.f.ntx, 1);
        CHECK_EQ(n.f.tx[0].len, len + 10);
        CHECK_MEM(n.f.tx[0].data + 10 + 12, b + 12, len - 12);   /* all but TTL/checksum */
        CHECK_EQ(rstat(&n, MIP_RELAY_STAT_ignored), ign + 1);
    }
    CHECK_EQ(flows_used(&n), 0);
    /* overheard garbage: no crash, nothing learnt */
    {
        uint8_t fr[300];
        size_t i, fl;
        for (i = 0; i < 40; i++) {
            memset(fr, (int)(i * 37u), sizeof(fr));
            mip_relay_overheard(n.r, 0, fr, i * 7u, n.f.now);
        }
        fl = frame(fr, SHORT_N, 3, pkt, 30);
        mip_relay_overheard(n.r, 0, fr, fl, n.f.now);
        mip_relay_overheard(n.r, 3, fr, fl, n.f.now);   /* no such netif */
        CHECK_EQ(rstat(&n, MIP_RELAY_STAT_overheard), 0);
    }
    node_free(&n);
}

/* --- TSS at the source end point (the local hook) ---------------------------- */

static uint8_t backlog(const struct node *n)
{
    struct mip_addr s = fixture_addr("10.0.0.5"), d = fixture_addr("10.0.2.10");
    return mip_relay_backlog(n->r, &s, &d, SPORT, DPORT);
}

static void test_source_queue_released_in_order(void)
{
    struct node n;
    struct tseg t, a;
    struct sent s;
    unsigned k;
    src_is_r = "10.0.0.5";
    node_init(&n);
    /* handshake: R's SYN out, D's SYN-ACK in 100 ms later (the rtt) */
    memset(&t, 0, sizeof(t));
    t.seq = 999;
    t.flags = MIP_TCP_SYN;
    t.id = 1;
    CHECK_EQ(local(&n, true, &t), MIP_FWD_PASS);
    CHECK_EQ(flows_used(&n), 1);
    n.f.now += 100;
    a = ackseg(false, 1000, 1);
    a.seq = 5000;
    a.flags = MIP_TCP_SYN | MIP_TCP_ACK;
    CHECK_EQ(local(&n, false, &a), MIP_FWD_PASS);
    CHECK_EQ(n.r->flows[0].rtt_q8 >> 8, 100);
    /* pure ACKs pass untouched */
    t = data(false, 1000, 0, 2);
    CHECK_EQ(local(&n, true, &t), MIP_FWD_PASS);

    /* the first segment goes at once and is cached; the next ones wait */
    t = data(false, 1000, 40, 10);
    CHECK_EQ(local(&n, true, &t), MIP_FWD_PASS);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 1);
    t = data(false, 1040, 40, 11);
    CHECK_EQ(local(&n, true, &t), MIP_FWD_TAKEN);
    t = data(false, 1080, 40, 12);
    CHECK_EQ(local(&n, true, &t), MIP_FWD_TAKEN);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_src_held), 2);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_QUEUE), 2);
    CHECK_EQ(backlog(&n), 2);
    /* TCP sends a waiting one again: the relay keeps the copy it has */
    t = data(false, 1040, 40, 13);
    CHECK_EQ(local(&n, true, &t), MIP_FWD_TAKEN);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_dup_dropped), 1);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_QUEUE), 2);

    /* N heard forwarding the first: the second goes forward_delay later */
    fixture_clear(&n.f);
    t = data(false, 1000, 40, 10);
    overhear_fwd(&n, &t);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_implicit_acks), 1);
    CHECK_EQ(backlog(&n), 2);                  /* the second is not sent yet */
    check_one_sent_after(&n, n.r->cfg.forward_delay_ms, 0);
    CHECK(sent_at(&n, 0, &s));
    CHECK_EQ(s.to, SHORT_N);
    CHECK_EQ(s.h.seq, 1040);
    CHECK_EQ(s.id, 11);                        /* the datagram TCP sent first */
    CHECK_EQ(backlog(&n), 1);
    /* a TCP ACK from D confirms it: the third goes at once */
    a = ackseg(false, 1080, 2);
    CHECK_EQ(local(&n, false, &a), MIP_FWD_PASS);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 1);
    CHECK_EQ(n.f.ntx, 2);
    CHECK(sent_at(&n, 1, &s));
    CHECK_EQ(s.h.seq, 1080);
    CHECK_EQ(backlog(&n), 0);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_QUEUE), 0);

    /* the queue fills every free slot; then segments pass unqueued, never
     * dropped */
    for (k = 0; k < MIP_RELAY_SLOTS + 2u; k++) {
        t = data(false, 1120u + 40u * k, 40, (uint16_t)(20u + k));
        CHECK_EQ(local(&n, true, &t),
                 k < MIP_RELAY_SLOTS - 1u ? MIP_FWD_TAKEN : MIP_FWD_PASS);
    }
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_QUEUE), MIP_RELAY_SLOTS - 1u);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_CACHE), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_not_cached), 3);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_gap_dropped), 0);
    /* an RST in ends it all */
    a = ackseg(false, 1120, 3);
    a.flags = MIP_TCP_RST;
    (void)local(&n, false, &a);
    CHECK_EQ(flows_used(&n), 0);
    CHECK_EQ(slots_used(&n, MIP_RELAY_SLOT_QUEUE), 0);
    src_is_r = NULL;
    node_free(&n);
}

/* Own segments sent straight to their destination pass: nothing to overhear. */
static void test_source_next_hop_is_destination(void)
{
    struct node n;
    struct tseg t;
    src_is_r = "10.0.0.5";
    node_init(&n);
    t = data(false, 1000, 40, 10);
    {
        /* to U itself (10.0.0.6, on link) */
        uint8_t pkt[300];
        size_t len = mk(pkt, &t);
        struct mip_addr u = fixture_addr("10.0.0.6");
        memcpy(pkt + 16, u.bytes, 4);
        ip4_fix_hdr_cksum(pkt);
        CHECK_EQ(n.f.s->local_hook(n.f.s->local_hook_ctx, n.f.s, true, 0, pkt, len),
                 MIP_FWD_PASS);
    }
    CHECK_EQ(flows_used(&n), 0);
    src_is_r = NULL;
    node_free(&n);
}

int main(void)
{
    RUN(test_init_modes_and_validation);
    RUN(test_stat_names);
    RUN(test_cache_and_implicit_ack_v4);
    RUN(test_cache_and_implicit_ack_v6);
    RUN(test_local_rexmit_then_give_up);
    RUN(test_rtt_sample_and_karn);
    RUN(test_tcp_ack_clears_cache);
    RUN(test_backpressure_buffer_released_after_delay);
    RUN(test_ack_releases_buffer);
    RUN(test_ack_release_waits_for_the_tcp_ack);
    RUN(test_data_beyond_transmitted_dropped);
    RUN(test_regenerate_ack_v4);
    RUN(test_regenerate_ack_v6);
    RUN(test_duplicate_ack_suppressed);
    RUN(test_ack_recovery);
    RUN(test_history_drops_local_copy_not_e2e);
    RUN(test_e2e_retransmission_of_confirmed_data_passes);
    RUN(test_bounds_flows_and_slots);
    RUN(test_rst_and_fin_evict);
    RUN(test_overheard_iphc_and_frag1);
    RUN(test_malformed_passes_untouched);
    RUN(test_source_queue_released_in_order);
    RUN(test_source_next_hop_is_destination);
    return TESTING_DONE();
}

#else

int main(void)
{
    printf("relay: not in this profile (MIP_CONF_FORWARD)\n");
    return 0;
}

#endif
