/* SPDX-License-Identifier: BSD-2-Clause */
/* Faults on a CPU thread (a bad pointer, an invalid instruction) are the
 * simulated machine's exceptions: the kernel panics with a backtrace of
 * the faulting state and the machine halts (KSIM_EXIT_PANIC), as a
 * kernel does on an unexpected trap, rather than the process dying with
 * a core dump.  A fault anywhere else is the simulator's own bug and
 * takes the default action. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "sim/sim.h"

static const int sim_fault_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP };

static const char *sim_fault_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "page fault (SIGSEGV)";
	case SIGBUS: return "bus error (SIGBUS)";
	case SIGILL: return "invalid opcode (SIGILL)";
	case SIGFPE: return "divide error (SIGFPE)";
	case SIGTRAP: return "breakpoint (SIGTRAP)";
	}
	return "fault";
}

/* The host could not write a signal's frame (the tick's preemption
 * signal's, which runs on the task's stack: sim/tick.c) below the
 * interrupted sp: it sends SIGSEGV from the kernel itself (SI_KERNEL),
 * with no address.  That is a stack overflow
 * as surely as a write into the guard page, only found by the host's
 * push, as x86's #DF finds the CPU's. */
static bool sim_fault_no_frame_room(int sig, const siginfo_t *si)
{
	return sig == SIGSEGV && si->si_code == SI_KERNEL;
}

/* Where the frame the host failed to push began, to the host's own
 * estimate of a signal frame's size (AT_MINSIGSTKSZ: its xsave area
 * and the ucontext) below the 128-byte red zone the x86_64 ABI keeps
 * under sp. */
static uintptr_t sim_fault_frame_bottom(const struct trap_frame *tf)
{
	unsigned long frame = getauxval(AT_MINSIGSTKSZ);

	return tf->sp - 128 - (frame ? frame : MINSIGSTKSZ);
}

/* Runs on the CPU's alternate stack, so a task that overran its own
 * stack is still reported. */
static void sim_fault_handler(int sig, siginfo_t *si, void *uc)
{
	struct trap_frame tf;

	if (sig == SIGTRAP && sim_self && sim_probe_trap(uc))
		return;
	if (!sim_self || si->si_code <= 0) {
		/* Not a CPU's fault, or sent by someone: the default. */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	sim_trap_from_ucontext(&tf, uc);
	if (sim_fault_no_frame_room(sig, si))
		sim_kernel_fault(&tf, "page fault (SIGSEGV, pushing a signal frame)",
				 sim_fault_frame_bottom(&tf));
	sim_kernel_fault(&tf, sim_fault_name(sig), (uintptr_t)si->si_addr);
}

void sim_fault_install_handlers(void)
{
	for (size_t i = 0; i < sizeof(sim_fault_signals) / sizeof(sim_fault_signals[0]); i++)
		sim_trap_install(sim_fault_signals[i], sim_fault_handler, SA_ONSTACK,
				 SIGPROF, sim_pmu_signo, "fault");
}
