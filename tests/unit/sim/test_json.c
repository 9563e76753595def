/*
 * The simulator's JSON reader and writer (sim/json.h): RFC 8259
 * strictness, error positions, number handling, paths for loader messages,
 * and byte-exact writer output.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */

#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "json.h"
#include "testing.h"

static struct sj_doc *parse_str(const char *text, struct sj_error *err)
{
    return sj_parse(text, strlen(text), NULL, err);
}

/* Parses text[0..len) expecting a failure at line:col whose message
 * contains want; says which input failed, since CHECK only has our line. */
static int fails_at(const char *text, size_t len, const struct sj_limits *lim, uint32_t line,
                    uint32_t col, const char *want)
{
    struct sj_error err;
    struct sj_doc *doc = sj_parse(text, len, lim, &err);
    char prefix[64];

    if (doc != NULL) {
        fprintf(stderr, "  input %.60s: parsed, expected an error\n", text);
        sj_doc_free(doc);
        return 0;
    }
    snprintf(prefix, sizeof prefix, "line %u, column %u: ", (unsigned)line, (unsigned)col);
    if (err.line != line || err.column != col || strncmp(err.msg, prefix, strlen(prefix)) != 0 ||
        strstr(err.msg, want) == NULL) {
        fprintf(stderr, "  input %.60s: got \"%s\" (%u:%u), want %u:%u \"%s\"\n", text, err.msg,
                (unsigned)err.line, (unsigned)err.column, (unsigned)line, (unsigned)col, want);
        return 0;
    }
    return 1;
}

static int fails(const char *text, uint32_t line, uint32_t col, const char *want)
{
    return fails_at(text, strlen(text), NULL, line, col, want);
}

/* ----------------------------------------------------------- valid input */

static void test_every_type(void)
{
    const char *text =
        "{\"n\":null,\"t\":true,\"f\":false,\"i\":42,\"neg\":-17,\"d\":2.5,"
        "\"s\":\"hi\",\"a\":[1,[2,3],{}],\"o\":{\"k\":\"v\"},\"empty\":\"\",\"ea\":[]}";
    struct sj_error err;
    struct sj_doc *doc = parse_str(text, &err);
    const struct sj_value *root = sj_doc_root(doc), *a, *v;
    bool b = false;
    int64_t i = 0;
    double d = 0;
    size_t len = 99;

    CHECK(doc != NULL);
    if (doc == NULL) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    CHECK(sj_is(root, SJ_OBJECT));
    CHECK_EQ(sj_len(root), 11);
    CHECK(root->parent == NULL && root->key == NULL);
    CHECK(sj_is(sj_get(root, "n"), SJ_NULL));
    CHECK(sj_as_bool(sj_get(root, "t"), &b) && b);
    CHECK(sj_as_bool(sj_get(root, "f"), &b) && !b);
    CHECK(sj_as_int64(sj_get(root, "i"), &i) && i == 42);
    CHECK(sj_as_int64(sj_get(root, "neg"), &i) && i == -17);
    CHECK(sj_as_double(sj_get(root, "d"), &d) && d == 2.5);
    CHECK(!sj_as_int64(sj_get(root, "d"), &i));
    CHECK(strcmp(sj_as_string(sj_get(root, "s"), &len), "hi") == 0 && len == 2);
    CHECK(strcmp(sj_as_string(sj_get(root, "empty"), &len), "") == 0 && len == 0);
    a = sj_get(root, "a");
    CHECK(sj_is(a, SJ_ARRAY) && sj_len(a) == 3);
    CHECK(sj_as_int64(sj_at(a, 0), &i) && i == 1);
    CHECK(sj_len(sj_at(a, 1)) == 2 && sj_as_int64(sj_at(sj_at(a, 1), 1), &i) && i == 3);
    CHECK(sj_is(sj_at(a, 2), SJ_OBJECT) && sj_len(sj_at(a, 2)) == 0);
    CHECK(sj_at(a, 3) == NULL);
    CHECK(strcmp(sj_as_string(sj_get(sj_get(root, "o"), "k"), NULL), "v") == 0);
    CHECK(sj_is(sj_get(root, "ea"), SJ_ARRAY) && sj_len(sj_get(root, "ea")) == 0);

    /* Members keep document order, and know their key and index. */
    v = sj_at(root, 0);
    CHECK(v != NULL && strcmp(v->key, "n") == 0 && v->index == 0 && v->parent == root);
    v = sj_at(root, 10);
    CHECK(v != NULL && strcmp(v->key, "ea") == 0 && v->index == 10);
    CHECK(sj_at(root, 11) == NULL);

    /* Wrong types and NULL are refused without touching the output. */
    i = 7;
    CHECK(!sj_as_int64(sj_get(root, "s"), &i) && i == 7);
    CHECK(!sj_as_bool(sj_get(root, "i"), &b));
    CHECK(!sj_as_double(sj_get(root, "s"), &d));
    CHECK(sj_as_string(sj_get(root, "i"), NULL) == NULL);
    CHECK(sj_get(root, "missing") == NULL);
    CHECK(sj_get(a, "x") == NULL);
    CHECK(sj_get(sj_get(root, "missing"), "x") == NULL);
    CHECK(sj_len(NULL) == 0 && sj_at(NULL, 0) == NULL && !sj_is(NULL, SJ_NULL));
    CHECK(!sj_as_int64(NULL, &i) && !sj_as_bool(NULL, &b) && sj_as_string(NULL, NULL) == NULL);
    CHECK(strcmp(sj_type_name(SJ_OBJECT), "object") == 0);
    CHECK(strcmp(sj_type_name(SJ_BOOL), "boolean") == 0);
    sj_doc_free(doc);
    sj_doc_free(NULL);
}

static void test_scalar_roots_and_whitespace(void)
{
    struct sj_error err;
    struct sj_doc *doc;
    int64_t i;

    doc = parse_str(" \t\r\n 7 \r\n\t ", &err);
    CHECK(doc != NULL && sj_as_int64(sj_doc_root(doc), &i) && i == 7);
    sj_doc_free(doc);
    doc = parse_str("null", &err);
    CHECK(doc != NULL && sj_is(sj_doc_root(doc), SJ_NULL));
    sj_doc_free(doc);
    doc = parse_str("\"\"", &err);
    CHECK(doc != NULL && sj_is(sj_doc_root(doc), SJ_STRING));
    sj_doc_free(doc);
    /* A UTF-8 byte order mark is skipped. */
    doc = parse_str("\xEF\xBB\xBF[true]", &err);
    CHECK(doc != NULL && sj_len(sj_doc_root(doc)) == 1);
    sj_doc_free(doc);
    /* The buffer need not be NUL-terminated: only len bytes count. */
    doc = sj_parse("[1]xyz", 3, NULL, &err);
    CHECK(doc != NULL && sj_len(sj_doc_root(doc)) == 1);
    sj_doc_free(doc);
}

static void test_string_escapes(void)
{
    static const char want[] = "\"\\/\b\f\n\r\tA\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"
                               "\xF4\x8F\xBF\xBF\x7F";
    struct sj_error err;
    struct sj_doc *doc;
    const char *s;
    size_t len;

    doc = parse_str("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20AC\\ud83d\\uDE00"
                    "\\uDBFF\\uDFFF\x7F\"",
                    &err);
    CHECK(doc != NULL);
    s = sj_as_string(sj_doc_root(doc), &len);
    CHECK(s != NULL && len == sizeof want - 1u && memcmp(s, want, len) == 0 && s[len] == '\0');
    sj_doc_free(doc);

    /* Raw UTF-8 passes through unchanged. */
    doc = parse_str("\"gr\xC3\xBC\xC3\x9F \xE2\x82\xAC \xF0\x9F\x98\x80\"", &err);
    s = sj_as_string(sj_doc_root(doc), &len);
    CHECK(s != NULL && strcmp(s, "gr\xC3\xBC\xC3\x9F \xE2\x82\xAC \xF0\x9F\x98\x80") == 0);
    sj_doc_free(doc);

    /* \u0000 is valid: the length covers the embedded NUL. */
    doc = parse_str("{\"a\\u0000b\":\"x\\u0000y\",\"a\":1}", &err);
    CHECK(doc != NULL);
    s = sj_as_string(sj_at(sj_doc_root(doc), 0), &len);
    CHECK(s != NULL && len == 3 && memcmp(s, "x\0y", 3) == 0);
    CHECK(doc != NULL && sj_at(sj_doc_root(doc), 0)->key_len == 3);
    /* sj_get matches the key "a", not "a\0b". */
    CHECK(sj_get(sj_doc_root(doc), "a") == sj_at(sj_doc_root(doc), 1));
    sj_doc_free(doc);
}

static void test_numbers(void)
{
    struct sj_error err;
    struct sj_doc *doc = parse_str(
        "[0, -0, 9007199254740993, 9223372036854775807, 9223372036854775808,"
        " -9223372036854775808, -9223372036854775809, 1e3, 1E+2, -1.5e-2, 0.1, 3.0,"
        " 123456789012345678901234567890, 1e-400, 2.5E0, -12]",
        &err);
    const struct sj_value *a = sj_doc_root(doc);
    const struct sj_value *v;
    int64_t i;
    double d;

    CHECK(doc != NULL && sj_len(a) == 16);
    if (doc == NULL)
        return;
    v = sj_at(a, 0);
    CHECK(v->u.num.is_int && v->u.num.i == 0 && v->u.num.d == 0 && !signbit(v->u.num.d));
    v = sj_at(a, 1);
    CHECK(v->u.num.is_int && v->u.num.i == 0 && v->u.num.d == 0 && signbit(v->u.num.d));
    /* Beyond 2^53 the double rounds, but the int64 stays exact. */
    v = sj_at(a, 2);
    CHECK(v->u.num.is_int && v->u.num.i == INT64_C(9007199254740993));
    CHECK(v->u.num.d == 9007199254740992.0);
    v = sj_at(a, 3);
    CHECK(sj_as_int64(v, &i) && i == INT64_MAX);
    /* Past int64: flagged as not exact, only the double remains. */
    v = sj_at(a, 4);
    CHECK(!v->u.num.is_int && !sj_as_int64(v, &i) && v->u.num.d == 9223372036854775808.0);
    CHECK(sj_as_int64(sj_at(a, 5), &i) && i == INT64_MIN);
    v = sj_at(a, 6);
    CHECK(!v->u.num.is_int && v->u.num.d == -9223372036854775808.0);
    /* Exponents and fractions are never integers, even when whole. */
    v = sj_at(a, 7);
    CHECK(!v->u.num.is_int && sj_as_double(v, &d) && d == 1000.0);
    CHECK(!sj_at(a, 8)->u.num.is_int && sj_at(a, 8)->u.num.d == 100.0);
    CHECK(sj_at(a, 9)->u.num.d == -1.5e-2);
    CHECK(sj_at(a, 10)->u.num.d == 0.1);
    CHECK(!sj_at(a, 11)->u.num.is_int && sj_at(a, 11)->u.num.d == 3.0);
    v = sj_at(a, 12);
    CHECK(!v->u.num.is_int && v->u.num.d == 123456789012345678901234567890.0);
    CHECK(sj_at(a, 13)->u.num.d == 0.0 && !sj_at(a, 13)->u.num.is_int);
    CHECK(sj_at(a, 14)->u.num.d == 2.5);
    CHECK(sj_as_int64(sj_at(a, 15), &i) && i == -12);
    sj_doc_free(doc);
}

/* Parsing must not depend on the C locale's decimal point. */
static void test_numbers_under_comma_locale(void)
{
    static const char *const names[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "de_DE" };
    struct sj_error err;
    struct sj_doc *doc;
    size_t k;
    int found = 0;

    for (k = 0; k < sizeof names / sizeof names[0] && !found; k++)
        found = setlocale(LC_NUMERIC, names[k]) != NULL;
    if (!found) {
        /* scripts/setup.sh makes de_DE.UTF-8; without it this test proves nothing */
        fprintf(stderr, "no comma-decimal locale (de_DE.UTF-8): run scripts/setup.sh\n");
        CHECK(found);
        return;
    }
    doc = parse_str("[2.5, 1e-1]", &err);
    CHECK(doc != NULL && sj_at(sj_doc_root(doc), 0)->u.num.d == 2.5);
    CHECK(doc != NULL && sj_at(sj_doc_root(doc), 1)->u.num.d == 0.1);
    sj_doc_free(doc);
    {
        FILE *f = tmpfile();
        struct sj_writer w;
        char buf[64];
        size_t n;

        CHECK(f != NULL);
        if (f != NULL) {
            sj_writer_init(&w, f, 0);
            sj_w_double(&w, -2.5e-7);
            CHECK_EQ(sj_writer_finish(&w), 0);
            rewind(f);
            n = fread(buf, 1, sizeof buf - 1u, f);
            buf[n] = '\0';
            CHECK(strcmp(buf, "-2.5e-07") == 0);
            fclose(f);
        }
    }
    setlocale(LC_NUMERIC, "C");
}

static void test_paths(void)
{
    const char *text = "{\"nodes\":[{\"id\":0,\"position\":[1,2]},{\"position\":{\"x\":1}}],"
                       "\"a b\":{\"c.d\":[true]},\"\":1,\"9x\":2,\"q\\\"\":3,\"tx-power\":4,"
                       "\"flows\":[{\"dst\":\"x\"}]}";
    struct sj_error err;
    struct sj_doc *doc = parse_str(text, &err);
    const struct sj_value *root = sj_doc_root(doc), *v;
    char buf[128];
    size_t n;

    CHECK(doc != NULL);
    if (doc == NULL)
        return;
    sj_path(root, buf, sizeof buf);
    CHECK(strcmp(buf, "(root)") == 0);
    sj_path(sj_get(root, "nodes"), buf, sizeof buf);
    CHECK(strcmp(buf, "nodes") == 0);
    v = sj_at(sj_get(sj_at(sj_get(root, "nodes"), 0), "position"), 1);
    n = sj_path(v, buf, sizeof buf);
    CHECK(strcmp(buf, "nodes[0].position[1]") == 0 && n == strlen(buf));
    v = sj_get(sj_get(sj_at(sj_get(root, "nodes"), 1), "position"), "x");
    sj_path(v, buf, sizeof buf);
    CHECK(strcmp(buf, "nodes[1].position.x") == 0);
    v = sj_at(sj_get(sj_get(root, "a b"), "c.d"), 0);
    sj_path(v, buf, sizeof buf);
    CHECK(strcmp(buf, "[\"a b\"][\"c.d\"][0]") == 0);
    sj_path(sj_get(root, ""), buf, sizeof buf);
    CHECK(strcmp(buf, "[\"\"]") == 0);
    sj_path(sj_get(root, "9x"), buf, sizeof buf);
    CHECK(strcmp(buf, "[\"9x\"]") == 0);
    sj_path(sj_get(root, "q\""), buf, sizeof buf);
    CHECK(strcmp(buf, "[\"q\\\"\"]") == 0);
    sj_path(sj_get(root, "tx-power"), buf, sizeof buf);
    CHECK(strcmp(buf, "tx-power") == 0);

    /* The loader's message, as json.h sketches it. */
    {
        char path[64], got[64], msg[256];
        v = sj_get(sj_at(sj_get(root, "flows"), 0), "dst");
        sj_path(v, path, sizeof path);
        sj_describe(v, got, sizeof got);
        snprintf(msg, sizeof msg, "%s: %s: expected an integer node id 0..10, got %s",
                 "scenario.json", path, got);
        CHECK(strcmp(msg, "scenario.json: flows[0].dst: expected an integer node id 0..10, "
                          "got \"x\"") == 0);
    }

    /* Truncation: the return value is the full length, buf stays a string. */
    v = sj_get(sj_get(sj_at(sj_get(root, "nodes"), 1), "position"), "x");
    n = sj_path(v, buf, 8);
    CHECK(n == strlen("nodes[1].position.x") && strcmp(buf, "nodes[1") == 0);
    CHECK(sj_path(v, NULL, 0) == n);

    /* A root array. */
    sj_doc_free(doc);
    doc = parse_str("[[0,[1,2,{\"k\":[5]}]]]", &err);
    v = sj_at(sj_get(sj_at(sj_at(sj_at(sj_doc_root(doc), 0), 1), 2), "k"), 0);
    sj_path(v, buf, sizeof buf);
    CHECK(strcmp(buf, "[0][1][2].k[0]") == 0);
    sj_doc_free(doc);
}

static void test_describe(void)
{
    struct sj_error err;
    struct sj_doc *doc = parse_str(
        "[null,true,false,12,-3,2.5,1e3,\"x\",\"q\\\"\\n\",[1],{},"
        "\"0123456789012345678901234567890123456789\"]",
        &err);
    const struct sj_value *a = sj_doc_root(doc);
    static const char *const want[] = {
        "null", "true", "false", "12", "-3", "2.5", "1000", "\"x\"", "\"q\\\"\\n\"",
        "an array", "an object", "\"01234567890123456789012345678901...\"",
    };
    char buf[64];
    size_t i;

    CHECK(doc != NULL && sj_len(a) == sizeof want / sizeof want[0]);
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        sj_describe(sj_at(a, i), buf, sizeof buf);
        if (strcmp(buf, want[i]) != 0)
            fprintf(stderr, "  describe #%zu: got %s, want %s\n", i, buf, want[i]);
        CHECK(strcmp(buf, want[i]) == 0);
    }
    sj_describe(NULL, buf, sizeof buf);
    CHECK(strcmp(buf, "nothing") == 0);
    sj_doc_free(doc);
}

/* --------------------------------------------------------- invalid input */

static void test_errors_structure(void)
{
    CHECK(fails("", 1, 1, "empty input"));
    CHECK(fails("  \n  ", 2, 3, "empty input"));
    CHECK(fails("[1,2,]", 1, 5, "trailing comma before ']'"));
    CHECK(fails("{\n  \"a\": 1,\n}", 2, 9, "trailing comma before '}'"));
    CHECK(fails("[1,\r\n2,\r\n]", 2, 2, "trailing comma before ']'"));
    CHECK(fails("[1 2]", 1, 4, "expected ',' or ']' after array element"));
    CHECK(fails("[1,2", 1, 5, "expected ',' or ']' after array element"));
    CHECK(fails("[", 1, 2, "expected a value, got end of input"));
    CHECK(fails("[,1]", 1, 2, "expected a value, got ','"));
    CHECK(fails("{\n  \"name\": \"a\",\n  \"x\": 1 \"y\": 2}", 3, 10,
                "expected ',' or '}' after object member"));
    CHECK(fails("{\"a\" 1}", 1, 6, "expected ':' after object key"));
    CHECK(fails("{\"a\":}", 1, 6, "expected a value, got '}'"));
    CHECK(fails("{,}", 1, 2, "expected a string key or '}', got ','"));
    CHECK(fails("{\"a\":1,b:2}", 1, 8, "expected a string key, got 'b'"));
    CHECK(fails("{'a':1}", 1, 2, "expected a string key or '}', got '''"));
    CHECK(fails("{\"a\":1", 1, 7, "expected ',' or '}' after object member"));
    CHECK(fails("[1 /* c */]", 1, 4, "expected ',' or ']'"));
    CHECK(fails("{} x", 1, 4, "unexpected 'x' after the JSON value"));
    CHECK(fails("1 2", 1, 3, "unexpected '2' after the JSON value"));
    CHECK(fails("[]]", 1, 3, "unexpected ']' after the JSON value"));
    CHECK(fails_at("[]\0", 3, NULL, 1, 3, "unexpected byte 0x00 after the JSON value"));
    CHECK(fails_at("[\0]", 3, NULL, 1, 2, "expected a value, got byte 0x00"));
    CHECK(fails("[\xC3\xA9]", 1, 2, "expected a value, got U+00E9"));
    CHECK(fails("[\"\xC3\xA9\", x]", 1, 7, "expected a value, got 'x'"));
}

static void test_errors_literals_and_numbers(void)
{
    CHECK(fails("[tru]", 1, 2, "expected a value, got 'tru'"));
    CHECK(fails("True", 1, 1, "expected a value, got 'True'"));
    CHECK(fails("nullx", 1, 1, "expected a value, got 'nullx'"));
    CHECK(fails("[NaN]", 1, 2, "got 'NaN'"));
    CHECK(fails("-Infinity", 1, 2, "expected a digit after '-'"));
    CHECK(fails("[01]", 1, 2, "leading zeros are not allowed"));
    CHECK(fails("-007", 1, 1, "leading zeros are not allowed"));
    CHECK(fails("[.5]", 1, 2, "expected a value, got '.'"));
    CHECK(fails("[+1]", 1, 2, "expected a value, got '+'"));
    CHECK(fails("[1.]", 1, 4, "expected a digit after '.'"));
    CHECK(fails("[1.e5]", 1, 4, "expected a digit after '.'"));
    CHECK(fails("[1e]", 1, 4, "expected a digit in the exponent"));
    CHECK(fails("[1e+]", 1, 5, "expected a digit in the exponent"));
    CHECK(fails("[-]", 1, 3, "expected a digit after '-'"));
    CHECK(fails("[0x10]", 1, 3, "expected ',' or ']' after array element"));
    CHECK(fails("[1.2.3]", 1, 5, "expected ',' or ']' after array element"));
    CHECK(fails("\n  1e400", 2, 3, "number 1e400 is out of the range of a double"));
    CHECK(fails("-1e400", 1, 1, "out of the range"));
}

static void test_errors_strings(void)
{
    CHECK(fails("{\"a\": \"abc", 1, 7, "unterminated string"));
    CHECK(fails("[\"ab\\", 1, 2, "unterminated string"));
    CHECK(fails("\"", 1, 1, "unterminated string"));
    CHECK(fails("[\"a\tb\"]", 1, 4, "unescaped control character U+0009 in string"));
    CHECK(fails("[\"a\nb\"]", 1, 4, "unescaped control character U+000A in string"));
    CHECK(fails_at("[\"a\0\"]", 6, NULL, 1, 4, "unescaped control character U+0000"));
    CHECK(fails("[\"\\x\"]", 1, 3, "invalid escape sequence: '\\' followed by 'x'"));
    CHECK(fails("[\"\\'\"]", 1, 3, "invalid escape sequence: '\\' followed by '''"));
    CHECK(fails("[\"\\U0041\"]", 1, 3, "invalid escape sequence"));
    CHECK(fails("[\"ok\\u12G4\"]", 1, 5, "expected 4 hex digits after \\u"));
    CHECK(fails("[\"\\u12\"]", 1, 3, "expected 4 hex digits after \\u"));
    CHECK(fails("[\"\\uD800\"]", 1, 3, "lone high surrogate \\uD800"));
    CHECK(fails("[\"\\uD83Dx\"]", 1, 3, "lone high surrogate \\uD83D"));
    CHECK(fails("[\"\\uD800\\u0041\"]", 1, 3, "lone high surrogate"));
    CHECK(fails("[\"\\uD800\\uD800\"]", 1, 3, "lone high surrogate"));
    CHECK(fails("[\"ab\\uDC00\"]", 1, 5, "lone low surrogate \\uDC00"));
    CHECK(fails("[\"\\uDFFF\\uD800\"]", 1, 3, "lone low surrogate \\uDFFF"));
    /* Invalid UTF-8: a bad continuation, an overlong NUL, an encoded
     * surrogate, a code point past U+10FFFF, a truncated sequence. */
    CHECK(fails("[\"\xC3\x28\"]", 1, 3, "invalid UTF-8 byte 0xC3 in string"));
    CHECK(fails("[\"x\xC0\x80\"]", 1, 4, "invalid UTF-8 byte 0xC0"));
    CHECK(fails("[\"\xED\xA0\x80\"]", 1, 3, "invalid UTF-8 byte 0xED"));
    CHECK(fails("[\"\xF4\x90\x80\x80\"]", 1, 3, "invalid UTF-8 byte 0xF4"));
    CHECK(fails_at("\"\xE2\x82", 3, NULL, 1, 2, "invalid UTF-8 byte 0xE2"));
    CHECK(fails("[\"\xFF\"]", 1, 3, "invalid UTF-8 byte 0xFF"));
}

/* What cJSON, which builds the tree, lets through or cannot read: our lexer
 * over the text must still refuse it, with a position. */
static void test_errors_cjson_is_laxer(void)
{
    static const struct {
        const char *text;
        size_t len;                 /* 0: strlen(text) */
        uint32_t line, col;
        const char *want;
    } cases[] = {
        /* cJSON skips every byte up to 0x20 as whitespace, NUL included. */
        { "[1,\v2]", 0, 1, 4, "expected a value, got byte 0x0B" },
        { "\f1", 0, 1, 1, "expected a value, got byte 0x0C" },
        { "[\x01 1]", 0, 1, 2, "expected a value, got byte 0x01" },
        { "{\"a\"\x1f:1}", 0, 1, 5, "expected ':' after object key" },
        { "[1]\x01", 0, 1, 4, "unexpected byte 0x01 after the JSON value" },
        { "[1,\0 2]", 7, 1, 4, "expected a value, got byte 0x00" },
        /* cJSON reads "01" as 1 and "1." as 1.0, and \u12G4 as some code
         * point. */
        { "{\"a\":[0,01]}", 0, 1, 9, "leading zeros are not allowed" },
        { "[2.]", 0, 1, 4, "expected a digit after '.'" },
        { "[\"\\u12G4\"]", 0, 1, 3, "expected 4 hex digits after \\u" },
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(fails_at(cases[i].text, cases[i].len ? cases[i].len : strlen(cases[i].text), NULL,
                       cases[i].line, cases[i].col, cases[i].want));
}

/* cJSON's error offset is not always where the error is: where a key is
 * due it points one past the token, and at the end of the text it points
 * at the last byte. The position and the words still come out right. */
static void test_errors_where_cjson_stops_elsewhere(void)
{
    static const struct {
        const char *text;
        uint32_t col;
        const char *want;
    } cases[] = {
        { "{\"a\":1,,\"b\":2}", 8, "expected a string key, got ','" },
        { "{1:2}", 2, "expected a string key or '}', got '1'" },
        { "{\"a\":1,]", 8, "expected a string key, got ']'" },
        { "{\"a\":1,", 8, "expected a string key, got end of input" },
        { "{\"a\"", 5, "expected ':' after object key" },
        { "[1,2", 5, "expected ',' or ']' after array element" },
        { "[1,", 4, "expected a value, got end of input" },
        { "{\"a\":", 6, "expected a value, got end of input" },
        { "[1e5", 5, "expected ',' or ']' after array element" },
        { "[true false]", 7, "expected ',' or ']' after array element" },
        { "{\"a\":1}}", 8, "unexpected '}' after the JSON value" },
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(fails(cases[i].text, 1, cases[i].col, cases[i].want));
}

/* A number of any length is read whole (upstream cJSON 1.7.15 read only
 * its first 63 characters; Debian's build has the fix of CVE-2023-26819). */
static void test_long_number(void)
{
    static const struct {
        const char *head;           /* then 300 zeros, then tail */
        const char *tail;
        double want;
    } cases[] = {
        { "[1.", "25]", 1.0 },       /* 1.000...00025 */
        { "[0.", "1e300]", 0.1 },    /* 0.000...0001e300 */
        { "[1", "]", 1e300 },        /* an integer too long for int64 */
    };
    char text[400];
    size_t k;

    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct sj_error err;
        struct sj_doc *doc;
        double d = 0;
        int64_t i = 0;

        snprintf(text, sizeof text, "%s%0300d%s", cases[k].head, 0, cases[k].tail);
        doc = parse_str(text, &err);
        CHECK(doc != NULL && sj_as_double(sj_at(sj_doc_root(doc), 0), &d) &&
              fabs(d - cases[k].want) <= 1e-15 * cases[k].want);
        CHECK(doc != NULL && !sj_as_int64(sj_at(sj_doc_root(doc), 0), &i));
        sj_doc_free(doc);
    }
}

static void test_errors_duplicate_keys(void)
{
    struct sj_error err;
    struct sj_doc *doc;

    CHECK(fails("{\"a\":1,\n \"b\":2,\n \"a\":3}", 3, 2,
                "duplicate key \"a\" (first at line 1, column 2)"));
    /* Equal after unescaping is equal. */
    CHECK(fails("{\"ab\":1,\"a\\u0062\":2}", 1, 9, "duplicate key \"ab\""));
    CHECK(fails("[{\"x\":{},\"y\":[{\"k\":1,\"k\":2}]}]", 1, 22, "duplicate key \"k\""));
    /* The same key in different objects is fine, and so are keys that
     * differ only after an embedded NUL. */
    doc = parse_str("{\"x\":{\"a\":1},\"y\":{\"a\":2},\"a\":{\"a\":{\"a\":3}},"
                    "\"k\\u0000\":1,\"k\":2}",
                    &err);
    CHECK(doc != NULL);
    sj_doc_free(doc);
}

/* Enough members to make the duplicate check's hash set grow many times. */
static void test_large_object(void)
{
    enum { N = 50000 };
    size_t cap = (size_t)N * 24u + 16u, len = 0;
    char *text = malloc(cap);
    struct sj_error err;
    struct sj_doc *doc;
    const struct sj_value *last;
    int64_t i = 0;
    int k;

    CHECK(text != NULL);
    if (text == NULL)
        return;
    text[len++] = '{';
    for (k = 0; k < N; k++)
        len += (size_t)snprintf(text + len, cap - len, "%s\"k%d\":%d", k ? "," : "", k, k);
    text[len++] = '}';
    doc = sj_parse(text, len, NULL, &err);
    CHECK(doc != NULL && sj_len(sj_doc_root(doc)) == N);
    last = sj_at(sj_doc_root(doc), N - 1);
    CHECK(last != NULL && sj_as_int64(last, &i) && i == N - 1);
    CHECK(sj_get(sj_doc_root(doc), "k31337") != NULL);
    sj_doc_free(doc);

    /* The same with the last key repeating the first. */
    len -= 1;
    len += (size_t)snprintf(text + len, cap - len, ",\"k0\":0}");
    CHECK(fails_at(text, len, NULL, 1, (uint32_t)(len - 6), "duplicate key \"k0\" (first at "
                                                             "line 1, column 2)"));
    free(text);
}

static void test_limits(void)
{
    char text[200];
    struct sj_limits lim = { 0, 0 };
    struct sj_error err;
    struct sj_doc *doc;
    int k;

    /* 64 nested arrays parse by default; 65 do not. */
    for (k = 0; k < 64; k++) {
        text[k] = '[';
        text[64 + k] = ']';
    }
    doc = sj_parse(text, 128, NULL, &err);
    CHECK(doc != NULL);
    sj_doc_free(doc);
    for (k = 0; k < 65; k++) {
        text[k] = '[';
        text[65 + k] = ']';
    }
    CHECK(fails_at(text, 130, NULL, 1, 65, "nesting deeper than 64 levels"));
    memcpy(text, "{\"a\":{\"b\":[]}}", 15);
    lim.max_depth = 2;
    CHECK(fails_at(text, 14, &lim, 1, 11, "nesting deeper than 2 levels"));
    lim.max_depth = 3;
    doc = sj_parse(text, 14, &lim, &err);
    CHECK(doc != NULL);
    sj_doc_free(doc);

    /* Deeper limits stop at SJ_MAX_DEPTH_CAP, which is cJSON's own limit:
     * the error is ours, at the first bracket too deep. */
    {
        enum { D = SJ_MAX_DEPTH_CAP + 1 };
        static char deep[2 * D];

        lim.max_depth = 5000;
        memset(deep, '[', D);
        memset(deep + D, ']', D);
        doc = sj_parse(deep + 1, 2 * (D - 1), &lim, &err);
        CHECK(doc != NULL);
        sj_doc_free(doc);
        CHECK(fails_at(deep, 2 * D, &lim, 1, D, "nesting deeper than 1000 levels"));
    }

    /* Size: checked before anything is parsed, so without a position. */
    lim.max_depth = 0;
    lim.max_size = 4;
    doc = sj_parse("[1,2]", 5, &lim, &err);
    CHECK(doc == NULL && err.line == 0 && err.column == 0);
    CHECK(strcmp(err.msg, "input is 5 bytes, more than the limit of 4") == 0);
    doc = sj_parse("[12]", 4, &lim, &err);
    CHECK(doc != NULL);
    sj_doc_free(doc);
}

static void test_parse_file(void)
{
    char path[] = "/tmp/moteip-test-json-XXXXXX";
    struct sj_limits lim = { 0, 8 };
    struct sj_error err;
    struct sj_doc *doc;
    int fd = mkstemp(path);
    FILE *f;

    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    fputs("{\"nodes\": [1,\n 2,]}", f);
    fclose(f);
    doc = sj_parse_file(path, NULL, &err);
    CHECK(doc == NULL && strcmp(err.msg, "line 2, column 3: trailing comma before ']'") == 0);
    doc = sj_parse_file(path, &lim, &err);
    CHECK(doc == NULL && strcmp(err.msg, "file is larger than the limit of 8 bytes") == 0);

    f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    fputs("{\"nodes\": [1, 2]}\n", f);
    fclose(f);
    doc = sj_parse_file(path, NULL, &err);
    CHECK(doc != NULL && sj_len(sj_get(sj_doc_root(doc), "nodes")) == 2);
    sj_doc_free(doc);
    remove(path);

    doc = sj_parse_file(path, NULL, &err);
    CHECK(doc == NULL && err.line == 0);
    CHECK(strcmp(err.msg, "cannot open: No such file or directory") == 0);
}

/* ----------------------------------------------------------------- writer */

/* What the writer produced into f, as a string in buf. */
static const char *contents(FILE *f, char *buf, size_t size)
{
    size_t n;

    rewind(f);
    n = fread(buf, 1, size - 1u, f);
    buf[n] = '\0';
    return buf;
}

static void test_writer_compact(void)
{
    FILE *f = tmpfile();
    struct sj_writer w;
    char buf[512];

    CHECK(f != NULL);
    if (f == NULL)
        return;
    sj_writer_init(&w, f, 0);
    sj_w_begin_object(&w);
    sj_w_key(&w, "a");
    sj_w_int(&w, 1);
    sj_w_key(&w, "b");
    sj_w_begin_array(&w);
    sj_w_bool(&w, true);
    sj_w_bool(&w, false);
    sj_w_null(&w);
    sj_w_end_array(&w);
    sj_w_key(&w, "c");
    sj_w_begin_object(&w);
    sj_w_end_object(&w);
    sj_w_key(&w, "d");
    sj_w_begin_array(&w);
    sj_w_end_array(&w);
    sj_w_key(&w, "u");
    sj_w_uint(&w, UINT64_MAX);
    sj_w_key(&w, "min");
    sj_w_int(&w, INT64_MIN);
    sj_w_key(&w, "s");
    sj_w_string(&w, "x\"y\\z/\n");
    sj_w_end_object(&w);
    CHECK_EQ(sj_writer_finish(&w), 0);
    CHECK(sj_writer_error(&w) == NULL);
    CHECK(strcmp(contents(f, buf, sizeof buf),
                 "{\"a\":1,\"b\":[true,false,null],\"c\":{},\"d\":[],"
                 "\"u\":18446744073709551615,\"min\":-9223372036854775808,"
                 "\"s\":\"x\\\"y\\\\z/\\n\"}") == 0);
    fclose(f);
}

static void test_writer_pretty(void)
{
    FILE *f = tmpfile();
    struct sj_writer w;
    char buf[512];

    CHECK(f != NULL);
    if (f == NULL)
        return;
    sj_writer_init(&w, f, 2);
    sj_w_begin_object(&w);
    sj_w_key(&w, "flows");
    sj_w_begin_array(&w);
    sj_w_begin_object(&w);
    sj_w_key(&w, "id");
    sj_w_int(&w, 0);
    sj_w_key(&w, "pdr");
    sj_w_double(&w, 0.97);
    sj_w_end_object(&w);
    sj_w_int(&w, 7);
    sj_w_end_array(&w);
    sj_w_key(&w, "empty");
    sj_w_begin_object(&w);
    sj_w_end_object(&w);
    sj_w_key(&w, "none");
    sj_w_begin_array(&w);
    sj_w_end_array(&w);
    sj_w_end_object(&w);
    CHECK_EQ(sj_writer_finish(&w), 0);
    CHECK(strcmp(contents(f, buf, sizeof buf), "{\n"
                                               "  \"flows\": [\n"
                                               "    {\n"
                                               "      \"id\": 0,\n"
                                               "      \"pdr\": 0.97\n"
                                               "    },\n"
                                               "    7\n"
                                               "  ],\n"
                                               "  \"empty\": {},\n"
                                               "  \"none\": []\n"
                                               "}") == 0);
    fclose(f);

    /* A scalar is a whole document too. */
    f = tmpfile();
    CHECK(f != NULL);
    if (f == NULL)
        return;
    sj_writer_init(&w, f, 4);
    sj_w_string(&w, "only");
    CHECK_EQ(sj_writer_finish(&w), 0);
    CHECK(strcmp(contents(f, buf, sizeof buf), "\"only\"") == 0);
    fclose(f);
}

static void test_writer_numbers(void)
{
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        { 0.1, "0.1" },
        { 1.0 / 3.0, "0.333333333333333" },
        { 100.0, "100" },
        { -0.0, "-0" },
        { 1234.567891, "1234.567891" },
        { 1e21, "1e+21" },
        { 1.5e-7, "1.5e-07" },
        { 123456789012345678.0, "1.23456789012346e+17" },
        { 0.97, "0.97" },
        { 1.7976931348623157e308, "1.7976931348623157e+308" },
        { 1.79769313486231e308, "1.79769313486231e+308" },
    };
    FILE *f;
    struct sj_writer w;
    char buf[512], want[512];
    size_t i, n = 0;

    f = tmpfile();
    CHECK(f != NULL);
    if (f == NULL)
        return;
    sj_writer_init(&w, f, 0);
    sj_w_begin_array(&w);
    n += (size_t)snprintf(want + n, sizeof want - n, "[");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sj_w_double(&w, cases[i].v);
        n += (size_t)snprintf(want + n, sizeof want - n, "%s%s", i ? "," : "", cases[i].want);
    }
    sj_w_double(&w, NAN);
    sj_w_double(&w, INFINITY);
    sj_w_double(&w, -INFINITY);
    snprintf(want + n, sizeof want - n, ",null,null,null]");
    sj_w_end_array(&w);
    CHECK_EQ(sj_writer_finish(&w), 0);
    contents(f, buf, sizeof buf);
    if (strcmp(buf, want) != 0)
        fprintf(stderr, "  got  %s\n  want %s\n", buf, want);
    CHECK(strcmp(buf, want) == 0);
    fclose(f);
}

static void test_writer_string_escaping(void)
{
    FILE *f = tmpfile();
    struct sj_writer w;
    char buf[512];

    CHECK(f != NULL);
    if (f == NULL)
        return;
    sj_writer_init(&w, f, 0);
    sj_w_begin_array(&w);
    sj_w_string(&w, "\b\f\n\r\t\x01\x1f\x7f");
    sj_w_string_n(&w, "a\0b", 3);
    sj_w_string(&w, "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
    /* Not UTF-8: a lone continuation, a bad lead, an overlong, a surrogate
     * and a sequence cut short by the end. */
    sj_w_string(&w, "\x80|\xFF|\xC0\xAF|\xED\xA0\x80|\xE2\x82");
    sj_w_end_array(&w);
    CHECK_EQ(sj_writer_finish(&w), 0);
    contents(f, buf, sizeof buf);
    CHECK(strcmp(buf, "[\"\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\",\"a\\u0000b\","
                      "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\","
                      "\"\\ufffd|\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|"
                      "\\ufffd\\ufffd\"]") == 0);
    fclose(f);
}

/* What the writer writes, the reader reads back unchanged. */
static void test_writer_round_trip(void)
{
    FILE *f = tmpfile();
    struct sj_writer w;
    char buf[512];
    struct sj_error err;
    struct sj_doc *doc;
    const struct sj_value *root;
    size_t len;
    double d;
    int64_t i;

    CHECK(f != NULL);
    if (f == NULL)
        return;
    sj_writer_init(&w, f, 3);
    sj_w_begin_object(&w);
    sj_w_key_n(&w, "k\0\x01", 3);
    sj_w_string_n(&w, "\"\\\x1f\xF0\x9F\x98\x80\0", 8);
    sj_w_key(&w, "d");
    sj_w_double(&w, 2.0 / 3.0);
    sj_w_key(&w, "i");
    sj_w_int(&w, INT64_MIN);
    sj_w_end_object(&w);
    CHECK_EQ(sj_writer_finish(&w), 0);
    contents(f, buf, sizeof buf);
    doc = parse_str(buf, &err);
    CHECK(doc != NULL);
    root = sj_doc_root(doc);
    CHECK(sj_len(root) == 3 && sj_at(root, 0)->key_len == 3 &&
          memcmp(sj_at(root, 0)->key, "k\0\x01", 3) == 0);
    CHECK(sj_as_string(sj_at(root, 0), &len) != NULL && len == 8 &&
          memcmp(sj_at(root, 0)->u.str.s, "\"\\\x1f\xF0\x9F\x98\x80\0", 8) == 0);
    CHECK(sj_as_double(sj_get(root, "d"), &d) && fabs(d - 2.0 / 3.0) < 1e-15);
    CHECK(sj_as_int64(sj_get(root, "i"), &i) && i == INT64_MIN);
    sj_doc_free(doc);
    fclose(f);
}

static void misuse_case(int which, const char *want)
{
    FILE *f = tmpfile();
    struct sj_writer w;
    int k;

    CHECK(f != NULL);
    if (f == NULL)
        return;
    sj_writer_init(&w, f, 0);
    switch (which) {
    case 0: /* value without key */
        sj_w_begin_object(&w);
        sj_w_int(&w, 1);
        sj_w_end_object(&w);
        break;
    case 1: /* key at top level */
        sj_w_key(&w, "a");
        break;
    case 2: /* key in an array */
        sj_w_begin_array(&w);
        sj_w_key(&w, "a");
        sj_w_end_array(&w);
        break;
    case 3: /* two keys in a row */
        sj_w_begin_object(&w);
        sj_w_key(&w, "a");
        sj_w_key(&w, "b");
        break;
    case 4: /* mismatched end */
        sj_w_begin_object(&w);
        sj_w_end_array(&w);
        break;
    case 5: /* dangling key */
        sj_w_begin_object(&w);
        sj_w_key(&w, "a");
        sj_w_end_object(&w);
        break;
    case 6: /* unclosed */
        sj_w_begin_array(&w);
        sj_w_begin_object(&w);
        sj_w_end_object(&w);
        break;
    case 7: /* nothing */
        break;
    case 8: /* two documents */
        sj_w_int(&w, 1);
        sj_w_int(&w, 2);
        break;
    case 9: /* too deep */
        for (k = 0; k <= SJ_WRITER_MAX_DEPTH; k++)
            sj_w_begin_array(&w);
        for (k = 0; k <= SJ_WRITER_MAX_DEPTH; k++)
            sj_w_end_array(&w);
        break;
    default: /* end without begin */
        sj_w_end_object(&w);
        break;
    }
    CHECK_EQ(sj_writer_finish(&w), -1);
    if (sj_writer_error(&w) == NULL || strcmp(sj_writer_error(&w), want) != 0)
        fprintf(stderr, "  misuse %d: got %s, want %s\n", which,
                sj_writer_error(&w) ? sj_writer_error(&w) : "(none)", want);
    CHECK(sj_writer_error(&w) != NULL && strcmp(sj_writer_error(&w), want) == 0);
    fclose(f);
}

static void test_writer_misuse(void)
{
    misuse_case(0, "value in an object without a key");
    misuse_case(1, "key outside an object");
    misuse_case(2, "key outside an object");
    misuse_case(3, "key where a value is due");
    misuse_case(4, "end_array without a matching begin_array");
    misuse_case(5, "key without a value at end_object");
    misuse_case(6, "unclosed array or object");
    misuse_case(7, "nothing written");
    misuse_case(8, "more than one top-level value");
    misuse_case(9, "nesting deeper than SJ_WRITER_MAX_DEPTH");
    misuse_case(10, "end_object without a matching begin_object");
}

static void test_writer_io_error(void)
{
    FILE *f = fopen("/dev/full", "w");
    struct sj_writer w;
    int k;

    if (f == NULL) {
        printf("     (no /dev/full; I/O error check skipped)\n");
        return;
    }
    sj_writer_init(&w, f, 0);
    sj_w_begin_array(&w);
    for (k = 0; k < 10000; k++)
        sj_w_string(&w, "filling the stdio buffer until a write reaches the device");
    sj_w_end_array(&w);
    CHECK_EQ(sj_writer_finish(&w), -1);
    CHECK(sj_writer_error(&w) != NULL &&
          strcmp(sj_writer_error(&w), "write error: No space left on device") == 0);
    fclose(f);
}

int main(void)
{
    RUN(test_every_type);
    RUN(test_scalar_roots_and_whitespace);
    RUN(test_string_escapes);
    RUN(test_numbers);
    RUN(test_numbers_under_comma_locale);
    RUN(test_paths);
    RUN(test_describe);
    RUN(test_errors_structure);
    RUN(test_errors_literals_and_numbers);
    RUN(test_errors_strings);
    RUN(test_errors_cjson_is_laxer);
    RUN(test_errors_where_cjson_stops_elsewhere);
    RUN(test_long_number);
    RUN(test_errors_duplicate_keys);
    RUN(test_large_object);
    RUN(test_limits);
    RUN(test_parse_file);
    RUN(test_writer_compact);
    RUN(test_writer_pretty);
    RUN(test_writer_numbers);
    RUN(test_writer_string_escaping);
    RUN(test_writer_round_trip);
    RUN(test_writer_misuse);
    RUN(test_writer_io_error);
    return TESTING_DONE();
}
