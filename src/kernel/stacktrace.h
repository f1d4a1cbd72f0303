/* SPDX-License-Identifier: BSD-2-Clause */
/* Call chains from an interrupted state: frame 0 is the interrupted
 * instruction, the rest return addresses.  The immediate caller comes
 * from the image's CFA rules when frame 0 has no frame set up
 * (doc/internals.md, "The walk"),
 * the rest from the frame-pointer chain. */
#ifndef KPROF_KERNEL_STACKTRACE_H
#define KPROF_KERNEL_STACKTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trap_frame;

/* Bounds of a stack, [lo, hi). */
struct stack_bounds {
	uintptr_t lo, hi;
};

/* Walk the frame-pointer chain from @fp, storing at most @max return
 * addresses.  Every frame must lie inside @b, 16 bytes at least below its
 * top, and each must sit strictly above the one before; the first that
 * does not ends the walk, as does a zero return address.  A record an
 * exception handler made (hal_trap_frame_at()) is crossed: the
 * interrupted PC is stored as the next frame, and the walk goes on from
 * the interrupted state as stacktrace_from_trap() does.  Never faults.
 * Returns the count stored. */
size_t stacktrace_from_fp(uintptr_t fp, const struct stack_bounds *b,
			  uintptr_t *out, size_t max);

/* The bounds of the stack holding @sp, seen from the calling CPU: the
 * current task's stack (also for an @sp in the guard page below it,
 * where an overflow left it) or the CPU's interrupt stack.  False when
 * @sp is on neither (then nothing past frame 0 is trusted). */
bool stacktrace_bounds_for(uintptr_t sp, struct stack_bounds *b);

/* The whole chain of an interrupted state: out[0] = hal_trap_ip(tf), then
 * the callers.  When the CFA rule at frame 0 is sp-based (a leaf, a
 * prologue before the frame is set up, an epilogue after it is torn
 * down), the immediate caller is read where the rule says (x86: CFA - 8;
 * arm64: the link register) and the walk goes on from the interrupted fp,
 * which is still the caller's.  Exceptions on the way are crossed as
 * stacktrace_from_fp() says, each interrupted state taken the same way
 * (at most 4 deep).  Any context, including the profiler's
 * NMI; never faults.  Returns the count stored (>= 1 when max >= 1). */
size_t stacktrace_from_trap(const struct trap_frame *tf, uintptr_t *out,
			    size_t max);

/* The same for a state saved on a stack other than the calling CPU's
 * (an off-CPU task's preemption, walked from another CPU): its frames
 * must lie in @b.  An exception crossed on the way is taken with the
 * calling CPU's bounds, as stacktrace_from_trap() takes it. */
size_t stacktrace_from_trap_on(const struct trap_frame *tf, const struct stack_bounds *b,
			       uintptr_t *out, size_t max);

/* Give back the real return address wherever a walk of @t's stack (or
 * of its CPU's interrupt stack while @t runs) read a timed probe's
 * return trampoline (hal/probe.h), from @t's shadow stack.  The walks
 * above do it themselves for the calling CPU's current task; a walk of
 * another task's saved stack (stacktrace_from_trap_on(), or
 * stacktrace_from_fp() on its bounds) calls it with that task.  Any
 * context; never faults. */
struct task;
void stacktrace_probe_fix(const struct task *t, uintptr_t *out, size_t n);

/* hal_trap_frame_at() on a platform whose trap entry marks its handler's
 * frame record as hal/trap.h says (the frame pointer = the frame's
 * address + 1, the return address = the entry's own, @entry_ra): the
 * @frame_size-byte frame, or NULL for any other record.  Reads no
 * memory. */
static inline const void *stacktrace_marked_frame(uintptr_t ra, uintptr_t fp,
						  uintptr_t entry_ra, size_t frame_size,
						  size_t *size)
{
	if (ra != entry_ra || (fp & 15) != 1)
		return NULL;
	*size = frame_size;
	return (const void *)(fp - 1);
}

#endif
