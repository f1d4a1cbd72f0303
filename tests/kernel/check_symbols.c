/* SPDX-License-Identifier: BSD-2-Clause */
/* Symbols: resolution edges on a constructed table, the table the
 * three-pass link generated for this very binary (a position-independent
 * one), and the three-pass link itself (tools/kp-link3), stable and not. */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel/symbols.h"
#include "kernel/symbols_test.h"
#include "check_main.h"

/* --- a constructed table ------------------------------------------------ */

/* alpha [0x1100, 0x1120), beta [0x1120, 0x1130) right after it, a gap,
 * then gamma [0x1140, 0x1148), the last. */
static const char edge_strings[] = "alpha\0beta\0gamma";
static const struct sym_entry edge_entries[] = {
	{ 0x100, 0x20, 0 },
	{ 0x120, 0x10, 6 },
	{ 0x140, 0x08, 11 },
};
static const struct sym_cfa edge_rules[] = {
	{ 0x100, 8, -8, SYM_CFA_SP },
	{ 0x101, 16, -8, SYM_CFA_FP },
	{ 0x130, 0, 0, SYM_CFA_UNKNOWN },
	{ 0x140, 8, -8, SYM_CFA_SP },
	{ 0x148, 0, 0, SYM_CFA_UNKNOWN },
};
static const struct sym_table edge_table = {
	.base = 0x1000,
	.entries = edge_entries,
	.count = 3,
	.strings = edge_strings,
	.cfa = edge_rules,
	.ncfa = 5,
};

static void use_edges(void)
{
	sym_use_table(&edge_table);
}

static void use_image(void)
{
	sym_use_table(NULL);
}

static const char *fmt(uintptr_t addr, bool is_return)
{
	static char buf[128];

	sym_format(buf, sizeof(buf), addr, is_return);
	return buf;
}

CHECK_TEST("resolve", test_first_symbol_resolves_from_its_first_byte)
{
	ck_assert_str_eq(fmt(0x1100, false), "alpha+0x0");
	ck_assert_str_eq(fmt(0x111f, false), "alpha+0x1f");
}
END_TEST

CHECK_TEST("resolve", test_address_before_first_symbol_prints_as_address)
{
	ck_assert_str_eq(fmt(0x10ff, false), "0x10ff");
	ck_assert_str_eq(fmt(0x1000, false), "0x1000");
	ck_assert_str_eq(fmt(0x10, false), "0x10");	/* below base */
	ck_assert_str_eq(fmt(0, false), "0x0");
}
END_TEST

CHECK_TEST("resolve", test_last_symbol_ends_at_its_size)
{
	ck_assert_str_eq(fmt(0x1147, false), "gamma+0x7");
	ck_assert_str_eq(fmt(0x1148, false), "0x1148");
	ck_assert_str_eq(fmt(0x2000, false), "0x2000");
}
END_TEST

CHECK_TEST("resolve", test_gap_between_symbols_prints_as_address)
{
	ck_assert_str_eq(fmt(0x1130, false), "0x1130");
	ck_assert_str_eq(fmt(0x113f, false), "0x113f");
}
END_TEST

CHECK_TEST("resolve", test_byte_after_function_is_next_function_or_nothing)
{
	/* As frame 0: the instruction there, not the function before it. */
	ck_assert_str_eq(fmt(0x1120, false), "beta+0x0");
	ck_assert_str_eq(fmt(0x1130, false), "0x1130");
}
END_TEST

CHECK_TEST("resolve", test_return_after_last_instruction_resolves_to_caller)
{
	/* A call that ends alpha returns to beta's first byte; one that ends
	 * beta or gamma returns into nothing.  Printed as ra itself. */
	ck_assert_str_eq(fmt(0x1120, true), "alpha+0x20");
	ck_assert_str_eq(fmt(0x1130, true), "beta+0x10");
	ck_assert_str_eq(fmt(0x1148, true), "gamma+0x8");
}
END_TEST

CHECK_TEST("resolve", test_return_to_first_byte_resolves_before_it)
{
	/* ra - 1 lies before every symbol. */
	ck_assert_str_eq(fmt(0x1100, true), "0x1100");
	ck_assert_str_eq(fmt(0x1101, true), "alpha+0x1");
	ck_assert_str_eq(fmt(0, true), "0x0");
}
END_TEST

CHECK_TEST("resolve", test_resolve_gives_symbol_and_offset_of_ra)
{
	struct sym_hit hit;
	uintptr_t off = 99;

	ck_assert(sym_resolve(0x1120, true, &hit, &off));
	ck_assert_str_eq(hit.name, "alpha");
	ck_assert_uint_eq(hit.start, 0x1100);
	ck_assert_uint_eq(hit.size, 0x20);
	ck_assert_uint_eq(off, 0x20);
	ck_assert(sym_resolve(0x1120, false, &hit, &off));
	ck_assert_str_eq(hit.name, "beta");
	ck_assert_uint_eq(off, 0);
	ck_assert(!sym_resolve(0x1130, false, &hit, &off));
}
END_TEST

CHECK_TEST("resolve", test_address_beyond_32_bit_offsets_unresolved)
{
	if (sizeof(uintptr_t) < 8)
		return;
	ck_assert_str_eq(fmt((uintptr_t)0x100001100ull, false), "0x100001100");
}
END_TEST

/* What a cache of lookups may remember: the symbol, or the whole run of
 * addresses no symbol covers; outside the table's offsets only the
 * address itself. */
static void range_of(uintptr_t addr, const char *name, uintptr_t start,
		     uint64_t size)
{
	struct sym_hit hit = { "stale", 0, 0 };

	sym_lookup_range(addr, &hit);
	if (name)
		ck_assert_str_eq(hit.name, name);
	else
		ck_assert_ptr_null(hit.name);
	ck_assert_uint_eq(hit.start, start);
	ck_assert_uint_eq(hit.size, size);
}

CHECK_TEST("resolve", test_lookup_range_gives_symbol_or_gap)
{
	range_of(0x1105, "alpha", 0x1100, 0x20);
	range_of(0x1120, "beta", 0x1120, 0x10);
	range_of(0x1147, "gamma", 0x1140, 0x08);
	range_of(0x1130, NULL, 0x1130, 0x10);	/* between beta and gamma */
	range_of(0x113f, NULL, 0x1130, 0x10);
	range_of(0x1000, NULL, 0x1000, 0x100);	/* before the first */
	range_of(0x10ff, NULL, 0x1000, 0x100);
	range_of(0x1148, NULL, 0x1148, 0x100000000ull - 0x148);	/* after */
	range_of(0x10, NULL, 0x10, 1);		/* below the base */
	if (sizeof(uintptr_t) >= 8)		/* past 32-bit offsets */
		range_of((uintptr_t)0x100001100ull, NULL,
			 (uintptr_t)0x100001100ull, 1);
}
END_TEST

CHECK_TEST("resolve", test_lookup_range_on_empty_table_is_the_address)
{
	static const struct sym_table empty = { .base = 0, .strings = "" };

	/* The gap would be 2^32 bytes, more than a size holds. */
	sym_use_table(&empty);
	range_of(0x1100, NULL, 0x1100, 1);
}
END_TEST

/* The cache's answer for @addr against sym_lookup()'s. */
static void cache_agrees(struct sym_cache *c, uintptr_t addr)
{
	struct sym_hit want, got = { "stale", 0, 0 };

	sym_cache_lookup(c, addr, &got);
	if (sym_lookup(addr, &want)) {
		ck_assert_str_eq(got.name, want.name);
		ck_assert_uint_eq(got.start, want.start);
		ck_assert_uint_eq(got.size, want.size);
	} else {
		ck_assert_ptr_null(got.name);
		ck_assert_uint_eq(got.start, addr);
		ck_assert_uint_eq(got.size, 1);
	}
}

CHECK_TEST("resolve", test_sym_cache_answers_as_lookup)
{
	static struct sym_cache c;

	/* Every address around the table, from an empty cache, then again
	 * from the filled one, then in an order that makes blocks sharing
	 * a set evict each other: symbols, gaps, outside. */
	for (int pass = 0; pass < 2; pass++)
		for (uintptr_t a = 0xf00; a < 0x1200; a++)
			cache_agrees(&c, a);
	for (uintptr_t a = 0; a < 0x300; a++)
		cache_agrees(&c, 0xf00 + (a * 0x61) % 0x300);
	cache_agrees(&c, 0x10);
	if (sizeof(uintptr_t) >= 8)
		cache_agrees(&c, (uintptr_t)0x100001105ull);
}
END_TEST

CHECK_TEST("resolve", test_sym_cache_remembers_the_table_it_read)
{
	static const struct sym_table empty = { .base = 0, .strings = "" };
	static struct sym_cache c;
	struct sym_hit hit;

	sym_cache_lookup(&c, 0x1105, &hit);
	ck_assert_str_eq(hit.name, "alpha");
	/* A cache answers without the table: the symbol is still there for
	 * another address of its block, which the new table lacks. */
	sym_use_table(&empty);
	sym_cache_lookup(&c, 0x110a, &hit);
	ck_assert_str_eq(hit.name, "alpha");
	ck_assert_uint_eq(hit.start, 0x1100);
	/* An emptied cache asks the table in use. */
	memset(&c, 0, sizeof(c));
	sym_cache_lookup(&c, 0x110a, &hit);
	ck_assert_ptr_null(hit.name);
}
END_TEST

CHECK_TEST("resolve", test_empty_table_prints_addresses)
{
	static const struct sym_table empty = { .base = 0, .strings = "" };
	struct sym_cfa r;

	sym_use_table(&empty);
	ck_assert_str_eq(fmt(0x1100, false), "0x1100");
	ck_assert_str_eq(fmt(0x1100, true), "0x1100");
	ck_assert_int_eq(sym_cfa_lookup(0x1100, &r), SYM_CFA_UNKNOWN);
}
END_TEST

CHECK_TEST("resolve", test_cfa_rule_runs_to_next_entry)
{
	struct sym_cfa r;

	ck_assert_int_eq(sym_cfa_lookup(0x10ff, &r), SYM_CFA_UNKNOWN);
	ck_assert_int_eq(sym_cfa_lookup(0x1100, &r), SYM_CFA_SP);
	ck_assert_int_eq(r.offset, 8);
	ck_assert_int_eq(r.ra, -8);
	ck_assert_int_eq(sym_cfa_lookup(0x1101, &r), SYM_CFA_FP);
	ck_assert_int_eq(r.offset, 16);
	ck_assert_int_eq(sym_cfa_lookup(0x112f, &r), SYM_CFA_FP);
	ck_assert_int_eq(sym_cfa_lookup(0x1130, &r), SYM_CFA_UNKNOWN);
	ck_assert_int_eq(sym_cfa_lookup(0x1147, &r), SYM_CFA_SP);
	ck_assert_int_eq(sym_cfa_lookup(0x1148, &r), SYM_CFA_UNKNOWN);
	ck_assert_int_eq(sym_cfa_lookup(0x9000, &r), SYM_CFA_UNKNOWN);
}
END_TEST

/* --- this binary's own table ----------------------------------------------- */

__attribute__((noinline)) int symbols_test_marker(int x);
__attribute__((noinline)) int symbols_test_marker(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

CHECK_TEST("image", test_image_table_resolves_own_functions)
{
	char want[128];

	ck_assert_uint_gt(kp_symtab.count, 0);
	ck_assert_str_eq(fmt((uintptr_t)symbols_test_marker, false),
			 "symbols_test_marker+0x0");
	ck_assert_str_eq(fmt((uintptr_t)symbols_test_marker + 1, false),
			 "symbols_test_marker+0x1");
	/* One from the portable library, one from libc's side of the
	 * process (not in the image: an address). */
	ck_assert_str_eq(fmt((uintptr_t)sym_format, false), "sym_format+0x0");
	snprintf(want, sizeof(want), "0x%lx", (unsigned long)(uintptr_t)strlen);
	ck_assert_str_eq(fmt((uintptr_t)strlen, false), want);
}
END_TEST

#if defined(__x86_64__)
extern const char kpt_leaf[], kpt_framed[], kpt_framed_pushed[],
	kpt_framed_body[], kpt_framed_pop[], kpt_framed_ret[],
	kpt_leaf_sub_body[], kpt_nocfi[], kpt_gap[], kpt_noreturn_caller[],
	kpt_after[], kpt_alias_weak[], kpt_unsized[],
	kpt_last[];

CHECK_TEST("image", test_image_table_follows_fixture_symbols)
{
	char want[64];

	/* Aliases: the global one stays.  Unsized: runs to the next. */
	ck_assert_str_eq(fmt((uintptr_t)kpt_alias_weak, false), "kpt_alias_global+0x0");
	ck_assert_str_eq(fmt((uintptr_t)kpt_unsized + 2, false), "kpt_unsized+0x2");
	ck_assert_str_eq(fmt((uintptr_t)kpt_last, false), "kpt_last+0x0");
	/* Labels are not functions. */
	ck_assert_str_eq(fmt((uintptr_t)kpt_framed_body, false), "kpt_framed+0x4");
	/* The gap after kpt_nocfi belongs to no one. */
	snprintf(want, sizeof(want), "0x%lx", (unsigned long)(uintptr_t)kpt_gap);
	ck_assert_str_eq(fmt((uintptr_t)kpt_gap, false), want);
	ck_assert_str_eq(fmt((uintptr_t)kpt_gap, true), "kpt_nocfi+0x2");
	/* A call that ends kpt_noreturn_caller returns to kpt_after. */
	ck_assert_str_eq(fmt((uintptr_t)kpt_after, true), "kpt_noreturn_caller+0x9");
	ck_assert_str_eq(fmt((uintptr_t)kpt_after, false), "kpt_after+0x0");
}
END_TEST

static void assert_rule(const char *at, const char *label, int reg, int offset)
{
	struct sym_cfa r = { 0, 0, 0, 0 };
	int got = sym_cfa_lookup((uintptr_t)at, &r);

	ck_assert_msg(got == reg, "%s: register %d, want %d", label, got, reg);
	if (reg != SYM_CFA_UNKNOWN) {
		ck_assert_msg(r.offset == offset, "%s: offset %d, want %d",
			      label, r.offset, offset);
		ck_assert_msg(r.ra == -8, "%s: ra at CFA%+d", label, r.ra);
	}
}

CHECK_TEST("image", test_image_table_follows_fixture_cfi)
{
	assert_rule(kpt_leaf, "kpt_leaf", SYM_CFA_SP, 8);
	assert_rule(kpt_framed, "kpt_framed", SYM_CFA_SP, 8);
	assert_rule(kpt_framed_pushed, "kpt_framed_pushed", SYM_CFA_SP, 16);
	assert_rule(kpt_framed_body, "kpt_framed_body", SYM_CFA_FP, 16);
	assert_rule(kpt_framed_pop, "kpt_framed_pop", SYM_CFA_FP, 16);
	assert_rule(kpt_framed_ret, "kpt_framed_ret", SYM_CFA_SP, 8);
	assert_rule(kpt_leaf_sub_body, "kpt_leaf_sub_body", SYM_CFA_SP, 32);
	assert_rule(kpt_nocfi, "kpt_nocfi", SYM_CFA_UNKNOWN, 0);
	assert_rule(kpt_gap, "kpt_gap", SYM_CFA_UNKNOWN, 0);
}
END_TEST
#endif

CHECK_TEST("image", test_image_table_sorted_without_overlap)
{
	const struct sym_table *t = &kp_symtab;

	for (size_t i = 0; i < t->count; i++) {
		ck_assert_uint_gt(t->entries[i].size, 0);
		if (i + 1 < t->count)
			ck_assert_uint_le(t->entries[i].start + t->entries[i].size,
					  t->entries[i + 1].start);
	}
	ck_assert_uint_gt(t->ncfa, 0);
	for (size_t i = 0; i + 1 < t->ncfa; i++)
		ck_assert_uint_lt(t->cfa[i].start, t->cfa[i + 1].start);
	ck_assert_int_eq(t->cfa[t->ncfa - 1].reg, SYM_CFA_UNKNOWN);
}
END_TEST

/* --- the three-pass link ------------------------------------------------- */

static char link_dir[64];

static void write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", link_dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void link_setup(void)
{
	strcpy(link_dir, "/tmp/kp-link3-test.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(link_dir));
	/* pad() grows by one byte per link pass when UNSTABLE is set. */
	write_file("prog.c",
		   "#define S2(x) #x\n#define S(x) S2(x)\n"
		   "void pad(void);\n"
		   "void pad(void) { __asm__ volatile(\".fill \" S(PAD) \", 1, 0x90\"); }\n"
		   "int main(void) { pad(); return 0; }\n");
	write_file("link.sh",
		   "n=$(cat count 2>/dev/null || echo 1)\n"
		   "echo $((n + 1)) > count\n"
		   "test -n \"$UNSTABLE\" || n=1\n"
		   "exec $CC -DPAD=$n -o prog prog.c \"$@\"\n");
}

static void link_teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", link_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", link_dir);
}

/* Run kp-link3 around link.sh in link_dir; its exit status. */
static int run_link3(bool unstable)
{
	char cmd[1024];
	int rc;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && %s CC='%s' sh '%s/tools/kp-link3' --symgen '%s' "
		 "--cc '%s -I%s/src' --out prog -- sh ./link.sh >log 2>&1",
		 link_dir, unstable ? "UNSTABLE=1" : "", KP_TEST_CC,
		 KP_TEST_SRCDIR, KP_TEST_SYMGEN, KP_TEST_CC, KP_TEST_SRCDIR);
	rc = system(cmd);
	ck_assert(WIFEXITED(rc));
	return WEXITSTATUS(rc);
}

static bool dir_has(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", link_dir, name);
	return stat(path, &st) == 0;
}

static bool log_says(const char *name, const char *text)
{
	char path[128], buf[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", link_dir, name);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, text) != NULL;
}

CHECK_TEST("link3", test_link3_stable_link_succeeds_in_three_passes)
{
	char cmd[128];

	ck_assert_int_eq(run_link3(false), 0);
	ck_assert(dir_has("prog"));
	ck_assert(log_says("count", "4"));	/* three links */
	ck_assert(log_says("prog.symtab.c", "\"pad\\0\""));
	ck_assert(log_says("prog.symtab.stats", "bytes per symbol"));
	snprintf(cmd, sizeof(cmd), "'%s/prog'", link_dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

CHECK_TEST("link3", test_link3_tables_that_differ_fail_the_link)
{
	ck_assert_int_eq(run_link3(true), 1);
	ck_assert(!dir_has("prog"));
	ck_assert(log_says("log", "symbol tables of link passes 2 and 3 differ"));
}
END_TEST

CHECK_CASE("resolve", use_edges, use_image, 0);
CHECK_CASE("image", use_image, NULL, 0);
CHECK_CASE("link3", link_setup, link_teardown, 60);

int main(void)
{
	return check_run(check_suite("symbols", NULL, 0));
}
