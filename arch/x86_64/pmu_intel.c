/* SPDX-License-Identifier: BSD-2-Clause */
/* The PMU backend's Intel table: fixed counter 1 (unhalted core cycles)
 * sampling, fixed counters 1 and 0 counting for `stat` -- Intel's
 * architectural perfmon MSRs and nothing else.  The choice of table, the
 * sampling rules and the NMI are pmu.c's and pmu_nmi.c's. */
#include "lib/errno.h"
#include "lib/fmt.h"
#include "pmu_priv.h"

/* Intel SDM Vol. 3B ch. 20 (architectural performance monitoring). */
#define MSR_IA32_FIXED_CTR0		0x309	/* instructions retired */
#define MSR_IA32_FIXED_CTR1		0x30a	/* unhalted core cycles */
#define MSR_IA32_FIXED_CTR_CTRL		0x38d
#define MSR_IA32_PERF_GLOBAL_STATUS	0x38e
#define MSR_IA32_PERF_GLOBAL_CTRL	0x38f
#define MSR_IA32_PERF_GLOBAL_OVF_CTRL	0x390	/* STATUS_RESET from v4 */
#define MSR_IA32_DEBUGCTL		0x1d9
#define DEBUGCTL_FREEZE_PERFMON_ON_PMI	(1ull << 12)
#define FIXED_CTRL_OS(i)		(1ull << (4 * (i)))
#define FIXED_CTRL_PMI(i)		(1ull << (4 * (i) + 3))
#define FIXED_CTRL_FIELD(i)		(0xfull << (4 * (i)))
#define GLOBAL_FIXED(i)			(1ull << (32 + (i)))

/* ---- Intel: fixed counter 1, unhalted core cycles ---- */

static uint64_t intel_ctr1(void)
{
	return x86_hw_rdmsr(MSR_IA32_FIXED_CTR1);
}

static void intel_stop(void)
{
	uint64_t g = x86_hw_rdmsr(MSR_IA32_PERF_GLOBAL_CTRL);
	uint64_t f = x86_hw_rdmsr(MSR_IA32_FIXED_CTR_CTRL);

	x86_hw_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, g & ~GLOBAL_FIXED(1));
	x86_hw_wrmsr(MSR_IA32_FIXED_CTR_CTRL, f & ~FIXED_CTRL_FIELD(1));
}

static int intel_prove(char *why, size_t len)
{
	uint64_t f, g, dbg;
	bool moved;

	if (x86_hw_rdmsr_safe(MSR_IA32_FIXED_CTR_CTRL, &f) < 0 ||
	    x86_hw_rdmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, &g) < 0 ||
	    x86_hw_rdmsr_safe(MSR_IA32_FIXED_CTR1, &(uint64_t){ 0 }) < 0 ||
	    x86_hw_rdmsr_safe(MSR_IA32_PERF_GLOBAL_STATUS, &(uint64_t){ 0 }) < 0) {
		ksnprintf(why, len, "claimed, but its MSRs fault");
		return -EIO;
	}
	/* Linux's check_hw_exists: a counter already enabled is someone
	 * else's (firmware, a hypervisor's own use). */
	if (f & FIXED_CTRL_FIELD(1) & 0x30) {
		ksnprintf(why, len, "fixed counter 1 in use by firmware");
		return -EBUSY;
	}
	/* Set, the counters freeze at the first PMI and never restart. */
	if (x86_hw_rdmsr_safe(MSR_IA32_DEBUGCTL, &dbg) == 0 &&
	    (dbg & DEBUGCTL_FREEZE_PERFMON_ON_PMI) &&
	    x86_hw_wrmsr_safe(MSR_IA32_DEBUGCTL,
			      dbg & ~DEBUGCTL_FREEZE_PERFMON_ON_PMI) < 0) {
		ksnprintf(why, len, "FREEZE_PERFMON_ON_PMI cannot be cleared");
		return -EIO;
	}
	if (x86_hw_wrmsr_safe(MSR_IA32_FIXED_CTR1, 0) < 0 ||
	    x86_hw_wrmsr_safe(MSR_IA32_FIXED_CTR_CTRL,
			      (f & ~FIXED_CTRL_FIELD(1)) | FIXED_CTRL_OS(1)) < 0 ||
	    x86_hw_wrmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, g | GLOBAL_FIXED(1)) < 0) {
		ksnprintf(why, len, "claimed, but its MSRs fault");
		return -EIO;
	}
	moved = x86_pmu_moves(intel_ctr1, 0);
	x86_hw_wrmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, g & ~GLOBAL_FIXED(1));
	x86_hw_wrmsr_safe(MSR_IA32_FIXED_CTR_CTRL, f & ~FIXED_CTRL_FIELD(1));
	x86_hw_wrmsr_safe(MSR_IA32_FIXED_CTR1, 0);
	if (!moved) {
		ksnprintf(why, len, "counter did not move in %u us", PROBE_SPIN_US);
		return -ENODEV;
	}
	return 0;
}

static void intel_rewrite(uint64_t count)
{
	x86_hw_wrmsr(MSR_IA32_FIXED_CTR1, count & pmu_mask());
}

static void intel_program(uint64_t count)
{
	intel_stop();
	intel_rewrite(count);
	x86_hw_wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GLOBAL_FIXED(1));
}

static void intel_enable(void)
{
	uint64_t f = x86_hw_rdmsr(MSR_IA32_FIXED_CTR_CTRL) & ~FIXED_CTRL_FIELD(1);

	x86_hw_wrmsr(MSR_IA32_FIXED_CTR_CTRL,
		     f | FIXED_CTRL_OS(1) | FIXED_CTRL_PMI(1));
	x86_hw_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL,
		     x86_hw_rdmsr(MSR_IA32_PERF_GLOBAL_CTRL) | GLOBAL_FIXED(1));
}

static bool intel_overflowed(void)
{
	/* Masked to the one counter we own. */
	return x86_hw_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & GLOBAL_FIXED(1);
}

static void intel_clear(void)
{
	/* GLOBAL_OVF_CTRL, named GLOBAL_STATUS_RESET from v4: same MSR,
	 * same bit. */
	x86_hw_wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GLOBAL_FIXED(1));
}

static void intel_count_start(void)
{
	uint64_t f = x86_hw_rdmsr(MSR_IA32_FIXED_CTR_CTRL);
	uint64_t g = x86_hw_rdmsr(MSR_IA32_PERF_GLOBAL_CTRL);

	f &= ~(FIXED_CTRL_FIELD(0) | FIXED_CTRL_FIELD(1));
	if (pmu_first()->fixed0)
		f |= FIXED_CTRL_OS(0);
	x86_hw_wrmsr(MSR_IA32_FIXED_CTR_CTRL, f | FIXED_CTRL_OS(1));
	g |= GLOBAL_FIXED(1) | (pmu_first()->fixed0 ? GLOBAL_FIXED(0) : 0);
	x86_hw_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, g);
}

static void intel_count_read(uint64_t v[2])
{
	v[0] = x86_hw_rdmsr(MSR_IA32_FIXED_CTR1);
	v[1] = pmu_first()->fixed0 ? x86_hw_rdmsr(MSR_IA32_FIXED_CTR0) : 0;
}

static void intel_count_stop(void)
{
	uint64_t f = x86_hw_rdmsr(MSR_IA32_FIXED_CTR_CTRL);
	uint64_t g = x86_hw_rdmsr(MSR_IA32_PERF_GLOBAL_CTRL);

	x86_hw_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, g & ~(GLOBAL_FIXED(0) | GLOBAL_FIXED(1)));
	x86_hw_wrmsr(MSR_IA32_FIXED_CTR_CTRL,
		     f & ~(FIXED_CTRL_FIELD(0) | FIXED_CTRL_FIELD(1)));
}

const struct x86_pmu_ops x86_intel_ops = {
	.name = "intel fixed-ctr1",
	.flags = X86_PMU_GLOBAL_STATUS | X86_PMU_INSN_FIXED0,
	.prove = intel_prove,
	.program = intel_program,
	.enable = intel_enable,
	.stop = intel_stop,
	.rewrite = intel_rewrite,
	.overflowed = intel_overflowed,
	.clear = intel_clear,
	.count_start = intel_count_start,
	.count_read = intel_count_read,
	.count_stop = intel_count_stop,
};
