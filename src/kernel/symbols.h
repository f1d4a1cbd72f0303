/* SPDX-License-Identifier: BSD-2-Clause */
/* The image's own symbol table: address -> function name, and address ->
 * the rule that finds the caller's frame (the CFA rule of the compiler's
 * call-frame information).  The build bakes it into every image that opts
 * in (three-pass link, tools/kp-link3); tests may install their own. */
#ifndef KPROF_KERNEL_SYMBOLS_H
#define KPROF_KERNEL_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One function: [base + start, base + start + size). */
struct sym_entry {
	uint32_t start;		/* offset from the table's base */
	uint32_t size;
	uint32_t name;		/* offset into the string pool */
};

/* How the CFA (the caller's sp just before its call) is found. */
enum sym_cfa_reg {
	SYM_CFA_UNKNOWN = 0,	/* no call-frame information: walk as before */
	SYM_CFA_SP,		/* CFA = sp + offset: no frame set up here */
	SYM_CFA_FP,		/* CFA = fp + offset: the frame is set up */
};

/* One run of code sharing a CFA rule: [base + start, base + next start).
 * The last entry of a table is always SYM_CFA_UNKNOWN and ends coverage. */
struct sym_cfa {
	uint32_t start;		/* offset from the table's base */
	int16_t offset;		/* CFA = reg + offset */
	int8_t ra;		/* return address saved at CFA + ra; 0: still
				 * in the link register (arm64) */
	uint8_t reg;		/* enum sym_cfa_reg */
};

struct sym_table {
	uintptr_t base;			/* address offsets are relative to */
	const struct sym_entry *entries;	/* sorted by start, no overlap */
	size_t count;
	const char *strings;
	const struct sym_cfa *cfa;	/* sorted by start; may be NULL */
	size_t ncfa;
};


/* The image's own table, emitted by the build (tools/kp-symgen); empty in
 * the first link pass and in programs that do not opt in
 * (tests/kit/fake_symtab.c). */
extern const struct sym_table kp_symtab;

struct sym_hit {
	const char *name;
	uintptr_t start;	/* absolute address of the symbol */
	uint32_t size;
};

/* The symbol covering @addr, or false when none does.  Any context;
 * never faults, never locks. */
bool sym_lookup(uintptr_t addr, struct sym_hit *hit);

/* The first function named @name, by a walk of the whole table (the
 * probes' commands: task context).  False when none is. */
bool sym_find(const char *name, struct sym_hit *hit);
/* The table's functions, by address: sym_nth(i) for i < sym_count(). */
size_t sym_count(void);
void sym_nth(size_t i, struct sym_hit *hit);

/* sym_lookup() for a caller that caches its answers: the symbol covering
 * @addr, or (hit->name NULL) the run of addresses around it that the
 * table's offsets reach and no symbol covers, at least @addr itself.
 * Any context; never faults, never locks. */
void sym_lookup_range(uintptr_t addr, struct sym_hit *hit);

/* Answers of sym_lookup_range() a caller keeps (see sym_cache_lookup()). */
#define SYM_CACHE_ENTRIES 128

struct sym_cache_entry {
	uintptr_t start;		/* the symbol's, or the gap's */
	uint32_t size;			/* 0: an empty entry */
	const char *name;		/* NULL: no symbol covers it */
};

/* A cache of lookups for a caller that asks for the same few addresses
 * over and over: the fold, for each sample's leaf.  All zeros is empty.
 * It answers from the table in use when it was filled: a caller that
 * keeps one across a change of table (sym_use_table()) empties it. */
struct sym_cache {
	struct sym_cache_entry e[SYM_CACHE_ENTRIES];
};

/* sym_cache_lookup()'s miss: looks @addr up in the table and keeps the
 * answer first in the pair of entries @e, the older one second. */
void sym_cache_fill(struct sym_cache_entry *e, uintptr_t addr);

static inline bool sym_cache_covers(const struct sym_cache_entry *e,
				    uintptr_t addr)
{
	return addr - e->start < e->size;
}

/* The symbol covering @addr (hit->name, start and size), or hit->name
 * NULL and hit->start @addr, hit->size 1, when none does: sym_lookup()'s
 * answer, mostly without a search of the table.  Leaves repeat (a hot
 * loop is sampled at a few addresses): two ways per 16-byte block, the
 * last found first (with one way, hot blocks that shared a slot evicted
 * each other).  A miss keeps the symbol, or the whole gap between
 * symbols (sym_lookup_range()): addresses in the padding after a short
 * function otherwise searched the table again at every new offset.
 * Inline: the fold asks once per sample.  Any context; never faults,
 * never locks; the caller owns @c. */
static inline void sym_cache_lookup(struct sym_cache *c, uintptr_t addr,
				    struct sym_hit *hit)
{
	uint64_t block = addr >> 4;
	size_t set = (size_t)((block * 0x9e3779b97f4a7c15ull) >> 32) %
		     (SYM_CACHE_ENTRIES / 2) * 2;
	struct sym_cache_entry *e = &c->e[set];

	if (!sym_cache_covers(&e[0], addr)) {
		if (sym_cache_covers(&e[1], addr)) {
			struct sym_cache_entry t = e[1];

			e[1] = e[0];
			e[0] = t;
		} else {
			sym_cache_fill(e, addr);
		}
	}
	hit->name = e[0].name;
	hit->start = e[0].name ? e[0].start : addr;
	hit->size = e[0].name ? e[0].size : 1;
}

/* Resolve a frame: a return address (@is_return) is looked up at
 * addr - 1 — a call that ends a function would otherwise resolve to the
 * next one — and *off is the offset of addr itself, the byte after the
 * call.  Frame 0, an interrupted instruction, is looked up as it is.
 * False when no symbol covers it. */
bool sym_resolve(uintptr_t addr, bool is_return, struct sym_hit *hit,
		 uintptr_t *off);

/* Resolve a frame for printing, as sym_resolve() does.  Writes
 * "name+0xoff" or "0x<addr>" when no symbol covers it. */
void sym_format(char *buf, size_t size, uintptr_t addr, bool is_return);

/* True when @addr lies inside the image the table describes: from its
 * base to the end of its last symbol.  An address inside with no symbol
 * covering it is still the image's (a gap, hand-written code).  Any
 * context; never faults. */
bool sym_in_image(uintptr_t addr);

/* The image's span as sym_in_image() sees it: @addr is inside when
 * *lo <= addr < *hi (both 0 for an empty table).  For a caller testing
 * many addresses at once; any context. */
void sym_image_span(uintptr_t *lo, uintptr_t *hi);

/* The CFA rule in force at @addr (an instruction address, looked up as it
 * is): *rule gets a copy of the table's entry.  Returns the rule's
 * register, SYM_CFA_UNKNOWN when no rule covers @addr.
 * Any context, including the profiler's NMI; never faults. */
enum sym_cfa_reg sym_cfa_lookup(uintptr_t addr, struct sym_cfa *rule);

#endif
