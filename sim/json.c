/* Strict JSON reader (on cJSON) and the text of its errors (sj_path,
 * sj_describe); the contract is in json.h, the writer in json_write.c. */
#include "json.h"
#include "json_text.h"

#include <cJSON.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define SJ_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SJ_PRINTF(f, a)
#endif

/* ------------------------------------------------------------ text helpers */

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 if it is not one. */
size_t sj_utf8_seq_len(const unsigned char *p, size_t avail)
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
        esc = sj_json_escape(p + i, len - i, &n, tmp);
        if (esc != NULL)
            sb_puts(b, esc);
        else
            sb_putn(b, s + i, n);
        i += n;
    }
    sb_putn(b, "\"", 1);
}

static void set_error(struct sj_error *err, uint32_t line, uint32_t col, const char *fmt,
                      va_list ap)
{
    struct sbuf b = { err ? err->msg : NULL, err ? sizeof err->msg : 0, 0 };
    char msg[sizeof err->msg];

    if (err == NULL)
        return;
    err->line = line;
    err->column = col;
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

/* ----------------------------------------------------------------- reader */

/*
 * cJSON parses: it decides whether the text is JSON and builds the tree.
 * A lexer of ours runs over the same text for what cJSON does not give
 * (json.h lists it): it checks every string and number against RFC 8259
 * and reads their exact length and integer value, refuses bytes that start
 * no token, and counts nesting. Of the grammar it knows only what the last
 * token lets come next, enough to say what was due where a token is wrong.
 * The tree walk takes the lexer's strings and numbers in document order,
 * which is the order of cJSON's string and number items.
 *
 * Where cJSON refuses the text, its error offset (return_parse_end) names
 * the wrong token: the first one that starts there or later. Two details
 * make this exact. cJSON reports a failure at the end of its input on the
 * last byte, so it gets the text with a NUL after it: cJSON skips that as
 * whitespace, and an offset on the NUL means the text ended too soon. And
 * where a key is due, cJSON's string reader steps past the byte it refuses
 * (its offset is one past the token that is not a key); the lexer knows
 * that a key is due and stops at that token itself.
 */

struct sj_doc {
    cJSON *cj;                      /* the strings the values point to */
    struct sj_value *values;        /* all of them, root first */
    const struct sj_value **kids;   /* the children of every container */
    size_t nvalues, nkids;          /* in use */
};

/* Token kinds: the bytes { } [ ] , : for themselves, and these. */
enum { K_END = 1, K_STRING, K_NUMBER, K_WORD, K_BAD };

/* What the last token was, which says what may come next. */
enum prev { P_NONE, P_OPEN, P_COMMA, P_COLON, P_KEY, P_VALUE };

struct lexer {
    const unsigned char *start, *p, *end;
    const unsigned char *stop;      /* cJSON failed here; NULL when it did not */
    unsigned depth, max_depth;
    bool in_object[SJ_MAX_DEPTH_CAP];
    enum prev prev;
    const unsigned char *prev_at;
    /* The token just read, and what cJSON does not keep of it. */
    const unsigned char *at;
    size_t str_len;
    bool is_int;
    int64_t i;
    struct sj_error *err;
    bool failed;
};

/* Line and column of x, counted on the error path only. */
static void position(const struct lexer *lx, const unsigned char *x, unsigned long *line,
                     unsigned long *col)
{
    const unsigned char *q;

    *line = *col = 1;
    for (q = lx->start; q < x; q++) {
        if (*q == '\n') {
            ++*line;
            *col = 1;
        } else if ((*q & 0xC0u) != 0x80u) {
            ++*col;
        }
    }
}

static bool fail_at(struct lexer *lx, const unsigned char *x, const char *fmt, ...)
    SJ_PRINTF(3, 4);
static bool fail_at(struct lexer *lx, const unsigned char *x, const char *fmt, ...)
{
    unsigned long line, col;
    va_list ap;

    if (!lx->failed) {
        position(lx, x, &line, &col);
        va_start(ap, fmt);
        set_error(lx->err, (uint32_t)line, (uint32_t)col, fmt, ap);
        va_end(ap);
    }
    lx->failed = true;
    return false;
}

/* ctype's isalpha() would depend on the locale. */
static bool is_letter(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_word_byte(unsigned char c)
{
    return is_letter(c) || isdigit(c) || c == '_';
}

/* What the input holds at x, for "got ..." in messages. */
static void describe_input(const struct lexer *lx, const unsigned char *x, char *buf,
                           size_t size)
{
    size_t n = 0;

    if (x >= lx->end) {
        snprintf(buf, size, "end of input");
    } else if (is_letter(*x)) {
        while (x + n < lx->end && n < 16 && is_word_byte(x[n]))
            n++;
        snprintf(buf, size, "'%.*s'", (int)n, (const char *)x);
    } else if (*x >= 0x20 && *x < 0x7F) {
        snprintf(buf, size, "'%c'", *x);
    } else if (*x >= 0x80 && (n = sj_utf8_seq_len(x, (size_t)(lx->end - x))) != 0) {
        snprintf(buf, size, "U+%04lX", (unsigned long)utf8_decode(x, n));
    } else {
        snprintf(buf, size, "byte 0x%02X", (unsigned)*x);
    }
}

/* The 4 hex digits at q, or -1. */
static long hex4(const struct lexer *lx, const unsigned char *q)
{
    long v = 0;
    int i;

    for (i = 0; i < 4; i++) {
        if (q + i >= lx->end || !isxdigit(q[i]))
            return -1;
        v = v * 16 + (isdigit(q[i]) ? q[i] - '0' : (q[i] | 0x20) - 'a' + 10);
    }
    return v;
}

/* Checks the string at lx->p (its opening quote) and moves past it;
 * str_len gets the length of the unescaped UTF-8. */
static bool lex_string(struct lexer *lx)
{
    const unsigned char *open = lx->p, *q = lx->p + 1;
    size_t n = 0, k;
    long cp, lo;

    for (; q < lx->end && *q != '"'; n += k) {
        if (*q < 0x20)
            return fail_at(lx, q, "unescaped control character U+%04X in string", (unsigned)*q);
        if (*q != '\\') {
            if ((k = sj_utf8_seq_len(q, (size_t)(lx->end - q))) == 0)
                return fail_at(lx, q, "invalid UTF-8 byte 0x%02X in string", (unsigned)*q);
            q += k;
            continue;
        }
        if (q + 1 >= lx->end)
            return fail_at(lx, open, "unterminated string");
        k = 1;
        if (q[1] != '\0' && strchr("\"\\/bfnrt", q[1]) != NULL) {
            q += 2;
            continue;
        }
        if (q[1] != 'u') {
            char got[32];
            describe_input(lx, q + 1, got, sizeof got);
            return fail_at(lx, q, "invalid escape sequence: '\\' followed by %s", got);
        }
        if ((cp = hex4(lx, q + 2)) < 0)
            return fail_at(lx, q, "expected 4 hex digits after \\u");
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            return fail_at(lx, q, "lone low surrogate \\u%04lX", (unsigned long)cp);
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            lo = -1;
            if (lx->end - q >= 8 && q[6] == '\\' && q[7] == 'u')
                lo = hex4(lx, q + 8);
            if (lo < 0xDC00 || lo > 0xDFFF)
                return fail_at(lx, q,
                               "lone high surrogate \\u%04lX (a low surrogate \\uDC00..\\uDFFF "
                               "must follow)",
                               (unsigned long)cp);
            k = 4;
            q += 6;
        } else {
            k = cp < 0x80 ? 1u : cp < 0x800 ? 2u : 3u;
        }
        q += 6;
    }
    if (q >= lx->end)
        return fail_at(lx, open, "unterminated string");
    lx->str_len = n;
    lx->p = q + 1;
    return true;
}

static bool is_digit(const struct lexer *lx, const unsigned char *q)
{
    return q < lx->end && isdigit(*q);
}

/* Checks the number at lx->p and moves past it; is_int and i get the exact
 * value of an integer literal that fits in int64_t. */
static bool lex_number(struct lexer *lx)
{
    const unsigned char *q = lx->p;
    bool neg = *q == '-', fits = true;
    uint64_t mag = 0;

    q += neg;
    if (!is_digit(lx, q))
        return fail_at(lx, q, "expected a digit after '-'");
    if (*q == '0' && is_digit(lx, q + 1))
        return fail_at(lx, lx->p, "leading zeros are not allowed in numbers");
    for (; is_digit(lx, q); q++) {
        fits = fits && mag <= (UINT64_MAX - (unsigned)(*q - '0')) / 10u;
        mag = mag * 10u + (unsigned)(*q - '0');
    }
    lx->is_int = fits && mag <= (uint64_t)INT64_MAX + neg;
    if (lx->is_int)
        lx->i = !neg ? (int64_t)mag : mag > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)mag;
    if (q < lx->end && *q == '.') {
        lx->is_int = false;
        if (!is_digit(lx, ++q))
            return fail_at(lx, q, "expected a digit after '.'");
        while (is_digit(lx, q))
            q++;
    }
    if (q < lx->end && (*q == 'e' || *q == 'E')) {
        lx->is_int = false;
        q += q + 1 < lx->end && (q[1] == '+' || q[1] == '-') ? 2 : 1;
        if (!is_digit(lx, q))
            return fail_at(lx, q, "expected a digit in the exponent");
        while (is_digit(lx, q))
            q++;
    }
    lx->p = q;
    return true;
}

/* The token at lx->at does not belong where it is: say what was due. */
static int unexpected(struct lexer *lx, int kind, bool in_object, bool key_due)
{
    const unsigned char *x = lx->at;
    char got[32];

    describe_input(lx, x, got, sizeof got);
    if (lx->prev == P_NONE && kind == K_END)
        fail_at(lx, x, "empty input (expected a JSON value)");
    else if (lx->prev == P_COMMA && kind == (in_object ? '}' : ']'))
        fail_at(lx, lx->prev_at, "trailing comma before '%c'", kind);
    else if (key_due)
        fail_at(lx, x, "expected a string key%s, got %s", lx->prev == P_OPEN ? " or '}'" : "",
                got);
    else if (lx->prev == P_KEY)
        fail_at(lx, x, "expected ':' after object key");
    else if (lx->prev != P_VALUE)
        fail_at(lx, x, "expected a value, got %s", got);
    else if (lx->depth == 0 && kind == K_END)
        fail_at(lx, x, "the JSON library (cJSON) cannot read this");
    else if (lx->depth == 0)
        fail_at(lx, x, "unexpected %s after the JSON value", got);
    else
        fail_at(lx, x, in_object ? "expected ',' or '}' after object member"
                                 : "expected ',' or ']' after array element");
    return 0;
}

/* Reads and checks the next token; returns its kind, or 0 after an error.
 * K_END comes only when cJSON read the text. */
static int lex_next(struct lexer *lx)
{
    const unsigned char *q;
    size_t word = 0;
    int kind;
    bool obj, key_due;

    while (lx->p < lx->end && memchr(" \t\n\r", *lx->p, 4) != NULL)
        lx->p++;
    q = lx->at = lx->p;
    if (q == lx->end) {
        kind = K_END;
    } else if (memchr("{}[],:", *q, 6) != NULL) {
        kind = *q;
    } else if (*q == '"') {
        kind = K_STRING;
    } else if (*q == '-' || isdigit(*q)) {
        kind = K_NUMBER;
    } else {
        while (q + word < lx->end && is_word_byte(q[word]))
            word++;
        kind = (word == 4 && (!memcmp(q, "true", 4) || !memcmp(q, "null", 4))) ||
                       (word == 5 && !memcmp(q, "false", 5))
                   ? K_WORD
                   : K_BAD;
    }
    obj = lx->depth > 0 && lx->in_object[lx->depth - 1u];
    key_due = obj && (lx->prev == P_COMMA || (lx->prev == P_OPEN && kind != '}'));
    /* A value after a value or a key is out of place whatever it holds;
     * where a value was due and cJSON stopped at it, it is malformed or
     * nested too deep. */
    if (kind == K_BAD || (key_due && kind != K_STRING) ||
        (lx->prev == P_VALUE && lx->depth == 0 && kind != K_END) ||
        ((lx->prev == P_VALUE || lx->prev == P_KEY) && kind != K_END &&
         memchr("}],:", kind, 4) == NULL) ||
        ((kind == '}' || kind == ']') && (lx->depth == 0 || obj != (kind == '}'))))
        return unexpected(lx, kind, obj, key_due);
    if ((kind == K_STRING && !lex_string(lx)) || (kind == K_NUMBER && !lex_number(lx)))
        return 0;
    /* cJSON's own limit is SJ_MAX_DEPTH_CAP: it stops at the same bracket. */
    if ((kind == '{' || kind == '[') && lx->depth == lx->max_depth)
        return fail_at(lx, q, "nesting deeper than %u levels", lx->max_depth);
    if (lx->stop != NULL && q >= lx->stop)
        return unexpected(lx, kind, obj, key_due);
    lx->prev_at = q;
    lx->prev = kind == ',' ? P_COMMA : kind == ':' ? P_COLON : key_due ? P_KEY : P_VALUE;
    if (kind == '{' || kind == '[') {
        lx->in_object[lx->depth++] = kind == '{';
        lx->prev = P_OPEN;
    } else if (kind == '}' || kind == ']') {
        lx->depth--;
    }
    if (kind != K_STRING && kind != K_NUMBER && kind != K_END)
        lx->p += kind == K_WORD ? word : 1u;
    return kind;
}

/* Moves the lexer to the next string or number, which must be of kind
 * want: the one the tree walk is at. */
static bool lex_scalar(struct lexer *lx, int want)
{
    int k;

    do
        k = lex_next(lx);
    while (k != 0 && k != K_STRING && k != K_NUMBER && k != K_END);
    if (k != 0 && k != want)
        return fail_at(lx, lx->at, "the JSON library (cJSON) read this differently");
    return k != 0;
}

/* The tree walk: cJSON's items, in document order, become sj_values. */
struct walk {
    struct lexer lx;
    struct sj_doc *doc;
    /* Open-addressing set of (parent, key) over all members, sized for
     * them all, for duplicate keys in O(1) each; with where each key is. */
    struct member {
        const struct sj_value *m;
        const unsigned char *at;
    } *set;
    size_t mask;
};

/* Counts the values and members of the tree under item. */
static void count(const cJSON *item, size_t *values, size_t *members)
{
    const cJSON *c;

    ++*values;
    for (c = item->child; c != NULL; c = c->next) {
        *members += (item->type & 0xFF) == cJSON_Object;
        count(c, values, members);
    }
}

/* Adds the member m, whose key starts at at, or refuses it as a duplicate. */
static bool add_member(struct walk *w, const struct sj_value *m, const unsigned char *at)
{
    uint64_t h = 0xCBF29CE484222325u;
    size_t i;

    for (i = 0; i < m->key_len; i++)
        h = (h ^ (unsigned char)m->key[i]) * 0x100000001B3u;
    h ^= (uint64_t)(uintptr_t)m->parent * 0x9E3779B97F4A7C15u;
    for (i = (size_t)(h ^ (h >> 29)) & w->mask; w->set[i].m != NULL; i = (i + 1u) & w->mask) {
        const struct sj_value *o = w->set[i].m;
        if (o->parent == m->parent && o->key_len == m->key_len &&
            memcmp(o->key, m->key, m->key_len) == 0) {
            char shown[96];
            struct sbuf b = { shown, sizeof shown, 0 };
            unsigned long line, col;

            sb_json_string(&b, m->key, m->key_len, 32);
            position(&w->lx, w->set[i].at, &line, &col);
            return fail_at(&w->lx, at, "duplicate key %s (first at line %lu, column %lu)", shown,
                           line, col);
        }
    }
    w->set[i].m = m;
    w->set[i].at = at;
    return true;
}

static struct sj_value *build(struct walk *w, const cJSON *item, const struct sj_value *parent,
                              size_t index)
{
    struct lexer *lx = &w->lx;
    struct sj_value *v = &w->doc->values[w->doc->nvalues++];
    const cJSON *c;
    int type = item->type & 0xFF;

    v->parent = parent;
    v->index = index;
    if (parent != NULL && parent->type == SJ_OBJECT) {
        if (!lex_scalar(lx, K_STRING))
            return NULL;
        v->key = item->string;
        v->key_len = lx->str_len;
        if (!add_member(w, v, lx->at))
            return NULL;
    }
    if (type == cJSON_NULL) {
        v->type = SJ_NULL;
    } else if (type == cJSON_False || type == cJSON_True) {
        v->type = SJ_BOOL;
        v->u.boolean = type == cJSON_True;
    } else if (type == cJSON_Number) {
        int n;
        if (!lex_scalar(lx, K_NUMBER))
            return NULL;
        n = (int)(lx->p - lx->at);
        if (isinf(item->valuedouble)) {
            fail_at(lx, lx->at, "number %.*s%s is out of the range of a double", n > 24 ? 24 : n,
                    (const char *)lx->at, n > 24 ? "..." : "");
            return NULL;
        }
        v->type = SJ_NUMBER;
        v->u.num.d = item->valuedouble;
        v->u.num.is_int = lx->is_int;
        v->u.num.i = lx->is_int ? lx->i : 0;
    } else if (type == cJSON_String) {
        if (!lex_scalar(lx, K_STRING))
            return NULL;
        v->type = SJ_STRING;
        v->u.str.s = item->valuestring;
        v->u.str.len = lx->str_len;
    } else if (type == cJSON_Array || type == cJSON_Object) {
        const struct sj_value **items = &w->doc->kids[w->doc->nkids];

        v->type = type == cJSON_Array ? SJ_ARRAY : SJ_OBJECT;
        v->u.kids.items = items;
        for (c = item->child; c != NULL; c = c->next)
            w->doc->nkids++;
        for (c = item->child; c != NULL; c = c->next, v->u.kids.count++)
            if ((items[v->u.kids.count] = build(w, c, v, v->u.kids.count)) == NULL)
                return NULL;
    } else {
        fail_at(lx, lx->p, "the JSON library (cJSON) read this differently");
        return NULL;
    }
    return v;
}

static void clear_error(struct sj_error *err)
{
    if (err != NULL) {
        err->line = err->column = 0;
        err->msg[0] = '\0';
    }
}

/* cJSON's own nesting limit: past it, cJSON stops at the same bracket as
 * the lexer. */
_Static_assert(SJ_MAX_DEPTH_CAP <= CJSON_NESTING_LIMIT, "the lexer's depth limit is cJSON's");

struct sj_doc *sj_parse(const char *text, size_t len, const struct sj_limits *limits,
                        struct sj_error *err)
{
    size_t max_size = limits && limits->max_size ? limits->max_size : SJ_DEFAULT_MAX_SIZE;
    unsigned max_depth = limits && limits->max_depth ? limits->max_depth : SJ_DEFAULT_MAX_DEPTH;
    size_t values = 0, members = 0;
    const char *cj_end = NULL;
    struct sj_doc *doc;
    struct walk w;
    char *copy;
    bool ok = false;

    clear_error(err);
    if (len > max_size) {
        error_nopos(err, "input is %zu bytes, more than the limit of %zu", len, max_size);
        return NULL;
    }
    if (text == NULL && len != 0) {
        error_nopos(err, "no input");
        return NULL;
    }
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        text += 3;
        len -= 3;
    }
    /* cJSON gets the text with a NUL after it (see above). */
    doc = calloc(1, sizeof *doc);
    copy = malloc(len + 1u);
    if (doc == NULL || copy == NULL) {
        free(doc);
        free(copy);
        error_nopos(err, "out of memory");
        return NULL;
    }
    if (len != 0)
        memcpy(copy, text, len);
    copy[len] = '\0';
    memset(&w, 0, sizeof w);
    w.doc = doc;
    w.lx.start = w.lx.p = (const unsigned char *)copy;
    w.lx.end = w.lx.start + len;
    w.lx.max_depth = max_depth < SJ_MAX_DEPTH_CAP ? max_depth : SJ_MAX_DEPTH_CAP;
    w.lx.err = err;
    doc->cj = cJSON_ParseWithLengthOpts(copy, len + 1u, &cj_end, false);
    if (doc->cj != NULL) {
        count(doc->cj, &values, &members);
        for (w.mask = 1; w.mask < 2u * members; w.mask *= 2u)
            ;
        doc->values = calloc(values, sizeof *doc->values);
        doc->kids = calloc(values, sizeof *doc->kids);
        w.set = calloc(w.mask--, sizeof *w.set);
        if (doc->values != NULL && doc->kids != NULL && w.set != NULL) {
            ok = build(&w, doc->cj, NULL, 0) != NULL;
            while (ok && lex_next(&w.lx) != K_END)
                ok = !w.lx.failed;
        }
    } else {
        w.lx.stop = cj_end != NULL && cj_end >= copy && cj_end <= copy + len
                        ? (const unsigned char *)cj_end
                                                           : w.lx.start;
        while (lex_next(&w.lx) != 0)
            ;
    }
    free(w.set);
    free(copy);
    if (!ok) {
        if (!w.lx.failed)
            error_nopos(err, "out of memory");
        sj_doc_free(doc);
        return NULL;
    }
    return doc;
}

struct sj_doc *sj_parse_file(const char *path, const struct sj_limits *limits,
                             struct sj_error *err)
{
    size_t max_size = limits && limits->max_size ? limits->max_size : SJ_DEFAULT_MAX_SIZE;
    size_t len = 0, cap = 0, got;
    char *buf = NULL, *nb;
    struct sj_doc *doc = NULL;
    FILE *f;

    clear_error(err);
    errno = 0;
    if ((f = fopen(path, "rb")) == NULL) {
        error_nopos(err, "cannot open: %s", errno ? strerror(errno) : "unknown error");
        return NULL;
    }
    /* Reads at most one byte past the limit: enough to know it is over. */
    for (;;) {
        if (len == cap) {
            cap = cap * 2u > 65536u ? cap * 2u : 65536u;
            cap = cap < max_size + 1u ? cap : max_size + 1u;
            if ((nb = realloc(buf, cap)) == NULL) {
                error_nopos(err, "out of memory");
                break;
            }
            buf = nb;
        }
        errno = 0;
        len += got = fread(buf + len, 1, cap - len, f);
        if (len > max_size) {
            error_nopos(err, "file is larger than the limit of %zu bytes", max_size);
        } else if (got == 0 && ferror(f)) {
            error_nopos(err, "read error: %s", errno ? strerror(errno) : "I/O error");
        } else if (got == 0) {
            doc = sj_parse(buf, len, limits, err);
        } else {
            continue;
        }
        break;
    }
    fclose(f);
    free(buf);
    return doc;
}

void sj_doc_free(struct sj_doc *doc)
{
    if (doc == NULL)
        return;
    cJSON_Delete(doc->cj);
    free(doc->values);
    free(doc->kids);
    free(doc);
}

const struct sj_value *sj_doc_root(const struct sj_doc *doc)
{
    return doc != NULL && doc->values != NULL ? &doc->values[0] : NULL;
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
            sj_format_double(v->u.num.d, num);
            sb_puts(&b, num);
        }
        break;
    case SJ_STRING: sb_json_string(&b, v->u.str.s, v->u.str.len, 32); break;
    case SJ_ARRAY: sb_puts(&b, "an array"); break;
    case SJ_OBJECT: sb_puts(&b, "an object"); break;
    }
    return b.len;
}
