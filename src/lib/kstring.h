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

#endif
