/* DTC on one forwarding node, driven through its stack (the node, its
 * neighbours and the helpers: relay_fixture.h). Before any RTT sample the
 * local RTO is 1.5 * rtt_init_ms = 1500 ms. */
#include "relay_fixture.h"

#if MIP_CONF_FORWARD && MIP_CONF_LOWPAN && MIP_CONF_IPV4 && MIP_CONF_IPV6

#define FIRST_RTO 1500u

static void dtc_node(struct node *n, bool v6, bool sack)
{
    struct mip_relay_config c;
    mip_relay_config_default(&c, MIP_RELAY_DTC);
    CHECK(c.dtc_sack);
    CHECK_EQ(c.rto_mult_q8, 384);
    c.dtc_sack = sack;
    node_init_cfg(n, &c);
    handshake_sack(n, v6, 0, true);
}

/* The link layer's report on R's frame carrying data seq..seq+len. */
static void link_report(struct node *n, bool v6, uint32_t seq, uint16_t len, bool ok)
{
    struct tseg t = data(v6, seq, len, 9);
    link_report_seg(n, &t, ok);
}

static const struct mip_relay_slot *cached(const struct node *n)
{
    unsigned i;
    for (i = 0; i < MIP_RELAY_SLOTS; i++)
        if (n->r->slots[i].used == MIP_RELAY_SLOT_CACHE)
            return &n->r->slots[i];
    return NULL;
}

/* A DTC node holding segment 1000..1100, forwarded to N, its link report
 * in (ok) or not yet (report false). */
static void node_with_cached(struct node *n, bool v6, bool sack, bool report, bool ok)
{
    dtc_node(n, v6, sack);
    feed_data(n, v6, 1000, 100, 3);
    if (report)
        link_report(n, v6, 1000, 100, ok);
}

/* An ACK from D with SACK blocks. */
static void feed_sack(struct node *n, bool v6, uint32_t ack, uint16_t id, uint8_t nblocks,
                      uint32_t l0, uint32_t r0)
{
    struct tseg t = ackseg(v6, ack, id);
    t.nsack = nblocks;
    t.sack[0].left = l0;
    t.sack[0].right = r0;
    feed_seg(n, &t);
}

static void test_caches_the_highest_segment_once_its_link_reported(void)
{
    struct node n;
    dtc_node(&n, false, true);
    feed_data(&n, false, 1000, 100, 3);
    CHECK(cached(&n) != NULL && cached(&n)->seq == 1000);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 1);
    /* the next one arrives before the link layer reported on 1000 */
    feed_data(&n, false, 1100, 100, 4);
    CHECK_EQ(cached(&n)->seq, 1000);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_not_cached), 1);
    link_report(&n, false, 1000, 100, true);
    feed_data(&n, false, 1200, 100, 5);
    CHECK_EQ(cached(&n)->seq, 1200);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_replaced), 1);
    /* every segment went on unchanged */
    CHECK_EQ(n.f.ntx, 3);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 0);
    node_free(&n);
}

static void test_no_link_ack_locks_and_the_timer_resends(void)
{
    struct node n;
    struct sent s;
    unsigned i;
    node_with_cached(&n, true, true, true, false);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_locked), 1);
    link_report(&n, true, 1100, 100, false);     /* not the cached one */
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_locked), 1);
    /* a locked segment is not replaced, even after its report */
    feed_data(&n, true, 1100, 100, 4);
    CHECK_EQ(cached(&n)->seq, 1000);
    fixture_clear(&n.f);
    check_one_sent_after(&n, FIRST_RTO, 0);
    CHECK(sent_at(&n, 0, &s));
    CHECK_EQ(s.to, SHORT_N);
    CHECK_EQ(s.h.seq, 1000);
    CHECK_EQ(s.len, 100);
    /* backed off: the next one 2 * 1500 later, up to max_local_rexmit (4) */
    check_one_sent_after(&n, 2u * FIRST_RTO, 1);
    check_one_sent_after(&n, 4u * FIRST_RTO, 2);
    check_one_sent_after(&n, 8u * FIRST_RTO, 3);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 4);
    for (i = 0; i < 40; i++)
        advance(&n, 1000);
    CHECK_EQ(n.f.ntx, 4);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_rexmit_gave_up), 1);
    CHECK(cached(&n) == NULL);
    node_free(&n);
}

static void test_ack_covering_the_segment_clears_it(void)
{
    struct node n;
    struct sent s;
    node_with_cached(&n, false, true, true, false);
    advance(&n, 200);
    fixture_clear(&n.f);
    feed_ack(&n, false, 1100, 7);
    CHECK(cached(&n) == NULL);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 1);
    CHECK_EQ(n.f.ntx, 1);                       /* the ACK, on to U */
    CHECK(sent_at(&n, 0, &s));
    CHECK_EQ(s.to, SHORT_U);
    CHECK_EQ(s.h.ack, 1100);
    /* the relay's RTT: forwarded at t, ACKed at t + 200 */
    CHECK_EQ(n.r->flows[0].rtt_q8 >> 8, 200);
    advance(&n, 10 * FIRST_RTO);
    CHECK_EQ(n.f.ntx, 1);
    node_free(&n);
}

/* Without SACK: an ACK naming the cached segment is a loss signal when it
 * repeats (or an rtt after the segment went); the node resends and keeps
 * the ACK from the sender ([D] Fig. 9.2). The first such ACK, just after
 * the segment went, may answer the segment before it: forwarded. */
static void test_duplicate_ack_resends_and_is_suppressed(void)
{
    struct node n;
    struct sent s;
    node_with_cached(&n, false, false, true, true);
    fixture_clear(&n.f);
    feed_ack(&n, false, 1000, 7);
    CHECK_EQ(n.f.ntx, 1);
    CHECK(sent_at(&n, 0, &s));
    CHECK_EQ(s.to, SHORT_U);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 0);
    feed_ack(&n, false, 1000, 8);                /* the duplicate */
    CHECK_EQ(n.f.ntx, 2);
    CHECK(sent_at(&n, 1, &s));
    CHECK_EQ(s.to, SHORT_N);
    CHECK_EQ(s.h.seq, 1000);
    CHECK_EQ(s.len, 100);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_dropped), 1);
    /* more duplicates while the copy may still be on its way: dropped,
     * not resent again */
    feed_ack(&n, false, 1000, 9);
    CHECK_EQ(n.f.ntx, 2);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_dropped), 2);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 1);
    /* an rtt (1000 ms before any sample) later the copy counts as lost */
    advance(&n, 1000);
    feed_ack(&n, false, 1000, 10);
    CHECK_EQ(n.f.ntx, 3);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 2);
    node_free(&n);
}

/* The ACK comes an rtt after the segment went: a loss at once. */
static void test_late_ack_naming_the_segment_resends(void)
{
    struct node n;
    node_with_cached(&n, true, false, true, true);
    advance(&n, 1000);
    fixture_clear(&n.f);
    feed_ack(&n, true, 1000, 7);
    CHECK_EQ(n.f.ntx, 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_dropped), 1);
    node_free(&n);
}

/* With SACK: the resending node writes its segment into the ACK so that
 * nodes upstream clear their copies; a gap left elsewhere still goes to
 * the sender. */
static void sack_block_added(bool v6)
{
    struct node n;
    struct sent s;
    node_with_cached(&n, v6, true, true, true);
    fixture_clear(&n.f);
    /* D lacks 900..1100 and holds 1100..1200 */
    feed_sack(&n, v6, 900, 7, 1, 1100, 1200);
    CHECK_EQ(n.f.ntx, 2);
    CHECK(sent_at(&n, 0, &s));                   /* the resent segment */
    CHECK_EQ(s.to, SHORT_N);
    CHECK_EQ(s.h.seq, 1000);
    CHECK(sent_at(&n, 1, &s));                   /* the ACK, rewritten */
    CHECK_EQ(s.to, SHORT_U);
    CHECK_EQ(s.h.ack, 900);
    CHECK_EQ(s.o.sack_count, 1);
    CHECK_EQ(s.o.sack[0].left, 1000);            /* joined with 1100..1200 */
    CHECK_EQ(s.o.sack[0].right, 1200);
    CHECK_EQ(s.h.hdr_len, 20 + 12);              /* NOP NOP SACK(1 block) */
    CHECK_EQ(s.ip_len, (v6 ? 40u : 20u) + 32u);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_sack_added), 1);
    /* an upstream node holding 1000 sees it covered: cleared, forwarded */
    node_free(&n);
    node_with_cached(&n, v6, true, false, false);
    fixture_clear(&n.f);
    feed_sack(&n, v6, 900, 7, 1, 1000, 1200);
    CHECK(cached(&n) == NULL);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 0);
    CHECK_EQ(n.f.ntx, 1);
    CHECK(sent_at(&n, 0, &s));
    CHECK_EQ(s.o.sack_count, 1);
    CHECK_EQ(s.o.sack[0].left, 1000);
    node_free(&n);
}

static void test_sack_block_added_v4(void) { sack_block_added(false); }
static void test_sack_block_added_v6(void) { sack_block_added(true); }

/* The resent segment fills the only gap: nobody upstream needs the ACK. */
static void test_ack_without_gap_is_dropped(void)
{
    struct node n;
    struct sent s;
    node_with_cached(&n, false, true, true, true);
    fixture_clear(&n.f);
    feed_sack(&n, false, 1000, 7, 1, 1100, 1300);
    CHECK_EQ(n.f.ntx, 1);
    CHECK(sent_at(&n, 0, &s));
    CHECK_EQ(s.to, SHORT_N);
    CHECK_EQ(s.h.seq, 1000);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_dropped), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_sack_added), 0);
    node_free(&n);
}

/* Data the destination has acknowledged is answered, not forwarded, and
 * the answer never acknowledges more than the destination did. */
static void test_acknowledged_data_gets_a_regenerated_ack(void)
{
    struct node n;
    struct sent s;
    dtc_node(&n, false, true);
    feed_data(&n, false, 1000, 100, 3);
    feed_data(&n, false, 1100, 100, 4);
    feed_ack(&n, false, 1100, 7);
    fixture_clear(&n.f);
    feed_data(&n, false, 1000, 100, 5);          /* the sender missed the ACK */
    CHECK_EQ(n.f.ntx, 1);
    CHECK(sent_at(&n, 0, &s));
    CHECK_EQ(s.to, SHORT_U);
    CHECK_EQ(s.len, 0);
    CHECK_EQ(s.h.ack, 1100);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_regenerated), 1);
    /* partly acknowledged: forwarded */
    feed_data(&n, false, 1100, 100, 6);
    CHECK_EQ(n.f.ntx, 2);
    CHECK(sent_at(&n, 1, &s));
    CHECK_EQ(s.to, SHORT_N);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_regenerated), 1);
    node_free(&n);
}

/* A local retransmission carries the newest TSval seen in the flow, or the
 * receiver's PAWS check would drop it after a newer end-to-end copy. */
static void test_resent_copy_carries_the_newest_timestamp(void)
{
    struct node n;
    struct sent s;
    struct tseg t;
    dtc_node(&n, false, true);
    t = data(false, 1000, 100, 3);
    t.ts = true;
    t.tsval = 50;
    t.tsecr = 7;
    feed_seg(&n, &t);
    link_report(&n, false, 1000, 100, false);
    t = data(false, 1100, 100, 4);
    t.ts = true;
    t.tsval = 80;
    t.tsecr = 7;
    feed_seg(&n, &t);
    fixture_clear(&n.f);
    check_one_sent_after(&n, FIRST_RTO, 0);
    CHECK(sent_at(&n, 0, &s));                  /* checksums verified */
    CHECK_EQ(s.h.seq, 1000);
    CHECK(s.o.present & MIP_TCP_HAS_TIMESTAMP);
    CHECK_EQ(s.o.ts_val, 80);
    CHECK_EQ(s.o.ts_ecr, 7);
    node_free(&n);
}

static void test_rst_forgets_the_connection(void)
{
    struct node n;
    struct tseg t;
    node_with_cached(&n, false, true, false, false);
    CHECK(cached(&n) != NULL);
    t = ackseg(false, 1000, 7);
    t.flags = MIP_TCP_RST;
    feed_seg(&n, &t);
    CHECK(cached(&n) == NULL);
    CHECK_EQ(flows_used(&n), 0);
    node_free(&n);
}

/* dtc_endpoints: the sender's own segment, lost on its first hop, is
 * resent by the node's relay; ACKs reaching the sender only clear (its
 * TCP reads their loss signals itself). Off: own segments are not cached. */
static void endpoint_node(struct node *n, bool endpoints)
{
    struct mip_relay_config c;
    struct tseg t, a;
    mip_relay_config_default(&c, MIP_RELAY_DTC);
    c.dtc_endpoints = endpoints;
    node_init_cfg(n, &c);
    memset(&t, 0, sizeof(t));
    t.seq = 999;
    t.flags = MIP_TCP_SYN;
    t.sack_perm = true;
    t.id = 1;
    CHECK_EQ(local(n, true, &t), MIP_FWD_PASS);
    a = ackseg(false, 1000, 1);
    a.seq = 5000;
    a.flags = MIP_TCP_SYN | MIP_TCP_ACK;
    a.sack_perm = true;
    CHECK_EQ(local(n, false, &a), MIP_FWD_PASS);
    t = data(false, 1000, 100, 2);
    CHECK_EQ(local(n, true, &t), MIP_FWD_PASS);
}

static void test_sender_protects_its_first_hop(void)
{
    struct node n;
    struct sent s;
    struct tseg a;
    src_is_r = "10.0.0.5";
    endpoint_node(&n, true);
    CHECK(cached(&n) != NULL && cached(&n)->seq == 1000);
    link_report(&n, false, 1000, 100, false);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_locked), 1);
    fixture_clear(&n.f);
    check_one_sent_after(&n, FIRST_RTO, 0);
    CHECK(sent_at(&n, 0, &s));
    CHECK_EQ(s.to, SHORT_N);
    CHECK_EQ(s.h.seq, 1000);
    CHECK_EQ(s.len, 100);
    /* duplicate ACKs at the sender: no resend from the relay */
    a = ackseg(false, 1000, 3);
    CHECK_EQ(local(&n, false, &a), MIP_FWD_PASS);
    CHECK_EQ(local(&n, false, &a), MIP_FWD_PASS);
    CHECK_EQ(n.f.ntx, 1);
    a = ackseg(false, 1100, 4);
    CHECK_EQ(local(&n, false, &a), MIP_FWD_PASS);
    CHECK(cached(&n) == NULL);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 1);
    advance(&n, 10 * FIRST_RTO);
    CHECK_EQ(n.f.ntx, 1);
    node_free(&n);
    endpoint_node(&n, false);
    CHECK(cached(&n) == NULL);
    CHECK_EQ(flows_used(&n), 0);
    node_free(&n);
    src_is_r = NULL;
}

/* ack_repair (ours): the latest ACK, lost on R's hop towards S, is sent
 * again from the template at once, a bounded number of times; an older
 * ACK's loss is not repaired (the newer one overtook it). */
static void ack_repair(bool v6)
{
    struct node n;
    struct mip_relay_config c;
    struct sent s;
    struct tseg a;
    unsigned i;
    mip_relay_config_default(&c, MIP_RELAY_DTC);
    c.ack_repair = true;
    node_init_cfg(&n, &c);
    handshake_sack(&n, v6, 0, true);
    feed_data(&n, v6, 1000, 100, 3);
    feed_data(&n, v6, 1100, 100, 4);
    feed_ack(&n, v6, 1100, 7);
    a = feed_ack(&n, v6, 1200, 8);
    fixture_clear(&n.f);
    link_report_seg(&n, &a, true);
    CHECK_EQ(n.f.ntx, 0);
    a.ack = 1100;
    link_report_seg(&n, &a, false);                /* older: overtaken */
    CHECK_EQ(n.f.ntx, 0);
    a.ack = 1200;
    for (i = 0; i < 6; i++)
        link_report_seg(&n, &a, false);
    CHECK_EQ(n.f.ntx, 4);                          /* max_local_rexmit */
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_repaired), 4);
    CHECK(sent_at(&n, 0, &s));
    CHECK_EQ(s.to, SHORT_U);
    CHECK_EQ(s.len, 0);
    CHECK_EQ(s.h.ack, 1200);
    CHECK_EQ(s.h.seq, 5001);
    {
        struct mip_addr d = fixture_addr(addr_d(v6)), src = fixture_addr(addr_s(v6));
        CHECK(mip_addr_eq(&s.src, &d));            /* in D's name, to S */
        CHECK(mip_addr_eq(&s.dst, &src));
    }
    node_free(&n);
    /* off (the paper's DTC): nothing */
    mip_relay_config_default(&c, MIP_RELAY_DTC);
    node_init_cfg(&n, &c);
    handshake_sack(&n, v6, 0, true);
    feed_data(&n, v6, 1000, 100, 3);
    a = feed_ack(&n, v6, 1100, 7);
    fixture_clear(&n.f);
    link_report_seg(&n, &a, false);
    CHECK_EQ(n.f.ntx, 0);
    node_free(&n);
}

static void test_lost_ack_repaired_v4(void) { ack_repair(false); }
static void test_lost_ack_repaired_v6(void) { ack_repair(true); }

/* The ACK of 1000 passed before 1000..1100 was cached here (it made the
 * sender send that segment). A copy of it arriving now (an ACK repaired
 * below after a lost link ACK) is not a duplicate of the cached segment:
 * it goes on, nothing is resent (fails before: the copy counted as the
 * second ACK of 1000 and drew a resend). The next ACK of 1000 is one. */
static void test_copy_of_the_ack_before_the_segment_is_no_duplicate(void)
{
    struct node n;
    struct sent s;
    dtc_node(&n, false, false);
    feed_data(&n, false, 900, 100, 2);
    link_report(&n, false, 900, 100, true);
    feed_ack(&n, false, 1000, 7);
    feed_data(&n, false, 1000, 100, 3);
    link_report(&n, false, 1000, 100, true);
    CHECK(cached(&n) != NULL && cached(&n)->seq == 1000);
    fixture_clear(&n.f);
    feed_ack(&n, false, 1000, 8);                /* the copy */
    CHECK_EQ(n.f.ntx, 1);
    CHECK(sent_at(&n, 0, &s));
    CHECK_EQ(s.to, SHORT_U);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 0);
    feed_ack(&n, false, 1000, 9);                /* a duplicate */
    CHECK_EQ(n.f.ntx, 2);
    CHECK(sent_at(&n, 1, &s));
    CHECK_EQ(s.to, SHORT_N);
    CHECK_EQ(s.h.seq, 1000);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 1);
    node_free(&n);
}

/* ack_repair_wait: R has timed its upstream turnaround (an ACK going up,
 * new data 200 ms later); the ACK of 1200 is reported lost. */
static void node_with_waiting_repair(struct node *n, bool v6)
{
    struct mip_relay_config c;
    struct tseg a;
    mip_relay_config_default(&c, MIP_RELAY_DTC);
    c.ack_repair = true;
    c.ack_repair_wait = true;
    node_init_cfg(n, &c);
    handshake_sack(n, v6, 0, true);
    feed_data(n, v6, 1000, 100, 3);
    link_report(n, v6, 1000, 100, true);
    feed_ack(n, v6, 1100, 7);
    advance(n, 200);
    feed_data(n, v6, 1100, 100, 4);
    link_report(n, v6, 1100, 100, true);
    CHECK(flow_dir(n, v6, false)->repair_flags & MIP_RELAY_R_UP_OK);
    CHECK_EQ(flow_dir(n, v6, false)->up_q8 >> 8, 200);
    a = feed_ack(n, v6, 1200, 8);
    fixture_clear(&n->f);
    link_report_seg(n, &a, false);
    CHECK_EQ(n->f.ntx, 0);                         /* not at once */
}

/* Nothing passes: the repair goes at twice the turnaround. */
static void repair_waits_twice_the_turnaround(bool v6)
{
    struct node n;
    struct sent s;
    node_with_waiting_repair(&n, v6);
    check_one_sent_after(&n, 400, 0);
    CHECK(sent_at(&n, 0, &s));
    CHECK_EQ(s.to, SHORT_U);
    CHECK_EQ(s.len, 0);
    CHECK_EQ(s.h.ack, 1200);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_repaired), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_repairs_cancelled), 0);
    node_free(&n);
}

static void test_repair_waits_twice_the_turnaround_v4(void) { repair_waits_twice_the_turnaround(false); }
static void test_repair_waits_twice_the_turnaround_v6(void) { repair_waits_twice_the_turnaround(true); }

/* New data of the flow passes first: the ACK reached the sender (the
 * report followed a lost link ACK), so the repair is dropped. A
 * retransmission of data that passed before is no such evidence. */
static void test_new_data_cancels_the_repair(void)
{
    struct node n;
    node_with_waiting_repair(&n, false);
    advance(&n, 50);
    feed_data(&n, false, 1100, 100, 9);            /* old data again */
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_repairs_cancelled), 0);
    advance(&n, 50);
    feed_data(&n, false, 1200, 100, 10);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_repairs_cancelled), 1);
    link_report(&n, false, 1200, 100, true);
    advance(&n, 1000);
    CHECK_EQ(n.f.ntx, 2);                          /* the two data segments only */
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_repaired), 0);
    node_free(&n);
}

/* A turnaround that never ends (no data follows the ACK) is given up
 * after 30 s, so its stamp is never read old; a later repair waits twice
 * the last good sample. */
static void test_turnaround_timing_is_given_up(void)
{
    struct node n;
    struct mip_relay_flow *f;
    struct tseg a;
    node_with_waiting_repair(&n, false);
    advance(&n, 400);                              /* the repair went */
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_repaired), 1);
    f = flow_dir(&n, false, false);
    CHECK(f->repair_flags & MIP_RELAY_R_UP_ON);    /* since the ACK of 1200 */
    advance(&n, 30000);
    CHECK(!(f->repair_flags & MIP_RELAY_R_UP_ON));
    feed_data(&n, false, 1200, 100, 11);           /* no sample from it */
    CHECK_EQ(f->up_q8 >> 8, 200);
    link_report(&n, false, 1200, 100, true);
    a = feed_ack(&n, false, 1300, 12);
    fixture_clear(&n.f);
    link_report_seg(&n, &a, false);
    check_one_sent_after(&n, 400, 0);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_repaired), 2);
    node_free(&n);
}

int main(void)
{
    RUN(test_caches_the_highest_segment_once_its_link_reported);
    RUN(test_no_link_ack_locks_and_the_timer_resends);
    RUN(test_ack_covering_the_segment_clears_it);
    RUN(test_duplicate_ack_resends_and_is_suppressed);
    RUN(test_late_ack_naming_the_segment_resends);
    RUN(test_sack_block_added_v4);
    RUN(test_sack_block_added_v6);
    RUN(test_ack_without_gap_is_dropped);
    RUN(test_acknowledged_data_gets_a_regenerated_ack);
    RUN(test_resent_copy_carries_the_newest_timestamp);
    RUN(test_rst_forgets_the_connection);
    RUN(test_sender_protects_its_first_hop);
    RUN(test_lost_ack_repaired_v4);
    RUN(test_lost_ack_repaired_v6);
    RUN(test_copy_of_the_ack_before_the_segment_is_no_duplicate);
    RUN(test_repair_waits_twice_the_turnaround_v4);
    RUN(test_repair_waits_twice_the_turnaround_v6);
    RUN(test_new_data_cancels_the_repair);
    RUN(test_turnaround_timing_is_given_up);
    return TESTING_DONE();
}

#else

int main(void)
{
    printf("relay: not in this profile (MIP_CONF_FORWARD)\n");
    return 0;
}

#endif
