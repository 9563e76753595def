/* IPv6 input (RFC 8200): validation, local delivery, echo, extension
 * headers and the Parameter Problem errors they cause. */
#include "ip6_checks.h"
#include "moteip/wire/ethernet.h"

#define LL_SELF "fe80::200:ff:fe00:2"   /* fixture netif 0's link-local */

/* --- validation ---------------------------------------------------------- */

static void test_shorter_than_fixed_header_counted_truncated(void)
{
    struct fixture f;
    uint8_t pkt[128];
    size_t len;
    fixture_init(&f, false);
    len = build_echo6(pkt, "fd00::1", "fd00::2", 64, 1, 1, 0);
    fixture_input(&f, 0, pkt, 39);
    fixture_input(&f, 0, pkt, 1);
    CHECK_EQ(len, 48);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_rx_ipv6), 2);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_truncated), 2);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_delivered), 0);
    fixture_free(&f);
}

static void test_payload_length_beyond_frame_counted_truncated(void)
{
    struct fixture f;
    uint8_t pkt[128];
    size_t len;
    fixture_init(&f, false);
    len = build_echo6(pkt, "fd00::1", "fd00::2", 64, 1, 1, 16);
    mip_wr16(pkt + 4, (uint16_t)(len - 40 + 1));   /* claims one byte more */
    fixture_input(&f, 0, pkt, len);
    fixture_input(&f, 0, pkt, len - 1);             /* and a frame cut short */
    mip_wr16(pkt + 4, (uint16_t)(len - 40));
    fixture_input(&f, 0, pkt, len - 1);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_truncated), 3);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_malformed), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_delivered), 0);
    fixture_free(&f);
}

static void test_zero_payload_length_counted_malformed(void)
{
    /* payload_len 0 means a Jumbo Payload (RFC 2675), not supported */
    struct fixture f;
    uint8_t pkt[128];
    size_t len;
    fixture_init(&f, false);
    len = build_echo6(pkt, "fd00::1", "fd00::2", 64, 1, 1, 8);
    mip_wr16(pkt + 4, 0);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_malformed), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_truncated), 0);
    fixture_free(&f);
}

static void test_unknown_ip_version_on_rawip_counted_unsupported(void)
{
    /* Raw IP demultiplexes on the version nibble itself. */
    struct fixture f;
    uint8_t pkt[128];
    size_t len;
    fixture_init(&f, false);
    len = build_echo6(pkt, "fd00::1", "fd00::2", 64, 1, 1, 8);
    pkt[0] = (uint8_t)(0x70 | (pkt[0] & 0x0F));
    fixture_input(&f, 0, pkt, len);
    fixture_input(&f, 0, pkt, 0);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_link_unsupported), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_link_truncated), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_rx_ipv6), 0);
    fixture_free(&f);
}

static void test_wrong_version_in_ipv6_ethertype_counted_malformed(void)
{
#if MIP_CONF_ETHERNET
    /* Over Ethernet the ethertype picks IPv6, so a version other than 6 is
     * the IPv6 header's own fault. */
    struct fixture f;
    uint8_t frame[200];
    uint8_t idx;
    size_t len;
    static const uint8_t our_mac[6] = {0x02, 0, 0, 0, 0, 0x10};
    static const uint8_t peer_mac[6] = {0x02, 0, 0, 0, 0, 0x01};
    fixture_init(&f, false);
    idx = fixture_add_eth(&f, 0x10);
    memcpy(frame, our_mac, 6);
    memcpy(frame + 6, peer_mac, 6);
    mip_wr16(frame + 12, MIP_ETHERTYPE_IPV6);
    len = build_echo6(frame + 14, "fe80::1", "fe80::ff:fe00:10", 64, 1, 1, 8);
    frame[14] = (uint8_t)(0x40 | (frame[14] & 0x0F));
    fixture_input(&f, idx, frame, 14 + len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_rx_ipv6), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_malformed), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_link_unsupported), 0);
    fixture_free(&f);
#else
    SKIP("no Ethernet in this profile");
#endif
}

static void test_trailing_link_padding_ignored(void)
{
    struct fixture f;
    uint8_t pkt[128];
    size_t len;
    fixture_init(&f, false);
    len = build_echo6(pkt, "fd00::1", "fd00::2", 64, 0x4242, 9, 4);
    memset(pkt + len, 0xEE, 12);                  /* 12 bytes of padding */
    fixture_input(&f, 0, pkt, len + 12);
    CHECK_EQ(f.ntx, 1);
    CHECK_ECHO_REPLY(&f.tx[0], "fd00::2", "fd00::1", 0x4242, 9, 4);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_icmp_bad_checksum), 0);
    fixture_free(&f);
}

static void test_multicast_source_dropped(void)
{
    struct fixture f;
    uint8_t pkt[128];
    size_t len;
    fixture_init(&f, false);
    len = build_echo6(pkt, "ff02::1", "fd00::2", 64, 1, 1, 8);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_bad_src), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_delivered), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), 0);
    fixture_free(&f);
}

static void test_destination_not_ours_dropped(void)
{
    struct fixture f;
    uint8_t pkt[128];
    size_t len;
    fixture_init(&f, false);
    len = build_echo6(pkt, "fd00::1", "fd00::99", 64, 1, 1, 8);
    fixture_input(&f, 0, pkt, len);
    /* a multicast group we did not join: not for us either */
    len = build_echo6(pkt, "fd00::1", "ff02::2", 64, 1, 1, 8);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_not_for_us), 2);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_delivered), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), 0);
    fixture_free(&f);
}

/* --- echo ------------------------------------------------------------------ */

static void test_echo_to_global_address_answered(void)
{
    struct fixture f;
    uint8_t pkt[128];
    size_t len;
    fixture_init(&f, false);
    len = build_echo6(pkt, "fd00::1", "fd00::2", 17, 0xBEEF, 0x0102, 32);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].netif, 0);
    CHECK_ECHO_REPLY(&f.tx[0], "fd00::2", "fd00::1", 0xBEEF, 0x0102, 32);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_rx), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_tx_ipv6), 1);
    fixture_free(&f);
}

static void test_echo_to_link_local_answered_from_link_local(void)
{
    struct fixture f;
    uint8_t pkt[128];
    size_t len;
    fixture_init(&f, false);
    len = build_echo6(pkt, "fe80::1", LL_SELF, 64, 7, 8, 10);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_ECHO_REPLY(&f.tx[0], LL_SELF, "fe80::1", 7, 8, 10);
    fixture_free(&f);
}

static void test_echo_to_all_nodes_answered_from_unicast(void)
{
    /* RFC 4443 4.2: the reply to a multicast echo comes from a unicast
     * address of ours, in scope with the requester. */
    struct fixture f;
    uint8_t pkt[128];
    size_t len;
    fixture_init(&f, false);
    len = build_echo6(pkt, "fe80::1", "ff02::1", 64, 7, 1, 10);
    fixture_input(&f, 0, pkt, len);
    len = build_echo6(pkt, "fd00::1", "ff02::1", 64, 7, 2, 10);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 2);
    CHECK_ECHO_REPLY(&f.tx[0], LL_SELF, "fe80::1", 7, 1, 10);
    CHECK_ECHO_REPLY(&f.tx[1], "fd00::2", "fd00::1", 7, 2, 10);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 2);
    fixture_free(&f);
}

static void test_echo_to_solicited_node_group_answered(void)
{
    struct fixture f;
    uint8_t pkt[128];
    size_t len;
    fixture_init(&f, false);
    len = build_echo6(pkt, "fd00::1", "ff02::1:ff00:2", 64, 3, 4, 0);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_ECHO_REPLY(&f.tx[0], "fd00::2", "fd00::1", 3, 4, 0);
    fixture_free(&f);
}

static void test_echo_every_size_up_to_mtu_answered_exactly(void)
{
    /* Every request that fits the MTU unfragmented gets a reply of exactly
     * the same size and content. */
    struct fixture f;
    static uint8_t pkt[FIXTURE_FRAME_MAX];
    const size_t max = FIXTURE_MTU - 48;   /* 1452 full, 1232 tiny */
    size_t n, len, bad = 0;
    fixture_init(&f, false);
    for (n = 0; n <= max; n++) {
        fixture_clear(&f);
        len = build_echo6(pkt, "fd00::1", "fd00::2", 64, 0x77, (uint16_t)n, n);
        fixture_input(&f, 0, pkt, len);
        if (f.ntx != 1 || f.tx[0].len != len || f.tx[0].data[40] != 129 ||
            !ip6_l4_cksum_ok(f.tx[0].data, f.tx[0].len, 58) ||
            memcmp(f.tx[0].data + 44, pkt + 44, len - 44) != 0 ||
            memcmp(f.tx[0].data + 8, pkt + 24, 16) != 0 ||
            memcmp(f.tx[0].data + 24, pkt + 8, 16) != 0) {
            if (bad++ < 5)
                fprintf(stderr, "echo size %zu: ntx %u len %zu\n", n, f.ntx,
                        f.ntx ? f.tx[0].len : 0);
        }
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), max + 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_frag_tx), 0);
    fixture_free(&f);
}

static void test_echo_with_bad_checksum_dropped(void)
{
    struct fixture f;
    uint8_t pkt[128];
    size_t len;
    fixture_init(&f, false);
    len = build_echo6(pkt, "fd00::1", "fd00::2", 64, 1, 1, 8);
    pkt[50] ^= 0x01;
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_icmp_bad_checksum), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_echo_replied), 0);
    fixture_free(&f);
}

/* --- extension headers ------------------------------------------------- */

/* A Destination Options (or Hop-by-Hop) header of 8 bytes holding one
 * option of type `opt` with 4 bytes of data. */
static void ext_one_option(uint8_t *w, uint8_t nh, uint8_t opt)
{
    w[0] = nh;
    w[1] = 0;
    w[2] = opt;
    w[3] = 4;
    memset(w + 4, 0, 4);
}

static size_t ext_echo(uint8_t *pkt, const char *src, const char *dst, uint8_t first_nh,
                       const uint8_t *ext, size_t ext_len, uint16_t seq)
{
    uint8_t icmp[64];
    size_t n = build_echo(icmp, 128, 0x5151, seq, 12);
    return build_ext6(pkt, src, dst, first_nh, ext, ext_len, icmp, n);
}

/* Extension headers before an echo request (RFC 8200 s.4): what the
 * options' action bits, the header order and the Routing header's
 * Segments Left earn. Each row: the headers (first_nh names the first),
 * the destination, and the answer: an echo reply, a Parameter Problem
 * with `code` pointing at byte `ptr`, or nothing. */
enum ext_answer { EXT_ECHO, EXT_PARAM_PROBLEM, EXT_NOTHING };

static void test_extension_headers_answered_by_their_rules(void)
{
    static const struct {
        const char *what;
        uint8_t first_nh;
        uint8_t ext[24];
        size_t ext_len;
        const char *dst;
        enum ext_answer answer;
        uint8_t code;
        uint16_t ptr;
    } rows[] = {
        {"hop-by-hop, PadN", 0, {58, 0, 1, 4}, 8, "fd00::2", EXT_ECHO, 0, 0},
        {"hop-by-hop, six Pad1", 0, {58, 0, 0, 0}, 8, "fd00::2", EXT_ECHO, 0, 0},
        {"unknown option, action 00: skipped", 60, {58, 0, 0x1E, 4}, 8, "fd00::2", EXT_ECHO,
         0, 0},
        {"action 01: dropped silently", 60, {58, 0, 0x5E, 4}, 8, "fd00::2", EXT_NOTHING, 0, 0},
        /* pointer: the option type byte, 40 + 2 */
        {"action 10: parameter problem, code 2", 60, {58, 0, 0x9E, 4}, 8, "fd00::2",
         EXT_PARAM_PROBLEM, 2, 42},
        /* after a Hop-by-Hop header and a PadN in the 16-byte Destination
         * Options header: 40 + 8 + 2 + 4 */
        {"the pointer counts from the IPv6 header", 0,
         {60, 0, 1, 4, 0, 0, 0, 0, 58, 1, 1, 2, 0, 0, 0x80, 6}, 24, "fd00::2",
         EXT_PARAM_PROBLEM, 2, 54},
        /* RFC 8200 4.2: action 10 sends the error "regardless of whether or
         * not the packet's Destination Address was a multicast address" */
        {"action 10 to a multicast group", 60, {58, 0, 0x9E, 4}, 8, "ff02::1",
         EXT_PARAM_PROBLEM, 2, 42},
        {"action 11: parameter problem", 60, {58, 0, 0xDE, 4}, 8, "fd00::2",
         EXT_PARAM_PROBLEM, 2, 42},
        {"action 11 to a multicast group: nothing", 60, {58, 0, 0xDE, 4}, 8, "ff02::1",
         EXT_NOTHING, 0, 0},
        /* Dest Options, then Hop-by-Hop: point at the Dest Options' Next
         * Header byte (offset 40) that names it */
        {"hop-by-hop not first", 60, {0, 0, 1, 4, 0, 0, 0, 0, 58, 0, 1, 4}, 16, "fd00::2",
         EXT_PARAM_PROBLEM, 1, 40},
        {"routing header, segments left 0: skipped", 43, {58, 0, 3, 0}, 8, "fd00::2", EXT_ECHO,
         0, 0},
        {"routing header, segments left 1: at its type", 43, {58, 1, 3, 1}, 16, "fd00::2",
         EXT_PARAM_PROBLEM, 0, 42},
    };
    unsigned i;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct fixture f;
        uint8_t pkt[128];
        const uint16_t seq = (uint16_t)(i + 1);
        size_t len;
        fixture_init(&f, false);
        len = ext_echo(pkt, "fd00::1", rows[i].dst, rows[i].first_nh, rows[i].ext,
                       rows[i].ext_len, seq);
        fixture_input(&f, 0, pkt, len);
        if (f.ntx != (rows[i].answer == EXT_NOTHING ? 0u : 1u))
            fprintf(stderr, "row %u (%s): %u frames sent\n", i, rows[i].what, f.ntx);
        CHECK_EQ(f.ntx, rows[i].answer == EXT_NOTHING ? 0 : 1);
        if (rows[i].answer == EXT_ECHO && f.ntx == 1)
            CHECK_ECHO_REPLY(&f.tx[0], "fd00::2", "fd00::1", 0x5151, seq, 12);
        if (rows[i].answer == EXT_PARAM_PROBLEM && f.ntx == 1)
            CHECK_PARAM_PROBLEM(&f.tx[0], "fd00::2", "fd00::1", rows[i].code, rows[i].ptr, pkt,
                                len);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_ext_header),
                 rows[i].answer == EXT_ECHO ? 0 : 1);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx),
                 rows[i].answer == EXT_PARAM_PROBLEM ? 1 : 0);
        if (rows[i].answer != EXT_ECHO)
            CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_delivered), 0);
        fixture_free(&f);
    }
}

/* A next header nobody handles: a Parameter Problem (code 1) pointing at
 * the byte that names it, in the fixed header or in a Destination Options
 * header before the data; none to a multicast group. */
static void test_unknown_next_header_parameter_problem_at_its_naming_byte(void)
{
    static const struct {
        const char *dst;
        bool dstopts;
        uint16_t ptr;               /* 0: no answer */
    } rows[] = {
        {"fd00::2", false, 6},
        {"fd00::2", true, 40},
        {"ff02::1", false, 0},
    };
    unsigned i;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct fixture f;
        uint8_t pkt[128], payload[24];
        size_t len;
        fixture_init(&f, false);
        if (rows[i].dstopts) {
            ext_one_option(payload, 253, 1);
            memset(payload + 8, 0x5A, 16);
            len = build_ipv6(pkt, "fd00::1", rows[i].dst, 60, 64, payload, 24);
        } else {
            memset(payload, 0xA5, 16);
            len = build_ipv6(pkt, "fd00::1", rows[i].dst, 253, 64, payload, 16);
        }
        fixture_input(&f, 0, pkt, len);
        CHECK_EQ(f.ntx, rows[i].ptr != 0 ? 1 : 0);
        if (rows[i].ptr != 0 && f.ntx == 1)
            CHECK_PARAM_PROBLEM(&f.tx[0], "fd00::2", "fd00::1", 1, rows[i].ptr, pkt, len);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ip_unknown_proto), 1);
        CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), rows[i].ptr != 0 ? 1 : 0);
        fixture_free(&f);
    }
}

static void test_no_next_header_sends_nothing(void)
{
    struct fixture f;
    uint8_t pkt[128], data[16], ext[8];
    size_t len;
    fixture_init(&f, false);
    memset(data, 0, sizeof(data));
    len = build_ipv6(pkt, "fd00::1", "fd00::2", 59, 64, data, sizeof(data));
    fixture_input(&f, 0, pkt, len);
    ext_one_option(ext, 59, 1);
    len = build_ipv6(pkt, "fd00::1", "fd00::2", 60, 64, ext, sizeof(ext));
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_delivered), 2);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ip_unknown_proto), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_ext_header), 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), 0);
    fixture_free(&f);
}

static void test_extension_header_overrunning_packet_counted_truncated(void)
{
    struct fixture f;
    uint8_t pkt[128], ext[8];
    size_t len;
    fixture_init(&f, false);
    ext_one_option(ext, 58, 1);
    ext[1] = 3;                                    /* claims 32 bytes */
    len = build_ipv6(pkt, "fd00::1", "fd00::2", 60, 64, ext, sizeof(ext));
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_truncated), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_ip_delivered), 0);
    fixture_free(&f);
}

static void test_parameter_problem_quote_capped_at_minimum_mtu(void)
{
    /* RFC 4443 2.4(c): the error fits in 1280 bytes. */
    struct fixture f;
    static uint8_t pkt[FIXTURE_FRAME_MAX], data[FIXTURE_FRAME_MAX];
    size_t len, n = FIXTURE_MTU - 40;
    fixture_init(&f, false);
    memset(data, 0x3C, sizeof(data));
    len = build_ipv6(pkt, "fd00::1", "fd00::2", 253, 64, data, n);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 1);
    CHECK_EQ(f.tx[0].len, 1280);
    CHECK_IP6(f.tx[0].data, "fd00::2", "fd00::1", 58, 64, 1240);
    CHECK_EQ(f.tx[0].data[40], 4);
    CHECK(ip6_l4_cksum_ok(f.tx[0].data, f.tx[0].len, 58));
    CHECK_MEM(f.tx[0].data + 48, pkt, 1232);
    fixture_free(&f);
}

/* --- no ICMPv6 error about an ICMPv6 error (RFC 4443 2.4(e.1)) ----------- */

static void test_no_error_about_icmpv6_error_after_extension_header(void)
{
    /* A Destination Unreachable carrying an action-10 option: the option
     * alone would earn a Parameter Problem, but the packet is an ICMPv6
     * error message. An echo request in the same spot is answered. */
    struct fixture f;
    uint8_t pkt[256], ext[8], icmp[64];
    size_t len, n;
    fixture_init(&f, false);
    ext_one_option(ext, 58, 0x9E);
    memset(icmp, 0, sizeof(icmp));
    icmp[0] = 1;                                   /* Destination Unreachable */
    icmp[1] = 4;
    n = 48;
    len = build_ext6(pkt, "fd00::1", "fd00::2", 60, ext, 8, icmp, n);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_ext_header), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), 0);

    icmp[0] = 4;                                   /* a Parameter Problem too */
    len = build_ext6(pkt, "fd00::1", "fd00::2", 60, ext, 8, icmp, n);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_ext_header), 2);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), 0);
    fixture_free(&f);
}

static void test_no_error_about_icmpv6_error_behind_two_headers(void)
{
    struct fixture f;
    uint8_t pkt[256], ext[16], icmp[64];
    size_t len;
    fixture_init(&f, false);
    ext_one_option(ext, 60, 1);                   /* HBH, PadN */
    ext_one_option(ext + 8, 58, 0xDE);            /* Dest Options, action 11 */
    memset(icmp, 0, sizeof(icmp));
    icmp[0] = 3;                                   /* Time Exceeded */
    len = build_ext6(pkt, "fd00::1", "fd00::2", 0, ext, 16, icmp, 48);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_ipv6_ext_header), 1);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), 0);
    fixture_free(&f);
}

static void test_unknown_icmpv6_types_discarded_silently(void)
{
    /* RFC 4443 2.4(a)/(b): unknown error and informational types are
     * dropped without an answer. */
    struct fixture f;
    uint8_t pkt[128], icmp[16];
    size_t len;
    fixture_init(&f, false);
    memset(icmp, 0, sizeof(icmp));
    icmp[0] = 100;
    len = build_ext6(pkt, "fd00::1", "fd00::2", 58, NULL, 0, icmp, 16);
    fixture_input(&f, 0, pkt, len);
    icmp[0] = 200;
    len = build_ext6(pkt, "fd00::1", "fd00::2", 58, NULL, 0, icmp, 16);
    fixture_input(&f, 0, pkt, len);
    CHECK_EQ(f.ntx, 0);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_rx), 2);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_drop_icmp_unhandled), 2);
    CHECK_EQ(fixture_stat(&f, MIP_STAT_icmp_errors_tx), 0);
    fixture_free(&f);
}

int main(void)
{
    RUN(test_shorter_than_fixed_header_counted_truncated);
    RUN(test_payload_length_beyond_frame_counted_truncated);
    RUN(test_zero_payload_length_counted_malformed);
    RUN(test_unknown_ip_version_on_rawip_counted_unsupported);
    RUN(test_wrong_version_in_ipv6_ethertype_counted_malformed);
    RUN(test_trailing_link_padding_ignored);
    RUN(test_multicast_source_dropped);
    RUN(test_destination_not_ours_dropped);
    RUN(test_echo_to_global_address_answered);
    RUN(test_echo_to_link_local_answered_from_link_local);
    RUN(test_echo_to_all_nodes_answered_from_unicast);
    RUN(test_echo_to_solicited_node_group_answered);
    RUN(test_echo_every_size_up_to_mtu_answered_exactly);
    RUN(test_echo_with_bad_checksum_dropped);
    RUN(test_extension_headers_answered_by_their_rules);
    RUN(test_unknown_next_header_parameter_problem_at_its_naming_byte);
    RUN(test_no_next_header_sends_nothing);
    RUN(test_extension_header_overrunning_packet_counted_truncated);
    RUN(test_parameter_problem_quote_capped_at_minimum_mtu);
    RUN(test_no_error_about_icmpv6_error_after_extension_header);
    RUN(test_no_error_about_icmpv6_error_behind_two_headers);
    RUN(test_unknown_icmpv6_types_discarded_silently);
    return TESTING_DONE();
}
