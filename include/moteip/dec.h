/*
 * Decimal text of a number, without the C library's printf (which no
 * firmware here links): for the apps' and programs' short text replies.
 */
#ifndef MOTEIP_DEC_H
#define MOTEIP_DEC_H

#include <stddef.h>
#include <stdint.h>

/* Writes v in decimal (no sign, no leading zeros, no NUL) to out, which has
 * room for 10 characters; returns how many it wrote (1..10). */
size_t mip_dec_u32(uint32_t v, char *out);

#endif
