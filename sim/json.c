/* Strict JSON reader (on cJSON) and writer; the contract is in json.h. */
#include "json.h"

#include <cJSON.h>

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define SJ_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SJ_PRINTF(f, a)
#endif

/* ------------------------------------------------------------------ arena */

/* Values live in big chunks so a document is freed in a few
 * calls and small nodes cost no per-allocation header. */
#define ARENA_CHUNK 65536u

struct sj_chunk {
    struct sj_chunk *next;
    size_t used, cap;
    _Alignas(max_align_t) unsigned char data[];
};

struct sj_doc {
    struct sj_chunk *chunks;        /* the sj_value nodes */
    const struct sj_value *root;
    cJSON *cj;                      /* cJSON's tree: the strings the nodes point to */
};

static void *arena_alloc(struct sj_doc *doc, size_t n, size_t align)
{
    struct sj_chunk *c = doc->chunks;
    size_t off;

    if (n == 0)
        n = 1;
    if (c != NULL) {
        off = (c->used + align - 1u) & ~(align - 1u);
        if (off <= c->cap && c->cap - off >= n) {
            c->used = off + n;
            return c->data + off;
        }
    }
    {
        size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
        struct sj_chunk *nc = malloc(sizeof *nc + cap);
        if (nc == NULL)
            return NULL;
        nc->cap = cap;
        nc->used = n;
        /* A dedicated oversized chunk goes behind the current one so the
         * current one keeps serving small allocations. */
        if (c != NULL && n > ARENA_CHUNK) {
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            doc->chunks = nc;
        }
        return nc->data;
    }
}

void sj_doc_free(struct sj_doc *doc)
{
    struct sj_chunk *c, *next;

    if (doc == NULL)
        return;
    for (c = doc->chunks; c != NULL; c = next) {
        next = c->next;
        free(c);
    }
    cJSON_Delete(doc->cj);
    free(doc);
}

const struct sj_value *sj_doc_root(const struct sj_doc *doc)
{
    return doc != NULL ? doc->root : NULL;
}

/* ------------------------------------------------------------ text helpers */

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 if it is not one. */
static size_t utf8_seq_len(const unsigned char *p, size_t avail)
{
    unsigned char c = p[0];
    unsigned char lo = 0x80, hi = 0xBF;
    size_t n, i;

    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if (avail < n)
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return n;
}

static uint32_t utf8_decode(const unsigned char *p, size_t n)
{
    switch (n) {
    case 1: return p[0];
    case 2: return ((uint32_t)(p[0] & 0x1Fu) << 6) | (p[1] & 0x3Fu);
    case 3: return ((uint32_t)(p[0] & 0x0Fu) << 12) | ((uint32_t)(p[1] & 0x3Fu) << 6) |
                   (p[2] & 0x3Fu);
    default: return ((uint32_t)(p[0] & 0x07u) << 18) | ((uint32_t)(p[1] & 0x3Fu) << 12) |
                    ((uint32_t)(p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu);
    }
}

/* snprintf-like appending into a fixed buffer: len counts what the full
 * text would need, so callers can report it. */
struct sbuf {
    char *buf;
    size_t size, len;
};

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
    if (b->len < b->size) {
        size_t room = b->size - 1u - b->len;
        memcpy(b->buf + b->len, s, n < room ? n : room);
        b->buf[b->len + (n < room ? n : room)] = '\0';
    }
    b->len += n;
}

static void sb_puts(struct sbuf *b, const char *s)
{
    sb_putn(b, s, strlen(s));
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) SJ_PRINTF(2, 3);
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        sb_putn(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1u);
}

/* How the writer spells the text at p: NULL when the next *n bytes (one
 * character) go out verbatim, else the escape to write instead of them. */
static const char *json_escape(const unsigned char *p, size_t avail, size_t *n, char tmp[8])
{
    unsigned char c = p[0];

    *n = 1;
    switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\b': return "\\b";
    case '\f': return "\\f";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: break;
    }
    if (c < 0x20) {
        snprintf(tmp, 8, "\\u%04x", (unsigned)c);
        return tmp;
    }
    if (c >= 0x80) {
        *n = utf8_seq_len(p, avail);
        if (*n == 0) {
            *n = 1;
            return "\\ufffd";
        }
    }
    return NULL;
}

/* Appends s as a quoted JSON string, escaped as the writer does; stops
 * after max_chars characters and adds "..." (0 = no limit). */
static void sb_json_string(struct sbuf *b, const char *s, size_t len, size_t max_chars)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, chars = 0;

    sb_putn(b, "\"", 1);
    while (i < len) {
        char tmp[8];
        size_t n;
        const char *esc;

        if (max_chars != 0 && chars == max_chars) {
            sb_puts(b, "...");
            break;
        }
        chars++;
        esc = json_escape(p + i, len - i, &n, tmp);
        if (esc != NULL)
            sb_puts(b, esc);
        else
            sb_putn(b, s + i, n);
        i += n;
    }
    sb_putn(b, "\"", 1);
}

/* ----------------------------------------------------------------- reader */

/*
 * cJSON builds the tree: it unescapes the strings and converts the numbers.
 * It does not give what json.h promises, though: it lets through what RFC
 * 8259 forbids (json.h lists what), knows no duplicate keys, keeps no exact
 * integers and no positions, and tells only where it stopped. So one pass
 * of ours walks the text in step with cJSON's tree: it checks each token,
 * records where each value and key starts, and hangs struct sj_value nodes
 * over cJSON's strings. Without a tree (cJSON refused the text) the same
 * pass runs to say what is wrong and where, in words a scenario's author can
 * act on; should it find nothing, cJSON refused something RFC 8259 allows
 * and the message says where cJSON stopped.
 */

struct parser {
    const unsigned char *p, *end;
    const unsigned char *line_start;
    uint32_t line;
    /* Column cache: positions are asked for mostly in increasing order, so
     * counting from the last answer keeps long single-line documents
     * linear. */
    const unsigned char *col_pos;
    uint32_t col_at;
    unsigned max_depth;
    struct sj_doc *doc;             /* NULL: check only, no tree to build */
    struct sj_error *err;
    bool failed;
    const unsigned char *differs;   /* where cJSON's tree stopped matching the text */
    /* Open-addressing set of (parent, key) over all members so far, for
     * duplicate keys in O(1) per member whatever the object size. */
    const struct sj_value **set;
    size_t set_cap, set_count;
};

static void set_error(struct sj_error *err, uint32_t line, uint32_t col, const char *fmt,
                      va_list ap)
{
    struct sbuf b;
    char msg[sizeof err->msg];

    if (err == NULL)
        return;
    err->line = line;
    err->column = col;
    b.buf = err->msg;
    b.size = sizeof err->msg;
    b.len = 0;
    err->msg[0] = '\0';
    if (line != 0)
        sb_printf(&b, "line %lu, column %lu: ", (unsigned long)line, (unsigned long)col);
    vsnprintf(msg, sizeof msg, fmt, ap);
    sb_puts(&b, msg);
}

static void error_nopos(struct sj_error *err, const char *fmt, ...) SJ_PRINTF(2, 3);
static void error_nopos(struct sj_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error(err, 0, 0, fmt, ap);
    va_end(ap);
}

/* x must lie on the current line (at or after line_start). */
static uint32_t column_of(struct parser *ps, const unsigned char *x)
{
    const unsigned char *q;
    uint32_t col;

    if (x >= ps->col_pos) {
        q = ps->col_pos;
        col = ps->col_at;
    } else {
        q = ps->line_start;
        col = 1;
    }
    for (; q < x; q++)
        if ((*q & 0xC0u) != 0x80u)
            col++;
    ps->col_pos = x;
    ps->col_at = col;
    return col;
}

static void fail_pos(struct parser *ps, uint32_t line, uint32_t col, const char *fmt, ...)
    SJ_PRINTF(4, 5);
static void fail_pos(struct parser *ps, uint32_t line, uint32_t col, const char *fmt, ...)
{
    va_list ap;

    if (ps->failed)
        return;
    ps->failed = true;
    va_start(ap, fmt);
    set_error(ps->err, line, col, fmt, ap);
    va_end(ap);
}

static void fail_at(struct parser *ps, const unsigned char *x, const char *fmt, ...)
    SJ_PRINTF(3, 4);
static void fail_at(struct parser *ps, const unsigned char *x, const char *fmt, ...)
{
    va_list ap;

    if (ps->failed)
        return;
    ps->failed = true;
    va_start(ap, fmt);
    set_error(ps->err, ps->line, column_of(ps, x), fmt, ap);
    va_end(ap);
}

static void fail_oom(struct parser *ps)
{
    if (ps->failed)
        return;
    ps->failed = true;
    error_nopos(ps->err, "out of memory");
}

/* What the input holds at x, for "got ..." in messages. */
static void describe_input(const struct parser *ps, const unsigned char *x, char *buf,
                           size_t size)
{
    size_t n;

    if (x >= ps->end) {
        snprintf(buf, size, "end of input");
    } else if ((*x >= 'a' && *x <= 'z') || (*x >= 'A' && *x <= 'Z')) {
        for (n = 0; x + n < ps->end && n < 16; n++) {
            unsigned char c = x[n];
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_'))
                break;
        }
        snprintf(buf, size, "'%.*s'", (int)n, (const char *)x);
    } else if (*x >= 0x20 && *x < 0x7F) {
        snprintf(buf, size, "'%c'", *x);
    } else if (*x >= 0x80 && (n = utf8_seq_len(x, (size_t)(ps->end - x))) != 0) {
        snprintf(buf, size, "U+%04lX", (unsigned long)utf8_decode(x, n));
    } else {
        snprintf(buf, size, "byte 0x%02X", (unsigned)*x);
    }
}

/* RFC 8259 whitespace only: cJSON also skips every other byte up to 0x20,
 * NUL included. */
static void skip_ws(struct parser *ps)
{
    while (ps->p < ps->end) {
        unsigned char c = *ps->p;
        if (c == '\n') {
            ps->line++;
            ps->line_start = ps->col_pos = ps->p + 1;
            ps->col_at = 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
        ps->p++;
    }
}

/* A value of ours for the cJSON item at ps->p, placed there; NULL when only
 * checking. */
static struct sj_value *new_value(struct parser *ps, const struct sj_value *parent)
{
    struct sj_value *v;

    if (ps->doc == NULL)
        return NULL;
    v = arena_alloc(ps->doc, sizeof *v, _Alignof(struct sj_value));
    if (v == NULL) {
        fail_oom(ps);
        return NULL;
    }
    memset(v, 0, sizeof *v);
    v->parent = parent;
    v->line = ps->line;
    v->column = column_of(ps, ps->p);
    return v;
}

/* True when building and cJSON's item is what the text at ps->p says it
 * is. Where it is not, cJSON read the text differently (it skips bytes that
 * RFC 8259 does not, NUL among them): the walk goes on checking only, so
 * that it finds and reports what is wrong there. */
static bool agree(struct parser *ps, const cJSON *item, int type)
{
    if (ps->doc == NULL)
        return false;
    if (item != NULL && (item->type & 0xFF) == type)
        return true;
    ps->differs = ps->p;
    ps->doc = NULL;
    return false;
}

static uint64_t member_hash(const struct sj_value *parent, const char *key, size_t len)
{
    uint64_t h = 0xCBF29CE484222325u;
    size_t i;

    for (i = 0; i < len; i++) {
        h ^= (unsigned char)key[i];
        h *= 0x100000001B3u;
    }
    h ^= (uint64_t)(uintptr_t)parent * 0x9E3779B97F4A7C15u;
    return h ^ (h >> 29);
}

static const struct sj_value *set_find(const struct parser *ps, const struct sj_value *parent,
                                       const char *key, size_t len)
{
    size_t mask, i;

    if (ps->set_cap == 0)
        return NULL;
    mask = ps->set_cap - 1u;
    for (i = (size_t)member_hash(parent, key, len) & mask; ps->set[i] != NULL; i = (i + 1u) & mask) {
        const struct sj_value *m = ps->set[i];
        if (m->parent == parent && m->key_len == len && memcmp(m->key, key, len) == 0)
            return m;
    }
    return NULL;
}

static bool set_insert(struct parser *ps, const struct sj_value *m)
{
    size_t mask, i;

    if ((ps->set_count + 1u) * 2u > ps->set_cap) {
        size_t cap = ps->set_cap ? ps->set_cap * 2u : 64u, j;
        const struct sj_value **ns = calloc(cap, sizeof *ns);
        if (ns == NULL) {
            fail_oom(ps);
            return false;
        }
        for (j = 0; j < ps->set_cap; j++) {
            const struct sj_value *o = ps->set[j];
            if (o == NULL)
                continue;
            for (i = (size_t)member_hash(o->parent, o->key, o->key_len) & (cap - 1u);
                 ns[i] != NULL; i = (i + 1u) & (cap - 1u))
                ;
            ns[i] = o;
        }
        free(ps->set);
        ps->set = ns;
        ps->set_cap = cap;
    }
    mask = ps->set_cap - 1u;
    for (i = (size_t)member_hash(m->parent, m->key, m->key_len) & mask; ps->set[i] != NULL;
         i = (i + 1u) & mask)
        ;
    ps->set[i] = m;
    ps->set_count++;
    return true;
}

static int hex_val(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The 4 hex digits at q, or -1. */
static long hex4(const struct parser *ps, const unsigned char *q)
{
    long v = 0;
    int i;

    if (ps->end - q < 4)
        return -1;
    for (i = 0; i < 4; i++) {
        int h = hex_val(q[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* Checks the string at ps->p (the opening quote) and moves past it. *len
 * gets the length of the unescaped UTF-8, which is what cJSON decodes it
 * to; cJSON's own NUL-terminated copy loses it at a "\u0000". */
static bool check_string(struct parser *ps, size_t *len)
{
    const unsigned char *open = ps->p;
    size_t n = 0;

    ps->p++;
    for (;;) {
        const unsigned char *q = ps->p;
        unsigned char c;

        if (q >= ps->end) {
            fail_at(ps, open, "unterminated string");
            return false;
        }
        c = *q;
        if (c == '"') {
            ps->p++;
            *len = n;
            return true;
        }
        if (c < 0x20) {
            fail_at(ps, q, "unescaped control character U+%04X in string", (unsigned)c);
            return false;
        }
        if (c == '\\') {
            unsigned char e;
            long cp;

            if (q + 1 >= ps->end) {
                fail_at(ps, open, "unterminated string");
                return false;
            }
            e = q[1];
            if (e != '\0' && strchr("\"\\/bfnrt", e) != NULL) {
                n++;
                ps->p += 2;
                continue;
            }
            if (e != 'u') {
                char got[32];
                describe_input(ps, q + 1, got, sizeof got);
                fail_at(ps, q, "invalid escape sequence: '\\' followed by %s", got);
                return false;
            }
            cp = hex4(ps, q + 2);
            if (cp < 0) {
                fail_at(ps, q, "expected 4 hex digits after \\u");
                return false;
            }
            ps->p += 6;
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
                fail_at(ps, q, "lone low surrogate \\u%04lX", (unsigned long)cp);
                return false;
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                long lo = -1;
                if (ps->end - ps->p >= 2 && ps->p[0] == '\\' && ps->p[1] == 'u')
                    lo = hex4(ps, ps->p + 2);
                if (lo < 0xDC00 || lo > 0xDFFF) {
                    fail_at(ps, q,
                            "lone high surrogate \\u%04lX (a low surrogate \\uDC00..\\uDFFF "
                            "must follow)",
                            (unsigned long)cp);
                    return false;
                }
                ps->p += 6;
                n += 4;
            } else {
                n += cp < 0x80 ? 1u : cp < 0x800 ? 2u : 3u;
            }
            continue;
        }
        {
            size_t k = c < 0x80 ? 1u : utf8_seq_len(q, (size_t)(ps->end - q));
            if (k == 0) {
                fail_at(ps, q, "invalid UTF-8 byte 0x%02X in string", (unsigned)c);
                return false;
            }
            n += k;
            ps->p += k;
        }
    }
}

static bool is_digit(const struct parser *ps, const unsigned char *q)
{
    return q < ps->end && *q >= '0' && *q <= '9';
}

/* Checks the number at ps->p and moves past it; v (when building) gets
 * cJSON's double and, from the text, the exact integer. */
static bool check_number(struct parser *ps, const cJSON *item, struct sj_value *v)
{
    const unsigned char *start = ps->p, *q = ps->p;
    bool neg = false, integer = true, fits = true;
    uint64_t mag = 0;

    if (*q == '-') {
        neg = true;
        q++;
    }
    if (!is_digit(ps, q)) {
        fail_at(ps, q, "expected a digit after '-'");
        return false;
    }
    if (*q == '0') {
        q++;
        if (is_digit(ps, q)) {
            fail_at(ps, start, "leading zeros are not allowed in numbers");
            return false;
        }
    } else {
        while (is_digit(ps, q)) {
            unsigned dig = (unsigned)(*q - '0');
            if (mag > (UINT64_MAX - dig) / 10u)
                fits = false;
            else
                mag = mag * 10u + dig;
            q++;
        }
    }
    if (q < ps->end && *q == '.') {
        integer = false;
        q++;
        if (!is_digit(ps, q)) {
            fail_at(ps, q, "expected a digit after '.'");
            return false;
        }
        while (is_digit(ps, q))
            q++;
    }
    if (q < ps->end && (*q == 'e' || *q == 'E')) {
        integer = false;
        q++;
        if (q < ps->end && (*q == '+' || *q == '-'))
            q++;
        if (!is_digit(ps, q)) {
            fail_at(ps, q, "expected a digit in the exponent");
            return false;
        }
        while (is_digit(ps, q))
            q++;
    }
    if (item != NULL && isinf(item->valuedouble)) {
        fail_at(ps, start, "number %.*s%s is out of the range of a double",
                q - start > 24 ? 24 : (int)(q - start), (const char *)start,
                q - start > 24 ? "..." : "");
        return false;
    }
    ps->p = q;
    if (v == NULL)
        return true;
    v->type = SJ_NUMBER;
    v->u.num.d = item->valuedouble;
    if (integer && fits) {
        if (!neg && mag <= (uint64_t)INT64_MAX) {
            v->u.num.is_int = true;
            v->u.num.i = (int64_t)mag;
        } else if (neg && mag <= (uint64_t)INT64_MAX + 1u) {
            v->u.num.is_int = true;
            v->u.num.i = mag == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)mag;
        }
    }
    return true;
}

static bool parse_value(struct parser *ps, const cJSON *item, struct sj_value *v,
                        unsigned depth);

/* The children of a container: one cJSON item per element or member, in
 * the same order, each to get a value of ours. */
struct kids {
    const cJSON *next;              /* cJSON's next child */
    const struct sj_value **items;
    size_t count, cap;
};

static bool kids_begin(struct parser *ps, const cJSON *item, struct sj_value *v,
                       enum sj_type type, struct kids *k)
{
    const cJSON *c;

    memset(k, 0, sizeof *k);
    if (!agree(ps, item, type == SJ_ARRAY ? cJSON_Array : cJSON_Object) || v == NULL)
        return true;
    v->type = type;
    k->next = item->child;
    for (c = item->child; c != NULL; c = c->next)
        k->cap++;
    if (k->cap == 0)
        return true;
    k->items = arena_alloc(ps->doc, k->cap * sizeof *k->items, _Alignof(const struct sj_value *));
    if (k->items == NULL)
        fail_oom(ps);
    return k->items != NULL;
}

/* The value of the next child, at ps->p; *c its cJSON item. */
static bool kids_next(struct parser *ps, struct kids *k, const struct sj_value *parent,
                      struct sj_value **v, const cJSON **c)
{
    *v = NULL;
    *c = NULL;
    if (ps->doc == NULL)
        return true;
    if (k->items == NULL || k->next == NULL || k->count == k->cap) {
        agree(ps, NULL, -1);
        return true;
    }
    *c = k->next;
    k->next = k->next->next;
    *v = new_value(ps, parent);
    if (*v == NULL)
        return false;
    (*v)->index = k->count;
    k->items[k->count++] = *v;
    return true;
}

static bool kids_end(struct parser *ps, struct kids *k, struct sj_value *v)
{
    if (ps->doc == NULL || v == NULL)
        return true;
    if (k->next != NULL) {
        agree(ps, NULL, -1);
        return true;
    }
    v->u.kids.items = k->items;
    v->u.kids.count = k->count;
    return true;
}

static bool parse_array(struct parser *ps, const cJSON *item, struct sj_value *v,
                        unsigned depth)
{
    struct kids k;

    if (!kids_begin(ps, item, v, SJ_ARRAY, &k))
        return false;
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return kids_end(ps, &k, v);
    }
    for (;;) {
        struct sj_value *child;
        const cJSON *c;

        if (!kids_next(ps, &k, v, &child, &c) || !parse_value(ps, c, child, depth + 1u))
            return false;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            uint32_t cl = ps->line, cc = column_of(ps, ps->p);
            ps->p++;
            skip_ws(ps);
            if (ps->p < ps->end && *ps->p == ']') {
                fail_pos(ps, cl, cc, "trailing comma before ']'");
                return false;
            }
            continue;
        }
        if (ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            return kids_end(ps, &k, v);
        }
        fail_at(ps, ps->p, "expected ',' or ']' after array element");
        return false;
    }
}

static bool parse_object(struct parser *ps, const cJSON *item, struct sj_value *v,
                         unsigned depth)
{
    struct kids k;
    bool first = true;

    if (!kids_begin(ps, item, v, SJ_OBJECT, &k))
        return false;
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return kids_end(ps, &k, v);
    }
    for (;;) {
        struct sj_value *child;
        const cJSON *c;
        size_t key_len;
        uint32_t kl, kc;

        if (ps->p >= ps->end || *ps->p != '"') {
            char got[32];
            describe_input(ps, ps->p, got, sizeof got);
            fail_at(ps, ps->p, "expected a string key%s, got %s", first ? " or '}'" : "", got);
            return false;
        }
        first = false;
        kl = ps->line;
        kc = column_of(ps, ps->p);
        if (!kids_next(ps, &k, v, &child, &c) || !check_string(ps, &key_len))
            return false;
        if (child != NULL) {
            const struct sj_value *dup;

            child->key = c->string;
            child->key_len = key_len;
            child->key_line = kl;
            child->key_column = kc;
            dup = set_find(ps, v, child->key, key_len);
            if (dup != NULL) {
                char shown[96];
                struct sbuf b = { shown, sizeof shown, 0 };
                sb_json_string(&b, child->key, key_len, 32);
                fail_pos(ps, kl, kc, "duplicate key %s (first at line %lu, column %lu)", shown,
                         (unsigned long)dup->key_line, (unsigned long)dup->key_column);
                return false;
            }
            if (!set_insert(ps, child))
                return false;
        }
        skip_ws(ps);
        if (ps->p >= ps->end || *ps->p != ':') {
            fail_at(ps, ps->p, "expected ':' after object key");
            return false;
        }
        ps->p++;
        skip_ws(ps);
        if (child != NULL) {
            /* The key set the position; the value's own goes here. */
            child->line = ps->line;
            child->column = column_of(ps, ps->p);
        }
        if (!parse_value(ps, c, child, depth + 1u))
            return false;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            uint32_t cl = ps->line, cc = column_of(ps, ps->p);
            ps->p++;
            skip_ws(ps);
            if (ps->p < ps->end && *ps->p == '}') {
                fail_pos(ps, cl, cc, "trailing comma before '}'");
                return false;
            }
            continue;
        }
        if (ps->p < ps->end && *ps->p == '}') {
            ps->p++;
            return kids_end(ps, &k, v);
        }
        fail_at(ps, ps->p, "expected ',' or '}' after object member");
        return false;
    }
}

static bool match_word(struct parser *ps, const char *w)
{
    size_t n = strlen(w);
    const unsigned char *after = ps->p + n;

    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n) != 0)
        return false;
    /* "nullx" is one bad word, not null followed by garbage. */
    if (after < ps->end && ((*after >= 'a' && *after <= 'z') || (*after >= 'A' && *after <= 'Z') ||
                            (*after >= '0' && *after <= '9') || *after == '_'))
        return false;
    ps->p = after;
    return true;
}

/* The value at ps->p, whose cJSON item is item and whose sj_value (placed,
 * with parent, key and index set) is v; both NULL when only checking.
 * depth: number of containers around the value. */
static bool parse_value(struct parser *ps, const cJSON *item, struct sj_value *v,
                        unsigned depth)
{
    static const struct {
        const char *word;
        int cjson_type;
        enum sj_type type;
        bool boolean;
    } words[] = {
        { "true", cJSON_True, SJ_BOOL, true },
        { "false", cJSON_False, SJ_BOOL, false },
        { "null", cJSON_NULL, SJ_NULL, false },
    };
    size_t i;
    char got[32];

    if (ps->p >= ps->end) {
        fail_at(ps, ps->p, "expected a value, got end of input");
        return false;
    }
    switch (*ps->p) {
    case '{':
    case '[':
        if (depth + 1u > ps->max_depth) {
            fail_at(ps, ps->p, "nesting deeper than %u levels", ps->max_depth);
            return false;
        }
        return *ps->p == '{' ? parse_object(ps, item, v, depth) : parse_array(ps, item, v, depth);
    case '"':
        if (!agree(ps, item, cJSON_String) || v == NULL)
            return check_string(ps, &i);
        v->type = SJ_STRING;
        v->u.str.s = item->valuestring;
        return check_string(ps, &v->u.str.len);
    case '-': case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        if (!agree(ps, item, cJSON_Number))
            return check_number(ps, NULL, NULL);
        return check_number(ps, item, v);
    default:
        for (i = 0; i < sizeof words / sizeof words[0]; i++) {
            if (!match_word(ps, words[i].word))
                continue;
            if (agree(ps, item, words[i].cjson_type) && v != NULL) {
                v->type = words[i].type;
                v->u.boolean = words[i].boolean;
            }
            return true;
        }
        describe_input(ps, ps->p, got, sizeof got);
        fail_at(ps, ps->p, "expected a value, got %s", got);
        return false;
    }
}

/* Line and column of x, counted from the start of the text. */
static void fail_anywhere(struct parser *ps, const unsigned char *start, const unsigned char *x,
                          const char *why)
{
    ps->line = 1;
    ps->line_start = ps->col_pos = start;
    ps->col_at = 1;
    for (ps->p = start; ps->p < x; ps->p++) {
        if (*ps->p == '\n') {
            ps->line++;
            ps->line_start = ps->col_pos = ps->p + 1;
            ps->col_at = 1;
        }
    }
    fail_at(ps, x, "%s", why);
}

struct sj_doc *sj_parse(const char *text, size_t len, const struct sj_limits *limits,
                        struct sj_error *err)
{
    struct parser ps;
    size_t max_size = limits && limits->max_size ? limits->max_size : SJ_DEFAULT_MAX_SIZE;
    unsigned max_depth = limits && limits->max_depth ? limits->max_depth : SJ_DEFAULT_MAX_DEPTH;
    struct sj_doc *doc;
    struct sj_value *root = NULL;
    const unsigned char *start;
    const char *cj_end = NULL;

    if (err != NULL) {
        err->line = err->column = 0;
        err->msg[0] = '\0';
    }
    if (len > max_size) {
        error_nopos(err, "input is %zu bytes, more than the limit of %zu", len, max_size);
        return NULL;
    }
    if (text == NULL && len != 0) {
        error_nopos(err, "no input");
        return NULL;
    }
    doc = calloc(1, sizeof *doc);
    if (doc == NULL) {
        error_nopos(err, "out of memory");
        return NULL;
    }
    start = (const unsigned char *)(text ? text : "");
    if (len >= 3 && memcmp(start, "\xEF\xBB\xBF", 3) == 0) {
        start += 3;
        len -= 3;
    }
    /* Not NUL-terminated: cJSON stops after the value, the walk checks the
     * rest. */
    doc->cj = cJSON_ParseWithLengthOpts((const char *)start, len, &cj_end, false);

    memset(&ps, 0, sizeof ps);
    ps.p = start;
    ps.end = start + len;
    ps.line = 1;
    ps.line_start = ps.col_pos = start;
    ps.col_at = 1;
    ps.max_depth = max_depth > SJ_MAX_DEPTH_CAP ? SJ_MAX_DEPTH_CAP : max_depth;
    ps.doc = doc->cj != NULL ? doc : NULL;
    ps.err = err;

    skip_ws(&ps);
    if (ps.p >= ps.end) {
        fail_at(&ps, ps.p, "empty input (expected a JSON value)");
    } else {
        root = new_value(&ps, NULL);
        if (parse_value(&ps, doc->cj, root, 0)) {
            skip_ws(&ps);
            if (ps.p < ps.end) {
                char got[32];
                describe_input(&ps, ps.p, got, sizeof got);
                fail_at(&ps, ps.p, "unexpected %s after the JSON value", got);
            }
        }
    }
    if (!ps.failed && (doc->cj == NULL || ps.differs != NULL)) {
        const unsigned char *x = doc->cj == NULL ? (const unsigned char *)cj_end : ps.differs;
        fail_anywhere(&ps, start, x != NULL && x >= start && x <= ps.end ? x : start,
                      doc->cj == NULL ? "the JSON library (cJSON) cannot read this"
                                      : "the JSON library (cJSON) read this differently");
    }
    free(ps.set);
    if (ps.failed) {
        sj_doc_free(doc);
        return NULL;
    }
    doc->root = root;
    return doc;
}

struct sj_doc *sj_parse_file(const char *path, const struct sj_limits *limits,
                             struct sj_error *err)
{
    size_t max_size = limits && limits->max_size ? limits->max_size : SJ_DEFAULT_MAX_SIZE;
    size_t len = 0, cap = 0;
    char *buf = NULL;
    struct sj_doc *doc;
    FILE *f;

    if (err != NULL) {
        err->line = err->column = 0;
        err->msg[0] = '\0';
    }
    errno = 0;
    f = fopen(path, "rb");
    if (f == NULL) {
        error_nopos(err, "cannot open: %s", errno ? strerror(errno) : "unknown error");
        return NULL;
    }
    /* Reads at most one byte past the limit: enough to know it is over. */
    for (;;) {
        size_t got;
        if (len == cap) {
            size_t ncap = cap ? cap * 2u : 65536u;
            char *nb;
            if (ncap > max_size + 1u)
                ncap = max_size + 1u;
            nb = realloc(buf, ncap);
            if (nb == NULL) {
                fclose(f);
                free(buf);
                error_nopos(err, "out of memory");
                return NULL;
            }
            buf = nb;
            cap = ncap;
        }
        errno = 0;
        got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len > max_size) {
            fclose(f);
            free(buf);
            error_nopos(err, "file is larger than the limit of %zu bytes", max_size);
            return NULL;
        }
        if (got == 0) {
            if (ferror(f)) {
                int e = errno;
                fclose(f);
                free(buf);
                error_nopos(err, "read error: %s", e ? strerror(e) : "I/O error");
                return NULL;
            }
            break;
        }
    }
    fclose(f);
    doc = sj_parse(buf, len, limits, err);
    free(buf);
    return doc;
}

/* -------------------------------------------------------------- accessors */

const char *sj_type_name(enum sj_type t)
{
    switch (t) {
    case SJ_NULL: return "null";
    case SJ_BOOL: return "boolean";
    case SJ_NUMBER: return "number";
    case SJ_STRING: return "string";
    case SJ_ARRAY: return "array";
    case SJ_OBJECT: return "object";
    }
    return "?";
}

bool sj_is(const struct sj_value *v, enum sj_type t)
{
    return v != NULL && v->type == t;
}

const struct sj_value *sj_get(const struct sj_value *obj, const char *key)
{
    size_t i, n;

    if (!sj_is(obj, SJ_OBJECT) || key == NULL)
        return NULL;
    n = strlen(key);
    for (i = 0; i < obj->u.kids.count; i++) {
        const struct sj_value *m = obj->u.kids.items[i];
        if (m->key_len == n && memcmp(m->key, key, n) == 0)
            return m;
    }
    return NULL;
}

size_t sj_len(const struct sj_value *v)
{
    return sj_is(v, SJ_ARRAY) || sj_is(v, SJ_OBJECT) ? v->u.kids.count : 0;
}

const struct sj_value *sj_at(const struct sj_value *v, size_t i)
{
    return i < sj_len(v) ? v->u.kids.items[i] : NULL;
}

bool sj_as_bool(const struct sj_value *v, bool *out)
{
    if (!sj_is(v, SJ_BOOL))
        return false;
    *out = v->u.boolean;
    return true;
}

bool sj_as_double(const struct sj_value *v, double *out)
{
    if (!sj_is(v, SJ_NUMBER))
        return false;
    *out = v->u.num.d;
    return true;
}

bool sj_as_int64(const struct sj_value *v, int64_t *out)
{
    if (!sj_is(v, SJ_NUMBER) || !v->u.num.is_int)
        return false;
    *out = v->u.num.i;
    return true;
}

const char *sj_as_string(const struct sj_value *v, size_t *len)
{
    if (!sj_is(v, SJ_STRING))
        return NULL;
    if (len != NULL)
        *len = v->u.str.len;
    return v->u.str.s;
}

static bool key_is_identifier(const char *k, size_t n)
{
    size_t i;

    if (n == 0 || !((k[0] >= 'a' && k[0] <= 'z') || (k[0] >= 'A' && k[0] <= 'Z') || k[0] == '_'))
        return false;
    for (i = 1; i < n; i++) {
        char c = k[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return true;
}

/* Root first, so the recursion depth is the nesting depth, which the
 * parser bounded. */
static void path_append(struct sbuf *b, const struct sj_value *v)
{
    if (v->parent == NULL)
        return;
    path_append(b, v->parent);
    if (v->parent->type == SJ_OBJECT) {
        if (key_is_identifier(v->key, v->key_len)) {
            if (v->parent->parent != NULL)
                sb_putn(b, ".", 1);
            sb_putn(b, v->key, v->key_len);
        } else {
            sb_putn(b, "[", 1);
            sb_json_string(b, v->key, v->key_len, 0);
            sb_putn(b, "]", 1);
        }
    } else {
        sb_printf(b, "[%zu]", v->index);
    }
}

static void sbuf_init(struct sbuf *b, char *buf, size_t size)
{
    b->buf = buf;
    b->size = size;
    b->len = 0;
    if (size > 0)
        buf[0] = '\0';
}

size_t sj_path(const struct sj_value *v, char *buf, size_t size)
{
    struct sbuf b;

    sbuf_init(&b, buf, size);
    if (v == NULL || v->parent == NULL)
        sb_puts(&b, "(root)");
    else
        path_append(&b, v);
    return b.len;
}

/* printf("%.15g") with '.' whatever the locale. */
static size_t format_double(double d, char out[40])
{
    const char *dp = localeconv()->decimal_point;
    char tmp[64];
    size_t dpl = strlen(dp), i, o = 0;

    snprintf(tmp, sizeof tmp, "%.15g", d);
    /* Near DBL_MAX, 15 digits can round past it, to a text that reads
     * back as infinity; 17 digits always read back as d. */
    if (isinf(strtod(tmp, NULL)))
        snprintf(tmp, sizeof tmp, "%.17g", d);
    for (i = 0; tmp[i] != '\0' && o < 39u;) {
        if (dpl != 0 && strncmp(tmp + i, dp, dpl) == 0) {
            out[o++] = '.';
            i += dpl;
        } else {
            out[o++] = tmp[i++];
        }
    }
    out[o] = '\0';
    return o;
}

size_t sj_describe(const struct sj_value *v, char *buf, size_t size)
{
    struct sbuf b;
    char num[40];

    sbuf_init(&b, buf, size);
    if (v == NULL) {
        sb_puts(&b, "nothing");
        return b.len;
    }
    switch (v->type) {
    case SJ_NULL: sb_puts(&b, "null"); break;
    case SJ_BOOL: sb_puts(&b, v->u.boolean ? "true" : "false"); break;
    case SJ_NUMBER:
        if (v->u.num.is_int) {
            sb_printf(&b, "%lld", (long long)v->u.num.i);
        } else {
            format_double(v->u.num.d, num);
            sb_puts(&b, num);
        }
        break;
    case SJ_STRING: sb_json_string(&b, v->u.str.s, v->u.str.len, 32); break;
    case SJ_ARRAY: sb_puts(&b, "an array"); break;
    case SJ_OBJECT: sb_puts(&b, "an object"); break;
    }
    return b.len;
}

/* ----------------------------------------------------------------- writer */

static void w_fail(struct sj_writer *w, const char *why)
{
    if (w->error[0] == '\0')
        snprintf(w->error, sizeof w->error, "%s", why);
}

static void w_put(struct sj_writer *w, const char *s, size_t n)
{
    if (w->error[0] != '\0' || n == 0)
        return;
    errno = 0;
    if (fwrite(s, 1, n, w->f) != n) {
        int e = errno;
        snprintf(w->error, sizeof w->error, "write error: %s", e ? strerror(e) : "I/O error");
    }
}

static void w_puts(struct sj_writer *w, const char *s)
{
    w_put(w, s, strlen(s));
}

static void w_newline(struct sj_writer *w, unsigned depth)
{
    static const char spaces[] = "                                ";
    size_t n;

    if (w->indent == 0)
        return;
    w_put(w, "\n", 1);
    for (n = (size_t)depth * w->indent; n > 0;) {
        size_t k = n < sizeof spaces - 1u ? n : sizeof spaces - 1u;
        w_put(w, spaces, k);
        n -= k;
    }
}

/* Separators before a value (or a key when is_key); false on misuse. */
static bool w_before(struct sj_writer *w, bool is_key)
{
    if (w->error[0] != '\0')
        return false;
    if (w->done) {
        w_fail(w, "more than one top-level value");
        return false;
    }
    if (w->depth == 0) {
        if (is_key) {
            w_fail(w, "key outside an object");
            return false;
        }
        return true;
    }
    if (w->is_object[w->depth - 1u]) {
        if (is_key == w->want_value) {
            w_fail(w, is_key ? "key where a value is due" : "value in an object without a key");
            return false;
        }
        if (!is_key) {
            w->want_value = false;
            return true;
        }
    } else if (is_key) {
        w_fail(w, "key outside an object");
        return false;
    }
    if (w->has_items[w->depth - 1u])
        w_put(w, ",", 1);
    w->has_items[w->depth - 1u] = true;
    w_newline(w, w->depth);
    return true;
}

static void w_after_value(struct sj_writer *w)
{
    if (w->depth == 0)
        w->done = true;
}

static void w_string_body(struct sj_writer *w, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, run = 0;

    /* Unescaped runs go out in one fwrite each. */
    w_put(w, "\"", 1);
    while (i < len) {
        char tmp[8];
        size_t n;
        const char *esc = json_escape(p + i, len - i, &n, tmp);
        if (esc != NULL) {
            w_put(w, s + run, i - run);
            w_puts(w, esc);
            run = i + n;
        }
        i += n;
    }
    w_put(w, s + run, i - run);
    w_put(w, "\"", 1);
}

void sj_writer_init(struct sj_writer *w, FILE *f, unsigned indent)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->indent = indent;
}

static void w_begin(struct sj_writer *w, bool object)
{
    if (!w_before(w, false))
        return;
    if (w->depth == SJ_WRITER_MAX_DEPTH) {
        w_fail(w, "nesting deeper than SJ_WRITER_MAX_DEPTH");
        return;
    }
    w_put(w, object ? "{" : "[", 1);
    w->is_object[w->depth] = object;
    w->has_items[w->depth] = false;
    w->depth++;
}

static void w_end(struct sj_writer *w, bool object)
{
    if (w->error[0] != '\0')
        return;
    if (w->depth == 0 || w->is_object[w->depth - 1u] != object) {
        w_fail(w, object ? "end_object without a matching begin_object"
                         : "end_array without a matching begin_array");
        return;
    }
    if (w->want_value) {
        w_fail(w, "key without a value at end_object");
        return;
    }
    w->depth--;
    if (w->has_items[w->depth])
        w_newline(w, w->depth);
    w_put(w, object ? "}" : "]", 1);
    w_after_value(w);
}

void sj_w_begin_object(struct sj_writer *w) { w_begin(w, true); }
void sj_w_end_object(struct sj_writer *w) { w_end(w, true); }
void sj_w_begin_array(struct sj_writer *w) { w_begin(w, false); }
void sj_w_end_array(struct sj_writer *w) { w_end(w, false); }

void sj_w_key_n(struct sj_writer *w, const char *key, size_t len)
{
    if (!w_before(w, true))
        return;
    w_string_body(w, key, len);
    w_puts(w, w->indent ? ": " : ":");
    w->want_value = true;
}

void sj_w_key(struct sj_writer *w, const char *key)
{
    sj_w_key_n(w, key, strlen(key));
}

void sj_w_string_n(struct sj_writer *w, const char *s, size_t len)
{
    if (!w_before(w, false))
        return;
    w_string_body(w, s, len);
    w_after_value(w);
}

void sj_w_string(struct sj_writer *w, const char *s)
{
    sj_w_string_n(w, s, strlen(s));
}

void sj_w_int(struct sj_writer *w, int64_t v)
{
    char buf[32];

    if (!w_before(w, false))
        return;
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    w_puts(w, buf);
    w_after_value(w);
}

void sj_w_uint(struct sj_writer *w, uint64_t v)
{
    char buf[32];

    if (!w_before(w, false))
        return;
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    w_puts(w, buf);
    w_after_value(w);
}

void sj_w_double(struct sj_writer *w, double v)
{
    char buf[40];

    if (!w_before(w, false))
        return;
    if (isfinite(v)) {
        format_double(v, buf);
        w_puts(w, buf);
    } else {
        w_puts(w, "null");
    }
    w_after_value(w);
}

void sj_w_bool(struct sj_writer *w, bool v)
{
    if (!w_before(w, false))
        return;
    w_puts(w, v ? "true" : "false");
    w_after_value(w);
}

void sj_w_null(struct sj_writer *w)
{
    if (!w_before(w, false))
        return;
    w_puts(w, "null");
    w_after_value(w);
}

int sj_writer_finish(struct sj_writer *w)
{
    if (w->error[0] == '\0' && !w->done)
        w_fail(w, w->depth ? "unclosed array or object" : "nothing written");
    if (w->error[0] == '\0') {
        errno = 0;
        if (fflush(w->f) != 0 || ferror(w->f)) {
            int e = errno;
            snprintf(w->error, sizeof w->error, "write error: %s",
                     e ? strerror(e) : "I/O error");
        }
    }
    return w->error[0] == '\0' ? 0 : -1;
}

const char *sj_writer_error(const struct sj_writer *w)
{
    return w->error[0] != '\0' ? w->error : NULL;
}

void sj_w_member_uint(struct sj_writer *w, const char *key, uint64_t v)
{
    sj_w_key(w, key);
    sj_w_uint(w, v);
}

void sj_w_member_double(struct sj_writer *w, const char *key, double v)
{
    sj_w_key(w, key);
    sj_w_double(w, v);
}
