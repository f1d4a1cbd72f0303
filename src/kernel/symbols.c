/* SPDX-License-Identifier: BSD-2-Clause */
#include "kernel/symbols.h"

#include "lib/fmt.h"

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

bool sym_lookup(uintptr_t addr, struct sym_hit *hit)
{
	const struct sym_table *t = active_table;
	size_t lo = 0, hi = t->count;
	uint32_t off;

	if (!sym_offset_of(t, addr, &off))
		return false;
	/* The last entry whose start is <= off. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->entries[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	const struct sym_entry *e = &t->entries[lo - 1];
	if (off - e->start >= e->size)
		return false;
	hit->name = t->strings + e->name;
	hit->start = t->base + e->start;
	hit->size = e->size;
	return true;
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
