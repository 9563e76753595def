/*
 * The module loader (include/moteip/loader.h): check everything, then copy
 * and relocate. Two passes over the relocations: the first only checks
 * (so a bad module leaves the arena and the running program alone), the
 * second writes.
 */
#include "moteip/loader.h"

#include <string.h>

#include "moteip/crc32.h"

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static void wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

void mip_loader_init(struct mip_loader *l, uint8_t *arena, size_t arena_len,
                     const struct mip_symbol *syms, size_t n_syms, uint8_t arch)
{
    memset(l, 0, sizeof(*l));
    l->arena = arena;
    l->arena_len = arena_len;
    l->syms = syms;
    l->n_syms = n_syms;
    l->arch = arch;
}

const void *mip_loader_symbol(const struct mip_loader *l, const char *name, size_t name_max)
{
    size_t lo = 0, hi = l->n_syms;
    const char *nul = memchr(name, '\0', name_max);
    size_t n = nul != NULL ? (size_t)(nul - name) : name_max;
    while (lo < hi) {           /* the table is sorted by name */
        size_t mid = lo + (hi - lo) / 2u;
        int c = strncmp(l->syms[mid].name, name, n);
        if (c == 0 && l->syms[mid].name[n] != '\0')
            c = 1;              /* a longer name sorts after its prefix */
        if (c == 0)
            return l->syms[mid].addr;
        if (c < 0)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return NULL;
}

/* The module's parts, from a header that passed the checks. */
struct geom {
    uint32_t text, data, bss, init;
    uint16_t n_rel, strtab_len;
    const uint8_t *code;        /* text then data */
    const uint8_t *rel;
    const char *strtab;
};

static mip_status refuse(struct mip_loader *l, enum mip_loader_stat why, mip_status st)
{
    l->stats[why]++;
    return st;
}

static mip_status check_header(struct mip_loader *l, const uint8_t *m, size_t len,
                               struct geom *g)
{
    uint64_t body;
    if (len < MIP_MODULE_HDR_LEN)
        return refuse(l, MIP_LOADER_STAT_truncated, MIP_ERR_TRUNCATED);
    if (memcmp(m, "MPM1", 4) != 0 || rd16(m + 6) != MIP_MODULE_HDR_LEN)
        return refuse(l, MIP_LOADER_STAT_bad_header, MIP_ERR_MALFORMED);
    if (m[4] != l->arch)
        return refuse(l, MIP_LOADER_STAT_bad_header, MIP_ERR_UNSUPPORTED);
    g->text = rd32(m + 8);
    g->data = rd32(m + 12);
    g->bss = rd32(m + 16);
    g->init = rd32(m + 20);
    g->n_rel = rd16(m + 24);
    g->strtab_len = rd16(m + 26);
    /* 64-bit sums: no 32-bit length can wrap them */
    body = (uint64_t)g->text + g->data + 8u * (uint64_t)g->n_rel + g->strtab_len;
    if (body > len - MIP_MODULE_HDR_LEN)
        return refuse(l, MIP_LOADER_STAT_truncated, MIP_ERR_TRUNCATED);
    if (body != len - MIP_MODULE_HDR_LEN || (g->text & 3u) != 0 || (g->data & 3u) != 0)
        return refuse(l, MIP_LOADER_STAT_bad_header, MIP_ERR_MALFORMED);
    if (mip_crc32_update(0, m + MIP_MODULE_HDR_LEN, (size_t)body) != rd32(m + 28))
        return refuse(l, MIP_LOADER_STAT_bad_crc, MIP_ERR_CHECKSUM);
    if ((uint64_t)g->text + g->data + g->bss > l->arena_len)
        return refuse(l, MIP_LOADER_STAT_too_big, MIP_ERR_NOSPACE);
    /* init lies in the text (bit 0: Thumb) */
    if ((g->init & ~1u) >= g->text)
        return refuse(l, MIP_LOADER_STAT_bad_header, MIP_ERR_MALFORMED);
    g->code = m + MIP_MODULE_HDR_LEN;
    g->rel = g->code + g->text + g->data;
    g->strtab = (const char *)(g->rel + 8u * g->n_rel);
    return MIP_OK;
}

/* The value relocation r adds to its word, or an error (pass 1 only). */
static mip_status reloc_value(struct mip_loader *l, const struct geom *g, const uint8_t *r,
                              uint32_t *add, uint32_t *off)
{
    uint32_t image = g->text + g->data + g->bss;
    uint16_t arg = rd16(r + 6);
    *off = rd32(r);
    if ((*off & 3u) != 0 || *off >= g->text + g->data || r[5] != 0)
        return refuse(l, MIP_LOADER_STAT_bad_reloc, MIP_ERR_MALFORMED);
    if (r[4] == MIP_MODULE_REL_IMAGE) {
        /* the word holds an offset in the image: it must stay inside */
        uint32_t in = rd32(g->code + *off);
        if (arg != 0 || (in & ~1u) > image)
            return refuse(l, MIP_LOADER_STAT_bad_reloc, MIP_ERR_MALFORMED);
        *add = (uint32_t)(uintptr_t)l->arena;
        return MIP_OK;
    }
    if (r[4] == MIP_MODULE_REL_CORE) {
        const void *a;
        if (arg >= g->strtab_len || memchr(g->strtab + arg, '\0', g->strtab_len - arg) == NULL)
            return refuse(l, MIP_LOADER_STAT_unknown_symbol, MIP_ERR_MALFORMED);
        a = mip_loader_symbol(l, g->strtab + arg, (size_t)(g->strtab_len - arg));
        if (a == NULL)
            return refuse(l, MIP_LOADER_STAT_unknown_symbol, MIP_ERR_NOTFOUND);
        *add = (uint32_t)(uintptr_t)a;
        return MIP_OK;
    }
    return refuse(l, MIP_LOADER_STAT_bad_reloc, MIP_ERR_MALFORMED);
}

static mip_status check_all(struct mip_loader *l, const uint8_t *mod, size_t len,
                            struct geom *g)
{
    mip_status st;
    uint32_t i, add = 0, off = 0;
    if (l == NULL || mod == NULL)
        return MIP_ERR_INVALID;
    st = check_header(l, mod, len, g);
    for (i = 0; st == MIP_OK && i < g->n_rel; i++)
        st = reloc_value(l, g, g->rel + 8u * i, &add, &off);
    return st;
}

mip_status mip_loader_check(struct mip_loader *l, const uint8_t *mod, size_t len)
{
    struct geom g;
    return check_all(l, mod, len, &g);
}

mip_status mip_loader_link(struct mip_loader *l, const uint8_t *mod, size_t len,
                           struct mip_module *out)
{
    struct geom g;
    mip_status st;
    uint32_t i, add = 0, off = 0;
    if (out == NULL)
        return MIP_ERR_INVALID;
    st = check_all(l, mod, len, &g);
    if (st != MIP_OK)
        return st;
    /* Checked: now the arena changes. */
    memcpy(l->arena, g.code, (size_t)g.text + g.data);
    memset(l->arena + g.text + g.data, 0, g.bss);
    for (i = 0; i < g.n_rel; i++) {
        (void)reloc_value(l, &g, g.rel + 8u * i, &add, &off);
        wr32(l->arena + off, rd32(l->arena + off) + add);
    }
    out->image = l->arena;
    out->image_len = (size_t)g.text + g.data + g.bss;
    out->init = (uintptr_t)l->arena + g.init;
    out->version = mod[5];
    l->stats[MIP_LOADER_STAT_loaded]++;
    return MIP_OK;
}

uint32_t mip_loader_stat(const struct mip_loader *l, enum mip_loader_stat which)
{
    return which < MIP_LOADER_STAT_COUNT ? l->stats[which] : 0u;
}
