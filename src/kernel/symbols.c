/* SPDX-License-Identifier: BSD-2-Clause */
#include "kernel/symbols.h"
#include "kernel/symbols_test.h"

#include "lib/fmt.h"
#include "lib/kstring.h"

static const struct sym_table *active_table = &kp_symtab;

void sym_use_table(const struct sym_table *t)
{
	active_table = t ? t : &kp_symtab;
}

/* @addr as an offset from the table's base; false when it cannot be one. */
static bool sym_offset_of(const struct sym_table *t, uintptr_t addr,
			  uint32_t *off)
{
	if (addr < t->base || addr - t->base > UINT32_MAX)
		return false;
	*off = (uint32_t)(addr - t->base);
	return true;
}

/* How many entries start at or below @off: the last of them is the only
 * one that may cover it. */
static size_t sym_entries_upto(const struct sym_table *t, uint32_t off)
{
	size_t lo = 0, hi = t->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->entries[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The symbol covering offset @off into hit; false when none does, with
 * *n the number of entries starting at or below @off. */
static bool sym_entry_at(const struct sym_table *t, uint32_t off,
			 struct sym_hit *hit, size_t *n)
{
	const struct sym_entry *e;

	*n = sym_entries_upto(t, off);
	if (*n == 0)
		return false;
	e = &t->entries[*n - 1];
	if (off - e->start >= e->size)
		return false;
	hit->name = t->strings + e->name;
	hit->start = t->base + e->start;
	hit->size = e->size;
	return true;
}

bool sym_lookup(uintptr_t addr, struct sym_hit *hit)
{
	const struct sym_table *t = active_table;
	uint32_t off;
	size_t n;

	return sym_offset_of(t, addr, &off) && sym_entry_at(t, off, hit, &n);
}

void sym_lookup_range(uintptr_t addr, struct sym_hit *hit)
{
	const struct sym_table *t = active_table;
	uint64_t gap_lo, gap_hi;
	uint32_t off;
	size_t n;

	if (!sym_offset_of(t, addr, &off)) {
		*hit = (struct sym_hit){ NULL, addr, 1 };
		return;
	}
	if (sym_entry_at(t, off, hit, &n))
		return;
	*hit = (struct sym_hit){ NULL, addr, 1 };
	gap_lo = n ? (uint64_t)t->entries[n - 1].start + t->entries[n - 1].size : 0;
	gap_hi = n < t->count ? t->entries[n].start : (uint64_t)UINT32_MAX + 1;
	if (gap_lo > off || gap_hi <= off || gap_hi - gap_lo > UINT32_MAX)
		return;		/* overlapping entries: only the address */
	hit->start = t->base + (uintptr_t)gap_lo;
	hit->size = (uint32_t)(gap_hi - gap_lo);
}

void sym_cache_fill(struct sym_cache_entry *e, uintptr_t addr)
{
	struct sym_hit hit;

	sym_lookup_range(addr, &hit);
	e[1] = e[0];
	e[0] = (struct sym_cache_entry){ hit.start, hit.size, hit.name };
}

bool sym_in_image(uintptr_t addr)
{
	const struct sym_table *t = active_table;
	const struct sym_entry *last;
	uint32_t off;

	if (!t->count || !sym_offset_of(t, addr, &off))
		return false;
	last = &t->entries[t->count - 1];
	return off < (uint64_t)last->start + last->size;
}

void sym_image_span(uintptr_t *lo, uintptr_t *hi)
{
	const struct sym_table *t = active_table;
	const struct sym_entry *last;

	*lo = *hi = 0;
	if (!t->count)
		return;
	last = &t->entries[t->count - 1];
	*lo = t->base;
	*hi = t->base + last->start + last->size;
}

bool sym_resolve(uintptr_t addr, bool is_return, struct sym_hit *hit,
		 uintptr_t *off)
{
	uintptr_t key = is_return && addr ? addr - 1 : addr;

	if (!sym_lookup(key, hit))
		return false;
	*off = addr - hit->start;
	return true;
}

void sym_format(char *buf, size_t size, uintptr_t addr, bool is_return)
{
	struct sym_hit hit;
	uintptr_t off;

	if (sym_resolve(addr, is_return, &hit, &off))
		ksnprintf(buf, size, "%s+0x%lx", hit.name, (unsigned long)off);
	else
		ksnprintf(buf, size, "0x%lx", (unsigned long)addr);
}

enum sym_cfa_reg sym_cfa_lookup(uintptr_t addr, struct sym_cfa *rule)
{
	const struct sym_table *t = active_table;
	size_t lo = 0, hi = t->ncfa;
	uint32_t off;

	if (!t->cfa || !sym_offset_of(t, addr, &off))
		return SYM_CFA_UNKNOWN;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->cfa[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return SYM_CFA_UNKNOWN;
	*rule = t->cfa[lo - 1];
	switch (rule->reg) {
	case SYM_CFA_SP:
		return SYM_CFA_SP;
	case SYM_CFA_FP:
		return SYM_CFA_FP;
	default:
		return SYM_CFA_UNKNOWN;
	}
}

bool sym_find(const char *name, struct sym_hit *hit)
{
	const struct sym_table *t = active_table;

	for (size_t i = 0; i < t->count; i++)
		if (kstreq(t->strings + t->entries[i].name, name)) {
			hit->name = t->strings + t->entries[i].name;
			hit->start = t->base + t->entries[i].start;
			hit->size = t->entries[i].size;
			return true;
		}
	return false;
}

size_t sym_count(void)
{
	return active_table->count;
}

void sym_nth(size_t i, struct sym_hit *hit)
{
	const struct sym_table *t = active_table;

	hit->name = t->strings + t->entries[i].name;
	hit->start = t->base + t->entries[i].start;
	hit->size = t->entries[i].size;
}
