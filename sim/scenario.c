/*
 * Scenario files (JSON, schema in docs/SIMULATOR.md) -> struct sim_scenario.
 *
 * Every key is checked: an unknown key, a wrong type, a value out of range
 * or a node id that does not exist is an error naming the file, the JSON
 * path of the value and what was expected. Nothing is silently ignored.
 */
#include "sim.h"
#include "json.h"
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct ld {                     /* loader context */
    const char *fname;
    char *err;
    size_t errlen;
    bool failed;
    struct sim_scenario *sc;
    /* where each leaf's "parent" came from (mac.rdc, else per node), to
     * name it when the node it names cannot be a parent */
    const struct sj_value *rdc_parent_key;
    const struct sj_value **node_parent_key;
};

static bool fail(struct ld *l, const struct sj_value *v, const char *what)
{
    char path[160], got[64];
    if (l->failed)
        return false;
    l->failed = true;
    sj_path(v, path, sizeof(path));
    sj_describe(v, got, sizeof(got));
    snprintf(l->err, l->errlen, "%s: %s: expected %s, got %s", l->fname, path, what, got);
    return false;
}

static bool fail_missing(struct ld *l, const struct sj_value *obj, const char *key,
                         const char *what)
{
    char path[160];
    if (l->failed)
        return false;
    l->failed = true;
    sj_path(obj, path, sizeof(path));
    snprintf(l->err, l->errlen, "%s: %s.%s: missing; expected %s", l->fname,
             strcmp(path, "(root)") == 0 ? "" : path, key, what);
    if (strcmp(path, "(root)") == 0)    /* "file: .key" reads badly */
        snprintf(l->err, l->errlen, "%s: %s: missing; expected %s", l->fname, key, what);
    return false;
}

/* Rejects keys not in the NULL-terminated list. */
static bool only_keys(struct ld *l, const struct sj_value *obj, const char *const *keys)
{
    size_t i, k;
    for (i = 0; i < sj_len(obj); i++) {
        const struct sj_value *m = sj_at(obj, i);
        bool known = false;
        for (k = 0; keys[k] != NULL; k++)
            if (strcmp(m->key, keys[k]) == 0)
                known = true;
        if (!known) {
            char path[160], list[320] = "";
            sj_path(m, path, sizeof(path));
            for (k = 0; keys[k] != NULL; k++) {
                strncat(list, k ? ", " : "", sizeof(list) - strlen(list) - 1u);
                strncat(list, keys[k], sizeof(list) - strlen(list) - 1u);
            }
            l->failed = true;
            snprintf(l->err, l->errlen, "%s: %s: unknown key; known keys here: %s", l->fname,
                     path, list);
            return false;
        }
    }
    return true;
}

static bool get_obj(struct ld *l, const struct sj_value *parent, const char *key,
                    const struct sj_value **out, bool required)
{
    const struct sj_value *v = sj_get(parent, key);
    *out = v;
    if (v == NULL)
        return required ? fail_missing(l, parent, key, "an object") : true;
    return sj_is(v, SJ_OBJECT) ? true : fail(l, v, "an object");
}

static bool get_num(struct ld *l, const struct sj_value *o, const char *key, double *out,
                    double lo, double hi)
{
    const struct sj_value *v = sj_get(o, key);
    double d;
    char what[96];
    if (v == NULL)
        return true;            /* keep the default */
    snprintf(what, sizeof(what), "a number in [%g, %g]", lo, hi);
    if (!sj_as_double(v, &d) || !(d >= lo && d <= hi))
        return fail(l, v, what);
    *out = d;
    return true;
}

static bool get_int(struct ld *l, const struct sj_value *o, const char *key, int64_t *out,
                    int64_t lo, int64_t hi)
{
    const struct sj_value *v = sj_get(o, key);
    int64_t i;
    char what[96];
    if (v == NULL)
        return true;
    snprintf(what, sizeof(what), "an integer in [%lld, %lld]", (long long)lo, (long long)hi);
    if (!sj_as_int64(v, &i) || i < lo || i > hi)
        return fail(l, v, what);
    *out = i;
    return true;
}

#define GET_INT_INTO(l, o, key, field, lo, hi)                                  \
    do {                                                                        \
        int64_t tmp_ = (int64_t)(field);                                        \
        if (!get_int((l), (o), (key), &tmp_, (lo), (hi)))                       \
            return false;                                                       \
        (field) = tmp_;                                                         \
    } while (0)

static bool get_bool(struct ld *l, const struct sj_value *o, const char *key, bool *out)
{
    const struct sj_value *v = sj_get(o, key);
    if (v == NULL)
        return true;
    return sj_as_bool(v, out) ? true : fail(l, v, "true or false");
}

/* One of the NULL-terminated names; *out its index. */
static bool get_enum(struct ld *l, const struct sj_value *o, const char *key,
                     const char *const *names, uint8_t *out, bool required)
{
    const struct sj_value *v = sj_get(o, key);
    const char *s;
    char what[160] = "one of";
    size_t k;
    for (k = 0; names[k] != NULL; k++) {
        strncat(what, k ? ", \"" : " \"", sizeof(what) - strlen(what) - 1u);
        strncat(what, names[k], sizeof(what) - strlen(what) - 1u);
        strncat(what, "\"", sizeof(what) - strlen(what) - 1u);
    }
    if (v == NULL)
        return required ? fail_missing(l, o, key, what) : true;
    s = sj_as_string(v, NULL);
    for (k = 0; s != NULL && names[k] != NULL; k++) {
        if (strcmp(s, names[k]) == 0) {
            *out = (uint8_t)k;
            return true;
        }
    }
    return fail(l, v, what);
}

static bool get_node(struct ld *l, const struct sj_value *o, const char *key, uint32_t *out)
{
    const struct sj_value *v = sj_get(o, key);
    int64_t i;
    char what[96];
    const char *s;
    snprintf(what, sizeof(what), "an integer node id 0..%u or \"last\"", l->sc->n_nodes - 1u);
    if (v == NULL)
        return fail_missing(l, o, key, what);
    /* "last" names the highest id, so a chain's far end survives a change of
     * the node count (sweeps over chain length). */
    s = sj_as_string(v, NULL);
    if (s != NULL && strcmp(s, "last") == 0) {
        *out = l->sc->n_nodes - 1u;
        return true;
    }
    if (!sj_as_int64(v, &i) || i < 0 || i >= (int64_t)l->sc->n_nodes)
        return fail(l, v, what);
    *out = (uint32_t)i;
    return true;
}

/* --- sections --------------------------------------------------------------------- */

static bool load_phy(struct ld *l, const struct sj_value *root)
{
    static const char *const keys[] = { "bitrate", "phy_header_bytes", "turnaround_us",
                                        "cca_us", "backoff_us", "ack_wait_us", NULL };
    const struct sj_value *o;
    struct mip_radio_timing *t = &l->sc->timing;
    bool ack_given;
    if (!get_obj(l, root, "phy", &o, false) || o == NULL)
        return !l->failed;
    if (!only_keys(l, o, keys))
        return false;
    GET_INT_INTO(l, o, "bitrate", t->bitrate, 1000, 100000000);
    GET_INT_INTO(l, o, "phy_header_bytes", t->phy_hdr_bytes, 0, 64);
    GET_INT_INTO(l, o, "turnaround_us", t->turnaround_us, 0, 65535);
    GET_INT_INTO(l, o, "cca_us", t->cca_us, 0, 65535);
    GET_INT_INTO(l, o, "backoff_us", t->backoff_us, 1, 65535);
    ack_given = sj_get(o, "ack_wait_us") != NULL;
    GET_INT_INTO(l, o, "ack_wait_us", t->ack_wait_us, 0, 65535);
    if (!ack_given) {
        /* macAckWaitDuration is 54 symbols = 864 us at 250 kb/s: scale it
         * with the bit rate unless the scenario says otherwise. */
        t->ack_wait_us = (uint16_t)((864.0 * 250000.0) / (double)t->bitrate + 0.5);
    }
    return true;
}

/* Radio profiles, indexed by enum sim_radio_profile_kind; figures and their
 * datasheets in docs/SIMULATOR.md. `off` is where a duty-cycling MAC leaves
 * the receiver between listens: the CC2420's idle mode (oscillator on, RX
 * in 192 us), the AT86RF233's TRX_OFF. */
static const char *const profile_names[] = { "cc2420", "at86rf233", NULL };
static const struct sim_radio_profile radio_profiles[SIM_RADIO_PROFILES] = {
    /*            tx (0 dBm) rx    listen off    V */
    [SIM_RADIO_CC2420]    = { 17.4, 18.8, 18.8, 0.426, 3.0 },
    /*            tx (+4 dBm, BUSY_TX) RX_ON / BUSY_RX, TRX_OFF */
    [SIM_RADIO_AT86RF233] = { 13.8, 11.8, 11.8, 0.3, 3.0 },
};
/* Indexed by enum mip_rdc_kind. */
static const char *const rdc_names[] = { "nullrdc", "contikimac", "xmac", "lpp", "leaf", "parent",
                                         NULL };

const char *sim_radio_profile_name(uint8_t profile)
{
    return profile < SIM_RADIO_PROFILES ? profile_names[profile] : "?";
}

const char *sim_rdc_name(uint8_t kind)
{
    return kind < sizeof(rdc_names) / sizeof(rdc_names[0]) - 1u ? rdc_names[kind] : "?";
}

static bool load_radio(struct ld *l, const struct sj_value *root)
{
    static const char *const keys[] = { "profile", "tx_ma", "rx_ma", "listen_ma", "sleep_ma",
                                        "voltage", NULL };
    const struct sj_value *o;
    struct sim_scenario *sc = l->sc;
    struct sim_radio_profile *r = &sc->radio;
    if (!get_obj(l, root, "radio", &o, false) || o == NULL)
        return !l->failed;
    if (!only_keys(l, o, keys) || !get_enum(l, o, "profile", profile_names, &sc->radio_profile, false))
        return false;
    *r = radio_profiles[sc->radio_profile];
    if (!get_num(l, o, "tx_ma", &r->tx_ma, 0, 1000) || !get_num(l, o, "rx_ma", &r->rx_ma, 0, 1000))
        return false;
    /* listening draws the receive current unless told otherwise */
    if (sj_get(o, "rx_ma") != NULL)
        r->listen_ma = r->rx_ma;
    return get_num(l, o, "listen_ma", &r->listen_ma, 0, 1000) &&
           get_num(l, o, "sleep_ma", &r->off_ma, 0, 1000) &&
           get_num(l, o, "voltage", &r->voltage, 0, 100);
}

static bool load_medium(struct ld *l, const struct sj_value *root)
{
    static const char *const models[] = { "unit_disk", "log_distance", "prr", NULL };
    static const char *const keys[] = { "model", "range_m", "interference_range_m", "ber",
                                        "ber_counts_phy_header", "tx_power_dbm", "pl_d0_db",
                                        "d0_m", "exponent", "shadowing_db", "noise_dbm",
                                        "sensitivity_dbm", "cca_dbm", "frame_loss", "cs_range_m",
                                        "overhear_header_bytes", NULL };
    /* medium.frame_loss keys, in the order of enum sim_frame_kind */
    static const char *const loss_keys[] = { "tcp_data", "tcp_ack", "link_ack", "other", NULL };
    const struct sj_value *o, *fl;
    struct sim_scenario *sc = l->sc;
    size_t k;
    if (!get_obj(l, root, "medium", &o, false) || o == NULL)
        return !l->failed;
    if (!only_keys(l, o, keys) || !get_enum(l, o, "model", models, &sc->medium, false))
        return false;
    sc->interference_range_m = -1.0;
    sc->cs_range_m = -1.0;
    if (!get_num(l, o, "range_m", &sc->range_m, 0, 1e9) ||
        !get_num(l, o, "interference_range_m", &sc->interference_range_m, 0, 1e9) ||
        !get_num(l, o, "cs_range_m", &sc->cs_range_m, 0, 1e9) ||
        !get_num(l, o, "ber", &sc->ber, 0, 1) ||
        !get_bool(l, o, "ber_counts_phy_header", &sc->ber_counts_phy_header) ||
        !get_num(l, o, "tx_power_dbm", &sc->tx_power_dbm, -100, 100) ||
        !get_num(l, o, "pl_d0_db", &sc->pl_d0_db, 0, 200) ||
        !get_num(l, o, "d0_m", &sc->d0_m, 1e-3, 1e6) ||
        !get_num(l, o, "exponent", &sc->pl_exponent, 1, 10) ||
        !get_num(l, o, "shadowing_db", &sc->shadowing_db, 0, 50) ||
        !get_num(l, o, "noise_dbm", &sc->noise_dbm, -200, 0) ||
        !get_num(l, o, "sensitivity_dbm", &sc->sensitivity_dbm, -200, 0) ||
        !get_num(l, o, "cca_dbm", &sc->cca_dbm, -200, 0))
        return false;
    if (!get_obj(l, o, "frame_loss", &fl, false))
        return false;
    if (fl != NULL) {
        if (!only_keys(l, fl, loss_keys))
            return false;
        for (k = 0; loss_keys[k] != NULL; k++)
            if (!get_num(l, fl, loss_keys[k], &sc->frame_loss[k], 0, 1))
                return false;
    }
    GET_INT_INTO(l, o, "overhear_header_bytes", sc->overhear_header_bytes, 0, 255);
    if (sc->interference_range_m < 0.0)
        sc->interference_range_m = sc->range_m;
    if (sc->interference_range_m < sc->range_m)
        return fail(l, sj_get(o, "interference_range_m"), "a value >= range_m");
    if (sc->cs_range_m < 0.0)
        sc->cs_range_m = sc->interference_range_m;
    if (sc->cs_range_m < sc->range_m)
        return fail(l, sj_get(o, "cs_range_m"), "a value >= range_m");
    return true;
}

static bool load_links(struct ld *l, const struct sj_value *arr)
{
    struct sim_scenario *sc = l->sc;
    size_t k, n = sj_len(arr);
    if (!sj_is(arr, SJ_ARRAY))
        return fail(l, arr, "an array of [a, b] or [a, b, prr]");
    sc->links = calloc(n ? n : 1u, sizeof(*sc->links));
    if (sc->links == NULL)
        return fail(l, arr, "fewer links (out of memory)");
    for (k = 0; k < n; k++) {
        const struct sj_value *e = sj_at(arr, k);
        int64_t a, b;
        double prr = 1.0;
        char what[96];
        snprintf(what, sizeof(what), "[a, b] or [a, b, prr] with node ids 0..%u, prr in [0, 1]",
                 sc->n_nodes - 1u);
        if (!sj_is(e, SJ_ARRAY) || (sj_len(e) != 2u && sj_len(e) != 3u) ||
            !sj_as_int64(sj_at(e, 0), &a) || !sj_as_int64(sj_at(e, 1), &b) || a < 0 || b < 0 ||
            a >= (int64_t)sc->n_nodes || b >= (int64_t)sc->n_nodes || a == b ||
            (sj_len(e) == 3u && (!sj_as_double(sj_at(e, 2), &prr) || prr < 0.0 || prr > 1.0)))
            return fail(l, e, what);
        sc->links[k].a = (uint32_t)a;
        sc->links[k].b = (uint32_t)b;
        sc->links[k].prr = prr;
    }
    sc->n_links = n;
    return true;
}

static bool load_topology(struct ld *l, const struct sj_value *root)
{
    static const char *const kinds[] = { "chain", "grid", "random", "positions", "links", NULL };
    static const char *const keys[] = { "type", "nodes", "spacing_m", "rows", "cols", "width_m",
                                        "height_m", "positions", "links", "symmetric", NULL };
    const struct sj_value *o, *v;
    struct sim_scenario *sc = l->sc;
    int64_t nodes = 0, rows = 0, cols = 0;
    uint32_t i;
    if (!get_obj(l, root, "topology", &o, true))
        return false;
    if (!only_keys(l, o, keys) || !get_enum(l, o, "type", kinds, &sc->topology, true))
        return false;
    if (!get_num(l, o, "spacing_m", &sc->spacing_m, 0, 1e9) ||
        !get_num(l, o, "width_m", &sc->width_m, 0, 1e9) ||
        !get_num(l, o, "height_m", &sc->height_m, 0, 1e9) ||
        !get_bool(l, o, "symmetric", &sc->links_symmetric))
        return false;
    switch (sc->topology) {
    case SIM_TOPO_GRID:
        if (!get_int(l, o, "rows", &rows, 1, 65000) || !get_int(l, o, "cols", &cols, 1, 65000))
            return false;
        if (rows == 0 || cols == 0)
            return fail_missing(l, o, rows == 0 ? "rows" : "cols", "an integer >= 1");
        nodes = rows * cols;
        if (nodes > 65000)
            return fail(l, sj_get(o, "rows"), "rows * cols <= 65000");
        sc->grid_cols = (uint32_t)cols;
        break;
    case SIM_TOPO_POSITIONS:
        v = sj_get(o, "positions");
        if (v == NULL)
            return fail_missing(l, o, "positions", "an array of [x, y] in metres");
        if (!sj_is(v, SJ_ARRAY) || sj_len(v) < 1u || sj_len(v) > 65000u)
            return fail(l, v, "an array of 1..65000 [x, y] positions in metres");
        nodes = (int64_t)sj_len(v);
        break;
    default:
        if (sj_get(o, "nodes") == NULL)
            return fail_missing(l, o, "nodes", "an integer 1..65000");
        if (!get_int(l, o, "nodes", &nodes, 1, 65000))
            return false;
        break;
    }
    sc->n_nodes = (uint32_t)nodes;
    sc->pos = calloc(sc->n_nodes, sizeof(*sc->pos));
    if (sc->pos == NULL)
        return fail(l, o, "fewer nodes (out of memory)");
    if (sc->topology == SIM_TOPO_CHAIN || sc->topology == SIM_TOPO_GRID) {
        if (sj_get(o, "spacing_m") == NULL)
            return fail_missing(l, o, "spacing_m", "a distance in metres");
        for (i = 0; i < sc->n_nodes; i++) {
            uint32_t c = sc->topology == SIM_TOPO_GRID ? sc->grid_cols : sc->n_nodes;
            sc->pos[i][0] = (double)(i % c) * sc->spacing_m;
            sc->pos[i][1] = (double)(i / c) * sc->spacing_m;
        }
    } else if (sc->topology == SIM_TOPO_RANDOM) {
        /* Uniform in the area from a stream of the run seed alone. */
        struct mip_rng r;
        uint8_t seed[16];
        for (i = 0; i < 8u; i++) {
            seed[i] = (uint8_t)(sc->seed >> (8u * i));
            seed[8u + i] = (uint8_t)(0xA5u ^ i);
        }
        if (sj_get(o, "width_m") == NULL || sj_get(o, "height_m") == NULL)
            return fail_missing(l, o, sj_get(o, "width_m") == NULL ? "width_m" : "height_m",
                                "the area's size in metres");
        mip_rng_seed(&r, seed, sizeof(seed));
        for (i = 0; i < sc->n_nodes; i++) {
            sc->pos[i][0] = (double)mip_rng_next(&r) / 4294967296.0 * sc->width_m;
            sc->pos[i][1] = (double)mip_rng_next(&r) / 4294967296.0 * sc->height_m;
        }
    } else if (sc->topology == SIM_TOPO_POSITIONS) {
        v = sj_get(o, "positions");
        for (i = 0; i < sc->n_nodes; i++) {
            const struct sj_value *p = sj_at(v, i);
            if (!sj_is(p, SJ_ARRAY) || sj_len(p) != 2u || !sj_as_double(sj_at(p, 0), &sc->pos[i][0]) ||
                !sj_as_double(sj_at(p, 1), &sc->pos[i][1]))
                return fail(l, p, "[x, y] in metres");
        }
    } else {
        v = sj_get(o, "links");
        if (v == NULL)
            return fail_missing(l, o, "links", "an array of [a, b] or [a, b, prr]");
        if (!load_links(l, v))
            return false;
    }
    return true;
}

/* A node id (an integer or "last") in an array. */
static bool node_at(struct ld *l, const struct sj_value *v, uint32_t *out)
{
    int64_t i;
    const char *s = sj_as_string(v, NULL);
    char what[96];
    if (s != NULL && strcmp(s, "last") == 0) {
        *out = l->sc->n_nodes - 1u;
        return true;
    }
    snprintf(what, sizeof(what), "an integer node id 0..%u or \"last\"", l->sc->n_nodes - 1u);
    if (!sj_as_int64(v, &i) || i < 0 || i >= (int64_t)l->sc->n_nodes)
        return fail(l, v, what);
    *out = (uint32_t)i;
    return true;
}

/* The RDC keys: which kinds take each, its range in the scenario's unit,
 * and the field of struct mip_rdc_config it sets (x scale: ms -> µs). One
 * row per key, so the list of a kind's keys (in errors and docs) and the
 * loader cannot disagree. "type", "phase_lock" and "parent" are read
 * apart. */
enum { RK_CM = 1 << MIP_RDC_CONTIKIMAC, RK_XM = 1 << MIP_RDC_XMAC, RK_LPP = 1 << MIP_RDC_LPP,
       RK_LEAF = 1 << MIP_RDC_LEAF, RK_PARENT = 1 << MIP_RDC_PARENT };
struct rdc_key {
    const char *key;
    uint8_t kinds;              /* RK_* */
    uint8_t size;               /* of the field: 1, 2 or 4 bytes */
    size_t off;
    uint16_t scale;
    int64_t lo, hi;
};
#define RDC_FIELD(f) sizeof(((struct mip_rdc_config *)0)->f), offsetof(struct mip_rdc_config, f)
static const struct rdc_key rdc_keys[] = {
    { "check_rate_hz", RK_CM | RK_XM | RK_LPP, RDC_FIELD(check_rate_hz), 1, 1, 1000 },
    { "cca_count", RK_CM, RDC_FIELD(cca_count), 1, 1, 8 },
    { "cca_on_us", RK_CM | RK_LPP, RDC_FIELD(cca_on_us), 1, 1, 65535 },
    { "cca_gap_us", RK_CM, RDC_FIELD(cca_gap_us), 1, 0, 65535 },
    { "copy_gap_us", RK_CM, RDC_FIELD(copy_gap_us), 1, 0, 65535 },
    { "listen_max_us", RK_CM, RDC_FIELD(listen_max_us), 1, 1, 65535 },
    { "burst_wait_us", RK_CM | RK_XM | RK_LPP, RDC_FIELD(burst_wait_us), 1, 1, 65535 },
    { "phase_strobe_us", RK_CM, RDC_FIELD(phase_strobe_us), 1, 1, 65535 },
    { "phase_guard_us", RK_CM, RDC_FIELD(phase_guard_us), 1, 0, 65535 },
    { "phase_max_misses", RK_CM, RDC_FIELD(phase_max_misses), 1, 1, 255 },
    { "on_us", RK_XM, RDC_FIELD(on_us), 1, 1, 65535 },
    { "strobe_wait_us", RK_XM, RDC_FIELD(strobe_wait_us), 1, 1, 65535 },
    { "strobe_ack_delay_us", RK_XM, RDC_FIELD(strobe_ack_delay_us), 1, 0, 10000 },
    { "listen_us", RK_LPP, RDC_FIELD(listen_us), 1, 1, 65535 },
    { "probe_backoff_us", RK_LPP, RDC_FIELD(probe_backoff_us), 1, 0, 10000 },
    { "probe_jitter_us", RK_LPP, RDC_FIELD(probe_jitter_us), 1, 0, 65535 },
    { "poll_ms", RK_LEAF, RDC_FIELD(poll_us), 1000, 1, MIP_RDC_TIME_MAX / 1000 },
    { "poll_fast_ms", RK_LEAF, RDC_FIELD(poll_fast_us), 1000, 0, MIP_RDC_TIME_MAX / 1000 },
    { "wait_us", RK_LEAF | RK_PARENT, RDC_FIELD(wait_us), 1, 1, 65535 },
    { "child_timeout_ms", RK_PARENT, RDC_FIELD(child_timeout_us), 1000, 1,
      MIP_RDC_TIME_MAX / 1000 },
    { "adapt_max_ms", RK_CM | RK_XM | RK_LPP | RK_LEAF, RDC_FIELD(adapt_max_us), 1000, 0,
      MIP_RDC_TIME_MAX / 1000 },
};
#define RDC_KEYS (sizeof(rdc_keys) / sizeof(rdc_keys[0]))

/* Whether `key` belongs to an RDC of `kind` (type, phase_lock, parent too). */
static bool rdc_key_of(const char *key, uint8_t kind)
{
    size_t k;
    if (strcmp(key, "type") == 0)
        return true;
    if (strcmp(key, "phase_lock") == 0)
        return kind == MIP_RDC_CONTIKIMAC || kind == MIP_RDC_XMAC;
    if (strcmp(key, "parent") == 0)
        return kind == MIP_RDC_LEAF;
    for (k = 0; k < RDC_KEYS; k++)
        if (strcmp(key, rdc_keys[k].key) == 0)
            return (rdc_keys[k].kinds & (1u << kind)) != 0u;
    return false;
}

/* Every key of o must be one of kind's: the error lists them. */
static bool rdc_only_keys(struct ld *l, const struct sj_value *o, uint8_t kind)
{
    static const char *const extra[] = { "type", "phase_lock", "parent" };
    char path[160], list[400] = "";
    size_t i, k;
    for (i = 0; i < sj_len(o); i++) {
        const struct sj_value *m = sj_at(o, i);
        if (rdc_key_of(m->key, kind))
            continue;
        for (k = 0; k < 3u + RDC_KEYS; k++) {
            const char *key = k < 3u ? extra[k] : rdc_keys[k - 3u].key;
            if (!rdc_key_of(key, kind))
                continue;
            strncat(list, list[0] ? ", " : "", sizeof(list) - strlen(list) - 1u);
            strncat(list, key, sizeof(list) - strlen(list) - 1u);
        }
        sj_path(m, path, sizeof(path));
        l->failed = true;
        snprintf(l->err, l->errlen, "%s: %s: unknown key for the %s RDC; its keys: %s",
                 l->fname, path, rdc_names[kind], list);
        return false;
    }
    return true;
}

static void rdc_store(struct mip_rdc_config *c, const struct rdc_key *k, int64_t v)
{
    uint8_t *f = (uint8_t *)c + k->off;
    uint32_t x = (uint32_t)(v * k->scale);
    if (k->size == 1u)
        *f = (uint8_t)x;
    else if (k->size == 2u)
        memcpy(f, &(uint16_t){ (uint16_t)x }, 2);
    else
        memcpy(f, &x, 4);
}

static int64_t rdc_load_value(const struct mip_rdc_config *c, const struct rdc_key *k)
{
    const uint8_t *f = (const uint8_t *)c + k->off;
    uint16_t h;
    uint32_t w;
    if (k->size == 1u)
        return *f / k->scale;
    if (k->size == 2u) {
        memcpy(&h, f, 2);
        return h / k->scale;
    }
    memcpy(&w, f, 4);
    return w / k->scale;
}

/* One RDC object onto c: "type" starts from that kind's defaults, the other
 * keys (those of its kind only) change single parameters; then the MAC's
 * own check, which names the parameter to blame. `parent_key` gets the
 * value of "parent" when the object has one. */
static bool load_rdc(struct ld *l, const struct sj_value *o, struct mip_rdc_config *c,
                     const struct sj_value **parent_key)
{
    /* enum mip_rdc_check -> the key and what it needs */
    static const struct { const char *key, *what; } blame[] = {
        { NULL, NULL },
        { "type", "an RDC this build has" },
        { "check_rate_hz", "a rate whose interval holds a wake-up (ContikiMAC: two channel "
                           "checks; LPP: the probe and its listen)" },
        { "cca_count", "1..8 CCAs" },
        { "cca_on_us", "more than 0" },
        { "copy_gap_us", "longer than phy.turnaround_us plus the PHY header's airtime "
                         "(an ACK seen before the next copy) and shorter than cca_gap_us" },
        { "listen_max_us", "more than 0" },
        { "burst_wait_us", "more than 0" },
        { "phase_strobe_us", "more than 0" },
        { "phase_max_misses", "more than 0" },
        { "on_us", "shorter than the interval and at least strobe_wait_us plus a strobe's "
                   "airtime (a strobe heard whole in every wake-up)" },
        { "strobe_wait_us", "at least two strobes' airtime plus strobe_ack_delay_us plus "
                            "phy.turnaround_us (the strobe ACK fits before the next strobe)" },
        { "strobe_ack_delay_us", "at most 10000" },
        { "listen_us", "longer than probe_backoff_us + phy.cca_us + phy.turnaround_us (a "
                       "sender's frame starts while the prober listens)" },
        { "probe_backoff_us", "at most 10000" },
        { "probe_jitter_us", "half of it and a wake-up (CCA, probe, listen) shorter than "
                             "the interval" },
        { "parent", "the node id of the leaf's parent (a node running the parent RDC)" },
        { "poll_ms", "1.." },
        { "poll_fast_ms", "0 (off) or 1.." },
        { "wait_us", "more than 0" },
        { "child_timeout_ms", "1.." },
        { "adapt_max_ms", "0 (a fixed interval) or at least the RDC's own interval "
                          "(1/check_rate_hz, a leaf's poll_ms); the parent has none" },
        { "type", "an RDC the MAC protocol can carry: a leaf needs mac.type \"csma_ca\" "
                  "(it reads the pending bit of its data requests' ACKs)" },
    };
    struct mip_mac_config probe;
    enum mip_rdc_check bad;
    const struct sj_value *v;
    uint8_t kind = c->kind;
    uint32_t pid;
    size_t k;
    if (!sj_is(o, SJ_OBJECT))
        return fail(l, o, "an object");
    if (!get_enum(l, o, "type", rdc_names, &kind, false) || !rdc_only_keys(l, o, kind))
        return false;
    if (sj_get(o, "type") != NULL)
        mip_rdc_config_default(c, kind);
    for (k = 0; k < RDC_KEYS; k++) {
        int64_t x = rdc_load_value(c, &rdc_keys[k]);
        if (!get_int(l, o, rdc_keys[k].key, &x, rdc_keys[k].lo, rdc_keys[k].hi))
            return false;
        if (sj_get(o, rdc_keys[k].key) != NULL)
            rdc_store(c, &rdc_keys[k], x);
    }
    if (!get_bool(l, o, "phase_lock", &c->phase_lock))
        return false;
    v = sj_get(o, "parent");
    if (v != NULL) {
        if (!node_at(l, v, &pid))
            return false;
        c->parent = (uint16_t)pid;
        *parent_key = v;
    }
    probe = l->sc->mac;
    probe.timing = l->sc->timing;
    probe.rdc = *c;
    bad = mip_mac_rdc_check(&probe);
    if (bad == MIP_RDC_OK)
        return true;
    if ((size_t)bad >= sizeof(blame) / sizeof(blame[0]) || blame[bad].key == NULL)
        return fail(l, o, "RDC parameters the MAC accepts");
    if (sj_get(o, blame[bad].key) == NULL && strcmp(blame[bad].key, "parent") == 0)
        return fail_missing(l, o, "parent", blame[bad].what);
    return fail(l, sj_get(o, blame[bad].key) != NULL ? sj_get(o, blame[bad].key) : o,
                blame[bad].what);
}

/* mac.nodes: [{ "ids": [...], "rdc": {...} }, ...], each RDC object applied
 * over mac.rdc for the nodes listed (a later entry wins). */
static bool load_mac_nodes(struct ld *l, const struct sj_value *arr)
{
    static const char *const keys[] = { "ids", "rdc", NULL };
    struct sim_scenario *sc = l->sc;
    size_t k, j;
    uint32_t i, id;
    if (!sj_is(arr, SJ_ARRAY))
        return fail(l, arr, "an array of {\"ids\": [...], \"rdc\": {...}}");
    sc->node_rdc = calloc(sc->n_nodes, sizeof(*sc->node_rdc));
    if (sc->node_rdc == NULL)
        return fail(l, arr, "fewer nodes (out of memory)");
    l->node_parent_key = calloc(sc->n_nodes, sizeof(*l->node_parent_key));
    if (l->node_parent_key == NULL)
        return fail(l, arr, "fewer nodes (out of memory)");
    for (i = 0; i < sc->n_nodes; i++) {
        sc->node_rdc[i] = sc->mac.rdc;
        l->node_parent_key[i] = l->rdc_parent_key;
    }
    for (k = 0; k < sj_len(arr); k++) {
        const struct sj_value *e = sj_at(arr, k), *ids, *rdc, *pkey = l->rdc_parent_key;
        struct mip_rdc_config c = sc->mac.rdc;
        if (!sj_is(e, SJ_OBJECT))
            return fail(l, e, "an object {\"ids\": [...], \"rdc\": {...}}");
        if (!only_keys(l, e, keys))
            return false;
        ids = sj_get(e, "ids");
        rdc = sj_get(e, "rdc");
        if (ids == NULL)
            return fail_missing(l, e, "ids", "an array of node ids");
        if (rdc == NULL)
            return fail_missing(l, e, "rdc", "an RDC object");
        if (!sj_is(ids, SJ_ARRAY) || sj_len(ids) == 0u)
            return fail(l, ids, "a non-empty array of node ids");
        if (!load_rdc(l, rdc, &c, &pkey))
            return false;
        for (j = 0; j < sj_len(ids); j++) {
            if (!node_at(l, sj_at(ids, j), &id))
                return false;
            sc->node_rdc[id] = c;
            l->node_parent_key[id] = pkey;
        }
    }
    return true;
}

/* Every leaf's parent is another node, one that runs the parent RDC. */
static bool check_leaves(struct ld *l)
{
    struct sim_scenario *sc = l->sc;
    uint32_t i, p;
    char what[128];
    for (i = 0; i < sc->n_nodes; i++) {
        const struct mip_rdc_config *c = sc->node_rdc != NULL ? &sc->node_rdc[i] : &sc->mac.rdc;
        const struct sj_value *key = sc->node_rdc != NULL ? l->node_parent_key[i]
                                                          : l->rdc_parent_key;
        if (c->kind != MIP_RDC_LEAF)
            continue;
        p = c->parent;
        if (p == i) {
            snprintf(what, sizeof(what), "a node other than the leaf %u itself", i);
            return fail(l, key, what);
        }
        if ((sc->node_rdc != NULL ? sc->node_rdc[p].kind : sc->mac.rdc.kind) != MIP_RDC_PARENT) {
            snprintf(what, sizeof(what), "a node running the parent RDC (leaf %u's parent %u "
                     "runs %s)", i, p,
                     rdc_names[sc->node_rdc != NULL ? sc->node_rdc[p].kind : sc->mac.rdc.kind]);
            return fail(l, key, what);
        }
    }
    return true;
}

static bool load_mac(struct ld *l, const struct sj_value *root)
{
    static const char *const kinds[] = { "csma_ca", "csma", "nullmac", NULL };
    static const char *const keys[] = { "type", "min_be", "max_be", "max_backoffs", "max_retries",
                                        "retry_delay_max_us", "min_periods", "max_periods",
                                        "sense_first", "continuous_backoff", "link_acks", "rdc",
                                        "nodes", NULL };
    const struct sj_value *o;
    struct sim_scenario *sc = l->sc;
    uint8_t kind = sc->mac.kind;
    bool acks_given, duty;
    uint32_t i;
    if (!get_obj(l, root, "mac", &o, false) || o == NULL)
        return !l->failed;
    if (!only_keys(l, o, keys) || !get_enum(l, o, "type", kinds, &kind, false))
        return false;
    mip_mac_config_default(&sc->mac, kind, 0, 0, NULL);
    GET_INT_INTO(l, o, "min_be", sc->mac.min_be, 0, 8);
    GET_INT_INTO(l, o, "max_be", sc->mac.max_be, 0, 8);
    GET_INT_INTO(l, o, "max_backoffs", sc->mac.max_backoffs, 0, 255);
    GET_INT_INTO(l, o, "max_retries", sc->mac.max_retries, 0, 15);
    GET_INT_INTO(l, o, "retry_delay_max_us", sc->mac.retry_delay_max_us, 0, 10000000);
    GET_INT_INTO(l, o, "min_periods", sc->mac.csma_min_periods, 0, 255);
    GET_INT_INTO(l, o, "max_periods", sc->mac.csma_max_periods, 0, 255);
    if (sc->mac.min_be > sc->mac.max_be)
        return fail(l, sj_get(o, "min_be"), "min_be <= max_be");
    if (sc->mac.csma_min_periods > sc->mac.csma_max_periods)
        return fail(l, sj_get(o, "min_periods"), "min_periods <= max_periods");
    if (!get_bool(l, o, "sense_first", &sc->mac.csma_sense_first) ||
        !get_bool(l, o, "continuous_backoff", &sc->mac.csma_continuous))
        return false;
    if (sj_get(o, "rdc") != NULL &&
        !load_rdc(l, sj_get(o, "rdc"), &sc->mac.rdc, &l->rdc_parent_key))
        return false;
    if (sj_get(o, "nodes") != NULL && !load_mac_nodes(l, sj_get(o, "nodes")))
        return false;
    if (!check_leaves(l))
        return false;
    /* ContikiMAC ends a unicast train at its link ACK, whatever the
     * protocol above it: ACK requests on when any node duty-cycles. */
    duty = sc->mac.rdc.kind != MIP_RDC_NULLRDC;
    for (i = 0; sc->node_rdc != NULL && i < sc->n_nodes; i++)
        duty = duty || sc->node_rdc[i].kind != MIP_RDC_NULLRDC;
    acks_given = sj_get(o, "link_acks") != NULL;
    sc->link_acks = kind == MIP_MAC_CSMA_CA || duty;
    if (!get_bool(l, o, "link_acks", &sc->link_acks))
        return false;
    if (acks_given && sc->link_acks && kind != MIP_MAC_CSMA_CA && !duty)
        return fail(l, sj_get(o, "link_acks"),
                    "false: only csma_ca or a duty-cycling rdc waits for link ACKs");
    return true;
}

/* A multiplier in natural units into 1/256 fixed point. */
static bool get_q8(struct ld *l, const struct sj_value *o, const char *key, uint16_t *out,
                   double lo, double hi)
{
    double d = (double)*out / 256.0;
    if (!get_num(l, o, key, &d, lo, hi))
        return false;
    *out = (uint16_t)(d * 256.0 + 0.5);
    return true;
}

static bool load_relay(struct ld *l, const struct sj_value *root)
{
    static const char *const modes[] = { "off", "tss", "dtc", "cctrl", NULL };
    static const char *const keys[] = { "mode", "max_local_rexmit", "rto_mult", "alpha",
                                        "rtt_init_ms", "rto_min_ms", "idle_timeout_s",
                                        "backpressure", "ack_gamma", "forward_delay_ms", "ack_release",
                                        "keep", "drop", "hop", "hop_beta", "hop_max",
                                        "activity", "link", "sack", "endpoints", "ack_repair", NULL };
    const struct sj_value *o;
    struct mip_relay_config *c = &l->sc->relay;
    uint8_t mode = MIP_RELAY_OFF;
    uint16_t alpha;
    if (!get_obj(l, root, "relay", &o, false) || o == NULL)
        return !l->failed;
    if (!only_keys(l, o, keys) || !get_enum(l, o, "mode", modes, &mode, true))
        return false;
    mip_relay_config_default(c, mode);
    GET_INT_INTO(l, o, "max_local_rexmit", c->max_local_rexmit, 0, 15);
    alpha = c->alpha_q8;
    if (!get_q8(l, o, "rto_mult", &c->rto_mult_q8, 0.25, 16) ||
        !get_q8(l, o, "alpha", &alpha, 1.0 / 256.0, 1))
        return false;
    c->alpha_q8 = (uint8_t)(alpha > 255u ? 255u : alpha);
    GET_INT_INTO(l, o, "rtt_init_ms", c->rtt_init_ms, 1, 60000);
    GET_INT_INTO(l, o, "rto_min_ms", c->rto_min_ms, 0, 60000);
    GET_INT_INTO(l, o, "idle_timeout_s", c->idle_timeout_s, 1, 65535);
    if (!get_bool(l, o, "backpressure", &c->tss_backpressure) ||
        !get_q8(l, o, "ack_gamma", &c->ack_gamma_q8, 0.25, 16))
        return false;
    GET_INT_INTO(l, o, "forward_delay_ms", c->forward_delay_ms, 0, 60000);
    if (!get_bool(l, o, "ack_release", &c->tss_ack_release) ||
        !get_bool(l, o, "keep", &c->cc_keep) || !get_bool(l, o, "drop", &c->cc_drop) ||
        !get_bool(l, o, "hop", &c->cc_hop) || !get_q8(l, o, "hop_beta", &c->cc_hop_beta_q8, 0.25, 16) ||
        !get_bool(l, o, "activity", &c->cc_activity) || !get_bool(l, o, "sack", &c->dtc_sack) ||
        !get_bool(l, o, "endpoints", &c->dtc_endpoints) ||
        !get_bool(l, o, "link", &c->cc_link) ||
        !get_bool(l, o, "ack_repair", &c->ack_repair))
        return false;
    GET_INT_INTO(l, o, "hop_max", c->cc_hop_max, 1, 64);
    return true;
}

/* An IPv6 address with an optional /len, global or unique-local (not
 * unspecified, loopback, link-local or multicast). */
static bool get_prefix(struct ld *l, const struct sj_value *v, struct mip_addr *a, uint8_t *len)
{
    static const char what[] = "an IPv6 address or prefix as text, e.g. \"fd01::2/64\" (not "
                               "link-local, multicast, loopback or unspecified)";
    const char *s = sj_as_string(v, NULL);
    const uint8_t *b;
    bool zero = true;
    size_t i;
    if (s == NULL || mip_addr_parse(s, a, len) != MIP_OK || a->family != MIP_AF_INET6)
        return fail(l, v, what);
    b = a->bytes;
    for (i = 0; i < 15; i++)
        zero = zero && b[i] == 0;
    if (zero || b[0] == 0xff || (b[0] == 0xfe && (b[1] & 0xc0) == 0x80))
        return fail(l, v, what);
    return true;
}

/* "record": what the run keeps beyond its counters (sim/record.c). */
static bool load_record(struct ld *l, const struct sj_value *root)
{
    static const char *const keys[] = { "relay_rtt", "cache_hold", "in_flight", NULL };
    const struct sj_value *o;
    struct sim_scenario *sc = l->sc;
    if (!get_obj(l, root, "record", &o, false) || o == NULL)
        return !l->failed;
    return only_keys(l, o, keys) && get_bool(l, o, "relay_rtt", &sc->record_relay_rtt) &&
           get_bool(l, o, "cache_hold", &sc->record_cache_hold) &&
           get_bool(l, o, "in_flight", &sc->record_in_flight);
}

static bool load_link(struct ld *l, const struct sj_value *root)
{
    static const char *const modes[] = { "iphc", "raw", NULL };
    static const char *const ips[] = { "ipv6", "ipv4", NULL };
    static const char *const keys[] = { "mode", "ip", "header_bytes", "frame_max", "prefix",
                                        NULL };
    const struct sj_value *o;
    struct sim_scenario *sc = l->sc;
    uint8_t ip = 0;
    if (!get_obj(l, root, "link", &o, false) || o == NULL)
        return !l->failed;
    if (!only_keys(l, o, keys) || !get_enum(l, o, "mode", modes, &sc->link_mode, false) ||
        !get_enum(l, o, "ip", ips, &ip, false))
        return false;
    sc->ipv4 = ip == 1;
    GET_INT_INTO(l, o, "header_bytes", sc->link_hdr_bytes, 12, 64);
    GET_INT_INTO(l, o, "frame_max", sc->frame_max, 32, MIP_RADIO_FRAME_MAX + 2);
    if (sc->ipv4 && sc->link_mode != MIP_LOWPAN_RAW_IP)
        return fail(l, sj_get(o, "ip"), "\"ipv6\" with mode \"iphc\" (6LoWPAN carries IPv6)");
    if (sc->link_mode == MIP_LOWPAN_RAW_IP &&
        (unsigned)sc->frame_max < (unsigned)sc->link_hdr_bytes + (sc->ipv4 ? 68u : 1280u) &&
        !sc->ipv4)
        return fail(l, sj_get(o, "frame_max"), "room for a 1280-byte IPv6 datagram (use ipv4 or iphc)");
    if (sj_get(o, "prefix") != NULL) {
        struct mip_addr a;
        uint8_t len;
        if (sc->ipv4)
            return fail(l, sj_get(o, "prefix"), "no prefix with ip \"ipv4\" (it is the IPv6 mesh's)");
        if (!get_prefix(l, sj_get(o, "prefix"), &a, &len))
            return false;
        if (len != 64 || memcmp(a.bytes + 8, (const uint8_t[8]){ 0 }, 8) != 0)
            return fail(l, sj_get(o, "prefix"), "a /64 prefix with its last 64 bits zero, "
                                                "e.g. \"fd00::/64\"");
        memcpy(sc->prefix, a.bytes, 8);
    }
    return true;
}

static bool load_routing(struct ld *l, const struct sj_value *root)
{
    static const char *const kinds[] = { "shortest", "static", NULL };
    static const char *const metrics[] = { "hops", "etx", NULL };
    static const char *const keys[] = { "type", "metric", "symmetric", "routes", NULL };
    static const char *const rkeys[] = { "node", "dst", "via", NULL };
    const struct sj_value *o, *arr;
    struct sim_scenario *sc = l->sc;
    size_t k;
    if (!get_obj(l, root, "routing", &o, false) || o == NULL)
        return !l->failed;
    if (!only_keys(l, o, keys) || !get_enum(l, o, "type", kinds, &sc->routing, false) ||
        !get_enum(l, o, "metric", metrics, &sc->metric, false) ||
        !get_bool(l, o, "symmetric", &sc->routes_symmetric))
        return false;
    arr = sj_get(o, "routes");
    if (sc->routing == SIM_ROUTING_STATIC) {
        if (arr == NULL)
            return fail_missing(l, o, "routes", "an array of {node, dst, via}");
        if (!sj_is(arr, SJ_ARRAY))
            return fail(l, arr, "an array of {node, dst, via}");
        sc->n_routes = sj_len(arr);
        sc->routes = calloc(sc->n_routes ? sc->n_routes : 1u, sizeof(*sc->routes));
        if (sc->routes == NULL)
            return fail(l, arr, "fewer routes (out of memory)");
        for (k = 0; k < sc->n_routes; k++) {
            const struct sj_value *r = sj_at(arr, k);
            if (!sj_is(r, SJ_OBJECT))
                return fail(l, r, "an object {node, dst, via}");
            if (!only_keys(l, r, rkeys) || !get_node(l, r, "node", &sc->routes[k].node) ||
                !get_node(l, r, "dst", &sc->routes[k].dst) ||
                !get_node(l, r, "via", &sc->routes[k].via))
                return false;
        }
    } else if (arr != NULL) {
        return fail(l, arr, "no \"routes\" unless type is \"static\"");
    }
    return true;
}

static bool load_endpoint(struct ld *l, const struct sj_value *flow, const char *key,
                          struct sim_tcp_endpoint *e)
{
    static const char *const keys[] = { "profile", "cwnd_cap", "sack", "timestamps", "nodelay",
                                        "delayed_ack", "delack_ms", "cwnd_hold_backlog", "max_retries",
                                        "rto_min_ms", NULL };
    static const char *const profiles[] = { "full", "tiny", NULL };
    const struct sj_value *o;
    uint8_t prof = 0;
    bool delayed = true;
    if (!get_obj(l, flow, key, &o, false) || o == NULL)
        return !l->failed;
    if (!only_keys(l, o, keys) || !get_enum(l, o, "profile", profiles, &prof, false))
        return false;
    e->tiny = prof == 1;
    if (e->tiny) {
        e->sack = false;
        e->timestamps = false;
    }
    GET_INT_INTO(l, o, "cwnd_cap", e->cwnd_cap, 0, 255);
    GET_INT_INTO(l, o, "delack_ms", e->delack_ms, 0, 500);
    GET_INT_INTO(l, o, "cwnd_hold_backlog", e->cwnd_hold_backlog, 0, 255);
    GET_INT_INTO(l, o, "max_retries", e->max_retries, 1, 255);
    GET_INT_INTO(l, o, "rto_min_ms", e->rto_min_ms, 0, 60000);
    if (!get_bool(l, o, "sack", &e->sack) || !get_bool(l, o, "timestamps", &e->timestamps) ||
        !get_bool(l, o, "nodelay", &e->nodelay) || !get_bool(l, o, "delayed_ack", &delayed))
        return false;
    if (!delayed)
        e->delack_ms = 0;
    if (e->tiny && (e->sack || e->timestamps))
        return fail(l, sj_get(o, e->sack ? "sack" : "timestamps"),
                    "false with profile \"tiny\" (it has neither SACK nor timestamps)");
    return true;
}

/* The keys only a sensor flow takes. */
static const char *const sensor_only[] = { "transport", "reading_bytes", "batch", "queue",
                                           "coap_payload", "coap_ack_timeout_ms", "loss",
                                           "drain_s", NULL };

/* A sensor flow (TCPlp s.9, sim/sensor.c). Defaults from the paper: 82-byte
 * readings every second, a 64-reading queue for TCP and 104 for CoAP ("an
 * additional 40 readings fit in TCP's send buffer": 40 * 82 B), batches of
 * 64, segments and CoAP messages of five frames (MSS 408 B, RIOT's figure
 * for five frames), TCP giving up after 12 retransmissions, Contiki's CoAP
 * ACK_TIMEOUT of 3 s. */
static bool load_sensor(struct ld *l, const struct sj_value *o, struct sim_flow_spec *f)
{
    static const char *const transports[] = { "tcp", "coap", "cocoa", NULL };
    bool queue_given = sj_get(o, "queue") != NULL;
    f->transport = SIM_SENSOR_TCP;
    f->reading_bytes = 82;
    f->batch = 64;
    f->coap_payload = 408;
    f->coap_ack_timeout_ms = 3000;
    f->drain_s = 120.0;
    f->mss = 408;
    f->tx_buffer = 40u * 82u;
    f->rx_buffer = 40u * 82u;
    f->sender.max_retries = 12;
    if (!get_enum(l, o, "transport", transports, &f->transport, false))
        return false;
    f->queue = f->transport == SIM_SENSOR_TCP ? 64u : 104u;
    GET_INT_INTO(l, o, "reading_bytes", f->reading_bytes, 12, 255);
    if (!get_num(l, o, "interval_s", &f->interval_s, 1e-3, 1e7))
        return false;
    GET_INT_INTO(l, o, "count", f->count, 0, 100000000);
    GET_INT_INTO(l, o, "queue", f->queue, 1, 65535);
    GET_INT_INTO(l, o, "batch", f->batch, 1, 65535);
    if (f->batch > f->queue)
        return fail(l, sj_get(o, queue_given ? "queue" : "batch"),
                    "a batch no larger than the queue");
    GET_INT_INTO(l, o, "coap_payload", f->coap_payload, 32, 65535);
    if (f->coap_payload < 16u + f->reading_bytes)
        return fail(l, sj_get(o, "coap_payload"), "room for one reading and 16 bytes of CoAP header");
    GET_INT_INTO(l, o, "coap_ack_timeout_ms", f->coap_ack_timeout_ms, 100, 60000);
    if (!get_num(l, o, "loss", &f->loss, 0.0, 0.9) ||
        !get_num(l, o, "drain_s", &f->drain_s, 0.0, 1e6))
        return false;
    GET_INT_INTO(l, o, "mss", f->mss, 64, 65535);
    GET_INT_INTO(l, o, "tx_buffer", f->tx_buffer, 16, 65535);
    GET_INT_INTO(l, o, "rx_buffer", f->rx_buffer, 64, 65535);
    if (!load_endpoint(l, o, "sender", &f->sender) || !load_endpoint(l, o, "receiver", &f->receiver))
        return false;
    if (sj_get(o, "bytes") || sj_get(o, "segments") || sj_get(o, "duration_s") ||
        sj_get(o, "payload_bytes"))
        return fail(l, o, "no bytes, segments, duration_s or payload_bytes in a sensor flow "
                          "(it sends readings: count, interval_s, reading_bytes)");
    return true;
}

static bool load_flows(struct ld *l, const struct sj_value *root)
{
    static const char *const kinds[] = { "tcp", "udp", "ping", "sensor", NULL };
    /* keys of the other kinds, each an error in a ping flow */
    static const char *const not_ping[] = { "port", "bytes", "segments", "segment_bytes",
                                            "duration_s", "mss", "tx_buffer", "rx_buffer",
                                            "sender", "receiver", NULL };
    static const char *const keys[] = { "type", "src", "dst", "port", "start_s", "bytes",
                                        "segments", "segment_bytes", "duration_s", "mss",
                                        "tx_buffer", "rx_buffer", "sender", "receiver",
                                        "interval_s", "count", "payload_bytes", "transport",
                                        "reading_bytes", "batch", "queue", "coap_payload",
                                        "coap_ack_timeout_ms", "loss", "drain_s", NULL };
    const struct sj_value *arr = sj_get(root, "flows");
    struct sim_scenario *sc = l->sc;
    size_t k, n;
    if (arr == NULL)
        return true;
    if (!sj_is(arr, SJ_ARRAY))
        return fail(l, arr, "an array of flows");
    n = sj_len(arr);
    sc->flows = calloc(n ? n : 1u, sizeof(*sc->flows));
    if (sc->flows == NULL)
        return fail(l, arr, "fewer flows (out of memory)");
    sc->n_flows = n;
    for (k = 0; k < n; k++) {
        const struct sj_value *o = sj_at(arr, k);
        struct sim_flow_spec *f = &sc->flows[k];
        int64_t segments = 0, seg_bytes = 0, bytes = 0;
        int given;
        if (!sj_is(o, SJ_OBJECT))
            return fail(l, o, "a flow object");
        /* 7000s: no port Wireshark gives to a dissector (5000 is gsm_ipa's) */
        f->port = (uint16_t)(7400u + k);
        f->tx_buffer = 2048;
        f->rx_buffer = 2048;
        f->sender.sack = f->receiver.sack = true;
        f->sender.timestamps = f->receiver.timestamps = true;
        f->sender.nodelay = f->receiver.nodelay = false;
        f->sender.delack_ms = f->receiver.delack_ms = MIP_TCP_DELACK_MS;
        f->interval_s = 1.0;
        f->payload_bytes = 32;
        if (!only_keys(l, o, keys) || !get_enum(l, o, "type", kinds, &f->kind, true))
            return false;
        if (f->kind != SIM_FLOW_SENSOR) {
            size_t j;
            for (j = 0; sensor_only[j] != NULL; j++)
                if (sj_get(o, sensor_only[j]) != NULL)
                    return fail(l, sj_get(o, sensor_only[j]), "a key of sensor flows only "
                                "(this flow's type is not \"sensor\")");
        }
        if (f->kind == SIM_FLOW_UDP)
            f->port = 6000u;    /* reporters share the sink's port; it demuxes by source */
        if (f->kind == SIM_FLOW_PING) {
            size_t j;
            f->port = 0;        /* ICMP: no port */
            f->count = 10;
            f->payload_bytes = 16;
            for (j = 0; not_ping[j] != NULL; j++) {
                char what[160];
                if (sj_get(o, not_ping[j]) == NULL)
                    continue;
                snprintf(what, sizeof(what), "no \"%s\" in a ping flow (it takes src, dst, "
                         "interval_s, count, payload_bytes, start_s)", not_ping[j]);
                return fail(l, sj_get(o, not_ping[j]), what);
            }
        }
        if (!get_node(l, o, "src", &f->src) || !get_node(l, o, "dst", &f->dst))
            return false;
        if (f->src == f->dst)
            return fail(l, sj_get(o, "dst"), "a node other than src");
        GET_INT_INTO(l, o, "port", f->port, 1, 65535);
        if (!get_num(l, o, "start_s", &f->start_s, 0, 1e7))
            return false;
        if (f->kind == SIM_FLOW_SENSOR) {
            if (!load_sensor(l, o, f))
                return false;
        } else if (f->kind == SIM_FLOW_TCP) {
            if (!get_int(l, o, "bytes", &bytes, 1, INT64_MAX / 2) ||
                !get_int(l, o, "segments", &segments, 1, 100000000) ||
                !get_int(l, o, "segment_bytes", &seg_bytes, 1, 65535) ||
                !get_num(l, o, "duration_s", &f->duration_s, 1e-6, 1e7))
                return false;
            given = (bytes > 0) + (segments > 0) + (f->duration_s > 0.0);
            if (given != 1)
                return fail(l, o, "exactly one of \"bytes\", \"segments\" (with "
                                  "\"segment_bytes\") or \"duration_s\"");
            if (segments > 0 && seg_bytes == 0)
                return fail_missing(l, o, "segment_bytes", "the payload bytes of each segment");
            if (seg_bytes > 0 && segments == 0)
                return fail(l, sj_get(o, "segment_bytes"), "to come with \"segments\"");
            f->bytes = segments > 0 ? (uint64_t)segments * (uint64_t)seg_bytes : (uint64_t)bytes;
            GET_INT_INTO(l, o, "mss", f->mss, 64, 65535);
            if (seg_bytes > 0) {
                if (sj_get(o, "mss") != NULL)
                    return fail(l, sj_get(o, "mss"), "no \"mss\" with \"segment_bytes\" (it sets the MSS)");
                if (seg_bytes < 64)
                    return fail(l, sj_get(o, "segment_bytes"), "at least 64 bytes");
                f->mss = (uint16_t)seg_bytes;
            }
            /* tx_buffer down to 16: a send buffer under the MSS (which TCP
             * keeps at 64 or more) makes smaller segments, e.g. cctrl's
             * 16-byte ones (uIP's client writes one string per poll) */
            GET_INT_INTO(l, o, "tx_buffer", f->tx_buffer, 16, 65535);
            GET_INT_INTO(l, o, "rx_buffer", f->rx_buffer, 64, 65535);
            if (!load_endpoint(l, o, "sender", &f->sender) ||
                !load_endpoint(l, o, "receiver", &f->receiver))
                return false;
            if (sj_get(o, "interval_s") || sj_get(o, "count") || sj_get(o, "payload_bytes"))
                return fail(l, o, "no UDP keys (interval_s, count, payload_bytes) in a tcp flow");
        } else if (f->kind == SIM_FLOW_PING) {
            /* count: the ICMP sequence number is 16 bits; payload: the
             * first 8 bytes carry the send time, and 1232 fills the IPv6
             * minimum MTU (40 + 8 + 1232 = 1280) */
            if (!get_num(l, o, "interval_s", &f->interval_s, 1e-3, 1e7))
                return false;
            GET_INT_INTO(l, o, "count", f->count, 0, 65535);
            GET_INT_INTO(l, o, "payload_bytes", f->payload_bytes, 8, 1232);
            if (k > 65535u)     /* the flow index is the ICMP identifier */
                return fail(l, o, "a ping flow among the first 65536 flows");
        } else {
            if (!get_num(l, o, "interval_s", &f->interval_s, 1e-3, 1e7))
                return false;
            GET_INT_INTO(l, o, "count", f->count, 0, 100000000);
            GET_INT_INTO(l, o, "payload_bytes", f->payload_bytes, 12, 1232);
            if (sj_get(o, "bytes") || sj_get(o, "segments") || sj_get(o, "sender") ||
                sj_get(o, "receiver") || sj_get(o, "duration_s"))
                return fail(l, o, "no TCP keys (bytes, segments, duration_s, sender, receiver) "
                                  "in a udp flow");
        }
    }
    /* two TCP flows may not listen on the same (node, port) */
    for (k = 0; k < n; k++) {
        size_t j;
        for (j = 0; j < k; j++) {
            bool tcp_k = sc->flows[k].kind == SIM_FLOW_TCP ||
                         (sc->flows[k].kind == SIM_FLOW_SENSOR && sc->flows[k].transport == SIM_SENSOR_TCP);
            bool tcp_j = sc->flows[j].kind == SIM_FLOW_TCP ||
                         (sc->flows[j].kind == SIM_FLOW_SENSOR && sc->flows[j].transport == SIM_SENSOR_TCP);
            if (tcp_k && tcp_j &&
                sc->flows[k].dst == sc->flows[j].dst && sc->flows[k].port == sc->flows[j].port)
                return fail(l, sj_at(arr, k), "a port not used by an earlier tcp flow to the same node");
        }
    }
    return true;
}

/* True when the prefixes a/alen and b/blen share an address. */
static bool prefixes_overlap(const struct mip_addr *a, uint8_t alen, const struct mip_addr *b,
                             uint8_t blen)
{
    return mip_addr_prefix_eq(a->bytes, b->bytes, alen < blen ? alen : blen);
}

/* border: { node, device, type, address, routes, reach } (docs/SIMULATOR.md,
 * "Real time and the border router"). The mesh is IPv6 under link.prefix;
 * no prefix on the host side may overlap it (the default route aside). */
static bool load_border(struct ld *l, const struct sj_value *root)
{
    static const char *const keys[] = { "node", "device", "type", "address", "routes", "reach",
                                        NULL };
    static const char *const kinds[] = { "tun", "tap", NULL };
    static const char *const rkeys[] = { "dst", "via", NULL };
    struct sim_scenario *sc = l->sc;
    struct sim_border_spec *b = &sc->border;
    const struct sj_value *o, *v, *arr;
    struct mip_addr mesh;
    uint8_t mesh16[16] = { 0 };
    char what[160];
    size_t k;
    if (!get_obj(l, root, "border", &o, false) || o == NULL)
        return !l->failed;
    if (!only_keys(l, o, keys) || !get_node(l, o, "node", &b->node) ||
        !get_enum(l, o, "type", kinds, &b->kind, false))
        return false;
    b->on = true;
    if (sc->ipv4)
        return fail(l, o, "no border router with link.ip \"ipv4\" (it routes the IPv6 mesh)");
    memcpy(mesh16, sc->prefix, 8);
    mip_addr_set6(&mesh, mesh16);
    {
        char mtext[48];
        (void)mip_addr_format(&mesh, mtext, sizeof(mtext));
        snprintf(what, sizeof(what), "a prefix that does not overlap the mesh's %s/64 (link.prefix)",
                 mtext);
    }
    v = sj_get(o, "device");
    if (v == NULL)
        return fail_missing(l, o, "device", "the name of a TUN or TAP device on the host");
    {
        const char *name = sj_as_string(v, NULL);
        if (name == NULL || name[0] == '\0' || strlen(name) >= sizeof(b->device) ||
            strpbrk(name, "/ \t\n:") != NULL)
            return fail(l, v, "an interface name of 1 to 15 characters without '/', ':' or spaces");
        strcpy(b->device, name);
    }
    v = sj_get(o, "address");
    if (v == NULL)
        return fail_missing(l, o, "address", "the border router's address on the host link, "
                                             "e.g. \"fd01::2/64\"");
    if (!get_prefix(l, v, &b->addr, &b->addr_len))
        return false;
    if (prefixes_overlap(&b->addr, b->addr_len, &mesh, 64))
        return fail(l, v, what);
    arr = sj_get(o, "routes");
    if (arr == NULL) {
        /* default: everything not in the mesh goes to the host */
        b->n_routes = 1;
        memset(&b->routes[0], 0, sizeof(b->routes[0]));
        mip_addr_set6(&b->routes[0].prefix, (const uint8_t[16]){ 0 });
    } else {
        if (!sj_is(arr, SJ_ARRAY) || sj_len(arr) > SIM_BORDER_ROUTES_MAX)
            return fail(l, arr, "an array of at most 8 {\"dst\": PREFIX, \"via\": ADDRESS}");
        b->n_routes = (uint8_t)sj_len(arr);
        for (k = 0; k < b->n_routes; k++) {
            struct sim_border_route *r = &b->routes[k];
            const struct sj_value *e = sj_at(arr, k), *d;
            if (!sj_is(e, SJ_OBJECT))
                return fail(l, e, "an object {\"dst\": PREFIX, \"via\": ADDRESS}");
            if (!only_keys(l, e, rkeys))
                return false;
            d = sj_get(e, "dst");
            if (d == NULL)
                return fail_missing(l, e, "dst", "a prefix, e.g. \"::/0\"");
            if (sj_as_string(d, NULL) != NULL && strcmp(sj_as_string(d, NULL), "::/0") == 0) {
                mip_addr_set6(&r->prefix, (const uint8_t[16]){ 0 });
                r->prefix_len = 0;
            } else if (!get_prefix(l, d, &r->prefix, &r->prefix_len)) {
                return false;
            } else if (prefixes_overlap(&r->prefix, r->prefix_len, &mesh, 64)) {
                return fail(l, d, what);
            }
            d = sj_get(e, "via");
            if (d != NULL) {
                uint8_t vlen;
                if (!get_prefix(l, d, &r->via, &vlen) || vlen != 128)
                    return l->failed ? false : fail(l, d, "an IPv6 address without a /length");
                if (!prefixes_overlap(&r->via, 128, &b->addr, b->addr_len))
                    return fail(l, d, "a next hop on the host link (inside border.address's "
                                      "prefix)");
                r->has_via = true;
            }
        }
    }
    arr = sj_get(o, "reach");
    if (arr != NULL) {
        if (!sj_is(arr, SJ_ARRAY) || sj_len(arr) == 0u)
            return fail(l, arr, "a non-empty array of node ids");
        b->n_reach = sj_len(arr);
        b->reach = calloc(b->n_reach, sizeof(*b->reach));
        if (b->reach == NULL)
            return fail(l, arr, "fewer nodes (out of memory)");
        for (k = 0; k < b->n_reach; k++)
            if (!node_at(l, sj_at(arr, k), &b->reach[k]))
                return false;
    }
    return true;
}

/* services: [{ type, node, port, mss }] (sim/services.c). */
static bool load_services(struct ld *l, const struct sj_value *root)
{
    static const char *const keys[] = { "type", "node", "port", "mss", NULL };
    /* the well-known port of each kind (enum sim_service_kind) */
    static const uint16_t ports[SIM_SVC_KINDS] = { 80, 7, 9, 19, 7 };
    const struct sj_value *arr = sj_get(root, "services");
    struct sim_scenario *sc = l->sc;
    size_t k, j, n;
    if (arr == NULL)
        return true;
    if (!sj_is(arr, SJ_ARRAY))
        return fail(l, arr, "an array of {\"type\", \"node\", \"port\"}");
    n = sj_len(arr);
    sc->services = calloc(n ? n : 1u, sizeof(*sc->services));
    if (sc->services == NULL)
        return fail(l, arr, "fewer services (out of memory)");
    sc->n_services = n;
    for (k = 0; k < n; k++) {
        const struct sj_value *o = sj_at(arr, k);
        struct sim_service_spec *v = &sc->services[k];
        if (!sj_is(o, SJ_OBJECT))
            return fail(l, o, "a service object");
        if (!only_keys(l, o, keys) || !get_enum(l, o, "type", sim_service_names, &v->kind, true) ||
            !get_node(l, o, "node", &v->node))
            return false;
        v->port = ports[v->kind];
        GET_INT_INTO(l, o, "port", v->port, 1, 65535);
        if (v->kind == SIM_SVC_UDP_ECHO && sj_get(o, "mss") != NULL)
            return fail(l, sj_get(o, "mss"), "no mss for a UDP service");
        GET_INT_INTO(l, o, "mss", v->mss, 64, 65535);
        for (j = 0; j < k; j++) {
            const struct sim_service_spec *u = &sc->services[j];
            if (u->node == v->node && u->port == v->port &&
                (u->kind == SIM_SVC_UDP_ECHO) == (v->kind == SIM_SVC_UDP_ECHO))
                return fail(l, sj_get(o, "port") != NULL ? sj_get(o, "port") : o,
                            "a port no earlier service of the node uses");
        }
    }
    return true;
}

void sim_scenario_defaults(struct sim_scenario *sc)
{
    memset(sc, 0, sizeof(*sc));
    strcpy(sc->name, "unnamed");
    sc->seed = 1;
    sc->duration_s = 60.0;
    sc->stop_when_done = true;
    mip_radio_timing_default(&sc->timing);
    sc->radio_profile = SIM_RADIO_CC2420;
    sc->radio = radio_profiles[SIM_RADIO_CC2420];
    sc->medium = SIM_MEDIUM_UNIT_DISK;
    sc->range_m = 50.0;
    sc->interference_range_m = 50.0;
    sc->cs_range_m = 50.0;
    sc->tx_power_dbm = 0.0;
    sc->pl_d0_db = 40.0;        /* 2.4 GHz free space at 1 m */
    sc->d0_m = 1.0;
    sc->pl_exponent = 3.0;
    sc->shadowing_db = 4.0;
    sc->noise_dbm = -100.0;
    sc->sensitivity_dbm = -95.0;    /* CC2420 */
    sc->cca_dbm = -77.0;            /* CC2420 default CCA threshold */
    sc->links_symmetric = true;
    mip_mac_config_default(&sc->mac, MIP_MAC_CSMA_CA, 0, 0, NULL);
    sc->link_mode = MIP_LOWPAN_IPHC;
    sc->link_hdr_bytes = 12;
    sc->frame_max = 127;
    sc->link_acks = true;
    sc->routing = SIM_ROUTING_SHORTEST;
    sc->metric = SIM_METRIC_HOPS;
    sc->routes_symmetric = true;
    sc->prefix[0] = 0xfd;               /* fd00::/64 */
}

void sim_scenario_free(struct sim_scenario *sc)
{
    free(sc->pos);
    free(sc->links);
    free(sc->routes);
    free(sc->flows);
    free(sc->node_rdc);
    free(sc->services);
    free(sc->border.reach);
    sc->node_rdc = NULL;
    sc->services = NULL;
    sc->border.reach = NULL;
    sc->pos = NULL;
    sc->links = NULL;
    sc->routes = NULL;
    sc->flows = NULL;
}

bool sim_scenario_parse(const char *text, size_t len, const char *fname,
                        struct sim_scenario *sc, char *err, size_t errlen)
{
    static const char *const keys[] = { "name", "seed", "duration_s", "stop_when_done", "phy",
                                        "radio", "medium", "topology", "mac", "link", "routing",
                                        "relay", "flows", "services", "border", "record", NULL };
    struct sj_error jerr;
    struct sj_doc *doc;
    const struct sj_value *root, *v;
    struct ld l;
    bool ok;
    int64_t seed;
    sim_scenario_defaults(sc);
    doc = sj_parse(text, len, NULL, &jerr);
    if (doc == NULL) {
        snprintf(err, errlen, "%s: %s", fname, jerr.msg);
        return false;
    }
    root = sj_doc_root(doc);
    l.fname = fname;
    l.err = err;
    l.errlen = errlen;
    l.failed = false;
    l.sc = sc;
    l.rdc_parent_key = NULL;
    l.node_parent_key = NULL;
    ok = sj_is(root, SJ_OBJECT) ? true : fail(&l, root, "a scenario object");
    if (ok)
        ok = only_keys(&l, root, keys);
    if (ok && (v = sj_get(root, "name")) != NULL) {
        const char *s = sj_as_string(v, NULL);
        if (s == NULL || strlen(s) >= sizeof(sc->name))
            ok = fail(&l, v, "a string of at most 63 bytes");
        else
            strcpy(sc->name, s);
    }
    if (ok && sj_get(root, "seed") != NULL) {
        ok = get_int(&l, root, "seed", &seed, 0, INT64_MAX);
        if (ok)
            sc->seed = (uint64_t)seed;
    }
    ok = ok && get_num(&l, root, "duration_s", &sc->duration_s, 1e-6, 1e7) &&
         get_bool(&l, root, "stop_when_done", &sc->stop_when_done) && load_phy(&l, root) &&
         load_radio(&l, root) && load_medium(&l, root) && load_topology(&l, root) &&
         load_mac(&l, root) && load_link(&l, root) && load_routing(&l, root) &&
         load_relay(&l, root) && load_flows(&l, root) && load_services(&l, root) &&
         load_border(&l, root) && load_record(&l, root);
    if (ok && sc->medium == SIM_MEDIUM_PRR && sc->topology != SIM_TOPO_LINKS)
        ok = fail(&l, sj_get(sj_get(root, "medium"), "model"),
                  "\"prr\" only with topology type \"links\" (the links carry the PRRs)");
    if (ok && sc->topology == SIM_TOPO_LINKS && sc->medium != SIM_MEDIUM_PRR) {
        if (sj_get(sj_get(root, "medium"), "model") != NULL)
            ok = fail(&l, sj_get(sj_get(root, "medium"), "model"),
                      "\"prr\" with topology type \"links\"");
        sc->medium = SIM_MEDIUM_PRR;
    }
    free(l.node_parent_key);
    sj_doc_free(doc);
    if (!ok)
        sim_scenario_free(sc);
    return ok;
}

bool sim_scenario_load(const char *path, struct sim_scenario *sc, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    bool ok;
    if (f == NULL) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return false;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        n > (long)SJ_DEFAULT_MAX_SIZE) {
        fclose(f);
        snprintf(err, errlen, "%s: cannot read (or larger than %u bytes)", path,
                 (unsigned)SJ_DEFAULT_MAX_SIZE);
        return false;
    }
    buf = malloc((size_t)n + 1u);
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        snprintf(err, errlen, "%s: cannot read", path);
        return false;
    }
    fclose(f);
    ok = sim_scenario_parse(buf, (size_t)n, path, sc, err, errlen);
    free(buf);
    return ok;
}
