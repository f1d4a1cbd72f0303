/* SPDX-License-Identifier: BSD-2-Clause */
/* What a session (or one interval of it) holds once drained: its fold
 * table, its books, and the names of its tasks.  The drain fills it
 * (prof/drain.c); every view reads it. */
#ifndef KPROF_PROF_PROF_DATA_H
#define KPROF_PROF_PROF_DATA_H

#include <stdbool.h>
#include <stdint.h>

#include "hal/cpu.h"
#include "prof/fold.h"

struct prof_wall;

/* Task names a session remembers, for the folded root frame and the
 * tasks view; a task past these prints as "?". */
#define PROF_TASK_NAMES 64
#define PROF_TASK_NAME_MAX 16

/* A session's samples, folded, and what the views say about them.
 * Every view reads this, so all views of one session agree. */
struct prof_data {
	uint64_t window_ns;		/* measured, start to stop */
	const char *source;
	bool counter;			/* the source counts only running CPUs */
	/* Weight units per second: the counter's events per second, or
	 * 10^9 where the tick samples (weights are nanoseconds). */
	uint64_t weight_per_sec;
	unsigned hz, depth;
	int pid;			/* the session's filter (PROF_PID_ALL) */
	uint32_t missing;		/* CPUs that never acknowledged the stop */
	uint64_t wait_ns;
	uint32_t unarmed;		/* CPUs that never armed: left out */
	uint64_t arm_wait_ns;
	uint64_t errors;		/* the counter failed to arm or disarm */
	uint32_t arm_failed;		/* CPUs whose counter would not arm */
	uint64_t throttled_hz;
	uint32_t run_cpus;		/* CPUs of the run whose samples count */
	uint64_t dropped;		/* lost to a full ring, every task */
	uint64_t samples;		/* taken, every task: stored + other */
	uint64_t other;			/* of them, beyond the fold table */
	uint64_t other_weight;		/* their weights, summed */
	uint32_t other_cpus;
	/* The same, per CPU: the views by CPU (`folded cpus`). */
	uint64_t cpu_other[HAL_MAX_CPUS];
	uint64_t cpu_other_weight[HAL_MAX_CPUS];
	uint64_t cpu_samples[HAL_MAX_CPUS];
	uint64_t cpu_ns[HAL_MAX_CPUS];	/* each CPU's window by the clock */
	uint64_t cpu_idle_ns[HAL_MAX_CPUS];	/* of which in its idle task */
	/* Its own time over the window (hal_cpu_time()): the CPU thread's
	 * CPU time in ksim, where a host may not run a busy CPU. */
	uint64_t cpu_run_ns[HAL_MAX_CPUS];
	struct fold fold;		/* chains by task, exact callers */
	unsigned ntasks;
	struct {
		int32_t pid;
		char name[PROF_TASK_NAME_MAX];
	} tasks[PROF_TASK_NAMES];
	/* A wall session's books (prof/wall.h); NULL without `wall`. */
	struct prof_wall *wall;
};

#endif
