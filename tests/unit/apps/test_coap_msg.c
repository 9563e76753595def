/*
 * CoAP message codec (apps/coap_msg.h): the RFC 7252 examples byte for
 * byte, extended option deltas and lengths, round trips through the
 * writer, and a table of malformed messages with the error each must give.
 */
#include <stdint.h>
#include <string.h>

#include "coap_msg.h"
#include "testing.h"

/* RFC 7252 Appendix A, first exchange: CON GET /temperature, MID 0x7d34,
 * and its piggybacked ACK 2.05 "22.3 C". */
static const uint8_t get_temperature[] = {
    0x40, 0x01, 0x7d, 0x34, 0xbb, 't', 'e', 'm', 'p', 'e', 'r', 'a', 't', 'u', 'r', 'e'
};
static const uint8_t ack_content[] = {
    0x60, 0x45, 0x7d, 0x34, 0xff, '2', '2', '.', '3', ' ', 'C'
};

static void test_parses_rfc7252_examples(void)
{
    struct mip_coap_msg m;
    struct mip_coap_option o;

    CHECK_EQ(mip_coap_parse(get_temperature, sizeof get_temperature, &m), MIP_COAP_OK);
    CHECK_EQ(m.type, MIP_COAP_CON);
    CHECK_EQ(m.code, MIP_COAP_GET);
    CHECK_EQ(m.mid, 0x7d34);
    CHECK_EQ(m.token_len, 0);
    CHECK(m.payload == NULL);
    CHECK(mip_coap_opt_find(&m, MIP_COAP_OPT_URI_PATH, &o));
    CHECK_EQ(o.len, 11);
    CHECK_MEM(o.value, "temperature", 11);
    CHECK(!mip_coap_opt_find(&m, MIP_COAP_OPT_URI_QUERY, &o));

    CHECK_EQ(mip_coap_parse(ack_content, sizeof ack_content, &m), MIP_COAP_OK);
    CHECK_EQ(m.type, MIP_COAP_ACK);
    CHECK_EQ(m.code, MIP_COAP_CONTENT);
    CHECK_EQ(m.options_len, 0);
    CHECK_EQ(m.payload_len, 6);
    CHECK_MEM(m.payload, "22.3 C", 6);
}

static void test_writer_emits_rfc7252_examples(void)
{
    uint8_t buf[64];
    struct mip_coap_writer w;

    mip_coap_w_begin(&w, buf, sizeof buf, MIP_COAP_CON, MIP_COAP_GET, 0x7d34, NULL, 0);
    mip_coap_w_option(&w, MIP_COAP_OPT_URI_PATH, "temperature", 11);
    CHECK_EQ(mip_coap_w_end(&w), sizeof get_temperature);
    CHECK_MEM(buf, get_temperature, sizeof get_temperature);

    mip_coap_w_begin(&w, buf, sizeof buf, MIP_COAP_ACK, MIP_COAP_INTERNAL_ERROR, 0x7d34, NULL, 0);
    mip_coap_w_code(&w, MIP_COAP_CONTENT);
    mip_coap_w_payload(&w, "22.3 C", 6);
    CHECK_EQ(mip_coap_w_end(&w), sizeof ack_content);
    CHECK_MEM(buf, ack_content, sizeof ack_content);
}

/* Deltas and lengths of 13+ and 269+ take one and two extension bytes. */
static void test_extended_delta_and_length_round_trip(void)
{
    static const uint8_t token[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    static uint8_t big[300];
    static const struct { uint16_t number; uint16_t len; } opts[] = {
        { 1, 0 }, { 12, 12 }, { 13, 13 }, { 60, 268 }, { 60, 269 }, { 329, 1 },
        { 2000, 300 }, { 65000, 2 },
    };
    uint8_t buf[1200];
    struct mip_coap_writer w;
    struct mip_coap_msg m;
    struct mip_coap_opt_iter it;
    struct mip_coap_option o;
    size_t i, n;

    for (i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 13u + 1u);
    mip_coap_w_begin(&w, buf, sizeof buf, MIP_COAP_NON, MIP_COAP_POST, 0xBEEF, token, 8);
    for (i = 0; i < sizeof opts / sizeof opts[0]; i++)
        mip_coap_w_option(&w, opts[i].number, big, opts[i].len);
    mip_coap_w_payload(&w, "xyz", 3);
    n = mip_coap_w_end(&w);
    CHECK(n > 0);
    /* Option 60 after 13: delta 47 is nibble 13 + one byte 34. */
    CHECK_EQ(mip_coap_parse(buf, n, &m), MIP_COAP_OK);
    CHECK_EQ(m.type, MIP_COAP_NON);
    CHECK_EQ(m.mid, 0xBEEF);
    CHECK_EQ(m.token_len, 8);
    CHECK_MEM(m.token, token, 8);
    CHECK_EQ(m.payload_len, 3);
    mip_coap_opt_begin(&it, &m);
    for (i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        CHECK(mip_coap_opt_next(&it, &o));
        CHECK_EQ(o.number, opts[i].number);
        CHECK_EQ(o.len, opts[i].len);
        CHECK_MEM(o.value, big, opts[i].len);
    }
    CHECK(!mip_coap_opt_next(&it, &o));
}

static void test_uint_options_and_blocks(void)
{
    static const struct { uint32_t v; size_t len; } vals[] = {
        { 0, 0 }, { 1, 1 }, { 255, 1 }, { 256, 2 }, { 65536, 3 }, { 0x01000000u, 4 },
    };
    static const struct mip_coap_block blocks[] = {
        { 0, false, 0 }, { 0, true, 6 }, { 15, true, 2 }, { 16, false, 4 }, { 0xFFFFF, true, 6 },
    };
    uint8_t buf[64];
    struct mip_coap_writer w;
    struct mip_coap_msg m;
    struct mip_coap_option o;
    struct mip_coap_block b;
    uint32_t v;
    size_t i;

    for (i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        mip_coap_w_begin(&w, buf, sizeof buf, MIP_COAP_CON, MIP_COAP_GET, 1, NULL, 0);
        mip_coap_w_option_uint(&w, MIP_COAP_OPT_SIZE1, vals[i].v);
        CHECK_EQ(mip_coap_parse(buf, mip_coap_w_end(&w), &m), MIP_COAP_OK);
        CHECK(mip_coap_opt_find(&m, MIP_COAP_OPT_SIZE1, &o));
        CHECK_EQ(o.len, vals[i].len);
        CHECK(mip_coap_opt_uint(&o, &v));
        CHECK_EQ(v, vals[i].v);
    }
    for (i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        mip_coap_w_begin(&w, buf, sizeof buf, MIP_COAP_CON, MIP_COAP_GET, 1, NULL, 0);
        mip_coap_w_block(&w, MIP_COAP_OPT_BLOCK2, &blocks[i]);
        CHECK_EQ(mip_coap_parse(buf, mip_coap_w_end(&w), &m), MIP_COAP_OK);
        CHECK(mip_coap_opt_find(&m, MIP_COAP_OPT_BLOCK2, &o));
        CHECK(mip_coap_block_decode(&o, &b));
        CHECK_EQ(b.num, blocks[i].num);
        CHECK_EQ(b.more, blocks[i].more);
        CHECK_EQ(b.szx, blocks[i].szx);
    }
    /* SZX 7 (BERT) and a four-byte block value are refused. */
    o.number = MIP_COAP_OPT_BLOCK2;
    o.len = 1;
    o.value = (const uint8_t *)"\x07";
    CHECK(!mip_coap_block_decode(&o, &b));
    o.len = 4;
    o.value = (const uint8_t *)"\x00\x00\x00\x10";
    CHECK(!mip_coap_block_decode(&o, &b));
    CHECK_EQ(mip_coap_block_size(0), 16);
    CHECK_EQ(mip_coap_block_size(6), 1024);
}

static void test_writer_errors_stick(void)
{
    uint8_t buf[16];
    struct mip_coap_writer w;

    mip_coap_w_begin(&w, buf, sizeof buf, MIP_COAP_CON, MIP_COAP_GET, 1, NULL, 0);
    mip_coap_w_option(&w, MIP_COAP_OPT_URI_PATH, "a", 1);
    mip_coap_w_option(&w, MIP_COAP_OPT_URI_HOST, "b", 1);     /* out of order */
    mip_coap_w_payload(&w, "x", 1);
    CHECK_EQ(mip_coap_w_end(&w), 0);

    mip_coap_w_begin(&w, buf, sizeof buf, MIP_COAP_CON, MIP_COAP_GET, 1, NULL, 0);
    mip_coap_w_payload(&w, "0123456789ab", 12);               /* 4 + 1 + 12 > 16 */
    CHECK_EQ(mip_coap_w_end(&w), 0);

    mip_coap_w_begin(&w, buf, sizeof buf, MIP_COAP_CON, MIP_COAP_GET, 1, NULL, 0);
    mip_coap_w_payload(&w, "x", 1);
    mip_coap_w_option(&w, MIP_COAP_OPT_URI_PATH, "a", 1);     /* after the payload */
    CHECK_EQ(mip_coap_w_end(&w), 0);

    mip_coap_w_begin(&w, buf, sizeof buf, MIP_COAP_CON, MIP_COAP_GET, 1,
                     (const uint8_t *)"123456789", 9);         /* token too long */
    CHECK_EQ(mip_coap_w_end(&w), 0);

    mip_coap_w_begin(&w, buf, sizeof buf, 4, MIP_COAP_GET, 1, NULL, 0);   /* no type 4 */
    CHECK_EQ(mip_coap_w_end(&w), 0);

    mip_coap_w_begin(&w, buf, sizeof buf, MIP_COAP_CON, MIP_COAP_GET, 1, NULL, 0);
    CHECK_EQ(mip_coap_w_payload_room(&w), 11);
    mip_coap_w_payload(&w, "0123456789a", 11);
    CHECK_EQ(mip_coap_w_end(&w), 16);
}

static void test_malformed_messages_give_their_error(void)
{
    static const struct {
        const char *what;
        uint8_t bytes[12];
        size_t len;
        enum mip_coap_parse_status want;
    } cases[] = {
        { "three bytes", { 0x40, 0x01, 0x00 }, 3, MIP_COAP_ERR_SHORT },
        { "version 0", { 0x00, 0x01, 0x00, 0x01 }, 4, MIP_COAP_ERR_VERSION },
        { "version 2", { 0x80, 0x01, 0x00, 0x01 }, 4, MIP_COAP_ERR_VERSION },
        { "TKL 9", { 0x49, 0x01, 0x00, 0x01, 1, 2, 3, 4, 5, 6, 7, 8 }, 12, MIP_COAP_ERR_TKL },
        { "TKL 15", { 0x4F, 0x01, 0x00, 0x01 }, 4, MIP_COAP_ERR_TKL },
        { "token cut", { 0x44, 0x01, 0x00, 0x01, 1, 2 }, 6, MIP_COAP_ERR_TOKEN },
        { "delta nibble 15", { 0x40, 0x01, 0x00, 0x01, 0xF1, 0 }, 6, MIP_COAP_ERR_OPTION },
        { "length nibble 15", { 0x40, 0x01, 0x00, 0x01, 0x1F, 0 }, 6, MIP_COAP_ERR_OPTION },
        { "value past end", { 0x40, 0x01, 0x00, 0x01, 0xB5, 'a', 'b' }, 7, MIP_COAP_ERR_OPTION },
        { "ext delta cut", { 0x40, 0x01, 0x00, 0x01, 0xD0 }, 5, MIP_COAP_ERR_OPTION },
        { "ext length cut", { 0x40, 0x01, 0x00, 0x01, 0x1E, 0x00 }, 6, MIP_COAP_ERR_OPTION },
        { "number over 65535", { 0x40, 0x01, 0x00, 0x01, 0xE0, 0xFF, 0x00, 0xE0, 0xFF, 0x00 }, 10,
          MIP_COAP_ERR_OPTION_NUMBER },
        { "marker, no payload", { 0x40, 0x01, 0x00, 0x01, 0xFF }, 5, MIP_COAP_ERR_EMPTY_PAYLOAD },
        { "empty with token", { 0x41, 0x00, 0x00, 0x01, 0x77 }, 5, MIP_COAP_ERR_EMPTY_MSG },
        { "empty with bytes", { 0x70, 0x00, 0x00, 0x01, 0xFF, 'x' }, 6, MIP_COAP_ERR_EMPTY_MSG },
        { "empty ok", { 0x70, 0x00, 0x12, 0x34 }, 4, MIP_COAP_OK },
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct mip_coap_msg m;
        enum mip_coap_parse_status got = mip_coap_parse(cases[i].bytes, cases[i].len, &m);
        if (got != cases[i].want)
            fprintf(stderr, "case '%s': got %d\n", cases[i].what, (int)got);
        CHECK_EQ(got, cases[i].want);
        /* Past the version check the header is reported, for a RST. */
        if (got >= MIP_COAP_ERR_TKL)
            CHECK_EQ(m.mid, 0x0001);
    }
}

int main(void)
{
    RUN(test_parses_rfc7252_examples);
    RUN(test_writer_emits_rfc7252_examples);
    RUN(test_extended_delta_and_length_round_trip);
    RUN(test_uint_options_and_blocks);
    RUN(test_writer_errors_stick);
    RUN(test_malformed_messages_give_their_error);
    return TESTING_DONE();
}
