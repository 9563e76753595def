/*
 * cksum_board: the internet checksum on an emulated Cortex-M board
 * (bench/cksum-arm): checks mip_cksum_add against the 16-bit definition on
 * pseudo-random buffers of every length 0..300 at every alignment 0..3 (on
 * the real CPU, so the word loop's alignment handling is exercised where
 * an unaligned word load would fault), then times 256 sums of a 1,024-byte
 * buffer with SysTick. Under `qemu-system-arm -icount shift=0` one
 * instruction is one ns of virtual time, so SysTick (16 MHz on the
 * micro:bit, 25 MHz on the MPS2) counts instructions, not cycles: QEMU
 * models no pipeline. Output and exit through ARM semihosting; no C
 * library. Bare-metal, one instance: its buffers are static.
 */
#include <stdint.h>
#include <string.h>

#include "moteip/wire/checksum.h"


#define QEMU_FAULT_MSG "cksum_board: fault\n"
#include "qemu_cortexm.h"

static void put(const char *s) { semihost_puts(s); }

static void put_u(uint32_t v)
{
    char b[12];
    int i = 11;
    b[i] = 0;
    do {
        b[--i] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0u);
    put(b + i);
}

static uint16_t ref_cksum(uint32_t sum, const uint8_t *p, size_t len)
{
    uint64_t s = sum;
    size_t i;
    for (i = 0; i + 1 < len; i += 2)
        s += (uint32_t)((p[i] << 8) | p[i + 1]);
    if (len & 1u)
        s += (uint32_t)p[len - 1] << 8;
    while (s >> 16)
        s = (s & 0xFFFFu) + (s >> 16);
    return (uint16_t)~s;
}

static uint8_t buf[1024 + 4] __attribute__((aligned(4)));

int main(void)
{
    uint32_t x = 0x2545F491u, bad = 0, t0, t1, i, off, len, sum = 0;

    for (i = 0; i < sizeof buf; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf[i] = (uint8_t)x;
    }
    for (off = 0; off < 4; off++)
        for (len = 0; len <= 300; len++)
            bad += mip_cksum_finish(mip_cksum_add(len * 77u, buf + off, len)) !=
                   ref_cksum(len * 77u, buf + off, len);
    put("cksum_board: lengths 0..300 x alignments 0..3: ");
    put_u(bad);
    put(" wrong\n");

    SYST_RVR = 0xFFFFFFu;
    SYST_CVR = 0;
    SYST_CSR = 5u;                  /* processor clock, no interrupt, on */
    /* Calibration: 2^20 rounds of a two-instruction loop. */
    t0 = SYST_CVR;
    {
        uint32_t n = 1u << 20;
        __asm__ volatile(".syntax unified\n1:\n\tsubs %0, #1\n\tbne 1b" : "+l"(n) : : "cc");
    }
    t1 = SYST_CVR;
    put("cksum_board: 2097152 instructions: ");
    put_u((t0 - t1) & 0xFFFFFFu);
    put(" SysTick ticks\n");
    t0 = SYST_CVR;
    for (i = 0; i < 256; i++)
        sum += mip_cksum_finish(mip_cksum_add(0, buf, 1024));
    t1 = SYST_CVR;
    put("cksum_board: 256 x 1024 B: ");
    put_u((t0 - t1) & 0xFFFFFFu);
    put(" SysTick ticks (sum ");
    put_u(sum & 0xFFFFu);
    put(")\n");
    return bad == 0 ? 0 : 1;
}
