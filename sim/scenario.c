/*
 * Scenario files (JSON, schema in docs/SIMULATOR.md) -> struct sim_scenario.
 *
 * Every key is checked: an unknown key, a wrong type, a value out of range
 * or a node id that does not exist is an error naming the file, the JSON
 * path of the value and what was expected. Nothing is silently ignored.
 */
#include "sim.h"
#include "json.h"
#include "external.h"
#include "moteip/wire/overlay.h"
#include "cctrl_proxy.h"
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

/* --- key tables ------------------------------------------------------------------- */

/*
 * Each object of a scenario is described by a table of its keys: the type
 * and range of each value, the field it sets (offset into the struct the
 * object fills), its default and whether it must be given. One generic pass
 * (read_keys) refuses unknown keys and reads every key it can; what depends
 * on several keys or on the topology is left to the object's named checks
 * after it. The tables are also the schema docs/SIMULATOR.md lists
 * (sim_scenario_keys_md), so a default is written once, here.
 */
enum key_type {
    KT_INT,                     /* integer in [lo, hi] into an unsigned field of `size` bytes */
    KT_NUM,                     /* number in [dlo, dhi] into a double */
    KT_BOOL,                    /* true or false into a bool */
    KT_ENUM,                    /* one of names[]: its index into a 1-byte field */
    KT_Q8,                      /* number in [dlo, dhi] into 1/256 fixed point */
    KT_NODE,                    /* node id 0..n-1 or "last" into a uint32_t */
    KT_OWN                      /* read by the object's own code (objects, arrays, text) */
};

enum {
    KF_REQ = 1u << 0,           /* missing is an error */
    KF_DEF = 1u << 1,           /* `def` is the default (else `note` says, or it is 0) */
    KF_LATER = 1u << 2,         /* read by the object's own code with read_key() */
    KF_LOCAL = 1u << 3          /* ... into a local variable (off 0), not a field */
};

struct key {
    const char *key;
    uint8_t type;               /* enum key_type */
    uint8_t flags;              /* KF_* */
    uint8_t size;               /* of the field, bytes */
    size_t off;                 /* of the field in the object's struct */
    int64_t lo, hi;             /* KT_INT */
    double dlo, dhi;            /* KT_NUM, KT_Q8 */
    const char *const *names;   /* KT_ENUM, NULL-terminated */
    uint16_t scale;             /* KT_INT: field = value x scale (ms -> us); 0 = 1 */
    uint8_t kinds;              /* the kinds (topology or MAC type, relay mode,
                                   RDC) that read it, bit 1 << kind; a key of
                                   another kind is refused (check_kind_keys) */
    double def;                 /* with KF_DEF */
    const char *what;           /* KT_OWN: what the value is (docs) */
    const char *note;           /* docs: where the default comes from when it
                                   is not one value */
};

struct table {
    const struct key *keys;
    size_t n;
};

#define FIELD(T, f) .size = sizeof(((T *)0)->f), .off = offsetof(T, f)
#define K_INT(T, k, f, l, h, d) \
    { .key = (k), .type = KT_INT, .flags = KF_DEF, FIELD(T, f), .lo = (l), .hi = (h), .def = (d) }
#define K_NUM(T, k, f, l, h, d) \
    { .key = (k), .type = KT_NUM, .flags = KF_DEF, FIELD(T, f), .dlo = (l), .dhi = (h), .def = (d) }
#define K_BOOL(T, k, f, d) { .key = (k), .type = KT_BOOL, .flags = KF_DEF, FIELD(T, f), .def = (d) }
#define K_ENUM(T, k, f, n, d) \
    { .key = (k), .type = KT_ENUM, .flags = KF_DEF, FIELD(T, f), .names = (n), .def = (d) }
#define K_OWN(k, w) { .key = (k), .type = KT_OWN, .what = (w) }
#define TABLE(a) { (a), sizeof(a) / sizeof((a)[0]) }

static const struct key *find_key(const struct table *t, const char *key)
{
    size_t i;
    for (i = 0; i < t->n; i++)
        if (strcmp(t->keys[i].key, key) == 0)
            return &t->keys[i];
    return NULL;
}

/* Rejects keys in none of the nt tables; the error lists them all, each
 * once, in table order. */
static bool only_keys(struct ld *l, const struct sj_value *obj, const struct table *t, size_t nt)
{
    size_t i, j, k;
    for (i = 0; i < sj_len(obj); i++) {
        const struct sj_value *m = sj_at(obj, i);
        char path[160], list[400] = "";
        bool known = false;
        for (j = 0; j < nt && !known; j++)
            known = find_key(&t[j], m->key) != NULL;
        if (known)
            continue;
        for (j = 0; j < nt; j++) {
            for (k = 0; k < t[j].n; k++) {
                const char *key = t[j].keys[k].key;
                size_t e;
                bool seen = false;
                for (e = 0; e < j && !seen; e++)
                    seen = find_key(&t[e], key) != NULL;
                if (seen)
                    continue;
                strncat(list, list[0] ? ", " : "", sizeof(list) - strlen(list) - 1u);
                strncat(list, key, sizeof(list) - strlen(list) - 1u);
            }
        }
        sj_path(m, path, sizeof(path));
        l->failed = true;
        snprintf(l->err, l->errlen, "%s: %s: unknown key; known keys here: %s", l->fname, path,
                 list);
        return false;
    }
    return true;
}

static void put_uint(uint8_t *f, size_t size, uint64_t x)
{
    if (size == 1u)
        *f = (uint8_t)x;
    else if (size == 2u)
        memcpy(f, &(uint16_t){ (uint16_t)x }, 2);
    else if (size == 4u)
        memcpy(f, &(uint32_t){ (uint32_t)x }, 4);
    else
        memcpy(f, &x, 8);
}

/* Reads key k of o, when present (or missing and required), into the field
 * at base + k->off. */
static bool read_key(struct ld *l, const struct sj_value *o, const struct key *k, void *base)
{
    uint8_t *f = (uint8_t *)base + k->off;
    int64_t i = 0;
    double d = 0.0;
    bool b = false;
    uint8_t e = 0;
    uint32_t n = 0;
    if (sj_get(o, k->key) == NULL && (k->flags & KF_REQ) == 0u && k->type != KT_NODE)
        return true;
    switch (k->type) {
    case KT_INT:
        if (!get_int(l, o, k->key, &i, k->lo, k->hi))
            return false;
        put_uint(f, k->size, (uint64_t)i * (k->scale != 0u ? k->scale : 1u));
        return true;
    case KT_NUM:
        if (!get_num(l, o, k->key, &d, k->dlo, k->dhi))
            return false;
        memcpy(f, &d, sizeof(d));
        return true;
    case KT_Q8:
        if (!get_num(l, o, k->key, &d, k->dlo, k->dhi))
            return false;
        i = (int64_t)(d * 256.0 + 0.5);
        /* 1.0 in a 1-byte field is the largest it holds */
        put_uint(f, k->size, k->size == 1u && i > 255 ? 255u : (uint64_t)i);
        return true;
    case KT_BOOL:
        if (!get_bool(l, o, k->key, &b))
            return false;
        memcpy(f, &b, sizeof(b));
        return true;
    case KT_ENUM:
        if (!get_enum(l, o, k->key, k->names, &e, (k->flags & KF_REQ) != 0u))
            return false;
        *f = e;
        return true;
    case KT_NODE:
        if (!get_node(l, o, k->key, &n))
            return false;
        memcpy(f, &n, sizeof(n));
        return true;
    default:
        return true;
    }
}

/* The table pass: every key of t not left to the object's own code. */
static bool read_keys(struct ld *l, const struct sj_value *o, const struct table *t, void *base)
{
    size_t i;
    for (i = 0; i < t->n; i++)
        if ((t->keys[i].flags & KF_LATER) == 0u && !read_key(l, o, &t->keys[i], base))
            return false;
    return true;
}

/* Sets every field whose key has a constant default. */
static void put_defaults(const struct table *t, void *base)
{
    size_t i;
    for (i = 0; i < t->n; i++) {
        const struct key *k = &t->keys[i];
        uint8_t *f = (uint8_t *)base + k->off;
        if ((k->flags & KF_DEF) == 0u)
            continue;
        if (k->type == KT_NUM) {
            memcpy(f, &k->def, sizeof(k->def));
        } else if (k->type == KT_BOOL) {
            bool b = k->def != 0.0;
            memcpy(f, &b, sizeof(b));
        } else {
            put_uint(f, k->size, (uint64_t)k->def);
        }
    }
}

/* An optional object member `key` of parent that takes the keys of t:
 * *out is NULL when it is absent. */
static bool open_object(struct ld *l, const struct sj_value *parent, const char *key,
                        const struct table *t, const struct sj_value **out)
{
    if (!get_obj(l, parent, key, out, false))
        return false;
    return *out == NULL || only_keys(l, *out, t, 1);
}

/* --- sections --------------------------------------------------------------------- */

#define SC struct sim_scenario
/* Keys without KF_DEF: the default is a library's (mip_*_default), a
 * preset's or derived from other keys, as `note` says. */
#define K_INT_L(T, k, f, l, h) { .key = (k), .type = KT_INT, FIELD(T, f), .lo = (l), .hi = (h) }
#define K_NUM_L(T, k, f, l, h, n) \
    { .key = (k), .type = KT_NUM, FIELD(T, f), .dlo = (l), .dhi = (h), .note = (n) }
#define K_BOOL_L(T, k, f) { .key = (k), .type = KT_BOOL, FIELD(T, f) }
#define K_Q8_L(T, k, f, l, h) { .key = (k), .type = KT_Q8, FIELD(T, f), .dlo = (l), .dhi = (h) }
#define K_NODE(T, k, f) { .key = (k), .type = KT_NODE, .flags = KF_REQ, FIELD(T, f) }
/* A value the object's code reads into a local variable (int64_t, bool). */
#define K_LOCAL_INT(k, l, h, n) \
    { .key = (k), .type = KT_INT, .flags = KF_LATER | KF_LOCAL, .size = 8, .lo = (l), .hi = (h), \
      .note = (n) }

/* Radio profiles, indexed by enum sim_radio_profile_kind; figures and their
 * datasheets in docs/SIMULATOR.md. `off` is where a duty-cycling MAC leaves
 * the receiver between listens: the CC2420's idle mode (oscillator on, RX
 * in 192 us), the AT86RF233's TRX_OFF, the nRF52840's RADIO powered off
 * with the HFXO left running (its current is not counted: not found). */
static const char *const profile_names[] = { "cc2420", "at86rf233", "nrf52840", NULL };
static const struct sim_radio_profile radio_profiles[SIM_RADIO_PROFILES] = {
    /*            tx (0 dBm) rx    listen off    V */
    [SIM_RADIO_CC2420]    = { 17.4, 18.8, 18.8, 0.426, 3.0 },
    /*            tx (+4 dBm, BUSY_TX) RX_ON / BUSY_RX, TRX_OFF */
    [SIM_RADIO_AT86RF233] = { 13.8, 11.8, 11.8, 0.3, 3.0 },
    /*            nRF52840 PS: IRADIO_TX5 (0 dBm, 802.15.4, DC/DC), IRADIO_RX2 */
    [SIM_RADIO_NRF52840]  = { 6.40, 6.53, 6.53, 0.0, 3.0 },
};
_Static_assert(sizeof(profile_names) / sizeof(profile_names[0]) == SIM_RADIO_PROFILES + 1u,
               "every radio profile needs its name");
/* Platform timing, indexed by enum sim_platform_kind; each figure's source
 * is in docs/SIMULATOR.md "Platform timing". "ideal" is all zeros: the phy
 * keys' 802.15.4 timing alone, as before platforms existed.
 *                     osc_on rx_on turn cca  host/frame bus b/s   drift ppm */
static const char *const platform_names[] = { "ideal", "cc2420", "at86rf233", "nrf52840",
                                              NULL };
static const struct sim_platform platforms[SIM_PLATFORMS] = {
    [SIM_PLATFORM_IDEAL]     = { 0, 0, 0, 0, 0, 0, 0.0 },
    /* TelosB: CC2420 datasheet (crystal 860 us, 12-symbol RX start-up and
     * turnaround, 8-symbol RSSI average), its SPI at 500 kb/s, the 802.15.4
     * +/-40 ppm; no cited CPU cost per frame (0: key frame_host_us) */
    [SIM_PLATFORM_CC2420]    = { 860, 192, 192, 128, 0, 500000, 40.0 },
    /* Hamilton: AT86RF233 datasheet (SLEEP->TRX_OFF 210 us, TRX_OFF->RX_ON
     * 80 us), RIOT's 5 MHz SPI, the CPU time left of TCPlp s.6.4's 8.2 ms */
    [SIM_PLATFORM_AT86RF233] = { 210, 80, 192, 128, 1755, 5000000, 40.0 },
    /* nRF52840 SoC: HFXO start-up (Nordic DevZone's typical nRF52 figure; not
     * in the PS text found), RADIO fast ramp-up 40 us (MODECNF0.RU = Fast, as
     * Contiki-NG's and Nordic's 802.15.4 drivers set it), aTurnaroundTime for
     * the ACK, 8-symbol CCA; EasyDMA reads the frame from RAM as it is sent:
     * no bus transfer; no cited CPU figure per frame (the CPU account has it) */
    [SIM_PLATFORM_NRF52840]  = { 360, 40, 192, 128, 0, 0, 40.0 },
};
/* a platform's chip is radio profile platform - 1 (load_radio) */
_Static_assert(SIM_PLATFORMS == SIM_RADIO_PROFILES + 1u &&
               SIM_PLATFORM_NRF52840 == SIM_RADIO_NRF52840 + 1 &&
               SIM_PLATFORM_AT86RF233 == SIM_RADIO_AT86RF233 + 1,
               "platform k runs radio profile k - 1");
/* Indexed by enum mip_rdc_kind. */
static const char *const rdc_names[] = { "nullrdc", "contikimac", "xmac", "lpp", "leaf", "parent",
                                         NULL };

const char *sim_radio_profile_name(uint8_t profile)
{
    return profile < SIM_RADIO_PROFILES ? profile_names[profile] : "?";
}

const char *sim_platform_name(uint8_t platform)
{
    return platform < SIM_PLATFORMS ? platform_names[platform] : "?";
}

const char *sim_rdc_name(uint8_t kind)
{
    return kind < sizeof(rdc_names) / sizeof(rdc_names[0]) - 1u ? rdc_names[kind] : "?";
}

static const struct key root_keys[] = {
    K_OWN("name", "text of up to 63 bytes"),
    K_INT(SC, "seed", seed, 0, INT64_MAX, 1),
    K_NUM(SC, "duration_s", duration_s, 1e-6, 3.2e8, 60),   /* ten years */
    K_BOOL(SC, "stop_when_done", stop_when_done, true),
    { .key = "platform", .type = KT_ENUM, .flags = KF_DEF, FIELD(SC, platform),
      .names = platform_names, .def = SIM_PLATFORM_IDEAL,
      .note = "the platform's timing: start-up, CPU and bus per frame, clock drift "
              "(docs/SIMULATOR.md \"Platform timing\"); \"ideal\" has none" },
    K_OWN("phy", "object"), K_OWN("radio", "object"), K_OWN("medium", "object"),
    { .key = "topology", .type = KT_OWN, .flags = KF_REQ, .what = "object" },
    K_OWN("mac", "object"), K_OWN("link", "object"), K_OWN("routing", "object"),
    K_OWN("relay", "object"), K_OWN("flows", "array of flow objects"),
    K_OWN("services", "array of service objects"), K_OWN("border", "object"),
    K_OWN("record", "object"), K_OWN("misbehave", "array of misbehaving node objects"),
    K_OWN("security", "object"),
    K_OWN("events", "array of event objects (dynamics)"),
    K_OWN("external", "array of external node objects (ZEP, with --realtime)"),
    K_OWN("overlay", "object"),
    K_OWN("proxy", "object"),
};
static const struct table root_table = TABLE(root_keys);

/* Defaults: mip_radio_timing_default(), 802.15.4 O-QPSK 2.4 GHz. */
static const struct key phy_keys[] = {
    K_INT_L(SC, "bitrate", timing.bitrate, 1000, 100000000),
    K_INT_L(SC, "phy_header_bytes", timing.phy_hdr_bytes, 0, 64),
    K_INT_L(SC, "turnaround_us", timing.turnaround_us, 0, 65535),
    K_INT_L(SC, "cca_us", timing.cca_us, 0, 65535),
    K_INT_L(SC, "backoff_us", timing.backoff_us, 1, 65535),
    { .key = "ack_wait_us", .type = KT_INT, FIELD(SC, timing.ack_wait_us), .lo = 0, .hi = 65535,
      .note = "864 × 250000 / `bitrate` (54 symbols)" },
};
static const struct table phy_table = TABLE(phy_keys);

static bool load_phy(struct ld *l, const struct sj_value *root)
{
    struct mip_radio_timing *t = &l->sc->timing;
    const struct sj_value *o;
    if (!open_object(l, root, "phy", &phy_table, &o) || o == NULL)
        return !l->failed;
    if (!read_keys(l, o, &phy_table, l->sc))
        return false;
    if (sj_get(o, "ack_wait_us") == NULL) {
        /* macAckWaitDuration is 54 symbols = 864 us at 250 kb/s: scale it
         * with the bit rate unless the scenario says otherwise. */
        t->ack_wait_us = (uint16_t)((864.0 * 250000.0) / (double)t->bitrate + 0.5);
    }
    return true;
}

static const struct key radio_keys[] = {
    { .key = "profile", .type = KT_ENUM, .flags = KF_DEF | KF_LATER, FIELD(SC, radio_profile),
      .names = profile_names, .def = SIM_RADIO_CC2420 },
    K_NUM_L(SC, "tx_ma", radio.tx_ma, 0, 1000, "the profile's"),
    K_NUM_L(SC, "rx_ma", radio.rx_ma, 0, 1000, "the profile's"),
    K_NUM_L(SC, "listen_ma", radio.listen_ma, 0, 1000, "`rx_ma` when given, else the profile's"),
    K_NUM_L(SC, "sleep_ma", radio.off_ma, 0, 1000, "the profile's"),
    K_NUM_L(SC, "voltage", radio.voltage, 0, 100, "the profile's"),
    /* the platform's figures, one by one (docs/SIMULATOR.md "Platform timing") */
    { .key = "rx_on_us", .type = KT_INT, FIELD(SC, timing.rx_on_us), .lo = 0, .hi = 65535,
      .note = "the platform's (receiver start-up from off; 0 for \"ideal\")" },
    { .key = "frame_host_us", .type = KT_INT, FIELD(SC, timing.frame_host_us), .lo = 0,
      .hi = 65535, .note = "the platform's (host CPU time per frame sent)" },
    { .key = "bus_bps", .type = KT_INT, FIELD(SC, timing.bus_bps), .lo = 0, .hi = 4000000000,
      .note = "the platform's (host-radio SPI bit rate; 0: free)" },
    K_NUM_L(SC, "drift_ppm", drift_ppm, 0, 100000,
            "the platform's (each node's clock rate error drawn in +/- this; 0: none)"),
};
static const struct table radio_table = TABLE(radio_keys);

static bool load_radio(struct ld *l, const struct sj_value *root)
{
    const struct sj_value *o;
    struct sim_scenario *sc = l->sc;
    const struct sim_platform *p = &platforms[sc->platform];
    const struct sj_value *phy = sj_get(root, "phy");
    if (!open_object(l, root, "radio", &radio_table, &o))
        return false;
    if (o != NULL && !read_key(l, o, &radio_keys[0], sc))
        return false;
    /* a platform brings its chip's currents unless the profile is named */
    if (sc->platform != SIM_PLATFORM_IDEAL && (o == NULL || sj_get(o, "profile") == NULL))
        sc->radio_profile = (uint8_t)(sc->platform - 1u);
    sc->radio = radio_profiles[sc->radio_profile];
    if (sc->platform != SIM_PLATFORM_IDEAL) {
        sc->timing.rx_on_us = p->rx_on_us;
        sc->timing.frame_host_us = p->frame_host_us;
        sc->timing.bus_bps = p->bus_bps;
        sc->drift_ppm = p->drift_ppm;
        /* the phy keys, when given, win over the datasheet */
        if (sj_get(phy, "turnaround_us") == NULL)
            sc->timing.turnaround_us = p->turnaround_us;
        if (sj_get(phy, "cca_us") == NULL)
            sc->timing.cca_us = p->cca_us;
    }
    if (o != NULL && !read_keys(l, o, &radio_table, sc))
        return false;
    /* listening draws the receive current unless told otherwise */
    if (o != NULL && sj_get(o, "rx_ma") != NULL && sj_get(o, "listen_ma") == NULL)
        sc->radio.listen_ma = sc->radio.rx_ma;
    /* the MACs allow for the clocks' tolerance in waits a peer ends */
    sc->timing.clock_ppm = (uint16_t)(sc->drift_ppm >= 65535.0 ? 65535.0 : ceil(sc->drift_ppm));
    return true;
}

static const char *const medium_models[] = { "unit_disk", "log_distance", "prr", NULL };
static const struct key medium_keys[] = {
    K_ENUM(SC, "model", medium, medium_models, SIM_MEDIUM_UNIT_DISK),
    K_NUM(SC, "range_m", range_m, 0, 1e9, 50),
    K_NUM_L(SC, "interference_range_m", interference_range_m, 0, 1e9, "`range_m`"),
    K_NUM(SC, "ber", ber, 0, 1, 0),
    K_BOOL(SC, "ber_counts_phy_header", ber_counts_phy_header, false),
    K_NUM(SC, "tx_power_dbm", tx_power_dbm, -100, 100, 0),
    K_NUM(SC, "pl_d0_db", pl_d0_db, 0, 200, 40),        /* 2.4 GHz free space at 1 m */
    K_NUM(SC, "d0_m", d0_m, 1e-3, 1e6, 1),
    K_NUM(SC, "exponent", pl_exponent, 1, 10, 3),
    K_NUM(SC, "shadowing_db", shadowing_db, 0, 50, 4),
    K_NUM(SC, "noise_dbm", noise_dbm, -200, 0, -100),
    K_NUM(SC, "sensitivity_dbm", sensitivity_dbm, -200, 0, -95),  /* CC2420 */
    K_NUM(SC, "cca_dbm", cca_dbm, -200, 0, -77),  /* CC2420 default CCA threshold */
    K_OWN("frame_loss", "object"),
    K_NUM_L(SC, "cs_range_m", cs_range_m, 0, 1e9, "`interference_range_m`"),
    K_INT(SC, "overhear_header_bytes", overhear_header_bytes, 0, 255, 0),
};
static const struct table medium_table = TABLE(medium_keys);

/* medium.frame_loss, by enum sim_frame_kind */
static const struct key loss_keys[] = {
    K_NUM(SC, "tcp_data", frame_loss[SIM_FRAME_TCP_DATA], 0, 1, 0),
    K_NUM(SC, "tcp_ack", frame_loss[SIM_FRAME_TCP_ACK], 0, 1, 0),
    K_NUM(SC, "link_ack", frame_loss[SIM_FRAME_LINK_ACK], 0, 1, 0),
    K_NUM(SC, "other", frame_loss[SIM_FRAME_OTHER], 0, 1, 0),
};
static const struct table loss_table = TABLE(loss_keys);

static bool load_medium(struct ld *l, const struct sj_value *root)
{
    const struct sj_value *o, *fl;
    struct sim_scenario *sc = l->sc;
    if (!open_object(l, root, "medium", &medium_table, &o) || o == NULL)
        return !l->failed;
    if (!read_keys(l, o, &medium_table, sc) ||
        !open_object(l, o, "frame_loss", &loss_table, &fl) ||
        (fl != NULL && !read_keys(l, fl, &loss_table, sc)))
        return false;
    if (sj_get(o, "interference_range_m") == NULL)
        sc->interference_range_m = sc->range_m;
    if (sc->interference_range_m < sc->range_m)
        return fail(l, sj_get(o, "interference_range_m"), "a value >= range_m");
    if (sj_get(o, "cs_range_m") == NULL)
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

static const char *const topo_kinds[] = { "chain", "grid", "random", "positions", "links", NULL };
/* .kinds: the topology types that take the key (bit 1 << SIM_TOPO_*); a
 * key of another type is refused rather than ignored. */
#define TK(t) (1u << (t))
#define TK_ALL (TK(SIM_TOPO_CHAIN) | TK(SIM_TOPO_GRID) | TK(SIM_TOPO_RANDOM) | \
                TK(SIM_TOPO_POSITIONS) | TK(SIM_TOPO_LINKS))
#define TOPO_INT(k, kn, n) \
    { .key = (k), .type = KT_INT, .flags = KF_LATER | KF_LOCAL, .size = 8, .lo = 1, .hi = SIM_NODES_MAX, \
      .note = (n), .kinds = (kn) }
#define TOPO_NUM(k, kn, f) \
    { .key = (k), .type = KT_NUM, .flags = KF_DEF, FIELD(SC, f), .dlo = 0, .dhi = 1e9, .def = 0, \
      .kinds = (kn) }
#define TOPO_OWN(k, kn, w) { .key = (k), .type = KT_OWN, .what = (w), .kinds = (kn) }
static const struct key topo_keys[] = {
    { .key = "type", .type = KT_ENUM, .flags = KF_REQ, FIELD(SC, topology), .names = topo_kinds,
      .kinds = TK_ALL },
    TOPO_INT("nodes", TK(SIM_TOPO_CHAIN) | TK(SIM_TOPO_RANDOM) | TK(SIM_TOPO_LINKS),
             "*required* for chain, random, links"),
    TOPO_NUM("spacing_m", TK(SIM_TOPO_CHAIN) | TK(SIM_TOPO_GRID), spacing_m),
    TOPO_INT("rows", TK(SIM_TOPO_GRID), "*required* for grid"),
    TOPO_INT("cols", TK(SIM_TOPO_GRID), "*required* for grid"),
    TOPO_NUM("width_m", TK(SIM_TOPO_RANDOM), width_m),
    TOPO_NUM("height_m", TK(SIM_TOPO_RANDOM), height_m),
    TOPO_OWN("positions", TK(SIM_TOPO_POSITIONS), "array of [x, y] in metres"),
    TOPO_OWN("links", TK(SIM_TOPO_LINKS), "array of [a, b] or [a, b, prr]"),
    { .key = "symmetric", .type = KT_BOOL, .flags = KF_DEF, FIELD(SC, links_symmetric), .def = 1,
      .kinds = TK(SIM_TOPO_LINKS) },
};
static const struct table topo_table = TABLE(topo_keys);

/* A key of t that the object's kind (names[kind]) does not read, e.g.
 * "rows" in a chain or "sack" in a tss relay, is refused at its path rather
 * than ignored: the error names the kinds that take it (their bits in the
 * row's .kinds). `plural`, `noun` and `sel` word it: "a key of grid
 * topologies only (this topology's type is \"chain\")". */
static bool check_kind_keys(struct ld *l, const struct sj_value *o, const struct table *t,
                            const char *const *names, uint8_t kind, const char *plural,
                            const char *noun, const char *sel)
{
    char what[200];
    size_t i, j;
    for (i = 0; i < t->n; i++) {
        const struct key *k = &t->keys[i];
        size_t n = 0;
        if (sj_get(o, k->key) == NULL || (k->kinds & (1u << kind)) != 0u)
            continue;
        snprintf(what, sizeof(what), "a key of ");
        for (j = 0; names[j] != NULL; j++) {
            if ((k->kinds & (1u << j)) == 0u)
                continue;
            snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s%s",
                     n == 0 ? "" : ", ", names[j]);
            n++;
        }
        snprintf(what + strlen(what), sizeof(what) - strlen(what),
                 " %s only (this %s's %s is \"%s\")", plural, noun, sel, names[kind]);
        return fail(l, sj_get(o, k->key), what);
    }
    return true;
}

/* The node count the topology's type takes it from. */
static bool count_nodes(struct ld *l, const struct sj_value *o, int64_t *nodes)
{
    struct sim_scenario *sc = l->sc;
    const struct sj_value *v;
    int64_t rows = 0, cols = 0;
    switch (sc->topology) {
    case SIM_TOPO_GRID:
        if (!read_key(l, o, find_key(&topo_table, "rows"), &rows) ||
            !read_key(l, o, find_key(&topo_table, "cols"), &cols))
            return false;
        if (rows == 0 || cols == 0)
            return fail_missing(l, o, rows == 0 ? "rows" : "cols", "an integer >= 1");
        *nodes = rows * cols;
        if (*nodes > (int64_t)SIM_NODES_MAX)
            return fail(l, sj_get(o, "rows"), "rows * cols <= 1000000 (SIM_NODES_MAX)");
        sc->grid_cols = (uint32_t)cols;
        return true;
    case SIM_TOPO_POSITIONS:
        v = sj_get(o, "positions");
        if (v == NULL)
            return fail_missing(l, o, "positions", "an array of [x, y] in metres");
        if (!sj_is(v, SJ_ARRAY) || sj_len(v) < 1u || sj_len(v) > SIM_NODES_MAX)
            return fail(l, v, "an array of 1..1000000 [x, y] positions in metres");
        *nodes = (int64_t)sj_len(v);
        return true;
    default:
        if (sj_get(o, "nodes") == NULL)
            return fail_missing(l, o, "nodes", "an integer 1..1000000");
        return read_key(l, o, find_key(&topo_table, "nodes"), nodes);
    }
}

/* Every node's position (or, for "links", the links). */
static bool place_nodes(struct ld *l, const struct sj_value *o)
{
    struct sim_scenario *sc = l->sc;
    const struct sj_value *v;
    uint32_t i;
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

static bool load_topology(struct ld *l, const struct sj_value *root)
{
    const struct sj_value *o;
    struct sim_scenario *sc = l->sc;
    int64_t nodes = 0;
    if (!get_obj(l, root, "topology", &o, true))
        return false;
    if (!only_keys(l, o, &topo_table, 1) || !read_keys(l, o, &topo_table, sc) ||
        !check_kind_keys(l, o, &topo_table, topo_kinds, sc->topology, "topologies",
                         "topology", "type") || !count_nodes(l, o, &nodes))
        return false;
    sc->n_nodes = (uint32_t)nodes;
    sc->pos = calloc(sc->n_nodes, sizeof(*sc->pos));
    if (sc->pos == NULL)
        return fail(l, o, "fewer nodes (out of memory)");
    return place_nodes(l, o);
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
 * loader cannot disagree. "type" and "parent" are read apart. */
enum { RK_CM = 1 << MIP_RDC_CONTIKIMAC, RK_XM = 1 << MIP_RDC_XMAC, RK_LPP = 1 << MIP_RDC_LPP,
       RK_LEAF = 1 << MIP_RDC_LEAF, RK_PARENT = 1 << MIP_RDC_PARENT, RK_ALL = 0xff };
#define RDC struct mip_rdc_config
#define RDC_INT(k, kn, f, sc, l, h) \
    { .key = (k), .type = KT_INT, .kinds = (kn), FIELD(RDC, f), .scale = (sc), .lo = (l), .hi = (h) }
static const struct key rdc_keys[] = {
    { .key = "type", .type = KT_ENUM, .flags = KF_LATER, .kinds = RK_ALL, FIELD(RDC, kind),
      .names = rdc_names },
    { .key = "phase_lock", .type = KT_BOOL, .kinds = RK_CM | RK_XM, FIELD(RDC, phase_lock) },
    { .key = "parent", .type = KT_NODE, .flags = KF_LATER, .kinds = RK_LEAF, FIELD(RDC, parent) },
    RDC_INT("check_rate_hz", RK_CM | RK_XM | RK_LPP, check_rate_hz, 1, 1, 1000),
    RDC_INT("cca_count", RK_CM, cca_count, 1, 1, 8),
    RDC_INT("cca_on_us", RK_CM | RK_LPP, cca_on_us, 1, 1, 65535),
    RDC_INT("cca_gap_us", RK_CM, cca_gap_us, 1, 0, 65535),
    RDC_INT("copy_gap_us", RK_CM, copy_gap_us, 1, 0, 65535),
    RDC_INT("listen_max_us", RK_CM, listen_max_us, 1, 1, 65535),
    RDC_INT("burst_wait_us", RK_CM | RK_XM | RK_LPP, burst_wait_us, 1, 1, 65535),
    RDC_INT("burst_max_ms", RK_CM | RK_XM | RK_LPP | RK_LEAF, burst_max_us, 1000, 1,
            MIP_RDC_TIME_MAX / 1000),
    RDC_INT("burst_budget_ms", RK_CM | RK_XM | RK_LPP | RK_LEAF, burst_budget_us, 1000, 0,
            MIP_RDC_TIME_MAX / 1000),
    RDC_INT("burst_window_ms", RK_CM | RK_XM | RK_LPP | RK_LEAF, burst_window_us, 1000, 1,
            MIP_RDC_BURST_WINDOW_MAX / 1000),
    RDC_INT("phase_strobe_us", RK_CM, phase_strobe_us, 1, 1, 65535),
    RDC_INT("phase_guard_us", RK_CM, phase_guard_us, 1, 0, 65535),
    RDC_INT("phase_max_misses", RK_CM, phase_max_misses, 1, 1, 255),
    RDC_INT("on_us", RK_XM, on_us, 1, 1, 65535),
    RDC_INT("strobe_wait_us", RK_XM, strobe_wait_us, 1, 1, 65535),
    RDC_INT("strobe_ack_delay_us", RK_XM, strobe_ack_delay_us, 1, 0, 10000),
    RDC_INT("listen_us", RK_LPP, listen_us, 1, 1, 65535),
    RDC_INT("probe_backoff_us", RK_LPP, probe_backoff_us, 1, 0, 10000),
    RDC_INT("probe_jitter_us", RK_LPP, probe_jitter_us, 1, 0, 65535),
    RDC_INT("poll_ms", RK_LEAF, poll_us, 1000, 1, MIP_RDC_TIME_MAX / 1000),
    RDC_INT("poll_fast_ms", RK_LEAF, poll_fast_us, 1000, 0, MIP_RDC_TIME_MAX / 1000),
    RDC_INT("wait_us", RK_LEAF | RK_PARENT, wait_us, 1, 1, 65535),
    RDC_INT("child_timeout_ms", RK_PARENT, child_timeout_us, 1000, 1, MIP_RDC_TIME_MAX / 1000),
    RDC_INT("adapt_max_ms", RK_CM | RK_XM | RK_LPP | RK_LEAF, adapt_max_us, 1000, 0,
            MIP_RDC_TIME_MAX / 1000),
};
static const struct table rdc_table = TABLE(rdc_keys);

/* Every key of o must be one of kind's: the error lists them. */
static bool rdc_only_keys(struct ld *l, const struct sj_value *o, uint8_t kind)
{
    char path[160], list[400] = "";
    const struct key *k;
    size_t i, j;
    for (i = 0; i < sj_len(o); i++) {
        const struct sj_value *m = sj_at(o, i);
        k = find_key(&rdc_table, m->key);
        if (k != NULL && (k->kinds & (1u << kind)) != 0u)
            continue;
        for (j = 0; j < rdc_table.n; j++) {
            if ((rdc_keys[j].kinds & (1u << kind)) == 0u)
                continue;
            strncat(list, list[0] ? ", " : "", sizeof(list) - strlen(list) - 1u);
            strncat(list, rdc_keys[j].key, sizeof(list) - strlen(list) - 1u);
        }
        sj_path(m, path, sizeof(path));
        l->failed = true;
        snprintf(l->err, l->errlen, "%s: %s: unknown key for the %s RDC; its keys: %s",
                 l->fname, path, rdc_names[kind], list);
        return false;
    }
    return true;
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
        { "burst_max_ms", "1.." },
        { "burst_budget_ms", "at most burst_window_ms" },
    };
    struct mip_mac_config probe;
    enum mip_rdc_check bad;
    const struct sj_value *v;
    uint8_t kind = c->kind;
    uint32_t pid;
    if (!sj_is(o, SJ_OBJECT))
        return fail(l, o, "an object");
    if (!get_enum(l, o, "type", rdc_names, &kind, false) || !rdc_only_keys(l, o, kind))
        return false;
    if (sj_get(o, "type") != NULL) {
        mip_rdc_config_default(c, kind);
        /* On a platform a CCA's window is its RSSI average (timing.cca_us);
         * the receiver's start-up before it is paid apart (rx_on_us). The
         * default 192 us (the ContikiMAC report's Tr) stands for both. */
        if (l->sc->platform != SIM_PLATFORM_IDEAL) {
            c->cca_on_us = l->sc->timing.cca_us;
            /* clocks drift on a platform: aim a phase-locked train Contiki
             * 2.5's GUARD_TIME early, 10 CHECK_TIME + CHECK_TIME_TX with
             * CHECK_TIME = 1/8192 s (11 x 122 us) */
            c->phase_guard_us = 1343;
        }
    }
    if (!read_keys(l, o, &rdc_table, c))
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
    static const struct key keys[] = { K_OWN("ids", "array of node ids"),
                                       K_OWN("rdc", "RDC object") };
    static const struct table t = TABLE(keys);
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
        if (!only_keys(l, e, &t, 1))
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

static const char *const mac_kinds[] = { "csma_ca", "csma", "nullmac", NULL };
/* .kinds: the MAC types whose code reads the key (src/mac/csma_ca.c,
 * csma.c; nullmac reads none of them), bit 1 << MIP_MAC_*. */
#define MK(k) (1u << (k))
#define MK_ALL (MK(MIP_MAC_CSMA_CA) | MK(MIP_MAC_CSMA) | MK(MIP_MAC_NULLMAC))
#define MAC_INT(k, kn, f, l, h) \
    { .key = (k), .type = KT_INT, FIELD(SC, f), .lo = (l), .hi = (h), .kinds = (kn) }
#define MAC_BOOL(k, kn, f) { .key = (k), .type = KT_BOOL, FIELD(SC, f), .kinds = (kn) }
/* Defaults: mip_mac_config_default() for the type (docs/MAC.md). */
static const struct key mac_keys[] = {
    { .key = "type", .type = KT_ENUM, .flags = KF_DEF | KF_LATER, FIELD(SC, mac.kind),
      .names = mac_kinds, .def = MIP_MAC_CSMA_CA, .kinds = MK_ALL },
    MAC_INT("min_be", MK(MIP_MAC_CSMA_CA), mac.min_be, 0, 8),
    MAC_INT("max_be", MK(MIP_MAC_CSMA_CA), mac.max_be, 0, 8),
    MAC_INT("max_backoffs", MK(MIP_MAC_CSMA_CA) | MK(MIP_MAC_CSMA), mac.max_backoffs, 0, 255),
    /* also read by the parent RDC under any type: load_mac checks it */
    MAC_INT("max_retries", MK_ALL, mac.max_retries, 0, 15),
    MAC_INT("retry_delay_max_us", MK(MIP_MAC_CSMA_CA), mac.retry_delay_max_us, 0, 10000000),
    MAC_INT("min_periods", MK(MIP_MAC_CSMA), mac.csma_min_periods, 0, 255),
    MAC_INT("max_periods", MK(MIP_MAC_CSMA), mac.csma_max_periods, 0, 255),
    MAC_BOOL("sense_first", MK(MIP_MAC_CSMA), mac.csma_sense_first),
    MAC_BOOL("continuous_backoff", MK(MIP_MAC_CSMA), mac.csma_continuous),
    { .key = "link_acks", .type = KT_BOOL, .flags = KF_LATER, FIELD(SC, link_acks),
      .kinds = MK_ALL,
      .note = "true with csma_ca or when any node runs a duty-cycling RDC, else false" },
    MAC_BOOL("retry_on_busy", MK(MIP_MAC_CSMA_CA), mac.retry_on_busy),
    { .key = "rdc", .type = KT_OWN, .what = "RDC object (below)", .kinds = MK_ALL },
    { .key = "nodes", .type = KT_OWN, .what = "array of {\"ids\": [...], \"rdc\": {...}}",
      .kinds = MK_ALL },
};
static const struct table mac_table = TABLE(mac_keys);

/* Link retries: csma_ca's, and the parent RDC's limit on a held frame's
 * returns whatever the MAC type. Anywhere else max_retries is read by no
 * one and is refused. */
static bool check_max_retries(struct ld *l, const struct sj_value *o)
{
    const struct sim_scenario *sc = l->sc;
    bool parent = sc->mac.rdc.kind == MIP_RDC_PARENT;
    char what[160];
    uint32_t i;
    if (sj_get(o, "max_retries") == NULL || sc->mac.kind == MIP_MAC_CSMA_CA)
        return true;
    for (i = 0; sc->node_rdc != NULL && i < sc->n_nodes; i++)
        parent = parent || sc->node_rdc[i].kind == MIP_RDC_PARENT;
    if (parent)
        return true;
    snprintf(what, sizeof(what), "a key of csma_ca MACs, or of MACs with a parent RDC, only "
             "(this MAC's type is \"%s\")", mac_kinds[sc->mac.kind]);
    return fail(l, sj_get(o, "max_retries"), what);
}

static bool load_mac(struct ld *l, const struct sj_value *root)
{
    const struct sj_value *o;
    struct sim_scenario *sc = l->sc;
    bool acks_given, duty;
    uint32_t i;
    if (!open_object(l, root, "mac", &mac_table, &o) || o == NULL)
        return !l->failed;
    if (!read_key(l, o, &mac_keys[0], sc))
        return false;
    mip_mac_config_default(&sc->mac, sc->mac.kind, 0, 0, NULL);
    if (!check_kind_keys(l, o, &mac_table, mac_kinds, sc->mac.kind, "MACs", "MAC", "type") ||
        !read_keys(l, o, &mac_table, sc))
        return false;
    if (sc->mac.min_be > sc->mac.max_be)
        return fail(l, sj_get(o, "min_be"), "min_be <= max_be");
    if (sc->mac.csma_min_periods > sc->mac.csma_max_periods)
        return fail(l, sj_get(o, "min_periods"), "min_periods <= max_periods");
    if (sj_get(o, "rdc") != NULL &&
        !load_rdc(l, sj_get(o, "rdc"), &sc->mac.rdc, &l->rdc_parent_key))
        return false;
    if (sj_get(o, "nodes") != NULL && !load_mac_nodes(l, sj_get(o, "nodes")))
        return false;
    if (!check_leaves(l))
        return false;
    if (!check_max_retries(l, o))
        return false;
    /* ContikiMAC ends a unicast train at its link ACK, whatever the
     * protocol above it: ACK requests on when any node duty-cycles. */
    duty = sc->mac.rdc.kind != MIP_RDC_NULLRDC;
    for (i = 0; sc->node_rdc != NULL && i < sc->n_nodes; i++)
        duty = duty || sc->node_rdc[i].kind != MIP_RDC_NULLRDC;
    acks_given = sj_get(o, "link_acks") != NULL;
    sc->link_acks = sc->mac.kind == MIP_MAC_CSMA_CA || duty;
    if (!read_key(l, o, find_key(&mac_table, "link_acks"), sc))
        return false;
    if (acks_given && sc->link_acks && sc->mac.kind != MIP_MAC_CSMA_CA && !duty)
        return fail(l, sj_get(o, "link_acks"),
                    "false: only csma_ca or a duty-cycling rdc waits for link ACKs");
    return true;
}

static const char *const relay_modes[] = { "off", "tss", "dtc", "cctrl", NULL };
/* .kinds: the modes whose code reads the key (src/relay/tss.c, dtc.c,
 * cctrl.c and the services of core.c they call), bit 1 << MIP_RELAY_*.
 * Mode "off" takes every key (load_relay does not check it): it runs no
 * relay, and a sweep arm that sets "relay.mode" to "off" keeps the
 * parameters its other arms run with. */
#define RM(m) (1u << (m))
#define RM_TSS RM(MIP_RELAY_TSS)
#define RM_DTC RM(MIP_RELAY_DTC)
#define RM_CC RM(MIP_RELAY_CCTRL)
#define RM_ALL (RM(MIP_RELAY_OFF) | RM_TSS | RM_DTC | RM_CC)
#define RELAY_INT(k, kn, f, l, h) \
    { .key = (k), .type = KT_INT, FIELD(RC, f), .lo = (l), .hi = (h), .kinds = (kn) }
#define RELAY_Q8(k, kn, f, l, h) \
    { .key = (k), .type = KT_Q8, FIELD(RC, f), .dlo = (l), .dhi = (h), .kinds = (kn) }
#define RELAY_BOOL(k, kn, f) { .key = (k), .type = KT_BOOL, FIELD(RC, f), .kinds = (kn) }
/* Defaults: mip_relay_config_default() for the mode (docs/RELAY.md). */
#define RC struct mip_relay_config
static const struct key relay_keys[] = {
    { .key = "mode", .type = KT_ENUM, .flags = KF_REQ | KF_LATER, FIELD(RC, mode),
      .names = relay_modes, .kinds = RM_ALL },
    RELAY_INT("max_local_rexmit", RM_TSS | RM_DTC | RM_CC, max_local_rexmit, 0, 15),
    RELAY_Q8("rto_mult", RM_TSS | RM_DTC | RM_CC, rto_mult_q8, 0.25, 16),
    RELAY_Q8("alpha", RM_TSS | RM_DTC | RM_CC, alpha_q8, 1.0 / 256.0, 1),
    RELAY_INT("rtt_init_ms", RM_TSS | RM_DTC | RM_CC, rtt_init_ms, 1, 60000),
    RELAY_INT("rto_min_ms", RM_TSS | RM_DTC | RM_CC, rto_min_ms, 0, 60000),
    RELAY_INT("idle_timeout_s", RM_TSS | RM_DTC | RM_CC, idle_timeout_s, 1, 65535),
    RELAY_BOOL("backpressure", RM_TSS, tss_backpressure),
    /* ACK recovery (rly_ack_timeout) runs in TSS only */
    RELAY_Q8("ack_gamma", RM_TSS, ack_gamma_q8, 0.25, 16),
    RELAY_INT("forward_delay_ms", RM_TSS, forward_delay_ms, 0, 60000),
    RELAY_BOOL("ack_release", RM_TSS, tss_ack_release),
    RELAY_BOOL("keep", RM_CC, cc_keep),
    RELAY_BOOL("drop", RM_CC, cc_drop),
    RELAY_BOOL("hop", RM_CC, cc_hop),
    RELAY_Q8("hop_beta", RM_CC, cc_hop_beta_q8, 0.25, 16),
    RELAY_INT("hop_max", RM_CC, cc_hop_max, 1, 64),
    RELAY_BOOL("activity", RM_CC, cc_activity),
    RELAY_BOOL("link", RM_CC, cc_link),
    RELAY_BOOL("sack", RM_DTC, dtc_sack),
    RELAY_BOOL("endpoints", RM_DTC, dtc_endpoints),
    /* a TSS relay asks for no link reports (its ops have no link_status) */
    RELAY_BOOL("ack_repair", RM_DTC | RM_CC, ack_repair),
    RELAY_BOOL("ack_repair_wait", RM_DTC | RM_CC, ack_repair_wait),
};
static const struct table relay_table = TABLE(relay_keys);

static bool load_relay(struct ld *l, const struct sj_value *root)
{
    const struct sj_value *o;
    struct mip_relay_config *c = &l->sc->relay;
    if (!open_object(l, root, "relay", &relay_table, &o) || o == NULL)
        return !l->failed;
    c->mode = MIP_RELAY_OFF;
    if (!read_key(l, o, &relay_keys[0], c) ||
        (c->mode != MIP_RELAY_OFF &&
         !check_kind_keys(l, o, &relay_table, relay_modes, c->mode, "relays", "relay", "mode")))
        return false;
    mip_relay_config_default(c, c->mode);
    if (!read_keys(l, o, &relay_table, c))
        return false;
    if (c->ack_repair_wait && !c->ack_repair)
        return fail(l, sj_get(o, "ack_repair_wait"), "false while ack_repair is false");
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

static const struct key record_keys[] = {
    K_BOOL(SC, "relay_rtt", record_relay_rtt, false),
    K_BOOL(SC, "cache_hold", record_cache_hold, false),
    K_BOOL(SC, "in_flight", record_in_flight, false),
};
static const struct table record_table = TABLE(record_keys);

/* "record": what the run keeps beyond its counters (sim/record.c). */
/* "overlay": the application overlay of apps/overlay.h on every node
 * (sim/overlay.c; docs/OVERLAY.md derives the defaults). */
static const struct key overlay_keys[] = {
    K_NODE(SC, "sink", overlay.sink),
    K_INT(SC, "attr", overlay.attr, 0, 255, 1),
    K_NUM(SC, "interval_s", overlay.interval_s, 0.001, 3600, 60),
    { .key = "depth", .type = KT_INT, .flags = KF_DEF, FIELD(SC, overlay.depth), .lo = 1,
      .hi = MIP_OVL_DEPTH_MAX, .def = 8, .note = "depth * slot_ms under interval_s" },
    K_INT(SC, "slot_ms", overlay.slot_ms, 1, 65535, 500),
    K_NUM(SC, "lifetime_s", overlay.lifetime_s, 0.001, 86400, 180),
};
static const struct table overlay_table = TABLE(overlay_keys);

static bool load_overlay(struct ld *l, const struct sj_value *root)
{
    const struct sj_value *o;
    struct sim_overlay_spec *ov = &l->sc->overlay;
    if (!open_object(l, root, "overlay", &overlay_table, &o) || o == NULL)
        return !l->failed;
    ov->on = true;
    if (!read_keys(l, o, &overlay_table, l->sc))
        return false;
    if ((double)ov->depth * ov->slot_ms >= ov->interval_s * 1000.0)
        return fail(l, sj_get(o, "slot_ms") != NULL ? sj_get(o, "slot_ms") : o,
                    "depth * slot_ms under interval_s (a round's schedule ends before the next)");
    return true;
}

/* "proxy": cctrl's split-and-merge proxy (apps/cctrl_proxy.h, sim/proxy.c;
 * docs/RELAY.md "cctrl split and merge"). */
static const struct key proxy_keys[] = {
    K_OWN("nodes", "array of node ids: the nodes that take over SYNs to `port` (a client's "
          "next hop or gateway), *required*"),
    K_NODE(SC, "peer", proxy.peer),
    { .key = "port", .type = KT_INT, .flags = KF_REQ, FIELD(SC, proxy.port), .lo = 1,
      .hi = 65535, .note = "the server port whose SYNs are taken over" },
    K_INT(SC, "tunnel_port", proxy.tunnel_port, 1, 65535, 6100),
    { .key = "subflows", .type = KT_INT, .flags = KF_DEF, FIELD(SC, proxy.subflows), .lo = 1,
      .hi = MIP_CCTRL_SUBFLOWS_MAX, .def = 2, .note = "connections per stream ([B]: two)" },
    K_INT(SC, "chunk", proxy.chunk, 1, 65535, 16),
    { .key = "hold", .type = KT_INT, .flags = KF_DEF, FIELD(SC, proxy.hold), .lo = 1,
      .hi = MIP_CCTRL_PROXY_HOLD, .def = 64, .note = "merge bytes held per subflow" },
    { .key = "cwnd_cap", .type = KT_INT, .flags = KF_DEF, FIELD(SC, proxy.cwnd_cap), .lo = 0,
      .hi = 255, .def = 0, .note = "segments in flight per proxy connection (1: uIP's); 0: "
      "no cap" },
    { .key = "max_retries", .type = KT_INT, .flags = KF_DEF, FIELD(SC, proxy.max_retries),
      .lo = 0, .hi = 255, .def = 0, .note = "the proxy nodes' TCP max_retries (255: never "
      "give up); 0: the default" },
    { .key = "delayed_ack", .type = KT_BOOL, .flags = KF_DEF, FIELD(SC, proxy.delayed_ack),
      .def = true, .note = "the proxy's connections delay ACKs (uIP does not)" },
    { .key = "options", .type = KT_BOOL, .flags = KF_DEF, FIELD(SC, proxy.options),
      .def = true, .note = "the proxy's connections offer SACK and timestamps (uIP does not)" },
    { .key = "limited_transmit", .type = KT_BOOL, .flags = KF_DEF,
      FIELD(SC, proxy.limited_transmit), .def = false,
      .note = "RFC 3042 on the proxy's connections" },
    { .key = "dsack", .type = KT_BOOL, .flags = KF_DEF, FIELD(SC, proxy.dsack), .def = false,
      .note = "RFC 2883 D-SACK blocks on the proxy's connections" },
    { .key = "early_retransmit", .type = KT_BOOL, .flags = KF_DEF,
      FIELD(SC, proxy.early_retransmit), .def = false,
      .note = "RFC 5827 on the proxy's connections" },
    { .key = "tlp", .type = KT_BOOL, .flags = KF_DEF, FIELD(SC, proxy.tlp), .def = false,
      .note = "RFC 8985 tail loss probes on the proxy's connections" },
    K_NUM(SC, "setup_s", proxy.setup_s, 0.001, 2000000, 30),
    K_NUM(SC, "idle_s", proxy.idle_s, 0.001, 2000000, 120),
};
static const struct table proxy_table = TABLE(proxy_keys);

static bool load_proxy(struct ld *l, const struct sj_value *root)
{
    const struct sj_value *o, *ids;
    struct sim_proxy_spec *px = &l->sc->proxy;
    size_t j;
    if (!open_object(l, root, "proxy", &proxy_table, &o) || o == NULL)
        return !l->failed;
    px->on = true;
    if (!read_keys(l, o, &proxy_table, l->sc))
        return false;
    ids = sj_get(o, "nodes");
    if (ids == NULL)
        return fail_missing(l, o, "nodes", "an array of node ids");
    if (!sj_is(ids, SJ_ARRAY) || sj_len(ids) == 0u || sj_len(ids) > SIM_PROXY_NODES_MAX)
        return fail(l, ids, "a non-empty array of at most 64 node ids");
    for (j = 0; j < sj_len(ids); j++) {
        if (!node_at(l, sj_at(ids, j), &px->nodes[j]))
            return false;
        if (px->nodes[j] == px->peer)
            return fail(l, sj_at(ids, j), "a node other than the peer (the subflows would "
                        "start and end at the same node)");
    }
    px->n_nodes = (uint32_t)sj_len(ids);
    return true;
}

static bool load_record(struct ld *l, const struct sj_value *root)
{
    const struct sj_value *o;
    if (!open_object(l, root, "record", &record_table, &o) || o == NULL)
        return !l->failed;
    return read_keys(l, o, &record_table, l->sc);
}

/* "security": IEEE 802.15.4 link-layer security (docs/MAC.md "Link-layer
 * security"), one network key for every node, key identifier mode 1 (a
 * key index); nodes may have another key or level (an outsider, an
 * attacker without the key). Read after "mac", whose defaults it keeps. */
static const struct key security_keys[] = {
    { .key = "level", .type = KT_INT, .flags = KF_DEF, FIELD(SC, mac.sec.level), .lo = 0,
      .hi = 7, .def = 0, .note = "0: off; 1-3 MIC-32/64/128, 5-7 ENC-MIC-32/64/128; 4 (ENC "
      "without a MIC) is refused" },
    K_OWN("key", "32 hex digits: the network key, *required* with a level"),
    K_INT(SC, "key_index", mac.sec.key_index, 1, 255, 1),
    { .key = "nodes", .type = KT_OWN,
      .what = "array of {\"ids\": [...], \"key\": \"hex\", \"level\": n}: nodes with "
              "another key or level" },
};
static const struct table security_table = TABLE(security_keys);

/* 32 hex digits into key. */
static bool read_key_hex(struct ld *l, const struct sj_value *v, uint8_t key[16])
{
    const char *s = v != NULL ? sj_as_string(v, NULL) : NULL;
    unsigned i, d;
    if (s == NULL || strlen(s) != 32u)
        return fail(l, v, "a string of 32 hex digits (a 128-bit AES key)");
    for (i = 0; i < 32u; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return fail(l, v, "a string of 32 hex digits (a 128-bit AES key)");
        key[i / 2u] = (uint8_t)(i % 2u == 0u ? d << 4 : key[i / 2u] | d);
    }
    return true;
}

static bool sec_level_ok(struct ld *l, const struct sj_value *v, int64_t level)
{
    if (level == MIP_802154_SEC_ENC)
        return fail(l, v, "0-3 or 5-7 (4, encryption without a MIC, authenticates nothing)");
    return true;
}

/* security.nodes: [{ "ids": [...], "key": "hex", "level": n }, ...]. */
static bool load_security_nodes(struct ld *l, const struct sj_value *arr)
{
    static const struct key keys[] = { K_OWN("ids", "array of node ids"),
                                       K_OWN("key", "32 hex digits"),
                                       K_OWN("level", "0-3, 5-7") };
    static const struct table t = TABLE(keys);
    struct sim_scenario *sc = l->sc;
    size_t k, j;
    uint32_t i, id;
    if (!sj_is(arr, SJ_ARRAY))
        return fail(l, arr, "an array of {\"ids\": [...], \"key\": \"hex\", \"level\": n}");
    sc->node_sec = calloc(sc->n_nodes, sizeof(*sc->node_sec));
    if (sc->node_sec == NULL)
        return fail(l, arr, "fewer nodes (out of memory)");
    for (i = 0; i < sc->n_nodes; i++) {
        sc->node_sec[i].level = sc->mac.sec.level;
        memcpy(sc->node_sec[i].key, sc->mac.sec.key, 16);
    }
    for (k = 0; k < sj_len(arr); k++) {
        const struct sj_value *e = sj_at(arr, k), *ids, *v;
        struct sim_node_sec ns = { sc->mac.sec.level, { 0 } };
        int64_t level;
        memcpy(ns.key, sc->mac.sec.key, 16);
        if (!sj_is(e, SJ_OBJECT))
            return fail(l, e, "an object {\"ids\": [...], \"key\": \"hex\", \"level\": n}");
        if (!only_keys(l, e, &t, 1))
            return false;
        ids = sj_get(e, "ids");
        if (ids == NULL)
            return fail_missing(l, e, "ids", "an array of node ids");
        if (!sj_is(ids, SJ_ARRAY) || sj_len(ids) == 0u)
            return fail(l, ids, "a non-empty array of node ids");
        if ((v = sj_get(e, "level")) != NULL) {
            if (!sj_as_int64(v, &level) || level < 0 || level > 7)
                return fail(l, v, "an integer 0-7");
            if (!sec_level_ok(l, v, level))
                return false;
            ns.level = (uint8_t)level;
        }
        if ((v = sj_get(e, "key")) != NULL && !read_key_hex(l, v, ns.key))
            return false;
        if (ns.level != 0u && sc->mac.sec.level == 0u && sj_get(e, "key") == NULL)
            return fail_missing(l, e, "key", "32 hex digits (the network has no key)");
        for (j = 0; j < sj_len(ids); j++) {
            if (!node_at(l, sj_at(ids, j), &id))
                return false;
            sc->node_sec[id] = ns;
        }
    }
    return true;
}

/* A secured frame is longer: X-MAC's strobe must still fit its wake-up,
 * LPP's probe its interval (mip_mac_rdc_check with the node's security). */
static bool check_secured_rdcs(struct ld *l, const struct sj_value *o)
{
    struct sim_scenario *sc = l->sc;
    struct mip_mac_config probe = sc->mac;
    char what[200];
    uint32_t i;
    for (i = 0; i < sc->n_nodes; i++) {
        if (sc->node_rdc != NULL)
            probe.rdc = sc->node_rdc[i];
        if (sc->node_sec != NULL)
            probe.sec.level = sc->node_sec[i].level;
        if (mip_mac_rdc_check(&probe) != MIP_RDC_OK) {
            snprintf(what, sizeof(what), "a level whose aux header and MIC (%u bytes) fit node "
                     "%u's RDC timing (X-MAC: on_us >= strobe_wait_us + a secured strobe's "
                     "airtime; LPP: a secured probe and the listen within the interval)",
                     (unsigned)mip_mac_sec_overhead(&probe), i);
            return fail(l, sj_get(o, "level") != NULL ? sj_get(o, "level") : o, what);
        }
    }
    return true;
}

static bool load_security(struct ld *l, const struct sj_value *root)
{
    const struct sj_value *o;
    struct sim_scenario *sc = l->sc;
    put_defaults(&security_table, sc);
    /* no store in the simulator (nodes never reboot): one counter at a time */
    sc->mac.sec.reserve = 1;
    sc->mac.sec.key_id_mode = MIP_802154_KEY_INDEX;
    if (!open_object(l, root, "security", &security_table, &o) || o == NULL)
        return !l->failed;
    if (!read_keys(l, o, &security_table, sc) ||
        !sec_level_ok(l, sj_get(o, "level"), sc->mac.sec.level))
        return false;
    if (sj_get(o, "key") != NULL && !read_key_hex(l, sj_get(o, "key"), sc->mac.sec.key))
        return false;
    if (sc->mac.sec.level != 0u && sj_get(o, "key") == NULL)
        return fail_missing(l, o, "key", "32 hex digits: the network key");
    if (sj_get(o, "nodes") != NULL && !load_security_nodes(l, sj_get(o, "nodes")))
        return false;
    return check_secured_rdcs(l, o);
}

static const char *const link_modes[] = { "iphc", "raw", NULL };
static const char *const link_ips[] = { "ipv6", "ipv4", NULL };
static const char *const link_frags[] = { "reassemble", "forward", NULL };
static const char *const link_addressings[] = { "static", "6lowpan-nd", "spatial", NULL };
static const char *const spatial_maps[] = { "xy", "morton", NULL };
static const char *const link_udp_cksums[] = { "carry", "elide", NULL };
static const struct key link_keys[] = {
    K_ENUM(SC, "mode", link_mode, link_modes, MIP_LOWPAN_IPHC),
    K_ENUM(SC, "ip", ipv4, link_ips, 0),
    K_INT(SC, "header_bytes", link_hdr_bytes, 12, 64, 12),
    K_INT(SC, "frame_max", frame_max, 32, MIP_RADIO_FRAME_MAX + 2, 127),
    { .key = "prefix", .type = KT_OWN, .what = "IPv6 /64 prefix as text", .note = "\"fd00::/64\"" },
    K_ENUM(SC, "fragments", frag_mode, link_frags, MIP_LOWPAN_FRAG_REASSEMBLE),
    K_INT(SC, "frag_gap_us", frag_gap_us, 0, 65535, 0),
    K_ENUM(SC, "addressing", addressing, link_addressings, SIM_ADDR_STATIC),
    /* addressing "spatial" only (docs/GEO.md): the position's cell as the
     * address's low octets, (x, y) as the thesis does or a Morton code */
    K_ENUM(SC, "spatial_map", spatial_map, spatial_maps, MIP_SPATIAL_XY),
    K_NUM(SC, "spatial_cell_m", spatial_cell_m, 0.01, 1000.0, 1.0),
    K_BOOL(SC, "short_addresses", short_addresses, true),
    /* shared-context UDP compression (docs/LOWPAN.md, issue 26) */
    K_ENUM(SC, "udp_checksum", udp_cksum_elide, link_udp_cksums, 0),
    K_INT(SC, "udp_shared_port_src", udp_shared_ports[0], 0, 65535, 0),
    K_INT(SC, "udp_shared_port_dst", udp_shared_ports[1], 0, 65535, 0),
    K_BOOL(SC, "tcp_hc", tcp_hc, false),
};
static const struct table link_table = TABLE(link_keys);

/* RFC 6282 s.4.3.2: a checksum is elided only where something else covers
 * the datagram: here a link-layer MIC on every node's frames. */
static bool check_udp_hc(struct ld *l, const struct sj_value *o)
{
    struct sim_scenario *sc = l->sc;
    bool one = (sc->udp_shared_ports[0] == 0u) != (sc->udp_shared_ports[1] == 0u);
    if ((sc->udp_cksum_elide || sc->udp_shared_ports[0] != 0u || sc->tcp_hc) &&
        sc->link_mode != MIP_LOWPAN_IPHC)
        return fail(l, sj_get(o, sc->tcp_hc ? "tcp_hc" : sc->udp_cksum_elide ? "udp_checksum"
                                                                              : "udp_shared_port_src"),
                    "its default with mode \"raw\" (IPHC compresses the headers)");
    if (one)
        return fail(l, sj_get(o, sc->udp_shared_ports[0] != 0u ? "udp_shared_port_src"
                                                               : "udp_shared_port_dst"),
                    "udp_shared_port_src and udp_shared_port_dst both, or neither");
    if (sc->udp_cksum_elide) {
        bool mic = sc->mac.sec.level != 0u && sc->mac.sec.level != 4u;
        uint32_t i;
        for (i = 0; mic && sc->node_sec != NULL && i < sc->n_nodes; i++)
            mic = sc->node_sec[i].level != 0u && sc->node_sec[i].level != 4u;
        if (!mic)
            return fail(l, sj_get(o, "udp_checksum"),
                        "\"carry\" unless every node's frames carry a MIC (security.level 1-3 "
                        "or 5-7; RFC 6282 s.4.3.2)");
    }
    return true;
}

static bool load_link(struct ld *l, const struct sj_value *root)
{
    const struct sj_value *o;
    struct sim_scenario *sc = l->sc;
    if (!open_object(l, root, "link", &link_table, &o) || o == NULL)
        return !l->failed;
    if (!read_keys(l, o, &link_table, sc))
        return false;
    if (sc->frag_gap_us != 0u && sc->frag_mode != MIP_LOWPAN_FRAG_FORWARD)
        return fail(l, sj_get(o, "frag_gap_us"), "0 unless fragments is \"forward\"");
    if (sc->frag_mode != MIP_LOWPAN_FRAG_REASSEMBLE && sc->link_mode != MIP_LOWPAN_IPHC)
        return fail(l, sj_get(o, "fragments"), "\"reassemble\" with mode \"raw\" (no 6LoWPAN fragments)");
    if (sc->ipv4 && sc->link_mode != MIP_LOWPAN_RAW_IP)
        return fail(l, sj_get(o, "ip"), "\"ipv6\" with mode \"iphc\" (6LoWPAN carries IPv6)");
    if (sc->addressing != SIM_ADDR_SPATIAL && sj_get(o, "spatial_map") != NULL)
        return fail(l, sj_get(o, "spatial_map"), "a key of addressing \"spatial\" only");
    if (sc->addressing != SIM_ADDR_SPATIAL && sj_get(o, "spatial_cell_m") != NULL)
        return fail(l, sj_get(o, "spatial_cell_m"), "a key of addressing \"spatial\" only");
    if (sc->addressing == SIM_ADDR_SPATIAL && sc->link_mode != MIP_LOWPAN_IPHC)
        return fail(l, sj_get(o, "addressing"), "not \"spatial\" with mode \"raw\" (needs iphc)");
    if (sc->addressing == SIM_ADDR_ND6LO && sc->link_mode != MIP_LOWPAN_IPHC)
        return fail(l, sj_get(o, "addressing"), "\"static\" with mode \"raw\" (6LoWPAN-ND needs iphc)");
    if (!check_udp_hc(l, o))
        return false;
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

static const char *const routing_kinds[] = { "shortest", "static", "rpl", "geo", NULL };
static const char *const routing_metrics[] = { "hops", "etx", NULL };
/* rpl: the modes (enum sim_rpl_mode) and OFs (index = OCP, RFC 6552/6719) */
static const char *const rpl_modes[] = { "non-storing", "storing", NULL };
static const char *const rpl_ofs[] = { "of0", "mrhof", NULL };
#define RPL_KEY_FIRST "mode"
#define GEO_KEY_FIRST "beacon_s"
static const struct key routing_keys[] = {
    K_ENUM(SC, "type", routing, routing_kinds, SIM_ROUTING_SHORTEST),
    K_ENUM(SC, "metric", metric, routing_metrics, SIM_METRIC_HOPS),
    K_BOOL(SC, "symmetric", routes_symmetric, true),
    K_OWN("routes", "array of {node, dst, via} (static, where it is *required*)"),
    { .key = "repair_delay_s", .type = KT_NUM, .flags = KF_DEF, FIELD(SC, repair_delay_s),
      .dlo = 0, .dhi = 1e7, .def = 0,
      .note = "shortest only: routes computed again this long after each event" },
    /* rpl only (load_routing refuses them with another type); defaults
     * RFC 6550 17, mip_rpl_config_default (docs/RPL.md) */
    K_ENUM(SC, "mode", rpl_mode, rpl_modes, SIM_RPL_NON_STORING),
    K_ENUM(SC, "of", rpl.ocp, rpl_ofs, MIP_RPL_OCP_MRHOF),
    K_INT(SC, "root", rpl_root, 0, 65535, 0),
    K_INT(SC, "dio_interval_min", rpl.dio_int_min, 0, 30, MIP_RPL_DEFAULT_DIO_INT_MIN),
    K_INT(SC, "dio_interval_doublings", rpl.dio_int_doublings, 0, 30,
          MIP_RPL_DEFAULT_DIO_INT_DOUBLINGS),
    K_INT(SC, "dio_redundancy", rpl.dio_redundancy, 0, 255, MIP_RPL_DEFAULT_DIO_REDUNDANCY),
    K_INT(SC, "min_hop_rank_increase", rpl.min_hop_rank_inc, 1, 65535,
          MIP_RPL_DEFAULT_MIN_HOP_RANK_INC),
    K_INT(SC, "max_rank_increase", rpl.max_rank_inc, 0, 65535,
          7 * MIP_RPL_DEFAULT_MIN_HOP_RANK_INC),
    K_INT(SC, "dis_delay_ms", rpl.dis_delay_ms, 1, 3600000, 1000),
    K_INT(SC, "parent_timeout_ms", rpl.parent_timeout_ms, 0, 86400000, 0),
    /* geo only (docs/GEO.md): GPSR's beacon interval B, the neighbour
     * timeout (0: GPSR's 4.5 B), the regional broadcast's duplicate memory */
    K_NUM(SC, "beacon_s", geo_beacon_s, 0.1, 3600.0, 10.0),
    K_NUM(SC, "neighbour_timeout_s", geo_timeout_s, 0.0, 86400.0, 0.0),
    K_NUM(SC, "broadcast_memory_s", geo_seen_s, 0.0, 3600.0, 10.0),
    K_INT(SC, "rebroadcast_jitter_ms", geo_jitter_ms, 0, 60000, 20),
    K_BOOL(SC, "perimeter", geo_perimeter, true),
};
static const struct table routing_table = TABLE(routing_keys);

static const struct key route_keys[] = {
    K_NODE(struct sim_static_route, "node", node),
    K_NODE(struct sim_static_route, "dst", dst),
    K_NODE(struct sim_static_route, "via", via),
};
static const struct table route_table = TABLE(route_keys);

static bool load_routing(struct ld *l, const struct sj_value *root)
{
    const struct sj_value *o, *arr;
    struct sim_scenario *sc = l->sc;
    size_t k;
    if (!open_object(l, root, "routing", &routing_table, &o))
        return false;
    if (o == NULL && sc->addressing == SIM_ADDR_SPATIAL)
        return fail_missing(l, root, "routing", "{\"type\": \"geo\"} with link.addressing "
                                                "\"spatial\"");
    if (o == NULL)
        return true;
    if (!read_keys(l, o, &routing_table, sc))
        return false;
    /* the rpl keys (from "mode" on) are read by rpl only, geo's by geo */
    for (k = (size_t)(find_key(&routing_table, RPL_KEY_FIRST) - routing_table.keys);
         k < routing_table.n; k++) {
        bool geo_key = k >= (size_t)(find_key(&routing_table, GEO_KEY_FIRST) - routing_table.keys);
        if (sj_get(o, routing_table.keys[k].key) == NULL ||
            sc->routing == (geo_key ? SIM_ROUTING_GEO : SIM_ROUTING_RPL))
            continue;
        return fail(l, sj_get(o, routing_table.keys[k].key),
                    geo_key ? "a key of routing type geo only" : "a key of routing type rpl only");
    }
    if ((sc->routing == SIM_ROUTING_GEO) != (sc->addressing == SIM_ADDR_SPATIAL))
        return fail(l, sj_get(o, "type"), sc->routing == SIM_ROUTING_GEO
                                              ? "geo needs link.addressing \"spatial\""
                                              : "geo with link.addressing \"spatial\" (the other "
                                                "routing types use the node ids' addresses)");
    if (sc->routing == SIM_ROUTING_GEO && sc->topology == SIM_TOPO_LINKS)
        return fail(l, sj_get(o, "type"), "geo needs node positions (not topology \"links\")");
    if (sc->routing == SIM_ROUTING_RPL) {
        if (sc->rpl_root >= sc->n_nodes)
            return fail(l, sj_get(o, "root"), "a node id below topology's node count");
        if (sc->ipv4)
            return fail(l, sj_get(o, "type"), "no rpl with ip \"ipv4\" (RPL is IPv6)");
        if (sc->link_mode != MIP_LOWPAN_IPHC)
            return fail(l, sj_get(o, "type"), "rpl needs link.mode \"iphc\"");
    }
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
            if (!only_keys(l, r, &route_table, 1) || !read_keys(l, r, &route_table, &sc->routes[k]))
                return false;
        }
    } else if (arr != NULL) {
        return fail(l, arr, "no \"routes\" unless type is \"static\"");
    }
    if (sc->routing != SIM_ROUTING_SHORTEST && sj_get(o, "repair_delay_s") != NULL)
        return fail(l, sj_get(o, "repair_delay_s"), "a key of shortest routing only (the "
                    "other types do not compute routes)");
    return true;
}

#define EP struct sim_tcp_endpoint
static const char *const endpoint_profiles[] = { "full", "tiny", NULL };
static const struct key endpoint_keys[] = {
    { .key = "profile", .type = KT_ENUM, .flags = KF_DEF | KF_LATER, FIELD(EP, tiny),
      .names = endpoint_profiles, .def = 0 },
    K_INT(EP, "cwnd_cap", cwnd_cap, 0, 255, 0),
    { .key = "sack", .type = KT_BOOL, .flags = KF_DEF, FIELD(EP, sack), .def = true,
      .note = "false with profile \"tiny\"" },
    { .key = "timestamps", .type = KT_BOOL, .flags = KF_DEF, FIELD(EP, timestamps), .def = true,
      .note = "false with profile \"tiny\"" },
    K_BOOL(EP, "nodelay", nodelay, false),
    { .key = "limited_transmit", .type = KT_BOOL, .flags = KF_DEF, FIELD(EP, limited_transmit),
      .def = false, .note = "RFC 3042 (the stack's default is on; off here, the TCP the "
      "reproductions were measured with)" },
    { .key = "dsack", .type = KT_BOOL, .flags = KF_DEF, FIELD(EP, dsack), .def = false,
      .note = "RFC 2883 D-SACK blocks, with sack (the stack's default is on; off here, as "
      "limited_transmit)" },
    { .key = "early_retransmit", .type = KT_BOOL, .flags = KF_DEF, FIELD(EP, early_retransmit),
      .def = false, .note = "RFC 5827 early retransmit, with sack (the stack's default is on; "
      "off here, as limited_transmit)" },
    { .key = "tlp", .type = KT_BOOL, .flags = KF_DEF, FIELD(EP, tlp), .def = false,
      .note = "RFC 8985 tail loss probes, with sack (the stack's default is on; off here, as "
      "limited_transmit)" },
    { .key = "delayed_ack", .type = KT_BOOL, .flags = KF_LATER | KF_LOCAL, .size = 1,
      .note = "true" },
    K_INT(EP, "delack_ms", delack_ms, 0, 500, MIP_TCP_DELACK_MS),
    K_INT(EP, "cwnd_hold_backlog", cwnd_hold_backlog, 0, 255, 0),
    { .key = "max_retries", .type = KT_INT, .flags = KF_DEF, FIELD(EP, max_retries), .lo = 1,
      .hi = 255, .def = 0, .note = "the stack's; a sensor flow's sender 12" },
    K_INT(EP, "rto_min_ms", rto_min_ms, 0, 60000, 0),
};
static const struct table endpoint_table = TABLE(endpoint_keys);

static bool load_endpoint(struct ld *l, const struct sj_value *flow, const char *key,
                          struct sim_tcp_endpoint *e)
{
    const struct sj_value *o;
    bool delayed = true;
    if (!open_object(l, flow, key, &endpoint_table, &o) || o == NULL)
        return !l->failed;
    if (!read_key(l, o, &endpoint_keys[0], e))
        return false;
    if (e->tiny) {
        e->sack = false;
        e->timestamps = false;
    }
    if (!read_keys(l, o, &endpoint_table, e) ||
        !read_key(l, o, find_key(&endpoint_table, "delayed_ack"), &delayed))
        return false;
    if (!delayed)
        e->delack_ms = 0;
    if (e->tiny && (e->sack || e->timestamps))
        return fail(l, sj_get(o, e->sack ? "sack" : "timestamps"),
                    "false with profile \"tiny\" (it has neither SACK nor timestamps)");
    return true;
}

/* Flows: the keys every flow takes, then those of each type. */
#define FS struct sim_flow_spec
static const char *const flow_kinds[] = { "tcp", "udp", "ping", "sensor", NULL };
static const struct key flow_keys[] = {
    { .key = "type", .type = KT_ENUM, .flags = KF_REQ | KF_LATER, FIELD(FS, kind),
      .names = flow_kinds },
    K_NODE(FS, "src", src),
    K_NODE(FS, "dst", dst),
    /* 7000s: no port Wireshark gives to a dissector (5000 is gsm_ipa's);
     * UDP reporters share the sink's port, which demuxes by source */
    { .key = "port", .type = KT_INT, FIELD(FS, port), .lo = 1, .hi = 65535,
      .note = "7400 + the flow's index (tcp, sensor); 6000 (udp)" },
    K_NUM(FS, "start_s", start_s, 0, 1e7, 0),
};
/* tx_buffer down to 16: a send buffer under the MSS (which TCP keeps at 64
 * or more) makes smaller segments, e.g. cctrl's 16-byte ones (uIP's client
 * writes one string per poll) */
static const struct key tcp_flow_keys[] = {
    K_LOCAL_INT("bytes", 1, INT64_MAX / 2, "exactly one of `bytes`, `segments`, `duration_s`"),
    K_LOCAL_INT("segments", 1, 100000000, "with `segment_bytes`"),
    K_LOCAL_INT("segment_bytes", 1, 65535, "with `segments` (≥ 64; it sets the MSS)"),
    K_NUM(FS, "duration_s", duration_s, 1e-6, 1e7, 0),
    { .key = "mss", .type = KT_INT, .flags = KF_DEF, FIELD(FS, mss), .lo = 64, .hi = 65535,
      .def = 0, .note = "from the path MTU" },
    K_INT(FS, "tx_buffer", tx_buffer, 16, 65535, 2048),
    K_INT(FS, "rx_buffer", rx_buffer, 64, 65535, 2048),
    { .key = "merge_group", .type = KT_INT, .flags = KF_DEF, FIELD(FS, merge_group), .lo = 0,
      .hi = 255, .def = 0, .note = "0: none; tcp flows of one group (same src, dst; 2..4) carry "
      "one stream split and merged as cctrl's [B] 4.5.1, in chunks of tx_buffer bytes" },
    { .key = "merge_buffer", .type = KT_INT, .flags = KF_DEF, FIELD(FS, merge_buffer), .lo = 1,
      .hi = 65535, .def = 64, .note = "the merge's hold-back bytes per connection ([B]: "
      "\"space for just a few packets\": 4 of cctrl's 16-byte segments)" },
    K_OWN("sender", "endpoint object"),
    K_OWN("receiver", "endpoint object"),
};
static const struct key udp_flow_keys[] = {
    K_NUM(FS, "interval_s", interval_s, 1e-3, 1e7, 1),
    { .key = "count", .type = KT_INT, .flags = KF_DEF, FIELD(FS, count), .lo = 0,
      .hi = 100000000, .def = 0, .note = "until the end" },
    K_INT(FS, "payload_bytes", payload_bytes, 12, 1232, 32),
    /* geo (docs/GEO.md): to the regional broadcast address of dst's region */
    { .key = "region_bits", .type = KT_INT, FIELD(FS, region_bits), .lo = 0, .hi = 16,
      .note = "none: to dst itself" },
};
/* count: the ICMP sequence number is 16 bits; payload: the first 8 bytes
 * carry the send time, and 1232 fills the IPv6 minimum MTU (40 + 8 + 1232
 * = 1280) */
static const struct key ping_flow_keys[] = {
    K_NUM(FS, "interval_s", interval_s, 1e-3, 1e7, 1),
    K_INT(FS, "count", count, 0, 65535, 10),
    K_INT(FS, "payload_bytes", payload_bytes, 8, 1232, 16),
};
/* A sensor flow (TCPlp s.9, sim/sensor.c). Defaults from the paper: 82-byte
 * readings every second, a 64-reading queue for TCP and 104 for CoAP ("an
 * additional 40 readings fit in TCP's send buffer": 40 * 82 B), batches of
 * 64, segments and CoAP messages of five frames (MSS 408 B, RIOT's figure
 * for five frames), TCP giving up after 12 retransmissions, Contiki's CoAP
 * ACK_TIMEOUT of 3 s. */
static const char *const sensor_transports[] = { "tcp", "coap", "cocoa", NULL };
static const struct key sensor_flow_keys[] = {
    { .key = "transport", .type = KT_ENUM, .flags = KF_DEF | KF_LATER, FIELD(FS, transport),
      .names = sensor_transports, .def = SIM_SENSOR_TCP },
    K_INT(FS, "reading_bytes", reading_bytes, 12, 255, 82),
    K_NUM(FS, "interval_s", interval_s, 1e-3, 1e7, 1),
    { .key = "count", .type = KT_INT, .flags = KF_DEF, FIELD(FS, count), .lo = 0,
      .hi = 100000000, .def = 0, .note = "until the end" },
    K_INT(FS, "batch", batch, 1, 65535, 64),
    { .key = "queue", .type = KT_INT, .flags = KF_DEF, FIELD(FS, queue), .lo = 1, .hi = 65535,
      .def = 64, .note = "104 with coap or cocoa" },
    K_INT(FS, "coap_payload", coap_payload, 32, 65535, 408),
    K_INT(FS, "coap_ack_timeout_ms", coap_ack_timeout_ms, 100, 60000, 3000),
    K_NUM(FS, "loss", loss, 0.0, 0.9, 0),
    K_NUM(FS, "drain_s", drain_s, 0.0, 1e6, 120),
    K_INT(FS, "mss", mss, 64, 65535, 408),
    K_INT(FS, "tx_buffer", tx_buffer, 16, 65535, 40 * 82),
    K_INT(FS, "rx_buffer", rx_buffer, 64, 65535, 40 * 82),
    K_OWN("sender", "endpoint object"),
    K_OWN("receiver", "endpoint object"),
};
/* Every key of a flow, in the order its errors list them. */
static const struct table flow_tables[] = {
    TABLE(flow_keys), TABLE(tcp_flow_keys), TABLE(udp_flow_keys), TABLE(sensor_flow_keys),
};
enum { FT_ANY, FT_TCP, FT_UDP, FT_SENSOR };
static const struct table ping_table = TABLE(ping_flow_keys);

/* A flow of `kind`, index k, before its keys are read. */
static void flow_defaults(struct sim_flow_spec *f, uint8_t kind, size_t k)
{
    put_defaults(&flow_tables[FT_ANY], f);
    put_defaults(&flow_tables[FT_TCP], f);
    put_defaults(&flow_tables[FT_UDP], f);
    put_defaults(&endpoint_table, &f->sender);
    put_defaults(&endpoint_table, &f->receiver);
    f->kind = kind;
    f->region_bits = -1;
    f->port = (uint16_t)(7400u + k);
    if (kind == SIM_FLOW_UDP)
        f->port = 6000u;
    if (kind == SIM_FLOW_PING) {
        f->port = 0;            /* ICMP: no port */
        put_defaults(&ping_table, f);
    }
    if (kind == SIM_FLOW_SENSOR) {
        put_defaults(&flow_tables[FT_SENSOR], f);
        f->sender.max_retries = 12;
    }
}

/* The keys of other flow types this one has: sensor keys outside sensor
 * flows, and a ping flow's port or TCP keys. */
static bool check_flow_kind_keys(struct ld *l, const struct sj_value *o, uint8_t kind)
{
    const struct table *s = &flow_tables[FT_SENSOR];
    char what[160];
    size_t i, t;
    for (i = 0; kind != SIM_FLOW_SENSOR && i < s->n; i++) {
        const char *key = s->keys[i].key;
        if (sj_get(o, key) != NULL && find_key(&flow_tables[FT_ANY], key) == NULL &&
            find_key(&flow_tables[FT_TCP], key) == NULL &&
            find_key(&flow_tables[FT_UDP], key) == NULL)
            return fail(l, sj_get(o, key), "a key of sensor flows only "
                        "(this flow's type is not \"sensor\")");
    }
    for (t = FT_ANY; kind == SIM_FLOW_PING && t <= FT_TCP; t++) {
        for (i = 0; i < flow_tables[t].n; i++) {
            const char *key = flow_tables[t].keys[i].key;
            if (sj_get(o, key) == NULL || (t == FT_ANY && strcmp(key, "port") != 0))
                continue;
            snprintf(what, sizeof(what), "no \"%s\" in a ping flow (it takes src, dst, "
                     "interval_s, count, payload_bytes, start_s)", key);
            return fail(l, sj_get(o, key), what);
        }
    }
    return true;
}

/* The keys of tcp flows that a udp or sensor flow does not take (own: its
 * table) and its own check did not name, e.g. "segment_bytes" in a sensor
 * flow or "mss" in a udp flow: refused at their path, not ignored. */
static bool check_tcp_only_keys(struct ld *l, const struct sj_value *o, const struct table *own,
                                uint8_t kind)
{
    const struct table *t = &flow_tables[FT_TCP];
    char what[160];
    size_t i;
    for (i = 0; i < t->n; i++) {
        const char *key = t->keys[i].key;
        if (sj_get(o, key) == NULL || find_key(own, key) != NULL)
            continue;
        snprintf(what, sizeof(what), "a key of tcp%s flows only (this flow's type is \"%s\")",
                 find_key(&flow_tables[FT_SENSOR], key) != NULL ? " and sensor" : "",
                 flow_kinds[kind]);
        return fail(l, sj_get(o, key), what);
    }
    return true;
}

static bool load_tcp_flow(struct ld *l, const struct sj_value *o, struct sim_flow_spec *f)
{
    const struct table *t = &flow_tables[FT_TCP];
    int64_t segments = 0, seg_bytes = 0, bytes = 0;
    int given;
    if (!read_key(l, o, find_key(t, "bytes"), &bytes) ||
        !read_key(l, o, find_key(t, "segments"), &segments) ||
        !read_key(l, o, find_key(t, "segment_bytes"), &seg_bytes) || !read_keys(l, o, t, f))
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
    if (seg_bytes > 0) {
        if (sj_get(o, "mss") != NULL)
            return fail(l, sj_get(o, "mss"), "no \"mss\" with \"segment_bytes\" (it sets the MSS)");
        if (seg_bytes < 64)
            return fail(l, sj_get(o, "segment_bytes"), "at least 64 bytes");
        f->mss = (uint16_t)seg_bytes;
    }
    if (!load_endpoint(l, o, "sender", &f->sender) ||
        !load_endpoint(l, o, "receiver", &f->receiver))
        return false;
    if (sj_get(o, "interval_s") || sj_get(o, "count") || sj_get(o, "payload_bytes"))
        return fail(l, o, "no UDP keys (interval_s, count, payload_bytes) in a tcp flow");
    return true;
}

static bool load_udp_flow(struct ld *l, const struct sj_value *o, struct sim_flow_spec *f)
{
    if (!read_keys(l, o, &flow_tables[FT_UDP], f))
        return false;
    if (sj_get(o, "bytes") || sj_get(o, "segments") || sj_get(o, "sender") ||
        sj_get(o, "receiver") || sj_get(o, "duration_s"))
        return fail(l, o, "no TCP keys (bytes, segments, duration_s, sender, receiver) "
                          "in a udp flow");
    if (sj_get(o, "region_bits") != NULL && l->sc->routing != SIM_ROUTING_GEO)
        return fail(l, sj_get(o, "region_bits"), "a key of routing type geo only");
    return check_tcp_only_keys(l, o, &flow_tables[FT_UDP], SIM_FLOW_UDP);
}

static bool load_ping_flow(struct ld *l, const struct sj_value *o, struct sim_flow_spec *f,
                           size_t k)
{
    if (!read_keys(l, o, &ping_table, f))
        return false;
    if (k > 65535u)     /* the flow index is the ICMP identifier */
        return fail(l, o, "a ping flow among the first 65536 flows");
    return true;
}

static bool load_sensor_flow(struct ld *l, const struct sj_value *o, struct sim_flow_spec *f)
{
    const struct table *t = &flow_tables[FT_SENSOR];
    if (!read_key(l, o, &t->keys[0], f))
        return false;
    if (f->transport != SIM_SENSOR_TCP)
        f->queue = 104;         /* 64 + the 40 readings TCP's send buffer holds */
    if (!read_keys(l, o, t, f))
        return false;
    if (f->batch > f->queue)
        return fail(l, sj_get(o, sj_get(o, "queue") != NULL ? "queue" : "batch"),
                    "a batch no larger than the queue");
    if (f->coap_payload < 16u + f->reading_bytes)
        return fail(l, sj_get(o, "coap_payload"), "room for one reading and 16 bytes of CoAP header");
    if (!load_endpoint(l, o, "sender", &f->sender) || !load_endpoint(l, o, "receiver", &f->receiver))
        return false;
    if (sj_get(o, "bytes") || sj_get(o, "segments") || sj_get(o, "duration_s") ||
        sj_get(o, "payload_bytes"))
        return fail(l, o, "no bytes, segments, duration_s or payload_bytes in a sensor flow "
                          "(it sends readings: count, interval_s, reading_bytes)");
    return check_tcp_only_keys(l, o, &flow_tables[FT_SENSOR], SIM_FLOW_SENSOR);
}

static bool is_tcp_flow(const struct sim_flow_spec *f)
{
    return f->kind == SIM_FLOW_TCP || (f->kind == SIM_FLOW_SENSOR && f->transport == SIM_SENSOR_TCP);
}

static bool load_flows(struct ld *l, const struct sj_value *root)
{
    const struct sj_value *arr = sj_get(root, "flows");
    struct sim_scenario *sc = l->sc;
    size_t k, j, n;
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
        bool ok;
        if (!sj_is(o, SJ_OBJECT))
            return fail(l, o, "a flow object");
        if (!only_keys(l, o, flow_tables, sizeof(flow_tables) / sizeof(flow_tables[0])) ||
            !read_key(l, o, &flow_keys[0], f) || !check_flow_kind_keys(l, o, f->kind))
            return false;
        flow_defaults(f, f->kind, k);
        if (!read_keys(l, o, &flow_tables[FT_ANY], f))
            return false;
        if (f->src == f->dst)
            return fail(l, sj_get(o, "dst"), "a node other than src");
        switch (f->kind) {
        case SIM_FLOW_TCP:
            ok = load_tcp_flow(l, o, f);
            break;
        case SIM_FLOW_PING:
            ok = load_ping_flow(l, o, f, k);
            break;
        case SIM_FLOW_SENSOR:
            ok = load_sensor_flow(l, o, f);
            break;
        default:
            ok = load_udp_flow(l, o, f);
            break;
        }
        if (!ok)
            return false;
    }
    /* two TCP flows may not listen on the same (node, port) */
    for (k = 0; k < n; k++)
        for (j = 0; j < k; j++)
            if (is_tcp_flow(&sc->flows[k]) && is_tcp_flow(&sc->flows[j]) &&
                sc->flows[k].dst == sc->flows[j].dst && sc->flows[k].port == sc->flows[j].port)
                return fail(l, sj_at(arr, k), "a port not used by an earlier tcp flow to the same node");
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

static const char *const border_kinds[] = { "tun", "tap", NULL };
static const struct key border_keys[] = {
    K_NODE(struct sim_border_spec, "node", node),
    { .key = "device", .type = KT_OWN, .flags = KF_REQ,
      .what = "name of a TUN or TAP device on the host" },
    K_ENUM(struct sim_border_spec, "type", kind, border_kinds, SIM_BORDER_TUN),
    { .key = "address", .type = KT_OWN, .flags = KF_REQ,
      .what = "the router's IPv6 address/prefix on the host link" },
    { .key = "routes", .type = KT_OWN, .what = "array of {\"dst\": PREFIX, \"via\": ADDRESS}",
      .note = "[{\"dst\": \"::/0\"}]" },
    { .key = "reach", .type = KT_OWN, .what = "array of node ids",
      .note = "every node with a path to the border router (with routing rpl: none, every "
              "node that joined)" },
};
static const struct table border_table = TABLE(border_keys);
static const struct key border_route_keys[] = {
    { .key = "dst", .type = KT_OWN, .flags = KF_REQ, .what = "prefix, e.g. \"::/0\"" },
    { .key = "via", .type = KT_OWN, .what = "IPv6 address on the host link", .note = "on-link" },
};
static const struct table border_route_table = TABLE(border_route_keys);

/* border.routes: the routes towards the host; none may overlap the mesh's
 * prefix (`what` says so), a next hop must be on the host link. */
static bool load_border_routes(struct ld *l, const struct sj_value *arr,
                               struct sim_border_spec *b, const struct mip_addr *mesh,
                               const char *what)
{
    size_t k;
    if (!sj_is(arr, SJ_ARRAY) || sj_len(arr) > SIM_BORDER_ROUTES_MAX)
        return fail(l, arr, "an array of at most 8 {\"dst\": PREFIX, \"via\": ADDRESS}");
    b->n_routes = (uint8_t)sj_len(arr);
    for (k = 0; k < b->n_routes; k++) {
        struct sim_border_route *r = &b->routes[k];
        const struct sj_value *e = sj_at(arr, k), *d;
        if (!sj_is(e, SJ_OBJECT))
            return fail(l, e, "an object {\"dst\": PREFIX, \"via\": ADDRESS}");
        if (!only_keys(l, e, &border_route_table, 1))
            return false;
        d = sj_get(e, "dst");
        if (d == NULL)
            return fail_missing(l, e, "dst", "a prefix, e.g. \"::/0\"");
        if (sj_as_string(d, NULL) != NULL && strcmp(sj_as_string(d, NULL), "::/0") == 0) {
            mip_addr_set6(&r->prefix, (const uint8_t[16]){ 0 });
            r->prefix_len = 0;
        } else if (!get_prefix(l, d, &r->prefix, &r->prefix_len)) {
            return false;
        } else if (prefixes_overlap(&r->prefix, r->prefix_len, mesh, 64)) {
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
    return true;
}

static bool load_border(struct ld *l, const struct sj_value *root)
{
    struct sim_scenario *sc = l->sc;
    struct sim_border_spec *b = &sc->border;
    const struct sj_value *o, *v, *arr;
    struct mip_addr mesh;
    uint8_t mesh16[16] = { 0 };
    char what[160];
    size_t k;
    if (!open_object(l, root, "border", &border_table, &o) || o == NULL)
        return !l->failed;
    if (!read_keys(l, o, &border_table, b))
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
    } else if (!load_border_routes(l, arr, b, &mesh, what)) {
        return false;
    }
    arr = sj_get(o, "reach");
    if (sc->routing == SIM_ROUTING_RPL) {
        /* The border router is the DODAG root: the host reaches every node
         * that joined (its DAO), so there is nothing to list; a root named
         * elsewhere would leave the host behind a node that is no root. */
        const struct sj_value *rr = sj_get(sj_get(root, "routing"), "root");
        if (arr != NULL)
            return fail(l, arr, "no reach list with routing type \"rpl\" (the border router is "
                                "the DODAG root: the host reaches every node that joined)");
        if (rr != NULL && sc->rpl_root != b->node)
            return fail(l, rr, "the border router's node (with a border router it is the "
                               "DODAG root)");
        sc->rpl_root = b->node;
    }
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

/* services: [{ type, node, port, mss }] (sim/services.c). */
#define SV struct sim_service_spec
static const struct key service_keys[] = {
    { .key = "type", .type = KT_ENUM, .flags = KF_REQ | KF_LATER, FIELD(SV, kind),
      .names = sim_service_names },
    K_NODE(SV, "node", node),
    { .key = "port", .type = KT_INT, FIELD(SV, port), .lo = 1, .hi = 65535,
      .note = "the type's well-known port: 80, 7, 9, 19, 7" },
    { .key = "mss", .type = KT_INT, .flags = KF_DEF | KF_LATER, FIELD(SV, mss), .lo = 64,
      .hi = 65535, .def = 0, .note = "from the MTU; none for udp_echo" },
};
static const struct table service_table = TABLE(service_keys);

static bool load_services(struct ld *l, const struct sj_value *root)
{
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
        if (!only_keys(l, o, &service_table, 1) || !read_key(l, o, &service_keys[0], v))
            return false;
        v->port = ports[v->kind];
        if (!read_keys(l, o, &service_table, v))
            return false;
        if (v->kind == SIM_SVC_UDP_ECHO && sj_get(o, "mss") != NULL)
            return fail(l, sj_get(o, "mss"), "no mss for a UDP service");
        if (!read_key(l, o, find_key(&service_table, "mss"), v))
            return false;
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

/* external: [{ node, local, remote, channel }] (sim/external.c,
 * docs/ZEP.md): a node of the topology run by a program outside the
 * simulator over ZEP on loopback. It runs none of the simulator's apps,
 * routing or attacks, so no key may give it any. */
#define XS struct sim_external_spec
static const struct key external_keys[] = {
    K_NODE(XS, "node", node),
    { .key = "local", .type = KT_OWN, .flags = KF_REQ,
      .what = "loopback address:port the simulator binds (the node sends its frames here)" },
    { .key = "remote", .type = KT_OWN, .flags = KF_REQ,
      .what = "loopback address:port of the node's ZEP radio (its frames go there)" },
    K_INT(XS, "channel", channel, 11, 26, 26),
};
static const struct table external_table = TABLE(external_keys);

/* What a node given to a program cannot be: NULL, or what it is. */
static const char *external_blocker(const struct sim_scenario *sc, uint32_t node)
{
    size_t k;
    if (sc->border.on && sc->border.node == node)
        return "the border router";
    if (sc->routing == SIM_ROUTING_RPL && sc->rpl_root == node)
        return "the RPL root";
    if (sc->addressing == SIM_ADDR_ND6LO && node == 0u)
        return "the 6LoWPAN-ND router (node 0)";
    for (k = 0; k < sc->n_services; k++)
        if (sc->services[k].node == node)
            return "a service's node";
    for (k = 0; k < sc->n_flows; k++)
        if (sc->flows[k].src == node ||
            (sc->flows[k].dst == node && sc->flows[k].kind != SIM_FLOW_PING))
            return "an end of a flow (only a ping flow's destination may be external)";
    for (k = 0; k < sc->n_misbehave; k++)
        if (sc->misbehave[k].node == node)
            return "a misbehaving node";
    return NULL;
}

static bool load_external(struct ld *l, const struct sj_value *root)
{
    const struct sj_value *arr = sj_get(root, "external");
    struct sim_scenario *sc = l->sc;
    size_t k, j, n;
    if (arr == NULL)
        return true;
    if (!sj_is(arr, SJ_ARRAY) || sj_len(arr) == 0u || sj_len(arr) > SIM_EXTERNAL_MAX)
        return fail(l, arr, "an array of 1 to 16 {\"node\", \"local\", \"remote\"}");
    n = sj_len(arr);
    sc->external = calloc(n, sizeof(*sc->external));
    if (sc->external == NULL)
        return fail(l, arr, "fewer external nodes (out of memory)");
    sc->n_external = n;
    for (k = 0; k < n; k++) {
        static const char *const ends[] = { "local", "remote" };
        const struct sj_value *o = sj_at(arr, k);
        struct sim_external_spec *x = &sc->external[k];
        struct sockaddr_storage ss[2];
        socklen_t sl;
        const char *blocker;
        if (!sj_is(o, SJ_OBJECT))
            return fail(l, o, "an external node object {\"node\", \"local\", \"remote\"}");
        put_defaults(&external_table, x);
        if (!only_keys(l, o, &external_table, 1) || !read_keys(l, o, &external_table, x))
            return false;
        for (j = 0; j < 2u; j++) {
            const struct sj_value *v = sj_get(o, ends[j]);
            const char *s = v != NULL ? sj_as_string(v, NULL) : NULL;
            char why[160], *dst = j == 0u ? x->local : x->remote;
            if (v == NULL)
                return fail_missing(l, o, ends[j], "a loopback address:port, e.g. "
                                                   "\"127.0.0.1:17754\"");
            if (s == NULL || strlen(s) >= sizeof(x->local))
                return fail(l, v, "a loopback address:port of at most 63 bytes");
            if (!sim_external_endpoint(s, &ss[j], &sl, why, sizeof(why)))
                return fail(l, v, why);
            strcpy(dst, s);
        }
        if (ss[0].ss_family != ss[1].ss_family)
            return fail(l, sj_get(o, "remote"), "an address of the local address's family");
        if ((blocker = external_blocker(sc, x->node)) != NULL) {
            char what[160];
            snprintf(what, sizeof(what), "a node the simulator does not run for itself (node "
                     "%u is %s)", x->node, blocker);
            return fail(l, sj_get(o, "node"), what);
        }
        for (j = 0; j < k; j++) {
            if (sc->external[j].node == x->node)
                return fail(l, sj_get(o, "node"), "a node no earlier external entry names");
            if (strcmp(sc->external[j].local, x->local) == 0)
                return fail(l, sj_get(o, "local"), "an address no earlier external entry binds");
        }
    }
    return true;
}

/* misbehave: [{ node, target, pending_every_ms, ... }] (sim/misbehave.c):
 * a node that forges or replays frames for a victim. Each *_every_ms is an
 * attack's period (0: off); a new attack is a row here and one in
 * misbehave.c. */
#define MB struct sim_misbehave_spec
static const char *const misbehave_to[] = { "target", "broadcast", NULL };
#define MB_EVERY(k, f) K_INT(MB, k, f, 0, 600000, 0)
static const struct key misbehave_keys[] = {
    K_NODE(MB, "node", node),
    K_NODE(MB, "target", target),
    MB_EVERY("pending_every_ms", pending_every_ms),
    K_ENUM(MB, "pending_to", pending_to, misbehave_to, SIM_MISBEHAVE_TO_TARGET),
    K_INT(MB, "payload_bytes", payload_bytes, 1, 100, 10),
    MB_EVERY("strobe_every_ms", strobe_every_ms),
    MB_EVERY("probe_every_ms", probe_every_ms),
    MB_EVERY("poll_every_ms", poll_every_ms),
    MB_EVERY("replay_every_ms", replay_every_ms),
    { .key = "cca", .type = KT_BOOL, .flags = KF_DEF, FIELD(MB, cca), .def = false,
      .note = "true: CSMA-CA before each frame; false: no channel access (a jammer)" },
    K_NUM(MB, "start_s", start_s, 0, 1e9, 0),
    { .key = "stop_s", .type = KT_NUM, .flags = KF_DEF, FIELD(MB, stop_s), .dlo = 0, .dhi = 1e9,
      .def = 0, .note = "0: the end of the run" },
};
static const struct table misbehave_table = TABLE(misbehave_keys);

/* One misbehaving node's object: what depends on several keys. */
static bool check_misbehave(struct ld *l, const struct sj_value *o, const struct sim_misbehave_spec *v)
{
    static const char *const only_pending[] = { "pending_to", "payload_bytes" };
    size_t j;
    if (v->node == v->target)
        return fail(l, sj_get(o, "target"), "a node other than the misbehaving node itself");
    if (v->pending_every_ms == 0u && v->strobe_every_ms == 0u && v->probe_every_ms == 0u &&
        v->poll_every_ms == 0u && v->replay_every_ms == 0u)
        return fail(l, o, "at least one attack: pending_every_ms, strobe_every_ms, "
                    "probe_every_ms, poll_every_ms or replay_every_ms above 0");
    for (j = 0; j < sizeof(only_pending) / sizeof(only_pending[0]); j++)
        if (v->pending_every_ms == 0u && sj_get(o, only_pending[j]) != NULL)
            return fail(l, sj_get(o, only_pending[j]),
                        "a key of the pending attack only (pending_every_ms above 0)");
    if (v->stop_s != 0.0 && v->stop_s <= v->start_s)
        return fail(l, sj_get(o, "stop_s"), "0 (the end of the run) or a time after start_s");
    return true;
}

static bool load_misbehave(struct ld *l, const struct sj_value *root)
{
    const struct sj_value *arr = sj_get(root, "misbehave");
    struct sim_scenario *sc = l->sc;
    size_t k, n;
    if (arr == NULL)
        return true;
    if (!sj_is(arr, SJ_ARRAY))
        return fail(l, arr, "an array of {\"node\", \"target\", ...}");
    n = sj_len(arr);
    sc->misbehave = calloc(n ? n : 1u, sizeof(*sc->misbehave));
    if (sc->misbehave == NULL)
        return fail(l, arr, "fewer misbehaving nodes (out of memory)");
    sc->n_misbehave = n;
    for (k = 0; k < n; k++) {
        const struct sj_value *o = sj_at(arr, k);
        struct sim_misbehave_spec *v = &sc->misbehave[k];
        if (!sj_is(o, SJ_OBJECT))
            return fail(l, o, "a misbehaving node object");
        put_defaults(&misbehave_table, v);
        if (!only_keys(l, o, &misbehave_table, 1) || !read_keys(l, o, &misbehave_table, v) ||
            !check_misbehave(l, o, v))
            return false;
    }
    return true;
}

/* events: [{ type, at_s | at_ms, node, ... }] (sim/dynamics.c). */
#define EV struct sim_event_spec
static const char *const event_kinds[] = { "node_down", "node_up", "link", "move", NULL };
#define EK(k) (1u << (k))
#define EK_ALL (EK(SIM_DYN_NODE_DOWN) | EK(SIM_DYN_NODE_UP) | EK(SIM_DYN_LINK) | EK(SIM_DYN_MOVE))
static const struct key event_keys[] = {
    { .key = "type", .type = KT_ENUM, .flags = KF_REQ | KF_LATER, FIELD(EV, kind),
      .names = event_kinds, .kinds = EK_ALL },
    { .key = "at_s", .type = KT_NUM, .flags = KF_LATER | KF_LOCAL, .size = 8, .dlo = 0,
      .dhi = 1e7, .kinds = EK_ALL, .note = "exactly one of `at_s`, `at_ms`; within `duration_s`" },
    { .key = "at_ms", .type = KT_INT, .flags = KF_LATER | KF_LOCAL, .size = 8, .lo = 0,
      .hi = 10000000000LL, .kinds = EK_ALL, .note = "exactly one of `at_s`, `at_ms`" },
    { .key = "node", .type = KT_NODE, .flags = KF_REQ, FIELD(EV, node), .kinds = EK_ALL },
    { .key = "to", .type = KT_NODE, .flags = KF_REQ | KF_LATER, FIELD(EV, to),
      .kinds = EK(SIM_DYN_LINK) },
    { .key = "prr", .type = KT_NUM, .flags = KF_REQ | KF_LATER, FIELD(EV, prr), .dlo = 0,
      .dhi = 1, .kinds = EK(SIM_DYN_LINK) },
    { .key = "symmetric", .type = KT_BOOL, .flags = KF_DEF | KF_LATER, FIELD(EV, symmetric),
      .def = 1, .kinds = EK(SIM_DYN_LINK) },
    { .key = "x", .type = KT_NUM, .flags = KF_REQ | KF_LATER, FIELD(EV, x), .dlo = -1e9,
      .dhi = 1e9, .kinds = EK(SIM_DYN_MOVE) },
    { .key = "y", .type = KT_NUM, .flags = KF_REQ | KF_LATER, FIELD(EV, y), .dlo = -1e9,
      .dhi = 1e9, .kinds = EK(SIM_DYN_MOVE) },
};
static const struct table event_table = TABLE(event_keys);

/* Whether node runs something a reboot cannot restart yet: the border
 * router, a service, an end of a sensor flow (their apps keep state
 * outside the stack). */
static const char *reboot_blocker(const struct sim_scenario *sc, uint32_t node)
{
    size_t k;
    if (sc->border.on && sc->border.node == node)
        return "the border router";
    for (k = 0; k < sc->n_external; k++)
        if (sc->external[k].node == node)
            return "an external node (its program's life is its own)";
    for (k = 0; k < sc->n_services; k++)
        if (sc->services[k].node == node)
            return "a service";
    for (k = 0; k < sc->n_flows; k++)
        if (sc->flows[k].kind == SIM_FLOW_SENSOR &&
            (sc->flows[k].src == node || sc->flows[k].dst == node))
            return "an end of a sensor flow";
    return NULL;
}

static int event_cmp(const void *a, const void *b)
{
    const struct sim_event_spec *x = a, *y = b;
    if (x->at_us != y->at_us)
        return x->at_us < y->at_us ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index ? 1 : 0;
}

/* One event's keys; the checks that need the whole list follow in
 * load_events. */
static bool load_event(struct ld *l, const struct sj_value *o, struct sim_event_spec *e)
{
    struct sim_scenario *sc = l->sc;
    const struct sj_value *as = sj_get(o, "at_s"), *ams = sj_get(o, "at_ms");
    double at_s = 0.0;
    int64_t at_ms = 0;
    size_t i;
    if (!only_keys(l, o, &event_table, 1) || !read_key(l, o, &event_keys[0], e) ||
        !check_kind_keys(l, o, &event_table, event_kinds, e->kind, "events", "event", "type"))
        return false;
    if ((as == NULL) == (ams == NULL))
        return as == NULL ? fail_missing(l, o, "at_s", "the event's time (or at_ms)")
                          : fail(l, ams, "at_s or at_ms, not both");
    if (!read_key(l, o, find_key(&event_table, "at_s"), &at_s) ||
        !read_key(l, o, find_key(&event_table, "at_ms"), &at_ms))
        return false;
    e->at_us = as != NULL ? (uint64_t)llround(at_s * 1e6) : (uint64_t)at_ms * 1000u;
    if ((double)e->at_us > sc->duration_s * 1e6)
        return fail(l, as != NULL ? as : ams, "a time within duration_s");
    put_defaults(&event_table, e);
    if (!read_keys(l, o, &event_table, e))
        return false;
    for (i = 0; i < event_table.n; i++) {
        const struct key *k = &event_keys[i];
        if ((k->flags & KF_LOCAL) != 0u || (k->kinds & EK(e->kind)) == 0u || k->type == KT_ENUM)
            continue;
        if ((k->flags & KF_REQ) != 0u && k->type == KT_NUM && sj_get(o, k->key) == NULL)
            return fail_missing(l, o, k->key, k->dhi <= 1.0 ? "a reception ratio in [0, 1]"
                                                           : "a coordinate in metres");
        if (!read_key(l, o, k, e))
            return false;
    }
    if (e->kind == SIM_DYN_LINK && e->to == e->node)
        return fail(l, sj_get(o, "to"), "a node other than node");
    if (e->kind == SIM_DYN_MOVE && (sc->topology == SIM_TOPO_LINKS || sc->medium == SIM_MEDIUM_PRR))
        return fail(l, sj_get(o, "type"), "an event of a topology with positions (\"links\" "
                    "has none: change a link's prr instead)");
    return true;
}

static bool load_events(struct ld *l, const struct sj_value *root)
{
    const struct sj_value *arr = sj_get(root, "events");
    struct sim_scenario *sc = l->sc;
    bool *down;
    size_t k, n;
    if (arr == NULL)
        return true;
    if (!sj_is(arr, SJ_ARRAY))
        return fail(l, arr, "an array of event objects");
    n = sj_len(arr);
    sc->events = calloc(n ? n : 1u, sizeof(*sc->events));
    down = calloc(sc->n_nodes, sizeof(*down));
    if (sc->events == NULL || down == NULL) {
        free(down);
        return fail(l, arr, "fewer events (out of memory)");
    }
    sc->n_events = n;
    for (k = 0; k < n; k++) {
        const struct sj_value *o = sj_at(arr, k);
        sc->events[k].index = (uint32_t)k;
        if (!sj_is(o, SJ_OBJECT)) {
            free(down);
            return fail(l, o, "an event object");
        }
        if (!load_event(l, o, &sc->events[k])) {
            free(down);
            return false;
        }
    }
    qsort(sc->events, n, sizeof(*sc->events), event_cmp);
    /* each node alternates: down, up, down, ... */
    for (k = 0; k < n; k++) {
        const struct sim_event_spec *e = &sc->events[k];
        const struct sj_value *o = sj_at(arr, e->index);
        const char *why;
        bool bad = false;
        if (e->kind == SIM_DYN_NODE_DOWN) {
            bad = down[e->node];
            if (!bad && sc->border.on && sc->border.node == e->node) {
                free(down);
                return fail(l, sj_get(o, "node"), "a node other than the border router's");
            }
            down[e->node] = true;
        } else if (e->kind == SIM_DYN_NODE_UP) {
            bad = !down[e->node];
            why = bad ? NULL : reboot_blocker(sc, e->node);
            if (why != NULL) {
                char what[160];
                snprintf(what, sizeof(what), "a node without %s (its reboot is not modelled)",
                         why);
                free(down);
                return fail(l, sj_get(o, "node"), what);
            }
            down[e->node] = false;
        }
        if (bad) {
            free(down);
            return fail(l, sj_get(o, "node"), e->kind == SIM_DYN_NODE_DOWN
                        ? "a node that is up then (a node_up must come between two node_downs)"
                        : "a node that is down then (node_up follows a node_down)");
        }
    }
    free(down);
    return true;
}

/* The tables whose fields are in struct sim_scenario itself. */
static const struct table *const scenario_tables[] = {
    &root_table, &phy_table, &radio_table, &medium_table, &loss_table, &topo_table,
    &mac_table, &link_table, &routing_table, &record_table, &overlay_table,
    &proxy_table,
};

void sim_scenario_defaults(struct sim_scenario *sc)
{
    size_t i;
    memset(sc, 0, sizeof(*sc));
    strcpy(sc->name, "unnamed");
    mip_rpl_config_default(&sc->rpl);   /* what the routing keys leave alone */
    for (i = 0; i < sizeof(scenario_tables) / sizeof(scenario_tables[0]); i++)
        put_defaults(scenario_tables[i], sc);
    /* what the tables take from elsewhere or from other keys */
    mip_radio_timing_default(&sc->timing);
    sc->radio = radio_profiles[sc->radio_profile];
    sc->interference_range_m = sc->range_m;
    sc->cs_range_m = sc->interference_range_m;
    mip_mac_config_default(&sc->mac, sc->mac.kind, 0, 0, NULL);
    sc->link_acks = true;               /* csma_ca waits for link ACKs */
    sc->prefix[0] = 0xfd;               /* fd00::/64 */
}

void sim_scenario_free(struct sim_scenario *sc)
{
    free(sc->pos);
    free(sc->links);
    free(sc->routes);
    free(sc->flows);
    free(sc->node_rdc);
    free(sc->node_sec);
    sc->node_sec = NULL;
    free(sc->services);
    free(sc->misbehave);
    sc->misbehave = NULL;
    free(sc->external);
    sc->external = NULL;
    sc->n_external = 0;
    free(sc->border.reach);
    free(sc->events);
    sc->events = NULL;
    sc->node_rdc = NULL;
    sc->services = NULL;
    sc->border.reach = NULL;
    sc->pos = NULL;
    sc->links = NULL;
    sc->routes = NULL;
    sc->flows = NULL;
}

/* More than SIM_SHORT_NODES_MAX nodes run without 16-bit short addresses
 * (sim.h): what needs them is refused, naming the key. */
static bool check_no_short(struct ld *l, const struct sj_value *root)
{
    const struct sim_scenario *sc = l->sc;
    const char *need = sc->n_nodes > SIM_SHORT_NODES_MAX
                           ? "at most 65534 nodes (802.15.4 short addresses are 16-bit, 0xfffe "
                             "and 0xffff reserved; a larger network runs on extended addresses, "
                             "IPv6 over 6LoWPAN only)"
                           : "link.short_addresses true (extended addresses only: IPv6 over "
                             "6LoWPAN)";
    const struct sj_value *topo = sj_get(sj_get(root, "topology"), "nodes");
    uint32_t i;
    char what[320];
    if (topo == NULL)
        topo = sj_get(root, "topology");
    if (sc->ipv4 || sc->link_mode != MIP_LOWPAN_IPHC) {
        snprintf(what, sizeof(what), "%s, not link.mode \"raw\" or link.ip \"ipv4\"", need);
        return fail(l, topo, what);
    }
    if (sc->n_misbehave > 0u || sc->border.on) {
        snprintf(what, sizeof(what), "%s, not with %s", need,
                 sc->border.on ? "a border router" : "misbehaving nodes (they forge short "
                                                     "addresses)");
        return fail(l, topo, what);
    }
    for (i = 0; i < sc->n_nodes; i++) {
        uint8_t k = sc->node_rdc != NULL ? sc->node_rdc[i].kind : sc->mac.rdc.kind;
        if (k == MIP_RDC_LEAF || k == MIP_RDC_PARENT) {
            snprintf(what, sizeof(what), "%s, not with sleepy leaves (rdc \"leaf\" and "
                     "\"parent\" address by short address)", need);
            return fail(l, topo, what);
        }
    }
    return true;
}

bool sim_scenario_parse(const char *text, size_t len, const char *fname,
                        struct sim_scenario *sc, char *err, size_t errlen)
{
    struct sj_error jerr;
    struct sj_doc *doc;
    const struct sj_value *root, *v;
    struct ld l;
    bool ok;
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
        ok = only_keys(&l, root, &root_table, 1);
    if (ok && (v = sj_get(root, "name")) != NULL) {
        const char *s = sj_as_string(v, NULL);
        if (s == NULL || strlen(s) >= sizeof(sc->name))
            ok = fail(&l, v, "a string of at most 63 bytes");
        else
            strcpy(sc->name, s);
    }
    ok = ok && read_keys(&l, root, &root_table, sc) && load_phy(&l, root) &&
         load_radio(&l, root) && load_medium(&l, root) && load_topology(&l, root) &&
         load_mac(&l, root) && load_security(&l, root) && load_link(&l, root) &&
         load_routing(&l, root) &&
         load_relay(&l, root) && load_flows(&l, root) && load_services(&l, root) &&
         load_misbehave(&l, root) && load_border(&l, root) && load_external(&l, root) &&
         load_record(&l, root) &&
         load_events(&l, root) && load_overlay(&l, root) &&
         load_proxy(&l, root);
    if (ok && sc->n_nodes > SIM_SHORT_NODES_MAX) {
        v = sj_get(sj_get(root, "link"), "short_addresses");
        if (v != NULL && sc->short_addresses)
            ok = fail(&l, v, "false above 65534 nodes (16-bit short addresses, 0xfffe and "
                             "0xffff reserved)");
        sc->short_addresses = false;
    }
    if (ok && !sc->short_addresses)
        ok = check_no_short(&l, root);
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

/* --- the schema as Markdown (docs/SIMULATOR.md) ----------------------------------- */

static void md_value(FILE *f, const struct key *k)
{
    size_t i;
    switch (k->type) {
    case KT_INT:
        if (k->hi >= INT64_MAX / 2)
            fprintf(f, "integer %lld..", (long long)k->lo);
        else
            fprintf(f, "integer %lld..%lld", (long long)k->lo, (long long)k->hi);
        break;
    case KT_NUM:
    case KT_Q8:
        fprintf(f, "number %g..%g", k->dlo, k->dhi);
        break;
    case KT_BOOL:
        fputs("true, false", f);
        break;
    case KT_ENUM:
        for (i = 0; k->names[i] != NULL; i++)
            fprintf(f, "%s`\"%s\"`", i ? ", " : "", k->names[i]);
        break;
    case KT_NODE:
        fputs("node id or `\"last\"`", f);
        break;
    default:
        fputs(k->what, f);
        break;
    }
}

/* The value of k's field in base, which holds the defaults. */
static void md_default(FILE *f, const struct key *k, const void *base)
{
    const uint8_t *p = (const uint8_t *)base + k->off;
    uint64_t u = 0;
    double d;
    bool b;
    if (k->type == KT_NUM) {
        memcpy(&d, p, sizeof(d));
        fprintf(f, "%g", d);
        return;
    }
    if (k->type == KT_BOOL) {
        memcpy(&b, p, sizeof(b));
        fputs(b ? "true" : "false", f);
        return;
    }
    if (k->size == 1u) {
        u = *p;
    } else if (k->size == 2u) {
        uint16_t h;
        memcpy(&h, p, sizeof(h));
        u = h;
    } else if (k->size == 4u) {
        uint32_t w;
        memcpy(&w, p, sizeof(w));
        u = w;
    } else {
        memcpy(&u, p, sizeof(u));
    }
    if (k->type == KT_ENUM)
        fprintf(f, "`\"%s\"`", k->names[u]);
    else if (k->type == KT_Q8)
        fprintf(f, "%g", (double)u / 256.0);
    else
        fprintf(f, "%llu", (unsigned long long)u);
}

/* The kinds (names[], bits of .kinds) that take k when not all of `all`
 * do: "; grid only". */
static void md_kinds(FILE *f, const struct key *k, const char *const *names, unsigned all)
{
    size_t j, n = 0;
    if (names == NULL || (k->kinds & all) == all)
        return;
    fputs("; ", f);
    for (j = 0; names[j] != NULL; j++)
        if ((k->kinds & (1u << j)) != 0u)
            fprintf(f, "%s%s", n++ ? ", " : "", names[j]);
    fputs(" only", f);
}

/* names and all: the table's kinds (NULL when its keys have none) and
 * the mask of those a key read by every kind carries. */
static void md_table(FILE *f, const char *title, const struct table *t, const void *base,
                     const char *note_all, const char *const *names, unsigned all)
{
    size_t i;
    fprintf(f, "\n**%s**\n\n| key | value | default |\n|---|---|---|\n", title);
    for (i = 0; i < t->n; i++) {
        const struct key *k = &t->keys[i];
        bool local = (k->flags & KF_LOCAL) != 0u;
        fprintf(f, "| `%s` | ", k->key);
        md_value(f, k);
        md_kinds(f, k, names, all);
        fputs(" | ", f);
        if ((k->flags & KF_REQ) != 0u) {
            fputs("*required*", f);
        } else if (k->type == KT_OWN || local ||
                   (k->note != NULL && (k->flags & KF_DEF) == 0u)) {
            fputs(k->note != NULL ? k->note : (note_all != NULL && k->type != KT_OWN ? note_all : ""),
                  f);
        } else if (note_all != NULL && (k->flags & KF_DEF) == 0u) {
            fputs(note_all, f);
        } else {
            md_default(f, k, base);
            if (k->note != NULL)
                fprintf(f, " (%s)", k->note);
        }
        fputs(" |\n", f);
    }
}

void sim_scenario_keys_md(FILE *f)
{
    struct sim_scenario sc;
    struct sim_flow_spec fl[4];
    struct sim_service_spec sv;
    struct sim_border_spec bd;
    struct sim_misbehave_spec mb;
    uint8_t kind;
    sim_scenario_defaults(&sc);
    memset(fl, 0, sizeof(fl));
    for (kind = 0; kind < 4u; kind++)
        flow_defaults(&fl[kind], kind, 0);
    memset(&sv, 0, sizeof(sv));
    memset(&bd, 0, sizeof(bd));
    put_defaults(&misbehave_table, &mb);
    md_table(f, "(top level)", &root_table, &sc, NULL, NULL, 0);
    md_table(f, "phy", &phy_table, &sc, NULL, NULL, 0);
    md_table(f, "radio", &radio_table, &sc, NULL, NULL, 0);
    md_table(f, "medium", &medium_table, &sc, NULL, NULL, 0);
    md_table(f, "medium.frame_loss", &loss_table, &sc, NULL, NULL, 0);
    md_table(f, "topology", &topo_table, &sc, NULL, topo_kinds, TK_ALL);
    md_table(f, "mac (defaults of csma_ca)", &mac_table, &sc, NULL, mac_kinds,
             MK_ALL);
    md_table(f, "link", &link_table, &sc, NULL, NULL, 0);
    md_table(f, "routing", &routing_table, &sc, NULL, NULL, 0);
    md_table(f, "routing.routes[]", &route_table, NULL, NULL, NULL, 0);
    md_table(f, "relay", &relay_table, NULL, "the mode's (docs/RELAY.md)", relay_modes,
             RM_TSS | RM_DTC | RM_CC);
    md_table(f, "flows[]: every type", &flow_tables[FT_ANY], &fl[SIM_FLOW_TCP], NULL, NULL, 0);
    md_table(f, "flows[]: tcp", &flow_tables[FT_TCP], &fl[SIM_FLOW_TCP], NULL, NULL, 0);
    md_table(f, "flows[]: udp", &flow_tables[FT_UDP], &fl[SIM_FLOW_UDP], NULL, NULL, 0);
    md_table(f, "flows[]: ping", &ping_table, &fl[SIM_FLOW_PING], NULL, NULL, 0);
    md_table(f, "flows[]: sensor", &flow_tables[FT_SENSOR], &fl[SIM_FLOW_SENSOR], NULL, NULL,
             0);
    md_table(f, "flows[].sender, flows[].receiver (tcp, sensor)", &endpoint_table,
             &fl[SIM_FLOW_TCP].sender, NULL, NULL, 0);
    md_table(f, "services[]", &service_table, &sv, NULL, NULL, 0);
    md_table(f, "misbehave[]", &misbehave_table, &mb, NULL, NULL, 0);
    md_table(f, "border", &border_table, &bd, NULL, NULL, 0);
    md_table(f, "border.routes[]", &border_route_table, NULL, NULL, NULL, 0);
    {
        struct sim_external_spec xs;
        memset(&xs, 0, sizeof(xs));
        put_defaults(&external_table, &xs);
        md_table(f, "external[]", &external_table, &xs, NULL, NULL, 0);
    }
    md_table(f, "record", &record_table, &sc, NULL, NULL, 0);
    md_table(f, "overlay", &overlay_table, &sc, NULL, NULL, 0);
    md_table(f, "proxy", &proxy_table, &sc, NULL, NULL, 0);
    put_defaults(&security_table, &sc);
    md_table(f, "security", &security_table, &sc, NULL, NULL, 0);
    {
        struct sim_event_spec ev;
        memset(&ev, 0, sizeof(ev));
        put_defaults(&event_table, &ev);
        md_table(f, "events[]", &event_table, &ev, NULL, event_kinds, EK_ALL);
    }
}
