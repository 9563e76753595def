/*
 * libFuzzer harness: the simulator's scenario reader (sim/json.h), cJSON
 * with our lexer beside it.
 *
 * Input: [0] max_depth (0 = the default 64, else 1..255); then the text.
 *
 * 1. sj_parse either gives a document or an error whose message starts
 *    with "line L, column C: " (L, C >= 1, a character of the text or the
 *    end of a line), or names no position only for the size limit.
 * 2. A document is what json.h promises: parent, index and key links
 *    agree; strings are NUL-terminated at their length and valid UTF-8; an
 *    exact integer converts to its double; no object has a key twice;
 *    sj_path and sj_describe stay within their buffers.
 * 3. Written back with sj_writer (compact) and read again, the document is
 *    the same tree: types, keys, strings and exact integers equal, doubles
 *    within the writer's 15 significant digits. Written indented (1-4
 *    spaces by the text's length) it reads as the same tree too, and is
 *    the compact text but for whitespace outside strings.
 * 4. Written to a file one byte too short for it, the writer reports a
 *    write error from sj_writer_finish (never a success, never a crash).
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#include "fuzz_check.h"

static bool valid_utf8(const unsigned char *p, size_t n)
{
    size_t i = 0;

    while (i < n) {
        unsigned char c = p[i];
        size_t k, j;
        uint32_t cp;

        if (c < 0x80) {
            i++;
            continue;
        }
        k = c >= 0xF0 ? 4u : c >= 0xE0 ? 3u : c >= 0xC0 ? 2u : 0u;
        if (k == 0 || i + k > n)
            return false;
        cp = c & (0x7Fu >> k);
        for (j = 1; j < k; j++) {
            if ((p[i + j] & 0xC0u) != 0x80u)
                return false;
            cp = (cp << 6) | (p[i + j] & 0x3Fu);
        }
        if ((k == 2 && cp < 0x80) || (k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) ||
            cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += k;
    }
    return true;
}

/* Line and column name a character of the text, or the end of its line:
 * where cJSON stopped, mapped back, stays inside what was read. */
static bool position_in_text(const uint8_t *text, size_t len, uint32_t line, uint32_t column)
{
    uint32_t l = 1, chars = 0;
    size_t i;

    for (i = 0; i < len && l < line; i++)
        if (text[i] == '\n')
            l++;
    if (l != line)
        return false;
    for (; i < len && text[i] != '\n'; i++)
        if ((text[i] & 0xC0u) != 0x80u)
            chars++;
    return column <= chars + 1u;
}

static void check_value(const struct sj_value *v, const struct sj_value *parent, size_t index)
{
    char buf[48];
    size_t i, j, n;

    CHECKF(v->parent == parent);
    if (parent != NULL)
        CHECKF(v->index == index);
    if (parent != NULL && parent->type == SJ_OBJECT) {
        CHECKF(v->key != NULL && v->key[v->key_len] == '\0');
        CHECKF(valid_utf8((const unsigned char *)v->key, v->key_len));
    } else {
        CHECKF(v->key == NULL);
    }
    n = sj_path(v, buf, sizeof buf);
    CHECKF(strlen(buf) == (n < sizeof buf ? n : sizeof buf - 1u));
    n = sj_describe(v, buf, sizeof buf);
    CHECKF(strlen(buf) == (n < sizeof buf ? n : sizeof buf - 1u));
    switch (v->type) {
    case SJ_STRING:
        CHECKF(v->u.str.s != NULL && v->u.str.s[v->u.str.len] == '\0');
        CHECKF(valid_utf8((const unsigned char *)v->u.str.s, v->u.str.len));
        break;
    case SJ_NUMBER:
        CHECKF(isfinite(v->u.num.d));
        if (v->u.num.is_int)
            CHECKF((double)v->u.num.i == v->u.num.d);
        break;
    case SJ_ARRAY:
    case SJ_OBJECT:
        n = sj_len(v);
        for (i = 0; i < n; i++)
            check_value(sj_at(v, i), v, i);
        /* Quadratic, but inputs are small: libFuzzer's default max_len. */
        if (v->type == SJ_OBJECT)
            for (i = 0; i < n; i++)
                for (j = i + 1u; j < n; j++)
                    CHECKF(sj_at(v, i)->key_len != sj_at(v, j)->key_len ||
                           memcmp(sj_at(v, i)->key, sj_at(v, j)->key,
                                  sj_at(v, i)->key_len) != 0);
        break;
    case SJ_NULL:
    case SJ_BOOL:
        break;
    }
}

static void write_value(struct sj_writer *w, const struct sj_value *v)
{
    size_t i;

    if (v->parent != NULL && v->parent->type == SJ_OBJECT) {
        if (strlen(v->key) == v->key_len)
            sj_w_key(w, v->key);        /* (the NUL-terminated form) */
        else
            sj_w_key_n(w, v->key, v->key_len);
    }
    switch (v->type) {
    case SJ_NULL: sj_w_null(w); break;
    case SJ_BOOL: sj_w_bool(w, v->u.boolean); break;
    case SJ_NUMBER:
        if (v->u.num.is_int)
            sj_w_int(w, v->u.num.i);
        else
            sj_w_double(w, v->u.num.d);
        break;
    case SJ_STRING:
        if (strlen(v->u.str.s) == v->u.str.len)
            sj_w_string(w, v->u.str.s);
        else
            sj_w_string_n(w, v->u.str.s, v->u.str.len);
        break;
    case SJ_ARRAY:
    case SJ_OBJECT:
        if (v->type == SJ_ARRAY)
            sj_w_begin_array(w);
        else
            sj_w_begin_object(w);
        for (i = 0; i < sj_len(v); i++)
            write_value(w, sj_at(v, i));
        if (v->type == SJ_ARRAY)
            sj_w_end_array(w);
        else
            sj_w_end_object(w);
        break;
    }
}

static void check_same(const struct sj_value *a, const struct sj_value *b)
{
    size_t i;

    CHECKF(a->type == b->type && a->key_len == b->key_len);
    if (a->key_len != 0)
        CHECKF(memcmp(a->key, b->key, a->key_len) == 0);
    switch (a->type) {
    case SJ_BOOL: CHECKF(a->u.boolean == b->u.boolean); break;
    case SJ_STRING:
        CHECKF(a->u.str.len == b->u.str.len &&
               memcmp(a->u.str.s, b->u.str.s, a->u.str.len) == 0);
        break;
    case SJ_NUMBER:
        /* 1e3 is written as 1000, which reads as an integer. */
        if (a->u.num.is_int)
            CHECKF(b->u.num.is_int && a->u.num.i == b->u.num.i);
        else
            CHECKF(fabs(a->u.num.d - b->u.num.d) <= 1e-14 * fabs(a->u.num.d) ||
                   fabs(a->u.num.d) < 1e-300);
        break;
    case SJ_ARRAY:
    case SJ_OBJECT:
        CHECKF(sj_len(a) == sj_len(b));
        for (i = 0; i < sj_len(a); i++)
            check_same(sj_at(a, i), sj_at(b, i));
        break;
    case SJ_NULL: break;
    }
}

/* a and b, JSON texts, are equal but for whitespace outside strings. */
static bool same_but_space(const char *a, size_t an, const char *b, size_t bn)
{
    size_t i = 0, j = 0;
    bool in_str = false, esc = false;
    for (;;) {
        if (!in_str) {
            while (i < an && strchr(" \t\r\n", a[i]) != NULL)
                i++;
            while (j < bn && strchr(" \t\r\n", b[j]) != NULL)
                j++;
        }
        if (i == an || j == bn)
            return i == an && j == bn;
        if (a[i] != b[j])
            return false;
        if (in_str && !esc && a[i] == '"')
            in_str = false;
        else if (!in_str && a[i] == '"')
            in_str = true;
        esc = in_str && !esc && a[i] == '\\';
        i++;
        j++;
    }
}

/* The document written indented: the same tree, the same text but for
 * whitespace; then into a file one byte short: a write error. */
static void write_other_ways(const struct sj_doc *doc, const struct sj_limits *lim,
                             const char *compact, size_t compact_len, unsigned indent)
{
    struct sj_writer w;
    struct sj_error err;
    struct sj_doc *again;
    char *out = NULL, *tight;
    size_t out_len = 0;
    FILE *f = open_memstream(&out, &out_len);
    CHECKF(f != NULL);
    sj_writer_init(&w, f, indent);
    write_value(&w, sj_doc_root(doc));
    CHECKF(sj_writer_finish(&w) == 0 && sj_writer_error(&w) == NULL);
    fclose(f);
    CHECKF(out_len >= compact_len && same_but_space(out, out_len, compact, compact_len));
    again = sj_parse(out, out_len, lim, &err);
    CHECKF(again != NULL);
    check_same(sj_doc_root(doc), sj_doc_root(again));
    sj_doc_free(again);
    free(out);

    tight = malloc(compact_len);
    CHECKF(tight != NULL);
    f = fmemopen(tight, compact_len - 1u, "w");
    CHECKF(f != NULL);
    setvbuf(f, NULL, _IONBF, 0);
    sj_writer_init(&w, f, 0);
    write_value(&w, sj_doc_root(doc));
    CHECKF(sj_writer_finish(&w) != 0 && sj_writer_error(&w) != NULL &&
           strncmp(sj_writer_error(&w), "write error", 11) == 0);
    fclose(f);
    free(tight);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sj_limits lim = { 0, 0 };
    struct sj_error err;
    struct sj_doc *doc, *again;
    struct sj_writer w;
    char *out = NULL;
    size_t out_len = 0;
    FILE *f;

    if (size < 1)
        return 0;
    lim.max_depth = data[0];
    doc = sj_parse((const char *)data + 1, size - 1u, &lim, &err);
    if (doc == NULL) {
        CHECKF(err.msg[0] != '\0');
        if (err.line != 0) {
            CHECKF(err.column >= 1 && strncmp(err.msg, "line ", 5) == 0);
            CHECKF(position_in_text(data + 1, size - 1u, err.line, err.column));
        }
        return 0;
    }
    check_value(sj_doc_root(doc), NULL, 0);

    f = open_memstream(&out, &out_len);
    CHECKF(f != NULL);
    sj_writer_init(&w, f, 0);
    write_value(&w, sj_doc_root(doc));
    CHECKF(sj_writer_finish(&w) == 0);
    fclose(f);
    /* The writer's "0.1"-style doubles add no nesting: the same limits. */
    again = sj_parse(out, out_len, &lim, &err);
    if (again == NULL)
        fprintf(stderr, "written back: %.200s\nreads as: %s\n", out, err.msg);
    CHECKF(again != NULL);
    check_same(sj_doc_root(doc), sj_doc_root(again));
    sj_doc_free(again);
    if (out_len >= 2u)
        write_other_ways(doc, &lim, out, out_len, 1u + (unsigned)(size & 3u));
    sj_doc_free(doc);
    free(out);
    return 0;
}
