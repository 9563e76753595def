/*
 * libFuzzer harness for the module loader (src/os/loader.c): any bytes as a
 * module, linked into a 256-byte arena against a three-symbol table (arch
 * NONE: nothing runs). The first input byte picks whether the harness fixes
 * the module's CRC-32 first (odd) so the fuzzer reaches the relocations, or
 * leaves it as it came (even). Invariants: check and link agree; a refused
 * module leaves the arena byte for byte as it was; a linked one fills no
 * more than its image, inside the arena, with init inside it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "moteip/crc32.h"
#include "moteip/loader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int sym_a = 1, sym_b = 2, sym_c = 3;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct mip_symbol syms[] = {
        { "mip_a", &sym_a }, { "mip_b", &sym_b }, { "mip_bc", &sym_c },
    };
    uint8_t arena[256];
    struct mip_loader l;
    struct mip_module mod;
    uint8_t *m;
    size_t n, k;
    mip_status c, st;

    if (size == 0)
        return 0;
    n = size - 1u;
    m = malloc(n ? n : 1);     /* exactly the module's bytes: ASan sees a read past them */
    if (m == NULL)
        abort();
    memcpy(m, data + 1, n);
    if ((data[0] & 1u) && n >= MIP_MODULE_HDR_LEN) {
        uint32_t crc = mip_crc32_update(0, m + MIP_MODULE_HDR_LEN, n - MIP_MODULE_HDR_LEN);
        m[28] = (uint8_t)crc;
        m[29] = (uint8_t)(crc >> 8);
        m[30] = (uint8_t)(crc >> 16);
        m[31] = (uint8_t)(crc >> 24);
    }
    memset(arena, 0x5A, sizeof arena);
    mip_loader_init(&l, arena, sizeof arena, syms, 3, MIP_MODULE_ARCH_NONE);
    c = mip_loader_check(&l, m, n);
    st = mip_loader_link(&l, m, n, &mod);
    CHECKF(c == st);
    if (st != MIP_OK) {
        for (k = 0; k < sizeof arena; k++)
            CHECKF(arena[k] == 0x5A);
    } else {
        CHECKF(mod.image == arena && mod.image_len <= sizeof arena);
        CHECKF((mod.init & ~(uintptr_t)1) >= (uintptr_t)arena &&
               (mod.init & ~(uintptr_t)1) < (uintptr_t)arena + mod.image_len);
        for (k = mod.image_len; k < sizeof arena; k++)
            CHECKF(arena[k] == 0x5A);
        CHECKF(mip_loader_stat(&l, MIP_LOADER_STAT_loaded) == 1u);
    }
    free(m);
    return 0;
}
