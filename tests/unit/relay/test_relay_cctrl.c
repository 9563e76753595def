/* CCTRL ([B] ch. 4) on one forwarding node, driven through its stack (the
 * node, its neighbours and the helpers: relay_fixture.h). With the defaults
 * the first t_r is 3 * 667 = 2001 ms (no sample yet). */
#include "relay_fixture.h"

#if MIP_CONF_FORWARD && MIP_CONF_LOWPAN && MIP_CONF_IPV4 && MIP_CONF_IPV6

#define ISN_S 999u             /* the ISNs of the fixture's segments */
#define ISN_D 5000u
#define FIRST_RTO 2001u        /* 3 * 667 ms */

/* cctrl defaults plus the extensions named. */
static void node_init_cc(struct node *n, bool keep, bool drop, bool hop, bool activity)
{
    struct mip_relay_config c;
    mip_relay_config_default(&c, MIP_RELAY_CCTRL);
    c.cc_keep = keep;
    c.cc_drop = drop;
    c.cc_hop = hop;
    c.cc_activity = activity;
    node_init_cfg(n, &c);
}

static unsigned cached_slots(const struct node *n)
{
    return slots_used(n, MIP_RELAY_SLOT_CACHE);
}

/* The three-way handshake S <-> D through R, the SYN-ACK 50 ms after the
 * SYN with TTL syn_ack_ttl (0: 64). Unlike the fixture's handshake() R
 * overhears nothing (an activity node would count it). Leaves nothing
 * captured. */
static void handshake_cc(struct node *n, bool v6, uint8_t syn_ack_ttl)
{
    struct tseg syn = data(v6, ISN_S, 0, 1);
    struct tseg syn_ack = ackseg(v6, ISN_S + 1u, 1);
    struct tseg ack = data(v6, ISN_S + 1u, 0, 2);
    syn.ack = 0;
    syn.flags = MIP_TCP_SYN;
    syn_ack.seq = ISN_D;
    syn_ack.flags = MIP_TCP_SYN | MIP_TCP_ACK;
    syn_ack.ttl = syn_ack_ttl;
    ack.flags = MIP_TCP_ACK;
    feed_seg(n, &syn);
    n->f.now += 50;
    feed_seg(n, &syn_ack);
    feed_seg(n, &ack);
    CHECK_EQ(n->f.ntx, 3);
    fixture_clear(&n->f);
}

/* An IPv4 cctrl node (keep or basic, no other extension) past the
 * handshake, holding segment 1000..1040; returns its S -> D flow. */
static struct mip_relay_flow *node_with_cached(struct node *n, bool keep)
{
    node_init_cc(n, keep, false, false, false);
    handshake_cc(n, false, 0);
    feed_data(n, false, 1000, 40, 10);
    return flow_dir(n, false, false);
}

/* --- tests ----------------------------------------------------------------- */

static void test_defaults_and_init(void)
{
    struct node n;
    struct mip_relay_config c;
    mip_relay_config_default(&c, MIP_RELAY_CCTRL);
    CHECK_EQ(c.mode, MIP_RELAY_CCTRL);
    CHECK_EQ(c.max_local_rexmit, 1);
    CHECK_EQ(c.rto_mult_q8, 768);
    CHECK_EQ(c.alpha_q8, 64);
    CHECK_EQ(c.rtt_init_ms, 667);
    CHECK_EQ(c.idle_timeout_s, 60);
    CHECK_EQ(c.cc_hop_beta_q8, 320);
    CHECK_EQ(c.cc_hop_max, 6);
    CHECK(!c.cc_keep && !c.cc_drop && !c.cc_hop && !c.cc_activity);
    node_init_cfg(&n, &c);
    CHECK(n.f.s->fwd_hook != NULL);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), MIP_POLL_IDLE);
    node_free(&n);
}

/* A SYN starts a direction without an RTT measurement; forwarded data is
 * cached with t_r = 3 * 667 ms; a partial ACK keeps it, a covering one frees
 * it and gives the first sample (which replaces rtt_init), later ones
 * average with alpha 0.25 (Eq. 4.1) and set t_r = 3 * rtt (Eq. 4.2). */
static void test_cache_cleared_by_ack_with_rtt_samples(void)
{
    struct node n;
    struct mip_relay_flow *f;
    struct sent s;
    node_init_cc(&n, false, false, false, false);
    handshake_cc(&n, false, 0);
    CHECK_EQ(flows_used(&n), 2);
    f = flow_dir(&n, false, false);
    CHECK(f != NULL);
    CHECK_EQ(f->transmitted, ISN_S + 1u);
    CHECK_EQ(f->acked, ISN_S + 1u);                /* from the SYN-ACK */
    CHECK(!(f->flags & (MIP_RELAY_F_RTT_OK | MIP_RELAY_F_RTT_ON)));
    CHECK_EQ(cached_slots(&n), 0);                 /* SYNs have no payload */

    feed_data(&n, false, 1000, 40, 10);
    CHECK_EQ(n.f.ntx, 1);
    CHECK(sent_at(&n, 0, &s));
    CHECK_EQ(s.to, SHORT_N);
    CHECK_EQ(s.ttl, 63);
    CHECK_EQ(s.h.seq, 1000);
    CHECK_EQ(s.len, 40);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_data_seen), 1);
    CHECK_EQ(cached_slots(&n), 1);
    CHECK_EQ(f->transmitted, 1040);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), FIRST_RTO);

    n.f.now += 50;
    feed_ack(&n, false, 1020, 20);                 /* partial: kept */
    CHECK_EQ(cached_slots(&n), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 0);
    n.f.now += 70;
    feed_ack(&n, false, 1040, 21);
    CHECK_EQ(n.f.ntx, 3);                          /* both ACKs went on to U */
    CHECK(sent_at(&n, 2, &s));
    CHECK_EQ(s.to, SHORT_U);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_seen), 3);   /* and the handshake's */
    CHECK_EQ(cached_slots(&n), 0);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 1);
    CHECK(f->flags & MIP_RELAY_F_RTT_OK);
    CHECK_EQ(f->rtt_q8, 120u * 256u);              /* the first sample as it is */

    feed_data(&n, false, 1040, 40, 11);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), 360);   /* 3 * 120 */
    n.f.now += 200;
    feed_ack(&n, false, 1080, 22);
    CHECK_EQ(f->rtt_q8, 140u * 256u);              /* 0.75 * 120 + 0.25 * 200 */
    feed_data(&n, false, 1080, 40, 12);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), 420);
    check_one_sent_after(&n, 420, n.f.ntx);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 1);
    node_free(&n);
}

/* Basic module: one local retransmission at t_r, the datagram exactly as
 * forwarded, and the segment leaves the cache with it. An ACK then gives
 * no sample; the sender's own retransmission is cached again but not timed
 * (Karn). */
static void test_basic_one_rexmit_then_released(void)
{
    struct node n;
    struct mip_relay_flow *f;
    f = node_with_cached(&n, false);
    check_one_sent_after(&n, FIRST_RTO, n.f.ntx);
    CHECK_EQ(n.f.tx[1].len, n.f.tx[0].len);
    CHECK_MEM(n.f.tx[1].data, n.f.tx[0].data, n.f.tx[0].len);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_early_rexmits), 0);
    CHECK_EQ(cached_slots(&n), 0);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now) > 50000u, true);   /* only the idle timer */
    advance(&n, 20000);
    CHECK_EQ(n.f.ntx, 2);

    feed_data(&n, false, 1000, 40, 30);            /* S's RTO: a new IP ID */
    CHECK_EQ(n.f.ntx, 3);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 2);
    CHECK(!(f->flags & MIP_RELAY_F_RTT_ON));
    n.f.now += 80;
    feed_ack(&n, false, 1040, 40);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 1);
    CHECK(!(f->flags & MIP_RELAY_F_RTT_OK));       /* still rtt_init */
    CHECK_EQ(cached_slots(&n), 0);
    node_free(&n);
}

/* keep: three retransmissions t_r apart (no backoff), the copy kept one
 * more t_r, then freed; max_local_rexmit 2 with keep gives two. */
static void keep_retries(uint8_t max_local_rexmit, unsigned expect)
{
    struct node n;
    struct mip_relay_config c;
    unsigned k;
    mip_relay_config_default(&c, MIP_RELAY_CCTRL);
    c.cc_keep = true;
    c.max_local_rexmit = max_local_rexmit;
    node_init_cfg(&n, &c);
    handshake_cc(&n, false, 0);
    feed_data(&n, false, 1000, 40, 10);
    for (k = 1; k <= expect; k++) {
        check_one_sent_after(&n, FIRST_RTO, n.f.ntx);
        CHECK_MEM(n.f.tx[k].data, n.f.tx[0].data, n.f.tx[0].len);
        CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), k);
        CHECK_EQ(cached_slots(&n), 1);
    }
    advance(&n, FIRST_RTO - 1u);
    CHECK_EQ(cached_slots(&n), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_rexmit_gave_up), 0);
    advance(&n, 1);
    CHECK_EQ(cached_slots(&n), 0);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_rexmit_gave_up), 1);
    advance(&n, 10000);
    CHECK_EQ(n.f.ntx, expect + 1u);
    node_free(&n);
}

static void test_keep_three_rexmits_then_freed(void) { keep_retries(1, 3); }
static void test_keep_with_two_rexmits(void) { keep_retries(2, 2); }

/* keep: an ACK after a local retransmission frees the copy without a
 * sample (Karn). */
static void test_keep_ack_after_rexmit_no_sample(void)
{
    struct node n;
    struct mip_relay_flow *f;
    f = node_with_cached(&n, true);
    check_one_sent_after(&n, FIRST_RTO, n.f.ntx);
    n.f.now += 30;
    feed_ack(&n, false, 1040, 20);
    CHECK_EQ(cached_slots(&n), 0);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 1);
    CHECK(!(f->flags & MIP_RELAY_F_RTT_OK));
    node_free(&n);
}

/* drop: a received copy of the cached segment is dropped (the stack counts
 * the hook's DROP); the next segment still passes, uncached (one cache per
 * direction). */
static void test_drop_copy_of_cached_segment(void)
{
    struct node n;
    node_init_cc(&n, true, true, false, false);
    handshake_cc(&n, false, 0);
    feed_data(&n, false, 1000, 40, 10);
    CHECK_EQ(n.f.ntx, 1);
    feed_data(&n, false, 1000, 40, 11);            /* a copy from upstream */
    CHECK_EQ(n.f.ntx, 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_dup_dropped), 1);
    CHECK_EQ(fixture_stat(&n.f, MIP_STAT_drop_fwd_hook), 1);
    feed_data(&n, false, 1040, 40, 12);
    CHECK_EQ(n.f.ntx, 2);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_not_cached), 1);
    CHECK_EQ(cached_slots(&n), 1);
    CHECK_EQ(n.r->slots[0].seq + 0u, 1000u);
    node_free(&n);
}

/* Without drop a copy of the cached segment goes on, and the ACK, which
 * may answer the copy, gives no sample. */
static void test_copy_passes_without_drop(void)
{
    struct node n;
    struct mip_relay_flow *f;
    f = node_with_cached(&n, false);
    n.f.now += 500;
    feed_data(&n, false, 1000, 40, 11);
    CHECK_EQ(n.f.ntx, 2);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_dup_dropped), 0);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_not_cached), 1);
    n.f.now += 50;
    feed_ack(&n, false, 1040, 20);
    CHECK_EQ(cached_slots(&n), 0);
    CHECK(!(f->flags & MIP_RELAY_F_RTT_OK));
    node_free(&n);
}

/* Data already acknowledged (the ACK was lost between R and S) is not
 * forwarded: R answers with D's latest ACK, byte for byte the one it
 * forwarded (ack = the highest seen, an overtaken older ACK does not lower
 * it; addresses, ports, TTL, ID or flow label, window, timestamps). */
static void regenerated_ack(bool v6)
{
    struct node n;
    struct tseg a;
    struct sent s;
    struct mip_addr src = fixture_addr(addr_s(v6));
    struct mip_addr d = fixture_addr(addr_d(v6));
    uint8_t fwd[FIXTURE_FRAME_MAX];
    size_t fwd_len;
    node_init_cc(&n, false, false, false, false);
    handshake_cc(&n, v6, 0);
    feed_data(&n, v6, 1000, 40, 10);
    a = ackseg(v6, 1040, 77);
    a.ts = true;
    a.tsval = 123456;
    a.tsecr = 654321;
    a.win = 1500;
    n.f.now += 40;
    feed_seg(&n, &a);
    CHECK_EQ(n.f.ntx, 2);
    fwd_len = n.f.tx[1].len;
    memcpy(fwd, n.f.tx[1].data, fwd_len);
    a = ackseg(v6, 1020, 76);                      /* overtaken */
    feed_seg(&n, &a);
    CHECK_EQ(n.f.ntx, 3);
    fixture_clear(&n.f);

    feed_data(&n, v6, 1000, 40, 31);
    CHECK_EQ(n.f.ntx, 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_acks_regenerated), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 1);
    CHECK(sent_at(&n, 0, &s));
    CHECK_EQ(s.to, SHORT_U);
    CHECK(mip_addr_eq(&s.src, &d));
    CHECK(mip_addr_eq(&s.dst, &src));
    CHECK_EQ(s.h.src_port, DPORT);
    CHECK_EQ(s.h.dst_port, SPORT);
    CHECK_EQ(s.h.seq, ISN_D + 1u);
    CHECK_EQ(s.h.ack, 1040);
    CHECK_EQ(s.h.flags, MIP_TCP_ACK);
    CHECK_EQ(s.h.window, 1500);
    CHECK_EQ(s.ttl, 63);
    CHECK(s.o.present & MIP_TCP_HAS_TIMESTAMP);
    CHECK_EQ(s.o.ts_val, 123456);
    CHECK_EQ(s.o.ts_ecr, 654321);
    if (v6)
        CHECK_EQ(s.label, 0x12345);                /* ackseg()'s */
    else
        CHECK_EQ(s.id, 77);
    CHECK_EQ(n.f.tx[0].len, fwd_len);
    CHECK_MEM(n.f.tx[0].data + 9, fwd + 9, fwd_len - 9);   /* after the MHR (its seq no differs) */
    node_free(&n);
}

static void test_regenerated_ack_v4(void) { regenerated_ack(false); }
static void test_regenerated_ack_v6(void) { regenerated_ack(true); }

/* hop: t_r = min(h, 6) * 1.25 * rtt, h = 64 - the TTL D's datagrams have
 * here (after R's decrement); basic 3 * rtt until h is known. */
static void test_hop_rto(void)
{
    struct node n;
    struct mip_relay_flow *f;
    struct tseg a;
    node_init_cc(&n, false, false, true, false);
    handshake_cc(&n, false, 62);                   /* seen 61: h = 3 */
    f = flow_dir(&n, false, false);
    CHECK(f->flags & MIP_RELAY_F_HOPS);
    CHECK_EQ(f->hops, 3);
    feed_data(&n, false, 1000, 40, 10);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), 2499); /* 3 * (667 * 1.25 = 833) */
    n.f.now += 100;
    a = ackseg(false, 1040, 20);
    a.ttl = 62;
    feed_seg(&n, &a);
    CHECK_EQ(f->rtt_q8 >> 8, 100);
    feed_data(&n, false, 1040, 40, 11);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), 375);  /* 3 * 125 */
    n.f.now += 100;
    a = ackseg(false, 1080, 21);
    a.ttl = 55;                                    /* h = 10: capped at 6 */
    feed_seg(&n, &a);
    CHECK_EQ(f->hops, 10);
    feed_data(&n, false, 1080, 40, 12);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), 750);
    n.f.now += 100;
    a = ackseg(false, 1120, 22);                   /* D is R's neighbour */
    feed_seg(&n, &a);
    CHECK_EQ(f->hops, 1);
    feed_data(&n, false, 1120, 40, 13);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), 125);
    check_one_sent_after(&n, 125, n.f.ntx);
    node_free(&n);
}

static void test_hop_unknown_and_off(void)
{
    struct node n;
    /* hop on, but no datagram from D seen with a readable TTL (its TTL
     * above 64): 3 * rtt */
    node_init_cc(&n, false, false, true, false);
    handshake_cc(&n, false, 200);
    CHECK(!(flow_dir(&n, false, false)->flags & MIP_RELAY_F_HOPS));
    feed_data(&n, false, 1000, 40, 10);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), FIRST_RTO);
    node_free(&n);
    /* hop off: the distance is learnt but not used */
    node_init_cc(&n, false, false, false, false);
    handshake_cc(&n, false, 60);
    CHECK_EQ(flow_dir(&n, false, false)->hops, 5);
    feed_data(&n, false, 1000, 40, 10);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), FIRST_RTO);
    node_free(&n);
}

/* A node with activity whose flow has rtt 300 ms (t_r 900 ms). */
static void activity_node(struct node *n, bool keep)
{
    node_init_cc(n, keep, false, false, true);
    handshake_cc(n, false, 0);
    feed_data(n, false, 1000, 40, 10);
    n->f.now += 300;
    feed_ack(n, false, 1040, 20);
    CHECK_EQ(flow_dir(n, false, false)->rtt_q8 >> 8, 300);
    fixture_clear(&n->f);
}

static void overhear_any(struct node *n)
{
    static const uint8_t junk[] = { 0x41, 0x88, 0x01, 0xCD, 0xAB, 0x03, 0x00, 0x07, 0x00, 0x99 };
    mip_relay_overheard(n->r, 0, junk, sizeof(junk), n->f.now);
}

/* activity (Listing 4.2): at 2/3 t_r a quiet channel (no frame overheard
 * within the last rtt) means retransmit at once; a busy one waits the
 * remaining third. */
static void test_activity_quiet_early_busy_late(void)
{
    struct node n;
    activity_node(&n, false);
    /* quiet: at 600 ms */
    feed_data(&n, false, 1040, 40, 11);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), 600);
    check_one_sent_after(&n, 600, n.f.ntx);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_early_rexmits), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 1);
    CHECK_EQ(cached_slots(&n), 0);                 /* basic: released */
    /* busy: a frame 200 ms before the check (inside the 300 ms window) */
    feed_data(&n, false, 1080, 40, 12);
    advance(&n, 400);
    overhear_any(&n);
    advance(&n, 200);
    CHECK_EQ(n.f.ntx, 3);                          /* forwarded + 1 rexmit so far */
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), 300);
    check_one_sent_after(&n, 300, n.f.ntx);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_early_rexmits), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 2);
    /* a frame older than the rtt does not count */
    feed_data(&n, false, 1120, 40, 13);
    advance(&n, 250);
    overhear_any(&n);
    check_one_sent_after(&n, 350, n.f.ntx);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_early_rexmits), 2);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_activity_frames), 2);
    node_free(&n);
}

/* activity + keep: only the first timer is split; later ones run the
 * full t_r. */
static void test_activity_keep_later_attempts_full(void)
{
    struct node n;
    activity_node(&n, true);
    feed_data(&n, false, 1040, 40, 11);
    check_one_sent_after(&n, 600, n.f.ntx);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_early_rexmits), 1);
    check_one_sent_after(&n, 900, n.f.ntx);
    check_one_sent_after(&n, 900, n.f.ntx);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 3);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_early_rexmits), 1);
    node_free(&n);
}

/* The ring keeps the latest MIP_RELAY_ACTIVITY frame times; without
 * activity nothing is counted. */
static void test_activity_ring_bound(void)
{
    struct node n;
    unsigned i;
    node_init_cc(&n, false, false, false, true);
    for (i = 0; i < MIP_RELAY_ACTIVITY + 5u; i++) {
        n.f.now += 1;
        overhear_any(&n);
    }
    CHECK_EQ(n.r->activity_count, MIP_RELAY_ACTIVITY);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_activity_frames), MIP_RELAY_ACTIVITY + 5u);
    CHECK_EQ(n.r->activity[(n.r->activity_next + MIP_RELAY_ACTIVITY - 1u) % MIP_RELAY_ACTIVITY],
             n.f.now);
    node_free(&n);
    node_init_cc(&n, false, false, false, false);
    overhear_any(&n);
    CHECK_EQ(n.r->activity_count, 0);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_activity_frames), 0);
    node_free(&n);
}

/* One cache per direction; D's data is cached in its own direction and
 * the ACK it carries frees S's cached segment. */
static void test_directions_cache_separately(void)
{
    struct node n;
    struct tseg t;
    node_init_cc(&n, false, false, false, false);
    handshake_cc(&n, true, 0);
    feed_data(&n, true, 1000, 40, 10);
    feed_data(&n, true, 1040, 40, 11);
    CHECK_EQ(n.f.ntx, 2);
    CHECK_EQ(cached_slots(&n), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_not_cached), 1);
    t = ackseg(true, 1040, 0);
    t.flags = MIP_TCP_ACK | MIP_TCP_PSH;
    t.len = 30;
    n.f.now += 60;
    feed_seg(&n, &t);
    CHECK_EQ(n.f.ntx, 3);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 2);
    CHECK_EQ(cached_slots(&n), 1);
    CHECK_EQ(flow_dir(&n, true, true)->transmitted, ISN_D + 31u);
    t = data(true, 1080, 40, 12);
    t.ack = ISN_D + 31u;
    n.f.now += 45;
    feed_seg(&n, &t);                              /* frees D's, is cached */
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 2);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 3);
    CHECK_EQ(cached_slots(&n), 1);
    CHECK_EQ(flow_dir(&n, true, true)->rtt_q8, 45u * 256u);
    CHECK_EQ(flow_dir(&n, true, false)->rtt_q8, 60u * 256u);
    node_free(&n);
}

/* [B] 4.1.4: a FIN or an RST ends both directions and their caches; the
 * segment itself goes on. */
static void test_fin_and_rst_end_both_directions(void)
{
    struct node n;
    struct tseg t;
    node_init_cc(&n, true, false, false, false);
    handshake_cc(&n, false, 0);
    feed_data(&n, false, 1000, 40, 10);
    t = data(false, 1040, 0, 11);
    t.flags = MIP_TCP_FIN | MIP_TCP_ACK;
    feed_seg(&n, &t);
    CHECK_EQ(n.f.ntx, 2);
    CHECK_EQ(flows_used(&n), 0);
    CHECK_EQ(cached_slots(&n), 0);
    advance(&n, 5000);
    CHECK_EQ(n.f.ntx, 2);                          /* nothing left to resend */

    fixture_clear(&n.f);
    handshake_cc(&n, false, 0);
    feed_data(&n, false, 1000, 40, 12);
    t = ackseg(false, 1000, 0);
    t.len = 20;
    t.flags = MIP_TCP_ACK | MIP_TCP_PSH;
    feed_seg(&n, &t);
    CHECK_EQ(cached_slots(&n), 2);
    t = ackseg(false, 1000, 0);
    t.seq = ISN_D + 21u;
    t.flags = MIP_TCP_RST | MIP_TCP_ACK;
    feed_seg(&n, &t);
    CHECK_EQ(n.f.ntx, 3);
    CHECK_EQ(flows_used(&n), 0);
    CHECK_EQ(cached_slots(&n), 0);
    node_free(&n);
}

/* Pure ACKs of unknown connections and non-TCP datagrams pass untouched
 * and create nothing; an idle connection is forgotten after 60 s. */
static void test_untracked_passes_and_idle_timeout(void)
{
    struct node n;
    uint8_t pkt[300], fr[400], udp[64];
    size_t len, fl;
    node_init_cc(&n, false, false, false, false);
    feed_ack(&n, false, 1234, 5);
    CHECK_EQ(n.f.ntx, 1);
    CHECK_EQ(flows_used(&n), 0);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_ignored), 1);
    len = build_udp(udp, false, "10.0.1.10", "10.0.2.10", 7, 9, (const uint8_t *)"abc", 3);
    len = build_ipv4(pkt, "10.0.1.10", "10.0.2.10", MIP_IPPROTO_UDP, 64, 3, 0, 0, udp, len);
    fl = frame(fr, SHORT_U, SHORT_R, pkt, len);
    fixture_input(&n.f, 0, fr, fl);
    CHECK_EQ(n.f.ntx, 2);
    CHECK_EQ(n.f.tx[1].len, fl);
    CHECK_MEM(n.f.tx[1].data + 10 + 9, pkt + 9, 1);   /* TTL aside, the same datagram */
    CHECK_MEM(n.f.tx[1].data + 10 + 12, pkt + 12, len - 12);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_ignored), 2);

    fixture_clear(&n.f);
    handshake_cc(&n, false, 0);
    feed_data(&n, false, 1000, 40, 10);
    advance(&n, 59999);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 1);
    CHECK_EQ(flows_used(&n), 2);
    advance(&n, 1);
    CHECK_EQ(flows_used(&n), 0);
    CHECK_EQ(mip_relay_poll(n.r, n.f.now), MIP_POLL_IDLE);
    node_free(&n);
}

/* link (ours): where the MAC reports a frame lost, the cached segment goes
 * again at once (one of keep's retransmissions), and its timer restarts;
 * a report on a frame that is not the cached segment, or a good report,
 * does nothing. Off (the paper's cctrl): reports are ignored. */
static void test_link_report_resends_at_once(void)
{
    struct node n;
    struct mip_relay_config c;
    struct sent s;
    struct tseg t;
    mip_relay_config_default(&c, MIP_RELAY_CCTRL);
    c.cc_keep = true;
    c.cc_link = true;
    node_init_cfg(&n, &c);
    handshake_cc(&n, false, 0);
    t = feed_data(&n, false, 1000, 40, 10);
    fixture_clear(&n.f);
    advance(&n, 500);
    link_report_seg(&n, &t, true);
    t.seq = 2000;
    link_report_seg(&n, &t, false);
    CHECK_EQ(n.f.ntx, 0);
    t.seq = 1000;
    link_report_seg(&n, &t, false);
    CHECK_EQ(n.f.ntx, 1);
    CHECK(sent_at(&n, 0, &s));
    CHECK_EQ(s.to, SHORT_N);
    CHECK_EQ(s.h.seq, 1000);
    CHECK_EQ(s.len, 40);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_link_rexmits), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 1);
    check_one_sent_after(&n, FIRST_RTO, 1);          /* timer from the resend */
    node_free(&n);
    node_init_cc(&n, true, false, false, false);
    handshake_cc(&n, false, 0);
    t = feed_data(&n, false, 1000, 40, 10);
    fixture_clear(&n.f);
    link_report_seg(&n, &t, false);
    CHECK_EQ(n.f.ntx, 0);
    node_free(&n);
}

int main(void)
{
    RUN(test_link_report_resends_at_once);
    RUN(test_defaults_and_init);
    RUN(test_cache_cleared_by_ack_with_rtt_samples);
    RUN(test_basic_one_rexmit_then_released);
    RUN(test_keep_three_rexmits_then_freed);
    RUN(test_keep_with_two_rexmits);
    RUN(test_keep_ack_after_rexmit_no_sample);
    RUN(test_drop_copy_of_cached_segment);
    RUN(test_copy_passes_without_drop);
    RUN(test_regenerated_ack_v4);
    RUN(test_regenerated_ack_v6);
    RUN(test_hop_rto);
    RUN(test_hop_unknown_and_off);
    RUN(test_activity_quiet_early_busy_late);
    RUN(test_activity_keep_later_attempts_full);
    RUN(test_activity_ring_bound);
    RUN(test_directions_cache_separately);
    RUN(test_fin_and_rst_end_both_directions);
    RUN(test_untracked_passes_and_idle_timeout);
    return TESTING_DONE();
}

#else

int main(void)
{
    printf("relay cctrl: not in this profile (MIP_CONF_FORWARD)\n");
    return 0;
}

#endif
