/*
 * Internal to sim/json.c and sim/json_write.c: the text helpers the reader's
 * error messages and the writer share, so a value in an error reads as the
 * writer would write it. Not for other files; the contract is json.h.
 */
#ifndef MOTEIP_SIM_JSON_TEXT_H
#define MOTEIP_SIM_JSON_TEXT_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 if it is not one (json.c). */
size_t sj_utf8_seq_len(const unsigned char *p, size_t avail);

/* How the writer spells the character at p: NULL when its *n bytes go out
 * verbatim, else the escape to write instead (tmp holds a \uXXXX one);
 * invalid UTF-8 becomes \ufffd, one byte at a time (json_write.c). */
const char *sj_json_escape(const unsigned char *p, size_t avail, size_t *n, char tmp[8]);

/* d as printf("%.15g") (17 digits where 15 would read back as infinity),
 * with '.' whatever the locale; returns the length written to out
 * (json_write.c). */
size_t sj_format_double(double d, char out[40]);

#endif
