/* SPDX-License-Identifier: BSD-2-Clause */
/* aarch64 stack walks on the host: tests/kit/stack_fixture_a64.S is
 * assembled and linked by the cross compiler configure found, and
 * tools/kp-symgen turns the image into a64_symtab (tests/kernel/symbols.mk).
 * The walker here is the host's build of src/kernel/stacktrace.c: it
 * reads the stacks this test builds in its own memory, the frame records
 * that fixture code would leave ({x29, x30}, AAPCS64), and looks up
 * frame 0 and the return addresses, which are aarch64 addresses it never
 * dereferences, in the aarch64 table.  So frame-0 recovery from the
 * link register for frameless code is tested against the rules kp-symgen
 * really makes of aarch64 call-frame information, not a constructed one.
 *
 * Without a cross compiler the table is empty and the test exits 77
 * (skipped), saying so. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fake_hal.h"
#include "kernel/backtrace.h"
#include "kernel/sched.h"
#include "kernel/stacktrace.h"
#include "kernel/symbols.h"
#include "kernel/symbols_test.h"
#include "kernel/task.h"
#include "lib/out.h"
#include "check_main.h"

/* tests/kernel/a64_fixture.symtab.c (build folder), from kp-symgen --name a64_symtab. */
extern const struct sym_table a64_symtab;

#define WORDS 512
#define POISON ((uintptr_t)0x5a5a5a5a5a5a5a5aull)
/* What x30 holds once a function has saved it and made a call of its own:
 * anything; the walk must then read the saved copy. */
#define CLOBBERED ((uintptr_t)0x4020dead0ull)

static uintptr_t stk[WORDS] __attribute__((aligned(16)));
static struct task test_task;

static void setup(void)
{
	fake_cpu = 0;
	fake_ncpus = 1;
	for (size_t i = 0; i < WORDS; i++)
		stk[i] = POISON;
	test_task.stack_lo = (uintptr_t)&stk[0];
	test_task.stack_hi = (uintptr_t)&stk[WORDS];
	cpus[0].current = &test_task;
	sym_use_table(&a64_symtab);
}

static void teardown(void)
{
	sym_use_table(NULL);
}

#define AT(i) ((uintptr_t)&stk[i])

/* The aarch64 address of @fn + @off, from the table's own symbols. */
static uintptr_t a64(const char *fn, unsigned off)
{
	const struct sym_table *t = &a64_symtab;

	for (size_t i = 0; i < t->count; i++)
		if (strcmp(t->strings + t->entries[i].name, fn) == 0) {
			ck_assert_msg(off < t->entries[i].size, "%s+%#x is past its end",
				      fn, off);
			return t->base + t->entries[i].start + off;
		}
	ck_abort_msg("%s is not in the aarch64 table", fn);
	return 0;
}

/* The return addresses: the instruction after each bl. */
#define OUTER_RET a64("kpa_outer", 0xc)
#define CALLER_RET a64("kpa_caller", 0xc)

/* The stack of kpa_outer -> kpa_caller -> (frame 0):
 *   stk[OUTER]: kpa_outer's frame record {0, 0}, the end of the chain;
 *   stk[CALLER]: kpa_caller's record {fp = AT(OUTER), lr = OUTER_RET},
 *     at kpa_caller's sp (stp x29, x30, [sp, #-16]!; mov x29, sp) when
 *     it branched to frame 0 with x30 = CALLER_RET;
 *   below it, what frame 0 has done to the stack by its instruction. */
#define OUTER 500
#define CALLER 480

struct a64_state {
	const char *fn;
	unsigned off;
	unsigned below;		/* words frame 0 moved sp below the caller's */
	int rec;		/* words above its sp of its {x29, x30}; -1: none */
	bool own;		/* x29 points at frame 0's own record */
	bool lr_live;		/* x30 still the return address */
	/* The rule the fixture's call-frame information gives here. */
	enum sym_cfa_reg reg;
	int16_t cfa_off;
	int8_t ra;		/* 0: in the link register */
};

static const struct a64_state states[] = {
	{ "kpa_leaf", 0x0, 0, -1, false, true, SYM_CFA_SP, 0, 0 },
	{ "kpa_leaf", 0x4, 0, -1, false, true, SYM_CFA_SP, 0, 0 },
	{ "kpa_framed", 0x0, 0, -1, false, true, SYM_CFA_SP, 0, 0 },
	{ "kpa_framed", 0x4, 2, 0, false, false, SYM_CFA_SP, 16, -8 },
	{ "kpa_framed", 0x8, 2, 0, true, false, SYM_CFA_FP, 16, -8 },
	{ "kpa_framed", 0xc, 2, 0, true, false, SYM_CFA_FP, 16, -8 },
	{ "kpa_framed", 0x10, 0, -1, false, true, SYM_CFA_SP, 0, 0 },
	{ "kpa_leaf_sub", 0x0, 0, -1, false, true, SYM_CFA_SP, 0, 0 },
	{ "kpa_leaf_sub", 0x4, 4, -1, false, true, SYM_CFA_SP, 32, 0 },
	{ "kpa_leaf_sub", 0x8, 4, -1, false, true, SYM_CFA_SP, 32, 0 },
	{ "kpa_leaf_sub", 0xc, 0, -1, false, true, SYM_CFA_SP, 0, 0 },
	{ "kpa_framed_big", 0x0, 0, -1, false, true, SYM_CFA_SP, 0, 0 },
	{ "kpa_framed_big", 0x4, 6, 0, false, false, SYM_CFA_SP, 48, -40 },
	{ "kpa_framed_big", 0x8, 6, 0, true, false, SYM_CFA_FP, 48, -40 },
	{ "kpa_framed_big", 0xc, 6, 0, true, false, SYM_CFA_FP, 48, -40 },
	{ "kpa_framed_big", 0x10, 0, -1, false, true, SYM_CFA_SP, 0, 0 },
	{ "kpa_framed_top", 0x0, 0, -1, false, true, SYM_CFA_SP, 0, 0 },
	{ "kpa_framed_top", 0x4, 6, -1, false, true, SYM_CFA_SP, 48, 0 },
	{ "kpa_framed_top", 0x8, 6, 4, false, false, SYM_CFA_SP, 48, -8 },
	{ "kpa_framed_top", 0xc, 6, 4, true, false, SYM_CFA_FP, 16, -8 },
	{ "kpa_framed_top", 0x10, 6, 4, true, false, SYM_CFA_FP, 16, -8 },
	{ "kpa_framed_top", 0x14, 6, -1, false, true, SYM_CFA_SP, 48, 0 },
	{ "kpa_framed_top", 0x18, 0, -1, false, true, SYM_CFA_SP, 0, 0 },
};
#define NSTATES ((int)(sizeof(states) / sizeof(states[0])))

static struct trap_frame build_state(const struct a64_state *s)
{
	struct trap_frame tf;
	size_t sp = CALLER - s->below;

	stk[OUTER] = 0;
	stk[OUTER + 1] = 0;
	stk[CALLER] = AT(OUTER);
	stk[CALLER + 1] = OUTER_RET;
	if (s->rec >= 0) {
		stk[sp + (size_t)s->rec] = AT(CALLER);
		stk[sp + (size_t)s->rec + 1] = CALLER_RET;
	}
	tf.ip = a64(s->fn, s->off);
	tf.sp = AT(sp);
	tf.fp = s->own ? AT(sp + (size_t)s->rec) : AT(CALLER);
	tf.lr = s->lr_live ? CALLER_RET : CLOBBERED;
	return tf;
}

CHECK_LOOP_TEST("frame0", test_a64_table_has_the_fixture_rules, 0, NSTATES)
{
	const struct a64_state *s = &states[_i];
	struct sym_cfa rule;
	enum sym_cfa_reg reg = sym_cfa_lookup(a64(s->fn, s->off), &rule);

	ck_assert_msg(reg == s->reg, "%s+%#x: rule register %d, want %d", s->fn,
		      s->off, reg, s->reg);
	ck_assert_msg(rule.offset == s->cfa_off && rule.ra == s->ra,
		      "%s+%#x: CFA %+d ra %d, want %+d ra %d", s->fn, s->off,
		      rule.offset, rule.ra, s->cfa_off, s->ra);
}
END_TEST

CHECK_LOOP_TEST("frame0", test_a64_every_state_has_immediate_caller_first,
		0, NSTATES)
{
	const struct a64_state *s = &states[_i];
	struct trap_frame tf = build_state(s);
	uintptr_t out[8];
	size_t n = stacktrace_from_trap(&tf, out, 8);

	ck_assert_msg(n == 3, "%s+%#x: %zu frames", s->fn, s->off, n);
	ck_assert_msg(out[0] == tf.ip, "%s+%#x: frame 0", s->fn, s->off);
	ck_assert_msg(out[1] == CALLER_RET, "%s+%#x: first caller %#lx", s->fn,
		      s->off, (unsigned long)out[1]);
	ck_assert_msg(out[2] == OUTER_RET, "%s+%#x: second caller %#lx", s->fn,
		      s->off, (unsigned long)out[2]);
}
END_TEST

static void assert_backtrace(const struct trap_frame *tf, const char *want)
{
	char text[512];
	struct out_buf ob;

	out_buf_init(&ob, text, sizeof(text));
	backtrace_print_trap(&ob.out, tf);
	ck_assert_str_eq(text, want);
}

CHECK_TEST("frame0", test_a64_leaf_backtrace_names_caller_from_lr)
{
	struct trap_frame tf = build_state(&states[0]);	/* kpa_leaf+0x0 */

	assert_backtrace(&tf, "at kpa_leaf+0x0\n"
			      "        <- kpa_caller+0xc\n"
			      "        <- kpa_outer+0xc\n");
}
END_TEST

CHECK_TEST("frame0", test_a64_saved_record_backtrace_ignores_lr)
{
	struct trap_frame tf = build_state(&states[18]);	/* kpa_framed_top+0x8 */

	ck_assert_uint_eq(tf.ip, a64("kpa_framed_top", 0x8));
	assert_backtrace(&tf, "at kpa_framed_top+0x8\n"
			      "        <- kpa_caller+0xc\n"
			      "        <- kpa_outer+0xc\n");
}
END_TEST

CHECK_TEST("frame0", test_a64_without_cfi_walks_fp_only)
{
	/* No call-frame information: the plain walk, which cannot see the
	 * caller of a frameless function. */
	struct a64_state s = { "kpa_nocfi", 0x0, 0, -1, false, true,
			       SYM_CFA_UNKNOWN, 0, 0 };
	struct trap_frame tf = build_state(&s);
	struct sym_cfa rule;
	uintptr_t out[8];

	ck_assert_int_eq(sym_cfa_lookup(tf.ip, &rule), SYM_CFA_UNKNOWN);
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 2);
	ck_assert_uint_eq(out[1], OUTER_RET);
}
END_TEST

CHECK_TEST("frame0", test_a64_zero_lr_in_leaf_stops)
{
	struct trap_frame tf = build_state(&states[0]);
	uintptr_t out[8];

	tf.lr = 0;
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 1);
}
END_TEST

CHECK_TEST("frame0", test_a64_leaf_fp_below_sp_keeps_lr_only)
{
	/* A stale fp below the interrupted sp: the caller from lr, then
	 * nothing read from below the stack pointer. */
	struct trap_frame tf = build_state(&states[8]);	/* kpa_leaf_sub+0x4 */
	uintptr_t out[8];

	tf.fp = AT(CALLER - 6);
	stk[CALLER - 6] = AT(CALLER);
	stk[CALLER - 5] = 0x1111;
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 2);
	ck_assert_uint_eq(out[1], CALLER_RET);
}
END_TEST

CHECK_TEST("frame0", test_a64_saved_slot_off_stack_stops)
{
	/* kpa_framed_big+0x4 with sp so near the top that CFA - 40 is off
	 * the stack: nothing read there, frame 0 alone. */
	struct trap_frame tf = build_state(&states[12]);
	uintptr_t out[8];

	tf.sp = AT(WORDS - 1);
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 1);
}
END_TEST

CHECK_TEST("frame0", test_a64_max_two_keeps_immediate_caller)
{
	struct trap_frame tf = build_state(&states[0]);
	uintptr_t out[2];

	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 2), 2);
	ck_assert_uint_eq(out[1], CALLER_RET);
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 1), 1);
}
END_TEST

CHECK_TEST("frame0", test_a64_table_is_position_dependent_at_link_address)
{
	struct sym_hit hit;
	uintptr_t off;

	ck_assert_uint_eq(a64_symtab.base, 0x40200000);
	ck_assert(sym_resolve(a64("kpa_caller", 0xc), true, &hit, &off));
	ck_assert_str_eq(hit.name, "kpa_caller");
	ck_assert_uint_eq(off, 0xc);
	/* A return address just past a function's end resolves to it. */
	ck_assert(sym_resolve(a64("kpa_leaf", 0), true, &hit, &off));
	ck_assert_str_eq(hit.name, "kpa_caller");
}
END_TEST

/* A sample taken while an exception's handler runs, built as
 * tests/kit/stack_fixture_a64.S's kpa_exc_entry would leave the stack:
 *   the interrupted state of states[@i] (outer -> caller -> frame 0);
 *   below it, at stk[TF], the trap frame the entry saved of it;
 *   below that, at stk[HANDLER], kpa_handler's frame record, made with
 *     x29 = the frame + 1, returning to kpa_exc_entry+0x8;
 *   the sample's own trap frame: in kpa_handler's body, its record. */
#define TF 400
#define HANDLER 380
#define EXC_RET a64("kpa_exc_entry", 0x8)

static struct trap_frame build_interrupted(unsigned i)
{
	struct trap_frame inner = build_state(&states[i]), tf;

	memcpy(&stk[TF], &inner, sizeof(inner));
	stk[HANDLER] = AT(TF) + 1;
	stk[HANDLER + 1] = EXC_RET;
	fake_trap_entry_ra = EXC_RET;
	tf.ip = a64("kpa_handler", 0x8);
	tf.fp = AT(HANDLER);
	tf.sp = AT(HANDLER);
	tf.lr = CLOBBERED;
	return tf;
}

/* Every frame-0 state of the interrupted function: after the handler
 * and the entry, the interrupted PC (ELR_EL1), its immediate caller by
 * its CFA rule (x30 when it is frameless), and the frames above. */
CHECK_LOOP_TEST("frame0", test_a64_exception_chain_has_interrupted_pc_and_its_caller,
		0, NSTATES)
{
	const struct a64_state *s = &states[_i];
	struct trap_frame tf = build_interrupted((unsigned)_i);
	uintptr_t out[8];
	size_t n = stacktrace_from_trap(&tf, out, 8);

	ck_assert_msg(n == 5, "%s+%#x: %zu frames", s->fn, s->off, n);
	ck_assert_uint_eq(out[0], a64("kpa_handler", 0x8));
	ck_assert_uint_eq(out[1], EXC_RET);
	ck_assert_msg(out[2] == a64(s->fn, s->off), "%s+%#x: interrupted pc %#lx",
		      s->fn, s->off, (unsigned long)out[2]);
	ck_assert_msg(out[3] == CALLER_RET, "%s+%#x: its caller %#lx", s->fn, s->off,
		      (unsigned long)out[3]);
	ck_assert_uint_eq(out[4], OUTER_RET);
}
END_TEST

CHECK_TEST("frame0", test_a64_exception_backtrace_names_leaf_and_lr_caller)
{
	struct trap_frame tf = build_interrupted(1);	/* kpa_leaf+0x4 */

	assert_backtrace(&tf, "at kpa_handler+0x8\n"
			      "        <- kpa_exc_entry+0x8\n"
			      "        <- kpa_leaf+0x4\n"
			      "        <- kpa_caller+0xc\n"
			      "        <- kpa_outer+0xc\n");
}
END_TEST

/* The sample lands on the handler's first instruction, before its
 * record: the entry's return address in x30 by the CFA rule, and x29
 * still marked, cross the same way. */
CHECK_TEST("frame0", test_a64_exception_at_handler_entry_crosses_by_rule)
{
	struct trap_frame tf = build_interrupted(8);	/* kpa_leaf_sub+0x4 */
	uintptr_t out[8];

	tf.ip = a64("kpa_handler", 0x0);
	tf.lr = EXC_RET;
	tf.fp = AT(TF) + 1;
	tf.sp = AT(HANDLER + 2);
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 5);
	ck_assert_uint_eq(out[1], EXC_RET);
	ck_assert_uint_eq(out[2], a64("kpa_leaf_sub", 0x4));
	ck_assert_uint_eq(out[3], CALLER_RET);
	ck_assert_uint_eq(out[4], OUTER_RET);
}
END_TEST

/* Without the mark (x29 not the frame + 1) the record is a plain one:
 * the walk goes on through whatever words sit there, and never takes
 * them for an interrupted state. */
CHECK_TEST("frame0", test_a64_exception_without_mark_is_a_plain_record)
{
	struct trap_frame tf = build_interrupted(1);
	uintptr_t out[8];
	size_t n;

	stk[HANDLER] = AT(TF);
	n = stacktrace_from_trap(&tf, out, 8);
	ck_assert_uint_ge(n, 2);
	ck_assert_uint_eq(out[1], EXC_RET);
	for (size_t i = 2; i < n; i++)
		ck_assert_uint_ne(out[i], a64("kpa_leaf", 0x4));
}
END_TEST

CHECK_CASE("frame0", setup, teardown, 0);

int main(void)
{
	if (!*KP_TEST_A64_CC) {
		printf("check_stacktrace_a64: SKIP: configure found no aarch64 "
		       "cross compiler (aarch64-linux-gnu-gcc; Debian: "
		       "gcc-aarch64-linux-gnu), so there is no aarch64 fixture "
		       "to walk\n");
		return 77;
	}
	if (a64_symtab.count == 0 || a64_symtab.ncfa == 0) {
		fprintf(stderr, "check_stacktrace_a64: the table kp-symgen made of "
			"the fixture %s built is empty\n", KP_TEST_A64_CC);
		return 1;
	}
	return check_run(check_suite("stacktrace_a64", NULL, 0));
}
