/* SPDX-License-Identifier: BSD-2-Clause */
/* The profile report: header, chains, and why a report is empty
 * (DESIGN §3 "Report format", doc/profiler.md).  Separate from the
 * sampler so that tests print reports from records they build. */
#ifndef KPROF_KERNEL_REPORT_H
#define KPROF_KERNEL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/cpu.h"
#include "kernel/fold.h"
#include "kernel/profiler.h"

struct out;

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
	uint64_t throttled_hz;
	uint32_t run_cpus;		/* CPUs of the run whose samples count */
	uint64_t dropped;		/* lost to a full ring, every task */
	uint64_t samples;		/* taken, every task: stored + other */
	uint64_t other;			/* of them, beyond the fold table */
	uint64_t other_weight;		/* their weights, summed */
	uint32_t other_cpus;
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
};

/* The views (`profile show ...`), each a whole text ending in a newline.
 * They return 0, or -ENOMEM with nothing printed.  Task context. */
int prof_view_text(struct out *o, const struct prof_data *d, int pid,
		   unsigned chains);
int prof_view_folded(struct out *o, const struct prof_data *d, int pid);
/* The folded view by address (doc/profiler.md "Addresses"): each frame
 * as sampled, the image's build-id and each chain's weight in ns. */
int prof_view_folded_addr(struct out *o, const struct prof_data *d, int pid);
int prof_view_cpus(struct out *o, const struct prof_data *d);
int prof_view_tasks(struct out *o, const struct prof_data *d);
int prof_view_top(struct out *o, const struct prof_data *d, int pid,
		  unsigned n);

/* "31.2%": @part of @whole in tenths of a percent, rounded half up. */
void prof_print_percent(struct out *o, uint64_t part, uint64_t whole);

/* The views' first two lines: the window, then the samples, CPUs, drops
 * and source, as the text report prints them for every task. */
void prof_print_head(struct out *o, const struct prof_data *d);

/* The name the session noted for @pid, or "?". */
const char *prof_data_task_name(const struct prof_data *d, int pid);

/* One CPU's samples of the run. */
struct prof_segment {
	unsigned cpu;
	const struct prof_record *recs;
	size_t count;
	uint64_t dropped;
};

struct prof_report_in {
	uint64_t window_ns;		/* measured, start to stop */
	const char *source;		/* "pmu/nmi intel fixed-ctr1", "tick 100hz" */
	bool counter;			/* the source counts only running CPUs */
	int pid;			/* PROF_PID_ALL or the task to keep */
	unsigned chains;		/* chains to print, 1..PROF_CHAINS_MAX */
	uint32_t missing;		/* CPUs that never acknowledged the stop */
	uint64_t wait_ns;		/* how long the report waited for them */
	uint32_t unarmed;		/* CPUs that never armed: left out */
	uint64_t arm_wait_ns;		/* how long the window waited for them */
	uint64_t errors;		/* the counter failed to arm or disarm */
	uint64_t throttled_hz;		/* the rate a throttled counter fell to, 0 if none */
	unsigned hz;			/* samples per second per CPU; 0: unknown */
	const struct prof_segment *segs;	/* the CPUs that did */
	size_t nsegs;
};

/* Fold @in's samples and print the report.  Returns 0, or -ENOMEM with
 * nothing printed.  Task context (the chain table is on the heap). */
int prof_report_print(struct out *o, const struct prof_report_in *in);

#endif
