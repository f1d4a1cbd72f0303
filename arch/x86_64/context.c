/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/context.h for x86_64: a context is the stack pointer of a stopped
 * hal_context_switch() (entry.S), whose frame is rflags and the
 * callee-saved registers. */
#include "hal/context.h"

#include "hal/mem.h"
#include "lib/stack.h"
#include "x86.h"

/* The frame hal_context_switch() pops, lowest address first. */
struct x86_switch_frame {
	uint64_t r15, r14, r13, r12, rbx, rbp, rflags;
	uint64_t ret;
};

void x86_context_start(void);

void *hal_context_prepare(void *stack, size_t size, void (*entry)(void *),
			  void *arg)
{
	/* Below the terminating record, the frame, placed so that %rsp is
	 * 16-aligned after its `ret`, as x86_context_start's call needs. */
	struct x86_switch_frame *f =
		(struct x86_switch_frame *)(stack_top_terminated(stack, size) - sizeof(*f));

	*f = (struct x86_switch_frame){
		.r12 = (uintptr_t)entry,
		.r13 = (uintptr_t)arg,
		/* The page below the stack, the guard hal_mem_guard() may
		 * have cleared on another CPU: the first run flushes it from
		 * this CPU's TLB (mem.c says why that suffices). */
		.r14 = (uintptr_t)stack - HAL_PAGE_SIZE,
		.rflags = 0x2,		/* reserved bit; interrupts masked */
		.ret = (uintptr_t)x86_context_start,
	};
	return f;
}

/* The frame hal_context_switch() pushed: its return address into the
 * scheduler, the scheduler's frame pointer, and above it the stack the
 * context resumes on. */
void hal_context_saved_regs(const void *ctx, struct hal_context_regs *r)
{
	const struct x86_switch_frame *f = ctx;

	r->pc = f->ret;
	r->fp = f->rbp;
	r->sp = (uintptr_t)(f + 1);
}

/* Nothing is kept about a stack outside it. */
void hal_context_release(void *stack, size_t size)
{
	(void)stack;
	(void)size;
}

void hal_context_boot_stack(uintptr_t *lo, uintptr_t *hi)
{
	struct x86_cpu *c = x86_this_cpu();

	*lo = c->boot_stack_lo;
	*hi = c->boot_stack_hi;
}
