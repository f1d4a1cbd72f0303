/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/pmu.h for x86_64: one cycles counter per CPU overflowing into an
 * NMI, behind an ops table per vendor (pmu_intel.c: architectural
 * perfmon; pmu_amd.c: core-ext counters, PerfMonV2), chosen once by the
 * first probe.  Here: the claim, the choice, the probe, the sampling
 * rules, lscpu's facts and `stat`; the NMI's sources are pmu_nmi.c's.
 * Every access to the machine goes through pmu_hw.h, so that the Check
 * suite can compile these files against a modelled CPU
 * (tests/kit/x86_model.c): no inline assembly here. */
#include "hal/pmu.h"

#include "hal/cpu.h"
#include "hal/entry.h"
#include "lib/errno.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "lib/race_point.h"
#include "pmu_hw.h"
#include "pmu_priv.h"

/* The local APIC's performance-counter LVT entry: xAPIC offset 0x340,
 * x2APIC MSR 0x834 (IA32_APIC_BASE bit 10 says which is live). */
#define MSR_IA32_APIC_BASE		0x1b
#define APIC_BASE_X2APIC		(1ull << 10)
#define LAPIC_LVT_PERF			0x340
#define MSR_X2APIC_LVT_PERF		0x834
#define LVT_DELIVER_NMI			(4u << 8)

#define DISARM_WAIT_US			50	/* an overflow NMI in flight */
#define LATE_WINDOW_US			1000	/* a late overflow lands by then */

struct x86_pmu_cpu x86_pmu_cpus[HAL_MAX_CPUS];
static struct x86_pmu_choice x86_pmu_choices[HAL_MAX_CPUS];
const struct x86_pmu_choice *x86_pmu_chosen;

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

bool x86_pmu_moves(uint64_t (*read)(void), uint64_t first)
{
	uint64_t start = x86_hw_tsc(), limit = us_to_tsc(PROBE_SPIN_US);

	do {
		if (read() != first)
			return true;
	} while (x86_hw_tsc() - start < limit);
	return false;
}

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
		mine->ops = &x86_intel_ops;
	} else {
		mine->width = AMD_WIDTH;
		mine->ops = c->amd_perfmon_v2 ? &x86_amd_v2_ops : &x86_amd_ops;
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
	if (pmu_has(X86_PMU_GLOBAL_STATUS))
		return;
	/* Without global status (AMD before PerfMonV2): once the count is
	 * rewritten nothing says an overflow was there, so wait, bounded,
	 * for the NMI to land while it still can be told from another's. */
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

/* ---- counting (`events`, `stat`): cycles and instructions ----
 *
 * The backend counts the pair it samples with (Intel fixed counters 1
 * and 0, AMD's core counters 0 and 1 with events 0x76 and 0xC0), always
 * both at once: to the portable core they are two fixed counters, so it
 * never multiplexes them.  General counters with any event select are
 * not driven yet (issue 57's x86 part). */

static unsigned count_ev[HAL_MAX_CPUS][2], count_n[HAL_MAX_CPUS];

/* `stat` asks before any CPU may have probed: the width is the chosen
 * backend's, chosen here from this CPU's claim if need be. */
unsigned hal_pmu_events(struct hal_pmu_event ev[], unsigned max,
			struct hal_pmu_counters *counters)
{
	static const char *const names[2] = { "cycles", "instructions" };
	struct x86_pmu_cpu *pc = pmu_self();
	struct x86_pmu_claim c;
	unsigned n = max < 2 ? max : 2;
	bool counts;
	int verdict;

	/* No probe here: a CPU probes at its bring-up or first open, and
	 * asking must not move the race sweep's interleavings.  A claim not
	 * yet probed is taken as counting until its open says otherwise
	 * (the open refuses, and `stat` says not counted). */
	pmu_choose_self(&c);
	verdict = __atomic_load_n(&pc->verdict, __ATOMIC_ACQUIRE);
	counts = verdict == V_COUNTS || (verdict == V_UNKNOWN && pmu_choice());
	counters->general = 0;
	counters->fixed = 2;
	for (unsigned i = 0; i < n; i++) {
		kmemset(&ev[i], 0, sizeof(ev[i]));
		ev[i].name = names[i];
		ev[i].bits = pmu_choice() ? pmu_width() : 48;
		ev[i].fixed = (int)i;
		ev[i].standard = true;
		ev[i].counts = counts && (i == 0 || !pmu_has(X86_PMU_INSN_FIXED0) ||
					  pmu_first()->fixed0);
		ksnprintf(ev[i].source, sizeof(ev[i].source), "%s %s counter",
			  pmu_choice() ? pmu_ops()->name : "no", i ? "instructions" : "cycles");
		if (!ev[i].counts)
			kstrlcpy(ev[i].why_not, counts ?
				 "the part has no instructions counter" :
				 (pc->why[0] ? pc->why : "no counter claimed"), sizeof(ev[i].why_not));
	}
	return n;
}

void hal_pmu_count_open(const unsigned ev[], unsigned n, bool open[])
{
	struct x86_pmu_cpu *pc = pmu_self();
	unsigned cpu = hal_cpu_id();
	bool insn;

	pmu_probe_self(pc);
	count_n[cpu] = n > 2 ? 2 : n;
	for (unsigned i = 0; i < count_n[cpu]; i++) {
		count_ev[cpu][i] = ev[i];
		open[i] = false;
	}
	if (!n || pc->verdict != V_COUNTS ||
	    __atomic_load_n(&pc->state, __ATOMIC_RELAXED) != X86_IDLE)
		return;
	pmu_ops()->count_start();
	count_on[cpu] = true;
	insn = !pmu_has(X86_PMU_INSN_FIXED0) || pmu_first()->fixed0;
	for (unsigned i = 0; i < count_n[cpu]; i++)
		open[i] = ev[i] == 0 || (ev[i] == 1 && insn);
}

void hal_pmu_count_read(uint64_t values[])
{
	unsigned cpu = hal_cpu_id();
	uint64_t v[2] = { 0, 0 };

	if (count_on[cpu])
		pmu_ops()->count_read(v);
	for (unsigned i = 0; i < count_n[cpu]; i++)
		values[i] = count_ev[cpu][i] < 2 ? v[count_ev[cpu][i]] : 0;
}

/* x86 has no software-increment event. */
bool hal_pmu_soft_incr(void)
{
	return false;
}

void hal_pmu_count_close(void)
{
	if (!count_on[hal_cpu_id()])
		return;
	pmu_ops()->count_stop();
	count_on[hal_cpu_id()] = false;
}
