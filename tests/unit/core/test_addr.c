/* Address text forms: mip_addr_parse (RFC 4291 2.2 input, dotted quads,
 * "/prefix") and mip_addr_format (RFC 5952 canonical output). */
#include "fixture.h"

/* Parses `in` and formats it again; the text must be `want`. */
static void check_roundtrip(const char *in, const char *want)
{
    struct mip_addr a;
    char buf[MIP_ADDR_TEXT_MAX];
    mip_status st = mip_addr_parse(in, &a, NULL);
    CHECK_EQ(st, MIP_OK);
    if (st != MIP_OK) {
        fprintf(stderr, "  parse failed: \"%s\"\n", in);
        return;
    }
    CHECK_EQ(mip_addr_format(&a, buf, sizeof(buf)), MIP_OK);
    if (strcmp(buf, want) != 0)
        fprintf(stderr, "  \"%s\" formatted as \"%s\", want \"%s\"\n", in, buf, want);
    CHECK(strcmp(buf, want) == 0);
}

static void check_malformed(const char *in)
{
    struct mip_addr a;
    uint8_t plen = 77;
    mip_status st = mip_addr_parse(in, &a, &plen);
    if (st != MIP_ERR_MALFORMED)
        fprintf(stderr, "  \"%s\" gave %s, want MALFORMED\n", in, mip_status_name(st));
    CHECK_EQ(st, MIP_ERR_MALFORMED);
}

static void test_parse_ipv6_bytes(void)
{
    static const uint8_t want[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    static const uint8_t full[16] = {0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44,
                                     0x55, 0x55, 0x66, 0x66, 0x77, 0x77, 0x88, 0x88};
    static const uint8_t mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 192, 0, 2, 1};
    struct mip_addr a;
    uint8_t plen = 0;
    CHECK_EQ(mip_addr_parse("2001:db8::1", &a, &plen), MIP_OK);
    CHECK_EQ(a.family, MIP_AF_INET6);
    CHECK_MEM(a.bytes, want, 16);
    CHECK_EQ(plen, 128);
    CHECK_EQ(mip_addr_parse("1111:2222:3333:4444:5555:6666:7777:8888", &a, NULL), MIP_OK);
    CHECK_MEM(a.bytes, full, 16);
    CHECK_EQ(mip_addr_parse("::ffff:192.0.2.1", &a, NULL), MIP_OK);
    CHECK_MEM(a.bytes, mapped, 16);
    CHECK_EQ(mip_addr_parse("2001:DB8:0:0:0:0:0:1", &a, NULL), MIP_OK);   /* upper case in */
    CHECK_MEM(a.bytes, want, 16);
}

static void test_parse_ipv4_bytes(void)
{
    static const uint8_t want[4] = {192, 0, 2, 1};
    struct mip_addr a;
    uint8_t plen = 0;
    unsigned i;
    CHECK_EQ(mip_addr_parse("192.0.2.1", &a, &plen), MIP_OK);
    CHECK_EQ(a.family, MIP_AF_INET);
    CHECK_MEM(a.bytes, want, 4);
    for (i = 4; i < 16; i++)
        CHECK_EQ(a.bytes[i], 0);                        /* rest is zero (addr.h) */
    CHECK_EQ(plen, 32);
    CHECK_EQ(mip_addr_parse("0.0.0.0", &a, NULL), MIP_OK);
    CHECK_EQ(a.bytes[0] | a.bytes[1] | a.bytes[2] | a.bytes[3], 0);
    CHECK_EQ(mip_addr_parse("255.255.255.255", &a, NULL), MIP_OK);
    CHECK_EQ(a.bytes[0] & a.bytes[1] & a.bytes[2] & a.bytes[3], 255);
}

static void test_format_rfc5952_vectors(void)
{
    check_roundtrip("2001:db8::1", "2001:db8::1");
    check_roundtrip("::", "::");
    check_roundtrip("0:0:0:0:0:0:0:0", "::");
    check_roundtrip("::1", "::1");
    check_roundtrip("1::", "1::");
    check_roundtrip("1:0:0:0:0:0:0:0", "1::");
    check_roundtrip("fe80::", "fe80::");
    /* the first of two equal runs is compressed (RFC 5952 4.2.3) */
    check_roundtrip("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1");
    /* the longest run wins over an earlier shorter one */
    check_roundtrip("2001:0:0:1:0:0:0:1", "2001:0:0:1::1");
    /* a single zero word is never "::" (RFC 5952 4.2.2) */
    check_roundtrip("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1");
    /* leading zeros suppressed (4.1), lower case (4.3) */
    check_roundtrip("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1");
    check_roundtrip("2001:DB8::ABCD:00EF", "2001:db8::abcd:ef");
    check_roundtrip("0001:0010:0100:1000:000a:00b0:0c00:d000", "1:10:100:1000:a:b0:c00:d000");
    check_roundtrip("FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF",
                    "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
    /* "::" standing for exactly one word on input is accepted */
    check_roundtrip("1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0");
    check_roundtrip("::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8");
    check_roundtrip("fd00:0:0:0:0:0:0:2", "fd00::2");
}

static void test_format_ipv4_dotted_quad(void)
{
    check_roundtrip("192.0.2.1", "192.0.2.1");
    check_roundtrip("0.0.0.0", "0.0.0.0");
    check_roundtrip("255.255.255.255", "255.255.255.255");
    check_roundtrip("10.100.9.0", "10.100.9.0");
}

static void test_parse_prefixes(void)
{
    struct mip_addr a;
    uint8_t plen = 0;
    CHECK_EQ(mip_addr_parse("2001:db8::/32", &a, &plen), MIP_OK);
    CHECK_EQ(a.family, MIP_AF_INET6);
    CHECK_EQ(plen, 32);
    CHECK_EQ(mip_addr_parse("::/0", &a, &plen), MIP_OK);
    CHECK_EQ(plen, 0);
    CHECK_EQ(mip_addr_parse("fd00::1/128", &a, &plen), MIP_OK);
    CHECK_EQ(plen, 128);
    CHECK_EQ(mip_addr_parse("10.0.0.0/8", &a, &plen), MIP_OK);
    CHECK_EQ(a.family, MIP_AF_INET);
    CHECK_EQ(a.bytes[0], 10);
    CHECK_EQ(plen, 8);
    CHECK_EQ(mip_addr_parse("0.0.0.0/0", &a, &plen), MIP_OK);
    CHECK_EQ(plen, 0);
    CHECK_EQ(mip_addr_parse("192.0.2.7/32", &a, &plen), MIP_OK);
    CHECK_EQ(plen, 32);
    /* without prefix_len a suffix is refused */
    CHECK_EQ(mip_addr_parse("10.0.0.0/8", &a, NULL), MIP_ERR_MALFORMED);
    CHECK_EQ(mip_addr_parse("fd00::/64", &a, NULL), MIP_ERR_MALFORMED);
}

static void test_parse_malformed_ipv4(void)
{
    check_malformed("300.1.1.1");
    check_malformed("1.2.3.256");
    check_malformed("1.2.3");
    check_malformed("1.2.3.4.5");
    check_malformed("1..2.3");
    check_malformed(".1.2.3");
    check_malformed("1.2.3.");
    check_malformed("01.2.3.4");                        /* leading zero: octal or decimal? */
    check_malformed("1.2.3.1000");
    check_malformed("1.2.3.4x");
    check_malformed("1.2.3.4 ");
    check_malformed(" 1.2.3.4");
    check_malformed("a.b.c.d");
    check_malformed("1.2.3.-4");
    check_malformed("1.2.3.4/33");
    check_malformed("1.2.3.4/");
    check_malformed("1.2.3.4/x");
    check_malformed("1.2.3.4/8x");
    check_malformed("1.2.3.4/1000");
    check_malformed("1.2.3.4//8");
    check_malformed("1.2.3.4/8/8");
    check_malformed("/24");
}

static void test_parse_malformed_ipv6(void)
{
    check_malformed(":::");
    check_malformed("1:2:3:4:5:6:7:8:9");
    check_malformed("1:2:3:4:5:6:7");                   /* 7 words, no "::" */
    check_malformed("1::2:3:4:5:6:7:8");                /* "::" for zero words */
    check_malformed("1:2:3:4:5:6:7:8::");
    check_malformed("::1:2:3:4:5:6:7:8");
    check_malformed("12345::");
    check_malformed("::12345");
    check_malformed("1::2::3");
    check_malformed("::1::");
    check_malformed(":1::2");
    check_malformed("1::2:");
    check_malformed("1:2:3:4:5:6:7:8:");
    check_malformed(":");
    check_malformed("g::1");
    check_malformed("fd00::1x");
    check_malformed("fd00::1 ");
    check_malformed("fd00::/129");
    check_malformed("fd00::/1290");
    check_malformed("fd00::/");
    check_malformed("fd00::/-1");
    check_malformed("::ffff:1.2.3");                    /* short embedded IPv4 */
    check_malformed("::ffff:1.2.3.4:5");                /* IPv4 must end it */
    check_malformed("::ffff:1.2.3.256");
    check_malformed("1:2:3:4:5:6:7:1.2.3.4");           /* 7 words + 2 = too long */
    check_malformed("1:2:3:4:5:6::1.2.3.4");            /* "::" for zero words */
    check_malformed("1.2.3.4::");
}

static void test_parse_empty_and_null(void)
{
    struct mip_addr a;
    uint8_t plen;
    check_malformed("");
    CHECK_EQ(mip_addr_parse(NULL, &a, &plen), MIP_ERR_INVALID);
    CHECK_EQ(mip_addr_parse("::1", NULL, &plen), MIP_ERR_INVALID);
}

static void test_format_nospace_leaves_buffer_untouched(void)
{
    struct mip_addr a;
    char buf[MIP_ADDR_TEXT_MAX];
    CHECK_EQ(mip_addr_parse("2001:db8::1", &a, NULL), MIP_OK);   /* 11 characters */
    memset(buf, '#', sizeof(buf));
    CHECK_EQ(mip_addr_format(&a, buf, 11), MIP_ERR_NOSPACE);     /* no room for the NUL */
    CHECK_EQ(buf[0], '#');
    CHECK_EQ(mip_addr_format(&a, buf, 0), MIP_ERR_NOSPACE);
    CHECK_EQ(mip_addr_format(&a, buf, 12), MIP_OK);
    CHECK(strcmp(buf, "2001:db8::1") == 0);
    CHECK_EQ(buf[12], '#');                                      /* nothing past the NUL */

    CHECK_EQ(mip_addr_parse("255.255.255.255", &a, NULL), MIP_OK);  /* 15 characters */
    memset(buf, '#', sizeof(buf));
    CHECK_EQ(mip_addr_format(&a, buf, 15), MIP_ERR_NOSPACE);
    CHECK_EQ(buf[0], '#');
    CHECK_EQ(mip_addr_format(&a, buf, 16), MIP_OK);
    CHECK(strcmp(buf, "255.255.255.255") == 0);

    /* the longest IPv6 text (39) fits MIP_ADDR_TEXT_MAX */
    CHECK_EQ(mip_addr_parse("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", &a, NULL), MIP_OK);
    CHECK_EQ(mip_addr_format(&a, buf, 39), MIP_ERR_NOSPACE);
    CHECK_EQ(mip_addr_format(&a, buf, 40), MIP_OK);
    CHECK_EQ(strlen(buf), 39);
}

static void test_format_unset_family_is_invalid(void)
{
    struct mip_addr a;
    char buf[MIP_ADDR_TEXT_MAX];
    memset(&a, 0, sizeof(a));
    CHECK_EQ(mip_addr_format(&a, buf, sizeof(buf)), MIP_ERR_INVALID);
}

static void test_prefix_eq_and_addr_eq(void)
{
    struct mip_addr a, b, c;
    CHECK_EQ(mip_addr_parse("2001:db8:1234::1", &a, NULL), MIP_OK);
    CHECK_EQ(mip_addr_parse("2001:db8:12ff::2", &b, NULL), MIP_OK);
    CHECK(mip_addr_prefix_eq(a.bytes, b.bytes, 0));
    CHECK(mip_addr_prefix_eq(a.bytes, b.bytes, 32));
    CHECK(mip_addr_prefix_eq(a.bytes, b.bytes, 40));    /* 0x12 == 0x12 */
    CHECK(!mip_addr_prefix_eq(a.bytes, b.bytes, 41));   /* 0x34 vs 0xff: bit 40 differs */
    CHECK(!mip_addr_prefix_eq(a.bytes, b.bytes, 128));
    CHECK(!mip_addr_eq(&a, &b));
    c = a;
    CHECK(mip_addr_eq(&a, &c));
    CHECK_EQ(mip_addr_parse("0.0.0.0", &c, NULL), MIP_OK);   /* family matters */
    CHECK_EQ(mip_addr_parse("::", &b, NULL), MIP_OK);
    CHECK(!mip_addr_eq(&b, &c));
    CHECK_EQ(mip_addr_len(MIP_AF_INET), 4);
    CHECK_EQ(mip_addr_len(MIP_AF_INET6), 16);
    CHECK_EQ(mip_addr_len(MIP_AF_NONE), 0);
}

int main(void)
{
    RUN(test_parse_ipv6_bytes);
    RUN(test_parse_ipv4_bytes);
    RUN(test_format_rfc5952_vectors);
    RUN(test_format_ipv4_dotted_quad);
    RUN(test_parse_prefixes);
    RUN(test_parse_malformed_ipv4);
    RUN(test_parse_malformed_ipv6);
    RUN(test_parse_empty_and_null);
    RUN(test_format_nospace_leaves_buffer_untouched);
    RUN(test_format_unset_family_is_invalid);
    RUN(test_prefix_eq_and_addr_eq);
    return TESTING_DONE();
}
