/* SPDX-License-Identifier: BSD-2-Clause */
/* The x86 counter path under every interleaving.  The real profiler
 * (src/prof/profiler.c) and the real backend (arch/x86_64/pmu.c, part
 * of this file so that its per-CPU state can be reset between runs)
 * run on a modelled CPU (tests/kit/x86_model.c) that acts at every point:
 * before and after each MSR access, TSC read and APIC write, and at
 * every store the NMI path reads (race_point(), compiled into the code
 * under test only here).  Two scripts -- probe, stat open/read/close,
 * arm, a sample, disarm; and a `stat` session whose stop the CPU
 * misses, then a profile whose sample is throttled (hal_pmu_set_period()
 * inside the NMI) -- run again and again; each run makes the counter
 * overflow at one point and delivers its PMI at the same or a later
 * one, or raises another source's NMI there.  Beside those: an overflow
 * whose NMI is in flight (status set, not yet pending) while another
 * NMI is taken, landing at each later point (Linux's back-to-back
 * case); an overflow at each point of another source's handler (its
 * PMI latched behind it); and a PMI the disarm left pending landing 1,
 * 10, 100 and 500 us after hal_pmu_disarm() returned, and past the
 * credit.
 *
 * After every run: each NMI our counter raised was claimed exactly once
 * (by its own delivery, or by an NMI taken while its status showed) or
 * landed past the credit, none of ours was fatal, no NMI of another
 * source was claimed unless our status showed, no counter counts after
 * the disarm, and the run's books balance (claimed = stored + dropped +
 * late).
 *
 * Two NMIs of ours are never pending together on x86: the status bit
 * and the pending NMI are both sticky, and the APIC masks the LVT entry
 * at each PMI until the handler unmasks it.  The counter never
 * overflows inside our own handler: until the ack rewrites it, it has
 * just passed zero; after, it is a whole period (at least thousands of
 * cycles, the throttle's bound) from its next overflow. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "fake_hal.h"
#include "hal/entry.h"
#include "hal/pmu.h"
#include "kernel/kernel.h"
#include "prof/profiler.h"
#include "prof/profiler_test.h"
#include "prof/sampler.h"
#include "prof/stat.h"
#include "lib/race_point.h"
#include "x86_model.h"

#include "../arch/x86_64/pmu.c"
#include "../arch/x86_64/pmu_intel.c"
#include "../arch/x86_64/pmu_amd.c"
#include "../arch/x86_64/pmu_nmi.c"

#define SERR	0x80

/* Which script a run plays. */
enum script {
	/* Probe, `stat`'s counters opened, read and closed through the
	 * backend, then one profile run with a sample in it. */
	SCRIPT_PLAIN,
	/* A `stat` session whose stop the CPU misses (the session gives up
	 * on it and releases the counters), then a profile run whose first
	 * sample is throttled: hal_pmu_set_period() from inside the NMI. */
	SCRIPT_STAT_THEN_PROFILE,
};

/* What one run does, and what it saw. */
struct sweep {
	enum script script;
	/* Outer points (not inside a handler): 0 never, else the 1-based
	 * point at which it happens. */
	unsigned overflow_at, deliver_at, foreign_at;
	uint8_t foreign_reason;		/* its port 0x61 bits */
	/* An overflow whose NMI is in flight from @inflight_at (its status
	 * set, the NMI not yet pending) until @land_at: another NMI may be
	 * taken meanwhile (Linux's back-to-back case). */
	unsigned inflight_at, land_at;
	/* At this point of the handlers (counted across the run): the other
	 * source's NMI raised (latched behind it), or our counter
	 * overflowing (its PMI latched behind it); 0 never. */
	unsigned foreign_inner_at, overflow_inner_at;
	/* The PMI still pending when hal_pmu_disarm() returned lands this
	 * many microseconds later; 0: at the end of the run. */
	unsigned late_us;
	unsigned point, inner;
	unsigned claimed;		/* kernel_nmi() claimed the NMI */
	unsigned claims;		/* ... or the backend's credit did */
	unsigned ours;			/* deliveries holding our PMI */
	unsigned unclaimed_past_credit;	/* ours, landing after the credit */
	bool handler_overflowed;	/* the counter overflowed in this handler */
	unsigned delivered;		/* NMIs handled so far */
	unsigned foreign_handler;	/* 1 + deliveries before the other NMI's */
	char failure[300];
};

/* The backend owes a claim for this long after its disarm saw an
 * overflow it could not claim (doc/profiler.md, "The counter's rules"):
 * a PMI that lands later may go unclaimed -- counted as unknown, never
 * fatal. */
#define CREDIT_US 1000

/* `stat`'s two events, cycles and instructions, by their table ids. */
static const unsigned both[2] = { 0, 1 };

static struct sweep sw;

static void fail_run(const char *what)
{
	if (!sw.failure[0])
		snprintf(sw.failure, sizeof(sw.failure), "%s", what);
}

static void sweep_inner_point(void)
{
	sw.inner++;
	if (sw.inner == sw.foreign_inner_at)
		model_raise_nmi(SERR);
	/* Only in another source's handler, the first of the run: in ours
	 * the counter has just passed zero, 2^48 cycles from its next
	 * overflow until the ack rewrites it, a period after. */
	if (sw.inner == sw.overflow_inner_at && sw.delivered + 1 == sw.foreign_handler &&
	    !model_in_our_nmi()) {
		model_force_overflow();
		sw.handler_overflowed = model_our_status();
	}
}

static void sweep_point(void)
{
	if (model_in_nmi()) {
		sweep_inner_point();
		return;
	}
	sw.point++;
	if (sw.point == sw.overflow_at)
		model_force_overflow();
	if (sw.point == sw.inflight_at) {
		model_defer_pmi = true;
		model_force_overflow();
		model_defer_pmi = false;
	}
	if (sw.point == sw.foreign_at) {
		model_raise_nmi(sw.foreign_reason);
		sw.foreign_handler = sw.delivered + 1;
		sw.inner = 0;
	}
	if (sw.point == sw.land_at)
		model_land_pmi();
	if (sw.point >= sw.deliver_at && model_nmi_pending())
		model_deliver_nmi();
}

static void two_cpus_point(void);

/* The stores the NMI path reads, and the backend's choice: points of
 * whichever sweep runs. */
void race_point(const char *site)
{
	(void)site;
	if (model_point_hook == two_cpus_point)
		two_cpus_point();
	else
		sweep_point();
}

/* Every NMI our counter raised is claimed exactly once -- by its own
 * delivery, or by an NMI taken while its status showed (after which its
 * own delivery finds nothing: unknown, and survived) -- or lands after
 * the credit (unknown, survived).  No NMI of ours is ever fatal, and no
 * other NMI is claimed unless our status showed when it was taken or
 * came up while it was handled (or, for the credit, while our PMI was in
 * flight). */
static void on_delivered(bool pmi, uint8_t reason, int found)
{
	unsigned f = (unsigned)found;
	bool claimed = f & (X86_NMI_STOP_OR_OVERFLOW | X86_NMI_LATE);

	if (f & X86_NMI_STOP_OR_OVERFLOW)
		sw.claimed++;
	if (claimed)
		sw.claims++;
	if (pmi) {
		sw.ours++;
		if (!f)
			fail_run("an NMI our counter raised was found to be nothing: fatal");
		else if (claimed || sw.claims >= model_pmis)
			;	/* its own, or claimed before it landed */
		else if (sw.late_us > CREDIT_US)
			sw.unclaimed_past_credit++;
		else
			fail_run("an NMI our counter raised was not claimed");
	} else if (claimed && !model_entry_status && !sw.handler_overflowed &&
		   !((f & X86_NMI_LATE) && sw.inflight_at)) {
		fail_run("an NMI of another source was claimed as ours");
	}
	sw.handler_overflowed = false;
	sw.delivered++;
	if ((reason & SERR) && !(f & X86_NMI_SERR))
		fail_run("the SERR that came with an NMI was not reported");
}

/* The backend's state as at boot: nothing probed, nothing chosen. */
static void backend_reset(void)
{
	kmemset(x86_pmu_cpus, 0, sizeof(x86_pmu_cpus));
	kmemset(count_on, 0, sizeof(count_on));
	kmemset(x86_pmu_choices, 0, sizeof(x86_pmu_choices));
	x86_pmu_chosen = NULL;
}

static struct trap_frame nmi_tf = { .ip = 0x1234 };

static void tick_cpu0(void)
{
	struct trap_frame tf = { .ip = 0x5678 };

	fake_irq_off[0] = true;
	kernel_tick(&tf);
}

/* The CPU's throttle one sample short of a full window of handlers far
 * over budget: the next claimed overflow doubles the period from inside
 * the NMI. */
static void throttle_next_sample(void)
{
	struct throttle *t = &prof_cpus[0].throttle;

	for (unsigned i = 0; i < THROTTLE_SAMPLES - 1; i++)
		t->cost[i] = 1000000;
	t->n = THROTTLE_SAMPLES - 1;
	t->start_ns = fake_now_ns;
}

/* A `stat` session through its own calls, on CPU 0's ticks; the stop's
 * tick does not come in time, and the session ends without it.  Its
 * claim on the counters holds until the CPU closed: a profile asked for
 * meanwhile is refused and changes nothing; the CPU's next tick closes
 * the count, and the profile may start. */
static void stat_missing_its_stop(void)
{
	struct prof_options opt = { PROF_DEPTH_DEFAULT, 1000, PROF_PID_ALL, PROF_RUN_BOOT, false };
	bool counting;

	if (stat_start() < 0) {
		fail_run("stat did not start");
		return;
	}
	tick_cpu0();			/* opens */
	stat_wait_open(0, NULL, NULL);
	model_run(1000);
	stat_stop();
	if (stat_wait_closed(0, NULL, NULL) != 1)
		fail_run("the CPU closed stat's counters without a tick");
	stat_end();
	counting = model_counter_enabled();
	if (prof_start_with(&opt) != -EINPROGRESS)
		fail_run("a profile started while stat's count was still open");
	if (prof_cpu_armed(0) || model_counter_enabled() != counting)
		fail_run("the refused profile changed the counter");
	tick_cpu0();			/* the missed stop's close */
	if (stat_cpus_still_open() || model_counter_enabled())
		fail_run("the tick left stat's count open");
}

/* The script's part before the profile. */
static void run_prelude(enum script script)
{
	bool open[HAL_PMU_COUNT_MAX];
	uint64_t v[HAL_PMU_COUNT_MAX];

	if (script == SCRIPT_STAT_THEN_PROFILE) {
		stat_missing_its_stop();
		return;
	}
	hal_pmu_count_open(both, 2, open);
	hal_pmu_count_read(v);
	hal_pmu_count_close();
}

/* Probe, the script's prelude, then one profile run with a sample in
 * it. */
static void run_script(enum model_part part, const struct sweep *plan)
{
	struct prof_options opt = { PROF_DEPTH_DEFAULT, 1000, PROF_PID_ALL, PROF_RUN_BOOT, false };
	struct hal_pmu_info info;
	struct prof_cpu_stats st;

	sw = *plan;
	sw.point = sw.inner = sw.claimed = sw.claims = sw.ours = 0;
	sw.unclaimed_past_credit = 0;
	sw.handler_overflowed = false;
	sw.delivered = sw.foreign_handler = 0;
	sw.failure[0] = '\0';
	model_init(part, 1);
	/* A slow clock keeps the disarm's bounded wait to a few points. */
	model_tsc_hz = 40000000;
	model_nmi_tf = &nmi_tf;
	backend_reset();
	model_point_hook = sweep_point;
	model_delivered_hook = on_delivered;

	hal_pmu_probe(&info);
	if (!info.counts)
		fail_run("the probe did not prove the counter");
	run_prelude(plan->script);

	if (prof_start_with(&opt) < 0) {
		fail_run("the profiler did not start");
		return;
	}
	tick_cpu0();			/* arms */
	if (!model_counter_enabled() || !prof_cpu_armed(0))
		fail_run("the tick did not leave the counter armed and counting");
	prof_wait_armed(0, NULL, NULL);
	if (plan->script == SCRIPT_STAT_THEN_PROFILE)
		throttle_next_sample();
	model_run(model_tsc_hz / 1000);	/* one period: an overflow */
	sweep_point();			/* an instant later */
	prof_stop();
	tick_cpu0();			/* disarms */
	if (model_counter_enabled())
		fail_run("the counter counts after the disarm");
	if (plan->late_us) {
		model_tsc += model_tsc_hz / 1000000 * plan->late_us;
		model_land_pmi();
		model_deliver_nmi();
	}
	prof_wait_stopped(0, NULL, NULL);
	prof_collect();
	/* What is still pending arrives now, however late. */
	model_point_hook = NULL;
	model_land_pmi();
	model_deliver_nmi();
	prof_cpu_stats(0, &st);
	if (sw.claimed != st.stored + st.dropped + st.late)
		fail_run("the books do not balance: claimed != stored + dropped + late");
	if (sw.claims + sw.unclaimed_past_credit != model_pmis)
		fail_run("the PMIs raised were not each claimed once (or landed past the credit)");
	if (model_counter_enabled())
		fail_run("the counter counts after the run");
	if (prof_cpu_armed(0))
		fail_run("the CPU is still armed after the run");
	/* No credit outlives the NMIs it was for: an NMI of no source now
	 * is unknown. */
	model_raise_nmi(0);
	model_deliver_nmi();
	prof_end();
	if (model_violations)
		fail_run(model_violation);
	model_delivered_hook = NULL;
}

/* The kinds of interleaving a sweep runs, as its line names them. */
enum dim {
	DIM_SINGLE, DIM_COLLAPSED, DIM_LATCHED, DIM_FOREIGN,
	DIM_INFLIGHT, DIM_INNER, DIM_LATE, DIMS
};

static const char *const dim_name[DIMS] = {
	[DIM_SINGLE] = "overflow x delivery",
	[DIM_COLLAPSED] = "with another NMI collapsed",
	[DIM_LATCHED] = "with one latched",
	[DIM_FOREIGN] = "another NMI alone",
	[DIM_INFLIGHT] = "in flight behind another NMI",
	[DIM_INNER] = "overflowing inside a handler",
	[DIM_LATE] = "landing late after disarm",
};

struct tally {
	unsigned runs, failures;
	unsigned runs_of[DIMS], failed_of[DIMS];
	char first[640];
};

static void run_one(enum model_part part, const struct sweep *plan,
		    struct tally *t, enum dim dim)
{
	run_script(part, plan);
	t->runs++;
	t->runs_of[dim]++;
	if (!sw.failure[0])
		return;
	t->failed_of[dim]++;
	if (!t->failures++)
		snprintf(t->first, sizeof(t->first),
			 "%s (overflow at point %u, delivered from %u, other NMI at %u, inner %u; "
			 "in flight %u-%u, overflow in a handler at %u, %u us after disarm)",
			 sw.failure, plan->overflow_at, plan->deliver_at,
			 plan->foreign_at, plan->foreign_inner_at, plan->inflight_at,
			 plan->land_at, plan->overflow_inner_at, plan->late_us);
}

/* "x86pmu race: PART, SCRIPT: N points, N interleavings (N KIND, ...),
 * N failed", and which kinds failed. */
static void tally_print(const char *name, const char *script, unsigned points,
			const struct tally *t)
{
	printf("x86pmu race: %s, %s: %u points, %u interleavings (", name, script,
	       points, t->runs);
	for (unsigned d = 0; d < DIMS; d++)
		printf("%s%u %s", d ? ", " : "", t->runs_of[d], dim_name[d]);
	printf("), %u failed", t->failures);
	for (unsigned d = 0, n = 0; d < DIMS; d++)
		if (t->failed_of[d])
			printf("%s%u %s", n++ ? ", " : ": ", t->failed_of[d], dim_name[d]);
	printf("\n");
	fflush(stdout);
}

/* The points of a run whose counter overflows at point @o and whose PMI
 * is not delivered before the run ends (itself a run of the sweep). */
static unsigned run_points(enum model_part part, enum script script, unsigned o,
			   struct tally *t)
{
	struct sweep plan = { .script = script, .overflow_at = o, .deliver_at = ~0u };

	run_one(part, &plan, t, DIM_SINGLE);
	return sw.point;
}

/* Microseconds after hal_pmu_disarm() returned at which a PMI it left
 * pending lands: within the credit, and one past it. */
static const unsigned late_us[] = { 1, 10, 100, 500, 2 * CREDIT_US };

/* From outer point @o of @n, the dimensions added for overflows racing
 * other NMIs: an overflow in flight when another NMI is taken, landing at each later point; an
 * overflow at each point @inner of another NMI's handler; a PMI left
 * pending by the disarm landing late. */
static void sweep_new_dimensions(enum model_part part, enum script script,
				 unsigned o, unsigned n, unsigned inner, struct tally *t)
{
	struct sweep plan;

	for (unsigned d = o; d <= n + 1; d++) {
		plan = (struct sweep){ .script = script, .inflight_at = o, .land_at = d,
				       .foreign_at = o, .deliver_at = o };
		run_one(part, &plan, t, DIM_INFLIGHT);
	}
	for (unsigned k = 1; k <= inner; k++) {
		plan = (struct sweep){ .script = script, .foreign_at = o, .deliver_at = o,
				       .overflow_inner_at = k };
		run_one(part, &plan, t, DIM_INNER);
	}
	for (unsigned i = 0; i < sizeof(late_us) / sizeof(late_us[0]); i++) {
		plan = (struct sweep){ .script = script, .overflow_at = o,
				       .deliver_at = ~0u, .late_us = late_us[i] };
		run_one(part, &plan, t, DIM_LATE);
	}
}

static const char *const script_name[] = {
	[SCRIPT_PLAIN] = "plain",
	[SCRIPT_STAT_THEN_PROFILE] = "stat missed stop -> profile, throttled",
};

/* Returns the failed interleavings; the first described in @failure. */
static unsigned sweep_part_script(enum model_part part, const char *name,
				  enum script script, char *failure, size_t size)
{
	struct sweep plan = { .script = script };
	struct tally t = { 0 };
	unsigned n, inner;

		/* The points of a run in which nothing is forced, and of one
	 * handler. */
	run_script(part, &plan);
	if (sw.failure[0]) {
		snprintf(failure, size, "%s, %s: plain run: %s", name, script_name[script],
			 sw.failure);
		return 1;
	}
	n = sw.point;
	/* The stat script's sample doubled the period from inside its NMI. */
	if (script == SCRIPT_STAT_THEN_PROFILE)
		ck_assert_uint_eq(prof_cpus[0].throttled, 2 * (model_tsc_hz / 1000));
	plan.overflow_at = plan.deliver_at = 1;
	plan.foreign_inner_at = ~0u;
	run_script(part, &plan);
	inner = sw.inner + 1;

	for (unsigned o = 1; o <= n; o++) {
		/* Sized per run: an overflow pending at the disarm adds the
		 * points of its wait (Zen 2: 50 us), each a place to land. */
		unsigned n_o = run_points(part, script, o, &t);

		if (n_o < n)
			n_o = n;

		for (unsigned d = o; d <= n_o + 1; d++) {
			plan = (struct sweep){ .script = script, .overflow_at = o,
					       .deliver_at = d, .foreign_reason = SERR };
			run_one(part, &plan, &t, DIM_SINGLE);
			/* Another source's NMI, collapsed into ours. */
			plan.foreign_at = o;
			run_one(part, &plan, &t, DIM_COLLAPSED);
			if (d <= n_o) {
				plan.foreign_at = d;
				run_one(part, &plan, &t, DIM_COLLAPSED);
			}
		}
		/* Another source's NMI alone: one the handler can name, and
		 * one it cannot. */
		plan = (struct sweep){ .script = script, .foreign_at = o,
				       .foreign_reason = SERR };
		run_one(part, &plan, &t, DIM_FOREIGN);
		plan.foreign_reason = 0;
		run_one(part, &plan, &t, DIM_FOREIGN);
		/* Latched behind our handler, at each of its points. */
		for (unsigned k = 1; k <= inner; k++) {
			plan = (struct sweep){ .script = script, .overflow_at = o,
					       .deliver_at = o, .foreign_inner_at = k };
			run_one(part, &plan, &t, DIM_LATCHED);
		}
		sweep_new_dimensions(part, script, o, n_o, inner, &t);
	}
	tally_print(name, script_name[script], n, &t);
	if (t.failures)
		snprintf(failure, size, "%s, %s: %u of %u interleavings failed; first: %s",
			 name, script_name[script], t.failures, t.runs, t.first);
	return t.failures;
}

static void sweep_part(enum model_part part, const char *name)
{
	static char plain[800], stat[800];
	unsigned failed;

	fake_ncpus = 1;
	fake_cpu_boot(0);
	failed = sweep_part_script(part, name, SCRIPT_PLAIN, plain, sizeof(plain));
	failed += sweep_part_script(part, name, SCRIPT_STAT_THEN_PROFILE, stat, sizeof(stat));
	ck_assert_msg(failed == 0, "%s%s%s", plain, plain[0] && stat[0] ? "; " : "", stat);
}

/* On the modelled parts: a CPU that missed `stat`'s
 * stop, then a profile of 20 periods at 1 kHz.  Every period is an NMI
 * claimed and a sample stored: the CPU is not silently absent. */
static void stat_then_profile_counts(enum model_part part, const char *name)
{
	struct prof_options opt = { PROF_DEPTH_DEFAULT, 1000, PROF_PID_ALL, PROF_RUN_BOOT, false };
	struct hal_pmu_info info;
	struct prof_cpu_stats st;
	bool armed, counts;

	fake_ncpus = 1;
	fake_cpu_boot(0);
	sw = (struct sweep){ 0 };
	model_init(part, 1);
	model_tsc_hz = 40000000;
	model_nmi_tf = &nmi_tf;
	backend_reset();
	model_delivered_hook = on_delivered;
	hal_pmu_probe(&info);
	ck_assert(info.counts);
	stat_missing_its_stop();
	ck_assert_int_eq(prof_start_with(&opt), 0);
	tick_cpu0();
	prof_wait_armed(0, NULL, NULL);
	armed = prof_cpu_armed(0);
	counts = model_counter_enabled();
	for (unsigned i = 0; i < 20; i++) {
		model_run(model_tsc_hz / 1000);
		model_deliver_nmi();
	}
	prof_cpu_stats(0, &st);
	ck_assert_msg(armed && counts && sw.ours == 20 && st.stored == 20 && !st.errors,
		      "%s: after the tick: armed %d, counter counts: %d -- 20 periods of a "
		      "1 kHz run: %u NMIs delivered, %u stored, %llu errors", name, armed,
		      counts, sw.ours, st.stored, (unsigned long long)st.errors);
	ck_assert_msg(!sw.failure[0], "%s: %s", name, sw.failure);
	prof_stop();
	tick_cpu0();
	prof_end();
}

CHECK_TEST("sweep", test_intel_v2_stat_missed_stop_then_profile_counts)
{
	stat_then_profile_counts(MODEL_INTEL_V2, "intel v2");
}
END_TEST

CHECK_TEST("sweep", test_amd_zen2_stat_missed_stop_then_profile_counts)
{
	stat_then_profile_counts(MODEL_AMD_ZEN2, "amd zen2");
}
END_TEST

CHECK_TEST("sweep", test_amd_zen4_stat_missed_stop_then_profile_counts)
{
	stat_then_profile_counts(MODEL_AMD_ZEN4, "amd zen4 perfmonv2");
}
END_TEST

/* Two CPUs choose the backend at once: CPU 0 asks for `stat`'s events
 * and probes; at each of its points (the choice's own included) CPU 1
 * does the same, arms, overflows and claims its sample, then CPU 0 goes
 * on.  Both prove their counters, agree on the backend and the width,
 * and nothing either touched faults. */
struct two_cpus {
	unsigned at, point;
	bool in_cpu1;
	char failure[300];
};

static struct two_cpus two;

static void two_fail(const char *what)
{
	if (!two.failure[0])
		snprintf(two.failure, sizeof(two.failure), "%s", what);
}

/* What a CPU does first: `stat`'s question, then the probe. */
static void first_questions(unsigned *bits0)
{
	struct hal_pmu_event ev[HAL_PMU_EVENTS_MAX];
	struct hal_pmu_counters counters;
	struct hal_pmu_info info;

	hal_pmu_events(ev, HAL_PMU_EVENTS_MAX, &counters);
	*bits0 = ev[0].bits;
	hal_pmu_probe(&info);
	if (!info.counts)
		two_fail("a CPU's probe did not prove its counter");
}

static void cpu1_whole(void)
{
	unsigned bits;

	two.in_cpu1 = true;
	model_set_cpu(1);
	fake_cpu = 1;
	first_questions(&bits);
	if (bits != model_fixed_width && pmu_ops() == &x86_intel_ops)
		two_fail("cpu 1: stat's width is not the part's");
	if (hal_pmu_arm(1000) < 0) {
		two_fail("cpu 1 did not arm");
	} else {
		model_run(1000);
		if (!model_nmi_pending())
			two_fail("cpu 1's counter did not overflow into an NMI");
		if (!(model_deliver_nmi() & X86_NMI_STOP_OR_OVERFLOW))
			two_fail("cpu 1's overflow was not claimed");
		hal_pmu_disarm();
	}
	model_set_cpu(0);
	fake_cpu = 0;
	two.in_cpu1 = false;
}

static void two_cpus_point(void)
{
	if (two.in_cpu1 || model_in_nmi())
		return;
	if (++two.point == two.at)
		cpu1_whole();
}

static bool two_cpus_kernel_nmi(struct trap_frame *tf)
{
	(void)tf;
	return hal_pmu_ack();
}

static void two_cpus_first_probe(enum model_part part, const char *name)
{
	unsigned n = 0, bits, runs = 0;

	fake_ncpus = 2;
	fake_cpu_boot(0);
	kernel_on_nmi(two_cpus_kernel_nmi);
	for (unsigned at = 1; at == 1 || at <= n + 1; at++) {
		two = (struct two_cpus){ .at = at };
		model_init(part, 2);
		model_fixed_width = 40;
		model_tsc_hz = 40000000;
		model_nmi_tf = &nmi_tf;
		backend_reset();
		model_point_hook = two_cpus_point;
		model_set_cpu(0);
		fake_cpu = 0;
		first_questions(&bits);
		if (two.point < at)
			cpu1_whole();		/* after CPU 0's last point */
		if (bits != model_fixed_width && pmu_ops() == &x86_intel_ops)
			two_fail("cpu 0: stat's width is not the part's");
		if (x86_pmu_cpus[0].verdict != V_COUNTS || x86_pmu_cpus[1].verdict != V_COUNTS)
			two_fail("a CPU's verdict is not proven");
		if (model_violations)
			two_fail(model_violation);
		model_point_hook = NULL;
		ck_assert_msg(!two.failure[0], "%s: cpu 1 at point %u of cpu 0's first probe: %s",
			      name, at, two.failure);
		if (at == 1)
			n = two.point;
		runs++;
	}
	printf("x86pmu race: %s, two CPUs' first probe: %u points, %u interleavings, 0 failed\n",
	       name, n, runs);
}

CHECK_TEST("sweep", test_intel_v2_two_cpus_first_probe)
{
	two_cpus_first_probe(MODEL_INTEL_V2, "intel v2");
}
END_TEST

CHECK_TEST("sweep", test_amd_zen2_two_cpus_first_probe)
{
	two_cpus_first_probe(MODEL_AMD_ZEN2, "amd zen2");
}
END_TEST

CHECK_TEST("sweep", test_amd_zen4_two_cpus_first_probe)
{
	two_cpus_first_probe(MODEL_AMD_ZEN4, "amd zen4 perfmonv2");
}
END_TEST

CHECK_TEST("sweep", test_intel_v2_every_interleaving_holds)
{
	sweep_part(MODEL_INTEL_V2, "intel v2");
}
END_TEST

CHECK_TEST("sweep", test_intel_v4_every_interleaving_holds)
{
	sweep_part(MODEL_INTEL_V4_FREEZE, "intel v4");
}
END_TEST

CHECK_TEST("sweep", test_intel_v5_every_interleaving_holds)
{
	sweep_part(MODEL_INTEL_V5, "intel v5");
}
END_TEST

CHECK_TEST("sweep", test_amd_zen2_every_interleaving_holds)
{
	sweep_part(MODEL_AMD_ZEN2, "amd zen2");
}
END_TEST

CHECK_TEST("sweep", test_amd_zen4_every_interleaving_holds)
{
	sweep_part(MODEL_AMD_ZEN4, "amd zen4 perfmonv2");
}
END_TEST

/* Tens of thousands of runs each; slower under the sanitizers. */
CHECK_CASE("sweep", NULL, NULL, 600);

/* Forked: each part's backend chooses its ops table afresh. */
int main(void)
{
	return check_run_forked(check_suite("x86pmu_race", NULL, 0));
}
