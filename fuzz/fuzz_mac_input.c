/*
 * libFuzzer harness for the 802.15.4 MAC (src/mac/): one struct mip_mac over
 * a fake radio, driven by arbitrary interleavings of received frames (raw
 * bytes, or built frames for us / for others / ACKs), radio tx_done reports
 * (due, early and spurious), sends (valid and invalid), time steps polled
 * at every deadline, CCA answers and radio refusals, under NullRDC or
 * ContikiMAC. See fuzz/README.md ("fuzz_mac_input") for the input format.
 *
 * What traps:
 *   - the MAC transmits or asks for a CCA while the radio is sending;
 *   - a data frame on air that is not the queue's head (bytes other than
 *     the DSN), a DSN that changes between retries, retransmissions outside
 *     CSMA-CA or beyond max_retries, an ACK on air that is not 3 bytes of an
 *     ACK frame;
 *   - cb.tx_done not exactly once per accepted frame in FIFO order, with a
 *     frame other than the one queued, a DSN not one more than the previous
 *     frame's, a status the protocol cannot produce, retries > max_retries;
 *   - the queue beyond MIP_MAC_QUEUE or out of step with accepted - done;
 *   - mip_mac_poll returning 0 outside a callback (a deadline not in the
 *     future), a different delay when called twice at one instant, or an
 *     engine state out of range; mip_mac_poll from a callback not 0;
 *   - input / overheard callbacks with a frame that is (not) for us;
 *   - counters that disagree with what the harness saw;
 *   - at the end, with the channel clear, the radio willing and every
 *     transmission ending after its airtime: frames still queued.
 * With ContikiMAC (its copies are retransmissions of a kind, its CCAs
 * happen with nothing to send) those model checks that are NullRDC's give
 * way to its own:
 *   - a CCA with the receiver off, the receiver switched off with an ACK
 *     owed, on or off without a change;
 *   - a copy that differs from the head frame in more than the DSN and the
 *     frame pending bit, more copies than the trains of every try allow;
 *   - OK for a frame that asked for an ACK other than on that ACK, within
 *     the copy gap or an ACK's airtime after the copy;
 *   - after the drain, the receiver on longer than its channel checks (and
 *     one listen or burst) over four idle wake-up intervals.
 * With X-MAC, LPP, a sleepy leaf or its parent (header byte 0 kind 3, under
 * CSMA-CA: "loose" mode) the MAC sends frames of its own and the parent
 * reports held frames out of order, so the FIFO model gives way to:
 *   - every transmission is an ACK we owe (the pending bit only from a
 *     parent), a control frame of that kind (a strobe or strobe ACK, a
 *     probe: { 0x00, type }), a leaf's data request to its parent, or a
 *     queued frame (the head; any accepted one for a parent), differing
 *     only in the DSN and the pending bit;
 *   - frames the RDC takes (its control frames, a parent's data requests)
 *     never reach cb.input; a parent owes an ACK for a data request;
 *   - cb.tx_done once per accepted frame (in order but for a parent);
 *   - after the drain nothing queued or held, and X-MAC's and LPP's
 *     receivers on no longer than their wake-ups (and one wait) allow;
 *   - a parent: no frame from the air forgets a settled child that its
 *     timeout still keeps, and a data request is refused only when every
 *     entry of the table is a settled child.
 * With link-layer security (header byte 2 bit 7, not 0xFF; level, key id
 * mode and 16 counters left by bytes 1 and 3, see setup) under any of the
 * above, the harness reads every frame with its own CCM* and key:
 *   - every frame on air but an ACK is secured at the level, with our
 *     EUI-64's nonce and a MIC that verifies, and its counter is above
 *     every earlier one on air, or the newest again on the same bytes (a
 *     copy, a retry); 0xFFFFFFFF never; the checks above see its plaintext;
 *   - frames received: built ones secured by their sender (a fresh
 *     counter, the last again, an older one, another level, a bit
 *     flipped; the extra byte of rx_secured); the MAC drops exactly the
 *     ones the harness finds unsecured, of another level or key, from a
 *     sender without an address, with a bad MIC, or with a counter below
 *     the sender's last (its rx_sec_* counters sum to that), and treats
 *     the last counter again as a repeat (ACKed, not passed up);
 *   - MIP_MAC_TX_SECURITY only once every counter is used; a frame too
 *     long to secure refused at mip_mac_send.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/mac.h"
#include "../src/mac/mac_proto.h"   /* engine states for the checks */

#define MAX_OPS   256u
#define MAX_STEPS 4096u             /* events per time step */
#define T0        (0xFFFFFFFFu - 20000000u)   /* the clock wraps 20 s in */
#define PAN       0xABCDu
#define ME        0x0002u
#define OTHER     0x0003u
/* Frames accepted and not reported: the queue, and what a parent holds. */
#define MODEL_Q   (MIP_MAC_QUEUE + MIP_RDC_INDIRECT)

#define FAIL(...)                                                                 \
    do {                                                                          \
        fprintf(stderr, "fuzz_mac_input: CHECK FAILED (%s:%d): ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                             \
        fputc('\n', stderr);                                                      \
        __builtin_trap();                                                         \
    } while (0)
#define CHECK(cond, ...)       \
    do {                       \
        if (!(cond))           \
            FAIL(__VA_ARGS__); \
    } while (0)

static const uint8_t my_ext[8] = { 0x02, 0, 0, 0, 0, 0, 0, 0x02 };

struct expect {
    uint8_t len;
    bool wants_ack;             /* unicast with the ACK request bit */
    uint8_t data[MIP_MAC_FRAME_MAX];
};

/* What the harness is doing when a callback comes. */
enum { IN_OTHER, IN_TX_END, IN_RX_ACK };

static struct harness {
    struct mip_mac mac;
    struct mip_mac_config cfg;
    mip_utime_t now;
    bool cm;                    /* ContikiMAC under the protocol */
    bool loose;                 /* X-MAC, LPP, leaf or parent: see the header */
    uint8_t kind;               /* the RDC */
    unsigned ctl_tx, ctl_refused;
    /* radio */
    bool radio_on;
    mip_utime_t on_since;
    uint64_t on_us;
    bool busy;
    mip_utime_t tx_end;
    size_t air_len;             /* the frame on air, as sent (secured) */
    bool auto_end;              /* transmissions end after their airtime */
    uint8_t cca_mode;           /* 0 clear, 1 busy, 2 alternate, 3 pattern */
    uint8_t cca_pattern;
    unsigned ncca;
    unsigned refuse;            /* the next n transmits fail */
    /* frames accepted and not yet reported, in order */
    struct expect q[MODEL_Q];
    unsigned q_head, q_count;
    /* the current head's transmissions */
    bool head_sent;
    uint8_t head_dsn;
    unsigned head_tx;
    bool head_on_air;           /* the radio is sending the head frame */
    mip_utime_t head_end;       /* its last transmission ended then */
    uint8_t doing;              /* IN_* */
    /* the ACK we owe: for a unicast frame for us that asked */
    bool ack_owed;
    uint8_t ack_seq;
    mip_utime_t ack_due;
    mip_utime_t radio_free;     /* the radio went idle then */
    bool late;                  /* a time step skipped deadlines: no exact timing checks */
    unsigned busy_ccas;         /* busy CCAs of the current access round */
    unsigned busy_rounds;       /* rounds of the head frame retried after a busy
                                   channel (retry_on_busy) */
    /* model of duplicate detection while it has room for every sender */
    struct { struct mip_802154_addr src; uint8_t seq; mip_utime_t at; } senders[MIP_MAC_DUP_ENTRIES];
    unsigned nsenders;
    bool senders_overflow;
    /* totals */
    unsigned accepted, done, queue_full, data_tx, ack_tx, ack_refused, data_refused;
    unsigned st_count[5];
#if MIP_CONF_LLSEC
    /* link-layer security (header byte 2 bit 7): the harness's own CCM* */
    bool sec;
    struct mip_aes128 aes;
    struct mip_cipher cipher;
    uint32_t tx_newest;         /* the newest counter on air from us */
    bool tx_any;
    uint8_t tx_newest_len;
    uint8_t tx_newest_frame[MIP_MAC_FRAME_MAX];
    uint32_t rx_counter;        /* the next counter of the senders' frames */
    /* the MAC's replay table as it must be: each sender's last counter */
    struct { uint8_t ext[8]; uint32_t counter; } peers[MIP_LLSEC_NEIGHBORS];
    unsigned npeers;
    bool peers_overflow;
    unsigned sec_drops;         /* frames the MAC must drop for security */
#endif
    bool have_dsn;
    uint8_t last_dsn;
    /* callbacks */
    bool in_cb;
    bool resend;                /* tx_done sends another frame */
    bool zero_timing;
    uint16_t tag;
    unsigned inputs, overheard;
    uint8_t ctl_dsn;            /* the DSN of our last control frame */
} H;

/* MOTEIP_FUZZ_VERBOSE=1: every frame the MAC sends, as sent. */
static bool verbose(void)
{
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("MOTEIP_FUZZ_VERBOSE");
        v = e != NULL && e[0] != '\0' && e[0] != '0';
    }
    return v != 0;
}

struct cur {
    const uint8_t *p;
    size_t n, pos;
};

static uint8_t u8(struct cur *c)
{
    return c->pos < c->n ? c->p[c->pos++] : 0;
}

static uint16_t u16(struct cur *c)
{
    uint16_t hi = u8(c);
    return (uint16_t)((hi << 8) | u8(c));
}

static bool mine(const struct mip_802154_hdr *h)
{
    if (h->dst_pan != PAN && h->dst_pan != MIP_802154_PAN_NONE)
        return false;
    if (h->dst.mode == MIP_802154_ADDR_SHORT)
        return h->dst.short_addr == ME || h->dst.short_addr == MIP_802154_BROADCAST;
    if (h->dst.mode == MIP_802154_ADDR_EXT)
        return memcmp(h->dst.ext, my_ext, 8) == 0;
    return false;
}

/* The queued frame and one on air or reported: equal but for the DSN (the
 * MAC's) and, with ContikiMAC, the frame pending bit (a burst). */
static bool same_frame(const uint8_t *f, const uint8_t *q, size_t len)
{
    uint8_t mask = H.cm ? (uint8_t)~0x10u : 0xFFu;
    return ((f[0] ^ q[0]) & mask) == 0 && f[1] == q[1] && memcmp(f + 3, q + 3, len - 3) == 0;
}

/* Transmissions of one frame: 1 + max_retries tries, each with ContikiMAC a
 * train of at most (T + 2 checks) / copy_gap + 1 copies. */
static unsigned max_transmissions(void)
{
    unsigned per_try = 1u;
    if (H.cm) {
        const struct mip_rdc_config *r = &H.cfg.rdc;
        uint32_t check = (uint32_t)r->cca_count * r->cca_on_us +
                         (uint32_t)(r->cca_count - 1u) * r->cca_gap_us;
        per_try = (mip_rdc_period_us(r) + 2u * check) / r->copy_gap_us + 1u;
    }
    return (1u + H.cfg.max_retries) * per_try;
}

/* --- link-layer security ---------------------------------------------------- */

#if MIP_CONF_LLSEC
static const uint8_t sec_key[16] = { 0x4D, 0x6F, 0x74, 0x65, 0x49, 0x50, 0x20, 0x66,
                                     0x75, 0x7A, 0x7A, 0x20, 0x6B, 0x65, 0x79, 0x21 };

/* A sender's EUI-64 by its short address, for the nonce (the MAC's ext_of
 * and the harness's senders agree on it). */
static bool ext_of_short(void *ctx, uint16_t pan, uint16_t short_addr, uint8_t ext[8])
{
    (void)ctx;
    (void)pan;
    memset(ext, 0, 8);
    ext[0] = 0x12;
    ext[6] = (uint8_t)(short_addr >> 8);
    ext[7] = (uint8_t)short_addr;
    return true;
}

/* A secured frame is MHR [0, hl), aux header [hl, hl + al), payload to
 * end, MIC after (802.15.4-2015 9.3.5). Returns where the encrypted part
 * starts: what lies before is authenticated in the clear (all of it
 * without encryption; a command's Command ID stays in the clear). */
static size_t sec_clear_end(uint8_t level, uint8_t type, size_t hl, size_t al, size_t end)
{
    if (level < MIP_802154_SEC_ENC)
        return end;
    return type == MIP_802154_CMD && end > hl + al ? hl + al + 1u : hl + al;
}

/* The EUI-64 of h's sender, for the nonce: its extended address, or its
 * short one's (ext_of_short); false for none. */
static bool sender_ext(const struct mip_802154_hdr *h, uint8_t ext[8])
{
    if (h->src.mode == MIP_802154_ADDR_EXT) {
        memcpy(ext, h->src.ext, 8);
        return true;
    }
    return h->src.mode == MIP_802154_ADDR_SHORT &&
           ext_of_short(NULL, h->src_pan, h->src.short_addr, ext);
}

/* The model's replay-table entry of sender ext, or H.npeers for none. */
static unsigned peer_find(const uint8_t ext[8])
{
    unsigned i;
    for (i = 0; i < H.npeers && memcmp(H.peers[i].ext, ext, 8) != 0; i++)
        ;
    return i;
}

enum sec_verdict { SEC_NONE, SEC_POLICY, SEC_NO_ADDR, SEC_MIC, SEC_OK };

/* Reads and verifies secured frame f as its receiver must, with the
 * harness's own key and CCM*: the plaintext (MHR with the security bit
 * clear, then the payload) to plain. ext: the sender's EUI-64 (NULL: from
 * its source address). The checks in the MAC's order. */
static enum sec_verdict sec_open(const uint8_t *f, size_t len, const uint8_t *ext,
                                 uint8_t *plain, size_t *plen, uint32_t *counter,
                                 uint8_t sender[8])
{
    const struct mip_mac_sec_config *c = &H.cfg.sec;
    struct mip_802154_hdr h;
    struct mip_802154_sec a;
    uint8_t buf[MIP_MAC_FRAME_MAX], nonce[MIP_CCM_NONCE_LEN];
    size_t hl, al, mic, end, open;
    if (mip_ieee802154_parse_mhr(f, len, &h, &hl) != MIP_OK || !h.security)
        return SEC_NONE;
    if (mip_ieee802154_sec_parse(f + hl, len - hl, &a, &al) != MIP_OK)
        return SEC_POLICY;
    mic = mip_ieee802154_mic_len(a.level);
    if (len < hl + al + mic || a.level != c->level || a.key_id_mode != c->key_id_mode ||
        a.key_index != c->key_index ||
        memcmp(a.key_source, c->key_source, sizeof(c->key_source)) != 0)
        return SEC_POLICY;
    if (ext != NULL)
        memcpy(sender, ext, 8);
    else if (!sender_ext(&h, sender))
        return SEC_NO_ADDR;
    end = len - mic;
    open = sec_clear_end(a.level, h.type, hl, al, end);
    memcpy(buf, f, len);
    mip_ieee802154_nonce(sender, a.frame_counter, a.level, nonce);
    if (!mip_ccm_star_open(&H.cipher, nonce, buf, open, buf + open, end - open,
                           a.level >= MIP_802154_SEC_ENC, f + end, mic))
        return SEC_MIC;
    memcpy(plain, buf, hl);
    memcpy(plain + hl, buf + hl + al, end - hl - al);
    plain[0] = (uint8_t)(plain[0] & ~0x08u);
    *plen = end - al;
    *counter = a.frame_counter;
    return SEC_OK;
}

/* Secures plaintext frame f (MHR of hl bytes) as the sender `ext` would,
 * with `counter` and `level`, into out; returns its length (0: too long). */
static size_t sec_seal(const uint8_t *f, size_t len, size_t hl, const uint8_t ext[8],
                       uint32_t counter, uint8_t level, uint8_t *out, size_t cap)
{
    const struct mip_mac_sec_config *c = &H.cfg.sec;
    struct mip_802154_sec a;
    uint8_t nonce[MIP_CCM_NONCE_LEN];
    size_t al, mic = mip_ieee802154_mic_len(level), end, open;
    memset(&a, 0, sizeof(a));
    a.level = level;
    a.key_id_mode = c->key_id_mode;
    a.key_index = c->key_index;
    a.frame_counter = counter;
    if (mip_ieee802154_sec_emit(&a, out + hl, cap > hl ? cap - hl : 0, &al) != MIP_OK ||
        len + al + mic > cap)
        return 0;
    memcpy(out, f, hl);
    memcpy(out + hl + al, f + hl, len - hl);
    out[0] = (uint8_t)(out[0] | 0x08u);
    end = len + al;
    open = sec_clear_end(level, out[0] & 7u, hl, al, end);
    mip_ieee802154_nonce(ext, counter, level, nonce);
    if (!mip_ccm_star_seal(&H.cipher, nonce, out, open, out + open, end - open,
                           level >= MIP_802154_SEC_ENC, out + end, mic))
        return 0;
    return end + mic;
}

/* A frame of ours on air: secured with our key and EUI-64, and with a
 * counter above every earlier one, or the newest one again on exactly the
 * same bytes (a copy or retry). A receiver drops an older counter as a
 * replay, and takes the same counter on other bytes for a repeat it does
 * not pass up: either loses the frame. Returns the plaintext's length. */
static size_t sec_tx(const uint8_t *frame, size_t len, uint8_t *plain)
{
    uint8_t ext[8];
    uint32_t ctr;
    size_t plen = 0;
    enum sec_verdict v = sec_open(frame, len, my_ext, plain, &plen, &ctr, ext);
    CHECK(v == SEC_OK, "a frame of ours on air %s", v == SEC_NONE ? "unsecured"
                                                   : v == SEC_MIC ? "whose MIC does not verify"
                                                                  : "of another level or key");
    CHECK(ctr != UINT32_MAX, "counter 0xFFFFFFFF used");
    if (H.tx_any && ctr == H.tx_newest) {
        CHECK(len == H.tx_newest_len && memcmp(frame, H.tx_newest_frame, len) == 0,
              "counter %u used again for other bytes", ctr);
    } else {
        CHECK(!H.tx_any || ctr > H.tx_newest, "counter %u on air after %u (a replay to anyone "
              "who heard that)", ctr, H.tx_newest);
        H.tx_any = true;
        H.tx_newest = ctr;
        H.tx_newest_len = (uint8_t)len;
        memcpy(H.tx_newest_frame, frame, len);
    }
    return plen;
}
#endif

/* --- fake radio ------------------------------------------------------------ */

/* A control frame of the kind's: { 0x00, type } after the MHR. */
static bool kind_ctl(const uint8_t *f, size_t len)
{
    struct mip_802154_hdr h;
    size_t hl;
    uint8_t t;
    if (mip_ieee802154_parse(f, len, &h, &hl) != MIP_OK || h.type != MIP_802154_DATA ||
        len != hl + 2u || f[hl] != 0u || h.ack_request)
        return false;
    t = f[hl + 1u];
    return H.kind == MIP_RDC_XMAC ? (t == 0x10u || t == 0x13u)
                                  : H.kind == MIP_RDC_LPP && t == 0x20u;
}

/* A data request (MAC command 0x04, ACK requested) of ours or to us. */
static bool data_request(const uint8_t *f, size_t len, struct mip_802154_hdr *h)
{
    size_t hl;
    return mip_ieee802154_parse(f, len, h, &hl) == MIP_OK && h->type == MIP_802154_CMD &&
           len == hl + 1u && f[hl] == 0x04u;
}

static mip_status loose_transmit(const uint8_t *frame, size_t len)
{
    struct mip_802154_hdr h;
    unsigned k, found = MODEL_Q;
    bool ctl = false;
    if ((frame[0] & 7u) == MIP_802154_ACK) {
        CHECK(H.mac.radio_tx == MIP_MAC_RADIO_ACK, "an ACK the MAC does not call one");
        CHECK(len == 3 && (frame[0] & ~0x10u) == MIP_802154_ACK && frame[1] == 0,
              "bad ACK frame");
        CHECK(!(frame[0] & 0x10u) || H.kind == MIP_RDC_PARENT, "pending bit from a non-parent");
        CHECK(H.ack_owed && frame[2] == H.ack_seq, "ACK %u nobody asked for", frame[2]);
        H.ack_owed = false;
        if (H.refuse) {
            H.refuse--;
            H.ack_refused++;
            return MIP_ERR_INUSE;
        }
        H.ack_tx++;
    } else if (H.mac.radio_tx == MIP_MAC_RADIO_CTL) {
        /* (a data frame may carry the same two bytes: the MAC says which) */
        CHECK(kind_ctl(frame, len), "a control frame not of this RDC");
        ctl = true;
        H.ctl_dsn = frame[2];
    } else if (H.kind == MIP_RDC_LEAF && data_request(frame, len, &h)) {
        CHECK(h.ack_request && h.dst.mode == MIP_802154_ADDR_SHORT && h.dst.short_addr == OTHER,
              "data request not to the parent");
    } else {
        CHECK(H.mac.radio_tx == MIP_MAC_RADIO_DATA, "radio_tx %u for a data frame",
              H.mac.radio_tx);
        for (k = 0; k < H.q_count && found == MODEL_Q; k++) {
            const struct expect *e = &H.q[(H.q_head + k) % MODEL_Q];
            if (len == e->len && ((frame[0] ^ e->data[0]) & ~0x10u) == 0 && frame[1] == e->data[1] &&
                memcmp(frame + 3, e->data + 3, len - 3) == 0)
                found = k;
            if (H.kind != MIP_RDC_PARENT)
                break;          /* the head only */
        }
        CHECK(found != MODEL_Q, "a frame on air that is not %s",
              H.kind == MIP_RDC_PARENT ? "queued" : "the queue's head");
    }
    if (H.refuse && (frame[0] & 7u) != MIP_802154_ACK) {
        H.refuse--;
        if (ctl)
            H.ctl_refused++;
        else
            H.data_refused++;
        return MIP_ERR_INUSE;
    }
    if (ctl) {
        H.ctl_tx++;
    } else if ((frame[0] & 7u) != MIP_802154_ACK) {
        H.data_tx++;
        H.head_dsn = frame[2];  /* op 3's "ACK for the head" answers the latest */
        if (found == 0u) {
            H.head_on_air = true;
            H.head_sent = true;
        }
    }
    H.busy = true;
    H.tx_end = H.now + mip_radio_airtime(&H.cfg.timing, H.air_len + MIP_802154_FCS_LEN);
    return MIP_OK;
}

static mip_status r_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    const struct expect *e;
#if MIP_CONF_LLSEC
    uint8_t plain[MIP_MAC_FRAME_MAX];
#endif
    (void)ctx;
    CHECK(!H.busy, "transmit while the radio is sending");
    CHECK(!H.in_cb, "transmit from inside a MAC callback");
    CHECK(len >= 3 && len <= MIP_MAC_FRAME_MAX, "transmit of %zu bytes", len);
    H.air_len = len;
    if (verbose()) {
        size_t i;
        fprintf(stderr, "  tx at %u (%s):", H.now, H.mac.radio_tx == MIP_MAC_RADIO_ACK ? "ACK"
                                                 : H.mac.radio_tx == MIP_MAC_RADIO_CTL ? "ctl"
                                                                                       : "data");
        for (i = 0; i < len; i++)
            fprintf(stderr, " %02x", frame[i]);
        fputc('\n', stderr);
    }
#if MIP_CONF_LLSEC
    /* every frame but an ACK secured: the checks below see its plaintext */
    if (H.sec && (frame[0] & 7u) != MIP_802154_ACK) {
        len = sec_tx(frame, len, plain);
        frame = plain;
    }
#endif
    if (H.loose)
        return loose_transmit(frame, len);
    if ((frame[0] & 7u) == MIP_802154_ACK) {
        CHECK(len == 3 && frame[0] == MIP_802154_ACK && frame[1] == 0, "bad ACK frame");
        CHECK(H.ack_owed && frame[2] == H.ack_seq, "ACK %u nobody asked for", frame[2]);
        /* due turnaround after the frame, or when the radio got free */
        CHECK(H.late || H.now == (mip_utime_before(H.ack_due, H.radio_free) ? H.radio_free
                                                                           : H.ack_due),
              "ACK sent at %u, due %u, radio free %u", H.now, H.ack_due, H.radio_free);
        H.ack_owed = false;
        if (H.refuse) {
            H.refuse--;
            H.ack_refused++;
            return MIP_ERR_INUSE;
        }
        H.ack_tx++;
    } else {
        CHECK(H.q_count > 0, "data frame on air with nothing queued");
        e = &H.q[H.q_head];
        CHECK(len == e->len && same_frame(frame, e->data, len),
              "frame on air is not the queue's head");
        if (H.head_sent) {
            CHECK(frame[2] == H.head_dsn, "DSN changed between retries");
            CHECK(H.cm || H.cfg.kind == MIP_MAC_CSMA_CA, "retransmission outside CSMA-CA");
        }
        CHECK(H.head_tx < max_transmissions(), "more than %u transmissions of a frame",
              max_transmissions());
        if (H.refuse) {
            H.refuse--;
            H.data_refused++;
            return MIP_ERR_INUSE;
        }
        H.head_sent = true;
        H.head_on_air = true;
        H.busy_ccas = 0;
        H.head_dsn = frame[2];
        H.head_tx++;
        H.data_tx++;
    }
    H.busy = true;
    H.tx_end = H.now + mip_radio_airtime(&H.cfg.timing, H.air_len + MIP_802154_FCS_LEN);
    return MIP_OK;
}

/* Busy CCAs that end a channel access round: CSMA-CA fails when NB exceeds
 * macMaxCSMABackoffs, CSMA at its max_backoffs-th busy CCA. With
 * retry_on_busy CSMA-CA then starts a new round while retries are left
 * (retries_left). */
static unsigned busy_limit(void)
{
    if (H.cfg.kind == MIP_MAC_CSMA_CA)
        return H.cfg.max_backoffs + 1u;
    return H.cfg.max_backoffs ? H.cfg.max_backoffs : 1u;
}

/* Retries the head frame has left: each transmission so far went
 * unacknowledged (else it would be done), each busy round cost one. */
static bool retries_left(void)
{
    return H.head_tx + H.busy_rounds < H.cfg.max_retries;
}

static bool r_cca(void *ctx)
{
    bool clear;
    (void)ctx;
    CHECK(!H.busy, "CCA while the radio is sending");
    switch (H.cca_mode) {
    case 0: clear = true; break;
    case 1: clear = false; break;
    case 2: clear = (H.ncca & 1u) != 0; break;
    default: clear = ((H.cca_pattern >> (H.ncca & 7u)) & 1u) != 0; break;
    }
    H.ncca++;
    CHECK(H.radio_on, "CCA with the receiver off");
    if (H.cm || H.loose)
        return clear;       /* channel checks, its own CCAs: not the protocol's */
    CHECK(H.q_count > 0, "CCA with nothing to send");
    CHECK(H.busy_ccas < busy_limit(), "CCA after %u busy ones", H.busy_ccas);
    if (!clear)
        H.busy_ccas++;
    if (H.busy_ccas == busy_limit() && H.cfg.kind == MIP_MAC_CSMA_CA && H.cfg.retry_on_busy &&
        retries_left()) {
        H.busy_rounds++;        /* the MAC starts a new round */
        H.busy_ccas = 0;
    }
    return clear;
}

static void r_on(void *ctx)
{
    (void)ctx;
    CHECK(!H.radio_on, "receiver on twice");
    H.radio_on = true;
    H.on_since = H.now;
}

static void r_off(void *ctx)
{
    (void)ctx;
    CHECK(H.radio_on, "receiver off twice");
    CHECK(!H.ack_owed, "receiver off with an ACK owed");
    H.radio_on = false;
    H.on_us += H.now - H.on_since;
}

static uint64_t on_time(void)
{
    return H.on_us + (H.radio_on ? H.now - H.on_since : 0u);
}

static const struct mip_radio_driver radio = { r_transmit, r_cca, r_on, r_off };

/* --- callbacks ------------------------------------------------------------- */

static mip_status send_frame(uint8_t sel, uint8_t extra);

static void c_input(void *ctx, const uint8_t *frame, size_t len, size_t hdr_len,
                    const struct mip_802154_hdr *hdr, mip_utime_t now)
{
    (void)ctx;
    CHECK(now == H.now, "input at another time");
    CHECK(hdr_len <= len && len <= MIP_MAC_FRAME_MAX && frame != NULL, "input lengths");
    CHECK(hdr->type == MIP_802154_DATA && mine(hdr), "input of a frame not for us");
    CHECK(mip_mac_poll(&H.mac, now) == 0, "poll from a callback ran");
    H.inputs++;
}

static void c_overheard(void *ctx, const uint8_t *frame, size_t len, size_t hdr_len,
                        const struct mip_802154_hdr *hdr, mip_utime_t now)
{
    (void)ctx;
    (void)frame;
    CHECK(now == H.now, "overheard at another time");
    CHECK(hdr_len <= len, "overheard lengths");
    CHECK(hdr->type == MIP_802154_DATA && !mine(hdr), "overheard a frame for us");
    H.overheard++;
}

/* MIP_MAC_TX_SECURITY: only with security on and every counter used. */
static bool sec_failed(enum mip_mac_tx_status st)
{
#if MIP_CONF_LLSEC
    return H.sec && st == MIP_MAC_TX_SECURITY && mip_mac_sec_counter(&H.mac) == UINT32_MAX;
#else
    (void)st;
    return false;
#endif
}

/* Loose mode: the frame is one accepted (the head but for a parent); it
 * leaves the model's queue. */
static void loose_tx_done(const uint8_t *frame, size_t len, enum mip_mac_tx_status st,
                          uint8_t retries)
{
    unsigned k, found = MODEL_Q;
    for (k = 0; k < H.q_count && found == MODEL_Q; k++) {
        const struct expect *e = &H.q[(H.q_head + k) % MODEL_Q];
        if (len == e->len && ((frame[0] ^ e->data[0]) & ~0x10u) == 0 && frame[1] == e->data[1] &&
            memcmp(frame + 3, e->data + 3, len - 3) == 0)
            found = k;
        if (H.kind != MIP_RDC_PARENT)
            break;
    }
    CHECK(found != MODEL_Q, "tx_done for a frame not %s",
          H.kind == MIP_RDC_PARENT ? "queued" : "at the head");
    CHECK((unsigned)st < 4u || sec_failed(st), "status %d", (int)st);
    CHECK(retries <= H.cfg.max_retries, "retries %u", retries);
    CHECK(st != MIP_MAC_TX_OK || H.kind == MIP_RDC_PARENT || H.head_sent,
          "OK for a frame never on air");
    H.st_count[st]++;
    H.done++;
    H.in_cb = true;
    CHECK(mip_mac_poll(&H.mac, H.now) == 0, "poll from a callback ran");
    if (H.resend)
        (void)send_frame((uint8_t)H.tag, (uint8_t)(H.tag >> 3));
    H.in_cb = false;
    /* out of the model's ring, keeping the others' order */
    for (k = found; k + 1u < H.q_count; k++)
        H.q[(H.q_head + k) % MODEL_Q] = H.q[(H.q_head + k + 1u) % MODEL_Q];
    H.q_count--;
    if (found == 0u) {
        H.head_sent = false;
        H.head_tx = 0;
        H.head_on_air = false;
    }
}

static void c_tx_done(void *ctx, const uint8_t *frame, size_t len, enum mip_mac_tx_status st,
                      uint8_t retries, mip_utime_t now)
{
    const struct expect *e;
    struct expect copy;
    (void)ctx;
    CHECK(!H.in_cb, "tx_done nested in a callback");
    CHECK(now == H.now, "tx_done at another time");
    CHECK(H.q_count > 0, "tx_done with nothing queued");
    if (H.loose) {
        loose_tx_done(frame, len, st, retries);
        return;
    }
    e = &H.q[H.q_head];
    CHECK(len == e->len && same_frame(frame, e->data, len), "tx_done for another frame");
    if (H.have_dsn)
        CHECK(frame[2] == (uint8_t)(H.last_dsn + 1u), "DSN %u after %u", frame[2], H.last_dsn);
    H.have_dsn = true;
    H.last_dsn = frame[2];
    if (H.head_sent)
        CHECK(frame[2] == H.head_dsn, "tx_done DSN differs from the one on air");
    CHECK((unsigned)st < 4u || sec_failed(st), "status %d", (int)st);
    CHECK(retries <= H.cfg.max_retries, "retries %u", retries);
    CHECK(H.cfg.kind == MIP_MAC_CSMA_CA || retries == 0, "retries outside CSMA-CA");
    CHECK(st != MIP_MAC_TX_NOACK || H.cm || H.cfg.kind == MIP_MAC_CSMA_CA,
          "NOACK outside CSMA-CA");
    CHECK(st != MIP_MAC_TX_CHANNEL_BUSY || H.cfg.kind != MIP_MAC_NULLMAC,
          "NullMAC reported a busy channel");
    CHECK(st != MIP_MAC_TX_CHANNEL_BUSY || H.cm || H.busy_ccas == busy_limit(),
          "channel access failure after %u busy CCAs", H.busy_ccas);
    CHECK(st != MIP_MAC_TX_OK || H.head_sent, "OK for a frame never on air");
    CHECK(st != MIP_MAC_TX_NOACK || H.cm || H.head_tx + H.busy_rounds == 1u + retries,
          "NOACK after %u tries and %u busy rounds", H.head_tx, H.busy_rounds);
    /* a frame that went out k times and ended OK used k - 1 retries on
     * missing ACKs; one that ended on a busy channel used all k */
    CHECK(H.cm || st == MIP_MAC_TX_RADIO_ERROR || st == MIP_MAC_TX_SECURITY ||
              retries == (st == MIP_MAC_TX_CHANNEL_BUSY ? H.head_tx
                                                         : (H.head_tx > 0u ? H.head_tx - 1u : 0u)) +
                             H.busy_rounds,
          "%u retries after %u tries and %u busy rounds (status %d)", retries, H.head_tx,
          H.busy_rounds, (int)st);
    if (st == MIP_MAC_TX_OK && e->wants_ack && (H.cm || H.cfg.kind == MIP_MAC_CSMA_CA)) {
        /* ContikiMAC waits copy_gap_us, or for an ACK under way until its end */
        uint32_t wait = H.cfg.timing.ack_wait_us;
        if (H.cm) {
            wait = H.cfg.timing.turnaround_us +
                   mip_radio_airtime(&H.cfg.timing, MIP_802154_ACK_LEN + MIP_802154_FCS_LEN);
            if (wait < H.cfg.rdc.copy_gap_us)
                wait = H.cfg.rdc.copy_gap_us;
        }
        CHECK(H.doing == IN_RX_ACK && !H.head_on_air, "OK without an ACK");
        CHECK(now - H.head_end <= wait, "ACK accepted %u us after the frame", now - H.head_end);
    } else if (st == MIP_MAC_TX_OK) {
        CHECK(H.doing == IN_TX_END && now == H.head_end, "OK before the frame ended");
    }
    if (st == MIP_MAC_TX_NOACK && !H.cm)
        CHECK(H.doing == IN_OTHER && (H.late || now == H.head_end + H.cfg.timing.ack_wait_us),
              "NOACK at %u, frame ended %u", now, H.head_end);
    /* (ContikiMAC: a busy channel before the first copy is a NOACK too) */
    CHECK(st != MIP_MAC_TX_NOACK || H.cm || e->wants_ack, "NOACK for a frame that asked for none");
    CHECK(st == MIP_MAC_TX_RADIO_ERROR || !H.head_on_air, "outcome while on air");
    H.st_count[st]++;
    H.done++;
    /* The frame must stay intact while the callback queues more. */
    memcpy(&copy, e, sizeof(copy));
    memcpy(copy.data, frame, len);      /* its DSN and frame pending bit */
    H.in_cb = true;
    CHECK(mip_mac_poll(&H.mac, now) == 0, "poll from a callback ran");
    if (H.resend)
        (void)send_frame((uint8_t)H.tag, (uint8_t)(H.tag >> 3));
    H.in_cb = false;
    CHECK(memcmp(frame, copy.data, copy.len) == 0, "the reported frame changed in the callback");
    H.q_head = (H.q_head + 1u) % MODEL_Q;
    H.q_count--;
    H.head_sent = false;
    H.head_tx = 0;
    H.head_on_air = false;
    H.busy_ccas = 0;
    H.busy_rounds = 0;
}

/* --- the operations --------------------------------------------------------- */

static void check_state(void)
{
    CHECK(H.mac.q_count <= MIP_MAC_QUEUE, "queue %u", H.mac.q_count);
    /* a leaf's data request is queued besides; a parent's held frames are not */
    CHECK(H.kind == MIP_RDC_LEAF ? H.mac.q_count - H.q_count <= 1u
          : H.kind == MIP_RDC_PARENT ? H.mac.q_count <= H.q_count : H.mac.q_count == H.q_count,
          "queue %u, harness %u", H.mac.q_count, H.q_count);
    CHECK(H.accepted - H.done == H.q_count, "accepted %u done %u", H.accepted, H.done);
    CHECK(H.mac.state <= MIP_MAC_ST_RDC, "state %u", H.mac.state);
    CHECK(H.radio_on == H.mac.radio_on, "receiver %d, the MAC thinks %d", H.radio_on,
          H.mac.radio_on);
    CHECK(H.mac.radio_tx <= MIP_MAC_RADIO_CTL, "radio_tx %u", H.mac.radio_tx);
    CHECK(mip_mac_stat(&H.mac, MIP_MAC_STAT_tx_frames) == H.accepted, "tx_frames");
    CHECK(mip_mac_stat(&H.mac, MIP_MAC_STAT_tx_queue_full) == H.queue_full, "tx_queue_full");
    CHECK(mip_mac_stat(&H.mac, MIP_MAC_STAT_tx_attempts) == H.data_tx, "tx_attempts");
    CHECK(mip_mac_stat(&H.mac, MIP_MAC_STAT_acks_tx) == H.ack_tx, "acks_tx");
    CHECK(mip_mac_stat(&H.mac, MIP_MAC_STAT_tx_ok) == H.st_count[MIP_MAC_TX_OK], "tx_ok");
    CHECK(mip_mac_stat(&H.mac, MIP_MAC_STAT_tx_noack) == H.st_count[MIP_MAC_TX_NOACK], "noack");
    CHECK(mip_mac_stat(&H.mac, MIP_MAC_STAT_tx_channel_busy) ==
          H.st_count[MIP_MAC_TX_CHANNEL_BUSY], "channel_busy");
    CHECK(mip_mac_stat(&H.mac, MIP_MAC_STAT_tx_radio_error) ==
          H.st_count[MIP_MAC_TX_RADIO_ERROR] + H.ack_refused + H.ctl_refused, "radio_error");
    /* (a refused data request ends without an outcome) */
    CHECK(H.loose ? H.st_count[MIP_MAC_TX_RADIO_ERROR] <= H.data_refused
                  : H.st_count[MIP_MAC_TX_RADIO_ERROR] == H.data_refused,
          "radio errors %u, refusals %u", H.st_count[MIP_MAC_TX_RADIO_ERROR], H.data_refused);
    CHECK(mip_mac_stat(&H.mac, MIP_MAC_STAT_rx_frames) == H.inputs, "rx_frames");
#if MIP_CONF_LLSEC
    {
        uint32_t drops = mip_mac_stat(&H.mac, MIP_MAC_STAT_rx_sec_none) +
                         mip_mac_stat(&H.mac, MIP_MAC_STAT_rx_sec_policy) +
                         mip_mac_stat(&H.mac, MIP_MAC_STAT_rx_sec_no_addr) +
                         mip_mac_stat(&H.mac, MIP_MAC_STAT_rx_sec_mic) +
                         mip_mac_stat(&H.mac, MIP_MAC_STAT_rx_sec_replay);
        uint32_t failed = mip_mac_stat(&H.mac, MIP_MAC_STAT_tx_sec_failed);
        CHECK(H.peers_overflow || drops == H.sec_drops, "%u frames dropped for security, %u "
              "should have been", drops, H.sec_drops);
        /* (a leaf's own data request fails without an outcome) */
        CHECK(H.loose ? failed >= H.st_count[MIP_MAC_TX_SECURITY]
                      : failed == H.st_count[MIP_MAC_TX_SECURITY],
              "tx_sec_failed %u, outcomes %u", failed, H.st_count[MIP_MAC_TX_SECURITY]);
    }
#endif
    CHECK(mip_mac_stat(&H.mac, MIP_MAC_STAT_overheard) == H.overheard, "overheard");
    CHECK(mip_mac_stat(&H.mac, MIP_MAC_STAT_COUNT) == 0, "stat out of range");
}

static uint32_t poll(void)
{
    uint32_t d = mip_mac_poll(&H.mac, H.now), again;
    /* With zero-length CCAs and backoffs a busy channel makes unbounded
     * work at one instant; poll stops after a fixed number of steps and
     * asks to be called again at once. */
    if (d == 0 && H.zero_timing)
        return d;
    CHECK(d != 0, "poll left something due at now");
    again = mip_mac_poll(&H.mac, H.now);
    CHECK(again == d, "poll twice at one instant: %u then %u", d, again);
    check_state();
    return d;
}

static void end_tx(void)
{
    H.busy = false;
    H.radio_free = H.now;
    if (H.head_on_air) {
        H.head_on_air = false;
        H.head_end = H.now;
    }
    H.doing = IN_TX_END;
    mip_mac_radio_tx_done(&H.mac, H.now);
    H.doing = IN_OTHER;
    check_state();
}

static bool same_addr(const struct mip_802154_addr *a, const struct mip_802154_addr *b)
{
    if (a->mode != b->mode)
        return false;
    if (a->mode == MIP_802154_ADDR_SHORT)
        return a->short_addr == b->short_addr;
    return a->mode != MIP_802154_ADDR_EXT || memcmp(a->ext, b->ext, 8) == 0;
}

/* What the MAC must do with a received frame: the ACK it will owe, and
 * whether cb.input must run (1), must not (0), or the model cannot tell
 * (-1: more senders than the duplicate table holds). */
static int note_rx(const uint8_t *f, size_t len, bool repeat)
{
    struct mip_802154_hdr h;
    size_t hl;
    unsigned i;
    if (len > MIP_MAC_FRAME_MAX || mip_ieee802154_parse(f, len, &h, &hl) != MIP_OK)
        return 0;
    if (H.loose && kind_ctl(f, len))
        return 0;               /* the RDC's own */
    if (H.loose && H.kind == MIP_RDC_PARENT && data_request(f, len, &h)) {
        bool to_us = mine(&h) && !(h.dst.mode == MIP_802154_ADDR_SHORT &&
                                   h.dst.short_addr == MIP_802154_BROADCAST);
        if (h.ack_request && to_us && h.src.mode != MIP_802154_ADDR_NONE) {
            H.ack_owed = true;
            H.ack_seq = h.seq;
            H.ack_due = H.now + H.cfg.timing.turnaround_us;
        }
        return 0;
    }
    if (h.type != MIP_802154_DATA || !mine(&h))
        return 0;
    if (h.ack_request &&
        !(h.dst.mode == MIP_802154_ADDR_SHORT && h.dst.short_addr == MIP_802154_BROADCAST)) {
        H.ack_owed = true;
        H.ack_seq = h.seq;
        H.ack_due = H.now + H.cfg.timing.turnaround_us;
    }
    if (repeat)
        return 0;               /* a secured frame again: ACKed, nothing more */
    if (h.src.mode == MIP_802154_ADDR_NONE)
        return 1;
    if (H.senders_overflow)
        return -1;
    /* the MAC forgets a sender MIP_MAC_DUP_AGE_US after its latest frame
     * (a repeat after that is a new frame: issue 24's aging) */
    for (i = 0; i < H.nsenders;) {
        if ((mip_utime_t)(H.now - H.senders[i].at) >= MIP_MAC_DUP_AGE_US)
            H.senders[i] = H.senders[--H.nsenders];
        else
            i++;
    }
    for (i = 0; i < H.nsenders; i++) {
        if (same_addr(&H.senders[i].src, &h.src)) {
            H.senders[i].at = H.now;
            if (H.senders[i].seq == h.seq)
                return 0;
            H.senders[i].seq = h.seq;
            return 1;
        }
    }
    if (H.nsenders == MIP_MAC_DUP_ENTRIES) {
        H.senders_overflow = true;
        return -1;
    }
    H.senders[H.nsenders].src = h.src;
    H.senders[H.nsenders].seq = h.seq;
    H.senders[H.nsenders].at = H.now;
    H.nsenders++;
    return 1;
}

#if MIP_CONF_LLSEC
/* note_rx with security on: what the MAC must drop (unsecured, another
 * level or key, a sender without an address, a bad MIC, a counter below
 * the sender's last) and the same frame again (its last counter: a repeat),
 * by the harness's own reading, then the plaintext as note_rx has it. */
static int note_rx_sec(const uint8_t *f, size_t len)
{
    struct mip_802154_hdr h;
    uint8_t plain[MIP_MAC_FRAME_MAX], ext[8];
    size_t hl, plen = 0;
    uint32_t ctr = 0;
    unsigned i;
    if (len > MIP_MAC_FRAME_MAX || mip_ieee802154_parse_mhr(f, len, &h, &hl) != MIP_OK ||
        h.type == MIP_802154_ACK)
        return 0;               /* malformed, or an ACK (a secured one is malformed) */
    if (sec_open(f, len, NULL, plain, &plen, &ctr, ext) != SEC_OK) {
        H.sec_drops++;
        return 0;
    }
    i = peer_find(ext);
    if (i == H.npeers) {
        if (H.npeers == MIP_LLSEC_NEIGHBORS) {
            H.peers_overflow = true;    /* the floor: beyond this model */
            return -1;
        }
        memcpy(H.peers[H.npeers].ext, ext, 8);
        H.npeers++;
    } else if (ctr < H.peers[i].counter) {
        H.sec_drops++;          /* a replay */
        return 0;
    } else if (ctr == H.peers[i].counter) {
        return note_rx(plain, plen, true);
    }
    H.peers[i].counter = ctr;
    return note_rx(plain, plen, false);
}
#endif

/* A parent's child table as a frame from the air found it (the MAC's own
 * table, read for children_check; empty in a build without the parent). */
struct children_before {
#if MIP_RDC_HAS_PARENT
    struct mip_rdc_child child[MIP_RDC_CHILDREN];
    uint32_t refused;
#else
    uint8_t none;
#endif
};

static void children_note(struct children_before *b)
{
#if MIP_RDC_HAS_PARENT
    memcpy(b->child, H.mac.rdc.parent.child, sizeof b->child);
    b->refused = mip_mac_stat(&H.mac, MIP_MAC_STAT_rdc_child_refused);
#else
    (void)b;
#endif
}

/* On a parent, after that frame: it forgot no settled child that the
 * timeout still keeps (issue 24: forged data requests from invented
 * addresses evicted real idle children), and a data request was refused
 * only when every entry held a settled child. */
static void children_check(const struct children_before *b)
{
#if MIP_RDC_HAS_PARENT
    const struct mip_rdc_child *now = H.mac.rdc.parent.child;
    uint32_t refused = mip_mac_stat(&H.mac, MIP_MAC_STAT_rdc_child_refused);
    unsigned k, settled = 0;
    if (!H.loose || H.kind != MIP_RDC_PARENT)
        return;
    for (k = 0; k < MIP_RDC_CHILDREN; k++) {
        const struct mip_rdc_child *was = &b->child[k];
        if (!was->valid || !was->settled)
            continue;
        settled++;
        if ((mip_utime_t)(H.now - was->seen) < H.cfg.rdc.child_timeout_us)
            CHECK(now[k].valid && memcmp(&now[k].addr, &was->addr, sizeof was->addr) == 0,
                  "a frame from the air forgot settled child %u", k);
    }
    CHECK(refused == b->refused || (refused == b->refused + 1u && settled == MIP_RDC_CHILDREN),
          "a data request refused with %u of %u entries settled", settled,
          (unsigned)MIP_RDC_CHILDREN);
#else
    (void)b;
#endif
}

/* Delivers a frame and checks that it went up or not as the model says. */
static void deliver(const uint8_t *f, size_t len)
{
    unsigned before = H.inputs;
    struct children_before children;
#if MIP_CONF_LLSEC
    int want = H.sec ? note_rx_sec(f, len) : note_rx(f, len, false);
#else
    int want = note_rx(f, len, false);
#endif
    /* raw bytes may be an ACK frame: it may end the head frame's attempt */
    if (len >= 3u && (f[0] & 7u) == MIP_802154_ACK)
        H.doing = IN_RX_ACK;
    children_note(&children);
    mip_mac_radio_rx(&H.mac, f, len, H.now);
    H.doing = IN_OTHER;
    if (want >= 0)
        CHECK(H.inputs - before == (unsigned)want, "frame %s", want ? "not passed up"
                                                                    : "passed up twice");
    children_check(&children);
    check_state();
}

/* Moves time forward by `dt`, running every deadline and transmission end
 * on the way at its instant. */
static void advance(uint32_t dt)
{
    mip_utime_t target = H.now + dt, at;
    uint32_t d;
    unsigned steps, zeros = 0;
    bool tx;
    for (steps = 0; steps < MAX_STEPS; steps++) {
        d = poll();
        if (d == 0 && ++zeros > 4u)
            break;
        at = H.now + d;
        tx = false;
        if (H.busy && H.auto_end &&
            (d == UINT32_MAX || !mip_utime_before(at, H.tx_end))) {
            at = H.tx_end;
            tx = true;
        } else if (d == UINT32_MAX) {
            break;
        }
        if (mip_utime_before(target, at))
            break;
        H.now = at;
        if (tx)
            end_tx();
    }
    if (mip_utime_before(H.now, target)) {
        if (steps == MAX_STEPS || zeros > 4u)
            H.late = true;
        H.now = target;
    }
    (void)poll();
}

/* A valid frame from us, remembered as the next expected tx_done. */
static mip_status send_frame(uint8_t sel, uint8_t extra)
{
    struct mip_802154_hdr h;
    uint8_t f[MIP_MAC_FRAME_MAX];
    size_t n = 0, len;
    mip_status st;
    memset(&h, 0, sizeof(h));
    h.type = (sel & 0x40u) ? MIP_802154_CMD : MIP_802154_DATA;
    h.ack_request = (sel & 4u) != 0;
    h.pan_id_compress = true;
    h.version = 1;
    h.seq = 0;
    h.dst_pan = PAN;
    h.src_pan = PAN;
    switch (sel & 3u) {
    case 0: h.dst.mode = MIP_802154_ADDR_SHORT; h.dst.short_addr = OTHER; break;
    case 1: h.dst.mode = MIP_802154_ADDR_SHORT; h.dst.short_addr = MIP_802154_BROADCAST; break;
    case 2: h.dst.mode = MIP_802154_ADDR_EXT; h.dst.ext[7] = 3; break;
    default: h.dst.mode = MIP_802154_ADDR_SHORT; h.dst.short_addr = 0x0004; break;
    }
    h.src.mode = MIP_802154_ADDR_SHORT;
    h.src.short_addr = ME;
    if (mip_ieee802154_emit(&h, f, sizeof(f), &n) != MIP_OK)
        FAIL("emit");
    len = n + 2u + extra % (MIP_MAC_FRAME_MAX - n - 1u);
    memset(f + n, 0xA5, len - n);
    f[len - 2] = (uint8_t)(H.tag >> 8);
    f[len - 1] = (uint8_t)H.tag;
    H.tag++;
    /* sel bit 7: a gap before the frame's channel access (RFC 8930 pacing) */
    st = (sel & 0x80u) ? mip_mac_send_gap(&H.mac, f, len, (uint16_t)(extra * 257u), H.now)
                       : mip_mac_send(&H.mac, f, len, H.now);
    if (h.type == MIP_802154_CMD) {
        CHECK(st == MIP_ERR_INVALID, "a MAC command accepted: %d", (int)st);
        return st;              /* the MAC's own */
    }
#if MIP_CONF_LLSEC
    if (H.sec && len + mip_mac_sec_overhead(&H.cfg) > MIP_MAC_FRAME_MAX) {
        CHECK(st == MIP_ERR_INVALID, "a frame too long to secure accepted: %d", (int)st);
        return st;
    }
#endif
    if (st == MIP_OK) {
        struct expect *e = &H.q[(H.q_head + H.q_count) % MODEL_Q];
        CHECK(H.q_count < (H.kind == MIP_RDC_PARENT ? MODEL_Q : MIP_MAC_QUEUE),
              "accepted beyond the queue");
        e->len = (uint8_t)len;
        e->wants_ack = h.ack_request && (sel & 3u) != 1u;
        memcpy(e->data, f, len);
        H.q_count++;
        H.accepted++;
    } else {
        CHECK(st == MIP_ERR_NOBUFS && H.mac.q_count == MIP_MAC_QUEUE, "send: %d", (int)st);
        H.queue_full++;
    }
    return st;
}

#if MIP_CONF_LLSEC
/* Built frame f (MHR of hl bytes) secured by its sender, [k] choosing how:
 * bits 0-1 the counter (0, 1: the next of all senders'; 2: the sender's
 * last again, a repeat; 3: 1 + bits 2-4 below its last, a replay), bit 6
 * another level than the MAC's, bit 7 one bit flipped (bits 3-5 the byte
 * from the start, mod the length; bits 0-2 the bit). */
static void rx_secured(struct cur *c, const struct mip_802154_hdr *h, const uint8_t *f,
                       size_t n, size_t hl)
{
    uint8_t k = u8(c), out[MIP_MAC_FRAME_MAX], ext[8], level = H.cfg.sec.level;
    uint32_t ctr, back = 1u + ((k >> 2) & 7u);
    size_t len;
    unsigned i;
    (void)sender_ext(h, ext);
    i = peer_find(ext);
    if ((k & 3u) == 2u && i < H.npeers)
        ctr = H.peers[i].counter;
    else if ((k & 3u) == 3u && i < H.npeers && H.peers[i].counter >= back)
        ctr = H.peers[i].counter - back;
    else
        ctr = H.rx_counter++;
    if (k & 0x40u)
        level = level == MIP_802154_SEC_ENC_MIC32 ? MIP_802154_SEC_MIC32
                                                  : MIP_802154_SEC_ENC_MIC32;
    len = sec_seal(f, n, hl, ext, ctr, level, out, sizeof(out));
    CHECK(len != 0, "sealing a %zu-byte frame", n);
    if (k & 0x80u)
        out[((k >> 3) & 7u) % len] ^= (uint8_t)(1u << (k & 7u));
    deliver(out, len);
}
#endif

/* A frame built to reach a path: for us or not, ACK request, one of four
 * senders, a chosen sequence number. */
static void rx_built(struct cur *c)
{
    struct mip_802154_hdr h;
    uint8_t f[64], sel = u8(c), seq = u8(c);
    size_t n, hl;
    memset(&h, 0, sizeof(h));
    h.type = (sel & 0x80u) ? MIP_802154_CMD : MIP_802154_DATA;
    h.ack_request = (sel & 4u) != 0;
    h.pan_id_compress = true;
    h.version = (sel >> 6) & 1u;
    h.seq = seq;
    h.dst_pan = (sel & 8u) ? ((sel & 0x10u) ? 0x1234u : MIP_802154_PAN_NONE) : PAN;
    h.src_pan = h.dst_pan;
    switch (sel & 3u) {
    case 0: h.dst.mode = MIP_802154_ADDR_SHORT; h.dst.short_addr = ME; break;
    case 1: h.dst.mode = MIP_802154_ADDR_SHORT; h.dst.short_addr = MIP_802154_BROADCAST; break;
    case 2: h.dst.mode = MIP_802154_ADDR_EXT; memcpy(h.dst.ext, my_ext, 8); break;
    default: h.dst.mode = MIP_802154_ADDR_SHORT; h.dst.short_addr = OTHER; break;
    }
    if (sel & 0x20u) {
        h.src.mode = MIP_802154_ADDR_EXT;
        h.src.ext[7] = (uint8_t)(seq & 3u);
    } else {
        h.src.mode = MIP_802154_ADDR_SHORT;
        h.src.short_addr = (uint16_t)(0x10u + ((sel >> 5) & 3u));
    }
    if (H.loose && h.type == MIP_802154_DATA && (seq & 0xC0u) == 0xC0u && H.q_count > 0u) {
        /* a control frame from the head frame's destination (a strobe ACK,
         * its probe) with our last control frame's DSN */
        struct mip_802154_hdr qh;
        size_t qhl;
        const struct expect *e = &H.q[H.q_head];
        if (mip_ieee802154_parse(e->data, e->len, &qh, &qhl) == MIP_OK &&
            qh.dst.mode != MIP_802154_ADDR_NONE) {
            h.src = qh.dst;
            h.seq = H.ctl_dsn;
        }
    }
    if (mip_ieee802154_emit(&h, f, sizeof(f), &n) != MIP_OK)
        FAIL("emit");
    hl = n;
    if (H.loose && h.type == MIP_802154_CMD && (seq & 1u)) {
        f[n++] = 0x04;          /* a data request */
    } else if (H.loose && h.type == MIP_802154_DATA && (seq & 0x80u)) {
        static const uint8_t types[4] = { 0x10, 0x13, 0x20, 0x11 };
        f[0] &= (uint8_t)~0x20u;    /* control frames ask for no ACK */
        f[n++] = 0x00;          /* a strobe, strobe ACK, probe or no such type */
        f[n++] = types[(seq >> 1) & 3u];
    } else {
        f[n++] = 0x41;
    }
#if MIP_CONF_LLSEC
    if (H.sec) {
        rx_secured(c, &h, f, n, hl);
        return;
    }
#endif
    (void)hl;
    deliver(f, n);
}

static void rx_raw(struct cur *c)
{
    size_t len = u8(c) % (MIP_MAC_FRAME_MAX + 2u), i;
    uint8_t *f = malloc(len ? len : 1);
    if (f == NULL)
        abort();
    for (i = 0; i < len; i++)
        f[i] = u8(c);
    deliver(f, len);
    free(f);
}

/* [a seq dt]: an ACK for the head frame's DSN (a & 1) or for seq, with the
 * frame pending bit (a & 4); with a & 2 it comes dt * 8 µs later, before the
 * MAC is polled, so its deadlines may have passed unpolled (exact timing
 * checks end there). */
static void rx_ack(struct cur *c)
{
    uint8_t a = u8(c), seq = u8(c), dt = u8(c), ack[3];
    if (a & 1u)
        seq = H.head_dsn;
    if (a & 2u) {
        H.now += (mip_utime_t)dt * 8u;
        H.late = true;
    }
    mip_ieee802154_emit_ack(seq, (a & 4u) != 0, ack);
    H.doing = IN_RX_ACK;
    mip_mac_radio_rx(&H.mac, ack, 3, H.now);
    H.doing = IN_OTHER;
    check_state();
}

static void send_invalid(struct cur *c)
{
    uint8_t f[8];
    size_t len = u8(c) % 9u, i;
    mip_status st;
    for (i = 0; i < len; i++)
        f[i] = u8(c);
    if (len >= 3)
        f[0] = (uint8_t)((f[0] & ~7u) | MIP_802154_ACK);    /* ACKs are refused too */
    st = mip_mac_send(&H.mac, len ? f : NULL, len, H.now);
    CHECK(st == MIP_ERR_INVALID, "invalid frame accepted: %d", (int)st);
    CHECK(mip_mac_netif_transmit(&H.mac, f, len < 3 ? len : 2) == MIP_ERR_INVALID,
          "netif_transmit of a short frame");
    check_state();
}

/* Header byte 0 kind 3: CSMA-CA over X-MAC, LPP, a leaf (its parent
 * OTHER) or a parent (children OTHER and 00..03), by bits 5-6 of byte 1;
 * byte 3 bit 6: 64 Hz wake-ups (leaf: 20 ms polls), bit 7: adaptive
 * intervals up to 4 of the shortest (a parent: a crowded child table, see
 * setup). Real 802.15.4 timing: the kinds'
 * constraints hold. */
static void loose_setup(const uint8_t hdr[4])
{
    static const uint8_t kinds[4] = { MIP_RDC_XMAC, MIP_RDC_LPP, MIP_RDC_LEAF, MIP_RDC_PARENT };
    struct mip_rdc_config *r = &H.cfg.rdc;
    H.kind = kinds[(hdr[1] >> 5) & 3u];
    H.cfg.kind = MIP_MAC_CSMA_CA;
    mip_radio_timing_default(&H.cfg.timing);
    H.zero_timing = false;
    mip_rdc_config_default(r, H.kind);
    if (hdr[3] & 0x40u) {
        r->check_rate_hz = 64;
        r->poll_us = 20000;
    } else {
        r->poll_us = 200000;
    }
    r->poll_fast_us = 5000;
    r->parent = OTHER;
    r->child_timeout_us = 300000;
    if ((hdr[3] & 0x80u) && H.kind != MIP_RDC_PARENT)
        r->adapt_max_us = 4u * (H.kind == MIP_RDC_LEAF ? r->poll_us : mip_rdc_period_us(r));
    /* a secured strobe is longer: X-MAC's wake-up must still hear one */
    while (mip_mac_rdc_check(&H.cfg) == MIP_RDC_BAD_ON && r->on_us < 20000u)
        r->on_us += 250u;
    H.loose = mip_mac_rdc_check(&H.cfg) == MIP_RDC_OK;
    if (!H.loose) {
        H.kind = MIP_RDC_NULLRDC;       /* a kind this build left out */
        r->kind = MIP_RDC_NULLRDC;
    }
}

static void setup(const uint8_t hdr[4])
{
    memset(&H, 0, sizeof(H));
    H.now = T0;
    H.radio_free = T0;
    mip_mac_config_default(&H.cfg, (uint8_t)((hdr[0] & 3u) % 3u), PAN, ME, my_ext);
    H.auto_end = (hdr[0] & 0x04u) != 0;
    H.resend = (hdr[0] & 0x10u) != 0;
    if (hdr[0] & 0x20u) {
        /* zero timings: every step at one instant */
        H.zero_timing = true;
        H.cfg.timing.turnaround_us = 0;
        H.cfg.timing.cca_us = 0;
        H.cfg.timing.backoff_us = (hdr[0] & 0x08u) ? 0 : 1;
        H.cfg.timing.ack_wait_us = 0;
        H.cfg.timing.phy_hdr_bytes = 0;
    }
    if (hdr[0] & 0x40u)
        H.cfg.retry_delay_max_us = (uint32_t)hdr[3] * 97u;
    if (hdr[0] & 0x80u)
        H.cfg.retry_delay_max_us = MIP_MAC_RETRY_DELAY_MAX >> (hdr[3] & 31u);
    H.cfg.min_be = hdr[1] & 7u;
    H.cfg.max_be = (uint8_t)(H.cfg.min_be + ((hdr[1] >> 3) & 3u));
    if (H.cfg.max_be > 8u)
        H.cfg.max_be = 8u;
    H.cfg.max_backoffs = hdr[2] == 0xFFu ? 255u : (uint8_t)(hdr[2] & 7u);
    H.cfg.max_retries = (uint8_t)((hdr[2] >> 3) & 7u);
    H.cfg.retry_on_busy = (hdr[2] & 0x40u) != 0;
    H.cfg.csma_min_periods = hdr[3] & 3u;
    H.cfg.csma_max_periods = (uint8_t)(H.cfg.csma_min_periods + ((hdr[3] >> 2) & 3u));
#if MIP_CONF_LLSEC
    if ((hdr[2] & 0x80u) && hdr[2] != 0xFFu) {
        /* level by byte 3 bits 4-5, key id mode 1 (index 1) by byte 1 bit
         * 0, else implicit; byte 3 bit 3: 16 counters left */
        static const uint8_t levels[4] = { MIP_802154_SEC_ENC_MIC32, MIP_802154_SEC_MIC32,
                                           MIP_802154_SEC_ENC_MIC128, MIP_802154_SEC_MIC64 };
        struct mip_mac_sec_config *sc = &H.cfg.sec;
        H.sec = true;
        sc->level = levels[(hdr[3] >> 4) & 3u];
        sc->key_id_mode = (hdr[1] & 1u) ? MIP_802154_KEY_INDEX : MIP_802154_KEY_IMPLICIT;
        sc->key_index = sc->key_id_mode == MIP_802154_KEY_INDEX ? 1u : 0u;
        memcpy(sc->key, sec_key, sizeof(sec_key));
        sc->counter = (hdr[3] & 0x08u) ? 0xFFFFFFF0u : 0u;
        sc->reserve = 1;
        sc->ext_of = ext_of_short;
        H.cipher.ops = mip_aes128_soft();
        H.cipher.ctx = &H.aes;
        CHECK(H.cipher.ops->set_key(H.cipher.ctx, sec_key), "set_key");
    }
#endif
    if ((hdr[0] & 3u) == 3u)
        loose_setup(hdr);
#if MIP_RDC_HAS_CONTIKIMAC
    if (!H.loose && (hdr[1] & 0x20u)) {
        H.cm = true;
        H.cfg.rdc.kind = MIP_RDC_CONTIKIMAC;
        if (hdr[1] & 0x40u) {
            /* many checks in a short input; phases dropped after 1-4 misses */
            H.cfg.rdc.check_rate_hz = 64;
            H.cfg.rdc.phase_max_misses = (uint8_t)(1u + (hdr[3] >> 6));
            H.cfg.rdc.burst_wait_us = 2000;
        }
    }
#endif
    {
        struct mip_mac_callbacks cb = { c_input, c_tx_done, c_overheard, NULL };
        uint8_t seed[4] = { hdr[0], hdr[1], hdr[2], hdr[3] };
        if (hdr[1] & 0x80u)
            cb.overheard = NULL;
        if (mip_mac_init(&H.mac, &H.cfg, &radio, NULL, &cb, seed, sizeof(seed), H.now) != MIP_OK)
            FAIL("init");
    }
    if (H.loose && H.kind == MIP_RDC_PARENT) {
        /* two children: OTHER and the extended address frames go to */
        struct mip_802154_addr a = { MIP_802154_ADDR_SHORT, OTHER, { 0 } };
        unsigned k;
        CHECK(mip_mac_add_child(&H.mac, &a, H.now) == MIP_OK, "add_child");
        a.mode = MIP_802154_ADDR_EXT;
        a.ext[7] = 3;
        CHECK(mip_mac_add_child(&H.mac, &a, H.now) == MIP_OK, "add_child");
        /* byte 3 bit 7: a crowded parent, one entry free. The four short
         * senders' data requests then take it, evict a passer-by or are
         * refused; op 11's add_child (0x10 + a >> 2) renews these or
         * evicts. They are silent, so the timeout forgets them. */
        a.mode = MIP_802154_ADDR_SHORT;
        for (k = 0; (hdr[3] & 0x80u) && k + 3u < MIP_RDC_CHILDREN; k++) {
            a.short_addr = (uint16_t)(0x14u + k);
            CHECK(mip_mac_add_child(&H.mac, &a, H.now) == MIP_OK, "add_child");
        }
    }
    CHECK(H.cm || H.loose || mip_mac_poll(&H.mac, H.now) == UINT32_MAX, "a new MAC is not idle");
    CHECK(H.radio_on == (H.loose ? H.kind == MIP_RDC_PARENT : !H.cm), "receiver %s at init",
          H.radio_on ? "on" : "off");
}

static void run_op(struct cur *c)
{
    uint8_t op = u8(c), a;
    uint16_t v;
    switch (op % 12u) {
    case 0:
        rx_raw(c);
        break;
    case 1:
    case 2:
        rx_built(c);
        break;
    case 3:
        rx_ack(c);
        break;
    case 4:
        if (H.busy) {
            end_tx();           /* early: the MAC does not know airtimes */
        } else {
            mip_mac_radio_tx_done(&H.mac, H.now);       /* spurious */
            check_state();
        }
        break;
    case 5:
    case 6:
        a = u8(c);
        (void)send_frame(a, u8(c));
        break;
    case 7:
        v = u16(c);
        advance((v & 0x8000u) ? (uint32_t)(v & 0x7FFFu) * 64u : v);
        break;
    case 8:
        (void)poll();
        break;
    case 9:
        a = u8(c);
        H.cca_mode = a & 3u;
        H.cca_pattern = u8(c);
        break;
    case 10:
        H.refuse = u8(c) & 3u;
        break;
    default:
        if (!H.loose) {
            send_invalid(c);
            break;
        }
        a = u8(c);
        if ((a & 3u) < 2u) {
            mip_mac_expect_reply(&H.mac, (a & 1u) == 0u, H.now);
            check_state();
        } else if ((a & 3u) == 2u) {
            struct mip_802154_addr child = { MIP_802154_ADDR_SHORT, (uint16_t)(0x10u + (a >> 2)),
                                             { 0 } };
            mip_status st = mip_mac_add_child(&H.mac, &child, H.now);
            CHECK(st == (H.kind == MIP_RDC_PARENT ? MIP_OK : MIP_ERR_UNSUPPORTED), "add_child");
            check_state();
        } else {
            send_invalid(c);
        }
        break;
    }
}

/* After the drain: X-MAC's and LPP's receivers are on for their wake-ups
 * (each stretched once at most) and one burst, once a strobe ACK's wait
 * (two intervals) is over; the leaf's and parent's are not bounded here. */
static void loose_idle(void)
{
    const struct mip_rdc_config *r = &H.cfg.rdc;
    uint32_t period = mip_rdc_period_us(r);
    uint32_t frame = mip_radio_airtime(&H.cfg.timing, MIP_MAC_FRAME_MAX + MIP_802154_FCS_LEN);
    uint32_t ctl = mip_radio_airtime(&H.cfg.timing, MIP_RDC_CTL_MAX + MIP_802154_FCS_LEN);
    uint64_t before, awake, limit;
    if (H.kind != MIP_RDC_XMAC && H.kind != MIP_RDC_LPP)
        return;
    advance(3u * period);
    H.late = false;
    before = on_time();
    advance(4u * period);

    awake = H.kind == MIP_RDC_XMAC ? r->on_us
                                   : (uint64_t)r->cca_on_us + H.cfg.timing.turnaround_us + ctl +
                                     r->listen_us;
    limit = 5u * (awake + frame) + r->burst_wait_us;
    CHECK(H.late || on_time() - before <= limit, "receiver on %u us in four idle intervals",
          (unsigned)(on_time() - before));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cur in;
    uint8_t hdr[4];
    unsigned nops = 0, i;
    in.p = data;
    in.n = size;
    in.pos = 0;
    for (i = 0; i < sizeof(hdr); i++)
        hdr[i] = u8(&in);
    setup(hdr);
    while (in.pos < in.n && nops < MAX_OPS) {
        run_op(&in);
        nops++;
    }
    /* Drain: a clear channel, a willing radio that reports every end, no
     * re-sending; each frame is bounded by its retries and backoffs. */
    H.cca_mode = 0;
    H.refuse = 0;
    H.auto_end = true;
    H.resend = false;
    /* a transmission the radio never reported as ended (no auto end) ends
     * now, not at its old end time: time never runs backwards */
    if (H.busy && !mip_utime_before(H.now, H.tx_end))
        end_tx();
    for (i = 0; i < 1024u; i++) {
        if ((H.cm || H.loose || mip_mac_poll(&H.mac, H.now) == UINT32_MAX) && H.q_count == 0 &&
            !H.busy)
            break;
        /* (a probe or check may keep falling on the step's end: 64 Hz
         * divides a second) */
        if (H.loose && H.q_count == 0) {
            if (H.busy && !mip_utime_before(H.now, H.tx_end))
                end_tx();       /* (it ended while the radio did not say) */
            else
                advance(H.busy ? H.tx_end - H.now : 0u);
            continue;
        }
        if (!H.cm && !H.loose) {
            advance(0x40000000u);
            continue;
        }
        /* ContikiMAC's checks are deadlines every interval: a long retry
         * delay is skipped in one jump (late) rather than polled through */
        if (H.mac.state == MIP_MAC_ST_ACCESS && (int32_t)(H.mac.deadline - H.now) > 1000000) {
            H.now = H.mac.deadline - 1u;
            H.late = true;
        }
        advance(1000000u);
    }
    CHECK(H.q_count == 0 && !H.busy, "%u frames still queued after the drain", H.q_count);
    if (H.loose) {
        loose_idle();
        return 0;
    }
    if (!H.cm) {
        CHECK(mip_mac_poll(&H.mac, H.now) == UINT32_MAX, "not idle after the drain");
        return 0;
    }
    {
        /* Idle now: the receiver is on for its checks, at most one listen
         * or burst still running, nothing else. */
        const struct mip_rdc_config *r = &H.cfg.rdc;
        uint32_t period = mip_rdc_period_us(r);
        uint64_t before, limit;
        /* One interval to settle what the drain's long steps left (an ACK
         * owed since then); the next four are polled at every deadline. */
        advance(period);
        H.late = false;
        before = on_time();
        advance(4u * period);
        limit = 5u * (uint64_t)r->cca_count * r->cca_on_us + r->listen_max_us + r->burst_wait_us;
        CHECK(H.late || on_time() - before <= limit, "receiver on %u us in four idle intervals",
              (unsigned)(on_time() - before));
    }
    return 0;
}
