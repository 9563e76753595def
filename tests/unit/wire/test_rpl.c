/*
 * RPL control message codec (RFC 6550 6): DIS, DIO, DAO, DAO-ACK and the
 * options, from byte vectors laid out by the RFC's figures, round trips,
 * and every truncation.
 */
#include <stdint.h>
#include <stdlib.h>

#include "moteip/wire/rpl.h"
#include "exact.h"
#include "testing.h"

/* DIO (RFC 6550 Figure 14): instance 30, version 240, rank 512, G=1,
 * MOP 1 (non-storing), Prf 0, DTSN 7, DODAGID fd00::1; then a DODAG
 * Configuration option (Figure 24: A=0 PCS=0, doublings 20, Imin 3, k 10,
 * MaxRankIncrease 1792, MinHopRankIncrease 256, OCP 1, default lifetime
 * 30, lifetime unit 60) and a PIO (Figure 29: fd00::/64, L=0 A=1 R=0,
 * valid 0xffffffff, preferred 0xffffffff). */
static const uint8_t dio_msg[] = {
    0x9b, 0x01, 0x00, 0x00,
    30, 240, 0x02, 0x00, 0x88, 7, 0, 0,
    0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
    0x04, 14, 0x00, 20, 3, 10, 0x07, 0x00, 0x01, 0x00, 0x00, 0x01, 0, 30, 0x00, 60,
    0x08, 30, 64, 0x40, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0,
    0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* DAO (Figure 16) with K and D, seq 9, DODAGID fd00::1, a Pad1, a target
 * fd00::2/128 (Figure 25) and a transit with the parent address fd00::3
 * (Figure 26: path control 0, path seq 4, lifetime 30). */
static const uint8_t dao_msg[] = {
    0x9b, 0x02, 0x00, 0x00,
    30, 0xc0, 0, 9,
    0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
    0x00,
    0x05, 18, 0, 128, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
    0x06, 20, 0, 0, 4, 30, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3,
};

/* DAO-ACK (Figure 17) without DODAGID: instance 30, seq 9, status 0. */
static const uint8_t dao_ack_msg[] = {0x9b, 0x03, 0x00, 0x00, 30, 0x00, 9, 0};

/* DIS (Figure 13) with a Solicited Information option (Figure 28: V and
 * I set, instance 30, DODAGID fd00::1, version 240) and a PadN of 2. */
static const uint8_t dis_msg[] = {
    0x9b, 0x00, 0x00, 0x00, 0, 0,
    0x07, 19, 30, 0xc0, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 240,
    0x01, 0x00,
};

static struct mip_rpl_opt opt_at(const struct mip_rpl_msg *m, unsigned n)
{
    struct mip_rpl_opt o;
    size_t off = 0;
    unsigned i;
    memset(&o, 0, sizeof(o));
    for (i = 0; i <= n; i++)
        if (mip_rpl_opt_next(m->opts, m->opts_len, &off, &o) != MIP_OK)
            o.type = 0xFF;
    return o;
}

static void test_dio_decodes_the_rfc_layout(void)
{
    struct mip_rpl_msg m;
    struct mip_rpl_opt o;
    struct mip_rpl_dodag_conf c;
    struct mip_rpl_prefix_info pi;
    CHECK_EQ(mip_rpl_parse(dio_msg, sizeof(dio_msg), &m), MIP_OK);
    CHECK_EQ(m.code, MIP_RPL_CODE_DIO);
    CHECK_EQ(m.u.dio.instance, 30);
    CHECK_EQ(m.u.dio.version, 240);
    CHECK_EQ(m.u.dio.rank, 512);
    CHECK(m.u.dio.grounded);
    CHECK_EQ(m.u.dio.mop, MIP_RPL_MOP_NON_STORING);
    CHECK_EQ(m.u.dio.prf, 0);
    CHECK_EQ(m.u.dio.dtsn, 7);
    CHECK_EQ(m.u.dio.dodagid[15], 1);
    CHECK_EQ(m.opts_len, 16u + 32u);
    o = opt_at(&m, 0);
    CHECK_EQ(mip_rpl_opt_dodag_conf(&o, &c), MIP_OK);
    CHECK_EQ(c.dio_int_doublings, 20);
    CHECK_EQ(c.dio_int_min, 3);
    CHECK_EQ(c.dio_redundancy, 10);
    CHECK_EQ(c.max_rank_inc, 1792);
    CHECK_EQ(c.min_hop_rank_inc, 256);
    CHECK_EQ(c.ocp, 1);
    CHECK_EQ(c.def_lifetime, 30);
    CHECK_EQ(c.lifetime_unit, 60);
    o = opt_at(&m, 1);
    CHECK_EQ(mip_rpl_opt_prefix_info(&o, &pi), MIP_OK);
    CHECK_EQ(pi.prefix_len, 64);
    CHECK_EQ(pi.flags, MIP_RPL_PIO_A);
    CHECK_EQ(pi.valid_s, 0xFFFFFFFFu);
    CHECK_EQ(pi.prefix[0], 0xfd);
    /* the wrong decoder for a type refuses it */
    CHECK_EQ(mip_rpl_opt_dodag_conf(&o, &c), MIP_ERR_MALFORMED);
}

static void test_dio_round_trips(void)
{
    struct mip_rpl_msg m;
    struct mip_rpl_dodag_conf c;
    struct mip_rpl_prefix_info pi;
    struct mip_rpl_opt o;
    uint8_t buf[128];
    size_t n, w;
    CHECK_EQ(mip_rpl_parse(dio_msg, sizeof(dio_msg), &m), MIP_OK);
    CHECK_EQ(mip_rpl_emit_dio(&m.u.dio, buf, sizeof(buf), &n), MIP_OK);
    o = opt_at(&m, 0);
    CHECK_EQ(mip_rpl_opt_dodag_conf(&o, &c), MIP_OK);
    CHECK_EQ(mip_rpl_emit_dodag_conf(&c, buf + n, sizeof(buf) - n, &w), MIP_OK);
    n += w;
    o = opt_at(&m, 1);
    CHECK_EQ(mip_rpl_opt_prefix_info(&o, &pi), MIP_OK);
    CHECK_EQ(mip_rpl_emit_prefix_info(&pi, buf + n, sizeof(buf) - n, &w), MIP_OK);
    n += w;
    CHECK_EQ(n, sizeof(dio_msg));
    CHECK_MEM(buf, dio_msg, sizeof(dio_msg));
}

static void test_dao_with_dodagid_target_and_transit(void)
{
    struct mip_rpl_msg m;
    struct mip_rpl_opt o;
    struct mip_rpl_target t;
    struct mip_rpl_transit tr;
    uint8_t buf[128];
    size_t n, w;
    CHECK_EQ(mip_rpl_parse(dao_msg, sizeof(dao_msg), &m), MIP_OK);
    CHECK_EQ(m.code, MIP_RPL_CODE_DAO);
    CHECK(m.u.dao.k);
    CHECK(m.u.dao.d);
    CHECK_EQ(m.u.dao.seq, 9);
    CHECK_EQ(m.u.dao.dodagid[15], 1);
    o = opt_at(&m, 0);
    CHECK_EQ(o.type, MIP_RPL_OPT_PAD1);
    o = opt_at(&m, 1);
    CHECK_EQ(mip_rpl_opt_target(&o, &t), MIP_OK);
    CHECK_EQ(t.prefix_len, 128);
    CHECK_EQ(t.prefix[15], 2);
    o = opt_at(&m, 2);
    CHECK_EQ(mip_rpl_opt_transit(&o, &tr), MIP_OK);
    CHECK(tr.has_parent);
    CHECK_EQ(tr.path_seq, 4);
    CHECK_EQ(tr.path_lifetime, 30);
    CHECK_EQ(tr.parent[15], 3);
    CHECK_EQ(opt_at(&m, 3).type, 0xFF);
    /* round trip */
    CHECK_EQ(mip_rpl_emit_dao(&m.u.dao, buf, sizeof(buf), &n), MIP_OK);
    CHECK_EQ(mip_rpl_emit_pad(1, buf + n, sizeof(buf) - n, &w), MIP_OK);
    n += w;
    CHECK_EQ(mip_rpl_emit_target(&t, buf + n, sizeof(buf) - n, &w), MIP_OK);
    n += w;
    CHECK_EQ(mip_rpl_emit_transit(&tr, buf + n, sizeof(buf) - n, &w), MIP_OK);
    n += w;
    CHECK_EQ(n, sizeof(dao_msg));
    CHECK_MEM(buf, dao_msg, sizeof(dao_msg));
}

static void test_dao_without_dodagid_and_ack_both_ways(void)
{
    struct mip_rpl_dao d;
    struct mip_rpl_dao_ack a;
    struct mip_rpl_msg m;
    uint8_t buf[64];
    size_t n;
    memset(&d, 0, sizeof(d));
    d.instance = 1;
    d.seq = 200;
    CHECK_EQ(mip_rpl_emit_dao(&d, buf, sizeof(buf), &n), MIP_OK);
    CHECK_EQ(n, MIP_RPL_DAO_LEN);
    CHECK_EQ(mip_rpl_parse(buf, n, &m), MIP_OK);
    CHECK(!m.u.dao.d && !m.u.dao.k);
    CHECK_EQ(m.u.dao.seq, 200);
    CHECK_EQ(mip_rpl_parse(dao_ack_msg, sizeof(dao_ack_msg), &m), MIP_OK);
    CHECK_EQ(m.code, MIP_RPL_CODE_DAO_ACK);
    CHECK(!m.u.dao_ack.d);
    CHECK_EQ(m.u.dao_ack.seq, 9);
    CHECK_EQ(mip_rpl_emit_dao_ack(&m.u.dao_ack, buf, sizeof(buf), &n), MIP_OK);
    CHECK_EQ(n, sizeof(dao_ack_msg));
    CHECK_MEM(buf, dao_ack_msg, n);
    memset(&a, 0, sizeof(a));
    a.d = true;
    a.status = 128;
    a.dodagid[0] = 0xfd;
    CHECK_EQ(mip_rpl_emit_dao_ack(&a, buf, sizeof(buf), &n), MIP_OK);
    CHECK_EQ(n, MIP_RPL_DAO_ACK_LEN + 16u);
    CHECK_EQ(mip_rpl_parse(buf, n, &m), MIP_OK);
    CHECK(m.u.dao_ack.d);
    CHECK_EQ(m.u.dao_ack.status, 128);
    CHECK_EQ(m.u.dao_ack.dodagid[0], 0xfd);
    /* D set but the DODAGID cut off */
    CHECK_EQ(mip_rpl_parse(buf, n - 1u, &m), MIP_ERR_TRUNCATED);
}

static void test_dis_with_solicited_information(void)
{
    struct mip_rpl_msg m;
    struct mip_rpl_opt o;
    struct mip_rpl_solicited so;
    struct mip_rpl_dis d;
    uint8_t buf[64];
    size_t n, w;
    CHECK_EQ(mip_rpl_parse(dis_msg, sizeof(dis_msg), &m), MIP_OK);
    CHECK_EQ(m.code, MIP_RPL_CODE_DIS);
    o = opt_at(&m, 0);
    CHECK_EQ(mip_rpl_opt_solicited(&o, &so), MIP_OK);
    CHECK_EQ(so.instance, 30);
    CHECK_EQ(so.flags, MIP_RPL_SOL_V | MIP_RPL_SOL_I);
    CHECK_EQ(so.version, 240);
    o = opt_at(&m, 1);
    CHECK_EQ(o.type, MIP_RPL_OPT_PADN);
    CHECK_EQ(o.len, 0);
    memset(&d, 0, sizeof(d));
    CHECK_EQ(mip_rpl_emit_dis(&d, buf, sizeof(buf), &n), MIP_OK);
    CHECK_EQ(mip_rpl_emit_solicited(&so, buf + n, sizeof(buf) - n, &w), MIP_OK);
    n += w;
    CHECK_EQ(mip_rpl_emit_pad(2, buf + n, sizeof(buf) - n, &w), MIP_OK);
    n += w;
    CHECK_EQ(n, sizeof(dis_msg));
    CHECK_MEM(buf, dis_msg, n);
}

static void test_route_information_prefix_bytes(void)
{
    /* RFC 6550 6.7.5: the prefix field holds only the bytes prefix_len
     * needs (36 bits: 5); bits past it are cleared on receipt. Prf 11
     * (low), lifetime 3600 s. */
    static const uint8_t rio[] = {0x03, 11, 36, 0x18, 0, 0, 0x0e, 0x10, 0xfd, 0, 0, 0, 0xff};
    struct mip_rpl_opt o;
    struct mip_rpl_route_info ri;
    uint8_t buf[32];
    size_t off = 0, n;
    CHECK_EQ(mip_rpl_opt_next(rio, sizeof(rio), &off, &o), MIP_OK);
    CHECK_EQ(off, sizeof(rio));
    CHECK_EQ(mip_rpl_opt_route_info(&o, &ri), MIP_OK);
    CHECK_EQ(ri.prefix_len, 36);
    CHECK_EQ(ri.prf, 3);
    CHECK_EQ(ri.lifetime_s, 3600);
    CHECK_EQ(ri.prefix[0], 0xfd);
    CHECK_EQ(ri.prefix[4], 0xf0);     /* 0xff cut to its top 4 bits */
    CHECK_EQ(ri.prefix[5], 0);
    CHECK_EQ(mip_rpl_emit_route_info(&ri, buf, sizeof(buf), &n), MIP_OK);
    CHECK_EQ(n, sizeof(rio));
    CHECK_EQ(buf[12], 0xf0);
    /* one prefix byte short of 36 bits: malformed */
    o.len = 6 + 4;
    CHECK_EQ(mip_rpl_opt_route_info(&o, &ri), MIP_ERR_MALFORMED);
    /* the option running past the buffer */
    off = 0;
    CHECK_EQ(mip_rpl_opt_next(rio, sizeof(rio) - 1u, &off, &o), MIP_ERR_TRUNCATED);
    ri.prefix_len = 129;
    CHECK_EQ(mip_rpl_emit_route_info(&ri, buf, sizeof(buf), &n), MIP_ERR_INVALID);
}

static void test_option_body_lengths_are_checked(void)
{
    uint8_t body[32];
    struct mip_rpl_opt o;
    struct mip_rpl_dodag_conf c;
    struct mip_rpl_prefix_info pi;
    struct mip_rpl_target t;
    struct mip_rpl_transit tr;
    struct mip_rpl_solicited so;
    memset(body, 0, sizeof(body));
    o.body = body;
    o.type = MIP_RPL_OPT_DODAG_CONF; o.len = 13;
    CHECK_EQ(mip_rpl_opt_dodag_conf(&o, &c), MIP_ERR_MALFORMED);
    o.type = MIP_RPL_OPT_PREFIX_INFO; o.len = 29;
    CHECK_EQ(mip_rpl_opt_prefix_info(&o, &pi), MIP_ERR_MALFORMED);
    o.len = 30; body[0] = 129;
    CHECK_EQ(mip_rpl_opt_prefix_info(&o, &pi), MIP_ERR_MALFORMED);
    body[0] = 0;
    o.type = MIP_RPL_OPT_TARGET; o.len = 1;
    CHECK_EQ(mip_rpl_opt_target(&o, &t), MIP_ERR_MALFORMED);
    o.len = 19;                         /* longer than 2 + 16 */
    CHECK_EQ(mip_rpl_opt_target(&o, &t), MIP_ERR_MALFORMED);
    o.len = 2; body[1] = 8;             /* an 8-bit prefix without its byte */
    CHECK_EQ(mip_rpl_opt_target(&o, &t), MIP_ERR_MALFORMED);
    o.type = MIP_RPL_OPT_TRANSIT; o.len = 5;
    CHECK_EQ(mip_rpl_opt_transit(&o, &tr), MIP_ERR_MALFORMED);
    o.len = 4;
    CHECK_EQ(mip_rpl_opt_transit(&o, &tr), MIP_OK);
    CHECK(!tr.has_parent);
    o.type = MIP_RPL_OPT_SOLICITED; o.len = 18;
    CHECK_EQ(mip_rpl_opt_solicited(&o, &so), MIP_ERR_MALFORMED);
}

/* Every prefix of every message is refused cleanly (TRUNCATED for a cut
 * base object, MALFORMED for an option cut in the middle), and never read
 * past (the exact copies make ASan see it). */
static void check_truncations(const uint8_t *msg, size_t len, size_t base)
{
    size_t cut;
    for (cut = 0; cut < len; cut++) {
        struct mip_rpl_msg m;
        uint8_t *c = dup_exact(msg, cut);
        mip_status st = mip_rpl_parse(c, cut, &m);
        if (cut < base)
            CHECK_EQ(st, MIP_ERR_TRUNCATED);
        else
            CHECK(st == MIP_OK || st == MIP_ERR_MALFORMED);
        free(c);
    }
}

static void test_every_truncation_is_refused(void)
{
    check_truncations(dio_msg, sizeof(dio_msg), MIP_RPL_DIO_LEN);
    check_truncations(dao_msg, sizeof(dao_msg), MIP_RPL_DAO_LEN + 16u);
    check_truncations(dao_ack_msg, sizeof(dao_ack_msg), MIP_RPL_DAO_ACK_LEN);
    check_truncations(dis_msg, sizeof(dis_msg), MIP_RPL_DIS_LEN);
    /* the DIO cut inside its DODAG Configuration option */
    {
        struct mip_rpl_msg m;
        CHECK_EQ(mip_rpl_parse(dio_msg, MIP_RPL_DIO_LEN + 5u, &m), MIP_ERR_MALFORMED);
        CHECK_EQ(mip_rpl_parse(dio_msg, MIP_RPL_DIO_LEN + 1u, &m), MIP_ERR_MALFORMED);
        /* a Pad1 alone walks */
        CHECK_EQ(mip_rpl_parse(dao_msg, MIP_RPL_DAO_LEN + 17u, &m), MIP_OK);
    }
}

static void test_unknown_and_secure_codes_are_unsupported(void)
{
    uint8_t msg[64];
    struct mip_rpl_msg m;
    memcpy(msg, dio_msg, MIP_RPL_DIO_LEN);
    msg[1] = 0x81;              /* secure DIO */
    CHECK_EQ(mip_rpl_parse(msg, MIP_RPL_DIO_LEN, &m), MIP_ERR_UNSUPPORTED);
    msg[1] = 0x8A;              /* consistency check */
    CHECK_EQ(mip_rpl_parse(msg, MIP_RPL_DIO_LEN, &m), MIP_ERR_UNSUPPORTED);
    msg[1] = 0x04;
    CHECK_EQ(mip_rpl_parse(msg, MIP_RPL_DIO_LEN, &m), MIP_ERR_UNSUPPORTED);
    msg[0] = 0x86;              /* not type 155 */
    msg[1] = 0x01;
    CHECK_EQ(mip_rpl_parse(msg, MIP_RPL_DIO_LEN, &m), MIP_ERR_UNSUPPORTED);
}

static void test_emitters_refuse_short_buffers_and_bad_fields(void)
{
    struct mip_rpl_msg m;
    struct mip_rpl_dodag_conf c;
    uint8_t buf[64];
    size_t n = 99;
    CHECK_EQ(mip_rpl_parse(dio_msg, sizeof(dio_msg), &m), MIP_OK);
    CHECK_EQ(mip_rpl_emit_dio(&m.u.dio, buf, MIP_RPL_DIO_LEN - 1u, &n), MIP_ERR_NOSPACE);
    CHECK_EQ(n, 0u);
    m.u.dio.mop = 8;
    CHECK_EQ(mip_rpl_emit_dio(&m.u.dio, buf, sizeof(buf), &n), MIP_ERR_INVALID);
    memset(&c, 0, sizeof(c));
    CHECK_EQ(mip_rpl_emit_dodag_conf(&c, buf, 15, &n), MIP_ERR_NOSPACE);
    c.pcs = 8;
    CHECK_EQ(mip_rpl_emit_dodag_conf(&c, buf, sizeof(buf), &n), MIP_ERR_INVALID);
    CHECK_EQ(mip_rpl_emit_pad(0, buf, sizeof(buf), &n), MIP_ERR_INVALID);
    CHECK_EQ(mip_rpl_emit_pad(8, buf, sizeof(buf), &n), MIP_ERR_INVALID);
    CHECK_EQ(mip_rpl_emit_pad(7, buf, 6, &n), MIP_ERR_NOSPACE);
}

int main(void)
{
    RUN(test_dio_decodes_the_rfc_layout);
    RUN(test_dio_round_trips);
    RUN(test_dao_with_dodagid_target_and_transit);
    RUN(test_dao_without_dodagid_and_ack_both_ways);
    RUN(test_dis_with_solicited_information);
    RUN(test_route_information_prefix_bytes);
    RUN(test_option_body_lengths_are_checked);
    RUN(test_every_truncation_is_refused);
    RUN(test_unknown_and_secure_codes_are_unsupported);
    RUN(test_emitters_refuse_short_buffers_and_bad_fields);
    return TESTING_DONE();
}
