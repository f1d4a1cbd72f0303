/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/context.h for arm64: a context is the stack pointer of a stopped
 * hal_context_switch() (entry.S), whose frame is the callee-saved
 * registers, the frame record and DAIF. */
#include "hal/context.h"

#include "a64.h"

/* The frame hal_context_switch() pops, lowest address first. */
struct a64_switch_frame {
	uint64_t x19, x20, x21, x22, x23, x24, x25, x26, x27, x28;
	uint64_t x29, x30;
	uint64_t daif, pad;
};

void a64_context_start(void);

void *hal_context_prepare(void *stack, size_t size, void (*entry)(void *),
			  void *arg)
{
	uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
	struct a64_switch_frame *f;

	/* The terminating frame record {0, 0} at the very top; the frame
	 * below it, which a64_context_start finds sp pointing past. */
	top -= 16;
	((uint64_t *)top)[0] = 0;
	((uint64_t *)top)[1] = 0;
	f = (struct a64_switch_frame *)(top - sizeof(*f));
	*f = (struct a64_switch_frame){
		.x19 = (uintptr_t)entry,
		.x20 = (uintptr_t)arg,
		.x30 = (uintptr_t)a64_context_start,
		.daif = 0x3c0,		/* everything masked */
	};
	return f;
}

/* Nothing is kept about a stack outside it. */
void hal_context_release(void *stack, size_t size)
{
	(void)stack;
	(void)size;
}

void hal_context_boot_stack(uintptr_t *lo, uintptr_t *hi)
{
	struct a64_cpu *c = a64_this_cpu();

	*lo = c->boot_stack_lo;
	*hi = c->boot_stack_hi;
}
