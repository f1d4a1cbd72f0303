/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/trap.h for ksim: the interrupted registers come from the signal's
 * ucontext; interrupts (signals) run on the interrupted task's stack, so
 * there is no separate interrupt stack. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "hal/trap.h"
#include "sim/sim.h"

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

/* Signals are delivered by the host kernel, through no entry of ours:
 * no frame record leads into an interrupted state. */
const struct trap_frame *hal_trap_frame_at(uintptr_t ra, uintptr_t fp, size_t *size)
{
	(void)ra;
	(void)fp;
	(void)size;
	return NULL;
}

/* The tick runs on the interrupted task's own stack; the overflow
 * signal's alternate stack is the NMI stack, which this never names. */
void hal_trap_irq_stack(uintptr_t *lo, uintptr_t *hi)
{
	*lo = *hi = 0;
}
