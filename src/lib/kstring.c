/* SPDX-License-Identifier: BSD-2-Clause */
#include "lib/kstring.h"

#include <stdint.h>

void *kmemcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

void *kmemset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

int kmemcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x < *y ? -1 : 1;
	return 0;
}

size_t kstrlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t kstrnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int kstrcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

bool kstreq(const char *a, const char *b)
{
	return kstrcmp(a, b) == 0;
}

bool kstarts_with(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return false;
	return true;
}

size_t kstrlcpy(char *dst, const char *src, size_t size)
{
	size_t len = kstrlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;
		kmemcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

const void *kmemchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (; n; n--, p++)
		if (*p == (unsigned char)c)
			return p;
	return NULL;
}
