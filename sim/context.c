/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/context.h for ksim: tasks are ucontexts switched on their CPU's
 * thread.  swapcontext() saves and restores the signal mask with the
 * registers, so a switch made inside the tick's preemption handler
 * (sim/tick.c: SIGPROF blocked) hands the incoming task exactly the mask
 * it was saved with: a task preempted in the handler gets SIGPROF back
 * when its handler returns, one that yielded gets it back from
 * hal_irq_restore().
 *
 * Under AddressSanitizer (--enable-sanitizers) every switch is announced
 * with the sanitizer's fiber interface, so that it knows which stack is
 * current: each context carries the bounds of the stack it runs on.  A
 * dead task's last switch says so (no fake stack to keep), and its stack
 * is unpoisoned before it goes back to the heap: the redzones of the
 * frames still on it would otherwise trip the next task given the
 * memory. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "hal/context.h"
#include "sim/sim.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define SIM_ASAN_FIBERS 1
#else
#define SIM_ASAN_FIBERS 0
#endif

/* A context and the stack it runs on. */
struct sim_context {
	ucontext_t uc;
	uintptr_t stack_lo;
	size_t stack_size;
};

/* What a new task's stack holds at its top before it first runs. */
struct sim_new_context {
	struct sim_context ctx;
	void (*entry)(void *);
	void *arg;
};

/* The stack the calling CPU thread runs on now: its own until the first
 * switch, then the incoming context's. */
static __thread uintptr_t sim_stack_lo;
static __thread size_t sim_stack_size;

static void sim_stack_current(uintptr_t *lo, size_t *size)
{
	if (!sim_stack_size && sim_self) {
		sim_stack_lo = sim_self->stack_lo;
		sim_stack_size = sim_self->stack_hi - sim_self->stack_lo;
	}
	*lo = sim_stack_lo;
	*size = sim_stack_size;
}

static void sim_stack_arrived(const struct sim_context *ctx, void *fake_stack)
{
#if SIM_ASAN_FIBERS
	__sanitizer_finish_switch_fiber(fake_stack, NULL, NULL);
#else
	(void)fake_stack;
#endif
	sim_stack_lo = ctx->stack_lo;
	sim_stack_size = ctx->stack_size;
}

/* makecontext() passes int arguments: the pointer comes in two halves. */
static void sim_context_start(unsigned hi, unsigned lo)
{
	struct sim_new_context *n =
		(void *)(((uintptr_t)hi << 32) | (uintptr_t)lo);

	sim_stack_arrived(&n->ctx, NULL);
	n->entry(n->arg);
	abort();		/* entry() never returns */
}

void *hal_context_prepare(void *stack, size_t size, void (*entry)(void *),
			  void *arg)
{
	uintptr_t top = ((uintptr_t)stack + size - sizeof(struct sim_new_context)) &
			~(uintptr_t)63;
	struct sim_new_context *n = (struct sim_new_context *)top;
	uintptr_t p = (uintptr_t)n;

	getcontext(&n->ctx.uc);
	n->ctx.uc.uc_stack.ss_sp = stack;
	n->ctx.uc.uc_stack.ss_size = top - (uintptr_t)stack;
	n->ctx.uc.uc_link = NULL;
	n->ctx.stack_lo = (uintptr_t)stack;
	n->ctx.stack_size = size;
	/* The entry starts with interrupts masked; the overflow signal is
	 * never masked outside its own handler, nor the preemption signal
	 * outside the tick's and its own. */
	sigaddset(&n->ctx.uc.uc_sigmask, SIGPROF);
	sigdelset(&n->ctx.uc.uc_sigmask, sim_pmu_signo);
	sigdelset(&n->ctx.uc.uc_sigmask, sim_preempt_signo);
	n->entry = entry;
	n->arg = arg;
	makecontext(&n->ctx.uc, (void (*)(void))sim_context_start, 2,
		    (unsigned)(p >> 32), (unsigned)p);
	/* A terminating frame, as every stack begins with: no caller frame
	 * pointer, and no return address where makecontext() put libc's
	 * __start_context (sim_context_start never returns, so nothing
	 * needs it), so that a walk ends at our entry function and never
	 * shows a raw host address. */
	n->ctx.uc.uc_mcontext.gregs[REG_RBP] = 0;
	*(uintptr_t *)n->ctx.uc.uc_mcontext.gregs[REG_RSP] = 0;
	return &n->ctx;
}

/* The saved context lives in this frame, on the outgoing task's own
 * stack, until a switch resumes it. */
void hal_context_switch(void **save, void *to)
{
	struct sim_context self, *next = to;
	void *fake_stack = NULL;

	sim_stack_current(&self.stack_lo, &self.stack_size);
	/* swapcontext() does not fill it in; a sanitizer reads it as the
	 * stack to unpoison when this context is resumed. */
	memset(&self.uc.uc_stack, 0, sizeof(self.uc.uc_stack));
	if (save)
		*save = &self;
#if SIM_ASAN_FIBERS
	/* NULL for a context that dies here: its fake stack is freed. */
	__sanitizer_start_switch_fiber(save ? &fake_stack : NULL,
				       (const void *)next->stack_lo,
				       next->stack_size);
#endif
	swapcontext(&self.uc, &next->uc);
	sim_stack_arrived(&self, fake_stack);
}

/* The ucontext swapcontext() filled in, in hal_context_switch()'s
 * frame on the stopped task's stack. */
void hal_context_saved_regs(const void *ctx, struct hal_context_regs *r)
{
	const struct sim_context *c = ctx;

	r->pc = (uintptr_t)c->uc.uc_mcontext.gregs[REG_RIP];
	r->fp = (uintptr_t)c->uc.uc_mcontext.gregs[REG_RBP];
	r->sp = (uintptr_t)c->uc.uc_mcontext.gregs[REG_RSP];
}

void hal_context_release(void *stack, size_t size)
{
#if SIM_ASAN_FIBERS
	__asan_unpoison_memory_region(stack, size);
#else
	(void)stack;
	(void)size;
#endif
}

void hal_context_boot_stack(uintptr_t *lo, uintptr_t *hi)
{
	*lo = sim_self ? sim_self->stack_lo : 0;
	*hi = sim_self ? sim_self->stack_hi : 0;
}
