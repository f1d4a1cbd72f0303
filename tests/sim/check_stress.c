/* SPDX-License-Identifier: BSD-2-Clause */
/* ksim under stress, the tick as the source: a start/stop storm with the
 * tick raised so that CPUs see runs start and end often, and the tick's
 * rate.  Needs no perf_event_open (check_stress_perf does).  Each test
 * starts its own machine in Check's forked child. */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hal/cpu.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "check_stress_storm.h"
#include "sim_fixture.h"
#include "check_main.h"

CHECK_TEST("tick", test_tick_storm_accounts_every_run_without_stragglers)
{
	struct storm_result r;

	/* 2000 runs of 0-2 ms on 4 CPUs ticking every 0.5 ms. */
	storm_run(4, 2000, false, 0, 2000, 2000, STORM_STALL_MS, &r);
	/* storm_run() failed the test on any record of another run's phase,
	 * and went on until its runs had stored enough samples of their own
	 * phase for that check to mean something; how many runs that took
	 * depends on the host, and is not asserted. */
	ck_assert_uint_ge(r.runs, 2000);
}
END_TEST

/* ---- the tick's rate, per second of the CPU thread's own time ---- */

#define RATE_CPUS 4
#define RATE_HZ 1000
/* CPU time each CPU thread spins for: 4 x 0.4 s on 2 host cores is
 * about 0.8 s of wall time. */
#define RATE_CPU_NS 400000000ull

struct rate_cpu {
	uint64_t cpu_ns, wall_ns, ticks, overruns;
};
static struct rate_cpu rate[RATE_CPUS];
static volatile bool rate_done[RATE_CPUS];
static volatile bool rate_go;

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Spins with the tick open (task context) for RATE_CPU_NS of its
 * thread's CPU time, counting the ticks its CPU took meanwhile. */
static void rate_task(void *arg)
{
	unsigned cpu = (unsigned)(uintptr_t)arg;
	struct ksim_cpu_stats a, b;
	uint64_t c0, w0;

	while (!rate_go)
		sched_yield_cpu();
	ksim_cpu_stats(cpu, &a);
	c0 = hal_cpu_time();
	w0 = wall_ns();
	while (hal_cpu_time() - c0 < RATE_CPU_NS)
		;
	rate[cpu].cpu_ns = hal_cpu_time() - c0;
	rate[cpu].wall_ns = wall_ns() - w0;
	ksim_cpu_stats(cpu, &b);
	rate[cpu].ticks = b.ticks - a.ticks;
	rate[cpu].overruns = b.tick_overruns - a.tick_overruns;
	__atomic_store_n(&rate_done[cpu], true, __ATOMIC_RELEASE);
	for (;;)
		sched_sleep_ms(1000);
}

static void rate_start_tasks(void)
{
	for (unsigned cpu = 0; cpu < RATE_CPUS; cpu++)
		ck_assert_ptr_nonnull(task_create("rate", rate_task,
						  (void *)(uintptr_t)cpu, cpu));
}

/* A monotonic timer's expiry that finds the thread running is delivered
 * at once, and one that finds it descheduled (a loaded host) waits and is
 * merged with the next: so the ticks a CPU takes are at least its
 * thread's CPU time times the rate, whatever the host's load.  The
 * expirations themselves (ticks plus the overruns merged into them) keep
 * pace with the wall clock. */
CHECK_TEST("tick", test_tick_rate_per_cpu_second_at_least_99_percent)
{
	static struct ksim_config cfg;
	double cpu_s = 0, wall_s = 0, ticks = 0, expirations = 0;

	ksim_config_defaults(&cfg);
	cfg.cpus = RATE_CPUS;
	cfg.hz = RATE_HZ;
	cfg.source = KSIM_SOURCE_TICK;
	cfg.late_init = rate_start_tasks;
	simfx_start(&cfg);
	rate_go = true;
	ck_assert(simfx_wait_flags(rate_done, RATE_CPUS, 20000));
	for (unsigned cpu = 0; cpu < RATE_CPUS; cpu++) {
		double c = (double)rate[cpu].cpu_ns / 1e9;
		double w = (double)rate[cpu].wall_ns / 1e9;

		fprintf(stderr, "tick %u hz, cpu %u: %llu ticks in %.3f s of cpu "
			"(%.1f%%), %llu overruns, %.3f s of wall (%.1f%%)\n", RATE_HZ,
			cpu, (unsigned long long)rate[cpu].ticks, c,
			100.0 * (double)rate[cpu].ticks / (c * RATE_HZ),
			(unsigned long long)rate[cpu].overruns, w,
			100.0 * (double)(rate[cpu].ticks + rate[cpu].overruns) /
			(w * RATE_HZ));
		cpu_s += c;
		wall_s += w;
		ticks += (double)rate[cpu].ticks;
		expirations += (double)(rate[cpu].ticks + rate[cpu].overruns);
	}
	ck_assert_msg(ticks >= 0.99 * cpu_s * RATE_HZ,
		      "%.0f ticks in %.3f cpu-seconds at %u hz", ticks, cpu_s, RATE_HZ);
	ck_assert_msg(expirations >= 0.99 * wall_s * RATE_HZ,
		      "%.0f expirations in %.3f wall-seconds at %u hz", expirations,
		      wall_s, RATE_HZ);
	/* Nor more than the timer could have sent. */
	ck_assert_msg(expirations <= 1.01 * wall_s * RATE_HZ + RATE_CPUS,
		      "%.0f expirations in %.3f wall-seconds at %u hz", expirations,
		      wall_s, RATE_HZ);
}
END_TEST

/* Progress, not time, tells a hang (STORM_STALL_MS); this bound only
 * ends a storm that a starved host makes crawl. */
CHECK_CASE("tick", NULL, NULL, STORM_TIMEOUT_S);

int main(void)
{
	return check_run_forked(check_suite("stress", NULL, 0));
}
