/* SPDX-License-Identifier: BSD-2-Clause */
/* What the x86 PMU backend's files share: the vendor ops table, a CPU's
 * counter state, the chosen backend.  Private to pmu.c (probe, sampling,
 * lscpu, stat), pmu_intel.c and pmu_amd.c (a vendor's registers each) and
 * pmu_nmi.c (the NMI's sources); nothing outside them includes it. */
#ifndef KPROF_ARCH_X86_64_PMU_PRIV_H
#define KPROF_ARCH_X86_64_PMU_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/cpu.h"
#include "hal/pmu.h"
#include "pmu_hw.h"

#define PROBE_SPIN_US			10	/* a live counter moves at once */
#define AMD_WIDTH			48	/* AMD's counters' bits (APM 13.2) */

/* What sets one vendor's counter apart, as flags of its table. */
#define X86_PMU_GLOBAL_STATUS	1u	/* an overflow stays in a status
					 * register until cleared; without it
					 * (AMD before PerfMonV2) the overflow
					 * is the count's top bit, gone once
					 * the count is rewritten */
#define X86_PMU_INSN_FIXED0	2u	/* instructions on Intel's fixed
					 * counter 0, which the part may lack
					 * (the first claim's fixed0) */

/* One vendor's way with the one counter.  Only enable() ever makes it
 * count, and only hal_pmu_arm() calls it: the NMI path rewrites the
 * count of a counter that runs, and never enables one. */
struct x86_pmu_ops {
	const char *name;		/* in the report's source */
	unsigned flags;			/* X86_PMU_* */
	int (*prove)(char *why, size_t len);	/* probe: firmware, moves */
	void (*program)(uint64_t count);	/* stopped, written, status clear */
	void (*enable)(void);		/* count, with the PMI */
	void (*stop)(void);		/* disable, nothing else */
	void (*rewrite)(uint64_t count);	/* the count alone */
	bool (*overflowed)(void);	/* this counter's overflow, exactly */
	void (*clear)(void);		/* its status (a rewritten count on AMD
					 * without global status) */
	void (*count_start)(void);	/* cycles and instructions, no PMI */
	void (*count_read)(uint64_t v[2]);
	void (*count_stop)(void);
};

extern const struct x86_pmu_ops x86_intel_ops;		/* pmu_intel.c */
extern const struct x86_pmu_ops x86_amd_ops, x86_amd_v2_ops;	/* pmu_amd.c */

/* What CPUID says about the calling CPU. */
struct x86_pmu_claim {
	char vendor[13];
	unsigned version;		/* CPUID 0xA EAX[7:0] */
	unsigned gp_counters;		/* CPUID 0xA EAX[15:8] */
	unsigned fixed_width;		/* CPUID 0xA EDX[12:5] */
	bool fixed0, fixed1;		/* EDX[4:0] counters, or (v5) ECX bits */
	bool amd_core_ext;		/* CPUID 0x80000001 ECX bit 23 */
	bool amd_perfmon_v2;		/* CPUID 0x80000022 EAX bit 0 */
};

/* A CPU's verdict, in lscpu's terms (hal/pmu.h). */
enum {
	V_UNKNOWN = HAL_PMU_NOT_PROBED,
	V_NONE = HAL_PMU_NOT_CLAIMED,
	V_CLAIMED = HAL_PMU_NOT_PROVEN,
	V_COUNTS = HAL_PMU_PROVEN,
};

/* Where the counter is, as the NMI path reads it: one store moves it
 * from running to stopping, so that no NMI ever finds it neither running
 * nor in its claim window. */
enum { X86_IDLE, X86_RUNNING, X86_STOPPING };

/* One CPU's counter: only that CPU writes it. */
struct x86_pmu_cpu {
	int verdict;
	bool used;			/* armed at least once */
	bool x2apic;
	unsigned state;			/* X86_IDLE, _RUNNING, _STOPPING */
	bool landed;			/* an NMI claimed the disarm's overflow */
	uint64_t period;
	/* TSC: a PMI of ours is owed until then -- raised, its status
	 * cleared, not yet claimed.  The first NMI nothing else claims
	 * before it is that one.  0: none owed. */
	uint64_t late_until;
	uint64_t unknown_nmis, late_nmis;
	char why[64];
} __attribute__((aligned(HAL_CACHELINE)));

extern struct x86_pmu_cpu x86_pmu_cpus[HAL_MAX_CPUS];

/* The backend, as the first CPU to choose one chose it: each CPU fills
 * its own and offers it with one compare-and-swap, so two CPUs choosing
 * at once (bring-up, `stat`'s first hal_pmu_events()) never mix
 * halves of their answers, and a reader that sees the pointer sees the
 * whole. */
struct x86_pmu_choice {
	const struct x86_pmu_ops *ops;
	unsigned width;				/* bits of the counter */
	struct x86_pmu_claim first;		/* the claim it was chosen on */
};

extern const struct x86_pmu_choice *x86_pmu_chosen;

static inline const struct x86_pmu_choice *pmu_choice(void)
{
	return __atomic_load_n(&x86_pmu_chosen, __ATOMIC_ACQUIRE);
}

/* The chosen vendor's table, NULL before any CPU chose. */
static inline const struct x86_pmu_ops *pmu_ops(void)
{
	const struct x86_pmu_choice *c = pmu_choice();

	return c ? c->ops : NULL;
}

/* Whether the chosen table has flag @flag (X86_PMU_*). */
static inline bool pmu_has(unsigned flag)
{
	return pmu_ops() && (pmu_ops()->flags & flag);
}

/* Only once a backend is chosen (every caller is past a verdict or a
 * chosen table). */
static inline unsigned pmu_width(void)
{
	return pmu_choice()->width;
}

static inline const struct x86_pmu_claim *pmu_first(void)
{
	return &pmu_choice()->first;
}

static inline struct x86_pmu_cpu *pmu_self(void)
{
	return &x86_pmu_cpus[hal_cpu_id()];
}

static inline uint64_t pmu_mask(void)
{
	return pmu_width() >= 64 ? ~0ull : (1ull << pmu_width()) - 1;
}

static inline uint64_t us_to_tsc(uint64_t us)
{
	return x86_hw_tsc_hz() / 1000000 * us;
}

/* Spin until @read moves from @first, bounded by TSC time (a vendor's
 * prove()). */
bool x86_pmu_moves(uint64_t (*read)(void), uint64_t first);

#endif
