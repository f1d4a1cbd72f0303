/* SPDX-License-Identifier: BSD-2-Clause */
/* The start/stop storm shared by check_stress (the tick as the source)
 * and check_stress_perf (the counter): a driver task on CPU 0 runs
 * thousands of short profiles through the profiler's session calls while
 * a spinner on every CPU gives the samples something to land in, and
 * checks every run as it ends (see check_stress_storm.c). */
#ifndef KPROF_TESTS_CHECK_STRESS_STORM_H
#define KPROF_TESTS_CHECK_STRESS_STORM_H

#include <stdbool.h>

#include "sim/ksim.h"

struct storm_result {
	unsigned runs;			/* runs completed and checked */
	unsigned long samples;		/* stored over every run */
	unsigned long dropped, late;	/* over every run */
	unsigned long tagged;		/* samples in the run's own phase */
	unsigned long empty_cpu_runs;	/* (cpu, run) pairs that never armed */
};

/* Start a machine of @cpus CPUs ticking at @hz, sampling with the counter
 * (@counter; its overflows at @pmu_hz per CPU) or the tick, and run
 * @runs profiles with windows of 0..@max_window_us.  Fails the test on
 * the first run that breaks an invariant, or when the storm has not
 * ended after @timeout_ms. */
void storm_run(unsigned cpus, unsigned hz, bool counter, unsigned pmu_hz,
	       unsigned runs, unsigned max_window_us, unsigned timeout_ms,
	       struct storm_result *res);

#endif
