/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/trap.h for ksim: the interrupted registers come from the signal's
 * ucontext.  The tick, the overflow signal and faults run on one
 * alternate signal stack per CPU, the CPU's interrupt stack (as Linux's
 * per-CPU IRQ stacks): a task's stack holds only its own frames, and the
 * frame of a preemption (sim/tick.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "hal/trap.h"
#include "sim/sim.h"

/* The tick's frame (the host's signal frame: 3.4 KB of saved state on an
 * AVX-512 host), its handler's, a nested overflow signal's and a fault's
 * on top, with room to spare. */
#define SIM_IRQ_STACK_SIZE (64 * 1024)

/* Mapped rather than malloc'd: the stack lives as long as its thread,
 * and a sanitizer's leak check must not take it for a lost block. */
void sim_trap_cpu_stack(struct sim_cpu *c)
{
	stack_t ss;

	ss.ss_sp = mmap(NULL, SIM_IRQ_STACK_SIZE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ss.ss_size = SIM_IRQ_STACK_SIZE;
	ss.ss_flags = 0;
	if (ss.ss_sp == MAP_FAILED || sigaltstack(&ss, NULL) != 0) {
		perror("ksim: sigaltstack");
		exit(1);
	}
	c->irq_lo = (uintptr_t)ss.ss_sp;
	c->irq_hi = c->irq_lo + SIM_IRQ_STACK_SIZE;
}

/* The entry points of ksim's signal handlers (sim_trap_note_handler()). */
#define SIM_MAX_HANDLERS 8
static uintptr_t sim_handler_entry[SIM_MAX_HANDLERS];
static unsigned sim_nhandlers;

void sim_trap_note_handler(uintptr_t entry)
{
	if (sim_nhandlers < SIM_MAX_HANDLERS)
		sim_handler_entry[sim_nhandlers++] = entry;
}

void sim_trap_install(int sig, void (*handler)(int, siginfo_t *, void *), int flags,
		      int mask1, int mask2, const char *what)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	if (mask1)
		sigaddset(&sa.sa_mask, mask1);
	if (mask2)
		sigaddset(&sa.sa_mask, mask2);
	/* A handler on the interrupt stack never lets the preemption in: when
	 * the host delivers two signals in one return (sim/tick.c's preemption
	 * and an overflow, or a fault), the second one's frame goes on top of
	 * the first's, on this stack, and a switch there would leave it where
	 * the next tick of any task writes. */
	if ((flags & SA_ONSTACK) && sim_preempt_signo)
		sigaddset(&sa.sa_mask, sim_preempt_signo);
	if (sigaction(sig, &sa, NULL) != 0) {
		fprintf(stderr, "ksim: sigaction(%s): %s\n", what, strerror(errno));
		exit(1);
	}
}

static bool sim_trap_at_handler_entry(uintptr_t ip)
{
	for (unsigned i = 0; i < sim_nhandlers; i++)
		if (ip == sim_handler_entry[i])
			return true;
	return false;
}

static void sim_trap_copy(struct trap_frame *tf, const ucontext_t *uc)
{
	tf->ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	tf->fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
	tf->sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
}

void sim_trap_from_ucontext(struct trap_frame *tf, const void *ucp)
{
	sim_trap_copy(tf, ucp);
}

/* The host can deliver two signals in one return to user space: it
 * builds the tick's frame, then the overflow's on top of it, and the
 * overflow's handler runs first.  Its interrupted instruction is then the
 * first one of the tick's handler, which has not run at all: the time
 * belongs to what the tick interrupted.  A SA_SIGINFO handler is entered
 * with its ucontext pointer in %rdx, so that context is one load away.
 * Samples inside a handler's body are real time and stay where they are. */
void sim_trap_from_signal(struct trap_frame *tf, const void *ucp)
{
	const ucontext_t *uc = ucp;

	sim_trap_copy(tf, uc);
	for (int depth = 0; depth < SIM_MAX_HANDLERS &&
			    sim_trap_at_handler_entry(tf->ip); depth++) {
		uc = (const ucontext_t *)uc->uc_mcontext.gregs[REG_RDX];
		if (!uc)
			break;
		sim_trap_copy(tf, uc);
	}
}

const char *hal_trap_foreign_name(void)
{
	return "[host]";
}

void sim_trap_foreign(struct sim_cpu *c, int si_code)
{
	if (!c)
		return;
	c->stats.last_foreign_code = si_code;
	sim_stat_inc(&c->stats.foreign);
}

uintptr_t hal_trap_ip(const struct trap_frame *tf) { return tf->ip; }
uintptr_t hal_trap_fp(const struct trap_frame *tf) { return tf->fp; }
uintptr_t hal_trap_sp(const struct trap_frame *tf) { return tf->sp; }

/* x86_64: a frameless function's return address is at [sp]. */
uintptr_t hal_trap_lr(const struct trap_frame *tf) { return 0; }

/* The tick calls the kernel through sim_tick_call(), which marks the
 * frame as the kernels' entries do (sim/tick_entry.S); the host's own
 * signal frames are reached through no entry of ours. */
const struct trap_frame *hal_trap_frame_at(uintptr_t ra, uintptr_t fp, size_t *size)
{
	extern const char sim_tick_call_ret[];

	if (ra != (uintptr_t)sim_tick_call_ret || (fp & 15) != 1)
		return NULL;
	*size = sizeof(struct trap_frame);
	return (const struct trap_frame *)(fp - 1);
}

/* The alternate signal stack: the tick's, under which an overflow
 * signal or a fault nests.  A walk from one of those reads only above
 * its interrupted sp, never the frames of the handler walking. */
void hal_trap_irq_stack(uintptr_t *lo, uintptr_t *hi)
{
	struct sim_cpu *c = sim_self;

	*lo = c ? c->irq_lo : 0;
	*hi = c ? c->irq_hi : 0;
}
