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

#include <stdbool.h>
#include <stdint.h>
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

#if MIP_CONF_CKSUM_WIDE == 1 && !MIP_CONF_CKSUM_SMALL
/* A one's complement sum of native 64-bit words, folded to 16 bits and
 * turned big-endian. */
static uint32_t fold64(uint64_t acc)
{
    uint32_t s;

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

/* The one's complement sum of the 16-bit big-endian words of `n4 * 4`
 * bytes, folded to 16 bits. Words are summed in native order: the one's
 * complement sum of byte-swapped words is the byte-swapped sum (RFC 1071
 * s.2(B)), so one swap at the end gives the big-endian result. */
static uint32_t sum_words32(const uint8_t *data, size_t n4)
{
    uint64_t acc = 0, w0, w1, w2, w3;
    uint32_t w;

    /* 64-bit words with the end-around carry added back at once: the one's
     * complement sum of 64-bit words folds to that of their 16-bit parts.
     * Four words a round (x86-64: 14 instructions per 32 bytes against 16
     * for two rounds of two). */
    while (n4 >= 8u) {
        memcpy(&w0, data, 8);
        memcpy(&w1, data + 8, 8);
        memcpy(&w2, data + 16, 8);
        memcpy(&w3, data + 24, 8);
        acc += w0;
        acc += (acc < w0);
        acc += w1;
        acc += (acc < w1);
        acc += w2;
        acc += (acc < w2);
        acc += w3;
        acc += (acc < w3);
        data += 32;
        n4 -= 8u;
    }
    if (n4 >= 4u) {
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
    return fold64(acc);
}
#endif

#if MIP_CONF_CKSUM_WIDE == 2 && !MIP_CONF_CKSUM_SMALL
/* The value of byte b as the first (f = 0) or second (f = 1) byte in memory
 * of a native 16-bit word. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_BYTE(b, f) ((uint32_t)(b) << ((f) * 8))
#else
#define NATIVE_BYTE(b, f) ((uint32_t)(b) << ((1 - (f)) * 8))
#endif

/* The one's complement sum of all `len` bytes at `data` (any alignment),
 * folded to 16 bits, big-endian, for CPUs without unaligned word loads
 * (Cortex-M0/M0+): aligned 32-bit loads into a 32-bit sum, the carries
 * counted apart (adds + adcs on Thumb) and added back at the end. Words are
 * summed in native order (RFC 1071 s.2(B)); an odd start sums the first
 * byte as the second byte of a native word, as if the buffer began one byte
 * earlier with a zero, so every later byte sits at its own address and the
 * sum comes out byte-swapped (swapped back at the end). */
static uint32_t sum_aligned32(const uint8_t *data, size_t len)
{
    uint32_t s = 0, c = 0, w, odd = (uint32_t)(uintptr_t)data & 1u;
    uint16_t h;
    const uint8_t *a;

    if (odd) {
        s = NATIVE_BYTE(data[0], 1);
        data++;
        len--;
    }
    if (((uintptr_t)data & 2u) != 0u) {     /* len >= 15 here */
        memcpy(&h, __builtin_assume_aligned(data, 2), 2);
        s += h;
        data += 2;
        len -= 2u;
    }
    a = __builtin_assume_aligned(data, 4);
#if defined(__thumb__) && defined(__GNUC__)
    /* Thumb: one ldmia and an adds/adcs chain per 16 bytes, the chain's
     * last carry counted in c, the loop ending on the end pointer (a high
     * register: every low one is taken). C has no add-with-carry, and gcc's
     * Thumb-1 code for `c += s < w` takes 5 instructions a word. The four
     * words are summed in any order, so the registers are pinned only to
     * keep the ldmia list ascending. */
    if (len >= 16u) {
        register uint32_t w0 __asm__("r4");
        register uint32_t w1 __asm__("r5");
        register uint32_t w2 __asm__("r6");
        register uint32_t w3 __asm__("r7");
        const uint8_t *end = a + (len & ~(size_t)15);
        __asm__(".syntax unified\n"
                "1:\n\t"
                "ldmia %[p]!, {%[w0], %[w1], %[w2], %[w3]}\n\t"
                "adds %[s], %[s], %[w0]\n\t"
                "adcs %[s], %[w1]\n\t"
                "adcs %[s], %[w2]\n\t"
                "adcs %[s], %[w3]\n\t"
                "movs %[w0], #0\n\t"
                "adcs %[c], %[w0]\n\t"
                "cmp %[p], %[e]\n\t"
                "bne 1b"
                : [p] "+l"(a), [s] "+l"(s), [c] "+l"(c), [w0] "=&l"(w0), [w1] "=&l"(w1),
                  [w2] "=&l"(w2), [w3] "=&l"(w3)
                : [e] "h"(end)
                : "cc", "memory");
        a = __builtin_assume_aligned(a, 4);
        len &= 15u;
    }
#endif
    while (len >= 16u) {
        uint32_t w0, w1, w2, w3;
        memcpy(&w0, a, 4);
        memcpy(&w1, a + 4, 4);
        memcpy(&w2, a + 8, 4);
        memcpy(&w3, a + 12, 4);
        s += w0;
        c += s < w0;
        s += w1;
        c += s < w1;
        s += w2;
        c += s < w2;
        s += w3;
        c += s < w3;
        a += 16;
        len -= 16u;
    }
    while (len >= 4u) {
        memcpy(&w, a, 4);
        s += w;
        c += s < w;
        a += 4;
        len -= 4u;
    }
    w = 0;
    if (len >= 2u) {
        memcpy(&h, a, 2);
        w = h;
        a += 2;
        len -= 2u;
    }
    if (len != 0u)
        w += NATIVE_BYTE(a[0], 0);
    /* Fold: c (at most one carry per word) and the tail word w join s as
     * 16-bit halves; six halves cannot overflow 32 bits. */
    s = (s & 0xFFFFu) + (s >> 16) + (w & 0xFFFFu) + (w >> 16) + (c & 0xFFFFu) + (c >> 16);
    s = (s & 0xFFFFu) + (s >> 16);
    s = (s & 0xFFFFu) + (s >> 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    odd ^= 1u;
#endif
    if (odd)
        s = ((s & 0xFFu) << 8) | (s >> 8);
    return s;
}
#endif

#if MIP_CONF_CKSUM_WIDE == 0 && !MIP_CONF_CKSUM_SMALL && \
    !(defined(__AVR__) && !defined(MIP_CKSUM_AVR_C))
/* The one's complement sum of the `len` bytes at `data`, folded to 16 bits,
 * big-endian: lwIP's algorithm 2 form (its core/inet_chksum.c, the default),
 * 16-bit words as the CPU loads them (aligned: an odd start is summed as the
 * second byte of the word at data - 1, and the sum swapped at the end) into
 * a 32-bit sum, in native order (RFC 1071 s.2(B)). It differs from lwIP's
 * loop in two ways, neither a wider word: eight words a round (RFC 1071
 * s.2(C) "deferred carries": the sum is folded once per 64 KB, where
 * lwIP's loop has no check and works for lengths up to 0x20000), and the native result is turned big-endian through memory, so no
 * byte-order macro is needed. */
static uint32_t sum_native16(const uint8_t *data, size_t len)
{
    uint32_t s = 0;
    uint16_t h;
    uint8_t b[2] = { 0, 0 };
    const bool odd = ((uintptr_t)data & 1u) != 0u;
    const uint8_t *p;

    if (odd) {
        b[1] = data[0];
        memcpy(&h, b, 2);
        s = h;
        data++;
        len--;
    }
#if defined(__GNUC__)
    p = __builtin_assume_aligned(data, 2);
#else
    p = data;
#endif
    while (len >= 16u) {
        /* 32,768 words of at most 0xFFFF on a folded sum stay below 2^31 */
        /* (compared as 32 bits: with a 16-bit size_t, AVR's C form, the
         * test is always true and gcc's -Wtype-limits says so) */
        size_t n = (uint32_t)len < 65536u ? (len & ~(size_t)15) : (size_t)65536u;
        const uint8_t *end = p + n;
        len -= n;
        do {
            uint16_t w0, w1, w2, w3, w4, w5, w6, w7;
            memcpy(&w0, p, 2);
            memcpy(&w1, p + 2, 2);
            memcpy(&w2, p + 4, 2);
            memcpy(&w3, p + 6, 2);
            memcpy(&w4, p + 8, 2);
            memcpy(&w5, p + 10, 2);
            memcpy(&w6, p + 12, 2);
            memcpy(&w7, p + 14, 2);
            s += (uint32_t)w0 + (uint32_t)w1 + (uint32_t)w2 + (uint32_t)w3 + (uint32_t)w4 +
                 (uint32_t)w5 + (uint32_t)w6 + (uint32_t)w7;
            p += 16;
        } while (p != end);
        s = (s & 0xFFFFu) + (s >> 16);
    }
    while (len >= 2u) {
        memcpy(&h, p, 2);
        s += h;
        p += 2;
        len -= 2u;
    }
    if (len != 0u) {
        b[0] = p[0];
        b[1] = 0;
        memcpy(&h, b, 2);
        s += h;
    }
    s = (s & 0xFFFFu) + (s >> 16);
    s = (s & 0xFFFFu) + (s >> 16);
    if (odd)
        s = ((s & 0xFFu) << 8) | (s >> 8);
    h = (uint16_t)s;
    memcpy(b, &h, 2);
    return mip_rd16(b);
}
#endif

#if defined(__AVR__) && !defined(MIP_CKSUM_AVR_C)
/* AVR, every profile: the smallest form's loop (below) in assembly, as
 * uIP's ports hand-code theirs. The sum stays in r23:r22 (high:low), each
 * big-endian word is added with the end-around carry at once: after a carry
 * out of the add the low 16 bits are at most 0xFFFE, so adding it back
 * cannot carry again. 13 cycles a word (subi, sbci, brcs, two ld, add, three
 * adc, rjmp): 6.5 cycles a byte. avr-gcc's ABI: sum in r25..r22, data in
 * r21:r20, len in r19:r18, the result in r25..r22, r1 zero; r18-r25 and Z
 * are the callee's to use. It returns the folded sum, as the small form
 * does, which every form's mip_cksum_finish takes. Tested on the chip by
 * bench/cksum_avr.c (every length 0..300 at both alignments against the C
 * loop, tests/interop/test_avr_checksum.py). */
__attribute__((naked)) uint32_t mip_cksum_add(uint32_t sum, const uint8_t *data, size_t len)
{
    (void)sum;
    (void)data;
    (void)len;
    __asm__ __volatile__(
        "    movw r30, r20\n"
        "    add  r22, r24\n"            /* the incoming sum's upper half: fold it */
        "    adc  r23, r25\n"
        "    adc  r22, __zero_reg__\n"
        "    adc  r23, __zero_reg__\n"
        "1:  subi r18, 2\n"
        "    sbci r19, 0\n"
        "    brcs 2f\n"                  /* fewer than two bytes left */
        "    ld   r24, Z+\n"             /* the word's high byte */
        "    ld   r25, Z+\n"
        "    add  r22, r25\n"
        "    adc  r23, r24\n"
        "    adc  r22, __zero_reg__\n"
        "    adc  r23, __zero_reg__\n"
        "    rjmp 1b\n"
        "2:  sbrs r18, 0\n"              /* len was odd: one byte, the high half */
        "    rjmp 3f\n"
        "    ld   r24, Z\n"
        "    add  r23, r24\n"
        "    adc  r22, __zero_reg__\n"
        "    adc  r23, __zero_reg__\n"
        "3:  clr  r24\n"
        "    clr  r25\n"
        "    ret\n");
}
#elif MIP_CONF_CKSUM_SMALL
/* The smallest form (config.h): a 16-bit sum with the end-around carry
 * added at each word, as on an 8-bit CPU by hand; the running sum it
 * returns is already folded. */
uint32_t mip_cksum_add(uint32_t sum, const uint8_t *data, size_t len)
{
    /* The incoming sum's upper half is the first word added: its fold. */
    uint16_t s = (uint16_t)sum, w = (uint16_t)(sum >> 16);

    for (;;) {
        s = (uint16_t)(s + w);
        if (s < w)
            s++;
        if (len == 0u)
            return s;
        w = (uint16_t)((uint16_t)data[0] << 8);
        if (len > 1u) {
            w |= data[1];
            len--;
        }
        len--;
        data += 2;
    }
}
#else
uint32_t mip_cksum_add(uint32_t sum, const uint8_t *data, size_t len)
{
#if MIP_CONF_CKSUM_WIDE == 0
    if (len == 0u)
        return sum;
    if (sum >= 0x7FFF0000u)
        sum = fold_once(sum);
    return sum + sum_native16(data, len);
#elif MIP_CONF_CKSUM_WIDE == 2 && !MIP_CONF_CKSUM_SMALL
    if (len >= 16u) {
        if (sum >= 0x7FFF0000u)
            sum = fold_once(sum);
        return sum + sum_aligned32(data, len);
    }
#elif MIP_CONF_CKSUM_WIDE == 1 && !MIP_CONF_CKSUM_SMALL
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
#if MIP_CONF_CKSUM_WIDE == 1
    /* Eight bytes per round: one overflow check per four words keeps the
     * inner loop short (the receive path's largest cost). Form 2 comes
     * here only for the short buffers it leaves (< 16 bytes). */
    while (len >= 8u) {
        if (sum >= 0x7FFC0000u)
            sum = fold_once(sum);
        sum += (uint32_t)mip_rd16(data) + (uint32_t)mip_rd16(data + 2) +
               (uint32_t)mip_rd16(data + 4) + (uint32_t)mip_rd16(data + 6);
        data += 8;
        len -= 8u;
    }
#endif
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
    /* Adding nothing folds the sum. */
    return (uint16_t)~mip_cksum_add(sum, NULL, 0);
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
#if MIP_CONF_CKSUM_WIDE == 1 && !MIP_CONF_CKSUM_SMALL
    /* Both addresses as four 64-bit words and one fold, not two calls that
     * fold each: every received and sent TCP segment comes here. */
    uint64_t acc, w;
    uint32_t sum;

    memcpy(&acc, src, 8);
    memcpy(&w, src + 8, 8);
    acc += w;
    acc += (acc < w);
    memcpy(&w, dst, 8);
    acc += w;
    acc += (acc < w);
    memcpy(&w, dst + 8, 8);
    acc += w;
    acc += (acc < w);
    sum = fold64(acc);
#else
    uint32_t sum = mip_cksum_add(0, src, 16u);

    sum = mip_cksum_add(sum, dst, 16u);
#endif
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
