/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/context.h for arm64: a context is the stack pointer of a stopped
 * a64_context_swap() (entry.S), whose frame is the callee-saved
 * registers, the frame record, DAIF and the priority mask. */
#include "hal/context.h"

#include "kernel/kernel.h"
#include "kernel/panic.h"
#include "lib/stack.h"
#include "a64.h"
#include "irqflags.h"

/* The frame hal_context_switch() pops, lowest address first. */
struct a64_switch_frame {
	uint64_t x19, x20, x21, x22, x23, x24, x25, x26, x27, x28;
	uint64_t x29, x30;
	uint64_t daif, pmr;		/* pmr: under priority masking only */
};

void a64_context_start(void);
void a64_context_swap(void **save, void *to);

/* D, A and F stay masked in kernel code; I is the interrupt mask. */
#define DAIF_KERNEL	0x340ul

void *hal_context_prepare(void *stack, size_t size, void (*entry)(void *),
			  void *arg)
{
	/* The frame below the terminating record, which a64_context_start
	 * finds sp pointing past. */
	struct a64_switch_frame *f =
		(struct a64_switch_frame *)(stack_top_terminated(stack, size) - sizeof(*f));

	*f = (struct a64_switch_frame){
		.x19 = (uintptr_t)entry,
		.x20 = (uintptr_t)arg,
		.x30 = (uintptr_t)a64_context_start,
		/* Interrupts off until task_trampoline() enables them: by the
		 * PMR with DAIF.I clear under priority masking, so that the
		 * pseudo-NMI sees the task from its first instruction; by
		 * DAIF.I otherwise. */
		.daif = a64_irq_by_pmr ? DAIF_KERNEL : DAIF_KERNEL | A64_DAIF_I,
		.pmr = A64_PMR_OFF,
	};
	return f;
}

/* A debug assertion, at every switch (the tick's preemption included):
 * under priority masking a task resumed with DAIF.I set would be blind
 * to the pseudo-NMI until it happened to clear it -- for ever, for a
 * task that only ever masks by the PMR. */
void hal_context_switch(void **save, void *to)
{
	const struct a64_switch_frame *f = to;

	if (a64_irq_by_pmr && (f->daif & A64_DAIF_I))
		panic("context switch to a task saved with DAIF.I set (daif 0x%lx, pmr 0x%lx): "
		      "it would be blind to the pseudo-NMI",
		      (unsigned long)f->daif, (unsigned long)f->pmr);
	a64_context_swap(save, to);
}

/* The frame a64_context_swap() pushed: the link register (its return
 * into hal_context_switch()), the frame record's pointer, and above it
 * the stack the context resumes on. */
void hal_context_saved_regs(const void *ctx, struct hal_context_regs *r)
{
	const struct a64_switch_frame *f = ctx;

	r->pc = f->x30;
	r->fp = f->x29;
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
	struct a64_cpu *c = a64_this_cpu();

	*lo = c->boot_stack_lo;
	*hi = c->boot_stack_hi;
}
