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

/* No run ending for this long is a hang: each run's own waits are
 * bounded at 2 s (arming, the phase, the stop's acknowledgement). */
#define STORM_STALL_MS 30000
/* The storm tests' Check timeout: 2000 runs took about 40 s on a quiet
 * host and over 100 s at load 28; a host starving the CPU threads also
 * makes the storm go on until enough samples landed in their phase. */
#define STORM_TIMEOUT_S 900

/* Start a machine of @cpus CPUs ticking at @hz, sampling with the counter
 * (@counter; its overflows at @pmu_hz per CPU) or the tick, and run
 * @runs profiles with windows of 0..@max_window_us.  Fails the test on
 * the first run that breaks an invariant, or when no run has ended for
 * @stall_ms: a hang is a storm that stops making progress, not one that a
 * loaded host makes slow (at load 28, 2000 runs took over 100 s). */
void storm_run(unsigned cpus, unsigned hz, bool counter, unsigned pmu_hz,
	       unsigned runs, unsigned max_window_us, unsigned stall_ms,
	       struct storm_result *res);

#endif
