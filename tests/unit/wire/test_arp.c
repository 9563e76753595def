/*
 * ARP (RFC 826) codec, Ethernet/IPv4 only.
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/wire/arp.h"
#include "exact.h"
#include "testing.h"

/* A captured request: "Who has 24.166.173.159? Tell 24.166.172.1". */
static const uint8_t arp_request[28] = {
    0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01,
    0x00, 0x07, 0x0d, 0xaf, 0xf4, 0x54, 0x18, 0xa6, 0xac, 0x01,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x18, 0xa6, 0xad, 0x9f,
};

static mip_status parse_exact(const uint8_t *buf, size_t len, struct mip_arp *out)
{
    uint8_t *copy = dup_exact(buf, len);
    mip_status st = copy != NULL ? mip_arp_parse(copy, len, out) : MIP_ERR_NOBUFS;

    free(copy);
    return st;
}

static void test_arp_parses_captured_request(void)
{
    static const uint8_t sha[6] = { 0x00, 0x07, 0x0d, 0xaf, 0xf4, 0x54 };
    static const uint8_t spa[4] = { 24, 166, 172, 1 };
    static const uint8_t tha[6] = { 0 };
    static const uint8_t tpa[4] = { 24, 166, 173, 159 };
    struct mip_arp a;

    CHECK_EQ(parse_exact(arp_request, sizeof arp_request, &a), MIP_OK);
    CHECK_EQ(a.op, MIP_ARP_OP_REQUEST);
    CHECK_MEM(a.sha, sha, 6);
    CHECK_MEM(a.spa, spa, 4);
    CHECK_MEM(a.tha, tha, 6);
    CHECK_MEM(a.tpa, tpa, 4);
}

static void test_arp_emit_reproduces_captured_request(void)
{
    struct mip_arp a;
    uint8_t buf[MIP_ARP_LEN];

    CHECK_EQ(mip_arp_parse(arp_request, sizeof arp_request, &a), MIP_OK);
    memset(buf, 0xEE, sizeof buf);
    CHECK_EQ(mip_arp_emit(&a, buf, sizeof buf), MIP_OK);
    CHECK_MEM(buf, arp_request, sizeof buf);
}

static void test_arp_emit_parse_round_trip_reply(void)
{
    struct mip_arp in = {
        MIP_ARP_OP_REPLY,
        { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 }, { 10, 0, 0, 2 },
        { 0x02, 0x66, 0x77, 0x88, 0x99, 0xaa }, { 10, 0, 0, 1 },
    };
    struct mip_arp out;
    uint8_t buf[MIP_ARP_LEN + 2];

    memset(&out, 0, sizeof out);
    memset(buf, 0xEE, sizeof buf);
    CHECK_EQ(mip_arp_emit(&in, buf, sizeof buf), MIP_OK);
    CHECK_EQ(buf[MIP_ARP_LEN], 0xEE);
    CHECK_EQ(mip_arp_parse(buf, MIP_ARP_LEN, &out), MIP_OK);
    CHECK_EQ(out.op, in.op);
    CHECK_MEM(out.sha, in.sha, 6);
    CHECK_MEM(out.spa, in.spa, 4);
    CHECK_MEM(out.tha, in.tha, 6);
    CHECK_MEM(out.tpa, in.tpa, 4);
}

static void test_arp_accepts_link_padding(void)
{
    uint8_t padded[46]; /* minimum Ethernet payload */
    struct mip_arp a;

    memset(padded, 0, sizeof padded);
    memcpy(padded, arp_request, sizeof arp_request);
    CHECK_EQ(parse_exact(padded, sizeof padded, &a), MIP_OK);
    CHECK_EQ(a.op, MIP_ARP_OP_REQUEST);
}

static void test_arp_rejects_every_truncation(void)
{
    struct mip_arp a;
    size_t len;

    for (len = 0; len < MIP_ARP_LEN; len++)
        CHECK_EQ(parse_exact(arp_request, len, &a), MIP_ERR_TRUNCATED);
}

static mip_status parse_with_byte(size_t off, uint8_t val)
{
    uint8_t buf[MIP_ARP_LEN];
    struct mip_arp a;

    memcpy(buf, arp_request, sizeof buf);
    buf[off] = val;
    return parse_exact(buf, sizeof buf, &a);
}

static void test_arp_other_link_or_protocol_is_unsupported(void)
{
    CHECK_EQ(parse_with_byte(1, 6), MIP_ERR_UNSUPPORTED);     /* htype IEEE 802 */
    CHECK_EQ(parse_with_byte(0, 1), MIP_ERR_UNSUPPORTED);     /* htype 0x0101 */
    CHECK_EQ(parse_with_byte(2, 0x86), MIP_ERR_UNSUPPORTED);  /* ptype 0x8600 */
    CHECK_EQ(parse_with_byte(3, 0xDD), MIP_ERR_UNSUPPORTED);  /* ptype 0x08DD */
    CHECK_EQ(parse_with_byte(4, 8), MIP_ERR_UNSUPPORTED);     /* hlen 8 */
    CHECK_EQ(parse_with_byte(5, 16), MIP_ERR_UNSUPPORTED);    /* plen 16 */
}

static void test_arp_unknown_op_is_malformed(void)
{
    CHECK_EQ(parse_with_byte(7, 0), MIP_ERR_MALFORMED);
    CHECK_EQ(parse_with_byte(7, 3), MIP_ERR_MALFORMED); /* RARP request */
    CHECK_EQ(parse_with_byte(6, 1), MIP_ERR_MALFORMED); /* op 0x0101 */
    CHECK_EQ(parse_with_byte(7, 2), MIP_OK);
}

static void test_arp_unsupported_is_checked_before_op(void)
{
    uint8_t buf[MIP_ARP_LEN];
    struct mip_arp a;

    memcpy(buf, arp_request, sizeof buf);
    buf[1] = 6;
    buf[7] = 9;
    CHECK_EQ(parse_exact(buf, sizeof buf, &a), MIP_ERR_UNSUPPORTED);
}

static void test_arp_emit_nospace_for_every_short_cap(void)
{
    struct mip_arp a;
    size_t cap;

    memset(&a, 0, sizeof a);
    a.op = MIP_ARP_OP_REQUEST;
    for (cap = 0; cap < MIP_ARP_LEN; cap++) {
        uint8_t *buf = malloc(cap ? cap : 1u);

        CHECK(buf != NULL);
        if (buf == NULL)
            return;
        CHECK_EQ(mip_arp_emit(&a, buf, cap), MIP_ERR_NOSPACE);
        free(buf);
    }
}

int main(void)
{
    RUN(test_arp_parses_captured_request);
    RUN(test_arp_emit_reproduces_captured_request);
    RUN(test_arp_emit_parse_round_trip_reply);
    RUN(test_arp_accepts_link_padding);
    RUN(test_arp_rejects_every_truncation);
    RUN(test_arp_other_link_or_protocol_is_unsupported);
    RUN(test_arp_unknown_op_is_malformed);
    RUN(test_arp_unsupported_is_checked_before_op);
    RUN(test_arp_emit_nospace_for_every_short_cap);
    return TESTING_DONE();
}
