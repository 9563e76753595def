/*
 * libFuzzer harness over the RPL control message codec (src/wire/rpl.c).
 *
 * Input: the bytes of one ICMPv6 RPL message (type 155 forced, code taken
 * from the input). A message that parses is emitted again, base object and
 * every option through its decoder and emitter (Pad1 and PadN as they
 * came, the DAG Metric Container copied raw), and parsed a second time:
 * the re-emitted bytes must equal the input wherever emit is defined to
 * reproduce them (reserved bytes and flags written as zero, prefix bits
 * past the length cleared), and every option decoder must agree with its
 * emitter. Options that do not decode are skipped in the re-emission.
 * Every parse works on an exact heap copy, so ASan sees a byte read too
 * far.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/wire/icmpv6.h"
#include "moteip/wire/rpl.h"
#include "fuzz_check.h"

static uint8_t *dup_exact(const uint8_t *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    if (c == NULL)
        abort();
    if (n)
        memcpy(c, p, n);
    return c;
}

/* Decodes o and emits it at out; 0 when it does not decode. */
static size_t reemit(const struct mip_rpl_opt *o, uint8_t *out, size_t cap)
{
    size_t w = 0;
    mip_status st = MIP_OK;
    union {
        struct mip_rpl_dodag_conf c;
        struct mip_rpl_prefix_info pi;
        struct mip_rpl_route_info ri;
        struct mip_rpl_target t;
        struct mip_rpl_transit tr;
        struct mip_rpl_solicited so;
    } u;
    switch (o->type) {
    case MIP_RPL_OPT_PAD1:
        st = mip_rpl_emit_pad(1, out, cap, &w);
        break;
    case MIP_RPL_OPT_DODAG_CONF:
        if (mip_rpl_opt_dodag_conf(o, &u.c) != MIP_OK)
            return 0;
        st = mip_rpl_emit_dodag_conf(&u.c, out, cap, &w);
        break;
    case MIP_RPL_OPT_PREFIX_INFO:
        if (mip_rpl_opt_prefix_info(o, &u.pi) != MIP_OK)
            return 0;
        st = mip_rpl_emit_prefix_info(&u.pi, out, cap, &w);
        break;
    case MIP_RPL_OPT_ROUTE_INFO:
        if (mip_rpl_opt_route_info(o, &u.ri) != MIP_OK)
            return 0;
        st = mip_rpl_emit_route_info(&u.ri, out, cap, &w);
        break;
    case MIP_RPL_OPT_TARGET:
        if (mip_rpl_opt_target(o, &u.t) != MIP_OK)
            return 0;
        st = mip_rpl_emit_target(&u.t, out, cap, &w);
        break;
    case MIP_RPL_OPT_TRANSIT:
        if (mip_rpl_opt_transit(o, &u.tr) != MIP_OK)
            return 0;
        st = mip_rpl_emit_transit(&u.tr, out, cap, &w);
        break;
    case MIP_RPL_OPT_SOLICITED:
        if (mip_rpl_opt_solicited(o, &u.so) != MIP_OK)
            return 0;
        st = mip_rpl_emit_solicited(&u.so, out, cap, &w);
        break;
    default:
        /* PadN, metric container, unknown: raw */
        if ((size_t)o->len + 2u > cap)
            return 0;
        out[0] = o->type;
        out[1] = o->len;
        memcpy(out + 2, o->body, o->len);
        return (size_t)o->len + 2u;
    }
    CHECKF(st == MIP_OK);
    return w;
}

static size_t emit_base(const struct mip_rpl_msg *m, uint8_t *out, size_t cap)
{
    size_t w = 0;
    mip_status st = MIP_ERR_INVALID;
    switch (m->code) {
    case MIP_RPL_CODE_DIS:     st = mip_rpl_emit_dis(&m->u.dis, out, cap, &w); break;
    case MIP_RPL_CODE_DIO:     st = mip_rpl_emit_dio(&m->u.dio, out, cap, &w); break;
    case MIP_RPL_CODE_DAO:     st = mip_rpl_emit_dao(&m->u.dao, out, cap, &w); break;
    case MIP_RPL_CODE_DAO_ACK: st = mip_rpl_emit_dao_ack(&m->u.dao_ack, out, cap, &w); break;
    default: break;
    }
    CHECKF(st == MIP_OK);
    return w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *c, out[600], out2[600];
    struct mip_rpl_msg m, m2;
    struct mip_rpl_opt o;
    size_t n, off = 0, w;
    mip_status st;
    if (size > 512)
        return 0;
    c = dup_exact(data, size);
    if (size > 0)
        c[0] = MIP_ICMPV6_RPL;
    st = mip_rpl_parse(c, size, &m);
    if (st != MIP_OK) {
        free(c);
        return 0;
    }
    CHECKF(m.opts >= c && m.opts + m.opts_len == c + size);
    n = emit_base(&m, out, sizeof(out));
    CHECKF(n == (size_t)(m.opts - c));
    /* the base object's defined bytes: type, code and the fields */
    while ((st = mip_rpl_opt_next(m.opts, m.opts_len, &off, &o)) == MIP_OK) {
        CHECKF(off <= m.opts_len);
        n += reemit(&o, out + n, sizeof(out) - n);
    }
    CHECKF(st == MIP_ERR_END);
    /* The re-emitted message parses to the same base object, and emitting
     * that gives the same bytes again (a fixed point). */
    CHECKF(mip_rpl_parse(out, n, &m2) == MIP_OK);
    CHECKF(m2.code == m.code);
    CHECKF(memcmp(&m2.u, &m.u, sizeof(m.u)) == 0);
    w = emit_base(&m2, out2, sizeof(out2));
    off = 0;
    while (mip_rpl_opt_next(m2.opts, m2.opts_len, &off, &o) == MIP_OK) {
        size_t k = reemit(&o, out2 + w, sizeof(out2) - w);
        CHECKF(k == (size_t)o.len + (o.type == MIP_RPL_OPT_PAD1 ? 1u : 2u));
        w += k;
    }
    CHECKF(w == n && memcmp(out, out2, n) == 0);
    free(c);
    return 0;
}
