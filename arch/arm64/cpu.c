/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/cpu.h for arm64: per-CPU data through TPIDR_EL1, the interrupt
 * mask of irqflags.h (ICC_PMR_EL1 on GICv3, DAIF.I on GICv2), wfi to
 * idle, the generic counter as the cycle clock.  Starting the other CPUs
 * is smp.c's. */
#include "hal/cpu.h"

#include "a64.h"
#include "irqflags.h"

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

bool a64_irq_by_pmr;

void a64_irq_pmr_takeover(void)
{
	a64_pmr_write(A64_PMR_OFF);
	isb();
	a64_daif_unmask_irq();
}

unsigned long hal_irq_save(void)
{
	unsigned long flags = a64_irq_flags();

	if (a64_irq_by_pmr)
		a64_pmr_write(A64_PMR_OFF);
	else
		a64_daif_mask_irq();
	return flags;
}

/* DAIF.I back as it was, then the PMR: when both open, the PMR opens
 * last with DAIF.I already clear, as hal_irq_enable() does. */
void hal_irq_restore(unsigned long flags)
{
	uint64_t pmr = (flags >> A64_FLAGS_PMR_SHIFT) & 0xff;

	if (!a64_irq_by_pmr) {
		if (!(flags & A64_FLAGS_I))
			a64_daif_unmask_irq();
		return;
	}
	if (flags & A64_FLAGS_I)
		a64_daif_mask_irq();
	/* A save taken before the GIC chose priority masking has no PMR:
	 * it was taken with interrupts off, so off it stays. */
	if (!pmr)
		pmr = A64_PMR_OFF;
	a64_pmr_write(pmr);
	if (pmr == A64_PMR_ON)
		a64_pmr_unmask_sync();
	if (!(flags & A64_FLAGS_I))
		a64_daif_unmask_irq();
}

void hal_irq_enable(void)
{
	if (a64_irq_by_pmr) {
		a64_daif_unmask_irq();
		a64_pmr_write(A64_PMR_ON);
		a64_pmr_unmask_sync();
		return;
	}
	a64_daif_unmask_irq();
}

/* Under priority masking the PMR says it; DAIF.I set (inside an
 * exception) masks everything whatever the PMR. */
bool hal_irq_disabled(void)
{
	if (a64_daif() & A64_DAIF_I)
		return true;
	return a64_irq_by_pmr && a64_pmr_read() != A64_PMR_ON;
}

/* Not kept: a mask is one instruction, and a stamp at every
 * hal_irq_save() would cost a clock read each. */
uint64_t hal_irq_masked_ns(void)
{
	return UINT64_MAX;
}

void hal_cpu_relax(void)
{
	__asm__ volatile("yield" : : : "memory");
}

/* wfi wakes on an interrupt the GIC signals even while DAIF.I masks it,
 * so it waits with DAIF.I set and then clears DAIF.I for the interrupt
 * to be taken: a wake-up between unmasking and waiting cannot be slept
 * through.  Under priority masking the GIC signals nothing the PMR holds
 * back -- wfi with the mask at "off" would sleep through the tick for
 * ever -- so the PMR opens (with its dsb) before the wfi, under DAIF.I,
 * and is put back after the waking interrupt was taken.  (Linux puts it
 * back before and lets its idle loop's irq enable take the interrupt;
 * here hal_cpu_idle() itself must take it.)  Idle samples land on the
 * instruction after the unmask, in here. */
__attribute__((noinline)) void hal_cpu_idle(void)
{
	unsigned long flags = a64_irq_flags();

	a64_daif_mask_irq();
	if (a64_irq_by_pmr) {
		a64_pmr_write(A64_PMR_ON);
		a64_pmr_unmask_sync();
	}
	__asm__ volatile("wfi\n\tmsr daifclr, #2\n\tisb" : : : "memory");
	a64_daif_mask_irq();
	hal_irq_restore(flags);
}

/* An SGI at the GIC's highest priority the table has. */
const char *hal_cpu_interrupt_others(void)
{
	a64_gic_send_sgi_others(A64_SGI_STOP);
	/* Under priority masking it passes "interrupts off" too. */
	return a64_irq_by_pmr ? "pseudo-nmi sgi" : "sgi";
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
