/* SPDX-License-Identifier: BSD-2-Clause */
#include <stdbool.h>

#include "kernel/stacktrace.h"

#include "hal/trap.h"
#include "kernel/sched.h"
#include "kernel/symbols.h"
#include "kernel/task.h"

/* A frame record is two words: the caller's frame pointer, then the
 * return address. */
#define FRAME_RECORD (2 * sizeof(uintptr_t))
#define WORD sizeof(uintptr_t)

/* The walk reads whatever stack words the interrupted frame pointer
 * leads to: code built without frame pointers (libc, a sanitizer's
 * runtime) may leave any in-bounds stack address there, padding and
 * redzones included.  Those reads are deliberate, and bounded; an
 * AddressSanitizer build must not check them. */
#define STACK_READER __attribute__((no_sanitize_address))

/* The frame-pointer walk, with every frame required to sit strictly above
 * @prev (the highest stack address already read). */
static STACK_READER size_t walk_fp(uintptr_t fp, const struct stack_bounds *b,
		      uintptr_t prev, uintptr_t *out, size_t max)
{
	size_t n = 0;

	while (n < max) {
		const uintptr_t *rec;

		if (b->hi - b->lo < FRAME_RECORD || fp < b->lo ||
		    fp > b->hi - FRAME_RECORD || fp <= prev || fp % WORD)
			break;
		rec = (const uintptr_t *)fp;
		if (!rec[1])
			break;
		out[n++] = rec[1];
		prev = fp;
		fp = rec[0];
	}
	return n;
}

size_t stacktrace_from_fp(uintptr_t fp, const struct stack_bounds *b,
			  uintptr_t *out, size_t max)
{
	return walk_fp(fp, b, 0, out, max);
}

bool stacktrace_bounds_for(uintptr_t sp, struct stack_bounds *b)
{
	struct task *t = this_cpu()->current;
	uintptr_t lo, hi;

	/* An sp in the guard page below: the task overflowed, and its
	 * frames are still above. */
	if (t && ((sp >= t->stack_lo && sp < t->stack_hi) || task_guard_owner(sp))) {
		b->lo = t->stack_lo;
		b->hi = t->stack_hi;
		return true;
	}
	hal_trap_irq_stack(&lo, &hi);
	if (lo < hi && sp >= lo && sp < hi) {
		b->lo = lo;
		b->hi = hi;
		return true;
	}
	return false;
}

/* Frame 0 has no frame of its own (an sp-based CFA rule): read its return
 * address where the rule says.  *slot gets the stack address read (the
 * frames above must lie higher), or sp - 1 when the address came from the
 * link register.  Returns 0 when it cannot be read safely. */
static STACK_READER uintptr_t caller_from_rule(const struct trap_frame *tf,
				  const struct sym_cfa *rule,
				  const struct stack_bounds *b,
				  uintptr_t *slot)
{
	uintptr_t sp = hal_trap_sp(tf);
	uintptr_t cfa, at;

	if (rule->ra == 0) {
		*slot = sp - 1;
		return hal_trap_lr(tf);
	}
	/* In unsigned arithmetic; the bounds check catches any wrap. */
	cfa = sp + (uintptr_t)(intptr_t)rule->offset;
	at = cfa + (uintptr_t)(intptr_t)rule->ra;
	if (at < b->lo || at >= b->hi || b->hi - at < WORD || at % WORD)
		return 0;
	*slot = at;
	return *(const uintptr_t *)at;
}

size_t stacktrace_from_trap(const struct trap_frame *tf, uintptr_t *out,
			    size_t max)
{
	struct stack_bounds b;
	struct sym_cfa rule;
	uintptr_t sp = hal_trap_sp(tf), prev = 0;
	size_t n;

	if (max == 0)
		return 0;
	out[0] = hal_trap_ip(tf);
	n = 1;
	if (!stacktrace_bounds_for(sp, &b) || b.hi - b.lo < FRAME_RECORD)
		return n;
	/* Frames may only sit at or above the interrupted sp. */
	if (b.lo < sp)
		b.lo = sp;
	if (n < max && sym_cfa_lookup(out[0], &rule) == SYM_CFA_SP) {
		uintptr_t ra = caller_from_rule(tf, &rule, &b, &prev);

		if (!ra)
			return n;
		out[n++] = ra;
	}
	return n + walk_fp(hal_trap_fp(tf), &b, prev, out + n, max - n);
}
