/*
 * The deterministic JSON writer (sj_writer; the contract is in json.h) and
 * how it spells text: string escapes and numbers, which json.c's error
 * text (sj_describe) spells the same way through json_text.h.
 */
#include "json.h"
#include "json_text.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How the writer spells the text at p: NULL when the next *n bytes (one
 * character) go out verbatim, else the escape to write instead of them. */
const char *sj_json_escape(const unsigned char *p, size_t avail, size_t *n, char tmp[8])
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
        *n = sj_utf8_seq_len(p, avail);
        if (*n == 0) {
            *n = 1;
            return "\\ufffd";
        }
    }
    return NULL;
}

/* printf("%.15g") with '.' whatever the locale. */
size_t sj_format_double(double d, char out[40])
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
        const char *esc = sj_json_escape(p + i, len - i, &n, tmp);
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

/* A number or literal: text goes out as it is. */
static void w_scalar(struct sj_writer *w, const char *text)
{
    if (!w_before(w, false))
        return;
    w_puts(w, text);
    w_after_value(w);
}

void sj_w_int(struct sj_writer *w, int64_t v)
{
    char buf[32];

    snprintf(buf, sizeof buf, "%lld", (long long)v);
    w_scalar(w, buf);
}

void sj_w_uint(struct sj_writer *w, uint64_t v)
{
    char buf[32];

    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    w_scalar(w, buf);
}

void sj_w_double(struct sj_writer *w, double v)
{
    char buf[40] = "null";

    if (isfinite(v))
        sj_format_double(v, buf);
    w_scalar(w, buf);
}

void sj_w_bool(struct sj_writer *w, bool v) { w_scalar(w, v ? "true" : "false"); }
void sj_w_null(struct sj_writer *w) { w_scalar(w, "null"); }

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
