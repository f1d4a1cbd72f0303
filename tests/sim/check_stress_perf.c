/* SPDX-License-Identifier: BSD-2-Clause */
/* ksim under stress with its perf_event_open counter: a start/stop storm
 * with the counter as the source, and the counter's signal rate per
 * second of the CPU thread's own time at 1 kHz and 10 kHz.  Exits 77
 * (skipped) where perf_event_open is refused.  The rate tests need a
 * counter that counts the thread's kernel time too (sim/pmu.c): a
 * user-space-only one skips the overflows that fall due in the kernel,
 * so where only that is allowed (perf_event_paranoid 2, not root) they
 * are left out, and say so. */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hal/cpu.h"
#include "hal/pmu.h"
#include "prof/profiler.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "check_stress_storm.h"
#include "sim_fixture.h"
#include "check_main.h"

CHECK_TEST("storm", test_counter_storm_accounts_every_run_without_stragglers)
{
	struct storm_result r;

	/* 2000 runs of 0-2 ms on 4 CPUs ticking every 0.5 ms (each tick may
	 * arm or disarm), the counter overflowing every 100 us of a CPU's
	 * time so that overflows race arming and disarming. */
	storm_run(4, 2000, true, 10000, 2000, 2000, STORM_STALL_MS, &r);
	/* storm_run() failed the test on any record of another run's phase,
	 * and went on until its runs had stored enough samples of their own
	 * phase for that check to mean something; how many runs that took
	 * depends on the host, and is not asserted. */
	ck_assert_uint_ge(r.runs, 2000);
}
END_TEST

/* ---- the counter's rate, per second of the CPU thread's own time ---- */

#define RATE_CPUS 4

struct rate_cpu {
	uint64_t cpu_ns, overflows, unclaimed;
};
static struct rate_cpu rate[RATE_CPUS];
static volatile bool rate_done[RATE_CPUS];
static volatile bool rate_go;
static unsigned rate_hz;
static uint64_t rate_cpu_budget_ns;
static uint64_t rate_period;
static volatile unsigned long rate_sink;

/* Spin in user space for @ns of the thread's CPU time.  The clock is a
 * system call, read only now and then: the counter counts user space
 * only, and an overflow that falls due inside the kernel is lost. */
static uint64_t rate_spin(uint64_t ns)
{
	uint64_t c0 = hal_cpu_time(), c;

	while ((c = hal_cpu_time()) - c0 < ns)
		for (unsigned i = 0; i < 1000000; i++)
			rate_sink++;
	return c;
}

/* Arms its CPU's counter for @rate_hz overflows per second of CPU time
 * (behind the profiler's back: each overflow is delivered and recorded
 * as unclaimed), spins for rate_cpu_budget_ns of its thread's time and
 * counts the overflow signals its CPU took meanwhile. */
static void rate_task(void *arg)
{
	unsigned cpu = (unsigned)(uintptr_t)arg;
	struct ksim_cpu_stats a, b;
	unsigned long flags;
	uint64_t c0, c1;

	while (!__atomic_load_n(&rate_go, __ATOMIC_ACQUIRE))
		sched_yield_cpu();
	flags = hal_irq_save();
	ksim_cpu_stats(cpu, &a);
	hal_pmu_arm(rate_period);
	c0 = hal_cpu_time();
	hal_irq_restore(flags);
	rate_spin(rate_cpu_budget_ns);
	flags = hal_irq_save();
	c1 = hal_cpu_time();
	ksim_cpu_stats(cpu, &b);
	hal_pmu_disarm();
	hal_irq_restore(flags);
	rate[cpu].cpu_ns = c1 - c0;
	rate[cpu].overflows = b.overflows - a.overflows;
	rate[cpu].unclaimed = b.unclaimed - a.unclaimed;
	__atomic_store_n(&rate_done[cpu], true, __ATOMIC_RELEASE);
	for (;;)
		sched_sleep_ms(1000);
}

/* The probe's rate gives the period (task-clock: ns). */
static void rate_start_tasks(void)
{
	const struct hal_pmu_info *info = prof_pmu_info();

	ck_assert(info->counts);
	rate_period = info->events_per_sec / rate_hz;
	for (unsigned cpu = 0; cpu < RATE_CPUS; cpu++)
		ck_assert_ptr_nonnull(task_create("rate", rate_task,
						  (void *)(uintptr_t)cpu, cpu));
	__atomic_store_n(&rate_go, true, __ATOMIC_RELEASE);
}

/* Counts only: the CPU time a thread got is what the counter counted,
 * so a loaded host changes how long this takes, not what it counts. */
static void rate_check(unsigned hz, uint64_t cpu_budget_ns, unsigned min_permille)
{
	static struct ksim_config cfg;
	double cpu_s = 0, got = 0, want;

	rate_hz = hz;
	rate_cpu_budget_ns = cpu_budget_ns;
	ksim_config_defaults(&cfg);
	cfg.cpus = RATE_CPUS;
	cfg.source = KSIM_SOURCE_PMU;
	cfg.late_init = rate_start_tasks;
	simfx_start(&cfg);
	ck_assert(ksim_pmu_counts_kernel());
	ck_assert(simfx_wait_flags(rate_done, RATE_CPUS, 30000));
	for (unsigned cpu = 0; cpu < RATE_CPUS; cpu++) {
		double c = (double)rate[cpu].cpu_ns / 1e9;

		fprintf(stderr, "counter %u hz, cpu %u: %llu overflow signals in "
			"%.3f s of cpu (%.2f%%)\n", hz, cpu,
			(unsigned long long)rate[cpu].overflows, c,
			100.0 * (double)rate[cpu].overflows / (c * hz));
		/* Nobody claimed them: the profiler was not armed. */
		ck_assert_uint_eq(rate[cpu].unclaimed, rate[cpu].overflows);
		cpu_s += c;
		got += (double)rate[cpu].overflows;
	}
	want = cpu_s * hz;
	ck_assert_msg(got >= min_permille / 1000.0 * want, "%.0f overflow signals "
		      "in %.3f cpu-seconds at %u hz (%.2f%%, want %.1f%%)", got, cpu_s,
		      hz, 100.0 * got / want, min_permille / 10.0);
	/* Over 100%: the signals and the thread's clock are two readings of
	 * one CPU time, and a loaded host skews them (102.0% pooled at 10
	 * kHz, load ~17; once 125.5%, every CPU alike, beside the arm64 QEMU
	 * suite, and 99.5-101.5% on every rerun); a period off by 2x gives
	 * 200%. */
	ck_assert_msg(got <= 1.5 * want + RATE_CPUS, "%.0f overflow signals in "
		      "%.3f cpu-seconds at %u hz", got, cpu_s, hz);
}

/* 1 kHz, the profiler's rate: 99.8-100% on a quiet host, 98.89% pooled
 * once at load ~20 on 2 cores, so the floor is 97%: a host that late
 * never took more, and a period off by 2x gives 50%. */
CHECK_TEST("rate", test_counter_rate_1khz_at_least_97_percent)
{
	rate_check(1000, 500000000ull, 970);	/* 4 x 500 expected */
}
END_TEST

/* 10 kHz: what this holds is the period ksim programs at that rate (one
 * off by 2x gives 50% or 200%; the upper bound above catches any too
 * short).  The lower bound cannot be the 1 kHz test's 99%: one overflow
 * signal costs ~55 us of the 100 us period on these nested-virtualized
 * hosts, and the host's task-clock hrtimer skips a period whenever it
 * fires more than a period late, which host load decides.  Measured:
 * quiet, 98.6-99.9% per CPU (99.0-99.4% pooled); the other core loaded,
 * 97.6% (98.5% pooled); two busy loops beside the 4 CPU threads on 2
 * host cores, 86.3% pooled and 73.9% on one CPU.  So the floor is 60%
 * pooled, below any lateness seen and above a doubled period; the
 * figure is printed every run.  See doc/performance.md. */
CHECK_TEST("rate", test_counter_rate_10khz_keeps_its_period)
{
	rate_check(10000, 200000000ull, 600);	/* 4 x 2000 expected */
}
END_TEST

/* Progress, not time, tells a hang (STORM_STALL_MS); this bound only
 * ends a storm that a starved host makes crawl. */
CHECK_CASE("storm", NULL, NULL, STORM_TIMEOUT_S);
CHECK_CASE("rate", NULL, NULL, 30);

int main(void)
{
	if (!simfx_perf_available(false)) {
		fprintf(stderr, "check_stress_perf: perf_event_open refused: skipped\n");
		return 77;
	}
	if (!simfx_perf_available(true)) {
		fprintf(stderr, "check_stress_perf: the counter may not count kernel "
			"time here: rate tests left out\n");
		return check_run_forked(check_suite_without("stress_perf", NULL, 0, "rate"));
	}
	return check_run_forked(check_suite("stress_perf", NULL, 0));
}
