/* SPDX-License-Identifier: BSD-2-Clause */
/* The PMU backend's AMD tables: PERF_CTL0/CTR0 of the core extension
 * sampling cycles, counters 0 and 1 counting for `stat`, with
 * PerfMonV2's global registers where the part has them -- AMD's MSRs
 * and nothing else.  The choice of table, the sampling rules and the NMI
 * are pmu.c's and pmu_nmi.c's. */
#include "lib/errno.h"
#include "lib/fmt.h"
#include "pmu_priv.h"

/* AMD APM Vol. 2 ch. 13.2 (core performance counters) and 13.2.2.1
 * (PerfMonV2 global control). */
#define MSR_AMD_PERF_CTL(i)		(0xc0010200u + 2 * (i))
#define MSR_AMD_PERF_CTR(i)		(0xc0010201u + 2 * (i))
#define MSR_AMD_GLOBAL_STATUS		0xc0000300
#define MSR_AMD_GLOBAL_CTL		0xc0000301
#define MSR_AMD_GLOBAL_STATUS_CLR	0xc0000302
#define AMD_CTL_OS			(1ull << 17)
#define AMD_CTL_INT			(1ull << 20)
#define AMD_CTL_EN			(1ull << 22)
#define AMD_EVENT_CYCLES		0x76	/* PMCx076, CPU clocks not halted */
#define AMD_EVENT_INSTRUCTIONS		0xc0	/* PMCx0C0, retired instructions */

/* ---- AMD: PERF_CTL0/CTR0 of the core extension, PMCx076 ---- */

static bool amd_v2(void)
{
	return pmu_first()->amd_perfmon_v2;
}

static uint64_t amd_ctr0(void)
{
	return x86_hw_rdmsr(MSR_AMD_PERF_CTR(0));
}

static int amd_prove(char *why, size_t len)
{
	uint64_t ctl, g = 0;
	bool moved;

	if (x86_hw_rdmsr_safe(MSR_AMD_PERF_CTL(0), &ctl) < 0 ||
	    x86_hw_rdmsr_safe(MSR_AMD_PERF_CTR(0), &(uint64_t){ 0 }) < 0 ||
	    (amd_v2() && x86_hw_rdmsr_safe(MSR_AMD_GLOBAL_CTL, &g) < 0)) {
		ksnprintf(why, len, "claimed, but its MSRs fault");
		return -EIO;
	}
	if (ctl & AMD_CTL_EN) {
		ksnprintf(why, len, "counter 0 in use by firmware");
		return -EBUSY;
	}
	if (x86_hw_wrmsr_safe(MSR_AMD_PERF_CTR(0), 0) < 0 ||
	    x86_hw_wrmsr_safe(MSR_AMD_PERF_CTL(0), AMD_EVENT_CYCLES | AMD_CTL_OS) < 0 ||
	    (amd_v2() && x86_hw_wrmsr_safe(MSR_AMD_GLOBAL_CTL, g | 1) < 0) ||
	    x86_hw_wrmsr_safe(MSR_AMD_PERF_CTL(0),
			      AMD_EVENT_CYCLES | AMD_CTL_OS | AMD_CTL_EN) < 0) {
		ksnprintf(why, len, "claimed, but its MSRs fault");
		return -EIO;
	}
	moved = x86_pmu_moves(amd_ctr0, 0);
	x86_hw_wrmsr_safe(MSR_AMD_PERF_CTL(0), 0);
	if (amd_v2())
		x86_hw_wrmsr_safe(MSR_AMD_GLOBAL_CTL, g & ~1ull);
	x86_hw_wrmsr_safe(MSR_AMD_PERF_CTR(0), 0);
	if (!moved) {
		ksnprintf(why, len, "counter did not move in %u us", PROBE_SPIN_US);
		return -ENODEV;
	}
	return 0;
}

static void amd_stop(void)
{
	x86_hw_wrmsr(MSR_AMD_PERF_CTL(0), AMD_EVENT_CYCLES | AMD_CTL_OS);
	if (amd_v2())
		x86_hw_wrmsr(MSR_AMD_GLOBAL_CTL,
			     x86_hw_rdmsr(MSR_AMD_GLOBAL_CTL) & ~1ull);
}

static void amd_rewrite(uint64_t count)
{
	x86_hw_wrmsr(MSR_AMD_PERF_CTR(0), count & pmu_mask());
}

static void amd_program(uint64_t count)
{
	amd_stop();
	amd_rewrite(count);
	if (amd_v2())
		x86_hw_wrmsr(MSR_AMD_GLOBAL_STATUS_CLR, 1);
}

static void amd_enable(void)
{
	x86_hw_wrmsr(MSR_AMD_PERF_CTL(0),
		     AMD_EVENT_CYCLES | AMD_CTL_OS | AMD_CTL_INT | AMD_CTL_EN);
	/* PerfMonV2: counts only with both EN and its GLOBAL_CTL bit. */
	if (amd_v2())
		x86_hw_wrmsr(MSR_AMD_GLOBAL_CTL,
			     x86_hw_rdmsr(MSR_AMD_GLOBAL_CTL) | 1);
}

static bool amd_overflowed(void)
{
	/* Masked to our counter: some microcode sets reserved bits. */
	if (amd_v2())
		return x86_hw_rdmsr(MSR_AMD_GLOBAL_STATUS) & 1;
	/* Armed below zero: the top bit clears when it passes zero. */
	return !(amd_ctr0() & (1ull << (AMD_WIDTH - 1)));
}

static void amd_clear(void)
{
	/* Without global status the overflow is the count itself, which
	 * the caller has just rewritten below zero. */
	if (amd_v2())
		x86_hw_wrmsr(MSR_AMD_GLOBAL_STATUS_CLR, 1);
}

static void amd_count_start(void)
{
	x86_hw_wrmsr(MSR_AMD_PERF_CTL(0), AMD_EVENT_CYCLES | AMD_CTL_OS | AMD_CTL_EN);
	x86_hw_wrmsr(MSR_AMD_PERF_CTL(1),
		     AMD_EVENT_INSTRUCTIONS | AMD_CTL_OS | AMD_CTL_EN);
	if (amd_v2())
		x86_hw_wrmsr(MSR_AMD_GLOBAL_CTL,
			     x86_hw_rdmsr(MSR_AMD_GLOBAL_CTL) | 3);
}

static void amd_count_read(uint64_t v[2])
{
	v[0] = x86_hw_rdmsr(MSR_AMD_PERF_CTR(0));
	v[1] = x86_hw_rdmsr(MSR_AMD_PERF_CTR(1));
}

static void amd_count_stop(void)
{
	x86_hw_wrmsr(MSR_AMD_PERF_CTL(0), 0);
	x86_hw_wrmsr(MSR_AMD_PERF_CTL(1), 0);
	if (amd_v2())
		x86_hw_wrmsr(MSR_AMD_GLOBAL_CTL,
			     x86_hw_rdmsr(MSR_AMD_GLOBAL_CTL) & ~3ull);
}

/* One set of functions for both: they ask amd_v2() where PerfMonV2's
 * global registers matter.  Two tables because the report names the
 * counter, and the legacy one, without global status, has its overflow
 * only in the count (its flags: a disarm waits for its NMI, pmu.c). */
#define AMD_OPS(label, status_flag) {		\
	.name = label, .flags = status_flag,	\
	.prove = amd_prove,			\
	.program = amd_program,			\
	.enable = amd_enable,			\
	.stop = amd_stop,			\
	.rewrite = amd_rewrite,			\
	.overflowed = amd_overflowed,		\
	.clear = amd_clear,			\
	.count_start = amd_count_start,		\
	.count_read = amd_count_read,		\
	.count_stop = amd_count_stop,		\
}

const struct x86_pmu_ops x86_amd_ops = AMD_OPS("amd pmc0", 0);
const struct x86_pmu_ops x86_amd_v2_ops = AMD_OPS("amd perfmonv2", X86_PMU_GLOBAL_STATUS);
