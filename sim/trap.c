/* hal/trap.h for ksim: the interrupted registers come from the signal's
 * ucontext; interrupts (signals) run on the interrupted task's stack, so
 * there is no separate interrupt stack. */
#define _GNU_SOURCE
#include <signal.h>
#include <ucontext.h>

#include "hal/trap.h"
#include "sim/sim.h"

void sim_trap_from_ucontext(struct trap_frame *tf, const void *ucp)
{
	const ucontext_t *uc = ucp;

	tf->ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	tf->fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
	tf->sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
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

/* The tick runs on the interrupted task's own stack; the overflow
 * signal's alternate stack is the NMI stack, which this never names. */
void hal_trap_irq_stack(uintptr_t *lo, uintptr_t *hi)
{
	*lo = *hi = 0;
}
