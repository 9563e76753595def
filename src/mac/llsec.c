/*
 * Link-layer security of the 802.15.4 MAC (802.15.4-2015 s.9; mac.h,
 * docs/MAC.md "Link-layer security"): securing the frame on its way,
 * unsecuring and verifying every frame received, the outgoing frame
 * counter with its stored reservation, and the replay table.
 *
 * Frames are secured when they first go on air (mip_mac_transmit), not
 * when queued: counters then follow the order frames take the air, so a
 * receiver never sees a sender's counters go backwards (a parent's frame
 * held for a sleeping child was once secured at queueing and lost to the
 * child's replay check after a newer broadcast). Copies and retries of an
 * attempt reuse the secured bytes, so they share one counter; an RDC that
 * sets the pending bit after that gets the frame secured afresh (the bit
 * is authenticated). The outcome and a frame handed to the parent's table
 * are reported in plaintext (mip_llsec_plain).
 */
#include <string.h>

#include "mac_proto.h"

#if MIP_CONF_LLSEC

#define FCF0_SECURITY 0x08u
#define FCF1_VERSION  0x30u
#define FCF1_V2006    0x10u

static void count(struct mip_mac *m, enum mip_mac_stat s)
{
    m->stats[s]++;
}

static const struct mip_mac_sec_config *scfg(const struct mip_mac *m)
{
    return &m->cfg.sec;
}

bool mip_llsec_config_ok(const struct mip_mac_sec_config *c)
{
    if (c->level == 0u)
        return true;
    return c->level <= 7u && c->level != MIP_802154_SEC_ENC && c->key_id_mode <= 3u &&
           (c->key_id_mode == MIP_802154_KEY_IMPLICIT || c->key_index != 0u) &&
           c->reserve != 0u;
}

bool mip_llsec_init(struct mip_mac *m)
{
    struct mip_mac_sec *s = &m->sec;
    const struct mip_mac_sec_config *c = scfg(m);
    if (c->level == 0u)
        return true;
    if (c->cipher.ops != NULL) {
        s->cipher = c->cipher;
    } else {
        s->cipher.ops = mip_aes128_soft();
        s->cipher.ctx = &s->aes;
    }
    if (s->cipher.ops->set_key == NULL || s->cipher.ops->encrypt == NULL ||
        !s->cipher.ops->set_key(s->cipher.ctx, c->key))
        return false;
    s->counter = c->counter;
    /* without a store nothing is reserved: every counter is free to use */
    s->reserved = c->persist != NULL ? c->counter : UINT32_MAX;
    return true;
}

bool mip_llsec_on(const struct mip_mac *m)
{
    return scfg(m)->level != 0u;
}

/* The aux header we send. */
static void our_aux(const struct mip_mac *m, struct mip_802154_sec *a)
{
    const struct mip_mac_sec_config *c = scfg(m);
    memset(a, 0, sizeof(*a));
    a->level = c->level;
    a->key_id_mode = c->key_id_mode;
    a->frame_counter = m->sec.counter;
    memcpy(a->key_source, c->key_source, sizeof(a->key_source));
    a->key_index = c->key_index;
}

/* A counter may be used: below the stored reservation, or a new one
 * stored first. 0xFFFFFFFF is never used (802.15.4-2015 s.9.2.1: the
 * counter is exhausted; a new key is needed). */
static bool reserve(struct mip_mac *m)
{
    struct mip_mac_sec *s = &m->sec;
    const struct mip_mac_sec_config *c = scfg(m);
    uint32_t upto;
    if (s->counter == UINT32_MAX)
        return false;
    if (s->counter < s->reserved)
        return true;
    upto = UINT32_MAX - s->counter < c->reserve ? UINT32_MAX : s->counter + c->reserve;
    if (!c->persist(c->persist_ctx, upto))
        return false;
    s->reserved = upto;
    return true;
}

/* Bytes from the start of a frame that travel in the clear but are
 * authenticated (802.15.4-2015 s.9.3.5.2): the MHR and aux header, the
 * whole payload without encryption, and a MAC command's Command ID. */
static size_t open_len(uint8_t level, uint8_t type, size_t hl_al, size_t payload_len)
{
    if (level < MIP_802154_SEC_ENC)
        return hl_al + payload_len;
    return hl_al + (type == MIP_802154_CMD && payload_len > 0u ? 1u : 0u);
}

size_t mip_llsec_secure(struct mip_mac *m, uint8_t *f, size_t len, size_t cap)
{
    struct mip_802154_hdr h;
    struct mip_802154_sec a;
    uint8_t nonce[MIP_CCM_NONCE_LEN];
    size_t hl, al, mic, open;
    if (mip_ieee802154_parse(f, len, &h, &hl) != MIP_OK)
        return 0;
    our_aux(m, &a);
    al = mip_ieee802154_sec_len(&a);
    mic = mip_ieee802154_mic_len(a.level);
    if (len + al + mic > cap || !reserve(m))
        return 0;
    memmove(f + hl + al, f + hl, len - hl);
    (void)mip_ieee802154_sec_emit(&a, f + hl, al, &al);
    f[0] = (uint8_t)(f[0] | FCF0_SECURITY);
    f[1] = (uint8_t)((f[1] & ~FCF1_VERSION) | FCF1_V2006);   /* 2006 security format */
    open = open_len(a.level, h.type, hl + al, len - hl);
    mip_ieee802154_nonce(m->cfg.ext_addr, a.frame_counter, a.level, nonce);
    (void)mip_ccm_star_seal(&m->sec.cipher, nonce, f, open, f + open, len + al - open,
                            a.level >= MIP_802154_SEC_ENC, f + len + al, mic);
    m->sec.counter++;
    return len + al + mic;
}

/* One of our own frames back to plaintext (the MIC is not needed). */
static size_t strip(const struct mip_mac *m, uint8_t *f, size_t len)
{
    struct mip_802154_hdr h;
    struct mip_802154_sec a;
    uint8_t nonce[MIP_CCM_NONCE_LEN];
    size_t hl, al, mic, open, end;
    if (mip_ieee802154_parse_mhr(f, len, &h, &hl) != MIP_OK || !h.security ||
        mip_ieee802154_sec_parse(f + hl, len - hl, &a, &al) != MIP_OK)
        return len;
    mic = mip_ieee802154_mic_len(a.level);
    if (len < hl + al + mic)
        return len;
    end = len - mic;
    open = open_len(a.level, h.type, hl + al, end - hl - al);
    if (a.level >= MIP_802154_SEC_ENC) {
        mip_ieee802154_nonce(m->cfg.ext_addr, a.frame_counter, a.level, nonce);
        (void)mip_ccm_star_open(&m->sec.cipher, nonce, f, open, f + open, end - open, true,
                                f + end, mic);
    }
    memmove(f + hl, f + hl + al, end - hl - al);
    f[0] = (uint8_t)(f[0] & ~FCF0_SECURITY);
    return end - al;
}

bool mip_llsec_head_ready(struct mip_mac *m)
{
    struct mip_mac_qframe *q = &m->q[m->q_head];
    size_t n;
    if ((q->data[0] & FCF0_SECURITY) != 0u) {
        if (q->data[0] == m->sec.fcf0)
            return true;        /* a copy or retry: the same secured bytes */
        q->len = (uint8_t)strip(m, q->data, q->len);    /* a bit changed since */
    }
    n = mip_llsec_secure(m, q->data, q->len, MIP_MAC_FRAME_MAX);
    if (n == 0u)
        return false;
    q->len = (uint8_t)n;
    m->sec.fcf0 = q->data[0];
    return true;
}

void mip_llsec_plain(struct mip_mac *m, struct mip_mac_qframe *q)
{
    if ((q->data[0] & FCF0_SECURITY) != 0u)
        q->len = (uint8_t)strip(m, q->data, q->len);
}

/* --- receiving ------------------------------------------------------------ */

static bool key_matches(const struct mip_mac_sec_config *c, const struct mip_802154_sec *a)
{
    static const uint8_t src_len[4] = {0, 0, 4, 8};
    return a->level == c->level && a->key_id_mode == c->key_id_mode &&
           (a->key_id_mode == MIP_802154_KEY_IMPLICIT ||
            (a->key_index == c->key_index &&
             memcmp(a->key_source, c->key_source, src_len[a->key_id_mode & 3u]) == 0));
}

/* The sender's extended address, for the nonce and the replay table. */
static bool sender_ext(const struct mip_mac *m, const struct mip_802154_hdr *h, uint8_t ext[8])
{
    const struct mip_mac_sec_config *c = scfg(m);
    if (h->src.mode == MIP_802154_ADDR_EXT) {
        memcpy(ext, h->src.ext, 8);
        return true;
    }
    return h->src.mode == MIP_802154_ADDR_SHORT && c->ext_of != NULL &&
           c->ext_of(c->ext_ctx, h->src_pan, h->src.short_addr, ext);
}

static struct mip_mac_sec_nbr *nbr_find(struct mip_mac *m, const uint8_t ext[8])
{
    unsigned i;
    for (i = 0; i < m->sec.n_nbr; i++)
        if (memcmp(m->sec.nbr[i].ext, ext, 8) == 0)
            return &m->sec.nbr[i];
    return NULL;
}

/* The counter a frame must reach: above the last from a known sender;
 * at least the floor from one not in the table (a sender evicted with
 * counter c left the floor above c, so none of its old frames passes). */
static bool fresh(const struct mip_mac *m, const struct mip_mac_sec_nbr *n, uint32_t ctr)
{
    return n != NULL ? ctr >= n->counter : ctr >= m->sec.floor;
}

/* Records ctr for the sender at the front of the table (most recent
 * first); a full table evicts the least recent, raising the floor above
 * its counter. */
static void nbr_note(struct mip_mac *m, struct mip_mac_sec_nbr *n, const uint8_t ext[8],
                     uint32_t ctr)
{
    struct mip_mac_sec *s = &m->sec;
    struct mip_mac_sec_nbr *last;
    size_t k;
    if (n == NULL) {
        if (s->n_nbr == MIP_LLSEC_NEIGHBORS) {
            last = &s->nbr[MIP_LLSEC_NEIGHBORS - 1u];
            if (last->counter >= s->floor)
                s->floor = last->counter == UINT32_MAX ? UINT32_MAX : last->counter + 1u;
            count(m, MIP_MAC_STAT_sec_nbr_evicted);
        } else {
            s->n_nbr++;
        }
        n = &s->nbr[s->n_nbr - 1u];
        memcpy(n->ext, ext, 8);
    }
    n->counter = ctr;
    k = (size_t)(n - s->nbr);
    if (k != 0u) {
        struct mip_mac_sec_nbr t = *n;
        memmove(&s->nbr[1], &s->nbr[0], k * sizeof(t));
        s->nbr[0] = t;
    }
}

enum mip_llsec_rx mip_llsec_rx(struct mip_mac *m, const uint8_t *f, size_t len,
                               struct mip_802154_hdr *h, size_t *hl, uint8_t *plain,
                               size_t *plain_len)
{
    struct mip_802154_sec a;
    struct mip_mac_sec_nbr *n;
    uint8_t ext[8], nonce[MIP_CCM_NONCE_LEN];
    size_t al, mic, end, open;
    bool repeat;
    if (!h->security) {
        count(m, MIP_MAC_STAT_rx_sec_none);
        return MIP_LLSEC_RX_DROP;
    }
    if (mip_ieee802154_sec_parse(f + *hl, len - *hl, &a, &al) != MIP_OK ||
        !key_matches(scfg(m), &a) ||
        len < *hl + al + (mic = mip_ieee802154_mic_len(a.level))) {
        count(m, MIP_MAC_STAT_rx_sec_policy);
        return MIP_LLSEC_RX_DROP;
    }
    if (!sender_ext(m, h, ext)) {
        count(m, MIP_MAC_STAT_rx_sec_no_addr);
        return MIP_LLSEC_RX_DROP;
    }
    n = nbr_find(m, ext);
    if (!fresh(m, n, a.frame_counter)) {       /* before any work: cheap */
        count(m, MIP_MAC_STAT_rx_sec_replay);
        return MIP_LLSEC_RX_DROP;
    }
    end = len - mic;
    open = open_len(a.level, h->type, *hl + al, end - *hl - al);
    memcpy(plain, f, end);
    mip_ieee802154_nonce(ext, a.frame_counter, a.level, nonce);
    if (!mip_ccm_star_open(&m->sec.cipher, nonce, plain, open, plain + open, end - open,
                           a.level >= MIP_802154_SEC_ENC, f + end, mic)) {
        count(m, MIP_MAC_STAT_rx_sec_mic);
        return MIP_LLSEC_RX_DROP;
    }
    /* Authentic. The same counter again is the same frame again (a retry
     * whose ACK was lost, another copy of a train): ACKed, never passed
     * up twice. */
    repeat = n != NULL && a.frame_counter == n->counter;
    if (!repeat)
        nbr_note(m, n, ext, a.frame_counter);
    memmove(plain + *hl, plain + *hl + al, end - *hl - al);
    plain[0] = (uint8_t)(plain[0] & ~FCF0_SECURITY);
    *plain_len = end - al;
    if (mip_ieee802154_parse(plain, *plain_len, h, hl) != MIP_OK)
        return MIP_LLSEC_RX_DROP;   /* not reached: the same MHR parsed before */
    h->sec_level = a.level;
    return repeat ? MIP_LLSEC_RX_REPEAT : MIP_LLSEC_RX_NEW;
}

size_t mip_mac_sec_plain(const struct mip_mac *m, const uint8_t *frame, size_t len,
                         uint8_t *out, size_t cap)
{
    if (m == NULL || frame == NULL || out == NULL || len > cap)
        return 0;
    memcpy(out, frame, len);
    if (!mip_llsec_on(m) || len == 0u || (out[0] & FCF0_SECURITY) == 0u)
        return len;
    return strip(m, out, len);
}

size_t mip_mac_sec_overhead(const struct mip_mac_config *cfg)
{
    struct mip_802154_sec a;
    if (cfg == NULL || cfg->sec.level == 0u)
        return 0;
    memset(&a, 0, sizeof(a));
    a.key_id_mode = cfg->sec.key_id_mode;
    return mip_ieee802154_sec_len(&a) + mip_ieee802154_mic_len(cfg->sec.level);
}

bool mip_mac_rx_trusted(const struct mip_mac *m, const struct mip_802154_hdr *h)
{
    if (m == NULL || !mip_llsec_on(m))
        return true;
    return h != NULL && h->sec_level != 0u && h->sec_level == scfg(m)->level;
}

uint32_t mip_mac_sec_counter(const struct mip_mac *m)
{
    return m != NULL && mip_llsec_on(m) ? m->sec.counter : 0u;
}

#else /* !MIP_CONF_LLSEC */

size_t mip_mac_sec_overhead(const struct mip_mac_config *cfg)
{
    (void)cfg;
    return 0;
}

bool mip_mac_rx_trusted(const struct mip_mac *m, const struct mip_802154_hdr *h)
{
    (void)m;
    (void)h;
    return true;
}

uint32_t mip_mac_sec_counter(const struct mip_mac *m)
{
    (void)m;
    return 0;
}

size_t mip_mac_sec_plain(const struct mip_mac *m, const uint8_t *frame, size_t len,
                         uint8_t *out, size_t cap)
{
    (void)m;
    if (frame == NULL || out == NULL || len > cap)
        return 0;
    memcpy(out, frame, len);
    return len;
}

#endif
