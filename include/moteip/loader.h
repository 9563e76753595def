/*
 * Loadable programs (seeds/000 s.7.4.2: "a run-time relocation function and
 * a binary format that contains relocation information"): a program built
 * apart from the firmware arrives over the network as a module, is checked
 * and linked into a region of RAM the port reserves (the arena), and its
 * init function starts its processes. docs/OS.md describes the format and
 * tools/mipmod.py makes a module from a compiled object file.
 *
 * The module format, "MPM1", every number little-endian:
 *
 *   off  size  field
 *   0    4     magic "MPM1"
 *   4    1     arch: MIP_MODULE_ARCH_* (the CPU the code is for)
 *   5    1     version of the program (handed to init; state handover
 *               between versions is the program's business)
 *   6    2     header length (32)
 *   8    4     text_len: code and read-only data, copied to arena[0..)
 *   12   4     data_len: initialised data, copied after the text
 *   16   4     bss_len: zeroed after the data
 *   20   4     init: offset in the image of the init function (for Thumb
 *               code with bit 0 set, as a function pointer has it)
 *   24   2     n_relocs
 *   26   2     strtab_len
 *   28   4     CRC-32 (IEEE, as zlib.crc32) of every byte after the header
 *   32         text, data, then n_relocs x 8 bytes, then the string table
 *
 *   relocation: u32 offset (of a 32-bit word in text or data, 4-aligned),
 *               u8 kind, u8 0, u16 arg
 *     MIP_MODULE_REL_IMAGE  word += address of the image (the word holds an
 *                           offset into text|data|bss)
 *     MIP_MODULE_REL_CORE   word += address of the core symbol named at
 *                           strtab[arg] (a NUL-terminated string)
 *
 * Everything is checked before a byte of the arena changes: lengths against
 * the module's size and the arena, every relocation's offset inside text or
 * data, an image offset inside the image, every name inside the string
 * table and known to the core's table. A module that fails is refused with
 * the reason counted, and the running one stays. No heap: the arena is the
 * caller's, one module at a time.
 */
#ifndef MOTEIP_LOADER_H
#define MOTEIP_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "moteip/status.h"

#define MIP_MODULE_HDR_LEN 32u

enum mip_module_arch {
    MIP_MODULE_ARCH_NONE = 0,       /* data only: the unit tests and the fuzzer */
    MIP_MODULE_ARCH_THUMB = 1       /* ARMv6-M / ARMv7-M Thumb (Cortex-M0..M4) */
};

enum mip_module_rel {
    MIP_MODULE_REL_IMAGE = 1,
    MIP_MODULE_REL_CORE = 2
};

/* A core symbol a module may use: the table is sorted by name (strcmp). */
struct mip_symbol {
    const char *name;
    const void *addr;
};

#define MIP_LOADER_STATS_LIST(X)                                                 \
    X(loaded)        /* modules linked */                                        \
    X(truncated)     /* shorter than its header or its lengths say */            \
    X(bad_header)    /* magic, header length or arch not ours */                 \
    X(bad_crc)       /* the CRC-32 did not match */                              \
    X(too_big)       /* text + data + bss larger than the arena */               \
    X(bad_reloc)     /* a relocation outside text/data, or of an unknown kind */ \
    X(unknown_symbol)/* a name the core does not export, or outside strtab */

enum mip_loader_stat {
#define MIP_LOADER_STAT_ENUM(n) MIP_LOADER_STAT_##n,
    MIP_LOADER_STATS_LIST(MIP_LOADER_STAT_ENUM)
#undef MIP_LOADER_STAT_ENUM
    MIP_LOADER_STAT_COUNT
};

struct mip_loader {
    uint8_t *arena;                 /* the port's RAM for a module (executable) */
    size_t arena_len;
    const struct mip_symbol *syms;  /* sorted by name */
    size_t n_syms;
    uint8_t arch;                   /* the only arch this loader links */
    uint32_t stats[MIP_LOADER_STAT_COUNT];
};

/* What a linked module is. */
struct mip_module {
    uint8_t *image;                 /* the arena */
    size_t image_len;               /* text + data + bss */
    uintptr_t init;                 /* address of its init function */
    uint8_t version;
};

void mip_loader_init(struct mip_loader *l, uint8_t *arena, size_t arena_len,
                     const struct mip_symbol *syms, size_t n_syms, uint8_t arch);

/* Checks `mod` completely without touching the arena: the same outcomes
 * as mip_loader_link, counted alike. */
mip_status mip_loader_check(struct mip_loader *l, const uint8_t *mod, size_t len);

/* Checks `mod` completely, then copies and relocates it into the arena.
 * TRUNCATED, MALFORMED (header, relocation), CHECKSUM, NOSPACE (larger than
 * the arena), NOTFOUND (a symbol the core lacks), UNSUPPORTED (another
 * arch): each counted, and the arena untouched. */
mip_status mip_loader_link(struct mip_loader *l, const uint8_t *mod, size_t len,
                           struct mip_module *out);

/* The core symbol called `name`, or NULL. */
const void *mip_loader_symbol(const struct mip_loader *l, const char *name, size_t name_max);

uint32_t mip_loader_stat(const struct mip_loader *l, enum mip_loader_stat which);

#endif
