/* SPDX-License-Identifier: BSD-2-Clause */
/* The x86 PMU backend (arch/x86_64/pmu.c) against modelled CPUs
 * (tests/kit/x86_model.c): probe verdicts, arm/overflow/ack/re-arm per
 * vendor, the late overflow, every NMI source, the handler's cost and
 * the throttle's period change (the throttle's rule is the profiler's:
 * tests/prof/check_profiler.c), stat's
 * counts and the x2APIC LVT entry. */
#include <check.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "hal/entry.h"
#include "hal/pmu.h"
#include "lib/errno.h"
#include "lib/out.h"
#include "x86_model.h"
#include "../arch/x86_64/pmu_hw.h"

#define MASK48	((1ull << 48) - 1)

/* The portable kernel's side of an NMI, as kernel_nmi() does it: the
 * panic stop first (parks: never returns), then the profiler, whose
 * overflow is ours only while it is armed and the backend acks. */
/* `stat`'s two events, cycles and instructions, by their table ids. */
static const unsigned both[2] = { 0, 1 };

static bool stub_armed, stub_stop;
static unsigned stub_samples, stub_parked;
static uint64_t stub_cost;
static jmp_buf stub_park;
/* What kernel_pmu_took() was told, how often, and the period it sets
 * from inside the NMI (0: none) with hal_pmu_set_period()'s answer. */
static uint64_t took_ns, took_n, took_set;
static int took_set_r;

void kernel_pmu_took(uint64_t ns)
{
	took_ns = ns;
	took_n++;
	if (took_set)
		took_set_r = hal_pmu_set_period(took_set);
}

bool kernel_nmi(struct trap_frame *tf)
{
	(void)tf;
	if (stub_stop) {
		stub_parked++;
		longjmp(stub_park, 1);
	}
	if (!stub_armed || !hal_pmu_ack())
		return false;
	stub_samples++;
	model_tsc += stub_cost;		/* the handler's own time */
	return true;
}

/* The platform's CPU number, as the backend asks it: the model's. */
unsigned hal_cpu_id(void)
{
	return model_cpu();
}

unsigned hal_cpu_count(void)
{
	return model_ncpus();
}

static void setup(enum model_part p)
{
	model_init(p, 2);
	stub_armed = stub_stop = false;
	stub_samples = stub_parked = 0;
	stub_cost = 0;
	took_ns = took_n = took_set = 0;
	took_set_r = 1;
}

static struct hal_pmu_info probe(void)
{
	struct hal_pmu_info info;

	hal_pmu_probe(&info);
	return info;
}

static void arm(uint64_t period)
{
	stub_armed = true;
	ck_assert_int_eq(hal_pmu_arm(period), 0);
}

static void disarm(void)
{
	ck_assert_int_eq(hal_pmu_disarm(), 0);
	stub_armed = false;
}

static void no_violations(void)
{
	ck_assert_msg(model_violations == 0, "model: %s", model_violation);
}

/* What the backend tells lscpu, in short: "N unknown N late" and per
 * CPU its verdict (probed? claimed? proven), used, and why not. */
static const char *lscpu(void)
{
	static const char *const verdict[] = {
		[HAL_PMU_NOT_PROBED] = "not probed", [HAL_PMU_NOT_CLAIMED] = "not claimed",
		[HAL_PMU_NOT_PROVEN] = "not proven", [HAL_PMU_PROVEN] = "proven",
	};
	static char buf[1024];
	struct hal_pmu_facts f;
	size_t len;

	memset(&f, 0, sizeof(f));
	hal_pmu_facts(&f);
	ck_assert(f.cpus && f.nmis);
	len = (size_t)snprintf(buf, sizeof(buf), "%llu unknown %llu late\n",
			       (unsigned long long)f.unknown_nmis,
			       (unsigned long long)f.late_nmis);
	for (unsigned cpu = 0; cpu < model_ncpus(); cpu++) {
		struct hal_pmu_cpu_facts c;

		memset(&c, 0, sizeof(c));
		hal_pmu_cpu_facts(cpu, &c);
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "cpu %u: %s%s (%s)\n",
					cpu, verdict[c.verdict], c.used ? ", used" : "", c.why);
	}
	return buf;
}

/* ---- probe verdicts ---- */

CHECK_TEST("probe", test_intel_v2_probe_proves_fixed_ctr1)
{
	struct hal_pmu_info i;

	setup(MODEL_INTEL_V2);
	i = probe();
	ck_assert_str_eq(i.claim, "GenuineIntel arch perfmon v2, 4 counters");
	ck_assert(i.claimed && i.counts);
	ck_assert_str_eq(i.source, "pmu/nmi intel fixed-ctr1");
	ck_assert_uint_eq(i.events_per_sec, model_tsc_hz);
	/* The probe leaves the counter off and its PMI never enabled. */
	ck_assert_uint_eq(model_msr(0x38d) & 0xf0, 0);
	ck_assert(!model_nmi_pending());
	no_violations();
}
END_TEST

CHECK_TEST("probe", test_intel_v5_fixed_ctr1_from_ecx)
{
	setup(MODEL_INTEL_V5);
	ck_assert(probe().counts);
	no_violations();
}
END_TEST

CHECK_TEST("probe", test_intel_v4_freeze_cleared_by_probe)
{
	setup(MODEL_INTEL_V4_FREEZE);
	ck_assert(probe().counts);
	ck_assert_uint_eq(model_msr(0x1d9) & (1u << 12), 0);
	/* And so the counter keeps counting across PMIs. */
	arm(1000);
	for (int n = 0; n < 3; n++) {
		model_run(1000);
		ck_assert_int_eq(model_deliver_nmi(), 1);
	}
	ck_assert_uint_eq(stub_samples, 3);
	no_violations();
}
END_TEST

CHECK_TEST("probe", test_amd_zen2_probe_pmc0)
{
	struct hal_pmu_info i;

	setup(MODEL_AMD_ZEN2);
	i = probe();
	ck_assert_str_eq(i.claim, "AuthenticAMD core-ext counters");
	ck_assert_str_eq(i.source, "pmu/nmi amd pmc0");
	ck_assert(!model_touched(0xc0000300, 0xc0000302));
	no_violations();
}
END_TEST

CHECK_TEST("probe", test_amd_zen4_probe_perfmonv2)
{
	struct hal_pmu_info i;

	setup(MODEL_AMD_ZEN4);
	i = probe();
	ck_assert_str_eq(i.claim, "AuthenticAMD core-ext counters, perfmonv2");
	ck_assert_str_eq(i.source, "pmu/nmi amd perfmonv2");
	no_violations();
}
END_TEST

/* The vendor string chooses the code: an AMD part whose hypervisor
 * also answers leaf 0xA is driven through AMD's MSRs, never Intel's. */
CHECK_TEST("probe", test_amd_vendor_with_leaf_a_uses_amd_code)
{
	struct hal_pmu_info i;

	setup(MODEL_AMD_LEAF_A);
	i = probe();
	ck_assert_str_eq(i.claim, "AuthenticAMD core-ext counters");
	ck_assert_str_eq(i.source, "pmu/nmi amd pmc0");
	ck_assert(i.counts);
	ck_assert(!model_touched(0x309, 0x390));
	arm(1000);
	model_run(1000);
	ck_assert_int_eq(model_deliver_nmi(), 1);
	disarm();
	no_violations();
}
END_TEST

CHECK_TEST("probe", test_hypervisor_ignoring_writes_not_proven)
{
	struct hal_pmu_info i;

	setup(MODEL_HV_IGNORES);
	i = probe();
	ck_assert(i.claimed && !i.counts);
	ck_assert_str_eq(i.why_not, "counter did not move in 10 us");
	ck_assert_int_eq(hal_pmu_arm(1000), -ENODEV);
	no_violations();
}
END_TEST

CHECK_TEST("probe", test_claims_but_msrs_fault)
{
	struct hal_pmu_info i;

	setup(MODEL_MSR_FAULTS);
	i = probe();
	ck_assert(i.claimed && !i.counts);
	ck_assert_str_eq(i.why_not, "claimed, but its MSRs fault");
	ck_assert_int_eq(hal_pmu_arm(1000), -ENODEV);
	no_violations();	/* only _safe accesses touched them */
}
END_TEST

CHECK_TEST("probe", test_no_pmu_claimed)
{
	struct hal_pmu_info i;

	setup(MODEL_NO_PMU);
	i = probe();
	ck_assert_str_eq(i.claim, "GenuineIntel, no performance counters");
	ck_assert(!i.claimed && !i.counts);
	ck_assert_int_eq(hal_pmu_arm(1000), -ENODEV);
	ck_assert(!model_touched(0x300, 0x400));
	ck_assert_str_eq(lscpu(), "0 unknown 0 late\n"
			 "cpu 0: not claimed ()\n"
			 "cpu 1: not probed ()\n");
	no_violations();
}
END_TEST

CHECK_TEST("probe", test_intel_in_use_by_firmware)
{
	setup(MODEL_INTEL_V2);
	model_firmware_uses_counter(0);
	ck_assert_str_eq(probe().why_not, "fixed counter 1 in use by firmware");
	/* Left as firmware had it. */
	ck_assert_uint_eq(model_msr(0x38d) & 0xf0, 0x30);
	no_violations();
}
END_TEST

CHECK_TEST("probe", test_amd_in_use_by_firmware)
{
	setup(MODEL_AMD_ZEN2);
	model_firmware_uses_counter(0);
	ck_assert_str_eq(probe().why_not, "counter 0 in use by firmware");
	no_violations();
}
END_TEST

CHECK_TEST("probe", test_per_cpu_verdicts_differ)
{
	setup(MODEL_INTEL_V4_FREEZE);
	model_firmware_uses_counter(1);
	ck_assert(probe().counts);
	arm(1000);
	model_set_cpu(1);
	ck_assert_int_eq(hal_pmu_arm(1000), -ENODEV);
	ck_assert_str_eq(lscpu(), "0 unknown 0 late\n"
			 "cpu 0: proven, used ()\n"
			 "cpu 1: not proven (fixed counter 1 in use by firmware)\n");
	no_violations();
}
END_TEST

/* ---- arm, overflow, ack, re-arm ---- */

CHECK_TEST("sampling", test_intel_arm_overflow_ack_rearm)
{
	setup(MODEL_INTEL_V2);
	probe();
	arm(1000);
	ck_assert_uint_eq(model_msr(0x38d) & 0xf0, 0x90);	/* OS, PMI */
	ck_assert(model_msr(0x38f) >> 33 & 1);
	ck_assert_uint_eq(model_lvtpc(), 0x400);		/* NMI, unmasked */
	ck_assert(model_msr(0x30a) >= MASK48 - 1000);	/* -period, 48 bits */
	model_run(1000);
	ck_assert(model_nmi_pending());
	ck_assert(model_lvtpc() & (1u << 16));	/* masked by the delivery */
	ck_assert_int_eq(model_deliver_nmi(), 1);
	ck_assert_uint_eq(stub_samples, 1);
	ck_assert_uint_eq(model_msr(0x38e) >> 33 & 1, 0);	/* acked */
	ck_assert_uint_eq(model_lvtpc(), 0x400);		/* unmasked again */
	ck_assert(model_msr(0x30a) >= MASK48 - 1000);		/* re-armed */
	model_run(1000);
	ck_assert_int_eq(model_deliver_nmi(), 1);
	ck_assert_uint_eq(stub_samples, 2);
	disarm();
	ck_assert_uint_eq(model_msr(0x38d) & 0xf0, 0);
	ck_assert_uint_eq(model_msr(0x38f) >> 33 & 1, 0);
	no_violations();
}
END_TEST

CHECK_TEST("sampling", test_amd_zen2_arm_overflow_ack_rearm)
{
	setup(MODEL_AMD_ZEN2);
	probe();
	arm(1000);
	ck_assert_uint_eq(model_msr(0xc0010200), 0x76 | 1u << 17 | 1u << 20 | 1u << 22);
	ck_assert(model_msr(0xc0010201) >> 47 & 1);	/* below zero */
	model_run(1000);
	ck_assert(!(model_msr(0xc0010201) >> 47 & 1));	/* overflowed */
	ck_assert_int_eq(model_deliver_nmi(), 1);
	ck_assert(model_msr(0xc0010201) >> 47 & 1);	/* re-armed */
	ck_assert_uint_eq(model_lvtpc(), 0x400);
	model_run(1000);
	ck_assert_int_eq(model_deliver_nmi(), 1);
	ck_assert_uint_eq(stub_samples, 2);
	disarm();
	ck_assert(!model_touched(0xc0010000, 0xc0010007));
	ck_assert(!model_touched(0xc0000300, 0xc0000302));
	no_violations();
}
END_TEST

CHECK_TEST("sampling", test_amd_zen4_arm_overflow_ack_rearm)
{
	setup(MODEL_AMD_ZEN4);
	probe();
	arm(1000);
	ck_assert_uint_eq(model_msr(0xc0000301) & 1, 1);	/* GLOBAL_CTL */
	model_run(1000);
	ck_assert_uint_eq(model_msr(0xc0000300) & 1, 1);
	ck_assert_int_eq(model_deliver_nmi(), 1);
	ck_assert_uint_eq(model_msr(0xc0000300) & 1, 0);	/* STATUS_CLR */
	model_run(1000);
	ck_assert_int_eq(model_deliver_nmi(), 1);
	disarm();
	ck_assert_uint_eq(model_msr(0xc0000301) & 1, 0);
	ck_assert_uint_eq(stub_samples, 2);
	no_violations();
}
END_TEST

/* Masked to our counter: another counter's status bit is not ours. */
CHECK_TEST("sampling", test_intel_status_masked_to_our_counter)
{
	setup(MODEL_INTEL_V2);
	probe();
	arm(1000000);
	model_set_msr(0x38e, 1ull << 0 | 1ull << 32);
	model_raise_nmi(0);
	ck_assert_int_eq(model_deliver_nmi(), X86_NMI_UNKNOWN);
	ck_assert_uint_eq(stub_samples, 0);
	no_violations();
}
END_TEST

/* ---- late overflows and genuine NMIs ---- */

CHECK_TEST("nmi", test_intel_late_overflow_claimed_once)
{
	setup(MODEL_INTEL_V2);
	probe();
	arm(1000);
	model_run(1000);		/* overflow: its NMI not yet taken */
	disarm();
	ck_assert_int_eq(model_deliver_nmi(), 8);	/* late, no sample */
	ck_assert_uint_eq(stub_samples, 0);
	model_raise_nmi(0);
	ck_assert_int_eq(model_deliver_nmi(), X86_NMI_UNKNOWN);	/* the next is unknown */
	ck_assert(strstr(lscpu(), "1 unknown 1 late\n"));
	no_violations();
}
END_TEST

CHECK_TEST("nmi", test_amd_zen2_disarm_waits_for_inflight_overflow)
{
	setup(MODEL_AMD_ZEN2);
	probe();
	arm(1000);
	model_run(1000);
	model_deliver_on_access = true;	/* lands while disarm waits */
	disarm();
	ck_assert_uint_eq(stub_samples, 1);	/* still the profiler's */
	ck_assert(model_msr(0xc0010201) >> 47 & 1);	/* cannot read as overflowed */
	model_deliver_on_access = false;
	model_raise_nmi(0);
	ck_assert_int_eq(model_deliver_nmi(), X86_NMI_UNKNOWN);	/* no credit left */
	no_violations();
}
END_TEST

CHECK_TEST("nmi", test_amd_zen2_late_overflow_claimed_once)
{
	setup(MODEL_AMD_ZEN2);
	probe();
	arm(1000);
	model_run(1000);
	disarm();		/* waited; the NMI did not come in time */
	ck_assert_int_eq(model_deliver_nmi(), 8);
	model_raise_nmi(0);
	ck_assert_int_eq(model_deliver_nmi(), X86_NMI_UNKNOWN);
	no_violations();
}
END_TEST

/* Which tables wait at disarm is a flag of theirs (X86_PMU_GLOBAL_STATUS),
 * not which table it is: only AMD without global status (Zen 2), whose
 * overflow is gone from the count once rewritten, waits for an overflow's
 * NMI in flight -- bounded, 50 us of the model's clock; Zen 4 and Intel
 * read it from their status register and return at once. */
static const enum model_part disarm_parts[] = { MODEL_AMD_ZEN2, MODEL_AMD_ZEN4, MODEL_INTEL_V2 };

CHECK_LOOP_TEST("nmi", test_disarm_waits_only_without_global_status, 0,
		sizeof(disarm_parts) / sizeof(disarm_parts[0]))
{
	uint64_t wait = 50 * (model_tsc_hz / 1000000), t0;

	setup(disarm_parts[_i]);
	probe();
	arm(1000);
	model_run(1000);
	t0 = model_tsc;
	disarm();
	if (disarm_parts[_i] == MODEL_AMD_ZEN2)
		ck_assert_uint_ge(model_tsc - t0, wait);
	else
		ck_assert_uint_lt(model_tsc - t0, wait);
	ck_assert_int_eq(model_deliver_nmi(), 8);	/* the owed one, late */
	no_violations();
}
END_TEST

CHECK_TEST("nmi", test_serr_alone_not_swallowed)
{
	setup(MODEL_INTEL_V2);
	probe();
	arm(1000000);
	model_raise_nmi(0x80);
	ck_assert_int_eq(model_deliver_nmi(), 2);	/* X86_NMI_SERR only */
	model_raise_nmi(0x40);
	ck_assert_int_eq(model_deliver_nmi(), 4);	/* X86_NMI_IOCHK */
	ck_assert_uint_eq(stub_samples, 0);
	no_violations();
}
END_TEST

CHECK_TEST("nmi", test_serr_with_overflow_both_seen)
{
	setup(MODEL_AMD_ZEN4);
	probe();
	arm(1000);
	model_run(1000);
	model_raise_nmi(0x80);		/* collapses into the same NMI */
	ck_assert_int_eq(model_deliver_nmi(), 1 | 2);
	ck_assert_uint_eq(stub_samples, 1);
	no_violations();
}
END_TEST

CHECK_TEST("nmi", test_late_credit_does_not_hide_serr)
{
	setup(MODEL_INTEL_V2);
	probe();
	arm(1000);
	model_run(1000);
	disarm();
	/* The owed PMI and a SERR collapse into one NMI: both are seen. */
	model_raise_nmi(0x80);
	ck_assert_int_eq(model_deliver_nmi(), 2 | 8);
	no_violations();
}
END_TEST

CHECK_TEST("nmi", test_unknown_nmi_counted)
{
	setup(MODEL_NO_PMU);
	probe();
	model_raise_nmi(0);
	ck_assert_int_eq(model_deliver_nmi(), 0);
	ck_assert(strstr(lscpu(), "1 unknown 0 late\n"));
}
END_TEST

/* The rule for an NMI no source claims (doc/profiler.md, "Unknown
 * NMIs"): fatal on a CPU whose counter never ran; once it has, counted
 * and survived -- a PMI that lands after its credit ran out (a vCPU the
 * hypervisor held for more than a millisecond) is such an NMI. */
CHECK_TEST("nmi", test_unknown_nmi_fatal_until_counter_ran)
{
	setup(MODEL_INTEL_V2);
	probe();
	model_raise_nmi(0);
	ck_assert_int_eq(model_deliver_nmi(), 0);
	arm(1000);
	model_run(1000);		/* overflow: its NMI held back */
	disarm();
	model_tsc += model_tsc_hz;	/* a second later: the credit is gone */
	ck_assert_int_eq(model_deliver_nmi(), X86_NMI_UNKNOWN);
	ck_assert(strstr(lscpu(), "2 unknown 0 late\n"));
	/* A hardware error is still one, and still says so. */
	model_raise_nmi(0x80);
	ck_assert_int_eq(model_deliver_nmi(), X86_NMI_SERR);
	no_violations();
}
END_TEST

CHECK_TEST("nmi", test_panic_stop_answered_first)
{
	setup(MODEL_INTEL_V2);
	probe();
	arm(1000);
	model_run(1000);
	stub_stop = true;
	if (!setjmp(stub_park))
		model_deliver_nmi();
	ck_assert_uint_eq(stub_parked, 1);
	ck_assert_uint_eq(stub_samples, 0);
}
END_TEST

/* ---- the handler's cost, the throttle's period ---- */

CHECK_TEST("sampling", test_handler_cost_reported_in_ns)
{
	setup(MODEL_INTEL_V2);
	probe();
	arm(100000);
	stub_cost = 10000;		/* 5 us of a 2 GHz TSC */
	model_run(100000);
	ck_assert_int_eq(model_deliver_nmi(), 1);
	ck_assert_uint_eq(took_n, 1);
	/* The handler's own time, and the few model accesses around it. */
	ck_assert_uint_ge(took_ns, 5000);
	ck_assert_uint_le(took_ns, 5500);
	no_violations();
}
END_TEST

CHECK_TEST("sampling", test_set_period_from_nmi_rewrites_running_counter)
{
	setup(MODEL_INTEL_V2);
	probe();
	arm(100000);
	took_set = 200000;
	model_run(100000);
	ck_assert_int_eq(model_deliver_nmi(), 1);
	ck_assert_int_eq(took_set_r, 0);
	/* 200000 from its next overflow, less the accesses since. */
	ck_assert(model_msr(0x30a) >= MASK48 - 200000);
	ck_assert(model_msr(0x30a) < MASK48 - 100000);
	model_run(150000);
	ck_assert(!model_nmi_pending());
	model_run(50000);
	ck_assert(model_nmi_pending());
	no_violations();
}
END_TEST

CHECK_TEST("sampling", test_set_period_never_enables_stopped_counter)
{
	setup(MODEL_INTEL_V2);
	probe();
	ck_assert_int_eq(hal_pmu_set_period(200000), -ENODEV);
	arm(100000);
	ck_assert_int_eq(hal_pmu_set_period(1ull << 47), -ERANGE);
	disarm();
	ck_assert_int_eq(hal_pmu_set_period(200000), -ENODEV);
	ck_assert(!model_counter_enabled());
	no_violations();
}
END_TEST

/* ---- stat ---- */

/* prof/stat.c's stat_delta(): a difference taken modulo 2^bits. */
static uint64_t stat_delta(uint64_t start, uint64_t end, unsigned bits)
{
	return (end - start) & (bits >= 64 ? ~0ull : (1ull << bits) - 1);
}

static void stat_wraps(enum model_part p, uint32_t cyc, uint32_t ins)
{
	struct hal_pmu_event ev[HAL_PMU_EVENTS_MAX];
	struct hal_pmu_counters counters;
	unsigned bits[2];
	uint64_t a[HAL_PMU_COUNT_MAX], b[HAL_PMU_COUNT_MAX];
	bool open[HAL_PMU_COUNT_MAX] = { 0 };

	setup(p);
	probe();
	ck_assert_uint_eq(hal_pmu_events(ev, HAL_PMU_EVENTS_MAX, &counters), 2);
	ck_assert_str_eq(ev[0].name, "cycles");
	ck_assert_str_eq(ev[1].name, "instructions");
	ck_assert(ev[0].counts && ev[1].counts);
	/* The pair is always programmed together: two fixed counters. */
	ck_assert_uint_eq(counters.general, 0);
	ck_assert_uint_eq(counters.fixed, 2);
	ck_assert_int_eq(ev[0].fixed, 0);
	ck_assert_int_eq(ev[1].fixed, 1);
	bits[0] = ev[0].bits;
	bits[1] = ev[1].bits;
	ck_assert_uint_eq(bits[0], 48);
	hal_pmu_count_open(both, 2, open);
	ck_assert(open[0] && open[1]);
	model_set_msr(cyc, MASK48 - 99);	/* 100 before the wrap */
	model_set_msr(ins, MASK48 - 9);
	hal_pmu_count_read(a);
	model_run(1000000);
	hal_pmu_count_read(b);
	hal_pmu_count_close();
	ck_assert_uint_lt(b[0], a[0]);		/* it wrapped */
	/* The reads themselves take model time: a few accesses of 40. */
	ck_assert_uint_ge(stat_delta(a[0], b[0], bits[0]), 1000000);
	ck_assert_uint_le(stat_delta(a[0], b[0], bits[0]), 1000400);
	ck_assert_uint_ge(stat_delta(a[1], b[1], bits[1]), 500000);
	ck_assert_uint_le(stat_delta(a[1], b[1], bits[1]), 500200);
	no_violations();
}

CHECK_TEST("stat", test_stat_intel_wrap)
{
	stat_wraps(MODEL_INTEL_V2, 0x30a, 0x309);
	ck_assert_uint_eq(model_msr(0x38f) & (3ull << 32), 0);
}
END_TEST

CHECK_TEST("stat", test_stat_amd_wrap)
{
	stat_wraps(MODEL_AMD_ZEN4, 0xc0010201, 0xc0010203);
}
END_TEST

/* `stat` asks for the events' widths before any CPU probed: the answer
 * is the part's, not a default. */
CHECK_TEST("stat", test_stat_width_before_any_probe)
{
	struct hal_pmu_event ev[HAL_PMU_EVENTS_MAX];
	struct hal_pmu_counters counters;

	setup(MODEL_INTEL_V2);
	model_fixed_width = 40;
	ck_assert_uint_eq(hal_pmu_events(ev, HAL_PMU_EVENTS_MAX, &counters), 2);
	ck_assert_uint_eq(ev[0].bits, 40);
	ck_assert_uint_eq(ev[1].bits, 40);
	no_violations();
}
END_TEST

/* While `stat` counts on a CPU the counter is not armed under it: the
 * arm is refused, and the count goes on. */
CHECK_TEST("stat", test_arm_refused_while_counting)
{
	bool open[HAL_PMU_COUNT_MAX];
	uint64_t v[HAL_PMU_COUNT_MAX], w[HAL_PMU_COUNT_MAX];

	setup(MODEL_AMD_ZEN4);
	probe();
	hal_pmu_count_open(both, 2, open);
	ck_assert(open[0]);
	hal_pmu_count_read(v);
	ck_assert_int_eq(hal_pmu_arm(1000), -EBUSY);
	model_run(5000);
	hal_pmu_count_read(w);
	ck_assert_uint_ge(w[0] - v[0], 5000);
	ck_assert(!model_nmi_pending());
	hal_pmu_count_close();
	ck_assert_int_eq(hal_pmu_arm(1000), 0);
	disarm();
	no_violations();
}
END_TEST

CHECK_TEST("stat", test_stat_not_counted_without_counter)
{
	struct hal_pmu_event ev[HAL_PMU_EVENTS_MAX];
	struct hal_pmu_counters counters;
	bool open[HAL_PMU_COUNT_MAX] = { 0 };

	setup(MODEL_HV_IGNORES);
	probe();
	hal_pmu_count_open(both, 2, open);
	ck_assert(!open[0] && !open[1]);
	/* The table says so too, with the probe's reason. */
	ck_assert_uint_eq(hal_pmu_events(ev, HAL_PMU_EVENTS_MAX, &counters), 2);
	ck_assert(!ev[0].counts && !ev[1].counts);
	ck_assert_str_ne(ev[0].why_not, "");
	no_violations();
}
END_TEST

/* ---- x2APIC ---- */

CHECK_TEST("sampling", test_x2apic_lvtpc_through_msr)
{
	setup(MODEL_INTEL_V2);
	model_x2apic(0);
	probe();
	arm(1000);
	ck_assert_uint_eq(model_msr(0x834), 0x400);
	model_run(1000);
	ck_assert(model_msr(0x834) & (1u << 16));
	ck_assert_int_eq(model_deliver_nmi(), 1);
	ck_assert_uint_eq(model_msr(0x834), 0x400);	/* unmasked again */
	no_violations();			/* no MMIO in x2APIC mode */
}
END_TEST

/* Forked: the backend chooses its ops table once per process. */
int main(void)
{
	return check_run_forked(check_suite("x86pmu", NULL, 0));
}
