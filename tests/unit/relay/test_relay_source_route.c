/* A relay in a non-storing RPL network (RFC 6550 9.7): segments going down
 * carry a Source Routing Header (RFC 6554) whose Destination Address is
 * only the next hop, and this node has no route down, only the default
 * route up to its parent. The relay must still see the flow (its
 * destination is the route's last address), cache the segment, resend it
 * down the route it was taking (not up the default route), and regenerate
 * ACKs with the extension headers the ACK it copies carried.
 *
 * The node R (relay_fixture.h) with only the routes a non-storing RPL node
 * has: up via U (S's side, the root's). Segments S -> D arrive from U
 * addressed to R with an SRH [N, D]; ACKs D -> S arrive from N addressed to
 * S with a Hop-by-Hop RPL Option (RFC 6553), and go up via U. */
#include "relay_fixture.h"
#include "moteip/routing.h"
#include "moteip/wire/rpl_ext.h"

#if MIP_CONF_FORWARD && MIP_CONF_LOWPAN && MIP_CONF_IPV4 && MIP_CONF_IPV6

#define ADDR_R "fd00::ff:fe00:5"
#define ADDR_N "fd00::ff:fe00:4"
#define ADDR_U "fd00::ff:fe00:6"
#define FIRST_RTO 1500u

/* No opinions but RPL's data-plane headers: the route table routes (the
 * core test's driver, test_rpl_ext.c). */
static const struct mip_routing_ops srh_driver = {
    "srh-test", NULL, NULL, NULL, NULL, NULL, NULL, NULL, MIP_ROUTING_RPL_EXT, NULL
};

static void ns_node(struct node *n, uint8_t mode)
{
    static const uint8_t seed[16] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6};
    struct mip_relay_config c;
    mip_relay_config_default(&c, mode);
    memset(n, 0, sizeof(*n));
    n->r = calloc(1, sizeof(struct mip_relay));
    stack_new(&n->f, seed, 5000);
    CHECK_EQ(radio_add(&n->f, MIP_LOWPAN_RAW_IP, FRAME_MAX, RAW_HDR), 0);
    addr_add(&n->f, ADDR_R, 64);
    route_add(&n->f, "::", 0, ADDR_U);            /* up, and nothing down */
    mip_routing_set(n->f.s, &srh_driver, NULL);
    CHECK_EQ(mip_relay_init(n->r, n->f.s, &c, n->f.now), MIP_OK);
}

/* t (S -> D) as the previous hop sends it to R: Destination R, an SRH
 * [N, D] with Segments Left 2. The TCP checksum stays D's (RFC 8200 8.1). */
static size_t mk_routed(uint8_t *pkt, const struct tseg *t)
{
    uint8_t plain[300], addrs[2][16];
    struct mip_addr r = fixture_addr(ADDR_R), nn = fixture_addr(ADDR_N), d = fixture_addr(addr_d(true));
    size_t len = mk(plain, t), sl = 0;
    memcpy(addrs[0], nn.bytes, 16);
    memcpy(addrs[1], d.bytes, 16);
    memcpy(pkt, plain, 40);
    CHECK_EQ(mip_srh_emit(plain[6], r.bytes, (const uint8_t (*)[16])addrs, 2, pkt + 40, 200, &sl),
             MIP_OK);
    memcpy(pkt + 40 + sl, plain + 40, len - 40);
    pkt[6] = MIP_IPV6_NH_ROUTING;
    memcpy(pkt + 24, r.bytes, 16);
    mip_wr16(pkt + 4, (uint16_t)(len - 40 + sl));
    return len + sl;
}

/* t (D -> S) with a Hop-by-Hop RPL Option going up (RFC 6553). */
static size_t mk_rpi(uint8_t *pkt, const struct tseg *t)
{
    uint8_t plain[300];
    struct mip_rpi o;
    size_t len = mk(plain, t);
    memset(&o, 0, sizeof(o));
    o.instance = 30;
    o.sender_rank = 512;
    memcpy(pkt, plain, 40);
    CHECK_EQ(mip_rpi_hbh_emit(plain[6], MIP_RPI_TYPE, &o, pkt + 40, MIP_RPI_HBH_LEN), MIP_OK);
    memcpy(pkt + 40 + MIP_RPI_HBH_LEN, plain + 40, len - 40);
    pkt[6] = MIP_IPV6_NH_HOPOPTS;
    mip_wr16(pkt + 4, (uint16_t)(len - 40 + MIP_RPI_HBH_LEN));
    return len + MIP_RPI_HBH_LEN;
}

/* t as it arrives at R: down with its source route, up with its RPL Option. */
static void feed_rpl(struct node *n, const struct tseg *t)
{
    uint8_t pkt[300];
    size_t len = t->rev ? mk_rpi(pkt, t) : mk_routed(pkt, t);
    feed(n, t->rev ? SHORT_N : SHORT_U, pkt, len);
}

static void handshake_rpl(struct node *n)
{
    struct tseg t;
    memset(&t, 0, sizeof(t));
    t.v6 = true;
    t.seq = 999;
    t.flags = MIP_TCP_SYN;
    t.sack_perm = true;
    feed_rpl(n, &t);
    memset(&t, 0, sizeof(t));
    t.v6 = true;
    t.rev = true;
    t.seq = 5000;
    t.ack = 1000;
    t.flags = MIP_TCP_SYN | MIP_TCP_ACK;
    t.sack_perm = true;
    feed_rpl(n, &t);
    memset(&t, 0, sizeof(t));
    t.v6 = true;
    t.seq = 1000;
    t.ack = 5001;
    feed_rpl(n, &t);
    fixture_clear(&n->f);
}

/* What R sent as frame i: its MAC destination, and the datagram parsed
 * past its extension headers with the TCP checksum over the final
 * destination checked. */
struct routed {
    uint16_t to;
    const uint8_t *ip;
    size_t ip_len;
    uint8_t first_nh;        /* the fixed header's Next Header */
    struct mip_tcp_hdr h;
    size_t len;              /* payload */
};

static bool routed_at(const struct node *n, unsigned i, struct routed *o)
{
    const struct fixture_frame *fr = &n->f.tx[i];
    struct mip_ipv6_hdr h;
    struct mip_ipv6_walk w;
    uint8_t final_dst[16];
    uint32_t sum;
    memset(o, 0, sizeof(*o));
    if (i >= n->f.ntx || fr->len < 50)
        return false;
    o->to = (uint16_t)(fr->data[5] | (fr->data[6] << 8));
    o->ip = fr->data + 10;
    o->ip_len = fr->len - 10;
    if (mip_ipv6_parse(o->ip, o->ip_len, &h) != MIP_OK)
        return false;
    o->first_nh = h.next_header;
    CHECK_EQ(mip_ipv6_walk_ext(o->ip, o->ip_len, h.next_header, 40, true, &w), MIP_OK);
    memcpy(final_dst, h.dst, 16);
    if (w.srh_offset != 0u) {
        struct mip_srh srh;
        CHECK_EQ(mip_srh_parse(o->ip + w.srh_offset, o->ip_len - w.srh_offset, &srh), MIP_OK);
        CHECK_EQ(mip_srh_addr(&srh, srh.n, h.dst, final_dst), MIP_OK);
        CHECK_EQ(mip_ipv6_walk_ext(o->ip, o->ip_len, srh.next_header,
                                   w.srh_offset + srh.len, false, &w), MIP_OK);
    }
    CHECK_EQ(w.problem, MIP_IPV6_PROBLEM_NONE);
    if (w.upper_proto != MIP_IPPROTO_TCP)
        return false;
    CHECK_EQ(mip_tcp_parse(o->ip + w.upper_offset, o->ip_len - w.upper_offset, &o->h), MIP_OK);
    sum = mip_cksum_pseudo6(h.src, final_dst, MIP_IPPROTO_TCP,
                            (uint32_t)(o->ip_len - w.upper_offset));
    CHECK_EQ(mip_cksum_finish(mip_cksum_add(sum, o->ip + w.upper_offset,
                                            o->ip_len - w.upper_offset)), 0);
    o->len = o->ip_len - w.upper_offset - o->h.hdr_len;
    return true;
}

/* DTC: the segment on its source route is cached (fails before: the relay
 * read the SRH as a header it could not parse and passed the datagram on
 * unseen), and its local retransmission takes the route's next hop, N,
 * byte for byte as forwarded (fails before the send fix: the default route
 * sent it up to U). */
static void test_dtc_caches_and_resends_down_the_source_route(void)
{
    struct node n;
    struct routed fwd, re;
    struct tseg t = data(true, 1000, 60, 3);
    uint8_t fr[400], pkt[300];
    size_t pl, fl;
    ns_node(&n, MIP_RELAY_DTC);
    handshake_rpl(&n);
    feed_rpl(&n, &t);
    CHECK_EQ(n.f.ntx, 1);
    CHECK(routed_at(&n, 0, &fwd));
    CHECK_EQ(fwd.to, SHORT_N);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_ignored), 0);
    /* the frame R sent is reported lost: locked, resent after the RTO */
    pl = n.f.tx[0].len - 10;
    memcpy(pkt, n.f.tx[0].data + 10, pl);
    fl = frame(fr, SHORT_R, SHORT_N, pkt, pl);
    mip_relay_link_status(n.r, 0, fr, fl, false, n.f.now);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_locked), 1);
    check_one_sent_after(&n, FIRST_RTO, 1);
    CHECK(routed_at(&n, 1, &re));
    CHECK_EQ(re.to, SHORT_N);
    CHECK_EQ(re.h.seq, 1000);
    CHECK_EQ(re.len, 60);
    CHECK_EQ(re.ip_len, fwd.ip_len);
    CHECK_MEM(re.ip, fwd.ip, fwd.ip_len);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_local_rexmits), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_send_failed), 0);
    node_free(&n);
}

/* The sender missed the ACK that cleared segment d (1000, 60 bytes): its
 * end-to-end retransmission (a new IP id and label) is answered with one
 * regenerated ACK of 1060, sent to short address `to` with the extension
 * header `first_nh` first. */
static void check_ack_regenerated(struct node *n, struct tseg *d, unsigned to, uint8_t first_nh)
{
    struct routed s;
    fixture_clear(&n->f);
    d->id = 4;
    d->label = 4;
    feed_rpl(n, d);
    CHECK_EQ(rstat(n, MIP_RELAY_STAT_acks_regenerated), 1);
    CHECK_EQ(n->f.ntx, 1);
    CHECK(routed_at(n, 0, &s));
    CHECK_EQ(s.to, to);
    CHECK_EQ(s.first_nh, first_nh);
    CHECK_EQ(s.h.ack, 1060);
    CHECK_EQ(s.len, 0);
}

/* DTC: the ACK from D cleared the cached segment although it came up with
 * an RPL Option (the flow is one, whichever way its headers point). An
 * end-to-end retransmission of acknowledged data gets a regenerated ACK
 * that keeps the RPL Option (fails before: a bare IPv6 header). */
static void test_dtc_regenerated_ack_keeps_the_rpl_option(void)
{
    struct node n;
    struct tseg d = data(true, 1000, 60, 3), a = ackseg(true, 1060, 7);
    ns_node(&n, MIP_RELAY_DTC);
    handshake_rpl(&n);
    feed_rpl(&n, &d);
    feed_rpl(&n, &a);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 1);
    check_ack_regenerated(&n, &d, SHORT_U, MIP_IPV6_NH_HOPOPTS);
    node_free(&n);
}

/* The ACKs' way down (a cctrl experiment over RPL has the server at the
 * root: data goes up, ACKs come down on a source route). Here the ACK
 * comes from N addressed to R with an SRH [V, S], V (short 7) a neighbour
 * that no route names. The flow's template keeps the SRH, and an ACK the
 * relay regenerates goes to V, the route's next address (fails before:
 * a bare header to S, sent up the default route to U). R and V are named
 * in S's prefix, as RPL's addresses share the DODAG's, so that the SRH
 * elides 11 octets of each address and fits a template (24 bytes). */
static void test_regenerated_ack_follows_its_source_route(void)
{
    struct node n;
    struct tseg d = data(true, 1000, 60, 3), a = ackseg(true, 1060, 7);
    uint8_t plain[300], pkt[300], addrs[2][16];
    struct mip_addr r = fixture_addr("fd01::ff:fe00:5"), v = fixture_addr("fd01::ff:fe00:7"),
                    src = fixture_addr(addr_s(true));
    size_t l, sl = 0;
    ns_node(&n, MIP_RELAY_DTC);
    addr_add(&n.f, "fd01::ff:fe00:5", 128);
    handshake_rpl(&n);
    feed_rpl(&n, &d);
    fixture_clear(&n.f);
    l = mk(plain, &a);
    memcpy(addrs[0], v.bytes, 16);
    memcpy(addrs[1], src.bytes, 16);
    memcpy(pkt, plain, 40);
    CHECK_EQ(mip_srh_emit(plain[6], r.bytes, (const uint8_t (*)[16])addrs, 2, pkt + 40, 200, &sl),
             MIP_OK);
    memcpy(pkt + 40 + sl, plain + 40, l - 40);
    pkt[6] = MIP_IPV6_NH_ROUTING;
    memcpy(pkt + 24, r.bytes, 16);
    mip_wr16(pkt + 4, (uint16_t)(l - 40 + sl));
    CHECK_EQ(sl, 24);
    feed(&n, SHORT_N, pkt, l + sl);
    CHECK_EQ(n.f.ntx, 1);
    CHECK_EQ(n.f.tx[0].data[5], 7);           /* forwarded to V */
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_tcp_acks_cleared), 1);
    check_ack_regenerated(&n, &d, 7, MIP_IPV6_NH_ROUTING);
    node_free(&n);
}

/* TSS: R hears N send the segment on (N's swap made D the Destination
 * and put N's address in the route): an implicit ACK, although no route
 * of R's names N (fails before: the next hop was looked up in the routes,
 * which send everything up to U). A frame from N carrying a segment that
 * N did not have from R is none. */
static void test_tss_hears_its_next_hop_on_the_source_route(void)
{
    struct node n;
    struct tseg t = data(true, 1000, 60, 3);
    struct mip_srh h;
    uint8_t pkt[300], fr[400];
    uint16_t idx;
    size_t len, fl;
    ns_node(&n, MIP_RELAY_TSS);
    handshake_rpl(&n);
    feed_rpl(&n, &t);
    CHECK_EQ(n.f.ntx, 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 1);
    /* N's copy: R's datagram after N's swap */
    len = n.f.tx[0].len - 10;
    memcpy(pkt, n.f.tx[0].data + 10, len);
    CHECK_EQ(mip_srh_parse(pkt + 40, len - 40, &h), MIP_OK);
    CHECK_EQ(h.segments_left, 1);
    CHECK_EQ(mip_srh_swap(pkt + 40, &h, pkt + 24, &idx), MIP_OK);
    pkt[7]--;
    /* first as if N had it from elsewhere: the route's earlier address is
     * not R's (U's), so it says nothing of R's segment */
    {
        uint8_t other[300];
        struct mip_srh h2;
        memcpy(other, pkt, len);
        CHECK_EQ(mip_srh_parse(other + 40, len - 40, &h2), MIP_OK);
        /* Addresses[1], R's address since R's swap: its last octet U's */
        CHECK_EQ(other[40 + 8 + (16u - h2.cmpr_i) - 1u], 0x05);
        other[40 + 8 + (16u - h2.cmpr_i) - 1u] = 0x06;
        fl = frame(fr, SHORT_N, 3, other, len);
        mip_relay_overheard(n.r, 0, fr, fl, n.f.now);
        CHECK_EQ(rstat(&n, MIP_RELAY_STAT_implicit_acks), 0);
    }
    fl = frame(fr, SHORT_N, 3, pkt, len);
    mip_relay_overheard(n.r, 0, fr, fl, n.f.now);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_implicit_acks), 1);
    node_free(&n);
}

/* TSS at the sender when it is a non-storing root ([T] III.A.4): its own
 * segment leaves with the source route the root put on, Destination N,
 * SRH [D]. The root's routes name D itself as the next hop (RPL's answer
 * for a node of its table: the hooks put the route on; here a connected
 * route to D's prefix), but the segment goes to N, which forwards it:
 * TSS at the source tracks and caches it (fails before: taken for a
 * segment sent straight to its destination, passed on untracked, so the
 * sender had no backpressure; TSS chain over non-storing RPL, seed 1: 36
 * source retransmissions before, 4 after). */
static void test_tss_source_on_its_own_source_route(void)
{
    struct node n;
    struct tseg t;
    uint8_t plain[300], pkt[300], addrs[1][16];
    struct mip_addr nn = fixture_addr(ADDR_N), d = fixture_addr(addr_d(true));
    size_t l, sl = 0;
    src_is_r = ADDR_R;
    ns_node(&n, MIP_RELAY_TSS);
    addr_add(&n.f, "fd02::5", 64);               /* D "on link" by the routes */
    t = data(true, 1000, 60, 3);
    l = mk(plain, &t);
    memcpy(addrs[0], d.bytes, 16);
    memcpy(pkt, plain, 40);
    CHECK_EQ(mip_srh_emit(plain[6], nn.bytes, (const uint8_t (*)[16])addrs, 1, pkt + 40, 200,
                          &sl), MIP_OK);
    memcpy(pkt + 40 + sl, plain + 40, l - 40);
    pkt[6] = MIP_IPV6_NH_ROUTING;
    memcpy(pkt + 24, nn.bytes, 16);
    mip_wr16(pkt + 4, (uint16_t)(l - 40 + sl));
    n.f.s->now = n.f.now;
    CHECK_EQ(n.f.s->local_hook(n.f.s->local_hook_ctx, n.f.s, true, 0, pkt, l + sl),
             MIP_FWD_PASS);
    CHECK_EQ(flows_used(&n), 1);
    CHECK_EQ(rstat(&n, MIP_RELAY_STAT_cached), 1);
    /* the same segment sent plainly to D, which the routes say is on link:
     * straight to its destination, untracked */
    {
        struct node m;
        ns_node(&m, MIP_RELAY_TSS);
        addr_add(&m.f, "fd02::5", 64);
        m.f.s->now = m.f.now;
        CHECK_EQ(m.f.s->local_hook(m.f.s->local_hook_ctx, m.f.s, true, 0, plain, l),
                 MIP_FWD_PASS);
        CHECK_EQ(flows_used(&m), 0);
        node_free(&m);
    }
    src_is_r = NULL;
    node_free(&n);
}

int main(void)
{
    RUN(test_dtc_caches_and_resends_down_the_source_route);
    RUN(test_dtc_regenerated_ack_keeps_the_rpl_option);
    RUN(test_regenerated_ack_follows_its_source_route);
    RUN(test_tss_hears_its_next_hop_on_the_source_route);
    RUN(test_tss_source_on_its_own_source_route);
    return TESTING_DONE();
}

#else

int main(void)
{
    printf("relay: not in this profile (MIP_CONF_FORWARD)\n");
    return 0;
}

#endif
