/* SPDX-License-Identifier: BSD-2-Clause */
/* Task contexts: the portable scheduler switches through these two. */
#ifndef KPROF_HAL_CONTEXT_H
#define KPROF_HAL_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

/* Lay out a context at the top of [stack, stack + size) that, when first
 * switched to, calls entry(arg) on that stack.  entry() starts with
 * interrupts masked and never returns.  Returns the handle to switch to.
 * Task context; touches nothing but the new stack. */
void *hal_context_prepare(void *stack, size_t size, void (*entry)(void *),
			  void *arg);

/* Save the calling context, store its handle in *save, and resume the
 * context @to.  Returns when another switch resumes *save.  Called with
 * interrupts masked, from task context or from the tick's interrupt
 * handler (preemption): the resumed context gets back exactly the
 * interrupt and signal state it was saved with.  @save is NULL for a
 * dead task's last switch: that context is never resumed. */
void hal_context_switch(void **save, void *to);

/* What a stack walk needs of a context hal_context_switch() saved and
 * no switch has resumed since: the address it resumes at, its frame
 * pointer and its stack pointer (its frames lie at or above it). */
struct hal_context_regs {
	uintptr_t pc, fp, sp;
};

/* The registers of saved context @ctx (a handle hal_context_switch()
 * stored).  Any context, any CPU: reads only the saved frame, which
 * lies on the stopped task's stack; the caller makes sure the context
 * is not resumed meanwhile (kernel/sched.h's sched_call_parked()).
 * Never faults on a saved context. */
void hal_context_saved_regs(const void *ctx, struct hal_context_regs *r);

/* The stack [stack, stack + size) of a context that will never run again
 * goes back to the heap: forget whatever the platform kept about it (the
 * simulator's AddressSanitizer build unpoisons the frames left on it).
 * Task context or the idle loop, any CPU. */
void hal_context_release(void *stack, size_t size);

/* Bounds [*lo, *hi) of the stack the calling CPU booted on, which its
 * idle task keeps using.  Any context on that CPU. */
void hal_context_boot_stack(uintptr_t *lo, uintptr_t *hi);

#endif
