/* SPDX-License-Identifier: BSD-2-Clause */
/* Built-in workloads: known shapes for the profiler to find. */
#ifndef KPROF_WORK_WORK_H
#define KPROF_WORK_WORK_H

#include <stdbool.h>
#include <stdint.h>

#include "hal/cpu.h"

struct out;

#define WORK_MAX_TASKS (2 * HAL_MAX_CPUS)

struct workload {
	const char *name;
	const char *summary;
	/* Body of each task; returns once work_should_stop() says so. */
	void (*run)(void);
	/* Called once before the tasks start; may be NULL. */
	void (*begin)(void);
	/* Prints what it measured, from work_stop() once it has waited for
	 * the tasks; may be NULL. */
	void (*report)(struct out *o);
	/* A workload whose number is not a task count but a shape of its
	 * own (`work start deep 40`: frames) names it here, with its range
	 * and default, and runs as one task; NULL for the others. */
	const char *param;
	unsigned param_min, param_max, param_default;
	void (*set_param)(unsigned value);
	/* Tasks on each CPU it runs on: 0 or 1 for one, 2 for a pair that
	 * shares its CPU (pingpong). */
	unsigned tasks_per_cpu;
};

extern const struct workload work_split;
extern const struct workload work_spin;
extern const struct workload work_deep;
extern const struct workload work_sleepy;
extern const struct workload work_pingpong;
extern const struct workload work_swincr;

/* Every workload, NULL-terminated. */
extern const struct workload *const workloads[];

const struct workload *work_find(const char *name);

/* Start @w on CPUs 0 .. ntasks-1, its tasks_per_cpu tasks on each.  Returns
 * 0, -EBUSY when a workload is running, -EINVAL for a bad count, -ENOMEM. */
int work_start(const struct workload *w, unsigned ntasks);

/* Stop the running workload, wait (bounded) for its tasks to end and let
 * it print what it measured.  Returns -ENOENT when none runs. */
int work_stop(struct out *o);

/* The running workload, or NULL; its task pids for a pid-filtered
 * profile. */
const struct workload *work_running(void);
unsigned work_pids(int *pids, unsigned max);

/* Tasks poll this to end. */
bool work_should_stop(void);

/* A workload's truth as its report prints it: " NAME P.P%" for each of
 * the @n parts @t (percent of their sum, one decimal, rounded). */
void work_print_shares(struct out *o, const char *const names[],
		       const uint64_t t[], unsigned n);

#endif
