/*
 * bench/cksum_avr.c -- the ATmega1284P firmware behind bench/cksum-avr and
 * tests/interop/test_avr_checksum.py: the AVR checksum (src/wire/checksum.c,
 * the loop in assembly) checked on the chip against a plain C reference at
 * every length 0..300 and both alignments, from incoming sums that include
 * the folding edge cases; then its cost per KB, timed by the chip's Timer3
 * at F_CPU. Prints "ok <cases>" or "fail len=<n> align=<a> sum=<s>", then
 * "cycles_per_kb <n>", then "done", on USART0.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "moteip/wire/checksum.h"

#define MAXLEN 300u

struct cks {
    struct board_clock clock;
    uint8_t buf[MAXLEN + 2u];
    uint8_t kb[1024];
};

static struct cks cks;

/* RFC 1071 by the book: 32-bit accumulator, folded at the end (the
 * incoming sum folded first, so 300 bytes cannot overflow it). */
static uint16_t reference(uint32_t sum, const uint8_t *p, size_t n)
{
    size_t i;
    sum = (sum & 0xFFFFu) + (sum >> 16);
    for (i = 0; i + 1u < n; i += 2u)
        sum += ((uint32_t)p[i] << 8) | p[i + 1u];
    if (n & 1u)
        sum += (uint32_t)p[n - 1u] << 8;
    while (sum >> 16)
        sum = (sum & 0xFFFFu) + (sum >> 16);
    return (uint16_t)sum;
}

static void say(const char *s, uint32_t v, int with_v)
{
    char line[48];
    size_t k = strlen(s);
    char tmp[11];
    size_t n = 0;
    memcpy(line, s, k);
    if (with_v) {
        do {
            tmp[n++] = (char)('0' + v % 10u);
            v /= 10u;
        } while (v != 0u);
        while (n > 0)
            line[k++] = tmp[--n];
    }
    line[k++] = '\n';
    (void)board_uart_write(NULL, (const uint8_t *)line, k);
}

static uint16_t fold(uint32_t s)
{
    while (s >> 16)
        s = (s & 0xFFFFu) + (s >> 16);
    return (uint16_t)s;
}

int main(void)
{
    static const uint32_t sums[] = { 0u, 0xFFFFu, 0x1FFFEu, 0x2FFFDu, 0xFFFF0000u, 0x12345u };
    struct cks *c = &cks;
    uint32_t x = 0x9E3779B9u, cases = 0, cycles = 0;
    size_t len, i;
    uint8_t align, k;

    board_init(&c->clock);
    TCCR3A = 0;
    TCCR3B = _BV(CS30);                 /* Timer3 counts every CPU cycle */
    for (;;) {                          /* the bench's peer sends one byte */
        size_t n;
        (void)mip_byte_ring_peek(board_uart_rx(), &n);
        if (n > 0)
            break;
        board_sleep(&c->clock, 10);
    }
    for (len = 0; len <= MAXLEN; len++) {
        for (align = 0; align < 2u; align++) {
            for (k = 0; k < sizeof sums / sizeof sums[0]; k++) {
                uint16_t got, want;
                for (i = 0; i < len; i++) {
                    x = x * 1664525u + 1013904223u;
                    c->buf[align + i] = (uint8_t)(x >> 24);
                }
                if (len > 0 && k == 0)
                    memset(c->buf + align, 0xFF, len);      /* all ones: carries everywhere */
                got = fold(mip_cksum_add(sums[k], c->buf + align, len));
                want = reference(sums[k], c->buf + align, len);
                /* 0x0000 and 0xFFFF are the same one's complement value,
                 * but the fold never turns a non-zero sum into zero */
                if (got != want) {
                    say("fail len=", (uint32_t)len, 1);
                    say("align=", align, 1);
                    say("sum=", sums[k], 1);
                    goto out;
                }
                cases++;
            }
        }
    }
    say("ok ", cases, 1);
    for (i = 0; i < sizeof c->kb; i++)
        c->kb[i] = (uint8_t)(i * 7u);
    {
        uint8_t r;
        for (r = 0; r < 8u; r++) {
            uint16_t t0, t1;
            volatile uint32_t sink;
            cli();
            t0 = TCNT3;
            sink = mip_cksum_add(0, c->kb, sizeof c->kb);
            t1 = TCNT3;
            sei();
            (void)sink;
            cycles += (uint16_t)(t1 - t0);
        }
    }
    say("cycles_per_kb ", cycles / 8u, 1);
out:
    (void)board_uart_write(NULL, (const uint8_t *)"done\n", 5);
    board_sleep(&c->clock, 20);
    cli();
    sleep_cpu();
    for (;;) {
    }
}
