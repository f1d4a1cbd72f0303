/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/cpu.h for arm64: per-CPU data through TPIDR_EL1, DAIF.I as the
 * interrupt mask, wfi to idle, the generic counter as the cycle clock.
 * Starting the other CPUs is smp.c's. */
#include "hal/cpu.h"

#include "a64.h"

struct a64_cpu a64_cpus[HAL_MAX_CPUS];

void a64_cpu_init(unsigned id)
{
	struct a64_cpu *c = &a64_cpus[id];

	c->id = id;
	c->mpidr = A64_SYSREG_READ(mpidr_el1) & 0xff00ffffffull;
	c->boot_stack_lo = (uintptr_t)a64_boot_stacks + id * A64_BOOT_STACK_SIZE;
	c->boot_stack_hi = c->boot_stack_lo + A64_BOOT_STACK_SIZE;
	c->exc_stack_lo = (uintptr_t)a64_exc_stacks + id * A64_EXC_STACK_SIZE;
	c->exc_stack_hi = c->exc_stack_lo + A64_EXC_STACK_SIZE;
	A64_SYSREG_WRITE(tpidr_el1, c);
}

unsigned hal_cpu_id(void)
{
	return a64_this_cpu()->id;
}

unsigned hal_cpu_count(void)
{
	return a64_smp_cpu_count();
}

unsigned long hal_irq_save(void)
{
	unsigned long flags = a64_daif() & A64_DAIF_I;

	__asm__ volatile("msr daifset, #2" : : : "memory");
	return flags;
}

void hal_irq_restore(unsigned long flags)
{
	if (!(flags & A64_DAIF_I))
		__asm__ volatile("msr daifclr, #2" : : : "memory");
}

void hal_irq_enable(void)
{
	__asm__ volatile("msr daifclr, #2" : : : "memory");
}

bool hal_irq_disabled(void)
{
	return a64_daif() & A64_DAIF_I;
}

void hal_cpu_relax(void)
{
	__asm__ volatile("yield" : : : "memory");
}

/* wfi wakes on a pending interrupt even while DAIF.I masks it, so it
 * waits masked and then opens the mask for the interrupt to be taken:
 * a wake-up between unmasking and waiting cannot be slept through.
 * Idle samples land on the instruction after the unmask, in here. */
__attribute__((noinline)) void hal_cpu_idle(void)
{
	uint64_t flags = a64_daif();

	__asm__ volatile("msr daifset, #2\n\twfi\n\tmsr daifclr, #2\n\tisb"
			 : : : "memory");
	if (flags & A64_DAIF_I)
		__asm__ volatile("msr daifset, #2" : : : "memory");
}

/* An SGI at the GIC's highest priority the table has. */
const char *hal_cpu_interrupt_others(void)
{
	a64_gic_send_sgi_others(A64_SGI_STOP);
	return "sgi";
}

__attribute__((noinline)) void a64_cpu_park(void)
{
	__asm__ volatile("msr daifset, #0xf" : : : "memory");
	for (;;)
		__asm__ volatile("wfi" : : : "memory");
}

void hal_cpu_park(void)
{
	a64_cpu_park();
}

void hal_cpu_halt(void)
{
	a64_cpu_park();
}

uint64_t hal_cycles(void)
{
	isb();
	return A64_SYSREG_READ(cntvct_el0);
}

uint64_t hal_cycles_per_sec(void)
{
	return a64_timer_hz();
}

/* The generic counter stands in for core cycles until the PMU backend
 * exists: it counts while the task runs, which is what the scheduler
 * charges. */
uint64_t hal_cpu_time(void)
{
	return hal_cycles();
}

uint64_t hal_cpu_time_per_sec(void)
{
	return a64_timer_hz();
}
