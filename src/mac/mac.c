/*
 * src/mac/: the 802.15.4 MAC (CSMA-CA, CSMA, NullMAC behind mac_proto.h)
 * and radio duty cycling (behind mac_rdc.h) over the radio driver interface
 * (radio.h), one floor above the ground. It may include wire/ and base/
 * headers and config.h, never core/ or above: received frames leave through
 * the input callback given to mip_mac_init, and the stack sends through the
 * netif driver table its owner points at mip_mac_send.
 *
 * The MAC engine: queue, sequence numbers, reception (filter, ACK, duplicate
 * detection), ACK matching and the frame's outcome. Channel access is the
 * protocol's (mac_proto.h), what an attempt is on air and when the radio
 * listens the RDC's (mac_rdc.h).
 */
#include <string.h>

#include "mac_rdc.h"

/* Queue indexes, lengths and counts are uint8_t. */
_Static_assert(MIP_MAC_QUEUE >= 1u && MIP_MAC_QUEUE <= 255u, "MIP_MAC_QUEUE out of range");
_Static_assert(MIP_MAC_DUP_ENTRIES >= 1u && MIP_MAC_DUP_ENTRIES <= 255u,
               "MIP_MAC_DUP_ENTRIES out of range");
_Static_assert(MIP_MAC_FRAME_MAX >= 3u && MIP_MAC_FRAME_MAX <= 255u,
               "MIP_MAC_FRAME_MAX out of range");

/* Each pass of mip_mac_poll's loop makes progress, but with zero timings
 * and a tx_done callback that queues again after every channel access
 * failure it could go on forever at one instant; past this many steps poll
 * returns 0 and continues on the next call. */
#define MAC_POLL_STEPS_MAX 1024u

/* Indexed by enum mip_mac_kind. */
static const struct mip_mac_proto *(*const mac_protos[])(void) = {
    mip_mac_proto_csma_ca,
    mip_mac_proto_csma,
    mip_mac_proto_nullmac,
};
#define MAC_KINDS (sizeof(mac_protos) / sizeof(mac_protos[0]))

/* Indexed by enum mip_rdc_kind; NULL for one this build leaves out. */
static const struct mip_rdc_ops *(*const mac_rdcs[])(void) = {
    mip_rdc_nullrdc,
#if MIP_RDC_HAS_CONTIKIMAC
    mip_rdc_contikimac,
#else
    NULL,
#endif
#if MIP_RDC_HAS_XMAC
    mip_rdc_xmac,
#else
    NULL,
#endif
#if MIP_RDC_HAS_LPP
    mip_rdc_lpp,
#else
    NULL,
#endif
#if MIP_RDC_HAS_LEAF
    mip_rdc_leaf,
#else
    NULL,
#endif
#if MIP_RDC_HAS_PARENT
    mip_rdc_parent,
#else
    NULL,
#endif
};
#define RDC_KINDS (sizeof(mac_rdcs) / sizeof(mac_rdcs[0]))

#if MIP_CONF_STAT_NAMES
/* Fixed-width rows, not pointers: see src/core/stats.c. A build without
 * duty cycling names no rdc_* counter (they stay 0): the rows end there. */
#if MIP_RDC_DUTY_CYCLING
#define MAC_STATS_NAMED MIP_MAC_STAT_COUNT
#else
#define MAC_STATS_NAMED MIP_MAC_STAT_rdc_checks
#endif
static const char mac_stat_names[MAC_STATS_NAMED][20] = {
#define MIP_MAC_STAT_NAME(n) #n,
    MIP_MAC_STATS_BASE(MIP_MAC_STAT_NAME)
    MIP_MAC_STATS_SEC(MIP_MAC_STAT_NAME)
#if MIP_RDC_DUTY_CYCLING
    MIP_MAC_STATS_RDC(MIP_MAC_STAT_NAME)
#endif
#undef MIP_MAC_STAT_NAME
};

const char *mip_mac_stat_name(enum mip_mac_stat which)
{
    return (unsigned)which < MAC_STATS_NAMED ? mac_stat_names[which] : NULL;
}
#else
const char *mip_mac_stat_name(enum mip_mac_stat which)
{
    (void)which;
    return NULL;
}
#endif

uint32_t mip_mac_stat(const struct mip_mac *m, enum mip_mac_stat which)
{
    return (unsigned)which < MIP_MAC_STAT_COUNT ? m->stats[which] : 0u;
}

static void count(struct mip_mac *m, enum mip_mac_stat which)
{
    m->stats[which]++;
}

static const struct mip_mac_proto *proto(const struct mip_mac *m)
{
    return mac_protos[m->cfg.kind]();
}

static const struct mip_rdc_ops *rdc(const struct mip_mac *m)
{
    return m->rdc_ops;
}

static bool due(const struct mip_mac *m, mip_utime_t t)
{
    return !mip_utime_before(m->now, t);
}

static struct mip_mac_qframe *head(struct mip_mac *m)
{
    return &m->q[m->q_head];
}

#if MIP_RDC_DUTY_CYCLING
struct mip_mac_qframe *mip_mac_head(struct mip_mac *m)
{
    return head(m);
}
#endif

/* --- configuration -------------------------------------------------------- */

void mip_mac_config_default(struct mip_mac_config *cfg, uint8_t kind, uint16_t pan_id,
                            uint16_t short_addr, const uint8_t ext_addr[8])
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->kind = kind;
    cfg->pan_id = pan_id;
    cfg->short_addr = short_addr;
    if (ext_addr != NULL)
        memcpy(cfg->ext_addr, ext_addr, 8);
    mip_radio_timing_default(&cfg->timing);
    /* 802.15.4-2006 Table 86 defaults */
    cfg->min_be = 3;
    cfg->max_be = 5;
    cfg->max_backoffs = 4;
    cfg->max_retries = 3;
    cfg->retry_delay_max_us = 0;
    /* the TSS paper's CSMA: 1..3 backoff periods */
    cfg->csma_min_periods = 1;
    cfg->csma_max_periods = 3;
    mip_rdc_config_default(&cfg->rdc, MIP_RDC_NULLRDC);
}

static bool config_ok(const struct mip_mac_config *cfg, const struct mip_radio_driver *radio)
{
    /* Deadlines are compared modulo 2^32: none may lie 2^31 µs ahead. */
    if (cfg->kind >= MAC_KINDS || cfg->min_be > cfg->max_be || cfg->max_be > 8u ||
        cfg->csma_min_periods > cfg->csma_max_periods ||
        cfg->retry_delay_max_us > MIP_MAC_RETRY_DELAY_MAX)
        return false;
#if MIP_CONF_LLSEC
    if (!mip_llsec_config_ok(&cfg->sec))
        return false;
#endif
    if (radio->transmit == NULL)
        return false;
    if (cfg->rdc.kind != MIP_RDC_NULLRDC &&
        (radio->cca == NULL || radio->on == NULL || radio->off == NULL))
        return false;
    return cfg->kind == MIP_MAC_NULLMAC || radio->cca != NULL;
}

#if MIP_RDC_DUTY_CYCLING
/* Switches the receiver to what the RDC wants (NullRDC: on, once). */
static void radio_sync(struct mip_mac *m)
{
    bool want = rdc(m)->radio_wanted(m);
    if (want == m->radio_on)
        return;
    m->radio_on = want;
    if (want && m->radio->on != NULL)
        m->radio->on(m->radio_ctx);
    else if (!want && m->radio->off != NULL)
        m->radio->off(m->radio_ctx);
}
#else
/* NullRDC only: the receiver is on from init on. */
static void radio_sync(struct mip_mac *m)
{
    if (m->radio_on)
        return;
    m->radio_on = true;
    if (m->radio->on != NULL)
        m->radio->on(m->radio_ctx);
}
#endif

mip_status mip_mac_init(struct mip_mac *m, const struct mip_mac_config *cfg,
                        const struct mip_radio_driver *radio, void *radio_ctx,
                        const struct mip_mac_callbacks *cb,
                        const uint8_t *seed, size_t seed_len, mip_utime_t now)
{
    if (m == NULL || cfg == NULL || radio == NULL || (seed == NULL && seed_len != 0u))
        return MIP_ERR_INVALID;
    if (!config_ok(cfg, radio))
        return MIP_ERR_INVALID;
    if (cfg->rdc.kind < RDC_KINDS && mac_rdcs[cfg->rdc.kind] == NULL)
        return MIP_ERR_UNSUPPORTED;       /* left out of this build */
    if (mip_mac_rdc_check(cfg) != MIP_RDC_OK)
        return MIP_ERR_INVALID;
#if !MIP_BUFS_OWN && MIP_RDC_HAS_PARENT
    if (cfg->rdc.kind == MIP_RDC_PARENT && cfg->rdc.held == NULL)
        return MIP_ERR_INVALID;         /* the caller's held frames (rdc.h) */
#endif
    memset(m, 0, sizeof(*m));
    m->cfg = *cfg;
    m->radio = radio;
    m->radio_ctx = radio_ctx;
    if (cb != NULL)
        m->cb = *cb;
    mip_rng_seed(&m->rng, seed, seed_len);
    /* 802.15.4 s.7.5.6.1: macDSN starts at a random value, so a rebooted
     * node is not taken for a duplicate of its former self. */
    m->next_seq = (uint8_t)mip_rng_next(&m->rng);
    m->now = now;
    m->last_done = now - 0x10000u;   /* longer ago than any gap */
    m->state = MIP_MAC_ST_IDLE;
#if MIP_CONF_LLSEC
    if (!mip_llsec_init(m))
        return MIP_ERR_INVALID;
#endif
    m->rdc_ops = mac_rdcs[cfg->rdc.kind]();
    rdc(m)->init(m);
    radio_sync(m);
    return MIP_OK;
}

enum mip_rdc_check mip_mac_rdc_check(const struct mip_mac_config *cfg)
{
    if (cfg == NULL || cfg->rdc.kind >= RDC_KINDS || mac_rdcs[cfg->rdc.kind] == NULL)
        return MIP_RDC_BAD_KIND;
    return mac_rdcs[cfg->rdc.kind]()->check(cfg);
}

/* --- sending ------------------------------------------------------------- */

/* Link ACKs exist for unicast only (802.15.4 s.7.5.6.4). */
static bool is_unicast(const struct mip_802154_hdr *h)
{
    if (h->dst.mode == MIP_802154_ADDR_SHORT)
        return h->dst.short_addr != MIP_802154_BROADCAST;
    return h->dst.mode == MIP_802154_ADDR_EXT;
}

mip_status mip_mac_send(struct mip_mac *m, const uint8_t *frame, size_t len, mip_utime_t now)
{
    return mip_mac_send_gap(m, frame, len, 0, now);
}

mip_status mip_mac_send_gap(struct mip_mac *m, const uint8_t *frame, size_t len,
                            uint16_t gap_us, mip_utime_t now)
{
    struct mip_802154_hdr h;
    struct mip_mac_qframe *q;
    size_t hl;
    if (m == NULL || frame == NULL || len < 3u || len > MIP_MAC_FRAME_MAX)
        return MIP_ERR_INVALID;
    if (mip_ieee802154_parse(frame, len, &h, &hl) != MIP_OK || h.type == MIP_802154_ACK ||
        h.type == MIP_802154_CMD)
        return MIP_ERR_INVALID;
#if MIP_CONF_LLSEC
    if (len + mip_mac_sec_overhead(&m->cfg) > MIP_MAC_FRAME_MAX)
        return MIP_ERR_INVALID;         /* it could not be secured */
#endif
    m->now = now;
    if (m->q_count >= MIP_MAC_QUEUE) {
        count(m, MIP_MAC_STAT_tx_queue_full);
        return MIP_ERR_NOBUFS;
    }
    q = &m->q[(m->q_head + m->q_count) % MIP_MAC_QUEUE];
    memcpy(q->data, frame, len);
    q->len = (uint8_t)len;
    q->gap_us = gap_us;
    q->data[2] = m->next_seq++;
    m->q_count++;
    count(m, MIP_MAC_STAT_tx_frames);
    return MIP_OK;
}

mip_status mip_mac_netif_transmit(void *mac, const uint8_t *frame, size_t len)
{
    struct mip_mac *m = mac;
    if (m == NULL)
        return MIP_ERR_INVALID;
    return mip_mac_send(m, frame, len, m->now);
}

mip_status mip_mac_netif_transmit_gap(void *mac, const uint8_t *frame, size_t len,
                                      uint16_t gap_us)
{
    struct mip_mac *m = mac;
    if (m == NULL)
        return MIP_ERR_INVALID;
    return mip_mac_send_gap(m, frame, len, gap_us, m->now);
}

size_t mip_mac_netif_room(void *mac)
{
    const struct mip_mac *m = mac;
    return m == NULL ? 0u : (size_t)(MIP_MAC_QUEUE - m->q_count);
}

void mip_mac_timer(struct mip_mac *m, uint8_t step, uint32_t delay_us)
{
    m->state = MIP_MAC_ST_ACCESS;
    m->step = step;
    m->deadline = m->now + delay_us;
}

void mip_mac_resume_cca(struct mip_mac *m)
{
    mip_mac_timer(m, MIP_MAC_STEP_CCA,
                  (uint32_t)m->cfg.timing.turnaround_us + m->cfg.timing.cca_us);
}

bool mip_mac_defer_if_busy(struct mip_mac *m)
{
    if (m->radio_tx == MIP_MAC_RADIO_IDLE)
        return false;
    m->state = MIP_MAC_ST_DEFER;
    return true;
}

bool mip_mac_cca_clear(struct mip_mac *m)
{
    if (m->radio->cca(m->radio_ctx))
        return true;
    count(m, MIP_MAC_STAT_cca_busy);
    return false;
}

void mip_mac_start_tx(struct mip_mac *m)
{
    if (mip_mac_defer_if_busy(m))
        return;
    rdc(m)->send(m);
}

void mip_mac_csma_step(struct mip_mac *m, void (*busy)(struct mip_mac *m))
{
    switch (m->step) {
    case MIP_MAC_STEP_BACKOFF:
        if (!mip_mac_defer_if_busy(m))
            mip_mac_timer(m, MIP_MAC_STEP_CCA, mip_mac_rx_start(m) + m->cfg.timing.cca_us);
        break;
    case MIP_MAC_STEP_CCA:
        if (mip_mac_defer_if_busy(m))
            break;
        if (mip_mac_cca_clear(m))       /* RX -> TX switch before the first bit */
            mip_mac_timer(m, MIP_MAC_STEP_TURNAROUND, m->cfg.timing.turnaround_us);
        else
            busy(m);
        break;
    default:                    /* TURNAROUND */
        mip_mac_start_tx(m);
        break;
    }
}

bool mip_mac_wait_ack_never(const struct mip_mac *m)
{
    (void)m;
    return false;
}

void mip_mac_noack_finish(struct mip_mac *m)
{
    mip_mac_finish(m, MIP_MAC_TX_NOACK);
}

void mip_mac_transmit(struct mip_mac *m)
{
    struct mip_mac_qframe *q = head(m);
#if MIP_CONF_LLSEC
    if (mip_llsec_on(m) && !mip_llsec_head_ready(m)) {
        mip_mac_finish(m, MIP_MAC_TX_SECURITY);
        return;
    }
#endif
    /* Set before the call: a driver may report the end from inside
     * transmit (a radio that blocks until the frame is out). */
    m->radio_tx = MIP_MAC_RADIO_DATA;
    m->state = MIP_MAC_ST_TX;
    if (m->radio->transmit(m->radio_ctx, q->data, q->len) != MIP_OK) {
        m->radio_tx = MIP_MAC_RADIO_IDLE;
        mip_mac_finish(m, MIP_MAC_TX_RADIO_ERROR);
        return;
    }
    count(m, MIP_MAC_STAT_tx_attempts);
}

void mip_mac_await_ack(struct mip_mac *m, uint32_t wait_us)
{
    m->state = MIP_MAC_ST_ACK_WAIT;
    m->deadline = m->now + wait_us;
}

void mip_mac_noack(struct mip_mac *m)
{
    proto(m)->noack(m);
}

#if MIP_RDC_DUTY_CYCLING
void mip_mac_rdc_wait(struct mip_mac *m, uint32_t delay_us)
{
    m->state = MIP_MAC_ST_RDC;
    m->deadline = m->now + delay_us;
}

void mip_mac_rdc_timer(struct mip_mac *m, uint32_t delay_us)
{
    m->rdc_armed = true;
    m->rdc_due = m->now + delay_us;
}

/* The receiver listens for a CCA (and the turnaround it guards) and for an
 * ACK; the radio must be free to send ACKs and frames. RETRY_DELAY and
 * BACKOFF steps need nothing: the radio may sleep through them. */
bool mip_mac_radio_needed(const struct mip_mac *m)
{
    if (m->ack_pending_tx || m->radio_tx != MIP_MAC_RADIO_IDLE)
        return true;
#if MIP_RDC_CTL
    if (m->ctl_pending)
        return true;
#endif
    switch (m->state) {
    case MIP_MAC_ST_ACCESS:
        return m->step == MIP_MAC_STEP_CCA || m->step == MIP_MAC_STEP_TURNAROUND ||
               m->step == MIP_MAC_STEP_SEND;
    case MIP_MAC_ST_DEFER:
    case MIP_MAC_ST_TX:
    case MIP_MAC_ST_ACK_WAIT:
        return true;
    default:                    /* IDLE, RDC: the RDC says */
        return false;
    }
}
#endif

static void report(struct mip_mac *m, const uint8_t *frame, size_t len,
                   enum mip_mac_tx_status st, uint8_t retries)
{
    static const uint8_t stat_of[] = {
        MIP_MAC_STAT_tx_ok, MIP_MAC_STAT_tx_noack, MIP_MAC_STAT_tx_channel_busy,
        MIP_MAC_STAT_tx_radio_error, MIP_MAC_STAT_tx_sec_failed
    };
    bool outer = m->in_call;
    count(m, (enum mip_mac_stat)stat_of[st]);
    if (m->cb.tx_done != NULL) {
        m->in_call = true;
        m->cb.tx_done(m->cb.ctx, frame, len, st, retries, m->now);
        m->in_call = outer;
    }
}

static void dequeue(struct mip_mac *m)
{
    /* A gap runs from the outcome of the previous data frame: a sleepy
     * leaf's data requests (MAC commands, which the owner cannot queue),
     * pushed ahead every poll, would otherwise restart it before it ends,
     * for ever. (A parent's frames released to a child restart it: there
     * are only as many as the owner queued.) */
    if ((head(m)->data[0] & 0x07u) != (uint8_t)MIP_802154_CMD)
        m->last_done = m->now;
    m->state = MIP_MAC_ST_IDLE;
    m->q_head = (uint8_t)((m->q_head + 1u) % MIP_MAC_QUEUE);
    m->q_count--;
    m->retries = 0;
    m->loading = false;
}

void mip_mac_finish(struct mip_mac *m, enum mip_mac_tx_status st)
{
    struct mip_mac_qframe *q = head(m);
    m->state = MIP_MAC_ST_IDLE;
#if MIP_CONF_LLSEC
    mip_llsec_plain(m, q);      /* the owner gets back what it queued */
#endif
    /* The frame stays at the head during the callback, so a send from it
     * cannot reuse its slot while the callback still reads it. A MAC
     * command (a leaf's data request) is the RDC's own: no outcome. */
#if MIP_RDC_HAS_LEAF
    if ((q->data[0] & 0x07u) != (uint8_t)MIP_802154_CMD)
#endif
        report(m, q->data, q->len, st, m->retries);
    dequeue(m);
}

#if MIP_RDC_QUEUE
mip_status mip_mac_push_front(struct mip_mac *m, const uint8_t *frame, size_t len)
{
    struct mip_mac_qframe *q;
    unsigned at, k;
    if (len < 3u || len > MIP_MAC_FRAME_MAX)
        return MIP_ERR_INVALID;
    if (m->q_count >= MIP_MAC_QUEUE)
        return MIP_ERR_NOBUFS;
    if (m->state == MIP_MAC_ST_IDLE) {
        m->q_head = (uint8_t)((m->q_head + MIP_MAC_QUEUE - 1u) % MIP_MAC_QUEUE);
        q = head(m);
    } else {
        /* behind the head: the frames after it move back one slot */
        for (k = m->q_count; k > 1u; k--) {
            at = (m->q_head + k) % MIP_MAC_QUEUE;
            m->q[at] = m->q[(at + MIP_MAC_QUEUE - 1u) % MIP_MAC_QUEUE];
        }
        q = &m->q[(m->q_head + 1u) % MIP_MAC_QUEUE];
    }
    memcpy(q->data, frame, len);
    q->len = (uint8_t)len;
    q->gap_us = 0;
    m->q_count++;
    return MIP_OK;
}

void mip_mac_handoff(struct mip_mac *m)
{
    dequeue(m);
}

void mip_mac_head_plain(struct mip_mac *m)
{
#if MIP_CONF_LLSEC
    mip_llsec_plain(m, head(m));
#else
    (void)m;
#endif
}

void mip_mac_report(struct mip_mac *m, const uint8_t *frame, size_t len,
                    enum mip_mac_tx_status st, uint8_t retries)
{
    report(m, frame, len, st, retries);
}
#endif

/* --- receiving ----------------------------------------------------------- */

bool mip_mac_addr_equal(const struct mip_802154_addr *a, const struct mip_802154_addr *b)
{
    if (a->mode != b->mode)
        return false;
    if (a->mode == MIP_802154_ADDR_SHORT)
        return a->short_addr == b->short_addr;
    return a->mode != MIP_802154_ADDR_EXT || memcmp(a->ext, b->ext, 8) == 0;
}

/* 802.15.4 s.7.5.6.2, third-level filtering for a node that is not a PAN
 * coordinator: a frame without a destination is not ours. */
static bool for_us(const struct mip_mac *m, const struct mip_802154_hdr *h)
{
    if (h->dst_pan != m->cfg.pan_id && h->dst_pan != MIP_802154_PAN_NONE)
        return false;
    if (h->dst.mode == MIP_802154_ADDR_SHORT)
        return h->dst.short_addr == MIP_802154_BROADCAST ||
               h->dst.short_addr == m->cfg.short_addr;
    if (h->dst.mode == MIP_802154_ADDR_EXT)
        return memcmp(h->dst.ext, m->cfg.ext_addr, 8) == 0;
    return false;
}

/* Frees the entries MIP_MAC_DUP_AGE_US old; the time until the next one
 * ages (UINT32_MAX: none). (now - at is exact below the whole wrap; poll
 * comes at this deadline, long before.) */
static uint32_t dup_age(struct mip_mac *m)
{
    uint32_t d = UINT32_MAX, age;
    unsigned i;
    for (i = 0; i < MIP_MAC_DUP_ENTRIES; i++) {
        if (!m->dup[i].used)
            continue;
        /* an entry stamped after m->now (a call carried an earlier time
         * than the frame's: an RDC timer run late) is young, not 2^32 old */
        if (mip_utime_before(m->now, m->dup[i].at))
            continue;
        age = m->now - m->dup[i].at;
        if (age >= MIP_MAC_DUP_AGE_US)
            m->dup[i].used = 0;
        else if (MIP_MAC_DUP_AGE_US - age < d)
            d = MIP_MAC_DUP_AGE_US - age;
    }
    return d;
}

/* One entry per recent sender holding its last sequence number: a
 * retransmission repeats it, a new frame does not. */
static bool duplicate(struct mip_mac *m, const struct mip_802154_hdr *h)
{
    struct mip_mac_dup *d;
    unsigned i;
    if (h->src.mode == MIP_802154_ADDR_NONE)
        return false;
    (void)dup_age(m);
    for (i = 0; i < MIP_MAC_DUP_ENTRIES; i++) {
        d = &m->dup[i];
        if (d->used && mip_mac_addr_equal(&d->src, &h->src)) {
            d->at = m->now;
            if (d->seq == h->seq)
                return true;
            d->seq = h->seq;
            return false;
        }
    }
    for (i = 0; i < MIP_MAC_DUP_ENTRIES && m->dup[m->dup_next].used; i++)
        m->dup_next = (uint8_t)((m->dup_next + 1u) % MIP_MAC_DUP_ENTRIES);
    d = &m->dup[m->dup_next];       /* a free one, else the next in turn */
    m->dup_next = (uint8_t)((m->dup_next + 1u) % MIP_MAC_DUP_ENTRIES);
    d->src = h->src;
    d->seq = h->seq;
    d->at = m->now;
    d->used = 1;
    return false;
}

static void rx_ack(struct mip_mac *m, const struct mip_802154_hdr *h)
{
    if (m->state == MIP_MAC_ST_ACK_WAIT && h->seq == head(m)->data[2] &&
        !mip_utime_before(m->deadline, m->now)) {
        count(m, MIP_MAC_STAT_acks_rx);
        rdc(m)->acked(m, h);
        mip_mac_finish(m, MIP_MAC_TX_OK);
        return;
    }
    /* late, unexpected or for someone else: ACKs carry no address */
    count(m, MIP_MAC_STAT_rx_not_for_us);
}

/* The MHR of a received frame; with security compiled in, secured frames
 * parse too (llsec.c unsecures them), else they are malformed here. */
static mip_status rx_parse(const struct mip_mac *m, const uint8_t *frame, size_t len,
                           struct mip_802154_hdr *h, size_t *hl)
{
#if MIP_CONF_LLSEC
    mip_status st = mip_ieee802154_parse_mhr(frame, len, h, hl);
    if (st == MIP_OK && h->security && (!mip_llsec_on(m) || h->type == MIP_802154_ACK))
        return MIP_ERR_UNSUPPORTED;     /* no key; or a secured ACK, which 2006 has not */
    return st;
#else
    (void)m;
    return mip_ieee802154_parse(frame, len, h, hl);
#endif
}

void mip_mac_radio_rx(struct mip_mac *m, const uint8_t *frame, size_t len, mip_utime_t now)
{
    struct mip_802154_hdr h;
    size_t hl;
    bool outer, repeat = false;
#if MIP_CONF_LLSEC
    uint8_t plain[MIP_MAC_FRAME_MAX];
    size_t plen;
#endif
    if (m == NULL)
        return;
    m->now = now;
    if (frame == NULL || len > MIP_MAC_FRAME_MAX || rx_parse(m, frame, len, &h, &hl) != MIP_OK) {
        count(m, MIP_MAC_STAT_rx_malformed);
        rdc(m)->rx(m, NULL, MIP_RDC_RX_OTHER);
        return;
    }
#if MIP_CONF_LLSEC
    /* Before anything looks at it (the RDC's own frames, the filter, link
     * ACKs, duplicates): nothing unauthenticated changes state. ACKs carry
     * no security (802.15.4-2006 Imm-Ack): matched as before, and never
     * trusted (mip_mac_rx_trusted). */
    if (mip_llsec_on(m) && h.type != MIP_802154_ACK) {
        enum mip_llsec_rx r = mip_llsec_rx(m, frame, len, &h, plain, &plen);
        if (r == MIP_LLSEC_RX_DROP) {
            rdc(m)->rx(m, NULL, MIP_RDC_RX_OTHER);
            return;
        }
        repeat = r == MIP_LLSEC_RX_REPEAT;
        frame = plain;
        len = plen;
    }
#endif
    if (h.type == MIP_802154_ACK) {
        rx_ack(m, &h);
        rdc(m)->rx(m, &h, MIP_RDC_RX_ACK);
        return;
    }
#if MIP_RDC_TAKES
    if (rdc(m)->take(m, frame, len, hl, &h))
        return;
#endif
    outer = m->in_call;
    if (h.type != MIP_802154_DATA || !for_us(m, &h)) {
        count(m, MIP_MAC_STAT_rx_not_for_us);
        if (h.type == MIP_802154_DATA && m->cb.overheard != NULL) {
            count(m, MIP_MAC_STAT_overheard);
            m->in_call = true;
            m->cb.overheard(m->cb.ctx, frame, len, hl, &h, now);
            m->in_call = outer;
        }
        rdc(m)->rx(m, &h, MIP_RDC_RX_OTHER);
        return;
    }
    if (h.ack_request && is_unicast(&h))
        mip_mac_ack(m, h.seq, false);
    if (repeat || duplicate(m, &h)) {
        count(m, MIP_MAC_STAT_rx_duplicates);
        /* a repeat (or a replay) is ACKed, but changes nothing else */
        rdc(m)->rx(m, &h, MIP_RDC_RX_DUP);
        return;
    } else {
        count(m, MIP_MAC_STAT_rx_frames);
        if (m->cb.input != NULL) {
            m->in_call = true;
            m->cb.input(m->cb.ctx, frame, len, hl, &h, now);
            m->in_call = outer;
        }
    }
    rdc(m)->rx(m, &h, MIP_RDC_RX_OURS);
}

/* A second ACK due before the first went out can only come from a radio
 * that delivers overlapping frames (or a parent answering a repeated data
 * request); the newer one wins. */
void mip_mac_ack(struct mip_mac *m, uint8_t seq, bool frame_pending)
{
    mip_ieee802154_emit_ack(seq, frame_pending, m->ack_out);
    m->ack_pending_tx = true;
    m->ack_due = m->now + m->cfg.timing.turnaround_us;
}

void mip_mac_radio_tx_done(struct mip_mac *m, mip_utime_t now)
{
    uint8_t was;
    if (m == NULL)
        return;
    m->now = now;
    was = m->radio_tx;
    m->radio_tx = MIP_MAC_RADIO_IDLE;
#if MIP_RDC_CTL
    if (was == MIP_MAC_RADIO_CTL) {
        rdc(m)->ctl_sent(m);
        return;
    }
#endif
    if (was != MIP_MAC_RADIO_DATA || m->state != MIP_MAC_ST_TX)
        return;
    rdc(m)->sent(m);
}

/* NullRDC's end of an attempt: the ACK wait when the frame asked for one
 * and the protocol waits for ACKs. */
void mip_rdc_sent_plain(struct mip_mac *m)
{
    if (m->ack_wanted && proto(m)->wait_ack(m)) {
        mip_mac_await_ack(m, m->cfg.timing.ack_wait_us);
        return;
    }
#if MIP_RDC_DUTY_CYCLING
    rdc(m)->acked(m, NULL);
#endif
    mip_mac_finish(m, MIP_MAC_TX_OK);
}

/* --- time ---------------------------------------------------------------- */

/* The radio cannot listen while it sends: a CCA in progress, or one
 * about to be acted on, no longer tells the truth about the channel. */
static void cca_voided(struct mip_mac *m)
{
    if (m->state == MIP_MAC_ST_ACCESS &&
        (m->step == MIP_MAC_STEP_CCA || m->step == MIP_MAC_STEP_TURNAROUND))
        m->state = MIP_MAC_ST_DEFER;
}

static void send_ack(struct mip_mac *m)
{
    m->ack_pending_tx = false;
    m->radio_tx = MIP_MAC_RADIO_ACK;    /* before the call, as in start_tx */
    if (m->radio->transmit(m->radio_ctx, m->ack_out, MIP_802154_ACK_LEN) != MIP_OK) {
        m->radio_tx = MIP_MAC_RADIO_IDLE;
        count(m, MIP_MAC_STAT_tx_radio_error);
        return;
    }
    count(m, MIP_MAC_STAT_acks_tx);
    cca_voided(m);
}

#if MIP_RDC_CTL
void mip_mac_ctl(struct mip_mac *m, const uint8_t *frame, size_t len, uint32_t delay_us)
{
    if (len == 0u || len > MIP_RDC_CTL_MAX)
        return;
    memcpy(m->ctl_out, frame, len);
    m->ctl_len = (uint8_t)len;
    m->ctl_pending = true;
    m->ctl_due = m->now + delay_us;
}

static void send_ctl(struct mip_mac *m)
{
    size_t len = m->ctl_len;
    m->ctl_pending = false;
#if MIP_CONF_LLSEC
    /* Strobes, strobe ACKs, probes: each secured with a counter of its own
     * as it goes on air, like the queue's frames, so counters follow the
     * air's order. (Secured when asked for, a strobe ACK waiting out its
     * delay went out after a broadcast copy secured later, and the
     * strober, having heard the copy, dropped the ACK as a replay.) One
     * that cannot be secured is not sent, as if the radio refused it. */
    if (mip_llsec_on(m) && (len = mip_llsec_secure(m, m->ctl_out, len, sizeof(m->ctl_out))) == 0u) {
        count(m, MIP_MAC_STAT_tx_sec_failed);
        rdc(m)->ctl_sent(m);
        return;
    }
#endif
    m->radio_tx = MIP_MAC_RADIO_CTL;
    if (m->radio->transmit(m->radio_ctx, m->ctl_out, len) != MIP_OK) {
        m->radio_tx = MIP_MAC_RADIO_IDLE;
        count(m, MIP_MAC_STAT_tx_radio_error);
        rdc(m)->ctl_sent(m);
        return;
    }
    cca_voided(m);
}
#endif

static bool frame_wants_ack(const struct mip_mac_qframe *q)
{
    struct mip_802154_hdr h;
    size_t hl;
    return mip_ieee802154_parse_mhr(q->data, q->len, &h, &hl) == MIP_OK && h.ack_request &&
           is_unicast(&h);
}

/* How long the head frame still waits for its gap after the previous
 * outcome. Unsigned elapsed time: after an idle time longer than the
 * clock's wrap a frame waits at most its gap, never the wrap. */
static uint32_t gap_left(const struct mip_mac *m)
{
    uint32_t gone = (uint32_t)(m->now - m->last_done), gap = m->q[m->q_head].gap_us;
    return gone < gap ? gap - gone : 0u;
}

/* One thing that is due; false when nothing is. ACKs go first: when one is
 * due at the instant our own frame would start, the radio sends the ACK
 * and the frame waits (a radio cannot send both). */
static bool run_one(struct mip_mac *m)
{
    if (m->ack_pending_tx && m->radio_tx == MIP_MAC_RADIO_IDLE && due(m, m->ack_due)) {
        send_ack(m);
        return true;
    }
#if MIP_RDC_CTL
    if (m->ctl_pending && m->radio_tx == MIP_MAC_RADIO_IDLE && due(m, m->ctl_due)) {
        send_ctl(m);
        return true;
    }
#endif
#if MIP_RDC_DUTY_CYCLING
    if (m->rdc_armed && due(m, m->rdc_due)) {
        m->rdc_armed = false;
        rdc(m)->timer(m);
        return true;
    }
#endif
    switch (m->state) {
    case MIP_MAC_ST_IDLE:
        if (m->q_count == 0u || gap_left(m) != 0u)
            return false;
        /* The host loads the frame into the radio (CPU and bus, radio.h)
         * before its channel access begins; retries and copies reuse it. */
        if (!m->loading && mip_radio_load_time(&m->cfg.timing, (size_t)head(m)->len +
                                               MIP_802154_FCS_LEN) != 0u) {
            m->loading = true;
            m->load_due = m->now + mip_radio_load_time(&m->cfg.timing,
                                                       (size_t)head(m)->len + MIP_802154_FCS_LEN);
            return true;
        }
        if (m->loading && !due(m, m->load_due))
            return false;
        m->loading = false;
        m->retries = 0;
        m->ack_wanted = frame_wants_ack(head(m));
        proto(m)->begin(m);
        return true;
    case MIP_MAC_ST_ACCESS:
        if (!due(m, m->deadline))
            return false;
        proto(m)->step(m);
        return true;
    case MIP_MAC_ST_DEFER:
        if (m->radio_tx != MIP_MAC_RADIO_IDLE)
            return false;
        proto(m)->resume(m);
        return true;
    case MIP_MAC_ST_ACK_WAIT:
        if (!due(m, m->deadline))
            return false;
        rdc(m)->ack_timeout(m);
        return true;
#if MIP_RDC_DUTY_CYCLING
    case MIP_MAC_ST_RDC:
        if (!due(m, m->deadline))
            return false;
        rdc(m)->step(m);
        return true;
#endif
    default:                    /* TX: the radio reports the end */
        return false;
    }
}

static uint32_t until(const struct mip_mac *m, mip_utime_t t)
{
    return mip_utime_before(m->now, t) ? (uint32_t)(t - m->now) : 0u;
}

static uint32_t next_delay(const struct mip_mac *m)
{
    uint32_t d = UINT32_MAX, x;
    if (m->ack_pending_tx && m->radio_tx == MIP_MAC_RADIO_IDLE)
        d = until(m, m->ack_due);
#if MIP_RDC_CTL
    if (m->ctl_pending && m->radio_tx == MIP_MAC_RADIO_IDLE) {
        x = until(m, m->ctl_due);
        if (x < d)
            d = x;
    }
#endif
#if MIP_RDC_DUTY_CYCLING
    if (m->rdc_armed) {
        x = until(m, m->rdc_due);
        if (x < d)
            d = x;
    }
#endif
    switch (m->state) {
    case MIP_MAC_ST_IDLE:
        if (m->q_count != 0u) {
            x = gap_left(m);
            if (x == 0u && m->loading)
                x = until(m, m->load_due);
            if (x < d)
                d = x;
        }
        break;
    case MIP_MAC_ST_ACCESS:
    case MIP_MAC_ST_ACK_WAIT:
#if MIP_RDC_DUTY_CYCLING
    case MIP_MAC_ST_RDC:
#endif
        x = until(m, m->deadline);
        if (x < d)
            d = x;
        break;
    case MIP_MAC_ST_DEFER:
        if (m->radio_tx == MIP_MAC_RADIO_IDLE)
            d = 0;
        break;
    default:
        break;
    }
    return d;
}

uint32_t mip_mac_poll(struct mip_mac *m, mip_utime_t now)
{
    unsigned steps;
    uint32_t aged, delay;
    if (m == NULL)
        return UINT32_MAX;
    if (m->in_call)
        return 0;
    m->now = now;
    /* The radio follows every step: the next may be a CCA at this instant
     * (zero-length timings). */
    for (steps = 0; steps < MAC_POLL_STEPS_MAX; steps++) {
        radio_sync(m);
        if (!run_one(m))
            break;
    }
    radio_sync(m);
    aged = dup_age(m);
    delay = next_delay(m);
    return aged < delay ? aged : delay;
}
