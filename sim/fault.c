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

/* Runs on the CPU's alternate stack, so a task that overran its own
 * stack is still reported. */
static void sim_fault_handler(int sig, siginfo_t *si, void *uc)
{
	struct trap_frame tf;

	if (!sim_self || si->si_code <= 0) {
		/* Not a CPU's fault, or sent by someone: the default. */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	sim_trap_from_ucontext(&tf, uc);
	sim_kernel_fault(&tf, sim_fault_name(sig), (uintptr_t)si->si_addr);
}

void sim_fault_install_handlers(void)
{
	for (size_t i = 0; i < sizeof(sim_fault_signals) / sizeof(sim_fault_signals[0]); i++)
		sim_trap_install(sim_fault_signals[i], sim_fault_handler, SA_ONSTACK,
				 SIGPROF, sim_pmu_signo, "fault");
}
