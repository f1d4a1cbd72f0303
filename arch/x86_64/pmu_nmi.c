/* SPDX-License-Identifier: BSD-2-Clause */
/* The x86 NMI's sources, every one checked on every NMI (x86 NMIs
 * collapse into one delivery): the panic stop and our counter's overflow
 * (kernel_nmi()), the system control port's SERR and IOCHK, the overflow
 * a disarm still owes, and what is left -- unknown, counted for lscpu.
 * What trap.c does with each is trap.c's. */
#include "hal/entry.h"
#include "pmu_priv.h"

/* TSC ticks in nanoseconds, for the profiler's throttle. */
static uint64_t tsc_to_ns(uint64_t ticks)
{
	uint64_t hz = x86_hw_tsc_hz();

	return hz >= 1000 ? ticks * 1000000 / (hz / 1000) : 0;
}

/* A count the NMI path keeps and lscpu reads from another CPU. */
static void pmu_count(uint64_t *n)
{
	__atomic_store_n(n, __atomic_load_n(n, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

/* An NMI nothing else claimed, at TSC @now: the PMI the last disarm
 * owes, while its credit lasts (once: the credit is spent either way).
 * The owed PMI is claimed even when a hardware error came with it: NMIs
 * collapse, and the error is reported all the same. */
static unsigned pmu_claim_owed(struct x86_pmu_cpu *pc, uint64_t now)
{
	uint64_t owed = __atomic_load_n(&pc->late_until, __ATOMIC_RELAXED);

	if (!owed)
		return 0;
	__atomic_store_n(&pc->late_until, 0, __ATOMIC_RELAXED);
	if (now >= owed)
		return 0;
	pmu_count(&pc->late_nmis);
	return X86_NMI_LATE;
}

/* An NMI of no source: on a CPU whose counter has been armed, not fatal
 * (X86_NMI_UNKNOWN).  A PMI can come later than any credit (a hypervisor
 * that holds a vCPU, an SMI), and Linux's rule for an NMI of no known
 * reason where a harmless source exists is the same: count it and go
 * on.  A CPU whose counter never ran has no such source: 0, fatal. */
static unsigned pmu_unknown_verdict(const struct x86_pmu_cpu *pc)
{
	return __atomic_load_n(&pc->used, __ATOMIC_RELAXED) ? X86_NMI_UNKNOWN : 0;
}

unsigned x86_pmu_nmi(struct trap_frame *tf)
{
	struct x86_pmu_cpu *pc = pmu_self();
	uint64_t t0 = x86_hw_tsc(), t1;
	unsigned found = 0;
	uint8_t reason;

	/* The panic stop first (it never returns), then our overflow. */
	if (kernel_nmi(tf))
		found |= X86_NMI_STOP_OR_OVERFLOW;
	reason = x86_hw_inb(0x61);
	if (reason & 0x80)
		found |= X86_NMI_SERR;
	if (reason & 0x40)
		found |= X86_NMI_IOCHK;
	t1 = x86_hw_tsc();
	if (found & X86_NMI_STOP_OR_OVERFLOW) {
		if (__atomic_load_n(&pc->state, __ATOMIC_RELAXED) == X86_RUNNING)
			kernel_pmu_took(tsc_to_ns(t1 - t0));
	} else {
		found |= pmu_claim_owed(pc, t1);
	}
	if (found)
		return found;
	pmu_count(&pc->unknown_nmis);
	return pmu_unknown_verdict(pc);
}
