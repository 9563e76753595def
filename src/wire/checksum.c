/*
 * src/wire/: the pure header codecs on the ground floor, one file per
 * protocol: parse with every length checked, emit, lengths. No state, no
 * decisions, no clock. Files here include only the C library, the
 * include/moteip/wire/ headers, status.h and config.h: nothing from base/
 * or any floor above. This file is the one every profile links (micro too).
 *
 * Internet checksum (RFC 1071) and incremental update (RFC 1624).
 */
#include "moteip/wire/checksum.h"
#include "moteip/wire/bytes.h"

#include <string.h>

#include "moteip/config.h"

#if !MIP_CONF_CKSUM_SMALL
/* One end-around-carry step. Preserves the one's complement value and never
 * turns a non-zero sum into zero, so 0xFFFF ("-0") survives folding. */
static uint32_t fold_once(uint32_t sum)
{
    return (sum & 0xFFFFu) + (sum >> 16);
}
#endif

#if MIP_CONF_CKSUM_WIDE && !MIP_CONF_CKSUM_SMALL
/* The one's complement sum of the 16-bit big-endian words of `n4 * 4`
 * bytes, folded to 16 bits. Words are summed in native order: the one's
 * complement sum of byte-swapped words is the byte-swapped sum (RFC 1071
 * s.2(B)), so one swap at the end gives the big-endian result. */
static uint32_t sum_words32(const uint8_t *data, size_t n4)
{
    uint64_t acc = 0, w0, w1;
    uint32_t w, s;

    /* 64-bit words with the end-around carry added back at once: the one's
     * complement sum of 64-bit words folds to that of their 16-bit parts. */
    while (n4 >= 4u) {
        memcpy(&w0, data, 8);
        memcpy(&w1, data + 8, 8);
        acc += w0;
        acc += (acc < w0);
        acc += w1;
        acc += (acc < w1);
        data += 16;
        n4 -= 4u;
    }
    while (n4 != 0u) {
        memcpy(&w, data, 4);
        acc += w;
        acc += (acc < w);
        data += 4;
        n4--;
    }
    acc = (acc & 0xFFFFFFFFu) + (acc >> 32);
    acc = (acc & 0xFFFFFFFFu) + (acc >> 32);
    s = (uint32_t)acc;
    s = (s & 0xFFFFu) + (s >> 16);
    s = (s & 0xFFFFu) + (s >> 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    s = ((s & 0xFFu) << 8) | (s >> 8);
#endif
    return s;
}
#endif

#if MIP_CONF_CKSUM_SMALL
/* The one's complement sum of the two halves of `sum`: its exact 16-bit
 * fold (what fold_once twice gives) in 16-bit arithmetic. */
static uint16_t fold16(uint32_t sum)
{
    uint16_t s = (uint16_t)sum, hi = (uint16_t)(sum >> 16);

    s = (uint16_t)(s + hi);
    if (s < hi)
        s++;
    return s;
}

/* The smallest form (config.h): a 16-bit sum with the end-around carry
 * added at each word, as on an 8-bit CPU by hand; the running sum it
 * returns is already folded. */
uint32_t mip_cksum_add(uint32_t sum, const uint8_t *data, size_t len)
{
    uint16_t s = fold16(sum), w;

    while (len != 0u) {
        w = (uint16_t)((uint16_t)data[0] << 8);
        if (len > 1u) {
            w |= data[1];
            len--;
        }
        len--;
        data += 2;
        s = (uint16_t)(s + w);
        if (s < w)
            s++;
    }
    return s;
}
#else
uint32_t mip_cksum_add(uint32_t sum, const uint8_t *data, size_t len)
{
#if MIP_CONF_CKSUM_WIDE && !MIP_CONF_CKSUM_SMALL
    if (len >= 16u) {
        size_t n4 = len / 4u;
        if (sum >= 0x7FFF0000u)
            sum = fold_once(sum);
        sum += sum_words32(data, n4);
        data += n4 * 4u;
        len -= n4 * 4u;
    }
#endif
    /* Folding before the top bit can be reached keeps the accumulator from
     * wrapping whatever the buffer length or the incoming sum; for normal
     * packet sizes the branch is never taken. */
    /* Eight bytes per round: one overflow check per four words keeps the
     * inner loop short (the receive path's largest cost). */
    while (len >= 8u) {
        if (sum >= 0x7FFC0000u)
            sum = fold_once(sum);
        sum += (uint32_t)mip_rd16(data) + (uint32_t)mip_rd16(data + 2) +
               (uint32_t)mip_rd16(data + 4) + (uint32_t)mip_rd16(data + 6);
        data += 8;
        len -= 8u;
    }
    while (len >= 2u) {
        if (sum & 0x80000000u)
            sum = fold_once(sum);
        sum += mip_rd16(data);
        data += 2;
        len -= 2u;
    }
    if (len != 0u) {
        if (sum & 0x80000000u)
            sum = fold_once(sum);
        sum += (uint32_t)data[0] << 8;
    }
    return sum;
}
#endif

uint16_t mip_cksum_finish(uint32_t sum)
{
#if MIP_CONF_CKSUM_SMALL
    return (uint16_t)~fold16(sum);
#else
    while (sum >> 16)
        sum = fold_once(sum);
    return (uint16_t)~sum;
#endif
}

uint32_t mip_cksum_pseudo4(const uint8_t src[4], const uint8_t dst[4],
                           uint8_t proto, uint16_t l4_len)
{
    uint32_t sum = mip_cksum_add(0, src, 4u);

    sum = mip_cksum_add(sum, dst, 4u);
    return sum + (uint32_t)proto + (uint32_t)l4_len;
}

uint32_t mip_cksum_pseudo6(const uint8_t src[16], const uint8_t dst[16],
                           uint8_t next_header, uint32_t l4_len)
{
    uint32_t sum = mip_cksum_add(0, src, 16u);

    sum = mip_cksum_add(sum, dst, 16u);
    sum += l4_len >> 16;
    sum += l4_len & 0xFFFFu;
    return sum + (uint32_t)next_header;
}

/* HC' = ~(~HC + ~m + m'). Eqn. 3 rather than RFC 1141's eqn. 2, which yields
 * 0xFFFF where a full recomputation yields 0x0000 (RFC 1624 section 4). */
uint16_t mip_cksum_update16(uint16_t cksum, uint16_t old_word, uint16_t new_word)
{
    uint32_t sum = (uint32_t)(uint16_t)~cksum;

    sum += (uint32_t)(uint16_t)~old_word;
    sum += (uint32_t)new_word;
    return mip_cksum_finish(sum);
}

uint16_t mip_cksum_update32(uint16_t cksum, uint32_t old_val, uint32_t new_val)
{
    uint32_t sum = (uint32_t)(uint16_t)~cksum;

    sum += (uint32_t)(uint16_t)~(uint16_t)(old_val >> 16);
    sum += (uint32_t)(uint16_t)~(uint16_t)old_val;
    sum += new_val >> 16;
    sum += new_val & 0xFFFFu;
    return mip_cksum_finish(sum);
}
