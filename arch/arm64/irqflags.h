/* SPDX-License-Identifier: BSD-2-Clause */
/* The interrupt mask, in one place: each primitive says which of DAIF
 * and ICC_PMR_EL1 it touches, and why.
 *
 * Two ways to say "interrupts off", chosen once on the boot CPU by the
 * GIC (gic.c) before any other CPU starts, then fixed:
 *
 *  - GICv3, priority masking (a64_irq_by_pmr): "off" is ICC_PMR_EL1 =
 *    A64_PMR_OFF, which only the pseudo-NMI priority (A64_PRIO_NMI: the
 *    PMU overflow, the panic stop) passes; "on" is A64_PMR_ON.  DAIF.I
 *    stays clear in kernel code and is set only by exception entry and
 *    by the few windows that must block everything (the exception exit,
 *    the idle wait, a context switch's restore, parking).
 *  - GICv2: DAIF.I, as before.  GICC_PMR is memory-mapped and not
 *    synchronous with the CPU, so it cannot be the kernel's mask (Linux
 *    does not use it either); the PMU overflow is then a plain IRQ.
 *
 * hal_irq_save()'s flags carry both: bit 7 is DAIF.I as it was, bits
 * 8-15 the PMR (priority masking only), so a save taken with DAIF.I set
 * (inside an exception) restores with it still set. */
#ifndef KPROF_ARCH_ARM64_IRQFLAGS_H
#define KPROF_ARCH_ARM64_IRQFLAGS_H

#include <stdbool.h>
#include <stdint.h>

#include "a64.h"

/* The register, by its encoding (GICv3 CPU interface). */
#define A64_ICC_PMR_EL1		S3_0_C4_C6_0

/* True once the GIC chose priority masking; never changes after. */
extern bool a64_irq_by_pmr;

#define A64_FLAGS_I		A64_DAIF_I	/* bit 7, as in DAIF */
#define A64_FLAGS_PMR_SHIFT	8

static inline uint64_t a64_pmr_read(void)
{
	return A64_SYSREG_READ(S3_0_C4_C6_0);
}

/* Masking by PMR needs no barrier: a write to ICC_PMR_EL1 is
 * self-synchronising, no interrupt below the new mask is taken after
 * it.  Unmasking (a64_pmr_unmask_sync) does. */
static inline void a64_pmr_write(uint64_t pmr)
{
	A64_SYSREG_WRITE(S3_0_C4_C6_0, pmr);
}

/* After opening the mask: with ICC_CTLR_EL1.PMHE set the redistributor
 * keeps a copy of the PMR to choose what it forwards, and only a dsb
 * makes it see the new value; without the dsb an interrupt the new mask
 * admits may wait for some unrelated event.  Always, as it is cheap
 * next to the trouble of knowing. */
static inline void a64_pmr_unmask_sync(void)
{
	dsb_sy();
}

/* DAIF.I alone: exception entry sets it; these are the windows. */
static inline void a64_daif_mask_irq(void)
{
	__asm__ volatile("msr daifset, #2" : : : "memory");
}

static inline void a64_daif_unmask_irq(void)
{
	__asm__ volatile("msr daifclr, #2" : : : "memory");
}

/* The current state as hal_irq_save() encodes it. */
static inline unsigned long a64_irq_flags(void)
{
	unsigned long f = a64_daif() & A64_DAIF_I;

	if (a64_irq_by_pmr)
		f |= (unsigned long)a64_pmr_read() << A64_FLAGS_PMR_SHIFT;
	return f;
}

/* Priority masking: from here on "off" is the PMR.  This CPU, once its
 * GIC CPU interface is up: PMR "off" first, then DAIF.I clear, so that
 * the pseudo-NMI reaches every kernel code from now on (gic.c). */
void a64_irq_pmr_takeover(void);

#endif
