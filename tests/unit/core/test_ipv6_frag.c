/* IPv6 fragments on input (RFC 8200 4.5, RFC 5722, RFC 6946) and the
 * fragmented replies they cause. */
#include "ip6_checks.h"

/* An echo whose reply must be fragmented, yet whose request fits the
 * reassembly buffer: ICMPv6 length 1272 (tiny: MTU and buffer 1280) or
 * 3008 (full). */
#define ECHO_ICMP_LEN ((size_t)MIP_PROFILE_DEFAULT(1272, 3008))
#define IN_CHUNK 1232u   /* input fragment data size, a multiple of 8 */
#define OUT_CHUNK ((size_t)((FIXTURE_MTU - 48) / 8 * 8))

static uint8_t echo_msg[ECHO_ICMP_LEN];

static void make_echo(uint16_t seq)
{
    size_t n = build_echo(echo_msg, 128, 0x6666, seq, ECHO_ICMP_LEN - 8);
    fix_l4_checksum6(echo_msg, n, 2, 58, "fd00::1", "fd00::2");
}

/* Sends echo_msg as fragments of IN_CHUNK bytes, in the order given. */
static void send_echo_fragments(struct fixture *f, uint32_t id, bool reversed)
{
    static uint8_t pkt[FIXTURE_FRAME_MAX];
    size_t nfrag = (ECHO_ICMP_LEN + IN_CHUNK - 1) / IN_CHUNK, k;
    for (k = 0; k < nfrag; k++) {
        size_t i = reversed ? nfrag - 1 - k : k;
        size_t off = i * IN_CHUNK;
        size_t n = ECHO_ICMP_LEN - off < IN_CHUNK ? ECHO_ICMP_LEN - off : IN_CHUNK;
        size_t len = build_frag6(pkt, "fd00::1", "fd00::2", 58, id, (uint16_t)off,
                                 i + 1 < nfrag, echo_msg + off, n);
        fixture_input(f, 0, pkt, len);
    }
}

/* Reassembles the reply fragments in f->tx and checks every one. */
static void check_fragmented_reply(struct fixture *f)
{
    static uint8_t whole[ECHO_ICMP_LEN];
    size_t nfrag = (ECHO_ICMP_LEN + OUT_CHUNK - 1) / OUT_CHUNK, i, got = 0;
    uint32_t id = 0;
    CHECK_EQ(f->ntx, nfrag);
    for (i = 0; i < f->ntx && i < nfrag; i++) {
        const uint8_t *p = f->tx[i].data;
        size_t n = ECHO_ICMP_LEN - i * OUT_CHUNK < OUT_CHUNK ? ECHO_ICMP_LEN - i * OUT_CHUNK
                                                            : OUT_CHUNK;
        uint16_t offm = mip_rd16(p + 42);
        CHECK_EQ(f->tx[i].len, 48 + n);
        CHECK_IP6(p, "fd00::2", "fd00::1", 44, 64, 8 + n);
        CHECK_EQ(p[40], 58);
        CHECK_EQ(p[41], 0);
        CHECK_EQ(offm & 0xFFF8u, i * OUT_CHUNK);
        CHECK_EQ(offm & 1u, i + 1 < nfrag ? 1 : 0);
        if (i == 0)
            id = mip_rd32(p + 44);
        CHECK_EQ(mip_rd32(p + 44), id);
        memcpy(whole + i * OUT_CHUNK, p + 48, n);
        got += n;
    }
    CHECK_EQ(got, ECHO_ICMP_LEN);
    CHECK_EQ(whole[0], 129);
    CHECK_EQ(whole[1], 0);
    CHECK_MEM(whole + 4, echo_msg + 4, ECHO_ICMP_LEN - 4);
    {
        struct mip_addr a = fixture_addr("fd00::2"), b = fixture_addr("fd00::1");
        CHECK_EQ(mip_cksum_finish(mip_cksum_add(
                     mip_cksum_pseudo6(a.bytes, b.bytes, 58, (uint32_t)ECHO_ICMP_LEN),
                     whole, ECHO_ICMP_LEN)), 0);
    }
}

static void test_fragmented_echo_in_order_answered_fragmented(void)
{
    struct fixture f;
    size_t nin = (ECHO_ICMP_LEN + IN_CHUNK - 1) / IN_CHUNK;
    size_t nout = (ECHO_ICMP_LEN + OUT_CHUNK - 1) / OUT_CHUNK;
    fixture_init(&f, false);
    make_echo(1);
    send_echo_fragments(&f, 0xA1B2C3D4u, false);
    check_fragmented_reply(&f);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_rx), nin);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_reassembled), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_tx), nout);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 1);
    CHECK_EQ(f.s->pool.in_use, 0);
    CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_POLL_IDLE);   /* slot freed */
    fixture_free(&f);
}

static void test_fragmented_echo_reversed_answered_fragmented(void)
{
    struct fixture f;
    fixture_init(&f, false);
    make_echo(2);
    send_echo_fragments(&f, 7, true);
    check_fragmented_reply(&f);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_reassembled), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 1);
    fixture_free(&f);
}

static void test_two_datagrams_same_id_in_a_row_both_answered(void)
{
    struct fixture f;
    fixture_init(&f, false);
    make_echo(3);
    send_echo_fragments(&f, 99, false);
    fixture_clear(&f);
    make_echo(4);
    send_echo_fragments(&f, 99, true);
    check_fragmented_reply(&f);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_reassembled), 2);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 2);
    fixture_free(&f);
}

static void test_atomic_fragment_processed_directly(void)
{
    /* RFC 6946: offset 0 and M = 0 is a whole datagram; no reassembly. */
    struct fixture f;
    uint8_t pkt[128], icmp[64];
    size_t n, len;
    fixture_init(&f, false);
    n = build_echo(icmp, 128, 0x1111, 5, 20);
    fix_l4_checksum6(icmp, n, 2, 58, "fd00::1", "fd00::2");
    len = build_frag6(pkt, "fd00::1", "fd00::2", 58, 1234, 0, false, icmp, n);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_ECHO_REPLY(&f.tx[0], "fd00::2", "fd00::1", 0x1111, 5, 20);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_rx), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_reassembled), 0);
    CHECK_EQ(mip_stack_poll(f.s, f.now), MIP_POLL_IDLE);   /* no slot taken */
    fixture_free(&f);
}

static void test_atomic_fragment_unknown_next_header_points_into_fragment_header(void)
{
    /* The protocol is named by the Fragment header's Next Header byte,
     * offset 40, not the fixed header's (which says 44). */
    struct fixture f;
    uint8_t pkt[128], data[16];
    size_t len;
    fixture_init(&f, false);
    memset(data, 0x42, sizeof(data));
    len = build_frag6(pkt, "fd00::1", "fd00::2", 253, 1, 0, false, data, sizeof(data));
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_PARAM_PROBLEM(&f.tx[0], "fd00::2", "fd00::1", 1, 40, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ip_unknown_proto), 1);
    fixture_free(&f);
}

static void test_atomic_fragment_hop_by_hop_inside_points_into_fragment_header(void)
{
    /* A Hop-by-Hop header after the Fragment header: code 1 at the byte
     * that names it, the Fragment header's Next Header (offset 40). */
    struct fixture f;
    uint8_t pkt[128], data[24];
    size_t len;
    fixture_init(&f, false);
    memset(data, 0, sizeof(data));
    data[0] = 59;                                  /* HBH: no next header */
    data[2] = 1; data[3] = 4;                      /* PadN */
    len = build_frag6(pkt, "fd00::1", "fd00::2", 0, 2, 0, false, data, sizeof(data));
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_PARAM_PROBLEM(&f.tx[0], "fd00::2", "fd00::1", 1, 40, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_ext_header), 1);
    fixture_free(&f);
}

static void test_overlapping_fragments_drop_datagram(void)
{
    /* RFC 5722: an overlap discards the whole datagram silently. */
    struct fixture f;
    uint8_t pkt[256], icmp[64];
    size_t n, len;
    fixture_init(&f, false);
    n = build_echo(icmp, 128, 0x2222, 6, 24);   /* 32 bytes */
    fix_l4_checksum6(icmp, n, 2, 58, "fd00::1", "fd00::2");
    len = build_frag6(pkt, "fd00::1", "fd00::2", 58, 55, 0, true, icmp, 16);
    fixture_input(&f, 0, pkt, len);
    len = build_frag6(pkt, "fd00::1", "fd00::2", 58, 55, 8, false, icmp + 8, 24);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_overlap), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_delivered), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), 0);
    /* the datagram is gone: the missing piece alone completes nothing */
    len = build_frag6(pkt, "fd00::1", "fd00::2", 58, 55, 16, false, icmp + 16, 16);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_reassembled), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_delivered), 0);
    fixture_free(&f);
    /* (fixture_free ran the timeout: no first fragment, so no ICMP) */
}

static void test_more_fragments_not_multiple_of_8_parameter_problem(void)
{
    struct fixture f;
    uint8_t pkt[128], data[12];
    size_t len;
    fixture_init(&f, false);
    memset(data, 0x99, sizeof(data));
    data[0] = 128;                                 /* looks like an echo */
    len = build_frag6(pkt, "fd00::1", "fd00::2", 58, 77, 0, true, data, sizeof(data));
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    /* code 0, pointing at the Payload Length field */
    CHECK_PARAM_PROBLEM(&f.tx[0], "fd00::2", "fd00::1", 0, 4, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_malformed), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_rx), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), 1);
    fixture_free(&f);
}

static void test_fragment_beyond_65535_parameter_problem_at_offset_field(void)
{
    struct fixture f;
    uint8_t pkt[128], data[16];
    size_t len;
    fixture_init(&f, false);
    memset(data, 0x11, sizeof(data));
    len = build_frag6(pkt, "fd00::1", "fd00::2", 58, 78, 65528, false, data, sizeof(data));
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    /* the Fragment Offset field: 40 (Fragment header) + 2 */
    CHECK_PARAM_PROBLEM(&f.tx[0], "fd00::2", "fd00::1", 0, 42, pkt, len);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_malformed), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_rx), 0);
    fixture_free(&f);
}

static void test_bad_fragment_of_icmpv6_error_not_answered(void)
{
    /* RFC 4443 2.4(e.1) holds for a first fragment too. */
    struct fixture f;
    uint8_t pkt[128], data[12];
    size_t len;
    fixture_init(&f, false);
    memset(data, 0, sizeof(data));
    data[0] = 1;                                   /* Destination Unreachable */
    len = build_frag6(pkt, "fd00::1", "fd00::2", 58, 79, 0, true, data, sizeof(data));
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_frag_malformed), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), 0);
    fixture_free(&f);
}

int main(void)
{
    RUN(test_fragmented_echo_in_order_answered_fragmented);
    RUN(test_fragmented_echo_reversed_answered_fragmented);
    RUN(test_two_datagrams_same_id_in_a_row_both_answered);
    RUN(test_atomic_fragment_processed_directly);
    RUN(test_atomic_fragment_unknown_next_header_points_into_fragment_header);
    RUN(test_atomic_fragment_hop_by_hop_inside_points_into_fragment_header);
    RUN(test_overlapping_fragments_drop_datagram);
    RUN(test_more_fragments_not_multiple_of_8_parameter_problem);
    RUN(test_fragment_beyond_65535_parameter_problem_at_offset_field);
    RUN(test_bad_fragment_of_icmpv6_error_not_answered);
    return TESTING_DONE();
}
