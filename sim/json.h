/*
 * A strict RFC 8259 JSON reader for scenario files, and a small JSON writer
 * for results.
 *
 * Reading. sj_parse() turns a whole buffer into a read-only tree of
 * struct sj_value owned by the returned struct sj_doc; sj_doc_free()
 * releases everything at once, and no value may be used after that.
 * Anything RFC 8259 does not allow is an error: trailing commas, leading
 * zeros, comments, single quotes, NaN/Infinity, unescaped control
 * characters in strings, invalid escapes, lone UTF-16 surrogates, invalid
 * UTF-8 in strings, duplicate keys in one object, any data after the
 * top-level value, and empty input. A leading UTF-8 byte order mark is
 * skipped (RFC 8259 section 8.1 lets parsers ignore it). Input is bounded
 * by sj_limits: nesting depth and input size.
 *
 * How. cJSON (libcjson, Debian's libcjson-dev) parses the text, unescapes
 * the strings and converts the numbers; the sj_value nodes point into its
 * tree. A lexer of ours (strings and numbers; no grammar) runs over the
 * same text and adds what cJSON does not do:
 *   - refuses what cJSON lets through: leading zeros ("01"), a '.' or an
 *     exponent without digits ("1.", "1.e5"), numbers out of the range of
 *     a double (cJSON gives infinity), control characters and invalid
 *     UTF-8 in strings, "\u" without 4 hex digits, bytes up to 0x20 other
 *     than RFC 8259's four whitespace characters (cJSON skips them all, NUL
 *     included), duplicate keys (cJSON keeps both), nesting beyond
 *     max_depth;
 *   - exact integers (cJSON keeps a double, and an int saturated to 32
 *     bits), read from the text: see Numbers;
 *   - string lengths: cJSON's copies end at the first NUL, so a "\u0000"
 *     would cut them; the length is counted from the text;
 *   - the position of the first error, and words for it.
 * Where cJSON refuses a text, its error offset says which token is wrong
 * and the lexer says what was due there. cJSON allocates with malloc (this
 * reader is the simulator's, not the stack's); no cJSON hooks or other
 * global settings are used.
 *
 * Errors. struct sj_error gets the position of the first error and a
 * message that starts with it (duplicate keys and numbers out of range are
 * found only in a text cJSON can read: in '{"a":1,"a":2,}' the trailing
 * comma is reported), e.g.
 *     "line 3, column 14: expected ',' or '}' after object member"
 * so a caller prints "<file>: <msg>". Lines and columns are 1-based; a
 * column counts characters (UTF-8 sequences), a tab is one column, and only
 * '\n' starts a new line.
 *
 * Paths of values. Values keep no position, but every value knows its
 * parent, and its key (object member) or index (array element), so a loader
 * can report a semantic error long after parsing:
 *     char path[128], got[64];
 *     sj_path(v, path, sizeof path);          -> "flows[0].dst"
 *     sj_describe(v, got, sizeof got);        -> "\"x\""
 *     fprintf(stderr, "%s: %s: expected an integer node id 0..%u, got %s\n",
 *             file, path, n - 1, got);
 *
 * Numbers. Every number is kept as the nearest double. A literal written as
 * an integer (no fraction, no exponent) whose value fits in int64_t also has
 * is_int set and its exact value in i: "9007199254740993" (2^53 + 1) has
 * the exact i although d rounded to 2^53; "9223372036854775808" (2^63) and
 * "1e3" and "3.0" have is_int false. sj_as_int64() only accepts is_int
 * numbers, so a node id of 2.5 or 1e3 is refused rather than truncated.
 * A literal beyond the range of a double (1e400) is a parse error; one
 * that underflows becomes 0 or a subnormal. cJSON converts with strtod()
 * in the C locale's decimal point, so the C locale does not matter.
 *
 * Strings are unescaped to UTF-8 and NUL-terminated; as "\u0000" is valid
 * JSON, a string or key may contain a NUL before its end, so the length is
 * kept too.
 *
 * Writing: see struct sj_writer below.
 */
#ifndef MOTEIP_SIM_JSON_H
#define MOTEIP_SIM_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---------------------------------------------------------------- reading */

enum sj_type {
    SJ_NULL = 0,
    SJ_BOOL,
    SJ_NUMBER,
    SJ_STRING,
    SJ_ARRAY,
    SJ_OBJECT
};

/* Read-only: the fields are public so a loader can walk the tree directly,
 * but the accessors below also accept NULL, which lets lookups chain. */
struct sj_value {
    enum sj_type type;
    const struct sj_value *parent;  /* NULL for the root */
    const char *key;                /* member name if parent is an object */
    size_t key_len;
    size_t index;                   /* position in the parent (arrays and objects) */
    union {
        bool boolean;
        struct {
            double d;
            int64_t i;              /* valid only when is_int */
            bool is_int;
        } num;
        struct {
            const char *s;
            size_t len;
        } str;
        /* SJ_ARRAY: the elements; SJ_OBJECT: the members in document
         * order, each value carrying its key. */
        struct {
            const struct sj_value *const *items;
            size_t count;
        } kids;
    } u;
};

struct sj_doc;  /* owns the arena holding every value of one document */

#define SJ_DEFAULT_MAX_DEPTH 64u
#define SJ_DEFAULT_MAX_SIZE  (8u * 1024u * 1024u)
/* The parser recurses once per level; larger max_depth values are clamped
 * to this so hostile input cannot exhaust the C stack. */
#define SJ_MAX_DEPTH_CAP     1000u

/* Zero fields (or a NULL pointer) mean the defaults. max_depth counts
 * nested arrays/objects: with 64, 64 nested '[' parse and 65 do not.
 * Memory use is at most about 80 times max_size (in "[1,1,...]" each
 * 2 bytes cost a cJSON item, its malloc header, an sj_value and a pointer
 * to it). */
struct sj_limits {
    unsigned max_depth;
    size_t max_size;                /* bytes of input */
};

struct sj_error {
    uint32_t line, column;          /* 0, 0 when there is no position (I/O, memory) */
    char msg[256];                  /* with the "line L, column C: " prefix */
};

/* Parses text[0..len) (need not be NUL-terminated). Returns the document,
 * or NULL with *err filled (err may be NULL). */
struct sj_doc *sj_parse(const char *text, size_t len, const struct sj_limits *limits,
                        struct sj_error *err);

/* Reads the file at path and parses it; I/O errors and files over
 * max_size are reported in err with line 0 and a message naming the
 * cause (the caller adds the file name). */
struct sj_doc *sj_parse_file(const char *path, const struct sj_limits *limits,
                             struct sj_error *err);

const struct sj_value *sj_doc_root(const struct sj_doc *doc);

/* Frees the document and every value in it; NULL is allowed. */
void sj_doc_free(struct sj_doc *doc);

/* "null", "boolean", "number", "string", "array", "object". */
const char *sj_type_name(enum sj_type t);

bool sj_is(const struct sj_value *v, enum sj_type t);

/* The member of obj named key (compared as a NUL-terminated string, so
 * keys with embedded NULs never match); NULL if obj is not an object or
 * has no such member. Linear in the number of members. */
const struct sj_value *sj_get(const struct sj_value *obj, const char *key);

/* Number of elements of an array or members of an object; 0 otherwise. */
size_t sj_len(const struct sj_value *v);

/* Element i of an array or member i of an object (in document order; the
 * member's name is its key); NULL when out of range or not a container. */
const struct sj_value *sj_at(const struct sj_value *v, size_t i);

/* Typed getters: true and *out set when v has that type (for
 * sj_as_int64: is an integer literal that fits in int64_t); false and *out
 * untouched otherwise, including for v == NULL. */
bool sj_as_bool(const struct sj_value *v, bool *out);
bool sj_as_double(const struct sj_value *v, double *out);
bool sj_as_int64(const struct sj_value *v, int64_t *out);
/* The string (NUL-terminated) or NULL; *len (if len != NULL) its length. */
const char *sj_as_string(const struct sj_value *v, size_t *len);

/* Writes the JSON path of v into buf, e.g. "nodes[3].position". Keys that
 * are not identifier-like ([A-Za-z_][A-Za-z0-9_-]*) are written as
 * ["key"] with JSON escaping, e.g. "links[\"a b\"]". The root is
 * "(root)". Like snprintf: returns the length of the full path, and buf
 * (when size > 0) always holds a NUL-terminated, possibly truncated, copy. */
size_t sj_path(const struct sj_value *v, char *buf, size_t size);

/* A short rendering of v for "got ..." in messages: null, true, 12, 2.5,
 * "text" (escaped, shortened to 32 characters plus "..." when longer),
 * "an array", "an object"; "nothing" for NULL. Returns and truncates like
 * sj_path. */
size_t sj_describe(const struct sj_value *v, char *buf, size_t size);

/* ---------------------------------------------------------------- writing */

/*
 * Streams one JSON document to a FILE*; the writer inserts commas, colons
 * and (with indent > 0) newlines and indentation, so callers only say what
 * comes next:
 *     struct sj_writer w;
 *     sj_writer_init(&w, f, 2);
 *     sj_w_begin_object(&w);
 *     sj_w_key(&w, "delivered"); sj_w_int(&w, 97);
 *     sj_w_key(&w, "ratio");     sj_w_double(&w, 0.97);
 *     sj_w_end_object(&w);
 *     if (sj_writer_finish(&w) != 0) ...  // sj_writer_error(&w) says why
 *
 * Output is deterministic:
 *   - indent 0 is compact: {"a":1,"b":[true,null]}; indent n puts every
 *     member/element on its own line, n spaces per level, "key": value;
 *     empty containers are {} and []. No trailing newline is written.
 *   - integers (sj_w_int/sj_w_uint) in plain decimal;
 *   - doubles with printf "%.15g" (15 = DBL_DIG significant digits: a
 *     decimal of up to 15 digits stored in a double prints back as itself,
 *     so 0.1 is "0.1", not the "0.10000000000000001" of %.17g), with '.'
 *     as decimal point whatever the locale; -0.0 is "-0"; NaN and
 *     infinities are written as null; the few doubles next to DBL_MAX
 *     that %.15g would round past it get "%.17g" instead;
 *   - strings escape '"', '\\' and control characters (\b \f \n \r \t,
 *     others as \u00XX with lowercase hex); valid UTF-8 passes through and
 *     each byte that is not part of a valid UTF-8 sequence becomes \ufffd.
 *
 * Misuse (a value where a key is due, a key outside an object, a mismatched
 * end, nesting deeper than SJ_WRITER_MAX_DEPTH, a second top-level value)
 * makes the writer stop writing and remember the first problem; so do I/O
 * errors. Check once with sj_writer_finish().
 */
#define SJ_WRITER_MAX_DEPTH 64

struct sj_writer {
    FILE *f;
    unsigned indent;
    unsigned depth;
    bool want_value;                /* a key was written, its value is due */
    bool done;                      /* the top-level value is complete */
    char error[96];                 /* first problem; "" while there is none */
    bool is_object[SJ_WRITER_MAX_DEPTH];
    bool has_items[SJ_WRITER_MAX_DEPTH];
};

void sj_writer_init(struct sj_writer *w, FILE *f, unsigned indent);
void sj_w_begin_object(struct sj_writer *w);
void sj_w_end_object(struct sj_writer *w);
void sj_w_begin_array(struct sj_writer *w);
void sj_w_end_array(struct sj_writer *w);
void sj_w_key(struct sj_writer *w, const char *key);
void sj_w_key_n(struct sj_writer *w, const char *key, size_t len);
void sj_w_string(struct sj_writer *w, const char *s);
void sj_w_string_n(struct sj_writer *w, const char *s, size_t len);
void sj_w_int(struct sj_writer *w, int64_t v);
void sj_w_uint(struct sj_writer *w, uint64_t v);
void sj_w_double(struct sj_writer *w, double v);
void sj_w_bool(struct sj_writer *w, bool v);
void sj_w_null(struct sj_writer *w);
/* A key and its value in one call (objects of numbers are most of a
 * result). */
void sj_w_member_uint(struct sj_writer *w, const char *key, uint64_t v);
void sj_w_member_double(struct sj_writer *w, const char *key, double v);

/* 0 when exactly one complete value was written and flushed without error;
 * -1 otherwise. Does not close the FILE. */
int sj_writer_finish(struct sj_writer *w);

/* The first problem as text ("key outside an object", "write error:
 * No space left on device", ...), or NULL. */
const char *sj_writer_error(const struct sj_writer *w);

#endif
