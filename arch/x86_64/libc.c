/* SPDX-License-Identifier: BSD-2-Clause */
/* The four libc functions gcc may emit calls to even in freestanding
 * code (struct copies, large initialisers).  src/ never calls them by
 * name: it has kmemcpy and friends.  String instructions keep gcc from
 * recognising a loop here and calling the function being defined. */
#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;

	__asm__ volatile("rep movsb"
			 : "+D"(d), "+S"(src), "+c"(n) : : "memory");
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	const char *s = src;
	char *d = dst;

	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);
	/* Overlap with dst above src: copy from the end down. */
	s += n - 1;
	d += n - 1;
	__asm__ volatile("std; rep movsb; cld"
			 : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	void *d = dst;

	__asm__ volatile("rep stosb"
			 : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;

	for (size_t i = 0; i < n; i++)
		if (p[i] != q[i])
			return p[i] < q[i] ? -1 : 1;
	return 0;
}
