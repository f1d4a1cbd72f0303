/* SPDX-License-Identifier: BSD-2-Clause */
/* The stack walk: constructed stacks that must stop the walk cleanly, a
 * walk of this process's real stack, and frame-0 recovery from the CFA
 * rules the three-pass link put into this binary (tests/kit/stack_fixture.S
 * gives the code, with explicit call-frame information).
 *
 * Every stack here is an array this test owns, made the current task's
 * stack on fake CPU 0, so bounds are exact and nothing outside is read. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

#define WORDS 512
#define POISON ((uintptr_t)0x5a5a5a5a5a5a5a5aull)

static uintptr_t stk[WORDS] __attribute__((aligned(16)));
static struct task test_task;

/* Make stk the stack of the task running on fake CPU 0, poisoned. */
static void setup(void)
{
	fake_cpu = 0;
	fake_ncpus = 1;
	for (size_t i = 0; i < WORDS; i++)
		stk[i] = POISON;
	test_task.stack_lo = (uintptr_t)&stk[0];
	test_task.stack_hi = (uintptr_t)&stk[WORDS];
	cpus[0].current = &test_task;
	sym_use_table(NULL);
}

static struct stack_bounds whole_stack(void)
{
	struct stack_bounds b = { (uintptr_t)&stk[0], (uintptr_t)&stk[WORDS] };

	return b;
}

/* A frame record at stk[i]: the caller's frame pointer, return address. */
static void put_record(size_t i, uintptr_t next_fp, uintptr_t ra)
{
	stk[i] = next_fp;
	stk[i + 1] = ra;
}

#define AT(i) ((uintptr_t)&stk[i])

/* --- constructed stacks ------------------------------------------------ */

CHECK_TEST("walk", test_walk_chain_ends_at_null_fp)
{
	struct stack_bounds b = whole_stack();
	uintptr_t out[8];

	put_record(100, AT(200), 0x1111);
	put_record(200, AT(300), 0x2222);
	put_record(300, 0, 0x3333);
	ck_assert_uint_eq(stacktrace_from_fp(AT(100), &b, out, 8), 3);
	ck_assert_uint_eq(out[0], 0x1111);
	ck_assert_uint_eq(out[1], 0x2222);
	ck_assert_uint_eq(out[2], 0x3333);
}
END_TEST

CHECK_TEST("walk", test_walk_stops_at_zero_return_address)
{
	struct stack_bounds b = whole_stack();
	uintptr_t out[8];

	put_record(100, AT(200), 0x1111);
	put_record(200, AT(300), 0);
	put_record(300, 0, 0x3333);
	ck_assert_uint_eq(stacktrace_from_fp(AT(100), &b, out, 8), 1);
}
END_TEST

CHECK_TEST("walk", test_walk_cyclic_chain_stops)
{
	struct stack_bounds b = whole_stack();
	uintptr_t out[8];

	/* A record naming itself, then a loop of two. */
	put_record(100, AT(100), 0x1111);
	ck_assert_uint_eq(stacktrace_from_fp(AT(100), &b, out, 8), 1);
	put_record(100, AT(200), 0x1111);
	put_record(200, AT(100), 0x2222);
	ck_assert_uint_eq(stacktrace_from_fp(AT(100), &b, out, 8), 2);
	ck_assert_uint_eq(out[1], 0x2222);
}
END_TEST

CHECK_TEST("walk", test_walk_downward_frame_stops)
{
	struct stack_bounds b = whole_stack();
	uintptr_t out[8];

	put_record(200, AT(100), 0x2222);
	put_record(100, AT(300), 0x1111);
	ck_assert_uint_eq(stacktrace_from_fp(AT(200), &b, out, 8), 1);
	ck_assert_uint_eq(out[0], 0x2222);
}
END_TEST

CHECK_TEST("walk", test_walk_out_of_bounds_fp_never_read)
{
	struct stack_bounds b = whole_stack();
	uintptr_t out[8];

	/* Unmapped, below the stack, above it, and a record that would
	 * straddle the top: none is dereferenced (a read would crash). */
	ck_assert_uint_eq(stacktrace_from_fp(0x10, &b, out, 8), 0);
	ck_assert_uint_eq(stacktrace_from_fp(AT(0) - 16, &b, out, 8), 0);
	ck_assert_uint_eq(stacktrace_from_fp(AT(WORDS), &b, out, 8), 0);
	ck_assert_uint_eq(stacktrace_from_fp(AT(WORDS - 1), &b, out, 8), 0);
	ck_assert_uint_eq(stacktrace_from_fp(UINTPTR_MAX - 7, &b, out, 8), 0);
	/* A chain that leaves the stack stops at the first frame outside. */
	put_record(100, 0x10, 0x1111);
	ck_assert_uint_eq(stacktrace_from_fp(AT(100), &b, out, 8), 1);
	put_record(100, AT(WORDS) + 64, 0x1111);
	ck_assert_uint_eq(stacktrace_from_fp(AT(100), &b, out, 8), 1);
}
END_TEST

CHECK_TEST("walk", test_walk_misaligned_fp_stops)
{
	struct stack_bounds b = whole_stack();
	uintptr_t out[8];

	put_record(100, AT(200) + 3, 0x1111);
	ck_assert_uint_eq(stacktrace_from_fp(AT(100), &b, out, 8), 1);
	ck_assert_uint_eq(stacktrace_from_fp(AT(100) + 1, &b, out, 8), 0);
}
END_TEST

CHECK_TEST("walk", test_walk_stores_at_most_max)
{
	struct stack_bounds b = whole_stack();
	uintptr_t out[8] = { 0 };

	put_record(100, AT(200), 0x1111);
	put_record(200, AT(300), 0x2222);
	put_record(300, 0, 0x3333);
	ck_assert_uint_eq(stacktrace_from_fp(AT(100), &b, out, 2), 2);
	ck_assert_uint_eq(out[2], 0);
	ck_assert_uint_eq(stacktrace_from_fp(AT(100), &b, out, 0), 0);
}
END_TEST

CHECK_TEST("walk", test_trap_off_every_stack_gives_frame0_only)
{
	struct trap_frame tf = { 0x1234, AT(100), (uintptr_t)&test_task, 0 };
	uintptr_t out[8];

	put_record(100, 0, 0x1111);
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 1);
	ck_assert_uint_eq(out[0], 0x1234);
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 0), 0);
}
END_TEST

CHECK_TEST("walk", test_trap_frames_below_sp_ignored)
{
	/* An fp below the interrupted sp is stale: not a frame of this stack. */
	struct trap_frame tf = { 0x1234, AT(100), AT(150), 0 };
	uintptr_t out[8];

	put_record(100, AT(200), 0x1111);
	put_record(200, 0, 0x2222);
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 1);
	tf.fp = AT(200);
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 2);
	ck_assert_uint_eq(out[1], 0x2222);
}
END_TEST

/* --- a real stack ------------------------------------------------------- */

static char real_text[2048];

__attribute__((noinline)) static void walk_level2(void)
{
	struct out_buf ob;

	out_buf_init(&ob, real_text, sizeof(real_text));
	backtrace_print_here(&ob.out);
	__asm__ volatile("" ::: "memory");	/* not a tail call */
}

__attribute__((noinline)) static void walk_level1(void)
{
	walk_level2();
	__asm__ volatile("" ::: "memory");
}

/* The bounds of this process's main stack, from /proc/self/maps.
 * (<pthread.h> cannot be included next to kernel/sched.h.) */
static void real_stack_bounds(uintptr_t *lo, uintptr_t *hi)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long a, b;

	*lo = *hi = 0;
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &a, &b) == 2) {
			*lo = a;
			*hi = b;
		}
	fclose(f);
	ck_assert_uint_lt(*lo, *hi);
}

CHECK_TEST("walk", test_walk_real_stack_names_callers_in_order)
{
	const char *l2, *l1, *t;

	/* This thread's real stack becomes the current task's. */
	real_stack_bounds(&test_task.stack_lo, &test_task.stack_hi);

	walk_level1();
	l2 = strstr(real_text, "backtrace:\n        <- walk_level2+0x");
	l1 = strstr(real_text, "\n        <- walk_level1+0x");
	t = strstr(real_text, "\n        <- test_walk_real_stack_names_callers_in_order_fn+0x");
	ck_assert_msg(l2 && l1 && t && l2 < l1 && l1 < t, "got:\n%s", real_text);
}
END_TEST

/* --- frame 0 from the CFA rules ------------------------------------------ */

#if defined(__x86_64__)

extern const char kpt_outer_ret[], kpt_caller_ret[];
extern const char kpt_leaf[], kpt_leaf_ret[];
extern const char kpt_framed[], kpt_framed_pushed[], kpt_framed_body[],
	kpt_framed_pop[], kpt_framed_ret[];
extern const char kpt_leaf_sub[], kpt_leaf_sub_body[], kpt_leaf_sub_ret[];
extern const char kpt_nocfi[], kpt_nocfi_ret[];

/* The stack of outer -> caller -> (frame 0), built as the code in
 * tests/kit/stack_fixture.S would leave it:
 *   stk[OUTER]: outer's frame record, the end of the chain;
 *   stk[CALLER]: caller's frame record, returning into outer;
 *   stk[RA]: the return address into caller, pushed by its call;
 *   below it, what frame 0 has pushed by the interrupted instruction. */
#define OUTER 500
#define CALLER 480
#define RA 470

struct state {
	const char *label;
	const char *ip;
	unsigned pushed;	/* words frame 0 has pushed below its RA */
	bool saved_fp;		/* the first of them is the caller's fp */
	bool own_frame;		/* fp points at frame 0's own record */
};

static const struct state states[] = {
	{ "kpt_leaf", kpt_leaf, 0, false, false },
	{ "kpt_leaf_ret", kpt_leaf_ret, 0, false, false },
	{ "kpt_framed", kpt_framed, 0, false, false },
	{ "kpt_framed_pushed", kpt_framed_pushed, 1, true, false },
	{ "kpt_framed_body", kpt_framed_body, 1, true, true },
	{ "kpt_framed_pop", kpt_framed_pop, 1, true, true },
	{ "kpt_framed_ret", kpt_framed_ret, 0, false, false },
	{ "kpt_leaf_sub", kpt_leaf_sub, 0, false, false },
	{ "kpt_leaf_sub_body", kpt_leaf_sub_body, 3, false, false },
	{ "kpt_leaf_sub_ret", kpt_leaf_sub_ret, 0, false, false },
};

static struct trap_frame build_state(const struct state *s)
{
	struct trap_frame tf;

	put_record(OUTER, 0, 0);
	put_record(CALLER, AT(OUTER), (uintptr_t)kpt_outer_ret);
	stk[RA] = (uintptr_t)kpt_caller_ret;
	if (s->saved_fp)
		stk[RA - 1] = AT(CALLER);
	tf.ip = (uintptr_t)s->ip;
	tf.sp = AT(RA - s->pushed);
	tf.fp = s->own_frame ? AT(RA - 1) : AT(CALLER);
	tf.lr = 0;
	return tf;
}

CHECK_LOOP_TEST("frame0", test_frame0_every_state_has_immediate_caller_first,
		0, (int)(sizeof(states) / sizeof(states[0])))
{
	const struct state *s = &states[_i];
	struct trap_frame tf = build_state(s);
	uintptr_t out[8];
	size_t n = stacktrace_from_trap(&tf, out, 8);

	ck_assert_msg(n == 3, "%s: %zu frames", s->label, n);
	ck_assert_msg(out[0] == (uintptr_t)s->ip, "%s: frame 0", s->label);
	ck_assert_msg(out[1] == (uintptr_t)kpt_caller_ret,
		      "%s: first caller %#lx", s->label, (unsigned long)out[1]);
	ck_assert_msg(out[2] == (uintptr_t)kpt_outer_ret,
		      "%s: second caller %#lx", s->label, (unsigned long)out[2]);
}
END_TEST

CHECK_TEST("frame0", test_frame0_backtrace_prints_immediate_caller_first)
{
	struct trap_frame tf = build_state(&states[3]);	/* kpt_framed_pushed */
	char text[512];
	struct out_buf ob;

	out_buf_init(&ob, text, sizeof(text));
	backtrace_print_trap(&ob.out, &tf);
	ck_assert_str_eq(text,
			 "at kpt_framed+0x1\n"
			 "        <- kpt_caller+0x9\n"
			 "        <- kpt_outer+0x9\n");
}
END_TEST

CHECK_TEST("frame0", test_frame0_without_cfi_walks_fp_only)
{
	/* No call-frame information: the plain walk, which cannot see the
	 * immediate caller of a function without a frame. */
	struct state s = { "kpt_nocfi_ret", kpt_nocfi_ret, 0, false, false };
	struct trap_frame tf = build_state(&s);
	uintptr_t out[8];

	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 2);
	ck_assert_uint_eq(out[1], (uintptr_t)kpt_outer_ret);
}
END_TEST

CHECK_TEST("frame0", test_frame0_return_slot_above_stack_stops)
{
	/* sp so near the top that CFA - 8 (sp + 24 here) is off the stack. */
	struct trap_frame tf = { (uintptr_t)kpt_leaf_sub_body, AT(CALLER),
				 AT(WORDS - 2), 0 };
	uintptr_t out[8];

	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 1);
}
END_TEST

CHECK_TEST("frame0", test_frame0_zero_return_address_stops)
{
	struct trap_frame tf = build_state(&states[0]);
	uintptr_t out[8];

	stk[RA] = 0;
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 1);
}
END_TEST

CHECK_TEST("frame0", test_frame0_caller_fp_below_return_slot_stops)
{
	/* The walk goes on from fp only above the slot it read. */
	struct trap_frame tf = build_state(&states[0]);
	uintptr_t out[8];

	tf.fp = AT(RA - 2);
	put_record(RA - 2, AT(CALLER), 0x1111);
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 2);
	ck_assert_uint_eq(out[1], (uintptr_t)kpt_caller_ret);
}
END_TEST

CHECK_TEST("frame0", test_frame0_max_two_keeps_immediate_caller)
{
	struct trap_frame tf = build_state(&states[0]);
	uintptr_t out[2];

	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 2), 2);
	ck_assert_uint_eq(out[1], (uintptr_t)kpt_caller_ret);
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 1), 1);
}
END_TEST

/* --- crossing an interrupt ---------------------------------------------- */

extern const char kpt_isr_ret[], kpt_handler_body[];

/* A sample taken while an interrupt's handler runs, built as
 * tests/kit/stack_fixture.S's kpt_isr_entry would leave the stack:
 *   the interrupted state of states[@i] (outer -> caller -> frame 0);
 *   below it, at stk[TF], the trap frame the entry saved of it;
 *   below that, at stk[HANDLER], kpt_handler's frame record, made with
 *     %rbp = the frame + 1, returning to kpt_isr_ret;
 *   the sample's own trap frame: in kpt_handler's body, its record. */
#define TF 400
#define HANDLER 380

static struct trap_frame build_interrupted(unsigned i)
{
	struct trap_frame inner = build_state(&states[i]), tf;

	memcpy(&stk[TF], &inner, sizeof(inner));
	put_record(HANDLER, AT(TF) + 1, (uintptr_t)kpt_isr_ret);
	fake_trap_entry_ra = (uintptr_t)kpt_isr_ret;
	tf.ip = (uintptr_t)kpt_handler_body;
	tf.fp = AT(HANDLER);
	tf.sp = AT(HANDLER);
	tf.lr = 0;
	return tf;
}

/* Every frame-0 state of the interrupted function: after the handler
 * and the entry, the interrupted PC, its immediate caller by its CFA
 * rule, and the frames above. */
CHECK_LOOP_TEST("frame0", test_interrupt_chain_has_interrupted_pc_and_its_caller,
		0, (int)(sizeof(states) / sizeof(states[0])))
{
	const struct state *s = &states[_i];
	struct trap_frame tf = build_interrupted((unsigned)_i);
	uintptr_t out[8];
	size_t n = stacktrace_from_trap(&tf, out, 8);

	ck_assert_msg(n == 5, "%s: %zu frames", s->label, n);
	ck_assert_uint_eq(out[0], (uintptr_t)kpt_handler_body);
	ck_assert_uint_eq(out[1], (uintptr_t)kpt_isr_ret);
	ck_assert_msg(out[2] == (uintptr_t)s->ip, "%s: interrupted pc %#lx", s->label,
		      (unsigned long)out[2]);
	ck_assert_msg(out[3] == (uintptr_t)kpt_caller_ret, "%s: its caller %#lx",
		      s->label, (unsigned long)out[3]);
	ck_assert_uint_eq(out[4], (uintptr_t)kpt_outer_ret);
}
END_TEST

/* The interrupted PC prints among the return addresses, exactly; it is
 * looked up as they are (at PC - 1), so one on a function's first byte
 * would be named after the function before: kpt_leaf_ret is not. */
CHECK_TEST("frame0", test_interrupt_backtrace_prints_the_interrupted_leaf)
{
	struct trap_frame tf = build_interrupted(1);	/* kpt_leaf_ret */
	char text[512];
	struct out_buf ob;

	out_buf_init(&ob, text, sizeof(text));
	backtrace_print_trap(&ob.out, &tf);
	ck_assert_str_eq(text,
			 "at kpt_handler+0x4\n"
			 "        <- kpt_isr_entry+0xa\n"
			 "        <- kpt_leaf+0x5\n"
			 "        <- kpt_caller+0x9\n"
			 "        <- kpt_outer+0x9\n");
}
END_TEST

/* The sample lands on the handler's first instruction, before its
 * record: the entry's return address at [rsp] by the CFA rule, and
 * %rbp still marked, cross the same way. */
CHECK_TEST("frame0", test_interrupt_at_handler_entry_crosses_by_rule)
{
	extern const char kpt_handler[];
	struct trap_frame tf = build_interrupted(8);	/* kpt_leaf_sub_body */
	uintptr_t out[8];

	stk[HANDLER + 1] = (uintptr_t)kpt_isr_ret;
	tf.ip = (uintptr_t)kpt_handler;
	tf.sp = AT(HANDLER + 1);
	tf.fp = AT(TF) + 1;
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 5);
	ck_assert_uint_eq(out[1], (uintptr_t)kpt_isr_ret);
	ck_assert_uint_eq(out[2], (uintptr_t)kpt_leaf_sub_body);
	ck_assert_uint_eq(out[3], (uintptr_t)kpt_caller_ret);
	ck_assert_uint_eq(out[4], (uintptr_t)kpt_outer_ret);
}
END_TEST

/* stacktrace_from_fp() (the panic's own backtrace) crosses too. */
CHECK_TEST("frame0", test_interrupt_walk_from_fp_crosses)
{
	struct stack_bounds b = whole_stack();
	uintptr_t out[8];

	build_interrupted(4);				/* kpt_framed_body */
	ck_assert_uint_eq(stacktrace_from_fp(AT(HANDLER), &b, out, 8), 4);
	ck_assert_uint_eq(out[0], (uintptr_t)kpt_isr_ret);
	ck_assert_uint_eq(out[1], (uintptr_t)kpt_framed_body);
	ck_assert_uint_eq(out[2], (uintptr_t)kpt_caller_ret);
	ck_assert_uint_eq(out[3], (uintptr_t)kpt_outer_ret);
}
END_TEST

/* Only the entry's return address with a marked frame pointer crosses;
 * a saved frame below its record, off the stack, or a chain of
 * crossings that never ends, stops the walk cleanly. */
CHECK_TEST("frame0", test_interrupt_crossing_needs_entry_and_sane_frame)
{
	struct trap_frame tf = build_interrupted(0);
	uintptr_t out[16];

	/* Another return address: a plain record, whose odd fp ends it. */
	stk[HANDLER + 1] = (uintptr_t)kpt_caller_ret;
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 2);
	/* The entry's, with an even fp: a plain record, walked on. */
	put_record(HANDLER, AT(CALLER), (uintptr_t)kpt_isr_ret);
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 3);
	ck_assert_uint_eq(out[2], (uintptr_t)kpt_outer_ret);
	/* The saved frame below the handler's record. */
	put_record(HANDLER, AT(HANDLER - 8) + 1, (uintptr_t)kpt_isr_ret);
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 2);
	/* The saved frame running off the top of the stack. */
	put_record(HANDLER, AT(WORDS - 2) + 1, (uintptr_t)kpt_isr_ret);
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 2);
	/* A saved frame whose fp leads to another crossing, and so on up
	 * the stack: at most 4 crossings, each two frames. */
	for (unsigned k = 0; k < 8; k++) {
		size_t rec = 100 + 40 * k, frame = rec + 4;
		struct trap_frame t = { (uintptr_t)kpt_handler_body, AT(rec + 40), AT(rec + 2),
					0 };

		put_record(rec, AT(frame) + 1, (uintptr_t)kpt_isr_ret);
		memcpy(&stk[frame], &t, sizeof(t));
	}
	tf.fp = tf.sp = AT(100);
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 16), 1 + 2 * 4 + 1);
}
END_TEST

#endif /* __x86_64__ */

/* arm64's rule, on any host: a constructed table whose rule keeps the
 * return address in the link register. */
static const struct sym_cfa lr_rules[] = {
	{ 0x100, 0, 0, SYM_CFA_SP },	/* entry: ra in lr */
	{ 0x104, 16, -8, SYM_CFA_SP },	/* after stp x29, x30: ra at CFA - 8 */
	{ 0x108, 16, -8, SYM_CFA_FP },	/* frame set up */
	{ 0x110, 0, 0, SYM_CFA_UNKNOWN },
};
static const struct sym_table lr_table = {
	.base = 0x10000, .strings = "", .cfa = lr_rules, .ncfa = 4,
};

CHECK_TEST("frame0", test_frame0_link_register_rule_uses_lr)
{
	struct trap_frame tf = { 0x10100, AT(400), AT(300), 0x7777 };
	uintptr_t out[8];

	put_record(400, 0, 0x8888);
	sym_use_table(&lr_table);
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 3);
	ck_assert_uint_eq(out[1], 0x7777);
	ck_assert_uint_eq(out[2], 0x8888);
	/* After the push, the stack slot, not lr. */
	tf.ip = 0x10104;
	tf.sp = AT(298);
	stk[299] = 0x6666;
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 3);
	ck_assert_uint_eq(out[1], 0x6666);
	ck_assert_uint_eq(out[2], 0x8888);
	/* No rule past the last entry: the plain walk. */
	tf.ip = 0x10110;
	ck_assert_uint_eq(stacktrace_from_trap(&tf, out, 8), 2);
	ck_assert_uint_eq(out[1], 0x8888);
}
END_TEST

int main(void)
{
	return check_run(check_suite("stacktrace", setup, 0));
}
