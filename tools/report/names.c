/* SPDX-License-Identifier: BSD-2-Clause */
/* Frame names, each stored once and numbered in the order first seen:
 * the number is the pprof function and location id less one, and lets
 * the two sides of a diff compare frames as integers. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static uint64_t names_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static size_t *names_slot(const struct names *t, const char *s, size_t len)
{
	size_t i = (size_t)names_hash(s, len) & (t->nslots - 1);

	for (;; i = (i + 1) & (t->nslots - 1)) {
		size_t *slot = &t->slot[i];
		const char *have;

		if (!*slot)
			return slot;
		have = t->str[*slot - 1];
		if (strncmp(have, s, len) == 0 && have[len] == '\0')
			return slot;
	}
}

static void names_grow(struct names *t)
{
	size_t old = t->nslots;
	size_t *old_slot = t->slot;

	t->nslots = old ? old * 2 : 1024;
	t->slot = xcalloc(t->nslots, sizeof *t->slot);
	for (size_t i = 0; i < old; i++) {
		if (old_slot[i]) {
			const char *s = t->str[old_slot[i] - 1];

			*names_slot(t, s, strlen(s)) = old_slot[i];
		}
	}
	free(old_slot);
}

size_t names_intern(struct names *t, const char *s, size_t len)
{
	size_t *slot;
	char *copy;

	if ((t->n + 1) * 2 > t->nslots)
		names_grow(t);
	slot = names_slot(t, s, len);
	if (*slot)
		return *slot - 1;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->str = xrealloc(t->str, t->cap * sizeof *t->str);
	}
	copy = xmalloc(len + 1);
	memcpy(copy, s, len);
	copy[len] = '\0';
	t->str[t->n] = copy;
	*slot = ++t->n;
	return t->n - 1;
}

size_t names_find(const struct names *t, const char *s)
{
	size_t *slot;

	if (!t->nslots)
		return (size_t)-1;
	slot = names_slot(t, s, strlen(s));
	return *slot ? *slot - 1 : (size_t)-1;
}

void names_free(struct names *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->str[i]);
	free(t->str);
	free(t->slot);
	memset(t, 0, sizeof *t);
}
