/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/pmu.h for x86_64: one cycles counter per CPU overflowing into an
 * NMI, behind an ops table per vendor (Intel architectural perfmon, AMD
 * core-ext counters, AMD PerfMonV2), chosen once by the first probe.
 * Every access to the machine goes through pmu_hw.h, so that the Check
 * suite can compile this file against a modelled CPU (tests/kit/x86_model.c):
 * no inline assembly here. */
#include "hal/pmu.h"

#include "hal/cpu.h"
#include "hal/entry.h"
#include "lib/errno.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "lib/race_point.h"
#include "pmu_hw.h"

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
#define AMD_WIDTH			48

/* The local APIC's performance-counter LVT entry: xAPIC offset 0x340,
 * x2APIC MSR 0x834 (IA32_APIC_BASE bit 10 says which is live). */
#define MSR_IA32_APIC_BASE		0x1b
#define APIC_BASE_X2APIC		(1ull << 10)
#define LAPIC_LVT_PERF			0x340
#define MSR_X2APIC_LVT_PERF		0x834
#define LVT_DELIVER_NMI			(4u << 8)

#define PROBE_SPIN_US			10	/* a live counter moves at once */
#define DISARM_WAIT_US			50	/* an overflow NMI in flight */
#define LATE_WINDOW_US			1000	/* a late overflow lands by then */

/* One vendor's way with the one counter.  Only enable() ever makes it
 * count, and only hal_pmu_arm() calls it: the NMI path rewrites the
 * count of a counter that runs, and never enables one. */
struct x86_pmu_ops {
	const char *name;		/* in the report's source */
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

static struct x86_pmu_cpu x86_pmu_cpus[HAL_MAX_CPUS];

/* The backend, as the first CPU to choose one chose it: each CPU fills
 * its own and offers it with one compare-and-swap, so two CPUs choosing
 * at once (bring-up, `stat`'s first hal_pmu_count_events()) never mix
 * halves of their answers, and a reader that sees the pointer sees the
 * whole. */
struct x86_pmu_choice {
	const struct x86_pmu_ops *ops;
	unsigned width;				/* bits of the counter */
	struct x86_pmu_claim first;		/* the claim it was chosen on */
};

static struct x86_pmu_choice x86_pmu_choices[HAL_MAX_CPUS];
static const struct x86_pmu_choice *x86_pmu_chosen;

static const struct x86_pmu_choice *pmu_choice(void)
{
	return __atomic_load_n(&x86_pmu_chosen, __ATOMIC_ACQUIRE);
}

/* The chosen vendor's table, NULL before any CPU chose. */
static const struct x86_pmu_ops *pmu_ops(void)
{
	const struct x86_pmu_choice *c = pmu_choice();

	return c ? c->ops : NULL;
}

/* Only once a backend is chosen (every caller below is past a verdict
 * or a chosen table). */
static unsigned pmu_width(void)
{
	return pmu_choice()->width;
}

static const struct x86_pmu_claim *pmu_first(void)
{
	return &pmu_choice()->first;
}

static struct x86_pmu_cpu *pmu_self(void)
{
	return &x86_pmu_cpus[hal_cpu_id()];
}

static uint64_t pmu_mask(void)
{
	return pmu_width() >= 64 ? ~0ull : (1ull << pmu_width()) - 1;
}

static uint64_t us_to_tsc(uint64_t us)
{
	return x86_hw_tsc_hz() / 1000000 * us;
}

/* ---- CPUID: the claim ---- */

static void pmu_read_cpuid(struct x86_pmu_claim *c)
{
	uint32_t r[4], max, max_ext;
	unsigned nfixed;

	kmemset(c, 0, sizeof(*c));
	x86_hw_cpuid(0, 0, r);
	max = r[0];
	kmemcpy(c->vendor, &r[1], 4);
	kmemcpy(c->vendor + 4, &r[3], 4);
	kmemcpy(c->vendor + 8, &r[2], 4);
	if (max >= 0xa) {
		x86_hw_cpuid(0xa, 0, r);
		c->version = r[0] & 0xff;
		c->gp_counters = (r[0] >> 8) & 0xff;
		nfixed = r[3] & 0x1f;
		c->fixed_width = (r[3] >> 5) & 0xff;
		/* SDM: from v5, ECX bit i also enumerates fixed counter i. */
		c->fixed0 = nfixed >= 1 || (c->version >= 5 && (r[2] & 1));
		c->fixed1 = nfixed >= 2 || (c->version >= 5 && (r[2] & 2));
	}
	x86_hw_cpuid(0x80000000, 0, r);
	max_ext = r[0];
	if (max_ext >= 0x80000001 && max_ext < 0x8000ffff) {
		x86_hw_cpuid(0x80000001, 0, r);
		c->amd_core_ext = r[2] >> 23 & 1;
	}
	if (max_ext >= 0x80000022 && max_ext < 0x8000ffff) {
		x86_hw_cpuid(0x80000022, 0, r);
		c->amd_perfmon_v2 = r[0] & 1;
	}
}

/* The vendor string says whose MSRs these are, whatever leaves answer:
 * a hypervisor may expose leaf 0xA on an AMD part (or AMD's leaves on
 * an Intel one), and the other vendor's MSRs are not there. */
static bool vendor_intel(const struct x86_pmu_claim *c)
{
	return kstreq(c->vendor, "GenuineIntel");
}

static bool vendor_amd(const struct x86_pmu_claim *c)
{
	return kstreq(c->vendor, "AuthenticAMD") || kstreq(c->vendor, "HygonGenuine");
}

static bool intel_claims(const struct x86_pmu_claim *c)
{
	return vendor_intel(c) && c->version >= 2 && c->fixed1 && c->fixed_width >= 32;
}

static bool amd_claims(const struct x86_pmu_claim *c)
{
	return vendor_amd(c) && c->amd_core_ext;
}

static void pmu_claim_text(const struct x86_pmu_claim *c, char *s, size_t n)
{
	if (c->version && !vendor_amd(c))
		ksnprintf(s, n, "%s arch perfmon v%u, %u counters", c->vendor,
			  c->version, c->gp_counters);
	else if (c->amd_perfmon_v2)
		ksnprintf(s, n, "%s core-ext counters, perfmonv2", c->vendor);
	else if (c->amd_core_ext)
		ksnprintf(s, n, "%s core-ext counters", c->vendor);
	else
		ksnprintf(s, n, "%s, no performance counters", c->vendor);
}

/* Spin until @read moves from @first, bounded by TSC time. */
static bool pmu_moves(uint64_t (*read)(void), uint64_t first)
{
	uint64_t start = x86_hw_tsc(), limit = us_to_tsc(PROBE_SPIN_US);

	do {
		if (read() != first)
			return true;
	} while (x86_hw_tsc() - start < limit);
	return false;
}

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
	moved = pmu_moves(intel_ctr1, 0);
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

static const struct x86_pmu_ops intel_ops = {
	.name = "intel fixed-ctr1",
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
	moved = pmu_moves(amd_ctr0, 0);
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
 * counter, and a disarm of the legacy one, which has no global status,
 * waits for its NMI (pmu_ops() == &amd_ops below). */
#define AMD_OPS(label) {			\
	.name = label,				\
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

static const struct x86_pmu_ops amd_ops = AMD_OPS("amd pmc0");
static const struct x86_pmu_ops amd_v2_ops = AMD_OPS("amd perfmonv2");

/* ---- the LVT entry ---- */

/* Delivers NMI, unmasked: the APIC masks the entry as it delivers a PMI
 * (Intel SDM 3B 11.5.1; AMD APM 2, 16.4.1), so this follows every one. */
static void pmu_lvt_nmi(const struct x86_pmu_cpu *pc)
{
	if (pc->x2apic)
		x86_hw_wrmsr(MSR_X2APIC_LVT_PERF, LVT_DELIVER_NMI);
	else
		x86_hw_xapic_write(LAPIC_LVT_PERF, LVT_DELIVER_NMI);
}

/* ---- the probe: per CPU, cached ---- */

/* Choose the ops table from the first CPU's claim: the vendor does not
 * change from one CPU to the next.  Any context on the calling CPU. */
static void pmu_choose(const struct x86_pmu_claim *c)
{
	struct x86_pmu_choice *mine = &x86_pmu_choices[hal_cpu_id()];
	const struct x86_pmu_choice *none = NULL;

	if (pmu_choice() || !(intel_claims(c) || amd_claims(c)))
		return;
	mine->first = *c;
	if (intel_claims(c)) {
		mine->width = c->fixed_width;
		mine->ops = &intel_ops;
	} else {
		mine->width = AMD_WIDTH;
		mine->ops = c->amd_perfmon_v2 ? &amd_v2_ops : &amd_ops;
	}
	race_point("x86-pmu-choose");
	__atomic_compare_exchange_n(&x86_pmu_chosen, &none, mine, false,
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* The calling CPU's claim, and the backend chosen on it if none is. */
static void pmu_choose_self(struct x86_pmu_claim *c)
{
	pmu_read_cpuid(c);
	pmu_choose(c);
}

/* The calling CPU's counter, once: interrupts off, no PMI. */
static void pmu_probe_self(struct x86_pmu_cpu *pc)
{
	struct x86_pmu_claim claim, *c = &claim;
	uint64_t base;

	if (pc->verdict != V_UNKNOWN)
		return;
	pmu_choose_self(c);
	if (!pmu_ops() || !(intel_claims(c) || amd_claims(c))) {
		pc->verdict = V_NONE;
		kstrlcpy(pc->why, c->version || c->amd_core_ext ?
			 "no counter this backend can drive" : "nothing claimed",
			 sizeof(pc->why));
		return;
	}
	pc->x2apic = x86_hw_rdmsr_safe(MSR_IA32_APIC_BASE, &base) == 0 &&
		     (base & APIC_BASE_X2APIC);
	pc->verdict = pmu_ops()->prove(pc->why, sizeof(pc->why)) == 0 ? V_COUNTS
								     : V_CLAIMED;
}

void hal_pmu_probe(struct hal_pmu_info *info)
{
	struct x86_pmu_cpu *pc = pmu_self();
	struct x86_pmu_claim c;

	pmu_probe_self(pc);
	pmu_read_cpuid(&c);
	kmemset(info, 0, sizeof(*info));
	pmu_claim_text(&c, info->claim, sizeof(info->claim));
	info->claimed = pc->verdict >= V_CLAIMED;
	info->counts = pc->verdict == V_COUNTS;
	info->events_per_sec = x86_hw_tsc_hz();
	if (info->counts)
		ksnprintf(info->source, sizeof(info->source), "pmu/nmi %s",
			  pmu_ops()->name);
	else if (pc->verdict == V_CLAIMED)
		kstrlcpy(info->why_not, pc->why, sizeof(info->why_not));
}

/* ---- sampling ---- */

/* The rules, since an NMI can land between any two accesses here:
 * only hal_pmu_arm() enables the counter, and only once its count is
 * written and its status clear; the NMI path claims an overflow of a
 * counter that is running or stopping, rewrites its count and clears its
 * status, and never enables it; hal_pmu_disarm() first moves it from
 * running to stopping (its claim window), then stops it, and leaves an
 * overflow it could not see claimed as owed.  So every NMI the counter
 * raised is claimed exactly once, and none other is. */

static bool count_on[HAL_MAX_CPUS];

int hal_pmu_arm(uint64_t period)
{
	struct x86_pmu_cpu *pc = pmu_self();
	uint64_t owed;

	pmu_probe_self(pc);
	if (pc->verdict != V_COUNTS || !period)
		return -ENODEV;
	/* `stat` has the same counter enabled (fixed counter 1, PERF_CTL0):
	 * its close would stop ours. */
	if (count_on[hal_cpu_id()])
		return -EBUSY;
	__atomic_store_n(&pc->period, period, __ATOMIC_RELAXED);
	__atomic_store_n(&pc->used, true, __ATOMIC_RELAXED);
	pmu_lvt_nmi(pc);
	/* A PMI the last disarm owes keeps its credit while it can still
	 * land; an expired one must not make a foreign NMI ours. */
	owed = __atomic_load_n(&pc->late_until, __ATOMIC_RELAXED);
	if (owed && x86_hw_tsc() >= owed)
		__atomic_store_n(&pc->late_until, 0, __ATOMIC_RELAXED);
	pmu_ops()->program(-period);
	__atomic_store_n(&pc->state, X86_RUNNING, __ATOMIC_RELAXED);
	race_point("x86-pmu");
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pmu_ops()->enable();
	return 0;
}

/* An overflow's status cleared, so that the counter cannot read as
 * overflowed; below zero again, a period from its next overflow. */
static void pmu_reset_overflow(struct x86_pmu_cpu *pc)
{
	pmu_ops()->rewrite(-__atomic_load_n(&pc->period, __ATOMIC_RELAXED));
	pmu_ops()->clear();
}

/* The overflow stop() left showing had raised its PMI (the LVT entry
 * is unmasked outside our handler): owe it a claim until it lands. */
static void pmu_owe_overflow(struct x86_pmu_cpu *pc)
{
	uint64_t start;

	__atomic_store_n(&pc->late_until, x86_hw_tsc() + us_to_tsc(LATE_WINDOW_US),
			 __ATOMIC_RELAXED);
	race_point("x86-pmu");
	/* The credit is stored before landed is read: an NMI between the
	 * two finds the credit, one before it set landed. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* Claimed between the status read and the credit: none owed. */
	if (__atomic_load_n(&pc->landed, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&pc->late_until, 0, __ATOMIC_RELAXED);
		race_point("x86-pmu");
		return;
	}
	if (pmu_ops() != &amd_ops)
		return;
	/* AMD without global status: once the count is rewritten nothing
	 * says an overflow was there, so wait, bounded, for the NMI to
	 * land while it still can be told from another's. */
	start = x86_hw_tsc();
	while (__atomic_load_n(&pc->late_until, __ATOMIC_ACQUIRE) &&
	       x86_hw_tsc() - start < us_to_tsc(DISARM_WAIT_US))
		;
}

int hal_pmu_disarm(void)
{
	struct x86_pmu_cpu *pc = pmu_self();

	if (__atomic_load_n(&pc->state, __ATOMIC_RELAXED) != X86_RUNNING)
		return pc->verdict == V_COUNTS ? 0 : -ENODEV;
	__atomic_store_n(&pc->landed, false, __ATOMIC_RELAXED);
	/* Not running, and in its claim window, in one store: from here
	 * no NMI rewrites the count, and an overflow is still claimed. */
	__atomic_store_n(&pc->state, X86_STOPPING, __ATOMIC_RELEASE);
	race_point("x86-pmu");
	pmu_ops()->stop();
	if (pmu_ops()->overflowed())
		pmu_owe_overflow(pc);
	pmu_reset_overflow(pc);
	__atomic_store_n(&pc->state, X86_IDLE, __ATOMIC_RELEASE);
	race_point("x86-pmu");
	return 0;
}

bool hal_pmu_ack(void)
{
	struct x86_pmu_cpu *pc = pmu_self();
	unsigned state = __atomic_load_n(&pc->state, __ATOMIC_ACQUIRE);

	if (!pmu_ops() || state == X86_IDLE)
		return false;
	if (!pmu_ops()->overflowed() &&
	    !(state == X86_STOPPING && __atomic_load_n(&pc->late_until, __ATOMIC_RELAXED)))
		return false;
	pmu_reset_overflow(pc);
	if (state == X86_STOPPING) {
		__atomic_store_n(&pc->landed, true, __ATOMIC_RELEASE);
		race_point("x86-pmu");
		__atomic_store_n(&pc->late_until, 0, __ATOMIC_RELEASE);
		race_point("x86-pmu");
	}
	pmu_lvt_nmi(pc);
	return true;
}

/* The ack rewrote the count to a whole period from its next overflow:
 * what ran past this one is not carried, and is small against the
 * period (the NMI is taken within a few hundred cycles). */
uint64_t hal_pmu_sample_events(void)
{
	return __atomic_load_n(&pmu_self()->period, __ATOMIC_RELAXED);
}

/* The profiler's throttle, from inside our NMI: the ack rewrote the
 * count moments ago, so rewriting it again at the new period loses
 * nothing.  Only a running counter is touched, and none is enabled. */
int hal_pmu_set_period(uint64_t period)
{
	struct x86_pmu_cpu *pc = pmu_self();

	if (!pmu_ops() || __atomic_load_n(&pc->state, __ATOMIC_RELAXED) != X86_RUNNING)
		return -ENODEV;
	if (!period || period >= (pmu_mask() >> 1))
		return -ERANGE;
	__atomic_store_n(&pc->period, period, __ATOMIC_RELAXED);
	pmu_ops()->rewrite(-period);
	return 0;
}

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

/* lscpu: a line per CPU, then the NMIs no source claimed. */
void hal_pmu_facts(struct hal_pmu_facts *f)
{
	unsigned n = hal_cpu_count();

	f->cpus = true;
	f->nmis = true;
	if (n > HAL_MAX_CPUS)
		n = HAL_MAX_CPUS;
	for (unsigned cpu = 0; cpu < n; cpu++) {
		f->unknown_nmis += __atomic_load_n(&x86_pmu_cpus[cpu].unknown_nmis,
						   __ATOMIC_RELAXED);
		f->late_nmis += __atomic_load_n(&x86_pmu_cpus[cpu].late_nmis,
						__ATOMIC_RELAXED);
	}
}

void hal_pmu_cpu_facts(unsigned cpu, struct hal_pmu_cpu_facts *f)
{
	const struct x86_pmu_cpu *pc = &x86_pmu_cpus[cpu];

	f->verdict = (enum hal_pmu_verdict)pc->verdict;
	f->used = __atomic_load_n(&pc->used, __ATOMIC_RELAXED);
	/* Why a claimed counter did not prove itself; an unclaimed one's
	 * reason is the claim lscpu already printed. */
	if (pc->verdict == V_CLAIMED)
		kstrlcpy(f->why, pc->why, sizeof(f->why));
}

/* ---- counting (`stat`): cycles and instructions ---- */

/* `stat` asks before any CPU may have probed: the width is the chosen
 * backend's, chosen here from this CPU's claim if need be. */
unsigned hal_pmu_count_events(const char *names[], unsigned bits[])
{
	struct x86_pmu_claim c;

	pmu_choose_self(&c);
	names[0] = "cycles";
	names[1] = "instructions";
	bits[0] = bits[1] = pmu_choice() ? pmu_width() : 48;
	return 2;
}

void hal_pmu_count_open(bool open[])
{
	struct x86_pmu_cpu *pc = pmu_self();

	pmu_probe_self(pc);
	open[0] = open[1] = false;
	if (pc->verdict != V_COUNTS ||
	    __atomic_load_n(&pc->state, __ATOMIC_RELAXED) != X86_IDLE)
		return;
	pmu_ops()->count_start();
	count_on[hal_cpu_id()] = true;
	open[0] = true;
	open[1] = pmu_ops() != &intel_ops || pmu_first()->fixed0;
}

void hal_pmu_count_read(uint64_t values[])
{
	values[0] = values[1] = 0;
	if (count_on[hal_cpu_id()])
		pmu_ops()->count_read(values);
}

void hal_pmu_count_close(void)
{
	if (!count_on[hal_cpu_id()])
		return;
	pmu_ops()->count_stop();
	count_on[hal_cpu_id()] = false;
}
