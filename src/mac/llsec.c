/*
 * Link-layer security of the 802.15.4 MAC (802.15.4-2015 s.9; mac.h,
 * docs/MAC.md "Link-layer security"): securing the frame on its way,
 * unsecuring and verifying every frame received, the outgoing frame
 * counter with its stored reservation, and the replay table.
 *
 * Frames are secured when they go on air (mip_mac_transmit), not when
 * queued: counters then follow the order frames take the air, so a
 * receiver never sees a sender's counters go backwards (a parent's frame
 * held for a sleeping child was once secured at queueing and lost to the
 * child's replay check after a newer broadcast). Copies and retries reuse
 * the secured bytes, one counter, while no other frame was secured in
 * between; after one was (X-MAC's strobes before a retry, LPP's probes), or
 * once an RDC sets the pending bit (authenticated), the frame is secured
 * afresh (a retry once kept its old counter and every receiver that had
 * heard the strobes dropped it as a replay). The outcome and a frame
 * handed to the parent's table are reported in plaintext
 * (mip_llsec_plain).
 */
#include <string.h>

#include "mac_proto.h"

#if MIP_CONF_LLSEC

#define FCF0_SECURITY 0x08u
#define FCF1_VERSION  0x30u
#define FCF1_V2006    0x10u

/* The aux header's length per key id mode (s.9.4.1). */
static const uint8_t aux_len[4] = {5, 6, 10, 14};

static const struct mip_mac_sec_config *scfg(const struct mip_mac *m)
{
    return &m->cfg.sec;
}

bool mip_llsec_config_ok(const struct mip_mac_sec_config *c)
{
    static const uint8_t src_len[4] = {0, 0, 4, 8};
    uint8_t zero[8] = {0};
    return c->level == 0u ||
           (c->level <= 7u && c->level != MIP_802154_SEC_ENC && c->key_id_mode <= 3u &&
            (c->key_id_mode == MIP_802154_KEY_IMPLICIT) == (c->key_index == 0u) &&
            memcmp(c->key_source + src_len[c->key_id_mode], zero,
                   8u - src_len[c->key_id_mode]) == 0 &&
            c->reserve != 0u);
}

bool mip_llsec_init(struct mip_mac *m)
{
    struct mip_mac_sec *s = &m->sec;
    const struct mip_mac_sec_config *c = scfg(m);
    s->cipher = c->cipher;
    if (s->cipher.ops == NULL) {
        s->cipher.ops = mip_aes128_soft();
        s->cipher.ctx = &s->aes;
    }
    s->counter = c->counter;
    /* without a store nothing is reserved: every counter is free to use */
    s->reserved = c->persist != NULL ? c->counter : UINT32_MAX;
    return c->level == 0u || s->cipher.ops->set_key(s->cipher.ctx, c->key);
}

bool mip_llsec_on(const struct mip_mac *m)
{
    return scfg(m)->level != 0u;
}

/* Where the parts of a secured frame lie: MHR [0, hl), aux header
 * [hl, hl + al), payload [hl + al, end), MIC [end, len); the bytes
 * [0, open) travel in the clear, authenticated (s.9.3.5.2: the whole
 * payload without encryption, a MAC command's Command ID with it). */
struct geom {
    struct mip_802154_sec a;
    size_t hl, al, end, open;
    uint8_t type;
};

static bool geometry(const uint8_t *f, size_t len, struct geom *g)
{
    struct mip_802154_hdr h;
    size_t mic;
    if (mip_ieee802154_parse_mhr(f, len, &h, &g->hl) != MIP_OK || !h.security ||
        mip_ieee802154_sec_parse(f + g->hl, len - g->hl, &g->a, &g->al) != MIP_OK)
        return false;
    mic = mip_ieee802154_mic_len(g->a.level);
    if (len < g->hl + g->al + mic)
        return false;
    g->end = len - mic;
    g->type = h.type;
    g->open = g->hl + g->al;
    if (g->a.level < MIP_802154_SEC_ENC)
        g->open = g->end;
    else if (h.type == MIP_802154_CMD && g->end > g->open)
        g->open++;
    return true;
}

/* CCM* over frame f of geometry g, nonce from the sender's EUI-64: seal
 * (the MIC written after the payload) or open (checked). */
static bool crypt(const struct mip_mac *m, const uint8_t ext[8], uint8_t *f, const uint8_t *mic,
                  const struct geom *g, bool open)
{
    uint8_t nonce[MIP_CCM_NONCE_LEN];
    bool enc = g->a.level >= MIP_802154_SEC_ENC;
    size_t ml = mip_ieee802154_mic_len(g->a.level);
    mip_ieee802154_nonce(ext, g->a.frame_counter, g->a.level, nonce);
    if (open)
        return mip_ccm_star_open(&m->sec.cipher, nonce, f, g->open, f + g->open,
                                 g->end - g->open, enc, mic, ml);
    return mip_ccm_star_seal(&m->sec.cipher, nonce, f, g->open, f + g->open, g->end - g->open,
                             enc, f + g->end, ml);
}

/* The plaintext frame in place: the aux header and MIC out, the bit clear. */
static size_t squeeze(uint8_t *f, const struct geom *g)
{
    memmove(f + g->hl, f + g->hl + g->al, g->end - g->hl - g->al);
    f[0] = (uint8_t)(f[0] & ~FCF0_SECURITY);
    return g->end - g->al;
}

size_t mip_llsec_secure(struct mip_mac *m, uint8_t *f, size_t len, size_t cap)
{
    struct mip_mac_sec *s = &m->sec;
    const struct mip_mac_sec_config *c = scfg(m);
    struct mip_802154_hdr h;
    struct mip_802154_sec a;
    struct geom g;
    size_t hl, al, n;
    uint32_t upto;
    if (mip_ieee802154_parse(f, len, &h, &hl) != MIP_OK)
        return 0;
    n = len + mip_mac_sec_overhead(&m->cfg);
    /* A counter is used only below a stored bound (persist); 0xFFFFFFFF
     * never (s.9.2.1: exhausted, a new key is needed). */
    if (n > cap || s->counter == UINT32_MAX)
        return 0;
    if (s->counter >= s->reserved) {
        upto = UINT32_MAX - s->counter < c->reserve ? UINT32_MAX : s->counter + c->reserve;
        if (!c->persist(c->persist_ctx, upto))
            return 0;
        s->reserved = upto;
    }
    memset(&a, 0, sizeof(a));
    a.level = c->level;
    a.key_id_mode = c->key_id_mode;
    a.frame_counter = s->counter++;
    memcpy(a.key_source, c->key_source, sizeof(a.key_source));
    a.key_index = c->key_index;
    al = aux_len[a.key_id_mode];
    memmove(f + hl + al, f + hl, len - hl);
    (void)mip_ieee802154_sec_emit(&a, f + hl, al, &al);
    f[0] = (uint8_t)(f[0] | FCF0_SECURITY);
    f[1] = (uint8_t)((f[1] & ~FCF1_VERSION) | FCF1_V2006);   /* 2006 security format */
    (void)geometry(f, n, &g);
    (void)crypt(m, m->cfg.ext_addr, f, NULL, &g, false);
    return n;
}

/* One of our own frames back to plaintext (its MIC is not checked). */
static size_t strip(const struct mip_mac *m, uint8_t *f, size_t len)
{
    struct geom g;
    if (!geometry(f, len, &g))
        return len;
    (void)crypt(m, m->cfg.ext_addr, f, f + g.end, &g, true);
    return squeeze(f, &g);
}

bool mip_llsec_head_ready(struct mip_mac *m)
{
    struct mip_mac_qframe *q = &m->q[m->q_head];
    struct geom g;
    size_t n;
    if ((q->data[0] & FCF0_SECURITY) != 0u) {
        /* A copy or retry with nothing secured since: the same secured
         * bytes (a receiver that has them takes them for a repeat). Once
         * another frame took a newer counter (a strobe, a probe, a
         * parent's frame for another child), a receiver that heard it
         * drops these as a replay, so they are secured afresh (the DSN
         * still tells a receiver that has the frame), as they are when a
         * bit changed (the pending bit, authenticated). */
        if (q->data[0] == m->sec.fcf0 && geometry(q->data, q->len, &g) &&
            g.a.frame_counter + 1u == m->sec.counter)
            return true;
        q->len = (uint8_t)strip(m, q->data, q->len);
    }
    n = mip_llsec_secure(m, q->data, q->len, MIP_MAC_FRAME_MAX);
    q->len = (uint8_t)(n != 0u ? n : q->len);
    m->sec.fcf0 = q->data[0];
    return n != 0u;
}

void mip_llsec_plain(struct mip_mac *m, struct mip_mac_qframe *q)
{
    q->len = (uint8_t)strip(m, q->data, q->len);
}

/* --- receiving ------------------------------------------------------------ */

/* Records ctr for the sender at the front of the table (most recent
 * first); a full table evicts the least recent, raising the floor above
 * its counter (n: the sender's entry, or NULL). */
static void nbr_note(struct mip_mac *m, struct mip_mac_sec_nbr *n, const uint8_t ext[8],
                     uint32_t ctr)
{
    struct mip_mac_sec *s = &m->sec;
    struct mip_mac_sec_nbr e;
    if (n == NULL) {
        n = &s->nbr[MIP_LLSEC_NEIGHBORS - 1u];
        if (s->n_nbr < MIP_LLSEC_NEIGHBORS) {
            n = &s->nbr[s->n_nbr++];
        } else {
            m->stats[MIP_MAC_STAT_sec_nbr_evicted]++;
            if (n->counter >= s->floor)
                s->floor = n->counter + (n->counter != UINT32_MAX);
        }
    }
    memcpy(e.ext, ext, 8);
    e.counter = ctr;
    memmove(&s->nbr[1], &s->nbr[0], (size_t)(n - s->nbr) * sizeof(e));
    s->nbr[0] = e;
}

enum mip_llsec_rx mip_llsec_rx(struct mip_mac *m, const uint8_t *f, size_t len,
                               struct mip_802154_hdr *h, uint8_t *plain, size_t *plain_len)
{
    struct mip_mac_sec *s = &m->sec;
    const struct mip_mac_sec_config *c = scfg(m);
    struct mip_mac_sec_nbr *n = NULL;
    struct geom g;
    uint8_t ext[8];
    unsigned i;
    enum mip_mac_stat why = MIP_MAC_STAT_rx_sec_none;
    if (!h->security)
        goto drop;
    why = MIP_MAC_STAT_rx_sec_policy;
    /* the parser zeroes what the mode leaves out, as our config has it */
    if (!geometry(f, len, &g) || g.a.level != c->level || g.a.key_id_mode != c->key_id_mode ||
        g.a.key_index != c->key_index ||
        memcmp(g.a.key_source, c->key_source, sizeof(c->key_source)) != 0)
        goto drop;
    why = MIP_MAC_STAT_rx_sec_no_addr;
    if (h->src.mode == MIP_802154_ADDR_EXT)
        memcpy(ext, h->src.ext, 8);
    else if (h->src.mode != MIP_802154_ADDR_SHORT || c->ext_of == NULL ||
             !c->ext_of(c->ext_ctx, h->src_pan, h->src.short_addr, ext))
        goto drop;
    /* Fresh: above the sender's last (equal: the same frame again), or at
     * least the floor from one not in the table. Checked before any work;
     * the table changes only after the MIC verified. */
    why = MIP_MAC_STAT_rx_sec_replay;
    for (i = 0; i < s->n_nbr; i++)
        if (memcmp(s->nbr[i].ext, ext, 8) == 0)
            n = &s->nbr[i];
    if (g.a.frame_counter < (n != NULL ? n->counter : s->floor))
        goto drop;
    why = MIP_MAC_STAT_rx_sec_mic;
    memcpy(plain, f, g.end);
    if (!crypt(m, ext, plain, f + g.end, &g, true))
        goto drop;
    *plain_len = squeeze(plain, &g);
    h->security = false;        /* the same MHR, *hl as it was, the bit clear */
    h->sec_level = g.a.level;
    /* Authentic. The same counter again is the same frame again (a retry
     * whose ACK was lost, another copy of a train): ACKed, never passed
     * up twice. */
    if (n != NULL && g.a.frame_counter == n->counter)
        return MIP_LLSEC_RX_REPEAT;
    nbr_note(m, n, ext, g.a.frame_counter);
    return MIP_LLSEC_RX_NEW;
drop:
    m->stats[why]++;
    return MIP_LLSEC_RX_DROP;
}

size_t mip_mac_sec_plain(const struct mip_mac *m, const uint8_t *frame, size_t len,
                         uint8_t *out, size_t cap)
{
    if (len > cap)
        return 0;
    memcpy(out, frame, len);
    return mip_llsec_on(m) ? strip(m, out, len) : len;
}

size_t mip_mac_sec_overhead(const struct mip_mac_config *cfg)
{
    return cfg->sec.level == 0u ? 0u
                                : aux_len[cfg->sec.key_id_mode & 3u] +
                                  mip_ieee802154_mic_len(cfg->sec.level);
}

bool mip_mac_rx_trusted(const struct mip_mac *m, const struct mip_802154_hdr *h)
{
    return !mip_llsec_on(m) || (h->sec_level != 0u && h->sec_level == scfg(m)->level);
}

uint32_t mip_mac_sec_counter(const struct mip_mac *m)
{
    return mip_llsec_on(m) ? m->sec.counter : 0u;
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
