/* SPDX-License-Identifier: BSD-2-Clause */
#include <stdbool.h>

#include "kernel/stacktrace.h"

#include "hal/probe.h"
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

/* Exceptions one walk crosses, at most: an interrupt, a pseudo-NMI or
 * fault inside its handler, and room to spare.  Each crossing stores a
 * frame, so max bounds the walk anyway; this bounds a forged chain that
 * hops between stacks. */
#define MAX_CROSSINGS 4

static size_t trap_chain(const struct trap_frame *tf, const struct stack_bounds *on,
			 uintptr_t *out, size_t max, unsigned crossings);

/* An exception handler the entry called with the frame pointer marked
 * (hal_trap_frame_at()) made the record at @fp, or is frame 0 and has
 * none (@fp: the highest stack address read): go on from the
 * interrupted state, as from a trap -- its PC as a frame, its caller by
 * the CFA rule when it had no frame of its own, then its frame
 * pointer's chain.  The saved state must lie wholly inside the stack,
 * above @fp (the entry pushed it before it called the handler). */
static size_t cross_exception(const struct trap_frame *tf, size_t size, uintptr_t fp,
			      const struct stack_bounds *b, uintptr_t *out,
			      size_t max, unsigned crossings)
{
	uintptr_t at = (uintptr_t)tf;

	if (crossings >= MAX_CROSSINGS || at <= fp || at % WORD || at >= b->hi ||
	    b->hi - at < size)
		return 0;
	return trap_chain(tf, NULL, out, max, crossings + 1);
}

/* The frame-pointer walk, with every frame required to sit strictly above
 * @prev (the highest stack address already read).  The bounds are read
 * once and the loop calls nothing: each record's saved frame pointer is
 * checked as it is read, and only one that is not word aligned is asked
 * whether an exception made it (hal/trap.h's mark is odd: no frame record
 * sits at an odd address).  The switch hook walks at every switch of a
 * wall run, and the sampler at every sample. */
static STACK_READER size_t walk_fp(uintptr_t fp, const struct stack_bounds *b,
		      uintptr_t prev, uintptr_t *out, size_t max,
		      unsigned crossings)
{
	uintptr_t lo = b->lo, hi = b->hi;
	uintptr_t *o = out, *end = out + max;

	/* Above hi a record no longer fits below the top. */
	if (hi - lo < FRAME_RECORD || !max)
		return 0;
	hi -= FRAME_RECORD;
	if (fp < lo || fp > hi || fp <= prev || fp % WORD)
		return 0;
	for (;;) {
		const uintptr_t *rec = (const uintptr_t *)fp;
		uintptr_t ra = rec[1], next = rec[0];

		if (!ra)
			break;
		*o++ = ra;
		if (__builtin_expect(next % WORD != 0, 0)) {
			const struct trap_frame *tf;
			size_t size;

			if (!(next & 1))
				break;
			tf = hal_trap_frame_at(ra, next, &size);
			if (tf)
				return (size_t)(o - out) +
				       cross_exception(tf, size, fp, b, o, (size_t)(end - o),
						       crossings);
			break;
		}
		if (next <= fp || next > hi || o == end)
			break;
		fp = next;
	}
	return (size_t)(o - out);
}

/* Probes: each return address that reads as the return trampoline's is
 * the innermost of @t's timed calls whose stack slot still holds the
 * trampoline's address; an entry whose slot does not (the entry
 * trampoline has yet to replace it, or the function has returned) is
 * no frame of this walk.  The slots are @t's own stack words, recorded
 * by the task itself. */
static STACK_READER void probe_fix(const struct task *t, uintptr_t *out, size_t n)
{
	uintptr_t tramp = hal_probe_ret_addr();
	unsigned k;

	if (!t || !tramp)
		return;
	k = __atomic_load_n(&t->probe.depth, __ATOMIC_ACQUIRE);
	if (k > TASK_PROBE_DEPTH)
		k = TASK_PROBE_DEPTH;
	for (size_t i = 0; i < n; i++) {
		if (out[i] != tramp)
			continue;
		while (k > 0 && *t->probe.f[k - 1].slot != tramp)
			k--;
		if (k == 0)
			return;
		out[i] = t->probe.f[--k].ret;
	}
}

void stacktrace_probe_fix(const struct task *t, uintptr_t *out, size_t n)
{
	probe_fix(t, out, n);
}

/* The task whose stack @b is, seen from the calling CPU: the current
 * task for its own stack or the CPU's interrupt stack (a handler there
 * runs on the current task's behalf); NULL for another's. */
static const struct task *walk_owner(const struct stack_bounds *b)
{
	struct task *t = this_cpu()->current;
	uintptr_t lo, hi;

	if (!t)
		return NULL;
	if (b->hi == t->stack_hi)
		return t;
	hal_trap_irq_stack(&lo, &hi);
	return lo < hi && b->hi == hi ? t : NULL;
}

size_t stacktrace_from_fp(uintptr_t fp, const struct stack_bounds *b,
			  uintptr_t *out, size_t max)
{
	size_t n = walk_fp(fp, b, 0, out, max, 0);

	probe_fix(walk_owner(b), out, n);
	return n;
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

/* The chain of an interrupted state, the outermost trap's or one a walk
 * crossed into (@crossings so far). */
static size_t trap_chain(const struct trap_frame *tf, const struct stack_bounds *on,
			 uintptr_t *out, size_t max, unsigned crossings)
{
	struct stack_bounds b;
	struct sym_cfa rule;
	uintptr_t sp = hal_trap_sp(tf), prev = 0;
	size_t n;

	if (max == 0)
		return 0;
	out[0] = hal_trap_ip(tf);
	n = 1;
	if (on && (sp < on->lo || sp >= on->hi))
		return n;
	if (on)
		b = *on;
	else if (!stacktrace_bounds_for(sp, &b))
		return n;
	if (b.hi - b.lo < FRAME_RECORD)
		return n;
	/* Frames may only sit at or above the interrupted sp. */
	if (b.lo < sp)
		b.lo = sp;
	if (n < max && sym_cfa_lookup(out[0], &rule) == SYM_CFA_SP) {
		uintptr_t ra = caller_from_rule(tf, &rule, &b, &prev);
		const struct trap_frame *inner;
		size_t size;

		if (!ra)
			return n;
		out[n++] = ra;
		/* Frame 0 is a handler on its way in or out, its frame record
		 * not (or no longer) made: the entry's return address and
		 * its mark are still in the registers. */
		inner = hal_trap_frame_at(ra, hal_trap_fp(tf), &size);
		if (inner)
			return n + cross_exception(inner, size, prev, &b, out + n,
						   max - n, crossings);
	}
	return n + walk_fp(hal_trap_fp(tf), &b, prev, out + n, max - n, crossings);
}

size_t stacktrace_from_trap(const struct trap_frame *tf, uintptr_t *out,
			    size_t max)
{
	size_t n = trap_chain(tf, NULL, out, max, 0);

	probe_fix(this_cpu()->current, out, n);
	return n;
}

size_t stacktrace_from_trap_on(const struct trap_frame *tf, const struct stack_bounds *b,
			       uintptr_t *out, size_t max)
{
	return trap_chain(tf, b, out, max, 0);
}
