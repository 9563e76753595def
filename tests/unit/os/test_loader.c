/* The module loader (include/moteip/loader.h): modules built here byte by
 * byte (arch NONE: data only, nothing runs), linked into an arena; every
 * refusal leaves the arena as it was and is counted by its reason. */
#include <stdbool.h>
#include <string.h>

#include "testing.h"
#include "moteip/crc32.h"
#include "moteip/loader.h"

static int alpha, beta, gamma_;
static const struct mip_symbol syms[] = {
    { "alpha", &alpha }, { "beta", &beta }, { "betamax", &gamma_ },
};

#define ARENA 64u

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* text: [0] = image offset 12 (IMAGE: the data word), [4] = 2 (CORE "beta"
 * + 2), data: [8] = 0x11223344 (no relocation), [12] = image offset 16 (the
 * bss, IMAGE); bss 8 bytes; init at 4 with the Thumb bit; two names. */
static size_t build(uint8_t *m, uint8_t arch)
{
    static const char names[] = "alpha\0beta";
    uint8_t *b = m + MIP_MODULE_HDR_LEN;
    size_t body;
    memcpy(m, "MPM1", 4);
    m[4] = arch;
    m[5] = 7;                                  /* version */
    m[6] = MIP_MODULE_HDR_LEN;
    m[7] = 0;
    put32(m + 8, 8);                           /* text */
    put32(m + 12, 8);                          /* data */
    put32(m + 16, 8);                          /* bss */
    put32(m + 20, 4 | 1);                      /* init */
    m[24] = 3;                                 /* relocations */
    m[25] = 0;
    m[26] = sizeof names;                      /* strtab */
    m[27] = 0;
    put32(b + 0, 12);
    put32(b + 4, 2);
    put32(b + 8, 0x11223344u);
    put32(b + 12, 16);
    b += 16;
    put32(b, 0);  b[4] = MIP_MODULE_REL_IMAGE; b[5] = 0; b[6] = 0; b[7] = 0;
    b += 8;
    put32(b, 4);  b[4] = MIP_MODULE_REL_CORE;  b[5] = 0; b[6] = 6; b[7] = 0;   /* "beta" */
    b += 8;
    put32(b, 12); b[4] = MIP_MODULE_REL_IMAGE; b[5] = 0; b[6] = 0; b[7] = 0;
    b += 8;
    memcpy(b, names, sizeof names);
    b += sizeof names;
    body = (size_t)(b - (m + MIP_MODULE_HDR_LEN));
    put32(m + 28, mip_crc32_update(0, m + MIP_MODULE_HDR_LEN, body));
    return MIP_MODULE_HDR_LEN + body;
}

static void recrc(uint8_t *m, size_t len)
{
    put32(m + 28, mip_crc32_update(0, m + MIP_MODULE_HDR_LEN, len - MIP_MODULE_HDR_LEN));
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_a_module_is_copied_relocated_and_its_bss_zeroed(void)
{
    static uint8_t arena[ARENA];
    struct mip_loader l;
    struct mip_module mod;
    uint8_t m[128];
    size_t len = build(m, MIP_MODULE_ARCH_NONE);
    uint32_t base;
    memset(arena, 0xAA, sizeof arena);
    mip_loader_init(&l, arena, sizeof arena, syms, 3, MIP_MODULE_ARCH_NONE);
    CHECK_EQ(mip_loader_link(&l, m, len, &mod), MIP_OK);
    base = (uint32_t)(uintptr_t)arena;
    CHECK_EQ(get32(arena + 0), base + 12u);
    CHECK_EQ(get32(arena + 4), (uint32_t)(uintptr_t)&beta + 2u);
    CHECK_EQ(get32(arena + 8), 0x11223344u);
    CHECK_EQ(get32(arena + 12), base + 16u);
    CHECK_EQ(get32(arena + 16) | get32(arena + 20), 0u);          /* bss */
    CHECK_EQ(arena[24], 0xAA);                                    /* beyond: untouched */
    CHECK_EQ(mod.image_len, 24u);
    CHECK(mod.init == (uintptr_t)arena + 5u);
    CHECK_EQ(mod.version, 7u);
    CHECK_EQ(mip_loader_stat(&l, MIP_LOADER_STAT_loaded), 1u);
}

/* One way to spoil the module each, and what it must give. */
struct spoil {
    const char *what;
    size_t at;          /* byte to set (0xFFFF: cut the module to `value` bytes) */
    uint8_t value;
    bool crc;           /* recompute the CRC after */
    mip_status st;
    enum mip_loader_stat stat;
};

static void test_every_defect_is_refused_before_the_arena_changes(void)
{
    static const struct spoil cases[] = {
        { "shorter than the header", 0xFFFF, 20, false, MIP_ERR_TRUNCATED, MIP_LOADER_STAT_truncated },
        { "shorter than its lengths", 0xFFFF, 60, false, MIP_ERR_TRUNCATED, MIP_LOADER_STAT_truncated },
        { "magic", 0, 'X', false, MIP_ERR_MALFORMED, MIP_LOADER_STAT_bad_header },
        { "header length", 6, 33, false, MIP_ERR_MALFORMED, MIP_LOADER_STAT_bad_header },
        { "another arch", 4, MIP_MODULE_ARCH_THUMB, false, MIP_ERR_UNSUPPORTED, MIP_LOADER_STAT_bad_header },
        { "a flipped byte", 40, 0x99, false, MIP_ERR_CHECKSUM, MIP_LOADER_STAT_bad_crc },
        { "bss larger than the arena", 18, 1, true, MIP_ERR_NOSPACE, MIP_LOADER_STAT_too_big },
        { "text not a word multiple", 8, 6, true, MIP_ERR_MALFORMED, MIP_LOADER_STAT_bad_header },
        { "init outside the text", 20, 9, true, MIP_ERR_MALFORMED, MIP_LOADER_STAT_bad_header },
        { "relocation not aligned", 48, 2, true, MIP_ERR_MALFORMED, MIP_LOADER_STAT_bad_reloc },
        { "relocation outside text and data", 48, 16, true, MIP_ERR_MALFORMED, MIP_LOADER_STAT_bad_reloc },
        { "relocation of no kind", 52, 9, true, MIP_ERR_MALFORMED, MIP_LOADER_STAT_bad_reloc },
        { "relocation's pad byte", 53, 1, true, MIP_ERR_MALFORMED, MIP_LOADER_STAT_bad_reloc },
        { "image offset beyond the image", 32, 200, true, MIP_ERR_MALFORMED, MIP_LOADER_STAT_bad_reloc },
        { "name outside the string table", 62, 40, true, MIP_ERR_MALFORMED, MIP_LOADER_STAT_unknown_symbol },
        { "name without its NUL", 82, 'x', true, MIP_ERR_MALFORMED, MIP_LOADER_STAT_unknown_symbol },
        { "a name the core lacks", 78, 'z', true, MIP_ERR_NOTFOUND, MIP_LOADER_STAT_unknown_symbol },
    };
    static uint8_t arena[ARENA];
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct spoil *c = &cases[i];
        struct mip_loader l;
        struct mip_module mod;
        uint8_t m[128];
        size_t len = build(m, MIP_MODULE_ARCH_NONE), k;
        int before = testing_failures;
        bool intact = true;
        if (c->at == 0xFFFF)
            len = c->value;
        else
            m[c->at] = c->value;
        if (c->crc)
            recrc(m, len);
        memset(arena, 0xAA, sizeof arena);
        mip_loader_init(&l, arena, sizeof arena, syms, 3, MIP_MODULE_ARCH_NONE);
        CHECK_EQ(mip_loader_check(&l, m, len), c->st);
        CHECK_EQ(mip_loader_link(&l, m, len, &mod), c->st);
        CHECK_EQ(mip_loader_stat(&l, c->stat), 2u);       /* check, then link */
        CHECK_EQ(mip_loader_stat(&l, MIP_LOADER_STAT_loaded), 0u);
        for (k = 0; k < sizeof arena; k++)
            intact = intact && arena[k] == 0xAA;
        CHECK(intact);
        if (testing_failures != before)
            fprintf(stderr, "  (the case: %s)\n", c->what);
    }
}

static void test_symbols_match_whole_names_only(void)
{
    struct mip_loader l;
    mip_loader_init(&l, NULL, 0, syms, 3, MIP_MODULE_ARCH_NONE);
    CHECK(mip_loader_symbol(&l, "beta", 16) == &beta);
    CHECK(mip_loader_symbol(&l, "betamax", 16) == &gamma_);
    CHECK(mip_loader_symbol(&l, "bet", 16) == NULL);
    CHECK(mip_loader_symbol(&l, "betam", 16) == NULL);
    CHECK(mip_loader_symbol(&l, "betamaxx", 16) == NULL);
    CHECK(mip_loader_symbol(&l, "alpha", 16) == &alpha);
    CHECK(mip_loader_symbol(&l, "alphabet", 5) == &alpha);      /* only 5 bytes are the name */
    CHECK(mip_loader_symbol(&l, "", 16) == NULL);
}

int main(void)
{
    RUN(test_a_module_is_copied_relocated_and_its_bss_zeroed);
    RUN(test_every_defect_is_refused_before_the_arena_changes);
    RUN(test_symbols_match_whole_names_only);
    return TESTING_DONE();
}
