/* SPDX-License-Identifier: BSD-2-Clause */
/* Freestanding memory and string helpers.  Prefixed: in the simulator the
 * unprefixed names would replace glibc's. */
#ifndef KPROF_LIB_KSTRING_H
#define KPROF_LIB_KSTRING_H

#include <stdbool.h>
#include <stddef.h>

void *kmemcpy(void *dst, const void *src, size_t n);
void *kmemset(void *dst, int c, size_t n);
int kmemcmp(const void *a, const void *b, size_t n);
size_t kstrlen(const char *s);
size_t kstrnlen(const char *s, size_t max);
int kstrcmp(const char *a, const char *b);
bool kstreq(const char *a, const char *b);
bool kstarts_with(const char *s, const char *prefix);
/* Copy at most size - 1 bytes and always terminate; returns kstrlen(src). */
size_t kstrlcpy(char *dst, const char *src, size_t size);
/* Find @c in the first @n bytes, or NULL. */
const void *kmemchr(const void *s, int c, size_t n);

/* The value of the hex digit @c, either case; -1 when it is not one. */
static inline int khexdigit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
